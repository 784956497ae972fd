"""GitHub Actions workflow commands: `::error file=...,line=...,title=BL102::message`."""

from __future__ import annotations

from benchlint.engine import Result
from benchlint.finding import Severity

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def _data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(value: str) -> str:
    return _data(value).replace(":", "%3A").replace(",", "%2C")


def render(result: Result) -> str:
    lines = []
    for finding in result.findings:
        span = finding.location.span
        props = ",".join(
            [
                f"file={_property(finding.location.path)}",
                f"line={span.line}",
                f"col={span.column}",
                f"endLine={span.end_line}",
                f"endColumn={span.end_column}",
                f"title={finding.rule}",
            ]
        )
        level = _LEVEL[result.severity(finding)]
        lines.append(f"::{level} {props}::{_data(finding.message)}")
    for error in result.errors:
        lines.append(f"::error title=benchlint::{_data(error.rule + ': ' + error.message)}")
    return "\n".join(lines) + ("\n" if lines else "")
