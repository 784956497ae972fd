"""Shell scripts as a model rules can query (see benchlint.shell.model)."""

from benchlint.shell.model import Assignment, Command, Expansion, Script, Word, parse_file

__all__ = ["Assignment", "Command", "Expansion", "Script", "Word", "parse_file"]
