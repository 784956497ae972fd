"""The GitHub Action (action.yml): its shell steps run as GitHub runs them, with the variables
and files GitHub provides (GITHUB_ACTION_PATH, GITHUB_OUTPUT, GITHUB_PATH, RUNNER_TEMP)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

from tests.conftest import REPO, copy_example


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def _run_step(workspace: Path, tmp: Path, **inputs: str) -> tuple[dict[str, str], str]:
    output = tmp / f"output-{len(list(tmp.iterdir()))}"
    output.write_text("")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_ACTION_PATH": str(REPO),
        "GITHUB_OUTPUT": str(output),
        "RUNNER_TEMP": str(tmp),
        **{f"INPUT_{k.upper()}": v for k, v in inputs.items()},
    }
    step = subprocess.run(
        ["bash", str(REPO / "action" / "run.sh")],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,  # the step itself never fails: the exit code is an output
    )
    return _outputs(output), step.stdout


def test_the_action_runs_its_own_scripts() -> None:
    action = YAML(typ="safe").load((REPO / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert any('"$GITHUB_ACTION_PATH/action/install.sh"' in r for r in runs)
    assert any('"$GITHUB_ACTION_PATH/action/run.sh"' in r for r in runs)
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/"))
    assert upload["uses"] == "github/codeql-action/upload-sarif@v3"
    assert upload["with"]["sarif_file"] == "${{ steps.run.outputs.sarif }}"
    assert set(action["inputs"]) == {"paths", "baseline", "args", "upload", "python-version"}
    # every input the run step reads is passed to it
    run = next(s for s in steps if s.get("id") == "run")
    assert set(run["env"]) == {"INPUT_PATHS", "INPUT_BASELINE", "INPUT_ARGS"}


def test_run_step_writes_sarif_and_the_exit_code(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    copy_example(workspace)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    outputs, log = _run_step(workspace, temp, paths=".")
    assert outputs["exit-code"] == "1"
    sarif = json.loads(Path(outputs["sarif"]).read_text())
    results = sarif["runs"][0]["results"]
    assert len(results) == 32
    assert "Found 32 findings" in log  # the readable report in the job's log
    # a baseline of the same report: nothing new, exit code 0
    baseline = tmp_path / "baseline.sarif"
    shutil.copy(outputs["sarif"], baseline)
    outputs, _ = _run_step(workspace, temp, paths=".", baseline=str(baseline))
    assert outputs["exit-code"] == "0"
    # extra options and several paths
    outputs, _ = _run_step(workspace, temp, paths="runners configs", args="--select BL102")
    sarif = json.loads(Path(outputs["sarif"]).read_text())
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"BL102"}
    # a usage error: exit code 2 and no report to upload
    outputs, _ = _run_step(workspace, temp, args="--select BL999")
    assert outputs == {"exit-code": "2"}


def test_install_step_installs_from_the_checkout(tmp_path: Path) -> None:
    path_file = tmp_path / "github-path"
    path_file.write_text("")
    env = {
        **os.environ,
        "GITHUB_ACTION_PATH": str(REPO),
        "GITHUB_PATH": str(path_file),
        "RUNNER_TEMP": str(tmp_path),
    }
    step = subprocess.run(
        ["bash", str(REPO / "action" / "install.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert "benchlint, version" in step.stdout
    (bin_dir,) = path_file.read_text().split()
    assert (Path(bin_dir) / "benchlint").is_file()
