"""Inline suppressions (`# benchlint: disable=BL102 reason`, `disable-file=`) and config ignores.

`suppressions` reads the directives from a file's lines; the engine keeps those that are
comments (not text inside a quoted string, a heredoc or a YAML scalar)."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from benchlint.finding import Finding
from benchlint.lazyre import lazy_compile
from benchlint.source import SourceText
from benchlint.workspace import path_matches

_DIRECTIVE = lazy_compile(r"#\s*benchlint:\s*(disable|disable-file)=(.*)")
# a comment that starts as a directive does (`# benchlint:`) but is none: `disable BL102` (no
# `=`), `disable: BL102`, `ignore=BL102`, `disable=for BL102` (no ID right after `=`)
# (a `#` that starts a comment in a shell and in YAML: at the line's start or after a blank, not
# one inside a word, `*"# benchlint:"*`: h131 F9; any case, and `benchlint disable` with no
# colon: M8)
_LOOSE = lazy_compile(r"(?i)(?:^|(?<=\s))#\s*benchlint\b\s*(?::|(?=disable))")
# the IDs right after `=`, separated by commas or blanks; from the first other word on, the text
# is the reason (`disable=BL101 needed on all runners` disables BL101 only)
# (any number of digits: `BL1020`, a typo, is an ID that names no rule, which BL003 reports)
SELECTOR = lazy_compile(r"(?i)BL\d+|ALL")


@dataclass
class Suppression:
    path: str
    line: int
    rules: tuple[str, ...]
    whole_file: bool
    used: set[str] = field(default_factory=set)
    # where each ID is written on its line: (1-based column, end column), in `rules`' order
    columns: tuple[tuple[int, int], ...] = ()
    # the directive from its `#` to the end of the line's text: (column, end column)
    directive: tuple[int, int] = (1, 1)
    # a `# benchlint:` comment that is no directive benchlint reads (no `rules`): its text
    malformed: str | None = None


def suppressions(source: SourceText) -> list[Suppression]:
    found: list[Suppression] = []
    if "benchlint" not in source.text.lower():  # (`benchlint :` too: h131 M7)
        return found
    # lines as findings count them: only `\n` ends one (not a form feed or U+2028)
    for index, line in enumerate(source.text.split("\n"), start=1):
        match = _DIRECTIVE.search(line)
        tokens: list[re.Match[str]] = []
        if match is not None:
            tokens = list(
                itertools.takewhile(
                    lambda t: SELECTOR.fullmatch(t.group()) is not None,
                    re.finditer(r"[^,\s]+", match.group(2)),
                )
            )
            if tokens:
                offset = match.start(2)
                found.append(
                    Suppression(
                        source.path,
                        index,
                        tuple(t.group().upper() for t in tokens),
                        match.group(1) == "disable-file",
                        # columns count characters, as findings' do
                        columns=tuple(
                            (offset + t.start() + 1, offset + t.end() + 1) for t in tokens
                        ),
                        directive=(match.start() + 1, len(line.rstrip()) + 1),
                    )
                )
        if not tokens and (loose := _LOOSE.search(line)) is not None:
            found.append(
                Suppression(
                    source.path,
                    index,
                    (),
                    False,
                    directive=(loose.start() + 1, len(line.rstrip()) + 1),
                    malformed=line[loose.start() :].rstrip(),
                )
            )
    return found


def _matches(rule: str, selectors: tuple[str, ...]) -> str | None:
    for selector in selectors:
        if selector == "ALL" or rule.startswith(selector):
            return selector
    return None


def is_suppressed(finding: Finding, inline: list[Suppression], first: int | None = None) -> bool:
    """Whether a suppression of the file covers the finding: on its line or the line above, or
    above the first line of the command it is in (`first`: a shell command continued with `\\`
    over several lines, where no comment can stand between its lines: h135 W1)."""
    line = finding.location.span.line
    lines = {line, line - 1} | ({first - 1} if first is not None else set())
    for suppression in inline:
        if not suppression.whole_file and suppression.line not in lines:
            continue
        selector = _matches(finding.rule, suppression.rules)
        if selector is not None:
            suppression.used.add(selector)
            return True
    return False


def baseline_fingerprints(path: Path) -> dict[str, frozenset[str] | None]:
    """Fingerprints of an earlier run's `--format json` or `--format sarif` report, each with
    what its finding covered then (`Finding.involves`; None: not said). Raises ValueError (one
    line for the user) for a file that does not exist or is not such a report."""
    if not path.exists():
        raise ValueError(f"{path}: baseline file does not exist")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"{path}: baseline file cannot be read: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError(f"{path}: not a benchlint JSON or SARIF report (not JSON)") from None
    if isinstance(data, dict) and isinstance(data.get("runs"), list):
        found: dict[str, frozenset[str] | None] = {}
        for run in data["runs"]:
            results = run.get("results") if isinstance(run, dict) else None
            for result in results if isinstance(results, list) else []:
                if not isinstance(result, dict):
                    continue
                properties = result.get("properties")
                involves = properties.get("involves") if isinstance(properties, dict) else None
                prints = result.get("partialFingerprints")
                for fingerprint in prints.values() if isinstance(prints, dict) else []:
                    if isinstance(fingerprint, str):
                        found[fingerprint] = _involved(involves)
        return found
    if isinstance(data, dict) and isinstance(data.get("findings"), list):
        return {
            f["fingerprint"]: _involved(f.get("involves"))
            for f in data["findings"]
            if isinstance(f, dict) and isinstance(f.get("fingerprint"), str)
        }
    raise ValueError(
        f"{path}: not a benchlint JSON or SARIF report (no `findings` or `runs` list); "
        "write one with --format json or --format sarif --output FILE"
    )


def _involved(value: object) -> frozenset[str] | None:
    return frozenset(str(v) for v in value) if isinstance(value, list) else None


def new_since(finding: Finding, known: dict[str, frozenset[str] | None]) -> tuple[str, ...] | None:
    """What the finding covers that the baseline's did not (empty: nothing new); None when the
    baseline does not have the finding."""
    if finding.fingerprint not in known:
        return None
    before = known[finding.fingerprint]
    if before is None or not finding.involves:
        return ()
    return tuple(i for i in finding.involves if i not in before)


def ignored_by_config(finding: Finding, per_file_ignores: dict[str, list[str]]) -> bool:
    path = finding.location.path
    for glob, rules in per_file_ignores.items():
        selectors = tuple(r.upper() for r in rules)
        if path_matches(path, glob, inside=True) and _matches(finding.rule, selectors):
            return True
    return False


def continued_from(source: SourceText, line: int) -> int:
    """The first line of the shell line `line` continues (each line before it ending in `\\`),
    or `line` itself."""
    first = line
    while first > 1 and source.line_text(first - 1).rstrip().endswith("\\"):
        first -= 1
    return first
