"""A health-check window that does not fit in the job's wall time.

## What it does
For every search-space element routed to a launcher, takes the recipe as the launcher leaves it
and reports:
- a readiness window (`health_check.max_attempts × interval_seconds`, srtctl's default 180 × 10 s
  where absent, unless the launcher's `srtslurm.yaml` sets a `default_health_check`, which
  srtctl gives a recipe with no `health_check`: then the window is not known and the recipe is
  counted, not checked) that is not shorter than the Slurm wall time (`slurm.time_limit`, else the
  `default_time_limit` the launcher writes into `srtslurm.yaml` on that entry's branch; a
  `time_limit` it cannot read as a duration, `UNLIMITED`, is passed to Slurm as written: not
  compared); a recipe that leaves the window to the default is reported at its `time_limit`;
- a `VLLM_ENGINE_READY_TIMEOUT_S` longer than that window (once per value in a recipe: the same
  timeout set for its prefill and decode workers is one report, the other places related), as the
  launcher leaves it and as PyYAML reads it (the last of a repeated key);
- an `salloc --time` in the launcher not longer than that window (located at the `salloc`);
- on a route with no recipe, an `salloc --time` not longer than the start-up budget of the
  script the launcher then runs (the one script its path names on that route): a script that
  starts vLLM and exports `VLLM_ENGINE_READY_TIMEOUT_S` as a number, once, on every path;
- a recipe's `slurm.time_limit` PyYAML reads as a number: an unquoted `6:00:00` is YAML 1.1's
  base-60 integer 21600, `360` the integer 360; srtctl's recipe schema takes a string there
  (marshmallow's since December 2025, pydantic's before) and refuses the recipe (`Invalid
  config`): reported at the value whatever the window, which is not compared then;
- a `default_time_limit: 4:00:00` the launcher writes into `srtslurm.yaml` unquoted: PyYAML reads
  YAML 1.1's base-60 integer 14400, srtctl's cluster config (a marshmallow string field) rejects
  it and srtctl ignores the whole file, its account, partition and aliases too (NVIDIA/srt-slurm
  `load_cluster_config`); the site's time limit is then not known to the other checks.

The recipe EVAL_CONFIG_FILE names is checked too where the launcher switches to it
(`CONFIG_FILE="$EVAL_CONFIG_FILE"` in eval-only runs), as the rewrites after the switch leave it. In
a repository of recipes with no master config (an srt-slurm tree, or a collection of srtctl recipes
alone), each recipe is checked as it is, against its own `slurm.time_limit`; one with no
`health_check` block gets the site's `default_health_check`, not known there: counted in every
report, not checked (where the tree holds srtctl's own source and no file of it names
`default_health_check`, srtctl before that setting, such a recipe has the defaults, and is checked;
the defaults of that srtctl's `HealthCheckConfig` where its source gives them, 60 × 10 s before
February 2026; where it names no health check at all, srtctl before December 2025, whose benchmark
waited for the server itself, no recipe of the tree is checked: each is counted).

## Why is this bad?
If the server may take the whole allocation to become ready, Slurm kills the job before a single
request is measured; if the engine waits longer than the readiness probe, the probe gives up on a
server that would have come up.

## Example
```yaml path=benchmarks/multi_node/srt-slurm-recipes/vllm/big.yaml
name: big
slurm:
  time_limit: "02:00:00"
health_check:
  max_attempts: 1440
  interval_seconds: 10
```
```bash path=runners/launch_b200-dgxc.sh
srtctl apply -f "$CONFIG_FILE"
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
```yaml path=benchmarks/multi_node/srt-slurm-recipes/vllm/big.yaml
name: big
slurm:
  time_limit: "06:00:00"
health_check:
  max_attempts: 1440
  interval_seconds: 10
```
```bash path=runners/launch_b200-dgxc.sh
srtctl apply -f "$CONFIG_FILE"
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
When a launcher's branches give several `default_time_limit` values and benchlint cannot decide
which applies, the longest is used. Upstream recipes are not read. A recipe checked on its own
that sets no `slurm.time_limit` (or on a route whose launcher writes no `default_time_limit`) is
compared with nothing: the default comes from the site's `srtslurm.yaml`, else srtctl's own;
every report counts such recipes (those with no `health_check` either among them). A single-node
script's start-up budget is read only from an unconditional `export VLLM_ENGINE_READY_TIMEOUT_S=N`:
a default (`${VLLM_ENGINE_READY_TIMEOUT_S:-N}`, which the caller may override), a value set in a
branch or twice, and the script's own readiness loop are not compared.
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.context import Context
from benchlint.engines import launches
from benchlint.finding import Finding, Location, Severity, Span
from benchlint.layout import srtctl_health, srtctl_reads
from benchlint.recipe import HealthWindow, duration, health_window, settings_root, slurm_seconds
from benchlint.registry import rule
from benchlint.releases import scripts_run
from benchlint.shell.model import Assignment, Command
from benchlint.wiring import Route, Wiring
from benchlint.yamlmodel import YamlDocument, YNode


def _problems(
    path: str,
    original: YamlDocument,
    window: HealthWindow,
    wall: Wall | None,
    effective: YNode | None = None,
) -> list[Problem]:
    """A window not shorter than the wall time; engine timeouts longer than the window (once
    per value: the same timeout for prefill and decode workers is one report), with the values
    of the recipe as the launcher leaves it (`effective`'s root), located at the recipe's keys."""
    anchor = health_window(original.root)
    key = anchor.attempts_node or anchor.interval_node if anchor is not None else None
    defaulted = window.attempts_node is None and window.interval_node is None
    problems: list[Problem] = []
    described = window.describe() + (
        ", srtctl's default: the recipe sets no health_check" if defaulted else ""
    )
    if wall is not None and window.seconds >= wall[0]:
        problems.append(
            (
                key or _time_limit_key(original),
                f"the health-check window ({described}) is not shorter than the "
                f"wall time ({wall[1]}, {duration(wall[0])}): Slurm can end the job before "
                "the server is ready",
                (wall[2],) if wall[2] is not None else (),
            )
        )
    longer: dict[int, list[YNode]] = {}
    written = list(_timeouts_of(original))
    if effective is not None and written:
        left = [value for _, value in _engine_timeouts(settings_root(effective))]
        # (one value per key as written; a rewrite that adds or drops one: not paired, skipped)
        written = (
            [(k, v) for (k, _), v in zip(written, left, strict=True)]
            if len(left) == len(written)
            else []
        )
    for timeout_key, timeout in written:
        try:
            seconds = int(timeout.scalar)
        except (TypeError, ValueError):
            continue
        if seconds > window.seconds:
            longer.setdefault(seconds, []).append(timeout_key)
    for seconds, keys in longer.items():
        problems.append(
            (
                keys[0],
                f"VLLM_ENGINE_READY_TIMEOUT_S={seconds} ({duration(seconds)}) is longer "
                f"than the health-check window ({described}): the probe gives up before "
                "the engine does",
                tuple(Location(path, k.span, "set here too") for k in keys[1:]),
            )
        )
    return problems


def _refused_time_limit(
    original: YamlDocument, effective: YNode | None = None, related: tuple[Location, ...] = ()
) -> Finding | None:
    """A `slurm.time_limit` PyYAML reads as a number (in the recipe as the launcher leaves it
    too, where it is given): an unquoted `6:00:00` is YAML 1.1's base-60 integer, `360` an
    integer; srtctl's recipe schema, a string field there (marshmallow's since December 2025,
    pydantic's before), refuses the recipe."""
    if not srtctl_reads(original.path):
        return None  # (another project's recipe: what reads it is not srtctl)
    limits = [_time_limit(root) for root in (original.root, effective) if root is not None]
    written = limits[0] if limits else None
    if written is None or not all(limit is not None and _number(limit) for limit in limits):
        return None
    kind = "integer" if isinstance(written.scalar, int) else "number"
    read = (
        f"the {kind} {_base60(written.value)} to PyYAML (YAML 1.1's base 60)"
        if written.sexagesimal
        else f"the {kind} {written.scalar} to PyYAML"
    )
    message = (
        f"`time_limit: {written.value}` unquoted is {read}: srtctl's recipe schema takes a "
        "string there and refuses the recipe (`Invalid config`): the job is never submitted"
    )
    return Finding(
        "BL204",
        message,
        Location(original.path, written.span),
        related=related,
        subject="rejected-time-limit",
        help=f'quote it: `time_limit: "{written.value}"`',
    )


def _number(node: YNode) -> bool:
    """A plain scalar PyYAML reads as a number (not `true`, which srtctl refuses too but no one
    writes for a time)."""
    return node.is_scalar and node.style is None and type(node.scalar) in (int, float)


def _time_limit(root: YNode) -> YNode | None:
    settings = settings_root(root)
    slurm = settings.get("slurm") if settings is not None else None
    return slurm.get("time_limit") if slurm is not None and slurm.is_map else None


def _time_limit_key(original: YamlDocument) -> YNode | None:
    """The recipe's own `slurm.time_limit` key: where a window it leaves to srtctl's default is
    reported."""
    settings = settings_root(original.root)
    slurm = settings.get("slurm") if settings is not None else None
    return slurm.key_node("time_limit") if slurm is not None and slurm.is_map else None


UNDECIDED = (
    "recipes with no health_check not checked against their wall time (BL204: srtctl gives "
    "them the site's default_health_check where srtslurm.yaml sets one, not known here, else "
    "a window of its own)"
)
NO_HEALTH_CHECK = (
    "recipes not checked against their wall time: the srtctl of this tree has no health check "
    "(BL204: it waits for the server in its benchmark, not for a recipe's health_check)"
)
NO_WALL = (
    "recipes with no slurm.time_limit not checked against a wall time (BL204: srtctl gives "
    "them the site's default_time_limit from srtslurm.yaml, not known here, else a default of "
    "its own)"
)
FILE_START = Span(1, 1, 1, 1)


def _count_no_wall(ctx: Context, path: str, wall: Wall | None, settings: YNode | None) -> None:
    """Count a recipe whose window is compared with no wall time because none is known: no
    `slurm.time_limit` and (routed) no `default_time_limit` from its launcher. One that sets
    `UNLIMITED` has no wall time to compare with: not counted."""
    slurm = settings.get("slurm") if settings is not None else None
    if wall is None and (slurm is None or not slurm.is_map or slurm.get("time_limit") is None):
        ctx.count(NO_WALL, Location(path, FILE_START))


def _unrouted(ctx: Context) -> Iterator[Finding]:
    """In a repository of recipes alone: each recipe's window against its own
    `slurm.time_limit` (srtslurm.yaml's defaults, for the wall time and for a recipe with no
    health_check, are the site's, not known here)."""
    health = srtctl_health(ctx.ws)  # (the tree's own srtctl's, read once)
    for path in ctx.in_scope(ctx.ws.recipe_paths):
        document = ctx.ws.yaml(path)
        refused = _refused_time_limit(document) if document is not None else None
        if refused is not None:
            yield refused
        window = health_window(document.root, health.defaults) if document is not None else None
        if document is None or window is None:
            continue
        if not health.checks:  # (an srtctl before its health check: t81b)
            ctx.count(NO_HEALTH_CHECK, Location(path, FILE_START))
            continue
        wall = _wall_time(ctx.wiring, None, settings_root(document.root))
        if window.site_default and health.site_default:
            if _compared(wall, document):
                ctx.count(UNDECIDED, Location(path, FILE_START))
            else:  # (no wall time either: said as that)
                _count_no_wall(ctx, path, wall, settings_root(document.root))
            continue
        _count_no_wall(ctx, path, wall, settings_root(document.root))
        for node, message, related in _problems(path, document, window, wall):
            if node is not None:
                yield Finding("BL204", message, Location(path, node.span), related=related)


Wall = tuple[int, str, Location | None]  # seconds, what gives it, where (a launcher's line)


def _compared(wall: Wall | None, document: YamlDocument) -> bool:
    """Whether the recipe has something its window is compared with: a wall time, or an engine
    timeout."""
    return wall is not None or next(_timeouts_of(document), None) is not None


def _wall_time(wiring: Wiring, route: Route | None, settings: YNode | None) -> Wall | None:
    slurm = settings.get("slurm") if settings is not None else None
    limit = slurm.get("time_limit") if slurm is not None and slurm.is_map else None
    if limit is not None and limit.is_scalar:
        seconds = slurm_seconds(limit.value)
        if seconds is None or _number(limit):
            # (`UNLIMITED`, `infinite`: srtctl passes the recipe's own value; a number, an
            # unquoted `6:00:00`: srtctl refuses the recipe, `_refused_time_limit`)
            return None
        return seconds, f"slurm.time_limit {limit.value}", None
    if route is None:
        return None
    best: Wall | None = None
    values: set[int] = set()
    undecided = False
    for time_limit in route.launcher.time_limits:
        holds = [route.holds(time_limit.command)]
        if time_limit.guards_from is not None:
            holds.append(route.holds(time_limit.guards_from))
        if False in holds:
            continue
        seconds = slurm_seconds(time_limit.value)
        if seconds is None:
            continue
        values.add(seconds)
        undecided = undecided or None in holds
        where = Location(route.launcher.path, time_limit.span, "default_time_limit")
        if best is None or seconds > best[0]:
            best = (
                seconds,
                f"default_time_limit {time_limit.value} of {route.launcher.path}",
                where,
            )
    if best is not None and undecided and len(values) > 1:
        best = (
            best[0],
            best[1] + ", the longest its branches can give; benchlint cannot decide which applies",
            best[2],
        )
    return best


# vLLM's wait for its engine to start up (`vllm/envs.py`; 600 s when unset)
_TIMEOUT = "VLLM_ENGINE_READY_TIMEOUT_S"


def _startup_budgets(
    ctx: Context, route: Route
) -> Iterator[tuple[Command, str, tuple[Assignment, int], str]]:
    """(salloc, its `--time` as written, the start-up budget, the script that gives it) for each
    `salloc` with a static time that may run on a route with no recipe and each script the
    launcher runs that is the only one its path names on the route."""
    if ctx.wiring.recipes(route):
        return
    allocations = [(c, t) for c, t in route.launcher.allocations if route.holds(c) is not False]
    if not allocations:
        return
    for run in scripts_run(ctx, route):
        if run.runs is False or len(run.scripts) != 1:
            continue
        budget = _startup_budget(ctx, run.scripts[0])
        if budget is not None:
            for allocation, text in allocations:
                yield allocation, text, budget, run.scripts[0]


def _startup_budget(ctx: Context, path: str) -> tuple[Assignment, int] | None:
    """The start-up budget a script that starts vLLM gives it: its one assignment of
    VLLM_ENGINE_READY_TIMEOUT_S, a number, exported, on every path of its top level."""
    script = ctx.ws.shell(path)
    if script is None or not any(launch.engine == "vllm" for launch in launches(script)):
        return None
    found = [a for a in script.assignments if a.name == _TIMEOUT]
    if len(found) != 1:
        return None
    assignment, value = found[0], found[0].value
    command = assignment.command
    if (
        value is None
        or not value.static
        or not value.value.isdigit()
        or not assignment.exported
        or command.guards
        or command.function is not None
        or command.script is not script
    ):
        return None
    return assignment, int(value.value)


def _timeouts_of(document: YamlDocument) -> Iterator[tuple[YNode, YNode]]:
    """`_engine_timeouts` of a recipe as written (none where it cannot hold the name)."""
    if not document.may_hold(_TIMEOUT):
        return iter(())
    return _engine_timeouts(settings_root(document.root))


def _engine_timeouts(node: YNode | None) -> Iterator[tuple[YNode, YNode]]:
    """(key, value) of every VLLM_ENGINE_READY_TIMEOUT_S in the recipe's settings."""
    if node is None:
        return
    for mapping in YamlDocument.collections(node):
        last = None
        for key, value in mapping.pairs:
            if key.is_scalar and key.value == _TIMEOUT:
                last = (key, value)
        if last is not None:  # the one PyYAML keeps: the last
            yield last


Problem = tuple[YNode | None, str, tuple[Location, ...]]  # where, message, places it concerns


@rule("BL204", "time-budget", Severity.ERROR, tags=("wiring", "recipes"))
def check(ctx: Context) -> Iterator[Finding]:
    wiring = ctx.wiring
    reported: dict[tuple[str, int, int, str], tuple[Finding, list[str]]] = {}
    for route, recipe in ((r, a) for r in ctx.routes() for a in wiring.applied(r)):
        if recipe.path is None or recipe.status != "local":
            continue
        effective = wiring.effective(route, recipe)
        document = effective.document if effective is not None else wiring.ws.yaml(recipe.path)
        original = wiring.ws.yaml(recipe.path)
        if document is None or original is None:
            continue
        refused = _refused_time_limit(original, document.root, (_entry(route),))
        if refused is not None:
            _gather(reported, refused, route.entry.name)
        window = health_window(document.root)
        if window is None:
            continue
        wall = _wall_time(wiring, route, settings_root(document.root))
        if window.site_default and any(
            route.holds(command) is not False for command in route.launcher.site_health_checks
        ):
            if _compared(wall, document) or route.launcher.allocations:
                ctx.count(UNDECIDED, Location(recipe.path, FILE_START))
            else:  # (no wall time either: said as that)
                _count_no_wall(ctx, recipe.path, wall, settings_root(document.root))
            continue
        _count_no_wall(ctx, recipe.path, wall, settings_root(document.root))
        problems = _problems(recipe.path, original, window, wall, document.root)
        for allocation, text in route.launcher.allocations:
            seconds = slurm_seconds(text)
            if seconds is None or route.holds(allocation) is False:
                continue
            if seconds <= window.seconds:
                where = Location(route.launcher.path, allocation.first_line_span)
                problems.append(
                    (
                        None,
                        f"`salloc --time={text}` ({duration(seconds)}) is not longer than the "
                        f"health-check window of {recipe.path} ({window.describe()}): the "
                        "allocation can end while the server is still loading",
                        (where,),
                    )
                )
        if recipe.switch is not None:  # EVAL_CONFIG_FILE's recipe, applied after a switch
            runs = f"the launcher switches to this recipe on line {recipe.switch.span.line}"
            if route.holds(recipe.switch) is None:
                runs += " if its condition holds (benchlint cannot decide it statically)"
            problems = [(n, f"{m}; in the runs where {runs}", r) for n, m, r in problems]
        for node, message, related in problems:
            span = node.span if node is not None else None
            location = Location(recipe.path, span) if span is not None else None
            if location is None and related:
                location = related[0]
            if location is None:
                continue
            setting = recipe.setting.location  # (CONFIG_FILE's, or EVAL_CONFIG_FILE's)
            extra = (
                *(r for r in related if r != location),
                Location(setting.path, setting.span, f"entry {route.entry.name}"),
            )
            finding = Finding("BL204", message, location, related=extra, subject=message)
            _gather(reported, finding, route.entry.name)
    for route in ctx.routes():
        for allocation, text, budget, script in _startup_budgets(ctx, route):
            seconds = slurm_seconds(text)
            if seconds is None or seconds > budget[1]:
                continue
            where = Location(route.launcher.path, allocation.first_line_span)
            message = (
                f"`salloc --time={text}` ({duration(seconds)}) is not longer than the start-up "
                f"budget {script} gives vLLM (`{budget[0].command.script.text_of(budget[0].node)}`"
                f", {duration(budget[1])}): the allocation can end while the server is still "
                "loading"
            )
            related = (
                Location(script, budget[0].span, "start-up budget"),
                _entry(route),
            )
            finding = Finding("BL204", message, where, related=related, subject=message)
            _gather(reported, finding, route.entry.name)
    for route in ctx.routes():
        for limit in route.launcher.rejected_time_limits:
            if route.holds(limit.command) is False:
                continue
            where = Location(route.launcher.path, limit.span)
            message = (
                f"`default_time_limit: {limit.value}` unquoted is the "
                f"{'number' if '.' in limit.value else 'integer'} "
                f"{_base60(limit.value)} to PyYAML (YAML 1.1's base 60): srtctl's "
                "cluster config takes a string, fails to load srtslurm.yaml and ignores all of "
                "it (its default account, partition, time limit and aliases)"
            )
            related = (_entry(route),)
            finding = Finding(
                "BL204",
                message,
                where,
                related=related,
                subject="rejected-time-limit",
                help=f'quote it: `default_time_limit: "{limit.value}"`',
            )
            _gather(reported, finding, route.entry.name)
    if not wiring.entries:  # no master config (an srt-slurm tree): each recipe as it is
        yield from _unrouted(ctx)
    for finding, entries in reported.values():
        unique = list(dict.fromkeys(entries))
        shown = ", ".join(unique[:3]) + (f" and {len(unique) - 3} more" if len(unique) > 3 else "")
        finding.message += f" (for {shown})"
        yield finding


def _entry(route: Route) -> Location:
    """Where the route's master-config entry is written, named for the findings it concerns."""
    entry = route.entry
    return Location(entry.path, entry.location.span, f"entry {entry.name}")


def _gather(
    reported: dict[tuple[str, int, int, str], tuple[Finding, list[str]]],
    finding: Finding,
    entry: str,
) -> None:
    """One finding per place and message, with every entry it holds for (the first route's
    finding kept, its related places among them)."""
    span = finding.location.span
    index = (finding.location.path, span.line, span.column, finding.message)
    if index in reported:
        reported[index][1].append(entry)
    else:
        reported[index] = (finding, [entry])


def _base60(text: str) -> str:
    """An unquoted `4:00:00` as PyYAML reads it, 4 × 3600 + 0 × 60 + 0 (`1:30:00.5`, a base-60
    float: 5400.5; h141 R1), as it is shown."""
    value: float = 0
    for part in text.lstrip("+-").split(":"):
        digits = part.replace("_", "")
        value = value * 60 + (float(digits) if "." in digits else int(digits))
    value = -value if text.startswith("-") else value
    return f"{value:g}" if isinstance(value, float) else str(value)
