"""`pkill -f PATTERN` whose pattern matches the command line of the shell that runs it.

## What it does
Reports a `pkill -f` (`--full`: the pattern is matched against each process's whole command
line) whose pattern, a POSIX extended regular expression, matches the command line of a shell
that is running when it runs: the `bash -c '...'` (or `sh -c`, or `ssh host '...'`) string it
is in, which holds the pattern itself (`pkill -9 -f "sglang"` inside `bash -c '...; pkill -9
-f "sglang"; sleep 2'`), or the script file's own name (`pkill -f vllm` in
`dsv4_fp4_b300_vllm.sh`, run as `bash .../dsv4_fp4_b300_vllm.sh`). pkill leaves out only its
own process, not the shells above it. So does a `pgrep -f` whose list a kill is given (`kill
$(pgrep -f PATTERN)`, `pgrep -f PATTERN | xargs kill`).

## Why is this bad?
The shell is killed with the servers it meant to stop: the commands after the `pkill` never
run and the job ends with status 137 or 143, which the workflow reports as a failure (or, in a
cleanup step, a script that was about to report success). InferenceX fixed this twice: a
launcher's host cleanup (`srun ... bash -c '...; pkill -9 -f "sglang" ...; sleep 2; ...'`) and
a speed benchmark that stopped its server with `pkill -f vllm` from a script named
`..._vllm.sh`.

## Example
```bash path=runners/launch_b300.sh
srun --jobid="$JOB_ID" bash -c 'pkill -9 -f "sglang" 2>/dev/null; sleep 2; echo cleaned'
```

## Use instead
```bash path=runners/launch_b300.sh
srun --jobid="$JOB_ID" bash -c 'pkill -9 -f "[s]glang" 2>/dev/null; sleep 2; echo cleaned'
```
The pattern `[s]glang` matches what `sglang` matches, but not the text `[s]glang` on the
shell's own command line. A script whose name the pattern matches should stop its server by
its process ID (`kill "$SERVER_PID"`) or with a pattern its own name does not hold.

## Exceptions
Not reported: a `pkill` that a `bash -c` string runs last with no redirection (bash runs it in place
of the shell, which then is not there to kill), a pattern that is not fixed text (a loop's variable
alone, `for p in vllm sglang; do pkill -f "$p"`, is matched with each word the loop writes out) or
that is anchored (`^`, `$`), `-x`, `-v` and `-A`, an option that narrows the match otherwise than by
the user (`-O 60`: the shell may be younger; `-n` and `-o`, the newest and the oldest match: the
shell or a server; `-P`, `-r`, `-s`, `-t`, `-F`; not `-g 0` or `-s 0`, pkill's own group and
session), two patterns (pkill refuses them; procps reads options after the pattern too, `pkill -f
vllm -x`, as procps-ng 4.0.2 reads them, held to pgrep's and pkill's own reading in
`tests/test_differential.py`), signals that do not end a process by default (`-0`, `CONT`, `CHLD`,
`URG`, `WINCH`, the stop signals), a signal the killed shell traps with a handler that lets it go on
(not `trap -`, the default again; not a handler that runs `exit`, itself or in a function, nor one
that runs the function holding the pkill, which then signals the shell again, for ever; one a file
the script sources sets counts too), and a file's name where the file is not run by its name: one
that a script sources (the sourcing scripts' names are used), or a library of functions. Shells
started through `srun`, `ssh`, `docker`, `kubectl exec`, `enroot` and the like run on another host
or in a container: only their own command line counts. Patterns are matched as POSIX extended
regular expressions, as pkill reads them (`tests/test_differential.py` holds the match to pgrep's).

## Fix safety
In a shell's command string, the pattern's first letter is put in brackets (`sglang` becomes
`[s]glang`, which matches the same processes) when the string then no longer matches: safe.
No fix for a file's name.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from benchlint.calls import call_graph, loop_words
from benchlint.context import Context
from benchlint.finding import Edit, Finding, Fix, Location, Severity, clip
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.rewrite import RewriteError, bracket_end, compile_pattern, first_match, search
from benchlint.shell.invocation import PROCESSES, Wrapper
from benchlint.shell.model import Command, Script, Word, shell_string_words
from benchlint.shell.procps import HARMLESS, read_kill, signal_name, signal_of

if TYPE_CHECKING:
    import regex

# signals a non-interactive bash waiting for a foreground command (the pkill) goes on after: it
# ends itself on SIGINT only when the command died of it (pkill spares itself), and ignores
# SIGQUIT (bash 5.2: the script prints what follows)
_SURVIVED = frozenset({"INT", "QUIT"})
# commands a library of functions runs at its top level besides defining them
_LIBRARY_TOP = frozenset(
    {"export", "declare", "typeset", "readonly", "set", "shopt", "source", "."}
)
_FIRST_LETTER = lazy_compile(r"[A-Za-z0-9]")
_BOUND = lazy_compile(r"\{[0-9]*(?:,[0-9]*)?\}")


@dataclass(frozen=True)
class Kill:
    pattern: Word
    signal: str  # "TERM", "KILL", "9" ...: as pkill names it, upper case, no SIG
    ignore_case: bool
    # the pattern's text where the word is a loop's variable (`for p in vllm sglang; do pkill
    # -f "$p"`): one of the values the loop gives it; None: the word's own value
    given: str | None = None
    # the command that signals what a `pgrep` lists (`kill $(pgrep -f x)`, `pgrep -f x | xargs
    # kill`); None for a pkill
    through: Command | None = None

    @property
    def text(self) -> str:
        return self.pattern.value if self.given is None else self.given


@dataclass(frozen=True)
class Shell:
    """A shell that is running when the `pkill` runs, and the text its command line holds."""

    text: str  # the command string (`bash -c`), or the script file's name
    label: str  # how the message names it
    script: Script  # the script it runs (its traps count)
    string: Word | None  # the command string's word (a fix edits it), None for a file's name


@script_rule("BL111", "pkill-matches-self", Severity.ERROR, tags=("shell", "correctness"))
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    if "pkill" not in script.file.text and "pgrep" not in script.file.text:
        return
    for command in script.all_commands():
        base = command.invocation.base
        if base == "pkill":
            kill = _kill(command)
        elif base == "pgrep":
            kill = _pgrep_kill(command)
        else:
            continue
        if kill is None:
            continue
        kills = [kill]
        if not kill.pattern.static:
            values = _loop_values(command, kill.pattern)
            if values is None:
                ctx.count("pkill -f patterns not fixed text, not matched (BL111)", _at(command))
                continue
            kills = [replace(kill, given=value) for value in values]
        for each in kills:
            finding = _finding(ctx, command, each)
            if finding is not None:
                yield finding
                break


def _loop_values(command: Command, word: Word) -> list[str] | None:
    """The values a pattern that is a loop's variable alone (`"$p"`, `${p}`) takes: the words
    of the `for` loops of the script that give it (the pkill inside one), where each is written
    out (`for p in vllm 'sglang.launch_server'`); None where that is not known."""
    script = command.script
    text = script.text_of(word.node).strip('"')
    found = _LOOP_READ.fullmatch(text)
    if found is None:
        return None
    name = found.group(1) or found.group(2)
    assigned = [a for a in script.assignments if a.name == name]
    loops = [a.command.node for a in assigned if a.kind == "for"]
    if not loops or len(loops) != len(assigned) or not any(n in command.loops for n in loops):
        return None
    values: list[str] = []
    inner = [n for n in command.loops if n in loops][-1:]  # (the innermost loop of the name)
    for node in inner:
        for each in loop_words(script.text_of(node), name):
            plain = _LOOP_WORD.fullmatch(each)
            if plain is None:
                return None
            values.append(next(g for g in plain.groups() if g is not None))
    return values or None


_LOOP_READ = lazy_compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
# a loop's word written out: plain, or all in one pair of quotes (no expansion, escape, glob)
_LOOP_WORD = lazy_compile(r"'([^']+)'|\"([^\"$`\\]+)\"|([^\s'\"$`\\*?\[{]+)")


def _at(command: Command) -> Location:
    return Location(command.script.path, command.first_line_span)


def _pgrep_kill(command: Command) -> Kill | None:
    """`kill $(pgrep -f PATTERN)`, `pgrep -f PATTERN | xargs kill`: pgrep spares only its own
    process, so the list holds the shell that runs it where its command line matches, and the
    kill signals that shell too (bash 5.2: 143; h123 M13). The pattern, with the kill's
    signal."""
    found = _kill(command, "pgrep")
    if found is None:
        return None
    script = command.script
    start, end = command.node.start_byte, command.node.end_byte
    killer = next(
        (
            c
            for c in script.all_commands()
            if c.base == "kill" and c.node.start_byte < start and end <= c.node.end_byte
        ),
        None,
    )
    if killer is not None:
        args = [w.value for w in killer.args]
    else:
        statement = command.statement()
        killer = next(
            (
                c
                for c in script.all_commands()
                if c.base == "xargs"
                and c.node.start_byte >= end
                and c.statement() == statement
                and "kill" in (w.value for w in c.args)
            ),
            None,
        )
        if killer is None:
            return None
        args = [w.value for w in killer.args]
        args = args[args.index("kill") + 1 :]
    signal = "TERM"
    if args[:1] and signal_of("kill", args[0]) is not None:
        signal = signal_name(args[0][1:])
    elif args[:1] in (["-s"], ["-n"]) and len(args) > 1:
        signal = signal_name(args[1])
    if signal in HARMLESS | _SURVIVED:
        return None
    return replace(found, signal=signal, through=killer)


# options that leave the shell among what the pattern matches: its user and group are the
# pkill's (`-g 0`, `-s 0`, the pkill's own group and session, are not read as narrowing);
# not `-n` or `-o`: the newest match is the shell or a server it started since, the oldest a
# server started before it or the shell (bash 5.2, procps 4.0.2; h131 F2)
_KEEPS_THE_SHELL = frozenset({"euid", "uid", "group"})


def _kill(command: Command, program: str = "pkill") -> Kill | None:
    """The pattern and signal of `pkill -f` (of `pgrep -f`, its pattern: it lists); None for no
    `-f`, `-x`, `-v`, `-A` (it spares the shell), an option that narrows the match otherwise
    than by the user (`-O 60`: the shell may be younger; `-n`, `-o`, `-P`, `-r`), two patterns
    (a usage error: it kills nothing), or an option this does not read (procps reads options
    after the pattern too: `pkill -f vllm -x`)."""
    words = command.invocation.args
    read = read_kill(program, [w.value for w in words])
    at = read.pattern
    if (
        not read.full
        or read.whole
        or read.inverse
        or read.spares_ancestors
        or read.unknown
        or read.criteria - _KEEPS_THE_SHELL
        or at is None
        or not words[at].value
        or not read.ends
        or read.signal in _SURVIVED
    ):
        return None
    return Kill(words[at], read.signal, read.ignore_case)


def _finding(ctx: Context, command: Command, kill: Kill) -> Finding | None:
    pattern = kill.text
    if _anchored(pattern):
        return None
    compiled = pkill_pattern(pattern, kill.ignore_case)
    if compiled is None:
        return None
    for shell in _shells(ctx, command, kill):
        try:
            matched = first_match(compiled, shell.text)
        except RewriteError:
            continue
        if matched is None:
            continue
        how = _signalled(shell.script, kill.signal, command)
        if how is not None and not _sourced_trap(ctx, shell.script, kill.signal):
            return _report(command, kill, shell, *matched, how)
    return None


def _sourced_trap(ctx: Context, script: Script, signal: str) -> bool:
    """Whether a file the script sources sets a trap for the signal at its top level (`source
    lib.sh`, whose `trap 'echo stopping' TERM` is the script's then): taken to protect it, as
    where the `source` runs is not related to the pkill here."""
    graph = call_graph(ctx.ws)
    for call in graph.calls_in(script):
        if call.kind != "source":
            continue
        for target in call.targets:
            sourced = ctx.ws.shell(target)
            if sourced is None:
                continue
            if any(
                command.function is None and _trap_for(command, signal) not in (None, "-")
                for command in sourced.commands
            ):
                return True
    return False


def _trap_for(command: Command, signal: str) -> str | None:
    """The handler a `trap` command sets for the signal (`-`: the default again; `''`: the
    signal ignored), read as bash reads it (`trap -- 'x' TERM`, `trap 'x' SIGTERM 15`); None
    when the command is no `trap` of that signal (`trap -p TERM` only lists)."""
    if command.base != "trap":
        return None
    words = [w.value for w in command.trap_args]
    if len(words) < 2 or words[0] in ("-p", "-l"):
        return None
    return words[0] if any(signal_name(w) == signal for w in words[1:]) else None


def pkill_pattern(pattern: str, ignore_case: bool = False) -> regex.Pattern[str] | None:
    """The pattern as pkill's `regcomp` (POSIX extended, glibc) reads it; None where it
    rejects it (pkill then exits 2, killing nothing) or the translation cannot read it."""
    i = 0
    before = ""  # the last token outside brackets: "" at the start, "(" or "|" after those
    while i < len(pattern):
        ch = pattern[i]
        if ch == "[":
            try:
                i = bracket_end(pattern, i) + 1
            except RewriteError:
                return None
            before = "x"
            continue
        if ch == "\\":
            if i + 1 == len(pattern):
                return None  # "Trailing backslash"
            i, before = i + 2, "x"
            continue
        if ch in "*+?{" and before in ("", "(", "|"):
            return None  # "Invalid preceding regular expression"
        if ch == "{" and not _BOUND.match(pattern, i):
            return None  # "Unmatched \\{" (or an invalid bound)
        before = ch if ch in "(|" else "x"
        i += 1
    try:
        return compile_pattern(pattern, True, "i" if ignore_case else "")
    except RewriteError:
        return None


def _anchored(pattern: str) -> bool:
    """Whether `^` or `$` stand outside a bracket expression (an anchor, in an ERE)."""
    text = re.sub(r"\[\^?\]?[^]]*\]|\\.", "", pattern)
    return "^" in text or "$" in text


def _shells(ctx: Context, command: Command, kill: Kill) -> Iterator[Shell]:
    """The shells running while `command` runs whose command line holds known text: the
    command strings around it, then, where every wrapper between runs here, the file's."""
    script, inner = command.script, command  # (the command of `script` the pkill runs in)
    while script.parent is not None:
        parent = script.parent
        words = shell_string_words(parent)
        if words is not None and len(words) == 1 and words[0].static:
            if _forked(script, inner):
                name = parent.invocation.base if parent.invocation.shell else "ssh"
                label = f"the command line of the `{name} -c` shell that runs it"
                if name == "ssh":
                    label = "the command line of the remote shell `ssh` starts"
                yield Shell(words[0].value, label, script, words[0])
        elif words is None and not _reads_stdin_here(parent):
            return  # a heredoc written to a file run later, or a held command: not traced
        if any(_apart(w) for w in parent.invocation.wrappers):
            return
        script, inner = parent.script, parent
    yield from _file_shells(ctx, script, script, 0)


def _apart(wrapper: Wrapper) -> bool:
    """Whether the shells above the wrapper are not among the processes pkill sees: it runs
    its command on another host or in a container, or (`xargs`) from what it reads, which the
    shell's text does not hold."""
    return PROCESSES in wrapper.apart or wrapper.name == "xargs"


def _reads_stdin_here(parent: Command) -> bool:
    """A nested script the shell runs in this process or as a child that stays (`eval`,
    `bash <<EOF`): the shells above it are running."""
    invocation = parent.invocation
    return invocation.base == "eval" or bool(invocation.shell)


def _forked(script: Script, command: Command) -> bool:
    """Whether the command string's shell stays while `command` (or what it starts) runs: it
    is not the string's last command, run in place of the shell (bash runs a last simple
    command without redirections with `exec`, at the string's top level only; dash 0.5.12,
    Debian's `sh`, never does: there a pkill last in `sh -c` ends that shell too, which only
    the string's status, 143, shows: not reported, as what `sh` is is not known; h125 M2)."""
    if command.tested or command.or_guarded or command.loops or command.piped:
        return True
    if command.function is not None or command.subshell or command.background:
        return True
    if not command.at_top_level:  # (`if ...; then pkill ...; fi` last: bash stays, h123 M12)
        return True
    if not command.ends_its_text:  # (a blank or a comment line after it: bash stays, h125 M1)
        return True
    end = command.node.end_byte
    if any(other.node.start_byte >= end for other in script.commands):
        return True
    return bool(command.redirects) and any(o is not command for o in script.commands)


def _file_shells(ctx: Context, script: Script, start: Script, depth: int) -> Iterator[Shell]:
    """The file's own shell, named by the file, when the file is run by its name; the
    shells of the scripts that source it otherwise (`start`: the file the `pkill` is in)."""
    path = script.path
    graph = call_graph(ctx.ws)
    sourcing = [c for c in graph.callers_of(path) if c.kind == "source"]
    if sourcing:
        if depth < 3:
            for call in sourcing:
                yield from _file_shells(ctx, call.caller.top, start, depth + 1)
        return
    if _library(script):
        return
    name = posixpath.basename(path)
    whose = "this script's own" if script is start else f"{path}'s (it sources this file)"
    yield Shell(name, f"{whose} command line (`bash .../{name}`)", script, None)


def _library(script: Script) -> bool:
    """A file of functions: what it runs at its top level only defines and sets names."""
    if not script.functions:
        return False
    for command in script.commands:
        if command.function is not None or command.subshell:
            continue
        if command.words and command.base not in _LIBRARY_TOP:
            return False
    return True


def _signalled(script: Script, signal: str, pkill: Command) -> str | None:
    """What the signal does to the shell, for the message: it ends it (no trap for it, or
    `trap -`, the default again); a trap's handler that runs `exit` ends it; one that runs the
    function holding the pkill (`trap cleanup TERM`, the pkill in `cleanup`) runs it again,
    for ever. None where a trap's handler lets it go on (the pkill is not reported). The trap
    in effect: for a pkill of the top level, the last set before it; for one in a function,
    the last of the top level; one a function sets (when is not known) is taken to protect."""
    ends = "ends that shell here and nothing after it runs"
    if signal == "KILL":
        return ends
    if script.parent is not None:  # (a string's shell: a signal its starter ignores, it does too)
        outer = script.parent.script
        if _signalled(outer, signal, script.parent) is None and _ignores(outer, signal):
            return None
    handler = None
    for command in script.commands:
        given = _trap_for(command, signal)
        if given is None or command.subshell:
            continue
        if command.function is not None:
            return None  # (a function's: taken to be set when it matters)
        top = pkill.function is None and pkill.script is script
        if top and command.node.start_byte > pkill.node.start_byte:
            continue  # (set after the pkill: not yet in effect there)
        handler = given
    if handler is None or handler == "-":
        return ends
    return _handled(script, handler, pkill)


def _ignores(script: Script, signal: str) -> bool:
    """Whether the script sets `trap '' SIGNAL` (ignored: a shell it starts cannot trap it)."""
    return any(_trap_for(c, signal) == "" for c in script.commands)


# an `exit` a handler's text surely runs: its first command, or one after a `;` or a newline
_EXITS = lazy_compile(r"(?:^|[;\n])\s*exit\b")


def _handled(script: Script, handler: str, pkill: Command, depth: int = 0) -> str | None:
    """What a trap's handler does when the pkill signals its shell (see `_signalled`)."""
    if _EXITS.search(handler):
        return "runs the trap's handler, whose `exit` ends that shell here: nothing after it runs"
    holder = pkill.function if pkill.script is script else None
    for name in dict.fromkeys(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", handler)):
        if name not in script.functions:
            continue
        if name == holder:
            return (
                f"runs the trap's handler `{name}`, which holds the pkill: it signals the shell "
                "again, for ever, and nothing after it runs"
            )
        if depth >= 2:
            continue  # (deeper: taken to return, as a handler is)
        body = script.body(name)
        if any(c.base == "exit" and not c.guards and not c.subshell for c in body):
            return (
                f"runs the trap's handler `{name}`, whose `exit` ends that shell here: nothing "
                "after it runs"
            )
        for called in dict.fromkeys(c.base for c in body if c.base in script.functions):
            if called != name and called is not None:
                found = _handled(script, called, pkill, depth + 1)
                if found is not None:
                    return found
    return None


def _report(command: Command, kill: Kill, shell: Shell, start: int, end: int, how: str) -> Finding:
    matched = shell.text[start:end]
    pattern = kill.text
    text = f"`{clip(command.script.text_of(command.node), 50)}`"
    if kill.given is not None:  # (a loop's value)
        text += f" (with `{pattern}`, a value its loop gives the pattern)"
    fix = _fix(kill, shell) if shell.string is not None and kill.given is None else None
    if shell.string is None:
        what = shell.label
        help_ = (
            'stop the server by its process ID (`kill "$SERVER_PID"`), or with a pattern '
            "the script's name does not hold"
        )
    else:
        what = f"{shell.label} (its string holds `{clip(matched, 40)}`"
        own = kill.given is None and shell.string.offsets[start] == kill.pattern.offsets[0]
        what += ", the pattern's own text)" if own else ")"
        bracketed = f"[{pattern[0]}]{pattern[1:]}"
        help_ = (
            f"write the pattern as `{bracketed}` (quoted): it matches the same processes, "
            "but not its own text"
        )
    spares = "pkill spares only its own process"
    if kill.through is not None:  # (`kill $(pgrep -f x)`: h123 M13)
        killer = kill.through.base
        spares = f"pgrep lists every other process, and `{killer}` signals them"
        if killer == "xargs":
            spares = "pgrep lists every other process, and `xargs kill` signals them"
    return Finding(
        "BL111",
        f"{text} matches {what}: {spares}, so SIG{kill.signal} {how}",
        Location(command.script.path, kill.pattern.span),
        related=(_at(command),),
        subject=f"{pattern}@{shell.text if shell.string is None else 'string'}",
        fix=fix,
        help=help_,
    )


def _fix(kill: Kill, shell: Shell) -> Fix | None:
    """`sglang` -> `[s]glang` in the command string, when the string then no longer matches."""
    assert shell.string is not None
    pattern = kill.text
    letter = _FIRST_LETTER.match(pattern)
    if letter is None:
        return None
    fixed = f"[{pattern[0]}]{pattern[1:]}"
    if kill.pattern.node.type not in ("string", "raw_string"):
        return None  # unquoted, `[s]glang` would be a glob
    first = kill.pattern.offsets[0]
    offsets = shell.string.offsets
    at = offsets.index(first) if first in offsets else -1
    text = shell.text
    if at < 0 or text[at : at + len(pattern)] != pattern:
        return None
    after = text[:at] + fixed + text[at + len(pattern) :]
    compiled = pkill_pattern(fixed, kill.ignore_case)
    try:
        if compiled is None or search(compiled, after):
            return None
    except RewriteError:
        return None
    source = kill.pattern.script.file
    edit = Edit(source.path, source.span(first, first + 1), f"[{pattern[0]}]")
    return Fix(f"write the pattern as `{fixed}`", (edit,))
