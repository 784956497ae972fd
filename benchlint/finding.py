"""What a rule reports: a finding at a location, with related locations."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Literal, NamedTuple


def clip(text: str, width: int) -> str:
    """The text as a message quotes it: at most `width` characters, cut with `...`."""
    return text if len(text) <= width else text[: width - 3] + "..."


def listed(names: list[str], total: int | None = None, shown: int = 3) -> str:
    """Names as a message says them: the first `shown`, and how many more of `total` (by
    default, of the names)."""
    more = (len(names) if total is None else total) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "note": 1}[self.value]


class Span(NamedTuple):
    """1-based line and column; the end column is exclusive, as in SARIF."""

    line: int
    column: int
    end_line: int
    end_column: int

    @property
    def start(self) -> Span:
        """Its first character (where a finding about what starts there points)."""
        return Span(self.line, self.column, self.line, self.column + 1)


FILE_START = Span(1, 1, 1, 1)  # what is about a whole file (one that cannot be read or parsed)


@dataclass(frozen=True)
class Location:
    path: str  # repository-relative, with forward slashes
    span: Span
    label: str = ""

    def __str__(self) -> str:
        return f"{self.path}:{self.span.line}:{self.span.column}"


class Undecided(NamedTuple):
    """Something a rule could not decide, so did not report, and where: a document pass's
    result beside its findings (see `Context.count`)."""

    what: str
    where: Location


@dataclass(frozen=True)
class Edit:
    """Replace the text of `span` (end exclusive; an empty span inserts) with `text`."""

    path: str
    span: Span
    text: str


# Whether a fix keeps what the file means (as ruff decides it): "safe" removes the finding and
# changes nothing else a run does; "unsafe" changes what runs (it stops a script where it went
# on, moves a trap, reads a guessed intent): applied only when asked (`--unsafe-fixes`).
Applicability = Literal["safe", "unsafe"]


@dataclass(frozen=True)
class Fix:
    """Edits that remove the finding; `applicability` says whether they may change what runs
    or throw away what the author wrote (unsafe)."""

    description: str
    edits: tuple[Edit, ...]
    applicability: Applicability = "safe"


@dataclass
class Finding:
    rule: str
    message: str
    location: Location
    related: tuple[Location, ...] = ()
    # What the finding is about, independent of where the file's lines moved (for fingerprints).
    subject: str = ""
    severity: Severity | None = None  # None: the rule's default
    # how to fix it, one sentence (`= help:` in the text report; appended to the message
    # where a format has one text)
    help: str = ""
    # details a reader may want, each one sentence (`= note:` in the text report)
    notes: tuple[str, ...] = ()
    fix: Fix | None = None
    # what a finding that gathers several cases covers (the recipes that run a probe, the
    # entries whose jobs fail): a baseline that has the finding with fewer reports it again
    involves: tuple[str, ...] = ()
    fingerprint: str = field(default="", compare=False)

    @property
    def full_message(self) -> str:
        """The message, notes and help in one text, for formats with one message field."""
        text = self.message
        if self.notes:
            text += f" ({'; '.join(self.notes)})"
        return f"{text}; {self.help}" if self.help else text

    def locations(self) -> tuple[Location, ...]:
        return (self.location, *self.related)
