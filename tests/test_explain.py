"""`benchlint explain`: the route to a recipe, the rewrites it suffers, the effective values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchlint.cli import main
from tests.conftest import TESTDATA, copy_example, write_repo

EXAMPLE = TESTDATA / "example"
RECIPE = "benchmarks/multi_node/srt-slurm-recipes/vllm/dsr1/disagg-8k1k.yaml"


def _explain(*args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(main, ["explain", *args])
    return outcome.exit_code, outcome.output


def test_explain_recipe_shows_the_clamp() -> None:
    code, output = _explain(str(EXAMPLE / RECIPE))
    assert code == 0
    assert "runner label gb200 -> gb200-nv_0 -> runners/launch_gb200-nv.sh" in output
    assert (
        "overlay (line 22): benchmarks/multi_node/srt-slurm-recipes/vllm -> recipes/vllm" in output
    )
    assert "    health_check.max_attempts: 1440 -> 720 (line 34)" in output
    assert "  effective health_check: 720 × 10 s = 2 h" in output
    assert "    health_check.max_attempts: 1440 -> 360 (line 15, 16)" in output


def test_explain_entry_as_json() -> None:
    code, output = _explain(
        "glm5-fp4-gb200-dynamo-sglang", "--root", str(EXAMPLE), "--format", "json"
    )
    assert code == 0
    routes = json.loads(output)
    assert [r["recipe_status"] for r in routes] == ["local", "local", "local", "upstream"]
    assert routes[0]["recipe"] == (
        "benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/agg-1k1k.yaml"
    )
    assert routes[0]["overlay"]["target"] == "recipes/sglang/glm-5"
    raised = [c for c in routes[0]["changes"] if c["key"] == "health_check.max_attempts"]
    assert raised == [
        {"key": "health_check.max_attempts", "old": "360", "new": "720", "rewrite_lines": [34]}
    ]
    assert routes[0]["wall_time"] == "4:00:00 (default_time_limit of runners/launch_gb200-nv.sh)"


def test_explain_unknown_target_exits_2() -> None:
    code, output = _explain("no-such-entry", "--root", str(EXAMPLE))
    assert code == 2
    assert "neither a master-config entry, a recipe any entry routes to, nor a script" in output
    assert "`benchlint rule" not in output
    code, output = _explain("bl104", "--root", str(EXAMPLE))  # a rule, asked of the wrong verb
    assert code == 2 and output.endswith("(`benchlint rule bl104` prints BL104's documentation)\n")


def test_explain_entry_names_the_scripts_its_launcher_runs() -> None:
    code, output = _explain("dsr1-fp8-b200-vllm", "--root", str(EXAMPLE))
    assert code == 0
    assert (
        "  runs (line 31) benchmarks/single_node/${EXP_NAME%%_*}_${PRECISION}_b200.sh"
        " -> benchmarks/single_node/dsr1_fp8_b200.sh\n" in output
    )
    code, output = _explain("dsr1-fp4-h200-sglang", "--root", str(EXAMPLE), "--format", "json")
    assert code == 0
    [route] = json.loads(output)
    assert route["scripts"] == [
        {
            "line": 60,
            "path": "benchmarks/single_node/${MODEL_PREFIX}_${PRECISION}_h200.sh",
            "names": [],  # BL202 reports it
            "condition_undecided": False,
        }
    ]
    code, output = _explain("glm5-fp8-h200-sglang", "--root", str(EXAMPLE), "--format", "json")
    assert [r["scripts"][0]["names"] for r in json.loads(output)] == [
        ["benchmarks/single_node/glm5_fp8_h200.sh"]
    ]


def test_explain_a_script_shows_the_routes_whose_launcher_runs_it() -> None:
    """The routes whose launcher runs the script, and those to a recipe whose
    `benchmark.command` runs it (each route of both launchers that overlay the recipe)."""
    script = EXAMPLE / "benchmarks/single_node/dsr1_fp8_b200.sh"
    code, output = _explain(str(script), "--format", "json")
    assert code == 0
    routes = json.loads(output)
    assert [(r["entry"], r["launcher"], r["benchmark_command_runs"]) for r in routes] == [
        ("dsr1-fp8-b200-vllm", "runners/launch_b200-dgxc.sh", None),
        (
            "dsr1-fp8-gb200-dynamo-vllm",
            "runners/launch_gb200-nv.sh",
            script.relative_to(EXAMPLE).as_posix(),
        ),
        (
            "dsr1-fp8-gb200-dynamo-vllm",
            "runners/launch_gb200-cw.sh",
            script.relative_to(EXAMPLE).as_posix(),
        ),
    ]
    assert routes[0]["scripts"] == [
        {
            "line": 31,
            "path": "benchmarks/single_node/${EXP_NAME%%_*}_${PRECISION}_b200.sh",
            "names": ["benchmarks/single_node/dsr1_fp8_b200.sh"],
            "condition_undecided": False,
        }
    ]


def test_explain_a_script_other_scripts_run_shows_the_routes_through_them(
    tmp_path: Path,
) -> None:
    root = copy_example(tmp_path / "example")
    library = root / "benchmarks/benchmark_lib.sh"
    lines = library.read_text().count("\n")
    library.write_text(library.read_text() + 'source "$(dirname "$0")/helpers/env.sh"\n')
    files = {
        "benchmarks/helpers/env.sh": "export PORT=8888\n",
        "tools/orphan.sh": 'source "$(dirname "$0")/orphan_lib.sh"\n',
        "tools/orphan_lib.sh": "echo lib\n",
        "tools/alone.sh": "echo alone\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)

    code, output = _explain("benchmarks/helpers/env.sh", "--root", str(root), "--format", "json")
    assert code == 0
    routes = json.loads(output)
    direct = json.loads(
        _explain(
            "benchmarks/single_node/dsr1_fp8_b200.sh", "--root", str(root), "--format", "json"
        )[1]
    )
    b200 = [r for r in routes if r["entry"] == "dsr1-fp8-b200-vllm"]
    # every route to the benchmark that sources the library, with the chain of calls
    by_launcher = [r for r in direct if r["benchmark_command_runs"] is None]
    assert [r["element"] for r in b200] == [r["element"] for r in by_launcher]
    assert b200[0]["via"] == [
        {"path": "benchmarks/single_node/dsr1_fp8_b200.sh", "line": 2, "kind": "source"},
        {"path": "benchmarks/benchmark_lib.sh", "line": lines + 1, "kind": "source"},
    ]
    assert b200[0]["scripts"] == direct[0]["scripts"]
    assert all(r["via"] == [] for r in direct)
    code, text = _explain("benchmarks/helpers/env.sh", "--root", str(root))
    assert code == 0
    assert (
        "  reached through other scripts: sourced by benchmarks/benchmark_lib.sh:"
        f"{lines + 1}, sourced by benchmarks/single_node/dsr1_fp8_b200.sh:2\n"
    ) in text

    # scripts run it, but nothing a launcher runs reaches them: said, exit 2
    code, output = _explain("tools/orphan_lib.sh", "--root", str(root))
    assert code == 2
    assert "nor a script a launcher runs: sourced by tools/orphan.sh:1," in output
    code, output = _explain("tools/alone.sh", "--root", str(root))
    assert code == 2
    assert "no script of the repository runs or sources it" in output


def test_explain_a_script_a_launcher_runs_with_values_no_entry_gives(tmp_path: Path) -> None:
    """A launcher runs the script by a path no entry's values make (the `_trt` suffix of a
    framework no entry has): said so, not that no launcher runs it; a launcher no entry
    reaches is said to be one."""
    workflow = (
        "on: workflow_call\njobs:\n  run:\n    runs-on: x\n    steps:\n"
        "      - run: bash ./runners/launch_${RUNNER_NAME%%_*}.sh\n"
    )
    entry = (
        "m-fp4-b200-vllm:\n  image: vllm/vllm-openai:v0.16.0\n  model: org/m\n"
        "  model-prefix: m\n  precision: fp4\n  framework: vllm\n  runner: b200\n"
        "  scenarios:\n    fixed-seq-len:\n    - {isl: 1, osl: 1, search-space: [{tp: 2}]}\n"
    )
    root = write_repo(
        tmp_path / "r",
        {
            ".github/workflows/benchmark-tmpl.yml": workflow,
            "configs/runners.yaml": "b200: [b200-nvd_0]\nh100: [h100-x_0]\n",
            "configs/nvidia-master.yaml": entry,
            "runners/launch_b200-nvd.sh": (
                "SUFFIX=$([[ \"$FRAMEWORK\" == trt ]] && printf _trt || printf '')\n"
                'bash benchmarks/"${MODEL_PREFIX}_${PRECISION}_b200${SUFFIX}.sh"\n'
            ),
            "runners/launch_h100-x.sh": "bash benchmarks/idle_h100.sh\n",
            "benchmarks/m_fp4_b200.sh": "vllm serve m\n",
            "benchmarks/m_fp4_b200_trt.sh": "trtllm-serve m\n",
            "benchmarks/idle_h100.sh": "vllm serve m\n",
        },
    )
    said = {
        "benchmarks/m_fp4_b200_trt.sh": "run by runners/launch_b200-nvd.sh:2, with a path no "
        "entry's values make",
        "benchmarks/idle_h100.sh": "run by runners/launch_h100-x.sh:1, a launcher no entry reaches",
    }
    for path, why in said.items():
        code, output = _explain(path, "--root", str(root))
        assert (code, f"no entry's route reaches {path!r}: {why}" in output) == (2, True), output


def test_explain_a_script_run_in_a_container_through_a_bind_mount(tmp_path: Path) -> None:
    """h57 W1: a launcher runs the script in a container by its path under a bind mount of a
    folder of the checkout: the entry's route runs it; under a mount whose source is not known
    (the launcher changed folders first), that is said beside the values no entry makes."""
    workflow = (
        "on: workflow_call\njobs:\n  run:\n    runs-on: x\n    steps:\n"
        "      - run: bash ./runners/launch_${RUNNER_NAME%%_*}.sh $EXP_NAME\n"
    )
    entry = (
        "m-fp4-{r}-vllm:\n  image: vllm/vllm-openai:v0.16.0\n  model: org/m\n"
        "  model-prefix: m\n  precision: fp4\n  framework: vllm\n  runner: {r}\n"
        "  scenarios:\n    fixed-seq-len:\n    - {{isl: 1, osl: 1, search-space: [{{tp: 2}}]}}\n"
    )
    root = write_repo(
        tmp_path / "r",
        {
            ".github/workflows/benchmark-tmpl.yml": workflow,
            "configs/runners.yaml": "b200: [b200-tg_0]\nh100: [h100-x_0]\n",
            "configs/nvidia-master.yaml": entry.format(r="b200") + entry.format(r="h100"),
            "runners/launch_b200-tg.sh": (
                "docker run --rm -v $(realpath benchmarks/):/tmp/ --entrypoint=/bin/bash "
                '"$IMAGE" /tmp/"${MODEL_PREFIX}_b200_docker.sh"\n'
            ),
            "runners/launch_h100-x.sh": (
                'cd "$HOME"\ndocker run -v "$(pwd)/benchmarks:/w" "$IMAGE" bash /w/m_h100.sh\n'
                'docker run -v "$(pwd)/benchmarks:/w" "$IMAGE" bash /w/${MODEL_PREFIX}_b200.sh\n'
            ),
            "benchmarks/m_b200.sh": "vllm serve m\n",
            "benchmarks/m_b200_docker.sh": "vllm serve m\n",
            "benchmarks/m_h100.sh": "vllm serve m\n",
        },
    )
    code, text = _explain("m-fp4-b200-vllm", "--root", str(root))
    assert code == 0
    assert (
        "  runs (line 1) /tmp/${MODEL_PREFIX}_b200_docker.sh -> benchmarks/m_b200_docker.sh\n"
        in text
    )
    # (a path with an expansion too: not followed under a mount whose source is not known)
    for script, line in (("m_h100.sh", 2), ("m_b200.sh", 3)):
        code, output = _explain(f"benchmarks/{script}", "--root", str(root))
        assert code == 2
        assert (
            f"no launcher runs 'benchmarks/{script}', and no script of the repository runs or "
            "sources it, by a path benchlint can follow (it may be run inside a container under "
            f"a bind mount whose source benchlint cannot tell: runners/launch_h100-x.sh:{line})"
        ) in output


def test_explain_a_recipe_nothing_routes_to_says_what_is_read_of_it(tmp_path: Path) -> None:
    root = write_repo(
        tmp_path / "srt",
        {
            "srtslurm.yaml.example": "default_account: x\n",
            "recipes/gb200/a.yaml": (
                "model: {container: 'lmsysorg/sglang:v0.5.8-cu130'}\n"
                "dynamo: {version: 0.8.0}\n"
                "slurm: {time_limit: '02:00:00'}\n"
                "backend: {type: sglang}\n"
            ),
            "examples/b.yaml": "model: {container: x}\n",
        },
    )
    code, output = _explain(str(root / "recipes/gb200/a.yaml"))
    assert code == 0
    assert output == (
        "recipes/gb200/a.yaml: a recipe read as it is, with no launcher's rewrites (this "
        "repository has no master config)\n"
        "  backend: sglang; frontend: dynamo\n"
        "  model.container: lmsysorg/sglang:v0.5.8-cu130 (sglang 0.5.8)\n"
        "  dynamo: 0.8.0\n"
        "  health_check: srtslurm.yaml's default_health_check (the site's, not known here), "
        "else srtctl's 180 × 10 s = 30 min\n"
        "  wall time: 02:00:00 (slurm.time_limit)\n"
    )
    code, output = _explain(str(root / "recipes/gb200/a.yaml"), "--format", "json")
    assert code == 0
    assert json.loads(output)["engine_release"] == "sglang 0.5.8"
    code, output = _explain(str(root / "examples/b.yaml"))  # no recipe of the recipe tree
    assert code == 2
    assert "neither a master-config entry" in output


def test_explain_in_a_tree_with_no_repository_around_reads_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(t81b) An extracted srt-slurm tree, with no `.git`, no workflows and no configuration:
    run from its folder, `explain recipies/x.yaml` reads that folder, as `benchlint .` does;
    from elsewhere, the file's own folder (which holds no recipe folder: not a recipe)."""
    root = tmp_path / "srt"
    recipe = root / "recipies/h100/blog-post.yaml"
    recipe.parent.mkdir(parents=True)
    (root / "srtslurm.yaml.example").write_text("default_account: x\n")
    recipe.write_text("model: {container: '0.5.5.post2'}\nbackend: {type: sglang}\n")
    monkeypatch.chdir(root)
    code, output = _explain("recipies/h100/blog-post.yaml")
    assert code == 0, output
    assert output.startswith("recipies/h100/blog-post.yaml: a recipe read as it is")
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path / "other")  # (a folder that does not hold it)
    code, output = _explain(str(recipe))
    assert code == 2
    assert "neither a master-config entry" in output


_INTERVAL = "    interval_seconds: int = 10\n"


def test_explain_a_recipe_says_the_window_lint_compares(tmp_path: Path) -> None:
    """(t81b W2, W3) `explain` says of a recipe with no health_check what BL204 compares: the
    site's default_health_check where its srtctl has that setting, none where the tree's srtctl
    has no health check at all, its own defaults where it names no site setting."""
    recipe = "slurm: {time_limit: '00:15:00'}\nbackend: {type: sglang}\n"
    shown = {}
    for name, schema in [
        ("site", "class ClusterConfig:\n    default_health_check: dict | None = None\n"),
        ("none", "class SlurmConfig:\n    time_limit: str | None = None\n"),
        ("own", "class HealthCheckConfig:\n    max_attempts: int = 60\n" + _INTERVAL),
    ]:
        root = write_repo(
            tmp_path / name,
            {
                "srtslurm.yaml.example": "default_account: x\n",
                "src/srtctl/core/schema.py": schema,
                "recipes/a.yaml": recipe,
            },
        )
        code, output = _explain(str(root / "recipes/a.yaml"), "--format", "json")
        assert code == 0, output
        shown[name] = json.loads(output)["health_check"]
    assert shown == {
        "site": "srtslurm.yaml's default_health_check (the site's, not known here), else "
        "srtctl's 180 × 10 s = 30 min",
        "none": "none (this tree's srtctl waits for the server in its benchmark)",
        "own": "60 × 10 s = 10 min",
    }


def test_explain_names_the_launcher_that_handed_the_route_over(tmp_path: Path) -> None:
    root = write_repo(
        tmp_path / "r",
        {
            "configs/runners.yaml": "labels:\n  x: [x_0]\n",
            "configs/nvidia-master.yaml": (
                "e:\n  runner: x\n  scenarios:\n    fixed-seq-len:\n    - search-space:\n"
                '      - prefill: {additional-settings: ["CONFIG_FILE=recipes/a.yaml"]}\n'
            ),
            "runners/launch_x.sh": (
                'if [[ -n "${CONFIG_FILE:-}" ]]; then\n'
                '    exec bash "$(dirname "${BASH_SOURCE[0]}")/launch_x-srt.sh"\nfi\n'
            ),
            "runners/launch_x-srt.sh": 'srtctl apply -f "$CONFIG_FILE"\n',
        },
    )
    code, output = _explain("e", "--root", str(root))
    assert code == 0
    assert (
        "  runner label x -> x_0 -> runners/launch_x.sh, which hands over (line 2) to "
        "runners/launch_x-srt.sh\n"
    ) in output


def test_explain_a_launcher_shows_every_route_through_it() -> None:
    code, output = _explain(str(EXAMPLE / "runners/launch_h200-cw.sh"))
    assert code == 0
    heads = [line.split(" [")[0] for line in output.splitlines() if line and line[0] != " "]
    assert heads == ["glm5-fp8-h200-sglang", "dsr1-fp4-h200-sglang"]
    assert "runs (line 60) benchmarks/single_node/${MODEL_PREFIX}_${PRECISION}_h200.sh" in output


def test_explain_a_launcher_no_entry_reaches_exits_2(tmp_path: Path) -> None:
    root = copy_example(tmp_path / "example")
    (root / "runners/launch_zz-none.sh").write_text("echo nothing\n")
    code, output = _explain("runners/launch_zz-none.sh", "--root", str(root))
    assert code == 2
    assert "no master-config entry reaches the launcher 'runners/launch_zz-none.sh'" in output


def test_a_command_after_flags_is_the_command() -> None:
    """`benchlint --no-config explain ENTRY` runs explain (not a lint of a path `explain`), as does
    `benchlint --format json explain ENTRY` (an option's value is not the command); an option the
    command does not take is said as click says it."""
    entry = ["glm5-fp4-gb200-dynamo-sglang", "--root", str(EXAMPLE), "--format", "json"]
    outcome = CliRunner().invoke(main, ["--no-config", "explain", *entry])
    assert outcome.exit_code == 0
    assert json.loads(outcome.output)[0]["recipe_status"] == "local"
    outcome = CliRunner().invoke(main, ["--no-cache", "explain", *entry])
    assert outcome.exit_code == 0 and json.loads(outcome.output)[0]["recipe_status"] == "local"
    outcome = CliRunner().invoke(main, ["--format", "json", "explain", *entry[:3]])
    assert outcome.exit_code == 0 and json.loads(outcome.output)[0]["recipe_status"] == "local"
    outcome = CliRunner().invoke(main, ["--select", "BL202", "explain", *entry])
    assert outcome.exit_code == 2 and "No such option '--select'" in outcome.output
    outcome = CliRunner().invoke(main, ["--version", "explain"])  # the version, as before
    assert outcome.exit_code == 0 and outcome.output.startswith("benchlint, version")


def test_explain_through_the_cache_says_what_it_says_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """explain reads files through the cache's per-file facts, as a lint does: a second run
    reads them back (no script is parsed again) and says the same; `--no-cache` neither reads
    nor writes it."""
    import os

    import benchlint.shell.model

    folder = Path(os.environ["BENCHLINT_CACHE_DIR"])
    launcher = str(EXAMPLE / "runners/launch_h200-cw.sh")
    before = set(folder.iterdir()) if folder.exists() else set()
    code, fresh = _explain(launcher, "--no-cache")
    assert code == 0 and (set(folder.iterdir()) if folder.exists() else set()) == before
    code, first = _explain(launcher)
    stored = {p.name.split("-", 1)[0] for p in folder.iterdir()} if folder.exists() else set()
    assert code == 0 and {"shell", "yaml"} <= stored

    def no_parse(src: bytes) -> None:
        raise AssertionError("a script parsed again")

    monkeypatch.setattr(benchlint.shell.model, "parse_tree", no_parse)
    code, second = _explain(launcher)
    assert code == 0 and fresh == first == second


def test_explain_of_a_script_made_for_a_value_nothing_runs_names_the_plain_one(
    tmp_path: Path,
) -> None:
    """(h57 W3) `qwen_mtp.sh`, which no launcher runs, beside `qwen.sh`, which the launcher runs
    for an entry that sets `spec-decoding: mtp`: the reason points at BL121."""
    workflow = (
        "on:\n  workflow_call:\n    inputs:\n      spec-decoding: {type: string}\n"
        "env:\n  SPEC_DECODING: ${{ inputs.spec-decoding }}\n"
        "jobs:\n  b:\n    runs-on: x\n    steps:\n"
        "      - run: bash ./runners/launch_${RUNNER_NAME%%_*}.sh\n"
    )
    entry = (
        "qwen-mtp:\n  image: x\n  model: m\n  runner: mi325x\n  scenarios:\n"
        "    fixed-seq-len:\n    - search-space:\n      - {tp: 8, spec-decoding: mtp}\n"
    )
    root = write_repo(
        tmp_path,
        {
            ".github/workflows/benchmark-tmpl.yml": workflow,
            ".github/configs/amd-master.yaml": entry,
            ".github/configs/runners.yaml": "labels:\n  mi325x: [mi325x-amds_0]\n",
            "runners/launch_mi325x-amds.sh": "bash benchmarks/qwen.sh\n",
            "benchmarks/qwen.sh": "vllm serve m\n",
            "benchmarks/qwen_mtp.sh": "vllm serve m --speculative-config '{}'\n",
            "benchmarks/other.sh": "vllm serve m\n",
        },
    )
    outcome = CliRunner().invoke(main, ["explain", "benchmarks/qwen_mtp.sh", "--root", str(root)])
    assert outcome.exit_code == 2
    assert (
        "by a path benchlint can follow (its name is benchmarks/qwen.sh's with `_mtp` added: the "
        "launchers run that one, and an entry's `spec-decoding: mtp` may be meant for this one "
        "(BL121))"
    ) in outcome.stderr
    outcome = CliRunner().invoke(main, ["explain", "benchmarks/other.sh", "--root", str(root)])
    assert "(it may be run by a path held in a variable)" in outcome.stderr
