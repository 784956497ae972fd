"""A recipe after a one-line edit, without parsing it again.

Nearly every rewrite a launcher applies replaces one value on one line (258 of the 267 rewrites
InferenceX's launchers apply: `sed -i 's/max_attempts: 1440/max_attempts: 720/'`), and parsing
the whole recipe again after each was most of a route's simulation. When an edit is that simple,
the new document is the old one with that scalar replaced: the nodes on the path from the root to
it are copied, every other node is shared (nodes are never changed once built). Anything else
returns None, and the caller parses the text: lines added or removed, more than one line changed,
a value written with escapes, a tag or over several lines, a flow collection that ends on the
line, a file with an anchor anywhere, a new value YAML would read as anything but one plain or
simply quoted scalar.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from benchlint.finding import Span
from benchlint.lazyre import lazy_compile
from benchlint.source import SourceText
from benchlint.yamlmodel import YamlDocument, YNode

# A scalar as written that reads as exactly that one scalar, in block or flow context: plain (no
# `: `, ` #`, quotes, flow indicators, leading indicator or surrounding space), or quoted with
# printable ASCII and no escapes. Group 1: a plain one's text; group 2 or 3: a quoted one's.
_SCALAR = lazy_compile(r"([A-Za-z0-9_./][A-Za-z0-9_./+=@%-]*)|\"([ !#-\[\]-~]*)\"|'([ -&(-~]*)'")
_QUOTES = {None: "", '"': '"', "'": "'"}
# What may follow a value on its line: nothing, or spaces and perhaps a comment.
_AFTER = lazy_compile(r"(?:[ \t]+(?:#.*)?)?")


# An anchor (`&name`) could be anywhere this matches; without one there is no alias, so no node
# is reached twice and replacing one changes nothing else.
_ANCHOR = lazy_compile(r"(?:^|[\s\[{,])&[^\s&]")


@dataclass(frozen=True, eq=False)
class Patch:
    """The new document, and where in it the edit is: the replaced scalar and its replacement,
    with the (original) collections on the way down to it and the position in each."""

    document: YamlDocument
    root: int  # which of the file's documents
    ancestors: list[tuple[YNode, int]]
    old: YNode
    new: YNode


def _on_line(
    documents: list[YNode], line: int
) -> tuple[list[YNode], dict[int, tuple[YNode, int, bool]]]:
    """The nodes that start or end on `line`, and the parent of every node whose span holds
    it (spans nest, aliases apart): only the collections around the line are visited."""
    found: list[YNode] = []
    parents: dict[int, tuple[YNode, int, bool]] = {}
    stack = [d for d in documents if d.span.line <= line <= d.span.end_line]
    seen: set[int] = set()  # aliases share nodes
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        span = node.span
        if span.line == line or span.end_line == line:
            found.append(node)
        for position, (key, value) in enumerate(node.pairs):
            if key.span.line > line:
                break
            if key.span.end_line >= line:
                parents[id(key)] = (node, position, True)
                stack.append(key)
            if value.span.line <= line <= value.span.end_line:
                parents[id(value)] = (node, position, False)
                stack.append(value)
        for position, item in enumerate(node.items):
            if item.span.line > line:
                break
            if item.span.end_line >= line:
                parents[id(item)] = (node, position, False)
                stack.append(item)
    return found, parents


def patched(document: YamlDocument, text: str) -> Patch | None:
    """The document `text` parses to, when it differs from the document's own text by one
    scalar value on one line; else None."""
    if "&" in document.file.text and _ANCHOR.search(document.file.text):  # (the test first: C)
        return None
    old_lines = document.file.text.split("\n")
    new_lines = text.split("\n")
    if len(old_lines) != len(new_lines):
        return None
    differs = list(map(operator.ne, old_lines, new_lines))  # (in C: a recipe per route)
    if differs.count(True) != 1:
        return None
    line = differs.index(True) + 1
    old, new = old_lines[line - 1], new_lines[line - 1]
    nodes, parents = _on_line(document.documents, line)
    # the value: the plain scalar on this line that ends it
    values = [n for n in nodes if n.kind == "scalar" and n.span.end_line == line]
    target = max(values, key=lambda n: n.span.column, default=None)
    if target is None or target.span.line != line or target.style not in _QUOTES:
        return None
    start, end = target.span.column - 1, target.span.end_column - 1
    after = old[end:]
    quote = _QUOTES[target.style]
    if (
        not start
        or old[start:end] != f"{quote}{target.value}{quote}"
        or not _SCALAR.fullmatch(old[start:end])
    ):
        return None  # written with escapes, an anchor or a tag; at column 1 `...` ends a document
    if not _AFTER.fullmatch(after):
        return None
    if new[:start] != old[:start] or not new.endswith(after) or len(new) - len(after) <= start:
        return None
    written = new[start : len(new) - len(after)]
    match = _SCALAR.fullmatch(written)
    if match is None:
        return None
    plain, double, single = match.groups()
    value, style = (
        (plain, None)
        if plain is not None
        else (double, '"')
        if double is not None
        else (single, "'")
    )
    # every other node on the line starts on it, left of the value: a key that ends before the
    # value, or a block collection that ends on a later line
    for node in nodes:
        if node is target:
            continue
        span = node.span
        if span.line != line or span.column - 1 > start:
            return None
        if node.kind == "scalar":
            place = parents.get(id(node))
            if span.end_line != line or span.end_column - 1 > start or not (place and place[2]):
                return None
        elif span.end_line == line:
            return None
    span = Span(line, start + 1, line, start + 1 + len(written))
    replacement = YNode("scalar", span, value, style)
    # copy the collections from the value up to its document's root
    ancestors: list[tuple[YNode, int]] = []
    child, copy = target, replacement
    while id(child) in parents:
        parent, position, is_key = parents[id(child)]
        if is_key:
            return None
        ancestors.append((parent, position))
        if parent.kind == "map":
            pairs = list(parent.pairs)
            pairs[position] = (pairs[position][0], copy)
            copy = YNode("map", parent.span, pairs=pairs)
        else:
            items = list(parent.items)
            items[position] = copy
            copy = YNode("seq", parent.span, items=items)
        child = parent
    root = next(i for i, d in enumerate(document.documents) if d is child)
    documents = list(document.documents)
    documents[root] = copy
    source = SourceText.of_text(document.path, text)
    ancestors.reverse()
    return Patch(YamlDocument(source, documents), root, ancestors, target, replacement)
