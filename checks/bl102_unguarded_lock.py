"""A `flock` that can give up, in a shell that carries on without the lock.

## What it does
Reports `flock -w SECONDS` and `flock -n` acquisitions whose failure nothing handles: the call is
not an `if`/`while`/`until` condition, not followed by `||` or `&&`, its status is not read from
`$?` on the next line, and errexit (`set -e`) is not in effect *in that shell*. The string given to
`bash -c` / `sh -c` (also behind `srun`, `ssh HOST`, `docker exec`, `enroot exec`, `timeout`,
`env`) and a heredoc fed to a shell are new shells: they do not inherit the outer `set -e`, and
the finding points at the `flock` inside the string.

## Why is this bad?
When the wait times out, `flock` returns 1 and the script runs its critical section anyway, next
to the job that holds the lock. In one launcher the section deleted and re-imported a shared
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
A blocking `flock FD` (no `-w`, no `-n`) waits until it holds the lock and is not reported.
`flock -u` releases a lock and is not an acquisition. errexit is read in the order of the text:
`set -e` inside a function that runs later is not modelled.
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.engine import Context
from benchlint.finding import Finding, Location, Severity, Span
from benchlint.registry import rule
from benchlint.shell.model import WRAPPERS, Command, Word

_GIVES_UP = ("-w", "--wait", "--timeout", "-n", "--nb", "--nonblock", "--nonblocking")
_UNLOCK = ("-u", "--unlock")


def _flock_words(command: Command) -> list[Word] | None:
    """The words from `flock` on, directly or behind a wrapper (`timeout 60 flock ...`)."""
    words = command.words
    for i, word in enumerate(words):
        if not word.static:
            return None
        base = word.value.rsplit("/", 1)[-1]
        if base == "flock":
            return words[i:]
        if i == 0 and base not in WRAPPERS:
            return None
    return None


def _gives_up(args: list[str]) -> str | None:
    """How the acquisition can fail: "after N s" or "at once", or None if it blocks."""
    for i, arg in enumerate(args):
        if arg in _UNLOCK:
            return None
        if arg in ("-w", "--wait", "--timeout"):
            return f"after {args[i + 1]} s" if i + 1 < len(args) else "on timeout"
        if arg.startswith(("--wait=", "--timeout=")):
            return f"after {arg.split('=', 1)[1]} s"
        if arg in ("-n", "--nb", "--nonblock", "--nonblocking"):
            return "at once when the lock is held"
        if arg.startswith("-w") and len(arg) > 2 and not arg.startswith("--"):
            return f"after {arg[2:]} s"
        if arg.startswith("-") and not arg.startswith("--") and "n" in arg[1:]:
            return "at once when the lock is held"
    return None


def _from_word(command: Command, word: Word) -> Span:
    """From the `flock` word (behind any wrapper) to the end of the command's first line."""
    start, end = word.span, command.first_line_span
    return Span(start.line, start.column, end.end_line, max(end.end_column, start.end_column))


def _shell_name(command: Command) -> str:
    parent = command.script.parent
    if parent is None:
        return "this script"
    return f"the shell started by `{parent.name or 'a command'}` on line {parent.span.line}"


@rule("BL102", "unguarded-lock", Severity.ERROR, tags=("shell", "concurrency"))
def check(ctx: Context) -> Iterator[Finding]:
    for script in ctx.shell_scripts():
        for command in script.all_commands():
            words = _flock_words(command)
            if words is None:
                continue
            when = _gives_up([w.value for w in words[1:]])
            if when is None:
                continue
            if command.tested or command.or_guarded or command.errexit:
                continue
            if command.next_statement_reads_status():
                continue
            shell = _shell_name(command)
            nested = command.script.parent is not None
            why = (
                "that shell does not inherit the outer `set -e`"
                if nested
                else "errexit is off here"
            )
            text = " ".join(w.value for w in words)
            yield Finding(
                "BL102",
                f"`{text}` can fail {when}, and {shell} goes on without the lock ({why}); "
                "add `|| { echo 'lock failed' >&2; exit 1; }` or `set -e` in that shell",
                Location(script.path, _from_word(command, words[0])),
                subject=text,
            )
