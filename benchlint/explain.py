"""`benchlint explain`: how a recipe is reached and what reaches the job.

For a recipe path, a master-config entry name or a script: every route (entry, search-space
element, runner label, runner names, launcher), the scripts of the repository the launcher runs
on it (for a script, the runs that name it, or that reach it through the scripts they run or
source), the overlay that makes the recipe local, the rewrites the launcher applies on that
route with what each changes, and the effective health-check window and wall time.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from benchlint.calls import PATH_EXPANSION, Call, bind_mounts, in_mounted_folder, script_word
from benchlint.context import Context
from benchlint.images import image_release
from benchlint.layout import srtctl_health
from benchlint.recipe import (
    backend_type,
    dynamo_pin,
    frontend_type,
    health_window,
    settings_root,
    slurm_seconds,
)
from benchlint.releases import ScriptRun, scripts_run, unexported_read
from benchlint.shell.model import first_line
from benchlint.wiring import Effective, RecipeRef, Route


@dataclass
class Explained:
    route: Route
    recipe: RecipeRef | None
    effective: Effective | None
    scripts: list[ScriptRun]
    # for a script the launcher does not run itself: the calls from a script it runs down to
    # the script explained (`source "$DIR/benchmark_lib.sh"` in the benchmark it runs)
    via: list[Call] = field(default_factory=list)
    # the script explained is what the recipe's `benchmark.command` runs
    command_of_recipe: str | None = None


class ExplainError(Exception):
    pass


def explain(ctx: Context, target: str) -> list[Explained]:
    wiring = ctx.wiring
    target = target.strip().removeprefix("./")
    entry_names = {e.name for e in wiring.entries}
    # (a workflow call's job name, `bmk-h100`, stands for each of its calls: `bmk-h100 [h100]
    # (called by sweep)`, ...)
    named = {n for n in entry_names if n == target or n.startswith(target + " ")}
    found: list[Explained] = []
    launcher = wiring.is_launcher(target)
    script = ctx.ws.is_shell(target) and not launcher
    # a client script recipes run as their `benchmark.command`: the routes to those recipes
    running = {run.recipe for run in wiring.script_runs.get(target, [])} if script else set()
    for route in wiring.routes:
        by_entry = route.entry.name in named
        by_entry = by_entry or (launcher and route.launcher.path == target)  # its every route
        # (a script a launcher hands its route over to, `exec bash other.sh`, or one that hands
        # it on again: its every route)
        handed = route.launcher.path == target and bool(route.via)
        by_entry = by_entry or (
            script and (handed or any(c.script.path == target for c in route.via))
        )
        runs = scripts_run(ctx, route)
        if script:  # the routes whose launcher runs it: those runs alone are shown
            runs = [run for run in runs if target in run.scripts]
        # CONFIG_FILE's recipe (or None: the element sets none), then EVAL_CONFIG_FILE's where
        # the launcher switches to it
        recipes: list[RecipeRef | None] = list(wiring.applied(route))
        if not recipes or recipes[0] is not wiring.recipe(route):
            recipes.insert(0, None)
        for recipe in recipes:
            by_recipe = recipe is not None and recipe.path is not None and recipe.path == target
            client = recipe is not None and recipe.path in running
            if by_entry or by_recipe or client or (script and runs and recipe is recipes[0]):
                effective = wiring.effective(route, recipe) if recipe is not None else None
                command_of = target if client else None
                found.append(
                    Explained(route, recipe, effective, runs, command_of_recipe=command_of)
                )
    if not found and script:
        found = _through_callers(ctx, target)
    if not found:
        if named:
            why = (
                "see BL205"
                if wiring.has_runners_file
                else "no runners file lists its label's runners, and no launcher is named after it"
            )
            raise ExplainError(f"entry {target!r} reaches no launcher ({why})")
        if launcher:
            calls = any(e.step is not None for e in wiring.entries)
            what = "workflow call" if calls else "master-config entry"
            raise ExplainError(f"no {what} reaches the launcher {target!r}")
        if script:
            raise ExplainError(_unreached(ctx, target))
        raise ExplainError(
            f"{target!r} is neither a master-config entry, a recipe any entry routes to, nor "
            "a script a launcher runs"
        )
    return found


def _through_callers(ctx: Context, target: str) -> list[Explained]:
    """The routes to a script no launcher runs itself: those of the scripts launchers run that
    run or source it, directly or through other scripts of the repository; each caller on its
    shortest chain of calls (found breadth first, upward)."""
    run_by: dict[str, list[tuple[Route, ScriptRun]]] = {}
    for route in ctx.wiring.routes:
        for run in scripts_run(ctx, route):
            for path in run.scripts:
                run_by.setdefault(path, []).append((route, run))
    calls = ctx.environment.calls
    chains: dict[str, list[Call]] = {target: []}
    waiting = [target]
    by_route: dict[int, Explained] = {}  # a route once, with the first chain that reaches it
    while waiting:
        path = waiting.pop(0)
        for call in calls.callers_of(path):
            caller = call.caller.top.path
            if caller in chains:
                continue
            chains[caller] = chain = [call, *chains[path]]
            if caller not in run_by:
                waiting.append(caller)
                continue
            for route, run in run_by[caller]:
                item = by_route.get(id(route))
                if item is None:
                    recipe = ctx.wiring.recipe(route)
                    effective = ctx.wiring.effective(route, recipe) if recipe else None
                    item = by_route[id(route)] = Explained(route, recipe, effective, [], chain)
                if all(run is not known for known in item.scripts):
                    item.scripts.append(run)
    order = {id(route): i for i, route in enumerate(ctx.wiring.routes)}
    return sorted(by_route.values(), key=lambda item: order[id(item.route)])  # as entries come


def _unreached(ctx: Context, target: str) -> str:
    callers = ctx.environment.calls.callers_of(target)
    if not callers:
        why = (
            ctx.twin_not_run(target)
            or _under_unmapped_mount(ctx, target)
            or "it may be run by a path held in a variable"
        )
        return (
            f"no launcher runs {target!r}, and no script of the repository runs or sources it, "
            f"by a path benchlint can follow ({why})"
        )
    shown = ", ".join(_call_text(c) for c in callers[:5]) + (", ..." if len(callers) > 5 else "")
    launchers = {c.caller.top.path for c in callers if ctx.wiring.is_launcher(c.caller.top.path)}
    if launchers:
        # (`benchmarks/${EXP_NAME%%_*}_b200${SUFFIX}.sh`, where no entry's values make its name;
        # or a launcher no entry reaches)
        reached = any(
            start.route is not None for path in launchers for start in ctx.environment.routes(path)
        )
        why = "with a path no entry's values make" if reached else "a launcher no entry reaches"
        if reached and any(unexported_read(c) for c in callers):
            why = (
                "in a shell of its own that reads a name the launcher assigns and does not "
                "export (what that shell holds is not known)"
            )
        return (
            f"no entry's route reaches {target!r}: {shown}, {why} (`benchlint explain ENTRY` "
            "shows the scripts an entry's route runs)"
        )
    return (
        f"no launcher runs {target!r}, nor a script a launcher runs: {shown}, and nothing a "
        "launcher runs reaches those by a path benchlint can follow"
    )


def _under_unmapped_mount(ctx: Context, target: str) -> str | None:
    """Where a launcher runs a path of the script's file name inside a container, in a folder
    a bind mount shows whose source benchlint cannot tell (`cd "$HOME"; docker run -v
    "$(pwd)/benchmarks:/w" img bash /w/x.sh`): said, with those lines (h57 W1)."""
    name = posixpath.basename(target)
    found = []
    for path in ctx.ws.shell_paths:
        script = ctx.ws.shell(path) if ctx.wiring.is_launcher(path) else None
        for command in script.all_commands() if script is not None else ():
            run = script_word(command)
            value = run[1].value if run is not None else ""
            if (
                value.startswith("/")
                and re.fullmatch(_name_pattern(posixpath.basename(value)), name)
                and in_mounted_folder(value, bind_mounts(command)) == ""
            ):
                found.append(f"{path}:{command.first_line_span.line}")
    if not found:
        return None
    return (
        "it may be run inside a container under a bind mount whose source benchlint cannot "
        f"tell: {', '.join(found)}"
    )


def _name_pattern(name: str) -> str:
    """A file name with expansions in it as a pattern: each expansion any text."""
    parts = PATH_EXPANSION.split(name)
    return "[^/]*".join(re.escape(part) for part in parts)


def _call_text(call: Call) -> str:
    return f"{_VERBS[call.kind]} by {call.caller.top.path}:{call.command.first_line_span.line}"


_VERBS = {"source": "sourced", "run": "run"}


def _wall_time(item: Explained) -> str | None:
    document = item.effective.document if item.effective is not None else None
    settings = settings_root(document.root) if document is not None else None
    slurm = settings.get("slurm") if settings is not None else None
    limit = slurm.get("time_limit") if slurm is not None and slurm.is_map else None
    if limit is not None and limit.is_scalar:
        return f"{limit.value} (slurm.time_limit)"
    limits = [
        t.value
        for t in item.route.launcher.time_limits
        if item.route.holds(t.command) is not False
        and (t.guards_from is None or item.route.holds(t.guards_from) is not False)
    ]
    if not limits:
        return None
    longest = max(limits, key=lambda v: slurm_seconds(v) or 0)
    return f"{longest} (default_time_limit of {item.route.launcher.path})"


def _ends(route: Route) -> dict[str, Any] | None:
    end = route.ended_by()
    if end is None or end.base != "exit":
        return None
    return {"line": end.span.line, "command": first_line(end.script.text_of(end.statement()))}


def as_data(items: list[Explained]) -> list[dict[str, Any]]:
    data = []
    for item in items:
        route, recipe, effective = item.route, item.recipe, item.effective
        window = None
        assumed = effective.assumed if effective is not None else []
        if effective is not None and effective.document is not None:
            health = health_window(effective.document.root)
            window = health.describe() if health is not None else None
        data.append(
            {
                "entry": route.entry.name,
                "master_config": f"{route.entry.location.path}:{route.entry.location.span.line}",
                "element": route.element.label,
                "runner_label": route.entry.runner,
                "runner_names": route.runner_names,
                "launcher": route.launcher.path,
                # the launchers that handed the route over to it (`exec bash other.sh`)
                "handed_over_by": [{"path": c.script.path, "line": c.span.line} for c in route.via],
                # the launcher's `exit` that surely runs on this route (nothing after it does)
                "ends": _ends(route),
                # whether the route reaches the launcher's copies of recipes (it may end first)
                "reaches_copies": not (
                    route.launcher.overlays
                    and route.ends_before(route.launcher.overlays[0].command)
                ),
                # the calls from a script the launcher runs down to the script explained
                "via": [
                    {
                        "path": call.caller.top.path,
                        "line": call.command.first_line_span.line,
                        "kind": call.kind,
                    }
                    for call in item.via
                ],
                # the script explained, when the recipe's `benchmark.command` runs it
                "benchmark_command_runs": item.command_of_recipe,
                "scripts": [
                    {
                        "line": run.call.word.span.line,
                        "path": run.call.word.value,
                        "names": list(run.scripts),
                        "condition_undecided": run.runs is None,
                    }
                    for run in item.scripts
                ],
                "config_file": recipe.setting.value if recipe is not None else None,
                "variable": recipe.setting.name if recipe is not None else "CONFIG_FILE",
                # the launcher's `CONFIG_FILE="$EVAL_CONFIG_FILE"` that applies this recipe
                "switch": (
                    {
                        "line": recipe.switch.span.line,
                        "condition_undecided": route.holds(recipe.switch) is None,
                    }
                    if recipe is not None and recipe.switch is not None
                    else None
                ),
                "recipe": recipe.path if recipe is not None else None,
                "recipe_status": recipe.status if recipe is not None else None,
                # this repository's file at an upstream recipe's path, not copied on the route
                "not_copied": recipe.mirror if recipe is not None else None,
                "overlay": (
                    {
                        "source": recipe.overlay.source,
                        "target": recipe.overlay.target,
                        "line": recipe.overlay.command.span.line,
                    }
                    if recipe is not None and recipe.overlay is not None
                    else None
                ),
                "rewrites": [
                    {
                        "line": r.line,
                        "command": first_line(r.command.script.text_of(r.command.statement())),
                        "condition_undecided": r.command in assumed,
                    }
                    for r in (effective.applied if effective is not None else [])
                ],
                "changes": [
                    {
                        "key": ".".join(c.path),
                        "old": c.old.value if c.old is not None and c.old.is_scalar else None,
                        "new": c.new.value if c.new is not None and c.new.is_scalar else None,
                        "rewrite_lines": [r.line for r in c.rewrites],
                    }
                    for c in (effective.changes if effective is not None else [])
                ],
                "not_simulated": [
                    {"line": r.line, "why": why}
                    for r, why in (effective.errors if effective is not None else [])
                ],
                "health_check": window,
                "wall_time": _wall_time(item),
            }
        )
    return data


def render_json(items: list[Explained]) -> str:
    return json.dumps(as_data(items), indent=2) + "\n"


def render_text(items: list[Explained]) -> str:
    out: list[str] = []
    for data in as_data(items):
        out.append(
            f"{data['entry']} [{data['element']}] ({data['master_config']})"
            f"\n  runner label {data['runner_label']} -> {', '.join(data['runner_names'])}"
            + "".join(
                f" -> {h['path']}, which hands over (line {h['line']}) to"
                for h in data["handed_over_by"]
            ).replace(" to -> ", " to ")
            + (" " if data["handed_over_by"] else " -> ")
            + data["launcher"]
        )
        if data["via"]:
            steps = [
                f"{_VERBS[c['kind']]} by {c['path']}:{c['line']}" for c in reversed(data["via"])
            ]
            out.append(f"  reached through other scripts: {', '.join(steps)}")
        for run in data["scripts"]:
            note = " (condition not decidable statically)" if run["condition_undecided"] else ""
            names = ", ".join(run["names"]) or "no script of the repository (BL202)"
            out.append(f"  runs (line {run['line']}) {run['path']} -> {names}{note}")
        if data["ends"]:
            out.append(
                f"  ends at line {data['ends']['line']} ({data['ends']['command']}) for this "
                "element: nothing after it runs"
            )
        if data["config_file"] is None:
            out.append("  no CONFIG_FILE in this element's additional-settings")
        else:
            where = data["recipe"] or "not in this repository"
            switch = ""
            if data["switch"]:
                note = " (condition not decidable statically)"
                switch = f", applied after line {data['switch']['line']} switches to it" + (
                    note if data["switch"]["condition_undecided"] else ""
                )
            mirror = data["not_copied"]
            copied = f"; this repository's {mirror} is not copied there" if mirror else ""
            if data["recipe_status"] == "upstream" and not data["reaches_copies"]:
                out.append(
                    f"  {data['variable']}={data['config_file']} -> not reached: the launcher "
                    "ends before its copies of recipes, and before srtctl"
                )
            else:
                out.append(
                    f"  {data['variable']}={data['config_file']} -> {where} "
                    f"({data['recipe_status']}{copied}){switch}"
                )
        if data["benchmark_command_runs"]:
            out.append(f"  benchmark.command of the recipe runs {data['benchmark_command_runs']}")
        if data["overlay"]:
            overlay = data["overlay"]
            out.append(
                f"  overlay (line {overlay['line']}): {overlay['source']} -> {overlay['target']}"
            )
        for rewrite in data["rewrites"]:
            note = " (condition not decidable statically)" if rewrite["condition_undecided"] else ""
            out.append(f"  rewrite line {rewrite['line']}: {rewrite['command']}{note}")
        for change in data["changes"]:
            lines = ", ".join(str(n) for n in change["rewrite_lines"])
            out.append(f"    {change['key']}: {change['old']} -> {change['new']} (line {lines})")
        for skipped in data["not_simulated"]:
            out.append(f"  not simulated, line {skipped['line']}: {skipped['why']}")
        if data["health_check"]:
            out.append(f"  effective health_check: {data['health_check']}")
        if data["wall_time"]:
            out.append(f"  wall time: {data['wall_time']}")
        out.append("")
    return "\n".join(out)


def recipe_alone(ctx: Context, target: str) -> dict[str, Any] | None:
    """What benchlint reads of a recipe no master-config entry routes to (an srt-slurm tree's,
    or one of this repository nothing names): it is checked as it is, with no launcher's
    rewrites. None for a file that is no recipe of the recipe tree."""
    document = ctx.ws.yaml(target) if target in ctx.ws.recipe_paths else None
    if document is None:
        return None
    root = document.root
    settings = settings_root(root)
    model = settings.get("model") if settings is not None else None
    container = model.get("container") if model is not None and model.is_map else None
    image = container.value if container is not None and container.is_scalar else None
    release = image_release(image) if image is not None else None
    slurm = settings.get("slurm") if settings is not None else None
    limit = slurm.get("time_limit") if slurm is not None and slurm.is_map else None
    health = srtctl_health(ctx.ws)
    window = health_window(root, health.defaults)
    shown: str | None
    if not health.checks:  # (an srtctl before its health check: t81b)
        shown = "none (this tree's srtctl waits for the server in its benchmark)"
    elif window is not None and window.site_default and health.site_default:
        # (as BL204 counts it: the site's setting, where srtslurm.yaml sets one; t81b)
        shown = (
            f"srtslurm.yaml's default_health_check (the site's, not known here), else "
            f"srtctl's {window.describe()}"
        )
    else:
        shown = window.describe() if window is not None else None
    return {
        "recipe": target,
        "routed": False,
        "master_configs": bool(ctx.wiring.entries),
        "backend": backend_type(root),
        "frontend": frontend_type(root),
        "container": image,
        "engine_release": f"{release[0]} {release[1]}" if release is not None else None,
        "dynamo": dynamo_pin(root),
        "health_check": shown,
        "time_limit": limit.value if limit is not None and limit.is_scalar else None,
    }


def render_alone(data: dict[str, Any]) -> str:
    why = (
        "no master-config entry routes to it"
        if data["master_configs"]
        else "this repository has no master config"
    )
    release = f" ({data['engine_release']})" if data["engine_release"] else ""
    limit = (
        f"{data['time_limit']} (slurm.time_limit)"
        if data["time_limit"]
        else "not set here (srtslurm.yaml's default_time_limit)"
    )
    lines = [
        f"{data['recipe']}: a recipe read as it is, with no launcher's rewrites ({why})",
        f"  backend: {data['backend'] or 'not set'}; frontend: {data['frontend']}",
        f"  model.container: {data['container'] or 'not set'}{release}",
    ]
    if data["dynamo"]:
        lines.append(f"  dynamo: {data['dynamo']}")
    lines += [f"  health_check: {data['health_check']}", f"  wall time: {limit}", ""]
    return "\n".join(lines)
