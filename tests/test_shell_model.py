"""The shell model: quoting undone with positions kept, nested shells, errexit, assignments."""

from __future__ import annotations

from pathlib import Path

import pytest
import tree_sitter_bash
from hypothesis import given, settings
from hypothesis import strategies as st
from tree_sitter import Language, Query, QueryCursor

from benchlint.shell import Script, held, model, parse_file
from benchlint.shell.model import expansion_nodes, parse_tree
from benchlint.source import SourceText, char_offsets
from tests.conftest import TESTDATA, run_lint, write_repo


def parse(text: str) -> Script:
    return parse_file(SourceText("t.sh", text.encode()))


def where(script: Script, name: str) -> list[tuple[int, int, bool]]:
    return [
        (c.span.line, c.span.column, c.errexit) for c in script.all_commands() if c.name == name
    ]


def test_nested_positions_across_escapes_and_line_breaks() -> None:
    script = parse(
        'set -e\nsrun -N2 bash -c "echo \\"a\\" \\\n  && touch \\"$F\\"; ssh h \'mkdir -p /x\'"\n'
    )
    (inner,) = script.nested
    assert inner.parent is not None and inner.parent.name == "srun"
    assert where(script, "echo") == [(2, 19, False)]
    assert where(script, "touch") == [(3, 6, False)]
    (remote,) = inner.nested
    assert where(remote, "mkdir") == [(3, 27, False)]
    assert where(script, "srun") == [(2, 1, True)]


def test_unicode_columns_are_characters() -> None:
    script = parse('echo "héllo"; bash -c "echo ünïcode; mkdir x"\n')
    assert where(script, "mkdir") == [(1, 38, False)]


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab \n\u00e9\u2014\U0001f600\udc80\u0800\u07ff"), max_size=40)
)
def test_a_byte_gives_the_character_it_belongs_to(text: str) -> None:
    """`char_offsets` against UTF-8 itself: each byte of the encoded text (an undecodable byte
    kept as an escape is one byte) gives the index of the character whose bytes hold it, and
    the byte after the last gives the length."""
    expected = [i for i, c in enumerate(text) for _ in c.encode("utf-8", "surrogateescape")]
    expected.append(len(text))
    char_of = char_offsets(text)
    if text.isascii():
        assert char_of is None
        return
    assert char_of is not None
    assert [char_of(b) for b in range(len(expected))] == expected


def test_errexit_state() -> None:
    script = parse(
        "#!/bin/bash -e\n"
        "a\n"
        "set +e\n"
        "b\n"
        "set -euo pipefail\n"
        "c\n"
        "( set +e; d )\n"
        "e\n"
        "x=$(f)\n"
        "bash -ec 'g'\n"
    )
    flags = [(c.name, c.errexit) for c in script.all_commands() if c.name != "set"]
    assert flags == [
        ("a", True),
        ("b", False),
        ("c", True),
        ("d", False),
        ("e", True),
        (None, True),
        ("f", False),
        ("bash", True),
        ("g", True),
    ]


def test_conditions_and_guards() -> None:
    script = parse("if a; then b; fi\nc || d\ne && f\n! g\nh | i\nwhile j; do k; done\n")
    tested = {c.name: (c.tested, c.or_guarded) for c in script.commands}
    assert tested == {
        "a": (True, False),
        "b": (False, False),
        "c": (True, True),
        "d": (False, False),
        "e": (True, False),
        "f": (False, False),
        "g": (True, False),
        "h": (True, False),
        "i": (False, False),
        "j": (True, False),
        "k": (False, False),
    }


def test_a_substitution_in_an_assignment_runs_under_its_guards() -> None:
    """`J=$(bash run.sh)` inside an if runs only when the if's condition holds."""
    script = parse('if [[ "$F" == x ]]; then\n  J=$(bash run.sh)\nfi\nK=$(bash other.sh)\n')
    guards = {
        c.words[1].value: [script.text_of(g.node) for g in c.guards]
        for c in script.all_commands()
        if c.name == "bash"
    }
    assert guards == {"run.sh": ['[[ "$F" == x ]]'], "other.sh": []}


def test_assignments_and_expansions() -> None:
    script = parse(
        'export A="$A" B=${B} C="${C:-x}"\nD=1 cmd\nread -r E F\n: "${G:=1}" "${H:?}"\n'
        "declare -x I\nlocal J=$J\nfor K in 1; do :; done\n"
    )
    found = [
        (a.name, a.kind, a.exported, a.value.variable() if a.value else None)
        for a in script.assignments
    ]
    assert found == [
        ("A", "export", True, "A"),
        ("B", "export", True, "B"),
        ("C", "export", True, None),
        ("D", "prefix", True, None),
        ("E", "read", False, None),
        ("F", "read", False, None),
        ("G", "default", False, None),
        ("I", "declare", True, None),
        ("J", "local", False, "J"),
        ("K", "for", False, None),
    ]
    assert [(e.name, e.operator) for e in script.expansions if e.operator] == [
        ("C", ":-"),
        ("G", ":="),
        ("H", ":?"),
    ]


def test_a_name_a_builtin_is_given_in_a_variable_is_known_at_run_time() -> None:
    """`read "$name"`, `mapfile -t "$1"`, `printf -v "$v"`: a variable whose name the script
    does not give ("dynamic", as `export "$k=$v"`); `printf -v "A[0]"` assigns A (`$A`); a
    name reference, `declare -n r=OUT`, names OUT; near misses: `read "B[1]"` and `printf -v
    "C[$i]"` leave `$B` and `$C` as they were (h76 R3, R4: not followed, as `B[1]=x`),
    `printf '%s' -v D` prints `-v` (h76 M2), `local -n r=$1` (not known), `declare r=OUT` (a
    value)."""
    script = parse(
        'read -r "$name" <<< x\nmapfile -t "$1" < f\nprintf -v "A[0]" %s x\n'
        'read -r "B[1]" <<< x\nprintf -v "C[$i]" %s x\nprintf "%s" -v D\n'
        "declare -n r=OUT\nf() { local -n q=$1; }\ndeclare s=OUT\n"
    )
    found = [(a.name, a.kind, a.reference) for a in script.assignments]
    assert found == [
        ("", "dynamic", None),
        ("", "dynamic", None),
        ("A", "read", None),
        ("r", "declare", "OUT"),
        ("q", "local", None),
        ("s", "declare", None),
    ]


def test_heredoc_to_shell_is_nested_and_quoted_body_is_verbatim() -> None:
    script = parse("ssh host <<'EOF'\nrm -rf \\$HOME/x\nEOF\nbash <<EOF\necho \\$HOME\nEOF\n")
    first, second = script.nested
    assert first.src == b"rm -rf \\$HOME/x\n"  # quoted delimiter: the remote shell sees \$
    assert second.src == b"echo $HOME\n"  # unquoted: the outer shell removed the backslash
    assert where(script, "rm") == [(2, 1, False)]
    assert where(script, "echo") == [(5, 1, False)]


def test_a_script_written_by_a_heredoc_is_nested() -> None:
    """`cat > FILE <<EOF` and `tee FILE <<EOF` write a script when the body starts with a shell's
    `#!` line or the file has a script's suffix; other written files are text."""
    script = parse(
        'cat > "$DIR/entry.sh" <<EOT\n#!/bin/bash -e\nexec vllm serve "$MODEL"\nEOT\n'
        "cat > run.bash <<'EOT'\nsglang serve\nEOT\n"
        "tee job.slurm >/dev/null <<EOT\nsrun x\nEOT\n"
        "cat > notes.txt <<EOT\nrm -rf /\nEOT\n"
        "cat <<EOT > recipe.yaml\nname: a\nEOT\n"
        "cat <<EOT\nshown, not written\nEOT\n"
    )
    assert [n.src for n in script.nested] == [
        b'#!/bin/bash -e\nexec vllm serve "$MODEL"\n',
        b"sglang serve\n",
        b"srun x\n",
    ]
    assert [n.errexit_at_start for n in script.nested] == [True, False, False]
    assert where(script, "exec") == [(3, 1, True)]  # `#!/bin/bash -e` turns errexit on
    assert where(script, "rm") == []


def test_reads_and_failure_handlers_come_from_the_model() -> None:
    from benchlint.shell.model import parse_file
    from benchlint.source import SourceText

    text = 'srun bash -c "x --port $PORT ${TP:-8} ${#A} $1"\nflock -w 5 9 || echo "no lock $L"\n'
    script = parse_file(SourceText("t.sh", text.encode()))
    nested = script.nested[0]
    reads = [
        (r.name, r.operator, r.span.line, r.span.column)
        for r in nested.commands[0].words[2].reads()
    ]
    assert reads == [("PORT", "", 1, 24)]
    every = [(r.name, r.operator) for w in nested.commands[0].words for r in w.reads()]
    assert every == [("PORT", ""), ("TP", ":-"), ("A", "#")]
    assert nested.commands[0].file_offset == 0  # runs when the srun on line 1 does
    flock = next(c for c in script.commands if c.base == "flock")
    assert [script.text_of(c.node) for c in flock.on_failure()] == ['echo "no lock $L"']


def test_a_read_after_an_expansion_in_a_string_starts_at_its_dollar() -> None:
    """tree-sitter-bash puts the blank after `${PORT:-8888}` in a string into the next `$`
    token (h29): the read of `$port` is at its `$`, in a word and in a condition."""
    text = 'echo "http://h:${PORT:-8888} $port"\nif [[ "${A:-} $b" == x ]]; then :; fi\n'
    script = parse_file(SourceText("t.sh", text.encode()))
    word = script.commands[0].words[1]
    reads = [(r.name, r.span.column, r.span.end_column) for r in word.reads()]
    assert reads == [("PORT", 16, 29), ("port", 30, 35)]
    assert script.text_of(word.reads()[1].node) == "$port"
    guard = script.commands[1].guards[0]
    assert [(r.name, r.span.column) for r in guard.reads] == [("A", 8), ("b", 15)]


def test_a_word_tree_sitter_splits_is_one_word() -> None:
    """tree-sitter-bash parses `--mounts=$A:$B,$C:$D` as several adjacent arguments; bash has
    one word there (no blank): so does the model, with its value, text, span and reads."""
    from benchlint.shell.model import parse_file
    from benchlint.source import SourceText

    text = 'srun --container-mounts=$W:$DIR,$M:$M \\\n  bash "$BENCH"\n'
    script = parse_file(SourceText("run.sh", text.encode()))
    words = script.commands[0].words
    assert [w.value for w in words] == [
        "srun",
        "--container-mounts=$W:$DIR,$M:$M",
        "bash",
        "$BENCH",
    ]
    mounts = words[1]
    assert mounts.text == "--container-mounts=$W:$DIR,$M:$M"
    assert (mounts.span.line, mounts.span.column, mounts.span.end_column) == (1, 6, 38)
    # every read, in text order, located at its `$`: the split cut `$DIR` into `$` and `DIR`
    reads = [(r.name, r.span.column, r.span.end_column) for r in mounts.reads()]
    assert reads == [("W", 25, 27), ("DIR", 28, 32), ("M", 33, 35), ("M", 36, 38)]
    assert script.commands[0].invocation.base == "bash"


def test_a_command_held_in_a_string_variable_is_a_nested_script() -> None:
    """`bash -c "exec $CMD"` and `eval "$CMD"` run what the string CMD holds: it is parsed as a
    script, its positions in the assignment; so does a string that goes on after it (`bash -c
    "$CMD --x"`: the writing shell expands it in place); an array is not, nor a string whose
    expansion is part of a longer word."""
    from benchlint.shell.model import parse_file
    from benchlint.source import SourceText

    text = (
        'CMD="vllm serve m \\\n  --port 8000"\n'
        'bash -c "exec $CMD" &\n'
        'PROBE="curl -sf http://localhost:8000/health"\n'
        'eval "$PROBE"\n'
        "ARR=(vllm serve m)\n"
        'bash -c "$ARR"\n'
        'bash -c "$CMD --x > log"\n'
        'bash -c "$CMD.sh"\n'
    )
    script = parse_file(SourceText("run.sh", text.encode()))
    nested = {n.commands[0].name: n for n in script.nested if n.commands}
    served = next(c for c in nested["exec"].all_commands() if c.name == "exec")
    assert [w.value for w in served.words][:4] == ["exec", "vllm", "serve", "m"]
    port = served.words[4]
    assert (port.value, port.span.line, port.span.column) == ("--port", 2, 3)
    curl = nested["curl"].commands[0]
    assert (curl.span.line, curl.span.column) == (4, 8)
    first_words = [c.words[0].value for n in script.nested for c in n.commands if c.words]
    assert "$ARR" in first_words and "$CMD.sh" in first_words  # not replaced
    (longer,) = [n.commands[0] for n in script.nested if n.commands[0].span.line == 1]
    assert [w.value for w in longer.words] == ["vllm", "serve", "m", "--port", "8000", "--x"]
    assert [(r.operator, r.target.value) for r in longer.redirects] == [(">", "log")]
    x = longer.words[-1]
    assert (x.span.line, x.span.column) == (8, 15)


def test_a_read_write_redirection_is_read_as_a_redirection() -> None:
    """tree-sitter-bash has no `<>`: `exec 9<>"$LOCK"` would be a parse error losing the lines
    around it. It is read as `>` at the same positions; `<>` in a string stays text."""
    script = parse('exec 9<>"$LOCK" || exit 1\nflock -w 5 9\necho "a <> b"\n')
    assert not script.has_error
    (exec_,) = [c for c in script.all_commands() if c.name == "exec"]
    assert [(r.operator, r.target.value) for r in exec_.redirects] == [(">", "$LOCK")]
    assert [(c.name, c.span.line, c.span.column) for c in script.commands if c.name] == [
        ("exec", 1, 1),
        ("exit", 1, 20),
        ("flock", 2, 1),
        ("echo", 3, 1),
    ]
    (echo,) = [c for c in script.all_commands() if c.name == "echo"]
    assert echo.words[1].value == "a <> b"


def test_a_line_of_assignments_before_else_keeps_the_if() -> None:
    """tree-sitter-bash reads `A= B=` then `else` as a command named `else` with A and B in its
    environment (t55b, unsloth's install.sh), losing the `if`: the line is read ended by `;`
    in place of its newline, as bash reads it (`bash -n` accepts both), at the same positions.
    A reserved word where a command's name stands is an error the model reports."""
    script = parse('if t; then\n  A= B=\nelse\n  A=1\nfi\necho "$A"\nf() {\n  X=1 Y=2\n}\n')
    assert not script.has_error
    found = [
        (c.span.line, c.span.column, [a.name for a in c.assignments], len(c.guards))
        for c in script.commands
        if not c.words
    ]
    assert found == [(2, 3, ["A", "B"], 1), (4, 3, ["A"], 1), (8, 3, ["X", "Y"], 0)]
    assert parse("x=$(\n  elif true; then echo a\n  fi\n)\n").has_error
    assert not parse("echo then fi done\ncase a in a) echo x ;; esac\n").has_error


def test_a_bar_in_a_quoted_error_message_is_no_error() -> None:
    """`"${2:?real|lossy}"`: tree-sitter-bash wraps the message's words in an ERROR inside the
    expansion, the statement around it read right; bash reads the `|` as part of the message
    (t70b, sglang's reproduce.sh: every command after it was said not analysed). Unquoted,
    tree-sitter-bash ends the expansion at the `|` (a pipeline): the operand is given to it
    another way (`_operand_reading`), and the command is one `echo` of two words, as bash
    reads it."""
    script = parse('MODE="${2:?real|lossy}"\ncase ${1:-} in\n  a) vllm serve m & ;;\nesac\n')
    assert not script.has_error
    assert [(c.span.line, c.base) for c in script.commands if c.words] == [(3, "vllm")]
    assert [a.name for c in script.commands for a in c.assignments] == ["MODE"]
    unquoted = parse("echo ${2?x|y} ok\n")
    assert not unquoted.has_error
    assert [[w.text for w in c.args] for c in unquoted.commands] == [["${2?x|y}", "ok"]]


def test_a_line_of_quoted_assignments_before_else_keeps_the_if() -> None:
    """The same for values bash reads on one line: quoted text, `$(...)`, `${...}`, `+=`; not a
    line whose quote is still open (its newline is in the value)."""
    text = "if t; then\n  A=\"x y\" B=$(date) C=${D:-1}\nelse\n  A+=1 B='q r'\nfi\n"
    script = parse(text)
    assert not script.has_error
    found = [(c.span.line, [a.name for a in c.assignments]) for c in script.commands if not c.words]
    assert found == [(2, ["A", "B", "C"]), (4, ["A", "B"])]
    value = parse('X="a\nA=1 B=2\nfi"\n').commands[0].assignments[0].value
    assert value is not None and value.value == "a\nA=1 B=2\nfi"


def test_lines_glued_to_a_pipeline_are_commands_of_their_own() -> None:
    """tree-sitter-bash glues the lines after a pipeline of three commands to its last, up to
    one with a redirect, in some small scripts (t59a: `ps aux | grep vllm | xargs -r kill`, then
    a server started `> b.log 2>&1 &`): read again with `;` where bash ends the command (the
    whitespace before a comment that ends the line), at the same positions."""
    script = parse("a | b | c\nls\necho > f\n")
    assert not script.has_error
    assert [(c.name, c.span.line, len(c.words)) for c in script.commands] == [
        ("a", 1, 1),
        ("b", 1, 1),
        ("c", 1, 1),
        ("ls", 2, 1),
        ("echo", 3, 1),
    ]
    commented = parse("a | b | c # note\nd > e\n")
    assert [(c.name, c.span.line) for c in commented.commands][-2:] == [("c", 1), ("d", 2)]
    assert parse("a | b | c \\\n  x > f\n").commands[-1].words[-1].value == "x"
    # (h106 M1: assignments whose `\\` runs into a comment at the start of a line: the comment
    # ends the command, and the next line is a command of its own, as bash runs it)
    block = parse("A=1 \\\nB=2 \\\n# note\npython3 -m x --port 1\n")
    assert not block.has_error
    found = [(c.span.line, c.name, [a.name for a in c.assignments]) for c in block.commands]
    assert found == [(1, None, ["A", "B"]), (4, "python3", [])]


def test_assignments_with_a_redirect_and_no_name_are_read_as_bash_runs_them() -> None:
    """tree-sitter-bash finds a command name missing in `X=$(find ...) > /dev/null 2>&1`, which
    bash runs as written (kubeflow's flux entrypoint.sh; before, it glued the next line's first
    word as the name): assignments and a redirect, no words, no error; the next line its own."""
    script = parse('X=$(find a) > /dev/null 2>&1\nY=$(basename b)\necho "$Y"\n')
    assert not script.has_error
    found = [(c.span.line, c.name, [a.name for a in c.assignments]) for c in script.commands]
    assert found == [
        (1, None, ["X"]),
        (1, "find", []),
        (2, None, ["Y"]),
        (2, "basename", []),
        (3, "echo", []),
    ]


def test_a_message_quotes_a_command_by_its_first_line() -> None:
    from benchlint.shell.model import first_line

    assert first_line("exit 1") == "exit 1"
    assert first_line('srun --jobid "$J" \\\n    bash -lc "a\nb"') == 'srun --jobid "$J" …'
    assert first_line('bash -lc "a\nb"') == 'bash -lc "a …'


_EXPANSION_QUERY = Query(
    Language(tree_sitter_bash.language()), "[(simple_expansion) (expansion)] @read"
)
_EXPANSION_TEXTS = [
    'X="a:\n  ${HOST_PATH}: /mnt\n    $OTHER: /b"\n',  # indentation inside the expansion
    "echo $$ $? ${#A} ${A[$i]} ${!B} \"${C:-$D}\" '$E' $((F + $G)) $(echo $H)\n",
    "cat <<EOF\n$A ${B}\nEOF\ncat <<'EOF'\n$C\nEOF\n",
    'if [ -n "$A" ; then\n  echo ${B\n',  # broken: tree-sitter-bash recovers
    'f() { local x=${1:?}; echo "$x"$y; }\n# $COMMENT\n',
]


def _query_nodes(src: bytes) -> list[tuple[int, int, str]]:
    root = parse_tree(src).root_node
    found = QueryCursor(_EXPANSION_QUERY).captures(root).get("read", [])
    return sorted((n.start_byte, -n.end_byte, n.type) for n in found)


def _scanned_nodes(src: bytes) -> list[tuple[int, int, str]]:
    root = parse_tree(src).root_node
    return [(n.start_byte, -n.end_byte, n.type) for n in expansion_nodes(src, root)]


@pytest.mark.parametrize(
    "src",
    [t.encode() for t in _EXPANSION_TEXTS]
    + [p.read_bytes() for p in sorted(TESTDATA.rglob("*.sh"))],
)
def test_expansion_nodes_are_the_querys(src: bytes) -> None:
    # the `$` scan finds every expansion the tree-sitter query captures, and nothing else
    assert _scanned_nodes(src) == _query_nodes(src)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(st.sampled_from(list("ab $\"'{}()[]#:-=\n\\`<EOF")), max_size=80))
def test_expansion_nodes_on_random_text(text: str) -> None:
    src = text.encode()
    assert _scanned_nodes(src) == _query_nodes(src)


def test_a_kept_tree_spares_the_second_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    src = b'if [ "$MODE" = disagg ]; then\n  echo split\nfi\n'
    kept = parse_file(SourceText("run.sh", src), keep_tree=True)
    let_go = parse_file(SourceText("run.sh", src))
    monkeypatch.setattr(model, "parse_tree", None)  # a second parse would fail
    assert [r.name for r in kept.commands[0].guards[0].test_reads] == ["MODE"]
    with pytest.raises(TypeError):
        let_go.commands[0].guards[0].test_reads  # noqa: B018 - parsed again: no parser


def test_a_run_that_names_files_keeps_its_scripts_trees(tmp_path: Path) -> None:
    files = {"a.sh": 'if [ -n "$A" ]; then echo a; fi\n', "b.sh": "echo b\n"}
    root = write_repo(tmp_path / "r", files)
    named = run_lint(root, named=[root / "a.sh"]).workspace
    whole = run_lint(root).workspace
    assert named is not None and whole is not None
    kept, let_go = named.shell("a.sh"), whole.shell("a.sh")
    assert kept is not None and let_go is not None
    assert kept._tree is not None
    assert let_go._tree is None


def test_the_loops_a_command_runs_in() -> None:
    script = parse(
        "for node in $(scontrol show hostnames); do\n"  # 1: the list runs once, before
        "  while read -r port; do\n"  # 2: a while loop's condition runs on every pass
        '    curl "http://$node:$port/health"\n'  # 3
        "  done < ports.txt\n"
        "done\n"
        "until ready; do sleep 1; done\n"  # 6
        "for ((i = 0; i < 3; i++)); do echo $i; done\n"  # 7
        "echo after\n"  # 8
    )
    loops = {
        (c.span.line, c.name): [(script.span(w).line, w.type) for w in c.loops]
        for c in script.commands
    }
    outer, inner = (1, "for_statement"), (2, "while_statement")
    assert loops[(1, "scontrol")] == []
    assert loops[(2, "read")] == [outer, inner]
    assert loops[(3, "curl")] == [outer, inner]
    until = (6, "while_statement")  # (tree-sitter-bash's node for an `until` loop too)
    assert loops[(6, "ready")] == [until]
    assert loops[(6, "sleep")] == [until]
    assert loops[(7, "echo")] == [(7, "c_style_for_statement")]
    assert loops[(8, "echo")] == []


def test_what_runs_in_a_shell_of_its_own_is_marked_as_bash_runs_it() -> None:
    """Each element of a pipeline of two or more runs in a shell of its own (the last one too,
    until `shopt -s lastpipe`): `apart` is its innermost element. A group, a loop, a condition
    or an assignment alone sent to the background runs there whole."""
    script = parse(
        "shopt -os lastpipe\n"  # (bash refuses it: lastpipe stays off)
        "a | while read -r l; do b; done\n"
        "c | { d; e | f; }\n"
        "g\n"
        "{ h; } &\n"
        "if true; then i; fi > log &\n"
        "for x in 1; do j; done &\n"
        "X=1 &\n"
        "k && l &\n"
        "shopt -qs lastpipe\n"
        "m | n\n"
        "( shopt -s lastpipe )\n"
    )
    texts = {
        c.name or script.text_of(c.node): c for c in script.commands if c.name or c.assignments
    }

    def element(name: str) -> str | None:
        apart = texts[name].apart
        return None if apart is None else script.text_of(apart)

    assert element("a") == "a"
    assert element("read") == element("b") == "while read -r l; do b; done"
    assert element("c") == "c"
    assert element("d") == "{ d; e | f; }"
    assert (element("e"), element("f")) == ("e", "f")
    assert element("g") is None
    background = {name for name, c in texts.items() if c.background}
    assert background == {"h", "true", "i", "for x in 1; do j; done", "j", "X=1", "k", "l"}
    assert (element("m"), element("n")) == ("m", None)  # (lastpipe: the last runs here)
    # (`$!` after a statement sent whole is its shell's: the statement is each command's group)
    groups = {name: c.group and script.text_of(c.group) for name, c in texts.items()}
    assert (groups["h"], groups["k"], groups["l"], groups["X=1"]) == (
        "{ h; }",
        "k && l",
        "k && l",
        "X=1",
    )
    assert groups["a"] is None and groups["g"] is None


def test_a_command_knows_the_innermost_shell_of_its_own_it_runs_in() -> None:
    """`subshell` is the innermost `( ... )`, `$( ... )` or `<( ... )` around the command (the
    place `cd` or an assignment stays in); a value it assigns reaches later commands of that
    shell and of the shells nested in it, whatever text comes between."""
    script = parse(
        '( A=1; B=$(date "("); srun $A; ( srun2 $A ) )\n'
        "x=$(cd /w && pwd)\n"
        "diff <(sort f) g\n"
        "srun3 $A\n"
    )
    shells = {c.name: c.subshell and script.text_of(c.subshell) for c in script.commands if c.name}
    assert shells["date"] == '$(date "(")'
    assert shells["srun"] == '( A=1; B=$(date "("); srun $A; ( srun2 $A ) )'
    assert shells["srun2"] == "( srun2 $A )"
    assert shells["cd"] == shells["pwd"] == "$(cd /w && pwd)"
    assert shells["sort"] == "<(sort f)"
    assert shells["diff"] is None and shells["srun3"] is None
    runs = {c.name: c for c in script.commands if c.name}
    assigned = next(a for a in script.assignments if a.name == "A")
    assert [
        held.once_before(runs[n], "A") is assigned.value for n in ("srun", "srun2", "srun3")
    ] == [
        True,
        True,
        False,
    ]


def test_a_list_before_a_redirect_and_a_pipe_is_read_as_bash_reads_it() -> None:
    """tree-sitter-bash reads `a && b 2>&1 | c` as `(a && b 2>&1) | c`; bash, as
    `a && (b 2>&1 | c)`: `a` runs in this shell, tested, and the pipeline under its success;
    only `b` and `c` run apart, and the redirect is `b`'s. Near miss: without the redirect
    tree-sitter-bash reads it right, and the model agrees."""
    script = parse(
        '[ -n "$MODEL" ] || exit 1 && echo ok 2>&1 | tee -a log\n'
        "p && q 2>/dev/null | r &\n"
        "s && t | u\n"
    )
    by_name = {c.name: c for c in script.commands if c.name}

    def element(name: str) -> str | None:
        apart = by_name[name].apart
        return None if apart is None else script.text_of(apart)

    assert element("exit") is None and not by_name["exit"].piped
    assert element("tee") == "tee -a log"
    assert element("echo") is not None and by_name["echo"].piped
    assert [script.text_of(g.node) for g in by_name["tee"].guards] == ['[ -n "$MODEL" ] || exit 1']
    assert [(r.operator, r.target.value) for r in by_name["echo"].redirects] == [(">&", "1")]
    assert element("p") is None and by_name["p"].tested
    assert element("q") is not None and element("r") == "r"
    # (sent to the background, the list goes whole: `$!` is its shell's)
    groups = {name: c.group and script.text_of(c.group) for name, c in by_name.items()}
    assert groups["p"] == groups["q"] == groups["r"] == "p && q 2>/dev/null | r"
    assert all(by_name[n].background for n in "pqr")
    assert element("s") is None and (element("t"), element("u")) == ("t", "u")
    assert [script.text_of(g.node) for g in by_name["u"].guards] == ["s"]


def test_a_string_a_function_evals_is_a_nested_script_of_the_call() -> None:
    """A function that `eval`s one of its arguments (`eval "$2"`, or `eval "$cmd"` with the
    body's one `local cmd=$2`) runs the call's argument as a script in this shell; near misses:
    a function that shifts first, one that assigns the name twice, one called before it is
    defined."""
    script = parse(
        'late "x" "echo late"\n'
        'run_or_die() { local desc="$1" cmd="$2"; eval "$cmd" || exit 1; }\n'
        'direct() { eval "${1}"; }\n'
        'shifted() { shift; eval "$1"; }\n'
        'changed() { local cmd=$1; cmd="timeout 9 $cmd"; eval "$cmd"; }\n'
        'late() { eval "$2"; }\n'
        'dry() { case "$1" in dry) echo "$2" ;; *) eval "$2" ;; esac; }\n'
        'again() { eval "$1"; }\n'
        'again() { echo "$1"; }\n'
        'run_or_die "barrier" "python3 sync.py --timeout 300"\n'
        'direct "curl -sf localhost:8000/health"\n'
        'shifted "x" "echo shifted"\n'
        'changed "echo changed"\n'
        'dry dry "echo dry"\n'
        'again "echo again"\n'
    )
    assert script.runs_string_argument("run_or_die") == 2
    assert script.runs_string_argument("direct") == 1
    assert script.runs_string_argument("shifted") is None
    assert script.runs_string_argument("changed") is None
    # (an eval under a condition on the arguments; a function defined again without it)
    assert script.runs_string_argument("dry") is None
    assert script.runs_string_argument("again") is None
    by_parent = {n.parent.name: n for n in script.nested if n.parent is not None}
    assert set(by_parent) >= {"run_or_die", "direct"}
    assert not {"late", "shifted", "changed", "dry", "again"} & set(by_parent)
    inner = by_parent["run_or_die"]
    assert [c.name for c in inner.commands] == ["python3"]
    assert inner.offsets is not None
    assert script.file.point(inner.offsets[0]) == (10, 23)
    assert [c.name for c in by_parent["direct"].commands] == ["curl"]


def test_an_array_of_options_before_the_image_is_options() -> None:
    """`docker run --rm "${M[@]}" img bash x.sh`: where every value the script gives M is an
    array that is empty or starts with an option, M is options and `img` the image (bash runs
    `bash x.sh` in it); where a string an `eval` runs gives M another value, or `read -a` does,
    which word is the image is not told so: the array is read as the image, as before."""
    runs = {}
    for label, assigned in [
        ("options", "M=()\n[ -e /dev/x ] && M+=(-v /dev/x:/dev/x)\n"),
        ("eval", 'M=(-v a:b)\neval "M=(img)"\n'),
        ("read", "M=(-v a:b)\nread -a M\n"),
    ]:
        src = assigned + 'docker run --rm "${M[@]}" img bash x.sh\n'
        script = parse_file(SourceText("a.sh", src.encode()))
        command = next(c for c in script.commands if c.base == "docker")
        runs[label] = command.invocation.name
    assert runs == {"options": "bash", "eval": "img", "read": "img"}


def test_bash_time_is_read_as_the_command_it_times() -> None:
    """bash's reserved word `time` (with `-p`, `--`) where a command's name stands: the command
    after it is the one that runs, in this shell, marked timed; its positions are the file's.
    Near misses: behind an assignment or quoted, `time` is the program (GNU time)."""
    script = parse(
        "f() { X=1; }\n"
        "time f MODEL\n"
        "time -p -- DIR=/w/sub/\n"
        "time vllm serve m &\n"
        "A=1 time g a\n"
        '"time" h b\n'
        "echo | time k c\n"  # (after a `|`, the program: h83 R1)
        "time -p -p m d\n"  # (one `-p`: bash runs the second as a command; h83 R4)
    )
    by_line = {c.span.line: c for c in script.commands}
    assert (by_line[2].base, by_line[2].span.column, by_line[2].timed) == ("f", 6, True)
    assert [(a.name, a.kind, a.span.column) for a in by_line[3].assignments] == [
        ("DIR", "assign", 12)
    ]
    assert by_line[4].base == "vllm" and by_line[4].background and by_line[4].timed
    assert (by_line[5].base, by_line[5].timed) == ("time", False)
    assert (by_line[6].base, by_line[6].timed) == ("time", False)
    assert [(c.base, c.timed) for c in script.commands if c.span.line == 7] == [
        ("echo", False),
        ("time", False),
    ]
    assert (by_line[8].base, by_line[8].timed) == ("-p", True)
    assert script.file.data.startswith(b"f() { X=1; }\ntime f MODEL\n")
    # (kept in the cache's form of the model as well)
    from benchlint.shell.summary import decode_script, encode_script

    again = decode_script(script.file, encode_script(script))
    assert [c.timed for c in again.commands] == [c.timed for c in script.commands]
    assert again.timed == script.timed != frozenset()


def test_an_element_other_than_0_leaves_the_value_of_the_name_unknown() -> None:
    """`A[1]=x` assigns an element `$A` does not read (bash: `$A` is element 0): the model
    says A is assigned, with a value it does not know; `A[0]=x` gives `$A` its value."""
    script = parse("A[1]=x\nB[$i]=y\nC[0]=z\nD[1]+=w\n")
    values = {a.name: a.value.value if a.value is not None else None for a in script.assignments}
    assert values == {"A": None, "B": None, "C": "z", "D": None}
