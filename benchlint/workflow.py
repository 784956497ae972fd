"""GitHub Actions workflows that start launchers, and the environment each launcher inherits.

A step whose `run:` text runs `runners/launch_...` gives its launcher the workflow's, the job's
and the step's `env:` plus what the `run:` text exports before the launch line.
`export ${{ ... }}` (the master-config additional-settings) is modelled per route by the wiring.
"""

from __future__ import annotations

import itertools
import json
import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeGuard

from benchlint import profile
from benchlint.actions import embedded
from benchlint.expressions import Value, evaluate, input_names, typed_inputs
from benchlint.finding import Location, Span
from benchlint.lazyre import lazy_compile
from benchlint.shell.model import Script, parse_file
from benchlint.source import SourceText
from benchlint.workspace import Workspace
from benchlint.yamlmodel import YamlDocument, YNode, value_span

# a run line that starts a launcher: a `.sh` path built from the runner's name (any folder,
# the repository root included), or a fixed one under runners/
_LAUNCH = profile.WORKFLOW_LAUNCH


def _runs_launcher(line: str) -> bool:
    """Whether a run line has a command that runs a launcher: one of its commands (split at
    `&&`, `||`, `;`, `|`) names it, other than one that prints, lists or tests its path; or a
    `launch_*.sh` path an expression names (`launch_${{ matrix.launcher }}.sh`: a launcher
    whatever folder it is in, run with values no entry gives)."""
    return bool(commands_matching(line, _LAUNCH) or commands_matching(line, _EXPRESSION_LAUNCH))


# (run: by its path, or by a shell, at the command's start; not `chmod +x`, `shellcheck`, `cp`)
_EXPRESSION_LAUNCH = lazy_compile(
    r"^\s*(?:(?:exec|time|nohup)\s+)?(?:(?:bash|sh|source|\.)\s+(?:-\S+\s+)*)?[\"']?"
    r"[\w./${}-]*\blaunch_[\w.-]*\$\{\{[^}]*\}\}[\w.${}-]*\.sh\b"
)


def commands_matching(line: str, pattern: re.Pattern[str]) -> list[re.Match[str]]:
    """The first match of the pattern in each command of a run line (split at `&&`, `||`,
    `;`, `|`) that runs what it names, not one that prints, lists or tests it; none in a
    comment."""
    if not pattern.search(line) or line.lstrip().startswith("#"):
        return []
    found = []
    for part in _COMMANDS.split(line):
        match = pattern.search(part)
        if match is not None and not _NOT_RUN.match(part):
            found.append(match)
    return found


_COMMANDS = lazy_compile(r"&&|\|\||;|\|")
# a command that names a launcher without running it: printed, listed, tested, or a comment
_NOT_RUN = lazy_compile(r"\s*(?:#|(?:echo|printf|ls|cat|test|\[\[?|stat|realpath)\s)")
_EXPORT = lazy_compile(r"^\s*export\s+((?:[A-Za-z_][A-Za-z0-9_]*=\S*\s*)+)")
WORKFLOWS = (".github/workflows/*.yml", ".github/workflows/*.yaml")  # every workflow
# the repository's own actions (`uses: ./.github/actions/setup`; one at the root)
ACTIONS = ("**/action.yml", "**/action.yaml")
# a name a shell line assigns (`X=1`, `X+=a`, `export X=1`), not `--flag=1` or `$X==y`
_ASSIGNED = lazy_compile(r"(?<![\w$\-/.])([A-Za-z_][A-Za-z0-9_]*)\+?=(?!=)")
# `NAME=` after a `\n` a printf or `echo -e` writes as a line break
_AFTER_LINE_BREAK = lazy_compile(r"\\n([A-Za-z_][A-Za-z0-9_]*)\+?=(?!=)")
# `echo "NAME<<EOF" >> "$GITHUB_ENV"`: a multi-line value
_HEREDOC_NAME = lazy_compile(r"\b([A-Za-z_][A-Za-z0-9_]*)<<")
# `printf '%s=%s\n' NAME "$VALUE" >> "$GITHUB_ENV"`: the name is an argument (the format and
# its arguments, up to the end of the command)
_PRINTF = lazy_compile(
    r"\bprintf\s+('[^']*'|\"[^\"]*\"|[^\s;|&<>]+)((?:[ \t]+(?:'[^']*'|\"[^\"]*\"|[^\s;|&<>]+))*)"
)
_ARGUMENT = lazy_compile(r"'([^']*)'|\"([^\"]*)\"|([^\s'\"]+)")
_CONVERSION = lazy_compile(r"%(?:%|[-+ #0]*\d*(?:\.\d*)?([a-zA-Z]))")


def _printf_names(line: str) -> set[str]:
    """The names a `printf` on the line writes as `NAME=` or `NAME<<`: the arguments its format
    puts right before `=` or `<<` (the format used again while arguments remain, as printf
    does), when they are names."""
    names: set[str] = set()
    for match in _PRINTF.finditer(line):
        form = "".join(_ARGUMENT.findall(match.group(1))[0])
        args = ["".join(parts) for parts in _ARGUMENT.findall(match.group(2))]
        slots = [  # for each conversion: whether it is a name (`%s=`, `%s<<`)
            form[c.end() :].startswith(("=", "<<"))
            for c in _CONVERSION.finditer(form)
            if c.group(1) is not None
        ]
        if not slots:
            continue
        for index, arg in enumerate(args):
            if slots[index % len(slots)] and arg.isidentifier() and arg.isascii():
                names.add(arg)
    return names


# the variables the runner sets for every job: a workflow that sets one in an `env:` does not
# make it unset elsewhere
_RUNNER_NAMES = lazy_compile(
    r"(?:GITHUB|RUNNER|ACTIONS)_\w*|CI|HOME|PATH|USER|LOGNAME|SHELL|PWD|HOSTNAME|LANG|TERM|TMPDIR"
)


@dataclass
class LauncherStep:
    workflow: str
    job: str
    location: Location
    env: dict[str, Location] = field(default_factory=dict)
    multinode: bool = False  # the step exports IS_MULTINODE=true
    # the text of each `env:` value that is a scalar (`${{ inputs.model-prefix }}`)
    values: dict[str, str] = field(default_factory=dict)
    # the type the workflow declares for each of its inputs (`boolean`, `number`, `string`...)
    input_types: dict[str, str] = field(default_factory=dict)
    # the names an earlier step of the job may write to `GITHUB_ENV`: any value, whatever the
    # `env:` says
    written: frozenset[str] = frozenset()
    # the names the `run:` text sets before the launch (in `env` too): their values not known
    run_names: set[str] = field(default_factory=set)
    # the job's `runs-on` as written (`${{ inputs.runner }}`), when a scalar
    runs_on: str | None = None
    # the defaults of the workflow's `workflow_call` inputs (`conc-list: '[4, 8]'`), as text
    input_defaults: dict[str, str] = field(default_factory=dict)
    # the arguments the launch line gives the launcher (`${{ inputs.exp-name }}`), each as
    # written, None where one is not a plain word or one expression; None: not read
    launch_args: tuple[str | None, ...] | None = None
    # the `env:` names whose value is not empty on any run: a literal (`TP: "8"`), or a
    # matrix value every row of the job's matrix gives as a literal (`${{ matrix.conc }}`)
    nonempty: frozenset[str] = frozenset()
    # the axes of the job's matrix an input gives as a JSON list (`tp: ${{
    # fromJson(inputs.tp-list) }}`), by axis: the input's name (none where `include` adds rows)
    matrix_inputs: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.workflow} (job {self.job})"


def cancels_runner_jobs(ws: Workspace) -> bool:
    """Whether every job that runs a launcher later runs `scancel --name=${{ runner.name }}` in
    a step that runs whatever happened (`if: always()`): InferenceX's post-run cleanup."""
    found = False
    for path in ws.glob(ws.layout.workflows):
        document = ws.yaml(path)
        root = document.root if document is not None else None
        jobs = root.get("jobs") if root is not None and root.is_map else None
        for _, job in jobs.pairs if jobs is not None and jobs.is_map else []:
            steps = job.get("steps") if job.is_map else None
            items = steps.items if steps is not None and steps.is_seq else []
            texts = [_run_text(step) for step in items]
            launch = next((i for i, t in enumerate(texts) if _LAUNCH.search(t)), None)
            if launch is None:
                continue
            cleans = any(
                "scancel" in texts[i] and "runner.name" in texts[i] and _always(items[i])
                for i in range(launch + 1, len(items))
            )
            if not cleans:
                return False
            found = True
    return found


def _run_text(step: YNode) -> str:
    run = step.get("run") if step.is_map else None
    return run.value if run is not None and run.is_scalar else ""


def _always(step: YNode) -> bool:
    condition = step.get("if") if step.is_map else None
    return condition is not None and condition.is_scalar and "always()" in condition.value


def launcher_steps(ws: Workspace) -> list[LauncherStep]:
    steps: list[LauncherStep] = []
    for path in ws.glob(ws.layout.workflows):
        document = ws.yaml(path)
        if document is None or document.root is None or not document.root.is_map:
            continue
        steps.extend(_steps_of(document, document.root, ws))
    return steps


def workflow_names(ws: Workspace) -> frozenset[str]:
    """The names some workflow sets: in an `env:` of the workflow, a job, a job's container or
    a step, or in a step's `run:` text; not the runner's own (`HOME`, `GITHUB_WORKSPACE`)."""
    names: set[str] = set()
    # every workflow, the templates' callers and the ad-hoc ones too (`BENCH_SCRIPT_OVERRIDE`
    # in a dispatch workflow's `env:`): each file's names are kept in the cache by its content
    for path in ws.glob([*ws.layout.workflows, *WORKFLOWS]):
        digest = ws.digest(path) if ws.cache is not None else None
        stored = ws.cache.get("workflow-names", path, digest) if ws.cache and digest else None
        if isinstance(stored, list):
            names.update(stored)
            continue
        found = _names_set(ws, path)
        names |= found
        if ws.cache is not None and digest:
            ws.cache.put("workflow-names", path, digest, sorted(found))
    return frozenset(n for n in names if not _RUNNER_NAMES.fullmatch(n))


def _names_set(ws: Workspace, path: str) -> set[str]:
    names: set[str] = set()
    document = ws.yaml(path)
    if document is None or document.root is None or not document.root.is_map:
        return names
    root = document.root
    names.update(_env_of(document, root.get("env")))
    for _, job, steps in job_steps(root):
        names.update(_job_env(document, job))
        for step in steps:
            names.update(_env_of(document, step.get("env")))
            names.update(_ASSIGNED.findall(_run_text(step)))
    return names


def job_steps(root: YNode | None) -> Iterator[tuple[YNode, YNode, list[YNode]]]:
    """A workflow's jobs (the mappings among them): each one's key, itself and its steps (the
    mappings among them)."""
    jobs = root.get("jobs") if root is not None and root.is_map else None
    for key, job in jobs.pairs if jobs is not None and jobs.is_map else []:
        if job.is_map:
            steps = job.get("steps")
            items = steps.items if steps is not None and steps.is_seq else []
            yield key, job, [step for step in items if step.is_map]


def conditions(root: YNode) -> Iterator[YNode]:
    """Each job's and each step's `if:` scalar (a composite action's steps: `runs.steps`)."""
    jobs = root.get("jobs")
    runs = root.get("runs")
    holders = [job for _, job in jobs.pairs] if jobs is not None and jobs.is_map else []
    if runs is not None and runs.is_map:
        holders.append(runs)
    for holder in holders:
        if not holder.is_map:
            continue
        found = holder.get("if")
        if found is not None and found.is_scalar and isinstance(found.value, str):
            yield found
        steps = holder.get("steps")
        for step in steps.items if steps is not None and steps.is_seq else ():
            found = step.get("if") if step.is_map else None
            if found is not None and found.is_scalar and isinstance(found.value, str):
                yield found


def _job_env(document: YamlDocument, job: YNode) -> dict[str, Location]:
    """The names a job's `env:` and its container's `env:` set (the container's over the
    job's)."""
    container = job.get("container")
    inner = container.get("env") if container is not None and container.is_map else None
    return {**_env_of(document, job.get("env")), **_env_of(document, inner)}


def workflow_roots(
    ws: Workspace, paths: list[str], holding: str = ""
) -> Iterator[tuple[SourceText, YNode]]:
    """Each of these workflows (paths the caller chose among `ws.glob(WORKFLOWS)`) whose text
    holds `holding` and whose document is a mapping, with its text."""
    for path in paths:
        source = ws.source(path)
        if source is None or holding not in source.text:
            continue
        document = ws.yaml(path)
        root = document.root if document is not None else None
        if root is not None and root.is_map:
            yield source, root


def expressions(
    root: YNode, skip: frozenset[str] = frozenset()
) -> Iterator[tuple[YNode, str, int]]:
    """Each expression of a workflow (`${{ ... }}` that ends; a job's or a step's `if:` without
    `${{` is one as a whole), with the scalar that holds it and where it starts in the scalar's
    value; the values of the top-level keys in `skip` are not read."""
    for node, text, start, _ in expressions_at(root, skip):
        yield node, text, start


def expressions_at(
    root: YNode, skip: frozenset[str] = frozenset()
) -> Iterator[tuple[YNode, str, int, str]]:
    """`expressions`, each with where its value is: its keys joined by `.`, a list item's
    index in brackets (`jobs.bench.steps[0].if`, as `workflow_schema` names places; a value
    an alias repeats is met at each place; `#key` after a key that is an expression)."""
    stack: list[tuple[YNode, str]] = [
        (v, k.value) for k, v in reversed(root.pairs) if k.is_scalar and k.value not in skip
    ]
    while stack:
        node, where = stack.pop()
        if node.is_map:
            stack.extend((v, f"{where}.{k.value}") for k, v in reversed(node.pairs) if k.is_scalar)
            # (a key that is an expression, `${{ matrix.k }}: v`: read with the mapping's own
            # contexts; its place is its value's, marked as its key's)
            stack.extend(
                (k, f"{where}.{k.value}#key")
                for k, _ in reversed(node.pairs)
                if k.is_scalar and "${{" in k.value
            )
        elif node.is_seq:
            stack.extend(
                (item, f"{where}[{i}]") for i, item in reversed(list(enumerate(node.items)))
            )
        elif node.is_scalar and node.value:
            value = node.value
            if "${{" in value:
                for piece in embedded(value):
                    if piece.closed:
                        yield node, piece.text, piece.start, where
            elif _CONDITION.fullmatch(where):  # (not an input or a variable named `if`; t82a)
                yield node, value, 0, where


# where a value is a condition GitHub reads as an expression without `${{ }}`: a job's `if:`
# and a step's (`jobs.<id>.if`, `jobs.<id>.steps[<n>].if`)
_CONDITION = lazy_compile(r"jobs\.[^.\[\]]+\.(?:steps\[\d+\]\.)?if")


def _default_shell(node: YNode | None) -> YNode | None:
    """A job's or workflow's `defaults.run.shell`."""
    defaults = node.get("defaults") if node is not None and node.is_map else None
    run = defaults.get("run") if defaults is not None and defaults.is_map else None
    return run.get("shell") if run is not None and run.is_map else None


# a runner label that names Windows (`windows-latest`, a self-hosted `win64`)
_WINDOWS = lazy_compile(r"(?<![a-z0-9])win", re.I)


def runs_in_posix_shell(root: YNode, job: YNode, step: YNode) -> bool:
    """Whether a `run:` step surely runs in bash or sh: its `shell:` (the step's, else the
    job's or the workflow's `defaults.run.shell`) says so; or none is given and the job's
    `runs-on` names no Windows runner (whose default is PowerShell: a label starting with
    `win`), each label written out (or the job's matrix's values of `${{ matrix.os }}`); or
    the runner is not known (an expression, a `group:`) and a script of the job that runs in
    its default shell, this one or another (t73b), is one only a POSIX shell runs: it names the
    runner's files as shell variables (`>> $GITHUB_ENV`: PowerShell's is `$env:GITHUB_ENV`, an
    unset variable of its own would be `$GITHUB_ENV`), and none names them as PowerShell does."""
    for given in (step.get("shell"), _default_shell(job), _default_shell(root)):
        if given is not None:
            words = given.value.split() if given.is_scalar else []
            return bool(words) and posixpath.basename(words[0]) in ("bash", "sh")
    runs_on = job.get("runs-on")
    labels = [runs_on] if runs_on is not None and runs_on.is_scalar else []
    if runs_on is not None and runs_on.is_seq:
        labels = [item for item in runs_on.items if item.is_scalar]
    texts = [
        text
        for label in labels
        for value in _matrix_values(job, label.value)
        for text in _choices(root, value)
    ]
    if any(_WINDOWS.search(t) for t in texts):
        return False
    if not any("${{" in t for t in texts) and (runs_on is None or labels):
        return True
    # (a mapping, `group:`/`labels:`, is not read: the runner is not known either; every step
    # of the job with no `shell:` of its own runs in that runner's default shell)
    own = step.get("run")
    if own is not None and own.is_scalar and _POSIX_FILES.search(own.value) is not None:
        return True
    steps = job.get("steps")
    items = steps.items if steps is not None and steps.is_seq else [step]
    if any(_on_runner_os(other) for other in items):
        return False  # (a step for one system only: the job may run on another, t74a)
    scripts = [
        run.value
        for other in items
        for run in (other.get("run") if other.is_map and other.get("shell") is None else None,)
        if run is not None and run.is_scalar
    ]
    if any("$env:GITHUB_" in script for script in scripts):
        return False  # (a step names them as PowerShell does: the two disagree)
    return any(_POSIX_FILES.search(script) is not None for script in scripts)


def _on_runner_os(step: YNode) -> bool:
    """Whether a step runs only on some systems (`if: runner.os == 'Windows'`)."""
    condition = step.get("if") if step.is_map else None
    return condition is not None and "runner.os" in str(condition.value)


# the runner's files a step writes to, named as a POSIX shell names them (`$GITHUB_ENV`,
# `${GITHUB_OUTPUT}`; not PowerShell's `$env:GITHUB_ENV`, nor cmd's `%GITHUB_ENV%`)
_POSIX_FILES = lazy_compile(r"\$\{?GITHUB_(?:ENV|OUTPUT|PATH|STEP_SUMMARY|STATE)\b")


def _matrix_values(job: YNode, text: str) -> list[str]:
    """The labels a `runs-on` of `${{ matrix.NAME }}` may be: the job's matrix's values of
    NAME (its list, and the values its `include:` entries give), where each is written out;
    else the text as it is."""
    found = _MATRIX_LABEL.fullmatch(text.strip())
    strategy = job.get("strategy") if found else None
    matrix = strategy.get("matrix") if strategy is not None and strategy.is_map else None
    if found is None or matrix is None or not matrix.is_map:
        return [text]
    name = found.group(1)
    given = matrix.get(name)
    values = list(given.items) if given is not None and given.is_seq else []
    include = matrix.get("include")
    for entry in include.items if include is not None and include.is_seq else ():
        value = entry.get(name) if entry.is_map else None
        if value is not None:
            values.append(value)
    if not values or (given is not None and not given.is_seq):
        return [text]
    return [v.value if v.is_scalar else "${{" for v in values]


_MATRIX_LABEL = lazy_compile(r"\$\{\{\s*matrix\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}")


def _choices(root: YNode, text: str) -> list[str]:
    """The labels a `runs-on` of `${{ inputs.NAME }}` (or `github.event.inputs.NAME`) may be:
    the options of a `choice` input, where every trigger that declares it declares it so; else
    the text as it is."""
    found = _INPUT_LABEL.fullmatch(text.strip())
    on = root.get("on") if found is not None else None
    if found is None or on is None or not on.is_map:
        return [text]
    options: list[str] = []
    for _, trigger in on.pairs:
        inputs = trigger.get("inputs") if trigger.is_map else None
        spec = inputs.get(found.group(1)) if inputs is not None and inputs.is_map else None
        if spec is None:
            continue
        kind = spec.get("type") if spec.is_map else None
        given = spec.get("options") if spec.is_map else None
        if kind is None or kind.value != "choice" or given is None or not given.is_seq:
            return [text]
        options.extend(o.value if o.is_scalar else "${{" for o in given.items)
    return options or [text]


_INPUT_LABEL = lazy_compile(
    r"\$\{\{\s*(?:github\.event\.)?inputs\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}"
)


# a `${{ ... }}` expression, which the runner replaces in a `run:` script before the shell reads it
_EXPRESSION = lazy_compile(r"\$\{\{.*?\}\}", re.S)


@dataclass(frozen=True)
class StepScript:
    """A `run:` step's script, parsed as the shell reads it once the runner has put in each
    `${{ }}` expression's value: an expression is a variable's expansion as long as itself
    (`${{ inputs.tp }}` is `${_______________}`: a word, or a part of one, whose value is not
    known), so offsets in the script are offsets in the scalar's value."""

    source: SourceText  # the workflow's text
    run: YNode  # the `run:` scalar
    script: Script

    def at(self, offset: int) -> Span:
        """Where a character of the script (an offset in it) is in the workflow file."""
        return value_span(self.source, self.run, offset)

    def place(self, span: Span) -> Span:
        """Where a span of the script is in the workflow file."""
        starts = self.script.file.line_starts
        start = self.at(starts[span.line - 1] + span.column - 1)
        last = starts[span.end_line - 1] + span.end_column - 2  # (its last character)
        end = self.at(max(last, starts[span.line - 1] + span.column - 1))
        return Span(start.line, start.column, end.end_line, end.end_column)


def step_script(source: SourceText, run: YNode) -> StepScript | None:
    """A step's `run:` script (`StepScript`); None where the shell would not parse it."""
    script = parse_file(SourceText(source.path, step_text(run).encode()))
    return None if script.has_error else StepScript(source, run, script)


def step_text(run: YNode) -> str:
    """A `run:` script's text as the shell reads it, each `${{ }}` expression a variable's
    expansion as long as itself (`StepScript`)."""
    value = run.value
    pieces = []
    end = 0
    for piece in embedded(value) if "${{" in value else ():
        if not piece.closed:
            break
        start, stop = piece.start - 3, piece.start + len(piece.text) + 2
        pieces += [value[end:start], "${" + "_" * (stop - start - 3) + "}"]
        end = stop
    return "".join([*pieces, value[end:]]) if pieces else value


def step_runs(job: YNode, step: YNode) -> list[YNode]:
    """A step's `run:` scripts: its `run:` scalar; where that is wholly one
    `${{ matrix.NAME.FIELD }}` expression, the scripts the job's matrix writes out for it (its
    list's and its `include:` entries' values), which the runner runs one per job. A matrix
    that does not write out each value (an expression, a mapping), or a step whose `if:` reads
    the matrix (only some rows run it), leaves the `run:` scalar as it is: a word whose value
    is not known."""
    run = step.get("run") if step.is_map else None
    if run is None or not run.is_scalar:
        return []
    condition = step.get("if")
    if condition is not None and "matrix." in str(condition.value):
        return [run]  # (which rows run the step is not read: t74a)
    found = _MATRIX_PATH.fullmatch(run.value.strip())
    values = _matrix_cells(job, found.group(1).split(".")) if found is not None else None
    return values if values else [run]


def _matrix_cells(job: YNode, path: list[str]) -> list[YNode] | None:
    """The scalars a `${{ matrix.PATH }}` expression is in each of the job's matrix rows (a row
    without it gives the empty string: none); None where one is not written out."""
    strategy = job.get("strategy")
    matrix = strategy.get("matrix") if strategy is not None and strategy.is_map else None
    if matrix is None or not matrix.is_map:
        return None
    name, rest = path[0], path[1:]
    given = matrix.get(name)
    if given is not None and not given.is_seq:
        return None
    include, exclude = matrix.get("include"), matrix.get("exclude")
    if exclude is not None and (
        not exclude.is_seq or any(not e.is_map or e.get(name) is not None for e in exclude.items)
    ):
        return None  # (which rows it takes out is not read)
    if include is not None and not include.is_seq:
        return None
    rows: list[YNode | None] = [*(given.items if given is not None else ())]
    rows += [e.get(name) for e in (include.items if include is not None else ()) if e.is_map]
    cells = []
    for row in rows:
        cell = row
        for key in rest:
            if cell is None:
                break
            if not cell.is_map:
                return None
            cell = cell.get(key)
        if cell is not None:
            if not cell.is_scalar:
                return None
            cells.append(cell)
    return cells


_MATRIX_PATH = lazy_compile(
    r"\$\{\{\s*matrix\.([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*)\s*\}\}"
)


def step_shell(root: YNode, job: YNode, step: YNode) -> str | None:
    """The program a `run:` step's `shell:` names (the step's, else the job's or the workflow's
    `defaults.run.shell`: `sh` of `sh -e {0}`); None where none is given."""
    for holder in (step.get("shell"), _default_shell(job), _default_shell(root)):
        if holder is not None:
            words = holder.value.split() if holder.is_scalar else []
            return posixpath.basename(words[0]) if words else ""
    return None


def runs_in_bash(root: YNode, job: YNode, step: YNode) -> bool:
    """Whether a `run:` step surely runs in bash: in a POSIX shell (`runs_in_posix_shell`)
    whose `shell:` is bash or not given (a Linux or macOS runner's default)."""
    if not runs_in_posix_shell(root, job, step):
        return False
    for holder in (step.get("shell"), _default_shell(job), _default_shell(root)):
        if holder is not None:
            words = holder.value.split() if holder.is_scalar else []
            return bool(words) and posixpath.basename(words[0]) == "bash"
    return True


def step_folder(root: YNode, job: YNode, step: YNode) -> str | None:
    """The repository folder a `run:` step runs in ("" the root): its `working-directory`,
    else its job's default, else the workflow's, inside the folder the job checks the
    repository out to (`actions/checkout` with `path: src`: the workspace's `src/` is the
    root); None where that is not a plain path, or is outside the checkout."""
    given = step.get("working-directory")
    for holder in (job, root) if given is None else ():
        defaults = holder.get("defaults")
        run = defaults.get("run") if defaults is not None and defaults.is_map else None
        given = run.get("working-directory") if run is not None and run.is_map else None
        if given is not None:
            break
    checkout = checkout_path(job)
    if given is None:
        return "" if checkout == "" else None  # (the workspace: above a checkout's `path:`)
    value = given.value if given.is_scalar else None
    if isinstance(value, str):  # (`${{ github.workspace }}/bench`: the workspace's `bench`)
        value = _WORKSPACE.sub(".", value.strip(), count=1)
    if not isinstance(value, str) or not _PLAIN_FOLDER.fullmatch(value) or checkout is None:
        return None
    folder = plain_folder(value)
    if folder is None:
        return None  # (`..`: above the workspace)
    if not checkout:
        return folder
    if folder == checkout or folder.startswith(checkout + "/"):
        return folder[len(checkout) + 1 :]  # (in the checkout: its folder)
    return None  # (outside the checkout: no folder of the repository)


def checkout_prefix(root: YNode, job: YNode, step: YNode) -> str:
    """The folder of the workspace the job checks the repository out to (`path: src`), where
    the step runs in the workspace itself (no `working-directory`): a path there names a file
    of the repository only below it (`src/tools/x.py` is `tools/x.py`). "" otherwise."""
    checkout = checkout_path(job)
    if not checkout or step.get("working-directory") is not None:
        return ""
    for holder in (job, root):
        defaults = holder.get("defaults")
        run = defaults.get("run") if defaults is not None and defaults.is_map else None
        if run is not None and run.is_map and run.get("working-directory") is not None:
            return ""
    return checkout


def checkout_path(job: YNode) -> str | None:
    """Where in the workspace the job checks this repository out: "" (the workspace itself,
    `actions/checkout` with no `path:`, or no checkout step), the folder its `path:` names, or
    None where that is not a plain folder (an expression)."""
    steps = job.get("steps")
    for step in steps.items if steps is not None and steps.is_seq else ():
        uses = step.get("uses") if step.is_map else None
        if uses is None or not uses.is_scalar or not str(uses.value).startswith("actions/checkout"):
            continue
        given = step.get("with")
        if given is None or not given.is_map or given.get("repository") is not None:
            continue  # (another repository's checkout, or this one's at the workspace)
        path = given.get("path")
        if path is None:
            return ""
        value = str(path.value).strip() if path.is_scalar else ""
        if not _PLAIN_FOLDER.fullmatch(value):
            return None
        return plain_folder(value)
    return ""


# a folder written out (`.github/scripts`, `./bench`, `.`)
_PLAIN_FOLDER = lazy_compile(r"[A-Za-z0-9_./][A-Za-z0-9_./-]*")


def plain_folder(value: str) -> str | None:
    """The folder a plain relative path names from where it is taken ("" that folder itself:
    `.`, `./`; `.github/scripts` keeps its dot, h82 W1); None for one above it (`..`)."""
    folder = posixpath.normpath(value)
    if folder == ".." or folder.startswith(("../", "/")):
        return None
    return "" if folder == "." else folder


# the checkout's folder, as a step names it
_WORKSPACE = lazy_compile(r"^\$\{\{\s*github\.workspace\s*\}\}")


def launch_lines(ws: Workspace, workflows: list[str]) -> list[tuple[Location, str]]:
    """Every run line of these workflows that starts a launcher, with where it is (not one
    that prints, lists or tests its path: `echo "Script filepath: ./runners/launch_x.sh"`)."""
    return [(location, line) for location, line, _ in launch_lines_in(ws, workflows)]


def launch_lines_in(
    ws: Workspace, workflows: list[str], runs: Callable[[str], bool] | None = None
) -> list[tuple[Location, str, str]]:
    """`launch_lines`, each with the folder of the checkout its step runs in: its
    `working-directory`, else its job's or its workflow's `defaults.run.working-directory`
    ("" for the checkout's root; "?" for one not known: an expression, a path outside it).
    `runs` tells a line that starts a launcher (default: one the workflow launch pattern
    matches)."""
    runs = _runs_launcher if runs is None else runs
    found = []
    for path in ws.glob(workflows):
        document = ws.yaml(path)
        root = document.root if document is not None else None
        for _, job, steps in job_steps(root):
            default = _working_directory(job, root)
            for step in steps:
                run = step.get("run")
                if run is None or not run.is_scalar:
                    continue
                folder = _step_folder(step.get("working-directory"), default)
                first = run.span.line + (1 if run.style in ("|", ">") else 0)
                for offset, line in enumerate(run.value.split("\n")):
                    if runs(line):
                        span = Span(first + offset, 1, first + offset, 1)
                        found.append((Location(path, span), line, folder))
    return found


def _working_directory(job: YNode, root: YNode | None) -> YNode | None:
    """The `defaults.run.working-directory` a job's steps start in (the job's, else the
    workflow's)."""
    for holder in (job, root):
        defaults = holder.get("defaults") if holder is not None and holder.is_map else None
        run = defaults.get("run") if defaults is not None and defaults.is_map else None
        folder = run.get("working-directory") if run is not None and run.is_map else None
        if folder is not None:
            return folder
    return None


def _step_folder(own: YNode | None, default: YNode | None) -> str:
    """A step's working folder relative to the checkout ("" for its root; "?" for one not
    known: an expression gives it, or it is outside the checkout)."""
    node = own if own is not None else default
    if node is None:
        return ""
    if not node.is_scalar or "${{" in str(node.value):
        return "?"
    value = str(node.value).strip()
    for prefix in ("$GITHUB_WORKSPACE", "${GITHUB_WORKSPACE}", "./"):
        value = value.removeprefix(prefix).lstrip("/") if value.startswith(prefix) else value
    return "" if value in ("", ".") else "?" if value.startswith(("/", "$", "~")) else value


def _env_of(document: YamlDocument, node: YNode | None) -> dict[str, Location]:
    if node is None or not node.is_map:
        return {}
    return {key.value: Location(document.path, key.span) for key, _ in node.pairs if key.is_scalar}


def _values_of(node: YNode | None) -> dict[str, str]:
    if node is None or not node.is_map:
        return {}
    return {k.value: v.value for k, v in node.pairs if k.is_scalar and v.is_scalar}


def input_types(root: YNode) -> dict[str, str]:
    """`on.workflow_call.inputs` and `on.workflow_dispatch.inputs`: each input's declared type
    (a dispatch input's is `string` unless said); an input the two triggers type differently is
    left out (its kind depends on how the run started)."""
    on = root.get("on")
    types: dict[str, str] = {}
    clashes: set[str] = set()
    for trigger in ("workflow_call", "workflow_dispatch"):
        declared = on.get(trigger) if on is not None and on.is_map else None
        inputs = declared.get("inputs") if declared is not None and declared.is_map else None
        for key, spec in inputs.pairs if inputs is not None and inputs.is_map else []:
            if not key.is_scalar:
                continue
            kind = spec.get("type") if spec.is_map else None
            if kind is not None and kind.is_scalar:
                name = kind.value
            elif trigger == "workflow_dispatch":
                name = "string"
            else:
                continue
            if types.setdefault(key.value, name) != name:
                clashes.add(key.value)
    return {k: v for k, v in types.items() if k not in clashes}


def _steps_of(document: YamlDocument, root: YNode, ws: Workspace) -> list[LauncherStep]:
    found: list[LauncherStep] = []
    workflow_env = _env_of(document, root.get("env"))
    declared = input_types(root)
    for job_key, job, items in job_steps(root):
        job_env = _job_env(document, job)
        for index, step in enumerate(items):
            run = step.get("run")
            if run is None or not run.is_scalar or not _LAUNCH.search(run.value):
                continue
            location = Location(document.path, run.span.start)
            env = {**workflow_env, **job_env, **_env_of(document, step.get("env"))}
            values = {
                **_values_of(root.get("env")),
                **_values_of(job.get("env")),
                **_values_of(step.get("env")),
            }
            launcher = LauncherStep(
                document.path, job_key.value, location, env, False, values, declared
            )
            runs_on = job.get("runs-on")
            launcher.runs_on = runs_on.value if runs_on is not None and runs_on.is_scalar else None
            launcher.input_defaults = _input_defaults(root)
            launcher.matrix_inputs = _matrix_inputs(job)
            _read_run_text(launcher, run.value, location)
            # (the step's own `env:` is set over what GITHUB_ENV holds)
            launcher.written = frozenset(
                name
                for earlier in items[:index]
                for name in env_file_writes(earlier, ws)
                if name not in _env_of(document, step.get("env"))
            )
            nonempty = _nonempty_values(values, job, _dispatch_choices(root))
            launcher.nonempty = nonempty - launcher.written - launcher.run_names
            found.append(launcher)
    return found


NULL = frozenset({"", "~", "null", "Null", "NULL"})  # (YAML's null: an empty value)


def _nonempty_values(
    values: dict[str, str], job: YNode, choices: frozenset[str] = frozenset()
) -> frozenset[str]:
    """The names whose `env:` value is not empty on any run of the job: a literal that is not
    empty, `${{ matrix.x }}` where the job's matrix lists only such literals for x (and no
    `include`, which may add a row without it; other axes may be expressions), or one of the
    `choices` inputs alone (`${{ inputs.x }}`, `${{ github.event.inputs.x }}`)."""
    strategy = job.get("strategy")
    matrix = strategy.get("matrix") if strategy is not None and strategy.is_map else None
    found = set()
    for name, text in values.items():
        if "${{" not in text:
            if text not in NULL:
                found.add(name)
            continue
        given = _EVENT_INPUT.fullmatch(text.strip())
        if given is not None and given.group(1) in choices:
            found.add(name)
            continue
        cell = _MATRIX_PASSED.fullmatch(text.strip())
        if cell is None or matrix is None or not matrix.is_map or matrix.get("include"):
            continue
        axis = matrix.get(cell.group(1))
        items = axis.items if axis is not None and axis.is_seq else []
        literal = [i.value for i in items if i.is_scalar and "${{" not in i.value]
        if items and len(literal) == len(items) and NULL.isdisjoint(literal):
            found.add(name)
    return frozenset(found)


# an input alone, as a dispatch gives it: `${{ inputs.x }}`, `${{ github.event.inputs.x }}`
_EVENT_INPUT = lazy_compile(
    r"\$\{\{\s*(?:github\.event\.)?inputs\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}"
)


def _dispatch_choices(root: YNode) -> frozenset[str]:
    """The inputs of a workflow only a dispatch starts (no call, push or schedule, whose runs
    have no inputs) that cannot be empty: a `choice` among options none of which is, or a
    `boolean` (`true` or `false`)."""
    on = root.get("on")
    if on is None or not (
        (on.is_scalar and on.value == "workflow_dispatch")
        or (on.is_seq and [i.value for i in on.items] == ["workflow_dispatch"])
        or (on.is_map and [k.value for k, _ in on.pairs] == ["workflow_dispatch"])
    ):
        return frozenset()
    dispatch = on.get("workflow_dispatch") if on.is_map else None
    inputs = dispatch.get("inputs") if dispatch is not None and dispatch.is_map else None
    found = set()
    for key, spec in inputs.pairs if inputs is not None and inputs.is_map else []:
        kind = spec.get("type") if spec.is_map else None
        if kind is None or not kind.is_scalar:
            continue
        if kind.value == "boolean":
            found.add(key.value)
        options = spec.get("options") if kind.value == "choice" else None
        items = options.items if options is not None and options.is_seq else []
        if items and all(i.is_scalar and i.value.strip() not in NULL for i in items):
            found.add(key.value)
    return frozenset(found)


def _matrix_inputs(job: YNode) -> dict[str, str]:
    strategy = job.get("strategy")
    matrix = strategy.get("matrix") if strategy is not None and strategy.is_map else None
    if matrix is None or not matrix.is_map or matrix.get("include") is not None:
        return {}
    found = {}
    for key, value in matrix.pairs:
        given = _FROM_JSON_INPUT.fullmatch(value.value.strip()) if value.is_scalar else None
        if key.is_scalar and given is not None:
            found[key.value] = given.group(1)
    return found


_FROM_JSON_INPUT = lazy_compile(
    r"\$\{\{\s*fromjson\(\s*inputs\.([A-Za-z_][A-Za-z0-9_-]*)\s*\)\s*\}\}", re.IGNORECASE
)


def nonempty_from_call(
    step: LauncherStep, inputs: dict[str, str], kept: frozenset[str] = frozenset()
) -> frozenset[str]:
    """The step's `env:` names whose value is an input alone (`MODEL: ${{ inputs.model }}`)
    that a call gives as a literal that is not empty (`with: {model: 'org/model'}`, or the
    input's default where the call passes none), or a matrix value of an axis such an input
    lists (`TP: ${{ matrix.tp }}`, `tp: ${{ fromJson(inputs.tp-list) }}`, `tp-list: '[1, 2]'`):
    not empty on that call's runs. `inputs`: the call's known inputs (its entry's fields);
    `kept`: those not known that cannot be empty (a dispatch's choice passed on)."""
    found = set()
    for name, text in step.values.items():
        passed = _PASSED.fullmatch(text.strip())
        value = inputs.get(passed.group(1)) if passed is not None else None
        if value is not None and value.strip() not in NULL and "${{" not in value:
            found.add(name)
        if passed is not None and passed.group(1) in kept:
            found.add(name)
        cell = _MATRIX_PASSED.fullmatch(text.strip())
        listed = step.matrix_inputs.get(cell.group(1)) if cell is not None else None
        if listed is not None and _nonempty_list(inputs.get(listed)):
            found.add(name)
    return frozenset(found) - step.written - step.run_names


def nonempty_from_entry(step: LauncherStep, given: dict[str, str]) -> frozenset[str]:
    """The step's `env:` names an expression sets (`MODEL: ${{ inputs.model }}`) that a
    master config's entry or search-space element gives a value that is not empty on its
    route (`given`: the values the route's conditions know, `ConditionEnv.known`: the sweep
    passes the entry's `model:` on): not empty on that route's runs."""
    found = {
        name
        for name, text in step.values.items()
        if "${{" in text and given.get(name, "").strip() not in NULL
    }
    return frozenset(found) - step.written - step.run_names


def typed_from_sweep(step: LauncherStep, multinode: bool) -> frozenset[str]:
    """The step's `env:` names that are an input alone (`TP: ${{ inputs.tp }}`) of a field
    the sweep's validation types as a number or a boolean and passes by its name to entries of
    that kind (profile's sweep_typed_fields): not empty on a master config's entry's routes."""
    typed = profile.SWEEP_TYPED_FIELDS[multinode]
    found = set()
    for name, text in step.values.items():
        passed = _PASSED.fullmatch(text.strip())
        if passed is not None and passed.group(1).lower() in typed:
            found.add(name)
    return frozenset(found) - step.written - step.run_names


def _nonempty_list(text: str | None) -> bool:
    """Whether a JSON text is a list of values none of which is empty (`[1, 2]`)."""
    try:
        items = json.loads(text) if text is not None else None
    except ValueError:
        return False
    return (
        isinstance(items, list)
        and bool(items)
        and all(i is not None and str(i).strip() not in NULL for i in items)
    )


def _read_run_text(step: LauncherStep, text: str, location: Location) -> None:
    """The names the step's `run:` text sets before it starts the launcher (`export X=1`,
    `X=1; export X`, `declare -x X=1`, `X=1 bash ./runners/launch_...`): each set, its value
    not known."""
    for line in text.splitlines():
        launch = _LAUNCH.search(line)
        if re.match(r"^\s*export\s+\$\{\{", line):
            continue  # the entries' additional-settings, modelled per route by the wiring
        for name in _ASSIGNED.findall(line[: launch.start()] if launch else line):
            step.env.setdefault(name, location)
            step.run_names.add(name)
        match = _EXPORT.match(line)
        if match:
            step.multinode = step.multinode or "IS_MULTINODE=true" in match.group(1)
        if launch:
            step.launch_args = _launch_args(line, launch.start())
            break


# an argument of a launch line: one expression (quoted or not) or a plain word; the end of the
# command (a `;`, `&&`, `|`, a redirection, a comment)
_ARG = lazy_compile(
    r"""\s+(?:"(\$\{\{[^}]*\}\})"|(\$\{\{[^}]*\}\})|([A-Za-z0-9_./:=@+-]+))(?=\s|$)"""
)
_COMMAND_END = lazy_compile(r"\s*(?:[;&|<>#]|$)")


def _launch_args(line: str, start: int) -> tuple[str | None, ...] | None:
    """The launcher's arguments on its launch line (after the word that starts at `start`);
    None when the line goes on in a way not read here (a quoted word with spaces, `"$@"`)."""
    word = re.compile(r"\S+").match(line, start)
    position = word.end() if word is not None else len(line)
    args: list[str | None] = []
    while not _COMMAND_END.match(line, position):
        match = _ARG.match(line, position)
        if match is None:
            return None
        args.append(next(g for g in match.groups() if g is not None))
        position = match.end()
    return tuple(args)


def env_names(node: YNode | None) -> set[str] | None:
    """The names a workflow's, a job's or a step's `env:` mapping sets (none without one); None
    when it is not a mapping (an expression gives it: which names is not known)."""
    env = node.get("env") if node is not None and node.is_map else None
    if env is None:
        return set()
    if not env.is_map:
        return None
    return {k.value for k, _ in env.pairs if k.is_scalar and isinstance(k.value, str)}


def needs_items(job: YNode) -> list[YNode]:
    """The scalar items of a job's `needs:` (one name, or a list of them)."""
    needs = job.get("needs") if job.is_map else None
    items = [needs] if needs is not None and needs.is_scalar else []
    if needs is not None and needs.is_seq:
        items = [item for item in needs.items if item.is_scalar]
    return items


def env_file_writes(step: YNode, ws: Workspace, depth: int = 0) -> set[str]:
    """The names a step may write to `GITHUB_ENV` for the job's later steps: in a `run:` text
    that names it (`echo "X=1" >> "$GITHUB_ENV"`, `tee -a`, `printf`, a `NAME<<EOF` block),
    every name it assigns or writes, and the arguments a `printf` on a line that writes there
    puts before `=` or `<<` (`printf '%s=%s\n' X 1`), and the same in the steps of a composite
    action of the repository it uses (`uses: ./.github/actions/setup`)."""
    names: set[str] = set()
    text = _run_text(step)
    if "GITHUB_ENV" in text or "github.env" in text:
        names.update(_ASSIGNED.findall(text))
        names.update(_AFTER_LINE_BREAK.findall(text))  # (`printf 'A=%s\nB=%s\n'`: h135 F3)
        names.update(_HEREDOC_NAME.findall(text))
        for line in text.splitlines():
            if "GITHUB_ENV" in line or "github.env" in line:  # (a printf written there)
                names.update(_printf_names(line))
    uses = step.get("uses") if step.is_map else None
    if uses is not None and uses.is_scalar and uses.value.startswith("./") and depth < 3:
        folder = uses.value[2:].rstrip("/")
        for path in ws.glob([f"{folder}/action.yml", f"{folder}/action.yaml"]):
            document = ws.yaml(path)
            root = document.root if document is not None else None
            runs = root.get("runs") if root is not None and root.is_map else None
            steps = runs.get("steps") if runs is not None and runs.is_map else None
            for inner in steps.items if steps is not None and steps.is_seq else []:
                names |= env_file_writes(inner, ws, depth + 1)
    return names


def _call_input_specs(root: YNode) -> list[tuple[str, YNode]]:
    """The `workflow_call` inputs a workflow declares, each with its specification (a
    mapping, `type`, `required`, `default`, where one is written)."""
    on = root.get("on")
    call = on.get("workflow_call") if on is not None and on.is_map else None
    inputs = call.get("inputs") if call is not None and call.is_map else None
    pairs = inputs.pairs if inputs is not None and inputs.is_map else []
    return [(key.value, spec) for key, spec in pairs if key.is_scalar]


def _input_defaults(root: YNode) -> dict[str, str]:
    """The `default:` of each `workflow_call` input that has one (a scalar), as text."""
    defaults: dict[str, str] = {}
    for name, spec in _call_input_specs(root):
        default = spec.get("default") if spec.is_map else None
        if default is not None and default.is_scalar and "${{" not in default.value:
            defaults[name] = default.value
    return defaults


# -- calls of the repository's reusable workflows ------------------------------------------------
# `uses: ./.github/workflows/benchmark-tmpl.yml`: a job that runs a workflow of the repository
_LOCAL_WORKFLOW = lazy_compile(r"\./(\.github/workflows/[^@\s]+\.ya?ml)")
# how many callers up a value passed as `${{ inputs.x }}` is followed
_CALL_DEPTH = 3


@dataclass(eq=False)
class WorkflowCall:
    """A job that runs a reusable workflow of the repository (`uses: ./.github/workflows/x.yml`)
    and the inputs it passes (`with:`), as far as they are known: a literal value; a value one
    expression gives that reads only the calling workflow's own inputs, where the jobs that call
    that workflow pass them (followed up to three callers: `exp-name: ${{ inputs.exp-name }}`
    in a model's template, `exp-name: 'dsr1_1k1k'` in the sweep that calls it). A workflow that
    something else can start too (a schedule, a dispatch, a push) is also run with its inputs not
    known; one only another workflow can start, and none of the repository does, never runs. A
    string passed on (`${{ inputs.exp-name }}`) stays a string. One call per set of inputs it
    can be run with, and per row of its matrix (`_matrix_rows`: `${{ matrix.runner }}`)."""

    path: str  # the calling workflow
    job: str
    location: Location  # the job's key
    called: str  # the workflow it runs
    inputs: dict[str, str]  # each known input's value, as text
    quoted: frozenset[str]  # the known inputs written quoted (strings, whatever they say)
    where: dict[str, Location]  # where each known value is written
    unknown: frozenset[str]  # the inputs passed whose value is not known
    via: str = ""  # the job that called the calling workflow with these inputs (if one did)
    # of those, the ones that cannot be empty: a choice (or boolean) of a workflow only a
    # dispatch starts, passed on (`model: ${{ inputs.model }}`), or a value with text around
    # its expressions (`org/${{ inputs.model }}`)
    nonempty: frozenset[str] = frozenset()
    # the job's `if:`, where it surely holds for these inputs (a guard meant to skip them that
    # does not: `inputs.isl == '1k'` for an isl of 1024)
    condition: Location | None = None

    @property
    def name(self) -> str:
        return f"{self.job} (called by {self.via})" if self.via else self.job


# one set of a workflow's inputs: values, those written quoted, where each is written, the job
# that passed them ("" where the workflow was started otherwise), those it passed whose value
# is not known, and those of them that cannot be empty
_Inputs = tuple[
    dict[str, str], frozenset[str], dict[str, Location], str, frozenset[str], frozenset[str]
]


def workflow_calls(ws: Workspace) -> list[WorkflowCall]:
    """Every call of a reusable workflow of the repository, once per set of inputs it can be run
    with (see WorkflowCall), in workflow and job order."""
    roots: dict[str, YNode] = {}
    # (only the workflows that call one of the repository's, and those they call, are parsed:
    # a file whose text names none calls none)
    paths = ws.glob([*ws.layout.workflows, *WORKFLOWS])
    wanted: set[str] = set()
    for path in paths:
        source = ws.source(path)
        if source is not None and "./.github/workflows/" in source.text:
            wanted.add(path)
            wanted.update(_LOCAL_WORKFLOW.findall(source.text))
    for path in paths:
        if path not in wanted:
            continue
        document = ws.yaml(path)
        if document is not None and document.root is not None and document.root.is_map:
            roots[path] = document.root
    jobs: dict[str, list[tuple[YNode, YNode, str]]] = {}
    for path, root in roots.items():
        for key, job, _ in job_steps(root):
            uses = job.get("uses")
            match = _LOCAL_WORKFLOW.fullmatch(uses.value.strip()) if _scalar(uses) else None
            if match is not None and match.group(1) in roots and key.is_scalar:
                jobs.setdefault(path, []).append((key, job, match.group(1)))
    # (a job name two workflows have, `benchmark-gb200` in two sweeps: each call named with its
    # workflow, not counted as one)
    paths_of: dict[str, set[str]] = {}
    for path, calls in jobs.items():
        for key, _, _ in calls:
            paths_of.setdefault(key.value, set()).add(path)
    callers: dict[str, list[str]] = {}
    for path, calls in jobs.items():
        for _, _, called in calls:
            if path not in callers.setdefault(called, []):
                callers[called].append(path)

    def runs_with(path: str, depth: int) -> list[_Inputs]:
        """The sets of inputs the workflow can be run with."""
        found: list[_Inputs] = []
        # (a workflow only another can start, and none of the repository does, never runs)
        if not _only_called(roots[path]) or (callers.get(path) and depth >= _CALL_DEPTH):
            # its inputs not known (a dispatch's choices not empty)
            found.append(({}, frozenset(), {}, "", frozenset(), _dispatch_choices(roots[path])))
        if depth < _CALL_DEPTH:
            for caller in callers.get(path, ()):
                found += [
                    (c.inputs, c.quoted, c.where, c.job, c.unknown, c.nonempty)
                    for c in calls_in(caller, depth + 1)
                    if c.called == path
                ]
        return found

    def calls_in(path: str, depth: int) -> list[WorkflowCall]:
        found: list[WorkflowCall] = []
        seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
        types, defaults = input_types(roots[path]), _input_defaults(roots[path])
        for values, quoted, where, via, unknown, nonempty in runs_with(path, depth):
            if via:  # an input the calling job does not pass has its default
                values = {**{k: v for k, v in defaults.items() if k not in unknown}, **values}
            typed = typed_inputs(values, types, quoted)
            for key, job, called in jobs.get(path, ()):
                condition = job.get("if")
                if _scalar(condition) and _never(condition.value, typed, types):
                    continue  # (`if: ${{ inputs.use_h200 }}` where the caller passes false)
                holds = _scalar(condition) and _surely_holds(condition.value, typed, types)
                for row in _matrix_rows(job, path):
                    call = _call(path, key, job, called, typed, where, row, nonempty)
                    call.via = via
                    if holds and condition is not None:
                        call.condition = Location(path, condition.span)
                    if len(paths_of[key.value]) > 1:
                        call.job += f" of {posixpath.basename(path)}"
                    identity = (key.value, tuple(sorted(call.inputs.items())))
                    if identity not in seen:
                        seen.add(identity)
                        found.append(call)
        return found

    return [call for path in roots for call in calls_in(path, 0)]


def _call(
    path: str,
    key: YNode,
    job: YNode,
    called: str,
    typed: dict[str, Value],
    where: dict[str, Location],
    row: dict[str, tuple[str, Location, bool]],
    nonempty: frozenset[str] = frozenset(),
) -> WorkflowCall:
    """One job's call, its `with:` values worked out for one set of its workflow's inputs and
    one row of its matrix (`row`: each `matrix.x` or `matrix.x.y` value, where it is written,
    and whether it is quoted)."""
    given = job.get("with")
    values: dict[str, str] = {}
    quoted: set[str] = set()
    located: dict[str, Location] = {}
    unknown: set[str] = set()
    kept: set[str] = set()  # of the unknown, those passed on from an input not empty
    for name, node in given.pairs if given is not None and given.is_map else []:
        if not name.is_scalar or not node.is_scalar:
            continue
        text = node.value
        if "${{" not in text:
            values[name.value] = text
            located[name.value] = Location(path, node.span)
            if node.style is not None:
                quoted.add(name.value)
            continue
        cell = _MATRIX_PASSED.fullmatch(text.strip())  # `${{ matrix.runner }}`
        if cell is not None and cell.group(1) in row:
            values[name.value], located[name.value], written_quoted = row[cell.group(1)]
            if written_quoted:
                quoted.add(name.value)
            continue
        result = _evaluated(text, typed)
        if result is None:
            unknown.add(name.value)
            alone = _EVENT_INPUT.fullmatch(text.strip())  # (a dispatch's choice passed on)
            around = _EXPRESSION.sub("", text).strip()  # (`org/${{ inputs.model }}`)
            if around or (alone is not None and alone.group(1) in nonempty):
                kept.add(name.value)
            continue
        values[name.value] = result
        passed = _PASSED.fullmatch(text.strip())  # `${{ inputs.runner }}`: where it was written
        if passed is not None and passed.group(1) in where:
            located[name.value] = where[passed.group(1)]
        else:
            located[name.value] = Location(path, node.span)
        if passed is not None and isinstance(typed.get(passed.group(1)), str):
            quoted.add(name.value)  # a string passed on is a string (`'70b_1k1k'`)
    label = ", ".join(v for k, (v, _, _) in row.items() if "." not in k)  # (`runner`, `config#`)
    return WorkflowCall(
        path,
        f"{key.value} [{label}]" if label else key.value,
        Location(path, key.span),
        called,
        values,
        frozenset(quoted),
        located,
        frozenset(unknown),
        nonempty=frozenset(kept),
    )


_PASSED = lazy_compile(r"\$\{\{\s*inputs\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}")
_MATRIX_PASSED = lazy_compile(
    r"\$\{\{\s*matrix\.([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)?)\s*\}\}"
)
# a job's matrix is expanded up to this many rows (a larger one: its values not known)
_MATRIX_ROWS = 64


def _matrix_rows(job: YNode, path: str) -> list[dict[str, tuple[str, Location, bool]]]:
    """The rows of a job's matrix written as lists of literal values (`runner: [h100-cr_0,
    h100-cw_0]`, `config: [{image: ..., model: ...}]`): each `matrix.x` (and `matrix.x.y` of a
    mapping) value, as text, with where it is and whether it is quoted. One empty row where
    there is no matrix, or it has `include`/`exclude`, an expression, or too many rows (its
    values then not known)."""
    strategy = job.get("strategy")
    matrix = strategy.get("matrix") if strategy is not None and strategy.is_map else None
    if matrix is None or not matrix.is_map:
        return [{}]
    axes: list[list[dict[str, tuple[str, Location, bool]]]] = []
    for key, values in matrix.pairs:
        if not key.is_scalar or key.value in ("include", "exclude") or not values.is_seq:
            return [{}]
        cells = []
        for index, item in enumerate(values.items):
            cell = _cell(key.value, item, path)
            if cell is None:
                return [{}]
            if item.is_map:  # (named in the entry's name by its place: `config 2`)
                cell[f"{key.value}#"] = (
                    f"{key.value} {index + 1}",
                    Location(path, item.span),
                    False,
                )
            cells.append(cell)
        axes.append(cells)
    count = 1
    for cells in axes:
        count *= len(cells)
    if count == 0 or count > _MATRIX_ROWS:
        return [{}]
    return [{k: v for cell in row for k, v in cell.items()} for row in itertools.product(*axes)]


def _cell(name: str, item: YNode, path: str) -> dict[str, tuple[str, Location, bool]] | None:
    """One value of a matrix axis: a scalar, or a mapping of scalars (`matrix.config.image`)."""
    if item.is_scalar and "${{" not in item.value:
        return {name: (item.value, Location(path, item.span), item.style is not None)}
    if not item.is_map:
        return None
    cell = {}
    for key, value in item.pairs:
        if key.is_scalar and value.is_scalar and "${{" not in value.value:
            located = Location(path, value.span)
            cell[f"{name}.{key.value}"] = (value.value, located, value.style is not None)
    return cell


def _evaluated(text: str, typed: dict[str, Value]) -> str | None:
    """A value one expression gives from known inputs; a literal as it is; None if not known."""
    return evaluate(text, typed) if "${{" in text else text


def _never(condition: str, typed: dict[str, Value], types: dict[str, str]) -> bool:
    """Whether a job's `if:` is false for these inputs, whatever value each boolean input not
    known has (`inputs.use_gb200 && !(inputs.isl == '1024' && ...)` is false for 1024 whatever
    use_gb200 is); not decided (False) where another input not known is read."""
    return _always_is(condition, typed, types, "false")


def _surely_holds(condition: str, typed: dict[str, Value], types: dict[str, str]) -> bool:
    """Whether a job's `if:` is true for these inputs, whatever value each boolean input not
    known has (as `_never` decides false)."""
    return _always_is(condition, typed, types, "true")


def _always_is(condition: str, typed: dict[str, Value], types: dict[str, str], value: str) -> bool:
    text = condition if "${{" in condition else "${{ " + condition + " }}"
    missing = [name for name in input_names(text) if name not in typed]
    if any(types.get(name) != "boolean" for name in missing) or len(missing) > 4:
        return False
    return all(
        evaluate(text, {**typed, **dict(zip(missing, values, strict=True))}) == value
        for values in itertools.product((False, True), repeat=len(missing))
    )


def _only_called(root: YNode) -> bool:
    """Whether the workflow is started only by another workflow (`on: workflow_call`)."""
    on = root.get("on")
    if on is None:
        return False
    if on.is_scalar:
        return on.value == "workflow_call"
    if on.is_seq:
        return [i.value for i in on.items if i.is_scalar] == ["workflow_call"]
    return on.is_map and [k.value for k, _ in on.pairs if k.is_scalar] == ["workflow_call"]


def never_started(ws: Workspace, path: str) -> bool:
    """Whether a workflow starts only when another calls it (`on: workflow_call`) and no
    workflow of the repository calls it (`uses: ./.github/workflows/x.yml`): none of its runs
    happens yet."""
    document = ws.yaml(path)
    root = document.root if document is not None else None
    if root is None or not root.is_map or not _only_called(root):
        return False
    for other in ws.glob(list(WORKFLOWS)):
        caller = ws.yaml(other)
        for _key, job, _ in job_steps(caller.root if caller is not None else None):
            uses = job.get("uses")
            if _scalar(uses) and uses.value.strip().removeprefix("./") == path:
                return False
    return True


def _scalar(node: YNode | None) -> TypeGuard[YNode]:
    return node is not None and node.is_scalar


def rejected_calls(ws: Workspace, paths: list[str]) -> list[tuple[Location, str, str]]:
    """In these workflows, what GitHub rejects in a call of a reusable workflow of the
    repository before any job of the calling workflow starts: a `uses: ./.github/workflows/x.yml`
    that names no file, one that is no reusable workflow (no `on: workflow_call`), an input
    (`with:`) the called workflow does not declare, and one it requires (with no default) that
    the call does not pass. Each with where it is, what is wrong and the subject."""
    found: list[tuple[Location, str, str]] = []
    for path in paths:
        document = ws.yaml(path)
        for _key, job, _ in job_steps(document.root if document is not None else None):
            uses = job.get("uses")
            if not _scalar(uses) or not uses.value.strip().startswith("./"):
                continue
            target = uses.value.strip()[2:]
            where = Location(path, uses.span)
            if not ws.is_yaml(target):
                if _LOCAL_WORKFLOW.fullmatch(uses.value.strip()) is not None:
                    found.append(
                        (where, f"`{uses.value}` names no workflow of the repository", target)
                    )
                continue
            called = ws.yaml(target)
            root = called.root if called is not None else None
            if root is None or not root.is_map:
                continue  # (BL001 says why it cannot be read)
            declared = _call_inputs(root)
            if declared is None:
                found.append(
                    (where, f"`{target}` is no reusable workflow (no `on: workflow_call`)", target)
                )
                continue
            given = job.get("with")
            passed = set()
            for name, _ in given.pairs if given is not None and given.is_map else []:
                if name.is_scalar and name.value not in declared:
                    found.append(
                        (
                            Location(path, name.span),
                            f"`{name.value}` is no input of `{target}` (it declares "
                            f"{_declared(declared)})",
                            f"{target}:{name.value}",
                        )
                    )
                passed.add(name.value)
            missing = sorted(_required_inputs(root) - passed)
            if missing:
                listed = ", ".join(f"`{n}`" for n in missing)
                found.append(
                    (
                        where,
                        f"`{target}` requires {listed}, which the job does not pass",
                        f"{target}:requires",
                    )
                )
    return found


def _call_inputs(root: YNode) -> frozenset[str] | None:
    """The inputs a reusable workflow declares (`on.workflow_call.inputs`); None when it has no
    `workflow_call` trigger."""
    on = root.get("on")
    if on is None:
        return None
    if on.is_scalar or on.is_seq:
        named = [on.value] if on.is_scalar else [i.value for i in on.items if i.is_scalar]
        return frozenset() if "workflow_call" in named else None
    if not on.is_map or not any(k.is_scalar and k.value == "workflow_call" for k, _ in on.pairs):
        return None
    return frozenset(name for name, _ in _call_input_specs(root))


def _required_inputs(root: YNode) -> frozenset[str]:
    """The inputs a reusable workflow requires (`required: true`) and gives no default."""
    return frozenset(
        name
        for name, spec in _call_input_specs(root)
        if spec.is_map
        and (flag := spec.get("required")) is not None
        and flag.scalar is True
        and spec.get("default") is None
    )


def _declared(names: frozenset[str]) -> str:
    listed = sorted(names)
    if not listed:
        return "none"
    return ", ".join(listed[:6]) + (f" and {len(listed) - 6} more" if len(listed) > 6 else "")
