"""A shell function's or script's option loop: the words it accepts and what each does to `$@`.

The loop read is the common hand-written parser of a function's arguments:

    while [[ $# -gt 0 ]]; do
        case $1 in
            --model) model="$2"; shift 2 ;;
            --dsv4) dsv4=true; shift ;;
            *) echo "Unknown parameter: $1"; return 1 ;;
        esac
    done

read from the function's syntax (tree-sitter-bash), or from a script's top level, with nothing
assumed: a loop of another shape, a branch that does more than assign, print and shift, a
pattern that is not plain text or a plain glob, and the loop is not read (None), or the branch
stops the reading of a call there (`Branch.shifts` None).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchlint.lazyre import lazy_compile
from benchlint.shell.model import Script, Syn, Word, parse_tree, syn

if TYPE_CHECKING:  # (a run the cache answers imports no parser)
    from tree_sitter import Node

# `$#` tested for more than zero: `[[ $# -gt 0 ]]`, `[ "$#" -ne 0 ]`, `[[ $# -ge 1 ]]`,
# `test $# -gt 0`, `(( $# ))`, `(( $# > 0 ))`
_WHILE_ARGUMENTS = lazy_compile(
    r'(?:\[\[?|test)\s*"?\$#"?\s+-(?:gt\s+0|ne\s+0|ge\s+1)\s*(?:\]\]?)?'
    r'|\[\[\s*"?\$#"?\s*>\s*0\s*\]\]'
    r'|\(\(\s*"?\$#"?\s*(?:(?:>|!=)\s*0\s*)?\)\)'
)
# `$1`, `"$1"`, `${1}`, `"${1}"`: the word a `case` reads (or a variable given it first:
# `key="$1"; case $key in`)
_FIRST = lazy_compile(r'"?\$(?:1|\{1\})"?')
_HOLDS_FIRST = lazy_compile(r'(?:local\s+)?([A-Za-z_][A-Za-z0-9_]*)=("?)\$(?:1|\{1\})\2')
# commands a branch may run that neither end the loop nor change `$@`
_QUIET = frozenset({"echo", "printf", "true", ":", "local", "export", "declare", "readonly"})
# commands that may change `$@` or end the loop or the function
_FLOW = frozenset({"shift", "break", "continue", "return", "exit", "eval", "source", ".", "set"})
# before the loop, those that change nothing of what it reads: leaving the body early (where
# the loop does not run: `[ "$EVAL_ONLY" = true ] && return 0`, on a test that reads none of
# the arguments)
_EARLY = ("return", "exit")
# the names an assignment statement gives values (`local a=$1 b`, `all="$*"`)
_ASSIGNED = lazy_compile(r"([A-Za-z_][A-Za-z0-9_]*)\+?=")
# a declaration that changes a value's case (`local -l key`, `declare -u`, `typeset -l`)
_CASE_ATTRIBUTE = lazy_compile(r"^(?:local|declare|typeset)\s+(?:-\w+\s+)*-\w*[lu]")
# an expansion of the arguments (`$1`, `${2:-x}`, `$@`, `$*`), not their count (`$#`)
_ARGUMENTS = lazy_compile(r"\$(?:[1-9@*]|\{[!#]?[1-9@*])")


@dataclass(frozen=True)
class Branch:
    """One `case` item: its patterns (each a glob as `fnmatch` reads it), the line of the item,
    and how many words it takes off `$@` (the loop's trailing `shift` included); `shifts` None
    where it stops the reading of a call: it fails (`failing`: a literal non-zero `return` or
    `exit`), it ends the loop or the function otherwise, or what it does is not followed."""

    patterns: tuple[str, ...]
    node: Syn
    shifts: int | None
    failing: Syn | None = None


@dataclass(frozen=True)
class OptionLoop:
    """`skipped`: the words the function shifts off before its loop; `branches` in order (the
    first whose pattern matches a word runs); `unmatched`: what a word no pattern matches takes
    off `$@` (the loop's trailing `shift`; None where that is none: the loop would not end)."""

    skipped: int
    branches: tuple[Branch, ...]
    unmatched: int | None
    # the statements before the loop that may leave the body first (`[ -n "$SKIP" ] && return
    # 0`, on a condition that reads none of the arguments): where they do, the loop never runs
    leaves: tuple[Syn, ...] = ()

    def branch_for(self, word: str) -> Branch | None:
        for branch in self.branches:
            if any(fnmatch.fnmatchcase(word, p) for p in branch.patterns):
                return branch
        return None


def option_loop(script: Script, name: str) -> OptionLoop | None:
    """The option loop of the function `name` the script defines; None where it has none this
    model reads. Every function's is read at the first question (the file parsed once)."""
    held = script.memo.get("option-loops")
    if not isinstance(held, dict):
        loops: dict[str, OptionLoop | None] = {}
        if not matches_otherwise(script):
            had_tree = script.has_tree
            for function, where in script.functions.items():
                loops[function] = _read_function(script.syntax(where))
            if not had_tree:  # (the loops hold places, not nodes: the tree can go)
                script.let_go_tree()
        held = script.memo["option-loops"] = loops
    found = held.get(name)
    return found if isinstance(found, OptionLoop) else None


def script_option_loop(script: Script) -> OptionLoop | None:
    """The option loop at the top level of a script (what `bash run.sh --x` gives it), worked
    out once per script; None where it has none this model reads."""
    held = script.memo.get("option-loop", False)
    if held is False:
        src = script.parse_src or script.src
        found = None
        if b"$#" in src and b"case" in src and not matches_otherwise(script):
            found = _read(_statements(parse_tree(src).root_node), False)
        held = script.memo["option-loop"] = found
    return held if isinstance(held, OptionLoop) else None


def matches_otherwise(script: Script) -> bool:
    """Whether the script may make `case` match otherwise than plain globs do: `shopt -s
    nocasematch` (case ignored), `extglob` (`!(...)`)."""
    return b"nocasematch" in script.src or b"extglob" in script.src


def _bare_for(statement: Node) -> bool:
    """`for a; do`: a loop over the arguments (no `in`)."""
    return statement.type == "for_statement" and not any(c.type == "in" for c in statement.children)


def _reads_any(text: str, names: set[str]) -> bool:
    return any(re.search(rf"\$\{{?{re.escape(n)}\b", text) for n in names)


def loop_of(definition: Node) -> OptionLoop | None:
    """The option loop of a `function_definition` node (one of several of a name: where
    `option_loop`, which reads the one in effect at the script's end, does not tell)."""
    return _read_function(definition)


def _read_function(definition: Node) -> OptionLoop | None:
    body = definition.child_by_field_name("body")
    if body is None or body.type != "compound_statement":
        return None
    return _read(_statements(body), True)


def _read(statements: list[Node], function: bool) -> OptionLoop | None:
    """The option loop among a body's statements: its first `while` loop, where nothing before
    it may change `$@` but a `shift`, nor leave the body on a test of the arguments (a function
    defined, an assignment of `$1`, or a test of their count that leaves, `[ $# -eq 0 ] &&
    usage`, changes nothing the loop reads). `function`: a function's body (where `return`
    leaves it; at a script's top level, `return` fails and the script goes on)."""
    loops = [i for i, s in enumerate(statements) if s.type == "while_statement"]
    if not loops:
        return None
    index = loops[0]
    skipped = 0
    derived: set[str] = set()  # (variables given the arguments: `local first=$1`, `all="$*"`)
    leaves = []
    for statement in statements[:index]:
        shifted = _shift(statement)
        if shifted is not None:
            skipped += shifted
            continue
        if statement.type == "function_definition":
            continue
        if _flows(statement, _EARLY) or _name(statement) in ("return", "exit"):
            return None  # (`set --`, `source`: `$@` may change; the body ends before its loop)
        text = _text(statement)
        if statement.type in ("variable_assignment", "declaration_command"):
            if _ARGUMENTS.search(text):
                derived.update(_ASSIGNED.findall(text))
            if _CASE_ATTRIBUTE.search(text):
                return None  # (`local -l key`: the word is lowercased before the `case`)
            continue
        if _ARGUMENTS.search(text) or _bare_for(statement) or _reads_any(text, derived):
            return None  # (`[[ $1 == --help ]] && usage`: the word may never reach the loop)
        if _flows(statement):
            leaves.append(syn(statement))
    loop = statements[index]
    if not loop.children or loop.children[0].type != "while":
        return None  # (`until`)
    conditions = [c for c in loop.children_by_field_name("condition") if c.type not in (";", "&")]
    if len(conditions) != 1 or not _WHILE_ARGUMENTS.fullmatch(_text(conditions[0])):
        return None
    group = loop.child_by_field_name("body")
    if group is None:
        return None
    inner = _statements(group)
    held = _HOLDS_FIRST.fullmatch(_text(inner[0])) if inner else None
    if held is not None:  # (`key="$1"` then `case $key in`)
        inner = inner[1:]
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
    read = _text(value) if value is not None else ""
    if held is not None:
        name = held.group(1)
        if read not in (f"${name}", f'"${name}"', f"${{{name}}}", f'"${{{name}}}"'):
            return None
    elif not _FIRST.fullmatch(read):
        return None
    branches = []
    for item in (c for c in case.children if c.type == "case_item"):
        if item.child_by_field_name("fallthrough") is not None:
            return None  # (`;&`, `;;&`: the next branch runs too)
        patterns = [_pattern(p) for p in item.children_by_field_name("value")]
        if any(p is None for p in patterns):
            return None
        found = tuple(p for p in patterns if p is not None)
        branches.append(_branch(item, found, trailing, function))
    return OptionLoop(skipped, tuple(branches), trailing or None, tuple(leaves))


def _branch(item: Node, patterns: tuple[str, ...], trailing: int, function: bool) -> Branch:
    shifts = 0
    called = False  # (a command other than `echo`: it may end the function, `usage`)
    for statement in _statements(item):
        if statement.type == "redirected_statement":  # (`echo "..." >&2`: as the command)
            statement = statement.child_by_field_name("body") or statement
        shifted = _shift(statement)
        if shifted is not None:
            shifts += shifted
            continue
        name = _name(statement)
        if name == "exit" or (name == "return" and function):
            words = _words(statement)
            fails = len(words) == 2 and words[1].isdigit() and int(words[1]) % 256 != 0
            return Branch(patterns, syn(item), None, syn(statement) if fails else None)
        if _flows(statement) or _substitutes(statement):
            return Branch(patterns, syn(item), None)
        if statement.type not in ("variable_assignment", "declaration_command"):
            called = called or name not in _QUIET  # (a list, a pipeline: `log x || true`)
    total = shifts + trailing
    return Branch(patterns, syn(item), None if called or total == 0 else total)


def _substitutes(node: Node) -> bool:
    """Whether the node runs a command substitution (whose commands are not followed)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("command_substitution", "process_substitution"):
            return True
        stack.extend(current.named_children)
    return False


def _name(statement: Node) -> str | None:
    """The name of a simple command, as written."""
    if statement.type != "command":
        return None
    name = statement.child_by_field_name("name")
    return _text(name) if name is not None else None


def _flows(node: Node, allowed: tuple[str, ...] = ()) -> bool:
    """Whether a command in the node may change `$@` or end the loop or the function (`set`
    only with words other than options: `set -- a b`, not `set +x`)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "command":
            name = current.child_by_field_name("name")
            word = _text(name) if name is not None else ""
            if word == "exec" and current.child_by_field_name("argument") is not None:
                return True  # (a program in its place: the rest never runs)
            if word in _FLOW and word not in allowed:
                if word != "set":
                    return True
                arguments = [_text(c) for c in current.children_by_field_name("argument")]
                if not arguments or _sets_positional(arguments):
                    return True
        stack.extend(current.named_children)
    return False


def _sets_positional(arguments: list[str]) -> bool:
    """Whether `set` with these words sets `$@`: a word that is no option (`set -- a`, `set a`),
    an option's name after `-o` aside (`set -euo pipefail`)."""
    named = False  # (the word is the name of an option: `-o pipefail`)
    for word in arguments:
        if named:
            named = False
        elif word[:1] in "-+" and word not in ("-", "--"):
            named = "o" in word[1:]
        else:
            return True
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
    if any(c in text for c in "$`\\'\"()|@!+~") or "[^" in text or re.search(r"\[[:=.]", text):
        return None  # (`[[:alpha:]]`, `[=a=]`: classes `fnmatch` does not read)
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
    if kind in ("word", "number", "concatenation"):
        # (`~/x` is a home folder; a `\` before a line's end joins the next line's word)
        plain = not any(c in text for c in "*?[{") and not text.startswith("~")
        end = word.node.end_byte
        joined = text.endswith("\\") or word.script.src[end : end + 1] == b"\\"
        return word.static and plain and not joined
    if kind == "raw_string":
        return True
    if kind == "string":  # (`"$@"`, `"${@:2}"`, `"${A[@]}"`, `"${!P@}"`: several, or none)
        return _SEVERAL.search(text) is None
    return False


_SEVERAL = lazy_compile(r"\$@|\$\{[^}]*@")
