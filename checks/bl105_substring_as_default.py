"""`${VAR:default}` where `${VAR:-default}` was meant.

## What it does
Reports a parameter expansion `${NAME:TEXT}` (or of a positional parameter, `${2:TEXT}`) whose TEXT
is not a plausible arithmetic offset: it holds a character arithmetic has no use for here (`/`,
`.`, a single quote, `@`; bash removes double quotes first) or a number with letters after it
(`1e3`, `10GB`), a hyphenated word
(`meta-llama`, where the two are not variables the script sets), a name that nothing in the script
assigns (`${X:foo}`, `${SLURM_PARTITION:gpu-2}`), or, with no length, a number of 1,000 or more
(`${PORT:8888}`: empty for any shorter value).

## Why is this bad?
After `${NAME:` bash reads an *offset*, an arithmetic expression, not a default: the substring
form `${NAME:offset:length}`. When NAME is unset the expansion is silently empty, so the model
path or port the author meant as a fallback never appears; when it is set, bash evaluates the
text as arithmetic, reports an error (`Llama-3.1-8B: division by 0`, `invalid arithmetic
operator`) and skips the rest of the top-level statement it is in (its line, a loop or `if`
around it, the function the line called): the engine it was to start never starts, and the
script goes on with the next statement (bash 5.2, even under `set -e`; in a `$(...)`, that
shell's statement: the substitution gives nothing, the command around it goes on); or, where the
text is names nothing sets (`${RUN: -"finetune_5e-6"}`), reads them as 0 and cuts the value at
the offset that gives.
Public benchmark scripts ship this; ShellCheck does not report it.

## Example
```bash path=benchmarks/serve.sh
MODEL="${CHECKPOINT_PATH:meta-llama/Llama-3.1-8B}"
vllm serve "$MODEL"
```

## Use instead
```bash path=benchmarks/serve.sh
MODEL="${CHECKPOINT_PATH:-meta-llama/Llama-3.1-8B}"
vllm serve "$MODEL"
```

## Exceptions
Offsets and lengths that read as arithmetic are substrings and are not reported: `${X:1}`,
`${X:100}`, `${X: -1}`, `${X:(-1)}`, `${X:i:2}`, `${X:$N}`, `${X:start}` and
`${X:start:end-start}` where the script assigns `start` and `end` (`=`, `read`, `for`, `(( ))`,
`let`, `$((pos = 1))`..., or a file it sources does; any name when a file it sources is not
found), `${X:pos[1]}` where it assigns the array `pos`, and bash's own numbers (`${X:OPTIND}`,
`$SECONDS`, `$RANDOM`). tree-sitter-bash does not parse this form, so the rule reads the
script's text as bash does: comments, single-quoted strings (over several lines too: `python3
-c '...'`) and the bodies of quoted heredocs (which bash does not expand) are skipped, but
read as the shell that runs them reads them where one does (`bash -c '...'`, `bash <<'EOF'`);
so is an escaped `\\${X:a}` the file's shell leaves to the one a double-quoted `bash -c "..."`
string or an unquoted heredoc runs; in an unquoted heredoc's body a quote or a `#` is a plain
character.

## Fix safety
The fix inserts the `-` (in place of the blank of `${X: fp8}`, whose default would otherwise
start with it; for `${X: -"d"}`, removes the blank that split `:-`): unsafe
(applied with `--unsafe-fixes`): it takes the default for the author's intent, and a script
that meant the substring would change.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from benchlint.context import Context
from benchlint.finding import Edit, Finding, Fix, Location, Severity, Span
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.shell.braces import expansions
from benchlint.shell.model import Script, shells_as_written

# `${NAME:` not followed by an operator that starts with `:` (`:-`, `:=`, `:?`, `:+`)
_SUBSTRING = lazy_compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*|[0-9]+):(?![-=?+])([^}]*)\}")
# characters bash's arithmetic rejects in an offset (`a/b` divides by a name nothing sets, 0;
# `,` and `~` are operators, and double quotes are removed before the offset is evaluated)
_NOT_ARITHMETIC = lazy_compile(r"""[/.'@]""")
# a number with letters after it (`1e3`, `10GB`; not `0x1F` nor `10#08`): bash's arithmetic
# rejects it ("value too great for base")
_GLUED_NUMBER = lazy_compile(r"(?<![0-9A-Za-z_#])(?!0[xX])[0-9]+[A-Za-z_]")
# a name an arithmetic expansion assigns or steps at its start (`$((pos = 1))`, `$((i += 2))`,
# `$((++i))`, `$((i--))`)
_ARITHMETIC_ASSIGNED = lazy_compile(
    r"\$\(\(\s*(?:(?:\+\+|--)\s*([A-Za-z_]\w*)"
    r"|([A-Za-z_]\w*)\s*(?:\+\+|--|(?:[-+*/%&|^]|<<|>>)?=(?!=)))"
)
# a name in an arithmetic expression (not the digits and letters of a number, `0x1F`, `10#08`,
# nor an expansion's, `$N`, `${N}`: its value is the run's)
_OPERAND_NAME = lazy_compile(r"(?<![0-9A-Za-z_#${])[A-Za-z_][A-Za-z0-9_]*")
# an offset this long is a default that lost its `-` (a port, a size, a count): no variable a
# benchmark script reads holds 1,000 characters it would cut
_LONGEST_OFFSET = 1000
# `meta-llama`: a hyphen between two names (a subtraction only when both are variables)
_HYPHENATED = lazy_compile(r"([A-Za-z_]\w*)\s*-\s*(?=([A-Za-z_]\w*))")
# `pos[1]`: an array element (brackets anywhere else are no arithmetic)
_ELEMENT = lazy_compile(r"([A-Za-z_]\w*)\[[^][]*\]")
# the numbers bash keeps itself
_BASH_NUMBERS = frozenset(
    {"OPTIND", "SECONDS", "RANDOM", "SRANDOM", "LINENO", "PPID", "UID", "EUID", "BASHPID"}
    | {"COLUMNS", "LINES", "SHLVL", "OPTERR", "EPOCHSECONDS", "BASH_SUBSHELL", "HISTCMD"}
)


def _implausible(text: str, script: Script, sourced: Callable[[], set[str] | None]) -> str | None:
    """What a set variable's expansion gives when the text is not a plausible offset (the end
    of the message), else None. `sourced`: the names the files the script sources assign
    (None: a file it sources is not known, so any name may be set)."""
    text = text.replace('"', "")  # (bash removes double quotes before evaluating it)
    offset = text.split(":", 1)[0]  # `${X:offset:length}`
    if not offset.strip():
        return None
    if _NOT_ARITHMETIC.search(text) or _GLUED_NUMBER.search(text):  # (offset or length)
        return _ERROR
    variables: set[str] | None = None
    unknown = False

    def variable(name: str) -> bool:
        nonlocal variables, unknown
        if variables is None:
            variables = {a.name for a in script.assignments} | _BASH_NUMBERS
            # (and those an arithmetic expansion assigns: `: $((pos = 1))`, `$((i++))`; h123 F1)
            text = script.file.text
            variables |= {m[1] or m[2] for m in _ARITHMETIC_ASSIGNED.finditer(text)}
            if name not in variables:
                more = sourced()
                unknown = more is None
                variables |= more or set()
        return name in variables or unknown

    elements = _ELEMENT.sub(lambda m: "0" if variable(m.group(1)) else "[", text)
    if "[" in elements or "]" in elements:
        return _ERROR
    if any(not (variable(a) and variable(b)) for a, b in _HYPHENATED.findall(elements)):
        return _PART
    if ":" in text:  # (a length: a substring meant)
        return None
    if offset.strip().isdigit():  # `${PORT:8888}`: no value a launcher reads is that long
        if int(offset) < _LONGEST_OFFSET:
            return None
        return f"it expands to nothing unless its value is longer than {int(offset)} characters"
    # an expression of names nothing sets (`${X:foo}`, `${SLURM_PARTITION:gpu-2}`)
    return _PART if any(not variable(n) for n in _OPERAND_NAME.findall(offset)) else None


# what a set variable's expansion gives
_ERROR = (
    "bash reports an arithmetic error and skips the rest of the top-level statement it is in "
    "(its line, a loop or `if` around it, the function the line called)"
)
_ERROR_IN_SUBSTITUTION = (
    "bash reports an arithmetic error, and the command substitution it is in gives nothing (its "
    "shell skips the rest of that statement): the command around it goes on with it empty"
)
_PART = (
    "bash reads the names nothing sets as 0 and expands to its value from the offset that "
    "gives (all of it where that is 0)"
)


def _expansions(script: Script) -> Iterator[tuple[int, int, re.Match[str], bool]]:
    """(line, column) and match of each `${NAME:...}` bash expands: read as bash reads the
    text (`braces.expansions`: not in comments, single quotes over several lines, `python3 -c
    '...'`, quoted heredoc bodies; a quote or a `#` in an unquoted one's body is a plain
    character, h123 F2, M5), and as the shell a `bash -c '...'` string or a quoted heredoc
    fed to one runs reads its text."""
    text = script.file.text
    if not _SUBSTRING.search(text):  # (most scripts: no `${X:` at all)
        return
    seen: set[int] = set()
    for shell in shells_as_written(script):  # (`bash -c '...'`'s too: h123 M6)
        for expansion in expansions(shell.text):
            match = _SUBSTRING.match(shell.text, expansion.start)
            at = shell.at(expansion.start)
            if match is None or "\n" in match.group() or at in seen:
                continue
            if not shell.own(expansion.start):
                continue  # (the file's shell expands it: read there)
            seen.add(at)
            line = text.count("\n", 0, at) + 1
            column = at - (text.rfind("\n", 0, at) + 1) + 1
            yield line, column, match, expansion.substitution


def _sourced_names(ctx: Context, script: Script) -> set[str] | None:
    """The names assigned by the files the script sources; None when one is not found."""
    names: set[str] = set()
    for call in ctx.environment.calls.calls_in(script):
        if call.kind != "source":
            continue
        if call.known is not None:
            names.update(call.known["assigns"])
            continue
        if not call.targets:
            return None
        for target in call.targets:
            library = ctx.ws.shell(target)
            if library is not None:
                names.update(a.name for a in library.assignments)
    return names


@script_rule(
    "BL105",
    "substring-as-default",
    Severity.ERROR,
    tags=("shell", "correctness"),
    precision="medium",
)
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    source, path = script.file, script.path
    if "${" not in source.text:
        return
    sourced = functools.cache(functools.partial(_sourced_names, ctx, script))
    for line, column, match, substitution in _expansions(script):
        name, text = match.group(1), match.group(2)
        given = _implausible(text, script, sourced)
        if given is None:
            continue
        if given == _ERROR and substitution:  # (h126 W1)
            given = _ERROR_IN_SUBSTITUTION
        written = match.group()
        colon = column + 3 + len(name)  # just after `${NAME:`
        unset = f"not passed, ${name}" if name.isdigit() else f"unset, {name}"  # (`${2:x}`)
        default, edit = text, Edit(path, Span(line, colon, line, colon), "-")
        blank = len(text) - len(text.lstrip(" \t"))
        if blank and text[blank:].startswith("-"):  # `${X: -"d"}`: a `:-` split by a blank
            default = text[blank + 1 :]
            edit = Edit(path, Span(line, colon, line, colon + blank), "")
        elif blank:  # `${X: fp8}`: the blank goes too, or the default starts with it (h134 W1)
            default = text[blank:]
            edit = Edit(path, Span(line, colon, line, colon + blank), "-")
        yield Finding(
            "BL105",
            f"`{written}` takes a substring at the arithmetic offset `{text}`, not a "
            f"default: {unset} silently expands to nothing; set, {given}",
            Location(path, Span(line, column, line, column + len(written))),
            help=f"write `${{{name}:-{default}}}`",
            subject=written,
            fix=Fix(f"write `${{{name}:-{default}}}`", (edit,), "unsafe"),
        )
