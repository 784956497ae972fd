"""Build benchlint/data/engine_flags.json: the command-line flags of vLLM and SGLang, per release.

Usage: python tools/import_engine_flags.py [--study DYNAMO_FLAGS_YAML] [SGLANG_VERSION...]

vLLM: every release from 0.10.0 on whose source distribution is on PyPI (downloaded, checked
against the index's sha256, recorded): the option strings `vllm serve`'s parser registers, engine
and frontend, read statically by tools/vllm_flags.py. With `--study`, the measured study of 13
releases (their argparse option lists) is the check: the run stops unless the flags read agree
with it for each release it measured.
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
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from ruamel.yaml import YAML
from vllm_flags import Sources, serve_flags

OUT = Path(__file__).resolve().parent.parent / "benchlint" / "data" / "engine_flags.json"
SCHEMA_VERSION = 2
VLLM_FIRST = "0.10.0"  # the study's first release (Dynamo 0.4.0's pin); older ones are not read
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


def _vllm_index() -> list[dict[str, object]]:
    request = urllib.request.Request(
        "https://pypi.org/simple/vllm/",
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    with urllib.request.urlopen(request) as response:
        files: list[dict[str, object]] = json.load(response)["files"]
    return files


def vllm_versions(files: list[dict[str, object]]) -> list[str]:
    """Every release from VLLM_FIRST on with a source distribution on PyPI, in order."""
    found = []
    for entry in files:
        name = str(entry["filename"])
        if name.startswith("vllm-") and name.endswith(".tar.gz") and not entry.get("yanked"):
            version = name[len("vllm-") : -len(".tar.gz")]
            if re.fullmatch(r"\d+(\.\d+)+", version) and _key(version) >= _key(VLLM_FIRST):
                found.append(version)
    return sorted(found, key=_key)


def _vllm_sdist(version: str, folder: Path, files: list[dict[str, object]]) -> Path:
    """The release's source distribution from PyPI (downloaded once into `folder`), checked
    against the hash the index gives (pip would build it to read its metadata: vLLM's build
    needs torch)."""
    sdist = folder / f"vllm-{version}.tar.gz"
    (entry,) = [f for f in files if f["filename"] == sdist.name]
    hashes = entry["hashes"]
    assert isinstance(hashes, dict)
    if not sdist.exists():
        with urllib.request.urlopen(str(entry["url"])) as response:
            sdist.write_bytes(response.read())
    if hashlib.sha256(sdist.read_bytes()).hexdigest() != hashes["sha256"]:
        sdist.unlink()
        raise SystemExit(f"{sdist.name}: the download does not match the index's sha256")
    return sdist


def check_against_study(study: Path, measured: dict[str, tuple[set[str], set[str]]]) -> None:
    """Stop unless the flags read from the sources are the study's for every release it
    measured (argparse's own option lists): the engine's exactly; the frontend's up to the
    flags the Dynamo worker pinned to the release declares itself, which its list of rejected
    frontend flags leaves out (`--headless`, Dynamo 1.0.0 on)."""
    data = YAML(typ="safe").load(study.read_text())
    pins = {str(d): str(v) for d, v in data["meta"]["vllm_pin_per_dynamo_release"].items()}
    wrong = []
    for version, listed in data["vllm_engine_flags_by_vllm_version"].items():
        engine, frontend = measured[str(version)]
        if engine != set(listed):
            wrong.append(f"{version} engine: {sorted(engine ^ set(listed))}")
        for dynamo, pin in pins.items():
            if pin != str(version):
                continue
            release = data["per_release"][dynamo]
            rejected = set(release["rejected_vllm_frontend_flags"])
            owned = set(release["dynamo_owned_flags"])
            owned |= {"--no-" + f[2:] for f in owned}
            if not rejected <= frontend or not frontend - rejected <= owned:
                wrong.append(f"{version} frontend (Dynamo {dynamo}): {sorted(frontend ^ rejected)}")
    if wrong:
        raise SystemExit("the sources' flags differ from the study's:\n" + "\n".join(wrong))
    print(f"vllm: the study's {len(data['vllm_engine_flags_by_vllm_version'])} releases agree")


def vllm_releases(folder: Path, study: Path | None) -> tuple[list[dict[str, str]], list[set[str]]]:
    files = _vllm_index()
    releases, flags = [], []
    measured = {}
    for version in vllm_versions(files):
        sdist = _vllm_sdist(version, folder, files)
        engine, frontend, subcommand = serve_flags(Sources.of_sdist(sdist))
        measured[version] = (engine, frontend)  # (what `make_arg_parser` registers)
        releases.append(
            {
                "version": version,
                "source": f"{sdist.name} from PyPI: the flags `vllm serve`'s parser registers, "
                "read by tools/vllm_flags.py (make_arg_parser, FrontendArgs.add_cli_args, "
                "EngineArgs.add_cli_args and the config classes' fields, "
                "ServeSubcommand.subparser_init)",
                "sha256": hashlib.sha256(sdist.read_bytes()).hexdigest(),
            }
        )
        flags.append(engine | frontend | subcommand)
    if study is not None:
        check_against_study(study, measured)
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


def main(study: Path | None, versions: list[str]) -> None:
    folder = Path(tempfile.gettempdir()) / "benchlint-engine-releases"
    folder.mkdir(exist_ok=True)
    vllm = _engine(*vllm_releases(folder, study))
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
    arguments = sys.argv[1:]
    study = None
    if arguments[:1] == ["--study"]:
        study, arguments = Path(arguments[1]), arguments[2:]
    main(study, arguments)
