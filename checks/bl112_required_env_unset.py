"""A variable a script requires that no way into it sets, where a way in sets a close name.

## What it does
Reports a name a script requires before it sets it (`check_env_vars EP`, `: "${EP:?}"`, at
its top level, under no condition) when every way the repository starts the script is known
(the master-config entries through their launchers, or the scripts that run or source it, with
nothing unresolved on the way), none of them sets the name, and one of them sets a name the
required one is a slip for: the same with a word after it (`EP` for `EP_SIZE`), in another case
(`port` for `PORT`), one or two characters short (`MODE` for `MODEL`), one character off, or
with two neighbours swapped.

## Why is this bad?
The check fails on every job that runs the script: `check_env_vars` prints the name and exits,
and the sweep's jobs for those entries all end there, after the image was pulled and the node
allocated. InferenceX shipped such a script (`check_env_vars ... EP ... EP_SIZE` while the
workflow sets only `EP_SIZE`) and fixed it the day after.

## Example
```yaml path=.github/configs/nvidia-master.yaml
qwen-fp8-h200-sglang:
  image: lmsysorg/sglang:v0.5.9
  model: Qwen/Qwen3.5
  runner: h200
  scenarios:
    fixed-seq-len:
    - search-space:
      - {tp: 8, ep: 8}
```

```yaml path=.github/configs/runners.yaml
labels:
  h200: [h200-cw_0]
```

```bash path=runners/launch_h200-cw.sh
export EP_SIZE=8
bash benchmarks/single_node/qwen_fp8_h200.sh
```

```bash path=benchmarks/single_node/qwen_fp8_h200.sh
: "${MODEL:?}" "${EP:?}"
python3 -m sglang.launch_server --model-path "$MODEL" --expert-parallel-size "$EP"
```

## Use instead
```bash path=benchmarks/single_node/qwen_fp8_h200.sh
: "${MODEL:?}" "${EP_SIZE:?}"
python3 -m sglang.launch_server --model-path "$MODEL" --expert-parallel-size "$EP_SIZE"
```

## Exceptions
Not reported: a name no way in sets a close name of (it may come from the runner's
environment or the image: `HF_TOKEN`), a script some way into which is not known (a caller's
`eval`, a file sourced by a path that cannot be resolved) or that nothing in the repository
starts, a requirement under a condition or in a function, names the system, Slurm or GitHub
set and those in `known-env`. A name a container command does not pass is BL109's.
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.context import Context
from benchlint.environment import VALIDATORS, StartPath, first_uses, is_builtin, is_slip
from benchlint.finding import Finding, Location, Severity, Span
from benchlint.registry import rule
from benchlint.shell.model import Script


@rule("BL112", "required-env-unset", Severity.ERROR, tags=("wiring", "environment"))
def check(ctx: Context) -> Iterator[Finding]:
    environment = ctx.environment
    for path in ctx.in_scope(ctx.ws.shell_paths):
        source = ctx.ws.source(path)
        if source is None or ctx.wiring.is_launcher(path):
            continue
        script = ctx.ws.shell(path)
        if script is None:
            continue
        required = _required_names(script)
        if not required:
            continue
        routes = environment.routes(path)
        if not routes or not all(route.complete for route in routes):
            continue
        known = ctx.config.known_env
        names = {n for n in required if not is_builtin(n, known)}
        uses = first_uses(environment, script, names)
        for name, use in sorted(uses.items(), key=lambda item: item[1].offset):
            if use.how != "required":
                continue
            finding = _finding(path, name, use.span, routes)
            if finding is not None:
                yield finding


def _required_names(script: Script) -> set[str]:
    """The names the script's validators and `${X:?}` name (a quick look before the routes)."""
    names = {e.name for e in script.expansions if e.validates}
    for command in script.commands:
        if command.base in VALIDATORS:
            names.update(w.value for w in command.args if w.static)
    return names


def _finding(path: str, name: str, span: Span, routes: list[StartPath]) -> Finding | None:
    close: dict[str, Location] = {}
    for route in routes:
        variables = route.variables()
        if name in variables:
            return None
        for other, provenance in variables.items():
            where = provenance.location
            if where is not None and other not in close and _slip(name, other):
                close[other] = where
    if not close:
        return None
    other, where = next(iter(sorted(close.items())))
    if len(routes) > 1:
        ways = f"none of the {len(routes)} ways the repository starts this script sets it"
    else:
        ways = "the one way the repository starts this script does not set it"
    return Finding(
        "BL112",
        f"`{name}` is required here, but {ways}; {where.path}:{where.span.line} sets "
        f"`{other}`: every job that runs this script stops at this check",
        Location(path, span),
        related=(Location(where.path, where.span, f"sets {other}"),),
        help=f"require (and read) `{other}`, or set `{name}` on the way in",
        subject=f"{name}->{other}",
    )


def _slip(required: str, set_: str) -> bool:
    """A name set that the required one is a slip for: the same with a word after it (`EP`
    and `EP_SIZE`), or a slip as BL104 reads one."""
    if set_.startswith(required + "_"):
        return True
    return required != set_ and is_slip(required, set_)
