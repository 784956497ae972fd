"""A launcher rewrite that changes a key in some routed recipes and misses it in others.

## What it does
For each launcher rewrite (`sed -i`, `yq -i`, an append), collects the keys it changes in the
recipes routed to that launcher. Where the same rewrite applies to another routed recipe (its
condition holds on that route) but changes nothing, while that recipe has the same setting somewhere
else (`name` under `base:` or an `override_*` block of an override-style recipe; not `model.name`,
another setting of the same key), it reports the recipe's key, with the launcher line and the entry
as related locations.

## Why is this bad?
The rewrite was meant to apply: it changes that key in the launcher's other recipes. In a recipe
that keeps the key under `base:` the anchored `sed` matches nothing and the recipe keeps its own
value, silently. How much that matters depends on the key: a job `name` the workflow's
name-scoped `scancel` relies on is saved only if the launcher also hands srtctl `RUNNER_NAME`
(which srtctl prefers to the recipe's `name`); a setting the launcher must impose is simply not
imposed. Hence a note: the rewrite does not do what it reads as doing.

## Example
```yaml path=benchmarks/multi_node/srt-slurm-recipes/vllm/flat.yaml
name: flat
health_check: {max_attempts: 360, interval_seconds: 10}
```
```yaml path=benchmarks/multi_node/srt-slurm-recipes/vllm/override.yaml
base:
  name: override
  health_check: {max_attempts: 360, interval_seconds: 10}
override_fast:
  backend: {type: vllm}
```
```bash path=runners/launch_b200-dgxc.sh
sed -i "s/^name:.*/name: \\"$RUNNER_NAME\\"/" "$CONFIG_FILE"
```
```yaml path=configs/runners.yaml
labels:
  b200: [b200-dgxc_0]
```
```yaml path=configs/nvidia-master.yaml
e-b200:
  runner: b200
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - prefill:
          additional-settings:
          - CONFIG_FILE=benchmarks/multi_node/srt-slurm-recipes/vllm/flat.yaml
      - prefill:
          additional-settings:
          - CONFIG_FILE=benchmarks/multi_node/srt-slurm-recipes/vllm/override.yaml
```

## Use instead
Rewrite the key wherever the recipe keeps it:
```bash path=runners/launch_b200-dgxc.sh
sed -i -E "s/^(  )?name:.*/\\1name: \\"$RUNNER_NAME\\"/" "$CONFIG_FILE"
```
```yaml path=benchmarks/multi_node/srt-slurm-recipes/vllm/flat.yaml
name: flat
health_check: {max_attempts: 360, interval_seconds: 10}
```
```yaml path=benchmarks/multi_node/srt-slurm-recipes/vllm/override.yaml
base:
  name: override
  health_check: {max_attempts: 360, interval_seconds: 10}
override_fast:
  backend: {type: vllm}
```
```yaml path=configs/runners.yaml
labels:
  b200: [b200-dgxc_0]
```
```yaml path=configs/nvidia-master.yaml
e-b200:
  runner: b200
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - prefill:
          additional-settings:
          - CONFIG_FILE=benchmarks/multi_node/srt-slurm-recipes/vllm/flat.yaml
      - prefill:
          additional-settings:
          - CONFIG_FILE=benchmarks/multi_node/srt-slurm-recipes/vllm/override.yaml
```

## Exceptions
A rewrite that changes nothing in any routed recipe (a key no recipe has) is not reported, nor
a recipe that does not have the key at all, nor a numeric clamp or floor
(`max_attempts: 720`): a recipe that keeps its own number elsewhere is BL201's matter, not a
rewrite gone astray. Only local recipes
on routes benchlint can simulate are compared.
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity
from benchlint.launcher import Rewrite
from benchlint.registry import rule
from benchlint.wiring import Route
from benchlint.yamlmodel import YamlDocument, YNode


def _keys_named(document: YamlDocument, name: str) -> list[tuple[YNode, tuple[str, ...]]]:
    """Every key `name` in the document, with the path of the mapping that holds it."""
    found: list[tuple[YNode, tuple[str, ...]]] = []
    stack: list[tuple[YNode, tuple[str, ...]]] = [(d, ()) for d in document.documents]
    seen: set[int] = set()
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for key, value in node.pairs:
            if not key.is_scalar:
                continue
            if key.value == name:
                found.append((key, path))
            if value.is_map:
                stack.append((value, (*path, key.value)))
    return sorted(found, key=lambda f: (f[0].span.line, f[0].span.column))


@rule("BL206", "ineffective-rewrite", Severity.NOTE, tags=("wiring", "recipes"), precision="medium")
def check(ctx: Context) -> Iterator[Finding]:
    wiring = ctx.wiring
    # per rewrite: the key paths it changed somewhere, and where it applied but changed nothing
    changed: dict[int, set[tuple[str, ...]]] = {}
    missed: dict[int, list[tuple[Rewrite, Route, YamlDocument, set[tuple[str, ...]]]]] = {}
    # every route of each launcher in scope: what a rewrite changes elsewhere decides a miss
    launchers = dict.fromkeys(route.launcher.path for route in ctx.routes())
    routes = [r for path in launchers for r in wiring.routes_for_launcher(path)]
    for route, recipe in ((r, a) for r in routes for a in wiring.applied(r)):
        effective = wiring.effective(route, recipe)
        if effective is None:
            continue
        failed = {id(r) for r, _ in effective.errors}
        touched = {id(r) for change in effective.changes for r in change.rewrites}
        for change in effective.changes:
            if change.new is None or _number(change.new.scalar):
                continue  # a number: a clamp the recipe may set apart on purpose (BL201's)
            for rewrite in change.rewrites:
                changed.setdefault(id(rewrite), set()).add(change.path)
        for rewrite in wiring.rewrites_for(route, recipe):
            if id(rewrite) in failed or id(rewrite) in touched or rewrite.kind == "append":
                continue
            if route.holds(rewrite.command) is not True or (
                recipe.switch is not None and route.holds(recipe.switch) is not True
            ):
                continue  # not known to run on this route: a miss would be a guess
            done = {change.path for change in effective.changes}  # (by the route's other rewrites)
            missed.setdefault(id(rewrite), []).append((rewrite, route, effective.original, done))
    reported: set[tuple[str, int]] = set()  # one finding per recipe and rewrite
    for key, misses in missed.items():
        paths = changed.get(key)
        if not paths:
            continue  # never meant to change anything here: a floor, an absent key
        for rewrite, route, document, done in misses:
            if (document.path, key) in reported or not ctx.route_in_scope(
                document.path, rewrite.location.path, route.entry.location.path
            ):
                continue
            for path in sorted(paths):
                elsewhere = [
                    (node, holder)
                    for node, holder in _keys_named(document, path[-1])
                    # (the same setting: `model.name` is not the job's `name`, h128 F3)
                    if _setting(holder) == _setting(path[:-1])
                    and (*holder, path[-1]) != path  # the same place: the value did not match
                    and (*holder, path[-1]) not in done  # another rewrite changes it there
                ]
                if not elsewhere:
                    continue
                reported.add((document.path, key))
                node, holder = elsewhere[0]
                where = ".".join(path)
                inside = ".".join(holder) if holder else "the top level"
                extra = len(elsewhere) - 1
                more = f" (and {extra} more place{'s' if extra > 1 else ''})" if extra else ""
                yield Finding(
                    "BL206",
                    f"the launcher rewrites `{where}` in other routed recipes, but this recipe "
                    f"keeps `{path[-1]}` under {inside}{more}: the rewrite at "
                    f"{rewrite.location.path}:{rewrite.line} changes nothing here",
                    Location(document.path, node.span),
                    related=(
                        Location(rewrite.location.path, rewrite.location.span, "rewrite"),
                        Location(
                            route.entry.location.path,
                            route.entry.location.span,
                            f"entry {route.entry.name}",
                        ),
                    ),
                    subject=f"{where}:{inside}",
                )
                break


def _setting(parents: tuple[str, ...]) -> tuple[str, ...]:
    """The key's parents as srtctl reads the setting: a recipe's `base:`, `override_*:` and
    `zip_override_*:` blocks hold what a flat recipe holds at its top level."""
    if parents and (parents[0] == "base" or parents[0].startswith(("override_", "zip_override_"))):
        return parents[1:]
    return parents


def _number(value: object) -> bool:
    """An int or a float, not a boolean (`false` is a bool, which Python counts as an int)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)
