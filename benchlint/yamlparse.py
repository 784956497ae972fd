"""YAML composed with ruamel.yaml into `yamlmodel`'s nodes: the C-backed loader first, the
pure-Python round-trip composer where the C one rejects valid YAML 1.2 (a plain scalar with `:`
inside a flow mapping, as in `{url: http://head:8000}`). Imported by `yamlmodel.parse_yaml` when a
run first parses YAML: a run the cache answers does not load ruamel.yaml.
"""

from __future__ import annotations

import re
import warnings
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
from benchlint.lazyre import lazy_compile
from benchlint.source import SourceText
from benchlint.yamlmodel import (
    _COLUMNS,
    _LINES,
    _NO_ITEMS,
    _NO_PAIRS,
    MAX_DEPTH,
    DepthError,
    Pairs,
    YamlDocument,
    YamlError,
    YNode,
    _LineMap,
    _lines_as_files_count_them,
    _Map,
    _pack,
    _Seq,
    _Styled,
    _Text,
    _unpack,
)

_new = object.__new__

# a key text PyYAML may read as the same key as another text: a number, a boolean, null
_MAY_EQUAL = lazy_compile(r"^(?:[-+.0-9~]|(?i:yes|no|true|false|on|off|null)$)", re.MULTILINE)

_CParser: Any
try:
    # libyaml's events, turned into YNodes directly; scalars are resolved lazily by `.scalar`.
    from ruamel.yaml.cyaml import CParser as _CParser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - the pure composer still works
    _CParser = None


def parse(file: SourceText) -> YamlDocument:
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
        context = exc.context_mark
        if (
            exc.problem
            and exc.context
            and context is not None
            and mark is not None
            and (context.line, context.column) != (mark.line, mark.column)
        ):
            # (what it was reading, where the cause often is: a line at column 1 that ends a
            # block scalar, `EOF` of a heredoc, read as a key whose `:` never comes)
            where = f"line {context.line + 1}, column {context.column + 1}"
            message += f" ({' '.join(str(exc.context).split())} at {where})"
            message += _ended_scalar(file.text, context.line + 1, context.column + 1)
        if message.startswith("expected <block end>"):
            message += _closed_block(file.text, line, column)
        span = _LineMap(file).span(Span(line, column, line, column + 1))
        raise YamlError(message, span) from None
    except (YAMLError, UnicodeError, ValueError, RecursionError) as exc:
        message = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise YamlError(message, Span(1, 1, 1, 1)) from None
    memo: dict[int, YNode] = {}
    converted = [_convert(node, memo) for node in raw]
    return YamlDocument(file, _lines_as_files_count_them(converted, file))


def _ended_scalar(text: str, line: int, column: int) -> str:
    """Why a line read as a key ends a block scalar above it: it starts at or left of the
    scalar's key (`run: |` then a heredoc's `EOF` at column 1, h88 W1), where every line
    between is the scalar's (indented at least as its first line is, and more than its key);
    "" where no block scalar is open above it (h89 W3: not a line of the scalar's own text that
    ends in `|`, a comment, a scalar a line at a lesser indent closed)."""
    lines = text.split("\n")
    if not 1 < line <= len(lines):
        return ""
    found: tuple[int, str] | None = None  # (the outermost: a `script: |` in a `run: |` text)
    for number in range(line - 1, 0, -1):
        above = lines[number - 1]
        if not above.strip():
            continue
        indent = len(above) - len(above.lstrip(" "))
        if indent < column - 1:
            break  # (a line left of it: what it is in, if anything, is not a scalar here)
        if not _BLOCK_SCALAR.match(above):
            continue
        body = [b for b in lines[number : line - 1] if b.strip()]
        inner = len(body[0]) - len(body[0].lstrip(" ")) if body else 0
        if body and inner > indent and all(len(b) - len(b.lstrip(" ")) >= inner for b in body):
            found = number, above.strip()
    if found is None:
        return ""
    return (
        f"; line {line} starts at column {column} and so ends the block scalar that "
        f"`{found[1]}` on line {found[0]} opens: indent it as that block's lines are (a "
        "heredoc's terminator too)"
    )


# a line that opens a block scalar: a key's or a sequence item's value `|` or `>` (`run: |`,
# `script: >-`, `- |2`), a comment after it
_BLOCK_SCALAR = lazy_compile(
    r"[ ]*(?:-[ ]+)*(?:(?:[^\s#'\"{}\[\]][^#]*?|\"[^\"]*\"|'[^']*'):[ ]+|-[ ]+)"
    r"[|>][-+0-9]*[ ]*(?:#.*)?$"
)


def _closed_block(text: str, line: int, column: int) -> str:
    """Why a line is at an indentation no open block has, where a line before it at a lesser
    one ended the block it is indented as (`jobs:` / `  a: 1` / `b:` / `    c: 2` / `  d: 3`:
    `b:` ended the block of `a`, and `d` is not in `b`'s; PyYAML stops at `d`, the cause is
    `b`, often a key pasted at the wrong indentation: h51 W2); "" where that is not so."""
    lines = text.split("\n")
    closer: tuple[int, int, str] | None = None
    for index in range(min(line, len(lines)) - 2, -1, -1):
        stripped = lines[index].lstrip(" ")
        if not stripped.strip() or stripped.startswith("#"):
            continue
        indent = len(lines[index]) - len(stripped)
        if indent == column - 1:
            if closer is None:
                return ""  # (a block at this indentation was open: another cause)
            at, at_column, key = closer
            return (
                f"; line {line} is indented as line {index + 1} is, in a block that line {at} "
                f"(`{key}` at column {at_column}) ended"
            )
        if indent < column - 1 and closer is None:
            closer = (index + 1, indent + 1, stripped.rstrip()[:40])
    return ""


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
                if isinstance(node, _Text) and placeholder in node.value:
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
    node: YNode
    get_event = parser.get_event
    try:
        while True:
            event = get_event()
            kind = type(event)
            if kind is ScalarEvent:
                start, end = event.start_mark, event.end_mark
                value = event.value
                # (its fields set here: a fifth fewer instructions)
                style = event.style
                if style:
                    styled = _new(_Styled)
                    styled.style = style
                    scalar: _Text = styled
                else:
                    scalar = _new(_Text)
                line, column = start.line + 1, start.column + 1
                end_line, end_column = end.line + 1, end.column + 1
                scalar._span = (  # (`_pack`, inlined where the span is narrow)
                    ((line << 13 | column) << 17 | end_line) << 13 | end_column
                    if line < _LINES
                    and end_line < _LINES
                    and column < _COLUMNS
                    and end_column < _COLUMNS
                    else _pack(line, column, end_line, end_column)
                )
                scalar.value = intern(value) if len(value) <= 64 else value  # keys and flags repeat
                node = scalar
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
                    pairs=Pairs(children) if is_map else _NO_PAIRS,
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
                line, column, _, _ = _unpack(node._span)  # (the start kept, the end set)
                node._span = _pack(line, column, end.line + 1, end.column + 1)
                if is_map and len(children) > 2:
                    keys = [k.value for k in children[::2] if k.kind == "scalar"]
                    # (the same text twice, or a key PyYAML may read as another's: `yes`, `1.0`)
                    if len(set(keys)) < len(keys) or _MAY_EQUAL.search("\n".join(keys)):
                        repeats.append(node)
                children, is_map, pending = frame[0], frame[1], frame[2]
            elif kind is AliasEvent:
                if event.anchor not in anchors:
                    raise YAMLError(f"unknown alias {event.anchor!r}")
                node = anchors[event.anchor]
                if node.kind != "scalar" and is_map and pending is None:  # (`*seq : v`)
                    start = event.start_mark
                    at = Span(start.line + 1, start.column + 1, start.line + 1, start.column + 2)
                    raise _unhashable(YNode(node.kind, at))
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
                if node.kind != "scalar":
                    raise _unhashable(node)
                pending = node
            else:
                children += (pending, node)  # (`Pairs`: keys and values in one list)
                pending = None
    finally:
        parser.dispose()


def _unhashable(key: YNode) -> YamlError:
    """A mapping or a sequence used as a key (`name: {{.Name}}`, a Go template's field read as
    a flow mapping in a flow mapping; `? [a, b]`): legal YAML that PyYAML cannot load, as
    Python cannot hash a dict or a list."""
    span = Span(key.span.line, key.span.column, key.span.line, key.span.column + 1)
    return YamlError(
        f"found unhashable key (a {'mapping' if key.kind == 'map' else 'sequence'} used as a "
        "key: PyYAML cannot load it)",
        span,
    )


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
        mapping = _new(_Map)  # (in the memo before what is inside: an alias may name it)
        mapping._span = _pack(*span)
        memo[id(node)] = mapping
        open_.add(id(node))
        mapping.pairs = Pairs([_convert(x, memo, open_) for pair in node.value for x in pair])
        open_.discard(id(node))
        for key, _ in mapping.pairs:
            if key.kind in ("map", "seq"):
                raise _unhashable(key)
        return mapping
    if isinstance(node, SequenceNode):
        sequence = _new(_Seq)
        sequence._span = _pack(*span)
        memo[id(node)] = sequence
        open_.add(id(node))
        sequence.items = [_convert(item, memo, open_) for item in node.value]
        open_.discard(id(node))
        return sequence
    raise YamlError(f"unexpected YAML node {type(node).__name__}", span)
