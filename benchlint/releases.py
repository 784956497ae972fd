"""Which engine release runs a launch: from the image of the master-config entries whose jobs run
the script, followed from the launcher that an entry's runner starts down the calls to it.

A script reached by a call whose path is built from the entry's fields
(`bash benchmarks/${MODEL_PREFIX}_${PRECISION}.sh`) is run only by the entries whose values give
its name. Anything not known makes the whole answer unknown (None), never a guess.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from benchlint import profile
from benchlint.calls import (
    PATH_EXPANSION,
    ROOT_MOUNTS,
    ROOT_VARIABLES,
    Call,
    before_in_shell,
    bind_mounts,
    container_workdir,
    containers,
    gives_value,
    in_mounted_folder,
    last_separator,
    repository_folder,
    script_word_at,
)
from benchlint.context import Context
from benchlint.ends import failing, launcher_ends
from benchlint.engines import Launch, launches
from benchlint.images import image_release
from benchlint.launcher import reaching
from benchlint.lazyre import lazy_compile
from benchlint.shell.expand import UNSET, keeps_empty
from benchlint.shell.expand import value as expanded
from benchlint.shell.flow import Flow, may_set_nounset
from benchlint.shell.held import same_shell
from benchlint.shell.invocation import FILES
from benchlint.shell.model import Assignment, Command, Script, Word, positionals_changed_before
from benchlint.shell.output import substitution_outputs, substitution_pattern
from benchlint.wiring import Entry, Route
from benchlint.workspace import Workspace


@dataclass(frozen=True)
class Running:
    """A release that runs a launch, and the entries whose images say so (none where the
    configuration's `engine-releases` does: `configured`)."""

    version: str
    entries: tuple[Entry, ...]
    configured: bool = False

    def said(self, named: str) -> str:
        """Who says this release runs it, for a message."""
        if self.configured:
            return "the release the configuration's `engine-releases` names"
        return f"the release the image of {named} runs"


def beyond_scope(ctx: Context) -> list[str]:
    """The scripts out of scope a rule that checks releases looks at too (`Rule.beyond`): every
    script when a file holding entries is named (a release bumped in a master config is what
    makes a script's launch or probe fail; the findings name the entry)."""
    return ctx.ws.shell_paths if ctx.names_entries else []


def launch_releases(ctx: Context, launch: Launch) -> list[Running] | None:
    """The releases of the launch's engine that run it, by the images of the entries of that
    framework whose jobs run the script; None when one of those images names no release of the
    engine, or the entries are not known."""

    def release(entry: Entry) -> str | None:
        found = image_release(entry.fields.get("image", ""))
        return found[1] if found is not None and found[0] == launch.engine else None

    # an entry of another framework reaches the script only by a path benchlint over-reads
    # (a variable it cannot evaluate); the engine's own entries decide
    return _by_release(
        ctx, launch, release, lambda e: e.fields.get("framework", launch.engine) == launch.engine
    )


def router_releases(ctx: Context, launch: Launch) -> list[Running] | None:
    """The sglang-router releases the entries whose jobs run the launch's script declare
    (`router: {name: sglang-router, version: "0.3.2"}`); None when one of them declares none."""

    def release(entry: Entry) -> str | None:
        version = entry.fields.get("router.version", "")
        named = entry.fields.get("router.name") == "sglang-router"
        return version if named and _RELEASE.fullmatch(version) else None

    return _by_release(ctx, launch, release, lambda e: True)


def _by_release(
    ctx: Context,
    launch: Launch,
    release: Callable[[Entry], str | None],
    own: Callable[[Entry], bool],
) -> list[Running] | None:
    """The entries (those `own` keeps) whose jobs run the launch's script, grouped by the
    release each says it runs; None when none is known or one says none."""
    top = launch.command.script.top
    entries = [e for e in entries_running(ctx, top.path) or () if own(e)]
    if not entries:
        return None
    by_version: dict[str, list[Entry]] = {}
    for entry in entries:
        version = release(entry)
        if version is None:
            return None
        by_version.setdefault(version, []).append(entry)
    return [Running(v, tuple(dict.fromkeys(e))) for v, e in sorted(by_version.items())]


_RELEASE = lazy_compile(r"\d+\.\d+\.\d+(?:\.post\d+)?")


def entries_running(ctx: Context, path: str, depth: int = 0) -> list[Entry] | None:
    """The entries whose jobs run the script at `path`: a launcher's own entries, or those of
    the launchers that call it (with a path their values give); None when something on the way
    is not known (a calling script that no launcher's entries reach, or no entry at all)."""
    memo = ctx.ws.models.setdefault("entries-running", {})
    assert isinstance(memo, dict)
    if path not in memo:
        memo[path] = _entries_running(ctx, path, depth)
    found: list[Entry] | None = memo[path]
    return found


def _entries_running(ctx: Context, path: str, depth: int) -> list[Entry] | None:
    wiring = ctx.wiring
    if wiring.is_launcher(path):
        routes = wiring.routes_for_launcher(path)
        if not routes:
            return None
        return list(dict.fromkeys(route.element.entry for route in routes))
    if depth > 5:
        return None
    calls = ctx.environment.calls.callers_of(path)
    if not calls:
        return None
    found: list[Entry] = []
    for call in calls:
        caller = call.caller.top
        if not wiring.is_launcher(caller.path):
            upstream = entries_running(ctx, caller.path, depth + 1)
            if upstream is None:
                return None
            found.extend(upstream)
            continue
        # a launcher no entry starts adds no job (it does not make the others unknown)
        for route in wiring.routes_for_launcher(caller.path):
            if route.runs(call.command) is False:
                continue  # (a call in another branch: the multi-node one of a single-node job)
            if call_names(ctx.ws, route, call, path):
                found.append(route.element.entry)
    return list(dict.fromkeys(found)) or None


class _Memo:
    """Templates and rendered patterns of one run (kept with the workspace: a long-lived
    process, the language server, runs many)."""

    def __init__(self) -> None:
        # (text, launcher path, depth, the assignment giving it, whether it follows a folder)
        # -> its template
        self.templates: dict[tuple[str, str, int, int, bool], tuple[object, ...]] = {}
        # (text, launcher path, whether `$1` is the launch line's, whether it follows a folder)
        # -> the variables it reads
        self.holes: dict[tuple[str, str, bool, bool], tuple[str, ...]] = {}
        # (text, launcher path, model prefix, the route's values of its variables) -> pattern
        self.rendered: dict[tuple[object, ...], re.Pattern[str]] = {}
        # (word, id(route), whether `$1` is the launch line's) -> (the route, its pattern)
        self.by_route: dict[tuple[str, int, bool], tuple[Route, re.Pattern[str]]] = {}


def call_names(ws: Workspace, route: Route, call: Call, path: str) -> bool:
    """Whether the call's script word may name the script at `path` on the route."""
    memo = ws.models.setdefault("release-patterns", _Memo())
    assert isinstance(memo, _Memo)
    top = own_arguments(call.command, route)
    word = in_container(call)
    if not _names(word, route, path, memo, top):
        return False
    if last_separator(word) >= 0:
        return True  # (the word names its folder: `_names` checked it)
    # a path held in a variable (`bash "$BENCH_SCRIPT"`): in a folder its values name on the
    # route, as `scripts_run` reads it (t68d)
    folders = ws.models.setdefault("call-folders", {})  # (asked per route and script)
    assert isinstance(folders, dict)
    if id(call) not in folders:
        folders[id(call)] = (call, _folders(call)[1])  # (the call kept: its id is not reused)
    possible = {f for f, given_by in folders[id(call)][1] if _may_give(route, given_by)}
    pattern = _file_name_pattern(word, route, memo, top)
    if not possible or None in possible or pattern.pattern.startswith(_ANY):
        return True
    inside = [f + "/" if f else "" for f in possible]  # ("": the checkout's root)
    return any(path.startswith(f) and pattern.fullmatch(path[len(f) :]) for f in inside)


def _surely_assigned(command: Command, name: str | None) -> Assignment | None:
    """The assignment that surely gives the variable the value it has where the command runs:
    the last one before it in its own function's body (or the top level, for a command
    there), under no condition and in no loop or subshell, that gives a value of its own
    (`local DIR=/w/`, with no option that changes the value: `local -u`), with no other
    assignment of it in that body, and nothing between them that may assign it: a call of a
    function of the script that does (`_may_assign`, plainly or behind `time`: bash's scope is
    dynamic), a command a variable names, `source`, `eval`, `unset`, or a trap or alias that
    names it (`_hooked`); None where none does (the job's value, or one given elsewhere, may
    reach it)."""
    if name is None or command.subshell is not None:
        return None
    script, at = command.script, command.node.start_byte
    if _hooked(script.top, name):
        return None  # (a DEBUG or ERR trap, an alias may assign it between: h78 R3, R4)
    own = sorted(
        (
            a
            for a in script.assignments
            if a.name == name
            and a.command.script is script
            and a.command.function == command.function
            and not a.command.apart_from_script  # (`echo | DIR=/w/`: a pipeline's, h78 R2)
        ),
        key=lambda a: a.node.start_byte,
    )
    before = [a for a in own if a.node.start_byte < at]
    if (
        not before
        or len(own) != len(before)
        or any(a.kind == "dynamic" for a in script.assignments)
    ):
        return None
    sure = before[-1]
    if (
        sure.value is None
        or sure.kind == "prefix"
        or not gives_value(sure)
        or sure.command.guards
        or sure.command.loops
        or sure.command.subshell is not None
        or (command.loops and not set(command.loops) <= set(sure.command.loops))
        or _TRANSFORMS.search(script.text_of(sure.command.node).split("=", 1)[0])
    ):
        return None  # (`local -u DIR=/w/` gives `/W/`: h78 W1)
    start = sure.command.node.end_byte
    if any(
        start <= other.node.start_byte < at
        and other.function == command.function
        and (
            _may_assign(script, other.base, name)  # (`time pick` too: h78 R1)
            or other.base in ("source", ".", "eval")
            or (other.words and not other.words[0].static)  # (`$HOOK`: it may be one)
            or other.unsets(name)
        )
        for other in script.commands
    ):
        return None
    return sure


# a declaration's option that changes the value it is given (upper or lower case, an integer,
# a name reference, an array)
_TRANSFORMS = lazy_compile(r"^\s*(?:local|declare|typeset)\b.*\s[-+][a-zA-Z]*[ulinaA]")


def _may_assign(script: Script, function: str | None, name: str) -> bool:
    """Whether a call of the script's function may assign the variable: its body, or one it
    calls, assigns it, or runs an `eval`, a `source` or a command whose name a variable holds
    (h79 R2: not one that touches nothing of it)."""
    seen: set[str] = set()
    todo = [function] if function in script.functions else []
    while todo:
        current = todo.pop()
        if current is None or current in seen:
            continue
        seen.add(current)
        for command in script.body(current):
            if any(a.name in (name, "") for a in command.assignments):
                return True
            if command.base in ("eval", "source", ".") or (
                command.words and not command.words[0].static
            ):
                return True
            if command.base in script.functions:
                todo.append(command.base)
    return False


def _hooked(script: Script, name: str) -> bool:
    """Whether a trap run before every command, on a failure or a function's return (`trap ...
    DEBUG`, `ERR`, `RETURN`), or an alias, may assign the variable: its text names it or a
    function of the script (h78 R3, R4; not one that touches neither: h79 R2)."""
    for command in script.commands:
        if command.base not in ("trap", "alias"):
            continue
        text = script.text_of(command.node)
        if command.base == "trap" and not _HOOKS.search(text):
            continue
        if re.search(rf"\b{re.escape(name)}\b", text) or any(
            re.search(rf"\b{re.escape(f)}\b", text) for f in script.functions
        ):
            return True
    return False


_HOOKS = lazy_compile(r"\b(?:DEBUG|ERR|RETURN)\b")


def _launcher_gives(script: Script, variable: str | None, guarded: bool = False) -> bool:
    """Whether the launcher may give the variable another value than the job's (`gives_value`:
    not `X=${X:-a}`, not `export X`; a prefix only on a call of a function, for its body);
    `guarded`: only under a condition, in a loop, a function or such a call, so the job's
    value may stay."""
    functions = script.functions
    unsets = [  # (`unset DIR`: empty after it, not the job's value; h73 M1)
        c
        for c in (script.commands if variable and script.may_unset(variable) else ())
        if c.unsets(str(variable))
    ]
    if any(not guarded or c.guards or c.loops or c.function for c in unsets):
        return True
    return any(
        a.name == variable
        and gives_value(a)
        # (`DIR=/w/ true` gives none after it; `DIR=/w/ run` gives run's body one)
        and (a.kind != "prefix" or a.command.base in functions)
        and (
            not guarded
            or a.kind == "prefix"
            or bool(a.command.guards or a.command.loops or a.command.function)
        )
        for a in script.assignments
    )


def container_sets(command: Command) -> set[str]:
    """The variables a container gives a value of its own (`-e DIR=/w/sub/`), where the
    command runs in the container's own shell string (`bash -c '... ${DIR}x.sh'`): not the
    job's. (A word on the docker line itself is expanded by the shell that runs docker.)"""
    holder = command.script.parent
    return {
        value.split("=", 1)[0]
        for wrapper, _ in (containers(holder) if holder is not None else ())
        for option, _, value in wrapper.options
        if option in wrapper.env_options and "=" in value
    }


def in_container(call: Call) -> str:
    """The call's script path word as the repository's path where a container runs it from a
    folder or file of the checkout a bind mount shows (`/tmp/x.sh` with `-v
    $(realpath benchmarks/):/tmp/`: `benchmarks/x.sh`); under a mount whose source is not
    known, its file name in a folder not known; else the word as written."""
    word = call.word.value
    mounted = in_mounted_folder(word, bind_mounts(call.command), container_workdir(call.command))
    if mounted is None:
        return word
    return mounted or "$__MOUNTED/" + posixpath.basename(word)


def _crosses_folders(pattern: re.Pattern[str]) -> bool:
    """Whether a file-name pattern holds a `/` of its own (a sub-folder the route gives)."""
    return "/" in pattern.pattern.replace("[^/]", "")


def _names(word: str, route: Route, target: str, memo: _Memo, top: bool = False) -> bool:
    """Whether a script path word can name `target` on this route (compared by file name, or
    by the end of its path where the route gives a sub-folder)."""
    pattern = _file_name_pattern(word, route, memo, top)
    if pattern.fullmatch(posixpath.basename(target)) is not None:
        # (a name that starts with an expansion not known may hold sub-folders: as
        # `scripts_run` matches it)
        return pattern.pattern.startswith(_ANY) or _in_named_folder(word, target)
    if not _crosses_folders(pattern):
        return False
    parts = target.split("/")
    return any(pattern.fullmatch("/".join(parts[i:])) for i in range(len(parts) - 1))


def _in_named_folder(word: str, target: str) -> bool:
    """Whether `target` may be in the folder a path word names where its file name holds no
    sub-folder: the folder the word names last, where that is written out (`.../agentic/${M}.sh`
    names no file of `agentic/deprecated/`), is the target's."""
    cut = last_separator(word)
    last = word[: max(cut, 0)].rsplit("/", 1)[-1].strip("\"'")
    if cut <= 0 or not last or last in (".", "..") or any(c in last for c in "$`*?[{"):
        return True
    return posixpath.basename(posixpath.dirname(target)) == last


@dataclass(frozen=True)
class ScriptRun:
    """A launcher's command that runs a repository script by its path, on one route."""

    call: Call
    folder: str  # the repository folder the path names its file in
    runs: bool | None  # whether the command runs on the route (None: not decided)
    scripts: tuple[str, ...]  # the scripts of that folder (or a sub-folder) the path can name
    # the one path the route makes of it where it names no script and every part is known
    path: str | None = None
    # the folders the path may name on the route (`benchmarks/fixed_seq_len` where the route
    # gives `${SCENARIO_SUBDIR}`), as its values give them
    inside: tuple[str, ...] = ()


def scripts_run(ctx: Context, route: Route) -> list[ScriptRun]:
    """What the route's launcher runs by a path in a folder of the repository that holds scripts,
    written plainly, or by a file name alone at the checkout's root where the launcher stays
    there and writes no file that could be it (`_at_root`, `_may_make`; its commands that do
    not run on the route left out), and which scripts each path can name there on the
    route: the files of the folder the path names (of each folder its values may name), by
    their path below it: in a sub-folder only where the route's values give one, or where the
    name starts with an expansion benchlint cannot evaluate (it may hold one)."""
    memo = ctx.ws.models.setdefault("scripts-run", {})
    assert isinstance(memo, dict)
    known = memo.get(id(route))
    if known is not None and known[0] is route:  # (the route kept: its id is not reused)
        runs: list[ScriptRun] = known[1]
        return runs
    found = _scripts_run(ctx, route)
    memo[id(route)] = (route, found)
    return found


def srtctl_commands(script: Script) -> list[Command]:
    """The script's commands that run srtctl (a word of theirs names it: behind wrappers, in a
    shell string too)."""
    if b"srtctl" not in script.src:
        return []
    return [
        c
        for c in script.all_commands()
        if any(w.static and posixpath.basename(w.value) == "srtctl" for w in c.words)
    ]


def runs_srtctl(ctx: Context, path: str) -> bool:
    """Whether the launcher runs srtctl (which reads the recipe CONFIG_FILE names): in its own
    text, a shell string in it, or a script it sources or runs (two deep). A launcher that
    does not runs no recipe, whatever the entry's CONFIG_FILE says. Asked once per launcher."""
    known = ctx.ws.models.setdefault("runs-srtctl", {})
    assert isinstance(known, dict)
    if path not in known:
        found = False
        todo, seen = [(path, 0)], {path}
        while todo and not found:
            current, depth = todo.pop()
            script = ctx.ws.shell(current)
            if script is None:
                continue
            found = bool(srtctl_commands(script))
            for call in ctx.environment.calls.calls_in(script) if depth < 2 else ():
                for target in call.targets:
                    if target not in seen:
                        seen.add(target)
                        todo.append((target, depth + 1))
        known[path] = found
    return bool(known[path])


_FILE_OPTIONS = ("-f", "--file")


@dataclass(frozen=True)
class EmptyRecipeFile:
    """An srtctl command a route gives an empty recipe path: the command, its path's word, and
    the failing `exit`s before it that may run on the route (`git clone ... || exit 1`): a job
    either fails at one of them or gets to the command."""

    command: Command
    word: Word
    failing_before: tuple[Command, ...]


def empty_recipe_file(ctx: Context, route: Route) -> EmptyRecipeFile | None:
    """The launcher's first `srtctl ... -f WORD` that runs on the route with WORD an empty
    argument (`-f "$CONFIG_FILE"` for an entry that sets no CONFIG_FILE, which the launcher
    does not assign before) for every job that gets that far: its conditions hold there, and
    every command before it that may end the launcher surely does not, or is an `exit` of a
    nonzero number (a job that ends there fails anyway). None when there is none or that is not
    known: something before it may end the job otherwise (an `exec`, `exit 0`, a sourced file:
    see `ends`), it is in a function (where it runs is where the function is called). A word an
    unset name drops (`-f $CONFIG_FILE`, unquoted) is not one (srtctl's `-f` takes the next
    word; `--file=$CONFIG_FILE` stays, `--file=`), nor is a line the launcher reaches under
    `set -u` (bash stops at the read) or `set -e` (a command before it that reads the same
    empty name may stop it first)."""
    script = route.launcher.script
    if b"srtctl" not in script.src:
        return None
    for command in script.derived("srtctl", script, lambda: _srtctl_commands(script)):
        if command.function is not None:
            return None
        words = command.args
        for index, word in enumerate(words):
            if word.static and word.value in _FILE_OPTIONS and index + 1 < len(words):
                given = words[index + 1]
            elif word.literal_prefix.startswith("--file="):
                given = word
            else:
                continue
            # (`--file=$CONFIG_FILE`: the word stays whatever the value, `--file=` then; h100 M3)
            joined = given is word
            if given.static or route.runs(command) is not True:
                break
            if not joined and keeps_empty(given.text) is not True:
                break
            if route.expand(given.text, command) != ("--file=" if joined else ""):
                break
            at = command.node.start_byte
            before = [e for e in launcher_ends(ctx, route.launcher) if e.node.start_byte < at]
            undecided = tuple(e for e in before if route.holds(e) is not False)
            if not all(failing(e) for e in undecided):
                return None  # (something before it may end the job otherwise: not decided)
            if may_set_nounset(script.top.file.text) or Flow(script).errexit_at(command):
                return None
            return EmptyRecipeFile(command, given, undecided)
    return None


def _srtctl_commands(script: Script) -> list[Command]:
    """The script's own `srtctl` commands (a nested shell's options are its own), in order."""
    return [
        c for c in script.commands if c.base is not None and posixpath.basename(c.base) == "srtctl"
    ]


def unfollowed(ctx: Context, routes: list[Route] | None = None) -> dict[str, tuple[str, ...]]:
    """Launchers that run, for some entries, nothing benchlint can follow: no script or recipe
    it can evaluate a path to, and no engine of their own (a launcher that starts the engine
    itself, as InferenceX's did until August 2025, is what its jobs run, and is checked): each
    with the names of those entries, in the order of the routes; a route the launcher surely
    ends on with an `exit` runs nothing more (BL202 says so where it fails), nor does one where
    srtctl surely gets an empty recipe path (`empty_recipe_file`: BL202 says what it does).
    Every launcher such an entry reaches so is named; one it reaches that does run something for
    it is not (its label's jobs that land on the other runners are checked). `routes`: those to
    look at (every route of the wiring by default)."""
    wiring = ctx.wiring
    followed: set[tuple[int, str]] = set()
    reached: dict[tuple[int, str], Route] = {}
    for route in wiring.routes if routes is None else routes:
        key = (id(route.entry), route.launcher.path)
        reached.setdefault(key, route)
        if key in followed:
            continue
        recipes = wiring.recipes(route) and runs_srtctl(ctx, route.launcher.path)
        end = route.ended_by()
        ends = end is not None and end.base == "exit"  # (the job ends there: nothing to follow)
        if ends or scripts_run(ctx, route) or recipes or _starts_engine(ctx, route):
            followed.add(key)
        if key not in followed and empty_recipe_file(ctx, route) is not None:
            followed.add(key)  # (BL202 says what srtctl does with it)
    found: dict[str, list[str]] = {}
    for key, route in reached.items():
        if key not in followed:
            found.setdefault(route.launcher.path, []).append(route.entry.name)
    return {path: tuple(names) for path, names in sorted(found.items())}


def _starts_engine(ctx: Context, route: Route) -> bool:
    """Whether the route's launcher starts an engine itself (in its own text or a shell it
    feeds: a heredoc, `bash -c`)."""
    script = ctx.ws.shell(route.launcher.path)
    return script is not None and bool(launches(script))


def _scripts_run(ctx: Context, route: Route) -> list[ScriptRun]:
    script = ctx.ws.shell(route.launcher.path)
    if script is None:
        return []
    below = _scripts_below(ctx)
    found = []
    for call, variable, folders, surely in _script_paths(ctx, script):
        runs = route.runs(call.command)
        if runs is False or unexported_read(call, route) or _globbed(call.word):
            continue
        possible = {f for f, given_by in folders if _may_give(route, given_by)}
        word = in_container(call)
        mounts = bind_mounts(call.command)
        given = variable is not None and variable in route.env.known
        sure = surely if None not in possible else None
        if sure is not None:  # (`run() { local DIR=/w/; docker ... ${DIR}x.sh; }`: h73 M2)
            possible = {
                f
                for f, given_by in folders
                if any(c is sure.command for c in given_by) and _may_give(route, given_by)
            }
            given = False  # (the job's value does not reach the command)
        if given and mounts and possible and _launcher_gives(script, variable, guarded=True):
            continue  # (the launcher's value or the job's, which a mount shows elsewhere: h66)
        if given and (not possible or not _launcher_gives(script, variable)):
            # the launcher gives the variable no value on this route: it keeps the one the
            # entry gave it (`BENCHMARK_SCRIPT` in its additional-settings); in a container,
            # as a mount shows that path (`-w /w ... bash ${NAME}_x.sh`, `bash ${DIR}x.sh`:
            # h64 R4), unless the container gives it a value of its own
            value = route.env.known[str(variable)] + _after_variable(call.word.value)
            shown = None
            if mounts and variable not in container_sets(call.command):
                shown = in_mounted_folder(value, mounts, container_workdir(call.command))
                if shown == "":
                    continue  # (under a mount whose source is not known)
            if shown is not None:
                possible = {repository_folder(call.caller, shown)}
                word = shown
            elif not possible:
                possible = {repository_folder(call.caller, value)}
        pattern = file_name_pattern(ctx, word, route, own_arguments(call.command, route))
        if (None in possible or not possible) and _bare(word, pattern):
            possible = {""}  # (`bash ${MODEL_CODE}_x.sh`, its value on the route: a name alone)
        folder = "" if possible == {""} else _outermost(possible)
        if folder is None or (folder and folder not in below):
            continue  # (a value that names no folder of the repository may reach the command)
        if folder == "" and not _at_root(script, call):
            continue  # (a path with no folder, in a folder that may not be the checkout's)
        # the files in a folder the path may name, by their path below it: a sub-folder only
        # where the route's values give one (`${SCENARIO_SUBDIR}` as `fixed_seq_len/`) or the
        # name starts with an expansion whose value is not known (`${EXTRA}x.sh`, a matrix
        # value: matched by name below the folder); never a file of the same name in a folder
        # the path does not name (bash searches none)
        inside = [f + "/" if f else "" for f in possible]
        named = _named(ctx, below, folder, tuple(inside), pattern)
        if folder == "" and not named and _may_make(script, call, pattern):
            continue  # (at the root, a file the launcher may write before it runs it)
        # (the one path it makes, for BL202 to name where it names no file)
        tried = _literal(pattern.pattern) if len(inside) == 1 and not named else None
        folders_made = tuple(m for f in inside for m in _made_folders(f, pattern.pattern))
        made = inside[0] + tried if tried else None
        found.append(ScriptRun(call, folder, runs, named, made, folders_made))
    return found


def _named(
    ctx: Context,
    below: dict[str, list[tuple[str, str]]],
    folder: str,
    inside: tuple[str, ...],
    pattern: re.Pattern[str],
) -> tuple[str, ...]:
    """The shell files below `folder` a path matching `pattern` may name, in one of the
    folders `inside` (their targets, for symlinks), worked out once per run for each question
    (the launchers' routes ask the same ones)."""
    kept = cast(
        "dict[tuple[str, tuple[str, ...], str], tuple[str, ...]]",
        ctx.ws.models.setdefault("scripts-named", {}),
    )
    key = (folder, inside, pattern.pattern)
    named = kept.get(key)
    if named is None:
        loose = pattern.pattern.startswith(_ANY)
        named = kept[key] = tuple(
            dict.fromkeys(
                ctx.ws.symlinks.get(path, path)
                for name, path in below.get(folder, ())
                if any(
                    path.startswith(f)
                    and (pattern.fullmatch(path[len(f) :]) or (loose and pattern.fullmatch(name)))
                    for f in inside
                )
            )
        )
    return named


def _bare(word: str, pattern: re.Pattern[str]) -> bool:
    """Whether a path word is a file name alone on the route: no `/` in its text, and every
    expansion in it given a value on the route that holds none (one not known may)."""
    return (
        last_separator(word) < 0 and _ANY not in pattern.pattern and not _crosses_folders(pattern)
    )


def _at_root(script: Script, call: Call) -> bool:
    """Whether a path with no folder (`bash x.sh`, `./x.sh`) is read in the checkout's root:
    the launcher changes folders nowhere the command could follow (no `cd`, `pushd` or `popd`
    but one to the checkout, `cd "$GITHUB_WORKSPACE"`, or one in a subshell or a shell of its
    own the command is not in). Not a program run by its name alone (`x.sh ...`: bash looks it
    up in PATH, never in the folder it is in), nor a file sourced (`source x.sh`: PATH first)."""
    words = call.command.invocation.words
    if call.kind != "run" or not words or call.word is words[0]:
        return False
    if not _wrappers_at_root(call.command):
        return False
    for command in script.all_commands():
        if command.base not in ("cd", "pushd", "popd"):
            continue
        words = command.invocation.words[1:]
        target = words[0].value.strip('"') if len(words) == 1 else None
        if target is not None and target.lstrip("${").rstrip("}/") in ROOT_VARIABLES:
            continue
        apart = command.subshell or command.script is not script
        if apart and command.script is not call.command.script:
            continue
        return False
    return True


def _wrappers_at_root(command: Command) -> bool:
    """Whether the wrappers a command runs in (its own, and those of each command whose shell
    string holds it) leave it at the checkout's root: none gives it another working folder
    (`srun --chdir`, `env -C`, `docker run -w`), and a container names one that mounts the
    checkout (`--container-workdir=/workspace/`); a container that names none starts in its
    image's folder."""
    current: Command | None = command
    while current is not None:
        for wrapper in current.invocation.wrappers:
            folder = wrapper.option(*_WORKDIRS)
            if FILES in wrapper.apart and (folder is None or not _names_root(folder)):
                return False
            if folder is not None and not _names_root(folder):
                return False
        current = current.script.parent
    return True


# the options that give a wrapped command its working folder (docker/podman's `-w`, pyxis's,
# Slurm's `--chdir`, env's `-C`, apptainer's `--pwd`)
_WORKDIRS = ("-w", "--workdir", "--container-workdir", "--chdir", "-D", "-C", "--pwd")


def _names_root(folder: str) -> bool:
    """Whether a working folder is the checkout's root: `.`, `$GITHUB_WORKSPACE`, or where a
    container mounts it (`/workspace/`)."""
    value = folder.strip("\"'").rstrip("/") or "/"
    if value in (".", "./"):
        return True
    if value.lstrip("$").strip("{}") in ROOT_VARIABLES:
        return True
    return any(value == mount.rstrip("/") for mount in ROOT_MOUNTS)


# commands that may make a file in the folder they run in, or in one an argument names; and
# those whose `cp` subcommand copies one out of a container or a pod (`docker cp CTR:/x .`)
_MAKERS = frozenset(
    {"cp", "mv", "ln", "install", "rsync", "scp", "tar", "unzip", "curl", "wget", "git"}
    | {"touch", "tee", "dd", "patch", "gunzip", "bunzip2", "unxz", "python", "python3"}
)
_COPIERS = frozenset({"docker", "podman", "kubectl", "oc"})


def _may_make(script: Script, call: Call, pattern: re.Pattern[str]) -> bool:
    """Whether the launcher may write, at the checkout's root, the file a path with no folder
    names (so that it exists when the command runs): a redirection to a name the path can
    give, or to one not known; a command that makes files (`cp`, `curl -o`, `tar -x`, `git
    clone`, `docker cp`, ...), or another script it runs or sources (which could make it)."""
    for command in script.all_commands():
        if command is call.command:
            continue
        for redirect in command.redirects:
            if redirect.operator in (">", ">>", ">|", "&>", "&>>"):
                name = redirect.target.value.strip("\"'")
                if not redirect.target.static or pattern.fullmatch(posixpath.basename(name)):
                    return True
        if command.base in _MAKERS or command.base in ("source", "."):
            return True
        words = command.invocation.words
        if len(words) > 1 and command.base in _COPIERS and words[1].value == "cp":
            return True  # (`docker cp CTR:/opt/x.sh .`)
        at = script_word_at([w.value for w in words]) if words else None
        if at is None and command.invocation.shell and len(words) > 1:
            at = 1 if words[1].value[:1] != "-" else None
        if at is not None and words[at].value != call.word.value:
            return True  # (another script it runs, `bash utils/gen.sh`, may write it)
    return False


def _made_folders(inside: str, pattern: str) -> tuple[str, ...]:
    """The folders the names the pattern matches are in, below `inside` (`fixed_seq_len` of
    `(?:fixed_seq_len/a\\.sh)|(?:fixed_seq_len/b\\.sh)`, the choices a condition makes; both
    of `(?:agentic/|fixed_seq_len/)a\\.sh`), as far as each way it starts is plain text."""
    folders = {posixpath.dirname(start) for start in _starts(pattern)}
    return tuple(sorted(posixpath.join(inside, f) if f else inside.rstrip("/") for f in folders))


def _starts(pattern: str, depth: int = 0) -> list[str]:
    """The plain text each way the pattern can match starts with (a group it starts with read
    as its choices, each followed by the rest)."""
    found: list[str] = []
    for choice in _choices(pattern):
        end = _closes(choice) if choice.startswith("(?:") else -1
        if end > 0 and depth < 4 and len(found) < 16:
            rest = choice[end:]
            found.extend(
                s for c in _choices(choice[3 : end - 1]) for s in _starts(c + rest, depth + 1)
            )
        else:
            found.append(_literal_start(choice))
    return found


def _literal_start(pattern: str) -> str:
    """The text every match of the pattern starts with, as far as its plain characters go."""
    pattern = _ONE_CHOICE.sub(r"\1", pattern)
    text, index = [], 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            text.append(pattern[index + 1])
            index += 2
            continue
        if char in "[](){}*+?|^$.":
            break
        text.append(char)
        index += 1
    return "".join(text)


def _choices(pattern: str) -> list[str]:
    """The pattern's alternatives at its top level (inside one group around all of it)."""
    while pattern.startswith("(?:") and pattern.endswith(")") and _closes(pattern) == len(pattern):
        pattern = pattern[3:-1]
    found, depth, start, index = [], 0, 0, 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            found.append(pattern[start:index])
            start = index + 1
        index += 1
    return [*found, pattern[start:]]


def _closes(pattern: str) -> int:
    """Where the group the pattern opens with ends (the index after its `)`)."""
    depth, index = 0, 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        depth += (char == "(") - (char == ")")
        index += 1
        if depth == 0:
            return index
    return -1


def _literal(pattern: str) -> str | None:
    """The one text a pattern of escaped literal text matches (`agentic/m1\\.sh`, a group of one
    choice, `(?:m1)\\.sh`, too), else None."""
    pattern = _ONE_CHOICE.sub(r"\1", pattern)
    text = re.sub(r"\\(.)", "", pattern)
    if any(c in text for c in "[](){}*+?|^$."):
        return None
    return re.sub(r"\\(.)", r"\1", pattern)


_ONE_CHOICE = lazy_compile(r"\(\?:((?:[^()|\\]|\\.)*)\)")


def unexported_read(call: Call, route: Route | None = None) -> bool:
    """Whether the path is in a shell of its own the launcher starts (`srun bash -c "..."`) and
    reads a name there that the launcher assigns and never exports (`MODEL_CODE=x`, then `bash
    -c "bash benchmarks/\\${MODEL_CODE}.sh"`, escaped: the new shell expands it): that shell
    gets the value from its environment, not the launcher's, so which file it names is not
    known (the launcher's value is not it). A name the launcher expands in the string before
    the new shell starts, or exports (`set -a` too), is the launcher's; so is one the route
    starts the launcher with (the workflow's `MODEL`: bash exports what it inherits)."""
    nested = call.command.script
    parent = nested.parent
    if parent is None or same_shell(parent):
        return False
    outer = parent.script
    expanded = {outer.char_of(r.node.start_byte) for w in parent.words for r in w.reads()}
    for read in call.word.reads():
        if nested.char_of(read.node.start_byte) in expanded:
            continue
        assigned = [a for a in outer.top.assignments if a.name == read.name]
        if not assigned or any(a.exported for a in assigned):
            continue
        incoming = (
            route.env.before_assigning(frozenset({read.name})).get(read.name)
            if route is not None
            else None
        )
        if incoming is None or incoming is UNSET:
            return True
    return False


# the repository folder a script path names (None: none known), and the assignments that give
# the path's variables the values that name it: it is named when they all may run (none: the
# path is written so)
Folders = list[tuple[str | None, tuple[Command, ...]]]


def _outermost(folders: set[str | None]) -> str | None:
    """The one folder the path names, or (`benchmarks/${SUBDIR}` with SUBDIR `multi_node` or
    `multi_node/agentic` on the route) the folder that holds all the others; None when none
    does or one is not known (`_scripts_run` looks below it for the files of each folder)."""
    if None in folders or not folders:
        return None
    outer = min(folders, key=lambda f: len(f or ""))
    assert outer is not None
    inside = all(f == outer or (f or "").startswith(outer + "/") for f in folders)
    return outer if inside and outer else None


def _script_paths(ctx: Context, script: Script) -> list[_ScriptPath]:
    """The script's commands that run a file by a path that may name a folder of the
    repository that holds scripts (else a file made at run time, in a folder of its own, or
    outside), with the variable the path starts with (if it is one), the folders the script's
    values can name and the assignment that surely gives the variable its value there
    (`_surely_assigned`); worked out once per launcher. A file sourced by a name the
    route's values choose (`source benchmarks/${MODEL_CODE}_mi300x_docker.sh`) is run too; a
    library sourced by a fixed name is not what a route runs."""
    memo = ctx.ws.models.setdefault("script-paths", {})
    assert isinstance(memo, dict)
    if script.path not in memo:
        below = _scripts_below(ctx)
        memo[script.path] = [
            (call, variable, folders, _surely_assigned(call.command, variable))
            for call in ctx.environment.calls.calls_in(script)
            if call.kind == "run" or (call.kind == "source" and "$" in _file_name(call.word.value))
            for variable, folders in [_folders(call)]
            if variable is not None
            or any(f is not None and (f in below or f == "") for f, _ in folders)
        ]
    found: list[_ScriptPath] = memo[script.path]
    return found


# a call of a script by its path, the variable the path starts with, the folders it can name,
# and the assignment that surely gives that variable its value there (`_script_paths`)
_ScriptPath = tuple[Call, str | None, Folders, Assignment | None]


def _folders(call: Call) -> tuple[str | None, Folders]:
    """The variable a script path word is held in, if it starts with one (`bash
    "$BENCH_SCRIPT"`), and the folders it can name: the word's own, or the folder of each value
    the script gives the variable, by the assignments that give it."""
    value = call.word.value.strip()
    match = _LEADING_VARIABLE.match(value)
    name = (match.group(1) or match.group(2)) if match is not None else None
    assigned = reaching(name, call.command) if name is not None else []
    if name is not None and (
        any(
            a.value is None and gives_value(a) and not a.command.apart_from_script
            for a in reaching(name, call.command, valued=False)
        )
        or _unset_before(name, call.command)
    ):
        # (`for DIR in ...`, a bare `local DIR`, `unset DIR`: a value not read; h73 M1)
        return name, [(None, ())]
    if not assigned and any(a.name == name for a in call.command.script.assignments):
        return name, []  # none reaches the command: the value it came in with, the route's
    mounts = bind_mounts(call.command)  # (`docker run -v "$(pwd)/benchmarks:/w" img /w/x.sh`)
    if not assigned:  # (`$GITHUB_WORKSPACE/...`, a mount of the checkout)
        workdir = container_workdir(call.command)  # (`-w /w img bash x.sh`)
        inside = in_mounted_folder(value, mounts, workdir) if workdir is not None else None
        if inside == "":
            return name, []  # (in a folder a mount shows whose source is not known)
        folder = repository_folder(call.caller, inside or value, mounts=mounts)
        if folder is not None:
            return name, [(folder, ())]
        return name, _in_folder_part(call.caller, call.command, value, mounts)
    rest = _after_variable(value)
    found: Folders = []
    for assignment in assigned:
        assert assignment.value is not None
        path = assignment.value.value + rest
        named = repository_folder(call.caller, path, mounts=mounts)
        nested = (
            _in_folder_part(call.caller, assignment.command, path, mounts) if named is None else []
        )
        if nested:  # `P=benchmarks/${SUBDIR}/x.sh`: the values SUBDIR has there
            found.extend((folder, (assignment.command, *givers)) for folder, givers in nested)
        else:
            found.append((named, (assignment.command,)))
    return name, found


_MAX_VALUES = 16


def _unset_before(name: str, command: Command) -> bool:
    """Whether an `unset` of the variable may run before the command in its shell
    (`before_in_shell`)."""
    if not command.script.top.may_unset(name):
        return False
    return any(other.unsets(name) for other in before_in_shell(command))


def _in_folder_part(
    script: Script,
    command: Command,
    value: str,
    mounts: Sequence[tuple[str, str | None]] = (),
) -> Folders:
    """`benchmarks/${BENCHMARK_SUBDIR}/${SCRIPT_NAME}`: the folder each combination of the
    values the script gives the variables of the folder part names, with the assignments that
    give them."""
    cut = last_separator(value)
    choices: list[tuple[re.Match[str], list[tuple[str, Command]]]] = []
    for match in PATH_EXPANSION.finditer(value, 0, max(cut, 0)):
        name = match.group(0).strip("${}")
        given = [(a.value.value, a.command) for a in reaching(name, command) if a.value is not None]
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or not given:
            return []
        choices.append((match, given))
    combinations: list[tuple[str, tuple[Command, ...]]] = [(value, ())]
    for match, given in reversed(choices):  # (from the right: earlier offsets stay valid)
        combinations = [
            (text[: match.start()] + v + text[match.end() :], (*givers, command))
            for text, givers in combinations
            for v, command in given
        ]
        if len(combinations) > _MAX_VALUES:
            return []
    return [
        (repository_folder(script, text, mounts=mounts), givers) for text, givers in combinations
    ]


_LEADING_VARIABLE = lazy_compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})")


def _after_variable(value: str) -> str:
    """A path word's text after the variable it starts with."""
    match = _LEADING_VARIABLE.match(value.strip())
    return value.strip()[match.end() :] if match is not None else value


def _globbed(word: Word) -> bool:
    """Whether bash may expand the path as a glob (`benchmarks/${SUBDIR}*_b200.sh`: a `*`, `?`
    or `[` outside quotes; h93 F6): which file it names is the disk's to say."""
    return _GLOB.search(_UNQUOTED_PARTS.sub("", word.text)) is not None


# the quoted parts of a word's text, its escaped characters and its expansions (`${X%%_*}`,
# `$(...)`): what is left is the text bash may glob
_UNQUOTED_PARTS = lazy_compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"|\\.|\$\{[^}]*\}|\$\([^)]*\)|`[^`]*`")
_GLOB = lazy_compile(r"[*?\[]")


def _may_give(route: Route, given_by: tuple[Command, ...]) -> bool:
    """Whether these assignments may all run on the route (none: the path is written so)."""
    return all(route.holds(command) is not False for command in given_by)


def _scripts_below(ctx: Context) -> dict[str, list[tuple[str, str]]]:
    """Each folder of the repository, and the shell files in it or below it (name, path), the
    symlinks to them too (by the link's path: `ScriptRun.scripts` holds their targets)."""
    kept = ctx.ws.models.get("scripts-below")
    if isinstance(kept, dict):
        return kept
    below: dict[str, list[tuple[str, str]]] = {}
    shell = set(ctx.ws.shell_paths)
    links = [link for link, target in ctx.ws.symlinks.items() if target in shell]
    for path in [*ctx.ws.shell_paths, *links]:  # (a link to a script names it: t71a)
        parent, name = posixpath.split(path)
        if not parent:
            below.setdefault("", []).append((name, path))
        while parent:
            below.setdefault(parent, []).append((name, path))
            parent = posixpath.dirname(parent)
    ctx.ws.models["scripts-below"] = below
    return below


def file_name_pattern(ctx: Context, word: str, route: Route, top: bool = False) -> re.Pattern[str]:
    """The file names a script path word of the route's launcher can give on this route: the
    route's entry values in its expansions, the launcher's own variables by the values it
    assigns them, `${EXP_NAME%%_*}` by the entry's model prefix, what a command substitution
    can print, the launch line's arguments (`${1%%_*}`) where the word is the launcher's own
    (`top`: `own_arguments`); anything else matches any part of a name."""
    memo = ctx.ws.models.setdefault("release-patterns", _Memo())
    assert isinstance(memo, _Memo)
    return _file_name_pattern(word, route, memo, top)


def own_arguments(command: Command, route: Route) -> bool:
    """Whether `$1` in the command's words is the launcher's first argument: a command of its
    top level (no function's, no nested shell's) with no `shift` or `set --` there before it."""
    script = route.launcher.script
    if command.script is not script or command.function is not None:
        return False
    return not positionals_changed_before(command)


def _file_name_pattern(word: str, route: Route, memo: _Memo, top: bool = False) -> re.Pattern[str]:
    key = (word, id(route), top)
    known = memo.by_route.get(key)
    if known is not None and known[0] is route:  # (a word is asked for once per script it names)
        return known[1]
    pattern = _rendered_pattern(word, route, memo, top)
    memo.by_route[key] = (route, pattern)  # the route kept: its id is not reused while it is
    return pattern


def _rendered_pattern(word: str, route: Route, memo: _Memo, top: bool) -> re.Pattern[str]:
    script = route.launcher.script
    text = _file_name(word)
    whole = len(text) < len(word)
    template = _template(text, script, 0, memo, top=top, whole=whole)
    holes = memo.holes.get((text, script.path, top, whole))
    if holes is None:  # (hashing a template is dear: its holes are looked up by its text)
        holes = memo.holes[text, script.path, top, whole] = _holes(template)
    env = route.env
    signature = (
        text,
        script.path,
        top,
        whole,
        route.entry.fields.get(profile.EXP_NAME_PREFIX),
        tuple((n, env.known.get(n), env.knows(n)) for n in holes),
        tuple(route.holds(command) is not False for command in _givers(template)),
        # (a substitution's printers and `${X:+...}`'s assignments: whether each surely runs)
        tuple(route.holds(command) for command in _givers(template, exact=True)),
    )
    pattern = memo.rendered.get(signature)
    if pattern is None:
        pattern = memo.rendered[signature] = re.compile(_render(template, route))
    return pattern


@functools.lru_cache(maxsize=4096)
def _holes(template: tuple[object, ...]) -> tuple[str, ...]:
    """The variables a template's rendering reads, its fallbacks' included."""
    names: list[str] = []
    for item in template:
        if isinstance(item, _Hole):
            names.append(item.name)
            for alternative, _ in item.fallback or ():
                names.extend(_holes(alternative))
        elif isinstance(item, _Defaulted):
            names.extend((item.name, *_holes(item.default)))
        elif isinstance(item, _Positional):
            names.append(item.index)
        elif isinstance(item, _Alternate):
            names.extend((item.name, *_holes(item.word)))
    return tuple(dict.fromkeys(names))


@functools.lru_cache(maxsize=4096)
def _givers(template: tuple[object, ...], exact: bool = False) -> tuple[Command, ...]:
    """The assignments whose values a template's fallbacks stand for: whether each runs on a
    route decides which of them its rendering offers. `exact`: the commands whose rendering
    tells one that surely runs from one that may (a substitution's printers, the assignments
    `${X:+...}` reads); else the others."""
    found: list[Command] = []
    for item in template:
        if isinstance(item, _Hole):
            for alternative, given_by in item.fallback or ():
                found.extend(() if exact else given_by)
                found.extend(_givers(alternative, exact))
        elif isinstance(item, _Printed):
            found.extend(command for command, _ in item.printers if exact)
        elif isinstance(item, _Alternate):
            found.extend(command for _, command in item.givers if exact)
            found.extend(_givers(item.word, exact))
        elif isinstance(item, _Defaulted):
            found.extend(_givers(item.default, exact))
    return tuple(dict.fromkeys(found))


@dataclass(frozen=True)
class _Hole:
    """An expansion whose text depends on the route: the route's value for `name` when it knows
    one, else one of the launcher's own values for it (`fallback`: their templates), else any
    part of a name. `prefix`: `${EXP_NAME%%_*}` (name EXP_NAME): the route's EXP_NAME up to its
    first `_`, else the entry's model prefix."""

    name: str
    # each assignment's template, with the assignment
    fallback: tuple[tuple[tuple[object, ...], tuple[Command, ...]], ...] | None = None
    prefix: bool = False


@dataclass(frozen=True)
class _Printed:
    """A command substitution that prints only literal text, in an assignment of the launcher
    (`SPEC_SUFFIX=$([[ "$SPEC_DECODING" == mtp ]] && printf _mtp || printf '')`): what it can
    print, and its printing commands with what each prints. On a route, a printer whose
    conditions are false there prints nothing."""

    outputs: frozenset[str]
    printers: tuple[tuple[Command, str], ...]


@dataclass(frozen=True)
class _Positional:
    """`$1`, `${1%%_*}` in an assignment of the launcher's top level, before any `shift` or
    `set --` there: the argument the route's launch line gives (`${{ inputs.exp-name }}`, or
    none: unset) with the expansion's operator applied as bash does."""

    index: str
    text: str  # the expansion, the parameter written as `__POSITIONAL`


@dataclass(frozen=True)
class _Defaulted:
    """`${NAME:-default}` (`colon`) or `${NAME-default}`, for a variable the launcher does not
    assign: the route's value, else the default's (its template: text, or expansions nested in
    it, `${BENCH:-${MODEL_PREFIX}_h100}`, h101 M4)."""

    name: str
    colon: bool
    default: tuple[object, ...]


_DEFAULTED = lazy_compile(
    r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P<colon>:?)-(?P<default>[^`\\]*)\}", re.DOTALL
)


@dataclass(frozen=True)
class _Alternate:
    """`${NAME:+word}`: the word where the variable is not empty on the route, nothing where it
    is (`benchmarks/${MODEL_PREFIX}_h200${FRAMEWORK:+_$FRAMEWORK}_slurm.sh`, t73b: InferenceX
    9c068007e)."""

    name: str
    # the launcher's assignments of it, in text order: whether each makes it empty (None: its
    # value is not plain text), with the assignment
    givers: tuple[tuple[bool | None, Command], ...]
    word: tuple[object, ...]  # the word's template


# `${NAME:+word}`, the word with no braces, quotes or backslashes in it
_ALTERNATE = lazy_compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*):\+(?P<word>[^{}`'\"\\]*)\}")
_ANY = "[^/]*"  # an expansion benchlint cannot evaluate: any part of a name


@functools.lru_cache(maxsize=4096)
def _file_name(text: str) -> str:
    """The last path component of a word, not splitting inside `${...}` or `$(...)`."""
    return text[last_separator(text) + 1 :]


def _template(
    text: str,
    script: Script,
    depth: int,
    memo: _Memo,
    owner: Command | None = None,
    top: bool = False,
    whole: bool = False,
) -> tuple[object, ...]:
    """The route-independent parts of a file-name pattern (regular expression text) and its
    holes, worked out once per text and launcher. `owner`: the assignment whose value the text
    is (None: the command's own word; `top`: one whose `$1` is the launch line's). `whole`: the
    text follows a folder the path names (`benchmarks/${SUBDIR}${M}.sh`), so a variable's whole
    value is part of the name there (`SUBDIR=agentic/` a sub-folder); else (`"$BENCH_SCRIPT"`)
    a variable holds the whole path, and its file name is the name."""
    key = (text, script.path, depth, id(owner) if owner is not None else int(top), whole)
    cached = memo.templates.get(key)
    if cached is not None:
        return cached
    items: list[object] = []
    position = 0
    for match in PATH_EXPANSION.finditer(text):
        found = match.group(0)
        if found.startswith("${") and found.count("{") != found.count("}"):
            items = [_ANY]  # (nested deeper than the pattern reads: not known, h106 F8)
            break
        items.append(re.escape(text[position : match.start()]))
        items.append(_expansion(found, script, depth, memo, owner, top, whole))
        position = match.end()
    else:
        items.append(re.escape(text[position:]))
    template = memo.templates[key] = tuple(items)
    return template


def _expansion(
    expansion: str,
    script: Script,
    depth: int,
    memo: _Memo,
    owner: Command | None = None,
    top: bool = False,
    whole: bool = False,
) -> object:
    name = expansion.strip("${}")
    if name == "EXP_NAME%%_*":
        return _Hole("EXP_NAME", prefix=True)
    if name[:1] and name[0] in "123456789" and not name[1:2].isdigit():
        return _positional(expansion, name[0], script, owner, top)
    alternate = _ALTERNATE.fullmatch(expansion)
    if alternate is not None:  # `${FRAMEWORK:+_$FRAMEWORK}`
        givers = _plain_assignments(script, alternate["name"], expansion)
        if givers is None:
            return _ANY
        word = _template(alternate["word"], script, depth + 1, memo, owner, top, whole)
        return _Alternate(alternate["name"], givers, word)
    defaulted = _DEFAULTED.fullmatch(expansion)
    if defaulted is not None:  # `${SCENARIO_SUBDIR:-fixed_seq_len/}`
        variable = defaulted["name"]
        if any(a.name == variable for a in script.assignments):
            return _ANY  # (the launcher's own values: not followed through a default)
        # (`${X:-"d"}`: bash removes the quotes, in double quotes too)
        default = defaulted["default"].replace('"', "")
        if "'" in default or re.search(r"[${}]", PATH_EXPANSION.sub("", default)):
            # (kept in double quotes, `"${X:-'d'}"`, removed outside them: which, the word's
            # value no longer says, h100 F2; or an expansion not of a path's kinds)
            return _ANY
        template = _template(default, script, depth + 1, memo, owner, top, whole)
        return _Defaulted(variable, defaulted["colon"] == ":", template)
    printed = substitution_pattern(expansion)
    if printed is not None:
        printers = _printers(script, owner, expansion) if owner is not None else None
        if printers:
            outputs = substitution_outputs(expansion[2:-1])
            assert outputs is not None  # (substitution_pattern found them)
            return _Printed(outputs, printers)
        return printed
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or depth >= 5:
        return _ANY
    assigned = [a for a in script.assignments if a.name == name and a.value]
    if not assigned or len(assigned) > 16:
        return _Hole(name)
    alternatives = [
        (_value_template(a.value.value, script, depth + 1, memo, a.command, whole), (a.command,))
        for a in assigned
        if a.value is not None
    ]
    return _Hole(name, tuple(sorted(alternatives, key=lambda item: repr(item[0]))))


def _plain_assignments(
    script: Script, name: str, expansion: str
) -> tuple[tuple[bool | None, Command], ...] | None:
    """The launcher's assignments of the variable (whether each makes it empty, None where its
    value is not plain text), where those and the value it was started with are all it can
    hold where the text first reads it so (`expansion`): each of its own top level and before
    that read; none in a function, a loop or a nested shell, no `unset` of it, no file sourced
    and no `eval` (t74a: each of those gave a false BL202); else None."""
    first = script.file.text.find(expansion)
    for command in script.all_commands():
        if command.base in ("source", ".", "eval"):
            return None
        if command.base == "unset" and any(w.value == name for w in command.args):
            return None
    found: list[tuple[bool | None, Command]] = []
    for assignment in script.assignments:
        if assignment.name != name or assignment.keeps_value:  # (`export FRAMEWORK`)
            continue
        command = assignment.command
        if command.script is not script or command.function is not None or command.loops:
            return None
        if assignment.kind not in ("assign", "export", "declare", "readonly"):
            return None  # (`for`, `read`, a prefix, one named at run time)
        if first < 0 or script.char_of(assignment.node.start_byte) > first:
            return None
        value = assignment.value
        text = script.text_of(value.node) if value is not None else ""
        plain = "$" not in text and "`" not in text
        found.append(((value is None or value.value == "") if plain else None, command))
    found.sort(key=lambda item: item[1].node.start_byte)
    return tuple(found)


def _value_template(
    value: str, script: Script, depth: int, memo: _Memo, owner: Command, whole: bool
) -> tuple[object, ...]:
    """A variable's value in a file-name template: whole after a folder the path names, else
    its file name (`_template`'s `whole`)."""
    if whole:
        return _template(value, script, depth, memo, owner, whole=True)
    name = _file_name(value)
    return _template(name, script, depth, memo, owner, whole=len(name) < len(value))


def _positional(
    expansion: str, index: str, script: Script, owner: Command | None, top: bool = False
) -> object:
    """A positional parameter in a path's template: the route's argument where the expansion is
    in an assignment at the launcher's top level with no `shift` or `set --` there before it, or
    in a word of such a command (`top`; elsewhere it is a function's argument, or another one);
    else any part of a name."""
    if owner is not None and (
        owner.function is not None
        or owner.script is not script
        or positionals_changed_before(owner)
    ):
        return _ANY
    if owner is None and not top:
        return _ANY
    at = expansion.index(index)
    text = (
        "${__POSITIONAL" + expansion[at + 1 :] if expansion.startswith("${") else "${__POSITIONAL}"
    )
    return _Positional(index, text)


def _printers(
    script: Script, owner: Command, expansion: str
) -> tuple[tuple[Command, str], ...] | None:
    """The printing commands of the one command substitution in an assignment, each with the
    one text it prints; None when the assignment holds another substitution, or a printer
    prints more than one text."""
    if script.text_of(owner.node).count("$(") != 1:
        return None
    start, end = owner.node.start_byte, owner.node.end_byte
    found = []
    for command in script.commands:
        inside = start < command.node.start_byte and command.node.end_byte <= end
        if not inside or command.base not in ("printf", "echo"):
            continue
        printed = substitution_outputs(script.text_of(command.node))
        if printed is None or len(printed) != 1:
            return None
        found.append((command, next(iter(printed))))
    return tuple(found) or None


def _printed_on(item: _Printed, route: Route) -> str:
    """What the substitution can print on the route: the printers whose conditions hold
    there print, those that may hold may print, the others do not (within what its structure
    lets it print at all)."""
    outputs = {""}
    for command, text in item.printers:
        holds = route.holds(command)
        if holds is True:
            outputs = {o + text for o in outputs}
        elif holds is None:
            outputs |= {o + text for o in outputs}
    found = sorted(outputs & item.outputs) or sorted(item.outputs)
    return "(?:" + "|".join(re.escape(o) for o in found) + ")"


def _empty_on(item: _Alternate, route: Route) -> set[bool] | None:
    """Whether the variable may be empty (or unset) on the route, and whether it may not: the
    value the launcher was started with, then its assignments in text order
    (`_plain_assignments`), one that surely runs there replacing what was before, one that may
    adding to it; None where a value is not known."""
    start = route.env.before_assigning(frozenset({item.name})).get(item.name)
    found: set[bool] | None = None if start is None else {start is UNSET or not start}
    for empty, command in item.givers:
        holds = route.holds(command)
        if holds is False:
            continue
        if empty is None:
            return None
        if holds is True:
            found = {empty}
        elif found is not None:
            found.add(empty)
    return found


def _render(template: tuple[object, ...], route: Route) -> str:
    out = []
    env = route.env
    for item in template:
        if isinstance(item, str):
            out.append(item)
            continue
        if isinstance(item, _Printed):
            out.append(_printed_on(item, route))
            continue
        if isinstance(item, _Alternate):
            empty = _empty_on(item, route)
            if empty is None:
                out.append(_ANY)
            else:
                options = sorted({"" if e else _render(item.word, route) for e in empty})
                out.append(options[0] if len(options) == 1 else "(?:" + "|".join(options) + ")")
            continue
        if isinstance(item, _Defaulted):
            if not env.knows(item.name):
                out.append(_ANY)
                continue
            value = env.known.get(item.name)  # (None: unset on the route)
            if value is None or (item.colon and not value):
                out.append(_render(item.default, route))
            else:
                out.append(re.escape(value))
            continue
        if isinstance(item, _Positional):
            given = env.known.get(item.index) if item.index not in env.unknown else None
            found = expanded(item.text, {"__POSITIONAL": given}.get) if given is not None else None
            out.append(_ANY if found is None else re.escape(found))
            continue
        assert isinstance(item, _Hole)
        if item.prefix:  # (`${EXP_NAME%%_*}`: the value up to its first `_`)
            known = env.known.get(item.name) if item.name not in env.unknown else None
            prefix = known.split("_", 1)[0] if known else None
            prefix = prefix or route.entry.fields.get(profile.EXP_NAME_PREFIX)
            out.append(re.escape(prefix) if prefix else _ANY)
        elif item.name in env.known and item.name not in env.unknown:
            out.append(re.escape(env.known[item.name]))
        elif item.fallback is None:
            out.append(_ANY)
        else:  # the values of the assignments that may run on the route
            rendered = sorted(
                {_render(t, route) for t, given_by in item.fallback if _may_give(route, given_by)}
            )
            if rendered:
                out.append("(?:" + "|".join(rendered) + ")")
            elif item.name in env.known:  # none does: the value the entry gave it (a path)
                out.append(re.escape(env.known[item.name].rsplit("/", 1)[-1]))
            else:
                out.append(_ANY)
    return "".join(out)
