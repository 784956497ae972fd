"""The cache of master-config entries: used when the content was seen, never stale, optional."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from benchlint.cache import Cache
from benchlint.cli import main
from benchlint.config import load_config
from benchlint.engine import lint, select_rules
from tests.conftest import TESTDATA

MASTER = "configs/nvidia-master.yaml"
LAUNCHER = "runners/launch_gb200-nv.sh"


def _example(tmp_path: Path) -> Path:
    root = tmp_path / "example"
    shutil.copytree(TESTDATA / "example", root, symlinks=True)
    return root


def _named_run(root: Path, cache: Cache | None) -> tuple[list[str], bool]:
    """The findings of a pre-commit-like run on the launcher, and whether the master config's
    YAML was parsed."""
    config = load_config(root / ".benchlint.toml")
    rules = select_rules(config, None, set())
    result = lint(root, config, rules, [root / LAUNCHER], cache=cache)
    assert result.workspace is not None
    parsed = MASTER in result.workspace._yaml
    return [f"{f.rule} {f.location} {f.message} {f.related}" for f in result.findings], parsed


def test_a_seen_master_config_is_not_parsed_again_and_gives_the_same_findings(
    tmp_path: Path,
) -> None:
    root = _example(tmp_path)
    cache = Cache(tmp_path / "cache")
    cold, parsed = _named_run(root, cache)
    assert parsed and cold
    assert len(list((tmp_path / "cache").glob("entries-*.marshal"))) == 1
    warm, parsed = _named_run(root, Cache(tmp_path / "cache"))
    assert not parsed
    assert warm == cold
    assert warm == _named_run(root, None)[0]


def test_a_changed_master_config_is_read_anew(tmp_path: Path) -> None:
    root = _example(tmp_path)
    cache = Cache(tmp_path / "cache")
    before, _ = _named_run(root, cache)
    master = root / MASTER
    master.write_text(master.read_text().replace("runner: gb200\n", "runner: gb200-x\n", 1))
    after, parsed = _named_run(root, cache)
    assert parsed
    assert after == _named_run(root, None)[0]
    assert after != before
    assert len(list((tmp_path / "cache").glob("entries-*.marshal"))) == 2


def test_a_garbled_or_unwritable_cache_is_no_cache(tmp_path: Path) -> None:
    root = _example(tmp_path)
    expected, _ = _named_run(root, None)
    cache = Cache(tmp_path / "cache")
    _named_run(root, cache)
    for stored in (tmp_path / "cache").glob("entries-*.marshal"):
        stored.write_bytes(b"\x00garbage")
    assert _named_run(root, cache) == (expected, True)
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would be")
    assert _named_run(root, Cache(blocked / "cache")) == (expected, True)


def test_no_cache_flag_and_environment(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = _example(tmp_path)
    folder = tmp_path / "user-cache"
    monkeypatch.setenv("BENCHLINT_CACHE_DIR", str(folder))
    out = tmp_path / "a.json"
    CliRunner().invoke(
        main, ["--no-cache", "--format", "json", "-o", str(out), str(root / LAUNCHER)]
    )
    assert not folder.exists()
    monkeypatch.setenv("BENCHLINT_NO_CACHE", "1")
    CliRunner().invoke(main, ["--format", "json", "-o", str(out), str(root / LAUNCHER)])
    assert not folder.exists()
    monkeypatch.delenv("BENCHLINT_NO_CACHE")
    CliRunner().invoke(main, ["--format", "json", "-o", str(out), str(root / LAUNCHER)])
    kinds = {p.name.rsplit("-", 1)[0] for p in folder.iterdir()}
    assert kinds == {"entries", "overlays"}
    assert json.loads(out.read_text())["findings"]
    assert not any(p.suffix == ".marshal" for p in root.rglob("*"))  # nothing in the repository
