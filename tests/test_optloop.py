"""The option-loop model (`benchlint.shell.optloop`) against bash: where it names the argument a
function's loop rejects, bash's call reaches the failing branch at that argument; where it
cannot tell, it says none (never a word bash does not reject)."""

from __future__ import annotations

import itertools
import shutil
import subprocess
from pathlib import Path

import pytest

from benchlint.shell.model import parse_file
from benchlint.shell.optloop import option_loop, read_call
from benchlint.source import SourceText

BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="bash is not installed")

# functions of several shapes; each rejects with `return 3` (printing where), else prints done
FUNCTIONS = {
    "pairs": """
        while [[ $# -gt 0 ]]; do
            case $1 in
                --model|-m) model="$2"; shift 2 ;;
                --flag) flag=1; shift ;;
                *) echo "REJECTED:$#:$1"; return 3 ;;
            esac
        done""",
    "trailing": """
        shift
        while (( $# > 0 )); do
            case "$1" in
                --model) model=$2; shift ;;
                -*) echo "REJECTED:$#:$1"; return 3 ;;
                *) rest=$1 ;;
            esac
            shift
        done""",
    "globs": """
        while [ "$#" -ne 0 ]; do
            case ${1} in
                --x=*) x=${1#*=}; shift ;;
                "--lit*") lit=1; shift ;;
                --n[0-9]) shift 2 ;;
                -h) echo help; return 0 ;;
                *) echo "REJECTED:$#:$1" >&2; usage_missing 2>/dev/null; return 3 ;;
            esac
        done""",
}
# argument words as a call writes them, reading A ("a b"), E (empty) and the call's "$@"
WORDS = [
    "--model",
    "-m",
    "--flag",
    "EP_SIZE",
    '"$A"',
    "$A",
    '"$E"',
    "$E",
    '"$@"',
    "--x=1",
    "--x",
    '"--lit*"',
    "--lit",
    "--n1",
    "--n",
    "-h",
    "'--model'",
    "--model=x",
    "x*",
    "--",
]


def _bash(body: str, call: str) -> tuple[int, str] | None:
    """(how many words came before it, the word) where bash's call reached the failing
    branch."""
    body = body.replace("REJECTED:$#:", "REJECTED:$((total - $#)):")
    program = f'A="a b"; E=""\nf() {{ total=$#\n{body}\n}}\nset -- p q\nf {call}\necho "$?"'
    found = subprocess.run(
        [BASH or "bash", "-c", program], capture_output=True, text=True, timeout=10, cwd="/"
    )
    for line in (found.stdout + found.stderr).splitlines():
        if line.startswith("REJECTED:"):
            left, word = line[len("REJECTED:") :].split(":", 1)
            return int(left), word
    return None


def _model(body: str, call: str) -> tuple[int, str] | None:
    text = f"f() {{{body}\n}}\nf {call}\n"
    script = parse_file(SourceText("t.sh", text.encode()))
    loop = option_loop(script, "f")
    assert loop is not None
    command = next(c for c in script.commands if c.base == "f")
    arguments = command.words[1:]
    reading = read_call(loop, arguments)
    word, branch = reading.rejected, reading.branch
    if word is None:
        return None
    assert branch is not None and branch.failing is not None
    return arguments.index(word), word.value


CALLS = [" ".join(c) for n in (1, 2, 3) for c in itertools.product(WORDS, repeat=n)]


@needs_bash
@pytest.mark.parametrize("shape", sorted(FUNCTIONS))
def test_rejected_words_agree_with_bash(shape: str) -> None:
    body = FUNCTIONS[shape]
    decided = 0
    for call in CALLS[:: 7 if len(CALLS) > 2000 else 1]:
        model = _model(body, call)
        if model is None:
            continue
        decided += 1
        assert _bash(body, call) == model, (shape, call)
    assert decided > 20, shape  # (the model decides calls of plain words)


@needs_bash
def test_plain_calls_are_decided() -> None:
    """Calls of plain words are decided, both ways: rejected where bash rejects, else read to
    the end (the model says none, and bash rejects none)."""
    body = FUNCTIONS["pairs"]
    assert _model(body, "--model x EP_SIZE") == (2, "EP_SIZE") == _bash(body, "--model x EP_SIZE")
    assert _model(body, "--flag --model x") is None
    assert _bash(body, "--flag --model x") is None
    # a value taken whole, though it may be empty: still one word
    assert (
        _model(body, '--model "$E" --oops') == (2, "--oops") == _bash(body, '--model "$E" --oops')
    )
    # an unquoted expansion is no word where it is empty: not read past
    assert _model(body, "--model $E --oops") is None
    assert _bash(body, "--model $E --oops") is None  # (bash: `--oops` is the model's value)


def test_loops_of_other_shapes_are_not_read() -> None:
    for body in (
        'while [[ -n "$1" ]]; do case $1 in *) return 1 ;; esac; done',
        "while [[ $# -gt 1 ]]; do case $1 in *) return 1 ;; esac; done",
        "while [[ $# -gt 0 ]]; do case $2 in *) return 1 ;; esac; done",
        "while [[ $# -gt 0 ]]; do case $1 in @(a|b)) shift ;; *) return 1 ;; esac; done",
        "while [[ $# -gt 0 ]]; do case $1 in $X) shift ;; *) return 1 ;; esac; done",
        "eval set -- x; while [[ $# -gt 0 ]]; do case $1 in *) return 1 ;; esac; done",
        # (`case` ignores case, or reads extended globs: not plain globs)
        "shopt -s nocasematch; while [[ $# -gt 0 ]]; do case $1 in *) return 1;; esac; done",
        "shopt -s extglob; while [[ $# -gt 0 ]]; do case $1 in *) return 1;; esac; done",
    ):
        script = parse_file(SourceText("t.sh", f"f() {{ {body}; }}\n".encode()))
        assert option_loop(script, "f") is None, body


# scripts whose top level parses their options, each rejecting with `exit 3` (printing where)
SCRIPTS = {
    "prelude": """set -euo pipefail
usage() { echo "usage"; exit 1; }
[[ $# -eq 0 ]] && usage
while [[ $# -gt 0 ]]; do
    case $1 in
        -m|--model) model=$2; shift 2 ;;
        -v) v=1; shift ;;
        *) echo "REJECTED:$((total - $#)):$1"; usage_missing 2>/dev/null || true; exit 3 ;;
    esac
done""",
    "shifted": """shift 2
while (( $# )); do
    case "$1" in
        --x) shift ;;
        -*) echo "REJECTED:$((total - $#)):$1" >&2; exit 3 ;;
        *) shift ;;
    esac
done""",
}


@needs_bash
@pytest.mark.parametrize("shape", sorted(SCRIPTS))
def test_scripts_rejected_words_agree_with_bash(shape: str, tmp_path: Path) -> None:
    """A script's own loop, run as `bash script.sh ARGS`: the model's word is bash's."""
    from benchlint.shell.optloop import script_option_loop

    body = SCRIPTS[shape]
    (tmp_path / "s.sh").write_text("total=$#\n" + body + "\n")
    model_script = parse_file(SourceText("s.sh", (body + "\n").encode()))
    loop = script_option_loop(model_script)
    assert loop is not None
    decided = 0
    for call in CALLS[::11]:
        caller = parse_file(SourceText("c.sh", f"bash s.sh {call}\n".encode()))
        arguments = caller.commands[0].words[2:]
        reading = read_call(loop, arguments)
        if reading.rejected is None:
            continue
        decided += 1
        program = f'A="a b"; E=""\nset -- p q\nbash {tmp_path / "s.sh"} {call}'
        found = subprocess.run(
            [BASH or "bash", "-c", program], capture_output=True, text=True, timeout=10, cwd="/"
        )
        said = [
            line[len("REJECTED:") :].split(":", 1)
            for line in (found.stdout + found.stderr).splitlines()
            if line.startswith("REJECTED:")
        ]
        assert said == [[str(arguments.index(reading.rejected)), reading.rejected.value]], call
    assert decided > 20, shape


def test_definitions_are_counted_as_the_pattern_counts_them() -> None:
    """BL120 counts a function's definitions by trying its pattern only where a match can
    start: the count is `re.findall`'s over the whole text, overlapping names included."""
    import random
    import re

    from checks.bl120_unknown_function_option import _count

    pieces = ["function", " ", "\n", "(", ")", "f", "fo", "foo", "ff", "unction", ".", "-"]
    pieces += ["x", "\t", "{", "}", ";", "function foo", "foo()", "ffoo"]
    names = ["foo", "f", "ff", "fun", "function", "nfoo", "on", "x.y", "foo-bar", "ctionf"]
    rng = random.Random(7)
    found = 0
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        name = rng.choice(names)
        escaped = re.escape(name)
        pattern = rf"\bfunction\s+{escaped}\b(?:\s*\(\s*\))?|(?<![\w.:/-]){escaped}\s*\(\s*\)"
        expected = len(re.findall(pattern, text))
        assert _count(text, name) == expected, (text, name)
        found += expected > 1
    assert found > 50  # (texts with two definitions or more)
