"""Every case of testdata/cases/BLxxx.yaml: the rule's exact findings, and none on near misses."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from benchlint import fixes
from benchlint.config import Config, load_config
from benchlint.finding import Finding, Location
from benchlint.registry import get_rule
from benchlint.result import Result
from tests.conftest import TESTDATA, positions, run_lint, write_repo


def _cases() -> list[Any]:
    params = []
    for path in sorted((TESTDATA / "cases").glob("BL*.yaml")):
        data = YAML(typ="safe").load(path.read_text())
        for case in data["cases"]:
            params.append(pytest.param(data["rule"], case, id=f"{data['rule']}: {case['name']}"))
    return params


@pytest.mark.parametrize(("rule", "case"), _cases())
def test_rule_case(rule: str, case: dict[str, Any], tmp_path: Path) -> None:
    for program in case.get("requires", []):  # (a program the rule asks, `dash -n`)
        if shutil.which(program) is None:
            pytest.skip(f"{program} is not installed: the case needs it")
    root = write_repo(tmp_path / "repo", case["files"], case.get("symlinks"))
    named = [root / n for n in case["named"]] if "named" in case else None  # as pre-commit does
    select = case.get("select", rule)  # a case may run other rules alongside (BL003 needs them)
    config = load_config(root / ".benchlint.toml")
    result = run_lint(root, select=select, named=named, config=config)
    assert not result.errors
    assert positions(result, rule) == sorted(case["expect"])
    if "select" not in case:
        assert all(f.rule == rule for f in result.findings)
    for text in case.get("messages", []):
        assert any(text in f.full_message for f in result.findings), text
    for place, text in case.get("unsaid", {}).items():  # by position: what its message lacks
        at = [f for f in result.findings if _at(f.location).rsplit("-", 1)[0] == place]
        assert at and not any(text in f.full_message for f in at), (place, text)
    if "severities" in case:  # by position, where a finding's severity is not the rule's
        found = {
            f"{f.location.path}:{f.location.span.line}:{f.location.span.column}": (
                f.severity or get_rule(f.rule).severity  # type: ignore[union-attr]
            ).value
            for f in result.findings
        }
        assert {p: found.get(p) for p in case["severities"]} == case["severities"]
    if "related" in case:  # by position: each finding's related locations, in order
        related = {
            _at(f.location): [_at(r) for r in f.related] for f in result.findings if f.rule == rule
        }
        assert {p: related.get(p) for p in case["related"]} == case["related"]
    if "ends" in case:  # by position: where each finding's span ends ("line:column")
        ends = {
            f"{f.location.path}:{f.location.span.line}:{f.location.span.column}": (
                f"{f.location.span.end_line}:{f.location.span.end_column}"
            )
            for f in result.findings
            if f.rule == rule
        }
        assert {p: ends.get(p) for p in case["ends"]} == case["ends"]
    if "undecided" in case:  # where the rule said it could not decide ("path:line")
        said = sorted(
            f"{w.path}:{w.span.line}" for wheres in result.undecided.values() for w in wheres
        )
        assert said == sorted(case["undecided"])
    if "fixed" in case:
        _check_fixes(root, case, result, select, named, config)


def _at(location: Location) -> str:
    span = location.span
    return f"{location.path}:{span.line}:{span.column}-{span.end_line}:{span.end_column}"


def _check_fixes(
    root: Path,
    case: dict[str, Any],
    result: Result,
    select: str,
    named: list[Path] | None,
    config: Config,
) -> None:
    """Apply the case's fixes: each file is exactly as `fixed:` says (everything outside the
    edits byte-identical), and a second run finds neither the fixed findings nor new ones."""
    chosen = fixes.plan(
        result.findings,
        set(result.workspace.failures) if result.workspace else set(),
        unsafe=True,
    )
    assert chosen.fixed, "the case expects fixes but none is offered"
    for finding in chosen.fixed:  # the rule's documentation says how safe its fixes are
        rule = get_rule(finding.rule)
        assert rule is not None and finding.fix is not None
        safety = re.search(r"^## Fix safety\n(.*?)(?=^## |\Z)", rule.doc, re.S | re.M)
        assert safety, f"{rule.id} offers fixes: its documentation needs '## Fix safety'"
        assert re.search(rf"\b{finding.fix.applicability}\b", safety.group(1)), finding.fix
    assert set(chosen.files()) <= set(case["fixed"])
    for path, expected in case["fixed"].items():
        source = result.source(path)
        assert source is not None
        after = fixes.apply(source, chosen.edits.get(path, []))
        assert after == expected, path
        (root / path).write_text(after)
    again = run_lint(root, select=select, named=named, config=config)
    assert not again.failures and not again.errors

    def keys(findings: list[Finding]) -> set[tuple[str, str, str]]:
        return {(f.rule, f.location.path, f.subject) for f in findings}

    assert not keys(again.findings) & keys(chosen.fixed)
    assert keys(again.findings) <= keys(result.findings)


def test_every_rule_has_positive_and_near_miss_cases() -> None:
    from benchlint.registry import all_rules

    covered: dict[str, tuple[int, int]] = {}
    for param in _cases():
        rule, case = param.values
        positive, negative = covered.get(rule, (0, 0))
        if case["expect"]:
            positive += 1
        else:
            negative += 1
        covered[rule] = (positive, negative)
    for rule in all_rules():
        positive, negative = covered.get(rule.id, (0, 0))
        assert positive and negative, f"{rule.id} needs failing and passing cases"
