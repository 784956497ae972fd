"""A flag the Dynamo vLLM worker rejects at start-up.

## What it does
Reports vLLM *frontend* flags (and Dynamo flags a release does not have) given to the Dynamo vLLM
worker: in a Dynamo-served recipe's `backend.vllm_config.{prefill,decode,aggregated}` (also under
`base:` and override blocks; in srtctl's schema 2, `roles.{prefill,decode,agg}.args` of a vLLM
`engine`; keys merged in with `<<: *common` too, reported once at the anchor), on `python -m
dynamo.vllm` command lines in scripts (also `python -m "$WORKER_MODULE"` where the script gives the
variable that one value, under no condition, before the line), nested ones included, and in
Kubernetes containers (a DynamoGraphDeployment's `mainContainer`: its `command` and `args` lists, or
the script they give `sh -c`). The worker builds its parser from vLLM's *engine* arguments plus its
own `--dyn-*` flags, so anything else ends it with `unrecognized arguments`. The Dynamo release is
the one the recipe installs (`dynamo.version` / `dynamo.wheel`, schema 2's `dynamo.source.pypi` /
`wheel`) or a container's runtime image names (`.../ai-dynamo/vllm-runtime:0.8.0`; a recipe's
`model.container` where it installs none, `dynamo.install: false`), else `dynamo-version` from the
configuration (for what names none, and for scripts), else the flags every checked release rejects.
The message names the replacement (`--dyn-tool-call-parser`, `--custom-jinja-template`, `python -m
dynamo.frontend --http-port`, ...), the release that added a Dynamo flag and the release's own
spelling of it (`--is-prefill-worker` before `--disaggregation-mode prefill`), or says to drop it.
`--reasoning-parser` is accepted but only configures vLLM's engine-side reasoning; without
`--dyn-reasoning-parser` next to it, that is a note (not on a prefill role, which returns no
response text).

## Why is this bad?
Every worker of a 16-GPU disaggregated job dies within seconds of start-up with
`__main__.py: error: unrecognized arguments: --tool-call-parser kimi_k3`, after the allocation
was granted and the model download began.

## Example
```yaml path=benchmarks/multi_node/srt-slurm-recipes/vllm/kimi/agg.yaml
frontend:
  type: dynamo
backend:
  type: vllm
  vllm_config:
    aggregated:
      tool-call-parser: kimi_k3
      enable-auto-tool-choice: true
```

## Use instead
```yaml path=benchmarks/multi_node/srt-slurm-recipes/vllm/kimi/agg.yaml
frontend:
  type: dynamo
backend:
  type: vllm
  vllm_config:
    aggregated:
      dyn-tool-call-parser: kimi_k3
```

## Exceptions
Recipes served with `frontend.type: vllm` (`vllm serve`, not a Dynamo worker), a frontend with
`dyn-chat-processor: vllm`, and SGLang or TRT-LLM workers are not checked. A flag the measured
data does not name (for example an engine flag newer than a release's vLLM pin) is never
reported. Where no release is known, only the flags every checked release rejects are reported;
a flag only some releases reject (`--is-prefill-worker`, gone in 1.4.0) is said on stderr.

## Fix safety
Renaming a flag to the worker's own is safe: the worker reads the same setting under that name
(not offered where the recipe or command line sets that flag already: the rename would repeat
it, and the last value would win).
Dropping a flag the worker has no equivalent for is unsafe (applied with `--unsafe-fixes`): the
setting the recipe asked for is gone.
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.context import Context
from benchlint.dynamo import flag_name, worker_flags
from benchlint.engines import Arg, launches
from benchlint.finding import Edit, Finding, Fix, Location, Severity
from benchlint.fixes import line_removal
from benchlint.images import dynamo_release
from benchlint.layout import srtctl_dynamo_default
from benchlint.manifests import containers
from benchlint.recipe import dynamo_pin, engine_configs, frontend_args, frontend_type
from benchlint.registry import rule
from benchlint.shell.model import Script
from benchlint.source import SourceText
from benchlint.yamlmodel import YNode

UNDECIDED = (
    "Dynamo vLLM worker flags only some releases reject not checked (BL301: no release known: no "
    "`dynamo-version` setting, no release in the runtime image's tag)"
)
UNDECIDED_RECIPE = (
    "recipes with a Dynamo vLLM worker flag only some releases reject not checked (BL301: no "
    "release known: no `dynamo-version` setting, no `dynamo.version` or `wheel` in the recipe, a "
    "`hash` names none, and srtctl's default release is its own (not this repository's); with "
    "`install: false`, no release in the image's tag)"
)


_DEFAULT = " (the one srtctl installs where a recipe names none)"


def _release_text(release: str | None) -> str:
    return f"Dynamo {release}" if release else "every checked Dynamo release (0.4.0-1.6.1)"


def _recipe_findings(ctx: Context, path: str, release_override: str | None) -> Iterator[Finding]:
    document = ctx.ws.yaml(path)
    root = document.root if document is not None else None
    root_source = ctx.ws.source(path)
    if root is None or root_source is None or frontend_type(root) != "dynamo":
        return
    if frontend_args(root).get("dyn-chat-processor") == "vllm":
        return
    data = worker_flags()
    default = srtctl_dynamo_default(ctx.ws)
    pin = dynamo_pin(root)
    release = data.release_for(
        pin or release_override or dynamo_pin(root, default.value if default is not None else None)
    )
    # (where the release is the default of the tree's own srtctl: where its source says so)
    said = (
        (default.where,)
        if default is not None and not release_override and not pin and release is not None
        else ()
    )
    rejected = data.rejected_by(release)
    merged: set[int] = set()  # (a key merged into several roles from one anchor: once)
    for where, mapping in engine_configs(root, "vllm"):
        # (as PyYAML loads it: keys merged in with `<<: *common` too, h128 M3)
        loaded = mapping.loaded_pairs()
        values = {id(k): v for k, v in loaded}
        own = {id(k) for k, _ in mapping.pairs}
        flags = {flag_name(k.value): k for k, _ in loaded if k.is_scalar and id(k) not in merged}
        merged.update(id(k) for k in flags.values() if id(k) not in own)
        if release is None and not data.varying.isdisjoint(flags):
            ctx.count(
                UNDECIDED_RECIPE, Location(path, flags[min(data.varying & flags.keys())].span)
            )
        # the fixes may drop keys, but never every key of the mapping
        dropped = [f for f in flags if f in rejected and data.rename(f, release) is None]
        may_drop = len(mapping.pairs) > len([f for f in dropped if data.droppable(f, release)])
        for flag, key in flags.items():
            value = values.get(id(key))
            shown = (
                f"{key.value}: {value.value}"
                if value is not None and value.is_scalar
                else key.value
            )
            if flag in rejected:
                yield Finding(
                    "BL301",
                    f"`{shown}` in {where} is rejected by the Dynamo vLLM worker of "
                    f"{_release_text(release)}{_DEFAULT if said else ''} "
                    f"(`unrecognized arguments: {flag}`)",
                    Location(path, key.span),
                    related=said,
                    help=data.advice(flag, release),
                    subject=f"{where}.{flag}",
                    # (a merged key is the anchor's, which other mappings use too: no fix)
                    fix=_recipe_fix(root_source, mapping, key, flag, release, may_drop)
                    if id(key) in own
                    else None,
                )
            elif (
                flag == "--reasoning-parser"
                and "--dyn-reasoning-parser" not in flags
                # (a prefill worker returns no response text: the decode worker's note says it
                # for the recipe; h133 W2)
                and where.rsplit(".", 1)[-1] != "prefill"
                and not where.endswith("prefill.args")
            ):
                yield Finding(
                    "BL301",
                    f"`{shown}` in {where} only sets vLLM's engine-side reasoning; Dynamo parses "
                    "reasoning in responses only with `dyn-reasoning-parser` as well",
                    Location(path, key.span),
                    subject=f"{where}.{flag}",
                    severity=Severity.NOTE,
                )


def _script_pass(ctx: Context, script: Script) -> Iterator[Finding]:
    release = worker_flags().release_for(ctx.config.dynamo_version)
    yield from _launch_findings(ctx, script, release)


def _manifest_findings(ctx: Context, path: str, release_override: str | None) -> Iterator[Finding]:
    """The worker's command line in a Kubernetes container (a DynamoGraphDeployment's
    `mainContainer`), checked against the release its runtime image's tag names."""
    source = ctx.ws.source(path)
    document = ctx.ws.yaml(path) if source is not None and _MODULE in source.text else None
    if source is None or document is None:
        return
    data = worker_flags()
    for container in containers(source, document, (_MODULE,)):
        # (the image's own tag first: the setting is for what names no release; t86 h6)
        release = data.release_for(dynamo_release(container.image) or release_override)
        yield from _launch_findings(ctx, container.script, release)


_MODULE = "dynamo.vllm"


def _launch_findings(ctx: Context, script: Script, release: str | None) -> Iterator[Finding]:
    data = worker_flags()
    rejected = data.rejected_by(release)
    for launch in launches(script):
        if launch.module != _MODULE:
            continue
        if release is None and any(flag_name(a.value) in data.varying for a in launch.flags):
            ctx.count(UNDECIDED, Location(script.path, launch.command.first_line_span))
        for arg in launch.flags:
            if not arg.value.startswith("--"):
                continue
            flag = flag_name(arg.value)
            if flag in rejected:
                yield Finding(
                    "BL301",
                    f"`{arg.value}` on `python -m dynamo.vllm` is rejected by the worker of "
                    f"{_release_text(release)}",
                    Location(script.path, arg.span),
                    help=data.advice(flag, release),
                    subject=flag,
                    fix=_word_fix(arg, flag, release, {flag_name(a.value) for a in launch.flags}),
                )


def _renamed(text: str, flag: str, new: str) -> str | None:
    """`text` (a recipe key or a command-line word) with the flag's name replaced, if it is
    exactly that flag (with or without its dashes, with an `=value`)."""
    name, sep, rest = text.partition("=")
    bare = name.lstrip("-")
    if bare != flag[2:]:
        return None
    dashes = name[: len(name) - len(bare)]
    return dashes + new[2:] + sep + rest


def _recipe_fix(
    source: SourceText,
    mapping: YNode,
    key: YNode,
    flag: str,
    release: str | None,
    may_drop: bool,
) -> Fix | None:
    """Rename the key to the worker's own flag; or, where it has none, drop a one-line
    `key: value` entry of a block mapping that keeps other keys (`may_drop`: some key stays
    once every fix of the mapping is applied)."""
    data = worker_flags()
    raw = source.line_text(key.span.line)[key.span.column - 1 : key.span.end_column - 1]
    if key.span.end_line != key.span.line or raw != key.value:
        return None  # a quoted or multi-line key: not rewritten
    new = data.rename(flag, release)
    if new is not None:
        text = _renamed(key.value, flag, new)
        if text is None or any(flag_name(k.value) == flag_name(text) for k, _ in mapping.pairs):
            return None  # (the mapping sets that flag already: renaming would repeat it)
        return Fix(f"rename it to {text}", (Edit(source.path, key.span, text),))
    value = mapping.get(key.value)
    if not data.droppable(flag, release) or value is None or not may_drop:
        return None
    line = key.span.line
    if source.line_text(line)[: key.span.column - 1].strip() or value.span.end_line != line:
        return None  # a flow mapping, a key behind `- `, or a value on further lines
    return Fix(f"drop {key.value}", (line_removal(source, line, line),), "unsafe")


def _word_fix(arg: Arg, flag: str, release: str | None, given: set[str]) -> Fix | None:
    """Rename a `--flag` or `--flag=value` argument written plainly to the worker's own flag,
    unless the launch gives that flag already (`given`: argparse would keep the last value)."""
    new = worker_flags().rename(flag, release)
    span = arg.span
    file = arg.word.script.file
    if new is None or span.end_line != span.line or flag_name(new) in given:
        return None
    if file.line_text(span.line)[span.column - 1 : span.end_column - 1] != arg.value:
        return None  # written with quotes or escapes: not rewritten
    text = _renamed(arg.value, flag, new)
    if text is None:
        return None
    return Fix(f"rename it to {new}", (Edit(file.path, span, text),))


@rule(
    "BL301",
    "dynamo-worker-rejected-flag",
    Severity.ERROR,
    tags=("engines", "dynamo"),
    script_pass=_script_pass,
)
def check(ctx: Context) -> Iterator[Finding]:
    override = ctx.config.dynamo_version
    recipes = set(ctx.ws.recipe_paths)
    for path in ctx.in_scope(ctx.ws.yaml_paths):
        if path in recipes:
            yield from _recipe_findings(ctx, path, override)
        else:
            yield from _manifest_findings(ctx, path, override)
