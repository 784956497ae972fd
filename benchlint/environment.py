"""Where a script's variables get their values: its own lines, the files it sources, its callers.

A *start path* (`StartPath`) is one way a script is started, with the environment it inherits:
- a launcher (`runners/launch_*.sh`) is started for every search-space element of every
  master-config entry routed to it, with the workflow template's `env:`, the entry's fields and
  the element's `additional-settings` (without entries, by each workflow step that runs launchers);
- any script is started by every script that runs it (`bash x.sh`, exported variables pass) or
  sources it (every variable passes), through that caller's own start paths.
A start path is *complete* when benchlint sees everything that can set a variable on it; a
caller that runs `eval` or sources a file that cannot be resolved makes it incomplete.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import ChainMap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from benchlint import profile
from benchlint.calls import Call, call_graph
from benchlint.finding import Location, Span
from benchlint.lazyre import lazy_compile
from benchlint.shell.conditions import TO_OUTPUT, split_outside_quotes
from benchlint.shell.evaluate import POSITIONAL_REF, guards_hold
from benchlint.shell.expand import UNSET
from benchlint.shell.model import (
    CONDITIONAL_OPERATORS,
    IN_THIS_SHELL,
    Assignment,
    Command,
    Guard,
    Read,
    Script,
    Syn,
    conditional_outer,
    errexit_change,
    exclusive,
    may_change_positionals,
    nonzero_status,
    positionals_changed_before,
)
from benchlint.wiring import Route, Wiring, entry_environment
from benchlint.workflow import (
    NULL,
    LauncherStep,
    nonempty_from_call,
    nonempty_from_entry,
    typed_from_sweep,
)
from benchlint.workspace import Workspace

if TYPE_CHECKING:
    from tree_sitter import Node

# the names the workflow sets from a search-space element's fields (set on a route with a
# workflow step only where the step exports them)
ELEMENT_NAMES = frozenset(profile.ELEMENT_ENVIRONMENT)

# Set by the operating system, the shell, GitHub Actions or Slurm before any of our scripts run.
BUILTIN_ENV = frozenset(
    {
        "HOME",
        "PATH",
        "USER",
        "LOGNAME",
        "PWD",
        "OLDPWD",
        "SHELL",
        "HOSTNAME",
        "TERM",
        "LANG",
        "TMPDIR",
        "UID",
        "EUID",
        "PPID",
        "RANDOM",
        "SECONDS",
        "LINENO",
        "IFS",
        "CI",
        "CUDA_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES",
        "HIP_VISIBLE_DEVICES",
        "LD_LIBRARY_PATH",
        "PYTHONPATH",
        # what bash itself sets (`read` with no name: REPLY; `getopts`: OPTARG, OPTIND)
        "REPLY",
        "OPTARG",
        "OPTIND",
        "OPTERR",
        "OSTYPE",
        "HOSTTYPE",
        "MACHTYPE",
        "SHLVL",
        "EPOCHSECONDS",
        "EPOCHREALTIME",
        "SRANDOM",
        "FUNCNAME",
        "PIPESTATUS",
        "GROUPS",
        "DIRSTACK",
        "SHELLOPTS",
    }
    # the proxies a host's environment gives by convention, in both cases (t75a)
    | {f"{n}_proxy" for n in ("http", "https", "ftp", "no", "all")}
    | {f"{n}_PROXY" for n in ("HTTP", "HTTPS", "FTP", "NO", "ALL")}
)
BUILTIN_PREFIXES = (
    "GITHUB_",
    "RUNNER_",
    "SLURM_",
    "SLURMD_",
    "PMIX_",
    "OMPI_",
    "PMI_",
    "BASH",
    "LC_",
)
VALIDATORS = profile.VALIDATORS


@dataclass(frozen=True)
class Provenance:
    """Where a variable's value comes from; an assignment's position is computed on demand."""

    what: str
    at: Location | Assignment | None = None
    # the value is known not to be empty (not an assignment's own, or one an `if` gives in
    # both branches: `both_branches`)
    nonempty_here: bool = False

    @property
    def nonempty(self) -> bool:
        """Whether the value is known not to be empty whenever this runs: an unconditional
        assignment of a non-empty word with no expansion, of an arithmetic expansion or of a
        variable with a non-empty default for empty (`PORT=8888`, `PORT=$((8888 + N))`,
        `PORT=${PORT:-8888}`), or such a value a wrapper sets."""
        at = self.at
        if self.nonempty_here or not isinstance(at, Assignment):
            return self.nonempty_here
        return not at.command.guards and nonempty_value(at)

    @property
    def location(self) -> Location | None:
        if isinstance(self.at, Assignment):
            script = self.at.command.script
            return Location(script.path, self.at.span)
        return self.at

    @property
    def description(self) -> str:
        location = self.location
        return f"{self.what} at {location}" if location is not None else self.what


@dataclass
class StartPath:
    """One way a script is started, with what it inherits (wiring.Route is the recipe route)."""

    name: str
    env: Mapping[str, Provenance]
    complete: bool
    location: Location | None = None
    # the names a script on the way checked for empty before it started the next
    validated: frozenset[str] = frozenset()
    # the recipe route of a launcher's start path: what it decides of the launcher's conditions
    route: Route | None = None
    # through a launcher no entry reaches, where entries reach others (a retired runner's): a
    # workflow step's environment stands for values no job gives it
    idle: bool = False

    def variables(self) -> dict[str, Provenance]:
        """`env` as one dict, to go through (`env` is a view of the caller's layers)."""
        return _flat(self.env)


def _flat(env: Mapping[str, Provenance]) -> dict[str, Provenance]:
    if not isinstance(env, ChainMap):
        return env if isinstance(env, dict) else dict(env)
    flat: dict[str, Provenance] = {}
    for layer in reversed(env.maps):  # the first map wins; the order is `{**under, **top}`'s
        flat.update(_flat(layer))
    return flat


@dataclass
class ScriptState:
    """What a script has set, exported and validated before some point."""

    assigned: dict[str, Provenance] = field(default_factory=dict)
    exported: dict[str, Provenance] = field(default_factory=dict)
    validated: set[str] = field(default_factory=set)
    unknown: str | None = None  # why anything might be set: "eval", "sources $X"
    # the functions defined so far (a sourced library's too): their bodies set what they set
    # where they are called, not where they are defined
    functions: dict[str, Script] = field(default_factory=dict)
    # the names an `unset` took a value from that nothing assigned again: the command
    unset: dict[str, Command] = field(default_factory=dict)
    # `set -a` (allexport) as the script leaves it, itself or by a file it sources: every
    # variable assigned after it is exported; None where neither changes it
    allexport: bool | None = None
    # the names checked before only under a condition or in a loop the command at the point
    # may run without (`states_before`'s `commands`): what each such check needs (`met_at`)
    unmet: dict[str, tuple[Needs, ...]] = field(default_factory=dict)


# commands other than assignments and `source` that change what state_before reports
_STATE_COMMANDS = frozenset({*VALIDATORS, "exit", "eval", "unset", "false"})
_EMPTY_TEST = lazy_compile(r"-(z|n)\s+\"?\$\{?([A-Za-z_][A-Za-z0-9_]*)")


_ASSIGNING = frozenset({"read", "for", "default", "arithmetic"})  # set without a word
_UNUSUAL = frozenset({"local", "unexport", "dynamic"})  # kinds `states_before` treats apart
_NOT_GLOBAL = frozenset({"prefix", "local", "unexport", "dynamic"})  # (not what `set -a` exports)


def nonempty_value(at: Assignment) -> bool:
    """Whether the assignment gives a value that cannot be empty, where it runs (see
    `Provenance.nonempty`)."""
    value = at.value
    if at.kind == "default":  # `: "${PORT:=8888}"`
        return bool(_DEFAULTED.fullmatch(at.command.script.text_of(at.node)))
    if value is None:
        return False
    if value.static:
        return _nonempty_text(value.value)
    return bool(_ARITHMETIC.fullmatch(value.value) or _DEFAULTED.fullmatch(value.value))


def both_branches(before: Provenance | Assignment | None, after: Assignment) -> Provenance | None:
    """A value that cannot be empty after an `if` that gives one in each branch (`if ...; then
    PORT=8888; else PORT=8000; fi`): the two assignments' conditions differ only in their last,
    the same condition expected true and false, and both values cannot be empty."""
    if not isinstance(before, Assignment) or not opposite_branches(before, after):
        return None
    if not (nonempty_value(before) and nonempty_value(after)):
        return None
    return Provenance(f"{after.kind} in both branches", after, True)


def opposite_branches(before: Assignment, after: Assignment) -> bool:
    """Whether two assignments stand in the two branches of one `if` (`if ...; then X=a; else
    X=b; fi`): their conditions differ only in their last, the same condition expected true and
    false, in the same loops."""
    first = after.command.guards
    second = before.command.guards
    if not first or len(first) != len(second) or before.command.script is not after.command.script:
        return False
    # (the same conditions, the last one's other branch: by where each condition is)
    if [(g.node.start_byte, g.expect) for g in first[:-1]] != [
        (g.node.start_byte, g.expect) for g in second[:-1]
    ]:
        return False
    last, other = first[-1], second[-1]
    same = last.node.start_byte == other.node.start_byte and not last.patterns
    return same and last.expect != other.expect and before.command.loops == after.command.loops


def _provenance(at: Provenance | Assignment, made: dict[int, Provenance]) -> Provenance:
    if isinstance(at, Provenance):
        return at
    known = made.get(id(at))
    if known is None:
        known = made[id(at)] = Provenance(at.kind, at)
    return known


def _prefixed(command: Command) -> frozenset[str]:
    """The names a command's prefix assignments give values for the command alone."""
    return frozenset(a.name for a in command.assignments if a.kind == "prefix")


# POSIX's special builtins: in sh and dash, assignments before one stay the shell's
_SPECIAL_BUILTINS = frozenset(
    {":", ".", "break", "continue", "eval", "exec", "exit", "export", "readonly", "return"}
    | {"set", "shift", "times", "trap", "unset"}
)


def _posix_shell(script: Script) -> bool:
    """Whether sh or dash runs the script (its `#!` line; a nested string, the shell that runs
    it), not bash."""
    while script.parent is not None:
        runner = script.parent.invocation.base
        if runner != "eval":  # (an `eval`'s string runs in the shell of the script around it)
            return runner in ("sh", "dash")
        script = script.parent.script
    first = script.file.line_text(1)
    return bool(re.match(r"#!\s*(?:/usr)?/bin/(?:env\s+)?(?:sh|dash)\b", first))


def _allexport_at(script: Script, offset: int) -> bool:
    """Whether `set -a` (allexport) is in effect at a byte offset of the script, by the `set`
    commands before it in its text."""
    state = False
    for command, on in script.option_sets("allexport", "a"):
        if command.node.start_byte >= offset:
            break
        state = on
    return state


def wrapper_settings(command: Command, state: ScriptState | None = None) -> dict[str, Provenance]:
    """The variables a wrapper sets for the command it runs: Slurm's `--export=ALL,NAME=VALUE`,
    a container's `-e NAME=VALUE` / `--env NAME=VALUE`, and `env NAME=VALUE`."""
    found: dict[str, Provenance] = {}
    for wrapper in command.invocation.wrappers:
        if wrapper.name == "env":  # `env NAME=VALUE ... cmd`: set for cmd
            for setting in wrapper.words[1:]:
                name, equals, text = setting.value.partition("=")
                if equals and name.isidentifier() and not setting.value.startswith("-"):
                    where = Location(command.script.path, setting.span)
                    found[name] = Provenance("env", where, _nonempty_option(text, state))
            continue
        for option, word, value in wrapper.options:
            if word is None:
                continue
            if option == "--export" and wrapper.name in ("srun", "sbatch", "salloc"):
                items = value.split(",")
            elif option in wrapper.env_options:
                items = [value]
            else:
                continue
            for item in items:
                name, equals, text = item.partition("=")
                if equals and name.isidentifier():
                    where = Location(command.script.path, word.span)
                    nonempty = _nonempty_option(text, state)
                    found[name] = Provenance(f"{wrapper.name} {option}", where, nonempty)
    return found


def passed_on(command: Command, state: ScriptState, sourced: bool = False) -> dict[str, Provenance]:
    """What a script passes to the one a command of it runs (sources, `sourced`), in the state
    it is in there: what it exported (assigned, for a sourced file), what the command line
    assigns (`PORT=1 bash x.sh`) and what its wrappers set (`srun --export=ALL,PORT=1`)."""
    passed = dict(state.assigned if sourced else state.exported)
    for assignment in command.assignments:
        passed[assignment.name] = Provenance("set on the command", assignment)
    passed.update(wrapper_settings(command, state))
    return passed


def container_passes(command: Command) -> frozenset[str] | None:
    """The variables a container run is known to pass to the command in it (`docker run -e
    NAME ...`): a container that starts from its own environment (`Wrapper.own_env`: `docker
    run`, `apptainer exec --cleanenv`) does not inherit the caller's (a file of variables,
    `--env-file`, is not read: what it passes is not known to pass). None when the command
    runs in no such container."""
    passes: set[str] | None = None
    for wrapper in command.invocation.wrappers:
        if not wrapper.own_env:
            continue
        passes = set()
        for option, _, value in wrapper.options:
            if option in wrapper.env_options:
                passes.add(value.split("=", 1)[0])
    return frozenset(passes) if passes is not None else None


_SIMPLE = lazy_compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_ARITHMETIC = lazy_compile(r"\$\(\(.*\)\)", re.S)  # always a number, or the shell fails
# `${PORT:-8888}`, `${PORT:=8888}`: the default when unset or empty, a non-empty word
_DEFAULTED = lazy_compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:[-=][^}$`\"'\\]+\}")


def _nonempty_text(text: str) -> bool:
    return bool(text) and "$" not in text and "`" not in text


def _nonempty_option(text: str, state: ScriptState | None) -> bool:
    """Whether a wrapper option's value is known not to be empty: a word with no expansion, an
    arithmetic expansion, or one variable the caller (`state`) set so (`PORT=$PORT` after
    `PORT=8888`)."""
    if _nonempty_text(text) or _ARITHMETIC.fullmatch(text) or _DEFAULTED.fullmatch(text):
        return True
    match = _SIMPLE.fullmatch(text)
    known = state.assigned.get(match.group(1)) if match is not None and state else None
    return known is not None and known.nonempty


def runs_when_empty(command: Command) -> dict[str, bool]:
    """For each variable an emptiness test guards this command with: True when the command runs
    if it is empty, whatever else holds (`[[ -z $X ]] && cmd`, `[ -n "$X" ] || cmd`), False when
    it runs only if it is set (`[ -n "$X" ] && cmd`). A guard made of emptiness tests joined by
    one kind of operator is read as bash reads it (`_emptiness_terms`: `[ -n "$A" ] || [ -n "$B"
    ]` decides neither A nor B, `[ -z $A ]` unquoted is `[ -z ]` when A is empty, true); any
    other guard with such a test, and any test or case item (`[ "$X" ]`, `[ "x$X" != "x" ]`,
    `[ ${#X} -gt 0 ]`, `[[ $X == ?* ]]`, `case "$X" in ?*)`: `_TEST_SHAPED`), by the condition
    evaluator (h41 F11, h42 N7, h47 F1)."""
    found: dict[str, bool] = {}
    script = command.script
    for guard in command.guards:
        text = script.text_of(guard.node)
        matches = list(_EMPTY_TEST.finditer(text))
        if not matches:
            if guard.patterns or _TEST_SHAPED.match(text):
                for name in dict.fromkeys(_GUARD_READ.findall(text)):
                    holds = _hold_when_empty(script, (guard,), name)
                    if holds is not None:
                        found[name] = holds and found.get(name, True)
            continue
        names = dict.fromkeys(m.group(2) for m in matches)
        read = _emptiness_terms(_MESSAGES.sub("", text) if guard.expect else text)
        for name in names:
            if read is not None:
                value = _when_empty(read, name)
                holds = None if value is None else value == guard.expect
            else:
                holds = _hold_when_empty(script, (guard,), name)
            if holds is not None:  # (one guard that fails when it is empty: never runs then)
                found[name] = holds and found.get(name, True)
    return found


# `[ -z "$X" ]`, `[[ -n ${X} ]]`, `test -z "${X:-}"`, `! [ -n "$X" ]`: one emptiness test (its
# negation, the bracket, quote and name)
_TERM = lazy_compile(
    r"(?P<neg>!\s+)?(?P<open>\[\[|\[|test)\s+(?P<inner>!\s+)?-(?P<op>[zn])\s+"
    r"(?P<q>\"?)\$(?:(?P<plain>[A-Za-z_][A-Za-z0-9_]*)|\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)"
    r"(?::?-)?\})(?P=q)\s*(?P<close>\]\]|\])?"
)
# `&& echo "MODEL is not set!" >&2`, `&& printf 'no %s\n' "$MODEL"` at the end (a message to the
# script's output or error; a printf whose format takes only strings, which cannot fail; one
# with a substitution is left to the condition evaluator)
_MESSAGES = lazy_compile(
    r"(?:\s*&&\s*(?:echo|printf(?=\s+(?:'(?!-)(?:[^'%]|%[sb%])*'|\"(?!-)(?:[^\"%\\$`]|\\.|%[sb%])*\")))"
    r"(?:\s+(?:\"(?:[^\"\\]|\\.)*\"|'[^']*'|[0-9]?>(?:&[12]|\s*/dev/(?:stdout|stderr|null))"
    r"|[^\s&|;'\"`()<>]+))*)+\s*$"
)
# one term of a `[ ... -o ... ]` or `[ ... -a ... ]`: `-z "$X"`
_INNER = lazy_compile(
    r"(?P<inner>!\s+)?-(?P<op>[zn])\s+(?P<q>\"?)\$(?:(?P<plain>[A-Za-z_][A-Za-z0-9_]*)|"
    r"\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?::?-)?\})(?P=q)"
)


def _emptiness_terms(text: str) -> tuple[str, list[tuple[str, bool]]] | None:
    """A guard made of emptiness tests only, joined by one operator (`&&` and `-a`, or `||` and
    `-o`): the operator ("and"/"or") and each test's name and value when the name is empty (an
    unquoted operand of `[`/`test`: with the name empty, `[ -z ]` and `[ -n ]` test the lone
    operator, true). None for anything else."""
    parts = _split_outside_quotes(text.strip(), ("&&", "||"))
    if parts is None:
        return None
    pieces, operators = parts
    terms: list[tuple[str, bool]] = []
    kinds = {"and" if o == "&&" else "or" for o in operators}
    for piece in pieces:
        match = _TERM.fullmatch(piece.strip())
        if match is None:
            grouped = _grouped_terms(piece.strip())
            if grouped is None:
                return None
            kind, inner = grouped
            kinds.add(kind)
            terms += inner
            continue
        single = match.group("open") in ("[", "test")
        if single and (match.group("open") == "[") != bool(match.group("close")):
            return None
        if match.group("open") == "[[" and match.group("close") != "]]":
            return None
        name = match.group("plain") or match.group("braced")
        empty_value = match.group("op") == "z"
        if single and not match.group("q"):
            empty_value = True  # (`[ -n ]`: the lone word `-n`, not empty)
        if match.group("inner"):
            empty_value = not empty_value
        if match.group("neg"):
            empty_value = not empty_value
        terms.append((name, empty_value))
    if len(kinds) > 1:
        return None
    return (kinds.pop() if kinds else "and"), terms


def _grouped_terms(piece: str) -> tuple[str, list[tuple[str, bool]]] | None:
    """`[ -z "$A" -o -z "$B" ]`, `test -z "$A" -o -z "$B"`: its operator and terms (quoted
    operands only); negated (`! [ -n "$A" -a -n "$B" ]`), the other operator of the negated
    terms."""
    if piece[:1] == "!" and piece[1:2].isspace():
        negated = _grouped_terms(piece[1:].lstrip())
        if negated is None:
            return None
        return ("and" if negated[0] == "or" else "or"), [(n, not v) for n, v in negated[1]]
    grouped = _GROUPED.fullmatch(piece)
    if grouped is None:
        return None
    inside = (
        grouped.group("bracket") if grouped.group("bracket") is not None else grouped.group("test")
    )
    parts = _split_outside_quotes(inside.strip(), ("-o", "-a"))
    if parts is None or not parts[1]:
        return None
    pieces, operators = parts
    if len(set(operators)) != 1:
        return None
    terms = []
    for inner in pieces:
        match = _INNER.fullmatch(inner.strip())
        if match is None or not match.group("q"):
            return None
        empty_value = (match.group("op") == "z") != bool(match.group("inner"))
        terms.append((match.group("plain") or match.group("braced"), empty_value))
    return ("or" if operators[0] == "-o" else "and"), terms


# `[ ... ]` (not `[[`) or `test ...`, with blanks or tabs after the command (h44 N3)
_GROUPED = lazy_compile(r"\[[ \t]+(?P<bracket>.*)[ \t]+\]|test[ \t]+(?P<test>.*)", re.S)


def _split_outside_quotes(
    text: str, operators: tuple[str, ...]
) -> tuple[list[str], list[str]] | None:
    """The text's pieces between the operators outside quotes, and the operators
    (`conditions.split_outside_quotes`)."""
    data = text.encode("utf-8", "surrogateescape")
    parts = split_outside_quotes(data, tuple(o.encode() for o in operators))
    if parts is None:
        return None
    ranges, found = parts
    pieces = [data[a:b].decode("utf-8", "surrogateescape") for a, b in ranges]
    return pieces, [o.decode() for o in found]


def _when_empty(read: tuple[str, list[tuple[str, bool]]], name: str) -> bool | None:
    """The guard's value when the name is empty, whatever the others' values: an `or` is true
    once one of its tests is, an `and` false once one is; else only where every test is the
    name's."""
    kind, terms = read
    values = [value for term, value in terms if term == name]
    if not values:
        return None
    others = any(term != name for term, _ in terms)
    if kind == "or":
        if any(values):
            return True
        return None if others else False
    if not all(values):
        return False
    return None if others else True


def _tested_for_empty(exit_command: Command) -> set[str]:
    """Variables whose emptiness sends the script to this `exit` (or a call of a function that
    always exits: `die`, `usage`): `[[ -z $X ]] && exit`, `if [ -z "$X" ]; then exit`, and any
    guard the condition evaluator decides to hold when X is empty, whatever else is (`[ "$X" ]
    || exit`, `[ "$X" = "" ]`, `[ ${#X} -eq 0 ]`, `case "$X" in "") exit`, `[[ $X =~ ^[0-9]+$
    ]] || exit`)."""
    found = {name for name, empty in runs_when_empty(exit_command).items() if empty}
    script = exit_command.script
    texts = [script.text_of(guard.node) for guard in exit_command.guards]
    called = [  # `validate || exit 1`: what the function tests (`[[ -z $X ]] && return 1`)
        script.text_of(script.functions[name])
        for name in (text.strip().removeprefix("!").strip() for text in texts)
        if name in script.functions
    ]
    texts += called
    found |= _checked_by_name(exit_command)
    cased = any(guard.patterns for guard in exit_command.guards)  # `case "$X" in "") exit`
    if not cased and not called and not any(_EMPTY_SHAPED.search(text) for text in texts):
        return found  # (deciding a guard parses the script again: only where it can tell)
    names = {name for text in texts for name in _GUARD_READ.findall(text)}
    names |= {  # `(( PORT > 0 ))` reads PORT without a `$`
        name for text in texts if text.lstrip().startswith("((") for name in _NAME.findall(text)
    }
    for name in sorted(names - found):
        if _hold_when_empty(script, exit_command.guards, name) is True:
            found.add(name)
    return found


# a guard that can tell an empty value other than by `-z`/`-n`: a comparison with "", a length,
# a regular expression, a test of a lone word (`[ "$X" ]`) or of a file by its path (`[ ! -d
# "$X" ]`: no file has the empty path), arithmetic (deciding a guard parses the script again:
# only these shapes are worth it)
_EMPTY_SHAPED = lazy_compile(
    r"\"\"|''|\$\{#|=~|^\s*(?:\[\[?|test)\s+(?:!\s+)?\"?\$\{?\w+\}?\"?\s*(?:\]\]?)?\s*$"
    r"|-[bcdefghkprsuwxGLNOS]\s+\"?\$|^\s*\(\("
)
_NAME = lazy_compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
# a test (`[`, `[[`, `test`, `((`, negated or not): what the condition evaluator may decide
_TEST_SHAPED = lazy_compile(r"\s*(?:!\s*)?(?:\[|test\b|\(\()")
# `[ -z "${!v}" ]`, `[[ -n ${!v:-} ]]`: the variable a loop variable names, tested for empty
# (not with a default that is not empty, `${!v:-x}`, which never is: h39 F1)
_INDIRECT_TEST = lazy_compile(
    r"^\s*\[\[?\s+-([zn])\s+\"?\$\{!([A-Za-z_][A-Za-z0-9_]*|1)(?::?-)?\}\"?\s*\]\]?\s*$"
)


def _checked_by_name(exit_command: Command) -> set[str]:
    """`for v in MODEL_PATH PORT; do [ -z "${!v}" ] && exit 1; done`: each name of the loop's
    list (written plainly) whose emptiness, read through the loop variable, ends the script."""
    script = exit_command.script
    loops = set()
    for guard in exit_command.guards:
        text = script.text_of(guard.node)
        # (`[ -z "${!v}" ] && echo "$v unset" >&2 && exit 1`, as in a validator: h47 F4)
        match = _indirect_test(_MESSAGES.sub("", text) if guard.expect else text)
        if match is not None and (match.group(1) == "z") == guard.expect:
            loops.add(match.group(2))
    if not loops or not exit_command.loops:
        return set()
    found: set[str] = set()
    for loop in exit_command.loops:
        node = script.syntax(loop)
        variable = node.child_by_field_name("variable") if node.type == "for_statement" else None
        if variable is None or script.text_of(variable) not in loops:
            continue
        values = [script.text_of(v) for v in node.children_by_field_name("value")]
        if len(values) == 1 and (held := _names_held(script, values[0], loop)) is not None:
            values = held  # (`for v in "${REQUIRED[@]}"`, `for v in $REQUIRED`: h127 F2)
        if all(v.isidentifier() for v in values):
            found.update(values)
    return found


# a loop's one word that is a list held in a variable: `"${NAME[@]}"`, `$NAME`, `${NAME}`
_HELD_LIST = lazy_compile(r'"\$\{([A-Za-z_]\w*)\[@\]\}"|\$\{?([A-Za-z_]\w*)\}?')


def _names_held(script: Script, word: str, loop: Syn) -> list[str] | None:
    """The names a loop's word gives, where it is an array or a string the script gives one
    value, at its top level before the loop, written out (`REQUIRED=(MODEL PORT)`,
    `REQUIRED="MODEL PORT"`, split at blanks unquoted); None where that is not known."""
    match = _HELD_LIST.fullmatch(word)
    if match is None:
        return None
    array = match.group(1) is not None
    name = match.group(1) or match.group(2)
    given = [a for a in script.assignments if a.name == name]
    if len(given) != 1 or any(  # (`unset REQUIRED`, `unset 'REQUIRED[1]'`: h131 M4)
        c.base == "unset" and any(w.value.split("[", 1)[0] == name for w in c.args)
        for c in script.commands
    ):
        return None
    assignment = given[0]
    value = assignment.value
    if (
        value is None
        or assignment.kind not in ("assign", "declare", "readonly", "export")
        or assignment.command.function is not None
        or assignment.command.subshell
        or assignment.command.guards
        or assignment.node.start_byte > loop.start_byte
        or any(a.name == "IFS" for a in script.assignments)
    ):
        return None
    if array:
        items = value.items
        if items is None or not all(i.static for i in items):
            return None
        return [i.value for i in items]
    if value.items is not None or not value.static:
        return None
    return value.value.split()


# the words of a `for` loop over a function's arguments, one pass per argument
_ARGUMENTS = frozenset({'"$@"', '"${@}"', "$@", "${@}", "$*", "${*}"})


def _argument_loop(command: Command) -> str | None:
    """The variable of the one loop a command of a function's body runs in, where that loop
    passes over the function's arguments, one name each: `for v in "$@"`, `for v; do`. (Read
    from the loop's text: asking the tree would parse the script again and keep its tree.)"""
    if len(command.loops) != 1:
        return None
    loop = command.loops[0]
    if loop.type != "for_statement":
        return None
    header = _FOR_HEADER.match(command.script.text_of(loop))
    if header is None:
        return None
    words = header.group("words")
    words = words.replace("\\\n", " ") if words is not None else None
    if header.group("in") and (words is None or words.strip() not in _ARGUMENTS):
        return None  # (`for v in; do`: no pass; `for v in a b`: those words)
    return header.group("name")


# `for v in "$@"; do`, `for v do`, `for v; do` (its words, None where it has no `in`)
_FOR_HEADER = lazy_compile(
    r"for(?:\s|\\\n)+(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"(?:(?:[ \t]|\\\n)+(?P<in>in)(?P<words>(?:[ \t]|\\\n)+[^;\n]*?)?)?"
    r"(?:[ \t]|\\\n)*(?:(?<=[ \t])#[^\n]*\n)?[;\n]?(?:\s|#[^\n]*\n)*do\b"
)


def _when_named_empty(command: Command, variable: str) -> bool:
    """Whether every condition a command of the loop runs under is one test that holds when
    the variable the loop variable names is empty (`[ -z "${!v}" ] &&`, `[[ -n ${!v:-} ]]
    ||`), and nothing else."""
    if not command.guards:
        return False
    script = command.script
    tested = False
    for guard in command.guards:
        text = script.text_of(guard.node)
        if guard.expect and _MESSAGE.match(text) and not _PIPED.search(text):
            continue  # (`if ...; then echo "$v unset"; ... exit 1`)
        if guard.expect:  # (`[[ -z ${!v} ]] && echo "$v unset" >&2 && exit 1`: h39 N1)
            text = _MESSAGES.sub("", text)
        match = _indirect_test(text)
        if match is None or match.group(2) != variable or (match.group(1) == "z") != guard.expect:
            return False
        tested = True
    return tested


def _indirect_test(text: str) -> re.Match[str] | None:
    """`[ -z "${!v}" ]`, `[[ -n ${!v} ]]`: in `[`, quoted only (`[ -n ${!v} ]` with an empty
    value is `[ -n ]`, true: h41 F11)."""
    match = _INDIRECT_TEST.match(text)
    if match is None or text.lstrip().startswith("[[") or '"${!' in text:
        return match
    return None


# a message a condition runs before the exit (`... && echo "missing" >&2 && exit 1`)
_MESSAGE = lazy_compile(r"\s*(?:echo|printf)\s")
_LEADING_REDIRECT = lazy_compile(r"^\s*(?:[0-9]?>&?\s*\S+\s+)+")  # (`>&2 echo ...`: h50 F2)
_PIPED = lazy_compile(r"[|;`]|\$\(|&&")  # (`echo "$v" | grep -q x` tests something: h41 F12)


# `${#A[@]} -gt 0`, `"${#A[*]}" -ne 0`, `(( ${#A[@]} ))`: the array has an element (and its
# negation, `-eq 0`); `-n "${A[*]}"` (and `-z`)
_ARRAY_LENGTH = lazy_compile(
    r"^\s*(?:\[\[?\s+\"?\$\{#(\w+)\[[@*]\]\}\"?\s+(-gt|-ne|-eq|!=|==?)\s+\"?0\"?\s*\]\]?"
    r"|\(\(\s*\$\{#(\w+)\[[@*]\]\}\s*(?:(>|!=|==)\s*0\s*)?\)\)"
    r"|\[\[?\s+-([nz])\s+\"?\$\{(\w+)\[[@*]\]\}\"?\s*\]\]?)\s*$"
)


def _array_has_element(guard: Guard, name: str) -> bool | None:
    """Whether the guard holds once the array has an element (None: not a test of that)."""
    match = _ARRAY_LENGTH.match(guard.script.text_of(guard.node))
    if match is None:
        return None
    compared, operator, counted, arithmetic, emptiness, tested = match.groups()
    if (compared or counted or tested) != name:
        return None
    if compared is not None:
        holds = operator in ("-gt", "-ne", "!=")
    elif counted is not None:
        holds = arithmetic in (None, ">", "!=")
    else:
        holds = emptiness == "n"
    return holds == guard.expect


def validates_arguments(
    script: Script, function: str, returns: bool = False
) -> frozenset[str] | None:
    """Whether a function the script defines once ends the script when a variable one of its
    arguments names is empty, whatever else holds: a check of each name, `for v in "$@"; do [
    -z "${!v}" ] && exit 1; done`, or of each name into a list, then an exit when the list
    is not empty (`[ -n "${!v}" ] || missing+=("$v")`, then `[[ ${#missing[@]} -gt 0 ]] &&
    exit 1`, or a flag `missing=1` then `[ "$missing" = 1 ] && exit 1`). Its exit is an `exit`
    or a call of a function of the script that always exits, in the function's own shell; no
    `return` before it, no `shift`, `set`, `continue` or `break` in the body, nothing after
    the loop starts that changes the list or may (`unset`, `eval`, a call of another function),
    and the loop variable set nowhere else. The names it cannot check (its own: the loop
    variable, the list, a `local` of its body, `need name` checks its own `name`); None where
    it is no such function. (A name checked so is a validator's argument, as `check_env_vars X`
    is; differential tests hold it to bash.) With `returns`, whether it fails instead: its end
    may be a `return` of a status written out that is not 0 (`[ -z "${!v}" ] && return 1`), for
    a call whose failure ends the script (`need MODEL || exit 1`: `failed_call`)."""
    where = script.functions.get(function)
    body = sorted(script.body(function), key=lambda c: c.node.start_byte)
    if where is None or any(
        not where.start_byte <= c.node.start_byte < where.end_byte
        or c.base in ("shift", "set", "continue", "break")
        for c in body
    ):
        return None

    def ends(command: Command) -> bool:
        return not command.apart_from_script and (
            command.base == "exit"
            or (returns and command.base == "return" and nonzero_status(command))
            or (
                command.base in script.functions
                and command.base != function
                and always_exits(script, command.base)
            )
        )

    checks = [
        c
        for c in body
        if not c.apart_from_script
        and (variable := _argument_loop(c)) is not None
        and _when_named_empty(c, variable)
    ]
    if not checks:
        return _first_argument_checked(body, ends)
    if any(c.loops[0] != checks[0].loops[0] for c in checks):
        return None  # (two loops: not followed)
    loop = checks[0].loops[0]
    variable = _argument_loop(checks[0]) or ""
    collected = {  # a name the loop puts a checked name in: an array?
        a.name: a.value is not None and a.value.text.startswith("(")
        for c in checks
        for a in c.assignments
    }
    own = {variable, *collected} | {
        a.name for c in body for a in c.assignments if a.kind in ("local", "declare", "typeset")
    }
    for command in body:
        if command.base == "return" and not ends(command):
            return None  # (`[[ -n $SKIP ]] && return`: the check may not run)
        if any(
            a.name == variable
            and a.kind != "for"
            # (`local v` before the loop declares it, giving no value: h47 F3)
            and not (
                a.kind in ("local", "declare", "typeset")
                and a.value is None
                and command.node.end_byte <= loop.start_byte
            )
            for a in command.assignments
        ):
            return None  # (`v="SGL_$v"`: the loop variable names another)
        if command in checks:
            if ends(command):
                return frozenset(own)
            continue
        after = command.node.start_byte >= loop.start_byte
        if after and (
            any(a.name in collected for a in command.assignments)
            or command.base in ("unset", "eval")
            or (command.base in script.functions and not ends(command))
        ):
            return None  # (the list changed otherwise, or may be: `unset missing`, `reset`)
        if (
            command.node.start_byte >= loop.end_byte
            and collected
            and not command.loops
            and command.guards
            and ends(command)
            and _holds_once_collected(command, collected, variable)
        ):
            return frozenset(own)
    return None


# in `validates_arguments`' answer: the function checks the name of its first argument alone
# (`need() { local name="$1"; [[ -z "${!name:-}" ]] && exit 1; }`); no variable is named "1"
FIRST_ONLY = "1"
# `"$1"`, `$1`, `"${1}"`, `${1}`
_FIRST_ARGUMENT = lazy_compile(r'^("?)\$(?:1|\{1\})\1$')


def _first_argument_checked(
    body: list[Command], ends: Callable[[Command], bool]
) -> frozenset[str] | None:
    """`validates_arguments` for a function that checks only the variable its first argument
    names (h49 F3): through a name given `$1` once, at the body's top level, and never again
    (`local name="$1"`), or as `${!1}`; the check one test of it that ends (an `if` with a
    message, `[ -n "${!1}" ] || exit 1`), in no loop, with no `return` that does not end, no
    `eval` or `unset` in the body, and nothing between the name and its test that may change
    it (`_leaves_alone`, arithmetic). Its answer holds FIRST_ONLY, and the names it cannot
    check (the one holding the argument, a `local` of its body: `need name` checks `name`
    itself)."""
    own = {a.name for c in body for a in c.assignments if a.kind in _DECLARING}
    made: dict[str, list[tuple[Command, Assignment]]] = {}
    for command in body:
        for a in command.assignments:
            made.setdefault(a.name, []).append((command, a))
    holders: dict[str, Command] = {}
    for name, where in made.items():
        # (a bare `local name` before the one that gives it the argument aside)
        given = [(c, a) for c, a in where if not (a.kind in _DECLARING and a.value is None)]
        if len(given) != 1 or not name:
            continue
        command, a = given[0]
        if (
            a.kind in ("assign", *_DECLARING)
            and a.value is not None
            and _FIRST_ARGUMENT.match(a.value.text)
            and not (command.guards or command.loops or command.apart_from_script)
            and all(c.node.start_byte <= command.node.start_byte for c, _ in where)
            # (`local -n name=$1`: `${!name}` is the name itself; `-i`: its number; h53 S1, S2;
            # `-x`, `-a`, `-r` keep the name, h54 F3; not `-g`: `_KEEPING`)
            and all(_KEEPING.fullmatch(option) for option in _declaration_options(command))
        ):
            holders[name] = command
    integers = {
        a.name
        for c in body
        if any("i" in option for option in _declaration_options(c))
        for a in c.assignments
    }
    for name in integers:
        holders.pop(name, None)  # (`local -i name; name=$1`: the name's number: h55 S2)
    if any(_declares_number_or_reference(c) for c in body) or any(
        a.name in integers and a.value is not None and _ASSIGNING_VALUE.search(a.value.text)
        for c in body
        for a in c.assignments
    ):
        return None  # (a name reference may change the name through another: h54 S4; an
        # integer's assignment is arithmetic, `local -i x; x=name=0`: h55 S2)
    for command in body:
        if command.base in ("eval", "unset") or (command.base == "return" and not ends(command)):
            return None  # (`[[ -n $SKIP ]] && return 0`: the check may not run)
        if command.loops or command.apart_from_script or not ends(command):
            continue
        tested = min(g.node.start_byte for g in command.guards) if command.guards else 0
        for variable in (FIRST_ONLY, *holders):
            held = holders.get(variable)
            since = held.node.end_byte if held is not None else 0
            if held is not None and held.node.start_byte > command.node.start_byte:
                continue
            between = command.script.src[since:tested].decode("utf-8", errors="surrogateescape")
            if (variable != FIRST_ONLY and _assigns_by_arithmetic(between)) or not all(
                _leaves_alone(c, variable, frozenset())
                for c in body
                if since <= c.node.start_byte < tested
            ):
                # (a call or a `source` between may change it, h53 S3; so may arithmetic in
                # a test, which is no command of the model: `[[ name=0 -eq 0 ]]`, h55 S2)
                continue
            if _when_named_empty(command, variable):
                return frozenset({FIRST_ONLY, *own, *holders})
    return None


def _leaves_alone(command: Command, name: str, seen: frozenset[str]) -> bool:
    """Whether a command run between a validator's name for its argument and its test cannot
    change it (`name`: the holder, or FIRST_ONLY for `$1`): one in a shell of its own
    (`x=$(log ...)`), a call of a function of the script whose body leaves it alone (a called
    function has its own `$1`), or a builtin that assigns nothing (not `source`, which may
    also `shift`); not where an arithmetic expansion may assign (`: $((name=0))`), nor
    `printf -v`; h54 F1, F2, F4, S1-S3."""
    if command.apart_from_script:
        return True
    script = command.script
    base = command.base
    if name == FIRST_ONLY:  # (a called function has its own `$1`)
        if base in ("builtin", "command", "exec"):  # (`command -v curl`: h56 F4)
            base = next((w.value for w in command.args if not w.value.startswith("-")), None)
        return base in script.functions or base not in _POSITIONAL
    texts = [script.text_of(command.node), *(r.target.text for r in command.redirects)]
    if (
        any(_assigns_by_arithmetic(text) for text in texts)
        or any(a.name in (name, "") for a in command.assignments)
        or _declares_number_or_reference(command)
    ):
        return False
    if base in script.functions:  # (before the builtins' names: `echo() { ...; }`)
        if base in seen or len(seen) > 3:
            return False
        if _assigns_by_arithmetic(script.text_of(script.functions[base])):
            return False  # (in a test, no command of the model: `[[ name=0 -eq 0 ]]`)
        return all(_leaves_alone(c, name, seen | {base}) for c in script.body(base))
    if base == "printf" and any(w.value == f"-v{name}" for w in command.args):
        return False  # (`printf -vname`, joined, is read as no assignment; `-v name` is)
    # (in a function it calls, a `return` or `shift` is that function's own)
    return base in _QUIET or (bool(seen) and base in ("return", "shift"))


def _declares_number_or_reference(command: Command) -> bool:
    """`declare -n`, or `local -i` with a value that may assign (`local -i x=name=0`; not
    `local -i tries=0`: h56 F3): an option with `n`, or with `i` and an assignment's text with
    `=`, `++` or `--` in its value."""
    options = _declaration_options(command)
    return any("n" in option for option in options) or (
        any("i" in option for option in options)
        and any(
            a.value is not None and _ASSIGNING_VALUE.search(a.value.text)
            for a in command.assignments
        )
    )


def _declaration_options(command: Command) -> list[str]:
    """The options of a declaration as written, quoted ones too (`local "-i" x`, which the
    model keeps among no words: h55 S5)."""
    if command.base not in _DECLARING:
        return []
    options = []
    for word in command.script.text_of(command.node).split()[1:]:
        word = word.strip("\"'")
        if not word.startswith(("-", "+")):
            break
        options.append(word)
        if word == "--":
            break
    return options


# what may change a function's `$1` (also behind `builtin`, `command` or `exec`: h55 S3)
_POSITIONAL = frozenset({"source", ".", "eval", "set", "shift"})
# text where an arithmetic evaluation may assign a name: `((`, `$[`, a subscript (`a[name=0]`),
# an offset (`${x:name=0}`), a test's arithmetic operator (h54 S1, h55 S2; `-v` evaluates a
# subscript alone, which the subscript's own pattern finds)
_ASSIGNS_BY_ARITHMETIC = lazy_compile(
    r"\(\(|\$\[|\blet\s"
    # a subscript that assigns (`a[name=0]`, `${a[n++]}`, `([name=0]=x)`; not `${FUNCNAME[1]}`)
    r"|\[[^\]\n]*(?:[^=!<>\s]=[^=]|\+\+|--)[^\]\n]*\]"
    r"|\$\{[#!]?[\w@*]+:(?![-=?+])"
    # an operand of a test's arithmetic operator that assigns (`[[ name=0 -eq 0 ]]`)
    r"|(?:[^\s=!<>]=[^\s=]|\+\+|--)\S*\s+-(?:eq|ne|lt|le|gt|ge)\s"
    r"|\s-(?:eq|ne|lt|le|gt|ge)\s+\S*(?:[^\s=!<>]=|\+\+|--)"
)
_COMMENT = lazy_compile(r"(?m)(?:^|(?<=\s))#.*$")
# an integer's value that assigns when evaluated (`x=name=0`, `x=n++`)
_ASSIGNING_VALUE = lazy_compile(r"=|\+\+|--")


def _assigns_by_arithmetic(text: str) -> bool:
    """Whether arithmetic in the text may assign a name (`_ASSIGNS_BY_ARITHMETIC`), comments
    aside (`# usage: need VAR[=default]`: h56 F3)."""
    return bool(_ASSIGNS_BY_ARITHMETIC.search(_COMMENT.sub("", text)))


_DECLARING = ("local", "declare", "typeset")
# the options of a declaration that keep the argument's text as the name it holds: readonly,
# exported, an array's first element (not `-n`, `-i`, `-l`, `-u`; not `-g`, whose global a
# caller's local of the same name hides from `${!name}`: h55 S4)
_KEEPING = lazy_compile(r"--|-[rxa]+")
# builtins that may run between the name given `$1` and its test, changing neither
_QUIET = frozenset(
    {None, *_DECLARING, "readonly", "echo", "printf", ":", "true", "cd", "[", "[[", "test"}
)


def _in_force(owner: Script, function: str, where: Script, at: int) -> bool:
    """Whether a function of the script is defined where a call at byte `at` of `where` runs:
    not for a call at the top level before the definition (bash: `command not found`), nor
    after an `unset -f` of it (h53 S4). A call in a function's body, a definition inside one
    and a library's function are taken to be in force (when each runs is not followed)."""
    definition = owner.functions.get(function)
    if owner is not where or definition is None:
        return True
    ranges = [d for d in owner.functions.values() if d is not definition]
    if any(d.start_byte <= at < d.end_byte for d in ranges) or any(
        d.start_byte < definition.start_byte and definition.end_byte <= d.end_byte for d in ranges
    ):
        return True
    if at < definition.start_byte:
        return False
    return not any(
        c.function is None
        and not (c.apart_from_script or c.guards or c.loops)
        and definition.end_byte <= c.node.start_byte < at
        and _unsets_function(c, function, owner)
        for c in owner.commands
    )


def _unsets_function(command: Command, function: str, script: Script) -> bool:
    """`unset -f need`, `builtin unset -f need`; a plain `unset need` where the script gives
    no variable that name (bash then unsets the function: h56 S1); not `unset -fv`, which
    bash refuses (h56 F1)."""
    words = [w.value for w in command.invocation.words]
    while words and words[0] in ("builtin", "command"):
        words = words[1:]
    if not words or words[0] != "unset" or function not in words[1:]:
        return False
    options = [w for w in words[1:] if w.startswith("-")]
    if not options:
        return not any(a.name == function for c in script.commands for a in c.assignments)
    return any("f" in o for o in options) and not any("v" in o for o in options)


def checked_arguments(own: frozenset[str], arguments: Sequence[str]) -> list[str]:
    """The names a call checks, of the words it passes (`validates_arguments`' answer `own`):
    each, or only the first where the function checks no other, less the function's own."""
    chosen = arguments[:1] if FIRST_ONLY in own else arguments
    return [name for name in chosen if name not in own]


def failed_call(guard: Guard) -> tuple[str, list[str]] | None:
    """A condition that is a call a command runs under when it fails, with names written out
    as its arguments: `need MODEL PORT || exit 1`, `if ! need MODEL; then exit 1; fi` (the
    function's name and the names). None for anything else: a word that may be several or
    none, a redirection, a pipe, a prefix (`MODEL=x need MODEL`)."""
    words = _call_words(guard.script.text_of(guard.node))
    negated = bool(words) and words[0] == "!"
    words = words[1:] if negated else words
    if not words or guard.expect != negated or not all(_NAME.fullmatch(w) for w in words):
        return None
    return words[0], words[1:]


def failed_calls(guard: Guard) -> list[tuple[str, list[str]]]:
    """`failed_call`, and where the condition is a list of commands joined by `&&` that a
    command runs under when it fails (`need MODEL && need PORT || exit 1`: it runs when any
    of them fails), each of them that is such a call (h53 b19)."""
    call = failed_call(guard)
    if call is not None:
        return [call]
    if guard.expect or guard.node.type not in ("list", "redirected_statement"):
        return []
    src = guard.script.src[guard.node.start_byte : guard.node.end_byte]
    found = []
    for start, end in _and_leaves(src):
        words = _call_words(src[start:end].decode("utf-8", errors="surrogateescape"))
        if words and all(_NAME.fullmatch(w) for w in words):
            found.append((words[0], words[1:]))
    return found


def _call_words(text: str) -> list[str]:
    """A call's words as written, names unquoted, redirections of its output left out
    (`need "MODEL" 2>/dev/null`: h47 F3)."""
    return [
        _UNQUOTED.sub(lambda m: m.group(1) or m.group(2), word)
        for word in text.split()
        if not TO_OUTPUT.fullmatch(word)
    ]


@functools.lru_cache(maxsize=256)
def _and_leaves(text: bytes) -> tuple[tuple[int, int], ...]:
    """The commands a list joined by `&&` alone is made of (`a && b && c`: a, b and c), by
    their bytes in its text; none where it is no such list (the list parsed alone)."""
    node = _list_alone(text)
    if node is None:
        return ()
    leaves: list[tuple[int, int]] = []
    pending = [node]
    while pending:
        at = pending.pop()
        operator = next((c.type for c in at.children if c.type in ("&&", "||")), None)
        operands = _operands(at)
        if at.type != "list":
            leaves.append((at.start_byte, at.end_byte))
        elif operator == "&&" and len(operands) == 2:
            pending.extend(reversed(operands))
        else:
            return ()
    return tuple(leaves)


def _list_alone(text: bytes) -> Node | None:
    """A list's text parsed alone, its list node (through the program and its statement, and a
    redirection tree-sitter-bash reads as the whole list's: `a && b 2>/dev/null || exit 1`,
    h55 F4); None where it is no list."""
    from benchlint.shell.model import parse_tree

    node = parse_tree(text).root_node
    while node.type != "list":
        body = node.child_by_field_name("body") if node.type == "redirected_statement" else None
        if body is not None:
            node = body
        elif len(_operands(node)) == 1:
            node = _operands(node)[0]
        else:
            return None
    return node


def _operands(node: Node) -> list[Node]:
    """A node's named children but comments (`a && # why` then `b` on the next line: h55 F5)."""
    return [c for c in node.named_children if c.type != "comment"]


_UNQUOTED = lazy_compile(r"^\"([A-Za-z_][A-Za-z0-9_]*)\"$|^'([A-Za-z_][A-Za-z0-9_]*)'$")


def _holds_once_collected(command: Command, collected: dict[str, bool], variable: str) -> bool:
    """Whether each condition an exit runs under holds once a loop has put a name in one of
    the lists (or set the flag) it collects in: an array given the loop variable's own value
    (`missing+=("$v")`, a name, never empty), then tested for an element; a flag given a
    fixed value (`bad=1`), then tested as the condition evaluator decides; a string given the
    name (`bad="$bad $v"`), then tested only for being empty (`-n "$bad"`)."""
    for guard in command.guards:
        holds = False
        for name, array in collected.items():
            values = _collected_values(command, name, variable)
            if values is None:
                continue
            if array:
                holds = _array_has_element(guard, name) is True
            elif values:
                holds = all(
                    guards_hold(command.script, (guard,), _OneValue(name, value)) is True
                    for value in values
                )
            else:
                holds = _tests_not_empty(guard, name)
            if holds:
                break
        if not holds:
            return False
    return True


def _collected_values(command: Command, name: str, variable: str) -> list[str] | None:
    """The fixed values the loop of the command's function gives a flag (`bad=1`); none where
    every value holds the loop variable's (a name: `missing+=("$v")`, `bad="$bad $v"`); None
    where one may be empty (`bad="${!v}"`, `bad="$bad"`)."""
    values: list[str] = []
    named = 0
    for other in command.script.body(command.function or ""):
        for assignment in other.assignments:
            if assignment.name != name or not other.loops or assignment.value is None:
                continue
            word = assignment.value
            if word.static and word.value:
                values.append(word.value)
            elif any(r.name == variable and r.plain for r in word.reads()):
                named += 1
            else:
                return None
    if values and named:
        return None
    return values


# `-n "$bad"` (holds when not empty), `-z "$bad"` (when empty)
_EMPTINESS = lazy_compile(r"^\s*\[\[?\s+-([nz])\s+\"?\$\{?(\w+)\}?\"?\s*\]\]?\s*$")


def _tests_not_empty(guard: Guard, name: str) -> bool:
    """Whether the guard holds exactly when the variable is not empty."""
    match = _EMPTINESS.match(guard.script.text_of(guard.node))
    return match is not None and match.group(2) == name and (match.group(1) == "n") == guard.expect


def runs_when_unset(command: Command, name: str) -> bool | None:
    """Whether the command's conditions hold when the name is unset, every other variable
    unknown (`[ -n "${PORT:-}" ] && export PORT="$PORT"`: False); None where not decided."""
    if not command.guards:
        return True
    return guards_hold(command.script, tuple(command.guards), _OneValue(name, UNSET))


class _OneValue:
    """Values for the condition evaluator: one variable's value, every other unknown."""

    def __init__(self, name: str, value: str) -> None:
        self.name = name
        self.value = value

    def get(self, name: str, /) -> str | None:
        return self.value if name == self.name else None


# a variable a guard reads: `$X`, `${X}`, `${#X}`, `${X:-}`
_GUARD_READ = lazy_compile(r"\$\{?#?([A-Za-z_][A-Za-z0-9_]*)")


def _hold_when_empty(script: Script, guards: Sequence[Guard], name: str) -> bool | None:
    """Whether the guards hold when the name is empty, set to the empty text or unset (`[ -z
    "${X-x}" ]` tells them apart: h47 S5), every other variable unknown; None where that is
    not decided, or the two differ."""
    empty = guards_hold(script, tuple(guards), _OneValue(name, ""))
    if empty is None:
        return None
    return empty if guards_hold(script, tuple(guards), _OneValue(name, UNSET)) == empty else None


def _behind_in_shell(command: Command) -> str | None:
    """The builtin a command runs behind `command`, `builtin` or `time` (`command eval ...`),
    which runs in this shell; None for any other command."""
    if command.base not in IN_THIS_SHELL:
        return None
    return command.invocation.base


def always_exits(script: Script, function: str) -> bool:  # (cached by Environment)
    """A function whose body runs `exit` whatever happens (`die() { echo "$*" >&2; exit 1; }`)."""
    return _runs_whatever(script, function, lambda c: c.base == "exit" and not c.subshell)


def _always_fails(script: Script, function: str) -> bool:  # (cached by Environment)
    """A function whose body runs `false` whatever happens, in its own shell, under `set -e`
    (`die() { echo "$*" >&2; false; }`): where `set -e` also holds at the call, and bash does
    not ignore it there (a call a condition tests), it ends the script (h31 b09). `set -e` is
    the call's (one set after the definition holds); a body that turns it off anywhere is not
    taken."""
    if any(
        c.base == "set" and errexit_change([w.value for w in c.args]) is False
        for c in script.body(function)
    ):
        return False
    return _runs_whatever(
        script,
        function,
        lambda c: (
            (c.base == "false" and not c.tested and not c.apart_from_script)
            # (`fail() { echo ...; return 1; }`: the call's status fails it, h36 L07)
            or (c.base == "return" and nonzero_status(c) and not c.apart_from_script)
        ),
    )


def _errexit_surely(script: Script, command: Command) -> bool:
    """Whether `set -e` surely holds at a command (whose `errexit` says it may): the last
    `set` of the top level before it that changes it turned it on under no condition, or the
    `#!` line did and none changed it (a `set -e` in one branch of an `if` may not run: h36)."""
    if command.function is not None:
        # (a function's line: `set -e` where the function is called, at every call of the top
        # level, none a condition reads: `main() { need MODEL; ...; }; set -e; main`, h49 F2;
        # not where its body turns it off)
        calls = [c for c in script.commands if c.base == command.function and c.function is None]
        return (
            bool(calls)
            # (not one in a substitution or a pipeline's shell: `out=$(main)`, h50 S3)
            and all(
                not c.tested and not c.apart_from_script and _errexit_surely(script, c)
                for c in calls
            )
            and not any(
                c.base == "set" and errexit_change([w.value for w in c.args]) is False
                for c in script.body(command.function)
            )
        )
    at = command.node.start_byte
    sets = [
        (c, on)
        for c, on in script.errexit_sets()
        if c.node.start_byte < at and c.function is None and not c.apart_from_script
    ]
    if not sets:
        return script.errexit_at_start
    last, on = sets[-1]
    return on and not last.guards and not last.loops


def _runs_whatever(script: Script, function: str, ends: Callable[[Command], bool]) -> bool:
    """Whether the body of a function the script defines once runs such a command whatever
    happens: under no condition, in no loop (one that may run no pass), with no `return`
    before it (`[[ -n $SOFT ]] && return`: h35). A function defined twice: not known which
    definition a call runs, so not taken."""
    where = script.functions.get(function)
    body = sorted(script.body(function), key=lambda c: c.node.start_byte)
    if where is None or any(
        not where.start_byte <= c.node.start_byte < where.end_byte for c in body
    ):
        return False
    for command in body:
        if ends(command) and not command.guards and not command.loops:
            return True
        if command.base == "return":
            return False
    return False


def is_builtin(name: str, extra: list[str] | tuple[str, ...] = ()) -> bool:
    return name in BUILTIN_ENV or name.startswith(BUILTIN_PREFIXES) or name in extra


def command_at(script: Script, offset: int) -> Command | None:
    """The innermost command of the script around a byte offset."""
    inner = None
    for command in script.commands:
        node = command.node
        if node.start_byte <= offset < node.end_byte and (
            inner is None or node.start_byte >= inner.node.start_byte
        ):
            inner = command
    return inner


def appends(assignment: Assignment) -> bool:
    """`PORT+=x`: the value is added to the one the variable has (`Assignment.appends`)."""
    return assignment.appends


def _in_function(script: Script, offset: int) -> bool:
    """Whether the byte offset lies in the body of a function the script defines."""
    return any(node.start_byte <= offset < node.end_byte for node in script.functions.values())


def _validation_ends_script(script: Script, offset: int) -> bool:
    """Whether a `${X:?}` at the offset that stops its shell ends the script (`_ends_script`
    of the innermost command it is in): not in a pipeline's element whose failure nothing
    turns into the script's end (`echo "${MODEL:?}" | tee log`), nor in a job sent to the
    background. (One in a subshell or a substitution is taken to end it, as under `set -e` an
    assignment's does: not told apart here.)"""
    inner = command_at(script, offset)
    if inner is None:
        return True
    return not inner.background and (inner.apart is None or _ends_script(inner))


def _ends_script(exit_: Command) -> bool:
    """Whether an `exit` (or a validator, which exits) that runs ends the script: in its own
    shell, or in a subshell or a pipeline element whose failure `set -e` turns into the
    script's end (the last element of a pipeline, or any under `pipefail`), or whose status a
    condition reads (taken to: what the condition does with it is not followed); not in a job
    sent to the background."""
    if exit_.background:
        return False
    if not (exit_.subshell or exit_.apart) or (exit_.tested and not exit_.piped):
        return True  # (a subshell whose status a condition reads: `if ! ( ... ); then exit`)
    return exit_.errexit and (not exit_.piped or exit_.pipefail)


# a check's needs (`Environment._needs`): the conditions and the loops of the command that made
# it, one of which a command may not run under, and that command
Needs = tuple[tuple[Guard, ...], tuple[Syn, ...], Command]


def met_at(needs: Sequence[Needs], command: Command) -> bool:
    """Whether a check under conditions (`ScriptState.unmet`) counts where the command runs."""
    return bool(_met({"": list(needs)}, command))


def checker(needs: Sequence[Needs]) -> Command:
    """The command a check that may not have run was made by, to name (not a call whose
    success alone made it)."""
    return next((need[2] for need in needs if not _by_success(need)), needs[0][2])


def _met(conditional: dict[str, list[Needs]], command: Command | None) -> set[str]:
    """The names a check made under conditions or in loops checks where the command runs: one
    whose every condition the command runs under too (`_related`), and whose every loop that
    may not run the command is in (or in one written the same). Not where the command runs
    under one of them the other way (its `else`, a later `elif`). A command in a function:
    every such check, but one only a call's success makes (where the function is called is
    not followed here)."""
    if not conditional or command is None:
        return set()
    if command.function is not None:
        return {
            name
            for name, needs in conditional.items()
            if any(
                not _by_success(need)
                # (`start() { need MODEL && vllm ...; }`: the call's success in the same body,
                # a condition of the launch there; h53 F1)
                or (
                    need[2].script is command.script
                    and need[2].function == command.function
                    and all(any(_related(g, h) for h in command.guards) for g in need[0])
                )
                for need in needs
            )
        }
    script = command.script
    return {
        name
        for name, needs in conditional.items()
        if any(
            not any(
                g.node == h.node and (g.expect, g.patterns) != (h.expect, h.patterns)
                for g in guards
                for h in command.guards
            )
            and all(any(_related(g, h) for h in command.guards) for g in guards)
            and all(
                loop in command.loops
                or any(
                    _normal(script.text_of(loop)) == _normal(script.text_of(o))
                    for o in command.loops
                )
                for loop in loops
            )
            for guards, loops, _ in needs
        )
    }


def _related(guard: Guard, other: Guard) -> bool:
    """Whether a command under `other` runs under `guard` too, as far as can be told: the same
    statement the same way, or one of the same text the same way, quotes, `[[`/`[` and
    `==`/`=` aside (`if [[ "$MODE" == x ]]` twice, or as `[ $MODE = x ]`: taken to be the same
    condition written again, the variable not changed between: where it is, a silence; h48
    F4, h50 F1). Not another test of the same variable (`= y`, `-n` and `-z`: h50 S1)."""
    if guard.node == other.node:
        return guard.expect == other.expect and guard.patterns == other.patterns
    script = guard.script
    start, end = other.node.start_byte, other.node.end_byte
    if (
        guard.expect
        and other.expect
        and other.node.type == "list"
        and script is other.script
        and start <= guard.node.start_byte
        and guard.node.end_byte <= end
    ):
        # (`need MODEL && need PORT && vllm ...`: the launch runs under the list's success,
        # which is each `&&` operand's; not `need MODEL || need PORT && vllm`)
        at = guard.node.start_byte - start, guard.node.end_byte - start
        return _and_operand(script.src[start:end], *at)
    return (
        guard.expect == other.expect
        and script is other.script
        and _normal(script.text_of(guard.node)) == _normal(script.text_of(other.node))
        and [_normal(script.text_of(p)) for p in guard.patterns]
        == [_normal(script.text_of(p)) for p in other.patterns]
    )


@functools.lru_cache(maxsize=256)
def _and_operand(text: bytes, start: int, end: int) -> bool:
    """Whether the bytes `start`-`end` of a list's text (`a && b`) are a command the list's
    success says succeeded: the list itself, or an operand of `&&` in it, all the way down (the
    list parsed alone: a few words, not the script again)."""
    node = _list_alone(text)
    while node is not None:
        if (node.start_byte, node.end_byte) == (start, end):
            return True
        operator = next((c.type for c in node.children if c.type in ("&&", "||")), None)
        inside = [c for c in _operands(node) if c.start_byte <= start and end <= c.end_byte]
        if node.type != "list" or operator != "&&" or len(inside) != 1:
            return False
        node = inside[0]
    return False


def _normal(text: str) -> str:
    """A condition's text as compared: quotes dropped, `[[ ]]` as `[ ]`, `==` as `=`, blanks
    as one space."""
    text = re.sub(r"[\"']", "", text)
    text = re.sub(r"\[\[|\]\]", lambda m: m.group(0)[0], text).replace("==", "=")
    return " ".join(text.split())


def _by_success(needs: Needs) -> bool:
    """A check only the call's success makes (`need MODEL && ...`): not one to name where it
    did not count (the call itself ran)."""
    guards, loops, command = needs
    return not loops and len(guards) == 1 and guards[0].node == command.node


def _otherwise_ends(
    script: Script, guards: Sequence[Guard], index: int, functions: Mapping[str, Script]
) -> bool:
    """Whether the script ends wherever the command with these conditions does not get past
    the one at `index` (the others before it holding): the `if`'s other branch (or the `case`
    item an earlier item is) runs an exit, or a call of a function that always exits (`die`,
    `usage`), after nothing but messages (`echo ... >&2 && exit 1`) (`if [ -z "$MODEL" ]; then
    exit 1; elif [ -z "$PORT" ]; then exit 1; fi`, `if ...; then check; else die "..."; fi`:
    h48 F1, F2, h49 F1); for the command's own `case` item, every later item does and one of
    them is `*)`."""
    guard = guards[index]
    before = [(g.node, g.expect, g.patterns) for g in guards[:index]]

    def ending(command: Command, at: int) -> bool:
        """An exit of the script, under conditions past `at` that are only messages."""
        if command.loops or command.apart_from_script:
            return False
        owner = functions.get(command.base or "")
        if command.base != "exit" and not (
            owner is not None and always_exits(owner, command.base or "")
        ):
            return False
        return all(
            g.expect and _MESSAGE.match(_LEADING_REDIRECT.sub("", script.text_of(g.node)))
            for g in command.guards[at + 1 :]
        )

    def prefix(command: Command) -> bool:
        chain = command.guards
        return (
            len(chain) > index and [(g.node, g.expect, g.patterns) for g in chain[:index]] == before
        )

    if not guard.patterns or not guard.expect:  # (the other branch, or the earlier item matched)
        return any(
            prefix(c)
            and c.guards[index].node == guard.node
            and c.guards[index].patterns == guard.patterns
            and c.guards[index].expect != guard.expect
            and ending(c, index)
            for c in script.commands
        )

    def later_item(command: Command) -> tuple[tuple[Syn, ...], int] | None:
        """The later item of the `case` a command runs in where the item does not match (the
        model's guards: each earlier item false, then its own true), and its place."""
        chain = command.guards
        if len(chain) <= index + 1 or not prefix(command):
            return None
        first = chain[index]
        if first.node != guard.node or first.patterns != guard.patterns or first.expect:
            return None
        for j in range(index + 1, len(chain)):
            if chain[j].node != guard.node:
                return None
            if chain[j].expect:
                return chain[j].patterns, j
        return None

    items: dict[tuple[Syn, ...], bool] = {}  # the later items: does each end the script?
    for command in script.commands:
        item = later_item(command)
        if item is not None:
            patterns, at = item
            items[patterns] = items.get(patterns, False) or ending(command, at)
    return (
        bool(items)
        and all(items.values())
        and any(script.text_of(p) == "*" for patterns in items for p in patterns)
    )


def _runs_at_least_once(script: Script, loop: Syn) -> bool:
    """A `for` loop over words written out (`for v in MODEL PORT`), or over a list the script
    holds so (`for v in "${REQUIRED[@]}"`, `_names_held`): its body runs."""
    if loop.type != "for_statement":
        return False
    header = _FOR_HEADER.match(script.text_of(loop))
    words = header.group("words") if header is not None and header.group("in") else None
    if words is not None and len(words.split()) == 1:
        held = _names_held(script, words.strip(), loop)
        if held is not None:
            return bool(held) and all(_LITERAL_WORD.fullmatch(w) for w in held)
    return (
        words is not None
        and bool(words.split())
        and all(_LITERAL_WORD.fullmatch(w) for w in words.split())
    )


_LITERAL_WORD = lazy_compile(r"[A-Za-z0-9_.:/=+,@%-]+")


def _named_by_call(assignment: Assignment, call: Command) -> Assignment | None:
    """A function body's assignment to the name its call gives as a positional parameter
    (`read -r -a "$1"`, `printf -v "$1"`, `export "$1=$2"`, in the body of `split_to` called
    as `split_to ARGS ...`): an assignment of that name, of a value not known; None where the
    call gives no plain name there, the assignment is in another function's body, makes a
    local (`local "$1"`, `declare "$1"` without `-g`) or gives no value (`export "$1"`), or a
    `shift`, `set --`, `eval` or `source` before it in the body may have changed which word
    `$1` is."""
    command = assignment.command
    script = command.script
    text = script.text_of(assignment.node)
    match = _POSITIONAL_NAME.match(text)
    if match is None or command.function != call.base:
        return None
    declared = command.base in ("local", "declare", "typeset") and not any(
        w.static and w.value.startswith("-") and "g" in w.value for w in command.args
    )
    if declared or (command.base in ("export", "readonly") and "=" not in text):
        return None  # (`local "$1"`: the function's own, `declare -g` not; `export "$1"`: no
        # value; h78 R6, h79 R4)
    if any(  # (`shift`, `set --` before it: another argument; h78 R5)
        may_change_positionals(other) and other.node.start_byte < command.node.start_byte
        for other in script.body(command.function or "")
    ):
        return None
    index = int(match.group(1))
    args = call.args
    if index > len(args) or any(not w.static for w in args[:index]):
        return None
    name = args[index - 1].value
    if not name.isidentifier():
        return None
    return Assignment(name, None, assignment.node, assignment.command, "read", assignment.exported)


def _only_call(script: Script, function: str | None) -> Command | None:
    """The one call of the function in the script, where it has one."""
    if function is None:
        return None
    calls = script.memo.get("env calls")
    if not isinstance(calls, dict):
        made: dict[str, list[Command]] = {}
        for command in script.commands:
            if command.base in script.functions:
                made.setdefault(command.base, []).append(command)
        calls = script.memo["env calls"] = made
    found = calls.get(function, [])
    return found[0] if len(found) == 1 else None


# a name a positional parameter gives (`"$1"`, `${2}`, `"$1=$2"`, `$1=x`)
_POSITIONAL_NAME = lazy_compile(r"[\"']?\$\{?([1-9])\}?(?:[\"']?$|=)")


class Environment:
    def __init__(self, ws: Workspace, wiring: Wiring) -> None:
        self.ws = ws
        self.wiring = wiring
        self.calls = call_graph(ws)
        self._routes: dict[str, list[StartPath]] = {}
        self._file_states: dict[str, ScriptState] = {}
        self._visiting: set[str] = set()
        self._sourcing: set[str] = set()
        self._cuts: list[str] = []  # the files where a cycle of calls or sources was cut
        self._nonempty: dict[tuple[int, str], Provenance] = {}  # (`_nonempty_env`)
        # what this environment works out once per script is kept with the script (freed with
        # it: `Script.derived`), under this token
        self._token = object()

    # -- a script's own lines ---------------------------------------------------------------------
    def state_before(self, script: Script, before: int, at: Command | None = None) -> ScriptState:
        """What `script` (a file's top-level script) has done before byte offset `before`; with
        `at` (the command there), on the way to that command: a line in another branch of an
        `if` or `case` around it (a `source` of a file not found in the multi-node branch, an
        assignment in the `then` of an `export X="$X"` in the `else`) never ran before it."""
        return self.states_before(script, [before], at)[0]

    def states_before(
        self,
        script: Script,
        offsets: Sequence[int],
        at: Command | None = None,
        commands: Sequence[Command | None] | None = None,
    ) -> list[ScriptState]:
        """`state_before` at each offset, in one pass over the script. `commands`: the command
        at each offset, where a check made only under a condition or in a loop counts only if
        that command runs under it too (`[ -n "$STRICT" ] && check_env_vars MODEL`, then `vllm
        serve "$MODEL"`: no check where STRICT is empty; h39 F7); without them, any check
        counts."""
        order = sorted(range(len(offsets)), key=offsets.__getitem__)
        states: list[ScriptState | None] = [None] * len(offsets)
        # an assignment stands for its own Provenance until a snapshot: most are overwritten
        assigned: dict[str, Provenance | Assignment] = {}
        exported: dict[str, Provenance | Assignment] = {}
        validated: set[str] = set()
        # checks made under conditions or in loops the offset's command may not share: each
        # name's, with what it needs (`_needs`); only where the offsets' commands are given
        conditional: dict[str, list[Needs]] = {}
        # a name given a new value, not from itself, after a `${X:?}` before it: where (the
        # check was of the old value; those before the offset no longer count)
        stale: dict[str, int] = {}
        unknown: str | None = None
        unset: dict[str, Command] = {}
        functions: dict[str, Script] = dict.fromkeys(script.functions, script)
        posix = _posix_shell(script)
        changes, validations = self._state_changes(script)
        if at is not None:
            changes = [change for change in changes if not exclusive(change[1], at)]

        def checking(
            names: Iterable[str], command: Command, via: Command | None, exits: bool
        ) -> None:
            """Names a command checks (`exits`: by ending the script when one is empty, its own
            conditions then partly the check's), under what it needs (`_needs`)."""
            for name in names:
                needs = self._needs(command, via, name, exits, functions) if commands else None
                if needs:
                    conditional.setdefault(name, []).append(needs)
                else:
                    validated.add(name)

        def apply(
            command: Command,
            depth: int = 0,
            own: bool = False,
            shell: bool = True,
            detached: bool = False,
            ignored: bool = False,
            via: Command | None = None,
            hidden: frozenset[str] = frozenset(),
            caller: Command | None = None,
        ) -> None:
            """`own`: a command of the function the offset is in (its locals are there).
            `shell`: one that runs in the shell the offset is in; one in a shell of its own (a
            subshell, a pipeline's element, the background: `cat f | read PORT`, `( source
            x.sh )`) changes nothing there, though its exit may end the script (h29 S1).
            `detached`: one in a shell of its own taken as the script's (`_calling_shells`):
            the functions a file sourced there defines are not the script's. `ignored`: one of
            a function a condition calls, where bash ignores `set -e`. `via`: the call of the
            script's own lines the command runs in the body of (its conditions hold too).
            `hidden`: the names the functions it is called from make local (a function it
            calls assigns theirs, gone when they return: bash's scope is dynamic). `caller`:
            the call of the function whose body the command is in (`split_to ARGS "$LIST"`:
            its `read -r -a "$1"` assigns ARGS)."""
            nonlocal unknown
            for assignment in command.assignments if shell else ():
                if assignment.kind == "dynamic" and caller is not None:
                    assignment = _named_by_call(assignment, caller) or assignment
                kind = assignment.kind
                if hidden and assignment.name in hidden and kind != "dynamic":
                    continue
                if kind == "prefix" and not (posix and command.base in _SPECIAL_BUILTINS):
                    # (`PORT=1 cmd`: the command's alone, not the script's after it; bash keeps
                    # none, whatever the command: `X=1 :`, `X=1 export Y`, a function's call;
                    # `PORT=1 export PORT` makes it the shell's: `prefixed_declaration`. sh and
                    # dash keep those of a special builtin, POSIX's rule)
                    continue
                if own and kind == "local":
                    kind = "assign"
                if kind in _UNUSUAL:
                    if kind == "unexport":  # `export -n PORT` (`=value` still assigns)
                        exported.pop(assignment.name, None)
                        if assignment.value is not None:
                            assigned[assignment.name] = assignment
                    elif kind == "dynamic":
                        line = assignment.span.line
                        unknown = unknown or f"sets a variable named at run time (line {line})"
                    continue  # (a local is gone when the function returns)
                name = assignment.name
                value = assignment.value
                if (value is not None or kind in _ASSIGNING) and not (
                    # `export X="$X"` gives X no value of its own: still the caller's
                    value is not None and name not in assigned and value.variable() == name
                ):
                    assigned[name] = both_branches(assigned.get(name), assignment) or assignment
                    if unset:
                        unset.pop(name, None)
                    if not appends(assignment) and (
                        value is None or all(r.name != name for r in value.reads())
                    ):
                        # (`: "${PORT:?}"` then `PORT="$OTHER"`: the check was of the old value;
                        # not `PORT+=x`, which keeps it)
                        validated.discard(name)
                        conditional.pop(name, None)
                        stale[name] = command.node.start_byte
                if assignment.exported or (options["allexport"] and kind not in _NOT_GLOBAL):
                    exported[name] = assigned.get(name, assignment)
            base = command.base
            behind = _behind_in_shell(command)
            if base in VALIDATORS:
                if _ends_script(command):  # (its exit, as an `exit`'s, may end only a subshell)
                    checking((w.value for w in command.args if w.static), command, via, False)
            elif (
                base == "exit"
                or (own and base == "return")
                # (`[[ -n $PORT ]] || { echo ...; false; }` under `set -e`: its failure ends
                # the script, as an `exit` would: h29 F4)
                or (
                    base == "false"
                    and command.errexit
                    and not command.tested
                    # (in its own shell, and not in a function called where bash ignores `set
                    # -e`, `if ! f`, `f || ...`; a subshell's `set -e` is its own: h31)
                    and not command.apart_from_script
                    and not ignored
                )
            ):
                # (a `return` ends only its function: it checks for that function's later lines;
                # an `exit` in a subshell or a pipeline ends only that shell, whose failure ends
                # the script under `set -e` (a pipeline's from its last element, or any under
                # `pipefail`); in a job sent to the background, never)
                if _ends_script(command):
                    checking(self._empty_exit(command, functions), command, via, True)
            elif not shell:
                if base in functions and depth < 3 and self._always_exits(functions[base], base):
                    checking(self._empty_exit(command, functions), command, via, True)
                elif base in functions and _ends_script(command):  # (`( need MODEL ) || exit`)
                    checking(
                        self._validated_arguments(command, functions[base]), command, via, False
                    )
            elif base == "eval" or behind == "eval":
                unknown = unknown or "eval"  # (`command eval "$(cat port.env)"` too: h29 F3)
            elif base == "unset" or behind == "unset":
                # (`unset PORT`, `command unset PORT`: no value of the script's from here on)
                after = command.args if base == "unset" else command.invocation.words[1:]
                words = [w.value for w in after if w.static]
                if (
                    not any(w.startswith("-") and "f" in w for w in words)
                    and not command.apart_from_script
                ):
                    prefixed = _prefixed(command)
                    for name in words:
                        if name in prefixed:
                            continue  # (`X=1 unset X`: unsets the command's X, not the shell's)
                        assigned.pop(name, None)
                        exported.pop(name, None)
                        unset[name] = command
            elif base in functions and depth < 3:  # a call: what the body sets, set here
                owner = functions[base]
                in_force = _in_force(owner, base, command.script, command.node.start_byte)
                if in_force and (
                    self._always_exits(owner, base)  # `[[ -z $X ]] && die "..."`
                    or (
                        command.errexit
                        and not command.tested
                        and not ignored
                        and not command.apart_from_script
                        and _errexit_surely(command.script, command)
                        and self._always_fails(owner, base)
                    )
                ):
                    checking(self._empty_exit(command, functions), command, via, True)
                if _ends_script(command):
                    # (`need MODEL PORT`, with `need() { for v in "$@"; do [ -z "${!v}" ] &&
                    # exit 1; done; }`: as `check_env_vars MODEL PORT`)
                    checking(self._validated_arguments(command, owner), command, via, False)
                failing = self._validated_arguments(command, owner, returns=True)
                if failing and (
                    # (in a function, `set -e` is its callers': `_errexit_surely`)
                    (command.errexit or command.function is not None)
                    and not command.tested
                    and not ignored
                    and not command.apart_from_script
                    and _errexit_surely(command.script, command)
                ):
                    # (`set -e; need MODEL`, a `need` that fails: h47 F3)
                    checking(failing, command, via, False)
                elif failing and commands and not command.apart_from_script:
                    # (`need MODEL && vllm serve "$MODEL"`, `if need MODEL; then ...`: checked
                    # for the commands that run when the call succeeds)
                    succeeded = Guard(command.node, True, (), command.script)
                    for name in failing:
                        conditional.setdefault(name, []).append(((succeeded,), (), command))
                # (`PORT=8000 setport`: what the function assigns a prefix's variable is the
                # call's, gone when it returns)
                owner = functions[base]
                # (and what it assigns a name its body makes local first, `local PORT;
                # PORT=8000`, itself or through a function it calls: gone when it returns)
                own_locals = self._locals(owner, base)
                scoped = _prefixed(command) | own_locals
                kept = {n: (assigned.get(n), exported.get(n)) for n in scoped}
                sources = self._sources(owner)
                shared = self._calling_shells(owner)
                for inner in self._expansion(owner, base):
                    # (`f() ( PORT=1 )`, a `$(...)` in its body: the body's own shells, but
                    # for one that calls a function: `_calling_shells`)
                    own = not inner.apart_from_script or id(inner) in shared
                    away = detached or inner.apart_from_script
                    apply(
                        inner,
                        depth + 1,
                        shell=own,
                        detached=away,
                        ignored=ignored or command.tested,
                        via=via or command,
                        hidden=hidden | own_locals if own_locals else hidden,
                        # (`( f MODEL )`: what it assigns is the subshell's; h78 R7)
                        caller=None if command.apart_from_script else command,
                    )
                    if id(inner) in sources and own:
                        source(sources[id(inner)], functions_too=not away)
                for name, (was, was_exported) in kept.items():
                    for table, earlier in ((assigned, was), (exported, was_exported)):
                        if earlier is None:
                            table.pop(name, None)
                        else:
                            table[name] = earlier

        def source(call: Call, functions_too: bool = True) -> None:
            """What sourcing the call's files sets, set here (at the top level, or in the body
            of a function where it is called: `load_env() { source port.env; }`). Its functions
            only where the `source` runs in this shell (not one of `_calling_shells`)."""
            nonlocal unknown
            if call.known is not None:  # (what sourcing it sets is the profile's)
                venv = call.known is profile.VENV_ACTIVATE
                activated = Provenance(
                    f"the virtual environment {call.word.text} activates"
                    if venv
                    else f"{call.word.text}, which puts its tool on PATH",
                    Location(call.command.script.top.path, call.command.first_line_span),
                )
                assigned.update(dict.fromkeys(call.known["assigns"], activated))
                exported.update(dict.fromkeys(call.known["exports"], activated))
            elif not call.targets:
                unknown = unknown or f"sources {call.word.text}"
            for target in call.targets:
                sourced = self.file_state(target)
                for name, gone in sourced.unset.items():  # (`unset MODEL` in it)
                    assigned.pop(name, None)
                    exported.pop(name, None)
                    unset[name] = gone
                assigned.update(sourced.assigned)
                exported.update(sourced.exported)
                top = call.command.script.top
                if _allexport_at(top, call.command.node.start_byte):
                    exported.update(sourced.assigned)  # `set -a; source .env; set +a`
                validated.update(sourced.validated)
                unknown = unknown or sourced.unknown
                if functions_too and not call.command.apart_from_script:
                    functions.update(sourced.functions)
                if sourced.allexport is not None:  # (a file that turns on `set -a`, h29 F6)
                    options["allexport"] = sourced.allexport

        # the script's own functions, defined where their definitions run: one defined after a
        # `source` of a library that defines it too is the script's from there on (h29)
        definitions = self._top_definitions(script)
        defined = 0
        apart: list[tuple[Command, Call | None]] = []  # (commands in shells of their own)
        # (but a call of a function of the script in a shell of its own, `main "$@" | tee log`,
        # and what such a shell sets that a function called there reads, `( PORT=1; serve )`:
        # the function's body, elsewhere in the text, runs in that shell and reads it; taken as
        # the script's, as the body's state is its definition's: h30, `_calling_shells`)
        calling = self._calling_shells(script)
        # `set -a` where the script or a file it sourced last changed it (its own `set` at the
        # top level, in its shell): assignments after it are exported
        options: dict[str, bool | None] = {"allexport": None}
        allexport_sets = [
            (c.node.start_byte, on)
            for c, on in script.option_sets("allexport", "a")
            if c.function is None and not c.apart_from_script
        ]
        option_at = 0

        def define(until: int) -> None:
            nonlocal defined, option_at
            while defined < len(definitions) and definitions[defined][0] < until:
                functions[definitions[defined][1]] = script
                defined += 1
            while option_at < len(allexport_sets) and allexport_sets[option_at][0] < until:
                options["allexport"] = allexport_sets[option_at][1]
                option_at += 1

        position = 0
        for i in order:
            before = offsets[i]
            while position < len(changes) and changes[position][0] < before:
                command, call = changes[position][1], changes[position][2]
                position += 1
                define(command.node.start_byte)
                own = not command.apart_from_script or id(command) in calling
                if not own:  # (its own shell's: see below)
                    apart.append((command, call))
                apply(command, shell=own, detached=command.apart_from_script)
                if call is not None and own:
                    source(call)
            define(before)
            # inside a function, what its body did before the offset (`main() { PORT=8000;
            # export PORT="$PORT"; }`): on copies, as the next offsets do not see it
            body = self._body_before(script, before)
            # in a shell of its own (`( export X=1; use "$X" )`), what that shell did before
            inside = [(c, call) for c, call in apart if c.in_its_shell(before)]
            if body or inside:
                saved = (
                    dict(assigned),
                    dict(exported),
                    set(validated),
                    unknown,
                    dict(unset),
                    dict(stale),
                    {name: list(needs) for name, needs in conditional.items()},
                )
                for command, call in inside:
                    apply(command)
                    if call is not None:
                        source(call)
                # (a function a condition calls anywhere, `main || echo failed`: bash ignores
                # `set -e` in its body there, so a `false` in it is no check: h31 b13)
                tested = self._tested_call(script, body[0].function) if body else False
                # (its one call, where there is one: what `read -r "$1"` in it assigns)
                caller = _only_call(script, body[0].function) if body else None
                for command in body:
                    apply(
                        command,
                        own=True,
                        shell=not command.apart_from_script or command.in_its_shell(before),
                        ignored=tested,
                        caller=caller,
                    )
            made: dict[int, Provenance] = {}  # one Provenance per assignment: the dicts share
            checked: set[str] = set()
            # (`: "${MODEL:?}"` under a condition or in a loop: as a validator's call)
            expanded = conditional
            for start, name, in_body, expanding in validations:
                if start < before and (in_body or stale.get(name, -1) < start):
                    needs = (
                        self._needs(expanding, None, name, False, functions)
                        if commands and expanding is not None
                        else None
                    )
                    if needs is None:
                        checked.add(name)
                    else:
                        expanded = {**expanded, name: [*expanded.get(name, ()), needs]}
            met = _met(expanded, commands[i] if commands else None)
            states[i] = ScriptState(
                # (most entries of a script that sources a library are its Provenances)
                {
                    name: at if at.__class__ is Provenance else _provenance(at, made)
                    for name, at in assigned.items()
                },
                {name: _provenance(at, made) for name, at in exported.items()},
                validated | checked | met,
                unknown,
                dict(functions),
                dict(unset) if unset else {},
                options["allexport"],
                {
                    n: tuple(needs)
                    for n, needs in expanded.items()
                    if n not in met
                    and n not in validated
                    and n not in checked
                    and not all(_by_success(need) for need in needs)
                },
            )
            if body or inside:
                assigned, exported, validated, unknown, unset, stale, conditional = saved
        return [state for state in states if state is not None]

    def functions_before(self, script: Script, offsets: Sequence[int]) -> list[dict[str, Script]]:
        """`[state.functions for state in states_before(script, offsets)]` without the rest
        of those states (offsets where no `source` came between share one dict)."""
        changes = self._state_changes(script)[0]
        functions: dict[str, Script] = dict.fromkeys(script.functions, script)
        found: list[dict[str, Script]] = [functions] * len(offsets)
        definitions = self._top_definitions(script)
        defined = 0
        position = 0
        for i in sorted(range(len(offsets)), key=offsets.__getitem__):
            while position < len(changes) and changes[position][0] < offsets[i]:
                start, command, call = changes[position]
                position += 1
                for target in self._sourced_by(command, call, functions):
                    while defined < len(definitions) and definitions[defined][0] < start:
                        if functions[definitions[defined][1]] is not script:
                            functions = {**functions, definitions[defined][1]: script}
                        defined += 1
                    functions = {**functions, **self.file_state(target).functions}
            while defined < len(definitions) and definitions[defined][0] < offsets[i]:
                if functions[definitions[defined][1]] is not script:  # (defined again here)
                    functions = {**functions, definitions[defined][1]: script}
                defined += 1
            found[i] = functions
        return found

    def functions_at_end(self, script: Script) -> dict[str, Script]:
        """Where each function the script can call after its last line is defined:
        `state_before(script, end).functions` without the rest of that state."""
        return self.functions_before(script, [len(script.src) + 1])[0]

    def _body_before(self, script: Script, offset: int) -> list[Command]:
        """The state-changing commands of the function whose body holds `offset` (the
        innermost), before it."""
        inside = [
            (where.end_byte - where.start_byte, name)
            for name, where in script.functions.items()
            if where.start_byte < offset < where.end_byte
        ]
        if not inside:
            return []
        name = min(inside)[1]
        return [c for c in self._effects(script, name) if c.node.start_byte < offset]

    def _tested_call(self, script: Script, function: str | None) -> bool:
        """Whether a call of the function a condition tests (`if f`, `f || ...`, `! f`; not an
        element of a pipeline, whose shell keeps `set -e`: h36), itself or through a function
        that calls it (two calls deep), may come before the first call of it the top level
        surely makes plainly: bash ignores `set -e` in the body there. A plain call that surely
        runs first ends the script where the body fails (a tested one after it is never
        reached: h35); a call in a function the top level never calls, never runs."""
        tested: dict[str | None, bool] = script.derived("env-tested-calls", self._token, dict)
        if function not in tested:
            calls = self._calls_of(script, function, 0) if function is not None else []
            first = min((at for at, test, sure in calls if sure and not test), default=None)
            tested[function] = any(test and (first is None or at < first) for at, test, _ in calls)
        return tested[function]

    def _calls_of(self, script: Script, function: str, depth: int) -> list[tuple[int, bool, bool]]:
        """Each top-level call that runs the function (a call of a function that calls it, by
        that function's calls): its offset, whether a condition tests it on the way, and whether
        it surely runs (under no condition, in no loop)."""
        found: list[tuple[int, bool, bool]] = []
        for call in script.commands:
            if call.base != function or call.function == function:
                continue
            test = call.tested and not call.piped
            sure = not call.guards and not call.loops
            if call.function is None:
                found.append((call.node.start_byte, test, sure))
            elif depth < 2:
                for at, outer, surely in self._calls_of(script, call.function, depth + 1):
                    found.append((at, outer or test, surely and sure))
        return found

    def _always_exits(self, script: Script, function: str) -> bool:
        exiting: dict[str, bool] = script.derived("env-exiting", self._token, dict)
        if function not in exiting:
            exiting[function] = always_exits(script, function)
        return exiting[function]

    def _validated_arguments(
        self, command: Command, owner: Script, returns: bool = False
    ) -> set[str]:
        """The names a call of a function that checks the variables its arguments name
        validates (`validates_arguments`; `returns`: by failing): its arguments, less those the
        call's prefix gives (`MODEL=x need MODEL`) and the function's own names."""
        name = command.base or ""
        own = self._validating(owner, name, returns)
        if own is None:
            return set()
        if not _in_force(owner, name, command.script, command.node.start_byte):
            # (not defined there: the call fails, `command not found`, whatever the names
            # hold; it ends nothing itself: h56 F2)
            return {w.value for w in command.args if w.static} if returns else set()
        words = command.args[:1] if FIRST_ONLY in own else command.args
        skipped = own | _prefixed(command)
        return {w.value for w in words if w.static and w.value not in skipped}

    def _always_fails(self, script: Script, function: str) -> bool:
        failing: dict[str, bool] = script.derived("env-failing", self._token, dict)
        if function not in failing:
            failing[function] = _always_fails(script, function)
        return failing[function]

    def _needs(
        self,
        command: Command,
        via: Command | None,
        name: str,
        exits: bool,
        functions: Mapping[str, Script],
    ) -> Needs | None:
        """What a check of the name by this command (in the body of `via`, a call of the
        script's own lines) needs to have run where another command runs: the conditions it
        runs under that are not the check itself (for an exit, those that hold whenever the
        name is empty, `[ -z "$MODEL" ]`, `need MODEL ||`, are), and the loops it runs in that
        may not run (any but a `for` over words written out). None when it needs nothing."""
        script = command.script
        guards = [
            g
            for i, g in enumerate(command.guards)
            if not (exits and self._implied(g, name, command, functions))
            and not _otherwise_ends(script, command.guards, i, functions)
        ]
        loops = [loop for loop in command.loops if not _runs_at_least_once(script, loop)]
        named = command
        if via is not None and via is not command:
            outer = [
                g
                for i, g in enumerate(via.guards)
                if not _otherwise_ends(via.script, via.guards, i, functions)
            ]
            around = [loop for loop in via.loops if not _runs_at_least_once(via.script, loop)]
            guards += outer
            loops += around
            named = via if outer or around else command
        return (tuple(guards), tuple(loops), named) if guards or loops else None

    def _implied(
        self, guard: Guard, name: str, command: Command, functions: Mapping[str, Script]
    ) -> bool:
        """Whether the condition of an exit holds whenever the name is empty, whatever else
        holds (part of a check of it: `[ -z "$MODEL" ] &&`, `[ -n "$MODEL" ] ||`, `need MODEL
        ||` with a `need` that fails when a name it is given is empty, the test of a loop over
        names the exit is in, `[ -z "${!v}" ] &&` in `for v in MODEL PORT`: h48 S2), worked
        out once per condition and name."""
        script = guard.script
        implied: dict[tuple[int, str], tuple[Guard, bool]]
        implied = script.derived("env-implied", self._token, dict)
        known = implied.get((id(guard), name))
        if known is None:
            text = script.text_of(guard.node)
            text = _MESSAGES.sub("", text) if guard.expect else text
            calls = [call for call in failed_calls(guard) if name in call[1]]
            if calls:
                value = False
                for function, arguments in calls:
                    owner = functions.get(function)
                    own = self._validating(owner, function, True) if owner is not None else None
                    if own is not None and owner is not None:
                        at = guard.node.start_byte
                        if not _in_force(owner, function, script, at):
                            own = frozenset()  # (the call fails whatever the names hold)
                    value = value or (own is not None and name in checked_arguments(own, arguments))
            elif _indirect_test(text) is not None:
                value = name in _checked_by_name(command)
            else:
                read = _emptiness_terms(text)
                empty = _when_empty(read, name) if read is not None else None
                if empty is not None:
                    value = empty == guard.expect
                else:
                    value = _hold_when_empty(script, (guard,), name) is True
            known = implied[id(guard), name] = (guard, value)  # (the guard kept: its id)
        return known[1]

    def _empty_exit(self, command: Command, functions: dict[str, Script]) -> set[str]:
        """The variables whose emptiness sends the script to this exit (or call of a function
        that always exits), worked out once per command (states are worked out many times):
        its conditions' tests, and the names a call it runs under checks when the call fails
        (`need MODEL || exit 1`, with a `need` of the script or a file it sources that fails
        when a variable its arguments name is empty: h39 N2)."""
        exits: dict[int, tuple[Command, set[str]]]
        exits = command.script.derived("env-empty-exits", self._token, dict)
        known = exits.get(id(command))
        if known is None:  # (the command kept: its id not reused)
            known = exits[id(command)] = (command, _tested_for_empty(command))
        found = known[1]
        for guard in command.guards:
            for name, arguments in failed_calls(guard):
                if name not in functions:
                    continue
                failing = self._validating(functions[name], name, returns=True)
                if failing is None:
                    continue
                if not _in_force(functions[name], name, guard.script, guard.node.start_byte):
                    found = found | set(arguments)  # (the call fails whatever they hold)
                else:
                    found = found | set(checked_arguments(failing, arguments))
        return found

    def _validating(
        self, owner: Script, function: str, returns: bool = False
    ) -> frozenset[str] | None:
        """`validates_arguments`, once per function."""
        checking: dict[tuple[str, bool], frozenset[str] | None]
        checking = owner.derived("env-validating", self._token, dict)
        if (function, returns) not in checking:
            checking[function, returns] = validates_arguments(owner, function, returns)
        return checking[function, returns]

    def _effects(self, script: Script, function: str) -> list[Command]:
        """The commands of a function's body that change what state_before reports."""
        effects: dict[str, list[Command]] = script.derived("env-effects", self._token, dict)
        if function not in effects:
            sources = self._sources(script)
            effects[function] = [
                c
                for c in script.body(function)
                if c.assignments
                or c.base in _STATE_COMMANDS
                or c.base == "return"  # (for lines after it in the same body)
                or _behind_in_shell(c) in _STATE_COMMANDS
                # (a function of its own or of a file it sources: `check() { ... || die; }`
                # with the library's `die`, h36 L17)
                or c.base in self._callable(script)
                or id(c) in sources  # (`load_env() { source port.env; }`)
            ]
        return effects[function]

    def _expansion(self, script: Script, function: str) -> list[Command]:
        """`_effects` that change the state where the function is called: not its `local`
        declarations nor its assignments to the names those make its own (gone when it
        returns: `_locals`; a caller's check of a name a function makes local is still in
        force after the call), nor its `return`s, which matter only for its own later lines
        (`_body_before`)."""
        held: dict[str, list[Command]] = script.derived("env-expansion", self._token, dict)
        if function not in held:
            callable_ = self._callable(script)
            sources = self._sources(script)
            own = self._locals(script, function)
            held[function] = [
                c
                for c in self._effects(script, function)
                if any(
                    a.kind != "local" and (a.kind == "dynamic" or a.name not in own)
                    for a in c.assignments
                )
                or c.base in _STATE_COMMANDS
                or _behind_in_shell(c) in _STATE_COMMANDS
                or c.base in callable_
                or id(c) in sources
            ]
        return held[function]

    def _sourced_by(
        self, command: Command, call: Call | None, functions: dict[str, Script]
    ) -> list[str]:
        """The files a command of the script's top level sources: itself (`call`), or, a call
        of a function, what the function's body sources (`load_lib() { source lib.sh; }`)."""
        if call is not None:
            return list(call.targets)
        owner = functions.get(command.base or "")
        if owner is None or command.apart_from_script:
            return []
        sources = self._sources(owner)
        return [
            target
            for inner in self._effects(owner, command.base or "")
            if id(inner) in sources and not inner.apart_from_script
            for target in sources[id(inner)].targets
        ]

    def _locals(self, script: Script, function: str) -> frozenset[str]:
        """The names a function's body declares local (`local`, a `declare` in it), under no
        condition, before it assigns them otherwise, and no function of the script declares
        global (`declare -g`): its own while it runs."""
        held: dict[str, frozenset[str]] = script.derived("env-locals", self._token, dict)
        if function not in held:
            first: dict[str, str] = {}
            global_: set[str] = set()  # (`declare -g PORT=8000`: the global one, h30)
            for command in self._effects(script, function):
                for assignment in command.assignments:
                    kind = assignment.kind
                    if kind == "local" and (command.guards or command.apart_from_script):
                        kind = "assign"  # (`if ...; then local PORT; fi`: may not run)
                    if kind in ("declare", "typeset"):
                        global_.add(assignment.name)
                    if kind != "prefix":
                        first.setdefault(assignment.name, kind)
            global_ |= self._declared_global(script)  # (by a function it may call: h31)
            held[function] = frozenset(
                n for n, kind in first.items() if kind == "local" and n not in global_
            )
        return held[function]

    def _declared_global(self, script: Script) -> frozenset[str]:
        """The names a function of the script declares global (`declare -g PORT=8000`): one a
        caller made local is the global one there too (bash's dynamic scope stops at -g)."""
        return script.derived(
            "env-declared-global",
            self._token,
            lambda: frozenset(
                a.name
                for a in script.assignments
                if a.kind in ("declare", "typeset") and a.command.function is not None
            ),
        )

    def _sources(self, script: Script) -> dict[int, Call]:
        """The script's `source` calls, by the id of their command."""
        return script.derived(
            "env-sources",
            self._token,
            lambda: {id(c.command): c for c in self.calls.calls_in(script) if c.kind == "source"},
        )

    @staticmethod
    def _top_definitions(script: Script) -> list[tuple[int, str]]:
        """Where the script's own functions are defined at its top level (in no other function's
        body), in text order: (start offset, name)."""
        spans = script.functions
        return sorted(
            (where.start_byte, name)
            for name, where in spans.items()
            if not any(
                other != name and o.start_byte < where.start_byte and where.end_byte <= o.end_byte
                for other, o in spans.items()
            )
        )

    def _state_changes(
        self, script: Script
    ) -> tuple[list[tuple[int, Command, Call | None]], list[tuple[int, str, bool, Command | None]]]:
        """The script's commands that change what state_before reports, in text order, with
        their start offsets and `source` calls; and its validating expansions (`${X:?}`)."""
        return script.derived("env-changes", self._token, lambda: self._find_changes(script))

    def _callable(self, script: Script) -> frozenset[str]:
        """The functions a call of the script can reach: its own and those of the files it
        sources (worked out once per script: `_function_reads` asks for each command)."""

        def find() -> frozenset[str]:
            callable_ = set(script.functions)
            for source in self._sources(script).values():
                for target in source.targets:
                    library = self.ws.shell(target)
                    callable_ |= set(library.functions) if library is not None else set()
            return frozenset(callable_)

        return script.derived("env-callable", self._token, find)

    def _calling_shells(self, script: Script) -> set[int]:
        """The ids of the commands in a shell of their own (a subshell, a pipeline's element, a
        group sent to the background) taken as the script's: a call of one of its functions
        (`main "$@" | tee log`, `serve &`), and a command that assigns, or sources a file that
        sets, a name a function called in that shell reads (`( PORT=1; serve )`; not `( PORT=1;
        log started )`), or a file not resolved."""

        def find() -> set[int]:
            callable_ = self._callable(script)
            called = sorted(
                (c.node.start_byte, c.base or "") for c in script.commands if c.base in callable_
            )
            starts = [start for start, _ in called]
            found = set()
            for command in script.commands:
                if not command.apart_from_script:
                    continue
                if command.base in callable_:
                    found.add(id(command))
                    continue
                # (an assignment there, or what a `source` there sets, only where a function
                # called there reads it, `( PORT=1; serve )`, not a `log` that reads none: h31)
                names = {a.name for a in command.assignments}
                call = self._sources(script).get(id(command))
                for target in call.targets if call is not None else ():
                    names |= set(self.file_state(target).assigned)
                sourced = call is not None and not call.targets  # (not resolved: any)
                for shell in (command.apart, command.group, command.subshell):
                    if shell is None:
                        continue
                    at = bisect.bisect_left(starts, shell.start_byte)
                    inside = []
                    while at < len(called) and called[at][0] < shell.end_byte:
                        inside.append(called[at][1])
                        at += 1
                    reads = [self._function_reads(script, name) for name in inside]
                    if inside and (sourced or any(r is None or names & r for r in reads)):
                        found.add(id(command))
                        break
            return found

        return script.derived("env-calling-shells", self._token, find)

    def _function_reads(
        self, script: Script, function: str, depth: int = 0
    ) -> frozenset[str] | None:
        """The names a function of the script reads, itself or through the script's functions
        it calls; None for one another file defines (not read here: any)."""
        if function not in script.functions:
            return None
        held: dict[str, frozenset[str] | None] = script.derived(
            "env-function-reads", self._token, dict
        )
        if function in held:
            return held[function]
        held[function] = frozenset()  # (a recursion reads what it reads)
        names: set[str] = set()
        result: frozenset[str] | None = None
        for command in script.body(function):
            words = [*command.words, *(a.value for a in command.assignments if a.value)]
            names.update(r.name for w in words for r in w.reads())
            names.update(r.name for g in command.guards for r in g.reads)
            callee = command.base
            if callee and callee != function and callee in self._callable(script) and depth < 3:
                more = self._function_reads(script, callee, depth + 1)
                if more is None:
                    break
                names |= more
        else:
            result = frozenset(names)
        held[function] = result
        return result

    def _find_changes(
        self, script: Script
    ) -> tuple[list[tuple[int, Command, Call | None]], list[tuple[int, str, bool, Command | None]]]:
        sources = self._sources(script)
        # functions a call can reach: this script's and those of the files it sources
        callable_ = self._callable(script)
        changes: list[tuple[int, Command, Call | None]] = []
        for command in script.commands:
            if command.function is not None:
                continue  # a function's body runs where the function is called
            call = sources.get(id(command))
            if (
                call is not None
                or command.assignments
                or command.base in _STATE_COMMANDS
                or command.base in callable_
                or _behind_in_shell(command) in _STATE_COMMANDS
            ):
                changes.append((command.node.start_byte, command, call))
        # (with whether it is in a function's body, which runs where it is called: a new
        # value before it in the text does not make it stale, h41 N4)
        validations = [
            (
                e.node.start_byte,
                e.name,
                _in_function(script, e.node.start_byte),
                command_at(script, e.node.start_byte),
            )
            for e in script.expansions
            if e.validates and _validation_ends_script(script, e.node.start_byte)
        ]
        return changes, validations

    def file_state(self, path: str) -> ScriptState:
        """Everything a sourced file sets (all of it: the caller sees it once `source` returns)."""
        if path in self._file_states:
            return self._file_states[path]
        if path in self._sourcing:
            self._cuts.append(path)  # a cycle of sources ends here
            return ScriptState()
        mark = len(self._cuts)
        self._sourcing.add(path)
        try:
            script = self.ws.shell(path)
            state = (
                ScriptState() if script is None else self.state_before(script, len(script.src) + 1)
            )
        finally:
            self._sourcing.discard(path)
        if self._complete_since(mark, path):
            self._file_states[path] = state
        return state

    def _complete_since(self, mark: int, path: str) -> bool:
        """Whether what was computed for `path` since `mark` is its answer from any caller: no
        cycle was cut on the way except at `path` itself (a result cut short at another file
        is that caller's view; caching it would make findings depend on the order files are
        looked at)."""
        return all(cut == path for cut in self._cuts[mark:])

    # -- callers ----------------------------------------------------------------------------------
    def routes(self, path: str) -> list[StartPath]:
        if path in self._routes:
            return self._routes[path]
        if path in self._visiting:
            self._cuts.append(path)
            return []
        mark = len(self._cuts)
        self._visiting.add(path)
        try:
            routes = self._launcher_routes(path)
            if not routes:  # a launcher's callers are its workflows; others need the call graph
                routes = self._caller_routes(path)
        finally:
            self._visiting.discard(path)
        if self._complete_since(mark, path):
            self._routes[path] = routes
        return routes

    def launcher_start_files(self, path: str) -> list[str] | None:
        """The files a launcher's routes are located in (its master-config entries, else the
        workflows), known without building it; None for a script that is not a launcher."""
        if not self.wiring.is_launcher(path):
            return None
        pairs = self.wiring.pairs
        files = {pairs[i][0].path for i in self.wiring.pairs_of_launcher.get(path, ())}
        return sorted(files or {step.location.path for step in self.wiring.steps})

    def _launcher_routes(self, path: str) -> list[StartPath]:
        """One route per search-space element routed here; without master-config entries for
        this launcher, one per workflow step that runs launchers."""
        if not self.wiring.is_launcher(path):
            return []
        routes = []
        # one Provenance per step and per entry, shared by its routes (thousands of routes on a
        # large repository, each with the step's whole environment)
        steps: dict[int, dict[str, Provenance]] = {}
        # (the value an entry gives each name is not empty: one Provenance per entry)
        entries: dict[int, Provenance] = {}
        for wired in self.wiring.routes_for_launcher(path):
            step, element = wired.step, wired.element
            env = {}
            if step is not None:
                if id(step) not in steps:
                    steps[id(step)] = self._step_env(step)
                env = dict(steps[id(step)])
            entry = element.entry
            if id(entry) not in entries:
                entries[id(entry)] = Provenance(f"entry {entry.name}", entry.location, True)
            given = entry_environment(element)
            if step is not None and entry.step is not None:  # a call: its literal inputs
                for name in nonempty_from_call(step, entry.fields, entry.nonempty):
                    env[name] = self._nonempty_env(step, name)
            elif step is not None:  # a master config's entry: the values the sweep gives
                for name in nonempty_from_entry(step, wired.env.known):
                    env[name] = entries[id(entry)]
                for name in typed_from_sweep(step, entry.multinode):
                    env[name] = self._nonempty_env(step, name)
            exported = step is None or entry.step is not None
            for name, value in given.items():
                if (exported or name not in ELEMENT_NAMES) and value.strip() not in NULL:
                    env.setdefault(name, entries[id(entry)])
            for name, setting in element.settings.items():
                env[name] = Provenance(
                    f"additional-settings of {element.entry.name}", setting.location
                )
            routes.append(
                StartPath(
                    f"entry {element.entry.name}", env, True, element.entry.location, route=wired
                )
            )
        if routes:
            return routes
        if self.calls.callers_of(path):
            return []  # (a launcher another one runs, `bash runners/launch_x.sh`: its callers')
        idle = bool(self.wiring.pairs)  # (entries reach other launchers, none this one)
        for step in self.wiring.steps:
            env = self._step_env(step)
            routes.append(StartPath(step.name, env, True, step.location, idle=idle))
        return routes

    def _nonempty_env(self, step: LauncherStep, name: str) -> Provenance:
        """The step's `env:` value of a name that is not empty on a call's routes (one
        Provenance per step and name, shared by the routes)."""
        key = (id(step), name)
        known = self._nonempty.get(key)
        if known is None:
            known = self._nonempty[key] = Provenance(f"env of {step.name}", step.env[name], True)
        return known

    @staticmethod
    def _step_env(step: LauncherStep) -> dict[str, Provenance]:
        """The step's environment, and the names an earlier step of its job may write to
        `GITHUB_ENV` (the runner sets them for the later steps)."""
        env = {
            name: Provenance(f"env of {step.name}", location, name in step.nonempty)
            for name, location in step.env.items()
        }
        written = Provenance(f"GITHUB_ENV before {step.name}", step.location)
        for name in step.written:
            env.setdefault(name, written)
        return env

    def _reaches(self, route: Route, call: Call, path: str) -> bool:
        """Whether a launcher's route may run the call, with a path that may name `path`
        there (`bash benchmarks/${MODEL_CODE}_mi355x.sh` names one model's script per entry)."""
        if route.runs(call.command) is False:
            return False
        from benchlint.releases import call_names  # (it reads the environment)

        return call_names(self.ws, route, call, path)

    def caller_starts(self, path: str) -> list[StartPath]:
        """One way in per call of the script, with what the caller passes it whatever reached
        the caller (not complete): the ways in where no route of the caller's takes the call
        (a launcher's call no entry's values make: `${FRAMEWORK_SUFFIX}` of a framework no
        entry has)."""
        return [self._caller_start(call)[0] for call in self.calls.callers_of(path)]

    def _caller_start(self, call: Call) -> tuple[StartPath, ScriptState, dict[str, Provenance]]:
        top = call.caller.top  # a call inside `bash -c "..."`: the outer command's state
        state = self.state_before(top, call.command.file_offset)
        passed = passed_on(call.command, state, call.kind == "source")
        span = call.command.first_line_span
        checked = frozenset(state.validated)
        only = container_passes(call.command)  # a container sees only what it is given
        kept = checked if only is None else checked & only
        location = Location(top.path, span)
        start = StartPath(f"{top.path}:{span.line}", passed, False, location, kept)
        return start, state, passed

    def _caller_routes(self, path: str) -> list[StartPath]:
        routes: list[StartPath] = []
        for call in self.calls.callers_of(path):
            start, state, passed = self._caller_start(call)
            name, location = start.name, start.location
            complete = state.unknown is None
            upstream = self.routes(call.caller.top.path)
            checked = frozenset(state.validated)
            only = container_passes(call.command)
            if not upstream:
                routes.append(start)
            # (a value the caller assigns a variable that reached it, exported: `MODEL=""`
            # before `docker run -e MODEL` passes the empty value; t53a)
            inherited = {n: p for n, p in state.assigned.items() if n not in passed}
            # (and one it unsets: `unset MODEL` before `docker run -e MODEL` passes none)
            unset = {n: c for n, c in state.unset.items() if n not in passed}
            before = len(routes)
            for route in upstream:
                if route.route is not None and not self._reaches(route.route, call, path):
                    continue  # (an entry whose job does not run the call, or runs another file)
                # what the caller passes over what reached the caller: a view, not a copy (a
                # script called from a launcher has a route per entry, each with ~100 names;
                # read only: ChainMap's type asks for maps it could write to)
                changed = {n: p for n, p in inherited.items() if n in route.env}
                under = _without(route.env, unset) if unset else route.env
                maps = (passed, changed, under) if changed else (passed, under)
                if route.route is not None and call.caller.top is route.route.launcher.script:
                    # (`MODEL="${1%%_*}"`: the launcher's value on this route, where its
                    # route's values give one that is not empty)
                    given = _route_nonempty(route.route, maps[:-1])
                    maps = (given, *maps) if given else maps
                env = ChainMap(*maps)
                kept = route.validated | checked
                # (the launcher this route's launcher hands over to, `exec bash other.sh`: the
                # route goes on there, its conditions decided by the entry's values, h107 F1)
                handed = route.route is not None and _hands_over(route.route, call)
                routes.append(
                    StartPath(
                        f"{route.name} -> {name}",
                        env,
                        complete and route.complete,
                        location,
                        kept if only is None else kept & only,
                        route=route.route if handed else None,
                        idle=route.idle,
                    )
                )
            if upstream and len(routes) == before:
                # no entry's job runs the call with this path (a path no entry's values make):
                # as for a launcher no entry reaches, the environment of the workflow steps
                # that start the caller stands for values no job gives it (t67a)
                steps = {
                    id(r.route.step): r.route.step for r in upstream if r.route and r.route.step
                }
                for step in steps.values():
                    env = ChainMap(passed, self._step_env(step))
                    kept = checked if only is None else checked & only
                    routes.append(
                        StartPath(
                            f"{step.name} -> {name}", env, complete, location, kept, idle=True
                        )
                    )
        return routes


def _hands_over(route: Route, call: Call) -> bool:
    """Whether the call is one of the `exec`s by which the route was handed over from launcher
    to launcher (the wiring's route goes on in each, to the last: h108 F1)."""
    return any(call.command is end for end in route.via)


def _route_nonempty(
    route: Route, layers: Sequence[Mapping[str, Provenance]]
) -> dict[str, Provenance]:
    """The names a launcher passes whose value its own assignment gives, which may be empty as
    written (`MODEL="${1%%_*}"`) and is not on this route: the assignment runs there, at the
    launcher's top level, and the route's values (its entry's, the workflow's, the arguments of
    its launch line: `$1` before any `shift` or `set --`) expand it to a text that is not empty."""
    found: dict[str, Provenance] = {}
    for layer in layers:
        for name, provenance in layer.items():
            at = provenance.at
            if name in found or provenance.nonempty or not isinstance(at, Assignment):
                continue
            value, command = at.value, at.command
            if value is None or command.script is not route.launcher.script:
                continue
            if command.function is not None or command.loops or route.runs(command) is not True:
                continue
            text = value.text
            if POSITIONAL_REF.search(text):
                if positionals_changed_before(command):
                    continue
                text = POSITIONAL_REF.sub(r"$\1__P\2", text)
            expanded = route.expand(text, command, positional=True)
            if expanded:
                found[name] = Provenance(provenance.what, at, True)
    return found


def _without(env: Mapping[str, Provenance], unset: dict[str, Command]) -> Mapping[str, Provenance]:
    """What reached a caller less what it unsets before it passes it on: a name an `unset`
    that surely runs removes is gone; one unset under a condition may be (its value then not
    known to be set)."""
    if not any(name in env for name in unset):
        return env
    flat = dict(_flat(env))
    for name, command in unset.items():
        known = flat.get(name)
        if known is None:
            continue
        if not command.guards and command.function is None:
            del flat[name]
        else:
            line = command.span.line
            where = f"{command.script.path}:{line}"
            flat[name] = Provenance(f"{known.what}, unset under a condition at {where}")
    return flat


# set by an image or the container runtime: a script that reads them sees the image's value
_RUNTIME = frozenset({"PATH", "HOME", "HOSTNAME", "LANG", "PWD", "SHLVL", "TERM", "USER"})
_RUNTIME_PREFIXES = ("CUDA_", "NVIDIA_", "LD_", "PYTHON", "LC_", "ROCM_", "HIP_", "HSA_")


def set_by_image(name: str) -> bool:
    """A name a container image, a toolkit in it or the runtime sets (`CUDA_HOME`, `PATH`):
    a script that reads it without setting it sees their value."""
    return name in _RUNTIME or name.startswith(_RUNTIME_PREFIXES)


_LOGGING = frozenset({"echo", "printf"})


@dataclass
class Use:
    """The first use of a variable in a script: where, and how."""

    offset: int
    span: Span
    how: str  # "required" | "tested" | "read"


def first_uses(environment: Environment, script: Script, names: set[str]) -> dict[str, Use]:
    """The first use of each name in the script that it does not assign before: required (a
    validator, or `${X:?}`, that surely runs, or a bare read that surely runs after the script
    surely turned on `set -u`: bash stops there, "unbound variable"), tested (in a condition,
    or a validator that may not run) or read (not by `echo` or `printf`)."""
    uses: dict[str, Use] = {}
    strict = nounset_from(script)

    def note(name: str, offset: int, span: Span, how: str) -> None:
        if name not in names:
            return
        known = uses.get(name)
        if known is not None and known.offset < offset:
            return
        if known is not None and known.offset == offset and how != "required":
            return  # (one command's: `export MODE="${MODE:?}"` requires it, h29 S10)
        if name in environment.state_before(script, offset).assigned:
            return
        uses[name] = Use(offset, span, how)

    for command in script.all_commands():
        offset = command.file_offset
        if command.base in VALIDATORS:  # (under a condition, or in a function: a test)
            surely = not command.guards and command.function is None
            for word in command.args:
                if word.static:
                    note(word.value, offset, word.span, "required" if surely else "tested")
        # (this shell surely expands the word: a command of the top level that surely runs,
        # in this shell, not in a loop, a subshell, a pipeline's element or the background)
        stops = (
            strict is not None
            and offset > strict
            and _surely_here(command, script)
            and not command.guards
        )
        for word in command.words:
            # (not one inside a substitution: its own shell stops, this one goes on)
            direct = stops and "$(" not in word.text and "`" not in word.text
            reads = word.reads()
            for read in reads:
                # (not one in an operand bash expands only on a condition: `${PORT:-$port}`)
                if direct and _unbound_stops(read) and conditional_outer(read, reads) is None:
                    note(read.name, offset, read.span, "required")  # (echo's too)
                elif command.base not in _LOGGING and read.operator != ":?":
                    note(read.name, offset, read.span, "read")  # (`${X:?}`: below)
        for assignment in command.assignments:
            if assignment.value is not None:
                value = assignment.value
                # (`X=$EP` after `set -u`: bash stops there too; h100 M2)
                direct = stops and "$(" not in value.text and "`" not in value.text
                reads = value.reads()
                for read in reads:
                    stopped = direct and _unbound_stops(read)
                    stopped = stopped and conditional_outer(read, reads) is None
                    note(read.name, offset, read.span, "required" if stopped else "read")
        # (at the command's offset: a guard's own is its shell's; the outermost condition of
        # a command at the top level, out of loops, is tested whenever the script gets there,
        # every read of it where it is one test: `[[ A || B ]]` may not read B)
        top = _surely_here(command, script)
        for index, guard in enumerate(command.guards):
            at = guard.node.start_byte
            condition = script.src[at : guard.node.end_byte]
            surely = top and index == 0 and strict is not None and at > strict
            surely = surely and _ONE_TEST.fullmatch(condition) is not None
            for read in guard.test_reads:
                fails = surely and _unbound_stops(read)
                fails = fails and conditional_outer(read, guard.test_reads) is None
                note(read.name, offset, read.span, "required" if fails else "tested")
    for expansion in script.expansions:
        start = expansion.node.start_byte
        if (
            expansion.validates
            and _unguarded_at(script, start)
            and _validation_ends_script(script, start)
        ):
            # (at its command's start: before what the command assigns, `export
            # MODE="${MODE:?}"`, which needs it first)
            holder = command_at(script, start)
            at = holder.file_offset if holder is not None else start
            note(expansion.name, at, script.span(expansion.node), "required")
    return uses


# the expansions that are no error on an unset name under `set -u`
_NOUNSET_SAFE = CONDITIONAL_OPERATORS
# a condition that is one test, with no substitution: each of its reads is expanded
_ONE_TEST = lazy_compile(rb"(?:(?!\|\||&&|\s-[oa]\s|\$\(|`)[^;\n])*")


def _surely_here(command: Command, script: Script) -> bool:
    """Whether the command runs in the script's own shell whenever the script gets to it: at
    its top level, not in a loop, a subshell, a pipeline's element or the background."""
    return (
        command.script is script
        and command.function is None
        and not command.loops
        and not command.subshell
        and command.apart is None
        and not command.background
    )


def _unbound_stops(read: Read) -> bool:
    """Whether the expansion is an error on an unset name under `set -u`: not one with a
    default or a test (`${X:-}`, `${X+y}`), nor all of an array's items (`"${X[@]}"`: bash
    4.4 and later expand an unset one to nothing)."""
    if read.operator in _NOUNSET_SAFE:
        return False
    text = read.script.src[read.node.start_byte : read.node.end_byte]
    return b"[@]" not in text and b"[*]" not in text


_NOUNSET_OFF = lazy_compile(r"\bset\s+(?:\+[A-Za-z]*u|\+o\s+nounset)")


def nounset_from(script: Script) -> int | None:
    """Where the script surely turns on `set -u` (`set -euo pipefail`, `set -o nounset`): the
    offset of the first such `set` at its top level, under no condition, in no loop or
    subshell; None when it has none, or turns it off anywhere (`set +u`). (bash does not
    read a `#!` line's options when the script is run as `bash x.sh`.)"""
    if _NOUNSET_OFF.search(script.file.text):
        return None
    for command in script.commands:
        if command.base != "set" or command.function is not None or command.guards:
            continue
        if command.subshell or command.loops or command.background:
            continue
        words = [w.value for w in command.args]
        words = words[: words.index("--")] if "--" in words else words  # (then positionals)
        on = any(w.startswith("-") and "u" in w[1:] for w in words)
        if on or " -o nounset " in f" {' '.join(words)} ":
            return command.file_offset
    return None


def _unguarded_at(script: Script, offset: int) -> bool:
    """Whether the command at the offset runs whenever the script gets there: at its top
    level, under no condition."""
    for command in script.commands:
        if command.node.start_byte <= offset < command.node.end_byte:
            return not command.guards and command.function is None
    return False


def is_slip(read: str, set_: str) -> bool:
    """Whether a name read is a slip for a name set: the same in another case (`port`, `PORT`),
    or, for an upper-case name of three letters or more, the set name with one or two more
    characters at its end (`MODE` for `MODEL`), one character changed (`MODAL`) or two
    neighbours swapped (`PROT`)."""
    if read == set_:
        return True
    if read.lower() == set_.lower():
        return True
    if not read.isupper() or len(read) < 3:
        return False
    if set_.startswith(read) and 0 < len(set_) - len(read) <= 2:
        return True
    if len(read) != len(set_):
        return False
    differ = [i for i, (a, b) in enumerate(zip(read, set_, strict=True)) if a != b]
    if len(differ) == 1:
        return True
    # two neighbours swapped (`PROT`)
    first, *rest = differ
    return rest == [first + 1] and read[first] == set_[first + 1] and read[first + 1] == set_[first]
