"""What a rule may see: the workspace, the models built from it, and the scope of the run.

Rules import this module, never the engine that runs them (no import cycle between the run,
the registry of rules and the rules).
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Callable, Iterator
from functools import cached_property
from typing import TypeVar, cast

from benchlint import profile
from benchlint.environment import Environment
from benchlint.finding import Finding, Location, Undecided
from benchlint.launcher import RECIPE_VARIABLES
from benchlint.lazyre import lazy_compile
from benchlint.shell.model import Script
from benchlint.suppress import Suppression
from benchlint.wiring import Entry, Route, Wiring
from benchlint.workspace import Workspace
from benchlint.yamlmodel import YamlDocument

_Kept = TypeVar("_Kept")


class Context:
    """What rules see: the workspace and the models built from it, each built once on demand."""

    def __init__(self, ws: Workspace, scope: list[str] | None = None) -> None:
        self.ws = ws
        self.config = ws.config
        self.scope = scope  # the paths named, relative to the root; None: everything
        self._routes: list[Route] | None = None
        self._names_of_entry: dict[int, frozenset[str]] = {}
        self._launcher_names: dict[tuple[str, frozenset[str]], bool] = {}
        # for rules that run after the suppressions were applied (BL003): every suppression
        # in scope by file, each marking the IDs that suppressed a finding; the rules that ran
        self.suppressions: dict[str, list[Suppression]] = {}
        self.ran: frozenset[str] = frozenset()
        # what rules could not decide, and where (every report says how many and the first
        # few; --statistics counts them)
        self.undecided: dict[str, list[Location]] = {}
        # what each place said undecided is about besides its own file (see `count`)
        self.involved: dict[tuple[str, Location], set[str]] = {}
        self._kept: dict[str, object] = {}

    def kept(self, key: str, make: Callable[[], _Kept]) -> _Kept:
        """What a rule's script pass keeps from one script to the next in this run (what it
        worked out once for all: a library's functions, what it reported), made on first
        need. `key`: the rule's ID."""
        found = self._kept.get(key)
        if found is None:
            found = self._kept[key] = make()
        return cast(_Kept, found)

    def count(self, what: str, where: Location, involves: tuple[str, ...] = ()) -> None:
        """Something a rule could not decide, so did not report: said, never silent. `involves`:
        other files it is about (the Python script whose parser cannot be told), so a run that
        names one of them says it too."""
        self.undecided.setdefault(what, []).append(where)
        if involves:
            self.involved.setdefault((what, where), set()).update(involves)

    def document_pass(
        self, rule_id: str, path: str, run: Callable[[YamlDocument], list[Finding | Undecided]]
    ) -> Iterator[Finding]:
        """The findings of a rule's document pass over the file (`Workspace.pass_findings`);
        what it could not decide is counted."""
        for item in self.ws.pass_findings(rule_id, path, run):
            if isinstance(item, Undecided):
                self.count(item.what, item.where)
            else:
                yield item

    @property
    def sees_everything(self) -> bool:
        """The whole repository is linted: reading every file is no waste."""
        return self.scope is None

    def in_scope(self, paths: list[str]) -> list[str]:
        """The paths a file-local rule must look at: those inside a named path (all if none).
        Findings are filtered by scope anyway; this spares work."""
        if self.scope is None:
            return paths
        scope = self.scope
        return [p for p in paths if inside(p, scope)]

    def shell_scripts(self) -> list[Script]:
        scripts = (self.ws.shell(p) for p in self.in_scope(self.ws.shell_paths))
        return [s for s in scripts if s is not None]

    def routes(self) -> list[Route]:
        """The routes whose findings can land in scope: every route of an entry with a route
        through a named launcher, master config or recipe (a setting's message names all its
        launchers), and every route to a recipe those reach (a recipe's message names all its
        entries). Launchers none of these go through are not built."""
        wiring = self.wiring
        if self.scope is None:
            return wiring.routes
        if self._routes is None:
            self._routes = self._scoped_routes(wiring)
        return self._routes

    @property
    def routes_asked(self) -> list[Route] | None:
        """The routes in scope: a whole run's every route; a run that names files, those a rule
        asked for (`routes`), or None where none did (it builds none unless a rule needs
        them)."""
        return self._routes if self.scope is not None else self.wiring.routes

    def _scoped_routes(self, wiring: Wiring) -> list[Route]:
        pairs = range(len(wiring.pairs))
        named = set(self.in_scope(self.ws.yaml_paths))
        named_names = _file_names(named)
        scripts = _file_names(set(self.in_scope(self.ws.shell_paths)))
        entries = {
            id(wiring.pairs[i][0])
            for i in pairs
            if self.route_in_scope(*self.ws.aliases(wiring.pairs[i][1]), wiring.pairs[i][0].path)
            or any(named.intersection(self._recipes(r)) for r in self._reaching(i, named_names))
            or any(self.route_in_scope(*self.route_paths(r)) for r in self._handing(i, scripts))
        }
        chosen = [
            r for i in pairs if id(wiring.pairs[i][0]) in entries for r in wiring.pair_routes(i)
        ]
        touched = {path for route in chosen for path in self._recipes(route)}
        seen = {id(route) for route in chosen}
        touched_names = _file_names(touched)
        others = [
            route
            for i in pairs
            if id(wiring.pairs[i][0]) not in entries
            for route in self._reaching(i, touched_names)
            if id(route) not in seen and touched.intersection(self._recipes(route))
        ]
        return [*chosen, *others]

    def _handing(self, index: int, names: frozenset[str]) -> list[Route]:
        """The routes of a pair whose launcher may hand them over (`exec bash other.sh`) to a
        named script: its text names one, or builds the path it `exec`s (else none, without
        building it)."""
        if not names:
            return []
        path = self.wiring.pairs[index][1]
        if not self._names_in(path, names) and not self._execs_script(path):
            return []
        targets = self.wiring.handed_to(path)
        if not any(self.route_in_scope(*self.ws.aliases(t)) for t in targets):
            return []  # (no script it may hand over to is named: its routes are not built)
        return [r for r in self.wiring.pair_routes(index) if r.via]

    def _execs_script(self, path: str) -> bool:
        """Whether the launcher's text `exec`s a script whose path it builds (`exec bash
        "$SCRIPT"`; not `exec 9>"$LOCK"`, a redirection), asked once per launcher."""
        found = self._launcher_names.get((path, _EXEC))
        if found is None:
            source = self.ws.source(path)
            text = source.text if source is not None else ""
            found = self._launcher_names[(path, _EXEC)] = _EXEC_SCRIPT.search(text) is not None
        return found

    def _recipes(self, route: Route) -> list[str]:
        """The recipe files of this repository a route is about: the one it applies, or the
        one at an upstream recipe's path it does not copy (`RecipeRef.mirror`)."""
        found = (r.path or r.mirror for r in self.wiring.recipes(route))
        return [p for p in found if p is not None]

    def _reaching(self, index: int, names: frozenset[str]) -> list[Route]:
        """The routes of a pair, if any can reach one of these recipes; else none, without
        building its launcher. A route reaches a recipe through a setting with the recipe's
        file name, or a launcher that copies the file under another name (which it then names).
        `names`: the recipes' file names."""
        if not names:
            return []
        entry, path, _ = self.wiring.pairs[index]
        if not self._setting_names(entry).isdisjoint(names) or self._names_in(path, names):
            return self.wiring.pair_routes(index)
        return []

    def _setting_names(self, entry: Entry) -> frozenset[str]:
        """The file names an entry's recipe settings give (one entry, many pairs)."""
        found = self._names_of_entry.get(id(entry))
        if found is None:
            found = self._names_of_entry[id(entry)] = frozenset(
                s.value.split(":", 1)[0].rsplit("/", 1)[-1]
                for element in entry.elements
                for s in (element.settings.get(v) for v in RECIPE_VARIABLES)
                if s is not None
            )
        return found

    def _names_in(self, path: str, names: frozenset[str]) -> bool:
        """Whether the launcher's text holds one of the names (asked once per launcher)."""
        key = (path, names)
        found = self._launcher_names.get(key)
        if found is None:
            source = self.ws.source(path)
            text = source.text if source is not None else ""
            found = self._launcher_names[key] = any(n in text for n in names)
        return found

    @cached_property
    def names_entries(self) -> bool:
        """Whether a named file holds an entry (a master config, a workflow whose jobs are
        entries): findings that name an entry may then lie in any script its job runs."""
        if self.scope is None:
            return True
        if not self.in_scope(self.ws.yaml_paths):
            return False  # (entries are in YAML files: the wiring is not asked)
        return bool(self.in_scope(sorted({e.location.path for e in self.wiring.entries})))

    def route_paths(self, route: Route) -> tuple[str, ...]:
        """The files a route goes through: its master config, the launchers that handed it over
        (`exec bash other.sh`) and the one it ends in, under every name they have."""
        launchers = [*(c.script.path for c in route.via), route.launcher.path]
        return (route.entry.path, *(a for p in launchers for a in self.ws.aliases(p)))

    def twin_not_run(self, path: str) -> str | None:
        """Why nothing runs a script made for a setting's value (`qwen_fp8_mi325x_mtp.sh`): the
        script beside it without the value (`qwen_fp8_mi325x.sh`) is what routes reach, where
        some entry sets the field to that value (BL121's other side); None otherwise."""
        folder, name = posixpath.split(path)
        values = {
            element.fields[source["field"]].strip().lower(): source["field"]
            for entry in self.wiring.entries
            for element in entry.elements
            for source in profile.ELEMENT_ENVIRONMENT.values()
            if source["field"] in element.fields
        }
        for value, field_name in sorted(values.items()):
            for added in (f"_{value}", f"-{value}", f"{value}_", f"{value}-"):
                if added not in name.lower():
                    continue
                at = name.lower().index(added)
                plain = posixpath.join(folder, name[:at] + name[at + len(added) :])
                if plain != path and self.environment.routes(plain):
                    return (
                        f"its name is {plain}'s with `{added}` added: the launchers run that "
                        f"one, and an entry's `{field_name}: {value}` may be meant for this one "
                        "(BL121)"
                    )
        return None

    def route_in_scope(self, *paths: str | None) -> bool:
        """Whether a cross-file finding over these files can have a location in scope."""
        if self.scope is None:
            return True
        return any(p is not None and inside(p, self.scope) for p in paths)

    @cached_property
    def wiring(self) -> Wiring:
        return wiring_of(self.ws)

    @cached_property
    def environment(self) -> Environment:
        return Environment(self.ws, self.wiring)


def wiring_of(ws: Workspace) -> Wiring:
    """The one wiring of a workspace: the rules' and the run summary's."""
    wiring = ws.models.get("wiring")
    if not isinstance(wiring, Wiring):
        wiring = ws.models["wiring"] = Wiring(ws)
    return wiring


# a launcher's text that may hand its routes over to a script whose name it builds (the key
# of `_execs_script`'s answers)
_EXEC = frozenset({"exec "})
_EXEC_SCRIPT = lazy_compile(r"\bexec\s+(?![0-9]*[<>&])[^\s<>]")


def _file_names(paths: set[str]) -> frozenset[str]:
    return frozenset(p.rsplit("/", 1)[-1] for p in paths)


def inside(path: str, scope: list[str]) -> bool:
    exact, folders = _scope_tests(tuple(scope))
    return path in exact or path.startswith(folders)


@functools.lru_cache(maxsize=16)
def _scope_tests(scope: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    """A scope's paths, and the folders they would be (asked for every path of a run)."""
    return frozenset(scope), tuple(s.rstrip("/") + "/" for s in scope)
