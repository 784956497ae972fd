"""A launcher rewrite that defeats a value the recipe sets on purpose.

## What it does
Simulates, for every search-space element routed to a launcher, the launcher's rewrites of the
element's recipe (`sed -i` substitutions and range deletes, also run by `find DIR -name
'*.yaml' -exec sed -i ... {} +` on the recipes it finds, `printf`/`echo`/`cat <<EOF >>`
appends, `yq -i`), under the conditions that hold for that entry, and reports each value the
recipe sets explicitly that comes out lower (numbers), different (anything else) or removed;
the recipe EVAL_CONFIG_FILE names too, where the launcher switches to it
(`CONFIG_FILE="$EVAL_CONFIG_FILE"`), with the rewrites after the switch.
For `health_check` the window `max_attempts × interval_seconds` is compared, so a rewrite that
trades attempts for a longer interval is not reported; one that leaves a value benchlint cannot
read as a number (`max_attempts: ${HEALTH_CHECK_ATTEMPTS}`) is, saying so. Located at the
recipe's key; the launcher lines and the master-config entry are related locations.

## Why is this bad?
A recipe that asks for a 4-hour load window (`max_attempts: 1440` at 10 s) because its model
takes that long to load gets 2 hours from a launcher's generic clamp, and the job dies at
startup, every time, for a reason nobody sees in the recipe.

## Example
```yaml path=benchmarks/multi_node/srt-slurm-recipes/vllm/big.yaml
name: big
health_check:
  max_attempts: 1440
  interval_seconds: 10
```
```bash path=runners/launch_b200-dgxc.sh
sed -i 's/^  max_attempts: [0-9]*/  max_attempts: 720/' "$CONFIG_FILE"
```
```yaml path=configs/runners.yaml
labels:
  b200: [b200-dgxc_0]
```
```yaml path=configs/nvidia-master.yaml
big-b200:
  runner: b200
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - prefill:
          additional-settings:
          - CONFIG_FILE=benchmarks/multi_node/srt-slurm-recipes/vllm/big.yaml
```

## Use instead
Give a window only to recipes that set none (a launcher may also raise a value: a floor is fine):
```bash path=runners/launch_b200-dgxc.sh
if ! grep -q '^health_check:' "$CONFIG_FILE"; then
    printf 'health_check:\n  max_attempts: 720\n  interval_seconds: 10\n' >> "$CONFIG_FILE"
fi
```
```yaml path=benchmarks/multi_node/srt-slurm-recipes/vllm/big.yaml
name: big
health_check:
  max_attempts: 1440
  interval_seconds: 10
```
```yaml path=configs/runners.yaml
labels:
  b200: [b200-dgxc_0]
```
```yaml path=configs/nvidia-master.yaml
big-b200:
  runner: b200
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - prefill:
          additional-settings:
          - CONFIG_FILE=benchmarks/multi_node/srt-slurm-recipes/vllm/big.yaml
```

## Exceptions
The job name (top-level `name:`, or `base.name` and an override block's in an override-style recipe)
is the launcher's to set, and a value named like a variable the benchmark workflow sets and reads
back (`RESULT_FILENAME`, by which it collects the results) the workflow's. Keys a rewrite adds that
the recipe does not set are not reported. Nor is a value rewritten only for runs that measure no
throughput (`if [[ "${EVAL_ONLY:-false}" == "true" ]]`: the workflow's eval-only runs, where
launchers adapt recipes for the accuracy evaluation on purpose); a health-check window cut for them
is, as it ends those runs too. A condition benchlint cannot decide statically is taken as true, and
the finding says so. A rewrite it cannot simulate (a construct outside the supported `sed` subset,
an expression that takes too long) is skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity
from benchlint.launcher import Rewrite
from benchlint.profile import BENCHMARK_MODE, WORKFLOW_OWNED
from benchlint.recipe import HealthWindow, health_window, number
from benchlint.registry import rule
from benchlint.shell.model import Command
from benchlint.wiring import Change, Effective, RecipeRef, Route
from benchlint.yamlmodel import YNode


def _job_name(path: tuple[str, ...]) -> bool:
    """The recipe's job name: `name`, or `base.name` and an override block's in an
    override-style recipe."""
    if path == ("name",):
        return True
    return len(path) == 2 and path[1] == "name" and path[0].startswith(("base", "override", "zip_"))


@dataclass
class _Report:
    recipe: str
    key: YNode
    what: str
    rewrites: list[Rewrite]
    routes: list[Route] = field(default_factory=list)
    assumed: list[Command] = field(default_factory=list)


def _value(node: YNode | None) -> str:
    if node is None:
        return "(removed)"
    return node.value if node.is_scalar else "a block"


_WINDOW_KEYS = frozenset({"max_attempts", "interval_seconds"})


def _is_health(path: tuple[str, ...]) -> bool:
    return len(path) >= 2 and path[-2] == "health_check"


def _judge(change: Change, effective: Effective) -> str | None:
    """What is wrong with this change, or None when it is a floor, an addition or metadata."""
    path = change.path
    if change.old is None or change.key is None or _job_name(path):
        return None
    if path[-1] in WORKFLOW_OWNED:  # `RESULT_FILENAME`: the workflow collects results by it
        return None
    dotted = ".".join(path)
    if _is_health(path) and path[-1] in ("max_attempts", "interval_seconds"):
        return None  # judged as a window below
    if change.new is None:
        return f"{dotted}: {_value(change.old)} is removed"
    old, new = number(change.old), number(change.new)
    if old is not None and new is not None:
        if new >= old:
            return None
        return f"{dotted}: {change.old.value} is lowered to {change.new.value}"
    return f"{dotted}: {change.old.value} is rewritten to {change.new.value}"


def _eval_only(route: Route, recipe: RecipeRef, change: Change) -> bool:
    """Whether the change is made only in runs that measure no throughput (`EVAL_ONLY=true`:
    the profile's benchmark mode is false for them): the recipe is applied only in those, or
    every rewrite behind the change is."""
    commands = [recipe.switch] if recipe.switch is not None else []
    if any(route.holds_when(c, BENCHMARK_MODE) is False for c in commands):
        return True
    return bool(change.rewrites) and all(
        route.holds_when(r.command, BENCHMARK_MODE) is False for r in change.rewrites
    )


def _window_problem(effective: Effective) -> tuple[YNode, str] | None:
    if effective.document is None:  # the rewrites leave no YAML PyYAML reads: nothing to judge
        return None
    before = health_window(effective.original.root)
    after = health_window(effective.document.root)
    key = _explicit_key(before) if before is not None else None
    if before is None or key is None:
        return None
    if after is None:  # a value the rewrites leave that is no number: `${HEALTH_CHECK_ATTEMPTS}`
        changed = [
            f"{c.path[-1]}: {c.new.value}"
            for c in effective.changes
            if _is_health(c.path)
            and c.new is not None
            and c.new.is_scalar
            and number(c.new) is None
        ]
        if not changed:
            return None
        return key, (
            f"health_check {before.describe()} is rewritten to {', '.join(changed)} (not a "
            "number benchlint knows: cut unless it gives as long a window)"
        )
    if after.seconds >= before.seconds:
        return None
    return key, (
        f"health_check {before.describe()} is cut to {after.describe()}"
        if after.attempts_node is not None or after.interval_node is not None
        else f"health_check {before.describe()} is removed (srtctl's default is {after.describe()})"
    )


def _explicit_key(window: HealthWindow) -> YNode | None:
    return window.attempts_node or window.interval_node


@rule("BL201", "recipe-value-overridden", Severity.ERROR, tags=("wiring", "recipes"))
def check(ctx: Context) -> Iterator[Finding]:
    wiring = ctx.wiring
    reports: dict[tuple[str, int, int, str], _Report] = {}
    for route, recipe in ((r, a) for r in ctx.routes() for a in wiring.applied(r)):
        effective = wiring.effective(route, recipe)
        if effective is None or not effective.applied:
            continue
        found: list[tuple[YNode, str, list[Rewrite]]] = []
        for change in effective.changes:
            what = _judge(change, effective)
            if (
                what is not None
                and change.key is not None
                and not _eval_only(route, recipe, change)
            ):
                found.append((change.key, what, change.rewrites))
        window = _window_problem(effective)
        if window is not None:
            health = [c.rewrites for c in effective.changes if _is_health(c.path)]
            rewrites = [r for group in health for r in group]
            # (a health check written through an alias, `health_check: *hc`: the anchor's key
            # is the window's; one report, the window's, not a second for the key: h128 W1)
            # (or merged into it and overridden beside: the anchor's max_attempts, the block's
            # own interval_seconds: h131 W4)
            folded = {id(c.key) for c in effective.changes if c.path[-1] in _WINDOW_KEYS}
            same = [
                r
                for k, _, group in found
                if k.span == window[0].span or id(k) in folded
                for r in group
            ]
            found = [f for f in found if f[0].span != window[0].span and id(f[0]) not in folded]
            found.append((window[0], window[1], list(dict.fromkeys([*rewrites, *same]))))
        for key, what, rewrites in found:
            # the key node belongs to the original recipe; locate by its key text
            index = (recipe.path or "", key.span.line, key.span.column, what)
            report = reports.setdefault(index, _Report(recipe.path or "", key, what, rewrites))
            report.routes.append(route)
            report.assumed.extend(
                c
                for c in effective.assumed
                if c is recipe.switch or any(r.command is c for r in rewrites)
            )
    for report in reports.values():
        yield _finding(report)


def _finding(report: _Report) -> Finding:
    launchers = sorted({r.launcher.path for r in report.routes})
    entries = list(dict.fromkeys(r.entry.name for r in report.routes))
    by = ", ".join(f"{r.command.script.path}:{r.line}" for r in report.rewrites) or ", ".join(
        launchers
    )
    shown = ", ".join(entries[:3]) + (f" and {len(entries) - 3} more" if len(entries) > 3 else "")
    condition = ""
    if report.assumed:
        lines = sorted({c.span.line for c in report.assumed})
        condition = (
            f" (if the condition on line {', '.join(map(str, lines))} holds; "
            "benchlint cannot decide it statically)"
        )
    related = [
        Location(r.command.script.path, r.command.first_line_span, "rewrite")
        for r in report.rewrites
    ]
    first = report.routes[0]
    setting = first.element.settings.get("CONFIG_FILE")
    if setting is not None:
        related.append(
            Location(setting.location.path, setting.location.span, f"entry {first.entry.name}")
        )
    return Finding(
        "BL201",
        f"{report.what} by {by} for {shown}{condition}",
        Location(report.recipe, report.key.span),
        related=tuple(related),
        subject=report.what,
    )
