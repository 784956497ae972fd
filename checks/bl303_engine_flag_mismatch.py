"""A flag of one serving engine on another engine's command line or config.

## What it does
Reports, from the flag lists of the released engines (`benchlint/data/engine_flags.json`: vLLM
0.10.0-0.31.0, SGLang 0.5.4-0.5.23):
- on `python -m sglang.launch_server` and in a recipe's `backend.sglang_config.<role>`, a flag only
  vLLM has (`--enable-auto-tool-choice`, `--max-num-seqs`, `--gpu-memory-utilization`);
- on `vllm serve` and in `backend.vllm_config.<role>`, a flag only SGLang has
  (`--mem-fraction-static`, `--max-running-requests`, `--disable-radix-cache`).
The message names the other engine's spelling where there is one.

## Why is this bad?
Both servers use argparse and exit at once on an unknown option: the job fails after the
allocation was granted. Flags copied between recipes of the two engines are the usual cause.

## Example
```yaml path=benchmarks/multi_node/srt-slurm-recipes/sglang/a.yaml
backend:
  type: sglang
  sglang_config:
    decode:
      enable-auto-tool-choice: true
      gpu-memory-utilization: 0.9
```

## Use instead
```yaml path=benchmarks/multi_node/srt-slurm-recipes/sglang/a.yaml
backend:
  type: sglang
  sglang_config:
    decode:
      tool-call-parser: kimi_k2
      mem-fraction-static: 0.9
```

## Exceptions
A flag either engine has, a flag neither list knows (Dynamo's `--dyn-*` flags, options newer
than the listed releases) and an abbreviation the other engine's argparse would accept are not
reported.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources

from benchlint.context import Context
from benchlint.dynamo import flag_name
from benchlint.engines import launches
from benchlint.finding import Finding, Location, Severity
from benchlint.recipe import engine_configs
from benchlint.registry import rule
from benchlint.workspace import path_matches

# The other engine's spelling of the same setting.
EQUIVALENT = {
    "--max-num-seqs": "--max-running-requests",
    "--gpu-memory-utilization": "--mem-fraction-static",
    "--max-num-batched-tokens": "--chunked-prefill-size",
    "--enable-auto-tool-choice": "nothing like it: drop it (--tool-call-parser is enough)",
    "--mem-fraction-static": "--gpu-memory-utilization",
    "--max-running-requests": "--max-num-seqs",
    "--chunked-prefill-size": "--max-num-batched-tokens",
    "--disable-radix-cache": "--no-enable-prefix-caching",
}
ENGINES = {"vllm": "vLLM", "sglang": "SGLang"}


@dataclass(frozen=True)
class EngineFlags:
    flags: dict[str, frozenset[str]]
    source: dict[str, str]

    def foreign(self, engine: str, flag: str) -> str | None:
        """The engine that owns `flag` when `engine` does not accept it, else None."""
        own = self.flags[engine]
        if flag in own or any(f.startswith(flag) for f in own):  # argparse accepts prefixes
            return None
        for other, flags in self.flags.items():
            if other != engine and flag in flags:
                return other
        return None


@functools.lru_cache(maxsize=1)
def engine_flags() -> EngineFlags:
    text = resources.files("benchlint").joinpath("data/engine_flags.json").read_text()
    data = json.loads(text)
    return EngineFlags(
        {"vllm": frozenset(data["vllm"]), "sglang": frozenset(data["sglang"])}, data["source"]
    )


def _message(flag: str, shown: str, engine: str, owner: str, where: str) -> tuple[str, str]:
    """The finding's message and its help (the engine's own spelling, where it has one)."""
    equivalent = EQUIVALENT.get(flag)
    hint = f"{ENGINES[engine]}'s spelling: {equivalent}" if equivalent else ""
    if equivalent and equivalent.startswith("nothing"):
        hint = f"{ENGINES[engine]} has {equivalent}"
    message = (
        f"`{shown}` {where} is a {ENGINES[owner]} flag that {ENGINES[engine]} does not have: "
        "the server exits with `unrecognized arguments`"
    )
    return message, hint


@rule("BL303", "engine-flag-mismatch", Severity.ERROR, tags=("engines",))
def check(ctx: Context) -> Iterator[Finding]:
    data = engine_flags()
    for script in ctx.shell_scripts():
        for launch in launches(script):
            if launch.engine not in ENGINES:
                continue
            engine, command = launch.engine, launch.command
            for arg in launch.flags:
                if not arg.value.startswith("--"):
                    continue
                flag = flag_name(arg.value)
                owner = data.foreign(engine, flag)
                if owner is not None:
                    where = f"on `{command.name}`" if command.name else "here"
                    message, hint = _message(flag, arg.value, engine, owner, where)
                    yield Finding(
                        "BL303",
                        message,
                        Location(script.path, arg.span),
                        subject=flag,
                        help=hint,
                    )
    roots = ctx.ws.recipe_roots
    for path in ctx.in_scope(ctx.ws.yaml_paths):
        if not any(path_matches(path, root, inside=True) for root in roots):
            continue
        document = ctx.ws.yaml(path)
        root_node = document.root if document is not None else None
        for engine in ENGINES:
            for where, mapping in engine_configs(root_node, engine):
                for key, value in mapping.pairs:
                    if not key.is_scalar:
                        continue
                    flag = flag_name(key.value)
                    owner = data.foreign(engine, flag)
                    if owner is None:
                        continue
                    shown = f"{key.value}: {value.value}" if value.is_scalar else key.value
                    message, hint = _message(flag, shown, engine, owner, f"in {where}")
                    yield Finding(
                        "BL303",
                        message,
                        Location(path, key.span),
                        subject=f"{where}.{flag}",
                        help=hint,
                    )
