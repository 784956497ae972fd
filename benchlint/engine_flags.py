"""The command-line flags each release of vLLM and SGLang accepts (`data/engine_flags.json`,
written by `tools/import_engine_flags.py`, with each release's provenance).

A release between two measured ones accepts a flag both of them accept and rejects a flag
neither accepts; otherwise it is not known. A release outside the measured range is not known.
argparse accepts an unambiguous prefix of a flag, so a prefix of an accepted flag is accepted.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from benchlint.profile import data_text

SCHEMA_VERSION = 2
ENGINES = {"vllm": "vLLM", "sglang": "SGLang"}


def version_key(version: str) -> tuple[int, ...]:
    """Release order: `0.5.8.post1` after `0.5.8`, before `0.5.9`."""
    return tuple(int(p) for p in re.findall(r"\d+", version)[:4])


@dataclass(frozen=True)
class EngineFlags:
    versions: dict[str, tuple[str, ...]]  # engine -> measured releases, in order
    accepted: dict[str, tuple[frozenset[str], ...]]  # engine -> flags of each release
    sources: dict[str, dict[str, str]]  # engine -> release -> where its flags were read

    @functools.cached_property
    def union(self) -> dict[str, frozenset[str]]:
        return {e: frozenset().union(*sets) for e, sets in self.accepted.items()}

    @functools.cached_property
    def _keys(self) -> dict[str, list[tuple[int, ...]]]:
        return {e: [version_key(v) for v in vs] for e, vs in self.versions.items()}

    def varies(self, engine: str, flag: str) -> bool:
        """Whether some measured release accepts the flag and another does not: only then does
        the release in use matter."""
        key = (engine, flag)
        if key not in self._varies:
            results = {_accepted(flag, flags) for flags in self.accepted.get(engine, ())}
            self._varies[key] = len(results) > 1
        return self._varies[key]

    @functools.cached_property
    def _varies(self) -> dict[tuple[str, str], bool]:
        return {}

    def negatable(self, engine: str, flag: str) -> bool:
        """Whether some release accepts `--no-FLAG` beside `--FLAG`: an argparse
        BooleanOptionalAction, a flag that takes no value (vLLM's `--enforce-eager`)."""
        return flag.startswith("--") and "--no-" + flag[2:] in self.union.get(engine, ())

    def span(self, engine: str) -> str:
        versions = self.versions[engine]
        return f"{ENGINES[engine]} {versions[0]}-{versions[-1]}"

    def foreign(self, engine: str, flag: str) -> str | None:
        """The engine that owns `flag` when no release of `engine` accepts it, else None (an
        abbreviation one release accepts and another finds ambiguous is accepted)."""
        if flag in self.union[engine] or any(_accepted(flag, s) for s in self.accepted[engine]):
            return None
        for other, flags in self.union.items():
            if other != engine and flag in flags:
                return other
        return None

    def slip_of(self, engine: str, flag: str) -> str | None:
        """The engine's flag that `flag`, which no release of it has and no other engine owns,
        is one slip from (a letter more, less or other, or two neighbours swapped:
        `--tensor-paralel-size`), the first by name; None for any other flag, and for one of
        Dynamo's (`--dyn-*`). A name of four letters or fewer is not judged."""
        key = (engine, flag)
        if key not in self._slips:
            found = None
            if (
                flag.startswith("--")
                and len(flag) > 6
                and not flag.startswith("--dyn-")
                and self.foreign(engine, flag) is None
                and not any(_accepted(flag, s) for s in self.accepted.get(engine, ()))
            ):
                found = next(
                    (f for f in sorted(self.union.get(engine, ())) if _one_slip(flag, f)), None
                )
            self._slips[key] = found
        return self._slips[key]

    @functools.cached_property
    def _slips(self) -> dict[tuple[str, str], str | None]:
        return {}

    def accepts(self, engine: str, version: str, flag: str) -> bool | None:
        """Whether this release accepts the flag; None when the data cannot tell."""
        sets = self.accepted.get(engine, ())
        return release_answer(
            self._keys.get(engine, []), version, lambda i: _accepted(flag, sets[i])
        )

    def gone_since(self, engine: str, flag: str) -> tuple[str, str] | None:
        """For a flag the newest measured release rejects and an earlier one accepts: the first
        of the newest releases that all reject it, and the last that accepts it
        (`--disable-log-requests`: 0.19.0, 0.18.1); None for any other flag."""
        versions, sets = self.versions.get(engine, ()), self.accepted.get(engine, ())
        if not sets or _accepted(flag, sets[-1]):
            return None
        index = len(sets)
        while index > 0 and not _accepted(flag, sets[index - 1]):
            index -= 1
        return (versions[index], versions[index - 1]) if index > 0 else None

    def rejection(self, engine: str, version: str, flag: str) -> str:
        """argparse's complaint about a flag the release rejects: `unrecognized arguments`, or,
        for a prefix of several of its flags, `ambiguous option` (naming them)."""
        versions = self.versions.get(engine, ())
        if version in versions:
            flags = self.accepted[engine][versions.index(version)]
            matches = sorted(f for f in flags if f.startswith(flag) and f != flag)
            if len(matches) > 1:
                return f"`ambiguous option` (it could be {', '.join(matches)})"
        return "`unrecognized arguments`"

    def one_dash_reading(self, engine: str, word: str) -> tuple[str, str] | None:
        """How argparse reads a word with one dash where an option is read (`-host`), where
        every measured release of the engine reads it the same way and none as an option of
        that name (`_one_dash_reading`); None where one does (`-tp`, a prefix of exactly one
        one-dash option, `-dc`) or the releases differ. Only vLLM's data holds the one-dash
        options (SGLang's importer keeps `--` flags only): None for SGLang."""
        if engine != "vllm" or engine not in self.accepted:
            return None
        readings = {_one_dash_reading(word, flags) for flags in self.accepted[engine]}
        if None in readings or len(readings) != 1:
            return None
        return readings.pop()

    def history(self, engine: str, version: str, flag: str) -> str:
        """When the flag was there, in words: `until 0.10.2`, `from 0.26.0`."""
        versions = self.versions[engine]
        having = [v for v, s in zip(versions, self.accepted[engine], strict=True) if flag in s]
        return release_history(having, version)


def release_answer(
    keys: list[tuple[int, ...]], version: str, answer: Callable[[int], bool]
) -> bool | None:
    """A yes/no question about a release, from the answers of the measured releases (`keys`, in
    order; `answer(i)` for the i-th): a measured release's own answer, a release between two
    measured ones the answer both give, else (they differ, or it is outside the range) None."""
    if not keys:
        return None
    key = version_key(version)
    if key < keys[0] or key > keys[-1]:
        return None
    index = bisect.bisect_left(keys, key)
    if keys[index] == key:
        return answer(index)
    before, after = answer(index - 1), answer(index)
    return before if before == after else None


def release_history(having: list[str], version: str) -> str:
    """When something was there, relative to `version`, from the measured releases that have
    it: `the last measured release with it is 0.10.2`, `the first measured release with it is
    0.26.0`, `the measured releases with it nearest are 0.16.0 and 0.33.0` (gone, then back:
    vLLM's `--disable-log-requests`, the inverse of `--enable-log-requests` from 0.33.0);
    releases between two measured ones are not known: it may have come or gone in one of them.
    Nothing when no measured release has it."""
    key = version_key(version)
    later = [v for v in having if version_key(v) > key]
    earlier = [v for v in having if version_key(v) < key]
    if earlier and later:
        return f"the measured releases with it nearest are {earlier[-1]} and {later[0]}"
    if earlier and not later:
        return f"the last measured release with it is {earlier[-1]}"
    if later and not earlier:
        return f"the first measured release with it is {later[0]}"
    return ""


def _one_slip(a: str, b: str) -> bool:
    """Whether two different texts are one edit apart: a character added, dropped or changed,
    or two neighbours swapped (the optimal string alignment distance is 1)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    a, b = a[start:], b[start:]
    if len(a) == len(b):
        return a[1:] == b[1:] or (len(a) > 1 and a[0] == b[1] and a[1] == b[0] and a[2:] == b[2:])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return long[1:] == short


def _one_dash_reading(word: str, flags: frozenset[str]) -> tuple[str, str] | None:
    """How argparse (Python 3.8 on) reads `word`, one dash and two letters or more, where a
    parser with the options `flags` and `-h` reads an option: ("rejected", its complaint),
    ("help", the letters after `-h`: argparse runs `-h`, which prints the usage, and exits:
    with `ignored explicit argument` before Python 3.12.3, with the help after), ("short",
    the two-letter option the word starts with, whose value the rest is: `-qfp8`); None where it
    reads an option of that name (`-tp`, `-tp=8`) or a prefix of exactly one (`-dc`).
    argparse looks for options that start with the word (a prefix of one is that option, of
    several an error) and for the two-letter option the word starts with."""
    options = {"-h", *(f for f in flags if not f.startswith("--"))}
    if word in options or word.split("=", 1)[0] in options:
        return None
    short = word[:2]
    matches = sorted({*(f for f in options if f.startswith(word)), *([short] * (short in options))})
    if len(matches) > 1:
        return "rejected", f"`ambiguous option: {word} could match {', '.join(matches)}`"
    if matches == ["-h"]:
        return "help", word[2:]
    if matches == [short]:
        return "short", short
    if matches:
        return None  # (a prefix of one option: that option)
    return "rejected", "`unrecognized arguments`"


@functools.lru_cache(maxsize=65536)
def _accepted(flag: str, flags: frozenset[str]) -> bool:
    """Whether the flag is one of `flags`, or (argparse's abbreviations) a prefix of exactly
    one long one: a prefix of two is an error (`ambiguous option: --cuda-graph-max-bs could
    match --cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill`). Asked for the same few
    hundred flags of every launch: kept (a frozenset keeps its hash)."""
    if flag in flags:
        return True
    long = _long_flags(flags)
    index = bisect.bisect_left(long, flag)
    if index >= len(long) or not long[index].startswith(flag):
        return False
    return index + 1 >= len(long) or not long[index + 1].startswith(flag)


@functools.lru_cache(maxsize=256)
def _long_flags(flags: frozenset[str]) -> tuple[str, ...]:
    """The `--` flags of a release, sorted: those a prefix abbreviates follow it."""
    return tuple(sorted(f for f in flags if f.startswith("--")))


@functools.lru_cache(maxsize=1)
def engine_flags() -> EngineFlags:
    text = data_text("engine_flags.json")
    data = json.loads(text)
    if data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"data/engine_flags.json: schema_version {data.get('schema_version')}")
    versions: dict[str, tuple[str, ...]] = {}
    accepted: dict[str, tuple[frozenset[str], ...]] = {}
    sources: dict[str, dict[str, str]] = {}
    for engine, table in data["engines"].items():
        releases = table["releases"]
        versions[engine] = tuple(r["version"] for r in releases)
        sources[engine] = {r["version"]: r["source"] for r in releases}
        sets: list[set[str]] = [set() for _ in releases]
        for flag, runs in table["flags"].items():
            for first, last in runs:
                for index in range(first, last + 1):
                    sets[index].add(flag)
        accepted[engine] = tuple(frozenset(s) for s in sets)
    return EngineFlags(versions, accepted, sources)
