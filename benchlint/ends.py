"""What may end a launcher before a command: its `exit`s of a nonzero number (and calls of its
functions that always exit so, `die "..."`), the calls of its functions that may end it
otherwise, and the files it sources that may end it or change what decides its conditions.
BL202 reports the failing end that surely runs on an entry's routes; a claim that a later
command surely runs (`releases.empty_recipe_file`) needs every end before it decided."""

from __future__ import annotations

import re

from benchlint.context import Context
from benchlint.launcher import LauncherModel
from benchlint.lazyre import lazy_compile
from benchlint.shell.model import Command, Script, nonzero_status


def failing(command: Command) -> bool:
    """`exit N` with N a nonzero number (a bare `exit` gives the last command's status), or a
    call of a function of the script that always exits so (`die "..."`)."""
    if command.base != "exit":
        base = command.base
        return base is not None and base in command.script.functions and dies(command.script, base)
    return nonzero_status(command)


def dies(script: Script, function: str) -> bool:
    """Whether the function always exits with a nonzero number (worked out once per function,
    kept on the script: `failing` asks it for every route)."""
    key = f"dies:{function}"
    if key not in script.memo:
        body = [c for c in script.body(function) if not c.subshell and not c.background]
        exits = [c for c in body if c.base == "exit"]
        script.memo[key] = (
            bool(exits)
            and not any(c.base in ("return", "exec") or c.base in script.functions for c in body)
            and all(failing(c) for c in exits)
            and any(not c.guards for c in exits)
        )
    return script.memo[key] is True


# an `exit` in a handler that keeps the status the shell was ending with: none, `$?`, or a
# variable the handler sets from `$?` first (`rc=$?; ...; exit $rc`)
_EXIT_ARGUMENT = lazy_compile(r"\bexit\b[ \t]*([^\s;&|)]*)")


def masks(action: str) -> bool:
    """Whether an EXIT trap's handler may end the shell with another status than the one it
    was ending with."""
    for match in _EXIT_ARGUMENT.finditer(action):
        argument = match.group(1).strip("\"'")
        if argument in ("", "$?", "${?}"):
            continue
        name = re.fullmatch(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", argument)
        if name and re.search(rf"\b{name.group(1)}=\"?\$\?", action):
            continue
        return True
    return False


def ending_calls(ctx: Context, script: Script) -> list[Command]:
    """The launcher's own top-level calls of a function of it that end it for sure with a
    nonzero number (`die "..."`: see `dies`), or may end it otherwise than failing: an `exit`
    of another status (`finish() { ...; exit 0; }`), an `exec`, a `source`, a call of a
    function. (One whose every exit is a nonzero number and may return, `import_squash ... ||
    exit 1`, leaves a later failing exit failing the job either way.)"""

    sourced = {id(c) for c in sourcing(ctx, script, anywhere=True)}

    def may_end(name: str) -> bool:  # (a file it sources may end the launcher too)
        return any(
            c.base == "exec"
            or id(c) in sourced
            or c.base in script.functions
            or (c.base == "exit" and not failing(c))
            for c in script.body(name)
            if not c.subshell and not c.background
        )

    ending = {name for name in script.functions if dies(script, name) or may_end(name)}
    if not ending:
        return []
    return [
        c
        for c in script.commands
        if c.base in ending
        and c.function is None
        and not (c.subshell or c.background or c.tested or c.loops)
    ]


def sourcing(ctx: Context, script: Script, anywhere: bool = False) -> list[Command]:
    """The launcher's own `source FILE` lines (at its top level; `anywhere`: in its functions
    too) that may end it or change what decides its conditions: a file not found, or one with
    an `exit` or `exec` at its top level or a function (which may redefine one the launcher
    tests), or that sources such a file (see `inert`)."""
    found = []
    for call in ctx.environment.calls.calls_in(script):
        command = call.command
        if call.kind != "source" or call.caller is not script:
            continue
        if command.function is not None and not anywhere:
            continue
        if command.subshell or command.loops or call.known is not None:
            continue  # (activating a virtual environment, or uv's PATH file, ends nothing)
        targets = [ctx.ws.shell(t) for t in call.targets]
        if not targets or any(t is None or not inert(ctx, t) for t in targets):
            found.append(command)
    return found


def inert(ctx: Context, sourced: Script, depth: int = 0) -> bool:
    """A sourced file that neither ends the shell nor defines functions at its top level (a
    file of assignments, comments and echoes: the routes take what it assigns as unknown), nor
    sources a file that may (three deep)."""
    if sourced.functions or any(
        c.function is None and c.base in ("exit", "exec") for c in sourced.commands
    ):
        return False
    for call in ctx.environment.calls.calls_in(sourced):
        if call.kind != "source" or call.command.function is not None:
            continue
        targets = [ctx.ws.shell(t) for t in call.targets]
        if depth >= 2 or not targets:
            return False
        if any(t is None or not inert(ctx, t, depth + 1) for t in targets):
            return False
    return True


def launcher_ends(ctx: Context, model: LauncherModel) -> list[Command]:
    """Every command that may end the launcher, in its order: its top-level `exit`s and `exec`s
    of a program, the files it sources that may end it (`sourcing`) and its calls of its
    functions that may (`ending_calls`). Worked out once per launcher."""
    memo = ctx.ws.models.setdefault("launcher-ends", {})
    assert isinstance(memo, dict)
    path = model.script.path
    if path not in memo:
        script = model.script
        found = [*model.ends, *sourcing(ctx, script), *ending_calls(ctx, script)]
        memo[path] = sorted(found, key=lambda c: c.node.start_byte)
    ends: list[Command] = memo[path]
    return ends
