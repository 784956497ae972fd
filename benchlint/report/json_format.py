"""Findings as JSON, one object per finding, with every location and the fingerprint."""

from __future__ import annotations

import json
from typing import Any

from benchlint import __version__
from benchlint.engine import Result
from benchlint.finding import Location


def _location(location: Location) -> dict[str, Any]:
    span = location.span
    data: dict[str, Any] = {
        "path": location.path,
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
    }
    if location.label:
        data["label"] = location.label
    return data


def render(result: Result) -> str:
    findings = []
    for finding in result.findings:
        rule = result.rule(finding.rule)
        findings.append(
            {
                "rule": finding.rule,
                "name": rule.name if rule is not None else "",
                "severity": result.severity(finding).value,
                "message": finding.message,
                **_location(finding.location),
                "related": [_location(r) for r in finding.related],
                "fingerprint": finding.fingerprint,
            }
        )
    document = {
        "version": __version__,
        "findings": findings,
        "unparsed": [
            {"path": f.path, "message": f.message, "line": f.span.line} for f in result.failures
        ],
        "errors": [{"rule": e.rule, "message": e.message} for e in result.errors],
    }
    return json.dumps(document, indent=2) + "\n"
