"""Where a repository keeps what benchlint wires together, detected from the files' content.

InferenceX moved its master configs (`.github/configs/` until July 2026, `configs/` since), gave
its runners file a `labels:` key, renamed its entries' search space (`seq-len-configs:`, then
`scenarios:`), started with launchers at the repository root and overlaid recipe folders of
several names; srt-slurm keeps its recipes in `recipes/`. Names and folders are no guide, so each
fact is found from what the files hold:

- master configs: YAML files whose top-level mappings are entries (a `runner:` and a search space
  under `scenarios:` or `seq-len-configs:`), outside `deprecated/` folders;
- the runners file: a `runners.yaml` mapping labels to lists of runner names, under `labels:` or at
  the top level;
- launchers: the scripts the workflow templates run (`bash ./runners/launch_${RUNNER_NAME%%_*}.sh`
  gives the pattern and the rule from a runner's name to its launcher); with none, those any
  workflow runs by a path named after a runner label of the entries (`launch_gb200.sh`);
- recipe roots: the folders launchers copy into the srt-slurm checkout (`cp -rT DIR recipes/x`,
  `cp -r "$DIR"/* recipes/`, `rsync -a DIR/ recipes/`), the usual folders that exist, and `recipes/`
  in a repository that is an srt-slurm tree, or that holds srtctl's recipes alone (a recipe
  collection to copy into an srt-slurm checkout: no launcher copies any, no `srtslurm.yaml`).

A setting in `[tool.benchlint.layout]` wins over what is detected; each fact says where it was
learned (`benchlint layout`).
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from benchlint import profile
from benchlint.config import Layout
from benchlint.finding import Location, Span
from benchlint.lazyre import lazy_compile

if TYPE_CHECKING:
    from benchlint.source import SourceText
    from benchlint.workspace import Workspace
    from benchlint.yamlmodel import YNode

# A `.sh` path in a workflow's run text that the runner's name picks
_LAUNCH_TEMPLATE = lazy_compile(
    r"(?<![\w$/.-])(?:\./)?([\w./-]*(?:\$\{?[A-Za-z_]\w*[^}\s]*\}?[\w.*-]*)*\.sh)"
)
_ENV_EXPRESSION = lazy_compile(r"\$\{\{\s*env\.([A-Za-z_]\w*)\s*\}\}")
_EXPANSION = lazy_compile(r"\$\{[^}]*\}|\$[A-Za-z_]\w*")
SEARCH_SPACES = ("scenarios", "seq-len-configs")
DEFAULT = Layout()


@dataclass(frozen=True)
class Fact:
    kind: str  # "master config" | "runners file" | "launchers" | "recipe root" | "skipped"
    value: str  # a path or a pattern
    detail: str  # what was found there
    source: Location | None = None  # where it was learned
    configured: bool = False  # from [tool.benchlint.layout]
    more: int = 0  # other places that teach the same

    def describe(self) -> str:
        where = " (configured)" if self.configured else ""
        if self.source is not None and not self.configured:
            where = f" from {self.source.path}:{self.source.span.line}"
            where += f" and {self.more} more" if self.more else ""
        detail = f": {self.detail}" if self.detail else ""
        return f"{self.kind} {self.value}{detail}{where}"


@dataclass
class Detected:
    layout: Layout
    facts: list[Fact]
    recipe_tree: bool = False  # the repository is an srt-slurm tree (set with the recipe roots)
    # master configs with a runners file of their own beside them, another than the one in
    # effect (a copy of another project kept in this repository): not wired
    unwired: list[str] = field(default_factory=list)
    # master configs in a `deprecated/` folder: not linted (the workflows run none of them)
    deprecated: list[str] = field(default_factory=list)


def detect(ws: Workspace) -> Detected:
    """The layout in effect: what the configuration sets, the rest detected."""
    configured = ws.config.layout
    given = ws.config.layout_keys
    facts: list[Fact] = []
    layout = replace(configured)
    deprecated: list[str] = []
    if "master-configs" not in given:
        layout.master_configs = _master_configs(ws, facts, deprecated) or configured.master_configs
    else:
        facts += [Fact("master config", p, "", None, True) for p in configured.master_configs]
    unwired: list[str] = []
    if "runners-file" not in given:
        layout.runners_file = _runners_file(ws, layout.master_configs, facts)
        if "master-configs" not in given:
            layout.master_configs, unwired = _own_project(ws, layout, facts)
    else:
        facts.append(Fact("runners file", configured.runners_file, "", None, True))
    if "launchers" not in given:
        templates = _launcher_templates(ws, configured.workflows, facts)
        templates = templates or _named_launchers(ws, layout, facts)
        if templates:
            layout.launcher_templates = templates
            layout.launchers = list(dict.fromkeys(_glob_of(t) for t in templates))
    else:
        facts += [Fact("launchers", p, "", None, True) for p in configured.launchers]
    return Detected(layout, facts, unwired=unwired, deprecated=deprecated)


def detect_recipe_roots(ws: Workspace, detected: Detected) -> list[str]:
    """The recipe roots (`Workspace.recipe_roots`); their facts join the others'."""
    if "recipe-roots" in ws.config.layout_keys:
        roots = ws.config.layout.recipe_roots
        detected.facts += [Fact("recipe root", p, "", None, True) for p in roots]
        return list(roots)
    detected.recipe_tree = _is_srt_slurm(ws)
    return _recipe_roots(ws, detected.layout, detected.facts, detected.recipe_tree)


# -- master configs --------------------------------------------------------------------------
def _master_configs(ws: Workspace, facts: list[Fact], deprecated: list[str]) -> list[str]:
    found = []
    verdicts = _Verdicts(ws)
    for path in ws.yaml_paths:
        verdict = verdicts.of(path)
        if verdict is None:
            continue
        count, schemas = verdict
        detail = f"{count} entries (schema: {', '.join(schemas)})"
        first = Location(path, Span(1, 1, 1, 1))
        if "deprecated" in path.split("/")[:-1]:
            facts.append(Fact("skipped", path, f"{detail}; in a deprecated folder", first))
            deprecated.append(path)
            continue
        facts.append(Fact("master config", path, detail, first))
        found.append(path)
    verdicts.store()
    return found


class _Verdicts:
    """Whether each YAML file is a master config (`_entries_in_text`), by its content hash, kept
    in the cache as one table for the repository: a file the index knows unchanged is not read
    again (a pre-commit run would otherwise read every YAML file of the repository)."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        stored = ws.cache.get("master-configs", str(ws.root), b"") if ws.cache else None
        self.stored: dict[bytes, Any] = stored if isinstance(stored, dict) else {}
        self.now: dict[bytes, Any] = {}

    def of(self, path: str) -> tuple[int, list[str]] | None:
        digest = self.ws.known_digest(path)  # (unread when its verdict is known)
        if digest is not None and digest in self.stored:
            verdict: tuple[int, list[str]] | None = self.stored[digest]
            self.now[digest] = verdict
            return verdict
        source = self.ws.source(path)
        if source is None:
            return None
        found = entries_in(source.text)
        self.now[source.digest] = found
        return found

    def store(self) -> None:
        if self.ws.cache is not None and self.now != self.stored:
            self.ws.cache.put("master-configs", str(self.ws.root), b"", self.now)


_TOP_KEY = lazy_compile(
    r"^[^\s#-][^:#\n]*:[ \t]*(?:#.*)?$", re.MULTILINE
)  # `name:` opening a block
_RUNNER = lazy_compile(r"^[ \t]+runner:[ \t]*\S", re.MULTILINE)
_SPACE = lazy_compile(r"^[ \t]+(scenarios|seq-len-configs):", re.MULTILINE)


def entries_in(text: str) -> tuple[int, list[str]] | None:
    """(entries, search-space schemas) if the text is a master config's (`_entries_in_text`)."""
    return _entries_in_text(text) if "runner:" in text and "search-space" in text else None


def _entries_in_text(text: str) -> tuple[int, list[str]] | None:
    """(entries, search-space schemas) of a master config, from its text: top-level blocks that
    hold a `runner:` and a search space. Read without parsing: the entries themselves come from
    the wiring, and a master config is the largest YAML file of a repository."""
    spaces = _SPACE.findall(text)
    if not spaces or not _RUNNER.search(text):
        return None
    if len(spaces) * 2 < len(_TOP_KEY.findall(text)):
        return None
    return len(spaces), sorted(set(spaces))


def _cached(ws: Workspace, kind: str, path: str, digest: bytes, derive: Any) -> Any:
    """A fact about one file, from the cache when its content was seen before (detection must
    not parse every master config and launcher of a pre-commit run); None is a fact too."""
    cache = ws.cache
    if cache is not None:
        stored = cache.get(kind, path, digest)
        if stored is not None:
            return stored[0]
    value = derive(ws, path)
    if cache is not None:
        cache.put(kind, path, digest, [value])
    return value


# -- the runners file ------------------------------------------------------------------------
def runner_labels(root: YNode | None) -> YNode | None:
    """The mapping of labels to runner names: under `labels:`, or the top level itself (the
    flat form InferenceX used until July 2026)."""
    if root is None or not root.is_map:
        return None
    labels = root.get("labels")
    if labels is not None and labels.is_map:
        return labels
    lists = [v for k, v in root.pairs if k.is_scalar and v.is_seq]
    return root if lists and len(lists) * 2 >= len(root.pairs) else None


def _runners_file(ws: Workspace, master_configs: list[str], facts: list[Fact]) -> str:
    candidates = [
        p for p in ws.yaml_paths if posixpath.basename(p) in ("runners.yaml", "runners.yml")
    ]
    folders = {posixpath.dirname(p) for p in ws.glob(master_configs)}
    candidates.sort(key=lambda p: (posixpath.dirname(p) not in folders, p.count("/"), p))
    for path in candidates:
        document = ws.yaml(path)
        labels = runner_labels(document.root if document is not None else None)
        if labels is None:
            continue
        form = "labels:" if labels is not (document.root if document else None) else "flat"
        facts.append(
            Fact(
                "runners file",
                path,
                f"{len(labels.pairs)} labels ({form})",
                Location(path, labels.span),
            )
        )
        return path
    return DEFAULT.runners_file


def _own_project(ws: Workspace, layout: Layout, facts: list[Fact]) -> tuple[list[str], list[str]]:
    """(the master configs wired with the runners file in effect, those that are not): a
    master config beside a runners file of its own, another than the one in effect, belongs to
    another project kept in this repository (a copy of InferenceX under `upstream/`, the
    `.github/configs/` of an older layout), whose labels and launchers are its own."""
    wired, unwired = [], []
    for path in layout.master_configs:
        folder = posixpath.dirname(path)
        own = next(
            (
                candidate
                for name in ("runners.yaml", "runners.yml")
                for candidate in [posixpath.join(folder, name)]
                if ws.is_yaml(candidate) and _has_labels(ws, candidate)
            ),
            None,
        )
        if own is None or own == layout.runners_file:
            wired.append(path)
            continue
        unwired.append(path)
        facts.append(
            Fact(
                "skipped",
                path,
                f"beside its own runners file {own}: another project in this repository, not "
                f"wired with {layout.runners_file}",
                Location(own, Span(1, 1, 1, 1)),
            )
        )
    # the master configs listed as such are the ones wired
    facts[:] = [f for f in facts if not (f.kind == "master config" and f.value in unwired)]
    return wired, unwired


def _has_labels(ws: Workspace, path: str) -> bool:
    document = ws.yaml(path)
    return runner_labels(document.root if document is not None else None) is not None


# -- launchers -------------------------------------------------------------------------------
def _launcher_templates(ws: Workspace, workflows: list[str], facts: list[Fact]) -> list[str]:
    """The launch paths the workflow templates build from the runner's name, as written."""
    from benchlint.workflow import launch_lines_in  # workflows are read through the workspace

    templates: list[str] = []
    taught: dict[str, int] = {}  # template -> the index of its fact
    for location, line, folder in launch_lines_in(ws, workflows):
        # (`${{ env.FRAMEWORK }}` is the step's environment variable: `${FRAMEWORK}`)
        line = _ENV_EXPRESSION.sub(r"${\1}", line)
        for match in _LAUNCH_TEMPLATE.finditer(line):
            template = _from_checkout(match.group(1))
            if folder and not template.startswith(("/", "$")):  # (a step's working-directory)
                if folder == "?":
                    continue  # (a folder an expression gives: not known)
                template = posixpath.normpath(posixpath.join(folder, template))
                if template.startswith(".."):
                    continue  # (outside the checkout)
            if "RUNNER_NAME" not in template:
                continue
            if template in templates:  # (another workflow's line, or another step's)
                index = taught[template]
                if facts[index].source != location:
                    facts[index] = replace(facts[index], more=facts[index].more + 1)
                continue
            templates.append(template)
            taught[template] = len(facts)
            facts.append(Fact("launchers", _glob_of(template), f"run as {template}", location))
    return templates


def _named_launchers(ws: Workspace, layout: Layout, facts: list[Fact]) -> list[str]:
    """With no launch path built from the runner's name in the workflow templates, the
    launchers any workflow runs by a path named after a runner label of the master configs'
    entries, `launch_<label>.sh` (sgl-project/sglang: `bash scripts/ci/slurm/launch_gb200.sh`
    for its entries with `runner: gb200`): their folder's `launch_${RUNNER_NAME%%_*}.sh`."""
    from benchlint.workflow import WORKFLOWS, commands_matching, launch_lines_in

    labels = _runner_values(ws, layout)
    if not labels:
        return []

    def runs(line: str) -> bool:
        return any(m.group(2) in labels for m in commands_matching(line, _NAMED_LAUNCH))

    templates: list[str] = []
    for location, line, folder in launch_lines_in(ws, list(WORKFLOWS), runs):
        for match in commands_matching(line, _NAMED_LAUNCH):
            if folder == "?" or match.group(2) not in labels:
                continue
            path = posixpath.normpath(posixpath.join(folder, _from_checkout(match.group(1))))
            if not ws.is_shell(path):
                continue  # (outside the checkout, or not a file of it)
            template = f"{posixpath.dirname(path) or '.'}/launch_${{RUNNER_NAME%%_*}}.sh"
            template = template.removeprefix("./")
            if template in templates:
                continue
            templates.append(template)
            detail = f"run as {path}, named after the runner label {match.group(2)}"
            facts.append(Fact("launchers", _glob_of(template), detail, location))
    return templates


# a command that runs a launcher path named after a runner label, by its path or through a
# shell (`bash scripts/ci/slurm/launch_gb200.sh`; not `chmod +x ...`, `shellcheck ...`)
_NAMED_LAUNCH = lazy_compile(
    r"^\s*(?:(?:exec|time|nohup)\s+)?(?:(?:bash|sh)\s+(?:-\S+\s+)*)?[\"']?"
    r"((?:\$\{?\w+\}?/)?[\w./-]*?launch_([\w.-]+?)\.sh)\b"
)


def _runner_values(ws: Workspace, layout: Layout) -> set[str]:
    """The runner labels the master configs' entries name (`runner: gb200`), and those of the
    runners file's runners (`gb200-nv` of `gb200-nv_0`)."""
    values: set[str] = set()
    for path in ws.glob(layout.master_configs):
        document = ws.yaml(path)
        root = document.root if document is not None else None
        for _, entry in root.pairs if root is not None and root.is_map else ():
            runner = entry.get("runner") if entry.is_map else None
            if runner is not None and runner.is_scalar:
                values.add(str(runner.value))
    document = ws.yaml(layout.runners_file) if ws.is_yaml(layout.runners_file) else None
    mapping = runner_labels(document.root if document is not None else None)
    for _, names in mapping.pairs if mapping is not None else ():
        items = names.items if names.is_seq else []
        values.update(str(n.value).split("_")[0] for n in items if n.is_scalar)
    return values


def _from_checkout(template: str) -> str:
    """A launch path relative to the checkout: `$GITHUB_WORKSPACE/runners/launch_x.sh` (t71a)
    is `runners/launch_x.sh`."""
    head, slash, rest = template.partition("/")
    name = head.lstrip("$").strip("{}")
    return (
        rest if slash and head.startswith("$") and name in profile.WORKSPACE_VARIABLES else template
    )


def _glob_of(template: str) -> str:
    return re.sub(r"\*+", "*", _EXPANSION.sub("*", template))


@functools.lru_cache(maxsize=4096)  # every entry's label lists the same runner names
def launcher_candidates(
    template: str, runner_name: str, known: tuple[tuple[str, str], ...] = ()
) -> str:
    """The glob of the launchers a runner picks: its name's expansions evaluated, and those of
    the `known` values (name, value); any other (`${EXP_NAME%%_*}`) left open."""
    from benchlint.shell.expand import value

    values = dict(known, RUNNER_NAME=runner_name)

    def evaluate(match: re.Match[str]) -> str:
        found = value(match.group(), values.get)
        return "*" if found is None else found

    return re.sub(r"\*+", "*", _EXPANSION.sub(evaluate, template))


# -- recipe roots ----------------------------------------------------------------------------
def _recipe_roots(ws: Workspace, layout: Layout, facts: list[Fact], tree: bool) -> list[str]:
    roots: dict[str, None] = {}
    folders = {posixpath.dirname(p) for p in ws.yaml_paths}

    def exists(root: str) -> bool:
        prefix = root.rstrip("/") + "/"
        return any(f == root or f.startswith(prefix) for f in folders)

    for path in ws.glob(layout.launchers):
        source_text = ws.source(path)
        if source_text is None or not _names_recipe_folder(source_text.text):
            continue
        for source, target, span in _cached(ws, "overlays", path, source_text.digest, _overlays):
            if source.endswith((".yaml", ".yml")) or source in roots or not exists(source):
                continue
            roots[source] = None
            where = Location(path, Span(*span))
            facts.append(Fact("recipe root", source, f"-> {target}/", where))
    for root in DEFAULT.recipe_roots:
        if root not in roots and exists(root):
            roots[root] = None
            facts.append(Fact("recipe root", root, "an InferenceX recipe folder"))
    for folder in profile.SRT_SLURM_RECIPE_FOLDERS if tree else ():
        if folder not in roots and exists(folder):
            roots[folder] = None
            facts.append(Fact("recipe root", folder, "this repository is an srt-slurm tree"))
    for folder, path in _recipe_folders(ws, list(roots)) if tree else ():
        roots[folder] = None
        facts.append(Fact("recipe root", folder, f"srtctl recipes of an srt-slurm tree ({path})"))
    if not roots and not tree:
        for folder, path in _recipe_collection(ws):
            roots[folder] = None
            detail = f"a collection of srtctl recipes, with no srt-slurm checkout ({path})"
            facts.append(Fact("recipe root", folder, detail))
    return _outermost(list(roots), facts) or list(DEFAULT.recipe_roots)


# an srtctl recipe's engine block: `backend:` at the first column with an engine's config or
# type under it
_BACKEND = lazy_compile(
    r"^backend:[ \t]*\n(?:[ \t]+.*\n|[ \t]*\n)*?[ \t]+(?:(?:sglang|vllm|trtllm)_config|type:[ \t]*"
    r"[\"']?(?:sglang|vllm|trtllm|mocker)\b)",
    re.M,
)


# srtctl's schema 2 (h119 M1): a document saying `schema: 2` (srtctl refuses one that does not)
# with a `roles:` block, at the top or in `base:`, where schema 1 had `backend:` (h120 F3, M6)
_SCHEMA2 = lazy_compile(r"^schema:[ \t]*[\"']?[2-9]\b", re.M)
_ROLES = lazy_compile(r"^(?:[ \t]+)?roles:", re.M)


def engine_block(text: str) -> bool:
    """Whether a YAML text holds an srtctl recipe's engine block: schema 1's `backend:` or
    schema 2's `roles:` in a document that says `schema: 2`."""
    return bool(_BACKEND.search(text) or (_SCHEMA2.search(text) and _ROLES.search(text)))


def _recipe_collection(ws: Workspace) -> list[tuple[str, str]]:
    """A repository of srtctl recipes alone (recipes to copy into an srt-slurm checkout: no
    `srtslurm.yaml`, no launcher): srt-slurm's recipe folder at its top holding recipes of
    srtctl's shape (`model:`, `resources:` and an engine block: `engine_block`), with its
    first one."""
    for folder in profile.SRT_SLURM_RECIPE_FOLDERS:
        prefix = folder + "/"
        for path in sorted(p for p in ws.yaml_paths if p.startswith(prefix)):
            source = ws.source(path)
            text = source.text if source is not None else ""
            if _MODEL_KEY.search(text) and _RESOURCES.search(text) and engine_block(text):
                return [(folder, path)]
    return []


_RESOURCES = lazy_compile(r"^resources:", re.M)
# srtctl's site configuration, by the name srtctl reads it under (never a recipe)
SITE_CONFIGS = frozenset({"srtslurm.yaml"})


def recipes_outside_roots(ws: Workspace) -> tuple[str, ...]:
    """The YAML files of srtctl's recipe shape (`_recipe_collection`'s: `model:`, `resources:`
    and an engine block: `engine_block`) that are not in a recipe root: not read as
    recipes (a run says so). Not a workflow, a master config or srtctl's site configuration."""
    held = tuple(root.rstrip("/") + "/" for root in ws.recipe_roots)
    masters = set(ws.glob(ws.layout.master_configs))
    found = []
    for path in ws.yaml_paths:
        if path.startswith(held) or path.startswith(".github/") or path in masters:
            continue
        if posixpath.basename(path) in SITE_CONFIGS:
            continue
        source = ws.source(path)
        text = source.text if source is not None else ""
        shaped = _MODEL_KEY.search(text) and _RESOURCES.search(text) and engine_block(text)
        if shaped and _model_path(text):
            found.append(path)
    return tuple(found)


_MODEL_BLOCK = lazy_compile(
    r"^model:[ \t]*(?P<inline>[^\n#]*)(?:#[^\n]*)?\n(?P<block>(?:[ \t]+[^\n]*(?:\n|\Z)|[ \t]*\n)*)",
    re.M,
)


def _model_path(text: str) -> bool:
    """Whether the top-level `model:` mapping has a `path` key of its own (`model: {path: m}`,
    or `  path: m` at its children's indentation), as every srtctl recipe's does (1,538 of
    1,538 in srt-slurm's and InferenceX's trees); a launcher's own schema with `model:` holding
    `env:` and `server_args:` (h20, SGLang forks' `scripts/ci/slurm/recipes`) is not srtctl's."""
    found = _MODEL_BLOCK.search(text)
    if found is None:
        return False
    if re.search(r"(?:^|[{,\s])path\s*:", found.group("inline")):
        return True
    lines = [line for line in found.group("block").splitlines() if line.strip()]
    lines = [line for line in lines if not line.lstrip().startswith("#")]
    if not lines:
        return False
    indent = len(lines[0]) - len(lines[0].lstrip())
    return any(
        len(line) - len(line.lstrip()) == indent and re.match(r"path\s*:", line.lstrip())
        for line in lines
    )


# an srtctl recipe's top: `model:` and `backend:` or `resources:` keys at the first column
_MODEL_KEY = lazy_compile(r"^model:", re.M)
_RUN_KEY = lazy_compile(r"^(?:backend|resources):", re.M)


def _recipe_folders(ws: Workspace, roots: list[str]) -> list[tuple[str, str]]:
    """In an srt-slurm tree, the top-level folders besides its recipe folder that hold srtctl
    recipes (`examples/`, which users run with `srtctl apply -f examples/x.yaml`; `ci/`), each
    with its first recipe: recipes too."""
    found: dict[str, str] = {}
    held = tuple(root.rstrip("/") + "/" for root in roots)
    for path in ws.yaml_paths:
        folder = path.split("/", 1)[0]
        if "/" not in path or path.startswith(held) or folder in found or folder.startswith("."):
            continue
        source = ws.source(path)
        if source is not None and _MODEL_KEY.search(source.text) and _RUN_KEY.search(source.text):
            found[folder] = path
    return sorted(found.items())


def _outermost(roots: list[str], facts: list[Fact]) -> list[str]:
    """The roots that no other root holds; the facts of the folders inside one are folded into
    it (launchers often overlay many subfolders of one recipe folder)."""
    kept = [r for r in roots if not any(r.startswith(o + "/") for o in roots if o != r)]
    for root in kept:
        inside = [f for f in facts if f.kind == "recipe root" and f.value.startswith(root + "/")]
        if not inside:
            continue
        own = next((i for i, f in enumerate(facts) if f.kind == "recipe root" and f.value == root))
        first = facts[own] if facts[own].source is not None else inside[0]
        copies = len(inside) + (facts[own].source is not None)
        detail = f"overlaid {copies} times" if copies > 1 else f"{first.value} {first.detail}"
        facts[own] = Fact("recipe root", root, detail, first.source)
        for fact in inside:
            facts.remove(fact)
    return kept


def _names_recipe_folder(text: str) -> bool:
    """Whether a launcher's text names a folder of srt-slurm's checkout (its copies there)."""
    return any(folder in text for folder in profile.SRT_SLURM_RECIPE_FOLDERS)


def recipe_mirrors(ws: Workspace) -> list[tuple[str, str]]:
    """Where this repository keeps recipes for paths of srt-slurm's checkout: (folder here,
    path there), from every launcher's copies (`cp -rT benchmarks/x recipes/x`, whichever route
    makes them) and InferenceX's `srt-slurm-recipes/` for `recipes/` (its llm-d recipes are
    another project's)."""
    found: dict[tuple[str, str], None] = {}
    for path in ws.glob(ws.layout.launchers):
        source_text = ws.source(path)
        if source_text is None or not _names_recipe_folder(source_text.text):
            continue
        for source, target, _ in _cached(ws, "overlays", path, source_text.digest, _overlays):
            if not source.endswith((".yaml", ".yml")):
                found[(source, target)] = None
    for root in DEFAULT.recipe_roots:
        if root.rstrip("/").endswith("/srt-slurm-recipes"):
            found[(root.rstrip("/"), "recipes")] = None
    return list(found)


def srtctl_reads(path: str) -> bool:
    """Whether srtctl is what reads a recipe: not one of a default recipe root that is another
    project's (InferenceX's `llm-d-recipes/`, which its `llm-d/submit.sh` reads, handing
    `slurm.time_limit` to `sbatch --time` as it is; h140 F4)."""
    from benchlint.workspace import path_matches

    return not any(
        path_matches(path, root, inside=True)
        for root in DEFAULT.recipe_roots
        if not root.rstrip("/").endswith("/srt-slurm-recipes")
    )


def _overlays(ws: Workspace, path: str) -> list[tuple[str, str, tuple[int, ...]]]:
    from benchlint.launcher import launcher_model

    model = launcher_model(ws, path)
    if model is None:
        return []
    return [(o.source, o.target, tuple(o.command.first_line_span)) for o in model.overlays]


def srtctl_sources(ws: Workspace) -> list[SourceText]:
    """The repository's own srtctl source, where it holds one (an srt-slurm tree): its Python
    files under a `srtctl/` folder, read once per run. What the srtctl that runs the tree's
    recipes does (the benchmark types it registers, its health-check defaults) is read there."""
    known = ws.models.get(_SRTCTL_SOURCES)
    if not isinstance(known, list):
        sources = (ws.source(p) for p in ws.python_paths if "srtctl/" in p)
        known = ws.models[_SRTCTL_SOURCES] = [s for s in sources if s is not None]
    return known


_SRTCTL_SOURCES = "srtctl-sources"


@dataclass(frozen=True)
class SrtctlHealth:
    """What the srtctl that runs a tree's recipes does about a server's readiness, from its own
    source where the repository holds it (an srt-slurm tree); else what srtctl does now."""

    # it has a health check (its source names one: `HealthCheckConfig`, `health_check`); not
    # before December 2025 (srt-slurm da5d0f41), when its benchmark waited for the server
    # itself (t81b)
    checks: bool = True
    # its `HealthCheckConfig` defaults, max_attempts and interval_seconds (60 × 10 s before
    # February 2026, 180 × 10 s since); None where not read (the profile's then)
    defaults: tuple[int, int] | None = None
    # a recipe with no `health_check` may get the site's `default_health_check` (srtslurm.yaml:
    # not known here); not where its source names no such setting (srtctl before May 2026)
    site_default: bool = True


def srtctl_health(ws: Workspace) -> SrtctlHealth:
    """The readiness facts of the tree's own srtctl (`SrtctlHealth`), read once per run."""
    known = ws.models.get(_SRTCTL_HEALTH)
    if isinstance(known, SrtctlHealth):
        return known
    own = srtctl_sources(ws)
    defaults = None
    for source in own:
        block = _HEALTH_CLASS.search(source.text)
        values = dict(_FIELD.findall(block.group(1))) if block is not None else {}
        if "max_attempts" in values and "interval_seconds" in values:
            defaults = int(values["max_attempts"]), int(values["interval_seconds"])
            break
    found = SrtctlHealth(
        checks=not own or any(_HEALTH_CHECK.search(source.text) for source in own),
        defaults=defaults,
        site_default=not own or any(_NAMES_SETTING.search(source.text) for source in own),
    )
    ws.models[_SRTCTL_HEALTH] = found
    return found


_SRTCTL_HEALTH = "srtctl-health"
# (`HealthCheckConfig`, `health_check`; not in a comment, `# TODO: healthcheck`: t83a)
_HEALTH_CHECK = lazy_compile(r"^[^#\n]*health_?check", re.I | re.M)
_HEALTH_CLASS = lazy_compile(r"^class HealthCheckConfig\b.*:\n((?:[ \t]+.*\n|[ \t]*\n)*)", re.M)
_FIELD = lazy_compile(
    r"^[ \t]+(max_attempts|interval_seconds)\s*:\s*int\s*=\s*(\d+)\s*(?:#.*)?$", re.M
)
_NAMES_SETTING = lazy_compile(r"^[^#\n]*\bdefault_health_check\b", re.M)  # (not in a comment)


@dataclass(frozen=True)
class SrtctlDefault:
    """A default of the tree's own srtctl, and where its source gives it."""

    value: str
    where: Location


def srtctl_dynamo_default(ws: Workspace) -> SrtctlDefault | None:
    """The Dynamo release the tree's own srtctl installs for a recipe that names no install
    source (its `DynamoConfig.version` default: "0.7.0", then "0.8.0" since January 2026; t85
    h2), where the repository holds its source; None elsewhere, or where that source gives no
    release (srtctl before its `DynamoConfig`, December 2025). Read once per run."""
    known = ws.models.get(_SRTCTL_DYNAMO, False)
    if known is False:
        known = None
        for source in srtctl_sources(ws):
            block = _DYNAMO_CLASS.search(source.text)
            version = (
                _VERSION_DEFAULT.search(source.text, block.start(1), block.end(1))
                if block
                else None
            )
            if version is not None:
                span = source.span(version.start(1), version.end(1))
                known = SrtctlDefault(
                    version.group(1), Location(source.path, span, "srtctl's default")
                )
                break
        ws.models[_SRTCTL_DYNAMO] = known
    return known if isinstance(known, SrtctlDefault) else None


_SRTCTL_DYNAMO = "srtctl-dynamo-default"
_DYNAMO_CLASS = lazy_compile(r"^class DynamoConfig\b.*:\n((?:[ \t]+.*\n|[ \t]*\n)*)", re.M)
_VERSION_DEFAULT = lazy_compile(
    r"""^[ \t]+version\s*:[^=\n]*=\s*["'](\d+\.\d+\.\d+[^"'\s]*)["']\s*(?:#.*)?$""", re.M
)


def _is_srt_slurm(ws: Workspace) -> bool:
    """An srtctl checkout: `srtslurm.yaml` (or its example) at the top and recipes in `recipes/`
    (`recipies/` before srt-slurm renamed it: the profile's srt_slurm_recipe_folders), or in
    another top-level folder (`configs/` and `examples/`, before either)."""
    folders = tuple(f"{folder}/" for folder in profile.SRT_SLURM_RECIPE_FOLDERS)
    names = ("srtslurm.yaml", "srtslurm.yaml.example")
    site = any(n in ws.yaml_paths or ws.kind_of(n) == "file" for n in names)
    if not site:
        return False
    # (its recipes in `recipes/`, or before that folder was made in `configs/` and `examples/`)
    return any(p.startswith(folders) for p in ws.yaml_paths) or bool(_recipe_folders(ws, []))
