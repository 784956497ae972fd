"""GitHub Actions expression syntax (benchlint/actions.py) against GitHub's own parser."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from benchlint.actions import ExpressionError, Node, embedded, parse, tree
from tests.test_expressions import _github as github
from tests.test_expressions import run_oracle

ORACLE = Path(__file__).parent / "oracles" / "github_parse.mjs"
TREE_ORACLE = Path(__file__).parent / "oracles" / "github_tree.mjs"


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


def _written(node: Node) -> str:
    """The tree as the tree oracle writes GitHub's (a context's keys one index each)."""
    if node.kind == "literal":
        if node.name == "STRING":
            return f"(str {json.dumps(node.value)})"
        if node.name == "NUMBER":
            return "num"
        return f"(lit {'null' if node.value is None else str(node.value).lower()})"
    if node.kind == "ref":
        assert node.path is not None
        written = f"(ctx {node.path[0]})"
        for key in node.path[1:]:
            written = f"(idx {written} {'*' if key == '*' else f'(str {json.dumps(key)})'})"
        return written
    if node.kind == "star":
        return "*"
    parts = "".join(" " + _written(part) for part in node.parts)
    if node.kind == "call":
        return f"(call {node.name}{parts})"
    return f"({'idx' if node.kind == 'index' else node.kind}{parts})"


def test_trees_are_githubs() -> None:
    """Generated expressions (well formed): the tree `tree` builds is the one GitHub's parser
    builds (chains of `&&` and `||` as one node each, indexing, groups, calls, literals), and
    each part's text is where the tree says (a fixed seed: the same cases every run)."""
    rng = random.Random(20261207)
    atoms = ["needs.a.result", "needs['b-c'].outputs.d", "needs.*.result", "inputs.x", "'s'"]
    atoms += ["'it''s'", "1", "true", "false", "null", "github.event.labels.*.name", "vars.V"]
    atoms += ["always()", "success()", "contains(needs.*.result, 'skipped')"]
    atoms += ["fromJson(inputs.j).k[0]", "needs[inputs.n].result", "toJSON(steps.*.outputs)"]

    def expression(depth: int) -> str:
        pick = rng.random()
        if depth == 0 or pick < 0.3:
            return rng.choice(atoms)
        if pick < 0.4:
            return "!" + expression(depth - 1)
        if pick < 0.5:
            return f"({expression(depth - 1)})"
        operator = rng.choice(["==", "!=", "&&", "||", "<", ">="])
        return f"{expression(depth - 1)} {operator} {expression(depth - 1)}"

    texts = [expression(4) for _ in range(1500)]
    results = run_oracle("expressions", "GITHUB_EXPRESSIONS", [str(TREE_ORACLE)], texts)
    for text, github_tree in zip(texts, results, strict=True):
        ours = tree(text)
        assert github_tree is not None and ours is not None, text
        assert _written(ours) == github_tree, text
        stack = [ours]
        while stack:  # (each part's text parses alone to the same tree)
            node = stack.pop()
            stack.extend(node.parts)
            if node.kind not in ("star", "group") and not (
                node.kind == "literal" and text[node.start] not in "'tfn0123456789"
            ):
                alone = tree(text[node.start : node.end])
                assert alone is not None and _written(alone) == _written(node), (text, node)


def test_embedded_expressions_end_outside_strings() -> None:
    found = list(embedded("a ${{ x == '}}' }} b ${{ y }} c ${{ z"))
    assert [(e.text, e.closed) for e in found] == [
        (" x == '}}' ", True),
        (" y ", True),
        (" z", False),
    ]
