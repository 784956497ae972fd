"""The default output: one header per file, then each finding with its source line, a caret
under the span and `= note:`/`= help:`/`= related:` lines, the way rustc and ruff print them.
`[*]` marks a finding `--fix` fixes, and the summary says how many, and how many unsafe fixes
`--unsafe-fixes` would add (as ruff does).

Paths are shown from the folder benchlint was run in (`Result.display`). Colour only when asked
(`Result.color`: `--color`, a terminal, `NO_COLOR`).
"""

from __future__ import annotations

from itertools import groupby

from benchlint.finding import Finding, Severity
from benchlint.result import Result, counted

_SEVERITY_COLOR = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.NOTE: "36"}


class _Paint:
    def __init__(self, on: bool) -> None:
        self.on = on

    def __call__(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.on and text else text


def _snippet(result: Result, finding: Finding, paint: _Paint, code: str, width: int) -> list[str]:
    source = result.source(finding.location.path)
    span = finding.location.span
    if source is None:
        return []
    line = source.line_text(span.line).replace("\t", " ")
    if not line.strip():
        return []
    end = span.end_column if span.end_line == span.line else len(line.rstrip()) + 1
    carets = max(1, end - span.column)
    gutter = str(span.line).rjust(width)
    pad = " " * width
    bar = paint("|", "34")
    return [
        f"  {pad} {bar}",
        f"  {paint(gutter, '34')} {bar} {line}",
        f"  {pad} {bar} {' ' * (span.column - 1)}{paint('^' * carets, code)}",
    ]


def render(result: Result) -> str:
    paint = _Paint(result.color)
    out: list[str] = []
    counts = {s: 0 for s in Severity}
    for path, group in groupby(result.findings, key=lambda f: f.location.path):
        out.append(paint(result.display(path), "1;4"))
        findings = list(group)
        width = max(len(str(f.location.span.line)) for f in findings)  # one gutter per file
        for finding in findings:
            severity = result.severity(finding)
            counts[severity] += 1
            code = _SEVERITY_COLOR[severity]
            span = finding.location.span
            rule = result.rule(finding.rule)
            name = f" {rule.name}" if rule is not None else ""
            marker = f"{paint('[*]', '1')} " if result.fixable(finding) else ""
            out.append(
                f"  {span.line}:{span.column} {paint(severity.value, '1;' + code)} "
                f"{marker}{finding.message} {paint(f'[{finding.rule}{name}]', '2')}"
            )
            out.extend(_snippet(result, finding, paint, code, width))
            pad = " " * (width + 2)
            for note in finding.notes:
                out.append(f"{pad} {paint('= note:', '1')} {note}")
            if finding.help:
                out.append(f"{pad} {paint('= help:', '1')} {finding.help}")
            for related in finding.related:
                label = f" ({related.label})" if related.label else ""
                shown = f"{result.display(related.path)}:{related.span.line}:{related.span.column}"
                out.append(f"{pad} {paint('= related:', '1')} {shown}{label}")
        out.append("")
    for error in result.errors:
        out.append(f"benchlint: internal error in {error.rule}: {error.message}")
    total = len(result.findings)
    read = f"{counted(result.files_read, 'file')} read" + (
        f": {result.coverage.describe()}" if result.coverage and not result.coverage.named else ""
    )
    if total:
        parts = [counted(counts[s], s.value) for s in Severity if counts[s]]
        out.append(f"Found {counted(total, 'finding')} ({', '.join(parts)}) in {read}.")
    else:
        out.append(f"No findings in {read}.")
    fixable = sum(map(result.fixable, result.findings))
    hidden = sum(map(result.hidden_fix, result.findings))
    if fixable or hidden:
        shown = f"[*] {fixable} fixable with `--fix`" if fixable else "No fix `--fix` applies"
        more = "fix" if hidden == 1 else "fixes"
        out.append(
            shown + (f" ({hidden} unsafe {more} with `--unsafe-fixes`)" if hidden else "") + "."
        )
    return "\n".join(out) + "\n"
