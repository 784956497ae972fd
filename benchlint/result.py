"""What a run found: the findings, the files that could not be parsed, and what was wired."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from benchlint.finding import Finding, Location, Severity
from benchlint.lazyre import lazy_compile
from benchlint.registry import Rule, Selection
from benchlint.source import SourceText
from benchlint.workspace import Failure, Workspace


@dataclass(frozen=True)
class RuleError:
    rule: str
    message: str
    trace: str = ""  # (the traceback, shown with `--debug`)


@dataclass(frozen=True)
class Notice:
    """A warning of what a run could not see, wire or decide: its sentence (which names the
    first three places), every file and line it is about (line 0: the file as a whole), the
    entries or workflow calls it is about, and the rule that could not decide, if one."""

    text: str
    places: tuple[tuple[str, int], ...] = ()
    entries: tuple[str, ...] = ()
    rule: str | None = None


def _files(paths: tuple[str, ...] | list[str]) -> tuple[tuple[str, int], ...]:
    """Files as places, sorted: the same whatever order the run found them in."""
    return tuple((path, 0) for path in sorted(set(paths)))


def _lines(places: tuple[str, ...] | list[str]) -> tuple[tuple[str, int], ...]:
    """Places written `path:line`, as pairs, sorted."""
    pairs = set()
    for place in places:
        path, _, line = place.rpartition(":")
        pairs.add((path, int(line)) if path and line.isdigit() else (place, 0))
    return tuple(sorted(pairs))


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
    # the other YAML files read (workflows, Kubernetes, Compose, SkyPilot files, configuration)
    yaml: int = 0
    recipe_tree: bool = False  # an srt-slurm tree: its recipes are checked one by one, unrouted
    unwired: tuple[str, ...] = ()  # master configs of another project kept in the repository
    # launchers that run no script or recipe benchlint can follow, with the names of the
    # entries they run nothing for
    unfollowed: tuple[tuple[str, tuple[str, ...]], ...] = ()
    templates: int = 0  # files that are templates of YAML or shell (Helm, Jinja): not linted
    deprecated: tuple[str, ...] = ()  # master configs in a `deprecated/` folder: not linted
    calls: int = 0  # of the entries, jobs that call a workflow that runs a launcher
    # such calls whose runner is not known (`runner: ${{ matrix.runner }}`): "workflow (job)"
    unrouted: tuple[str, ...] = ()
    # the labels of workflow calls that lead to no launcher, each with how many calls
    unreached: tuple[tuple[str, int], ...] = ()
    # the labels of workflow calls routed only by taking the label as the runners' own name
    # prefix (`h200` as runners `h200_<n>`: no runners file, no `<label>-<site>` launcher)
    guessed: tuple[tuple[str, int], ...] = ()
    # entries whose recipe is srt-slurm's own (the checkout the launcher clones), and entries
    # whose recipe's path cannot be told: their recipes were not checked
    upstream: tuple[str, ...] = ()
    untold: tuple[str, ...] = ()
    # entries whose recipe is srt-slurm's own though this repository has one at that path (in
    # a recipe root), which their launcher does not copy into the checkout for them
    uncopied: tuple[str, ...] = ()
    # steps of workflows outside the layout's `workflows` that run a launcher ("path:line")
    stray: tuple[str, ...] = ()
    # launchers no entry's route reaches, where some entry reaches a launcher
    idle: tuple[str, ...] = ()
    # YAML files of srtctl's recipe shape outside the recipe roots (t81a, dgxc-benchmarking's
    # `config_template.yaml`): not read as recipes
    loose_recipes: tuple[str, ...] = ()
    # a run that names files: only the warnings about the routes through them (no summary)
    named: bool = False

    def describe(self) -> str:
        routed = f" ({self.routed} routed)" if self.recipes else ""
        skipped = f"; {counted(self.templates, 'template')} not linted" if self.templates else ""
        calls = f", {counted(self.calls, 'workflow call')}" if self.calls else ""
        return (
            f"{counted(self.master_configs, 'master config')} "
            f"({counted(self.entries - self.calls, 'entry', 'entries')}){calls}, "
            f"{counted(self.launchers, 'launcher')}, {counted(self.recipes, 'recipe')}{routed}, "
            f"{counted(self.scripts, 'other script')}"
            + (f", {counted(self.yaml, 'other YAML file')}" if self.yaml else "")
            + skipped
        )

    def other_projects(self) -> Notice | None:
        """The warning for master configs that belong to another project in the repository."""
        if not self.unwired:
            return None
        text = (
            f"{counted(len(self.unwired), 'master config')} in {_folders(self.unwired)} beside a "
            "runners file of another project kept in this repository: not wired or checked (lint "
            "that project as a repository of its own: a `.benchlint.toml` in its folder makes it "
            "one)"
        )
        return Notice(text, _files(self.unwired))

    def blind_spot(self) -> Notice | None:
        """The warning for a repository with launchers or recipes that nothing routes to."""
        recipes = 0 if self.recipe_tree and not self.launchers else self.recipes
        has = " and ".join(
            counted(n, noun) for n, noun in ((self.launchers, "launcher"), (recipes, "recipe")) if n
        )
        if not has:
            if self.entries and self.reaching == 0:  # entries, and nothing for them to reach
                entries = counted(self.entries, "master-config entry", "master-config entries")
                return Notice(
                    f"{entries} but no launcher: no route was checked (no runners file or "
                    "launcher was found; `benchlint layout` shows what was detected)"
                )
            return None
        if not self.entries:
            return Notice(
                f"{has} but no master-config entry or workflow call to route: no route was checked "
                "(`benchlint layout` shows what was detected)"
            )
        if self.reaching == 0:
            return Notice(
                f"{has} but no entry reaches a launcher: no route was checked "
                "(`benchlint layout` shows what was detected)"
            )
        return None

    def not_followed(self) -> Notice | None:
        """The warning for entries whose launcher runs nothing benchlint can follow."""
        if not self.unfollowed:
            return None
        names = list(dict.fromkeys(name for _, entries in self.unfollowed for name in entries))
        launchers = [path for path, _ in self.unfollowed]
        reach = "reaches" if len(names) == 1 else "reach"
        one = len(launchers) == 1
        launcher, runs = ("a launcher", "runs") if one else ("launchers", "run")
        text = (
            f"{counted(len(names), 'entry', 'entries')} ({_first(names)}) {reach} {launcher} "
            f"({_first(launchers)}) that {runs} no script or recipe benchlint can follow for "
            "them: what their jobs run was not checked against them (`benchlint explain ENTRY` "
            "shows the launcher's calls)"
        )
        return Notice(text, _files(launchers), tuple(names))

    def unrouted_calls(self) -> Notice | None:
        """The warning for workflow calls whose runner is not known."""
        if not self.unrouted:
            return None
        text = (
            f"{counted(len(self.unrouted), 'workflow call')} ({_first(list(self.unrouted))}) "
            "of a workflow that runs a launcher "
            f"{'passes' if len(self.unrouted) == 1 else 'pass'} a runner not known statically (a "
            "matrix value, an input no caller gives, a dispatch's choice): their routes were not "
            "checked"
        )
        paths = [entry.split(" (", 1)[0] for entry in self.unrouted]  # (`path (name)`)
        return Notice(text, _files(paths), entries=self.unrouted)

    def idle_launchers(self) -> Notice | None:
        """The warning for launchers that no entry's route reaches (a retired runner's, or one
        run by a workflow benchlint does not route): linted as scripts, with no entry's
        values."""
        if not self.idle:
            return None
        one = len(self.idle) == 1
        text = (
            f"{counted(len(self.idle), 'launcher')} ({_first(list(self.idle))}) that no entry "
            f"reaches: linted as {'a script' if one else 'scripts'} alone, not with the values "
            "of an entry (benchlint routes no master-config entry or workflow call to "
            f"{'it' if one else 'them'}: `benchlint layout` shows what was detected)"
        )
        return Notice(text, _files(self.idle))

    def unreached_labels(self) -> Notice | None:
        """The warning for workflow calls whose runner label leads to no launcher."""
        if not self.unreached:
            return None
        calls = sum(n for _, n in self.unreached)
        labels = [label for label, _ in self.unreached]
        reach = "reaches" if calls == 1 else "reach"
        label = "label" if len(labels) == 1 else "labels"
        text = (
            f"{counted(calls, 'workflow call')} with the runner {label} {_first(labels)} {reach} "
            "no launcher (no runners file lists a label's runners, and no launcher is named "
            "after it): their routes were not checked"
        )
        return Notice(text, entries=tuple(labels))

    def guessed_labels(self) -> Notice | None:
        """The warning for workflow calls routed by a guess of their runners' names."""
        if not self.guessed:
            return None
        calls = sum(n for _, n in self.guessed)
        labels = [label for label, _ in self.guessed]
        label = "label" if len(labels) == 1 else "labels"
        text = (
            f"{counted(calls, 'workflow call')} with the runner {label} {_first(labels)} routed "
            "by taking the label for its runners' name prefix (runners named `<label>_<n>`): no "
            "runners file lists a label's runners, and no launcher serves runners named "
            "`<label>-<site>_<n>`; if the runners are named otherwise, their jobs run another "
            "launcher, or none"
        )
        return Notice(text, entries=tuple(labels))

    def retired(self) -> Notice | None:
        """The warning for master configs set aside in a `deprecated/` folder."""
        if not self.deprecated:
            return None
        text = (
            f"{counted(len(self.deprecated), 'master config')} in a deprecated folder "
            f"({_folders(self.deprecated)}) not linted: the routes, recipes and images of their "
            "entries were not checked (list them in `master-configs` under the configuration's "
            "`[layout]` to lint them)"
        )
        return Notice(text, _files(self.deprecated))

    def unchecked_recipes(self) -> list[Notice]:
        """The warnings for entries whose recipes are not this repository's, or not known."""
        found = []
        one = len(self.upstream) == 1
        if self.upstream:
            runs, recipes, its = ("runs", "a recipe", "its") if one else ("run", "recipes", "their")
            text = (
                f"{counted(len(self.upstream), 'entry', 'entries')} "
                f"({_first(list(self.upstream))}) "
                f"{runs} {recipes} of the srt-slurm checkout the launcher clones, not this "
                f"repository's: {its} values were not checked (`benchlint explain ENTRY` shows "
                "the route)"
            )
            found.append(Notice(text, entries=self.upstream))
        one = len(self.uncopied) == 1
        if self.uncopied:
            runs, recipes, has, launcher = (
                ("runs", "a recipe", "one at that path", "its launcher does")
                if one
                else ("run", "recipes", "some at those paths", "their launchers do")
            )
            its = "its" if one else "their"
            text = (
                f"{counted(len(self.uncopied), 'entry', 'entries')} "
                f"({_first(list(self.uncopied))}) "
                f"{runs} {recipes} of the srt-slurm checkout the launcher clones, though this "
                f"repository has {has} (under a recipe root) that {launcher} not copy: this "
                f"repository's file is not what {its} jobs run, and srt-slurm's was not checked "
                "(`benchlint explain ENTRY` shows the route)"
            )
            found.append(Notice(text, entries=self.uncopied))
        one = len(self.untold) == 1
        if self.untold:
            names, recipes, it = (
                ("names", "a recipe", "it was") if one else ("name", "recipes", "they were")
            )
            text = (
                f"{counted(len(self.untold), 'entry', 'entries')} ({_first(list(self.untold))}) "
                f"{names} {recipes} (CONFIG_FILE) whose file cannot be told: {it} not checked "
                "(`benchlint explain ENTRY` shows the route)"
            )
            found.append(Notice(text, entries=self.untold))
        return found

    def stray_launches(self) -> Notice | None:
        """The warning for workflow steps that run a launcher outside the routed workflows."""
        if not self.stray:
            return None
        text = (
            f"{counted(len(self.stray), 'workflow step')} ({_first(list(self.stray))}) "
            f"run{'s' if len(self.stray) == 1 else ''} a launcher in a workflow outside those "
            "benchlint routes entries through (the layout's `workflows`): what those jobs run "
            "was not checked (`benchlint layout` shows the workflows)"
        )
        return Notice(text, _lines(self.stray))

    def outside_recipe_roots(self) -> Notice | None:
        """The warning for files that look like srtctl recipes outside the recipe roots."""
        if not self.loose_recipes:
            return None
        one = len(self.loose_recipes) == 1
        its, them = ("its", "it") if one else ("their", "them")
        text = (
            f"{counted(len(self.loose_recipes), 'YAML file')} "
            f"({_first(sorted(self.loose_recipes))}) of srtctl's recipe shape "
            "(`model:` with a `path`, `resources:`, a `backend:` with an engine's config, or "
            "schema 2's `engine:` and `roles:`) in "
            f"{_folders(self.loose_recipes, 'the repository root')}, outside the recipe folders, "
            f"not checked as {'a recipe' if one else 'recipes'}: {its} time budget (BL204) and "
            f"routes (`benchlint explain`) were not checked, {its} engine flags were (list "
            f"{its} {'folder' if one else 'folders'} in `recipe-roots` under the "
            f"configuration's `[layout]` to check {them} as {'a recipe' if one else 'recipes'})"
        )
        return Notice(text, _files(self.loose_recipes))

    def notices(self) -> list[Notice]:
        """What the run could not wire, for every output to say."""
        found = (
            self.other_projects(),
            self.blind_spot(),
            *self.unchecked_recipes(),
            self.stray_launches(),
            self.not_followed(),
            self.unrouted_calls(),
            self.unreached_labels(),
            self.guessed_labels(),
            self.idle_launchers(),
            self.retired(),
            self.outside_recipe_roots(),
        )
        return [w for w in found if w is not None]


_RULE = lazy_compile(r"\((BL\d{3})\b")  # the rule an undecided count is from: "... (BL116)"


def _folders(paths: tuple[str, ...], root: str = ".") -> str:
    """The folders of these files, the first three and how many more (`root`: how the
    repository's root is said)."""
    return _first(sorted({p.rsplit("/", 1)[0] if "/" in p else root for p in paths}))


def _first(names: list[str]) -> str:
    """The first three names, and how many more."""
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _size(n: int, up: bool = False) -> str:
    """A size as people read it: `2.6 MiB`, `1 MiB`, `600 KiB`, `900 bytes`; `up`: rounded up
    (a file larger than a limit of 1 MiB is not shown as `1 MiB`)."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            tenths = -(-n * 10 // scale) if up else round(n * 10 / scale)
            return f"{tenths / 10:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n} bytes"


def counted(n: int, noun: str, plural: str = "") -> str:
    """`n` and the noun, plural where `n` is not 1 (`plural`: where not the noun and an s)."""
    return f"{n} {noun}" if n == 1 else f"{n} {plural or noun + 's'}"


@dataclass
class Result:
    root: Path
    selection: Selection  # the rules asked for (`rules`: the rules themselves, loaded on need)
    findings: list[Finding]
    failures: list[Failure]
    files_read: int
    errors: list[RuleError] = field(default_factory=list)
    workspace: Workspace | None = None
    coverage: Coverage | None = None  # worked out for a whole repository only
    # what rules could not decide, so did not report, and where (said in every report)
    undecided: dict[str, list[Location]] = field(default_factory=dict)
    # where paths are shown from (text, concise, json): the folder benchlint was run in
    cwd: Path | None = None
    color: bool = False  # ANSI colour in the text report
    unsafe_fixes: bool = False  # whether `--fix` would apply the unsafe fixes (`[*]`, the hint)
    # scripts in scope bash accepts but tree-sitter-bash parses only in part: (path, first line)
    partial: list[tuple[str, int]] = field(default_factory=list)
    # files in scope that are templates (YAML with Go or Jinja syntax, a script to fill in)
    templates: list[str] = field(default_factory=list)
    # files in scope larger than `max-file-size` (master configs aside), not linted: (path, bytes)
    oversized: list[tuple[str, int]] = field(default_factory=list)
    # the content hash of the run cache's entry that holds this result (None: not kept there):
    # a report rendered from it is kept by it
    stored: bytes | None = None

    def warnings(self) -> list[str]:
        """What the run could not see or wire, for every report to say."""
        return [notice.text for notice in self.notices()]

    def shown_warnings(self) -> list[str]:
        """`warnings`, each place a sentence names as the user can type it from where they ran
        benchlint (`display`), as the findings' paths are shown."""
        return [self.shown(notice) for notice in self.notices()]

    def shown(self, notice: Notice) -> str:
        """A notice's sentence with the places it names (`path:line`, `path`) shown as
        `display` shows paths inside the folder benchlint ran in (`r/x.sh` from the folder
        above the repository); outside it, as the repository has them (a sentence of absolute
        paths reads badly)."""
        text = notice.text
        if self.cwd is None or not self.root.is_relative_to(self.cwd):
            return text
        for path, line in notice.places:
            written = f"{path}:{line}" if line else path
            shown = self.display(path) + (f":{line}" if line else "")
            if shown != written:
                pattern = rf"(?<=[(\s]){re.escape(written)}(?=[,)\s]|$)"
                text = re.sub(pattern, shown.replace("\\", "\\\\"), text)
        return text

    def notices(self) -> list[Notice]:
        """The warnings with every place they are about (`warnings` names the first three)."""
        found = self.coverage.notices() if self.coverage is not None else []
        if self.partial:
            shown = ", ".join(f"{path}:{line}" for path, line in self.partial[:3])
            more = f" and {len(self.partial) - 3} more" if len(self.partial) > 3 else ""
            text = (
                f"{counted(len(self.partial), 'script')} that `bash -n` accepts but "
                f"tree-sitter-bash parses only in part ({shown}{more}): the commands from that "
                "line on may be misread or missed"
            )
            found.append(Notice(text, tuple(sorted(self.partial))))
        for what, where in self.undecided.items():
            places = [f"{w.path}:{w.span.line}" + (f" {w.label}" if w.label else "") for w in where]
            rule = _RULE.search(what)
            found.append(
                Notice(
                    f"{what}: {len(where)} ({_first(places)})",
                    tuple((w.path, w.span.line) for w in where),
                    rule=rule.group(1) if rule is not None else None,
                )
            )
        if self.templates:
            text = (
                f"{counted(len(self.templates), 'template')} not linted ({_first(self.templates)}):"
                " YAML with Go or Jinja syntax or a placeholder (`${...}`, `{name}`), or a script"
                " with a value to fill in (`<...>`) or Jinja statements (`{% if x %}`); "
                "exclude them in the configuration if that is what they are"
            )
            found.append(Notice(text, _files(self.templates)))
        if self.oversized:
            largest = sorted(self.oversized, key=lambda item: (-item[1], item[0]))
            listed = [f"{path} ({_size(size, up=True)})" for path, size in largest]
            limit = self.workspace.config.max_file_size if self.workspace is not None else 0
            text = (
                f"{counted(len(self.oversized), 'file')} larger than max-file-size "
                f"({_size(limit)}) not linted ({_first(listed)}): generated files, as a rule "
                "(install bundles, CRDs, scripts holding manifests); raise max-file-size in the "
                "configuration or with --max-file-size (0: no limit) to lint them"
            )
            found.append(Notice(text, _files([path for path, _ in largest])))
        return found

    def fixable(self, finding: Finding) -> bool:
        """Whether `--fix` applies the finding's fix (its unsafe one only when asked; none in a
        file that did not parse)."""
        return self._applies(finding, self.unsafe_fixes)

    def hidden_fix(self, finding: Finding) -> bool:
        """Whether the finding has an unsafe fix only `--unsafe-fixes` would apply."""
        return not self.fixable(finding) and self._applies(finding, True)

    def _applies(self, finding: Finding, unsafe: bool) -> bool:
        fix = finding.fix
        if fix is None or (fix.applicability == "unsafe" and not unsafe):
            return False
        unparsed = {failure.path for failure in self.failures}
        return not any(edit.path in unparsed for edit in fix.edits)

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

    @functools.cached_property
    def rules(self) -> list[Rule]:
        return self.selection.rules()

    def rule(self, rule_id: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rule_id), None)

    def severity(self, finding: Finding) -> Severity:
        if finding.severity is not None:
            return finding.severity
        rule = self.rule(finding.rule)
        return rule.severity if rule is not None else Severity.WARNING
