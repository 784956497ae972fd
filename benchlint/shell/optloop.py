"""A shell function's option loop: the words it accepts and what each does to `$@`.

The loop read is the common hand-written parser of a function's arguments:

    while [[ $# -gt 0 ]]; do
        case $1 in
            --model) model="$2"; shift 2 ;;
            --dsv4) dsv4=true; shift ;;
            *) echo "Unknown parameter: $1"; return 1 ;;
        esac
    done

read from the function's syntax (tree-sitter-bash), with nothing assumed: a loop of another
shape, a branch that does more than assign, print and shift, a pattern that is not plain text
or a plain glob, and the loop is not read (None), or the branch stops the reading of a call
there (`Branch.shifts` None).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchlint.shell.model import Script, Word

if TYPE_CHECKING:  # (a run the cache answers imports no parser)
    from tree_sitter import Node

# `$#` tested for more than zero: `[[ $# -gt 0 ]]`, `[ "$#" -ne 0 ]`, `(( $# ))`, `(( $# > 0 ))`
_WHILE_ARGUMENTS = re.compile(
    r'\[\[?\s*"?\$#"?\s+-(?:gt|ne)\s+0\s*\]\]?|\[\[\s*"?\$#"?\s*>\s*0\s*\]\]'
    r"|\(\(\s*\$#\s*(?:(?:>|!=)\s*0\s*)?\)\)"
)
# `$1`, `"$1"`, `${1}`, `"${1}"`: the word a `case` reads
_FIRST = re.compile(r'"?\$(?:1|\{1\})"?')
# commands a branch may run that neither end the loop nor change `$@`
_QUIET = frozenset({"echo", "printf", "true", ":", "local", "export", "declare", "readonly"})
# commands that may change `$@` or end the loop or the function
_FLOW = frozenset({"shift", "break", "continue", "return", "exit", "eval", "source", ".", "set"})


@dataclass(frozen=True)
class Branch:
    """One `case` item: its patterns (each a glob as `fnmatch` reads it), the line of the item,
    and how many words it takes off `$@` (the loop's trailing `shift` included); `shifts` None
    where it stops the reading of a call: it fails (`failing`: a literal non-zero `return` or
    `exit`), it ends the loop or the function otherwise, or what it does is not followed."""

    patterns: tuple[str, ...]
    node: Node
    shifts: int | None
    failing: Node | None = None


@dataclass(frozen=True)
class OptionLoop:
    """`skipped`: the words the function shifts off before its loop; `branches` in order (the
    first whose pattern matches a word runs); `unmatched`: what a word no pattern matches takes
    off `$@` (the loop's trailing `shift`; None where that is none: the loop would not end)."""

    skipped: int
    branches: tuple[Branch, ...]
    unmatched: int | None

    def branch_for(self, word: str) -> Branch | None:
        for branch in self.branches:
            if any(fnmatch.fnmatchcase(word, p) for p in branch.patterns):
                return branch
        return None


def option_loop(script: Script, name: str) -> OptionLoop | None:
    """The option loop of the function `name` the script defines (worked out once per
    function); None where it has none this model reads."""
    key = f"option-loop:{name}"
    held = script.memo.get(key, False)
    if held is False:
        where = script.functions.get(name)
        held = script.memo[key] = None if where is None else _read(script.syntax(where))
    return held if isinstance(held, OptionLoop) else None


def _read(definition: Node) -> OptionLoop | None:
    body = definition.child_by_field_name("body")
    if body is None or body.type != "compound_statement":
        return None
    statements = _statements(body)
    loops = [i for i, s in enumerate(statements) if s.type == "while_statement"]
    if not loops:
        return None
    index = loops[0]
    skipped = 0
    for statement in statements[:index]:
        shifted = _shift(statement)
        if shifted is not None:
            skipped += shifted
        elif _flows(statement) and not _returns_early(statement):
            return None
    loop = statements[index]
    conditions = [c for c in loop.children_by_field_name("condition") if c.type not in (";", "&")]
    if len(conditions) != 1 or not _WHILE_ARGUMENTS.fullmatch(_text(conditions[0])):
        return None
    group = loop.child_by_field_name("body")
    if group is None:
        return None
    inner = _statements(group)
    if not inner or inner[0].type != "case_statement":
        return None
    trailing = 0
    for statement in inner[1:]:
        shifted = _shift(statement)
        if shifted is None:
            return None
        trailing += shifted
    case = inner[0]
    value = case.child_by_field_name("value")
    if value is None or not _FIRST.fullmatch(_text(value)):
        return None
    branches = []
    for item in (c for c in case.children if c.type == "case_item"):
        if item.child_by_field_name("fallthrough") is not None:
            return None  # (`;&`, `;;&`: the next branch runs too)
        patterns = [_pattern(p) for p in item.children_by_field_name("value")]
        if any(p is None for p in patterns):
            return None
        branches.append(_branch(item, tuple(p for p in patterns if p is not None), trailing))
    return OptionLoop(skipped, tuple(branches), trailing or None)


def _branch(item: Node, patterns: tuple[str, ...], trailing: int) -> Branch:
    shifts = 0
    called = False  # (a command other than `echo`: it may end the function, `usage`)
    for statement in _statements(item):
        if statement.type == "redirected_statement":  # (`echo "..." >&2`: as the command)
            statement = statement.child_by_field_name("body") or statement
        text = _text(statement)
        if statement.type in ("variable_assignment", "declaration_command"):
            if _flows(statement) or "$(" in text or "`" in text:
                return Branch(patterns, item, None)
            continue
        shifted = _shift(statement)
        if shifted is not None:
            shifts += shifted
            continue
        name = _name(statement)
        if name in ("return", "exit"):
            words = _words(statement)
            failing = (
                statement if len(words) == 2 and words[1].isdigit() and int(words[1]) else None
            )
            return Branch(patterns, item, None, failing)
        if name is None or _flows(statement) or "$(" in text or "`" in text:
            return Branch(patterns, item, None)
        called = called or name not in _QUIET
    total = shifts + trailing
    return Branch(patterns, item, None if called or total == 0 else total)


def _name(statement: Node) -> str | None:
    """The name of a simple command, as written."""
    if statement.type != "command":
        return None
    name = statement.child_by_field_name("name")
    return _text(name) if name is not None else None


def _returns_early(statement: Node) -> bool:
    """`if [ "$EVAL_ONLY" = true ]; then ...; return 0; fi` before the loop: a branch that
    leaves the function without reading its arguments (the loop runs where it does not)."""
    return statement.type == "if_statement" and not _flows(statement, ("return", "exit"))


def _flows(node: Node, allowed: tuple[str, ...] = ()) -> bool:
    """Whether a command in the node may change `$@` or end the loop or the function (`set`
    only with words other than options: `set -- a b`, not `set +x`)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "command":
            name = current.child_by_field_name("name")
            word = _text(name) if name is not None else ""
            if word in _FLOW and word not in allowed:
                if word != "set":
                    return True
                arguments = [_text(c) for c in current.children_by_field_name("argument")]
                if not arguments or any(a[:1] not in "-+" or a == "--" for a in arguments):
                    return True
        stack.extend(current.named_children)
    return False


def _shift(statement: Node) -> int | None:
    """The count of a `shift` or `shift N` statement; None for any other statement."""
    words = _words(statement)
    if not words or words[0] != "shift" or len(words) > 2:
        return None
    if len(words) == 1:
        return 1
    return int(words[1]) if words[1].isdigit() else None


def _words(statement: Node) -> list[str]:
    """A simple command's words as written, where each is plain text; else none."""
    if statement.type != "command" or statement.child_by_field_name("redirect") is not None:
        return []
    words = [_text(c) for c in statement.children if c.type in ("command_name", "word", "number")]
    return words if len(words) == statement.named_child_count else []


def _pattern(node: Node) -> str | None:
    """A `case` pattern as a glob `fnmatch` reads as bash does: plain text, quoted text (its
    glob characters escaped), `*`, `?` and bracket expressions; None for another form (an
    expansion, an extended glob, `[^...]`, a backslash)."""
    text = _text(node)
    if node.type == "raw_string":
        return _literal(text[1:-1])
    if node.type == "string":
        inner = text[1:-1]
        return None if any(c in inner for c in "$`\\") else _literal(inner)
    if node.type not in ("word", "extglob_pattern"):
        return None
    if any(c in text for c in "$`\\'\"()|@!+") or "[^" in text:
        return None
    return text


def _literal(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def _statements(node: Node) -> list[Node]:
    skip = ("comment", "{", "}", "do", "done", ")", ";", ";;", "|", "&", "heredoc_body")
    fields = {i for i in range(node.child_count) if node.field_name_for_child(i) is not None}
    return [
        c
        for i, c in enumerate(node.children)
        if i not in fields and c.is_named and c.type not in skip
    ]


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="surrogateescape")


@dataclass(frozen=True)
class CallReading:
    """What a function's option loop does with a call's arguments: `rejected`, the first a
    failing branch takes (`branch`); else `unknown`, the word where the reading stopped, not
    knowing what bash makes of it; else neither (read to its end, or to a branch that ends the
    loop or is not followed)."""

    rejected: Word | None = None
    branch: Branch | None = None
    unknown: Word | None = None


def read_call(loop: OptionLoop, arguments: list[Word]) -> CallReading:
    """The call's arguments as the loop reads them, where every word before the one rejected
    is one word whose text is known, or a value a branch takes off whole (a word that may be
    several, or none: an unquoted expansion, `"$@"`, a glob; a word not known where a branch is
    chosen: the reading stops there)."""
    index = 0
    while index < len(arguments):
        taken = loop.skipped if index == 0 else 0
        if not taken:
            word = arguments[index]
            if not one_word(word) or not word.static:
                return CallReading(unknown=word)
            branch = loop.branch_for(word.value)
            if branch is None:
                if loop.unmatched is None:
                    return CallReading()
                taken = loop.unmatched
            elif branch.failing is not None:
                return CallReading(word, branch)
            elif branch.shifts is None:
                return CallReading()
            else:
                taken = branch.shifts
            start = index + 1
        else:
            start = index
        unknown = next((w for w in arguments[start : index + taken] if not one_word(w)), None)
        if unknown is not None:
            return CallReading(unknown=unknown)
        index += taken
    return CallReading()


def one_word(word: Word) -> bool:
    """Whether bash surely makes one argument of the word: plain or quoted text and quoted
    expansions (not `"$@"` nor `"${A[@]}"`), no unquoted expansion (split, or gone where
    empty), no glob or brace expansion."""
    kind = word.node.type
    text = word.text
    if kind in ("word", "number"):
        return word.static and not any(c in text for c in "*?[{")
    if kind == "raw_string":
        return True
    if kind == "string":
        return "$@" not in text and "[@]" not in text
    if kind == "concatenation":
        return word.static and not any(c in text for c in "*?[{")
    return False
