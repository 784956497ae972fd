"""The README's example repository: every planted bug found, no near miss reported."""

from __future__ import annotations

import json

from click.testing import CliRunner

from benchlint.cli import main
from tests.conftest import TESTDATA

EXAMPLE = TESTDATA / "example"
EXPECTED = [
    ("BL001", "benchmarks/multi_node/collect_results.sh", 6, 1),
    ("BL001", "benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/broken.yaml", 4, 40),
    ("BL203", "benchmarks/multi_node/srt-slurm-recipes/vllm/dsr1/disagg-8k1k.yaml", 23, 7),
    ("BL203", "configs/nvidia-master.yaml", 38, 3),
    ("BL101", "runners/launch_b200-dgxc.sh", 7, 8),
    ("BL102", "runners/launch_b200-dgxc.sh", 20, 5),
    ("BL101", "runners/launch_gb200-nv.sh", 9, 1),
    ("BL102", "runners/launch_gb200-nv.sh", 18, 1),
]


def _lint(*args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(main, [str(EXAMPLE), *args])
    return outcome.exit_code, outcome.output


def test_example_findings_exactly() -> None:
    code, output = _lint("--format", "json")
    assert code == 1
    found = [(f["rule"], f["path"], f["line"], f["column"]) for f in json.loads(output)["findings"]]
    assert found == EXPECTED


def test_text_output_shows_location_and_source_line() -> None:
    code, output = _lint()
    assert code == 1
    assert "runners/launch_b200-dgxc.sh:20:5: error: `flock -w 1800 9` can fail" in output
    assert "  20 |     flock -w 1800 9\n     |     ^^^^^^^^^^^^^^^" in output
    assert "Found 8 findings (8 errors)" in output


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
    # the PORT finding needs the workflow templates, which were not named
    assert "benchmark-tmpl.yml" in lines[0]
