"""A `# benchlint: disable=` that suppresses nothing.

## What it does
Reports each rule ID of an inline suppression (`# benchlint: disable=BL102` on a line or the
line before, or before a shell command continued with `\\` over the lines after it;
`# benchlint: disable-file=BL203`) that no finding of this run needed, and IDs that name no
benchlint rule at all (`disable=BL999`, `disable=BL1020`: a typo that silently disables
nothing), and a `# benchlint:` comment that is no suppression benchlint reads (`disable BL102`
with no `=`, `disable: BL102`, `ignore=BL102`, `disable=for BL102` with a word before the IDs).
Off by default, like ruff's RUF100: turn it on with `--show-unused-suppressions` (with
every other rule), or a selection that includes it beside the rules whose suppressions it judges
(`--select ALL`, `--select BL1,BL003`; `--select BL003` alone judges only the IDs, as no other rule
runs).

## Why is this bad?
A suppression outlives the finding it was written for. Once the lock is guarded or the recipe
key renamed, the stale `disable=` stays and silently hides the next real finding of that rule on
that line: exactly the regression it would have caught.

## Example
```bash path=runners/launch_h100.sh
set -e
exec 9>/tmp/gpu.lock
flock -w 600 9 || { echo "no lock" >&2; exit 1; }  # benchlint: disable=BL102
```

## Use instead
```bash path=runners/launch_h100.sh
set -e
exec 9>/tmp/gpu.lock
flock -w 600 9 || { echo "no lock" >&2; exit 1; }
```

## Exceptions
An ID is only called unused when every rule it names ran: with `--select BL2`, a
`disable=BL102` is not reported (BL102 did not look). `ALL` is reported only when every rule
ran. The suppressions of files outside the named paths are not looked at. Its own findings are
not suppressed inline (a `disable=ALL` would hide the report that it is unused): use
`per-file-ignores` or `--ignore BL003`.

## Fix safety
The fix removes the stale suppression (its line when the comment stands alone): safe, nothing
that runs changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from benchlint.context import Context
from benchlint.finding import Edit, Finding, Fix, Location, Severity, Span
from benchlint.fixes import line_removal
from benchlint.registry import all_rules, rule
from benchlint.source import SourceText
from benchlint.suppress import SELECTOR, Suppression


@rule(
    "BL003",
    "unused-suppression",
    Severity.WARNING,
    tags=("suppressions",),
    precision="very-high",
    default_enabled=False,
    after_suppressions=True,
)
def check(ctx: Context) -> Iterator[Finding]:
    known = [r.id for r in all_rules() if not r.after_suppressions]
    for path, entries in sorted(ctx.suppressions.items()):
        source = ctx.ws.source(path)
        for suppression in entries:
            if suppression.malformed is not None:
                yield _malformed(path, suppression, suppression.malformed)
                continue
            stale = [
                rule
                for rule in suppression.rules
                if _unknown(rule, known) or _unused(rule, suppression, known, ctx.ran)
            ]
            kind = "disable-file" if suppression.whole_file else "disable"
            where = "in this file" if suppression.whole_file else "on this line or the next"
            for selector, (start, end) in zip(suppression.rules, suppression.columns, strict=True):
                if selector not in stale:
                    continue
                span = Span(suppression.line, start, suppression.line, end)
                fix = _removal(source, suppression, selector, stale) if source else None
                if selector == "BL003":  # (h123 W1: a rule, though not one it hides)
                    message = (
                        f"`{kind}={selector}` suppresses nothing: BL003's own findings are not "
                        "suppressed inline"
                    )
                    subject, advice = (
                        "unknown",
                        "remove it; use `per-file-ignores` or `--ignore BL003`",
                    )
                elif _unknown(selector, known):
                    message = f"`{kind}={selector}` names no benchlint rule: it suppresses nothing"
                    subject, advice = (
                        "unknown",
                        "correct the ID (`benchlint rules` lists them) or remove it",
                    )
                else:
                    what = (
                        "no rule reports anything"
                        if selector == "ALL"
                        else f"{selector} reports nothing"
                    )
                    message = f"`{kind}={selector}` is unused: {what} {where}"
                    subject, advice = "unused", "remove it"
                yield Finding(
                    "BL003",
                    message,
                    Location(path, span),
                    subject=f"{subject}:{selector}",
                    help=advice,
                    fix=fix,
                )


def _malformed(path: str, suppression: Suppression, text: str) -> Finding:
    """A `# benchlint:` comment that no directive matches (h123 M1): what it suppresses is
    nothing, whatever it was meant to."""
    words = re.findall(r"[^,\s=:]+", re.sub(r"(?i)^#\s*benchlint\b\s*:?", "", text))
    ids = [w.upper() for w in words if SELECTOR.fullmatch(w) is not None]
    kind = "disable-file" if any(w.lower() == "disable-file" for w in words) else "disable"
    shown = text if len(text) <= 60 else text[:59] + "…"
    help = (
        f"write `# benchlint: {kind}={','.join(ids)}`, the IDs right after `=` and any reason "
        "after them"
        if ids
        else "write `# benchlint: disable=BLxxx` (the IDs right after `=`) or remove it"
    )
    start, end = suppression.directive
    return Finding(
        "BL003",
        f"`{shown}` is no suppression benchlint reads: it suppresses nothing",
        Location(path, Span(suppression.line, start, suppression.line, end)),
        subject="malformed",
        help=help,
    )


def _named(selector: str, known: list[str]) -> list[str]:
    return known if selector == "ALL" else [i for i in known if i.startswith(selector)]


def _unknown(selector: str, known: list[str]) -> bool:
    return not _named(selector, known)


def _unused(selector: str, suppression: Suppression, known: list[str], ran: frozenset[str]) -> bool:
    named = _named(selector, known)
    return bool(named) and selector not in suppression.used and ran.issuperset(named)


def _removal(source: SourceText, suppression: Suppression, selector: str, stale: list[str]) -> Fix:
    """Remove the ID with its separator; the whole directive (and its line, if nothing else is
    on it) when every ID in it is stale."""
    line = suppression.line
    text = source.line_text(line)
    if len(stale) == len(suppression.rules):
        start, _ = suppression.directive
        before = text[: start - 1]
        if not before.strip():
            return Fix("remove the suppression", (line_removal(source, line, line),))
        kept = len(before.rstrip())
        edit = Edit(source.path, Span(line, kept + 1, line, len(text) + 1), "")
        return Fix("remove the suppression", (edit,))
    index = suppression.rules.index(selector)
    start, end = suppression.columns[index]
    if index + 1 < len(suppression.columns):  # up to the next ID: `BL101, ` of `BL101, BL102`
        end = suppression.columns[index + 1][0]
    else:  # from the end of the previous ID: `, BL102` of `BL101, BL102`
        start = suppression.columns[index - 1][1]
    return Fix(
        f"remove {selector} from the suppression",
        (Edit(source.path, Span(line, start, line, end), ""),),
    )
