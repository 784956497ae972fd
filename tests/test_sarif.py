"""SARIF that the real `sarif-multitool validate --rule-kind "Gh;Sarif"` accepts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchlint.cli import main
from benchlint.registry import all_rules
from tests.conftest import REPO, TESTDATA, write_repo

PLATFORM_BINARY = "node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"


def _multitool() -> str | None:
    candidates = [os.environ.get("SARIF_MULTITOOL", ""), str(REPO / ".ci" / PLATFORM_BINARY)]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return candidate
    return shutil.which("Sarif.Multitool")


def _sarif(*args: str | Path) -> dict:  # type: ignore[type-arg]
    outcome = CliRunner().invoke(main, [*(str(a) for a in args), "--format", "sarif"])
    assert outcome.exit_code in (0, 1), outcome.output
    return json.loads(outcome.stdout)  # type: ignore[no-any-return]


def test_multitool_accepts_the_example_report(tmp_path: Path) -> None:
    tool = _multitool()
    if tool is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install @microsoft/sarif-multitool (see .ci/run)")
        pytest.skip("sarif-multitool not installed; .ci/run installs it")
    # the example, and a repository that gets a warning (a launcher nothing routes to)
    blind = write_repo(tmp_path / "blind", {"runners/launch_x.sh": "srtctl apply -f x.yaml\n"})
    for name, log in (("example", _sarif(TESTDATA / "example")), ("blind", _sarif(blind))):
        report = tmp_path / f"{name}.sarif"
        report.write_text(json.dumps(log))
        checked = tmp_path / f"{name}-validation.sarif"
        # The platform binary directly: the npm wrapper hands arguments to a shell, which
        # splits at ';'.
        subprocess.run(
            [tool, "validate", "--rule-kind", "Gh;Sarif", "--output", str(checked), str(report)],
            check=True,
            capture_output=True,
            timeout=300,
        )
        problems = [
            (r["ruleId"], r.get("message"))
            for run in json.loads(checked.read_text())["runs"]
            for r in run.get("results", [])
        ]
        assert problems == [], name
    notices = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["level"] for n in notices] == ["warning"]


def test_report_shape() -> None:
    log = _sarif(TESTDATA / "example")
    run = log["runs"][0]
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.id for r in all_rules() if r.default_enabled]
    assert all(r["help"]["markdown"].startswith(r["shortDescription"]["text"][:-1]) for r in rules)
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/testdata/example/")
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert set(location["region"]) == {"startLine", "startColumn", "endLine", "endColumn"}
        assert result["message"]["text"].endswith(".")
    port = next(r for r in run["results"] if r["ruleId"] == "BL101")
    related = [r["physicalLocation"]["artifactLocation"]["uri"] for r in port["relatedLocations"]]
    assert related == ["configs/nvidia-master.yaml"]  # the entry that starts the launcher
    clamp = next(r for r in run["results"] if r["ruleId"] == "BL201")
    related = [
        (
            r["physicalLocation"]["artifactLocation"]["uri"],
            r["physicalLocation"]["region"]["startLine"],
        )
        for r in clamp["relatedLocations"]
    ]
    assert related == [("runners/launch_gb200-nv.sh", 34), ("configs/nvidia-master.yaml", 34)]
    # code scanning shows a related location only where the message links to it
    assert clamp["message"]["text"].endswith(
        "See [rewrite at runners/launch_gb200-nv.sh:34](1), "
        "[entry dsr1-fp8-gb200-dynamo-vllm at configs/nvidia-master.yaml:34](2)."
    )
    for result in run["results"]:
        ids = [r["id"] for r in result.get("relatedLocations", [])]
        assert all(f"]({i})" in result["message"]["text"] for i in ids)
    # fullDescription is plain text: GitHub shows it as it is
    assert all("#" not in r["fullDescription"]["text"] for r in rules)
    assert rules[0]["fullDescription"]["text"].startswith("Reports a shell script or YAML file")
    precision = {r["id"]: r["properties"]["precision"] for r in rules}
    assert precision["BL203"] == "very-high" and precision["BL105"] == "medium"
    # parse failures are BL001 results and notifications (the tool status page lists them)
    failed = [r for r in run["results"] if r["ruleId"] == "BL001"]
    assert len(failed) == 2
    notices = run["invocations"][0]["toolExecutionNotifications"]
    located = [n for n in notices if n["level"] == "error"]
    unparsed = [
        "benchmarks/multi_node/collect_results.sh",
        "benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/broken.yaml",
    ]
    assert all("locations" in n for n in located) and len(located) == 2
    uris = [n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for n in located]
    assert uris == unparsed
    # and the warnings about the entry whose recipe is srt-slurm's own, about the launchers no
    # entry reaches, about scripts tree-sitter-bash parses in part (bash accepts them), about
    # the launches no rule checks the flags of (the SGLang router's) and about a recipe that
    # names no container (its release-dependent flag not checked)
    rest = [n for n in notices if n["level"] != "error"]
    assert [n["level"] for n in rest] == ["warning"] * 5
    # each with every file and line it is about, and the rule that could not decide (if one)
    places = [
        [
            (
                at["physicalLocation"]["artifactLocation"]["uri"],
                at["physicalLocation"].get("region", {}).get("startLine"),
            )
            for at in n.get("locations", [])
        ]
        for n in rest
    ]
    assert places[1] == [
        ("runners/launch_h100-dp.sh", None),
        ("runners/launch_mi355x-amds.sh", None),
    ]
    assert places[4] == [("benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/agg-tools.yaml", 6)]
    assert [n.get("associatedRule", {}).get("id") for n in rest] == [
        None,
        None,
        None,
        "BL303",
        "BL303",
    ]
    assert (
        "(runners/launch_h100-dp.sh, runners/launch_mi355x-amds.sh)" in rest[1]["message"]["text"]
    )
    assert (
        "(benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/agg-tools.yaml:6 "
        "`tool-call-parser`)" in (rest[4]["message"]["text"])
    )
    assert (
        "(glm5-fp4-gb200-dynamo-sglang) runs a recipe of the srt-slurm checkout"
        in (rest[0]["message"]["text"])
    )
    assert "benchmarks/single_node/qwen3_fp8_h200_serve.sh:9" in rest[2]["message"]["text"]
    assert "`python -m sglang_router.launch_router` not checked" in rest[3]["message"]["text"]
    without = _sarif(TESTDATA / "example", "--ignore", "BL001")["runs"][0]
    notified = [
        n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for n in without["invocations"][0]["toolExecutionNotifications"]
        if n["level"] == "error"
    ]
    assert notified == unparsed


def test_fingerprints_survive_lines_inserted_above(tmp_path: Path) -> None:
    launcher = "set +e\nexec 9>/tmp/l\nflock -w 5 9\nflock -n 9\n"
    root = write_repo(tmp_path / "r", {"run.sh": launcher})

    def fingerprints() -> list[tuple[int, str]]:
        results = _sarif(root)["runs"][0]["results"]
        return [
            (
                r["locations"][0]["physicalLocation"]["region"]["startLine"],
                r["partialFingerprints"]["benchlintFingerprint/v1"],
            )
            for r in results
        ]

    before = fingerprints()
    (root / "run.sh").write_text("# a comment\n\necho start\n" + launcher)
    after = fingerprints()
    assert [line for line, _ in after] == [line + 3 for line, _ in before]
    assert [fp for _, fp in after] == [fp for _, fp in before]
    assert len({fp for _, fp in before}) == 2
