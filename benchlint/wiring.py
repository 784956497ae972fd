"""How the repository's files wire together: master-config entries -> runner labels -> launchers
-> recipes, and what each launcher does to each recipe it runs.

Built once per run (`Context.wiring`) and shared by every rule. A *route* is one search-space
element of one entry run by one launcher; its environment (the entry's fields, the scenario, the
element's additional-settings) decides the launcher's conditions. A condition that cannot be
decided statically is taken as possibly true, and the route remembers it was assumed.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import posixpath
import re
from collections.abc import Container
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from benchlint import profile
from benchlint.calls import call_graph, script_word
from benchlint.calls import resolve as resolve_call
from benchlint.expressions import Value, evaluate, input_names, typed_inputs
from benchlint.finding import Location, Span
from benchlint.launcher import (
    RECIPE_VARIABLES,
    LauncherModel,
    Overlay,
    Rewrite,
    assigned_names,
    launcher_model,
    script_ends,
)
from benchlint.layout import launcher_candidates, recipe_mirrors, runner_labels
from benchlint.lazyre import lazy_compile
from benchlint.recipe import ScriptRun, script_run
from benchlint.rewrite import RewriteError, run_sed
from benchlint.shell.evaluate import Decisions, Probe, guards_hold
from benchlint.shell.expand import UNSET
from benchlint.shell.expand import value as expanded_value
from benchlint.shell.model import Command, parse_file
from benchlint.source import SourceText
from benchlint.workflow import (
    WORKFLOWS,
    LauncherStep,
    WorkflowCall,
    launcher_steps,
    workflow_calls,
    workflow_names,
)
from benchlint.workspace import Workspace, path_matches
from benchlint.yamlmodel import YamlDocument, YamlError, YNode, parse_yaml
from benchlint.yamlpatch import Patch, patched

# the folders of an srt-slurm checkout a recipe path names (`recipies/` before its rename)
SRT_RECIPES = tuple(f"{folder}/" for folder in profile.SRT_SLURM_RECIPE_FOLDERS)
# a variable an expansion names (`$X`, `${X%%_*}`, `${#X}`, `${!X}`, the `$Y` of `${X:-$Y}`)
_NAMED = lazy_compile(r"\$\{?[#!]?([A-Za-z_][A-Za-z0-9_]*)")
# a runner label that can start a runner's name (`h200`, `mi355x`)
_LABEL = lazy_compile(r"[A-Za-z0-9][A-Za-z0-9.]*")
_SELECTOR = lazy_compile(
    r"^(?P<path>[^:]+)(?::(?P<selector>[A-Za-z0-9_.-]+)(?:\[(?P<index>\d+)\])?)?$"
)


@dataclass(eq=False)
class Setting:
    name: str
    value: str
    location: Location


@dataclass(eq=False)
class Element:
    """One search-space element of one scenario of one entry."""

    entry: Entry
    scenario: str
    label: str  # "fixed-seq-len[0].search-space[2]"
    location: Location
    isl: str | None = None
    osl: str | None = None
    settings: dict[str, Setting] = field(default_factory=dict)
    # its scalar fields (`spec-decoding: mtp`, `tp: 8`), as text; those written quoted
    fields: dict[str, str] = field(default_factory=dict)
    quoted: frozenset[str] = frozenset()


@dataclass(eq=False)
class Entry:
    name: str
    path: str
    location: Location
    fields: dict[str, str]
    runner: str | None
    runner_location: Location | None
    multinode: bool
    elements: list[Element] = field(default_factory=list)
    quoted: frozenset[str] = frozenset()  # the fields written quoted (`dp-attn: "true"`)
    # an entry that is a job calling the workflow that runs the launcher (no master config:
    # InferenceX until November 2025): that workflow's step; its fields are the inputs passed
    step: LauncherStep | None = None
    # such a call's inputs whose value is not known but cannot be empty (`WorkflowCall`)
    nonempty: frozenset[str] = frozenset()
    # such a call's job's `if:`, where it surely holds for the call's inputs
    condition: Location | None = None


@dataclass(eq=False)
class RecipeRef:
    """Where a CONFIG_FILE value leads for one route."""

    status: str  # local | missing | upstream | outside | unknown
    setting: Setting
    path: str | None = None  # repository path (local, missing)
    selector: str | None = None
    index: int | None = None
    overlay: Overlay | None = None
    # the launcher's `CONFIG_FILE="$EVAL_CONFIG_FILE"` that makes srtctl apply this recipe, the
    # one EVAL_CONFIG_FILE names (None: the recipe CONFIG_FILE names, applied as it is)
    switch: Command | None = None
    # an upstream recipe's path in this repository's mirror of srt-slurm's `recipes/` (a recipe
    # root): a file the launcher does not copy on this route, so srt-slurm's own runs instead
    mirror: str | None = None


@dataclass
class Change:
    """A recipe value a launcher's rewrites change (old and new), remove (new None) or add."""

    path: tuple[str, ...]
    key: YNode | None  # the key in the original recipe
    old: YNode | None
    new: YNode | None
    rewrites: list[Rewrite] = field(default_factory=list)  # every rewrite that touched it


@dataclass(eq=False)
class Effective:
    """A recipe as a route's launcher leaves it."""

    original: YamlDocument
    text: str
    document: YamlDocument | None
    applied: list[Rewrite]
    assumed: list[Command]  # applied although their condition could not be decided
    errors: list[tuple[Rewrite, str]]
    changes: list[Change]


class ConditionEnv:
    """Variables for deciding a launcher's conditions: known, unknown (None) or unset (`UNSET`:
    the empty text, which `${X-d}` tells from a variable set empty).

    Only a name the wiring speaks for (`given`: one the workflow sets from an entry, one some
    workflow of the repository sets, one an element's additional-settings set on some route of
    the launcher) is unset where the route does not set it; any other (`$SLURM_PARTITION` from
    the runner's environment, `$GITHUB_WORKSPACE`, a name the launcher tests before it assigns
    it) is unknown."""

    def __init__(
        self,
        known: dict[str, str],
        unknown: AbstractSet[str],
        given: AbstractSet[str],
        decisions: Decisions | None = None,
        incoming: AbstractSet[str] | None = None,
        nocasematch: bool = False,
    ) -> None:
        self.known = known
        self.unknown = unknown
        self.given = given
        self.decisions = decisions  # guards decided for other routes, by what they read
        # guard -> decision (guards live as long as the run), word text -> its expansion
        self.memo: dict[int | str, object] = {}
        # of the unknown names, those whose value the launcher is started with is not known
        # (the others are unknown because the launcher assigns them)
        self.incoming = unknown if incoming is None else incoming
        # (the launcher or a file it sources says `shopt -s nocasematch`: its pattern matches
        # are not decided, as in a script that says it itself; h100 F7)
        self.nocasematch = nocasematch
        self._before: dict[frozenset[str], ConditionEnv] = {}

    def get(self, name: str) -> str | None:
        if name in self.unknown:
            return None
        value = self.known.get(name)
        if value is not None:
            return value
        return UNSET if name in self.given else None

    def knows(self, name: str) -> bool:
        """Whether the name's value (or that it is unset) is known on the route."""
        return name not in self.unknown and (name in self.known or name in self.given)

    def with_unset(self, names: AbstractSet[str]) -> ConditionEnv:
        """This environment where these names are surely unset."""
        known = {k: v for k, v in self.known.items() if k not in names}
        return ConditionEnv(
            known, self.unknown - names, self.given | names, nocasematch=self.nocasematch
        )

    def before_assigning(self, names: frozenset[str]) -> ConditionEnv:
        """This environment where the launcher has not assigned these names yet: each has the
        value it was started with."""
        found = self._before.get(names)
        if found is None:
            unknown = (set(self.unknown) - names) | (names & set(self.incoming))
            found = ConditionEnv(
                self.known,
                frozenset(unknown),
                self.given,
                self.decisions,
                nocasematch=self.nocasematch,
            )
            self._before[names] = found
        return found


@dataclass(eq=False)
class Route:
    element: Element
    launcher: LauncherModel
    runner_names: list[str]
    step: LauncherStep | None
    env: ConditionEnv
    # the launcher's `exit`s and `exec`s decided on this route, in its order: how many surely
    # do not run, and where the first that surely runs ends (-1: none decided so)
    _decided: int = field(default=0, init=False, repr=False)
    _first_end: int = field(default=-1, init=False, repr=False)
    # the `exec bash other.sh` of the launchers that handed the route over to this one
    via: tuple[Command, ...] = field(default=(), init=False)

    @property
    def entry(self) -> Entry:
        return self.element.entry

    def holds(
        self, command: Command, probe: Probe | None = None, unset: AbstractSet[str] = frozenset()
    ) -> bool | None:
        """Whether the command's conditions hold on this route (None: not known); False, too,
        for a command of the launcher after it surely ended (`exit`, `exec bash other.sh`).
        `unset`: names taken as unset there (what a rule's finding supposes)."""
        env = self.env_at(command)
        answer = guards_hold(
            command.script, command.guards, env.with_unset(unset) if unset else env, probe
        )
        if answer is False or not self.launcher.ends:
            return answer
        top = commands_up(command)[-1]  # (a function's command runs where it is called)
        mine = top.script is self.launcher.script and top.function is None
        if mine and self._ended_before(top.node.start_byte):
            return False
        return answer

    def env_at(self, command: Command) -> ConditionEnv:
        """The environment the command's conditions read: names the launcher assigns only
        after the command (in its text, the command in no function or loop) still hold the
        values the launcher was started with (`if [[ -n "${BENCHMARK_SCRIPT:-}" ]]` before an
        `else` that assigns it)."""
        late = self.launcher.assigned_after(command)
        if late:
            late = late & self.env.unknown
        return self.env.before_assigning(late) if late else self.env

    def expand(self, text: str, command: Command, positional: bool = False) -> str | None:
        """A word's source text expanded where the command runs on this route: with the
        values its conditions read there (an unset name gives nothing); None when a name it
        reads is not known there (the launcher assigns it before, the runner's environment may
        hold it) or the word has a form `expand` does not model. `positional`: the text names
        the launcher's positional parameters `__P1`..`__P9` (`$1` as `$__P1`), which are the
        arguments the route's launch line gives it (the caller sees that none changed them)."""
        get = self.env_at(command).get
        if not positional:
            return expanded_value(text, get)
        known, unknown = self.env.known, self.env.unknown

        def lookup(name: str) -> str | None:
            if name.startswith("__P") and name[3:].isdigit():
                index = name[3:]
                return known.get(index) if index not in unknown else None
            return get(name)

        return expanded_value(text, lookup)

    def ended_by(self) -> Command | None:
        """The launcher's first `exit` or `exec` of a program that surely runs on this route."""
        for command in self.launcher.ends:
            if self._ended_before(command.node.end_byte):
                return command
        return None

    def ends_before(self, command: Command) -> bool:
        """Whether the launcher surely ends (`exit`, `exec bash other.sh`) before this command of
        its text on this route."""
        top = commands_up(command)[-1]
        return bool(self.launcher.ends) and self._ended_before(top.node.start_byte)

    def _ended_before(self, at: int) -> bool:
        """Whether an `exit` or `exec` of a program before that point of the launcher surely
        runs on this route (each decided once, in the launcher's order, which is the order of
        their ends: they are top-level commands)."""
        if self._first_end >= 0:
            return self._first_end <= at
        ends = self.launcher.ends
        index = self._decided
        while index < len(ends):
            command = ends[index]
            end = command.node.end_byte
            if end > at:
                break
            index += 1
            if guards_hold(command.script, command.guards, self.env_at(command)) is True:
                self._decided, self._first_end = index, end
                return True
        self._decided = index
        return False

    def holds_when(self, command: Command, values: dict[str, str]) -> bool | None:
        """`holds`, with these variables known as well (a mode of the run)."""
        env = self.env
        known = {**env.known, **values}
        within = ConditionEnv(
            known, env.unknown - set(values), env.given, nocasematch=env.nocasematch
        )
        return guards_hold(command.script, command.guards, within)

    def runs(self, command: Command, depth: int = 0) -> bool | None:
        """Whether the command runs on this route: False when a condition around it is false;
        True when every one holds, in the shells that run it (`srun ... bash -c "..."`) and, in a
        function of the file, for some call of the function that surely runs (`run_bench`, or
        an exported function run by `srun bash -c run_bench`); None otherwise (a function
        called nowhere the model sees, or from a function of a nested shell)."""
        chain = commands_up(command)
        held: bool | None = True
        for link in chain:
            answer = self.holds(link)
            if answer is False:
                return False
            if answer is None:
                held = None
        inside = [link.function for link in chain if link.function is not None]
        if not inside:
            return held
        outer = chain[-1]  # in the file's own script
        if len(inside) > 1 or outer.function is None or depth >= 3:
            return None
        answers = [
            self.runs(c, depth + 1)
            for c in outer.script.all_commands()
            if c.base == outer.function and c.function != outer.function
        ]
        if answers and all(a is False for a in answers):
            return False
        return held if True in answers else None


def commands_up(command: Command) -> list[Command]:
    """The command and those that run the shells it is in (`srun ... bash -c "..."`)."""
    chain = [command]
    while chain[-1].script.parent is not None:
        chain.append(chain[-1].script.parent)
    return chain


class Wiring:
    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.layout = ws.layout
        self._launchers: dict[str, LauncherModel | None] = {}
        self._pair_routes: dict[int, list[Route]] = {}
        self._recipes: dict[tuple[int, str], RecipeRef | None] = {}
        self._leaves = LeafCache()  # of the workspace's recipes, as simulations compare
        self._effective: dict[tuple[int, str, int], Effective | None] = {}
        self._handed: dict[str, frozenset[str]] = {}  # (`handed_to`, by launcher)
        self._decisions = Decisions()
        self._unknowns: dict[frozenset[str], frozenset[str]] = {}
        self._inputs_read: dict[int, tuple[LauncherStep, frozenset[str]]] = {}
        self._assigned_by: dict[str, tuple[set[str], set[str], set[str], frozenset[str]]] = {}
        self._casefolds: dict[str, bool] = {}
        self._given_by: dict[str, frozenset[str]] = {}
        self._launcher_paths: dict[tuple[str, tuple[tuple[str, str], ...]], str | None] = {}
        # the calls of a launcher's workflow whose runner is not known (a matrix value)
        self.unrouted_calls: list[WorkflowCall] = []
        # (id(entry), launcher) -> the label and the runner names taken to carry it
        self._assumed: dict[tuple[int, str], tuple[str, list[str]]] = {}
        # labels of workflow calls no launcher of `<label>-<site>_<n>` runners serves, taken as
        # the runners' own name prefix (`<label>_<n>`) with no runners file to say so: their calls
        self.guessed: dict[str, list[Entry]] = {}
        # the workflow calls whose label leads to no launcher, by label
        self.unreached: dict[str, list[Entry]] = {}

    # The master configs, runners.yaml and workflows are read when first asked for: a process
    # that lints only entrypoint scripts may never need them.
    @cached_property
    def entries(self) -> list[Entry]:
        return self._entries()

    @cached_property
    def _label_table(self) -> tuple[dict[str, list[str]], dict[str, Location]]:
        return self._labels()

    @property
    def labels(self) -> dict[str, list[str]]:
        return self._label_table[0]

    @property
    def label_locations(self) -> dict[str, Location]:
        return self._label_table[1]

    @cached_property
    def steps(self) -> list[LauncherStep]:
        return launcher_steps(self.ws)

    @cached_property
    def script_runs(self) -> dict[str, list[ScriptRun]]:
        """Script path -> the recipes that run it (`benchmark.command`), in path order (the
        findings that name them are the same whatever order the files were found in)."""
        runs: dict[str, list[ScriptRun]] = {}
        for path in sorted(self.ws.yaml_paths):  # any recipe, wherever kept, can run a script
            found = self.script_run_of(path)
            if found is not None:
                runs.setdefault(found[0], []).append(found[1])
        return runs

    def script_run_of(self, path: str) -> tuple[str, ScriptRun] | None:
        """The script a YAML file (not a master config) runs as a recipe, and how."""
        if path in self._masters:
            return None
        source = self.ws.source(path)
        if source is None:
            return None
        text = source.text
        if profile.SCRIPT_RUN_MARKER not in text.lower() and not (
            self._type_scripts and "benchmark" in text
        ):
            return None  # a recipe that runs no script of this repository
        document = self.ws.yaml(path)
        root = document.root if document is not None else None
        return script_run(path, root, self._type_scripts)

    @cached_property
    def _masters(self) -> frozenset[str]:
        return frozenset(self.ws.glob(self.layout.master_configs))

    @cached_property
    def _type_scripts(self) -> frozenset[str]:
        """An srt-slurm checkout's scripts that a recipe's `benchmark.type` names."""
        head, _, _ = profile.BENCHMARK_TYPE_SCRIPT.partition("{type}")
        return frozenset(p for p in self.ws.shell_paths if p.startswith(head))

    # -- master configs --------------------------------------------------------------------
    def _entries(self) -> list[Entry]:
        entries: list[Entry] = []
        masters = self.ws.glob(self.layout.master_configs)
        for path in masters:
            entries.extend(self._master_entries(path))
        if self.steps:
            entries.extend(self._call_entries(beside=bool(masters)))
        return entries

    def _call_entries(self, beside: bool = False) -> list[Entry]:
        """The jobs that call a workflow that runs a launcher, passing it a runner whose value
        is known (`runner: h200`, or through the callers' inputs): one entry per set of inputs
        and row of the calling job's matrix (see `WorkflowCall`), with one element (the matrix
        the called workflow's job expands, `tp` and `conc`, is not modelled: what it sets is
        not known). A call whose runner is not known is counted (`unrouted_calls`), unless
        `beside` master configs: there it passes the sweep's matrix of their entries (a call
        whose runner is written out is a job of its own: InferenceX's scheduler calling the
        multinode workflow for gb200 beside them, in late 2025)."""
        entries: list[Entry] = []
        # (beside master configs, most repositories' calls are the sweep's, none an entry: the
        # workflows' contents that gave none are kept, so a run where they are unchanged does
        # not parse them again)
        cache = self.ws.cache if beside else None
        key = self._workflows_key() if cache is not None else None
        if cache is not None and key is not None and cache.get("no-call-entries", "", key):
            return entries
        for call in workflow_calls(self.ws):
            for step in self.steps:
                if step.workflow == call.called:
                    entry = _call_entry(call, step)
                    if entry is not None:
                        entries.append(entry)
                    elif not beside:
                        self.unrouted_calls.append(call)
        if cache is not None and key is not None and not entries:
            cache.put("no-call-entries", "", key, True)
        return entries

    def _workflows_key(self) -> bytes | None:
        """The workflows' names and contents (None: one cannot be read)."""
        parts = []
        for path in self.ws.glob([*self.layout.workflows, *WORKFLOWS]):
            digest = self.ws.digest(path)
            if digest is None:
                return None
            parts.append(path.encode() + b"\0" + digest)
        return b"\1".join(parts)

    def _master_entries(self, path: str) -> list[Entry]:
        """The entries of one master config; from the cache when its content was seen before
        (parsing a 10,000-line master config is the largest cost of linting one launcher)."""
        cache = self.ws.cache
        digest = self.ws.digest(path) if cache is not None else None
        if cache is not None and digest is not None:
            stored = cache.get("entries", path, digest)
            if stored is not None:
                try:
                    return [_decode_entry(path, e) for e in stored]
                except (TypeError, ValueError):  # not what this code wrote: parse instead
                    pass
        document = self.ws.yaml(path)
        root = document.root if document is not None else None
        if root is None or not root.is_map:
            return []
        entries = [_entry(path, k, n) for k, n in root.pairs if k.is_scalar and n.is_map]
        if cache is not None and digest is not None:
            cache.put("entries", path, digest, [_encode_entry(e) for e in entries])
        return entries

    def _labels(self) -> tuple[dict[str, list[str]], dict[str, Location]]:
        path = self.layout.runners_file
        document = self.ws.yaml(path) if self.ws.is_yaml(path) else None
        labels: dict[str, list[str]] = {}
        locations: dict[str, Location] = {}
        mapping = runner_labels(document.root if document is not None else None)
        if mapping is None:
            return labels, locations
        for key, value in mapping.pairs:
            if key.is_scalar:
                names = [i.value for i in value.items if i.is_scalar] if value.is_seq else []
                labels[key.value] = names
                locations[key.value] = Location(path, key.span)
        return labels, locations

    def runner_names(self, runner: str | None) -> list[str]:
        """The runners an entry's `runner:` picks: a label's names; else the value itself, which
        the sweep passes to `runs-on` as it is (`runner: mi355x-amd_0`, or a label GitHub knows
        that the runners file lacks: its runners' names start with it, and so pick the launcher
        it names; `cluster:mi325x-tw`, a cluster's label the file lacks, the runners named
        after the cluster, `mi325x-tw_*`, which BL205 reports)."""
        if runner is None:
            return []
        if runner in self.labels:
            return self.labels[runner]
        if runner in self.listed_runners or self.launcher_path(runner) is not None:
            return [runner]
        bare = runner.rsplit(":", 1)[-1]
        if bare != runner and bare not in self.labels and self.launcher_path(bare) is not None:
            return [bare]
        return []

    @cached_property
    def listed_runners(self) -> frozenset[str]:
        return frozenset(name for names in self.labels.values() for name in names)

    @property
    def has_runners_file(self) -> bool:
        """Whether the repository has a runners file and it could be read (one that does not
        parse, BL001, says nothing of its labels)."""
        path = self.layout.runners_file
        return self.ws.is_yaml(path) and self.ws.yaml(path) is not None

    # -- launchers -------------------------------------------------------------------------
    def launcher_path(
        self, runner_name: str, known: tuple[tuple[str, str], ...] = ()
    ) -> str | None:
        """The launcher the workflow runs for a runner name (`runners/launch_<prefix>.sh` from
        `launch_${RUNNER_NAME%%_*}.sh`), following symlinks; None if absent. `known`: the
        values a workflow call's step gives the path's other variables (`${FRAMEWORK}`); the
        first template whose launcher exists, as a step's `if [ -f ... ]; then ... else` runs
        it."""
        # (only the values the templates read: entries share runners, and most of a step's
        # values, found once for each)
        names = self._template_names
        known = tuple(pair for pair in known if pair[0] in names)
        key = (runner_name, known)
        if key not in self._launcher_paths:
            self._launcher_paths[key] = self._launcher_path(runner_name, known)
        return self._launcher_paths[key]

    @cached_property
    def _template_names(self) -> frozenset[str]:
        """The variables the launch templates name (`launch_${RUNNER_NAME%%_*}.sh`)."""
        return frozenset(name for t in self.layout.launcher_templates for name in _NAMED.findall(t))

    def _launcher_path(self, runner_name: str, known: tuple[tuple[str, str], ...]) -> str | None:
        if "launchers" in self.ws.config.layout_keys:  # patterns given: `*` is the prefix
            prefix = profile.launcher_prefix(runner_name)
            candidates = [pattern.replace("*", prefix, 1) for pattern in self.layout.launchers]
        else:
            candidates = [
                launcher_candidates(t, runner_name, known) for t in self.layout.launcher_templates
            ]
        for candidate in candidates:  # (the paths known whole first, in template order)
            if candidate in self.ws.symlinks:
                return self.ws.symlinks[candidate]
            if self.ws.is_shell(candidate):
                return candidate
        for candidate in candidates:
            if "*" in candidate:  # a part the runner's name does not decide
                matches = self.ws.glob([candidate])
                if matches:
                    return self.ws.symlinks.get(matches[0], matches[0])
        return None

    def _label_launchers(self, entry: Entry, label: str) -> dict[str, list[str]]:
        """With no runners file, the launchers of a label's runners: those of the runners whose
        names start with the label and a `-` (InferenceX names a runner `<label>-<site>_<n>`:
        `h200-cw_0` has the label `h200`), each with its runners' name pattern (`h200-cw_*`);
        the launch path's other variables from the values the entry's step gives
        (`launch_${EXP_NAME%%_*}_${RUNNER_NAME%%_*}.sh`). A label no runner's name starts
        with (`b200-trt`) leads to none: not known."""
        found: dict[str, list[str]] = {}
        if _LABEL.fullmatch(label) is None:
            return found
        known = tuple(sorted(self._step_values(entry).items()))
        for template in self.layout.launcher_templates:
            candidates = launcher_candidates(template, f"{label}-\0", known)
            if candidates.count("\0") != 1:
                continue
            head, _, tail = candidates.partition("\0")
            pattern = re.compile(
                ".*".join(map(re.escape, head.split("*")))
                + r"([A-Za-z0-9.]+)"
                + ".*".join(map(re.escape, tail.split("*")))
            )
            for path in self.ws.glob([candidates.replace("\0", "*")]):
                match = pattern.fullmatch(path)
                if match is not None:
                    runner = f"{label}-{match.group(1)}_*"
                    found.setdefault(self.ws.symlinks.get(path, path), []).append(runner)
        return found

    def _step_values(self, entry: Entry) -> dict[str, str]:
        """The values a workflow call's step gives the launcher (`EXP_NAME: ${{
        inputs.exp-name }}`): those its routes know; for a master config's entry, those the
        workflow sets from its fields alike in each of its elements (`FRAMEWORK` from
        `framework: trt`, h30)."""
        if not entry.elements:
            return {}
        if entry.step is None:
            first, *rest = (entry_environment(e) for e in entry.elements)
            return {n: v for n, v in first.items() if v and all(r.get(n) == v for r in rest)}
        return self._workflow_known(entry.elements[0], entry.step)[0]

    def alternatives(self, entry: Entry, launcher: str) -> list[str]:
        """The other launchers the entry's label may lead to, where that was assumed (no runners
        file: see `_label_launchers`): its jobs run on one of them, which is not known."""
        if (id(entry), launcher) not in self._assumed:
            return []
        return [p for e, p, _ in self.pairs if e is entry and p != launcher]

    def assumption(self, entries: list[Entry], launcher: str) -> str:
        """What a claim about these entries' jobs on the launcher rests on, where no runners file
        says which runners have their label: the job fails on every launcher the label may lead
        to (" (the label h200 taken to mean the runners named h200-cw_*, h200-nb_*, and the job
        fails on each of their launchers: no runners file lists a label's runners)"); "" where
        nothing is assumed."""
        labels = sorted(
            {
                self._assumed[k][0]
                for k in ((id(e), launcher) for e in entries)
                if k in self._assumed
            }
        )
        said = []
        for label in labels:
            names = sorted(
                {
                    name
                    for (key, _), (given, runners) in self._assumed.items()
                    if given == label and any(id(e) == key for e in entries)
                    for name in runners
                }
            )
            said.append(f"the label {label} taken to mean the runners named {', '.join(names)}")
        if not said:
            return ""
        one = len(said) == 1 and said[0].count("_*") == 1
        fails = "on their launcher" if one else "on each of their launchers"
        return (
            f" ({' and '.join(said)}, and the job fails {fails}: no runners file lists a label's "
            "runners)"
        )

    def launcher(self, path: str) -> LauncherModel | None:
        if path not in self._launchers:
            self._launchers[path] = launcher_model(self.ws, path)
        return self._launchers[path]

    def is_launcher(self, path: str) -> bool:
        return any(
            path_matches(alias, pattern)
            for alias in self.ws.aliases(path)
            for pattern in self.layout.launchers
        )

    # -- routes ----------------------------------------------------------------------------
    @cached_property
    def pairs(self) -> list[tuple[Entry, str, list[str]]]:
        """(entry, launcher path, runner names) for every launcher an entry's label leads to,
        in entry order; found without building any launcher."""
        pairs: list[tuple[Entry, str, list[str]]] = []
        for entry in self.entries:
            by_launcher: dict[str, list[str]] = {}
            if entry.step is not None and entry.runner and not self.has_runners_file:
                # a workflow call's label (`b200`, not a runner's own name `b200-nv_0`): the
                # launchers of the runners named after it, all of them (not the first a glob
                # `launch_${RUNNER_NAME%%_*}*.sh` of the label as a name would match)
                by_launcher = self._label_launchers(entry, entry.runner)
                for launcher, runners in by_launcher.items():
                    self._assumed[(id(entry), launcher)] = (entry.runner, runners)
            names = [] if by_launcher else self.runner_names(entry.runner)
            guess = (
                entry.step is not None
                and not self.has_runners_file
                and entry.runner is not None
                and "_" not in entry.runner
            )
            # (the launch path's other variables: a call's step values, or a master config's
            # entry's fields, `${FRAMEWORK}`)
            known = tuple(sorted(self._step_values(entry).items())) if names else ()
            for name in names:
                path = self.launcher_path(name, known)
                if path is not None:
                    by_launcher.setdefault(path, []).append(name)
                    if guess:  # (the label as the runners' name prefix: `<label>_<n>`)
                        self._assumed[(id(entry), path)] = (name, [f"{name}_*"])
                        self.guessed.setdefault(name, []).append(entry)
            if not by_launcher and entry.step is not None and entry.runner:
                self.unreached.setdefault(entry.runner, []).append(entry)
            pairs.extend((entry, path, runner_names) for path, runner_names in by_launcher.items())
        return pairs

    def pair_routes(self, index: int) -> list[Route]:
        """The routes of one (entry, launcher) pair: one per search-space element. Built once,
        so that every caller sees the same Route objects."""
        if index not in self._pair_routes:
            entry, path, runner_names = self.pairs[index]
            launcher = self.launcher(path)
            routes: list[Route] = []
            if launcher is not None:
                step = self._step_for(entry)
                for element in entry.elements:
                    env = self._condition_env(element, launcher, step, runner_names)
                    route = Route(element, launcher, runner_names, step, env)
                    routes.append(self._handed_over(route))
            self._pair_routes[index] = routes
        return self._pair_routes[index]

    @cached_property
    def routes(self) -> list[Route]:
        return [route for index in range(len(self.pairs)) for route in self.pair_routes(index)]

    def routes_for_launcher(self, path: str) -> list[Route]:
        return [
            route
            for index in self.pairs_of_launcher.get(path, ())
            for route in self.pair_routes(index)
        ]

    @cached_property
    def pairs_of_launcher(self) -> dict[str, list[int]]:
        """The indexes in `pairs` of each launcher's pairs (asked per launcher: one pass)."""
        found: dict[str, list[int]] = {}
        for index, (_, launcher, _) in enumerate(self.pairs):
            found.setdefault(launcher, []).append(index)
        return found

    def _handed_over(self, route: Route) -> Route:
        """The route as it goes on in the script its launcher surely hands over to (`exec bash
        "$(dirname "$0")/launch_x-srt.sh"`, a script of the repository): that script's overlays,
        rewrites and time limits apply, and what either sets is not known there."""
        for _ in range(3):  # (a chain of hand-overs, bounded)
            if not any(c.base == "exec" for c in route.launcher.ends):
                return route  # (most launchers: their exits are decided only when asked)
            end = route.ended_by()
            called = script_word(end) if end is not None and end.base == "exec" else None
            if end is None or called is None:
                return route
            targets = resolve_call(self.ws, route.launcher.script, called[1].value)
            target = self.launcher(targets[0]) if targets and len(targets) == 1 else None
            if target is None or target is route.launcher:
                return route
            env = self._condition_env(route.element, target, route.step, route.runner_names)
            # (its positional parameters are the exec's arguments: not known)
            unknown = env.unknown | route.env.unknown | {str(i) for i in range(1, 10)}
            known = {k: v for k, v in env.known.items() if k not in unknown}
            env = ConditionEnv(
                known,
                unknown,
                env.given | route.env.given,
                self._decisions,
                nocasematch=env.nocasematch,  # (a new bash: no shell option of this one)
            )
            handed = Route(route.element, target, route.runner_names, route.step, env)
            handed.via = (*route.via, end)
            route = handed
        return route

    def handed_to(self, path: str) -> frozenset[str]:
        """Every script a route of this launcher may be handed over to (`_handed_over`), found
        without building a route: the targets of each of its `exec` ends, and theirs (a
        superset: a route takes only the first end that surely runs on it). Asked once per
        launcher."""
        known = self._handed.get(path)
        if known is None:
            known = self._handed[path] = self._find_handed_to(path)
        return known

    def _find_handed_to(self, path: str) -> frozenset[str]:
        found: set[str] = set()
        todo, depth = [path], 0
        while todo and depth < 3:
            step: list[str] = []
            for current in todo:
                script = self.ws.shell(current)
                if script is None:
                    continue
                for end in script_ends(script):
                    called = script_word(end) if end.base == "exec" else None
                    if called is None:
                        continue
                    targets = resolve_call(self.ws, script, called[1].value) or []
                    if len(targets) == 1 and targets[0] not in found and targets[0] != current:
                        found.add(targets[0])
                        step.append(targets[0])
            todo, depth = step, depth + 1
        return frozenset(found)

    def _step_inputs(self, step: LauncherStep) -> frozenset[str]:
        """The inputs the step's `env:` expressions read (worked out once per step)."""
        known = self._inputs_read.get(id(step))
        if known is None or known[0] is not step:
            texts = [*step.values.values(), *(a for a in step.launch_args or () if a)]
            names = frozenset(n for text in texts for n in input_names(text))
            known = self._inputs_read[id(step)] = (step, names)
        return known[1]

    def _step_for(self, entry: Entry) -> LauncherStep | None:
        """The workflow step that runs an entry's launcher: a workflow call's own, else one of
        the steps for its kind (single-node or multinode); of several, those whose workflow
        takes the most of the elements' own fields as inputs (the sweep passes each field as
        the input of its name: profile's workflow_inputs), as a template without `tp`,
        `ep` or `conc` inputs is not the one called with a single-node element's."""
        if entry.step is not None:
            return entry.step
        matching = [s for s in self.steps if s.multinode == entry.multinode] or self.steps
        fields = {name for element in entry.elements for name in element.fields}
        if len(matching) > 1 and fields:
            best = max(len(fields & s.input_types.keys()) for s in matching)
            matching = [s for s in matching if len(fields & s.input_types.keys()) == best]
        return matching[0] if matching else None

    def _condition_env(
        self,
        element: Element,
        launcher: LauncherModel,
        step: LauncherStep | None,
        runner_names: list[str],
    ) -> ConditionEnv:
        known, inputs = self._workflow_known(element, step)
        unknown = set(step.env) if step is not None else set()
        unknown -= set(known)
        if step is not None and step.launch_args is not None:  # `$1`... (see releases)
            for index in range(1, 10):
                arg = step.launch_args[index - 1] if index <= len(step.launch_args) else ""
                value = evaluate(arg, inputs) if arg and "${{" in arg else arg
                if value is None:
                    unknown.add(str(index))
                else:
                    known[str(index)] = value
        if step is not None:  # (a value an earlier step writes to GITHUB_ENV wins)
            unknown |= step.written
        # The workflow picks the launcher by the runner's name, so that name is one of these
        # (`h200-*`: any runner whose name starts so).
        if len(runner_names) == 1 and "*" not in runner_names[0]:
            known["RUNNER_NAME"] = runner_names[0]
        else:
            unknown.add("RUNNER_NAME")
        overwritten, defaulted, emptied, sourced = self._assigned(launcher)
        # a name a sourced file sets may hold its value before the launcher first assigns it
        starting = frozenset(unknown | (sourced - known.keys()) if sourced else unknown)
        incoming = self._unknowns.setdefault(starting, starting)
        unknown |= overwritten
        unknown |= defaulted - known.keys()
        # (`X="${X:-d}"` given X empty: `d` from there on, the empty value before)
        unknown |= {name for name in emptied if known.get(name) == ""}
        # one set for the routes that agree on it: most of a launcher's (a set of the names a
        # launcher assigns is 4 KiB; InferenceX has 852 routes)
        shared = self._unknowns.setdefault(frozenset(unknown), frozenset(unknown))
        return ConditionEnv(
            known,
            shared,
            self._given(launcher),
            self._decisions,
            incoming,
            self._casefold(launcher),
        )

    def _casefold(self, launcher: LauncherModel) -> bool:
        """Whether the launcher or a file it sources may say `shopt -s nocasematch`."""
        found = self._casefolds.get(launcher.path)
        if found is None:
            found = self._casefolds[launcher.path] = any(
                "nocasematch" in source.text
                for path in (launcher.path, *self.sourced_files(launcher.path))
                if (source := self.ws.source(path)) is not None
            )
        return found

    def _workflow_known(
        self, element: Element, step: LauncherStep | None
    ) -> tuple[dict[str, str], dict[str, Value]]:
        """The values the workflow gives the launcher for the element that are known, and the
        inputs the step's expressions read (typed). With a step, an element's field reaches the
        launcher only as the step's `env:` value says (`SPEC_DECODING: ${{
        inputs.spec-decoding }}`, not `SPEC_DECODING: mtp`)."""
        known = entry_environment(element, () if step is not None else None)
        inputs: dict[str, Value] = {}
        if step is not None:  # `${{ inputs.scenario-type == 'agentic-coding' && ... }}`
            read = self._step_inputs(step)  # (only the inputs its expressions read)
            given = {k: v for k, v in workflow_inputs(element).items() if k in read}
            inputs = typed_inputs(given, step.input_types, _quoted(element))
            for name, text in step.values.items():
                if name in known or name in step.run_names:
                    continue
                if "${{" in text:
                    value = evaluate(text, inputs)
                    if value is not None:
                        known[name] = value
                elif not text or (_PLAIN_VALUE.fullmatch(text) and text.lower() not in _YAML_WORDS):
                    known[name] = text  # `DEPLOY_MODE: disagg`, as the workflow writes it
        return known, inputs

    def _assigned(
        self, launcher: LauncherModel
    ) -> tuple[set[str], set[str], set[str], frozenset[str]]:
        """(names the launcher or a file it sources sets, names they only default, those of them
        an empty value does not keep, names the sourced files assign). What a sourced file
        assigns (`CONFIG_FILE=${CONFIG_FILE:-...}` in a defaults file) is taken as assigned
        throughout the launcher (before the `source` line too), and as holding a value not
        known before the launcher first assigns it."""
        found = self._assigned_by.get(launcher.path)
        if found is None:
            overwritten, defaulted, emptied = map(set, launcher.assigned_names)
            sourced: set[str] = set()
            for path in self.sourced_files(launcher.path):
                more, more_defaulted, more_emptied = self._file_assigned(path)
                sourced |= more | more_defaulted
                overwritten |= more
                defaulted |= more_defaulted
                emptied |= more_emptied
            found = (
                overwritten,
                defaulted - overwritten,
                emptied - overwritten,
                frozenset(sourced),
            )
            self._assigned_by[launcher.path] = found
        return found

    def sourced_files(self, path: str) -> list[str]:
        """The repository's files the script sources, and those they source (three deep), from
        the call graph's facts (kept in the cache: no sourced file is parsed for them)."""
        graph = call_graph(self.ws)
        found: dict[str, None] = {}
        paths, depth = [path], 0
        while paths and depth < 3:
            following = []
            for caller in paths:
                for kind, targets in graph.facts(caller):
                    for target in targets if kind == "source" else ():
                        if target not in found and target != path:
                            found[target] = None
                            following.append(target)
            paths, depth = following, depth + 1
        return list(found)

    def _file_assigned(self, path: str) -> tuple[set[str], set[str], set[str]]:
        """`assigned_names` of a sourced file, kept in the cache by its content."""
        cache = self.ws.cache
        digest = self.ws.digest(path) if cache is not None else None
        stored = cache.get("assigned", path, digest) if cache is not None and digest else None
        if isinstance(stored, list) and len(stored) == 3:
            return set(stored[0]), set(stored[1]), set(stored[2])
        script = self.ws.shell(path)
        found = assigned_names(script) if script is not None else (set(), set(), set())
        if cache is not None and digest:
            cache.put("assigned", path, digest, [sorted(names) for names in found])
        return found

    def _given(self, launcher: LauncherModel) -> frozenset[str]:
        """The names the wiring speaks for on the launcher's routes (see `ConditionEnv`): the
        workflow's names from an entry, the recipe variables, a name some workflow sets (in an
        `env:` or a `run:` text: where the route's own workflow does not, it is unset; the
        `BENCH_SCRIPT_OVERRIDE` another workflow gives), the additional-settings of the
        elements of the launcher's entries."""
        found = self._given_by.get(launcher.path)
        if found is None:
            names = set(_FIXED_NAMES) | self._workflow_names
            for index in self.pairs_of_launcher.get(launcher.path, ()):
                for element in self.pairs[index][0].elements:
                    names.update(element.settings)
            found = self._given_by[launcher.path] = frozenset(names)
        return found

    @cached_property
    def _workflow_names(self) -> frozenset[str]:
        return workflow_names(self.ws)

    # -- recipes ---------------------------------------------------------------------------
    def recipe(self, route: Route, variable: str = "CONFIG_FILE") -> RecipeRef | None:
        key = (id(route), variable)  # routes live as long as the wiring
        if key not in self._recipes:
            setting = route.element.settings.get(variable)
            self._recipes[key] = None if setting is None else self.resolve(setting, route)
        return self._recipes[key]

    def applied(self, route: Route) -> list[RecipeRef]:
        """The recipes srtctl may apply on the route: CONFIG_FILE's, and EVAL_CONFIG_FILE's
        where the launcher switches to it (`CONFIG_FILE="$EVAL_CONFIG_FILE"`, in eval-only
        runs) under a condition that may hold; each with the rewrites that reach it."""
        found = [r for r in (self.recipe(route),) if r is not None]
        switch = next(
            (c for c in route.launcher.eval_switches if route.holds(c) is not False), None
        )
        if switch is not None:
            key = (id(route), "switched")
            if key not in self._recipes:
                named = self.recipe(route, "EVAL_CONFIG_FILE")
                self._recipes[key] = (
                    None if named is None else dataclasses.replace(named, switch=switch)
                )
            switched = self._recipes[key]
            if switched is not None:
                found.append(switched)
        return found

    def recipes(self, route: Route) -> list[RecipeRef]:
        """Where the route's CONFIG_FILE and EVAL_CONFIG_FILE lead (those its entry sets)."""
        return [r for r in (self.recipe(route, v) for v in RECIPE_VARIABLES) if r is not None]

    def _mirror(self, rel: str) -> str | None:
        """This repository's file for srt-slurm's recipe path, in a folder some launcher copies
        to that path's folder, or an InferenceX recipe folder (`recipes/sglang/x.yaml`:
        `benchmarks/multi_node/srt-slurm-recipes/sglang/x.yaml`)."""
        for source, target in self._mirrors:
            if rel.startswith(target.rstrip("/") + "/"):
                candidate = posixpath.normpath(source + rel[len(target.rstrip("/")) :])
                if self.ws.is_yaml(candidate):
                    return candidate
        return None

    @cached_property
    def _mirrors(self) -> list[tuple[str, str]]:
        return recipe_mirrors(self.ws)

    def resolve(self, setting: Setting, route: Route) -> RecipeRef:
        match = _SELECTOR.match(setting.value.strip())
        if match is None:
            return RecipeRef("unknown", setting)
        rel = match.group("path")
        selector = match.group("selector")
        index = int(match.group("index")) if match.group("index") is not None else None
        if rel.startswith("/") or ".." in rel.split("/"):
            return RecipeRef("outside", setting, selector=selector)
        if rel.startswith(SRT_RECIPES):
            # the alternatives of the last copy that reaches the recipe on this route
            found: list[tuple[Overlay, str]] = []
            for overlay in reversed(route.launcher.overlays):
                if found and overlay.command is not found[0][0].command:
                    break
                if route.holds(overlay.command) is False:
                    continue
                if any(route.holds(giver) is False for giver in overlay.givers):
                    continue  # its operands have other values on this route
                if rel == overlay.target or rel.startswith(overlay.target + "/"):
                    local = overlay.source + rel[len(overlay.target) :]
                    if overlay.if_present and not self.ws.is_yaml(local):
                        continue  # copied only when this repository has the file
                    found.append((overlay, local))
            if len({local for _, local in found}) > 1 or any(o.uncertain for o, _ in found):
                # (which values the copy has, or where it lands: not known)
                return RecipeRef("unknown", setting, None, selector, index)
            if found:
                overlay, local = found[0]
                status = "local" if self.ws.is_yaml(local) else "missing"
                return RecipeRef(status, setting, local, selector, index, overlay)
            mirror = self._mirror(rel)
            return RecipeRef("upstream", setting, None, selector, index, mirror=mirror)
        if "/" in rel:
            status = "local" if self.ws.is_yaml(rel) else "missing"
            return RecipeRef(status, setting, rel, selector, index)
        for root in self.ws.recipe_roots:
            candidate = posixpath.join(root, rel)
            if self.ws.is_yaml(candidate):
                return RecipeRef("local", setting, candidate, selector, index)
        return RecipeRef("unknown", setting, None, selector, index)

    # -- effective recipes -----------------------------------------------------------------
    def rewrites_for(self, route: Route, recipe: RecipeRef) -> list[Rewrite]:
        """The launcher's rewrites that can edit this recipe: those of the recipe's variables,
        and each `find ... -exec sed` whose folder holds it (a folder of srtctl's checkout
        after the recipe was copied there; one of this repository before)."""
        rewrites = route.launcher.rewrites
        if recipe.switch is not None:  # before the switch, the launcher edits CONFIG_FILE's
            after = recipe.switch.node.start_byte
            rewrites = [r for r in rewrites if r.command.node.start_byte > after]
        if all(r.found is None for r in rewrites):
            return rewrites
        match = _SELECTOR.match(recipe.setting.value.strip())
        named = match.group("path") if match is not None else ""
        return [r for r in rewrites if r.found is None or _finds(r, recipe, named)]

    def effective(self, route: Route, recipe: RecipeRef) -> Effective | None:
        """The recipe after the launcher's rewrites that apply on this route."""
        if recipe.status != "local" or recipe.path is None:
            return None
        document = self.ws.yaml(recipe.path)
        if document is None:
            return None
        decisions = [(r, route.holds(r.command)) for r in self.rewrites_for(route, recipe)]
        applying = [r for r, holds in decisions if holds is not False]
        # a recipe applied only if the switch's condition holds, which is not known: its
        # effective recipe says so (the switch is the first command assumed)
        switch = recipe.switch if recipe.switch and route.holds(recipe.switch) is None else None
        key = (
            id(route.launcher),
            recipe.path + repr([(id(r), h) for r, h in decisions]),
            id(switch) if switch is not None else 0,
        )
        if key not in self._effective:
            effective = _simulate(document, applying, route, self._leaves)
            if switch is not None:
                effective.assumed.insert(0, switch)
            self._effective[key] = effective
        return self._effective[key]


def _finds(rewrite: Rewrite, recipe: RecipeRef, named: str) -> bool:
    """Whether a `find ... -exec sed` edits the recipe `named` (its setting's path)."""
    found = rewrite.found
    assert found is not None
    if not all(fnmatch.fnmatchcase(named.rsplit("/", 1)[-1], p) for p in found.patterns):
        return False
    if found.folder is None:
        return True  # any recipe: noted as not simulated (BL002)
    copy = recipe.overlay.command.node.start_byte if recipe.overlay is not None else None
    at = rewrite.command.node.start_byte
    if found.repository:  # edits the copy only if made before it
        inside = recipe.path is not None and recipe.path.startswith(found.folder + "/")
        return inside and copy is not None and at < copy
    return named.startswith(found.folder + "/") and (copy is None or at > copy)


def workflow_inputs(element: Element) -> dict[str, str]:
    """The inputs a benchmark workflow template is called with for the element (profile's
    workflow_inputs): its entry's fields, its own over them (`spec-decoding` is `none` when it
    leaves it out), and its scenario."""
    inputs = {**element.entry.fields, **element.fields}
    if element.entry.step is not None:  # a workflow call: the inputs it passes
        return inputs
    for source in profile.ELEMENT_ENVIRONMENT.values():  # (the sweep generator's default)
        inputs.setdefault(source["field"], source["default"])
    for name, attribute in profile.WORKFLOW_INPUTS.items():
        inputs[name] = getattr(element, attribute)
    return inputs


def _quoted(element: Element) -> frozenset[str]:
    """The element's inputs written quoted in the master config (strings, whatever they say)."""
    return (element.entry.quoted - element.fields.keys()) | element.quoted


# a workflow `env:` value taken as written (empty, a word or a path: not a number, a boolean or
# a null word that YAML and the runner may render otherwise)
_PLAIN_VALUE = lazy_compile(r"[A-Za-z_./][A-Za-z0-9_./:@+-]*|0|[1-9][0-9]*")
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"})
# the names `entry_environment` may set, and the route's own: where a route leaves one unset,
# the workflow did not set it
_FIXED_NAMES = frozenset(
    {
        *profile.ENTRY_ENVIRONMENT,
        *profile.ELEMENT_ENVIRONMENT,
        "IS_AGENTIC",
        "IS_MULTINODE",
        "ISL",
        "OSL",
        "RUNNER_NAME",
        *RECIPE_VARIABLES,
    }
)


def entry_environment(element: Element, exported: Container[str] | None = None) -> dict[str, str]:
    """The variables the workflow sets from the entry and the element. `exported`: the names
    set from the element's fields (None: every name of the profile's element_environment, where
    no workflow step is known; a route with a step takes them from its `env:` expressions)."""
    entry = element.entry
    if entry.step is not None:  # a workflow call: its workflow's `env:` sets what it sets
        return {name: s.value for name, s in element.settings.items()}
    env = {name: entry.fields.get(field, "") for name, field in profile.ENTRY_ENVIRONMENT.items()}
    for name, source in profile.ELEMENT_ENVIRONMENT.items():
        if exported is None or name in exported:
            env[name] = element.fields.get(source["field"], source["default"])
    env["IS_AGENTIC"] = "1" if element.scenario == profile.AGENTIC_SCENARIO else "0"
    if entry.multinode:
        env["IS_MULTINODE"] = "true"
    if element.isl is not None:
        env["ISL"] = element.isl
    if element.osl is not None:
        env["OSL"] = element.osl
    env.update({name: s.value for name, s in element.settings.items()})
    return env


def _entry(path: str, key: YNode, node: YNode) -> Entry:
    fields = {k.value: v.value for k, v in node.pairs if k.is_scalar and v.is_scalar and v.value}
    for field_key, mapping in node.pairs:  # `router: {name: sglang-router, version: "0.3.2"}`
        if field_key.is_scalar and mapping.is_map:
            fields.update(
                (f"{field_key.value}.{k.value}", v.value)
                for k, v in mapping.pairs
                if k.is_scalar and v.is_scalar and v.value
            )
    quoted = frozenset(
        k.value for k, v in node.pairs if k.is_scalar and v.is_scalar and v.style is not None
    )
    runner = node.get("runner")
    multinode = node.get("multinode")
    entry = Entry(
        name=key.value,
        path=path,
        location=Location(path, key.span),
        fields=fields,
        runner=runner.value if runner is not None and runner.is_scalar else None,
        runner_location=Location(path, runner.span) if runner is not None else None,
        multinode=multinode is not None and multinode.scalar is True,
        quoted=quoted,
    )
    scenarios = node.get("scenarios")
    groups: list[tuple[str, YNode]] = []
    if scenarios is not None and scenarios.is_map:
        groups = [(k.value, v) for k, v in scenarios.pairs if k.is_scalar]
    elif scenarios is not None and scenarios.is_seq:
        groups = [("fixed-seq-len", scenarios)]
    else:  # the schema before `scenarios:` (until June 2026): isl, osl and a search space
        legacy = node.get("seq-len-configs")
        if legacy is not None and legacy.is_seq:
            groups = [("fixed-seq-len", legacy)]
    for scenario, items in groups:
        for i, item in enumerate(items.items if items.is_seq else []):
            if not item.is_map:
                continue
            space = item.get("search-space")
            for j, element_node in enumerate(
                space.items if space is not None and space.is_seq else []
            ):
                element = Element(
                    entry,
                    scenario,
                    f"{scenario}[{i}].search-space[{j}]",
                    Location(path, element_node.span),
                    _scalar_text(item.get("isl")),
                    _scalar_text(item.get("osl")),
                )
                if element_node.is_map:
                    pairs = element_node.loaded_pairs()  # (merged fields too, h106 F5)
                    element.fields = {k.value: v.value for k, v in pairs if v.is_scalar}
                    element.quoted = frozenset(
                        k.value for k, v in pairs if v.is_scalar and v.style is not None
                    )
                for side in ("prefill", "decode"):  # decode wins on a duplicate key
                    block = element_node.get(side) if element_node.is_map else None
                    settings = (
                        block.get("additional-settings")
                        if block is not None and block.is_map
                        else None
                    )
                    for setting in (
                        settings.items if settings is not None and settings.is_seq else []
                    ):
                        for name, value in _settings(setting.value) if setting.is_scalar else ():
                            element.settings[name] = Setting(
                                name, value, Location(path, setting.span)
                            )
                entry.elements.append(element)
    return entry


@functools.lru_cache(maxsize=4096)
def _settings(text: str) -> tuple[tuple[str, str], ...]:
    """The names and values an additional-setting gives, as the workflow's `export ${{
    join(...) }}` gives them: read as bash reads `export TEXT` (its quotes removed,
    `CONFIG_FILE="recipes/x.yaml"` is `recipes/x.yaml`: h128 F1; a blank ends the value and
    what follows is another word, `A=1 B=2` two settings, `# ...` a comment; a quoted whole,
    `"A=1"`, one: h131 F5, F6). Text bash would reject (an unclosed quote) is kept as written."""
    if "=" not in text:
        return ()
    if not any(c in text for c in " \t'\"\\#;&|<>()`"):
        name, value = text.split("=", 1)
        return ((name, value),)
    script = parse_file(SourceText("setting", f"export {text}\n".encode()))
    if script.has_error or len(script.commands) != 1:
        name, value = text.split("=", 1)
        return ((name.strip(), value.strip()),)
    return tuple(
        (a.name, a.value.value if a.value is not None else "")
        for a in script.commands[0].assignments
        # (not `export NAME` alone, which keeps the value the name has)
        if a.kind == "export" and a.name and "=" in script.text_of(a.node)
    )


def _call_entry(call: WorkflowCall, step: LauncherStep) -> Entry | None:
    """The entry of a workflow call whose runner is known: the value the step's job's `runs-on`
    gets (None if not known)."""
    defaults = {k: v for k, v in step.input_defaults.items() if k not in call.unknown}
    fields = {**defaults, **call.inputs}
    runs_on = step.runs_on or ""
    inputs = typed_inputs(fields, step.input_types, call.quoted)
    runner = evaluate(runs_on, inputs) if "${{" in runs_on else runs_on
    if not runner:
        return None
    read = input_names(runs_on)
    where = call.where.get(read[0]) if len(read) == 1 else None
    entry = Entry(
        call.name,
        call.path,
        call.location,
        fields,
        runner,
        where or call.location,
        step.multinode,
        quoted=call.quoted,
        step=step,
        nonempty=call.nonempty,
        condition=call.condition,
    )
    entry.elements.append(Element(entry, "", "with", call.location))
    return entry


def _encode_entry(entry: Entry) -> tuple[Any, ...]:
    """An entry as plain data for the cache (its path is the key's)."""
    return (
        entry.name,
        tuple(entry.location.span),
        entry.fields,
        entry.runner,
        tuple(entry.runner_location.span) if entry.runner_location is not None else None,
        entry.multinode,
        [
            (
                e.scenario,
                e.label,
                tuple(e.location.span),
                e.isl,
                e.osl,
                [(s.name, s.value, tuple(s.location.span)) for s in e.settings.values()],
                e.fields,
                sorted(e.quoted),
            )
            for e in entry.elements
        ],
        sorted(entry.quoted),
    )


def _decode_entry(path: str, data: tuple[Any, ...]) -> Entry:
    name, span, fields, runner, runner_span, multinode, elements, quoted = data
    entry = Entry(
        name,
        path,
        Location(path, Span(*span)),
        fields,
        runner,
        Location(path, Span(*runner_span)) if runner_span is not None else None,
        multinode,
        quoted=frozenset(quoted),
    )
    for scenario, label, element_span, isl, osl, settings, fields_, quoted_ in elements:
        element = Element(entry, scenario, label, Location(path, Span(*element_span)), isl, osl)
        element.fields = fields_
        element.quoted = frozenset(quoted_)
        for setting_name, value, setting_span in settings:
            element.settings[setting_name] = Setting(
                setting_name, value, Location(path, Span(*setting_span))
            )
        entry.elements.append(element)
    return entry


def _scalar_text(node: YNode | None) -> str | None:
    return node.value if node is not None and node.is_scalar else None


def _simulate(
    document: YamlDocument, rewrites: list[Rewrite], route: Route, cache: LeafCache
) -> Effective:
    """Apply the rewrites in order; each change remembers every rewrite that touched its key.

    A rewrite guarded by `grep -q PATTERN "$CONFIG_PATH"` is decided on the text as it is then.
    """
    text = document.file.text
    applied: list[Rewrite] = []
    assumed: list[Command] = []
    errors: list[tuple[Rewrite, str]] = []
    current: YamlDocument | None = document
    touched: dict[tuple[str, ...], list[Rewrite]] = {}
    # the leaves of the original and of the current text, each computed once
    original: Leaves | None = None
    leaves: Leaves | None = None
    for rewrite in rewrites:
        holds = route.holds(rewrite.command, route.launcher.grep_probe(text))
        if holds is False:
            continue
        if holds is None:
            assumed.append(rewrite.command)
        if rewrite.error:
            errors.append((rewrite, rewrite.error))
            continue
        try:
            new_text = _apply(rewrite, text)
        except RewriteError as exc:
            errors.append((rewrite, str(exc)))
            continue
        if new_text == text:
            continue
        if not applied:
            original = leaves = cache.of(document)
        applied.append(rewrite)
        text = new_text
        patch = patched(current, text) if current is not None else None
        new_leaves: Leaves | None
        if patch is not None and leaves is not None:
            new_document: YamlDocument | None = patch.document
            new_leaves, diff = _patched_leaves(leaves, patch)
        else:
            new_document = _parse(document.path, text)
            new_leaves = _leaves(new_document.root) if new_document is not None else None
            diff = []
            if leaves is not None and new_leaves is not None:
                diff = _diff(leaves, new_leaves)
        for change in diff:
            touched.setdefault(change.path, []).append(rewrite)
        current, leaves = new_document, new_leaves
    changes = []
    if original is not None and leaves is not None:
        for change in _diff(original, leaves):
            change.rewrites = touched.get(change.path, applied[-1:])
            changes.append(change)
    return Effective(document, text, current, applied, assumed, errors, changes)


def _parse(path: str, text: str) -> YamlDocument | None:
    try:
        return parse_yaml(SourceText.of_text(path, text))
    except YamlError:
        return None


def _apply(rewrite: Rewrite, text: str) -> str:
    if rewrite.kind == "sed":
        return run_sed(rewrite.sed, text)
    if rewrite.kind == "append":
        separator = "" if not text or text.endswith("\n") else "\n"
        return text + separator + rewrite.text
    if rewrite.kind == "yq":
        return _apply_yq(rewrite, text)
    raise RewriteError(f"unknown rewrite {rewrite.kind}")


def _apply_yq(rewrite: Rewrite, text: str) -> str:
    document = _parse("recipe", text)
    if document is None:
        raise RewriteError("the recipe is not valid YAML before this yq edit")
    root = document.root
    node = root.path(*rewrite.yq_path) if root is not None else None
    if node is None and rewrite.yq_value is not None and root is not None:
        return _add_yq_keys(root, rewrite.yq_path, rewrite.yq_value, text)
    if node is None or not node.is_scalar:
        raise RewriteError("this yq edit replaces a mapping or a list; not simulated")
    lines = text.split("\n")
    span = node.span
    if span.line != span.end_line or rewrite.yq_value is None:
        raise RewriteError("this yq edit is not simulated")
    line = lines[span.line - 1]
    lines[span.line - 1] = line[: span.column - 1] + rewrite.yq_value + line[span.end_column - 1 :]
    return "\n".join(lines)


def _add_yq_keys(root: YNode, path: tuple[str, ...], value: str, text: str) -> str:
    """`yq -i '.a.b = v'` where the recipe lacks `.a.b`: the keys it adds, written at the end
    of the deepest block mapping on the path that exists."""
    lines = text.split("\n")
    parent, depth = root, 0
    while depth < len(path) - 1:
        child = parent.get(path[depth])
        if child is None:
            break
        if not child.is_map:
            raise RewriteError("yq replaces a value that is not a mapping; not simulated")
        parent, depth = child, depth + 1
    if not parent.is_map or not parent.pairs or _flow(parent, lines):
        raise RewriteError("yq adds a key to an empty or flow-style mapping; not simulated")
    indent = parent.pairs[0][0].span.column - 1
    last = 0  # the last line (1-based) of the mapping's content
    for key, item in parent.pairs:
        end = item.span.end_line - (1 if not item.is_scalar and item.span.end_column == 1 else 0)
        last = max(last, key.span.end_line, end)
    added = []
    for level, name in enumerate(path[depth:]):
        tail = f" {value}" if depth + level == len(path) - 1 else ""
        added.append(" " * (indent + 2 * level) + f"{name}:{tail}")
    return "\n".join([*lines[:last], *added, *lines[last:]])


def _flow(mapping: YNode, lines: list[str]) -> bool:
    span = mapping.span
    return lines[span.line - 1][span.column - 1 : span.column] == "{"


def _leaves(
    node: YNode | None, prefix: tuple[str, ...] = (), expanded: set[int] | None = None
) -> dict[tuple[str, ...], tuple[YNode | None, YNode]]:
    """Every scalar (and empty collection) by key path, as PyYAML sees it (last key wins).
    A collection reached again through an alias is not expanded again: its scalars sit on the
    same lines, and aliases of aliases would make the paths exponential in the file's size."""
    found: dict[tuple[str, ...], tuple[YNode | None, YNode]] = {}
    if node is None:
        return found
    expanded = set() if expanded is None else expanded
    if id(node) in expanded:
        return found
    expanded.add(id(node))
    if node.is_map:
        seen: dict[str, tuple[YNode, YNode]] = {}
        for k, v in node.pairs:
            if k.is_scalar:
                seen[k.value] = (k, v)
        for name, (k, v) in seen.items():
            if v.is_scalar or (not v.pairs and not v.items):
                path = (*prefix, name)
                found[path] = (k, v)
            else:
                found.update(_leaves(v, (*prefix, name), expanded))
    elif node.is_seq:
        for i, item in enumerate(node.items):
            if item.is_scalar:
                path = (*prefix, f"[{i}]")
                found[path] = (None, item)
            else:
                found.update(_leaves(item, (*prefix, f"[{i}]"), expanded))
    return found


Leaves = dict[tuple[str, ...], tuple[YNode | None, YNode]]


class LeafCache:
    """`_leaves` of the workspace's recipes, each worked out once (kept as long as its
    documents: a recipe is compared on every route to it), their key paths shared between
    recipes (InferenceX's 245 routed recipes: 28,562 paths, 1,134 different)."""

    def __init__(self) -> None:
        # (the document kept with its leaves: its id is not another's while it is here)
        self._by_document: dict[int, tuple[YamlDocument, Leaves]] = {}
        self._paths: dict[tuple[str, ...], tuple[str, ...]] = {}

    def of(self, document: YamlDocument) -> Leaves:
        found = self._by_document.get(id(document))
        if found is None or found[0] is not document:
            paths = self._paths
            leaves = {paths.setdefault(p, p): at for p, at in _leaves(document.root).items()}
            found = self._by_document[id(document)] = (document, leaves)
        return found[1]


def _patched_leaves(leaves: Leaves, patch: Patch) -> tuple[Leaves, list[Change]]:
    """`_leaves` and `_diff` after a patch, from the leaves before it: only the one scalar's
    entry can differ (when the scalar is a leaf at all: not shadowed by a later equal key)."""
    if patch.root != 0:
        return leaves, []
    path = tuple(
        parent.pairs[position][0].value if parent.kind == "map" else f"[{position}]"
        for parent, position in patch.ancestors
    )
    entry = leaves.get(path)
    if entry is None or entry[1] is not patch.old:
        return leaves, []
    after = dict(leaves)
    after[path] = (entry[0], patch.new)
    if _same_scalar(patch.old, patch.new):
        return after, []
    return after, [Change(path, entry[0], patch.old, patch.new)]


def _same_scalar(old: YNode, new: YNode) -> bool:
    """Whether two scalars give srtctl the same value, as PyYAML reads them (`yes` and `true`
    are both True; `512` and `"512"` are a number and a string)."""
    if old.value == new.value and old.style == new.style:
        return True
    a, b = old.scalar, new.scalar
    return type(a) is type(b) and a == b


def _diff(before: Leaves, after: Leaves) -> list[Change]:
    """What changed from one document's leaves to another's (an empty or null value that the
    rewrite fills with keys is no removal)."""
    changes: list[Change] = []
    filled: set[tuple[str, ...]] | None = None  # the paths under which `after` has keys
    for path, (key, value) in before.items():
        if path not in after:
            if filled is None:
                filled = {p[:i] for p in after for i in range(1, len(p))}
            if path not in filled:
                changes.append(Change(path, key, value, None))
            continue
        new_value = after[path][1]
        if value.is_scalar and new_value.is_scalar and not _same_scalar(value, new_value):
            changes.append(Change(path, key, value, new_value))
    for path, (_, value) in after.items():
        if path not in before:
            changes.append(Change(path, None, None, value))
    return changes
