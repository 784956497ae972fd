"""Layout detection: every repository of the family with no configuration, and never blind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchlint.cli import main
from tests.conftest import TESTDATA, positions, run_lint, write_repo

LEGACY = TESTDATA / "legacy"


def invoke(*args: str | Path) -> tuple[int, str, str]:
    outcome = CliRunner().invoke(main, [str(a) for a in args])
    return outcome.exit_code, outcome.stdout, outcome.stderr


def test_a_launch_line_several_workflows_run_says_how_many_more(tmp_path: Path) -> None:
    """The launchers' fact names the first workflow line that runs them and counts the others
    (h57 W8), in the text and the JSON."""
    workflow = """\
on: workflow_call
jobs:
  run:
    runs-on: x
    steps:
      - run: bash ./runners/launch_${RUNNER_NAME%%_*}.sh
"""
    root = write_repo(
        tmp_path,
        {
            ".github/workflows/benchmark-tmpl.yml": workflow,
            ".github/workflows/benchmark-multinode-tmpl.yml": workflow,
            ".github/configs/nvidia-master.yaml": (
                "a:\n  image: x\n  model: m\n  runner: h200\n"
                "  scenarios:\n    fixed-seq-len:\n    - search-space:\n      - {tp: 8}\n"
            ),
            "runners/launch_h200-cw.sh": "vllm serve m\n",
        },
    )
    _, out, _ = invoke("layout", root)
    assert (
        "launchers runners/launch_*.sh: run as runners/launch_${RUNNER_NAME%%_*}.sh from "
        ".github/workflows/benchmark-multinode-tmpl.yml:6 and 1 more"
    ) in out.splitlines()
    _, out, _ = invoke("layout", root, "--format", "json")
    facts = [f for f in json.loads(out)["facts"] if f["kind"] == "launchers"]
    assert [(f["source"]["line"], f["more"]) for f in facts] == [(6, 1)]


def test_the_layout_inferencex_had_before_july_2026_is_detected() -> None:
    code, out, _ = invoke("layout", LEGACY)
    assert code == 0
    assert out.splitlines() == [
        "master config .github/configs/nvidia-master.yaml: 2 entries (schema: seq-len-configs)"
        " from .github/configs/nvidia-master.yaml:1",
        "runners file .github/configs/runners.yaml: 2 labels (flat) from"
        " .github/configs/runners.yaml:2",
        "launchers launch_*.sh: run as launch_${RUNNER_NAME%%_*}.sh from"
        " .github/workflows/benchmark-multinode-tmpl.yml:25",
        "recipe root benchmarks/multi_node/srt_slurm_recipes: -> recipes/ from"
        " launch_gb200-nv.sh:8",
        # (the workflows entries are routed through: a launcher run elsewhere is said)
        "workflows .github/workflows/*-tmpl.yml .github/workflows/*-tmpl.yaml: 1 file"
        " (.github/workflows/benchmark-multinode-tmpl.yml)",
    ]
    code, out, _ = invoke("layout", LEGACY, "--format", "json")
    facts = json.loads(out)["facts"]
    assert facts[2]["source"] == {
        "path": ".github/workflows/benchmark-multinode-tmpl.yml",
        "line": 25,
    }


def test_the_legacy_layout_is_wired_and_linted() -> None:
    """The root-level launcher clamps a recipe overlaid through a variable (BL201); the flat
    runners file defines one label and not the other (one BL205, no flood); the chart template
    is no parse failure."""
    from benchlint.config import load_config

    result = run_lint(LEGACY, config=load_config(LEGACY / ".benchlint.toml"))
    assert positions(result) == [
        ".github/configs/nvidia-master.yaml:28:11",
        "benchmarks/multi_node/srt_slurm_recipes/vllm/dsr1/disagg.yaml:5:3",
    ]
    assert [f.rule for f in result.findings] == ["BL205", "BL201"]
    assert result.workspace is not None
    assert result.workspace.templates == {"deploy/chart/templates/job.yaml"}
    code, out, err = invoke(LEGACY)
    assert code == 1
    # (paths from the folder the tests run in, as the findings' are)
    assert err.startswith(
        "benchlint: warning: 1 template not linted (testdata/legacy/deploy/chart/templates/job"
    )
    assert out.rstrip().endswith(
        "in 7 files read: 1 master config (2 entries), 1 launcher, 1 recipe (1 routed), "
        "0 other scripts, 3 other YAML files; 1 template not linted."
    )


def test_an_srt_slurm_tree_reads_its_recipes(tmp_path: Path) -> None:
    root = write_repo(
        tmp_path / "srt",
        {
            "srtslurm.yaml.example": "default_account: x\n",
            "recipes/gb200/agentic.yaml": (
                "name: agentic\n"
                "dynamo: {version: 1.4.0}\n"
                "backend:\n"
                "  type: vllm\n"
                "  vllm_config:\n"
                "    aggregated:\n"
                "      tool-call-parser: kimi_k2\n"
            ),
            "recipes/gb200/vllm-frontend.yaml": (
                "frontend: {type: vllm}\n"
                "backend:\n"
                "  type: vllm\n"
                "  vllm_config:\n"
                "    aggregated:\n"
                "      tool-call-parser: kimi_k2\n"
            ),
        },
    )
    assert positions(run_lint(root, select="BL301")) == ["recipes/gb200/agentic.yaml:7:7"]
    _, out, _ = invoke("layout", root)
    assert "recipe root recipes: this repository is an srt-slurm tree" in out


def test_an_srt_slurm_tree_of_before_the_rename_reads_recipies(tmp_path: Path) -> None:
    """srt-slurm kept its recipes in `recipies/` until January 2026 (the profile's
    srt_slurm_recipe_folders): read as recipes, not skipped in silence."""
    recipe = "slurm: {time_limit: '00:05:00'}\nhealth_check: {max_attempts: 180}\n"
    root = write_repo(
        tmp_path / "srt",
        {"srtslurm.yaml.example": "default_account: x\n", "recipies/h100/a.yaml": recipe},
    )
    assert positions(run_lint(root, select="BL204")) == ["recipies/h100/a.yaml:2:16"]
    _, out, _ = invoke("layout", root)
    assert "recipe root recipies: this repository is an srt-slurm tree" in out


def test_an_srt_slurm_tree_reads_the_recipes_of_its_other_folders(tmp_path: Path) -> None:
    """srt-slurm keeps example recipes in `examples/` (and once `ci/`), run with `srtctl apply
    -f examples/x.yaml`: a top-level folder holding a recipe (`model:` and `backend:` or
    `resources:` at the top) is a recipe root too. Near misses: a folder of other YAML, a
    hidden folder."""
    recipe = "model: {path: m, container: x}\nresources: {gpu_type: gb200}\n"
    recipe += "slurm: {time_limit: '00:05:00'}\nhealth_check: {max_attempts: 180}\n"
    root = write_repo(
        tmp_path / "srt",
        {
            "srtslurm.yaml.example": "default_account: x\n",
            "recipes/a.yaml": recipe,
            "examples/b.yaml": recipe,
            "docs/conf.yaml": "model: described\nslurm: {time_limit: '00:05:00'}\n",
            ".ci/c.yaml": recipe,
        },
    )
    assert positions(run_lint(root, select="BL204")) == [
        "examples/b.yaml:4:16",
        "recipes/a.yaml:4:16",
    ]
    _, out, _ = invoke("layout", root)
    assert "recipe root examples: srtctl recipes of an srt-slurm tree (examples/b.yaml)" in out
    assert "recipe root docs" not in out and "recipe root .ci" not in out


def test_an_srt_slurm_tree_before_its_recipes_folder_reads_configs(tmp_path: Path) -> None:
    """srt-slurm before it had `recipes/` kept its recipes in `configs/` and `examples/`: with
    `srtslurm.yaml.example` at the top, those folders are its recipe roots (not "0 recipes")."""
    recipe = "model: {path: m, container: x}\nresources: {gpu_type: gb200}\n"
    recipe += "slurm: {time_limit: '00:05:00'}\nhealth_check: {max_attempts: 180}\n"
    root = write_repo(
        tmp_path / "srt",
        {"srtslurm.yaml.example": "default_account: x\n", "configs/agg.yaml": recipe},
    )
    assert positions(run_lint(root, select="BL204")) == ["configs/agg.yaml:4:16"]
    _, out, _ = invoke("layout", root)
    assert "recipe root configs: srtctl recipes of an srt-slurm tree (configs/agg.yaml)" in out


def test_configured_settings_win(tmp_path: Path) -> None:
    root = write_repo(
        tmp_path / "r",
        {
            ".benchlint.toml": '[layout]\nmaster-configs = ["cfg/*.yaml"]\n',
            "cfg/a.yaml": "e:\n  runner: x\n  scenarios: {fixed-seq-len: []}\n",
            "other/b-master.yaml": "e:\n  runner: x\n  scenarios: {fixed-seq-len: []}\n",
        },
    )
    _, out, _ = invoke("layout", root)
    assert "master config cfg/*.yaml (configured)" in out
    assert "other/b-master.yaml" not in out


def test_overlays_through_variables_and_rsync() -> None:
    """An overlay's operand in a variable: the one value the script gives it, or that of the
    branch the copy is in; else one overlay for each value that can reach the copy, with the
    assignment that gives it (a route keeps those that may run on it)."""
    from benchlint.launcher import LauncherModel
    from benchlint.shell.model import parse_file
    from benchlint.source import SourceText

    text = (
        'DIR="$GITHUB_WORKSPACE/benchmarks/multi_node/srt_slurm_recipes"\n'
        'cp -r "$DIR"/* recipes/\n'
        'rsync -a --exclude "*.md" "$GITHUB_WORKSPACE/recipes-local/" srt-slurm/recipes/local/\n'
        'cp -rT "$OTHER/x" recipes/x\n'  # OTHER has no value here: not an overlay
        'DEST="recipes/trtllm/m/agentx"\n'
        'cp -rT "$GITHUB_WORKSPACE/benchmarks/m" \\\n  "$DEST"\n'  # the destination's one value
        "if [[ $X == 1 ]]; then TWO=recipes/a; else TWO=recipes/b; fi\n"
        'cp -rT "$GITHUB_WORKSPACE/benchmarks/n" "$TWO"\n'  # two values: one overlay each
        'if [[ $M == q ]]; then\n  R="recipes/q"\n  cp -rT "$GITHUB_WORKSPACE/b/q" "$R"\n'
        'elif [[ $M == g ]]; then\n  R="recipes/g"\n  if [[ $E == 1 ]]; then\n'
        '    cp -rT "$GITHUB_WORKSPACE/b/g" "$R"\n  fi\nfi\n'  # the value of each branch
        'cp -rT "$GITHUB_WORKSPACE/b/z" "$R"\n'  # after the branches: either value
        'for m in a b; do cp -rT "$GITHUB_WORKSPACE/b/l" "$R"; R=recipes/l; done\n'  # or a later
        '( R=recipes/s )\ncp -rT "$GITHUB_WORKSPACE/b/s" "$R"\n'  # (set in a subshell only)
    )
    model = LauncherModel(parse_file(SourceText("launch.sh", text.encode())))
    found = [(o.source, o.target, tuple(g.span.line for g in o.givers)) for o in model.overlays]
    assert found == [
        ("benchmarks/multi_node/srt_slurm_recipes", "recipes", ()),
        ("recipes-local", "recipes/local", ()),
        ("benchmarks/m", "recipes/trtllm/m/agentx", ()),
        ("benchmarks/n", "recipes/a", (8,)),
        ("benchmarks/n", "recipes/b", (8,)),
        ("b/q", "recipes/q", ()),
        ("b/g", "recipes/g", ()),
        ("b/z", "recipes/q", (11,)),
        ("b/z", "recipes/g", (14,)),
        ("b/l", "recipes/q", (11,)),
        ("b/l", "recipes/g", (14,)),
        ("b/l", "recipes/l", (20,)),
        ("b/s", "recipes/q", (11,)),
        ("b/s", "recipes/g", (14,)),
        ("b/s", "recipes/l", (20,)),
    ]


def test_find_exec_sed_is_a_rewrite_of_the_recipes_it_finds() -> None:
    from benchlint.launcher import Found, LauncherModel
    from benchlint.shell.model import parse_file
    from benchlint.source import SourceText

    text = (
        'DIR="recipes/trtllm/m"\n'
        "find \"$DIR\" -name '*.yaml' -exec sed -i '/X/d' {} +\n"
        'find "$GITHUB_WORKSPACE/benchmarks/m" -type f -maxdepth 2 -exec sed -i -e s/a/b/ {} \\;\n'
        "find recipes -name '*.yaml' -exec sed -i s/a/b/ {} + -print\n"  # more after the action
        "find recipes -name '*.yaml' -exec sed s/a/b/ {} +\n"  # prints: edits nothing
        "find recipes -name '*.yaml' -exec grep -l a {} +\n"
    )
    model = LauncherModel(parse_file(SourceText("launch.sh", text.encode())))
    assert [(r.line, r.found, r.error, len(r.sed)) for r in model.rewrites] == [
        (2, Found("recipes/trtllm/m", ("*.yaml",)), "", 1),
        (3, Found("benchmarks/m", (), repository=True), "", 1),
        (4, Found("recipes", ("*.yaml",)), "this find is not simulated", 1),
    ]


def test_launchers_or_recipes_with_nothing_routed_warn(tmp_path: Path) -> None:
    root = write_repo(
        tmp_path / "r",
        {
            "runners/launch_x.sh": 'srtctl apply -f "$CONFIG_FILE"\n',
            "benchmarks/multi_node/srt-slurm-recipes/a.yaml": "name: a\n",
        },
    )
    code, out, err = invoke(root)
    assert code == 0
    assert err == (
        "benchlint: warning: 1 launcher and 1 recipe but no master-config entry or workflow call "
        "to route: no route was checked (`benchlint layout` shows what was detected)\n"
        # (the recipe, checked on its own, sets no time limit: said too)
        "benchlint: warning: recipes with no slurm.time_limit not checked against a wall time "
        "(BL204: srtctl gives them the site's default_time_limit from srtslurm.yaml, not known "
        "here, else a default of its own): 1 (benchmarks/multi_node/srt-slurm-recipes/a.yaml:1)\n"
    )
    assert "0 master configs (0 entries), 1 launcher, 1 recipe (0 routed)" in out


def test_entries_whose_launcher_runs_nothing_benchlint_follows_warn(tmp_path: Path) -> None:
    """An entry whose launcher runs a script by a path benchlint cannot evaluate (a folder
    held in a variable it gives no value) is said, with its launcher; one whose launcher names
    its script is not."""
    master = "".join(
        f"{name}:\n  image: x\n  model-prefix: {prefix}\n  precision: fp8\n  framework: vllm\n"
        f"  runner: {runner}\n  scenarios:\n    fixed-seq-len:\n"
        "    - {isl: 1, osl: 1, search-space: [{tp: 8}]}\n"
        for name, prefix, runner in (
            ("a-h200", "a", "h200"),
            ("b-h200", "b", "h200"),
            ("c-b200", "c", "b200"),
        )
    )
    root = write_repo(
        tmp_path / "r",
        {
            "configs/runners.yaml": "h200: [h200-x_0]\nb200: [b200-y_0]\n",
            "configs/nvidia-master.yaml": master,
            "runners/launch_h200-x.sh": 'bash "benchmarks/${SUBDIR}/${MODEL_PREFIX}.sh"\n',
            "runners/launch_b200-y.sh": 'bash "benchmarks/single_node/${MODEL_PREFIX}.sh"\n',
            "benchmarks/single_node/c.sh": "echo c\n",
        },
    )
    code, _, err = invoke(root)
    assert code == 0
    assert err == (
        "benchlint: warning: 2 entries (a-h200, b-h200) reach a launcher "
        "(runners/launch_h200-x.sh) that runs no "
        "script or recipe benchlint can follow for them: what their jobs run was not checked "
        "against them (`benchlint explain ENTRY` shows the launcher's calls)\n"
    )


def test_an_entry_its_launcher_surely_ends_for_is_not_said_to_be_unfollowed(
    tmp_path: Path,
) -> None:
    """(t62a) An entry whose every job the launcher ends with `exit 1` (no CONFIG_FILE: BL202
    reports it) runs nothing more: it is not listed among those whose launcher runs nothing
    benchlint can follow; one that passes the exit and reaches a path not known still is."""
    master = "".join(
        f"{name}:\n  image: x\n  model-prefix: {name[0]}\n  precision: fp8\n  framework: vllm\n"
        "  runner: h200\n  scenarios:\n    fixed-seq-len:\n"
        f"    - {{isl: 1, osl: 1, search-space: [{{tp: 8{extra}}}]}}\n"
        for name, extra in (
            ("a-h200", ""),
            ("b-h200", ", prefill: {additional-settings: [CONFIG_FILE=r.yaml]}"),
        )
    )
    root = write_repo(
        tmp_path / "r",
        {
            "configs/runners.yaml": "h200: [h200-x_0]\n",
            "configs/nvidia-master.yaml": master,
            "runners/launch_h200-x.sh": (
                'if [[ -z "$CONFIG_FILE" ]]; then\n  echo "no recipe" >&2\n  exit 1\nfi\n'
                'bash "benchmarks/${SUBDIR}/${MODEL_PREFIX}.sh"\n'
            ),
        },
    )
    _, out, err = invoke(root, "--select", "BL202", "--format", "concise")
    assert (
        "runners/launch_h200-x.sh:3:3: error: `exit 1` surely runs for every job of a-h200" in out
    )
    assert (
        "benchlint: warning: 1 entry (b-h200) reaches a launcher (runners/launch_h200-x.sh) that "
        "runs no script or recipe benchlint can follow for them"
    ) in err


def test_a_repository_benchlint_cannot_wire_says_so_in_layout_and_summary(tmp_path: Path) -> None:
    """A Kubernetes-shaped repository: `layout` says (text and JSON) that it found no master
    config, and the summary counts the Helm template it did not lint."""
    root = write_repo(
        tmp_path / "r",
        {
            "chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
            "chart/templates/deploy.yaml": "kind: Deployment\nname: {{ .Values.name }}\n",
            "k8s/serve.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n",
            "scripts/bench.sh": "echo run\n",
        },
    )
    note = "no master config: no YAML file here holds entries with a runner and a search space"
    roots = (
        "no recipe root: no launcher copies a folder of recipes, no usual recipe folder exists, "
        "and this is no srt-slurm tree"
    )
    code, out, _ = invoke("layout", root)
    assert (code, out) == (0, f"{note}\n{roots}\n")
    code, out, _ = invoke("layout", root, "--format", "json")
    assert (code, json.loads(out)["facts"], json.loads(out)["notes"]) == (0, [], [note, roots])
    code, out, _ = invoke(root, "--color", "never")
    assert (code, out) == (
        0,
        "No findings in 4 files read: 0 master configs (0 entries), 0 launchers, 0 recipes, "
        "1 other script, 2 other YAML files; 1 template not linted.\n",
    )


def test_outside_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A named file is linted on its own; a large folder stops early; an empty one is clean."""
    loose = tmp_path / "loose"
    loose.mkdir()
    for i in range(5001):
        (loose / f"f{i}.txt").write_text("")
    (loose / "run.sh").write_text("set +e\nflock -w 5 9\n")
    monkeypatch.chdir(loose)
    code, out, _ = invoke("--format", "concise", loose / "run.sh")
    assert (code, out.split(": ")[0]) == (1, "run.sh:2:1")
    code, _, err = invoke(loose)
    assert code == 2
    assert (
        "is not inside a repository (no .git, no configuration file) and holds more than 5000"
        in err
    )
    assert invoke(loose, "--root", loose)[0] == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, _ = invoke(empty)
    assert code == 0
    assert out.startswith("No findings in 0 files read")


def test_master_configs_of_another_project_in_the_repository_are_not_wired(tmp_path: Path) -> None:
    """A copy of another project kept in the repository (`upstream/X/configs/` with its own
    runners file and launchers) is not wired with this project's runners file: no finding
    from a label only its own runners file defines, and a warning that it was not checked."""
    entry = (
        "{name}:\n  image: img\n  model-prefix: m\n  precision: fp8\n  framework: vllm\n"
        "  runner: {label}\n  scenarios:\n    fixed-seq-len:\n"
        "    - {{isl: 1, osl: 1, search-space: [{{tp: 8}}]}}\n"
    )
    launcher = 'srun --container-image="$IMAGE" bash benchmarks/serve.sh\n'
    root = write_repo(
        tmp_path / "r",
        {
            "configs/runners.yaml": "labels:\n  h200: [h200-cw_0]\n",
            "configs/nvidia-master.yaml": entry.format(name="a", label="h200")
            + entry.format(name="b", label="b300"),
            "runners/launch_h200-cw.sh": launcher,
            "benchmarks/serve.sh": "vllm serve m\n",
            "upstream/X/configs/runners.yaml": "labels:\n  mi355x: [mi355x-amds_0]\n",
            "upstream/X/configs/amd-master.yaml": entry.format(name="c", label="mi355x"),
            "upstream/X/runners/launch_mi355x-amds.sh": launcher,
            "upstream/X/benchmarks/serve.sh": "vllm serve m\n",
        },
    )
    code, out, err = invoke(root, "--format", "concise")
    assert code == 1
    assert [line.split(": ")[0] for line in out.splitlines() if "[BL205]" in line] == [
        f"{root}/configs/nvidia-master.yaml:15:11"
    ]
    assert err == (
        "benchlint: warning: 1 master config in upstream/X/configs beside a runners file of "
        "another project kept in this repository: not wired or checked (lint that project as a "
        "repository of its own: a `.benchlint.toml` in its folder makes it one)\n"
    )
    layout = invoke("layout", root)[1]
    assert "skipped upstream/X/configs/amd-master.yaml: beside its own runners file" in layout
    # the machine-readable reports say it too
    warning = err.removeprefix("benchlint: warning: ").strip()
    assert [w["message"] for w in json.loads(invoke(root, "--format", "json")[1])["warnings"]] == [
        warning
    ]
    sarif = json.loads(invoke(root, "--format", "sarif")[1])
    notices = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert {
        "level": "warning",
        "message": {"text": warning + "."},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {
                        "uri": "upstream/X/configs/amd-master.yaml",
                        "uriBaseId": "%SRCROOT%",
                    }
                }
            }
        ],
    } in notices
    assert f"::warning title=benchlint::{warning}\n" in invoke(root, "--format", "github")[1]
    # linted as a repository of its own, the copy is wired with its runners file and launchers
    (root / "upstream" / "X" / ".benchlint.toml").write_text("")
    code, out, err = invoke(root / "upstream" / "X")
    assert (code, err) == (0, "")
    assert "1 master config (1 entry), 1 launcher" in out


def test_slurm_batch_scripts_with_a_shell_line_are_shell(tmp_path: Path) -> None:
    """`job.slurm` / `job.sbatch` / `cluster.sub` (NeMo's) whose `#!` line names a shell are
    read and linted as shell (sbatch runs them so); one with another interpreter, or none (a
    subtitle file), is not read."""
    # (a detached container: the docker daemon keeps it when a batch job ends, where a
    # background process of the batch script ends with the job)
    leak = (
        "set -e\ndocker run -d --name s img\ncurl -sf http://localhost:8000/health\ndocker stop s\n"
    )
    root = write_repo(
        tmp_path / "r",
        {
            "benchmarks/job.slurm": "#!/bin/bash\n#SBATCH -N 2\n" + leak,
            "benchmarks/job.sbatch": "#!/usr/bin/env bash\n" + leak,
            "benchmarks/py.sbatch": "#!/usr/bin/env python3\nprint('x')\n",
            "benchmarks/notes.slurm": leak,
            "ray/cluster.sub": "#!/bin/bash\n#SBATCH -N 2\n" + leak,
            "subtitles/talk.sub": "{1}{25}Hello\n",
        },
    )
    result = run_lint(root, "BL103")
    assert positions(result) == [
        "benchmarks/job.sbatch:3:1",
        "benchmarks/job.slurm:4:1",
        "ray/cluster.sub:4:1",
    ]
    assert result.workspace is not None
    assert sorted(result.workspace.shell_paths) == [
        "benchmarks/job.sbatch",
        "benchmarks/job.slurm",
        "ray/cluster.sub",
    ]


def test_layout_no_cache_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`layout` keeps what detection learns in the repository's cache, unless told not to."""
    monkeypatch.delenv("BENCHLINT_CACHE_DIR")
    master = "a-b200:\n  runner: b200\n  search-space:\n  - {tp: 8}\n"
    root = write_repo(tmp_path / "r", {"configs/master.yaml": master})
    outcome = CliRunner().invoke(main, ["layout", "--no-cache", str(root)])
    assert outcome.exit_code == 0
    assert not (root / ".benchlint_cache").exists()
    CliRunner().invoke(main, ["layout", str(root)])
    assert (root / ".benchlint_cache").is_dir()


def test_entries_with_no_launcher_warn(tmp_path: Path) -> None:
    """Master-config entries and nothing they can reach (no runners file, no launcher): every
    output says no route was checked."""
    master = (
        "a-b200:\n  image: img\n  model: m\n  runner: b200\n  precision: fp8\n"
        "  framework: sglang\n  seq-len-configs:\n  - isl: 1024\n    osl: 1024\n"
        "    search-space:\n    - {tp: 8}\n"
    )
    root = write_repo(tmp_path / "r", {"configs/nightly.yaml": master, "run.sh": "echo a\n"})
    assert invoke("layout", root)[1].splitlines()[2:4] == [
        "no launchers detected: no workflow runs a script by a path built from the runner's "
        "name (`launch_${RUNNER_NAME%%_*}.sh`), nor one named after a runner label of the "
        "entries (`launch_<label>.sh`); the default, `runners/launch_${RUNNER_NAME%%_*}.sh`, "
        "is taken",
        "no recipe root: no launcher copies a folder of recipes, no usual recipe folder exists, "
        "and this is no srt-slurm tree",
    ]
    code, out, err = invoke(root)
    assert code == 0
    assert err == (
        "benchlint: warning: 1 master-config entry but no launcher: no route was checked (no "
        "runners file or launcher was found; `benchlint layout` shows what was detected)\n"
    )
    assert "1 master config (1 entry), 0 launchers, 0 recipes" in out


def _warns_alone(root: Path, warning: str) -> None:
    """A run finds nothing and says this warning alone, in the text and in JSON."""
    assert invoke(root, "--format", "concise") == (0, "", f"benchlint: warning: {warning}\n")
    assert [w["message"] for w in json.loads(invoke(root, "--format", "json")[1])["warnings"]] == [
        warning
    ]


def test_launchers_no_entry_reaches_are_said(tmp_path: Path) -> None:
    """A launcher no entry's route reaches (a retired runner's) is linted as a script alone, and
    every report says so; one reached through a symlink, or handed the job by a reached one
    (`exec bash runners/launch_x.sh`), is not said."""
    entry = (
        "{name}:\n  image: img\n  model-prefix: m\n  precision: fp8\n  framework: vllm\n"
        "  runner: {label}\n  scenarios:\n    fixed-seq-len:\n"
        "    - {{isl: 1, osl: 1, search-space: [{{tp: 8}}]}}\n"
    )
    files = {
        "configs/runners.yaml": "labels:\n  h200: [h200-cw_0]\n  b200: [b200-nb_0]\n",
        "configs/nvidia-master.yaml": entry.format(name="a", label="h200")
        + entry.format(name="b", label="b200"),
        "runners/launch_h200-cw.sh": 'srun --container-image="$IMAGE" bash benchmarks/serve.sh\n',
        "runners/launch_b200-nb.sh": "exec bash runners/launch_b200-common.sh\n",
        "runners/launch_b200-common.sh": "bash benchmarks/serve.sh\n",
        "runners/launch_mi325x-tw.sh": "bash benchmarks/serve.sh\n",
        "runners/launch_h100-cr.sh": "bash benchmarks/serve.sh\n",
        "benchmarks/serve.sh": "vllm serve m\n",
    }
    root = write_repo(tmp_path / "r", files)
    (root / "runners/launch_h200-dgx.sh").symlink_to("launch_h200-cw.sh")
    _warns_alone(
        root,
        "2 launchers (runners/launch_h100-cr.sh, runners/launch_mi325x-tw.sh) that no entry "
        "reaches: linted as scripts alone, not with the values of an entry (benchlint routes no "
        "master-config entry or workflow call to them: `benchlint layout` shows what was "
        "detected)",
    )
    # every launcher reached: nothing said
    (root / "runners/launch_mi325x-tw.sh").unlink()
    (root / "runners/launch_h100-cr.sh").unlink()
    assert invoke(root, "--format", "concise")[2] == ""


def test_master_configs_in_a_deprecated_folder_are_said_not_linted(tmp_path: Path) -> None:
    """Master configs set aside in a `deprecated/` folder are not linted, and every report says
    so; listed in the configuration's layout, they are linted (a label their runners file lacks
    is then reported)."""
    entry = (
        "{name}:\n  image: img\n  model-prefix: m\n  precision: fp8\n  framework: vllm\n"
        "  runner: {label}\n  scenarios:\n    fixed-seq-len:\n"
        "    - {{isl: 1, osl: 1, search-space: [{{tp: 8}}]}}\n"
    )
    files = {
        "configs/runners.yaml": "labels:\n  h200: [h200-cw_0]\n",
        "configs/nvidia-master.yaml": entry.format(name="a", label="h200"),
        "configs/deprecated/old-master.yaml": entry.format(name="b", label="b300"),
        "runners/launch_h200-cw.sh": 'srun --container-image="$IMAGE" bash benchmarks/serve.sh\n',
        "benchmarks/serve.sh": "vllm serve m\n",
    }
    root = write_repo(tmp_path / "r", files)
    warning = (
        "1 master config in a deprecated folder (configs/deprecated) not linted: the routes, "
        "recipes and images of their entries were not checked (list them in `master-configs` "
        "under the configuration's `[layout]` to lint them)"
    )
    _warns_alone(root, warning)
    # naming it says so too (pre-commit on a deprecated master config); naming another not
    named = invoke(root / "configs/deprecated/old-master.yaml", "--format", "json")[1]
    assert json.loads(named)["warnings"] == [
        {
            "message": warning,
            "rule": None,
            "places": [{"path": str(root / "configs/deprecated/old-master.yaml")}],
            "entries": [],
        }
    ]
    other = invoke(root / "benchmarks/serve.sh", "--format", "json")[1]
    assert json.loads(other)["warnings"] == []
    configured = write_repo(
        tmp_path / "c",
        {
            **files,
            ".benchlint.toml": '[layout]\nmaster-configs = ["configs/**/*-master.yaml"]\n',
        },
    )
    _, out, err = invoke(configured, "--format", "concise")
    assert [line.split(": ")[0] for line in out.splitlines() if "[BL205]" in line] == [
        f"{configured}/configs/deprecated/old-master.yaml:6:11"
    ]
    assert err == ""


def test_a_path_a_shell_of_its_own_expands_from_a_name_the_launcher_does_not_export(
    tmp_path: Path,
) -> None:
    """(t64a) `srun bash -c "bash benchmarks/\\${CODE}_x.sh"`: the new shell expands CODE, from
    its environment; a launcher that assigns CODE without exporting it does not give it that
    value, so which script runs is not known (said, not matched with the launcher's value). An
    exported CODE, or one the launcher expands in the string, is the launcher's: a script it
    names that is missing is reported."""
    master = "".join(
        f"{name}:\n  image: x\n  model-prefix: m\n  precision: fp8\n  framework: vllm\n"
        f"  runner: {runner}\n  scenarios:\n    fixed-seq-len:\n"
        "    - {isl: 1, osl: 1, search-space: [{tp: 8}]}\n"
        for name, runner in (("hidden", "h200"), ("exported", "b200"), ("outer", "b300"))
    ) + (
        "inherited:\n  image: x\n  model-prefix: m\n  precision: fp8\n  framework: vllm\n"
        "  runner: b100\n  scenarios:\n    fixed-seq-len:\n"
        "    - {isl: 1, osl: 1, search-space: [{tp: 8, prefill: "
        "{additional-settings: [CODE=8b]}}]}\n"
    )
    root = write_repo(
        tmp_path / "r",
        {
            "configs/runners.yaml": (
                "h200: [h200-x_0]\nb200: [b200-x_0]\nb300: [b300-x_0]\nb100: [b100-x_0]\n"
            ),
            # (CODE reaches the launcher in its environment: bash exports what it inherits, and
            # the new shell sees the launcher's value)
            "runners/launch_b100-x.sh": (
                'CODE="70b"\nsrun bash -c "\nbash benchmarks/\\${CODE}_w.sh\n"\n'
            ),
            "configs/nvidia-master.yaml": master,
            "runners/launch_h200-x.sh": (
                'CODE="70b"\nsrun --export=ALL bash -c "\nbash benchmarks/\\${CODE}_x.sh\n"\n'
            ),
            "runners/launch_b200-x.sh": (
                'export CODE="70b"\nsrun bash -c "\nbash benchmarks/\\${CODE}_y.sh\n"\n'
            ),
            "runners/launch_b300-x.sh": (
                'CODE="70b"\nsrun bash -c "\nbash benchmarks/${CODE}_z.sh\n"\n'
            ),
            "benchmarks/70b_x.sh": "echo x\n",
        },
    )
    _, out, err = invoke(root, "--select", "BL202", "--format", "concise")
    assert out.replace(f"{root}/", "").splitlines()[:3] == [
        "runners/launch_b100-x.sh:3:6: error: `benchmarks/${CODE}_w.sh` names no script in "
        "benchmarks/ for inherited: their benchmark never runs (No such file or directory); "
        "the path it makes: benchmarks/70b_w.sh [BL202]",
        "runners/launch_b200-x.sh:3:6: error: `benchmarks/${CODE}_y.sh` names no script in "
        "benchmarks/ for exported: their benchmark never runs (No such file or directory); "
        "the path it makes: benchmarks/70b_y.sh [BL202]",
        "runners/launch_b300-x.sh:3:6: error: `benchmarks/${CODE}_z.sh` names no script in "
        "benchmarks/ for outer: their benchmark never runs (No such file or directory); "
        "the path it makes: benchmarks/70b_z.sh [BL202]",
    ]
    assert (
        "benchlint: warning: 1 entry (hidden) reaches a launcher (runners/launch_h200-x.sh) that "
        "runs no script or recipe benchlint can follow for them"
    ) in err
    _, _, said = invoke("explain", root / "benchmarks/70b_x.sh")
    assert "in a shell of its own that reads a name the launcher assigns and does not" in said


def test_files_of_a_recipes_shape_outside_the_recipe_folders_are_said(tmp_path: Path) -> None:
    """(t81a, dgxc-benchmarking) A YAML file shaped like an srtctl recipe (`model:`,
    `resources:`, a `backend:` with an engine's config) outside the recipe folders is not read
    as a recipe (no time budget, no route), and every report says so; in a recipe folder it is a
    recipe (BL204 reports its window); a file of that shape without `resources:`, a workflow,
    and a launcher's own schema whose `model:` has no `path` (h20: `env:` and `server_args:`,
    an SGLang fork's `scripts/ci/slurm/recipes`) are not said."""
    recipe = (
        "model:\n  path: qwen3\n  container: lmsysorg/sglang:v0.5.9\n"
        "resources:\n  gpu_type: h100\n  gpus_per_node: 8\n"
        'slurm:\n  time_limit: "01:00:00"\n'
        "backend:\n  type: sglang\n  sglang_config:\n    aggregated:\n      tp-size: 8\n"
        "health_check:\n  max_attempts: 720\n  interval_seconds: 10\n"
    )
    files = {
        "llm/qwen3/agg/config_template.yaml": recipe,
        "llm/qwen3/agg/values.yaml": recipe.replace("resources:", "hardware:"),
        ".github/workflows/x.yaml": recipe,
        "ci/recipes/own.yaml": recipe.replace(
            "model:\n  path: qwen3\n  container: lmsysorg/sglang:v0.5.9\n",
            "model:\n  env:\n    PATH_HINT: 1\n  server_args:\n    - --tp\n    - 8\n",
        ),
    }
    root = write_repo(tmp_path / "r", files)
    _warns_alone(
        root,
        "1 YAML file (llm/qwen3/agg/config_template.yaml) of srtctl's recipe shape (`model:` "
        "with a `path`, `resources:`, a `backend:` with an engine's config, or schema 2's "
        "`engine:` and `roles:`) in llm/qwen3/agg, "
        "outside the recipe folders, not checked as a recipe: its time budget (BL204) and routes "
        "(`benchlint explain`) were not checked, its engine flags were (list its folder in "
        "`recipe-roots` under the configuration's `[layout]` to check it as a recipe)",
    )
    moved = write_repo(tmp_path / "m", {"recipes/qwen3.yaml": recipe})
    assert positions(run_lint(moved), "BL204") == ["recipes/qwen3.yaml:15:3"]
    assert "recipe shape" not in invoke(moved, "--format", "concise")[2]


def test_launchers_a_workflow_runs_by_a_runner_label_are_detected(tmp_path: Path) -> None:
    """No workflow template builds a launch path from the runner's name, but a workflow runs
    `launch_<label>.sh` for a label the master config's entries name (sgl-project/sglang's
    `scripts/ci/slurm/`): that folder's `launch_*.sh` are the launchers, a runner's label picks
    its own, and the entries are routed through them. A path that is printed, or named after no
    label, is not taken."""
    entry = (
        "{name}:\n  image: img\n  model: m\n  runner: {label}\n  precision: fp8\n"
        "  framework: dynamo-sglang\n  seq-len-configs:\n  - isl: 1024\n    osl: 1024\n"
        "    search-space:\n    - conc-list: [1]\n      prefill:\n        additional-settings:\n"
        '        - "CONFIG_FILE=ci/slurm/recipes/{recipe}.yaml"\n'
    )
    workflow = (
        "on: workflow_dispatch\njobs:\n  bench:\n    runs-on: [self-hosted, gb200]\n"
        "    steps:\n    - uses: actions/checkout@v4\n"
        "    - run: echo scripts/ci/slurm/launch_h100.sh\n"
        "    - run: bash launch_h100.sh\n      working-directory: ci/slurm\n"
        "    - run: |\n        echo start\n        bash launch_gb200.sh\n"
        "      working-directory: ./ci/slurm\n"
    )
    rewrite = "sed -i 's/^  max_attempts: [0-9]*/  max_attempts: 720/' \"$CONFIG_FILE\"\n"
    recipe = (
        "name: r\nhealth_check:\n  max_attempts: 1440\n  interval_seconds: 10\n"
        "slurm:\n  time_limit: '06:00:00'\n"
    )
    files = {
        "ci/slurm/nightly.yaml": entry.format(name="a", label="gb200", recipe="long")
        + entry.format(name="b", label="mi355x", recipe="short"),
        ".github/workflows/nightly.yml": workflow,
        "ci/slurm/launch_gb200.sh": f'set -e\n{rewrite}srtctl apply -f "$CONFIG_FILE"\n',
        "ci/slurm/launch_mi355x.sh": f'set -e\n{rewrite}srtctl apply -f "$CONFIG_FILE"\n',
        "ci/slurm/launch_h100.sh": f'set -e\n{rewrite}srtctl apply -f "$CONFIG_FILE"\n',
        "ci/slurm/recipes/long.yaml": recipe,
        "ci/slurm/recipes/short.yaml": recipe.replace("1440", "360"),
    }
    root = write_repo(tmp_path / "r", files)
    code, out, _ = invoke("layout", "--root", root)
    assert code == 0
    assert (
        "launchers ci/slurm/launch_*.sh: run as ci/slurm/launch_gb200.sh, named after the "
        "runner label gb200 from .github/workflows/nightly.yml:12\n"
    ) in out
    assert positions(run_lint(root), "BL201") == ["ci/slurm/recipes/long.yaml:3:3"]
    # the launch path printed, checked or made executable (h26), or named after no label of
    # an entry: no launcher
    for line in ("ls launch_gb200.sh", "chmod +x launch_gb200.sh && shellcheck launch_gb200.sh"):
        (root / ".github/workflows/nightly.yml").write_text(
            workflow.replace("bash launch_gb200.sh", line)
        )
        assert "\nlaunchers " not in invoke("layout", "--root", root)[1]
        assert positions(run_lint(root), "BL201") == []
