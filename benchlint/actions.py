"""GitHub Actions expressions as GitHub's parser reads them: where each `${{ ... }}` of a
workflow value ends, whether its text parses, and the context names and functions it uses.

A port of the lexer and parser of `@actions/expressions` (GitHub's own TypeScript evaluator, the
one its language services use); `tests/test_actions.py` holds this module to that library on
generated expressions. The contexts and functions are the ones a workflow's jobs may use: the
library's built-in functions and the runner's status functions and `hashFiles`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from benchlint.lazyre import lazy_compile

CONTEXTS = frozenset(
    {"github", "env", "vars", "job", "jobs", "steps", "runner", "secrets", "strategy"}
    | {"matrix", "needs", "inputs"}
)
# name -> (fewest, most arguments): the library's own functions, and those of the runner a
# workflow's values may use (where each may is `workflow_schema`'s: `failure()` in a step's
# `if:`, `failure(needs.a)` in a job's)
BUILT_IN = {
    "contains": (2, 2),
    "startswith": (2, 2),
    "endswith": (2, 2),
    "format": (1, 255),
    "join": (1, 2),
    "tojson": (1, 1),
    "fromjson": (1, 1),
    "case": (3, 1 << 53),
}
# (anywhere: the most arguments any value gives each, `failure(needs.a)` in a job's `if:`)
FUNCTIONS = {
    **BUILT_IN,
    "hashfiles": (1, 255),
    "success": (0, 1 << 53),
    "always": (0, 0),
    "cancelled": (0, 0),
    "failure": (0, 1 << 53),
}
MAX_DEPTH = 50
MAX_LENGTH = 21000
_BOUNDARY = frozenset("([)],.!><=&|")
_LEGAL = lazy_compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_KEYWORDS = {
    "true": "TRUE",
    "false": "FALSE",
    "null": "NULL",
    "NaN": "NUMBER",
    "Infinity": "NUMBER",
}
# what JavaScript's Number() reads (a number token's text must be one)
_JS_NUMBER = lazy_compile(
    r"\s*(?:[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|Infinity)"
    r"|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|)\s*"
)


@dataclass(frozen=True)
class Token:
    kind: str  # "(", ")", "[", "]", ",", ".", "!", "!=", "==", ">", ">=", "<", "<=", "&&",
    # "||", "*", "NUMBER", "STRING", "IDENTIFIER", "TRUE", "FALSE", "NULL", "EOF"
    text: str
    start: int  # in the expression's text


class ExpressionError(Exception):
    """Why GitHub rejects an expression, and where in its text (`position`)."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


# where a word ends: at a boundary character, a white space (`_boundary`), or the text's end
_WORD_END = lazy_compile("[" + re.escape("".join(sorted(_BOUNDARY))) + r"\s]|$")


def _boundary(c: str) -> bool:
    return c in _BOUNDARY or c.isspace()


def tokens(text: str) -> list[Token]:
    """The expression's tokens, as GitHub's lexer gives them; ExpressionError for text it
    rejects (an unterminated string, a number or an identifier it cannot read)."""
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"the expression is longer than {MAX_LENGTH} characters", 0)
    found: list[Token] = []
    i, n = 0, len(text)

    def previous() -> str:
        return found[-1].kind if found else "EOF"

    while i < n:
        start, c = i, text[i]
        i += 1
        two = text[start : start + 2]
        if c in "()[],*":
            found.append(Token(c, c, start))
        elif c == ".":
            if previous() in ("IDENTIFIER", "]", ")", "*"):
                found.append(Token(".", c, start))
            else:
                i = _number(text, start, found)
        elif c in "-+" or (c.isdigit() and c.isascii()):
            i = _number(text, start, found)
        elif two in ("!=", "==", ">=", "<=", "&&", "||"):
            found.append(Token(two, two, start))
            i = start + 2
        elif c in "!<>":
            found.append(Token(c, c, start))
        elif c in " \r\t\n":
            continue
        elif c == "'":
            while i < n and (text[i] != "'" or text[i + 1 : i + 2] == "'"):
                i += 2 if text[i] == "'" else 1
            if i >= n:
                raise ExpressionError(f"unexpected symbol: '{text[start:]}'", start)
            i += 1
            found.append(Token("STRING", text[start:i], start))
        else:  # (a lone `=`, `&` or `|` starts an identifier, which then is not legal)
            i = _WORD_END.search(text, i).start()  # type: ignore[union-attr]
            word = text[start:i]
            kind = "IDENTIFIER"
            if previous() != "." and word in _KEYWORDS:
                kind = _KEYWORDS[word]
            if not _LEGAL.fullmatch(word):
                raise ExpressionError(f"unexpected symbol: '{word}'", start)
            found.append(Token(kind, word, start))
    found.append(Token("EOF", "", n))
    return found


def _number(text: str, start: int, found: list[Token]) -> int:
    i = start + 1
    while i < len(text) and (not _boundary(text[i]) or text[i] == "."):
        i += 1
    word = text[start:i]
    if not _JS_NUMBER.fullmatch(word) or not word.strip():
        raise ExpressionError(f"unexpected symbol: '{word}'", start)
    found.append(Token("NUMBER", word, start))
    return i


@dataclass(frozen=True)
class Use:
    """A context name or a function an expression names, and where."""

    name: str
    start: int
    function: bool


@dataclass(frozen=True)
class Node:
    """A part of a parsed expression, from `start` to `end` in its text. `kind`: an operator
    (`||`, `&&`, `==`, `!=`, `<`, `<=`, `>`, `>=`, `!`, its operands in `parts`; `||` and `&&`
    with all of a chain's), "call" (`name` the function's, lower-case; its arguments in
    `parts`), "ref" (a context and the keys read of it, `*` for a star: `path`), "index" (any
    other indexing: what is indexed and the index in `parts`), "literal" (`value`: a string's
    text, a boolean, None, a number's text; `name` the token's kind), "star" (`[*]`, `.*`)
    or "group" (a parenthesised expression)."""

    kind: str
    start: int
    end: int
    parts: tuple[Node, ...] = ()
    name: str = ""
    path: tuple[str, ...] | None = None
    value: str | bool | None = None


class _Parser:
    def __init__(
        self,
        items: list[Token],
        contexts: frozenset[str] = CONTEXTS,
        functions: dict[str, tuple[int, int]] = FUNCTIONS,
    ) -> None:
        self.items = items
        self.contexts = contexts
        self.functions = functions
        self.at = 0
        self.depth = 0
        self.uses: list[Use] = []

    def peek(self) -> Token:
        return self.items[self.at]

    def match(self, *kinds: str) -> bool:
        if self.peek().kind in kinds:
            self.at += 1
            return True
        return False

    def end(self) -> int:
        """Where the last token read ends."""
        last = self.items[self.at - 1]
        return last.start + len(last.text)

    def fail(self, token: Token) -> ExpressionError:
        if token.kind == "EOF":
            return ExpressionError("unexpected end of expression", token.start)
        return ExpressionError(f"unexpected symbol: '{token.text}'", token.start)

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ExpressionError(f"the expression nests deeper than {MAX_DEPTH}", 0)

    def expression(self) -> Node:
        self.deeper()
        node = self.binary(0)
        self.depth -= 1
        return node

    _LEVELS = (("||",), ("&&",), ("==", "!="), (">", ">=", "<", "<="))

    def binary(self, level: int) -> Node:
        if level == len(self._LEVELS):
            return self.unary()
        node = self.binary(level + 1)
        while self.peek().kind in self._LEVELS[level]:
            kind = self.peek().kind
            self.at += 1
            right = self.binary(level + 1)
            if level < 2 and node.kind == kind and node.parts:  # (a chain of `||` or `&&`)
                parts = (*node.parts, right)
            else:
                parts = (node, right)
            node = Node(kind, parts[0].start, right.end, parts)
        return node

    def unary(self) -> Node:
        start = self.peek().start
        if self.match("!"):
            self.deeper()
            operand = self.unary()
            self.depth -= 1
            return Node("!", start, operand.end, (operand,))
        return self.index()

    def index(self) -> Node:
        node, accessible = self.call()
        increased = 0
        while accessible:
            if self.match("["):
                at = self.peek().start
                key = Node("star", at, at + 1) if self.match("*") else self.expression()
                if not self.match("]"):
                    raise self.fail(self.peek())
            elif self.match("."):
                if not self.match("IDENTIFIER", "*"):
                    raise self.fail(self.peek())
                name = self.items[self.at - 1]
                key = Node("literal", name.start, self.end(), (), "STRING", None, name.text)
                if name.kind == "*":
                    key = Node("star", name.start, self.end())
            else:
                break
            read = "*" if key.kind == "star" else key.value if key.name == "STRING" else None
            if node.path is not None and isinstance(read, str):
                node = Node("ref", node.start, self.end(), (), "", (*node.path, read))
            else:
                node = Node("index", node.start, self.end(), (node, key))
            self.deeper()
            increased += 1
        self.depth -= increased
        return node

    def call(self) -> tuple[Node, bool]:
        """A primary, and whether it can be indexed (a group, a call or a context)."""
        token = self.peek()
        if token.kind != "IDENTIFIER":
            return self.primary()
        self.at += 1
        name = token.text.lower()
        if not self.match("("):
            if name not in self.contexts:
                raise ExpressionError(f"unrecognized named-value: '{token.text}'", token.start)
            self.uses.append(Use(token.text, token.start, False))
            return Node("ref", token.start, self.end(), (), "", (name,)), True
        arguments: list[Node] = []
        while not self.match(")"):
            arguments.append(self.expression())
            if self.peek().kind != ")" and not self.match(","):
                raise self.fail(self.peek())
        count = len(arguments)
        bounds = self.functions.get(name)
        if bounds is None:
            raise ExpressionError(f"unrecognized function: '{token.text}'", token.start)
        if count < bounds[0]:
            raise ExpressionError(f"too few parameters supplied: '{token.text}'", token.start)
        if count > bounds[1]:
            raise ExpressionError(f"too many parameters supplied: '{token.text}'", token.start)
        if name == "case" and count % 2 == 0:
            raise ExpressionError("case requires an odd number of arguments", token.start)
        self.uses.append(Use(token.text, token.start, True))
        return Node("call", token.start, self.end(), tuple(arguments), name), True

    def primary(self) -> tuple[Node, bool]:
        token = self.peek()
        if self.match("FALSE", "TRUE", "NULL", "NUMBER", "STRING"):
            value = _LITERALS.get(token.kind, token.text)
            if token.kind == "STRING":
                value = token.text[1:-1].replace("''", "'")
            return Node("literal", token.start, self.end(), (), token.kind, None, value), False
        if self.match("("):
            inner = self.expression()
            if self.peek().kind == "EOF":
                raise ExpressionError("unexpected end of expression", self.peek().start)
            if not self.match(")"):
                raise self.fail(self.peek())
            return Node("group", token.start, self.end(), (inner,)), True
        raise self.fail(token)


_LITERALS: dict[str, str | bool | None] = {"TRUE": True, "FALSE": False, "NULL": None}


@functools.lru_cache(maxsize=4096)
def parse_error(text: str) -> ExpressionError | None:
    """Why GitHub's parser rejects the expression, with any context a workflow's jobs may use
    (None: it parses); kept, as a workflow repeats most of its own."""
    try:
        parse(text)
    except ExpressionError as error:
        return error
    return None


def parse(
    text: str,
    contexts: frozenset[str] = CONTEXTS,
    functions: dict[str, tuple[int, int]] | None = None,
) -> list[Use]:
    """The context names and functions the expression uses; ExpressionError where GitHub's
    parser rejects it. An empty expression is none. `contexts` and `functions` (lower-case,
    besides the built-in ones): what the value it stands in may name (`workflow_schema`);
    by default any a workflow's jobs may."""
    known = FUNCTIONS if functions is None else {**BUILT_IN, **functions}
    parser = _Parser(tokens(text), contexts, known)
    if parser.peek().kind == "EOF":
        return []
    parser.expression()
    if parser.peek().kind != "EOF":
        raise parser.fail(parser.peek())
    return parser.uses


def tree(text: str) -> Node | None:
    """The expression as GitHub's parser reads it; None where it rejects it or it is empty."""
    try:
        parser = _Parser(tokens(text))
        if parser.peek().kind == "EOF":
            return None
        node = parser.expression()
    except ExpressionError:
        return None
    return node if parser.peek().kind == "EOF" else None


@dataclass(frozen=True)
class Embedded:
    """One `${{ ... }}` of a value: its text and where it starts (just after `${{`)."""

    text: str
    start: int
    closed: bool  # False: no `}}` ends it


# what ends a stretch of an expression's text: a string's quote, or the `}}` that closes it
_STRING_OR_CLOSE = lazy_compile(r"'|\}\}")


def embedded(value: str) -> Iterator[Embedded]:
    """Each `${{ ... }}` of a workflow value, ended at the first `}}` outside a string."""
    at = value.find("${{")
    while at >= 0:
        i = start = at + 3
        closed = False
        while True:
            found = _STRING_OR_CLOSE.search(value, i)
            if found is None:
                i = len(value)
                break
            i = found.start()
            if value[i] == "'":
                end = value.find("'", i + 1)
                while end >= 0 and value[end + 1 : end + 2] == "'":
                    end = value.find("'", end + 2)
                if end < 0:
                    break
                i = end + 1
                continue
            closed = True  # (`}}`)
            break
        yield Embedded(value[start:i], start, closed)
        if not closed:
            return
        at = value.find("${{", i + 2)
