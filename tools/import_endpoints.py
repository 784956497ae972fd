"""Build benchlint/data/endpoints.json: the HTTP routes the engine servers and SGLang's router
expose, per release.

Usage: python tools/import_endpoints.py [VLLM_VERSION...]

vLLM: each release's source distribution, downloaded from PyPI (the releases of
data/engine_flags.json unless versions are given); routes are the `@<router>.<method>("/path")`
decorators and `add_api_route("/path", ...)` calls of every module under vllm/entrypoints/. A
route declared inside `if envs.VLLM_SERVER_DEV_MODE:`, in a module whose router is attached only
in development mode (`if not envs.VLLM_SERVER_DEV_MODE: return`), or in a module under
vllm/entrypoints/serve/dev/ (where newer releases keep them), exists only with
VLLM_SERVER_DEV_MODE=1. `/metrics` is mounted by the Prometheus middleware.

SGLang: `@app.<method>("/path")` in sglang/srt/entrypoints/http_server.py (server.py in 0.4.0)
of each wheel tools/import_engine_flags.py downloaded; `/metrics` with --enable-metrics.

sglang-router: every release's sdist from PyPI (0.0.1 shipped a copy of sglang and no router);
routes are the Rust HTTP server's route table in src/**/*.rs (actix-web attributes
`#[get("/health")]` up to 0.1.6, axum `.route("/health", ...)` after). Its metrics are served on
a separate Prometheus port, so `/metrics` is not one of its routes.

vLLM's and SGLang's servers are FastAPI applications, which serve FastAPI's own routes (the
OpenAPI schema and its two documentation pages) unless built without them (vLLM's
`--disable-fastapi-docs`, SGLang's `DISABLE_OPENAPI_DOC=1`): `framework_routes`, FastAPI's
defaults (`FastAPI(openapi_url="/openapi.json", docs_url="/docs", redoc_url="/redoc")`), which
no decorator in their source declares.

Every release is recorded with its routes, its artifact and the artifact's sha256; each server's
`routes` is the union over its releases, used when the release that runs is not known. Metric
families are the prefixes each server's Prometheus names carry.
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import re
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "benchlint" / "data"
OUT = DATA / "endpoints.json"
SCHEMA_VERSION = 3
_METHODS = {"get", "post", "put", "delete", "api_route"}
WHEELS = Path(tempfile.gettempdir()) / "benchlint-sglang-wheels"
SDISTS = Path(tempfile.gettempdir()) / "benchlint-vllm-sdists"
ROUTER_SDISTS = Path(tempfile.gettempdir()) / "benchlint-router-sdists"
# 0.14-0.20: a module whose router is attached only in development mode
# (`def attach_router(app): if not envs.VLLM_SERVER_DEV_MODE: return`)
_DEV_ONLY_ATTACH = re.compile(r"if not envs\.VLLM_SERVER_DEV_MODE:\s*\n\s*return\b")
_SGLANG_SERVERS = ("sglang/srt/entrypoints/http_server.py", "sglang/srt/server.py")
# FastAPI's own routes, served by every FastAPI application by default (fastapi.FastAPI's
# `openapi_url`, `docs_url`, `swagger_ui_oauth2_redirect_url`, `redoc_url`)
_FASTAPI_ROUTES = ["/docs", "/docs/oauth2-redirect", "/openapi.json", "/redoc"]


def _routes(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(routes, routes declared under `if ...VLLM_SERVER_DEV_MODE`)."""
    routes: set[str] = set()
    dev: set[str] = set()

    def visit(node: ast.AST, in_dev: bool) -> None:
        if isinstance(node, ast.If) and "VLLM_SERVER_DEV_MODE" in ast.unparse(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, in_dev)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                if (
                    isinstance(decorator, ast.Call)
                    and isinstance(decorator.func, ast.Attribute)
                    and decorator.func.attr in _METHODS
                    and decorator.args
                    and isinstance(decorator.args[0], ast.Constant)
                ):
                    (dev if in_dev else routes).add(str(decorator.args[0].value))
        for child in ast.iter_child_nodes(node):
            visit(child, in_dev)

    visit(tree, False)
    return routes, dev


def _add_api_routes(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_api_route"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.add(str(node.args[0].value))
    return found


def _download(package: str, filename: str, folder: Path) -> Path:
    """A release file from PyPI's simple index, kept in `folder` for the next run."""
    folder.mkdir(exist_ok=True)
    target = folder / filename
    if not target.exists():
        url = f"https://pypi.org/simple/{package}/"
        index = urllib.request.urlopen(url, timeout=60).read().decode()
        links = dict(
            (name, href.split("#")[0])
            for href, name in re.findall(r'href="([^"]+)"[^>]*>([^<]+)<', index)
        )
        target.write_bytes(urllib.request.urlopen(links[target.name], timeout=600).read())
    return target


def _sources(data: bytes, folder: str, suffix: str) -> Iterator[tuple[str, str]]:
    """(path inside the package, text) of an sdist's files under `folder` ending in `suffix`."""
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            name = member.name.split("/", 1)[-1]
            if not (name.startswith(folder) and name.endswith(suffix)):
                continue
            handle = tar.extractfile(member)
            if handle is not None:
                yield name, handle.read().decode("utf-8", "replace")


def vllm_release(version: str) -> dict[str, object]:
    archive = _download("vllm", f"vllm-{version}.tar.gz", SDISTS)
    data = archive.read_bytes()
    routes: set[str] = set()
    dev: set[str] = set()
    for name, text in _sources(data, "vllm/entrypoints/", ".py"):
        tree = ast.parse(text)
        found, in_dev = _routes(tree)
        found |= _add_api_routes(tree)
        if name.startswith("vllm/entrypoints/serve/dev/") or _DEV_ONLY_ATTACH.search(text):
            dev |= found | in_dev
        else:
            routes |= found
            dev |= in_dev
    return {
        "version": version,
        "source": f"{archive.name} from PyPI",
        "sha256": hashlib.sha256(data).hexdigest(),
        "routes": sorted(routes | {"/metrics"}),
        "dev_mode_routes": sorted(dev - routes),
    }


_RUST_ROUTE = re.compile(
    r'#\[(?:get|post|put|delete)\(\s*"([^"]+)"|\.route\(\s*"([^"]+)"', re.S
)  # actix-web's `#[get("/health")]` (to 0.1.6), axum's `.route("/health", get(...))` (0.1.7-)


def router_versions() -> list[str]:
    """Every sglang-router release on PyPI (all of them publish an sdist)."""
    url = "https://pypi.org/simple/sglang-router/"
    index = urllib.request.urlopen(url, timeout=60).read().decode()
    found = set(re.findall(r"sglang_router-(\d+\.\d+\.\d+(?:\.post\d+)?)\.tar\.gz", index))
    return sorted(found, key=lambda v: tuple(int(p) for p in re.findall(r"\d+", v)))


def router_release(version: str) -> dict[str, object] | None:
    """The routes of one sglang-router release: the route table of its Rust HTTP server
    (src/**/*.rs; tests and benchmarks left out). None for a release with no Rust server
    (0.0.1 shipped a copy of sglang)."""
    archive = _download("sglang-router", f"sglang_router-{version}.tar.gz", ROUTER_SDISTS)
    data = archive.read_bytes()
    routes: set[str] = set()
    for _, text in _sources(data, "src/", ".rs"):
        for actix, axum in _RUST_ROUTE.findall(text):
            routes.add(actix or axum)
    if not routes:
        return None
    return {
        "version": version,
        "source": f"{archive.name} from PyPI",
        "sha256": hashlib.sha256(data).hexdigest(),
        "routes": sorted(routes),
    }


def sglang_release(wheel: Path) -> dict[str, object] | None:
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    # the HTTP server moved from sglang/srt/server.py (0.4.0) to entrypoints/http_server.py
    module = next((m for m in _SGLANG_SERVERS if m in names), None)
    if module is None:
        return None
    match = re.match(r"sglang-([^-]+)-", wheel.name)
    return {
        "version": match.group(1) if match else wheel.name,
        "source": f"{wheel.name} from PyPI: {module}",
        "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
        "routes": sorted(_routes(ast.parse(archive.read(module).decode()))[0] | {"/metrics"}),
    }


def _in_order(releases: list[dict[str, object]]) -> list[dict[str, object]]:
    return sorted(
        releases, key=lambda r: tuple(int(p) for p in re.findall(r"\d+", str(r["version"])))
    )


def main(versions: list[str]) -> None:
    flags = json.loads((DATA / "engine_flags.json").read_text())
    versions = versions or [r["version"] for r in flags["engines"]["vllm"]["releases"]]
    vllm = [vllm_release(v) for v in versions]
    sglang = _in_order(
        [r for r in (sglang_release(w) for w in WHEELS.glob("sglang-*.whl")) if r is not None]
    )
    router = [r for r in (router_release(v) for v in router_versions()) if r is not None]
    union = {r for release in vllm for r in release["routes"]}  # type: ignore[attr-defined]
    dev = {r for release in vllm for r in release["dev_mode_routes"]}  # type: ignore[attr-defined]
    document = {
        "schema_version": SCHEMA_VERSION,
        "generator": "tools/import_endpoints.py",
        "source": {
            "vllm": "vllm " + ", ".join(versions) + " (sdists from PyPI): vllm/entrypoints/",
            "sglang": "sglang "
            + ", ".join(str(r["version"]) for r in sglang)
            + " (wheels from PyPI): sglang/srt/entrypoints/http_server.py",
            "framework": "FastAPI's own routes (vLLM's and SGLang's servers are FastAPI "
            "applications: served unless built without them)",
            "sglang_router": "sglang-router "
            + ", ".join(str(r["version"]) for r in router)
            + " (sdists from PyPI): the route table of src/**/*.rs",
        },
        "servers": {
            "vllm": {
                "routes": sorted(union),
                "dev_mode_routes": sorted(dev - union),
                "framework_routes": _FASTAPI_ROUTES,
                "metric_prefixes": ["vllm:"],
                "releases": vllm,
            },
            "sglang": {
                "routes": sorted({x for r in sglang for x in r["routes"]}),  # type: ignore[attr-defined]
                "framework_routes": _FASTAPI_ROUTES,
                "metric_prefixes": ["sglang:"],
                "releases": sglang,
            },
            "sglang_router": {
                "routes": sorted({x for r in router for x in r["routes"]}),  # type: ignore[attr-defined]
                "metric_prefixes": [],
                "releases": router,
            },
        },
        "metric_prefixes": {
            "dynamo": ["dynamo_frontend_", "dynamo_component_"],
            "trtllm": ["trtllm_"],
        },
    }
    OUT.write_text(json.dumps(document, indent=1) + "\n")
    print(
        f"wrote {OUT}: vLLM {len(union)} routes + {len(dev - union)} dev-mode over "
        f"{len(versions)} releases, SGLang {len(sglang)} releases, "
        f"sglang-router {len(router)} releases"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
