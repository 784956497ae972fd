"""Which script runs or sources which: `source lib.sh`, `bash x.sh`, `srun ... bash x.sh`, `./x.sh`.

Paths are resolved the way the scripts are run in an InferenceX-style repository: relative to the
repository root (launchers run from the checkout) or to the script's own directory
(`$(dirname "$0")`, a `SCRIPT_DIR` assigned from it); container mounts of the checkout
(`/workspace`, `/infmax-workspace`, `$GITHUB_WORKSPACE`, `$INFMAX_WORKSPACE`) are the root. In a
`docker run`/`podman run`, a path under a bind mount of a folder of the checkout is that folder's
(`-v $(realpath benchmarks/):/tmp/ img bash /tmp/x.sh`, `--mount`, `-w`: `bind_mounts`), where
the mount's source is known: one relative to a working folder the launcher may have changed,
or held in a variable, is not.
Any other expansion stands for the values the script assigns to that variable, what a command
substitution can print when it prints only literals, or else for any one path component, so one
launcher line can run many benchmark scripts.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from benchlint import profile
from benchlint.lazyre import lazy_compile
from benchlint.shell.braces import expansions
from benchlint.shell.invocation import LONE_VARIABLE, Invocation, Wrapper
from benchlint.shell.model import (
    IN_THIS_SHELL,
    Assignment,
    Command,
    Script,
    Word,
    visible_assignments,
)
from benchlint.shell.output import substitution_pattern
from benchlint.workspace import Workspace

ROOT_VARIABLES = profile.WORKSPACE_VARIABLES
ROOT_MOUNTS = profile.WORKSPACE_MOUNTS


def _nested(depth: int) -> str:
    """A `${...}` holding others nested up to `depth` deep (`${A:-${B:-${C}_x}}`: two)."""
    inner = r"[^}]*"
    for _ in range(depth):
        inner = rf"(?:\$\{{{inner}\}}|\$(?!\{{)|[^}}$])*"
    return rf"\$\{{{inner}\}}"


# an expansion in a path word: `${...}` (others nested in it: `${A:-${B}_x}`, h100 F1, h101 F5),
# `$(...)` (one level of nesting), `$NAME`, `$1`
PATH_EXPANSION = lazy_compile(
    _nested(3) + r"|\$\((?:[^()]|\([^()]*\))*\)|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]"
)
_SOURCE_COMMANDS = frozenset({"source", "."})


@dataclass(frozen=True)
class Call:
    caller: Script
    command: Command
    kind: str  # "source" | "run"
    targets: tuple[str, ...]  # repository paths; empty when it cannot be resolved
    word: Word
    # a file outside the repository whose effect the profile knows: a Python virtual
    # environment's activation script (`venv_activate`, see `venv_activation`), or a file that
    # only puts a tool on PATH (`path_env_files`): what sourcing it assigns and exports
    known: dict[str, list[str]] | None = None


def script_word(command: Command) -> tuple[str, Word] | None:
    """The script a command sources or runs, with how: ("source"|"run", word)."""
    invocation = command.invocation
    words = invocation.words
    if not words:
        return None
    base = invocation.base
    if base in _SOURCE_COMMANDS and all(w.name in IN_THIS_SHELL for w in invocation.wrappers):
        return ("source", words[1]) if len(words) > 1 else None
    if words[0].value.endswith((".sh", ".bash")):  # `./run.sh`, `srun ... "$DIR/x.sh"`
        return "run", words[0]
    if invocation.wrappers and invocation.wrappers[-1].name == "sbatch":
        return "run", words[0]  # `sbatch job.slurm`: its operand is the job's script, any name
    if not invocation.shell:
        return None
    for word in words[1:]:
        value = word.value
        if value.startswith("-") or value.startswith("+"):
            if "c" in value[1:] and not value.startswith("--"):
                return None  # `bash -c STRING` is a nested script, not a file
            continue
        return "run", word
    return None


def _held_path(command: Command) -> tuple[str, Word] | None:
    """A command run by a path a variable holds (`"$RUN_FILE_FULL" 2>&1 | tee log`, with
    `RUN_FILE_FULL="$WS_PATH/${RUN_FILE}"` and `RUN_FILE="server.sh"`; InferenceX's amd_utils
    job.slurm): ("held", word), a call where its values name scripts of the repository."""
    words = command.invocation.words
    match = LONE_VARIABLE.fullmatch(words[0].text.strip('"')) if words else None
    if match is None:
        return None
    # (where a string runs it, the variable is one the shell that expands it has: not one only
    # the host sets, `docker run img bash -lc '"$RUN" | tee log'`; t84a)
    name = match.group(1) or match.group(2)
    if any("/" not in v for v in _path_values(words[0].script.top, name)):
        return None  # (`RUN=server.sh; "$RUN"`: a name with no `/` is looked up in PATH)
    shell = _expanding_script(words[0], name)
    if shell.parent is not None and not visible_assignments(shell, name):
        return None
    return "held", words[0]


def _expanding_script(word: Word, name: str) -> Script:
    """The script whose shell expands the word's `$NAME`: its own, or, where the string that
    is its text got the `$` from an expansion in the command that runs it (`bash -lc
    "...'"$RUN"'..."`: the outer shell puts the value in), that command's, and so on up."""
    script = word.script
    at = word.offsets[0] if word.offsets else None
    while script.parent is not None and at is not None:
        command = script.parent
        outer = command.script
        if not any(
            r.name == name and outer.char_of(r.node.start_byte) == at
            for w in command.words
            for r in w.reads()
        ):
            break
        script = outer
    return script


def call_graph(ws: Workspace) -> CallGraph:
    """The run's call graph (one per workspace: the wiring and the environment share it)."""
    graph = ws.models.get("calls")
    if not isinstance(graph, CallGraph):
        graph = ws.models["calls"] = CallGraph(ws)
    return graph


class CallGraph:
    """Calls are found per script on demand, and kept with the script (freed with its model).
    Who calls a file is answered from each script's call facts, (kind, targets) per call, plain
    data: cached by the script's content and the list of the repository's shell files (what its
    paths resolve against), so a run that lints one file parses only the scripts that really
    call it. A whole-repository run indexes every script's facts."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._token = object()  # this graph's calls in a script's memo (not an earlier run's)
        self._callers: dict[str, list[str]] | None = None  # target -> the paths calling it
        self._facts: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        self._listing = hashlib.sha256("\0".join(sorted(ws.script_paths)).encode()).digest()
        self._every: dict[str, list[tuple[str, tuple[str, ...]]]] | None = None

    def calls_in(self, script: Script) -> list[Call]:
        """Every call in `script`, its nested scripts included."""
        return script.derived("calls", self._token, lambda: self._calls_in(script))

    def _calls_in(self, script: Script) -> list[Call]:
        found = []
        for command in script.all_commands():
            word_found = script_word(command) or _held_path(command)
            if word_found is None:
                continue
            kind, word = word_found
            value = word.value
            relative = not value.startswith(("$", "/", "~"))
            folder = _changed_to(command, self._moves_in) if relative else None
            workdir = container_workdir(command) if not value.startswith(("/", "~")) else None
            if value.startswith("/") or workdir is not None:
                # (in a container: a folder of the checkout a mount shows)
                mapped = in_mounted_folder(value, bind_mounts(command), workdir)
                if mapped == "":  # (under a mount whose source is not known: not followed)
                    if kind != "held":
                        found.append(Call(script, command, kind, (), word))
                    continue
                value = mapped or value
                folder = "" if value is not word.value else folder
            targets = tuple(resolve(self.ws, script, value, folder=folder) or ())
            if not targets and kind == "held":
                continue  # (a variable that holds a program, or nothing known)
            kind = "run" if kind == "held" else kind
            sourced = kind == "source" and not targets
            known = known_source(script, word.value) if sourced else None
            found.append(Call(script, command, kind, targets, word, known))
        return found

    def _moves_in(self, command: Command) -> set[str] | None:
        """What sourcing a file does to the shell's folder (`_changed_to`): the names of its
        functions that change folders, or None where its top level does, it sources another
        file, or which file it is is not known."""
        words = command.invocation.words
        targets = resolve(self.ws, command.script, words[1].value) if len(words) > 1 else None
        library = self.ws.shell(targets[0]) if targets and len(targets) == 1 else None
        if library is None or any(
            c.function is None and c.base in (*_MOVES, "source", ".") for c in library.commands
        ):
            return None
        return _moving_functions(library)

    def index(self) -> None:
        """Index every script's call facts: one pass answers is_sourced and callers_of for all
        (a whole-repository run)."""
        if self._callers is None:
            callers: dict[str, list[str]] = {}
            every = self._every_facts()
            for path in self.ws.shell_paths:
                for _, targets in every[path]:
                    for target in targets:
                        found = callers.setdefault(target, [])
                        if not found or found[-1] != path:
                            found.append(path)
            self._callers = callers

    def _every_facts(self) -> dict[str, list[tuple[str, tuple[str, ...]]]]:
        """Every script's call facts, for a question about all of them (who calls a file),
        kept in the cache as one table for the repository and its list of shell files (path:
        content hash, facts): a run reads one entry, not one per script, and reads no script
        the index knows unchanged."""
        if self._every is None:
            cache = self.ws.cache
            root = str(self.ws.root)
            stored = cache.get("calls-table", root, self._listing) if cache is not None else None
            table: dict[str, Any] = stored if isinstance(stored, dict) else {}
            now: dict[str, Any] = {}
            for path in self.ws.shell_paths:
                digest = self.ws.digest(path) if cache is not None else None
                entry = table.get(path)
                if digest is not None and isinstance(entry, list) and entry[0] == digest:
                    self._facts.setdefault(path, [(kind, tuple(t)) for kind, t in entry[1]])
                facts = self.facts(path)
                if digest is not None:
                    now[path] = [digest, [(kind, list(t)) for kind, t in facts]]
            if cache is not None and now != table:
                cache.put("calls-table", root, self._listing, now)
            self._every = {path: self.facts(path) for path in self.ws.shell_paths}
        return self._every

    def facts(self, path: str) -> list[tuple[str, tuple[str, ...]]]:
        """(kind, targets) of each call in the script at `path`, from the cache when its content
        and the repository's shell files were seen before."""
        if path in self._facts:
            return self._facts[path]
        cache = self.ws.cache
        digest = self.ws.digest(path) if cache is not None else None
        key = digest + self._listing if digest is not None else b""
        stored = cache.get("calls", path, key) if cache is not None and key else None
        facts: list[tuple[str, tuple[str, ...]]] | None = None
        if isinstance(stored, list):
            facts = [(kind, tuple(targets)) for kind, targets in stored]
        if facts is None:
            held = self.ws.holds(path)
            script = self.ws.shell(path)
            facts = [(c.kind, c.targets) for c in self.calls_in(script)] if script else []
            if not held:  # modelled for its facts alone: let go (its passes may model it again)
                del script
                self.ws.let_go(path)
            if cache is not None and key:
                cache.put("calls", path, key, [(kind, list(t)) for kind, t in facts])
        self._facts[path] = facts
        return facts

    def callers_of(self, path: str) -> list[Call]:
        """The calls that run or source `path`, by their scripts' paths (not the order files were
        found in: a finding that lists its routes says them in one order)."""
        if self._callers is not None:
            others = self._callers.get(path, [])
        else:
            every = self._every_facts()
            others = [
                other
                for other in self.ws.shell_paths
                if any(path in targets for _, targets in every[other])
            ]
        found: list[Call] = []
        for other in sorted(others):
            script = self.ws.shell(other)
            if script is not None:
                found.extend(c for c in self.calls_in(script) if path in c.targets)
        return found

    def sourced_under_errexit(self, path: str) -> bool:
        """Whether every way into `path` sources it where `set -e` holds: each call of it is a
        `source` in its caller's shell, not in a test (`source x || true` runs it without
        errexit), after the caller's own `set -e`."""
        if not self.is_sourced(path):
            return False
        calls = self.callers_of(path)
        return bool(calls) and all(
            c.kind == "source"
            and c.command.errexit
            and not c.command.tested
            and not c.command.apart_from_script
            for c in calls
        )

    def is_sourced(self, path: str) -> bool:
        """Whether some script sources `path`."""
        if self._callers is not None:
            return any(
                kind == "source" and path in targets
                for other in self._callers.get(path, [])
                for kind, targets in self.facts(other)
            )
        if self._every is not None:  # (every script's facts are at hand)
            return any(
                kind == "source" and path in targets
                for facts in self._every.values()
                for kind, targets in facts
            )
        name = posixpath.basename(path)
        for other in self.ws.shell_paths:
            source = self.ws.source(other)
            if source is None or name not in source.text:
                continue  # a script that does not name the file cannot source it
            if any(kind == "source" and path in t for kind, t in self.facts(other)):
                return True
        return False


def _script_dir_variables(script: Script) -> frozenset[str]:
    """The variables whose values name the script's own folder (`DIR=$(dirname "$0")`)."""
    return script.derived("script-dir", script, lambda: _find_script_dir_variables(script))


def _find_script_dir_variables(script: Script) -> frozenset[str]:
    by_name: dict[str, list[Assignment]] = {}
    for a in script.assignments:
        by_name.setdefault(a.name, []).append(a)
    return frozenset(
        name
        for name, given in by_name.items()
        if any(_is_script_dir(v) for v in _values_given(given))
    )


def _is_script_dir(expr: str) -> bool:
    return ("dirname" in expr and ("$0" in expr or "BASH_SOURCE" in expr)) or expr.startswith(
        "${BASH_SOURCE%/*}"
    )


# a folder written as an absolute path whatever the working directory: `$(cd DIR && pwd)`,
# `$(realpath DIR)`, `$(readlink -f DIR)`, or the folder of a path made so
# (`$(dirname "$(readlink -f "$0")")`)
_ANCHORED = lazy_compile(
    r'"?\$\(\s*(?:cd\s[^()]*(?:\([^()]*\)[^()]*)*(?:&&|;)\s*pwd(?:\s+-P)?\s*\)'
    r"|(?:realpath|readlink\s+-f)\s"
    r'|dirname\s+(?:--\s+)?"?\$\(\s*(?:realpath|readlink\s+-f)\s)'
)


def anchored(script: Script, value: str, moved_before: Callable[[int], bool]) -> bool:
    """Whether a path a script writes after a change of its working folder names the file it
    would have named before: an absolute one, or one that starts with a variable whose every
    value is a folder made absolute (`_ANCHORED`) before the folder changed
    (`SCRIPT_DIR="$(dirname "$(readlink -f "$0")")"`, `cd /tmp`, `"$SCRIPT_DIR/x.sh"`); not one
    made absolute after it, nor in the path itself (`$(dirname "$0")` is relative where `$0`
    is). `moved_before(offset)`: whether the folder may have changed before that byte."""
    value = value.strip('"')
    if value.startswith("/"):
        return True
    head, _ = _leading_expansion(value)
    if not head or head.startswith("$("):
        return False
    name = head.strip("${}")
    if not name.isidentifier():
        return False
    given = [a for a in script.assignments if a.name == name]
    values = _values_given(given) if given else []
    return (
        bool(values)
        and len(values) == len(given)
        and all(_ANCHORED.match(v.strip('"')) is not None for v in values)
        and not any(moved_before(a.command.node.start_byte) for a in given)
    )


def _leading_expansion(value: str) -> tuple[str, str]:
    """`$(...)rest`, `${...}rest`, `$NAME/rest` as (expansion, rest); ("", value) if none. A
    command substitution in backticks is given as one in `$(...)` (`` `dirname "$0"`/x.py ``)."""
    if value.startswith("`"):
        end = value.find("`", 1)
        if end > 0 and "\\" not in value[:end]:
            return f"$({value[1:end]})", value[end + 1 :]
        return "", value
    if not value.startswith("$"):
        return "", value
    if value.startswith("$("):
        depth = 0
        for i, ch in enumerate(value):
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    return value[: i + 1], value[i + 1 :]
        return value, ""
    if value.startswith("${"):  # (where bash ends it: `${A:-${B:-x}}/s.sh`, nested; t84)
        first = next((e for e in expansions(value) if e.start == 0), None)
        if first is not None:
            return value[: first.end], value[first.end :]
        end = value.find("}")  # (a form the reader does not name: `${!DIR_VAR}`, `${#X}`)
        return (value, "") if end < 0 else (value[: end + 1], value[end + 1 :])
    match = re.match(r"\$[A-Za-z_][A-Za-z0-9_]*", value)
    if match:
        return match.group(0), value[match.end() :]
    return "", value


def _default_of(head: str) -> str | None:
    """The word of a leading `${NAME:-WORD}` (`${NAME-WORD}`), as written; None for another."""
    if not head.startswith("${"):
        return None
    first = next((e for e in expansions(head) if e.start == 0), None)
    if first is None or first.operator not in (":-", "-") or first.end != len(head):
        return None
    return head[first.word : first.end - 1]


def _path_values(script: Script, name: str, unset: str | None = None) -> list[str]:
    """The values the script's assignments give a variable, as path words: not one a command's
    prefix gives it for that command alone (`P=x cmd`), nor one written as literal text that
    looks like a substitution (`P='$(dirname "$0")'`); `unset`: the value of `P=` (else none)."""
    return _values_given([a for a in script.assignments if a.name == name], unset)


def _values_given(given: list[Assignment], unset: str | None = None) -> list[str]:
    """`_path_values` of the assignments of one variable."""
    found = []
    for a in given:
        if a.kind == "prefix":
            continue
        if a.value is None:
            if a.kind in _NOT_KNOWN:
                return []  # (`: ${P:=d}`, `read P`, `for P in`: its values are not plain words)
            if unset is not None:
                found.append(unset)
        elif not (a.value.static and ("`" in a.value.value or "$(" in a.value.value)):
            found.append(a.value.value)
    return found


# assignments whose value is no word of the script: the environment's or a default, a line
# read, a loop's item
_NOT_KNOWN = frozenset({"default", "read", "for", "dynamic"})


def _variable_of(expr: str) -> str:
    return expr.strip("${}").split("%")[0].split(":")[0].split("[")[0]


# a bind mount's source that names a folder of the checkout: `$(realpath benchmarks/)`,
# `$(readlink -f benchmarks)`, `$(pwd)/benchmarks`, `$PWD/benchmarks` (from the folder the
# launcher runs in), `$GITHUB_WORKSPACE/benchmarks`; the rest, the folder's path ("": the root)
_CWD_SOURCE = lazy_compile(
    r'"?(?:\$\((?:realpath|readlink\s+-f)\s+"?(?P<of>[^"$`()\s]*)"?\s*\)'
    r'|(?:\$\(pwd\)|\$PWD|\$\{PWD\})"?(?P<below>/[^"$`()\s]*)?'
    r'|(?P<dot>\.(?:/[^"$`()\s]*)?))"?'  # (`./benchmarks`: docker 23 binds it)
)
_ROOT_SOURCE = lazy_compile(
    r'"?\$\{?(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}?"?(?P<below>/[^"$`()\s]*)?"?'
)


def bind_mounts(command: Command) -> tuple[tuple[str, str | None], ...]:
    """The folders a `docker run`/`podman run` the command runs in mounts (`-v SRC:DST`,
    `--volume`, `--mount type=bind,source=SRC,target=DST`): each one's path in the container
    (written out, no trailing `/`) with the repository folder it shows there ("": the root),
    or None where that is not known (a folder outside the repository, one held in a
    variable, or one relative to a working folder the launcher changes first). Worked out
    once per command (routes ask for each of theirs)."""
    held: dict[int, tuple[tuple[str, str | None], ...]] = command.script.derived(
        "bind-mounts", _MOUNTS, dict
    )
    if id(command) not in held:
        held[id(command)] = _bind_mounts(command)
    return held[id(command)]


_MOUNTS = object()  # (what `bind_mounts` keeps with a script: it reads that script alone)


def _bind_mounts(command: Command) -> tuple[tuple[str, str | None], ...]:
    found: list[tuple[str, str | None]] = []
    for wrapper, owner in containers(command):
        for option, _, value in wrapper.options:
            if option in ("-v", "--volume"):
                parts = value.split(":")
                if len(parts) < 2:
                    continue
                source, target = ":".join(parts[:-1]), parts[-1]
                if len(parts) > 2 and not parts[-1].startswith("/"):  # (`SRC:DST:ro`)
                    source, target = ":".join(parts[:-2]), parts[-2]
            elif option == "--mount":
                fields: dict[str, str] = {}  # (the last of a field's spellings wins, as docker's)
                for field in value.split(","):
                    key, _, given = field.partition("=")
                    fields[_MOUNT_FIELDS.get(key.strip().lower(), key)] = given
                if fields.get("type", "volume").lower() != "bind":
                    continue
                source, target = fields.get("source", ""), fields.get("target", "")
            else:
                continue
            target = target.strip('"')
            if not target.startswith("/") or PATH_EXPANSION.search(target):
                continue
            if posixpath.normpath(target) == "/":
                continue  # (docker refuses `/` as a mount's destination)
            found.append((posixpath.normpath(target), _mounted_folder(owner, source)))
    return tuple(found)


# `--mount`'s spellings of a field (docker's `opts/mount.go`)
_MOUNT_FIELDS = {
    "source": "source",
    "src": "source",
    "target": "target",
    "destination": "target",
    "dst": "target",
    "type": "type",
}


def containers(command: Command) -> list[tuple[Wrapper, Command]]:
    """The `docker run`/`podman run` wrappers the command runs behind, each with the command
    whose own line it is on: the command's, and those of each command whose shell string
    holds it (a container's own shell string, `bash -c "cd /w && ..."`, runs after its
    mounts are made)."""
    found: list[tuple[Wrapper, Command]] = []
    current: Command | None = command
    while current is not None:
        found.extend((w, current) for w in current.invocation.wrappers if w.name in _RUNS)
        current = current.script.parent
    return found


_RUNS = ("docker run", "podman run")


def container_workdir(command: Command) -> str | None:
    """The working folder a container the command runs in starts it in (`-w /w`, written
    out), or None."""
    for wrapper, _ in containers(command):
        folder = wrapper.option("-w", "--workdir")
        if folder is not None:
            folder = folder.strip('"')
            if not folder.startswith("/") or PATH_EXPANSION.search(folder):
                return None
            # (`bash -c "cd sub && bash x.sh"`: a shell string that changes folders first; a
            # `cd` to the checkout's variable too, which in a container names another folder)
            inside = command.script.parent is not None
            moved = inside and _moved_before(command, set(ROOT_VARIABLES), folders=True)
            return None if moved else folder
    return None


def _mounted_folder(command: Command, source: str) -> str | None:
    """The repository folder (or file) a bind mount's source names, or None (`bind_mounts`)."""
    here = _CWD_SOURCE.fullmatch(source)
    if here is not None:
        if _changes_folder(command):
            return None  # (relative to a folder the launcher may have left)
        if here.group("of") is not None:
            path = here.group("of")
        else:
            path = (here.group("below") or here.group("dot") or "").lstrip("/")
    else:
        rooted = _ROOT_SOURCE.fullmatch(source)
        top = command.outermost
        name = rooted.group("name") if rooted is not None else None
        if name in ROOT_VARIABLES and _changes_folder(command, folders=False):
            return None  # (`GITHUB_WORKSPACE=$PWD/multi` before it, or a file sourced may say so)
        if rooted is not None and name in ROOT_VARIABLES:
            path = (rooted.group("below") or "").lstrip("/")
        else:
            # (a folder fixed whatever the working folder: the script's own, `$(dirname "$0")`,
            # `$SCRIPT_DIR` assigned from it, or the checkout's, `$(git rev-parse
            # --show-toplevel)`; h62 M4)
            head, rest = _leading_expansion(source.strip('"'))
            if _changes_folder(command):
                return None  # (`$0` is `./runners/x.sh`: read from the folder it runs in)
            base = (
                ""
                if _CHECKOUT_ROOT.fullmatch(head)
                else _fixed_base(top.script, head)
                if head
                else None
            )
            if base is None or not (rest == "" or rest.startswith("/")) or "$" in rest:
                return None
            path = posixpath.join(base, rest.strip('"').lstrip("/"))
    if path.startswith("/"):
        return None
    folder = posixpath.normpath(path) if path else "."
    return None if folder.startswith("..") else "" if folder == "." else folder


def _changes_folder(command: Command, folders: bool = True) -> bool:
    """Whether the file's script may have changed its working folder before the command: a
    `cd`, `pushd` or `popd` (also behind `command`/`builtin`) to another folder than the
    checkout (`cd "$GITHUB_WORKSPACE"`, where the script does not assign it), an `eval`, a
    `source` (the file may change it) or an assignment to `PWD`, in a shell the command runs in
    (its own shell string's, and the shells that run that: not a subshell it is not in), before
    the command's line there, or in a function (it may be called first). `folders` False: only
    what may change the variables (`eval`, `source`, an assignment to the checkout's
    variables: not `GITHUB_WORKSPACE=${GITHUB_WORKSPACE:-$PWD}` nor a bare `export`)."""
    chain = []
    current: Command | None = command
    while current is not None:
        chain.append(current)
        current = current.script.parent
    assigned = {n for c in chain for n in _root_assigned_before(c)}
    return any(_moved_before(c, assigned, folders) for c in chain)


def before_in_shell(command: Command) -> Iterator[Command]:
    """The commands of the command's own script that may run before it in its shell: before
    its line (or anywhere, in a loop around both or in a function: it may be called first),
    not in a subshell it is not in."""
    script = command.script
    before = command.node.start_byte if command.function is None else None
    for other in script.all_commands():
        if other.script is not script:
            continue
        if (
            before is not None
            and other.function is None
            and other.node.start_byte > before
            and not set(other.loops) & set(command.loops)
        ):
            continue  # (after the command, not in a loop around both)
        shell = other.subshell or other.group or other.apart
        if shell is not None and not shell.start_byte <= command.node.start_byte < shell.end_byte:
            continue  # (in a shell of its own the command is not in)
        yield other


def _root_assigned_before(command: Command) -> set[str]:
    """The checkout's variables (`GITHUB_WORKSPACE`) given another value before the command in
    its shell (`gives_value`), or unset there (empty: h67 M4)."""
    script = command.script
    found: set[str] = set()
    for other in before_in_shell(command):
        found.update(n for n in ROOT_VARIABLES if other.unsets(n))
        found.update(
            a.name
            for a in other.assignments
            if a.name in ROOT_VARIABLES
            and (a.kind != "prefix" or other.base in script.top.functions)  # (`X=1 run`: run's)
            and gives_value(a)
        )
    return found


def gives_value(assignment: Assignment) -> bool:
    """Whether an assignment may give its variable another value than the one it had: not a
    declaration with no value (`export GITHUB_WORKSPACE`), nor its own value, whole or as a
    default (`X=$X`, `X=${X:-$PWD}`); a `read`, a `for`, `printf -v` or a bare `local` (empty
    in the function: h67 M1, M4) may."""
    value = assignment.value
    if value is None:  # (`: "${X:=a}"`: its own value, or a default where it had none)
        return assignment.kind not in _DECLARING and assignment.kind != "default"
    text = value.text.strip('"')
    name = re.escape(assignment.name)
    # (`$X`, `${X}`, `${X:-$PWD}`, `${X:-${PWD}}`, `${X%/}`: its own value)
    return re.fullmatch(rf"\$(?:{name}|\{{{name}(?::?[-=].*|%/+)?\}})", text) is None


# declarations that give no value where none is written (`export X`, `declare -g X`; not
# `local X`, nor `declare X` in a function, which make an empty variable of the function's)
_DECLARING = frozenset({"export", "declare", "typeset", "readonly", "unexport"})


def _moved_before(command: Command, assigned: set[str], folders: bool) -> bool:
    """`_changes_folder` in the one script the command is a command of."""
    if not folders and assigned:
        return True
    for other in before_in_shell(command):
        base = other.base
        words = other.invocation.words
        if base in IN_THIS_SHELL:  # (`builtin cd multi`, `command eval ...`)
            base = other.invocation.base
            words = words[1:]
        if base in ("eval", "source", "."):
            return True
        if not folders:
            continue
        if any(a.name == "PWD" for a in other.assignments):
            return True
        if base not in ("cd", "pushd", "popd"):
            continue
        given = [w for w in words[1:] if not w.value.startswith("-")]
        target = given[0].value.strip('"') if len(given) == 1 and given[0] is words[-1] else None
        root = _ROOT_TARGET.fullmatch(target) if target is not None else None
        name = root.group(1) if root is not None else None
        if name not in ROOT_VARIABLES or name in assigned:
            return True
    return False


# a `cd` to the checkout: `$GITHUB_WORKSPACE`, `"${GITHUB_WORKSPACE}/"`, `${GITHUB_WORKSPACE:-.}`
_ROOT_TARGET = lazy_compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::?-[^}]*)?\}?/?")


def in_mounted_folder(
    value: str, mounts: Sequence[tuple[str, str | None]], workdir: str | None = None
) -> str | None:
    """A path a command in a container is given, as the repository's path where it lies in a
    folder a bind mount shows (`/tmp/x.sh` with `-v $(realpath benchmarks/):/tmp/`:
    `benchmarks/x.sh`; `x.sh` with `-w /tmp` too), or is a file one mounts; "" where it lies in
    a mounted folder that is not known; None where it lies in none."""
    text = value.strip()
    # (`x.sh`, `sub/x.sh`: relative; not `${DIR}x.sh`, whose value may be absolute: a route
    # that knows it maps that, `scripts_run`)
    if workdir is not None and text and not text.startswith(("/", "~", "`", "$")):
        text = posixpath.join(workdir, text)
    for target, folder in sorted(mounts, key=lambda m: -len(m[0])):
        prefix = target.rstrip("/") + "/"
        if text == target:  # (a file mounted as itself: `-v $PWD/x.sh:/x.sh`)
            return folder if folder else ""
        if text.startswith(prefix):
            if folder is None:
                return ""
            rest = text[len(prefix) :]
            return f"{folder}/{rest}" if folder else rest
    return None


def repository_folder(
    script: Script,
    value: str,
    depth: int = 0,
    mounts: Sequence[tuple[str, str | None]] = (),
) -> str | None:
    """The repository folder a script path word names its file in, when that folder is written
    plainly (`benchmarks/single_node/${MODEL}_b200.sh`: `benchmarks/single_node`; relative to
    the root, a mount of the checkout or `$GITHUB_WORKSPACE`; through a variable the script
    assigns, each of its values followed by the rest of the word: `"$BENCH_SCRIPT"`, or
    `"${BENCH_BASE}_${FW}.sh"` with `BENCH_BASE="benchmarks/single_node/${MODEL}"`); None when it
    is not known or lies outside the repository (`/opt/x.sh`, a folder held in a variable the
    script does not assign)."""
    value = value.strip()
    head, rest = _leading_expansion(value)
    name = _variable_of(head) if head else ""
    if head and head in (f"${name}", f"${{{name}}}") and depth < 3:
        values = set(_path_values(script, name))
        if values:  # each value the script assigns, with the rest of the word after it
            folders = {repository_folder(script, v + rest, depth + 1, mounts) for v in values}
            return folders.pop() if len(folders) == 1 else None
    if head:
        if name not in ROOT_VARIABLES or not rest.startswith("/"):
            return None
        value = rest.lstrip("/")
    elif value.startswith("/"):
        # (in a container, a folder of the checkout a bind mount shows: before the usual
        # mounts of the checkout, `-v "$PWD/benchmarks:/workspace"`)
        mounted = in_mounted_folder(value, mounts)
        mount = next((m for m in ROOT_MOUNTS if value.startswith(m)), None)
        if mounted:
            value = mounted
        elif mount is None or mounted == "":
            return None  # (`-v /opt/other:/workspace`: not the checkout)
        else:
            value = value[len(mount) :]
    cut = last_separator(value)  # (a `/` inside `${X:-sub/}` is part of the file's name)
    folder = posixpath.normpath(value[:cut]) if cut > 0 else ""
    if PATH_EXPANSION.search(folder) or folder.startswith("..") or value.startswith("~"):
        return None
    return "" if folder == "." else folder


# `$(dirname "$0")`, `$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)`, `${BASH_SOURCE%/*}`:
# the folder of the running script, or one written relative to it (group `up`)
_SELF = r"(?:\$0|\$\{0\}|\$BASH_SOURCE|\$\{BASH_SOURCE(?:\[0\])?\})"
# the script's own path, or it resolved (`$(readlink -f "$0")`, `$(realpath "$0")`)
_RESOLVED = rf'(?:"?{_SELF}"?|"?\$\(\s*(?:readlink\s+-f|realpath)\s+(?:--\s+)?"?{_SELF}"?\s*\)"?)'
_DIRNAME = rf"\$\(\s*dirname\s+(?:--\s+)?{_RESOLVED}\s*\)"
# what `cd` may be followed by before `&& pwd`: its output sent away (`&> /dev/null`)
_QUIET = r"(?:\s*(?:&>|>|2>&1|1>)\s*(?:/dev/null)?)*"
_SCRIPT_FOLDER = lazy_compile(
    rf'(?:"?{_DIRNAME}"?'
    rf'|\$\(\s*cd\s+(?:-P\s+)?(?:--\s+)?"?{_DIRNAME}(?P<up>(?:/[A-Za-z0-9_.-]+)*)/?"?'
    rf"{_QUIET}\s*(?:&&|;)\s*pwd(?:\s+-P)?\s*\)"
    rf'|\$\(\s*(?:realpath|readlink\s+-f)\s+(?:--\s+)?"?{_DIRNAME}'
    rf'(?P<resolved>(?:/[A-Za-z0-9_.-]+)*)/?"?\s*\)'
    rf"|\$\{{BASH_SOURCE%/\*\}})"
)


def _script_folder(script: Script, expression: str) -> str | None:
    """The repository folder an expression of the script's own folder names (`$(dirname "$0")`,
    `$(cd "$(dirname "$0")/.." && pwd)`, `$(realpath "$(dirname "$0")/..")`); None for any
    other expression; a command substitution in backticks is read as one in `$(...)`
    (``P=`dirname "$0"` ``)."""
    expression = _BACKTICKS.sub(r"$(\1)", expression)
    match = _SCRIPT_FOLDER.fullmatch(expression.strip().strip('"'))
    if match is None:
        match = _SCRIPT_FOLDER.fullmatch(expression.strip())
    if match is None:
        # (`$(realpath $SCRIPT_DIR/../..)`, `$(cd "$HERE/.." && pwd)`: a folder written from a
        # variable of the script's own folder)
        of = _OF_VARIABLE.fullmatch(expression.strip().strip('"'))
        named = of and (of["name"] or of["cd_name"] or of["dn_name"])
        if of is not None and named in _script_dir_variables(script):
            up = ".." if of["dn_name"] else (of["up"] or of["cd_up"] or "").lstrip("/")
            folder = posixpath.normpath(posixpath.join(posixpath.dirname(script.path), up))
            return None if folder.startswith("..") else ("" if folder == "." else folder)
        ups = _nested_dirnames(expression)
        if ups is None:
            return None
        up = "/".join([".."] * ups)
    else:
        up = (match["up"] or match["resolved"] or "").lstrip("/")
    folder = posixpath.normpath(posixpath.join(posixpath.dirname(script.path), up))
    return None if folder.startswith("..") else ("" if folder == "." else folder)


_VARIABLE_PATH = r'"?\$\{?(?P<NAME>[A-Za-z_][A-Za-z0-9_]*)\}?(?P<UP>(?:/[A-Za-z0-9_.-]+)*)/?"?'
_OF_VARIABLE = lazy_compile(
    r"\$\(\s*(?:realpath|readlink\s+-f)\s+(?:--\s+)?"
    + _VARIABLE_PATH.replace("NAME", "name").replace("UP", "up")
    + r"\s*\)"
    + r"|\$\(\s*cd\s+(?:-P\s+)?(?:--\s+)?"
    + _VARIABLE_PATH.replace("NAME", "cd_name").replace("UP", "cd_up")
    + rf"{_QUIET}\s*(?:&&|;)\s*pwd(?:\s+-P)?\s*\)"
    + r'|\$\(\s*dirname\s+(?:--\s+)?"?\$\{?(?P<dn_name>[A-Za-z_][A-Za-z0-9_]*)\}?"?\s*\)'
)
# a command substitution in backticks with no backslash or nested one inside
_BACKTICKS = lazy_compile(r"`([^`\\]*)`")
_ABSOLUTE_SELF = rf'"?\$\(\s*(?:readlink\s+-f|realpath)\s+(?:--\s+)?"?{_SELF}"?\s*\)"?'
_DIRNAME_OF = lazy_compile(r'\$\(\s*dirname\s+(?:--\s+)?"?(.*?)"?\s*\)')


def _nested_dirnames(expression: str) -> int | None:
    """How many folders above the script's own `$(dirname "$(dirname "$(readlink -f "$0")")")`
    names (one here); None for any other expression (`$(dirname "$(dirname "$0")")` too)."""
    text = expression.strip().strip('"')
    levels = 0
    while (match := _DIRNAME_OF.fullmatch(text)) is not None and levels < 8:
        text, levels = match.group(1).strip(), levels + 1
    # (of the path resolved: `dirname` of a relative `$0` twice is `.` where the script was run
    # from its own folder)
    if levels < 2 or not re.fullmatch(_ABSOLUTE_SELF, text):
        return None
    return levels - 1


def plain_target(script: Script, value: str) -> str | None:
    """The repository path a script path word names when nothing in it depends on the run: the
    script's own folder (`"$(dirname "$0")/impl/run.sh"`, or a variable every assignment of
    which is that folder or one written relative to it) or the checkout (`$GITHUB_WORKSPACE`),
    then plain text ending in `.sh` or `.bash`; None otherwise (a path relative to the working
    folder, `$PWD`, an expansion, a folder taken from `$0` twice)."""
    head, rest = _leading_expansion(value.strip())
    base = _fixed_base(script, head)
    if base is None:
        return None
    rest = rest.lstrip("/")
    if PATH_EXPANSION.search(rest) or not rest.endswith((".sh", ".bash")) or "*" in rest:
        return None
    joined = posixpath.normpath(posixpath.join(base, rest))
    return None if joined.startswith("..") else joined


def _changed_to(command: Command, sourcing: Callable[[Command], set[str] | None]) -> str | None:
    """The repository folder the script's shell is in at the command, where the script's top
    level changed to one before it (`cd "$GITHUB_WORKSPACE/benchmarks/amd_utils" || exit 1`,
    under no condition; t81b, InferenceX's multi-node scripts: `bash ./submit.sh` after it) and
    nothing else may change folders before it; None otherwise (where the script started: its
    caller's folder, which `resolve` takes as the checkout's root or the script's own). Not
    after a `cd` in a subshell, a loop, a background group or a condition, a `source` of a file
    that may change folders at its top level (`sourcing` says which of its functions do), or a
    call of a function that changes folders, itself or through another (t83a)."""
    script = command.script
    if command.function is not None or script.parent is not None:
        return None
    # (most scripts change no folder: asked once per script, not per call)
    moves = script.memo.get("calls: changes folders")
    if moves is None:
        moves = script.memo["calls: changes folders"] = any(
            c.base in _MOVES for c in script.commands
        )
    if not moves:
        return None
    moving = _moving_functions(script)
    folder = None
    for other in script.commands:
        if other.node.start_byte >= command.node.start_byte:
            break
        if other.function is not None:
            continue
        if other.base in ("source", "."):
            functions = sourcing(other)
            if functions is None:
                return None  # (a file that may change folders)
            moving = _moving_functions(script, moving | functions)  # (and its callers here)
            continue
        if other.base in moving:
            return None  # (a function that changes folders)
        if other.base not in _MOVES:
            continue
        plain = not (other.guards or other.subshell or other.loops or other.group)
        if not plain or other.background or other.base != "cd" or len(other.args) != 1:
            return None  # (where the shell is is not known)
        folder = fixed_folder(script, other.args[0].value)
        if folder is None:
            return None
    return folder


def _moving_functions(script: Script, known: set[str] | None = None) -> set[str]:
    """The script's functions that change folders, themselves or through one they call (or
    through one of `known`: a sourced file's)."""
    moving: set[str | None] = set(known or ())
    moving |= {c.function for c in script.commands if c.base in _MOVES and c.function is not None}
    changed = True
    while changed:
        changed = False
        for c in script.commands:
            if c.function is not None and c.function not in moving and c.base in moving:
                moving.add(c.function)
                changed = True
    return {name for name in moving if name is not None}


_MOVES = frozenset({"cd", "pushd", "popd"})


def fixed_folder(script: Script, value: str) -> str | None:
    """The repository folder a word names when nothing in it depends on the run (`cd
    "$(dirname "$0")"`, `cd "$SCRIPT_DIR/.."`, `cd "$GITHUB_WORKSPACE"`: see `plain_target`);
    None otherwise."""
    head, rest = _leading_expansion(value.strip())
    base = _fixed_base(script, head)
    rest = rest.strip("/")
    if base is None or PATH_EXPANSION.search(rest) or "*" in rest:
        return None
    joined = posixpath.normpath(posixpath.join(base, rest)) if rest else base
    return None if joined.startswith("..") else ("" if joined == "." else joined)


def _fixed_base(script: Script, head: str) -> str | None:
    """The folder an expansion that starts a word names: the script's own (or one written
    relative to it), directly or through a variable every assignment of which names it, or the
    checkout's root (`$GITHUB_WORKSPACE`, not assigned by the script)."""
    if not head:
        return None
    name = _variable_of(head)
    values = _path_values(script, name, unset="")
    folders = (
        {_script_folder(script, v) for v in values}
        if head in (f"${name}", f"${{{name}}}")
        else set()
    )
    base = _script_folder(script, head)
    if base is None and values and len(folders) == 1 and None not in folders:
        base = folders.pop()
    if base is None and name == "GITHUB_WORKSPACE" and not values:
        base = ""
    return base


def known_source(script: Script, value: str) -> dict[str, list[str]] | None:
    """What the profile knows sourcing a file outside the repository does: a virtual
    environment's activation, or a file of `path_env_files` (`$HOME/.local/bin/env`); None for
    any other."""
    if venv_activation(script, value):
        return profile.VENV_ACTIVATE
    home = _HOME.match(value)
    if home is not None and "~" + value[home.end() :] in profile.PATH_ENV_FILES["files"]:
        return profile.PATH_ENV_FILES
    return None


# how a path outside the repository names the home folder (a container's runs as root)
_HOME = lazy_compile(r"\$HOME\b|\$\{HOME\}|~(?=/)|/root\b")


def venv_activation(script: Script, value: str) -> bool:
    """Whether a sourced path is a Python virtual environment's activation script
    (`.venv/bin/activate`, `"$VENV_DIR/bin/activate"`): its folder named like one (`venv` in its
    last component) or one the script makes (`uv venv DIR`, `python3 -m venv DIR`)."""
    if not value.endswith("/bin/activate"):
        return False
    folder = value.removesuffix("/bin/activate")
    return "venv" in folder.rsplit("/", 1)[-1].lower() or folder in _venv_folders(script)


def _venv_folders(script: Script) -> set[str]:
    """The folders the script makes virtual environments in (the profile's creators: the last
    operand, or `.venv` when there is none)."""
    found = set()
    for command in script.all_commands():
        words = [w.value for w in command.words]
        for creator in profile.VENV_ACTIVATE["creators"]:
            parts = creator.split()
            if words[: len(parts)] == parts:
                operands = [w for w in words[len(parts) :] if not w.startswith("-")]
                found.add(operands[-1] if operands else ".venv")
    return found


def last_separator(text: str) -> int:
    """Where the last `/` outside `${...}` and `$(...)` is (-1: none)."""
    depth, cut = 0, -1
    for i, ch in enumerate(text):
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth = max(0, depth - 1)
        elif ch == "/" and depth == 0:
            cut = i
    return cut


_OWN_DEFAULT = lazy_compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?[-=]((?:[^{}]|\{[^{}]*\})*)\}")


def own_default(value: str, name: str) -> str:
    """`${NAME:-default}` (or `:=`), the variable's own: the default (quoted as a whole,
    `${NAME:-"a/b.py"}`, its quotes removed, as bash removes them); else the value."""
    match = _OWN_DEFAULT.fullmatch(value)
    if match is None or match.group(1) != name:
        return value
    default = match.group(2)
    quote = default[:1]
    whole = len(default) >= 2 and quote in ("'", '"') and default.endswith(quote)
    if whole and quote not in default[1:-1] and "\\" not in default:
        return default[1:-1]
    return default


def from_known_folder(script: Script, value: str) -> bool:
    """Whether a path starts with an expansion that is a folder known wherever the script runs
    (its own, `$(dirname "$0")`, or the checkout's root): `resolve` then names the file."""
    head, _ = _leading_expansion(value.strip())
    if not head:
        return False
    name = _variable_of(head)
    return (
        _is_script_dir(head)
        or name in _script_dir_variables(script)
        or name in ROOT_VARIABLES
        or head == "$(pwd)"
    )


def resolve(
    ws: Workspace,
    script: Script,
    value: str,
    depth: int = 0,
    python: bool = False,
    some: bool = False,
    folder: str | None = None,
) -> list[str] | None:
    """Repository paths a script path word can name, or None when it says too little to tell.
    A leading variable the script assigns stands for each value it assigns (`BENCH=...;
    bash "$BENCH"`). With `python`, the paths are the repository's Python files, and only
    where every value names one, unless `some` (those that do: the files it may name).
    `folder`: the repository folder the shell is in there (`_changed_to`), which a relative
    path is from; else the checkout's root or the script's folder."""
    head, rest = _leading_expansion(value.strip())
    name = _variable_of(head) if head else ""
    if head == f"${name}" or head == f"${{{name}}}":
        values = _path_values(script, name)
        if python:  # (`DIR="${DIR:-/workspace/utils}"`: its default, one value it may have)
            values = [own_default(v, name) for v in values]
        if values and len(values) <= 16 and depth < 3 and not _is_script_dir(head):
            found = [resolve(ws, script, v + rest, depth + 1, python, some) for v in values]
            if python and not some and not all(found):
                return None  # (one value names a file that is not known: which is run is not)
            if any(f is not None for f in found):
                return list(dict.fromkeys(p for f in found if f for p in f))
            return None
    default = _default_of(head)
    own = _variable_of(head) if default else ""
    if default and any(  # (not where the script gives it a value written out: t84c; an
        # empty one, `export NAME`, a value not known, `NAME=$2`, leave the default: t84d)
        a.name == own
        and a.value is not None
        and a.value.static
        and a.value.value
        and not a.value.value.startswith(f"${{{own}")
        for a in script.assignments
    ):
        default = None
    if default and depth < 3 and not python:
        # (`START="${START:-$(cd "$(dirname "$0")" && pwd)/start.sh}"`: the path it names unless
        # the environment gives another; t82b, llm-scaler)
        named = resolve(ws, script, default + rest, depth + 1, folder=folder)
        if named:
            return named
    script_dir = posixpath.dirname(script.path)
    bases: list[str] | None
    if head:
        name = _variable_of(head)
        fixed = _fixed_base(script, head)  # (`$(cd "$(dirname "$0")/../.." && pwd)`: its root)
        if fixed is not None:
            bases, rest = [fixed], rest.lstrip("/")
        elif _is_script_dir(head) or name in _script_dir_variables(script):
            bases, rest = [script_dir], rest.lstrip("/")
        elif head in _CURRENT_FOLDER:  # (`$(pwd)/x.py` is `x.py`, wherever that is from)
            bases, rest = ["", script_dir], rest.lstrip("/")
        elif name in ROOT_VARIABLES or _CHECKOUT_ROOT.fullmatch(head):
            bases, rest = [""], rest.lstrip("/")
        elif python and (
            head.startswith("$(") or _DEFAULTED.match(head) or _not_known(script, name)
        ):
            # (`$(mktemp -d)/x.py`, `${WS:-/opt/w}/x.py`: a folder a command prints, or one the
            # environment may give in place of a default, is not the checkout's as far as is
            # known: not read as the repository's file)
            return None
        else:  # an unknown folder: match the rest as a path suffix
            bases, rest = None, rest.lstrip("/")
    else:
        bases = ["", script_dir] if folder is None else [folder]
    suffix = ".py" if python else ".sh"
    if not re.search(r"[A-Za-z0-9_]", PATH_EXPANSION.sub("", rest).replace(suffix, "")):
        return None
    exists = ws.is_python if python else ws.is_script
    candidates: list[str] = []
    if bases is None:
        candidates = [rest]
    elif rest.startswith("/") and not head:
        candidates = _mount_candidates(rest)
        if python:  # (a Python file at a path of another checkout is not read as the repo's)
            candidates = candidates[:1] if rest.startswith(ROOT_MOUNTS) else []
    else:
        for base in bases:
            joined = posixpath.normpath(posixpath.join(base, rest))
            if not joined.startswith(".."):
                candidates.append(joined)
    for candidate in candidates:
        if bases is not None and not PATH_EXPANSION.search(candidate):  # a plain path
            if exists(candidate):
                return [candidate]
            continue
        # an unknown folder stands for any folder of the repository, or for the checkout
        # itself where the file is a Python one (`$WORKSPACE/utils/client.py`)
        prefix = "(?:.*/)?" if bases is None and not python else ""
        pattern = re.compile(prefix + _pattern(candidate, script, 0))
        # the text after the last expansion is literal: a path that matches ends with it
        ends = [m.end() for m in PATH_EXPANSION.finditer(candidate)]
        tail = candidate[ends[-1] :] if ends else candidate
        listed = ws.python_paths if python else ws.script_paths
        matches = [p for p in listed if p.endswith(tail) and pattern.fullmatch(p)]
        if matches:
            return matches
    return []


def _not_known(script: Script, name: str) -> bool:
    """Whether the script gives the variable a value that is no word of it (`_NOT_KNOWN`)."""
    return any(a.name == name and a.kind in _NOT_KNOWN for a in script.assignments)


# the root of the checkout the script runs in
_CHECKOUT_ROOT = lazy_compile(r"\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)")
# the folder the command runs in
_CURRENT_FOLDER = frozenset({"$(pwd)", "$PWD", "${PWD}"})
# a parameter expansion with a default or an assignment: `${X:-d}`, `${X-d}`, `${X:=d}`
_DEFAULTED = lazy_compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=]")


def _pattern(text: str, script: Script, depth: int) -> str:
    """A regular expression for a path word: literal text, and for each expansion the values the
    script assigns to that variable, or any single path component."""
    out = []
    position = 0
    for match in PATH_EXPANSION.finditer(text):
        out.append(re.escape(text[position : match.start()]))
        start = match.start() == 0 or text[match.start() - 1] == "/"
        out.append(_expansion_pattern(match.group(0), script, depth, start))
        position = match.end()
    out.append(re.escape(text[position:]))
    return "".join(out)


def _expansion_pattern(
    expansion: str, script: Script, depth: int, component_start: bool = False
) -> str:
    """What an expansion in a path can stand for: the values the script assigns it, else any
    part of one path component, or at the start of a component also one folder before it
    (`benchmarks/${SUBDIR}x.sh` with SUBDIR=`agentic/` set by the workflow)."""
    anything = "(?:[^/]*/)?[^/]*" if component_start else "[^/]*"
    printed = substitution_pattern(expansion)  # `$([[ ... ]] && printf _mtp || printf '')`
    if printed is not None:
        return printed
    simple = re.fullmatch(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", expansion)
    if simple is None or depth >= 3:
        return anything
    name = simple.group(1)
    assigned = [a for a in script.assignments if a.name == name]
    if assigned and all(a.kind == "for" for a in assigned):
        # (`for n in 1 2; do python3 "$WORK/$n/sync.py"`: the words the loops give it, where
        # every one is written out)
        words = [w for a in assigned for w in loop_words(script.text_of(a.command.node), name)]
        if words and len(words) <= 16 and all(LOOP_VALUE.fullmatch(w) for w in words):
            return "(?:" + "|".join(sorted({re.escape(w) for w in words})) + ")"
        return anything
    values = [a.value.value for a in assigned if a.value is not None]
    if not values or len(values) > 16:
        return anything
    alternatives = sorted({_pattern(v, script, depth + 1) for v in values})
    return "(?:" + "|".join(alternatives) + ")"


def loop_words(text: str, name: str) -> list[str]:
    """The words a `for NAME in WORDS; do` statement's text gives NAME, as written ("$" in
    one: not known)."""
    found = re.match(rf"for\s+{name}\s+in\s+(.*?)\s*(?:;|\n)\s*do\b", text, re.DOTALL)
    return found.group(1).split() if found is not None else ["$"]


# a loop's word written out as a path's part (no quote, expansion or glob)
LOOP_VALUE = lazy_compile(r"[A-Za-z0-9_./+-]+")


def _mount_candidates(path: str) -> list[str]:
    for mount in ROOT_MOUNTS:
        if path.startswith(mount):
            return [path[len(mount) :]]
    parts = path.strip("/").split("/")
    return ["/".join(parts[i:]) for i in range(1, len(parts))]


def script_word_at(words: Sequence[str | None]) -> int | None:
    """Where a command line runs a script by its path with words after it, the index of that
    path's word: a `.sh` path a shell runs (`bash -x infra/wrap.sh ...`), or a path the command
    runs as its program (`./wrap.sh ...`, `/fsx/profwrap ...`); None otherwise. (None among the
    words: one whose value is not known.)"""
    at = 0
    shell = words[0] is not None and words[0].rsplit("/", 1)[-1] in ("bash", "sh")
    if shell:
        at = 1
        while at < len(words) and (words[at] or "")[:1] == "-" and words[at] != "-c":
            at += 1  # (`bash -x wrap.sh`)
    path = words[at] if at < len(words) else None
    if path is None or not (path.endswith(".sh") or (not shell and "/" in path)):
        return None
    return at if at + 1 < len(words) else None


def script_runs_arguments(
    ws: Workspace, script: Script, path: str
) -> tuple[Invocation, bool] | bool | None:
    """Where the repository script the path names runs its arguments as a command (`"$@"`,
    `exec "$@"`, behind wrappers), that command's invocation, and whether the script changes
    folders first; False where it does not, or the path may name several; None where it names
    no script of the repository (a program of the machine's, `/fsx/profwrap`, even where the
    repository has a file of that name: another checkout's may differ)."""
    if path.startswith("/") and not path.startswith(ROOT_MOUNTS):
        return None
    found = resolve(ws, script, path)
    if not found and not path.startswith(("/", "$", "`")):
        # (from a folder the script is in: `bash scripts/docker/launch.sh` run from the
        # project's folder above the script's, as `_targets` reads a Python script's path)
        parts = posixpath.dirname(script.path).split("/")
        bases = ["/".join(parts[:i]) for i in range(len(parts) + 1)]
        joined = (posixpath.normpath(posixpath.join(base, path)) for base in bases)
        found = [p for p in dict.fromkeys(joined) if ws.is_script(p)]
    wrapper = ws.shell(found[0]) if found is not None and len(found) == 1 else None
    if wrapper is None:
        return None if not found else False
    moves = False
    for command in wrapper.all_commands():
        moves = moves or command.base in ("cd", "pushd")
        words = command.invocation.words
        if command.function is not None or command.script is not wrapper:
            continue  # (a function's `"$@"` is its own arguments, not the script's)
        if words and words[0].value in ('"$@"', "$@", '"${@}"', "${@}"):
            return command.invocation, moves
    return False
