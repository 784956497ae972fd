"""What a command substitution can print, when it prints only literal text.

`SUFFIX=$([[ $SPEC == mtp ]] && printf '_mtp' || printf '')` can only be `_mtp` or empty: a path
built from it names one of two files, not any. The outputs are worked out from the commands'
structure, whatever the tests decide: a test (`[[ ]]`, `[ ]`, `test`, `true`, `false`) prints
nothing; `printf FORMAT` with no `%` directive or backslash escape prints FORMAT; `echo [-n] WORDS`
of plain words prints them; `a && b` prints what `a` prints, then maybe what `b` prints; `a || b`
the same; statements in sequence print one after the other. Trailing newlines go, as `$(...)`
drops them. Anything else (a variable, another command, a redirection, a pipeline) makes the
answer unknown: None.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from benchlint.shell.model import parse_tree

if TYPE_CHECKING:
    from tree_sitter import Node

LIMIT = 16  # more possible outputs than this: unknown (a path would match too much anyway)
_TESTS = frozenset({"test", "[", "true", "false", ":"})


@functools.lru_cache(maxsize=256)
def substitution_outputs(body: str) -> frozenset[str] | None:
    """The texts `$(body)` can expand to, or None when they cannot be told."""
    tree = parse_tree(body.encode("utf-8", "surrogateescape"))
    if tree.root_node.has_error:
        return None
    found = _sequence(tree.root_node.named_children)
    return None if found is None else frozenset(t.rstrip("\n") for t in found)


def substitution_pattern(expansion: str) -> str | None:
    """A regular expression for what a `$(...)` in a path can print, when that is known."""
    if not expansion.startswith("$(") or expansion.startswith("$((") or expansion[-1:] != ")":
        return None
    outputs = substitution_outputs(expansion[2:-1])
    if outputs is None:
        return None
    return "(?:" + "|".join(sorted(re.escape(o) for o in outputs)) + ")"


def _sequence(statements: list[Node]) -> set[str] | None:
    outputs = {""}
    for statement in statements:
        if statement.type == "comment":
            continue
        printed = _statement(statement)
        if printed is None:
            return None
        outputs = {a + b for a in outputs for b in printed}
        if len(outputs) > LIMIT:
            return None
    return outputs


def _statement(node: Node) -> set[str] | None:
    kind = node.type
    if kind == "list":  # `a && b`, `a || b`: b may run or not, whatever a printed
        parts = node.named_children
        if len(parts) != 2:
            return None
        left, right = _statement(parts[0]), _statement(parts[1])
        if left is None or right is None:
            return None
        outputs = left | {a + b for a in left for b in right}
        return outputs if len(outputs) <= LIMIT else None
    if kind == "test_command":
        return {""}
    if kind == "command":
        return _command(node)
    return None


def _command(node: Node) -> set[str] | None:
    children = node.named_children
    if not children or any(c.type.endswith("redirect") for c in children):
        return None  # (a redirect sends the output elsewhere, or reads it from elsewhere)
    head = children[0]
    if head.type == "command_name" and head.named_children:
        head = head.named_children[0]
    name = _literal(head)
    if name in _TESTS:
        return {""}  # whatever its operands (a test prints only its errors, to stderr)
    words = [name, *(_literal(c) for c in children[1:])]
    if any(w is None for w in words):
        return None
    args = [w for w in words[1:] if w is not None]
    if name == "printf" and args and "%" not in args[0] and "\\" not in args[0]:
        return {args[0]}
    if name == "echo":
        newline = "\n"
        if args and args[0] == "-n":
            newline, args = "", args[1:]
        if any(a.startswith("-") or "\\" in a for a in args):
            return None  # other options, or escapes some echo would interpret
        return {" ".join(args) + newline}
    return None


def _literal(node: Node) -> str | None:
    """The text of a word with no expansion: plain, single-quoted, or double-quoted plain."""
    text = node.text.decode("utf-8", "surrogateescape") if node.text is not None else ""
    if node.type == "word" and not any(c in text for c in "\\$`*?[{~"):
        return text
    if node.type == "raw_string":
        return text[1:-1]
    plain = all(c.type == "string_content" for c in node.named_children)
    if node.type == "string" and plain and not any(c in text for c in "\\$`"):
        return text[1:-1]
    return None
