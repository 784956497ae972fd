"""How `pkill` and `pgrep` (procps-ng) and `killall` (psmisc) read their words: the pattern,
how it is matched, and the signal sent.

The options are procps-ng 4.0.2's and psmisc 23.6's (their `--help`; each reading below was
checked by running them): `pkill -c x` counts (`-c` takes no value), `pkill -f -9 x` sends
SIGKILL (procps takes the first word naming a signal, wherever it is, any case: `-sigkill`),
`killall -e -9 x` too (psmisc: upper case only, `-Kill` is no signal), `pgrep -9` is an error.
"""

from __future__ import annotations

import signal as signal_module
from collections.abc import Sequence
from dataclasses import dataclass

# the options that take a value: short letters, long names (`--env`: procps-ng 4.0.3 on)
_SHORT_VALUED = {"pkill": "qgGOPstuUFr", "pgrep": "dgGOPstuUFr", "killall": "suoynZ"}
_LONG_VALUED = {
    "pkill": frozenset(
        {"signal", "queue", "pgroup", "group", "older", "parent", "session", "terminal"}
        | {"euid", "uid", "pidfile", "runstates", "cgroup", "ns", "nslist", "env"}
    ),
    "pgrep": frozenset(
        {"delimiter", "pgroup", "group", "older", "parent", "session", "terminal", "euid"}
        | {"uid", "pidfile", "runstates", "cgroup", "ns", "nslist", "env"}
    ),
    "killall": frozenset({"signal", "user", "older-than", "younger-than", "ns", "context"}),
}
# the options that take none and leave which processes match, and how, as they are
_SHORT_PLAIN = {"pkill": "ecnoL", "pgrep": "lawcnoL", "killall": "giqvwl"}  # (`-n`, `-o` narrow)
_LONG_PLAIN = {
    "pkill": frozenset({"echo", "count", "newest", "oldest", "logpidfile"}),
    "pgrep": frozenset(
        {"list-name", "list-full", "lightweight", "count", "newest", "oldest", "logpidfile"}
    ),
    "killall": frozenset({"process-group", "interactive", "quiet", "verbose", "wait", "list"}),
}
# the options that narrow the processes the pattern matches, by their long names
_CRITERIA = {
    "pkill": {"g": "pgroup", "G": "group", "O": "older", "P": "parent", "s": "session"},
    "killall": {"u": "user", "o": "older-than", "y": "younger-than", "n": "ns", "Z": "context"},
}
_CRITERIA["pkill"].update(
    {"t": "terminal", "u": "euid", "U": "uid", "F": "pidfile", "r": "runstates"}
    | {"n": "newest", "o": "oldest"}
)
_CRITERIA["pgrep"] = _CRITERIA["pkill"]
_LONG_CRITERIA = frozenset(
    {*_CRITERIA["pkill"].values(), *_CRITERIA["killall"].values(), "cgroup", "ns", "env"}
)
# a criterion's value that names the caller's own (`-g 0`: pkill's process group, `-s 0` its
# session, which the shell that runs it shares): it leaves the shell among the matches
_OWN = {"pgroup": "0", "session": "0"}
# the signals procps and psmisc name (Linux's), without `SIG`
SIGNALS = frozenset(
    {name.removeprefix("SIG") for name in signal_module.Signals.__members__}
    | {"IOT", "CLD", "POLL", "PWR", "STKFLT", "UNUSED"}
)
_NUMBERS = {"1": "HUP", "2": "INT", "3": "QUIT", "6": "ABRT", "9": "KILL", "15": "TERM"}
_NUMBERS.update({"18": "CONT", "17": "CHLD", "19": "STOP", "20": "TSTP", "23": "URG"})
# signals whose default action does not end a process
HARMLESS = frozenset({"0", "CONT", "CHLD", "CLD", "URG", "WINCH", "STOP", "TSTP", "TTIN", "TTOU"})


@dataclass(frozen=True)
class ProcessKill:
    """What a `pkill`, `pgrep` or `killall` command line selects, and the signal it sends."""

    pattern: int | None  # the index of the first pattern among the words read (None: none)
    full: bool  # matched against the whole command line (`-f`), not the process's name
    whole: bool  # the pattern must match the whole name (`-x`; killall's, without `-r`)
    inverse: bool  # the processes it does not match (`pgrep -v`)
    ignore_case: bool  # `-i` (killall's `-I`)
    spares_ancestors: bool  # `-A`: not the shells that run it
    signal: str  # "TERM", "KILL", "HUP": upper case, no `SIG`, a number named where known
    unknown: bool  # an option this does not read (taken as one with no value)
    # the options given that narrow what the pattern matches, by their long names (`-O 60`:
    # "older", `-n`: "newest", `-u root`: "euid")
    criteria: frozenset[str] = frozenset()

    @property
    def ends(self) -> bool:
        """Whether the signal ends a process that does not catch it (not `-0`, `-STOP`)."""
        return self.signal not in HARMLESS


def signal_name(text: str) -> str:
    """A signal as the programs name it: `sigkill`, `SIGKILL`, `9` are `KILL`."""
    name = text.upper().removeprefix("SIG")
    return _NUMBERS.get(name, name)


def signal_of(program: str, word: str) -> str | None:
    """The signal a word names as an option (`-9`, `-KILL`, `-sigkill`: procps reads a name in
    any case, psmisc in upper case), else None."""
    if word[:1] != "-" or word[1:2] in ("-", ""):
        return None
    name = word[1:] if program == "killall" else word[1:].upper()
    name = name.removeprefix("SIG")
    return name if name.isdigit() or name in SIGNALS else None


def read_kill(program: str, words: Sequence[str]) -> ProcessKill:
    """How `program` (`pkill`, `pgrep`, `killall`) reads its arguments `words`."""
    valued_short, valued_long = _SHORT_VALUED[program], _LONG_VALUED[program]
    plain_short, plain_long = _SHORT_PLAIN[program], _LONG_PLAIN[program]
    procps = program != "killall"
    signal, signal_at = "TERM", None
    if program != "pgrep":  # (the first word naming a signal, wherever it is: `pkill -f -9 x`)
        signal_at = next((k for k, w in enumerate(words) if signal_of(program, w)), None)
        if signal_at is not None:
            signal = signal_of(program, words[signal_at]) or signal
    full = exact = inverse = ignore_case = spares = regexp = unknown = False
    criteria: set[str] = set()
    short_criteria = _CRITERIA[program]
    operands: list[int] = []  # (GNU getopt reads options after them too: `pkill x -f`)
    i = 0
    while i < len(words):
        word = words[i]
        if i == signal_at:
            i += 1
            continue
        if word == "--":
            operands += range(i + 1, len(words))
            break
        if word.startswith("--"):
            name, equals, given = word[2:].partition("=")
            if name in valued_long:
                if not equals:
                    i += 1
                    given = words[i] if i < len(words) else ""
                if name in _LONG_CRITERIA and _OWN.get(name) != given:
                    criteria.add(name)
                if name == "signal":
                    signal = given.upper().removeprefix("SIG")
            elif name == "full" and procps:
                full = True
            elif name == "exact":
                exact = True
            elif name == "inverse" and program == "pgrep":
                inverse = True
            elif name == "ignore-case":
                ignore_case = True
            elif name == "ignore-ancestors" and procps:
                spares = True
            elif name == "regexp" and not procps:
                regexp = True
            elif name in plain_long:
                if name in _LONG_CRITERIA:
                    criteria.add(name)
            else:
                unknown = True
            i += 1
            continue
        if not word.startswith("-") or word == "-":
            operands.append(i)
            i += 1
            continue
        letters = word[1:]
        for j, letter in enumerate(letters):
            if letter in short_criteria and letter in plain_short:
                criteria.add(short_criteria[letter])
            if letter in valued_short:
                given = letters[j + 1 :]
                if not given:
                    i += 1
                    given = words[i] if i < len(words) else ""
                criterion = short_criteria.get(letter)
                if criterion is not None and _OWN.get(criterion) != given:
                    criteria.add(criterion)
                if letter == "s" and not procps:  # (pkill's `-s` is a session)
                    signal = given.removeprefix("SIG")
                break
            if letter == "f" and procps:
                full = True
            elif letter == ("x" if procps else "e"):
                exact = True
            elif letter == "v" and program == "pgrep":
                inverse = True
            elif letter == ("i" if procps else "I"):
                ignore_case = True
            elif letter == "A" and procps:
                spares = True
            elif letter == "r" and not procps:
                regexp = True
            elif letter not in plain_short:
                unknown = True
        i += 1
    if procps and len(operands) > 1:
        unknown = True  # (procps: "only one pattern can be provided", status 2: it kills nothing)
    pattern = operands[0] if operands else None
    whole = exact if procps else not regexp
    signal = _NUMBERS.get(signal, signal)
    return ProcessKill(
        pattern, full, whole, inverse, ignore_case, spares, signal, unknown, frozenset(criteria)
    )
