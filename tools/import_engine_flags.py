"""Build benchlint/data/engine_flags.json: the command-line flags of vLLM and SGLang, per release.

Usage: python tools/import_engine_flags.py DYNAMO_FLAGS_YAML [SGLANG_VERSION...]

vLLM: per release, the engine flags and the OpenAI-frontend flags from the measured study of the
released wheels (DYNAMO_FLAGS_YAML: `vllm_engine_flags_by_vllm_version`, and the frontend flags
of each release from the Dynamo releases pinned to it), vLLM 0.10.0-0.31.0. The frontend flags
the study names and no release's list holds are looked up in each release's source: its sdist,
downloaded from PyPI (sha256 recorded), where `vllm/entrypoints/` defines the flag (a `"--flag"`
string, or a field `flag_name:` of a class whose name ends in `Args`, which vLLM's frontend
turns into `--flag-name`). One found in a run of consecutive releases only (added, or removed)
is accepted by those; one found in none, or scattered, counts for every release (never
reported), unless the study says it was removed (`--enable-reasoning`, gone since 0.10.0).
SGLang: each release's wheel, downloaded from PyPI with `pip download --no-deps` (the default
versions below, or those given), its sha256 recorded, and its flags read statically from
`sglang/srt/server_args.py` and `sglang/srt/arg_groups/*.py`: explicit `add_argument("--x")`
calls, and dataclass fields annotated `A[T, "help"]` / `A[T, Arg(...)]`, which
`add_cli_args_from_dataclass` turns into `--field-name` (or `Arg(cli_name=..., aliases=...)`);
not a flag registered with an action class whose `__call__` always raises (`DeprecatedAction`
of 0.5.3 to 0.5.9: parsed, then the server stops with its message).

Output (schema_version 2): per engine, the releases in version order, each with its version and
provenance, and per flag the index ranges of the releases that accept it.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from ruamel.yaml import YAML

OUT = Path(__file__).resolve().parent.parent / "benchlint" / "data" / "engine_flags.json"
SCHEMA_VERSION = 2
# The SGLang releases InferenceX's images have used, and every release between them.
SGLANG_VERSIONS = [f"0.4.{n}" for n in range(11)] + [f"0.5.{n}" for n in range(1, 24)]


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
    trees = [ast.parse(archive.read(name).decode()) for name in names]
    raising = {c for tree in trees for c in _raising_actions(tree)}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
                action = next((k.value for k in node.keywords if k.arg == "action"), None)
                if isinstance(action, ast.Name) and action.id in raising:
                    continue  # (registered, but given it the server stops: not accepted)
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and str(arg.value).startswith("--"):
                        flags.add(str(arg.value))
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign):
                        flags.update(f for f in _annotated_flag(item) if f.startswith("--"))
    return flags


def _raising_actions(tree: ast.Module) -> set[str]:
    """The argparse action classes a module defines whose `__call__` always raises (SGLang
    0.5.3-0.5.9's `DeprecatedAction`: `raise ValueError(self.help)`): a flag registered with one
    is parsed, and stops the server at once, so no release that does so accepts it."""
    found = set()
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if (
                isinstance(item, ast.FunctionDef)
                and item.name == "__call__"
                and any(isinstance(statement, ast.Raise) for statement in item.body)
            ):
                found.add(node.name)
    return found


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version.split("+")[0])[:4])


def _ranges(indexes: list[int]) -> list[list[int]]:
    """Sorted release indexes as [first, last] runs."""
    runs: list[list[int]] = []
    for i in indexes:
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return runs


def _engine(releases: list[dict[str, str]], flags: list[set[str]]) -> dict[str, object]:
    names = sorted(set().union(*flags))
    return {
        "releases": releases,
        "flags": {n: _ranges([i for i, f in enumerate(flags) if n in f]) for n in names},
    }


def _vllm_sdist(version: str, folder: Path) -> Path:
    """The release's source distribution from PyPI (downloaded once into `folder`), checked
    against the hash the index gives (pip would build it to read its metadata: vLLM's build
    needs torch)."""
    sdist = folder / f"vllm-{version}.tar.gz"
    if not sdist.exists():
        request = urllib.request.Request(
            "https://pypi.org/simple/vllm/",
            headers={"Accept": "application/vnd.pypi.simple.v1+json"},
        )
        with urllib.request.urlopen(request) as response:
            files = json.load(response)["files"]
        (entry,) = [f for f in files if f["filename"] == sdist.name]
        with urllib.request.urlopen(entry["url"]) as response:
            data = response.read()
        if hashlib.sha256(data).hexdigest() != entry["hashes"]["sha256"]:
            raise SystemExit(f"{sdist.name}: the download does not match the index's sha256")
        sdist.write_bytes(data)
    return sdist


def vllm_defined(sdist: Path, wanted: set[str]) -> set[str]:
    """Which of the wanted flags the release's `vllm/entrypoints/` defines: a `"--flag"` string,
    or a field `flag_name:` of a class whose name ends in `Args` (the frontend's dataclasses,
    each field a `--flag-name`)."""
    found: set[str] = set()
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            parts = member.name.split("/")
            if not (member.isfile() and parts[1:3] == ["vllm", "entrypoints"]):
                continue
            if not member.name.endswith(".py"):
                continue
            handle = archive.extractfile(member)
            if handle is None:
                continue
            tree = ast.parse(handle.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and node.value in wanted:
                    found.add(str(node.value))
                elif isinstance(node, ast.ClassDef) and node.name.endswith("Args"):
                    for item in node.body:
                        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                            flag = "--" + item.target.id.replace("_", "-")
                            if flag in wanted:
                                found.add(flag)
    return found


def vllm_releases(study: Path, folder: Path) -> tuple[list[dict[str, str]], list[set[str]]]:
    data = YAML(typ="safe").load(study.read_text())
    listed = {f for flags in data["vllm_engine_flags_by_vllm_version"].values() for f in flags}
    everywhere: set[str] = set()
    for entry in data["flags"]:
        names = entry["name"] if isinstance(entry["name"], list) else [entry["name"]]
        owner = str(entry.get("owner", ""))
        if owner.startswith("vllm") and "removed" not in owner:
            # (a flag some release's list names is in the lists it belongs in, and no other:
            # `--disable-log-requests`, vLLM 0.10.0-0.16.0)
            everywhere.update(n for n in names if n.startswith("-") and n not in listed)
    pins = data["meta"]["vllm_pin_per_dynamo_release"]
    versions = sorted(data["vllm_engine_flags_by_vllm_version"], key=_key)
    sdists = [_vllm_sdist(str(version), folder) for version in versions]
    defined = [vllm_defined(sdist, everywhere) for sdist in sdists]
    for flag in sorted(everywhere):
        having = [i for i, found in enumerate(defined) if flag in found]
        run = bool(having) and having == list(range(having[0], having[-1] + 1))
        if run and (having[0] == 0 or having[-1] == len(versions) - 1):
            everywhere.discard(flag)  # (looked up in each release instead: `defined`)
            continue
        for found in defined:
            found.discard(flag)
    releases, flags = [], []
    for version, sdist, found_here in zip(versions, sdists, defined, strict=True):
        found = {f for f in data["vllm_engine_flags_by_vllm_version"][version] if f.startswith("-")}
        found |= found_here
        for dynamo, pin in pins.items():
            if str(pin) == str(version):
                rejected = data["per_release"][dynamo]["rejected_vllm_frontend_flags"]
                found.update(f for f in rejected if f.startswith("-"))
        releases.append(
            {
                "version": str(version),
                "source": f"vllm=={version} wheel from PyPI, read in the measured study "
                "(vllm/engine/arg_utils.py EngineArgs.add_cli_args and "
                "vllm/entrypoints/openai/cli_args.py make_arg_parser); the frontend flags "
                f"it names with no release's list, from {sdist.name} from PyPI "
                "(vllm/entrypoints/)",
                "sha256": hashlib.sha256(sdist.read_bytes()).hexdigest(),
            }
        )
        flags.append(found | everywhere)
    return releases, flags


def sglang_releases(
    versions: list[str], folder: Path
) -> tuple[list[dict[str, str]], list[set[str]]]:
    releases, flags = [], []
    for version in sorted(versions, key=_key):
        wheels = list(folder.glob(f"sglang-{version}-*.whl"))
        if not wheels:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--no-deps",
                    f"sglang=={version}",
                    "-d",
                    str(folder),
                ],
                check=True,
            )
            wheels = list(folder.glob(f"sglang-{version}-*.whl"))
        wheel = wheels[0]
        releases.append(
            {
                "version": version,
                "source": f"{wheel.name} from PyPI",
                "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
            }
        )
        flags.append(sglang_flags(wheel))
    return releases, flags


def main(study: Path, versions: list[str]) -> None:
    folder = Path(tempfile.gettempdir()) / "benchlint-engine-releases"
    folder.mkdir(exist_ok=True)
    vllm = _engine(*vllm_releases(study, folder))
    sglang = _engine(*sglang_releases(versions or SGLANG_VERSIONS, folder))
    document = {
        "schema_version": SCHEMA_VERSION,
        "generator": "tools/import_engine_flags.py",
        "engines": {"vllm": vllm, "sglang": sglang},
    }
    OUT.write_text(json.dumps(document, indent=0, sort_keys=True) + "\n")
    for name, engine in document["engines"].items():
        print(f"{name}: {len(engine['releases'])} releases, {len(engine['flags'])} flags")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:])
