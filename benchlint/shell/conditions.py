"""A guard's condition as a small tree, made from tree-sitter-bash's nodes once per script, the
first time one of its guards is decided: what `evaluate` decides under each route's variables.

A condition is None (a command or construct whose status is not modelled), or a tuple:
- `("test", double, expression)`: `[ ... ]` (double False) or `[[ ... ]]` (True);
- `("not", condition)`, `("and", left, right)`, `("or", left, right)`: `!`, `&&`, `||`;
- `("const", value)`: `true`, `:`, `false`;
- `("arith", op, left, right)`: `(( NAME OP NUMBER ))` and the like (see `arithmetic`);
- `("command", command)`: another simple command, which a probe may decide (`grep -q`).

An expression (inside a test) is None (an operator not modelled), or:
- `("not", e)`, `("and", a, b)`, `("or", a, b)`: `!`, `&&`/`-a`, `||`/`-o`;
- `("unary", op, operand)`: `-z`/`-n` and its operand's `Syn` (op "": `test WORD`, not empty);
- `("set", operand)`: `-v NAME`, whether the variable is set (bash 4.2);
- `("file", op, operand)`: a file test (`-d`, `-f`, `-e`...): false for an empty path, else not
  decided (the file system is not read);
- `("binary", op, left, right)`: a comparison of two operands' `Syn`;
- `("word", operand)`: a lone operand (true when not empty).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from benchlint.lazyre import lazy_compile

if TYPE_CHECKING:
    from tree_sitter import Node

    from benchlint.shell.model import Command, Syn

Condition = tuple[Any, ...] | None

_ARITHMETIC_COMPARISONS = frozenset({">", "<", ">=", "<=", "==", "!="})
# the tests of a file by its path (`[ -d "$DIR" ]`): none holds for the empty path
_FILE_TESTS = frozenset(
    {"-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-u", "-w", "-x"}
    | {"-G", "-L", "-N", "-O", "-S"}
)
_OPERANDS = frozenset(
    {"string", "simple_expansion", "expansion", "word", "concatenation", "raw_string"}
)


# the nodes of a test that are expressions, not operands
_EXPRESSIONS = frozenset({"binary_expression", "unary_expression", "parenthesized_expression"})
# `"$F" = vllm`: two words (plain text and quoted strings, no blank outside quotes) compared
_WORD = rb"(?:\"(?:[^\"\\]|\\.)*\"|'[^']*'|[^\s\"'()<>&|;\\])+"
_COMPARISON = lazy_compile(
    rb"\s*(?P<left>" + _WORD + rb")\s+(?P<op>==|=|!=|-eq|-ne|-lt|-le|-gt|-ge)\s+"
    rb"(?P<right>" + _WORD + rb")\s*"
)
# `-z "$X"`, `-n "$X"`: a test of one word's emptiness
_UNARY = lazy_compile(rb"\s*(?P<op>-z|-n)\s+(?P<word>" + _WORD + rb")\s*")


# a `$` outside double quotes (single-quoted text holds none that expands)
_UNQUOTED_EXPANSION = lazy_compile(rb"^(?:\"(?:[^\"\\]|\\.)*\"|'[^']*'|[^$\"'])*\$")


def split_outside_quotes(
    text: bytes, operators: tuple[bytes, ...]
) -> tuple[list[tuple[int, int]], list[bytes]] | None:
    """Where the text's pieces are between the operators (words of their own) outside quotes,
    and the operators; None where it holds a substitution, a backquote, `;`, a group or a pipe
    (not a list of tests alone)."""
    pieces: list[tuple[int, int]] = []
    found: list[bytes] = []
    start, i, quote = 0, 0, 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == 0x5C and quote == 0x22:  # (a backslash in double quotes)
                i += 2
                continue
            if char == quote:
                quote = 0
        elif char in (0x22, 0x27):
            quote = char
        elif char in b"`;(){}" or text.startswith(b"$(", i):
            return None
        else:
            op = next((o for o in operators if text.startswith(o, i)), None)
            after = i + len(op) if op else i
            if (
                op
                and (i == 0 or text[i - 1] in b" \t")
                and (after == len(text) or text[after] in b" \t")
            ):
                pieces.append((start, i))
                found.append(op)
                i = start = after
                continue
            if char == 0x7C:  # (`|`)
                return None
        i += 1
    if quote:
        return None
    pieces.append((start, len(text)))
    return pieces, found


# a redirection of a message to the script's own output or error, or nowhere (`>&2`, `2>&1`,
# `1>&1`, `3>&2`, `> /dev/stderr`, `>/dev/null`, with no blanks): it changes no status (h44 N2)
TO_OUTPUT = lazy_compile(r"[0-9]?>(?:&[12]|/dev/(?:stdout|stderr|null))")


# a printf format of strings only, quoted, with no expansion (`'%s: %s\n'`, `"no %s\n"`)
_STRING_FORMAT = lazy_compile(r"'(?!-)(?:[^'%]|%[sb%])*'|\"(?!-)(?:[^\"%\\$`]|\\.|%[sb%])*\"")


class Compiler:
    """Compiles the conditions of one script: `text_of` reads a node's text, `syn` keeps where
    a node is, `command_at` finds the model's command of a `command` node."""

    def __init__(
        self,
        text_of: Callable[[Node], str],
        syn: Callable[[Node], Syn],
        command_at: Callable[[Node], Command | None],
    ) -> None:
        self.text_of = text_of
        self.syn = syn
        self.command_at = command_at

    def arithmetic(self, node: Node) -> Condition:
        """`(( NAME OP NUMBER ))`, `(( NUMBER OP NAME ))` (OP a comparison) or `(( NAME ))`:
        `("arith", op, left, right)`, each side `("name", text)` or `("number", value)`; any
        other arithmetic is not modelled."""
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) != 1:
            return None
        expression = inner[0]
        if expression.type in ("variable_name", "word"):
            return ("arith", "!=", self.operand(expression), ("number", 0))
        parts = self.binary(expression) if expression.type == "binary_expression" else None
        if parts is None:
            return None
        left, op, right = parts
        sides = (self.operand(left), self.operand(right))
        if op not in _ARITHMETIC_COMPARISONS or None in sides:
            return None
        return ("arith", op, *sides)

    def binary(self, node: Node) -> tuple[Node, str, Node] | None:
        """A binary expression's left side, operator and right side."""
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        if left is None or right is None or operator is None:
            return None
        return left, self.text_of(operator), right

    def operand(self, node: Node) -> tuple[str, Any] | None:
        text = self.text_of(node)
        if node.type == "number" and text.isdigit() and (text == "0" or text[0] != "0"):
            return ("number", int(text))
        if node.type in ("variable_name", "word") and text.isidentifier():
            return ("name", text)
        return None

    def condition(self, node: Node) -> Condition:
        kind = node.type
        if kind == "test_command":
            inner = [c for c in node.named_children if c.type != "comment"]
            if len(inner) != 1:
                return None
            double = self.text_of(node).startswith("[[")
            expression = self.expression(inner[0])
            if expression is None:  # (a misparse, `[[ $F = a || $F = b ]]`: read from the text)
                expression = self.comparisons(node, double)
            return ("test", double, expression)
        if kind == "compound_statement" and node.child_count and node.children[0].type == "((":
            return self.arithmetic(node)
        if kind == "negated_command":
            inner_nodes = node.named_children
            return ("not", self.condition(inner_nodes[-1]) if inner_nodes else None)
        if kind == "list":
            named = node.named_children
            operator = next((c.type for c in node.children if c.type in ("&&", "||")), None)
            if len(named) != 2 or operator is None:
                return None
            left, right = self.condition(named[0]), self.condition(named[1])
            return ("and" if operator == "&&" else "or", left, right)
        if kind == "command" and node.named_children:
            name = self.text_of(node.named_children[0])
            if name == "test":  # (`test ARGS` is `[ ARGS ]`: h101 F7)
                expression = self.test_arguments(node.named_children[1:])
                if expression is not None:
                    return ("test", False, expression)
            if len(node.named_children) == 1:
                if name in ("true", ":"):
                    return ("const", True)
                if name == "false":
                    return ("const", False)
            if name == "echo":  # (a message: `[ -z "$X" ] && echo "X unset" && exit 1`)
                return ("const", True)
            if name == "printf" and len(node.named_children) > 1:
                # (`printf '%s\n' "$(basename "$0"): X unset"`: a format of strings only, a
                # word written out, cannot fail whatever its arguments are: h43 N3)
                form = self.text_of(node.named_children[1])
                if _STRING_FORMAT.fullmatch(form):
                    return ("const", True)
            return ("command", self.command_at(node))
        if kind == "redirected_statement":
            # (`... && echo "X unset" >&2`: output sent to the script's error changes no status)
            body = node.child_by_field_name("body")
            redirects = [c for c in node.named_children if c != body]
            if body is not None and all(
                TO_OUTPUT.fullmatch("".join(self.text_of(r).split())) for r in redirects
            ):
                return self.condition(body)
        return None

    def test_arguments(self, args: list[Node]) -> Condition:
        """The expression of `test`'s arguments as POSIX reads them by their number (one: not
        empty; two: `!` or a unary test; three: a comparison, or `!` and two); None for more,
        or an argument that is not a plain word (a redirection, a herestring)."""
        if not args or len(args) > 3 or any(a.type not in _OPERANDS for a in args):
            return None
        words = [self.text_of(a) if a.type == "word" else None for a in args]
        if len(args) == 1:  # (no operator: an empty unquoted word leaves `test` none, false)
            return ("unary", "", self.syn(args[0]))
        if len(args) == 3 and words[1] in ("=", "==", "!="):
            return ("binary", words[1], self.syn(args[0]), self.syn(args[2]))
        if words[0] == "!":
            inner = self.test_arguments(args[1:])
            return None if inner is None else ("not", inner)
        if len(args) != 2:
            return None
        if words[0] in ("-z", "-n"):
            return ("unary", words[0], self.syn(args[1]))
        if words[0] == "-v":
            return ("set", self.syn(args[1]))
        if words[0] in _FILE_TESTS:
            return ("file", words[0], self.syn(args[1]))
        return None

    def comparisons(self, node: Node, double: bool) -> Condition:
        """A test tree-sitter-bash misreads, read from its text (h43 F2): comparisons of two
        words (`=`, `==`, `!=`, `-eq`...`-ge`) and `-z`/`-n` tests of one, joined by one operator
        (`||` or `&&` in `[[ ]]`, `-o` or `-a` in `[ ]`: h131 F3), each word a run of plain text
        and quoted strings; else None."""
        from benchlint.shell.model import Syn  # (the model imports this module)

        raw = node.text or b""
        opening, closing = (b"[[", b"]]") if double else (b"[", b"]")
        if not (raw.startswith(opening) and raw.endswith(closing)):
            return None
        body_at = node.start_byte + len(opening)
        body = raw[len(opening) : len(raw) - len(closing)]
        joins = (b"||", b"&&") if double else (b"-o", b"-a")
        parts = split_outside_quotes(body, joins)
        if parts is None or not parts[1] or len(set(parts[1])) != 1:
            return None
        terms: list[Condition] = []
        for start, end in parts[0]:
            unary = _UNARY.fullmatch(body, start, end)
            match = unary or _COMPARISON.fullmatch(body, start, end)
            if match is None:
                return None
            words = ("word",) if unary else ("left", "right")
            if not double and any(_UNQUOTED_EXPANSION.search(match[w]) for w in words):
                return None  # (in `[ ]` it splits or goes, shifting the words after it)
            syn = [Syn("word", body_at + match.start(w), body_at + match.end(w)) for w in words]
            op = match.group("op").decode()
            terms.append(("unary", op, syn[0]) if unary else ("binary", op, *syn))
        kind = "or" if parts[1][0] in (b"||", b"-o") else "and"
        tree = terms[-1]
        for term in reversed(terms[:-1]):
            tree = (kind, term, tree)
        return tree

    def expression(self, node: Node) -> Condition:
        kind = node.type
        if kind == "parenthesized_expression":
            inner = node.named_children
            return self.expression(inner[0]) if len(inner) == 1 else None
        if kind == "unary_expression":
            operator = node.child_by_field_name("operator")
            operands = [c for c in node.named_children if c.type != "test_operator"]
            op = self.text_of(operator) if operator is not None else ""
            if len(operands) != 1:
                return None
            if op == "!":
                return ("not", self.expression(operands[0]))
            if operands[0].type in _EXPRESSIONS:
                return None  # (a misparse: `[ -n "$A" -a "$B" = x ]`, h42 N4)
            if op in ("-z", "-n"):
                return ("unary", op, self.syn(operands[0]))
            if op == "-v":
                return ("set", self.syn(operands[0]))
            if op in _FILE_TESTS:
                return ("file", op, self.syn(operands[0]))
            return None
        if kind == "binary_expression":
            parts = self.binary(node)
            if parts is None:
                return None
            left, op, right = parts
            if op in ("&&", "-a"):
                return ("and", self.expression(left), self.expression(right))
            if op in ("||", "-o"):
                return ("or", self.expression(left), self.expression(right))
            if left.type in _EXPRESSIONS or right.type in _EXPRESSIONS:
                # (tree-sitter-bash reads `[[ $F = a || $F = b ]]` as `$F = (a || $F) = b`,
                # and `-a`/`-o` in `[ ]` likewise: a comparison of an expression is a misparse,
                # not decided, h42 N4)
                return None
            return ("binary", op, self.syn(left), self.syn(right))
        if kind in _OPERANDS:
            return ("word", self.syn(node))
        return None
