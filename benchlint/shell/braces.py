"""Where bash ends each `${...}` of a script, read from the script's text as bash reads it.

tree-sitter-bash does not always end a parameter expansion where bash does (it stops short of
`\\}` and gives up on `"${X:-{\\"a\\": 1}}"`), so this reads the text itself: comments, single
quotes, `$'...'`, double quotes, backquotes, `$(...)`, `$((...))` and heredoc bodies (a quoted
one is plain text; in another only `\\`, `$` and backquotes count). Inside `${`, bash skips a
backslash's character, quoted text (single quotes too, also inside double quotes), nested
expansions and command substitutions, and ends at the first other `}`: a `{` counts for nothing.
`tests/test_differential.py` checks the end against bash's.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass

from benchlint.lazyre import lazy_compile


@dataclass(frozen=True)
class BraceExpansion:
    start: int  # the `$`
    end: int  # just after the `}` bash ends it at
    name: str
    operator: str  # ":-", "-", ":=", "=", ":+", "+", ":?", "?"; "" for any other form
    word: int  # where the text after the operator starts
    context: str  # "unquoted", "dquote" (inside double quotes) or "heredoc" (a heredoc body)
    braces: tuple[int, ...]  # the `{` in that text outside quotes and nested expansions
    # in a command substitution (`$(...)`, backquotes): its failure is that shell's
    substitution: bool = False


# `${NAME` (an array's element `${A[0]`, a positional parameter, `${@`, `${*`) and, where one
# follows, a default's operator
_HEAD = lazy_compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*(?:\[[^]\n{}'\"`\\]*\])?|[0-9]+|[@*])(:?[-=?+])?")
# a heredoc operator and its delimiter word (not a here-string `<<<`)
_HEREDOC = lazy_compile(r"<<(-?)[ \t]*((?:[^\s;&|<>()'\"\\]|\\.|'[^']*'|\"[^\"]*\")+)")
_WORD_END = frozenset(" \t\n;&|()<>")
# what each reader stops at (the rest it jumps over)
_CODE = lazy_compile(r"[#\\'\"`$<]")
_CODE_LINES = lazy_compile(r"[\n#\\'\"`$<]")
_SUBST = lazy_compile(r"[#\\'\"`$<()]")
_SUBST_LINES = lazy_compile(r"[\n#\\'\"`$<()]")
_DQUOTE = lazy_compile(r'[\\"`$]')
_IN_BRACE = lazy_compile(r"[\\'\"`${}]")
_HEREDOC_LINE = lazy_compile(r"[\\`$]")
_ESCAPED_QUOTE = lazy_compile(r"[\\']")
_ESCAPED_BACKQUOTE = lazy_compile(r"[\\`]")
# a backslash bash removes in a backquoted substitution before reading its commands
_UNESCAPED_IN_BACKQUOTES = lazy_compile(r"\\[\\`$]")


@functools.lru_cache(maxsize=32)  # (BL105, BL108 and BL117 read a script's texts in turn)
def expansions(text: str) -> tuple[BraceExpansion, ...]:
    """Every `${...}` of the script's text that bash expands (not in a comment, a quoted
    string or a quoted heredoc's body), nested ones too, in text order."""
    if "${" not in text:
        return ()
    return tuple(sorted(_read(text).found.values(), key=lambda e: e.start))


def every_brace(text: str) -> list[tuple[int, int, str]]:
    """Every `${...}` bash expands in the script's text, whatever its form (`${!X}`, `${#X}`,
    one bash rejects): its start, its end (after the `}` bash ends it at) and its context, in
    text order."""
    if "${" not in text:
        return []
    return sorted(_read(text).every)


# the reader descends once per nested expansion, quote or substitution (about five frames
# each): room for some 1,500 levels, which bash reads (h123 F3: 180 made Python's default of
# 1,000 frames run out)
_DEPTH = 8000


def _read(text: str) -> _Lexer:
    lexer = _Lexer(text)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _DEPTH))
    try:
        lexer.code(0, None)
    finally:
        sys.setrecursionlimit(limit)
    return lexer


def bad_substitution(inside: str) -> bool:
    """Whether bash rejects the text between `${` and `}` as "bad substitution" when it
    expands it, for the forms told here (a form not told is taken as good): nothing inside
    (`${}`), a blank or another character where the parameter is due (`${ X}`, `${.x}`), or a
    parameter (a name, with a subscript; digits; a special one) followed by a character that
    starts no operator (`${SOURCE_DIR)`, `${X.y}`, `${1a}`, `${X"a"}`) or by `:` alone.
    `tests/test_differential.py` checks it against bash."""
    if not inside:
        return True
    if inside[0] in "#!":  # (`${#X}`, `${!X}`, `${#}`, `${!prefix*}`: not told)
        return False
    name = _PARAMETER.match(inside)
    if name is None:
        return True
    end: int | None = name.end()
    if inside.startswith("[", name.end()) and name.group(0)[0] not in "0123456789":
        end = _subscript_end(inside, name.end())  # (`${A[${B[$i]}]}`: to its closing `]`)
        if end is None:
            return False  # (not closed: not told)
    rest = inside[end:]
    return rest == ":" or (bool(rest) and rest[0] not in _OPERATOR_START)


def _subscript_end(text: str, i: int) -> int | None:
    """The index after the `]` that closes the subscript whose `[` is at `i` (brackets nested
    in it counted, `${A[${B[$i]}]}`, quoted ones and escaped ones not); None where none does."""
    depth = 0
    j = i
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c in "'\"":  # (a quoted `]` closes nothing: `${A[']']}`; t84d)
            j = _after(text, c, j + 1)
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return None


# a parameter: a name (an array's element too), a positional one, a special one
_PARAMETER = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!0_-]")
# what may follow the parameter: `:-` `-` `=` `?` `+` `#` `%` `/` `^` `,` `@` (each family),
# and bash's `~` (`${X~}`, `${X~~}`: case toggled, not in its manual)
_OPERATOR_START = frozenset(":-=?+#%/^,@~")


class _Lexer:
    def __init__(self, text: str, substitution: bool = False) -> None:
        self.text = text
        self.inside = int(substitution)  # (how many command substitutions the reader is in)
        self.found: dict[int, BraceExpansion] = {}
        self.every: list[tuple[int, int, str]] = []  # each `${...}`: start, end, context
        self.pending: list[tuple[str, bool, bool]] = []  # heredocs: delimiter, `<<-`, quoted

    def code(self, i: int, stop: str | None) -> int:
        """Reads commands from `i` to the end, or (`stop` ")") to the `)` that closes a
        `$(`; the index of that `)`, or the text's length."""
        text, n = self.text, len(self.text)
        depth = 0
        # (jumps over the plain characters: a line's end matters only to a heredoc's body, a
        # parenthesis only inside `$(`)
        plain, lines = (_CODE, _CODE_LINES) if stop is None else (_SUBST, _SUBST_LINES)
        while True:
            found = (lines if self.pending else plain).search(text, i)
            if found is None:
                return n
            i = found.start()
            c = text[i]
            after = self.skip(i, "unquoted")
            if after is not None:
                i = after
            elif c == "\n":
                i = self.bodies(i + 1)
            elif c == "#":
                if i == 0 or text[i - 1] in _WORD_END:  # a comment
                    end = text.find("\n", i)
                    i = n if end < 0 else end
                else:
                    i += 1
            elif c == "<":
                i = self.heredoc(i)
            else:
                if stop is not None and c == "(":
                    depth += 1
                elif stop is not None and c == ")":
                    if depth == 0:
                        return i
                    depth -= 1
                i += 1

    def dquote(self, i: int, context: str) -> int:
        """Reads the inside of double quotes from `i`; the index after the closing `"`."""
        text, n = self.text, len(self.text)
        while True:
            found = _DQUOTE.search(text, i)
            if found is None:
                return n
            i = found.start()
            c = text[i]
            if c == "\\":
                i += 2
            elif c == '"':
                return i + 1
            elif c == "`":
                i = self.backquote(i + 1)
            else:
                i = self.dollar(i, context)

    def skip(self, i: int, context: str) -> int | None:
        """The index after the escape, quoted text or expansion that starts at `i` (in the
        context the text around it is in), None when none does: inside `${` as in a command,
        bash skips these whole."""
        c = self.text[i]
        if c == "\\":
            return i + 2
        if c == "'":
            return _after(self.text, "'", i + 1)
        if c == '"':
            return self.dquote(i + 1, "dquote")
        if c == "`":
            return self.backquote(i + 1)
        if c == "$":
            return self.dollar(i, context)
        return None

    def backquote(self, i: int) -> int:
        """Reads the commands of a backquoted substitution whose text starts at `i` (bash reads
        them as a script of their own, once it has removed the backslashes before `\\`, a
        backquote and `$`: where there are none, the text is that script, each character at
        its place; h123 M10, M20); the index after the closing backquote."""
        end = _backquote(self.text, i)
        inner = self.text[i : end - 1]
        if "${" in inner and _UNESCAPED_IN_BACKQUOTES.search(inner) is None:
            lexer = _Lexer(inner, substitution=True)
            lexer.code(0, None)
            for start, found in lexer.found.items():
                self.found[i + start] = BraceExpansion(
                    i + found.start,
                    i + found.end,
                    found.name,
                    found.operator,
                    i + found.word,
                    found.context,
                    tuple(i + b for b in found.braces),
                    True,
                )
            self.every.extend((i + a, i + b, context) for a, b, context in lexer.every)
        return end

    def dollar(self, i: int, context: str) -> int:
        """Reads what starts with the `$` at `i`; the index after it."""
        text = self.text
        if text.startswith("$((", i):
            return _arithmetic(text, i + 3)
        if text.startswith("$(", i):
            self.inside += 1
            try:
                return self.code(i + 2, ")") + 1
            finally:
                self.inside -= 1
        if text.startswith("${", i):
            return self.brace(i, context)
        if text.startswith("$'", i) and context == "unquoted":
            return _after(text, "'", i + 2, escapes=True)
        return i + 1

    def brace(self, i: int, context: str) -> int:
        """Reads the `${` at `i` to the `}` bash ends it at; the index after it."""
        text, n = self.text, len(self.text)
        head = _HEAD.match(text, i)
        word = head.end() if head is not None else i + 2
        braces: list[int] = []
        j = word
        while True:
            found = _IN_BRACE.search(text, j)
            if found is None:
                return n
            j = found.start()
            c = text[j]
            after = self.skip(j, context)
            if after is not None:
                j = after
            elif c == "{":
                braces.append(j)
                j += 1
            else:  # `}`
                self.every.append((i, j + 1, context))
                if head is not None:
                    self.found[i] = BraceExpansion(
                        i,
                        j + 1,
                        head.group(1),
                        head.group(2) or "",
                        word,
                        context,
                        tuple(braces),
                        self.inside > 0,
                    )
                return j + 1

    def heredoc(self, i: int) -> int:
        """Notes the heredoc whose operator may be at `i` (its body starts on the next line);
        the index after what was read."""
        text = self.text
        if not text.startswith("<<", i):
            return i + 1
        if text.startswith("<<<", i):  # a here-string
            return i + 3
        match = _HEREDOC.match(text, i)
        if match is None or "((" in text[text.rfind("\n", 0, i) + 1 : i]:
            return i + 2  # (a shift in `(( x << 2 ))` is no heredoc)
        word = match.group(2)
        quoted = any(q in word for q in "'\"\\")
        delimiter = re.sub(r"\\(.)|['\"]", lambda m: m.group(1) or "", word)
        self.pending.append((delimiter, bool(match.group(1)), quoted))
        return match.end()

    def bodies(self, i: int) -> int:
        """Reads the bodies of the heredocs whose commands ended on the line before `i`."""
        text, n = self.text, len(self.text)
        pending, self.pending = self.pending, []
        for delimiter, tabs, quoted in pending:
            while i < n:
                end = text.find("\n", i)
                end = n if end < 0 else end
                line = text[i:end]
                if (line.lstrip("\t") if tabs else line) == delimiter:
                    i = end + 1
                    break
                if not quoted:
                    self.heredoc_line(i, end)
                i = end + 1
        return i

    def heredoc_line(self, i: int, end: int) -> None:
        """The expansions of a line of an unquoted heredoc's body."""
        text = self.text
        while True:
            found = _HEREDOC_LINE.search(text, i, end)
            if found is None:
                return
            i = found.start()
            c = text[i]
            if c == "\\":
                i += 2
            elif c == "`":
                i = _backquote(text, i + 1)
            else:
                i = self.dollar(i, "heredoc")


def _after(text: str, quote: str, i: int, escapes: bool = False) -> int:
    """The index after the `quote` that closes what starts at `i` (`escapes`: a backslash
    escapes the next character, as in `$'...'`)."""
    n = len(text)
    if not escapes:
        end = text.find(quote, i)
        return n if end < 0 else end + 1
    pattern = _ESCAPED_QUOTE if quote == "'" else _ESCAPED_BACKQUOTE
    while True:
        found = pattern.search(text, i)
        if found is None:
            return n
        i = found.start()
        if text[i] == "\\":
            i += 2
        else:
            return i + 1


def _backquote(text: str, i: int) -> int:
    """The index after the backquote that closes a command substitution begun before `i`."""
    return _after(text, "`", i, escapes=True)


def _arithmetic(text: str, i: int) -> int:
    """The index after the `))` that closes `$((` (parentheses inside balanced)."""
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0 and text.startswith("))", i):
                return i + 2
            depth -= 1
        i += 1
    return n


def _ends(c: str, context: str) -> bool:
    """Whether the character ends the text an expansion stands in: a line (of a heredoc, or
    any), the double-quoted string, the unquoted word."""
    if context == "unquoted":
        return c in _WORD_END
    return c == "\n" or (context == "dquote" and c == '"')


def intended_end(text: str, expansion: BraceExpansion) -> int | None:
    """Where the author meant `expansion` to end when bash ends it early: reading on past
    bash's `}`, each `{` of its text wants a `}` of its own before the one that ends the
    expansion. None when bash ends it where the braces balance, or the text around it (the
    double-quoted string, the unquoted word, the heredoc's line) ends before they do."""
    need = len(expansion.braces)  # (bash's `}` closed the last of them)
    if need == 0:
        return None
    lexer = _Lexer(text)  # (what it finds on the way is found again by the real pass)
    i, n = expansion.end, len(text)
    context = expansion.context
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == "$":
            i = lexer.dollar(i, context)
        elif c == "`":
            i = _backquote(text, i + 1)
        elif _ends(c, context):
            return None
        elif context == "unquoted" and c == "'":
            i = _after(text, "'", i + 1)
        elif context == "unquoted" and c == '"':
            i = lexer.dquote(i + 1, "dquote")
        else:
            if c == "{":
                need += 1
            elif c == "}":
                need -= 1
                if need == 0:
                    return i + 1
            i += 1
    return None
