"""`[tool.benchlint]` in pyproject.toml, or `.benchlint.toml`: discovery and validation.

The directory holding the configuration is the repository root; without one, the nearest
directory with `.git`; without that, the first path named (or the folder of a named file).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlint.finding import Severity
from benchlint.lazyre import lazy_compile


class ConfigError(Exception):
    """A configuration problem, reported as one line and exit code 2."""


@dataclass
class Layout:
    """Where an InferenceX-style repository keeps each kind of file (globs are root-relative)."""

    launchers: list[str] = field(default_factory=lambda: ["runners/launch_*.sh"])
    # The workflow templates the master configs drive (ad-hoc dispatch workflows are not routes).
    workflows: list[str] = field(
        default_factory=lambda: [".github/workflows/*-tmpl.yml", ".github/workflows/*-tmpl.yaml"]
    )
    master_configs: list[str] = field(default_factory=lambda: ["configs/*-master.yaml"])
    runners_file: str = "configs/runners.yaml"
    recipe_roots: list[str] = field(
        default_factory=lambda: [
            "benchmarks/multi_node/srt-slurm-recipes",
            "benchmarks/multi_node/llm-d-recipes",
        ]
    )
    # Scripts that start engines with variables their caller provides (BL104).
    entrypoints: list[str] = field(default_factory=lambda: ["benchmarks/**/*.sh"])
    # How the workflow builds a launcher's path from the runner's name (as written there; the
    # expansions of RUNNER_NAME are evaluated, any other is a wildcard). Detected, not set.
    launcher_templates: list[str] = field(
        default_factory=lambda: ["runners/launch_${RUNNER_NAME%%_*}.sh"]
    )


@dataclass
class Config:
    path: Path | None = None
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    fail_on: Severity = Severity.WARNING
    exclude: list[str] = field(default_factory=list)
    # Variables the caller's environment always holds, beyond the built-in list.
    known_env: list[str] = field(default_factory=list)
    dynamo_version: str | None = None
    # The release of each engine the repository's own scripts run where nothing it holds says
    # (no entry's image names one: `{"vllm": "0.26.0"}`; BL303)
    engine_releases: dict[str, str] = field(default_factory=dict)
    unsafe_fixes: bool = False  # `--fix` and `--diff` apply the unsafe fixes too
    # A file larger than this (bytes; 0: no limit) is not linted, and the run says so: an
    # install bundle or CRD generated into the repository, megabytes of YAML or a script with
    # manifests in heredocs, costs more to model than the rest of it. A master config is read
    # whatever its size (the wiring starts there).
    max_file_size: int = 1 << 20
    layout: Layout = field(default_factory=Layout)
    layout_keys: set[str] = field(default_factory=set)  # the layout settings given (not detected)


_LIST_KEYS = {"select", "ignore", "exclude", "known-env"}
_LAYOUT_KEYS = {
    "launchers": list,
    "workflows": list,
    "master-configs": list,
    "runners-file": str,
    "recipe-roots": list,
    "entrypoints": list,
}


def find_config(start: Path) -> Path | None:
    directory = start if start.is_dir() else start.parent
    for candidate in (directory, *directory.parents):
        dotfile = candidate / ".benchlint.toml"
        if dotfile.is_file():
            return dotfile
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file() and _has_tool_table(pyproject):
            return pyproject
    return None


def find_root(start: Path, config_path: Path | None) -> Path:
    """The repository around `start`: the configuration file's folder, the nearest folder with
    `.git`, else the nearest with `.github/workflows` (a checkout without its history: a `git
    archive`, a release tarball), else `start`'s own folder."""
    if config_path is not None:
        return config_path.parent.resolve()
    directory = (start if start.is_dir() else start.parent).resolve()
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    for candidate in (directory, *directory.parents):
        if (candidate / WORKFLOWS).is_dir():
            return candidate
    return directory


WORKFLOWS = ".github/workflows"


def is_repository(root: Path) -> bool:
    """Whether `root` is a repository's top folder: it has `.git` or `.github/workflows`."""
    return (root / ".git").exists() or (root / WORKFLOWS).is_dir()


def _has_tool_table(path: Path) -> bool:
    """Whether a pyproject.toml met on the way up configures benchlint; one that is not valid
    TOML is an error (whether it holds a `[tool.benchlint]` table cannot be known)."""
    tool = _read_toml(path).get("tool", {})
    return isinstance(tool, dict) and "benchlint" in tool


def _read_toml(path: Path) -> dict[str, Any]:
    # imported here: most repositories have no TOML for benchlint to read
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: is not UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    return data


def load_config(path: Path) -> Config:
    data: Any = _read_toml(path)
    tool = data.get("tool", {})
    if path.name == "pyproject.toml" or (isinstance(tool, dict) and "benchlint" in tool):
        if not isinstance(tool, dict):
            raise ConfigError(f"{path}: `tool` must be a table")
        data = tool.get("benchlint", {})
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: `tool.benchlint` must be a table ([tool.benchlint])")
    return parse_config(data, path)


def parse_config(data: dict[str, Any], path: Path | None) -> Config:
    config = Config(path=path)
    where = str(path) if path else "configuration"
    for key, value in data.items():
        if key in _LIST_KEYS:
            setattr(config, key.replace("-", "_"), _string_list(value, key, where))
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: per-file-ignores must be a table of glob = [rule IDs]")
            config.per_file_ignores = {
                str(glob): _string_list(rules, f"per-file-ignores.{glob}", where)
                for glob, rules in value.items()
            }
        elif key == "fail-on":
            config.fail_on = parse_severity(value, where)
        elif key == "dynamo-version":
            if not isinstance(value, str):
                raise ConfigError(f"{where}: dynamo-version must be a string")
            config.dynamo_version = value
        elif key == "engine-releases":
            config.engine_releases = _engine_releases(value, where)
        elif key == "unsafe-fixes":
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: unsafe-fixes must be true or false")
            config.unsafe_fixes = value
        elif key == "max-file-size":
            config.max_file_size = parse_size(value, f"{where}: max-file-size")
        elif key == "layout":
            config.layout = _layout(value, where)
            config.layout_keys = set(value)
        else:
            raise ConfigError(f"{where}: unknown key {key!r}")
    return config


def _engine_releases(value: Any, where: str) -> dict[str, str]:
    from benchlint.engine_flags import ENGINES

    if not isinstance(value, dict):
        raise ConfigError(f'{where}: engine-releases must be a table (engine = "release")')
    for engine, release in value.items():
        if engine not in ENGINES:
            known = ", ".join(sorted(ENGINES))
            raise ConfigError(f"{where}: engine-releases: unknown engine {engine!r} ({known})")
        if not isinstance(release, str) or not _RELEASE.fullmatch(release):
            raise ConfigError(
                f'{where}: engine-releases.{engine} must be a release like "0.26.0", '
                f"not {release!r}"
            )
    return dict(value)


_RELEASE = lazy_compile(r"\d+\.\d+\.\d+(?:\.\d+)?(?:\.post\d+)?")  # (`0.10.1.1` too)


def parse_severity(value: Any, where: str) -> Severity:
    try:
        return Severity(value)
    except ValueError:
        raise ConfigError(
            f"{where}: fail-on must be error, warning or note, not {value!r}"
        ) from None


_SIZE = lazy_compile(r"(\d+(?:\.\d+)?)\s*(|B|KB|MB|KiB|MiB|K|M)", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "kb": 1000, "mb": 1000**2, "k": 1024, "kib": 1024, "m": 1 << 20}
_UNITS["mib"] = 1 << 20


def parse_size(value: Any, what: str) -> int:
    """A size in bytes: a whole number, or a number and a unit (`500KB`, `1.5MB`: powers of
    1000; `512KiB`, `2MiB`, `2M`: powers of 1024)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    found = _SIZE.fullmatch(value.strip()) if isinstance(value, str) else None
    if found is None:
        raise ConfigError(
            f"{what} must be a size in bytes (0: no limit), or with a unit: 500KB, 2MiB; "
            f"not {value!r}"
        )
    return int(float(found.group(1)) * _UNITS[found.group(2).lower()])


def _layout(value: Any, where: str) -> Layout:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: layout must be a table")
    layout = Layout()
    for key, item in value.items():
        expected = _LAYOUT_KEYS.get(key)
        if expected is None:
            raise ConfigError(f"{where}: unknown key 'layout.{key}'")
        if expected is list:
            item = _string_list(item, f"layout.{key}", where)
        elif not isinstance(item, str):
            raise ConfigError(f"{where}: layout.{key} must be a string")
        setattr(layout, key.replace("-", "_"), item)
    return layout


def _string_list(value: Any, key: str, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key} must be a list of strings")
    return list(value)
