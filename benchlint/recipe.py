"""Facts about srt-slurm recipes: the health-check window, Slurm wall time, override layout."""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass

from benchlint import profile
from benchlint.finding import Span
from benchlint.images import dynamo_release, image_release
from benchlint.lazyre import lazy_compile
from benchlint.yamlmodel import YamlDocument, YNode

# srtctl's defaults when a recipe has no health_check block.
DEFAULT_MAX_ATTEMPTS: int = profile.HEALTH_CHECK_DEFAULTS["max_attempts"]
DEFAULT_INTERVAL_SECONDS: int = profile.HEALTH_CHECK_DEFAULTS["interval_seconds"]
_SLURM_TIME = lazy_compile(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$")


def settings_root(root: YNode | None) -> YNode | None:
    """Where a recipe keeps its settings: the document, or `base:` in override-style recipes
    (srtctl builds each variant from `base` and an override block alone: a key beside them,
    `health_check:` appended at the top level, is never read)."""
    if root is None or not root.is_map:
        return None
    base = root.get("base")
    if base is not None and base.is_map:
        return base
    return root


@dataclass(frozen=True)
class HealthWindow:
    attempts: int
    interval: int
    attempts_node: YNode | None  # the keys, where the recipe sets them
    interval_node: YNode | None
    # no health_check block: srtctl gives the recipe srtslurm.yaml's `default_health_check`,
    # where the site sets one, else its own defaults (`attempts` and `interval` are those)
    site_default: bool = False

    @property
    def seconds(self) -> int:
        return self.attempts * self.interval

    def describe(self) -> str:
        return f"{self.attempts} × {self.interval} s = {duration(self.seconds)}"


def health_window(
    root: YNode | None, defaults: tuple[int, int] | None = None
) -> HealthWindow | None:
    """The readiness window max_attempts × interval_seconds (srtctl defaults where absent:
    `defaults`, the max_attempts and interval_seconds of the srtctl that runs it where known,
    else the profile's)."""
    first, second = defaults or (DEFAULT_MAX_ATTEMPTS, DEFAULT_INTERVAL_SECONDS)
    settings = settings_root(root)
    block = settings.get("health_check") if settings is not None else None
    mapping = block if block is not None and block.is_map else None
    attempts = _integer(mapping.get("max_attempts") if mapping else None, first)
    interval = _integer(mapping.get("interval_seconds") if mapping else None, second)
    if attempts is None or interval is None:
        return None
    return HealthWindow(
        attempts,
        interval,
        mapping.key_node("max_attempts") if mapping else None,
        mapping.key_node("interval_seconds") if mapping else None,
        site_default=block is None,
    )


def _integer(node: YNode | None, default: int) -> int | None:
    """An `int` field of srtctl's schema as it loads it: marshmallow's Integer, not strict,
    takes what Python's `int()` takes (`"1440"`, quoted, is 1440: NVIDIA/srt-slurm's
    HealthCheckConfig, a marshmallow_dataclass; h128 M1), not a boolean or `1440.0`."""
    if node is None:
        return default
    value = node.scalar
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def slurm_seconds(text: str) -> int | None:
    """Slurm's time formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S."""
    match = _SLURM_TIME.match(text.strip().strip("\"'"))
    if match is None:
        return None
    days, first, second, third = match.groups()
    if days is not None:
        hours, minutes, seconds = int(first), int(second or 0), int(third or 0)
        return ((int(days) * 24 + hours) * 60 + minutes) * 60 + seconds
    if second is None:
        return int(first) * 60
    if third is None:
        return int(first) * 60 + int(second)
    return (int(first) * 60 + int(second)) * 60 + int(third)


def duration(seconds: int) -> str:
    """A span of time as a message gives it, exactly (`3:59:59` is not "4.0 h": h128 W4)."""
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    if seconds >= 3600 and seconds % 360 == 0:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 3600:
        hours, rest = divmod(seconds, 3600)
        minutes, rest = divmod(rest, 60)
        return f"{hours} h {minutes} min" + (f" {rest} s" if rest else "")
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} s"


def number(node: YNode | None) -> float | None:
    value = node.scalar if node is not None else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


# -- how a recipe serves ----------------------------------------------------------------------
ENGINE_ROLES = ("prefill", "decode", "aggregated")


def frontend_type(root: YNode | None) -> str:
    """`frontend.type` (dynamo, vllm, sglang); srt-slurm's default is dynamo."""
    settings = settings_root(root)
    frontend = settings.get("frontend") if settings is not None else None
    kind = frontend.get("type") if frontend is not None and frontend.is_map else None
    return kind.value.strip().lower() if kind is not None and kind.is_scalar else "dynamo"


def frontend_args(root: YNode | None) -> dict[str, str]:
    settings = settings_root(root)
    frontend = settings.get("frontend") if settings is not None else None
    args = frontend.get("args") if frontend is not None and frontend.is_map else None
    if args is None or not args.is_map:
        return {}
    return {k.value: v.value for k, v in args.pairs if k.is_scalar and v.is_scalar}


def dynamo_pin(root: YNode | None, default: str | None = None) -> str | None:
    """The Dynamo release a recipe runs, where it says: the one it installs (`dynamo.version`,
    `dynamo.wheel`), or, with `dynamo.install: false` (the container's own Dynamo), the one its
    runtime image's tag names (`model.container: .../vllm-runtime:1.4.0`); `default`, srtctl's,
    where it names no install source (no `dynamo` block, or one with no `version`, `hash` or
    `wheel` key and no `top_of_tree: true`: srtctl installs its default release)."""
    settings = settings_root(root)
    dynamo = settings.get("dynamo") if settings is not None else None
    if dynamo is None:
        return default
    if not dynamo.is_map:
        return None
    install = dynamo.get("install")
    if install is not None and install.is_scalar and install.value.lower() == "false":
        model = settings.get("model") if settings is not None else None
        container = model.get("container") if model is not None and model.is_map else None
        image = container.value if container is not None and container.is_scalar else None
        return dynamo_release(image)
    # (srtctl's schema 2 keeps them in `dynamo.source`: `pypi`, `wheel`, `rev`)
    source = dynamo.get("source")
    source = source if source is not None and source.is_map else None
    for holder, key in (
        (dynamo, "version"),
        (dynamo, "wheel"),
        (source, "pypi"),
        (source, "wheel"),
    ):
        value = holder.get(key) if holder is not None else None
        if value is not None and value.is_scalar and re.match(r"\d+\.\d+", value.value):
            return value.value
    tree = dynamo.get("top_of_tree")
    named = (
        any(dynamo.get(k) is not None for k in ("version", "hash", "wheel"))
        or source is not None
        or (tree is not None and not (tree.is_scalar and tree.value.lower() == "false"))
    )
    return None if named else default


# srtctl's schema 2 roles (`roles.<role>.args` holds what `backend.<engine>_config.<mode>` did)
SCHEMA2_ROLES = ("prefill", "decode", "agg")


def engine_configs(root: YNode | None, engine: str) -> list[tuple[str, YNode]]:
    """Every `backend.<engine>_config.<role>` mapping, in the recipe and in its override blocks,
    as (where, mapping): where is the dotted path for messages. In srtctl's schema 2 (h119 M1;
    a document saying `schema: 2`) the engine's flags of a role are `roles.<role>.args`, run by
    the role's own `engine`, else its block's, else (an override block) the base's, else
    SGLang, srtctl's default (h120 F2, M1-M3: srtctl reads nothing beside `base:` but
    `schema`)."""
    if root is None or not root.is_map:
        return []
    found: list[tuple[str, YNode]] = []
    blocks = [("", root)]
    for key, value in root.pairs:
        if (
            key.is_scalar
            and value.is_map
            and (key.value == "base" or key.value.startswith(("override", "zip_override")))
        ):
            blocks.append((key.value + ".", value))
    base = settings_root(root)
    schema2 = schema_version(root) >= 2
    for prefix, block in blocks:
        backend = block.get("backend")
        config = backend.get(f"{engine}_config") if backend is not None and backend.is_map else None
        if config is not None and config.is_map:
            for role in ENGINE_ROLES:
                mapping = config.get(role)
                if mapping is not None and mapping.is_map:
                    found.append((f"{prefix}backend.{engine}_config.{role}", mapping))
        roles = block.get("roles")
        if not schema2 or roles is None or not roles.is_map or (not prefix and base is not root):
            continue
        shared = _named_engine(block) or (_named_engine(base) if block is not base else None)
        for role in SCHEMA2_ROLES:
            spec = roles.get(role)
            args = spec.get("args") if spec is not None and spec.is_map else None
            runs = _named_engine(spec) or shared or "sglang"
            if args is not None and args.is_map and runs == engine:
                found.append((f"{prefix}roles.{role}.args", args))
    return found


def schema_version(root: YNode | None) -> int:
    """The srtctl schema a recipe declares (`schema: 2`); 1 where it declares none."""
    value = root.get("schema") if root is not None and root.is_map else None
    loaded = value.scalar if value is not None and value.is_scalar else None
    return loaded if isinstance(loaded, int) and not isinstance(loaded, bool) else 1


def _named_engine(block: YNode | None) -> str | None:
    """The engine a schema 2 block's (or role's) `engine` names: a name, or a mapping's `type`
    (SGLang where the mapping has none: srtctl's default)."""
    engine = block.get("engine") if block is not None and block.is_map else None
    if engine is None:
        return None
    if engine.is_map:
        kind = engine.get("type")
        return kind.value.strip().lower() if kind is not None and kind.is_scalar else "sglang"
    return engine.value.strip().lower() if engine.is_scalar else None


_WORKSPACE_SCRIPT = profile.RECIPE_SCRIPT_MOUNT


def backend_type(root: YNode | None) -> str | None:
    """The engine a recipe serves with: `backend.type`, or (srtctl's schema 2) `engine`, a
    name or a mapping with a `type`."""
    return _engine_type(settings_root(root))


def _engine_type(block: YNode | None) -> str | None:
    if block is None or not block.is_map:
        return None
    backend = block.get("backend")
    kind = backend.get("type") if backend is not None and backend.is_map else None
    if kind is None:
        return _named_engine(block)
    return kind.value.strip().lower() if kind.is_scalar else None


def benchmark_script(root: YNode | None, types: Container[str]) -> tuple[str, YNode] | None:
    """The repository script a recipe's `benchmark.command` runs (`bash /infmax-workspace/x.sh`:
    srt-slurm mounts this repository at /infmax-workspace), or, in an srt-slurm checkout, the
    script of its `benchmark.type` (`types`: the scripts of the checkout, by path); with the
    value that names it."""
    settings = settings_root(root)
    benchmark = settings.get("benchmark") if settings is not None else None
    if benchmark is None or not benchmark.is_map:
        return None
    command = benchmark.get("command")
    if command is not None and command.is_scalar:
        match = _WORKSPACE_SCRIPT.search(command.value)
        return (match.group(1), command) if match else None
    kind = benchmark.get("type")
    if kind is not None and kind.is_scalar and kind.value:
        path = profile.BENCHMARK_TYPE_SCRIPT.format(type=kind.value)
        return (path, kind) if path in types else None
    return None


@dataclass(frozen=True)
class ScriptRun:
    """A recipe whose `benchmark.command` runs a script of this repository, and what serves
    that script's probes: the frontend's server (None for a frontend type the profile does
    not know) and its release when the recipe's image names it, the worker backends, whether
    vLLM's dev mode is on."""

    recipe: str
    frontend: str | None
    workers: frozenset[str]
    dev_mode: bool
    release: str | None = None
    span: Span | None = None  # of the `benchmark.command` (or `type`) that runs the script


def script_run(
    path: str, root: YNode | None, types: Container[str] = ()
) -> tuple[str, ScriptRun] | None:
    """(the script, how this recipe runs it), or None for a recipe that runs no script."""
    found = benchmark_script(root, types)
    if found is None:
        return None
    script, names = found
    backend = backend_type(root)
    dev = sets_variable(root, "VLLM_SERVER_DEV_MODE", ("1", "true"))
    workers = frozenset({backend} if backend else ())
    server = profile.FRONTEND_SERVERS.get(frontend_type(root))
    release = None
    if server is not None and server in workers:  # the workers serve: their image's release
        image = image_release(container_image(root) or "")
        release = image[1] if image is not None and image[0] == server else None
    return script, ScriptRun(path, server, workers, dev, release, names.span)


def container_image(root: YNode | None) -> str | None:
    """The recipe's `model.container` (the image srtctl runs the workers in)."""
    settings = settings_root(root)
    model = settings.get("model") if settings is not None and settings.is_map else None
    container = model.get("container") if model is not None and model.is_map else None
    return container.value if container is not None and container.is_scalar else None


def sets_variable(root: YNode | None, name: str, values: tuple[str, ...]) -> bool:
    """Whether the recipe sets `name` to one of `values` anywhere (an env block of any role)."""
    if root is None:
        return False
    return any(
        key.is_scalar
        and key.value == name
        and value.is_scalar
        and value.value.strip().lower() in values
        for node in YamlDocument.collections(root)
        for key, value in node.pairs
    )
