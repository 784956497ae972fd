"""Where a workflow's values may name each context and function (benchlint/workflow_schema.py,
BL208) against GitHub's own workflow parser, `@actions/workflow-parser`: for every place and
every context, BL208 reports an expression there exactly where that parser rejects it."""

from __future__ import annotations

from pathlib import Path

from benchlint.finding import Finding
from benchlint.source import SourceText
from benchlint.yamlmodel import parse_yaml
from checks.bl208_workflow_rejected import _expressions, _merge_keys
from tests.test_expressions import run_oracle

ORACLE = Path(__file__).parent / "oracles" / "github_workflow.mjs"
IMPORT_HOOK = Path(__file__).parent / "oracles" / "json_import.mjs"

# a job `b` the others may name; `EXPR` is where the expression stands
_JOB_B = "  b:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n"
_STEP = "jobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - id: s\n"
_JOB = "jobs:\n  a:\n"
_STEPS = "    steps:\n      - run: e\n"


def _job(lines: str, runs_on: str = "    runs-on: x\n") -> str:
    """Job `a` with these lines (its `runs-on:` first, unless given)."""
    return _JOB + runs_on + lines + _STEPS


_PLACES = {
    "workflow env": "env:\n  V: ${{ EXPR }}\n" + _job(""),
    "run-name": "run-name: ${{ EXPR }}\n" + _job(""),
    "job name": _job("    name: n-${{ EXPR }}\n"),
    "job if": _job("    if: ${{ EXPR }}\n"),
    "job if, bare": _job("    if: EXPR\n"),
    "runs-on": _job("", runs_on="    runs-on: ${{ EXPR }}\n"),
    "job timeout": _job("    timeout-minutes: ${{ EXPR }}\n"),
    "job env": _job("    env:\n      V: ${{ EXPR }}\n"),
    "container": _job("    container:\n      image: i:${{ EXPR }}\n"),
    "concurrency": _job("    concurrency: c-${{ EXPR }}\n"),
    "environment": _job("    environment: e-${{ EXPR }}\n"),
    "job outputs": _job("    outputs:\n      o: ${{ EXPR }}\n"),
    "matrix": _job("    strategy:\n      matrix:\n        v:\n          - ${{ EXPR }}\n"),
    "defaults": _job("    defaults:\n      run:\n        working-directory: d-${{ EXPR }}\n"),
    "step name": _STEP + "        name: n-${{ EXPR }}\n        run: e\n",
    "step if": _STEP + "        if: ${{ EXPR }}\n        run: e\n",
    "step if, bare": _STEP + "        if: EXPR\n        run: e\n",
    "step run": _STEP + "        run: echo ${{ EXPR }}\n",
    "step with": _STEP + "        uses: a/b@v1\n        with:\n          w: ${{ EXPR }}\n",
    "step env": _STEP + "        run: e\n        env:\n          V: ${{ EXPR }}\n",
    "step timeout": _STEP + "        run: e\n        timeout-minutes: ${{ EXPR }}\n",
    "step directory": _STEP + "        run: e\n        working-directory: d-${{ EXPR }}\n",
    "call with": _JOB + "    uses: ./.github/workflows/t.yml\n    with:\n      w: ${{ EXPR }}\n",
    "call secrets": _JOB
    + "    uses: ./.github/workflows/t.yml\n    secrets:\n      s: ${{ EXPR }}\n",
}
_EXPRESSIONS = [
    "github.sha",
    "env.X",
    "vars.X",
    "job.status",
    "jobs.b.result",
    "steps.s.outcome",
    "runner.os",
    "secrets.X",
    "strategy.fail-fast",
    "matrix.x",
    "needs.b.result",
    "inputs.x",
    "hashFiles('x')",
    "always()",
    "success(needs.b)",
    "failure()",
]
# what BL208 and the parser both say of a context or function (not the parser's other errors:
# a value of the wrong type, `Unexpected value`)
_ABOUT_PLACES = ("named-value", "function", "parameters supplied")


def _github(texts: list[str]) -> list[list[str]]:
    """The errors GitHub's workflow parser reports for each workflow."""
    found: list[list[str]] = run_oracle(
        "workflow-parser",
        "GITHUB_WORKFLOW_PARSER",
        ["--import", str(IMPORT_HOOK), str(ORACLE)],
        texts,
    )
    return found


def _lines(errors: list[str]) -> set[int]:
    return {
        int(e.split("Line: ", 1)[1].split(",", 1)[0])
        for e in errors
        if e.startswith("(Line: ") and any(a in e.lower() for a in _ABOUT_PLACES)
    }


def _ours(text: str) -> set[int]:
    source = SourceText(".github/workflows/w.yml", text.encode())
    root = parse_yaml(source).root
    assert root is not None
    return {f.location.span.line for f in _expressions(source, root)}


def test_contexts_are_rejected_where_githubs_parser_rejects_them() -> None:
    cases = []
    for place, template in _PLACES.items():
        for expression in _EXPRESSIONS:
            body = template.replace("EXPR", expression)
            if "if, bare" in place and "(" not in expression:
                body = body.replace(f"if: {expression}", f"if: {expression} != ''")
            cases.append((place, expression, f"on: push\n{body}{_JOB_B}"))
    found = _github([text for _, _, text in cases])
    differ = [
        (place, expression, sorted(_lines(errors)), sorted(_ours(text)))
        for (place, expression, text), errors in zip(cases, found, strict=True)
        if _lines(errors) != _ours(text)
    ]
    assert not differ, differ
    assert sum(bool(_lines(errors)) for errors in found) > 100  # (the parser rejects many)


# (t82a) shapes where a place is not what its key alone says: a key named `if` that is no
# condition, a value an alias repeats in a place of other contexts, a key that is an expression
_RUNS = "jobs:\n  a:\n    runs-on: x\n"
_SHAPES = [
    _RUNS + "    env:\n      if: env.X\n" + _STEPS,
    _RUNS + "    strategy:\n      matrix:\n        include:\n          - if: failure()\n" + _STEPS,
    _RUNS + "    snapshot:\n      image-name: i\n      if: env.X\n" + _STEPS,
    _RUNS + "    steps:\n      - uses: a/b@v1\n        with:\n          if: always()\n",
    "env:\n  if: steps.x\n" + _RUNS + _STEPS,
    _RUNS + "    steps:\n      - run: e\n        if: &c always()\n"
    "      - uses: a/b@v1\n        with:\n          x: *c\n",
    _RUNS + "    steps:\n      - run: e\n        if: &c secrets.X\n"
    "      - uses: a/b@v1\n        with:\n          x: *c\n",
    _RUNS + "    env: &e\n      V: ${{ env.X }}\n    steps:\n      - run: e\n        env: *e\n",
    _RUNS + "    name: &n n-${{ env.X }}\n    steps:\n      - run: e\n        name: *n\n",
    _RUNS + "    env:\n      ${{ env.X }}: v\n" + _STEPS,
    _RUNS + "    services:\n      ${{ env.X }}:\n        image: i\n" + _STEPS,
    _RUNS + "    env:\n      ${{ github.k }}: ${{ failure(github.x) }}\n" + _STEPS,
    "env:\n  ${{ github.k }}: ${{ success(1, 2) }}\n" + _RUNS + _STEPS,
]


def test_places_an_alias_or_an_expression_key_makes_are_read_as_githubs_parser_reads_them() -> None:
    texts = [f"on: push\n{shape}" for shape in _SHAPES]
    found = _github(texts)
    differ = [
        (text, sorted(_lines(errors)), sorted(_ours(text)))
        for text, errors in zip(texts, found, strict=True)
        if _lines(errors) != _ours(text)
    ]
    assert not differ, differ
    assert sum(bool(_lines(errors)) for errors in found) == 7  # (the parser rejects seven)


def test_an_empty_expression_is_rejected_where_githubs_parser_rejects_it() -> None:
    cases = [
        template.replace("${{ EXPR }}", empty).replace("EXPR", "''")
        for place, template in _PLACES.items()
        for empty in ("${{ }}", "${{}}", "${{    }}")
        if "bare" not in place
    ]
    cases.append(_job("    if: ''\n"))  # (a bare condition that is empty: accepted)
    found = _github([f"on: push\n{text}{_JOB_B}" for text in cases])
    expected = [
        {
            (int(e.split("Line: ", 1)[1].split(",", 1)[0]) - 1)
            for e in errors
            if "An expression was expected" in e
        }
        for errors in found
    ]
    ours = [
        {f.location.span.line for f in _findings(text) if "expression was expected" in f.message}
        for text in cases
    ]
    assert ours == expected
    assert sum(bool(lines) for lines in expected) == 3 * (len(_PLACES) - 2)


def _findings(text: str) -> list[Finding]:
    source = SourceText(".github/workflows/w.yml", text.encode())
    root = parse_yaml(source).root
    assert root is not None
    return list(_expressions(source, root))


# a merge key in each kind of mapping (a step, a job's `env:`, a step's `with:`, a matrix, the
# jobs), and an alias of a whole mapping, which GitHub reads
_MERGES = [
    _RUNS + "    steps:\n      - &s\n        run: e\n      - <<: *s\n        name: n\n",
    _RUNS
    + "    env: &e\n      A: b\n"
    + _STEPS.replace("run: e", "run: e\n        env:\n          <<: *e\n          B: c"),
    _RUNS + "    steps:\n      - uses: a/b@v1\n        with: &w\n          k: v\n"
    "      - uses: a/b@v1\n        with:\n          <<: *w\n",
    _RUNS + "    strategy:\n      matrix:\n        <<: {v: [1]}\n" + _STEPS,
    "jobs:\n  a: &j\n    runs-on: x\n" + _STEPS + "  <<: {b: {runs-on: x, steps: [{run: e}]}}\n",
    _RUNS + "    env: &e\n      A: b\n" + _STEPS.replace("run: e", "run: e\n        env: *e"),
    # (in a matrix's values, anything goes: accepted, the key kept as `<<`; t84c)
    _RUNS + "    strategy:\n      matrix:\n        include:\n          - &b\n            m: a\n"
    "          - <<: *b\n            tp: 4\n" + _STEPS,
    _RUNS + "    strategy:\n      matrix:\n        cfg:\n          - {m: a}\n"
    "          - <<: {m: b}\n" + _STEPS,
]


def test_a_merge_key_is_rejected_as_githubs_parser_rejects_it() -> None:
    found = _github([f"on: push\n{text}" for text in _MERGES])
    ours = [[f for f in _merge_findings(text)] for text in _MERGES]
    assert [bool(errors) for errors in found] == [bool(f) for f in ours]
    assert [bool(errors) for errors in found] == [True] * 5 + [False] * 3
    for text, findings, errors in zip(_MERGES, ours, found, strict=True):  # (at the `<<` key)
        lines = [
            n
            for n, line in enumerate(text.splitlines(), 1)
            if line.lstrip().startswith(("<<", "- <<")) and errors
        ]
        assert [f.location.span.line for f in findings] == lines


def _merge_findings(text: str) -> list[Finding]:
    source = SourceText(".github/workflows/w.yml", text.encode())
    root = parse_yaml(source).root
    assert root is not None
    return list(_merge_keys(source, root))
