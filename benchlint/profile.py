"""The InferenceX / srt-slurm profile: facts about how these repositories run their files that
no linted file states (which entry field becomes which variable, srtctl's defaults, where the
checkout is mounted, servers' default ports, ...), read from `data/profile.json`, where each
fact names the file and commit or release it was learnt from."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from benchlint.lazyre import lazy_compile

SCHEMA_VERSION = 1

_DATA = Path(__file__).parent / "data"


def data_text(name: str) -> str:
    """A file of `benchlint/data/`, read where the package installs it (package data)."""
    return (_DATA / name).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def _facts() -> dict[str, Any]:
    data = json.loads(data_text("profile.json"))
    if data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"data/profile.json: schema_version {data.get('schema_version')}")
    return {name: fact["value"] for name, fact in data["facts"].items()}


def fact(name: str) -> Any:
    return _facts()[name]


ENTRY_ENVIRONMENT: dict[str, str] = fact("entry_environment")
ELEMENT_ENVIRONMENT: dict[str, dict[str, str]] = fact("element_environment")
WORKFLOW_INPUTS: dict[str, str] = fact("workflow_inputs")
SWEEP_TYPED_FIELDS: dict[bool, frozenset[str]] = {  # (by multinode)
    multinode: frozenset(fact("sweep_typed_fields")["multinode" if multinode else "single-node"])
    for multinode in (False, True)
}
AGENTIC_SCENARIO: str = fact("agentic_scenario")
EXP_NAME_PREFIX: str = fact("exp_name_prefix")
BENCHMARK_MODE: dict[str, str] = fact("benchmark_mode")
HEALTH_CHECK_DEFAULTS: dict[str, int] = fact("health_check_defaults")
SITE_HEALTH_CHECK_KEY: str = fact("site_health_check_key")
SRTCTL_DIRECTORY_APPLY: dict[str, str] = fact("srtctl_directory_apply")
WORKFLOW_OWNED: frozenset[str] = frozenset(fact("workflow_owned"))
WORKSPACE_MOUNTS: tuple[str, ...] = tuple(fact("workspace_mounts"))
WORKSPACE_VARIABLES: frozenset[str] = frozenset(fact("workspace_variables"))
RECIPE_SCRIPT_MOUNT: re.Pattern[str] = lazy_compile(fact("recipe_script_mount"))
SCRIPT_RUN_MARKER: str = fact("script_run_marker")
BENCHMARK_TYPE_SCRIPT: str = fact("benchmark_type_script")
VALIDATORS: frozenset[str] = frozenset(fact("validators"))
DEFAULT_PORTS: dict[str, str] = fact("default_ports")
FRONTEND_SERVERS: dict[str, str] = fact("frontend_servers")
WORKFLOW_LAUNCH: re.Pattern[str] = lazy_compile(fact("workflow_launch_pattern"))
KV_OFFLOAD_LABEL: dict[str, str] = fact("kv_offload_label")
RECIPE_KV_OFFLOAD: list[dict[str, str]] = fact("recipe_kv_offload")
SRT_SLURM_RECIPE_FOLDERS: tuple[str, ...] = tuple(fact("srt_slurm_recipe_folders"))
SRT_SLURM_ENGINE_FOLDERS: tuple[str, ...] = tuple(fact("srt_slurm_engine_folders"))
VENV_ACTIVATE: dict[str, list[str]] = fact("venv_activate")
PATH_ENV_FILES: dict[str, list[str]] = fact("path_env_files")
_NAMING: str = fact("launcher_naming")
if _NAMING != "prefix-before-underscore":
    raise ValueError(f"data/profile.json: unknown launcher_naming {_NAMING!r}")


def launcher_prefix(runner_name: str) -> str:
    """What the first `*` of a configured launcher pattern stands for, for a runner name (the
    profile's launcher_naming: the name up to its first `_`, as `${RUNNER_NAME%%_*}`)."""
    return runner_name.split("_", 1)[0]
