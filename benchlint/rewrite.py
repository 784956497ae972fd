"""Simulated edits of a recipe: the `sed` subset launchers use, appends, and `yq -i` assignments.

Nothing is executed. A sed script is parsed and run line by line in Python, its regular
expressions translated from POSIX BRE/ERE and matched by the `regex` module with a timeout, so a
pathological expression taken from a script cannot hang benchlint: it becomes a `RewriteError`
(reported as a note), as does any construct outside the subset.

Supported: addresses (line numbers, `$`, `/re/`, `\\cREc`, ranges, `!`), `{ ... }` groups, and the
commands `s` (any delimiter; flags g, N, I, M, p, w ignored), `d`, `a`, `i`, `c`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from benchlint.lazyre import lazy_compile

if TYPE_CHECKING:  # imported when a sed expression is first compiled: most runs need none
    import regex

MATCH_TIMEOUT = 0.25  # seconds for one regular-expression call
MAX_TEXT = 2_000_000  # characters of recipe text a simulation accepts
MAX_COMMANDS = 200
PLACEHOLDER = lazy_compile(r"\$\{[^}]*\}|\$\((?:[^()]|\([^()]*\))*\)|\$[A-Za-z_][A-Za-z0-9_]*")


class RewriteError(Exception):
    """A rewrite benchlint cannot simulate; the message says why."""


@dataclass
class Address:
    kind: str  # "line" | "last" | "regex"
    line: int = 0
    pattern: regex.Pattern[str] | None = None


@dataclass(eq=False)
class SedCommand:
    op: str  # s d a i c {
    first: Address | None = None
    second: Address | None = None
    negate: bool = False
    pattern: regex.Pattern[str] | None = None
    replacement: list[str | int] = field(default_factory=list)  # text, or group number
    count: int = 1  # 0: every match (g)
    text: str = ""
    children: list[SedCommand] = field(default_factory=list)
    active: bool = False  # inside its range
    closed: bool = False  # a range from a line number that has ended: it does not open again
    # `pattern` over a whole text, `^` and `$` at every line (see _changed_lines)
    _over_lines: regex.Pattern[str] | None = field(default=None, repr=False)

    def over_lines(self) -> regex.Pattern[str]:
        if self._over_lines is None:
            import regex

            assert self.pattern is not None
            # lines hold no newline: without DOTALL a match cannot run over into the next one
            flags = (self.pattern.flags | regex.MULTILINE) & ~regex.DOTALL
            self._over_lines = regex.compile(self.pattern.pattern.replace(END, "$"), flags)
        return self._over_lines


# -- regular expressions ---------------------------------------------------------------------
# sed's `$` without the M flag: the end of the pattern space only, not before a newline in it
# (`s/x/\n/` puts one there), as Python's `$` also matches; `over_lines` turns it back into `$`.
END = r"(?:$(?!\n))"


def translate(expression: str, extended: bool) -> str:
    """A POSIX BRE (or ERE) as a pattern for the `regex` module."""
    out: list[str] = []
    i = 0
    n = len(expression)
    while i < n:
        ch = expression[i]
        if ch == "[":
            end = bracket_end(expression, i)
            body = _bracket_escapes(expression[i + 1 : end]).replace("\\", "\\\\")
            out.append("[" + body + "]")
            i = end + 1
            continue
        if ch == "\\" and i + 1 < n:
            nxt = expression[i + 1]
            i += 2
            if nxt in "<>":
                out.append(r"\b(?=\w)" if nxt == "<" else r"\b(?<=\w)")
            elif nxt == "n":
                out.append(r"\n")
            elif nxt == "t":
                out.append(r"\t")
            elif nxt.isdigit() or nxt in "wWsSbB":
                out.append("\\" + nxt)
            elif not extended and nxt in "(){}+?|":
                out.append(nxt)
            else:
                out.append(re.escape(nxt))
            continue
        if not extended and ch in "(){}+?|":
            out.append("\\" + ch)
        elif ch == "*" and (not out or out[-1] in ("^", "(", "|")):
            out.append(r"\*")
        elif ch == "$":
            out.append(END)
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _bracket_escapes(body: str) -> str:
    """GNU sed reads `\t` and `\n` in a bracket expression as TAB and newline (it converts
    them before compiling the expression); any other backslash stays a backslash."""
    out: list[str] = []
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            pair = body[i + 1]
            out.append({"t": "\t", "n": "\n"}.get(pair, "\\" + pair))
            i += 2
            continue
        out.append(body[i])
        i += 1
    return "".join(out)


def bracket_end(expression: str, start: int) -> int:
    i = start + 1
    if i < len(expression) and expression[i] == "^":
        i += 1
    if i < len(expression) and expression[i] == "]":
        i += 1
    while i < len(expression):
        if expression.startswith("[:", i):
            close = expression.find(":]", i + 2)
            i = close + 2 if close >= 0 else i + 1
            continue
        if expression[i] == "]":
            return i
        i += 1
    raise RewriteError(f"unterminated bracket expression in {expression!r}")


_DUP_MAX = 32767  # RE_DUP_MAX of GNU's regex library
_COUNTS = lazy_compile(r"(?<!\\)\{(\d+)(?:,(\d*))?\}")


def compile_pattern(expression: str, extended: bool, flags: str = "") -> regex.Pattern[str]:
    if PLACEHOLDER.search(expression):
        raise RewriteError(f"the expression {expression!r} depends on a shell variable")
    import regex

    # `.` matches a newline in the pattern space; POSIX: the leftmost match is the longest
    # (`s/(fp8|fp8_e4m3)/.../` on `fp8_e4m3` takes all of it, as sed does)
    options = regex.V0 | regex.DOTALL | regex.POSIX
    if "I" in flags or "i" in flags:
        options |= regex.IGNORECASE
    translated = translate(expression, extended)
    if any(int(n) > _DUP_MAX for pair in _COUNTS.findall(translated) for n in pair if n):
        # GNU sed: "Regular expression too big"; the launcher fails there
        raise RewriteError(f"sed rejects the expression {expression!r}: a count above {_DUP_MAX}")
    if "M" in flags or "m" in flags:
        options |= regex.MULTILINE
        translated = translated.replace(END, "$")
    try:
        return regex.compile(translated, options)
    except regex.error as exc:
        raise RewriteError(f"cannot read the expression {expression!r}: {exc}") from None


def _replacement(text: str) -> list[str | int]:
    parts: list[str | int] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "&":
            parts.extend(["".join(literal), 0])
            literal = []
        elif ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            i += 1
            if nxt.isdigit():
                parts.extend(["".join(literal), int(nxt)])
                literal = []
            elif nxt in "LUElu":
                raise RewriteError("case conversion in a replacement is not simulated")
            else:
                literal.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
        else:
            literal.append(ch)
        i += 1
    parts.append("".join(literal))
    return [p for p in parts if p != ""]


# -- parsing ---------------------------------------------------------------------------------
class _Reader:
    def __init__(self, script: str, extended: bool) -> None:
        self.s = script
        self.i = 0
        self.extended = extended

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def skip_space(self, newlines: bool = True) -> None:
        while self.peek() and (self.peek() in " \t" or (newlines and self.peek() in "\n;")):
            self.i += 1

    def delimited(self, delimiter: str) -> str:
        out: list[str] = []
        while True:
            ch = self.peek()
            if not ch:
                raise RewriteError("unterminated expression")
            self.i += 1
            if ch == "\\" and self.peek():
                nxt = self.s[self.i]
                self.i += 1
                out.append(nxt if nxt == delimiter else "\\" + nxt)
            elif ch == delimiter:
                return "".join(out)
            elif ch == "\n" and delimiter != "\n":
                out.append("\\n")
            else:
                out.append(ch)

    def address(self) -> Address | None:
        ch = self.peek()
        if ch.isdigit():
            start = self.i
            while self.peek().isdigit():
                self.i += 1
            return Address("line", line=int(self.s[start : self.i]))
        if ch == "$":
            self.i += 1
            return Address("last")
        if ch in ("/", "\\"):
            self.i += 1
            delimiter = "/"
            if ch == "\\":
                delimiter = self.peek()
                self.i += 1
            expression = self.delimited(delimiter)
            flags = ""
            while self.peek() in ("I", "M"):
                flags += self.peek()
                self.i += 1
            return Address("regex", pattern=compile_pattern(expression, self.extended, flags))
        return None

    def text_argument(self) -> str:
        """The text of `a`, `i`, `c`: `a text`, `a\\` newline text, or GNU `a\\text`."""
        if self.peek() == "\\":
            self.i += 1
            if self.peek() == "\n":
                self.i += 1
        else:
            self.skip_space(newlines=False)
        out: list[str] = []
        while self.peek():
            ch = self.s[self.i]
            self.i += 1
            if ch == "\\" and self.peek():
                nxt = self.s[self.i]
                self.i += 1
                out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            elif ch == "\n":
                break
            else:
                out.append(ch)
        return "".join(out)

    def commands(self, nested: bool = False) -> list[SedCommand]:
        found: list[SedCommand] = []
        while True:
            self.skip_space()
            if not self.peek():
                if nested:
                    raise RewriteError("unterminated { group")
                return found
            if self.peek() == "}":
                if not nested:
                    raise RewriteError("unexpected }")
                self.i += 1
                return found
            if len(found) > MAX_COMMANDS:
                raise RewriteError("the sed script is too long to simulate")
            found.append(self.command())

    def command(self) -> SedCommand:
        first = self.address()
        second = None
        if first is not None and self.peek() == ",":
            self.i += 1
            second = self.address()
            if second is None:
                raise RewriteError("this form of address range is not simulated")
            if first.kind == "line" and first.line == 0 and second.kind != "regex":
                raise RewriteError("sed rejects line address 0 outside `0,/re/`")
        elif first is not None and first.kind == "line" and first.line == 0:
            raise RewriteError("sed rejects line address 0 outside `0,/re/`")
        self.skip_space(newlines=False)
        negate = self.peek() == "!"
        if negate:
            self.i += 1
            self.skip_space(newlines=False)
        op = self.peek()
        self.i += 1
        command = SedCommand(op, first, second, negate)
        if op == "{":
            command.children = self.commands(nested=True)
        elif op == "s":
            delimiter = self.peek()
            self.i += 1
            expression = self.delimited(delimiter)
            replacement = self.delimited(delimiter)
            flags = ""
            while self.peek() and self.peek() not in ";\n}":
                flags += self.peek()
                self.i += 1
            flags = flags.strip()
            if "w" in flags:  # `s/a/b/w FILE`: the rest of the line names the file it writes
                flags = flags[: flags.index("w")].strip()
            unknown = set(flags) - set("gIiMm0123456789")
            if unknown:  # `p` prints the line into the edited file again, `e` runs it
                raise RewriteError(f"the s flag {''.join(sorted(unknown))!r} is not simulated")
            if not expression:  # sed's "last regular expression used": decided at run time
                raise RewriteError("an empty expression (the last one used) is not simulated")
            command.pattern = compile_pattern(expression, self.extended, flags)
            command.replacement = _replacement(replacement)
            groups = [p for p in command.replacement if isinstance(p, int)]
            if max(groups, default=0) > command.pattern.groups:
                # GNU sed: "invalid reference \N on `s' command's RHS"; the launcher fails here
                raise RewriteError(f"invalid reference \\{max(groups)} in {replacement!r}")
            digits = "".join(c for c in flags if c.isdigit())
            if digits and "g" in flags:
                raise RewriteError("s///Ng (the Nth match and those after it) is not simulated")
            command.count = 0 if "g" in flags else int(digits or 1)
            if digits and "g" not in flags and int(digits) > 1:
                raise RewriteError("s///N with N > 1 is not simulated")
        elif op in ("a", "i", "c"):
            command.text = self.text_argument()
        elif op == "d":
            pass
        else:
            raise RewriteError(f"the sed command {op!r} is not simulated")
        return command


def parse_sed(script: str, extended: bool = False) -> list[SedCommand]:
    return _Reader(script, extended).commands()


# -- running ---------------------------------------------------------------------------------
def _call(function: Callable[..., object], *args: object, **kwargs: object) -> object:
    try:
        return function(*args, timeout=MATCH_TIMEOUT, **kwargs)
    except TimeoutError:
        raise RewriteError(
            f"a regular expression took longer than {MATCH_TIMEOUT} s; not simulated"
        ) from None


def search(pattern: regex.Pattern[str], line: str) -> bool:
    return _call(pattern.search, line) is not None


def first_match(pattern: regex.Pattern[str], text: str) -> tuple[int, int] | None:
    """Where the pattern first matches in the text (start, end), None where it does not."""
    found = _call(pattern.search, text)
    return None if found is None else found.span()  # type: ignore[attr-defined]


def _matches(address: Address, line: str, number: int, last: bool) -> bool:
    if address.kind == "line":
        return number == address.line
    if address.kind == "last":
        return last
    assert address.pattern is not None
    return search(address.pattern, line)


def _selected(command: SedCommand, line: str, number: int, last: bool) -> bool:
    first, second = command.first, command.second
    if first is None:
        hit = True
    elif second is None:
        hit = _matches(first, line, number, last)
    elif command.active:
        hit = True
        if second.kind == "line":
            hit = number <= second.line  # past its end (that line was skipped): not this one
            command.active = number < second.line
        elif _matches(second, line, number, last):
            command.active = False
        command.closed = not command.active and first.kind == "line"
    else:
        # GNU sed opens a range whose first address is a line number at the first line at or
        # after it that reaches the command (a `d` before it can skip that very line), once
        if first.kind == "line":
            hit = not command.closed and number >= first.line
            if hit and number > first.line and second.kind == "line" and number > second.line:
                hit, command.closed = False, True  # the whole range was skipped
        else:
            hit = _matches(first, line, number, last)
        if hit:
            if second.kind == "line":
                command.active = number < second.line
            else:
                command.active = not (second.kind == "last" and last)
            command.closed = not command.active and first.kind == "line"
    return hit != command.negate


@dataclass
class _Cycle:
    line: str
    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    deleted: bool = False


def _run(commands: list[SedCommand], cycle: _Cycle, number: int, last: bool) -> None:
    for command in commands:
        if cycle.deleted:
            return
        if not _selected(command, cycle.line, number, last):
            continue
        if command.op == "{":
            _run(command.children, cycle, number, last)
        elif command.op == "s":
            cycle.line = _substitute(command, cycle.line)
        elif command.op == "d":
            cycle.deleted = True
        elif command.op == "a":
            cycle.after.append(command.text)
        elif command.op == "i":
            cycle.before.append(command.text)
        elif command.op == "c":
            cycle.deleted = True
            if command.second is None or not command.active:
                cycle.before.append(command.text)


def _substitute(command: SedCommand, line: str) -> str:
    assert command.pattern is not None
    parts = command.replacement
    out: list[str] = []
    position = 0  # where the text not yet copied starts
    done = 0
    pattern = command.pattern
    matches = _call(lambda text, **limit: list(pattern.finditer(text, **limit)), line)
    for match in matches:  # type: ignore[attr-defined]
        start, end = match.span()
        if start == end and start == position and done:
            continue  # GNU sed: no empty match right after the previous match
        out.append(line[position:start])
        out.append("".join(p if isinstance(p, str) else (match.group(p) or "") for p in parts))
        position = end
        done += 1
        if command.count and done == command.count:
            break
    out.append(line[position:])
    return "".join(out)


def _changed_lines(commands: list[SedCommand], text: str) -> dict[int, int] | None:
    """For a script of `s` commands without addresses, the lines it can change, each (numbered
    from 0) with the offset it starts at: a line none of their expressions matches goes through
    unchanged. None when that is not so simple (other commands, or a match over more than one
    line of the text)."""
    if not all(c.op == "s" and c.first is None and not c.negate for c in commands):
        return None
    lines: dict[int, int] = {}
    for command in commands:
        try:
            matches = list(command.over_lines().finditer(text, timeout=MATCH_TIMEOUT))
        except TimeoutError:
            raise RewriteError(
                f"a regular expression took longer than {MATCH_TIMEOUT} s; not simulated"
            ) from None
        for match in matches:
            if "\n" in match.group():
                return None
            start = text.rfind("\n", 0, match.start()) + 1
            lines[text.count("\n", 0, start)] = start
    return lines


def run_sed(commands: list[SedCommand], text: str) -> str:
    if len(text) > MAX_TEXT:
        raise RewriteError("the recipe is too large to simulate")
    for command in _all(commands):
        # `0,/re/`: a range already open at the first line, so /re/ can close it there
        command.active = (
            command.first is not None and command.first.kind == "line" and (command.first.line == 0)
        )
        command.closed = False
    if not text:
        return text  # no line, no cycle: sed writes nothing, not even what `a`/`i` add
    trailing = text.endswith("\n")
    changed = _changed_lines(commands, text)
    if changed is not None:
        return _run_on_lines(commands, text, changed, text.count("\n") + (not trailing))
    lines = text[:-1].split("\n") if trailing else text.split("\n")
    out: list[str] = []  # lines written, each with its newline
    last = len(lines) - 1
    ends_with_last_line = False  # the last thing written is the last input line's text
    for index, line in enumerate(lines):
        cycle = _Cycle(line)
        _run(commands, cycle, index + 1, index == last)
        out.extend(text + "\n" for text in cycle.before)
        if not cycle.deleted:
            out.append(cycle.line + "\n")
        out.extend(text + "\n" for text in cycle.after)
        ends_with_last_line = index == last and not cycle.deleted and not cycle.after
    written = "".join(out)
    # GNU sed leaves out the newline the input lacked when that line is the last thing written
    return written[:-1] if ends_with_last_line and not trailing else written


def _run_on_lines(
    commands: list[SedCommand], text: str, changed: dict[int, int], count: int
) -> str:
    """`run_sed` for a script of `s` commands where only the `changed` lines (of `count`) can
    change: each of those runs through the script, and the text between them is copied as it is
    (its lines and newlines, the last line's lack of one included: what sed writes for them)."""
    out: list[str] = []
    position = 0  # where the text not yet copied starts
    for index in sorted(changed):
        if index >= count:  # (an empty match after the last newline: no line there)
            continue
        start = changed[index]
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        cycle = _Cycle(text[start:end])
        _run(commands, cycle, index + 1, index == count - 1)
        out.append(text[position:start])
        out.append(cycle.line)
        position = end
    out.append(text[position:])
    return "".join(out)


def _all(commands: list[SedCommand]) -> list[SedCommand]:
    found = []
    for command in commands:
        found.append(command)
        found.extend(_all(command.children))
    return found


# -- printf and echo -------------------------------------------------------------------------
def printf_text(format_string: str, args: list[str]) -> str:
    """What `printf FORMAT ARGS...` writes, for the `%s`/`%d` and backslash-escape subset."""
    out: list[str] = []
    remaining = list(args)
    i = 0
    while i < len(format_string):
        ch = format_string[i]
        if ch == "\\" and i + 1 < len(format_string):
            nxt = format_string[i + 1]
            out.append({"n": "\n", "t": "\t", "\\": "\\"}.get(nxt, "\\" + nxt))
            i += 2
            continue
        if ch == "%" and i + 1 < len(format_string):
            spec = re.match(r"%[-+ 0#]*[0-9]*(?:\.[0-9]+)?([sdifgxc%])", format_string[i:])
            if spec is None:
                raise RewriteError(f"printf format {format_string!r} is not simulated")
            if spec.group(1) == "%":
                out.append("%")
            else:
                out.append(remaining.pop(0) if remaining else "")
            i += spec.end()
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def echo_text(args: list[str]) -> str:
    escapes = False
    newline = True
    while args and re.fullmatch(r"-[neE]+", args[0]):
        flags = args.pop(0)
        newline = newline and "n" not in flags
        escapes = "e" in flags
    text = " ".join(args)
    if escapes:
        text = printf_text(text.replace("%", "%%"), [])
    return text + ("\n" if newline else "")
