"""Which script runs or sources which: `source lib.sh`, `bash x.sh`, `srun ... bash x.sh`, `./x.sh`.

Paths are resolved the way the scripts are run in an InferenceX-style repository: relative to the
repository root (launchers run from the checkout) or to the script's own directory
(`$(dirname "$0")`, a `SCRIPT_DIR` assigned from it); container mounts of the checkout
(`/workspace`, `/infmax-workspace`, `$GITHUB_WORKSPACE`, `$INFMAX_WORKSPACE`) are the root.
Any other expansion is a wildcard, so one launcher line can run many benchmark scripts.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from dataclasses import dataclass

from benchlint.shell.model import SHELLS, WRAPPERS, Command, Script, Word
from benchlint.workspace import Workspace

ROOT_VARIABLES = frozenset({"GITHUB_WORKSPACE", "INFMAX_WORKSPACE", "PWD"})
ROOT_MOUNTS = ("/workspace/", "/infmax-workspace/")
_EXPANSION = re.compile(
    r"\$\{[^}]*\}|\$\((?:[^()]|\([^()]*\))*\)|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]"
)
_SOURCE_COMMANDS = frozenset({"source", "."})


@dataclass(frozen=True)
class Call:
    caller: Script
    command: Command
    kind: str  # "source" | "run"
    targets: tuple[str, ...]  # repository paths; empty when it cannot be resolved
    word: Word


def script_word(command: Command) -> tuple[str, Word] | None:
    """The script a command sources or runs, with how: ("source"|"run", word)."""
    words = command.words
    if not words or not words[0].static:
        return None
    base = posixpath.basename(words[0].value)
    if base in _SOURCE_COMMANDS:
        return ("source", words[1]) if len(words) > 1 else None
    if base.endswith((".sh", ".bash")):
        return "run", words[0]
    start = 0 if base in SHELLS else None
    if start is None and base in WRAPPERS:
        start = next(
            (
                i
                for i, w in enumerate(words[1:], 1)
                if w.static and posixpath.basename(w.value) in SHELLS
            ),
            None,
        )
        if start is None:  # `srun ... ./run.sh`, `timeout 60 x.sh`
            for word in words[1:]:
                if not word.value.startswith("-") and word.value.endswith((".sh", ".bash")):
                    return "run", word
            return None
    if start is None:
        return None
    for word in words[start + 1 :]:
        value = word.value
        if value.startswith("-") or value.startswith("+"):
            if "c" in value[1:] and not value.startswith("--"):
                return None  # `bash -c STRING` is a nested script, not a file
            continue
        return "run", word
    return None


class CallGraph:
    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.calls: list[Call] = []
        self.callers: dict[str, list[Call]] = {}
        for script in ws.shell_scripts():
            dir_aliases = _script_dir_variables(script)
            for command in script.all_commands():
                found = script_word(command)
                if found is None:
                    continue
                kind, word = found
                targets = tuple(resolve(ws, script.path, word.value, dir_aliases) or ())
                call = Call(script, command, kind, targets, word)
                self.calls.append(call)
                for target in targets:
                    self.callers.setdefault(target, []).append(call)

    def calls_in(self, script: Script) -> list[Call]:
        return [c for c in self.calls if c.caller is script]


def _script_dir_variables(script: Script) -> frozenset[str]:
    names = set()
    for assignment in script.assignments:
        if assignment.value is not None and _is_script_dir(assignment.value.value):
            names.add(assignment.name)
    return frozenset(names)


def _is_script_dir(expr: str) -> bool:
    return ("dirname" in expr and ("$0" in expr or "BASH_SOURCE" in expr)) or expr.startswith(
        "${BASH_SOURCE%/*}"
    )


def _leading_expansion(value: str) -> tuple[str, str]:
    """`$(...)rest`, `${...}rest`, `$NAME/rest` as (expansion, rest); ("", value) if none."""
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
    if value.startswith("${"):
        end = value.find("}")
        return (value, "") if end < 0 else (value[: end + 1], value[end + 1 :])
    match = re.match(r"\$[A-Za-z_][A-Za-z0-9_]*", value)
    if match:
        return match.group(0), value[match.end() :]
    return "", value


def _variable_of(expr: str) -> str:
    return expr.strip("${}").split("%")[0].split(":")[0].split("[")[0]


def resolve(
    ws: Workspace, script_path: str, value: str, dir_aliases: frozenset[str] = frozenset()
) -> list[str] | None:
    """Repository paths a script path word can name, or None when it says too little to tell."""
    head, rest = _leading_expansion(value.strip())
    script_dir = posixpath.dirname(script_path)
    bases: list[str]
    if head:
        name = _variable_of(head)
        if _is_script_dir(head) or name in dir_aliases:
            bases = [script_dir]
        elif name in ROOT_VARIABLES or head == "$(pwd)":
            bases = [""]
        else:
            bases = []
            rest = "*" + rest
    else:
        bases = ["", script_dir]
    pattern = _EXPANSION.sub("*", rest)
    if not pattern.strip("*/.") or not re.search(r"[A-Za-z0-9_]", pattern.replace(".sh", "")):
        return None
    candidates: list[str] = []
    if pattern.startswith("/"):
        candidates = _mount_candidates(pattern)
    elif not bases:
        candidates = [pattern if pattern.startswith("*") else "*/" + pattern]
    else:
        for base in bases:
            joined = posixpath.normpath(posixpath.join(base, pattern))
            if not joined.startswith(".."):
                candidates.append(joined)
    for candidate in candidates:
        matches = [p for p in ws.shell_paths if fnmatch.fnmatchcase(p, candidate)]
        if matches:
            return matches
    return []


def _mount_candidates(pattern: str) -> list[str]:
    for mount in ROOT_MOUNTS:
        if pattern.startswith(mount):
            return [pattern[len(mount) :]]
    parts = pattern.strip("/").split("/")
    return ["/".join(parts[i:]) for i in range(1, len(parts))]
