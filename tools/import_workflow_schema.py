"""Build benchlint/data/workflow_schema.json: where in a GitHub Actions workflow each context and
context function may be used, as GitHub's workflow parser decides it.

Usage: python tools/import_workflow_schema.py [TARBALL]

TARBALL is the npm package `@actions/workflow-parser` (the parser of GitHub's Actions language
services), as `npm pack @actions/workflow-parser@VERSION` or the registry's tarball URL gives it;
without one, the release below is downloaded from registry.npmjs.org and checked against the
registry's integrity hash. Its `dist/workflow-v1.0.min.json` is the workflow schema the parser
reads a workflow with: for each definition its kind (a mapping's properties and loose
key/value types, a sequence's item type, a one-of's members, a scalar), and the contexts it
adds (`context`: named contexts, `github`, `matrix`, ..., and functions with their argument
counts, `hashFiles(1,255)`). The parser gives a value the contexts of its definition and of
every definition above it (`DefinitionInfo`); an expression naming another is "Unrecognized
named-value" and the file is rejected.

Kept: each definition's kind and structure and its context list (no descriptions), with the
package's version, the tarball's sha512 and the schema file's sha256.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sys
import tarfile
import urllib.request
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "benchlint" / "data" / "workflow_schema.json"
SCHEMA_VERSION = 1
PACKAGE = "@actions/workflow-parser"
VERSION = "0.3.61"
MEMBER = "package/dist/workflow-v1.0.min.json"
_KINDS = ("mapping", "sequence", "one-of", "string", "boolean", "number", "null")
_SCALARS = frozenset({"string", "boolean", "number", "null", "allowed-values"})


def _tarball(argument: str | None) -> bytes:
    if argument is not None:
        return Path(argument).read_bytes()
    meta_url = f"https://registry.npmjs.org/{PACKAGE}/{VERSION}"
    with urllib.request.urlopen(meta_url) as response:
        meta = json.load(response)
    with urllib.request.urlopen(meta["dist"]["tarball"]) as response:
        data: bytes = response.read()
    if _integrity(data) != meta["dist"]["integrity"]:
        raise SystemExit("the download does not match the registry's integrity hash (sha512)")
    return data


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def _property(value: Any) -> str:
    """A mapping property's type: written as the type's name, or `{"type": name, ...}`."""
    return value if isinstance(value, str) else str(value["type"])


def reduce(definition: dict[str, Any]) -> dict[str, Any]:
    """A definition's kind, structure and contexts (what the reader needs)."""
    kinds = [k for k in (*_KINDS, "allowed-values") if k in definition]
    if len(kinds) != 1:
        raise SystemExit(f"a definition of kinds {kinds}")
    kind = kinds[0]
    # (a string of a fixed set of values: `allowed-values`)
    out: dict[str, Any] = {"kind": "scalar" if kind in _SCALARS else kind}
    if definition.get("context"):
        out["context"] = list(definition["context"])
    body = definition[kind]
    if kind == "mapping":
        out["properties"] = {k: _property(v) for k, v in body.get("properties", {}).items()}
        if "loose-key-type" in body:
            out["loose-key-type"] = body["loose-key-type"]
            out["loose-value-type"] = body["loose-value-type"]
    elif kind == "sequence":
        out["item-type"] = body["item-type"]
    elif kind == "one-of":
        out["one-of"] = list(body)
    return out


def main(argv: list[str]) -> None:
    data = _tarball(argv[1] if len(argv) > 1 else None)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        package = json.load(archive.extractfile("package/package.json"))  # type: ignore[arg-type]
        member = archive.extractfile(MEMBER)
        if member is None:
            raise SystemExit(f"{MEMBER}: not in the package")
        text = member.read()
    schema = json.loads(text)
    out = {
        "schema_version": SCHEMA_VERSION,
        "generator": "tools/import_workflow_schema.py",
        "source": {
            "package": package["name"],
            "version": package["version"],
            "integrity": _integrity(data),
            "file": MEMBER.removeprefix("package/"),
            "sha256": hashlib.sha256(text).hexdigest(),
            "workflow_schema": schema.get("version"),
        },
        "root": "workflow-root",
        "definitions": {name: reduce(d) for name, d in sorted(schema["definitions"].items())},
    }
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(out['definitions'])} definitions, {package['version']})")


if __name__ == "__main__":
    main(sys.argv)
