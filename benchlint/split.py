"""A whole-repository run in two processes, one per core.

Building the shell and YAML models is most of a run, and it is per file, so the files are split:
the main process takes the launchers, the YAML files and the routes through them (the wiring
rules), the second process every other shell script and the recipes no route reaches. The one
fact a file's rules need from files the other process reads is who runs or sources it, so the
processes first build their own scripts and exchange their calls (file names only), then run
every rule on their share. Whatever else a rule needs from the other share (a sourced library,
the script that runs this one) it reads again itself. The second process is forked before any
model exists, so nothing is shared copy-on-write that either would write to.

The second process sends its findings, rule errors, unparsed files and the paths it read back
through a pipe. If it dies, its share is lost and the caller runs everything in one process.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import resource
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
    from benchlint.engine import Context, RuleError

    RunRules = Callable[[Context, list[Rule]], tuple[list[Finding], list[RuleError]]]

_HEADER = struct.Struct("<Q")


def shares(ws: Workspace) -> tuple[frozenset[str], frozenset[str]]:
    """(main, second): the YAML files and the launchers, and the other shell scripts. Giving the
    main process some of the other scripts too did not make runs faster (bench/bench.py and
    InferenceX): the routes it simulates are the longer half already."""
    wiring = Wiring(ws)
    launchers = {p for p in ws.shell_paths if wiring.is_launcher(p)}
    main = frozenset(ws.yaml_paths) | launchers
    return main, frozenset(p for p in ws.shell_paths if p not in launchers)


def run(
    ws: Workspace, rules: list[Rule], run_rules: RunRules
) -> tuple[list[Finding], list[RuleError]] | None:
    """The rules' findings and errors over the whole repository, or None if the second
    process failed (then nothing of it is used)."""
    from benchlint.engine import Context

    main_share, second_share = shares(ws)
    up_read, up_write = os.pipe()  # second -> main: its calls, then its results
    down_read, down_write = os.pipe()  # main -> second: the main process's calls
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the second process: never returns into the caller
        code = 1
        try:
            os.close(up_read)
            os.close(down_write)
            ctx = Context(ws, None, second_share, owns_routes=False)
            calls = ctx.environment.calls
            mine = calls.facts([p for p in ws.shell_paths if p in second_share])
            sending = _send_later(up_write, mine)
            message = _receive(down_read)
            sending.join()
            if message is not None:
                theirs, given = message
                ctx.share = second_share | given
                calls.use_facts(theirs + mine)
                raw, errors = run_rules(ctx, rules)
                peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                _send(up_write, (raw, errors, list(ws.failures.values()), ws.read_paths, peak))
                code = 0
        finally:
            os._exit(code)
    os.close(up_write)
    os.close(down_read)
    try:
        ctx = Context(ws, None, main_share, owns_routes=True)
        calls = ctx.environment.calls
        try:
            mine = calls.facts([p for p in ws.shell_paths if p in main_share])
            given = unrouted_recipes(ctx)
        except Exception:  # a model bug: the one-process run reports it where a rule meets it
            os.kill(pid, signal.SIGKILL)
            return None
        ctx.share = main_share - given
        sending = _send_later(down_write, (mine, given))
        # while the second process builds its scripts; an error here is reported by the rule
        # that needs the same thing
        with contextlib.suppress(Exception):
            _prepare(ctx)
        theirs = _receive(up_read)
        sending.join()
        if theirs is None:
            return None
        calls.use_facts(mine + theirs)
        raw, errors = run_rules(ctx, rules)
        result = _receive(up_read)
    finally:
        os.close(down_write)
        os.close(up_read)
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
    roots = tuple(root.rstrip("/") + "/" for root in ctx.config.layout.recipe_roots)
    return frozenset(p for p in ctx.ws.yaml_paths if p.startswith(roots) and p not in routed)


def _prepare(ctx: Context) -> None:
    """What the main process's rules need whatever the calls are: its YAML models and the
    routes (every launcher, the master configs and the simulated recipes)."""
    for path in ctx.in_scope(ctx.ws.yaml_paths):
        ctx.ws.yaml(path)
    for route in ctx.routes():
        for recipe in ctx.wiring.recipes(route):
            ctx.wiring.effective(route, recipe)


def _send_later(fd: int, message: object) -> threading.Thread:
    """Send from a thread: both processes send their calls before reading the other's, and a
    message larger than the pipe's buffer would otherwise leave both waiting."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    thread = threading.Thread(target=_write, args=(fd, data), daemon=True)
    thread.start()
    return thread


def _send(fd: int, message: object) -> None:
    _write(fd, pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def _write(fd: int, data: bytes) -> None:
    view = memoryview(_HEADER.pack(len(data)) + data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError:  # the other side is gone: it reports that by what it does not send
        pass


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
