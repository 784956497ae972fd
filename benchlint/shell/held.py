"""What a variable holds where a command reads it, where the script says so plainly: the one
value it gives the variable before the command (`once_before`). Rules that read a word a
variable holds in its place (`python3 $OPTS`, `srun "${SRUN_ARGS[@]}"`) ask here.
"""

from __future__ import annotations

from benchlint.shell.model import Assignment, Command, Word


def once_before(command: Command, name: str) -> Word | None:
    """The value the script (the command's shell) assigns the variable, where it does so once,
    before the command, and nowhere appends to it (`NAME+=`); None otherwise. A string `eval`
    runs, or a string variable's words run (`$CMD`), is read in the shell that runs it: its
    assignments are those before it (`same_shell`)."""
    owner = command.script
    assigned = [a for a in owner.assignments if a.name == name]
    while not assigned and owner.parent is not None and same_shell(owner.parent):
        command = owner.parent
        owner = command.script
        assigned = [a for a in owner.assignments if a.name == name]
    if len(assigned) != 1 or assigned[0].value is None:
        return None
    assignment = assigned[0]
    node = assignment.node
    if node.start_byte > command.node.start_byte or owner.text_of(node).startswith(f"{name}+="):
        return None
    if not _reaches(assignment, command):
        return None
    if any(
        c.base == "unset" and any(w.value == name for w in c.args)
        for c in owner.commands
        if c.node.start_byte < command.node.start_byte
    ):
        return None  # (`unset NAME` may come between)
    return assignment.value


def _reaches(assignment: Assignment, command: Command) -> bool:
    """Whether the shell that runs the command holds what the assignment gives: a statement
    of its own (not `NAME=v cmd`, which sets it for `cmd` alone), not in a subshell the command
    is not in, nor in a function the command is not in (`local`, or one that may not have run:
    `setup() { X=1; }`)."""
    at = assignment.command
    if assignment.kind not in ("assign", "export", "declare", "readonly", "local"):
        return False
    if at.subshell and not command.subshell:
        return False
    return at.function is None or at.function == command.function


def same_shell(command: Command) -> bool:
    """Whether the script nested in the command runs in the command's own shell: a string
    `eval` runs, or the words a string variable splits into (`$CMD --port 1`), not a shell of
    its own (`bash -c`, `ssh host '...'`)."""
    words = command.invocation.words
    return command.base == "eval" or (
        bool(words) and words[0].node.type in ("simple_expansion", "expansion")
    )
