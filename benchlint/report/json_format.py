"""Findings as JSON, one object per finding, with every location and the fingerprint. Paths
are shown from the folder benchlint was run in, as in the text report."""

from __future__ import annotations

import json
from typing import Any

from benchlint import __version__
from benchlint.finding import Fix, Location
from benchlint.result import Notice, Result


def _location(location: Location, result: Result) -> dict[str, Any]:
    span = location.span
    data: dict[str, Any] = {
        "path": result.display(location.path),
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
    }
    if location.label:
        data["label"] = location.label
    return data


def _fix(fix: Fix, result: Result) -> dict[str, Any]:
    """A fix as ruff's JSON gives one: its applicability, message and edits (1-based, end
    exclusive)."""
    return {
        "applicability": fix.applicability,
        "message": fix.description,
        "edits": [
            {
                "path": result.display(edit.path),
                "line": edit.span.line,
                "column": edit.span.column,
                "end_line": edit.span.end_line,
                "end_column": edit.span.end_column,
                "content": edit.text,
            }
            for edit in fix.edits
        ],
    }


def _notice(notice: Notice, result: Result) -> dict[str, Any]:
    """A warning of what the run could not see, wire or decide, with every place it is about
    (its message names the first three): a file and line, or a file as a whole (no line)."""
    return {
        "message": result.shown(notice),
        "rule": notice.rule,
        "places": [
            {"path": result.display(path), **({"line": line} if line else {})}
            for path, line in notice.places
        ],
        "entries": list(notice.entries),
    }


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
                "help": finding.help,
                "notes": list(finding.notes),
                **_location(finding.location, result),
                "related": [_location(r, result) for r in finding.related],
                "fix": _fix(finding.fix, result) if finding.fix is not None else None,
                "involves": list(finding.involves),
                "fingerprint": finding.fingerprint,
            }
        )
    document = {
        "version": __version__,
        "findings": findings,
        "unparsed": [
            {"path": result.display(f.path), "message": f.message, "line": f.span.line}
            for f in result.failures
        ],
        "errors": [{"rule": e.rule, "message": e.message} for e in result.errors],
        "warnings": [_notice(notice, result) for notice in result.notices()],
    }
    return json.dumps(document, indent=2) + "\n"
