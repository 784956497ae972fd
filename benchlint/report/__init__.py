"""Reporters: one module per output format, each reading only a Result and rule metadata.

Imported on use: the SARIF object model is not loaded for a concise run.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from benchlint.result import Result

_MODULES = {
    "text": "text",
    "concise": "concise",
    "json": "json_format",
    "sarif": "sarif",
    "github": "github",
}
FORMATS = tuple(_MODULES)


def renderer(name: str) -> Callable[[Result], str]:
    module = importlib.import_module(f"benchlint.report.{_MODULES[name]}")
    render: Callable[[Result], str] = module.render
    return render
