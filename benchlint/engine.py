"""One run: read the repository, run the selected rules, filter, suppress and fingerprint."""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from benchlint.cache import Cache
from benchlint.config import Config
from benchlint.context import Context, inside, wiring_of
from benchlint.finding import Finding, Location, Severity
from benchlint.registry import Rule, all_rules
from benchlint.source import SourceText
from benchlint.suppress import Suppression, ignored_by_config, is_suppressed, suppressions
from benchlint.workspace import Failure, Workspace


@dataclass(frozen=True)
class RuleError:
    rule: str
    message: str


@dataclass
class Coverage:
    """What a run could wire: said in the summary line, so that a clean run on a repository
    benchlint could not wire is not mistaken for a checked one."""

    master_configs: int = 0
    entries: int = 0
    launchers: int = 0
    recipes: int = 0
    routed: int = 0  # recipes a route reaches
    reaching: int = 0  # entries that reach a launcher
    scripts: int = 0
    recipe_tree: bool = False  # an srt-slurm tree: its recipes are checked one by one, unrouted

    def describe(self) -> str:
        routed = f" ({self.routed} routed)" if self.recipes else ""
        return (
            f"{_count(self.master_configs, 'master config')} "
            f"({_count(self.entries, 'entry', 'entries')}), "
            f"{_count(self.launchers, 'launcher')}, {_count(self.recipes, 'recipe')}{routed}, "
            f"{_count(self.scripts, 'other script')}"
        )

    def blind_spot(self) -> str | None:
        """The warning for a repository with launchers or recipes that nothing routes to."""
        recipes = 0 if self.recipe_tree and not self.launchers else self.recipes
        has = " and ".join(
            _count(n, noun) for n, noun in ((self.launchers, "launcher"), (recipes, "recipe")) if n
        )
        if not has:
            return None
        if not self.entries:
            return (
                f"{has} but no master-config entry: no route was checked "
                "(`benchlint layout` shows what was detected)"
            )
        if self.reaching == 0:
            return (
                f"{has} but no entry reaches a launcher: no route was checked "
                "(`benchlint layout` shows what was detected)"
            )
        return None


def _count(n: int, noun: str, plural: str = "") -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {plural or noun + 's'}"


@dataclass
class Result:
    root: Path
    rules: list[Rule]
    findings: list[Finding]
    failures: list[Failure]
    files_read: int
    errors: list[RuleError] = field(default_factory=list)
    workspace: Workspace | None = None
    coverage: Coverage | None = None  # worked out for a whole repository only
    # where paths are shown from (text, concise, json): the folder benchlint was run in
    cwd: Path | None = None
    color: bool = False  # ANSI colour in the text report

    def display(self, path: str) -> str:
        """A repository-relative path as the user can type it from where they ran benchlint:
        relative to that folder when inside it, else absolute (as ruff and ShellCheck print)."""
        if self.cwd is None:
            return path
        full = self.root / path
        if full.is_relative_to(self.cwd):
            return full.relative_to(self.cwd).as_posix()
        return full.as_posix()

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
    """The rules to run: those selected (None: the rules on by default), less those ignored."""
    rules = all_rules()
    if select is None:
        rules = [r for r in rules if r.default_enabled]
    else:
        rules = [r for r in rules if r.id in select]
    return [r for r in rules if r.id not in ignore]


def lint(
    root: Path,
    config: Config,
    rules: list[Rule],
    named: list[Path],
    jobs: int | None = 1,
    cache: Cache | None = None,
    meanwhile: Callable[[], object] | None = None,
    standalone: bool = False,
    overlay: dict[str, bytes] | None = None,
) -> Result:
    """One run. `jobs`: processes (None: two for a whole repository of some size on a machine
    with two CPUs or more, else one). `cache`: facts kept between runs (None: none).
    `standalone`: the root is no repository (no `.git`, no configuration): named files are
    linted on their own, and a walk stops (TooManyFiles) past STANDALONE_ENTRIES.
    `meanwhile`: work the caller does after the run anyway and that does not depend on it
    (loading its reporter); a split run does it in the main process before the pooled recipes,
    which even it out, so it costs the run nothing. `overlay`: files' text as an editor holds
    it (root-relative path to bytes), read instead of the disk's."""
    scope = _scope(root, named)
    if standalone:  # not inside a repository: the files named alone, or a bounded walk
        files = scope is not None and all(p.is_file() for p in named)
        only = scope if files else None
        ws = Workspace(root, config, cache, only, STANDALONE_ENTRIES, overlay)
    else:
        ws = Workspace(root, config, cache, overlay=overlay)
    outcome = None
    first = [rule for rule in rules if not rule.after_suppressions]
    if _processes(ws, scope, jobs) > 1:
        from benchlint import split  # the fork and the pipes, only when used

        outcome = split.run(ws, first, _run_rules, meanwhile)
    if outcome is None:  # one process, or the second one failed
        outcome = _run_rules(Context(ws, scope), first)
    raw, errors = outcome
    errors = list(dict.fromkeys(errors))  # a rule that fails in both processes, once
    inline: dict[str, list[Suppression]] = {}
    findings = _kept(raw, ws, config, scope, inline)
    late = [rule for rule in rules if rule.after_suppressions]
    if late:  # rules about the suppressions see every one in scope, and which were used
        for path in sorted(set(ws.shell_paths + ws.yaml_paths)):
            if path in inline or ws.excluded(path):
                continue
            if scope is None or inside(path, scope):
                source = ws.source(path)
                inline[path] = suppressions(source) if source is not None else []
        ctx = Context(ws, scope)
        ctx.suppressions = inline
        ctx.ran = frozenset(r.id for r in first)
        late_raw, late_errors = _run_rules(ctx, late)
        # not suppressed inline: a `disable=ALL` would hide the report that it is unused
        findings += _kept(late_raw, ws, config, scope, None)
        errors += late_errors
    findings.sort(key=lambda f: (f.location.path, f.location.span, f.rule))
    _fingerprint(findings, ws)
    failures = sorted(
        (
            f
            for f in ws.failures.values()
            if (scope is None or inside(f.path, scope)) and not ws.excluded(f.path)
        ),
        key=lambda f: f.path,
    )
    result = Result(root, rules, findings, failures, ws.files_read, errors, ws)
    if scope is None:  # named files (pre-commit, an editor) spare the work: no summary of it
        result.coverage = _coverage(ws)
    return result


# A folder outside any repository is walked only this far (a system temporary folder holds
# tens of thousands of files, none of them a launcher).
STANDALONE_ENTRIES = 5000


def _kept(
    raw: list[Finding],
    ws: Workspace,
    config: Config,
    scope: list[str] | None,
    inline: dict[str, list[Suppression]] | None,
) -> list[Finding]:
    """The findings that are reported: once each, in scope, not ignored by the configuration or
    suppressed in their file (`inline`: each file's suppressions, read here on first need, and
    marked used; None: inline suppressions do not apply)."""
    findings: list[Finding] = []
    seen: set[tuple[str, Location, str]] = set()
    for finding in raw:
        key = (finding.rule, finding.location, finding.message)
        if key in seen:  # one array expanded by two launches, one file reached twice
            continue
        seen.add(key)
        if scope is not None and not any(inside(loc.path, scope) for loc in finding.locations()):
            continue
        if ws.excluded(finding.location.path):
            continue
        if ignored_by_config(finding, config.per_file_ignores):
            continue
        path = finding.location.path
        if inline is not None and path not in inline:
            source = ws.source(path)
            inline[path] = suppressions(source) if source is not None else []
        if inline is not None and is_suppressed(finding, inline[path]):
            continue
        findings.append(finding)
    return findings


def _coverage(ws: Workspace) -> Coverage:
    """What a whole-repository run wired (every route was built for the rules anyway)."""
    layout = ws.layout
    wiring = wiring_of(ws)
    launchers = set(ws.glob(layout.launchers))
    roots = tuple(root.rstrip("/") + "/" for root in ws.recipe_roots)
    recipes = [p for p in ws.yaml_paths if p.startswith(roots)]
    reaching = len({id(entry) for entry, _, _ in wiring.pairs})
    reached = {ref.path for route in wiring.routes for ref in wiring.recipes(route) if ref.path}
    routed = len(reached & set(recipes)) if wiring.pairs else 0
    return Coverage(
        master_configs=len(ws.glob(layout.master_configs)),
        entries=len(wiring.entries),
        launchers=len(launchers),
        recipes=len(recipes),
        routed=routed,
        reaching=reaching,
        scripts=len([p for p in ws.shell_paths if p not in launchers]),
        recipe_tree=ws.detected.recipe_tree,
    )


def _run_rules(ctx: Context, rules: list[Rule]) -> tuple[list[Finding], list[RuleError]]:
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
    return raw, errors


# Measured: on the 25-file example a second process neither helps nor hurts (0.35 s either way);
# on InferenceX's size it saves a third. Below this many files one process is kept: there is
# nothing to win, and one process is simpler to follow.
SPLIT_MIN_FILES = 200


def _processes(ws: Workspace, scope: list[str] | None, jobs: int | None) -> int:
    if scope is not None or not hasattr(os, "fork"):
        return 1  # named files are few: one process
    if jobs is not None:
        return min(jobs, 2)
    if len(ws.shell_paths) + len(ws.yaml_paths) < SPLIT_MIN_FILES:
        return 1
    if not sys.platform.startswith("linux"):
        return 1  # by default only where fork is the platform's own way (macOS prefers spawn)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return 2 if (cpus or 1) >= 2 else 1


def _scope(root: Path, named: list[Path]) -> list[str] | None:
    """The named paths relative to the root; None when the whole repository was named."""
    scope = []
    for path in named:
        rel = os.path.relpath(path.resolve(), root)
        if rel == ".":
            return None
        scope.append(rel.replace(os.sep, "/"))
    return scope or None


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
