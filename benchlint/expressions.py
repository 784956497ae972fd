"""GitHub Actions expressions in a workflow's `env:` values, decided for one route.

`SCENARIO_SUBDIR: ${{ inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/' }}`
names the folder of the script a launcher runs: with the route's inputs known, it is one of the
two. Only what such values use is modelled: string literals, `true`/`false`/`null`, numbers,
`inputs.NAME`, `==` and `!=` (strings compared without regard to case, other kinds as numbers, as
GitHub does), `!`, `&&` and `||` (which give one of their operands, not a boolean), and
parentheses. Anything else (a function call, `matrix.*`, `env.*`, an input the route does not
know) makes the value unknown: None. A value that is not one `${{ ... }}` alone is unknown too.

An input has the type its workflow declares (`on.workflow_call.inputs.NAME.type`): the master
config's `dp-attn: false` reaches a `boolean` input as false, which `&&` treats as false, where the
text "false" would be true (`typed_inputs`). The model agrees with GitHub's own evaluator
(`@actions/expressions`) on generated expressions: tests/test_expressions.py.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Container, Mapping

from benchlint.lazyre import lazy_compile

Value = str | bool | float | None
_TOKEN = lazy_compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||!|\(|\))"
    r"|(?P<number>-?\d+(?:\.\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*))"
)
_WHOLE = lazy_compile(r"\A\$\{\{(.*)\}\}\Z", re.DOTALL)


class _Unknown(Exception):
    """The expression reads something the route does not know, or is not of the modelled form."""


def evaluate(text: str, inputs: Mapping[str, Value]) -> str | None:
    """The value a workflow `env:` entry gets, when it is one expression the route decides;
    None otherwise. `inputs`: each known input's value, of its declared type."""
    parsed = _parsed(text)
    if parsed is None:
        return None
    tokens, names = parsed
    # (a workflow's values are decided for every route: once per value of what they read; the
    # kind is in the key, as True and 1.0 are equal keys)
    known = tuple((n, type(inputs[n]).__name__, inputs[n]) for n in names if n in inputs)
    return _decided(text, tokens, known)


# PyYAML's plain scalars (the sweep generator reads the master config with it) that are not
# strings: booleans, null, and anything starting as a number, a date or a sexagesimal would
_YAML_BOOLEANS = {
    **dict.fromkeys(("true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"), True),
    **dict.fromkeys(("false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"), False),
}
_YAML_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_YAML_INT = lazy_compile(r"[-+]?(?:0|[1-9][0-9]*)")
_YAML_FLOAT = lazy_compile(r"[-+]?[0-9]+\.[0-9]+")
_STRING_TYPES = frozenset(("string", "choice", "environment"))


def typed_inputs(
    values: Mapping[str, str], types: Mapping[str, str], quoted: Container[str] = ()
) -> dict[str, Value]:
    """The inputs a workflow gets from an element's fields (their text as a YAML plain scalar,
    or a string where `quoted`), each of the type the workflow declares for it; an input it does
    not declare, or a value that does not convert surely (a string for a boolean, a YAML octal or
    date), left out."""
    typed: dict[str, Value] = {}
    for name, text in values.items():
        kind = types.get(name)
        try:
            value = text if name in quoted else _yaml_plain(text)
            boolean = isinstance(value, bool)
            if (kind == "boolean" and boolean) or (kind == "number" and isinstance(value, float)):
                typed[name] = value
            elif kind in _STRING_TYPES and value is not None:
                typed[name] = value if isinstance(value, str) else _text(value)
        except _Unknown:
            continue
    return typed


def _yaml_plain(text: str) -> Value:
    if text in _YAML_BOOLEANS:
        return _YAML_BOOLEANS[text]
    if text in _YAML_NULLS:
        return None
    if _YAML_INT.fullmatch(text) or _YAML_FLOAT.fullmatch(text):
        return float(text)
    if text[0] in "-+.0123456789<=":  # another number, a date, a merge key: not modelled
        raise _Unknown
    return text


def input_names(text: str) -> tuple[str, ...]:
    """The inputs an `env:` value's expression may read (none when it is not one)."""
    parsed = _parsed(text)
    return parsed[1] if parsed is not None else ()


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
    text: str, tokens: tuple[tuple[str, str], ...], inputs: tuple[tuple[str, str, Value], ...]
) -> str | None:
    known = {name: value for name, _, value in inputs}
    try:
        value, rest = _or(list(tokens), lambda name: _input(name, known))
        return None if rest else _text(value)
    except _Unknown:
        return None


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


def _input(name: str, inputs: Mapping[str, Value]) -> Value:
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
    """GitHub's `==`: two strings without regard to case (ASCII letters: other letters' case
    rules differ between GitHub's evaluators), values of two kinds as numbers (`null == ''`
    holds: both are 0)."""
    if isinstance(left, str) and isinstance(right, str):
        if left.isascii() and right.isascii():
            return left.upper() == right.upper()
        if left == right:
            return True
        raise _Unknown
    if type(left) is type(right):
        return left == right
    return _number(left) == _number(right)


def equal(left: Value, right: Value) -> bool | None:
    """GitHub's `left == right`; None where the model does not decide it."""
    try:
        return _equal(left, right)
    except _Unknown:
        return None


def number(value: Value) -> float | None:
    """The number GitHub turns a value into to compare it with another kind (NaN for text no
    number reads as); None where the model does not decide it."""
    try:
        return _number(value)
    except _Unknown:
        return None


# what JavaScript's Number() reads (GitHub's evaluator turns a string into a number with it),
# after blanks are trimmed: any other text is NaN
_JS_NUMBER = lazy_compile(
    r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|Infinity)"
    r"|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+"
)


def _number(value: Value) -> float:
    """A value as GitHub turns it into a number to compare it with another kind: a string
    when it is empty (0), a plain decimal, or text no number reads as (`'true'`, `'mtp'`: NaN,
    equal to nothing); other numbers' forms (`0x1F`, ` 1e3 `) are not modelled."""
    if value is None:
        return 0.0
    if isinstance(value, (bool, float)):
        return float(value)
    if value == "":
        return 0.0
    if _YAML_INT.fullmatch(value) or _YAML_FLOAT.fullmatch(value):
        return float(value)
    trimmed = value.strip(" \t\n\r")
    readable = trimmed and trimmed.isascii() and trimmed.isprintable()
    if readable and not _JS_NUMBER.fullmatch(trimmed):
        return math.nan
    raise _Unknown


def _text(value: Value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        shown = repr(value)
        if "e" in shown or "n" in shown or len(shown.lstrip("-").replace(".", "")) > 15:
            raise _Unknown  # an exponent, inf, nan or more digits than GitHub shows
        return shown
    return value
