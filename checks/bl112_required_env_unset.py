"""A variable a script requires that no way into it sets, where a way in sets a close name.

## What it does
Reports a name a script requires before it sets it (`check_env_vars EP`, `: "${EP:?}"`, a read with
no default after `set -u`, at its top level, under no condition) when the script is started only by
launchers, every way they start it is known (each master-config entry's route through its launcher
to the command that runs the script by its path, with nothing unknown on the way: no `eval` before
it), none of them sets the name, and one of them sets a name the required one is a slip for: the
same with a word after it (`EP` for `EP_SIZE`), in another case (`port` for `PORT`), one or two
characters short (`MODE` for `MODEL`), one character off, or with two neighbours swapped.

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
Not reported: a name no way in sets a close name of (it may come from the runner's environment or
the image: `HF_TOKEN`), a name the Hugging Face libraries read (`HF_*`, `TRANSFORMERS_*`: runners
commonly set them themselves) where a way in sets it with a word after it (`HF_HUB_CACHE_MOUNT`;
counted; a misspelling of one is reported), a script some way into which is not known (a launcher's
`eval` before the command, a route whose environment is not complete), a script another script runs
or sources (its ways in are not followed here), a requirement under a condition or in a function,
names the system, Slurm or GitHub set and those in `known-env`. A name a container command does not
pass is BL109's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from benchlint.context import Context
from benchlint.environment import (
    VALIDATORS,
    Provenance,
    ScriptState,
    first_uses,
    is_builtin,
    is_slip,
    nounset_from,
    passed_on,
)
from benchlint.finding import Finding, Location, Severity, Span
from benchlint.registry import script_rule
from benchlint.releases import scripts_run
from benchlint.shell.model import Script


@script_rule("BL112", "required-env-unset", Severity.ERROR, tags=("wiring", "environment"))
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    # by launcher: its ways into each script (worked out once for every script it starts)
    ways: dict[str, dict[str, list[Way]] | None] = ctx.kept("BL112", dict)
    known = ctx.config.known_env
    path = script.path
    if ctx.wiring.is_launcher(path):
        return
    required = {n for n in _required_names(script) if not is_builtin(n, known)}
    if not required:
        return
    launchers = _launchers_starting(ctx, path)
    if not launchers:
        return
    for launcher in launchers:
        if launcher not in ways:
            ways[launcher] = _ways_in(ctx, launcher)
    known_ways = [ways[launcher] for launcher in launchers]
    if any(by_script is None for by_script in known_ways):
        return  # (a way in that is not known)
    found = [way for by_script in known_ways for way in (by_script or {}).get(path, [])]
    close = _close_names(required, found)
    if not close:
        return
    uses = first_uses(ctx.environment, script, set(close))
    for name, use in sorted(uses.items(), key=lambda item: item[1].offset):
        if use.how != "required":
            continue
        if name.startswith(_LIBRARY_PREFIXES) and close[name][0].startswith(name + "_"):
            # (a name a library reads, which runners commonly set themselves: `HF_HUB_CACHE`
            # beside a launcher's `HF_HUB_CACHE_MOUNT` may be no slip; h127 W2; a misspelling,
            # `HF_CAHCE_DIR`, is one: h131 M5)
            ctx.count(_LIBRARY_NOTE, Location(path, use.span))
            continue
        yield _finding(path, name, use.span, len(found), *close[name])


# the variables the Hugging Face Hub and Transformers libraries read (HF_HOME, HF_HUB_CACHE,
# HF_TOKEN, TRANSFORMERS_CACHE, HUGGING_FACE_HUB_TOKEN): a runner's own environment may give them
_LIBRARY_PREFIXES = ("HF_", "HUGGING_FACE_", "TRANSFORMERS_")
_LIBRARY_NOTE = (
    "required names the Hugging Face libraries read (`HF_HUB_CACHE`), which a runner's "
    "environment may set, where a way in sets the name with a word after it "
    "(`HF_HUB_CACHE_MOUNT`), not reported (BL112: whether the runner sets it is not known)"
)


@dataclass(frozen=True)
class Way:
    """One way a launcher starts a script: the route's environment, and what the launcher
    passes on at the command (`environment.passed_on`)."""

    start: Mapping[str, Provenance]
    passed: Mapping[str, Provenance]

    def sets(self, name: str) -> bool:
        return name in self.passed or name in self.start

    def names(self) -> Iterator[tuple[str, Provenance]]:
        yield from self.passed.items()
        yield from self.start.items()


def _ways_in(ctx: Context, launcher: str) -> dict[str, list[Way]] | None:
    """Each script the launcher's routes may run by its path, with every such way; None when
    one of them is not known (the launcher runs `eval` before: anything may be set)."""
    environment = ctx.environment
    script = ctx.ws.shell(launcher)
    if script is None:
        return None
    ways: dict[str, list[Way]] = {}
    at: dict[int, tuple[ScriptState, dict[str, Provenance]]] = {}
    for start in environment.routes(launcher):
        if start.route is None:
            continue
        variables = start.variables()
        for run in scripts_run(ctx, start.route):
            command = run.call.command
            if id(command) not in at:
                state = environment.state_before(script, command.file_offset)
                at[id(command)] = state, passed_on(command, state)
            state, passed = at[id(command)]
            if state.unknown is not None or not start.complete:
                return None
            for path in run.scripts:
                ways.setdefault(path, []).append(Way(variables, passed))
    return ways


def _launchers_starting(ctx: Context, path: str) -> list[str] | None:
    """The launchers that run `path`, when only launchers run it and nothing sources it (the
    ways `_ways_in` knows); None otherwise."""
    calls = ctx.environment.calls
    if calls.is_sourced(path):
        return None
    callers = {call.caller.top.path for call in calls.callers_of(path)}
    if not callers or not all(ctx.wiring.is_launcher(caller) for caller in callers):
        return None
    return sorted(callers)


def _required_names(script: Script) -> set[str]:
    """The names the script's validators and `${X:?}` name, and those it reads after it turns
    on `set -u` (a quick look before the routes: `first_uses` decides)."""
    names = {e.name for e in script.expansions if e.validates}
    strict = nounset_from(script)
    for command in script.commands:
        if command.base in VALIDATORS:
            names.update(w.value for w in command.args if w.static)
        if strict is not None and command.file_offset > strict:
            names.update(r.name for w in command.words for r in w.reads())
            # (an assignment's value, a condition's test: bash stops at those too; h100 M2)
            for assignment in command.assignments:
                if assignment.value is not None:
                    names.update(r.name for r in assignment.value.reads())
            names.update(r.name for guard in command.guards for r in guard.test_reads)
    return names


def _close_names(names: set[str], ways: list[Way]) -> dict[str, tuple[str, Location]]:
    """Each name no way sets, with the first close name (by name) a way sets, and where."""
    unset = {n for n in names if not any(way.sets(n) for way in ways)}
    close: dict[str, tuple[str, Location]] = {}
    for name in sorted(unset):
        found: dict[str, Location] = {}
        for way in ways:
            for other, provenance in way.names():
                if other not in found and _slip(name, other):
                    where = provenance.location
                    if where is not None:
                        found[other] = where
        if found:
            close[name] = min(found.items())
    return close


def _finding(path: str, name: str, span: Span, routes: int, other: str, where: Location) -> Finding:
    if routes > 1:
        ways = f"none of the {routes} ways the repository starts this script sets it"
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
