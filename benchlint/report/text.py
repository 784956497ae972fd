"""The default output: findings grouped by file, each with its source line and a caret."""

from __future__ import annotations

from itertools import groupby

from benchlint.engine import Result
from benchlint.finding import Finding, Severity


def _snippet(result: Result, finding: Finding) -> list[str]:
    source = result.source(finding.location.path)
    span = finding.location.span
    if source is None:
        return []
    line = source.line_text(span.line).replace("\t", " ")
    if not line.strip():
        return []
    end = span.end_column if span.end_line == span.line else len(line.rstrip()) + 1
    width = max(1, end - span.column)
    gutter = str(span.line)
    pad = " " * len(gutter)
    return [
        f"  {gutter} | {line}",
        f"  {pad} | {' ' * (span.column - 1)}{'^' * width}",
    ]


def render(result: Result) -> str:
    out: list[str] = []
    counts = {s: 0 for s in Severity}
    for path, group in groupby(result.findings, key=lambda f: f.location.path):
        out.append(path)
        for finding in group:
            severity = result.severity(finding)
            counts[severity] += 1
            loc = finding.location
            out.append(
                f"{loc.path}:{loc.span.line}:{loc.span.column}: {severity.value}: "
                f"{finding.message} [{finding.rule}]"
            )
            out.extend(_snippet(result, finding))
            for related in finding.related:
                label = f" ({related.label})" if related.label else ""
                out.append(f"  = related: {related}{label}")
        out.append("")
    for error in result.errors:
        out.append(f"benchlint: internal error in {error.rule}: {error.message}")
    total = len(result.findings)
    files = f"{result.files_read} file{'s' if result.files_read != 1 else ''}"
    read = f"{files} read" + (f": {result.coverage.describe()}" if result.coverage else "")
    if total:
        parts = [
            f"{counts[s]} {s.value}{'s' if counts[s] != 1 else ''}" for s in Severity if counts[s]
        ]
        out.append(
            f"Found {total} finding{'s' if total != 1 else ''} ({', '.join(parts)}) in {read}."
        )
    else:
        out.append(f"No findings in {read}.")
    return "\n".join(out) + "\n"
