"""The cache of master-config entries: used when the content was seen, never stale, optional."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from benchlint.cache import Cache
from benchlint.cli import main
from benchlint.config import Config, load_config
from benchlint.engine import lint, select_rules
from tests.conftest import copy_example, write_repo

MASTER = "configs/nvidia-master.yaml"
LAUNCHER = "runners/launch_gb200-nv.sh"


def _example(tmp_path: Path) -> Path:
    root = tmp_path / "example"
    copy_example(root)
    return root


def _named_run(root: Path, cache: Cache | None) -> tuple[list[str], bool]:
    """The findings of a pre-commit-like run on the launcher, and whether the master config's
    YAML was parsed."""
    config = load_config(root / ".benchlint.toml")
    rules = select_rules(config, None, set())
    result = lint(root, config, rules, [root / LAUNCHER], cache=cache)
    assert result.workspace is not None
    parsed = MASTER in result.workspace.documents()
    return [f"{f.rule} {f.location} {f.message} {f.related}" for f in result.findings], parsed


def test_a_seen_master_config_is_not_parsed_again_and_gives_the_same_findings(
    tmp_path: Path,
) -> None:
    root = _example(tmp_path)
    cache = Cache(tmp_path / "cache")
    cold, parsed = _named_run(root, cache)
    assert parsed and cold
    assert len(list((tmp_path / "cache").glob("entries-*.marshal"))) == 1
    warm, parsed = _named_run(root, Cache(tmp_path / "cache"))
    assert not parsed
    assert warm == cold
    assert warm == _named_run(root, None)[0]


def test_a_changed_master_config_is_read_anew(tmp_path: Path) -> None:
    root = _example(tmp_path)
    cache = Cache(tmp_path / "cache")
    before, _ = _named_run(root, cache)
    master = root / MASTER
    master.write_text(master.read_text().replace("runner: gb200\n", "runner: gb200-x\n", 1))
    after, parsed = _named_run(root, cache)
    assert parsed
    assert after == _named_run(root, None)[0]
    assert after != before
    assert len(list((tmp_path / "cache").glob("entries-*.marshal"))) == 2


def test_a_garbled_or_unwritable_cache_is_no_cache(tmp_path: Path) -> None:
    root = _example(tmp_path)
    expected, _ = _named_run(root, None)
    cache = Cache(tmp_path / "cache")
    _named_run(root, cache)
    for stored in (tmp_path / "cache").glob("*.marshal"):
        stored.write_bytes(b"\x00garbage")
    assert _named_run(root, cache) == (expected, True)
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would be")
    assert _named_run(root, Cache(blocked / "cache")) == (expected, True)


def test_no_cache_flag_and_environment(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = _example(tmp_path)
    folder = tmp_path / "user-cache"
    monkeypatch.setenv("BENCHLINT_CACHE_DIR", str(folder))
    out = tmp_path / "a.json"
    CliRunner().invoke(
        main, ["--no-cache", "--format", "json", "-o", str(out), str(root / LAUNCHER)]
    )
    assert not folder.exists()
    monkeypatch.setenv("BENCHLINT_NO_CACHE", "1")
    CliRunner().invoke(main, ["--format", "json", "-o", str(out), str(root / LAUNCHER)])
    assert not folder.exists()
    monkeypatch.delenv("BENCHLINT_NO_CACHE")
    CliRunner().invoke(main, ["--format", "json", "-o", str(out), str(root / LAUNCHER)])
    kinds = {p.name.rsplit("-", 1)[0] for p in folder.iterdir() if p.suffix == ".marshal"}
    # (no index: the files were written less than 2 s before the run)
    assert kinds == {
        *("calls", "entries", "master-configs", "overlays", "report", "run", "shell"),
        *("workflow-names", "yaml", "no-call-entries"),
    }
    assert json.loads(out.read_text())["findings"]
    assert not any(p.suffix == ".marshal" for p in root.rglob("*"))  # nothing in the repository


def test_the_cache_lives_in_the_repository_and_git_ignores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Like ruff's: `.benchlint_cache/` in the repository root, holding its own `.gitignore`."""
    monkeypatch.delenv("BENCHLINT_CACHE_DIR")
    root = _example(tmp_path)
    CliRunner().invoke(main, ["--format", "json", str(root)])
    folder = root / ".benchlint_cache"
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert any(p.name.startswith("run-") for p in folder.iterdir())
    # benchlint does not lint its own cache, and a second run is the same
    first = CliRunner().invoke(main, ["--format", "json", str(root)]).output
    assert ".benchlint_cache" not in first


def _lint_whole(root: Path, cache: Cache | None) -> tuple[str, int]:
    """The SARIF of a whole-repository run, and how many files it parsed."""
    from benchlint.report.sarif import render

    config = load_config(root / ".benchlint.toml")
    result = lint(root, config, select_rules(config, None, set()), [root], cache=cache)
    assert result.workspace is not None
    parsed = len(result.workspace.modelled()) + len(result.workspace.documents())
    return render(result), parsed


def test_a_warm_run_reuses_the_result_until_any_file_it_read_changes(tmp_path: Path) -> None:
    root = _example(tmp_path)
    cache = Cache(tmp_path / "cache")
    cold, parsed = _lint_whole(root, None)
    assert parsed > 20
    assert _lint_whole(root, cache) == (cold, parsed)  # the first run fills the cache
    assert _lint_whole(root, cache) == (cold, 0)  # the next parses nothing
    # a changed recipe, a new file, a changed configuration: each is linted anew
    recipe = root / "benchmarks/multi_node/srt-slurm-recipes/vllm/dsr1/disagg-8k1k.yaml"
    recipe.write_text(recipe.read_text().replace("max_attempts: 1440", "max_attempts: 100"))
    changed, parsed = _lint_whole(root, cache)
    assert parsed and changed != cold and changed == _lint_whole(root, None)[0]
    (root / "runners" / "launch_new.sh").write_text("set +e\nflock -w 5 9\n")
    added, parsed = _lint_whole(root, cache)
    assert parsed and "launch_new.sh" in added and added == _lint_whole(root, None)[0]
    (root / ".benchlint.toml").write_text('per-file-ignores = { "runners/*" = ["BL102"] }\n')
    ignored, parsed = _lint_whole(root, cache)
    assert parsed and '"ruleId": "BL102"' in added and '"ruleId": "BL102"' not in ignored


def test_a_warm_run_is_not_reused_once_a_folder_a_rule_listed_changes(tmp_path: Path) -> None:
    """BL211 asks which files a folder holds (a workflow names `utils/process_results.py`):
    the stored result depends on that listing, so adding the file is linted anew."""
    workflow = (
        "on: workflow_dispatch\njobs:\n  b:\n    runs-on: x\n    steps:\n"
        "      - run: python3 utils/process_results.py\n"
    )
    root = write_repo(
        tmp_path / "repo",
        {".github/workflows/b.yml": workflow, "utils/process_result.py": "print(1)\n"},
    )
    cache = Cache(tmp_path / "cache")
    cold, _ = _lint_whole(root, cache)
    assert '"ruleId": "BL211"' in cold
    assert _lint_whole(root, cache) == (cold, 0)
    (root / "utils" / "process_results.py").write_text("print(2)\n")
    fixed, parsed = _lint_whole(root, cache)
    assert parsed and '"ruleId": "BL211"' not in fixed


def test_a_change_to_any_module_changes_the_tool_fingerprint(tmp_path: Path) -> None:
    """No hand-kept list of modules: every file of the packages is part of the key."""
    import checks
    from benchlint.cache import fingerprint_of

    packages = []
    for package in (Path(__file__).parent.parent / "benchlint", Path(checks.__file__).parent):
        copy = tmp_path / package.name
        shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
        packages.append(copy)
    before = fingerprint_of(packages)
    assert fingerprint_of(packages) == before
    for module in (
        "benchlint/recipe.py",
        "checks/bl203_duplicate_key.py",
        "benchlint/data/endpoints.json",
    ):
        path = tmp_path / module
        original = path.read_bytes()
        path.write_bytes(original + b"\n")
        assert fingerprint_of(packages) != before, module
        path.write_bytes(original)


def test_the_tool_fingerprint_is_kept_by_its_files_status_and_made_anew_after_a_change(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A run reads benchlint's modules only when one changed: the fingerprint is kept under the
    status of every file it is made from, and a write (which moves the change time) or a file
    changed too recently to trust its times gives the fingerprint made from the bytes."""
    import os

    import checks
    from benchlint import cache as cache_module
    from benchlint.cache import RACY_NS, fingerprint_of, kept_fingerprint

    packages = []
    for package in (Path(__file__).parent.parent / "benchlint", Path(checks.__file__).parent):
        copy = tmp_path / package.name
        shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
        packages.append(copy)
    folder = tmp_path / "cache"
    made: list[int] = []
    real = cache_module.fingerprint_of
    monkeypatch.setattr(
        cache_module,
        "fingerprint_of",
        lambda p: made.append(1) or real(p),  # type: ignore[func-returns-value]
    )
    # just copied: too recent to trust, made from the bytes and not kept
    assert kept_fingerprint(folder, packages) == fingerprint_of(packages)
    assert made == [1] and not (folder / "code.fingerprint").exists()
    # a clock 10 s on: kept once, then read back
    now = cache_module.time.time_ns()
    monkeypatch.setattr(cache_module.time, "time_ns", lambda: now + 5 * RACY_NS)
    before = kept_fingerprint(folder, packages)
    assert before == fingerprint_of(packages) and len(made) == 2
    assert (folder / ".gitignore").is_file() and (folder / "code.fingerprint").is_file()
    assert kept_fingerprint(folder, packages) == before and len(made) == 2
    # a module written with its old modification time: its change time moved
    module = tmp_path / "benchlint" / "recipe.py"
    status = module.stat()
    module.write_bytes(module.read_bytes() + b"\n")
    os.utime(module, ns=(status.st_atime_ns, status.st_mtime_ns))
    monkeypatch.setattr(cache_module.time, "time_ns", lambda: now + 10 * RACY_NS)
    after = kept_fingerprint(folder, packages)
    assert after != before and after == real(packages)


def test_call_facts_spare_parsing_every_script_for_a_named_entrypoint(tmp_path: Path) -> None:
    """Who runs a named script is answered from each script's cached call facts: a run after an
    edit of the script parses it and its caller, not the repository's other scripts, and
    reports what a run without the cache reports."""
    files = {
        "runners/launch_a.sh": "bash benchmarks/serve.sh\n",
        "benchmarks/serve.sh": 'export PORT="$PORT"\nvllm serve m --port "$PORT"\n',
        **{f"benchmarks/other_{i}.sh": f"echo {i}\n" for i in range(10)},
    }
    root = write_repo(tmp_path / "r", files)
    entrypoint = root / "benchmarks/serve.sh"
    rules = select_rules(Config(), None, set())
    cache = Cache(tmp_path / "cache")
    first = lint(root, Config(), rules, [entrypoint], cache=cache)
    assert first.workspace is not None and len(first.workspace.modelled()) == 12
    entrypoint.write_text(entrypoint.read_text() + "# edited\n")
    second = lint(root, Config(), rules, [entrypoint], cache=cache)
    assert second.workspace is not None
    assert set(second.workspace.modelled()) == {"benchmarks/serve.sh", "runners/launch_a.sh"}
    plain = lint(root, Config(), rules, [entrypoint])
    assert [(f.rule, f.location, f.message) for f in second.findings] == [
        (f.rule, f.location, f.message) for f in plain.findings
    ]


def test_past_the_limit_the_oldest_entries_go_at_most_once_in_ten_minutes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from benchlint import cache as cache_module

    monkeypatch.setattr(cache_module, "MAX_ENTRIES", 4)
    folder = tmp_path / "cache"
    folder.mkdir()
    for age in range(6):  # old-0 is the oldest
        entry = folder / f"old-{age}.marshal"
        entry.write_bytes(b"")
        os.utime(entry, (1000 + age, 1000 + age))
    listed = []
    scandir = os.scandir
    monkeypatch.setattr(  # (the cache folder's listings: not those of benchlint's modules)
        os, "scandir", lambda path: (Path(path) == folder and listed.append(path)) or scandir(path)
    )
    cache = Cache(folder)
    for index in range(3):
        cache.put("calls", f"s{index}.sh", b"x", [index])
    kept = sorted(p.name for p in folder.iterdir() if p.suffix == ".marshal")
    # pruned to half the limit at the first store (six old entries and the new one: the five
    # oldest go), without listing the folder again for the next two
    assert [name for name in kept if name.startswith("old-")] == ["old-5.marshal"]
    assert len(kept) == 4 and len(listed) == 1
    assert cache.get("calls", "s2.sh", b"x") == [2]
    # the next run within PRUNE_EVERY_S does not list the folder; one after it does
    Cache(folder).put("calls", "s3.sh", b"x", [3])
    assert len(listed) == 1
    os.utime(folder / "pruned", (1000, 1000))
    Cache(folder).put("calls", "s4.sh", b"x", [4])
    assert len(listed) == 2


def test_a_file_whose_status_is_unchanged_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run cache trusts a file's status (size, times, inode) as git's index does, only for a
    file changed well before the run; a write changes the change time even when the size and
    modification time are put back, and a racy file is hashed."""
    import os
    import time

    from benchlint import runcache
    from benchlint.workspace import Workspace

    root = write_repo(tmp_path / "r", {"a.sh": "echo a\n", "b.sh": "echo b\n"})
    ws = Workspace(root, Config())
    later = time.time_ns() + 10_000_000_000  # as if the run started 10 s from now
    states = runcache.file_states(ws, ["a.sh", "b.sh"], later)
    assert all(status is not None for _, status in states.values())
    racy = runcache.file_states(ws, ["a.sh"], time.time_ns())
    assert racy["a.sh"][1] is None  # changed within 2 s of the run: hashed next time

    fresh = Workspace(root, Config())
    read: list[str] = []
    hashes = runcache.content_hashes
    monkeypatch.setattr(
        runcache, "content_hashes", lambda w, paths: read.extend(paths) or hashes(w, paths)
    )
    assert runcache.unchanged(fresh, states)
    assert read == []  # trusted by status alone

    stat = (root / "a.sh").stat()
    time.sleep(0.01)
    (root / "a.sh").write_text("echo x\n")  # the same size
    os.utime(root / "a.sh", ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the same mtime
    assert not runcache.unchanged(Workspace(root, Config()), states)
    assert read == ["a.sh"]


def test_a_file_changed_after_the_run_read_it_is_hashed_again(tmp_path: Path) -> None:
    """The status kept is the one the file had when the run read it: a write between the read
    and the storing of the result is seen by the next run, whatever the clocks say."""
    import time

    from benchlint import runcache
    from benchlint.workspace import Workspace

    root = write_repo(tmp_path / "r", {"b.sh": "echo b\n"})
    ws = Workspace(root, Config())
    assert ws.source("b.sh") is not None  # read as the run reads it
    time.sleep(0.01)
    (root / "b.sh").write_text("echo y\n")  # then changed before the result is stored
    states = runcache.file_states(ws, ["b.sh"], time.time_ns() + 10_000_000_000)
    assert states["b.sh"][1] is not None
    assert not runcache.unchanged(Workspace(root, Config()), states)


def test_guards_facts_are_worked_out_once_per_content(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A run keeps the guards' facts it worked out (the script parsed again for them); a later
    run over the same content takes them from the cache and finds what a run without a cache
    finds; after an edit, they are worked out again."""
    from benchlint.shell.model import Script

    worked: list[str] = []
    original = Script.guard_facts

    def recorded(self: Script) -> None:
        worked.append(self.file.path)
        original(self)

    monkeypatch.setattr(Script, "guard_facts", recorded)
    root = _example(tmp_path)
    config = load_config(root / ".benchlint.toml")
    rules = select_rules(config, None, set())
    entrypoint = "benchmarks/single_node/qwen3_fp8_h200_serve_fixed.sh"

    def run(named: list[str], cache: Cache | None) -> list[str]:
        result = lint(root, config, rules, [root / n for n in named], cache=cache)
        return [f"{f.rule} {f.location} {f.message}" for f in result.findings]

    run([entrypoint], Cache(tmp_path / "cache"))
    assert worked == [entrypoint]
    worked.clear()
    # another question (no stored result answers it): the entrypoint's model and guards' facts
    # come from the cache
    found = run([entrypoint, MASTER], Cache(tmp_path / "cache"))
    assert entrypoint not in worked and worked  # (the master config's launchers' are new)
    assert found == run([entrypoint, MASTER], None)
    script = root / entrypoint
    script.write_text(script.read_text() + "# edited\n")
    worked.clear()
    run([entrypoint, MASTER], Cache(tmp_path / "cache"))
    assert worked == [entrypoint]


def test_the_index_knows_an_unchanged_file_without_reading_it(tmp_path: Path) -> None:
    """A file an earlier run read, whose status is the same, has its content hash from the
    index, unread, and the run still depends on it; a write (the size and modification time
    put back) or a file changed too close to that run's start is read again."""
    import hashlib
    import os
    import time

    from benchlint.workspace import Workspace

    root = write_repo(tmp_path / "r", {"a.yaml": "a: 1\n", "b.sh": "echo b\n"})
    cache = Cache(tmp_path / "cache")
    first = Workspace(root, Config(), cache)
    assert first.source("a.yaml") is not None and first.source("b.sh") is not None
    first.store_index(time.time_ns() + 10_000_000_000)  # as if the run started 10 s from now

    later = Workspace(root, Config(), Cache(tmp_path / "cache"))
    assert later.known_digest("a.yaml") == hashlib.sha256(b"a: 1\n").digest()
    assert "a.yaml" not in later._sources and "a.yaml" in later.read_paths
    assert later.files_read == 1

    stat = (root / "a.yaml").stat()
    time.sleep(0.01)
    (root / "a.yaml").write_text("a: 2\n")  # the same size
    os.utime(root / "a.yaml", ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the same mtime
    changed = Workspace(root, Config(), Cache(tmp_path / "cache"))
    assert changed.known_digest("a.yaml") is None
    assert changed.digest("a.yaml") == hashlib.sha256(b"a: 2\n").digest()
    assert changed.known_digest("b.sh") is not None

    changed.store_index(time.time_ns())  # a.yaml changed within 2 s of this run's start
    assert Workspace(root, Config(), Cache(tmp_path / "cache")).known_digest("a.yaml") is None
    assert Workspace(root, Config(), None).known_digest("b.sh") is None  # no cache, no index


def test_a_run_after_an_edit_reads_only_what_it_cannot_know(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a run with the cache, a run naming other files reads the files the index does not
    know unchanged and those it models, not every YAML file to find the master configs, and
    finds what a run without a cache finds; a YAML file edited into a master config is found."""
    from benchlint import workspace

    monkeypatch.setattr(workspace, "RACY_NS", 0)  # the files were written just now
    root = _example(tmp_path)
    config = load_config(root / ".benchlint.toml")
    rules = select_rules(config, None, set())

    def run(named: list[str], cache: Cache | None) -> tuple[list[str], Any]:
        result = lint(root, config, rules, [root / n for n in named], cache=cache)
        return [f"{f.rule} {f.location} {f.message}" for f in result.findings], result.workspace

    run([LAUNCHER], Cache(tmp_path / "cache"))
    launcher = root / LAUNCHER
    launcher.write_text(launcher.read_text() + "# edited\n")
    found, after = run([LAUNCHER], Cache(tmp_path / "cache"))
    expected, read = run([LAUNCHER], None)
    assert found == expected
    unread = set(read._sources) - set(after._sources)
    assert len(unread) >= 5 and all(after.is_yaml(p) for p in unread)  # read to find configs
    assert sorted(after.read_paths) == sorted(read.read_paths)  # the same files depended on
    recipe = next(
        p for p in after.yaml_paths if p.startswith("benchmarks/") and p not in after._sources
    )
    assert after.detected.layout.master_configs == [MASTER]

    (root / recipe).write_text((root / MASTER).read_text())
    _, edited = run([LAUNCHER], Cache(tmp_path / "cache"))
    assert sorted(edited.detected.layout.master_configs) == sorted([MASTER, recipe])


def test_a_warm_run_prints_the_report_rendered_from_the_same_stored_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A result the run cache holds is rendered once per format, folder and colour: a run it
    answers prints the same bytes without rendering (for SARIF, without loading its object
    model); a changed file, another format or a baseline renders again."""
    from benchlint import cli

    root = _example(tmp_path)
    monkeypatch.chdir(root)
    monkeypatch.setenv("BENCHLINT_CACHE_DIR", str(tmp_path / "cache"))
    rendered: list[str] = []
    renderer = cli.renderer

    def counting(name: str) -> Any:
        rendered.append(name)
        return renderer(name)

    monkeypatch.setattr(cli, "renderer", counting)

    def run(*options: str) -> str:
        out = tmp_path / "out"
        CliRunner().invoke(main, [*options, "-o", str(out), "."])
        return out.read_text()

    cold = run("--format", "sarif")
    assert run("--format", "sarif") == cold and rendered == ["sarif"]
    assert run("--format", "sarif", "--no-cache") == cold and rendered == ["sarif"] * 2
    concise = run("--format", "concise")
    assert run("--format", "concise") == concise and rendered == ["sarif"] * 2 + ["concise"]
    baseline = tmp_path / "baseline.sarif"
    baseline.write_text(cold)
    assert '"results": []' in run("--format", "sarif", "--baseline", str(baseline))
    assert rendered[-1] == "sarif" and len(rendered) == 4
    (root / LAUNCHER).write_text((root / LAUNCHER).read_text() + "# edited\n")
    assert run("--format", "sarif") == cold and len(rendered) == 5


def test_a_warm_run_loads_no_parser_no_model_no_rule_and_no_sarif_model(tmp_path: Path) -> None:
    """A run the cache answers imports neither parsing library, nor benchlint's models of
    scripts and of the wiring, nor a rule, nor sarif-om (loading them was most of a warm run's
    time); the run that fills the cache needs them all."""
    import os
    import subprocess
    import sys

    root = _example(tmp_path)
    script = (
        "import sys\n"
        "from benchlint.cli import main\n"
        "try:\n"
        "    main(['--format', 'sarif', '-o', 'out.sarif', '.'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('ruamel.yaml', 'tree_sitter', 'tree_sitter_bash', 'sarif_om', 'regex',\n"
        "    'benchlint.shell.model', 'benchlint.context', 'benchlint.wiring',\n"
        "    'benchlint.linting', 'checks.bl101_self_referential_export')\n"
        "print(' '.join(m for m in heavy if m in sys.modules))\n"
    )
    env = {**os.environ, "BENCHLINT_CACHE_DIR": str(tmp_path / "cache")}

    def loaded() -> str:
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True
        )
        assert (root / "out.sarif").stat().st_size > 1000, done.stderr
        return done.stdout.strip()

    assert set(loaded().split()) >= {
        "ruamel.yaml",
        "tree_sitter",
        "tree_sitter_bash",
        "sarif_om",
        "benchlint.shell.model",
        "benchlint.context",
        "benchlint.wiring",
        "benchlint.linting",
        "checks.bl101_self_referential_export",
    }
    cold = (root / "out.sarif").read_text()
    assert loaded() == ""
    assert (root / "out.sarif").read_text() == cold


_MADE_FOLDER = {
    ".github/workflows/benchmark-tmpl.yml": (
        "on: workflow_call\n"
        "env:\n"
        "  MODEL_PREFIX: ${{ inputs.model-prefix }}\n"
        "  PRECISION: ${{ inputs.precision }}\n"
        "jobs:\n"
        "  run:\n"
        "    runs-on: x\n"
        "    steps:\n"
        "      - run: bash ./runners/launch_${RUNNER_NAME%%_*}.sh\n"
    ),
    "configs/runners.yaml": "h200: [h200-cw_0]\n",
    "configs/nvidia-master.yaml": (
        "glm5-fp8-h200-sglang:\n"
        "  image: lmsysorg/sglang:v0.5.16\n"
        "  model-prefix: glm5\n"
        "  precision: fp8\n"
        "  runner: h200\n"
        "  scenarios:\n"
        "    fixed-seq-len:\n"
        "    - {isl: 1024, osl: 1024, search-space: [{tp: 8}]}\n"
    ),
    "runners/launch_h200-cw.sh": (
        '#!/usr/bin/env bash\nbash "benchmarks/${MODEL_PREFIX}_${PRECISION}_h200.sh"\n'
    ),
    "benchmarks/glm5_fp8_h200.sh": (
        '#!/usr/bin/env bash\nset -euo pipefail\nbash "$(dirname "$0")/impl/run.sh"\n'
    ),
}


def test_what_is_at_a_path_a_rule_asked_about_is_part_of_the_stored_result(
    tmp_path: Path,
) -> None:
    """(h16) BL202 asks whether the folder of a script a script runs is there (where it is not,
    the job may make it): a folder made or removed since the stored run is a change, as a file
    changed is, though the repository's listing of files is the same."""
    from tests.conftest import positions

    root = write_repo(tmp_path / "repo", _MADE_FOLDER)
    (root / ".git").mkdir()
    selection = select_rules(Config(), {"BL202"}, set())

    def found(cache: Cache | None) -> list[str]:
        return positions(lint(root, Config(), selection, [root], cache=cache), "BL202")

    assert found(Cache(tmp_path / "cache")) == found(None) == []
    (root / "benchmarks" / "impl").mkdir()
    missing = ["benchmarks/glm5_fp8_h200.sh:3:6"]
    assert found(None) == missing
    assert found(Cache(tmp_path / "cache")) == missing
    outside = tmp_path / "elsewhere.sh"  # (a link out of the repository: the file is there)
    outside.write_text("#!/bin/bash\n")
    (root / "benchmarks" / "impl" / "run.sh").symlink_to(outside)
    assert found(Cache(tmp_path / "cache")) == found(None) == []
    (root / "benchmarks" / "impl" / "run.sh").unlink()
    (root / "benchmarks" / "impl").rmdir()
    assert found(Cache(tmp_path / "cache")) == []


def test_a_stored_report_is_kept_apart_by_whether_unsafe_fixes_are_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(h16) The text report marks the fixes `--fix` would apply with `[*]`, unsafe ones only
    with `--unsafe-fixes`: a report stored by a run without it is not printed for one with it,
    nor the other way round."""
    root = write_repo(
        tmp_path / "repo", {"run.sh": '#!/bin/bash\necho "${RESULT_DIR:/workspace/results}"\n'}
    )
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("BENCHLINT_CACHE_DIR", str(tmp_path / "cache"))

    def run(*options: str) -> str:
        return CliRunner().invoke(main, [*options, "--color", "never", "."]).output

    plain, unsafe = run(), run("--unsafe-fixes")
    assert "[*]" not in plain and "2:7 error [*]" in unsafe
    assert unsafe == run("--unsafe-fixes", "--no-cache")
    assert run() == plain == run("--no-cache")


def test_whether_bash_is_there_to_ask_is_part_of_the_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(h16) BL001 asks `bash -n` whether a script tree-sitter-bash stumbles on is invalid, and
    reports nothing without bash: a result stored where bash was is not one where it is not."""
    from benchlint import runcache
    from benchlint.workspace import Workspace

    ws = Workspace(_example(tmp_path), Config())
    selection = select_rules(Config(), None, set())
    with_bash = runcache.question(ws, selection, None)
    monkeypatch.setattr(runcache.shutil, "which", lambda name: None)
    assert runcache.question(ws, selection, None) != with_bash
