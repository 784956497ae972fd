"""Reporters: one function per output format, each reading only a Result and rule metadata."""

from __future__ import annotations

from collections.abc import Callable

from benchlint.engine import Result
from benchlint.report import concise, github, json_format, sarif, text

FORMATS: dict[str, Callable[[Result], str]] = {
    "text": text.render,
    "concise": concise.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
}
