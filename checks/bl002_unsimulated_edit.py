"""A launcher edit of a routed recipe that benchlint could not simulate.

## What it does
Reports, once per command, a launcher's `sed -i`, append or `yq -i` edit of the recipe it runs that
falls outside the simulated subset (a `sed` command other than `s`, `d`, `a`, `i`, `c`, an
expression that depends on a shell variable or runs too long, a `yq` expression other than a plain
assignment of a literal or `del()` of a path (keys written `.a`, `."a-b"` or `["a-b"]`), a
`find ... -exec sed -i` whose folder is not known or with a test other than `-name`, `-type f` and
the depth options), a script an interpreter runs with the recipe's path
(`python3 runners/inject.py "$CONFIG_PATH"`: what it does to the recipe is not known), and a call
of a function of the launcher or of a library it sources, given the recipe's path, whose body
makes such an edit of the file a parameter names (`inject "$CONFIG_PATH"` where `inject` runs
`python3 runners/inject.py "$1"`), on a route where it applies. The note names the command, why
it was not simulated, and how many routes go through it.

## Why is this bad?
The rules that compare a recipe with what the launcher leaves of it (BL201 recipe-value-overridden,
BL204 time-budget, BL206 ineffective-rewrite) check the routes through such an edit as if it
left the recipe unchanged: a value it sets, a key it removes or adds is not seen. Without this
note a clean run would look like a checked one.

## Example
```yaml path=benchmarks/multi_node/srt-slurm-recipes/vllm/big.yaml
name: big
health_check:
  max_attempts: 1440
  interval_seconds: 10
```
```bash path=runners/launch_b200-dgxc.sh
yq -i '.health_check.max_attempts /= 2' "$CONFIG_FILE"
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
An edit in the simulated subset (or none), so that the routes through it are checked:
```bash path=runners/launch_b200-dgxc.sh
yq -i '.health_check.max_attempts = 1440' "$CONFIG_FILE"
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
Only edits on a route to a recipe of this repository are noted: an upstream recipe is not
checked at all, simulated or not. Select or ignore the rule like any other (`--ignore BL002`).
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.context import Context
from benchlint.finding import Finding, Severity, clip
from benchlint.launcher import Rewrite
from benchlint.registry import rule
from benchlint.shell.model import first_line


@rule("BL002", "unsimulated-edit", Severity.NOTE, tags=("wiring", "coverage"), precision="medium")
def check(ctx: Context) -> Iterator[Finding]:
    wiring = ctx.wiring
    reasons: dict[int, tuple[Rewrite, str]] = {}
    routes: dict[int, dict[int, str]] = {}  # rewrite -> route -> the recipe it leads to
    for route, recipe in ((r, a) for r in ctx.routes() for a in wiring.applied(r)):
        effective = wiring.effective(route, recipe)
        if effective is None:
            continue
        for rewrite, why in effective.errors:
            reasons.setdefault(id(rewrite), (rewrite, why))
            routes.setdefault(id(rewrite), {})[id(route)] = recipe.path or ""
    for key, (rewrite, why) in reasons.items():
        reached = routes[key]
        recipes = set(reached.values())
        text = clip(first_line(rewrite.command.script.text_of(rewrite.command.node)), 60)
        yield Finding(
            "BL002",
            f"`{text}` is not simulated ({why.rstrip('.')}): BL201 and BL204 checked "
            f"{_count(len(recipes), 'recipe')} on {_count(len(reached), 'route')} through it "
            "as if it left them unchanged",
            rewrite.location,
            subject=text,
            involves=tuple(sorted(recipes)),
        )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
