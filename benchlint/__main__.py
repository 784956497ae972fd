"""`python -m benchlint`."""

from benchlint.cli import main

main()
