"""`path:line:col: severity: message [ID]`, one line per finding, for editor problem matchers."""

from __future__ import annotations

from benchlint.result import Result


def render(result: Result) -> str:
    lines = []
    for finding in result.findings:
        loc = finding.location
        severity = result.severity(finding).value
        lines.append(
            f"{result.display(loc.path)}:{loc.span.line}:{loc.span.column}: {severity}: "
            f"{finding.full_message} [{finding.rule}]"
        )
    for error in result.errors:
        lines.append(f"benchlint: internal error in {error.rule}: {error.message}")
    return "\n".join(lines) + ("\n" if lines else "")
