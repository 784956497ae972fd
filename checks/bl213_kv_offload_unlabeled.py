"""A job whose recipe offloads the KV cache to host memory, labelled as one that does not.

## What it does
Follows each master-config search-space element of the agentic scenario (the only one whose
schema has the field) to the recipe its jobs run (its `CONFIG_FILE`, as the launcher leaves it
after its rewrites, read as PyYAML loads it: merged keys, the last of a key written twice) and
reports the element when its `kv-offloading` says `none` (or it leaves the field out, which the
sweep generator reads as `none`) while the recipe turns on offloading of the KV cache to host
memory in an engine's config under `backend` (srtctl's schema 2: under `engine` or a role's
`args`): TensorRT-LLM's `kv_cache_config.host_cache_size`
above 0, SGLang's `enable-hierarchical-cache: true`, vLLM's `kv-offloading-size` above 0 or a
`kv-transfer-config` (a mapping or its JSON text) whose connector is vLLM's CPU offload connector
(`OffloadingConnector`, `SimpleCPUOffloadConnector`), itself or among a `MultiConnector`'s. The
related locations are the recipe's setting and the element's `CONFIG_FILE`.

## Why is this bad?
The results are published as those of a configuration without KV offload: the sweep generator
names them from the element's fields (a `_kvdram-...` part only where `kv-offloading` is not
`none`), so a run that kept part of its cache in host memory is compared with, and stands in
for, runs that did not. Nothing fails; the mistake shows only in the published numbers.
InferenceX fixed such labels for its DeepSeek-V4 TensorRT-LLM agentic entries.

## Example
```yaml path=configs/nvidia-master.yaml
dsv4-fp4-gb300-dynamo-trt-agentic:
  runner: gb300
  multinode: true
  scenarios:
    agentic-coding:
    - search-space:
      - conc-list: [44]
        prefill:
          additional-settings:
          - CONFIG_FILE=benchmarks/multi_node/srt-slurm-recipes/trtllm/offload.yaml
```
```yaml path=configs/runners.yaml
labels:
  gb300: [gb300-nv_0]
```
```bash path=runners/launch_gb300-nv.sh
srtctl apply -f "$CONFIG_FILE"
```
```yaml path=benchmarks/multi_node/srt-slurm-recipes/trtllm/offload.yaml
backend:
  trtllm_config:
    prefill:
      kv_cache_config:
        host_cache_size: 137438953472
```

## Use instead
```yaml path=configs/nvidia-master.yaml
dsv4-fp4-gb300-dynamo-trt-agentic:
  runner: gb300
  multinode: true
  scenarios:
    agentic-coding:
    - search-space:
      - conc-list: [44]
        kv-offloading: dram
        kv-offload-backend: {name: native, version: "1.3.0rc24"}
        prefill:
          additional-settings:
          - CONFIG_FILE=benchmarks/multi_node/srt-slurm-recipes/trtllm/offload.yaml
```
```yaml path=configs/runners.yaml
labels:
  gb300: [gb300-nv_0]
```
```bash path=runners/launch_gb300-nv.sh
srtctl apply -f "$CONFIG_FILE"
```
```yaml path=benchmarks/multi_node/srt-slurm-recipes/trtllm/offload.yaml
backend:
  trtllm_config:
    prefill:
      kv_cache_config:
        host_cache_size: 137438953472
```

## Exceptions
Only this direction is read: an element labelled `dram` whose recipe shows none of these
settings may offload another way (Dynamo's KV block manager, a Mooncake or LMCache connector),
so it is not reported. Not read: a recipe of srtctl's override form (`base:` with override
sections; counted, not checked), a value that is not a plain number or YAML boolean, the
recipe of an evaluation-only run (`EVAL_CONFIG_FILE`), and recipes outside this repository.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from benchlint import profile
from benchlint.context import Context
from benchlint.finding import FILE_START, Finding, Location, Severity
from benchlint.registry import rule
from benchlint.yamlmodel import YamlDocument, YNode

_LABEL = profile.KV_OFFLOAD_LABEL
OVERRIDE_FORM = (
    "recipes of srtctl's override form (`base:` with override sections) not checked for KV "
    "offload against their elements' `kv-offloading` (BL213: which sections a job applies "
    "decides it)"
)


@rule("BL213", "kv-offload-unlabeled", Severity.WARNING, tags=("wiring", "recipes"))
def check(ctx: Context) -> Iterator[Finding]:
    wiring = ctx.wiring
    done: set[int] = set()  # (one finding per element)
    for route in ctx.routes():
        element = route.element
        label = element.fields.get(_LABEL["field"], _LABEL["default"])
        if id(element) in done or label.strip("'\"").lower() != _LABEL["off"]:
            continue
        if element.scenario != profile.AGENTIC_SCENARIO:
            continue  # (the generator reads the field in agentic scenarios only, h106 F4)
        recipe = wiring.recipe(route)
        if recipe is None or recipe.status != "local" or recipe.path is None:
            continue
        original = ctx.ws.yaml(recipe.path)
        effective = wiring.effective(route, recipe)
        document = effective.document if effective is not None else original
        if document is None or document.root is None or not document.root.is_map:
            continue
        if document.root.get("base") is not None:
            if _offload(document.root, ()) is not None:  # (in a section a job may not apply)
                ctx.count(OVERRIDE_FORM, Location(recipe.path, FILE_START))
            continue
        root = document.root  # (srtctl's schema 2: `engine` and `roles.<role>.args` too)
        found = next(
            (f for k in ("backend", "engine", "roles") if (f := _offload(root.get(k), (k,)))),
            None,
        )
        if found is None or not ctx.route_in_scope(recipe.path, element.location.path):
            continue
        done.add(id(element))
        path, node, engine = found
        where = _located(original, path) if original is not None else None
        at = Location(recipe.path, where.span if where is not None else FILE_START)
        written = f"{'.'.join(path)}: {node.value}"
        shown = (
            f"not set (the sweep generator reads `{_LABEL['default']}`)"
            if _LABEL["field"] not in element.fields
            else f"`{label}`"
        )
        yield Finding(
            "BL213",
            f"`{_LABEL['field']}` of {element.entry.name} [{element.label}] is {shown}, but "
            f"the recipe its jobs run, {recipe.path}, offloads the KV "
            f"cache to host memory ({engine}: `{written}`): the results are published as those "
            "of a run without KV offload",
            Location(element.location.path, element.location.span.start),
            related=(at, recipe.setting.location),
            subject=f"{element.entry.name}:{element.label}",
            help=f"set `{_LABEL['field']}: dram` (and `kv-offload-backend`) on the element, or "
            "take the offload out of the recipe",
        )


def _offload(
    node: YNode | None, path: tuple[str, ...]
) -> tuple[tuple[str, ...], YNode, str] | None:
    """The first setting under `backend` that turns on KV offload to host memory: its path, its
    value's node and the engine's name."""
    if node is None or not node.is_map:
        return None
    for key, value in node.loaded_pairs():  # (as PyYAML loads it: h106 F6)
        if not key.is_scalar:
            continue
        name = key.value
        here = (*path, name)
        for setting in profile.RECIPE_KV_OFFLOAD:
            under = not setting["under"] or (path and _same(path[-1], setting["under"]))
            if _same(name, setting["key"]) and under and _turns_on(value, setting["on"]):
                return here, value, setting["engine"]
        found = _offload(value, here)
        if found is not None:
            return found
    return None


def _same(key: str, name: str) -> bool:
    return key.replace("_", "-") == name.replace("_", "-")


def _turns_on(value: YNode, on: str) -> bool:
    if on == "offloading-connector":
        return _offloading_connector(value)
    loaded = value.scalar  # (as PyYAML reads it: `yes`, `0x40000000`, `1_000`; quoted: text)
    if on == "true":
        return loaded is True
    return isinstance(loaded, (int, float)) and not isinstance(loaded, bool) and loaded > 0


def _offloading_connector(value: YNode) -> bool:
    """A vLLM `kv-transfer-config` (a mapping, or its JSON text) whose connector is vLLM's CPU
    offload connector, itself or among a `MultiConnector`'s (h128 M10, h135 M10)."""
    if value.is_map:
        config: object = _plain(value)
    elif value.is_scalar and isinstance(value.scalar, str) and "Offload" in value.scalar:
        try:
            config = json.loads(value.scalar)
        except ValueError:
            return False
    else:
        return False
    if not isinstance(config, dict):
        return False
    if config.get("kv_connector") in _CPU_OFFLOAD_CONNECTORS:
        return True
    extra = config.get("kv_connector_extra_config")
    connectors = extra.get("connectors") if isinstance(extra, dict) else None
    return (
        config.get("kv_connector") == "MultiConnector"
        and isinstance(connectors, list)
        and any(
            isinstance(c, dict) and c.get("kv_connector") in _CPU_OFFLOAD_CONNECTORS
            for c in connectors
        )
    )


def _plain(node: YNode, depth: int = 0) -> object:
    """The node as PyYAML loads it, a few levels deep (mappings, lists, scalars)."""
    if depth > 4:
        return None
    if node.is_map:
        return {k.value: _plain(v, depth + 1) for k, v in node.loaded_pairs() if k.is_scalar}
    if node.is_seq:
        return [_plain(item, depth + 1) for item in node.items]
    return node.scalar


_CPU_OFFLOAD_CONNECTORS = frozenset({"OffloadingConnector", "SimpleCPUOffloadConnector"})


def _located(document: YamlDocument, path: tuple[str, ...]) -> YNode | None:
    """The key at that path in the recipe as written (the one PyYAML keeps; None for one a
    merge gives)."""
    node = document.root
    key: YNode | None = None
    for name in path:
        if node is None or not node.is_map:
            return None
        key, node = node.key_node(name), node.get(name)
    return key
