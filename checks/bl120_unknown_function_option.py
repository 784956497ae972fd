"""`run_benchmark_serving ... EP_SIZE ...`: an argument the repository's own shell function rejects.

## What it does
Reads the option loop of a shell function the script defines or sources (a `while` loop while
arguments are left, a `case` on `$1` in it: `--model) model="$2"; shift 2 ;;`, ..., `*) echo
"Unknown parameter: $1"; return 1 ;;`; `benchlint.shell.optloop`), or the one at the top of a
repository script the script runs with arguments (`./tests/run.sh --model m`, `bash tests/run.sh
...`, also in a workflow's `run:` step, from its working directory): the words each branch takes,
and the branch that fails with a literal non-zero `return` or `exit`. Reports the first argument of
a call that reaches that failing branch: one no other branch takes (a word left over from an edit,
an option the function never had or no longer has, a value given to an option that takes none). Each
word before it must be known: its text where a branch is chosen, or one word where a branch takes it
as a value. A quoted `"${ARGS[@]}"` among the arguments is the items of the array the calling
script assigns once before the call (`args=(1 4 true)`), each at its place there.

## Why is this bad?
The function returns (or the script exits) at its first unknown word, before it does anything
its options were for: `run_benchmark_serving` prints `Unknown parameter: EP_SIZE` and no
benchmark runs. Without `set -e` the script goes on as if it had, and the job ends with no
result; with it, the script ends there. Nothing reports it before the job runs.

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
Not reported, and counted on stderr: a call whose reading stops before the word at a word that may
be several or none (an unquoted expansion, `"$@"`, `"${@}"`, a glob, `~`) or whose text is not known
where a branch is chosen; a call of a function defined more than once in the script and the files it
sources (which definition runs is not told; read where the script alone defines it, each time at
its top level, and the call is at the top level too, which runs the last definition before it, or
where every definition has the same text), or in a shell that sources a file benchlint does not
resolve (not one a `$(...)` or `( ... )` the call is not in sources, nor a new shell's command
string, `bash -c "source x.sh; ..."`, nor one sourced after a call that runs once, nor a virtual
environment's activation, which defines `deactivate` only); a call after a `cd` where the function's
file or the script is found by a relative path (not an absolute one, nor one from a folder made
absolute: `"$(dirname "$(readlink -f "$0")")/x.sh"`, `$(cd ... && pwd)`); a call of a function or
script whose `while` loop on `$#` and its `case` this model does not read: a condition other than
arguments being left, a `case` on another word than `$1` or a variable given it first, a pattern
with an expansion, an extended glob or a POSIX class, a fall-through `;&`, or something before the
loop that may set `$@` or leave on a test of the arguments (`set --`, a `source`,
`[[ $1 == --help ]] && exit 0`). Not reported: a call whose reading ends at a branch that ends the
loop, `exec`s a program or does more than assign, print and shift (`--help) usage ;;`); a caller or
function that turns on `nocasematch` or `extglob`; a script run by `sh` or by a name without `/`
(looked for on PATH); a `return` at a script's top level (bash goes on); an `until` loop; a script
sourced with arguments. A branch that calls another command before its failing `return`
(`usage; exit 1`) fails all the same.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from benchlint.calls import Call, anchored
from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity, Span, clip
from benchlint.lazyre import lazy_compile
from benchlint.registry import rule
from benchlint.shell.held import once_before
from benchlint.shell.model import Command, Script, Word, shell_string_words
from benchlint.workflow import (
    WORKFLOWS,
    job_steps,
    runs_in_posix_shell,
    step_folder,
    step_runs,
    step_script,
    workflow_roots,
)

if TYPE_CHECKING:
    from benchlint.shell.optloop import OptionLoop


def _script_pass(ctx: Context, script: Script) -> Iterator[Finding]:
    for call in [*_function_calls(ctx, script), *_script_runs(ctx, script)]:
        yield from _reported(ctx, call, script.path, lambda span: span)


@rule(
    "BL120",
    "unknown-function-option",
    Severity.ERROR,
    tags=("shell", "correctness"),
    script_pass=_script_pass,
)
def check(ctx: Context) -> Iterator[Finding]:
    """The repository scripts the `run:` steps of workflows run with arguments."""
    workflows = ctx.in_scope(ctx.ws.glob([*ctx.ws.layout.workflows, *WORKFLOWS]))
    for source, root in workflow_roots(ctx.ws, workflows):
        for _, job, steps in job_steps(root):
            for step in steps:
                folder = step_folder(root, job, step)
                if folder is None or not runs_in_posix_shell(root, job, step):
                    continue
                for run in step_runs(job, step):
                    found = step_script(source, run) if "/" in run.value else None
                    if found is None:
                        continue
                    for call in _step_runs(ctx, found.script, folder):
                        yield from _reported(ctx, call, source.path, found.place)


def _reported(
    ctx: Context, call: _Call, path: str, place: Callable[[Span], Span]
) -> Iterator[Finding]:
    """The call's finding, where its loop rejects an argument (`place`: where a span of the
    calling script is in the file `path`); counted where its reading stops at a word not known."""
    from benchlint.shell.optloop import read_call

    loop = call.loop
    if call.unread is not None or loop is None:
        if (
            call.unread
            and call.arguments
            and (loop is None or any(b.failing for b in loop.branches))
        ):
            ctx.count(call.unread, Location(path, place(call.arguments[0].span)))
        return
    reading = read_call(loop, call.arguments)
    if reading.unknown is not None and any(b.failing for b in loop.branches):
        ctx.count(_UNREAD, Location(path, place(reading.unknown.span)))
    word, branch = reading.rejected, reading.branch
    if word is None or branch is None or branch.failing is None:
        return
    owner = call.owner
    shown = clip(word.value, 40) or '""'  # (an empty word: `""`)
    ends = owner.text_of(branch.failing)
    where = Location(owner.path, owner.span(branch.failing), f"`{ends}`: {call.fails} here")
    leaves = [owner.span(n).line for n in loop.leaves]
    unless = f" (unless it leaves before its loop, line {leaves[0]})" if leaves else ""
    yield Finding(
        "BL120",
        f"`{shown}` is an argument {call.shown} rejects: no branch of its option "
        f"loop takes it but the one that runs `{ends}` (line {where.span.line}), so "
        f"{call.fails}{unless} before it does what its options are for",
        Location(path, place(word.span)),
        related=(where, *call.related),
        help="drop the word, or give the option it was meant to be",
        subject=f"{call.name} {word.value}",
    )


_UNREAD = (
    "calls of a shell function or script that rejects unknown arguments, not read past a word "
    "that may be several or none, or whose text is not known (BL120)"
)


class _Call:
    """A call of a function or script whose option loop is read: its arguments, where the
    loop is (`owner`), and how a message names it. (A plain class: a warm run, which runs no
    rule, imports this module, and a dataclass is made with `exec` at import.)"""

    __slots__ = ("arguments", "fails", "loop", "name", "owner", "related", "shown", "unread")

    def __init__(
        self,
        arguments: list[Word],
        owner: Script,
        loop: OptionLoop | None,
        name: str,
        shown: str,
        fails: str,
        related: tuple[Location, ...],
        unread: str | None = None,
    ) -> None:
        self.unread = unread  # (why its arguments are not read: counted)
        self.arguments = arguments
        self.owner = owner
        self.loop = loop
        self.name = name
        self.shown = shown
        self.fails = fails
        self.related = related


def _function_calls(ctx: Context, script: Script) -> Iterator[_Call]:
    """Calls of a function the script defines or sources, by its plain name, where one
    definition of it is all the script and the files it sources hold (else which one a call
    runs may be another: defined again later, in an `if`, in two files sourced in turn)."""
    from benchlint.shell.optloop import matches_otherwise, option_loop

    defined = ctx.environment.functions_at_end(script)
    if not defined:
        return
    calls = [c for c in script.commands if _calls(c, defined)]
    if not calls:
        return
    at = ctx.environment.functions_before(script, [c.node.start_byte for c in calls])
    files: list[Script] | None = None  # (what the script sources: read at its first loop)
    for command, functions in zip(calls, at, strict=True):
        name = command.base or ""
        owner = functions.get(name)
        if owner is None:
            continue
        loop = option_loop(owner, name)
        if loop is None and not _LOOP.search(owner.text_of(owner.functions[name])):
            continue  # (no option loop: nothing to read)
        if not _exists(ctx, script, owner, name, command):
            continue  # (`unset`, sourced in a subshell, defined in an uncalled function)
        if files is None:
            files = _sourced(ctx, script)
            if any(matches_otherwise(f) or "expand_aliases" in f.file.text for f in files):
                return  # (a `shopt -s nocasematch` of the caller's holds in the function)
            moves = _moves(ctx, script, _last_source(script))
            # (a file sourced by a path benchlint does not resolve may define it again)
            unresolved = [
                c
                for c in ctx.environment.calls.calls_in(script)
                if c.kind == "source" and not c.targets
            ]
        unread = None
        if loop is None:
            unread = _SHAPE
        elif moves and owner is not script:
            unread = _MOVED  # (after a `cd`, a relative `source` may read another file)
        elif any(_may_define(c, name, command) for c in unresolved):
            unread = _UNRESOLVED
        where = owner.span(owner.functions[name])
        if unread is None and (
            sum(_definitions(f, name) for f in files) != 1 or not _definitions(owner, name)
        ):
            chosen = _in_effect(script, files, name, command) if owner is script else None
            if chosen is None:
                unread = _AMBIGUOUS
            else:
                loop, where = chosen
                if loop is None:
                    unread = _SHAPE
        defined_at = Location(owner.path, where, "the function")
        yield _Call(
            _spread(command, command.words[1:]),
            owner,
            loop,
            name,
            f"`{name}` ({owner.path}:{defined_at.span.line})",
            "the call fails",
            (defined_at,),
            unread,
        )


def _in_effect(
    script: Script, files: list[Script], name: str, call: Command
) -> tuple[OptionLoop | None, Span] | None:
    """For a function the script defines more than once, each time at its top level (in no
    `if`, loop or function: bash defines it as it runs there) and the files it sources not at
    all, the definition a call runs (its option loop, and where it is): for a call at the top
    level, the last one before it (none before it: bash finds no such command); for a call in
    a function's body, the one definition where each has the same text (a file pasted after
    itself). None where that is not told."""
    from benchlint.shell.model import parse_tree
    from benchlint.shell.optloop import loop_of

    if call.script is not script or any(_definitions(f, name) for f in files if f is not script):
        return None
    src = script.parse_src or script.src
    found = [
        node
        for node in parse_tree(src).root_node.children
        if node.type == "function_definition"
        and (named := node.child_by_field_name("name")) is not None
        and src[named.start_byte : named.end_byte].decode(errors="replace") == name
    ]
    if len(found) < 2 or len(found) != _definitions(script, name):
        return None  # (one inside an `if`, a loop or another function: `_definitions` counts it)
    if call.function is None:
        before = [n for n in found if n.end_byte <= call.node.start_byte]
        if not before:
            return None  # (not defined yet: bash finds no such command)
        chosen = before[-1]
    elif len({src[n.start_byte : n.end_byte] for n in found}) == 1:
        chosen = found[-1]
    else:
        return None  # (in a function's body: whichever was defined last when it is called)
    return loop_of(chosen), script.span(chosen)


def _may_define(source: Call, name: str, call: Command) -> bool:
    """Whether a file sourced by a path benchlint does not resolve may define the function
    where the call runs: sourced in the script's own shell, or in the shell of its own the call
    runs in (`( . x; f --k )`; not `v=$(. /etc/os-release && echo "$ID")` before a call
    outside it, nor in a new shell's command string, `bash -c ". x; ..."`), not after a call
    that runs once (at the top level, in no loop); and not a file the profile knows defines no
    such function (a virtual environment's activation defines `deactivate` only)."""
    command = source.command
    if command.apart_from_script and not call.in_its_shell(command.node.start_byte):
        return False
    if _in_new_shell(command.script, call.script):
        return False  # (`bash -c "source x.sh; ..."`: another process's functions)
    if (
        command.script is call.script
        and command.function is None
        and call.function is None
        and not call.loops
        and command.node.start_byte >= call.node.end_byte
    ):
        return False  # (sourced after the call, which runs once: too late to change it)
    return source.known is None or name in source.known.get("functions", ())


def _in_new_shell(script: Script, outer: Script) -> bool:
    """Whether the script is, or is inside, the command string of a shell another program
    starts inside `outer` (`bash -c "..."`, `ssh host '...'`; not an `eval`'s, which runs in
    this shell, nor a heredoc's text, which a later `source` may read into it)."""
    while script is not outer and script.parent is not None:
        if shell_string_words(script.parent) is not None:
            return True
        script = script.parent.script
    return False


def _exists(ctx: Context, script: Script, owner: Script, name: str, call: Command) -> bool:
    """Whether the function surely exists where the call runs: not removed (`unset name`,
    `unset -f name` in the caller or the file that defines it), not defined in another
    function's body (it exists once that one runs), and where another file defines it, sourced
    by the caller's shell itself at least once (not only in a subshell, `( source lib.sh; ... )`,
    unless the call runs apart too)."""
    if script.may_unset(name) or owner.may_unset(name) or _nested(owner, name):
        return False
    if owner is script or call.apart_from_script:
        return True
    sources = [
        c.command
        for c in ctx.environment.calls.calls_in(script)
        if c.kind == "source" and c.command.script is script
    ]
    return not sources or any(not c.apart_from_script for c in sources)


def _nested(script: Script, name: str) -> bool:
    """Whether the function is defined inside another function's body."""
    where = script.functions[name]
    return any(
        other != name and w.start_byte < where.start_byte and where.end_byte <= w.end_byte
        for other, w in script.functions.items()
    )


def _sourced(ctx: Context, script: Script) -> list[Script]:
    """The script and the files it sources, and those they source (each once)."""
    found = [script]
    seen = {script.path}
    index = 0
    while index < len(found) and len(found) < 64:
        for call in ctx.environment.calls.calls_in(found[index]):
            for target in call.targets if call.kind == "source" else ():
                model = ctx.ws.shell(target) if target not in seen else None
                seen.add(target)
                if model is not None:
                    found.append(model)
        index += 1
    return found


def _definitions(script: Script, name: str) -> int:
    """How many definitions of the function the script's text holds (`name()`, `function
    name`; any `name ()` is counted, but in a comment: a string's too, more is never fewer)."""
    held = script.memo.get("bl120-definitions")
    if not isinstance(held, dict):
        held = script.memo["bl120-definitions"] = {}
    if name not in held:  # (a library sourced by every script is searched once per name)
        code = script.memo.get("bl120-code")
        if not isinstance(code, str):
            code = script.memo["bl120-code"] = _COMMENT.sub(_blank, script.file.text)
        held[name] = _count(code, name)
    count: int = held[name]
    return count


# a comment: a `#` at a line's start or after a blank, with no quote before it on the line (a
# line with one is kept whole: a definition counted once more is never one fewer)
_COMMENT = lazy_compile(r"^([^'\"\n#]*?(?:^|[ \t]))(#[^\n]*)", re.MULTILINE)


def _blank(match: re.Match[str]) -> str:
    """The comment's text as blanks: every other place stays where it was."""
    return match.group(1) + " " * len(match.group(2))


def _count(text: str, name: str) -> int:
    """`len(re.findall(pattern, text))`, the pattern tried only where its match can start (at
    an occurrence of `function` or of the name): the same count, without trying a lookbehind
    at every byte of a long library (15 ms for InferenceX's benchmark_lib.sh)."""
    if name not in text:
        return 0
    escaped = re.escape(name)
    pattern = re.compile(
        rf"\bfunction\s+{escaped}\b(?:\s*\(\s*\))?|(?<![\w.:/-]){escaped}\s*\(\s*\)"
    )
    count = end = 0
    for start in sorted({*_occurrences(text, "function"), *_occurrences(text, name)}):
        match = pattern.match(text, start) if start >= end else None
        if match:
            count, end = count + 1, match.end()
    return count


def _occurrences(text: str, word: str) -> Iterator[int]:
    """Where the word starts in the text, overlapping occurrences too."""
    start = text.find(word)
    while start >= 0:
        yield start
        start = text.find(word, start + 1)


def _moves(ctx: Context, script: Script, before: int, apart: bool = False) -> bool:
    """Whether the script may have changed its working directory before the byte `before` of
    its text (`cd`, `pushd`, also behind `builtin` or `command`; one in a function: whenever it
    is called; a file sourced before that runs one at its top level, or that benchlint does not
    resolve), so that a relative path it runs or sources there may name another file. A `cd` in
    a shell of its own (`$(cd "$DIR" && pwd)`) moves only that shell: it counts where the
    command asked about runs in that shell too (`(cd sub && ./run.sh)`; not a call sent to
    the background after `DIR="$(cd "$(dirname "$0")" && pwd)"`)."""
    if any(
        _changes_folder(c)
        and (c.function is not None or c.node.start_byte < before)
        and (not c.apart_from_script or (apart and c.in_its_shell(before)))
        for c in script.all_commands()
    ):
        return True
    for call in ctx.environment.calls.calls_in(script):
        command = call.command
        if call.kind != "source" or command.script is not script:
            continue
        if command.node.start_byte >= before or (command.apart_from_script and not apart):
            continue
        if not call.targets:
            return True
        for target in call.targets:
            model = ctx.ws.shell(target)
            if model is None or any(
                _changes_folder(c) and c.function is None and not c.apart_from_script
                for c in model.commands
            ):
                return True
    return False


def _changes_folder(command: Command) -> bool:
    """`cd`, `pushd`, `popd`, also behind `builtin` or `command`."""
    if command.base in _MOVERS:
        return True
    words = [w.value if w.static else "" for w in command.words[:2]]
    return len(words) == 2 and words[0] in ("builtin", "command") and words[1] in _MOVERS


_MOVERS = ("cd", "pushd", "popd")


def _last_source(script: Script) -> int:
    """The byte after which the script sources nothing more (its last `source` or `.`)."""
    return max(
        (c.node.start_byte for c in script.all_commands() if c.base in ("source", ".")),
        default=0,
    )


def _script_runs(ctx: Context, script: Script) -> Iterator[_Call]:
    """Runs of one of the repository's scripts with arguments (`bash run.sh --x`, `./run.sh`),
    where the path names one file of it."""
    for call in ctx.environment.calls.calls_in(script):
        if call.kind == "run" and len(call.targets) == 1:
            command = call.command
            moves = _moves(ctx, script, command.node.start_byte, command.apart_from_script)
            found = _run_of(ctx, call.command, call.word, call.targets[0], moves)
            if found is not None:
                yield found


def _step_runs(ctx: Context, script: Script, folder: str) -> Iterator[_Call]:
    """Runs of one of the repository's scripts in a `run:` step, by a path written plainly
    (from the step's working directory, where the step changes it nowhere)."""
    from benchlint.calls import script_word

    for command in script.all_commands():
        found = script_word(command)
        if found is None or found[0] != "run" or not found[1].static:
            continue
        value = found[1].value
        target = posixpath.normpath(posixpath.join(folder, value.removeprefix("./")))
        if target in ctx.ws.shell_paths:
            moves = _moves(ctx, script, command.node.start_byte, command.apart_from_script)
            run = _run_of(ctx, command, found[1], target, moves)
            if run is not None:
                yield run


def _run_of(ctx: Context, command: Command, named: Word, path: str, moves: bool) -> _Call | None:
    """The run of the script at `path` (named by the word `named`) with the words after it,
    by bash: through `bash`, or by its path where its `#!` names bash (not `sh`: dash reads
    no `[[`; a name without `/` is looked for on PATH, not here)."""
    from benchlint.shell.optloop import script_option_loop

    words = command.invocation.words
    index = next((i for i, w in enumerate(words) if w is named), None)
    if index is None or index + 1 >= len(words):
        return None
    before = [w.value.rsplit("/", 1)[-1] for w in words[:index] if w.static]
    if any(b in _OTHER_SHELLS for b in before):
        return None
    target = ctx.ws.shell(path)
    if target is None:
        return None
    if index == 0 or not before:
        first = target.file.line_text(1)
        if "/" not in named.value or not _BASH_SHEBANG.match(first):
            return None
    loop = script_option_loop(target)
    if loop is None and not _TOP_LOOP.search(target.file.text):
        return None  # (no option loop at its top level: nothing to read)
    shown = f"`{target.path}`"
    arguments = _spread(command, words[index + 1 :])
    # (after a `cd`, the path may name another file; not one the `cd` cannot change: `/x.sh`,
    # `"$SCRIPT_DIR/x.sh"` of `SCRIPT_DIR="$(dirname "$(readlink -f "$0")")"`)
    script = command.script
    moves = moves and not anchored(script, named.text, lambda at: _moves(ctx, script, at))
    unread = _SHAPE if loop is None else _MOVED if moves else None
    return _Call(arguments, target, loop, target.path, shown, "the script exits", (), unread)


def _spread(command: Command, words: Sequence[Word]) -> list[Word]:
    """The arguments the words give, a quoted `"${ARGS[@]}"` as the items of the array the
    script assigns once before the command (`args=(1 4 true)`: h97 M2, TensorRT-LLM's
    submitters), each at its place in the assignment."""
    found: list[Word] = []
    for word in words:
        array = _ARRAY.fullmatch(word.text)
        given = once_before(command, array.group(1)) if array is not None else None
        if given is not None and given.items is not None:
            found.extend(given.items)
        else:
            found.append(word)
    return found


_ARRAY = lazy_compile(r'"\$\{([A-Za-z_][A-Za-z0-9_]*)\[@\]\}"')
_MOVED = (
    "calls of a shell function or script that rejects unknown arguments, after a `cd`: the "
    "file a relative path names may be another, not read (BL120)"
)
_AMBIGUOUS = (
    "calls of a shell function that rejects unknown arguments, defined more than once in the "
    "script and the files it sources: which definition runs is not told, not read (BL120)"
)
_UNRESOLVED = (
    "calls of a shell function that rejects unknown arguments, in a shell that sources a file "
    "benchlint cannot resolve (it may define the function again), not read (BL120)"
)
_SHAPE = (
    "calls of a shell function or script whose option loop has a shape BL120 does not read "
    "(a condition, a pattern or a branch it does not follow, or something before the loop that "
    "may change its arguments), not read (BL120)"
)
# an option loop, as a text search finds one: in a function's body, at a script's top level
_LOOP = lazy_compile(r"\bwhile\s+(?:\[\[?|\(\(|test\b)[^\n]*\$#(?:.*\n){0,4}?.*\bcase\b")
_TOP_LOOP = lazy_compile(r"^while\s+(?:\[\[?|\(\(|test\b)[^\n]*\$#(?:.*\n){0,4}?.*\bcase\b", re.M)
_OTHER_SHELLS = frozenset({"sh", "dash", "ash", "ksh", "mksh", "zsh", "busybox", "posh"})
_BASH_SHEBANG = lazy_compile(r"#!\s*(?:/usr)?/bin/(?:env\s+(?:-\S+\s+)*)?bash\b")


def _calls(command: Command, defined: dict[str, Script]) -> bool:
    """Whether the command calls, by its plain name, a function the script can call."""
    base = command.base
    if base is None or base not in defined or len(command.words) < 2:
        return False
    first = command.words[0]
    return first.static and first.value == base
