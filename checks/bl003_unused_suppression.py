"""A `# benchlint: disable=` that suppresses nothing.

## What it does
Reports each rule ID of an inline suppression (`# benchlint: disable=BL102` on a line or the
line before, `# benchlint: disable-file=BL203`) that no finding of this run needed, and IDs that
name no benchlint rule at all (`disable=BL999`, a typo that silently disables nothing). Off by
default, like ruff's RUF100: turn it on with `--select BL003` (or a selection that includes it,
`ALL`) or `--show-unused-suppressions`.

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
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity, Span
from benchlint.registry import all_rules, rule


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
        for suppression in entries:
            kind = "disable-file" if suppression.whole_file else "disable"
            where = "in this file" if suppression.whole_file else "on this line or the next"
            for selector, (start, end) in zip(suppression.rules, suppression.columns, strict=True):
                named = known if selector == "ALL" else [i for i in known if i.startswith(selector)]
                span = Span(suppression.line, start, suppression.line, end)
                if not named:
                    yield Finding(
                        "BL003",
                        f"`{kind}={selector}` names no benchlint rule: it suppresses nothing",
                        Location(path, span),
                        subject=f"unknown:{selector}",
                        help="correct the ID (`benchlint rules` lists them) or remove it",
                    )
                elif selector not in suppression.used and ctx.ran.issuperset(named):
                    what = (
                        "no rule reports anything"
                        if selector == "ALL"
                        else (f"{selector} reports nothing")
                    )
                    yield Finding(
                        "BL003",
                        f"`{kind}={selector}` is unused: {what} {where}",
                        Location(path, span),
                        subject=f"unused:{selector}",
                        help="remove it",
                    )
