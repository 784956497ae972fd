"""GitHub Actions expression syntax (benchlint/actions.py) against GitHub's own parser."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchlint.actions import ExpressionError, embedded, parse
from tests.test_expressions import _github as github

ORACLE = Path(__file__).parent / "oracles" / "github_parse.mjs"


def _github(texts: list[str]) -> list[dict[str, str]]:
    return github(texts, ORACLE)


def _ours(text: str) -> str | None:
    try:
        parse(text)
    except ExpressionError as error:
        return error.message
    return None


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("inputs.run_1k8k && always())", "unexpected symbol: ')'"),
        ("contains(runer.labels, 'x')", "unrecognized named-value: 'runer'"),
        ("inputs.x == 'a", "unexpected symbol: ''a'"),
        ("fromJSON(inputs.x", "unexpected end of expression"),
        ("contains('a')", "too few parameters supplied: 'contains'"),
        ("succes()", "unrecognized function: 'succes'"),
        ("inputs.a = 'b'", "unexpected symbol: '='"),
        ("matrix.config.conc", None),
        ("!cancelled() && (needs.a.result == 'success' || inputs.force)", None),
        ("github.event.inputs['dry-run'] != 'true' && hashFiles('**/x') != ''", None),
        ("toJSON(steps.*.outputs)", None),
        ("format('{0}', 1.5e3, -2, 0x1F, NaN, Infinity)", None),
        ("", None),
    ],
)
def test_known_shapes(text: str, error: str | None) -> None:
    assert _ours(text) == error


def test_expressions_parse_as_githubs_parser_parses_them() -> None:
    """Generated token sequences (most well formed, many not): the model rejects exactly
    what GitHub's parser rejects (a fixed seed: the same cases every run)."""
    rng = random.Random(20261202)
    atoms = [
        "inputs.x",
        "github.event.inputs.y",
        "matrix.a.b",
        "steps.s.outputs.o",
        "'t'",
        "'it''s'",
        "1",
        "-2",
        "1.5",
        "0x1F",
        "true",
        "null",
        "NaN",
        "always()",
        "needs.j.result",
        "env.X",
        "runer.labels",
        "inputs",
        "x",
        "vars.V",
    ]
    pieces = [
        "==",
        "!=",
        "&&",
        "||",
        "!",
        "(",
        ")",
        ",",
        ".",
        "[",
        "]",
        "*",
        "<",
        ">=",
        "contains(",
        "format(",
        "success(",
        "hashFiles(",
        "foo(",
        "'",
        "=",
        "&",
        ".",
    ]
    texts = []
    for _ in range(3000):
        n = rng.randint(1, 7)
        words = [rng.choice(atoms) if rng.random() < 0.6 else rng.choice(pieces) for _ in range(n)]
        texts.append(" ".join(words) if rng.random() < 0.7 else "".join(words))
    results = _github(texts)
    accepted = 0
    for text, result in zip(texts, results, strict=True):
        ok = "ok" in result
        accepted += ok
        assert (_ours(text) is None) == ok, (text, result)
    assert 100 < accepted < len(texts) - 100  # (both outcomes are exercised)


def test_embedded_expressions_end_outside_strings() -> None:
    found = list(embedded("a ${{ x == '}}' }} b ${{ y }} c ${{ z"))
    assert [(e.text, e.closed) for e in found] == [
        (" x == '}}' ", True),
        (" y ", True),
        (" z", False),
    ]
