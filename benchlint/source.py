"""A file's text and the one mapping from offsets to (line, column)."""

from __future__ import annotations

import bisect
import hashlib
from array import array
from collections.abc import Callable
from itertools import accumulate

from benchlint.finding import Span
from benchlint.lazyre import lazy_compile


class SourceText:
    """Decoded text of one file. Undecodable bytes survive as surrogate escapes (one char each)."""

    def __init__(self, path: str, data: bytes) -> None:
        self.path = path
        self.text = data.decode("utf-8", errors="surrogateescape")
        self._line_starts: array[int] | None = None
        self._digest: bytes | None = None

    @classmethod
    def of_text(cls, path: str, text: str) -> SourceText:
        """A text already decoded (a recipe as a rewrite leaves it), kept as it is: the caller
        and the source share one string."""
        source = cls.__new__(cls)
        source.path = path
        source.text = text
        source._line_starts = None
        source._digest = None
        return source

    @classmethod
    def stand_in(cls, path: str, digest: bytes) -> SourceText:
        """A file read but not kept (larger than `max-file-size`, not modelled): no text, its
        content hash (what the run cache names it by) kept."""
        source = cls.of_text(path, "")
        source._digest = digest
        return source

    @property
    def line_starts(self) -> array[int]:
        """The offset each line starts at; built on first use, in C (`split`, `accumulate`).
        4-byte entries: a repository's line tables are a good share of the peak memory."""
        if self._line_starts is None:
            lengths = map(len, self.text.split("\n"))
            starts = array("I", accumulate(map((1).__add__, lengths), initial=0))
            starts.pop()  # the start of a line after the last one
            self._line_starts = starts
        return self._line_starts

    @property
    def data(self) -> bytes:
        """The file's bytes (re-encoded exactly: undecodable bytes were kept as escapes)."""
        return self.text.encode("utf-8", errors="surrogateescape")

    @property
    def digest(self) -> bytes:
        """The SHA-256 of the file's bytes, worked out once: what the cache keys the file's facts
        by, and what a stored run checks the file against."""
        if self._digest is None:
            self._digest = content_digest(self.data)
        return self._digest

    def point(self, offset: int) -> tuple[int, int]:
        """Character offset to a 1-based (line, column)."""
        index = bisect.bisect_right(self.line_starts, offset) - 1
        return index + 1, offset - self.line_starts[index] + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.point(start)
        end_line, end_column = self.point(max(end, start))
        return Span(line, column, end_line, end_column)

    def line_text(self, line: int) -> str:
        if line < 1 or line > len(self.line_starts):
            return ""
        start = self.line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    @property
    def line_count(self) -> int:
        return len(self.line_starts)


def content_digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


_NON_ASCII = lazy_compile(r"[^\x00-\x7f]")


def _utf8_width(code: int) -> int:
    if 0xDC80 <= code <= 0xDCFF:  # one undecodable byte, kept as a surrogate escape
        return 1
    return 2 if code < 0x800 else 3 if code < 0x10000 else 4


def char_offsets(text: str) -> Callable[[int], int] | None:
    """Byte offset -> char offset for UTF-8 text (a byte inside a character gives that
    character), or None when the text is ASCII. Only the non-ASCII characters are kept: where
    each one's bytes start and end, and its index; a byte between them is found by bisection.
    (A table of every byte took 4 bytes per byte of the file: 2.9 MiB for InferenceX's 64 files
    with a non-ASCII character, most of them one dash or one arrow in a comment.)"""
    if text.isascii():
        return None
    starts: array[int] = array("I")  # the first byte of each non-ASCII character
    ends: array[int] = array("I")  # the byte after it
    chars: array[int] = array("I")  # its index in the text
    extra = 0  # the bytes beyond one per character before here
    for match in _NON_ASCII.finditer(text):
        index = match.start()
        starts.append(index + extra)
        extra += _utf8_width(ord(text[index])) - 1
        ends.append(index + extra + 1)
        chars.append(index)
    find = bisect.bisect_right

    def char_of(byte: int) -> int:
        k = find(starts, byte) - 1
        if k < 0:
            return byte
        end = ends[k]
        return chars[k] if byte < end else byte - (end - chars[k] - 1)

    return char_of
