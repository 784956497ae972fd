"""Applying fixes: `--fix` writes them, `--diff` prints them, SARIF and the editor offer them.

A fix is a set of edits of one or more files (`finding.Fix`). Only safe fixes are applied unless
unsafe ones are asked for (`--unsafe-fixes`, as ruff has it): an unsafe fix changes what runs.
Edits are applied from the end of a file to its start; a fix whose edits overlap one already
taken is left for a later run (as ruff does), so applying is deterministic. Files that failed
to parse are never touched.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from benchlint.finding import Edit, Finding, Fix, Span
from benchlint.source import SourceText


@dataclass
class Plan:
    """The fixes chosen for one run, by file: what `--fix` writes and `--diff` shows."""

    edits: dict[str, list[Edit]] = field(default_factory=dict)
    fixed: list[Finding] = field(default_factory=list)
    hidden: int = 0  # unsafe fixes left out (not asked for)

    def files(self) -> list[str]:
        return sorted(self.edits)


def plan(findings: list[Finding], unparsed: set[str], unsafe: bool = False) -> Plan:
    """The fixes to apply: each finding's safe fix (and its unsafe one when `unsafe`), unless it
    touches a file that did not parse or overlaps an edit already chosen."""
    chosen = Plan()
    for finding in findings:
        fix = finding.fix
        if fix is None or any(edit.path in unparsed for edit in fix.edits):
            continue
        if fix.applicability == "unsafe" and not unsafe:
            chosen.hidden += 1
            continue
        if any(_overlaps(edit, chosen.edits.get(edit.path, [])) for edit in fix.edits):
            continue
        for edit in fix.edits:
            chosen.edits.setdefault(edit.path, []).append(edit)
        chosen.fixed.append(finding)
    return chosen


def _overlaps(edit: Edit, taken: list[Edit]) -> bool:
    start, end = _key(edit.span, start=True), _key(edit.span, start=False)
    for other in taken:
        other_start, other_end = _key(other.span, start=True), _key(other.span, start=False)
        if start < other_end and other_start < end:
            return True
        if start == end == other_start == other_end:  # two insertions at one place
            return True
    return False


def _key(span: Span, start: bool) -> tuple[int, int]:
    return (span.line, span.column) if start else (span.end_line, span.end_column)


def apply(source: SourceText, edits: list[Edit]) -> str:
    """The file's text with the edits applied."""
    text = source.text
    for edit in sorted(edits, key=lambda e: _key(e.span, start=True), reverse=True):
        start = _offset(source, edit.span.line, edit.span.column)
        end = _offset(source, edit.span.end_line, edit.span.end_column)
        text = text[:start] + edit.text + text[end:]
    return text


def _offset(source: SourceText, line: int, column: int) -> int:
    if line > source.line_count:
        return len(source.text)
    return source.line_starts[line - 1] + column - 1


def diff(path: str, before: str, after: str) -> str:
    import difflib  # (only for `--diff`)

    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def write(root: Path, path: str, text: str) -> None:
    """Replace a file atomically (a temporary file in its folder, then a rename), keeping its
    permissions; undecodable bytes go back as they were read."""
    target = root / path
    mode = target.stat().st_mode
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(text.encode("utf-8", errors="surrogateescape"))
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def line_removal(source: SourceText, first: int, last: int) -> Edit:
    """An edit removing whole lines `first`..`last` (1-based, inclusive) with their newlines."""
    if last < source.line_count:
        return Edit(source.path, Span(first, 1, last + 1, 1), "")
    if first > 1:  # the last line of the file: take the newline before it instead
        end = len(source.line_text(last)) + 1
        previous = len(source.line_text(first - 1)) + 1
        return Edit(source.path, Span(first - 1, previous, last, end), "")
    return Edit(source.path, Span(first, 1, last, len(source.line_text(last)) + 1), "")


__all__ = ["Edit", "Fix", "Plan", "apply", "diff", "line_removal", "plan", "write"]
