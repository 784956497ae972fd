"""The models say "unknown" rather than guess, and end on every input (issue 11)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchlint.cache import Cache
from benchlint.cli import main
from tests.conftest import copy_example, positions, run_lint, write_repo

RECIPE = "benchmarks/multi_node/srt-slurm-recipes/vllm/dsr1/disagg-8k1k.yaml"


def _example(tmp_path: Path) -> Path:
    root = tmp_path / "example"
    copy_example(root)
    return root


def test_recursive_aliases_end_for_every_rule_and_explain(tmp_path: Path) -> None:
    root = _example(tmp_path)
    recipe = root / RECIPE
    before = positions(run_lint(root))
    recipe.write_text(
        recipe.read_text()
        + "extra: &l [*l]\n"
        + "checks: &h {max_attempts: 30, again: *h, <<: *h}\n"
        + "limits: &s\n  time_limit: 1:00:00\n  nested: {up: *s}\n"
    )
    result = run_lint(root)
    assert not result.errors
    assert positions(result) == before  # the cycles add nothing and hide nothing
    outcome = CliRunner().invoke(main, ["explain", "--root", str(root), str(recipe)])
    assert outcome.exit_code == 0, outcome.output
    assert "health" in outcome.stdout


def test_aliases_of_aliases_stay_linear(tmp_path: Path) -> None:
    """A "billion laughs" recipe: 2^40 paths through shared nodes, read in well under a second."""
    lines = ["a0: &a0 {tensor-parallel-size: 8, tool-call-parser: x}"]
    lines += [f"a{i}: &a{i} {{l: *a{i - 1}, r: *a{i - 1}}}" for i in range(1, 41)]
    root = _example(tmp_path)
    recipe = root / RECIPE
    recipe.write_text(recipe.read_text() + "\n".join(lines) + "\n")
    result = run_lint(root)
    assert not result.errors


def invoke(*args: str | Path) -> tuple[int, str, str]:
    outcome = CliRunner().invoke(main, [str(a) for a in args])
    return outcome.exit_code, outcome.stdout, outcome.stderr


LOCKS = "set +e\nflock -w 5 9\ntouch a.yaml\n"


def test_a_suppression_reason_is_free_text(tmp_path: Path) -> None:
    """`all` in the reason is a word, not `ALL`; IDs end at the first other word."""
    root = write_repo(
        tmp_path / "r",
        {
            "reason.sh": "set +e\n# benchlint: disable=BL101 needed on all runners\nflock -w 5 9\n",
            "both.sh": "set +e\nflock -w 5 9  # benchlint: disable=BL101, BL102 two IDs\n",
            "explicit.sh": "set +e\nflock -w 5 9  # benchlint: disable=all\n",
            "late.sh": "set +e\nflock -w 5 9  # benchlint: disable=for BL102\n",
        },
    )
    assert positions(run_lint(root)) == ["late.sh:2:1", "reason.sh:3:1"]


def test_lines_end_only_at_newline_for_suppressions(tmp_path: Path) -> None:
    """A form feed or U+2028 inside a line does not start one, for findings as for comments."""
    root = write_repo(
        tmp_path / "r",
        {
            "ff.sh": "set +e\n# a\f b\u2028 c\nflock -w 5 9  # benchlint: disable=BL102\n",
            "kept.sh": "set +e\n# a\f b\u2028 c\n# benchlint: disable=BL102\n\nflock -w 5 9\n",
        },
    )
    assert positions(run_lint(root)) == ["kept.sh:5:1"]


def test_configuration_shapes_exit_2(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"run.sh": "echo ok\n"})
    (root / ".benchlint.toml").unlink()
    for text, message in [
        ("[[tool.benchlint]]\nselect = ['BL1']\n", "`tool.benchlint` must be a table"),
        ("[tool]\nbenchlint = 3\n", "`tool.benchlint` must be a table"),
        ("[tool.benchlint\n", "invalid TOML"),
    ]:
        (root / "pyproject.toml").write_text(text)
        code, _, err = invoke(root)
        assert code == 2, text
        assert message in err
        assert len(err.strip().splitlines()) == 1


def test_an_internal_error_exits_2_in_one_line(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import benchlint.cli

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("model bug")

    root = write_repo(tmp_path / "r", {"run.sh": "echo ok\n"})
    monkeypatch.setattr(benchlint.cli, "lint", broken)
    code, _, err = invoke(root)
    assert code == 2
    assert err.startswith("benchlint: error: internal error: KeyError: 'model bug'")
    assert len(err.strip().splitlines()) == 1
    code, _, err = invoke("--debug", root)
    assert code == 2 and "Traceback" in err


def test_sarif_columns_count_utf16_code_units(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An emoji is one code point but two UTF-16 code units."""
    root = write_repo(tmp_path / "r", {"run.sh": "set +e\necho 😀; flock -w 5 9\n"})
    import json

    _, out, _ = invoke(root, "--format", "sarif")
    region = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"], region["endColumn"]) == (2, 10, 22)
    monkeypatch.chdir(root)
    _, out, _ = invoke(root, "--format", "concise")
    assert out.startswith("run.sh:2:9:")


def _cycle_repo(tmp_path: Path, name: str) -> Path:
    """A launcher runs b.sh; b.sh and NAME.sh run each other; NAME.sh exports an unset
    variable. Started from the launcher through b.sh, NAME.sh gets nothing: a finding in NAME.sh
    whatever the file is called."""
    root = _example(tmp_path / name)
    launcher = root / "runners/launch_b200-dgxc.sh"
    launcher.write_text(launcher.read_text() + "bash benchmarks/cyc/b.sh\n")
    (root / "benchmarks/cyc").mkdir()
    (root / "benchmarks/cyc/b.sh").write_text(
        f'export MYVAR="$MYVAR"\nbash benchmarks/cyc/{name}.sh\n'
    )
    (root / f"benchmarks/cyc/{name}.sh").write_text(
        'export OTHER="$OTHER"\nbash benchmarks/cyc/b.sh\n'
    )
    return root


def test_a_call_cycle_gives_the_same_findings_whatever_the_file_names(tmp_path: Path) -> None:
    for name in ("a", "z"):
        found = positions(run_lint(_cycle_repo(tmp_path, name), select="BL101"))
        assert f"benchmarks/cyc/{name}.sh:1:8" in found, name
        assert "benchmarks/cyc/b.sh:1:8" in found


def _sarif(root: Path, cache: Cache | None = None, jobs: int = 1, *named: str) -> str:
    from benchlint.config import Config
    from benchlint.engine import lint, select_rules
    from benchlint.registry import expand_selectors
    from benchlint.report import renderer

    rules = select_rules(Config(), expand_selectors(["ALL"]), set())
    paths = [root / n for n in named] or [root]
    return renderer("sarif")(lint(root, Config(), rules, paths, cache=cache, jobs=jobs))


def _workers_parse_every_file(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Worker processes parse a repository's YAML however small, a file a chunk; the paths
    whose facts came from a worker are listed."""
    from benchlint import perfile

    monkeypatch.setattr(perfile, "MIN_BYTES", 0)
    monkeypatch.setattr(perfile, "CHUNK_BYTES", 1)
    monkeypatch.setattr(perfile, "WORKER_BYTES", 1)  # as many workers as `jobs` allows
    from_workers: list[str] = []
    take = perfile.Pool.take

    def taken(self: perfile.Pool, path: str) -> perfile.Facts | None:
        facts = take(self, path)
        if facts is not None:
            from_workers.append(path)
        return facts

    monkeypatch.setattr(perfile.Pool, "take", taken)
    return from_workers


def _clients_repo(tmp_path: Path) -> Path:
    """The example with a drain client five recipes run, each by an SGLang frontend and
    workers: one BL304 finding names the recipes (three, and how many more)."""
    root = _example(tmp_path)
    (root / "benchmarks/multi_node/drain.sh").write_text(
        'curl -s "http://localhost:${PORT}/metrics" | grep -c vllm:num_requests_running\n'
    )
    for name in "qwxay":
        (root / f"benchmarks/multi_node/srt-slurm-recipes/sglang/{name}.yaml").write_text(
            "frontend: {type: sglang}\nbackend: {type: sglang}\nbenchmark:\n  type: custom\n"
            "  command: bash /infmax-workspace/benchmarks/multi_node/drain.sh\n"
        )
    return root


@pytest.mark.parametrize("repository", ["cycle", "example", "clients"])
def test_output_does_not_depend_on_discovery_order_or_the_cache(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    repository: str,
) -> None:
    """The same report, byte for byte: with no cache, filling it (cold) and reusing it (warm),
    with YAML parsed by worker processes, and with files discovered in shuffled orders."""
    import random

    from benchlint.workspace import Workspace

    if repository == "cycle":
        root = _cycle_repo(tmp_path, "z")
    elif repository == "clients":
        root = _clients_repo(tmp_path / "clients")
        assert "when run by benchmarks/multi_node/srt-slurm-recipes/sglang/a.yaml, " in _sarif(root)
    else:
        root = tmp_path / "example"
        copy_example(root)
        # (master configs set aside, each a place of the warning that says so: in one order)
        entry = (
            "{name}:\n  image: img\n  model-prefix: m\n  precision: fp8\n  framework: vllm\n"
            "  runner: h200\n  scenarios:\n    fixed-seq-len:\n"
            "    - {{isl: 1, osl: 1, search-space: [{{tp: 8}}]}}\n"
        )
        (root / "configs/deprecated").mkdir()
        for name in "qwxay":
            (root / f"configs/deprecated/{name}-master.yaml").write_text(entry.format(name=name))
        # (a script several scripts run: the finding lists its routes, in one order)
        (root / "benchmarks/shared_env.sh").write_text('export EXTRA_PORT="$EXTRA_PORT"\n')
        for name in ("glm5_fp8_h200", "dsr1_fp8_b200", "kimi_fp4_mi355x"):
            with (root / f"benchmarks/single_node/{name}.sh").open("a") as script:
                script.write("\nbash benchmarks/shared_env.sh\n")
    expected = _sarif(root)
    if repository == "example":
        assert "configs/deprecated/y-master.yaml" in expected
        assert "exports EXTRA_PORT as an empty string" in expected
    cache = Cache(tmp_path / "cache")
    assert _sarif(root, cache) == expected  # cold
    assert _sarif(root, cache) == expected  # warm
    from_workers = _workers_parse_every_file(monkeypatch)
    assert _sarif(root, None, 3) == expected  # workers
    assert _sarif(root, Cache(tmp_path / "cache-workers"), 3) == expected  # workers, cold
    assert len(from_workers) > (1 if repository == "cycle" else 10)
    discover = Workspace._discover
    for seed in range(4):
        rng = random.Random(seed)

        def shuffled(self: Workspace, rng: random.Random = rng) -> None:
            discover(self)
            rng.shuffle(self.shell_paths)
            rng.shuffle(self.yaml_paths)

        monkeypatch.setattr(Workspace, "_discover", shuffled)
        assert _sarif(root) == expected, seed
        assert _sarif(root, cache) == expected, seed
        assert _sarif(root, None, 2) == expected, seed


@pytest.mark.parametrize("repository", ["cycle", "example", "clients"])
def test_a_run_that_streams_its_models_says_what_one_that_holds_them_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repository: str
) -> None:
    """A repository past HOLD streams: each script's model is let go of once its passes are
    done (or at once, modelled in passing for its calls), freed, and modelled again where it
    is asked for later. The report is the same, byte for byte: cold, warm, with workers, in
    shuffled orders."""
    import random

    from benchlint import workspace

    if repository == "cycle":
        root = _cycle_repo(tmp_path, "z")
    elif repository == "clients":
        root = _clients_repo(tmp_path / "clients")
    else:
        root = tmp_path / "example"
        copy_example(root)
    expected = _sarif(root)
    monkeypatch.setattr(workspace, "HOLD", 0)
    monkeypatch.setattr(workspace, "COLLECT", 0)  # a full collection at each let-go: freed
    monkeypatch.setattr(workspace, "FULL", 0)
    remodelled: list[int] = []
    close = workspace.Workspace.close

    def closed(self: workspace.Workspace) -> None:
        assert self.streams
        remodelled.append(self.remodelled)
        close(self)

    monkeypatch.setattr(workspace.Workspace, "close", closed)
    assert _sarif(root) == expected
    assert remodelled[-1] > 0  # (a model freed and asked for again: the path is taken)
    cache = Cache(tmp_path / "cache")
    assert _sarif(root, cache) == expected  # cold
    assert _sarif(root, cache) == expected  # warm
    assert _sarif(root, None, 3) == expected  # workers
    discover = workspace.Workspace._discover
    for seed in range(3):
        rng = random.Random(seed)

        def shuffled(self: workspace.Workspace, rng: random.Random = rng) -> None:
            discover(self)
            rng.shuffle(self.shell_paths)
            rng.shuffle(self.yaml_paths)

        monkeypatch.setattr(workspace.Workspace, "_discover", shuffled)
        assert _sarif(root) == expected, seed


def test_a_named_run_takes_the_yaml_files_facts_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole run filled by workers leaves each YAML file's facts in the cache, failures and
    templates included; a pre-commit run after it parses no YAML and says the same."""
    from benchlint import perfile

    root = tmp_path / "example"
    copy_example(root)
    (root / "benchmarks" / "tmpl.yaml").write_text("a: 1\n{% if x %}\nb: 2\n{% endif %}\n")
    broken = "benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/broken.yaml"
    named = ("runners/launch_b200-dgxc.sh", broken, "benchmarks/tmpl.yaml")
    expected = _sarif(root, None, 1, *named)
    assert "broken.yaml is not valid YAML" in expected
    cache = Cache(tmp_path / "cache")
    _workers_parse_every_file(monkeypatch)
    _sarif(root, cache, 2)

    def parses(source: object) -> None:
        raise AssertionError("parsed, not taken from the cache")

    monkeypatch.setattr(perfile, "read_yaml", parses)  # (the workspace's step, done here)
    assert _sarif(root, cache, 1, *named) == expected


def test_scripts_come_from_the_cache_from_the_second_whole_run_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole run on a cache it never ran with (a fresh checkout's) keeps its result and the
    YAML facts, not the scripts'; the next whole run keeps every script it models; the one
    after models only the script that changed, and every run says what a run with no cache
    says, byte for byte."""
    from benchlint.shell import model

    root = tmp_path / "example"
    copy_example(root)
    launcher = root / "runners" / "launch_b200-dgxc.sh"
    cache = Cache(tmp_path / "cache")
    folder = tmp_path / "cache"

    def kinds() -> set[str]:
        return {p.name.split("-", 1)[0] for p in folder.glob("*.marshal")}

    assert _sarif(root, cache) == _sarif(root)
    assert "shell" not in kinds() and {"run", "yaml"} <= kinds()
    parsed: list[str] = []
    original = model.parse_file
    monkeypatch.setattr(
        model,
        "parse_file",
        lambda source, *rest: parsed.append(source.path) or original(source, *rest),
    )
    for edit in range(1, 4):
        launcher.write_text(launcher.read_text() + f"# edit {edit}\n")
        expected = _sarif(root)
        everything = set(parsed)
        parsed.clear()
        assert _sarif(root, Cache(folder), 1) == expected, edit  # a new run
        assert "shell" in kinds()
        if edit == 1:
            assert set(parsed) == everything and len(everything) > 10
        else:
            assert parsed == ["runners/launch_b200-dgxc.sh"]
        parsed.clear()


def test_models_kept_between_runs_are_reused_only_where_the_file_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The language server keeps each run's models: the next run parses only what changed,
    reports the parse failures of the files it did not parse again, and says what a fresh
    run says, byte for byte."""
    from benchlint import perfile, workspace
    from benchlint.config import Config
    from benchlint.engine import lint, select_rules
    from benchlint.registry import expand_selectors
    from benchlint.report import renderer
    from benchlint.shell import model

    root = tmp_path / "example"
    copy_example(root)
    rules = select_rules(Config(), expand_selectors(["ALL"]), set())
    parsed: list[str] = []
    for module, name in ((model, "parse_file"), (perfile, "read_yaml")):
        original = getattr(module, name)
        monkeypatch.setattr(
            module,
            name,
            lambda source, *rest, original=original: (
                parsed.append(source.path) or original(source, *rest)
            ),
        )

    def run(kept: workspace.Kept | None) -> str:
        return renderer("sarif")(lint(root, Config(), rules, [root], kept=kept))

    kept = workspace.Kept()
    first = run(kept)
    assert len(parsed) > 20 and first == run(None)
    launcher = root / "runners" / "launch_b200-dgxc.sh"
    launcher.write_text(launcher.read_text().replace('export PORT="$PORT"\n', ""))
    parsed.clear()
    second = run(kept)
    assert parsed == ["runners/launch_b200-dgxc.sh"]
    assert second != first and second == run(None)  # the edit changed the findings
    assert "collect_results.sh is not valid shell" in second  # a failure not parsed again
    assert "broken.yaml is not valid YAML" in second


def test_yq_assignments_that_add_keys_are_simulated() -> None:
    import yaml

    from benchlint.launcher import Rewrite
    from benchlint.wiring import _apply_yq

    def apply(path: tuple[str, ...], value: str, text: str) -> object:
        rewrite = Rewrite("yq", None, yq_path=path, yq_value=value)  # type: ignore[arg-type]
        return yaml.safe_load(_apply_yq(rewrite, text))

    recipe = "name: a\nbackend:\n  type: vllm\n  env:\n    A: 1\nslurm: {time_limit: '1:00:00'}\n"
    assert apply(("health_check", "max_attempts"), "720", recipe) == {
        **yaml.safe_load(recipe),
        "health_check": {"max_attempts": 720},
    }
    nested = apply(("backend", "env", "B"), '"x y"', recipe)
    assert nested["backend"] == {"type": "vllm", "env": {"A": 1, "B": "x y"}}  # type: ignore[index]
    from benchlint.rewrite import RewriteError

    with pytest.raises(RewriteError, match="flow-style"):
        apply(("slurm", "partition"), '"p"', recipe)


def test_yaml_positions_count_lines_at_newlines_only(tmp_path: Path) -> None:
    """libyaml ends a line at U+2028 and NEL as well; the findings use the file's lines."""
    root = write_repo(
        tmp_path / "r",
        {"recipes/a.yaml": 'a: "one\u2028two\u0085three"\nx:\n  k: 1\n  k: 2\n'},
    )
    assert positions(run_lint(root, select="BL203")) == ["recipes/a.yaml:4:3"]


def test_workers_end_once_every_chunk_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """Their memory is not held while the rules run: the pool lets them go when the last
    chunk's facts are taken, or the last chunk is taken back before it started."""
    import multiprocessing

    from benchlint import perfile

    monkeypatch.setattr(perfile, "MIN_BYTES", 0)
    monkeypatch.setattr(perfile, "CHUNK_BYTES", 1)
    files = [("yaml", f"r{i}.yaml", f"a: {i}\n".encode()) for i in range(4)]
    pool = perfile.Pool(files, 2, None)
    assert pool._executor is not None
    for _, path, _ in files[:-1]:
        pool.take(path)
        assert pool._executor is not None  # a chunk is still to be taken
    pool.take(files[-1][1])
    assert pool._executor is None
    deadline = time.monotonic() + 30
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not multiprocessing.active_children()
    pool.close()  # nothing left to do


def test_a_script_no_route_reaches_names_the_unwired_labels_of_its_machine(tmp_path: Path) -> None:
    """(t74a, t75a) BL104's note for a script no entry's route reaches names the runner labels
    that lead to no launcher benchlint knows where their machine is in the script's name (a
    `b200-trt` job may run `70b_b200_trt_slurm.sh`), and not for a script of another machine."""
    tmpl = (
        "on:\n  workflow_call:\n    inputs:\n      runner: {type: string, required: true}\n"
        "      framework: {type: string, required: true}\n"
        "env:\n  FRAMEWORK: ${{ inputs.framework }}\n"
        "jobs:\n  benchmark:\n    runs-on: ${{ inputs.runner }}\n    steps:\n"
        "      - uses: actions/checkout@v4\n"
        "      - run: |\n          RUNNER_NAME=${{ runner.name }}\n"
        "          bash ./runners/launch_${RUNNER_NAME%%_*}.sh\n"
    )
    calls = (
        "on: workflow_dispatch\njobs:\n  bmk-b200:\n"
        "    uses: ./.github/workflows/benchmark-tmpl.yml\n"
        "    with: {runner: b200, framework: vllm}\n  bmk-b200-trt:\n"
        "    uses: ./.github/workflows/benchmark-tmpl.yml\n"
        "    with: {runner: b200-trt, framework: trt}\n"
    )
    root = write_repo(
        tmp_path / "r",
        {
            ".github/workflows/benchmark-tmpl.yml": tmpl,
            ".github/workflows/70b.yml": calls,
            "runners/launch_b200-nv.sh": (
                'if [ "$FRAMEWORK" = "vllm" ]; then\n    FRAMEWORK=""\nfi\n'
                "bash benchmarks/70b_b200${FRAMEWORK:+_$FRAMEWORK}_slurm.sh\n"
            ),
            "runners/launch_mi355x-amd.sh": "bash benchmarks/70b_mi355x_slurm.sh\n",
            "benchmarks/70b_b200_slurm.sh": "vllm serve $MODEL --port 8000\n",
            "benchmarks/70b_b200_trt_slurm.sh": "trtllm-serve $MODEL --port 8000\n",
            "benchmarks/70b_mi355x_slurm.sh": "vllm serve $MODEL --port 8000\n",
        },
    )
    result = run_lint(root, select="BL104")
    notes = {f.location.path: " ".join(f.notes) for f in result.findings}
    assert (
        "the runner label b200-trt of some entries leads to no launcher"
        in notes["benchmarks/70b_b200_trt_slurm.sh"]
    )
    other = notes["benchmarks/70b_mi355x_slurm.sh"]
    assert "no entry's route reaches this script" in other and "runner label" not in other


def test_a_repeated_key_is_removed_safely_only_where_pyyaml_reads_the_file(tmp_path: Path) -> None:
    """BL203's fix keeps what PyYAML reads (safe) in a recipe; in a workflow, which GitHub
    refuses, which value was meant is not known: unsafe (h128 W2)."""
    text = "env:\n  X: 1\n  X: 2\n"
    root = write_repo(
        tmp_path / "r", {"recipes/a.yaml": text, ".github/workflows/w.yml": "on: push\n" + text}
    )
    fixes = {
        f.location.path: (f.fix.applicability, f.fix.description)
        for f in run_lint(root, select="BL203").findings
        if f.fix is not None
    }
    assert fixes == {
        "recipes/a.yaml": ("safe", "remove the 'X' on line 2, which PyYAML ignores"),
        ".github/workflows/w.yml": (
            "unsafe",
            "remove the 'X' on line 3, so GitHub accepts the workflow",
        ),
    }
