"""A reference that leads nowhere: an entry's recipe, its launcher's script, a called workflow.

## What it does
Follows each search-space element's `CONFIG_FILE` and `EVAL_CONFIG_FILE` (from its
`additional-settings`) through every launcher its runner label leads to, and reports:
- a `recipes/<path>` that falls inside a folder the launcher overlays from this repository
  (`cp -rT benchmarks/multi_node/srt-slurm-recipes/vllm recipes/vllm`) but names no file there;
- a `benchmarks/multi_node/srt-slurm-recipes/<path>` that does not exist;
- a selector the recipe does not define (`:override_x`, `:zip_override_x[i]`) or an index past
  the end of the zipped lists;
- a path that leaves the repository (`../../x`), which benchlint does not follow.

It also reports a script path in a launcher that, for an entry whose job runs that line, names no
script of the folder it is in (`bash benchmarks/single_node/${MODEL_PREFIX}_h200.sh` for an entry
whose model prefix no script there has). The path is evaluated with the entry's values, the
launcher's own assignments and what a command substitution can print on the route, as for BL303's
releases: `SPEC_SUFFIX=$([[ "$SPEC_DECODING" == mtp ]] && printf _mtp || printf '')` prints `_mtp`
only for an element with `spec-decoding: mtp` (the workflow's `SPEC_DECODING`; `none` when the
element leaves it out), so an element without it whose model has only an `_mtp` script is reported.
The message names the first three entries (and how many more), which are related locations. A path
with no folder (`bash ${MODEL_CODE}_mi355x_slurm.sh`) names a file at the checkout's root, where the
launcher runs, unless it changes folders (`cd` anywhere but to the checkout; a wrapper's working
folder, `srun --chdir`, `docker run -w`, `env -C`, or a container's that does not mount the checkout
there) or may write that file first (a redirection to it, `cp`, `docker cp`, `curl -o`, `tar`,
`git clone`, another script it runs or sources): the scripts of that name elsewhere are said
(`benchmarks/`). A program run by its name alone (`x.sh ...`) is looked up in PATH, not read.

In a repository with no master config, the entries are the jobs that call the benchmark workflow
(beside master configs, those whose runner is written out: `runner: gb200`)
(see docs/design.md); with no runners file either, a label's runners are taken to be those named
`<label>-<site>_<n>`, and which of them runs a job is not known: a missing script or an exit is
reported for such an entry only where its job fails on every launcher the label may lead to, and
the message says what that rests on; a line that fails it on some of them only is counted in the
run's warnings.

It reports a launcher's `exit N` (a nonzero number), or a call of its function that always
exits so (`die "..."`), that surely runs on an entry's routes, the first end of the launcher
there: every such job fails at it (an element that sets no
`CONFIG_FILE` where the launcher's srt-slurm path exits without one; a framework the launcher
refuses). Only an exit whose conditions are decided for the entry, with no undecided end of the
launcher before it, is reported: a condition on a name no workflow sets (`$SLURM_PARTITION`
from the runner's environment, `$GITHUB_WORKSPACE`) or one a sourced file assigns is not
decided, a sourced file with an `exit` of its own may end the launcher first, so may a call of
a function that may exit otherwise than failing (`finish() { ...; exit 0; }`), and an `EXIT`
trap that may change the status (`exit 0`) hides the exit. The message says "every job" only
when all the entry's routes, through every launcher of its runner label, end there.

It reports a launcher's `srtctl apply -f "$CONFIG_FILE"` (`--file=...`, `${CONFIG_FILE%%:*}`)
that runs for an entry that sets no `CONFIG_FILE`, which the launcher does not assign before:
srtctl gets an empty path, which Python reads as `.`, the folder srtctl runs in (its checkout);
srtctl since NVIDIA/srt-slurm 55698764 (2026-01-21) submits every YAML below a folder it is given
as a job of its own, and an older one fails to read the folder as a recipe. The command must run for
every job of the entry that gets that far: its conditions hold on the route, and each command
before it that may end the launcher surely does not, or is an `exit` of a nonzero number whose
condition is not decided (`git clone ... || exit 1`: a job that ends there fails anyway; the
message names those lines). Not reported: an unquoted path (`-f $CONFIG_FILE`: bash drops the
word and srtctl's `-f` takes the next one), a launcher that runs under `set -e` or `set -u`
there (bash may stop it at an earlier read of the empty name), a command in a function, and one
after something that may end the job otherwise (`exec`, `exit 0`, a sourced file that may exit);
such entries are listed in the run's warning about launchers that run nothing benchlint can
follow.

And a script that an entry's job runs (through its launcher, or a script that runs it) and that
runs, sources or `exec`s another by a path fixed relative to its own folder or to the checkout
(`source "$(dirname "$0")/../benchmark_lib.sh"` one folder short after the scripts moved into
`fixed_seq_len/`, `exec "$(dirname "$0")/impl/real.sh"`) that names no file, at its top level
and unconditionally.

And a workflow's call of a reusable workflow of the repository that GitHub rejects before any
job of the calling workflow starts: a `uses: ./.github/workflows/x.yml` that names no file, or a
workflow with no `on: workflow_call`, an input (`with:`) the called workflow does not declare
(`exp-name` passed to a workflow that now declares `result-prefix`), and one it requires with no
default that the call does not pass: every run of the calling workflow fails at once.

And a recipe's `setup_script: NAME` (`base:`'s in an override-style recipe, unless the selected
override block sets its own), which srtctl runs from its checkout's `configs/NAME` (or
`configs/patches/NAME`) on each worker, skipping it with only a warning when neither exists: in an
srt-slurm tree, a name neither folder has; in a repository that overlays its recipes, a script it
keeps in a recipe folder's `configs/` (`benchmarks/multi_node/srt-slurm-recipes/configs/NAME`)
where nothing that may run on the route, in the launcher or a file it sources, copies or writes
it to `configs/` (a destination naming that folder, or a file of that name in it), copies the
recipe folder whole, or gives srtctl a `--setup-script` (the setup that creates a draft model's
files never runs, and the workers start without it). The recipe is read as the launcher's
simulated rewrites leave it. A copy to a destination held in a variable benchlint cannot tell,
and an edit of the recipe it does not simulate, are not counted, and the finding's notes name
them.

And, in an srt-slurm tree whose srtctl source registers its benchmark runners
(`@register_benchmark("sa-bench")`), a recipe's `benchmark.type` that names none of them nor a
type its schema's `BenchmarkType` names (`manual`: no benchmark, the servers kept up): srtctl
takes any string there, and the job ends with "Unknown benchmark type" once its workers are up
(`gsm8k-bench` for `gsm8k`); and a recipe the runner of its type rejects in its own
`validate_config`, which srtctl also runs only once the workers are up (a `router` benchmark
without `frontend.use_sglang_router: true`, an `sa-bench` without `concurrencies`), read from
that source with the schema's defaults for what the recipe leaves out (`benchlint/
srtctl_runners.py` says which shapes; a check it does not read, a schema class whose hook
changes values, and a recipe of several jobs, `base:` with override blocks or a sweep, are
counted, not checked).

## Why is this bad?
The launcher copies the overlay, `srtctl apply` finds no recipe (or no override block) and the
job fails after the allocation was granted; or, worse, an upstream recipe of the same name runs
in place of the one the entry meant. A script path that names no file runs nothing
(`No such file or directory`): a typo in the launcher (`..._${FRAMEWORK}sh`), or an entry's
`precision:` or `model-prefix:` that no script's name has.

## Example
```yaml path=configs/nvidia-master.yaml
dsr1-fp8-gb200-dynamo-vllm:
  runner: gb200
  multinode: true
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - prefill:
          additional-settings: ["CONFIG_FILE=recipes/vllm/dsr1/disagg-8k1k-v2.yaml"]
```
```bash path=runners/launch_gb200-nv.sh
cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm" recipes/vllm
srtctl apply -f "${CONFIG_FILE%%:*}"
```
```yaml path=configs/runners.yaml
labels:
  gb200: [gb200-nv_0]
```
```yaml path=benchmarks/multi_node/srt-slurm-recipes/vllm/dsr1/disagg-8k1k.yaml
name: dsr1
```

## Use instead
```yaml path=configs/nvidia-master.yaml
dsr1-fp8-gb200-dynamo-vllm:
  runner: gb200
  multinode: true
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - prefill:
          additional-settings: ["CONFIG_FILE=recipes/vllm/dsr1/disagg-8k1k.yaml"]
```
```bash path=runners/launch_gb200-nv.sh
cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm" recipes/vllm
srtctl apply -f "${CONFIG_FILE%%:*}"
```
```yaml path=configs/runners.yaml
labels:
  gb200: [gb200-nv_0]
```
```yaml path=benchmarks/multi_node/srt-slurm-recipes/vllm/dsr1/disagg-8k1k.yaml
name: dsr1
```

## Exceptions A `recipes/...` path outside every overlay is an upstream srt-slurm recipe: it cannot
be checked offline and is never reported (the run's warnings count such entries, and say apart those
whose recipe this repository has at that path, in a folder some launcher copies there or in
`srt-slurm-recipes/`, which their route does not copy: the file edited here does not run), nor is a
recipe the launcher writes itself at the path the setting names (`sed ... base.yaml >
"$CONFIG_PATH"`, `cp base.yaml "${CONFIG_FILE%%:*}"`). An overlay whose condition is false for the
entry does not count. A script path is checked only in a folder of the repository written plainly,
or reached through the values the launcher assigns a variable (`bash "$BENCH_SCRIPT"` after
`BENCH_SCRIPT="${BENCH_BASE}.sh"`, and those of a variable its folder part reads:
`BENCHMARK_PATH=benchmarks/${BENCHMARK_SUBDIR}/x.sh`); not in a folder held in a variable nothing in
the launcher assigns, outside the checkout, or in the repository's root, where launchers write
scripts they then run; not a path bash globs (`${SUBDIR}*_b200.sh`, an unquoted `*`, `?` or `[`: the
disk decides). It is checked only on a line that runs for the entry (its conditions decided true
under the entry's values; in a function, when a call of it runs for the entry, directly or through
an exported function run by `bash -c`), and a part benchlint cannot evaluate matches anything (a
`${X:-default}` where the launcher assigns X or the route does not know it; where the route leaves X
unset or empty, the default). A script's own call is not checked under a condition, with `||` or as
a test (`[[ -f "$DIR/x.sh" ]] && source "$DIR/x.sh"`, `source ... || true`), in a function, in a
file other scripts source when the path starts from `$0` (it names the sourcing script there), or in
a launcher (checked per route above); nor a path from `$PWD` or from a folder computed otherwise
(`$(dirname "$(dirname "$0")")`), a file in a folder the repository does not have (a clone the job
makes), or a file the script writes, copies or fetches itself."""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Callable, Iterator

from benchlint import profile, srtctl_runners
from benchlint.calls import ROOT_VARIABLES, plain_target
from benchlint.context import Context
from benchlint.ends import failing, launcher_ends, masks
from benchlint.finding import Finding, Location, Severity, Span, listed
from benchlint.launcher import RECIPE_VARIABLES, leading_variable, names_of_recipe
from benchlint.layout import srtctl_sources
from benchlint.lazyre import lazy_compile
from benchlint.recipe import settings_root
from benchlint.registry import rule
from benchlint.releases import EmptyRecipeFile, ScriptRun, empty_recipe_file, scripts_run
from benchlint.shell.flow import Flow
from benchlint.shell.model import Command, Script, Word, first_line
from benchlint.wiring import Entry, RecipeRef, Route, Wiring
from benchlint.workflow import WORKFLOWS, never_started, rejected_calls
from benchlint.workspace import Workspace
from benchlint.yamlmodel import YNode


def _zip_length(node: YNode) -> int | None:
    """How many variants a zip_override block has: the length of its lists."""
    lengths = [len(n.items) for n in _walk(node) if n.is_seq]
    return min(lengths) if lengths else None


def _walk(node: YNode) -> Iterator[YNode]:
    """The node and the values of its mappings, nested, each once (an alias: its node)."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack.extend(value for _, value in reversed(current.pairs))


def _selector_problem(wiring: Wiring, recipe: RecipeRef) -> str | None:
    if recipe.selector is None or recipe.path is None:
        return None
    document = wiring.ws.yaml(recipe.path)
    root = document.root if document is not None else None
    if root is None or not root.is_map:
        return None
    block = root.get(recipe.selector)
    if block is None:
        defined = [
            k.value for k, _ in root.pairs if k.value.startswith(("override", "zip_override"))
        ]
        known = f" (it defines {', '.join(defined)})" if defined else " (it defines no overrides)"
        return f"selects '{recipe.selector}', which {recipe.path} does not define{known}"
    if recipe.selector.startswith("zip_override") and recipe.index is not None:
        length = _zip_length(block)
        if length is not None and recipe.index >= length:
            return (
                f"selects {recipe.selector}[{recipe.index}], but the lists of "
                f"'{recipe.selector}' in {recipe.path} have {length} entries (0..{length - 1})"
            )
    return None


def _missing_calls(ctx: Context, script: Script) -> Iterator[Finding]:
    """A script the repository runs (not a launcher: those are checked per route above) that
    runs, sources or `exec`s, at its top level and unconditionally, a script by a path fixed
    relative to its own folder or the checkout (`exec "$(dirname "$0")/impl/real.sh"`) that
    names no file."""
    ws = ctx.ws
    path = script.path
    if not _FIXED_FOLDER.search(script.file.text) or ctx.wiring.is_launcher(path):
        return
    calls = ctx.environment.calls
    for call in calls.calls_in(script):
        command = call.command
        if call.targets or call.caller is not script or command.function is not None:
            continue
        if command.guards or command.tested or command.or_guarded or command.background:
            continue  # (`[[ -f "$DIR/x.sh" ]] && source "$DIR/x.sh"`, `source ... || true`)
        target = plain_target(script, call.word.value)
        if target is None or ws.is_shell(target) or ws.kind_of(target):
            continue
        folder = posixpath.dirname(target)
        if ws.kind_of(folder) != "folder" or _made_by(script, target, command):
            continue  # a folder the job clones or makes, a file it writes or fetches
        if "$0" in call.word.value and calls.is_sourced(path):
            continue  # `$0` is the sourcing script's name there
        entry = _run_by_entries(ctx, path)
        if entry is None:
            continue  # no entry's job runs it (a script kept in `deprecated/`)
        first = command.words[0].value if command.words else ""
        ends = " and the script exits" if first == "exec" else ""
        yield Finding(
            "BL202",
            f"`{call.word.text}` names {target}, which does not exist: the command fails"
            f"{ends} (No such file or directory)",
            Location(path, call.word.span),
            related=(Location(entry.location.path, entry.location.span, f"entry {entry.name}"),),
            subject=f"call:{target}",
            notes=(f"run by the job of entry {entry.name}",),
        )


def _beyond(ctx: Context) -> list[str]:
    """The scripts out of scope `_missing_calls` reads too: where a file holding entries (a
    master config, a workflow whose jobs are entries) is named, those that call a path fixed
    to a folder (their finding names the entry whose job runs them)."""
    ws, wiring = ctx.ws, ctx.wiring
    if not ctx.names_entries:
        return []
    return [
        path
        for path in ws.shell_paths
        if not wiring.is_launcher(path)
        and (source := ws.source(path)) is not None
        and _FIXED_FOLDER.search(source.text)
    ]


@rule(
    "BL202",
    "dangling-reference",
    Severity.ERROR,
    tags=("wiring",),
    script_pass=_missing_calls,
    beyond=_beyond,
)
def check(ctx: Context) -> Iterator[Finding]:
    wiring = ctx.wiring
    found: dict[tuple[str, int, int, str], tuple[Finding, list[str]]] = {}
    for route in ctx.routes():  # every route of a named entry: the message names them all
        for variable in RECIPE_VARIABLES:
            recipe = wiring.recipe(route, variable)
            if recipe is None:
                continue
            launcher = route.launcher.path
            related: tuple[Location, ...] = ()
            if recipe.status == "missing" and _writes_recipe(route.launcher.script, variable):
                continue  # `sed ... base.yaml > "$CONFIG_PATH"`: the launcher makes it
            if recipe.status == "missing" and recipe.overlay is not None:
                overlay = recipe.overlay
                related = (
                    Location(
                        launcher,
                        overlay.command.first_line_span,
                        f"copies {overlay.source} to {overlay.target}",
                    ),
                )
                why = (
                    f"resolves through the overlay of {overlay.source} to {recipe.path}, "
                    "which does not exist"
                )
                if route.holds(overlay.command) is None:
                    why += (
                        f" if the condition on line {overlay.command.span.line} of {launcher} "
                        "holds (benchlint cannot decide it statically)"
                    )
            elif recipe.status == "missing":
                why = f"names {recipe.path}, which does not exist"
            elif recipe.status == "outside":
                why = "points outside the repository; benchlint does not follow it"
            elif recipe.status == "local":
                problem = _selector_problem(wiring, recipe)
                if problem is None:
                    continue
                why = problem
            else:
                continue
            setting = recipe.setting
            span = setting.location.span
            key = (setting.location.path, span.line, span.column, why)
            if key not in found:
                finding = Finding(
                    "BL202",
                    f"{variable}={setting.value} of {route.entry.name} {why}",
                    setting.location,
                    subject=f"{variable}={setting.value}",
                )
                found[key] = (finding, [])
            finding, launchers = found[key]
            if launcher not in launchers:
                launchers.append(launcher)
                finding.related = (*finding.related, *related)
    for finding, launchers in found.values():
        finding.notes = (f"run by {', '.join(launchers)}",)
        yield finding
    yield from _missing_scripts(ctx)
    yield from _failing_exits(ctx)
    yield from _empty_recipe_files(ctx)
    yield from _rejected_calls(ctx)
    yield from _setup_scripts(ctx)
    yield from _benchmark_types(ctx)


# the types its schema names (`class BenchmarkType(str, Enum)`: `manual`, which runs none)
_TYPE_ENUM = lazy_compile(r"^class BenchmarkType\(.*\):\n((?:[ \t]+.*\n|[ \t]*\n)*)", re.M)
_MEMBER = lazy_compile(r"^[ \t]+[A-Z][A-Z0-9_]*[ \t]*=[ \t]*[\"']([^\"']+)[\"']", re.M)


_PLAIN_TYPE = lazy_compile(r"[A-Za-z0-9_.-]+")


def _benchmark_types(ctx: Context) -> Iterator[Finding]:
    """In an srt-slurm tree whose srtctl source registers its benchmark runners, a recipe's
    `benchmark.type` (at its top, under `base:` or in an override block) that names none of
    them, nor a type its schema names (`manual` runs none, and keeps the servers up): srtctl
    takes any string there, and the job ends with "Unknown benchmark type" once its workers are
    up."""
    ws = ctx.ws
    if not ws.detected.recipe_tree:
        return
    named: set[str] = set()
    schema, runners = _srtctl(ws)
    registered = schema.registered
    for source in srtctl_sources(ws):
        if "class BenchmarkType(" in source.text:
            for block in _TYPE_ENUM.findall(source.text):
                named.update(_MEMBER.findall(block))
    known = ", ".join(sorted(registered | named))
    for path in ctx.in_scope(ws.recipe_paths):
        document = ws.yaml(path)
        root = document.root if document is not None else None
        blocks = [v for _, v in root.pairs] if root is not None and root.is_map else []
        for block in [root, *blocks]:
            benchmark = block.get("benchmark") if block is not None and block.is_map else None
            kind = benchmark.get("type") if benchmark is not None and benchmark.is_map else None
            if kind is None or not kind.is_scalar or not _PLAIN_TYPE.fullmatch(kind.value):
                continue
            if not registered or schema.unnamed:  # (not all known: h105, h106 F7)
                if kind.value not in registered | named:
                    ctx.count(_NO_TYPES_SAID, Location(path, kind.span))
            elif kind.value not in registered | named:
                close = _closest_type(kind.value, registered)  # (`manual` runs none)
                yield Finding(
                    "BL202",
                    f"benchmark.type {kind.value} names no benchmark type this srtctl knows "
                    f'({known}): srtctl accepts the recipe, and the job ends with "Unknown '
                    'benchmark type" once its workers are up, having measured nothing',
                    Location(path, kind.span),
                    subject=f"benchmark.type={kind.value}",
                    help=f"did you mean `{close[0]}`?" if close else "",
                )
            elif kind.value in runners and root is not None and block is not None:
                yield from _runner_rejects(ctx, path, root, block, kind, runners[kind.value])


def _closest_type(value: str, known: set[str]) -> list[str]:
    """The known type a mistyped one most likely means: one it holds, or that holds it
    (`gsm8k` for `gsm8k-bench`, the longest), else the closest in spelling."""
    within = sorted((t for t in known if t in value or value in t), key=lambda t: (-len(t), t))
    return within[:1] or difflib.get_close_matches(value, sorted(known), n=1, cutoff=0.75)


_NO_TYPES_SAID = (
    "recipes' benchmark.type not checked against srtctl's benchmark types (BL202: the srtctl of "
    "this tree registers none benchlint finds, or one under a name that is not written out)"
)


def _runner_rejects(
    ctx: Context, path: str, root: YNode, block: YNode, kind: YNode, runner: srtctl_runners.Runner
) -> Iterator[Finding]:
    """A recipe the `validate_config` of its benchmark type's runner rejects: srtctl calls it
    once the workers are up (`srtctl_runners`). Read for a recipe that is one job as written
    (not one a `base:` and override blocks make several of, nor a sweep), else counted."""
    where = Location(path, kind.span)
    if block is not root or any(_VARIANTS.match(str(k.value)) for k, _ in root.pairs):
        ctx.count(_VARIANTS_SAID, where)
        return
    found = srtctl_runners.errors(runner, _srtctl(ctx.ws)[0], root)
    if found is None:
        ctx.count(_UNREAD_RUNNER_SAID, where, involves=(runner.path,))
        return
    if not found:
        return
    said = "; ".join(f'"{e}"' for e in found)
    defined = Location(runner.path, Span(runner.check.lineno, 1, runner.check.lineno, 1))
    yield Finding(
        "BL202",
        f"srtctl's {runner.name} runner rejects this recipe once its workers are up ({said}): "
        "the job ends there, having held its allocation through the model's load and "
        "measured nothing",
        where,
        related=(Location(defined.path, defined.span, "validate_config"),),
        subject=f"benchmark.type={kind.value}:rejected",
    )


# top-level keys that make a recipe several jobs (srtctl's `base:` with override blocks, sweeps)
_VARIANTS = lazy_compile(r"base$|override|zip_override|sweep$")
_VARIANTS_SAID = (
    "recipes of several jobs (a `base:` with override blocks, a sweep) not checked against their "
    "benchmark runner's validate_config (BL202: each job's values are the blocks merged)"
)
_UNREAD_RUNNER_SAID = (
    "recipes whose benchmark runner's validate_config (srtctl's) does what BL202 does not read "
    "(a call, a loop over a set, a value its schema gives no default), not checked against it "
    "(BL202)"
)


def _srtctl(ws: Workspace) -> tuple[srtctl_runners.Schema, dict[str, srtctl_runners.Runner]]:
    """The tree's srtctl schema and runners, read once per run."""
    known = ws.models.get(_SRTCTL_RUNNERS)
    if not isinstance(known, tuple):
        known = ws.models[_SRTCTL_RUNNERS] = srtctl_runners.read(srtctl_sources(ws))
    return known


_SRTCTL_RUNNERS = "srtctl-runners"


def _failing_exits(ctx: Context) -> Iterator[Finding]:
    """A launcher's `exit N` (N a nonzero number) that surely runs on an entry's routes before
    anything else may end the launcher: those jobs fail there, whatever they were to run (an
    element with no CONFIG_FILE where the launcher's srt-slurm path requires one). The routes
    decide only names the wiring speaks for (`ConditionEnv`): `$SLURM_PARTITION` from the
    runner's environment is not known to be empty."""
    wiring = ctx.wiring
    entries, launchers = _launchers_of(wiring)
    for launcher, configs in entries.items():
        if not ctx.route_in_scope(launcher, *configs):
            continue
        found = _launcher_ends(ctx, launcher)
        if found is None:
            continue
        ends, failing = found
        routes = wiring.routes_for_launcher(launcher)
        ending: dict[int, tuple[Command, dict[str, int]]] = {}
        # (per exit, the values the routes give the names its condition reads, by entry)
        given: dict[int, dict[tuple[tuple[str, str], ...], list[str]]] = {}
        for route in routes:
            command = _first_end(route, ends)
            if command is not None and failing(command):
                where = Location(launcher, command.first_line_span)
                if not _fails_wherever_it_lands(ctx, route.entry, launcher, where):
                    continue
                counts = ending.setdefault(id(command), (command, {}))[1]
                counts[route.entry.name] = counts.get(route.entry.name, 0) + 1
                by = given.setdefault(id(command), {}).setdefault(_read(command, route), [])
                if route.entry.name not in by:
                    by.append(route.entry.name)
        located = {e.name: e for e, path, _ in wiring.pairs if path == launcher}
        for command, counts in ending.values():
            names, every, named = _jobs_said(wiring, counts, launchers)
            why = _why(command, "it" if len(names) == 1 else "them", given[id(command)])
            yield Finding(
                "BL202",
                f"`{first_line(command.script.text_of(command.node))}` surely runs for "
                f"{'every job' if every else 'jobs'} of {named}{why}: they fail here, whatever "
                "they were to run"
                + wiring.assumption([located[n] for n in names if n in located], launcher),
                Location(launcher, command.first_line_span),
                related=_with_conditions([located[n] for n in names[:_NAMED] if n in located]),
                subject="exit",  # (the entries are what it involves: a baseline sees them grow)
                involves=tuple(names),
            )


def _with_conditions(entries: list[Entry]) -> tuple[Location, ...]:
    """Each entry, and the `if:` of a workflow call's job where it surely holds for the call
    (a guard meant to keep the job from this launcher that does not: h57 W5)."""
    found: list[Location] = []
    named: set[Location] = set()  # (the rows of one job's matrix have one `if:`)
    for entry in entries:
        found.append(Location(entry.location.path, entry.location.span, f"entry {entry.name}"))
        where = entry.condition
        if where is not None and where not in named:
            named.add(where)
            found.append(Location(where.path, where.span, "its `if:` holds for these inputs"))
    return tuple(found)


def _empty_recipe_files(ctx: Context) -> Iterator[Finding]:
    """A launcher's `srtctl apply -f "$CONFIG_FILE"` that surely runs on an entry's routes with
    the path empty: the entry sets no CONFIG_FILE, and nothing the launcher runs before gives it
    one or ends the job (see `empty_recipe_file`). srtctl reads `-f ""` as its working folder."""
    wiring = ctx.wiring
    entries, launchers = _launchers_of(wiring)
    since = profile.SRTCTL_DIRECTORY_APPLY
    for launcher, configs in entries.items():
        if not ctx.route_in_scope(launcher, *configs):
            continue
        applying: dict[int, tuple[EmptyRecipeFile, dict[str, int]]] = {}
        for route in wiring.routes_for_launcher(launcher):
            found = empty_recipe_file(ctx, route)
            if found is None:
                continue
            where = Location(launcher, found.word.span)
            if not _fails_wherever_it_lands(ctx, route.entry, launcher, where):
                continue
            counts = applying.setdefault(id(found.command), (found, {}))[1]
            counts[route.entry.name] = counts.get(route.entry.name, 0) + 1
        located = {e.name: e for e, path, _ in wiring.pairs if path == launcher}
        for found, counts in applying.values():
            command, word = found.command, found.word
            names, every, named = _jobs_said(wiring, counts, launchers)
            variables = "/".join(dict.fromkeys(r.name for r in word.reads()))
            lines = sorted({c.span.line for c in found.failing_before})
            past = (
                f" that gets past line{'s' if len(lines) > 1 else ''} "
                f"{', '.join(map(str, lines[:3]))}{' and more' if len(lines) > 3 else ''} (a job "
                "that ends there fails)"
                if lines
                else ""
            )
            yield Finding(
                "BL202",
                f"`{first_line(command.script.text_of(command.node))}` "
                f"{'runs' if lines else 'surely runs'} for "
                f"{'every job' if every else 'jobs'} of {named}{past} with an empty recipe path, "
                f"`{word.text}` ({'it sets' if len(names) == 1 else 'they set'} no {variables}): "
                "srtctl reads an empty path as the folder it runs in (Python's `Path('')` is "
                f"`.`), and since NVIDIA/srt-slurm {since['commit']} ({since['date']}; a fork "
                "may differ) submits every YAML below it as a job of its own; an older srtctl "
                "fails to read that folder as a recipe"
                + wiring.assumption([located[n] for n in names if n in located], launcher),
                Location(launcher, word.span),
                related=tuple(
                    Location(e.location.path, e.location.span, f"entry {e.name}")
                    for e in (located[n] for n in names[:_NAMED] if n in located)
                ),
                subject="srtctl -f",
                involves=tuple(names),
            )


def _rejected_calls(ctx: Context) -> Iterator[Finding]:
    """A workflow's call of a reusable workflow of the repository that GitHub rejects before any
    job of the calling workflow starts (see `rejected_calls`)."""
    paths = ctx.in_scope(ctx.ws.glob(list(WORKFLOWS)))
    idle: dict[str, bool] = {}
    for location, what, subject in rejected_calls(ctx.ws, paths):
        if location.path not in idle:
            idle[location.path] = never_started(ctx.ws, location.path)
        runs = (
            "will fail: no workflow of the repository calls it yet"
            if idle[location.path]
            else "fails"
        )
        yield Finding(
            "BL202",
            f"{what}: GitHub rejects {location.path} before any of its jobs starts, so every run "
            f"of it {runs}",
            location,
            subject=f"uses:{subject}",
        )


def _launcher_ends(
    ctx: Context, launcher: str
) -> tuple[list[Command], Callable[[Command], bool]] | None:
    """The commands that may end the launcher, in order, and whether one of them fails the job
    (a nonzero `exit` an EXIT trap's `exit 0` does not mask); None when none can fail it."""
    model = ctx.wiring.launcher(launcher)
    if model is None:
        return None
    ends = launcher_ends(ctx, model)
    if not any(failing(c) for c in ends):
        return None
    flow = Flow(model.script)
    # `trap '...; exit 0' EXIT` before an exit sets the status the job ends with
    masked = min((i for i, t in flow.traps() if t.on_exit and masks(t.action)), default=None)

    def fails_job(command: Command) -> bool:
        index = flow.index(command)
        return masked is None or (index is not None and index < masked)

    return ends, fails_job


ELSEWHERE = (
    "entries whose jobs fail on a launcher their runner label leads to, where the label may "
    "lead to other launchers, not reported (BL202: no runners file lists the label's runners, "
    "and on another launcher the job may run; `benchlint explain ENTRY` shows the launchers "
    "and the line that fails)"
)


def _fails_wherever_it_lands(ctx: Context, entry: Entry, launcher: str, where: Location) -> bool:
    """`_fails_wherever_it_runs`; where it does not, the entry is counted (ELSEWHERE: the one
    to explain, which the failing line alone did not tell; h51 W1), for a run that names the
    launcher too."""
    if _fails_wherever_it_runs(ctx, entry, launcher):
        return True
    ctx.count(ELSEWHERE, entry.location, (where.path,))
    return False


def _fails_wherever_it_runs(ctx: Context, entry: Entry, launcher: str) -> bool:
    """Whether the entry's jobs surely fail on every other launcher its runner label may lead
    to, where no runners file says which runners have the label (`Wiring.alternatives`): the
    job runs on one of them, and which is not known. (True where the label is listed.)"""
    for other in ctx.wiring.alternatives(entry, launcher):
        routes = [r for r in ctx.wiring.routes_for_launcher(other) if r.entry is entry]
        if not routes:  # (a launcher benchlint could not read)
            return False
        found = _launcher_ends(ctx, other)
        for route in routes:
            missing = any(run.runs is True and not run.scripts for run in scripts_run(ctx, route))
            end = _first_end(route, found[0]) if found is not None else None
            if not missing and (found is None or end is None or not found[1](end)):
                return False
    return True


def _launchers_of(wiring: Wiring) -> tuple[dict[str, set[str]], dict[str, list[str]]]:
    """(launcher -> the master configs of its entries, entry -> the launchers its label leads
    to)."""
    entries: dict[str, set[str]] = {}
    launchers: dict[str, list[str]] = {}
    for entry, launcher, _ in wiring.pairs:
        entries.setdefault(launcher, set()).add(entry.path)
        launchers.setdefault(entry.name, []).append(launcher)
    return entries, launchers


def _jobs_said(
    wiring: Wiring, counts: dict[str, int], launchers: dict[str, list[str]]
) -> tuple[list[str], bool, str]:
    """The entries a launcher line fails jobs of (with how many routes each), whether that is
    every job of each (through every launcher of its label), and their names as a message
    says them."""
    names = list(counts)
    every = all(ended == _jobs(wiring, name, launchers[name]) for name, ended in counts.items())
    return names, every, listed(names)


_NAMED = 3  # (entries a message names, each a related location)


def _jobs(wiring: Wiring, entry: str, launchers: list[str]) -> int:
    """How many routes the entry has, through every launcher its runner label leads to."""
    return sum(
        1
        for launcher in dict.fromkeys(launchers)
        for route in wiring.routes_for_launcher(launcher)
        if route.entry.name == entry
    )


def _first_end(route: Route, ends: list[Command]) -> Command | None:
    """The failing exit that ends the launcher on this route before anything else may, if
    that is decided."""
    for command in ends:
        runs = route.holds(command)
        if runs is None:
            return None
        if runs:  # (an exec, or a sourced file that may end the launcher: not decided)
            return command if failing(command) else None
    return None


def _why(command: Command, who: str, given: dict[tuple[tuple[str, str], ...], list[str]]) -> str:
    """The condition that leads to the exit, as the message says it: the innermost `if` (or
    `&&`) that holds, or, in an `else`, the conditions that all fail; with the values the
    routes give the names it reads (`given`, `_read`: an 8k1k job given ISL=1024 by a pasted
    line shows why it fails the 8k1k test; h61 W3)."""
    guards = command.guards
    if not guards:
        return ""
    script = command.script
    guard = guards[-1]
    text, line = first_line(script.text_of(guard.node)), script.span(guard.node).line
    combinations = [read for read in given if read]
    rest = list(dict.fromkeys(n for read in combinations[2:] for n in given[read]))
    values = "; ".join(
        " ".join(f"{n}={v}" for n, v in read)
        + (f" for {listed(given[read])}" if len(given) > 1 else "")
        for read in combinations[:2]
    ) + (f"; other values for {listed(rest)}" if rest else "")
    values = f", given {values}" if values else ""
    if guard.patterns:  # a `case` item
        return f" (its `case` on line {line} takes this branch for {who}{values})"
    if guard.expect:
        return f" (`{text}` on line {line} holds for {who}{values})"
    failed = [g for g in reversed(guards) if not g.expect and not g.patterns]
    first = script.span(failed[-1].node).line
    return (
        f" (`{text}` on line {line} and the conditions from line {first} on fail for {who}{values})"
        if len(failed) > 1
        else f" (`{text}` on line {line} fails for {who}{values})"
    )


def _read(command: Command, route: Route) -> tuple[tuple[str, str], ...]:
    """The values a route gives the names the exit's innermost condition reads where it reads
    them (those it knows; at most four: before `X="${X:-d}"`, the value X was started with;
    h101 W3)."""
    guard = command.guards[-1] if command.guards else None
    names = dict.fromkeys(r.name for r in guard.reads) if guard is not None else {}
    env = route.env_at(command)
    known = env.known
    return tuple((n, known[n]) for n in names if n in known and n not in env.unknown)[:4]


def _missing_scripts(ctx: Context) -> Iterator[Finding]:
    """A launcher's script path that, on an entry's route, names no file of the folder it is
    in (see releases.scripts_run): the job fails at its first line."""
    wiring = ctx.wiring
    entries: dict[str, set[str]] = {}  # launcher -> the master configs of its entries
    for entry, launcher, _ in wiring.pairs:
        entries.setdefault(launcher, set()).add(entry.path)
    for launcher, configs in entries.items():
        if not ctx.route_in_scope(launcher, *configs):
            continue  # (before its routes are built: a named run spares the others)
        missing: dict[int, tuple[ScriptRun, list[Entry], list[str | None], set[str | None]]] = {}
        # (per call and entry, the scenarios whose jobs find no script, and those that find one)
        failing: dict[tuple[int, int], set[str]] = {}
        found_one: dict[tuple[int, int], set[str]] = {}
        for route in wiring.routes_for_launcher(launcher):
            for run in scripts_run(ctx, route):
                key = (id(run.call), id(route.entry))
                if run.runs is True and run.scripts:
                    found_one.setdefault(key, set()).add(route.element.scenario)
                if run.runs is True and not run.scripts:
                    where = Location(launcher, run.call.word.span)
                    if not _fails_wherever_it_lands(ctx, route.entry, launcher, where):
                        continue
                    failing.setdefault(key, set()).add(route.element.scenario)
                    _, found, tried, inside = missing.setdefault(id(run.call), (run, [], [], set()))
                    # (the folder each failing route's path names: the one it makes, else
                    # the one its values make; h92 W1, h93 W4)
                    made = (posixpath.dirname(run.path),) if run.path else run.inside
                    inside.update(posixpath.normpath(f) if f else None for f in made or (None,))
                    if route.entry not in found:
                        found.append(route.entry)
                        tried.append(run.path)
        for run, lacking, tried, inside in missing.values():
            shown = []
            for entry in lacking[:_NAMED]:
                key = (id(run.call), id(entry))
                only = sorted(failing.get(key, set()) - found_one.get(key, set()))
                # (an entry whose other scenarios' jobs find their script: these jobs alone)
                some = only and found_one.get(key)
                shown.append(f"{entry.name} (its {', '.join(only)} jobs)" if some else entry.name)
            named = listed(shown, len(lacking))
            word = run.call.word
            # (the folders the routes' paths name, where each is known: `${SCENARIO_SUBDIR}`
            # gives `agentic/` below the folder the word names)
            known = sorted(f for f in inside if f is not None)
            places = known if known and None not in inside else [run.folder]
            if len(places) > _NAMED:
                places = [run.folder]
            place = " or ".join(f"in {f}/" if f else "at the checkout's root" for f in places)
            yield Finding(
                "BL202",
                f"`{word.text}` names no script {place} for {named}: their benchmark "
                f"never runs (No such file or directory){_elsewhere(ctx, run, tried)}"
                + _made(ctx, tried, lacking)
                + wiring.assumption(lacking, launcher),
                Location(launcher, word.span),
                related=tuple(
                    Location(e.location.path, e.location.span, f"entry {e.name}")
                    for e in lacking[:_NAMED]
                ),
                subject=f"script:{word.value}",
                involves=tuple(e.name for e in lacking),
            )


def _made(ctx: Context, tried: list[str | None], entries: list[Entry]) -> str:
    """The path the first entry's values make, where all of it is known (`tried`, one per
    entry), and a script of the same folder with a close name (`..._sglang-disaggsh` for
    `..._sglang-disagg.sh`)."""
    index = next((i for i, p in enumerate(tried) if p is not None), None)
    if index is None:
        return ""
    path = tried[index]
    assert path is not None
    import difflib  # (only for a finding)

    folder, name = posixpath.split(path)
    scripts = [posixpath.basename(p) for p in ctx.ws.shell_paths if posixpath.dirname(p) == folder]
    close = difflib.get_close_matches(name, sorted(scripts), n=1, cutoff=0.9)
    there = f" ({posixpath.join(folder, close[0])} is there)" if close else ""
    whose = f" for {entries[index].name}" if len(entries) > 1 else ""
    return f"; the path it makes{whose}: {path}{there}"


def _elsewhere(ctx: Context, run: ScriptRun, tried: list[str | None]) -> str:
    """For a path with no folder that names no script at the root: the folders where the
    repository has scripts of the names it makes (`benchmarks/` for `bash x.sh`)."""
    if run.folder:
        return ""
    names = {p for p in tried if p is not None}
    found = sorted(
        {posixpath.dirname(p) + "/" for p in ctx.ws.shell_paths if posixpath.basename(p) in names}
        - {"/"}
    )
    if not found:
        return ""
    return f" (scripts of that name are in {' and '.join(found)}: the path lacks its folder)"


def _writes_recipe(script: Script, variable: str) -> bool:
    """Whether the launcher writes a file at the path the recipe setting names: a redirect or
    a copy to `"$CONFIG_FILE"`, `"${CONFIG_FILE%%:*}"` or a variable assigned from it."""
    names = names_of_recipe(script, variable)
    alone = re.compile(  # the whole word: `"$CONFIG_PATH"`, `"${CONFIG_FILE%%:*}"`
        r'"?\$(?:\{(?:'
        + "|".join(map(re.escape, sorted(names)))
        + r")(?:%%?[^}]*)?\}|(?:"
        + "|".join(map(re.escape, sorted(names)))
        + r')\b)"?'
    )
    for command in script.all_commands():
        written = [r.target for r in command.redirects if r.operator in (">", ">|")]
        if command.base in _MAKERS:
            written += command.words[-1:]
        if any(alone.fullmatch(w.text) for w in written):
            return True
    return False


def _made_by(script: Script, target: str, call: Command) -> bool:
    """Whether another command of the script may make a file of that name: writes it (`cat >
    "$DIR/inner.sh"`), or names it to a program that copies, fetches or unpacks files (`cp x
    "$DIR/inner.sh"`, `curl -o ...`)."""
    name = posixpath.basename(target)
    for command in script.all_commands():
        if command is call:
            continue
        written = [r.target for r in command.redirects if r.operator in (">", ">>", ">|")]
        if command.base in _MAKERS:
            written += command.words[1:]
        if any(w.value.endswith(name) for w in written):
            return True
    return False


_MAKERS = frozenset(
    {"cp", "mv", "ln", "install", "curl", "wget", "tee", "touch", "rsync", "tar", "unzip", "git"}
)


def _run_by_entries(ctx: Context, path: str, depth: int = 0) -> Entry | None:
    """The first entry whose job runs the script: on a route of a launcher that runs it there
    (the launcher's script path evaluated for the route's entry), or that runs a script that
    runs it; None when none does."""
    for call in ctx.environment.calls.callers_of(path):
        caller = call.caller.path
        if ctx.wiring.is_launcher(caller):
            for route in ctx.wiring.routes_for_launcher(caller):
                if any(path in run.scripts for run in scripts_run(ctx, route)):
                    return route.entry
        elif depth < 2 and caller != path:
            entry = _run_by_entries(ctx, caller, depth + 1)
            if entry is not None:
                return entry
    return None


# a path fixed relative to the script's folder or the checkout's root
_FIXED_FOLDER = lazy_compile("|".join(("dirname", "BASH_SOURCE", *sorted(ROOT_VARIABLES))))


# commands that may put a file into srtctl's checkout (`cp ... configs/x.sh`, `rsync -a ... .`)
_COPIES = frozenset({"cp", "rsync", "ln", "install", "mv", "tar", "tee", "cat"})


def _setup_scripts(ctx: Context) -> Iterator[Finding]:
    """A recipe's `setup_script: NAME`, which srtctl runs from its checkout's `configs/NAME` (or
    `configs/patches/NAME`) and otherwise skips with a warning, that names no file there: in an
    srt-slurm tree, one the tree does not have; in a repository that overlays its recipes, one
    it keeps in a recipe folder's `configs/` that the route's launcher copies nothing of."""
    ws = ctx.ws
    roots = ws.recipe_roots  # (detecting them tells whether this is an srt-slurm tree)
    if ws.detected.recipe_tree:
        for path in ctx.in_scope(ws.glob([f"{r}/**" for r in roots])):
            name, where = _setup_script(ctx, path)
            if name is None or where is None or _staged(ws, "", name):
                continue
            yield Finding(
                "BL202",
                f"setup_script {name} names no file in configs/ (nor configs/patches/): srtctl "
                "prints a warning and starts the workers without it",
                where,
                subject=f"setup_script={name}",
            )
        return
    wiring = ctx.wiring
    found: dict[
        str, tuple[str, Location, str, list[Entry], dict[str, Location], dict[int, Command]]
    ] = {}
    for route in ctx.routes():
        for recipe in wiring.applied(route):  # (EVAL_CONFIG_FILE's where the launcher switches)
            if recipe.status != "local" or recipe.path is None:
                continue
            name, where = _setup_script(ctx, recipe.path, recipe.selector)
            if name is None or where is None:
                continue
            effective = wiring.effective(route, recipe)
            document = effective.document if effective is not None else None
            if document is not None and _setup_script_of(document.root, recipe.selector) != name:
                continue  # (the launcher's rewrites change or drop it)
            unsimulated = [r for r, _ in effective.errors] if effective is not None else []
            root = next((r for r in roots if recipe.path.startswith(r + "/")), None)
            kept = _staged(ws, root, name) if root is not None else None
            if root is None or kept is None:
                continue
            staged, unknown = _staging(ctx, route, root, name)
            if staged:
                continue
            _, _, _, entries, launchers, untold = found.setdefault(
                recipe.path, (name, where, kept, [], {}, {})
            )
            untold.update((id(c), c) for c in unknown)
            untold.update((id(r.command), r.command) for r in unsimulated)
            if all(e is not route.entry for e in entries):
                entries.append(route.entry)
            if route.launcher.path not in launchers:
                # (where it copies the recipes, not their configs/; else its first line)
                command = recipe.overlay.command if recipe.overlay is not None else None
                span = command.first_line_span if command is not None else Span(1, 1, 1, 1)
                launchers[route.launcher.path] = Location(
                    route.launcher.path, span, "copies the recipes, not configs/"
                )
    for name, where, kept, entries, launchers, untold in found.values():
        # (in the order of the files, not of the routes: the same text whichever file is named)
        entries.sort(key=lambda e: (e.location.path, e.location.span.line))
        launchers = dict(sorted(launchers.items()))
        named = ", ".join(e.name for e in entries[:2]) + (
            f" and {len(entries) - 2} more" if len(entries) > 2 else ""
        )
        copies = "copies" if len(launchers) == 1 else "copy"
        yield Finding(
            "BL202",
            f"setup_script {name} is this repository's {kept}, which {', '.join(launchers)} "
            f"{copies} nothing of into srtctl's configs/ for {named}: srtctl prints a warning and "
            "starts the workers without it (unless the srt-slurm release it checks out has its "
            "own)",
            where,
            related=(
                *launchers.values(),
                *(
                    Location(e.location.path, e.location.span, f"entry {e.name}")
                    for e in _shown_entries(entries)
                ),
            ),
            subject=f"setup_script={name}",
            involves=tuple(e.name for e in entries),
            notes=tuple(
                f"not counted: `{first_line(c.script.text_of(c.node))}` "
                f"({c.script.path}:{c.span.line}), "
                + (
                    "whose destination is held in a variable benchlint cannot tell"
                    if c.base in _COPIES
                    else "an edit of the recipe benchlint does not simulate (BL002)"
                )
                for c in sorted(untold.values(), key=lambda c: (c.script.path, c.span.line))[:3]
            ),
        )


def _shown_entries(entries: list[Entry]) -> list[Entry]:
    """The entries a finding names as related places: the first of each master config (a run
    that names any of them reports it), then the next ones up to three, in file order."""
    first = {e.location.path: e for e in reversed(entries)}
    shown = sorted(first.values(), key=lambda e: (e.location.path, e.location.span.line))
    rest = [e for e in entries if all(e is not s for s in shown)]
    return sorted(
        [*shown, *rest[: max(0, 3 - len(shown))]],
        key=lambda e: (e.location.path, e.location.span.line),
    )


def _setup_script(
    ctx: Context, path: str, selector: str | None = None
) -> tuple[str | None, Location | None]:
    """The recipe's `setup_script` (a plain `.sh` name; `base:`'s in an override-style recipe
    unless the selected override block sets its own, as srtctl reads it) and where it is."""
    document = ctx.ws.yaml(path)
    node = _setup_script_node(document.root if document is not None else None, selector)
    if node is None or _setup_script_of(document.root if document else None, selector) is None:
        return None, None
    return node.value, Location(path, node.span)


def _setup_script_node(root: YNode | None, selector: str | None) -> YNode | None:
    block = root.get(selector) if selector and root is not None and root.is_map else None
    if block is not None and block.is_map and block.get("setup_script") is not None:
        return block.get("setup_script")
    settings = settings_root(root)
    return settings.get("setup_script") if settings is not None else None


def _setup_script_of(root: YNode | None, selector: str | None = None) -> str | None:
    node = _setup_script_node(root, selector)
    if node is None or not node.is_scalar or not node.value.endswith((".sh", ".bash")):
        return None
    if "/" in node.value or "$" in node.value:
        return None
    return node.value


def _staged(ws: Workspace, root: str, name: str) -> str | None:
    """The file a `configs/` beside the recipe folder `root` keeps for the name (the folder
    itself for an srt-slurm tree, `""`), if any."""
    base = f"{root}/configs" if root else "configs"
    for candidate in (f"{base}/{name}", f"{base}/patches/{name}"):
        if ws.is_shell(candidate):
            return candidate
    return None


def _operand(route: Route, word: Word, command: Command) -> str:
    """A copy's operand with its leading variable's value where the command runs (the
    launcher's `substituted`); a sourced file's as written."""
    if command.script is not route.launcher.script:
        return word.value
    return route.launcher.substituted(word.value, command)


def _in_checkout(path: str) -> bool:
    """A path in the checkout of this repository (`$GITHUB_WORKSPACE/LOGS`)."""
    match = leading_variable(path)
    return match is not None and match.group(1) in ROOT_VARIABLES


def _staging(ctx: Context, route: Route, root: str, name: str) -> tuple[bool, list[Command]]:
    """(whether a command that may run on the route, of its launcher or of a file it sources,
    may put the script in srtctl's `configs/` or make srtctl run another: a copy or a write
    whose destination, its last word or a `>` redirection, names `configs`, a copy of the
    recipe folder whole (`cp -r "$RECIPES"/* .` with RECIPES that folder), `srtctl ...
    --setup-script`; the copies that may copy the script, their source a variable or naming
    it, to a destination held in a variable, which benchlint cannot tell, not one in the
    checkout of this repository, `$GITHUB_WORKSPACE/LOGS`)."""
    whole = re.compile(re.escape(root) + r"/?[\"']?(?:\*|\.)?(?:[\s\"']|$)")
    launcher = route.launcher.script
    sourced = [ctx.ws.shell(p) for p in ctx.wiring.sourced_files(launcher.path)]
    commands = [
        *launcher.all_commands(),
        *(c for script in sourced if script is not None for c in script.all_commands()),
    ]
    unknown = []
    for command in commands:
        if command.script is launcher and route.holds(command) is False:
            continue
        if command.base == "srtctl" and any(
            w.value.startswith("--setup-script") for w in command.args
        ):
            return True, []  # (srtctl runs the script it is given)
        if command.base not in _COPIES:
            continue
        args = [_operand(route, w, command) for w in command.args if not w.value.startswith("-")]
        written = [
            _operand(route, r.target, command) for r in command.redirects if ">" in r.operator
        ]
        sources = args[:-1] if command.base not in ("cat", "tee") else args
        destinations = [*written, *(args[-1:] if command.base not in ("cat", "tee") else args)]
        if any(_into_configs(d, name) for d in destinations) or any(
            whole.search(a) for a in sources
        ):
            return True, []
        held = [d for d in destinations if "$" in d and not _in_checkout(d)]
        if held and any(
            name in a or "configs" in a or re.fullmatch(r"\$\{?\w+\}?", a) for a in sources
        ):
            unknown.append(command)
    return False, unknown


def _into_configs(destination: str, name: str) -> bool:
    """Whether a copy or write to this destination may put NAME in srtctl's `configs/` (or
    `configs/patches/`): the folder itself, a file of that name in it, or a part after it
    that is not known (`configs/other.sh` is another file)."""
    where = destination.strip("\"'").rstrip("/")
    at = where.rfind("configs")
    if at < 0:
        return False
    rest = where[at + len("configs") :].lstrip("/")
    rest = rest.removeprefix("patches").lstrip("/")
    return rest in ("", name) or "$" in rest or "*" in rest
