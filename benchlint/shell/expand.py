"""Expanding a shell word under known variable values, as bash does, or answering "unknown".

A word's source text is read into pieces that remember whether they were quoted: `"dynamo-"*`
is the literal `dynamo-` and a glob `*`; `"$X"` is X's value taken literally, `$X` on the right
of `==` is X's value as a pattern. What is modelled: `$X`, `${X}`, `${X:-w}`, `${X:=w}`,
`${X:+w}`, `${X:?w}` (and their forms without `:` where the value decides), `${#X}`, `${X,,}`,
`${X^^}`, `${X,}`, `${X^}`, and `${X#p}`, `${X##p}`, `${X%p}`, `${X%%p}`. Everything else (command
and arithmetic substitution, `${X/a/b}`, `${X:1:2}`, `${!X}`, arrays, positional parameters,
`$'...'` escapes, a tilde) makes the word unknown: `None`, never a guessed string.

A value of "" stands for "unset or empty": the environments the rules build cannot tell them
apart, so a form whose result differs between the two (`${X-w}`, `${X+w}`) is unknown on "".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import NamedTuple

from benchlint.lazyre import lazy_compile
from benchlint.rewrite import RewriteError, compile_pattern, search

Lookup = Callable[[str], "str | None"]


class Unknown(Exception):
    """The word cannot be expanded statically."""


class Piece(NamedTuple):
    """Part of an expanded word: its text, and whether it was quoted (literal in a pattern)."""

    text: str
    quoted: bool
    from_expansion: bool = False  # an unquoted expansion's value: split and globbed by `[`


class Unset(str):
    """The value of a variable known to be unset: the empty text to every use of it, but not to
    `${X-d}`, `${X=d}`, `${X+w}` and `${X?}`, which tell unset from empty. (A plain "" from a
    lookup is a variable set to the empty text.)"""

    __slots__ = ()


UNSET = Unset()

_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
# operators of `${NAME<op>word}`, longest first
_OPERATORS = (
    ":-",
    ":=",
    ":+",
    ":?",
    "##",
    "%%",
    ",,",
    "^^",
    "-",
    "=",
    "+",
    "?",
    "#",
    "%",
    ",",
    "^",
)


_PLAIN = lazy_compile(r"[^$`\\'\"~]*")  # nothing to expand or unquote
_QUOTED = lazy_compile(r'"([^$`\\"]*)"|\'([^\']*)\'')  # "literal", 'literal'
_VARIABLE = lazy_compile(r'(")?\$(\{)?([A-Za-z_][A-Za-z0-9_]*)(?(2)\})(?(1)")')  # $X "${X}"


def expand(text: str, lookup: Lookup, in_dquote: bool = False) -> list[Piece]:
    """The pieces of a word's source text after parameter expansion and quote removal."""
    if not in_dquote:  # the two shapes most conditions are made of, without the reader
        if _PLAIN.fullmatch(text):
            return [Piece(text, False)] if text else []
        literal = _QUOTED.fullmatch(text)
        if literal is not None:
            inner = literal.group(1) if literal.group(1) is not None else literal.group(2)
            return [Piece(inner, True)] if inner else []
        variable = _VARIABLE.fullmatch(text)
        if variable is not None:
            known = lookup(variable.group(3))
            if known is None:
                raise Unknown(f"${variable.group(3)} is not known")
            quoted = variable.group(1) is not None
            return [Piece(known, quoted, not quoted)]
    return _Reader(text, lookup, in_dquote).pieces()


def value(text: str, lookup: Lookup) -> str | None:
    try:
        return "".join(p.text for p in expand(text, lookup))
    except Unknown:
        return None


def keeps_empty(text: str) -> bool | None:
    """Whether a word, its expansions giving nothing, is still an argument (the empty one): it
    has a quoted part (`"$X"`, `""$X`, `--file="$X"`); bash drops an unquoted word that expands
    to nothing (`$X`, `${X%%:*}`). None when a quote is inside an expansion and none outside
    (`${X:-""}` keeps an empty argument, `${X:+"a"}` with X unset and `$(echo "")` do not; a
    quoted `)` would also end the substitution early here)."""
    depth = 0  # how many expansions (`${`, `$(`) and their brackets the character is in
    inside_quote = False
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == "$" and text[i + 1 : i + 2] in ("{", "("):
            depth += 1
            i += 2
            continue
        if depth:
            if char in "{(":
                depth += 1
            elif char in "})":
                depth -= 1
            elif char in "\"'":  # (the expansion's own, or the word's: not told here)
                inside_quote = True
        elif char == "`":
            end = text.find("`", i + 1)
            end = len(text) if end < 0 else end
            inside_quote = inside_quote or any(q in text[i:end] for q in "\"'")
            i = end + 1
            continue
        elif char in "\"'":
            return True
        i += 1
    return None if inside_quote else False


class _Reader:
    def __init__(self, text: str, lookup: Lookup, in_dquote: bool) -> None:
        self.text = text
        self.lookup = lookup
        self.in_dquote = in_dquote
        self.i = 0
        self.out: list[Piece] = []
        self.run: list[str] = []  # literal text not yet made a piece
        self.run_quoted: bool | None = None

    def add(self, text: str, quoted: bool, from_expansion: bool = False) -> None:
        if not from_expansion and quoted == self.run_quoted:
            self.run.append(text)  # literal text: one piece for a run of it
            return
        self.flush()
        if from_expansion:  # an empty unquoted expansion vanishes from `[ ... ]`: keep it
            self.out.append(Piece(text, quoted, True))
        else:
            self.run, self.run_quoted = [text], quoted

    def flush(self) -> None:
        text = "".join(self.run)
        if text:
            self.out.append(Piece(text, bool(self.run_quoted)))
        self.run, self.run_quoted = [], None

    def pieces(self) -> list[Piece]:
        text = self.text
        if not self.in_dquote and text.startswith("~"):
            raise Unknown("tilde expansion")
        while self.i < len(text):
            ch = text[self.i]
            if ch == "\\":
                nxt = text[self.i + 1 : self.i + 2]
                if self.in_dquote and nxt not in ("$", "`", '"', "\\", "\n"):
                    self.add("\\", True)
                    self.i += 1
                    continue
                if nxt != "\n":
                    self.add(nxt, True)
                self.i += 2
            elif ch == "'" and not self.in_dquote:
                end = text.find("'", self.i + 1)
                if end < 0:
                    raise Unknown("unterminated quote")
                self.add(text[self.i + 1 : end], True)
                self.i = end + 1
            elif ch == '"' and not self.in_dquote:
                end = _closing_dquote(text, self.i + 1)
                inner = _Reader(text[self.i + 1 : end], self.lookup, True).pieces()
                self.flush()
                self.out.extend(inner)
                self.i = end + 1
            elif ch == "`":
                raise Unknown("command substitution")
            elif ch == "$":
                self.dollar()
            else:
                self.add(ch, self.in_dquote)
                self.i += 1
        self.flush()
        return self.out

    def dollar(self) -> None:
        text = self.text
        nxt = text[self.i + 1 : self.i + 2]
        if nxt == "{":
            end = _closing_brace(text, self.i + 2)
            self.add(self.braced(text[self.i + 2 : end]), self.in_dquote, not self.in_dquote)
            self.i = end + 1
            return
        name = _NAME.match(text, self.i + 1)
        if name is not None:
            known = self.lookup(name.group())
            if known is None:
                raise Unknown(f"${name.group()} is not known")
            self.add(known, self.in_dquote, not self.in_dquote)
            self.i = name.end()
            return
        if nxt and (nxt in "({'\"@*#?$!-" or nxt.isdigit()):
            if nxt == '"' and not self.in_dquote:  # $"..." is "..." in the C locale
                self.i += 1
                return
            raise Unknown(f"${nxt} is not modelled")
        self.add("$", self.in_dquote)
        self.i += 1

    def braced(self, body: str) -> str:
        """The value of `${body}`."""
        if body.startswith("#") and _NAME.fullmatch(body[1:]):
            known = self.get(body[1:])
            if not known.isascii():
                raise Unknown("a length in characters of the locale")
            return str(len(known))
        name = _NAME.match(body)
        if name is None:
            raise Unknown(f"${{{body}}} is not modelled")
        rest = body[name.end() :]
        known = self.get(name.group())
        if not rest:
            return known
        op = next((o for o in _OPERATORS if rest.startswith(o)), None)
        if op is None:
            raise Unknown(f"${{{body}}} is not modelled")
        word = rest[len(op) :]
        if op in (":-", ":="):
            return known if known else self.word(word)
        if op == ":+":
            return self.word(word) if known else ""
        if op == ":?":
            if not known:
                raise Unknown("the shell stops at an empty ${X:?}")
            return known
        if op in ("-", "=", "+", "?"):
            if known is UNSET:
                if op == "?":
                    raise Unknown("the shell stops at an unset ${X?}")
                return "" if op == "+" else self.word(word)
            return self.word(word) if op == "+" else known
        if op in (",,", "^^", ",", "^"):
            if word or not known.isascii():
                raise Unknown("case conversion of a pattern or of non-ASCII text")
            if op == ",,":
                return known.lower()
            if op == "^^":
                return known.upper()
            first = known[:1].lower() if op == "," else known[:1].upper()
            return first + known[1:]
        return _trim(known, op, glob_regex(self.pattern_pieces(word)))

    def get(self, name: str) -> str:
        known = self.lookup(name)
        if known is None:
            raise Unknown(f"${name} is not known")
        return known

    def word(self, word: str) -> str:
        if self.in_dquote and ("'" in word or '"' in word):
            raise Unknown("quotes inside a double-quoted ${...}")
        return "".join(p.text for p in _Reader(word, self.lookup, self.in_dquote).pieces())

    def pattern_pieces(self, word: str) -> list[Piece]:
        # inside "${X%...}" the pattern is read as if unquoted (bash), quotes included
        return _Reader(word, self.lookup, False).pieces()


def _closing_dquote(text: str, start: int) -> int:
    i = start
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == '"':
            return i
        if ch == "$" and text[i + 1 : i + 2] in ("{", "("):
            if text[i + 1] == "(":
                raise Unknown("command or arithmetic substitution")
            i = _closing_brace(text, i + 2) + 1
            continue
        if ch == "`":
            raise Unknown("command substitution")
        i += 1
    raise Unknown("unterminated quote")


def _closing_brace(text: str, start: int) -> int:
    """The `}` that ends the expansion whose text starts at `start` (just after `${`): the first
    one outside quotes, a nested `${...}` or `$(...)`, as bash ends it (a `{` before it nests
    nothing: `${K#{a}}` is `${K#{a}` and a `}`; t77a)."""
    i = start
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'":
            end = text.find("'", i + 1)
            if end < 0:
                break
            i = end + 1
            continue
        if ch == '"':
            i = _closing_dquote(text, i + 1) + 1
            continue
        if ch == "$" and text[i + 1 : i + 2] == "{":
            i = _closing_brace(text, i + 2) + 1
            continue
        if ch == "$" and text[i + 1 : i + 2] == "(":
            raise Unknown("command substitution")
        if ch == "}":
            return i
        i += 1
    raise Unknown("unterminated ${")


def _trim(known: str, op: str, pattern: str) -> str:
    """`${X#p}`, `${X##p}`, `${X%p}`, `${X%%p}`: the shortest or longest prefix or suffix."""
    compiled = re.compile(pattern, re.DOTALL)
    cuts = range(len(known) + 1)
    if op.startswith("#"):
        order = cuts if op == "#" else reversed(cuts)
        for n in order:
            if compiled.fullmatch(known[:n]):
                return known[n:]
    else:
        order = reversed(cuts) if op == "%" else cuts
        for n in order:
            if compiled.fullmatch(known[n:]):
                return known[:n]
    return known


# -- patterns --------------------------------------------------------------------------------
_EXTGLOB = lazy_compile(r"[?*+@!]\(")


def glob_regex(pieces: list[Piece]) -> str:
    """A bash pattern (`==` in `[[ ]]`, `case`, `${X%p}`) as a Python regex for `fullmatch`;
    quoted pieces are literal. Raises Unknown for extglob and brackets that quoting splits."""
    return _glob_regex(tuple(pieces))


@functools.lru_cache(maxsize=4096)
def _glob_regex(pieces: tuple[Piece, ...]) -> str:
    out: list[str] = []
    for position, piece in enumerate(pieces):
        if piece.quoted:
            out.append(re.escape(piece.text))
            continue
        text = piece.text
        if _EXTGLOB.search(text):
            raise Unknown("extended glob")
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "*":
                out.append(".*")
            elif ch == "?":
                out.append(".")
            elif ch == "[":
                end = _bracket(text, i)
                if end is None:
                    if "]" in "".join(p.text for p in pieces[position + 1 :]):
                        raise Unknown("a bracket expression split by quoting")
                    out.append(re.escape(ch))
                else:
                    out.append(_bracket_regex(text[i + 1 : end]))
                    i = end
            elif ch == "\\":  # an escape that came from an expansion's value
                i += 1
                out.append(re.escape(text[i : i + 1]))
            else:
                out.append(re.escape(ch))
            i += 1
    return "".join(out)


def _bracket(text: str, start: int) -> int | None:
    i = start + 1
    if i < len(text) and text[i] in "!^":
        i += 1
    if i < len(text) and text[i] == "]":
        i += 1
    while i < len(text):
        if text.startswith("[:", i):
            close = text.find(":]", i + 2)
            if close < 0:
                return None
            i = close + 2
            continue
        if text[i] in "[\\":
            raise Unknown("a bracket expression with [ or \\ inside")
        if text[i] == "]":
            return i
        i += 1
    return None


_CLASSES = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "a-zA-Z0-9",
    "upper": "A-Z",
    "lower": "a-z",
    "space": r" \t\n\r\f\v",
    "xdigit": "0-9A-Fa-f",
    "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
}


def _bracket_regex(body: str) -> str:
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    out = []
    i = 0
    while i < len(body):
        if body.startswith("[:", i):
            close = body.find(":]", i + 2)
            name = body[i + 2 : close]
            if name not in _CLASSES:
                raise Unknown(f"character class {name}")
            out.append(_CLASSES[name])
            i = close + 2
            continue
        ch = body[i]
        if not ch.isascii():
            raise Unknown("a bracket expression with non-ASCII characters")
        if i + 2 < len(body) and body[i + 1] == "-" and body[i + 2] != "]":
            if ord(body[i + 2]) < ord(ch):
                raise Unknown("a reversed range")
            out.append(re.escape(ch) + "-" + re.escape(body[i + 2]))
            i += 3
            continue
        out.append(re.escape(ch))
        i += 1
    return "[" + ("^" if negate else "") + "".join(out) + "]"


def matches(subject: str, pieces: list[Piece]) -> bool | None:
    """`[[ subject == pattern ]]`, `case subject in pattern)`; None when the pattern is not
    modelled or the subject is not ASCII (character classes and ranges follow the locale)."""
    if not subject.isascii():
        return None
    try:
        return re.fullmatch(glob_regex(pieces), subject, re.DOTALL) is not None
    except Unknown:
        return None


# -- [[ =~ ]] --------------------------------------------------------------------------------
_ERE_SPECIAL = set(".[]()*+?{}|^$\\")
_NOT_POSIX = lazy_compile(
    r"\\[A-Za-z0-9]"  # GNU escapes and back-references: their meaning varies
    r"|\(\?"  # Python-only groups
    r"|[*+?}][*+?{]"  # lazy or repeated quantifiers
    r"|\(\)|\(\||\|\||\|\)|^\||\|$"  # empty alternatives
    r"|\[[.=]"  # collating elements, equivalence classes
)
_INTERVAL = lazy_compile(r"\{(?!\d+(,\d*)?\})")


def regex_matches(subject: str, pieces: list[Piece]) -> bool | None:
    """`[[ subject =~ regex ]]` as bash does it: quoted pieces literal, the rest a POSIX ERE
    searched anywhere in the subject. The expression runs under the sed simulation's timeout;
    None for what is not POSIX ERE as glibc reads it, or when it times out."""
    ere = "".join(
        "".join("\\" + c if c in _ERE_SPECIAL else c for c in p.text) if p.quoted else p.text
        for p in pieces
    )
    unquoted = "".join(p.text for p in pieces if not p.quoted)
    if not subject.isascii() or not ere.isascii():
        return None
    if _NOT_POSIX.search(unquoted) or _INTERVAL.search(unquoted):
        return None
    try:
        return search(compile_pattern(ere, extended=True), subject)
    except RewriteError:
        return None
