"""GitHub Actions workflow commands: `::error file=...,line=...,title=BL102 unguarded-lock::...`.

Paths are repository-relative (what GitHub resolves against the checkout), whatever folder
benchlint ran in. GitHub shows at most 10 error and 10 warning annotations per step (and 50 per
job); past that a closing notice says how many findings there were and where to see them all.
"""

from __future__ import annotations

from benchlint.finding import Severity
from benchlint.result import Result

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}
# GitHub's documented limits on the annotations of one step
SHOWN_PER_LEVEL = 10


def _data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(value: str) -> str:
    return _data(value).replace(":", "%3A").replace(",", "%2C")


def render(result: Result) -> str:
    lines = []
    per_level: dict[str, int] = {}
    for finding in result.findings:
        span = finding.location.span
        rule = result.rule(finding.rule)
        title = f"{finding.rule} {rule.name}" if rule is not None else finding.rule
        props = ",".join(
            [
                f"file={_property(finding.location.path)}",
                f"line={span.line}",
                f"col={span.column}",
                f"endLine={span.end_line}",
                f"endColumn={span.end_column}",
                f"title={_property(title)}",
            ]
        )
        level = _LEVEL[result.severity(finding)]
        per_level[level] = per_level.get(level, 0) + 1
        lines.append(f"::{level} {props}::{_data(finding.full_message)}")
    for error in result.errors:
        lines.append(f"::error title=benchlint::{_data(error.rule + ': ' + error.message)}")
    for warning in result.warnings():
        lines.append(f"::warning title=benchlint::{_data(warning)}")
    hidden = sum(max(0, n - SHOWN_PER_LEVEL) for n in per_level.values())
    if hidden:
        counts = ", ".join(f"{n} {level}s" for level, n in sorted(per_level.items()))
        lines.append(
            f"::notice title=benchlint::{len(result.findings)} findings ({counts}); GitHub shows "
            f"{SHOWN_PER_LEVEL} of each level per step, so {hidden} are not annotated here: "
            "the step's log lists them all (or upload --format sarif to code scanning)"
        )
    return "\n".join(lines) + ("\n" if lines else "")
