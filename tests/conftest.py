"""Shared helpers: write a small repository to disk and lint it through the engine."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchlint.config import Config
from benchlint.engine import lint, select_rules
from benchlint.registry import expand_selectors
from benchlint.result import Result

REPO = Path(__file__).resolve().parent.parent
TESTDATA = REPO / "testdata"


def write_repo(root: Path, files: dict[str, str], symlinks: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / ".benchlint.toml").write_text("")
    for rel, text in files.items():  # a case may bring its own .benchlint.toml
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for link, target in (symlinks or {}).items():
        (root / link).parent.mkdir(parents=True, exist_ok=True)
        (root / link).symlink_to(target)
    return root


def copy_example(target: Path) -> Path:
    """A copy of the example repository (its symlinks kept, any cache a local run left out)."""
    shutil.copytree(
        TESTDATA / "example",
        target,
        symlinks=True,
        ignore=shutil.ignore_patterns(".benchlint_cache"),
    )
    return target


def run_lint(
    root: Path,
    select: str | None = None,
    named: list[Path] | None = None,
    config: Config | None = None,
) -> Result:
    """Lint as the CLI does; `select`: comma-separated IDs or prefixes (None: the default rules)."""
    config = config or Config()
    chosen = expand_selectors(select.split(",")) if select is not None else None
    rules = select_rules(config, chosen, set())
    return lint(root, config, rules, named or [root])


def positions(result: Result, rule: str | None = None) -> list[str]:
    return sorted(
        f"{f.location.path}:{f.location.span.line}:{f.location.span.column}"
        for f in result.findings
        if rule is None or f.rule == rule
    )


@pytest.fixture
def repo(tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(files: dict[str, str], symlinks: dict[str, str] | None = None) -> Path:
        return write_repo(tmp_path / "repo", files, symlinks)

    return make


@pytest.fixture(autouse=True)
def _private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs started by the tests (the CLI, pre-commit) keep their cache in a temporary folder."""
    monkeypatch.setenv("BENCHLINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
