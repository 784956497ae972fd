"""Deciding a launcher's conditions under one master-config entry's variables.

Three-valued: True, False, or None when the condition cannot be decided statically (a variable
the entry does not set, a command such as `grep -q`, a regular expression that does not compile).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from typing import Protocol

from tree_sitter import Node

from benchlint.shell.model import Guard, Script


class Env(Protocol):
    """Variable values: a string, "" when unset, None when it cannot be known statically."""

    def get(self, name: str, /) -> str | None: ...


_SIMPLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_DEFAULT = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?-([^}$`]*)\}")
_EXPANSION = re.compile(_DEFAULT.pattern + "|" + _SIMPLE.pattern)


Probe = Callable[[Node], "bool | None"]


def guards_hold(
    script: Script, guards: tuple[Guard, ...], env: Env, probe: Probe | None = None
) -> bool | None:
    """False if some guard is false; True if all are true; None otherwise.

    `probe` decides a command used as a condition (`grep -q ... "$CONFIG_PATH"`) when it can.
    """
    result: bool | None = True
    memo = getattr(env, "memo", None) if probe is None else None
    for guard in guards:
        if memo is not None and id(guard) in memo:
            value = memo[id(guard)]
        else:
            value = guard_holds(script, guard, env, probe)
            if memo is not None:
                memo[id(guard)] = value
        if value is False:
            return False
        if value is None:
            result = None
    return result


def guard_holds(script: Script, guard: Guard, env: Env, probe: Probe | None = None) -> bool | None:
    if guard.patterns:
        word = value_of(script, guard.node, env)
        if word is None:
            return None
        matched = any(
            fnmatch.fnmatchcase(word, pattern)
            for node in guard.patterns
            if (pattern := value_of(script, node, env, raw=True)) is not None
        )
        return matched == guard.expect
    value = condition(script, guard.node, env, probe)
    return None if value is None else value == guard.expect


def value_of(script: Script, node: Node, env: Env, raw: bool = False) -> str | None:
    """A word's value with `$X`, `${X}` and `${X:-default}` taken from env; None if unknown."""
    if raw:
        return script.text_of(node).strip("'\"")
    word = script.word(node)
    value = word.value
    if word.static:
        return value
    out = []
    position = 0
    for match in _EXPANSION.finditer(value):
        out.append(value[position : match.start()])
        if match.group(1):
            known = env.get(match.group(1))
            if known is None:
                return None
            out.append(known if known else match.group(2))
        else:
            known = env.get(match.group(3))
            if known is None:
                return None
            out.append(known)
        position = match.end()
    rest = value[position:]
    if "$" in rest or "`" in rest:
        return None
    out.append(rest)
    return "".join(out)


def condition(script: Script, node: Node, env: Env, probe: Probe | None = None) -> bool | None:
    kind = node.type
    if kind == "test_command":
        inner = [c for c in node.named_children]
        return _expression(script, inner[0], env) if len(inner) == 1 else None
    if kind == "negated_command":
        inner_nodes = node.named_children
        value = condition(script, inner_nodes[-1], env, probe) if inner_nodes else None
        return None if value is None else not value
    if kind == "list":
        named = node.named_children
        operator = next((c.type for c in node.children if c.type in ("&&", "||")), None)
        if len(named) != 2 or operator is None:
            return None
        left = condition(script, named[0], env, probe)
        right = condition(script, named[1], env, probe)
        return _and(left, right) if operator == "&&" else _or(left, right)
    if kind == "command" and node.named_children:
        name = script.text_of(node.named_children[0])
        if name in ("true", ":"):
            return True
        if name == "false":
            return False
        if probe is not None:
            return probe(node)
    return None


def _and(left: bool | None, right: bool | None) -> bool | None:
    if left is False or right is False:
        return False
    return True if left and right else None


def _or(left: bool | None, right: bool | None) -> bool | None:
    if left is True or right is True:
        return True
    return False if left is False and right is False else None


def _expression(script: Script, node: Node, env: Env) -> bool | None:
    kind = node.type
    if kind == "parenthesized_expression":
        inner = node.named_children
        return _expression(script, inner[0], env) if inner else None
    if kind == "unary_expression":
        operator = node.child_by_field_name("operator")
        operands = [c for c in node.named_children if c.type != "test_operator"]
        op = script.text_of(operator) if operator is not None else ""
        if op == "!" and operands:
            value = _expression(script, operands[0], env)
            return None if value is None else not value
        if op in ("-z", "-n") and operands:
            text = value_of(script, operands[0], env)
            if text is None:
                return None
            return (text == "") == (op == "-z")
        return None
    if kind == "binary_expression":
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        if left is None or right is None or operator is None:
            return None
        op = script.text_of(operator)
        if op in ("&&", "-a"):
            return _and(_expression(script, left, env), _expression(script, right, env))
        if op in ("||", "-o"):
            return _or(_expression(script, left, env), _expression(script, right, env))
        a = value_of(script, left, env)
        b = value_of(script, right, env)
        if a is None or b is None:
            return None
        return _compare(a, op, b, right.type)
    if kind in ("string", "simple_expansion", "expansion", "word", "concatenation"):
        text = value_of(script, node, env)
        return None if text is None else text != ""
    return None


def _compare(a: str, op: str, b: str, right_kind: str) -> bool | None:
    if op in ("==", "="):
        return fnmatch.fnmatchcase(a, b) if right_kind == "word" else a == b
    if op == "!=":
        return not fnmatch.fnmatchcase(a, b) if right_kind == "word" else a != b
    if op == "=~":
        try:
            return re.search(b, a) is not None
        except re.error:
            return None
    numeric = {"-eq": 0, "-ne": 1, "-lt": 2, "-le": 3, "-gt": 4, "-ge": 5}
    if op in numeric:
        try:
            x, y = int(a), int(b)
        except ValueError:
            return None
        return [x == y, x != y, x < y, x <= y, x > y, x >= y][numeric[op]]
    return None
