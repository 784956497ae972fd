"""An EXIT trap set inside a function whose handler reads that function's `local` variables.

## What it does
Reports `trap HANDLER EXIT` registered inside a function when the handler, run later, reads a
variable declared `local` in that function (or `declare`/`typeset` there without `-g`: a local
too): a handler function's body, or a single-quoted handler string
(`trap 'scancel "$job_id"' EXIT`, `trap -- '...' EXIT`) or an escaped expansion in a
double-quoted one (`trap "scancel \\$job_id" EXIT`), all expanded when the trap fires, and
the functions of the script they call (three calls deep); also a trap a helper sets that a
function with the local calls (bash's locals are dynamic: the handler reads the caller's).

## Why is this bad?
Bash runs an EXIT trap when the script ends, after the function has returned and its locals are
gone; also when `set -e` stops the script inside the function (checked with bash 5.2). The
cleanup then runs with empty values: `scancel ""` cancels nothing and the Slurm allocation is held
until something else cancels it (under `set -u`, bash stops the handler at the first such read
with "unbound variable": nothing after it runs either). A real multi-node launcher shipped
exactly this.

## Example
```bash path=runners/launch_example.sh
run_job() {
    local job_id
    job_id=$(salloc --no-shell -N 2 2>&1 | tail -1)
    cleanup() { scancel "$job_id"; }
    trap cleanup EXIT
    srun --jobid="$job_id" ./bench.sh
}
run_job
```

## Use instead
```bash path=runners/launch_example.sh
run_job() {
    job_id=$(salloc --no-shell -N 2 2>&1 | tail -1)
    cleanup() { scancel "$job_id"; }
    trap cleanup EXIT
    srun --jobid="$job_id" ./bench.sh
}
run_job
```
Or expand the value when the trap is set: `trap "scancel $job_id" EXIT`.

## Exceptions
Not reported: a variable that is also assigned outside the function or declared `declare -g`, a
handler function's own `local`, a trap the function resets or replaces before it returns
(`trap - EXIT`, or the script's own `trap cleanup EXIT` put back; not under a condition the first
trap is not under), a function that ends the script itself (its last statement is an `exit`, a
call of a function of the script that always exits, or an `if` with an `else` whose every branch
ends so: the trap runs while its locals exist; or `exec`: it never runs), a `RETURN` trap (it
runs while the locals exist), a trap set inside a subshell of the function (`( trap ... EXIT;
... )` fires when the subshell ends), and a double-quoted handler string, which is expanded when
`trap` runs (but for its escaped `\\$job_id`, which the handler reads when it runs: reported).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from benchlint.context import Context
from benchlint.environment import always_exits
from benchlint.finding import Finding, Location, Severity
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.shell.flow import may_set_nounset
from benchlint.shell.model import Assignment, Command, Guard, Script, parse_file
from benchlint.source import SourceText

_EXIT = frozenset({"EXIT", "0", "SIGEXIT"})


def _handler_reads(script: Script, trap: Command) -> tuple[str, set[str]] | None:
    """(how the handler is named, the variables it reads when it runs); None when it is
    expanded at `trap` time (a double-quoted string) or not known."""
    action = trap.trap_args[0]
    name = action.value.strip()
    if name.isidentifier() and name in script.functions:
        return f"`{name}`", _function_reads(script, name, set())
    if action.node.type == "raw_string":
        text = action.value
    elif action.node.type == "string":  # "..." is expanded now: only its `\$x` later
        later = _later_text(action.text)
        if later is None:
            return None
        text = later
    else:  # (an unquoted word: expanded now too)
        return None
    handler = parse_file(SourceText(script.path, text.encode()))
    commands = handler.all_commands()
    reads = {r.name for c in commands for w in c.words for r in w.reads()}
    for called in {c.base for c in commands if c.base in script.functions}:
        reads |= _function_reads(script, called, set())
    return f"`{action.text}`", reads


def _later_text(written: str) -> str | None:
    """The text `trap` keeps of a double-quoted handler (`"scancel \\$job_id; rm $tmp"`), which
    bash reads again when the trap runs: what the quotes leave of each escape (`\\$` is `$`,
    read then: h134 M8), each plain expansion made now (`$tmp`, `${tmp}`: a word with no `$`
    left); None for a substitution or another expansion made now (what it gives is not known)."""
    body = written[1:-1] if len(written) >= 2 and written[0] == written[-1] == '"' else None
    if body is None:
        return None
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            following = body[i + 1]
            out.append(following if following in '$`"\\' else char + following)
            i += 2
            continue
        if char == "`":
            return None
        if char == "$":
            match = _PLAIN_EXPANSION.match(body, i)
            if match is None:
                return None
            out.append("_")
            i = match.end()
            continue
        out.append(char)
        i += 1
    return "".join(out)


_PLAIN_EXPANSION = lazy_compile(
    r"\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9$?#!@*-]|\{(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[$?#!@*-])\})"
)  # (a name, `$$`, `$?`, `$1`, `${10}`: made when `trap` runs; h140 M4)


def _function_reads(script: Script, name: str, seen: set[str]) -> set[str]:
    """The variables a function of the script reads when it runs, and (three calls deep) those
    the functions it calls read (`cleanup() { really_cancel; }`: h123 M8); not its own locals
    (`local rc=$?`), nor a called function's."""
    seen.add(name)
    body = [c for c in script.all_commands() if c.function == name]
    own = {a.name for c in body for a in c.assignments if a.kind == "local"}
    reads = {r.name for c in body for w in c.words for r in w.reads()}
    if len(seen) < 4:
        for called in {c.base for c in body if c.base in script.functions} - seen:
            reads |= _function_reads(script, called, seen)
    return reads - own


def _never_after_return(script: Script, trap: Command) -> bool:
    """The function resets or replaces the trap after setting it (`trap - EXIT`, `trap '' EXIT`,
    `trap cleanup EXIT`: a handler that reads a local is reported of its own), where it surely
    runs once the trap was set (under no condition the trap is not under), or ends the script
    itself (its last statement ends it on every path, `_ends`: the trap runs while its locals
    live; `exec`: the trap never runs)."""
    body = [
        c
        for c in script.commands
        if c.function == trap.function and not c.subshell and c.node.start_byte > trap.node.end_byte
    ]
    around = {id(g) for g in trap.guards}
    for command in body:
        args = [w.value for w in command.args]
        if command.base != "trap" or len(args) < 2 or args[0] in ("-p", "-l"):
            continue  # (`trap -p EXIT` prints the handler)
        on_exit = any(a.upper() in _EXIT for a in args[1:])
        if on_exit and all(id(g) in around for g in command.guards):
            return True
    region = [c for c in body if not c.apart_from_script]
    if any(c.base == "return" for c in region):
        return False  # (`[ -z "$X" ] && return 1`: the function may return, trap still set)
    after = trap.node.start_byte
    # (the statement after the trap under the trap's own conditions, `if c; then trap ...;
    # ...; exit 0; fi`, or the function's last one: h140 F1)
    depth = len(trap.guards)
    inside = [c for c in region if _keys(c.guards[:depth]) == _keys(trap.guards)]
    return _ends(script, inside, depth, after) or _ends(script, region, 0, after)


def _keys(guards: Sequence[Guard]) -> list[tuple[object, bool, object]]:
    return [(g.node, g.expect, g.patterns) for g in guards]


def _ends(script: Script, region: list[Command], depth: int, after: int) -> bool:
    """Whether the last statement of a region (the commands under the same first `depth`
    guards) ends the script on every path: an `exit` or `exec`, a call of a function of the
    script that always exits (`finish $?`), or an `if` with an `else` whose every branch ends
    so (h134 F1, F2); not one in a loop that starts after the trap (`after`: it may run no
    pass)."""
    last = max(region, key=lambda c: c.node.start_byte, default=None)
    if last is None or any(loop.start_byte > after for loop in last.loops):
        return False
    if len(last.guards) == depth:
        return last.base in ("exit", "exec") or (
            last.base in script.functions and always_exits(script, last.base)
        )
    guard = last.guards[depth]
    if guard.patterns:
        return False  # (a `case`: an item not written may match)
    branches = [
        [
            c
            for c in region
            if len(c.guards) > depth
            and c.guards[depth].node == guard.node
            and c.guards[depth].expect is way
        ]
        for way in (True, False)
    ]
    return all(branches) and all(_ends(script, branch, depth + 1, after) for branch in branches)


def _findings(script: Script) -> Iterator[Finding]:
    globals_ = {a.name for a in script.assignments if a.command.function is None}
    globals_ |= {
        a.name
        for a in script.assignments
        if a.kind == "declare" and any("g" in w.value for w in a.command.args if w.value[:1] == "-")
    }
    for trap in script.commands:
        if trap.base != "trap" or trap.function is None or len(trap.trap_args) < 2:
            continue
        if trap.subshell:  # `( trap ... EXIT; ... )` fires when the subshell ends: locals live
            continue
        if not any(w.value.upper() in _EXIT for w in trap.trap_args[1:]):
            continue
        if _never_after_return(script, trap):
            continue
        found = _handler_reads(script, trap)
        if found is None:
            continue
        shown, reads = found
        own = _locals(script, trap.function)
        # (a function that calls the one setting the trap: bash's locals are dynamic, so the
        # handler reads the caller's, gone once the caller returns; h123 M9)
        calling = {c.function for c in script.commands if c.base == trap.function and c.function}
        # (not a caller that sets a trap itself, or `exit`s or `exec`s: as `_never_after_return`
        # reads the function that sets it, taken to handle it)
        calling = {
            name
            for name in calling
            if not any(c.base in ("trap", "exit", "exec") for c in script.body(name))
        }
        callers = [trap.function, *sorted(calling - {trap.function})]
        for holder in callers:
            locals_ = own if holder == trap.function else _locals(script, holder)
            gone = [n for n in locals_ if n in reads and n not in globals_]
            if holder != trap.function:
                gone = [n for n in gone if n not in own]
            if gone:
                break
        else:
            continue
        names = ", ".join(gone)
        where = (
            f"in {trap.function}() runs after {trap.function} has returned"
            if holder == trap.function
            else f"in {trap.function}(), which {holder}() calls, runs after {holder} has returned"
        )
        yield Finding(
            "BL107",
            f"the EXIT trap set {where}, "
            f"and its handler {shown} reads {names}, local to {holder}: it sees "
            f"{'an empty value' if len(gone) == 1 else 'empty values'}"
            + (
                ', or, where `set -u` is on then, stops there with "unbound variable"'
                if may_set_nounset(script.top.file.text)
                else ""
            ),
            Location(script.path, trap.first_line_span),
            help=f"drop `{locals_[gone[0]].command.base or 'local'}` or expand the value now "
            + (
                "(drop the `\\` before its `$` in the double-quoted handler)"
                if trap.trap_args[0].node.type == "string"
                else '(`trap "..." EXIT`)'
            ),
            related=tuple(Location(script.path, locals_[n].span, f"local {n}") for n in gone),
            subject=f"{holder}:{names}",
        )


def _locals(script: Script, function: str) -> dict[str, Assignment]:
    """The variables a function of the script declares `local` (or `declare` there)."""
    return {
        a.name: a
        for a in script.assignments
        if a.kind == "local" and a.command.function == function
    }


@script_rule("BL107", "trap-reads-local", Severity.ERROR, tags=("shell", "resources"))
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    text = script.file.text
    if "trap" in text and any(w in text for w in ("local", "declare", "typeset")):
        yield from _findings(script)
