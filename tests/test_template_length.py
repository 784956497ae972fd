"""BL208's cap on the expression GitHub compiles a value with text around its expressions into
(`format('...{0}...', ...)`): values too long to write out in a rule case, made here."""

from __future__ import annotations

from pathlib import Path

from benchlint.finding import Severity
from tests.conftest import positions, run_lint, write_repo


def _workflow(prompt_lines: list[str]) -> str:
    body = "".join(f"            {line}\n" for line in prompt_lines)
    return (
        "on: workflow_dispatch\n"
        "jobs:\n"
        "  verify:\n"
        "    runs-on: ubuntu-latest\n"
        "    steps:\n"
        "      - uses: some/action@v1\n"
        "        with:\n"
        "          prompt: |\n"
        f"{body}"
    )


def test_a_value_compiled_over_the_cap_is_an_error_and_one_over_it_in_bytes_a_warning(
    tmp_path: Path,
) -> None:
    """Over 21,000 characters compiled (the text's `{` doubled): an error at the value; under
    in characters but over in UTF-8 bytes and with its indentation (InferenceX a2b54b814's
    measure): a warning. Near misses: as long a `run:` with no expression (not compiled), a
    value that is one expression alone, one compiled to 20,000 plain characters."""
    braces = ["REPO: ${{ github.repository }}"] + ["{a} " * 24] * 210  # 96 {'s a line: 192 ch
    dashes = ["SHA: ${{ github.sha }}"] + ["\u2014 checks " * 6] * 340  # (3 bytes each dash)
    plain = ["N: ${{ github.run_number }}"] + ["x" * 99] * 199
    root = write_repo(
        tmp_path / "r",
        {
            ".github/workflows/braces.yml": _workflow(braces),
            ".github/workflows/dashes.yml": _workflow(dashes),
            ".github/workflows/plain.yml": _workflow(plain),
            ".github/workflows/run.yml": (
                "on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: |\n"
                + "          echo hello world\n" * 1500
            ),
            ".github/workflows/alone.yml": (
                "on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n"
                "      - run: ${{ format('{0}', github.sha) }}\n"
            ),
        },
    )
    result = run_lint(root, select="BL208")
    assert positions(result, "BL208") == [
        ".github/workflows/braces.yml:8:19",
        ".github/workflows/dashes.yml:8:19",
    ]
    found = {f.location.path: f for f in result.findings}
    assert found[".github/workflows/braces.yml"].severity == Severity.ERROR
    assert "over its cap of 21,000" in found[".github/workflows/braces.yml"].message
    dashes_finding = found[".github/workflows/dashes.yml"]
    assert dashes_finding.severity == Severity.WARNING
    assert "bytes in UTF-8" in dashes_finding.message


def test_the_cap_counts_utf16_units_as_githubs_parsers_do(tmp_path: Path) -> None:
    """(t78a) GitHub's parsers count a string's UTF-16 units: an emoji is two. A value of
    20,960 code points, 60 of them emoji, compiles to 21,020 units: an error. The count with
    indentation stops at the block's end (not the next step's line)."""
    emoji = "\U0001f680"
    value = "${{ github.sha }} " + "x" * (20_960 - 60 - 30) + emoji * 60
    root = write_repo(
        tmp_path / "r",
        {
            ".github/workflows/emoji.yml": (
                f'on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: "{value}"\n'
            ),
        },
    )
    result = run_lint(root, select="BL208")
    assert positions(result, "BL208") == [".github/workflows/emoji.yml:6:14"]
    assert result.findings[0].severity == Severity.ERROR
