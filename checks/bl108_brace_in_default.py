"""`${VAR:-{...}}`: bash ends the expansion at the first `}`, and the rest is text after it.

## What it does
Reports a parameter expansion with a default, an alternative or an assigned value
(`${VAR:-word}`, `${VAR-word}`, `${VAR:=word}`, `${VAR:+word}`, `${VAR:?word}` and their
forms without `:`) whose word holds a `{` that bash does not pair: bash ends the expansion at
the first `}` that is not quoted, escaped or inside a nested expansion, whatever `{` came
before it, and the `}` the author wrote to end it follows as plain text. The usual shape is a
JSON default: `"${SPEC_CONFIG:-{\\"method\\": \\"mtp\\"}}"`. The script's text is read as bash
reads it (comments, quotes, `$(...)`, heredoc bodies; tree-sitter-bash parses this form only in
part), in double-quoted strings, unquoted words and unquoted heredoc bodies.

## Why is this bad?
With VAR unset the result looks right (the default without its last `}`, then the `}` as
text), so the script works in every test that leaves VAR alone. Once a caller sets VAR (the
workflow passes another speculative-decoding config), the value comes out with a stray `}`
after it: `{"method": "eagle"}}`, which the engine rejects as JSON at start-up. `${VAR:=...}`
also assigns VAR the default without its last `}`; `${VAR:+...}` gives a lone `}` where VAR is
unset. InferenceX fixed this shape four times in 2026. ShellCheck reports only the unquoted
form (SC1083).

## Example
```bash path=benchmarks/serve.sh
SPEC_CONFIG="${SPEC_CONFIG:-{\\"method\\": \\"mtp\\", \\"num_speculative_tokens\\": 3}}"
vllm serve "$MODEL" --speculative-config "$SPEC_CONFIG"
```

## Use instead
```bash path=benchmarks/serve.sh
SPEC_CONFIG="${SPEC_CONFIG:-"{\\"method\\": \\"mtp\\", \\"num_speculative_tokens\\": 3}"}"
vllm serve "$MODEL" --speculative-config "$SPEC_CONFIG"
```

## Exceptions
Not reported: a `}` in the word that is quoted (`${X:-"{a}"}`, `${X:-'{a}'}`), escaped
(`${X:-{a\\}}`) or part of a nested expansion or command substitution; a `{` whose `}` does not
follow before the double-quoted string, the unquoted word or the heredoc line ends (`${X:-{}`
is the default `{`); pattern forms such as `${X#{}`; a word holding `{{`, a template's placeholder
(`${MODEL_PATH:-{{ model_path }}}`, filled in before bash reads the file); comments,
single-quoted strings and quoted heredoc bodies, which bash does not expand (read as the shell
that runs them reads them where one does: `bash -c '...'`, `bash <<'EOF'`, and the escaped
`\\${X:-{}}` of a double-quoted `bash -c "..."` string, which the inner shell expands: there the
help writes the quotes escaped, and no fix is offered). A word whose first
`{` is on a later line than its `${`, after a quoted or escaped `}`, is not looked at.

## Fix safety
The fix puts the word in double quotes inside the expansion (`${X:-"{...}"}`), so bash ends the
expansion where the braces balance: the value with VAR unset stays the same, and a set VAR
loses the stray `}`. It is offered in a double-quoted string when the word holds no `"` of its
own and no backslash that double quotes would keep, and in an unquoted word of letters, digits
and `{}:,.=@%+/-` only. The fix is safe: the expansion keeps the value the author wrote.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from benchlint.context import Context
from benchlint.finding import Edit, Finding, Fix, Location, Severity, clip
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.shell.braces import BraceExpansion, expansions, intended_end
from benchlint.shell.model import Script, shells_as_written
from benchlint.source import SourceText

# a backslash double quotes keep as it is (before anything but `$`, a backquote, `"`, `\`)
_KEPT_BACKSLASH = lazy_compile(r"\\[^$`\"\\\n]")
_PLAIN_WORD = lazy_compile(r"[A-Za-z0-9_{}:,.=@%+/-]*")
# a `{` after a default's operator, on its line or before any `}`: a script without one has
# nothing to report (most have none, and reading a script as bash does costs more than this)
_CANDIDATE = lazy_compile(
    r"\$\{(?:[A-Za-z_]\w*(?:\[[^\]\n]*\])?|\d+|[@*]):?[-=?+](?:[^\n]*|[^}]*)\{"
)


def _removed(word: str, context: str) -> str:
    """The word as `:=` assigns it, its quotes removed (bash 5.2: `${S:={"m": "mtp"}}` assigns
    `{m: mtp`, in double quotes too; `\"` there gives `"`, and a single quote is a plain
    character there; h123 W4, h125 W2)."""
    out, i, n, quoted = [], 0, len(word), False
    while i < n:
        c = word[i]
        if c == "\\" and i + 1 < n:
            escaped = word[i + 1]
            plain = context == "dquote" or quoted
            out.append(escaped if not plain or escaped in '\\"$`' else c + escaped)
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        elif c == "'" and context != "dquote" and not quoted:
            end = word.find("'", i + 1)
            end = n if end < 0 else end
            out.append(word[i + 1 : end])
            i = end
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _gives(expansion: BraceExpansion, default: str, rest: str) -> str:
    """What bash's reading gives, by the operator (the end of the message)."""
    name, operator = expansion.name, expansion.operator
    name = f"${name}" if name.isdigit() or name in "@*" else name  # (`$2`, `$@`)
    unset = "unset or empty" if operator.startswith(":") else "unset"
    if operator.endswith("+"):
        return f"{unset}, {name} gives `{rest}` where it should give nothing"
    given = f"set, {name} gives its value followed by `{rest}`"
    if operator.endswith("="):
        return f"{unset}, {name} is assigned `{_removed(default, expansion.context)}`; {given}"
    return given


def _fix(
    source: SourceText, expansion: BraceExpansion, end: int, written: str
) -> tuple[str, Fix | None]:
    """The expansion with its word in double quotes, and the fix that writes it (None where
    the quotes would change what the word gives)."""
    word = source.text[expansion.word : end - 1]
    quoted = f'{source.text[expansion.start : expansion.word]}"{word}"}}'
    if expansion.context == "dquote":
        safe = '"' not in word.replace('\\"', "") and not _KEPT_BACKSLASH.search(word)
    else:
        safe = expansion.context == "unquoted" and _PLAIN_WORD.fullmatch(word) is not None
    if not safe:
        return quoted, None
    edits = (
        Edit(source.path, source.span(expansion.word, expansion.word), '"'),
        Edit(source.path, source.span(end - 1, end - 1), '"'),
    )
    return quoted, Fix(f"write `{quoted}`", edits)


def _read(script: Script) -> Iterator[tuple[BraceExpansion, int, bool]]:
    """Each expansion with braces in its word, and where its author meant it to end (in the
    file's text), as the shell that expands it reads it: the file's, and the one a `bash -c
    '...'` string or a quoted heredoc fed to one runs (h123 M10)."""
    for shell in shells_as_written(script):
        text = shell.text
        for expansion in expansions(text):
            if not expansion.operator or not expansion.braces:
                continue
            if "{{" in text[expansion.word : expansion.end]:
                continue  # a template's placeholder (`{{ model_path }}`), filled in before bash
            if not shell.own(expansion.start):
                continue  # (the file's shell expands it: read there)
            end = intended_end(text, expansion)
            if end is None:
                continue
            yield (
                dataclasses.replace(
                    expansion,
                    start=shell.at(expansion.start),
                    end=shell.at(expansion.end - 1) + 1,
                    word=shell.at(expansion.word),
                    braces=tuple(shell.at(b) for b in expansion.braces),
                ),
                shell.at(end - 1) + 1 if end > 0 else shell.at(end),
                shell.in_double_quotes,  # (in the file's double quotes: its `"` written `\\"`)
            )


@script_rule(
    "BL108", "brace-in-default", Severity.ERROR, tags=("shell", "correctness"), precision="high"
)
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    source, path = script.file, script.path
    if not _CANDIDATE.search(source.text):
        return
    text = source.text
    seen: set[int] = set()
    for expansion, end, escaped in _read(script):
        if expansion.start in seen:
            continue
        seen.add(expansion.start)
        written = text[expansion.start : end]
        default = text[expansion.word : expansion.end - 1]
        rest = text[expansion.end : end]
        quoted, fix = _fix(source, expansion, end, written)
        if escaped:  # (a string in the file's double quotes: its quotes are written escaped)
            quoted, fix = quoted.replace('"', '\\"'), None
        tail = default if len(default) <= 16 else "…" + default[-15:]
        yield Finding(
            "BL108",
            f"bash ends `{clip(written, 60)}` at the `}}` after `{tail}`, and `{rest}` is "
            f"text after it: {_gives(expansion, clip(default, 40), rest)}",
            Location(path, source.span(expansion.start, end)),
            help=f"quote the word: `{clip(quoted, 60)}`",
            subject=written,
            fix=fix,
        )
