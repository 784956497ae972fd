"""Linting a workspace: the rules' passes (script by script, then over the repository), their
findings filtered, suppressed and fingerprinted; what the run wired (`Coverage`) and could not
decide."""

from __future__ import annotations

import hashlib
import os
import traceback
from collections.abc import Callable, Iterable

from benchlint.calls import call_graph
from benchlint.config import Config
from benchlint.context import Context, inside, wiring_of
from benchlint.finding import Finding, Location, Span
from benchlint.layout import recipes_outside_roots
from benchlint.lazyre import lazy_compile
from benchlint.registry import Rule, Selection
from benchlint.releases import runs_srtctl, unfollowed
from benchlint.result import Coverage, Result, RuleError
from benchlint.source import SourceText
from benchlint.suppress import (
    Suppression,
    continued_from,
    ignored_by_config,
    is_suppressed,
    suppressions,
)
from benchlint.wiring import Route, Wiring
from benchlint.workflow import WORKFLOWS, launch_lines
from benchlint.workspace import Workspace

UNMARKED_JOB = (
    "Slurm batch scripts whose first line is no `#!` line, linted as bash scripts (sbatch "
    'refuses them: "This does not look like a batch script"; add `#!/bin/bash` as the first line)'
)
OTHER_SHELL = (
    "scripts for another shell not linted (their #! line names zsh, ksh, fish or csh, whose "
    "language is not bash's)"
)


def lint(ws: Workspace, selection: Selection, scope: list[str] | None) -> Result:
    """Lint the workspace with the selected rules (`scope`: the named paths; None: all of it)."""
    rules = selection.rules()
    if scope is None:  # every file will be read: its YAML is parsed alongside, where it pays
        ws.prefetch()
        ws.model_scripts()
    try:
        return _run_prefetched(ws, selection, rules, scope)
    finally:
        ws.close()


def _run_prefetched(
    ws: Workspace, selection: Selection, rules: list[Rule], scope: list[str] | None
) -> Result:
    config = ws.config
    ws.document_passes = {r.id: r.document_pass for r in rules if r.document_pass is not None}
    first = [rule for rule in rules if not rule.after_suppressions]
    context = Context(ws, scope)
    raw, errors = _run_rules(context, first)
    inline: dict[str, list[Suppression]] = {}
    findings = _kept(raw, ws, config, scope, inline)
    late = [rule for rule in rules if rule.after_suppressions]
    if late:  # rules about the suppressions see every one in scope, and which were used
        for path in sorted(set(ws.shell_paths + ws.yaml_paths)):
            if path in inline or ws.excluded(path):
                continue
            if scope is None or inside(path, scope):
                inline[path] = _suppressions(ws, path)
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
    result = Result(ws.root, selection, findings, failures, ws.files_read, errors, ws)
    result.partial = sorted(
        (path, line)
        for path, line in ws.partial.items()
        if (scope is None or inside(path, scope)) and not ws.excluded(path)
    )
    result.templates = sorted(
        p for p in ws.templates if (scope is None or inside(p, scope)) and not ws.excluded(p)
    )
    result.oversized = sorted(
        (p, size)
        for p, size in ws.oversized.items()
        if (scope is None or inside(p, scope)) and not ws.excluded(p)
    )
    for path in sorted(p for p in ws.other_shells if not ws.excluded(p)):
        context.count(OTHER_SHELL, Location(path, Span(1, 1, 1, 3)))
    # (not a template of one, which is not linted: the run says so once, as a template)
    unmarked = (p for p in ws.unmarked_jobs if not ws.excluded(p) and p not in ws.templates)
    for path in sorted(unmarked):
        context.count(UNMARKED_JOB, Location(path, Span(1, 1, 1, 2)))
    for what, where in sorted(context.undecided.items()):
        # (an excluded file is read, not reported: what a rule could not decide there neither)
        reached = {w for w in where if not _never_reached(w, ws) and not ws.excluded(w.path)}
        kept = {
            w
            for w in reached
            if scope is None
            or inside(w.path, scope)  # (or about a named file: said where it was met)
            or any(inside(p, scope) for p in context.involved.get((what, w), ()))
        }
        # (one place once: two blocks of one recipe counted at its container, each with its
        # first undecided flag for a label, are one recipe; the least label is kept)
        places = {(w.path, w.span): w for w in sorted(kept, key=lambda w: w.label, reverse=True)}
        if places:
            result.undecided[what] = sorted(places.values(), key=lambda w: (w.path, w.span))
    if scope is None:  # named files (pre-commit, an editor) spare the work: no summary of it
        result.coverage = _coverage(context)
    else:
        result.coverage = _named_coverage(context)
    return result


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
        if _never_runs(finding, ws):
            continue
        if ignored_by_config(finding, config.per_file_ignores):
            continue
        path = finding.location.path
        if inline is not None and path not in inline:
            inline[path] = _suppressions(ws, path)
        if inline is not None and is_suppressed(finding, inline[path], _first_line(ws, finding)):
            continue
        findings.append(finding)
    return findings


def _first_line(ws: Workspace, finding: Finding) -> int | None:
    """The first line of the `\\`-continued shell command the finding's line is in (None for a
    file that is not shell, or a line no other continues into)."""
    path = finding.location.path
    source = ws.source(path) if ws.is_shell(path) else None
    if source is None:
        return None
    line = finding.location.span.line
    first = continued_from(source, line)
    return first if first != line else None


def _suppressions(ws: Workspace, path: str) -> list[Suppression]:
    """The file's inline suppressions that are comments: a `# benchlint: disable=...` inside a
    quoted string, a heredoc's body or a YAML scalar is text the file holds, not a comment."""
    source = ws.source(path)
    if source is None:
        return []
    found = suppressions(source)
    if not found:
        return found
    literals = _literal_spans(ws, path)
    return [
        s
        for s in found
        if not any((a, b) <= (s.line, s.directive[0]) < (c, d) for a, b, c, d in literals)
    ]


def _literal_spans(ws: Workspace, path: str) -> list[Span]:
    """Where a file holds text rather than code: a script's words (quoted strings over several
    lines) and heredoc bodies; a YAML file's scalars."""
    spans: list[Span] = []
    if ws.is_shell(path):
        script = ws.shell(path)
        for command in script.commands if script is not None else []:
            if command.script is not script:
                continue
            words = [*command.words, *(a.value for a in command.assignments if a.value)]
            words += [r.target for r in command.redirects]
            spans += [script.span(w.node) for w in words]
        spans += _heredoc_bodies(ws.source(path))
    else:
        document = ws.yaml(path, keep=False)
        if document is not None:
            spans += [n.span for n in document.walk() if n.is_scalar]
    return spans


# `<<EOF`, `<<-'EOF'`, `<< "EOF"` (not a here-string `<<<`)
_HEREDOC = lazy_compile(r"(?<!<)<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")


def _heredoc_bodies(source: SourceText | None) -> list[Span]:
    """The lines of a script's heredoc bodies, read as bash reads them: from the line after the
    `<<WORD` to the line that is WORD (tabs before it allowed with `<<-`), bodies of one line
    one after the other."""
    if source is None or "<<" not in source.text:
        return []
    lines = source.text.split("\n")
    spans: list[Span] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        pending = [  # (not a shift in arithmetic: `$(( 1 << BITS ))`)
            (m.group(1), m.group(3))
            for m in _HEREDOC.finditer(line)
            if "((" not in line[: m.start()]
        ]
        index += 1
        for dash, word in pending:
            start = index
            while (
                index < len(lines) and (lines[index].lstrip("\t") if dash else lines[index]) != word
            ):
                index += 1
            spans.append(Span(start + 1, 1, index + 1, 1))
            index += 1
    return spans


def _never_runs(finding: Finding, ws: Workspace) -> bool:
    """A finding at or after the place a file failed to parse: in a script, the statement bash
    cannot read (it runs the statements before it, then exits with status 2: nothing from there
    on ever runs); BL001 reports the error. (A YAML file that fails has no model to report on.)"""
    return finding.rule != "BL001" and _never_reached(finding.location, ws)


def _never_reached(where: Location, ws: Workspace) -> bool:
    """A place at or after the statement bash cannot read in a script that failed to parse
    (`_never_runs`): nothing there is reported, nor said undecided."""
    failure = ws.failures.get(where.path)
    return failure is not None and where.span.line >= failure.stops_at


def _coverage(ctx: Context) -> Coverage:
    """What a whole-repository run wired (every route was built for the rules anyway)."""
    ws = ctx.ws
    layout = ws.layout
    wiring = wiring_of(ws)
    launchers = set(ws.glob(layout.launchers))
    masters = ws.glob(layout.master_configs)
    recipes = ws.recipe_paths
    reaching = len({id(entry) for entry, _, _ in wiring.pairs})
    reached = {ref.path for route in wiring.routes for ref in wiring.recipes(route) if ref.path}
    elsewhere = _recipes_elsewhere(context=ctx, routes=wiring.routes)
    routed = len(reached & set(recipes)) if wiring.pairs else 0
    return Coverage(
        master_configs=len(masters),
        entries=len(wiring.entries),
        launchers=len(launchers),
        recipes=len(recipes),
        routed=routed,
        reaching=reaching,
        scripts=len([p for p in ws.shell_paths if p not in launchers and p not in ws.templates]),
        yaml=len(set(ws.yaml_paths) - set(masters) - set(recipes) - ws.templates),
        recipe_tree=ws.detected.recipe_tree,
        unwired=tuple(ws.detected.unwired),
        unfollowed=tuple(unfollowed(ctx).items()),
        templates=len([p for p in ws.templates if not ws.excluded(p)]),
        deprecated=tuple(ws.detected.deprecated),
        calls=len([e for e in wiring.entries if e.step is not None]),
        unrouted=tuple(dict.fromkeys(f"{c.path} ({c.name})" for c in wiring.unrouted_calls)),
        unreached=tuple((label, len(calls)) for label, calls in sorted(wiring.unreached.items())),
        guessed=tuple((label, len(calls)) for label, calls in sorted(wiring.guessed.items())),
        upstream=tuple(sorted(elsewhere["upstream"] - elsewhere["uncopied"])),
        untold=tuple(sorted(elsewhere["unknown"] | elsewhere["outside"])),
        uncopied=tuple(sorted(elsewhere["uncopied"])),
        stray=_stray_launches(ws),
        idle=_idle_launchers(ws, wiring, launchers) if reaching else (),
        loose_recipes=recipes_outside_roots(ws),
    )


def _idle_launchers(ws: Workspace, wiring: Wiring, launchers: set[str]) -> tuple[str, ...]:
    """The launchers no route reaches, itself or as a file a reached one runs or sources
    (`exec bash other.sh`, `bash other.sh`, `source common.sh`), at any depth; a symlink
    counts as its target."""
    reached = {ws.symlinks.get(r.launcher.path, r.launcher.path) for r in wiring.routes}
    reached |= {c.script.path for r in wiring.routes for c in r.via}
    graph = call_graph(ws)
    pending = list(reached)
    while pending:
        path = pending.pop()
        if not ws.is_script(path):
            continue
        for _, targets in graph.facts(path):
            for target in targets:
                target = ws.symlinks.get(target, target)
                if target not in reached:
                    reached.add(target)
                    pending.append(target)
    return tuple(sorted({p for p in launchers if ws.symlinks.get(p, p) not in reached}))


def _recipes_elsewhere(context: Context, routes: list[Route]) -> dict[str, set[str]]:
    """The names of the entries whose recipe, on one of these routes, is srt-slurm's own
    ("upstream"; "uncopied" where this repository has a recipe at that path, which the launcher
    does not copy there), or one whose file cannot be told ("unknown", "outside"). A route whose
    launcher surely ends before its first copy of recipes reaches no recipe (an `exit 1` for
    a model it does not serve): its CONFIG_FILE is not upstream for want of the copy."""
    found: dict[str, set[str]] = {
        "upstream": set(),
        "uncopied": set(),
        "unknown": set(),
        "outside": set(),
    }
    for route in routes:
        overlays = route.launcher.overlays
        stops = bool(overlays) and route.ends_before(overlays[0].command)
        # (a launcher that runs no srtctl runs no recipe: its entries are unfollowed, not
        # upstream)
        stops = stops or not runs_srtctl(context, route.launcher.path)
        for ref in context.wiring.recipes(route):
            if ref.status == "upstream" and stops:
                continue
            if ref.status == "upstream" and ref.mirror is not None:
                found["uncopied"].add(route.entry.name)
            elif ref.status in found:
                found[ref.status].add(route.entry.name)
    return found


def _named_coverage(ctx: Context) -> Coverage | None:
    """A run that names files: the warnings about them. The route warnings over the routes of
    the entries of a named master config or through a named launcher (`Context.routes`: those
    the rules asked for, the same where none did); a named workflow's launch lines outside the
    routed workflows; a named master config in a deprecated folder."""
    ws = ctx.ws
    workflows = ctx.in_scope(ws.glob(list(WORKFLOWS)))
    stray = _stray_launches(ws, workflows) if workflows else ()
    deprecated = tuple(ctx.in_scope(list(ws.detected.deprecated)))
    # (the routes in scope even where no selected rule asked for them: a pre-commit hook with
    # `--select` says what a whole run with it says)
    asked = ctx.routes_asked if ctx.routes_asked is not None else ctx.routes()
    wiring = ctx.wiring
    # (a route is about a named recipe too: the one it applies, or this repository's file of
    # that path it does not copy)
    routes = [
        r
        for r in asked
        if ctx.route_in_scope(*ctx.route_paths(r), *(f.path or f.mirror for f in wiring.recipes(r)))
    ]
    # the workflow calls of a named workflow that reach no launcher, or pass a runner not known
    unreached = tuple(
        (label, n)
        for label, calls in sorted(wiring.unreached.items())
        if (n := len([c for c in calls if ctx.route_in_scope(c.path)]))
    )
    unrouted = tuple(
        dict.fromkeys(
            f"{c.path} ({c.name})" for c in wiring.unrouted_calls if ctx.route_in_scope(c.path)
        )
    )
    guessed = tuple(
        (label, n)
        for label, calls in sorted(wiring.guessed.items())
        if (n := len([c for c in calls if ctx.route_in_scope(c.path)]))
    )
    if not routes and not stray and not deprecated and not unreached and not unrouted:
        return None
    elsewhere = _recipes_elsewhere(ctx, routes)
    return Coverage(
        unfollowed=tuple(unfollowed(ctx, routes).items()) if routes else (),
        upstream=tuple(sorted(elsewhere["upstream"] - elsewhere["uncopied"])),
        untold=tuple(sorted(elsewhere["unknown"] | elsewhere["outside"])),
        uncopied=tuple(sorted(elsewhere["uncopied"])),
        unreached=unreached,
        guessed=guessed,
        unrouted=unrouted,
        stray=stray,
        deprecated=deprecated,
        named=True,
    )


def _stray_launches(ws: Workspace, workflows: list[str] | None = None) -> tuple[str, ...]:
    """The steps of workflows outside the layout's `workflows` that run a launcher (a profiling
    or a test workflow started by hand): no entry's route goes through them. `workflows`: those
    to look in (every one by default)."""
    routed = set(ws.glob(ws.layout.workflows))
    found = launch_lines(ws, workflows or [*ws.layout.workflows, *WORKFLOWS])
    return tuple(
        dict.fromkeys(f"{at.path}:{at.span.line}" for at, _ in found if at.path not in routed)
    )


def _run_rules(ctx: Context, rules: list[Rule]) -> tuple[list[Finding], list[RuleError]]:
    """The rules' script passes, script by script (each script is modelled once and seen by
    every rule before the next), then their passes over the repository, rule by rule."""
    raw: list[Finding] = []
    failed: dict[str, RuleError] = {}
    scripted = [rule for rule in rules if rule.script_pass is not None]
    if scripted:
        for path in ctx.in_scope(ctx.ws.shell_paths):
            script = ctx.ws.shell(path)
            if script is None:
                continue
            for rule in scripted:
                if rule.script_pass is not None and rule.id not in failed:
                    _run_pass(rule, raw, failed, rule.script_pass, ctx, script)
            del script
            ctx.ws.let_go(path)
    for rule in scripted:  # the scripts outside the scope a rule's findings may come from
        if ctx.scope is None or rule.beyond is None or rule.script_pass is None:
            continue
        for path in rule.beyond(ctx):
            script = ctx.ws.shell(path)
            if script is not None and rule.id not in failed and not ctx.in_scope([path]):
                _run_pass(rule, raw, failed, rule.script_pass, ctx, script)
    for rule in rules:
        if rule.check is not None and rule.id not in failed:
            _run_pass(rule, raw, failed, rule.check, ctx)
    return raw, list(failed.values())


def _run_pass(
    rule: Rule,
    raw: list[Finding],
    failed: dict[str, RuleError],
    run: Callable[..., Iterable[Finding]],
    *args: object,
) -> None:
    """Add what one pass of a rule finds; a rule that fails is run no further (a rule bug must
    not hide the other rules' findings)."""
    try:
        raw.extend(run(*args))
    except Exception as exc:
        if os.environ.get("BENCHLINT_DEBUG"):
            raise
        trace = "".join(traceback.format_exception(exc))
        failed[rule.id] = RuleError(rule.id, f"{type(exc).__name__}: {exc}", trace)


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
