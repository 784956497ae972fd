"""A `$NAME` bash leaves as text (a URL, a request body) or runs as a command (`$(NAME)`).

## What it does
Reports a `$NAME` (or `${NAME}`) that bash does not expand, in an argument that is a URL
(`http://0.0.0.0:\\$PORT`, `--base-url='http://0.0.0.0:$PORT'`): escaped with a backslash, or inside
single quotes, where NAME is a variable the script sets or reads elsewhere. Commands that hand their
arguments to something that expands them later are left alone: `eval`, a shell's `-c` string (`bash
-c`, `ssh`, `flock -c`, `sbatch --wrap`, `find -exec sh -c`, `su -c`, `watch` without `-x`, GNU
`parallel`, a command `tmux` or `screen` is given as one string), `trap` and `alias` (expanded when
the trap runs or the alias is used), `echo`, `printf`, `cat` and `tee` (which write scripts and
templates), `sed`, `awk`, `perl`, `jq`, `envsubst`, `python -c`.

So is one that is a whole string value of a request body `curl` sends (`-d '{"model":
"${model_name}"}'`, `--data-raw`, `--json`), or a form field's whole value (`-F
'model=${model_name}'`, `-d 'n=1&model=$M'`): the server gets a model named `${model_name}` and
answers 404 (not a key, `"$ref":`, nor a `$` inside other text, which the program that gets it may
expand: a Ray job's entrypoint, a GraphQL query). A quoted heredoc `-d @-` reads (`<<'JSON'`),
wget's `--post-data` and `--body-data` too, and a
body held in a variable (`-d "$body"`) the script writes once in single quotes and hands to nothing
but curl, wget and a plain `echo` (not to `envsubst` or another assignment, which may fill it in):
reported where it is written. And `$(PROXY_PORT)` written for `${PROXY_PORT}`
(an upper-case name the script sets, no function of it): bash runs a command of that name, `command
not found`, and puts nothing in its place (`lsof -t -i:` then frees no port).

A URL the program gets with quotes around it is reported too (`--base-url=\\"http://localhost:$PORT\\"`,
`'"http://..."'`): bash removes only quotes it reads as quoting.

## Why is this bad?
The program gets the text `$PORT`: no tool expands variables inside its arguments, so the
benchmark client sends its requests to `http://0.0.0.0:$PORT` (an invalid port) and fails, or
a readiness probe never succeeds and waits out its time. The backslash is usually left over
from a command that was moved out of a `bash -c "..."` string, where it was needed.
InferenceX fixed both shapes in its benchmark clients' `--base-url`.

## Example
```bash path=benchmarks/dsr1_mi325x.sh
vllm serve "$MODEL" --port "$PORT" &
python3 bench_serving/benchmark_serving.py --model "$MODEL" --base-url http://0.0.0.0:\\$PORT
```

## Use instead
```bash path=benchmarks/dsr1_mi325x.sh
vllm serve "$MODEL" --port "$PORT" &
python3 bench_serving/benchmark_serving.py --model "$MODEL" --base-url http://0.0.0.0:$PORT
```

## Exceptions
Only URLs (an argument with `://` before the `$`) and curl's request bodies are read: elsewhere a
literal `$` is often meant (a regular expression, a template, a price). Not reported: a name the
script neither sets nor reads, an argument of the commands above, words in a `bash -c` string (the
string's shell expands them; its own quoting is the outer script's), assignments (but a request
body's, above), `$'...'` strings.

## Fix safety
The backslash is removed, or the single quotes become double quotes (where the quoted text
holds no `"`, `\\`, backquote or other `$`): unsafe, as the program then gets another
argument (the one meant).
"""

from __future__ import annotations

import bisect
import posixpath
from collections.abc import Iterator

from benchlint.context import Context
from benchlint.finding import Edit, Finding, Fix, Location, Severity, clip
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.shell.model import Command, Script, Word
from benchlint.source import SourceText

# commands that hand their arguments to a program that expands `$NAME` itself, or write text
_EXPANDING = frozenset(
    {"eval", "echo", "printf", "cat", "tee", "sed", "awk", "gawk", "mawk", "perl", "jq", "yq"}
    | {"envsubst", "ssh", "bash", "sh", "zsh", "dash", "ksh", "export", "declare", "local"}
    # a string a shell expands later: when the trap runs or the alias is used (this shell,
    # bash 5.2: the value then), or the command line GNU parallel gives a shell
    | {"trap", "alias", "parallel"}
)
# programs that run one option's value as a shell's command string: `flock LOCK -c CMD`,
# `su USER -c CMD` (`sbatch --wrap=CMD`: a wrapper, below; `find -exec sh -c CMD`, `watch`
# without `-x`: `_runs_code`)
_CODE_OPTIONS = {
    "flock": ("-c", "--command"),
    "su": ("-c", "--command"),
    "runuser": ("-c", "--command"),
}
# programs that give a shell a command given as one string (`tmux new-session 'curl ...'`), and
# run one given as several words without one (h131 M3)
_ONE_STRING = frozenset({"tmux", "screen"})
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})
_NAME = lazy_compile(r"\{?([A-Za-z_][A-Za-z0-9_]*)")
_SCHEME = lazy_compile(rb"://")
# a URL with a `$` after its scheme (before a blank)
_URL_DOLLAR = lazy_compile(r"://\S*\$")
_SCHEME_NAME = lazy_compile(r"[a-z][a-z0-9+.-]*\Z")
# a word whose value is a URL (an option's, after `=`) inside quotes the program gets
_QUOTED_URL = lazy_compile(r"(?:-{1,2}[A-Za-z0-9_-]+=)?([\"'])[a-z][a-z0-9+.-]*://[^\"'\s]*\1")


@script_rule("BL113", "unexpanded-variable", Severity.ERROR, tags=("shell", "correctness"))
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    if "$(" in script.file.text:
        yield from _substituted_names(script)
    if not _candidate(script.file.text):
        return
    used: set[str] | None = None
    held: set[int] = set()  # the assignments of bodies in variables reported
    urls = [m.start() for m in _SCHEME.finditer(script.src)]  # (bytes: the nodes' offsets)
    for command in script.commands:  # (a nested script's words: its shell expands them)
        if command.invocation.base in ("curl", "wget"):
            used = _names_used(script) if used is None else used
            yield from _request_bodies(command, used, held)
        if not _holds(urls, command.node.start_byte, command.node.end_byte):
            continue
        if command.invocation.base in _EXPANDING or _runs_code(command):
            continue
        if any(w.name == "ssh" for w in command.invocation.wrappers):
            continue
        for word in command.words[1:]:
            if not _holds(urls, word.node.start_byte, word.node.end_byte):
                continue
            if command.invocation.base in _ONE_STRING and any(c.isspace() for c in word.value):
                continue  # (a command given as one string: its shell expands it)
            text = script.text_of(word.node)
            if _QUOTED_URL.fullmatch(word.value):
                yield _quoted(command, word)
                continue
            if "$" not in text:
                continue
            literal = [found for found in _literal_dollars(text) if "://" in text[: found[0]]]
            if not literal:
                continue
            if used is None:
                used = _names_used(script)
            for at, name, how in literal:
                if name in used:
                    yield _finding(command, word, text, at, name, how)
                    break


def _substituted_names(script: Script) -> Iterator[Finding]:
    """`$(PROXY_PORT)` where `${PROXY_PORT}` was meant (t71b, Mooncake's benchmarks.sh: `lsof
    -t -i:$(PROXY_PORT) | xargs kill` frees no port): a command substitution whose command is
    an upper-case name the script assigns, not a function of it: bash runs a command of that
    name (`command not found`) and puts nothing in its place."""
    assigned = {a.name: a for a in script.assignments}
    src = script.src
    for command in script.commands:
        words = command.words
        if len(words) != 1 or command.assignments or command.redirects or not words[0].static:
            continue
        name = words[0].value
        if not _UPPER_NAME.fullmatch(name) or name not in assigned or name in script.functions:
            continue
        start, end = command.node.start_byte, command.node.end_byte
        if not src[:start].rstrip().endswith(b"$(") or not src[end:].lstrip().startswith(b")"):
            continue
        opened = src.rindex(b"$(", 0, start)
        closed = src.index(b")", end) + 1
        source = script.file
        begin, stop = script.char_of(opened), script.char_of(closed)
        where = assigned[name].span.line
        yield Finding(
            "BL113",
            f"`$({name})` runs a command named `{name}` (command not found) and gives nothing "
            f"where `${{{name}}}`, the variable set on line {where}, was meant",
            Location(script.path, source.span(begin, stop)),
            subject=f"substituted:{name}",
            fix=Fix(
                f"write `${{{name}}}`",
                (Edit(source.path, source.span(begin, stop), f"${{{name}}}"),),
                "unsafe",
            ),
        )


# a name no command has: upper case (with digits and `_`), two characters at least
_UPPER_NAME = lazy_compile(r"[A-Z_][A-Z0-9_]+")


def _request_bodies(command: Command, used: set[str], held: set[int]) -> Iterator[Finding]:
    """`curl ... -d '{"model": "${model_name}"}'`: a JSON string value of the request body that
    is the text `$NAME` itself (t70c, srt-slurm): the server gets a model named `${model_name}`,
    and answers 404. Only a whole string value (not a key, `"$ref":`; not a `$` inside other
    text, `"python x.py --port $PORT"` or a GraphQL `query($id: ID!)`, which another program may
    expand: t72a); a form field's whole value too (`-F 'model=${model_name}'`, `-d
    'model=$M&n=1'`). Also a body held in a variable the script assigns in single quotes (`-d
    "$body"`), and wget's `--post-data`/`--body-data` (t72a)."""
    words = command.invocation.args
    base = command.invocation.base
    for before, word in zip((None, *words), words, strict=False):
        start = _body_start(base, before, word)
        if start is None:
            continue
        if word.value in ("@-", "@/dev/stdin") and start == 0:  # (`-d @- <<'JSON'`)
            yield from _heredoc_body(command, used)
            continue
        variable = word.variable()
        if variable is not None:  # (`-d "$body"`: the body an assignment wrote)
            yield from _held_body(command, variable, used, held)
            continue
        text = command.script.text_of(word.node)
        found = _body_value(text, start, used)
        if found is not None:
            yield _finding(command, word, text, *found, "request body")


def _body_start(base: str | None, before: Word | None, word: Word) -> int | None:
    """Where a request body starts in the word's text: 0 for the value of a body option before
    it, past the option where it is attached (curl's `-d'{...}'`, wget's `--post-data=...`);
    None for another word."""
    options = _CURL_DATA if base == "curl" else _WGET_DATA
    if before is not None and before.value in options:
        return 0
    if base == "curl" and word.value[:2] in ("-d", "-F") and len(word.value) > 2:
        return 2
    option = word.value.split("=", 1)[0]
    if base == "wget" and "=" in word.value and option in _WGET_DATA:
        return len(option) + 1
    return None


def _body_value(text: str, start: int, used: set[str]) -> tuple[int, str, str] | None:
    """The first `$NAME` bash leaves as text in a body (the word's text from `start`) that is
    a whole JSON string value or form field value, NAME one the script uses."""
    for at, name, how in _literal_dollars(text):
        if (
            at >= start
            and name in used
            and (_string_value(text, at, name) or _field(text, at, name))
        ):
            return at, name, how
    return None


def _held_body(command: Command, name: str, used: set[str], held: set[int]) -> Iterator[Finding]:
    """`curl -d "$body"` where the script assigns `body='{"model": "${model_name}"}'`: each
    assignment of the name whose value holds such a `$NAME`, reported where it is written (once
    for all the commands that send it). Only a body the script writes once and hands to nothing
    but `curl`, `wget` and a plain `echo`/`printf` (not `envsubst`, `sed`, another assignment:
    a template another program fills in)."""
    top = command.script.top
    if not _sent_only(top, name):
        return
    for script in top.walk():
        for assignment in script.assignments:
            value = assignment.value
            if assignment.name != name or value is None or value.node.start_byte in held:
                continue
            text = script.text_of(value.node)
            found = _body_value(text, 0, used - {name})
            if found is not None:
                held.add(value.node.start_byte)
                through = f"`${name}`, line {command.span.line}"
                yield _finding(command, value, text, *found, "request body", through)


def _heredoc_body(command: Command, used: set[str]) -> Iterator[Finding]:
    """`curl -d @- <<'JSON'`: the request body a quoted heredoc feeds the command (t72a), its
    first JSON string value that is a `$NAME` the script uses: bash expands nothing in it."""
    script = command.script
    source = script.file
    for heredoc in command.heredocs:
        if not heredoc.quoted or heredoc.body is None:
            continue
        text, offsets = heredoc.value(heredoc.body, script)
        for match in _DOLLAR_NAME.finditer(text):
            at, name = match.start(), match.group(1)
            if name not in used or not _string_value(text, at, name):
                continue
            start = offsets[at]
            shown = clip(" ".join(text.split()), 60)
            written = _as_written(text, at, name)
            yield Finding(
                "BL113",
                f"`{_program(command)}` gets the text `{written}` in `{shown}`: bash expands "
                "nothing in a heredoc whose word is quoted, so the request body it sends holds "
                "the name as written, not the value",
                Location(script.path, source.span(start, start + len(written))),
                subject=f"{name}@{shown}",
                help=f"write the heredoc's word unquoted (`<<JSON`): bash then expands `{written}`",
            )
            break


# a `$NAME` or `${NAME}` in a text (`_NAME` after its `$`)
_DOLLAR_NAME = lazy_compile(r"\$" + _NAME.pattern)


def _sent_only(script: Script, name: str) -> bool:
    """Whether the script assigns the name once and reads it only in request-sending commands
    and in an `echo`/`printf` that prints it (not piped, not redirected)."""
    if sum(a.name == name for s in script.walk() for a in s.assignments) != 1:
        return False
    for command in script.all_commands():
        if any(r.name == name for a in command.assignments if a.value for r in a.value.reads()):
            return False
        if not any(r.name == name for w in command.words for r in w.reads()):
            continue
        base = command.invocation.base
        if base in ("echo", "printf") and not command.piped and not command.redirects:
            continue
        if base not in ("curl", "wget"):
            return False
    return True


def _string_value(text: str, at: int, name: str) -> bool:
    """Whether the `$NAME` at `at` is a JSON string value on its own: `"$NAME"` or
    `"${NAME}"`, with no `:` after it (a key)."""
    end = _name_end(text, at, name)
    if end < 0 or text[at - 1 : at] != '"' or text[end : end + 1] != '"':
        return False
    return not text[end + 1 :].lstrip().startswith(":")


def _field(text: str, at: int, name: str) -> bool:
    """Whether the `$NAME` at `at` is a form field's whole value: `model=${NAME}` at the
    body's start or after `&`, ending the field (`&`, `;type=...`, the quote's end)."""
    end = _name_end(text, at, name)
    if end < 0 or _FIELD.search(text[:at]) is None:
        return False
    return text[end : end + 1] in ("", "'", '"', "&", ";")


def _name_end(text: str, at: int, name: str) -> int:
    """Where the `$NAME` (or `${NAME}`) at `at` ends; -1 for a `${` never closed."""
    if text[at + 1 : at + 2] == "{":
        end = text.find("}", at) + 1
        return end if end > 0 else -1
    return at + 1 + len(name)


# a form field's name and `=` ending the text, at the body's start (after its quote, an
# attached `-d`/`-F`, `--post-data=`) or after `&`
_FIELD = lazy_compile(r"(?:^(?:-[dF]|--[a-z-]+=)?['\"]?|&)[A-Za-z_][A-Za-z0-9_.\[\]-]*=\Z")

# curl's options whose value is the request's body (curl takes no `--data=...`), a form's field
_CURL_DATA = frozenset(
    {"-d", "--data", "--data-raw", "--data-binary", "--data-ascii", "--data-urlencode", "--json"}
    | {"-F", "--form", "--form-string"}
)
# wget's (`--post-data STRING` or `--post-data=STRING`)
_WGET_DATA = frozenset({"--post-data", "--body-data"})


def _candidate(text: str) -> bool:
    """Whether the script may hold a finding: a URL with a `$` after its scheme, or a URL
    after a quote that may be escaped (`\\"http://`) or inside other quotes (`'"http://`); or
    a `curl` or `wget` (its request body)."""
    if "curl" in text or "wget" in text:
        return True
    if "://" not in text:
        return False
    if _URL_DOLLAR.search(text):
        return True
    at = text.find("://")
    while at >= 0:
        scheme = _SCHEME_NAME.search(text, max(0, at - 12), at)
        start = scheme.start() if scheme else at
        if start >= 2 and text[start - 1] in "\"'" and text[start - 2] in "\\\"'":
            return True
        at = text.find("://", at + 3)
    return False


def _holds(positions: list[int], start: int, end: int) -> bool:
    """Whether one of the sorted positions is in [start, end)."""
    at = bisect.bisect_left(positions, start)
    return at < len(positions) and positions[at] < end


def _runs_code(command: Command) -> bool:
    """`python -c CODE`, `node -e CODE`: the argument is a program of its own; `flock -c
    CMD`, `sbatch --wrap=CMD`, `find -exec sh -c CMD`: a shell's command string (h127 F4)."""
    base = command.invocation.base or ""
    if base.startswith("python") or base in ("node", "ruby"):
        return any(w.value in ("-c", "-e") for w in command.invocation.args)
    if any(w.name == "sbatch" and w.has("--wrap") for w in command.invocation.wrappers):
        return True
    args = [w.value for w in command.invocation.args]
    if base == "watch":  # (`watch CMD...` joins its words for `sh -c`; `-x` runs them itself)
        return not any(a in ("-x", "--exec") or a.startswith("-x") for a in args)
    if base == "find":  # (`-exec sh -c CMD \;`; not `-exec curl URL \;`, run as it is)
        return any(
            a in ("-exec", "-execdir", "-ok", "-okdir")
            and posixpath.basename(args[i + 1] if i + 1 < len(args) else "") in _SHELLS
            and "-c" in args[i + 2 : i + 3]
            for i, a in enumerate(args)
        )
    options = _CODE_OPTIONS.get(base, ())
    return any(a.split("=", 1)[0] in options for a in args)


def _literal_dollars(text: str) -> list[tuple[int, str, str]]:
    """Each `$NAME` of a word's text that bash leaves as text: (index of the `$`, NAME, how:
    "escaped" or "single-quoted"). None found in a word with `$'...'` (not read)."""
    found: list[tuple[int, str, str]] = []
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        if quote == "'":
            if c == "'":
                quote = ""
            elif c == "$":
                name = _NAME.match(text, i + 1)
                if name:
                    found.append((i, name.group(1), "single-quoted"))
            i += 1
            continue
        if c == "\\":
            if text[i + 1 : i + 2] == "$":
                name = _NAME.match(text, i + 2)
                if name:
                    found.append((i + 1, name.group(1), "escaped"))
            i += 2
            continue
        if c == "$" and text[i + 1 : i + 2] == "'" and not quote:
            return []
        if c == '"':
            quote = "" if quote == '"' else '"'
        elif c == "'" and not quote:
            quote = "'"
        i += 1
    return found


def _names_used(script: Script) -> set[str]:
    """The names the script assigns or expands anywhere (nested scripts too)."""
    names = {a.name for s in script.walk() for a in s.assignments}
    for command in script.all_commands():
        for word in command.words:
            names.update(r.name for r in word.reads())
        for assignment in command.assignments:
            if assignment.value is not None:
                names.update(r.name for r in assignment.value.reads())
    return names


def _as_written(text: str, at: int, name: str) -> str:
    """The expansion at `at` of the text as written: `$NAME`, or `${NAME}` and `${NAME:-8000}`
    with their braces (h88 W5, h89 W4)."""
    if text[at + 1 : at + 2] != "{":
        return f"${name}"
    close = text.find("}", at)
    line_end = text.find("\n", at)
    if close < 0 or (0 <= line_end < close):
        return f"${{{name}"
    return text[at : close + 1]


def _finding(
    command: Command,
    word: Word,
    text: str,
    at: int,
    name: str,
    how: str,
    what: str = "URL",
    through: str = "",
) -> Finding:
    script = command.script
    source = script.file
    start = script.char_of(word.node.start_byte)
    dollar = start + at
    written = _as_written(text, at, name)
    shown = clip(" ".join(word.value.split()), 60)
    program = _program(command)
    fix: Fix | None
    if how == "escaped":
        why = "the backslash before it keeps bash from expanding it"
        fix = Fix(
            "remove the backslash",
            (Edit(source.path, source.span(dollar - 1, dollar), ""),),
            "unsafe",
        )
    else:
        why = "bash expands nothing inside single quotes"
        fix = _requote(source, text, start, at)
    return Finding(
        "BL113",
        f"`{program}` gets the text `{written}` in `{shown}`"
        + (f" (through {through})" if through else "")
        + f": {why}, so "
        + (
            "the URL it is given names no host or port that exists"
            if what == "URL"
            else f"the {what} it sends holds the name as written, not the value"
        ),
        Location(script.path, source.span(dollar, dollar + len(written))),
        subject=f"{name}@{shown}",
        fix=fix,
        help=f"write `{written}` where bash expands it (unescaped, in double quotes or none)",
    )


def _quoted(command: Command, word: Word) -> Finding:
    """A URL the program gets with the quotes around it (`--base-url=\\"http://h:$PORT\\"`)."""
    script = command.script
    shown = clip(word.value, 60)
    return Finding(
        "BL113",
        f"`{_program(command)}` gets the URL with quotes around it (`{shown}`): they are "
        "escaped or inside other quotes, so bash keeps them, and no client reads a URL that "
        "starts with a quote",
        Location(script.path, word.span),
        subject=f"quoted@{shown}",
        help="drop the backslashes (or the outer quotes) so that bash removes the quotes",
    )


def _program(command: Command) -> str:
    """What the command runs, as a reader names it: `benchmark_serving.py` for `python3
    bench_serving/benchmark_serving.py`, the module of `python -m`, else the command's name."""
    invocation = command.invocation
    base = invocation.base or command.base or "the command"
    if base.startswith("python"):
        if invocation.module:
            return invocation.module
        script = next((w.value for w in invocation.args if w.value.endswith(".py")), None)
        if script:
            return script.rsplit("/", 1)[-1]
    return base


def _requote(source: SourceText, text: str, start: int, at: int) -> Fix | None:
    """Single quotes around the `$` turned into double quotes, where that expands only it."""
    path = source.path
    open_at = text.rfind("'", 0, at)
    close_at = text.find("'", at)
    if open_at < 0 or close_at < 0:
        return None
    inner = text[open_at + 1 : close_at]
    if any(c in inner for c in '"\\`') or inner.count("$") != 1:
        return None
    edits = (
        Edit(path, source.span(start + open_at, start + open_at + 1), '"'),
        Edit(path, source.span(start + close_at, start + close_at + 1), '"'),
    )
    return Fix("use double quotes", edits, "unsafe")
