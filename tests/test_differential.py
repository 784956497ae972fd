"""benchlint's models against the programs they model: bash for conditions, GNU sed for the sed
simulation, PyYAML for scalars. The model must give the program's answer or say it does not
know ("unknown", "not simulated"); never the opposite."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from benchlint import slurm
from benchlint.shell.evaluate import guards_hold
from benchlint.shell.expand import UNSET, keeps_empty
from benchlint.shell.held import read_before
from benchlint.shell.model import parse_file
from benchlint.source import SourceText

BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="bash is not installed")

# None: unset ("" is set to the empty text)
VALUES = [None, "", "a", "ab", "A-b", "dynamo-trt", "dynamo-", "1", "010", "8", "a b", "*", "x.y"]
VALUES.append("a*")
# words as they stand in a script, reading variables A and B
WORDS = [
    "$A",
    '"$A"',
    "${A}",
    '"${A:-dynamo-}"',
    "${A:-d}",
    "${A-d}",
    '"${A:+set}"',
    "${A+set}",
    "${A,,}",
    "${A^^}",
    "${A^}",
    "${#A}",
    '"${A#*-}"',
    "${A##*-}",
    '"${A%-*}"',
    "${A%%[-.]*}",
    "${A:1:2}",
    "${A/a/b}",
    "$(echo a)",
    "$((1+1))",
    '"$A$B"',
    '"x${B}"',
    "'a'",
    '"a b"',
    "a",
    "1",
    "010",
    "dynamo-trt",
]
PATTERNS = [
    *WORDS,
    "a*",
    '"a"*',
    '"dynamo-"*',
    "'*'",
    '"*"',
    "\\*",
    "?b",
    "[ab]*",
    "[!a]*",
    "[[:alpha:]]*",
    "*-[a-t]*",
    "dynamo-@(trt|vllm)",
    "$B*",
    '"$B"*',
]
REGEXES = [
    "^a",
    "b$",
    "^dynamo-(trt|vllm)$",
    '"."',
    "a.b",
    "^[0-9]+$",
    "x\\.y",
    '"a*"',
    "a{2}",
    "(a|b)+",
    "$B",
    '"$B"',
    "\\d",
    "a*?",
]

_ENV = st.fixed_dictionaries({"A": st.sampled_from(VALUES), "B": st.sampled_from(VALUES)})


def _leaf() -> st.SearchStrategy[str]:
    word, pattern = st.sampled_from(WORDS), st.sampled_from(PATTERNS)
    return st.one_of(
        st.builds(lambda w, p: f"[[ {w} == {p} ]]", word, pattern),
        st.builds(lambda w, p: f"[[ {w} != {p} ]]", word, pattern),
        st.builds(lambda w, r: f"[[ {w} =~ {r} ]]", word, st.sampled_from(REGEXES)),
        st.builds(lambda op, w: f"[[ {op} {w} ]]", st.sampled_from(["-z", "-n"]), word),
        st.builds(lambda w: f"[[ -v {w} ]]", st.sampled_from(["A", "B", '"A"', "C", "A[0]"])),
        st.builds(lambda w: f"[ -v {w} ]", st.sampled_from(["A", "B", "$B"])),
        # (`test`: `[` without its `]`, read by the number of its arguments)
        st.builds(lambda op, w: f"test {op} {w}", st.sampled_from(["-z", "-n", "!", "-v"]), word),
        st.builds(lambda w: f"test {w}", word),
        st.builds(lambda w: f"test ! -n {w}", word),
        st.builds(
            lambda a, op, b: f"test {a} {op} {b}", word, st.sampled_from(["=", "==", "!="]), word
        ),
        st.builds(lambda w: f"[[ {w} ]]", word),
        st.builds(lambda op, w: f"[ {op} {w} ]", st.sampled_from(["-z", "-n"]), word),
        st.builds(lambda op, w: f"[ {op} {w} ]", st.sampled_from(["-d", "-f", "-e", "-s"]), word),
        st.builds(lambda op, w: f"[[ {op} {w} ]]", st.sampled_from(["-d", "-r", "-x"]), word),
        st.builds(
            lambda a, op, b: f"[ {a} {op} {b} ]", word, st.sampled_from(["=", "==", "!="]), word
        ),
        # (joined in `[ ]`, read from the text where tree-sitter-bash misreads it: h131 F3)
        st.builds(
            lambda a, op, b, join, c: f"[ {a} {op} {b} {join} -z {c} ]",
            word,
            st.sampled_from(["=", "!=", "-eq", "-gt"]),
            word,
            st.sampled_from(["-o", "-a"]),
            word,
        ),
        st.builds(
            lambda a, join, b, op, c: f"[ -n {a} {join} {b} {op} {c} ]",
            word,
            st.sampled_from(["-o", "-a"]),
            word,
            st.sampled_from(["=", "-lt", "-ne"]),
            word,
        ),
        st.builds(
            lambda a, op, b: (
                f"{'[[' if op[0] == '[' else '['} {a} {op[1:]} {b} {']]' if op[0] == '[' else ']'}"
            ),
            word,
            st.sampled_from(["[-eq", "[-lt", "(-ge", "(-ne"]),
            word,
        ),
        st.sampled_from(["true", "false", ": ok"]),
        st.builds(
            lambda a, op, n: f"(( {a} {op} {n} ))",
            st.sampled_from(["A", "B"]),
            st.sampled_from([">", "<", ">=", "<=", "==", "!="]),
            st.sampled_from(["0", "1", "8"]),
        ),
        st.builds(lambda a: f"(( {a} ))", st.sampled_from(["A", "B"])),
    )


CONDITIONS = st.recursive(
    _leaf(),
    lambda inner: st.one_of(
        st.builds(lambda a, b: f"{a} && {b}", inner, inner),
        st.builds(lambda a, b: f"{a} || {b}", inner, inner),
        st.builds(lambda a: f"! {a}", inner),
    ),
    max_leaves=3,
)


class _Env:
    """The route's values: a name not given, or given None, is unset (as a name the wiring
    speaks for and the route does not set)."""

    def __init__(self, values: dict[str, str | None]) -> None:
        self.values = values

    def get(self, name: str) -> str | None:
        value = self.values.get(name)
        return UNSET if value is None else value


def _decide(script_text: str, values: dict[str, str | None]) -> bool | None:
    script = parse_file(SourceText("t.sh", script_text.encode()))
    target = next(c for c in script.commands if script.text_of(c.node) == "echo T")
    return guards_hold(script, target.guards, _Env(values))


def _bash_run(program: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """bash running the program with only PATH set (in the folder `cwd`)."""
    return subprocess.run(
        [BASH or "bash", "-c", program],
        env={"PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=10,
        cwd=cwd,
    )


def _bash(script_text: str, values: dict[str, str | None]) -> bool:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
    for name, value in values.items():
        if value is not None:
            env[name] = value
    out = subprocess.run(
        [BASH or "bash", "-c", script_text], env=env, capture_output=True, text=True, timeout=10
    )
    return out.stdout.strip() == "T"


def _agrees(script_text: str, values: dict[str, str | None]) -> None:
    decided = _decide(script_text, values)
    if decided is None:
        return
    assert _bash(script_text, values) == decided, (script_text, values)


@needs_bash
@settings(max_examples=400, deadline=None, derandomize=True)
@given(CONDITIONS, _ENV)
def test_conditions_agree_with_bash(condition: str, values: dict[str, str | None]) -> None:
    _agrees(f"if {condition}; then echo T; else echo F; fi\n", values)


@needs_bash
@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.sampled_from(WORDS), st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=3), _ENV)
def test_case_patterns_agree_with_bash(word: str, patterns: list[str], values: dict) -> None:  # type: ignore[type-arg]
    _agrees(f"case {word} in {'|'.join(patterns)}) echo T;; *) echo F;; esac\n", values)


# the statements of a function used as a condition (`if f; then`): what its status is made of
_STATEMENTS = [
    'case "$A" in a|ab) return 0 ;; dynamo-*) return 3 ;; *) return 1 ;; esac',
    'case "$A" in a) echo x >&2 ;; *) return 1 ;; esac',
    "[[ $A == a* ]] && return 0",
    "[[ -z $B ]] || return 2",
    'if [[ $B == "1" ]]; then return 0; elif [[ $B == a ]]; then return 1; else echo no >&2; fi',
    "echo hi >&2",
    "return 0",
    "return 1",
    "return",
    "true",
    "false",
    ": ok",
    "local x=$A",
    "[[ $A == $B ]]",
]


@needs_bash
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_STATEMENTS), min_size=1, max_size=3), _ENV, st.booleans())
def test_function_conditions_agree_with_bash(
    body: list[str], values: dict[str, str | None], negated: bool
) -> None:
    """`if f; then` with f a function of the script: its status as bash gives it, or unknown."""
    lines = "\n".join(f"  {statement}" for statement in body)
    _agrees(
        f"f() {{\n{lines}\n}}\nif {'! ' if negated else ''}f; then echo T; else echo F; fi\n",
        values,
    )


def test_function_conditions_decided_and_not() -> None:
    """The shapes launchers use are decided; a function defined below the call, one that
    assigns, loops or calls itself is not."""
    case = 'f() {\n  case "$A" in a|ab) return 0 ;; *) return 1 ;; esac\n}\n'
    check = "if f; then echo T; else echo F; fi\n"
    assert _decide(case + check, {"A": "ab"}) is True
    assert _decide(case + check, {"A": "x"}) is False
    assert _decide(check + case, {"A": "ab"}) is None  # bash: f: command not found
    assigns = "f() {\n  A=ab\n  [[ $A == ab ]] && return 0\n  return 1\n}\n"
    assert _decide(assigns + check, {"A": "x"}) is None
    loops = "f() {\n  for v in 1; do return 0; done\n  return 1\n}\n"
    assert _decide(loops + check, {}) is None
    recursive = "f() {\n  if f; then return 0; fi\n  return 1\n}\n"
    assert _decide(recursive + check, {}) is None
    sourced = case + "source lib.sh\n"  # lib.sh may define f again
    assert _decide(sourced + check, {"A": "ab"}) is None
    for line in ("exec bash other.sh", "g", "source lib.sh"):  # it may end the shell
        body = f"g() {{ exit 0; }}\nf() {{\n  {line}\n  return 1\n}}\n"
        assert _decide(body + check, {}) is None, line
    through = 'f() {\n  case "$A" in a) ;&\n  b) return 0 ;;\n  esac\n  return 1\n}\n'
    assert _decide(through + check, {"A": "a"}) is None
    subshell = "f() {\n  ( return 1 )\n  return 0\n}\n"
    assert _decide(subshell + check, {}) is True


class _Positional:
    """A function call's arguments as the conditions of its body read them (`positional`:
    `$1` as `$__P1`), as BL103 asks whether `svc stop` runs the start arm of `svc`."""

    positional = True

    def __init__(self, arguments: list[str]) -> None:
        self.arguments = arguments

    def get(self, name: str) -> str | None:
        if not name.startswith("__P"):
            return None
        index = int(name[3:]) - 1
        return self.arguments[index] if index < len(self.arguments) else ""


# conditions a function body tests its arguments with, as launchers write them
_POSITIONAL_CONDITIONS = [
    'case "$1" in start) echo T ;; *) echo F ;; esac',
    "case $1 in up|start) echo T ;; *) echo F ;; esac",
    'case "${1:-start}" in start) echo T ;; *) echo F ;; esac',
    'if [ "$1" = start ]; then echo T; else echo F; fi',
    "if [[ $2 == b* ]]; then echo T; else echo F; fi",
    'if [ -z "$2" ]; then echo T; else echo F; fi',
    'if [ "${1}" != stop ]; then echo T; else echo F; fi',
    "if [ '$1' = start ]; then echo T; else echo F; fi",
    'if [ "\\$1" = start ]; then echo T; else echo F; fi',
    'if [ "$10" = start0 ]; then echo T; else echo F; fi',
]
_ARGUMENTS = ["start", "stop", "up", "b.yaml", "", "a b", "start0"]


@needs_bash
@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.sampled_from(_POSITIONAL_CONDITIONS),
    st.lists(st.sampled_from(_ARGUMENTS), max_size=3),
)
def test_positional_conditions_agree_with_bash(condition: str, arguments: list[str]) -> None:
    """A function's condition on its arguments, decided with a call's arguments: bash's answer,
    or unknown (`'$1'`, `\\$1` and `$10` are not the first argument)."""
    text = f"f() {{\n  {condition}\n}}\n"
    script = parse_file(SourceText("t.sh", text.encode()))
    target = next(c for c in script.commands if script.text_of(c.node) == "echo T")
    decided = guards_hold(script, target.guards, _Positional(arguments))
    if decided is None:
        return
    quoted = " ".join("'" + a + "'" for a in arguments)
    done = _bash_run(f"{text}f {quoted}\n")
    assert (done.stdout.strip() == "T") is decided, (condition, arguments)


def test_positional_conditions_decided_and_not() -> None:
    """The arms `svc start` and `svc stop` take are decided; a word that is not the argument
    (single quotes, a backslash: the text `$1`) is not read as it, and `$10` is not known."""
    for condition, arguments, expected in [
        (_POSITIONAL_CONDITIONS[0], ["stop"], False),
        (_POSITIONAL_CONDITIONS[0], ["start", "x"], True),
        (_POSITIONAL_CONDITIONS[3], ["stop"], False),
        (_POSITIONAL_CONDITIONS[7], ["start"], False),
        (_POSITIONAL_CONDITIONS[8], ["start"], False),
        (_POSITIONAL_CONDITIONS[9], ["start"], None),
    ]:
        script = parse_file(SourceText("t.sh", f"f() {{\n  {condition}\n}}\n".encode()))
        target = next(c for c in script.commands if script.text_of(c.node) == "echo T")
        decided = guards_hold(script, target.guards, _Positional(arguments))
        assert decided is expected, condition


@needs_bash
@pytest.mark.parametrize(
    ("condition", "values", "expected"),
    [
        ('[[ $FRAMEWORK == "dynamo-"* ]]', {"FRAMEWORK": "dynamo-trt"}, True),
        ("[[ $FRAMEWORK == 'dynamo-*' ]]", {"FRAMEWORK": "dynamo-trt"}, False),
        ("[[ ${X:+v} == v ]]", {"X": "1"}, True),
        ("[[ ${X:+v} == v ]]", {"X": ""}, False),
        ("[[ ${X-d} == d ]]", {}, True),  # unset: the default
        ("[[ ${X-d} == d ]]", {"X": ""}, False),  # set and empty: kept
        ("[[ ${X+v} == v ]]", {"X": ""}, True),
        ("[[ ${X+v} == v ]]", {}, False),
        ("[[ ${X?} == a ]]", {}, None),  # the shell stops
        ("[[ ${X,,} == abc ]]", {"X": "ABC"}, True),
        ('[[ $X =~ ^a"."b$ ]]', {"X": "axb"}, False),
        ("[[ $X =~ ^a.b$ ]]", {"X": "axb"}, True),
        ("[[ $X =~ \\d ]]", {"X": "1"}, False),  # `\d` quotes d: not a digit class
        ("[[ $X =~ a*? ]]", {"X": "ab"}, None),  # a lazy quantifier is not POSIX ERE
        ("[[ $(hostname) == a ]]", {}, None),
        ("[[ ${X/a/b} == b ]]", {"X": "a"}, None),
        ("[[ ${X:0:1} == a ]]", {"X": "ab"}, None),
        ("[[ $((X + 1)) -eq 2 ]]", {"X": "1"}, None),
        ("[[ $X -eq 8 ]]", {"X": "010"}, None),  # arithmetic: 010 is octal 8
        # (h41 F11: an unquoted empty operand goes; `[` tests the lone operator, true)
        ("[ -n $X ]", {"X": ""}, True),
        ("[ -z $X ]", {"X": ""}, True),
        ("test -n $X", {"X": ""}, True),  # (`test -n`: one argument, not empty)
        ("test $X", {"X": ""}, None),  # (`test` alone: false, as no argument is given)
        ('test -n "$X" -a -n "$X"', {"X": "a"}, None),  # (more than three: not read)
        ("[ -n $X ]", {"X": "a"}, True),
        ("[ -n $X ]", {}, True),
        ('[ -n "$X" ]', {"X": ""}, False),
        ("[[ -n $X ]]", {"X": ""}, False),
        ("[ -n $X -a -n a ]", {"X": ""}, None),  # (the operands shift: not decided)
        # (h42 N1: a message in the condition succeeds; not one written to a file)
        ('[ -z "$X" ] && echo "X is not set!" >&2', {"X": ""}, True),
        ('[ -z "$X" ] && echo "$(basename "$0"): X; set it" >&2', {"X": ""}, True),
        ('[ -z "$X" ] && echo "X is not set!"', {"X": "a"}, False),
        ('[ -z "$X" ] && echo x > /nonexistent/dir/f', {"X": ""}, None),
        # (h42 N4, h43 F2: tree-sitter-bash misreads `=` beside `||` in `[[ ]]` and `-a`/`-o`
        # in `[ ]`: comparisons joined by one operator read from the text, else not decided)
        ('[[ "$X" = vllm || "$X" = sglang ]]', {"X": "vllm"}, True),
        ('[[ "$X" = vllm || "$X" = sglang ]]', {"X": "trt"}, False),
        ("[[ $X = v* && $X != vx ]]", {"X": "vllm"}, None),
        ('[ "$X" = a -o "$X" = b ]', {"X": "a"}, True),
        ('[ "$X" = a -o "$X" = b ]', {"X": "c"}, False),
        ('[ "$X" = "a b" -o $X = c ]', {"X": "a b"}, None),  # (`$X` splits in `[ ]`)
        ('[ -n "$X" -a "$X" = x ]', {"X": "x"}, True),
        # (h131 F3: `[` reads both sides of `-o`/`-a` and fails on an error in either)
        ('[ "$X" -ge 1 -o "$X" = x ]', {"X": ""}, False),
        ('[ "$X" = x -o "$X" -ge 1 ]', {"X": "x"}, False),
        ('[ "$X" -ge 1 -o "$X" = x ]', {"X": "3"}, True),
        ('[ -z "$X" -o "$X" -lt 1 ]', {"X": ""}, False),
        ('[ -n "$X" -a "$X" -gt 0 ]', {"X": "4"}, True),
        ('[[ -z "$X" || "$X" -lt 1 ]]', {"X": ""}, True),
        # (an operand whose value is an operator of `[` shifts how a joined test reads)
        ('[ "$X" = a -o "$X" = b ]', {"X": "!"}, None),
        ('[ -n "$X" -a "$X" = "$X" ]', {"X": "-o"}, None),
        ('[[ "$X" == vllm || "$X" == sglang ]]', {"X": "vllm"}, True),
        # (h43 N1: a quoted word that expands to nothing stays an argument)
        ('[ -n "${X%vllm}" ]', {"X": "vllm"}, False),
        ('[ -n "${X:-}" ]', {"X": ""}, False),
        ('! [ -n "${X%a}" ]', {"X": "a"}, True),
        # (h44 F1: a quote in a pattern keeps no word)
        ('[ -n ${X%"vllm"} ]', {"X": "vllm"}, True),
        ("[ -n ${X%'vllm'} ]", {"X": "vllm"}, True),
        # (h127 F1: `[`'s integer comparison fails on an operand that is no integer, `!`
        # inside it too, status 2; `[[ ]]` reads nothing as 0; `[` allows blanks and a sign)
        ('[ "$X" -gt 0 ]', {"X": ""}, False),
        ('[ ! "$X" -gt 0 ]', {"X": ""}, None),  # (`!` inside `[ ]`: not read)
        ('! [ "$X" -gt 0 ]', {"X": ""}, True),
        ('[ "$X" -eq 0 ]', {"X": "abc"}, False),
        ('[ "$X" -eq 16 ]', {"X": "0x10"}, False),
        ('[ "$X" -gt 0 ]', {"X": " +5 "}, True),
        ('[ "$X" -eq 10 ]', {"X": "010"}, True),
        ("[[ $X -gt 0 ]]", {"X": ""}, False),
        ("[[ $X -eq 0 ]]", {"X": ""}, True),
        ('[[ "$X" -eq 0 ]]', {"X": " "}, True),
        ("[[ $X -eq 0 ]]", {"X": "abc"}, None),  # (a name: its value)
    ],
)
def test_known_shapes(condition: str, values: dict[str, str | None], expected: bool | None) -> None:
    script = f"if {condition}; then echo T; else echo F; fi\n"
    assert _decide(script, values) is expected
    if expected is not None:
        assert _bash(script, values) is expected


def test_a_catastrophic_regex_is_unknown_in_bounded_time() -> None:
    script = "if [[ $X =~ ^(a+)+$ ]]; then echo T; fi\n"
    assert _decide(script, {"X": "a" * 40 + "b"}) in (None, False)


# -- YAML scalars as PyYAML reads them ----------------------------------------------------------
SCALARS = [
    *("yes", "No", "ON", "off", "y", "n", "true", "False", "~", "null", "", "Null"),
    *("010", "0o10", "0x1F", "0b101", "09", "-012", "+12", "1_440", "0_7", "-1_0", "0"),
    *("4:00:00", "190:20:30", "-1:30", "1:60", "01:30", "190:20:30.15", "1:2:3"),
    *("1e3", "1.5e3", "1.5e+3", "1.", ".5", "012.5", ".inf", "-.Inf", ".NaN", "1_0.5"),
    *("v0.15.1", "04:00:00", "1440", "dynamo-trt"),
]


@pytest.mark.parametrize("text", SCALARS)
@pytest.mark.parametrize("style", ["plain", "quoted"])
def test_scalars_resolve_as_pyyaml_reads_them(text: str, style: str) -> None:
    import math

    import yaml

    from benchlint.yamlmodel import parse_yaml

    written = f"k: {text}\n" if style == "plain" else f"k: '{text}'\n"
    expected = yaml.safe_load(written)["k"]
    document = parse_yaml(SourceText("t.yaml", written.encode()))
    assert document.root is not None
    node = document.root.get("k")
    assert node is not None
    got = node.scalar
    if isinstance(expected, float) and math.isnan(expected):
        assert isinstance(got, float) and math.isnan(got)
    else:
        assert (type(got), got) == (type(expected), expected), written


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet="0123456789:._-+xob eE", min_size=1, max_size=8))
def test_generated_scalars_resolve_as_pyyaml_reads_them(text: str) -> None:
    import math

    import yaml

    from benchlint.yamlmodel import YamlError, parse_yaml

    written = f"k: {text}\n"
    try:
        expected = yaml.safe_load(written)
    except yaml.YAMLError:
        return
    if not isinstance(expected, dict) or "k" not in expected:
        return
    try:
        document = parse_yaml(SourceText("t.yaml", written.encode()))
    except YamlError:
        return
    node = document.root.get("k") if document.root is not None else None
    assert node is not None
    got, want = node.scalar, expected["k"]
    if isinstance(want, float) and math.isnan(want):
        assert isinstance(got, float) and math.isnan(got)
    else:
        assert (type(got), got) == (type(want), want), written


# -- sed -----------------------------------------------------------------------------------------
SED = shutil.which("sed")
needs_gnu_sed = pytest.mark.skipif(
    SED is None
    or "GNU" not in subprocess.run([SED, "--version"], capture_output=True, text=True).stdout,
    reason="GNU sed is not installed",
)
REGEXES_BRE = [
    "a",
    "^a",
    "b$",
    "a.*b",
    "[^x]*",
    "x*",
    "^",
    "$",
    "\\(a\\)\\1",
    "ab\\|ba",
    "a\\{2\\}",
    "[\\t]",  # GNU sed: a TAB, also inside brackets
    "[\\\\t]",  # a backslash or a t
    "a\\|ab",  # POSIX: the longest of the alternatives that match here
]
REGEXES_ERE = ["a+", "(a|b)x", "^(ab)+$", "[[:digit:]]+", "a{1,2}", "b?$", "(a|ab)", "(a|ab)(b*)"]
ADDRESSES = ["", "1", "2", "$", "/a/", "/^b/", "1,2", "2,$", "/a/,/b/", "0,/a/", "/x/,$", "1!"]
TEXTS = st.text(alphabet="abx1 \n\t\\", max_size=30)


def _sed_command(extended: bool) -> st.SearchStrategy[str]:
    regexes = st.sampled_from(REGEXES_ERE if extended else REGEXES_BRE)
    return st.one_of(
        st.builds(
            lambda a, r, rep, fl: f"{a}s/{r}/{rep}/{fl}",
            st.sampled_from(ADDRESSES),
            st.one_of(regexes, st.just("")),
            st.sampled_from(["", "X", "&&", "[&]", "\\n", "-"]),
            st.sampled_from(["", "g", "I", "2", "2g", "p"]),
        ),
        st.builds(lambda a: f"{a}d", st.sampled_from(ADDRESSES[1:])),
        st.builds(
            lambda a, op: f"{a}{op} new", st.sampled_from(ADDRESSES[1:]), st.sampled_from("aic")
        ),
    )


def _gnu_sed(script: str, text: str, extended: bool, tmp: str) -> str | None:
    path = os.path.join(tmp, "recipe.yaml")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    args = [SED or "sed", *(["-E"] if extended else []), "-e", script, path]
    out = subprocess.run(args, capture_output=True, timeout=10, env={"LC_ALL": "C.UTF-8"})
    return out.stdout.decode("utf-8") if out.returncode == 0 else None


@needs_gnu_sed
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.booleans(), st.data(), TEXTS)
def test_sed_simulation_agrees_with_gnu_sed(extended: bool, data: st.DataObject, text: str) -> None:
    import tempfile

    from benchlint.rewrite import RewriteError, parse_sed, run_sed

    commands = data.draw(st.lists(_sed_command(extended), min_size=1, max_size=4))
    script = ";".join(commands)
    with tempfile.TemporaryDirectory() as tmp:
        expected = _gnu_sed(script, text, extended, tmp)
    try:
        got = run_sed(parse_sed(script, extended), text)
    except RewriteError:
        return  # declared "not simulated"
    assert expected is not None, f"sed rejects {script!r}, benchlint simulates it"
    assert got == expected, (script, text)


# The pieces of a command-line word: literal text, expansions bare and quoted, single quotes
_PIECES = st.sampled_from(
    [
        ".a",  # literal text never starts with a name's character: `$Aa` would read Aa
        "+x",
        "=",
        ":",
        ",",
        "/",
        "-",
        "--m=",
        "$A",
        "$B",
        "${C}",
        '"$A"',
        '"${B}:$C"',
        '"lit $D"',
        "'$A'",
        "\\$B",
        "\\\n",  # a line continuation: bash removes it, the pieces around it are one word
    ]
)
_MARKS = {name: f"<{name}>" for name in "ABCD"}  # unique values, no blanks: no word splitting


def _marked_bash(program: str) -> subprocess.CompletedProcess[str]:
    """bash running the program with A-D set to their marks."""
    return subprocess.run(
        [BASH or "bash", "-c", program],
        env={**_MARKS, "PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=10,
    )


@needs_bash
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.lists(_PIECES, min_size=1, max_size=6).map("".join), min_size=1, max_size=4))
@example(["==", "$A"])  # an operator token to tree-sitter-bash, a word to bash
@example(["=~", '"$B"'])
def test_words_and_their_reads_agree_with_bash(words: list[str]) -> None:
    """The model's words of a command line are bash's words, and each word reads the variables
    bash expands in it, in order (tree-sitter-bash splits some words, `--m=$A:$B,$C`, in two)."""
    import re

    # (a line that ends in `==` is an error to tree-sitter-bash: a last word that is not)
    line = "printf '%s\\n' " + " ".join(words) + " ."
    expected = _marked_bash(line).stdout.split("\n")[:-2]
    script = parse_file(SourceText("t.sh", (line + "\n").encode()))
    model = script.commands[0].words[2:-1]
    assert len(model) == len(expected), (line, [w.text for w in model], expected)
    for word, printed in zip(model, expected, strict=True):
        expanded = re.findall(r"<([A-D])>", printed)
        assert [r.name for r in word.reads()] == expanded, (line, word.text, printed)


def _bash_at_least(major: int, minor: int) -> bool:
    found = subprocess.run(
        [BASH or "bash", "-c", "echo ${BASH_VERSINFO[0]} ${BASH_VERSINFO[1]}"],
        capture_output=True,
        text=True,
        timeout=10,
    ).stdout.split()
    return [int(v) for v in found] >= [major, minor]


# pieces of a `$'...'` string's text: every kind of escape bash's `ansicstr` reads, and the
# edges (a digit past an escape's last, an escape with no digit, a NUL, a value past U+10FFFF)
_ANSI_PIECES = st.sampled_from(
    [
        "a", " ", "$", "é", "\\n", "\\t", "\\e", "\\E", "\\a", "\\b", "\\f", "\\v",
        "\\r", "\\q", "\\\\", "\\'", '\\"', "\\?", "\\0", "\\01", "\\012",
        "\\0101", "\\101", "\\7", "\\8", "\\777", "\\400", "\\x", "\\x4", "\\x41",
        "\\x414", "\\xg", "\\xff", "\\x0", "\\u", "\\u41", "\\u00e9", "\\u263a",
        "\\uD800", "\\U0001F600", "\\U41", "\\U7FFFFFFF", "\\UFFFFFFFF", "\\U00110000",
        "\\cA", "\\ca", "\\c?", "\\c", "\\c\\\\", "\\c\\x", "\\c[", "\\cé",
        "\\x{41}", "\\x{4142}", "\\x{}", "\\x{41", "\\x{e9}", "\\x{g}",
    ]
)  # fmt: skip


@needs_bash
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(_ANSI_PIECES, min_size=1, max_size=5).map("".join))
@example("\\0101")  # `\0` takes two more digits, as the others do (`\010`, then `1`)
@example("a\\0b")  # the string ends at a NUL
@example("\\cé")  # the control character of the first byte; the others stay
def test_ansi_c_strings_agree_with_bash(text: str) -> None:
    """A `$'...'` word's value is the bytes bash makes of it (in a UTF-8 locale), each
    character placed at the file offset of its escape's backslash or of itself. (`\\x{HH}` is
    bash 5.2's, the model's: an older bash reads it otherwise.)"""
    assume("\\x{" not in text or _bash_at_least(5, 2))
    line = f"x$'{text}'y"
    printed = subprocess.run(
        [BASH or "bash", "-c", f"printf '%s' {line}"],
        env={"LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "")},
        capture_output=True,
        timeout=10,
    ).stdout
    script = parse_file(SourceText("t.sh", f"echo {line}\n".encode()))
    word = script.commands[0].words[1]
    assert word.value.encode("utf-8", "surrogateescape") == printed, (text, word.value, printed)
    assert word.static
    offsets = word.offsets
    assert len(offsets) == len(word.value)
    assert offsets[0] == 5 and offsets[-1] == len(line) + 4  # (`x` and `y`, after `echo `)
    assert offsets == sorted(offsets)
    backslashes = [i + 8 for i, c in enumerate(text) if c == "\\"]
    for char, offset in zip(word.value[1:-1], offsets[1:-1], strict=True):
        assert offset in backslashes or line[offset - 5] == char, (text, char, offset)


@needs_bash
@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.lists(
        st.sampled_from(["a", '"$A"', "</dev/null", ">/dev/null", "2>&1", "b c", ">>/dev/null"]),
        min_size=1,
        max_size=6,
    )
)
def test_words_after_a_redirection_are_arguments_as_bash_has_them(parts: list[str]) -> None:
    """`cmd <in a b` runs `cmd a b` (tree-sitter-bash reads `a b` as more of the redirect's
    destinations): the model's words are bash's, wherever the redirections stand."""
    line = "f " + " ".join(parts) + " ."
    # (f prints its arguments to fd 4, the script's stdout, whatever the line redirects)
    expected = _marked_bash("f() { printf '[%s]' \"$@\" >&4; }; exec 4>&1; " + line).stdout
    script = parse_file(SourceText("t.sh", (line + "\n").encode()))
    values = [w.value.replace("$A", "<A>") for w in script.commands[0].words[1:]]
    assert "".join(f"[{v}]" for v in values) == expected, line


@needs_bash
@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    st.lists(
        st.sampled_from(["a", "1", "{", "}", ",", "..", "'", '"', "\\", "${X}", "-", "x="]),
        min_size=1,
        max_size=8,
    ).map("".join)
)
@example("node{1..4}")
@example("--tp={4,8}")
@example("{a}")
@example("'{a,b}'")
@example("{1..}")
def test_brace_expansion_agrees_with_bash(text: str) -> None:
    """`Word.brace_expands`: whether bash makes several words of one by brace expansion (the
    words of a line bash accepts, counted by a function that prints its `$#`)."""
    line = f"f {text}"
    done = _marked_bash(f"f() {{ printf '%s' $#; }}; {line}")
    script = parse_file(SourceText("t.sh", (line + "\n").encode()))
    if done.returncode != 0 or script.has_error or len(script.commands) != 1:
        return  # (not one command bash runs)
    words = script.commands[0].words[1:]
    if len(words) != 1 or done.stdout not in ("1", "2", "3", "4", "5", "6", "7", "8", "9"):
        return  # (the model's words and bash's are compared elsewhere)
    assert words[0].brace_expands == (done.stdout != "1"), (text, done.stdout)


_TESTS = ['[[ "$A" == x ]]', '[ -n "$A" ]', "true", "false", 'test "$A" = y']
_PRINTERS = ["printf 'p'", "printf ''", "echo q", "echo -n r", 'echo "s t"', "printf '_mtp'"]


@needs_bash
@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.lists(st.sampled_from(_TESTS + _PRINTERS), min_size=1, max_size=4),
    st.lists(st.sampled_from([" && ", " || ", "; "]), min_size=3, max_size=3),
    st.sampled_from(["", "x", "y"]),
)
def test_what_a_substitution_prints_agrees_with_bash(
    commands: list[str], operators: list[str], value: str
) -> None:
    """What `$(...)` can print, by the model, holds what bash prints, whatever the tests decide
    (`SUFFIX=$([[ $SPEC == mtp ]] && printf '_mtp' || printf '')`)."""
    from benchlint.shell.output import substitution_outputs

    body = commands[0] + "".join(op + c for op, c in zip(operators, commands[1:], strict=False))
    outputs = substitution_outputs(body)
    assert outputs is not None, body  # tests and literal printers only: always known
    result = subprocess.run(
        [BASH or "bash", "-c", f'printf "%s" "$({body})"'],
        env={"A": value, "PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert result.stdout in outputs, (body, value, result.stdout, outputs)


def test_a_substitution_that_reads_or_runs_anything_else_prints_what_is_not_known() -> None:
    from benchlint.shell.output import substitution_outputs

    for body in ["echo $X", "cat f", "printf '%s' x", "echo -e 'a\\n'", "ls | head -1", "date"]:
        assert substitution_outputs(body) is None, body


class _SharedEnv(_Env):
    """A route's environment: its own memo, and decisions shared with other routes."""

    def __init__(self, values: dict[str, str | None], decisions: object) -> None:
        super().__init__(values)
        self.memo: dict[object, object] = {}
        self.decisions = decisions


@settings(max_examples=300, deadline=None, derandomize=True)
@given(CONDITIONS, st.lists(_ENV, min_size=2, max_size=6))
def test_decisions_shared_between_environments_are_each_ones_own(
    condition: str, environments: list[dict[str, str | None]]
) -> None:
    """A guard decided for one environment is reused only for one whose values of what the
    decision read are the same: every environment gets what deciding afresh gives."""
    from benchlint.shell.evaluate import Decisions

    script = parse_file(SourceText("t.sh", f"if {condition}; then echo T; fi\n".encode()))
    target = next(c for c in script.commands if script.text_of(c.node) == "echo T")
    decisions = Decisions()
    for values in environments + environments[::-1]:
        shared = guards_hold(script, target.guards, _SharedEnv(values, decisions))
        assert shared == guards_hold(script, target.guards, _Env(values)), (condition, values)


# The pieces of a string a variable holds, or of an argument (no operator: its words only):
# plain text, expansions, and the characters after which parsing the text would not give
# bash's split words
_HELD_PIECES = st.sampled_from(
    [
        "a",
        "-x",
        "--m=",
        "/p",
        ":",
        ",",
        " ",
        "  ",
        "$A",
        "${B}",
        "*",
        "?",
        "{a,b}",
        "~",
        "#",
        "'q r'",
        '\\"',
        "\\$B",
        ";",
        "|",
        "=",
        "!",
        "[c]",
        "&",
    ]
)


@needs_bash
@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.lists(_HELD_PIECES, max_size=6).map("".join),
    st.lists(
        st.lists(_HELD_PIECES.filter(lambda p: p not in ";|&"), min_size=1, max_size=3).map(
            "".join
        ),
        max_size=2,
    ),
)
@example("-a $A", ["-x"])  # plain: modelled, so the test can fail
def test_a_held_command_splits_as_bash_splits_it(value: str, args: list[str]) -> None:
    """`$CMD ARGS`: where the model runs the words a string variable holds, they are bash's
    words; where bash would not give the words a parse gives, the model runs nothing."""
    import re

    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`")
    line = f'CMD="show {escaped}"\n$CMD ' + " ".join(args) + "\n"
    program = 'show() { for a in "$@"; do printf "<%s>\\n" "$a"; done; }\ncd /\n' + line
    result = _marked_bash(program)
    script = parse_file(SourceText("t.sh", line.encode()))
    if script.has_error or not script.nested:
        return  # not modelled: bash's words may differ from a parse's
    nested = script.nested[0].commands[0]
    marked = [re.sub(r"\$\{?([A-D])\}?", r"<\1>", w.value) for w in nested.words[1:]]
    assert [f"<{w}>" for w in marked] == result.stdout.split("\n")[:-1], (line, result.stdout)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 9)), min_size=1, max_size=6))
def test_live_pairs_are_the_pairs_pyyaml_keeps(pairs: list[tuple[str, int]]) -> None:
    """Of a key written twice in a mapping, PyYAML keeps the last value, in the first one's
    place in its dict; `live_pairs` keeps the last pair (rules read keys, not the order)."""
    import yaml

    from benchlint.yamlmodel import parse_yaml

    text = "".join(f"{k}: {v}\n" for k, v in pairs)
    root = parse_yaml(SourceText("a.yaml", text.encode())).root
    assert root is not None
    live = {k.value: int(v.value) for k, v in root.live_pairs()}
    assert live == yaml.safe_load(text)
    assert len(root.live_pairs()) == len(live)


# statements that set variables without `NAME=value`, and near misses that set none
_SETTING = [
    "(( n = 5 - 2 ))",
    "((k++))",
    "(( --k ))",
    "((a[1]+=2, b=3))",
    "(( n == 3 ))",
    "let m=3 'q = 4' z++",
    "let 'w == 3'",
    "for f in 1 2; do :; done",
    "for ((j = 0; j < 2; j++)); do :; done",
    "read -r r1 r2",
    "read -a ra -t 5",
    "read -d , r3",
    "mapfile -t arr",
    "readarray -d , -t arr2",
    "printf -v pv '%d' 3",
    "getopts ab opt",
    "command read -r r1 r2",
    "time read -r r1 2>/dev/null",
    "builtin read -a ra",
    "builtin printf -v pv '%d' 3",
    "command mapfile -t arr",
    "{ g=1; }",
    "printf -v 'pa[0]' %s x",
    "read -r 'rb[0]'",
    "read -r 1x 2>/dev/null",
    # (bash's reserved word `time`: what it times runs in this shell; quoted, it is a program)
    "time -p z=1 2>/dev/null",
    "time -- w=1 2>/dev/null",
    "time time j=1 2>/dev/null",
    "! time q=1 2>/dev/null",
    '"time" m=1 >/dev/null 2>&1',
]
_CANDIDATES = [
    "n",
    "k",
    "a",
    "b",
    "m",
    "q",
    "z",
    "w",
    "f",
    "j",
    "r1",
    "r2",
    "ra",
    "r3",
    "arr",
    "arr2",
    "pv",
    "opt",
    "g",
    "pa",
    "rb",
]


@needs_bash
@pytest.mark.parametrize("statement", _SETTING)
def test_what_a_statement_assigns_agrees_with_bash(statement: str) -> None:
    """The names the model says a statement assigns are those bash has set after it."""
    script = parse_file(SourceText("t.sh", f"{statement}\n".encode()))
    modelled = sorted({a.name for a in script.assignments})
    probe = f"{statement}\n"
    probe += "".join(f"declare -p {v} >/dev/null 2>&1 && echo {v}\n" for v in _CANDIDATES)
    done = subprocess.run(
        [BASH or "bash", "-c", probe],
        input="1 2\n",
        env={"PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert modelled == sorted(done.stdout.split()), done.stderr


@needs_bash
@pytest.mark.parametrize(
    "statement",
    [
        "command export x1=1",
        "builtin export x1=1",
        "command declare -x x1=1",
        "builtin readonly x1=1",
        "builtin declare x1=1",
        "x1=1 command export x1",
        "x1=1 builtin export x1",
        "command export x1",
        "time export x1=1 2>/dev/null",
        "time declare -x x1=1 2>/dev/null",
    ],
)
def test_a_declaration_behind_command_or_builtin_assigns_as_bash_does(statement: str) -> None:
    """`command export PORT=8000`, `builtin declare -x ...`: a declaration all the same, its
    value and its export as bash has them after it (h29 F3)."""
    script = parse_file(SourceText("t.sh", f"{statement}\n".encode()))
    given = [a for a in script.assignments if a.name == "x1" and a.kind != "prefix"]
    assert given
    value = given[-1].value.value if given[-1].value is not None else None
    if value is None:  # (`x1=1 command export x1`: the prefix's value)
        prefix = [a for a in script.assignments if a.name == "x1" and a.kind == "prefix"]
        value = prefix[0].value.value if prefix and prefix[0].value is not None else None
    modelled = ("x" if given[-1].exported else "-", value)
    done = _bash_run(
        f'{statement}\n[[ -v x1 ]] && echo "${{x1}}"; [[ ${{x1@a}} == *x* ]] && echo x\n'
    )
    lines = done.stdout.splitlines()
    real = ("x" if "x" in lines else "-", lines[0] if lines and lines[0] != "x" else None)
    assert modelled == real


@needs_bash
def test_a_substring_offset_that_is_no_number_skips_the_command_and_bash_goes_on() -> None:
    """What BL105's message says: unset, the expansion is empty; set, bash reports an
    arithmetic error, skips that command and goes on, even under `set -e`."""
    program = (
        'set -e\nserve() { echo "serve [$*]"; }\n'
        'serve "${UNSET_X:meta-llama/x}"\nX=abc\nserve "${X:meta-llama/x}"\necho after\n'
    )
    done = _bash_run(program)
    assert done.stdout == "serve []\nafter\n"
    assert "division by 0" in done.stderr


# offsets written where a default was meant: `${X:text}`, as BL105 reads them
_OFFSETS = [
    ' -"finetune_5e-6"',
    ' -"Qwen2-VL-2B-Instruct"',
    ' -"activitynet_qa_val"',
    '"foo"',
    "gpu-2",
    "meta-llama/x",
    "1e3",
    "x.y",
    "'3'",
    "a,b",
    "~b",
    "@",
]


@needs_bash
@pytest.mark.parametrize("text", _OFFSETS)
def test_what_bl105_says_a_set_variable_gives_agrees_with_bash(text: str) -> None:
    """BL105's message for a set variable (the names it reads unset, as in a script that sets
    none of them): an arithmetic error (bash skips the rest of the top-level statement: its
    loop, the rest of its line, and goes on with the next), or the value from an offset (all
    of it where the offset is 0)."""
    import importlib

    bl105 = importlib.import_module("checks.bl105_substring_as_default")
    script = parse_file(SourceText("x.sh", b"true\n"))
    said = bl105._implausible(text, script, lambda: set())
    done = _bash_run(
        f'X=abcdefghijkl\nfor i in 1 2; do echo "[${{X:{text}}}]"; echo loop; done; echo line\n'
        "echo next\n"
    )
    if said == bl105._ERROR:
        assert done.stdout == "next\n" and done.stderr, (said, done)
    else:
        assert said == bl105._PART, said
        out = done.stdout.split("\n", 1)[0]
        assert not done.stderr and "abcdefghijkl".endswith(out[1:-1]), (said, done)


GREP = shutil.which("grep")
_GREP_CASES = [
    "-q '^health_check:'",
    "-qi '^HEALTH_CHECK:'",
    "-q -e '^nothing:' -e 'max_attempts: [0-9]*'",
    "-qE 'max_attempts: [0-9]+$'",
    "-q 'max_attempts: 1440\\|x'",
    "-qs 'Health'",
    "-qiE 'health_(check|probe)'",
]
_GREP_TEXTS = ["health_check:\n  max_attempts: 1440\n", "name: x\nHEALTH: 1\n", ""]


@pytest.mark.skipif(GREP is None, reason="grep is not installed")
@pytest.mark.parametrize("options", _GREP_CASES)
@pytest.mark.parametrize("text", _GREP_TEXTS)
def test_the_grep_probe_agrees_with_grep(options: str, text: str, tmp_path: Path) -> None:
    """A launcher's `if grep -q ... "$CONFIG_FILE"` decided on the recipe's text as grep does
    (options it does not model are undecided, never guessed)."""
    from benchlint.launcher import LauncherModel

    script = parse_file(SourceText("l.sh", f'grep {options} "$CONFIG_FILE"\n'.encode()))
    command = next(c for c in script.commands if c.base == "grep")
    decided = LauncherModel(script).grep_probe(text)(command)
    recipe = tmp_path / "r.yaml"
    recipe.write_text(text)
    done = subprocess.run(
        [BASH or "bash", "-c", f'grep {options} "$CONFIG_FILE"'],
        env={"PATH": os.environ.get("PATH", ""), "CONFIG_FILE": str(recipe), "LC_ALL": "C"},
        capture_output=True,
        timeout=10,
    )
    assert decided is not None, options
    assert decided == (done.returncode == 0), (options, text)


@needs_gnu_sed
@pytest.mark.parametrize(
    ("script", "extended", "text"),
    [
        ("s/(a|ab)/X/", True, "ab\n"),  # POSIX leftmost-longest: the whole `ab`
        ("s/dtype: (fp8|fp8_e4m3)/dtype: fp8_e4m3/", True, "dtype: fp8_e4m3\n"),
        ("s/a\\|ab/X/g", False, "abab\n"),
        ("s/[\\t]/  /g", False, "a\tt\n"),  # a TAB inside brackets
        ("s/x: [0-9]*/x: 4/w /dev/null", False, "x: 8, dp: x: 8\n"),  # `w FILE` is no flag g
        ("s/a\\{1,99999\\}/b/", False, "aaa\n"),  # sed: "Regular expression too big"
        ("s/a\\{2,300\\}/b/", False, "aaa\n"),
    ],
)
def test_sed_cases_agree_with_gnu_sed(script: str, extended: bool, text: str) -> None:
    """Simulated as GNU sed runs it, or declared not simulated where sed rejects the script."""
    import tempfile

    from benchlint.rewrite import RewriteError, parse_sed, run_sed

    with tempfile.TemporaryDirectory() as tmp:
        expected = _gnu_sed(script, text, extended, tmp)
    try:
        got = run_sed(parse_sed(script, extended), text)
    except RewriteError:
        assert expected is None, f"sed runs {script!r}, benchlint does not simulate it"
        return
    assert got == expected


_STEPS = ["true", "false", "echo q", "f"]


def _joined(commands: list[str], operators: list[str]) -> str:
    return commands[0] + "".join(op + c for op, c in zip(operators, commands[1:], strict=False))


def _ends_under_errexit(
    function: str, body: str, inherit: bool
) -> tuple[bool, subprocess.CompletedProcess[str]]:
    """(whether the model says `x=$(body)` can end the script under `set -e`, what bash did)."""
    from benchlint.shell.flow import Flow

    program = "\n".join(
        [
            "set -e",
            *(["shopt -s inherit_errexit"] if inherit else []),
            f"f() {{ {function}; }}",
            f"x=$({body})",
            "echo survived",
            "",
        ]
    )
    script = parse_file(SourceText("t.sh", program.encode()))
    assignment = next(c for c in script.commands if any(a.name == "x" for a in c.assignments))
    ran = _bash_run(program)
    return Flow(script).exit_path(assignment) is not None, ran


@needs_bash
@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.lists(st.sampled_from(_STEPS), min_size=1, max_size=3),
    st.lists(st.sampled_from([" && ", " || ", "; "]), min_size=2, max_size=2),
    st.lists(st.sampled_from(["true", "false", "echo 1", "return 0", "return 1"]), min_size=1),
    st.lists(st.sampled_from([" && ", " || ", "; "]), min_size=3, max_size=3),
    st.booleans(),
)
def test_an_assignment_that_cannot_fail_by_the_model_goes_on_in_bash(
    steps: list[str],
    operators: list[str],
    inner: list[str],
    inner_operators: list[str],
    inherit: bool,
) -> None:
    """`x=$(...)` under `set -e`: where the model says it cannot end the script, bash goes on,
    with or without `inherit_errexit` (its substitutions run without errexit by default: the
    last command's status, or a tested one's, and a function's last command's)."""
    can_end, ran = _ends_under_errexit(
        _joined(inner[:4], inner_operators), _joined(steps, operators), inherit
    )
    if not can_end:
        assert ran.stdout == "survived\n", ran


@needs_bash
@pytest.mark.parametrize(
    ("function", "body", "inherit", "ends"),
    [
        ("true", "false; echo q", False, False),
        ("true", "false; echo q", True, True),
        ("true", "false && echo q", False, True),
        ("true", "false || echo q", False, False),
        ("true", "echo q; false", False, True),
        ("false; echo 42", "f", False, False),
        ("false; echo 42", "f", True, True),
        ("echo 42; return 1", "f", False, True),
        ("echo 42; false", "f", False, True),
    ],
)
def test_what_ends_an_assignment_under_errexit(
    function: str, body: str, inherit: bool, ends: bool
) -> None:
    can_end, ran = _ends_under_errexit(function, body, inherit)
    assert can_end is ends
    assert (ran.stdout != "survived\n") is ends, ran


# pieces of a function's body (t57a, t58a: triton's wait_for_server_ready and near misses)
_BODY_PIECES = [
    "set +e",
    "set -e",
    "false",
    "true",
    "echo x",
    "W=1",
    "s=$((s - 1))",
    "X=$Y",
    "return",
    "return 1",
    '[ -n "$c" ] && return',
    '[ -n "$c" ] || return',
    'if [ -z "$c" ]; then return; fi',
    "false || echo bad",
    '[ -z "$c" ] && { W=1; return; }',
    "n=3; until test $n -eq 0; do ((n--)); done",
    "n=2; while [ $n -gt 0 ]; do ((n--)); done",
    "n=0; while true; do ((n--)); break; done",
]


@needs_bash
@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    st.lists(st.sampled_from(_BODY_PIECES), min_size=1, max_size=5),
    st.sampled_from(["", "x"]),
    st.booleans(),
)
def test_a_call_that_cannot_fail_by_the_model_goes_on_in_bash(
    pieces: list[str], value: str, nounset: bool
) -> None:
    """`f` under `set -e` (and `set -u`): where the model says calling it cannot end the script
    (`Flow.exit_path` of the call is None), bash goes on after it."""
    from benchlint.shell.flow import Flow

    body = "; ".join(pieces)
    program = "\n".join(
        ["set -eu" if nounset else "set -e", f'c="{value}"', f"f() {{ {body}; }}", "f"]
    )
    program += "\necho survived\n"
    script = parse_file(SourceText("t.sh", program.encode()))
    call = next(c for c in script.commands if c.base == "f" and c.function is None)
    if Flow(script).exit_path(call) is None:
        ran = _bash_run(program)
        assert ran.stdout.endswith("survived\n"), (program, ran)


_PIPE_SOURCES = ["true", "false", "printf 'a:b\\nc\\n'", "printf 'z\\n'"]
_PIPE_SINKS = [
    "head -1",
    "head -n 1",
    "tail -n1",
    "wc -l",
    "tr -d a",
    "tr a-z A-Z",
    "cut -d: -f1",
    "sort -u",
    "uniq -c",
    "cat",
    "grep a",
    "false",
    "head -1 /nonexistent/x",
    "cut -d:",
    "tr -d",
    "head -n x",
]


def _pipeline_ends(statement: str, pipefail: bool) -> tuple[bool, subprocess.CompletedProcess[str]]:
    """(whether the model says the statement can end the script under `set -e`, what bash
    did): an assignment's substitution, or the pipeline as a statement of its own."""
    from benchlint.shell.flow import Flow

    options = "set -eo pipefail" if pipefail else "set -e"
    program = f"{options}\n{statement}\necho survived\n"
    script = parse_file(SourceText("t.sh", program.encode()))
    flow = Flow(script)
    can_end = any(
        flow.exit_path(c) is not None
        for c in script.commands
        if c.node.start_byte >= len(options) and c.base != "echo"
    )
    return can_end, _bash_run(program)


@needs_bash
@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.sampled_from(_PIPE_SOURCES),
    st.sampled_from(_PIPE_SINKS),
    st.booleans(),
    st.booleans(),
)
def test_a_pipeline_that_cannot_fail_by_the_model_goes_on_in_bash(
    source: str, sink: str, assigned: bool, pipefail: bool
) -> None:
    """`curl ... | head -1` under `set -e`: where the model says the pipeline (or `x=$(...)`
    of it) cannot end the script, bash goes on: without `pipefail` its status is its last
    command's, and a filter reading a pipe with options it accepts ends with 0."""
    pipeline = f"{source} | {sink}"
    can_end, ran = _pipeline_ends(f"x=$({pipeline})" if assigned else pipeline, pipefail)
    if not can_end:
        assert ran.stdout.endswith("survived\n"), ran


_EXPORTING = [
    "x1=1",
    "export x1=1",
    "set -a\nx1=1\nset +a\nx2=2",
    "set -o allexport\nread -r x1 <<< v\nset +o allexport\nx2=2",
    "set -a\nf() { x1=1; }\nset +a\nx2=2\nf",
    "declare -x x1=1\nx2=2",
    "x1=1\nexport -n x1",
]


@needs_bash
@pytest.mark.parametrize("program", _EXPORTING)
def test_what_the_model_exports_agrees_with_bash(program: str) -> None:
    """The names the model marks exported (`export`, `declare -x`, under `set -a`) are those
    a child process sees (a function defined under `set -a` and called after `set +a` exports
    nothing: bash applies the option where the assignment runs)."""
    script = parse_file(SourceText("t.sh", f"{program}\n".encode()))
    exported: dict[str, bool] = {}
    for assignment in script.assignments:  # (in text order: the last one decides)
        exported[assignment.name] = assignment.exported or (
            exported.get(assignment.name, False) and assignment.kind != "unexport"
        )
    modelled = sorted(name for name, on in exported.items() if on)
    probe = f"{program}\nbash -c 'for v in x1 x2; do [ -n \"${{!v+x}}\" ] && echo $v; done'\n"
    done = _bash_run(probe)
    assert modelled == sorted(done.stdout.split()), (program, done.stderr)


@needs_bash
@pytest.mark.parametrize(
    ("statement", "pipefail", "ends"),
    [
        ("x=$(false | head -1)", False, False),
        ("x=$(false | head -1)", True, True),
        ("false | wc -l", False, False),
        ("false | wc -l", True, True),
        ("true | grep a", False, True),
        ("x=$(true | head -1 /nonexistent/x)", False, True),
        ("x=$(true | cut -d:)", False, True),
        ("x=$(printf 'a\\n' | tr -d a)", True, False),
    ],
)
def test_what_ends_a_pipeline_under_errexit(statement: str, pipefail: bool, ends: bool) -> None:
    can_end, ran = _pipeline_ends(statement, pipefail)
    assert can_end is ends
    assert (not ran.stdout.endswith("survived\n")) is ends, ran


@needs_bash
@pytest.mark.parametrize(
    ("program", "ends"),
    [
        ('read -r A B <<< "$(false)"', False),
        ("read -r A < /nonexistent/x", True),
        ("mapfile -t L < <(false)", False),
        ("false | mapfile -t L", False),
        ("mapfile -t L < /nonexistent/x", True),
        ("# shopt -s inherit_errexit\nx=$(false; echo 1)", False),
        ("x=$(false; echo 1)\nshopt -s inherit_errexit", False),
        ("shopt -s inherit_errexit\nx=$(false; echo 1)", True),
        ("set -o posix\nx=$(false; echo 1)", True),
        ("( false )", True),
        ("( false; true )", True),
        ("( cd / && false )", True),
        ("( exit 3 )", True),
        ("( exit 0 )", False),
        ("( false ) || true", False),
        ("( false ) &", False),
        ("( exit 1 ) &", False),
        ("( sleep 0; false ) > /dev/null 2>&1 &", False),
        ("if ( false ); then :; fi", False),
        ("n=0\n(( n++ ))", True),
        ("n=0\n((n--))", True),
        ("n=0\n(( n += 1 ))", False),
        ("n=0\n(( ++n ))", False),
        ("n=0\n(( n++ )) || true", False),
    ],
)
def test_what_ends_a_statement_under_errexit(program: str, ends: bool) -> None:
    """Statements whose status bash gives whatever their input (a here-string, a process
    substitution), and `inherit_errexit` where it is set, not where a comment names it."""
    from benchlint.shell.flow import Flow

    text = f"set -e\n{program}\necho survived\n"
    script = parse_file(SourceText("t.sh", text.encode()))
    flow = Flow(script)
    can_end = bool(flow.exits_between(0, None)) or any(
        flow.exit_path(c) is not None for c in flow.statements[1:] if c.base != "echo"
    )
    ran = _bash_run(text)
    assert can_end is ends
    assert (not ran.stdout.endswith("survived\n")) is ends, ran


_ARITH_ATOM = st.integers(min_value=0, max_value=5000).map(str)


def _arith() -> st.SearchStrategy[str]:
    return st.recursive(
        _ARITH_ATOM,
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "%"]), inner).map(
                lambda t: f"{t[0]} {t[1]} {t[2]}"
            ),
            inner.map(lambda e: f"({e})"),
            inner.map(lambda e: f"-{e}"),
        ),
        max_leaves=6,
    )


@needs_bash
@settings(max_examples=300, deadline=None, derandomize=True)
@given(_arith())
def test_arithmetic_of_numbers_agrees_with_bash(expression: str) -> None:
    """`$((...))` of numbers in a rewrite's text (`sed "s/.../$((1440*2))/"`): the model's value
    is bash's, or it keeps the text (a division by zero, an octal-looking number)."""
    from benchlint.launcher import _ARITHMETIC, _arithmetic

    text = f"$(({expression}))"
    model = _ARITHMETIC.sub(_arithmetic, text)
    ran = _bash_run(f'printf "%s" "{text}"')
    if model != text:
        assert ran.returncode == 0 and ran.stdout == model, (expression, model, ran)


_FLAG_PARTS = st.sampled_from(["cuda", "graph", "max", "bs", "decode", "prefill", "tp", "port"])
_FLAGS = st.lists(_FLAG_PARTS, min_size=1, max_size=4).map(lambda parts: "--" + "-".join(parts))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(flags=st.frozensets(_FLAGS, min_size=1, max_size=8), probe=_FLAGS, cut=st.integers(0, 12))
def test_flag_abbreviations_agree_with_argparse(
    flags: frozenset[str], probe: str, cut: int
) -> None:
    """Whether a release accepts a flag (`engine_flags._accepted`) is what argparse decides with
    its default abbreviations: the flag itself, or a prefix of exactly one of its flags (a
    prefix of two is `ambiguous option`)."""
    import argparse
    import contextlib
    import io

    from benchlint.engine_flags import _accepted

    flag = probe[: max(3, len(probe) - cut)]
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    for name in flags:
        parser.add_argument(name)
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # (`ambiguous option` exits)
            _, rest = parser.parse_known_args([flag, "1"])
        parsed = flag not in rest
    except (argparse.ArgumentError, SystemExit):
        parsed = False
    assert _accepted(flag, flags) == parsed, (sorted(flags), flag)


_SHORT_OPTIONS = st.sampled_from(
    ["-tp", "-pp", "-dp", "-dpa", "-dpb", "-dcp", "-dc", "-q", "-n", "-O", "-ho"]
)
_ONE_DASH = st.sampled_from(["h", "o", "st", "tp", "p", "d", "c", "q", "fp8", "8", "ort", "=1"])


@settings(max_examples=400, deadline=None, derandomize=True)
@example(options=frozenset({"-dpa", "-dpb"}), parts=["d", "p"])  # (ambiguous)
@example(options=frozenset({"-tp"}), parts=["h", "o", "st"])  # (`-h`, then `o`)
@example(options=frozenset({"-tp"}), parts=["p", "ort"])  # (unrecognized)
@example(options=frozenset({"-q"}), parts=["q", "fp8"])  # (`-q fp8`)
@example(options=frozenset({"-tp"}), parts=["tp", "=1"])  # (`-tp=1`)
@given(
    options=st.frozensets(_SHORT_OPTIONS, max_size=6),
    parts=st.lists(_ONE_DASH, min_size=1, max_size=3),
)
def test_one_dash_words_agree_with_argparse(options: frozenset[str], parts: list[str]) -> None:
    """How argparse reads a word with one dash where an option is read (BL303's `-host`,
    `engine_flags._one_dash_reading`), on a parser with those one-dash options (each taking a
    value) and `-h`: a complaint the model tells is argparse's error, word for word; `-h` then
    more letters stops the parse (an error before Python 3.12.3, the help after); a two-letter
    option is given the rest as its value; where the model tells nothing, argparse reads the
    word as an option."""
    import argparse
    import contextlib
    import io

    from benchlint.engine_flags import _one_dash_reading

    word = "-" + "".join(parts)
    if len(word) < 3 or word[1] == "=":
        return
    parser = argparse.ArgumentParser(exit_on_error=False)
    for name in options:
        parser.add_argument(name, dest=name.lstrip("-"))
    said = io.StringIO()
    parsed = None
    try:
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
            parsed, rest = parser.parse_known_args([word, "1"])
        error = f"unrecognized arguments: {word}" if word in rest else None
    except argparse.ArgumentError as exc:
        error = str(exc)
    except SystemExit:
        error = said.getvalue().strip().splitlines()[-1] if said.getvalue() else "help"
    reading = _one_dash_reading(word, options)
    if reading is None:
        assert error is None, (sorted(options), word, error)
    elif reading[0] == "rejected":
        assert error is not None, (sorted(options), word)
        assert reading[1].strip("`").split(" could match")[0] in error, (word, reading, error)
    elif reading[0] == "help":
        assert error is not None, (sorted(options), word)
    else:
        assert error is None and parsed is not None, (sorted(options), word, error)
        assert getattr(parsed, reading[1].lstrip("-")) == word[2:], (word, vars(parsed))


# pieces of the word of `${X:-...}` and of the text after it: braces bash pairs and does not
# pair, quoted and escaped ones, nested expansions and command substitutions
_BRACE_PIECES = st.sampled_from(
    [
        *("{", "}", "a", "b:1", "\\}", "\\{", "'}'", "'{'", '"}"', '"{a}"', '\\"', "$Y"),
        *("$(echo })", "`echo }`", "${Y:-}}", "${Y:-{}", "${Y:-x}", "$((1))"),
    ]
)
_BRACE_CONTEXTS = {
    "dquote": ("printf '<%s>' \"", '"\n'),
    "unquoted": ("printf '<%s>' ", "\n"),
    "heredoc": ("cat <<EOF\n", "\nEOF\n"),
}


@needs_bash
@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.sampled_from(sorted(_BRACE_CONTEXTS)),
    st.lists(_BRACE_PIECES, max_size=6).map("".join),
    st.lists(_BRACE_PIECES, max_size=3).map("".join),
)
@example("dquote", '{\\"a\\": 1', "}")
@example("unquoted", "{a", "}")
@example("heredoc", "{a: 1", "}")
@example("dquote", "'{a}'", "")
def test_where_an_expansion_ends_agrees_with_bash(context: str, word: str, rest: str) -> None:
    """`braces.expansions` ends `${X:-WORD}REST` where bash does: with X set, bash prints the
    same as for the text with the expansion, up to that end, replaced by X's value."""
    from hypothesis import assume

    from benchlint.shell.braces import expansions

    before, after = _BRACE_CONTEXTS[context]
    program = f"{before}${{X:-{word}}}{rest}{after}"
    done = _bash_run(f"X=@@\n{program}")
    assume(done.returncode == 0 and not done.stderr)
    start = len(before)
    found = [e for e in expansions(program) if e.start == start]
    assert len(found) == 1, program
    assert found[0].context == context
    replaced = program[:start] + "@@" + program[found[0].end :]
    assert _bash_run(f"X=unused\n{replaced}").stdout == done.stdout, (program, replaced)


# BL108's findings: the operator, the word the author meant and whether the expansion is in
# double quotes
_BRACE_FINDINGS = [
    (":-", '{\\"a\\": 1}', True),
    (":-", "{a:1}", False),
    (":=", "{a: {b: 1}}", True),
    (":+", '{\\"x\\": 1}', True),
    ("-", "{a}b", True),
    (":-", '{\\"name\\":\\"$Y\\"}', True),
    (":?", "{a}", True),
]


@needs_bash
@pytest.mark.parametrize(("operator", "word", "quoted"), _BRACE_FINDINGS)
def test_what_bl108_says_and_its_fix_agree_with_bash(
    operator: str, word: str, quoted: bool, tmp_path: Path
) -> None:
    """What BL108's message says a run gives, and its fix: the fixed expansion gives the word
    the author meant where it gives a word (X unset; set, with `:+`) and X's value where X is
    set (no stray text)."""
    from benchlint.fixes import apply, plan
    from tests.conftest import run_lint, write_repo

    q = '"' if quoted else ""
    line = f"printf '%s\\n' {q}${{X{operator}{word}}}{q} \"$X\""
    root = write_repo(tmp_path / "repo", {"x.sh": line + "\n"})
    result = run_lint(root, select="BL108")
    (finding,) = result.findings
    rest = finding.message.split("and `", 1)[1].split("` is text after it", 1)[0]
    unset = _bash_run(f"unset X; Y=y\n{line}").stdout.split("\n")
    set_ = _bash_run(f"X=v; Y=y\n{line}").stdout.split("\n")
    if operator.endswith("+"):
        assert unset[0] == rest and "should give nothing" in finding.message
    else:
        assert set_[0] == f"v{rest}", set_
    if operator.endswith("="):
        assigned = finding.message.split("is assigned `", 1)[1].split("`", 1)[0]
        assert unset[1] == assigned
    meant = _bash_run(f"Y=y\nprintf '%s\\n' {q}{word}{q}").stdout.split("\n")[0]
    chosen = plan(result.findings, set(), unsafe=False)
    source = result.source("x.sh")
    assert source is not None and chosen.fixed
    fixed = apply(source, chosen.edits["x.sh"])
    fixed_unset = _bash_run(f"unset X; Y=y\n{fixed}").stdout.split("\n")[0]
    fixed_set = _bash_run(f"X=v; Y=y\n{fixed}").stdout.split("\n")[0]
    if operator.endswith("+"):
        assert (fixed_unset, fixed_set) == ("", meant)
    elif operator.endswith("?"):
        assert fixed_set == "v"
    else:
        assert (fixed_unset, fixed_set) == (meant, "v")


# -- BL111: what pkill -f matches, and which shells it kills ------------------------------------
PKILL = shutil.which("pkill")
PGREP = shutil.which("pgrep")
needs_procps = pytest.mark.skipif(
    PKILL is None or PGREP is None or BASH is None, reason="procps or bash is not installed"
)
# command strings run by `bash -c`, TOKEN the pattern: whether the model reports the pkill,
# and whether bash is known to kill the string's shell where the model reports nothing
_PKILL_STRINGS = [
    "echo a; pkill -f TOKEN; echo after",
    "pkill -f TOKEN || true; echo after",
    "pkill -f TOKEN || true",
    "for i in 1; do pkill -f TOKEN; done; echo after",
    "f() { pkill -f TOKEN; }; f; echo after",
    "(pkill -f TOKEN); echo after",
    "echo a; pkill -f TOKEN 2>/dev/null",
    "echo a; pkill -9 -f 'TOKEN' 2>/dev/null; echo after",
    "echo a; pkill -f '[T]OKEN'; echo after",
    "echo a; pkill -f TOKEN",
    "pkill -f TOKEN",
    "echo a; pkill -f -x TOKEN; echo after",
    "echo a; pkill TOKEN; echo after",
    "trap 'echo trapped' TERM; pkill -f TOKEN; echo after",
]
# where bash kills and the model, reading bash 5.1's exec of a last simple command, says nothing
_PKILL_KILLS_UNREPORTED = {"pkill -f TOKEN 2>/dev/null"}


@needs_procps
@pytest.mark.parametrize("string", _PKILL_STRINGS)
def test_what_bl111_reports_kills_the_shell_in_bash(string: str, tmp_path: Path) -> None:
    """A `bash -c` string whose pkill BL111 reports is killed by it when bash runs it."""
    from tests.conftest import positions, run_lint, write_repo

    token = f"zqbl{os.getpid()}x{abs(hash(string)) % 100000}"
    text = string.replace("[T]OKEN", f"[{token[0]}]{token[1:]}").replace("TOKEN", token)
    root = write_repo(tmp_path / "repo", {"runners/launch_x.sh": f"bash -c '{text}'\n"})
    reported = bool(positions(run_lint(root, select="BL111"), "BL111"))
    done = subprocess.run(
        [BASH or "bash", "-c", text.replace("'", "'")],
        capture_output=True,
        text=True,
        timeout=20,
    )
    killed = done.returncode in (-9, -15, 128 + 9, 128 + 15) and "after" not in done.stdout
    if reported:
        assert killed, (string, done.returncode, done.stdout)
    else:
        assert not killed or string in _PKILL_KILLS_UNREPORTED, (string, done.returncode)


@needs_procps
def test_a_script_whose_name_the_pattern_matches_is_killed(tmp_path: Path) -> None:
    """BL111's reading of a script's own command line: bash runs a file as `bash PATH`, and
    `pkill -f` with a pattern its name holds kills it, on its last line too."""
    from tests.conftest import positions, run_lint, write_repo

    name = f"serve_zqbl{os.getpid()}.sh"
    text = f"echo a\npkill -f zqbl{os.getpid()}\n"
    root = write_repo(tmp_path / "repo", {f"benchmarks/{name}": text})
    assert positions(run_lint(root, select="BL111"), "BL111") == [f"benchmarks/{name}:2:10"]
    done = subprocess.run(
        [BASH or "bash", str(root / "benchmarks" / name)], capture_output=True, timeout=20
    )
    assert done.returncode in (-15, 128 + 15)


# patterns as a script may give pkill -f, matched against a process's command line
_ERE_PATTERNS = [
    "sglang",
    "[s]glang",
    "vllm serve",
    "vllm.serve",
    "dynamo\\.frontend",
    "sglang|vllm",
    "(sg|v)l+(ang|m)",
    "^serve",
    "serve$",
    "30$",
    "[[:digit:]]{2}",
    "[^a-z ]x",
    "a{2,}",
    "x?y*z+",
    "[]a]b",
    "[a-]c",
    "\\(x\\)",
    "a|",
    "(",
    "*a",
    "a(*b)",
    "a|*b",
    "+a",
    "a{1",
    "a{,2}",
    "x\\",
    "()",
    "server --port 8",
    "launch_server",
    "Serve",
]
_CMDLINE_TEXTS = [
    "python3 -m sglang.launch_server --port 8000",
    "vllm serve /models/x",
    "vllmXserve",
    "serve_dynamo.frontend",
    "aab]b-c",
    "(x)yz",
    "*a [1]x",
    "Server",
]


@needs_procps
def test_pkill_patterns_match_as_pgrep_matches_them() -> None:
    """The ERE translation BL111 matches with agrees with procps (pgrep -f, which pkill
    shares): each text is a running process's command line (`exec -a TEXT sleep 60` gives
    `TEXT 60`), and a pattern pgrep rejects is one the translation rejects too or matches
    nothing of."""
    from benchlint.rewrite import search
    from checks.bl111_pkill_matches_self import pkill_pattern

    marker = f"zqbl{os.getpid()}"
    processes = [
        subprocess.Popen(
            [BASH or "bash", "-c", 'exec -a "$0" sleep 60', f"{text} {marker}"],
            stdout=subprocess.DEVNULL,
        )
        for text in _CMDLINE_TEXTS
    ]
    try:
        import time

        time.sleep(0.3)  # each `exec -a` has replaced its bash
        for pattern in _ERE_PATTERNS:
            done = subprocess.run(
                [PGREP or "pgrep", "-f", pattern], capture_output=True, text=True, timeout=10
            )
            listed = {int(p) for p in done.stdout.split()}
            compiled = pkill_pattern(pattern)
            if compiled is None:
                assert done.returncode == 2, pattern  # pgrep rejects it too
                continue
            for process, text in zip(processes, _CMDLINE_TEXTS, strict=True):
                expected = process.pid in listed
                assert search(compiled, f"{text} {marker} 60") == expected, (pattern, text)
    finally:
        for process in processes:
            process.kill()
            process.wait()


# how pgrep and pkill read their words (`benchlint.shell.procps`), T the pattern: which word is
# the pattern, `-f`, `-x`, `-i`, the options that take a value; pkill's signal (`-0`, sent to
# nothing, tells whether it matched), wherever it is
_PROCPS_WORDS = [
    ("pgrep", ["-f", "T"]),
    ("pgrep", ["T"]),
    ("pgrep", ["-c", "-f", "T"]),
    ("pgrep", ["-fc", "T"]),
    ("pgrep", ["-fx", "T"]),
    ("pgrep", ["-fi", "t"]),
    ("pgrep", ["-f", "t"]),
    ("pgrep", ["-d", ",", "-f", "T"]),
    ("pgrep", ["-d,", "-f", "T"]),
    ("pgrep", ["-O", "0", "-f", "T"]),
    ("pgrep", ["-r", "S", "-f", "T"]),
    ("pgrep", ["-fr", "S", "T"]),
    ("pgrep", ["--older=0", "--full", "T"]),
    ("pgrep", ["--runstates", "S", "-f", "T"]),
    ("pgrep", ["-f", "--", "T"]),
    ("pgrep", ["-nf", "T"]),
    ("pgrep", ["-A", "-f", "T"]),
    ("pkill", ["-0", "-f", "T"]),
    ("pkill", ["-f", "-0", "T"]),
    ("pkill", ["-c", "-0", "-f", "T"]),
    ("pkill", ["-0", "-fx", "T"]),
    ("pkill", ["-0", "T"]),
    ("pkill", ["--signal", "0", "-f", "T"]),
    ("pkill", ["--signal=0", "-fi", "t"]),
    ("pkill", ["-q", "1", "-0", "-f", "T"]),
    ("pkill", ["-0", "-O", "0", "-f", "T"]),
    ("pkill", ["-e", "-0", "-f", "T"]),
    # (GNU getopt reads the options after the pattern too: h131 F1)
    ("pgrep", ["T", "-f"]),
    ("pgrep", ["-f", "T", "-x"]),
    ("pkill", ["T", "-0", "-f"]),
    ("pkill", ["-0", "T", "-fi"]),
]


@needs_procps
@pytest.mark.parametrize(("program", "words"), _PROCPS_WORDS)
def test_pkill_and_pgrep_read_their_words_as_procps_does(program: str, words: list[str]) -> None:
    """Which processes `read_kill` says the words match (the pattern, against the command line
    with `-f`, else the name; whole with `-x`; any case with `-i`), and pkill's signal, agree
    with procps on a process whose command line holds the pattern and whose name does not."""
    import time

    from benchlint.shell.procps import read_kill

    token = f"zqbl{os.getpid()}procps"
    process = subprocess.Popen(
        [BASH or "bash", "-c", 'exec -a "$0" sleep 60', token], stdout=subprocess.DEVNULL
    )
    try:
        time.sleep(0.3)  # (the `exec -a` has replaced its bash: `TOKEN 60`, named `sleep`)
        argv = [{"T": token, "t": token.upper()}.get(w, w) for w in words]
        done = subprocess.run(
            [PGREP if program == "pgrep" else PKILL, *argv],  # type: ignore[list-item]
            capture_output=True,
            text=True,
            timeout=10,
        )
        read = read_kill(program, argv)
        assert read.pattern is not None and not read.unknown, words
        text = f"{token} 60" if read.full else "sleep"
        match = re.fullmatch if read.whole else re.search
        expected = match(argv[read.pattern], text, re.I if read.ignore_case else 0) is not None
        if program == "pgrep":
            counted = "-c" in words or "-fc" in words  # (a count, not the PIDs)
            listed = done.stdout.split()
            found = listed != ["0"] if counted else str(process.pid) in listed
        else:
            assert read.signal == "0", words
            found = done.returncode == 0
        assert found == expected, (words, done.returncode, done.stdout, done.stderr)
        # (a second pattern: procps refuses the line, status 2, and `read_kill` says unknown)
        twice = subprocess.run(
            [PGREP if program == "pgrep" else PKILL, *argv, "other"],  # type: ignore[list-item]
            capture_output=True,
            text=True,
            timeout=10,
        )
        assert twice.returncode == 2 and read_kill(program, [*argv, "other"]).unknown
        assert process.poll() is None  # (signal 0: it is still running)
    finally:
        process.kill()
        process.wait()


# -- BL115: srun, sbatch and salloc options, against Slurm's own commands -----------------------
SRUN = shutil.which("srun")
needs_slurm = pytest.mark.skipif(
    SRUN is None, reason="slurm-client is not installed (.ci/run installs it where apt can)"
)


def _slurm_release(conf: Path) -> str:
    """The installed Slurm's major release (`slurm 22.05.8`: 22.05)."""
    env = {**os.environ, "SLURM_CONF": str(conf)}
    out = subprocess.run(
        [SRUN or "srun", "--version"], capture_output=True, text=True, env=env
    ).stdout
    match = re.search(r"(\d+)\.(\d+)\.", out)
    assert match, out
    return f"{match.group(1)}.{match.group(2)}"


def _plain_table(command: str, release: str) -> slurm.Table:
    """The command's options in a release, without pyxis's (no plugin is installed here)."""
    return slurm.tables(command, plugins=False)[slurm.releases().index(release)]


# what the command prints for each kind of problem (glibc's getopt_long and sbatch's directives)
_SLURM_SAYS = {
    "unrecognized option": "unknown",
    "invalid option": "unknown",
    "is ambiguous": "ambiguous",
    "doesn't allow an argument": "no-value",
    "requires an argument": "missing-value",
    "Invalid directive": "operand",
}


def _slurm_verdict(argv: list[str], script: str | None = None, cwd: Path | None = None) -> str:
    """The kind of option problem the command reports first, "" for none (it exits at once
    with `--usage` last, or stops at something else: a value it rejects, a job it cannot run)."""
    env = {**os.environ, "SLURM_CONF": str(cwd / "slurm.conf") if cwd else ""}
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=5, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return ""
    return next((kind for said, kind in _SLURM_SAYS.items() if said in done.stderr), "")


def _probes(command: str, table: slurm.Table, rng: random.Random) -> list[str]:
    """Words to try: options in full, cut short (one option's prefix or several's), misspelt,
    with too many dashes, with a value after `=`, short ones alone and in clusters."""
    names = sorted(table.long)
    found: list[str] = []
    for _ in range(40):
        name = rng.choice(names)
        shape = rng.randrange(7)
        if shape == 0:
            word = "--" + name[: rng.randrange(1, len(name) + 1)]
        elif shape == 1:
            at = rng.randrange(len(name))
            word = "--" + name[:at] + name[at + 1 :]  # a letter left out
        elif shape == 2:
            word = "-" * rng.choice((3, 4)) + name
        elif shape == 3:
            word = "--" + name + "=1"
        elif shape == 4:
            word = "--" + name + rng.choice(("-x", "s", "out"))
        elif shape == 5:
            word = "-" + "".join(rng.choice("NnltuvQzyZjq") for _ in range(rng.randrange(1, 3)))
        else:
            word = "--" + name
        found.append(word)
    return found


@needs_slurm
@pytest.mark.parametrize("command", ["srun", "sbatch", "salloc"])
def test_slurm_option_reading_agrees_with_slurm(command: str, tmp_path: Path) -> None:
    """Each probe word between known options, then `--usage` (the command exits at it once the
    options before it are read): the first problem the model finds is the kind the command
    reports, for the installed release's options."""
    (tmp_path / "slurm.conf").write_text("ClusterName=x\nSlurmctldHost=localhost\n")
    table = _plain_table(command, _slurm_release(tmp_path / "slurm.conf"))
    rng = random.Random(f"BL115 {command}")
    disagree = []
    for probe in _probes(command, table, rng):
        words = ["--job-name=t", probe]
        problems, end = slurm.read(table, [*words, "--usage"])
        if end is not None and end < len(words) + 1 and not problems:
            words.append("1")  # (the probe takes the next word as its value)
        problems, end = slurm.read(table, [*words, "--usage"])
        model = problems[0].kind if problems else ""
        real = _slurm_verdict([command, *words, "--usage"], cwd=tmp_path)
        if model != real:
            disagree.append((words, model, real))
    assert not disagree


@needs_slurm
def test_sbatch_directives_agree_with_sbatch(tmp_path: Path) -> None:
    """`#SBATCH` lines as sbatch reads them: comments, quotes, an indented line, lines after
    the first command, a word that is no option."""
    (tmp_path / "slurm.conf").write_text("ClusterName=x\nSlurmctldHost=localhost\n")
    table = _plain_table("sbatch", _slurm_release(tmp_path / "slurm.conf"))
    scripts = [
        "#!/bin/bash\n#SBATCH --job-name=x # c\n#SBATCH --timeout=3\n",
        "#!/bin/bash\n#SBATCH --job-name=x #SBATCH --timeout=3\n",
        "#!/bin/bash\n#SBATCH --comment='a --timeout=3'\n",
        "#!/bin/bash\n  #SBATCH --timeout=3\n",
        "#!/bin/bash\necho hi\n#SBATCH --timeout=3\n",
        "#!/bin/bash\n# note\n\n#SBATCH -J x\n#SBATCH time=1\n",
        "#!/bin/bash\n#SBATCH --ntasks-per 2\n",
        "#!/bin/bash\n#SBATCH --comment=a\\#b --tim=1\n",
        "#!/bin/bash\n#SLURM --timeout=3\n",
        "#!/bin/bash\n#SBATCH --job-name=x\n#SBATCH hetjob\n#SBATCH --timeout=3\n",
        "#!/bin/bash\n#SBATCH --job-name=x\n#SBATCH hetjob --timeout=3\n",
        "#!/bin/bash\n#SBATCH -N 1 time=1\n#SBATCH hetjob\n#SBATCH -N 1\n",
    ]
    for text in scripts:
        *components, last = slurm.directives(text)
        problems = [
            problem
            for words in [*components, [*last, ("--usage", 0, 0)]]
            for problem in slurm.read(table, [w for w, _, _ in words], directives=True)[0]
        ]
        model = problems[0].kind if problems else ""
        # an `#SBATCH --usage` line where sbatch stops reading them (it exits there once the
        # lines before it are read)
        lines = text.split("\n")
        stop = next(
            (
                i
                for i, line in enumerate(lines)
                if i > 0 and line.strip() and not line.lstrip().startswith("#")
            ),
            len(lines) - 1,
        )
        lines.insert(stop, "#SBATCH --usage")
        path = tmp_path / "job.sh"
        path.write_text("\n".join(lines))
        assert model == _slurm_verdict(["sbatch", str(path)], cwd=tmp_path), text


@pytest.mark.parametrize(
    "value",
    [
        "--nodelist=$(get_nodes --ntasks 2) --ntasks=2",
        "--a=${NODES// --b/} -c `echo E` d",
        "python3 x.py --k $(get_nodes a  b) --m ${X:-E}",
        "  one   two\tthree  ",
    ],
)
def test_the_pieces_of_a_value_are_the_words_bash_splits_it_into(value: str) -> None:
    """`Word.pieces`: the words an unquoted expansion of the value (assigned in double quotes)
    splits into, as bash does where each expansion inside it gives a word with no blank (here
    `E`): blanks inside an expansion's text split nothing."""
    script = parse_file(SourceText("t.sh", f'V="{value}"\n'.encode()))
    word = script.assignments[0].value
    assert word is not None
    program = (
        'get_nodes() { echo E; }; NODES=E; unset X; V="' + value + '"; '
        'for w in $V; do printf "%s\\n" "$w"; done'
    )
    expected = subprocess.run(
        ["bash", "-c", program], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    expansion = re.compile(r"\$\([^()]*\)|\$\{[^{}]*\}|`[^`]*`")
    assert [expansion.sub("E", piece) for piece, _ in word.pieces()] == expected


@needs_bash
@pytest.mark.parametrize("delimiter", ["<<X", "<<-X", "<<'X'", "<<-'X'", '<<-"X"'])
@pytest.mark.parametrize(
    "body",
    [
        "\tkey: 1\n\t  sub: a\n",
        "\tabc\\\n\tdef\n\t\tghi \\$Y\n",
        "\\\tlead\n \ttab after a blank\n\t\n\t\t\n",
        "#SBATCH -N 1\n\t#SBATCH --time=5\n",
        "a\\\\\n\tb\\\n\\\n\tc\n",
        "\\$HOME/a\nb\n",
        "\\$HOME\n",
        "  two blanks\n",
        # (lines that start with the delimiter, which tree-sitter-bash took for its end: h33)
        "X_MARKER is logged when the run ends\nflock -w 600 9\n",
        "cat <<XINNER\necho hi\nXINNER\nvllm serve m \\\n  --port 8000\n",
        "Xa\n\tXb\nQ\nXQ\n",
        "\tX \nX\t1\n",
    ],
)
def test_what_a_heredoc_feeds_agrees_with_bash(delimiter: str, body: str) -> None:
    """The text a heredoc gives its command (`<<-` strips each line's leading tabs, after an
    unquoted body's continuations joined lines), and each character's offset in the file."""
    end = "\tX" if delimiter.startswith("<<-") else "X"
    text = f"cat {delimiter}\n{body}{end}\n"
    (command,) = parse_file(SourceText("t.sh", text.encode())).commands
    (heredoc,) = command.heredocs
    assert heredoc.body is not None
    value, offsets = heredoc.value(heredoc.body, command.script)
    real = subprocess.run([BASH or "bash", "-c", text], capture_output=True, text=True).stdout
    assert value == real
    assert [text[o] for o in offsets] == [ch for ch in value]


@needs_bash
@pytest.mark.parametrize(
    "read",
    ["read -r -d '' X", "read -rd '' X", "read -d '' -r X", "read -r X", "read -d '' X Y"],
)
@pytest.mark.parametrize("delimiter", ["<<EOF", "<<'EOF'", "<<-EOF"])
def test_a_variable_read_from_a_heredoc_holds_what_bash_reads(read: str, delimiter: str) -> None:
    """`read_before`: where the model says the heredoc's whole text is the variable's, the words
    bash splits `$X` into are the text's blank-separated words; where bash reads less (one line)
    or into two names, the model says nothing."""
    body = "m.cli \\\n\t--a 1 --b x\n--c\n"
    text = f"{read} {delimiter}\n{body}EOF\nprintf '%s\\n' $X\n"
    script = parse_file(SourceText("t.sh", text.encode()))
    printf = next(c for c in script.commands if c.base == "printf")
    found = read_before(printf, "X")
    real = subprocess.run([BASH or "bash", "-c", text], capture_output=True, text=True).stdout
    if found is None:
        whole = " ".join(body.replace("\\\n", "").split())
        assert " ".join(real.split()) != whole  # (bash reads less: the model must not say all)
        return
    heredoc, at = found
    assert heredoc.body is not None
    assert heredoc.value(heredoc.body, at)[0].split() == real.split()


# words whose expansions give nothing, with X unset (and their near misses)
_EMPTY_WORDS = [
    '"$X"',
    '""$X',
    "$X''",
    '"${X%%:*}"',
    '--file="$X"',
    "$X",
    "${X}",
    "${X%%:*}",
    "$X$X",
    '${X:-""}',
    '${X:+"a"}',
    '$(echo "")',
    "`echo ''`",
    "$(printf '')\"\"",
    '\\"$X',
]


@pytest.mark.parametrize("word", _EMPTY_WORDS)
def test_whether_an_empty_word_stays_an_argument_agrees_with_bash(word: str) -> None:
    """`keeps_empty`: True where bash keeps the word as one empty argument, False where it drops
    it; None is allowed only where a quote is inside an expansion (and is then not checked)."""
    ran = _bash_run(f'unset X; set -- {word}; printf "%s:%s" "$#" "${{1-}}"')
    count, _, first = ran.stdout.partition(":")
    said = keeps_empty(word)
    if count == "1" and first:
        return  # (not empty: `keeps_empty` is asked only of words that expand to nothing)
    if said is None:
        assert "$(" in word or "${" in word or "`" in word, word
        return
    assert said == (count == "1"), (word, ran.stdout)


@needs_slurm
@pytest.mark.parametrize(
    ("directive", "stops"),
    [("--nodes=$NUM_NODES", True), ("--time=$HOURS", True), ("--job-name=$NAME", False)],
)
def test_a_directive_holding_a_variable_is_read_even_with_the_option_given(
    tmp_path: Path, directive: str, stops: bool
) -> None:
    """BL115's help for `#SBATCH --nodes=$N`: the line must go, not only the option be given on
    the command line (sbatch reads the directive first and stops at a number or a time it
    cannot read, whatever its command line says; a name it takes as written)."""
    (tmp_path / "slurm.conf").write_text("ClusterName=x\nSlurmctldHost=localhost\n")
    option = directive.split("=")[0]
    (tmp_path / "job.sh").write_text(f"#!/bin/bash\n#SBATCH {directive}\necho hi\n")
    env = {**os.environ, "SLURM_CONF": str(tmp_path / "slurm.conf")}
    done = subprocess.run(
        [shutil.which("sbatch") or "sbatch", f"{option}=2", "job.sh"],
        capture_output=True,
        text=True,
        timeout=10,
        env=env,
        cwd=tmp_path,
    )
    said = done.stderr
    assert ("is not a valid" in said or "Invalid --time" in said) == stops, said
    assert ("controller" in said) == (not stops), said


@needs_slurm
@pytest.mark.parametrize("command", ["srun", "sbatch"])
@pytest.mark.parametrize("letter", sorted(slurm.EQUALS_STOPS | {"J"}))
def test_a_short_option_written_with_equals_stops_the_command_as_bl115_says(
    tmp_path: Path, command: str, letter: str
) -> None:
    """`slurm.EQUALS_STOPS`: the short options whose value written after `=` (`-N=2`: `=2`) the
    command rejects itself, before it asks the controller for anything; a name (`-J=x`) it
    takes as written and goes on to the controller."""
    (tmp_path / "slurm.conf").write_text("ClusterName=x\nSlurmctldHost=localhost\n")
    (tmp_path / "job.sh").write_text("#!/bin/bash\necho hi\n")
    env = {**os.environ, "SLURM_CONF": str(tmp_path / "slurm.conf")}
    value = "block" if letter == "m" else "2"
    argv = [shutil.which(command) or command, f"-{letter}={value}"]
    argv += ["job.sh"] if command == "sbatch" else ["true"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=10, env=env, cwd=tmp_path)
    reached = "controller" in done.stderr
    assert reached == (letter not in slurm.EQUALS_STOPS), done.stderr


@needs_bash
@pytest.mark.parametrize(
    "text",
    [
        'f=abcdef; i=2; echo "${f:$i:2}" ${f: $i} ${f:$i}',
        "a=(x y z w); n=1; echo ${a[@]:$n:2} ${a[*]:$n}",
        "printf '%s|' one `# a comment` two \\\n  three `#c`\necho",
        "f=abc; d=zz; i=1; echo ${g:-$d} ${f:$i} ${g:=$d} ${f:+$d}",
        'set -- a b\nfor f do echo "$f"; done\nf() { for x  do echo "[$x]"; done; }; f c d',
    ],
)
def test_forms_tree_sitter_cannot_parse_are_read_as_bash_runs_them(text: str) -> None:
    """A comment in backticks, a variable as a substring's offset and a `for` loop with no list
    and no `;` (`for f do`) are read another way, the same length (`model._unparsed_forms`):
    that reading parses whole, and bash prints the same for it as for the text as written (a
    default's `$` is left as it is)."""
    from benchlint.shell.model import _unparsed_forms, parse_tree

    assert parse_tree(text.encode()).root_node.has_error
    read = _unparsed_forms(text.encode())
    assert read != text.encode() and len(read) == len(text.encode())
    assert not parse_tree(read).root_node.has_error
    assert BASH is not None

    def run(script: str) -> str:
        return subprocess.run([BASH, "-c", script], capture_output=True, text=True).stdout

    assert run(read.decode()) == run(text)
    assert "${g:-$d}" in read.decode() or "${g:-" not in text


def test_a_comment_in_backticks_inside_double_quotes_is_not_read_as_blanks() -> None:
    """Inside double quotes bash puts the empty text in its place (`"a  b"`), not blanks: such
    a text is left as written (and stays parsed only in part)."""
    from benchlint.shell.model import _unparsed_forms

    text = b'echo "a `# in quotes` b"\n'
    assert _unparsed_forms(text) == text


@needs_bash
@pytest.mark.parametrize(
    ("text", "values"),
    [
        ('ARCHS="${ARCHS:-gfx942;gfx950}"\n: next\n', {"ARCHS": None}),
        ('L="${L:-Et*10|t*12|t*9mL}"\n: next\n', {"L": None}),
        ('M="${M:+$M; }missing"\n: next\n', {"M": "x"}),
        # (a brace in a default: the model does not decide its value, unknown, not wrong)
        ('K="${K:-{\\"thinking\\": true}}"\n: next\n', {"K": None, "?": None}),
        ('s=ab[c]d; B="${s#*[}"; B="${B%%]*}"\n: next\n', {}),
        ('s=ab[c]d; S="${s#*]}"\n: next\n', {}),
        ('a=7; for (( n=10#$a; n<=10#$a; n++ )); do :; done; N="${X:-a&b}"\n', {"X": None}),
        # (bash ends an expansion at its first `}`, a `{` before it nesting nothing; t77a)
        ("s='node{1}'; B=${s#*{}\n: next\n", {}),
    ],
)
def test_operands_tree_sitter_cannot_parse_are_read_as_bash_reads_them(
    text: str, values: dict[str, str | None]
) -> None:
    """A parameter expansion's operand that holds a byte tree-sitter-bash cannot read there
    (`;`, `|`, `&`, a bracket, a nested brace; and `10#$a`) is given to tree-sitter-bash another
    way (`model._operand_reading`): the script parses whole, and the value the model reads of
    the last assignment, from the text as written, is the one bash gives it."""
    from benchlint.shell.expand import value
    from benchlint.shell.model import parse_tree

    assert parse_tree(text.encode()).root_node.has_error
    script = parse_file(SourceText("t.sh", text.encode()))
    assert not script.has_error and script.parse_src is not None
    assert script.src == text.encode()
    last = script.assignments[-1]
    assert last.value is not None
    known = {**values, **{a.name: None for a in script.assignments if a is not last}}
    known.pop("?", None)
    for assignment in script.assignments[:-1]:  # (the earlier ones, in order)
        assert assignment.value is not None
        known[assignment.name] = value(assignment.value.text, lambda n: _given(known, n))
    read = value(last.value.text, lambda n: _given(known, n))
    assert BASH is not None
    undecided = values.pop("?", "") is None
    preamble = "".join(f"unset {n}; " if v is None else f"{n}={v!r}; " for n, v in values.items())
    done = subprocess.run(
        [BASH, "-c", f'{preamble}{text}\nprintf "%s" "${last.name}"'],
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert done.returncode == 0, done.stderr
    assert read == (None if undecided else done.stdout)


def _given(known: dict[str, str | None], name: str) -> str | None:
    from benchlint.shell.expand import UNSET

    if name not in known:
        return None
    held = known[name]
    return UNSET if held is None else held


@needs_bash
@pytest.mark.parametrize(
    ("word", "decided"),
    [
        ('"${K#{a}}"', True),
        ("${K#{a}}", True),
        ("${X:-'a}b'}", True),
        ('"${X:-${K}z}"', True),
        ('"${X:-{}}"', True),
        ('"${X:-"a}b"}"', False),  # (quotes inside quotes: not decided, not misread)
    ],
)
def test_an_expansion_ends_at_its_first_brace_as_bash_ends_it(word: str, decided: bool) -> None:
    """(t77a) bash ends `${...}` at its first `}` outside quotes and nested expansions: a `{`
    before it nests nothing (`${K#{a}}` is `${K#{a}` and a `}`). The model's value is bash's,
    or not decided."""
    from benchlint.shell.expand import UNSET, value

    values = {"K": "{a}}x", "X": UNSET}
    read = value(word, lambda n: values.get(n))
    done = _bash_run(f"K='{{a}}}}x'; unset X; printf '%s' {word}")
    assert read == (done.stdout if decided else None)


def test_an_operand_with_a_quote_or_a_dollar_brace_in_single_quotes_is_not_read_another_way() -> (
    None
):
    """(t77a) A `${` inside single quotes is text: read another way up to a `}` in a later
    quoted string, it would swallow the commands between (the server here); an operand with a
    quote in it is left as written (what bash makes of it depends on the quoting around it)."""
    text = (
        b'ARCHS="${ARCHS:-gfx942;gfx950}"\n'
        b"echo 'usage: set ${MODEL' ; vllm serve m --port 8000 & echo '} first'\n"
        b"X=\"${X:-'a;b'}\"\n"
    )
    script = parse_file(SourceText("t.sh", text))
    assert script.parse_src is not None and not script.has_error
    assert [c.base for c in script.commands if c.base] == ["echo", "vllm", "echo"]
    read = script.parse_src.split(b"\n")
    assert read[1] == text.split(b"\n")[1] and read[2] == text.split(b"\n")[2]


def test_an_operand_read_another_way_is_kept_in_the_cache_with_the_script() -> None:
    """The reading tree-sitter-bash was given is part of the script's facts: a script the
    cache gives back parses its statements again (`syntax`) from the same reading."""
    from benchlint.shell.summary import decode_script, encode_script

    source = SourceText("t.sh", b'A="${A:-x;y}"\nif [ -n "$A" ]; then echo "$A"; fi\n')
    script = parse_file(source)
    assert script.parse_src is not None
    again = decode_script(source, encode_script(script))
    assert again.parse_src == script.parse_src and again.src == source.data
    guard = again.commands[-1].guards[0]
    assert not again.syntax(guard.node).has_error


@needs_bash
@pytest.mark.parametrize(
    ("word", "kept"),
    [
        ("\"${A:-'a'}\"", True),
        ("\"${A-'a'}\"", True),
        ("\"${B:='a'}\"", True),
        ("\"${C='a'}\"", True),
        ("\"${S:+'a'}\"", True),
        ("\"${S+'a'}\"", True),
        ("${A:-'a'}", False),  # (unquoted: bash removes them)
        ("\"${S#'x'}\"", False),  # (a pattern: quotes work there)
        ("\"${R[0]:-'a'}\"", True),  # (an array's element; t80a)
        ("\"${@:-'a'}\"", True),  # (no positional parameters)
        ("\"${*-'a'}\"", True),
        ("\"${A:-${B:-'a'}}\"", True),  # (the whole default of one that is quoted)
        ("\"${A:-x${B:-'a'}}\"", True),  # (kept, but in a longer text: a message, not reported)
        ("${A:-${B:-'a'}}", False),
    ],
)
def test_single_quotes_in_a_double_quoted_default_are_kept_as_bl117_says(
    word: str, kept: bool, tmp_path: Path
) -> None:
    """BL117's claim, from bash: inside double quotes, the word of `-`, `=` and `+` forms keeps
    its single quotes; unquoted, or in a pattern, they are quotes. The rule reports exactly the
    forms bash keeps them in."""
    from tests.conftest import positions, run_lint, write_repo

    done = _bash_run(f"unset A B C; S=xa; printf '%s' {word}")
    assert ("'" in done.stdout) == kept
    root = write_repo(tmp_path / "r", {"run.sh": f'#!/bin/bash\nV={word}\nvllm serve "$V"\n'})
    # (the innermost expansion whose word is the single-quoted text)
    column = 3 + word.rindex("${") if kept and "x$" not in word else None
    expected = [f"run.sh:2:{column}"] if column is not None else []
    assert positions(run_lint(root, select="BL117"), "BL117") == expected


@pytest.mark.parametrize(
    ("word", "kept"),
    [
        ('"${A:-~/a}"', True),
        ('"${A-~/a}"', True),
        ('"${A:=~/a}"', True),
        ('"${S:+~/a}"', True),
        ('"${A:-~}"', True),
        ('"${A:-${B:-~/a}}"', True),
        ("${A:-~/a}", False),  # (unquoted: bash expands it)
        ('"${A:-$HOME/a}"', False),
        ('"${A:-a/~}"', False),  # (not first: not the home folder in any form)
    ],
)
def test_a_tilde_in_a_double_quoted_default_is_kept_as_bl117_says(
    word: str, kept: bool, tmp_path: Path
) -> None:
    """BL117's claim, from bash: inside double quotes, the `~` that starts the word of a `-`,
    `=` or `+` form is not expanded; unquoted, it is the home folder. The rule reports the
    forms bash keeps it in, where the value names a folder `mkdir` makes."""
    from tests.conftest import positions, run_lint, write_repo

    done = _bash_run(f"unset A B; S=xa; HOME=/home/u; printf '%s' {word}")
    assert done.stdout.startswith("~") == kept, done.stdout
    root = write_repo(tmp_path / "r", {"run.sh": f"#!/bin/bash\nmkdir -p {word}\n"})
    expected = [f"run.sh:2:{11 + word.rindex('${') - 1}"] if kept else []
    assert positions(run_lint(root, select="BL117"), "BL117") == expected


# `${...}` forms: those bash rejects as "bad substitution" (what BL119 reports) and near ones
# it accepts, each in a word of its own, unquoted and in double quotes
_SUBSTITUTIONS = [
    "${}",
    "${ X}",
    "${X}",
    "${X)}",
    "${X):/w}",
    "${X.y}",
    "${X y}",
    "${1}",
    "${1a}",
    "${10}",
    "${@}",
    "${*}",
    "${#}",
    "${?}",
    "${-}",
    "${$}",
    "${!}",
    "${0}",
    "${_}",
    "${X[0]}",
    "${X[0]x}",
    "${X[@]}",
    "${X:-a}",
    "${X-a}",
    "${X=a}",
    "${X:=a}",
    "${X?}",
    "${X:?a}",
    "${X+a}",
    "${X:+a}",
    "${X#a}",
    "${X##a}",
    "${X%a}",
    "${X%%a}",
    "${X/a/b}",
    "${X//a}",
    "${X^}",
    "${X^^}",
    "${X,}",
    "${X,,}",
    "${X@Q}",
    "${X:1}",
    "${X:1:2}",
    "${X;}",
    "${X*}",
    "${X&}",
    "${X|}",
    "${X<}",
    "${X!}",
    "${X$}",
    '${X"a"}',
    "${(X)}",
    "${.X}",
    "${-X}",
    "${1-a}",
    "${@x}",
    "${*x}",
    "${_x}",
    "${X]}",
    "${X'a'}",
    "${X`echo`}",
    "${X~}",
    "${X~~}",
    "${X.}",
    "${0a}",
    "${??}",
    "${$$}",
    "${-:-a}",
    "${?a}",
    "${X:}",
    "${X:a}",
    "${X$Y}",
    "${X$(echo)}",
    "${#X}",
    "${!X}",
    "${!X*}",
    "${#X[@]}",
    "${X:-${Y.z}}",
    "${X:-${Y}}",
    "${MODEL_DIR):/models $IMAGE; { :; }",
    "${X[${Y}]}",
    "${X[${Y[0]}]:-a}",
    "${X[${Y[0]}]x}",
]


@needs_bash
@pytest.mark.parametrize("quoted", [False, True])
def test_what_bl119_reports_bash_rejects_as_a_bad_substitution(quoted: bool) -> None:
    """BL119 reports a `${...}` exactly where bash, running the script (X set, positional
    parameters given), says "bad substitution" for it (with X set, `${X:-${Y.z}}` never expands
    its default: bash accepts it, and BL119, which leaves what another's word holds, agrees);
    `${X@}`, which bash rejects too, is a form BL119 does not tell (left out here)."""
    from benchlint.shell.braces import bad_substitution, every_brace

    for form in _SUBSTITUTIONS:
        word = f'"{form}"' if quoted and "{ :; }" not in form else form
        program = f"X=abc; Y=b; set -- a b\n: {word}\n"
        assert _bash_run(f"bash -n /dev/stdin <<'END'\n{program}END").returncode == 0, form
        done = _bash_run(program)
        rejected = "bad substitution" in done.stderr
        top, ours = -1, False
        for start, end, _ in every_brace(program):
            if start >= top:
                top, ours = end, ours or bad_substitution(program[start + 2 : end - 1])
        assert ours == rejected, (form, quoted, done.stderr)


@needs_bash
@pytest.mark.parametrize(
    ("program", "printed"),
    [
        # (the rest of the top-level statement is skipped: its line, the `if`, the loop, the
        # function the line called; the next statement runs)
        ('echo "${b c}" || echo handled; echo d\necho e\n', "e\n"),
        ('if true; then\n  echo "${b c}"\n  echo d\nfi\necho e\n', "e\n"),
        ('f() {\n  echo "${b c}"\n  echo d\n}\nf\necho e\n', "e\n"),
        # (in a `$(...)`: only that shell's statement; the command around it runs)
        ('echo "x $(echo "${b c}"; echo d) y"\necho e\n', "x  y\ne\n"),
    ],
)
def test_what_bl119_says_bash_does_at_a_bad_substitution(
    program: str, printed: str, tmp_path: Path
) -> None:
    """What BL119's messages say bash does there, from bash running the script as a file."""
    path = tmp_path / "t.sh"
    path.write_text(program)
    done = subprocess.run(
        [BASH or "bash", str(path)], capture_output=True, text=True, timeout=10, env={}
    )
    assert done.stdout == printed
    assert "bad substitution" in done.stderr


@pytest.mark.skipif(shutil.which("env") is None, reason="env is not installed")
def test_what_env_runs_is_the_program_env_runs(tmp_path: Path) -> None:
    """`env WORDS... PROGRAM`: the words the model reads as env's assignments are those env
    sets (any that holds `=`, whatever its name), so the program it names is the one env runs
    (`env "$AFFINITY=$GPU" vllm serve` runs vllm; t86 h7)."""
    program = tmp_path / "ran"
    program.write_text("#!/bin/sh\necho ran\n")
    program.chmod(0o755)
    for word in ["A=1", "b-c=2", "=x", "a=", "1a=b", "x", "x.y"]:
        done = subprocess.run(
            ["env", word, str(program)], capture_output=True, text=True, timeout=10, check=False
        )
        script = parse_file(SourceText("s.sh", f"env '{word}' {program}\n".encode()))
        runs = script.commands[0].invocation.name
        assert (runs == str(program)) == (done.stdout == "ran\n"), word


@needs_bash
@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "(\n    cd /tmp\n    vllm serve m > s.log 2>&1\n) &",
            "( cd /tmp; vllm serve m > s.log 2>&1 ) &",
        ),
        ("if true; then\n  a\nelse\n  b\nfi", "if true; then a; else b; fi"),
        ("if x\nthen\n  y\nfi", "if x; then y; fi"),
        ("cd /w && \\\n  vllm serve x &", "cd /w && vllm serve x &"),
        ('for i in 1 2; do\n  # each\n  x "$i"\n  y\ndone &', 'for i in 1 2; do x "$i"; y; done &'),
        ("{\n  a |\n  b\n  c &&\n  d\n} &", "{ a | b; c && d; } &"),
        ("case $x in\n  a) b ;;\n  *) c\n  ;;\nesac", "case $x in a) b ;; *) c ;; esac"),
        (
            'while read -r l\ndo\n  echo "$l"\ndone < f &',
            'while read -r l; do echo "$l"; done < f &',
        ),
    ],
)
def test_a_statement_quoted_on_one_line_is_the_statement_bash_reads(text: str, shown: str) -> None:
    """`one_line` (how BL103 quotes a statement sent to the background) gives text bash reads
    as the same statement: both pass `bash -n`, and the line breaks are the `;` they stand for
    (t87 h11: `( cd /tmp vllm serve ...` read as one command)."""
    from benchlint.shell.model import one_line

    assert one_line(text) == shown
    for program in (text, shown):
        checked = subprocess.run(
            [BASH or "bash", "-n", "-c", program], capture_output=True, text=True
        )
        assert checked.returncode == 0, (program, checked.stderr)


def _state_at_end(folder: Path, text: str) -> Any:
    """`Environment.state_before` the end of a script of this text (t.sh in the folder)."""
    from benchlint.config import Config
    from benchlint.context import wiring_of
    from benchlint.environment import Environment
    from benchlint.workspace import Workspace

    (folder / "t.sh").write_text(text)
    ws = Workspace(folder, Config())
    script = ws.shell("t.sh")
    assert script is not None
    return Environment(ws, wiring_of(ws)).state_before(script, len(script.file.data))


_PREFIXED = [
    "x1=1 true",
    "x1=1 :",
    "x1=1 export >/dev/null",
    "x1=1 export x2=2",
    "x1=1 export x1",
    "x1=1 readonly x1",
    "x1=1 declare -x x1",
    "export x1=0\nx1=1 unset x1",
    "f() { x1=9; }\nx1=1 f",
    "f() { x2=9; }\nx1=1 f",
    'x1=1 export x2="a b"',
    "f() { :; }\nx1=1 f",
    "x1=1 eval 'x2=2'",
    "x1=1 true\nexport x2=2",
    "x1=1\nx2=2 true",
    "export x1=1\nx1=2 true",
]


@needs_bash
@pytest.mark.parametrize("program", _PREFIXED)
def test_what_the_script_has_set_after_a_prefixed_command_agrees_with_bash(
    program: str, tmp_path: Path
) -> None:
    """`Environment.state_before` after a command with assignments before its name (`x1=1
    true`): those are the command's alone, bash keeps none of them after it (in its own mode,
    not POSIX's, where a special builtin's stay), whatever the command: a builtin, a special
    one, a function, `export`, `eval` (after which the model says it does not know: what it
    claims is then a part of what bash has)."""
    state = _state_at_end(tmp_path, f"{program}\n")
    probe = "".join(f'[ -n "${{{v}+x}}" ] && echo {v}\n' for v in ("x1", "x2"))
    probe += "bash -c 'for v in x1 x2; do [ -n \"${!v+x}\" ] && echo exported-$v; done'\n"
    done = _bash_run(f"{program}\n{probe}")
    modelled = sorted(state.assigned) + [f"exported-{n}" for n in sorted(state.exported)]
    if state.unknown is not None:
        assert set(modelled) <= set(done.stdout.split()), (program, done.stderr)
    else:
        assert modelled == done.stdout.split(), (program, done.stderr)


# (h29) a library (lib.sh: `x1=lib`, its function `f` that sets x2, `g` that exports x3)
# sourced in a function's body, and functions the script defines again around the `source`
_LIBRARY = "x1=lib\nf() { x2=lib; }\ng() { export x3=lib; }\n"
_SOURCED = [
    "load() { source ./lib.sh; }\nload",
    "load() { . ./lib.sh; }\nload\ng",
    "load() { source ./lib.sh; }",
    "source ./lib.sh\nf() { :; }\nf",
    "f() { x3=own; }\nsource ./lib.sh\nf",
    "source ./lib.sh\ng() { x2=own; }\ng",
    "load() { source ./lib.sh; }\nload\nf() { :; }\nf",
    "load() { ( source ./lib.sh ); }\nload",
]
# (h29 S1) what a shell of its own sets: a subshell, a pipeline's element, a substitution, the
# background, a function whose body is a subshell; lastpipe runs the last element here
_APART = [
    "echo 1 | read x1",
    "shopt -s lastpipe\necho 1 | read x1",
    "( x1=1 )",
    "( export x1=1 )\nx2=2",
    "x2=$(x1=1; echo a)",
    "f() ( x1=1 )\nf",
    "printf 'a\\n' | while read -r x1; do x2=$x1; done",
    "( source ./lib.sh )",
    "{ x1=1; } &\nwait",
    "x1=1 && ( export x2=2 )",
    # (S2) a name a function makes local first is its own, also where a function it calls
    # assigns it (bash's dynamic scope)
    "f() { local x1; x1=1; export x2=2; }\nf",
    "g() { x1=1; }\nf() { local x1; g; }\nf",
    "f() { x1=0; local x1=1; }\nf",
    "f() { declare x1=1; x2=2; }\nf",
    "f() { if false; then local x1; fi; x1=1; }\nf",
    "f() { local x1=1; declare -g x1=2; }\nf",
    "g() { declare -g x1=2; }\nf() { local x1=1; g; }\nf",
    # (h31) a shell of its own whose function reads nothing it sets keeps it to itself
    'log() { echo "$@" >/dev/null; }\n( x1=1; log a )',
    'log() { echo "$@" >/dev/null; }\n{ x2=2; log b; } | cat',
    # (F6) a sourced file that leaves `set -a` on (env.sh) exports what is assigned after it
    "source ./env.sh\nx1=1",
    "source ./env.sh\nset +a\nx1=1\nx2=2",
    "f() { x1=1; }\nsource ./env.sh\nf",
    "x1=1\n. ./env.sh\nx2=2 true\nx3=3",
    # (S8) `declare +x` takes the export away, as `export -n` does
    "export x1=1 x2=2\ndeclare +x x1\ntypeset +x x2=3",
    # (F3) a declaration's assignment in quotes is one
    'export "x1=1"',
    "readonly 'x2=a b'\ndeclare \"x3=c\"",
    # (F3) a `source` or a declaration behind `command`, `builtin` or `time`: in this shell
    "builtin source ./lib.sh\ng",
    "command . ./lib.sh\nf",
    "time source ./lib.sh 2>/dev/null",
    "command export x2=1\nbuiltin declare x3=2",
]


@needs_bash
@pytest.mark.parametrize("program", [*_SOURCED, *_APART])
def test_what_a_file_sourced_in_a_function_or_a_function_defined_again_sets_agrees_with_bash(
    program: str, tmp_path: Path
) -> None:
    """(h29 F1, F2) a `source` in a function's body sets what the file sets where the function
    is called; a function the script defines after a `source` of a library that defines it
    too is the script's from there on (and the library's where it is defined before it).
    (S1) what a shell of its own assigns, exports or sources is not the script's; (S2) nor a
    function's locals; (F6) `set -a` left on by a sourced file exports what follows; (S8)
    `declare +x` un-exports; (F3) a quoted assignment of a declaration assigns."""
    (tmp_path / "lib.sh").write_text(_LIBRARY)
    (tmp_path / "env.sh").write_text("set -a\n")
    state = _state_at_end(tmp_path, f"{program}\n")
    names = ("x1", "x2", "x3")
    probe = "".join(f'[ -n "${{{v}+x}}" ] && echo {v}\n' for v in names)
    probe += "bash -c 'for v in x1 x2 x3; do [ -n \"${!v+x}\" ] && echo exported-$v; done'\n"
    done = _bash_run(f"{program}\n{probe}", cwd=tmp_path)
    modelled = sorted(n for n in state.assigned if n in names)
    modelled += [f"exported-{n}" for n in sorted(state.exported) if n in names]
    assert state.unknown is None, program
    assert modelled == done.stdout.split(), (program, done.stderr)


# (h30) a function called in a shell of its own (`main "$@" | tee log`, `f &`): what its body
# sets is taken as the script's (the body, elsewhere in the text, reads what that shell set): a
# superset of what bash has
_APART_CALLS = [
    "f() { x1=1; }\nf &\nwait",
    "f() { export x1=1; }\nf | cat",
    "f() { x2=2; }\n( x1=1; f )",
]


@needs_bash
@pytest.mark.parametrize("program", _APART_CALLS)
def test_a_function_called_in_a_shell_of_its_own_sets_at_most_more_than_bash(
    program: str, tmp_path: Path
) -> None:
    state = _state_at_end(tmp_path, f"{program}\n")
    names = ("x1", "x2")
    probe = "".join(f'[ -n "${{{v}+x}}" ] && echo {v}\n' for v in names)
    done = _bash_run(f"{program}\n{probe}")
    assert state.unknown is None, program
    assert set(done.stdout.split()) <= set(state.assigned), (program, done.stderr)


_CONTINUED = [
    "x1='{'\\\n'\"a\": 1,'\\\n'\"b\": 2'\\\n'}'",
    "x1=a\\\nb",
    "x1=\\\nfoo",
    "x2=1 x1='a'\\\n'b'",
    "export x1='a'\\\n\"b\"",
    "export x1='a'\\\n'b' x2=c",
    "x1='a' \\\ntrue",
    "x1=a\\\n\\\nb",
    "x1=a\\\nb x2=c",
    "x1=a\\\nb x2=c true",
    'x1=a\\\nb "x2"=c',
]


@needs_bash
@pytest.mark.parametrize("program", _CONTINUED)
def test_a_value_past_a_line_continuation_agrees_with_bash(program: str) -> None:
    """An assignment whose value goes on past a `\\` at the end of a line, with no blank around
    it (`F='{'\\<newline>'"a": 1}'`, which tree-sitter-bash parses as an assignment before a
    command): bash removes the continuation, and the value is the pieces joined; a blank before
    the `\\` ends the value there (`x1='a' \\<newline>true` runs `true` with x1 set for it)."""
    script = parse_file(SourceText("t.sh", f"{program}\n".encode()))
    values = {
        a.name: a.value.value
        for a in script.assignments
        if a.kind != "prefix" and a.value is not None and a.value.static
    }
    probe = "".join(f'[ -n "${{{v}+x}}" ] && printf "%s=%s\\n" {v} "${v}"\n' for v in ("x1", "x2"))
    done = _bash_run(f"{program}\n{probe}")
    assert [f"{n}={v}" for n, v in sorted(values.items())] == done.stdout.splitlines(), program


DASH = shutil.which("dash")


@pytest.mark.skipif(DASH is None, reason="dash is not installed")
@pytest.mark.parametrize(
    "program", ["x1=1 :", "x1=1 true", "x1=1 export x2=2", "f() { :; }\nx1=1 f"]
)
def test_what_a_sh_script_has_set_after_a_prefixed_command_agrees_with_dash(
    program: str, tmp_path: Path
) -> None:
    """In a `#!/bin/sh` script (dash), the assignments before a special builtin stay the
    shell's (POSIX), those before any other command do not."""
    state = _state_at_end(tmp_path, f"#!/bin/sh\n{program}\n")
    probe = "".join(f'[ -n "${{{v}+x}}" ] && echo {v}\n' for v in ("x1", "x2"))
    done = subprocess.run(
        [DASH or "dash", "-c", f"{program}\n{probe}"],
        env={"PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert sorted(state.assigned) == done.stdout.split(), (program, done.stderr)


@needs_bash
@pytest.mark.parametrize(
    "word",
    [
        "'{\"x\": 1}'",
        "'a\\\"b'",
        "'a\\\\b'",
        "'a\\}b'",
        "'a\\qb'",
        "'a\"b c\"d'",
        "'a\\$b'",
        "'a\\`b'",
        "'plain words'",
        "'~/x'",
    ],
)
def test_a_single_quoted_default_in_double_quotes_gives_what_bash_gives(word: str) -> None:
    """BL117's value of `"${X:-'...'}"`: the single quotes kept, the double quotes removed, a
    backslash removed before what double quotes give a meaning to (h32)."""
    from checks.bl117_quoted_default_kept import dquoted_value

    program = f"unset X; printf '%s' \"${{X:-{word}}}\""
    real = subprocess.run([BASH or "bash", "-c", program], capture_output=True, text=True)
    assert dquoted_value(word) == real.stdout


@needs_bash
@pytest.mark.parametrize("delimiter", ["'EOF'", "EOF"])
@pytest.mark.parametrize(
    "body", ["echo a b\necho c\n", "echo x\n\n\n", "  echo lead\n\techo tab\n"]
)
def test_a_string_held_from_a_cat_heredoc_is_what_bash_holds(delimiter: str, body: str) -> None:
    """`CMD=$(cat <<EOF ... EOF)`, then `bash -c "$CMD"`: the nested script's text is the
    variable's value in bash (the heredoc's text, its last newlines removed: h33 N2)."""
    text = f'CMD=$(cat <<{delimiter}\n{body}EOF\n)\nbash -c "$CMD"\n'
    script = parse_file(SourceText("t.sh", text.encode()))
    (nested,) = script.nested
    program = text.replace('bash -c "$CMD"', "printf '%s' \"$CMD\"")
    real = subprocess.run([BASH or "bash", "-c", program], capture_output=True, text=True)
    assert nested.text == real.stdout


@pytest.mark.parametrize(
    "program", ['command eval "$SETUP"', 'builtin eval "$SETUP"', "time eval x1=1 2>/dev/null"]
)
def test_an_eval_behind_command_builtin_or_time_may_set_anything(
    program: str, tmp_path: Path
) -> None:
    """(h29 F3) `command eval "$(cat port.env)"` runs its string in this shell, as `eval`
    does: what it sets is not known."""
    assert _state_at_end(tmp_path, f"{program}\n").unknown == "eval"
    assert _state_at_end(tmp_path, "command echo x1=1\n").unknown is None


# (h34) heredocs tree-sitter-bash ends at a line that only starts with the delimiter, and the
# lines bash ends them at: in a `$( )` one that closes it, with a CRLF line's `\r`, after a
# backslash joins two lines; several in one file
_EARLY_HEREDOCS = [
    "x=$(cat <<EOF\nEOF_y\necho m1\nEOF)\necho m2\n",
    "x=$(cat <<EOF\nhello\nEOF_y)\necho m1\n",
    "cat >/dev/null <<EOF\nEOF)\necho m1\nEOF\necho m2\n",
    "cat >/dev/null <<EOF\nEOF_x \\\nEOF\necho m1\nEOF\necho m2\n",
    "cat >/dev/null <<EOF\r\nEOF_x\r\necho m1\r\nEOF\r\necho m2\r\n",
    "cat >/dev/null <<END-OF\nEND-OF-FILE\necho m1\nEND-OF\necho m2\n",
    "".join(f"cat >/dev/null <<EOF\nEOF_{i}\necho m1\nEOF\n" for i in range(12)) + "echo m2\n",
]


@needs_bash
@pytest.mark.parametrize("program", _EARLY_HEREDOCS)
def test_the_commands_after_a_heredoc_are_those_bash_runs(program: str) -> None:
    """The model's `echo m1`, `echo m2` outside every heredoc are those bash runs."""
    script = parse_file(SourceText("t.sh", program.encode()))
    modelled = sorted(
        {c.args[0].value.rstrip("\r") for c in script.commands if c.base == "echo" and c.args}
    )
    done = _bash_run(program)
    assert modelled == sorted(set(done.stdout.replace("\r", "").split())), done.stderr


# functions that check the variables their arguments name (`validates_arguments`), and near
# misses: a call `need x1 x2` validates a name where bash surely ends the script there when it
# is empty (the names given; bash must end the script for each, x1 or x2 empty, the other set;
# a near miss may end it too, where the model cannot tell)
# (one that fails instead of exiting: h39 N2)
_FAILS = 'need() { for v in "$@"; do [ -z "${!v}" ] && return 1; done; }'
_ARGUMENT_VALIDATORS = [
    ('need() { for v in "$@"; do [ -z "${!v}" ] && exit 1; done; }', "x1 x2"),
    ('need() { for v; do [[ -n ${!v:-} ]] || { echo "$v unset" >&2; exit 1; }; done; }', "x1 x2"),
    ('need() { for v in $@; do if [ -z "${!v}" ]; then exit 1; fi; done; }', "x1 x2"),
    (
        'die() { echo "$*" >&2; exit 1; }\n'
        'need() { for v in "$@"; do [ -n "${!v}" ] || die "$v"; done; }',
        "x1 x2",
    ),
    (
        'need() {\n local m=()\n for v in "$@"; do\n  [ -n "${!v:-}" ] || m+=("$v")\n done\n'
        ' [ "${#m[@]}" -eq 0 ] || { echo "missing: ${m[*]}"; exit 1; }\n}',
        "x1 x2",
    ),
    (
        'need() {\n local m=()\n for v in "$@"; do\n  if [[ -z "${!v:-}" ]]; then m+=("$v"); fi\n'
        " done\n if [[ ${#m[@]} -gt 0 ]]; then exit 1; fi\n}",
        "x1 x2",
    ),
    (
        'need() {\n m=()\n for v in "$@"; do [ -z "${!v}" ] && m+=("$v"); done\n'
        " (( ${#m[@]} )) && exit 1\n}",
        "x1 x2",
    ),
    (
        'need() {\n bad=0\n for v; do [ -z "${!v}" ] && bad=1; done\n [ "$bad" = 1 ] && exit 1\n}',
        "x1 x2",
    ),
    (
        'need() {\n bad=""\n for v; do [ -z "${!v}" ] && bad="$bad $v"; done\n'
        ' [ -n "$bad" ] && exit 1\n}',
        "x1 x2",
    ),
    # near misses: a return, a loop over other words (a name written out is the loop's own),
    # a flag tested for another value, a list emptied after the loop, a `continue` or a
    # `break`, a `shift`, only a warning, a return before the check, a test of an empty list
    (_FAILS, ""),
    ('need() { for v in x1; do [ -z "${!v}" ] && exit 1; done; }', "x1"),
    ('need() { for v in "$*"; do [ -z "${!v}" ] && exit 1; done; }', ""),
    (
        'need() {\n bad=0\n for v; do [ -z "${!v}" ] && bad=1; done\n [ "$bad" = 2 ] && exit 1\n}',
        "",
    ),
    (
        'need() {\n m=()\n for v in "$@"; do [ -z "${!v}" ] && m+=("$v"); done\n m=()\n'
        " (( ${#m[@]} )) && exit 1\n}",
        "",
    ),
    (
        'need() { for v in "$@"; do [[ $v == x1 ]] && continue; [ -z "${!v}" ] && exit 1; done; }',
        "",
    ),
    ('need() { for v in "$@"; do [ -z "${!v}" ] && exit 1; break; done; }', ""),
    ('need() { shift; for v in "$@"; do [ -z "${!v}" ] && exit 1; done; }', ""),
    ('need() { for v in "$@"; do [ -z "${!v}" ] && echo "$v unset" >&2; done; }', ""),
    (
        "need() {\n [[ -n $LAX ]] && return 0\n"
        ' for v in "$@"; do [ -z "${!v}" ] && exit 1; done\n}',
        "",
    ),
    (
        'need() {\n m=()\n for v in "$@"; do [ -z "${!v}" ] && m+=("$v"); done\n'
        " (( ${#m[@]} == 0 )) && exit 1\n}",
        "",
    ),
    # h39: a message before the exit (taken); a default in the test (`${!v:-x}` is never
    # empty), the list unset or reset by a function after the loop, a flag holding the value
    # itself or a name tested for another, an array of values, the loop variable or the
    # arguments changed, a `local` of a name passed, a prefix on the call (not taken)
    (
        'need() { for v in "$@"; do [[ -z "${!v}" ]] && echo "$v unset" >&2 && exit 1; done; }',
        "x1 x2",
    ),
    ('need() { for v in "$@"; do [ -z "${!v:-x}" ] && exit 1; done; }', ""),
    ('need() { for v in "$@"; do [[ -n ${!v:-x} ]] || exit 1; done; }', ""),
    (
        'need() {\n m=()\n for v in "$@"; do [ -n "${!v}" ] || m+=("$v"); done\n unset m\n'
        " [[ ${#m[@]} -gt 0 ]] && exit 1\n}",
        "",
    ),
    (
        'reset() { m=(); }\nneed() {\n m=()\n for v in "$@"; do [ -n "${!v}" ] || m+=("$v"); done\n'
        " reset\n [[ ${#m[@]} -gt 0 ]] && exit 1\n}",
        "",
    ),
    (
        'need() {\n bad=""\n for v; do [ -z "${!v}" ] && bad="${!v}"; done\n'
        ' [ -n "$bad" ] && exit 1\n}',
        "",
    ),
    (
        'need() {\n bad=""\n for v; do [ -z "${!v}" ] && bad="$v"; done\n'
        ' [ "$bad" != x1 ] && exit 1\n}',
        "",
    ),
    (
        'need() {\n m=()\n for v in "$@"; do [ -z "${!v}" ] && m+=("${!v}"); done\n'
        ' [ -n "${m[*]}" ] && exit 1\n}',
        "",
    ),
    ('need() { for v in "$@"; do v="Y_$v"; [ -z "${!v}" ] && exit 1; done; }', ""),
    ('need() { set -- PATH; for v in "$@"; do [ -z "${!v}" ] && exit 1; done; }', ""),
    ('need() { local x1=a; for v in "$@"; do [ -z "${!v}" ] && exit 1; done; }', "x2"),
    ('need() { for v in "$@"; do [ -z "${!v}" ] && exit 1; done; }', "x2", "x1=a need x1 x2"),
    ('need() { for x1 in "$@"; do [ -z "${!x1}" ] && exit 1; done; }', "x2"),
    ('need() { for v in; do [ -z "${!v}" ] && exit 1; done; }', ""),
    ('need() {\n for v\n do\n  [ -z "${!v}" ] && exit 1\n done\n}', "x1 x2"),
    # (h43 N2: a comment or a continued line in the loop's head)
    ('need() {\n for v in "$@" # each name\n do\n  [ -z "${!v}" ] && exit 1\n done\n}', "x1 x2"),
    ('need() {\n for v in \\\n   "$@"; do [ -z "${!v}" ] && exit 1; done\n}', "x1 x2"),
    # (h44 F3, F4: a `do` in a comment, a `#` glued to the word, which is no comment)
    ('need() {\n for v # do\n in PATH; do [ -z "${!v}" ] && exit 1; done\n}', ""),
    ('need() { for v in "$@"#; do [ -z "${!v}" ] && exit 1; done; }', ""),
    # (a validator that fails instead, to a call whose failure ends the script: h39 N2)
    (_FAILS, "x1 x2", "need x1 x2 || exit 1"),
    (
        'need() { for v in "$@"; do [ -z "${!v}" ] && return 3; done; }',
        "x1 x2",
        "if ! need x1 x2; then exit 1; fi",
    ),
    (
        'need() {\n m=()\n for v in "$@"; do [ -n "${!v}" ] || m+=("$v"); done\n'
        " [ ${#m[@]} -gt 0 ] && return 1\n return 0\n}",
        "x1 x2",
        "need x1 x2 || { echo missing >&2; exit 1; }",
    ),
    (
        'need() {\n [[ -n $LAX ]] && return 1\n for v; do [ -z "${!v}" ] && return 1; done\n}',
        "x1 x2",
        "need x1 x2 || exit 1",
    ),
    ('need() { for v in "$@"; do [ -z "${!v}" ] && return; done; }', "", "need x1 x2 || exit 1"),
    ('need() { for v in "$@"; do [ -z "${!v}" ] && return 0; done; }', "", "need x1 x2 || exit 1"),
    (_FAILS, "", "need x1 x2 && exit 1"),
    (_FAILS, "", "need x1 x2 || true"),
    (_FAILS, "", "! need x1 x2 || exit 1"),
    (_FAILS, "", "need x1 x2 | cat || exit 1"),
    (_FAILS, "", "x1=a need x1 x2 || exit 1"),
    (_FAILS, "", "need $N || exit 1"),
    (
        'need() {\n [[ -n $LAX ]] && return 0\n for v; do [ -z "${!v}" ] && return 1; done\n}',
        "",
        "need x1 x2 || exit 1",
    ),
    (
        'need() { for v in "$@"; do ( [ -z "${!v}" ] && return 1 ); done; }',
        "",
        "need x1 x2 || exit 1",
    ),
    # (h49 F3) a function that checks the variable its first argument names, alone: through a
    # name given `$1` once (`local name="$1"`), or `${!1}`; exits or fails; not the second
    # argument, nor where the name is given another value, a `return` may come first, the name
    # is given `$1` under a condition, or the test is of another name
    (
        'need() {\n local name="$1"\n if [[ -z "${!name:-}" ]]; then\n'
        '  echo "$name is required" >&2\n  exit 1\n fi\n}',
        "x1",
    ),
    ('need() { [ -n "${!1}" ] || exit 1; }', "x1"),
    ('need() { local n=$1; [ -z "${!n}" ] && { echo "missing $n" >&2; exit 1; }; }', "x1"),
    ('need() { local n; n="${1}"; [[ -z ${!n} ]] && exit 1; }', "x1"),
    (
        'need() { local n="$1"; [[ -z "${!n:-}" ]] && return 1; return 0; }',
        "x1",
        "need x1 || exit 1",
    ),
    (
        'need() { [ -n "${!1:-}" ] || { echo "missing $1" >&2; return 1; }; }',
        "x1",
        "need x1 x2 || exit 1",
    ),
    ('need() { [ -n "${!1:-}" ] || return 1; }', "x2", "need x2 x1 || exit 1"),
    ('need() { local n="$2"; [ -z "${!n}" ] && exit 1; }', ""),
    ('need() { local n="$1"; n="Y_$n"; [ -z "${!n}" ] && exit 1; }', ""),
    ('need() { local n="$1"; [[ -n $LAX ]] && return 0; [ -z "${!n}" ] && exit 1; }', ""),
    ('need() { [[ -n $LAX ]] && local n="$1"; [ -z "${!n}" ] && exit 1; }', ""),
    ('need() { local n="$1" m="$2"; [ -z "${!m}" ] && exit 1; }', ""),
    ('need() { local n="$1"; [ -z "${!n:-x}" ] && exit 1; }', ""),
    ('need() { local n="$1"; [ -z "${!n}" ] && echo "missing $n" >&2; }', ""),
    ('need() { local n="$1"; [ -z "${!n}" ] && return; }', "", "need x1 || exit 1"),
    ('need() { local n="$1"; eval "n=$2"; [ -z "${!n}" ] && exit 1; }', ""),
    # (h53 S1-S3) a nameref (`${!name}` is then the name itself), a number, a call of a function
    # or a `source` between the name and its test (either may give it another value); `-r` keeps
    ('need() { local -n n="$1"; [[ -z "${!n:-}" ]] && exit 1; return 0; }', ""),
    ('need() { local -i n=$1; [[ -z "${!n:-}" ]] && exit 1; return 0; }', ""),
    ('need() { local -r n=$1; [[ -z "${!n:-}" ]] && exit 1; return 0; }', "x1"),
    ('fix() { n=PATH; }\nneed() { local n=$1; fix; [[ -z "${!n:-}" ]] && exit 1; return 0; }', ""),
    ('need() { local n=$1; source /dev/null; [[ -z "${!n:-}" ]] && exit 1; return 0; }', ""),
    ('need() { local n=$1; echo "checking $n"; [[ -z "${!n:-}" ]] && exit 1; return 0; }', "x1"),
    ('log() { n=PATH; }\nneed() { local n=$1; [[ -z "${!n:-}" ]] && { log; exit 1; }; }', "x1"),
    # (h54) a function between that leaves the name alone, a call in a shell of its own, the
    # options that keep the name (`-g`, `-x`, `-a`, `-r --`), any call before `${!1}` (a function
    # has its own `$1`); near misses: an arithmetic or `printf -v` assignment, a builtin's name
    # the script defines as a function, a name reference, `source` before `${!1}`
    (
        'log() { echo "$*" >&2; }\n'
        'need() { local n=$1; log "checking $n"; [[ -z "${!n:-}" ]] && exit 1; return 0; }',
        "x1",
    ),
    ('fix() { n=PATH; }\nneed() { local n=$1; x=$(fix); [[ -z "${!n:-}" ]] && exit 1; }', "x1"),
    ('fix() { n=PATH; }\nneed() { local n=$1; ( fix ); [[ -z "${!n:-}" ]] && exit 1; }', "x1"),
    # (not `-g`: a caller's local of the same name hides the global from `${!n}`: h55 S4)
    ('need() { declare -g n=$1; [[ -z "${!n:-}" ]] && exit 1; return 0; }', ""),
    ('need() { local -x n=$1; [[ -z "${!n:-}" ]] && exit 1; return 0; }', "x1"),
    ('need() { local -r -- n=$1; [[ -z "${!n:-}" ]] && exit 1; return 0; }', "x1"),
    ('need() { local -a n=$1; [[ -z "${!n:-}" ]] && exit 1; return 0; }', "x1"),
    ('fix() { set -- PATH; }\nneed() { fix; [[ -n "${!1:-}" ]] || exit 1; }', "x1"),
    ('need() { local n=$1; : $((n=0)); [[ -z "${!n:-}" ]] && exit 1; return 0; }', ""),
    ('true() { n=PATH; }\nneed() { local n=$1; true; [[ -z "${!n:-}" ]] && exit 1; }', ""),
    ('need() { local n=$1; printf -vn "%s" PATH; [[ -z "${!n:-}" ]] && exit 1; }', ""),
    ('need() { local n=$1; local -n r=n; r=PATH; [[ -z "${!n:-}" ]] && exit 1; }', ""),
    ('need() { source /dev/null; [[ -n "${!1:-}" ]] || exit 1; }', ""),
    # (h55) arithmetic in a test, a subscript, `$[`, in the body or a function it calls; an
    # integer or a reference declared anywhere (quoted too); `shift` behind `builtin`; near
    # misses: a log function that returns early or shifts its own arguments, `test -v name`
    ('need() { local n=$1; [[ n=0 -eq 0 ]]; [[ -z "${!n:-}" ]] && exit 1; return 0; }', ""),
    ('f() { [[ n=0 -eq 0 ]]; }\nneed() { local n=$1; f; [[ -z "${!n:-}" ]] && exit 1; }', ""),
    ('need() { local n=$1; local -a a=(1); : "${a[n=0]}"; [[ -z "${!n:-}" ]] && exit 1; }', ""),
    ('f() { : $[n=0]; }\nneed() { local n=$1; f; [[ -z "${!n:-}" ]] && exit 1; }', ""),
    ('need() { local n=$1; local "-i" y=1; y=n=0; [[ -z "${!n:-}" ]] && exit 1; }', ""),
    ('need() { local "-i" n=$1; [[ -z "${!n:-}" ]] && exit 1; return 0; }', ""),
    (
        'f() { local -n r=$1; r=PATH; }\nneed() { local n=$1; f n; [[ -z "${!n:-}" ]] && exit 1; }',
        "",
    ),
    ('need() { builtin shift; [[ -n "${!1:-}" ]] || exit 1; }', "", "need x1 PATH"),
    (
        'log() { [[ -n "${QUIET:-}" ]] && return 0; local l=$1; shift; echo "[$l] $*" >&2; }\n'
        'need() { local n=$1; log info "checking $n"; [[ -z "${!n:-}" ]] && exit 1; return 0; }',
        "x1",
    ),
    ('need() { local n=$1; test -v n; [[ -z "${!n:-}" ]] && exit 1; return 0; }', "x1"),
    # (h56 F3, F4) brackets in a comment or a message, `[ "$#" -eq 1 ]`, a log function that
    # reads `${FUNCNAME[1]}`, an integer counter, `command -v` before `${!1}`; near miss: an
    # integer holder (`local -i n; n=$1` holds the name's number)
    (
        'log() { echo "${FUNCNAME[1]}: $*" >&2; }\n'
        "need() {\n # usage: need VAR[=default]\n local n=$1 ; local -i tries=0\n"
        ' [ "$#" -eq 1 ] || echo "ERROR[need]: one name" >&2\n log "checking $n"\n'
        ' [[ -z "${!n:-}" ]] && exit 1\n return 0\n}',
        "x1",
    ),
    ('need() { command -v cat >/dev/null; [[ -n "${!1:-}" ]] || exit 1; }', "x1"),
    ('need() { local -i n; n=$1; [[ -z "${!n:-}" ]] && exit 1; return 0; }', ""),
]


@needs_bash
@pytest.mark.parametrize("case", _ARGUMENT_VALIDATORS)
def test_a_function_that_checks_the_variables_its_arguments_name(
    case: tuple[str, ...], tmp_path: Path
) -> None:
    definition, names, call = (*case, "need x1 x2")[:3]
    text = f"{definition}\n{call}\n"
    validated = _state_at_end(tmp_path, text).validated
    assert validated & {"x1", "x2"} == set(names.split())
    for name, other in (("x1", "x2"), ("x2", "x1")):
        ran = subprocess.run(
            [BASH or "bash", "-c", f"{text}echo survived"],
            capture_output=True,
            text=True,
            env={"PATH": os.environ.get("PATH", ""), name: "", other: "a", "LAX": "1"},
        )
        if name in validated:
            assert not ran.stdout.endswith("survived\n"), (name, ran)


# guards of emptiness tests (`runs_when_empty`): what the model says a command under each runs
# with A empty must be what bash does, whatever B is (h41 F11, h42 N1-N3, F4, F5)
_EMPTINESS_GUARDS = [
    '[ -z "$A" ]',
    '[ -n "$A" ]',
    "[[ -z $A ]]",
    "[[ -n ${A} ]]",
    "[ -z $A ]",
    "[ -n $A ]",
    "test -z $A",
    'test -n "$A"',
    '! [ -n "$A" ]',
    '[ ! -z "$A" ]',
    '[ -z "${A:-}" ]',
    '[ -n "$A" ] || [ -n "$B" ]',
    '[ -z "$A" ] || [ -z "$B" ]',
    '[ -z "$A" ] && [ -z "$B" ]',
    '[ -n "$A" ] && [ -n "$B" ]',
    '[ -z "$A" -o -z "$B" ]',
    '[ -n "$A" -a -n "$B" ]',
    '[ -n "$A" -o -n "$B" ]',
    "[[ -z $A || -z $B ]]",
    '[ -z "$A" ] && echo "A is not set!"',
    '[ -z "$A" ] && echo "$(basename "$0"): A; B" >&2',
    '[ -z "$A" ] && echo x > /nonexistent/dir/f',
    '[ -z "$A" ] && echo x >&3',
    "[ -z \"$A\" ] && printf '%s missing\\n' A >&2",
    "[ -z \"$A\" ] && printf '%d\\n' missing",
    '[ -z "$A" ] && printf -z x',
    'test -z "$A" -o -z "$B"',
    'test -n "$A" -a -n "$B"',
    "[ -z $A ] && echo msg",
    'nc -z "$A" 80',
    'echo -n "$A" | grep -q .',
    '[ -z "$A$B" ]',
    '[ -n "${A:-x}" ]',
    '[ "$A" ]',
    "[[ $A ]]",
    '[ "$A" != "" ]',
    '[ "x$A" = "x" ]',
    "[ ${#A} -gt 0 ]",
    "[[ ${#A} -eq 0 ]]",
    "[ ! -z $A ]",
    '[ "$A" ] || [ "$B" ]',
    '[ "$A" ] && [ "$B" ]',
    '[ -d "$A" ]',
    "(( ${#A} > 0 ))",
    '[ -z "$A" ] && echo "A unset" 1>&1',
    '[ -z "$A" ] && echo "A unset" 2>&2',
    '[ -z "$A" ] && echo "A unset" > /dev/stderr',
    '[ -z "$A" ] && echo "A unset" >/dev/null',
    '[ -z "$A" ] && echo "A unset" 3>&2',
    '[ -z "$A" ] && echo "A unset" >/dev/full',
    '[ -z "$A" ] && echo "A unset" >&3',
    '[ -z "$A" ] && printf \'%s\\n\' "$(basename "$0"): A missing"',
    '[ -z "$A" ] && printf "%s: %s\\n" "$(false)" A >&2',
    '[ -z "$A" ] && printf "%d\\n" "$(basename "$0")"',
    '[ -z "$A" ] && printf "${FMT:-%d}" x',
    '[ -z "$A" ] && printf "$(printf \'\\x25d\')" x',
    '[ -z "$A" ] && printf -v V "%s" x',
    "[ -z \"$A\" ] && printf '%s\\n' x > /nonexistent/dir/f",
    '[ -z "$A" ] && 2>/dev/null echo "A unset"',
    '! [ -n "$A" -a -n "$B" ]',
    '! test -n "$A" -a -n "$B"',
    '! [ -z "$A" -o -z "$B" ]',
    '! [ -n "$A" -o -n "$B" ]',
    '[\t-z "$A" -o -z "$B" ]',
    'test\t-z "$A" -o -z "$B"',
    '[ -z "$A" -o -z "$B"\t]',
    '[ -z "${A-x}" ]',
    '[ -n "${A-}" ]',
    '[ "${A+set}" ]',
    '[ "x$A" != "x" ]',
    "[[ $A && $B ]]",
    'test "$A"',
    "[ $A ]",
    "[[ ! $A ]]",
    '[ ! "$A" ]',
    "(( ${#A} ))",
    "[[ $A == ?* ]]",
    "[[ $A == * ]]",
    '[ "$A" = "$B" ]',
]


@needs_bash
@pytest.mark.parametrize("guard", _EMPTINESS_GUARDS)
@pytest.mark.parametrize("expect", [True, False])
def test_emptiness_guards_agree_with_bash(guard: str, expect: bool) -> None:
    from benchlint.environment import runs_when_empty

    joined = "&&" if expect else "||"
    text = f"{guard} {joined} echo RAN\n"
    script = parse_file(SourceText("t.sh", text.encode()))
    command = next(c for c in script.commands if script.text_of(c.node) == "echo RAN")
    said = runs_when_empty(command).get("A")
    ran = {  # (A set to the empty text, and unset: h47 S5)
        (a, b): "RAN"
        in subprocess.run(
            [BASH or "bash", "-c", text],
            capture_output=True,
            text=True,
            env={"PATH": os.environ.get("PATH", ""), "B": b, **({"A": ""} if a else {})},
        ).stdout
        for a in (True, False)
        for b in ("", "a")
    }
    if said is True:  # (it runs with A empty, whatever B is)
        assert all(ran.values()), (text, ran)
    elif said is False:  # (it never runs with A empty)
        assert not any(ran.values()), (text, ran)


_NEED = 'need() { for v; do [ -z "${!v}" ] && return 1; done; return 0; }\n'


def _state_at_launch(tmp_path: Path, text: str) -> tuple[Any, Any]:
    """The script's state before its `echo RAN` (the launch), with that command given, and the
    command."""
    from benchlint.config import Config
    from benchlint.context import wiring_of
    from benchlint.environment import Environment
    from benchlint.workspace import Workspace

    (tmp_path / "t.sh").write_text(text)
    ws = Workspace(tmp_path, Config())
    script = ws.shell("t.sh")
    assert script is not None
    launch = next(c for c in script.commands if script.text_of(c.node) == "echo RAN")
    state = Environment(ws, wiring_of(ws)).states_before(
        script, [launch.node.start_byte], commands=[launch]
    )[0]
    return state, launch


# checks made under conditions or in loops (`states_before` with the command at the offset,
# h39 F7): where the model says x1 is checked before `echo RAN`, bash never prints RAN with x1
# empty, whatever S and M are; and it says so for the shapes listed as checked
_CONDITIONAL_CHECKS = [
    ('[ -n "$S" ] && : "${x1:?}"', False),
    ('[ -n "$S" ] && check_env_vars x1', False),
    ('if [ -n "$S" ]; then [ -z "$x1" ] && exit 1; fi', False),
    ("for i in $S; do check_env_vars x1; done", False),
    ('case "$M" in strict) check_env_vars x1 ;; esac', False),
    ('[ -z "$x1" ] && echo "x1 unset" >&2 && exit 1', True),
    ('[ -n "$x1" ] || { echo "x1 unset"; exit 1; }', True),
    ('if [ -z "$x1" ]; then echo unset; exit 1; fi', True),
    ('for v in x1 x2; do [ -z "${!v}" ] && exit 1; done', True),
    ('need() { for v; do [ -z "${!v}" ] && return 1; done; }\nneed x1 || exit 1', True),
    ('if [ "$M" = strict ]; then [ -z "$x1" ] && exit 1; fi\nM=strict', False),
    (': "${x1:?}"', True),
    ("check_env_vars x1", True),
    # (h53 b19) validator calls joined by `&&`, with an exit when the list fails; near misses:
    # joined by `||` (both must fail), one in a pipeline (the pipeline's status is `cat`'s)
    (_NEED + "need x2 && need x1 || exit 1", True),
    (_NEED + "cd / && need x1 || exit 1", True),
    (_NEED + "need x1 && echo ok || exit 1", True),
    (_NEED + "need x1 || need x2 || exit 1", False),
    (_NEED + "need x1 | cat && true || exit 1", False),
    # (h53 S4) a validator not defined where it is called: below the call, or unset with -f
    ('need x1\nneed() { for v; do [ -z "${!v}" ] && exit 1; done; }', False),
    ('need() { for v; do [ -z "${!v}" ] && exit 1; done; }\nunset -f need\nneed x1', False),
    ('need() { for v; do [ -z "${!v}" ] && exit 1; done; }\nunset -f other\nneed x1', True),
    # (h56 F1, F2, S1) an `unset -f` in a subshell or refused (`-fv`) removes nothing; a plain
    # `unset need` or `builtin unset -f` does; a failing call of a validator not yet defined
    # ends the script under `|| exit 1` whatever the names hold
    ('need() { for v; do [ -z "${!v}" ] && exit 1; done; }\n( unset -f need )\nneed x1', True),
    ('need() { for v; do [ -z "${!v}" ] && exit 1; done; }\nunset -fv need\nneed x1', True),
    ('need() { for v; do [ -z "${!v}" ] && exit 1; done; }\nunset need\nneed x1', False),
    ('need() { for v; do [ -z "${!v}" ] && exit 1; done; }\nbuiltin unset -f need\nneed x1', False),
    ("need x1 || exit 1\n" + _NEED, True),
    # (h55 F4, F5) a redirection tree-sitter-bash reads as the whole list's; a comment in it
    (_NEED + "need x2 && need x1 2>/dev/null || exit 1", True),
    (_NEED + "need x2 &&\n  # then the model\n  need x1 || exit 1", True),
]


@needs_bash
@pytest.mark.parametrize(("program", "checked"), _CONDITIONAL_CHECKS)
def test_a_check_under_a_condition_counts_only_where_it_ran(
    program: str, checked: bool, tmp_path: Path
) -> None:
    library = 'check_env_vars() { for v; do [ -z "${!v}" ] && exit 1; done; }\n'
    text = f"{program}\necho RAN\n"
    state, _ = _state_at_launch(tmp_path, text)
    assert ("x1" in state.validated) == checked, state.validated
    for s, m in (("", ""), ("1", "strict"), ("a b", "x")):
        ran = subprocess.run(
            [BASH or "bash", "-c", library + text],
            capture_output=True,
            text=True,
            env={"PATH": os.environ.get("PATH", ""), "x1": "", "x2": "a", "S": s, "M": m},
        )
        if "x1" in state.validated:
            assert "RAN" not in ran.stdout, (program, s, m)
        if not checked and (s, m) == ("", ""):
            assert "RAN" in ran.stdout, (program, ran)  # (the near miss: bash goes on)


# a launch in the list of the validator's calls (`need x1 && need x2 && vllm ...`): it runs only
# when each call joined by `&&` before it succeeded (h48 F5); not where `||` joins one
_CHAINED_CHECKS = [
    ("need x1 && need x2 && echo RAN", True),
    ("need x2 && need x1 && echo RAN", True),
    ("cd / && need x1 && need x2 && echo RAN", True),
    ("need x1 && { need x2 && echo RAN; }", True),
    ("need x1 || need x2 && echo RAN", False),
    ("need x1 && need x2 || echo no && echo RAN", False),
    ("! need x1 && echo RAN", False),
    ("need x2 && echo RAN", False),
    # (h53 F1) the list in a function's body, and near misses: `||`, a check in another function
    ("start() { need x1 && need x2 && echo RAN; }\nstart", True),
    ("start() { need x1 || echo RAN; }\nstart", False),
    ("check() { need x1 && echo ok; }\nstart() { echo RAN; }\ncheck\nstart", False),
]


@needs_bash
@pytest.mark.parametrize(("program", "checked"), _CHAINED_CHECKS)
def test_a_launch_after_validators_joined_by_and_runs_only_when_each_succeeded(
    program: str, checked: bool, tmp_path: Path
) -> None:
    from benchlint.environment import met_at

    # (`return 0` at its end: without it, a loop whose last test fails returns 1 when set)
    library = 'need() { for v; do [ -z "${!v}" ] && return 1; done; return 0; }\n'
    state, launch = _state_at_launch(tmp_path, library + program + "\n")
    said = "x1" in state.validated or met_at(state.unmet.get("x1", ()), launch)
    assert said == checked, (state.validated, state.unmet)
    ran = subprocess.run(
        [BASH or "bash", "-c", library + program],
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), "x1": "", "x2": "a"},
    )
    assert ("RAN" in ran.stdout) is not checked, (program, ran.stdout)
