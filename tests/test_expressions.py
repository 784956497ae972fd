"""GitHub Actions expressions in workflow `env:` values, decided with a route's inputs."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from benchlint.expressions import evaluate, typed_inputs

INPUTS = {"scenario-type": "agentic-coding", "spec-decoding": "none", "tp": "8", "empty": ""}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "${{ inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/' }}",
            "agentic/",
        ),
        (
            "${{ inputs.scenario-type != 'agentic-coding' && 'agentic/' || 'fixed_seq_len/' }}",
            "fixed_seq_len/",
        ),
        # strings compare without regard to case
        ("${{ inputs.scenario-type == 'AGENTIC-CODING' && '1' || '0' }}", "1"),
        # `&&` and `||` give an operand: an empty middle operand falls through to the last
        ("${{ inputs.spec-decoding != 'none' && inputs.spec-decoding || '' }}", ""),
        ("${{ inputs.tp }}", "8"),
        ("${{ inputs.empty || 'default' }}", "default"),
        ("${{ !(inputs.tp == '8') }}", "false"),
        ("${{ inputs.tp == '8' }}", "true"),
        ("${{ 'it''s' }}", "it's"),
        ("${{ null }}", ""),
        # values of two kinds compare as numbers
        ("${{ inputs.tp == 8 }}", "true"),
        ("${{ inputs.empty == null }}", "true"),
        ("${{ inputs.empty == false }}", "true"),
        # text no number reads as is NaN against another kind: equal to nothing
        ("${{ inputs.scenario-type == 0 }}", "false"),
        ("${{ true == 'true' }}", "false"),
        ("${{ false != 'false' }}", "true"),
        ("${{ 1 == 'x y' }}", "false"),
    ],
)
def test_expressions_the_route_decides(text: str, expected: str) -> None:
    assert evaluate(text, INPUTS) == expected


@pytest.mark.parametrize(
    "text",
    [
        "${{ inputs.unknown }}",  # an input the route does not know
        "${{ matrix.config.tp }}",
        "${{ env.X }}",
        "${{ format('{0}', inputs.tp) }}",  # a function call
        "${{ inputs.tp == 0x8 }}",  # a number literal of another form
        "${{ 8 == '0x8' }}",  # a string JavaScript's Number() reads in another form
        "${{ 'Straße' == 'STRASSE' }}",  # case rules beyond ASCII differ between evaluators
        "prefix-${{ inputs.tp }}",  # not one expression alone
        "${{ inputs.tp == }}",
        "${{ (inputs.tp }}",
        "plain",
    ],
)
def test_what_is_not_modelled_is_unknown(text: str) -> None:
    assert evaluate(text, INPUTS) is None


def test_an_element_gives_its_fields_its_scenario_and_the_generator_defaults() -> None:
    from benchlint.finding import Location, Span
    from benchlint.wiring import Element, Entry, workflow_inputs

    where = Location("configs/m.yaml", Span(1, 1, 1, 2))
    entry = Entry(
        "e", "configs/m.yaml", where, {"model-prefix": "dsr1", "tp": "4"}, "b200", None, False
    )
    element = Element(entry, "agentic-coding", "agentic-coding[0].search-space[0]", where)
    element.fields = {"tp": "8"}
    inputs = workflow_inputs(element)
    assert (inputs["model-prefix"], inputs["tp"], inputs["scenario-type"]) == (
        "dsr1",
        "8",
        "agentic-coding",
    )
    text = "${{ inputs.spec-decoding != 'none' && inputs.spec-decoding || '' }}"
    assert evaluate(text, inputs) == ""
    element.fields["spec-decoding"] = "mtp"
    assert evaluate(text, workflow_inputs(element)) == "mtp"


# GitHub's own evaluator (@actions/expressions, installed by .ci/run) as the oracle
NODE = shutil.which("node")
ORACLE = Path(__file__).parent / "oracles" / "github_expressions.mjs"
REPO = Path(__file__).parent.parent


def node_package(variable: str, name: str) -> Path | None:
    """An npm package of `@actions` an oracle imports: where the variable names it (`.ci/run`
    sets it), else in `.ci/node_modules`; None where it is not installed."""
    for candidate in (
        os.environ.get(variable, ""),
        str(REPO / ".ci" / "node_modules" / "@actions" / name),
    ):
        if candidate and (Path(candidate) / "dist" / "index.js").is_file():
            return Path(candidate)
    return None


def run_oracle(name: str, variable: str, oracle: list[str], cases: list[Any]) -> Any:
    """What a node oracle script (`oracle`: node's options and the script) prints, as JSON,
    for the cases, given the `@actions` package `name` (skipped where node or the package is
    not installed, failed on CI)."""
    library = node_package(variable, name)
    if NODE is None or library is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install @actions/{name} (see .ci/run)")
        pytest.skip(f"node or @actions/{name} not installed; .ci/run installs them")
    done = subprocess.run(
        [NODE, *oracle, str(library)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(done.stdout)


def _github(cases: list[Any], oracle: Path = ORACLE) -> list[dict[str, str]]:
    """What the expressions oracle script prints for the cases."""
    results: list[dict[str, str]] = run_oracle(
        "expressions", "GITHUB_EXPRESSIONS", [str(oracle)], cases
    )
    return results


STRINGS = ["agentic-coding", "AGENTIC-Coding", "", "none", "mtp", "0", "8", "08", "1.5", "true"]
STRINGS += ["false", "it''s", " 8", "x y", "Straße", "STRASSE", "\u0131", "I", "0x1F", "Infinity"]
STRINGS += ["1e3", " true ", "-", ".", "1.", "+8", "NaN"]
LITERALS = [f"'{s}'" for s in STRINGS] + ["0", "8", "1.5", "-2", "10", "true", "false", "null"]
NAMES = ["inputs.s", "inputs.b", "inputs.n", "inputs.e", "inputs.missing"]


def _expression(rng: random.Random, depth: int) -> str:
    pick = rng.random()
    if depth == 0 or pick < 0.3:
        return rng.choice(LITERALS + NAMES * 3)
    if pick < 0.4:
        return "!" + _expression(rng, depth - 1)
    if pick < 0.5:
        return f"({_expression(rng, depth - 1)})"
    operator = rng.choice(["==", "!=", "&&", "||"])
    return f"{_expression(rng, depth - 1)} {operator} {_expression(rng, depth - 1)}"


def _inputs(rng: random.Random) -> dict[str, Any]:
    inputs = {
        "s": rng.choice(STRINGS).replace("''", "'"),
        "b": rng.choice([True, False]),
        "n": rng.choice([0.0, 8.0, 1.5, -2.0]),
        "e": "",
    }
    return {k: v for k, v in inputs.items() if rng.random() < 0.9}


def test_expressions_agree_with_githubs_evaluator() -> None:
    """Where the model decides a value, GitHub's evaluator gives the same; generated expressions
    of the modelled forms over inputs of each kind (a fixed seed: the same cases every run)."""
    rng = random.Random(20261201)
    cases = []
    for _ in range(4000):
        inputs = _inputs(rng)
        cases.append({"expression": _expression(rng, rng.randint(1, 4)), "inputs": inputs})
    results = _github(cases)
    decided = 0
    for case, result in zip(cases, results, strict=True):
        ours = evaluate("${{ " + case["expression"] + " }}", case["inputs"])
        if ours is None:
            continue
        decided += 1
        assert result == {"value": ours}, case
    assert decided > len(cases) // 2  # (most are decided: the comparison means something)


# plain scalars of a master config, as PyYAML (the sweep generator's reader) resolves them
SCALARS = ["true", "True", "yes", "on", "Off", "n", "y", "~", "null", "8", "08", "0x10", "1_000"]
SCALARS += ["1:20", "1.5", ".5", "1e3", "1.0e+3", "-3", "+3", "0", "-0", "010", "0o10", "1."]
SCALARS += ["1.50", "2026-12-01", "<<", "mtp", "none", "agentic-coding", "fp4"]


def test_inputs_take_their_declared_type_as_the_generator_and_github_give_it() -> None:
    """typed_inputs, against PyYAML's reading of the scalar and GitHub's conversion of the JSON
    value to the input's type (a number to a string as its evaluator prints it)."""
    yaml = pytest.importorskip("yaml")
    checks: list[tuple[str, Any, Any]] = []
    for text in SCALARS:
        try:
            loaded = yaml.safe_load(f"k: {text}")["k"]
        except yaml.YAMLError:  # (`<<`: the generator fails before any job runs)
            loaded = Exception
        for kind in ("boolean", "number", "string"):
            typed = typed_inputs({"x": text}, {"x": kind})
            if "x" not in typed:
                continue
            assert loaded is not Exception, text
            value = typed["x"]
            if kind == "boolean":
                assert type(loaded) is bool and value is loaded, text
            elif kind == "number":
                assert type(loaded) in (int, float) and value == loaded, text
            elif isinstance(loaded, bool):
                assert value == ("true" if loaded else "false"), text
            elif isinstance(loaded, str):
                assert value == loaded, text
            else:
                assert type(loaded) in (int, float), text
                checks.append((text, loaded, value))
    results = _github([{"expression": "inputs.x", "inputs": {"x": n}} for _, n, _ in checks])
    for (text, _, value), result in zip(checks, results, strict=True):
        assert result == {"value": value}, text
    # a quoted scalar is a string, whatever it says
    assert typed_inputs({"x": "false", "y": "8"}, {"x": "boolean", "y": "string"}, {"x", "y"}) == {
        "y": "8"
    }
    # what does not convert surely is left out
    assert typed_inputs({"x": "false"}, {"x": "string"}) == {"x": "false"}
    assert typed_inputs({"x": "010", "y": "mtp", "z": "1"}, {"x": "string", "y": "boolean"}) == {}


def test_a_workflow_declares_its_inputs_types() -> None:
    """`on.workflow_call.inputs` give each input's type; a dispatch input without one is a
    string; an input the two triggers type differently is left out."""
    from benchlint.source import SourceText
    from benchlint.workflow import input_types
    from benchlint.yamlmodel import parse_yaml

    text = """\
on:
  workflow_call:
    inputs:
      dp-attn: {type: boolean, required: true}
      tp: {type: number}
      both: {type: string}
      untyped: {required: true}
  workflow_dispatch:
    inputs:
      both: {type: boolean}
      note: {description: free text}
      choice: {type: choice, options: [a, b]}
"""
    document = parse_yaml(SourceText(".github/workflows/w.yml", text.encode()))
    assert document.root is not None
    assert input_types(document.root) == {
        "dp-attn": "boolean",
        "tp": "number",
        "note": "string",
        "choice": "choice",
    }
