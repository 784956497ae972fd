"""The shell model: a script's commands, assignments, expansions and nested scripts.

Built once per file from the tree-sitter-bash tree, which is then let go: the model keeps facts
(each word's value, the variables it reads, where every piece of syntax is: `Syn`), not nodes.
Every rule that reads shell asks this model; none walks the tree for itself. What is asked of
few scripts parses the script again when first asked: its guards' conditions (as small trees,
`conditions.py`) and reads, the first time one of them is decided; a statement's shape
(`Command.statement`). A nested script (`bash -c "..."`,
`ssh host '...'`, a heredoc fed to a shell, the string `eval` runs, also through a function
that `eval`s an argument) is a `Script` of its own, with `parent` set and every position mapped
to the outer file.
"""

from __future__ import annotations

import bisect
import functools
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, cast

from benchlint.finding import Span
from benchlint.lazyre import lazy_compile
from benchlint.shell.conditions import Compiler, Condition
from benchlint.shell.invocation import FILES, LONE_VARIABLE, Invocation, resolve
from benchlint.shell.words import EXPANSIONS, heredoc_body, unquote
from benchlint.source import SourceText, char_offsets

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

_PARSER: Parser | None = None


def parse_tree(src: bytes) -> Tree:
    """tree-sitter-bash's tree of a text. The grammar is loaded on the first parse: a run the
    cache answers loads none."""
    global _PARSER
    if _PARSER is None:
        import tree_sitter_bash
        from tree_sitter import Language, Parser

        _PARSER = Parser(Language(tree_sitter_bash.language()))
    return _PARSER.parse(src)


def syntax_suspect(tree: Tree) -> bool:
    """Whether bash may reject a text tree-sitter-bash parsed: it found an error, or a reserved
    word where a command's name stands (`Script.has_error` says the same of a script)."""
    if tree.root_node.has_error:
        return True
    global _COMMAND_NAMES
    if _COMMAND_NAMES is None:
        from tree_sitter import Query

        assert _PARSER is not None and _PARSER.language is not None
        _COMMAND_NAMES = Query(_PARSER.language, "(command_name (word) @name)")
    from tree_sitter import QueryCursor

    names = QueryCursor(_COMMAND_NAMES).captures(tree.root_node).get("name", [])
    return any(node.text in _MISPLACED for node in names)


_COMMAND_NAMES: Any = None

_DECLARATIONS = frozenset({"export", "declare", "typeset", "local", "readonly"})
# words before a builtin that run it in this shell (`command export`, `builtin source x`; bash's
# `time` is read as blanks: `parse_file`)
IN_THIS_SHELL = frozenset({"command", "builtin"})
# reserved words that close or continue a compound command: one where a command's name stands
# is one bash finds out of place (tree-sitter-bash reads it as a command)
_MISPLACED = frozenset({b"then", b"elif", b"else", b"fi", b"do", b"done", b"esac"})


class Syn(NamedTuple):
    """Where a piece of a script's syntax is (bytes of `Script.src`) and what it is
    (tree-sitter-bash's node type): what the model keeps of a node."""

    type: str
    start_byte: int
    end_byte: int


_tuple = tuple.__new__  # (a NamedTuple's own `__new__` is a Python function: twice as slow)


# what follows an `unset` on its line (`Script.may_unset`)
_UNSET = lazy_compile(r"\bunset\b([^\n;|&]*)")


def syn(node: Node) -> Syn:
    # (tree-sitter makes a new string of a node's type each time it is asked: one is kept)
    return _tuple(Syn, (sys.intern(node.type), node.start_byte, node.end_byte))


# a brace's text bash expands as a sequence: `1..4`, `a..e`, `01..10..2`
_SEQUENCE = lazy_compile(r"(?:-?\d+\.\.-?\d+|[A-Za-z]\.\.[A-Za-z])(?:\.\.-?\d+)?")


def brace_expands(text: str) -> bool:
    """Whether a word's text holds a brace expansion bash performs: an unquoted, unescaped `{`
    whose text up to its matching `}` has an unquoted `,` or is a sequence (`1..4`); bash does
    not take `${` as one (the `${...}` is skipped, to its first `}`)."""
    quote = ""
    opened: list[tuple[int, bool]] = []  # per open `{`: where its text starts, a `,` in it
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"':
                i += 1
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote = c
        elif c == "$" and text.startswith("{", i + 1):
            end = text.find("}", i)
            i = len(text) if end < 0 else end
        elif c == "{":
            opened.append((i + 1, False))
        elif c == "}" and opened:
            start, comma = opened.pop()
            if comma or _SEQUENCE.fullmatch(text, start, i):
                return True
        elif c == "," and opened:
            opened[-1] = (opened[-1][0], True)
        i += 1
    return False


def sets_positional(command: Command) -> bool:
    """Whether a `set` command gives the positional parameters new values: a `--`, or an
    operand after its options (`set -e`, `set -euo pipefail` do not; `set -- a b`, `set a` do;
    a word not known statically may)."""
    words = command.args
    index = 0
    while index < len(words):
        word = words[index]
        if not word.static or word.value == "--":
            return True
        if word.value[:1] not in ("-", "+") or word.value in ("-", "+"):
            return True
        index += 2 if "o" in word.value[1:] else 1  # (`-o NAME`, `-euo pipefail`)
    return False


def may_change_positionals(command: Command) -> bool:
    """Whether the command may give its shell's positional parameters new values: a `shift`, a
    `set` that does (`sets_positional`), or what may run either, an `eval` or a `source`."""
    return command.base in ("shift", "eval", "source", ".") or (
        command.base == "set" and sets_positional(command)
    )


def positionals_changed_before(command: Command) -> bool:
    """Whether the top level of the command's script may give its positional parameters new
    values before the command (`shift`, `set --`, `set a b`): where it does not, `$1` in a
    command of that top level is still the script's first argument. Worked out once per
    command (asked per route)."""
    script = command.script
    key = f"positionals-changed:{command.node.start_byte}"
    if key not in script.memo:
        script.memo[key] = any(
            c.function is None
            and c.node.start_byte < command.node.start_byte
            and (c.base == "shift" or (c.base == "set" and sets_positional(c)))
            for c in script.commands
        )
    return script.memo[key] is True


def first_line(text: str) -> str:
    """A command's text as a message quotes it: its first line, without a trailing `\\`, and
    `…` when more follows (a multi-line `bash -c "..."` would otherwise look unbalanced)."""
    first, *rest = text.split("\n", 1)
    return first.rstrip().removesuffix("\\").rstrip() + (" …" if rest else "")


def one_line(text: str) -> str:
    """A statement's text on one line as a message quotes it: a line continued with `\\` goes
    on after a blank, another line break is the `;` it stands for (not after `(`, `{`, `|`,
    `&&`, `||`, `&`, `then`, `do`, `else`, `in`, nor before `)` or `;;`), a line that is a
    comment left out, and runs of blanks are one."""
    lines = [" ".join(line.split()) for line in text.replace("\\\n", " ").split("\n")]
    out = ""
    for line in (line for line in lines if line and not line.startswith("#")):
        if not out:
            out = line
        elif _NO_SEMICOLON.search(out) or line.startswith((")", ";;")):
            out += " " + line
        else:
            out += "; " + line
    return out


# the end of a line after which a line break is no `;`
_NO_SEMICOLON = lazy_compile(r"(?:[({|&;]|(?:^|\s)(?:then|do|else|in))$")


class Word:
    """A shell word: its value after quote removal (expansions kept verbatim), whether it holds
    an expansion, where each character of the value is in the file, and the variables it reads.
    `items`: an array's elements (`(a "b c")`), None for any other word."""

    __slots__ = ("_offsets", "_reads", "items", "node", "script", "static", "value")

    def __init__(
        self,
        script: Script,
        node: Syn,
        value: str,
        offsets: tuple[int, ...] | None,
        static: bool,
        reads: tuple[Read, ...] = (),
        items: list[Word] | None = None,
    ) -> None:
        """`offsets`: where the characters of the value are in the file, as `runs`; None when
        the value is a slice of the file's text (the word's, inside its quotes if quoted)."""
        self.script = script
        self.node = node
        self.value = value
        self._offsets = offsets
        self.static = static
        self._reads = reads
        self.items = items

    @property
    def offsets(self) -> list[int]:
        """The file char offset of each char of the value."""
        offsets = self._offsets
        if offsets is None:
            node = self.node
            first = self.script.char_of(node.start_byte) + (node.type in ("string", "raw_string"))
            return list(range(first, first + len(self.value)))
        return _expand_runs(offsets, len(self.value))

    @property
    def text(self) -> str:
        return self.script.text_of(self.node)

    @property
    def span(self) -> Span:
        return self.script.span(self.node)

    @property
    def brace_expands(self) -> bool:
        """Whether bash makes several words of this one by brace expansion (`node{1..4}`,
        `--tp={4,8}`: an unquoted `{` with an unquoted `,` or `..` before its `}`). A glob
        pattern (`node[1-4]`) is not counted: bash keeps it as it is when no file matches."""
        text = self.text
        return "{" in text and brace_expands(text)

    def reads(self) -> list[Read]:
        """The variables this word reads, in text order (command substitutions included)."""
        return list(self._reads)

    @property
    def literal_prefix(self) -> str:
        """The value's text before its first expansion or substitution: all of it for a static
        word, `--jobid=` of `--jobid=$JOB` (as an option reader sees the option's name)."""
        value = self.value
        if self.static:
            return value
        cut = min((i for i in (value.find("$"), value.find("`")) if i >= 0), default=len(value))
        return value[:cut]

    @property
    def option_form(self) -> str | None:
        """The word as an option reader sees it, where its text says: the value of a static
        word, or an option whose value alone is not known with a stand-in value
        (`--jobid=$JOB`: `--jobid=0`); None otherwise."""
        if self.static:
            return self.value
        head = self.literal_prefix
        if head.startswith("--") and "=" in head:
            return head.partition("=")[0] + "=0"
        return None

    def pieces(self) -> list[tuple[str, Span]]:
        """The blank-separated pieces of the value, each with its span in the file: the words
        bash splits it into when it expands it unquoted (`$CMD` of `CMD="python3 x.py --a"`),
        as far as its text goes (a piece holding an expansion stands for what that expands to)."""
        text = self.value
        offsets = self.offsets
        file = self.script.file
        return [
            (text[start:end], file.span(offsets[start], offsets[end - 1] + 1))
            for start, end in blank_separated(text)
        ]

    def unquoted_variable(self) -> str | None:
        """NAME for a word that is exactly an unquoted `$NAME` or `${NAME}` (split by the
        shell)."""
        if self.node.type not in ("simple_expansion", "expansion"):
            return None
        return self.variable()

    def variable(self) -> str | None:
        """X when the whole word is `$X`, `${X}`, `"$X"` or `"${X}"`."""
        if self.node.type not in ("string", "simple_expansion", "expansion"):
            return None
        match = _VARIABLE.fullmatch(self.text)
        return None if match is None else match.group(2) or match.group(3)


def blank_separated(text: str) -> list[tuple[int, int]]:
    """Where the blank-separated pieces of a value are: blanks inside an expansion written in
    it (`$(get_nodes --n 2)`, `${X// -a/}`, backquotes) split nothing (its result is the word's,
    as far as the text can tell)."""
    found: list[tuple[int, int]] = []
    start, depth, closers, quoted = -1, 0, [], False
    i = 0
    while i < len(text):
        char = text[i]
        if char == "`":
            quoted = not quoted
        elif not quoted and char == "$" and text[i + 1 : i + 2] in ("(", "{"):
            closers.append(")" if text[i + 1] == "(" else "}")
            depth += 1
            if start < 0:
                start = i
            i += 2
            continue
        elif not quoted and depth and char in "({":
            closers.append(")" if char == "(" else "}")
            depth += 1
        elif not quoted and depth and char == closers[-1]:
            closers.pop()
            depth -= 1
        if char in " \t\n" and not depth and not quoted:
            if start >= 0:
                found.append((start, i))
                start = -1
        elif start < 0:
            start = i
        i += 1
    if start >= 0:
        found.append((start, len(text)))
    return found


_VARIABLE = lazy_compile(r'(")?\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))(?(1)")')


def whole_piece(word: Word, read: Read) -> bool:
    """Whether a read of the word is a whole blank-separated piece of its value (`$LEN` in
    `"--max-model-len $LEN"`, `$PID` in `"$PIDS $PID"`; not in `slurm-$JOB.out` or
    `"$DIR/x.py"`): split unquoted, the piece is the variable's value alone."""
    text = word.script.src
    start, end = read.node.start_byte, read.node.end_byte
    before = text[start - 1 : start] if start > word.node.start_byte else b""
    after = text[end : end + 1] if end < word.node.end_byte else b""
    return before in _PIECE_EDGE and after in _PIECE_EDGE


_PIECE_EDGE = (b"", b" ", b"\t", b'"', b"'")


def _args_in_redirect(redirect: Node) -> list[Node]:
    """The words tree-sitter-bash reads as a file redirect's destinations after its first:
    arguments of the command to bash (`cmd <in a b` runs `cmd a b`)."""
    return redirect.children_by_field_name("destination")[1:]


def make_word(script: Script, node: Node, found: _Reads) -> Word:
    """The word at a node: quote removal done, its reads (`found`: the script's) kept."""
    kind = node.type
    src = script.src
    start, end = node.start_byte, node.end_byte
    reads = found.inside(start, end) if src.find(b"$", start, end) >= 0 else ()
    items = None
    if kind == "array":
        items = [make_word(script, child, found) for child in node.named_children]
    where = _tuple(Syn, (sys.intern(kind), start, end))
    if script.contiguous and src.find(b"\\", start, end) < 0:
        # the value is a slice of the text: its characters' offsets run on from the first
        if kind in ("word", "number") and node.child_count == 0:
            text = src[start:end].decode("utf-8", errors="surrogateescape")
            return Word(script, where, text, None, True, reads, items)
        if kind == "raw_string" or (kind == "string" and end - start >= 2):
            text = src[start + 1 : end - 1].decode("utf-8", errors="surrogateescape")
            static = kind == "raw_string" or not any(c.type in EXPANSIONS for c in node.children)
            return Word(script, where, text, None, static, reads, items)
    value, offsets, static = unquote(node, src, script.char_of)
    return Word(script, where, value, runs(offsets), static, reads, items)


def runs(offsets: list[int]) -> tuple[int, ...]:
    """Offsets kept short: (index, offset) flattened, where each run of consecutive offsets
    starts (a word's characters mostly lie one after the other in the file)."""
    found: list[int] = []
    previous = -2
    for i, offset in enumerate(offsets):
        if offset != previous + 1:
            found += (i, offset)
        previous = offset
    return tuple(found)


def _expand_runs(found: tuple[int, ...], length: int) -> list[int]:
    offsets: list[int] = []
    for k in range(0, len(found), 2):
        index, offset = found[k], found[k + 1]
        end = found[k + 2] if k + 2 < len(found) else length
        offsets.extend(range(offset, offset + end - index))
    return offsets


class JoinedWord(Word):
    """One shell word that tree-sitter-bash parsed as two adjacent arguments (`--x=$A:$B` is
    read as `--x=$A:$` and `B`): the parts' values, offsets and reads joined; its node is the
    first part's (its text and span cover both)."""

    __slots__ = ("parts",)

    def __init__(self, first: Word, second: Word) -> None:
        parts = [*getattr(first, "parts", [first]), *getattr(second, "parts", [second])]
        super().__init__(
            first.script,
            first.node,
            "".join(p.value for p in parts),
            runs([o for p in parts for o in p.offsets]),
            all(p.static for p in parts),
        )
        self.parts = parts

    @property
    def text(self) -> str:
        file = self.script.file
        start, end = self.parts[0].span, self.parts[-1].span
        lines = file.text.split("\n")[start.line - 1 : end.end_line]
        lines[-1] = lines[-1][: end.end_column - 1]
        lines[0] = lines[0][start.column - 1 :]
        return "\n".join(lines)

    @property
    def span(self) -> Span:
        start, end = self.parts[0].span, self.parts[-1].span
        return Span(start.line, start.column, end.end_line, end.end_column)

    def reads(self) -> list[Read]:
        """The parts' reads, and the one the split cut in two: tree-sitter-bash ends a part
        with the `$` of `$NAME` and starts the next with `NAME`."""
        found: list[Read] = []
        for i, part in enumerate(self.parts):
            found.extend(part.reads())
            if i + 1 == len(self.parts) or not self.script.text_of(part.node).endswith("$"):
                continue
            after = self.parts[i + 1]
            match = _SPLIT_NAME.match(self.script.text_of(after.node))
            if match is None:
                continue
            end, start = part.span, after.span
            at = Span(end.end_line, end.end_column - 1, start.line, start.column + match.end())
            found.append(
                SplitRead(match.group(1) or match.group(2), "", after.node, self.script, False, at)
            )
        return found

    def variable(self) -> str | None:
        return None


_SPLIT_NAME = lazy_compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(eq=False, slots=True)
class Read:
    """A variable read in a word: `$X`, `${X}` (operator ""), `${X:-d}` (":-"), `${#X}` ("#").
    `alone`: the read is a whole unquoted word by itself (`$MODEL`, `${MODEL}`)."""

    name: str
    operator: str
    node: Syn
    script: Script
    alone: bool

    @property
    def plain(self) -> bool:
        return not self.operator

    @property
    def span(self) -> Span:
        return self.script.span(self.node)


# the operators whose operand bash expands only on a condition: `${X:-$Y}` and `${X=$Y}` where X
# is empty (or unset), `${X:+$Y}` where it is not, `${X:?$Y}` to say why the shell stops
CONDITIONAL_OPERATORS = frozenset({"-", ":-", "=", ":=", "+", ":+", "?", ":?"})
# those whose operand is a fallback, expanded only where X is empty or unset (not `${X:+$Y}`,
# whose operand bash expands where X is set: the usual case, h30)
FALLBACK_OPERATORS = frozenset({"-", ":-", "=", ":=", "?", ":?"})


def conditional_outer(read: Read, reads: Sequence[Read]) -> Read | None:
    """The read among `reads` (a word's) in whose operand bash expands this one only as a
    fallback (`${PORT:-$port}`: `$port` only where PORT is empty); None where it is expanded
    whenever its word is, or where the outer name is set (`${PORT:+$port}`)."""
    start, end = read.node.start_byte, read.node.end_byte
    for outer in reads:
        if (
            outer is not read
            and outer.operator in FALLBACK_OPERATORS
            and outer.node.start_byte < start
            and end <= outer.node.end_byte
        ):
            return outer
    return None


@dataclass(eq=False, slots=True)
class SplitRead(Read):
    """A read whose `$` and name tree-sitter-bash put in two parts of one word: located by its
    text (`node` is the part holding the name)."""

    at: Span

    @property
    def span(self) -> Span:
        return self.at


def expansion_nodes(src: bytes, root: Node) -> Iterator[Node]:
    """Every `$X` and `${...}` node of a tree, in text order: found from each `$` of the text,
    the expansion around it (what the query `[(simple_expansion) (expansion)]` captures, in
    half the time; a test holds the two equal). An expansion can start before its `$`:
    tree-sitter-bash puts a line's indentation inside one that begins a line of a string."""
    find, around = src.find, root.named_descendant_for_byte_range
    position = find(b"$")
    while position >= 0:
        node = around(position, position + 1)
        if (
            node is not None
            and node.type in _EXPANSION_TYPES
            and (node.start_byte == position or find(b"$", node.start_byte) == position)
        ):
            yield node
        position = find(b"$", position + 1)


_EXPANSION_TYPES = frozenset({"simple_expansion", "expansion"})


class _Reads:
    """Every variable read of a script (`$X`, `${X...}`, `${X[i]}`: not `$1`, `$@`, `$?`), in
    text order, found in one query of the tree; a word's reads are those inside it."""

    def __init__(self, script: Script, root: Node) -> None:
        found: list[tuple[int, int, Read]] = []
        for node in expansion_nodes(script.src, root):
            first = node.named_child(0) if node.named_child_count else None
            if first is not None and first.type == "variable_name":
                name: Node | None = first
            else:
                name = next((c for c in node.named_children if c.type == "variable_name"), None)
            where = _read_syn(node, script.src)
            if name is not None and script.text_of(name).isidentifier():
                operator = (
                    node.child_by_field_name("operator") if where.type == "expansion" else None
                )
                op = script.text_of(operator) if operator is not None else ""
            else:
                subscript = next((c for c in node.named_children if c.type == "subscript"), None)
                name = subscript.child_by_field_name("name") if subscript is not None else None
                if name is None:
                    continue
                op = "["
            parent = node.parent
            alone = parent is not None and parent.type in ("command", "array")
            read = Read(script.text_of(name), op, where, script, alone)
            found.append((where.start_byte, -where.end_byte, read))
        found.sort(key=lambda f: (f[0], f[1]))  # an expansion before those inside it
        self.starts = [f[0] for f in found]
        self.reads = [f[2] for f in found]

    def inside(self, start: int, end: int) -> tuple[Read, ...]:
        i = bisect.bisect_left(self.starts, start)
        j = bisect.bisect_left(self.starts, end, i)
        return tuple(r for r in self.reads[i:j] if r.node.end_byte <= end)


@dataclass(eq=False, slots=True)
class Assignment:
    name: str
    value: Word | None
    node: Syn
    command: Command
    # assign | export | declare | local | readonly | prefix | read | for | default |
    # arithmetic (`(( n = 1 ))`, `let n=1`) | dynamic (a name known at run time: `export
    # "$k=$v"`, `printf -v "$name"`, an assignment to a nameref whose name is not known,
    # `ref=m` after `local -n ref=$1`; `name` is "": after `local -n ref=PORT`, `ref=m`
    # assigns PORT) | unexport (`export -n NAME`)
    kind: str
    exported: bool

    @property
    def span(self) -> Span:
        return self.command.script.span(self.node)

    @property
    def keeps_value(self) -> bool:
        """`export NAME`, `readonly NAME`, `export -n NAME`: the name keeps the value it has
        (bash changes only its attributes)."""
        return self.value is None and self.kind in ("export", "readonly", "unexport")

    @property
    def appends(self) -> bool:
        """`PORT+=x`: the value is added to the one the variable has."""
        text = self.command.script.text_of(self.node)
        return text.startswith(self.name) and text[len(self.name) :].startswith("+=")

    @property
    def reference(self) -> str | None:
        """The variable a nameref declared here names (`declare -n ref=OUT`, `local -n
        r=OUT`: OUT, what a read of `$ref` reads); None for no nameref, or one whose target
        is known only at run time (`local -n r=$1`)."""
        value = self.value
        if self.kind not in ("declare", "typeset", "local") or value is None or not value.static:
            return None
        flags = (w.value for w in self.command.args if w.node.start_byte < self.node.start_byte)
        if not any(f.startswith("-") and "n" in f for f in flags):
            return None
        return value.value if value.value.isidentifier() else None


@dataclass(eq=False, slots=True)
class Expansion:
    """A parameter expansion with an operator: `${X:-d}`, `${X:?msg}`, `${X:=d}`, ..."""

    name: str
    operator: str  # "" for a plain read
    node: Syn
    script: Script

    @property
    def validates(self) -> bool:
        """`${X:?}`: the shell stops when X is unset or empty (`${X?}` only when unset)."""
        return self.operator == ":?"

    @property
    def defaults(self) -> bool:
        return self.operator in (":-", "-", ":=", "=")

    @property
    def assigns(self) -> bool:
        return self.operator in (":=", "=")


@dataclass(eq=False, slots=True)
class Heredoc:
    node: Syn  # the heredoc_redirect
    body: Syn | None
    quoted: bool
    tabs: bool  # `<<-`: bash strips each line's leading tabs

    def value(self, body: Syn, script: Script) -> tuple[str, list[int]]:
        """The text the heredoc feeds its command, each character's offset in the file."""
        return heredoc_body(body, script.src, script.char_of, self.quoted, self.tabs)


@dataclass(eq=False, slots=True)
class Redirect:
    operator: str  # ">", ">>", "<", "&>", ...
    target: Word


@dataclass(eq=False, slots=True)
class Guard:
    """A condition a command runs under: `if COND` (expect True), its `else` (expect False),
    `COND && cmd`, `COND || cmd`, or a `case WORD in PATTERNS)` item (patterns set)."""

    node: Syn  # the condition statement, or the case word
    expect: bool
    patterns: tuple[Syn, ...]
    script: Script
    # (condition, reads, test reads): worked out for every guard of the script the first time
    # one is asked for (`Script.guard_facts`); most scripts' guards are never decided
    facts: tuple[Condition, tuple[Read, ...], tuple[Read, ...]] | None = None

    @property
    def condition(self) -> Condition:
        """The statement's condition as a small tree (`conditions.py`); None for a case item."""
        return self._facts()[0]

    @property
    def reads(self) -> tuple[Read, ...]:
        """The variables the statement or case word reads."""
        return self._facts()[1]

    @property
    def test_reads(self) -> tuple[Read, ...]:
        """The variables a `[ ... ]` or `[[ ... ]]` condition reads (through `!`); none for a
        command run as a condition or a case item."""
        return self._facts()[2]

    def _facts(self) -> tuple[Condition, tuple[Read, ...], tuple[Read, ...]]:
        if self.facts is None:
            self.script.guard_facts()
        assert self.facts is not None
        return self.facts


@dataclass(eq=False, slots=True)
class Command:
    """A simple command, a declaration (`export X=1`), or a bare assignment (`X=1`, no words)."""

    script: Script
    node: Syn
    words: list[Word]
    # (tuples, most of them the shared empty one: three empty lists per command were a sixth of
    # a script model's memory)
    assignments: tuple[Assignment, ...] = ()
    tested: bool = False  # its status is consumed: if/while/until condition, `&&`/`||`, `!`
    or_guarded: bool = False  # failure runs the right side of a `||`
    # a pipeline's element before its last (`curl ... | head -1`), in a pipeline whose status
    # nothing tests (it is `tested`): its status is the pipeline's only under `pipefail`
    piped: bool = False
    pipefail: bool = False  # `set -o pipefail` in effect in this shell here
    errexit: bool = False  # `set -e` in effect in this shell here
    function: str | None = None
    # the innermost `( ... )`, `$( ... )` or `<( ... )` it runs in: a shell of its own, whose
    # changes (a `cd`, an assignment) stay inside it
    subshell: Syn | None = None
    background: bool = False
    # the element of a pipeline of two or more it is in (the innermost): bash runs each element
    # in a shell of its own (the last too, unless `shopt -s lastpipe`), so what it assigns
    # stays there (`... | while read l; do N=$l; done`)
    apart: Syn | None = None
    # the statement sent to the background as a whole it is part of (a list, a group, a loop, a
    # condition: `cd /w && vllm serve ... &`): `$!` is that statement's shell, not this command
    group: Syn | None = None
    heredocs: tuple[Heredoc, ...] = ()
    guards: tuple[Guard, ...] = ()  # outermost first
    redirects: tuple[Redirect, ...] = ()
    # the loops of its script it runs in, outermost first: a `for`, `while` or `until` loop's
    # body, and a `while`/`until` loop's condition (not a `for` loop's list of words)
    loops: tuple[Syn, ...] = ()
    _base: str | bool | None = field(default=False, init=False, repr=False)  # False: not yet
    _invocation: Invocation | None = field(default=None, init=False, repr=False)

    @property
    def invocation(self) -> Invocation:
        """What the command runs behind its wrappers (`srun ... timeout 60 bash -c ...`)."""
        if self._invocation is None:
            self._invocation = resolve(self)
        return self._invocation

    @property
    def name(self) -> str | None:
        if self.words and self.words[0].static:
            return self.words[0].value
        return None

    @property
    def timed(self) -> bool:
        """Whether bash's `time` times it (`time vllm serve ...`: read as the command alone)."""
        return self.node.start_byte in self.script.timed

    @property
    def base(self) -> str | None:
        """The command name without its directory (`/usr/bin/flock` -> `flock`)."""
        base = self._base
        if base is False:
            name = self.name
            base = self._base = name.rsplit("/", 1)[-1] if name else None
        return base  # type: ignore[return-value]

    @property
    def args(self) -> list[Word]:
        return self.words[1:]

    @property
    def trap_args(self) -> list[Word]:
        """A `trap` command's arguments as bash reads them: the handler, then the signals (a
        leading `--` ends its options, `trap -- 'x' EXIT`)."""
        args = self.args
        return args[1:] if args[:1] and args[0].static and args[0].value == "--" else args

    @property
    def outermost(self) -> Command:
        """The command of its file's own script that runs the shells it is in (`srun ... bash
        -c "..."`): itself where it is one."""
        top = self
        while top.script.parent is not None:
            top = top.script.parent
        return top

    def unsets(self, name: str) -> bool:
        """Whether the command is an `unset` of the variable (not of a function, `unset -f`)."""
        return (
            self.base == "unset"
            and not any(w.value.startswith("-") and "f" in w.value for w in self.args)
            and any(w.value == name for w in self.args)
        )

    @property
    def apart_from_script(self) -> bool:
        """Whether it runs in a shell of its own, whose changes the script's shell never sees:
        a subshell (`( ... )`, `$(...)`), an element of a pipeline, the background (itself, or
        a group sent there: `{ ...; } &`)."""
        return (
            self.subshell is not None
            or self.background
            or self.apart is not None
            or self.group is not None
        )

    def in_its_shell(self, at: int) -> bool:
        """Whether the byte `at` of the script lies in a shell of its own the command runs in:
        its pipeline element, the group sent to the background with it, or the innermost
        `( ... )` or `$( ... )` around it (what a `cd` or an assignment there reaches)."""
        shells = (self.apart, self.group, self.subshell)
        return any(s is not None and s.start_byte <= at < s.end_byte for s in shells)

    @property
    def span(self) -> Span:
        return self.script.span(self.node)

    @property
    def first_line_span(self) -> Span:
        """The command up to the end of its first line: where a reader looks for it."""
        span = self.span
        if span.end_line == span.line:
            return span
        line_text = self.script.file.line_text(span.line)
        return Span(span.line, span.column, span.line, len(line_text.rstrip()) + 1)

    @property
    def file_offset(self) -> int:
        """Where, in the file's own script, the statement that runs this command starts: a
        command inside `bash -c "..."` runs when the outer command does."""
        script, node = self.script, self.node
        while script.parent is not None:
            node, script = script.parent.node, script.parent.script
        return node.start_byte

    def on_failure(self) -> list[Command]:
        """The commands that run when this one fails: the right side of `cmd || ...`, the
        `else` of `if cmd` (guarded by this command's statement, expecting it false)."""
        node = self.node
        return [
            c
            for c in self.script.commands
            if any(
                not g.expect
                and not g.patterns
                and g.node.start_byte <= node.start_byte
                and node.end_byte <= g.node.end_byte
                for g in c.guards
            )
        ]

    def on_success(self) -> list[Command]:
        """The commands that run only when this one succeeds: the right side of `cmd && ...`,
        the `then` of `if cmd`."""
        node = self.node
        return [
            c
            for c in self.script.commands
            if any(
                g.expect
                and not g.patterns
                and g.node.start_byte <= node.start_byte
                and node.end_byte <= g.node.end_byte
                for g in c.guards
            )
        ]

    @property
    def at_top_level(self) -> bool:
        """Whether the command stands at its script's top level, alone or in an `&&`/`||` list:
        not in an `if`, `case`, loop, `{ }` group, `!`, pipeline, redirection or function, where
        bash runs a `-c` string's last command in its own place only at the top level (bash
        5.2: `bash -c 'true && sleep 9'` execs sleep, `bash -c 'if true; then sleep 9; fi'`
        and `bash -c '{ sleep 9; }'` do not; h123 M12)."""
        node = self.script.syntax(self.node).parent
        while node is not None and node.type == "list":
            node = node.parent
        return node is not None and node.type == "program"

    @property
    def ends_its_text(self) -> bool:
        """Whether nothing follows the command in its script's text but what bash reads as the
        end of its line and of the text: blanks, line continuations, a `;`, a comment, then at
        most one newline (bash 5.2 execs a `-c` string's last command only so: `"vllm serve
        m\n"` and `"vllm serve m \\\n  "`, not `"vllm serve m\n  "` nor a comment line
        after it; h124 M1, h125 F1)."""
        src, n = self.script.src, len(self.script.src)

        def blanks(i: int) -> int:
            while True:
                while i < n and src[i] in b" \t":
                    i += 1
                if not src.startswith(b"\\\n", i):
                    return i
                i += 2

        i = blanks(self.node.end_byte)
        if src.startswith(b";", i):
            i = blanks(i + 1)
        if src.startswith(b"#", i):
            end = src.find(b"\n", i)
            i = n if end < 0 else end
        if src.startswith(b"\n", i):
            i += 1
        return i == n

    def statement(self) -> Syn:
        """The list item this command belongs to (climbing pipelines, `&&` lists, redirections)."""
        node = self.script.syntax(self.node)
        while node.parent is not None and node.parent.type in (
            "redirected_statement",
            "pipeline",
            "list",
            "negated_command",
        ):
            node = node.parent
        return syn(node)

    def next_statement_reads_status(self) -> bool:
        """The next statement reads `$?`: the author checks this command's status by hand."""
        nxt = self.script.syntax(self.statement()).next_named_sibling
        while nxt is not None and nxt.type == "comment":
            nxt = nxt.next_named_sibling
        return nxt is not None and "$?" in self.script.text_of(nxt)


def exclusive(a: Command, b: Command) -> bool:
    """Whether two commands never both run in one pass of their script: the two branches of one
    `if`, or two items of one `case` (the first matching item wins; not one an item ending with
    `;&` or `;;&` goes on to), and no loop around the
    statement runs both on different passes."""
    if a.script is not b.script or not any(
        g.node == h.node and g.patterns == h.patterns and g.expect != h.expect
        for g in a.guards
        for h in b.guards
    ):
        return False
    return not (a.loops and b.loops and set(a.loops) & set(b.loops))


_Derived = TypeVar("_Derived")


class Script:
    """One shell program: a file, or a string/heredoc run by a new shell inside one."""

    def __init__(
        self,
        file: SourceText,
        src: bytes,
        char_of: Callable[[int], int],
        parent: Command | None = None,
        errexit_at_start: bool = False,
        build: bool = True,
        contiguous: bool | None = None,
    ) -> None:
        """`build`: parse `src` and build the model; else its facts are set by the caller
        (`summary.decode_script`). `contiguous`: `src` is the file's own bytes, each at its
        place (default: a file's top-level script; not a nested one, nor a command line made
        from a YAML list, `manifests.py`)."""
        self.file = file
        self.path = file.path
        self.src = src
        self.char_of = char_of
        self.parent = parent
        self.contiguous = parent is None if contiguous is None else contiguous
        self.errexit_at_start = errexit_at_start
        # facts other modules derive from this script once (its engine launches), kept with it
        self.memo: dict[str, object] = {}
        self.commands: list[Command] = []
        self.assignments: list[Assignment] = []
        self.expansions: list[Expansion] = []
        self.nested: list[Script] = []
        # (while it is built: each nested script a variable's value gave its text, and the
        # names read for it; `_mark_stale_held`)
        self.held_reads: list[tuple[Script, frozenset[str]]] = []
        # a nested script whose text is a variable's value the call that runs it may not see
        # (`_mark_stale_held`): its launches are counted as not known, not read
        self.may_differ = False
        # a nested script whose text is the words that give it as written (`bash -c '...'`, a
        # heredoc fed to a shell), not a variable's value put in their place: what bash reads,
        # but for the expansions of the shell that runs it
        self.verbatim = False
        self.functions: dict[str, Syn] = {}
        self._argument_runners: dict[str, int | None] = {}
        # (`runs_string_argument`, kept by function and definition)
        self._string_runners: dict[tuple[str, int], int | None] = {}
        self._asking: set[str] = set()  # (functions whose `runs_arguments` is being worked out)
        self._mentions: dict[str, bool] = {}
        self._bodies: dict[str, list[Command]] | None = None
        self._calls: list[Command] | None = None
        self._option_sets: dict[str, list[tuple[Command, bool]]] = {}
        self._tree: Tree | None = None  # parsed again only when `syntax` is asked
        # the text tree-sitter-bash reads where it differs from `src` (`_operand_reading`):
        # the same length, so every node's bytes are read from `src`, as bash reads them
        self.parse_src: bytes | None = None
        # a nested script's: the file offset of each character of its text
        self.offsets: list[int] | None = None
        self.has_error = False
        self.error_row: int | None = None
        # where tree-sitter-bash glued a line to the command before it (`_Builder.glued_lines`)
        self.glued: list[int] = []
        # the heredocs tree-sitter-bash ends early (`_early_heredoc_end`), with the delimiters
        # that make it end them where bash does
        self.early_heredocs: list[tuple[tuple[int, bytes], ...]] = []
        # the words of each `time` reserved word (`time`, `-p`, `--`) in command position,
        # and where each command they time starts (`parse_file`)
        self.time_words: list[tuple[int, int]] = []
        self.timed: frozenset[int] = frozenset()
        if build:
            self._build()

    def _build(self, keep_tree: bool = False) -> None:
        """`keep_tree`: keep tree-sitter's tree for the questions the model does not answer
        (`syntax`, `guard_facts`), sparing a second parse; else it is let go."""
        tree = parse_tree(self.parse_src or self.src)
        if keep_tree:
            self._tree = tree
        root = tree.root_node
        self.has_error = root.has_error and not _only_nameless(root)
        # the first line (0-based) tree-sitter-bash could not parse, when it could not
        self.error_row = _first_error_row(root) if self.has_error else None
        _Builder(self, root).build()

    def option_sets(self, name: str, letter: str = "") -> list[tuple[Command, bool]]:
        """The script's `set` commands that change an option (`errexit`/`e`, `allexport`/`a`),
        each with the state it sets, in text order (asked once per option)."""
        found = self._option_sets.get(name)
        if found is None:
            found = self._option_sets[name] = [
                (c, change)
                for c in self.commands
                if c.base == "set"
                for change in (option_change([w.value for w in c.args], name, letter),)
                if change is not None
            ]
            found.sort(key=lambda item: item[0].node.start_byte)
        return found

    def errexit_sets(self) -> list[tuple[Command, bool]]:
        """`option_sets` of errexit (`set -e`, `set +o errexit`)."""
        return self.option_sets("errexit", "e")

    def body(self, function: str) -> list[Command]:
        """The commands of a function defined in this script, in text order."""
        if self._bodies is None:
            self._bodies = {}
            for command in self.commands:
                if command.function is not None:
                    self._bodies.setdefault(command.function, []).append(command)
        return self._bodies.get(function, [])

    def runs_arguments(self, function: str) -> int | None:
        """How many leading arguments a function of the script shifts away before it runs the
        rest as a command (`local pid=$1; shift; "$@" &`, also behind a wrapper: `timeout
        "$secs" "$@"`); None when it runs no command from
        its arguments. Read from the commands walked so far: a function defined after the call
        that is being resolved is not seen. Worked out once per function whose definition has
        been walked."""
        if function in self._argument_runners:
            return self._argument_runners[function]
        found = self._runs_arguments(function)
        definition = self.functions.get(function)
        if (
            definition is not None
            and self.commands
            and (self.commands[-1].node.start_byte >= definition.end_byte)
        ):
            self._argument_runners[function] = found
        return found

    def _runs_arguments(self, function: str) -> int | None:
        from benchlint.shell.invocation import WRAPPERS, resolve_words  # (it imports this)

        shifted = 0
        for command in self.commands:
            if command.function != function or not command.words:
                continue
            if command.base == "shift":
                count = command.args[0].value if command.args else "1"
                if not count.isdigit():
                    return None
                shifted += int(count)
            elif self.text_of(command.words[0].node) in _ALL_ARGUMENTS:
                return shifted
            elif command.base in WRAPPERS:  # (`timeout "$secs" "$@"`: behind a wrapper)
                words = resolve_words(command, tuple(command.words)).words
                if words and self.text_of(words[0].node) in _ALL_ARGUMENTS:
                    return shifted
            elif (
                command.base in self.functions
                and command.base != function
                and len(command.words) == 2
                and self.text_of(command.words[1].node) in _ALL_ARGUMENTS
                and self._runs_arguments_once(command.base) == 0
            ):  # (`g() { f "$@"; }` with `f() { "$@"; }`: g runs its arguments too)
                return shifted
        return None

    def runs_string_argument(self, function: str) -> int | None:
        """Which positional argument a function of the script runs as a shell string in its own
        shell: `eval "$2"`, or `eval "$cmd"` where the body's one assignment of `cmd` is
        `local cmd=$2` (`run_or_die "barrier" "python3 sync.py ..."`); None when it runs
        none so, or shifts its arguments first. Read from the commands walked so far, as
        `runs_arguments`, and kept once the definition has been walked."""
        definition = self.functions.get(function)
        if definition is None:
            return None
        key = (function, definition.start_byte)  # (a definition that replaces it: its own)
        if key in self._string_runners:
            return self._string_runners[key]
        found = self._runs_string_argument(function)
        if self.commands and self.commands[-1].node.start_byte >= definition.end_byte:
            self._string_runners[key] = found
        return found

    def _runs_string_argument(self, function: str) -> int | None:
        found: int | None = None
        names: dict[str, int | None] = {}  # the body's assignments: the argument each holds
        definition = self.functions.get(function)  # (the one in effect: the last so far)
        for command in self.commands:
            if command.function != function or definition is None:
                continue
            if not definition.start_byte <= command.node.start_byte < definition.end_byte:
                continue  # (an earlier definition's body)
            if any(self.reads_arguments(g) for g in command.guards):
                continue  # (`case "$1" in dry) echo "$2" ;; *) eval "$2"`: per call, not known)
            if command.base == "shift":
                return None
            for assignment in command.assignments:
                value = assignment.value
                match = _POSITIONAL.fullmatch(value.value) if value is not None else None
                known = assignment.name in names
                names[assignment.name] = (
                    None if known or match is None else int(match[1] or match[2])
                )
            if command.invocation.base == "eval" and len(command.invocation.words) == 2:
                word = command.invocation.words[1]
                match = _POSITIONAL.fullmatch(word.value)
                if match is not None:
                    found = int(match[1] or match[2])
                elif (held := _HELD.fullmatch(word.value)) is not None:
                    found = names.get(held.group(2) or held.group(3))
                if found is not None:
                    return found
        return None

    def reads_arguments(self, guard: Guard) -> bool:
        """Whether a condition reads the positional parameters (`$1`, `${2}`, `$#`, `$@`):
        in a function's body, what the call gives decides it."""
        return _POSITIONAL_READ.search(self.text_of(guard.node)) is not None

    def _runs_arguments_once(self, function: str) -> int | None:
        """`runs_arguments`, not following a function already being asked (a recursion)."""
        if function in self._asking:
            return None
        self._asking.add(function)
        try:
            return self.runs_arguments(function)
        finally:
            self._asking.discard(function)

    @property
    def calls(self) -> list[Command]:
        """The commands that call a function defined in this script."""
        if self._calls is None:
            self._calls = [c for c in self.commands if c.base in self.functions]
        return self._calls

    def mentions(self, text: str) -> bool:
        """Whether the file's text holds `text` anywhere (asked once per file and text)."""
        known = self._mentions.get(text)
        if known is None:
            known = self._mentions[text] = text in self.file.text
        return known

    def may_unset(self, name: str) -> bool:
        """Whether the file's text may `unset` the name (`unset name`, `unset -f "name"`; a
        string's or a comment's too: read from the text, more is never fewer). What follows
        each `unset` on its line is found once per script."""
        held = self.memo.get("unset-words")
        if not isinstance(held, tuple):
            held = self.memo["unset-words"] = tuple(_UNSET.findall(self.file.text))
        if not any(name in words for words in held):
            return False
        bounded = re.compile(rf"\b{re.escape(name)}\b")
        return any(
            name in words.replace('"', " ").replace("'", " ").split() or bounded.search(words)
            for words in held
        )

    @property
    def has_tree(self) -> bool:
        """Whether the script holds tree-sitter's tree now (kept, or asked for by `syntax`)."""
        return self._tree is not None

    def let_go_tree(self) -> None:
        """Let go of the tree `syntax` parsed: a pass that asked for it is done with it (a tree
        is several times the size of the model's facts)."""
        self._tree = None

    def syntax(self, where: Syn) -> Node:
        """The tree-sitter node a `Syn` of this script came from: for the few questions about a
        statement's shape the model does not answer. The script is parsed again, once, the
        first time one is asked."""
        if self._tree is None:
            self._tree = parse_tree(self.parse_src or self.src)
        start, end = where.start_byte, where.end_byte
        node = self._tree.root_node.descendant_for_byte_range(start, end)
        while node is not None and node.start_byte == start:
            if node.type == where.type and node.end_byte == end:
                return node
            node = node.parent
        # an empty node (one tree-sitter-bash supplied where text was missing) shares its
        # place with its neighbours: look among every node that holds the place
        stack = [self._tree.root_node]
        while stack:
            node = stack.pop()
            if node.type == where.type and node.start_byte == start and node.end_byte == end:
                return node
            stack.extend(c for c in node.children if c.start_byte <= start and end <= c.end_byte)
        raise LookupError(f"no {where.type} node at bytes {start}-{end}")

    @property
    def text(self) -> str:
        return self.src.decode("utf-8", errors="surrogateescape")

    def guard_facts(self) -> None:
        """Work out every guard's condition and reads, from the script parsed again (once:
        the tree is let go again after, unless `syntax` had kept it)."""
        kept = self._tree
        self._tree = kept or parse_tree(self.parse_src or self.src)
        commands = {c.node: c for c in self.commands}
        compiler = Compiler(self.text_of, syn, lambda n: commands.get(syn(n)))
        made: dict[tuple[Syn, bool], tuple[Condition, tuple[Read, ...], tuple[Read, ...]]] = {}
        for command in self.commands:
            for guard in command.guards:
                if guard.facts is not None:
                    continue
                key = (guard.node, bool(guard.patterns))
                facts = made.get(key)
                if facts is None:
                    facts = made[key] = _guard_facts(self, guard, compiler)
                guard.facts = facts
        self._tree = kept

    def derived(self, key: str, owner: object, make: Callable[[], _Derived]) -> _Derived:
        """What one run's model (`owner`: a token of it) derives from this script, worked out
        once and kept with the script: freed with it, never read by another run's model."""
        held = self.memo.get(key)
        if isinstance(held, tuple) and held[0] is owner:
            return cast(_Derived, held[1])
        value = make()
        self.memo[key] = (owner, value)
        return value

    def text_of(self, node: Node | Syn) -> str:
        return self.src[node.start_byte : node.end_byte].decode("utf-8", errors="surrogateescape")

    def span(self, node: Node | Syn) -> Span:
        start = self.char_of(node.start_byte)
        end = self.char_of(node.end_byte - 1) + 1 if node.end_byte > node.start_byte else start
        return self.file.span(start, end)

    @property
    def top(self) -> Script:
        """The file's own script: this one, or the one a `bash -c "..."` it is inside runs in."""
        script = self
        while script.parent is not None:
            script = script.parent.script
        return script

    def walk(self) -> Iterator[Script]:
        """This script and every script nested in it, depth first; not one whose text may
        differ where it runs (`may_differ`: which text is not known; `engines.launches` with
        `shapes` reads it, for where a server starts, not with what; t84d)."""
        yield self
        for inner in self.nested:
            if not inner.may_differ:
                yield from inner.walk()

    def all_commands(self) -> Iterator[Command]:
        for script in self.walk():
            yield from script.commands


def _guard_facts(
    script: Script, guard: Guard, compiler: Compiler
) -> tuple[Condition, tuple[Read, ...], tuple[Read, ...]]:
    node = script.syntax(guard.node)
    reads: tuple[Read, ...] = ()
    test_reads: tuple[Read, ...] = ()
    if script.src.find(b"$", node.start_byte, node.end_byte) >= 0:
        reads = tuple(_walk_reads(script, node))
        test = node
        while test.type == "negated_command" and test.named_children:
            test = test.named_children[-1]
        if test.type == "test_command" and not guard.patterns:
            test_reads = tuple(_walk_reads(script, test))
    return (None if guard.patterns else compiler.condition(node)), reads, test_reads


def _read_syn(node: Node, src: bytes) -> Syn:
    """A read's place: its node's, from its `$` (in a string, tree-sitter-bash puts the blanks
    after an expansion into the next `$` token: `"${A:-1} $b"` has a `simple_expansion` " $b")."""
    start = node.start_byte
    if node.type == "simple_expansion" and src[start : start + 1] != b"$":
        while src[start : start + 1] in (b" ", b"\t"):
            start += 1
        return Syn(sys.intern(node.type), start, node.end_byte)
    return syn(node)


def _walk_reads(script: Script, node: Node) -> Iterator[Read]:
    """The reads in a node, found by walking it (the same reads `_Reads` finds in the whole
    script, for a small part of it: a condition)."""
    kind = node.type
    if kind in ("simple_expansion", "expansion"):
        names = [c for c in node.named_children if c.type == "variable_name"]
        parent = node.parent
        alone = parent is not None and parent.type in ("command", "array")
        if names and script.text_of(names[0]).isidentifier():
            operator = node.child_by_field_name("operator") if kind == "expansion" else None
            op = script.text_of(operator) if operator is not None else ""
            yield Read(script.text_of(names[0]), op, _read_syn(node, script.src), script, alone)
        else:
            subscript = next((c for c in node.named_children if c.type == "subscript"), None)
            name = subscript.child_by_field_name("name") if subscript is not None else None
            if name is not None:
                yield Read(script.text_of(name), "[", syn(node), script, alone)
    for child in node.named_children:
        yield from _walk_reads(script, child)


def _only_nameless(root: Node) -> bool:
    """Whether the tree's only errors are the name tree-sitter-bash finds missing in a command
    of assignments and redirects (`X=$(find ...) > /dev/null 2>&1`, which bash runs as
    written), or a `|` in the message of a quoted `${2:?real|lossy}` (t70b, sglang's
    reproduce.sh: an ERROR around the message's words, the expansion and its statement read
    right; the message is never a value): no error where the model reads it as it is."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            if _in_error_message(node):
                continue
            return False
        if node.is_missing:
            name, command = node.parent, node.parent.parent if node.parent else None
            if name is None or name.type != "command_name" or command is None:
                return False
            if not any(c.type == "variable_assignment" for c in command.children):
                return False
            continue
        if node.has_error:
            stack.extend(node.children)
    return True


def _in_error_message(node: Node) -> bool:
    """Whether an ERROR node is a piece of a quoted `${NAME:?message}`'s message."""
    parent = node.parent
    if parent is None or parent.type != "expansion" or parent.parent is None:
        return False
    operator = parent.child_by_field_name("operator")
    closed = parent.children[-1].type == "}" and not parent.children[-1].is_missing
    quoted = parent.parent.type == "string"
    return operator is not None and operator.type in (":?", "?") and closed and quoted


def _first_error_row(root: Node) -> int:
    """The row of the first part of a tree tree-sitter-bash could not parse: the innermost
    error where one holds others (a whole script wrapped in an ERROR node around the construct
    it stumbled on, `case ${@:$i:1} in` forty lines down, is said at that construct)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:  # (at the end of what it stumbled on: said where that starts)
            return int(_statement_of(node).start_point[0])
        if node.type == "ERROR" and not any(c.has_error for c in node.children):
            # (an ERROR around statements it parsed and the loose pieces of the one it could
            # not, `run() {` whose body a `<<` in `$((32 << 30))` swallowed: the first piece)
            loose = (c for c in node.children if not c.is_named or c.type == "word")
            first = next(loose, node)
            return int(first.start_point[0])
        if node.has_error:
            stack.extend(reversed(node.children))
    return 0


# nodes whose children are statements, one after the other (and an ERROR around some: what
# tree-sitter-bash could not read starts inside it)
_BLOCKS = frozenset(
    {
        "ERROR",
        "program",
        "compound_statement",
        "do_group",
        "subshell",
        "if_statement",
        "elif_clause",
        "else_clause",
        "case_item",
    }
)


def _statement_of(node: Node) -> Node:
    """The statement a node is part of (a missing backtick that ends a command substitution
    opened lines before: tree-sitter-bash reads a comment in backticks, `# the model` between
    two, as running to the end of the line, so the next backtick opens one that never closes;
    the command it is in is where the reading went wrong)."""
    while node.parent is not None and node.parent.type not in _BLOCKS:
        node = node.parent
    return node


def parse_file(file: SourceText, keep_tree: bool = False) -> Script:
    """The file's model. bash's reserved word `time` (with `-p`, `--`) before a command is
    read as blanks: it times what follows, which runs as it would alone (`time f ARGS` calls
    the function, `time DIR=/w/` assigns in this shell), where tree-sitter-bash takes `time`
    for the command's name. Each command it timed is kept (`Command.timed`)."""
    script = _parse(file, file.data, keep_tree)
    timed: set[int] = set()
    for _ in range(4):  # (`time time f`)
        if not script.time_words:
            break
        read = bytearray(script.src)
        for start, end in script.time_words:
            read[start:end] = b" " * (end - start)
        untimed = _parse(file, bytes(read), keep_tree)
        if untimed.has_error and not script.has_error:
            break
        timed.update(_next_word(untimed.src, end) for _, end in script.time_words)
        script = untimed
    script.timed = frozenset(timed)
    return script


def _pipeline_head(node: Node) -> bool:
    """Whether the command starts its pipeline, where bash reads its reserved words (after a
    `|`, `time` is the program: h83 R1)."""
    while node.parent is not None and node.parent.type == "redirected_statement":
        node = node.parent
    parent = node.parent
    if parent is None or parent.type != "pipeline":
        return True
    first = parent.named_children[0] if parent.named_child_count else None
    return first is not None and first.start_byte == node.start_byte


def _next_word(src: bytes, at: int) -> int:
    """Where the next word starts, past blanks and line continuations."""
    while at < len(src):
        if src[at : at + 1] in (b" ", b"\t"):
            at += 1
        elif src[at : at + 2] == b"\\\n":
            at += 2
        else:
            break
    return at


def _parse(file: SourceText, data: bytes, keep_tree: bool) -> Script:
    src = _read_write_redirects(data) if b"<>" in data else data
    if b"<<" in src and _SHIFT.search(src):
        src = _arithmetic_shifts(src)
    ends = _assignment_lines_before_close(src)
    if ends:
        src = _assignments_before_close(src, ends)
    if _BACKTICK_COMMENT.search(src) or _VARIABLE_OFFSET.search(src) or _FOR_DO.search(src):
        src = _unparsed_forms(src)
    char_of = file_char_of(file)
    errexit = starts_errexit(file)
    script = Script(file, src, char_of, errexit_at_start=errexit, build=False)
    script._build(keep_tree)
    # (read again with the delimiter of each heredoc tree-sitter-bash ends early replaced, where
    # bash ends it, a few times at most, as each reading may show another: `_early_heredoc_end`)
    ended: bytearray | None = None
    for _ in range(8):
        if not script.early_heredocs:
            break
        ended = bytearray(script.parse_src or src)
        reach = -1  # (a heredoc found in the body of one read too early is text: not taken)
        for edits in sorted(script.early_heredocs):
            if edits[0][0] < reach:
                continue
            for at, word in edits:
                ended[at : at + len(word)] = word
            reach = edits[-1][0]
        script = Script(file, src, char_of, errexit_at_start=errexit, build=False)
        script.parse_src = bytes(ended)
        script._build(keep_tree)
    read_as = bytes(ended) if ended is not None else src  # (what tree-sitter-bash reads)
    operands = _operand_reading(read_as) if script.has_error else None
    if operands is not None:
        script = Script(file, src, char_of, errexit_at_start=errexit, build=False)
        script.parse_src = operands
        script._build(keep_tree)
    # (read again with `;` where bash ends a glued command, the same length, until no command
    # is glued, a few times at most: each reading may show the next glued line)
    read = bytearray(src)
    parsed = bytearray(operands or read_as) if operands or ended is not None else None
    current = script
    for _ in range(4):
        if not current.glued:
            break
        for at in current.glued:
            read[at] = ord(";")
            if parsed is not None:
                parsed[at] = ord(";")
        current = Script(file, bytes(read), char_of, errexit_at_start=errexit, build=False)
        current.parse_src = bytes(parsed) if parsed is not None else None
        current._build(keep_tree)
    # (kept where no command is glued and it parses whole, or its first error is on the first
    # glued line or after it, or after the first error before: another misread of the file is
    # no reason to keep the glued lines)
    glue = src.count(b"\n", 0, min(script.glued)) if script.glued else 0  # (its row)
    first = min(glue, script.error_row) if script.error_row is not None else glue
    later = current.error_row if current.error_row is not None else first
    if current is not script and not current.glued and (not current.has_error or later >= first):
        return current
    return script


def file_char_of(file: SourceText) -> Callable[[int], int]:
    """The character offset of a byte of the file."""
    char_of = char_offsets(file.text)
    return (lambda b: b) if char_of is None else char_of


def starts_errexit(file: SourceText) -> bool:
    """The file's `#!` line turns `set -e` on (`#!/bin/bash -e`)."""
    return _shebang_errexit(file.line_text(1))


# `N<>file`: a redirection that opens the file for reading and writing
_READ_WRITE = lazy_compile(rb"(?<=[0-9\s])<>(?=\s*[\"'$/\w])")


def _read_write_redirects(src: bytes) -> bytes:
    """tree-sitter-bash has no `<>` redirection: `exec 9<>"$lock"` is a parse error that loses
    the commands around it. Such a script is read with `> ` in its place (the same length, so
    every position stays): the file and the descriptor, all the rules ask of a redirection, are
    the same. Only a `<>` where the parse failed is read so, and only when that parses where
    the text as written does not."""
    tree = parse_tree(src)
    if not tree.root_node.has_error:
        return src
    errors = []  # the byte ranges tree-sitter-bash could not parse: `<>` elsewhere is text
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            errors.append((node.start_byte, node.end_byte))
        elif node.has_error:
            stack.extend(node.children)
    read = bytearray(src)
    for match in _READ_WRITE.finditer(src):
        if any(start < match.end() and match.start() < end for start, end in errors):
            read[match.start() : match.end()] = b"> "
    return bytes(read) if not parse_tree(bytes(read)).root_node.has_error else src


# an assignment's value on one line: plain text, quoted text, `${...}`, `$(...)` without
# parentheses inside, `$NAME`
_VALUE = (
    rb"(?:[^\s;&|<>()`\"'\\#$]|\$\{[^{}\n]*\}|\$\([^()\n]*\)|\$[\w@*#?!$-]"
    rb"|\"(?:[^\"\\\n`$]|\\.|\$\{[^{}\n]*\}|\$\([^()\n]*\)|\$[\w@*#?!$-])*\"|'[^'\n]*')*"
)
# a line of two or more assignments with nothing else (`A= B=`, `X="$Y" Z+=$(date)`), its newline
# included
_ASSIGNMENTS_LINE = lazy_compile(
    rb"[ \t]*[A-Za-z_][A-Za-z0-9_]*\+?="
    + _VALUE
    + rb"(?:[ \t]+[A-Za-z_][A-Za-z0-9_]*\+?="
    + _VALUE
    + rb")+[ \t]*\n"
)
# a line with two assignments or more before such a line, loosely (`_ASSIGNMENTS_LINE` decides)
_TWO_ASSIGNMENTS_THEN_CLOSE = lazy_compile(
    rb"=[^\n]*[ \t][A-Za-z_][A-Za-z0-9_]*\+?=[^\n]*\n[ \t]*(?:else|elif|fi|done|esac|\})"
)
# a line that starts with a word that closes or continues a compound command (its newline before)
_CLOSE_LINE = lazy_compile(rb"\n[ \t]*(?:else|elif|fi|done|esac|\})(?![\w-])")


def _assignment_lines_before_close(src: bytes) -> list[int]:
    """The newline that ends each line of assignments alone before a line that starts with
    `else`, `elif`, `fi`, `done`, `esac` or `}`."""
    ends: list[int] = []
    if _TWO_ASSIGNMENTS_THEN_CLOSE.search(src) is None:
        return ends  # (one scan in C: most scripts have no such line)
    for match in _CLOSE_LINE.finditer(src):
        newline = match.start()
        start = src.rfind(b"\n", 0, newline) + 1
        if _ASSIGNMENTS_LINE.fullmatch(src, start, newline + 1):
            ends.append(newline)
    return ends


def _assignments_before_close(src: bytes, ends: list[int]) -> bytes:
    """tree-sitter-bash reads a line of assignments alone as the prefix of a command on the next
    line (`A= B=` then `else` is a command named `else` with A and B in its environment): the
    `if` around it is lost. Where the next line starts with `else`, `elif`, `fi`, `done`,
    `esac` or `}`, the line is read ended by `;` in place of its newline (the same length, so
    every position stays; bash reads both the same). Not a newline inside a quoted string or a
    heredoc (`X="...` on a line before): it is the value's."""
    read = bytearray(src)
    root = parse_tree(src).root_node
    for at in ends:
        node: Node | None = root.descendant_for_byte_range(at, at + 1)
        while node is not None and node.type not in _TEXT_NODES:
            node = node.parent
        if node is None:
            read[at] = ord(";")
    return bytes(read)


_TEXT_NODES = frozenset({"string", "raw_string", "ansi_c_string", "heredoc_body", "comment"})


# a comment in backticks after a blank (`` --set x=1 `# why` \ ``): a command substitution that
# runs nothing, where tree-sitter-bash reads the comment as running to the end of the line
_BACKTICK_COMMENT = lazy_compile(rb"(?<=[ \t])`[ \t]*#[^`\n]*`(?=[ \t\n;\\]|\Z)")
# a substring's offset that is a variable (`${f:$i:1}`, `${a[@]: $n}`; not `${f:-$d}`, a
# default), which tree-sitter-bash cannot parse: group 1 is its `$`
_VARIABLE_OFFSET = lazy_compile(
    rb"\$\{(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*])(?:\[[@*]\])?:[ \t]*(\$)(?=[A-Za-z_0-9])"
)


def _unparsed_forms(src: bytes) -> bytes:
    """Three forms bash reads that tree-sitter-bash does not, which lose the commands around
    them (a whole function's body read as top-level commands: t73a, kserve's install scripts):
    a comment in backticks after a blank, read as blanks (bash puts nothing in its place; not
    one inside double quotes on its line, the empty text there), a variable as a substring's
    offset, read with a blank for its `$` (`${f: i:1}`: bash's arithmetic reads a name as its
    value; the read is not kept), and a `for` loop with no list and no `;` before its `do`
    (`for f do`, over the positional parameters), read as `for f;do` (h76 F2). The same length,
    so every position stays; only where the text as written does not parse whole and the text
    so read does."""
    if not parse_tree(src).root_node.has_error:
        return src
    read = bytearray(src)
    for match in _BACKTICK_COMMENT.finditer(src):
        before = src[src.rfind(b"\n", 0, match.start()) + 1 : match.start()]
        if (before.count(b'"') - before.count(b'\\"')) % 2:
            continue  # (in double quotes: the empty text, not blanks)
        read[match.start() : match.end()] = b" " * (match.end() - match.start())
    for match in _VARIABLE_OFFSET.finditer(src):
        read[match.start(1)] = ord(" ")
    for match in _FOR_DO.finditer(src):
        read[match.start(1)] = ord(";")
    return bytes(read) if not parse_tree(bytes(read)).root_node.has_error else src


# `for f do`: a `for` loop over the positional parameters whose `do` follows its name after
# blanks alone (group 1: the blank before `do`)
_FOR_DO = lazy_compile(rb"(?<![\w$-])for[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*([ \t])do(?=[ \t\n;]|\Z)")


# bytes of a parameter expansion's operand that tree-sitter-bash cannot read there, though bash
# takes them as text (`${ARCHS:-gfx942;gfx950}`, `${s#*[}`, `${X:-{\"a\": 1}}`, `${x:+$x; }`)
_OPERAND_STOPS = frozenset(b";|&()<>[]{}")
_BRACKETS = frozenset(b"[]")
_QUOTES_AND_NEWLINE = frozenset(b"'\"\n")
# the `#` of an arithmetic number whose digits a variable gives: `10#$a`
_VARIABLE_BASE = lazy_compile(rb"(?<=[0-9])#(?=\$)")
# what follows `${` before the operator: a name, a positional or special parameter, with an
# indirection or length sign and a subscript
_PARAMETER = lazy_compile(rb"[#!]?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(?:\[[^\]\n]*\])?")
_LONGEST_EXPANSION = 4096  # (bytes looked at for one expansion's end)


def _operand_reading(src: bytes) -> bytes | None:
    """The text tree-sitter-bash is given for a script that does not parse whole, where a
    parameter expansion's operand holds bytes it cannot read there but bash reads as text
    (`GPU_ARCHS="${GPU_ARCHS:-gfx942;gfx950}"`, `pre="${s%%[*}"`; t76a, Primus): each such byte
    of an expansion that does not parse alone, and each bracket, outside a command
    substitution in it, read as `_`. The same length, so every position stays, and the model
    reads every node's text from the script as written: the default is `gfx942;gfx950`, as
    bash has it. An arithmetic
    number in a base a variable gives (`10#$a`, which tree-sitter-bash cannot read either) is
    read with `*` for its `#`. None where nothing is so read, or the text so read does not
    parse whole either."""
    read = bytearray(src)
    changed = False
    at = src.find(b"${")
    while at != -1:
        found = _operand_bytes(src, at)
        if found:
            # (a bracket, whatever the rest: `${s#*[}` reads alone, not with `${s%%]*}` after)
            alone = _unreadable(src, at, found[0])
            for index in found[1]:
                if alone or src[index] in _BRACKETS:
                    read[index] = ord("_")
                    changed = True
        at = src.find(b"${", at + 2)
    for match in _VARIABLE_BASE.finditer(src):
        read[match.start()] = ord("*")
        changed = True
    if not changed or parse_tree(bytes(read)).root_node.has_error:
        return None
    return bytes(read)


def _operand_bytes(src: bytes, start: int, depth: int = 0) -> tuple[int, list[int]] | None:
    """For the expansion `${` opens at `start`: where it ends (past its `}`: the first one not
    in a nested `${...}`, `$(...)` or backquotes, as bash ends it, a `{` before it nesting
    nothing) and the bytes of its operand (after the parameter and its operator) in
    `_OPERAND_STOPS` at its own level; None when it is not closed on its line nearby, or its
    operand holds a quote (what bash makes of one there depends on the quoting around the
    expansion: not read another way) or has no such byte."""
    if (start > 0 and src[start - 1] == ord("\\")) or depth > 8:
        return None
    parameter = _PARAMETER.match(src, start + 2)
    if parameter is None:
        return None
    index = parameter.end()
    stops: list[int] = []
    limit = min(len(src), start + _LONGEST_EXPANSION)
    while index < limit:
        byte = src[index]
        if byte == ord("\\"):
            index += 2
            continue
        if byte in _QUOTES_AND_NEWLINE:
            return None
        if byte == ord("$") and src[index + 1 : index + 2] == b"{":
            inner = _operand_bytes(src, index, depth + 1)
            end = inner[0] if inner is not None else _plain_end(src, index, limit)
            if end is None:
                return None
            index = end
            continue
        if byte == ord("$") and src[index + 1 : index + 2] == b"(":
            closing = _closing(src, index + 1, limit)
            if closing is None:
                return None
            index = closing + 1
            continue
        if byte == ord("`"):
            closing = src.find(b"`", index + 1, limit)
            if closing == -1:
                return None
            index = closing + 1
            continue
        if byte == ord("}"):
            return (index + 1, stops) if stops or depth else None
        if byte in _OPERAND_STOPS:
            stops.append(index)
        index += 1
    return None


def _plain_end(src: bytes, start: int, limit: int) -> int | None:
    """Past the `}` that ends a nested expansion with nothing to read another way (`${B}`,
    `${B:-x}`), on its line."""
    end = src.find(b"}", start, limit)
    newline = src.find(b"\n", start, limit)
    return None if end == -1 or (newline != -1 and newline < end) else end + 1


def _closing(src: bytes, opening: int, limit: int) -> int | None:
    """The index of the `)` that closes the `(` at `opening`, nested ones and escaped bytes
    skipped; None when not before `limit`."""
    depth, index = 0, opening
    while index < limit:
        byte = src[index]
        if byte == ord("\\"):
            index += 2
            continue
        if byte == ord("("):
            depth += 1
        elif byte == ord(")"):
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return None


def _unreadable(src: bytes, start: int, end: int) -> bool:
    """Whether tree-sitter-bash cannot read the expansion alone, as a word or in quotes."""
    text = src[start:end]
    return any(
        parse_tree(b": " + form + b"\n").root_node.has_error for form in (text, b'"' + text + b'"')
    )


# an arithmetic expansion with a left shift in it: `$((32 << 30))`
_SHIFT = lazy_compile(rb"\$\(\((?:[^()]|\([^()]*\))*?<<(?:[^()]|\([^()]*\))*?\)\)")


def _arithmetic_shifts(src: bytes) -> bytes:
    """tree-sitter-bash takes the `<<` of `${SIZE:-$((32 << 30))}` for a heredoc, and loses the
    commands after it. Where the text as written does not parse whole, it is read with `* `
    for each `<<` inside `$((...))` (the same length, so every position stays; what the rules
    ask of the script is not the value of such an expression), where that parses whole."""
    if not parse_tree(src).root_node.has_error:
        return src
    read = bytearray(src)
    for match in _SHIFT.finditer(src):
        inner = match.group(0).replace(b"<<", b"* ")
        read[match.start() : match.end()] = inner
    return bytes(read) if not parse_tree(bytes(read)).root_node.has_error else src


# a read of the positional parameters: `$1`, `${2:-x}`, `$#`, `$@`, `$*`
_POSITIONAL_READ = lazy_compile(r"\$(?:[0-9#@*]|\{[#]?[0-9@*#])")

# a word that is one positional argument of a function: `$2`, `${2}`
_POSITIONAL = lazy_compile(r"\$(?:([1-9])|\{([1-9])\})")


# a word that is every argument of the function, each its own word: the command they run
@functools.lru_cache(maxsize=256)
def own_value(name: str) -> re.Pattern[str]:
    """The variable's own value at the start of one it is given (`args="$args --x 1"`): an
    append, written out."""
    return re.compile(r"\$(?:\{" + re.escape(name) + r"\}|" + re.escape(name) + r"\b)")


_ALL_ARGUMENTS = frozenset({'"$@"', "$@", '"${@}"', "${@}"})


def written_later(script: Script) -> bool:
    """Whether the script is (or is nested in) the text of a file a command writes (`cat >
    entry.sh <<EOF`), which runs when something runs that file, not where it is written."""
    while script.parent is not None:
        parent = script.parent
        if parent.heredocs and _writes_file(parent) and not _reads_script_from_stdin(parent):
            return True
        script = parent.script
    return False


def _held_value(
    script: Script,
    name: str,
    seen: frozenset[str],
    before: int | None,
    names: set[str] | None = None,
) -> tuple[str, list[int]] | None:
    """The text of the string variable `name` holds, and the places of its characters: its
    last value the script gives it whole, with what is appended after it; a value that
    starts with another variable's (`FULL_CMD="$BASE_CMD"`, `"$BASE_CMD --tp 8"`) has that
    one's text in its place (t81a, vllm-gaudi), as assigned before the copy (`before`). A
    nested script that gives it none reads it from the shell it runs in (`visible_assignments`).
    `names`: where given, the names read where the string runs are added to it (the first; a
    copy's, where the copy is made in a function or a nested script: not one the top level
    makes, whose value is fixed there)."""
    if names is not None:
        names.add(name)
    assigned = visible_assignments(script, name, before)
    pieces: list[tuple[str, list[int]]] = []
    for assignment in reversed(assigned):
        given = assignment.value
        if given is None or given.node.type == "array":
            return None
        owner = assignment.command.script
        text = owner.text_of(assignment.node)
        # (a string that starts with a variable's value: `$CMD --nnodes 2`)
        lead = LONE_VARIABLE.match(given.value)
        other = (lead[1] or lead[2]) if lead is not None else None
        if text.startswith(f"{name}+="):
            pieces.append((given.value, given.offsets))
        elif lead is not None and other == name:
            pieces.append((given.value[lead.end() :], given.offsets[lead.end() :]))
        else:
            copied = None
            if lead is not None and other is not None and other not in seen and len(seen) < 4:
                at_call = assignment.command.function is not None or owner.parent is not None
                copied = _held_value(
                    owner,
                    other,
                    seen | {name},
                    assignment.node.start_byte,
                    names if at_call else None,
                )
            # (not a variable of words before the program, `${SDMA_ENV} python3 -m ...`
            # with SDMA_ENV="" or "MORI_ENABLE_SDMA=true": the command's own text is read,
            # its variables as what they may give)
            if copied is not None and _ASSIGNMENTS_ONLY.fullmatch(copied[0]):
                copied = None
            held = _cat_heredoc_text(owner, given) if lead is None else None
            if copied is not None and lead is not None:
                rest = lead.end()
                pieces.append((copied[0] + given.value[rest:], copied[1] + given.offsets[rest:]))
            elif held is not None:  # (`CMD=$(cat <<EOF ... EOF)`: the heredoc's text, h33 N2)
                pieces.append(held)
            else:
                pieces.append((given.value, given.offsets))
            break
    else:
        return None  # (appended to, never given a start: the environment's)
    pieces.reverse()
    return "".join(piece for piece, _ in pieces), [o for _, offsets in pieces for o in offsets]


def _heredoc_cat(script: Script, value: Word) -> Command | None:
    """The `cat` whose heredoc is a value's whole text (`CMD=$(cat <<EOF ... EOF)`): the
    substitution's one command (not `| tr ...`; the body's own `$(nproc)` is the cat's), with
    no other redirection, in the script's own text."""
    if not script.text_of(value.node).lstrip('"').startswith("$("):
        return None
    start, end = value.node.start_byte, value.node.end_byte
    inside = [c for c in script.commands if start < c.node.start_byte < end]
    cat = next((c for c in inside if c.heredocs), None)
    if cat is None or cat.base != "cat" or len(cat.words) != 1:
        return None
    bodies = [(h.body.start_byte, h.body.end_byte) for h in cat.heredocs if h.body]
    if any(c is not cat and not any(a <= c.node.start_byte < b for a, b in bodies) for c in inside):
        return None
    if cat.redirects or cat.apart is not None or len(bodies) != 1:
        return None
    return cat


def _cat_heredoc_text(script: Script, value: Word) -> tuple[str, list[int]] | None:
    """The text a `$(cat <<EOF ... EOF)` value holds (`_heredoc_cat`), with its characters'
    places: the heredoc's, the newlines that end it removed, as the substitution removes them."""
    cat = _heredoc_cat(script, value)
    if cat is None:
        return None
    heredoc = next(h for h in cat.heredocs if h.body is not None)
    assert heredoc.body is not None
    text, offsets = heredoc.value(heredoc.body, script)
    kept = len(text.rstrip("\n"))
    return text[:kept], offsets[:kept]


def visible_assignments(script: Script, name: str, before: int | None = None) -> list[Assignment]:
    """The assignments of `name` a command of the script at byte `before` (None: anywhere) may
    read: the script's own before it; where it has none and is a nested script, those of the
    shell that runs it, before the command that does: all of them for the string `eval` runs
    (the same shell) or for a name the running shell expands in the command's words (`bash -c
    "vllm serve m $EXTRA"`), the exported ones for a new shell (`srun bash -lc 'eval
    "$DETECT"'` after `export DETECT=...`: its environment; InferenceX's amd_utils job.slurm)."""
    while True:
        found = [
            a
            for a in script.assignments
            if a.name == name and (before is None or a.node.start_byte < before)
        ]
        command = script.parent
        if found or command is None:
            return found
        script, before = command.script, command.node.start_byte
        # (`bash -c "vllm serve m $EXTRA"`: the running shell expands it in the string, as
        # for `eval`; h100 M4)
        if command.base != "eval" and not expands_in_words(command, name):
            if not _keeps_environment(command) or _unsets(command, name):
                return []
            # (not one a command's prefix gives that command alone: `DETECT=... true`)
            outer = [a for a in visible_assignments(script, name, before) if a.kind != "prefix"]
            return outer if any(a.exported for a in outer) else []


def expands_in_words(command: Command, name: str) -> bool:
    """Whether the shell that runs the command expands the variable in the command's own words
    (`bash -c "vllm serve m $EXTRA"`: before the new shell starts, exported or not)."""
    return any(r.name == name for w in command.words for r in w.reads())


def _unsets(command: Command, name: str) -> bool:
    """Whether a wrapper takes the variable out of the environment the command's shell gets
    (`env -u NAME`, `env --unset=NAME`; `exec -c`, which passes none: h89 F6)."""
    for wrapper in command.invocation.wrappers:
        if wrapper.name == "env" and any(
            option in ("-u", "--unset") and value == name for option, _, value in wrapper.options
        ):
            return True
    words = [w.value for w in command.words[:2]]
    return words[:1] == ["exec"] and len(words) > 1 and words[1].startswith("-") and "c" in words[1]


def _keeps_environment(command: Command) -> bool:
    """Whether the shell the command starts gets the caller's exported variables: not behind a
    wrapper that runs it elsewhere or from another environment (`ssh`, `docker run`, `docker
    exec`, `kubectl exec`, `apptainer exec --cleanenv`), `sudo` (its `env_reset`), `env -i`,
    or Slurm's `--export=NONE` (or a list: only those names); t84a."""
    for wrapper in command.invocation.wrappers:
        if FILES in wrapper.apart or wrapper.own_env or wrapper.name == "sudo":
            return False
        if wrapper.name == "env" and wrapper.has("-i", "--ignore-environment", "-"):
            return False
        export = (
            wrapper.option("--export") if wrapper.name in ("srun", "sbatch", "salloc") else None
        )
        if export is not None and not export.startswith("ALL"):
            return False
    return True


def _mark_stale_held(script: Script) -> None:
    """Mark each string a function's body runs through a variable's value (`launch() { eval
    "$SERVER_CMD --max-num-seqs 4 &"; }`, or a `local` copy of it the body makes) that was read
    as the script assigns it before the body's text (not in the body before it), where the
    script gives it another value after (t82a F7): the call, later, may run that one
    (`SERVER_CMD="vllm serve m"; launch`). Which one is not known: its launches are counted as
    behind a word whose value is not known (`Script.may_differ`), not read as the first
    value's. Not for a name a copy at the top level read before the function (fixed then), nor
    for a later `export NAME`, `readonly NAME`, or another function's `local` (t84c)."""
    for nested, names in script.held_reads:
        outer = nested.parent
        while outer is not None and outer.script is not script:
            outer = outer.script.parent
        if outer is None or outer.function is None:
            continue  # (at the top level, a later assignment runs after it)
        # (a name the body assigns before it is read as the body gives it, whenever it runs)
        own = {
            a.name
            for a in script.assignments
            if a.command.function == outer.function and a.node.end_byte <= outer.node.start_byte
        }
        if any(
            a.name in names - own
            and a.node.start_byte > outer.node.end_byte
            and a.value is not None
            and a.kind not in ("prefix", "unexport")
            and not (a.kind == "local" and a.command.function != outer.function)
            for a in script.assignments
        ):
            nested.may_differ = True
    script.held_reads = []


def _nested(
    parent: Command, value: str, offsets: list[int], errexit: bool, verbatim: bool = False
) -> Script:
    src = value.encode("utf-8", errors="surrogateescape")
    script = Script(parent.script.file, src, nested_char_of(value, offsets), parent, errexit, False)
    script.offsets = offsets
    script.verbatim = verbatim
    script._build()
    return script


@dataclass(frozen=True)
class ShellText:
    """A shell's text as it reads it (`shells_as_written`): the file's, or a string or heredoc
    the file gives a shell, with where each of its characters is in the file."""

    script: Script
    text: str
    base: int  # where its text starts in the file's, its characters in a row
    offsets: Sequence[int] | None = None  # else: where each character is (escapes left out)
    escaped_only: bool = False  # the file's shell expanded the rest (`"...\\${X:a}..."`)
    in_double_quotes: bool = False  # (a double-quoted string's, not an unquoted heredoc's)

    def at(self, index: int) -> int:
        """The file offset of the character at `index` of the text (its end: after the last)."""
        if self.offsets is None:
            return self.base + index
        if index >= len(self.offsets):
            return self.offsets[-1] + 1 if self.offsets else self.base
        return self.offsets[index]

    def own(self, index: int) -> bool:
        """Whether an expansion starting at `index` is this shell's: not one the file's shell
        made before handing the text over (in a double-quoted string or an unquoted heredoc,
        only an escaped `\\$` is left to the inner shell: h134 M5)."""
        if not self.escaped_only:
            return True
        at = self.at(index)
        return self.script.file.text[at - 1 : at] == "\\"


def shells_as_written(script: Script) -> Iterator[ShellText]:
    """The file's shell and its text (at 0), then each shell it runs whose text is the file's
    own characters that the file's shell leaves unexpanded: a single-quoted `bash -c '...'`
    string, a quoted heredoc fed to a shell (the inner shell expands what the file's reading
    skips as quoted text; h123 M6, M10, M20), with where its text starts in the file's; and a
    double-quoted string or an unquoted heredoc a shell runs, for the expansions the file's
    shell leaves to it (`\\${X:a}`: h134 M5), with where each character is."""
    text = script.file.text
    yield ShellText(script, text, 0)
    stack = list(script.nested)
    while stack:
        inner = stack.pop()
        stack.extend(inner.nested)
        offsets = inner.offsets
        if not inner.verbatim or not offsets or inner.parent is None:
            continue
        value = inner.src.decode("utf-8", "surrogateescape")
        base = offsets[0]
        if len(offsets) != len(value):
            continue
        outer = inner.parent.script
        in_a_row = offsets[-1] - base + 1 == len(value) and text[base : base + len(value)] == value
        quoted = in_a_row and (
            text[base - 1 : base] == "'"
            or any(
                h.quoted and h.body is not None and outer.char_of(h.body.start_byte) == base
                for h in inner.parent.heredocs
            )
        )
        if quoted:
            yield ShellText(inner, value, base)
        elif "\\$" in text[base : offsets[-1] + 1]:
            quoted_twice = text[base - 1 : base] == '"'
            yield ShellText(inner, value, base, tuple(offsets), True, quoted_twice)


def nested_char_of(value: str, offsets: list[int]) -> Callable[[int], int]:
    """The file offset of a byte of a nested script's text (`value`, whose characters are at
    `offsets` in the file)."""
    chars = char_offsets(value)
    last = len(value)

    def char_of(byte: int) -> int:
        index = byte if chars is None else chars(byte)
        if index >= last:
            return offsets[-1] + 1 if offsets else 0
        return offsets[index]

    return char_of


def nonzero_status(command: Command) -> bool:
    """`exit N` or `return N` with N a number written out that is not 0 (modulo 256, as the
    shell takes it); a bare `exit` gives the last command's status: not one."""
    args = command.args
    return (
        len(args) == 1
        and args[0].static
        and args[0].value.isdigit()
        and int(args[0].value) % 256 != 0
    )


def errexit_change(args: list[str]) -> bool | None:
    """The errexit state after `set ARGS`, or None when `set` leaves it alone."""
    return option_change(args, "errexit", "e")


def option_change(args: list[str], name: str, letter: str = "") -> bool | None:
    """An option's state after `set ARGS` (`set -euo pipefail`, `set +o errexit`), or None when
    `set` leaves it alone. `letter`: its one-letter form, if it has one."""
    result: bool | None = None
    for i, arg in enumerate(args):
        if arg.startswith("--") or len(arg) < 2 or arg[0] not in "-+":
            continue
        on = arg[0] == "-"
        letters = arg[1:]
        if letter and letter in letters:
            result = on
        if "o" in letters and i + 1 < len(args) and args[i + 1] == name:
            result = on
    return result


class _Context:
    """Where the walk is: what a command found here inherits. Immutable; `with_` makes a copy."""

    __slots__ = (
        "apart",
        "function",
        "guards",
        "loops",
        "or_guarded",
        "piped",
        "subshell",
        "tested",
    )

    def __init__(
        self,
        tested: bool = False,
        or_guarded: bool = False,
        function: str | None = None,
        subshell: Syn | None = None,
        guards: tuple[Guard, ...] = (),
        loops: tuple[Syn, ...] = (),
        piped: bool = False,
        apart: Syn | None = None,
    ) -> None:
        self.tested = tested
        self.or_guarded = or_guarded
        self.function = function
        self.subshell = subshell
        self.guards = guards
        self.loops = loops
        self.piped = piped
        self.apart = apart

    def with_(self, **changes: object) -> _Context:
        """A copy with these changes; a change of `tested` ends `piped` unless it is given."""
        if "tested" in changes:
            changes.setdefault("piped", False)
        ctx = _Context(
            self.tested,
            self.or_guarded,
            self.function,
            self.subshell,
            self.guards,
            self.loops,
            self.piped,
            self.apart,
        )
        for name, value in changes.items():
            setattr(ctx, name, value)
        return ctx

    def tested_(self) -> _Context:
        if self.tested and not self.piped:
            return self
        return _Context(
            True,
            self.or_guarded,
            self.function,
            self.subshell,
            self.guards,
            self.loops,
            False,
            self.apart,
        )

    def under(self, *guards: Guard) -> _Context:
        guarded = (*self.guards, *guards)
        return _Context(
            self.tested,
            self.or_guarded,
            self.function,
            self.subshell,
            guarded,
            self.loops,
            self.piped,
            self.apart,
        )

    def looping(self, loop: Node) -> _Context:
        return self.with_(loops=(*self.loops, syn(loop)))


def _early_heredoc_end(redirect: Node, src: bytes) -> tuple[tuple[int, bytes], ...]:
    """Where tree-sitter-bash ends a heredoc at a line that only starts with its delimiter
    (`EOF_MARKER is logged` for `<<EOF`, an inner `EOFINNER`): bash ends it only at a line that
    is the delimiter (after its leading tabs, for `<<-`; with its `\r`, in a file with CRLF
    line ends; in a `$( )`, also at a line that starts with it and closes the substitution),
    and reads the lines between as the body, never as commands. The edits (offset, bytes) of a
    text for tree-sitter-bash to read that ends it there: the delimiter, at the operator and at
    bash's last line, replaced by a word of the same length no line of the body starts with.
    None where it ends as bash's, or where bash's end is not found here (a line a backslash
    joins to the next, a heredoc never closed: tree-sitter-bash's reading is kept)."""
    start = end = None
    tabs = False
    for child in redirect.children:
        if child.type == "heredoc_start":
            start = child
        elif child.type == "heredoc_end":
            end = child
        elif child.type == "<<-":
            tabs = True
    if start is None or end is None:
        return ()
    token = src[start.start_byte : start.end_byte]
    found = _DELIMITER.fullmatch(token)
    after = src[start.end_byte : start.end_byte + 1]
    if found is None or (after and after not in _AFTER_DELIMITER):
        return ()  # (a word tree-sitter-bash reads in part: `'E'OF`, `"EOF"_1`)
    group = 2 if found.group(2) else 3
    delimiter = found.group(group)
    quoted = token != delimiter
    cr = b"\r" if after == b"\r" else b""  # (`<<EOF\r`: bash's delimiter is `EOF\r`)
    inside = redirect.parent
    while inside is not None and inside.type != "command_substitution":
        inside = inside.parent
    at = end.start_byte
    line_start = src.rfind(b"\n", 0, at) + 1
    if _bash_line(src, line_start, tabs)[0] == delimiter + cr:
        return ()  # (ended where bash ends it)
    # (tree-sitter-bash also ends it at a line with blanks before the delimiter)
    ending = _bash_line(src, line_start, False)[0].lstrip(b" \t")
    if not ending.startswith(delimiter):
        return ()
    body: list[bytes] = []
    position, last = line_start, None
    while position < len(src):  # (bash's end: the first line that is the delimiter)
        line, lead, following = _bash_line(src, position, tabs)
        joined = False
        while not quoted and (len(line) - len(line.rstrip(b"\\"))) % 2 and following < len(src):
            # (in an unquoted body a backslash joins the line to the next: `flock ... \`
            # then `EOF` is one line, not the end)
            more, _, following = _bash_line(src, following, tabs)
            line, joined = line[:-1] + more, True
        if line == delimiter + cr or (
            inside is not None and line.startswith(delimiter) and b")" in line
        ):
            if joined:
                return ()  # (an end written over two lines: not followed here)
            last = position + lead  # (in a `$( )`, `EOF)` ends it with the substitution)
            break
        body.append(line)
        position = following
    if last is None or position == line_start:  # (bash's end is tree-sitter-bash's line)
        return ()  # (no end of bash's found: a heredoc bash reads to the file's end, or one
        # this does not follow; tree-sitter-bash's reading kept)
    for row in src[src.find(b"\n", start.end_byte) + 1 : line_start].split(b"\n"):
        body.append(row.lstrip(b"\t") if tabs else row)  # (the lines before the early end)
    word = next(
        (
            candidate
            for index in reversed(range(len(delimiter)))
            for letter in b"QZXJKqzxjk"
            for candidate in (delimiter[:index] + bytes([letter]) + delimiter[index + 1 :],)
            if candidate != delimiter and not any(b.startswith(candidate) for b in body)
        ),
        None,
    )
    if word is None:
        return ()
    return ((start.start_byte + found.start(group), word), (last, word))


def _bash_line(src: bytes, position: int, tabs: bool) -> tuple[bytes, int, int]:
    """The line at `position` as bash compares it with a heredoc's delimiter (its leading tabs
    stripped, for `<<-`), how many tabs were stripped, and where the next line starts."""
    stop = src.find(b"\n", position)
    stop = len(src) if stop < 0 else stop
    line = src[position:stop]
    stripped = line.lstrip(b"\t") if tabs else line
    return stripped, len(line) - len(stripped), stop + 1


# a heredoc's delimiter word as written: plain, in quotes, or after a backslash (`EOF`, `'EOF'`,
# `"EOF"`, `\EOF`, `END-OF.x`); the delimiter is group 2 or 3
_DELIMITER = lazy_compile(rb"(['\"]?)([A-Za-z0-9_.-]+)\1|\\([A-Za-z0-9_.-]+)")
# what may follow a delimiter word tree-sitter-bash read whole
_AFTER_DELIMITER = frozenset(bytes([c]) for c in b" \t\r\n;|&<>)")


def _heredoc_body(redirect: Node, src: bytes) -> Syn | None:
    """Where a heredoc's body lies: from the line after its operator's to its delimiter's line.
    tree-sitter-bash starts its body node after the first line's leading blanks, and takes a
    first line that starts with a backslash (`\\$HOME/x`) for words of the redirection; a body
    of that one line has no body node."""
    body = end = None
    line_end = first = len(src)  # (where the operator's line ends; where the body starts)
    for child in redirect.children:
        if child.type == "heredoc_start":
            line_end = src.find(b"\n", child.end_byte)
            line_end = len(src) if line_end < 0 else line_end
        elif child.type == "heredoc_body":
            body = child
        elif child.type == "heredoc_end":
            end = child
        elif child.start_byte >= line_end:  # (a word of the body's first line)
            first = line_end + 1
    if end is None:
        return syn(body) if body is not None else None  # (no delimiter: bash reads to the end)
    stop = body.end_byte if body is not None else end.start_byte
    start = body.start_byte if body is not None else stop
    while start > 0 and src[start - 1] in b" \t":
        start -= 1
    return _tuple(Syn, ("heredoc_body", min(start, first), stop))


class _Builder:
    def __init__(self, script: Script, root: Node) -> None:
        self.script = script
        self.root = root
        self.read_names: set[str] = set()  # (the names the last held value was read from)
        self.errexit = script.errexit_at_start
        self.pipefail = False  # (a shell `bash -c` starts does not inherit it)
        self.lastpipe = False  # `shopt -s lastpipe`: a pipeline's last element runs here
        self.allexport = False
        # names declared namerefs (`local -n ref=$1`): an assignment to one assigns the variable
        # it names, known at run time
        self.namerefs: dict[str, str] = {}  # (to the name each names, "" where not known)
        self.declaring_namerefs = False
        self.by_node: dict[int, Command] = {}
        # words after a redirection (`cat <in a b`): tree-sitter-bash reads them as more
        # destinations of the redirect; bash as arguments of the command (see on_command)
        self.args_after: dict[int, list[Node]] = {}
        self.words: dict[int, Word] = {}
        self.guard_nodes: dict[int, Syn] = {}  # (an `if`'s then and else: one statement)
        self.reads = _Reads(script, root)

    def build(self) -> None:
        self.walk(self.root, _Context())
        self.held_heredocs()
        if self.script.parent is None:
            _mark_stale_held(self.script)

    def misplaced(self, node: Node) -> None:
        """A reserved word where a command's name stands (`x=$( elif ...; fi )`, an `if` left
        out): bash rejects the script there, where tree-sitter-bash read a command."""
        script = self.script
        row = node.start_point[0]
        script.has_error = True
        script.error_row = row if script.error_row is None else min(script.error_row, row)

    def glued_lines(self, node: Node) -> None:
        """A command whose words go on past a newline no `\\` escapes (tree-sitter-bash glues
        the lines after a pipeline of three commands to its last, up to one with a redirect, in
        some small scripts: `a | b | c`, `ls`, `echo > f`): bash ends the command there. The
        newline's offset is kept (the whitespace before a comment that ends the line, where one
        does), for `parse_file` to read the text again with `;` there; the script is one
        tree-sitter-bash parsed only in part until it does."""
        src = self.script.src
        children = node.children
        if any(c.type == "heredoc_redirect" for c in children):
            return
        for before, after in pairwise(children):
            newline = src.find(b"\n", before.end_byte, after.start_byte)
            while newline >= 0 and src[newline - 1 : newline] == b"\\":  # (an empty line
                newline = src.find(b"\n", newline + 1, after.start_byte)  # after a `\`: h108)
            if newline < 0:
                continue
            at = newline
            ahead = src[before.start_byte - 1 : before.start_byte]
            if before.type == "comment" and ahead in (b" ", b"\t"):
                at = before.start_byte - 1
            elif before.type == "comment" and src[before.start_byte - 3 : before.start_byte] in (
                b" \\\n",
                b"\t\\\n",
            ):
                # (a comment at the start of the line a `\` after a blank ran into: the `\` is
                # where bash ends the command, h106 M1; the newline after the comment would join
                # the next line to the comment. Glued to a word, `--a=b\`, the `#` starts none)
                at = before.start_byte - 2
            self.script.glued.append(at)
            self.misplaced(after)
            return

    def held_heredocs(self) -> None:
        """A heredoc a variable holds (`CMD=$(cat <<EOF ... EOF)`), written to a file a shell
        runs later (`echo "$CMD" > w.sh` ... `bash w.sh`): a script of its own, as a heredoc
        `cat` writes to that file is. The variable assigned once, the writer's only argument
        `"$CMD"`."""
        writers = [
            c
            for c in self.script.commands
            if c.base in ("echo", "printf")
            and c.words[-1].node.type == "string"  # (`"$CMD"`: unquoted, its lines are joined)
            and any(r.operator in (">", ">|") for r in c.redirects)
        ]
        for writer in writers:
            name = writer.words[-1].variable()
            if name is None or len(writer.words) != (3 if writer.base == "printf" else 2):
                continue
            if writer.base == "printf" and writer.words[1].value not in ("%s\\n", "%s"):
                continue
            assigned = [a for a in self.script.assignments if a.name == name]
            value = assigned[0].value if len(assigned) == 1 else None
            cat = _heredoc_cat(self.script, value) if value is not None else None
            if cat is None:
                continue
            errexit = self._run_later(writer)
            if errexit is None:
                continue
            for heredoc in cat.heredocs:
                if heredoc.body is not None:
                    text, offsets = heredoc.value(heredoc.body, self.script)
                    verbatim = heredoc.quoted or not _OUTER_SUBSTITUTION.search(
                        self.script.text_of(heredoc.body)
                    )
                    self.script.nested.append(_nested(cat, text, offsets, errexit, verbatim))

    # -- words and guards --------------------------------------------------------------------
    def word(self, node: Node) -> Word:
        """The word at a node, made once."""
        word = self.words.get(node.id)
        if word is None:
            word = self.words[node.id] = make_word(self.script, node, self.reads)
        return word

    def guard(self, node: Node, expect: bool, patterns: tuple[Node, ...] = ()) -> Guard:
        where = self.guard_nodes.get(node.id)
        if where is None:
            where = self.guard_nodes[node.id] = syn(node)
        return Guard(where, expect, tuple(syn(p) for p in patterns), self.script)

    # -- the walk ----------------------------------------------------------------------------
    def walk(self, node: Node, ctx: _Context) -> None:
        kind = node.type
        handler = _HANDLERS.get(kind)
        if handler is not None:
            first = len(self.script.commands)
            handler(self, node, ctx)
            if kind in _SENT_WHOLE and self._sent_away(node):
                whole = syn(node)
                for command in self.script.commands[first:]:  # `{ ...; } &`: all of it runs apart
                    command.background = True
                    if command.group is None:
                        command.group = whole
            return
        if kind in _EXPRESSIONS:
            # nothing the model records can be inside without `${`, `$(`, a backquote or `<(`
            if not node.named_child_count or not self.may_hold(node):
                return
            if kind == "expansion":
                self.expansion(node)
        for child in node.named_children:
            self.walk(child, ctx)

    def _sent_away(self, node: Node) -> bool:
        """`_is_background`, asked only where an `&` follows on the statement's last line (and
        the lines a `\\` at its end continues it on: `... \\` then `> log 2>&1 &`)."""
        src = self.script.src
        end = src.find(b"\n", node.end_byte)
        while end > 0 and src[end - 1 : end] == b"\\":
            end = src.find(b"\n", end + 1)
        if src.find(b"&", node.end_byte, end if end >= 0 else len(src)) < 0:
            return False
        return _is_background(node)

    def may_hold(self, node: Node) -> bool:
        """Whether a word or expression can hold an expansion with an operator or a command."""
        return _MAY_HOLD.search(self.script.src, node.start_byte, node.end_byte) is not None

    def walk_list(self, nodes: list[Node], ctx: _Context) -> None:
        for child in nodes:
            self.walk(child, ctx)

    def on_list(self, node: Node, ctx: _Context) -> None:
        children = node.children
        operator = next((c.type for c in children if c.type in ("&&", "||")), None)
        named = [c for c in children if c.is_named]
        if operator is None or len(named) != 2:
            self.walk_list(named, ctx)
            return
        left, right = named
        self.walk(left, ctx.with_(tested=True, or_guarded=ctx.or_guarded or operator == "||"))
        self.walk(right, ctx.under(self.guard(left, operator == "&&")))

    def on_pipeline(self, node: Node, ctx: _Context) -> None:
        named = [c for c in node.named_children]
        first = len(self.script.commands)
        misread = _list_in_first_element(named)
        if misread is not None:
            # tree-sitter-bash reads `a && b 2>&1 | c` as `(a && b 2>&1) | c`; bash, as
            # `a && (b 2>&1 | c)`: the list's left side runs first, in this shell, and the
            # pipeline, whose first element is `b 2>&1`, as `&&` or `||` lets it
            left, operator, _ = misread
            self.walk(left, ctx.with_(tested=True, or_guarded=ctx.or_guarded or operator == "||"))
            ctx = ctx.under(self.guard(left, operator == "&&"))
        # (in a tested pipeline, its elements are tested as any command in it)
        element = ctx.tested_() if ctx.tested else ctx.with_(tested=True, piped=True)
        several = len(named) > 1
        for child in named[:-1]:
            inside = element.with_(apart=syn(child)) if several else element
            if misread is not None and child.id == named[0].id:
                self._redirected(child, misread[2], inside)
            else:
                self.walk(child, inside)
        if named:
            last = named[-1]
            self.walk(last, ctx.with_(apart=syn(last)) if several and not self.lastpipe else ctx)
        if _is_background(node):  # `vllm serve ... | tee log &`: every element runs apart
            whole = syn(node) if misread is not None else None  # (the list is sent whole)
            for command in self.script.commands[first:]:
                command.background = True
                if whole is not None and command.group is None:
                    command.group = whole

    def on_negated_command(self, node: Node, ctx: _Context) -> None:
        self.walk_list(node.named_children, ctx.tested_())

    def on_if_statement(self, node: Node, ctx: _Context) -> None:
        """then under (cond, True); each elif and the else under every earlier (cond, False)."""
        conditions, body = _split_at_then(node)
        tested = ctx.tested_()
        for condition in conditions:
            self.walk(condition, tested)
        failed = [self.guard(conditions[-1], False)] if conditions else []
        branch = ctx.under(self.guard(conditions[-1], True)) if conditions else ctx
        for child in body:
            kind = child.type
            if kind == "elif_clause":
                elif_conditions, elif_body = _split_at_then(child)
                before = ctx.under(*failed)
                for condition in elif_conditions:
                    self.walk(condition, before.tested_())
                last = elif_conditions[-1] if elif_conditions else child
                inside = before.under(self.guard(last, True))
                for grandchild in elif_body:
                    self.walk(grandchild, inside)
                failed.append(self.guard(last, False))
            elif kind == "else_clause":
                self.walk_list(child.named_children, ctx.under(*failed))
            else:
                self.walk(child, branch)

    def on_case_statement(self, node: Node, ctx: _Context) -> None:
        value = node.child_by_field_name("value")
        earlier: list[Guard] = []  # the first matching item wins
        # the patterns of the items before that ended with `;&`: this item's body runs when
        # one of them matched too (it matches their patterns or its own)
        chain: tuple[Node, ...] = ()
        for child in node.named_children:
            if child.type != "case_item" or value is None:
                self.walk(child, ctx)
                continue
            patterns = chain + tuple(child.children_by_field_name("value"))
            inside = ctx.under(*earlier, self.guard(value, True, patterns))
            ending = child.child_by_field_name("fallthrough")
            chain = patterns if ending is not None and ending.type == ";&" else ()
            if ending is None:  # (after `;;&` bash tests the next patterns too: no guard)
                earlier.append(self.guard(value, False, patterns))
            for grandchild in child.named_children:
                if not any(grandchild.id == p.id for p in patterns):
                    self.walk(grandchild, inside)

    def on_while_statement(self, node: Node, ctx: _Context) -> None:
        self._conditional(node, ctx)

    def on_until_statement(self, node: Node, ctx: _Context) -> None:
        self._conditional(node, ctx)

    def _conditional(self, node: Node, ctx: _Context) -> None:
        """A `while`/`until` loop: its condition runs on every pass, as its body does."""
        condition_ids = {c.id for c in node.children_by_field_name("condition")}
        inside = ctx.looping(node)
        for child in node.named_children:
            if child.id in condition_ids:
                self.walk(child, inside.tested_())
            else:
                self.walk(child, inside)

    def on_subshell(self, node: Node, ctx: _Context) -> None:
        saved = self.errexit
        first = len(self.script.commands)
        self.walk_list(node.named_children, ctx.with_(subshell=syn(node)))
        self.errexit = saved
        if _is_background(node):  # `( sleep 600; kill "$PID" ) &`: all of it runs apart
            whole = syn(node)  # (`$!` is the subshell's, unless bash runs its last command
            for command in self.script.commands[first:]:  # in its place)
                command.background = True
                if command.group is None:
                    command.group = whole

    def on_command_substitution(self, node: Node, ctx: _Context) -> None:
        saved = self.errexit
        self.errexit = False  # bash does not inherit errexit into $(...) without inherit_errexit
        self.walk_list(node.named_children, ctx.with_(subshell=syn(node), tested=False))
        self.errexit = saved

    def on_process_substitution(self, node: Node, ctx: _Context) -> None:
        self.on_command_substitution(node, ctx)

    def on_function_definition(self, node: Node, ctx: _Context) -> None:
        name_node = node.child_by_field_name("name")
        name = self.script.text_of(name_node) if name_node is not None else "?"
        self.script.functions[name] = syn(node)
        saved = self.errexit
        body = node.child_by_field_name("body")
        if body is not None:
            self.walk(body, ctx.with_(function=name, tested=False, or_guarded=False))
        self.errexit = saved

    def on_for_statement(self, node: Node, ctx: _Context) -> None:
        variable = node.child_by_field_name("variable")
        command = self.new_command(node, [], ctx)
        if variable is not None:
            self.assign(command, self.script.text_of(variable), None, syn(variable), "for", False)
        self._loop(node, ctx, {variable.id} if variable is not None else set())

    def on_c_style_for_statement(self, node: Node, ctx: _Context) -> None:
        self._loop(node, ctx, set())

    def on_compound_statement(self, node: Node, ctx: _Context) -> None:
        """`{ ...; }` is a group; `(( n = x - 2 ))` an arithmetic command, whose assignments
        (`=`, `+=`..., `++`, `--`) set variables."""
        if node.child_count and node.children[0].type == "((":
            command = self.new_command(node, [], ctx)
            for target in _arithmetic_targets(node):
                name = self.script.text_of(target)
                self.assign(command, name, None, syn(target), "arithmetic", False)
        for child in node.named_children:
            self.walk(child, ctx)

    def _loop(self, node: Node, ctx: _Context, skip: set[int]) -> None:
        """The body runs once per pass; the words of the list, before the first."""
        body = node.child_by_field_name("body")
        inside = ctx.looping(node)
        for child in node.named_children:
            if child.id not in skip:
                self.walk(child, inside if body is not None and child.id == body.id else ctx)

    def on_redirected_statement(self, node: Node, ctx: _Context) -> None:
        self._redirected(node, node.child_by_field_name("body"), ctx)

    def _redirected(self, node: Node, body: Node | None, ctx: _Context) -> None:
        """A statement with redirects: `body`, the node's own (or, where tree-sitter-bash put a
        list under the redirects of its last command, that command: `on_pipeline`)."""
        own = node.child_by_field_name("body")
        for child in node.named_children:
            if own is None or child.id != own.id:
                self.walk(child, ctx)
        if body is None:
            return
        last = body
        while last.type in ("list", "pipeline") and last.named_child_count:
            # tree-sitter-bash puts `a || b >> f` and `a | b > f` under one redirect; bash gives
            # it to the last command
            last = last.named_children[-1]
        after = [
            d
            for c in node.named_children
            if c.type == "file_redirect"
            for d in _args_in_redirect(c)
        ]
        if after:
            self.args_after[last.id] = after
        self.walk(body, ctx)
        heredocs = [c for c in node.named_children if c.type == "heredoc_redirect"]
        for redirect in heredocs if self.script.parent is None else ():
            edits = _early_heredoc_end(redirect, self.script.parse_src or self.script.src)
            if edits:
                self.script.early_heredocs.append(edits)
        command = self.by_node.get(last.id)
        if command is not None:
            for child in node.named_children:
                self.redirect(command, child)
                if child.type == "heredoc_redirect":  # `cat <<EOF >> file`
                    for inner in child.named_children:
                        self.redirect(command, inner)
        if command is None or not heredocs:
            return
        for redirect in heredocs:
            start = next((c for c in redirect.named_children if c.type == "heredoc_start"), None)
            quoted = start is not None and any(q in self.script.text_of(start) for q in "'\"\\")
            where = _heredoc_body(redirect, self.script.src)
            tabs = any(c.type == "<<-" for c in redirect.children)
            command.heredocs += (Heredoc(syn(redirect), where, quoted, tabs),)
        self.heredoc_to_shell(command)

    def on_variable_assignment(self, node: Node, ctx: _Context) -> None:
        command = self.new_command(node, [], ctx)
        self.assignment_node(command, node, "assign", False)

    def on_variable_assignments(self, node: Node, ctx: _Context) -> None:
        command = self.new_command(node, [], ctx)
        for child in node.named_children:
            if child.type == "variable_assignment":
                self.assignment_node(command, child, "assign", False)

    def on_declaration_command(self, node: Node, ctx: _Context) -> None:
        keyword = node.children[0]
        words = [Word(self.script, syn(keyword), keyword.type, (), True)]
        command = self.new_command(node, words, ctx)
        flags = [self.word(c) for c in node.named_children if c.type in ("word", "concatenation")]
        words.extend(flags)
        kind = keyword.type if keyword.type in _DECLARATIONS else "declare"
        if (
            kind in ("declare", "typeset")
            and ctx.function is not None
            and not any(f.value.startswith("-") and "g" in f.value for f in flags)
        ):
            kind = "local"  # (in a function, `declare` makes a local, as `local` does)
        exported = kind == "export" or any(
            f.value.startswith("-") and "x" in f.value for f in flags
        )
        if kind == "export" and any(f.value.startswith("-") and "n" in f.value for f in flags):
            kind, exported = "unexport", False  # `export -n PORT`: no longer passed to children
        elif any(f.value.startswith("+") and "x" in f.value for f in flags):
            kind, exported = "unexport", False  # `declare +x PORT`: the same (h29 S8)
        children = node.named_children
        src = self.script.src
        # (`declare -n ref=MODEL`: `ref=m` then assigns MODEL)
        self.declaring_namerefs = kind != "unexport" and any(
            f.value.startswith("-") and "n" in f.value for f in flags
        )
        continuing: set[int] = set()  # (pieces of a value past a line continuation: `_continued`)
        for index, child in enumerate(children):
            if child.type == "variable_assignment":
                more: Word | None = None
                end = child.end_byte
                for piece in children[index + 1 :]:
                    if piece.type == "variable_assignment" or not _continued(
                        src, end, piece.start_byte
                    ):
                        break
                    word = self.word(piece)
                    more = word if more is None else JoinedWord(more, word)
                    continuing.add(piece.id)
                    end = piece.end_byte
                self.assignment_node(command, child, kind, exported, more)
            elif child.id in continuing:
                continue
            elif child.type == "variable_name":
                self.assign(command, self.script.text_of(child), None, syn(child), kind, exported)
            elif (quoted := self.quoted_assignment(child)) is not None:
                # `export "PORT=8000"`: bash assigns the quoted word as it would the bare one
                self.assign(command, quoted[0], quoted[1], syn(child), kind, exported)
            elif child.type != "comment" and not self.word(child).static:
                # `export "$k=$v"`, `export $(grep -v '^#' .env | xargs)`: names known at run time
                self.assign(command, "", None, syn(child), "dynamic", exported)
                self.walk_inside(child, ctx)
        self.declaring_namerefs = False

    def quoted_assignment(self, node: Node) -> tuple[str, Word] | None:
        """A declaration's argument that is an assignment in quotes, `"PORT=8000"` or
        `'PORT=8000'`, with no expansion or escape: its name and its value (a word in the
        file, inside the quotes); None for any other word."""
        if node.type not in ("string", "raw_string"):
            return None
        src = self.script.src
        inner = src[node.start_byte + 1 : node.end_byte - 1]
        found = _QUOTED_ASSIGNMENT.fullmatch(inner)
        if found is None or (node.type == "string" and re.search(rb'[$`\\"]', inner)):
            return None
        start = node.start_byte + 1 + found.start(2)
        value = found.group(2).decode(errors="replace")
        word = Word(self.script, Syn("word", start, node.end_byte - 1), value, None, True)
        return found.group(1).decode(), word

    def time_keyword(self, node: Node, words: list[Word]) -> None:
        """`time`, unquoted, where a command's name stands at the head of its pipeline: bash's
        reserved word (behind an assignment, quoted, or after a `|`, it is the program). Its
        `-p` and `--` are its own."""
        src = self.script.src
        first = words[0].node
        if src[first.start_byte : first.end_byte] != b"time" or not _pipeline_head(node):
            return
        found: list[tuple[int, int]] = []
        taken: list[bytes] = []
        for word in words:
            where = word.node
            text = src[where.start_byte : where.end_byte]
            # (one `-p`, then `--`: bash runs a second `-p` as a command; h83 R4)
            if (not found and text != b"time") or (found and text not in (b"-p", b"--")):
                break
            if text in taken:
                break
            found.append((where.start_byte, where.end_byte))
            taken.append(text)
            if text == b"--":
                break
        self.script.time_words.extend(found)

    def on_unset_command(self, node: Node, ctx: _Context) -> None:
        keyword = node.children[0]
        words = [Word(self.script, syn(keyword), keyword.type, (), True)]
        words.extend(self.word(c) for c in node.named_children)
        self.new_command(node, words, ctx)

    def on_command(self, node: Node, ctx: _Context) -> None:
        words: list[Word] = []
        prefix: list[Node] = []
        rest: list[Node] = []  # the name, arguments and redirects
        src = self.script.src
        if src.find(b"\n", node.start_byte, node.end_byte) >= 0:
            self.glued_lines(node)
        for child in node.children:
            kind = child.type
            if not child.is_named and kind not in _OPERATOR_WORDS:
                continue
            if kind == "variable_assignment":
                prefix.append(child)
                continue
            rest.append(child)
            if kind == "command_name":
                inner = child.named_children
                if inner and inner[0].is_missing:
                    continue  # (`X=$(cmd) > /dev/null`: assignments and redirects, no name)
                if inner and inner[0].type == "word" and inner[0].text in _MISPLACED:
                    self.misplaced(inner[0])
                words.append(self.word(inner[0] if inner else child))
            elif kind == "file_redirect":
                words += [self.word(d) for d in _args_in_redirect(child)]
            elif words and not kind.endswith("_redirect"):
                word = self.word(child)
                previous = words[-1]
                end = previous.parts[-1].node if isinstance(previous, JoinedWord) else previous.node
                if (len(words) > 1 and end.end_byte == child.start_byte) or _continued(
                    src, end.end_byte, child.start_byte
                ):
                    # one shell word that tree-sitter-bash split (`$A:$B`): no blank between
                    word = JoinedWord(previous, word)
                    words[-1] = word
                    continue
                words.append(word)
        # `F='{'\<newline>'"a": 1}'`: the value goes on past the line continuation, into what
        # tree-sitter-bash took for the command's name (and the words it continues into)
        joined: Word | None = None
        # (assignments after it, before any name: `x1=a\<nl>b x2=c`; the name unquoted, as bash
        # reads an assignment word)
        written: list[tuple[Word, str, Word]] = []
        if prefix and words and rest[0].type == "command_name":
            first = words[0].parts[0] if isinstance(words[0], JoinedWord) else words[0]
            if _continued(src, prefix[-1].end_byte, first.node.start_byte):
                joined, words = words[0], words[1:]
                while words:
                    split = self.split_assignment(words[0])
                    if split is None or not words[0].text.startswith(split[0] + "="):
                        break
                    written.append((words.pop(0), *split))
        words += [self.word(d) for d in self.args_after.pop(node.id, ())]
        if not prefix and words and rest[0].type == "command_name":
            self.time_keyword(node, words)
        command = self.new_command(node, words, ctx)
        command.background = _is_background(node)
        for child in rest:
            if child.type == "file_redirect":
                self.redirect(command, child)
        for assignment in prefix:  # (with no command left, they are the shell's: `A=1 B=2`)
            more = joined if assignment is prefix[-1] else None
            if words:
                self.assignment_node(command, assignment, "prefix", True, more)
            else:
                self.assignment_node(command, assignment, "assign", False, more)
        for word, name, value in written:
            if words:
                self.assign(command, name, value, word.node, "prefix", True)
            else:
                self.assign(command, name, value, word.node, "assign", False)
        if prefix and words and words[0].static and words[0].value in _DECLARATIONS:
            self.prefixed_declaration(command, words[0].value, words[1:])
        elif (  # (`command export PORT=8000`, `builtin declare -x ...`, `time export`: h29 F3)
            len(words) > 1
            and words[0].static
            and words[0].value in IN_THIS_SHELL
            and words[1].static
            and words[1].value in _DECLARATIONS
        ):
            self.prefixed_declaration(command, words[1].value, words[2:])
        # expansions and substitutions inside the words run in this shell (or a subshell)
        for child in rest:
            self.walk_inside(child, ctx)
        self.command_effects(command)

    def walk_inside(self, node: Node, ctx: _Context) -> None:
        """Expansions and command substitutions within a word or redirect."""
        if not node.named_child_count or not self.may_hold(node):
            return
        kind = node.type
        if kind == "expansion":
            self.expansion(node)
        elif kind in ("command_substitution", "process_substitution"):
            self.on_command_substitution(node, ctx)
            return
        for child in node.named_children:
            self.walk_inside(child, ctx)

    def redirect(self, command: Command, node: Node) -> None:
        if node.type != "file_redirect":
            return
        target = node.child_by_field_name("destination")
        operator = next((c.type for c in node.children if not c.is_named), "")
        if target is not None:
            command.redirects += (Redirect(operator, self.word(target)),)

    # -- facts -------------------------------------------------------------------------------
    def new_command(self, node: Node, words: list[Word], ctx: _Context) -> Command:
        command = Command(
            self.script,
            syn(node),
            words,
            tested=ctx.tested,
            or_guarded=ctx.or_guarded,
            piped=ctx.piped,
            errexit=self.errexit,
            pipefail=self.pipefail,
            function=ctx.function,
            subshell=ctx.subshell,
            guards=ctx.guards,
            loops=ctx.loops,
            apart=ctx.apart,
        )
        self.script.commands.append(command)
        self.by_node[node.id] = command
        return command

    def prefixed_declaration(self, command: Command, keyword: str, args: list[Word]) -> None:
        """`X=1 export Y=2`, `PORT=8000 export PORT`: a declaration after assignments, which
        tree-sitter-bash reads as a plain command. Its arguments declare as a declaration's do
        (`Y=2`, `Y`), and one that names a prefix assignment's variable keeps that value, and
        exported (bash makes the command's variable the shell's: `PORT=8000 readonly PORT`
        leaves PORT=8000 exported);
        the other prefix assignments are the command's alone. Read for `export` and
        `readonly`, and for `declare`/`typeset` outside a function with no option but `-x`,
        `-r`, `-g`; any other option or a name not written out: not read."""
        flags = "".join(w.value[1:] for w in args if w.value.startswith("-"))
        if keyword in ("declare", "typeset", "local"):
            if command.function is not None or set(flags) - set("xrg"):
                return
            kind, exported = "declare", "x" in flags
        elif flags:
            return
        else:
            kind, exported = keyword, keyword == "export"
        if any(not w.static and "=" not in w.literal_prefix for w in args):
            return
        prefixed = {a.name: a for a in command.assignments if a.kind == "prefix"}
        for word in args:
            split = self.split_assignment(word)
            if split is not None:
                self.assign(command, split[0], split[1], word.node, kind, exported)
                continue
            name = word.value
            if not word.static or not name.isidentifier():
                continue
            given = prefixed.get(name)
            value = given.value if given is not None else None
            # (the command's variable stays exported, as it was for the command)
            self.assign(command, name, value, word.node, kind, exported or given is not None)

    def split_assignment(self, word: Word) -> tuple[str, Word] | None:
        """A word written as an assignment (`NAME=value`, the name written out): the name and
        the value's word; None for any other word."""
        name, equals, _ = word.literal_prefix.partition("=")
        if not equals or not name.isidentifier():
            return None
        at = len(name) + 1
        value = Word(
            self.script,
            word.node,
            word.value[at:],
            runs(word.offsets[at:]),
            word.static,
            tuple(word.reads()),
        )
        return name, value

    def assignment_node(
        self, command: Command, node: Node, kind: str, exported: bool, more: Word | None = None
    ) -> None:
        """`more`: the rest of the value past a line continuation, which tree-sitter-bash
        parsed as another word (`_continued`)."""
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return
        name = self.script.text_of(name_node)
        element = False  # (an element other than 0: `$NAME` keeps its value, as bash has it)
        if name_node.type == "subscript":
            inner = name_node.child_by_field_name("name")
            index = name_node.child_by_field_name("index")
            name = self.script.text_of(inner) if inner is not None else name
            element = index is None or self.script.text_of(index) != "0"
        value = self.word(value_node) if value_node is not None else None
        if more is not None:
            value = more if value is None else JoinedWord(value, more)
        # (`A[1]=x`: assigned, the value `$A` has is not that one: not known)
        self.assign(command, name, None if element else value, syn(node), kind, exported)
        if value_node is not None and value_node.named_child_count and self.may_hold(value_node):
            # a substitution in the value runs where the assignment does: under its guards
            self.walk_inside(value_node, _Context(function=command.function, guards=command.guards))

    def assign(
        self,
        command: Command,
        name: str,
        value: Word | None,
        node: Syn,
        kind: str,
        exported: bool,
    ) -> None:
        if self.allexport and kind not in ("prefix", "unexport", "dynamic"):
            # `set -a`: every variable set is exported; in a function's body it depends on the
            # state where the function is called, which the text does not give (not marked)
            exported = exported or command.function is None
        if self.declaring_namerefs:
            target = value.value if value is not None and value.static else ""
            self.namerefs[name] = target if target.isidentifier() else ""
        elif name in self.namerefs:  # (assigns the variable the reference names)
            name = self.namerefs[name]
            if not name:
                value, kind = None, "dynamic"
        assignment = Assignment(name, value, node, command, kind, exported)
        command.assignments += (assignment,)
        self.script.assignments.append(assignment)

    def expansion(self, node: Node) -> None:
        """Record `${X<operator>...}` (plain reads are not facts anyone asks for)."""
        op = node.child_by_field_name("operator")
        if op is None:
            return
        names = [c for c in node.named_children if c.type == "variable_name"]
        if not names:
            return
        operator = self.script.text_of(op)
        where = syn(node)
        expansion = Expansion(self.script.text_of(names[0]), operator, where, self.script)
        self.script.expansions.append(expansion)
        if expansion.assigns and self.script.commands:
            command = self.script.commands[-1]
            self.assign(command, expansion.name, None, where, "default", False)

    def command_effects(self, command: Command) -> None:
        base = command.base
        if base == "set":
            change = errexit_change([w.value for w in command.args])
            if change is not None:
                self.errexit = change
            pipefail = option_change([w.value for w in command.args], "pipefail")
            if pipefail is not None:
                self.pipefail = pipefail
            allexport = option_change([w.value for w in command.args], "allexport", "a")
            if allexport is not None:
                self.allexport = allexport
        elif base == "shopt" and command.apart is None and not command.subshell:
            words = [w.value for w in command.args]
            flags = "".join(w[1:] for w in words if w.startswith("-"))  # (`-qs`, `-s -q`)
            if "lastpipe" in words and ("s" in flags) != ("u" in flags) and "o" not in flags:
                self.lastpipe = "s" in flags
        elif base in ("read", "mapfile", "readarray", "getopts", "printf"):
            self.read_targets(command, base, [w.value for w in command.args])
        elif (  # (`command read -r PORT < f`, `builtin printf -v x ...`: the builtin's, h29 F3)
            base in IN_THIS_SHELL
            and len(command.words) > 1
            and command.words[1].static
            and command.words[1].value in ("read", "mapfile", "readarray", "getopts", "printf")
        ):
            args = command.words[2:]
            self.read_targets(command, command.words[1].value, [w.value for w in args], args)
        elif base == "let":  # `let m=3 "n += 1" i++`
            for word in command.args:
                match = _LET_TARGET.match(word.value) if word.static else None
                if match is not None:
                    name = match.group(1) or match.group(2)
                    self.assign(command, name, None, word.node, "arithmetic", False)
        self.shell_string(command)

    def read_targets(
        self, command: Command, base: str, values: list[str], given: list[Word] | None = None
    ) -> None:
        """`given`: the builtin's arguments, where a wrapper runs it (`command read ...`)."""
        args = command.args if given is None else given
        if base == "printf":
            # (an option before the format only: `printf '%s\n' -v x` prints `-v`)
            i = next((i for i, v in enumerate(values) if not v.startswith("-") or v == "-v"), 0)
            if i + 1 < len(args) and values[i] == "-v" and "--" not in values[:i]:
                target = args[i + 1]
                name = _target_name(target)
                if name is not None:
                    kind = "read" if name else "dynamic"
                    self.assign(command, name, None, target.node, kind, False)
            return
        if base == "getopts":  # `getopts OPTSTRING NAME [ARGS]`: NAME, whatever OPTSTRING is
            if len(args) > 1 and args[1].static and args[1].value.isidentifier():
                self.assign(command, args[1].value, None, args[1].node, "read", False)
            return
        names: list[Word] = []
        skip = False
        # the options that take an argument (`read -a NAME` assigns NAME, an array)
        taking = "dinNptu" if base == "read" else "dnOsuCc"
        for word in args:
            if skip:
                skip = False
                continue
            if word.value.startswith("-") and len(word.value) > 1:
                last = word.value[-1]
                if base == "read" and last == "a":
                    skip = False
                    continue  # (the next word is the array: taken as a name below)
                skip = last in taking
                continue
            names.append(word)
        if base in ("mapfile", "readarray"):
            names = names[-1:]
        for word in names:
            name = _target_name(word)
            if name is not None:
                kind = "read" if name else "dynamic"
                self.assign(command, name, None, word.node, kind, False)

    # -- nested scripts ----------------------------------------------------------------------
    def shell_string(self, command: Command) -> None:
        """`bash -c STRING` (behind wrappers) and `ssh HOST 'command'` run a new shell; `$CMD
        ARGS` runs the words a string variable splits into."""
        invocation = _shell_invocation(command)
        if invocation is None and command.base in self.script.functions:
            # `run_or_die "barrier" "python3 sync.py ..."`, the function `eval`s its argument
            index = self.script.runs_string_argument(command.base)
            if index is not None and index < len(command.words):
                invocation = [command.words[index]], command.errexit
        if invocation is None:
            wrapped = _sbatch_wrap(command)
            if wrapped is not None:  # `sbatch --wrap="srun ..."`: a `sh` script on the node
                verbatim = not _OUTER_SUBSTITUTION.search(wrapped[0])
                self.script.nested.append(_nested(command, *wrapped, False, verbatim=verbatim))
                return
            self.held_run(command)
            return
        words, errexit = invocation
        if not words:
            return
        value, offsets = _joined(words)
        value, offsets = _positional_put(command, value, offsets)
        held = self._held_string(value)
        if held is not None:  # `bash -c "exec $CMD > log"`: the command the variable holds
            prefix, end, text, places = held
            if self._split_by_eval(command, words):
                text = text.translate(_SPLIT_BLANKS)
            value = value[:prefix] + text + value[end:]
            offsets = offsets[:prefix] + places + offsets[end:]
        # (as written: no variable's value in the words' place, and no command substitution
        # of this shell, whose output the shell is given: `eval "$(python3 -c '...')"`)
        verbatim = held is None and not any(
            not w.static and _OUTER_SUBSTITUTION.search(w.text) for w in words
        )
        nested = _nested(command, value, offsets, errexit, verbatim=verbatim)
        self.script.nested.append(nested)
        if held is not None:
            self.script.top.held_reads.append((nested, frozenset(self.read_names)))

    def _split_by_eval(self, command: Command, words: list[Word]) -> bool:
        """Whether `eval` gets the value as words bash split it into: `eval $CMD` unquoted
        (`IFS` as bash starts with it: the script assigns none), which joins them with blanks,
        so a newline in the value ends no command (`eval "$CMD"` runs each line of it)."""
        return (
            command.invocation.base == "eval"
            and words[0].node.type in ("simple_expansion", "expansion")
            and not any(
                a.name == "IFS" and a.kind not in ("prefix", "read")
                for a in self.script.top.assignments
            )
        )

    def _held_string(self, value: str) -> tuple[int, int, str, list[int]] | None:
        """`_held_command`, with what the script appends to the string after it assigns it
        (`CMD="$CMD --nnodes 2"` or `CMD+=" --nnodes 2"`, under a condition too): each
        appended piece is read as part of the command, as some run gives it. The string may go
        on after the expansion (`"$CMD > server.log 2>&1"`: the shell that writes it expands
        it in place); the expansion's start and end, and the text and places of its value."""
        match = _HELD_LEAD.match(value)
        if match is None:
            return None
        names: set[str] = set()
        held = _held_value(self.script, match.group(2) or match.group(3), frozenset(), None, names)
        if held is None:
            return None
        self.read_names = names
        return match.start(1), match.end(1), held[0], held[1]

    def held_run(self, command: Command) -> None:
        """`$CMD --port "$PORT" &` (behind wrappers): bash splits the value CMD was last given
        into words at blanks, with no quote removal and no expansion but globbing, and runs them
        with the other arguments. Modelled as a command line of its own only where parsing that
        text gives bash's words: the value and each argument are plain words (no quote or
        escape as written, no operator, glob, brace, tilde or comment character; a `$NAME` in
        them was expanded where it was written, and is split like the rest), an argument holds
        no blank, and the first word is no assignment (`FOO=1 cmd` split runs a command named
        `FOO=1`)."""
        words = command.invocation.words
        if not words or words[0].node.type not in ("simple_expansion", "expansion"):
            return
        held = self._held_command(words[0].value)
        if held is None:
            return
        string = held[1]
        if not _plain(string) or _LEADING_ASSIGNMENT.match(string.value):
            return
        if not all(_plain(w) and not _BLANK.search(w.value) for w in words[1:]):
            return
        value, offsets = _joined([string, *words[1:]])
        if value.strip():
            nested = _nested(command, value, offsets, command.errexit)
            self.script.nested.append(nested)
            self.script.top.held_reads.append((nested, frozenset(self.read_names)))

    def _held_command(self, value: str) -> tuple[int, Word] | None:
        """For a shell string that is only `$NAME` (after `exec `): where the expansion starts,
        and the plain string the script last assigned NAME before this point (through copies:
        `CMD2="$CMD"`); None otherwise (an array, no assignment, or a string with more in
        it)."""
        match = _HELD.fullmatch(value)
        if match is None:
            return None
        name, seen, before = match.group(2) or match.group(3), set(), None
        while True:
            seen.add(name)
            assigned = [
                a
                for a in self.script.assignments
                if a.name == name and (before is None or a.node.start_byte < before)
            ]
            last = assigned[-1].value if assigned else None
            if last is None or last.node.type == "array":
                return None
            # (a copy of another's value, `CMD2="$CMD"`: that one's string; t81a)
            copied = LONE_VARIABLE.fullmatch(last.value)
            if copied is None or len(seen) > 4 or (copied[1] or copied[2]) in seen:
                self.read_names = set(seen)
                return match.start(1), last
            name, before = copied[1] or copied[2], assigned[-1].node.start_byte

    def _run_later(self, command: Command) -> bool | None:
        """Whether errexit is on in a shell later in the script that runs the file the command
        writes (`cat > "$INNER" <<EOF` ... `srun bash -e "$INNER"`: the same word after `bash`
        or `sh` and its options); None when no shell runs it."""
        targets = [r.target for r in command.redirects if r.operator in (">", ">|")]
        if command.base == "tee":
            targets = [w for w in command.words[1:] if not w.value.startswith("-")]
        src = self.script.src
        after = src[command.node.end_byte :]
        for target in targets:
            text = src[target.node.start_byte : target.node.end_byte]
            # options: `-e`, `-o errexit`, a cluster ending in `o` and its name (`-euo pipefail`)
            shell = rb"(?:^|[\s;&|(])(?:ba|da|z)?sh((?:\s+-[A-Za-z]*o\s+\w+|\s+-[A-Za-z]+)*)\s+"
            runs = re.finditer(shell + re.escape(text) + rb"(?=$|[\s;&|)])", after) if text else ()
            # (not on a comment's line: `# later: bash w.sh` runs nothing)
            found = next((m for m in runs if not on_comment_line(after, m.start(1))), None)
            if found is not None:
                options = found.group(1).decode("utf-8", "surrogateescape").split()
                if any(o.startswith("-") and "c" in o[1:] for o in options if o != "-o"):
                    return None  # `bash -c "$INNER"` runs a string, not the file
                return errexit_change(options) is True
        return None

    def heredoc_to_shell(self, command: Command) -> None:
        """A heredoc a shell reads as its script (`bash <<EOF`, `cat <<EOF | ssh host`), sbatch
        as its batch script (`sbatch <<EOF`, `cat <<EOF | sbatch`), or one `cat`/`tee` writes
        to a script file (`cat > "$DIR/entry.sh" <<EOF` with a shell `#!` line or a script's
        suffix: the job runs it later), is a script of its own."""
        for heredoc in command.heredocs:
            if heredoc.body is None:
                continue
            reader = heredoc_reader(command, heredoc)
            to_shell = _reads_script_from_stdin(reader)
            batch = not to_shell and batch_from_stdin(reader)
            if not to_shell and not batch and not _writes_file(command):
                continue
            body = heredoc.body
            value, offsets = heredoc.value(body, self.script)
            if to_shell:
                errexit = _stdin_shell_errexit(reader)
            elif batch:  # (sbatch runs it with its `#!` line's shell and options)
                errexit = _shebang_errexit(value)
            elif (later := self._run_later(command)) is not None:
                errexit = later  # `bash -e FILE`: the options; a `#!` line is only a comment
            elif _SCRIPT_LINE.match(value) or _names_script(command):
                errexit = _shebang_errexit(value)
            else:
                continue
            verbatim = heredoc.quoted or not _OUTER_SUBSTITUTION.search(self.script.text_of(body))
            self.script.nested.append(_nested(command, value, offsets, errexit, verbatim))


# Words and expressions: they hold commands only inside substitutions.
_EXPRESSIONS = frozenset(
    {
        "test_command",
        "binary_expression",
        "unary_expression",
        "parenthesized_expression",
        "ternary_expression",
        "postfix_expression",
        "string",
        "concatenation",
        "word",
        "number",
        "raw_string",
        "ansi_c_string",
        "translated_string",
        "simple_expansion",
        "expansion",
        "arithmetic_expansion",
        "regex",
        "extglob_pattern",
        "array",
        "heredoc_body",
        "brace_expression",
    }
)
_MAY_HOLD = lazy_compile(rb"\$[{(]|`|[<>]\(")
_HANDLERS: dict[str, Callable[[_Builder, Node, _Context], None]] = {
    name[3:]: getattr(_Builder, name) for name in dir(_Builder) if name.startswith("on_")
}


def _split_at_then(node: Node) -> tuple[list[Node], list[Node]]:
    """The condition statements of an `if`/`elif` (named children before `then`, comments
    left out) and the named children after it (the body, then elif and else clauses)."""
    conditions: list[Node] = []
    body: list[Node] = []
    seen_then = False
    for child in node.children:
        if seen_then:
            if child.is_named:
                body.append(child)
        elif child.type == "then":
            seen_then = True
        elif child.is_named and child.type != "comment":
            conditions.append(child)
    return conditions, body


def _target_name(word: Word) -> str | None:
    """The variable a builtin's name argument assigns (`read -r PORT`; `printf -v "A[0]"`: A,
    whose `$A` is that element), "" where a variable's value names it (`read "$name"`,
    `printf -v "$1"`), None where `$NAME` keeps its value (another element, `read "A[1]"`,
    or one not known, `A[$i]`: as `A[1]=x`, not followed) or bash assigns none (a word that is
    no name: `read 1x` fails)."""
    if word.static:
        match = _ELEMENT.fullmatch(word.value)
        return match.group(1) if match is not None and match.group(2) in (None, "0") else None
    return None if _ELEMENT_LEAD.match(word.text) else ""


# a name, or an element of an array (`A[0]`, `A[$i]`), as `read` and `printf -v` take it
_ELEMENT = lazy_compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*)\])?", re.S)
_ELEMENT_LEAD = lazy_compile(r"[\"']?[A-Za-z_][A-Za-z0-9_]*[\"']?\[")

# a `let` argument that assigns: `m=3`, `n += 1`, `a[2]=1`, `i++`, `--i`
_LET_TARGET = lazy_compile(
    r"\s*(?:(?:\+\+|--)\s*([A-Za-z_]\w*)|([A-Za-z_]\w*)(?:\[[^]]*\])?\s*"
    r"(?:\+\+|--|(?:[-+*/%&^|]|<<|>>)?=(?!=)))"
)
_ARITHMETIC_ASSIGNMENTS = frozenset(
    {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=", "++", "--"}
)


def _arithmetic_targets(node: Node) -> list[Node]:
    """The variables an arithmetic command assigns: the left of `=`, `+=`..., the operand of
    `++` and `--` (an array element's array)."""
    found: list[Node] = []
    stack = list(node.named_children)
    while stack:
        child = stack.pop()
        if child.type in ("binary_expression", "postfix_expression", "unary_expression"):
            operators = {c.type for c in child.children if not c.is_named}
            named = child.named_children
            if operators & _ARITHMETIC_ASSIGNMENTS and named:
                target = named[-1] if child.type == "unary_expression" else named[0]
                if target.type == "subscript":
                    target = target.child_by_field_name("name") or target
                if target.type in ("variable_name", "word"):
                    found.append(target)
        stack.extend(child.named_children)
    return sorted(found, key=lambda n: n.start_byte)


# statements whose handlers do not mark their commands sent to the background themselves (a
# pipeline and a subshell do): a list (`a && b &`), a group, a loop, a condition, an assignment
# alone (`X=1 &`)
_SENT_WHOLE = frozenset(
    {
        "list",
        "compound_statement",
        "if_statement",
        "while_statement",
        "until_statement",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
        "variable_assignment",
        "variable_assignments",
        "declaration_command",
        "unset_command",
    }
)


def _list_in_first_element(elements: list[Node]) -> tuple[Node, str, Node] | None:
    """Where tree-sitter-bash made the first element of a pipeline a list under the redirects
    of its last command (`a && b 2>&1 | c`): the list's left side, its operator and its last
    command, which bash pipes (`a && (b 2>&1 | c)`)."""
    if len(elements) < 2 or elements[0].type != "redirected_statement":
        return None
    body = elements[0].child_by_field_name("body")
    if body is None or body.type != "list":
        return None
    operator = next((c.type for c in body.children if c.type in ("&&", "||")), None)
    named = body.named_children
    if operator is None or len(named) != 2:
        return None
    return named[0], operator, named[1]


def _is_background(node: Node) -> bool:
    target = node  # (`! vllm serve ... &`: the `&` follows the negated statement)
    while target.parent is not None and target.parent.type in (
        "redirected_statement",
        "negated_command",
    ):
        target = target.parent
    sibling = target.next_sibling
    return sibling is not None and sibling.type == "&"


# what in a `-c` string gives `"$@"` other values than the arguments after it (t84c): `set --`,
# `set WORD`, `shift`, a function (not `set -e`; t84d)
_SETS_POSITIONAL = lazy_compile(
    r"(?:^|[\s;&|({])(?:set\s+(?:--|[^-\s;&|])|shift\b)|\(\s*\)\s*\{|\bfunction\s"
)


def _positional_put(command: Command, value: str, offsets: list[int]) -> tuple[str, list[int]]:
    """A `-c` string with the arguments after it in place of its `"$@"` (`sh -c 'exec vllm
    serve "$@"' _ --model m`, a container's `command:` with its `args:` after; t82b,
    inference-perf): each argument one single-quoted word, its characters at their places. Only
    where every argument is written out and the string sets no positional parameters of its
    own (`set --`, `shift`, a function); `"$@"` in single quotes is left."""
    if '"$@"' not in value and '"${@}"' not in value:
        return value, offsets
    if _SETS_POSITIONAL.search(value):  # (`set -- ...`, `shift`, a function's own "$@")
        return value, offsets
    invocation = command.invocation
    if not invocation.shell:
        return value, offsets
    rest = invocation.args
    has_c, _, operand = _shell_flags(rest)
    given = rest[operand + 2 :] if has_c else ()  # (after the string and `$0`)
    if not given or not all(w.static for w in given):
        return value, offsets
    text: list[str] = []
    places: list[int] = []
    for i, word in enumerate(given):
        chars = word.offsets or [word.node.start_byte]
        if i:
            text.append(" ")
            places.append(places[-1])
        text.append("'")
        places.append(chars[0])
        for char, place in zip(word.value, chars, strict=False):
            piece = "'\\''" if char == "'" else char
            text.append(piece)
            places.extend([place] * len(piece))
        text.append("'")
        places.append(chars[-1])
    put, at = "".join(text), places
    out: list[str] = []
    out_offsets: list[int] = []
    quote = ""
    i = 0
    while i < len(value):
        char = value[i]
        found = next((m for m in ('"$@"', '"${@}"') if value.startswith(m, i)), None)
        if not quote and found is not None:
            out.append(put)
            out_offsets.extend(at)
            i += len(found)
            continue
        if char == "\\" and quote != "'":
            out.append(value[i : i + 2])
            out_offsets.extend(offsets[i : i + 2])
            i += 2
            continue
        if char in "'\"" and quote in ("", char):
            quote = "" if quote else char
        out.append(char)
        out_offsets.append(offsets[i])
        i += 1
    return "".join(out), out_offsets


def _shell_flags(words: tuple[Word, ...]) -> tuple[bool, bool, int]:
    """(-c given, errexit, index of the first operand) for the words after a shell's name."""
    has_c = False
    errexit = False
    i = 0
    while i < len(words):
        value = words[i].value
        if value.startswith("--") or not words[i].static:
            if not words[i].static:
                break
            i += 1
            continue
        if len(value) > 1 and value[0] in "-+":
            letters = value[1:]
            if "c" in letters:
                has_c = True
            if "e" in letters and value[0] == "-":
                errexit = True
            if "o" in letters:
                if i + 1 < len(words) and words[i + 1].value == "errexit":
                    errexit = value[0] == "-"
                i += 1
            i += 1
            continue
        break
    return has_c, errexit, i


def _ssh_remote(invocation: Invocation) -> bool:
    """The words are a remote command of `ssh HOST`: the remote shell reads them joined."""
    return bool(invocation.wrappers) and invocation.wrappers[-1].name == "ssh"


def shell_string_words(command: Command) -> list[Word] | None:
    """The words a command gives a new shell as its command string (`bash -c STRING`, `ssh
    HOST 'command'`), which that shell's command line holds; None for any other command."""
    found = _shell_invocation(command)
    if found is None or command.invocation.base == "eval":
        return None
    return found[0]


def _shell_invocation(command: Command) -> tuple[list[Word], bool] | None:
    invocation = command.invocation
    if invocation.base == "eval" and len(invocation.words) == 2:  # `eval "$CMD"`: this shell
        return [invocation.words[1]], command.errexit
    if invocation.shell:
        rest = invocation.args
        has_c, errexit, operand = _shell_flags(rest)
        if has_c and operand < len(rest):
            return [rest[operand]], errexit
        return None
    if _ssh_remote(invocation) and invocation.words:
        return list(invocation.words), False
    return None


def on_comment_line(text: bytes, at: int) -> bool:
    """Whether the position lies on a line that is a comment (`# ...`, after blanks)."""
    start = text.rfind(b"\n", 0, at) + 1
    return text[start:at].lstrip(b" \t").startswith(b"#")


def _sbatch_wrap(command: Command) -> tuple[str, list[int]] | None:
    """The command string `sbatch --wrap=STRING` (or `--wrap STRING`) submits: sbatch writes
    it after a `#!/bin/sh` line as the job's batch script. Its text and offsets in the file."""
    wrapper = command.invocation.wrapper("sbatch")
    if wrapper is None or not wrapper.has("--wrap"):
        return None
    args = wrapper.words
    for i, word in enumerate(args):
        if word.value == "--wrap" and i + 1 < len(args):
            return _joined([args[i + 1]])
        if word.value.startswith("--wrap="):
            value, offsets = _joined([word])
            return value[7:], offsets[7:]
    return None


# a command substitution the shell that writes a text runs (`$(...)`, `` `...` ``; not `\$(`)
_OUTER_SUBSTITUTION = lazy_compile(r"(?:^|[^\\])(?:\\\\)*(?:\$\(|`)")

# Arguments tree-sitter-bash keeps as anonymous operator tokens (`test "$A" == b`): to bash,
# plain words like any other.
_OPERATOR_WORDS = frozenset({"==", "=~"})

# the blanks besides a space that split an unquoted expansion's value (IFS unset), one for one
_SPLIT_BLANKS = str.maketrans("\n\t", "  ")
# a shell string that only runs what a variable holds: `$CMD`, `${CMD}`, `exec $CMD`
_HELD = lazy_compile(
    r"\s*(?:exec\s+)?(\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)))\s*"
)
# the same at the start of a string that goes on after it: a blank or an operator ends the word
_HELD_LEAD = lazy_compile(_HELD.pattern.removesuffix(r"\s*") + r"(?=\s|[;&|<>]|$)")


def _joined(words: Sequence[Word]) -> tuple[str, list[int]]:
    """The words' values joined by blanks, as one shell reads them, with each character's
    offset in the file (a blank stands just after the word before it)."""
    value = ""
    offsets: list[int] = []
    for i, word in enumerate(words):
        if i:
            value += " "
            offsets.append(offsets[-1] + 1 if offsets else 0)
        value += word.value
        offsets.extend(word.offsets)
    return value, offsets


def _plain(word: Word) -> bool:
    """A word whose value, split at blanks, gives the words a parse of it gives: no quoting
    character as written (`\\$B` and `'$B'` leave a `$` that `$CMD` does not expand)."""
    text = word.text
    return (
        "\\" not in text
        and "'" not in text
        and "`" not in text
        and _SPLIT_AS_PARSED.fullmatch(word.value) is not None
    )


# blanks, plain characters and `$NAME`/`${NAME}` expansions; a first word that is an
# assignment; a blank
_SPLIT_AS_PARSED = lazy_compile(
    r"(?:[^\s'\"\\;&|<>()`*?\[\]{}#~!$]|[ \t]"
    r"|\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*))*"
)
_LEADING_ASSIGNMENT = lazy_compile(r"\s*[A-Za-z_][A-Za-z0-9_]*=")
# a text of assignment words only, or none (what a variable before a program may give)
_ASSIGNMENTS_ONLY = lazy_compile(r"\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s*)*")
_BLANK = lazy_compile(r"[ \t]")


# a declaration's quoted argument that is an assignment: `"PORT=8000"` (name, value)
_QUOTED_ASSIGNMENT = lazy_compile(rb"([A-Za-z_][A-Za-z0-9_]*)=([^\n]*)", re.S)


def _continued(src: bytes, end: int, start: int) -> bool:
    """Whether only line continuations (`\\` and a newline, no blank around them) stand
    between two pieces tree-sitter-bash parsed as two words (`'{'\\<newline>'"a"'`): bash
    removes each continuation before it splits words, so the pieces are one word."""
    gap = src[end:start]
    return bool(gap) and gap == b"\\\n" * (len(gap) // 2)


def _shebang_errexit(text: str) -> bool:
    """Whether a script's `#!` line turns on errexit (`#!/bin/bash -e`)."""
    first = text.split("\n", 1)[0]
    return first.startswith("#!") and errexit_change(first.split()[1:]) is True


def heredoc_reader(command: Command, heredoc: Heredoc) -> Command:
    """The command that reads a heredoc of the command as its input: the command itself, or
    where it is a `cat` that only copies its input to a pipe (`cat <<EOF | sbatch`: its
    heredoc's redirect holds the rest of the pipeline, before the body), the pipeline's next
    command."""
    if (
        command.base != "cat"
        or any(w.value != "-" for w in command.words[1:])
        or any(r.operator not in ("<", "<<", "<<-") for r in command.redirects)
        or heredoc.body is None
    ):
        return command
    start, end = heredoc.node.start_byte, heredoc.body.start_byte
    inside = [c for c in command.script.commands if start <= c.node.start_byte < end]
    if not inside:
        return command
    reader = min(inside, key=lambda c: c.node.start_byte)
    # (joined by a pipe: `cat <<EOF && bash -s` prints the body, and bash reads its own input)
    between = command.script.src[start : reader.node.start_byte]
    return reader if _PIPED_ON.fullmatch(between) else command


# a heredoc's start and a pipe to the next command: `<<EOF | `, `<<-'EOF' |& `, `<<EOF | \`
_PIPED_ON = lazy_compile(rb"<<-?[ \t]*\S+[ \t]*\|&?(?:[ \t]|\\\n)*")


def batch_from_stdin(command: Command) -> bool:
    """Whether sbatch reads its batch script from the command's input: `sbatch [options]`
    (behind any wrapper) with no script operand and no `--wrap`, whatever the Slurm release;
    an option word whose value is not known may be the operand (not read so)."""
    wrapper = next((w for w in command.invocation.wrappers if w.name == "sbatch"), None)
    if wrapper is None or not wrapper.words or command.heredocs[1:]:
        return False
    if any(r.operator in ("<", "<<<") for r in command.redirects):
        return False  # (stdin is that file or string)
    from benchlint import slurm  # (only where sbatch meets a heredoc)

    start = next((i for i, w in enumerate(command.words) if w is wrapper.words[0]), None)
    if start is None:
        return False
    texts: list[str | None] = []
    for word in command.words[start + 1 :]:
        if word.brace_expands:
            return False
        known = word.option_form
        texts.append(known if known is not None else slurm.ONE)
    return slurm.script_from_stdin(texts)


def _reads_script_from_stdin(command: Command) -> bool:
    """Whether the command is a shell that reads its script from its input: no `-c` and no
    script operand, or `-s` (`bash -s -- a b`: the words after are its arguments); not in a
    container given no input (`docker exec CTR bash` without `-i`), or ssh's remote shell."""
    invocation = command.invocation
    if any(
        w.name in _CONTAINER_RUNS and not w.has(*_CONTAINER_RUNS[w.name])
        for w in invocation.wrappers
    ):
        return False  # (docker and kubectl pass their input on only with -i)
    if invocation.shell:
        has_c, _, operand = _shell_flags(invocation.args)
        flags = [w.value for w in invocation.args[:operand] if w.static]
        stdin = any(f[:1] == "-" and f[:2] != "--" and "s" in f[1:] for f in flags)
        return not has_c and (operand >= len(invocation.args) or stdin)
    return _ssh_remote(invocation) and not invocation.words


# the commands that give the command they run an input only with an option: that option
_CONTAINER_RUNS = {
    **dict.fromkeys(
        ("docker exec", "docker run", "podman exec", "podman run"), ("-i", "--interactive")
    ),
    **dict.fromkeys(("kubectl exec", "oc exec"), ("-i", "--stdin")),
}


# a shell's `#!` line at the top of a written file
_SCRIPT_LINE = lazy_compile(r"#![ \t]*(?:/usr)?/bin/(?:env[ \t]+)?(?:ba|da|k|z)?sh\b")
_SCRIPT_SUFFIXES = (".sh", ".bash", ".slurm", ".sbatch")


def _writes_file(command: Command) -> bool:
    """`cat > FILE` / `cat >> FILE`, `tee FILE`: the command writes its input to a file."""
    if command.base == "cat" and len(command.words) == 1:
        return any(r.operator in (">", ">>", ">|") for r in command.redirects)
    return command.base == "tee"


def _names_script(command: Command) -> bool:
    """The file it writes has a script's suffix (`entry.sh`, `job.slurm`)."""
    targets = [r.target for r in command.redirects if r.operator in (">", ">>", ">|")]
    if command.base == "tee":
        targets = [w for w in command.words[1:] if not w.value.startswith("-")]
    return any(w.value.strip("\"'").endswith(_SCRIPT_SUFFIXES) for w in targets)


def _stdin_shell_errexit(command: Command) -> bool:
    invocation = command.invocation
    return invocation.shell and _shell_flags(invocation.args)[1]
