"""The parse cache: same findings from a warm run, damaged entries ignored, --no-cache honoured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchlint.cli import main
from tests.conftest import TESTDATA


def _run(*args: str) -> list[tuple[str, str, int, int]]:
    outcome = CliRunner().invoke(main, [str(TESTDATA / "example"), "--format", "json", *args])
    assert outcome.exit_code == 1, outcome.output
    return [
        (f["rule"], f["path"], f["line"], f["column"])
        for f in json.loads(outcome.output)["findings"]
    ]


def test_warm_run_reads_the_cache_and_finds_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHLINT_CACHE_DIR", str(tmp_path / "cache"))
    uncached = _run("--no-cache")
    assert not (tmp_path / "cache").exists()
    cold = _run()
    entries = list((tmp_path / "cache").rglob("*"))
    assert [e for e in entries if e.is_file()]
    warm = _run()
    assert uncached == cold == warm
    for entry in entries:  # damage every entry: parsed again, same findings
        if entry.is_file():
            entry.write_bytes(b"\x00not marshal")
    assert _run() == uncached
