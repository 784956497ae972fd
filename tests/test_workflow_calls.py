"""The layout before master configs (InferenceX until November 2025): a model's workflow calls
the benchmark workflow once per runner label with its image, model and precision (`with:`), and
a sweep calls the model's workflow with the experiment's name. Each such call is an entry."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchlint.cli import main
from benchlint.config import Config
from benchlint.workflow import workflow_calls
from benchlint.workspace import Workspace
from tests.conftest import positions, run_lint, write_repo

BENCHMARK = """\
on:
  workflow_call:
    inputs:
      runner: {type: string, required: true}
      image: {type: string, required: true}
      precision: {type: string, required: true}
      exp-name: {type: string, required: true}
      conc-list: {type: string, default: '[4, 8]'}
env:
  IMAGE: ${{ inputs.image }}
  PRECISION: ${{ inputs.precision }}
  EXP_NAME: ${{ inputs.exp-name }}
jobs:
  benchmark:
    runs-on: ${{ inputs.runner }}
    strategy:
      matrix:
        conc: ${{ fromJson(inputs.conc-list) }}
    env:
      CONC: ${{ matrix.conc }}
    steps:
      - name: Launch
        env:
          RUNNER_NAME: ${{ runner.name }}
        run: |
          bash ./runners/launch_${RUNNER_NAME%%_*}.sh
"""

MODEL = """\
on:
  workflow_call:
    inputs:
      exp-name: {type: string, required: true}
      isl: {type: string, required: true}
      use_h9: {type: boolean, default: true}
      use_g7: {type: boolean, default: false}
jobs:
  bmk-h9-fp8:
    if: ${{ inputs.use_h9 }}
    uses: ./.github/workflows/benchmark-tmpl.yml
    with:
      runner: h9
      image: 'vllm/vllm-openai:v0.10.2'
      precision: fp8
      exp-name: ${{ inputs.exp-name }}
  bmk-g7-fp4:
    if: ${{ inputs.use_g7 && inputs.isl != '1024' }}
    uses: ./.github/workflows/benchmark-tmpl.yml
    with:
      runner: g7
      image: 'vllm/vllm-openai:v0.10.2'
      precision: fp4
      exp-name: ${{ inputs.exp-name }}
  bmk-matrix:
    strategy:
      matrix:
        runner: ${{ fromJson(vars.RUNNERS) }}
    uses: ./.github/workflows/benchmark-tmpl.yml
    with:
      runner: ${{ matrix.runner }}
      image: 'vllm/vllm-openai:v0.10.2'
      precision: fp8
      exp-name: ma_test
"""

SWEEP = """\
on:
  schedule:
    - cron: '0 0 * * *'
  workflow_dispatch:
    inputs:
      use_g7: {type: boolean, default: false}
jobs:
  ma-1k1k:
    uses: ./.github/workflows/ma-tmpl.yml
    with:
      exp-name: 'ma_1k1k'
      isl: 1024
      use_g7: ${{ inputs.use_g7 }}
"""

LAUNCHER = 'bash "benchmarks/${EXP_NAME%%_*}_${PRECISION}_SUFFIX.sh"\n'

FILES = {
    ".github/workflows/benchmark-tmpl.yml": BENCHMARK,
    ".github/workflows/ma-tmpl.yml": MODEL,
    ".github/workflows/sweep.yml": SWEEP,
    # the runners named h9-aa_<n> and h9-bb_<n> (label h9), g7-cc_<n> (label g7)
    "runners/launch_h9-aa.sh": LAUNCHER.replace("SUFFIX", "h9_slurm"),
    "runners/launch_h9-bb.sh": LAUNCHER.replace("SUFFIX", "h9_docker"),
    "runners/launch_g7-cc.sh": LAUNCHER.replace("SUFFIX", "g7_docker"),
    "benchmarks/mb_fp8_h9_slurm.sh": "echo bench\n",  # another model's
}


def test_calls_are_followed_through_their_callers_inputs(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", FILES)
    calls = workflow_calls(Workspace(root, Config()))
    found = sorted((c.path, c.name, sorted(c.inputs.items()), sorted(c.unknown)) for c in calls)
    assert found == [
        (
            ".github/workflows/ma-tmpl.yml",
            "bmk-h9-fp8 (called by ma-1k1k)",
            [
                ("exp-name", "ma_1k1k"),
                ("image", "vllm/vllm-openai:v0.10.2"),
                ("precision", "fp8"),
                ("runner", "h9"),
            ],
            [],
        ),
        (
            ".github/workflows/ma-tmpl.yml",
            "bmk-matrix (called by ma-1k1k)",
            [("exp-name", "ma_test"), ("image", "vllm/vllm-openai:v0.10.2"), ("precision", "fp8")],
            ["runner"],
        ),
        (
            ".github/workflows/sweep.yml",
            "ma-1k1k",
            [("exp-name", "ma_1k1k"), ("isl", "1024")],
            ["use_g7"],
        ),
    ]
    # bmk-g7-fp4 never runs: its `if:` is false for an isl of 1024, whatever use_g7 is


def test_a_call_whose_job_cannot_find_its_script_is_reported(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", FILES)
    result = run_lint(root, "BL202")
    assert positions(result) == ["runners/launch_h9-aa.sh:1:6", "runners/launch_h9-bb.sh:1:6"]
    finding = result.findings[1]
    assert finding.message == (
        '`"benchmarks/${EXP_NAME%%_*}_${PRECISION}_h9_docker.sh"` names no script in benchmarks/ '
        "for bmk-h9-fp8 (called by ma-1k1k): their benchmark never runs (No such file or "
        "directory); the path it makes: benchmarks/ma_fp8_h9_docker.sh (the label h9 taken to "
        "mean the runners named h9-aa_*, h9-bb_*, and the job "
        "fails on each of their launchers: no runners file lists a label's runners)"
    )
    assert [(r.path, r.span.line, r.span.column) for r in finding.related] == [
        (".github/workflows/ma-tmpl.yml", 9, 3)
    ]


def test_the_script_that_exists_and_the_job_that_never_runs_are_not_reported(
    tmp_path: Path,
) -> None:
    # h9-aa's script is missing, h9-bb's is there: the job may run on an h9-bb runner (which
    # runners have the label is not known), so it is not known to fail
    files = {**FILES, "benchmarks/ma_fp8_h9_docker.sh": "echo bench\n"}
    root = write_repo(tmp_path / "r", files)
    result = run_lint(root, "BL202")
    assert positions(result) == []
    # (t64a) ... and said, not passed over in silence
    assert [
        (what.split(" (BL202")[0], [f"{w.path}:{w.span.line}" for w in where])
        for what, where in result.undecided.items()
    ] == [
        (
            "entries whose jobs fail on a launcher their runner label leads to, where the label "
            "may lead to other launchers, not reported",
            [".github/workflows/ma-tmpl.yml:9"],
        )
    ]
    # (h51 W1: the entry is what is listed; a run that names the launcher says it too)
    named = run_lint(root, "BL202", [root / "runners/launch_h9-aa.sh"])
    assert [[f"{w.path}:{w.span.line}" for w in where] for where in named.undecided.values()] == [
        [".github/workflows/ma-tmpl.yml:9"]
    ]
    # with use_g7 passed as true (and an isl the job runs for), g7's missing script is found
    files[".github/workflows/sweep.yml"] = SWEEP.replace("${{ inputs.use_g7 }}", "true").replace(
        "isl: 1024", "isl: 8192"
    )
    root = write_repo(tmp_path / "s", files)
    assert positions(run_lint(root, "BL202")) == ["runners/launch_g7-cc.sh:1:6"]


def test_a_label_no_runner_name_starts_with_leads_nowhere(tmp_path: Path) -> None:
    model = MODEL.replace("runner: h9\n", "runner: h9-trt\n")
    root = write_repo(tmp_path / "r", {**FILES, ".github/workflows/ma-tmpl.yml": model})
    assert positions(run_lint(root, "BL202")) == []


def test_the_summary_counts_the_calls_and_says_which_were_not_routed(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", FILES)
    outcome = CliRunner().invoke(main, ["--select", "BL202", str(root)])
    assert outcome.exit_code == 1
    assert "0 master configs (0 entries), 1 workflow call, 3 launchers" in outcome.stdout
    assert outcome.stderr == (
        "benchlint: warning: 1 workflow call (.github/workflows/ma-tmpl.yml (bmk-matrix (called "
        "by ma-1k1k))) of a workflow that runs a launcher passes a runner not known statically (a "
        "matrix value, an input no caller gives, a dispatch's choice): their routes were not "
        "checked\n"
        "benchlint: warning: 1 launcher (runners/launch_g7-cc.sh) that no entry reaches: linted "
        "as a script alone, not with the values of an entry (benchlint routes no master-config "
        "entry or workflow call to it: `benchlint layout` shows what was detected)\n"
    )


def test_the_calls_not_routed_are_shown_from_the_folder_benchlint_ran_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(h32) as every other warning's places: `r/.github/...` run from the folder above."""
    write_repo(tmp_path / "r", FILES)
    monkeypatch.chdir(tmp_path)
    outcome = CliRunner().invoke(main, ["--select", "BL202", "r"])
    assert outcome.stderr.startswith(
        "benchlint: warning: 1 workflow call (r/.github/workflows/ma-tmpl.yml (bmk-matrix (called "
        "by ma-1k1k))) of a workflow"
    )
    assert "(r/runners/launch_g7-cc.sh)" in outcome.stderr


def test_layout_says_which_calls_are_entries_and_how_labels_were_followed(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", FILES)
    outcome = CliRunner().invoke(main, ["layout", str(root)])
    assert outcome.exit_code == 0
    assert outcome.stdout.splitlines()[1:] == [
        "entries jobs calling .github/workflows/benchmark-tmpl.yml: 1 call with a known runner "
        "(labels h9), 1 with a runner not known (bmk-matrix at .github/workflows/ma-tmpl.yml:25) "
        "from .github/workflows/ma-tmpl.yml:9",
        "runners no runners file: a label's runners taken as those named `<label>-<site>_<n>`, so "
        "its launchers as theirs (2 launchers reached)",
        "no master config: no YAML file here holds entries with a runner and a search space",
        "no recipe root: no launcher copies a folder of recipes, no usual recipe folder exists, "
        "and this is no srt-slurm tree",
    ]


def test_the_model_prefix_comes_from_the_experiment_the_call_passes(tmp_path: Path) -> None:
    files = {
        **FILES,
        "runners/launch_h9-aa.sh": (
            'MODEL_CODE="${EXP_NAME%%_*}"\n'
            'bash "benchmarks/${MODEL_CODE}_${PRECISION}_h9_slurm.sh"\n'
        ),
    }
    root = write_repo(tmp_path / "r", files)
    result = run_lint(root, "BL202")
    assert positions(result) == ["runners/launch_h9-aa.sh:2:6", "runners/launch_h9-bb.sh:1:6"]
    assert "for bmk-h9-fp8 (called by ma-1k1k)" in result.findings[0].message
    files["benchmarks/ma_fp8_h9_slurm.sh"] = "echo bench\n"
    root = write_repo(tmp_path / "s", files)
    assert positions(run_lint(root, "BL202")) == []


def test_a_label_no_launcher_is_named_after_is_said(tmp_path: Path) -> None:
    model = MODEL.replace("runner: g7\n", "runner: g7-trt\n")
    sweep = SWEEP.replace("${{ inputs.use_g7 }}", "true").replace("isl: 1024", "isl: 8192")
    files = {**FILES, ".github/workflows/ma-tmpl.yml": model, ".github/workflows/sweep.yml": sweep}
    root = write_repo(tmp_path / "r", files)
    outcome = CliRunner().invoke(main, ["--select", "BL202", str(root)])
    said = (
        "benchlint: warning: 1 workflow call with the runner label g7-trt reaches no launcher (no "
        "runners file lists a label's runners, and no launcher is named after it): their routes "
        "were not checked\n"
    )
    assert said in outcome.stderr
    # a run that names the workflow holding the call (pre-commit) says it too; one naming
    # another file does not
    named = CliRunner().invoke(main, [str(root / ".github/workflows/ma-tmpl.yml")])
    assert said in named.stderr
    other = CliRunner().invoke(main, [str(root / "runners/launch_h9-aa.sh")])
    assert "reaches no launcher" not in other.stderr
    # (h74 W2) `layout` says it where it says how labels were followed
    layout = CliRunner().invoke(main, ["layout", str(root)])
    assert (
        "so its launchers as theirs (2 launchers reached); no launcher is named after label "
        "g7-trt: their calls reach none, not checked\n"
    ) in layout.stdout


def test_a_launch_path_that_globs_still_leads_to_every_launcher_of_the_label(
    tmp_path: Path,
) -> None:
    # `launch_${RUNNER_NAME%%_*}*.sh`: the label is no runner's name; both h9 launchers run
    benchmark = BENCHMARK.replace("%%_*}.sh", "%%_*}*.sh")
    root = write_repo(tmp_path / "r", {**FILES, ".github/workflows/benchmark-tmpl.yml": benchmark})
    assert positions(run_lint(root, "BL202")) == [
        "runners/launch_h9-aa.sh:1:6",
        "runners/launch_h9-bb.sh:1:6",
    ]


def test_a_job_name_two_workflows_share_is_two_entries(tmp_path: Path) -> None:
    """(t61a, InferenceX 917372ff8) two sweeps, each with a job `ma-1k1k`: each call named with
    its workflow, so that counts and `explain` tell them apart; a name one workflow has alone is
    kept as it is."""
    second = SWEEP.replace("'ma_1k1k'", "'ma_8k1k'").replace("isl: 1024", "isl: 8192")
    files = {**FILES, ".github/workflows/sweep-8k.yml": second}
    calls = workflow_calls(Workspace(write_repo(tmp_path / "r", files), Config()))
    assert sorted(c.name for c in calls if c.path.endswith(("sweep.yml", "sweep-8k.yml"))) == [
        "ma-1k1k of sweep-8k.yml",
        "ma-1k1k of sweep.yml",
    ]
    assert "bmk-h9-fp8 (called by ma-1k1k of sweep.yml)" in {c.name for c in calls}


def test_a_string_passed_on_stays_a_string(tmp_path: Path) -> None:
    # `'7b_1k1k'` reads as a number's start to YAML: passed on, it is still the string
    sweep = SWEEP.replace("'ma_1k1k'", "'7b_1k1k'")
    root = write_repo(tmp_path / "r", {**FILES, ".github/workflows/sweep.yml": sweep})
    (call,) = [c for c in workflow_calls(Workspace(root, Config())) if c.job == "bmk-h9-fp8"]
    assert call.inputs["exp-name"] == "7b_1k1k"


def test_a_workflow_only_workflows_start_and_none_calls_never_runs(tmp_path: Path) -> None:
    files = {k: v for k, v in FILES.items() if k != ".github/workflows/sweep.yml"}
    root = write_repo(tmp_path / "r", files)
    assert workflow_calls(Workspace(root, Config())) == []
    assert positions(run_lint(root, "BL202")) == []


def _positional_repo(root: Path, launch_args: str, launcher: str) -> Path:
    benchmark = BENCHMARK.replace("%%_*}.sh\n", "%%_*}.sh" + launch_args + "\n")
    files = {
        **FILES,
        ".github/workflows/benchmark-tmpl.yml": benchmark,
        "runners/launch_h9-aa.sh": launcher,
        "runners/launch_h9-bb.sh": launcher,
        "benchmarks/ma_h9_slurm.sh": "echo bench\n",
    }
    return write_repo(root, files)


ARG_LAUNCHER = 'MODEL_CODE="${1%%_*}"\nbash "benchmarks/${MODEL_CODE}_h9_slurm.sh"\n'


def test_a_launcher_reads_the_arguments_its_launch_line_gives(tmp_path: Path) -> None:
    # no argument: `${1%%_*}` is empty, the path `benchmarks/_h9_slurm.sh`
    root = _positional_repo(tmp_path / "r", "", ARG_LAUNCHER)
    assert positions(run_lint(root, "BL202")) == [
        "runners/launch_h9-aa.sh:2:6",
        "runners/launch_h9-bb.sh:2:6",
    ]
    # the experiment passed: `benchmarks/ma_h9_slurm.sh`, which exists
    root = _positional_repo(tmp_path / "s", " ${{ inputs.exp-name }}", ARG_LAUNCHER)
    assert positions(run_lint(root, "BL202")) == []


def test_a_positional_parameter_the_route_cannot_know_is_not_judged(tmp_path: Path) -> None:
    in_function = "run() {\n  " + ARG_LAUNCHER.replace("\nbash", "\n  bash") + "}\nrun x\n"
    shifted = "shift\n" + ARG_LAUNCHER
    for name, launcher, args in (
        ("function", in_function, ""),
        ("shift", shifted, ""),
        ("set", "set -- a_b\n" + ARG_LAUNCHER, ""),
        ("unknown", ARG_LAUNCHER, ' "$@"'),  # (the launch line's arguments not read)
    ):
        root = _positional_repo(tmp_path / name, args, launcher)
        assert positions(run_lint(root, "BL202")) == [], name


def test_a_script_sourced_by_a_name_the_route_chooses_is_what_the_job_runs(
    tmp_path: Path,
) -> None:
    launcher = 'MODEL_CODE="${1%%_*}"\nsource "benchmarks/${MODEL_CODE}_h9_docker.sh"\n'
    root = _positional_repo(tmp_path / "r", " ${{ inputs.exp-name }}", launcher)
    assert positions(run_lint(root, "BL202")) == [
        "runners/launch_h9-aa.sh:2:8",
        "runners/launch_h9-bb.sh:2:8",
    ]
    (tmp_path / "r" / "benchmarks" / "ma_h9_docker.sh").write_text("echo bench\n")
    assert positions(run_lint(root, "BL202")) == []


def test_a_matrix_of_literal_values_is_expanded(tmp_path: Path) -> None:
    model = MODEL.replace("${{ fromJson(vars.RUNNERS) }}", "[h9-aa_0, 'h9-bb_0']")
    root = write_repo(tmp_path / "r", {**FILES, ".github/workflows/ma-tmpl.yml": model})
    calls = workflow_calls(Workspace(root, Config()))
    found = sorted(
        (c.name, c.inputs["runner"], c.where["runner"].span.line)
        for c in calls
        if "runner" in c.inputs
    )
    assert found[1:] == [
        ("bmk-matrix [h9-aa_0] (called by ma-1k1k)", "h9-aa_0", 28),
        ("bmk-matrix [h9-bb_0] (called by ma-1k1k)", "h9-bb_0", 28),
    ]
    # with h9-aa's script there: the row named h9-bb_0 runs there and fails; the entry whose
    # label h9 may lead to either launcher does not surely fail, so is not named
    files = {**FILES, ".github/workflows/ma-tmpl.yml": model, "benchmarks/ma_fp8_h9_slurm.sh": ""}
    root = write_repo(tmp_path / "s", files)
    result = run_lint(root, "BL202")
    assert positions(result) == ["runners/launch_h9-bb.sh:1:6"]
    assert "for bmk-matrix [h9-bb_0] (called by ma-1k1k): their" in result.findings[0].message
    assert "bmk-h9-fp8" not in result.findings[0].message


def test_explain_says_why_a_call_reaches_no_launcher(tmp_path: Path) -> None:
    model = MODEL.replace("runner: h9\n", "runner: h9-trt\n")
    root = write_repo(tmp_path / "r", {**FILES, ".github/workflows/ma-tmpl.yml": model})
    outcome = CliRunner().invoke(
        main, ["explain", "bmk-h9-fp8 (called by ma-1k1k)", "--root", str(root)]
    )
    assert outcome.exit_code == 2
    assert outcome.stderr == (
        "benchlint: error: entry 'bmk-h9-fp8 (called by ma-1k1k)' reaches no launcher (no runners "
        "file lists its label's runners, and no launcher is named after it)\n"
    )


def test_explain_takes_a_calls_job_name(tmp_path: Path) -> None:
    """(t62a) `benchlint explain JOB` shows every call of that job (`bmk-h9-fp8 (called by
    ma-1k1k)`), as the warnings' advice has it; a name that only starts a job's is not one."""
    root = write_repo(tmp_path / "r", FILES)
    outcome = CliRunner().invoke(main, ["explain", "bmk-h9-fp8", "--root", str(root)])
    assert outcome.exit_code == 0
    assert outcome.output.count("bmk-h9-fp8 (called by ma-1k1k) [with]") == 2
    assert "runners/launch_h9-aa.sh" in outcome.output
    partial = CliRunner().invoke(main, ["explain", "bmk-h9", "--root", str(root)])
    assert partial.exit_code == 2


def test_a_call_github_rejects_before_any_job_starts_is_reported(tmp_path: Path) -> None:
    sweep = (
        SWEEP.replace("      isl: 1024\n", "      isl: 1024\n      use_h8: true\n")
        + "  mb-1k1k:\n    uses: ./.github/workflows/mb-tmpl.yml\n"
    )
    root = write_repo(tmp_path / "r", {**FILES, ".github/workflows/sweep.yml": sweep})
    result = run_lint(root, "BL202")
    found = [f for f in result.findings if f.location.path == ".github/workflows/sweep.yml"]
    assert [(f.location.span.line, f.location.span.column) for f in found] == [(13, 7), (16, 11)]
    assert found[0].message == (
        "`use_h8` is no input of `.github/workflows/ma-tmpl.yml` (it declares exp-name, isl, "
        "use_g7, use_h9): GitHub rejects .github/workflows/sweep.yml before any of its jobs "
        "starts, so every run of it fails"
    )
    assert found[1].message.startswith(
        "`./.github/workflows/mb-tmpl.yml` names no workflow of the repository: GitHub rejects"
    )
    # the near misses: every input declared, the workflow there
    root = write_repo(tmp_path / "s", FILES)
    assert [f for f in run_lint(root, "BL202").findings if "sweep" in f.location.path] == []
    # (h57 W4) a workflow only another starts, which none does yet: its runs will fail
    called = sweep.replace(
        "on:\n  schedule:\n    - cron: '0 0 * * *'\n  workflow_dispatch:\n    inputs:\n"
        "      use_g7: {type: boolean, default: false}\n",
        "on:\n  workflow_call:\n    inputs:\n      use_g7: {type: boolean, default: false}\n",
    )
    assert called != sweep
    root = write_repo(tmp_path / "t", {**FILES, ".github/workflows/sweep.yml": called})
    found = [f for f in run_lint(root, "BL202").findings if "sweep" in f.location.path]
    assert found[0].message.endswith(
        "GitHub rejects .github/workflows/sweep.yml before any of its jobs starts, so every run "
        "of it will fail: no workflow of the repository calls it yet"
    )
    caller = "on: push\njobs:\n  all:\n    uses: ./.github/workflows/sweep.yml\n"
    files = {**FILES, ".github/workflows/sweep.yml": called, ".github/workflows/ci.yml": caller}
    root = write_repo(tmp_path / "u", files)
    found = [f for f in run_lint(root, "BL202").findings if "sweep" in f.location.path]
    assert found[0].message.endswith("so every run of it fails")


def test_the_rows_of_a_matrix_of_mappings_are_told_apart_by_name(tmp_path: Path) -> None:
    model = MODEL.replace(
        "        runner: ${{ fromJson(vars.RUNNERS) }}\n",
        "        runner: [h9-aa_0]\n"
        "        config:\n"
        "          - {image: 'vllm/vllm-openai:v0.10.2', precision: fp8}\n"
        "          - {image: 'vllm/vllm-openai:v0.10.1', precision: fp4}\n",
    ).replace(
        "      image: 'vllm/vllm-openai:v0.10.2'\n      precision: fp8\n      exp-name: ma_test",
        "      image: ${{ matrix.config.image }}\n"
        "      precision: ${{ matrix.config.precision }}\n"
        "      exp-name: ma_test",
    )
    root = write_repo(tmp_path / "r", {**FILES, ".github/workflows/ma-tmpl.yml": model})
    calls = [c for c in workflow_calls(Workspace(root, Config())) if c.job.startswith("bmk-m")]
    assert [(c.job, c.inputs["image"], c.inputs["precision"]) for c in calls] == [
        ("bmk-matrix [h9-aa_0, config 1]", "vllm/vllm-openai:v0.10.2", "fp8"),
        ("bmk-matrix [h9-aa_0, config 2]", "vllm/vllm-openai:v0.10.1", "fp4"),
    ]


def test_explain_of_a_launcher_no_call_reaches(tmp_path: Path) -> None:
    files = {**FILES, "runners/launch_zz-qq.sh": "echo\n"}
    root = write_repo(tmp_path / "r", files)
    outcome = CliRunner().invoke(main, ["explain", "runners/launch_zz-qq.sh", "--root", str(root)])
    assert outcome.exit_code == 2
    assert outcome.stderr == (
        "benchlint: error: no workflow call reaches the launcher 'runners/launch_zz-qq.sh'\n"
    )


def test_a_call_that_leaves_out_a_required_input_is_reported(tmp_path: Path) -> None:
    # ma-tmpl requires exp-name and isl (no defaults); use_h9 and use_g7 have defaults
    sweep = SWEEP.replace("      isl: 1024\n", "")
    root = write_repo(tmp_path / "r", {**FILES, ".github/workflows/sweep.yml": sweep})
    found = [f for f in run_lint(root, "BL202").findings if "sweep" in f.location.path]
    assert [(f.location.span.line, f.location.span.column) for f in found] == [(9, 11)]
    assert found[0].message.startswith(
        "`.github/workflows/ma-tmpl.yml` requires `isl`, which the job does not pass: GitHub "
        "rejects .github/workflows/sweep.yml before any of its jobs starts"
    )
    # a required input with a default, and an optional one, may be left out
    model = MODEL.replace(
        "isl: {type: string, required: true}", "isl: {type: string, required: true, default: '1'}"
    )
    files = {**FILES, ".github/workflows/sweep.yml": sweep, ".github/workflows/ma-tmpl.yml": model}
    root = write_repo(tmp_path / "s", files)
    assert [f for f in run_lint(root, "BL202").findings if "sweep" in f.location.path] == []


def test_set_options_leave_the_positional_parameters(tmp_path: Path) -> None:
    launcher = "set -euo pipefail\nset -x\n" + ARG_LAUNCHER
    root = _positional_repo(tmp_path / "r", "", launcher)
    assert positions(run_lint(root, "BL202")) == [
        "runners/launch_h9-aa.sh:4:6",
        "runners/launch_h9-bb.sh:4:6",
    ]


def test_a_launcher_that_starts_the_engine_itself_is_followed(tmp_path: Path) -> None:
    """InferenceX's first layout: root launchers that run the job inline. One that starts the
    engine itself is what the job runs (BL303 checks it against the entry's image): not said as
    unfollowed. An entry whose launchers start nothing benchlint can follow is said, with every
    launcher it reaches, and counted once; one whose label's other launcher is followed is said
    with the launcher that is not (its jobs there are not checked)."""
    template = (
        "name: bench\non:\n  workflow_call:\n    inputs:\n      runner:\n        type: string\n"
        "      image:\n        type: string\nenv:\n  IMAGE: ${{ inputs.image }}\njobs:\n  run:\n"
        "    runs-on: ${{ inputs.runner }}\n    steps:\n      - uses: actions/checkout@v4\n"
        "      - run: |\n          RUNNER_NAME=${{ runner.name }}\n"
        "          bash ./launch_${RUNNER_NAME%%_*}.sh\n"
    )
    sweep = "name: sweep\non:\n  workflow_dispatch:\njobs:\n" + "".join(
        f"  bmk-{label}:\n    uses: ./.github/workflows/bench-tmpl.yml\n    with:\n"
        f"      runner: {label}\n      image: 'lmsysorg/sglang:v0.4.9-cu126'\n"
        for label in ("h200", "b200", "h100")
    )
    serve = "#!/usr/bin/env bash\npython3 -m sglang.launch_server --model-path m --port 8888\n"
    other = '#!/usr/bin/env bash\nbash "$SOMEWHERE/bench.sh"\n'
    root = write_repo(
        tmp_path / "r",
        {
            ".github/workflows/bench-tmpl.yml": template,
            ".github/workflows/sweep.yml": sweep,
            "launch_h200-xy.sh": serve,
            "launch_h200-ab.sh": serve,
            "launch_b200-nv.sh": other,
            "launch_b200-tg.sh": other,
            "launch_h100-ab.sh": serve,
            "launch_h100-cd.sh": other,
        },
    )

    def named_h100(site: str) -> list[str]:
        return run_lint(root, named=[root / f"launch_h100-{site}.sh"]).warnings()

    result = run_lint(root)
    said = [w for w in result.warnings() if "no script or recipe benchlint can follow" in w]
    assert said == [
        "2 entries (bmk-b200, bmk-h100) reach launchers (launch_b200-nv.sh, launch_b200-tg.sh, "
        "launch_h100-cd.sh) that run no script or recipe benchlint can follow for them: what "
        "their jobs run was not checked against them (`benchlint explain ENTRY` shows the "
        "launcher's calls)"
    ]
    # naming one of those launchers says it of that launcher; naming another says nothing
    named = run_lint(root, named=[root / "launch_b200-tg.sh"]).warnings()
    assert any("(bmk-b200) reaches a launcher (launch_b200-tg.sh)" in w for w in named)
    other = run_lint(root, named=[root / "launch_h200-xy.sh"]).warnings()
    assert not any("can follow" in w for w in other)
    # bmk-h100's jobs on h100-ab are checked, those on h100-cd are not: that launcher is said,
    # in the whole run and when it is named, and the other is not
    assert any("(bmk-h100) reaches a launcher (launch_h100-cd.sh)" in w for w in named_h100("cd"))
    assert not any("can follow" in w for w in named_h100("ab"))


def test_entries_whose_recipes_are_not_this_repositorys_are_said(tmp_path: Path) -> None:
    """An entry whose CONFIG_FILE names a recipe of the srt-slurm checkout the launcher clones
    (no copy of this repository's reaches it), and one whose CONFIG_FILE cannot be told (an
    absolute path): their recipes were not checked, and the run says so. An entry whose recipe
    is this repository's is not named; one whose recipe this repository has under its recipe
    root, though the launcher does not copy it there, is said so (its edits do not reach the
    job)."""

    def entry(name: str, config: str) -> str:
        return (
            f"{name}:\n  image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.7.0\n"
            "  model: m\n  model-prefix: m\n  runner: gb200\n  precision: fp4\n"
            "  framework: dynamo-trt\n  multinode: true\n  disagg: true\n  scenarios:\n"
            "    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n      search-space:\n"
            "      - prefill:\n          num-worker: 1\n          tp: 4\n"
            f'          additional-settings:\n          - "CONFIG_FILE={config}"\n'
            "        decode:\n          num-worker: 1\n          tp: 4\n"
        )

    launcher = (
        "#!/usr/bin/bash\ngit clone https://example.invalid/srt-slurm.git srt-slurm\n"
        "cp -rT benchmarks/recipes/ours srt-slurm/recipes/ours\ncd srt-slurm || exit 1\n"
        'srtctl apply -f "$CONFIG_FILE"\n'
    )
    root = write_repo(
        tmp_path / "r",
        {
            "configs/nvidia-master.yaml": (
                entry("up-trt", "recipes/trtllm/gb200-fp4/1k1k/ctx1_gen1.yaml")
                + entry("abs-trt", "/opt/recipes/x.yaml")
                + entry("ours-trt", "recipes/ours/x.yaml")
                + entry("mirror-trt", "recipes/theirs/y.yaml")
            ),
            "configs/runners.yaml": "labels:\n  gb200:\n    - gb200-nv_0\n",
            "runners/launch_gb200-nv.sh": launcher,
            "benchmarks/recipes/ours/x.yaml": "name: x\n",
            # this repository's recipe at that path (InferenceX's mirror of srt-slurm's
            # recipes), which the launcher does not copy
            "benchmarks/multi_node/srt-slurm-recipes/theirs/y.yaml": "name: y\n",
        },
    )
    warnings = run_lint(root).warnings()
    assert (
        "1 entry (mirror-trt) runs a recipe of the srt-slurm checkout the launcher clones, though "
        "this repository has one at that path (under a recipe root) that its launcher does not "
        "copy: this repository's file is not what its jobs run, and srt-slurm's was not checked "
        "(`benchlint explain ENTRY` shows the route)"
    ) in warnings
    explained = CliRunner().invoke(main, ["explain", "--root", str(root), "mirror-trt"]).output
    assert (
        "-> not in this repository (upstream; this repository's "
        "benchmarks/multi_node/srt-slurm-recipes/theirs/y.yaml is not copied there)"
    ) in explained
    assert (
        "1 entry (up-trt) runs a recipe of the srt-slurm checkout the launcher clones, not this "
        "repository's: its values were not checked (`benchlint explain ENTRY` shows the route)"
    ) in warnings
    assert (
        "1 entry (abs-trt) names a recipe (CONFIG_FILE) whose file cannot be told: it was not "
        "checked (`benchlint explain ENTRY` shows the route)"
    ) in warnings
    assert not any("ours-trt" in w for w in warnings)
    # a run naming the recipe this repository has at the path, which is not copied, says it
    mirror = "benchmarks/multi_node/srt-slurm-recipes/theirs/y.yaml"
    assert any(
        "1 entry (mirror-trt) runs a recipe" in w
        for w in run_lint(root, named=[root / mirror]).warnings()
    )
    # a run that names the master config, or the launcher, says it too (pre-commit)
    for named in ("configs/nvidia-master.yaml", "runners/launch_gb200-nv.sh"):
        assert any(
            "1 entry (up-trt) runs a recipe" in w
            for w in run_lint(root, named=[root / named]).warnings()
        )


def test_an_entry_whose_launcher_exits_before_the_copy_runs_no_upstream_recipe(
    tmp_path: Path,
) -> None:
    """The launcher copies this repository's recipes into the checkout only after an `exit 1`
    that surely runs for the fp8 entry: that job reaches no recipe (BL202 says why), so it is
    not said to run srt-slurm's own; the fp4 entry reaches the copy, and the one whose file
    the copy lacks is upstream."""

    def entry(name: str, precision: str, config: str) -> str:
        return (
            f"{name}:\n  image: lmsysorg/sglang:v0.5.9\n  model: org/m1\n  model-prefix: m1\n"
            f"  runner: gb300\n  precision: {precision}\n  framework: dynamo-sglang\n"
            "  multinode: true\n  disagg: true\n  scenarios:\n    fixed-seq-len:\n"
            "    - isl: 1024\n      osl: 1024\n      search-space:\n      - prefill:\n"
            "          num-worker: 1\n          tp: 4\n          additional-settings:\n"
            f'          - "CONFIG_FILE={config}"\n'
            "        decode:\n          num-worker: 1\n          tp: 4\n"
        )

    launcher = (
        "#!/usr/bin/bash\n"
        'if [[ $MODEL_PREFIX == "m1" && $PRECISION == "fp4" ]]; then\n'
        "    export MODEL_PATH=/models/m1\nelse\n    exit 1\nfi\n"
        "git clone https://example.invalid/srt-slurm.git srt-slurm\ncd srt-slurm || exit 1\n"
        'cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/m1" '
        "recipes/sglang/m1\n"
        'srtctl apply -f "$CONFIG_FILE"\n'
    )
    recipe = "name: one\nmodel:\n  path: m1\n  container: lmsysorg/sglang:v0.5.9\n"
    root = write_repo(
        tmp_path / "r",
        {
            "configs/nvidia-master.yaml": (
                entry("m1-fp8", "fp8", "recipes/sglang/m1/one.yaml")
                + entry("m1-fp4", "fp4", "recipes/sglang/m1/one.yaml")
                + entry("m1-fp4-up", "fp4", "recipes/sglang/other/two.yaml")
            ),
            "configs/runners.yaml": "labels:\n  gb300:\n    - gb300-nv_0\n",
            "runners/launch_gb300-nv.sh": launcher,
            "benchmarks/multi_node/srt-slurm-recipes/sglang/m1/one.yaml": recipe,
        },
    )
    result = run_lint(root)
    assert [w for w in result.warnings() if "srt-slurm checkout" in w] == [
        "1 entry (m1-fp4-up) runs a recipe of the srt-slurm checkout the launcher clones, not "
        "this repository's: its values were not checked (`benchlint explain ENTRY` shows the "
        "route)"
    ]
    assert positions(result, "BL202") == ["runners/launch_gb300-nv.sh:5:5"]
    outcome = CliRunner().invoke(main, ["explain", "--root", str(root), "m1-fp8"])
    assert "  ends at line 5 (exit 1) for this element: nothing after it runs" in outcome.output
    assert (
        "  CONFIG_FILE=recipes/sglang/m1/one.yaml -> not reached: the launcher ends before its "
        "copies of recipes, and before srtctl"
    ) in outcome.output
    outcome = CliRunner().invoke(main, ["explain", "--root", str(root), "m1-fp4"])
    assert "ends at" not in outcome.output


def test_a_route_handed_over_by_exec_is_said_when_either_script_is_named(tmp_path: Path) -> None:
    """The runners launcher `exec`s the script that clones srt-slurm: the route goes through
    both, and a run naming either says what the whole run says of its entry (pre-commit)."""
    entry = (
        "up-trt:\n  image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.7.0\n  model: m\n"
        "  model-prefix: m\n  runner: gb200\n  precision: fp4\n  framework: dynamo-trt\n"
        "  multinode: true\n  disagg: true\n  scenarios:\n    fixed-seq-len:\n"
        "    - isl: 1024\n      osl: 1024\n      search-space:\n      - prefill:\n"
        "          num-worker: 1\n          tp: 4\n          additional-settings:\n"
        '          - "CONFIG_FILE=recipes/trtllm/gb200-fp4/1k1k/ctx1_gen1.yaml"\n'
        "        decode:\n          num-worker: 1\n          tp: 4\n"
    )
    files = {
        "configs/nvidia-master.yaml": entry,
        "configs/runners.yaml": "labels:\n  gb200:\n    - gb200-nv_0\n",
        "runners/launch_gb200-nv.sh": (
            "#!/usr/bin/bash\nset -e\nexec bash benchmarks/multi_node/srt_submit.sh\n"
        ),
        "benchmarks/multi_node/srt_submit.sh": (
            "#!/usr/bin/bash\ngit clone https://example.invalid/srt-slurm.git srt-slurm\n"
            'cd srt-slurm || exit 1\nsrtctl apply -f "$CONFIG_FILE"\n'
        ),
        "benchmarks/multi_node/other.sh": "#!/usr/bin/bash\necho other\n",
    }
    root = write_repo(tmp_path / "r", files)
    said = "1 entry (up-trt) runs a recipe of the srt-slurm checkout the launcher clones"
    assert any(said in w for w in run_lint(root).warnings())
    for named in ("runners/launch_gb200-nv.sh", "benchmarks/multi_node/srt_submit.sh"):
        assert any(said in w for w in run_lint(root, named=[root / named]).warnings()), named
        # and where no selected rule reads routes (a hook's `--select`), as a whole run with it
        selected = run_lint(root, "BL203", named=[root / named]).warnings()
        assert any(said in w for w in selected), named
    assert any(said in w for w in run_lint(root, "BL203").warnings())
    # a script the route does not go through says nothing of it
    other = run_lint(root, named=[root / "benchmarks/multi_node/other.sh"]).warnings()
    assert not any("up-trt" in w for w in other)
    # explaining the script the route is handed over to shows the route
    explained = CliRunner().invoke(
        main, ["explain", "--root", str(root), "benchmarks/multi_node/srt_submit.sh"]
    )
    assert explained.exit_code == 0, explained.output
    assert (
        "runners/launch_gb200-nv.sh, which hands over (line 3) to "
        "benchmarks/multi_node/srt_submit.sh"
    ) in explained.output
    # a script between two hand-overs is explained by the route too
    files["benchmarks/multi_node/middle.sh"] = (
        "#!/usr/bin/bash\nexport X=1\nexec bash benchmarks/multi_node/srt_submit.sh\n"
    )
    files["runners/launch_gb200-nv.sh"] = (
        "#!/usr/bin/bash\nset -e\nexec bash benchmarks/multi_node/middle.sh\n"
    )
    twice = write_repo(tmp_path / "twice", files)
    explained = CliRunner().invoke(
        main, ["explain", "--root", str(twice), "benchmarks/multi_node/middle.sh"]
    )
    assert explained.exit_code == 0, explained.output
    assert "which hands over (line 3) to benchmarks/multi_node/srt_submit.sh" in explained.output
    # the path the launcher execs, built from the entry's values: the same
    files["runners/launch_gb200-nv.sh"] = (
        '#!/usr/bin/bash\nset -e\nexec bash "benchmarks/multi_node/${MODEL_PREFIX}_submit.sh"\n'
    )
    files["benchmarks/multi_node/m_submit.sh"] = files.pop("benchmarks/multi_node/srt_submit.sh")
    root = write_repo(tmp_path / "built", files)
    for named in ("runners/launch_gb200-nv.sh", "benchmarks/multi_node/m_submit.sh"):
        assert any(said in w for w in run_lint(root, named=[root / named]).warnings()), named


def test_a_workflow_outside_the_routed_ones_that_runs_a_launcher_is_said(tmp_path: Path) -> None:
    """A dispatch workflow that runs the launcher itself (a GPU test, a profiling run): no
    entry's route goes through it, and the run says so, at its launch line. The template the
    entries run through is not named."""
    template = (
        "name: bench\non:\n  workflow_call:\n    inputs:\n      runner:\n        type: string\n"
        "jobs:\n  run:\n    runs-on: ${{ inputs.runner }}\n    steps:\n"
        "      - run: |\n          bash ./runners/launch_${RUNNER_NAME%%_*}.sh\n"
    )
    dispatch = (
        "name: gpu test\non:\n  workflow_dispatch:\n    inputs:\n      runner:\n"
        "        type: choice\n        options: [h200]\njobs:\n  sweep:\n"
        "    runs-on: ${{ inputs.runner }}\n    steps:\n      - uses: actions/checkout@v4\n"
        "      - run: |\n          RUNNER_NAME=${{ runner.name }}\n"
        "          bash ./runners/launch_${RUNNER_NAME%%_*}.sh\n"
    )
    # (a step that only prints the launcher's path runs none)
    debug = (
        "name: debug\non:\n  workflow_dispatch:\njobs:\n  d:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - run: |\n"
        '          echo "Script filepath: ./runners/launch_${RUNNER_NAME%%_*}.sh"\n'
        # (one that tests the path, then runs it, does run it)
        "      - run: test -f ./runners/launch_h200-cw.sh && bash ./runners/launch_h200-cw.sh\n"
    )
    # (h27, InferenceX e0e8bfddf's collectivex-sweep.yml) a `launch_*.sh` path a matrix value
    # names, in another folder, runs a launcher too; one that only prints it does not
    matrix = (
        "on: workflow_dispatch\njobs:\n  cell:\n    strategy:\n      matrix:\n"
        "        include:\n          - {launcher: gb-nv, runner: gb200}\n"
        "    runs-on: ${{ matrix.runner }}\n    steps:\n      - uses: actions/checkout@v4\n"
        '      - run: echo "tools/launch_${{ matrix.launcher }}.sh"\n'
        "      - run: chmod +x tools/launch_${{ matrix.launcher }}.sh\n"
        '      - run: bash "tools/launch_${{ matrix.launcher }}.sh"\n'
    )
    root = write_repo(
        tmp_path / "r",
        {
            ".github/workflows/benchmark-tmpl.yml": template,
            ".github/workflows/gpu-test.yml": dispatch,
            ".github/workflows/debug.yml": debug,
            ".github/workflows/matrix.yml": matrix,
            "tools/launch_gb-nv.sh": "#!/usr/bin/bash\necho run\n",
            ".github/workflows/sweep.yml": (
                "on: workflow_dispatch\njobs:\n  bmk-h200:\n"
                "    uses: ./.github/workflows/benchmark-tmpl.yml\n    with:\n      runner: h200\n"
            ),
            "runners/launch_h200-cw.sh": "#!/usr/bin/bash\necho run\n",
        },
    )
    said = [w for w in run_lint(root).warnings() if "outside those benchlint routes" in w]
    assert said == [
        "3 workflow steps (.github/workflows/debug.yml:10, .github/workflows/gpu-test.yml:15, "
        ".github/workflows/matrix.yml:13) run a launcher in a workflow outside those benchlint "
        "routes entries through (the layout's `workflows`): what those jobs run was not checked "
        "(`benchlint layout` shows the workflows)"
    ]
    # a run that names that workflow says it too; one that names the template does not
    named = run_lint(root, named=[root / ".github/workflows/gpu-test.yml"]).warnings()
    assert [w for w in named if "outside those benchlint routes" in w] == [
        "1 workflow step (.github/workflows/gpu-test.yml:15) runs a launcher in a workflow outside "
        "those benchlint routes entries through (the layout's `workflows`): what those jobs run "
        "was not checked (`benchlint layout` shows the workflows)"
    ]
    template = run_lint(root, named=[root / ".github/workflows/benchmark-tmpl.yml"])
    assert not any("outside those benchlint routes" in w for w in template.warnings())


def test_a_finding_over_several_routes_reads_the_same_whichever_file_is_named(
    tmp_path: Path,
) -> None:
    """A setup_script two launchers copy nothing of, for entries of two master configs: the
    finding's message, related places and notes are the same in the whole run and in a run
    that names either master config or either launcher (pre-commit), in the order of the
    files, not of the routes the run built first."""
    entry = (
        "{name}:\n  runner: {runner}\n  scenarios:\n    fixed-seq-len:\n    - search-space:\n"
        '      - prefill: {{additional-settings: ["CONFIG_FILE=recipes/sglang/m1/disagg.yaml"]}}\n'
    )
    copy = 'cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang" '
    root = write_repo(
        tmp_path / "r",
        {
            "configs/amd-master.yaml": entry.format(name="m1-b300", runner="b300"),
            "configs/nvidia-master.yaml": entry.format(name="m1-gb200-0", runner="gb200")
            + entry.format(name="m1-gb200-1", runner="gb200"),
            "configs/runners.yaml": "labels:\n  b300: [b300-nv_0]\n  gb200: [gb200-nv_0]\n",
            "runners/launch_b300-nv.sh": copy + 'recipes/sglang\nsrtctl apply -f "$CONFIG_FILE"\n',
            "runners/launch_gb200-nv.sh": (
                "echo staging\n" + copy + 'recipes/sglang\nsrtctl apply -f "$CONFIG_FILE"\n'
            ),
            "benchmarks/multi_node/srt-slurm-recipes/configs/prep.sh": "echo prep\n",
            "benchmarks/multi_node/srt-slurm-recipes/sglang/m1/disagg.yaml": (
                "name: m1\nsetup_script: prep.sh\n"
            ),
        },
    )

    def said(*named: str) -> list[tuple[str, list[str], tuple[str, ...]]]:
        result = run_lint(root, "BL202", named=[root / n for n in named] or None)
        return [
            (f.message, [f"{r.path}:{r.span.line}" for r in f.related], f.notes)
            for f in result.findings
        ]

    whole = said()
    assert [message for message, _, _ in whole] == [
        "setup_script prep.sh is this repository's benchmarks/multi_node/srt-slurm-recipes/"
        "configs/prep.sh, which runners/launch_b300-nv.sh, runners/launch_gb200-nv.sh copy "
        "nothing of into srtctl's configs/ for m1-b300, m1-gb200-0 and 1 more: srtctl prints a "
        "warning and starts the workers without it (unless the srt-slurm release it checks out "
        "has its own)"
    ]
    for named in (
        "configs/amd-master.yaml",
        "configs/nvidia-master.yaml",
        "runners/launch_gb200-nv.sh",
        "runners/launch_b300-nv.sh",
    ):
        assert said(named) == whole, named


def test_an_entry_whose_launcher_runs_no_srtctl_runs_no_recipe(tmp_path: Path) -> None:
    """An entry with a CONFIG_FILE whose launcher neither runs srtctl nor hands over to a
    script that does (it `exec`s a script named at run time): no recipe runs, from this
    repository or srt-slurm's checkout; the run says the launcher runs nothing benchlint can
    follow for it. Near miss: srtctl in a library the launcher sources."""
    entry = (
        "toy:\n  runner: b200\n  multinode: true\n  scenarios:\n    fixed-seq-len:\n"
        "    - search-space:\n"
        '      - prefill: {additional-settings: ["CONFIG_FILE=recipes/vllm/toy/disagg.yaml"]}\n'
    )
    files = {
        "configs/nvidia-master.yaml": entry,
        "configs/runners.yaml": "labels:\n  b200: [b200-edge_0]\n",
        "runners/launch_b200-edge.sh": '#!/usr/bin/bash\nexec bash "$NEXT_LAUNCHER" "$@"\n',
        "benchmarks/multi_node/srt-slurm-recipes/vllm/toy/disagg.yaml": "name: toy\n",
    }
    root = write_repo(tmp_path / "r", files)
    warnings = run_lint(root).warnings()
    assert not any("srt-slurm checkout" in w for w in warnings), warnings
    assert any(
        "1 entry (toy) reaches a launcher (runners/launch_b200-edge.sh) that runs no script or "
        "recipe benchlint can follow" in w
        for w in warnings
    ), warnings
    files["runners/launch_b200-edge.sh"] = (
        "#!/usr/bin/bash\nsource runners/utils.sh\ngit clone https://example.invalid/srt.git s\n"
        'cd s || exit 1\nsubmit "$CONFIG_FILE"\n'
    )
    files["runners/utils.sh"] = 'submit() {\n  srtctl apply -f "$1"\n}\n'
    root = write_repo(tmp_path / "sourced", files)
    warnings = run_lint(root).warnings()
    assert any("1 entry (toy)" in w and "srt-slurm checkout" in w for w in warnings), warnings


def test_a_finding_over_many_entries_names_one_of_each_master_config(tmp_path: Path) -> None:
    """Three entries of one master config and one of another run the recipe: naming the other
    master config alone (pre-commit) still reports the setup_script finding (its entry is a
    related place, beside the first three in file order)."""
    entry = (
        "{name}:\n  runner: gb200\n  scenarios:\n    fixed-seq-len:\n    - search-space:\n"
        '      - prefill: {{additional-settings: ["CONFIG_FILE=recipes/sglang/m1/disagg.yaml"]}}\n'
    )
    copy = 'cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang" '
    root = write_repo(
        tmp_path / "r",
        {
            "configs/alpha-master.yaml": "".join(entry.format(name=f"a{i}") for i in range(3)),
            "configs/zeta-master.yaml": entry.format(name="z0"),
            "configs/runners.yaml": "labels:\n  gb200: [gb200-nv_0]\n",
            "runners/launch_gb200-nv.sh": copy + 'recipes/sglang\nsrtctl apply -f "$CONFIG_FILE"\n',
            "benchmarks/multi_node/srt-slurm-recipes/configs/prep.sh": "echo prep\n",
            "benchmarks/multi_node/srt-slurm-recipes/sglang/m1/disagg.yaml": (
                "name: m1\nsetup_script: prep.sh\n"
            ),
        },
    )
    whole = run_lint(root, "BL202").findings
    assert [(r.path, r.span.line) for r in whole[0].related] == [
        ("runners/launch_gb200-nv.sh", 1),
        ("configs/alpha-master.yaml", 1),
        ("configs/alpha-master.yaml", 7),
        ("configs/zeta-master.yaml", 1),
    ]
    named = run_lint(root, "BL202", named=[root / "configs/zeta-master.yaml"]).findings
    assert [f.message for f in named] == [f.message for f in whole]


def test_calls_with_a_known_runner_beside_master_configs_are_entries(tmp_path: Path) -> None:
    """Beside master configs (InferenceX in late 2025: a scheduler calls the multinode workflow
    for gb200 with `runner: gb200` and inputs of its own), a call whose runner is known is an
    entry too, routed with what it passes; a call whose runner is the sweep's matrix value
    (the master configs' entries) is neither an entry nor said unrouted."""
    master = (
        "ma-h9:\n  image: img\n  model-prefix: ma\n  precision: fp8\n  framework: vllm\n"
        "  runner: h9\n  scenarios:\n    fixed-seq-len:\n"
        "    - {isl: 1, osl: 1, search-space: [{tp: 8}]}\n"
    )
    files = {
        **FILES,
        "configs/nvidia-master.yaml": master,
        "benchmarks/ma_fp8_h9_slurm.sh": "echo bench\n",
        "benchmarks/ma_fp8_h9_docker.sh": "echo bench\n",
    }
    root = write_repo(tmp_path / "r", files)
    outcome = CliRunner().invoke(main, ["--select", "BL202", "--format", "concise", str(root)])
    # (bmk-g7-fp4 never runs for ma-1k1k, its isl being 1024, so g7-cc's launcher is reached
    # by no entry; bmk-matrix's runner is not known: not said, the sweep's)
    assert (outcome.exit_code, outcome.stdout) == (0, "")
    assert outcome.stderr == (
        "benchlint: warning: 1 launcher (runners/launch_g7-cc.sh) that no entry reaches: linted "
        "as a script alone, not with the values of an entry (benchlint routes no master-config "
        "entry or workflow call to it: `benchlint layout` shows what was detected)\n"
    )
    files[".github/workflows/sweep.yml"] = SWEEP.replace("${{ inputs.use_g7 }}", "true").replace(
        "isl: 1024", "isl: 8192"
    )
    root = write_repo(tmp_path / "s", files)
    result = run_lint(root, "BL202")
    assert positions(result) == ["runners/launch_g7-cc.sh:1:6"]
    assert "for bmk-g7-fp4 (called by ma-1k1k)" in result.findings[0].message


def test_calls_beside_master_configs_are_read_again_when_a_workflow_changes(
    tmp_path: Path,
) -> None:
    """A run that found no call entry beside master configs keeps that with the workflows'
    contents: the next run skips parsing them while they are unchanged, and reads them again
    when one changes (a call with a runner written out, added)."""
    master = (
        "ma-h9:\n  image: img\n  model-prefix: ma\n  precision: fp8\n  framework: vllm\n"
        "  runner: h9\n  scenarios:\n    fixed-seq-len:\n"
        "    - {isl: 1, osl: 1, search-space: [{tp: 8}]}\n"
    )
    files = {
        ".github/workflows/benchmark-tmpl.yml": BENCHMARK,
        "runners/launch_h9-aa.sh": LAUNCHER.replace("SUFFIX", "h9_slurm"),
        "runners/launch_g7-cc.sh": LAUNCHER.replace("SUFFIX", "g7_docker"),
        "configs/nvidia-master.yaml": master,
        "benchmarks/ma_fp8_h9_slurm.sh": "echo bench\n",
    }
    root = write_repo(tmp_path / "r", files)
    args = ["--select", "BL202", "--format", "concise", str(root)]
    first = CliRunner().invoke(main, args)
    assert (first.exit_code, first.stdout) == (0, "")
    kept = sorted(Path(os.environ["BENCHLINT_CACHE_DIR"]).rglob("no-call-entries-*"))
    assert len(kept) == 1
    sweep = SWEEP.replace("${{ inputs.use_g7 }}", "true").replace("isl: 1024", "isl: 8192")
    for name, text in (
        (".github/workflows/ma-tmpl.yml", MODEL),
        (".github/workflows/sweep.yml", sweep),
    ):
        (root / name).write_text(text)
    second = CliRunner().invoke(main, args)
    assert second.exit_code == 1
    assert second.stdout.startswith(f"{root}/runners/launch_g7-cc.sh:1:6: error:")
    assert sorted(Path(os.environ["BENCHLINT_CACHE_DIR"]).rglob("no-call-entries-*")) == kept


def test_a_label_taken_for_its_runners_name_prefix_is_said(tmp_path: Path) -> None:
    """(t66a) No runners file, and no launcher serves runners named `<label>-<site>_<n>`
    (`launch_${RUNNER_NAME%%_*}-nv.sh` with `launch_h9-nv.sh` only: runners `h9-nv_0` would run
    `launch_h9-nv-nv.sh`): the call is routed by taking the label for the runners' name prefix
    (`h9_<n>`), and the run says so, with the label, as a guess (it was silent: the route read
    as sure; InferenceX accd2da45, fixed upstream 28 minutes later)."""
    files = {
        **{k: v for k, v in FILES.items() if not k.startswith("runners/")},
        ".github/workflows/benchmark-tmpl.yml": BENCHMARK.replace(
            "launch_${RUNNER_NAME%%_*}.sh", "launch_${RUNNER_NAME%%_*}-nv.sh"
        ),
        "runners/launch_h9-nv.sh": LAUNCHER.replace("SUFFIX", "h9_slurm"),
    }
    assert "-nv.sh" in files[".github/workflows/benchmark-tmpl.yml"]
    root = write_repo(tmp_path / "r", files)
    outcome = CliRunner().invoke(main, ["--select", "BL202", str(root)])
    assert (
        "benchlint: warning: 1 workflow call with the runner label h9 routed by taking the label "
        "for its runners' name prefix (runners named `<label>_<n>`)"
    ) in outcome.stderr


def test_a_relative_path_after_a_cd_is_from_that_folder_only_where_the_shell_surely_is_there(
    tmp_path: Path,
) -> None:
    """(t81b, t83a) `bash ./x.sh` after the top level's `cd` to a folder of the checkout runs
    that folder's x.sh; not after a `cd` in a subshell, a loop, a background group, a condition,
    a function (or one calling it), a sourced file that changes folders or one whose function
    that does is called: there the shell's folder is not known, and
    the path is read as before (from the root, or the script's folder: none here)."""
    from benchlint.calls import call_graph

    head = '#!/bin/bash\ncd "$GITHUB_WORKSPACE/b/utils" || exit 1\n'
    bodies = {
        "plain": "J=$(bash ./x.sh)\n",
        "subshell": "( cd ../other && true )\nbash ./x.sh\n",
        "loop": 'for d in $D; do cd "$GITHUB_WORKSPACE/b/other"; done\nbash ./x.sh\n',
        "group": '{ cd "$GITHUB_WORKSPACE/b/other"; sleep 1; } &\nbash ./x.sh\n',
        "condition": '[ -n "$O" ] && cd "$GITHUB_WORKSPACE/b/other"\nbash ./x.sh\n',
        "function": 'i() { cd "$GITHUB_WORKSPACE/b/other"; }\no() { i; }\no\nbash ./x.sh\n',
        "source": "source ./env.sh\nbash ./x.sh\n",
        "library": 'source "$GITHUB_WORKSPACE/b/lib.sh"\nbash ./x.sh\n',
        "moving_library": 'source "$GITHUB_WORKSPACE/b/cd_lib.sh"\nbash ./x.sh\n',
        "library_function": 'source "$GITHUB_WORKSPACE/b/fn_lib.sh"\ngo\nbash ./x.sh\n',
    }
    files = {f"b/{name}.sh": head + body for name, body in bodies.items()}
    files["b/utils/x.sh"] = "#!/bin/bash\ntrue\n"
    files["b/lib.sh"] = "helper() { echo hi; }\nMODEL=m\n"
    files["b/cd_lib.sh"] = 'cd "$GITHUB_WORKSPACE/b/other"\n'
    files["b/fn_lib.sh"] = 'go() { cd "$GITHUB_WORKSPACE/b/other"; }\n'
    root = write_repo(tmp_path / "r", files)
    ws = Workspace(root, Config(), None)
    graph = call_graph(ws)
    targets = {}
    for name in bodies:
        script = ws.shell(f"b/{name}.sh")
        assert script is not None
        targets[name] = [c.targets for c in graph.calls_in(script) if "x.sh" in c.word.value]
    resolved = ("plain", "library")  # (a sourced file that changes no folder: t83a)
    assert targets == {
        **{name: [("b/utils/x.sh",)] for name in resolved},
        **{name: [()] for name in bodies if name not in resolved},
    }


FRAMEWORK_TMPL = """\
on:
  workflow_call:
    inputs:
      runner: {type: string, required: true}
      framework: {type: string, required: true}
env:
  FRAMEWORK: ${{ inputs.framework }}
jobs:
  benchmark:
    runs-on: ${{ inputs.runner }}
    steps:
      - name: Launch
        run: |
          RUNNER_NAME=${{ runner.name }}
          if [ -f "./runners/launch_${RUNNER_NAME%%_*}-${{ env.FRAMEWORK }}.sh" ]; then
            bash ./runners/launch_${RUNNER_NAME%%_*}-${{ env.FRAMEWORK }}.sh
          else
            bash ./runners/launch_${RUNNER_NAME%%_*}-nv.sh
          fi
"""

FRAMEWORK_CALLS = """\
on: workflow_dispatch
jobs:
  bmk-trt:
    uses: ./.github/workflows/benchmark-tmpl.yml
    with: {runner: b200, framework: trt}
  bmk-sglang:
    uses: ./.github/workflows/benchmark-tmpl.yml
    with: {runner: b200, framework: sglang}
"""


def test_a_launch_path_from_an_env_expression_with_a_fallback_is_each_calls(
    tmp_path: Path,
) -> None:
    """(h27, InferenceX b6939da25's benchmark-tmpl.yml) `launch_${RUNNER_NAME%%_*}-${{
    env.FRAMEWORK }}.sh` where it exists, else `launch_${RUNNER_NAME%%_*}-nv.sh`: the
    expression is the step's FRAMEWORK, which the call's input gives; each call runs the first
    launcher of the two that exists (the trt call its own, the sglang call the fallback)."""
    files = {
        ".github/workflows/benchmark-tmpl.yml": FRAMEWORK_TMPL,
        ".github/workflows/sched.yml": FRAMEWORK_CALLS,
        "runners/launch_b200-nv.sh": "echo nv\n",
        "runners/launch_b200-trt.sh": 'export PORT="$PORT"\n',
    }
    root = write_repo(tmp_path / "r", files)
    ws = Workspace(root, Config())
    from benchlint.context import wiring_of

    wiring = wiring_of(ws)
    assert sorted((e.name, path) for e, path, _ in wiring.pairs) == [
        ("bmk-sglang", "runners/launch_b200-nv.sh"),
        ("bmk-trt", "runners/launch_b200-trt.sh"),
    ]
    assert positions(run_lint(root, "BL101")) == ["runners/launch_b200-trt.sh:1:8"]
    outcome = CliRunner().invoke(main, ["layout", str(root)])
    assert outcome.stdout.splitlines()[:2] == [
        "launchers runners/launch_*-*.sh: run as runners/launch_${RUNNER_NAME%%_*}-${FRAMEWORK}.sh"
        " from .github/workflows/benchmark-tmpl.yml:15 and 1 more",
        "launchers runners/launch_*-nv.sh: run as runners/launch_${RUNNER_NAME%%_*}-nv.sh from "
        ".github/workflows/benchmark-tmpl.yml:18",
    ]


def test_a_master_configs_entry_gives_the_launch_path_its_fields_values(tmp_path: Path) -> None:
    """(h30) with master-config entries, `${{ env.FRAMEWORK }}` in the launch path is the
    entry's `framework:`; a value no file is named after falls back to the next template, not
    to the first launcher a glob of the path would match (launch_b200-atom.sh)."""
    entry = (
        "e-{fw}:\n  image: img\n  model: m\n  model-prefix: m\n  runner: b200\n  precision: fp8\n"
        "  framework: {fw}\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n"
        "    - isl: 1024\n      osl: 1024\n      search-space:\n      - {{tp: 8}}\n"
    )
    files = {
        ".github/workflows/benchmark-tmpl.yml": FRAMEWORK_TMPL,
        "configs/nvidia-master.yaml": entry.format(fw="trt") + entry.format(fw="sglang"),
        "configs/runners.yaml": "labels:\n  b200: [b200_0, b200_1]\n",
        "runners/launch_b200-atom.sh": "echo atom\n",
        "runners/launch_b200-nv.sh": "echo nv\n",
        "runners/launch_b200-trt.sh": "echo trt\n",
    }
    root = write_repo(tmp_path / "r", files)
    from benchlint.context import wiring_of

    pairs = wiring_of(Workspace(root, Config())).pairs
    assert sorted((e.name, path) for e, path, _ in pairs) == [
        ("e-sglang", "runners/launch_b200-nv.sh"),
        ("e-trt", "runners/launch_b200-trt.sh"),
    ]


def test_layout_names_each_workflow_the_calls_come_from(tmp_path: Path) -> None:
    """(h51 W7) calls from two workflows: each named where its first call is, none as the fact's
    own place (which read as every call's)."""
    other = (
        "on: workflow_dispatch\n"
        "jobs:\n"
        "  bmk-h9-mb:\n"
        "    uses: ./.github/workflows/benchmark-tmpl.yml\n"
        "    with:\n"
        "      runner: h9\n"
        "      image: 'vllm/vllm-openai:v0.10.2'\n"
        "      precision: fp8\n"
        "      exp-name: mb_1k1k\n"
    )
    root = write_repo(tmp_path / "r", {**FILES, ".github/workflows/mb-tmpl.yml": other})
    outcome = CliRunner().invoke(main, ["layout", str(root)])
    assert outcome.exit_code == 0
    assert outcome.stdout.splitlines()[1] == (
        "entries jobs calling .github/workflows/benchmark-tmpl.yml: 2 calls with a known runner "
        "(labels h9), 1 with a runner not known (bmk-matrix at .github/workflows/ma-tmpl.yml:25), "
        "from 2 workflows: .github/workflows/ma-tmpl.yml:9 (1 call), "
        ".github/workflows/mb-tmpl.yml:3 (1 call)"
    )


def test_an_exit_a_calls_job_reaches_names_the_jobs_if_that_holds(tmp_path: Path) -> None:
    """(h57 W5) A job's `if:` that surely holds for the call's inputs is named beside the entry
    where an `exit` surely fails the job: the guard meant to keep it away does not (`isl ==
    '1k'` for an isl of 1024); a job with no `if:` has none named."""
    model = MODEL.replace("    if: ${{ inputs.use_h9 }}\n", "    if: ${{ inputs.isl != '1k' }}\n")
    assert model != MODEL
    launcher = 'if [ "$PRECISION" = "fp8" ]; then\n    exit 1\nfi\n' + LAUNCHER
    files = {
        **FILES,
        ".github/workflows/ma-tmpl.yml": model,
        "runners/launch_h9-aa.sh": launcher.replace("SUFFIX", "h9_slurm"),
    }
    root = write_repo(tmp_path / "r", files)
    found = [f for f in run_lint(root, "BL202").findings if f.subject == "exit"]
    assert [(f.location.path, f.location.span.line) for f in found] == [
        ("runners/launch_h9-aa.sh", 2)
    ]
    assert [(r.path, r.span.line, r.span.column, r.label) for r in found[0].related] == [
        (".github/workflows/ma-tmpl.yml", 9, 3, "entry bmk-h9-fp8 (called by ma-1k1k)"),
        (".github/workflows/ma-tmpl.yml", 10, 9, "its `if:` holds for these inputs"),
    ]
    # the same without the `if:`: the entry alone
    model = MODEL.replace("    if: ${{ inputs.use_h9 }}\n", "")
    root = write_repo(tmp_path / "s", {**files, ".github/workflows/ma-tmpl.yml": model})
    found = [f for f in run_lint(root, "BL202").findings if f.subject == "exit"]
    assert [(r.path, r.span.line, r.label) for r in found[0].related] == [
        (".github/workflows/ma-tmpl.yml", 9, "entry bmk-h9-fp8 (called by ma-1k1k)")
    ]
