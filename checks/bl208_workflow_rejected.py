"""A workflow GitHub refuses to run: an expression it cannot parse, a `needs` of no job.

## What it does
Reads every workflow under `.github/workflows/` and reports what makes GitHub reject the file
("Invalid workflow file") before any job starts:
- an expression (`${{ ... }}`, or an `if:` written without them) that GitHub's parser rejects:
  an empty one (`${{ }}`), an unbalanced parenthesis (`${{ inputs.run && always()) }}`), an
  unterminated string, a
  context name that does not exist (`runer.labels`), a function that does not exist or is given
  too few or too many arguments;
- an expression that names a context or a function where GitHub does not offer it: `env` in a
  job's `name:`, `runs-on:` or `if:`, `matrix` in a job's `if:`, `secrets` in a step's `if:`,
  `hashFiles()` in a job's `if:`, `failure(needs.a)` in a step's `if:` ("Unrecognized
  named-value: 'env'"), as GitHub's workflow schema gives each key its contexts (read from
  `@actions/workflow-parser` 0.3.61, `data/workflow_schema.json`);
- a value with text around its expressions (a `run:` script, an action's `prompt:`), which GitHub
  compiles into one expression (`format('...{0}...', github.sha)`: the text with `'`, `{`, `}`
  doubled), over GitHub's cap of 21,000 characters (UTF-16 units, as its parsers count); under
  it in characters but over it both in UTF-8 bytes and with the block's indentation counted, a
  warning (GitHub rejected such a value, and does not publish which count it applies);
- a job's `needs:` that names no job of the workflow, or a job that needs it in turn, directly
  or through others (a cycle: "depends on job 'b' which creates a cycle");
- an input of `workflow_dispatch` or `workflow_call` whose `default:` is a list or a mapping
  where its `type:` is `string`, `number` or `boolean`;
- a YAML merge key (`<<: *defaults`), which GitHub's parser reads as a key named `<<`;
- a job that calls a reusable workflow (`uses:`) with a key such a job cannot have (`runs-on`,
  `steps`, `env`: it may have only `name`, `uses`, `with`, `secrets`, `needs`, `if`,
  `permissions`, `strategy` and `concurrency`), a job with a key no job has (`timeout_minutes`)
  or one only such a job has while it calls none (`with:`, `secrets:` on a job of steps), and a
  step with a key no step has (`secrets`), as GitHub's schema gives each its keys (a step's
  include `background:` and the `wait:`, `wait-all:`, `cancel:` and `parallel:` steps, generally
  available since June 2026).
Expressions are parsed as GitHub's own parser (`@actions/expressions`) parses them.

## Why is this bad?
GitHub runs none of the workflow: every push, schedule or dispatch that should start it fails
at once with a file error, and a reusable workflow with the error fails every caller. A typo in
a condition of one step (`runer` for `runner`) stops the whole sweep, often noticed only when
results stop arriving.

## Example
```yaml path=.github/workflows/sweep.yml
on: workflow_dispatch
jobs:
  benchmark:
    runs-on: ubuntu-latest
    steps:
      - run: ./run.sh
        if: ${{ contains(runer.labels, 'b200') }}
  report:
    needs: [benchmak]
    runs-on: ubuntu-latest
    steps:
      - run: ./report.sh
```

## Use instead
```yaml path=.github/workflows/sweep.yml
on: workflow_dispatch
jobs:
  benchmark:
    runs-on: ubuntu-latest
    steps:
      - run: ./run.sh
        if: ${{ contains(runner.labels, 'b200') }}
  report:
    needs: [benchmark]
    runs-on: ubuntu-latest
    steps:
      - run: ./report.sh
```

## Exceptions
Not checked: the values under `on:`, a value under an expression key (`${{ matrix.k }}: v`) or a
key the schema does not know, an expression where the schema offers no context at all (GitHub
then rejects any expression there), a `${{` with no `}}` after it, and workflows that are not
YAML (BL001). Of an expression GitHub rejects for more than one reason, the first is reported,
as GitHub reports it.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterator

from benchlint.actions import MAX_LENGTH, ExpressionError, embedded, parse, parse_error
from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity, clip
from benchlint.registry import rule
from benchlint.source import SourceText
from benchlint.workflow import (
    WORKFLOWS,
    expressions,
    expressions_at,
    job_steps,
    needs_items,
    workflow_roots,
)
from benchlint.workflow_schema import Allowed, allowed_values, properties
from benchlint.yamlmodel import YNode, value_span

_TYPED = frozenset({"string", "number", "boolean"})


@rule("BL208", "workflow-rejected", Severity.ERROR, tags=("workflow", "correctness"))
def check(ctx: Context) -> Iterator[Finding]:
    paths = ctx.in_scope(ctx.ws.glob([*ctx.ws.layout.workflows, *WORKFLOWS]))
    for source, root in workflow_roots(ctx.ws, paths):
        yield from _expressions(source, root)
        yield from _templates(source, root)
        yield from _needs(source, root)
        yield from _cycles(source, root)
        yield from _defaults(source, root)
        yield from _keys(source, root)
        yield from _merge_keys(source, root)


def _expressions(source: SourceText, root: YNode) -> Iterator[Finding]:
    allowed: dict[str, Allowed] | None = None
    for node, text, start, where in expressions_at(root, frozenset({"on"})):
        if not text.strip() and start >= 3:  # (`${{ }}`, not a bare `if:`'s whole value)
            yield _rejected(source, node, start - 3, "${{" + text + "}}", _EMPTY)
            continue
        error = parse_error(text)
        if error is not None:
            yield _rejected(source, node, start, text, error)
            continue
        if allowed is None:  # (read against the schema once, where an expression is)
            allowed = allowed_values(root)
        here = allowed.get(where)
        if here is None:
            continue
        error = _misplaced(text, here.contexts, tuple(sorted(here.functions.items())))
        if error is not None:
            yield _rejected(source, node, start, text, error, here)


# GitHub's parser on `${{ }}` (@actions/workflow-parser 0.3.61, anywhere it reads one)
_EMPTY = ExpressionError("An expression was expected", 0)


@functools.lru_cache(maxsize=4096)
def _misplaced(
    text: str, contexts: frozenset[str], functions: tuple[tuple[str, tuple[int, int]], ...]
) -> ExpressionError | None:
    """Why GitHub's parser rejects the expression where it stands: a context or a function
    the value does not offer (`env` in a job's `name:`), or a function's count of arguments
    there (`failure(needs.a)` in a step's `if:`)."""
    try:
        parse(text, contexts, dict(functions))
    except ExpressionError as error:
        return error
    return None


def _rejected(
    source: SourceText,
    node: YNode,
    start: int,
    text: str,
    error: ExpressionError,
    here: Allowed | None = None,
) -> Finding:
    span = value_span(source, node, start + error.position)
    shown = clip(" ".join(text.split()), 70)
    where = ""
    if here is not None:
        counted = re.search(r"parameters supplied: '(\w+)'", error.message)
        bounds = here.functions.get(counted[1].lower()) if counted is not None else None
        if counted is not None and bounds is not None:  # (`failure(needs.a)` in a step's `if:`)
            most = "any number of" if bounds[1] >= 1 << 53 else str(bounds[1])
            takes = f"{bounds[0]}" if bounds[0] == bounds[1] else f"{bounds[0]} to {most}"
            where = f" at `{clip(here.where, 50)}`, where it takes {takes} arguments"
        else:
            function = "function" in error.message
            offered = here.shown(function) or "none"
            if function:
                offered += " (and its built-in functions)"
            where = f" at `{clip(here.where, 50)}`, where GitHub offers {offered}"
    return Finding(
        "BL208",
        f"GitHub cannot parse the expression `{shown}`: {error.message}{where}; it rejects the "
        "whole workflow file and runs none of its jobs",
        Location(source.path, span),
        subject=f"expression:{shown}",
        help=_digit_key(text, error),
    )


def _digit_key(text: str, error: ExpressionError) -> str:
    """Advice for a key after `.` that starts with a digit (`inputs.70b_image`), which GitHub's
    lexer reads as a number (h104 W1)."""
    at = error.position
    key = re.match(r"[0-9][A-Za-z0-9_-]*", text[at:])
    if at == 0 or text[at - 1] != "." or key is None:
        return ""
    return (
        f"a key after `.` cannot start with a digit: write `['{key[0]}']` for `.{key[0]}`, "
        "or rename it"
    )


def _templates(source: SourceText, root: YNode) -> Iterator[Finding]:
    """A value with text around its expressions, which GitHub compiles into one expression
    (`format('REPO: {0}...', github.repository, ...)`: the text with `'`, `{` and `}` doubled,
    each expression trimmed; as `@actions/workflow-parser` builds it) over its cap of
    MAX_LENGTH characters. Over the cap in characters: an error. Under it in characters but
    over it both in UTF-8 bytes and with the block's indentation counted: a warning (t76b,
    InferenceX a2b54b814: GitHub rejected a `prompt: |` of 20,988 characters so compiled,
    21,150 bytes; which count it applies is not published)."""
    seen: set[int] = set()
    for node, _, _ in expressions(root, frozenset({"on"})):
        if id(node) in seen:
            continue
        seen.add(id(node))
        compiled = _compiled(node.value)
        if compiled is None or len(compiled) <= MAX_LENGTH // 2:
            continue
        characters, size = _units(compiled), len(compiled.encode("utf-8", "surrogateescape"))
        span = node.span
        first = span.line + 1 if node.style in ("|", ">") else span.line
        last = span.end_line - 1 if span.end_column == 1 else span.end_line  # (block's end)
        lines = range(first, min(last, source.line_count) + 1)
        written = _compiled("\n".join(source.line_text(line) for line in lines))
        if characters <= MAX_LENGTH and (
            size <= MAX_LENGTH or written is None or _units(written) <= MAX_LENGTH
        ):
            continue
        over = characters > MAX_LENGTH
        measure = (
            f"{characters:,} characters (UTF-16 units)"
            if over
            else f"{characters:,} characters, {size:,} bytes in UTF-8, {_units(written or ''):,} "
            "with its lines' indentation"
        )
        yield Finding(
            "BL208",
            f"GitHub compiles this value and its {_expressions_in(node.value)} into one "
            f"expression of {measure}"
            + (
                f": over its cap of {MAX_LENGTH:,}, it rejects the whole workflow file"
                if over
                else f"; GitHub caps an expression at {MAX_LENGTH:,} and has rejected a "
                "workflow file for a value so measured (which count it applies is not "
                "published)"
            ),
            Location(source.path, span.start),
            help="move the text to a file the step reads, or pass the expressions through "
            "`env:` and read them as variables",
            subject="template-length",
            severity=Severity.ERROR if over else Severity.WARNING,
        )


def _units(text: str) -> int:
    """The text's length as GitHub's parsers count it: UTF-16 code units (a character beyond
    the Basic Multilingual Plane, an emoji, is two)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _expressions_in(value: str) -> str:
    count = sum(1 for piece in embedded(value) if piece.closed)
    return "expression" if count == 1 else f"{count} expressions"


def _compiled(value: str) -> str | None:
    """The expression GitHub makes of a value with text around its expressions; None for a
    value that is one expression alone, or has one not closed."""
    pieces = list(embedded(value))
    if not pieces or any(not p.closed for p in pieces):
        return None
    text, arguments, at = [], [], 0
    for index, piece in enumerate(pieces):
        text.append(_escaped(value[at : piece.start - 3]))
        text.append(f"{{{index}}}")
        arguments.append(", " + piece.text.strip())
        at = piece.start + len(piece.text) + 2
    text.append(_escaped(value[at:]))
    if len(pieces) == 1 and not "".join(text).replace("{0}", ""):
        return None
    return f"format('{''.join(text)}'{''.join(arguments)})"


def _escaped(text: str) -> str:
    return text.replace("'", "''").replace("{", "{{").replace("}", "}}")


def _needs(source: SourceText, root: YNode) -> Iterator[Finding]:
    jobs = root.get("jobs")
    if jobs is None or not jobs.is_map:
        return
    names = {k.value for k, _ in jobs.pairs if k.is_scalar}
    for key, job in jobs.pairs:
        if not key.is_scalar or not job.is_map:
            continue
        for item in needs_items(job):
            name = item.value
            if not isinstance(name, str) or "${{" in name or name in names:
                continue
            yield Finding(
                "BL208",
                f"job `{key.value}` needs `{name}`, which is no job of this workflow: {_REJECTS}",
                Location(source.path, item.span),
                subject=f"needs:{key.value}->{name}",
                help=_closest(name, names),
            )


def _cycles(source: SourceText, root: YNode) -> Iterator[Finding]:
    """A job's `needs` of a job that needs it back, directly or through others: GitHub's parser
    rejects the file ("Job 'a' depends on job 'b' which creates a cycle in the dependency
    graph": actions/languageservices, `validateNeeds`; names compared with their case, as it
    does; h135 M2). Reported at each need on the cycle."""
    jobs = root.get("jobs")
    if jobs is None or not jobs.is_map:
        return
    edges: dict[str, list[YNode]] = {}
    for key, job in jobs.pairs:
        if key.is_scalar and isinstance(key.value, str) and job.is_map:
            items = needs_items(job)
            edges[key.value] = [i for i in items if isinstance(i.value, str)]
    for name, items in edges.items():
        for item in items:
            path = _path(item.value, name, edges)
            if path is None:
                continue
            loop = " -> ".join(f"`{n}`" for n in (name, *path))
            yield Finding(
                "BL208",
                f"job `{name}` needs `{item.value}`, which needs it in turn ({loop}): in a "
                f"cycle of needs no job can start, and {_REJECTS}",
                Location(source.path, item.span),
                subject=f"needs-cycle:{name}->{item.value}",
                help="drop one of the needs on the cycle",
            )


def _path(start: str, goal: str, edges: dict[str, list[YNode]]) -> list[str] | None:
    """The jobs from `start` to `goal` along needs (`start` first, `goal` last), if any."""
    before: dict[str, str | None] = {start: None}
    queue = [start]
    while queue:
        current = queue.pop(0)
        if current == goal:
            path = [current]
            while (previous := before[path[-1]]) is not None:
                path.append(previous)
            return path[::-1]
        for item in edges.get(current, ()):
            if item.value not in before:
                before[item.value] = current
                queue.append(item.value)
    return None


def _closest(name: str, names: set[str]) -> str:
    close = difflib.get_close_matches(name, sorted(names), n=1, cutoff=0.7)
    return f"did you mean `{close[0]}`?" if close else ""


def _defaults(source: SourceText, root: YNode) -> Iterator[Finding]:
    on = root.get("on")
    if on is None or not on.is_map:
        return
    for trigger in ("workflow_dispatch", "workflow_call"):
        spec = on.get(trigger)
        inputs = spec.get("inputs") if spec is not None and spec.is_map else None
        for key, value in inputs.pairs if inputs is not None and inputs.is_map else ():
            if not key.is_scalar or not value.is_map:
                continue
            kind = value.get("type")
            default = value.get("default")
            if kind is None or not kind.is_scalar or kind.value not in _TYPED or default is None:
                continue
            if default.is_scalar:
                continue
            shape = "a list" if default.is_seq else "a mapping"
            yield Finding(
                "BL208",
                f"input `{key.value}` of {trigger} is of type {kind.value} but its default is "
                f"{shape}: {_REJECTS}",
                Location(source.path, default.span),
                subject=f"default:{trigger}.{key.value}",
                help="write the default as one value (a list as text: `'[1, 2]'`)",
            )


_REJECTS = "GitHub rejects the whole workflow file and runs none of its jobs"

# the keys GitHub's schema gives a job that calls a reusable workflow (`workflow-job`: `name`,
# `uses`, `with`, `secrets`, `needs`, `if`, `permissions`, `strategy`, `concurrency`), a job of
# steps (`job-factory`) and a step (`steps-item`: a run or action step, with `background:`, and
# the `wait:`, `wait-all:`, `cancel:` and `parallel:` steps; h135 F1)
_CALL_KEYS, _JOB_KEYS, _STEP_KEYS = "workflow-job", "job-factory", "steps-item"


def _merge_keys(source: SourceText, root: YNode) -> Iterator[Finding]:
    """A YAML merge key (`<<: *defaults`): GitHub's parser merges nothing; it reads a key
    named `<<`, which no mapping of a workflow may have (`Unexpected value '<<'`), or whose
    value may not be a mapping (`env:`, `with:`: "A mapping was not expected")."""
    for node in _outside_matrices(root):
        for key, value in node.pairs:
            if key.is_scalar and key.value == "<<" and not value.is_scalar:
                yield Finding(
                    "BL208",
                    "`<<:` is a YAML merge key, which GitHub's workflow parser does not merge: "
                    f"it reads a key named `<<`, which it refuses here; {_REJECTS}",
                    Location(source.path, key.span),
                    subject="merge-key",
                    help="write the keys out (an alias of a whole mapping, `env: *defaults`, "
                    "is read)",
                )


def _outside_matrices(root: YNode) -> Iterator[YNode]:
    """The workflow's mappings, each once, but those in the values of a job's `strategy.matrix`,
    which may be anything (GitHub's parser accepts a key named `<<` there, and merges nothing:
    t84c); the matrix's own keys are checked."""
    seen: set[int] = set()
    stack: list[tuple[YNode, bool]] = [(root, False)]  # (a node, whether it is a `strategy:`)
    while stack:
        node, strategy = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.is_map:
            yield node
            for k, v in node.pairs:
                if strategy and k.is_scalar and k.value == "matrix" and v.is_map:
                    yield v  # (its own keys are checked: `<<` there is refused)
                    seen.add(id(v))
                else:  # (not a job whose id is `matrix`: t84d)
                    stack.append((v, k.is_scalar and k.value == "strategy"))
        elif node.is_seq:
            stack.extend((item, False) for item in node.items)


def _unknown_keys(source: SourceText, key: YNode, job: YNode) -> Iterator[Finding]:
    """A key no job has (`timeout_minutes:`, `run-on:`): GitHub's parser reads the job against
    both kinds of job, and a key neither has is `Unexpected value` (h135 M1); a key only a job
    that calls a reusable workflow has, on one that does not (`with:`, `secrets:`: h140 M3)."""
    steps = properties(_JOB_KEYS)
    for name, _ in job.pairs:
        if not name.is_scalar or name.value in steps or name.value == "<<":
            continue
        if "${{" in name.value:
            continue
        if name.value in properties(_CALL_KEYS):  # (`with:`, `secrets:` with no `uses:`)
            message = (
                f"job `{key.value}` has `{name.value}:`, which only a job that calls a reusable "
                f"workflow (`uses:`) has, and it calls none: {_REJECTS}"
            )
            help_ = "a step's `with:` goes under the step that `uses:` the action"
        else:
            message = f"job `{key.value}` has `{name.value}:`, which no job has: {_REJECTS}"
            help_ = _closest(str(name.value), set(steps))
        yield Finding(
            "BL208",
            message,
            Location(source.path, name.span),
            subject=f"job-key:{key.value}.{name.value}",
            help=help_,
        )


def _keys(source: SourceText, root: YNode) -> Iterator[Finding]:
    """A job that calls a reusable workflow with a key only a job of steps has (`runs-on`,
    `steps`, `env`...), and a step with a key no step has (`secrets`, `needs`): GitHub's schema
    rejects the file."""
    for key, job, steps in job_steps(root):
        if not key.is_scalar:
            continue
        if job.get("uses") is not None:
            for name, _ in job.pairs:
                if (
                    name.is_scalar
                    and name.value not in properties(_CALL_KEYS)
                    and name.value != "<<"
                ):
                    yield Finding(
                        "BL208",
                        f"job `{key.value}` calls a reusable workflow (`uses:`) and has "
                        f"`{name.value}:`, which such a job cannot have: {_REJECTS}",
                        Location(source.path, name.span),
                        subject=f"call-key:{key.value}.{name.value}",
                        help="a called workflow's jobs choose their runners and steps; pass what "
                        "they need with `with:` or `secrets:`",
                    )
        else:
            yield from _unknown_keys(source, key, job)
        step_keys = properties(_STEP_KEYS)
        for step in steps:
            for name, _ in step.pairs:
                if name.is_scalar and name.value not in step_keys and name.value != "<<":
                    yield Finding(
                        "BL208",
                        f"a step of job `{key.value}` has `{name.value}:`, which no step has: "
                        + _REJECTS,
                        Location(source.path, name.span),
                        subject=f"step-key:{key.value}.{name.value}",
                        help=_closest(str(name.value), set(step_keys)),
                    )
