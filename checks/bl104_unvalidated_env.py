"""An entrypoint that hands its caller's variables to an engine without checking them.

## What it does
In an entrypoint (by default any script under `benchmarks/`, `layout.entrypoints`), finds the
variables it expects from its caller: read, but assigned neither in the script nor in anything it
sources (`export X="$X"` gives it no value), and not read with a default (`${X:-d}`). It reports the
first engine command line (`vllm serve`, `python -m sglang.launch_server`, `python -m dynamo.*`,
`trtllm-serve`, or an argument array such as `VLLM_CMD=(...)` run later) that uses one of them when
nothing validated it before: `check_env_vars X` (from `benchmarks/benchmark_lib.sh` or the script's
own function), a call of any function of the script or a library it sources that checks the
variables its arguments name and exits (`need X`, with `need() { for v in "$@"; do [ -z "${!v}" ] &&
exit 1; done; }`, or one that collects the empty ones, `missing+=("$v")`, and exits when there is
one; or one that checks the variable its first argument names alone, `require_env X` with
`require_env() { local name="$1"; [[ -z "${!name:-}" ]] && exit 1; }` or `${!1}`, where nothing
between the name and its test may change it: a `source`, arithmetic, a function that assigns
it, a name reference or an integer; a function counts only where it is defined: not above its
definition, nor after an `unset -f`), `:
"${X:?}"` (not `${X?}`: it stops only when X is unset), or an `exit` (or a call of a function that
always exits: `die`, `usage`) under a condition that holds when X is empty, as the
condition evaluator decides it (`[[ -z $X ]] && exit`, `if [ -z "$X" ]; then ... exit`, `[ "$X" ] ||
exit`, `[ "$X" = "" ]`, a length of 0, `case "$X" in "") exit`, `[[ $X =~ ^[0-9]+$ ]] || exit`, `[ !
-d "$X" ]`, `(( X > 0 )) || exit`, `[ "$X" -gt 0 ] || exit` (`[` fails on an empty operand,
`[[` reads it as 0); a loop `for v in X Y; do [ -z "${!v}" ] && exit 1; done`, or over a list
the script gives once, written out, before it (`REQUIRED=(X Y)`, `for v in "${REQUIRED[@]}"`); under
`set -e`, a `false` there whose status nothing reads, `[[ -n $X ]] || { echo ...; false; }`, or a
call of a function whose body runs `false` or `return 1` whatever happens (`die() { echo ...; false;
}`); for a launch in a function, a `return` of that function before it too) — in the script, or in
the scripts that start it before they do, on every way the repository starts it (a launcher's
entrypoint that checks its variables and then runs a worker script; a container run passes only the
variables it names with `-e`; a call no entry's values make, as a framework no entry has, passes
what the caller itself sets). A variable every such way sets to a value that cannot be empty
(unconditionally `export PORT=8888`, `PORT=${PORT:-8888}`, `: "${PORT:=8888}"`, in both branches of
an `if`, `srun --export=ALL,PORT=$((8888 + N))`, `docker run -e PORT=$PORT` after `PORT=8888`, not
after an `unset PORT`, a workflow's `env:` value written as a literal, `TP: "8"`, or a matrix value
every row of the job's matrix gives as one, `CONC: ${{ matrix.conc }}` of `conc: [4, 8]`, where no
earlier step may write the name to `GITHUB_ENV`) is not reported either, nor one a master-config
entry gives on its route (its `model:` as `MODEL`), one a call of a reusable workflow passes as a
literal (`with: {model: 'org/m'}`, or a list its matrix takes, `tp-list: '[1, 2]'` for `${{
matrix.tp }}`), or a dispatch-only workflow's choice or boolean input passed on; a dispatch's free
input can be empty, and is reported; so is a script nothing in the repository runs, or (in a
repository with entries) one no entry's route reaches, with a note that says so (what reaches it is
not known). Located at the first unvalidated use; the message lists every unvalidated variable of
that command, and says when one is cut off from a `check_env_vars` line that lacks its `\\` (on the
lines after it: the author meant to check it; bash runs those lines as a command of their own). A
variable that nothing on the ways into the script sets (nothing in the repository, for a script
nothing starts) while one of them sets the same name in another case (`--port=$port` while the
launcher passes `PORT`, or while the script itself sets `PORT`), or an upper-case name nothing in
the repository sets that is one or two characters short of a name a way in sets, one character off
or with two neighbours swapped (`$MODE` where the workflow sets `MODEL`, `$PROT`), is almost always
a typo: an error of its own, on every launch that reads it, with the place that sets the other name
as a related location; a name in another case is one too where the script reads it anywhere else, at
its first such read (`if [[ "$isl" == 8192 ]]` while the launcher passes `ISL`: the test is never
true; a heredoc's `$port` while the script itself sets `PORT`; not a read on purpose, with a default
or tested). In a launcher, whose variables come from the workflow, only such a name is said: `$port`
where the launcher or its workflow sets `PORT` and nothing sets `port` (a client given
`http://$server_name:$port`).

A variable the script sets to a caller's variable as it is, under no condition, at its top level
(`export MODEL_PATH="$MODEL"`, or `SERVED=$MODEL` then `MODEL_PATH=$SERVED`), holds the caller's
value: an engine line that reads it reads the caller's variable, reported as `$MODEL (held in
$MODEL_PATH)` unless one of them is checked before the launch, or the launch runs only when the
caller's variable is not empty (`[ -n "$MODEL" ] && vllm serve "$MODEL_PATH"`). A check is of the
value the variable has then: `: "${PORT:?}"` followed by `PORT="$OTHER_PORT"` checks nothing the
engine gets.

A check under a condition or in a loop that may not run (`[ -n "$STRICT" ] && check_env_vars
X`, an `exit` inside `if [ -n "$STRICT" ]`, `for i in $LIST`, a `case` item) counts for a launch
(or a read made elsewhere: `ARGS+=(--x "$X")`) only where it runs under each of those conditions,
the same statement the same way or one of the same text (quotes, `[[`/`[` and `==`/`=` aside:
taken to be the same condition written again; where the variable changed between, a silence),
not under one of them the other way (an `else`, a later `elif`), and in each such loop; another
test of the same variable (`= y`, `-z` against `-n`) is another condition. The finding names the
check. A launch in a function takes every check to have run (where the function is called
is not followed), but one only a call's success makes where the launch is not in the call's
own function body under that success (`start() { need X && vllm ...; }`). The conditions of
the check itself (`[ -z "$X" ] && echo "X unset" >&2 && exit 1`) are its own, and so is a
condition whose other way ends the script: an `elif` chain of exits,
an `if` whose `else` exits or calls a function that always exits (`die`), after nothing but
messages, an earlier `case` item that exits, and the check's own item where every later one
exits and one of them is `*)`. A function that fails instead of exiting when a variable its
arguments name is empty (`[ -z "${!v}" ] && return 1`) checks them where its failure ends the
script (`need X || exit 1`, `if ! need X; then exit 1; fi`, a plain call under `set -e`) and for a
launch that runs only when it succeeds (`need X && vllm serve "$X"`, `if need X; then`, `need X
&& need Y && vllm ...`: each call joined by `&&` before it, not one joined by `||`). A message
before the exit changes nothing where it cannot fail: `echo`, a `printf` whose format takes only
strings, sent to the script's output or error or to `/dev/null`. A launch that runs only when the
variable is not empty (`[ -n "$X" ] &&`, `[ "$X" ] &&`, `[[ $X ]] &&`, `[ ${#X} -gt 0 ] &&`, `case
"$X" in ?*)`) is not reported. An empty value is both a variable set to the empty text and an
unset one (`[ -z "${X-x}" ]` is no check: unset, it is `x`). After an `eval`, or a `source` of a
file benchlint cannot find, or an assignment to a name held in a variable (`export "$k=$v"`,
`read -r "$name"`, `printf -v "$name"`; one a call of a function gives it, `split_to ARGS`
with `split_to() { read -r -a "$1"; }`, assigns that name), any variable may have been set:
the launch is not checked, and every report says so (`benchlint: warning: engine launches
after an eval ...`).

## Why is this bad?
`set -u` does not catch a variable that is set but empty, and launchers do export empty values
(`export PORT="$PORT"`). The engine then gets `--port ""` or a model path of `""`, and the failure
shows up as a readiness probe that polls `http://host:/health` until the job's time runs out.

## Example
```bash path=benchmarks/single_node/serve.sh
vllm serve "$MODEL_PATH" --port "$PORT" --tensor-parallel-size 8
```

## Use instead
```bash path=benchmarks/single_node/serve.sh
: "${MODEL_PATH:?MODEL_PATH must be set}" "${PORT:?PORT must be set}"
vllm serve "$MODEL_PATH" --port "$PORT" --tensor-parallel-size 8
```

## Exceptions
Scripts that other scripts source are libraries, not entrypoints; one with an engine launch
at its top level that reads a variable it neither sets nor checks runs that launch in the
sourcing script's shell, which is not followed, and every report counts it (`benchlint:
warning: scripts other scripts source ...`). What a function sets or
validates counts where the function is called, not where it is defined (a library that
defines an unrelated function assigning `EP_SIZE` does not make `$EP_SIZE` safe). Variables
the system, GitHub Actions or Slurm set, and those in `known-env`, are not checked. Validation
and assignment are read in text order: a check inside a function that runs later does not
count, nor does an assignment after the launch (`TP=8` below it, or a library function called
after it that exports `EP_SIZE`); a launch inside a function counts every assignment of the
script, as the function may be called after them. A check ends the script only where
bash ends it: an `exit`, a validator or a `${X:?}` in a job sent to the background, or in a
pipeline's element whose failure nothing turns into the script's end (no `set -e`, not the
last element without `pipefail`, no condition reading it: `echo "${MODEL:?}" | tee log`),
checks nothing; an `exit` or a validator in a subshell is read the same way. A launch inside a
function reads what the function set before it (`local chunk=${5:-2048}`), or what every
function of the script that calls it surely sets to a value that cannot be empty before the
call (not under a condition but in both branches of an `if`, not in a loop but one over
written-out words, not emptied or unset after), its own local too
(`start() { local MODEL=/models/m; launch; }`: bash's scope is dynamic; not where a library the
script sources names the function), and `$X` inside `${X:+--x "$X"}` is expanded only when X is
not empty. An unquoted `$X` that is a word of its own
is reported where a value is read (after an option written without `=`, or as the model of `vllm
serve` and `trtllm-serve [serve]`): empty, it vanishes (the option takes the next word, or none: a
usage error; the model is left out), and so is a whole piece of a string of flags expanded
unquoted (`ARGS="--max-model-len $LEN"`); where an option may start (`--port 8000 $EXTRA_ARGS`,
in such a string too, after `--`, or after a flag that takes no value: one whose `--no-` form a
measured vLLM release accepts, such as `--enforce-eager`, or named so, `--enable-...`,
`--disable-...`, `--skip-...`, `--trust-remote-code`) an empty value leaves the line as it was (a
bundle of optional flags) and is not; other flags are taken to read a value (`--headless` and
`--log-requests` take none: not known from the data). A script outside `layout.entrypoints` (not
a launcher, not a library) whose engine reads a variable the script does not set is not
checked, and every report says so with its place (`benchlint: warning: scripts outside
layout.entrypoints ...`): name such scripts there to check them.
"""

from __future__ import annotations

import itertools
import posixpath
import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from benchlint.calls import gives_value
from benchlint.context import Context
from benchlint.engines import Launch, array_name, assignments_of, launches
from benchlint.environment import (
    VALIDATORS,
    ScriptState,
    StartPath,
    appends,
    both_branches,
    checker,
    command_at,
    container_passes,
    is_builtin,
    is_slip,
    met_at,
    nonempty_value,
    runs_when_empty,
)
from benchlint.finding import Finding, Location, Severity
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.shell.model import (
    Assignment,
    Command,
    Read,
    Script,
    Syn,
    Word,
    conditional_outer,
    first_line,
    whole_piece,
)
from benchlint.workspace import path_matches


def _consumed(launch: Launch, libraries: Sequence[Script] | None = None) -> list[tuple[Read, str]]:
    """Variables the engine command reads plainly (`$X`, `${X}`: no default, no validation), in
    text order (argument arrays followed, and plain strings expanded unquoted: `ARG="--max-model-len
    $LEN"; vllm serve m $ARG`). A read guarded by a test that the variable is set (`[ -n "$X" ] &&
    ARGS=(--x "$X")`) is already checked. With each read, where an empty value vanishes from
    the command line (a whole unquoted word, or a whole blank-separated piece of such a string):
    "value" (an option's) or "model" (`vllm serve`'s positional), or "" where it leaves an empty
    argument; a whole word or piece where an option may start (`--port 8000 $EXTRA_ARGS`) is
    not read: empty, it leaves the line as it is."""
    found: list[tuple[Read, str]] = []
    for index, (word, command) in enumerate(launch.argv):
        if array_name(word) is not None:
            continue
        name = word.variable() if word.node.type in ("simple_expansion", "expansion") else None
        strings = [a for a in assignments_of(word.script, name or "") if a.value is not None]
        if strings and all(_flag_string(a.value) for a in strings):
            for assignment in strings:
                value = assignment.value
                assert value is not None
                for read in _plain_reads(value, assignment.command, libraries):
                    if not whole_piece(value, read):
                        found.append((read, ""))
                    elif (slot := _piece_slot(launch, index, value, read)) is not None:
                        found.append((read, slot))
            continue
        reads = word.reads()
        slot = launch.value_slot(index)
        if len(reads) == 1 and reads[0].alone and slot is None:
            continue  # `... --port 8000 $EXTRA_ARGS`: empty, it leaves the line as it is
        found.extend(
            (r, (slot or "value") if r.alone else "")
            for r in _plain_reads(word, command, libraries)
        )
    return found


def _piece_slot(launch: Launch, index: int, value: Word, read: Read) -> str | None:
    """Where a whole piece of a flag string stands on the command line (`Launch.value_slot`):
    after the piece before it in the string, or, the string's first, in the string's place."""
    src = value.script.src
    before = src[value.node.start_byte : read.node.start_byte].decode(errors="replace")
    pieces = before.replace('"', " ").replace("'", " ").split()
    if not pieces:
        return launch.value_slot(index)
    return launch.after_option(None if "$" in pieces[-1] else pieces[-1])


def _flag_string(value: Word | None) -> bool:
    """A plain string of flags (`"--max-model-len $LEN"`): no array, no substitution, and a
    piece that is an option."""
    if value is None or value.items is not None or "$(" in value.text or "`" in value.text:
        return False
    return any(piece.startswith("-") for piece in value.value.split())


def _plain_reads(
    word: Word, command: Command, libraries: Sequence[Script] | None = None
) -> list[Read]:
    """The plain reads of one argument word (or of a string it expands to), written by
    `command` (`libraries`: `_set_in_function`)."""
    checked = {n for n, empty in runs_when_empty(command).items() if not empty}
    reads = word.reads()
    # `${X:+--x "$X"}`: the `$X` inside is expanded only when X is not empty
    alternates = [(r.name, r.node) for r in reads if r.operator == ":+"]
    return [
        r
        for r in reads
        if r.plain
        and r.name not in checked
        and not any(
            n == r.name and a.start_byte < r.node.start_byte < a.end_byte for n, a in alternates
        )
        and not _set_in_function(command, r, libraries)
    ]


OUTSIDE = (
    "scripts outside layout.entrypoints that hand an engine variables they do not set not "
    "checked (BL104: name them in layout.entrypoints to check what their callers provide)"
)


UNFOLLOWED = (
    "engine launches after an `eval`, a `source` of a file benchlint cannot find, or an "
    'assignment to a name held in a variable (`export "$k=$v"`, `declare "$name=..."`, '
    '`read -r "$name"`), any of which may set any variable, not checked for variables from the '
    "caller (BL104)"
)


SOURCED = (
    "scripts other scripts source that hand an engine variables they do not set not checked "
    "(BL104: what the sourcing script holds where it sources them is not followed)"
)


def _count_outside(ctx: Context, script: Script, found: list[Launch], what: str = OUTSIDE) -> None:
    """Say (never silently skip) a script outside the entrypoints (or one another script
    sources: `what`) whose engine launch reads a variable it does not set or check before:
    what BL104 would have checked there."""
    assigned = {a.name for a in script.assignments} | _sourced_names(ctx, script)
    known = ctx.config.known_env
    reading = [
        launch
        for launch in found
        if any(
            r.name not in assigned and not is_builtin(r.name, known) for r, _ in _consumed(launch)
        )
    ]
    if not reading:
        return
    starts = [launch.command.file_offset for launch in reading]
    everything, *befores = ctx.environment.states_before(
        script, [len(script.src) + 1, *starts], commands=[None, *(x.command for x in reading)]
    )
    for launch, before in zip(reading, befores, strict=True):
        provided = everything if launch.command.function is not None else before
        if everything.unknown or _unvalidated(ctx, launch, provided, before):
            ctx.count(what, Location(script.path, launch.command.first_line_span))
            return


def _unvalidated(
    ctx: Context, launch: Launch, provided: ScriptState, before: ScriptState
) -> dict[str, tuple[Read, str]]:
    """The variables the launch reads that the script neither provides (`provided`: what it
    set before the launch, or anywhere for a launch in a function) nor checks before it: each
    one's first read, and where an empty value vanishes there (`_consumed`)."""
    found: dict[str, tuple[Read, str]] = {}
    for read, gone in _consumed(launch, _libraries(ctx, launch.command.script.top)):
        name = read.name
        if name in before.validated or is_builtin(name, ctx.config.known_env):
            continue
        if name in before.unmet:
            # (a check under a condition, the read made elsewhere under it too: `if [[ $SPEC
            # == mtp ]]; then check_env_vars MTP; ARGS+=(--n "$MTP"); fi`: h48 F3)
            holder = command_at(read.script, read.node.start_byte)
            if (
                holder is not None
                and holder is not launch.command
                and met_at(before.unmet[name], holder)
            ):
                continue
        if name in provided.assigned:
            # (`MODEL_PATH="$MODEL"` then `vllm serve "$MODEL_PATH"`: the caller's MODEL; not
            # for a launch in a function, which may run before the assignment: h41 W2)
            inside = launch.command.function is not None
            name = "" if inside else _caller_alias(ctx, launch, name, provided) or ""
            if not name:
                continue
        found.setdefault(name, (read, gone))
    return found


def _caller_alias(
    ctx: Context, launch: Launch, name: str, provided: ScriptState, depth: int = 0
) -> str | None:
    """The caller's variable a variable of the script holds as it is, where nothing checked
    the value it holds before the launch: `MODEL_PATH="$MODEL"` (or `export MODEL_PATH=$MODEL`),
    under no condition, in no loop, at the top level of the launch's own file, where the
    script had not set MODEL (a chain of three at most: `A=$B`, `B=$C`). Not `A+=$B` (A's
    value too: h41 N3), nor a value from a name the same line sets (`B=x A=$B`: W1)."""
    made = provided.assigned.get(name)
    at = made.at if made is not None else None
    if not isinstance(at, Assignment) or at.value is None or depth > 2:
        return None
    command = at.command
    script = launch.command.script
    origin = at.value.variable()
    if (
        origin is None
        or origin == name
        or at.kind not in ("assign", "export")
        or appends(at)
        or command.guards
        or command.loops
        or command.function is not None
        or command.apart_from_script
        or command.script is not script  # (a sourced file's: its context not read, h41 N2)
        or any(a.name == origin for a in command.assignments)
        or is_builtin(origin, ctx.config.known_env)
    ):
        return None
    environment = ctx.environment
    then = environment.states_before(script, [command.node.start_byte], command, [command])[0]
    if then.unknown or origin in then.validated:
        return None
    # (a check of the origin after the line, before it gets another value: of the value held,
    # h41 N1; along a chain too, `A=$MODEL; B=$A; : "${A:?}"`, h42 N9)
    launch_at = launch.command.file_offset
    later = min(
        (
            a.command.node.start_byte
            for a in script.assignments
            if a.name == origin
            and command.node.end_byte <= a.command.node.start_byte < launch_at
            and a.command.function is None
        ),
        default=launch_at,
    )
    if origin in environment.state_before(script, later).validated:
        return None
    if runs_when_empty(launch.command).get(origin) is False:
        # (`[ -n "$MODEL" ] && vllm serve "$MODEL_PATH"`: the launch runs only when the origin
        # is not empty, where it still holds what the alias was given: h42 N8)
        held = environment.state_before(script, launch_at, launch.command)
        if not held.unknown and origin not in held.assigned:
            return None
    if origin in then.assigned:
        return _caller_alias(ctx, launch, origin, then, depth + 1)
    return origin


def _sourced_names(ctx: Context, script: Script, depth: int = 0) -> set[str]:
    """The names the files the script sources assign (and the files those source, three
    deep): `. common.sh` that sets `MODEL="${MODEL:-...}"` sets it for the script."""
    found: set[str] = set()
    if depth > 2:
        return found
    for call in ctx.environment.calls.calls_in(script):
        if call.kind != "source":
            continue
        for target in call.targets:
            library = ctx.ws.shell(target)
            if library is not None and library is not script:
                found |= {a.name for a in library.assignments}
                found |= _sourced_names(ctx, library, depth + 1)
    return found


def _set_in_function(
    command: Command, read: Read, libraries: Sequence[Script] | None = None
) -> bool:
    """A read in a function body of a variable the body sets before it (`local chunk=${5:-2048}`:
    a local variable, gone when the function returns, so no state of the script holds it), or
    that each function calling it sets before the call (`start() { local MODEL=m; launch; }`:
    bash's scope is dynamic, so `launch` reads `start`'s local; h63 F5), where no library
    whose functions the script calls (`libraries`; None: not known) names the function (one
    of them may call it: h70 M4)."""
    return _set_before(command, read.name, read.node.start_byte, frozenset(), libraries)


def _libraries(ctx: Context, script: Script) -> list[Script]:
    """The other files whose functions the script can call (the libraries it sources)."""
    found = {id(s): s for s in ctx.environment.functions_at_end(script).values()}
    return [s for s in found.values() if s is not script]


def _set_before(
    command: Command,
    name: str,
    at: int,
    seen: frozenset[str],
    libraries: Sequence[Script] | None,
) -> bool:
    function = command.function
    if function is None or function in seen:
        return False
    script = command.script
    mine = [
        a
        for a in script.assignments
        if a.name == name and a.command.function == function and a.node.start_byte < at
    ]
    # (a caller's: its last assignment before the call that may change the value, or default
    # it, decides; not `export MODEL`, `MODEL=$MODEL` or one in a subshell: h73 F2)
    changing = [
        a for a in mine if (gives_value(a) or nonempty_value(a)) and not a.command.apart_from_script
    ]
    if seen and changing:
        ordered = sorted(changing, key=lambda a: a.node.start_byte)
        if len(ordered) > 1 and both_branches(ordered[-2], ordered[-1]) is not None:
            # (`if ...; then local MODEL=/a; else local MODEL=/b; fi`: h71 V01)
            return all(_surely_given(a, at, branch=True) for a in ordered[-2:])
        return _surely_given(ordered[-1], at)
    if not seen and any(
        a.value is not None or a.kind in ("read", "for", "arithmetic") for a in mine
    ):
        return True
    # (every call, each a command of its own in this script: not one behind a wrapper, a
    # trap or a shell string, whose caller is not followed here)
    calls = [c for c in script.commands if c.base == function]
    named = [c for c in script.all_commands() if any(w.value == function for w in c.words)]
    if not calls or len(named) != len(calls) or libraries is None:
        return False
    if any(w.value == function for library in libraries for w in _words(library)):
        return False  # (`helper() { launch; }` in a library the script sources and calls)
    return all(_set_before(c, name, c.node.start_byte, seen | {function}, libraries) for c in calls)


def _words(script: Script) -> Iterator[Word]:
    return (w for c in script.all_commands() for w in c.words)


def _surely_given(assignment: Assignment, at: int, branch: bool = False) -> bool:
    """Whether a caller's assignment surely gives a value that is not empty where it calls (at
    `at`): one that cannot be empty (`nonempty_value`: `/models/m`, `${MODEL:-/models/m}`, or
    a word with a character of its own, `/models/${NAME}`), not under a condition or in a loop
    (but one over written-out words), not in a shell of its own or a prefix, and no `unset` of
    the name between them (h70 M3, h71 F3, F4); `branch`: one of the two branches of an `if`
    that each give one (its only condition is that `if`'s)."""
    command = assignment.command
    value = assignment.value
    nonempty = nonempty_value(assignment) or (
        value is not None and _EXPANSIONS.sub("", value.text).strip("\"'") != ""
    )
    return (
        nonempty
        and assignment.kind != "prefix"
        and (not command.guards or (branch and len(command.guards) == 1))
        and all(_runs_once_at_least(command.script, loop) for loop in command.loops)
        and not command.apart_from_script
        and not any(
            c.unsets(assignment.name) and assignment.node.end_byte <= c.node.start_byte < at
            for c in command.script.commands
            if c.function == command.function
        )
    )


def _runs_once_at_least(script: Script, loop: Syn) -> bool:
    """Whether a loop runs its body at least once: a `for` over words written out (`for d in a
    b`; h73 F1)."""
    if loop.type != "for_statement":
        return False
    listed = _FOR_LIST.match(script.src, loop.start_byte, loop.end_byte)
    return listed is not None and bool(listed.group(1).strip())


# a `for` loop's list of words written out: `for d in a b; do`, no expansion, glob or quote
_FOR_LIST = lazy_compile(
    rb"for\s+\w+\s+in\s+([\w./:=@+-]+(?:[ \t]+[\w./:=@+-]+)*)\s*(?:;|\n)\s*do\b"
)


# a word's expansions and substitutions (what is left is text of its own)
_EXPANSIONS = lazy_compile(r"\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_0-9@*#?$!-]+|`[^`]*`")


def _safe_from_callers(ctx: Context, path: str) -> frozenset[str]:
    """The names that cannot be empty when the script starts, on every way the repository
    starts it: checked for empty by a script on the way before it ran the next (a caller's
    `check_env_vars X`), or set to a value that cannot be empty (`export PORT=8888`,
    `srun --export=ALL,PORT=$((8888 + N))`). What started the first script does not matter.
    Where no route reaches the script but scripts call it (a launcher's call no entry's values
    make), what each caller passes itself; none when nothing in the repository starts it.
    Routes through a launcher no entry reaches count only where no other route reaches the
    script (no job runs them: what such a launcher passes on is not known)."""
    routes = ctx.environment.routes(path) or ctx.environment.caller_starts(path)
    routes = [r for r in routes if not r.idle] or routes
    if not routes:
        return frozenset()
    return frozenset.intersection(
        *(r.validated | {n for n, p in r.variables().items() if p.nonempty} for r in routes)
    )


def _what_empty_does(slots: list[str]) -> str:
    """What an empty value does to the command line (`_consumed`'s slots): a read that is a
    whole unquoted word (or a whole piece of a string expanded unquoted) vanishes and the next
    word takes its place; any other (quoted, or part of a word such as `--tp=$TP`) leaves an
    empty argument or value."""
    vanished = "; ".join(_VANISHED[slot] for slot in dict.fromkeys(slots) if slot)
    if not vanished:
        return "an empty value reaches the engine as an empty argument or option value"
    if "" not in slots:
        return f"an empty value vanishes from the unquoted command line: {vanished}"
    return (
        "an empty value reaches the engine as an empty argument or option value, or (unquoted) "
        f"vanishes from the command line: {vanished}"
    )


# what a vanished word leaves (argparse: an option takes the next word for its value unless
# that is a flag, `expected one argument`; `vllm serve` without a model serves its default one
# from 0.10.2 on, and exits before: `the following arguments are required`)
_VANISHED = {
    "value": "the option before it takes the next word as its value, or has none (a usage error)",
    "model": "the model argument is left out",
}


def _route_setters(routes: list[StartPath], names: list[str]) -> dict[str, dict[str, Location]]:
    """What the ways into a script set, of names close to these (`is_slip`), by name read."""
    found: dict[str, dict[str, Location]] = {}
    for route in routes:
        for name, provenance in route.variables().items():
            where = provenance.location
            if where is None:
                continue
            for wanted in names:
                if is_slip(wanted, name):
                    found.setdefault(wanted, {}).setdefault(name, where)
    return found


def _setters(ctx: Context, names: list[str]) -> dict[str, dict[str, Location]]:
    """Where something in the repository sets each of these names, in any case form, by the
    name's lower-case form: assignments in the scripts' text (`port=`, `export PORT=`; read as
    text: modelling every script of the repository to find a few names would cost more), the
    workflows' `env:` and the master configs' additional-settings."""
    found: dict[str, dict[str, Location]] = {}
    pattern = re.compile(
        r"(?<![^\s;(&|{])(" + "|".join(re.escape(n) for n in names) + r")=", re.IGNORECASE
    )  # (another case form only: names read upper-case are looked for on the ways in)
    for path in ctx.ws.shell_paths:
        source = ctx.ws.source(path)
        if source is None:
            continue
        for match in pattern.finditer(source.text):
            name = match.group(1)
            where = Location(path, source.span(match.start(1), match.end(1)))
            found.setdefault(name.lower(), {}).setdefault(name, where)
    wanted = {n.lower() for n in names}
    for step in ctx.wiring.steps:
        for name, where in step.env.items():
            if name.lower() in wanted:
                found.setdefault(name.lower(), {}).setdefault(name, where)
    for entry in ctx.wiring.entries:
        for element in entry.elements:
            for name, setting in element.settings.items():
                if name.lower() in wanted:
                    found.setdefault(name.lower(), {}).setdefault(name, setting.location)
    return found


def _own_setters(script: Script, names: list[str]) -> dict[str, dict[str, Location]]:
    """What the script itself assigns, of names another case form of these (`PORT` for
    `port`): where a way in sets neither, the script's own value is the one meant (t70a,
    InferenceX d7e24e9df: `PORT=$(( 8888 + ${PORT_OFFSET:-0} ))`, then `--port=$port`)."""
    found: dict[str, dict[str, Location]] = {}
    wanted = {n.lower(): n for n in names}
    for assignment in script.assignments:
        name = wanted.get(assignment.name.lower())
        if name is not None and assignment.name != name and assignment.kind != "dynamic":
            where = Location(script.path, assignment.span)
            found.setdefault(name, {}).setdefault(assignment.name, where)
    return found


def _typos(unvalidated: dict[str, Read], ctx: Context, path: str) -> list[Finding]:
    """Variables nothing sets, while something sets a name they are a slip for
    (`--port=$port` while the launcher exports PORT; `$MODE` where the workflow sets MODEL):
    almost always typos. When the repository starts the script, what sets a name is what the
    ways into it set (an unrelated script's `port=8888` sets nothing here), and a name read
    upper-case is a slip only where nothing in the repository sets it (a name that only the
    runner's or the image's environment gives, `HF_HOME`, is not); a script nothing starts is
    looked at for another case form only, anywhere in the repository."""
    routes = ctx.environment.routes(path)
    names = list(unvalidated) if routes else [n for n in unvalidated if not n.isupper()]
    if not names:
        return []
    setters = _route_setters(routes, names) if routes else _setters(ctx, names)
    scope = "nothing on the ways into this script" if routes else "nothing in the repository"
    own = _own_setters(next(iter(unvalidated.values())).script.top, names)
    found = []
    for name in names:
        read = unvalidated[name]
        others = setters.get(name, {}) if routes else setters.get(name.lower(), {})
        if name not in others and own.get(name):
            others = own[name]  # (`PORT=$(( 8888 + ... ))`, then `--port=$port`: its own)
        if name in others or not others:
            continue
        if routes and name.isupper() and _setters(ctx, [name]).get(name.lower(), {}).get(name):
            continue  # (set somewhere: a way in benchlint does not see may set it)
        other, where = next(iter(others.items()))
        found.append(
            Finding(
                "BL104",
                f"{scope} sets `{name}`; {where.path}:{where.span.line} sets "
                f"`{other}`: the engine gets an empty value where `${other}` was meant"
                + _not_given(ctx, path, other),
                Location(read.script.path, read.span),
                related=(Location(where.path, where.span, f"sets {other}"),),
                subject=f"typo:{name}",
                severity=Severity.ERROR,
            )
        )
    return found


def _unassigned_reads(script: Script) -> set[str]:
    """A cheap look, from the text: the names not upper-case the script reads that nothing in
    it assigns (a function's `local` or a loop's variable either: a function it calls sees a
    `local`, bash's scope being dynamic); a way in that sets `port` while the script reads
    `$PORT` is not looked for."""
    written = {m.decode() for m in _READ_TEXT.findall(script.src)}
    written = {n for n in written if not n.isupper()}
    if not written:
        return written
    return written - {a.name for inner in script.walk() for a in inner.assignments}


def _case_slips(
    ctx: Context, script: Script, everything: ScriptState, launcher: bool = False
) -> Iterator[Finding]:
    """Reads outside an engine's command line (a test, `[[ "$isl" == 8192 ]]`, an echo) of a
    name nothing on the ways into the script sets, and nothing in it, while a way in sets the
    same name in another case (the launcher passes `ISL`): always empty, where the other was
    meant (t50b, InferenceX 979e65e0c: an 8k1k tuning that never applied). A typo on an
    engine's command line is said there (`_typos`), with its launch. The script's own
    assignments count as setting the other name too (t70a, InferenceX 722dff5af: `PORT=8888`,
    then a client given `http://0.0.0.0:$port`; t72a: a heredoc's `$port` in an entrypoint). In
    a launcher (`launcher`), every read."""
    written = {n for n in _unassigned_reads(script) if n not in everything.assigned}
    if not any(not is_builtin(n, ctx.config.known_env) for n in written):
        return
    own = {a.name for inner in script.walk() for a in inner.assignments}
    routes = ctx.environment.routes(script.path)
    # (a script nothing starts: against its own other name only, where nothing in the
    # repository sets the name as it is read: t87 h13, this rule's own heredoc example)
    given: dict[str, str] = {}
    for route in routes:
        for name in route.variables():
            given.setdefault(name.lower(), name)
    ways_in = set(given)  # (the lower-case forms of the names a way in sets)
    mine = _own_setters(script, sorted(written))
    if not routes and not mine:
        return
    for name, setters in mine.items():
        given.setdefault(name.lower(), next(iter(setters)))
    if not any(given.get(n.lower(), n) != n for n in written):
        return  # (the text reads no other case form of a name a way in sets)
    # (a name an engine's command line reads too is said with its launch)
    engine = (
        set()
        if launcher
        else {read.name for launch in launches(script) for read, _ in _consumed(launch)}
    )
    first: dict[str, Read] = {}
    # (against the script's own other name, a lower-case input read on purpose is no slip:
    # one it tests, `[[ -n "$port" ]]`, reads with a default, `${port:-8888}`, or gives the
    # other name, `PORT=$port`: t72a; in a launcher, against any)
    optional = _optional_reads(script) if launcher or mine else set()
    for read, outer in _every_read(script):
        name = read.name
        other = given.get(name.lower())
        if other is None or other == name or name in engine or name.isupper() or name in own:
            continue
        if outer is not None and outer.name == other:
            continue  # (`${PORT:-$port}`: read only where PORT is not given: on purpose; h29)
        if (launcher or name.lower() not in ways_in) and (read.operator or name in optional):
            continue
        if name in everything.assigned or is_builtin(name, ctx.config.known_env):
            continue
        held = first.get(name)
        if held is None or read.node.start_byte < held.node.start_byte:
            first[name] = read
    sourced = _sourced_names(ctx, script) if first else set()
    for name, read in sorted(first.items(), key=lambda item: item[1].node.start_byte):
        if name in sourced:
            continue
        if routes:
            setters = _route_setters(routes, [name]).get(name, {})
        else:
            setters = _setters(ctx, [name]).get(name.lower(), {})
        other = given[name.lower()]
        if name in setters:
            continue  # (a way in sets it as it is written; for a script nothing starts, a
            # file of the repository)
        where = (setters.get(other) if routes else None) or mine.get(name, {}).get(other)
        if where is None:
            continue
        if read.operator in (":-", "-", ":=", "="):  # (`${isl:-1024}`)
            what = f"`{script.text_of(read.node)}` is its default here"
        else:
            what = f"`${name}` is empty here"
        scope = (
            "nothing on the ways into this launcher"
            if launcher
            else "nothing on the ways into this script"
            if routes
            else "nothing in the repository"
        )
        also = "" if launcher else _not_given(ctx, script.path, other)
        yield Finding(
            "BL104",
            f"{scope} sets `{name}`; {where.path}:{where.span.line}"
            f" sets `{other}`: {what} where `${other}` was meant{also}",
            Location(script.path, read.span),
            related=(Location(where.path, where.span, f"sets {other}"),),
            subject=f"typo:{name}",
            severity=Severity.ERROR,
        )


def _not_given(ctx: Context, path: str, name: str) -> str:
    """Where containers start the script without the name set (`docker run -e OSL` where the
    fix of `$isl` reads `$ISL`): the fix needs their `-e` too (h61 W1; not a container given a
    file of variables, `--env-file`, which may hold it); "" where none does."""
    dropped = [
        f"{c.caller.top.path}:{c.command.first_line_span.line}"
        for c in ctx.environment.calls.callers_of(path)
        for passes in [container_passes(c.command)]
        if passes is not None
        and name not in passes
        and not any(w.has("--env-file") for w in c.command.invocation.wrappers)
    ]
    if not dropped:
        return ""
    several = len(dropped) > 1
    return (
        f"; the container{'s' * several} {', '.join(dropped)} start{'s' * (not several)} the "
        f"script in {'are' if several else 'is'} not given `{name}` either (`-e {name}`)"
    )


def _optional_reads(script: Script) -> set[str]:
    """The names a launcher tests (`[[ -n "$port" ]]`) or assigns to a name in another case
    (`PORT=$port`): an input it reads when given."""
    found: set[str] = set()
    for command in script.commands:
        for guard in command.guards:
            found.update(read.name for read in guard.reads)
        for assignment in command.assignments:
            if assignment.value is not None:
                found.update(
                    r.name
                    for r in assignment.value.reads()
                    if r.name != assignment.name and r.name.lower() == assignment.name.lower()
                )
    return found


# a read's name as the text writes it (`$isl`, `${isl:-}`): a cheap look before the model's
_READ_TEXT = lazy_compile(rb"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def _every_read(script: Script) -> Iterator[tuple[Read, Read | None]]:
    """Each read of the script's own commands (not a nested script's): in the conditions that
    guard them, their words, assigned values, redirections and unquoted heredocs; each with
    the read in whose operand bash expands it only on a condition (`conditional_outer`)."""
    guards: set[int] = set()
    for command in script.commands:
        for guard in command.guards:
            if id(guard) not in guards:
                guards.add(id(guard))
                for read in guard.reads:
                    yield read, conditional_outer(read, guard.reads)
        words = [*command.words, *(a.value for a in command.assignments if a.value is not None)]
        words += [r.target for r in command.redirects]
        for word in words:
            reads = word.reads()
            for read in reads:
                yield read, conditional_outer(read, reads)
        for heredoc in command.heredocs:  # (`cat > cfg <<EOF`: bash expands its body's reads)
            body = heredoc.body
            if heredoc.quoted or body is None or command.script is not script:
                continue
            src = script.src
            for match in _HEREDOC_READ.finditer(src, body.start_byte, body.end_byte):
                at = match.start()
                while at > body.start_byte and src[at - 1] == 0x5C:  # a backslash
                    at -= 1
                if (match.start() - at) % 2:
                    continue  # (`\$isl` is the text `$isl`)
                name = (match.group(1) or match.group(2)).decode()
                node = Syn("simple_expansion", match.start(), match.end())
                yield Read(name, "", node, script, False), None


# a plain read in a heredoc's body: `$isl`, `${isl}` (not one with an operator)
_HEREDOC_READ = lazy_compile(rb"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


@script_rule(
    "BL104", "unvalidated-env", Severity.WARNING, tags=("shell", "environment"), precision="medium"
)
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    environment = ctx.environment
    layout = ctx.ws.layout
    if ctx.sees_everything:
        environment.calls.index()  # (one pass answers is_sourced for every script)
    path = script.path
    entrypoint = any(path_matches(path, g) for g in layout.entrypoints)
    if not entrypoint and ctx.wiring.is_launcher(path):
        # (its variables come from the workflow the repository wires: only a name in another
        # case form than the one set is said, `$port` where only `PORT` is set)
        if _unassigned_reads(script):  # (a cheap look first)
            everything = environment.states_before(script, [len(script.src) + 1])[0]
            if not everything.unknown:
                yield from _case_slips(ctx, script, everything, launcher=True)
        return
    if environment.calls.is_sourced(path):
        # (a library's functions run in its callers; a launch at its top level runs where it
        # is sourced, in the sourcing script's shell, which is not followed: said)
        top = [launch for launch in launches(script) if launch.command.function is None]
        if entrypoint and top:
            _count_outside(ctx, script, top, SOURCED)
        return
    found = launches(script)
    if not entrypoint:
        _count_outside(ctx, script, found)
        return
    starts = [launch.command.file_offset for launch in found]
    everything, *befores = environment.states_before(
        script, [len(script.src) + 1, *starts], commands=[None, *(x.command for x in found)]
    )
    checked_upstream: frozenset[str] | None = None  # worked out on first need
    reported = False  # one report of unchecked variables per script; a typo on every launch
    if not everything.unknown:
        yield from _case_slips(ctx, script, everything)
    known = ctx.config.known_env
    for launch, before in zip(found, befores, strict=True):
        # what the script set before the launch (a launch in a function: anywhere, as the
        # function may be called after it)
        provided = everything if launch.command.function is not None else before
        if provided.unknown or before.unknown:
            # (an `eval` or a `source` not resolved before it may set any variable: said, h47 S4)
            if any(not is_builtin(r.name, known) for r, _ in _consumed(launch)):
                ctx.count(UNFOLLOWED, Location(path, launch.command.first_line_span))
            continue
        both = _unvalidated(ctx, launch, provided, before)
        unvalidated = {name: read for name, (read, _) in both.items()}
        slots = {name: slot for name, (_, slot) in both.items()}
        if unvalidated and checked_upstream is None:
            checked_upstream = _safe_from_callers(ctx, path)
        for name in checked_upstream or ():
            unvalidated.pop(name, None)
        if not unvalidated:
            continue
        for typo in _typos(unvalidated, ctx, path):
            yield typo
            del unvalidated[typo.subject.removeprefix("typo:")]
        if not unvalidated or reported:
            continue
        reported = True
        names = ", ".join(
            f"${n}" + (f" (held in ${r.name})" if r.name != n else "")
            for n, r in unvalidated.items()
        )
        first = next(iter(unvalidated.values()))
        shown = " ".join(n for n in unvalidated)
        stranded = _stranded(script, unvalidated)
        partial = next(
            ((n, checker(before.unmet[n])) for n in unvalidated if n in before.unmet), None
        )
        partly = ""
        if partial is not None:  # (the check that may not have run, named)
            name, made_by = partial
            where = (
                f"line {made_by.span.line}"
                if made_by.script.top is script
                else f"{made_by.script.top.path}:{made_by.span.line}"
            )
            partly = (
                f" (the check of ${name}, `{first_line(made_by.script.text_of(made_by.node))}` "
                f"on {where}, runs only under a condition or in a loop this launch may run "
                "without)"
            )
        yield Finding(
            "BL104",
            f"`{launch.module}` gets {names} from the caller with no check before it: "
            + _what_empty_does([slots[n] for n in unvalidated])
            + partly
            + (
                f" (`{stranded.name}` on line {stranded.line} is cut off from the "
                f"`{stranded.validator}` on line {stranded.validator_line}: {stranded.why} (BL110))"
                if stranded
                else ""
            ),
            Location(path, first.span),
            help=stranded.help
            if stranded
            else f'add `check_env_vars {shown}` or `: "${{{next(iter(unvalidated))}:?}}"` '
            "before this line",
            subject=f"{launch.module}:{shown}",
            notes=_callers_note(ctx, path),
        )


def _names_machine(path: str, label: str) -> bool:
    """Whether a runner label's machine (its first part: `b200` of `b200-trt`) is a part of the
    script's file name (`70b_b200_trt_slurm.sh`): a job of that label may run it; a script for
    another machine, `gptoss_fp4_mi355x_slurm.sh`, it would not (t75a)."""
    machine = re.split(r"[-_:]", label.split(":")[-1], maxsplit=1)[0].lower()
    parts = re.split(r"[-_.]", posixpath.basename(path).lower())
    return bool(machine) and machine in parts


def _callers_note(ctx: Context, path: str) -> tuple[str, ...]:
    """What the report says of the ways into the script where none gives known values: nothing
    benchlint follows starts it (no entry's route, no workflow step, no script by a path it can
    tell), or, in a repository with entries, only scripts no entry's route reaches start it (a
    script that starts it no entry reaches, or a launcher no entry reaches, whose workflow
    step's environment stands for values no job gives it), naming the runner labels that lead
    to no launcher benchlint knows and name the script's machine, whose jobs may start it
    (t74a)."""
    starts = ctx.environment.routes(path)
    if starts and not all(s.idle for s in starts):
        return ()
    if not starts and not ctx.environment.caller_starts(path):
        why = ctx.twin_not_run(path) or "it may be run by a path held in a variable"
        return (
            f"no script benchlint follows runs this script ({why}): what its caller passes "
            "is not known",
        )
    if ctx.wiring.entries:
        _ = ctx.wiring.pairs  # (the labels that lead to no launcher are known once made)
        unwired = [label for label in sorted(ctx.wiring.unreached) if _names_machine(path, label)]
        shown = ", ".join(unwired[:3]) + (f" and {len(unwired) - 3} more" if unwired[3:] else "")
        return (
            "no entry's route reaches this script, only scripts that start it: what they are "
            "given is not known"
            + (
                f"; the runner label{'s' if len(unwired) > 1 else ''} {shown} of some entries "
                f"lead{'' if len(unwired) > 1 else 's'} to no launcher benchlint knows, and "
                "their jobs may start it"
                if unwired
                else ""
            ),
        )
    return ()


class _Stranded(NamedTuple):
    name: str  # the name cut off, and its line
    line: int
    validator: str  # the validator, and its first line
    validator_line: int
    why: str  # what ends the validator's command, and how to mend it
    help: str


def _stranded(script: Script, names: dict[str, Read]) -> _Stranded | None:
    """A name the author meant to check, on the lines after a validator's whose last line lacks
    its `\\` (`check_env_vars A B` then `    EP_SIZE \\`: bash runs `EP_SIZE ...` as a command
    of its own), has blanks after it (`MODEL \\ `: an escaped blank), or runs on into a comment
    line (`# TP \\`, which ends the command: h133 W3)."""
    commands = [c for c in script.commands if c.function is None]
    lines = script.file.text.split("\n") if script.parent is None else []
    for before, command in itertools.pairwise(commands):
        gap = lines[before.span.end_line : command.span.line - 1]  # (the lines between)
        if (
            before.base in VALIDATORS
            and before.span.end_line < command.span.line
            and len(gap) == command.span.line - before.span.end_line - 1
            and all(not t.strip() or t.lstrip().startswith("#") for t in gap)
            and all(_NAME.fullmatch(w.value) for w in command.words)
            # (not a second validator's line, nor a line of another `case` item: h48 W1)
            and command.base not in VALIDATORS
            and command.base not in script.functions
            and [(g.node, g.expect, g.patterns) for g in before.guards]
            == [(g.node, g.expect, g.patterns) for g in command.guards]
        ):
            # (any name of it: `CONC \\` first, `MAX_MODEL_LEN` on a later continued line)
            stranded = next((w for w in command.words if w.value in names), None)
            if stranded is None:
                continue
            last = before.span.end_line
            text = lines[last - 1].rstrip("\r") if last <= len(lines) else ""
            comment = next(
                (last + 1 + i for i, t in enumerate(gap) if t.lstrip().startswith("#")), None
            )
            if text.endswith("\\") and comment is not None:
                why = f"the comment on line {comment} ends the command"
                advice = f"move the comment on line {comment} out of the list"
            elif text.rstrip(" \t").endswith("\\") and not text.endswith("\\"):
                why = f"line {last} has blanks after its `\\`"
                advice = f"remove the blanks after the `\\` of line {last}"
            else:
                why = f"line {last} does not end in `\\`"
                advice = f"end line {last} with `\\`"
            return _Stranded(
                stranded.value, stranded.span.line, before.base, before.span.line, why, advice
            )
    return None


_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
