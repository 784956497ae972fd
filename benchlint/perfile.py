"""The per-file step: one file's bytes to its facts as plain data, here or in a worker process.

A YAML file's facts are its documents as plain data (`yamlmodel.encode_documents`), or why it
has none: a template of YAML (Go or Jinja syntax that does not parse), or a parse failure with
its message and position. A shell file's are its script's model as plain data
(`shell.summary`), or the failure to model it. The step is a pure function of the bytes, so its
result is the same in any process, and the cache keeps it by content (kinds "yaml", "shell").

`Pool` maps the step over many files with a `concurrent.futures` process pool, in chunks, while
this process goes on with the same work from the other end of the list. A file wanted before
its chunk started is taken back and done here: no file is ever parsed twice, and no caller
waits on work not begun. Rules and the link step never see any of it: they ask the workspace
for a file's model.
"""

from __future__ import annotations

import gc
import marshal
import os
import re
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from benchlint.cache import Cache
from benchlint.finding import FILE_START
from benchlint.lazyre import lazy_compile
from benchlint.shell.model import Script, parse_file
from benchlint.shell.summary import encode_script
from benchlint.source import SourceText, content_digest
from benchlint.yamlmodel import (
    DepthError,
    YamlDocument,
    YamlError,
    decode_documents,
    encode_documents,
    parse_yaml,
)

if TYPE_CHECKING:  # imported when a pool starts: a run without one spares 10 ms
    from concurrent.futures import Future, ProcessPoolExecutor

TOO_DEEP = "is nested too deeply to analyse"
# Go template or Jinja syntax (not a GitHub workflow's `${{ ... }}`)
_TEMPLATE = lazy_compile(r"(?<!\$)\{\{.*?\}\}|\{%.*?%\}")
# a line that is one placeholder (`envsubst`, Python's string.Template, a Terraform
# `templatefile` interpolation: `${indent(4, yamlencode(labels))}`): it stands for a block
_BLOCK_PLACEHOLDER = lazy_compile(r"[ \t]*\$(?:\{[^{}\n]+\}|[A-Za-z_][A-Za-z0-9_]*)[ \t]*")

# `{name}` in a value, followed at once by more of the word (`{username}/custom-model:latest`)
_GLUED_PLACEHOLDER = lazy_compile(r"(?:^|[\s:\[,-])\{[A-Za-z_][A-Za-z0-9_]*\}[^\s,}\]#]")
_GLUED_NAME = lazy_compile(r"(^|[\s:\[,-])\{([A-Za-z_][A-Za-z0-9_]*)\}(?=[^\s,}\]#])", re.M)

# A YAML file's facts: ("document", encoded) | ("template",) | ("failure", message, span)
Facts = tuple[Any, ...]


def read_yaml(source: SourceText) -> tuple[YamlDocument | None, Facts]:
    """The file's document (None when it has none) and what the step says of it; the
    "document" facts are not encoded here (None in their place): only a caller that sends or
    keeps them pays for that."""
    try:
        return parse_yaml(source), ("document", None)
    except YamlError as exc:
        error: YamlError | None = exc
        if _templated(source.text):
            return None, ("template",)  # a template of YAML, not YAML: not a parse failure
        if _placeholder_before(source.text, exc.span.line):
            error = _error_filled_in(source)
        if error is None:
            return None, ("template",)
        return None, ("failure", f"is not valid YAML: {error.message}", tuple(error.span))
    except (DepthError, RecursionError):
        return None, ("failure", TOO_DEEP, tuple(FILE_START))


def _templated(text: str) -> bool:
    """Whether the text holds template syntax outside YAML comments (`# see {{ docs }}` is
    none: the file is broken YAML, not a template)."""
    for match in _TEMPLATE.finditer(text):
        before = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
        if not (before.lstrip().startswith("#") or " #" in before or "\t#" in before):
            return True
    return False


def _placeholder_before(text: str, line: int) -> bool:
    """Whether a line that is one placeholder (`${PULL_SECRETS_BLOCK}`), or a line with a
    `{name}` placeholder glued to more text (`image: {username}/model:latest`, for Python's
    str.format or a reader to fill in: a flow mapping never runs on into a word), is on the
    line where parsing failed or one of the two before it (libyaml notices the missing `:`
    after it)."""
    lines = text.split("\n", line)[max(0, line - 3) : line]
    return any(
        _BLOCK_PLACEHOLDER.fullmatch(item.rstrip("\r")) or _GLUED_PLACEHOLDER.search(item)
        for item in lines
    )


def _error_filled_in(source: SourceText) -> YamlError | None:
    """The error of the file once its placeholders are filled in (a line that is one placeholder
    left empty, `{name}` written as `name`), None when it then parses: else the failure is the
    file's own (`a: [1, 2` left open beside an `image: {username}/x`), where it then is."""
    lines = [
        "" if _BLOCK_PLACEHOLDER.fullmatch(line.rstrip("\r")) else line
        for line in source.text.split("\n")
    ]
    filled = _GLUED_NAME.sub(r"\1\2", "\n".join(lines))
    try:
        parse_yaml(SourceText(source.path, filled.encode("utf-8", "surrogateescape")))
    except YamlError as exc:
        return exc
    except (DepthError, RecursionError):
        return None
    return None


def yaml_facts(path: str, data: bytes) -> Facts:
    """The per-file step for a YAML file, as plain data."""
    document, facts = read_yaml(SourceText(path, data))
    if document is not None:
        return ("document", encode_documents(document))
    return facts


def yaml_document(source: SourceText, facts: Facts) -> YamlDocument | None:
    """The document the facts describe, over the file's text (None: it has none)."""
    if facts[0] != "document":
        return None
    encoded = facts[1]
    return decode_documents(source, (encoded[0], encoded[1]))


def script_facts(script: Script | None) -> Facts | None:
    """A script's facts: ("script", its model as plain data), or ("failure", message) when it
    could not be modelled (None); None when its model is nested too deeply to encode."""
    if script is None:
        return ("failure", TOO_DEEP)
    try:
        return ("script", encode_script(script))
    except RecursionError:
        return None


def shell_facts(path: str, data: bytes) -> Facts:
    """The per-file step for a shell file: its `script_facts`, or ("here",) when its model
    cannot be sent: the process that wants it models it."""
    try:
        script: Script | None = parse_file(SourceText(path, data))
    except RecursionError:
        script = None
    return script_facts(script) or ("here",)


_STEPS = {"yaml": yaml_facts, "shell": shell_facts}


def _chunk(files: list[tuple[str, str, bytes]], cache: Cache | None) -> bytes:
    """A worker's share: each file's facts (by its kind: "yaml" or "shell"), stored in the
    cache as they are made, marshalled. (InferenceX's YAML: 0.09 s to encode and marshal,
    0.10 s to load and decode; pickling the documents themselves took 0.54 s, and loading them
    0.19 s. Its scripts: 0.19 s to encode and marshal, 0.19 s to load and decode, against
    0.66 s to model them.)"""
    found = []
    for kind, path, data in files:
        facts = _STEPS[kind](path, data)
        if cache is not None and facts[0] != "here":
            cache.put(kind, path, content_digest(data), facts)
        found.append(facts)
    encoded = marshal.dumps(found)
    del found
    gc.collect()  # the chunk's cycles (a parse that failed keeps its frames): see _worker_start
    return encoded


def _worker_start() -> None:
    """A worker inherits a paused collector and every object of the process it was forked from.
    Those are frozen (never looked at, so never copied) and the worker collects its own cycles
    after each chunk: otherwise it grew by 30 MiB over InferenceX's YAML."""
    gc.freeze()


# Below this many bytes of YAML to parse, starting a worker costs more than it saves (a fork
# and a pipe round trip per chunk against about 0.08 s per MB parsed; measured on InferenceX).
MIN_BYTES = 1 << 20
CHUNK_BYTES = 128 << 10
# A worker parses about 3 MiB of YAML in the time this process models InferenceX's scripts
# (0.14 s per MiB, forked, against 0.45 s): one per 3 MiB keeps pace, and more only add memory
# (about 40 MiB each, summed).
WORKER_BYTES = 3 << 20
# Scripts go to workers too from this many processes on. With one worker, the worker takes the
# YAML while this process models the scripts: sending scripts as well gains nothing (encoding a
# model and decoding it cost about what modelling it does: InferenceX 1.9 s either way on 2
# CPUs) and costs on a repository with little YAML (the synthetic one: 1.13 s against 1.06 s).
SHELL_JOBS = 3


def default_jobs() -> int:
    """The processes a run may use: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class Pool:
    """Files modelled by worker processes (up to `jobs - 1`, one per WORKER_BYTES) while this
    one works on. `files`: (kind, path, bytes) in the order this process will want them; the
    workers start from the end."""

    def __init__(self, files: list[tuple[str, str, bytes]], jobs: int, cache: Cache | None) -> None:
        self._executor: ProcessPoolExecutor | None = None
        self._chunk_of: dict[str, Future[bytes]] = {}
        self._members: dict[int, list[str]] = {}
        self._ready: dict[str, Facts] = {}  # a started chunk's files, until each is asked for
        self._futures: list[Future[bytes]] = []
        total = sum(len(data) for _, _, data in files)
        if jobs < 2 or total < MIN_BYTES:
            return
        from concurrent.futures import ProcessPoolExecutor

        workers = min(jobs - 1, -(-total // WORKER_BYTES))
        _one_malloc_arena()
        self._executor = ProcessPoolExecutor(
            workers, mp_context=_context(), initializer=_worker_start
        )
        for chunk in reversed(_chunks(files)):
            future = self._executor.submit(_chunk, chunk, cache)
            self._futures.append(future)
            paths = [path for _, path, _ in chunk]
            self._members[id(future)] = paths
            for path in paths:
                self._chunk_of[path] = future

    def take(self, path: str) -> Facts | None:
        """The file's facts from a worker (waiting for its chunk if it started), or None when
        this process is to do it: it was never sent, or its chunk had not started."""
        if path in self._ready:
            return self._ready.pop(path)
        future = self._chunk_of.get(path)
        if future is None:
            return None
        paths = self._members.pop(id(future), [])
        for member in paths:
            self._chunk_of.pop(member, None)
        self._futures.remove(future)  # (its result is let go of once its files are taken)
        if future.cancel():
            self._done()
            return None
        from concurrent.futures.process import BrokenProcessPool

        try:
            self._ready.update(zip(paths, marshal.loads(future.result()), strict=True))
        except BrokenProcessPool:  # a worker died (killed for memory): its files are done here
            return None
        finally:
            self._done()
        return self._ready.pop(path)

    def finished(self) -> None:
        """Once every chunk is done, the workers are told to end, though this process has not
        taken every result yet (it holds them, marshalled): a run that reads the YAML after
        the scripts' passes would otherwise hold the idle workers' memory through them
        (InferenceX: 168 MiB proportional against 146)."""
        if self._executor is not None and all(f.done() for f in self._futures):
            self._executor.shutdown(wait=False)
            self._executor = None

    def _done(self) -> None:
        """Once every chunk is taken, the workers are told to end, and this process goes on:
        their memory is not held while the rules run (InferenceX: 29 MiB proportional)."""
        if not self._members and self._executor is not None:
            self._executor.shutdown(wait=False)
            self._executor = None

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None


# glibc's `mallopt` parameter for the most malloc arenas a process makes
_M_ARENA_MAX = -8


def _one_malloc_arena() -> None:
    """Before the pool's threads start: one malloc arena for the process. glibc gives each
    thread that allocates an arena of its own, and the pool's thread that reads the workers'
    results into this process fills one; what is freed there stays resident (InferenceX: 146
    MiB summed at the peak, against 152 with the thread's arena). Where the C library has no
    `mallopt` (not glibc), nothing changes."""
    if sys.platform != "linux":
        return
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(_M_ARENA_MAX, 1)


def _chunks(files: Iterable[tuple[str, str, bytes]]) -> list[list[tuple[str, str, bytes]]]:
    chunks: list[list[tuple[str, str, bytes]]] = [[]]
    size = 0
    for kind, path, data in files:
        if size >= CHUNK_BYTES:
            chunks.append([])
            size = 0
        chunks[-1].append((kind, path, data))
        size += len(data)
    return [c for c in chunks if c]


def _context() -> Any:
    """Forked workers where forking is the platform's way (no re-import: a worker starts in
    milliseconds); spawned ones elsewhere."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context(
        "fork" if sys.platform == "linux" and "fork" in methods else "spawn"
    )
