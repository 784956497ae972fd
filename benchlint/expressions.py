"""GitHub Actions expressions in a workflow's `env:` values, decided for one route.

`SCENARIO_SUBDIR: ${{ inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/' }}`
names the folder of the script a launcher runs: with the route's inputs known, it is one of the
two. Only what such values use is modelled: string literals, `true`/`false`/`null`, numbers,
`inputs.NAME`, `==` and `!=` (strings compared without regard to case, as GitHub does), `!`, `&&`
and `||` (which give one of their operands, not a boolean), and parentheses. Anything else (a
function call, `matrix.*`, `env.*`, an input the route does not know) makes the value unknown:
None. A value that is not one `${{ ... }}` alone is unknown too.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping

Value = str | bool | float | None
_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||!|\(|\))"
    r"|(?P<number>-?\d+(?:\.\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*))"
)
_WHOLE = re.compile(r"\A\$\{\{(.*)\}\}\Z", re.DOTALL)


class _Unknown(Exception):
    """The expression reads something the route does not know, or is not of the modelled form."""


def evaluate(text: str, inputs: Mapping[str, str]) -> str | None:
    """The value a workflow `env:` entry gets, when it is one expression the route decides;
    None otherwise."""
    parsed = _parsed(text)
    if parsed is None:
        return None
    tokens, names = parsed
    # (a workflow's values are decided for every route: once per value of what they read)
    return _decided(text, tokens, tuple((n, inputs[n]) for n in names if n in inputs))


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]] | None:
    """The expression's tokens and the inputs it may read; None when the text is not one
    expression alone or does not tokenize."""
    whole = _WHOLE.match(text.strip())
    if whole is None:
        return None
    try:
        tokens = tuple(_tokens(whole.group(1)))
    except _Unknown:
        return None
    prefix = "inputs."
    names = tuple(dict.fromkeys(t[len(prefix) :] for k, t in tokens if t.startswith(prefix)))
    return tokens, names


@functools.lru_cache(maxsize=4096)
def _decided(
    text: str, tokens: tuple[tuple[str, str], ...], inputs: tuple[tuple[str, str], ...]
) -> str | None:
    known = dict(inputs)
    try:
        value, rest = _or(list(tokens), lambda name: _input(name, known))
    except _Unknown:
        return None
    return None if rest else _text(value)


def _tokens(text: str) -> list[tuple[str, str]]:
    found = []
    position = 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise _Unknown
        kind = match.lastgroup
        assert kind is not None
        found.append((kind, match.group(kind)))
        position = match.end()
    return found


def _input(name: str, inputs: Mapping[str, str]) -> Value:
    if name in ("true", "false"):
        return name == "true"
    if name == "null":
        return None
    if name.startswith("inputs.") and name[len("inputs.") :] in inputs:
        return inputs[name[len("inputs.") :]]
    raise _Unknown


Tokens = list[tuple[str, str]]
Lookup = Callable[[str], Value]


def _or(tokens: Tokens, lookup: Lookup) -> tuple[Value, Tokens]:
    """`a || b`: a when a is truthy, else b."""
    return _chain(tokens, lookup, "||", _and, kept_when=True)


def _and(tokens: Tokens, lookup: Lookup) -> tuple[Value, Tokens]:
    """`a && b`: a when a is falsy, else b."""
    return _chain(tokens, lookup, "&&", _comparison, kept_when=False)


def _chain(
    tokens: Tokens,
    lookup: Lookup,
    operator: str,
    operand: Callable[[Tokens, Lookup], tuple[Value, Tokens]],
    kept_when: bool,
) -> tuple[Value, Tokens]:
    left, tokens = operand(tokens, lookup)
    while tokens and tokens[0] == ("op", operator):
        right, tokens = operand(tokens[1:], lookup)
        left = left if _truthy(left) == kept_when else right
    return left, tokens


def _comparison(tokens: Tokens, lookup: Lookup) -> tuple[Value, Tokens]:
    left, tokens = _unary(tokens, lookup)
    if tokens and tokens[0] in (("op", "=="), ("op", "!=")):
        operator = tokens[0][1]
        right, tokens = _unary(tokens[1:], lookup)
        equal = _equal(left, right)
        return (equal if operator == "==" else not equal), tokens
    return left, tokens


def _unary(tokens: Tokens, lookup: Lookup) -> tuple[Value, Tokens]:
    if not tokens:
        raise _Unknown
    kind, text = tokens[0]
    if (kind, text) == ("op", "!"):
        value, rest = _unary(tokens[1:], lookup)
        return not _truthy(value), rest
    if (kind, text) == ("op", "("):
        value, rest = _or(tokens[1:], lookup)
        if not rest or rest[0] != ("op", ")"):
            raise _Unknown
        return value, rest[1:]
    if kind == "string":
        return text[1:-1].replace("''", "'"), tokens[1:]
    if kind == "number":
        return float(text), tokens[1:]
    if kind == "name":
        if len(tokens) > 1 and tokens[1] == ("op", "("):
            raise _Unknown  # a function call: not modelled
        return lookup(text), tokens[1:]
    raise _Unknown


def _truthy(value: Value) -> bool:
    return value not in (None, False, "", 0.0)


def _equal(left: Value, right: Value) -> bool:
    """GitHub's `==`: strings without regard to case; a string against a number or boolean is
    compared as a number (not modelled: unknown)."""
    if isinstance(left, str) and isinstance(right, str):
        return left.casefold() == right.casefold()
    if type(left) is type(right):
        return left == right
    raise _Unknown  # (GitHub turns both into numbers: `null == ''` holds)


def _text(value: Value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else str(value)
    return value
