"""The real `pre-commit try-repo` against this repository, in a throwaway git repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

WORKFLOW = """\
on: workflow_call
env: {ISL: '1024'}
jobs:
  run:
    runs-on: x
    steps:
      - run: bash ./runners/launch_${RUNNER_NAME%%_*}.sh
"""
BAD = '#!/usr/bin/env bash\nexport PORT="$PORT"\nvllm serve m --port "$PORT"\n'
GOOD = '#!/usr/bin/env bash\nexport PORT="${PORT:-8888}"\nvllm serve m --port "$PORT"\n'


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None:
        pytest.fail("git is required for the pre-commit test")
    return tmp_path_factory.mktemp("pre-commit-home")


def _try_repo(
    project: Path, home: Path, files: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """`files`: the changed files pre-commit is given (none: `--all-files`)."""
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    which = ["--files", *files] if files else ["--all-files"]
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "benchlint", *which],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def _project(root: Path, launcher: str) -> Path:
    for rel, text in {
        ".github/workflows/benchmark-tmpl.yml": WORKFLOW,
        "runners/launch_b200.sh": launcher,
        "README.md": "not linted\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _git(root, "init", "-q")
    _git(root, "add", ".")
    return root


def test_hook_fails_on_a_bad_launcher_and_passes_on_a_clean_one(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    bad = _try_repo(_project(tmp_path / "bad", BAD), pre_commit_home)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert 'runners/launch_b200.sh\n  2:8 error `export PORT="$PORT"`' in bad.stdout
    good = _try_repo(_project(tmp_path / "good", GOOD), pre_commit_home)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout


CLIENT = """\
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--model")
args = parser.parse_args()
"""


def test_hook_reads_the_scripts_that_run_a_changed_python_client(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    """A commit that changes only a client: the hook runs on it (its `types_or` has python),
    and the launcher that gives the client an option it no longer has fails the commit."""
    launcher = GOOD + "python3 utils/client.py --model m --save-result\n"
    root = _project(tmp_path / "client", launcher)
    (root / "utils").mkdir()
    (root / "utils/client.py").write_text(CLIENT)
    _git(root, "add", ".")
    found = _try_repo(root, pre_commit_home, ("utils/client.py",))
    assert found.returncode == 1, found.stdout + found.stderr
    assert "runners/launch_b200.sh\n  4:35 error `utils/client.py` has no option" in found.stdout
