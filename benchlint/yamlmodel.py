"""YAML as positioned nodes, with duplicate keys kept as data.

Composes (never constructs) with ruamel.yaml (`yamlparse`, imported when a run first parses
YAML): the C-backed loader first, the pure-Python round-trip composer where the C one rejects
valid YAML 1.2 (a plain scalar with `:` inside a flow mapping, as in `{url: http://head:8000}`).
Mappings keep every pair in order, so a duplicate key is visible to BL203 instead of silently
collapsing; lookups follow PyYAML and take the last value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from sys import intern
from typing import Any, overload

from benchlint.finding import Span
from benchlint.lazyre import lazy_compile
from benchlint.source import SourceText

# Plain scalars as PyYAML's SafeLoader resolves them (YAML 1.1): what srtctl and the sweep
# generator read. `yes`/`on` are booleans, `010` is octal, `1_440` is 1440, `4:00:00` is the
# base-60 integer 14400, `1e3` is a string (1.1 floats need a dot and a signed exponent).
_NULL = lazy_compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
}
_INT = lazy_compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"
)
_FLOAT = lazy_compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)


def _sexagesimal(digits: str) -> float:
    value = 0.0
    for part in digits.split(":"):
        value = value * 60 + float(part)
    return value


def resolve_int(text: str) -> int:
    """An int scalar's value, as PyYAML's construct_yaml_int computes it."""
    value = text.replace("_", "")
    sign = -1 if value[0] == "-" else 1
    if value[0] in "+-":
        value = value[1:]
    if value == "0":
        return 0
    if value.startswith("0b"):
        return sign * int(value[2:], 2)
    if value.startswith("0x"):
        return sign * int(value[2:], 16)
    if ":" in value:
        return sign * int(_sexagesimal(value))
    if value[0] == "0":
        return sign * int(value, 8)
    return sign * int(value)


def resolve_float(text: str) -> float:
    value = text.replace("_", "").lower()
    sign = -1.0 if value[0] == "-" else 1.0
    if value[0] in "+-":
        value = value[1:]
    if value == ".inf":
        return sign * float("inf")
    if value == ".nan":
        return float("nan")
    if ":" in value:
        return sign * _sexagesimal(value)
    return sign * float(value)


class Pairs(Sequence[tuple["YNode", "YNode"]]):
    """A mapping's pairs in order, kept as one flat list of its keys and values (`flat`: key,
    value, key, value...): a tuple per pair took 64 bytes, 7 MiB for InferenceX's 110,000."""

    __slots__ = ("flat",)

    def __init__(self, flat: Sequence[YNode]) -> None:
        self.flat = flat

    def __len__(self) -> int:
        return len(self.flat) >> 1

    def __iter__(self) -> Iterator[tuple[YNode, YNode]]:
        flat = self.flat
        return zip(flat[::2], flat[1::2], strict=True)

    def __reversed__(self) -> Iterator[tuple[YNode, YNode]]:
        flat = self.flat
        return zip(flat[-2::-2], flat[-1::-2], strict=True)

    @overload
    def __getitem__(self, index: int) -> tuple[YNode, YNode]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[YNode, YNode]]: ...
    def __getitem__(self, index: int | slice) -> tuple[YNode, YNode] | list[tuple[YNode, YNode]]:
        if isinstance(index, slice):
            return list(self)[index]
        count = len(self.flat) >> 1
        at = index + count if index < 0 else index
        if not 0 <= at < count:
            raise IndexError(index)
        return self.flat[2 * at], self.flat[2 * at + 1]


_NO_PAIRS = Pairs(())
_NO_ITEMS: tuple[YNode, ...] = ()


# A span is kept as one int (a YAML model holds a few hundred thousand nodes: a tuple of four
# ints each took three times the memory): narrow, 17 bits a line and 13 a column, 60 bits in
# all, where they fit: an int of 32 bytes, where one of 112 bits takes 48 (Python's allocator
# rounds to 16; 3 MiB over InferenceX's YAML); else wide, 28 bits a field (lines and columns
# to 268 million, past any file benchlint reads) under a mark above them.
_LINES, _COLUMNS = 1 << 17, 1 << 13
_FIELD = 28
_MASK = (1 << _FIELD) - 1
_WIDE = 1 << 4 * _FIELD


def _pack(line: int, column: int, end_line: int, end_column: int) -> int:
    if line < _LINES and end_line < _LINES and column < _COLUMNS and end_column < _COLUMNS:
        return ((line << 13 | column) << 17 | end_line) << 13 | end_column
    return _WIDE | (((line << _FIELD | column) << _FIELD | end_line) << _FIELD) | end_column


def _unpack(packed: int) -> tuple[int, int, int, int]:
    if packed >> 60:
        return (
            packed >> 3 * _FIELD & _MASK,
            packed >> 2 * _FIELD & _MASK,
            packed >> _FIELD & _MASK,
            packed & _MASK,
        )
    return packed >> 43, packed >> 30 & 0x1FFF, packed >> 13 & 0x1FFFF, packed & 0x1FFF


_new = object.__new__


class YNode:
    """A mapping, sequence or scalar with its span. `YNode(...)` makes a node of the class for
    its kind, which keeps only its own fields: the others, and the kind itself, are the
    class's (a plain scalar has no slot for a style, a mapping none for items; a repository's
    recipes hold a few hundred thousand nodes, and each slot fewer is 16 bytes fewer in two)."""

    __slots__ = ("_span",)
    _span: int
    kind: str  # "map" | "seq" | "scalar" | "alias" (inside the collection it names)
    value: str = ""  # scalar text (after YAML unquoting); an alias's anchor
    style: str | None = None  # scalar quoting style: None (plain), "'", '"', "|", ">"
    pairs: Pairs = _NO_PAIRS
    items: Sequence[YNode] = _NO_ITEMS

    def __new__(
        cls,
        kind: str,  # "map" | "seq" | "scalar" | "alias" (inside the collection it names)
        span: Span | int,  # a Span, or one packed by _pack
        value: str = "",
        style: str | None = None,
        pairs: Sequence[tuple[YNode, YNode]] = _NO_PAIRS,
        items: Sequence[YNode] = _NO_ITEMS,
    ) -> YNode:
        packed = span if isinstance(span, int) else _pack(*span)
        node: YNode
        if kind == "map":
            node = _new(_Map)
            node.pairs = pairs if isinstance(pairs, Pairs) else Pairs([x for p in pairs for x in p])
        elif kind == "seq":
            node = _new(_Seq)
            node.items = items
        elif kind == "alias":
            node = _new(_Alias)
            node.value = value
        elif style is None:
            node = _new(_Text)
            node.value = value
        else:
            node = _new(_Styled)
            node.value, node.style = value, style
        node._span = packed
        return node

    @property
    def span(self) -> Span:
        return Span(*_unpack(self._span))

    @span.setter
    def span(self, span: Span) -> None:
        self._span = _pack(*span)

    def __repr__(self) -> str:
        return f"YNode({self.kind}, {self.span}, {self.value!r})"

    @property
    def is_map(self) -> bool:
        return self.kind == "map"

    @property
    def is_seq(self) -> bool:
        return self.kind == "seq"

    @property
    def is_scalar(self) -> bool:
        return self.kind == "scalar"

    def get(self, key: str) -> YNode | None:
        """The value for `key` as PyYAML sees it: on a duplicate key the last one; a key of
        the mapping itself before one merged in with `<<: *anchor`."""
        flat = self.pairs.flat
        merges = False
        for i in range(len(flat) - 2, -1, -2):  # the last one wins
            k = flat[i]
            if k.value == key and k.kind == "scalar":
                return flat[i + 1]
            merges = merges or k.value == "<<"
        if not merges:
            return None
        # several `<<` keys: the later one wins (PyYAML up to 6.0.3); in a list, the first
        for k, v in reversed(self.pairs):
            if k.value == "<<" and k.kind == "scalar" and k.style is None:
                for source in [v] if v.kind == "map" else [m for m in v.items if m.kind == "map"]:
                    found = source.get(key)
                    if found is not None:
                        return found
        return None

    def live_pairs(self) -> list[tuple[YNode, YNode]]:
        """The pairs PyYAML keeps: of a scalar key written twice, the last one only."""
        pairs = self.pairs
        if len(pairs) < 2:
            return list(pairs)
        last = {k.value: i for i, (k, _) in enumerate(pairs) if k.kind == "scalar"}
        return [p for i, p in enumerate(pairs) if p[0].kind != "scalar" or last[p[0].value] == i]

    def loaded_pairs(self) -> list[tuple[YNode, YNode]]:
        """The pairs of a mapping as PyYAML loads it: of a key written twice the last, and the
        keys merged in (`<<: *a`) that it does not write itself, each once."""
        own = [(k, v) for k, v in self.live_pairs() if not (k.value == "<<" and k.style is None)]
        if len(own) == len(self.pairs):
            return own
        found = {k.value: (k, v) for k, v in own if k.kind == "scalar"}
        merged: list[tuple[YNode, YNode]] = []
        for k, v in self.pairs:
            if k.value != "<<" or k.kind != "scalar" or k.style is not None:
                continue
            for source in [v] if v.kind == "map" else [m for m in v.items if m.kind == "map"]:
                for key, value in source.loaded_pairs():
                    if key.kind == "scalar" and key.value not in found:
                        kept = self.get(key.value)  # (the merge PyYAML keeps)
                        value = kept if kept is not None else value
                        found[key.value] = (key, value)
                        merged.append((key, value))
        return own + merged

    def key_node(self, key: str) -> YNode | None:
        found = None
        for k, _ in self.pairs:
            if k.is_scalar and k.value == key:
                found = k
        return found

    def path(self, *keys: str) -> YNode | None:
        node: YNode | None = self
        for key in keys:
            if node is None or not node.is_map:
                return None
            node = node.get(key)
        return node

    @property
    def scalar(self) -> Any:
        """The Python value of a scalar as PyYAML's SafeLoader gives it: quoted ones are
        strings, plain ones resolved by YAML 1.1's rules."""
        if not self.is_scalar:
            return None
        text = self.value
        if self.style is not None:
            return text
        if _NULL.match(text):
            return None
        if text in _BOOL:
            return _BOOL[text]
        if _INT.match(text):
            return resolve_int(text)
        if _FLOAT.match(text):
            return resolve_float(text)
        return text

    @property
    def key_identity(self) -> Any:
        """What makes two keys of a mapping one for PyYAML, which builds a Python dict: the
        scalar it reads (`1` and `"1"` are two keys; `yes` and `true`, `1` and `1.0` one)."""
        value = self.scalar
        if isinstance(value, float) and value != value:  # NaN: never equal to itself
            return self.value
        return value

    @property
    def sexagesimal(self) -> bool:
        """A plain scalar PyYAML reads as a base-60 number (`4:00:00` is 14400)."""
        return (
            self.is_scalar
            and self.style is None
            and ":" in self.value
            and (bool(_INT.match(self.value)) or bool(_FLOAT.match(self.value)))
        )


class _Text(YNode):
    """A plain scalar; its subclasses, a quoted or block scalar and an alias."""

    __slots__ = ("value",)
    kind = "scalar"


class _Styled(_Text):
    """A quoted or block scalar."""

    __slots__ = ("style",)


class _Alias(_Text):
    """An alias inside the collection it names (see yamlparse._recursive_alias)."""

    __slots__ = ()
    kind = "alias"


class _Map(YNode):
    """A mapping."""

    __slots__ = ("pairs",)
    kind = "map"


class _Seq(YNode):
    """A sequence."""

    __slots__ = ("items",)
    kind = "seq"


@dataclass(eq=False)
class Duplicate:
    mapping: YNode
    first: YNode  # the first key
    again: YNode  # a later key with the same text
    winner: YNode  # the value PyYAML keeps: the last


class YamlDocument:
    def __init__(
        self, file: SourceText, documents: list[YNode], repeats: list[YNode] | None = None
    ) -> None:
        self.file = file
        self.path = file.path
        self.documents = documents
        # the mappings with a key written twice, when the builder noted them (None: look)
        self._repeats = repeats

    @property
    def root(self) -> YNode | None:
        return self.documents[0] if self.documents else None

    def may_hold(self, *keys: str) -> bool:
        """Whether a key may be in the document: its text holds one as written, or an escape
        (a double-quoted key may spell it `\\x5f`); a document without is not worth a walk."""
        text = self.file.text
        return "\\" in text or any(key in text for key in keys)

    def walk(self) -> Iterator[YNode]:
        return self.nodes(self.documents)

    @staticmethod
    def nodes(documents: list[YNode]) -> Iterator[YNode]:
        """Every node once (an aliased one too), depth first in document order."""
        seen: set[int] = set()
        stack = list(reversed(documents))
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            yield node
            for k, v in reversed(node.pairs):
                stack.extend((v, k))
            stack.extend(reversed(node.items))

    @staticmethod
    def collections(node: YNode) -> Iterator[YNode]:
        """The node and every mapping and sequence under it, each once (aliases share nodes)."""
        seen: set[int] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            if id(current) in seen or current.kind not in ("map", "seq"):
                continue
            seen.add(id(current))
            yield current
            stack.extend(v for _, v in reversed(current.pairs) if not v.is_scalar)
            stack.extend(i for i in reversed(current.items) if not i.is_scalar)

    def duplicates(self, same: Callable[[YNode], Hashable] | None = None) -> Iterator[Duplicate]:
        """The keys written again in a mapping: the same key as PyYAML reads it, or by `same`
        (a scalar key's identity to another reader; NOT_COMPARED: a key it does not compare)."""
        maps = self._repeats if self._repeats is not None and same is None else self.walk()
        for node in maps:
            if not node.is_map:
                continue
            first: dict[Any, YNode] = {}
            last_value: dict[Any, YNode] = {}
            keys = [
                (k, v, k.key_identity if same is None else same(k))
                for k, v in node.pairs
                if k.is_scalar
            ]
            keys = [(k, v, identity) for k, v, identity in keys if identity is not NOT_COMPARED]
            for _, v, identity in keys:
                last_value[identity] = v
            for k, _, identity in keys:
                if identity in first:
                    yield Duplicate(node, first[identity], k, last_value[identity])
                else:
                    first[identity] = k


NOT_COMPARED = object()  # (a key `YamlDocument.duplicates` is told not to compare)


MAX_DEPTH = 200  # deeper than any configuration; keeps every recursive reader safe


class DepthError(ValueError):
    pass


class YamlError(Exception):
    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


def parse_yaml(file: SourceText) -> YamlDocument:
    """Compose every document of the file, or raise YamlError with the problem's position."""
    from benchlint import yamlparse  # (ruamel.yaml: loaded when a run parses YAML)

    return yamlparse.parse(file)


# YAML also ends a line at a lone \r, NEL, U+2028 and U+2029; benchlint's lines end at \n only.
_YAML_ONLY_BREAK = lazy_compile("\r(?!\n)|[\x85\u2028\u2029]")


class _LineMap:
    """YAML's (line, column) to the file's, where the two count lines differently."""

    def __init__(self, file: SourceText) -> None:
        self.file = file
        starts = [0]
        for match in re.finditer("\r\n|[\n\r\x85\u2028\u2029]", file.text):
            starts.append(match.end())
        self.starts = starts

    def point(self, line: int, column: int) -> tuple[int, int]:
        if line > len(self.starts):
            return line, column
        return self.file.point(self.starts[line - 1] + column - 1)

    def span(self, span: Span) -> Span:
        return Span(
            *self.point(span.line, span.column), *self.point(span.end_line, span.end_column)
        )


def _lines_as_files_count_them(documents: list[YNode], file: SourceText) -> list[YNode]:
    text = file.text
    if "\r" not in text and "\x85" not in text and "\u2028" not in text and "\u2029" not in text:
        return documents  # (four scans in C: a regular expression takes 70 times as long)
    if not _YAML_ONLY_BREAK.search(text):
        return documents
    lines = _LineMap(file)
    for node in YamlDocument.nodes(documents):
        node.span = lines.span(node.span)
    return documents


# -- a document as plain data ---------------------------------------------------------------------
# What the per-file step sends from a worker process and the cache keeps: marshal-able data, no
# pickles. A scalar is a tuple (span, value, style); a mapping a list [span, [(k, v), ...]]; a
# sequence a list [span, [item, ...], None]; an alias inside what it names a list [span,
# anchor]; a node met before (an alias) is the int of its place in the order nodes are first met.


def encode_documents(document: YamlDocument) -> tuple[list[Any], list[int] | None]:
    """The document's nodes as plain data, and the places of its mappings with a repeated key
    (None: not noted)."""
    index: dict[int, int] = {}
    documents = [_encode(node, index) for node in document.documents]
    repeats = document._repeats
    return documents, None if repeats is None else [index[id(node)] for node in repeats]


def _encode(node: YNode, index: dict[int, int]) -> Any:
    """`index`: the place of each node met so far, by id. (Module-level functions, not closures
    that call themselves: such a closure is a reference cycle, which would keep every node alive
    after a document is let go, with the cycle collector off for the run.)"""
    known = index.get(id(node))
    if known is not None:
        return known
    index[id(node)] = len(index)
    kind = node.kind
    if kind == "scalar":
        return (node._span, node.value, node.style)
    if kind == "map":
        return [node._span, [(_encode(k, index), _encode(v, index)) for k, v in node.pairs]]
    if kind == "seq":
        return [node._span, [_encode(item, index) for item in node.items], None]
    return [node._span, node.value]


def decode_documents(file: SourceText, encoded: tuple[list[Any], list[int] | None]) -> YamlDocument:
    """The document `encode_documents` gave, over the file's text: the same nodes, spans and
    values, aliased nodes shared as they were."""
    nodes: list[YNode] = []
    documents, repeats = encoded
    decoded = [_decode(data, nodes) for data in documents]
    return YamlDocument(file, decoded, None if repeats is None else [nodes[i] for i in repeats])


def _decode(data: Any, nodes: list[YNode]) -> YNode:
    """`nodes`: every node made so far, in the order `_encode` met them (see there). (The hot
    loop of a run the cache answers: each node's fields set here, not through `YNode(...)`,
    a fifth fewer instructions.)"""
    kind = type(data)
    if kind is int:
        known: YNode = nodes[data]
        return known
    if kind is tuple:  # interned as the builder does (keys and flags repeat across files)
        style = data[2]
        if style is None:
            text = _new(_Text)
        else:
            styled = _new(_Styled)
            styled.style = style
            text = styled
        nodes.append(text)
        text._span = data[0]
        value = data[1]
        text.value = intern(value) if len(value) <= 64 else value
        return text
    if len(data) == 2 and type(data[1]) is not list:
        alias = _new(_Alias)
        nodes.append(alias)
        alias._span, alias.value = data[0], data[1]
        return alias
    if len(data) == 3:
        seq = _new(_Seq)
        nodes.append(seq)
        seq._span = data[0]
        seq.items = [_decode(item, nodes) for item in data[1]]
        return seq
    mapping = _new(_Map)
    nodes.append(mapping)
    mapping._span = data[0]
    mapping.pairs = Pairs([_decode(x, nodes) for pair in data[1] for x in pair])
    return mapping


def value_span(source: SourceText, node: YNode, offset: int) -> Span:
    """Where a character of a scalar's value is in the file: in a literal block scalar (`|`),
    its line's (the value's lines are the file's lines after the indicator, each without the
    block's indentation); else found through the value's text around it in the scalar's own
    text (a plain or folded scalar, a quoted one without escapes there); else the scalar's
    start."""
    value = node.value
    span = node.span
    starts = source.line_starts
    if span.end_line > len(starts):
        return span
    if node.style == "|":
        found = _literal_line(source, node, offset)
        if found is not None:
            return found
    first = starts[span.line - 1] + span.column - 1
    raw = source.text[first : starts[span.end_line - 1] + span.end_column - 1]
    before = value[max(0, offset - 30) : offset].rsplit("\n", 1)[-1]
    after = value[offset : offset + 30].split("\n", 1)[0]
    quote = "'" if node.style == "'" else ""  # (a single-quoted scalar writes each `'` twice)
    # the text around the character, else after it, else before it (a folded scalar's lines
    # are joined by a blank, a quoted one's escapes are written otherwise: the text on one
    # side of the character may still be the file's as it is), where the file has it once, or
    # as many times as the value (the same occurrence: two tests of one `if:` alike in their
    # first 30 characters, h103 W3)
    for probe, skip in ((before + after, len(before)), (after, 0), (before, len(before))):
        if not probe:
            continue
        shift = len(probe[:skip]) + (probe[:skip].count(quote) if quote else 0)
        places = _occurrences(raw, probe.replace(quote, quote * 2) if quote else probe)
        own = _occurrences(value, probe)
        if len(places) > 1 and len(own) == len(places) and offset - skip in own:
            places = [places[own.index(offset - skip)]]
        if len(places) == 1:
            where = first + places[0] + shift
            return source.span(where, where + 1)
    return span.start


def _occurrences(text: str, probe: str) -> list[int]:
    """Where the probe starts in the text, each time (overlapping ones too)."""
    found: list[int] = []
    at = text.find(probe)
    while at >= 0:
        found.append(at)
        at = text.find(probe, at + 1)
    return found


def _literal_line(source: SourceText, node: YNode, offset: int) -> Span | None:
    """`value_span` in a literal block scalar: the character's line of the value is the file's
    line that many lines after the indicator's, and its column is after the block's
    indentation (that of its first line that is not blank); None where the file's line does
    not hold that line of the value there (a tab, an indentation indicator)."""
    value = node.value
    line_start = value.rfind("\n", 0, offset) + 1
    index = value.count("\n", 0, line_start)
    line = node.span.line + 1 + index
    if line > source.line_count:
        return None
    first = next(
        (
            source.line_text(n)
            for n in range(node.span.line + 1, line + 1)
            if source.line_text(n).strip()
        ),
        "",
    )
    indent = len(first) - len(first.lstrip(" "))
    text = source.line_text(line)
    end = value.find("\n", offset)
    wanted = value[line_start : end if end >= 0 else len(value)]
    if text[indent:].rstrip("\r") != wanted:
        return None
    column = indent + offset - line_start + 1
    return Span(line, column, line, column + 1)
