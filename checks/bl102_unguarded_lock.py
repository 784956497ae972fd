"""A `flock` that can give up, in a shell that carries on without the lock.

## What it does
Reports `flock -w SECONDS` and `flock -n` acquisitions whose failure nothing handles: the call is
not an `if`/`while`/`until` condition, not followed by `&&` and work (a `&& echo locked` with more
statements after it guards only its report: they run either way, under `set -e` too) or by a `||`
that stops or retries (`|| true`, `|| echo ...` and a call of a function of the script that only
reports, `|| log "..."`, report the failure and carry on: they are reported even under `set -e`; so
is `|| false` where `set -e` is off), its status is not read from `$?` on the next line, and errexit
(`set -e`) is not in effect *in that shell*. The string given to `bash -c` / `sh -c` (also behind
`srun`, `ssh HOST`, `docker exec`, `enroot exec`, `timeout`, `env`), a heredoc fed to a shell, and a
heredoc written to a file a shell later runs (`cat > "$INNER" <<'EOF'` ... `srun bash "$INNER"`, or
a file named or headed as a script) are new shells: they do not inherit the outer `set -e`, and the
finding points at the `flock` inside the string.

## Why is this bad?
When the wait times out, `flock` returns 1 and the script runs its critical section anyway, next
to the job that holds the lock. In one launcher the section deleted and re-imported a common
container image while another job was reading it.

## Example
```bash path=runners/launch_example.sh
set -euo pipefail
srun --jobid="$JOB_ID" bash -c "
  exec 9>\"$LOCK_FILE\"
  flock -w 1800 9
  rm -f \"$SQUASH_FILE\"
  enroot import -o \"$SQUASH_FILE\" docker://$IMAGE
"
```

## Use instead
```bash path=runners/launch_example.sh
set -euo pipefail
srun --jobid="$JOB_ID" bash -c "
  exec 9>\"$LOCK_FILE\"
  flock -w 1800 9 || { echo 'could not lock $LOCK_FILE' >&2; exit 1; }
  rm -f \"$SQUASH_FILE\"
  enroot import -o \"$SQUASH_FILE\" docker://$IMAGE
"
```
`set -e` as the first line inside the string is also enough.

## Exceptions
A blocking `flock FD` (no `-w`, no `-n`) waits until it holds the lock and is not reported, nor
is the command form (`flock -w 10 FILE cmd ...`, `flock -n FILE -c "..."`), which runs its
command only with the lock held. A `||` that calls a function or a command benchlint does not
know is taken to handle the failure.
`flock -u` releases a lock and is not an acquisition. An `exit` inside `|| ( ... )` ends only
that subshell: the failure is not handled. A blocking flock behind `timeout N` fails when the
timeout kills it. `flock -n 9 && work || echo busy` runs the work only with the lock: not
reported. errexit is bash's state where the flock runs: for one
in a function, at each of the function's calls (a function defined above `set -e` and called
after it stops at a failing flock; not where a condition tests a call, `if ! import_image` or
`import_image || exit 1`: bash ignores `set -e` in the whole body then), and a flock that is the
function's last command gives the call its status (`if ! acquire_lock; then exit 1; fi` handles
it); a file the script sources
before the flock can turn errexit on or off (`source common.sh` running `set -euo pipefail`);
`bash -euo pipefail FILE` runs FILE with it on. `set -e` inside a function that runs later is
not modelled.

## Fix safety
The fix appends `|| { echo lock failed >&2; exit 1; }` to the acquisition: unsafe (applied
with `--unsafe-fixes`), as the script now stops where it went on without the lock. A best-effort
lock the script may go on without wants another handler.
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.context import Context
from benchlint.finding import Edit, Finding, Fix, Location, Severity, Span
from benchlint.registry import script_rule
from benchlint.shell.model import Command, Script, Word, errexit_change, syn

_UNLOCK = ("-u", "--unlock")
# flock options that take a value as the next word
_VALUED = frozenset({"-w", "--wait", "--timeout", "-E", "--conflict-exit-code", "-c", "--command"})
# Commands that report a failure and carry on: `flock ... || <these>` does not handle it.
_CARRIES_ON = frozenset({"true", ":", "echo", "printf", "logger", "sleep", "date", "wait"})


def _flock_words(command: Command) -> list[Word] | None:
    """The words from `flock` on, directly or behind a wrapper (`timeout 60 flock ...`,
    `srun --jobid="$JOB_ID" flock ...`). None for a command whose arguments are a shell's
    script (`ssh host flock ...`): the nested script reports it, once."""
    invocation = command.invocation
    if invocation.base != "flock" or any(w.name == "ssh" for w in invocation.wrappers):
        return None
    return list(invocation.words)


def _gives_up(args: list[str]) -> tuple[str | None, str | None]:
    """How the acquisition can fail: "after N s" or "at once", or None if it blocks, releases,
    or runs a command only once it holds the lock (`flock -w 5 FILE cmd`, `flock FILE -c ...`);
    and the status `-E CODE` (`--conflict-exit-code`) gives it then, if set."""
    when = conflict = None
    nonblock = False  # (`-n` with `-w`: flock gives up at once, h125 W1)
    operands = 0
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _UNLOCK:
            return None, None
        if arg in ("-c", "--command") or arg.startswith("--command="):
            return None, None
        if arg in ("-w", "--wait", "--timeout"):
            when = f"after {args[i + 1]} s" if i + 1 < len(args) else "on timeout"
        elif arg in ("-E", "--conflict-exit-code"):
            conflict = args[i + 1] if i + 1 < len(args) else None
        elif arg.startswith("--conflict-exit-code="):
            conflict = arg.split("=", 1)[1]
        elif arg.startswith(("--wait=", "--timeout=")):
            when = f"after {arg.split('=', 1)[1]} s"
        elif arg in ("-n", "--nb", "--nonblock", "--nonblocking"):
            nonblock = True
        elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 2:
            # letters in one word (`-xw 30`, `-nw30`, `-xn`): a letter that takes a value
            # takes the rest of the word, or the next word where it ends it (h123 M2)
            for j, letter in enumerate(arg[1:], start=1):
                if letter == "u":
                    return None, None
                if letter == "n":
                    nonblock = True
                elif letter in "wEc":
                    value = arg[j + 1 :] or (args[i + 1] if i + 1 < len(args) else "")
                    if letter == "c":
                        return None, None
                    if letter == "w":
                        when = f"after {value} s" if value else "on timeout"
                    if letter == "E":
                        conflict = value
                    if not arg[j + 1 :]:
                        i += 1  # (its value is the next word)
                    break
        elif not arg.startswith("-") or arg == "-":
            operands += 1
            if operands > 1:
                return None, None  # `flock FILE cmd ...`: the command runs only with the lock
        i += 2 if arg in _VALUED else 1
    return ("at once when the lock is held" if nonblock else when), conflict


def _guards_a_report(command: Command) -> str | None:
    """`flock -w 600 9 && echo "got the lock"`, then more statements: the `&&` runs only its
    report with the lock, and what follows runs either way (errexit does not stop at a failure
    left of `&&`: bash 5.2; h123 M3). The report's text, else None (work after the `&&`, an
    `if`'s body, nothing after the list)."""
    success = command.on_success()
    if not success or not all(c.base in _CARRIES_ON for c in success):
        return None
    statement = command.script.syntax(command.statement())
    if statement.type != "list":
        return None
    after = statement.next_named_sibling
    while after is not None and after.type == "comment":
        after = after.next_named_sibling
    if after is None:
        return None
    return "; ".join(command.script.text_of(c.node) for c in success)


def _carries_on(command: Command, errexit: bool = True) -> list[Command] | None:
    """What runs when `flock` fails, if all of it reports and carries on (`|| true`,
    `|| echo "no lock"`, a call of a function of the script that only reports, `|| log "..."`;
    `|| false` where errexit is off: h134 M3); None when it stops, retries, or is not known."""
    handlers = command.on_failure()
    if handlers and all(
        c.base in _CARRIES_ON
        or _exits_subshell(command, c)
        or (c.base == "false" and not errexit)
        or _reports_only(command.script, c.base)
        for c in handlers
    ):
        return handlers
    return None


def _reports_only(script: Script, name: str | None) -> bool:
    """A function of the script whose body only reports (`log() { echo "$*" >&2; }`)."""
    if not name or name not in script.functions:
        return False
    body = [c for c in script.all_commands() if c.function == name]
    return bool(body) and all(c.base in _CARRIES_ON for c in body)


def _exits_subshell(command: Command, handler: Command) -> bool:
    """`flock -n 9 || ( echo busy; exit 1 )`: the `exit` ends the subshell, not the script."""
    shell = handler.subshell
    return (
        handler.base == "exit"
        and shell is not None
        and not shell.start_byte <= command.node.start_byte < shell.end_byte
    )


def _calls_handle(command: Command) -> bool:
    """For a `flock` in a function: every call of the function stops on its failure. errexit
    is bash's state when the function runs, not where it is written (a function defined above
    `set -e` and called after it stops at the failing flock), unless the call is tested; a
    flock that is the function's last command gives it its status (`if ! acquire_lock; then
    exit 1; fi`, `acquire_lock || exit 1`)."""
    if command.or_guarded and _carries_on(command) is not None:
        return False  # `flock -n 9 || true`: errexit never sees the failure, wherever it runs
    script, name = command.script, command.function
    # (a command of a subshell after it too: `( flock -w 600 9; import ... ) 9>"$LOCK"` ends
    # with the import's status, not the flock's)
    body = [c for c in script.commands if c.function == name]
    # (its statement ends after what runs when it fails: `flock -n 9 || return 1`)
    end = max([command.node.end_byte, *(c.node.end_byte for c in command.on_failure())])
    last = all(c.node.start_byte < end for c in body)
    calls = [c for c in script.commands if c.base == name and c.function != name]
    if not calls:
        return False
    for call in calls:
        if call.errexit and not call.tested and not call.or_guarded:
            continue
        if last and (call.tested or call.or_guarded) and _carries_on(call) is None:
            read = call.or_guarded or call.on_failure() or call.on_success()
            if not read:
                return False  # a status nobody reads
            continue
        return False
    return True


def _errexit_with_sources(ctx: Context, command: Command) -> bool:
    """errexit at the flock, with the files the script sources before it (`source common.sh`
    whose top level runs `set -euo pipefail`, or `set +e`) and its own `set` lines since."""
    script = command.script
    called = {c.base for c in script.commands if c.function is None}
    if command.function is not None and any(
        c.base == command.function and c.tested and (c.function is None or c.function in called)
        for c in script.commands
    ):
        # (`if ! import_image; then ...`, `import_image || exit 1`: bash ignores `set -e` in
        # the whole body of a function a condition tests: h134 M1; a call the script makes, at
        # its top level or in a function it calls there: h140 F6)
        return False
    if script.parent is not None or command.function is not None:
        return command.errexit
    at = command.node.start_byte
    on = script.errexit_at_start
    sourced = False
    calls = {id(c.command): c for c in ctx.environment.calls.calls_in(script)}
    for earlier in script.commands:
        if earlier.node.start_byte >= at:
            break
        if earlier.function is not None or earlier.subshell or earlier.guards:
            continue
        if earlier.base == "set":
            change = errexit_change([w.value for w in earlier.args])
            on = on if change is None else change
            continue
        call = calls.get(id(earlier))
        if call is None or call.kind != "source":
            continue
        for target in call.targets:
            library = ctx.ws.shell(target)
            for line in library.commands if library is not None else ():
                if line.base == "set" and line.function is None and not line.guards:
                    change = errexit_change([w.value for w in line.args])
                    sourced = sourced or change is not None
                    on = on if change is None else change
    return on if sourced else command.errexit


def _from_word(command: Command, word: Word) -> Span:
    """From the `flock` word (behind any wrapper) to the end of the command's first line."""
    start, end = word.span, command.first_line_span
    return Span(start.line, start.column, end.end_line, max(end.end_column, start.end_column))


def _shell_name(command: Command) -> str:
    parent = command.script.parent
    if parent is None:
        return "this script"
    if parent.name in ("cat", "tee"):  # a heredoc written to a script file that a shell runs
        return f"the script `{parent.name}` writes on line {parent.span.line}"
    return f"the shell started by `{parent.name or 'a command'}` on line {parent.span.line}"


@script_rule("BL102", "unguarded-lock", Severity.ERROR, tags=("shell", "concurrency"))
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    for command in script.all_commands():
        words = _flock_words(command)
        if words is None:
            continue
        when, conflict = _gives_up([w.value for w in words[1:]])
        timeout = command.invocation.wrapper("timeout")
        if when is None and timeout is not None and timeout.operands:
            # `timeout 60 flock 9`: a blocking flock killed after the duration fails (an
            # acquisition: with a wait added it could give up; not `-u`, not `flock FILE cmd`)
            blocking = _gives_up([*(w.value for w in words[1:]), "-w", "0"])[0] is not None
            if blocking:
                when = f"when `timeout {timeout.operands[0].value}` kills it"
        if when is None:
            continue
        silent = conflict == "0"
        reported = _guards_a_report(command) if command.tested else None
        if command.tested and command.on_success() and reported is None and not silent:
            continue  # `flock -n 9 && work || echo busy`: the work runs only with the lock
        if command.function is not None and _calls_handle(command):
            continue
        shell = _shell_name(command)
        carries_on = (
            _carries_on(command, _errexit_with_sources(ctx, command))
            if command.or_guarded
            else None
        )
        shown = ""
        if silent:  # (h123 M4)
            carries_on = None
            why = "`-E 0` makes it exit 0 when it gives up: nothing that reads its status can tell"
        elif carries_on is not None:
            shown = "; ".join(c.script.text_of(c.node) for c in carries_on)
            why = f"`|| {shown}` reports the failure and carries on"
            if any(_exits_subshell(command, c) for c in carries_on):
                why = "the `exit` in `|| ( ... )` ends only that subshell"
                shown = "( ... )"
        elif reported is not None:
            why = f"`&& {reported}` is all that runs only with it; what follows runs either way"
        elif (
            command.tested
            or command.or_guarded
            or _errexit_with_sources(ctx, command)
            or command.next_statement_reads_status()
        ):
            continue
        elif command.script.parent is not None:
            why = "that shell does not inherit the outer `set -e`"
        elif command.errexit and command.function is not None:
            why = (
                f"a condition tests a call of `{command.function}`, and bash ignores `set -e` "
                "in its whole body then"
            )
        else:
            why = "errexit is off here"
        text = " ".join(w.value for w in words)
        yield Finding(
            "BL102",
            f"`{text}` can fail {when}, and {shell} goes on without the lock ({why})",
            Location(script.path, _from_word(command, words[0])),
            help=(
                "drop `-E 0` and stop when it fails: " + f"`{_HANDLER.strip()}`"
                if silent
                else f"replace `|| {shown}` with `{_HANDLER.strip()}`"
                if carries_on is not None
                else f"write `{text}{_HANDLER}` (the report after it)"
                if reported is not None
                else f"add `{_HANDLER.strip()}`"
                if command.errexit and command.function is not None
                else f"add `{_HANDLER.strip()}` or `set -e` in that shell"
            ),
            subject=text,
            fix=None if carries_on is not None or reported or silent else _stop_on_failure(command),
        )


# Unquoted words only: the same text is right in a script, inside `bash -c '...'` and inside
# `bash -c "..."` (where a quote of either kind could end the string).
_HANDLER = " || { echo lock failed >&2; exit 1; }"


def _stop_on_failure(command: Command) -> Fix | None:
    """Append the handler to the statement, in the shell that runs it (inside the `bash -c`
    string for a nested flock). Only for a statement that is the command alone (or with its
    redirections, no heredoc): behind `a && flock ...` or in a pipeline `||` would change what
    the rest means."""
    statement = command.statement()
    if statement.type == "redirected_statement":
        node = command.script.syntax(statement)
        body = node.named_children[:1]
        if (
            not body
            or syn(body[0]) != command.node
            or any(c.type in ("heredoc_redirect", "herestring_redirect") for c in node.children)
        ):
            return None
    elif statement != command.node:
        return None
    end = command.script.span(statement)
    where = Span(end.end_line, end.end_column, end.end_line, end.end_column)
    return Fix(
        "stop when the lock is not acquired",
        (Edit(command.script.file.path, where, _HANDLER),),
        "unsafe",
    )
