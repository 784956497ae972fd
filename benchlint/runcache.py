"""A run's result as cache data, and what decides whether a later run may reuse it.

A result depends on the question (repository root, configuration, rules, named paths, whether
bash is there for `bash -n`; the cache's key adds the tool fingerprint), on the repository's
listing (which shell and YAML files exist, which are symlinks or templates, the files layout
detection looks for), and on the bytes of every file the run read. The engine stores the result
with the content hash of each file read (`Workspace.read_paths`), the names in each folder a rule
listed (`Workspace.folder_files`) and what is at each path a rule asked about
(`Workspace.kind_of`); a later run with the same question and listing reuses it when every one
of those files hashes the same, every such folder holds the same names and every such path
holds what it held. Nothing else is read from the disk, so nothing else can differ.
As git's index does, a file whose status (size, times, inode) is what it was is not read again:
only a file last changed well before the run that stored it (a write sets its change time).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
from typing import Any

from benchlint.cache import RACY_NS
from benchlint.finding import Edit, Finding, Fix, Location, Severity, Span
from benchlint.registry import Selection
from benchlint.result import Coverage, Result
from benchlint.workspace import Failure, Workspace, file_status, folder_listing, path_kind

# Files layout detection checks for by name, beyond the shell and YAML files of the listing.
_PROBED = ("srtslurm.yaml.example",)
# The shape of the stored data: a change makes earlier entries unreadable (a miss, not an error).
FORMAT = 13


def question(ws: Workspace, selection: Selection, scope: list[str] | None) -> bytes:
    """What was asked: the rules by their selection (the same rules for the same code, and the
    cache's key holds the code's fingerprint: the rules need not be loaded to ask)."""
    config = dataclasses.asdict(ws.config)
    asked = {
        "format": FORMAT,
        "root": str(ws.root),
        "config": config,
        "rules": selection.key(),
        "scope": scope,
        # (BL001 asks `bash -n` whether a script is valid: with no bash, nothing is reported)
        "bash": shutil.which("bash"),
    }
    return json.dumps(asked, sort_keys=True, default=_plain).encode()


def _plain(value: Any) -> Any:
    return sorted(value) if isinstance(value, (set, frozenset)) else str(value)


def listing(ws: Workspace) -> bytes:
    parts = [
        "\n".join(sorted(ws.shell_paths)),
        "\n".join(sorted(ws.sourced_only)),
        "\n".join(sorted(ws.python_paths)),
        "\n".join(sorted(ws.docker_paths)),
        "\n".join(sorted(ws.yaml_paths)),
        "\n".join(sorted(ws.templates)),
        "\n".join(f"{k}->{v}" for k, v in sorted(ws.symlinks.items())),
        "\n".join(f"{k}=>{v}" for k, v in sorted(ws.folder_links.items())),
        "\n".join(name for name in _PROBED if (ws.root / name).is_file()),
    ]
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).digest()


def file_states(ws: Workspace, paths: list[str], started_ns: int) -> dict[str, list[Any]]:
    """What the stored result depends on: each file's content hash, and its status as it was
    read (size, modification and change times, inode: a write since changes the change time)
    when the file was last changed well before the run started (None otherwise, or for a file
    read through a symlink: a later run hashes it again)."""
    hashes = content_hashes(ws, paths)
    states: dict[str, list[Any]] = {}
    for path in paths:
        status = ws.statuses.get(path)
        if status is not None and status[2] >= started_ns - RACY_NS:
            status = None
        states[path] = [hashes[path], status]
    for folder, names in ws.folders.items():  # (a listing: its names' hash, no status)
        states[FOLDER + folder] = [_names_digest(names), None]
    for path, kind in ws.probed.items():  # (what is at a path: "file", "folder" or "")
        states[PROBED + path] = [kind.encode(), None]
    return states


# the key of a folder's listing among the files' states (no path holds a NUL), and of what is
# at a path a rule asked about
FOLDER = "\0folder:"
PROBED = "\0kind:"


def _names_digest(names: tuple[str, ...]) -> bytes:
    return hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape")).digest()


def unchanged(ws: Workspace, states: dict[str, Any]) -> bool:
    """Whether every file is as `file_states` found it: the same status (no write since, as a
    write sets the change time), else the same content hash."""
    try:
        for path, (digest, status) in states.items():
            if path.startswith(FOLDER):
                listed = folder_listing(ws.root, path.removeprefix(FOLDER))
                if _names_digest(listed) != digest:
                    return False
                continue
            if path.startswith(PROBED):
                if path_kind(ws.root, path.removeprefix(PROBED)).encode() != digest:
                    return False
                continue
            if status is not None and _status(ws, path) == status:
                continue
            if content_hashes(ws, [path])[path] != digest:
                return False
    except (TypeError, ValueError):  # data an earlier format wrote
        return False
    return True


def _status(ws: Workspace, path: str) -> list[int] | None:
    try:
        found = os.stat(ws.root / path)
    except (OSError, ValueError):
        return None
    return file_status(found)


def content_hashes(ws: Workspace, paths: list[str]) -> dict[str, bytes | None]:
    """Each path's content hash as the workspace reads it (None: it cannot be read); each
    file hashed once per run (the stored run's files are checked, then this run's stored)."""
    known = ws.models.setdefault("content hashes", {})
    assert isinstance(known, dict)
    hashes: dict[str, bytes | None] = {}
    for path in paths:
        if path not in known:
            known[path] = ws.digest(path)
        hashes[path] = known[path]
    return hashes


# -- the result as plain data ----------------------------------------------------------------------
def encode(result: Result) -> tuple[Any, ...]:
    coverage = dataclasses.astuple(result.coverage) if result.coverage is not None else None
    failures = [(f.path, f.message, tuple(f.span)) for f in result.failures]
    templates = sorted(result.workspace.templates) if result.workspace is not None else []
    findings = [_finding(f, result.severity(f)) for f in result.findings]
    counts = [(what, [_location(w) for w in where]) for what, where in result.undecided.items()]
    partial = [list(p) for p in result.partial]
    skipped = result.templates
    oversized = [list(p) for p in result.oversized]
    return (
        FORMAT,
        findings,
        failures,
        result.files_read,
        coverage,
        templates,
        counts,
        partial,
        skipped,
        oversized,
    )


def decode(data: Any, ws: Workspace, selection: Selection) -> Result | None:
    """The stored result on this workspace (for sources, snippets and fixes); None for data
    this code did not write."""
    try:
        form, findings, failures, files_read, coverage, templates, counts, partial, skipped, big = (
            data
        )
        if form != FORMAT:
            return None
        decoded = [_unfinding(f) for f in findings]
        undecided = {what: [_unlocation(w) for w in where] for what, where in counts}
        lost = [Failure(path, message, Span(*span)) for path, message, span in failures]
        covered = Coverage(*coverage) if coverage is not None else None
        oversized = [(path, size) for path, size in big]
    except (TypeError, ValueError):
        return None
    for failure in lost:
        ws.failures[failure.path] = failure
    ws.templates.update(templates)
    result = Result(ws.root, selection, decoded, lost, files_read, [], ws)
    result.coverage = covered
    result.undecided = undecided
    result.partial = [(path, line) for path, line in partial]
    result.templates = list(skipped)
    result.oversized = oversized
    return result


def _location(location: Location) -> tuple[Any, ...]:
    return (location.path, *location.span, location.label)


def _unlocation(data: tuple[Any, ...]) -> Location:
    path, line, column, end_line, end_column, label = data
    return Location(path, Span(line, column, end_line, end_column), label)


def _finding(finding: Finding, severity: Severity) -> tuple[Any, ...]:
    """A finding as plain data, with its severity (its rule's, where it has none of its own: a
    stored result is reported without loading the rules)."""
    fix = None
    if finding.fix is not None:
        edits = [(e.path, *e.span, e.text) for e in finding.fix.edits]
        fix = (finding.fix.description, edits, finding.fix.applicability)
    return (
        finding.rule,
        finding.message,
        _location(finding.location),
        [_location(r) for r in finding.related],
        finding.subject,
        severity.value,
        finding.help,
        list(finding.notes),
        fix,
        list(finding.involves),
        finding.fingerprint,
    )


def _unfinding(data: tuple[Any, ...]) -> Finding:
    (
        rule,
        message,
        location,
        related,
        subject,
        severity,
        help_,
        notes,
        fix,
        involves,
        fingerprint,
    ) = data
    decoded_fix = None
    if fix is not None:
        description, edits, applicability = fix
        decoded_fix = Fix(
            description,
            tuple(Edit(p, Span(a, b, c, d), text) for p, a, b, c, d, text in edits),
            applicability,
        )
    finding = Finding(
        rule,
        message,
        _unlocation(location),
        tuple(_unlocation(r) for r in related),
        subject,
        Severity(severity),
        help_,
        tuple(notes),
        decoded_fix,
        tuple(involves),
    )
    finding.fingerprint = fingerprint
    return finding
