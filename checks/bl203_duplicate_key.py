"""The same key twice in one YAML mapping.

## What it does
Reports every key that appears again in the same mapping of a recipe, master config, workflow
or any other YAML file benchlint reads, at the repeated key, with the first as a related location.
Keys are the same when PyYAML reads them as one: `yes` and `true`, `1` and `1.0` are; `1` and
`"1"` (a number and a string), `on` and `"on"` are not.

## Why is this bad?
YAML forbids duplicate keys, but PyYAML (which srtctl and the sweep tooling use) silently keeps
the *last* value. An edit to the first `max_attempts:` of a recipe then changes nothing, and the
reviewer reads a value the job never sees.

## Example
```yaml path=recipes/example.yaml
health_check:
  max_attempts: 1440
  interval_seconds: 10
  max_attempts: 360
```

## Use instead
```yaml path=recipes/example.yaml
health_check:
  max_attempts: 1440
  interval_seconds: 10
```

A key that stands for one to fill in (`x.x.x.x`, once per node of a sample, or `<node-ip>`) is
counted, not reported. A key repeated with the same value each time (as PyYAML reads it: `deepep`
and `"deepep"` are one) changes nothing today: it is reported as a note (an edit to the first would
be silently ignored). In a Kubernetes manifest (a document with `apiVersion` and `kind` at its top
level, not kustomize's own `Kustomization`) kustomize-based tools (`kubectl apply -k`, Argo CD,
Flux) refuse a repeated key whatever the values (`mapping key "volumes" already defined`), while
`kubectl apply -f` keeps the last value: with the same value it is a warning, as benchlint does not
know which tool reads the file. GitHub refuses a workflow with a repeated key (`'X' is already
defined`), whatever the values: an error; its reader compares keys without their case (`build`
and `Build`, `X` and `x` under `env:` are one key; a `${{ }}` key is not compared), and so does
this rule in a workflow. A repeated merge key (`<<: *base` then `<<: *extra`) is
merged every time, not the last only; PyYAML releases differ on which mapping a key both define
comes from (an error), and where they define no key in common only a stricter loader minds (a
warning). Its fix is one `<<: [*base, *extra]`, written by hand.

## Fix safety
The fix removes the earlier entry (with the lines under it), which PyYAML ignores: what PyYAML
reads is unchanged: safe for a scalar, unsafe for a mapping or a list (two blocks under one key
were most likely meant to be one: removing the first throws away what it set, so merge it into
the later one first), and unsafe in a workflow (GitHub refused it: which value was meant is not
known). It is not offered where those lines hold an anchor.

## References
- YAML 1.2.2, 3.2.1.1: "the content of a mapping node is an unordered set of key/value node pairs,
  with the restriction that each of the keys is unique".
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator

from benchlint.context import Context
from benchlint.finding import Finding, Fix, Location, Severity, Undecided, clip
from benchlint.fixes import line_removal
from benchlint.lazyre import lazy_compile
from benchlint.registry import rule
from benchlint.workflow import WORKFLOWS
from benchlint.workspace import path_matches
from benchlint.yamlmodel import NOT_COMPARED, Duplicate, YamlDocument, YNode


def _show(node: YNode) -> str:
    if node.is_scalar:
        text = clip(node.value, 40)
        return repr(text) if node.style in ("'", '"') or not text else text
    return "a mapping" if node.is_map else "a sequence"


def _findings(document: YamlDocument) -> list[Finding | Undecided]:
    """The duplicates of one document (the rule's document pass: worked out while the document
    is at hand, which a large one may not be later)."""
    found: list[Finding | Undecided] = list(_duplicates(document))
    return found


@rule(
    "BL203",
    "duplicate-key",
    Severity.ERROR,
    tags=("yaml", "correctness"),
    precision="very-high",
    document_pass=_findings,
)
def check(ctx: Context) -> Iterator[Finding]:
    for path in ctx.in_scope(ctx.ws.yaml_paths):
        yield from ctx.document_pass("BL203", path, _findings)


def _duplicates(document: YamlDocument) -> Iterator[Finding | Undecided]:
    # (GitHub reads a workflow with its own template reader, not PyYAML: h128 W2)
    workflow = any(path_matches(document.path, pattern) for pattern in WORKFLOWS)
    same = _github_key if workflow else _pyyaml_key
    for duplicate in document.duplicates(_github_key if workflow else None):
        key = duplicate.again.value
        if _FILL_IN.fullmatch(str(key)):
            # (`x.x.x.x:` once per node of a sample to fill in: keys to come, not keys; t84b)
            yield Undecided(_FILLED_IN, Location(document.path, duplicate.again.span))
            continue
        first_line = duplicate.first.span.line
        reader = (
            "GitHub reads as the same key (it ignores case)"
            if workflow
            else "PyYAML reads as the same key"
        )
        advice = ""
        alike = _same_values(duplicate, same)
        severity = Severity.NOTE if alike else None
        if key == "<<" and duplicate.again.style is None and _disjoint_merges(duplicate):
            outcome = (
                "PyYAML merges every one of them, and as no key takes two values from them "
                "every PyYAML release builds the same mapping, but a key written twice is not "
                "valid YAML: stricter loaders (ruamel.yaml) refuse the file"
            )
            advice = "write one `<<: [*first, *second]`"
            severity = Severity.WARNING
        elif key == "<<" and duplicate.again.style is None:
            outcome = (
                "PyYAML merges every one of them, not only the last, and PyYAML releases "
                "differ on which value a key defined by several takes"
            )
            advice = "write one `<<: [*first, *second]`"
            severity = None
        elif workflow:
            outcome = (
                f"GitHub refuses the workflow (`'{key}' is already defined`): none of its jobs runs"
            )
            severity = None
        elif _manifest(document, duplicate.again):
            refused = (
                "kustomize-based tools (`kubectl apply -k`, Argo CD, Flux) refuse the manifest "
                f'(`mapping key "{key}" already defined`)'
            )
            if alike:
                outcome = (
                    f"both give {_show(duplicate.winner)}: `kubectl apply -f` and PyYAML change "
                    f"nothing today, but {refused}"
                )
                severity = Severity.WARNING  # (refused or not: which tool reads it is unknown)
            else:
                outcome = (
                    f"{refused}; `kubectl apply -f` and PyYAML keep the last value, "
                    f"{_show(duplicate.winner)}"
                )
        elif alike:
            outcome = (
                f"both give {_show(duplicate.winner)}, so nothing changes today, but an edit "
                "to the first is silently ignored"
            )
        else:
            outcome = f"PyYAML keeps the last value, {_show(duplicate.winner)}"
        # (keys GitHub takes for one but spelt otherwise, `HF_HOME` and `hf_home`, are two
        # variables to the shell: which to keep is not known, no fix: h140 W5)
        respelt = duplicate.first.value != key
        fix = (
            None
            if advice or (workflow and respelt)
            else _removal(document, duplicate, workflow, same)
        )
        yield Finding(
            "BL203",
            f"key '{key}' is repeated in this mapping (first at line {first_line}"
            + (
                f" as '{duplicate.first.value}', which {reader}"
                if duplicate.first.value != key
                else ""
            )
            + f"); {outcome}",
            Location(document.path, duplicate.again.span),
            related=(
                Location(document.path, duplicate.first.span, f"first '{duplicate.first.value}'"),
            ),
            subject=key,
            help=advice,
            fix=fix,
            severity=severity,
        )


def _pyyaml_key(key: YNode) -> Hashable:
    """A key as PyYAML compares them: the scalar it reads (`YNode.key_identity`)."""
    return key.key_identity  # type: ignore[no-any-return]


def _github_key(key: YNode) -> Hashable:
    """A workflow's key as GitHub's template reader compares them: its text, whatever its case
    (`'env' is already defined` for `ENV` after `env`; actions/runner's TemplateReader, mirrored
    in actions/languageservices); an expression key is not compared."""
    return NOT_COMPARED if "${{" in key.value else key.value.upper()


# a key that stands for one to fill in: an address of `x`s (`x.x.x.x`, `xxx.xxx.xxx.xxx`,
# `x.x.x.x:xxxx`), a `<...>` (`<node-ip>`)
_FILL_IN = lazy_compile(r"[xX]+(?:[.:][xX]+)+|<[^<>\s]+>")
_FILLED_IN = (
    "repeated keys that stand for values to fill in (`x.x.x.x`, `<node-ip>`), not reported "
    "(BL203: they differ once the file is filled in)"
)


def _manifest(document: YamlDocument, node: YNode) -> bool:
    """Whether the node is in a Kubernetes manifest: a document whose top level has `apiVersion`
    and `kind` (kustomize's YAML reader refuses a repeated key in one), not kustomize's own
    configuration (a `Kustomization`, a `Component`: read as PyYAML reads YAML, the last value
    winning)."""
    line = node.span.line
    for root in document.documents:
        if root.span.line <= line <= root.span.end_line and root.is_map:
            api = root.get("apiVersion")
            if api is not None and api.is_scalar and api.value.startswith("kustomize.config.k8s"):
                return False
            keys = {k.value for k, _ in root.pairs if k.is_scalar}
            return {"apiVersion", "kind"} <= keys
    return False


def _disjoint_merges(duplicate: Duplicate) -> bool:
    """Whether the mappings the repeated `<<` keys merge (each a mapping or a list of them, and
    what they merge in turn) give no key two different values between them: then which one
    PyYAML takes a key from does not matter."""
    seen: dict[object, object] = {}
    for k, value in duplicate.mapping.pairs:
        if not k.is_scalar or k.key_identity != duplicate.again.key_identity:
            continue
        merged = value.items if value.is_seq else [value]
        for mapping in merged:
            keys = _keys(mapping)
            if keys is None or any(seen.get(key, given) != given for key, given in keys.items()):
                return False
            seen.update(keys)
    return True


def _keys(mapping: YNode, depth: int = 0) -> dict[object, object] | None:
    """The keys a merged mapping gives, each with what identifies its value (a scalar as PyYAML
    reads it, else the node): its own, and those of the mappings its `<<` merges in turn
    (None: not a mapping of plain keys, or merges too deep to follow)."""
    if not mapping.is_map or depth > 8:
        return None
    keys: dict[object, object] = {}
    for key, value in mapping.pairs:
        if not key.is_scalar:
            return None
        if key.value == "<<" and key.style is None:
            for inner in value.items if value.is_seq else [value]:
                found = _keys(inner, depth + 1)
                if found is None:
                    return None
                keys = {**found, **keys}  # (the mapping's own keys win over merged ones)
        else:
            keys[key.key_identity] = value.key_identity if value.is_scalar else id(value)
    return keys


def _same_values(duplicate: Duplicate, same: Callable[[YNode], Hashable]) -> bool:
    """Whether every occurrence of the key (as `same` tells keys apart) gives the same scalar as
    PyYAML reads it (`cutlass` and `"cutlass"`, `yes` and `true`; not `1` and `"1"`, a number
    and a string, nor `1` and `1.0`)."""
    values = [
        v for k, v in duplicate.mapping.pairs if k.is_scalar and same(k) == same(duplicate.again)
    ]
    if not all(v.is_scalar for v in values):
        return False
    read = [(type(v.key_identity), v.key_identity) for v in values]
    return all(r == read[0] for r in read)


def _removal(
    document: YamlDocument, duplicate: Duplicate, workflow: bool, same: Callable[[YNode], Hashable]
) -> Fix | None:
    """Remove the occurrence right before the repeated key (PyYAML ignores it), with its
    value: the lines from its key to the next key, less the comments right above that one. Only
    in a block mapping whose keys start their lines, and never when those lines define an
    anchor (an alias elsewhere may use it). In a workflow, which GitHub refused, unsafe: which
    value was meant is not known."""
    pairs = [k for k, _ in duplicate.mapping.pairs]
    again = next(i for i, k in enumerate(pairs) if k is duplicate.again)
    earlier = max(
        i for i in range(again) if pairs[i].is_scalar and same(pairs[i]) == same(duplicate.again)
    )
    key, following = pairs[earlier], pairs[earlier + 1]
    value = duplicate.mapping.pairs[earlier][1]
    source = document.file
    first, stop = key.span.line, following.span.line
    for node in (key, following):
        if source.line_text(node.span.line)[: node.span.column - 1].strip():
            return None  # a flow mapping, or a key behind `- `
    if stop <= first:
        return None
    while stop - 1 > first and source.line_text(stop - 1).strip()[:1] in ("", "#"):
        stop -= 1  # blank lines and comments right above the next key stay with it
    lines = [source.line_text(n) for n in range(first, stop)]
    if any(_ANCHOR.search(line) for line in lines):
        return None
    why = "so GitHub accepts the workflow" if workflow else "which PyYAML ignores"
    if value.is_scalar:
        return Fix(
            f"remove the '{key.value}' on line {first}, {why}",
            (line_removal(source, first, stop - 1),),
            applicability="unsafe" if workflow else "safe",
        )
    # (a block of its own: likely meant to be merged into the later one, not thrown away;
    # what PyYAML reads stays the same, what the author wrote there is lost: h77 W2)
    return Fix(
        f"remove the '{key.value}' block on lines {first}-{stop - 1}, {why} "
        "(merge what it sets into the later one first, if it was meant)",
        (line_removal(source, first, stop - 1),),
        applicability="unsafe",
    )


_ANCHOR = lazy_compile(r"(^|[\s\[{,:-])&[^\s,\[\]{}]")
