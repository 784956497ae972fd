"""The HTTP routes and metric families each release of the servers exposes
(`data/endpoints.json`, written by `tools/import_endpoints.py` with each release's provenance):
vLLM's and SGLang's servers and SGLang's router (sglang-router).

A route is matched against a release's route table (`{name}` holds one path segment,
`{name:path}` several). A release between two measured ones has a route both of them have and
lacks a route neither has; otherwise it is not known, as is a release outside the range. The
routes of the server's framework (FastAPI's `/openapi.json`, `/docs`, `/redoc`) every release
has.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass

from benchlint.engine_flags import release_answer, release_history, version_key
from benchlint.profile import data_text

SCHEMA_VERSION = 3
NAMES = {
    "vllm": "vLLM's server",
    "sglang": "SGLang's server",
    "sglang_router": "sglang_router",
    "dynamo": "the Dynamo frontend",
    "trtllm": "trtllm-serve",
}


@functools.lru_cache(maxsize=4096)
def _route_pattern(route: str) -> re.Pattern[str]:
    pattern = re.sub(r"\\\{[^}]*:path\\\}", ".+", re.escape(route))
    return re.compile(re.sub(r"\\\{[^}]*\\\}", "[^/]+", pattern))


def _has(routes: frozenset[str], path: str) -> bool:
    path = path.rstrip("/") or "/"
    return path in routes or any(
        "{" in route and _route_pattern(route).fullmatch(path) for route in routes
    )


@dataclass(frozen=True)
class Release:
    version: str
    routes: frozenset[str]


@dataclass(frozen=True)
class Endpoints:
    routes: dict[str, frozenset[str]]  # server -> the routes of any measured release
    dev_routes: frozenset[str]  # vLLM's, with VLLM_SERVER_DEV_MODE=1
    releases: dict[str, tuple[Release, ...]]  # server -> its measured releases, in order
    prefixes: dict[str, tuple[str, ...]]
    source: dict[str, str]
    # server -> its framework's own routes (FastAPI's `/openapi.json`, `/docs`, `/redoc`),
    # served by every release unless the server is built without them
    framework: dict[str, frozenset[str]]

    def exposes(
        self, server: str, path: str, dev_mode: bool, version: str | None = None
    ) -> bool | None:
        """Whether the server (the release `version`, else any measured release) has this
        route; None when its routes are not known."""
        if server == "vllm" and dev_mode and path in self.dev_routes:
            return True
        if (path.rstrip("/") or "/") in self.framework.get(server, ()):
            return True  # (h135 F4)
        if version is None:
            routes = self.routes.get(server)
            return None if routes is None else _has(routes, path)
        releases = self.releases.get(server, ())
        keys = [version_key(r.version) for r in releases]
        return release_answer(keys, version, lambda i: _has(releases[i].routes, path))

    def history(self, server: str, version: str, path: str) -> str:
        """When the route was there, relative to `version`."""
        having = [r.version for r in self.releases.get(server, ()) if _has(r.routes, path)]
        return release_history(having, version)

    def span(self, server: str) -> str:
        releases = self.releases.get(server, ())
        return f"{releases[0].version}-{releases[-1].version}" if releases else ""


@functools.lru_cache(maxsize=1)
def endpoints() -> Endpoints:
    data = json.loads(data_text("endpoints.json"))
    if data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"data/endpoints.json: schema_version {data.get('schema_version')}")
    servers = data["servers"]
    prefixes = {name: tuple(s["metric_prefixes"]) for name, s in servers.items()}
    prefixes.update({name: tuple(p) for name, p in data["metric_prefixes"].items()})
    return Endpoints(
        {name: frozenset(s["routes"]) for name, s in servers.items()},
        frozenset(servers["vllm"]["dev_mode_routes"]),
        {
            name: tuple(Release(r["version"], frozenset(r["routes"])) for r in s["releases"])
            for name, s in servers.items()
        },
        prefixes,
        data["source"],
        {name: frozenset(s.get("framework_routes", ())) for name, s in servers.items()},
    )
