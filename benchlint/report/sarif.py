"""SARIF 2.1.0 for GitHub code scanning and SARIF viewers, built with the sarif-om object model.

Every selected rule is in `rules[]` with its documentation (`fullDescription` plain text, `help`
markdown, an honest `precision`); results carry a repository-relative URI under `%SRCROOT%`, a
full region, related locations linked from the message text (the only ones code scanning shows)
and `partialFingerprints`. Files that could not be read or parsed are BL001 results, or
`toolExecutionNotifications` of the invocation when BL001 did not run.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

import attr
import sarif_om as om

from benchlint import HOMEPAGE, __version__
from benchlint.finding import Finding, Fix, Location, Severity
from benchlint.registry import Rule
from benchlint.result import Notice, Result
from benchlint.source import SourceText

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}
_PROBLEM_SEVERITY = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.NOTE: "recommendation",
}
# Emitted even when equal to the SARIF default: code scanning wants full regions and levels.
_ALWAYS = frozenset({"startLine", "startColumn", "endLine", "endColumn", "level", "ruleIndex"})


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _help_uri(rule: Rule) -> str:
    return f"{HOMEPAGE}/blob/main/docs/rules.md#{rule.id.lower()}-{rule.name}"


def _first_paragraph(doc: str) -> str:
    """The first paragraph of a rule's documentation after its summary line, as plain text: no
    markdown heading (GitHub shows fullDescription as it is)."""
    body = doc.split("\n", 1)[1] if "\n" in doc else doc
    paragraphs = [
        " ".join(line.strip() for line in block.splitlines() if not line.startswith("#"))
        for block in body.split("\n\n")
    ]
    return next((p for p in paragraphs if p), doc.strip())


def _descriptor(rule: Rule) -> om.ReportingDescriptor:
    return om.ReportingDescriptor(
        id=rule.id,
        name=rule.name,
        short_description=om.MultiformatMessageString(text=_sentence(rule.summary)),
        full_description=om.MultiformatMessageString(text=_sentence(_first_paragraph(rule.doc))),
        help=om.MultiformatMessageString(text=rule.doc, markdown=rule.doc),
        help_uri=_help_uri(rule),
        default_configuration=om.ReportingConfiguration(level=_LEVEL[rule.severity]),
        properties={
            "tags": list(rule.tags),
            "precision": rule.precision,
            "problem.severity": _PROBLEM_SEVERITY[rule.severity],
        },
    )


def _physical(location: Location, result: Result) -> om.PhysicalLocation:
    span = location.span
    source = result.source(location.path)
    start = _utf16(source, span.line, span.column)
    end = _utf16(source, span.end_line, span.end_column)
    return om.PhysicalLocation(
        artifact_location=om.ArtifactLocation(uri=_uri(location.path), uri_base_id=SRCROOT),
        region=om.Region(
            start_line=span.line,
            start_column=start,
            end_line=span.end_line,
            end_column=max(end, start + 1 if span.end_line == span.line else 1),
        ),
    )


def _notification(notice: Notice, result: Result) -> om.Notification:
    """A warning of what the run could not see, wire or decide, with every file and line it is
    about, and the rule that could not decide, if one."""
    locations = [
        om.Location(
            physical_location=om.PhysicalLocation(
                artifact_location=om.ArtifactLocation(uri=_uri(path), uri_base_id=SRCROOT),
                region=om.Region(start_line=line) if line else None,
            )
        )
        for path, line in notice.places
    ]
    rule = om.ReportingDescriptorReference(id=notice.rule) if notice.rule else None
    return om.Notification(
        level="warning",
        message=om.Message(text=_sentence(notice.text)),
        locations=locations or None,
        associated_rule=rule,
    )


def _fix(fix: Fix, result: Result) -> om.Fix:
    """A fix as SARIF `fixes[]`: one artifact change per file, its edits as replacements."""
    changes = []
    for path in sorted({edit.path for edit in fix.edits}):
        source = result.source(path)
        replacements = []
        for edit in (e for e in fix.edits if e.path == path):
            span = edit.span
            replacements.append(
                om.Replacement(
                    deleted_region=om.Region(
                        start_line=span.line,
                        start_column=_utf16(source, span.line, span.column),
                        end_line=span.end_line,
                        end_column=_utf16(source, span.end_line, span.end_column),
                    ),
                    inserted_content=om.ArtifactContent(text=edit.text) if edit.text else None,
                )
            )
        changes.append(
            om.ArtifactChange(
                artifact_location=om.ArtifactLocation(uri=_uri(path), uri_base_id=SRCROOT),
                replacements=replacements,
            )
        )
    return om.Fix(
        description=om.Message(text=_sentence(fix.description)),
        artifact_changes=changes,
        # ruff's word for whether applying it keeps what the file means (SARIF has none)
        properties={"applicability": fix.applicability},
    )


def _utf16(source: SourceText | None, line: int, column: int) -> int:
    """A column counted in code points as a SARIF `utf16CodeUnits` column: a character outside
    the Basic Multilingual Plane (an emoji) before it counts twice."""
    if source is None:
        return column
    before = source.line_text(line)[: column - 1]
    if before.isascii():
        return column
    return column + sum(1 for ch in before if ord(ch) > 0xFFFF)


def _message(finding: Finding) -> str:
    """The finding's text, its help, and a link to each related location: GitHub code scanning
    shows a related location only where the message links to it (`[text](id)`)."""
    text = _sentence(finding.full_message)
    if not finding.related:
        return text
    links = []
    for i, loc in enumerate(finding.related, start=1):
        where = f"{loc.path}:{loc.span.line}"
        shown = f"{loc.label} at {where}" if loc.label else where
        links.append(f"[{_escape_link(shown)}]({i})")
    return f"{text} See {', '.join(links)}."


def _escape_link(text: str) -> str:
    return re.sub(r"([\\\[\]])", r"\\\1", text)


def _uri(path: str) -> str:
    return quote(path, safe="/-_.~")


def render(result: Result) -> str:
    rules = result.rules
    index = {rule.id: i for i, rule in enumerate(rules)}
    results = []
    for finding in result.findings:
        related = [
            om.Location(
                id=i,
                physical_location=_physical(loc, result),
                message=om.Message(text=_sentence(loc.label or "Related location")),
            )
            for i, loc in enumerate(finding.related, start=1)
        ]
        results.append(
            om.Result(
                rule_id=finding.rule,
                rule_index=index.get(finding.rule, -1),
                level=_LEVEL[result.severity(finding)],
                message=om.Message(text=_message(finding)),
                locations=[om.Location(physical_location=_physical(finding.location, result))],
                related_locations=related or None,
                partial_fingerprints={"benchlintFingerprint/v1": finding.fingerprint},
                fixes=[_fix(finding.fix, result)] if finding.fix is not None else None,
                properties={"involves": list(finding.involves)} if finding.involves else None,
            )
        )
    notifications = [
        om.Notification(
            level="error",
            message=om.Message(text=_sentence(f"{failure.path} {failure.message}")),
            locations=[
                om.Location(
                    physical_location=_physical(Location(failure.path, failure.span), result)
                )
            ],
            descriptor=om.ReportingDescriptorReference(id="BL001"),
        )
        for failure in result.failures  # (a BL001 result too, where BL001 runs: the product's
        # contract, and code scanning's tool status page lists the files it could not read)
    ]
    notifications += [
        om.Notification(
            level="error",
            message=om.Message(text=_sentence(f"internal error in {e.rule}: {e.message}")),
        )
        for e in result.errors
    ]
    notifications += [  # what the run could not wire: said where the findings are read
        _notification(notice, result) for notice in result.notices()
    ]
    run = om.Run(
        tool=om.Tool(
            driver=om.ToolComponent(
                name="benchlint",
                version=__version__,
                semantic_version=__version__,
                information_uri=HOMEPAGE,
                rules=[_descriptor(rule) for rule in rules],
            )
        ),
        original_uri_base_ids={
            SRCROOT: om.ArtifactLocation(uri=result.root.as_uri().rstrip("/") + "/")
        },
        results=results,
        invocations=[
            om.Invocation(
                execution_successful=not result.errors,
                tool_execution_notifications=notifications or None,
            )
        ],
        column_kind="utf16CodeUnits",
    )
    log = om.SarifLog(version="2.1.0", schema_uri=SCHEMA, runs=[run])
    return json.dumps(_to_json(log), indent=2) + "\n"


def _to_json(value: Any) -> Any:
    """sarif-om objects to plain JSON, by each field's SARIF property name; None is left out."""
    if attr.has(type(value)):
        data = {}
        for field in attr.fields(type(value)):
            item = getattr(value, field.name)
            name = field.metadata.get("schema_property_name", field.name)
            default = field.default
            if isinstance(default, attr.Factory):  # type: ignore[arg-type]
                default = default.factory()
            if item is None or (item == default and name not in _ALWAYS):
                continue
            data[name] = _to_json(item)
        return data
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    return value
