"""An `if:` with no status function that tests for a job or step that failed: it never sees one.

## What it does
A job's `if:` that calls none of GitHub's status functions (`always()`, `success()`,
`failure()`, `cancelled()`) is read as `success() && (...)`, and a job's `success()` holds only
when every job before it (those it `needs`, theirs, and so on) succeeded. So, in such an `if:`:
- a test of a needed job's result other than `== 'success'` is decided: `needs.build.result ==
  'skipped'` (or `'failure'`, `'cancelled'`, `!= 'success'`, `contains(needs.*.result,
  'failure')`) never holds, `needs.build.result != 'failure'` always does;
- a test (`==`, `!=`, `startsWith`) that contradicts the `if:` of a job before it never holds: a
  job before it ran, so its own `if:` held (each `&&` operand of it, for the values every job
  reads alike: `inputs`, `vars`, `github.event*`, `github.ref*`, and the outputs of a job both
  need): `github.ref == 'refs/heads/main'` after a job that runs only where
  `startsWith(github.ref, 'refs/heads/pull-request/')`;
- the job never runs where it waits on one that runs only when a job before it failed or was
  cancelled (`always() && needs.build.result == 'failure'`, `failure()`: `cleanup` with `needs:
  [build, notify]`);
- a warning for a job that waits on one which runs when a job before it was skipped
  (`always() && needs.gate.result == 'skipped'`, or `success() || ...`): when that job is
  skipped, this one is skipped too, though the job it needs ran (where the gate may be skipped:
  it or a job before it has an `if:`, and the job's own `if:` does not hold only where the
  gate's does).

A step's `if:` with no status function is read only while no step before it failed, so a test
of a step before it for `conclusion == 'failure'` (or a cancelled one) never holds, nor one for
`outcome == 'failure'` of a step with no `continue-on-error:`, nor `conclusion != 'success'` of
a step with no `if:` of its own (it ran: not skipped), nor `outcome != 'success'` of one with no
`if:` and no `continue-on-error:`; nor `job.status == 'failure'` (or `'cancelled'`, `!=
'success'`): the job's status is then 'success'.

## Why is this bad?
The branch meant for the skipped or failed case never runs, and nothing says so: a trusted
author's sweep that should start without approval is skipped (InferenceX's `validate` job), an
ingest job is skipped on every push because a gate before the job it needs was skipped
(InferenceX's `reuse-ingest-artifacts`), and results stop arriving.

## Example
```yaml path=.github/workflows/sweep.yml
on: [push, workflow_dispatch]
jobs:
  gate:
    if: github.event_name == 'workflow_dispatch'
    runs-on: ubuntu-latest
    steps:
      - run: ./gate.sh
  setup:
    needs: gate
    if: always() && (needs.gate.result == 'success' || needs.gate.result == 'skipped')
    runs-on: ubuntu-latest
    steps:
      - run: ./setup.sh
  publish:
    needs: setup
    if: needs.setup.result == 'success' || needs.setup.result == 'skipped'
    runs-on: ubuntu-latest
    steps:
      - run: ./publish.sh
```

## Use instead
```yaml path=.github/workflows/sweep.yml
on: [push, workflow_dispatch]
jobs:
  gate:
    if: github.event_name == 'workflow_dispatch'
    runs-on: ubuntu-latest
    steps:
      - run: ./gate.sh
  setup:
    needs: gate
    if: always() && (needs.gate.result == 'success' || needs.gate.result == 'skipped')
    runs-on: ubuntu-latest
    steps:
      - run: ./setup.sh
  publish:
    needs: setup
    if: always() && (needs.setup.result == 'success' || needs.setup.result == 'skipped')
    runs-on: ubuntu-latest
    steps:
      - run: ./publish.sh
```

## Exceptions
Not read: a step's test for a skipped step (a skipped step does not stop the steps after it),
a composite action's steps, an `if:` GitHub cannot parse (BL208) or that is not one expression
(BL209: text, blanks or a block's line end around its `${{ }}`), a needed job whose
`continue-on-error:` may hold, tests of values a job may read otherwise than the jobs before it
(`matrix`, `github.job`, `github.run_attempt`), and comparisons of values not surely strings
(an input declared a number or a boolean, most event fields: GitHub compares a number with a
string as numbers, so `8 == '8'` and `8 == '8.0'` both hold). A repository variable
(`vars.X`) is taken to be the same for every job of a run (one changed before a re-run of
failed jobs is not).
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Iterator
from dataclasses import dataclass

from benchlint.actions import Node, embedded, tree
from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity
from benchlint.registry import rule
from benchlint.source import SourceText
from benchlint.workflow import WORKFLOWS, input_types, needs_items, workflow_roots
from benchlint.yamlmodel import YNode, value_span

_STATUS = frozenset(("always", "success", "failure", "cancelled"))
# what every job of a run reads alike (`github.job`, `github.run_attempt` and the like differ)
_RUN_WIDE_GITHUB = frozenset(
    {"event_name", "event", "ref", "ref_name", "ref_type", "base_ref", "head_ref", "sha"}
    | {"repository", "repository_owner", "workflow", "workflow_ref", "event_path"}
)
_SUCCESS = "success"
_UNSUCCESSFUL = ("failure", "cancelled")  # (results a job that ran has, where it did not succeed)
_HAPPENED = {"failure": "failed", "cancelled": "was cancelled"}
_STRINGS = frozenset(("string", "choice", "environment"))
# fields of the event that are strings (a dispatch's `inputs` are too, whatever their type)
_EVENT_STRINGS = frozenset(
    {("action",), ("label", "name"), ("ref",), ("ref_type",), ("before",), ("after",)}
    | {("pull_request", "head", "ref"), ("pull_request", "base", "ref")}
)


@dataclass(frozen=True)
class _Test:
    """A test of a value a job reads against a literal: `path` lower-case; `op` "==" (`!=`
    when not `equal`), "prefix" (`startsWith(value, 'lit')`) or "contains"
    (`contains(needs.*.result, 'lit')`), `equal` False where a `!` turns it over; `literal` the
    literal's kind and value (a string lower-case, as GitHub compares strings)."""

    path: tuple[str, ...]
    equal: bool
    literal: tuple[str, str | bool | None]
    node: Node
    op: str = "=="


@dataclass(frozen=True)
class _If:
    """A job's or a step's `if:` that is one expression GitHub parses: its tree, its text,
    where that starts in the value, and the scalar."""

    tree: Node
    text: str
    offset: int
    node: YNode

    @property
    def status(self) -> bool:
        """Whether it calls a status function (else GitHub reads it as `success() && (...)`)."""
        return any(n.kind == "call" and n.name in _STATUS for n in _walk(self.tree))

    def at(self, source: SourceText, node: Node) -> Location:
        """Where a part of it is in the file."""
        return Location(source.path, value_span(source, self.node, self.offset + node.start))

    def shown(self, node: Node) -> str:
        return self.text[node.start : node.end]

    @functools.cached_property
    def tests(self) -> tuple[_Test, ...]:
        """Its comparisons with a literal (`_tests`), read once."""
        return tuple(_tests(self.tree))

    @functools.cached_property
    def facts(self) -> tuple[_Test, ...]:
        """The tests that hold wherever it does (`_facts`), read once: every job after this
        one asks."""
        return tuple(_facts(self.tree))


@dataclass
class _Job:
    name: str
    key: YNode
    node: YNode
    needs: tuple[str, ...]
    condition: _If | None  # None: no `if:`, or not one expression GitHub parses
    written: bool  # it has an `if:`
    # its `if:` is a value GitHub reads as true (`true`, BL209's string: text around a `${{ }}`)
    truthy: bool = False

    @property
    def status(self) -> bool:
        return self.condition is not None and self.condition.status

    def at(self, source: SourceText) -> Location:
        """Where a finding about the whole job goes: its `if:`, else its key."""
        if self.condition is not None:
            return self.condition.at(source, self.condition.tree)
        return Location(source.path, self.key.span)

    @property
    def implicit(self) -> bool:
        """GitHub runs it only when every job before it succeeded."""
        return not self.status and (self.condition is not None or self.truthy or not self.written)


@rule("BL212", "implicit-success", Severity.ERROR, tags=("workflow", "correctness"))
def check(ctx: Context) -> Iterator[Finding]:
    paths = ctx.in_scope(ctx.ws.glob([*ctx.ws.layout.workflows, *WORKFLOWS]))
    for source, root in workflow_roots(ctx.ws, paths, "if"):
        jobs = _jobs(root)
        strings = frozenset(n.lower() for n, t in input_types(root).items() if t in _STRINGS)
        before = {name: _ancestors(name, jobs) for name in jobs}
        for job in jobs.values():
            yield from _steps(source, job)
            if not job.implicit or not job.needs:
                continue
            found: list[Finding] = []
            if job.condition is not None:
                found += _results(source, job, job.condition, jobs)
                found += _contradicted(source, job, job.condition, jobs, before[job.name], strings)
            # (the warning only where no test of the `if:` was reported, nor that the job never
            # runs: one fix, a status function, answers them all)
            yield from (
                found
                or list(_never(source, job, jobs, before[job.name]))
                or _poisoned(source, job, jobs, before)
            )


def _results(
    source: SourceText, job: _Job, condition: _If, jobs: dict[str, _Job]
) -> Iterator[Finding]:
    """Tests of a needed job's result, which is always `success` where the `if:` is read."""
    for test in condition.tests:
        kind, value = test.literal
        if not _result(test.path) or kind != "STRING" or (test.equal and value == _SUCCESS):
            continue
        if test.path[1] == "*":  # (`contains(needs.*.result, 'failure')`)
            needed = [jobs[need] for need in job.needs]
        else:
            one = jobs.get(_named(test.path[1], job.needs) or "")
            needed = [one] if one is not None else []
        if not needed or any(_may_fail_on(n.node) for n in needed):
            continue
        holds = (value == _SUCCESS) == test.equal
        shown = condition.shown(test.node)
        named = f"`{needed[0].name}`" if len(needed) == 1 else "the jobs it needs"
        yield Finding(
            "BL212",
            f"`{shown}` {'always' if holds else 'never'} holds: job `{job.name}`'s `if:` calls "
            f"no status function, so GitHub reads it only when {named} and every job before "
            f"it succeeded (where one of them was skipped or failed, GitHub skips `{job.name}` "
            "without reading it)",
            condition.at(source, test.node),
            related=tuple(Location(source.path, n.key.span) for n in needed[:3]),
            subject=f"result:{job.name}:{shown}",
            help="begin the `if:` with `always() && ` (or `!cancelled() && `) to read it whatever "
            "the jobs before it did",
        )


def _contradicted(
    source: SourceText,
    job: _Job,
    condition: _If,
    jobs: dict[str, _Job],
    before: list[str],
    strings: frozenset[str],
) -> Iterator[Finding]:
    """Tests the `if:` of a job before this one decides false: that job ran, so its `if:` held."""
    known: list[tuple[_Test, _Job, _If]] = []
    for name in before:
        earlier = jobs[name]
        if earlier.condition is None:
            continue
        for fact in earlier.condition.facts:
            if _same_in_both(fact.path, earlier, job):
                known.append((fact, earlier, earlier.condition))
    for test in condition.tests:
        if _result(test.path):
            continue  # (a result of a job it needs: `_results`)
        for fact, earlier, said in known:
            if fact.path != test.path or not _contradicts(fact, test, _text(fact.path, strings)):
                continue
            shown = condition.shown(test.node)
            where = said.at(source, fact.node)
            yield Finding(
                "BL212",
                f"`{shown}` never holds: job `{job.name}`'s `if:` calls no status function, so "
                f"GitHub reads it only when every job before it succeeded, and `{earlier.name}` "
                f"runs only when `{said.shown(fact.node)}` (line {where.span.line})",
                condition.at(source, test.node),
                related=(where,),
                subject=f"contradicted:{job.name}:{shown}",
                help="begin the `if:` with `always() && ` and test the results of the jobs it "
                "needs, to run it when one of them was skipped",
            )
            break


def _never(
    source: SourceText, job: _Job, jobs: dict[str, _Job], before: list[str]
) -> Iterator[Finding]:
    """A job that needs (itself or through others) one that runs only when a job before it
    failed or was cancelled: GitHub runs the job only when every job before it succeeded, so
    never (h106 M3: `notify` on `always() && needs.build.result == 'failure'`, `cleanup` with
    `needs: [build, notify]`)."""
    for name in before:
        earlier = jobs[name]
        if earlier.condition is None:
            continue
        for operand in _operands(earlier.condition.tree):
            failed = _failed_before(operand, earlier, jobs)
            if failed is None:
                continue
            said = earlier.condition
            where = said.at(source, operand)
            yield Finding(
                "BL212",
                f"job `{job.name}` never runs: without a status function in its `if:`, GitHub "
                f"runs it only when every job before it succeeded, and `{earlier.name}`, which "
                f"it waits on, runs only when {failed} (its `if:` tests "
                f"`{said.shown(operand)}`, line {where.span.line})",
                job.at(source),
                related=(where, Location(source.path, earlier.key.span)),
                subject=f"never:{job.name}:{earlier.name}",
                help=f"begin `{job.name}`'s `if:` with `always() && ` and test the results it "
                f"needs, or take `{earlier.name}` out of its `needs`",
            )
            return


def _failed_before(operand: Node, earlier: _Job, jobs: dict[str, _Job]) -> str | None:
    """What an `&&` operand of a job's `if:` needs that fails the jobs after it: a job before it
    that did not succeed (`needs.build.result == 'failure'`, `!= 'success'`, `contains(
    needs.*.result, 'cancelled')`, `failure()`, `!success()`), or a cancelled run
    (`cancelled()`), in words; None if it needs none, or a job whose `continue-on-error:` may
    hold is read (its failure is not one)."""
    node = _ungrouped(operand)
    negated = node.kind == "!" and _ungrouped(node.parts[0]).kind == "call"
    call = _ungrouped(node.parts[0]) if negated else node
    said = {"failure": "a job before it failed", "cancelled": "the run was cancelled"}
    if call.kind == "call" and not call.parts and (call.name in said) != negated:
        if negated and call.name != "success":
            return None
        ancestors = _ancestors(earlier.name, jobs)
        if not ancestors or any(_may_fail_on(jobs[name].node) for name in ancestors):
            return None
        return "a job before it did not succeed" if negated else said[call.name]
    test = _test(node)
    if test is None or not _result(test.path) or test.literal[0] != "STRING":
        return None
    if test.op == "contains":
        if not test.equal or test.literal[1] not in _UNSUCCESSFUL:
            return None
        needed = [jobs[name] for name in earlier.needs]
        named = "one of the jobs it needs"
    elif test.op == "==" and not _holds_for(test, _SUCCESS):
        # (a result it may have: one `skipped` alone may never hold, the warning's case)
        if not any(_holds_for(test, result) for result in _UNSUCCESSFUL):
            return None
        one = _named(test.path[1], earlier.needs)
        needed = [jobs[one]] if one is not None else []
        named = f"`{one}`"
    else:
        return None
    if not needed or any(_may_fail_on(n.node) for n in needed):
        return None
    happened = _HAPPENED.get(str(test.literal[1])) if test.equal else None
    return f"{named} {happened or 'did not succeed'}"


def _poisoned(
    source: SourceText, job: _Job, jobs: dict[str, _Job], before: dict[str, list[str]]
) -> Iterator[Finding]:
    """A job that needs one written to run when a job before it was skipped (`always() &&
    needs.gate.result == 'skipped'`): skipped then too, though the job it needs ran."""
    for need in job.needs:
        runs = jobs[need].condition
        if runs is None or not _runs_on_skip(runs.tree):
            continue
        skips: dict[str, _Test] = {}  # each job before it whose skip it expects: its test
        for test in _tests(runs.tree, positive=True):
            skipped = _named(test.path[1], jobs[need].needs) if _result(test.path) else None
            if skipped is None or skipped in skips or not _holds_for(test, "skipped"):
                continue
            if _only_through(job, skipped, jobs, before) and _may_skip(
                jobs[skipped], job, jobs, before
            ):
                skips[skipped] = test
        if not skips:
            continue
        first = next(iter(skips.values()))
        yield Finding(
            "BL212",
            f"job `{job.name}` is skipped whenever {_either(list(skips))} is, though `{need}`, "
            f"which it needs, runs then (its `if:` tests `{runs.shown(first.node)}`, line "
            f"{runs.at(source, first.node).span.line}): without a status function in its "
            "`if:`, GitHub runs a job only when every job before it succeeded",
            job.at(source),
            related=(
                *(runs.at(source, test.node) for test in skips.values()),
                *(Location(source.path, jobs[name].key.span) for name in skips),
            ),
            subject=f"skipped:{job.name}:{','.join(skips)}",
            severity=Severity.WARNING,
            help=f"begin `{job.name}`'s `if:` with `always() && needs.{need}.result == 'success'`",
        )
        return


# a step's result that a step after it with no status function never sees: (what it reads,
# the result) -> whether a `continue-on-error:` on the step lets it be seen
_UNSEEN_STEP_RESULTS = {
    ("conclusion", "failure"): False,
    ("conclusion", "cancelled"): False,
    ("outcome", "cancelled"): False,
    ("outcome", "failure"): True,
}


def _steps(source: SourceText, job: _Job) -> Iterator[Finding]:
    """Tests, in a step's `if:` with no status function, of a failed or cancelled step before
    it: GitHub runs such a step only while no step before it failed (a step whose
    `continue-on-error:` holds fails with `outcome` 'failure', `conclusion` 'success')."""
    steps = job.node.get("steps")
    earlier: dict[str, YNode] = {}  # each step before it with an id: the step
    for step in steps.items if steps is not None and steps.is_seq else ():
        if not step.is_map:
            continue
        condition = _condition(step.get("if"))
        if condition is not None and not condition.status:
            for test in condition.tests:
                kind, value = test.literal
                if test.op != "==" or kind != "STRING":
                    continue
                if test.path == ("job", "status") and _not_success(test):
                    yield _unseen_status(source, condition, test)
                    continue
                if len(test.path) != 3 or test.path[0] != "steps":
                    continue
                before = earlier.get(test.path[1])
                if before is None:
                    continue
                if value == "success" and not test.equal:  # (`!= 'success'`: h135 M6)
                    # (it ran, no `if:` of its own skipping it, and succeeded: its outcome
                    # 'failure' only where its `continue-on-error:` may hold)
                    if before.get("if") is None and not (
                        test.path[2] == "outcome" and _may_fail_on(before)
                    ):
                        yield _unseen_step(source, condition, test, before, None)
                    continue
                tolerated = _UNSEEN_STEP_RESULTS.get((test.path[2], str(value)))
                if not test.equal or tolerated is None:
                    continue
                if tolerated and _may_fail_on(before):
                    continue
                yield _unseen_step(source, condition, test, before, tolerated)
        named = step.get("id")
        if named is not None and named.is_scalar and isinstance(named.value, str):
            earlier[named.value.lower()] = step


def _not_success(test: _Test) -> bool:
    """`job.status == 'failure'` (or 'cancelled'), `job.status != 'success'`: a status the job
    does not have while every step before it succeeded."""
    value = test.literal[1]
    return value != "success" if test.equal else value == "success"


def _unseen_status(source: SourceText, condition: _If, test: _Test) -> Finding:
    shown = condition.shown(test.node)
    return Finding(
        "BL212",
        f"`{shown}` never holds: this step's `if:` calls no status function, so GitHub runs it "
        "only while every step before it succeeded, and the job's status is then 'success'",
        condition.at(source, test.node),
        subject=f"step:{shown}",
        help="begin the `if:` with `failure() && ` (or `always() && `) to run the step after a "
        "failure",
    )


def _unseen_step(
    source: SourceText, condition: _If, test: _Test, step: YNode, tolerated: bool | None
) -> Finding:
    shown = condition.shown(test.node)
    named = step.get("id")
    assert named is not None
    if tolerated is None and test.path[2] == "conclusion" and _may_fail_on(step):
        why = (
            f"and `{named.value}`, which has no `if:` of its own, ran: its conclusion is "
            "'success' even where it failed, as its `continue-on-error:` holds"
        )
    elif tolerated is None:  # (`!= 'success'` of a step that surely ran)
        why = (
            f"and `{named.value}`, which has no `if:` of its own"
            + (" nor `continue-on-error:`" if test.path[2] == "outcome" else "")
            + ", ran and succeeded"
        )
    elif tolerated:
        why = f"and `{named.value}` has no `continue-on-error:`, so its failure fails the job"
    elif test.literal[1] == "failure":
        why = "and a step whose conclusion is 'failure' has failed the job"
    else:
        why = "and a step that was cancelled has cancelled the job"
    return Finding(
        "BL212",
        f"`{shown}` never holds: this step's `if:` calls no status function, so GitHub runs it "
        f"only while every step before it succeeded, {why}",
        condition.at(source, test.node),
        related=(Location(source.path, named.span),),
        subject=f"step:{shown}",
        help="begin the `if:` with `failure() && ` (or `always() && `) to run the step after a "
        "failure",
    )


def _may_fail_on(node: YNode) -> bool:
    """Whether a job's or a step's `continue-on-error:` may hold (its failure then does not
    stop the jobs or steps after it): not `false`, nor empty (h106 M5)."""
    value = node.get("continue-on-error")
    return value is not None and not (
        value.is_scalar and value.value.strip().lower() in ("false", "", "~", "null")
    )


def _may_skip(gate: _Job, job: _Job, jobs: dict[str, _Job], before: dict[str, list[str]]) -> bool:
    """Whether the gate may be skipped where the job's own `if:` holds: it or a job before it has
    an `if:`, and the job's `if:` does not hold only where the gate's does (each `&&` operand of
    the gate's, of values every job reads alike, one of the job's)."""
    if not any(_skips(jobs[name]) for name in (gate.name, *before[gate.name])):
        return False
    if gate.condition is None or job.condition is None:
        return True
    operands = _operands(gate.condition.tree)
    facts = [test for test in map(_test, operands) if test is not None]
    if len(facts) < len(operands) or not all(_run_wide(fact.path) for fact in facts):
        return True  # (an operand that is not a test of a value every job reads alike)
    own = {(f.path, f.equal, f.literal, f.op) for f in job.condition.facts}
    return not all((f.path, f.equal, f.literal, f.op) in own for f in facts)


def _skips(job: _Job) -> bool:
    """Whether the job's `if:` may skip it: it has one, and not one that always holds
    (`always()`, `true`, `success()` with no job before it, an `||` with such an operand:
    h106 F2, h108 F2)."""
    if not job.written or job.truthy:
        return False
    return job.condition is None or not _holds(job.condition.tree, bool(job.needs))


def _holds(node: Node, needs: bool) -> bool:
    """Whether an `if:` always holds where GitHub reads it."""
    node = _ungrouped(node)
    if node.kind == "call":
        return node.name == "always" or (node.name == "success" and not needs)
    if node.kind == "||":
        return any(_holds(part, needs) for part in node.parts)
    if node.kind == "&&":
        return all(_holds(part, needs) for part in node.parts)
    return node.kind == "literal" and node.value is True


def _either(names: list[str]) -> str:
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _only_through(
    job: _Job, skipped: str, jobs: dict[str, _Job], before: dict[str, list[str]]
) -> bool:
    """Whether the job reaches `skipped` only through jobs that run when it is skipped: it does
    not need it itself, and each job it needs either is not after it or calls a status
    function."""
    for need in job.needs:
        if need == skipped:
            return False
        if skipped in before[need] and not jobs[need].status:
            return False
    return True


def _runs_on_skip(condition: Node) -> bool:
    """Whether an `if:` lets its job run when a job before it was skipped: it calls `always()`
    or `cancelled()` (as `!cancelled()`), or it calls `success()` or `failure()` `||` an
    operand with no status function (`success() || needs.gate.result == 'skipped'`: h106 M4)."""
    called = {n.name for n in _walk(condition) if n.kind == "call"}
    if called & {"always", "cancelled"}:
        return True
    node = _ungrouped(condition)
    return (
        bool(called & _STATUS)
        and node.kind == "||"
        and any(
            not any(n.kind == "call" and n.name in _STATUS for n in _walk(part))
            for part in node.parts
        )
    )


def _result(path: tuple[str, ...]) -> bool:
    return len(path) == 3 and path[0] == "needs" and path[2] == "result"


def _holds_for(test: _Test, value: str) -> bool:
    kind, literal = test.literal
    return kind == "STRING" and (literal == value) == test.equal


def _contradicts(fact: _Test, test: _Test, text: bool) -> bool:
    """Whether `test` is false wherever `fact` holds (`==`, `!=` and `startsWith`, which
    GitHub reads without regard to case), for a value that is surely a string (`text`: `8 ==
    '8'` and `8 == '8.0'` both hold for a number, h106 F1)."""
    if not text or fact.literal[0] != test.literal[0] or "contains" in (fact.op, test.op):
        return False
    if fact.op == test.op == "==":
        same = fact.literal == test.literal
        if fact.equal and test.equal:
            return not same
        return same and fact.equal != test.equal
    held, tested = fact.literal[1], test.literal[1]
    if not isinstance(held, str) or not isinstance(tested, str):
        return False
    if fact.op == "==" and fact.equal:  # (the value is `held`)
        return (
            tested.startswith(held) != test.equal
            if test.op == "=="
            else (held.startswith(tested) != test.equal)
        )
    if fact.op == "prefix" and fact.equal:  # (it starts with `held`)
        if test.op == "==":
            return test.equal and not tested.startswith(held)
        if test.equal:
            return not held.startswith(tested) and not tested.startswith(held)
        return held.startswith(tested)
    if fact.op == "prefix" and test.equal:  # (it does not start with `held`)
        return tested.startswith(held)
    return False


def _same_in_both(path: tuple[str, ...], earlier: _Job, job: _Job) -> bool:
    """Whether the value is the same in both jobs' `if:`."""
    if path[0] == "needs" and len(path) > 2:
        return _named(path[1], earlier.needs) is not None and _named(path[1], job.needs) is not None
    return _run_wide(path)


def _text(path: tuple[str, ...], strings: frozenset[str]) -> bool:
    """Whether the value is surely a string: a job's result or output, a repository variable,
    one of the run's names and refs, an input declared a string."""
    if path[0] == "needs" or path[0] == "vars":
        return True
    if path[0] == "inputs":
        return len(path) == 2 and path[1] in strings
    if path[0] == "github" and len(path) > 1:
        return path[1] != "event" or path[2:] in _EVENT_STRINGS or path[2:3] == ("inputs",)
    return False


def _run_wide(path: tuple[str, ...]) -> bool:
    """Whether every job of a run reads the value alike."""
    if path[0] in ("inputs", "vars"):
        return len(path) > 1
    return path[0] == "github" and len(path) > 1 and path[1] in _RUN_WIDE_GITHUB


def _named(name: str, needs: tuple[str, ...]) -> str | None:
    """The job of `needs` the (lower-case) name reads, if any."""
    return next((need for need in needs if need.lower() == name), None)


def _facts(condition: Node) -> Iterator[_Test]:
    """The tests that hold wherever the `if:` does: its `&&` operands'."""
    for operand in _operands(condition):
        test = _test(operand)
        if test is not None:
            yield test


def _operands(condition: Node) -> list[Node]:
    """The `&&` operands of an `if:` (those of a group among them too); itself if it has none."""
    node = _ungrouped(condition)
    if node.kind != "&&":
        return [node]
    return [operand for part in node.parts for operand in _operands(part)]


def _tests(condition: Node, positive: bool = False) -> Iterator[_Test]:
    """Every comparison of the `if:` with a literal (`positive`: those not under a `!`)."""
    stack = [condition]
    while stack:
        node = stack.pop()
        if positive and node.kind == "!":
            continue
        test = _test(node)
        if test is not None:
            yield test
        else:
            stack.extend(reversed(node.parts))


def _test(node: Node) -> _Test | None:
    shown = node = _ungrouped(node)  # (`!(a == 'x')` shown whole)
    flip = False
    if node.kind == "!" and _ungrouped(node.parts[0]).kind in ("==", "!=", "call"):
        flip, node = True, _ungrouped(node.parts[0])
    if node.kind == "call":
        return _called(node, flip, shown)
    if node.kind not in ("==", "!="):
        return None
    left, right = (_ungrouped(part) for part in node.parts)
    if left.kind == "literal":
        left, right = right, left
    if left.kind != "ref" or right.kind != "literal" or left.path is None or "*" in left.path:
        return None
    if right.name == "NUMBER":
        return None  # (numbers compare as numbers: `1.0 == 1`)
    literal = right.value.lower() if isinstance(right.value, str) else right.value
    path = tuple(part.lower() for part in left.path)
    return _Test(path, (node.kind == "==") != flip, (right.name, literal), shown)


def _called(node: Node, flip: bool, shown: Node) -> _Test | None:
    """`startsWith(value, 'lit')`, `contains(needs.*.result, 'lit')` as a test."""
    if node.name not in ("startswith", "contains") or len(node.parts) != 2:
        return None
    value, literal = (_ungrouped(part) for part in node.parts)
    if value.kind != "ref" or value.path is None or literal.name != "STRING":
        return None
    path = tuple(part.lower() for part in value.path)
    if node.name == "contains" and path != ("needs", "*", "result"):
        return None
    if node.name == "startswith" and "*" in path:
        return None
    text = literal.value.lower() if isinstance(literal.value, str) else ""
    op = "prefix" if node.name == "startswith" else "contains"
    return _Test(path, not flip, ("STRING", text), shown, op)


def _ungrouped(node: Node) -> Node:
    while node.kind == "group" and len(node.parts) == 1:
        node = node.parts[0]
    return node


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        found = stack.pop()
        yield found
        stack.extend(found.parts)


def _jobs(root: YNode) -> dict[str, _Job]:
    found: dict[str, _Job] = {}
    jobs = root.get("jobs")
    for key, node in jobs.pairs if jobs is not None and jobs.is_map else ():
        if not key.is_scalar or not isinstance(key.value, str) or not node.is_map:
            continue
        names = tuple(i.value for i in needs_items(node) if isinstance(i.value, str))
        written = node.get("if")
        found[key.value] = _Job(
            key.value, key, node, names, _condition(written), written is not None, _truthy(written)
        )
    for job in found.values():  # (a need of no job is BL208's)
        job.needs = tuple(need for need in job.needs if need in found and need != job.name)
    return found


def _condition(written: YNode | None) -> _If | None:
    """An `if:` as one expression; None where it is not a string, not one expression (text
    around a `${{ }}`: BL209's) or not one GitHub parses (BL208's)."""
    if written is None or not written.is_scalar or not isinstance(written.value, str):
        return None
    value = written.value
    text, offset = value, 0
    if "${{" in value:
        pieces = list(embedded(value))
        if len(pieces) != 1 or not pieces[0].closed:
            return None
        piece = pieces[0]
        if value[: piece.start - 3] or value[piece.start + len(piece.text) + 2 :]:
            return None  # (a line end or blanks around it too: a string, h106 F3)
        text, offset = piece.text, piece.start
    parsed = tree(text)
    return _If(parsed, text, offset, written) if parsed is not None else None


def _truthy(written: YNode | None) -> bool:
    """Whether an `if:` is a value GitHub reads as true whatever the run: `true`, or a string
    with text around its `${{ }}` or more than one (BL209's)."""
    if written is None or not written.is_scalar:
        return False
    value = written.value
    if not isinstance(value, str):
        return value is True
    pieces = list(embedded(value))
    if not pieces or not all(piece.closed for piece in pieces):
        return False
    return len(pieces) > 1 or (_condition(written) is None and tree(pieces[0].text) is not None)


def _ancestors(name: str, jobs: dict[str, _Job]) -> list[str]:
    """The jobs before this one (those it needs, theirs, ...), nearest first."""
    seen: dict[str, None] = {}
    queue = collections.deque(jobs[name].needs)
    while queue:
        need = queue.popleft()
        if need in seen or need == name:
            continue
        seen[need] = None
        queue.extend(jobs[need].needs)
    return list(seen)
