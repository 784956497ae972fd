"""Rule metadata and lookup. A rule is a function in `checks/`, registered with `@rule`.

The module docstring of a rule is its documentation: `benchlint rule ID` prints it and SARIF
carries it as `help.markdown`.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchlint.finding import Finding, Severity, Undecided
from benchlint.lazyre import lazy_compile

if TYPE_CHECKING:
    from benchlint.context import Context
    from benchlint.shell.model import Script
    from benchlint.yamlmodel import YamlDocument

Check = Callable[["Context"], Iterable[Finding]]
# a rule's pass over one script of the run's scope (see `engine`): the run models each script
# once and hands it to every rule's script pass before the next (file by file, not rule by rule)
ScriptPass = Callable[["Context", "Script"], Iterable[Finding]]
# the paths outside a named scope whose scripts a rule's script pass sees too (its findings there
# can be about a named file: a launcher's entry in a named master config)
Beyond = Callable[["Context"], Iterable[str]]
# a rule's pass over one YAML document alone (see `Workspace.pass_findings`): its findings and
# what it could not decide
DocumentPass = Callable[["YamlDocument"], list[Finding | Undecided]]
_RULES: dict[str, Rule] = {}
_ID = lazy_compile(r"^BL\d{3}$")


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    severity: Severity
    check: Check | None  # its pass over the repository (None: it has a script pass alone)
    doc: str
    tags: tuple[str, ...]
    # SARIF precision: very-high (decided by a parser), high (no known false positive on
    # InferenceX's history), medium (a heuristic: a flow, a text scan or a guess at topology)
    precision: str
    # off unless selected by ID, prefix or ALL (BL003: a report about the suppressions)
    default_enabled: bool = True
    # runs after the other rules' findings met the suppressions (it reports on those)
    after_suppressions: bool = False
    # what the rule finds in one YAML document alone, worked out while the document is at hand
    # (a large one is let go after it is read: `Workspace.yaml`)
    document_pass: DocumentPass | None = None
    # what the rule finds in one script of the scope, given the script
    script_pass: ScriptPass | None = None
    beyond: Beyond | None = None

    @property
    def summary(self) -> str:
        """The first line of the documentation: what the rule flags, in one sentence."""
        for line in self.doc.splitlines():
            line = line.strip().lstrip("#").strip()
            if line:
                return line
        return self.name


def rule(
    id: str,
    name: str,
    severity: Severity,
    tags: tuple[str, ...] = (),
    precision: str = "high",
    default_enabled: bool = True,
    after_suppressions: bool = False,
    document_pass: DocumentPass | None = None,
    script_pass: ScriptPass | None = None,
    beyond: Beyond | None = None,
) -> Callable[[Check], Check]:
    """Register `check`, the rule's pass over the repository (`script_pass`: and its pass over
    each script in scope; `script_rule` registers a rule that has that alone)."""
    _valid(id)

    def register(check: Check) -> Check:
        _RULES[id] = Rule(
            id,
            name,
            severity,
            check,
            _doc(check),
            tags,
            precision,
            default_enabled,
            after_suppressions,
            document_pass,
            script_pass,
            beyond,
        )
        return check

    return register


def script_rule(
    id: str,
    name: str,
    severity: Severity,
    tags: tuple[str, ...] = (),
    precision: str = "high",
    beyond: Beyond | None = None,
) -> Callable[[ScriptPass], ScriptPass]:
    """Register a rule whose findings are each about one script of the scope: the function is
    its script pass (`Rule.script_pass`), given each script in turn."""
    _valid(id)

    def register(script_pass: ScriptPass) -> ScriptPass:
        doc = _doc(script_pass)
        _RULES[id] = Rule(
            id, name, severity, None, doc, tags, precision, script_pass=script_pass, beyond=beyond
        )
        return script_pass

    return register


def _valid(id: str) -> None:
    if not _ID.match(id):
        raise ValueError(f"rule id {id!r} is not of the form BLnnn")


def _doc(function: Callable[..., object]) -> str:
    """A rule's documentation: its module's docstring."""
    return (sys.modules[function.__module__].__doc__ or "").strip()


# a rule's module: `checks/bl102_unguarded_lock.py` holds BL102
_MODULE = lazy_compile(r"bl(\d{3})_\w+")


def rule_ids() -> list[str]:
    """Every rule's ID, from the names of the modules of `checks/`, none of them imported (a run
    the cache answers loads no rule: `Selection`); `all_rules` checks each name against the
    rule its module registers."""
    return sorted(f"BL{m.group(1)}" for m in map(_MODULE.fullmatch, _modules()) if m is not None)


def _modules() -> list[str]:
    import checks

    return [info.name for info in pkgutil.iter_modules(checks.__path__)]


def all_rules() -> list[Rule]:
    for name in _modules():
        importlib.import_module(f"checks.{name}")
    if sorted(_RULES) != rule_ids():
        named = set(rule_ids())
        odd = sorted(set(_RULES) ^ named)
        raise RuntimeError(
            f"rules {', '.join(odd)}: a rule's module is named for its ID (checks/bl102_*.py "
            "registers BL102, and nothing else)"
        )
    return [_RULES[key] for key in sorted(_RULES)]


@dataclass(frozen=True)
class Selection:
    """The rules a run asks for, by ID: those chosen (None: the rules on by default) and those
    added, less those dropped. The rules themselves are loaded (`rules`) only when the run lints:
    a run the cache answers is known by its selection (`key`) and imports no rule."""

    chosen: frozenset[str] | None = None
    dropped: frozenset[str] = frozenset()
    added: frozenset[str] = frozenset()

    def key(self) -> dict[str, list[str] | None]:
        return {
            "chosen": sorted(self.chosen) if self.chosen is not None else None,
            "dropped": sorted(self.dropped),
            "added": sorted(self.added),
        }

    def rules(self) -> list[Rule]:
        every = all_rules()
        if self.chosen is None:
            ids = {r.id for r in every if r.default_enabled}
        else:
            ids = set(self.chosen)
        ids = (ids | self.added) - self.dropped
        return [r for r in every if r.id in ids]


def get_rule(rule_id: str) -> Rule | None:
    """A rule by its ID (`BL102`, any case) or its name (`unguarded-lock`)."""
    for rule in all_rules():
        if rule_id.upper() == rule.id or rule_id.lower() == rule.name:
            return rule
    return None


def expand_selectors(selectors: Iterable[str]) -> set[str]:
    """Rule IDs matching each selector: a full ID (`BL102`), a prefix (`BL1`), or `ALL`.

    Raises ValueError naming a selector that matches no rule.
    """
    ids = rule_ids()
    chosen: set[str] = set()
    for selector in selectors:
        key = selector.strip().upper()
        if not key:
            continue
        matched = ids if key == "ALL" else [i for i in ids if i.startswith(key)]
        if not matched:
            raise ValueError(f"unknown rule or prefix {selector!r}")
        chosen.update(matched)
    return chosen
