"""The options srun, sbatch and salloc accept, and their command lines read as they read them.

The data (`data/slurm_options.json`, made by tools/import_slurm_options.py from Slurm's
`src/common/slurm_opt.c` at the last tag of each major release from 20.11, and pyxis's
`spank_opts[]`) list each command's options per release. The commands read them with glibc's
`getopt_long` and an option string that starts with `+`: options end at the first word that is
not one (the program to run, the batch script) or after `--`; a long option may be shortened to
any prefix that names one option only (`--ntasks-per-n`), an exact name wins over the longer ones
it starts (`--gpus` beside `--gpus-per-node`); a required value is the rest of the word (`-N2`,
`--nodes=2`) or the next word; an optional one only the rest of the word (`--exclusive=user`).

A SPANK plugin the cluster loads adds long options of its own (pyxis's `--container-image`; a
site's plugins are not known): a long option no release knows may be one, unless it is spelled
like a known one.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from dataclasses import dataclass

from benchlint.lazyre import lazy_compile
from benchlint.profile import data_text

COMMANDS = ("srun", "sbatch", "salloc")
# short options whose value, written after `=` (`-N=2`: the value is `=2`), the command itself
# rejects before it asks for anything: a number, a time, a distribution (measured with srun and
# sbatch 22.05: `"=2" is not a valid node count`, `Invalid --time specification`; a test runs
# them where Slurm's commands are installed)
EQUALS_STOPS = frozenset("Nnctm")
# and those whose value names a partition, an account or a QOS, which the controller rejects
# when sbatch or salloc asks for an allocation (no name holds a leading `=`); an srun inside one
# makes a job step, which asks for none of them (srun_job.c), and runs
EQUALS_REJECTED = frozenset("pAq")
# a word whose text is not known, but which bash keeps one word (`"$NODES"`): a value it gives,
# or where an option could be, no option (the options end there)
ONE = "\x00"
SCHEMA_VERSION = 3


@dataclass(frozen=True)
class Table:
    """One release's options of one command: long name -> has_arg (0 none, 1 required,
    2 optional), short letter -> has_arg."""

    long: dict[str, int]
    short: dict[str, int]


@dataclass(frozen=True)
class Problem:
    """A word the command rejects: `kind` is "unknown" (no such option), "ambiguous" (a prefix
    of several, `candidates`), "no-value" (`=VALUE` given to an option that takes none),
    "missing-value" (a required value, and no word after it) or "equals-value" (a short option
    written `-N=2`: its value is the rest of the word, `=2`, which the command rejects:
    `EQUALS_STOPS`, or the controller does: `EQUALS_REJECTED`)."""

    index: int  # of the word
    option: str  # as written, up to its `=`: `--timeout`, `-z`
    kind: str
    candidates: tuple[str, ...] = ()


@functools.cache
def data() -> dict[str, object]:
    text = data_text("slurm_options.json")
    loaded: dict[str, object] = json.loads(text)
    return loaded


def releases() -> list[str]:
    slurm = data()["slurm"]
    assert isinstance(slurm, dict)
    return [r["version"] for r in slurm["releases"]]


@functools.cache
def tables(command: str, plugins: bool = True) -> tuple[Table, ...]:
    """The command's options in each release, with pyxis's (it registers them for all three;
    `plugins=False`: Slurm's alone, as a client without plugins has them)."""
    slurm, pyxis = data()["slurm"], data()["pyxis"]
    assert isinstance(slurm, dict) and isinstance(pyxis, dict)
    found = []
    for index in range(len(slurm["releases"])):
        long: dict[str, int] = dict(pyxis["options"]) if plugins else {}
        short: dict[str, int] = {}
        for name, option in slurm["options"][command].items():
            arg = None if option["arg"][index] == "-" else int(option["arg"][index])
            if arg is not None:
                long[name] = arg
                if option["short"] is not None:
                    short[option["short"]] = arg
        found.append(Table(long, short))
    return tuple(found)


@functools.cache
def every_long(command: str) -> frozenset[str]:
    """The long options some release of the command accepts, and pyxis's."""
    return frozenset(name for table in tables(command) for name in table.long)


def value_options(command: str) -> tuple[str, frozenset[str]]:
    """(short letters, long names) of the options that take a value as the next word in some
    release, and pyxis's: what the wrapper grammar of `benchlint.shell.invocation` skips (read
    at import: from the data, without building the tables)."""
    slurm, pyxis = data()["slurm"], data()["pyxis"]
    assert isinstance(slurm, dict) and isinstance(pyxis, dict)
    options = slurm["options"][command].items()
    short = sorted({o["short"] for _, o in options if o["short"] and "1" in o["arg"]})
    long = {name for name, o in options if "1" in o["arg"]}
    return "".join(short), frozenset(long | {n for n, arg in pyxis["options"].items() if arg == 1})


def read(
    table: Table, words: list[str | None], directives: bool = False
) -> tuple[list[Problem], int | None]:
    """The problems of the command's option words as `getopt_long` reads them with this table,
    and the index of the first word after the options (None: a word not known, None in
    `words`, stands where an option or a value could be: what follows cannot be read; ONE, a
    word whose text is not known but which is one word). `directives`: the words of `#SBATCH`
    lines, where a word that is no option is a problem ("operand")."""
    problems: list[Problem] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word is None:
            return problems, None
        if word == "--":
            return problems, index + 1
        if not word.startswith("-") or word == "-":
            if directives:
                problems.append(Problem(index, word, "operand"))
            return problems, index
        if word.startswith("--"):
            name, equals, _ = word[2:].partition("=")
            arg, problem = _long(table, name, index)
            if problem is not None:
                problems.append(problem)
                if not equals:  # (a plugin's option, or the one meant, may take the next word)
                    return problems, None
            elif arg == 0 and equals:
                problems.append(Problem(index, f"--{name}", "no-value"))
            elif arg == 1 and not equals:
                index += 1  # (its value)
                if index >= len(words):
                    problems.append(Problem(index - 1, f"--{name}", "missing-value"))
                elif words[index] is None:
                    return problems, None  # (a value not known may be several words)
        else:
            for at, letter in enumerate(word[1:], 1):
                takes = table.short.get(letter)
                if takes is None:
                    problems.append(Problem(index, f"-{letter}", "unknown"))
                    continue
                if takes == 0:
                    continue
                if word[at + 1 : at + 2] == "=" and letter in EQUALS_STOPS | EQUALS_REJECTED:
                    problems.append(Problem(index, f"-{letter}", "equals-value"))
                    break
                if takes == 1 and at == len(word) - 1:  # (the value is the next word)
                    index += 1
                    if index >= len(words):
                        problems.append(Problem(index - 1, f"-{letter}", "missing-value"))
                    elif words[index] is None:
                        return problems, None
                break  # (the rest of the word is its value)
        index += 1
    return problems, index


def _meant(table: Table, name: str) -> list[str]:
    """The long options `--NAME` may mean in this release: itself, else those it starts
    (`getopt_long` takes a prefix of one option for it)."""
    if name in table.long:
        return [name]
    return sorted(n for n in table.long if n.startswith(name)) if name else []


def _long(table: Table, name: str, index: int) -> tuple[int, Problem | None]:
    """What `--NAME` takes (0, 1 or 2), or the problem with it: no option, or several."""
    starting = _meant(table, name)
    if len(starting) == 1:
        return table.long[starting[0]], None
    option = "--" + name
    if len(starting) > 1:
        return 0, Problem(index, option, "ambiguous", tuple(starting))
    return 0, Problem(index, option, "unknown")


def problems(command: str, words: list[str | None], directives: bool = False) -> list[Problem]:
    """The problems every release of the command has with these words (what one release
    accepts is not reported: which one the cluster runs is not known)."""
    found: dict[tuple[int, str], Problem] | None = None
    for table in tables(command):
        seen = {(p.index, p.option): p for p in read(table, words, directives)[0]}
        if command == "srun":  # (in an allocation, a step asks for no partition or account)
            seen = {k: p for k, p in seen.items() if not _rejected_elsewhere(p)}
        found = seen if found is None else {k: p for k, p in found.items() if k in seen}
        if not found:
            return []
    return sorted((found or {}).values(), key=lambda p: p.index)


def _rejected_elsewhere(problem: Problem) -> bool:
    """A short option written with `=` whose value only the controller rejects (`-p=gpu`): an
    srun inside an allocation makes a step, which asks for none of them, and runs."""
    return problem.kind == "equals-value" and problem.option[1:] in EQUALS_REJECTED


def close_names(command: str, option: str) -> list[str]:
    """Long options of the command spelled like `option`, closest first: its name itself
    (`----nodes`), a name it starts or ends with, four letters or fewer beyond it (`--timeout`:
    `--time`), a name a letter or two away (`--ntask-per-node`) or two letters swapped
    (`--wiat`: `--wait`), a name it starts or ends with farther beyond, a name and a value
    after a `-` for its `=` (`--mem-4G`)."""
    name = option.lstrip("-")
    names = every_long(command)
    close = [name] if name in names else []
    inside = sorted(
        (n for n in names if len(n) >= 4 and (name.startswith(n) or name.endswith(n))),
        key=len,
        reverse=True,
    )
    # (a name the typed word starts with and goes on far beyond, `--container` of
    # `--container-work-dir`, after the names spelt like it, `--container-workdir`: h134 W2)
    close += [n for n in inside if len(name) - len(n) <= 4]
    close += sorted(n for n in names if _swapped(name, n))
    close += difflib.get_close_matches(name, names, n=3, cutoff=0.8)
    close += inside
    # (a `-` for the `=` of an option that takes a value: `--mem-4G`)
    close += sorted(
        f"{n}={name[len(n) + 1 :]}" for n in names if re.match(rf"{re.escape(n)}-\d", name)
    )
    return ["--" + n for n in dict.fromkeys(close)]


def _swapped(typed: str, name: str) -> bool:
    """Whether `typed` is `name` with two letters side by side swapped (`wiat`, `wait`: a
    typing slip no ratio of common letters scores as close in a short name)."""
    if len(typed) != len(name) or typed == name:
        return False
    apart = [i for i, (a, b) in enumerate(zip(typed, name, strict=True)) if a != b]
    return (
        len(apart) == 2
        and apart[1] == apart[0] + 1
        and typed[apart[0]] == name[apart[1]]
        and typed[apart[1]] == name[apart[0]]
    )


def option_name(command: str, option: str) -> str | None:
    """The long name of an option word as every release of the command reads it (`-p`, `-pgpu`,
    `--part`, `--partition=gpu`: "partition"); None where no release has it, or where it is
    a prefix of several or names another option in some release."""
    options = data()["slurm"]
    assert isinstance(options, dict)
    table: dict[str, dict[str, str]] = options["options"][command]
    found: set[str | None] = set()
    if option.startswith("--"):
        name = option[2:].partition("=")[0]
        for release in tables(command):
            meant = _meant(release, name)
            found.add(meant[0] if len(meant) == 1 else None)
    elif option.startswith("-") and len(option) > 1:
        found = {n for n, o in table.items() if o["short"] == option[1] and "-" not in o["arg"]}
    return found.pop() if len(found) == 1 and None not in found else None


def keeps_text(command: str, name: str) -> bool:
    """Whether every release of the command that has the long option `name` keeps its value
    as written, checking nothing (`--partition`, `--account`: its set function is an
    `xstrdup`): a value given after it, on sbatch's command line after the batch script's
    `#SBATCH` lines, replaces it before anything reads it."""
    options = data()["slurm"]
    assert isinstance(options, dict)
    option = options["options"][command].get(name)
    return option is not None and "1" in option["text"] and "0" not in option["text"]


def sbatch_variables(name: str) -> tuple[frozenset[str], frozenset[str]]:
    """The environment variables that set sbatch's long option `name` in every measured
    release, and those only some releases read (`SBATCH_PARTITION` for `partition`). sbatch
    reads them after the batch script's `#SBATCH` lines and before its command line, so a value
    one gives replaces a text option's directive as the command line's would."""
    options = data()["slurm"]
    assert isinstance(options, dict)
    option = options["options"]["sbatch"].get(name) or {}
    every = frozenset(v for v, seen in option.get("env", {}).items() if "-" not in seen)
    some = frozenset(v for v, seen in option.get("env", {}).items() if "-" in seen)
    return every, some


def short_takes_value(command: str, letter: str) -> bool:
    """Whether `-LETTER` takes a required value in every release of the command."""
    return all(table.short.get(letter) == 1 for table in tables(command))


# a value to fill in: `#SBATCH -A <project id>`, `--job-name=<job name>`, `-p { partition }`,
# `--account={{account}}` (a template to copy: sbatch rejects the line as it is)
_PLACEHOLDER = lazy_compile(r"<[^<>\n]+>|(?<!\$)\{\{?[ \t]*[A-Za-z_][^{}\n]*\}")


def directives(text: str) -> list[list[tuple[str | None, int, int]]]:
    """The words of a batch script's `#SBATCH` lines as sbatch reads them (`_opt_batch_script`,
    `get_argument`): the lines that start with `#SBATCH` before the first line with a command,
    split at blanks outside quotes, up to an unquoted `#`; each word with its start and end
    offsets in `text`, in one list per job component (a `hetjob` line starts the next one, whose
    options sbatch reads on their own; the rest of that line is not read). `#SLURM` lines are
    read too. A line with a value to fill in (`-A <project id>`, `-p { partition }`) is one word
    None: a template, whose words are not known."""
    components: list[list[tuple[str | None, int, int]]] = [[]]
    offset = 0
    for line in text.split("\n"):
        start = offset
        offset += len(line) + 1
        magic = next((m for m in ("#SBATCH", "#SLURM") if line.startswith(m)), None)
        if magic is None:
            if line.strip() and not line.lstrip().startswith("#"):
                break  # (a command: sbatch reads no further)
            continue
        at = len(magic)
        first = line[at:].split(None, 1)
        if first and first[0].lower() in ("hetjob", "packjob"):
            components.append([])
            continue  # (sbatch blanks the word out, then reads nothing more of the line)
        if _PLACEHOLDER.search(line, at):
            components[-1].append((None, start + at, offset - 1))  # (a value to fill in)
            continue
        while True:
            while at < len(line) and line[at].isspace():
                at += 1
            word, end = _argument(line, at)
            if word is None:
                break
            components[-1].append((word, start + at, start + end))
            at = end
    return components


# a line's place in the text: its number, its start and end offsets
Place = tuple[int, int, int]


def unread_directives(text: str) -> tuple[Place | None, list[Place], list[Place]]:
    """The `#SBATCH` (and `#SLURM`) lines sbatch never reads (`_opt_batch_script`), with the
    first command (the first line that is neither blank nor a comment; None: none): those
    before it that start with blanks (sbatch compares the magic word with the line's start, so
    it takes them for comments; the place from the `#`), and those after it (it reads no
    further). Each line holds a word after its magic word (not `#SLURM_ARRAY_TASK_ID=7`)."""
    first: Place | None = None
    indented: list[Place] = []
    late: list[Place] = []
    offset = 0
    for number, line in enumerate(text.split("\n"), 1):
        start = offset
        offset += len(line) + 1
        end = start + len(line.rstrip())
        if first is not None:
            if _DIRECTIVE.match(line):
                late.append((number, start, end))
        elif line.strip() and not line.lstrip().startswith("#"):
            first = number, start, end
        elif line[:1] in (" ", "\t") and _DIRECTIVE.match(line.lstrip(" \t")):
            indented.append((number, start + len(line) - len(line.lstrip(" \t")), end))
    return first, indented, late


# a directive line with a word after its magic word (what sbatch would read as one)
_DIRECTIVE = lazy_compile(r"#(?:SBATCH|SLURM)[ \t]+\S")


def _argument(line: str, at: int) -> tuple[str | None, int]:
    """sbatch's `get_argument` from `at`: the word and where it ends (None at the line's end, an
    unquoted `#`, an unmatched quote, which sbatch rejects before it reads any option, or a
    backslash before a blank, which ends the word before 24.05 and is kept in it since: the rest
    of the line is not read)."""
    chars: list[str] = []
    quote = ""
    index = at
    while index < len(line) and (quote or not line[index].isspace()):
        char = line[index]
        if char == "\\":  # (the next character as it is, if any)
            if index + 1 >= len(line):
                break  # (a lone `\` at the line's end copies nothing)
            if line[index + 1 : index + 2].isspace():
                return None, len(line)  # (an escaped blank: releases before 24.05 end the word)
            chars.append(line[index + 1 : index + 2])
            index += 2
            continue
        if quote:
            if char == quote:
                quote = ""
                index += 1
                continue
        elif char in "\"'":
            quote = char
            index += 1
            continue
        elif char == "#":
            break
        chars.append(char)
        index += 1
    if quote or not chars:
        return None, index
    return "".join(chars), index


def script_from_stdin(words: list[str | None]) -> bool:
    """Whether sbatch given these words after its name reads its batch script from its input:
    no script operand (in every release) and no `--wrap` (nor a prefix of it)."""
    if any(w is not None and len(w) > 3 and "--wrap".startswith(w.split("=", 1)[0]) for w in words):
        return False
    return operands_at("sbatch", words) == len(words)


def operands_at(command: str, words: list[str | None]) -> int | None:
    """Where the command's operands start among these words, if every release reads them so
    (None: not known, or releases differ)."""
    found = {read(table, words)[1] for table in tables(command)}
    return found.pop() if len(found) == 1 else None
