"""A script's model as plain data (tuples, lists, strings, ints, bools, None: what `marshal`
writes), and back: the per-file step's result for a shell file, kept in the cache by the file's
content and sent from a worker process.

The model is a graph (a word is shared by a command and an assignment, a guard by every command
under it, a read by two words, a nested script hangs from the command that runs it), so each kind
of object is a table and the references are indices into it. What a model derives on demand (a
command's invocation, a guard's condition and reads, `memo`, the tree for `Script.syntax`) is
not kept: it is derived again from what is. The file's own bytes are not kept either: the
decoded model reads them from the `SourceText` it is given, which must hold the same bytes.
"""

from __future__ import annotations

from typing import Any

from benchlint.shell.model import (
    Assignment,
    Command,
    Expansion,
    Guard,
    Heredoc,
    JoinedWord,
    Read,
    Redirect,
    Script,
    Syn,
    Word,
    file_char_of,
    nested_char_of,
)
from benchlint.source import SourceText

Encoded = tuple[Any, ...]


def encode_script(script: Script) -> Encoded:
    """A script as plain data (a nested script's `src` and `errexit_at_start` are its own:
    its parent's entry holds only the command that runs it and its offsets in the file)."""
    words: list[Any] = []
    word_index: dict[int, int] = {}
    reads: list[Any] = []
    read_index: dict[int, int] = {}
    commands = {id(c): i for i, c in enumerate(script.commands)}

    def read(r: Read) -> int:
        i = read_index.get(id(r))
        if i is None:
            i = read_index[id(r)] = len(reads)
            reads.append((r.name, r.operator, _syn(r.node), r.alone))
        return i

    def word(w: Word) -> int:
        i = word_index.get(id(w))
        if i is not None:
            return i
        parts = [word(p) for p in w.parts] if isinstance(w, JoinedWord) else None
        items = [word(x) for x in w.items] if w.items is not None else None
        i = word_index[id(w)] = len(words)
        own = [read(r) for r in w._reads]
        words.append((_syn(w.node), w.value, w._offsets, w.static, own, items, parts))
        return i

    guards: list[Any] = []
    guard_index: dict[int, int] = {}

    def guard(g: Guard) -> int:
        i = guard_index.get(id(g))
        if i is None:
            i = guard_index[id(g)] = len(guards)
            guards.append((_syn(g.node), g.expect, [_syn(p) for p in g.patterns]))
        return i

    loops: list[Any] = []  # each distinct tuple of loops once (the commands of a body share it)
    loop_index: dict[int, int] = {}

    def loop(c: Command) -> int | None:
        if not c.loops:
            return None
        i = loop_index.get(id(c.loops))
        if i is None:
            i = loop_index[id(c.loops)] = len(loops)
            loops.append([_syn(where) for where in c.loops])
        return i

    encoded_commands = [
        (
            _syn(c.node),
            [word(w) for w in c.words],
            c.tested,
            c.or_guarded,
            c.piped,
            c.errexit,
            c.pipefail,
            c.function,
            _syn(c.subshell),
            c.background,
            _syn(c.apart),
            _syn(c.group),
            [(_syn(h.node), _syn(h.body), h.quoted, h.tabs) for h in c.heredocs],
            [guard(g) for g in c.guards],
            [(r.operator, word(r.target)) for r in c.redirects],
            loop(c),
        )
        for c in script.commands
    ]
    assignments = [
        (
            a.name,
            word(a.value) if a.value is not None else None,
            _syn(a.node),
            commands[id(a.command)],
            a.kind,
            a.exported,
        )
        for a in script.assignments
    ]
    nested = [
        (
            commands[id(inner.parent)],
            inner.offsets,
            encode_script(inner),
            inner.may_differ,
            inner.verbatim,
        )
        for inner in script.nested
        if inner.parent is not None
    ]
    return (
        script.src if script.parent is not None or script.src != script.file.data else None,
        script.errexit_at_start,
        script.has_error,
        script.error_row,
        words,
        reads,
        guards,
        encoded_commands,
        assignments,
        [(e.name, e.operator, _syn(e.node)) for e in script.expansions],
        [(name, _syn(where)) for name, where in script.functions.items()],
        nested,
        loops,
        script.parse_src,
        sorted(script.timed),
    )


def decode_script(file: SourceText, encoded: Encoded) -> Script:
    """The script `encode_script` encoded, over the file it was made from."""
    src = encoded[0]
    errexit = encoded[1]
    script = Script(
        file, file.data if src is None else src, file_char_of(file), None, errexit, False
    )
    script.parse_src = encoded[13]
    script.timed = frozenset(encoded[14])
    _fill(script, encoded)
    return script


def _syn(where: Syn | None) -> tuple[str, int, int] | None:
    return None if where is None else (where.type, where.start_byte, where.end_byte)


def _fill(script: Script, encoded: Encoded) -> None:
    (_, _, has_error, error_row, words_, reads_, guards_, commands_) = encoded[:8]
    assignments_, expansions_, functions_, nested_, loops_ = encoded[8:13]
    loops = [tuple(Syn(*where) for where in inner) for inner in loops_]
    script.has_error = has_error
    script.error_row = error_row
    reads = [Read(name, op, Syn(*where), script, alone) for name, op, where, alone in reads_]
    words: list[Word] = []
    for where, value, offsets, static, own, items, parts in words_:
        if parts is not None:
            joined = words[parts[0]]
            for part in parts[1:]:
                joined = JoinedWord(joined, words[part])
            words.append(joined)
            continue
        words.append(
            Word(
                script,
                Syn(*where),
                value,
                offsets,
                static,
                tuple(reads[i] for i in own),
                None if items is None else [words[i] for i in items],
            )
        )
    commands: list[Command] = []
    guard_ids: list[list[int]] = []
    for (
        where,
        command_words,
        tested,
        or_guarded,
        piped,
        errexit,
        pipefail,
        function,
        subshell,
        background,
        apart,
        group,
        heredocs,
        under,
        redirects,
        loop,
    ) in commands_:
        command = Command(
            script,
            Syn(*where),
            [words[i] for i in command_words],
            tested=tested,
            or_guarded=or_guarded,
            piped=piped,
            errexit=errexit,
            pipefail=pipefail,
            function=function,
            subshell=Syn(*subshell) if subshell is not None else None,
            loops=loops[loop] if loop is not None else (),
        )
        command.background = background
        command.apart = Syn(*apart) if apart is not None else None
        command.group = Syn(*group) if group is not None else None
        command.heredocs = tuple(
            Heredoc(Syn(*h), Syn(*body) if body is not None else None, quoted, tabs)
            for h, body, quoted, tabs in heredocs
        )
        command.redirects = tuple(Redirect(op, words[i]) for op, i in redirects)
        commands.append(command)
        guard_ids.append(under)
    guards = [
        Guard(Syn(*where), expect, tuple(Syn(*p) for p in patterns), script)
        for where, expect, patterns in guards_
    ]
    for command, under in zip(commands, guard_ids, strict=True):
        command.guards = tuple(guards[i] for i in under)
    script.commands = commands
    for name, value, where, index, kind, exported in assignments_:
        command = commands[index]
        assignment = Assignment(
            name, words[value] if value is not None else None, Syn(*where), command, kind, exported
        )
        command.assignments += (assignment,)
        script.assignments.append(assignment)
    script.expansions = [Expansion(n, op, Syn(*where), script) for n, op, where in expansions_]
    script.functions = {name: Syn(*where) for name, where in functions_}
    for index, offsets, inner_encoded, may_differ, verbatim in nested_:
        src, errexit = inner_encoded[0], inner_encoded[1]
        value = src.decode("utf-8", errors="surrogateescape")
        inner = Script(
            script.file, src, nested_char_of(value, offsets), commands[index], errexit, False
        )
        inner.offsets = offsets
        inner.may_differ = may_differ
        inner.verbatim = verbatim
        _fill(inner, inner_encoded)
        script.nested.append(inner)


# -- guards' facts ------------------------------------------------------------------------------
# A guard's condition and reads are worked out from the script parsed again, the first time a
# rule decides one of its guards (`Script.guard_facts`). They depend on the file's content only,
# so a run keeps what it worked out in the cache, beside the model, and a later run that meets
# the same content takes them from there instead of parsing the script again.
def encode_guard_facts(script: Script) -> list[Any] | None:
    """The facts of the guards of a script and of each script nested in it (in `Script.walk`
    order, None for one whose guards were not all worked out); None when none were."""
    encoded: list[Any] = []
    for inner in script.walk():
        commands = {id(c): i for i, c in enumerate(inner.commands)}
        found: dict[tuple[Syn, bool], Any] | None = {}
        for guard in (g for c in inner.commands for g in c.guards):
            if guard.facts is None or found is None:
                found = None
                break
            key = (guard.node, bool(guard.patterns))
            if key in found:
                continue
            condition, reads, test_reads = guard.facts
            try:
                plain = _plain(condition, commands)
            except KeyError:  # a command of another script: not kept
                found = None
                break
            found[key] = (
                _syn(guard.node),
                key[1],
                plain,
                [_read(r) for r in reads],
                [_read(r) for r in test_reads],
            )
        encoded.append(None if found is None else list(found.values()))
    return encoded if any(entry for entry in encoded) else None


def apply_guard_facts(script: Script, encoded: Any) -> None:
    """Set the guards' facts `encode_guard_facts` encoded for the same content; data of any
    other shape is ignored (the guards' facts are then worked out as usual)."""
    try:
        inners = list(script.walk())
        if not isinstance(encoded, list) or len(encoded) != len(inners):
            return
        for inner, entries in zip(inners, encoded, strict=True):
            if entries is None:
                continue
            facts = {
                (Syn(*where), patterned): (
                    _unplain(condition, inner.commands),
                    tuple(_unread(r, inner) for r in reads),
                    tuple(_unread(r, inner) for r in test_reads),
                )
                for where, patterned, condition, reads, test_reads in entries
            }
            for guard in (g for c in inner.commands for g in c.guards):
                if guard.facts is None:
                    guard.facts = facts.get((guard.node, bool(guard.patterns)))
    except (TypeError, ValueError, IndexError):
        return


def _plain(condition: Any, commands: dict[int, int]) -> Any:
    """A condition (`conditions.py`: tuples of strings, bools, `Syn`s and `Command`s) as plain
    data: a `Syn` becomes ["syn", type, start, end] and a command ["command", its index] (lists
    never occur in a condition)."""
    if isinstance(condition, Syn):
        return ["syn", *condition]
    if isinstance(condition, Command):
        return ["command", commands[id(condition)]]
    if isinstance(condition, tuple):
        return tuple(_plain(part, commands) for part in condition)
    return condition


def _unplain(data: Any, commands: list[Command]) -> Any:
    if isinstance(data, list):
        return Syn(*data[1:]) if data[0] == "syn" else commands[data[1]]
    if isinstance(data, tuple):
        return tuple(_unplain(part, commands) for part in data)
    return data


def _read(read: Read) -> tuple[Any, ...]:
    return (read.name, read.operator, _syn(read.node), read.alone)


def _unread(data: tuple[Any, ...], script: Script) -> Read:
    name, operator, where, alone = data
    return Read(name, operator, Syn(*where), script, alone)
