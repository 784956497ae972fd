"""A whole-repository run in two processes, one per core.

Building the shell and YAML models is most of a run, and it is per file, so the files are shared
out. What only one process can do comes first: the second process reads the master configs and
sends their entries; the main process meanwhile models the launchers, then (with the entries)
finds the routes, reads the YAML files and simulates the routes. The other shell scripts are in
a pool (a pipe of indices into the shell paths) that each process takes from, one script at a
time, once its own work is done. How long the routes take against the scripts differs from one
repository to the next (bench/bench.py's synthetic repository: the scripts; InferenceX: the
routes), and no fixed split balances both.

The facts a file's rules need from files the other process read are who runs or sources it, so
the processes exchange the calls of the scripts they modelled (file names only), and the main
process sends which recipes run which script (`Wiring.script_runs`, from recipes it reads
anyway); then each runs every rule on its share. Whatever else a rule needs from the other share
(a sourced library, the script that runs this one) it reads again itself. The second process is
forked before any model exists, so nothing is shared copy-on-write that either would write to.

The recipes no route reaches are read by file-local rules only: they are a second pool, which
either process takes from while it waits for the other's calls and once its own rules are done;
then it runs every rule on the recipes it took.

The second process sends its findings, rule errors, unparsed files and the paths it read back
through a pipe. If it dies, its share is lost and the caller runs everything in one process.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import resource
import select
import signal
import struct
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from benchlint.finding import Finding
from benchlint.registry import Rule
from benchlint.wiring import Wiring
from benchlint.workspace import Workspace

if TYPE_CHECKING:
    from benchlint.context import Context
    from benchlint.engine import RuleError

    RunRules = Callable[[Context, list[Rule]], tuple[list[Finding], list[RuleError]]]

_HEADER = struct.Struct("<Q")
_INDEX = struct.Struct("<I")  # one pooled file: its index in ws.shell_paths or ws.yaml_paths
# Writes to a pipe of at most PIPE_BUF bytes (4096 on Linux, 512 by POSIX) are never split, so
# the pool is written in whole records and every read of one record gets a whole one.
_POOL_CHUNK = 512 // _INDEX.size


def shares(ws: Workspace) -> tuple[frozenset[str], frozenset[str], list[str]]:
    """(main, second, pooled scripts): the launchers and the YAML files but the master configs;
    the master configs (the second process reads them first and sends their entries while the
    main process models its launchers); and every other shell script, which either takes."""
    wiring = Wiring(ws)
    launchers = {p for p in ws.shell_paths if wiring.is_launcher(p)}
    masters = set(ws.glob(ws.layout.master_configs))
    main = frozenset(p for p in ws.yaml_paths if p not in masters) | launchers
    return main, frozenset(masters), [p for p in ws.shell_paths if p not in launchers]


def run(
    ws: Workspace,
    rules: list[Rule],
    run_rules: RunRules,
    meanwhile: Callable[[], object] | None = None,
) -> tuple[list[Finding], list[RuleError]] | None:
    """The rules' findings and errors over the whole repository, or None if the second
    process failed (then nothing of it is used). `meanwhile` is called in the main process
    after its own rules and before it takes the last pooled recipes."""
    from benchlint.context import Context

    main_share, second_share, pooled_scripts = shares(ws)
    up_read, up_write = os.pipe()  # second -> main: entries, calls, results
    down_read, down_write = os.pipe()  # main -> second: script runs, calls
    scripts_read, scripts_write = os.pipe()  # main -> either: the scripts
    recipes_read, recipes_write = os.pipe()  # main -> either: the unrouted recipes
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the second process: never returns into the caller
        code = 1
        try:
            for fd in (up_read, down_write, scripts_write, recipes_write):
                os.close(fd)
            ctx = Context(ws, None, second_share, owns_routes=False)
            up = _Sender(up_write)
            entries = None
            with contextlib.suppress(Exception):  # then the main process reads them itself
                entries = ctx.wiring.encoded_entries()
            up.send(entries)
            scripts = _take_scripts(ws, scripts_read)
            calls = ctx.environment.calls
            mine = calls.facts(scripts)
            up.send(mine)
            script_runs = _receive(down_read)
            recipes_taken: list[str] = []
            _take_recipes(ws, recipes_read, recipes_taken, until=down_read)  # rather than wait
            theirs, roots = _receive(down_read) or (None, None)
            if roots is not None:
                ws.__dict__["recipe_roots"] = roots  # what the main process detected
            if theirs is not None:
                ctx.wiring.script_runs_from = lambda: script_runs
                calls.use_facts(theirs + mine)
                ctx.share = second_share | frozenset(scripts)
                raw, errors = run_rules(ctx, rules)
                more_raw, more_errors = _run_pooled(
                    ctx, recipes_read, rules, run_rules, recipes_taken
                )
                peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                result = ([*raw, *more_raw], [*errors, *more_errors])
                up.send((*result, list(ws.failures.values()), ws.read_paths, peak))
                up.close()
                code = 0
        finally:
            os._exit(code)
    for fd in (up_write, down_read):
        os.close(fd)
    pooling: list[threading.Thread] = []
    sender = None
    try:
        index = {path: i for i, path in enumerate(ws.shell_paths)}
        pooling.append(_pool_later(scripts_write, [index[p] for p in pooled_scripts]))
        ctx = Context(ws, None, main_share, owns_routes=True)
        entries_given = _Later(lambda: _receive(up_read))  # the first thing it sends
        ctx.wiring.entries_from = entries_given
        sender = _Sender(down_write)
        launchers = [p for p in ws.shell_paths if p in main_share]
        try:
            for path in launchers:
                ws.shell(path)
            unrouted = unrouted_recipes(ctx)
        except Exception:  # a model bug: the one-process run reports it where a rule meets it
            os.kill(pid, signal.SIGKILL)
            return None
        # what only this process can do first (an error here is reported by the rule that
        # needs the same thing): the YAML, the scripts recipes run, the routes
        with contextlib.suppress(Exception):
            for path in ctx.in_scope(ctx.ws.yaml_paths):
                if path not in unrouted:
                    ctx.ws.yaml(path)
        script_runs = None
        with contextlib.suppress(Exception):
            script_runs = ctx.wiring.script_runs
        sender.send(script_runs)
        # the unrouted recipes that just ran a script stay here: they are read already
        pooled = frozenset(p for p in unrouted if not ws.has_yaml(p))
        index = {path: i for i, path in enumerate(ws.yaml_paths)}
        pooling.append(_pool_later(recipes_write, [index[p] for p in sorted(pooled)]))
        with contextlib.suppress(Exception):
            _simulate(ctx)
        entries_given()  # read by now (the routes need them); the facts come next
        scripts = _take_scripts(ws, scripts_read)
        calls = ctx.environment.calls
        mine = calls.facts(launchers + scripts)
        roots = None
        with contextlib.suppress(Exception):
            roots = ws.recipe_roots  # detecting them models every launcher: this process does
        sender.send((mine, roots))
        taken: list[str] = []
        _take_recipes(ws, recipes_read, taken, until=up_read)  # rather than wait
        theirs = _receive(up_read)
        if theirs is None:
            return None
        calls.use_facts(mine + theirs)
        ctx.share = (main_share - pooled) | frozenset(scripts)
        raw, errors = run_rules(ctx, rules)
        if meanwhile is not None:
            with contextlib.suppress(Exception):  # the caller meets it again
                meanwhile()
        more_raw, more_errors = _run_pooled(ctx, recipes_read, rules, run_rules, taken)
        raw += more_raw
        errors += more_errors
        result = _receive(up_read)
    finally:
        if sender is not None:
            sender.close()
        for fd in (down_write, up_read, scripts_read, recipes_read):
            os.close(fd)  # a pool writer still waiting gets an error and ends
        for fd in (scripts_write, recipes_write)[len(pooling) :]:
            os.close(fd)  # no writer took it
        os.waitpid(pid, 0)
    if result is None:
        return None
    other_raw, other_errors, failures, read, peak = result
    for failure in failures:
        ws.failures.setdefault(failure.path, failure)
    ws.read_elsewhere.update(read)
    ws.other_peak_kib = peak
    order = {rule.id: i for i, rule in enumerate(rules)}
    merged = sorted([*raw, *other_raw], key=lambda f: order.get(f.rule, len(order)))
    merged_errors = sorted([*errors, *other_errors], key=lambda e: order.get(e.rule, len(order)))
    return merged, merged_errors


def unrouted_recipes(ctx: Context) -> frozenset[str]:
    """The recipes no route reaches: only file-local rules read them, so the second process can
    take them (on InferenceX more than half the YAML, by size)."""
    routed = {r.path for route in ctx.routes() for r in ctx.wiring.recipes(route) if r.path}
    roots = tuple(root.rstrip("/") + "/" for root in ctx.ws.recipe_roots)
    return frozenset(p for p in ctx.ws.yaml_paths if p.startswith(roots) and p not in routed)


def _simulate(ctx: Context) -> None:
    """Every route's recipes as its launcher leaves them: what the route rules read."""
    for route in ctx.routes():
        for recipe in ctx.wiring.recipes(route):
            ctx.wiring.effective(route, recipe)


class _Later:
    """A value computed when first asked for."""

    def __init__(self, compute: Callable[[], Any]) -> None:
        self._compute: Callable[[], Any] | None = compute
        self._value: Any = None

    def __call__(self) -> Any:
        if self._compute is not None:
            self._value, self._compute = self._compute(), None
        return self._value


class _Sender:
    """Messages to a pipe, in order, written by a thread: both processes send before they read,
    and a message larger than the pipe's buffer would otherwise leave both waiting."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def send(self, message: object) -> None:
        self._queue.put(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    def close(self) -> None:
        """Wait until everything sent is written (or the reader is gone)."""
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        while (data := self._queue.get()) is not None:
            _write(self._fd, data)


def _run_pooled(
    ctx: Context, pool: int, rules: list[Rule], run_rules: RunRules, taken: list[str]
) -> tuple[list[Finding], list[RuleError]]:
    """Take pooled recipes until the pool is empty, then run the rules on them and on those
    `taken` before (they are unrouted: no route is this pass's)."""
    _take_recipes(ctx.ws, pool, taken)
    if not taken:
        return [], []
    ctx.share, ctx.owns_routes = frozenset(taken), False
    return run_rules(ctx, rules)


def _take_scripts(ws: Workspace, pool: int) -> list[str]:
    """Take pooled scripts until the pool is empty, modelling each as it is taken."""
    taken: list[str] = []
    _take(pool, ws.shell_paths, ws.shell, taken)
    return taken


def _take_recipes(ws: Workspace, pool: int, taken: list[str], until: int | None = None) -> None:
    """Take pooled recipes, reading each as it is taken, until the pool is empty or, with
    `until`, until that pipe has a message."""
    _take(pool, ws.yaml_paths, ws.yaml, taken, until)


def _take(
    pool: int,
    paths: list[str],
    build: Callable[[str], object],
    taken: list[str],
    until: int | None = None,
) -> None:
    while until is None or not select.select([until], [], [], 0)[0]:
        record = os.read(pool, _INDEX.size)
        if not record:
            return
        path = paths[_INDEX.unpack(record)[0]]
        with contextlib.suppress(Exception):  # a model bug: reported where a rule meets it
            build(path)
        taken.append(path)


def _pool_later(fd: int, indices: list[int]) -> threading.Thread:
    """Write the pool from a thread (a pool larger than the pipe's buffer waits for readers,
    who take from it only once their own work is done) in whole records, then close it: an
    empty pipe whose writer is gone is how readers learn the pool is empty."""

    def write() -> None:
        try:
            for start in range(0, len(indices), _POOL_CHUNK):
                chunk = indices[start : start + _POOL_CHUNK]
                _write_all(fd, struct.pack(f"<{len(chunk)}I", *chunk))
        except OSError:  # every reader is gone
            pass
        finally:
            os.close(fd)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def _write(fd: int, data: bytes) -> None:
    # the other side is gone: it reports that by what it does not send
    with contextlib.suppress(OSError):
        _write_all(fd, _HEADER.pack(len(data)) + data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _receive(fd: int) -> Any:
    """One message, or None when the other side closed or died first."""
    header = _read_exactly(fd, _HEADER.size)
    if header is None:
        return None
    data = _read_exactly(fd, _HEADER.unpack(header)[0])
    return pickle.loads(data) if data is not None else None


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks = []
    remaining = size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
