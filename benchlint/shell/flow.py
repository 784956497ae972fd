"""Control flow of a script's own shell, in the order it runs, for straight-line launcher code.

The statements are the commands of the script's top level in text order, through `if`/`case`,
loops and `&&`/`||` lists (every branch is taken as reachable; guards say which are conditional).
Function bodies are not inlined (a body is read as a flow of its own, `Flow(function=...)`),
subshells and command substitutions are their own shells, and nested scripts (`bash -c`) are
separate `Script`s. Within that model a rule can ask which commands
can end the script between two points (`exit`, `return` at the top of a sourced file, a failing
command under errexit) and which `trap ... EXIT` handlers are registered before a point.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchlint.lazyre import lazy_compile
from benchlint.shell.model import Command, Redirect, Script, Word, first_line, option_change

if TYPE_CHECKING:
    from tree_sitter import Node

# Commands that do not fail in practice, so errexit does not make them exit paths.
_CANNOT_FAIL = frozenset(
    {
        "echo",
        "printf",
        ":",
        "true",
        "set",
        "shopt",
        "trap",
        "export",
        "declare",
        "typeset",
        "local",
        "readonly",
        "unset",
        "shift",
        "sleep",
        "date",
        "hostname",
        "whoami",
        "nproc",
        "pwd",
    }
)
_EXIT_SIGNALS = frozenset({"EXIT", "0", "SIGEXIT"})

# Filters that end with status 0 when they read a pipe, given options they accept (`curl ... |
# head -1`): an option word of theirs, and the options whose value is the next word. A file
# operand (`head -1 missing.txt`) or a word benchlint cannot read makes them able to fail.
_PIPE_FILTERS: dict[str, tuple[re.Pattern[str], frozenset[str]]] = {
    "head": (
        lazy_compile(r"-\d+|-[nc]-?\d+[a-zA-Z]*|--(?:lines|bytes)=-?\d+[a-zA-Z]*|-[qvz]+"),
        frozenset({"-n", "-c"}),
    ),
    "tail": (
        lazy_compile(r"-\d+|-[nc][+-]?\d+[a-zA-Z]*|--(?:lines|bytes)=[+-]?\d+[a-zA-Z]*|-[qvz]+"),
        frozenset({"-n", "-c"}),
    ),
    "wc": (lazy_compile(r"-[lcwmL]+|--(?:lines|bytes|words|chars|max-line-length)"), frozenset()),
    "cat": (lazy_compile(r"-[AbeEnstTuv]*"), frozenset()),
    "sort": (lazy_compile(r"-[bdfgHhMnrRsuVz]+|-[kt].+"), frozenset({"-k", "-t"})),
    "uniq": (lazy_compile(r"-[cdDiuz]+|-[fsw]\d+"), frozenset({"-f", "-s", "-w"})),
    "cut": (
        lazy_compile(r"-[bcdf].+|-s|--complement|--(?:delimiter|fields|bytes|characters)=.+"),
        frozenset({"-b", "-c", "-d", "-f"}),
    ),
}
_NUMBER = lazy_compile(r"[+-]?\d+[a-zA-Z]*")


def reads_pipe(command: Command) -> bool:
    """Whether the command is a pipeline's element after the first: `|` or `|&` comes right
    before it (blanks, newlines and line continuations between)."""
    src = command.script.src
    i = command.node.start_byte - 1
    while i >= 0:
        char = src[i : i + 1]
        if not (char in (b" ", b"\t", b"\n") or (char == b"\\" and src[i + 1 : i + 2] == b"\n")):
            break
        i -= 1
    if i >= 1 and src[i : i + 1] == b"&" and src[i - 1 : i] == b"|":
        i -= 1
    return i >= 0 and src[i : i + 1] == b"|" and src[i - 1 : i] != b"|"


def _cannot_fail_to_open(redirect: Redirect) -> bool:
    """`2>/dev/null`, `2>&1`."""
    target = redirect.target.value
    if redirect.operator in (">&", "<&"):
        return target.isdigit() or target == "-"
    return target == "/dev/null"


def _pipe_filter(command: Command) -> bool:
    """A filter reading a pipe with options it accepts (`| head -1`, `| tr -d '\\n'`): it
    ends with status 0 whatever came down the pipe."""
    base = command.base
    if base is None or not reads_pipe(command):
        return False
    if not all(_cannot_fail_to_open(r) for r in command.redirects):
        return False  # (`> out.txt` can fail to open)
    args = command.args
    if any(not w.static for w in args):
        return False
    values = [w.value for w in args]
    if base == "tr":
        options = "".join(v[1:] for v in values if v.startswith("-") and len(v) > 1)
        operands = [v for v in values if not (v.startswith("-") and len(v) > 1)]
        if set(options) - set("dscCt"):
            return False
        if "d" in options:
            return len(operands) == (2 if "s" in options else 1)
        return len(operands) in ((1, 2) if "s" in options else (2,))
    spec = _PIPE_FILTERS.get(base)
    if spec is None:
        return False
    option, takes_value = spec
    listed = False  # (cut fails without a list: -b, -c or -f)
    i = 0
    while i < len(values):
        value = values[i]
        if value in takes_value:
            if i + 1 >= len(values):
                return False
            if base in ("head", "tail") and not _NUMBER.fullmatch(values[i + 1]):
                return False
            listed = listed or value in ("-b", "-c", "-f")
            i += 2
            continue
        if not option.fullmatch(value):
            return False
        listed = (
            listed
            or value[:2] in ("-b", "-c", "-f")
            or value.startswith(("--fields", "--bytes", "--characters"))
        )
        i += 1
    return listed or base != "cut"


def _turns_on_inherit(command: Command) -> bool:
    """`shopt -s inherit_errexit`, `set -o posix`."""
    values = [w.value for w in command.args]
    if command.base == "shopt":
        return "-s" in values and "inherit_errexit" in values
    return command.base == "set" and option_change(values, "posix") is True


def _cannot_fail_reading(command: Command) -> bool:
    """`read` from a here-string (it always ends with a newline: a line is read), `mapfile` of
    a process substitution or a pipe (nothing to open that can fail), `jobs` with options only
    (bash 5.2: status 0 with no job)."""
    base = command.base
    if base == "read":  # (the here-string is inside the command's node, after its words)
        src, end = command.script.src, command.node.end_byte
        after = src[command.words[-1].node.end_byte : end] + src[end : end + 64]
        return after.lstrip(b" \t").startswith(b"<<<")
    if base in ("mapfile", "readarray"):
        return all(r.target.value.startswith("<(") for r in command.redirects) and (
            bool(command.redirects) or reads_pipe(command)
        )
    if base == "jobs":  # (`jobs -p` lists the jobs, none too; a job named, `jobs %2`, can fail)
        return all(w.static and _JOBS_OPTIONS.fullmatch(w.value) for w in command.args)
    if base == "cat" and command.args and not command.redirects:
        return all(_written_before(command, w) for w in command.args)
    return False


def _written_before(command: Command, word: Word) -> bool:
    """Whether the file a plain relative path names is one the script wrote before, in the
    same folder (`: > ready` ... `x=$(cat ready)`): a redirection to it that runs whenever the
    command does (not under a condition, in a loop, a function, a subshell or the background),
    with no `cd`, `pushd`, `popd`, `rm` or `mv` between."""
    name = word.value
    if not word.static or not name or name.startswith(("-", "/")) or "$" in name:
        return False
    at = command.node.start_byte
    found = False
    for other in command.script.commands:
        if other.node.start_byte >= at:
            break
        if other.base in ("cd", "pushd", "popd") or (
            other.base in ("rm", "mv") and any(w.value == name for w in other.args)
        ):
            found = False
            continue
        if other.guards or other.loops or other.function != command.function:
            continue
        if other.apart_from_script:
            continue
        if any(
            r.operator in (">", ">>", ">|", "&>") and r.target.static and r.target.value == name
            for r in other.redirects
        ):
            found = True
    return found


_JOBS_OPTIONS = lazy_compile(r"-[lnprs]+")


def _counts(command: Command) -> bool:
    """Whether a command before the last of a list can give the list its status: one tested
    by `&&` (`a && b`: a's when it fails), or a pipeline's element under `pipefail`."""
    return command.tested and (not command.piped or command.pipefail)


def _outermost(commands: list[Command]) -> list[Command]:
    """The commands not inside another of them (a substitution in a word is inside its
    command), in text order."""
    return [
        c
        for c in commands
        if not any(
            o is not c
            and o.node.start_byte <= c.node.start_byte
            and c.node.end_byte <= o.node.end_byte
            and o.node != c.node
            for o in commands
        )
    ]


def _may_return_failure(command: Command) -> bool:
    """A `return` or `exit` whose status may not be 0 (`return 1`, `return "$rc"`, a bare
    `return`: the last command's)."""
    if command.base not in ("return", "exit"):
        return False
    code = command.args[0] if command.args else None
    return code is None or not (code.static and code.value.isdigit()) or int(code.value) % 256 != 0


def _returns_success(script: Script, command: Command) -> bool:
    """A bare `return` (or `return 0`) whose status is 0: the first command of an `if`'s or
    `elif`'s `then` (its condition just succeeded), right after `&&`, or after an assignment
    of plain text, `echo`, `:` or `true`."""
    if command.base != "return":
        return False
    if command.args:
        return not _may_return_failure(command)
    node = script.syntax(command.node).prev_sibling
    while node is not None and node.type in ("comment", ";", "\n"):
        node = node.prev_sibling
    if node is not None and node.type == "{":  # `cond && { return; }`: what came before it
        parent = node.parent
        node = parent.prev_sibling if parent is not None else None
    return node is not None and _succeeded(script, node)


def _succeeded(script: Script, node: Node) -> bool:
    """Whether the status a node leaves is 0 where the next command runs: right after `then` or
    `&&` (what came before succeeded), after an assignment of plain text, `echo`, `:` or `true`,
    or a list of such (`false || echo bad`: echo's status, or the first's 0)."""
    if node.type in ("variable_assignment", "variable_assignments"):  # `RET=1; return`
        text = script.text_of(node)
        return "$" not in text and "`" not in text
    if node.type == "command":  # `echo "not ready"; return`
        name = node.child_by_field_name("name")
        return name is not None and script.text_of(name) in ("echo", ":", "true")
    if node.type == "redirected_statement":  # (`echo bad >&2`: a redirect that cannot fail)
        body = node.child_by_field_name("body")
        redirects = [script.text_of(c) for c in node.children if c.type == "file_redirect"]
        quiet = all(_QUIET_REDIRECT.fullmatch(r.replace(" ", "")) for r in redirects)
        return body is not None and quiet and _succeeded(script, body)
    if node.type == "list" and node.child_count >= 3:
        first, operator, last = node.children[-3], node.children[-2], node.children[-1]
        if operator.type == "||":  # (the first's 0, else the last's status)
            return _succeeded(script, first) or _succeeded(script, last)
        return operator.type == "&&" and _succeeded(script, first) and _succeeded(script, last)
    return node.type in ("then", "&&")


def _runs_with(first: Command, then: Command) -> bool:
    """Whether the first command runs wherever the second does (before it in the text): its
    conditions and loops are the second's outer ones."""
    guards, loops = first.guards, first.loops
    return (
        len(guards) <= len(then.guards)
        and all(
            g.node == h.node and g.expect == h.expect and g.patterns == h.patterns
            for g, h in zip(guards, then.guards, strict=False)
        )
        and tuple(loops) == tuple(then.loops[: len(loops)])
    )


def _counted_down(script: Script, command: Command) -> bool:
    """`(( n-- ))` in a loop that runs only while n is not 0 (`until test $n -eq 0`, `while [
    "$n" -gt 0 ]`, `while (( n > 0 ))`) and changes n nowhere else: its old value is never 0,
    so it cannot fail."""
    match = _DECREMENT.fullmatch(script.text_of(command.node))
    if match is None:
        return False
    name = re.escape(match.group(1))
    node = script.syntax(command.node).parent
    while node is not None and node.type not in ("while_statement", "function_definition"):
        node = node.parent
    if node is None or node.type != "while_statement" or not node.children:
        return False
    condition, body = node.child_by_field_name("condition"), node.child_by_field_name("body")
    if condition is None or body is None:
        return False
    variable = rf'"?\$(?:{name}|\{{{name}\}})"?'

    def test(operators: str) -> str:
        return rf"(?:test\s+|\[\[?\s*){variable}\s+-(?:{operators})\s+0(?:\s*\]\]?)?"

    if node.children[0].type == "until":
        held = rf"{test('eq|le')}|\(\(\s*{name}\s*(?:==|<=)\s*0\s*\)\)"
    else:
        held = rf"{test('ne|gt')}|\(\(\s*{name}\s*(?:(?:!=|>)\s*0\s*)?\)\)"
    if re.fullmatch(held, script.text_of(condition).strip().rstrip(";").strip()) is None:
        return False
    changes = rf"(?<![\w$]){name}\s*(?:[-+*/%]?=(?!=)|--|\+\+)|(?:--|\+\+)\s*{name}\b"
    return len(re.findall(changes, script.text_of(body))) == 1


# a redirect that cannot fail: to another descriptor, or to /dev/null (`>&2`, `2>/dev/null`)
_QUIET_REDIRECT = lazy_compile(r"\d*(?:>&\d|&>>?/dev/null|>>?/dev/null)")
# `(( n-- ))`, `((n--));`
_DECREMENT = lazy_compile(r"\(\(\s*([A-Za-z_]\w*)\s*--\s*\)\)\s*;?")


def _loop_control(command: Command) -> bool:
    """`break` or `continue`, alone or with a number: bash gives status 0 (outside a loop too);
    only a non-numeric argument fails (`break x`: status 128)."""
    return command.base in ("break", "continue") and all(
        w.static and w.value.isdigit() for w in command.words[1:]
    )


@dataclass(frozen=True)
class ExitPath:
    command: Command
    kind: str  # "exit" | "return" | "errexit"

    def describe(self, counts: Callable[[Command], bool] | None = None) -> str:
        """The path as a message names it. `counts`: which `exit`s of a called function's body
        to name (those a rule counts: not one only a dead server reaches)."""
        command = self.command
        text = first_line(command.script.text_of(command.node))
        if self.kind == "exit" and command.base != "exit":  # (a call whose body exits)
            inner = [c for c in function_exits(command, True) if counts is None or counts(c)]
            at = ", ".join(str(c.span.line) for c in inner[:3]) or "?"
            return f"`{text}` (line {command.span.line}: it can run `exit`, on line {at})"
        if self.kind == "errexit":
            inner = [c for c in function_exits(command) if counts is None or counts(c)]
            if inner:  # (the call ends the script either way)
                lines = [str(c.span.line) for c in inner[:3]]
                where = (
                    f"line {lines[0]}"
                    if len(lines) == 1
                    else "lines " + ", ".join(lines[:-1]) + f" and {lines[-1]}"
                ) + (" and more" if len(inner) > 3 else "")
                return (
                    f"`{text}` (line {command.span.line}: its body can `exit`, on {where}, or "
                    "fail under `set -e`)"
                )
            return f"`{text}` (line {command.span.line}) failing under `set -e`"
        return f"`{text}` (line {command.span.line})"


def function_exits(call: Command, deep: bool = False) -> list[Command]:
    """The `exit`s of the body of the script's function the command calls, not in a subshell
    of the body (`$(...)`, `( ... )`), nor sent to the background or in a pipeline's element:
    each may be the one that ends the script (the first may be one only a dead server
    reaches). `deep`: those of the script's functions the body calls too (`die`), two calls
    deep."""
    script = call.script
    if call.base is None or call.base not in script.functions:
        return []
    key = f"function exits {call.base} {deep}"  # (asked for every call of every flow)
    known = script.memo.get(key)
    if isinstance(known, list):
        return known
    found: list[Command] = []
    seen = {call.base}
    pending = [call.base]
    for _ in range(3 if deep else 1):
        calls = []
        for c in script.commands:
            if c.function not in pending or c.subshell or c.background or c.apart:
                continue
            defined = script.functions[c.function]  # (its last definition: not an earlier one)
            if not defined.start_byte <= c.node.start_byte < defined.end_byte:
                continue
            if deep and any(script.reads_arguments(g) for g in c.guards):
                continue  # (`case "$1" in -h) ... exit`: the call's arguments decide: not known)
            if c.base == "exit":
                found.append(c)
            elif c.base in script.functions and c.base not in seen:
                seen.add(c.base)
                calls.append(c.base)
        pending = calls
        if not pending:
            break
    found.sort(key=lambda c: c.node.start_byte)
    script.memo[key] = found
    return found


# an arithmetic command whose value is a variable's before a step (`(( n++ ))`, `((i--))`,
# `(( a = 1, n++ ))`): its status is 1 when that was 0
_POST_STEP = lazy_compile(r"\(\((?:[^()]*,)?\s*[A-Za-z_][A-Za-z0-9_]*\s*(?:\+\+|--)\s*\)\)")
# a command substitution (`$(` not opening `$((` arithmetic, or a backquote)
_SUBSTITUTION = lazy_compile(r"\$\((?!\()|`")
# a substitution of a command that cannot fail: `date` with a format or `-u` only, `hostname`
# (not `whoami`, `id -un`: a user ID with no name, a container's `--user 1000`, fails them;
# nor `date -Ibogus`: t75a)
_QUIET_SUBSTITUTION = lazy_compile(
    r"\$\(\s*(?:date(?:\s+(?:-u|--utc|\+(?:\"[^\"$`\\]*\"|'[^']*'|[^\s\"'$`()]+)))*"
    r"|hostname)\s*\)"
)
# `${X:?message}`, `${X?}`: an error where X is unset (or empty)
_CHECKED = lazy_compile(r"\$\{#?[A-Za-z_0-9@*]+:?\?")
# the expansion of a name or a positional parameter (`$X`, `${X:-}`, `$1`)
_NAMED = lazy_compile(r"\$\{?(?:[A-Za-z_]|[1-9])")
# `set -u`, `set -euo pipefail`, `set -o nounset`, a `#!` line's `-u`
_NOUNSET = lazy_compile(r"\bset\s+(?:-[A-Za-z]*u|-o\s+nounset)|^#!.*\s-[A-Za-z]*u", re.M)


def may_set_nounset(text: str) -> bool:
    """Whether a script's text may turn on `set -u` (a `set` line or its `#!` line's `-u`)."""
    return _NOUNSET.search(text) is not None


# `let "N = 3"`: its status is 1 only when the last value is 0
_NONZERO_LET = lazy_compile(r"\s*[A-Za-z_]\w*\s*=\s*-?[1-9][0-9]*\s*")


def _true_let(command: Command) -> bool:
    """A `let` whose last argument sets a nonzero literal: its status is 0."""
    args = command.args
    return (
        command.base == "let"
        and bool(args)
        and args[-1].static
        and _NONZERO_LET.fullmatch(args[-1].value) is not None
    )


@dataclass(frozen=True)
class Trap:
    """A `trap` command: a handler for the signals, or (`trap - EXIT`, `trap '' EXIT`) none;
    either replaces the handler an earlier `trap` set for them."""

    command: Command
    action: str  # the handler's text with the functions it calls: `parts` joined
    signals: tuple[str, ...]
    # the handler's own text (a function name resolved to its body), then each body it calls
    parts: tuple[str, ...] = ()

    @property
    def expanded_now(self) -> frozenset[str]:
        """The variables the handler's own text expands when `trap` runs, not when the handler
        does (`trap "kill $PID" EXIT`: the PID as it is then)."""
        words = self.command.trap_args
        if not words or words[0].node.type == "raw_string":
            return frozenset()
        return frozenset(read.name for read in words[0].reads())

    @property
    def on_exit(self) -> bool:
        return any(s.upper() in _EXIT_SIGNALS for s in self.signals)


# a word that may be a call of one of the script's functions (not `$name`, `${name}`, `a-name`)
_CALLED = lazy_compile(r"(?<![\w$\-{/.])([A-Za-z_][A-Za-z0-9_]*)(?![\w\-/.=])")


def calls_in(text: str) -> Iterator[tuple[str, str]]:
    """The words of a handler's text that may call a function, each with the rest of its
    command (its arguments, up to `;`, `&`, `|` or the line's end)."""
    for match in _CALLED.finditer(text):
        rest = _REST.match(text, match.end())
        yield match.group(1), rest.group(0) if rest else ""


_REST = lazy_compile(r"[^;&|\n]*")

# where a function the shell may call is defined: the script, or a file it sources
Functions = Callable[[str], Script | None]


class Flow:
    def __init__(
        self,
        script: Script,
        sourced: bool | Callable[[], bool] = False,
        functions: Functions | None = None,
        function: str | None = None,
        errexit: bool = True,
        sourcing: Callable[[Command], bool | None] | None = None,
        inherited: Callable[[], bool] | None = None,
    ) -> None:
        """`sourced`: whether the file is sourced (`return` ends it), or how to find out (asked
        only when a `return` is met: finding out can mean reading other scripts). `functions`:
        where a function a trap's handler calls is defined (default: the script's own).
        `function`: the flow of that function's body instead of the script's top level (its
        `return` ends only the function); `errexit`: whether `set -e` holds where it runs (a
        function called in a test, or before `||`, runs without it), until a `set` in its body
        changes it. `sourcing`: the errexit state a `source` statement leaves (a library that
        runs `set -euo pipefail`), or None when the file it sources does not change it.
        `inherited`: whether `set -e` holds where the file's top level starts (every way in
        sources it in a shell that has it on), asked only where no `set` of its own decides."""
        self.script = script
        self._sourced = sourced
        self._functions = functions
        self.function = function
        self._errexit = errexit
        # the shell's own statements: not inside (other) functions, subshells or substitutions
        self.statements = [
            c
            for c in script.commands
            if c.function == function and not c.subshell and (c.words or c.assignments)
        ]
        self._index = {id(c): i for i, c in enumerate(self.statements)}
        # where the body sets errexit itself (`run() { set -e; ... }`): from there on, the
        # model's own state holds, not the caller's
        self._sets_errexit = (
            next(
                (
                    c.node.start_byte
                    for c, _ in script.errexit_sets()
                    if c.function == function and not c.subshell
                ),
                None,
            )
            if function is not None
            else None
        )
        self._positions: dict[int, int] | None = None  # every command's place in the script
        self._quiet: dict[str, bool] = {}
        self._bodies: dict[str, list[Command]] | None = None
        self._traps_in: dict[str, list[Command]] | None = None
        self._groups: dict[int, list[Command]] | None = None
        self._sourcing = sourcing
        self._inherited: bool | Callable[[], bool] | None = inherited
        self._errexit_events: tuple[list[int], list[tuple[int, bool]]] | None = None
        self._nounset: bool | None = None

    @property
    def sourced(self) -> bool:
        if callable(self._sourced):
            self._sourced = self._sourced()
        return self._sourced

    def index(self, command: Command) -> int | None:
        return self._index.get(id(command))

    def place_of(self, command: Command) -> int:
        """The index of the statement that runs the command; for one in a subshell (`( run
        )`), of the first statement after it."""
        statement = self.statement_of(command)
        if statement is not None:
            return self._index[id(statement)]
        start = command.node.start_byte
        return next(
            (i for i, s in enumerate(self.statements) if s.node.start_byte > start),
            len(self.statements),
        )

    def statement_of(self, command: Command) -> Command | None:
        """The statement of this shell that runs `command` (itself, or the one whose command
        substitution holds it: `JOB_ID=$(salloc ...)`)."""
        if id(command) in self._index:
            return command
        start, end = command.node.start_byte, command.node.end_byte
        for statement in self.statements:
            node = statement.node
            if node.start_byte <= start and end <= node.end_byte:
                return statement
        return None

    def exit_path(self, command: Command) -> ExitPath | None:
        base = command.base
        if base == "exit":
            return ExitPath(command, "exit")
        if base == "return" and self.function is None and self.sourced:
            return ExitPath(command, "return")
        if command.words:
            can_fail = (
                base not in _CANNOT_FAIL
                and not _pipe_filter(command)
                and not _cannot_fail_reading(command)
                and not _loop_control(command)
                and not _true_let(command)
                and not self._quiet_function(base)
            )
        else:
            can_fail = self._assignment_fails(command)
        if (
            self.errexit_at(command)
            and (not command.tested or (command.piped and command.pipefail))
            and not command.or_guarded
            and can_fail
            and not command.background
        ):
            return ExitPath(command, "errexit")
        if not (command.background or command.apart) and function_exits(command, deep=True):
            # (`[ -f x ] || die "no x"`, `check || rc=$?` whose body calls `die`: the `exit`
            # in the body ends the script, tested or not, with or without `set -e`)
            return ExitPath(command, "exit")
        return None

    def errexit_at(self, command: Command) -> bool:
        """Whether `set -e` holds at a statement: the model's state (the `set` commands before
        it in the text); in a function's body, the caller's until the body sets it."""
        if self.function is None:
            return self._top_errexit(command) and self._errexit
        if self._sets_errexit is not None and self._sets_errexit < command.node.start_byte:
            return command.errexit
        return self._errexit

    def _top_errexit(self, command: Command) -> bool:
        """The model's errexit state at a command of the top level, unless a file sourced after
        the script's last `set` before it changed it, or a call of a function whose body
        changes it for good (`f() { set +e; ...; }`, no `local -`: errexit stays off after)."""
        if self._errexit_events is None:
            own = [c.node.start_byte for c, _ in self.script.errexit_sets()]
            sourced = []
            functions = self.script.functions
            for statement in self.statements:
                state: bool | None = None
                if statement.base in ("source", ".") and self._sourcing is not None:
                    state = self._sourcing(statement)
                elif statement.base in functions and not statement.guards and not statement.loops:
                    state = self._leaves_errexit(statement.base)
                if state is not None:
                    sourced.append((statement.node.end_byte, state))
            self._errexit_events = (own, sourced)
        own, sourced = self._errexit_events
        at = command.node.start_byte
        last_own = max((p for p in own if p < at), default=-1)
        last_sourced = max(((p, v) for p, v in sourced if p <= at), default=None)
        if last_sourced is not None and last_sourced[0] > last_own:
            return last_sourced[1]
        if last_own < 0 and not command.errexit and self._inherited is not None:
            # (no `set` of the file's own before it: the state of the shell that sourced it)
            if callable(self._inherited):
                self._inherited = self._inherited()
            return bool(self._inherited)
        return command.errexit

    def _leaves_errexit(self, function: str | None) -> bool | None:
        """The errexit state a function's body leaves set when it returns: its last `set` of
        errexit that always runs (not under a condition or in a loop); None where it sets none,
        or restores the caller's options when it returns (`local -`)."""
        if function is None:
            return None
        sets = [
            on
            for c, on in self.script.errexit_sets()
            if c.function == function and not c.subshell and not c.guards and not c.loops
        ]
        if not sets:
            return None
        body = self.script.body(function)
        if any(c.base == "local" and any(w.value == "-" for w in c.args) for c in body):
            return None
        return sets[-1]

    def _quiet_function(self, name: str | None) -> bool:
        """A function of the script every command of whose body cannot fail (`log() { echo
        "[$(date +%T)] $*"; }`): calling it cannot stop the script."""
        if name is None or name not in self.script.functions:
            return False
        known = self._quiet.get(name)
        if known is None:
            if self._bodies is None:  # every function's commands, in one pass
                self._bodies = {}
                for c in self.script.commands:
                    if c.function is not None:
                        self._bodies.setdefault(c.function, []).append(c)
            body = self._bodies.get(name, [])
            outer = [c for c in body if not c.subshell]
            off = self._errexit_off_in(name)

            def within_outer(c: Command) -> bool:  # a substitution's command (`echo "$(date)"`)
                start, end = c.node.start_byte, c.node.end_byte
                return any(o.node.start_byte <= start and end <= o.node.end_byte for o in outer)

            known = self._quiet[name] = (
                bool(outer)
                and not self._last_may_fail(outer)
                and all(
                    (
                        (
                            c.base in _CANNOT_FAIL
                            and not _CHECKED.search(self.script.text_of(c.node))
                        )
                        or c.tested
                        or c.or_guarded
                        or (not c.words and not self._assignment_may_fail(c))
                        or _returns_success(self.script, c)
                        # (`set +e; curl ...; set -e`: it stops nothing; a last command after
                        # `set +e` fails the call where errexit is off, so nothing stops either;
                        # but an expansion's error ends the shell, errexit or not: `${X:?}`, an
                        # unset name under `set -u`)
                        or (off(c) and not self._expansion_may_fail(c))
                    )
                    if not c.subshell
                    else within_outer(c)
                    for c in body
                    if c.words or not c.subshell
                )
            )
        return known

    def _last_may_fail(self, body: list[Command]) -> bool:
        """Whether the body's last statement, whose status is the call's, may fail where each of
        its commands alone cannot stop the script: a list whose first part is tested (`[ -n
        "$c" ] && return` ends the call with the test's 1), not one that ends `|| echo ...`;
        `! cmd`. (Where errexit is off at it, the call's status stops nothing.)"""
        final = body[-1]
        if not (final.guards or final.tested or final.or_guarded):
            return False  # (its last command runs under no `&&`, `||` or `!`: no tree needed)
        node: Node | None = self.script.syntax(final.node)
        while node is not None and node.parent is not None:
            around = node.parent.parent  # (the function whose body `{ }` holds the statement)
            kind = around.type if around is not None else ""
            if node.parent.type == "compound_statement" and kind == "function_definition":
                break
            node = node.parent
        if node is None or node.parent is None:
            return True
        last = node.parent.named_children[-1] if node.parent.named_children else node
        while last.type == "comment" and last.prev_named_sibling is not None:
            last = last.prev_named_sibling
        if last.type not in ("list", "negated_command"):
            return False
        if self._errexit_off_in(final.function or "")(final):
            return False
        return not _succeeded(self.script, last)

    def _errexit_off_in(self, function: str) -> Callable[[Command], bool]:
        """Whether a `set +e` of the function's own body, not turned back on by a later one,
        comes before a command of the body and runs wherever it does: under the same
        conditions or fewer, in the same loops or fewer (`set +e; code=$(curl ...); set -e` in a
        loop's body; not one under an `if` the command is not under)."""
        sets = [
            (c, on)
            for c, on in self.script.errexit_sets()
            if c.function == function and not c.subshell
        ]
        if not sets:
            return lambda c: False

        def off(command: Command) -> bool:
            at = command.node.start_byte
            for setter, on in reversed(sets):
                if setter.node.start_byte < at and _runs_with(setter, command):
                    return not on
            return False

        return off

    def _expansion_may_fail(self, command: Command) -> bool:
        """Whether an expansion in the command may be an error, which ends a non-interactive
        shell with or without errexit: a `${X:?}`, or any where the script may turn on
        `set -u`."""
        text = self.script.text_of(command.node)
        if "$" not in text:
            return False
        if _CHECKED.search(text):
            return True
        # (not `$*`, `$@`, `$?`: never unset; a name inside `$((...))` is read bare)
        named = _NAMED.search(text) is not None or "$((" in text
        return named and self._nounset_anywhere()

    def _assignment_may_fail(self, command: Command) -> bool:
        """Whether a plain assignment (no words) of a function's body can fail: one with a
        command substitution (not one of a command that cannot fail: `$(date +%T)`), a
        `${X:?}`, or any expansion where the script may turn on `set -u` (`X=$Y`: unset Y); not
        `X=""`, nor `X=$Y` or `N=$((N - 1))` otherwise (an unset name is empty, or 0 in
        arithmetic)."""
        text = self.script.text_of(command.node)
        if any(a.kind in ("for", "arithmetic") for a in command.assignments):
            return self._assignment_fails(command)
        text = _QUIET_SUBSTITUTION.sub("", text)  # (`ts=$(date +%T)`: it cannot fail, t74b)
        if "$" not in text and "`" not in text:
            return False
        if _SUBSTITUTION.search(text) or _CHECKED.search(text):
            return True
        # (any other expansion fails only on an unset name, under `set -u`)
        return self._nounset_anywhere()

    def _nounset_anywhere(self) -> bool:
        """Whether the file may turn on `set -u` anywhere (read once per flow)."""
        if self._nounset is None:
            self._nounset = may_set_nounset(self.script.top.file.text)
        return self._nounset

    def _assignment_fails(self, command: Command) -> bool:
        """Whether a command with no words (assignments, a `for`, an arithmetic command) can
        fail."""
        text = self.script.text_of(command.node)
        if any(a.kind in ("for", "arithmetic") for a in command.assignments):
            # `for i in $(seq 1 3)`: a failing substitution in the list stops nothing (the
            # loop's status is its body's); `(( n = ... ))`: its value decides, not modelled,
            # but `(( n++ ))` is worth the old value: a count from 0 fails on its first step
            return _POST_STEP.fullmatch(text) is not None and not _counted_down(
                self.script, command
            )
        # `X=$(cmd)` fails when the substitution does (`$((...))` is arithmetic); `X=""` cannot
        return _SUBSTITUTION.search(text) is not None and self._substitution_fails(command)

    def _substitution_fails(self, command: Command) -> bool:
        """Whether an assignment's substitutions can give it a failing status. bash runs a
        substitution without errexit (`set -e; x=$(false; echo 1)` goes on), so its status is
        its last command's, or a command's tested before it (`$(a && b)`: a's), and a call of a
        function of the script gives the function's last command's (`x=$(start_worker)` whose
        body ends with `echo "$pid"` cannot fail). With `shopt -s inherit_errexit`, POSIX mode
        or a shell other than bash, errexit holds inside too: any command of it that can fail
        (`$(cmd || true)` cannot)."""
        inner = self._substituted(command)
        if inner == [command]:
            return True  # (no command seen in it)
        if self._errexit_inherited(command):
            return any(
                c.base not in _CANNOT_FAIL
                and not c.or_guarded
                and not (c.piped and not c.pipefail)
                and not _pipe_filter(c)
                for c in inner
            )
        top = _outermost(inner)
        return self._status_fails(top[-1]) or any(
            _counts(c) and self._status_fails(c) for c in top[:-1]
        )

    def _status_fails(self, command: Command, depth: int = 0) -> bool:
        """Whether a command run without errexit can end with a failing status."""
        if command.or_guarded or command.background:
            return False
        base = command.base
        if (
            base in _CANNOT_FAIL
            or _pipe_filter(command)
            or _cannot_fail_reading(command)
            or _loop_control(command)
            or _true_let(command)
        ):
            return False
        if base is None or base not in self.script.functions or depth > 2:
            return True
        body = [c for c in self.script.commands if c.function == base and c.words]
        if not body or any(_may_return_failure(c) for c in body):
            return True
        top = _outermost(body)
        last = top[-1]
        if last.subshell and not last.background:
            return True  # (`( cmd )` last: cmd's status)
        return self._status_fails(last, depth + 1) or any(
            _counts(c) and not c.subshell and self._status_fails(c, depth + 1) for c in top[:-1]
        )

    def _errexit_inherited(self, command: Command) -> bool:
        """Whether command substitutions run with errexit too where the command runs: `shopt -s
        inherit_errexit` or `set -o posix` before it, POSIXLY_CORRECT set, or a `#!` line that
        names another shell (`#!/bin/sh`: dash). (A comment that names the option is not it.)"""
        script = self.script.top
        first = script.file.line_text(1)
        if first.startswith("#!") and "bash" not in first:
            return True
        if script.mentions("POSIXLY_CORRECT"):
            return True
        if not (script.mentions("inherit_errexit") or script.mentions("posix")):
            return False
        at = command.node.start_byte if command.script is script else len(script.src)
        return any(
            c.node.start_byte < at and _turns_on_inherit(c) for c in script.commands if c.words
        )

    def _substituted(self, command: Command) -> list[Command]:
        """The commands of the substitutions in an assignment (`X=$(date +%s)`: `date`), which
        the model lists right after the assignment; the assignment itself when it saw none
        (taken as able to fail)."""
        if self._positions is None:
            self._positions = {id(c): i for i, c in enumerate(self.script.commands)}
        commands = self.script.commands
        end = command.node.end_byte
        inner = []
        for c in commands[self._positions[id(command)] + 1 :]:
            if c.node.start_byte >= end:
                break
            if c.words:
                inner.append(c)
        return inner or [command]

    def exits_between(self, start: int, end: int | None) -> list[ExitPath]:
        """Exit paths strictly after statement `start` and before `end` (None: to the end): of
        the statements, and of the subshells between them (`( cd x && make )`)."""
        stop = len(self.statements) if end is None else end
        grouped = self._grouped()
        found = []
        for i in range(start + 1, stop + 1):
            for command in grouped.get(i, ()):
                path = self._subshell_exit(command)
                if path is not None:
                    found.append(path)
            if i < stop:
                path = self.exit_path(self.statements[i])
                if path is not None:
                    found.append(path)
        return found

    def _grouped(self) -> dict[int, list[Command]]:
        """The commands of this shell's subshells (`( ... )`, not a substitution inside a
        statement), by the index of the statement after them."""
        if self._groups is None:
            self._groups = {}
            for command in self.script.commands:
                if not command.subshell or command.function != self.function or not command.words:
                    continue
                if self.statement_of(command) is not None:
                    continue  # (inside a statement: a substitution's, `out=$(cmd) || rc=$?`)
                self._groups.setdefault(self.place_of(command), []).append(command)
        return self._groups

    def _subshell_exit(self, command: Command) -> ExitPath | None:
        """A command of a subshell that ends it with a failure under `set -e` (its `exit N`, or
        a command that fails): the subshell fails, and `set -e` ends this shell too."""
        if command.background:  # (`( sleep 600; kill "$PID"; exit 1 ) &`: apart from this one)
            return None
        if command.base == "exit":
            if not _may_return_failure(command):
                return None
            tested = command.tested or command.or_guarded
            return ExitPath(command, "errexit") if self.errexit_at(command) and not tested else None
        path = self.exit_path(command)
        return path if path is not None and path.kind == "errexit" else None

    def traps(self) -> list[tuple[int, Trap]]:
        """Every `trap ACTION SIGNALS...` of this shell with its statement index: at the top
        level, or in the body of a function a top-level statement calls (`install_traps`)."""
        found = []
        for i, command in enumerate(self.statements):
            if command.base == "trap":
                trap = self.trap_of(command)
                if trap is not None:
                    found.append((i, trap))
            elif command.base is not None and command.base in self.script.functions:
                for inner in self._function_traps().get(command.base, ()):
                    trap = self.trap_of(inner)
                    if trap is not None:
                        found.append((i, trap))
        return found

    def _function_traps(self) -> dict[str, list[Command]]:
        """The `trap` commands of each function's body, found in one pass."""
        if self._traps_in is None:
            self._traps_in = {}
            for c in self.script.commands:
                if c.function is not None and c.base == "trap":
                    self._traps_in.setdefault(c.function, []).append(c)
        return self._traps_in

    def trap_of(self, command: Command) -> Trap | None:
        """The `trap` command read as this shell reads it (None: it sets no handler)."""
        args = [w.value for w in command.trap_args]  # (`trap -- 'handler' EXIT` too)
        if not args or args[0] in ("-l", "-p"):
            return None
        if args[0] == "-":  # `trap - EXIT`: the signals' handlers are reset (to none for EXIT)
            return Trap(command, "", tuple(args[1:]), ())
        parts = self._handler_parts(args[0])
        return Trap(command, "\n".join(parts), tuple(args[1:]), parts)

    def defined(self, name: str) -> Script | None:
        """Where a function the shell may call is defined: the script, or a file it sources."""
        script = self.script
        if self._functions is None:
            return script if name in script.functions else None
        return self._functions(name)

    def _handler_parts(self, action: str) -> tuple[str, ...]:
        """What the handler runs: its text (a function's body for `trap cleanup EXIT`), and the
        body of each function it calls (`trap 'rc=$?; cleanup; exit $rc' EXIT`), of the script
        or of a file it sources (see `functions`), and of the functions those call, three
        calls deep."""
        script = self.script
        lookup = self._functions or (lambda name: script if name in script.functions else None)
        name = action.strip()
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            where = lookup(name)
            if where is not None:
                action = where.text_of(where.functions[name])
        parts, level, seen = [action], [action], {name}
        for _ in range(3):
            found = []
            for text in level:
                for called, _ in calls_in(text):
                    where = lookup(called) if called not in seen else None
                    if where is not None and called in where.functions:
                        seen.add(called)
                        found.append(where.text_of(where.functions[called]))
            parts.extend(found)
            level = found
        return tuple(parts)
