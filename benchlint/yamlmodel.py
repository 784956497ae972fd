"""YAML as positioned nodes, with duplicate keys kept as data.

Composes (never constructs) with ruamel.yaml: the C-backed loader first, the pure-Python
round-trip composer where the C one rejects valid YAML 1.2 (a plain scalar with `:` inside a flow
mapping, as in `{url: http://head:8000}`). Mappings keep every pair in order, so a duplicate key is
visible to BL203 instead of silently collapsing; lookups follow PyYAML and take the last value.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from sys import intern
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.scanner import ScannerError

from benchlint.finding import Span
from benchlint.source import SourceText

_CParser: Any
try:
    # libyaml's events, turned into YNodes directly; scalars are resolved lazily by `.scalar`.
    from ruamel.yaml.cyaml import CParser as _CParser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - the pure composer still works
    _CParser = None

# Plain scalars as PyYAML's SafeLoader resolves them (YAML 1.1): what srtctl and the sweep
# generator read. `yes`/`on` are booleans, `010` is octal, `1_440` is 1440, `4:00:00` is the
# base-60 integer 14400, `1e3` is a string (1.1 floats need a dot and a signed exponent).
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
}
_INT = re.compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"
)
_FLOAT = re.compile(
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


_NO_PAIRS: tuple[tuple[YNode, YNode], ...] = ()
_NO_ITEMS: tuple[YNode, ...] = ()


# A span is kept as one int, 28 bits a field (a YAML model holds a few hundred thousand nodes:
# a tuple of four ints each took three times the memory). 28 bits count lines and columns to
# 268 million, past any file benchlint reads.
_FIELD = 28
_MASK = (1 << _FIELD) - 1


def _pack(line: int, column: int, end_line: int, end_column: int) -> int:
    return (((line << _FIELD | column) << _FIELD | end_line) << _FIELD) | end_column


class YNode:
    """A mapping, sequence or scalar with its span. Scalars share the empty `pairs`/`items`."""

    __slots__ = ("_span", "items", "kind", "pairs", "style", "value")

    def __init__(
        self,
        kind: str,  # "map" | "seq" | "scalar" | "alias" (inside the collection it names)
        span: Span | int,  # a Span, or one packed by _pack
        value: str = "",  # scalar text (after YAML unquoting)
        style: str | None = None,  # scalar quoting style: None (plain), "'", '"', "|", ">"
        pairs: Sequence[tuple[YNode, YNode]] = _NO_PAIRS,
        items: Sequence[YNode] = _NO_ITEMS,
    ) -> None:
        self.kind = kind
        self._span = span if isinstance(span, int) else _pack(*span)
        self.value = value
        self.style = style
        self.pairs = pairs
        self.items = items

    @property
    def span(self) -> Span:
        packed = self._span
        return Span(
            packed >> 3 * _FIELD,
            packed >> 2 * _FIELD & _MASK,
            packed >> _FIELD & _MASK,
            packed & _MASK,
        )

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
        pairs = self.pairs
        merges = False
        for i in range(len(pairs) - 1, -1, -1):  # the last one wins
            k = pairs[i][0]
            if k.value == key and k.kind == "scalar":
                return pairs[i][1]
            merges = merges or k.value == "<<"
        if not merges:
            return None
        # several `<<` keys: the later one wins (PyYAML up to 6.0.3); in a list, the first
        for k, v in reversed(pairs):
            if k.value == "<<" and k.kind == "scalar" and k.style is None:
                for source in [v] if v.kind == "map" else [m for m in v.items if m.kind == "map"]:
                    found = source.get(key)
                    if found is not None:
                        return found
        return None

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
    def sexagesimal(self) -> bool:
        """A plain scalar PyYAML reads as a base-60 number (`4:00:00` is 14400)."""
        return (
            self.is_scalar
            and self.style is None
            and ":" in self.value
            and (bool(_INT.match(self.value)) or bool(_FLOAT.match(self.value)))
        )


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

    def duplicates(self) -> Iterator[Duplicate]:
        maps = self._repeats if self._repeats is not None else self.walk()
        for node in maps:
            if not node.is_map:
                continue
            first: dict[str, YNode] = {}
            last_value: dict[str, YNode] = {}
            for k, v in node.pairs:
                if k.is_scalar:
                    last_value[k.value] = v
            for k, _ in node.pairs:
                if not k.is_scalar:
                    continue
                if k.value in first:
                    yield Duplicate(node, first[k.value], k, last_value[k.value])
                else:
                    first[k.value] = k


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
    repeats: list[YNode] = []
    try:
        built = _build_colons(file.text, repeats)
    except DepthError:
        raise
    except (YAMLError, UnicodeError, ValueError):
        built = None
    if built is not None:
        return YamlDocument(file, _lines_as_files_count_them(built, file), repeats)
    try:
        raw = _compose_pure(file.text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        column = mark.column + 1 if mark is not None else 1
        message = " ".join(str(exc.problem or exc.context or "invalid YAML").split())
        span = _LineMap(file).span(Span(line, column, line, column + 1))
        raise YamlError(message, span) from None
    except (YAMLError, UnicodeError, ValueError, RecursionError) as exc:
        message = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise YamlError(message, Span(1, 1, 1, 1)) from None
    memo: dict[int, YNode] = {}
    converted = [_convert(node, memo) for node in raw]
    return YamlDocument(file, _lines_as_files_count_them(converted, file))


# YAML also ends a line at a lone \r, NEL, U+2028 and U+2029; benchlint's lines end at \n only.
_YAML_ONLY_BREAK = re.compile("\r(?!\n)|[\x85\u2028\u2029]")


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


_MAX_COLONS = 64


def _build_colons(text: str, repeats: list[YNode]) -> list[YNode] | None:
    """`_build_fast`, also for YAML 1.2 flow scalars with a colon inside (`{ image: a/b:tag }`),
    which libyaml rejects: each such colon is swapped for a character the file does not use (one
    character for one, so every position stays), and swapped back in the scalars built."""
    placeholder = ""
    for _ in range(_MAX_COLONS):
        try:
            built = _build_fast(text, repeats)
        except ScannerError as exc:
            mark = exc.problem_mark
            index = mark.index if mark is not None else -1
            after = text[index + 1 : index + 2]
            if exc.problem != "found unexpected ':'" or text[index : index + 1] != ":":
                raise
            if not after or after in " \t\r\n,[]{}":
                raise  # a colon YAML 1.2 does not read as part of a scalar either
            placeholder = placeholder or _unused_character(text)
            text = text[:index] + placeholder + text[index + 1 :]
            repeats.clear()
            continue
        if placeholder and built is not None:
            for node in YamlDocument.nodes(built):
                if node.kind == "scalar" and placeholder in node.value:
                    node.value = node.value.replace(placeholder, ":")
        return built
    raise YAMLError(f"more than {_MAX_COLONS} colons in flow scalars")


def _unused_character(text: str) -> str:
    """A private-use character (printable for libyaml) that the text does not contain."""
    for code in range(0xE000, 0xF900):
        if chr(code) not in text:
            return chr(code)
    raise YAMLError("no unused character")


def _build_fast(text: str, repeats: list[YNode]) -> list[YNode] | None:
    """YNodes straight from the C parser's events: no intermediate node graph. Mappings with a
    key written twice are added to `repeats`. (The hot loop of a run: kept flat on purpose.)"""
    if _CParser is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parser = _CParser(text)
    documents: list[YNode] = []
    # one frame per open collection: what was current when it opened (the enclosing
    # collection's children, whether that is a map, its pending key), then the open node
    stack: list[list[Any]] = []
    anchors: dict[str, YNode] = {}
    children: list[Any] = documents
    is_map = False
    pending: YNode | None = None
    get_event = parser.get_event
    try:
        while True:
            event = get_event()
            kind = type(event)
            if kind is ScalarEvent:
                start, end = event.start_mark, event.end_mark
                value = event.value
                node = YNode(
                    "scalar",
                    _pack(start.line + 1, start.column + 1, end.line + 1, end.column + 1),
                    intern(value) if len(value) <= 64 else value,  # keys and flags repeat
                    event.style or None,
                )
                if event.anchor:
                    anchors[event.anchor] = node
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                start = event.start_mark
                stack.append([children, is_map, pending])
                if len(stack) > MAX_DEPTH:
                    raise DepthError(f"nested more than {MAX_DEPTH} levels deep")
                children, is_map, pending = [], kind is MappingStartEvent, None
                node = YNode(
                    "map" if is_map else "seq",
                    _pack(start.line + 1, start.column + 1, start.line + 1, start.column + 1),
                    pairs=children if is_map else _NO_PAIRS,
                    items=_NO_ITEMS if is_map else children,
                )
                if event.anchor:
                    anchors[event.anchor] = node
                stack[-1].append(node)
                continue
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                frame = stack.pop()
                node = frame[3]
                end = event.end_mark
                # the start kept, the end set: the low two fields replaced
                node._span = (node._span >> 2 * _FIELD << 2 * _FIELD) | (
                    (end.line + 1) << _FIELD | (end.column + 1)
                )
                if is_map and len(children) > 1:
                    keys = [k.value for k, _ in children if k.kind == "scalar"]
                    if len(set(keys)) < len(keys):
                        repeats.append(node)
                children, is_map, pending = frame[0], frame[1], frame[2]
            elif kind is AliasEvent:
                if event.anchor not in anchors:
                    raise YAMLError(f"unknown alias {event.anchor!r}")
                node = anchors[event.anchor]
                if node.kind != "scalar" and any(frame[3] is node for frame in stack):
                    start, end = event.start_mark, event.end_mark
                    node = _recursive_alias(event.anchor, start, end)
            elif kind is StreamEndEvent or event is None:
                return documents
            else:
                continue  # stream, document start and end
            # the node is complete: add it to its collection
            if not is_map:
                children.append(node)
            elif pending is None:
                pending = node
            else:
                children.append((pending, node))
                pending = None
    finally:
        parser.dispose()


def _recursive_alias(anchor: str, start: Any, end: Any) -> YNode:
    """An alias inside the collection it names (`a: &l [*l]`, legal YAML): a node of its own kind
    with nothing inside, so that every walk of the model ends. PyYAML builds a recursive object
    there; nothing a recipe means is inside it."""
    span = Span(start.line + 1, start.column + 1, end.line + 1, end.column + 1)
    return YNode("alias", span, value=anchor)


def _compose_pure(text: str) -> list[Any]:
    yaml = YAML(typ="rt", pure=True)
    return [node for node in yaml.compose_all(text) if node is not None]


def _convert(node: Any, memo: dict[int, YNode], open_: set[int] | None = None) -> YNode:
    open_ = set() if open_ is None else open_
    start, end = node.start_mark, node.end_mark
    known = memo.get(id(node))
    if known is not None:  # an alias: the anchored node itself
        if id(node) in open_:  # inside the collection it names
            return _recursive_alias(getattr(node, "anchor", None) or "", start, end)
        return known
    span = Span(start.line + 1, start.column + 1, end.line + 1, end.column + 1)
    if isinstance(node, ScalarNode):
        result = YNode("scalar", span, value=str(node.value), style=node.style or None)
        memo[id(node)] = result
        return result
    if isinstance(node, MappingNode):
        result = YNode("map", span)
        memo[id(node)] = result
        open_.add(id(node))
        result.pairs = [(_convert(k, memo, open_), _convert(v, memo, open_)) for k, v in node.value]
        open_.discard(id(node))
        return result
    if isinstance(node, SequenceNode):
        result = YNode("seq", span)
        memo[id(node)] = result
        open_.add(id(node))
        result.items = [_convert(item, memo, open_) for item in node.value]
        open_.discard(id(node))
        return result
    raise YamlError(f"unexpected YAML node {type(node).__name__}", span)


# -- a document as plain data ---------------------------------------------------------------------
# What the per-file step sends from a worker process and the cache keeps: marshal-able data, no
# pickles. A scalar is a tuple (span, value, style); a mapping a list [span, [(k, v), ...]]; a
# sequence a list [span, [item, ...], None]; an alias inside what it names a list [span,
# anchor]; a node met before (an alias) is the int of its place in the order nodes are first met.


def encode_documents(document: YamlDocument) -> tuple[list[Any], list[int] | None]:
    """The document's nodes as plain data, and the places of its mappings with a repeated key
    (None: not noted)."""
    index: dict[int, int] = {}

    def encode(node: YNode) -> Any:
        known = index.get(id(node))
        if known is not None:
            return known
        index[id(node)] = len(index)
        kind = node.kind
        if kind == "scalar":
            return (node._span, node.value, node.style)
        if kind == "map":
            return [node._span, [(encode(k), encode(v)) for k, v in node.pairs]]
        if kind == "seq":
            return [node._span, [encode(item) for item in node.items], None]
        return [node._span, node.value]

    documents = [encode(node) for node in document.documents]
    repeats = document._repeats
    return documents, None if repeats is None else [index[id(node)] for node in repeats]


def decode_documents(file: SourceText, encoded: tuple[list[Any], list[int] | None]) -> YamlDocument:
    """The document `encode_documents` gave, over the file's text: the same nodes, spans and
    values, aliased nodes shared as they were."""
    nodes: list[YNode] = []
    append = nodes.append

    def decode(data: Any) -> YNode:
        kind = type(data)
        if kind is tuple:  # interned as the builder does (keys and flags repeat across files)
            value = data[1]
            node = YNode("scalar", data[0], intern(value) if len(value) <= 64 else value, data[2])
        elif kind is int:
            known: YNode = nodes[data]
            return known
        elif len(data) == 2 and type(data[1]) is list:
            node = YNode("map", data[0])
            append(node)
            node.pairs = [(decode(k), decode(v)) for k, v in data[1]]
            return node
        elif len(data) == 3:
            node = YNode("seq", data[0])
            append(node)
            node.items = [decode(item) for item in data[1]]
            return node
        else:
            node = YNode("alias", data[0], data[1])
        append(node)
        return node

    documents, repeats = encoded
    decoded = [decode(data) for data in documents]
    return YamlDocument(file, decoded, None if repeats is None else [nodes[i] for i in repeats])
