"""A resource acquired before the `trap ... EXIT` that releases it, with a way out in between.

## What it does
Finds what a script acquires and must give back: a Slurm allocation (`salloc ... --no-shell`, a job
id captured from `sbatch`, without `--wait`), a background server (`... &` whose `$!` is kept; one
whose `$!` is not, alone or at the head of a pipeline, `vllm serve ... | tee log &`, released by its
name or by what ends every job, or alone by a `kill $!` before another job (not one started in a
loop: that `$!` is the last pass's, `for i in 0 1; do vllm serve ... & done`); one a program's
`start` runs, `collect_metrics.sh start ... &`, also by that program's `stop`), a detached container
(`docker run -d`), a temporary directory (`mktemp -d`) the script later removes. It reports one when
the script can end (`exit N`, a call of a function of the script whose body can run `exit`, itself
or through another, `[ -f x ] || die "..."`, tested or not, `return` at the top of a sourced file, a
failing command under `set -e`, in a subshell too: `( cd bench && vllm bench ... )`, unless it runs
in the background) after the acquisition and before a `trap ... EXIT` whose handler releases it;
when there is no such trap, it reports a release that something can skip (the release is only a
command near the end), a Slurm allocation never released at all, and a program at the head of a
background pipeline whose `$!` (its last command's: `vllm serve ... | tee log &`) the script kills,
which signals `tee`, not the program (the pipeline at the top level or in a function; the kill after
it, or through a function given the PID, or of each PID an array holds, `for pid in "${PIDS[@]}"; do
kill "$pid"; done`), and an engine in a list, group, condition or loop sent to the background as a
whole (`cd /w && vllm serve ... &`) whose `$!`, the shell bash runs that statement in, the script
kills: the shell ends and the server goes on (bash 5.3 too; a subshell written as one too, `( cd /w
&& vllm serve ... > log 2>&1 ) &`, but not where the server is its last command, plain, with no
redirect, which bash 5.2 and later run in the subshell's place, nor `cd /w && exec vllm serve ...
&`); so does a server bash runs as the child of a job sent to the background alone (or of a list or
subshell sent whole): in a string the job `eval`s (`eval "$SERVER_CMD" > server.log 2>&1 &`), in a
function of the script whose definition in effect runs it in the foreground and `exec`s nothing
(`start_server &`, `( start_server ) &`), timed (`time vllm serve ... &`, GNU `time` too), or in a
`bash -c` string (`nohup bash -c` and `setsid bash -c` too; `"$CMD > server.log 2>&1"`, the string a
variable holds, as the writing shell expands it) where it has a redirect, a pipe, a loop, a command
after it or a trap before it (not one of SIGINT or SIGQUIT, which a background job ignores), in
an `if`, `case`, `{ }` or after `!`, or with any text after its line but one newline (a blank, a
blank line or a comment line; not the string's plain last command, which bash runs in its place);
the `$!` kept in a function's `local` too, or not kept where the script kills every job's first
process (`kill $(jobs -p)`, `jobs -p | xargs kill`, a variable the jobs were last given after it
started, `pids=$(jobs -pr); kill $pids`, `for pid in $(jobs -p)`) or the job by its number (`kill
%1`, `%%`; only where it sends nothing else to the background, and job control is off: under `set
-m` it signals the job's process group, the server too); not where a string the job runs `exec`s
anything, nor when a `wait` (itself or in a function given the PID; a plain `wait` for every job, or
`wait %1`) or a kill of the shell's children (`pkill -P`) comes before the kill, nor where the
script kills the server by its name too (`pkill -f "vllm serve"`, in a trap's handler as the shell
reads it) or its process group (`kill 0`). It also reports a background server whose `$!` is kept in
a variable alone that a later statement of the same shell, under the same conditions and outside a
loop, gives another value before anything releases it or keeps a copy (`vllm serve ... & PID=$!`, a
second server's `PID=$!`, then `kill $PID`): nothing can name the first one any more (not where the
script ends it by its name, every job, `kill %1` or its port, nor where it kills a process it finds
by a name or port in between, `P=$(pgrep tritonserver); kill $P`: a child the job waits for, whose
end may end it; not an array's elements, `pids[0]=$!` and `pids[1]=$!`; not `export PID` with no
value). Located at the acquisition (the engine); the first uncovered exit path, the kill, or the
statement that gives the variable another value, is a related location.

Scope: every script benchlint reads, launchers and entrypoints alike, for allocations, batch jobs,
containers and background servers; temporary directories only in launchers (inside a job or a
container they go with it). A release a background job makes after a `sleep` of its own (a
watchdog: `(sleep 600 && docker kill "$CID") &`) is no release before an exit: it comes that
much later; the finding notes it. A release inside a function counts where the function is called or
named as the trap's handler, also one that releases what the call passes it
(`stop_server "$PID"` with `stop_server() { local pid=$1; kill "$pid"; }`); so does an
acquisition: a server a function starts and keeps in a global
(`start_server() { vllm serve ... & SERVER_PID=$!; }`, the script's own or one of a file it
sources), or a container it runs detached under a global name (`docker run -d --name
"$NAME"`), is acquired where the script's shell first calls the function (a server the
script's own function starts under a condition on its arguments, at the first call whose
arguments may meet it: not `start_server ""` for one under `[[ -n "$1" ]]`; a server whose
`$!` it does not keep, or keeps in a `local`, gone when it returns, as one released only by
its program's name or what ends every job; a container's `local` name is not followed), and an
`exit` of the function's body after it ends the script with it held. What a
function the top level calls (or a function it calls: `main() { run_tests; }`; of a library it
sources too) acquires and releases in its own body is checked in the body
(`run_tests() { vllm serve ... & local pid=$!; vllm bench ...; kill "$pid"; }`, called at the top
level or in a subshell, `( run_tests )`): its `exit`s, and its commands failing under `set -e` when
a call runs with it (not in a test, not before `||`, not in `$(...)`) or the body sets it itself
(so does a file the script sources: a library's top-level `set -euo pipefail` holds after the
`source`; one under a condition is not known and not counted); a top-level trap set before the
first call that releases it covers it. A file every way into which sources it where `set -e`
holds (not in a test, not also run by `bash`) runs under it until it sets its own.

## Why is this bad?
The allocation outlives the script: 16 exclusive GPUs stay reserved until Slurm's time limit,
four hours in one case, while the next jobs queue behind them. A background server does too: an
entrypoint run through `srun --container-image` that exits early under `set -e` leaves its vLLM
workers holding the GPUs' memory, and every later job on that node dies at start-up.

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
A batch job `sbatch` submitted that the script leaves with `exit 0` is handed off, not leaked (a
"fire and forget" branch: the job ends when its own work does); an allocation left so, or a job
left by a failure's exit, is reported, but not an allocation whose job id the script prints to its
standard output for its caller (`export SLURM_JOB_ID=$(./alloc.sh)`: the `salloc --no-shell`
pipeline's output, or an `echo` of the variable that holds the id, not to a file or the error
stream). A background process of a Slurm batch script (`#SBATCH`
lines before its first command) ends with its job when the script ends, and is not checked; one
of a script a Dockerfile in its folder or a folder above copies into its image and runs there
(`COPY ./download.sh /download.sh`, `RUN ./download.sh`; or in `CMD`, `ENTRYPOINT`), or that only
such scripts call (the image's entrypoint),
or that only `docker run` (`podman run`) commands run as their container's command or its last act
(`docker run --rm img bash -lc 'bash /w/server.sh | tee log'`, also through variables:
`$MAYBE_EXEC $DOCKER_CMD run ... bash -lc '"$RUN_FILE_FULL" | tee log'` with DOCKER_CMD `docker` or
`sudo docker`; not where the command goes on after it, `; sleep infinity`, nor with `--pid=host`),
or `srun` as its step's task (Slurm ends what a step leaves running when its task ends),
and that no route or workflow step's `run:` starts,
ends with the container, and is counted, not reported (run on a host, it would leak), unless it is
itself a `docker run` (a sibling container, through the host's docker socket); so is, in such a
script, a kill that misses a background pipeline's program (`$!` is `tee`'s) as its last act, not in
a loop, before only messages, other kills and the `exit` (not `wait` or `sleep`), or in a signal
trap that then exits (`trap 'kill $pid; exit 0' TERM`); nor is an
assignment whose text spells a release one (`stop="docker stop $NAME"` runs nothing). An exit taken
when the acquisition itself failed (`if ! salloc ...; then exit 1; fi`), or guarded by a test of the
resource's own variable (`[ -z "$JOB_ID" ] && exit 1`: nothing was acquired) or of its liveness
(`kill -0 "$PID" || exit 1`, `docker ps | grep -q "$name"`, `squeue -j "$JOB"`: it is gone), such a
liveness test failing under `set -e` (`kill -0 "$PID"` alone, or `wait "$PID"`: it fails when the
process has ended), an exit after a wait for it (`wait "$PID"`, a plain `wait`, or `wait $!`
before another job goes to the background; `wait -n`, `wait %1` or `wait %vllm` where it is the
only job; in every branch of an `if` around the wait: it has ended), an exit in another branch
of the same `if` or `case`, and an exit after a release that can run before it (in its branch,
or under the acquisition's own condition, or under a test of the resource itself, `if [ -n
"$PID" ]; then kill "$PID"; fi`; or under a condition
benchlint cannot relate to the exit's, or in a loop: then the run's warnings count the exit as
undecided; not one in a branch that then always exits, `if ! ready; then kill "$PID"; exit 1; fi`,
where the later exit never follows it), and, with no `trap ... EXIT`, an exit after which nothing
releases it on its path (`if ready; then kill "$PID"; else grep ... "$LOG"; fi` and no kill after:
it ends as the script's end leaves it) are not exit paths that leak. A trap set before the
acquisition covers it, until a later `trap ... EXIT` or `trap - EXIT` replaces its handler, when its
handler releases it (a handler in double quotes expands its variables when `trap` runs: `trap "kill
$PID" EXIT` above `PID=$!` kills nothing), by its variable or by one the script assigns from it
afterwards (`PIDS+=("$SERVER_PID")` and a handler that kills `"${PIDS[@]}"`), or when it passes it
to a function that releases its argument (`stop_tree "$SERVER_PID"` with `stop_tree() { local
pid="${1:-}"; kill "$pid"; }`, in the script or a file it sources, two calls deep), or when it ends
every job of the script (`kill 0`, `kill -- -$$`, `kill $(jobs -p)`) or the program by its name
(`pkill -f "vllm serve"`, `pkill -u "$USER" -f vllm`, `killall vllm`, `pgrep -f vllm | xargs kill`,
`kill $(pgrep -f vllm)`, `P=$(pgrep -f "vllm serve"); kill $P`, or a listing of whole command
lines searched with `grep`, its PID column cut out and given to a kill: `kill $(ps -ef | grep
"vllm serve" | grep -v grep | awk '{print $2}')`, as `pgrep -f` with each pattern; not `ps -e`'s
names, another column, `kill -0`, a list taken before the start) or the port it holds (`lsof -t
-i:8000 | xargs kill`, `kill $(lsof -t -i tcp:8000)`, `fuser -k 8000/tcp`: its `--port`, or any
where either is not written out), also a script of the repository sent to the background that
runs an engine in its own shell (`bash start.sh > log &` with `exec python3 -m
sglang.launch_server ...` in start.sh, released by `pkill -f sglang.launch_server`); an engine's
command line starts with the Python interpreter, so
`pkill -f python` ends it too; `pkill` and `pgrep` search their pattern in the program's name, so
`pkill python` ends `python3`, where `pkill -x python` and `killall python` do not; a `-f` pattern's
parts after the program's, `--port 8188`, may be in a variable of the command line, `launch_server
${ARGS}` or `--port ${PORT}`, not where the line or the script gives that option another value); so
does a trap a function the script calls sets (`install_traps`). A handler runs the functions it
names, anywhere in its text (`trap 'rc=$?; if [ -n "$PID" ]; then cleanup; fi; exit $rc' EXIT`),
three calls deep, in the script or a file it sources. An `ERR` trap that releases it covers the
exits of commands failing under `set -e` (bash runs it first), not an `exit`. `break` and `continue`
do not fail under `set -e`, nor does an assignment whose substitution falls back (`PID=$(pgrep -n
server || echo "$PID")`), an arithmetic one (`DEADLINE=$((SECONDS + 600))`), a `let` of a nonzero
literal or an arithmetic command that assigns (`(( n += 1 ))`; `(( n++ ))` is worth n's old value
and fails on a count's first step), the `for` of a list with a substitution, a call of a function of
the script whose commands cannot fail (`log() { echo "[$(date +%T)] $*"; }`; also one run between
the body's own `set +e` and `set -e`, not its last, a bare `return` first in a `then`, after `&&` or
after a plain assignment, an assignment that only expands names, `X=$Y`, where the script never
turns on `set -u`, and `(( n-- ))` in a loop that runs only while n is not 0, `until test $n -eq
0`), or an assignment whose substitution ends with a command that cannot (`pid=$(start_worker)`
whose body ends with `echo "$pid"`: bash runs a substitution without `set -e`, unless `shopt -s
inherit_errexit` or POSIX mode was set before it, or another shell runs the script). A pipeline's
status is its last command's (`set -o pipefail`: any of its commands'), and a filter that reads a
pipe with options it accepts cannot fail (`$(curl ... | head -1)`, `| tr -d '\\r'`, `| wc -l`), nor
can `read` from a here-string or `mapfile` of a pipe or of `< <(...)`. A server the script kills
only where it exits with a failure status (`else kill "$PID"; exit 1; fi`) is meant to outlive it:
an early end leaves it as success does; so is one only another branch of the `if` or `case` that
starts it releases (`up) start ;; down) stop ;;`), and one a function starts after stopping the one
before (`start_router() { pkill -f bin/router; bin/router & }`, in every branch that starts one)
when only its later calls release it (the last one runs on when the script ends). A `docker
rm`/`stop`/`kill` releases a detached container named by one variable (`--name "$NAME"`) unless each
container it names is another variable's value (`docker rm -f "$OTHER"`) and every value the script
gives those variables, plain text at its top level, differs from every one it gives the container's
(not a `local`, a loop's, a sourced file's or the caller's: it may be the container). An allocation
named after the runner (`salloc --job-name="$RUNNER_NAME"`) is released by the workflow when every
job that runs a launcher later cancels the runner's jobs by that name in a step that always runs
(`if: always()`, `scancel --name=${{ runner.name }}`). A background process, container or
temporary directory that nothing in the script releases, on any path, is not reported: the script
leaves it as its success does (a start script's server, meant to outlive it; one held until a final
`wait`; an entrypoint's, which ends with its Slurm step or container); only a Slurm allocation
released nowhere is, as it holds its nodes until the time limit. Not modelled: a `return` as the end
of a function that holds a resource, traps in subshells (they do not cover the outer script and are
ignored), an `exit` in an element of a pipeline (`... | while read ...; do ... exit 1; done`: a
subshell, it ends only that element, taken as ending the script), and a background pipeline started
in a loop without keeping `$!` (counted in the run's warnings).

## Fix safety
The fix moves the trap to the line after the acquisition: unsafe (applied with
`--unsafe-fixes`), as the handler now runs on the early exits too, where a variable it reads that
is set later is still empty.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from benchlint import slurm
from benchlint.context import Context
from benchlint.dockerfiles import ImageScripts
from benchlint.engines import launch_in, launches
from benchlint.finding import Edit, Finding, Fix, Location, Severity, Span, Undecided, clip
from benchlint.fixes import line_removal
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.shell.evaluate import guards_hold
from benchlint.shell.expand import UNSET
from benchlint.shell.flow import (
    ExitPath,
    Flow,
    Functions,
    Trap,
    calls_in,
    function_exits,
    reads_pipe,
)
from benchlint.shell.model import (
    IN_THIS_SHELL,
    Command,
    Guard,
    Script,
    Syn,
    Word,
    exclusive,
    first_line,
    may_change_positionals,
    one_line,
    parse_file,
    whole_piece,
)
from benchlint.shell.procps import read_kill
from benchlint.source import SourceText
from benchlint.workflow import (
    WORKFLOWS,
    cancels_runner_jobs,
    job_steps,
    step_runs,
    workflow_roots,
)


@dataclass
class Resource:
    what: str  # "Slurm allocation", ...
    acquired_by: Command  # the command that acquires (for the location)
    statement: Command  # the statement of the script's shell that runs it
    variable: str | None
    release: re.Pattern[str]  # a command text that releases it
    # variables that name it besides `variable`: a container's `--name "$name"`
    handles: frozenset[str] = frozenset()

    @property
    def names(self) -> frozenset[str]:
        return self.handles | ({self.variable} if self.variable else set())


_ACQUIRERS = frozenset({"salloc", "sbatch", "docker run", "podman run"})
_SLURM_RELEASE = lazy_compile(r"\bscancel\b")
# `kill -0` (`-s 0`, `-n0`, `-SIG0`, `-00`, `-EXIT`: bash's names of signal 0) only asks
_SIGNAL_ZERO = r"(?:l|(?:[sn]\s*)?(?:SIG)?(?:0+|EXIT))"
_KILL = lazy_compile(rf"\bkill\b(?!\s+-{_SIGNAL_ZERO}\b)|\bpkill\b")
_DOCKER_RELEASE = lazy_compile(r"\bdocker\s+(?:rm|stop|kill)\b")
_REMOVE = lazy_compile(r"\brm\s+-[a-zA-Z]*r")
_WAIT = lazy_compile(r"\bwait\b")  # (a `wait` of what a function is given: `_releases_argument`)
_NEVER = lazy_compile(r"(?!)")  # no command releases it by a variable: it has none
# a kill of the last job sent to the background, by `$!` (not `kill -0`, which only asks)
_KILL_LAST = lazy_compile(r"\bkill\b(?!\s+-[0l]\b)[^;&|\n]*\$\{?!")


def _may_be_released(what: str) -> str:
    """The count of exits after a release that may not have run, of one kind of resource."""
    held = {"Slurm batch job": "job", "Slurm allocation": "allocation"}.get(what, what)
    return (
        "exits after a release under a condition not related to theirs (or in a loop), not "
        f"reported (BL103: whether the {held} is still held there is not known)"
    )


def _assigned_name(statement: Command) -> str | None:
    return statement.assignments[0].name if statement.assignments and not statement.words else None


def _candidates(script: Script) -> list[Command]:
    """The script's commands that may acquire something: in the background, under a wrapper
    that acquires, or `mktemp` (worked out once per script: every flow of it asks)."""
    found = script.memo.get("BL103 candidates")
    if found is None:
        found = script.memo["BL103 candidates"] = [
            command
            for command in script.commands
            if _own_job(command)
            or command.invocation.base == "mktemp"
            or any(w.name in _ACQUIRERS for w in command.invocation.wrappers)
        ]
    assert isinstance(found, list)
    return found


def _resources(flow: Flow) -> list[Resource]:
    script = flow.script
    found: list[Resource] = []
    for command in _candidates(script):
        invocation = command.invocation
        wrappers = {w.name: w for w in invocation.wrappers}
        base = invocation.base
        statement = flow.statement_of(command)
        if statement is None:
            continue
        variable = _assigned_name(statement)
        salloc = wrappers.get("salloc")
        container = wrappers.get("docker run") or wrappers.get("podman run")
        if salloc is not None and salloc.has("--no-shell"):
            if variable is None:  # `salloc ... --no-shell`, then `JOB_ID=$(squeue -u $USER ...)`
                variable = _job_id_after(flow, statement)
            found.append(Resource("Slurm allocation", command, statement, variable, _SLURM_RELEASE))
        elif (
            "sbatch" in wrappers
            and variable is not None
            and statement is not command
            and not wrappers["sbatch"].has("-W", "--wait")  # (it returns when the job ended)
        ):
            found.append(Resource("Slurm batch job", command, statement, variable, _SLURM_RELEASE))
        elif container is not None and container.has("-d", "--detach"):
            named = [w for w in container.words if w.value.startswith("--name")]
            words = container.words[container.words.index(named[0]) :][:2] if named else []
            handles = frozenset(r.name for w in words for r in w.reads())
            found.append(
                Resource(
                    "detached container", command, statement, variable, _DOCKER_RELEASE, handles
                )
            )
        elif base == "mktemp" and any(w.value == "-d" for w in invocation.args) and variable:
            remover = re.compile(rf"\brm\s+-[a-zA-Z]*r[a-zA-Z]*\b.*\${{?{variable}\b")
            # (removed anywhere: at the top level, in a trap's text or a function's body)
            if any(remover.search(script.text_of(c.node)) for c in script.commands):
                found.append(Resource("temporary directory", command, statement, variable, _REMOVE))
        elif (
            _own_job(command)
            and statement is command
            and not command.piped
            and not reads_pipe(command)  # (`... | tee log &`: tee lives as long as its input)
        ):
            index = flow.index(command)
            # (in a function's body, a `local pid=$!` holds it there too)
            kinds = ("assign", "export", "local") if flow.function else ("assign", "export")
            later = flow.statements[index + 1 : index + 4] if index is not None else []
            name = _pid_saved(later, kinds, command)
            if name is not None:
                found.append(Resource("background process", command, command, name, _KILL))
            elif _program(command) is not None:
                # no `$!` kept: only what ends every job or the program by its name releases it,
                # or a `kill $!` before another job goes to the background (not for one started
                # in a loop: that kills the last pass's; h75 M1)
                rest = flow.statements[index + 1 :] if index is not None else []
                last = not command.loops and _kills_last_job(rest, command)
                release = _KILL_LAST if last else _NEVER
                found.append(Resource("background process", command, command, None, release))
        elif (
            _own_job(command)
            and statement is command
            and command.piped
            and not reads_pipe(command)
            and not command.loops
            and _program(command) is not None
        ):
            # the head of a background pipeline (`vllm serve ... | tee log &`; t77b): with no
            # `$!` kept (that is the pipeline's last command's: said apart), only what ends
            # every job or the program by its name releases it
            index = flow.index(command)
            kinds = ("assign", "export", "local") if flow.function else ("assign", "export")
            later = flow.statements[index + 1 : index + 4] if index is not None else []
            if _pid_saved(later, kinds, command) is None:
                found.append(Resource("background process", command, command, None, _NEVER))
    found += _started_in_functions(flow)
    for resource in found:
        resource.handles |= _holders(script, resource.variable, resource.statement)
    return found


def _job_id_after(flow: Flow, statement: Command) -> str | None:
    """The variable one of the next statements after an allocation whose output is not kept
    assigns the job id `squeue` prints (`JOB_ID=$(squeue -u $USER -h -o %A | head -n1)`): the
    allocation's id, as the script then uses it (`srun --jobid=$JOB_ID`, `scancel $JOB_ID`)."""
    index = flow.index(statement)
    later = flow.statements[index + 1 : index + 4] if index is not None else []
    for command in later:
        name = _assigned_name(command)
        if name is not None and re.search(r"\$\(\s*squeue\b", flow.script.text_of(command.node)):
            return name
    return None


def _kills_last_job(later: list[Command], after: Command) -> bool:
    """Whether one of these statements kills `$!` (`kill $!`, `kill -INT "$!"`) before another
    job is sent to the background (from there on `$!` is that job's)."""
    for statement in later:
        if statement.background and not exclusive(after, statement):
            return False
        if statement.base == "kill" and _KILL_LAST.search(statement.script.text_of(statement.node)):
            return True
    return False


def _pid_saved(
    later: list[Command],
    kinds: tuple[str, ...] = ("assign", "export"),
    after: Command | None = None,
) -> str | None:
    """The variable one of these statements saves `$!` in (`SERVER_PID=$!`, `PIDS+=($!)`), if
    any, before another job is sent to the background (`tail -f log &`: `$!` is that job's from
    there on; not one in the other branch of an `if` the job `after` is in)."""
    for statement in later:
        if statement.background and not (after is not None and exclusive(after, statement)):
            return None
        for a in statement.assignments:
            value = a.value
            if value is None or a.kind not in kinds:
                continue
            items = value.items if value.items is not None else [value]
            if any(item.value == "$!" for item in items):
                return a.name
    return None


def _started_in_functions(flow: Flow) -> list[Resource]:
    """Background processes a function starts and keeps in a global (`start_server() { vllm
    serve ... & SERVER_PID=$!; }`), the script's own or one of a file it sources, acquired
    where the script's shell first calls the function (a `local` PID is gone when the
    function returns: nothing could release it by name; one the function kills itself before
    it returns is not held after the call)."""
    found: list[Resource] = []
    for function, starts in _function_starts(flow.script).items():
        calls = [s for s in flow.statements if s.name == function]
        body = flow.script.body(function)
        for command, name in starts:
            # (the first call the start may run on: not `start_server ""` where it runs
            # under `[[ -n "$1" ]]`; h75 F1)
            call = next((c for c in calls if _start_on_call(command, body, c) is not False), None)
            if call is None and any(
                c.base == function and not any(c is d for d in calls) for c in flow.script.commands
            ):
                # (another call may start it, in a subshell or another function: the first
                # one here stands for it, as before; h76 R9)
                call = calls[0] if calls else None
            if call is None:
                continue
            releases = _KILL if name is not None else _NEVER
            found.append(Resource("background process", command, call, name, releases))
    for function, (command, handles) in _function_containers(flow.script).items():
        call = next((s for s in flow.statements if s.name == function), None)
        if call is not None:
            found.append(
                Resource("detached container", command, call, None, _DOCKER_RELEASE, handles)
            )
    # (and a function of a file the script sources: `. common.sh; start_etcd`)
    called: set[str] = set(flow.script.functions)
    for statement in flow.statements:
        callee = statement.name
        if not callee or callee in called:
            continue
        called.add(callee)
        library = flow.defined(callee)
        if library is None or library is flow.script:
            continue
        for command, name in _function_starts(library).get(callee, ()):
            releases = _KILL if name is not None else _NEVER
            resource = Resource("background process", command, statement, name, releases)
            # (an EXIT trap the library sets at its top level is the sourcing shell's, unless
            # the script sets one of its own between the `source` and the call: `trap ...
            # EXIT`, `trap - EXIT` replace it)
            traps = Flow(library, False, flow.defined).traps()
            called_at = flow.index(statement)
            file_name = library.path.rsplit("/", 1)[-1]
            sourced = next(
                (
                    i
                    for i, c in enumerate(flow.statements)
                    if c.base in ("source", ".") and file_name in flow.script.text_of(c.node)
                ),
                None,
            )
            # (one the script's top level sets after sourcing it and before the call)
            own = any(
                t.on_exit
                and sourced is not None
                and called_at is not None
                and sourced < i < called_at
                for i, t in flow.traps()
            )
            if own or not any(
                t.on_exit and _handler_releases(resource, t, flow.defined) for _, t in traps
            ):
                found.append(resource)
    return found


def _function_starts(script: Script) -> dict[str, list[tuple[Command, str | None]]]:
    """Each function's background processes kept in a global, or whose `$!` it does not keep
    (then only what ends every job or the program by its name releases it), and not released
    by the rest of its body, with that global (worked out once per script: every flow asks)."""
    found = script.memo.get("BL103 function starts")
    if isinstance(found, dict):
        return found
    starts: dict[str, list[tuple[Command, str | None]]] = {}
    for function in script.functions:
        body = [c for c in script.body(function) if not c.subshell]
        for index, command in enumerate(body):
            # (a pipeline's `$!` is its last command's: `_killed_through_pipe`, as at the top)
            if not _own_job(command) or command.piped or reads_pipe(command):
                continue
            saving = body[index + 1 : index + 4]
            name = _pid_saved(saving, ("assign", "export", "local"), command)
            local = name is not None and any(
                a.name == name and a.kind == "local" for c in saving for a in c.assignments
            )
            if name is None and (_program(command) is None or command.loops):
                continue
            releases = _KILL if name is not None else _NEVER
            probe = Resource("background process", command, command, name, releases)
            # (not a stop in another branch of an `if` or `case`: `stop) pkill ...;;`)
            rest = [c for c in body[index + 1 :] if not exclusive(command, c)]
            # (nor the clean-up of a branch that then leaves the function failing, `if ! ready;
            # then kill $pid; return 1; fi`: on the other path it is held after the call; t84b)
            rest = [c for c in rest if c.guards == command.guards or not _leaves(script, c)]
            later = [script.text_of(c.node) for c in rest]
            later += [  # (and the functions the rest of the body calls: `stop_server`)
                script.text_of(script.functions[c.base])
                for c in rest
                if c.base in script.functions and c.base != function
            ]
            if not any(_releases(probe, text) for text in later):
                # (one the function stops itself is gone; a `local` PID is gone when it
                # returns: then only the program's name or what ends every job releases it)
                starts.setdefault(function, []).append((command, None if local else name))
    script.memo["BL103 function starts"] = starts
    return starts


def _function_containers(script: Script) -> dict[str, tuple[Command, frozenset[str]]]:
    """Each function's first detached container (`docker run -d --name "$NAME"`) named by a
    variable no `local` of the function holds, and not stopped by the rest of its path: it
    outlives the call, and the script stops it by that name later (worked out once per
    script)."""
    found = script.memo.get("BL103 function containers")
    if isinstance(found, dict):
        return found
    containers: dict[str, tuple[Command, frozenset[str]]] = {}
    for function in script.functions:
        body = [c for c in script.body(function) if not c.subshell]
        local = {a.name for c in body for a in c.assignments if a.kind == "local"}
        for index, command in enumerate(body):
            wrappers = {w.name: w for w in command.invocation.wrappers}
            container = wrappers.get("docker run") or wrappers.get("podman run")
            if container is None or not container.has("-d", "--detach"):
                continue
            named = [w for w in container.words if w.value.startswith("--name")]
            words = container.words[container.words.index(named[0]) :][:2] if named else []
            handles = frozenset(r.name for w in words for r in w.reads()) - local
            if not handles:
                continue
            probe = Resource("detached container", command, command, None, _DOCKER_RELEASE, handles)
            # (not a removal in another branch of an `if` or `case`: `else docker rm -f ...`)
            later = [script.text_of(c.node) for c in body[index + 1 :] if not exclusive(command, c)]
            if not any(_releases(probe, text) for text in later):
                containers[function] = (command, handles)
                break
    script.memo["BL103 function containers"] = containers
    return containers


def _holders(script: Script, variable: str | None, acquisition: Command) -> frozenset[str]:
    """The variables assigned the resource's own after it is acquired, as a whole word or
    piece of their value: an array of the script's PIDs (`PIDS+=("$SERVER_PID")`) or job ids, or
    a list in a string (`ALL="$ALL $PID"`), that a handler releases all at once (`kill
    "${PIDS[@]}"`); not a value built from it (`LOG="slurm-$JOB_ID.out"`, `$(cat "$DIR/x")`:
    a test of that is not a test of the resource)."""
    if variable is None:
        return frozenset()
    after = acquisition.node.end_byte
    return frozenset(
        a.name
        for a in script.assignments
        if a.name != variable
        and a.value is not None
        and a.node.start_byte >= after
        and any(
            read.name == variable and whole_piece(word, read)
            for word in (a.value.items if a.value.items is not None else [a.value])
            for read in word.reads()
        )
    )


def _runs(script: Script, command: Command, depth: int = 0) -> list[str]:
    """A statement's text and the text of each command of the script's functions it calls
    (`cleanup` at the end of a script releases what `cleanup() { kill "$PID"; }` does), two
    calls deep. Each is matched alone: `wait_or_die "$PID" ...` whose body kills another
    process releases nothing; a pipeline's head also as the whole pipeline
    (`pgrep -f vllm | xargs kill`)."""
    if command.base in ("echo", "printf"):
        return []  # it prints what it names (`echo "to stop it: kill $PID"`): it ends nothing
    text = script.text_of(command.node)
    if not command.words and "$(" not in text and "`" not in text:
        return []  # (`stop="docker stop $NAME"`: an assignment runs nothing but substitutions)
    texts = [text]
    if command.piped:
        commands = script.commands
        at = commands.index(command)
        last = next((c for c in commands[at + 1 :] if not c.piped), None)
        if last is not None and last.node.start_byte > command.node.end_byte:
            whole = script.src[command.node.start_byte : last.node.end_byte]
            texts.append(whole.decode("utf-8", errors="surrogateescape"))
    if depth > 1:
        return texts
    start, end = command.node.start_byte, command.node.end_byte
    for call in script.calls:
        if start <= call.node.start_byte < end and call.base is not None:
            for inner in script.body(call.base):
                texts += _runs(script, inner, depth + 1)
    return texts


# wrappers that run the program in the same process tree, named by it (`setsid --fork server`)
_TRANSPARENT = frozenset(
    {"nohup", "setsid", "stdbuf", "numactl", "taskset", "env", "timeout", "time"}
)


def _program(command: Command) -> str | None:
    """What the script's commands name the acquisition by: the program behind wrappers that
    only change how it runs (`nohup`, `setsid --fork`, `numactl ...`), else the command's own
    name (`srun`)."""
    invocation = command.invocation
    wrappers = invocation.wrappers
    if invocation.shell:  # `setsid bash -c "..."`: the shell says nothing of the program
        return command.name
    if wrappers and invocation.base and all(w.name in _TRANSPARENT for w in wrappers):
        return invocation.base
    return command.name


def _shown_program(command: Command) -> str | None:
    """What a message calls the acquisition: `_program`, with what Python runs (`python3 -m
    sglang.launch_server`, `python3 serve.py`: `python3` alone says nothing, h85 W1); a string
    `eval` or a shell runs, by its text (`eval "python3 -m sglang.launch_server..."`)."""
    invocation = command.invocation
    if invocation.shell or command.base == "eval":
        return clip(first_line(command.script.text_of(command.node)), 48)
    for wrapper in invocation.wrappers:  # `docker run -d ... IMAGE`: the image (h87 W3)
        if wrapper.name in ("docker run", "podman run") and wrapper.operands:
            return f"{wrapper.name} {clip(wrapper.operands[0].text, 40)}"
    # (`"$WORKSPACE/build/mooncake_master" ... &`: by its file's name, h94 W1; `"$VENV/bin/
    # python3" -m sglang.launch_server`, with what it runs, h96 W2)
    program = _program(command) or invocation.base
    if program is None or program != invocation.base:
        return program
    if _PYTHON.fullmatch(program):
        ran = _python_runs(invocation.words[1:])
        return f"{program} {ran}" if ran is not None else program
    if program in _WITH_SUBCOMMANDS:  # (`vllm serve`, `kubectl port-forward`: h88 W3)
        rest = iter(invocation.words[1:])
        for word in rest:
            value = word.value if word.static else ""
            if value in _OPTIONS_WITH_VALUES:
                next(rest, None)  # (`kubectl -n ns port-forward`)
                continue
            if _SUBCOMMAND.fullmatch(value):
                return f"{program} {value}"
            if not value.startswith("-"):
                break
    return program


# programs whose first word that is no option names what they do (`serve`, `port-forward`,
# `start`: h89 W7, not `nc localhost`), and options of theirs that take a value before it
_WITH_SUBCOMMANDS = frozenset(
    {
        "vllm",
        "sglang",
        "trtllm-serve",
        "kubectl",
        "ray",
        "ollama",
        "uv",
        "enroot",
        "apptainer",
        "singularity",
        "helm",
        "dynamo",
        "hf",
        "huggingface-cli",
        "podman",
        "nerdctl",
    }
)
_OPTIONS_WITH_VALUES = frozenset({"-n", "--namespace", "--context", "--kubeconfig"})
_SUBCOMMAND = lazy_compile(r"[a-z][a-z]*(?:-[a-z]+)*")
_PYTHON = lazy_compile(r"python(?:[23](?:\.\d+)?)?")


def _python_runs(words: Sequence[Word]) -> str | None:
    """What `python3 ARGS` runs: `-m MODULE` (`-mMODULE` too), or its script's path as written
    (its first word that is no option; past `-X opt`, `-W arg`, `--check-hash-based-pycs
    never`, `-u`)."""
    taking = {"-X", "-W", "--check-hash-based-pycs"}
    skip = False
    for i, word in enumerate(words):
        if skip:
            skip = False
            continue
        value = word.value if word.static else word.text
        if value == "-m":
            return f"-m {words[i + 1].text}" if i + 1 < len(words) else None
        if value.startswith("-m") and not value.startswith("--"):
            return f"-m {value[2:]}"
        if value.startswith("-c") and not value.startswith("--"):
            return None  # (a program as a string: not a name)
        if value in taking:
            skip = True
            continue
        if value.startswith("-"):
            continue
        return clip(value, 40)
    return None


def _release_line(script: Script, statement: Command, released: Released) -> int:
    """The line of the command in the statement that releases the resource (the `kill` in a
    loop's body; one that is not the clean-up of a branch that then ends the script, where
    there is one), else of the statement."""
    plain = _plain_release(script, statement, released)
    if plain is not None:
        return plain.span.line
    start, end = statement.node.start_byte, statement.node.end_byte
    for command in script.commands:
        inside = start <= command.node.start_byte < end
        if inside and command is not statement and released(command):
            return command.span.line
    return statement.span.line


def _hands_off(resource: Resource, path: ExitPath) -> bool:
    """An `exit 0` that ends the script with a batch job it submitted still queued or running:
    the job was handed off (`WAIT=0`: "fire and forget"; t86 h7, vLLM's amd-disagg
    run-slurm-disagg-test.sh), and it ends when its own work does. Not an allocation's
    (`salloc --no-shell` holds its nodes idle), nor a failure's exit."""
    command = path.command
    return (
        resource.what == "Slurm batch job"
        and path.kind == "exit"
        and command.base == "exit"
        and [w.value for w in command.args] == ["0"]
    )


def _handed_to_caller(script: Script, resource: Resource) -> bool:
    """Whether the script prints an allocation's job id to its standard output for its caller
    (`export SLURM_JOB_ID=$(./alloc.sh)`; h97 F1, TensorRT-LLM's slurm_alloc.sh): the `salloc
    --no-shell` pipeline's output, or an `echo`/`printf` of the variable that holds the id,
    at the top level, not sent to a file or the error stream."""
    acquired = resource.acquired_by
    commands = script.commands
    if acquired.piped and acquired.function is None and acquired.subshell is None:
        at = commands.index(acquired)
        last = next((c for c in commands[at + 1 :] if not c.piped and c.subshell is None), None)
        if last is not None and _to_stdout(last):
            return True
    name = resource.variable
    return name is not None and any(
        c.base in ("echo", "printf")
        and c.function is None
        and c.subshell is None
        and c.node.start_byte > resource.statement.node.end_byte
        and any(r.name == name for w in c.args for r in w.reads())
        and _to_stdout(c)
        for c in commands
    )


def _to_stdout(command: Command) -> bool:
    """Whether what the command prints goes to the script's standard output (no redirection
    of it to a file or to the error stream)."""
    return not any(
        r.operator in (">", ">>", ">|", "&>", "&>>")
        or (r.operator == ">&" and r.target.value != "1")
        for r in command.redirects
    )


def _called_release(script: Script, line: int, released: Released) -> str:
    """Where the function called on the release's line releases the resource, said after the
    line (`run_benchmark` on line 251, whose `pkill -f vllm` on line 120 does: h38 W3)."""
    for command in script.commands:
        name = command.base
        if command.span.line != line or name is None or name not in script.functions:
            continue
        inner = next((c for c in script.body(name) if released(c)), None)
        if inner is not None:  # (its line from it on: `pgrep python3 | xargs kill -9`)
            line_text = script.file.line_text(inner.span.line)
            text = clip(line_text[inner.span.column - 1 :].rstrip(" \t;}"), 40)
            return f" (`{name}`, whose `{text}` on line {inner.span.line} releases it)"
    return ""


def _release_after(
    script: Script, releases: list[Command], released: Released, leak: Command
) -> int | None:
    """The line of the first command of the releasing statements that releases the resource
    after the command of the exit path and on its way (not in a branch apart from it, nor the
    clean-up of a branch that then exits, as `_plain_release`): the release that exit skips
    (`collect_logs; cleanup; return 1`, where the clean-up before it is another branch's: `if
    ! setup; then cleanup; return 1; fi`)."""
    if leak.script is not script:
        return None  # (an exit in another file's function: no order between them)
    for statement in releases:
        start, end = statement.node.start_byte, statement.node.end_byte
        for command in script.commands:
            if (
                start <= command.node.start_byte < end
                and command.node.start_byte > leak.node.start_byte
                and released(command)
                and not exclusive(command, leak)
                and not _branch_exits(script, command, ("exit", "continue", "break"))
            ):
                return command.span.line
    return None


def _other_releases(
    script: Script, releases: list[Command], released: Released, line: int | None
) -> list[Command]:
    """The commands of the releasing statements that release the resource, not on `line`: the
    innermost (the `kill` in an `if` in a loop), else the statement itself."""
    found: dict[int, Command] = {}
    for statement in releases:
        start, end = statement.node.start_byte, statement.node.end_byte
        inner = [
            command
            for command in script.commands
            if start <= command.node.start_byte < end
            and command is not statement
            and released(command)
        ]
        for command in inner or [statement]:
            start, end = command.node.start_byte, command.node.end_byte
            if not any(c is not command and start <= c.node.start_byte < end for c in inner):
                found.setdefault(command.span.line, command)  # (the innermost: the `kill`)
    return [command for at, command in sorted(found.items()) if at != line]


def _released_where(line: int, others: list[Command], called: str) -> tuple[str, bool]:
    """Where the message says the resource is released (`only at line 9`, `at line 9, and at
    line 6 on another way`), and whether another way releases it (h99 W1: the clean-up of a
    branch that then exits, `if ! ready; then kill "$PID"; exit 1; fi`, before the release
    named). Not a release after the one named: of a resource gone by then, or of another the
    same variable holds later (`PID=$!` again: h101 W2)."""
    apart = sorted({command.span.line for command in others if command.span.line < line})
    if not apart:
        return f"only at line {line}{called}", False
    shown = ", ".join(map(str, apart))
    return (
        f"at line {line}{called}, and at line{'s' * (len(apart) > 1)} {shown} on another way",
        True,
    )


def _plain_release(script: Script, statement: Command, released: Released) -> Command | None:
    """The first command of the statement (itself, or one in its body: a loop's, an `if`'s)
    that releases the resource and is not the clean-up of a branch that then ends the script
    or the loop's pass (`kill "$PID"; exit 1`, `kill_server; continue`); None where there is
    none."""
    start, end = statement.node.start_byte, statement.node.end_byte
    inner = [
        c
        for c in script.commands
        if c is not statement and start <= c.node.start_byte < end and released(c)
    ]
    ends = ("exit", "continue", "break")
    return next((c for c in inner or [statement] if not _branch_exits(script, c, ends)), None)


def _restarts(resource: Resource, releases: list[Command], released: Released) -> bool:
    """Whether every later statement that releases a resource a function starts calls that
    function again, whose body stops the one running before it starts the next, whenever it
    starts one (`start_router() { pkill -f bin/router; ./bin/router & }`; t76a,
    semantic-router): the last one started is left running when the script ends as it should,
    as an early end leaves the one then. Not a function that starts or stops by its argument
    (`svc() { case $1 in start) ... & ;; stop) pkill ... ;; esac }`: `svc stop` only stops)."""
    call, acquired = resource.statement, resource.acquired_by
    if not releases or call is acquired or call.name is None:
        return False
    if not all(s.name == call.name for s in releases):
        return False
    body = acquired.script.body(call.name) if acquired.function == call.name else []
    if not body:
        return False
    # (and each releasing call may start one: `svc stop`, where the starts are under `case
    # "$1" in start)`, only stops, whatever the start arm stops first)
    if any(_starts_on_call(acquired, body, s) is False for s in releases):
        return False
    # (it starts one on every call: under no condition of the body's own, or each branch that
    # starts one stops the one before first; a stop may have a condition of its own, `if pgrep
    # -f router; then pkill -f router; fi`)
    common = set.intersection(*(set(c.guards) for c in body))
    if not set(acquired.guards) <= common and not _every_branch_restarts(acquired, body, released):
        return False
    return any(
        c.node.end_byte <= acquired.node.start_byte and released(c) and not exclusive(c, acquired)
        for c in body
    )


class _Arguments:
    """A call's positional parameters, as `guards_hold` reads them (`positional`: `$1` as
    `$__P1`): the call's words up to the first not known statically (which may split in
    several), unset past the last when all are known (`${1-start}` is `start`); every other
    variable not known."""

    positional = True

    def __init__(self, call: Command, aliases: dict[str, int], shifted: bool = False) -> None:
        words = call.args
        known = next((i for i, w in enumerate(words) if not w.static), len(words))
        self.values = [w.value for w in words[:known]]
        self.complete = known == len(words)
        self.aliases = aliases  # (`local action=$1`: action is the first argument)
        self.shifted = shifted  # (`$1` is another after a `shift`: not known)

    def get(self, name: str, /) -> str | None:
        if name in self.aliases:
            name = f"__P{self.aliases[name]}"
        elif self.shifted:
            return None
        if not name.startswith("__P") or not name[3:].isdigit():
            return None
        index = int(name[3:]) - 1
        if index < len(self.values):
            return self.values[index]
        return UNSET if self.complete else None


def _starts(acquired: Command, body: list[Command]) -> list[Command]:
    """The function's commands that start the program the acquisition does: it, and those sent
    to the background that run the same program (`docker run -d` is one: t82a)."""
    return [
        c for c in body if c is acquired or (c.background and _program(c) == _program(acquired))
    ]


def _starts_on_call(acquired: Command, body: list[Command], call: Command) -> bool | None:
    """Whether the function starts the program on this call of it: False where the conditions
    of each of its starts (`_start_on_call`) are false with the call's arguments (`svc stop`,
    and the start under `case "$1" in start)`), None where that cannot be decided."""
    decided = [_start_on_call(start, body, call) for start in _starts(acquired, body)]
    return True if True in decided else None if None in decided or not decided else False


def _start_on_call(start: Command, body: list[Command], call: Command) -> bool | None:
    """Whether a background start in a function's body runs on this call of it: False where its
    conditions inside the body (not an `if` around its definition) are false with the call's
    arguments (the start under `case "$1" in start)` on `svc stop`, or under `[[ -n
    "$profile_dir" ]]` after `local profile_dir=$1` on `start_server ""`), None where that
    cannot be decided: an argument read after the body changes them (`shift`), or a body that
    calls itself (`restart) svc stop; svc start ;;`)."""
    script = start.script
    definition = script.functions.get(call.name or "")
    if definition is None or any(c.base == call.name for c in body):
        return None
    at = start.node.start_byte
    # (the positional parameters as the call gives them hold until the first change: a
    # `shift`, a `set --`, an `eval` or a `source`)
    changed = min(
        (c.node.start_byte for c in body if c.node.start_byte < at and may_change_positionals(c)),
        default=at,
    )
    # (and the names given them, `local p=$1`, where nothing before the start may assign
    # them: an `eval`, a `source`, a call of a function of the script, an assignment to a
    # name held in a variable; h76 R10)
    wild = any(
        c.node.start_byte < at
        and (
            c.base in ("eval", "source", ".")
            or c.base in script.functions
            or any(a.kind == "dynamic" for a in c.assignments)
        )
        for c in body
    )
    aliases = {} if wild else _argument_names(body, changed)
    arguments = _Arguments(call, aliases, shifted=changed < at)
    inside = tuple(
        g for g in start.guards if definition.start_byte <= g.node.start_byte < definition.end_byte
    )
    return guards_hold(script, inside, arguments)


def _argument_names(body: list[Command], before: int) -> dict[str, int]:
    """The variables the function's body gives an argument's value before that point, once and
    under no condition (`local action=$1`, `mode="${1}"`), by the argument's number (t82a)."""
    found: dict[str, int] = {}
    counts: dict[str, int] = {}
    for command in body:
        for assignment in command.assignments:
            counts[assignment.name] = counts.get(assignment.name, 0) + 1
            value = assignment.value
            if command.node.start_byte >= before or command.guards or value is None:
                continue
            match = _ARGUMENT.fullmatch(value.text)
            if match is not None:
                found[assignment.name] = int(match.group(2) or match.group(3))
    return {name: n for name, n in found.items() if counts[name] == 1}


# a word that is one positional parameter: `$1`, `"$1"`, `${1}`, `"${1}"`
_ARGUMENT = lazy_compile(r'(?P<q>"?)\$(?:([1-9])|\{([1-9])\})(?P=q)')


def _every_branch_restarts(acquired: Command, body: list[Command], released: Released) -> bool:
    """Whether the function's body starts the program only where a stop before it, under the
    start's own conditions, runs first (`if [ "$GPU" ]; then pkill -f router; ./router --gpu &
    else pkill -f router; ./router & fi`; t79a), and none of its starts runs without one."""
    starts = _starts(acquired, body)
    return bool(starts) and all(
        any(
            c.node.end_byte <= start.node.start_byte
            and released(c)
            and set(start.guards) <= set(c.guards)  # (on its path, under a test of its own too)
            and not exclusive(c, start)
            for c in body
        )
        for start in starts
    )


def _kept_on_success(script: Script, first: Command, released: Released) -> bool:
    """Whether every command of the script's shell that releases the resource, from the first
    statement that does on, is the clean-up of a failure: followed in its branch by an `exit N`,
    N a number other than 0 (`else kill "$PID"; exit 1; fi`). Then the script leaves the
    resource running when it succeeds, and an early end leaves it as the normal end does."""
    start, shell = first.node.start_byte, first.function  # (a function's body: its own)
    releases = [
        c
        for c in script.commands
        if c.words
        and c.function == shell
        and c.base not in ("echo", "printf")  # (`echo "to stop it: kill $PID"`)
        and c.node.start_byte >= start
        and released(c)
    ]
    return bool(releases) and all(
        any(
            bool(e.args)
            and e.args[0].static
            and e.args[0].value.isdigit()
            and int(e.args[0].value) % 256 != 0
            for e in _branch_exits(script, c)
        )
        for c in releases
    )


def _leaves(script: Script, command: Command) -> bool:
    """Whether the command's branch then leaves the function or the script with a failure
    (`kill "$PID"; return 1`, `exit 1`: not `return 0`, nor a bare `return`, whose status is
    the kill's; t84c)."""
    return any(
        [w.value for w in e.args][:1] not in ([], ["0"])
        for e in _branch_exits(script, command, ("return", "exit"))[:1]
    )


def _branch_exits(
    script: Script, command: Command, ends: tuple[str, ...] = ("exit",)
) -> list[Command]:
    """The `exit`s (or other `ends`) that follow the command in its branch, run whenever it
    runs (same conditions, same shell and function): `kill "$PID"; exit 1` in an `if ! ready;
    then`."""
    return [
        e
        for e in script.commands
        if e.base in ends
        and e.function == command.function
        and e.guards == command.guards
        and e.subshell == command.subshell
        and e.node.start_byte >= command.node.end_byte
    ]


# whether a command releases the resource (worked out once per command, for one resource)
Released = Callable[[Command], bool]


def _released_by(
    resource: Resource, runs: Callable[[Command], list[str]], lookup: Functions, command: Command
) -> bool:
    """Whether the command releases the resource: one of the texts it runs (`runs`) does, or
    passes it to a function that releases its argument (`stop_server "$PID"`); not where a
    `sleep` of its background job runs first (`{ sleep 600; docker kill "$CID"; } &`: a
    watchdog, which releases it that much later, `_watchdog`)."""
    if command.background and _delayed_by(command) is not None:
        return False
    return any(
        _releases(resource, text) or _releases_by_call(resource, text, lookup)
        for text in runs(command)
    )


# `lsof -t -i:8000 | xargs kill`, `kill $(lsof -t -i tcp:8000)`: the processes that have the
# port open; `fuser -k 8000/tcp` (psmisc) too
_LSOF = lazy_compile(r"\blsof\b[^\n;&|)]*?\s-i\s*([^\s;&|)\"']*)")
_KILL_OF_LSOF = lazy_compile(r"\bkill\b[^;&|\n]*(?:\$\(|`)\s*(?:sudo\s+)?$")
_FUSER = lazy_compile(r"\bfuser\b[^\n;&|]*?\s-[A-Za-z]*k[^\n;&|]*?\s([^\s;&|/]+)/tcp\b")


def _kills_by_port(resource: Resource, text: str) -> bool:
    """Whether the text kills the processes that hold a port the server may listen on (its
    `--port`, where written out; any port where that or the killed one is not known)."""
    ports = [m.group(1) for m in _FUSER.finditer(text)]
    for match in _LSOF.finditer(text):
        piped = _PGREP_KILLS.search(text, match.end()) is not None
        if piped or _KILL_OF_LSOF.search(text[: match.start()]):
            ports.append(match.group(1).rsplit(":", 1)[-1])
    if not ports:
        return False
    own = _port_of(resource.acquired_by)
    return any(own is None or not port.isdigit() or port == own for port in ports)


def _port_of(command: Command) -> str | None:
    """The port a server's command line gives (`--port 8000`, `--port=8000`), if written out."""
    words = command.invocation.words
    for i, word in enumerate(words):
        value = word.value if word.static else ""
        if value == "--port" and i + 1 < len(words) and words[i + 1].static:
            given = words[i + 1].value
            return given if given.isdigit() else None
        if value.startswith("--port="):
            return value.removeprefix("--port=") if value[7:].isdigit() else None
    return None


def _kills_pgrep_held(resource: Resource, text: str) -> bool:
    """`VLLM_PID=$(pgrep -f "vllm serve")`, then `kill -2 "$VLLM_PID"`: the kill of a variable
    the script gives a pgrep's output ends what that pgrep finds (by name, `_kills_by_name`)."""
    killed = _KILLED_NAMES.search(text)
    if killed is None or "$" not in killed.group(0) or _NO_SIGNAL.match(killed.group(0)):
        return False
    held = _pgrep_held(resource.acquired_by.script.top)
    if not held:
        return False
    names = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", killed.group(0)))
    acquired = resource.acquired_by
    return any(
        _kills_by_name(resource, f"kill {value}")
        for name in names & held.keys()
        for value, where in held[name]
        # (not a list taken at the top level before a start there: h47 S1)
        if not (
            where.function is None
            and acquired.function is None
            and where.script is acquired.script
            and where.node.start_byte < acquired.node.start_byte
        )
    )


def _pgrep_held(script: Script) -> dict[str, list[tuple[str, Command]]]:
    """The variables the script gives a pgrep's output (`P=$(pgrep -f "vllm serve")`), with
    each such value's text and the command that gives it. Worked out once per script."""
    known = script.memo.get("BL103 pgrep held")
    if isinstance(known, dict):
        return known
    found: dict[str, list[tuple[str, Command]]] = {}
    for assignment in script.assignments:
        value = assignment.value
        if value is not None and ("pgrep" in value.text or _PS_GREP.search(value.text)):
            found.setdefault(assignment.name, []).append((value.text, assignment.command))
    script.memo["BL103 pgrep held"] = found
    return found


# `jobs -p`, `jobs -pr`, `jobs -r -p`: every job's PID (`-r`: the running ones; not `-l`, `-s`)
_JOBS_P = r"jobs(?:\s+-r+)*\s+-r*pr*(?:\s+-r+)*"
# `$(jobs -p)`, `` `jobs -p` ``
_JOBS_LIST = rf"(?:\$\(\s*{_JOBS_P}\s*\)|`{_JOBS_P}`)"
# `pids=$(jobs -pr)`, `pids=($(jobs -p))`: a variable given every job's PID
_JOBS_HELD = lazy_compile(rf"\b([A-Za-z_][A-Za-z0-9_]*)=\(?\"?{_JOBS_LIST}")
# `for pid in $(jobs -p); do`: a loop's variable given each job's PID in turn
_JOBS_LOOP = lazy_compile(rf"\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\s+\"?{_JOBS_LIST}")
# a kill that sends no signal: `kill -0` tests, `kill -l` lists
_NO_SIGNAL = lazy_compile(r"kill\s+(?:-0|-[lL]|--list|-[sn]\s*0)\b")


def _kills_jobs_held(text: str, script: Script, after: int = 0) -> bool:
    """`pids=$(jobs -pr); [ -n "$pids" ] && kill $pids`, `for pid in $(jobs -p); do kill
    "$pid"; done`: the kill of a variable the text gives every job's PID, or the script, last,
    after `after` (a byte offset of its file: where the process started) kills every job, as
    `kill $(jobs -p)` does. (`kill -0 $pids` sends nothing.)"""
    if "kill" not in text:
        return False
    held = {m.group(1) for m in _JOBS_HELD.finditer(text)}
    held |= {m.group(1) for m in _JOBS_LOOP.finditer(text)}
    held |= {name for name, at in _jobs_held(script).items() if at > after}
    if not held:
        return False
    return any(
        held & set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", killed.group(0)))
        for killed in _KILLED_NAMES.finditer(text)
        if not _NO_SIGNAL.match(killed.group(0))
    )


def _jobs_held(script: Script) -> dict[str, int]:
    """The variables the file's script gives every job's PID last (`PIDS=$(jobs -p)`, `for pid
    in $(jobs -p)`; not one assigned something else after it), with where that assignment
    is. Worked out once per script."""
    top = script.top
    known = top.memo.get("BL103 jobs held")
    if isinstance(known, dict):
        return known
    last: dict[str, tuple[int, bool]] = {}
    for a in sorted(top.assignments, key=lambda a: a.node.start_byte):
        jobs = (a.value is not None and _JOBS_HELD.match(f"{a.name}={a.value.text}")) or (
            a.kind == "for" and _JOBS_LOOP.match(top.text_of(a.command.node))
        )
        last[a.name] = (a.node.start_byte, bool(jobs))
    found = {name: at for name, (at, jobs) in last.items() if jobs}
    top.memo["BL103 jobs held"] = found
    return found


# a `kill` and the words it is given (up to an operator)
_KILLED_NAMES = lazy_compile(r"\bkill\b[^;&|\n]*")


# a handler that ends every background process of the script: its process group (`kill 0`,
# `kill -- -$$`) or every job (`kill $(jobs -p)`, `pkill -P $$`)
_KILL_ALL = lazy_compile(
    rf"\bkill(?!\s+-(?:L|{_SIGNAL_ZERO})\b)\s+(?:-[sn]\s+\w+\s+|-[A-Za-z0-9]+\s+)*"
    r"(?:--\s+)?"
    rf"(?:0\b|-\$\$|\"?{_JOBS_LIST}|%)"
    r"|\bpkill\s+(?:-[A-Za-z0-9]+\s+)*-P\s+\$\$"
    rf"|\b{_JOBS_P}\s*\|\s*xargs\s+(?:-[A-Za-z]+\s+)*kill\b"
)


# `pkill -f "vllm serve"`, `pkill vllm`, `killall vllm`, `pgrep -f vllm | xargs kill`,
# `kill $(pgrep python)`: ends processes by their name (with `-f`, by a pattern of the whole
# command line): the program and its words up to the end of its command
_BY_NAME = lazy_compile(r"\b(pkill|killall|pgrep)\s+([^\n]*)")
# what a pgrep's output is given to that kills: `| xargs [-r] kill`, or a `kill $(pgrep ...)`
_PGREP_KILLS = lazy_compile(r"\|\s*xargs\s+(?:-\S+\s+)*kill\b")
_KILL_OF_PGREP = lazy_compile(r"\bkill\b[^;&|\n]*(?:\$\(|`)\s*pgrep\b")


def _name_kills(text: str) -> Iterator[tuple[bool, bool, str]]:
    """(whether it matches the whole command line, `-f`; whether it matches a name as a
    pattern, as `pkill` and `pgrep` do without `-x`, not whole as `killall`; the pattern) of
    each command of the text that ends processes by their name."""
    for match in _BY_NAME.finditer(text):
        program, rest = match.group(1), match.group(2).split("`", 1)[0]
        if program == "pgrep" and not (
            _PGREP_KILLS.search(match.group(2))
            or _KILL_OF_PGREP.search(text, 0, match.start(1) + len(program))
        ):
            continue  # (a pgrep whose output nothing kills)
        try:  # (its words up to the first operator: `;`, `|`, `&&`, `)`...)
            lexer = shlex.shlex(rest, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            words = list(itertools.takewhile(lambda w: not w or w[0] not in ";&|()", lexer))
        except ValueError:
            continue
        read = read_kill(program, words)
        if read.pattern is not None and read.ends and not read.inverse:
            yield read.full, not read.whole, words[read.pattern]


def _kills_by_name(resource: Resource, text: str) -> bool:
    acquired = resource.acquired_by
    line = acquired.script.text_of(acquired.node)
    if any(launch.command is acquired for launch in launches(acquired.script, shapes=True)):
        # an engine is a Python program: its command line starts with the interpreter
        # (`python3 /usr/local/bin/vllm serve ...`), which `pkill -f python` matches
        line = f"python3 {line}"
    if _kills_line(acquired, _program(acquired), line, text):
        return True
    # (a script of the repository it runs, that runs an engine: `bash start.sh &`, whose
    # `exec python3 -m sglang.launch_server ...` `pkill -f sglang.launch_server` ends; t82b)
    held = acquired.script.top.memo.get(_ENGINES_RUN)
    engines = held.get(id(acquired), ()) if isinstance(held, dict) else ()
    for engine in engines:
        called = engine.script.text_of(engine.node).removeprefix("exec").strip()
        program = engine.invocation.base or engine.name
        if _kills_line(engine, program, f"python3 {called}", text):
            return True
    return False


# `ps -ef | grep "vllm serve" | grep -v grep | awk '{print $2}'`: a listing of the processes
# with their command lines, searched by `grep`, its PID column cut out by `awk` and given to a
# kill (`kill $(...)`, `pid=$(...)` then `kill $pid`, `| xargs kill`): as `pgrep -f` with each
# pattern (h46 M1)
_PS_GREP = lazy_compile(r"\bps\s[^|;&\n]*\|\s*[ef]?grep\b")
# `kill -9 $(` right before the listing, `kill -s TERM \``
_KILL_OF = lazy_compile(
    r"\bkill((?:\s+-[sn]\s+[A-Za-z0-9]+|\s+-[A-Za-z0-9]+|\s+--)*)\s+(?:\$\(|`)\s*$"
)
# the signals that end a process that does not handle them
_ENDING_SIGNALS = frozenset(
    {"", "9", "15", "2", "1", "3", "6", "KILL", "TERM", "INT", "HUP", "QUIT", "ABRT"}
)
# `head -1`, `tail -n 1`, `head --lines=1`: the list cut to one line
_ONE_LINE = frozenset({"-1", "-n1", "--lines=1"})
# `awk '{print $2}'`: the program that cuts out one column
_PRINT = lazy_compile(r"\{\s*print\s+\\?\$(\d+)\s*;?\s*\}")


def _ps_kills(text: str) -> Iterator[list[tuple[str, int]]]:
    """The patterns (a Python regular expression, its flags) of each `ps | grep ... | awk
    '{print $N}'` of the text that lists command lines whole, cuts out the PID column
    (`_pid_column`) and gives it to a kill that ends a process (`kill $(...)`, `| xargs kill`;
    not `kill -0`, `kill -STOP`, `xargs echo kill`), every one of which a process it finds
    matches. A `grep -v` of any word but `grep` itself, an option not known, a pattern
    anchored to the line's start or end (a listing's line starts with its user or PID): none.
    (A listing held in a variable, then killed: `_kills_pgrep_held`.)"""
    for match in _PS_GREP.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if _commented(text[line_start : match.start()]):
            continue  # (in a comment: `# ps -ef | grep vllm | ... | xargs kill`)
        line_end = re.search(r"(?<!\\)\n", text[match.start() :])
        piece = text[match.start() : match.start() + line_end.start() if line_end else None]
        if text[line_start : match.start()].rstrip().endswith("`"):
            piece = piece.split("`", 1)[0]  # (``kill -9 `ps -ef | ...` ``)
        try:
            lexer = shlex.shlex(piece, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            words = list(itertools.takewhile(lambda w: not w or w[0] not in ";&()`", lexer))
        except ValueError:
            continue
        segments: list[list[str]] = [[]]
        for word in words:
            if word == "|":
                segments.append([])
            elif word.startswith("|"):
                break  # (`||`: what follows is not the listing's)
            else:
                segments[-1].append(word)
        column = _pid_column(segments[0][1:])
        if column is None:
            continue
        patterns: list[tuple[str, int]] = []
        rest = segments[1:]
        while rest and rest[0] and rest[0][0] in ("grep", "egrep", "fgrep"):
            found = _grep_pattern(rest.pop(0))
            if found is None:
                patterns = []
                break
            if found[0]:
                patterns.append(found)
        printed = _PRINT.fullmatch(" ".join(rest[0][1:]).strip()) if rest and rest[0] else None
        if (
            not patterns
            or not rest
            or rest[0][:1] != ["awk"]
            or printed is None
            or int(printed.group(1)) != column
        ):
            continue
        # (a list cut to its first line, or sorted: the PIDs the kill gets still hold it)
        after = [segment for segment in rest[1:] if not _keeps(segment)]
        killed = _KILL_OF.search(text, 0, match.start())
        piped = len(after) == 1 and _xargs_kills(after[0])
        if piped or (not after and killed is not None and _ends_process(killed.group(1).split())):
            yield patterns


def _keeps(segment: list[str]) -> bool:
    """Whether a command after the cut of the PID column leaves the server's PID in the list
    (one line of it, sorted, joined): `head -1`, `tail -n 1`, `sort -n`, `uniq`, `tr '\\n' '
    '`; not `tail -n +2`, `head -n 0`, `uniq -u`, `tr -d` (h49 S3, h50 F3)."""
    program, options = segment[0] if segment else "", segment[1:]
    if program in ("head", "tail"):
        joined = "".join(options) if options[:1] == ["-n"] else " ".join(options)
        return joined in ("1", "-n1") or " ".join(options) in _ONE_LINE
    if program == "sort":
        return True
    if program == "uniq":
        return not options
    if program == "tr":
        return not any(o.startswith("-") and "d" in o for o in options)
    return False


def _commented(line: str) -> bool:
    """Whether the text that starts a line has begun a comment: a `#` that starts a word,
    outside quotes (not `echo "step #1";`: h49 F4)."""
    quote, escaped = "", False
    for index, char in enumerate(line):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True  # (`echo "a \" #b"`: the quote escaped: h50 F5)
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1] in " \t;&|("):
            return True
    return False


def _pid_column(options: list[str]) -> int | None:
    """The column of the PID in what `ps` lists with these options, where each line ends
    with the process's whole command line: `-ef` (2), `aux` (2), `ax` (1), `-e -o pid,args`
    or `axo pid,args` (the place of `pid`; `args`, `cmd` or `command` last). None for any
    other listing (`ps -e`'s names of 15 characters, `-elf`'s columns, a format of `comm`)."""
    letters, formats, wanted = "", [], False
    for option in options:
        if wanted:
            formats.append(option)
            wanted = False
        elif option == "--format":
            wanted = True
        elif option in ("--no-headers", "--noheaders"):
            continue
        elif option.startswith("--"):
            return None  # (`--sort`, `--forest`, ...: not read)
        else:
            body = option.lstrip("-")
            wanted = body.endswith("o")
            letters += body.removesuffix("o")
    flags = set(letters)
    dashed = any(o.startswith("-") for o in options)
    if formats:
        fields = ",".join(formats).split(",")
        every = flags & set("eA") or {"a", "x"} <= flags
        if not every or not flags <= set("eAaxw") or "pid" not in fields:
            return None
        return fields.index("pid") + 1 if fields[-1] in ("args", "cmd", "command") else None
    if dashed and flags != {"a", "u", "x"}:  # (`ps -aux` is read as `ps aux`)
        return 2 if "f" in flags and flags & set("eA") and flags <= set("eAfaw") else None
    if {"a", "x"} <= flags and flags <= set("auxwf"):
        return 2 if "u" in flags else 1
    return None


def _xargs_kills(words: list[str]) -> bool:
    """`xargs [-r] kill [-9]`: the list given to a kill that ends a process."""
    index = 1
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in ("-n", "-P", "-L", "-s", "-d") else 1
    return (
        words[:1] == ["xargs"]
        and words[index : index + 1] == ["kill"]
        and _ends_process(words[index + 1 :])
    )


def _ends_process(options: list[str]) -> bool:
    """Whether `kill` with these options sends a signal that ends a process (none given: TERM;
    not `-0`, `-l`, `-STOP`, `-USR1`)."""
    signal = ""
    for index, option in enumerate(options):
        if option in ("-s", "-n") and index + 1 < len(options):
            signal = options[index + 1]
        elif (
            option.startswith("-")
            and option not in ("-s", "-n", "--")
            and (index == 0 or options[index - 1] not in ("-s", "-n"))
        ):
            signal = option[1:]
    return signal.upper().removeprefix("SIG") in _ENDING_SIGNALS


def _grep_pattern(words: list[str]) -> tuple[str, int] | None:
    """A `grep`'s pattern as a Python regular expression (a basic one's `\\(`, `\\|`, `\\+`
    read as grep reads them; `-E`, `-F`, `-i`, `-w`), and its flags; ("", 0) for `-v grep`
    (drops the search's own line); None for any other option or more than one pattern."""
    letters = {"E"} if words[0] == "egrep" else {"F"} if words[0] == "fgrep" else set()
    pattern = None
    for word in words[1:]:
        if word.startswith("-") and pattern is None and len(word) > 1:
            if not set(word[1:]) <= set("EFiwv"):
                return None
            letters |= set(word[1:])
        elif pattern is None:
            pattern = word
        else:
            return None  # (a file to search: not the listing)
    if pattern is None:
        return None
    if "v" in letters:
        return ("", 0) if pattern in ("grep", "[g]rep") else None
    if "F" in letters:
        found = re.escape(pattern)
    elif "E" in letters:
        found = pattern
    else:  # (a basic expression: `+ ? | ( ) { }` are plain, their escaped forms operators)
        found = re.sub(
            r"\\([+?|(){}])|([+?|(){}])",
            lambda m: m.group(1) or "\\" + m.group(2),
            pattern,
        )
    # (a variable stands for any text, as in a `pkill -f` pattern; one made of nothing else
    # finds what is not known)
    found = re.sub(r"\\?\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", ".*", found)
    if not re.search(r"\w", found.replace(".*", "")) or re.search(r"(?<!\\)[$^]", found):
        return None  # (nothing to find; or anchored to a listing line's ends)
    if "w" in letters:
        found = rf"\b(?:{found})\b"
    return found, re.IGNORECASE if "i" in letters else 0


def _kills_line(acquired: Command, program: str | None, line: str, text: str) -> bool:
    """Whether the name kills of `text` end the process the command starts, whose program is
    `program` and whose command line is `line`."""
    plain = line.replace('"', "").replace("'", "")
    if "grep" in text:
        for patterns in _ps_kills(text):
            try:
                if all(re.search(p, plain, f) for p, f in patterns):
                    return True
            except re.error:
                continue
    for full, partial, pattern in _name_kills(text):
        if pattern == program:
            return True
        if partial and program is not None and not full:
            # (`pkill python` ends `python3 -m sglang.launch_server`: a pattern searched in the
            # process's name, the first 15 characters of its program's)
            try:
                if re.search(pattern, program.rsplit("/", 1)[-1][:15]):
                    return True
            except re.error:
                continue
        if full:
            # a variable in the pattern stands for any text; the line is matched as the
            # process's command line has it, without the shell's quotes
            found = re.sub(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", ".*", pattern)
            if not re.search(r"\w", found.replace(".*", "")):
                continue  # (`pkill -f "$PATTERN"`: what it ends is not known)
            try:
                if re.search(found, plain) or _may_match(found, acquired):
                    return True
            except re.error:
                continue
    return False


def _may_match(found: str, acquired: Command) -> bool:
    """Whether a `pkill -f` pattern may match a launch line that holds variables: its first
    part names the program as the line writes it (`sglang.launch_server`, not a bare
    interpreter), and each later part is in the line, or may be in a variable's value there:
    an option whose value on the line is an expansion (`--port ${PORT}` for `--port 8188`;
    the script's one plain value for it decides), or one the line does not write while an
    unquoted expansion may hold it (`launch_server ${ARGS}`). An option the line gives another
    value (`--port 8000` for `--port 8001`) is another server's."""
    line = acquired.script.text_of(acquired.node).replace('"', "").replace("'", "")
    head, *rest = [part for part in found.split(".*") if part.strip()] or [""]
    if not _NAMED.search(_INTERPRETER.sub("", head)) or not re.search(head, line):
        return False
    if "$" not in line:
        return False
    words = acquired.words
    for part in rest:
        if re.search(part, line):
            continue
        option = re.match(r"\s*(-{1,2}[A-Za-z][\w-]*)[ =](.*)", part)
        given = [i for i, w in enumerate(words) if option and w.value == option.group(1)]
        if option is not None and given and given[-1] + 1 < len(words):
            value = words[given[-1] + 1]
            known = value.value if value.static else _one_value(acquired, value)
            if known is not None and not re.fullmatch(option.group(2).strip(), known):
                return False  # (`--port 8000`: another server's pattern)
            continue
        split = acquired.base == "eval"  # (eval splits a quoted string's values again)
        if not any(not w.static and (split or not w.text.startswith('"')) for w in words):
            return False  # (nothing on the line may hold it)
    return True


def _one_value(command: Command, word: Word) -> str | None:
    """The one plain value the script gives a word that is a lone variable (`$PORT` after
    `PORT=8000`), else None."""
    name = re.fullmatch(r'"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?', word.value)
    if name is None:
        return None
    given = [a.value for a in command.script.assignments if a.name == name.group(1) and a.value]
    values = {value.value for value in given}
    return values.pop() if len(values) == 1 and all(value.static for value in given) else None


# a pattern's part that names a program or module (`sglang.launch_server`, `vllm serve`), once
# an interpreter's name is taken out of it (every engine's command line starts with one)
_NAMED = lazy_compile(r"[A-Za-z_]{3,}")
_INTERPRETER = lazy_compile(r"python[0-9.]*|bash|\bsh\b|env")


def _releases(resource: Resource, text: str) -> bool:
    if resource.what == "background process" and "stop" in text and _stops_service(resource, text):
        return True
    if resource.what == "background process" and ("kill" in text or "fuser" in text):
        if _KILL_ALL.search(text):
            return True
        if (
            "pkill" in text or "killall" in text or "pgrep" in text or _PS_GREP.search(text)
        ) and _kills_by_name(resource, text):
            return True
        if ("lsof" in text or "fuser" in text) and _kills_by_port(resource, text):
            return True
        if _kills_pgrep_held(resource, text):
            return True
        statement = resource.statement
        after = statement.node.end_byte if statement.script is statement.script.top else 0
        if _kills_jobs_held(text, statement.script, after):
            return True
    if not resource.release.search(text):
        return False
    if resource.variable is None:
        return not _removes_others(resource, text)
    return _reading(resource.names).search(text) is not None


def _stops_service(resource: Resource, text: str) -> bool:
    """Whether the text runs the program the background process was started as a service
    with (`collect_metrics.sh start ... &`) with `stop`: the program's own way to end what its
    `start` runs (llm-d-benchmark's harnesses, h14); the same program by its name, any folder."""
    started = resource.acquired_by.invocation
    args = started.args
    program = started.base
    if program is None or not args or not args[0].static or args[0].value != "start":
        return False
    name = re.escape(program)
    return re.search(rf"(?:^|[\s;&|(/])(?:{name})\s+stop\b", text) is not None


# the containers a `docker rm`/`stop`/`kill` names, up to the end of its command
_DOCKER_OPERANDS = lazy_compile(r"\bdocker\s+(?:rm|stop|kill)\b([^;&|\n)`]*)")
# an operand that is one variable's value: `$NAME`, `"${NAME}"`
_ONE_VARIABLE = lazy_compile(r'"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?')


def _removes_others(resource: Resource, text: str) -> bool:
    """Whether the text's `docker rm`/`stop`/`kill` surely names other containers than a
    detached one its `--name "$NAME"` names: each container it names is a variable's value,
    and every value the script gives those variables (plain text, at its top level) differs
    from every one it gives the container's (`docker rm -f "$ENVOY_NAME"` before the router's
    `docker run -d --name "$ROUTER_NAME"`; t76a, semantic-router). A name written out, a
    `$(...)`, a variable given another value (a `local name="$1"`, a loop's, one only a sourced
    file or the caller sets): it may be this one (as before)."""
    if resource.what != "detached container" or not resource.handles:
        return False
    if _reading(resource.names).search(text) or not _named_by_one_variable(resource):
        return False
    named: set[str] = set()
    for match in _DOCKER_OPERANDS.finditer(text):
        for operand in match.group(1).split():
            if operand.startswith("-") or ">" in operand or "<" in operand:
                continue  # (an option, a redirection)
            variable = _ONE_VARIABLE.fullmatch(operand)
            if variable is None:
                return False
            named.add(variable.group(1))
    if not named:
        return False
    script = resource.acquired_by.script.top
    ours = _plain_values(script, resource.handles)
    theirs = _plain_values(script, frozenset(named))
    return ours is not None and theirs is not None and not ours & theirs


def _named_by_one_variable(resource: Resource) -> bool:
    """Whether the container's `--name` is one variable's value (`--name "$NAME"`, `--name=$NAME`),
    not a text built from one (`--name "bench-${TAG}"`)."""
    container = next(
        (
            w
            for w in resource.acquired_by.invocation.wrappers
            if w.name in ("docker run", "podman run")
        ),
        None,
    )
    words = container.words if container is not None else []
    for index, word in enumerate(words):
        if word.static and word.value == "--name" and index + 1 < len(words):
            return _ONE_VARIABLE.fullmatch(words[index + 1].text) is not None
        if word.text.startswith("--name="):
            return _ONE_VARIABLE.fullmatch(word.text.removeprefix("--name=")) is not None
    return False


def _plain_values(script: Script, names: frozenset[str]) -> set[str] | None:
    """Every value the script gives the variables, each plain text assigned at its top level
    (`NAME="router"`, `NAME=${NAME:-router}` not); None when one is given another way, or
    none (the caller's, a sourced file's, a loop's or a function's)."""
    values: set[str] = set()
    for name in names:
        given = [a for a in script.assignments if a.name == name]
        if not given:
            return None
        for assignment in given:
            word = assignment.value
            if (
                word is None
                or not word.static
                or assignment.kind not in ("assign", "export", "declare", "readonly")
                or assignment.command.function is not None
                or assignment.command.loops
            ):
                return None
            values.add(word.value)
    return values


# `$1`, `${1:-}`, `"$@"`: what a function's caller passed it
_POSITIONAL = lazy_compile(r"\$(?:[1-9@*]|\{[1-9@*](?:[:#%/^,-][^}]*)?\})")


def _handler_releases(resource: Resource, trap: Trap, lookup: Functions) -> bool:
    """Whether a trap's handler releases the resource: its own text or the body of a function
    it calls (see `Flow.traps`), each read alone (`wait_or_report "$MASTER_PID"` releases
    nothing where the function kills another PID), or through a function it passes the
    resource to."""
    return any(
        _releases(resource, part) or _releases_by_call(resource, part, lookup)
        for part in trap.parts
    )


def _releases_by_call(resource: Resource, text: str, lookup: Functions) -> bool:
    """A handler that passes the resource to a function that releases its argument
    (`cleanup() { stop_background_process_tree "$SERVER_PID"; }`, the function from a library
    the script sources)."""
    if resource.variable is None:
        return False
    reading = _reading(resource.names)
    for name, arguments in calls_in(text):
        where = lookup(name) if reading.search(arguments) else None
        if where is not None and _releases_argument(where, name, resource.release, lookup):
            return True
    return False


def _releases_argument(
    script: Script, function: str, release: re.Pattern[str], lookup: Functions, depth: int = 0
) -> bool:
    """Whether a function releases what its caller passes it: a command of its body that
    releases (`kill`) and reads an argument (`"$1"`, or a local given one: `local
    root_pid="${1:-}"`), or passes one to a function that does (two calls deep)."""
    body = script.body(function)
    given = {
        a.name
        for command in body
        for a in command.assignments
        if a.value is not None and _POSITIONAL.search(a.value.value)
    }
    argument = re.compile(
        _POSITIONAL.pattern + ("|" + _reading(frozenset(given)).pattern if given else "")
    )
    for command in body:
        text = script.text_of(command.node)
        if not argument.search(text):
            continue
        if release.search(text):
            return True
        base = command.base
        if depth < 1 and base is not None and base != function:
            where = lookup(base)
            if where is not None and _releases_argument(where, base, release, lookup, depth + 1):
                return True
    return False


@functools.lru_cache(maxsize=256)
def _reading(names: frozenset[str]) -> re.Pattern[str]:
    """`$NAME` or `${NAME` of any of the names."""
    return re.compile(rf"\$\{{?(?:{'|'.join(re.escape(n) for n in sorted(names))})\b")


# Commands that tell whether a resource is alive: an exit they guard is taken only when it is not.
_LIVENESS = lazy_compile(
    r"\b(?:docker|podman)\s+(?:ps|inspect|container\s+inspect)\b|\bkill\s+-0\b|\bsqueue\b"
    r"|\bps\s+-p\b|\bpgrep\b|\bwait\s+[\"']?\$"
)


def _stops_before_failing(resource: Resource) -> bool:
    """Whether the function that acquires the resource fails only after releasing it: each
    `return N`/`exit N` (N not 0) of its body follows a release in its branch, and its last
    statement cannot fail with it running (an `if`, `return 0`, a message)."""
    acquired = resource.acquired_by
    script, function = acquired.script, acquired.function
    if function is None:
        return False
    body = [c for c in script.commands if c.function == function]
    failing = [
        e
        for e in body
        if e.base in ("return", "exit") and [w.value for w in e.args][:1] not in ([], ["0"])
    ]
    if not failing or not all(
        any(
            r.guards == e.guards
            and acquired.node.end_byte <= r.node.start_byte
            and r.node.end_byte <= e.node.start_byte
            and _releases(resource, script.text_of(r.node))
            for r in body
        )
        for e in failing
    ):
        return False
    last = max(body, key=lambda c: c.node.start_byte)  # (the body's last command)
    return bool(last.guards) or last.base in ("return", "exit", "true", ":", "echo")


def _about_itself(resource: Resource, path: ExitPath) -> bool:
    """An exit taken only when the acquisition failed (`if ! salloc ...; then exit 1; fi`,
    `[ -z "$JOB_ID" ] && exit 1`), or when the resource is not alive (`kill -0 "$PID" || exit
    1`, `docker ps | grep -q "$name"`)."""
    script = path.command.script
    # (the acquisition, or the call of the function that acquires it, `start_server || exit
    # 1`, where the function stops it itself before it fails: t84c; not where it may fail
    # with the server running, `curl ... ` its last command: t84d)
    acquirers = [resource.acquired_by]
    if resource.statement is not resource.acquired_by and _stops_before_failing(resource):
        acquirers.append(resource.statement)
    for guard in path.command.guards:
        node = guard.node
        for acquirer in acquirers:
            acquired = acquirer.node
            if (
                acquirer.script is script
                and not guard.patterns
                and node.start_byte <= acquired.start_byte
                and acquired.end_byte <= node.end_byte
            ):  # the condition is the acquisition: taken when it failed, nothing was acquired
                negated = script.text_of(node).lstrip().startswith("!")
                if guard.expect == negated:
                    return True
    names = resource.names
    if not names:
        return False
    command = path.command
    if (  # `kill -0 "$PID"` under `set -e` fails only when the process is already gone (`wait
        # "$PID"`: when it has ended with a failure)
        path.kind == "errexit"
        and _LIVENESS.search(script.text_of(command.node))
        and any(read.name in names for word in command.words for read in word.reads())
    ):
        return True
    for guard in path.command.guards:
        if any(read.name in names for read in guard.test_reads):
            return True
        alive = not guard.patterns and _LIVENESS.search(script.text_of(guard.node))
        if alive and any(read.name in names for read in guard.reads):
            return True
    return False


# commands whose failure under `set -e` is seldom what ends a script (a message or a pause)
# commands that seldom fail, not the exit path a message names where another can end the script
# (`cd` into a folder of the checkout: h94 W1)
_SELDOM = frozenset(
    {"echo", "printf", "sleep", "tail", "head", "true", ":", "date", "hostname", "cd", "mkdir"}
)


def _seldom_fails(path: ExitPath) -> bool:
    return path.kind == "errexit" and path.command.base in _SELDOM


def _described(path: ExitPath, resource: Resource) -> str:
    """The exit path as the message names it: of a called function's `exit`s, those not taken
    only when the resource is already gone (`! kill -0 "$PID"` before `exit 1`)."""
    return path.describe(lambda c: not _about_itself(resource, ExitPath(c, "exit")))


def _released_before(
    flow: Flow, path: ExitPath, start: int, released: Released, names: frozenset[str] = frozenset()
) -> bool | None:
    """A release between the acquisition and the exit that runs before it: True for one on the
    exit's own path (under no condition, nor in a loop, the exit is not under too; a condition
    that tests the resource itself, `[ -n "$PID" ]` or `kill -0 "$PID"` of its `names`, holds
    wherever it is held); None for
    one that may (under a condition the model cannot relate to the exit's: `[[ $DRY_RUN -eq 0
    ]] && kill $PID` after a start in the `else` of `[[ $DRY_RUN -eq 1 ]]`, or in a loop's
    body), where the leak depends on values benchlint does not know (counted, not reported).
    Not one in a branch that then always ends the script, the exit outside it (`if ! ready;
    then kill "$PID"; exit 1; fi`): where it runs, the exit never does."""
    end = flow.place_of(path.command)
    script, at = flow.script, path.command

    def ends_first(release: Command) -> bool:
        """The release is followed in its branch by an `exit` the exit path is not in (a
        `return` too, in the function body both are in: `rm -rf "$TMP"; return 1`), or by a
        `continue` or `break` of a loop the exit path is in (`if ! ready; then kill_server;
        continue; fi`: the exit never follows it in that pass)."""
        inside = release.function is not None and release.function == at.function
        ends = ("exit", "return") if inside else ("exit",)
        return any(
            e.node.end_byte <= at.node.start_byte and at.guards[: len(e.guards)] != e.guards
            for e in _branch_exits(script, release, ends)
        ) or any(
            e.loops and e.loops[-1] in at.loops
            for e in _branch_exits(script, release, ("continue", "break"))
        )

    acquired = flow.statements[start]

    def surely(release: Command) -> bool:
        """It runs whenever the exit does, or whenever the resource was acquired: its
        conditions and loops are the exit's, or the acquisition's (`if [[ -n "$SERVER" ]];
        then bench & PID=$!; ...; wait "$PID"; fi`, then an exit after the `fi`), with no
        `break`, `continue` or `return` between that could leave before it."""
        guards = [g for g in release.guards if not _tests_itself(g, names)]
        return any(
            [g for g in other.guards if not _tests_itself(g, names)][: len(guards)] == guards
            and other.loops[: len(release.loops)] == release.loops
            and (other is at or not _left_between(script, acquired, release, at))
            for other in (at, acquired)
        )

    maybe = False
    for command in flow.statements[start + 1 : end]:
        if exclusive(command, at) or not released(command):
            continue
        # (a loop is a statement whose text holds its body's: the commands in it that release)
        first, last = command.node.start_byte, command.node.end_byte
        inner = [
            c
            for c in script.commands
            if c is not command and first <= c.node.start_byte < last and released(c)
        ]
        running = [c for c in inner or [command] if not ends_first(c)]
        if any(surely(c) for c in running):
            return True
        maybe = maybe or bool(running)
    return None if maybe else False


def _tests_itself(guard: Guard, names: frozenset[str]) -> bool:
    """A condition that asks whether the resource is there: a test of one of its names (`[ -n
    "$PID" ]`) or its liveness (`kill -0 "$PID"`), on the branch where it is (`then`, `&&`)."""
    if not names or guard.patterns or not guard.expect:
        return False
    if any(read.name in names for read in guard.test_reads):
        return True
    alive = _LIVENESS.search(guard.script.text_of(guard.node))
    return alive is not None and any(read.name in names for read in guard.reads)


def _left_between(script: Script, first: Command, then: Command, at: Command) -> bool:
    """Whether a `break`, `continue` or `return` between the two commands (in the text) may
    leave before the second runs, and reach the exit `at` then: not a `return` of the exit's
    own function, nor a `break` or `continue` of a loop the exit is in (they leave it too), or
    of loops the second is not in (`tail -f log | while read l; do ...; break; done` before a
    `kill`: the loop ends before it)."""
    start, end = first.node.end_byte, then.node.start_byte
    for c in script.commands:
        if not start <= c.node.start_byte < end:
            continue
        if c.base == "return" and c.function != at.function:
            return True
        if c.base in ("break", "continue") and not (c.loops and c.loops[-1] in at.loops):
            count = c.args[0].value if c.args and c.args[0].static else "1"
            levels = int(count) if count.isdigit() and int(count) > 0 else len(c.loops)
            if not c.loops or c.loops[-min(levels, len(c.loops))] in then.loops:
                return True  # (it leaves a loop the release is in; one before it, it does not)
    return False


def _waits_on(command: Command, names: frozenset[str]) -> bool:
    """`wait "$PID"` of one of these variables: it returns once that process has ended."""
    return command.base == "wait" and any(
        read.name in names for word in command.args for read in word.reads()
    )


# what runs the builtin after it in this shell (`command wait`, `builtin wait`, `eval wait`:
# its words are the command again; `time wait` is read as `wait`)
_IN_SHELL = IN_THIS_SHELL | {"eval"}
# the last job sent to the background, by `$!` or by job spec
_LAST_JOB = frozenset({"$!", "${!}", "%%", "%+"})


def _starts_job(command: Command) -> bool:
    """Whether the command may send a job to the background of its shell (and set `$!`): `&`,
    a process substitution, `coproc`, a file sourced, an `eval` (not `eval wait ...`), a call
    of a function of the script whose body may."""
    script = command.script
    words = command.words
    if command.background or command.base in ("coproc", "source", "."):
        return True  # (a file sourced may start one: h83 R3)
    if command.base == "eval":
        return not (len(words) > 1 and words[1].value == "wait")
    text = script.text_of(command.node)
    if "<(" in text or ">(" in text:
        return True
    return command.base in script.functions and _body_starts_job(script, command.base)


def _body_starts_job(script: Script, name: str) -> bool:
    """Whether a function's body may send a job to the background: a command of it that does,
    or a call of a function (taken as starting one). Worked out once per function."""
    known = script.memo.setdefault("bl103-body-jobs", {})
    assert isinstance(known, dict)
    if name not in known:
        defined = script.functions[name]
        known[name] = any(
            defined.start_byte <= c.node.start_byte < defined.end_byte
            and (c.base in script.functions or _starts_job(c))
            for c in script.commands
        )
    return bool(known[name])


def _only_job(script: Script, start: Command) -> bool:
    """Whether the process started at `start` is the only job its shell may have had: no
    command before it may have sent one to the background (in the text: a function defined
    before it and called later counts too)."""
    outer = start.loops[:1]  # (in a loop, one after it starts a job before the next pass)
    return not any(
        (c.node.start_byte < start.node.start_byte or (outer and c.loops[:1] == outer))
        and c is not start
        and _starts_job(c)
        for c in script.commands
    )


def _wait_words(words: list[Word]) -> tuple[bool, list[str]] | None:
    """A `wait`'s options read off (`-n`, `-f`, `-p NAME`, `--`): whether it waits for the
    next job to end (`-n`), and the ids it is given; None for what it cannot be read as."""
    next_job, given, i = False, list[str](), 1
    while i < len(words):
        text = words[i].text.strip('"')
        if not words[i].static and not given and text.startswith("-"):
            return None
        if given or not text.startswith("-") or text == "-":
            given.append(text)
        elif text == "--":
            given = []
            given.extend(w.text.strip('"') for w in words[i + 1 :])
            break
        elif text in ("-n", "-f", "-nf", "-fn"):
            next_job = next_job or "n" in text
        elif text == "-p" and i + 1 < len(words):
            i += 1
        else:
            return None
        i += 1
    return next_job, given


def _covered(guards: tuple[Guard, ...], waits: list[tuple[Guard, ...]]) -> bool:
    """Whether a wait runs whenever the conditions `guards` hold: one under them alone, or
    waits in both branches of an `if` under them (`if ...; then wait; else wait $!; fi`)."""
    if guards in waits:
        return True
    depth = len(guards)
    branches = [w[depth] for w in waits if len(w) > depth and w[:depth] == guards]
    return any(
        not g.patterns
        and _covered((*guards, g), waits)
        and any(
            o.node is g.node
            and o.expect != g.expect
            and not o.patterns
            and _covered((*guards, o), waits)
            for o in branches
        )
        for g in branches
        if g.expect
    )


def _waited_before(flow: Flow, path: ExitPath, start: int, resource: Resource) -> bool:
    """A `wait "$PID"` of the background process (or a plain `wait`) between its start and the
    exit, that runs whenever the exit does, or the start (in the script's shell, under no
    condition the exit, or the start, is not under, or in both branches of an `if` that is
    not): when it returns, the process has ended, and nothing is left to leak (`wait "$PID"
    || true`, then `cp server.log /results/` failing under `set -e`)."""
    names = resource.names
    if resource.what != "background process":
        return False
    at, script, started = path.command, flow.script, resource.statement

    def waits(command: Command) -> bool:
        # (a plain `wait` waits for every job: one whose `$!` is not kept too, or started in
        # a loop, `for ...; do vllm serve ... & wait; done`; `wait $!` before another job
        # goes to the background waits for it; h78 R9, F5)
        if disowned:
            return False  # (`disown`: no longer a job of the shell's; h79 R1)
        words = command.words
        while len(words) > 1 and words[0].value in _IN_SHELL and words[0].static:
            words = words[1:]  # (`command wait`, `builtin wait`, `eval wait`)
        if not words or words[0].value != "wait":
            return _waits_on(command, names)
        read = _wait_words(words)
        if read is None:
            return False
        next_job, given = read
        if next_job and len(given) != 1:
            # (`wait -n`: the next job to end; the process's when it is the only one: h79 F2)
            # (in a loop, each pass's when the wait is in that pass: `for ...; do vllm serve
            # ... & ...; wait -n; done`)
            in_loop = command.loops[: len(started.loops)] == started.loops
            return not given and not later and in_loop and _only_job(script, started)
        if not given:
            return True
        if len(given) != 1:
            return _waits_on(command, names)
        # (`wait $!`, `wait ${!}`, `wait -- $!`, `wait %%`: the last job; `wait %1` or
        # `wait %vllm`, the only one; h79 F2)
        spec = given[0]
        if spec in _LAST_JOB:
            return not later or _waits_on(command, names)
        # (`%vllm` names a job by its text, which a timed one starts with `time`: h83 R3)
        text = script.text_of(started.node)
        named = spec[:1] == "%" and not started.timed and text.startswith(spec[1:].lstrip("?"))
        job = not started.loops and (spec == "%1" or named)
        return (job and not later and _only_job(script, started)) or _waits_on(command, names)

    # (the exit path itself too: `waiter` failing returns only once the process has ended)
    end = flow.place_of(at) + (1 if flow.index(at) is not None else 0)
    saved = False  # (the statement that keeps its `$!` first: a later one is another job's)
    later = False  # (another job sent to the background since: `$!` is its)
    disowned = False
    found: dict[int, list[tuple[Guard, ...]]] = {id(at): [], id(started): []}
    for command in flow.statements[start + 1 : end]:
        # (`disown -h` keeps the job, only not signalled on a hang-up)
        disowned = disowned or (
            command.base == "disown" and not any(w.value == "-h" for w in command.args)
        )
        # (what may start a job: `&`, a process substitution, `coproc`, a file sourced, an
        # `eval`, a call of a function of the script that may; h79 R1, h83 R3)
        later = later or _starts_job(command)
        if any(a.name in names for a in command.assignments):
            if saved:
                return False  # (`SERVER_PID=$!` of another job: a wait from here on is its)
            saved = True
        if command.background or command.apart is not None or command.function != at.function:
            continue
        if not (waits(command) or _waiter(script, command, at, waits)):
            continue
        # (in the loops the exit, or the start, is in, with no `break`, `continue` or
        # `return` between that may leave first)
        others = [
            other
            for other in (at, started)
            if other.loops[: len(command.loops)] == command.loops
            and (other is at or not _left_between(script, started, command, at))
        ]
        for other in others:
            found[id(other)].append(tuple(command.guards))
            # (under no condition the exit, or the start, is not under, or in both
            # branches of one)
            if any(
                _covered(tuple(other.guards[:depth]), found[id(other)])
                for depth in range(len(other.guards) + 1)
            ):
                return True
    return False


def _waiter(
    script: Script, command: Command, at: Command, waits: Callable[[Command], bool]
) -> bool:
    """A call of a function of the script whose body waits for the process, under no condition
    of its own (`waiter`); not the exit path's own call when its body may exit first."""
    if command.base not in script.functions or command.base == at.function:
        return False
    defined = script.functions[command.base]
    body = [
        c
        for c in script.body(command.base)
        if defined.start_byte <= c.node.start_byte < defined.end_byte
    ]
    waiting = next(
        (c for c in body if waits(c) and not (c.guards or c.background or c.subshell)),
        None,
    )
    if waiting is None:
        return False
    return not (
        command is at
        and any(  # (the exit path's own call: an exit of its body before the wait ends the
            c.node.start_byte < waiting.node.start_byte  # script first)
            and not (c.subshell or c.background or c.apart)
            and (c.base == "exit" or function_exits(c, True))
            for c in body
        )
    )


_READ = lazy_compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def _move_trap(flow: Flow, start: int, trap_index: int, trap: Trap) -> Fix | None:
    """Move the `trap ... EXIT` line to just after the acquisition, or after the statements
    right behind it that set the handler's variables (`PID=$!`): offered only when no exit can
    come before that point, every function the handler calls is defined by then, and both are
    plain top-level lines (not in a branch, a function or a line with other commands on it)."""
    script = flow.script
    statement = trap.command
    reads = set(_READ.findall(trap.action))
    target = start
    for i in range(start + 1, trap_index):
        if reads.intersection(a.name for a in flow.statements[i].assignments):
            target = i
    if any(flow.place_of(p.command) <= target for p in flow.exits_between(start, trap_index)):
        return None
    after = flow.statements[target]
    handler = f"{trap.command.args[0].value} {trap.action}" if trap.command.args else trap.action
    called = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", handler)) & set(script.functions)
    if any(script.functions[f].start_byte > after.node.end_byte for f in called):
        return None  # the handler would call a function not defined yet
    lines = []
    for command in (statement, after):
        if command.guards or command.function is not None or command.script.parent is not None:
            return None
        span = script.span(command.statement())
        text = script.file.line_text(span.line)
        if (
            text[: span.column - 1].strip()
            or text[span.end_column - 1 :].strip()[:1]
            not in (
                "",
                "#",
            )
            or script.file.line_text(span.end_line)[span.end_column - 1 :].strip()[:1]
            not in ("", "#")
        ):
            return None
        lines.append((span.line, span.end_line))
    (trap_first, trap_last), (_, after_last) = lines
    if trap_first <= after_last + 1:  # already right after it (or before: not a move)
        return None
    file = script.file
    indent = re.match(r"[ \t]*", file.line_text(flow.statements[target].span.line))
    moved = "\n".join(file.line_text(n) for n in range(trap_first, trap_last + 1)).lstrip()
    insert = Edit(
        file.path,
        Span(after_last + 1, 1, after_last + 1, 1),
        (indent.group() if indent else "") + moved + "\n",
    )
    return Fix(
        f"move the trap to line {after_last + 1}, right after the acquisition",
        (insert, line_removal(file, trap_first, trap_last)),
        "unsafe",
    )


_SLURM = ("Slurm allocation", "Slurm batch job")
# Inside a job or a container a temporary directory goes with it; a background server does not
# (`srun --container-image` keeps a node's GPUs held by a server its entrypoint left running).
_HOST_ONLY = ("temporary directory",)
_IN_LOOP = (
    "background pipelines started in a loop without keeping `$!`, not checked (BL103: which of "
    "them still runs at an exit, and what releases it, is not modelled)"
)
_IN_IMAGE = (
    "background processes of scripts that run only in a container or a Slurm step (a "
    "Dockerfile copies them into its image and runs them, a `docker run` runs them as its "
    "command, or `srun` as its step's task), not reported (BL103: they end with the container "
    "or the step; a run of the script on a host would leave them running)"
)


@dataclass(eq=False)
class _Libraries:
    """The functions of the files a script sources, by name; and what checking a library
    function's body found, worked out once for all the scripts that call it: kept with the
    script it is about (`Script.derived`, this object the token), so freed with it."""

    functions: dict[str, Script] = field(default_factory=dict)

    def final_errexit(self, script: Script | None) -> bool | None:
        """What sourcing the file leaves."""
        if script is None:
            return None
        return script.derived("BL103-errexit", self, lambda: _final_errexit(script))

    def held(self, script: Script) -> set[str | None]:
        """The script's functions that may acquire something themselves."""
        return script.derived(
            "BL103-held",
            self,
            lambda: {
                c.function for c in script.commands if c.function is not None and _may_hold(c)
            },
        )

    def bodies(self, script: Script) -> dict[tuple[str, bool], list[tuple[Finding, Resource]]]:
        """What checking each function's body found, by function and errexit."""
        return script.derived("BL103-bodies", self, dict)

    def calls(self, script: Script) -> dict[str, tuple[list[Command], int | None]]:
        """Each function's calls of the script's functions (see `_body_calls`)."""
        return script.derived("BL103-calls", self, dict)


def _check_script(
    script: Script,
    sourced: bool | Callable[[], bool],
    functions: Functions | None = None,
    sourcing: Callable[[Command], bool | None] | None = None,
    libraries: _Libraries | None = None,
    undecided: list[Undecided] | None = None,
    inherited: Callable[[], bool] | None = None,
) -> Iterator[tuple[Finding, Resource | None]]:
    """The script's top level, then each function its top level calls: what the body acquires
    and releases itself (`run_tests() { vllm serve ... & PID=$!; vllm bench ...; kill $PID; }`),
    with the exits in the body, under errexit when a call runs with it; the exits it could not
    decide put in `undecided`."""
    lookup = functions or (lambda name: script if name in script.functions else None)
    libraries = libraries or _Libraries()
    flow = Flow(script, sourced, lookup, sourcing=sourcing, inherited=inherited)
    runs = functools.cache(functools.partial(_runs, script))  # (asked per resource and exit)
    seen: set[tuple[object, ...]] = set()
    # each flow: its script, its function (None: the top level), errexit where it is called,
    # and the statement of its first call
    flows: list[tuple[Script, str | None, bool, int | None]] = [(script, None, True, None)]
    followed = _followed(script, flow, libraries.functions, libraries.calls)
    for name, (errexit, called, defined) in followed.items():
        held = libraries.held(defined)
        if name in held or any(c.base in held for c in defined.body(name)):
            flows.append((defined, name, errexit, called))
    for finding in _killed_through_pipe(flow, lookup):
        yield finding, None
    for finding in _killed_through_shell(flow, lookup):
        yield finding, None
    every = flow.traps() if len(flows) > 1 else []
    for defined, function, errexit, first in flows:
        # (a function's: the top-level traps set before its first call cover it, and a trap
        # a function sets before it calls this one, where every call is so: `main() { trap
        # cleanup EXIT; run_tests; }`)
        outer = None
        if first is not None:
            outer = [(i, t) for i, t in every if i < first or _set_before_calls(t, function)]
        if defined is script:
            each = flow if function is None else Flow(script, False, lookup, function, errexit)
            found: Iterable[tuple[Finding, Resource]] = _check_flow(
                each, runs, lookup, outer, undecided
            )
        else:  # a library's function: its body checked once, the caller's traps each time
            bodies = libraries.bodies(defined)
            body = bodies.get((function or "", errexit))
            if body is None:
                had_tree = defined.has_tree
                each = Flow(defined, False, lookup, function=function, errexit=errexit)
                reading = functools.partial(_runs, defined)
                body = bodies[(function or "", errexit)] = list(
                    _check_flow(each, reading, lookup, [], undecided)
                )
                if not had_tree:  # (the library's tree, as the script's below)
                    defined.let_go_tree()
            found = (
                (f, r)
                for f, r in body
                if not any(_handler_releases(r, t, lookup) for _, t in outer or ())
            )
        for finding, resource in found:
            # (two starts in the branches of one function a call runs, `if ...; then $SERVER &
            # else ... $SERVER &; fi` in `run_server`: one finding at the call, for the first)
            key2 = (finding.location, _IN_FUNCTION_AT.sub(r"\1)", finding.message))
            if key2 not in seen:
                seen.add(key2)
                yield finding, resource


# the place of a start in a function a finding's call runs: "in `run_server` (lib.sh:274)"
_IN_FUNCTION_AT = lazy_compile(r"( in `[^`]+` \([^)\s]+):\d+\)")


def _killed_through_pipe(flow: Flow, lookup: Functions) -> Iterator[Finding]:
    """A program started at the head of a background pipeline (`vllm serve ... 2>&1 | tee
    server.log &`) whose `$!`, the pipeline's last command's, the script saves and kills:
    `kill "$PID"` ends `tee` and leaves the program running. The pipeline at the top level or
    in a function's body (`start_proxy() { ... | tee proxy.log & PROXY_PID=$!; }`); the kill
    after it, or in a function's body, itself or through a function given the PID
    (`stop "$PROXY_PID"` with `stop() { kill "$1"; }`)."""
    script = flow.script
    piped = {c.function or "" for c in script.commands if _own_job(c) and c.piped}
    if not piped:
        return
    bodies = [flow] + [Flow(script, False, lookup, name) for name in sorted(piped - {""})]
    for body in bodies:
        statements = body.statements
        for i, head in enumerate(statements):
            if not (_own_job(head) and head.piped) or (i and statements[i - 1].piped):
                continue
            last = next((j for j in range(i + 1, len(statements)) if not statements[j].piped), None)
            if last is None or not _own_job(statements[last]):
                continue
            name = _pid_saved(statements[last + 1 : last + 4], after=statements[last])
            if name is not None:
                yield from _pipe_finding(script, head, statements[last], name, lookup)


def _killed_through_shell(flow: Flow, lookup: Functions) -> Iterator[Finding]:
    """An engine launched in a list, group, condition or loop sent to the background as a
    whole (`cd /w && vllm serve ... &`, `{ setup; vllm serve ...; } &`) whose `$!`, the shell
    bash runs that statement in, the script saves and kills: `kill "$PID"` ends that shell and
    leaves the server running (bash 5.3 too: it execs the last command only of a subshell
    written as one: `_killed_through_subshell`); so does one in a string such a statement
    `eval`s or runs with `bash -c`, or in a function of the script it calls (`cd /w && eval
    "$CMD" &`, `( start_server ) &`). The statement at the top level or in a function's body
    (`$!` kept in a `local` there too), the kill as `_pipe_finding` finds it."""
    script = flow.script
    engines = _engines_by_statement(script)
    held = [c for c in script.commands if c.group is not None and id(c) in engines]
    if held:
        functions = {c.function or "" for c in held}
        bodies = [flow] + [Flow(script, False, lookup, name) for name in sorted(functions - {""})]
    else:
        bodies = []
    for body in bodies:
        statements = body.statements
        for i, command in enumerate(statements):
            group = command.group
            if group is None or (i + 1 < len(statements) and statements[i + 1].group == group):
                continue  # (the group's last statement: `$!` is read after it)
            outer = next(
                (c for c in statements[: i + 1] if c.group == group and id(c) in engines), None
            )
            if outer is not None and _execs(outer, engines[id(outer)]):
                continue  # (`cd /w && exec vllm serve ... &`, `eval "exec $CMD"`: the server
                # may be that shell)
            name = _pid_saved(statements[i + 1 : i + 4], _kinds(body), command)
            if outer is not None and name is not None:
                server = engines[id(outer)]
                sent = _Sent(script.text_of(group), help=_WITH_EXEC if server is outer else _ALONE)
                yield from _pipe_finding(script, server, command, name, lookup, sent)
        yield from _killed_through_subshell(script, body, engines, lookup)
    yield from _killed_through_job(flow, engines, lookup)


def _kinds(body: Flow) -> tuple[str, ...]:
    """The assignments that keep a `$!` in this body: in a function's, a `local` too."""
    return ("assign", "export", "local") if body.function else ("assign", "export")


def _engines_by_statement(script: Script) -> dict[int, Command]:
    """The engine launches of the script, by the command of its own text that runs each: the
    launch itself, the `eval`, `bash -c` (or `nohup bash -c`) or call of a function that evals
    its argument whose string holds it (the launch as bash runs it: not under `srun`, `ssh` or
    `docker exec`, whose `$!` is another program's), or a call of a function of the script
    whose body runs one in the foreground and execs none (`_function_server`). Worked out once
    per script."""
    known = script.memo.get("BL103 engines by statement")
    if isinstance(known, dict):
        return known
    found: dict[int, Command] = {}
    outers: list[tuple[Command, Command]] = []
    for launch in launches(script, shapes=True):
        outer: Command | None = launch.command
        while outer is not None and outer.script.parent is not None:
            parent = outer.script.parent
            if not (_runs_string_here(parent) or parent.name in parent.script.functions):
                outer = None
            else:
                outer = parent
        if outer is not None and id(outer) not in found:
            found[id(outer)] = launch.command
            outers.append((outer, launch.command))
    if script.parent is None:  # (in a `bash -c` string, bash may run a function's in place)
        servers: dict[str, Command | None] = {}
        for command in script.commands:
            name = command.name
            if name is None or name not in script.functions or id(command) in found:
                continue
            if name not in servers:
                servers[name] = _function_server(script, name, outers)
            server = servers[name]
            if server is not None and command.function != name:
                found[id(command)] = server
    script.memo["BL103 engines by statement"] = found
    return found


def _function_server(
    script: Script, name: str, outers: list[tuple[Command, Command]]
) -> Command | None:
    """The engine the function's definition in effect (the last) runs in its foreground (itself
    or in a string its commands run): not one it sends to the background, and none if it
    `exec`s one (the function's shell becomes the server)."""
    definition = script.functions[name]
    inside = [
        (outer, engine)
        for outer, engine in outers
        if outer.function == name
        and definition.start_byte <= outer.node.start_byte < definition.end_byte
    ]
    if any("exec" in (outer.base, engine.base) or _timed_exec(outer) for outer, engine in inside):
        return None
    return next((e for o, e in inside if not o.background and o.group is None), None)


def _execs(outer: Command, server: Command) -> bool:
    """Whether the shell that runs the outer command may become the server, or end, by an
    `exec`: of the outer command, of the server, or of any command of the string the outer
    command runs the server in (`eval "exec $CMD"`, whose string may be `cd /w && ...`)."""
    if "exec" in (outer.base, server.base):
        return True
    return server.script is not outer.script and any(
        c.base == "exec" for c in server.script.commands
    )


def _timed_exec(command: Command) -> bool:
    """`time exec vllm serve ...`: the job's shell becomes the server."""
    return command.timed and command.base == "exec"


def _runs_string_here(command: Command) -> bool:
    """`eval "..."` or `bash -c "..."`, behind no wrapper but `nohup` or `setsid` (which exec
    bash; `setsid` forks first only where it leads its process group, and then its `$!` is a
    process that ends at once): the string runs in this shell or a child of it."""
    invocation = command.invocation
    if not all(w.name in ("nohup", "setsid") for w in invocation.wrappers):
        return False
    return command.name == "eval" or invocation.base == "bash"


def _killed_through_subshell(
    script: Script, body: Flow, engines: dict[int, Command], lookup: Functions
) -> Iterator[Finding]:
    """The same for a subshell written as one and sent to the background (`( cd /w && vllm
    serve ... > log 2>&1 ) &`) where bash does not run the server in the subshell's place:
    bash 5.2 and later do so for its last command when it is a plain command with no redirect
    (and no trap is set): not for one with a redirect, in a pipeline, or before other commands
    (earlier releases never do). Without a redirect, which bash runs it is not known: not
    reported. A server in a string the subshell `eval`s, or in a function it calls, is its
    child; in one it runs with `bash -c`, as `_bash_keeps` says (the subshell runs that bash
    in its place when it is the plain last command: `$!` is then that bash's)."""
    members: dict[Syn, list[Command]] = {}
    for c in script.commands:
        group = c.group
        if group is not None and group.type == "subshell" and c.function == body.function:
            members.setdefault(group, []).append(c)
    for group, inside in members.items():
        outer = next((c for c in inside if id(c) in engines), None)
        if outer is None or _execs(outer, engines[id(outer)]):
            continue
        server = engines[id(outer)]
        last = max(inside, key=lambda c: c.node.start_byte)
        in_place = outer is last and not outer.redirects and outer.apart is None
        bash = outer.invocation.base == "bash" and server.script.parent is outer
        if in_place and (server is outer or (bash and not _bash_keeps(server))):
            continue  # (bash 5.2 runs it in the subshell's place: `$!` is the server's)
        after = [s for s in body.statements if s.node.start_byte >= group.end_byte][:3]
        name = _pid_saved(after, _kinds(body), outer)
        if name is None:
            continue
        if in_place and bash:
            sent = _bash_sent(outer, script.text_of(group))
        else:
            help = _WITH_EXEC if server is outer else _ALONE
            sent = _Sent(script.text_of(group), whose="the subshell bash runs it in", help=help)
        yield from _pipe_finding(script, server, outer, name, lookup, sent)


_ALONE = (
    "start it alone in the background (what comes before it, as its own statements: `cd /w`, "
    "then `vllm serve ... > server.log 2>&1 &`) and keep that `$!`"
)
_WITH_EXEC = (
    f"{_ALONE}; or, in a list or group, start it with `exec` (`cd /w && exec vllm serve ... &`)"
)


@dataclass(frozen=True)
class _Sent:
    """How a server runs in a job sent to the background whose `$!` is a shell: the statement,
    what it is and whose `$!` it has (for the message)."""

    statement: str
    what: str = "runs in a statement sent to the background as a whole"
    whose: str = "the shell bash runs it in"
    help: str = _WITH_EXEC
    ended: str = "that shell"  # (what the kill ends: GNU time is no shell; h83 W4)


def _bash_sent(command: Command, statement: str) -> _Sent:
    """A server `bash -c` (the command) runs as its child."""
    option = next((w.value for w in command.invocation.args[:1] if w.value.startswith("-")), "-c")
    return _Sent(
        statement,
        "runs as the child of a `bash -c` sent to the background",
        "that bash's (it runs a program in its own place only as the plain last command of its "
        "string, with nothing after its line but one newline)",
        help=f'start it with `exec` in the string (`bash {option} "exec vllm serve ... > '
        'server.log 2>&1" &`) and keep that `$!`',
    )


def _bash_keeps(server: Command) -> bool:
    """Whether `bash -c` surely runs the server as a child of its own (its `$!` then bash's,
    which a kill ends without it): the server has a redirect (`bash -c "vllm serve ... > log
    2>&1"`), is timed, piped or in a loop, a command of the string comes after it, the string
    sets a trap (not one of SIGINT or SIGQUIT, which a background job ignores), it is in an
    `if`, `case`, `{ }` group or `!` (not at the string's top level), or any text but one
    newline follows its line (a blank, a blank line, a comment line: bash 5.2 execs `"vllm
    serve m\n"`, not `"vllm serve m\n  "`; h124 M1). bash runs a plain last command in its
    place (since 5.1 after `cd /w &&` too, before 5.1 not: not known)."""
    # (`time` of a string's command, not read as blanks there: `bash -c "time vllm ..."`)
    timed = server.timed or server.name == "time"
    if server.redirects or server.piped or server.apart is not None or timed:
        return True
    if server.loops or not server.at_top_level:  # (in an `if`, a `{ }`: h123 M12)
        return True
    if not server.ends_its_text:
        return True
    end = server.node.end_byte
    return any(
        (c.node.start_byte >= end and c.function is None) or _traps_here(c)
        for c in server.script.commands
    )


def _traps_here(command: Command) -> bool:
    """A `trap` that sets a handler bash keeps running for: not `''` or `-`, nor one for
    SIGINT or SIGQUIT alone, which a job sent to the background ignores (bash 5.2 execs the
    last command after `trap "..." INT`, not after `trap "..." TERM`; h126 F2)."""
    if command.base != "trap":
        return False
    args = [w.value for w in command.trap_args]
    if not args or args[0] in ("", "-", "-p", "-l"):
        return False
    return any(s.upper().removeprefix("SIG") not in ("INT", "QUIT", "2", "3") for s in args[1:])


def _killed_through_job(
    flow: Flow, engines: dict[int, Command], lookup: Functions
) -> Iterator[Finding]:
    """A server in a job sent to the background alone whose `$!`, the shell bash runs the job
    in, the script saves and kills, where bash runs the server as that shell's child: a string
    `eval` runs (`eval "$SERVER_CMD" > server.log 2>&1 &`: bash execs no command of it), a
    `bash -c` string it runs as a child (`_bash_keeps`), a function of the script whose body
    runs it in the foreground (`start_server > server.log 2>&1 &`: bash execs no command of a
    function in a script), `time vllm serve ... &` (the shell waits to print the time)."""
    script = flow.script
    jobs: dict[int, tuple[Command, _Sent]] = {}
    for command in script.commands:
        if not _own_job(command) or command.piped or command.apart is not None:
            continue
        known = _job_server(command, engines)
        if known is not None:
            jobs[id(command)] = known
    if not jobs:
        return
    functions = {c.function or "" for c in script.commands if id(c) in jobs}
    bodies = [flow] + [Flow(script, False, lookup, name) for name in sorted(functions - {""})]
    for body in bodies:
        statements = body.statements
        for i, command in enumerate(statements):
            known = jobs.get(id(command))
            if known is None:
                continue
            name = _pid_saved(statements[i + 1 : i + 4], _kinds(body), command)
            server, sent = known
            # (its `$!` saved, or every job's killed: `kill $(jobs -p)`, `kill %1`)
            yield from _pipe_finding(script, server, command, name, lookup, sent)


def _job_server(command: Command, engines: dict[int, Command]) -> tuple[Command, _Sent] | None:
    """The server a job sent to the background alone runs as a child of the job's shell, and
    how (see `_killed_through_job`)."""
    script = command.script
    text = script.text_of(command.node)  # (put on one line by `_pipe_finding`)
    text = f"time {text}" if command.timed else text  # (the model reads bash's `time` as blanks)
    server = engines.get(id(command))
    if server is None or _execs(command, server):
        return None
    timed = command.timed or any(w.name == "time" for w in command.invocation.wrappers)
    if timed and server is command and not _timed_exec(command):
        keyword = command.timed  # (else GNU time, `command time`: a program's child)
        return server, _Sent(
            text,
            "runs in a timed job sent to the background",
            "the shell bash times it in" if keyword else "`time`'s, which runs it as its child",
            help="start it without `time` (`vllm serve ... > server.log 2>&1 &`) and keep that "
            "`$!`",
            ended="that shell" if keyword else "`time`",
        )
    if server is command:
        return None
    if command.name == "eval":
        nested = server.script
        plain = (
            nested.commands == [server]
            and not server.assignments
            and not server.piped
            and server.apart is None
        )
        string = script.text_of(command.words[1].node) if len(command.words) > 1 else ""
        execs = f'"exec {string[1:]}' if string.startswith('"') else f"exec {string}"
        help = (
            f"start it with `exec` in the string (`eval {clip(execs, 40)} &`) and keep that `$!`"
            if plain and len(command.words) == 2
            else _ALONE
        )
        return server, _Sent(
            text, "runs in a string a job sent to the background `eval`s", help=help
        )
    if command.invocation.base == "bash" and server.script.parent is command:
        return (server, _bash_sent(command, text)) if _bash_keeps(server) else None
    called = command.name
    if called is not None and called in script.functions:
        can_exec = server.script is script and not server.piped and server.apart is None
        return server, _Sent(
            text,
            f"runs in function `{called}`, sent to the background",
            help=f"start it alone in the background in `{called}` (`vllm serve ... > "
            "server.log 2>&1 &`) and keep that `$!`"
            + (", or start it there with `exec`" if can_exec else ""),
        )
    return None


def _pipe_finding(
    script: Script,
    head: Command,
    last: Command,
    name: str | None,
    lookup: Functions,
    sent: _Sent | None = None,
) -> Iterator[Finding]:
    """The finding for a pipeline whose `$!` is saved in `name`, when something kills it
    (`sent`: a job whose `$!` names the shell the program runs in; with no `name`, such a job
    when something kills every job's first process, `kill $(jobs -p)`, or the job by its
    number, `kill %1`, where the script starts no other)."""
    if name is None:
        if sent is None:
            return
        yield from _jobs_killed(script, head, last, sent)
        return
    # (not `kill -0 "$PID"`: it only asks whether the process is there)
    killing = re.compile(
        rf"\bkill\b(?!\s+-[0l]\b)(?:\s+-[A-Za-z0-9]+)*(?:\s+[^\s;&|]+)*?\s+[\"']?\$\{{?{name}\b"
    )
    reading = _reading(frozenset({name}))

    def kills(command: Command) -> bool:
        if _early(command, last):
            return False
        text = script.text_of(command.node)
        return (
            killing.search(text) is not None
            or _kills_each(script, command, name)
            or any(
                reading.search(arguments) is not None
                and (where := lookup(called)) is not None
                and _releases_argument(where, called, _KILL, lookup)
                for called, arguments in calls_in(text)
            )
        )

    kill = next((c for c in script.commands if kills(c)), None)
    if kill is None:
        if sent is not None:  # (`SERVER_PID=$!`, then `trap 'kill $(jobs -p)' EXIT`)
            yield from _jobs_killed(script, head, last, sent)
        return
    # (what ends the program too: its shell's children, `pkill -P "$PID"`; or a `wait "$PID"`
    # before the kill, which returns only once the pipeline or the shell, and so the program,
    # has ended)
    children = re.compile(rf"\b(?:pkill|pgrep)\b[^\n;|&]*\s-P\s*[\"']?\$\{{?{name}\b")
    probe = Resource("background process", head, head, name, _KILL)

    def after_kill(command: Command) -> bool:
        # (`pkill -P "$PID"` after the kill matches nothing: the shell's children were handed
        # to init when it ended; a trap set before runs at the end, after all)
        return (
            kill.base != "trap"
            and command.function == kill.function
            and command.node.start_byte > kill.node.start_byte
        )

    if any(
        (children.search(text) and not after_kill(c)) or _kills_by_name(probe, _run_text(c))
        for c, text in ((c, script.text_of(c.node)) for c in script.commands)
    ):
        return
    names = frozenset({name})
    if any(
        (
            _waits_on(c, names)
            or (
                c.base in script.functions
                and reading.search(script.text_of(c.node)) is not None
                and _releases_argument(script, c.base, _WAIT, lookup)
            )
        )
        and c.node.end_byte <= kill.node.start_byte
        and kill.guards[: len(c.guards)] == c.guards
        and c.function == kill.function
        and not c.background
        for c in script.commands
    ):
        return  # (`wait "$PID"`, or `wait_for "$PID"` whose body waits for its argument)
    yield _sent_finding(script, head, kill, sent, f"pipe:{name}", last)


def _run_text(command: Command) -> str:
    """The text a command runs: a trap's handler as the shell reads it when the signal comes
    (`trap 'kill $P; pkill -f "vllm serve"' EXIT`: its quotes removed), else its own."""
    words = command.trap_args if command.base == "trap" else []
    if words:
        return words[0].value
    return command.script.text_of(command.node)


def _early(command: Command, job: Command) -> bool:
    """Before the job, at the top level: a kill there is another process's; not a trap set
    before it, whose action runs at the end (`trap 'kill "$PID"' EXIT`)."""
    early = command.node.start_byte < job.node.end_byte and command.function is None
    return early and command.base != "trap"


# `kill $(jobs -p)` (each job's first process), `jobs -p | xargs kill`, `kill %1` (a job's
# processes, by its number: bash without job control signals them one by one)
_KILL_JOBS = lazy_compile(
    r"\bkill\b(?!\s+-[0lL]\b)(?:\s+-s\s+\w+|\s+-[A-Za-z0-9]+)*(?:\s+--)?\s+"
    rf"(?:\"?\\?{_JOBS_LIST}"
    r"|(?P<spec>%(?:%|\+|1\b)))"
    rf"|\b{_JOBS_P}\s*\|\s*xargs\s+(?:-\S+\s+)*kill\b"
)
# job control on: `kill %1` signals the job's process group, the server with it
_MONITOR = lazy_compile(r"\bset\s+(?:-[A-Za-z]*m[A-Za-z]*\b|-o\s+monitor\b)")
# `kill -- -$PID`, `kill -TERM -"$PID"`: the process group a PID leads
_GROUP_OF = lazy_compile(r"\bkill\b[^;&|\n]*\s-\"?\$")
# what ends the server with its job's shell: the script's process group (no job control: every
# job is in it), `kill 0`, `kill -- -$$`
_KILL_GROUP = lazy_compile(r"\bkill\s+(?:-[A-Za-z0-9]+\s+)*(?:--\s+)?(?:0\b|-\$\$)")


def _jobs_killed(script: Script, server: Command, job: Command, sent: _Sent) -> Iterator[Finding]:
    """A job whose shell runs the server as its child (`_job_server`), its `$!` not saved, and
    every job killed (`kill $(jobs -p)`), or this one by its number (`kill %1`, `%%`, `%+`,
    where the script sends nothing else to the background): that kills the job's shell, and
    the server goes on. Not where something ends it too: its name (`pkill -f "vllm serve"`),
    the process group (`kill 0`), or a `wait` for every job before the kill."""
    statements = {
        c.group.start_byte if c.group is not None else c.node.start_byte
        for c in script.commands
        if c.background and not c.piped
    }
    # (`%1` names it where it is the only job; with job control on, `kill %1` signals the
    # job's process group, the server too)
    monitor = any(
        c.base == "set" and _MONITOR.search(script.text_of(c.node)) for c in script.commands
    )
    alone = len(statements) == 1 and not monitor

    def kills(command: Command) -> bool:
        if _early(command, job):
            return False
        for text in _runs(script, command):  # (with a pipeline's whole text, a call's body)
            found = _KILL_JOBS.search(text)
            if found is not None and (found.group("spec") is None or alone):
                return True
            if _kills_jobs_held(text, script, job.node.end_byte if script is script.top else 0):
                # (with job control on, `kill -- -$PID` signals the job's process group)
                return not (monitor and _GROUP_OF.search(text))
        return False

    kill = next((c for c in script.commands if kills(c)), None)
    if kill is None:
        return
    probe = Resource("background process", server, server, "", _KILL)
    for command in script.commands:
        text = script.text_of(command.node)
        if _early(command, job):
            continue  # (what ends it before it starts ends another process)
        if _KILL_GROUP.search(text) or _kills_by_name(probe, _run_text(command)):
            return
        if (
            command.base == "wait"
            and all(w.value.startswith("%") for w in command.args)
            and command.node.end_byte <= kill.node.start_byte
            and kill.guards[: len(command.guards)] == command.guards
            and command.function == kill.function
        ):
            return  # (`wait`, `wait %1`: it returns once the job, the server's shell with the
            # server in it, has ended)
    yield _sent_finding(script, server, kill, sent, "jobs", job)


def _kills_each(script: Script, command: Command, name: str) -> bool:
    """`for pid in "${PIDS[@]}"; do kill "$pid"; done`: a `kill` of the variable of a `for`
    loop around it that runs over the values of `name` (t86 h6, dynamo's mm_router_worker
    launch.sh); not `kill -0`, which only asks whether the process is there."""
    if command.base != "kill" or any(w.value in ("-0", "-l", "-L") for w in command.args):
        return False
    for loop in command.loops:
        found = _FOR_EACH.match(script.text_of(loop)) if loop.type == "for_statement" else None
        if found is not None and found.group(2) == name:
            variable = re.compile(rf"\$\{{?{found.group(1)}\b")
            if any(variable.search(w.text) for w in command.args):
                return True
    return False


# `for pid in "${PIDS[@]}"; do`, `for p in $PIDS; do`: the loop's variable, the name it reads
_FOR_EACH = lazy_compile(
    r'for\s+([A-Za-z_]\w*)\s+in\s+"?\$\{?([A-Za-z_]\w*)(?:\[[@*]\])?\}?"?\s*(?:;|\n)'
)


# container runs whose container goes on whatever becomes of the client that started it
_RUNS_CONTAINER = frozenset({"docker run", "podman run"})


def _starts_engine(head: Command) -> bool:
    """Whether the command launches an engine's server: itself, or the body of the script's
    function it calls, not under a condition on the call's arguments (`serve() { if [ "$1" =
    real ]; then vllm serve m; else nvidia-smi dmon; fi; }`: `serve monitor` runs the other
    branch; h120 W1)."""
    if launch_in(list(head.invocation.words), head) is not None:
        return True
    script = head.script
    name = head.base
    return name is not None and any(
        launch_in(list(c.invocation.words), c) is not None
        and not any(script.top.reads_arguments(g) for g in c.guards)
        for c in script.top.commands
        if c.function == name
    )


def _sent_finding(
    script: Script, head: Command, kill: Command, sent: _Sent | None, subject: str, last: Command
) -> Finding:
    """The finding: the kill signals the job's shell or the pipeline's last command, not the
    program at its head (`sent`: the job's shell runs it)."""
    shown = clip(first_line(head.script.text_of(head.node)), 40)
    killed = clip(first_line(script.text_of(kill.node)), 40)
    if sent is not None:
        # (the statement on one line: a subshell's `(` may open it alone)
        statement = clip(one_line(sent.statement), 40)
        message = (
            f"`{shown}` {sent.what} (`{statement}`), whose `$!` is {sent.whose}: "
            f"`{killed}` (line {kill.span.line}) ends {sent.ended}, not it (it goes on)"
        )
        help = sent.help
    else:
        tail = last.name or "the last command"
        runs = [w for w in head.invocation.wrappers if w.name in _RUNS_CONTAINER]
        container = bool(runs)
        detached = any(w.has("-d", "--detach") for w in runs)
        engine = container or _starts_engine(head)
        # (h115 R1: what a monitor does is not what an engine's server does; h118 W2, W3)
        if container:
            goes_on = "it goes on: the container runs on, whatever becomes of the client"
        elif engine:
            goes_on = (
                "it goes on: a Python server that logs through `logging`, as the engines do, "
                "ignores SIGPIPE and the failed write"
            )
        else:
            goes_on = (
                "it goes on until its next write to the closed pipe ends it: soon for a "
                "program that writes all the time, a monitor's interval later; never for a "
                "Python server that logs through `logging`: it ignores SIGPIPE and the failed "
                "write"
            )
        message = (
            f"`{shown}` heads a background pipeline whose `$!` is its last command's "
            f"(`{tail}`): `{killed}` (line {kill.span.line}) signals `{tail}`, not it "
            f"({goes_on})"
        )
        log = "server.log" if engine else "out.log"
        help = (
            f"start it alone in the background (`... > {log} 2>&1 &`, or "
            f"`> >(tee {log}) 2>&1 &`) and keep that `$!`"
        )
        if detached:  # (`docker run -d`: the client returns at once; h120 W2)
            help = "name the container (`--name`) and stop it by that name (`docker stop`)"
    return Finding(
        "BL103",
        message,
        Location(script.path, head.first_line_span),
        help=help,
        related=(Location(script.path, kill.first_line_span, "kill"),),
        subject=subject,
    )


def _followed(
    script: Script,
    flow: Flow,
    libraries: dict[str, Script] | None = None,
    known: Callable[[Script], dict[str, tuple[list[Command], int | None]]] | None = None,
) -> dict[str, tuple[bool, int, Script]]:
    """The functions the top level calls (in a subshell too: `( run )`), and those they call
    (three calls deep: `main() { run_tests; }; main`), each with whether a call runs it under
    errexit (not in a test, not before `||`, in a function that runs so: that call can end
    the script in its body), the top-level statement of its first call (a call inside a
    function: that function's), and the script that defines it (this one, or a library it
    sources: `libraries`, by function name). `known`: a script's table of each body's calls
    and where it sets errexit, kept across scripts (a library's are the same for every
    caller)."""
    libraries = libraries or {}
    tables: dict[int, dict[str, tuple[list[Command], int | None]]] = {}  # (this call's alone)
    known = known or (lambda script: tables.setdefault(id(script), {}))

    def owner(name: str | None) -> Script | None:
        if name is None:
            return None
        return script if name in script.functions else libraries.get(name)

    found: dict[str, tuple[bool, int, Script]] = {}
    for command in script.commands:
        name = command.name
        where = owner(name) if command.function is None else None
        if where is None or name is None:
            continue
        index = flow.place_of(command)
        errexit = flow.errexit_at(command) and not command.tested and not command.or_guarded
        before = found.get(name, (False, index, where))
        found[name] = (before[0] or errexit, before[1], where)
    for _ in range(2):
        for caller, (caller_errexit, first, defined) in list(found.items()):
            calls, sets = _body_calls(defined, caller, known(defined))
            if not calls:
                continue
            for command in calls:
                name = command.name
                if name is None:
                    continue
                where = defined  # (a library calls its own functions)
                inherited = sets is None or command.node.start_byte < sets
                at = caller_errexit if inherited else command.errexit
                errexit = at and not command.tested and not command.or_guarded
                before = found.get(name, (False, first, where))
                found[name] = (before[0] or errexit, min(before[1], first), where)
    return found


def _body_calls(
    script: Script, function: str, known: dict[str, tuple[list[Command], int | None]]
) -> tuple[list[Command], int | None]:
    """The calls of the script's functions in a function's body, and where the body sets
    errexit itself (before it, errexit is the caller's); `known`: the script's, by function."""
    found = known.get(function)
    if found is None:
        body = script.body(function)
        calls = [c for c in body if c.name in script.functions and c.name != function]
        sets = next(
            (
                c.node.start_byte
                for c, _ in script.errexit_sets()
                if c.function == function and not c.subshell
            ),
            None,
        )
        found = known[function] = (calls, sets)
    return found


def _may_hold(command: Command) -> bool:
    """Whether the command may acquire what `_resources` looks for (a job it starts, an
    allocation, a container, a temporary directory)."""
    return (
        _own_job(command)
        or command.invocation.base == "mktemp"
        or any(w.name in _ACQUIRERS for w in command.invocation.wrappers)
    )


def _own_job(command: Command) -> bool:
    """Sent to the background as a job whose `$!` names it (alone, or at the head or end of a
    pipeline): not a command of a list, group or loop sent as a whole, whose `$!` is that
    statement's shell (`cd /w && vllm serve ... &`: not known to be the server's)."""
    return command.background and command.group is None


def _in_the_call(
    flow: Flow, resource: Resource, lookup: Functions, released: Callable[[Command], bool]
) -> list[ExitPath]:
    """Where the function the script calls to acquire the resource (`check() { docker run -d
    --name "$NAME" ...; ... exit 1; }`, stopped by the script after the call) ends the script
    itself after the acquisition: an `exit` of its body (a `return` goes back to the caller),
    and where the call runs under `set -e`, a command of the body that fails (`launch() {
    vllm serve ... & wait_for_server 8000; }`). Only a function of the flow's own file."""
    acquisition, statement = resource.acquired_by, resource.statement
    function = acquisition.function
    if (
        statement is acquisition
        or function is None
        or statement.name != function
        or acquisition.script is not flow.script
    ):
        return []
    call = flow.exit_path(statement)
    errexit = call is not None and call.kind == "errexit"
    body = Flow(flow.script, False, lookup, function, errexit)
    at = body.index(acquisition)
    if at is None:
        return []
    kinds = ("exit", "errexit") if errexit else ("exit",)
    found = []
    for p in body.exits_between(at, None):
        if p.kind not in kinds or released(p.command) or _about_itself(resource, p):
            continue
        if any(  # (its branch released it first: `else kill "$PID"; return 1; fi`; t84b)
            c.function == function
            and c.guards == p.command.guards
            and acquisition.node.end_byte <= c.node.start_byte
            and c.node.end_byte <= p.command.node.start_byte
            and released(c)
            for c in flow.script.commands
        ):
            continue
        if p.command.base == "return":  # (`return 1`: the call fails, and `set -e` ends there)
            if [w.value for w in p.command.args] == ["0"]:
                continue
            p = ExitPath(statement, "errexit")
        found.append(p)
    return found


def _before_its_release(
    flow: Flow,
    path: ExitPath,
    resource: Resource,
    lookup: Functions,
    released: Callable[[Command], bool],
) -> ExitPath | None:
    """Where a call of a function of the flow's own file that releases the resource ends the
    script in its body before its release: an `exit` there (and where the call runs under `set
    -e`, a command of the body that fails), before the body's first statement that releases
    it, on the way to it (not in another branch of an `if` around it, nor under a condition on
    the call's arguments: `if [ "$1" = check ]`); None where none does, or where the call may
    run another function (defined after it, `unset`, or a `source` between the definition and
    the call that may define it again)."""
    call = path.command
    name = call.name
    script = flow.script
    where = script.functions.get(name or "")
    if name is None or where is None or name == flow.function:
        return None
    if call.function is None and where.start_byte > call.node.start_byte:
        return None  # (defined after the call: bash finds no such command there)
    if script.may_unset(name) or any(
        c.base in ("source", ".") and where.start_byte < c.node.start_byte < call.node.start_byte
        for c in script.commands
    ):
        return None
    errexit = path.kind == "errexit"
    body = Flow(flow.script, False, lookup, name, errexit)
    release = next((i for i, c in enumerate(body.statements) if released(c)), None)
    if release is None:
        return None
    kinds = ("exit", "errexit") if errexit else ("exit",)
    releaser = body.statements[release]
    for inner in body.exits_between(-1, release):
        command = inner.command
        if inner.kind not in kinds or command.base == "return" or released(command):
            continue
        if exclusive(command, releaser) or _about_itself(resource, inner):
            continue
        common = {g.node for g in releaser.guards}
        if any(_reads_arguments(g, name) for g in command.guards if g.node not in common):
            continue  # (`ctl stop` where the exit is under `if [ "$1" = check ]`)
        return inner
    return None


def _reads_arguments(guard: Guard, function: str) -> bool:
    """Whether the condition reads the function's arguments: a positional parameter, or a
    variable its body assigns from one (`local action=$1`)."""
    names = {r.name for r in guard.reads}
    if names & {"1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*", "#"}:
        return True
    return any(
        a.name in names and a.value is not None and re.search(r"\$\{?[1-9@*]", a.value.text)
        for a in guard.script.assignments
        if a.command.function == function
    )


def _every_job_ended(flow: Flow, command: Command, lookup: Functions) -> bool:
    """Whether every exit after the command's statement runs an EXIT handler that ends every
    job (`trap 'kill 0' EXIT` set before it, under no condition, and any set after it too): a
    job it sends to the background, its `$!` not kept, is released at any end of the script.
    Not with job control on (`set -m`: each job a process group of its own, which `kill 0`
    does not reach), nor for a loop that runs in a pipeline (`seq 2 | while read ...`: its
    jobs are a subshell's, which `jobs -p` does not list; h86 M4)."""
    script = flow.script
    statement = flow.statement_of(command)
    at = flow.index(statement) if statement is not None else None
    if at is None or any(_in_pipeline(script, loop) for loop in command.loops):
        return False
    if any(c.base == "set" and _MONITOR.search(script.text_of(c.node)) for c in script.commands):
        return False
    held = Resource("background process", command, command, None, _NEVER)
    traps = [(i, t) for i, t in flow.traps() if t.on_exit]
    before = [t for i, t in traps if i < at]
    return (
        bool(before)
        and not before[-1].command.guards
        and all(
            _handler_releases(held, t, lookup)
            for t in (before[-1], *(t for i, t in traps if i > at))
        )
    )


def _in_pipeline(script: Script, node: Syn) -> bool:
    """Whether the loop (its body or condition) runs in an element of a pipeline."""
    parent = script.syntax(node).parent
    while parent is not None and parent.type not in ("program", "function_definition"):
        if parent.type == "pipeline":
            return True
        parent = parent.parent
    return False


def _check_flow(
    flow: Flow,
    runs: Callable[[Command], list[str]],
    lookup: Functions,
    outer: list[tuple[int, Trap]] | None,
    undecided: list[Undecided] | None = None,
) -> Iterator[tuple[Finding, Resource]]:
    """`outer`: for a function's body, the traps of the script's top level (one that releases
    the resource covers it: when it is set is not related to the calls here); `undecided`:
    where the exits it could not decide are put."""
    script = flow.script
    resources = _resources(flow)
    # (one whose `$!` the loop keeps is a resource: `pid=$!`; one it does not is not modelled)
    held = {id(r.acquired_by) for r in resources}
    looped = [c for c in _candidates(script) if c.loops and _own_job(c) and id(c) not in held]
    if undecided is not None and looped:
        # (once for a pipeline, not for each of its commands: `vllm serve | tee log &`, over
        # two lines too, h84 W1; not where an EXIT trap set before it ends every job, h84 W2)
        places: dict[int, Span] = {}
        for c in looped:
            if flow.statement_of(c) is not None and not _every_job_ended(flow, c, lookup):
                places.setdefault(c.statement().start_byte, c.first_line_span)
        undecided.extend(Undecided(_IN_LOOP, Location(script.path, s)) for s in places.values())
    if flow.function is not None and any(  # (what the body keeps is its caller's, where
        # the script's shell calls it, at its top level or in another function's body, whose
        # flow has it (`_started_in_functions`); not from a subshell, nor a library's: t84c)
        c.name == flow.function and c.function != flow.function and not c.apart_from_script
        for c in script.commands
    ):
        kept = {id(c) for c, _ in _function_starts(script).get(flow.function, ())}
        resources = [r for r in resources if id(r.acquired_by) not in kept]
    every = flow.traps() if resources else []
    exit_traps = [(i, t) for i, t in every if t.on_exit]
    # an ERR trap runs before `set -e` ends the script at a failing command
    errs = [(i, t) for i, t in every if any(s.upper() == "ERR" for s in t.signals)]
    # (once per script, whichever of its flows asks first: it depends on the text alone)
    killing = functools.partial(
        script.derived, "bl103-killing", _killing, functools.partial(_killing, script)
    )
    for resource in resources:
        start = flow.index(resource.statement)
        if start is None:
            continue
        if outer is not None and any(_handler_releases(resource, t, lookup) for _, t in outer):
            continue
        named = _named_at(flow, resource, start)
        released = functools.cache(functools.partial(_released_by, resource, runs, lookup))
        overwritten = _overwritten(flow, resource, named, released, killing)
        if overwritten is not None:
            yield _overwritten_finding(script, resource, overwritten), resource
            continue
        # (a trap in the other branch of the `if` that acquires it is never set with it)
        traps = [(i, t) for i, t in exit_traps if not exclusive(resource.statement, t.command)]
        covering = [(i, t) for i, t in traps if _trap_releases(resource, i, t, named, lookup)]
        # a later `trap ... EXIT` (or `trap - EXIT`) replaces the handler that releases it
        earliest = min((i for i, _ in covering), default=None)
        replaced = earliest is not None and any(
            i > earliest and not any(t is c for _, c in covering) for i, t in traps
        )
        if earliest is not None and earliest < start and not replaced:
            continue
        on_error = min(
            (i for i, t in errs if _handler_releases(resource, t, lookup)),
            default=None,
        )
        trap_index = min((i for i, _ in covering if i > start), default=None)
        leaks: list[ExitPath] = []  # before any handler that releases it
        uncovered: list[tuple[ExitPath, Trap, Trap]] = []  # after one, once it was replaced
        for p in flow.exits_between(start, None if replaced else trap_index):
            # (a call that releases it may end the script first, in its body: `check() { [ -f
            # x ] || exit 1; kill "$PID"; }`, said as that exit; t85 h4)
            inner = None
            if released(p.command) and not _about_itself(resource, p):
                inner = _before_its_release(flow, p, resource, lookup, released)
            if (
                p.command is resource.statement
                or exclusive(resource.statement, p.command)
                or _hands_off(resource, p)
                or _about_itself(resource, p)
                or _waited_before(flow, p, start, resource)
                or (released(p.command) and inner is None)
                or (p.kind == "errexit" and on_error is not None and on_error < _at(flow, p))
            ):
                continue
            before = _released_before(flow, p, start, released, resource.names)
            if before:
                continue
            follows = inner is not None or _release_follows(flow, p, released)
            if before is False and not exit_traps and not follows:
                continue  # (nothing releases it later on the exit's path: it ends as the end does)
            at = _at(flow, p)
            effective = next((t for i, t in reversed(traps) if i < at), None)
            if effective is not None and any(t is effective for _, t in covering):
                continue
            if before is None:  # (a release under a condition: whether it ran is not known)
                if undecided is not None:
                    said = Location(script.path, p.command.first_line_span)
                    undecided.append(Undecided(_may_be_released(resource.what), said))
                continue
            cover = next((t for i, t in reversed(covering) if i < at), None)
            if cover is not None and effective is not None:
                uncovered.append((inner or p, effective, cover))
            elif cover is None:
                leaks.append(inner or p)
        if not covering and trap_index is None:
            leaks = _in_the_call(flow, resource, lookup, released) + leaks
        acquisition = resource.acquired_by
        span = acquisition.first_line_span
        location = Location(script.path, span)
        shown = _shown_program(acquisition)
        name = f"`{shown}`" if shown else "this command"
        if acquisition.script.top is not script.top:  # (a sourced file's function starts it)
            location = Location(script.path, resource.statement.first_line_span)
            name += f" in `{resource.statement.name}` ({acquisition.script.path}:{span.line})"
        if uncovered and not (trap_index is not None and leaks):
            path, effective, cover = uncovered[0]
            done = "removes" if not effective.parts else "replaces"
            # (the handler in place at the end does not release it, nor does any line after
            # the acquisition: it leaks at the script's normal end too, h37 W2)
            last = traps[-1][1] if traps else None
            always = (
                last is not None
                and not any(t is last for _, t in covering)
                and not any(released(s) for s in flow.statements[start + 1 :])
            )
            ends = (
                f"leaks whenever the script ends, at its normal end as at "
                f"{_described(path, resource)}"
                if always
                else f"leaks if the script ends at {_described(path, resource)}"
            )
            yield (
                Finding(
                    "BL103",
                    f"the {resource.what} acquired by {name} {ends}: the `trap` on line "
                    f"{effective.command.span.line} {done} the handler on line "
                    f"{cover.command.span.line} that releases it",
                    location,
                    help="release it in the handler that is in place at the end too",
                    related=(
                        Location(script.path, path.command.first_line_span, "exit path"),
                        Location(script.path, effective.command.first_line_span, "trap"),
                    ),
                    subject=f"{resource.what}:{resource.variable or shown}",
                ),
                resource,
            )
        elif trap_index is not None and leaks:
            trap_line = flow.statements[trap_index].span.line
            first = leaks[0]
            yield (
                Finding(
                    "BL103",
                    f"the {resource.what} acquired by {name} leaks if the script ends at "
                    f"{_described(first, resource)}, before the `trap ... EXIT` on line "
                    f"{trap_line} releases it",
                    location,
                    help="register the trap right after the acquisition",
                    related=(Location(script.path, first.command.first_line_span, "exit path"),),
                    subject=f"{resource.what}:{resource.variable or shown}",
                    fix=_move_trap(
                        flow, start, trap_index, next(t for i, t in covering if i == trap_index)
                    ),
                ),
                resource,
            )
        elif not covering:
            # (not one in another branch of the `if` or `case` that acquires it: `up) start;;
            # down) stop;;` leaves it running on purpose)
            releases = [
                s
                for s in flow.statements[start + 1 :]
                if released(s) and not exclusive(resource.statement, s)
            ]
            # (the one to name: not the clean-up of a branch that then ends the script, nor a
            # loop whose only release is one: `if [ "$i" -eq 50 ]; then kill ...; exit 1; fi`)
            release = next(
                (s for s in releases if _plain_release(script, s, released) is not None),
                releases[0] if releases else None,
            )
            if release is None and (resource.what != "Slurm allocation" or outer is not None):
                continue  # (a function's: its caller may release it)
            if release is None and _handed_to_caller(script, resource):
                continue  # (its job id printed for the caller, who uses the allocation)
            if _restarts(resource, releases, released):
                continue  # (each call stops the last one: the script leaves one running)
            if (
                release is not None
                and resource.what != "Slurm allocation"
                and _kept_on_success(script, release, released)
            ):
                continue  # (it is meant to outlive the script: an early end changes nothing)
            if release is not None and not leaks:
                continue
            # (an EXIT trap this shell does not set here: in a function the caller calls)
            set_elsewhere = [] if traps else _exit_trap_lines(script, flow)
            no_trap = "no `trap ... EXIT` that releases it" if traps else "no `trap ... EXIT`"
            if set_elsewhere:
                no_trap += f" that releases it (the one on line {set_elsewhere[0]} does not)"
            early = next(
                (t for i, t in traps if i < named and _handler_releases(resource, t, lookup)),
                None,
            )
            if early is not None and resource.variable is not None:  # (in double quotes)
                no_trap = (
                    f"the `trap` on line {early.command.span.line} expanding "
                    f"${resource.variable} when it is set, before line "
                    f"{flow.statements[named].span.line} assigns it"
                )
            # (the exit path the message names: not a command that seldom fails, where
            # another may end the script, `tail -n 10 "$LOG"` before `ray job submit`; h81 W1)
            shown_exit = (
                next((p for p in leaks if not _seldom_fails(p)), leaks[0]) if leaks else None
            )
            line = _release_line(script, release, released) if release is not None else None
            if shown_exit is not None and release is not None:  # (the release it skips, if one)
                line = _release_after(script, releases, released, shown_exit.command) or line
            released_at, elsewhere = "nowhere", False
            if line is not None:
                others = _other_releases(script, releases, released, line)
                called = _called_release(script, line, released)
                at_lines, elsewhere = _released_where(line, others, called)
                released_at = f"{at_lines}, with {no_trap}"
            exit_note = (
                f"; {_described(shown_exit, resource)} ends the script first"
                if shown_exit is not None
                else ""
            )
            related = (
                (Location(script.path, shown_exit.command.first_line_span, "exit path"),)
                if shown_exit is not None
                else ()
            )
            sleep = _watchdog(script, resource)
            watchdog = None
            # (an exit before the watchdog starts leaks it for good: no note then; h93 W6)
            if sleep is not None and (
                shown_exit is None or sleep.node.end_byte <= shown_exit.command.node.start_byte
            ):
                delay = " ".join(w.value for w in sleep.args)
                watchdog = (
                    f"the background job on line {sleep.span.line} releases it after `sleep "
                    f"{delay}`, whatever ends the script: an early end after that line leaks it "
                    "for that long"
                )
            yield (
                Finding(
                    "BL103",
                    f"the {resource.what} acquired by {name} is released {released_at}{exit_note}: "
                    f"it leaks on {'such an' if elsewhere else 'any'} early end",
                    location,
                    notes=(watchdog,) if watchdog else (),
                    help=(
                        "release it in the handler of a `trap ... EXIT` set right after the "
                        "acquisition (a second `trap ... EXIT` replaces the first)"
                        if traps or set_elsewhere
                        else "add `trap '...' EXIT` right after the acquisition"
                    ),
                    related=related,
                    subject=f"{resource.what}:{resource.variable or shown}",
                ),
                resource,
            )


def _watchdog(script: Script, resource: Resource) -> Command | None:
    """The `sleep` of a release the script sends to the background after it, in the same job,
    after the acquisition, in its function (`(sleep 600 && docker kill "$CID") &`, h91 W1): it
    ends the resource that long after it starts, whatever ends the script first, so an early
    end after it leaks the resource only for a while."""
    acquired = resource.statement
    for release in script.commands:
        if (
            release.background
            and release.node.start_byte >= acquired.node.end_byte
            and release.function == acquired.function
            and _releases(resource, script.text_of(release.node))
        ):
            sleep = _delayed_by(release)
            between = script.src[sleep.node.end_byte : release.node.start_byte] if sleep else b""
            if sleep is not None and b"||" not in between:  # (`sleep || rm`: never, h96 W3)
                return sleep
    return None


def _delayed_by(command: Command) -> Command | None:
    """The `sleep N` that runs before the command in its background job (`sleep 600 && kill
    "$PID" &`, `(sleep 600; kill "$PID") &`), if one."""
    script = command.script
    for sleep in script.commands:
        between = script.src[sleep.node.end_byte : command.node.start_byte]
        if (
            sleep.node.end_byte <= command.node.start_byte
            and sleep.background
            and sleep.base == "sleep"
            and sleep.args
            and sleep.loops == command.loops  # (not a poll: `while kill -0 $$; do sleep 5`)
            and sleep.function == command.function
            and not _JOB_END.search(between)
            and not any(  # (no poll between: `sleep 5; while kill -0 $$; do ...`, h96 F10)
                c.loops != command.loops
                and sleep.node.end_byte <= c.node.start_byte < command.node.start_byte
                for c in script.commands
            )
        ):
            return sleep
    return None


# the `&` that ends a job (not `&&`, `>&`, `&>`)
_JOB_END = lazy_compile(rb"(?<![&>])&(?![&>])")


def _overwritten(
    flow: Flow,
    resource: Resource,
    named: int,
    released: Callable[[Command], bool],
    killing: Callable[[], list[tuple[Command, str]]],
) -> Command | None:
    """The statement that gives a background process's PID variable another value before
    anything releases it or keeps a copy (`vllm serve ... & PID=$!`, a second server's `PID=$!`,
    then `kill $PID`): the first process is named by nothing the script reads any more, and
    runs on after the script. Only where both are statements of one shell under the same
    conditions, outside loops, and no `trap` reads the variable in between (a double-quoted
    handler keeps the value it had). `killing`: the script's commands whose text may end a
    process without its PID (`_killing`)."""
    name = resource.variable
    first = resource.statement
    if name is None or resource.what != "background process" or resource.handles or first.loops:
        return None
    # (what ends it without its PID: its name, every job, `kill %1`, its port)
    probe = Resource(resource.what, resource.acquired_by, first, None, _NEVER)
    after = first.node.end_byte
    if any(
        (c.node.start_byte >= after or c.function is not None or c.base == "trap")
        and _releases(probe, text)
        for c, text in killing()
    ):
        return None
    started = False  # (another job sent to the background since: `$!` names it)
    # (a program whose name is not known, a wrapper like triton's `serve`: a process found by
    # another name may be its child; an engine's own name is known, and a kill by it is a
    # release `_releases` reads)
    acquired = resource.acquired_by
    launch = launch_in(list(acquired.invocation.words), acquired)
    known = None if launch is None else {launch.engine, launch.module.rsplit(".", 1)[0]}
    for statement in flow.statements[named + 1 :]:
        if released(statement) or statement.base == "wait":  # (`wait` returns once it ended)
            return None
        if _kills_looked_up(flow.script, statement, killing(), known):
            return None  # (a process found by name or port: it, or a child it waits for)
        reads = any(r.name == name for w in statement.words for r in w.reads())
        writes = any(r.operator in (">", ">>", "&>", ">|") for r in statement.redirects)
        if reads and (statement.base == "trap" or writes):
            return None  # (a handler that reads it, or its value written to a file)
        if any(a.name == name and a.kind == "readonly" for a in statement.assignments):
            return None  # (a later assignment fails: it keeps the value)
        started = started or statement.background
        # (a value: not `export PID`; a whole variable: not `pids[1]=$!` beside `pids[0]`)
        given = [a for a in statement.assignments if a.name == name and a.value is not None]
        if not given or statement.piped or _other_shell(statement, first):
            continue  # (in a pipeline, a piped `{ }` group or a `( )`: a subshell's)
        if not started and all(a.value is not None and a.value.text == "$!" for a in given):
            continue  # (`$!` again: the same process)
        saved = [a for a in flow.statements[named].assignments if a.name == name]
        if any(_ELEMENT.match(flow.script.text_of(a.node)) for a in [*given, *saved]):
            return None
        if (
            statement.guards != first.guards
            or statement.loops != first.loops
            or statement.function != first.function
            or any(  # (`PID="$PID $!"` keeps it)
                r.name == name for a in given if a.value is not None for r in a.value.reads()
            )
        ):
            return None
        return statement
    return None


def _other_shell(statement: Command, first: Command) -> bool:
    """Whether a statement runs in a shell of its own that the first does not: an element of a
    pipeline (`{ PID=$!; } | tee log`), a `( )` subshell, a group sent to the background (`{
    ...; PID=$!; } &`)."""
    return (
        statement.apart != first.apart
        or (statement.subshell and not first.subshell)
        or (statement.group is not None and statement.group != first.group)
    )


# an assignment to an array's element (`pids[1]=$!`)
# an array's element, or an append (`pids[1]=$!`, `pids+=($!)`): the earlier PIDs stay
_ELEMENT = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[|\+=)")


def _killing(script: Script) -> list[tuple[Command, str]]:
    """The script's commands whose text (`_run_text`) names `kill` or `fuser`: only these can
    end a background process without its PID (`_releases`)."""
    if b"kill" not in script.src and b"fuser" not in script.src:
        return []  # (most scripts: none to read)
    texts = ((c, _run_text(c)) for c in script.commands)
    return [(c, text) for c, text in texts if "kill" in text or "fuser" in text]


def _kills_looked_up(
    script: Script,
    statement: Command,
    killing: list[tuple[Command, str]],
    known: set[str] | None,
) -> bool:
    """Whether the statement kills a process the script finds by its name or port (`kill
    $(pgrep -f x)`, `ps aux | grep vllm | xargs kill`, `SERVER_PID=`ps | grep tritonserver |
    awk ...`` then `kill $SERVER_PID`): which process that is, is not known (the server a
    wrapper started, whose end ends it). `known`: the names of an engine the job runs (`vllm`,
    `sglang`): then only a lookup that names one of them (another engine's is not its)."""
    # (the statement's lines, a `\` continuing them: `ps aux | grep vllm | xargs kill`, the
    # whole pipeline its kill is the last command of)
    src = script.src
    start = src.rfind(b"\n", 0, statement.node.start_byte) + 1
    end = src.find(b"\n", statement.node.end_byte)
    while end > 0 and src[end - 1 : end] == b"\\":
        end = src.find(b"\n", end + 1)
    end = len(src) if end < 0 else end
    if not any(start <= c.node.start_byte < end for c, _ in killing):
        return False
    text = src[start:end].decode("utf-8", errors="surrogateescape")

    def names_it(looked: str) -> bool:
        return known is None or any(name in looked for name in known)

    if _LOOKUP.search(text) and names_it(text):
        return True
    names = {
        a.name
        for c in script.commands
        for a in c.assignments
        if a.value is not None
        and _LOOKUP_SUBSTITUTION.search(a.value.text)
        and names_it(a.value.text)
    }
    reading = _reading(frozenset(names)) if names else None
    return reading is not None and reading.search(text) is not None


# a command that finds processes by name or port
_LOOKUP = lazy_compile(r"\b(?:pgrep|pidof|ps|lsof)\b")
# a substitution that does (`$(pgrep -f x)`, `` `ps | grep x | awk '{print $1}'` ``)
_LOOKUP_SUBSTITUTION = lazy_compile(r"(?:\$\(|`)[^`]*?\b(?:pgrep|pidof|ps|lsof)\b")


def _overwritten_finding(script: Script, resource: Resource, statement: Command) -> Finding:
    acquisition = resource.acquired_by
    shown = _shown_program(acquisition)
    name = f"`{shown}`" if shown else "this command"
    variable = resource.variable
    return Finding(
        "BL103",
        f"the background process started by {name} is kept in `${variable}` only, and line "
        f"{statement.span.line} gives `{variable}` another value before anything ends it: "
        f"nothing the script runs after that can name it, and it runs on after the script",
        Location(script.path, acquisition.first_line_span),
        help=f"keep each process's PID in a variable of its own (or add it to an array: "
        f'`PIDS+=("${variable}")`) and end each one',
        related=(Location(script.path, statement.first_line_span, "overwritten"),),
        subject=f"overwritten:{variable}",
    )


def _named_at(flow: Flow, resource: Resource, start: int) -> int:
    """The statement from which the resource's variable names it (`PID=$!` after the `&`)."""
    if resource.variable is None:
        return start
    return next(
        (
            i
            for i in range(start, min(start + 5, len(flow.statements)))
            if any(a.name == resource.variable for a in flow.statements[i].assignments)
        ),
        start,
    )


def _set_before_calls(trap: Trap, function: str | None) -> bool:
    """Whether every call of the function in the trap's script comes after the trap, in the
    function that sets it (not in a subshell of its own)."""
    setter, script = trap.command.function, trap.command.script
    if setter is None or function is None or setter == function:
        return False
    calls = [c for c in script.commands if c.name == function and c.script is script]
    at = trap.command.node.end_byte
    return bool(calls) and all(
        c.function == setter and c.node.start_byte > at and not c.subshell for c in calls
    )


def _exit_trap_lines(script: Script, flow: Flow) -> list[int]:
    """The lines of the script's own `trap ... EXIT` commands (in any function)."""
    return [
        c.span.line
        for c in script.commands
        if c.base == "trap" and c.script is script and (t := flow.trap_of(c)) and t.on_exit
    ]


def _trap_releases(
    resource: Resource, index: int, trap: Trap, named: int, lookup: Functions
) -> bool:
    """Whether the handler a `trap` at statement `index` sets releases the resource. A handler
    in double quotes expands its variables when `trap` runs: set before the variable names
    the resource (`trap "kill $PID" EXIT` above `PID=$!`), it holds what the variable held
    then, not the resource."""
    early = trap.expanded_now & resource.names if index < named else frozenset()
    if early and trap.parts:
        gone = _reading(early)
        trap = dataclasses.replace(trap, parts=(gone.sub("", trap.parts[0]), *trap.parts[1:]))
    return _handler_releases(resource, trap, lookup)


def _release_follows(flow: Flow, path: ExitPath, released: Released) -> bool:
    """Whether the script may release the resource after the exit, where the exit is: a later
    statement of the script, a command of the exit's own statement after it and not in a
    branch the exit's excludes (`if ready; then kill "$PID"; else grep ... "$LOG"; fi`: on the
    `else`'s path nothing ever releases it), a loop around the exit (its next pass), or a
    function's caller (not known here)."""
    at = path.command
    if flow.function is not None or at.loops or at.function is not None:
        return True
    place = flow.place_of(at)
    if any(released(s) for s in flow.statements[place + 1 :]):
        return True
    statement = flow.statements[place] if place < len(flow.statements) else None
    if statement is None:
        return False
    start, end = at.node.end_byte, statement.node.end_byte
    return any(
        start <= c.node.start_byte < end and not exclusive(c, at) and released(c)
        for c in flow.script.commands
    )


def _at(flow: Flow, path: ExitPath) -> int:
    return flow.place_of(path.command)


def _batch_script(script: Script) -> bool:
    """Whether the script is a Slurm batch script (`#SBATCH` lines before its first command):
    when it ends, its job ends, and Slurm ends every process of the job."""
    text = script.file.text
    return "#SBATCH" in text and any(words for words in slurm.directives(text))


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


def _functions(ctx: Context, script: Script) -> Functions:
    """Where each function the script can call is defined: the script itself, or a file it
    sources (read on first need)."""
    state: list[dict[str, Script]] = []

    def lookup(name: str) -> Script | None:
        if name in script.functions:
            return script
        if not state:
            state.append(ctx.environment.functions_at_end(script))
        return state[0].get(name)

    return lookup


def _sourcing(
    ctx: Context, script: Script, libraries: _Libraries
) -> Callable[[Command], bool | None]:
    """The errexit state a `source` statement of the script leaves: the last `set` at the top
    level of the files it sources (`set -euo pipefail` in a library), None when none sets it
    or the files disagree."""
    calls = {id(c.command): c for c in ctx.environment.calls.calls_in(script) if c.kind == "source"}

    def state(statement: Command) -> bool | None:
        call = calls.get(id(statement))
        if call is None or not call.targets:
            return None
        found = {libraries.final_errexit(ctx.ws.shell(target)) for target in call.targets}
        return found.pop() if len(found) == 1 else None

    return state


def _libraries(ctx: Context, script: Script) -> dict[str, Script]:
    """The functions of the files the script sources at its top level, by name (its own
    definitions win): what a call of one of them starts and stops is checked in its body."""
    found: dict[str, Script] = {}
    for call in ctx.environment.calls.calls_in(script):
        if call.kind != "source" or call.command.function is not None:
            continue
        for target in call.targets:
            library = ctx.ws.shell(target)
            if library is not None and library is not script:
                for name in library.functions:
                    found.setdefault(name, library)
    return found


def _final_errexit(script: Script) -> bool | None:
    """The errexit state the file's top level leaves, if it sets one; None too when its last
    `set` runs only under a condition (`[ -n "$STRICT" ] && set -e`: not known)."""
    sets = [(c, on) for c, on in script.errexit_sets() if c.function is None and not c.subshell]
    if not sets or sets[-1][0].guards:
        return None
    return sets[-1][1]


@dataclass
class _Run:
    """What the rule keeps from one script to the next in a run."""

    workflow_cleans: bool
    images: ImageScripts
    libraries: _Libraries = field(default_factory=_Libraries)
    reported: set[tuple[Location, str]] = field(default_factory=set)


@script_rule(
    "BL103", "late-cleanup-trap", Severity.WARNING, tags=("shell", "resources"), precision="medium"
)
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    calls = ctx.environment.calls
    if ctx.sees_everything:
        calls.index()  # (one pass over every script answers is_sourced for all)
    run = ctx.kept("BL103", lambda: _Run(cancels_runner_jobs(ctx.ws), ImageScripts(ctx.ws)))
    had_tree = script.has_tree
    host = ctx.wiring.is_launcher(script.path)
    sourced = functools.partial(calls.is_sourced, script.path)
    libraries = run.libraries
    libraries.functions = _libraries(ctx, script)
    undecided: list[Undecided] = []
    yield from _check(ctx, script, run, host, sourced, libraries, undecided)
    if not had_tree:  # (a tree this pass asked for: let go, as the model keeps none)
        script.let_go_tree()


def _only_in_image(ctx: Context, run: _Run, path: str, seen: frozenset[str] = frozenset()) -> bool:
    """Whether the script runs only in a container: scripts call it that run only there (the
    image's entrypoint script), or, where none does, a Dockerfile copies it into its image and
    runs it there and no route starts it (an entry's, a workflow's: one may run it on a host)."""
    if path in seen or len(seen) > 4 or _named_in_workflows(ctx, path):
        return False
    calls = ctx.environment.calls.callers_of(path)
    if calls:
        return all(
            _container_command(call.command)
            or _only_in_image(ctx, run, call.caller.top.path, seen | {path})
            for call in calls
        )
    return run.images.dockerfile_running(path) is not None and not ctx.environment.routes(path)


# what a script may still do after its last kill and before it ends, holding nothing (not
# `wait`, which waits for the program the kill missed, nor `sleep`: t82a)
_ENDING = frozenset({"echo", "printf", "exit", "true", ":", "kill", "sync"})


def _ends_after_kill(script: Script, finding: Finding) -> bool:
    """Whether the finding's kill (a pipeline's or a job's, that misses the program) is the
    script's last act: at its top level, in no loop, with only messages, other kills and the
    `exit` after it on its path (`_ENDING`); or a trap's handler that does only those and ends
    in `exit` (`trap 'kill $pid; exit 0' TERM`: the script ends there)."""
    kill = next(
        (
            c
            for c in script.commands
            for r in finding.related
            if r.label == "kill" and c.first_line_span == r.span and c.function is None
        ),
        None,
    )
    if kill is not None and kill.base == "trap":  # (its handler's last act: `kill $p; exit 0`)
        return _ends_in_handler(script, kill)
    return (
        kill is not None
        and not kill.loops
        and all(
            c.base in _ENDING
            for c in script.commands
            if c.node.start_byte >= kill.node.end_byte
            and c.function is None
            and not exclusive(kill, c)
            and c.words
        )
    )


def _ends_in_handler(script: Script, trap: Command) -> bool:
    """Whether the trap's handler ends the script after its kill: only messages and kills, in
    one list run whole (no condition, `||`, subshell or loop), then `exit`; and so does every
    later `trap` of the script that may replace it for one of its signals (t84a)."""
    words = [w.value for w in trap.args if w.value != "--"]
    if len(words) < 2 or not _handler_ends(script, words[0]):
        return False
    signals = set(words[1:])
    for other in script.commands:
        if (
            other.base == "trap"
            and other.node.start_byte > trap.node.end_byte
            and not exclusive(trap, other)
        ):
            given = [w.value for w in other.args if w.value != "--"]
            if signals & set(given[1:]) and not (given and _handler_ends(script, given[0])):
                return False
    return True


def _handler_ends(script: Script, text: str) -> bool:
    handler = parse_file(SourceText(script.path, text.encode("utf-8", "surrogateescape")))
    commands = handler.commands
    return (
        bool(commands)
        and not handler.nested
        and all(
            c.base in _ENDING
            and not (c.guards or c.tested or c.or_guarded or c.subshell or c.loops)
            and c.function is None
            for c in commands
        )
        and commands[-1].base == "exit"
    )


def _container_command(command: Command) -> bool:
    """Whether the command is the command a `docker run` (`podman run`) container runs, or its
    last act (`docker run --rm img bash -lc 'bash /workspace/server.sh | tee log'`; t76b,
    t81b, InferenceX's amd_utils/server.sh): what it leaves running ends with the container
    (its PID namespace goes with its first process); or the task of a Slurm step (`srun ...
    bash bench.sh`), whose processes Slurm ends when the step's task ends. Not where the
    container's command goes on after it (`bash srv.sh; sleep infinity`, `&& tail -f
    /dev/null`, `bash srv.sh & python3 job.py`; t82a), nor where the container uses the host's
    PID namespace (`--pid=host`)."""
    at: Command | None = command
    below = command
    while at is not None:
        wrappers = {w.name: w for w in at.invocation.wrappers}
        container = wrappers.get("docker run") or wrappers.get("podman run")
        if container is not None:
            pid = container.option("--pid")
            return (pid is None or pid != "host") and (below is at or _last_act(below))
        if "srun" in wrappers:  # (a Slurm step: Slurm ends what is left of it with it; h80 W6)
            return below is at or _last_act(below)
        below, at = at, at.script.parent
    return False


def _starts_container(command: Command) -> bool:
    """Whether the command starts a container (`docker run ... &`): a sibling of the one the
    script runs in where the host's docker socket is mounted, which outlives it (t82a)."""
    return any(w.name in ("docker run", "podman run") for w in command.invocation.wrappers)


def _last_act(command: Command) -> bool:
    """Whether the command is the last its shell runs: not sent to the background, and nothing
    after it but the rest of its pipeline (`| tee log`), messages and an `exit` (`; echo done`:
    the container ends right after; t83a)."""
    if command.background or command.loops:
        return False
    previous = command
    for other in sorted(command.script.commands, key=lambda c: c.node.start_byte):
        if other.node.start_byte < command.node.end_byte or not other.words:
            continue
        if other.node.start_byte < previous.node.end_byte:
            continue  # (a substitution in a word of the one before: `tee log_$(hostname)`)
        if previous.piped and reads_pipe(other):
            previous = other
            continue
        if other.base not in _AFTER_LAST:
            return False
    return True


# what a container's command may still run after the script, holding nothing
_AFTER_LAST = frozenset({"exit", "echo", "printf", "true", ":"})


def _named_in_workflows(ctx: Context, path: str) -> bool:
    """Whether a workflow step's `run:` names the script by its repository path (a step's
    `bash app/serve.sh` runs it on the runner; t79a): then it may run on a host. Not the path
    in a `paths:` filter, nor inside another path (`/app/serve.sh` in a container, `tools/x.sh`
    for `x.sh`; t80a)."""
    named = re.compile(rf"(?<![\w./-])(?:\./)?{re.escape(path)}(?![\w/.-])")
    workflows = ctx.ws.glob([*ctx.ws.layout.workflows, *WORKFLOWS])
    for _, root in workflow_roots(ctx.ws, workflows, posixpath.basename(path)):
        for _, job, steps in job_steps(root):
            for step in steps:
                if any(named.search(run.value) for run in step_runs(job, step)):
                    return True
    return False


# (the memo of a script: the engines each of its background commands runs through a script
# of the repository, `_engines_run`)
_ENGINES_RUN = "BL103 engines run"


def _engines_run(ctx: Context, script: Script) -> dict[int, list[Command]]:
    """For each command of the script sent to the background that runs a script of the
    repository (`bash start.sh > log 2>&1 &`, `setsid bash -c "bash '$START'" &`), the engine
    launches that script runs in its own shell (not in the background, nor in a function), by
    the command's id."""
    found: dict[int, list[Command]] = {}
    for call in ctx.environment.calls.calls_in(script):
        if call.kind != "run":
            continue
        outer = call.command  # (the command of the script's own shell that runs it)
        while outer.script is not script and outer.script.parent is not None:
            outer = outer.script.parent
        if outer.script is not script or not _own_job(outer):
            continue
        for target in call.targets:
            called = ctx.ws.shell(target)
            if called is None:
                continue
            for launch in launches(called, shapes=True):
                command = launch.command
                if command.script is called and command.function is None and not command.background:
                    found.setdefault(id(outer), []).append(command)
    return found


def _check(
    ctx: Context,
    script: Script,
    run: _Run,
    host: bool,
    sourced: Callable[[], bool],
    libraries: _Libraries,
    undecided: list[Undecided],
) -> Iterator[Finding]:
    batch = _batch_script(script)  # (asked once: its `#SBATCH` lines read)
    script.memo[_ENGINES_RUN] = _engines_run(ctx, script)
    found = _check_script(
        script,
        sourced,
        _functions(ctx, script),
        _sourcing(ctx, script, libraries),
        libraries,
        undecided,
        functools.partial(ctx.environment.calls.sourced_under_errexit, script.path),
    )
    for finding, resource in found:
        key = (finding.location, finding.message)
        if key in run.reported:  # (a library's function, called by several scripts)
            continue
        run.reported.add(key)
        if resource is None:  # (not about one resource's exits)
            if _ends_after_kill(script, finding) and _only_in_image(ctx, run, script.path):
                # (the kill misses the program, but the container ends right after it: t81b)
                undecided.append(Undecided(_IN_IMAGE, finding.location))
                continue
            yield finding
            continue
        if resource.what in _HOST_ONLY and not host:
            continue  # inside a job or container, the process ends with it
        if resource.what == "background process" and batch:
            continue  # (the batch script's end ends the job: Slurm ends its processes)
        if (
            resource.what == "background process"
            and not _starts_container(resource.acquired_by)
            and _only_in_image(ctx, run, script.path)
        ):
            # (run in an image: its processes end with the container; on a host they would not)
            undecided.append(Undecided(_IN_IMAGE, finding.location))
            continue
        if (
            run.workflow_cleans
            and resource.what in _SLURM
            and _named_after_runner(resource.acquired_by)
        ):
            continue
        yield finding
    outside = {_may_be_released(what) for what in _HOST_ONLY} if not host else set()
    if batch:
        outside.add(_may_be_released("background process"))
    if batch or (
        any(item.what == _IN_LOOP for item in undecided) and _only_in_image(ctx, run, script.path)
    ):
        outside.add(_IN_LOOP)  # (its background processes end with the job or container)
    for item in dict.fromkeys(undecided):  # (a flow checked twice says it once)
        if item.what not in outside:  # (in a job or container, it ends with it: not checked)
            ctx.count(item.what, item.where)
