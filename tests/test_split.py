"""A whole-repository run split over two processes gives exactly what one process gives."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from benchlint import split
from benchlint.calls import CallGraph
from benchlint.config import Config, load_config
from benchlint.context import Context
from benchlint.engine import Result, RuleError, _run_rules, lint, select_rules
from benchlint.finding import Finding
from benchlint.registry import Rule
from benchlint.workspace import Workspace
from tests.conftest import TESTDATA, write_repo

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="a split run needs os.fork")


def _report(result: Result) -> list[tuple[Any, ...]]:
    return [
        (f.rule, f.location, f.message, f.related, f.subject, f.fingerprint)
        for f in result.findings
    ] + [("failure", f.path, f.message) for f in result.failures]


def _both(root: Path, config: Config) -> tuple[Result, Result]:
    rules = select_rules(config, None, set())
    one = lint(root, config, rules, [root], jobs=1)
    two = lint(root, config, rules, [root], jobs=2)
    # the second process's results were merged (not a one-process fallback)
    assert two.workspace is not None and two.workspace.other_peak_kib > 0
    return one, two


def test_example_repository_split_equals_one_process() -> None:
    root = TESTDATA / "example"
    one, two = _both(root, load_config(root / ".benchlint.toml"))
    assert _report(two) == _report(one)
    assert len(one.findings) > 20
    assert two.files_read == one.files_read


def _case_repos() -> list[Any]:
    params = []
    for path in sorted((TESTDATA / "cases").glob("BL*.yaml")):
        data = YAML(typ="safe").load(path.read_text())
        for case in data["cases"]:
            if "named" not in case:  # named files always run in one process
                params.append(pytest.param(case, id=f"{data['rule']}: {case['name']}"))
    return params


@pytest.mark.parametrize("case", _case_repos())
def test_every_case_split_equals_one_process(case: dict[str, Any], tmp_path: Path) -> None:
    root = write_repo(tmp_path / "repo", case["files"], case.get("symlinks"))
    one, two = _both(root, load_config(root / ".benchlint.toml"))
    assert _report(two) == _report(one)
    assert two.errors == one.errors


def test_every_file_is_in_exactly_one_share() -> None:
    ws = Workspace(TESTDATA / "example", load_config(TESTDATA / "example" / ".benchlint.toml"))
    main, second, scripts = split.shares(ws)
    assert not main & second and not (main | second) & set(scripts)
    assert main | second | set(scripts) == set(ws.shell_paths) | set(ws.yaml_paths)
    master = "configs/nvidia-master.yaml"
    assert set(ws.yaml_paths) - {master} <= main  # the YAML and the launchers: the routes
    assert second == {master}  # read first there, its entries sent
    assert "runners/launch_gb200-nv.sh" in main
    assert "benchmarks/benchmark_lib.sh" in scripts  # the other scripts: whoever is free


UNROUTED = {
    "benchmarks/multi_node/srt-slurm-recipes/" + name
    for name in (
        "sglang/glm5/agg-tools.yaml",
        "sglang/glm5/broken.yaml",  # its BL001 comes from whichever process takes it
        "vllm/kimi/agg-agentic.yaml",  # run by a script, not routed by the wiring
        "vllm/kimi/agg-vllm-frontend.yaml",
    )
}
# the others run a script: the main process reads them for Wiring.script_runs, and keeps them
POOLED = {p for p in UNROUTED if "/glm5/" in p}


def test_recipes_no_route_reaches_are_pooled() -> None:
    ws = Workspace(TESTDATA / "example", load_config(TESTDATA / "example" / ".benchlint.toml"))
    assert split.unrouted_recipes(Context(ws)) == UNROUTED


@pytest.mark.parametrize("late", ["main", "second"])
def test_the_pool_goes_to_the_process_done_first(
    late: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whichever process takes the unrouted recipes, the findings are the one-process ones."""
    root = TESTDATA / "example"
    config = load_config(root / ".benchlint.toml")
    rules = select_rules(config, None, set())
    parent = os.getpid()
    taken_by_main: set[str] = set()

    def run_rules(ctx: Context, chosen: list[Rule]) -> tuple[list[Finding], list[RuleError]]:
        if os.getpid() == parent and ctx.share is not None and ctx.share <= POOLED:
            taken_by_main.update(ctx.share)
        return _run_rules(ctx, chosen)

    take_scripts = split._take_scripts

    def late_take_scripts(ws: Workspace, pool: int) -> list[str]:
        if (os.getpid() == parent) == (late == "main"):
            time.sleep(1.0)  # the other process meanwhile takes the scripts, then the recipes
        return take_scripts(ws, pool)

    one = lint(root, config, rules, [root], jobs=1)
    monkeypatch.setattr("benchlint.engine._run_rules", run_rules)
    monkeypatch.setattr(split, "_take_scripts", late_take_scripts)
    two = lint(root, config, rules, [root], jobs=2)
    assert two.workspace is not None and two.workspace.other_peak_kib > 0
    assert {f.location.path for f in one.findings} & POOLED  # the pooled recipes have some
    assert _report(two) == _report(one)
    assert taken_by_main == (set() if late == "main" else POOLED)


def test_the_main_process_takes_from_the_pool_rather_than_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = TESTDATA / "example"
    config = load_config(root / ".benchlint.toml")
    rules = select_rules(config, None, set())
    parent = os.getpid()
    facts = CallGraph.facts
    taken_by_main: set[str] = set()

    def slow_facts(self: CallGraph, paths: list[str]) -> list[Any]:
        if os.getpid() != parent:
            time.sleep(1.0)  # the second process's scripts take long
        return facts(self, paths)

    def run_rules(ctx: Context, chosen: list[Rule]) -> tuple[list[Finding], list[RuleError]]:
        if os.getpid() == parent and ctx.share is not None:
            if ctx.share <= POOLED:
                taken_by_main.update(ctx.share)
            else:  # its own rules are slow too: had it waited, the pool would be gone after
                time.sleep(1.0)
        return _run_rules(ctx, chosen)

    one = lint(root, config, rules, [root], jobs=1)
    monkeypatch.setattr(CallGraph, "facts", slow_facts)
    monkeypatch.setattr("benchlint.engine._run_rules", run_rules)
    two = lint(root, config, rules, [root], jobs=2)
    assert two.workspace is not None and two.workspace.other_peak_kib > 0
    assert taken_by_main == POOLED
    assert _report(two) == _report(one)


def test_pool_records_are_read_whole_by_competing_readers() -> None:
    """More records than the pipe holds (the writer waits) and than one atomic write carries."""
    indices = list(range(40_000))
    read_fd, write_fd = os.pipe()
    writer = split._pool_later(write_fd, indices)
    taken: list[list[int]] = [[], []]
    turn = 0
    while record := os.read(read_fd, split._INDEX.size):
        assert len(record) == split._INDEX.size
        taken[turn].append(split._INDEX.unpack(record)[0])
        turn = 1 - turn
    writer.join()
    os.close(read_fd)
    assert sorted(taken[0] + taken[1]) == indices


def test_a_dying_second_process_costs_time_not_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    root = TESTDATA / "example"
    config = load_config(root / ".benchlint.toml")
    rules = select_rules(config, None, set())
    parent = os.getpid()

    def dies_in_the_child(
        ctx: Context, chosen: list[Rule]
    ) -> tuple[list[Finding], list[RuleError]]:
        if os.getpid() != parent:
            os._exit(3)
        return _run_rules(ctx, chosen)

    ws = Workspace(root, config)
    assert split.run(ws, rules, dies_in_the_child) is None
    one = lint(root, config, rules, [root], jobs=1)
    # lint itself: the second process dies, the main one runs everything alone
    monkeypatch.setattr("benchlint.engine._run_rules", dies_in_the_child)
    two = lint(root, config, rules, [root], jobs=2)
    assert _report(two) == _report(one)
    assert len(one.findings) > 20


def test_cli_jobs_option(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from benchlint.cli import main

    root = TESTDATA / "example"
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"report-{jobs}.json"
        result = CliRunner().invoke(
            main, ["--jobs", jobs, "--format", "json", "-o", str(out), str(root)]
        )
        assert result.exit_code == 1, result.output
        outputs.append(out.read_text())
    assert outputs[0] == outputs[1]
    bad = CliRunner().invoke(main, ["--jobs", "3", str(root)])
    assert bad.exit_code == 2


def test_statistics_count_findings_per_rule_and_both_processes_memory(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from benchlint.cli import main

    root = TESTDATA / "example"
    for jobs, second in (("1", False), ("2", True)):
        result = CliRunner().invoke(
            main, ["--jobs", jobs, "--statistics", "-o", str(tmp_path / "out.txt"), str(root)]
        )
        lines = result.stderr.splitlines()
        by_rule = {line.split()[0]: line.split() for line in lines if line.startswith("BL")}
        assert by_rule["BL201"] == ["BL201", "recipe-value-overridden", "2"]
        summary = next(i for i, line in enumerate(lines) if line.startswith("findings "))
        assert lines[summary].startswith("findings 26, files read ")
        assert lines[summary + 1].startswith("peak memory ")
        assert ("in the second process" in lines[summary + 1]) is second


def test_meanwhile_runs_once_in_the_main_process() -> None:
    root = TESTDATA / "example"
    config = load_config(root / ".benchlint.toml")
    rules = select_rules(config, None, set())
    calls: list[int] = []
    two = lint(root, config, rules, [root], jobs=2, meanwhile=lambda: calls.append(os.getpid()))
    assert two.workspace is not None and two.workspace.other_peak_kib > 0
    assert calls == [os.getpid()]


def test_the_master_config_is_read_by_the_second_process_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The main process models its launchers while the second reads the master config, whose
    entries it then sends."""
    root = TESTDATA / "example"
    config = load_config(root / ".benchlint.toml")
    rules = select_rules(config, None, set())
    parent = os.getpid()
    parse = Workspace._parse_yaml
    read_by_main: list[str] = []

    def recording(self: Workspace, path: str) -> Any:
        if os.getpid() == parent:
            read_by_main.append(path)
        return parse(self, path)

    one = lint(root, config, rules, [root], jobs=1)
    monkeypatch.setattr(Workspace, "_parse_yaml", recording)
    two = lint(root, config, rules, [root], jobs=2)
    assert two.workspace is not None and two.workspace.other_peak_kib > 0
    assert read_by_main and "configs/nvidia-master.yaml" not in read_by_main
    assert _report(two) == _report(one)


def test_messages_larger_than_a_pipe_cross_in_both_directions() -> None:
    """Both processes send before they read: a writer thread per pipe keeps either from
    waiting on the other, and messages arrive whole and in order."""
    up_read, up_write = os.pipe()
    down_read, down_write = os.pipe()
    up, down = split._Sender(up_write), split._Sender(down_write)
    big = ["x" * 1000] * 1000  # ~1 MB pickled, far more than a pipe holds
    up.send(big)
    up.send("then this")
    down.send(big[:10])
    assert split._receive(down_read) == big[:10]
    assert split._receive(up_read) == big
    assert split._receive(up_read) == "then this"
    up.close()
    down.close()
    for fd in (up_read, up_write, down_read, down_write):
        os.close(fd)
