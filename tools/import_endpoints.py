"""Build benchlint/data/endpoints.json: the HTTP routes the Python engine servers expose.

Usage: python tools/import_endpoints.py VLLM_WHEEL SGLANG_WHEEL...

vLLM: `@router.<method>("/path")` in vllm/entrypoints/openai/api_server.py; routes declared inside
`if envs.VLLM_SERVER_DEV_MODE:` exist only with VLLM_SERVER_DEV_MODE=1. `/metrics` is mounted by
the Prometheus middleware. SGLang: `@app.<method>("/path")` in
sglang/srt/entrypoints/http_server.py, union over the wheels given; `/metrics` with
--enable-metrics. Metric families are the prefixes each server's Prometheus names carry.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "benchlint" / "data" / "endpoints.json"
_METHODS = {"get", "post", "put", "delete", "api_route"}


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


def main(vllm_wheel: Path, sglang_wheels: list[Path]) -> None:
    archive = zipfile.ZipFile(vllm_wheel)
    tree = ast.parse(archive.read("vllm/entrypoints/openai/api_server.py").decode())
    vllm_routes, vllm_dev = _routes(tree)
    sglang_routes: set[str] = set()
    versions = []
    for wheel in sglang_wheels:
        source = zipfile.ZipFile(wheel).read("sglang/srt/entrypoints/http_server.py").decode()
        sglang_routes |= _routes(ast.parse(source))[0]
        match = re.match(r"sglang-([^-]+)-", wheel.name)
        versions.append(match.group(1) if match else wheel.name)
    vllm_version = re.match(r"vllm-([^-]+)-", vllm_wheel.name)
    document = {
        "source": {
            "vllm": f"vllm {vllm_version.group(1) if vllm_version else '?'} "
            "vllm/entrypoints/openai/api_server.py route decorators",
            "sglang": "sglang " + ", ".join(versions) + " sglang/srt/entrypoints/http_server.py",
        },
        "servers": {
            "vllm": {
                "routes": sorted(vllm_routes | {"/metrics"}),
                "dev_mode_routes": sorted(vllm_dev - vllm_routes),
                "metric_prefixes": ["vllm:"],
            },
            "sglang": {
                "routes": sorted(sglang_routes | {"/metrics"}),
                "metric_prefixes": ["sglang:"],
            },
        },
        "metric_prefixes": {
            "dynamo": ["dynamo_frontend_", "dynamo_component_"],
            "trtllm": ["trtllm_"],
        },
    }
    OUT.write_text(json.dumps(document, indent=1) + "\n")
    print(
        f"wrote {OUT}: vLLM {len(vllm_routes)} routes + {len(vllm_dev)} dev-mode, "
        f"SGLang {len(sglang_routes)} routes"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
