"""`export X="$X"` where nothing on the way to that line gives X a value.

## What it does
Reports `export X="$X"`, `export X=$X` and `X=$X; export X` when X has no value source on the
path to that line:
- the script does not assign X earlier (`X=...`, `read X`, `for X in`, `: "${X:=default}"`), nor
  validate it (`check_env_vars X`, `${X:?}`, `${X?}`), nor source a file that does;
- no caller provides it. For a launcher (`runners/launch_*.sh`) the callers are the workflow steps
  that run launchers (their `env:` blocks and exports) and the master configs'
  `additional-settings`; for any script, the scripts that run it (exported variables, those set
  under `set -a` too, and what a wrapper sets: `env X=1`, `srun --export=ALL,X=1`, `docker run
  -e X=1`) or source it (all variables), and their own callers in turn.

The finding names each route on which X arrives unset, except a launcher's route whose entry
decides the line does not run (`if [[ "$IS_MULTINODE" == true ]]` for a single-node entry). A
route no entry's job takes (a workflow step's, through a launcher no entry reaches or on a path
no entry's values make: `bash "benchmarks/${EXP_NAME%%_*}.sh"` naming a retired script) counts
only where no entry's route reaches the script, and the message says so.

## Why is this bad?
The line looks like it passes a value through, but it only turns "unset" into "set to the empty
string". `set -u` no longer catches it, and the next command gets an empty argument: a server
started with `--port ""`, a readiness probe polling `http://host:/health` for two hours. Where
`set -u` is already on (a top-level `set -euo pipefail` before the line), the line itself stops
the script (`PORT: unbound variable`): the message says so, and every job on those routes fails
there.

## Example
A launcher started by a workflow template whose `env:` does not set PORT:
```bash path=runners/launch_example.sh
export PORT="$PORT"
vllm serve "$MODEL" --port "$PORT"
```

## Use instead
```bash path=runners/launch_example.sh
export PORT="${PORT:-8888}"
vllm serve "$MODEL" --port "$PORT"
```

## Exceptions
A script whose callers benchlint cannot see (nothing in the repository runs or sources it) is not
reported, nor is a line after `eval`, after sourcing a file whose path cannot be resolved (a
Python virtual environment's activation, `source .venv/bin/activate`, sets only its own names,
and the files uv's and rustup's installers leave, `$HOME/.local/bin/env` and `~/.cargo/env`,
only PATH), or after a line that sets variables by names known only at run time
(`export $(grep -v '^#' .env | xargs)`, `export "$key=$value"` in a loop, `declare "$kv"`,
`printf -v "$name"`): each may set anything. Variables the system, GitHub Actions or Slurm
always set (`HOME`, `GITHUB_*`, `SLURM_*`, ...) and those listed in `known-env` count as
provided. Assignments earlier in the text count even when they are in a branch that may not
run; in a function, so do its own lines before it and what the functions they call assign
(`main() { setup_defaults; export PORT="$PORT"; }`, wherever `setup_defaults` is defined), and
the script's assignments before each of its calls of the function: set before every call, it is
not reported (`prepare() { export PORT="$PORT"; }; PORT=8000; prepare`). A
line in another branch of the same `if` or `case` never runs before the export (no loop around
them runs both), so neither its assignments nor its `source` or `eval` count: a multi-node
branch that sources a file benchlint cannot find leaves the single-node branch's
`export PORT="$PORT"` reported.

Where every script that may read the exported empty value treats an empty value as unset before
it reads it otherwise (this script, its functions and traps too, and the scripts it runs or
sources, a job it submits: `X=${X:-0}` first, or only `${X:-0}`, `${X:?}`), no script sources
this one, and no Python file or YAML configuration of the repository reads the name from the
environment (`os.environ["X"]`, `${oc.env:X,0}`), none of those scripts takes the empty value
for a value: the finding is a note, which names those places, and what a file run or sourced by
a path benchlint cannot tell does with it (not read). A program that reads the environment
itself still gets the empty value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from benchlint.context import Context
from benchlint.environment import ScriptState, is_builtin, nounset_from, runs_when_unset
from benchlint.finding import Finding, Location, Severity, Span
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.shell.model import Assignment, Script, Syn, on_comment_line

# `=$NAME`, `="${NAME`...: where a text can assign a variable its own value (found by the `=`,
# which the regex engine scans for quickly; the name before it is compared after)
_ASSIGNED_FROM = lazy_compile(r"=[\"']?\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def _looks_self_referential(text: str) -> bool:
    """Whether the text holds `NAME=$NAME` (quoted or braced), NAME a whole word on both sides:
    what `\\b(NAME)=["']?\\$\\{?\\1\\b` finds, twenty times faster (a script without it is
    not modelled on a run that names other files)."""
    for match in _ASSIGNED_FROM.finditer(text):
        name, equals, after = match.group(1), match.start(), match.end()
        start = equals - len(name)
        if start < 0 or text[start:equals] != name:
            continue
        if start > 0 and _word_char(text[start - 1]):
            continue
        if after == len(text) or not _word_char(text[after]):
            return True
    return False


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"  # what `\w` matches


def _exported_later(script: Script, assignment: Assignment) -> bool:
    start = assignment.node.start_byte
    return any(
        other.name == assignment.name and other.exported and other.node.start_byte > start
        for other in script.assignments
    )


def _self_referential(script: Script) -> Iterator[Assignment]:
    for assignment in script.assignments:
        if assignment.value is None or assignment.value.variable() != assignment.name:
            continue
        if assignment.kind == "local":
            continue
        if assignment.exported or _exported_later(script, assignment):
            yield assignment


def _shown(script: Script, assignment: Assignment) -> str:
    """`export X="$X"` when that is the whole statement, else just `X="$X"`."""
    command = assignment.command
    if command.words and len(command.assignments) == 1:
        return script.text_of(command.node)
    return script.text_of(assignment.node)


def _called_from_scope(ctx: Context) -> set[str]:
    """The scripts that the named shell files run or source."""
    calls = ctx.environment.calls
    scripts = (ctx.ws.shell(p) for p in ctx.in_scope(ctx.ws.shell_paths))
    return {t for s in scripts if s is not None for c in calls.calls_in(s) for t in c.targets}


def _beyond(ctx: Context) -> Iterator[str]:
    """The scripts out of scope with the pattern in their text whose findings' related
    locations can be in scope: a launcher started from a named file (an entry, a workflow), or
    a script a named script runs or sources (where its callers call it)."""
    environment = ctx.environment
    called_from_scope: set[str] | None = None
    for path in ctx.ws.shell_paths:
        starts = environment.launcher_start_files(path)
        if starts is not None and not ctx.route_in_scope(path, *starts):
            continue  # a launcher whose findings cannot reach the named files
        if starts is None:
            if called_from_scope is None:
                called_from_scope = _called_from_scope(ctx)
            if path not in called_from_scope:
                continue
        source = ctx.ws.source(path)
        if source is not None and _looks_self_referential(source.text):
            yield path


_IDLE = (
    " (no entry's route reaches this script: only workflow steps on paths no entry's values "
    "make, or through a launcher no entry reaches)"
)


def _set_at_every_call(ctx: Context, script: Script, function: str | None, name: str) -> bool:
    """Whether the script sets (or checks) the variable before every call of the function
    whose body exports it (`prepare() { export PORT="$PORT"; }; PORT=8000; prepare`: h30). Not
    where the script calls it nowhere, or where its name is written anywhere but in its plain
    calls and its definition (`trap prepare ERR`, `run prepare`, `eval`, `fn=prepare`: a call
    not followed), or another file sources the script (its calls there are not these: h35)."""
    if function is None:
        return False
    states: dict[str, list[ScriptState] | None]
    states = script.derived("bl101-call-states", ctx.environment, dict)
    if function not in states:  # (once per function, not per export and call: h35)
        states[function] = _call_states(ctx, script, function)
    found = states[function]
    return found is not None and all(
        state.unknown or name in state.assigned or name in state.validated for state in found
    )


def _call_states(ctx: Context, script: Script, function: str) -> list[ScriptState] | None:
    """The script's state before each plain call of the function (one pass over the script);
    None where a call may be another (`_set_at_every_call`)."""
    calls = [c for c in script.commands if c.base == function and c.function != function]
    if not calls:
        return None
    # (a word that names it anywhere else, but in a message: `trap prepare ERR`, `run prepare`,
    # `fn=prepare`, `eval "prepare"`; not a comment, nor `echo "prepare the env"`: h36)
    named = re.compile(rf"(?<![\w$./-]){re.escape(function)}(?![\w./-])")
    for command in script.commands:
        if command.base in ("echo", "printf") or command in calls:
            continue
        words = [*command.words, *(a.value for a in command.assignments if a.value is not None)]
        if any(named.search(w.value) for w in words):
            return None
    if ctx.environment.calls.is_sourced(script.path):
        return None
    return ctx.environment.states_before(script, [c.node.start_byte for c in calls])


@script_rule(
    "BL101",
    "self-referential-export",
    Severity.ERROR,
    tags=("shell", "environment"),
    beyond=_beyond,
)
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    environment = ctx.environment
    known = ctx.config.known_env
    if not _looks_self_referential(script.file.text):
        return
    candidates = list(_self_referential(script))
    if not candidates:
        return
    routes = environment.routes(script.path)
    if not routes:
        return  # nobody in the repository runs it: its caller is unknown
    # (a path no entry's values make, or a launcher no entry reaches: only where nothing else
    # reaches the script, and said so)
    idle = all(r.idle for r in routes)
    routes = [r for r in routes if not r.idle] or routes
    for assignment in candidates:
        name = assignment.name
        if is_builtin(name, known):
            continue
        state = environment.state_before(
            script, assignment.command.node.start_byte, assignment.command
        )
        if state.unknown or name in state.assigned or name in state.validated:
            continue
        if _set_at_every_call(ctx, script, assignment.command.function, name):
            continue  # (a function's body runs where it is called, not where it is defined)
        if runs_when_unset(assignment.command, name) is False:
            continue  # (`[ -n "${PORT:-}" ] && export PORT="$PORT"`: h131 F4)
        start = assignment.command.node.start_byte
        if any(  # `: "${X?}"` before it: the script stops there when X is unset
            e.name == name and e.operator == "?" and e.node.start_byte < start
            for e in script.expansions
        ):
            continue
        unset_on = [
            r
            for r in routes
            if r.complete
            and name not in r.env
            # (not where the route decides the line does not run: `if [[ $IS_MULTINODE ==
            # true ]]` on a single-node entry's, `if [[ -n $PORT ]]` with PORT unset, as the
            # finding supposes: h100 F8)
            and (
                r.route is None
                or r.route.holds(assignment.command, unset=frozenset({name})) is not False
            )
        ]
        if not unset_on:
            continue
        names = list(dict.fromkeys(r.name for r in unset_on))
        shown = ", ".join(names[:3])
        more = f" and {len(names) - 3} more" if len(names) > 3 else ""
        text = _shown(script, assignment)
        related = tuple(
            dict.fromkeys(
                Location(r.location.path, r.location.span, f"started from {r.name}")
                for r in unset_on
                if r.location is not None
            )
        )[:5]
        nounset = nounset_from(script)
        if (
            nounset is not None
            and assignment.command.function is None
            and not assignment.command.subshell  # (only a subshell stops: h131 W1)
            and nounset < start
        ):
            # (bash 5.2, `set -u`: "PORT: unbound variable", the script stops, nothing is
            # exported; every job of those entries fails there: h127 W1)
            line = next(
                script.span(c.node).line for c in script.commands if c.node.start_byte == nounset
            )
            yield Finding(
                "BL101",
                f"`{text}` stops the script when {name} is unset: `set -u` (line {line}) makes "
                f"reading it an error (`{name}: unbound variable`), and nothing sets {name} "
                f"before this line when the script is started from {shown}{more}"
                + (_IDLE if idle else ""),
                Location(script.path, assignment.span),
                help=f'give it a default (`"${{{name}:-...}}"`) or fail early with a message '
                f'(`: "${{{name}:?set {name}}}"`)',
                related=related,
                subject=name,
            )
            continue
        defaulted, unknown = _defaulted_by_every_reader(ctx, script, assignment)
        if defaulted:
            places = ", ".join(f"{p.path}:{p.span.line}" for p in defaulted[:3])
            places += f" and {len(defaulted) - 3} more" if len(defaulted) > 3 else ""
            if unknown:
                shown_unknown = ", ".join(f"{u.path}:{u.span.line}" for u in unknown[:2])
                more_unknown = f" and {len(unknown) - 2} more" if len(unknown) > 2 else ""
                unread = (
                    f" (not read: what a file run or sourced by a path benchlint cannot tell "
                    f"does with it, {shown_unknown}{more_unknown})"
                )
            else:
                unread = ""
            said = (
                f"; every script benchlint sees read {name} after it treats an empty value "
                f"as unset ({places}: a default given first, or `${{{name}:-...}}`): only a "
                f"program that reads the environment gets the empty value where it would have "
                f"found {name} unset{unread}"
            )
            severity: Severity | None = Severity.NOTE
            related = (*related, *defaulted[:3])
        else:
            said, severity = "", None
        yield Finding(
            "BL101",
            f"`{text}` exports {name} as an empty string: nothing sets {name} before this "
            f"line when the script is started from {shown}{more}" + (_IDLE if idle else "") + said,
            Location(script.path, assignment.span),
            help=f'give it a default (`"${{{name}:-...}}"`) or fail early (`: "${{{name}:?}}"`)',
            related=related,
            subject=name,
            severity=severity,
        )


# the operators with which an expansion takes an empty value as it takes an unset one
_EMPTY_AS_UNSET = frozenset({":-", ":=", ":?", ":+"})
_READERS = 40  # scripts followed from the exporting one, at most


def _defaulted_by_every_reader(
    ctx: Context, script: Script, assignment: Assignment
) -> tuple[list[Location], list[Location]]:
    """Where the scripts that may read the exported empty value give the variable a default
    first, when every one does (h32, h37: `export DECODE_MTP_SIZE=${DECODE_MTP_SIZE}`, read
    only as `DECODE_MTP_SIZE=${DECODE_MTP_SIZE:-0}` by the job it submits), and the calls of
    a script whose path benchlint cannot tell (not read: said); else nothing. The scripts
    that may read it: this one (its functions, traps and loops too), and those it runs or
    sources after the line, and theirs (at most _READERS); not where another script sources
    this one. Each mention of the name there (a comment's aside) must be an expansion that
    takes an empty value as unset (`${X:-0}`, `${X:?}`), or come after a line of the script's
    top level that surely gives it a value that is not empty (`X=${X:-0}`, `: "${X:=0}"`,
    `X=0`). Not where a Python or YAML file of the repository reads the name from the
    environment (`_read_elsewhere`). A file outside the repository a script sources by its
    path (`source /opt/conda/etc/profile.d/conda.sh`) is the system's or a tool's: it does
    not read this repository's names."""
    name = assignment.name
    calls = ctx.environment.calls
    if calls.is_sourced(script.path):
        return [], []  # (the scripts that source it read it after: not followed, h39 F9)
    word = re.compile(rf"(?<![\w]){re.escape(name)}(?![\w])".encode())
    command = assignment.command
    # (its calls and mentions before the line too, where they may run after it: in a
    # function, a trap, a loop around the line, h39 F8)
    readers: list[tuple[Script, int]] = [(script, 0 if command.loops else command.node.end_byte)]
    unknown: list[Location] = []
    borrowed: list[str] = []
    seen = {script.path}
    index = 0
    while index < len(readers):
        reader, start = readers[index]
        index += 1
        default = _first_default(reader, name, start)
        for call in calls.calls_in(reader):
            # (in the file: a call in a `bash -c "..."` string or a trap is at its offset there)
            at, outside = call.command.file_offset, call.command.function is None
            if at < start and outside:
                continue
            if not call.targets:
                # (after the script's own default, it reads the default: `X=${X:-0}; source
                # "$tmp"`)
                later = default is not None and outside and at >= default[0]
                if not later and not (call.word.static and call.word.value.startswith("/")):
                    unknown.append(Location(reader.path, call.command.first_line_span))
                continue
            for target in call.targets:
                if target in seen:
                    continue
                if not ctx.ws.holds(target):
                    borrowed.append(target)  # (modelled for this, let go after: memory)
                callee = ctx.ws.shell(target)
                seen.add(target)
                if callee is not None:
                    readers.append((callee, 0))
            if len(readers) > _READERS:
                for target in borrowed:
                    ctx.ws.let_go(target)
                return [], []  # (too many to tell)
    own = (command.node.start_byte, command.node.end_byte)
    found = [  # (the exporting script's mentions from its start: a function, a trap)
        _defaulted_in(reader, name, word, 0, own)
        if reader is script
        else _defaulted_in(reader, name, word, start)
        for reader, start in readers
    ]
    del readers
    for target in borrowed:
        ctx.ws.let_go(target)
    if any(f is None for f in found):
        return [], []
    places = [place for f in found if f is not None for place in f]
    if not places or _read_elsewhere(ctx, name):
        return [], []
    return places, unknown


def _read_elsewhere(ctx: Context, name: str) -> bool:
    """Whether a Python file of the repository names the variable in a string of its own
    (`os.environ["X"]`), or a YAML file resolves it from the environment (`${oc.env:X,0}`,
    `$X`, not in a comment): a program may read the empty value. (Asked last: it reads every
    such file, which a run that names files otherwise need not.)"""
    quoted = re.compile(rf"""['"]{re.escape(name)}['"]""".encode())
    if any(ctx.ws.search(path, quoted) for path in ctx.ws.python_paths):
        return True
    # (not on a comment's line)
    expanded = re.compile(
        rf"^[ \t]*(?=[^#\s]).*?(?:\$\{{?|env:){re.escape(name)}(?![\w])".encode(), re.M
    )
    return any(ctx.ws.search(path, expanded) for path in ctx.ws.yaml_paths)


def _defaulted_in(
    script: Script,
    name: str,
    word: re.Pattern[bytes],
    start: int,
    skip: tuple[int, int] | None = None,
) -> list[Location] | None:
    """Where the script treats an empty value of the name as unset before every mention of
    it from `start` on (`skip`: the exporting line's own): a default it gives first, or else
    the first of its reads that do (`${X:-0}`); nothing where it does not mention it; None
    where a mention may read the empty value (a comment's too: one in a heredoc is text)."""
    data = script.file.data
    mentions = [
        m.start()
        for m in word.finditer(data, start)
        if skip is None or not skip[0] <= m.start() < skip[1]
    ]
    if any(on_comment_line(data, at) for at in mentions):
        texts = _text_ranges(script)  # (a heredoc's `#SBATCH ...${X-none}` is no comment)
        mentions = [
            at
            for at in mentions
            if not on_comment_line(data, at) or any(a <= at < b for a, b in texts)
        ]
    if not mentions:
        return []
    # (the name's own place in `${X:-0}`: not a mention in its default, `${X:-${X-u}}`)
    safe = {
        e.node.start_byte + 2: e
        for e in script.expansions
        if e.name == name and e.operator in _EMPTY_AS_UNSET
    }
    default = _first_default(script, name, skip[1] if skip is not None else start)
    for at in mentions:
        if default is not None and at >= default[0]:
            continue
        if at not in safe:
            return None
    if default is not None:
        return [Location(script.path, default[1], "gives it a default first")]
    first = min(safe.values(), key=lambda e: e.node.start_byte)
    return [Location(script.path, first.script.span(first.node), "treats empty as unset")]


def _text_ranges(script: Script) -> list[tuple[int, int]]:
    """Where the script holds text a line of which may start with `#` and not be a comment:
    heredoc bodies and words (quoted strings over several lines)."""
    ranges: list[tuple[int, int]] = []
    for command in script.all_commands():
        if command.script is not script:
            continue
        ranges += [(h.body.start_byte, h.body.end_byte) for h in command.heredocs if h.body]
        words = [*command.words, *(a.value for a in command.assignments if a.value)]
        ranges += [(w.node.start_byte, w.node.end_byte) for w in words]
    return ranges


def _first_default(script: Script, name: str, start: int) -> tuple[int, Span] | None:
    """The first line from `start` on, at the script's top level and under no condition, that
    surely gives the name a value that is not empty (`X=${X:-0}`, `: "${X:=0}"`, `X=0`): the
    offset where it starts (its own mentions of the name are the default's), and its span."""
    best: tuple[int, Span] | None = None
    for command in script.commands:
        at = command.node.start_byte
        if (
            at < start
            or command.function is not None
            or command.guards
            or command.loops
            or command.apart_from_script
            or (best is not None and at >= best[0])
        ):
            continue
        for made in command.assignments:
            value = made.value
            if made.name != name or value is None or made.kind not in ("assign", "export"):
                continue
            if (value.static and value.value) or _defaults_itself(script, name, made.node):
                best = (at, script.span(made.node))
        if command.base == ":" and any(
            e.name == name
            and e.operator == ":="
            and at <= e.node.start_byte < command.node.end_byte
            and _has_default(script, e.node)
            for e in script.expansions
        ):
            best = (at, command.span)
    return best


def _defaults_itself(script: Script, name: str, node: Syn) -> bool:
    """`X=${X:-0}`, `X="${X:=8000}"`: the value is the name's own, with a default that is not
    empty, and nothing else."""
    return any(
        e.name == name
        and e.operator in (":-", ":=")
        and node.start_byte <= e.node.start_byte < node.end_byte
        and _has_default(script, e.node)
        for e in script.expansions
    ) and script.text_of(node).split("=", 1)[1].strip("\"'").startswith("${")


def _has_default(script: Script, node: Syn) -> bool:
    text = script.text_of(node)
    operator = text.find(":-") if ":-" in text else text.find(":=")
    default = text[operator + 2 : -1] if operator >= 0 and text.endswith("}") else ""
    return bool(default.strip("\"'"))
