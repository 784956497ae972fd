"""A workflow input compared with a value of another kind: the comparison never changes.

## What it does
Reports `==` or `!=` in a workflow's expressions (an `if:`, or any `${{ ... }}`) between an
input and a literal of another kind whose result is the same for every value the input can
take: a `boolean` input compared with a string (`inputs.dry_run != 'true'`), a `number` input
with text no number reads as (`inputs.nodes == 'all'`), a `choice` input with a boolean or a
number none of its options equals, and `github.event.inputs.NAME` (always a string, `'true'`
or `'false'` for a boolean input) compared with `true` or `false`. The inputs' kinds are the
ones `on.workflow_dispatch.inputs` and `on.workflow_call.inputs` declare. In a job's or a step's
`if:`, `github.event.inputs.NAME` of a boolean input tested for truth (alone, after `!`, or
beside `&&` and `||`: `if: ${{ github.event.inputs.run_h100 }}`) is reported too: its value is
the text `'true'` or `'false'`, and a condition takes any text but the empty one as true.

## Why is this bad?
GitHub compares values of two kinds as numbers: `true` is 1, and a string that is no number is
NaN, equal to nothing. So `inputs.dry_run != 'true'` holds on every run: a dry run pushes
anyway, and `inputs.dry_run == 'true'` never does what it guards. The `inputs` context keeps a
boolean input a boolean; only `github.event.inputs` turns it into text. InferenceX fixed this in
its image-tag monitor, whose dry run still opened pull requests, and in its sweep tests, whose
`if: ${{ github.event.inputs.run_h100 }}` ran every job whatever was ticked.

## Example
```yaml path=.github/workflows/monitor.yml
on:
  workflow_dispatch:
    inputs:
      dry_run:
        type: boolean
        default: false
jobs:
  update:
    runs-on: ubuntu-latest
    steps:
      - run: ./open-pr.sh
        if: inputs.dry_run != 'true'
```

## Use instead
```yaml path=.github/workflows/monitor.yml
on:
  workflow_dispatch:
    inputs:
      dry_run:
        type: boolean
        default: false
jobs:
  update:
    runs-on: ubuntu-latest
    steps:
      - run: ./open-pr.sh
        if: ${{ !inputs.dry_run }}
```

## Exceptions
Not reported: an input declared without a kind the comparison can be decided for (a `string`
input may hold any text; a `number` input compared with a numeric string such as `'8'`, which
GitHub reads as 8), an input two triggers declare with different kinds, a comparison whose
operands are not an input and a literal alone (`!inputs.x == 'true'`, function calls), and an
expression not in a workflow file. Values are compared as GitHub's evaluator
(`@actions/expressions`) compares them; `tests/test_expressions.py` holds the model to it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from benchlint.actions import ExpressionError, Token, embedded
from benchlint.actions import tokens as lex
from benchlint.context import Context
from benchlint.expressions import Value, equal, number
from benchlint.finding import Finding, Location, Severity, Span, clip
from benchlint.registry import rule
from benchlint.source import SourceText
from benchlint.workflow import WORKFLOWS, conditions, expressions, workflow_roots
from benchlint.yamlmodel import YNode, value_span

# what may stand next to an operand of `==` that is the operand alone (lower precedence)
_LOOSE = frozenset({"(", ")", ",", "&&", "||", "EOF"})
_LITERALS = frozenset({"STRING", "NUMBER", "TRUE", "FALSE", "NULL"})
_KEYWORDS: dict[str, Value] = {"TRUE": True, "FALSE": False, "NULL": None}


@dataclass(frozen=True)
class Declared:
    kind: str  # "boolean", "number", "choice", "string", "environment"
    options: tuple[str, ...]  # a choice's
    trigger: str


@rule("BL207", "input-kind-mismatch", Severity.ERROR, tags=("workflow", "correctness"))
def check(ctx: Context) -> Iterator[Finding]:
    paths = ctx.in_scope(ctx.ws.glob([*ctx.ws.layout.workflows, *WORKFLOWS]))
    for source, root in workflow_roots(ctx.ws, paths, "inputs"):
        declared = _declared(root)
        if not declared:
            continue
        for node, text, offset in expressions(root):
            yield from _comparisons(source, node, text, offset, declared)
        for node in conditions(root):
            yield from _truth_tests(source, node, declared)


# what may stand beside an operand GitHub tests for truth in a condition
_TRUTH_BEFORE = frozenset({"(", "&&", "||", "!"})
_TRUTH_AFTER = frozenset({")", "&&", "||", "EOF"})


def _truth_tests(
    source: SourceText, node: YNode, declared: dict[tuple[str, str], list[Declared]]
) -> Iterator[Finding]:
    """`if: ${{ github.event.inputs.run_h100 }}` for a boolean input: the text 'true' or
    'false', and any text but the empty one is true (InferenceX's sweep tests: fixed by
    comparing with 'true')."""
    value = node.value
    text, offset = value, 0
    if "${{" in value:
        pieces = list(embedded(value))
        whole = value.strip()
        if len(pieces) != 1 or not pieces[0].closed or not whole.startswith("${{"):
            return  # (text around an expression: BL209's)
        if not whole.endswith("}}"):
            return
        text, offset = pieces[0].text, pieces[0].start
    try:
        tokens = lex(text)
    except ExpressionError:
        return  # (BL208's)
    for k, token in enumerate(tokens):
        if token.kind != "IDENTIFIER" or token.text.lower() != "github":
            continue
        if k > 0 and tokens[k - 1].kind == ".":
            continue
        last = k + 6
        path = tokens[k : last + 1]
        if len(path) == 7 and [t.kind for t in path[5:]] == ["[", "STRING"]:
            if last + 1 >= len(tokens) or tokens[last + 1].kind != "]":
                continue  # (`github.event.inputs['run-x']`: the input of that name)
            name = path[6].text[1:-1]
            path = [*path[:5], Token(".", ".", path[5].start), Token("IDENTIFIER", name, 0)]
            last += 1
        if len(path) < 7 or any(t.kind != "." for t in path[1::2]):
            continue
        found = _input(path, declared)
        if found is None or {d.kind for d in found[2]} != {"boolean"}:
            continue
        before = tokens[k - 1].kind if k > 0 else "("
        if before not in _TRUTH_BEFORE or tokens[last + 1].kind not in _TRUTH_AFTER:
            continue
        if before == "(" and k > 1 and tokens[k - 2].kind == "IDENTIFIER":
            continue  # (a function's argument: `fromJSON(github.event.inputs.x)`)
        negated = before == "!"
        start = tokens[k - 1].start if negated else token.start
        end = tokens[last].start + len(tokens[last].text)
        written = text[start:end]
        triggers = " and ".join(f"on.{d.trigger}" for d in found[2])
        span = value_span(source, node, offset + start)
        yield Finding(
            "BL207",
            f"`{clip(written, 60)}` is always {'false' if negated else 'true'} when the workflow "
            f"is dispatched: {'it' if not negated else f'`github.event.inputs.{found[1]}`'} "
            "is the text 'true' or 'false' "
            f"(the boolean input of {triggers}), and a condition takes any text but the empty "
            "one as true",
            Location(source.path, span),
            subject=f"event.{found[1]}@{written}",
            help=f"test the boolean itself (`inputs.{found[1]}`), or compare with the text "
            f"(`github.event.inputs.{found[1]} == 'true'`)",
        )


def _declared(root: YNode) -> dict[tuple[str, str], list[Declared]]:
    """(context, input name) -> its declarations: context "inputs" for each trigger's
    `inputs`, "event" for `github.event.inputs` of `workflow_dispatch` (strings)."""
    on = root.get("on")
    found: dict[tuple[str, str], list[Declared]] = {}
    for trigger in ("workflow_dispatch", "workflow_call"):
        spec = on.get(trigger) if on is not None and on.is_map else None
        inputs = spec.get("inputs") if spec is not None and spec.is_map else None
        for key, value in inputs.pairs if inputs is not None and inputs.is_map else ():
            if not key.is_scalar or not value.is_map:
                continue
            kind_node = value.get("type")
            kind = kind_node.value if kind_node is not None and kind_node.is_scalar else None
            if kind is None:
                if trigger != "workflow_dispatch":
                    continue
                kind = "string"
            options_node = value.get("options")
            options = tuple(
                o.value
                for o in (options_node.items if options_node is not None else ())
                if o.is_scalar
            )
            name = key.value.lower()
            found.setdefault(("inputs", name), []).append(Declared(kind, options, trigger))
            if trigger == "workflow_dispatch":
                found.setdefault(("event", name), []).append(Declared(kind, options, trigger))
    return found


def _operand(tokens: list[Token], start: int, step: int) -> tuple[int, int] | None:
    """The tokens [first, last] of the operand next to an operator, reading from `start`
    in direction `step` (-1: leftwards): a literal or a property path (`inputs.x`,
    `github.event.inputs.x`), and only when what stands beyond it binds more loosely."""
    i = start
    if not 0 <= i < len(tokens):
        return None
    if tokens[i].kind in _LITERALS:
        first = last = i
    elif tokens[i].kind == "IDENTIFIER":
        j = i
        while 0 <= j + 2 * step < len(tokens) and tokens[j + step].kind == ".":
            if tokens[j + 2 * step].kind != "IDENTIFIER":
                return None
            j += 2 * step
        first, last = min(i, j), max(i, j)
    else:
        return None
    beyond = first - 1 if step < 0 else last + 1
    if 0 <= beyond < len(tokens) and tokens[beyond].kind not in _LOOSE:
        return None
    return first, last


def _comparisons(
    source: SourceText,
    node: YNode,
    text: str,
    offset: int,
    declared: dict[tuple[str, str], list[Declared]],
) -> Iterator[Finding]:
    try:
        tokens = lex(text)
    except ExpressionError:
        return  # (BL208's)
    for k, token in enumerate(tokens):
        if token.kind not in ("==", "!="):
            continue
        left, right = _operand(tokens, k - 1, -1), _operand(tokens, k + 1, 1)
        if left is None or right is None:
            continue
        sides = [tokens[left[0] : left[1] + 1], tokens[right[0] : right[1] + 1]]
        for path, literal in (sides, sides[::-1]):
            found = _input(path, declared)
            value = _literal(literal)
            if found is None or value is None:
                continue
            context, name, declarations = found
            result = _constant(context, declarations, value[0])
            if result is None:
                continue
            if token.kind == "!=":
                result = not result
            start = tokens[left[0]].start
            last = tokens[right[1]]
            written = text[start : last.start + len(last.text)]
            span = value_span(source, node, offset + start)
            yield _finding(source, span, written, context, name, declarations, result)
            break


def _literal(tokens: list[Token]) -> tuple[Value] | None:
    """The value of a literal operand (in a tuple: `null` is None); None for anything else."""
    if len(tokens) != 1:
        return None
    token = tokens[0]
    if token.kind == "STRING":
        return (token.text[1:-1].replace("''", "'"),)
    if token.kind == "NUMBER":
        try:
            return (float(token.text),)
        except ValueError:
            return None  # (hex: not modelled)
    if token.kind in _KEYWORDS:
        return (_KEYWORDS[token.kind],)
    return None


def _input(
    tokens: list[Token], declared: dict[tuple[str, str], list[Declared]]
) -> tuple[str, str, list[Declared]] | None:
    names = [t.text.lower() for t in tokens if t.kind == "IDENTIFIER"]
    if len(names) == 2 and names[0] == "inputs":
        context = "inputs"
    elif len(names) == 4 and names[:3] == ["github", "event", "inputs"]:
        context = "event"
    else:
        return None
    declarations = declared.get((context, names[-1]))
    return (context, tokens[-1].text, declarations) if declarations else None


def _values(context: str, declaration: Declared) -> list[Value] | None:
    """Every value the input can take in that context; None when they cannot be listed (a
    string, or a number: handled apart)."""
    kind = declaration.kind
    if kind == "boolean":
        return ["true", "false"] if context == "event" else [True, False]
    if kind == "choice" and declaration.options:
        return list(declaration.options)
    return None


def _constant(context: str, declarations: list[Declared], literal: Value) -> bool | None:
    """The result of `input == literal`, when it is the same for every value the input can
    take under each declaration; None otherwise."""
    if len({d.kind for d in declarations}) != 1:
        return None  # two triggers declare it differently
    results: set[bool] = set()
    for declaration in declarations:
        if declaration.kind == "number" and context == "inputs":
            converted = number(literal) if isinstance(literal, str) else None
            if converted is None or not math.isnan(converted):
                return None
            results.add(False)  # text no number reads as: NaN, equal to no number
            continue
        values = _values(context, declaration)
        if values is None:
            return None
        if all(isinstance(v, str) for v in [*values, literal]):
            return None  # text compared with text: the comparison means something
        for value in values:
            result = equal(value, literal)
            if result is None:
                return None
            results.add(result)
    return results.pop() if len(results) == 1 else None


def _finding(
    source: SourceText,
    span: Span,
    written: str,
    context: str,
    name: str,
    declarations: list[Declared],
    result: bool,
) -> Finding:
    declaration = declarations[0]
    triggers = " and ".join(f"on.{d.trigger}" for d in declarations)
    kind = declaration.kind
    if context == "event":
        what = f"`github.event.inputs.{name}` is always a string (the {kind} input of {triggers})"
    else:
        what = f"`{name}` is a {kind} input ({triggers})"
    help_ = _help(context, kind, name)
    return Finding(
        "BL207",
        f"`{clip(written, 60)}` is always {'true' if result else 'false'}: {what}, and "
        "GitHub compares values of two kinds as numbers (true is 1, text that is no number "
        "is NaN, equal to nothing)",
        Location(source.path, span),
        subject=f"{context}.{name}@{written}",
        help=help_,
    )


def _help(context: str, kind: str, name: str) -> str:
    if kind == "boolean" and context == "inputs":
        return f"compare with `true` or `false` (`inputs.{name} == true`), or test it alone"
    if kind == "boolean":
        return f"compare with the text (`github.event.inputs.{name} == 'true'`)"
    return "compare with a value of the input's kind"
