"""The bench's memory reading (`bench/bench.py`): a child that shares the run's address space
(a `vfork`'s child before its `exec`) is not counted again; a forked worker is."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _bench():  # type: ignore[no-untyped-def]
    path = Path(__file__).resolve().parent.parent / "bench" / "bench.py"
    spec = importlib.util.spec_from_file_location("bench_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_process_shares_its_own_memory_and_not_a_forked_childs() -> None:
    bench = _bench()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert bench._same_memory(os.getpid(), os.getpid())
        assert not bench._same_memory(os.getpid(), child.pid)
    finally:
        child.kill()
        child.wait()


def test_a_child_is_counted_unless_it_shares_the_parents_memory() -> None:
    # a parent holding 64 MiB and a child holding 64 MiB of its own: both counted; the same
    # child taken as sharing the parent's address space (as `_same_memory` says of a `vfork`'s
    # child before its `exec`): the parent's alone
    holder = (
        "import sys, subprocess, time\n"
        "held = bytearray(64 << 20)\n"
        "held[::4096] = b'x' * len(held[::4096])\n"
        "child = subprocess.Popen([sys.executable, '-c', sys.argv[1]])\n"
        "print('ready', flush=True)\n"
        "time.sleep(30)\n"
    )
    inner = (
        "import time\n"
        "held = bytearray(64 << 20)\n"
        "held[::4096] = b'x' * len(held[::4096])\n"
        "print('in', flush=True)\n"
        "time.sleep(30)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", holder, inner], stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        assert sorted([parent.stdout.readline().strip(), parent.stdout.readline().strip()]) == [
            "in",
            "ready",
        ]
        bench = _bench()
        assert bench._tree_rss(parent.pid) > 2 * 64 * 1024  # KiB
        bench._same_memory = lambda first, second: second != parent.pid
        alone = bench._tree_rss(parent.pid)
        assert 64 * 1024 < alone < 2 * 64 * 1024
    finally:
        for pid in Path(f"/proc/{parent.pid}/task/{parent.pid}/children").read_text().split():
            os.kill(int(pid), 9)
        parent.kill()
        parent.wait()
