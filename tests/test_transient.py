"""A large YAML file that only passes over every file read (BL001, BL203) is read once and let go:
its findings are those of a run that keeps it, and a rule that needs the document later builds
it again."""

from __future__ import annotations

from pathlib import Path

import pytest

import benchlint.workspace
from tests.conftest import positions, run_lint, write_repo

FILES = {
    # generated-manifest sized (with the threshold lowered below): a repeated key
    "deploy/crd.yaml": "kind: CustomResourceDefinition\n"
    + "".join(f"field{i}: {i}\n" for i in range(40))
    + "field3: again\n",
    "deploy/small.yaml": "a: 1\na: 2\n",
    "broken.yaml": "a: [1\n" + "# padding\n" * 40,
}


def _run(root: Path, select: str) -> tuple[list[str], set[str]]:
    result = run_lint(root, select=select)
    assert result.workspace is not None and not result.errors
    return positions(result), set(result.workspace.documents())


def test_a_large_yaml_file_is_read_once_and_let_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_repo(tmp_path / "repo", FILES)
    kept_findings, kept = _run(root, "BL001,BL203")
    assert kept_findings == ["broken.yaml:42:1", "deploy/crd.yaml:42:1", "deploy/small.yaml:2:1"]
    assert {"deploy/crd.yaml", "deploy/small.yaml"} <= kept

    monkeypatch.setattr(benchlint.workspace, "TRANSIENT_BYTES", 100)
    found, kept = _run(root, "BL001,BL203")
    assert found == kept_findings
    assert "deploy/crd.yaml" not in kept and "deploy/small.yaml" in kept
    found, _ = _run(root, "BL203")  # (its pass runs when it reads the file itself too)
    assert found == ["deploy/crd.yaml:42:1", "deploy/small.yaml:2:1"]
