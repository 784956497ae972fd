"""What a variable holds where a command reads it, where the script says so plainly: the one
value it gives the variable before the command (`once_before`). Rules that read a word a
variable holds in its place (`python3 $OPTS`, `srun "${SRUN_ARGS[@]}"`) ask here.
"""

from __future__ import annotations

from benchlint.shell.invocation import LONE_VARIABLE
from benchlint.shell.model import Assignment, Command, Heredoc, Script, Word


def once_before(command: Command, name: str) -> Word | None:
    """The value the script (the command's shell) assigns the variable, where it does so once,
    before the command, and nowhere appends to it (`NAME+=`); None otherwise. A string `eval`
    runs, or a string variable's words run (`$CMD`), is read in the shell that runs it: its
    assignments are those before it (`same_shell`)."""
    assignment = _only_before(command, name, _ASSIGNING)
    return assignment.value if assignment is not None else None


def read_before(command: Command, name: str) -> tuple[Heredoc, Script] | None:
    """The heredoc whose whole text the script's one assignment of the variable before the
    command reads into it, as `once_before` finds one: `read -r -d '' NAME <<EOF` (an empty
    delimiter: `read` reads to the end of its input, all of the heredoc, into one name; it
    trims the blanks around it, which split away anyway where the value runs unquoted), and
    the script of the `read`. None for any other `read`."""
    assignment = _only_before(command, name, ("read",))
    if assignment is None:
        return None
    at = assignment.command
    words = [w.value if w.static else None for w in at.args]
    delimiter = whole = False
    for word in words[:-1]:
        if delimiter:  # (the delimiter: `''`)
            if word != "":
                return None
            delimiter, whole = False, True
        elif word is None or not word.startswith("-") or word == "-":
            return None
        elif set(word[1:]) - set("rsd") or ("d" in word and not word.endswith("d")):
            return None  # (another option, or `-dr`: `r` is the delimiter)
        else:
            delimiter = word.endswith("d")
    if len(at.heredocs) != 1 or any(r.operator in ("<", "<<<") for r in at.redirects):
        return None
    return (at.heredocs[0], at.script) if whole and words[-1:] == [name] else None


_ASSIGNING = ("assign", "export", "declare", "readonly", "local")


def built_before(command: Command, name: str) -> list[tuple[Word, int]] | None:
    """The string (or array) the script builds in the variable before the command, where it
    gives it one value and then only appends to it (`o="$o --x"`, `o="${o} --x"`, `o+=" --x"`;
    `args=(--a 1)` then `args+=(--b 2)`), also under a condition (read as a run that takes every
    branch gives it): each assignment's value and where in it the text it adds starts (an
    array's: its items, all). None where the script does anything else (assigns it once:
    `once_before`; gives it another value later, in a loop, unsets it), where
    the first value is given under a condition the command is not under, or where an
    assignment may not reach the command (`_reaches`)."""
    command, owner, assigned = _assignments_of(command, name)
    if len(assigned) < 2 or any(a.node.start_byte > command.node.start_byte for a in assigned):
        return None
    first, *rest = assigned
    value = first.value
    if first.kind not in _ASSIGNING or value is None:
        return None
    array = value.items is not None  # (`args=(--a 1)`, then `args+=(--b 2)`: items appended)
    if owner.text_of(first.node).startswith(f"{name}+=") or _starts_with(value, name):
        return None  # (the caller's value, appended to: not known)
    around = {id(g) for g in command.guards}
    if any(id(g) not in around for g in first.command.guards):
        return None
    found = [(value, 0)]
    for assignment in rest:
        given = assignment.value
        if assignment.kind not in _ASSIGNING or given is None:
            return None
        if (given.items is not None) != array:
            return None
        if owner.text_of(assignment.node).startswith(f"{name}+="):
            found.append((given, 0))
        elif not array and (start := _starts_with(given, name)) is not None:
            found.append((given, start))
        else:
            return None
    if any(a.command.loops or not _reaches(a, command) for a in assigned):
        return None
    if any(_unsets(c, name, command) for c in owner.commands):
        return None
    return found


def _starts_with(value: Word, name: str) -> int | None:
    """Where the rest of a value starts after the variable's own value it begins with (`$o`,
    `${o}`); None where it does not begin so."""
    match = LONE_VARIABLE.match(value.value)
    if match is None or (match.group(1) or match.group(2)) != name:
        return None
    return match.end()


def _assignments_of(command: Command, name: str) -> tuple[Command, Script, list[Assignment]]:
    """The assignments of the variable in the shell that runs the command: its script's, or,
    where it has none and runs in its parent's shell (`eval`, `$CMD`), the parent's; with the
    command of that shell the command runs in, and that shell's script."""
    owner = command.script
    assigned = [a for a in owner.assignments if a.name == name]
    while not assigned and owner.parent is not None and same_shell(owner.parent):
        command = owner.parent
        owner = command.script
        assigned = [a for a in owner.assignments if a.name == name]
    return command, owner, assigned


def _only_before(command: Command, name: str, kinds: tuple[str, ...]) -> Assignment | None:
    """The script's one assignment of the variable (of these kinds), before the command, that
    reaches it with nothing unsetting it between (`once_before`)."""
    command, owner, assigned = _assignments_of(command, name)
    if len(assigned) != 1 or assigned[0].kind not in kinds:
        return None
    assignment = assigned[0]
    if kinds == _ASSIGNING and assignment.value is None:
        return None
    node = assignment.node
    if node.start_byte > command.node.start_byte or owner.text_of(node).startswith(f"{name}+="):
        return None
    if not _reaches(assignment, command):
        return None
    if any(_unsets(c, name, command) for c in owner.commands):
        return None  # (`unset NAME` may come between)
    return assignment


def _unsets(unset: Command, name: str, command: Command) -> bool:
    """Whether `unset NAME` (not `unset -f`, a function) may run before the command: before
    it, at the top level or in the command's own function, or in a function the top level
    calls before it."""
    if unset.base != "unset":
        return False
    words = [w.value for w in unset.args]
    if "-f" in words or name not in words:
        return False
    if unset.function is None or unset.function == command.function:
        return unset.node.start_byte < command.node.start_byte
    # (another function's: where the top level calls it before the command may run)
    called = _first_call(command.script, unset.function)
    when = _first_call(command.script, command.function) if command.function else command
    return called is not None and (when is None or called.node.start_byte < when.node.start_byte)


def _reaches(assignment: Assignment, command: Command) -> bool:
    """Whether the shell that runs the command holds what the assignment gives: a statement
    of its own (not `NAME=v cmd`, which sets it for `cmd` alone), not in a subshell, a
    pipeline or the background (their own shells), nor a function's `local` where the command
    is not in that function; a function's global only where the top level calls the function
    before the command (`setup() { X=1; }; setup`)."""
    at = assignment.command
    if at.background:
        return False
    apart = at.apart  # (a pipeline's element: the command only if in the same one)
    if apart is not None and not apart.start_byte <= command.node.start_byte < apart.end_byte:
        return False
    if at.subshell and not same_subshell(at, command):
        return False
    if at.function is None or at.function == command.function:
        return True
    if assignment.kind == "local":
        return False
    # (the function that assigns it called by the command's own function before it: `main()
    # { setup; srun $A; }`)
    if command.function is not None:
        inner = _first_call(command.script, at.function, command.function)
        if inner is not None and inner.node.start_byte < command.node.start_byte:
            return True
    # (or at the top level before the command runs: before the command itself, or before the
    # first call of the command's function)
    when = _first_call(command.script, command.function) if command.function else command
    if when is None:
        return False
    called = _first_call(command.script, at.function)
    return called is not None and called.node.start_byte < when.node.start_byte


def same_subshell(at: Command, command: Command) -> bool:
    """Whether the command is in the subshell the assignment is in (`( A=1; srun $A )`), or in
    one nested in it, after it."""
    shell = at.subshell
    return (
        shell is not None
        and command.node.start_byte >= at.node.end_byte
        and shell.start_byte <= command.node.start_byte < shell.end_byte
    )


def _first_call(script: Script, function: str, within: str | None = None) -> Command | None:
    """The first command of the script's top level (or of the body of the function `within`)
    that calls the function, in its own shell."""
    return next(
        (
            c
            for c in script.commands
            if c.words
            and c.words[0].value == function
            and c.function == within
            and not (c.subshell or c.background or c.apart)
        ),
        None,
    )


def same_shell(command: Command) -> bool:
    """Whether the script nested in the command runs in the command's own shell: a string
    `eval` runs, or the words a string variable splits into (`$CMD --port 1`), not a shell of
    its own (`bash -c`, `ssh host '...'`)."""
    words = command.invocation.words
    return command.base == "eval" or (
        bool(words) and words[0].node.type in ("simple_expansion", "expansion")
    )
