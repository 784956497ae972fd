"""`run_benchmark_serving ... EP_SIZE ...`: an argument the repository's own shell function rejects.

## What it does
Reads the option loop of a shell function the script defines or sources (a `while` loop while
arguments are left, a `case` on `$1` in it: `--model) model="$2"; shift 2 ;;`, ..., `*) echo
"Unknown parameter: $1"; return 1 ;;`; `benchlint.shell.optloop`): the words each branch takes,
and the branch that fails with a literal non-zero `return` or `exit`. Reports the first argument
of a call that reaches that failing branch: one no other branch takes (a word left over from an
edit, an option the function never had or no longer has, a value given to an option that takes
none). Each word before it must be known: its text where a branch is chosen, or one word where
a branch takes it as a value.

## Why is this bad?
The function returns (or exits) at its first unknown word, before it does anything its options
were for: `run_benchmark_serving` prints `Unknown parameter: EP_SIZE` and no benchmark runs.
Without `set -e` the script goes on as if it had, and the job ends with no result; with it, the
script ends there. Nothing reports it before the job runs.

## Example
```bash path=benchmarks/lib.sh
run_benchmark() {
    while [[ $# -gt 0 ]]; do
        case $1 in
            --model) model="$2"; shift 2 ;;
            --result-dir) result_dir="$2"; shift 2 ;;
            *) echo "Unknown parameter: $1"; return 1 ;;
        esac
    done
    python3 bench.py --model "$model" --out "$result_dir"
}
```
```bash path=benchmarks/run.sh
#!/bin/bash
source "$(dirname "$0")/lib.sh"
run_benchmark \
    --model "$MODEL" \
    EP_SIZE \
    --result-dir /workspace/
```

## Use instead
```bash path=benchmarks/run.sh
#!/bin/bash
source "$(dirname "$0")/lib.sh"
run_benchmark \
    --model "$MODEL" \
    --result-dir /workspace/
```

## Exceptions
Not reported: a call whose reading stops before the word (a word that may be several or none:
an unquoted expansion, `"$@"`, a glob; a word whose text is not known where a branch is chosen;
a branch that does more than assign, print and shift, or ends the loop), and a function whose
loop has another shape (a condition other than arguments being left, a `case` on another word, a
pattern with an expansion or an extended glob, a fall-through `;&`). A function that calls
another before its failing `return` (`usage; return 1`) fails all the same. A script's own
option loop (`bash run.sh --x`) is not read.
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity, clip
from benchlint.registry import script_rule
from benchlint.shell.model import Command, Script


@script_rule(
    "BL120",
    "unknown-function-option",
    Severity.ERROR,
    tags=("shell", "correctness"),
    precision="high",
)
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    # (imported here: a run the cache answers runs no rule, and makes none of its classes)
    from benchlint.shell.optloop import option_loop, read_call

    defined = ctx.environment.functions_at_end(script)
    if not defined:
        return
    calls = [c for c in script.commands if _calls(c, defined)]
    if not calls:
        return
    states = ctx.environment.states_before(script, [c.node.start_byte for c in calls])
    for command, state in zip(calls, states, strict=True):
        owner = state.functions.get(command.base or "")
        if owner is None:
            continue
        loop = option_loop(owner, command.base or "")
        if loop is None:
            continue
        reading = read_call(loop, command.words[1:])
        if reading.unknown is not None and any(b.failing for b in loop.branches):
            ctx.count(_UNREAD, Location(script.path, reading.unknown.span))
        word, branch = reading.rejected, reading.branch
        if word is None or branch is None or branch.failing is None:
            continue
        failing = branch.failing
        ends = owner.text_of(failing)
        where = Location(owner.path, owner.span(failing), f"`{ends}`: the call fails here")
        defined_at = Location(
            owner.path, owner.span(owner.functions[command.base or ""]), "the function"
        )
        yield Finding(
            "BL120",
            f"`{clip(word.value, 40)}` is an argument `{command.base}` "
            f"({owner.path}:{defined_at.span.line}) rejects: no branch of its option loop "
            f"takes it but the one that runs `{ends}` (line {where.span.line}), so the call "
            "fails before it does what its options are for",
            Location(script.path, word.span),
            related=(where, defined_at),
            help="drop the word, or give the option it was meant to be",
            subject=f"{command.base} {word.value}",
        )


_UNREAD = (
    "calls of a shell function that rejects unknown arguments, not read past a word that may "
    "be several or none, or whose text is not known (BL120)"
)


def _calls(command: Command, defined: dict[str, Script]) -> bool:
    """Whether the command calls, by its plain name, a function the script can call."""
    base = command.base
    if base is None or base not in defined or len(command.words) < 2:
        return False
    first = command.words[0]
    return first.static and first.value == base
