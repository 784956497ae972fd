"""GitHub Actions expressions in workflow `env:` values, decided with a route's inputs."""

from __future__ import annotations

import pytest

from benchlint.expressions import evaluate

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
        "${{ inputs.tp == 8 }}",  # a string against a number: GitHub converts, not modelled
        "${{ inputs.empty == null }}",
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
