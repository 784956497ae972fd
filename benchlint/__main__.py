"""`python -m benchlint`."""

from benchlint.cli import entry

entry()
