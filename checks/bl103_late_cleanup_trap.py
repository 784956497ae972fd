"""A resource acquired before the `trap ... EXIT` that releases it, with a way out in between.

## What it does
Finds what a script acquires and must give back: a Slurm allocation (`salloc ... --no-shell`, a
job id captured from `sbatch`), a background server (`... &` whose `$!` is kept), a detached
container (`docker run -d`), a temporary directory (`mktemp -d`) the script later removes. It
reports one when the script can end (`exit N`, `return` at the top of a sourced file, a failing
command under `set -e`) after the acquisition and before a `trap ... EXIT` whose handler releases
it; when there is no such trap, it reports a release that something can skip (the release is
only a command near the end) and a Slurm allocation never released at all. Located at the
acquisition; the first uncovered exit path is a related location.

## Why is this bad?
The allocation outlives the script: 16 exclusive GPUs stay reserved until Slurm's time limit,
four hours in one case, while the next jobs queue behind them.

## Example
```bash path=runners/launch_example.sh
set -euo pipefail
JOB_ID=$(salloc --partition=gpu --exclusive --no-shell 2>&1 | grep -oP 'allocation \\K[0-9]+')
if ! srun --jobid="$JOB_ID" nvidia-smi; then
    exit 1
fi
trap 'scancel "$JOB_ID"' EXIT
```

## Use instead
```bash path=runners/launch_example.sh
set -euo pipefail
JOB_ID=$(salloc --partition=gpu --exclusive --no-shell 2>&1 | grep -oP 'allocation \\K[0-9]+')
trap 'scancel "$JOB_ID"' EXIT
if ! srun --jobid="$JOB_ID" nvidia-smi; then
    exit 1
fi
```

## Exceptions
An exit guarded by a test of the resource's own variable (`[ -z "$JOB_ID" ] && exit 1`: nothing
was acquired) and an exit preceded by an explicit release in the same branch are not exit paths
that leak. A trap set before the acquisition covers it when its handler releases it. Not
modelled: exits inside functions, `set -e` changed inside functions, traps in subshells (they do
not cover the outer script and are ignored), and a background process without `$!`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from benchlint.engine import Context
from benchlint.finding import Finding, Location, Severity
from benchlint.registry import rule
from benchlint.shell.flow import ExitPath, Flow
from benchlint.shell.model import Command, Script
from benchlint.workflow import cancels_runner_jobs


@dataclass
class Resource:
    what: str  # "Slurm allocation", ...
    acquired_by: Command  # the command that acquires (for the location)
    statement: Command  # the statement of the script's shell that runs it
    variable: str | None
    release: re.Pattern[str]  # a command text that releases it


_ACQUIRERS = frozenset({"salloc", "sbatch", "docker run", "podman run"})
_SLURM_RELEASE = re.compile(r"\bscancel\b")
_KILL = re.compile(r"\bkill\b|\bpkill\b")
_DOCKER_RELEASE = re.compile(r"\bdocker\s+(?:rm|stop|kill)\b")
_REMOVE = re.compile(r"\brm\s+-[a-zA-Z]*r")


def _assigned_name(statement: Command) -> str | None:
    return statement.assignments[0].name if statement.assignments and not statement.words else None


def _resources(flow: Flow) -> list[Resource]:
    script = flow.script
    found: list[Resource] = []
    for command in script.commands:
        invocation = command.invocation
        wrappers = {w.name: w for w in invocation.wrappers}
        base = invocation.base
        if not command.background and not (wrappers.keys() & _ACQUIRERS) and base != "mktemp":
            continue
        statement = flow.statement_of(command)
        if statement is None:
            continue
        variable = _assigned_name(statement)
        salloc = wrappers.get("salloc")
        container = wrappers.get("docker run") or wrappers.get("podman run")
        if salloc is not None and salloc.has("--no-shell"):
            found.append(Resource("Slurm allocation", command, statement, variable, _SLURM_RELEASE))
        elif "sbatch" in wrappers and variable is not None and statement is not command:
            found.append(Resource("Slurm batch job", command, statement, variable, _SLURM_RELEASE))
        elif container is not None and container.has("-d", "--detach"):
            found.append(
                Resource("detached container", command, statement, variable, _DOCKER_RELEASE)
            )
        elif base == "mktemp" and any(w.value == "-d" for w in invocation.args) and variable:
            remover = re.compile(rf"\brm\s+-[a-zA-Z]*r[a-zA-Z]*\b.*\${{?{variable}\b")
            if any(remover.search(script.text_of(s.node)) for s in flow.statements):
                found.append(Resource("temporary directory", command, statement, variable, _REMOVE))
        elif command.background and statement is command:
            index = flow.index(command)
            later = flow.statements[index + 1 : index + 4] if index is not None else []
            pid = next(
                (
                    s
                    for s in later
                    if any(a.value is not None and a.value.value == "$!" for a in s.assignments)
                ),
                None,
            )
            if pid is not None:
                name = next(a.name for a in pid.assignments if a.value is not None)
                found.append(Resource("background process", command, command, name, _KILL))
    return found


def _releases(resource: Resource, text: str) -> bool:
    if not resource.release.search(text):
        return False
    return resource.variable is None or re.search(rf"\${{?{resource.variable}\b", text) is not None


def _about_itself(resource: Resource, path: ExitPath) -> bool:
    """An exit taken only when the acquisition failed (`[ -z "$JOB_ID" ] && exit 1`)."""
    if resource.variable is None:
        return False
    script = path.command.script
    return any(
        read.name == resource.variable
        for guard in path.command.guards
        for read in guard.test_reads(script)
    )


def _released_before(flow: Flow, resource: Resource, path: ExitPath, start: int) -> bool:
    end = flow.index(path.command)
    if end is None:
        return False
    for command in flow.statements[start + 1 : end]:
        if command.guards == path.command.guards[: len(command.guards)] and _releases(
            resource, flow.script.text_of(command.node)
        ):
            return True
    return False


_SLURM = ("Slurm allocation", "Slurm batch job")
_HOST_ONLY = ("background process", "temporary directory")


def _check_script(
    script: Script, sourced: bool | Callable[[], bool]
) -> Iterator[tuple[Finding, Resource]]:
    flow = Flow(script, sourced)
    traps = [(i, t) for i, t in flow.traps() if t.on_exit]
    for resource in _resources(flow):
        start = flow.index(resource.statement)
        if start is None:
            continue
        covering = [(i, t) for i, t in traps if _releases(resource, t.action)]
        if any(i < start for i, _ in covering):
            continue
        trap_index = min((i for i, _ in covering), default=None)
        leaks = [
            p
            for p in flow.exits_between(start, trap_index)
            if p.command is not resource.statement
            and not _about_itself(resource, p)
            and not _released_before(flow, resource, p, start)
            and not _releases(resource, script.text_of(p.command.node))
        ]
        acquisition = resource.acquired_by
        span = acquisition.first_line_span
        location = Location(script.path, span)
        name = f"`{acquisition.name}`" if acquisition.name else "this command"
        if trap_index is not None and leaks:
            trap_line = flow.statements[trap_index].span.line
            first = leaks[0]
            yield (
                Finding(
                    "BL103",
                    f"the {resource.what} acquired by {name} leaks if the script ends at "
                    f"{first.describe()}, before the `trap ... EXIT` on line {trap_line} "
                    "releases it; register the trap right after the acquisition",
                    location,
                    related=(Location(script.path, first.command.first_line_span, "exit path"),),
                    subject=f"{resource.what}:{resource.variable}",
                ),
                resource,
            )
        elif trap_index is None:
            release = next(
                (
                    s
                    for s in flow.statements[start + 1 :]
                    if _releases(resource, script.text_of(s.node))
                ),
                None,
            )
            if release is None and resource.what != "Slurm allocation":
                continue
            if release is not None and not leaks:
                continue
            where = (
                f"only at line {release.span.line}, with no `trap ... EXIT`"
                if release is not None
                else "nowhere"
            )
            exit_note = f"; {leaks[0].describe()} ends the script first" if leaks else ""
            related = (
                (Location(script.path, leaks[0].command.first_line_span, "exit path"),)
                if leaks
                else ()
            )
            yield (
                Finding(
                    "BL103",
                    f"the {resource.what} acquired by {name} is released {where}{exit_note}: "
                    "it leaks on any early end; add `trap '...' EXIT` right after the acquisition",
                    location,
                    related=related,
                    subject=f"{resource.what}:{resource.variable}",
                ),
                resource,
            )


def _named_after_runner(command: Command) -> bool:
    """`salloc ... --job-name="$RUNNER_NAME"`: the workflow's cleanup step cancels it by name."""
    invocation = command.invocation
    for wrapper in (invocation.wrapper("salloc"), invocation.wrapper("sbatch")):
        if wrapper is not None and wrapper.option("-J", "--job-name") in (
            "$RUNNER_NAME",
            "${RUNNER_NAME}",
        ):
            return True
    return False


@rule("BL103", "late-cleanup-trap", Severity.WARNING, tags=("shell", "resources"))
def check(ctx: Context) -> Iterator[Finding]:
    calls = ctx.environment.calls
    if ctx.sees_everything:
        calls.callers  # noqa: B018 - one pass over every script answers is_sourced for all
    workflow_cleans = cancels_runner_jobs(ctx.ws)
    for path in ctx.in_scope(ctx.ws.shell_paths):
        script = ctx.ws.shell(path)
        if script is None:
            continue
        host = ctx.wiring.is_launcher(script.path)
        sourced = functools.partial(calls.is_sourced, path)
        for finding, resource in _check_script(script, sourced):
            if resource.what in _HOST_ONLY and not host:
                continue  # inside a job or container, the process ends with it
            if (
                workflow_cleans
                and resource.what in _SLURM
                and _named_after_runner(resource.acquired_by)
            ):
                continue
            yield finding
