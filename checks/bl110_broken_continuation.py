"""A line of flags that bash runs as a command: the line before it did not continue.

## What it does
Reports a command whose name is a flag (`--max-model-len 8192 \\`, `-e MODEL \\`), or an
argument array of flags (`"${SPEC_ARGS[@]}" \\`, where every array the script assigns to it is
empty or starts with a flag), or an unquoted variable whose every value the script gives is empty
or a string of flags, one at least (`$DIST_FLAG \\` after `DIST_FLAG="--dist-url $ADDR"`; not
one `read`, `printf -v` or a file the script sources may set): the options of a long
command line written one per line, where the line before does not end in `\\` as bash reads it: it
has none, a blank after it (`\\ `, which escapes the blank instead), or it is empty or a comment (a
`\\` at its end is part of the comment), which ends the command. `--port=30000` on a line of its
own is such a flag (no name bash assigns to: it runs it as a command), and so is a Hydra override,
the options of verl's and NeMo's command lines (`trainer.nnodes=2`, `+trainer.extra=1`: a dotted
name, or one after `+`, is no name bash assigns to either). So is a line of variable names after a
validator's list (`check_env_vars MODEL TP` ending without its `\\`, then `EP_SIZE \\`): bash runs
the first name as a command and the validator never checks those names. Inside an array's
`( ... )`, a `\\` then a blank before a note is reported too: the blank is escaped, so the
note's comment sign starts no comment and the note's words become items. And an `srun` whose last
line's `\\` continues into a comment line: bash joins the two, the comment ends the command there,
and srun gets its options and no program ("No command given to execute"), while the lines meant
for it run where the script runs, outside the allocation. And an engine's environment written over
lines (`PYTHONUNBUFFERED=1 \\`, then `SGLANG_X=y` with no `\\`, then `python3 -m ...`): the
assignments end on their own as shell variables, and the command on the next line runs without them
unless its caller exported them (assignments on every line, or a `\\` that runs into a comment or an
empty line, before a program that is surely one, an engine, `python3`, `srun`, a path, or, after
such a comment, the first one past commands that only assign other names, as an `if` choosing
flags does; not where the script mentions those names anywhere else or may export them, `set -a`,
`export $(...)`, nor before a function or a `source`, which run in the script's own shell, nor in a
file other scripts source).
The message names the line that cut the command short; the line before is read from the script's
text as bash reads it, so a `\\` that the model of the script missed is no finding.

## Why is this bad?
The command above the break runs without the flags below it, and each flag line then runs as
a command of its own and fails (`--max-model-len: command not found`), which `set -e` may not
stop in time: a `vllm serve ... &` whose `&` and log redirection sat on a later line runs in
the foreground and the script never reaches its benchmark; a `docker run` starts its
container without the options below. InferenceX fixed this shape in launchers and entrypoints
several times (a `--block-size=64` left without its `\\`; text pasted after a `\\`).

## Example
```bash path=benchmarks/single_node/serve.sh
vllm serve "$MODEL" --tensor-parallel-size 8 \\
  --block-size=64
  --disable-log-requests > "$SERVER_LOG" 2>&1 &
```

## Use instead
```bash path=benchmarks/single_node/serve.sh
vllm serve "$MODEL" --tensor-parallel-size 8 \\
  --block-size=64 \\
  --disable-log-requests > "$SERVER_LOG" 2>&1 &
```

## Exceptions
Not reported: `--` as a command word, and a line the model took for a command of its own
where bash continues the line before (it ends in `\\` as bash reads it). Besides the script's
own lines, those of a script written in it that a shell runs are read (a heredoc `bash`
reads or `cat` writes to a script file, a `bash -c` or `ssh` string), and the value of a
string variable such a string or `eval "$CMD"` puts into the script text (assigned once in
quotes; a double-quoted one's own variables in turn: `CMD="... $GPT_ARGS ..."`, whose lines
keep their ends there); not the words a string variable splits into (`python3 x.py $CMD`),
where a line's end is a blank, nor a value single quotes or `\\$` leave to the new shell.

## Fix safety
Blanks after the `\\` are removed (safe: bash then continues the line, as the `\\` meant). A
line with no `\\` gets one (unsafe: it joins the flags to the command above, which is almost
always what was meant, but the command changes). In an array, the `\\` and its blanks are
removed, so the note is a comment (unsafe: the array loses the words it had).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from benchlint.context import Context
from benchlint.engines import array_name, assignments_of, set_otherwise
from benchlint.environment import VALIDATORS
from benchlint.finding import Edit, Finding, Fix, Location, Severity, Span, clip
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.shell.model import Command, Script, first_line
from benchlint.source import SourceText

# a line that ends in `\`, as bash reads it: an odd number of backslashes before the newline
_CONTINUED = lazy_compile(r"(?<!\\)(?:\\\\)*\\$")
_BLANKS_AFTER = lazy_compile(r"(?<!\\)(?:\\\\)*\\[ \t]+$")
# a `\` then blanks before a `#`: an escaped blank, then a comment (after more blanks) or words
# (in an array's `( ... )`, or ending a command's line: `_cut`)
_ESCAPED_NOTE = lazy_compile(r"(?<!\\)(?:\\\\)*(\\[ \t])([ \t]*)(#[^\n]*)")
# a Hydra (OmegaConf) override, the options of verl's, NeMo's and Megatron-Bridge's command
# lines: `trainer.nnodes=2`, `+trainer.extra=1`, `++a.b=c` (a dotted name, or one after `+`: no
# name bash assigns to, so a line of them on its own runs the first as a command)
_OVERRIDE = lazy_compile(
    r"\+{1,2}[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*="
    r"|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+="
)
# a line that starts with a flag, an array's elements or an override (a script with none has
# nothing to report)
_FLAG_LINE = lazy_compile(
    r"^[ \t]*(?:-|\"?\$\{[A-Za-z_][A-Za-z0-9_]*\[@\]\}|\+{1,2}[A-Za-z_]|[A-Za-z_]\w*\.\w)", re.M
)


@script_rule("BL110", "broken-continuation", Severity.ERROR, tags=("shell", "correctness"))
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    source = script.file
    if "srun" in source.text and "\\\n" in source.text:
        yield from _wrapper_cut(script)
    if "\\\n" in source.text and not ctx.environment.calls.is_sourced(script.path):
        yield from _prefix_cut(script)  # (in a sourced file, the sourcing script may read them)
    validated = any(name in source.text for name in VALIDATORS)
    if not validated and not _FLAG_LINE.search(source.text):
        return
    reported: set[int] = set()
    for inner in script.walk():
        if not _read_as_lines(inner):
            continue
        before = None
        for command in inner.commands:
            validator = _checked_by(before, command)
            if validator is not None and command.base in ctx.environment.functions_at_end(script):
                validator = None  # (`SETUP_ENV` after the list: a function the script has)
            finding = _finding(source, command, validator)
            if finding is not None:
                reported.add(finding.location.span.line)
                yield finding
            before = command
    if script.nested and '"' in source.text:
        yield from _held_values(script, reported)
    if "\\" in source.text:
        yield from _array_comments(script)


def _wrapper_cut(script: Script) -> Iterator[Finding]:
    """`srun --jobid=$J ... \\` then a comment line: bash joins the lines, the comment ends the
    command there, and srun gets options and no program ("No command given to execute"); the
    lines meant for it run as commands of their own, where the script runs, outside the
    allocation."""
    source = script.file
    lines = source.text.split("\n")
    for command in script.commands:  # (the file's own lines: a nested shell's are a string's)
        wrappers = command.invocation.wrappers
        if not wrappers or wrappers[-1].name != "srun" or command.invocation.words:
            continue
        end = command.span.end_line  # (1-based: the line after it is `lines[end]`)
        if end >= len(lines) or not lines[end - 1].rstrip(" \t").endswith("\\"):
            continue
        following = lines[end]
        if not following.lstrip(" \t").startswith("#"):
            continue
        column = len(following) - len(following.lstrip(" \t")) + 1
        yield Finding(
            "BL110",
            f"the `\\` that ends line {end} continues into this comment, which ends the command: "
            '`srun` gets its options and no program ("No command given to execute"), and the '
            "lines meant for it run as commands of their own, where the script runs, outside the "
            "allocation",
            Location(script.path, Span(end + 1, column, end + 1, len(following) + 1)),
            related=(Location(script.path, command.first_line_span, "the srun cut short"),),
            subject="srun-cut",
            help="move the comment above the command, or end the command where its program is",
        )


def _array_comments(script: Script) -> Iterator[Finding]:
    """`--num_layers=32 \\ # 7b: 32` inside `ARGS=( ... )`: the `\\ ` escapes the blank, so the
    `#` starts no comment, and the array gets the words of the note. (Only the script's own
    text, where its characters are the file's.)"""
    if script.parent is not None:
        return
    for assignment in script.assignments:
        value = assignment.value
        if value is None or value.items is None or value.node.type != "array":
            continue
        text = script.text_of(value.node)
        start = script.char_of(value.node.start_byte)
        quoted = [
            (script.char_of(i.node.start_byte), script.char_of(i.node.end_byte))
            for i in value.items
            if i.node.type in ("string", "raw_string", "ansi_c_string", "concatenation")
        ]
        for match in _ESCAPED_NOTE.finditer(text):
            at = start + match.start(1)
            if any(a <= at < b for a, b in quoted):
                continue  # (`"a \\ # b"`: the text of a quoted item)
            blanks = match.group(1) + match.group(2)
            joins = match.start(1) > 0 and text[match.start(1) - 1] not in " \t\n("
            word = text[: match.start(1)].rsplit(None, 1)[-1] if joins else ""
            if match.group(2) and joins and not (word.startswith("-") and "=" not in word):
                continue  # (`--n=32\  # note`: the blank joins the value; the note is a comment)
            span = script.file.span(at, at + len(blanks))
            note = match.group(3).rstrip()
            rest = clip(note[1:].strip(), 40)
            fix = Fix(
                "remove the `\\` and the blanks after it (the rest of the line is then a comment)",
                (Edit(script.path, span, ""),),
                "unsafe",
            )
            if match.group(2) and joins:  # (`--flag\\  # note`: the flag ends in a blank)
                message = (
                    f"`\\` then a blank joins a blank to `{clip(word, 30)}` inside "
                    f"`{assignment.name}=( ... )`: the item is `{clip(word, 30)} `, which is no "
                    "option, and the command it is given to gets it as an argument"
                )
            elif match.group(2):  # (`\\  # note`: the `#` after a blank starts a comment)
                message = (
                    f"`\\` then a blank escapes the blank inside `{assignment.name}=( ... )`: "
                    "the array gets a word that is one blank, and the command it is given to "
                    "gets it as an argument"
                )
            else:
                first = "a word ending in ` #`" if joins else "the word ` #`"
                message = (
                    f"`\\` then a blank escapes the blank, so `#` starts no comment inside "
                    f"`{assignment.name}=( ... )`: the array gets {first}"
                    + (f" and the words of `{rest}`" if rest else "")
                    + ", and the command it is given to gets them as arguments"
                )
            yield Finding(
                "BL110",
                message,
                Location(script.path, span),
                subject=f"{assignment.name}@{clip(note, 40)}",
                fix=fix,
            )


def _held_values(script: Script, reported: set[int]) -> Iterator[Finding]:
    """Flag lines of a string variable's value that a shell reads as script text: `bash -c
    "$LAUNCHER $CMD"`, `eval "$CMD"`, `ssh host "$CMD"` put the value into the text the new
    shell parses, newlines and all (a quote keeps them; only a `\\` that ends a line joins it
    to the next: the double quote removes it, the new shell reads it). A value assigned once in
    quotes, and the variables a double-quoted one expands in turn (`CMD="... $GPT_ARGS ..."`),
    are read: a flag line after a line that does not continue runs as a command of its own
    there."""
    seen: set[str] = set()
    for inner in script.nested:
        parent = inner.parent
        if parent is None or not _read_as_lines(inner):
            continue
        strings = [script.text_of(w.node) for w in parent.words if w.node.type == "string"]
        names = [m.group(1) for t in strings for m in _EXPANDED.finditer(t) if _bare(t, m.start())]
        todo = [(name, 0) for name in dict.fromkeys(names)]
        while todo:
            name, depth = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            assigned = assignments_of(script, name)
            value = assigned[0].value if len(assigned) == 1 else None
            if value is None or value.node.type not in ("string", "raw_string"):
                continue
            text = script.text_of(value.node)
            if depth < 3 and value.node.type == "string":  # (single quotes expand nothing)
                todo += [(n, depth + 1) for n in _EXPANDED.findall(text)]
            if "\n" in text:
                start = script.char_of(value.node.start_byte)
                double = value.node.type == "string"
                yield from _value_lines(script, parent, name, text, start, reported, double)


def _bare(text: str, at: int) -> bool:
    """Whether an expansion in a double-quoted string stands outside quotes in the text the new
    shell reads: not after an odd number of `'` (`bash -c "echo '$CMD' >> log"`) or of `\\"`
    (`\\"$CMD\\"`), where its newlines are inside one word."""
    before = text[1:at]
    return before.count("'") % 2 == 0 and before.count('\\"') % 2 == 0


def _continues(line: str, double: bool) -> bool:
    """Whether a line of a quoted value continues in the new shell's reading: it ends in `\\`
    there. A double quote makes `\\\\` one `\\` and removes a `\\` before the line's end (the
    lines joined); a single quote keeps them as written."""
    count = len(line) - len(line.rstrip("\\"))
    if not double:
        return count % 2 == 1
    return count % 2 == 1 or (count // 2) % 2 == 1


# a variable the outer shell expands inside a double-quoted string (not `\$X`, not `$(...)`)
_EXPANDED = lazy_compile(r"(?<!\\)\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def _value_lines(
    script: Script,
    parent: Command,
    name: str,
    text: str,
    start: int,
    reported: set[int],
    double: bool,
) -> Iterator[Finding]:
    """The flag lines of a quoted value (its text with the quotes, starting at the file's
    character `start`; `double`: in double quotes) whose line before does not continue."""
    source = script.file
    lines = text[:-1].split("\n")  # (without the closing quote)
    offset = 0
    for index, line in enumerate(lines):
        if index == 0:
            offset += len(line) + 1
            continue
        before = lines[index - 1]
        at = start + offset + len(line) - len(line.lstrip(" \t"))
        offset += len(line) + 1
        flag = line.lstrip(" \t").split(maxsplit=1)[0] if line.strip() else ""
        if not flag.startswith("-") or flag in ("-", "--") or flag.startswith('-"'):
            continue
        if _continues(before.rstrip("\r"), double):
            continue  # (a `\\` that ends the line: the double quote or the new shell joins)
        number = source.point(at)[0]
        if number in reported:
            continue
        reported.add(number)
        if before.strip():
            why, fix = _cut(source.path, number - 1, before)
        else:
            why, fix = f"line {number - 1} ends a line of the value", None
        shell = parent.invocation.base or (parent.words[0].value if parent.words else "a shell")
        yield Finding(
            "BL110",
            f"`{clip(flag, 40)}` starts a line of `${name}`, which `{shell}` on line "
            f"{parent.span.line} reads as script text: it runs as a command of its own "
            f"({clip(flag, 40)}: command not found): {why}, and the quote keeps the line's end, "
            "so the command above runs without this line's options and those after it",
            Location(
                source.path,
                Span(number, source.point(at)[1], number, source.point(at)[1] + len(flag)),
            ),
            related=(Location(source.path, parent.first_line_span, "read as script"),),
            subject=f"held:{name}@{clip(flag, 40)}",
            fix=fix,
        )


def _read_as_lines(inner: Script) -> bool:
    """Whether bash reads the script line by line, a line's end ending a command: the file, or
    a script nested in it that a shell runs (a heredoc a shell reads or a script file it
    writes, a `bash -c`, `eval` or `ssh` string); not the words a string variable splits into
    (`$CMD --port 1`), where a line's end is a blank. Its lines are the file's as bash reads
    them: a `\\` ending a line joins it to the next in an unquoted heredoc and a double-quoted
    string before the shell runs it, and in the script the shell runs otherwise."""
    parent = inner.parent
    if parent is None:
        return True
    words = parent.invocation.words
    if parent.invocation.base == "eval":  # (`eval $CMD`: split, its lines joined by blanks)
        return all(w.node.type not in ("simple_expansion", "expansion") for w in words[1:])
    return not (words and words[0].node.type in ("simple_expansion", "expansion"))


def _flag_word(command: Command) -> str | None:
    """The flag a command's name is: a word that starts with `-`, or an argument array that
    holds flags (`"${SPEC_ARGS[@]}"`, every array assigned to it empty or starting with one:
    its first flag, or the next word, becomes the command's name)."""
    assignments = command.assignments
    if assignments and assignments[0].name.startswith("-"):
        # `--port=30000`: no name bash assigns (the model reads it as one), the command's name
        flag = assignments[0]
        if not command.words or flag.node.start_byte < command.words[0].node.start_byte:
            return command.script.text_of(flag.node)
    if not command.words:
        return None
    first = command.words[0]
    name = command.base
    if name and name.startswith("-") and name != "--" and first.value == name:
        return name
    if first.static or first.node.type in ("word", "concatenation"):
        written = command.script.text_of(first.node)
        if _OVERRIDE.match(written):  # (`trainer.nnodes=2`: no name bash assigns to)
            return written
    array = array_name(first)
    if array is None:
        # (`$DIST_FLAG` unquoted, every value the script gives it empty or a flag string, one
        # a flag: `DIST_FLAG="--dist-url $ADDR"` or `DIST_FLAG=""`; bash splits it into the
        # name. Not `cmd=''` alone, a prefix for a dry run: the next word is the name)
        variable = first.unquoted_variable()
        if variable is None or set_otherwise(command.script, variable):
            return None
        given = [a.value for a in assignments_of(command.script, variable)]
        texts = [v.value.strip() for v in given if v is not None and v.items is None]
        flagged = all(not t or t.startswith("-") for t in texts) and any(texts)
        return first.text if given and len(texts) == len(given) and flagged else None
    values = [a.value for a in assignments_of(command.script, array)]
    arrays = [v for v in values if v is not None and v.items is not None]
    flags = all(not v.items or v.items[0].value.startswith("-") for v in arrays)
    return first.text if values and len(arrays) == len(values) and flags else None


def _held_flag(command: Command) -> str | None:
    """The first flag of the first value that is not empty of the unquoted variable a
    command's name is (`_flag_word`: `DIST_FLAG="--dist-url $ADDR"` gives `--dist-url`)."""
    variable = command.words[0].unquoted_variable() if command.words else None
    if variable is None:
        return None
    given = (a.value for a in assignments_of(command.script, variable))
    texts = [v.value.split() for v in given if v is not None and v.items is None]
    return next((t[0] for t in texts if t), None)


def _comment_start(text: str) -> int | None:
    """Where a comment starts on a line: a `#` at its start or after a blank bash does not
    escape (`x \\ #y` is the words `x`, ` #y`), past quoted strings (h83 W1); None where there
    is none, or a backquote or a quote not closed on the line before it (not read here)."""
    blank, escaped, at = True, False, 0
    while at < len(text):
        char = text[at]
        if escaped:
            blank = escaped = False
        elif char == "\\":
            blank, escaped = False, True
        elif char == "'":
            at = text.find("'", at + 1)
            if at < 0:
                return None
            blank = False
        elif char == '"':
            at += 1
            while at < len(text) and text[at] != '"':
                at += 2 if text[at] == "\\" else 1
            if at >= len(text):
                return None
            blank = False
        elif char == "`":
            return None
        elif char == "#" and blank:
            return at
        else:
            blank = char in " \t"
        at += 1
    return None


def _cut(path: str, line: int, text: str) -> tuple[str, Fix | None]:
    """Why a line that is not empty and no comment (`text`, line `line`) does not continue the
    command into the next, and the fix: blanks after its `\\` (they go), an operator that ends
    the command (a `\\` after it would join nothing: none), or no `\\` (one added, unsafe)."""
    stripped = text.strip()
    end = len(text)
    comment = _comment_start(text)
    blanks = _BLANKS_AFTER.search(text)
    if blanks is not None and (comment is None or blanks.start() < comment):
        kept = text.rstrip(" \t")
        span = Span(line, len(kept) + 1, line, end + 1)
        fix = Fix("remove the blanks after the `\\`", (Edit(path, span, ""),))
        return f"line {line} has blanks after its `\\`, which escapes a blank instead", fix
    if stripped.endswith((";", "&", "|")):
        return f"line {line} ends its command with `{stripped[-1]}`", None
    escaped = _ESCAPED_NOTE.search(text)
    if comment is not None:  # (a `\` after it would be the comment's: no fix)
        if escaped is not None and escaped.start(3) == comment:
            # (`--flag x \  # note`: the `\` escapes the blank, a word of its own, or the end
            # of the word before it, `--tp=8\  # note`; h81 W2, h83 W2)
            alone = escaped.start(1) == 0 or text[escaped.start(1) - 1] in " \t"
            what = "a word of one blank" if alone else "the last character of its word"
            return (
                f"line {line}'s `\\` escapes the blank after it ({what}), and the comment "
                "after that ends the command",
                None,
            )
        if _CONTINUED.search(text):
            return f"line {line} ends in a comment (its `\\` is the comment's)", None
        return f"line {line} does not end in `\\` (it ends in a comment)", None
    if escaped is not None:  # (`--flag x \ # note`: no blank bash reads before the `#`)
        return (
            f"line {line}'s `\\` escapes the blank after it, so `{escaped.group(3)}` is read as "
            "words of the command, not a comment, and the line does not end in `\\`",
            None,
        )
    span = Span(line, end + 1, line, end + 1)
    fix = Fix(f"end line {line} with `\\`", (Edit(path, span, " \\"),), "unsafe")
    return f"line {line} does not end in `\\`", fix


def _prefix_cut(script: Script) -> Iterator[Finding]:
    """`PYTHONUNBUFFERED=1 \\` then `SGLANG_X=y` with no `\\`, then `python3 -m ...` on the
    next line: the assignments, one per line and continued as a command's environment is, end
    on their own, so they set shell variables and the program below runs without them. Not
    where the script exports them (`set -a` before them, `export NAME`) or reads them anywhere
    (a shell variable may be meant), nor before a command that runs in the script's own shell
    (a function, `source`), or any but a program that is surely one (an engine, `python3`,
    `torchrun`, `srun`, ...: a name a sourced library defines may be a function)."""
    source = script.file
    commands = script.commands
    if _ALLEXPORT.search(source.text):
        return
    used: set[str] | None = None
    text_of = source.line_text
    reported: set[int] = set()  # (the programs named: one finding each, h108 W3)
    for index, command in enumerate(commands[:-1]):
        if command.words or not command.assignments or command.redirects:
            continue
        after: Command | None = commands[index + 1]
        if after is None or after.function != command.function:
            continue
        last = command.span.end_line
        if _CONTINUED.search(text_of(last).rstrip("\r")) and _code_after(source, last) > last + 1:
            # (the `\` ran into a comment: the program may come after other assignments and
            # the tests of an `if`, h105 M2)
            after = _next_program(source, commands, index + 1, command)
        if after is None or after.assignments or not after.words:
            continue  # (the cheap questions first: most scripts have many assignments)
        base = after.invocation.base or ""
        program = after.invocation.words[0].value if after.invocation.words else ""
        if not (base.startswith("python") or base in _PROGRAMS or "/" in program):
            continue
        if id(after) in reported:
            continue
        lines = sorted({a.span.line for a in command.assignments})
        if lines != list(range(command.span.line, last + 1)):
            continue  # (assignments on every line)
        # (the command on the line right after the last, or after comment or empty lines the
        # last one's `\` ran into: the first of them ended the block, t72a)
        gap = range(last + 1, after.span.line)
        if after is not commands[index + 1]:  # (up to the first line of code after the block)
            gap = range(last + 1, _code_after(source, last))
        if gap and not (
            _CONTINUED.search(text_of(last).rstrip("\r"))
            and all(not text_of(n).strip() or text_of(n).lstrip().startswith("#") for n in gap)
        ):
            continue
        if not gap and (last == command.span.line or len(command.assignments) < 2):
            continue  # (over lines, two assignments at least)
        if used is None:
            used = _mentioned(script)
        names = [a.name for a in command.assignments]
        if any(n in used for n in names):
            continue
        before = source.line_text(last).rstrip("\r")
        why, fix = _cut(source.path, last, before)
        if gap:  # (the `\` is there: the line after it ended the block)
            first = gap[0]
            kind = "the empty line" if not text_of(first).strip() else "the comment on line"
            why = f"{kind} {first} ends the command"
            fix = None
        reported.add(id(after))
        text = clip(first_line(script.text_of(after.node)), 50)
        shown = ", ".join(f"`{n}`" for n in names[:3]) + (" ..." if len(names) > 3 else "")
        yield Finding(
            "BL110",
            f"bash runs `{text}` without {shown} in its environment (unless its caller "
            f"exported them): {why}, so the assignments above it (from line "
            f"{command.span.line}) end there as shell variables of their own",
            Location(source.path, after.first_line_span),
            related=(
                Location(source.path, Span(last, 1, last, len(before) + 1), "ends the command"),
            ),
            subject=f"prefix@{names[-1]}",
            fix=fix,
        )


def _next_program(
    source: SourceText, commands: list[Command], start: int, block: Command
) -> Command | None:
    """The first command from `start` that runs a program, past commands that only assign
    names other than the block's (`X=...`, `export X=...`, `local x=...`, and the commands of
    a substitution in such a value) and the tests an `if` or a loop starts with (in the same
    function); None where another comes first."""
    names = {a.name for a in block.assignments}
    skipped: list[Command] = []  # (assignments passed over: the commands inside them too)
    for command in commands[start:]:
        if command.function != block.function:
            return None
        node = command.node
        if any(s.node.start_byte <= node.start_byte < s.node.end_byte for s in skipped):
            continue
        if any(a.name in names for a in command.assignments):
            return None
        if command.words and not (command.base in _DECLARING and command.assignments):
            if _starts_condition(source, command):
                continue  # (`if python3 -c "import x"; then`: not the program meant, h106 W3)
            return command
        if command.redirects:
            return None
        skipped.append(command)
    return None


def _starts_condition(source: SourceText, command: Command) -> bool:
    """Whether the command is the first of an `if`'s, `elif`'s or a loop's test (what stands
    before it on its line is that keyword alone, and a `!`)."""
    span = command.span
    before = source.line_text(span.line)[: span.column - 1].split()
    return bool(before) and before[0] in _TESTS and all(w == "!" for w in before[1:])


_TESTS = frozenset({"if", "elif", "while", "until"})


_DECLARING = frozenset({"export", "local", "declare", "typeset", "readonly"})


def _code_after(source: SourceText, line: int) -> int:
    """The first line after `line` that is neither empty nor a comment."""
    number = line + 1
    while number <= source.line_count:
        text = source.line_text(number).strip()
        if text and not text.startswith("#"):
            return number
        number += 1
    return number


# `set -a` / `set -o allexport`: every assignment after it is exported
_ALLEXPORT = lazy_compile(r"\bset\s+(?:-[A-Za-z]*a[A-Za-z]*\b|-o\s+allexport\b)")
# programs an environment is written for (not a function a sourced library may define)
_PROGRAMS = frozenset(
    {"torchrun", "accelerate", "deepspeed", "mpirun", "srun", "sbatch", "docker", "numactl"}
    | {"taskset", "nsys", "vllm", "trtllm-serve", "sglang", "lm_eval", "exec", "env", "nohup"}
    | {"bash", "sh", "dynamo", "aiperf", "genai-perf"}
)


def _mentioned(script: Script) -> set[str]:
    """The names the script's text mentions other than as an assignment's name (`$TP`, `TP` in
    `$((TP*DP))`, `[[ -v TP ]]`, `export TP`, a heredoc's `$TP`): read as text, every form
    bash has of reading a name counts (t72a); an indirect read (`${!v}`) may be any name, as
    may an export of names not known (`export $(... .env ...)`)."""
    text = script.file.text
    dynamic = any(a.kind == "dynamic" and a.exported for a in script.assignments)
    if "${!" in text or dynamic:  # (`export $(grep -v '^#' .env | xargs)`: any name)
        return {a.name for a in script.assignments}
    found = set()
    for match in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", text):
        if (
            text[match.end() : match.end() + 1] != "="
            and text[match.end() : match.end() + 2] != "+="
        ):
            found.add(match.group())
    return found


def _checked_by(before: Command | None, command: Command) -> str | None:
    """The validator whose list of names a command continues (`check_env_vars MODEL TP` then
    `    EP_SIZE \\` on the next line: names, written as variables are, `EP_SIZE`): its name."""
    if (
        before is None
        or before.base not in VALIDATORS
        or before.function != command.function
        or command.assignments
        or not command.words
    ):
        return None
    # (the next line, or after comment lines: a comment ends the command, its `\\` too)
    between = range(before.span.end_line + 1, command.span.line)
    source = command.script.file
    if between and (
        command.script.parent is not None
        or not all(source.line_text(n).lstrip().startswith("#") for n in between)
    ):
        return None
    names = all(w.static and _VARIABLE.fullmatch(w.value) for w in command.words)
    return before.base if names else None


# a variable's name as a validator's list writes it (upper case: no command is named so)
_VARIABLE = lazy_compile(r"[A-Z_][A-Z0-9_]*")


def _finding(source: SourceText, command: Command, validator: str | None = None) -> Finding | None:
    name = command.words[0].value if validator is not None else _flag_word(command)
    if name is None:
        return None
    line = command.span.line
    start = source.line_text(line).lstrip()
    if line < 2 or not (start.startswith("-") or start.startswith(name)):
        return None  # (the flag after something else on its line)
    before = source.line_text(line - 1).rstrip("\r")
    stripped = before.strip()
    if _CONTINUED.search(before) and _comment_start(before) is None:
        return None  # bash continues the line: the model misread it (a comment's `\` is text)
    text = clip(first_line(command.script.text_of(command.node)), 50)
    fix = None
    ends = line - 1  # (the line that ends the command, which the message names)
    if not stripped or stripped.startswith("#"):
        # (of the empty and comment lines between, the first, where the line before it
        # continues the command into it: it ends the command; where that line does not
        # continue, that line ended it: h89 W5)
        first = line - 1
        while first > 1 and source.line_text(first - 1).strip()[:1] in ("", "#"):
            first -= 1
        above = source.line_text(first - 1).rstrip("\r") if first > 1 else "\\"
        if _CONTINUED.search(above) and _comment_start(above) is None:
            kind = "the comment on line" if source.line_text(first).strip() else "the empty line"
            why, ends = f"{kind} {first} ends the command", first
        else:
            why = f"line {first - 1} ends the command (it does not end in `\\`)"
            ends = first - 1
    else:
        why, fix = _cut(source.path, line - 1, before)
    held = _held_flag(command) if name.startswith("$") else None
    if held is not None:  # (`$DIST_FLAG`, its values a flag string or empty: h38 W1)
        missing = (
            f"{clip(held, 40)}: command not found, where `{clip(name, 40)}` holds a flag; "
            "where it is empty, the word after it is run instead"
        )
    elif name.lstrip('"').startswith("${"):  # (an array's elements)
        missing = "its first flag, or the word after it, is no command"
    else:  # (bash's own words; clipped as the text is, where it starts the text: h88 W4)
        missing = f"{clip(name, 50)}: command not found"
    above = (
        f"`{validator}` never checks the names on this line and those after it"
        if validator is not None
        else "the command above runs without this line's options and those after it"
    )
    return Finding(
        "BL110",
        f"bash runs `{text}` as a command of its own ({missing}): {why}, so {above}",
        Location(source.path, command.first_line_span),
        related=(Location(source.path, _line_span(source, ends), "ends the command"),),
        subject=f"{name}@{clip(stripped, 40)}",
        fix=fix,
    )


def _line_span(source: SourceText, line: int) -> Span:
    """The whole of a line, as a related location shows it."""
    return Span(line, 1, line, len(source.line_text(line).rstrip("\r")) + 1)
