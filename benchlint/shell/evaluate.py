"""Deciding a launcher's conditions under one master-config entry's variables.

Three-valued: True, False, or None when the condition cannot be decided statically (a variable
the entry does not set, an expansion `expand` does not model, a command such as `grep -q`, a
regular expression outside POSIX ERE or one that runs too long). tests/test_differential.py
holds the answers to bash's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from benchlint.lazyre import lazy_compile
from benchlint.shell import expand
from benchlint.shell.conditions import Condition
from benchlint.shell.model import Command, Guard, Script, Syn


class Env(Protocol):
    """Variable values: a string, "" when unset, None when it cannot be known statically."""

    def get(self, name: str, /) -> str | None: ...


Probe = Callable[[Command], "bool | None"]


def guards_hold(
    script: Script, guards: tuple[Guard, ...], env: Env, probe: Probe | None = None
) -> bool | None:
    """False if some guard is false; True if all are true; None otherwise.

    `probe` decides a command used as a condition (`grep -q ... "$CONFIG_PATH"`) when it can.
    """
    result: bool | None = True
    memo = getattr(env, "memo", None) if probe is None else None
    shared = getattr(env, "decisions", None) if probe is None else None
    for guard in guards:
        if memo is not None and id(guard) in memo:
            value = memo[id(guard)]
        else:
            if shared is not None:
                value = shared.decide(script, guard, env)
            else:
                value = guard_holds(script, guard, env, probe)
            if memo is not None:
                memo[id(guard)] = value
        if value is False:
            return False
        if value is None:
            result = None
    return result


class Decisions:
    """Guards decided once for all the environments that agree on what deciding them reads.

    A guard's decision depends on nothing but the values its evaluation looked up (`Env.get`),
    so another environment that gives the same names the same values gets the same decision:
    each decision is kept with the names looked up, in order, and their values. (Routes of one
    launcher differ in a few variables; most of its guards read none of them.)"""

    def __init__(self) -> None:
        # guard -> the names one evaluation looked up -> their values -> the decision
        self._by_guard: dict[
            int, dict[tuple[str, ...], dict[tuple[str | tuple[()] | None, ...], bool | None]]
        ]
        self._by_guard = {}

    def decide(self, script: Script, guard: Guard, env: Env) -> bool | None:
        if _nocasematch(script, env):  # (kept apart: the same values decide otherwise there)
            return guard_holds(script, guard, env)
        known = self._by_guard.setdefault(id(guard), {})
        for names, decided in known.items():
            values = tuple(_marked(env.get(name)) for name in names)
            if values in decided:
                return decided[values]
        recording = _Recording(env)
        value = guard_holds(script, guard, recording)
        names = tuple(recording.seen)
        known.setdefault(names, {})[tuple(map(_marked, recording.seen.values()))] = value
        return value


def _marked(value: str | None) -> str | tuple[()] | None:
    """A value as a decision is kept by: an unset variable apart from an empty one (they are
    equal strings)."""
    return () if value is expand.UNSET else value


class _Recording:
    """An environment that notes every name looked up and the value it gave. (No `memo`: a
    word expanded from a memo would look nothing up.)"""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.seen: dict[str, str | None] = {}

    def get(self, name: str, /) -> str | None:
        value = self.env.get(name)
        self.seen.setdefault(name, value)
        return value


def guard_holds(
    script: Script,
    guard: Guard,
    env: Env,
    probe: Probe | None = None,
    deciding: frozenset[tuple[int, str]] = frozenset(),
) -> bool | None:
    """`deciding`: the functions whose status is being decided, by script (a function's
    condition that calls itself, or another that calls it back, is not decided)."""
    if guard.patterns:
        if _nocasematch(script, env):
            return None
        word = value_of(script, guard.node, env)
        if word is None:
            return None
        decided: bool | None = False
        for pattern in guard.patterns:  # `a|b)`: the first that matches wins
            matched = _matches(script, word, pattern, env)
            if matched:
                decided = True
                break
            if matched is None:
                decided = None
        return None if decided is None else decided == guard.expect
    value = condition(script, guard.condition, env, probe, deciding)
    return None if value is None else value == guard.expect


def value_of(script: Script, where: Syn, env: Env) -> str | None:
    """A word's value after parameter expansion and quote removal; None if unknown."""
    return expand.value(_text(script, where, env), env.get)


# `$1`, `${1...`: a positional parameter, as an expansion reads it (not `$10`: `${10}` only)
POSITIONAL_REF = lazy_compile(r"\$(\{?)([1-9])(?![0-9])")


def _text(script: Script, where: Syn, env: Env) -> str:
    """The word's text to expand: where the environment knows positional parameters
    (`positional`, a function call's arguments), `$1` read as the variable `$__P1`; not in a
    word with single quotes or a backslash (`'$1'` and `\\$1` are `$1` as written)."""
    text = script.text_of(where)
    if getattr(env, "positional", False) and "$" in text and not any(c in text for c in "'\\"):
        return POSITIONAL_REF.sub(r"$\1__P\2", text)
    return text


def _pieces(script: Script, where: Syn, env: Env) -> list[expand.Piece] | None:
    text = _text(script, where, env)
    memo = getattr(env, "memo", None)  # a route's environment: one expansion per word text
    if memo is not None and text in memo:
        return memo[text]  # type: ignore[no-any-return]
    try:
        pieces: list[expand.Piece] | None = expand.expand(text, env.get)
    except expand.Unknown:
        pieces = None
    if memo is not None:
        memo[text] = pieces
    return pieces


def _matches(script: Script, subject: str, pattern: Syn, env: Env) -> bool | None:
    pieces = _pieces(script, pattern, env)
    return None if pieces is None else expand.matches(subject, pieces)


def _nocasematch(script: Script, env: Env) -> bool:
    """`shopt -s nocasematch` changes every pattern match of the script: not modelled; nor where
    the environment says a file the script sources may say it (`ConditionEnv.nocasematch`)."""
    return script.mentions("nocasematch") or getattr(env, "nocasematch", False) is True


def condition(
    script: Script,
    tree: Condition,
    env: Env,
    probe: Probe | None = None,
    deciding: frozenset[tuple[int, str]] = frozenset(),
) -> bool | None:
    """A condition's value (`conditions.py` describes its tree)."""
    if tree is None:
        return None
    kind = tree[0]
    if kind == "test":
        inner = tree[2]
        if not tree[1] and inner is not None and inner[0] == "unary" and inner[1]:
            # (`[ -z $X ]`, `[ -n $X ]` with X empty: the unquoted word goes, and `[` tests
            # the lone operator, a word that is not empty: true either way, as bash has it;
            # only a word quoted nowhere, `"${X%a}"` stays an argument, h43 N1, though a quote
            # in a pattern, `${F%"vllm"}`, keeps no word, h44 F1)
            pieces = _pieces(script, inner[2], env)
            written = _PATTERN_EXPANSION.sub("", script.text_of(inner[2]))
            if (
                pieces is not None
                and '"' not in written
                and "'" not in written
                and not "".join(p.text for p in pieces)
                and all(p.from_expansion for p in pieces)
            ):
                return True
        try:
            return _expression(script, tree[2], env, tree[1])
        except _NotAnInteger:
            return False  # (`[` reports the error and fails, whatever `!` it holds: status 2)
    if kind == "not":
        value = condition(script, tree[1], env, probe, deciding)
        return None if value is None else not value
    if kind in ("and", "or"):
        left = condition(script, tree[1], env, probe, deciding)
        right = condition(script, tree[2], env, probe, deciding)
        return _and(left, right) if kind == "and" else _or(left, right)
    if kind == "const":
        return bool(tree[1])
    if kind == "arith":
        return _arithmetic(tree[1], _number(tree[2], env), _number(tree[3], env))
    if kind == "command" and tree[1] is not None:
        status = function_status(script, tree[1], env, probe, deciding)
        if status is not None:
            return status
        return probe(tree[1]) if probe is not None else None
    return None


def function_status(
    script: Script,
    call: Command,
    env: Env,
    probe: Probe | None = None,
    deciding: frozenset[tuple[int, str]] = frozenset(),
) -> bool | None:
    """Whether a call (no arguments) of a function of the script returns 0, run in the caller's
    variables: the body's commands in order, each under its conditions in the body, until a
    `return N` (N a number) that surely runs. None when it cannot be known: a body that assigns
    (its conditions would read other values), loops, exits, `exec`s, sources, calls another
    function, falls through a `case` item (`;&`) or ends without such a return; a call with
    arguments; a condition not decided before the return; a function defined below a top-level
    call or after a file sourced between its definition and the call (which may define it
    again), or one already being decided (`deciding`: it calls itself back)."""
    name = call.name
    key = (id(script), name or "")
    if name is None or call.args or key in deciding:
        return None
    definition = script.functions.get(name)
    if definition is None:
        return None
    if call.function is None and definition.start_byte > call.node.start_byte:
        return None  # defined below the call: not yet a function when the line runs
    text = script.text_of(definition)
    if ";&" in text or ";;&" in text:
        return None  # a `case` that falls through to the next item
    between = (definition.end_byte, call.node.start_byte)
    if call.function is None and any(
        c.base in ("source", ".", "eval") and between[0] <= c.node.start_byte < between[1]
        for c in script.commands
    ):
        return None  # a file sourced before the call may define it again
    return _body_status(script, script.body(name), definition, env, probe, deciding | {key})


def _body_status(
    script: Script,
    body: list[Command],
    definition: Syn,
    env: Env,
    probe: Probe | None,
    deciding: frozenset[tuple[int, str]],
) -> bool | None:
    """The status of the first `return N` that surely runs, in text order (the model's commands
    leave out tests and other statements, so an end without `return N` is not known). The
    body's guards are decided afresh, not kept with the environment's decisions: one that
    calls a function being decided is not known here, and may be elsewhere."""
    start, end = definition.start_byte, definition.end_byte
    if any(c.assignments or (c.loops and c.loops[-1].start_byte > start) for c in body):
        return None
    taken: dict[Syn, tuple[Syn, ...]] = {}  # a case statement's item that ran
    for command in body:
        inner = tuple(g for g in command.guards if start <= g.node.start_byte < end)
        if any(g.patterns and taken.get(g.node, g.patterns) != g.patterns for g in inner):
            continue  # another item of that `case` ran
        held: bool | None = True
        for guard in inner:
            value = guard_holds(script, guard, env, probe, deciding)
            if value is False:
                held = False
                break
            if value is None:
                held = None
        if held is None:
            return None
        if held is False:
            continue
        for guard in inner:
            if guard.patterns:
                taken.setdefault(guard.node, guard.patterns)
        base = command.base
        if command.subshell or command.background:
            continue  # (it ends no more than its own shell)
        if base in ("exit", "return"):
            code = command.args[0] if base == "return" and command.args else None
            if code is None or not (code.static and code.value.isdigit()):
                return None
            return int(code.value) % 256 == 0
        if base in ("exec", "source", ".", "eval") or base in script.functions:
            return None  # it may end the shell, or set and define what the rest reads
    return None


def _number(side: tuple[str, object], env: Env) -> int | None:
    """A side of an arithmetic comparison: a number, or a variable's value read as bash's
    arithmetic reads it where that is sure (empty or unset: 0; a plain decimal: itself); a
    value that names another variable or is an expression: not known."""
    if side[0] == "number":
        return side[1] if isinstance(side[1], int) else None
    value = env.get(str(side[1]))
    if value is None:
        return None
    if value == "":
        return 0
    return int(value) if _INTEGER.fullmatch(value) else None


def _arithmetic(op: str, a: int | None, b: int | None) -> bool | None:
    if a is None or b is None:
        return None
    return {">": a > b, "<": a < b, ">=": a >= b, "<=": a <= b, "==": a == b, "!=": a != b}[op]


def _and(left: bool | None, right: bool | None) -> bool | None:
    if left is False or right is False:
        return False
    return True if left and right else None


def _or(left: bool | None, right: bool | None) -> bool | None:
    if left is True or right is True:
        return True
    return False if left is False and right is False else None


def _operand(
    script: Script, where: Syn, env: Env, double: bool, joined: bool = False
) -> str | None:
    """An operand's value; in `[ ]` an unquoted expansion is split and globbed, so a value that
    would change there (blanks, glob characters, nothing at all) is unknown; in a joined `[ ]`
    (`-o`, `-a`) so is one `[` may read as an operator (`!`, `(`, `=`, `-n`...: bash 5.2 then
    reads the words otherwise, or fails)."""
    pieces = _pieces(script, where, env)
    if pieces is None:
        return None
    text = "".join(p.text for p in pieces)
    split = not double and any(p.from_expansion for p in pieces)
    if split and (not text or any(c in text for c in " \t\n*?[")):
        return None
    if joined and _OPERATOR_LIKE.fullmatch(text):
        return None
    return text


_INTEGER = lazy_compile(r"-?(0|[1-9][0-9]*)")
_DECIMAL = lazy_compile(r"[-+]?[0-9]+")  # (what `[`'s `-gt` reads: `010` is 10)
_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATOR_LIKE = lazy_compile(r"[!()=]|==|!=|<|>|-.*")
# `${F%"vllm"}`, `${F//'a'/b}`, `${F,,}`: an expansion with a pattern (not a default or an
# alternative, whose quoted text becomes the word's)
_PATTERN_EXPANSION = lazy_compile(r"\$\{[#!]?[A-Za-z_][A-Za-z0-9_]*(?:%|#|/|\^|,)[^{}]*\}")


def _expression(
    script: Script, tree: Condition, env: Env, double: bool, joined: bool = False
) -> bool | None:
    """A test's value; `joined`: a part of `[ A -o B ]` or `[ A -a B ]`, where an operand's value
    that is itself an operator of `[` shifts how it reads its words (`_operand`)."""
    if tree is None:
        return None
    kind = tree[0]
    if kind == "not":
        value = _expression(script, tree[1], env, double, joined)
        return None if value is None else not value
    if kind == "unary":
        text = _operand(script, tree[2], env, double, joined)
        if text is None:
            return None
        return (text == "") == bool(tree[1] == "-z")
    if kind == "set":  # `-v NAME`: set (to anything, empty too), not the value
        name = _operand(script, tree[1], env, double, joined)
        if name is None or not _NAME.fullmatch(name):
            return None  # (`-v ARR[0]`, an element: not decided)
        held = env.get(name)
        return None if held is None else held is not expand.UNSET
    if kind == "file":  # no file has the empty path; any other is not known here
        text = _operand(script, tree[2], env, double, joined)
        return False if text == "" else None
    if kind in ("and", "or"):
        # (`[` reads both sides whatever the first gives, and fails on an error in either,
        # status 2: `[ -z "$X" -o "$X" -lt 1 ]` with X empty)
        left = _expression(script, tree[1], env, double, not double)
        right = _expression(script, tree[2], env, double, not double)
        return _and(left, right) if kind == "and" else _or(left, right)
    if kind == "binary":
        op, left, right = tree[1], tree[2], tree[3]
        a = _operand(script, left, env, double, joined)
        if a is None:
            return None
        if double and op in ("==", "=", "!=", "=~"):
            if _nocasematch(script, env):
                return None
            pieces = _pieces(script, right, env)
            if pieces is None:
                return None
            if op == "=~":
                return expand.regex_matches(a, pieces)
            matched = expand.matches(a, pieces)
            return None if matched is None else matched == (op != "!=")
        b = _operand(script, right, env, double, joined)
        if b is None:
            return None
        return _compare(a, op, b, double)
    if kind == "word":
        text = _operand(script, tree[1], env, double, joined)
        return None if text is None else text != ""
    return None


class _NotAnInteger(Exception):
    """`[ a -gt b ]` with an operand that is no integer (`""`, `abc`, `0x10`): `[` prints
    "integer expression expected" and fails with status 2 (bash 5.2), under `!` too."""


def _compare(a: str, op: str, b: str, double: bool) -> bool | None:
    """`[ a OP b ]`, and the arithmetic comparisons of `[[ ]]`."""
    if op in ("==", "=") and not double:
        return a == b
    if op == "!=" and not double:
        return a != b
    numeric = {"-eq": 0, "-ne": 1, "-lt": 2, "-le": 3, "-gt": 4, "-ge": 5}
    if op in numeric:
        # `[[ ]]` reads operands as arithmetic (010 is 8, a name is its value, blanks or
        # nothing 0): plain integers only; `[ ]` reads decimal integers, blanks around them
        # and a sign allowed, and fails on anything else (h127 F1)
        if double:
            a, b = a.strip(" \t\n") or "0", b.strip(" \t\n") or "0"
            if not (_INTEGER.fullmatch(a) and _INTEGER.fullmatch(b)):
                return None
        else:
            a, b = a.strip(" \t\n"), b.strip(" \t\n")
            if not (_DECIMAL.fullmatch(a) and _DECIMAL.fullmatch(b)):
                raise _NotAnInteger
        x, y = int(a), int(b)
        return [x == y, x != y, x < y, x <= y, x > y, x >= y][numeric[op]]
    return None
