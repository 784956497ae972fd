"""The value of a shell word as the shell would see it, with each character's offset in the file.

This is the one place that undoes quoting. Expansions stay verbatim (`$VAR`, `$(cmd)`): a nested
script parses them as opaque words, and a word holding one has no static value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from benchlint.lazyre import lazy_compile

if TYPE_CHECKING:
    from tree_sitter import Node


EXPANSIONS = frozenset(
    {
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
    }
)
# Backslash escapes honoured inside double quotes (and unquoted heredoc bodies, without `"`).
_DQ_ESCAPES = frozenset('$`"\\')
_HEREDOC_ESCAPES = frozenset("$`\\")


def unquote(node: Node, src: bytes, char_of: Callable[[int], int]) -> tuple[str, list[int], bool]:
    """(value, file char offset of each value char, static) for a word-like node.

    `char_of` maps a byte offset of `src` to a character offset in the file.
    """
    out: list[str] = []
    offsets: list[int] = []
    static = _collect(node, src, char_of, out, offsets)
    return "".join(out), offsets, static


def _collect(
    node: Node, src: bytes, char_of: Callable[[int], int], out: list[str], offsets: list[int]
) -> bool:
    kind = node.type
    if kind in EXPANSIONS:
        _verbatim(node.start_byte, node.end_byte, src, char_of, out, offsets)
        return False
    if kind == "concatenation":
        static = True
        for child in node.children:
            static = _collect(child, src, char_of, out, offsets) and static
        return static
    if kind == "raw_string":
        _verbatim(node.start_byte + 1, node.end_byte - 1, src, char_of, out, offsets)
        return True
    if kind == "string":
        static = not any(c.type in EXPANSIONS for c in node.children)
        _unescape(node.start_byte + 1, node.end_byte - 1, src, char_of, out, offsets, _DQ_ESCAPES)
        return static
    if kind == "ansi_c_string":
        _ansi_c(node.start_byte + 2, node.end_byte - 1, src, char_of, out, offsets)
        return True
    # word, number, string_content and anything else: unquoted text, `\x` is `x`.
    static = not _has_expansion(node)
    _unescape(node.start_byte, node.end_byte, src, char_of, out, offsets, None)
    return static


class Located(Protocol):
    """Anything that knows where it is in a script's bytes: a node, or the model's `Syn`."""

    @property
    def start_byte(self) -> int: ...

    @property
    def end_byte(self) -> int: ...


def heredoc_body(
    node: Located, src: bytes, char_of: Callable[[int], int], quoted: bool, tabs: bool = False
) -> tuple[str, list[int]]:
    """The text a heredoc feeds to its command; an unquoted delimiter honours `\\$`, `\\\\`.
    `tabs` (`<<-`): each line loses its leading tabs, after an unquoted body's `\\` newline
    joined lines (bash reads it so: the tab after a continuation stays)."""
    out: list[str] = []
    offsets: list[int] = []
    if quoted:
        _verbatim(node.start_byte, node.end_byte, src, char_of, out, offsets)
    else:
        _unescape(node.start_byte, node.end_byte, src, char_of, out, offsets, _HEREDOC_ESCAPES)
    text = "".join(out)
    if not tabs or "\t" not in text:
        return text, offsets
    return _without_leading_tabs(text, offsets)


# A line's leading tabs, which `<<-` strips.
_LINE_TABS = lazy_compile(r"^\t+", re.MULTILINE)


def _without_leading_tabs(text: str, offsets: list[int]) -> tuple[str, list[int]]:
    pieces: list[str] = []
    kept: list[int] = []
    at = 0
    for match in _LINE_TABS.finditer(text):
        pieces.append(text[at : match.start()])
        kept.extend(offsets[at : match.start()])
        at = match.end()
    pieces.append(text[at:])
    kept.extend(offsets[at:])
    return "".join(pieces), kept


def _has_expansion(node: Node) -> bool:
    return any(c.type in EXPANSIONS or _has_expansion(c) for c in node.children)


def _chars(
    start: int, end: int, src: bytes, char_of: Callable[[int], int]
) -> list[tuple[str, int]]:
    """Each char of src[start:end] with its file offset, one at a time: for text whose chars
    do not lie one after the other in the file (`_contiguous` takes the others)."""
    text = src[start:end].decode("utf-8", errors="surrogateescape")
    if text.isascii():  # (a byte per character)
        return list(zip(text, map(char_of, range(start, end)), strict=True))
    result = []
    byte = start
    for ch in text:
        result.append((ch, char_of(byte)))
        byte += 1 if ch.isascii() or "\udc80" <= ch <= "\udcff" else len(ch.encode("utf-8"))
    return result


def _contiguous(
    start: int, end: int, src: bytes, char_of: Callable[[int], int]
) -> tuple[str, int] | None:
    """src[start:end] and the file offset of its first char, when its chars lie one after the
    other in the file (ASCII, not a nested script's string with escapes): the usual case."""
    text = src[start:end].decode("utf-8", errors="surrogateescape")
    if not text:
        return text, 0
    if text.isascii() and char_of(end - 1) - char_of(start) == end - 1 - start:
        return text, char_of(start)
    return None


def _verbatim(
    start: int,
    end: int,
    src: bytes,
    char_of: Callable[[int], int],
    out: list[str],
    offsets: list[int],
) -> None:
    run = _contiguous(start, end, src, char_of)
    if run is not None:
        text, first = run
        out.append(text)
        offsets.extend(range(first, first + len(text)))
        return
    for ch, offset in _chars(start, end, src, char_of):
        out.append(ch)
        offsets.append(offset)


# A backslash and the char it may escape. A backslash never fails to escape another backslash,
# so matching pairs left to right reads the text as the shell does.
_ESCAPE = lazy_compile(r"\\(.)", re.DOTALL)


def _unescape(
    start: int,
    end: int,
    src: bytes,
    char_of: Callable[[int], int],
    out: list[str],
    offsets: list[int],
    escapes: frozenset[str] | None,
) -> None:
    """Drop quoting backslashes. `escapes` None means unquoted context: any char can be escaped."""
    run = _contiguous(start, end, src, char_of)
    if run is not None:
        text, first = run
        kept = 0  # text[:kept] is out
        for match in _ESCAPE.finditer(text):
            nxt = match.group(1)
            if nxt != "\n" and escapes is not None and nxt not in escapes:
                continue  # kept as it is, backslash too
            at = match.start()
            out.append(text[kept:at])
            offsets.extend(range(first + kept, first + at))
            if nxt != "\n":  # a line continuation disappears
                out.append(nxt)
                offsets.append(first + at + 1)
            kept = match.end()
        out.append(text[kept:])
        offsets.extend(range(first + kept, first + len(text)))
        return
    chars = _chars(start, end, src, char_of)
    i = 0
    n = len(chars)
    while i < n:
        ch, offset = chars[i]
        if ch == "\\" and i + 1 < n:
            nxt, next_offset = chars[i + 1]
            if nxt == "\n":  # line continuation disappears
                i += 2
                continue
            if escapes is None or nxt in escapes:
                out.append(nxt)
                offsets.append(next_offset)
                i += 2
                continue
        out.append(ch)
        offsets.append(offset)
        i += 1


# `$'...'`: the escapes bash replaces by one character (`\\'`, `\\"` and `\\?` by themselves)
_ANSI_C = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip
_OCTAL = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}


def _ansi_c(
    start: int,
    end: int,
    src: bytes,
    char_of: Callable[[int], int],
    out: list[str],
    offsets: list[int],
) -> None:
    """The value of a `$'...'` string's text, as bash's `ansicstr` makes it (each character at
    its escape's backslash): the letter escapes (`\\t`, `\\n`, `\\e`), octal `\\nnn` and hex
    `\\xHH`, `\\x{HH}` bytes, `\\uHHHH` and `\\UHHHHHHHH` characters, `\\cX` control characters; an
    escape bash does not know keeps its backslash (`\\q`, a `\\x` with no digit); a NUL ends the
    string (bash's strings are C strings)."""
    if src.find(b"\\", start, end) < 0:
        _verbatim(start, end, src, char_of, out, offsets)
        return
    chars = _chars(start, end, src, char_of)
    i, n = 0, len(chars)
    while i < n:
        c, at = chars[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            offsets.append(at)
            i += 1
            continue
        e = chars[i + 1][0]
        j = i + 2
        if e in _ANSI_C:
            ch = _ANSI_C[e]
        elif e in _OCTAL:  # (at most three digits, `\\0` too)
            value = int(e)
            while j < n and j < i + 4 and chars[j][0] in _OCTAL:
                value = value * 8 + int(chars[j][0])
                j += 1
            ch = _byte(value & 0xFF)
        elif e == "x" and j < n and chars[j][0] == "{":  # (bash 5.2: `\\x{HH...}`, a byte)
            j += 1
            digits = ""
            while j < n and chars[j][0] in _HEX:
                digits += chars[j][0]
                j += 1
            if j < n and chars[j][0] == "}":
                j += 1
            ch = _byte(int(digits or "0", 16) & 0xFF)
        elif e in _HEX_DIGITS:
            digits = ""
            while j < n and chars[j][0] in _HEX and len(digits) < _HEX_DIGITS[e]:
                digits += chars[j][0]
                j += 1
            if not digits:  # (kept as written)
                out += ("\\", e)
                offsets += (at, chars[i + 1][1])
                i = j
                continue
            value = int(digits, 16)
            ch = _byte(value) if e == "x" else _utf8(value)
        elif e == "c" and j < n:  # (the control character of the next byte; `\\c\\\\` of `\\`)
            x = chars[j][0]
            j += 1
            if x == "\\" and j < n and chars[j][0] == "\\":
                j += 1
            first, *rest = x.encode("utf-8", "surrogateescape")
            ch = "\x7f" if x == "?" else chr((ord(x.upper()) if x.isascii() else first) & 0x1F)
            ch += bytes(rest).decode("utf-8", "surrogateescape")
        else:  # (an escape bash does not know: kept, backslash and all)
            out += ("\\", e)
            offsets += (at, chars[i + 1][1])
            i = j
            continue
        if ch.startswith("\0"):  # (the string ends at a NUL)
            return
        out.append(ch)
        offsets.extend([at] * len(ch))
        i = j


def _byte(value: int) -> str:
    """A byte as a character of a value decoded with `surrogateescape`."""
    return chr(value) if value < 0x80 else chr(0xDC00 + value)


# the bytes of a value in UTF-8 as first defined, by the values below each limit
_UTF8_SIZES = ((2, 0x800), (3, 0x10000), (4, 0x200000), (5, 0x4000000), (6, 1 << 31))


def _utf8(value: int) -> str:
    """bash's encoding of a `\\u`/`\\U` value: UTF-8 as first defined, up to six bytes (a
    surrogate or a value past U+10FFFF too, as bytes), nothing past 0x7FFFFFFF."""
    if value < 0x80:
        return chr(value)
    if value >= 1 << 31:
        return ""
    size = next(size for size, limit in _UTF8_SIZES if value < limit)
    tail = [0x80 | (value >> (6 * k)) & 0x3F for k in range(size - 2, -1, -1)]
    lead = (0xFF00 >> size) & 0xFF | value >> (6 * (size - 1))
    return bytes([lead, *tail]).decode("utf-8", "surrogateescape")
