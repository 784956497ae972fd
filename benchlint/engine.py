"""One run: read the repository, run the selected rules, filter, suppress and fingerprint."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from benchlint.config import Config
from benchlint.environment import Environment
from benchlint.finding import Finding, Severity
from benchlint.registry import Rule, all_rules
from benchlint.source import SourceText
from benchlint.suppress import Suppression, ignored_by_config, is_suppressed, suppressions
from benchlint.wiring import Wiring
from benchlint.workspace import Failure, Workspace


class Context:
    """What rules see: the workspace and the models built from it, each built once on demand."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.config = ws.config

    @cached_property
    def wiring(self) -> Wiring:
        return Wiring(self.ws)

    @cached_property
    def environment(self) -> Environment:
        return Environment(self.ws, self.wiring)


@dataclass
class RuleError:
    rule: str
    message: str


@dataclass
class Result:
    root: Path
    rules: list[Rule]
    findings: list[Finding]
    failures: list[Failure]
    files_read: int
    errors: list[RuleError] = field(default_factory=list)
    unused_suppressions: list[Suppression] = field(default_factory=list)
    workspace: Workspace | None = None

    def source(self, path: str) -> SourceText | None:
        return self.workspace.source(path) if self.workspace is not None else None

    def rule(self, rule_id: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rule_id), None)

    def severity(self, finding: Finding) -> Severity:
        if finding.severity is not None:
            return finding.severity
        rule = self.rule(finding.rule)
        return rule.severity if rule is not None else Severity.WARNING


def select_rules(config: Config, select: set[str] | None, ignore: set[str]) -> list[Rule]:
    rules = all_rules()
    if select:
        rules = [r for r in rules if r.id in select]
    return [r for r in rules if r.id not in ignore]


def lint(root: Path, config: Config, rules: list[Rule], named: list[Path]) -> Result:
    ws = Workspace(root, config)
    ctx = Context(ws)
    raw: list[Finding] = []
    errors: list[RuleError] = []
    for rule in rules:
        try:
            for finding in rule.check(ctx):
                raw.append(finding)
        except Exception as exc:  # a rule bug must not hide the other rules' findings
            errors.append(RuleError(rule.id, f"{type(exc).__name__}: {exc}"))
            if os.environ.get("BENCHLINT_DEBUG"):
                raise
    scope = _scope(root, named)
    findings: list[Finding] = []
    inline: dict[str, list[Suppression]] = {}
    for finding in raw:
        if scope is not None and not any(_inside(loc.path, scope) for loc in finding.locations()):
            continue
        if ignored_by_config(finding, config.per_file_ignores):
            continue
        path = finding.location.path
        if path not in inline:
            source = ws.source(path)
            inline[path] = suppressions(source) if source is not None else []
        if is_suppressed(finding, inline[path]):
            continue
        findings.append(finding)
    findings.sort(key=lambda f: (f.location.path, f.location.span, f.rule))
    _fingerprint(findings, ws)
    unused = [s for entries in inline.values() for s in entries if not s.used and not s.whole_file]
    failures = [f for f in ws.failures.values() if scope is None or _inside(f.path, scope)]
    return Result(root, rules, findings, failures, ws.files_read, errors, unused, ws)


def _scope(root: Path, named: list[Path]) -> list[str] | None:
    """The named paths relative to the root; None when the whole repository was named."""
    scope = []
    for path in named:
        rel = os.path.relpath(path.resolve(), root)
        if rel == ".":
            return None
        scope.append(rel.replace(os.sep, "/"))
    return scope or None


def _inside(path: str, scope: list[str]) -> bool:
    return any(path == s or path.startswith(s.rstrip("/") + "/") for s in scope)


def _fingerprint(findings: list[Finding], ws: Workspace) -> None:
    """Stable across edits elsewhere in the file: rule, path, subject and the line's own text."""
    seen: dict[str, int] = {}
    for finding in findings:
        source = ws.source(finding.location.path)
        line = source.line_text(finding.location.span.line) if source is not None else ""
        key = "\0".join(
            (finding.rule, finding.location.path, finding.subject, " ".join(line.split()))
        )
        seen[key] = seen.get(key, 0) + 1
        digest = hashlib.sha256(f"{key}\0{seen[key]}".encode("utf-8", "surrogateescape"))
        finding.fingerprint = digest.hexdigest()[:32]
