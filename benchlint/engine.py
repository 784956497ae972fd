"""One run: answered from the run cache when nothing it read has changed, else linted
(`linting`). A run the cache answers loads neither the rules nor the models of scripts and YAML:
only what tells whether the stored result still holds (a warm run of InferenceX executes 0.46
times the instructions it did when it loaded them, v0.7.41)."""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path

from benchlint import runcache
from benchlint.cache import Cache
from benchlint.config import Config
from benchlint.registry import Selection
from benchlint.result import Result
from benchlint.workspace import Kept, Workspace


def select_rules(config: Config, select: set[str] | None, ignore: set[str]) -> Selection:
    """The rules to run: those selected (None: the rules on by default), less those ignored."""
    return Selection(frozenset(select) if select is not None else None, frozenset(ignore))


def lint(
    root: Path,
    config: Config,
    selection: Selection,
    named: list[Path],
    *,
    cache: Cache | None = None,
    standalone: bool = False,
    overlay: dict[str, bytes] | None = None,
    kept: Kept | None = None,
    jobs: int | None = 1,
) -> Result:
    """One run. `cache`: facts kept between runs (None: none). `standalone`: the root is no
    repository (no `.git`, no configuration): named files are linted on their own, and a walk
    stops (TooManyFiles) past STANDALONE_ENTRIES. `overlay`: files' text as an editor holds it
    (root-relative path to bytes), read instead of the disk's. `kept`: the models a long-lived
    process keeps between its runs. `jobs`: the processes a whole run may parse YAML in (None:
    the CPUs available)."""
    started = time.time_ns()  # files changed after this are hashed by the next run, not trusted
    scope = _scope(root, named)
    if standalone:  # not inside a repository: the files named alone, or a bounded walk
        files = scope is not None and all(p.is_file() for p in named)
        only = scope if files else None
        ws = Workspace(root, config, cache, only, STANDALONE_ENTRIES, overlay, kept, jobs)
    else:
        ws = Workspace(root, config, cache, overlay=overlay, kept=kept, jobs=jobs)
    # a run that names files models few scripts here: their trees are kept for the run (not by
    # a language server, which keeps the models between its runs)
    ws.keep_trees = scope is not None and kept is None
    # a whole result is kept for the next run when it depends on the disk alone
    keep = cache if cache is not None and not standalone and not overlay else None
    if keep is None:
        linted = _lint(ws, selection, scope)
        ws.done(kept is None)
        return linted
    question, listing = runcache.question(ws, selection, scope), runcache.listing(ws)
    stored = keep.get_run(question, listing, functools.partial(runcache.unchanged, ws))
    if stored is not None:
        result = runcache.decode(stored[0], ws, selection)
        if result is not None:
            result.stored = stored[1]
            return result
    if scope is None and not keep.ran_before:
        # a cache this benchlint never linted the whole repository with: most often a fresh
        # checkout's (CI), gone after the run. Its result and YAML facts are kept; modelling
        # every script as plain data for the cache would add a sixth to the run (InferenceX:
        # 2.55 s against 2.4 s), so scripts are kept from the next whole run on.
        ws.keep_scripts = False
    result = _lint(ws, selection, scope)
    if not result.errors:
        states = runcache.file_states(ws, ws.read_paths, started)
        result.stored = keep.put_run(question, listing, states, runcache.encode(result))
        ws.store_guard_facts()
    ws.store_index(started)
    ws.done(kept is None)
    return result


def _lint(ws: Workspace, selection: Selection, scope: list[str] | None) -> Result:
    from benchlint import linting  # (here: what a run the cache answers never loads)

    return linting.lint(ws, selection, scope)


# A folder outside any repository is walked only this far (a system temporary folder holds
# tens of thousands of files, none of them a launcher).
STANDALONE_ENTRIES = 5000


def _scope(root: Path, named: list[Path]) -> list[str] | None:
    """The named paths relative to the root; None when the whole repository was named."""
    scope = []
    for path in named:
        rel = os.path.relpath(path.resolve(), root)
        if rel == ".":
            return None
        scope.append(rel.replace(os.sep, "/"))
    return scope or None
