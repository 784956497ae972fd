"""Which contexts and context functions each value of a GitHub Actions workflow may use, as
GitHub's workflow parser decides it (`data/workflow_schema.json`, made by
tools/import_workflow_schema.py from the schema of `@actions/workflow-parser`).

The parser reads a workflow against its schema from the top (`workflow-root`): each value with
the definition its key gives it (a mapping's property, its loose value type, a sequence's item
type; a one-of narrowed, as keys arrive, to the mappings that have them), and with the contexts
of that definition and of every one above it (`DefinitionInfo`). An expression naming another
context (`env` in a job's `name:`, `secrets` in a step's `if:`) or another context function
(`hashFiles` in a job's `if:`) is rejected with the file.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from benchlint.profile import data_text
from benchlint.yamlmodel import YNode

SCHEMA_VERSION = 1
_MAX = 1 << 53  # (`MAX` in the schema: any number of arguments)


@dataclass(frozen=True)
class Allowed:
    """What an expression in one value may name, and where the value is (`jobs.bench.name`)."""

    contexts: frozenset[str]  # lower-case
    functions: dict[str, tuple[int, int]]  # lower-case name -> (fewest, most arguments)
    where: str
    listed: tuple[str, ...]  # as the schema writes them: `hashFiles(1,255)`

    def shown(self, functions: bool) -> str:
        """The contexts, or the functions, as the schema writes them (for a message)."""
        if functions:
            return ", ".join(sorted(f"{c.partition('(')[0]}()" for c in self.listed if "(" in c))
        return ", ".join(sorted(c for c in self.listed if "(" not in c))


# the types the parser defines itself (`TemplateSchema`'s constructor), which the schema's
# definitions name: scalars, a sequence and a mapping of anything, and anything
_BUILT_IN: dict[str, dict[str, Any]] = {
    "null": {"kind": "scalar"},
    "boolean": {"kind": "scalar"},
    "number": {"kind": "scalar"},
    "string": {"kind": "scalar"},
    "sequence": {"kind": "sequence", "item-type": "any"},
    "mapping": {
        "kind": "mapping",
        "properties": {},
        "loose-key-type": "string",
        "loose-value-type": "any",
    },
    "any": {
        "kind": "one-of",
        "one-of": ["null", "boolean", "number", "string", "sequence", "mapping"],
    },
}


@functools.lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    data = json.loads(data_text("workflow_schema.json"))
    if data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"data/workflow_schema.json: schema_version {data.get('schema_version')}")
    data["definitions"] = {**_BUILT_IN, **data["definitions"]}
    return data  # type: ignore[no-any-return]


def allowed_values(root: YNode) -> dict[str, Allowed]:
    """For each place of a scalar value of the workflow (`jobs.bench.steps[0].if`, as
    `workflow.expressions_at` names places: a value an alias repeats is met at each) that the
    parser reads with contexts, what an expression in it may name; none for a value under a key
    the schema does not know, nor one with no context at all (`on:`). A value under an
    expression key (`${{ matrix.k }}: v`) is read as anything, with the contexts above it."""
    found: dict[str, Allowed] = {}
    schema = _schema()
    _read(root, schema["root"], (), "", found)
    return found


def _with(parent: tuple[str, ...], name: str) -> tuple[str, ...]:
    """The contexts of a definition read below others (`DefinitionInfo`): the parent's, then its
    own not yet there (compared without case)."""
    own = _schema()["definitions"][name].get("context", ())
    seen = {c.upper() for c in parent}
    return parent + tuple(c for c in own if c.upper() not in seen)


def _of_kind(name: str, kind: str) -> list[dict[str, Any]]:
    """The definition if it is of that kind, or the members of that kind of a one-of
    (`getDefinitionsOfType`: one level)."""
    definitions = _schema()["definitions"]
    definition = definitions[name]
    if definition["kind"] == kind:
        return [definition]
    if definition["kind"] == "one-of":
        return [definitions[n] for n in definition["one-of"] if definitions[n]["kind"] == kind]
    return []


def _read(
    node: YNode, name: str, context: tuple[str, ...], where: str, found: dict[str, Allowed]
) -> None:
    context = _with(context, name)
    if node.is_scalar:
        if context:
            found[where] = _allowed(context, where)
        return
    if node.is_seq:
        sequences = _of_kind(name, "sequence")
        if sequences:
            for index, item in enumerate(node.items):
                _read(item, sequences[0]["item-type"], context, f"{where}[{index}]", found)
        return
    if not node.is_map:
        return
    mappings = _of_kind(name, "mapping")
    if not mappings:
        return
    loose = mappings[0].get("loose-value-type")
    for key, value in node.pairs:
        if not key.is_scalar:
            continue
        at = f"{where}.{key.value}" if where else key.value
        if "${{" in key.value:  # (an expression key: its value is read as anything)
            if context:  # (the key itself with the mapping's contexts)
                found[f"{at}#key"] = _allowed(context, where)
            _read(value, "any", context, at, found)
            continue
        # (`matchPropertyAndFilter`: the last of the candidates with the key, which then
        # narrows them to those that have it)
        having = [m for m in mappings if key.value in m["properties"]]
        if having:
            mappings = having
            _read(value, having[-1]["properties"][key.value], context, at, found)
        elif loose is not None:
            _read(value, loose, context, at, found)


def _allowed(context: tuple[str, ...], where: str) -> Allowed:
    contexts = set()
    functions = {}
    for item in context:
        if "(" in item:
            fname, _, bounds = item.partition("(")
            low, _, high = bounds.rstrip(")").partition(",")
            functions[fname.lower()] = (int(low), _MAX if high == "MAX" else int(high))
        else:
            contexts.add(item.lower())
    return Allowed(frozenset(contexts), functions, where, context)


@functools.cache
def properties(name: str) -> frozenset[str]:
    """The keys a mapping the definition gives may have: the properties of the definition, or of
    every mapping a one-of of it offers (`steps-item`: a run step's, an action's, a background
    `wait:`'s...)."""
    return frozenset(key for mapping in _of_kind(name, "mapping") for key in mapping["properties"])
