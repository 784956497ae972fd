"""A variable an entrypoint uses that the job sets, left out of the container it runs in.

## What it does
Follows each master-config entry's jobs through its launcher to the script the launcher runs in a
container it starts with `docker run` or `podman run` (`docker run ... -e MODEL -e TP ... "$IMAGE"
benchmarks/single_node/x.sh`), and reports the container command when the script uses a variable
that the job sets (the workflow's `env:`, the entry's fields and `additional-settings`, what the
launcher sets before the command, exported or not: a container gets neither unless `-e` names it,
`--name=$server_name`'s variable too) but that the container's `-e`/`--env` options leave out (or
name with no value, `-e PORT`, where the launcher only assigns it, `PORT=8888` not exported: docker
passes the value of its own environment, which has none): the script requires it (`check_env_vars
X`, `${X:?}`, or a read with no default after it surely turned on `set -u`: bash stops there,
"unbound variable"), tests it, or reads it outside `echo` and `printf`, where neither it nor a file
it sources assigns the variable first. The related locations are the first use of each such variable
in the script and the entries whose jobs run it.

## Why is this bad?
A container does not inherit the environment of the shell that starts it: only what `-e`
names reaches the script. A variable the entrypoint requires makes every such job fail at
once (`required environment variables not set: DP_ATTENTION`, after the runner was allocated);
one it reads quietly takes its default (`${EP_SIZE:-1}`: expert parallelism never turns on,
`RUN_EVAL` unset: the evaluation never runs), so the benchmark measures another configuration
than the entry names. The list is kept by hand beside the master config, and a variable added
to the workflow and to the scripts is easily missed there: InferenceX added missing names to
these lists in a dozen fixes.

## Example
```yaml path=configs/nvidia-master.yaml
dsr1-fp8-mi325x-vllm:
  image: vllm/vllm-openai-rocm:v0.11.0
  model: deepseek-ai/DeepSeek-R1
  runner: mi325x
  scenarios:
    fixed-seq-len:
    - search-space:
      - {tp: 8}
```

```yaml path=configs/runners.yaml
labels:
  mi325x: [mi325x-tw_0]
```

```bash path=runners/launch_mi325x-tw.sh
docker run --rm --network=host -e MODEL -e TP=8 \\
  "$IMAGE" bash benchmarks/single_node/dsr1_fp8_mi325x.sh
```

```bash path=benchmarks/single_node/dsr1_fp8_mi325x.sh
check_env_vars MODEL TP ISL OSL
vllm serve "$MODEL" --tensor-parallel-size "$TP"
```

## Use instead
```yaml path=configs/nvidia-master.yaml
dsr1-fp8-mi325x-vllm:
  image: vllm/vllm-openai-rocm:v0.11.0
  model: deepseek-ai/DeepSeek-R1
  runner: mi325x
  scenarios:
    fixed-seq-len:
    - search-space:
      - {tp: 8}
```

```yaml path=configs/runners.yaml
labels:
  mi325x: [mi325x-tw_0]
```

```bash path=runners/launch_mi325x-tw.sh
docker run --rm --network=host -e MODEL -e TP=8 -e ISL -e OSL \\
  "$IMAGE" bash benchmarks/single_node/dsr1_fp8_mi325x.sh
```

```bash path=benchmarks/single_node/dsr1_fp8_mi325x.sh
check_env_vars MODEL TP ISL OSL
vllm serve "$MODEL" --tensor-parallel-size "$TP"
```

## Exceptions
Not reported: a container given a file of variables (`--env-file`, `--env-host`), whose names
are not known; a script the launcher's path may name among others on the route; a variable
the script or a file it sources assigns before using it, or uses only in `echo` and `printf`;
names an image or the container runtime sets itself (`PATH`, `HOME`, `HOSTNAME`, `LANG`,
`CUDA_*`, `NVIDIA_*`, `LD_LIBRARY_PATH`, `PYTHONPATH`...); a container a script other than the
launcher starts; `srun --container-image`, `enroot start` and `apptainer exec`, which pass the
environment on.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from benchlint.calls import Call
from benchlint.context import Context
from benchlint.environment import (
    Environment,
    ScriptState,
    container_passes,
    first_uses,
    set_by_image,
    wrapper_settings,
)
from benchlint.finding import Finding, Location, Severity
from benchlint.registry import rule
from benchlint.releases import scripts_run
from benchlint.shell.model import Command, Script

_OPTIONS_UNKNOWN = frozenset({"--env-file", "--env-host"})


@dataclass
class _Dropped:
    """What one container command leaves out for one script, over the routes that run it."""

    call: Call
    script: Script
    entries: dict[str, Location] = field(default_factory=dict)
    # each name left out: where the job sets it (the first route's), and the entries it is for
    names: dict[str, tuple[str, set[str]]] = field(default_factory=dict)
    # of those, the names `-e NAME` gives with no value where the launcher did not export them
    unexported: set[str] = field(default_factory=set)
    # names the launcher only assigns and does not pass: `-e NAME="$NAME"` gives the value
    valued: set[str] = field(default_factory=set)


@rule("BL109", "container-drops-env", Severity.ERROR, tags=("wiring", "environment"))
def check(ctx: Context) -> Iterator[Finding]:
    environment = ctx.environment
    found: dict[tuple[int, str], _Dropped] = {}
    for launcher in _launchers(ctx):
        script = ctx.ws.shell(launcher)
        if script is None:
            continue
        # the launcher's state at each container command, and what the command passes
        at: dict[int, tuple[ScriptState, set[str], set[str]] | None] = {}
        for start in environment.routes(launcher):
            route = start.route
            if route is None:
                continue
            for run in scripts_run(ctx, route):
                command = run.call.command
                if run.runs is not True or len(run.scripts) != 1:
                    continue  # (a command that may not run for the entry: no "every job")
                if id(command) not in at:
                    at[id(command)] = _container(environment, script, command)
                known = at[id(command)]
                target = ctx.ws.shell(run.scripts[0])
                if known is None or target is None:
                    continue
                state, passes, bare = known
                job = start.variables()
                outside = {**job, **state.assigned}
                dropped = {
                    name: where
                    for name, where in outside.items()
                    if (name not in passes or _unexported(name, bare, state, job))
                    and not set_by_image(name)
                }
                if not dropped:
                    continue
                entry = route.element.entry
                item = found.setdefault((id(command), target.path), _Dropped(run.call, target))
                item.entries.setdefault(entry.name, entry.location)
                for name, where in dropped.items():
                    how = where.what
                    local = name in state.assigned and name not in state.exported
                    if local and where.location is not None:
                        how = f"{where.location.path}:{where.location.span.line}, not exported"
                        if name in passes:  # (`-e PORT` passes docker's environment's PORT)
                            how += f": `-e {name}` passes none"
                            item.unexported.add(name)
                        else:  # (`-e NAME` alone would pass none either: h122 W1, h125 W3)
                            item.valued.add(name)
                    item.names.setdefault(name, (how, set()))[1].add(entry.name)
    for item in found.values():
        if not ctx.route_in_scope(item.call.caller.path, item.script.path, *_paths(item)):
            continue
        finding = _finding(ctx, item)
        if finding is not None:
            yield finding


def _launchers(ctx: Context) -> list[str]:
    """The launchers whose container commands may have a finding in scope: all of them, or
    (files named) those named, those that call a named entrypoint, and those an entry of a
    named file (a master config, a workflow) starts (a finding names its entries)."""
    wiring = ctx.wiring
    if ctx.scope is None:
        return sorted({route.launcher.path for route in wiring.routes})
    named = ctx.in_scope(ctx.ws.shell_paths)
    entrypoints = [path for path in named if not wiring.is_launcher(path)]
    calls = [call for path in entrypoints for call in ctx.environment.calls.callers_of(path)]
    found = {path for path in named if wiring.is_launcher(path)}
    found |= {call.caller.top.path for call in calls if wiring.is_launcher(call.caller.top.path)}
    if ctx.names_entries:
        found |= {
            route.launcher.path
            for route in ctx.routes()
            if ctx.route_in_scope(route.entry.location.path)
        }
    return sorted(found)


def _paths(item: _Dropped) -> list[str]:
    return [location.path for location in item.entries.values()]


def _container(
    environment: Environment, launcher: Script, command: Command
) -> tuple[ScriptState, set[str], set[str]] | None:
    """The launcher's state at a container command, the names the command gives the command
    in it, and those it names with no value (`-e PORT`: the value in the environment docker
    runs in); None when it runs in no container, or its options name a file of variables (not
    known)."""
    passes = container_passes(command)
    if passes is None:
        return None
    bare: set[str] = set()
    for wrapper in command.invocation.wrappers:
        if any(option in _OPTIONS_UNKNOWN for option, _, _ in wrapper.options):
            return None
        if wrapper.own_env:
            bare |= {
                value
                for option, _, value in wrapper.options
                if option in wrapper.env_options and "=" not in value
            }
    state = environment.state_before(launcher, command.file_offset)
    return state, set(passes) | set(wrapper_settings(command, state)), bare


def _unexported(name: str, bare: set[str], state: ScriptState, job: Mapping[str, object]) -> bool:
    """`PORT=8888` (not exported), then `docker run -e PORT`: docker passes the PORT of the
    environment it runs in, which the launcher did not put there (one the job's environment
    gave is exported: assigning it changes the exported value)."""
    return (
        name in bare and name in state.assigned and name not in state.exported and name not in job
    )


def _finding(ctx: Context, item: _Dropped) -> Finding | None:
    script = item.script
    uses = first_uses(ctx.environment, script, set(item.names))
    if not uses:
        return None
    names = sorted(uses, key=lambda n: uses[n].offset)
    required = [n for n in names if uses[n].how == "required"]
    others = [n for n in names if uses[n].how != "required"]
    setters = sorted({item.names[n][0] for n in names})
    concerned = set().union(*(item.names[n][1] for n in names))
    entries = [e for e in item.entries if e in concerned]
    shown = ", ".join(entries[:2]) + (f" and {len(entries) - 2} more" if len(entries) > 2 else "")
    effects = []
    if required:
        effects.append(f"it requires {_names(required)}, so every such job fails there")
    if others:
        effects.append(f"it sees {_names(others)} unset")
    command = item.call.command
    return Finding(
        "BL109",
        f"the container started here for {script.path} is not given {_names(names)}, which "
        f"the job sets ({'; '.join(setters)}): {' and '.join(effects)} (entry {shown})",
        Location(item.call.caller.path, command.first_line_span),
        related=(
            *(Location(script.path, uses[n].span, f"{n} {uses[n].how}") for n in names[:4]),
            *(
                Location(item.entries[e].path, item.entries[e].span, f"entry {e}")
                for e in entries[:2]
            ),
        ),
        help=_help(names, item.unexported, item.valued),
        subject=f"{script.path}:{','.join(names)}",
        involves=tuple(entries),
    )


def _help(names: list[str], unexported: set[str], valued: set[str]) -> str:
    """What to change: the container's `-e` list (with the value of a name the launcher only
    assigns: docker passes a bare `-e NAME` from its own environment), or the launcher's
    exports."""
    missing = [n for n in names if n not in unexported]
    local = [n for n in names if n in unexported]
    helps = []
    if missing:
        helps.append(
            "add `"
            + " ".join(f'-e {n}="${n}"' if n in valued else f"-e {n}" for n in missing)
            + "` to the container's options"
        )
    if local:
        helps.append(
            "export "
            + ", ".join(local)
            + " before the container command (or pass "
            + " ".join(f"`-e {n}=${n}`" for n in local)
            + ")"
        )
    return "; ".join(helps)


def _names(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
