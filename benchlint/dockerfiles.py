"""Which repository scripts a Dockerfile copies into its image and runs there.

A `COPY ./download.sh /download.sh` (or `ADD`) from the build context, then `RUN ./download.sh`
(or the path in `CMD`/`ENTRYPOINT`): the script runs inside a container, at the image's build or
as its command, and every process it starts ends with that container. The Dockerfiles looked at
are those in the script's folder and the folders above it (`Dockerfile`, `Dockerfile.x`,
`x.Dockerfile`, `Containerfile`: the workspace finds them, `Workspace.docker_paths`), whose
build context is taken to be their own folder or the repository's root; a `COPY --from=...`
copies from another stage or image, not the context.
"""

from __future__ import annotations

import json
import posixpath
import re

from benchlint.lazyre import lazy_compile
from benchlint.workspace import Workspace

_INSTRUCTION = lazy_compile(r"^\s*([A-Za-z]+)\s+(.*)$", re.S)
_RUNS = frozenset({"RUN", "CMD", "ENTRYPOINT"})
_COMMANDS = lazy_compile(r"&&|\|\||[;&|()`]|\n")
# words before a command's program: wrappers, and the shell's keywords (`RUN if ...; then
# /download.sh; fi`, `for ...; do /x.sh; done`)
_PREFIXES = frozenset(
    {"exec", "sudo", "nohup", "time", "env", "then", "do", "else", "if", "while", "until", "!"}
)
_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "source", "."})


class ImageScripts:
    """One run's answers: which Dockerfile runs a script in its image (each Dockerfile read
    once)."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._runs: dict[str, frozenset[str]] = {}
        self._by_folder: dict[str, list[str]] | None = None

    def dockerfile_running(self, rel: str) -> str | None:
        """The first Dockerfile (by its path) in the script's folder or one above it that
        copies the script into its image and runs it there; None when there is none."""
        if self._by_folder is None:
            self._by_folder = {}
            for path in sorted(self.ws.docker_paths):
                self._by_folder.setdefault(posixpath.dirname(path), []).append(path)
        folder = posixpath.dirname(rel)
        while True:
            for path in self._by_folder.get(folder, ()):
                if rel in self._run_scripts(path):
                    return path
            if not folder:
                return None
            folder = posixpath.dirname(folder)

    def _run_scripts(self, path: str) -> frozenset[str]:
        """The repository's files the Dockerfile copies and then runs."""
        kept = self._runs.get(path)
        if kept is not None:
            return kept
        source = self.ws.source(path)
        found: set[str] = set()
        if source is not None:
            copied: dict[str, str] = {}  # where in the image -> the repository's file
            workdir = "/"
            for instruction, rest in _instructions(source.text):
                if instruction == "FROM":
                    copied, workdir = {}, "/"
                elif instruction == "WORKDIR" and rest.strip():
                    named = rest.strip().strip("\"'")
                    workdir = posixpath.normpath(posixpath.join(workdir, named))
                elif instruction in ("COPY", "ADD"):
                    copied.update(_copies(self.ws, path, rest, workdir))
                elif instruction in _RUNS:
                    found.update(_named(rest, copied, workdir))
        self._runs[path] = frozenset(found)
        return self._runs[path]


def _instructions(text: str) -> list[tuple[str, str]]:
    """Each instruction (upper-cased) with its arguments, continuation lines joined, comments
    and blank lines dropped."""
    found: list[tuple[str, str]] = []
    pending = ""
    for line in text.splitlines():
        if not pending and line.lstrip().startswith("#"):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        whole, pending = pending + line, ""
        match = _INSTRUCTION.match(whole)
        if match is not None:
            found.append((match.group(1).upper(), match.group(2)))
    return found


def _arguments(rest: str) -> list[str]:
    """An instruction's arguments: its JSON array's items, or its words."""
    text = rest.strip()
    if text.startswith("["):
        try:
            items = json.loads(text)
        except ValueError:
            items = None
        if isinstance(items, list) and all(isinstance(i, str) for i in items):
            return items
    return text.split()


def _copies(ws: Workspace, dockerfile: str, rest: str, workdir: str) -> dict[str, str]:
    """Where a `COPY`/`ADD` puts each repository file it copies from the build context (the
    Dockerfile's folder, else the repository's root): image path -> repository path."""
    words = _arguments(rest)
    if any(w.startswith("--from") for w in words):
        return {}
    words = [w for w in words if not w.startswith("--")]
    if len(words) < 2:
        return {}
    *sources, destination = words
    into = posixpath.normpath(posixpath.join(workdir, destination))
    folder = destination.endswith("/") or len(sources) > 1
    found: dict[str, str] = {}
    for written in sources:
        for context in dict.fromkeys((posixpath.dirname(dockerfile), "")):
            rel = posixpath.normpath(posixpath.join(context, written))
            if rel.startswith("..") or rel == ".":
                continue
            if rel in ws.shell_paths:
                name = posixpath.basename(rel)
                found[posixpath.join(into, name) if folder else into] = rel
                break
            inside = [p for p in ws.shell_paths if p.startswith(rel + "/")]
            for script in inside:
                found[posixpath.join(into, script[len(rel) + 1 :])] = script
            if inside:
                break
    return found


def _named(rest: str, copied: dict[str, str], workdir: str) -> set[str]:
    """The copied files a `RUN`, `CMD` or `ENTRYPOINT` runs by their path in the image (as
    written, or from the working folder: `./download.sh`): the program of one of its commands,
    or the script a shell or `source` it runs is given (`bash /download.sh`); not a file a
    command is given otherwise (`chmod +x /download.sh`)."""
    if not copied:
        return set()
    found = set()
    for command in _COMMANDS.split(" ".join(_arguments(rest))):
        words = [w.strip("\"'") for w in command.split()]
        while words and ("=" in words[0] or words[0] in _PREFIXES):
            words = words[1:]  # (an assignment, `exec`, `sudo`: the command is next)
        if words and posixpath.basename(words[0]) in _SHELLS:
            words = [w for w in words[1:] if not w.startswith("-")]
        if not words:
            continue
        at = posixpath.normpath(posixpath.join(workdir, words[0]))
        if at in copied:
            found.add(copied[at])
    return found
