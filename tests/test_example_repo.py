"""The README's example repository: every planted bug found, no near miss reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchlint.cli import main
from tests.conftest import TESTDATA

EXAMPLE = TESTDATA / "example"
EXPECTED = [
    ("BL001", "benchmarks/multi_node/collect_results.sh", 6, 1),
    # started on every node by runners/launch_h100-dp.sh, which probes the head node only
    ("BL104", "benchmarks/multi_node/dp_attention_serve.sh", 5, 24),
    ("BL302", "benchmarks/multi_node/dp_attention_serve.sh", 5, 59),
    # the shared drain client (a Python heredoc): clean for the Dynamo recipe, wrong for the
    # `vllm serve` one
    ("BL304", "benchmarks/multi_node/drain_client.sh", 14, 29),
    ("BL303", "benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/agg-tools.yaml", 8, 7),
    ("BL001", "benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/broken.yaml", 4, 40),
    # the launcher's job-name rewrite does not reach `base: name:` (the name-scoped scancel
    # misses the job); base.health_check 4 h against slurm.time_limit 4 h
    ("BL206", "benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/zip-1k1k.yaml", 3, 3),
    ("BL204", "benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/zip-1k1k.yaml", 7, 5),
    ("BL204", "benchmarks/multi_node/srt-slurm-recipes/trtllm/kimi/agg.yaml", 6, 5),
    # one label, two launchers: the clamp (2 h) and the delete-and-append (1 h)
    ("BL201", "benchmarks/multi_node/srt-slurm-recipes/vllm/dsr1/disagg-8k1k.yaml", 12, 3),
    ("BL201", "benchmarks/multi_node/srt-slurm-recipes/vllm/dsr1/disagg-8k1k.yaml", 12, 3),
    ("BL203", "benchmarks/multi_node/srt-slurm-recipes/vllm/dsr1/disagg-8k1k.yaml", 23, 7),
    ("BL301", "benchmarks/multi_node/srt-slurm-recipes/vllm/kimi/agg-agentic.yaml", 11, 7),
    ("BL302", "benchmarks/multi_node/vllm_dp_serve.sh", 7, 5),
    # the entry's image is vLLM v0.11.0; --max-seq-len-to-capture left after 0.10.2
    ("BL303", "benchmarks/single_node/dsr1_fp8_b200.sh", 11, 70),
    # the entry declares sglang-router 0.1.4, which has no /readiness; the probe is held in a
    # string run by `bash -c` behind the script's own wrapper function
    ("BL304", "benchmarks/single_node/glm5_fp8_h200.sh", 28, 91),
    # a JSON default that gains a stray `}` once the workflow sets the variable
    ("BL108", "benchmarks/single_node/kimi_fp4_mi355x.sh", 5, 14),
    ("BL104", "benchmarks/single_node/kimi_fp4_mi355x.sh", 8, 13),
    # an entrypoint: `${RESULT_DIR:/workspace/results}`, and a server an early end leaves running
    ("BL105", "benchmarks/single_node/qwen3_fp8_h200_serve.sh", 9, 13),
    ("BL103", "benchmarks/single_node/qwen3_fp8_h200_serve.sh", 11, 1),
    ("BL205", "configs/nvidia-master.yaml", 5, 11),
    ("BL202", "configs/nvidia-master.yaml", 45, 13),
    ("BL203", "configs/nvidia-master.yaml", 51, 3),
    ("BL202", "configs/nvidia-master.yaml", 78, 13),
    ("BL205", "configs/nvidia-master.yaml", 108, 11),
    ("BL101", "runners/launch_b200-dgxc.sh", 7, 8),
    ("BL102", "runners/launch_b200-dgxc.sh", 20, 5),
    ("BL101", "runners/launch_gb200-nv.sh", 9, 1),
    ("BL102", "runners/launch_gb200-nv.sh", 15, 1),
    # the EXIT trap reads `local job` after run_bench has returned
    ("BL107", "runners/launch_h200-cw.sh", 54, 5),
    # entry dsr1-fp4-h200-sglang: the path the launcher builds names no script
    ("BL202", "runners/launch_h200-cw.sh", 60, 10),
    ("BL103", "runners/launch_mi355x-amds.sh", 5, 10),
]


@pytest.fixture(autouse=True)
def _in_the_example(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the example repository's top, as its user would: paths print as in the rules."""
    monkeypatch.chdir(EXAMPLE)


def _lint(*args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(main, [str(EXAMPLE), *args])
    return outcome.exit_code, outcome.stdout


def test_example_findings_exactly() -> None:
    code, output = _lint("--format", "json")
    assert code == 1
    found = [(f["rule"], f["path"], f["line"], f["column"]) for f in json.loads(output)["findings"]]
    assert found == EXPECTED


def test_text_output_shows_location_and_source_line() -> None:
    code, output = _lint()
    assert code == 1
    header = "\nrunners/launch_b200-dgxc.sh\n  7:8 error `export PORT"
    assert header in output
    assert "\n  20:5 error `flock -w 1800 9` can fail after 1800 s" in output
    assert "  20 |     flock -w 1800 9\n     |     ^^^^^^^^^^^^^^^\n     = help: add `||" in output
    assert output.count("runners/launch_b200-dgxc.sh\n") == 1  # one header per file
    assert "Found 32 findings (26 errors, 5 warnings, 1 note)" in output
    assert "\033[" not in output  # no colour when not on a terminal


def test_quick_start_from_the_clone_prints_paths_from_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The README's quick start runs from the clone's top: paths must be typeable from there."""
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    outcome = CliRunner().invoke(main, ["testdata/example", "--format", "concise"])
    first = outcome.output.splitlines()[0]
    assert first.startswith("testdata/example/benchmarks/multi_node/collect_results.sh:6:1: ")
    coloured = CliRunner().invoke(main, ["testdata/example", "--color", "always"]).output
    assert "\033[1;31merror\033[0m" in coloured
    assert CliRunner().invoke(main, ["testdata/example", "--color", "never"]).output == (
        CliRunner().invoke(main, ["testdata/example"]).output
    )


def test_named_path_limits_the_report_not_the_context() -> None:
    outcome = CliRunner().invoke(
        main, [str(EXAMPLE / "runners" / "launch_b200-dgxc.sh"), "--format", "concise"]
    )
    assert outcome.exit_code == 1
    lines = outcome.output.splitlines()
    assert [line.split(": ")[0] for line in lines] == [
        "runners/launch_b200-dgxc.sh:7:8",
        "runners/launch_b200-dgxc.sh:20:5",
    ]
    # the PORT finding needs the master config and workflow templates, which were not named
    assert "started from entry dsr1-fp8-b200-vllm" in lines[0]


def test_messages_name_the_route() -> None:
    _, output = _lint("--format", "concise")
    assert (
        "disagg-8k1k.yaml:12:3: error: health_check 1440 × 10 s = 4 h is cut to 720 × 10 s = 2 h "
        "by runners/launch_gb200-nv.sh:34 for dsr1-fp8-gb200-dynamo-vllm [BL201]"
    ) in output
    assert (
        "is cut to 360 × 10 s = 1 h by runners/launch_gb200-cw.sh:15, runners/launch_gb200-cw.sh:16"
    ) in output
    assert "(run by runners/launch_gb200-nv.sh, runners/launch_gb200-cw.sh)" in output
    assert "default_time_limit" not in output  # gb300's 4 h fits kimi's 3 h window


def test_naming_a_launcher_reports_the_recipes_its_rewrites_defeat() -> None:
    outcome = CliRunner().invoke(
        main, [str(EXAMPLE / "runners" / "launch_gb200-cw.sh"), "--format", "json"]
    )
    found = [(f["rule"], f["path"], f["line"]) for f in json.loads(outcome.stdout)["findings"]]
    assert found == [
        ("BL201", "benchmarks/multi_node/srt-slurm-recipes/vllm/dsr1/disagg-8k1k.yaml", 12),
        ("BL202", "configs/nvidia-master.yaml", 45),
    ]


def test_naming_any_file_gives_exactly_the_full_run_filtered_to_it() -> None:
    """The scope only spares work: every file named alone reports what the full run reports
    with a location in it."""
    _, output = _lint("--format", "json")
    full = json.loads(output)["findings"]

    def key(f: dict) -> tuple:  # type: ignore[type-arg]
        return (f["rule"], f["path"], f["line"], f["column"], f["message"])

    files = [p for p in EXAMPLE.rglob("*") if p.is_file() and p.suffix in (".sh", ".yaml", ".yml")]
    assert len(files) > 20
    for path in files:
        rel = path.resolve().relative_to(EXAMPLE.resolve()).as_posix()  # a symlink: its target
        outcome = CliRunner().invoke(main, [str(path), "--format", "json"])
        got = sorted(key(f) for f in json.loads(outcome.stdout)["findings"])
        expected = sorted(
            key(f) for f in full if f["path"] == rel or any(r["path"] == rel for r in f["related"])
        )
        assert got == expected, rel


def test_the_readme_example_output_is_real() -> None:
    """Each file's block of the README's sample output is what benchlint prints, verbatim."""
    readme = (EXAMPLE.parent.parent / "README.md").read_text()
    sample = readme.split("```\n$ benchlint ", 1)[1].split("```", 1)[0]
    command, shown = sample.split("\n", 1)
    args = command.split("#", 1)[0].split()
    outcome = CliRunner().invoke(main, args)
    for block in shown.strip("\n").split("\n\n"):
        assert block in outcome.output, block
