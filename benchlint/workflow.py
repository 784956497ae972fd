"""GitHub Actions workflows that start launchers, and the environment each launcher inherits.

A step whose `run:` text runs `runners/launch_...` gives its launcher the workflow's, the job's
and the step's `env:` plus what the `run:` text exports before the launch line.
`export ${{ ... }}` (the master-config additional-settings) is modelled per route by the wiring.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from benchlint import profile
from benchlint.finding import Location, Span
from benchlint.workspace import Workspace
from benchlint.yamlmodel import YamlDocument, YNode

# a run line that starts a launcher: a `.sh` path built from the runner's name (any folder,
# the repository root included), or a fixed one under runners/
_LAUNCH = profile.WORKFLOW_LAUNCH
_EXPORT = re.compile(r"^\s*export\s+((?:[A-Za-z_][A-Za-z0-9_]*=\S*\s*)+)")
_ALL_WORKFLOWS = (".github/workflows/*.yml", ".github/workflows/*.yaml")
# a name a shell line assigns (`X=1`, `X+=a`, `export X=1`), not `--flag=1` or `$X==y`
_ASSIGNED = re.compile(r"(?<![\w$\-/.])([A-Za-z_][A-Za-z0-9_]*)\+?=(?!=)")
# `echo "NAME<<EOF" >> "$GITHUB_ENV"`: a multi-line value
_HEREDOC_NAME = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)<<")
# `printf '%s=%s\n' NAME "$VALUE" >> "$GITHUB_ENV"`: the name is an argument (the format and
# its arguments, up to the end of the command)
_PRINTF = re.compile(
    r"\bprintf\s+('[^']*'|\"[^\"]*\"|[^\s;|&<>]+)((?:[ \t]+(?:'[^']*'|\"[^\"]*\"|[^\s;|&<>]+))*)"
)
_ARGUMENT = re.compile(r"'([^']*)'|\"([^\"]*)\"|([^\s'\"]+)")
_CONVERSION = re.compile(r"%(?:%|[-+ #0]*\d*(?:\.\d*)?([a-zA-Z]))")


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
_RUNNER_NAMES = re.compile(
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
    for path in ws.glob([*ws.layout.workflows, *_ALL_WORKFLOWS]):
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
    for _, job, steps in _jobs(root):
        names.update(_job_env(document, job))
        for step in steps:
            names.update(_env_of(document, step.get("env")))
            names.update(_ASSIGNED.findall(_run_text(step)))
    return names


def _jobs(root: YNode | None) -> Iterator[tuple[YNode, YNode, list[YNode]]]:
    """A workflow's jobs (the mappings among them): each one's key, itself and its steps (the
    mappings among them)."""
    jobs = root.get("jobs") if root is not None and root.is_map else None
    for key, job in jobs.pairs if jobs is not None and jobs.is_map else []:
        if job.is_map:
            steps = job.get("steps")
            items = steps.items if steps is not None and steps.is_seq else []
            yield key, job, [step for step in items if step.is_map]


def _job_env(document: YamlDocument, job: YNode) -> dict[str, Location]:
    """The names a job's `env:` and its container's `env:` set (the container's over the
    job's)."""
    container = job.get("container")
    inner = container.get("env") if container is not None and container.is_map else None
    return {**_env_of(document, job.get("env")), **_env_of(document, inner)}


def launch_lines(ws: Workspace, workflows: list[str]) -> list[tuple[Location, str]]:
    """Every run line of these workflows that starts a launcher, with where it is."""
    found = []
    for path in ws.glob(workflows):
        document = ws.yaml(path)
        for _, _, steps in _jobs(document.root if document is not None else None):
            for step in steps:
                run = step.get("run")
                if run is None or not run.is_scalar:
                    continue
                first = run.span.line + (1 if run.style in ("|", ">") else 0)
                for offset, line in enumerate(run.value.split("\n")):
                    if _LAUNCH.search(line):
                        span = Span(first + offset, 1, first + offset, 1)
                        found.append((Location(path, span), line))
    return found


def _env_of(document: YamlDocument, node: YNode | None) -> dict[str, Location]:
    if node is None or not node.is_map:
        return {}
    return {key.value: Location(document.path, key.span) for key, _ in node.pairs if key.is_scalar}


def _values_of(node: YNode | None) -> dict[str, str]:
    if node is None or not node.is_map:
        return {}
    return {k.value: v.value for k, v in node.pairs if k.is_scalar and v.is_scalar}


def _input_types(root: YNode) -> dict[str, str]:
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
    input_types = _input_types(root)
    for job_key, job, items in _jobs(root):
        job_env = _job_env(document, job)
        for index, step in enumerate(items):
            run = step.get("run")
            if run is None or not run.is_scalar or not _LAUNCH.search(run.value):
                continue
            location = Location(document.path, _first_line(run.span))
            env = {**workflow_env, **job_env, **_env_of(document, step.get("env"))}
            values = {
                **_values_of(root.get("env")),
                **_values_of(job.get("env")),
                **_values_of(step.get("env")),
            }
            launcher = LauncherStep(
                document.path, job_key.value, location, env, False, values, input_types
            )
            _read_run_text(launcher, run.value, location)
            # (the step's own `env:` is set over what GITHUB_ENV holds)
            launcher.written = frozenset(
                name
                for earlier in items[:index]
                for name in _env_file_writes(earlier, ws)
                if name not in _env_of(document, step.get("env"))
            )
            found.append(launcher)
    return found


def _first_line(span: Span) -> Span:
    return Span(span.line, span.column, span.line, span.column + 1)


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
            break


def _env_file_writes(step: YNode, ws: Workspace, depth: int = 0) -> set[str]:
    """The names a step may write to `GITHUB_ENV` for the job's later steps: in a `run:` text
    that names it (`echo "X=1" >> "$GITHUB_ENV"`, `tee -a`, `printf`, a `NAME<<EOF` block),
    every name it assigns or writes, and the arguments a `printf` on a line that writes there
    puts before `=` or `<<` (`printf '%s=%s\n' X 1`), and the same in the steps of a composite
    action of the repository it uses (`uses: ./.github/actions/setup`)."""
    names: set[str] = set()
    text = _run_text(step)
    if "GITHUB_ENV" in text or "github.env" in text:
        names.update(_ASSIGNED.findall(text))
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
                names |= _env_file_writes(inner, ws, depth + 1)
    return names
