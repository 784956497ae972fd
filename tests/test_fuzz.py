"""Random and truncated input through the whole pipeline: no traceback, valid outcomes only.

Bounded (a fixed number of examples, no deadline) so CI stays fast and deterministic.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchlint.rewrite import MATCH_TIMEOUT, RewriteError, parse_sed, run_sed
from checks.bl101_self_referential_export import _looks_self_referential
from tests.conftest import TESTDATA, run_lint, write_repo

SHELL_ALPHABET = st.sampled_from(list("abc $\"'\\(){}[]|&;<>#=\n\t-:*?!`~%^+,./0123456789_EOF"))
YAML_ALPHABET = st.sampled_from(list("ab: -\n\t'\"{}[],&*!|>#%@`?\\0123456789"))
EXAMPLE_FILES = [
    p for p in (TESTDATA / "example").rglob("*") if p.is_file() and p.suffix in (".sh", ".yaml")
]
FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _lint_text(tmp_path: Path, name: str, text: str) -> None:
    root = write_repo(tmp_path / "r", {name: text, "ok.sh": "set +e\nflock -n 9\n"})
    result = run_lint(root)
    assert not result.errors, result.errors
    # every other file is still linted
    assert any(f.rule == "BL102" and f.location.path == "ok.sh" for f in result.findings)


@FUZZ
@given(st.text(SHELL_ALPHABET, max_size=300))
def test_random_shell(tmp_path: Path, text: str) -> None:
    _lint_text(tmp_path, "runners/launch_x.sh", text)


@FUZZ
@given(st.text(YAML_ALPHABET, max_size=300))
def test_random_yaml(tmp_path: Path, text: str) -> None:
    _lint_text(tmp_path, "configs/nvidia-master.yaml", text)


@FUZZ
@given(st.sampled_from(EXAMPLE_FILES), st.floats(min_value=0.0, max_value=1.0))
def test_truncated_real_files(tmp_path: Path, source: Path, fraction: float) -> None:
    text = source.read_text()
    rel = source.relative_to(TESTDATA / "example").as_posix()
    _lint_text(tmp_path, rel, text[: int(len(text) * fraction)])


def test_catastrophic_sed_expression_is_bounded() -> None:
    commands = parse_sed("s/^\\(a*\\)*b$/x/")
    started = time.perf_counter()
    try:
        run_sed(commands, "a" * 40 + "c\n")
    except RewriteError as exc:
        assert "took longer" in str(exc)
    assert time.perf_counter() - started < 20 * MATCH_TIMEOUT


def test_catastrophic_sed_in_a_launcher_is_skipped_not_hung(tmp_path: Path) -> None:
    files = {
        "configs/runners.yaml": "labels:\n  x: [x_0]\n",
        "configs/nvidia-master.yaml": (
            "e:\n  runner: x\n  scenarios:\n    fixed-seq-len:\n    - search-space:\n"
            '      - prefill: {additional-settings: ["CONFIG_FILE=recipes/l/a.yaml"]}\n'
        ),
        "benchmarks/multi_node/srt-slurm-recipes/a.yaml": "name: " + "a" * 5000 + "c\n",
        "runners/launch_x.sh": (
            'cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes" recipes/l\n'
            "sed -i -E 's/^name: (a|aa)*b$/name: x/' \"$CONFIG_FILE\"\n"
        ),
    }
    root = write_repo(tmp_path / "r", files)
    started = time.perf_counter()
    result = run_lint(root)
    assert not result.errors
    assert time.perf_counter() - started < 30


@pytest.mark.parametrize("size", [10_000_000])
def test_ten_megabyte_line(tmp_path: Path, size: int) -> None:
    _lint_text(tmp_path, "runners/launch_x.sh", "echo " + "x" * size + "\n")


_SELF_REFERENTIAL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)=[\"']?\$\{?\1\b")


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(st.text(st.sampled_from(list("Xx1_=$'\"{} é\n")), max_size=14))
def test_self_referential_prefilter_agrees_with_its_regex(text: str) -> None:
    # BL101's prefilter finds what the back-referencing regex it replaced finds (the oracle)
    assert _looks_self_referential(text) == bool(_SELF_REFERENTIAL.search(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('export X="$X"', True),
        ("X=${X}:/lib", True),
        ("X=$X", True),
        ("X=$XY", False),  # another variable
        ("AX=$X", False),  # another name before the `=`
        ("éX=$X", False),  # not a whole word: `\w` holds é
        ("X=$Xé", False),
        ("1X=$1X", False),
    ],
)
def test_self_referential_prefilter_cases(text: str, expected: bool) -> None:
    assert _looks_self_referential(text) is expected
    assert bool(_SELF_REFERENTIAL.search(text)) is expected
