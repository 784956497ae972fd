"""An `if:` that is text, not one expression: GitHub reads it as a string, always true.

## What it does
Reports a job's or a step's `if:` (in a workflow, or a composite action's `runs.steps`) whose
value holds `${{ ... }}` with other text around it or beside another one (`if: ${{
inputs.run_70b }} && ${{ inputs.run_1k1k }}`, `if: ${{ a }} == 'true'`): GitHub substitutes
each expression into the text and evaluates the result as a string, which is not empty, so the
condition holds on every run.

A block scalar that keeps its last line end (`if: |` or `if: >`, then `${{ ... }}` on the next
line) is such a value too, as is a quoted one with blanks around its expression
(`if: " ${{ a }}"`): GitHub's parser keeps any text outside `${{ }}`, a line end too, as text of
the string (`@actions/workflow-parser`; GitHub's own validation reports the block scalar:
"Block scalar adds trailing newline which breaks boolean evaluation").

## Why is this bad?
The job or step runs whatever the inputs say: a sweep's selection of models or sequence
lengths is ignored and every job of the schedule starts, or a step meant for dry runs pushes
every time. Nothing fails, so the mistake shows only in the bill or the results. InferenceX
fixed a scheduler whose six jobs were all written this way.

## Example
```yaml path=.github/workflows/scheduler.yml
on:
  workflow_dispatch:
    inputs:
      run_70b: {type: boolean}
      run_1k1k: {type: boolean}
jobs:
  sweep-70b-1k1k:
    if: ${{ inputs.run_70b }} && ${{ inputs.run_1k1k }}
    runs-on: ubuntu-latest
    steps:
      - run: ./sweep.sh
```

## Use instead
```yaml path=.github/workflows/scheduler.yml
on:
  workflow_dispatch:
    inputs:
      run_70b: {type: boolean}
      run_1k1k: {type: boolean}
jobs:
  sweep-70b-1k1k:
    if: ${{ inputs.run_70b && inputs.run_1k1k }}
    runs-on: ubuntu-latest
    steps:
      - run: ./sweep.sh
```

## Exceptions
Not reported: an `if:` that is one `${{ ... }}` alone (a plain scalar's blanks around it are
not part of its value, nor is the line end of a `|-` or `>-` block), and one without `${{`
(GitHub reads all of it as one expression).
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.actions import Embedded, embedded
from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity, clip
from benchlint.registry import rule
from benchlint.workflow import ACTIONS, WORKFLOWS, conditions, workflow_roots
from benchlint.yamlmodel import value_span


@rule("BL209", "condition-always-true", Severity.ERROR, tags=("workflow", "correctness"))
def check(ctx: Context) -> Iterator[Finding]:
    paths = ctx.in_scope(ctx.ws.glob([*ctx.ws.layout.workflows, *WORKFLOWS, *ACTIONS]))
    for source, root in workflow_roots(ctx.ws, paths, "${{"):
        for node in conditions(root):
            value = node.value
            pieces = list(embedded(value))
            if not pieces or not all(p.closed for p in pieces):
                continue
            around = _outside(value, pieces)
            if not around and len(pieces) == 1:
                continue
            outside = " ".join(around.split())
            help = "write the whole condition inside one `${{ }}`"
            if outside:
                why = f"the text `{outside}` outside its"
            elif len(pieces) > 1:
                why = "two"
            else:  # (blanks or line ends alone: h106 M6, h108 W1, W2)
                why, help = _blank(value, pieces[0], node.style)
            shown = clip(" ".join(value.split()), 70)
            yield Finding(
                "BL209",
                f"`if: {shown}` is always true: with {why} `${{{{ }}}}`, GitHub evaluates "
                "the condition as a string, which is not empty",
                Location(source.path, value_span(source, node, 0)),
                subject=f"if:{shown}",
                help=help,
            )


def _blank(value: str, piece: Embedded, style: str | None) -> tuple[str, str]:
    """What a message says of the blanks or line ends around one `${{ }}`, and its help."""
    before, after = value[: piece.start - 3], value[piece.start + len(piece.text) + 2 :]
    where = "around" if before and after else "before" if before else "after"
    kind = "line end" if "\n" in before + after else "blanks"
    why = f"the {kind} {where} its"
    if style in ("|", ">") and not before and not after.strip(" \n"):
        return why, "end the block's indicator with `-` (`|-`, `>-`) to drop the line end"
    return why, "write the `${{ }}` with nothing around it"


def _outside(value: str, pieces: list[Embedded]) -> str:
    """The value's text outside its `${{ ... }}`."""
    text, at = [], 0
    for piece in pieces:
        text.append(value[at : piece.start - 3])
        at = piece.start + len(piece.text) + 2
    text.append(value[at:])
    return "".join(text)
