"""The shell model keeps facts, not tree-sitter's tree: each fact must agree with what the tree
says (read here from the tree, parsed again), and the shortcuts taken while building them must
agree with the general path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st
from tree_sitter import Node

from benchlint.shell import Script, parse_file
from benchlint.shell.model import Read, Word, syn
from benchlint.shell.words import _unescape, _verbatim
from benchlint.source import SourceText

ROOT = Path(__file__).resolve().parent.parent

# reads of every kind: quoted, in defaults, in substitutions, arrays, subscripts, `$1`, a
# backquote, a heredoc, conditions of each kind, a word tree-sitter-bash splits
SAMPLE = r"""#!/bin/bash
set -e
A=${B:-$C} D="${E%/*}/x" F=( $G "${H[@]}" '$NOT' )
cmd --model $MODEL "--tp=$TP" ${#LIST} ${ARR[$I]} $1 "$@" `echo $BQ` "$(basename "$P")"
if [ -n "$X" ] && [[ ! -z $Y || $Z == a* ]]; then echo "$W"; elif ! test "$Q"; then :; fi
case "$MODE" in a|b) echo $IN_CASE ;; *) ;; esac
[ "$R" = 1 ] || echo "${S:?need S}"
cat <<END > out
$HEREDOC ${HD2}
END
srun bash -c "echo \$ESCAPED $OUTER; exit 1"
run --x=$A:$B
"""

Fact = tuple[str, str, int, int, bool]


def _oracle(node: Node, src: bytes) -> Iterator[Fact]:
    """The reads of a node found by walking the tree, as the model once found them."""
    kind = node.type
    if kind in ("simple_expansion", "expansion"):
        names = [c for c in node.named_children if c.type == "variable_name"]
        subscript = next((c for c in node.named_children if c.type == "subscript"), None)
        parent = node.parent
        alone = parent is not None and parent.type in ("command", "array")
        text = src[names[0].start_byte : names[0].end_byte].decode() if names else ""
        if names and text.isidentifier():
            operator = node.child_by_field_name("operator")
            op = src[operator.start_byte : operator.end_byte].decode() if operator else ""
            yield text, op, node.start_byte, node.end_byte, alone
        elif subscript is not None:
            name = subscript.child_by_field_name("name")
            if name is not None:
                name_text = src[name.start_byte : name.end_byte].decode()
                yield name_text, "[", node.start_byte, node.end_byte, alone
    for child in node.named_children:
        yield from _oracle(child, src)


def _facts(reads: tuple[Read, ...]) -> list[Fact]:
    return [(r.name, r.operator, r.node.start_byte, r.node.end_byte, r.alone) for r in reads]


def _scripts() -> Iterator[Script]:
    yield from parse_file(SourceText("sample.sh", SAMPLE.encode())).walk()
    for path in sorted((ROOT / "testdata").rglob("*.sh")):
        yield from parse_file(SourceText(path.name, path.read_bytes())).walk()


def _words(script: Script) -> Iterator[Word]:
    for command in script.commands:
        yield from command.words[1 if command.node.type == "declaration_command" else 0 :]
        for assignment in command.assignments:
            if assignment.value is not None:
                yield assignment.value
                yield from assignment.value.items or []
        for redirect in command.redirects:
            yield redirect.target


def test_every_word_reads_what_the_tree_says() -> None:
    checked = 0
    for script in _scripts():
        for word in _words(script):
            for part in getattr(word, "parts", [word]):
                node = script.syntax(part.node)
                assert syn(node) == part.node
                want = list(_oracle(node, script.src))
                assert _facts(part._reads) == want, script.text_of(part.node)
                checked += 1
    assert checked > 200


def test_every_guard_reads_what_the_tree_says() -> None:
    checked = 0
    for script in _scripts():
        for command in script.commands:
            for guard in command.guards:
                node = script.syntax(guard.node)
                assert _facts(guard.reads) == list(_oracle(node, script.src))
                checked += 1
    assert checked > 20


def test_the_tree_is_let_go_and_found_again_on_demand() -> None:
    script = parse_file(SourceText("sample.sh", SAMPLE.encode()))
    assert script._tree is None
    for command in script.all_commands():
        node = command.script.syntax(command.node)
        assert (node.type, node.start_byte, node.end_byte) == tuple(command.node)
    assert script._tree is not None


def test_a_whole_word_variable_is_read_from_its_text() -> None:
    cases = {
        "$X": "X",
        "${X}": "X",
        '"$X"': "X",
        '"${X}"': "X",
        '"$X "': None,
        "${X:-d}": None,
        "${#X}": None,
        "${X[0]}": None,
        "$1": None,
        '"$@"': None,
        "'$X'": None,
        "a$X": None,
        '"$X"y': None,
    }
    for text, want in cases.items():
        script = parse_file(SourceText("t.sh", f"cmd {text}\n".encode()))
        word = script.commands[0].words[1]
        assert word.variable() == want, text


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet='ab\\\n"$` é', max_size=12),
    escapes=st.sampled_from([None, frozenset('$`"\\'), frozenset("$`\\")]),
)
@example(text="a\\\nb\\", escapes=None)
@example(text='\\"\\a\\\\', escapes=frozenset('$`"\\'))
def test_the_contiguous_path_agrees_with_the_per_character_path(
    text: str, escapes: frozenset[str] | None
) -> None:
    """Quote removal over text whose characters lie one after the other in the file takes a
    shortcut; the same text mapped to scattered offsets (as a nested script's are) takes the
    general path. The values must be the same, and the offsets the same up to the mapping."""
    src = text.encode("utf-8", "surrogateescape")
    results = []
    for step in (1, 3):  # 3: every offset scattered, so no shortcut
        out: list[str] = []
        offsets: list[int] = []
        _unescape(0, len(src), src, lambda b, s=step: b * s, out, offsets, escapes)  # type: ignore[misc]
        results.append(("".join(out), [o // step for o in offsets]))
        verbatim: list[str] = []
        _verbatim(0, len(src), src, lambda b, s=step: b * s, verbatim, [])  # type: ignore[misc]
        assert "".join(verbatim) == text
    assert results[0] == results[1]


def test_a_model_survives_the_trip_through_plain_data() -> None:
    """Encoded, marshalled, decoded: the same model, down to which objects are shared (a guard
    of many commands, a read of a word and a guard), encoded again to the same data."""
    import marshal

    from benchlint.shell.summary import decode_script, encode_script

    files = [SourceText("sample.sh", SAMPLE.encode())]
    files += [SourceText(p.name, p.read_bytes()) for p in sorted((ROOT / "testdata").rglob("*.sh"))]
    for file in files:
        script = parse_file(file)
        encoded = encode_script(script)
        decoded = decode_script(file, marshal.loads(marshal.dumps(encoded)))
        assert encode_script(decoded) == encoded, file.path
        before = [(c.span, c.name, [w.value for w in c.words]) for c in script.all_commands()]
        after = [(c.span, c.name, [w.value for w in c.words]) for c in decoded.all_commands()]
        assert after == before
        guards = {id(g) for c in decoded.commands for g in c.guards}
        assert len(guards) == len({id(g) for c in script.commands for g in c.guards})
        for command in decoded.all_commands():
            assert all(
                g.condition is None
                or g.condition[0] != "command"
                or g.condition[1] is None
                or g.condition[1].script is command.script
                for g in command.guards
            )


def _guard_facts(script: Script) -> list[object]:
    """Every guard's condition and reads as plain values: a command by its index."""
    index = {id(c): i for i, c in enumerate(script.commands)}

    def plain(value: object) -> object:
        if isinstance(value, tuple) and not hasattr(value, "start_byte"):
            return tuple(plain(v) for v in value)
        if hasattr(value, "guards"):
            return ("command", index[id(value)])
        return value

    return [
        (g.node, g.expect, plain(g.condition), _facts(g.reads), _facts(g.test_reads))
        for c in script.commands
        for g in c.guards
    ]


def test_guards_facts_survive_the_trip_through_plain_data() -> None:
    """Worked out on one model, encoded, marshalled and set on a model decoded from the cache:
    every guard of every script (nested ones too) has the same condition and reads, and none is
    worked out again (the script is not parsed again)."""
    import marshal

    from benchlint.shell.summary import (
        apply_guard_facts,
        decode_script,
        encode_guard_facts,
        encode_script,
    )

    files = [SourceText("sample.sh", SAMPLE.encode())]
    files += [SourceText(p.name, p.read_bytes()) for p in sorted((ROOT / "testdata").rglob("*.sh"))]
    guarded = 0
    for file in files:
        script = parse_file(file)
        model = marshal.loads(marshal.dumps(encode_script(script)))
        assert encode_guard_facts(script) is None  # nothing worked out yet
        expected = [_guard_facts(inner) for inner in script.walk()]
        stored = marshal.loads(marshal.dumps(encode_guard_facts(script)))
        decoded = decode_script(file, model)
        apply_guard_facts(decoded, stored)
        assert all(g.facts is not None for c in decoded.all_commands() for g in c.guards)
        assert [_guard_facts(inner) for inner in decoded.walk()] == expected, file.path
        guarded += sum(len(facts) for facts in expected)
    assert guarded > 20


def test_guards_facts_of_other_content_are_not_set() -> None:
    """Data of another shape (another script's, or garbled) sets nothing: the facts are then
    worked out from the script as usual."""
    from benchlint.shell.summary import apply_guard_facts, encode_guard_facts

    script = parse_file(SourceText("sample.sh", SAMPLE.encode()))
    for inner in script.walk():
        inner.guard_facts()
    other = parse_file(SourceText("other.sh", b'if [ -n "$A" ]; then echo; fi\n'))
    for data in (encode_guard_facts(script), [None], "garbled", [[("x",)]]):
        apply_guard_facts(other, data)
        assert [g.facts for c in other.commands for g in c.guards] == [None]
    operand = ("string", 8, 12)  # "$A"
    assert other.commands[0].guards[0].condition == ("test", False, ("unary", "-n", operand))


def test_every_node_is_found_again_in_scripts_that_do_not_parse() -> None:
    """Cut short or broken off after an operator, a script parses with empty nodes where text
    is missing (`a &&` has an empty command after `&&`): each is found again like any other."""
    texts = [SAMPLE] + [p.read_text() for p in sorted((ROOT / "testdata").rglob("*.sh"))]
    endings = ["&&\n", "||\n", "| \n", "if x; then\n", "$(", '"', "case $X in\n", "${"]
    checked = 0
    for text in texts:
        for cut in range(0, len(text), max(1, len(text) // 7)):
            for ending in endings:
                script = parse_file(SourceText("t.sh", (text[:cut] + ending).encode()))
                for inner in script.walk():
                    inner.guard_facts()
                    for command in inner.commands:
                        node = inner.syntax(command.node)
                        assert syn(node) == command.node
                        command.statement()
                        checked += 1
    assert checked > 1000


def test_a_start_paths_layers_read_as_the_merged_dict() -> None:
    # a route into a script called from another keeps the caller's environment as a view over
    # the routes into the caller; read as a whole it is `{**into the caller, **passed}`
    from collections import ChainMap

    from benchlint.environment import Provenance, StartPath

    def p(what: str) -> Provenance:
        return Provenance(what)

    launcher = {"MODEL": p("entry"), "TP": p("entry"), "PORT": p("step")}
    middle = {"TP": p("set on the command"), "HOST": p("export")}
    last = {"PORT": p("export"), "LOG": p("export")}
    layered = ChainMap(last, ChainMap(middle, launcher))  # type: ignore[arg-type]
    merged = {**{**launcher, **middle}, **last}
    route = StartPath("a -> b -> c", layered, True)
    assert list(route.variables().items()) == list(merged.items())
    assert list(route.env.items()) == list(merged.items())
    assert StartPath("a", launcher, True).variables() is launcher
