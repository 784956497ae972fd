"""The command line contract: exit codes, selection, configuration, suppression and formats."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchlint.cli import main
from benchlint.registry import all_rules
from tests.conftest import copy_example, write_repo

LAUNCHER = "set +e\nexec 9>/tmp/l\nflock -w 5 9\n"
DUPLICATE = "a: 1\na: 2\n"


def invoke(*args: str | Path, cwd: Path | None = None) -> tuple[int, str, str]:
    """Run benchlint from `cwd` (default: the folder named first, as a user working in that
    repository would; else where the tests run). Output paths are relative to it."""
    if cwd is None and args and isinstance(args[0], Path) and args[0].is_dir():
        cwd = args[0]
    previous = Path.cwd()
    os.chdir(cwd or previous)
    try:
        outcome = CliRunner().invoke(main, [str(a) for a in args])
    finally:
        os.chdir(previous)
    return outcome.exit_code, outcome.stdout, outcome.stderr


def test_paths_are_shown_from_where_benchlint_runs(tmp_path: Path) -> None:
    """Text, concise and json print paths from the current folder (absolute outside it); the
    github format and SARIF stay repository-relative, which is what GitHub resolves."""
    template = "kind: Deployment\nname: {{ .Values.name }}\n"
    root = write_repo(tmp_path / "r", {"runners/run.sh": LAUNCHER, "deploy/t.yaml": template})
    expected = "runners/run.sh:3:1: error:"
    assert invoke(root, "--format", "concise")[1].startswith(expected)
    assert invoke(root, "--format", "concise", cwd=root / "runners")[1].startswith("run.sh:3:1")
    _, outside, said = invoke(root, "--format", "concise", cwd=tmp_path)
    assert outside.startswith("r/runners/run.sh:3:1: error:")
    # (the places a warning names too: `r/deploy/t.yaml`, not `deploy/t.yaml`)
    assert said.startswith("benchlint: warning: 1 template not linted (r/deploy/t.yaml):")
    assert "(deploy/t.yaml)" in invoke(root, "--format", "concise")[2]
    elsewhere = invoke(root, "--format", "concise", cwd=root / "runners" / "..")
    assert elsewhere[1].startswith(expected)
    data = json.loads(invoke(root, "--format", "json", cwd=tmp_path)[1])
    assert data["findings"][0]["path"] == "r/runners/run.sh"
    assert data["warnings"][0]["message"].startswith("1 template not linted (r/deploy/t.yaml)")
    assert data["warnings"][0]["places"] == [{"path": "r/deploy/t.yaml"}]
    text = invoke(root, cwd=tmp_path)[1]
    assert text.startswith("r/runners/run.sh\n  3:1 error ")
    github = invoke(root, "--format", "github", cwd=tmp_path)[1]
    assert "file=runners/run.sh," in github
    assert "template not linted (deploy/t.yaml)" in github
    sarif = json.loads(invoke(root, "--format", "sarif", cwd=tmp_path)[1])
    uri = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri == {"uri": "runners/run.sh", "uriBaseId": "%SRCROOT%"}


def test_exit_codes_and_fail_on(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"run.sh": LAUNCHER})
    assert invoke(root)[0] == 1
    assert invoke(root, "--exit-zero")[0] == 0
    clean = write_repo(tmp_path / "clean", {"run.sh": "echo ok\n"})
    assert invoke(clean)[0] == 0


def test_usage_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"run.sh": LAUNCHER})
    for args, message in [
        ((root, "--select", "BL999"), "unknown rule or prefix 'BL999'"),
        ((root, "--ignore", "XX"), "unknown rule or prefix 'XX'"),
        ((tmp_path / "missing",), "no such file or directory"),
        ((root, "--config", tmp_path / "nope.toml"), "configuration file not found"),
    ]:
        code, _, err = invoke(*args)
        assert code == 2, args
        assert message in err
        assert len(err.strip().splitlines()) == 1
    code, _, err = invoke("rule", "BL999")
    assert code == 2 and "unknown rule 'BL999'" in err
    # (h16) one in the configuration is said with its file, whatever the command line selects
    toml = root / ".benchlint.toml"
    for text, said in [
        ("select = ['BL10', 'BL999']\n", "select"),
        ("ignore = ['XX']\n", "ignore"),
        ("[per-file-ignores]\n'runners/*.sh' = ['BL1', 'YY']\n", "per-file-ignores"),
    ]:
        toml.write_text(text)
        for args in [(root,), (root, "--select", "BL101")]:
            code, _, err = invoke(*args)
            assert code == 2, (text, args)
            assert err.strip().startswith(f"benchlint: error: {toml}: "), err
            assert "unknown rule or prefix" in err and said in err
            assert len(err.strip().splitlines()) == 1
    toml.write_text("[per-file-ignores]\n'runners/*.sh' = ['BL1', 'YY']\n")
    code, _, err = invoke(root)
    assert f"{toml}: per-file-ignores 'runners/*.sh': unknown rule or prefix 'YY'" in err


def test_bad_config_exits_2(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"run.sh": LAUNCHER})
    (root / ".benchlint.toml").write_text("selct = ['BL102']\n")
    code, _, err = invoke(root)
    assert code == 2 and "unknown key 'selct'" in err
    (root / ".benchlint.toml").write_text("fail-on = 'sometimes'\n")
    assert invoke(root)[0] == 2
    (root / ".benchlint.toml").write_text("select = [\n")
    code, _, err = invoke(root)
    assert code == 2 and "invalid TOML" in err
    for text, said in [
        ('engine-releases = { trtllm = "1.0.0" }', "unknown engine 'trtllm' (sglang, vllm)"),
        ('engine-releases = { vllm = "latest" }', "engine-releases.vllm must be a release"),
        ('engine-releases = "vllm"', "engine-releases must be a table"),
    ]:
        (root / ".benchlint.toml").write_text(text + "\n")
        code, _, err = invoke(root)
        assert code == 2 and said in err and len(err.strip().splitlines()) == 1, text
    (root / ".benchlint.toml").write_text('engine-releases = { vllm = "0.10.1.1" }\n')
    assert invoke(root)[0] != 2  # (a release of four numbers, as vLLM has)


def test_select_ignore_and_prefixes(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"run.sh": LAUNCHER, "a.yaml": DUPLICATE})

    def rules(*args: str) -> list[str]:
        _, out, _ = invoke(root, "--format", "json", *args)
        return [f["rule"] for f in json.loads(out)["findings"]]

    assert rules() == ["BL203", "BL102"]
    assert rules("--select", "BL2") == ["BL203"]
    assert rules("--ignore", "bl203") == ["BL102"]
    assert rules("--select", "BL102,BL203", "--ignore", "BL102") == ["BL203"]


def test_config_file_select_fail_on_and_per_file_ignores(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"runners/run.sh": LAUNCHER, "a.yaml": DUPLICATE})
    (root / ".benchlint.toml").unlink()
    (root / "pyproject.toml").write_text(
        '[tool.benchlint]\nper-file-ignores = { "runners/*" = ["BL102"] }\n'
    )
    code, out, _ = invoke(root / "runners", "--format", "concise")
    assert code == 0 and out == ""
    code, out, _ = invoke(root, "--format", "concise")
    assert code == 1 and out.startswith("a.yaml:2:1: error:")
    code, out, _ = invoke(root, "--no-config", "--format", "concise")
    assert len(out.splitlines()) == 2


def test_inline_suppressions(tmp_path: Path) -> None:
    launcher = (
        "set +e\n"
        "flock -w 5 9  # benchlint: disable=BL102 the job is alone on this node\n"
        "# benchlint: disable=BL102\n"
        "flock -w 5 8\n"
        "flock -w 5 7\n"
        "# benchlint: disable=BL101 wrong rule\n"
        "flock -w 5 6\n"
    )
    root = write_repo(
        tmp_path / "r",
        {"run.sh": launcher, "a.yaml": "# benchlint: disable-file=BL203\n" + DUPLICATE},
    )
    code, out, _ = invoke(root, "--format", "concise")
    assert [line.split(": ")[0] for line in out.splitlines()] == ["run.sh:5:1", "run.sh:7:1"]
    # BL003 is off by default; --show-unused-suppressions (or selecting it) reports the stale
    # one as a finding, in every format, counted in the exit code
    code, out, _ = invoke(root, "--format", "concise", "--show-unused-suppressions")
    assert [line.split(": ")[0] for line in out.splitlines()] == [
        "run.sh:5:1",
        "run.sh:6:22",
        "run.sh:7:1",
    ]
    assert "`disable=BL101` is unused: BL101 reports nothing on this line or the next" in out
    clean = write_repo(tmp_path / "c", {"run.sh": "echo ok  # benchlint: disable=BL102\n"})
    assert invoke(clean, "--format", "concise")[0] == 0
    code, out, _ = invoke(clean, "--select", "BL003,BL102", "--format", "json")
    assert code == 1 and json.loads(out)["findings"][0]["rule"] == "BL003"
    assert invoke(clean, "--select", "BL003,BL102", "--ignore", "BL003")[0] == 0


def test_github_format_escapes(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"x,y.yaml": "a: 1\na: 2\n"})
    _, out, _ = invoke(root, "--format", "github")
    assert out.startswith(
        "::error file=x%2Cy.yaml,line=2,col=1,endLine=2,endColumn=2,title=BL203 duplicate-key::"
    )


def test_github_format_says_when_annotations_are_cut(tmp_path: Path) -> None:
    duplicates = "".join(f"k{i}: 1\nk{i}: 2\n" for i in range(12))
    root = write_repo(tmp_path / "r", {"a.yaml": duplicates})
    out = invoke(root, "--format", "github")[1].splitlines()
    assert len([line for line in out if line.startswith("::error ")]) == 12
    assert out[-1].startswith("::notice title=benchlint::12 findings (12 errors); GitHub shows 10")
    assert "2 are not annotated" in out[-1]
    single = write_repo(tmp_path / "s", {"a.yaml": DUPLICATE})
    assert "::notice" not in invoke(single, "--format", "github")[1]


def test_output_file_and_rules_listing(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"a.yaml": DUPLICATE})
    report = tmp_path / "out.json"
    code, out, _ = invoke(root, "--format", "json", "--output", report)
    assert code == 1 and out == ""
    assert json.loads(report.read_text())["findings"][0]["rule"] == "BL203"
    code, out, _ = invoke("rules")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [r.id for r in all_rules()]
    code, out, _ = invoke("rule", "bl102")
    assert (
        code == 0 and out.startswith("# BL102 unguarded-lock (error)") and "## Use instead" in out
    )


def test_baseline_reports_only_new_findings(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"run.sh": LAUNCHER})
    for fmt in ("json", "sarif"):
        baseline = tmp_path / f"baseline.{fmt}"
        invoke(root, "--format", fmt, "--output", baseline)
        (root / "run.sh").write_text("# moved down\n" + LAUNCHER)
        assert invoke(root, "--baseline", baseline, "--format", "concise")[:2] == (0, "")
        (root / "run.sh").write_text(LAUNCHER + "flock -n 9\n")
        code, out, _ = invoke(root, "--baseline", baseline, "--format", "concise")
        assert code == 1 and out.startswith("run.sh:4:1: error: `flock -n 9`")
        (root / "run.sh").write_text(LAUNCHER)
    (tmp_path / "junk.json").write_text("[1, 2]")
    code, _, err = invoke(root, "--baseline", tmp_path / "junk.json")
    assert code == 2 and "not a benchlint JSON or SARIF report" in err
    (tmp_path / "other.json").write_text('{"name": "package.json, not a report"}')
    code, _, err = invoke(root, "--baseline", tmp_path / "other.json")
    assert code == 2 and "no `findings` or `runs` list" in err and len(err.splitlines()) == 1
    code, _, err = invoke(root, "--baseline", tmp_path / "missing.json")
    assert code == 2 and "baseline file does not exist" in err
    # a report with holes in it is read for what it has: nothing known, no internal error
    holes = '{"runs": [{"results": null}, {"results": [1, {"partialFingerprints": null}]}]}'
    for text in (holes, '{"findings": [1, {"fingerprint": null}]}'):
        (tmp_path / "holes.json").write_text(text)
        code, out, err = invoke(root, "--baseline", tmp_path / "holes.json", "--format", "concise")
        assert code == 1 and out.startswith("run.sh:3:1: error") and not err


def test_config_select_and_fail_on(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"run.sh": LAUNCHER, "a.yaml": DUPLICATE})
    (root / ".benchlint.toml").write_text('select = ["BL2"]\nfail-on = "error"\n')
    code, out, _ = invoke(root, "--format", "concise")
    assert code == 1 and [line.split(": ")[0] for line in out.splitlines()] == ["a.yaml:2:1"]
    code, out, _ = invoke(root, "--format", "concise", "--select", "BL102")
    assert [line.split(": ")[0] for line in out.splitlines()] == ["run.sh:3:1"]


def test_globs_stay_within_a_folder(tmp_path: Path) -> None:
    from benchlint.workspace import path_matches

    assert path_matches("configs/nvidia-master.yaml", "configs/*-master.yaml")
    assert not path_matches("configs/deprecated/old-master.yaml", "configs/*-master.yaml")
    assert path_matches("configs/deprecated/old-master.yaml", "configs/**/*-master.yaml")
    assert path_matches("experimental/x/run.sh", "experimental", inside=True)
    assert not path_matches("experimental-2/run.sh", "experimental", inside=True)
    root = write_repo(tmp_path / "r", {"experimental/x/run.sh": LAUNCHER, "run.sh": LAUNCHER})
    (root / ".benchlint.toml").write_text('exclude = ["experimental"]\n')
    _, out, _ = invoke(root, "--format", "concise")
    assert [line.split(": ")[0] for line in out.splitlines()] == ["run.sh:3:1"]


def test_excluded_files_are_not_reported_but_still_read(tmp_path: Path) -> None:
    """Excluding the recipes hides their findings and parse failures, yet they still exist for
    the master config's references (BL202 reports exactly what it reported before)."""
    root = tmp_path / "example"
    copy_example(root)

    def findings() -> list[tuple[str, str]]:
        data = json.loads(invoke(root, "--format", "json")[1])
        return [(f["rule"], f["path"]) for f in data["findings"]]

    before = findings()
    recipes = "benchmarks/multi_node/srt-slurm-recipes"
    (root / ".benchlint.toml").write_text(f'exclude = ["{recipes}"]\n')
    after = findings()
    assert after == [f for f in before if not f[1].startswith(recipes)]
    assert len(after) < len(before)
    assert [f for f in after if f[0] == "BL202"] == [f for f in before if f[0] == "BL202"]
    assert len([f for f in after if f[0] == "BL202" and f[1].startswith("configs/")]) == 2


def test_what_a_rule_could_not_decide_in_an_excluded_file_is_not_said(tmp_path: Path) -> None:
    """An excluded file's undecided items (a container's flag whose release is not known) are
    left out of the summary, as its findings are; another file's stay."""
    manifest = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: s\nspec:\n  template:\n"
        "    spec:\n      containers:\n        - name: main\n"
        "          image: example.com/vllm-build:latest\n"
        '          command: ["vllm", "serve", "/m"]\n'
        '          args: ["--disable-log-requests"]\n'
    )
    root = write_repo(
        tmp_path / "r", {"install/v1/bundle.yaml": manifest, "deploy/s.yaml": manifest}
    )
    _, _, err = invoke(root, "--format", "concise", "--select", "BL303")
    assert "install/v1/bundle.yaml:" in err and "deploy/s.yaml:" in err
    (root / ".benchlint.toml").write_text('exclude = ["install/"]\n')
    _, _, err = invoke(root, "--format", "concise", "--select", "BL303")
    assert "install/v1/bundle.yaml" not in err and "deploy/s.yaml:" in err


def test_yaml_lookups_follow_merge_keys() -> None:
    from benchlint.source import SourceText
    from benchlint.yamlmodel import parse_yaml

    text = "base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  b: 3\ny:\n  <<: [*b, {c: 4}]\n"
    root = parse_yaml(SourceText("t.yaml", text.encode())).root
    assert root is not None
    assert root.path("x", "a").scalar == 1  # merged
    assert root.path("x", "b").scalar == 3  # the mapping's own key wins
    assert root.path("y", "c").scalar == 4
    assert root.path("y", "z") is None


def test_rule_by_name_root_that_does_not_exist_and_help(tmp_path: Path) -> None:
    code, out, _ = invoke("rule", "unguarded-lock")
    assert code == 0 and out.startswith("# BL102 unguarded-lock (error)")
    root = write_repo(tmp_path / "r", {"run.sh": "echo ok\n"})
    code, _, err = invoke(root, "--root", tmp_path / "missing")
    assert code == 2 and "missing: no such folder (--root)" in err
    code, out, _ = invoke("--help")
    assert code == 0 and "`lint` is the default command" in out
    lint_options = out.split("Lint options (benchlint [OPTIONS] [PATHS]...):", 1)[1]
    assert all(o in lint_options for o in ("--format", "--select", "--fix", "--diff", "--color"))
    assert "Commands:" in out and "  server " in out


def test_root_alone_names_the_whole_repository_from_anywhere(tmp_path: Path) -> None:
    """`--root TREE` with no path, run from outside TREE: the whole of TREE (lint and layout),
    not the current folder, which is outside it."""
    root = write_repo(tmp_path / "r", {"runners/run.sh": LAUNCHER})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code, out, err = invoke("--root", root, "--format", "concise", "--no-cache", cwd=elsewhere)
    assert code == 1 and "runners/run.sh:3:1: error:" in out and "outside" not in err
    code, out, err = invoke("layout", "--root", root, cwd=elsewhere)
    assert code == 0 and "outside" not in err


def test_fix_and_diff(tmp_path: Path) -> None:
    """--diff prints the safe fixes and changes nothing; --fix writes them (keeping the file's
    mode), says what it changed and what it left, and reports what is left; the unsafe fixes
    (BL105's: it guesses the author meant a default) only with --unsafe-fixes or the
    configuration's unsafe-fixes; a file that does not parse is not touched."""
    serve = 'MODEL="${CHECKPOINT_PATH:meta-llama/Llama-3.1-8B}"\nvllm serve "$MODEL"\n'
    broken = 'X="${A:b/c}"\nif then\n'
    root = write_repo(tmp_path / "r", {"serve.sh": serve, "broken.sh": broken, "a.yaml": DUPLICATE})
    (root / "serve.sh").chmod(0o755)
    code, out, err = invoke(root, "--diff")
    assert code == 1
    assert out == "--- a/a.yaml\n+++ b/a.yaml\n@@ -1,2 +1 @@\n-a: 1\n a: 2\n"
    assert "1 unsafe fix not applied" in err and "--unsafe-fixes" in err
    code, out, _ = invoke(root, "--diff", "--unsafe-fixes")
    assert out.startswith("--- a/a.yaml\n+++ b/a.yaml\n")
    assert '-MODEL="${CHECKPOINT_PATH:meta-llama' in out and "+++ b/serve.sh" in out
    assert "broken.sh" not in out
    assert (root / "serve.sh").read_text() == serve
    code, out, _ = invoke(root)  # the text report marks what --fix fixes, and counts the rest
    assert "  2:1 error [*] key 'a' is repeated" in out and "  1:8 error `${CHECK" in out
    assert out.endswith("[*] 1 fixable with `--fix` (1 unsafe fix with `--unsafe-fixes`).\n")
    code, out, err = invoke(root, "--fix", "--format", "concise")
    assert "fixed 1 finding in 1 file: a.yaml" in err and "1 unsafe fix not applied" in err
    assert (root / "serve.sh").read_text() == serve and (root / "a.yaml").read_text() == "a: 2\n"
    code, out, err = invoke(root, "--fix", "--unsafe-fixes", "--format", "concise")
    assert "fixed 1 finding in 1 file: serve.sh" in err and "unsafe" not in err
    assert (root / "serve.sh").read_text() == serve.replace("PATH:meta", "PATH:-meta")
    assert (root / "serve.sh").stat().st_mode & 0o777 == 0o755
    assert (root / "broken.sh").read_text() == broken
    assert [line.split(": ")[0] for line in out.splitlines()] == ["broken.sh:1:4", "broken.sh:2:1"]
    assert sorted(p.name for p in root.iterdir()) == [
        ".benchlint.toml",
        "a.yaml",
        "broken.sh",
        "serve.sh",
    ]
    assert invoke(root, "--diff")[:2] == (0, "")
    (root / "serve.sh").write_text(serve)
    (root / ".benchlint.toml").write_text("unsafe-fixes = true\n")
    assert "+++ b/serve.sh" in invoke(root, "--diff")[1]
    assert invoke(root, "--diff", "--no-unsafe-fixes")[:2] == (0, "")
    (root / ".benchlint.toml").write_text('unsafe-fixes = "yes"\n')
    code, _, err = invoke(root, "--diff")
    assert code == 2 and "unsafe-fixes must be true or false" in err


def test_fixes_in_json_and_sarif_say_their_applicability(tmp_path: Path) -> None:
    """JSON gives each finding's fix as ruff's JSON does (applicability, message, edits), null
    without one; SARIF's `fixes[]` carry the applicability in their property bag."""
    serve = 'MODEL="${CHECKPOINT_PATH:meta-llama/Llama-3.1-8B}"\nvllm serve "$MODEL"\n'
    root = write_repo(tmp_path / "r", {"serve.sh": serve, "a.yaml": DUPLICATE, "b.yaml": "b: [\n"})
    findings = json.loads(invoke(root, "--format", "json")[1])["findings"]
    fixes = {f["rule"]: f["fix"] for f in findings}
    assert fixes["BL105"] == {
        "applicability": "unsafe",
        "message": "write `${CHECKPOINT_PATH:-meta-llama/Llama-3.1-8B}`",
        "edits": [
            {
                "path": "serve.sh",
                "line": 1,
                "column": 26,
                "end_line": 1,
                "end_column": 26,
                "content": "-",
            }
        ],
    }
    assert fixes["BL203"]["applicability"] == "safe" and fixes["BL001"] is None
    # (h77 W2) a repeated key whose first value is a block: likely meant to be merged, its
    # removal throws away what it set (unsafe)
    (root / "a.yaml").write_text("ingest:\n  enabled: true\n  tag: 1\nother: 1\ningest:\n  x: 1\n")
    block = json.loads(invoke(root, "--format", "json")[1])["findings"]
    assert [f["fix"] for f in block if f["rule"] == "BL203"] == [
        {
            "applicability": "unsafe",
            "message": "remove the 'ingest' block on lines 1-3, which PyYAML ignores (merge what "
            "it sets into the later one first, if it was meant)",
            "edits": [
                {
                    "path": "a.yaml",
                    "line": 1,
                    "column": 1,
                    "end_line": 4,
                    "end_column": 1,
                    "content": "",
                }
            ],
        }
    ]
    (root / "a.yaml").write_text(DUPLICATE)
    sarif = json.loads(invoke(root, "--format", "sarif")[1])
    found = {r["ruleId"]: r.get("fixes") for r in sarif["runs"][0]["results"]}
    assert found["BL105"][0]["properties"] == {"applicability": "unsafe"}
    assert found["BL203"][0]["properties"] == {"applicability": "safe"} and found["BL001"] is None


def test_engine_scripts_outside_the_entrypoints_are_said(tmp_path: Path) -> None:
    """BL104 checks the scripts of layout.entrypoints; a script elsewhere that hands an engine a
    variable it does not set is named in a warning, not skipped in silence. One that sets what
    its engine reads (itself or in a file it sources) or checks it before, a launcher and a
    sourced library are not named."""
    serve = 'python3 -m sglang.launch_server --model-path "$MODEL" --port "$PORT"\n'
    root = write_repo(
        tmp_path / "r",
        {
            "benchmark/serve.sh": "\n" + serve,
            "scripts/ci/serve.sh": serve,
            "scripts/ci/set.sh": "MODEL=m\nPORT=1\n" + serve,
            # the file it sources sets them (`MODEL="${MODEL:-m}"`)
            "scripts/ci/common.sh": 'MODEL="${MODEL:-m}"\nPORT=1\n',
            "scripts/ci/sourcing.sh": "source scripts/ci/common.sh\n" + serve,
            "scripts/ci/lib.sh": serve,
            "scripts/ci/run.sh": "source scripts/ci/lib.sh\n",
            "runners/launch_h200.sh": serve,
            "benchmarks/checked.sh": ': "${MODEL:?}" "${PORT:?}"\n' + serve,
            # (one that checks them before the launch, as BL104 would decide alone)
            "scripts/ci/tested.sh": (
                'if [ -z "$MODEL" ] || [ -z "$PORT" ]; then\n  echo unset >&2\n  exit 1\nfi\n'
                + serve
            ),
        },
    )
    assert json.loads(invoke(root, "--format", "json")[1])["warnings"][1:] == [
        {
            "message": "scripts outside layout.entrypoints that hand an engine variables they do "
            "not set not checked (BL104: name them in layout.entrypoints to check what their "
            "callers provide): 2 (benchmark/serve.sh:2, scripts/ci/serve.sh:1)",
            "rule": "BL104",
            "places": [
                {"path": "benchmark/serve.sh", "line": 2},
                {"path": "scripts/ci/serve.sh", "line": 1},
            ],
            "entries": [],
        }
    ]
    (root / ".benchlint.toml").write_text(
        '[layout]\nentrypoints = ["**/serve.sh", "benchmarks/**/*.sh"]\n'
    )
    found = json.loads(invoke(root, "--format", "json")[1])
    assert not any("layout.entrypoints" in warning["message"] for warning in found["warnings"])
    assert [(f["rule"], f["path"], f["line"]) for f in found["findings"]] == [
        ("BL104", "benchmark/serve.sh", 2),
        ("BL104", "scripts/ci/serve.sh", 1),
    ]


def test_engine_scripts_other_scripts_source_are_said(tmp_path: Path) -> None:
    """A benchmark script a launcher sources runs its engine launch in the launcher's shell,
    whose state BL104 does not follow: it is named in a warning, not skipped in silence. A
    library whose launch is in a function, and a sourced script that checks what its engine
    reads, are not named."""
    serve = 'vllm serve $MODEL --tensor-parallel-size "$TP"\n'
    root = write_repo(
        tmp_path / "r",
        {
            "runners/launch_h100-cr.sh": (
                "source benchmarks/lib.sh\nsource benchmarks/checked.sh\n"
                "source benchmarks/serve.sh\n"
            ),
            "benchmarks/serve.sh": "echo start\n" + serve,
            "benchmarks/lib.sh": "start_server() {\n  " + serve + "}\n",
            "benchmarks/checked.sh": ': "${MODEL:?}" "${TP:?}"\n' + serve,
        },
    )
    assert [
        w["message"]
        for w in json.loads(invoke(root, "--format", "json")[1])["warnings"]
        if "source" in w["message"]
    ] == [
        "scripts other scripts source that hand an engine variables they do not set not checked "
        "(BL104: what the sourcing script holds where it sources them is not followed): 1 "
        "(benchmarks/serve.sh:2)"
    ]


def test_a_reader_that_stops_early_ends_the_run_quietly(tmp_path: Path) -> None:
    """`benchlint layout | head -1`: the closed pipe ends the command quietly, with no internal
    error on stderr (click's own handling, as for the lint command)."""
    import subprocess
    import sys

    entry = "e:\n  runner: x\n  scenarios:\n    s:\n    - {search-space: [{tp: 1}]}\n"
    # more output than a pipe holds: a line for each of 800 skipped master configs
    files = {f"deprecated/c{i}-master.yaml": entry for i in range(800)}
    root = write_repo(tmp_path / "r", files)
    for command in (["layout", str(root)], ["--no-cache", "--format", "concise", str(root)]):
        process = subprocess.Popen(
            [sys.executable, "-m", "benchlint", *command],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stdout is not None and process.stderr is not None
        process.stdout.readline()
        process.stdout.close()  # the reader goes away before the output is written out
        error = process.stderr.read().decode()
        assert process.wait(timeout=60) != 2, command
        assert "internal error" not in error and "Traceback" not in error, command


def test_a_checkout_without_git_is_rooted_at_its_workflows_folder(tmp_path: Path) -> None:
    """A `git archive` or tarball of a repository has no `.git` and may have no configuration:
    the folder holding `.github/workflows` is its root, so a folder named inside it is linted
    with the repository's wiring (not alone, as a folder outside any repository is)."""
    root = copy_example(tmp_path / "archive")
    (root / ".benchlint.toml").unlink()
    _, whole, _ = invoke(root, "--no-cache", "--format", "concise")
    in_runners = [line for line in whole.splitlines() if line.startswith("runners/")]
    assert any("[BL202]" in line for line in in_runners)  # wiring: an entry's missing script
    code, named, _ = invoke("runners", "--no-cache", "--format", "concise", cwd=root)
    assert code == 1
    assert in_runners == [line for line in named.splitlines() if line.startswith("runners/")]
    _, explained, _ = invoke("explain", "dsr1-fp4-h200-sglang", cwd=root / "runners")
    assert "runners/launch_h200-cw.sh" in explained


def test_what_a_rule_cannot_decide_is_said_with_where(tmp_path: Path) -> None:
    """A launch whose flag only some releases accept, run by an image of no known release (a
    nightly) or by no entry, is not reported by BL303: every report says so, naming the launch
    lines; a launch of a known release is decided and not listed."""
    workflow = (
        "on: workflow_call\nenv:\n  IMAGE: ${{ inputs.image }}\n"
        "  MODEL_PREFIX: ${{ inputs.model-prefix }}\njobs:\n  run:\n    runs-on: x\n"
        "    steps:\n      - run: bash ./runners/launch_${RUNNER_NAME%%_*}.sh\n"
    )
    entry = (
        "{name}:\n  image: {image}\n  model-prefix: {name}\n  framework: vllm\n  runner: h200\n"
        "  scenarios:\n    fixed-seq-len:\n"
        "    - {{isl: 1024, osl: 1024, search-space: [{{tp: 8}}]}}\n"
    )
    serve = 'vllm serve "$MODEL" --max-seq-len-to-capture 8192\n'
    root = write_repo(
        tmp_path / "r",
        {
            ".github/workflows/benchmark-tmpl.yml": workflow,
            "configs/runners.yaml": "h200: [h200-cw_0]\n",
            "runners/launch_h200-cw.sh": 'srun bash "benchmarks/${MODEL_PREFIX}_h200.sh"\n',
            "configs/nvidia-master.yaml": (
                entry.format(name="old", image="vllm/vllm-openai:v0.10.1.1")
                + entry.format(name="new", image="vllm/vllm-openai:nightly-75c2eef")
            ),
            "benchmarks/old_h200.sh": serve,
            "benchmarks/new_h200.sh": "set -e\n" + serve,
            "benchmarks/orphan.sh": "\n\n" + serve,
        },
    )
    outcome = CliRunner().invoke(main, ["--format", "json", str(root)])
    warnings = [w["message"] for w in json.loads(outcome.stdout)["warnings"]]
    assert (
        "engine launches with a flag only some releases accept, or one a slip from a flag (no "
        "measured release has it), not checked against their release (BL303: no entry's image "
        "names it, no entry runs the script, or the release lies between two measured ones that "
        "differ on the flag; the configuration's `engine-releases` names the release a "
        "repository's own scripts run): 2 (benchmarks/new_h200.sh:2 `--max-seq-len-to-capture`, "
        "benchmarks/orphan.sh:3 `--max-seq-len-to-capture`)"
    ) in warnings
    statistics = CliRunner().invoke(main, ["--statistics", str(root)])
    assert "engine launches with a flag only some releases accept" in statistics.stderr


def test_flags_a_launch_is_handed_by_its_callers_are_said(tmp_path: Path) -> None:
    """h113 M4: a launch handed its function's arguments (`"$@"`), where a call gives some, or
    its script's, is counted at that word, not passed over in silence; a function whose every
    call gives none, and an array's `"${A[@]}"`, are not listed."""
    root = write_repo(
        tmp_path / "r",
        {
            "benchmarks/fn.sh": (
                'start() {\n  vllm serve m --port 8000 "$@"\n}\nstart --tensor-parallel-szie 8\n'
            ),
            "benchmarks/bare.sh": 'start() { vllm serve m "$@"; }\nstart\n',
            "benchmarks/top.sh": "python3 -m sglang.launch_server --model-path m $*\n",
            "benchmarks/array.sh": 'A=(--port 1)\nvllm serve m "${A[@]}"\n',
            # (h118 W4, M7: a caller that passes a model alone, a chain whose outer call passes
            # nothing, a script that sets its own; `"${@:2}"` hands them on too)
            "benchmarks/model.sh": 'serve() { vllm serve "$@" --port 8000; }\nserve org/m\n',
            "benchmarks/chain.sh": (
                'serve() { vllm serve m "$@"; }\nmain() { serve "$@"; }\nmain\n'
            ),
            "benchmarks/own.sh": 'set -- --port 8000\nvllm serve m "$@"\n',
            # (h120 M7: a `set --` under a condition leaves the callers' arguments on a path)
            "benchmarks/maybe.sh": 'if [ $# -eq 0 ]; then set -- --port 1; fi\nvllm serve m "$@"\n',
            "benchmarks/shift.sh": 'vllm serve "$1" "${@:2}"\n',
        },
    )
    outcome = CliRunner().invoke(main, ["--format", "json", str(root)])
    assert json.loads(outcome.stdout)["findings"] == []
    assert (
        'engine launches given the arguments of their function or script (`"$@"`, `$*`), not '
        "checked for the flags their callers pass (BL303: a call's words are not read as the "
        "launch's): 4 (benchmarks/fn.sh:2, benchmarks/maybe.sh:2, benchmarks/shift.sh:1 and 1 "
        "more)"
    ) in [w["message"] for w in json.loads(outcome.stdout)["warnings"]]


def test_a_release_between_measured_ones_that_differ_on_a_flag_is_said(tmp_path: Path) -> None:
    """SGLang 0.4.9.post1 lies between 0.4.9, which rejects `--enable-flashinfer-trtllm-moe`,
    and 0.4.10, which accepts it: the launch is counted, not reported and not passed over; the
    same launch run by 0.4.9 is reported."""
    entry = (
        "{name}:\n  image: lmsysorg/sglang:{tag}\n  model-prefix: {name}\n  framework: sglang\n"
        "  runner: h200\n  scenarios:\n    fixed-seq-len:\n"
        "    - {{isl: 1024, osl: 1024, search-space: [{{tp: 8}}]}}\n"
    )
    serve = "python3 -m sglang.launch_server --model-path m --enable-flashinfer-trtllm-moe\n"
    root = write_repo(
        tmp_path / "r",
        {
            ".github/workflows/benchmark-tmpl.yml": (
                "on: workflow_call\nenv:\n  IMAGE: ${{ inputs.image }}\n"
                "  MODEL_PREFIX: ${{ inputs.model-prefix }}\njobs:\n  run:\n    runs-on: x\n"
                "    steps:\n      - run: bash ./runners/launch_${RUNNER_NAME%%_*}.sh\n"
            ),
            "configs/runners.yaml": "h200: [h200-cw_0]\n",
            "runners/launch_h200-cw.sh": 'bash "benchmarks/${MODEL_PREFIX}_h200.sh"\n',
            "configs/nvidia-master.yaml": (
                entry.format(name="post", tag="v0.4.9.post1-cu126")
                + entry.format(name="old", tag="v0.4.9-cu126")
            ),
            "benchmarks/post_h200.sh": serve,
            "benchmarks/old_h200.sh": serve,
        },
    )
    outcome = CliRunner().invoke(main, ["--format", "json", str(root)])
    report = json.loads(outcome.stdout)
    assert [f["path"] for f in report["findings"]] == [str(root / "benchmarks/old_h200.sh")]
    assert (
        "engine launches with a flag only some releases accept, or one a slip from a flag (no "
        "measured release has it), not checked against their release (BL303: no entry's image "
        "names it, no entry runs the script, or the release lies between two measured ones that "
        "differ on the flag; the configuration's `engine-releases` names the release a "
        "repository's own scripts run): 1 (benchmarks/post_h200.sh:1 "
        "`--enable-flashinfer-trtllm-moe`)"
    ) in [w["message"] for w in report["warnings"]]


def test_background_processes_started_in_a_loop_are_said(tmp_path: Path) -> None:
    """BL103 models a background process started in a loop without its `$!` as one started
    once: released by its name or what ends every job, and reported where an exit leaves every
    pass's running (h75 M1); one at the head of a pipeline in a loop is not modelled (which
    still runs at an exit is not known): counted in the warnings, not passed over (h72 W3)."""
    root = write_repo(
        tmp_path / "r",
        {
            "run.sh": (
                "#!/bin/bash\nset -e\nfor p in 8001 8002; do\n"
                '    vllm serve m --port "$p" &\ndone\n'
                "curl -sf localhost:8001/health || exit 1\npkill -f vllm\n"
            ),
            "piped.sh": (
                "#!/bin/bash\nset -e\nfor p in 8001 8002; do\n"
                '    vllm serve m --port "$p" | tee "log.$p" &\ndone\n'
                "curl -sf localhost:8001/health || exit 1\npkill -f vllm\n"
            ),
        },
    )
    outcome = CliRunner().invoke(main, ["--format", "json", "--select", "BL103", str(root)])
    report = json.loads(outcome.stdout)
    assert [(f["path"], f["line"], f["column"]) for f in report["findings"]] == [
        (str(root / "run.sh"), 4, 5)
    ]
    assert (
        "background pipelines started in a loop without keeping `$!`, not checked (BL103: which "
        "of them still runs at an exit, and what releases it, is not modelled): 1 (piped.sh:4)"
    ) in [w["message"] for w in report["warnings"]]


def test_containers_of_an_unknown_release_are_said(tmp_path: Path) -> None:
    """A Kubernetes container's engine launch with a flag only some releases accept, in an image
    that names no release (a nightly) or one outside the measured range, is counted, not passed
    over; one of a measured release, or of `latest` (at least the newest), is decided and not
    listed."""
    container = "containers:\n  - image: {image}\n    command: [vllm, serve, m, {flag}]\n"
    root = write_repo(
        tmp_path / "r",
        {
            "deploy/latest.yaml": container.format(
                image="vllm/vllm-openai:nightly", flag="--max-seq-len-to-capture"
            ),
            "deploy/old.yaml": "\n"
            + container.format(image="vllm/vllm-openai:v0.7.1", flag="--max-seq-len-to-capture"),
            "deploy/known.yaml": container.format(
                image="vllm/vllm-openai:v0.10.1", flag="--max-seq-len-to-capture"
            ),
            "deploy/steady.yaml": container.format(image="vllm/vllm-openai:latest", flag="--port"),
            # (a slip from a flag every measured release has, in a release before them: h72 W2)
            "deploy/slip.yaml": container.format(
                image="vllm/vllm-openai:v0.8.5", flag="--tensor-parallel-sizee"
            ),
        },
    )
    outcome = CliRunner().invoke(main, ["--format", "json", str(root)])
    assert json.loads(outcome.stdout)["findings"] == []
    assert (
        "engine launches in containers (Kubernetes, `docker run`) or SkyPilot tasks with a flag "
        "only some releases accept, or one a slip from a flag, not checked against their release "
        "(BL303: the image names no release, or one outside the measured range; a task may "
        "install the engine itself): 3 (deploy/latest.yaml:3 `--max-seq-len-to-capture`, "
        "deploy/old.yaml:4 `--max-seq-len-to-capture`, deploy/slip.yaml:3 "
        "`--tensor-parallel-sizee`)"
    ) in [w["message"] for w in json.loads(outcome.stdout)["warnings"]]


def test_recipes_of_an_unknown_release_are_said(tmp_path: Path) -> None:
    """A recipe with a flag only some releases accept, whose model.container names no release
    (an alias the site's srtslurm.yaml resolves), is counted at its container, not passed over;
    one of a measured release is decided, and one with no such flag is not listed."""
    recipe = (
        "model: {{path: m, container: {container}}}\nbackend:\n  type: sglang\n"
        "  sglang_config:\n    decode:\n      {flag}: true\n"
    )
    root = write_repo(
        tmp_path / "r",
        {
            "srtslurm.yaml.example": "default_account: x\n",
            "recipes/alias.yaml": recipe.format(
                container="dynamo-sglang", flag="enable-dp-lm-head"
            ),
            "recipes/known.yaml": recipe.format(
                container='"lmsysorg/sglang:v0.5.16-cu130"', flag="enable-dp-lm-head"
            ),
            "recipes/steady.yaml": recipe.format(
                container="dynamo-sglang", flag="trust-remote-code"
            ),
        },
    )
    outcome = CliRunner().invoke(main, ["--format", "json", str(root)])
    assert json.loads(outcome.stdout)["findings"] == []
    assert (
        "recipes with an engine flag only some releases accept not checked against their release "
        "(BL303: the recipe's model.container names no release the flag data decides: a "
        "nightly or custom tag, an alias the site's srtslurm.yaml resolves, or a release "
        "between two measured ones that differ on it): 1 (recipes/alias.yaml:1 `enable-dp-lm-head`)"
    ) in [w["message"] for w in json.loads(outcome.stdout)["warnings"]]


def test_recipes_with_no_wall_time_are_said(tmp_path: Path) -> None:
    """In a tree of recipes alone (t61), one with no `slurm.time_limit` has the site's
    `default_time_limit`, not known: counted, not passed over (with no health_check either,
    once, as that); one with a time limit is checked (reported), and one with `UNLIMITED` has
    none to compare with: not counted."""
    recipe = (
        "name: r\nmodel: {{path: m, container: c}}\n{slurm}"
        "health_check:\n  max_attempts: 400\n  interval_seconds: 10\n"
    )
    root = write_repo(
        tmp_path / "r",
        {
            "srtslurm.yaml.example": "default_account: x\n",
            "recipes/none.yaml": recipe.format(slurm=""),
            "recipes/short.yaml": recipe.format(slurm='slurm:\n  time_limit: "01:00:00"\n'),
            "recipes/open.yaml": recipe.format(slurm="slurm:\n  time_limit: UNLIMITED\n"),
            # (no health_check either: the site's default_health_check; counted once, as this)
            "recipes/bare.yaml": "name: b\nmodel: {path: m, container: c}\n",
        },
    )
    outcome = CliRunner().invoke(main, ["--format", "json", "--select", "BL204", str(root)])
    report = json.loads(outcome.stdout)
    found = [
        (Path(f["path"]).relative_to(root).as_posix(), f["line"], f["column"])
        for f in report["findings"]
    ]
    assert found == [("recipes/short.yaml", 6, 3)]
    assert (
        "recipes with no slurm.time_limit not checked against a wall time (BL204: srtctl gives "
        "them the site's default_time_limit from srtslurm.yaml, not known here, else a default "
        "of its own): 2 (recipes/bare.yaml:1, recipes/none.yaml:1)"
    ) in [w["message"] for w in report["warnings"]]


def test_launches_of_programs_without_flag_data_are_said(tmp_path: Path) -> None:
    """A launch whose flags no rule checks (`trtllm-serve`, Dynamo's SGLang worker, in a script or
    a container) is counted by program, not passed over; vLLM's and SGLang's launches and the
    Dynamo vLLM worker's (BL301's) are not listed. One behind a word whose value is not known
    is counted by its program too, where no flag data would check it anyway (h75 W2); near
    miss, one of an engine with flag data is counted as behind the word."""
    root = write_repo(
        tmp_path / "r",
        {
            "benchmarks/serve.sh": (
                "trtllm-serve m --tp_size 8\n"
                "python3 -m dynamo.sglang --model-path m --foo 1\n"
                "python3 -m dynamo.vllm --model m\n"
                "vllm serve m --max-num-seqs 4\n"
                "python3 -m sglang.launch_server --model-path m\n"
                "$NUMA trtllm-serve m --tp_size 8\n"
                "$NUMA vllm serve m --max-num-seqs 4\n"
            ),
            "deploy/trt.yaml": (
                "containers:\n  - image: nvcr.io/x/trt:1\n"
                "    command: [sh, -c, 'vllm serve m; trtllm-serve m --tp_size 8']\n"
            ),
        },
    )
    outcome = CliRunner().invoke(main, ["--format", "json", str(root)])
    report = json.loads(outcome.stdout)
    assert report["findings"] == []
    unchecked = [w["message"] for w in report["warnings"] if "no flag data" in w["message"]]
    assert unchecked == [
        "engine launches of `python -m dynamo.sglang` not checked for flags (BL303: no flag data "
        "for it): 1 (benchmarks/serve.sh:2)",
        "engine launches of `trtllm-serve` not checked for flags (BL303: no flag data for it): 3 "
        "(benchmarks/serve.sh:1, benchmarks/serve.sh:6, deploy/trt.yaml:3)",
    ]
    hidden = [w["message"] for w in report["warnings"] if "behind a word" in w["message"]]
    assert [m.rsplit(": ", 1)[1] for m in hidden] == ["1 (benchmarks/serve.sh:7)"]


_GROWN = {
    "configs/runners.yaml": "labels:\n  x: [x_0]\n",
    "runners/launch_x.sh": (
        'cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes" recipes/local\n'
        'python3 "$GITHUB_WORKSPACE/runners/inject.py" "$CONFIG_FILE"\n'
        'srtctl apply -f "$CONFIG_FILE"\n'
    ),
    "benchmarks/multi_node/srt-slurm-recipes/a.yaml": "name: a\n",
    "benchmarks/multi_node/srt-slurm-recipes/b.yaml": "name: b\n",
}


def _master(*recipes: str) -> str:
    elements = "".join(
        f'      - prefill: {{additional-settings: ["CONFIG_FILE=recipes/local/{r}"]}}\n'
        for r in recipes
    )
    return "e:\n  runner: x\n  scenarios:\n    fixed-seq-len:\n    - search-space:\n" + elements


def test_baseline_reports_a_finding_that_covers_more(tmp_path: Path) -> None:
    """A finding that gathers cases (BL002's recipes) keeps its fingerprint when a change adds
    one; the baseline reports it again, naming what is new, in JSON and SARIF alike."""
    root = write_repo(tmp_path / "r", {**_GROWN, "configs/nvidia-master.yaml": _master("a.yaml")})
    for fmt in ("json", "sarif"):
        baseline = tmp_path / f"baseline.{fmt}"
        invoke(root, "--format", fmt, "--output", baseline, "--select", "BL002")
        unchanged = invoke(root, "--baseline", baseline, "--select", "BL002", "--format", "json")
        assert unchanged[0] == 0 and json.loads(unchanged[1])["findings"] == []
        (root / "configs/nvidia-master.yaml").write_text(_master("a.yaml", "b.yaml"))
        code, out, _ = invoke(root, "--baseline", baseline, "--select", "BL002", "--format", "json")
        assert code == 0  # (a note: below the default --fail-on)
        (finding,) = json.loads(out)["findings"]
        assert (finding["path"], finding["line"], finding["column"]) == (
            "runners/launch_x.sh",
            2,
            1,
        )
        assert finding["involves"] == [
            "benchmarks/multi_node/srt-slurm-recipes/a.yaml",
            "benchmarks/multi_node/srt-slurm-recipes/b.yaml",
        ]
        assert finding["notes"][-1] == (
            "new since the baseline: benchmarks/multi_node/srt-slurm-recipes/b.yaml"
        )
        (root / "configs/nvidia-master.yaml").write_text(_master("a.yaml"))
    # a baseline of an older benchlint says nothing of what its findings covered: said so
    old = tmp_path / "old.json"
    invoke(root, "--format", "json", "--output", old, "--select", "BL002")
    report = json.loads(old.read_text())
    for finding in report["findings"]:
        del finding["involves"]
    old.write_text(json.dumps(report))
    (root / "configs/nvidia-master.yaml").write_text(_master("a.yaml", "b.yaml"))
    code, out, err = invoke(root, "--baseline", old, "--select", "BL002", "--format", "json")
    assert json.loads(out)["findings"] == []
    assert "does not list what its findings cover" in err and "write the baseline again" in err


def test_a_rule_that_fails_is_said_and_debug_shows_its_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rule's internal error ends the run with exit 2 and one line naming the rule (the
    other rules' findings are not trusted to be whole); `--debug` adds the traceback (h47
    W2: it showed none)."""
    import checks.bl104_unvalidated_env as bl104

    repo = write_repo(tmp_path, {"benchmarks/single_node/a.sh": 'vllm serve "$MODEL"\n'})

    def broken(*_: object) -> list[object]:
        raise IndexError("string index out of range")

    monkeypatch.setattr(bl104, "launches", broken)
    monkeypatch.delenv("BENCHLINT_DEBUG", raising=False)
    for debug in ([], ["--debug"]):
        outcome = CliRunner().invoke(main, [*debug, "--no-cache", "--root", str(repo), str(repo)])
        assert outcome.exit_code == 2, outcome.output
        line = "benchlint: internal error in BL104: IndexError: string index out of range"
        assert line in outcome.stderr
        assert ("Traceback" in outcome.stderr) == bool(debug), outcome.stderr
