"""The data files in benchlint/data: their schema, and every fact with its source."""

from __future__ import annotations

import json
from pathlib import Path

from benchlint import profile

DATA = Path(__file__).resolve().parent.parent / "benchlint" / "data"


def test_the_profile_names_a_source_for_every_fact() -> None:
    data = json.loads((DATA / "profile.json").read_text())
    assert data["schema_version"] == profile.SCHEMA_VERSION
    assert data["facts"], "no facts"
    for name, fact in data["facts"].items():
        assert set(fact) == {"value", "description", "source"}, name
        assert fact["source"].strip() and fact["description"].strip(), name
        assert profile.fact(name) == fact["value"]


def test_the_profile_is_what_the_code_uses() -> None:
    from benchlint import calls, recipe
    from benchlint.environment import VALIDATORS

    assert profile.fact("health_check_defaults")["max_attempts"] == recipe.DEFAULT_MAX_ATTEMPTS
    assert tuple(profile.fact("workspace_mounts")) == calls.ROOT_MOUNTS
    assert frozenset(profile.fact("validators")) == VALIDATORS
    assert profile.launcher_prefix("gb200-nv_12") == "gb200-nv"
