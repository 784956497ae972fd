"""`"${VAR:-'x'}"`, `"${VAR:-~/x}"`: inside double quotes, the default keeps quotes and `~`.

## What it does
Reports a parameter expansion that is a whole double-quoted string (or the whole default of
one that is: `"${A:-${B:-'x'}}"`) and whose default, alternative or assigned value
(`${VAR:-word}`, `${VAR-word}`, `${VAR:=word}`, `${VAR:+word}` and their forms without `:`; of a
variable, an array's element, a positional parameter, `$@`, `$*`) is written whole in single
quotes (`"${1:-'Qwen/Qwen2.5-0.5B-Instruct'}"`),
where the value is data: an assignment's value or an argument of a command, not of `echo` or
`printf` (a message), nor of a function of the script or of a file it sources (what it does
with the text is not looked at), nor text a shell reads again (`eval`, `trap`, the string of a
shell's `-c`, behind wrappers too, `ssh`'s remote command), where the second reading removes
the quotes. The script's text is read as bash reads it
(`benchlint.shell.braces`).

The same for a default that starts with `~` (`"${HF_BIN:-~/.local/bin/hf}"`, `"${D:-~}/x"`)
where the value is taken as a path as it is written: the command a word runs, a redirection's
target, an argument of `cd` or `source`, a file test's operand (`test -d`) or an argument of
a program that makes, reads or moves files (`mkdir`, `cp`, `ls`, ...), a bind mount's source
(`docker run -v "${HF_HOME:-~/.cache/huggingface}:/root/..."`: docker expands no `~` and reads
the source as a volume name, which may hold no `/`), or the value of an assignment whose
`$NAME` starts such a word later in the script.

## Why is this bad?
Inside double quotes, single quotes are plain characters, and bash keeps them in the word of
these forms (it removes them only in a pattern, `"${X#'a'}"`): with VAR unset, the value is
`'Qwen/Qwen2.5-0.5B-Instruct'`, quotes included. The model path the engine or the downloader
then gets names nothing, or the flag `"${TP:+'--enable-expert-parallel'}"` gives is no flag. The
script works in every run that sets VAR; the first run that relies on the default fails.
Likewise bash expands a `~` that starts the word of `${VAR:-~/x}` to the home folder only
outside double quotes: inside them the value is `~/x`, a path into a folder named `~` of the
folder the script runs in (`mkdir -p` makes one there; a command run through it is not found).

## Example
```bash path=train.sbatch
#!/bin/bash
MODEL="${1:-'Qwen/Qwen2.5-0.5B-Instruct'}"
vllm serve "$MODEL"
```

## Use instead
```bash path=train.sbatch
#!/bin/bash
MODEL="${1:-Qwen/Qwen2.5-0.5B-Instruct}"
vllm serve "$MODEL"
```

## Exceptions
Not reported: an unquoted expansion (`${1:-'Qwen/x'}`: bash removes the quotes); a word with
anything outside its single quotes (`"${X:-'a'b}"`), an empty one (`''`); `${X:?'message'}`
(a message); one in a longer double-quoted text (`log "Registry: ${REGISTRY:-'not set'}"`,
most often a message); one in a heredoc body; the arguments of `echo` and `printf` and of the
script's own functions; an assignment whose variable the script reads only where its value
lands in text a shell reads again (`bash -c "vllm serve $MODEL"`, `eval`: the inner shell
removes the quotes; not a single-quoted `-c` string, whose shell expands the variable itself and
keeps them). A `~` default is not reported where the value goes to another program
(it may expand `~` itself: Python's `expanduser`), where the script rewrites it
(`${D/#\\~/$HOME}`, `eval`) or assigns the variable again, or for `~user`.

## Fix safety
The fix drops the single quotes, where the text between them holds nothing double quotes give
a meaning to (`$`, a backquote, `\\`, `"`, `}`), or writes `$HOME` for the `~`: unsafe
(applied with `--unsafe-fixes`), as the value the script gives changes (to the one the author
meant). Where the text holds one, no fix is offered: without the quotes a `}` would end the
expansion (BL108); the help says to give the default a variable of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from benchlint.context import Context
from benchlint.finding import Edit, Finding, Fix, Location, Severity, clip
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.shell.braces import BraceExpansion, expansions
from benchlint.shell.model import Command, Script, Word

# a default's operator and a word that opens with a single quote or a `~`: most scripts have none
_CANDIDATE = lazy_compile(r"\$\{(?:[A-Za-z_]\w*(?:\[[^\]\n]*\])?|\d+|[@*]):?[-=+]['~]")
_WHOLE = lazy_compile(r"'([^']+)'")
# a default that names the home folder: `~` or `~/...` (not `~user`)
_HOME = lazy_compile(r"~(?:/.*)?", re.S)
# what takes a path as it is written, `~` included (none of them expands it): bash's own
# builtins, and the programs that make, read or move files
_FILE_TEST = lazy_compile(r"-[abcdefghkprsuwxLOGNS]\Z")
_PATH_TAKERS = frozenset(
    {
        *("cd", "pushd", "source", ".", "test", "[", "[["),
        *("mkdir", "rmdir", "touch", "ls", "cat", "cp", "mv", "rm", "ln", "tee", "chmod"),
        *("chown", "stat", "du", "realpath", "readlink"),
    }
)
_KEEPS = frozenset({":-", "-", ":=", "=", ":+", "+"})
_MESSAGES = frozenset({"echo", "printf"})
_REREAD = frozenset({"eval", "trap"})
# ssh's options that take a value (`-i key`, `-p 22`, ...)
_SSH_VALUED = frozenset(
    {
        "-b",
        "-c",
        "-D",
        "-E",
        "-e",
        "-F",
        "-I",
        "-i",
        "-J",
        "-L",
        "-l",
        "-m",
        "-O",
        "-o",
        "-p",
        "-Q",
        "-R",
        "-S",
        "-W",
        "-w",
    }
)
_SHELLS = frozenset({"bash", "sh", "dash", "zsh"})
_PLAIN = lazy_compile(r'[^$`\\"}]*')


def dquoted_value(word: str) -> str | None:
    """The value bash gives the word of `${X:-WORD}` inside double quotes, where it expands
    nothing: a `"` is removed, a backslash before `"`, `\\`, `}`, `$` or a backquote is
    removed, a single quote is kept (as every other character). None where it holds a `$` or
    a backquote that is not escaped (an expansion: its value is not read here)."""
    value: list[str] = []
    index = 0
    while index < len(word):
        char = word[index]
        if char == "\\" and index + 1 < len(word):
            following = word[index + 1]
            if following == "\n":  # (a line continued: both removed)
                index += 2
                continue
            value.append(following if following in '"\\}$`' else char + following)
            index += 2
            continue
        if char in "$`":
            return None
        if char != '"':
            value.append(char)
        index += 1
    return "".join(value)


@script_rule(
    "BL117",
    "quoted-default-kept",
    Severity.WARNING,
    tags=("shell", "correctness"),
    precision="high",
)
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    source, path = script.file, script.path
    text = source.text
    if not _CANDIDATE.search(text):
        return
    found = expansions(text)
    # (an expansion that is the whole word of another's default: `${A:-${B:-'x'}}`)
    enclosing = {(e.word, e.end - 1): e for e in found if e.operator in _KEEPS}
    for expansion in found:
        if expansion.context != "dquote" or expansion.operator not in _KEEPS:
            continue
        word = text[expansion.word : expansion.end - 1]
        inner = _WHOLE.fullmatch(word)
        home = _HOME.fullmatch(word) is not None
        if inner is None and not home:
            continue
        outer = expansion
        while (outer.start, outer.end) in enclosing:
            outer = enclosing[(outer.start, outer.end)]
        if text[outer.start - 1 : outer.start] != '"':
            continue  # (in a longer text: a message, `"Registry: ${R:-'not set'}"`)
        if inner is not None and text[outer.end : outer.end + 1] != '"':
            continue  # (a `~` starts the path the rest of the text goes on: `"${D:-~}/x"`)
        command = _command_at(
            script, len(text[: expansion.start].encode("utf-8", "surrogateescape"))
        )
        if command is not None and _not_data(ctx, script, command, expansion.start):
            continue
        if inner is not None and command is not None and _reread_only(script, command, expansion):
            continue
        written = text[expansion.start : expansion.end]
        name = expansion.name
        name = f"${name}" if name.isdigit() or name in "@*" else name  # (`$1`, `$@`)
        when = (
            "set and not empty"
            if expansion.operator == ":+"
            else (
                "set"
                if expansion.operator == "+"
                else ("unset or empty" if expansion.operator.startswith(":") else "unset")
            )
        )
        if inner is None:
            use = _path_use(script, command, outer.start) if command is not None else None
            if use is not None:
                yield _home_finding(script, expansion, name, when, use)
            continue
        plain = inner.group(1)
        fix = None
        value = dquoted_value(word)
        gives = (
            f"`{clip(value, 50)}`, quotes included"
            if value is not None
            else "its text with the quotes (and what its expansions give)"
        )
        if _PLAIN.fullmatch(plain):
            fix = Fix(
                "drop the single quotes",
                (Edit(path, source.span(expansion.word, expansion.end - 1), plain),),
                "unsafe",
            )
            help = f"drop them: `{clip(written.replace(word, plain), 60)}`"
        else:  # (without them, a `}` in it would end the expansion, a `"` would be removed)
            help = (
                f"give the default a variable of its own in single quotes (`DEFAULT={word}`) "
                f"and write `${{{expansion.name}{expansion.operator}$DEFAULT}}`: dropping the "
                'quotes here leaves text bash reads in it (`}`, `"`, `$`, `\\`)'
            )
        yield Finding(
            "BL117",
            f"inside double quotes bash keeps the single quotes of `{clip(written, 60)}`: "
            f"with {name} {when}, it gives {gives}",
            Location(path, source.span(expansion.start, expansion.end)),
            help=help,
            subject=written,
            fix=fix,
        )


def _home_finding(
    script: Script, expansion: BraceExpansion, name: str, when: str, use: tuple[Word, str]
) -> Finding:
    """A default that starts with `~` in double quotes, and a place its value is taken as a
    path (`use`: the word, and what it is there)."""
    source, path = script.file, script.path
    start, end, at = expansion.start, expansion.end, expansion.word  # (`at`: the `~`)
    written = source.text[start:end]
    word, role = use
    if (
        start < script.char_of(word.node.end_byte - 1)
        and script.char_of(word.node.start_byte) < end
    ):
        taken = f"it is {role}"
    else:
        shown = clip(" ".join(script.text_of(word.node).split()), 40)
        taken = f"`{shown}` on line {word.span.line} is {role}"
    gives = (
        "the source starts with `~`, which docker does not expand either: it reads it as a "
        "volume name, which may hold no `/`, and the run stops before the container starts"
        if role.startswith("a bind mount's source")
        else "the path it gives starts with a folder named `~` in the folder the script runs "
        "in, not the home folder"
    )
    return Finding(
        "BL117",
        f"inside double quotes bash does not expand the `~` of `{clip(written, 60)}`: with "
        f"{name} {when}, {gives} ({taken})",
        Location(path, source.span(start, end)),
        related=(Location(path, word.span, "where the path is used"),),
        help="write `$HOME` for it (bash expands it inside double quotes)",
        subject=written,
        fix=Fix("write $HOME for ~", (Edit(path, source.span(at, at + 1), "$HOME"),), "unsafe"),
    )


def _path_use(script: Script, command: Command, at: int) -> tuple[Word, str] | None:
    """Where the value of the double-quoted word starting at `at` (a character of the file)
    is taken as a path, as it is written, and what it is there: the word is a command's name,
    a redirection's target or an argument of a program of `_PATH_TAKERS`; or it is the value of
    an assignment and `$NAME` starts such a word later in the script, no `${NAME/#\\~/...}`
    or `eval` rewriting it."""
    index = _word_at(script, command.words, at)
    if index is not None:
        word = command.words[index]
        role = _role(command, index) if _starts(script, word, at) else None
        return (word, role) if role is not None else None
    for redirect in command.redirects:
        if _starts(script, redirect.target, at):
            return redirect.target, "a redirection's target"
    for assignment in command.assignments:
        value = assignment.value
        if value is None or not assignment.name or not _starts(script, value, at):
            continue
        again = [
            a
            for c in script.commands
            for a in c.assignments
            if a.name == assignment.name and a is not assignment and not a.keeps_value
        ]
        if again:  # (which value a later `$NAME` holds is not followed)
            return None
        name = re.escape(assignment.name)
        rewritten = re.compile(rf"\$\{{{name}/#?\\?~|\beval\b[^\n]*\${{?{name}\b")
        if rewritten.search(script.file.text):
            return None
        reads = re.compile(rf"\$(?:{name}|\{{{name}\}})(?![\w\[])")
        later = [c for c in script.commands if c.node.start_byte > command.node.start_byte]
        for other in later:
            for i, word in enumerate(other.words):
                role = _role(other, i) if reads.match(word.value) else None
                if role is not None:
                    return word, role
            for redirect in other.redirects:
                if reads.match(redirect.target.value):
                    return redirect.target, "a redirection's target"
        return None
    return None


def _role(command: Command, index: int) -> str | None:
    """What the command's word at `index` is, where it is taken as a path as written (of
    `test` and `[`, the operand of a file test: `[ -d "$D" ]`, not a string compared)."""
    if index == 0:
        return "the name of the command it runs"
    if command.base in ("test", "["):
        before = command.words[index - 1]
        return "a file test's operand" if before.static and _FILE_TEST.match(before.value) else None
    before = command.words[index - 1]
    if command.base in _CONTAINER_RUNNERS and before.static and before.value in ("-v", "--volume"):
        # (`docker run -v "${HF_HOME:-~/.cache/huggingface}:/root/..."`: docker expands no
        # `~` in a bind mount's source, BL118's literal `-v "~/..."`: h134 M15)
        return f"a bind mount's source of `{command.base}`"
    return f"an argument of `{command.base}`" if command.base in _PATH_TAKERS else None


_CONTAINER_RUNNERS = frozenset({"docker", "podman", "nvidia-docker"})


def _starts(script: Script, word: Word, at: int) -> bool:
    """Whether the word starts with the double-quoted expansion at `at` (a character of the
    file): its text opens with the `"` before it."""
    return script.char_of(word.node.start_byte) in (at, at - 1)


def _not_data(ctx: Context, script: Script, command: Command, at: int) -> bool:
    """Whether the command takes the word at `at` (a character of the file) as a message or as
    code bash reads again: `echo`, `printf` (also behind `command`/`builtin`), a function of
    the script or of a file it sources (what it does with the text is not looked at), `eval`,
    `trap`; the command string of a shell's `-c` (behind wrappers too: `srun bash -lc`) or
    the remote command of `ssh` (t79a: the second reading removes the quotes; not another word
    of theirs, t80a)."""
    words = command.words
    values = [w.value if w.static else "" for w in words]
    while values and values[0] in ("command", "builtin"):
        values, words = values[1:], words[1:]
    base = values[0].rsplit("/", 1)[-1] if values else ""
    if base in _MESSAGES or base in _REREAD:
        return True
    index = _word_at(script, words, at)
    if index is not None and _reread(values, index):
        return True
    return base in ctx.environment.functions_at_end(script)


def _reread_only(script: Script, command: Command, expansion: BraceExpansion) -> bool:
    """Whether the expansion is an assignment's value (`MODEL="${MODEL:-'m'}"`) whose variable
    the script reads only where its value lands in text a shell reads again, which removes the
    quotes: `bash -c "vllm serve $MODEL"`, `eval`, `ssh` (h134 F4). Every `$NAME` written after
    the assignment must be such a read of this script's (not one a single-quoted string leaves
    to the inner shell, which keeps the quotes of the value it expands)."""
    at = len(script.file.text[: expansion.start].encode("utf-8", "surrogateescape"))
    owner = next(
        (
            a
            for a in command.assignments
            if a.value is not None and a.value.node.start_byte <= at < a.value.node.end_byte
        ),
        None,
    )
    if owner is None or not owner.name or _exported(script, owner.name):
        return False  # (an exported one reaches programs as it is: h140 R1)
    text = script.file.text
    written = [
        m.start()
        for m in re.finditer(r"\$\{?" + re.escape(owner.name) + r"(?![A-Za-z0-9_])", text)
        if m.start() >= expansion.end
    ]
    if not written:
        return False
    reread: set[int] = set()
    for other in script.commands:
        values = [w.value if w.static else "" for w in other.words]
        for index, word in enumerate(other.words):
            if values and (values[0] in _REREAD or _reread(values, index)):
                raw = script.text_of(word.node)
                start = script.char_of(word.node.start_byte)
                places = [script.char_of(r.node.start_byte) for r in word.reads()]
                reread |= {p for p in places if not _in_inner_quotes(raw, p - start)}
    return all(start in reread for start in written)


def _exported(script: Script, name: str) -> bool:
    """Whether the script exports the name (`export NAME=...`, `export NAME`, `declare -x`)."""
    return any(a.name == name and a.exported for a in script.assignments)


def _in_inner_quotes(raw: str, at: int) -> bool:
    """Whether the character `at` of a word written in double quotes lies inside `\\"...\\"`,
    a double-quoted string of the shell that reads the word again (`bash -c "vllm serve
    \\"$MODEL\\""`: there the value's single quotes stay; h140 R1)."""
    return raw[:at].count('\\"') % 2 == 1


def _word_at(script: Script, words: list[Word], at: int) -> int | None:
    """The index of the word whose text holds the character `at` of the file."""
    for index, word in enumerate(words):
        start = script.char_of(word.node.start_byte)
        end = script.char_of(word.node.end_byte - 1) + 1
        if start <= at < end:
            return index
    return None


def _reread(values: list[str], index: int) -> bool:
    """Whether the word at `index` is the string a shell's `-c` runs (`bash -lc WORD`, behind
    any wrapper), or a word of the command `ssh` gives the remote shell (after its host)."""
    for i in range(index):
        if values[i].rsplit("/", 1)[-1] in _SHELLS:
            option = values[i + 1] if i + 1 < index else ""
            if option.startswith("-") and "c" in option and i + 2 == index:
                return True
        if values[i].rsplit("/", 1)[-1] == "ssh":
            j = i + 1
            while j < index and values[j].startswith("-"):
                j += 2 if values[j] in _SSH_VALUED else 1
            return j < index  # (past the host: the remote command)
    return False


def _command_at(script: Script, at: int) -> Command | None:
    """The innermost command of the script whose text holds the byte `at`."""
    found: Command | None = None
    for command in script.commands:
        node = command.node
        if node.start_byte <= at < node.end_byte and (
            found is None
            or node.end_byte - node.start_byte < found.node.end_byte - found.node.start_byte
        ):
            found = command
    return found
