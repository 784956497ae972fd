"""Each rule's documentation: the sections STYLE.md asks for, and its examples are real cases."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchlint.registry import Rule, all_rules
from tests.conftest import positions, run_lint, write_repo

FENCE = re.compile(r"```\w+ path=(\S+)\n(.*?)```", re.S)
# Launchers in the examples are started by a workflow template that sets the usual entry fields.
WORKFLOW = """\
on:
  workflow_call:
    inputs:
      spec-decoding: {type: string, required: false, default: none}
env: {IMAGE: x, MODEL: x, ISL: '1024', OSL: '1024', SPEC_DECODING: '${{ inputs.spec-decoding }}'}
jobs:
  run:
    runs-on: x
    steps:
      - run: bash ./runners/launch_${RUNNER_NAME%%_*}.sh
"""


def _section(rule: Rule, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", rule.doc, re.S | re.M)
    assert match, f"{rule.id} has no '## {title}' section"
    return match.group(1)


def _files(section: str) -> dict[str, str]:
    files = {path: body for path, body in FENCE.findall(section)}
    files[".github/workflows/benchmark-tmpl.yml"] = WORKFLOW
    return files


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.id)
def test_documentation_sections(rule: Rule) -> None:
    for title in ("What it does", "Why is this bad?", "Example", "Use instead"):
        assert _section(rule, title).strip()
    assert rule.summary and not rule.summary.startswith("#")


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.id)
def test_example_is_flagged_and_fix_is_clean(rule: Rule, tmp_path: Path) -> None:
    bad = write_repo(tmp_path / "bad", _files(_section(rule, "Example")))
    good = write_repo(tmp_path / "good", _files(_section(rule, "Use instead")))
    # a rule about the other rules' suppressions runs with them all
    select = "ALL" if rule.after_suppressions else rule.id
    assert positions(run_lint(bad, select=select), rule.id)
    assert positions(run_lint(good, select=select), rule.id) == []


def test_rules_reference_is_up_to_date() -> None:
    """docs/rules.md (the SARIF helpUri target) is generated from the docstrings."""
    import importlib.util

    from tests.conftest import REPO

    spec = importlib.util.spec_from_file_location(
        "write_rule_docs", REPO / "tools" / "write_rule_docs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (REPO / "docs" / "rules.md").read_text() == module.render(), (
        "run python tools/write_rule_docs.py"
    )
    for rule in all_rules():
        assert f"## {rule.id} {rule.name}\n" in module.render()
