"""`--data-parallel-hybrid-lb` on several nodes with only the head node's endpoint in use.

## What it does
Reports `--data-parallel-hybrid-lb` in a native multi-node vLLM launch where nothing spreads the
requests over the nodes:
- a `vllm serve` command line (or the argument array it runs) in a script that starts ranks on
  other nodes (`--data-parallel-start-rank`, `--data-parallel-address`,
  `--data-parallel-size-local`, `srun -N 2`...) and runs no router, proxy or Dynamo frontend;
- `data-parallel-hybrid-lb: true` in a `frontend.type: vllm` recipe with more than one node and
  no multiple-frontend load balancing.

## Why is this bad?
With hybrid load balancing every node runs its own API server that only feeds its local ranks.
When the client and the health check talk to the head node alone, the other nodes never see a
request: the "16-GPU" numbers measure 8 GPUs, and nothing fails to say so.

## Example
```bash path=benchmarks/multi_node/serve.sh
vllm serve "$MODEL" --data-parallel-size 16 --data-parallel-size-local 8 \
    --data-parallel-start-rank "$START_RANK" --data-parallel-address "$HEAD" \
    --data-parallel-hybrid-lb --port 8000
```

## Use instead
Internal load balancing: the head node's API server spreads requests over every rank, the other
nodes run `--headless`.
```bash path=benchmarks/multi_node/serve.sh
if [[ "$NODE_RANK" == 0 ]]; then
    vllm serve "$MODEL" --data-parallel-size 16 --data-parallel-size-local 8 \
        --data-parallel-address "$HEAD" --port 8000
else
    vllm serve "$MODEL" --data-parallel-size 16 --data-parallel-size-local 8 \
        --data-parallel-start-rank "$START_RANK" --data-parallel-address "$HEAD" --headless
fi
```

## Exceptions
A script that also runs a router (`*router*`, nginx, envoy, an llm-d endpoint picker) or
`dynamo.frontend` is taken to spread requests over every node's endpoint. Recipes served by a
Dynamo frontend are not reported. Whether the client talks to one endpoint is inferred from the
absence of such a router, not traced through the client's code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from benchlint.context import Context
from benchlint.engines import launches
from benchlint.finding import Finding, Location, Severity, Span
from benchlint.recipe import engine_configs, frontend_type, settings_root
from benchlint.registry import rule
from benchlint.shell.model import Script
from benchlint.workspace import path_matches
from benchlint.yamlmodel import YNode

HYBRID = "--data-parallel-hybrid-lb"
_MULTI_NODE = (
    "--data-parallel-start-rank",
    "--data-parallel-address",
    "--data-parallel-size-local",
)
_ROUTER = re.compile(r"router|nginx|envoy|haproxy|^epp$|dynamo\.frontend|llm-d-inference")


def _runs_vllm_serve(script: Script) -> bool:
    return any(launch.engine == "vllm" for launch in launches(script))


def _multi_node(script: Script) -> bool:
    """Ranks on other nodes: DP start ranks or addresses, or `srun -N 2`."""
    if any(flag in script.text_of(script.root) for flag in _MULTI_NODE):
        return True
    for command in script.all_commands():
        srun = command.invocation.wrapper("srun")
        count = srun.option("-N", "--nodes") if srun is not None else None
        minimum = count.split("-", 1)[0] if count is not None else ""  # `-N 2-4`
        if minimum.isdigit() and int(minimum) > 1:
            return True
    return False


def _has_router(script: Script) -> bool:
    for command in script.all_commands():
        for word in command.words[:4]:
            if word.static and _ROUTER.search(word.value.rsplit("/", 1)[-1]):
                return True
    return False


def _script_findings(script: Script) -> Iterator[Finding]:
    if not _runs_vllm_serve(script) or not _multi_node(script) or _has_router(script):
        return
    seen: set[Span] = set()
    for launch in launches(script):
        if launch.engine != "vllm":
            continue
        for arg in launch.flags:
            if arg.value != HYBRID or arg.span in seen:
                continue
            seen.add(arg.span)
            yield Finding(
                "BL302",
                f"`{HYBRID}` runs an API server on every node, but this multi-node vLLM "
                "launch has no router or Dynamo frontend: requests sent to the head node "
                "reach only its local ranks",
                Location(arg.word.script.file.path, arg.span),
                help="use internal load balancing (drop the flag, `--headless` on ranks above "
                "0) or route to every node's endpoint",
                subject=HYBRID,
            )


def _node_count(settings: YNode | None) -> int:
    if settings is None:
        return 0
    resources = settings.get("resources")
    if resources is None or not resources.is_map:
        return 0
    total = 0
    for key, value in resources.pairs:
        if key.is_scalar and key.value.endswith("_nodes") and isinstance(value.scalar, int):
            total = max(total, value.scalar)
    return total


def _recipe_findings(ctx: Context, path: str) -> Iterator[Finding]:
    document = ctx.ws.yaml(path)
    root = document.root if document is not None else None
    if root is None or frontend_type(root) != "vllm":
        return
    settings = settings_root(root)
    frontend = settings.get("frontend") if settings is not None else None
    spread = frontend.get("enable_multiple_frontends") if frontend is not None else None
    if spread is not None and spread.scalar is True:
        return
    if _node_count(settings) < 2:
        return
    for where, mapping in engine_configs(root, "vllm"):
        for key, value in mapping.pairs:
            if key.is_scalar and key.value.replace("_", "-") == HYBRID[2:] and value.scalar is True:
                yield Finding(
                    "BL302",
                    f"`{key.value}: true` in {where} of a multi-node `frontend.type: vllm` recipe "
                    "with a single frontend: only the head node's ranks get requests",
                    Location(path, key.span),
                    help="drop it for internal load balancing, or enable multiple frontends",
                    subject=f"{where}.{HYBRID}",
                )


@rule(
    "BL302",
    "hybrid-lb-single-endpoint",
    Severity.ERROR,
    tags=("engines", "vllm"),
    precision="medium",
)
def check(ctx: Context) -> Iterator[Finding]:
    for script in ctx.shell_scripts():
        yield from _script_findings(script)
    roots = ctx.ws.recipe_roots
    for path in ctx.in_scope(ctx.ws.yaml_paths):
        if any(path_matches(path, root, inside=True) for root in roots):
            yield from _recipe_findings(ctx, path)
