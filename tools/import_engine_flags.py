"""Build benchlint/data/engine_flags.json: every command-line flag of vLLM and of SGLang.

Usage: python tools/import_engine_flags.py DYNAMO_FLAGS_YAML SGLANG_WHEEL...

vLLM: the engine flags per vLLM release and the OpenAI-frontend flags, from the measured study
(shared/reference/dynamo-worker-flags.yaml, vLLM 0.10.0-0.31.0). SGLang: read statically from
each released wheel's `sglang/srt/server_args.py` and `sglang/srt/arg_groups/*.py` — explicit
`add_argument("--x")` calls, and dataclass fields annotated `A[T, "help"]` / `A[T, Arg(...)]`,
which `add_cli_args_from_dataclass` turns into `--field-name` (or `Arg(cli_name=..., aliases=...)`).
The union over the releases is kept, so a flag is "only vLLM's" when no listed SGLang release
has it, and the reverse.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path

from ruamel.yaml import YAML

OUT = Path(__file__).resolve().parent.parent / "benchlint" / "data" / "engine_flags.json"


def _annotated_flag(item: ast.AnnAssign) -> list[str]:
    ann = item.annotation
    if not isinstance(item.target, ast.Name) or not isinstance(ann, ast.Subscript):
        return []
    head = ann.value
    name = head.id if isinstance(head, ast.Name) else getattr(head, "attr", "")
    if name not in ("A", "Annotated") or not isinstance(ann.slice, ast.Tuple):
        return []
    meta = ann.slice.elts[1] if len(ann.slice.elts) > 1 else None
    cli: str | None = None
    aliases: list[str] = []
    if isinstance(meta, ast.Call):
        for keyword in meta.keywords:
            value = keyword.value
            if keyword.arg == "no_cli" and isinstance(value, ast.Constant) and value.value:
                return []
            if keyword.arg == "cli_name" and isinstance(value, ast.Constant):
                cli = str(value.value)
            if keyword.arg == "aliases" and isinstance(value, (ast.List, ast.Tuple)):
                aliases = [str(e.value) for e in value.elts if isinstance(e, ast.Constant)]
    elif not (isinstance(meta, ast.Constant) and isinstance(meta.value, str)):
        return []
    return [cli or "--" + item.target.id.replace("_", "-"), *aliases]


def sglang_flags(wheel: Path) -> set[str]:
    archive = zipfile.ZipFile(wheel)
    names = [
        n
        for n in archive.namelist()
        if n == "sglang/srt/server_args.py"
        or (n.startswith("sglang/srt/arg_groups/") and n.endswith(".py"))
    ]
    flags: set[str] = set()
    for name in names:
        tree = ast.parse(archive.read(name).decode())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and str(arg.value).startswith("--"):
                        flags.add(str(arg.value))
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign):
                        flags.update(f for f in _annotated_flag(item) if f.startswith("--"))
    return flags


def main(study: Path, wheels: list[Path]) -> None:
    data = YAML(typ="safe").load(study.read_text())
    vllm: set[str] = set()
    for flags in data["vllm_engine_flags_by_vllm_version"].values():
        vllm.update(f for f in flags if f.startswith("--"))
    for release in data["per_release"].values():
        vllm.update(f for f in release["rejected_vllm_frontend_flags"] if f.startswith("--"))
    for entry in data["flags"]:
        names = entry["name"] if isinstance(entry["name"], list) else [entry["name"]]
        if str(entry.get("owner", "")).startswith("vllm"):
            vllm.update(n for n in names if n.startswith("--"))
    sglang: set[str] = set()
    versions = []
    for wheel in wheels:
        sglang |= sglang_flags(wheel)
        match = re.match(r"sglang-([^-]+)-", wheel.name)
        versions.append(match.group(1) if match else wheel.name)
    document = {
        "source": {
            "vllm": "engine and OpenAI-frontend flags of vLLM "
            + ", ".join(data["vllm_engine_flags_by_vllm_version"])
            + " (shared/reference/dynamo-worker-flags.yaml, read from the released wheels)",
            "sglang": "flags of the released sglang wheels "
            + ", ".join(versions)
            + " (server_args.py and arg_groups, read statically)",
        },
        "vllm": sorted(vllm),
        "sglang": sorted(sglang),
    }
    OUT.write_text(json.dumps(document, indent=0) + "\n")
    print(f"wrote {OUT}: {len(vllm)} vLLM flags, {len(sglang)} SGLang flags")


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
