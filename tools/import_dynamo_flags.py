"""Turn the measured Dynamo vLLM-worker flag study into benchlint's data file.

Usage: python tools/import_dynamo_flags.py ../shared/reference/dynamo-worker-flags.yaml

Writes benchlint/data/dynamo_vllm_worker.json: for each checked Dynamo release, the flags its
`python -m dynamo.vllm` parser rejects (vLLM frontend flags, and Dynamo flags that release does
not have), with the replacement to suggest. Only flags the study names are listed, so an engine
flag newer than a release's vLLM pin is never called rejected.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from ruamel.yaml import YAML

OUT = Path(__file__).resolve().parent.parent / "benchlint" / "data" / "dynamo_vllm_worker.json"


def _releases(spec: str, order: list[str]) -> list[str]:
    match = re.match(r"dynamo ([0-9][^\s-]*)(?:-([0-9][^\s(]*))?", spec)
    if match is None:
        return []
    first, last = match.group(1), match.group(2) or match.group(1)
    return order[order.index(first) : order.index(last) + 1]


def main(source: Path) -> None:
    data = YAML(typ="safe").load(source.read_text())
    order = [str(r) for r in data["meta"]["checked_dynamo_releases"]]
    rejected = {
        str(r): set(v["rejected_vllm_frontend_flags"]) for r, v in data["per_release"].items()
    }
    replacement: dict[str, str] = {}
    note: dict[str, str] = {}
    for entry in data["flags"]:
        names = entry["name"] if isinstance(entry["name"], list) else [entry["name"]]
        for spec, status in entry["accepted"].items():
            for release in _releases(spec, order):
                for name in names:
                    if str(status).startswith("no"):
                        rejected[release].add(name)
                    elif str(status).startswith("yes"):
                        rejected[release].discard(name)
        for name in names:
            if entry.get("replacement"):
                replacement[name] = str(entry["replacement"])
            if entry.get("note"):
                note[name] = " ".join(str(entry["note"]).split())
    document = {
        "source": (
            "Measured from the released ai-dynamo wheels 0.4.0-1.6.1 and their vllm pins "
            "(parser source read and runs of dynamo.vllm.args.parse_args); see "
            "shared/reference/dynamo-worker-flags.md"
        ),
        "releases": order,
        "vllm_pin": {
            str(k): str(v) for k, v in data["meta"]["vllm_pin_per_dynamo_release"].items()
        },
        "rejected": {release: sorted(flags) for release, flags in rejected.items()},
        "replacement": dict(sorted(replacement.items())),
        "note": dict(sorted(note.items())),
    }
    OUT.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
