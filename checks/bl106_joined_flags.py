"""An engine launch given several flags as one quoted word.

## What it does
Reports an argument `"$NAME"` (or `"${NAME}"`) of an engine launch (`vllm serve`,
`python -m sglang.launch_server`, `python -m dynamo.<x>`, `trtllm-serve`, behind any wrapper) when
every value the script assigns to NAME is a string of several blank-separated words that starts
with a flag (`args="--tp 8 --port 30000"`; one flag with a blank before or after it,
`EP=" --enable-expert-parallel"`, is no flag to argparse either), or adds to its earlier value
(`args="$args --speculative-algorithm EAGLE"`, onto one flag too), or is empty (`args=""` where a
branch then sets the flags: on that path the engine gets one empty argument, which argparse rejects
too). So is `"${args:-}"` (its value, or an empty word), and `"${args[*]}"` of an array of flags
(its elements joined into one word). The alternative of an expansion, `${args:+"$args"}`, is
reported when a path sets several words (it gives nothing when `args` is empty, else its value as
one word). The same words among a container run's options (`docker run "$RUN_OPTS" IMAGE`,
`podman run`, `nvidia-docker run`, `docker exec`, `docker compose run`) and among `torchrun`'s
(`python -m torch.distributed.run`'s; it takes the word for the script to run) are reported
too, and a word that holds one flag, a blank and its value (`"--tp 8"`, written on the line or as
an array's element, `MOUNTS+=("--mount type=bind,...")` given as `"${MOUNTS[@]}"`), where it is
no option's value. Among a container run's options, such a word that is empty on a path
(`MOUNTS=""`, then `MOUNTS="$MOUNTS -v $m"` in a loop) is no option either: Docker takes it for
the image's name (the words after it are read as on the path where it holds options: each
joined one among them is reported at once, not after the first is fixed).

## Why is this bad?
The double quotes keep the string one word: the engine receives the single argument
`--tp 8 --port 30000`. argparse takes an argument with a blank in it for a positional, so the
server exits at start-up with a usage error (`unrecognized arguments`, or a required flag such
as `--model-path` missing when the string holds it; `vllm serve` takes the string for the model
name), after the job has waited for its nodes. Docker's option parser reads the word as one
option: `--rm -it --ipc=host` is the unknown flag `--rm -it --ipc`, and `-e A=1 -e B=2` gives
`-e` all the rest as its value.

## Example
```bash path=benchmarks/serve.sh
args="--tensor-parallel-size 8 --port 30000"
python3 -m sglang.launch_server --model-path "$MODEL" "$args"
```

## Use instead
```bash path=benchmarks/serve.sh
args=(--tensor-parallel-size 8 --port 30000)
python3 -m sglang.launch_server --model-path "$MODEL" "${args[@]}"
```

## Exceptions
Not reported: an unquoted `$args` (the shell splits it: benchlint reads its flags, as BL303
does), an array, a variable with one word (`"$MODEL"`), and a variable assigned outside the
script or with a value that is not a plain string on some path, nor a launch behind `ssh HOST`
(ssh joins its arguments into one command line that the remote shell splits again).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence

from benchlint.context import Context
from benchlint.engines import (
    assignments_of,
    launches,
    may_reach,
    string_values,
    takes_no_value,
)
from benchlint.environment import appends, opposite_branches
from benchlint.finding import Finding, Location, Severity, clip
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.shell.invocation import IMAGE_VARIABLE, WRAPPER_GRAMMARS, Grammar, held_value
from benchlint.shell.model import Command, Script, Word, own_value


def _quoted_variable(word: Word) -> str | None:
    """NAME for a word that is exactly `"$NAME"` or `"${NAME}"`, or that alternative of an
    expansion (`${NAME:+"$NAME"}`: nothing when NAME is empty, else its value as one word)."""
    if word.node.type == "string":
        empty = _EMPTY_DEFAULT.fullmatch(word.text)  # `"${NAME:-}"`: its value, or empty
        return empty.group(1) if empty is not None else word.variable()
    match = _ALTERNATIVE.fullmatch(word.text) if word.node.type == "expansion" else None
    return match.group(2) or match.group(3) if match is not None else None


def _joined_array(word: Word) -> str | None:
    """NAME for `"${NAME[*]}"`: the elements joined into one word."""
    match = _STAR.fullmatch(word.text) if word.node.type == "string" else None
    return match.group(1) if match is not None else None


_EMPTY_DEFAULT = lazy_compile(r'"\$\{([A-Za-z_][A-Za-z0-9_]*):?-\}"')
_STAR = lazy_compile(r'"\$\{([A-Za-z_][A-Za-z0-9_]*)\[\*\]\}"')
_ARRAY = lazy_compile(r'"\$\{([A-Za-z_][A-Za-z0-9_]*)\[[@*]\]\}"')


_ALTERNATIVE = lazy_compile(
    r'\$\{([A-Za-z_][A-Za-z0-9_]*):?\+"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))"\}'
)


def _joined(values: list[Word], name: str) -> bool:
    """Every value the script gives NAME is blank-separated words starting with a flag, empty
    (`EXTRA_ARGS=""` before a branch that sets the flags: quoted, the engine then gets an empty
    argument), or appends to its earlier value (`args="$args --x 1"`), and one of them sets
    several words (a path with one flag is one word, fine quoted; the others are not)."""
    own = own_value(name)
    sets = False
    for value in values:
        text = value.value
        head = own.match(text)
        if head is not None:  # an append: the earlier value and more
            rest = text[head.end() :]
            if not rest.strip():
                return False
            # (a blank and more: several words, or one with a blank before it, on any path)
            sets = sets or rest[0].isspace()
            continue
        words = text.split()
        if not words and value.static:
            continue
        if not words or not words[0].startswith("-"):
            return False
        if _one_flag(words):
            continue  # (`--chat-template=a b`: one flag, its value with a blank; h111 F1, F2)
        # (one flag with a blank before or after it, `EP=" --enable-expert-parallel"`, is one
        # word that does not start with `-` to argparse either: a positional)
        sets = sets or len(words) > 1 or text != text.strip()
    return sets


def _one_flag(words: list[str]) -> bool:
    """Whether the words are one long flag with its value after `=`, no other long flag after
    it (argparse and Docker's parser split the word there: `--health-cmd=curl -f x` is one flag
    and its value; `--ipc=host --rm` gives `--ipc` the rest, which was not meant)."""
    return (
        words[0].startswith("--")
        and "=" in words[0]
        and not any(w.startswith("--") for w in words[1:])
    )


def _arrays_of_flags(values: list[Word]) -> bool:
    """Every value is an array whose first element is a flag, or an empty one (`EXTRA=()`
    before `EXTRA+=(...)`: h109 M2), one of them with several elements (joined by
    `"${NAME[*]}"` into one word)."""
    return all(
        v.items is not None and (not v.items or v.items[0].value.startswith("-")) for v in values
    ) and any(len(v.items or []) > 1 for v in values)


def _first_elements(values: list[Word]) -> list[Word]:
    """The elements of the first array of flags the values give."""
    return next((v.items for v in values if v.items), None) or []


def _joined_value(values: list[Word], name: str) -> str:
    """A value to show: the first that sets flags, with what the appends after it add."""
    own = own_value(name)
    start = next(
        (i for i, v in enumerate(values) if v.value.strip() and not own.match(v.value)), -1
    )
    if start < 0:  # (`args=""`, then only appends: the first as written, h109 W1)
        return next((v.value for v in values if own.match(v.value)), "")
    shown = values[start].value
    for value in values[start + 1 :]:
        head = own.match(value.value)
        if head is not None:
            shown += value.value[head.end() :]
    return shown


@script_rule("BL106", "joined-flags", Severity.ERROR, tags=("engines", "shell"))
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    for launch in launches(script):
        if launch.command.invocation.wrapper("ssh") is not None:
            continue  # ssh joins its arguments and the remote shell splits them again
        value = False  # (the word is the value of the option before it)
        for word, _ in launch.argv:
            joined = _flags_joined(word)
            if joined is None and _flag_word(word) and not value:
                joined = word.value  # (`"--tp 8"`, on the line or an array's element it gives)
            # (not after a switch, `--trust-remote-code "--tp 8"`, nor after an option's value,
            # `--seed -1 "--tp 8"`: h113 M1)
            value = (
                not value
                and _may_take(word.value)
                and not takes_no_value(launch.engine, word.value.split("=", 1)[0])
            )
            if joined is not None:
                what = _noun(word, joined)
                node = launch.command.node
                head = joined.split(" ", 1)[0]
                read = (
                    f"the engine takes it for a single word, not {what}, and exits with a usage "
                    "error"
                )
                if head.startswith("--") and "=" in head:  # (h126 W3)
                    flag, given = joined.split("=", 1)
                    read = (
                        f"its parser gives `{flag}` all the rest as its value "
                        f"(`{clip(given, 40)}`), not flags: a usage error where that is no "
                        "value of it, else the flags after it are silently not set"
                    )
                yield _finding(
                    script,
                    word,
                    launch.module,
                    f"`{clip(joined, 60)}`: {read}",
                    # (an element of an array the launch expands, written where it is assigned)
                    element=not node.start_byte <= word.node.start_byte < node.end_byte,
                )
    for command in script.all_commands():
        yield from _distributed(script, command)
        yield from _compose_run(script, command)
        for wrapper in command.invocation.wrappers:
            if wrapper.name not in _CONTAINER_RUNS:
                continue
            grammar = WRAPPER_GRAMMARS[wrapper.name]
            program = wrapper.name
            if wrapper.words[0].value == "nvidia-docker":  # (docker's, named as written)
                program = program.replace("docker", "nvidia-docker", 1)
            for before, word in itertools.pairwise(wrapper.words):
                if _takes_value(before.value, grammar):
                    continue  # (`--health-cmd "$CHECK"`: the option's value, blanks and all)
                joined = _flags_joined(word)
                if joined is None and _flag_word(word):
                    joined = word.value  # (`docker run "--mount type=bind,..." img`)
                if joined is None or joined != joined.strip():
                    continue
                operand = "container" if wrapper.name.endswith("exec") else "image"
                read = (
                    "empty on a path (or with a blank first, after appends to the empty "
                    f"string), it is no option: it takes the word for the {operand}'s name"
                    + (" (`invalid reference format`)" if operand == "image" else "")
                    if _may_be_empty(word, command)
                    else f"it reads a single option, not {_noun(word, joined)} "
                    f"({_read_as(joined, grammar)})"
                )
                yield _finding(script, word, program, f"`{clip(joined, 60)}`: {read}")
            empty = next((w for w in wrapper.operands[:1] if _always_empty(w)), None)
            if (
                empty is not None
                and not wrapper.name.endswith("exec")
                and command.invocation.words  # (the image follows it: not `"$IMAGE"` alone)
                and not IMAGE_VARIABLE.search(empty.text)
            ):
                # (`DOCKER_RUN_ARGS=""`, then `docker run "$OPTS" "$DOCKER_RUN_ARGS" img`)
                yield _finding(
                    script,
                    empty,
                    program,
                    "an empty word (every value the script gives it is empty): it takes the "
                    "word for the image's name (`invalid reference format`)",
                )


def _always_empty(word: Word) -> bool:
    """`"$NAME"` where NAME is given nothing before the word and nothing else anywhere
    (`held_value`): quoted, an empty word, which Docker reads where its image is due."""
    return _quoted_variable(word) is not None and held_value(word) == ""


def _may_be_empty(word: Word, command: Command) -> bool:
    """`"$NAME"` where the script gives NAME the empty string on a path to the command
    (`MOUNTS=""`, then `MOUNTS="$MOUNTS -v $m"` in a loop): Docker reads an empty word, or one
    starting with a blank, among its options as the image's name (h114 M1's
    `"$EXTRA_MOUNT_OPTS"`). Not one an `if` then gives a value in both branches, or a plain
    assignment replaces (h118 W1)."""
    name = _quoted_variable(word)
    if name is None:
        return False
    script = word.script
    given = [(a, a.value) for a in assignments_of(script, name) if a.value is not None]
    for empty, value in given:
        if not (value.static and not value.value.strip()):
            continue
        if not may_reach(empty, command):
            continue
        later = [
            a
            for a, v in given
            if empty.node.end_byte <= a.node.start_byte < command.node.start_byte
            and v.value.strip()[:1] not in ("", "$")  # (a value with a word of its own)
            and a.command.function == empty.command.function
        ]
        if not any(opposite_branches(a, b) for a, b in itertools.combinations(later, 2)):
            return True
    return False


def _distributed(script: Script, command: Command) -> Iterator[Finding]:
    """`torchrun "$DIST_ARGS" train.py`: the launcher's argparse takes the one word (a blank in
    it) for the script to run (h109 M3)."""
    invocation = command.invocation
    words = invocation.words
    if invocation.base == "torchrun":  # (`/usr/bin/torchrun` too)
        start, program = 1, "torchrun"
    elif invocation.module in _TORCHRUN_MODULES:  # (`python -m torch.distributed.run`)
        program = invocation.module
        # (after the module's word: `-m MODULE`, `-mMODULE`, `-m "$MOD"`; not a module a
        # variable holding the interpreter and its `-m` gives, `$LAUNCHER "$DIST"`: h118 F1)
        at = next((i for i, w in enumerate(words) if w.value.startswith("-m")), None)
        if at is None:
            return
        start = at + (1 if len(words[at].value) > 2 else 2)
    else:
        return
    found = _joined_option(words[start:], lambda option: option not in _TORCHRUN_SWITCHES)
    if found is not None:
        word, joined = found
        head = joined.split(" ", 1)[0]
        read = (
            f"its parser gives `{head.split('=')[0]}` the rest of the word as its value, not flags"
            if head.startswith("--") and "=" in head
            else "its parser takes a word with a blank for the script to run, not flags, "
            "and the workers exit at start"
        )
        yield _finding(script, word, program, f"`{clip(joined, 60)}`: {read}")


def _joined_option(
    words: Sequence[Word], takes_value: Callable[[str], bool]
) -> tuple[Word, str] | None:
    """The first word among a program's options (up to its first operand, or `--`) that holds
    several flags (`_flags_joined`), with its shown value; not the value of an option before it
    (`takes_value`: whether an option written without `=` takes the next word)."""
    value = False  # (the word is the value of the option before it)
    for word in words:
        if word.value == "--" and not value:
            return None  # (an operand follows: no option after it)
        joined = None if value else _flags_joined(word)
        if joined is not None and joined == joined.strip():
            return word, joined
        if not value and not word.value.startswith("-"):
            return None  # (the operand: the words after it are its own)
        option = word.value.startswith("-") and not value
        value = option and "=" not in word.value and takes_value(word.value)
    return None


def _compose_run(script: Script, command: Command) -> Iterator[Finding]:
    """`docker compose run "$OPTS" SERVICE` (or `docker-compose run`): Compose's option parser
    reads the one word as one option, as `docker run`'s does (h111 M4)."""
    words = [w.value for w in command.invocation.words]
    if words[:1] == ["docker-compose"]:
        at = 1
    elif words[:1] in (["docker"], ["podman"]) and words[1:2] == ["compose"]:
        at = 2
    else:
        return
    while at < len(words) and words[at].startswith("-"):  # (Compose's own: `-f x.yml`)
        at += 1 if "=" in words[at] or words[at] in _COMPOSE_GLOBAL_SWITCHES else 2
    if words[at : at + 1] != ["run"]:
        return
    name = "docker-compose run" if words[0] == "docker-compose" else f"{words[0]} compose run"
    # (up to the service: what follows is its command)
    found = _joined_option(command.invocation.words[at + 1 :], _COMPOSE_RUN_VALUES.__contains__)
    if found is not None:
        word, joined = found
        yield _finding(
            script,
            word,
            name,
            f"`{clip(joined, 60)}`: it reads a single option, not {_noun(word, joined)} "
            f"({_read_as(joined, WRAPPER_GRAMMARS['docker run'])})",
        )


# Compose's global options that take no value, and `compose run`'s options that take one
_COMPOSE_GLOBAL_SWITCHES = frozenset({"--dry-run", "--compatibility", "--all-resources"})
_COMPOSE_RUN_VALUES = frozenset(
    {"-e", "--env", "-v", "--volume", "-p", "--publish", "-w", "--workdir", "-u", "--user"}
    | {"--name", "--entrypoint", "-l", "--label", "--cap-add", "--cap-drop", "--env-from-file"}
    | {"--pull"}
)


# torchrun's options that take no value (every other one takes the next word); the older
# `torch.distributed.launch` parses the same, with `--use-env` besides
_TORCHRUN_SWITCHES = frozenset(
    {"--standalone", "--no-python", "--no_python", "-m", "--module", "--run-path", "--run_path"}
    | {"--use-env", "--use_env"}
)
_TORCHRUN_MODULES = frozenset({"torch.distributed.run", "torch.distributed.launch"})

# the container runs whose options a word holding several flags breaks (`docker run "$OPTS"`)
_CONTAINER_RUNS = frozenset({"docker run", "podman run", "docker exec", "podman exec"})


def _takes_value(word: str, grammar: Grammar) -> bool:
    """Whether the word is an option whose value is the next word (`--health-cmd`, `-e`)."""
    if word.startswith("--"):
        return "=" not in word and word[2:] in grammar.long_values
    return len(word) == 2 and word[0] == "-" and word[1] in grammar.short_values


def _read_as(joined: str, grammar: Grammar) -> str:
    """What a container run's option parser (Go's pflag) makes of one word holding several
    flags: `--a b` is the flag named `a b` (to the first `=`), which it does not know; `-it
    --rm` the switches `-i`, `-t`, then the blank, no flag; `-e A=1 -e B=2` gives `-e` the rest."""
    if joined.startswith("--"):
        head = joined.split(" ", 1)[0]
        if "=" in head:
            return f"`{head.split('=')[0]}` with the rest of the word as its value"
        return f"the unknown flag `{clip(joined.split('=')[0], 40)}`"
    for at, letter in enumerate(joined[1:], 1):
        if letter in grammar.short_values:
            return f"`-{letter}` with the rest of the word as its value"
        if not letter.isalnum():
            return f"the blank after `{joined[:at]}` is no short flag"
    return "one group of short flags"


def _flags_joined(word: Word) -> str | None:
    """The value shown for a quoted word that holds several flags (`"$ARGS"` where `ARGS="--x 1
    --y"`, `"${ARGS[*]}"`), else None."""
    name = _quoted_variable(word)
    if name is not None:
        values = string_values(word.script, name)
        if not values or not _joined(values, name):
            return None
        first = " ".join(_joined_value(values, name).split())
        appends = any(own_value(name).match(v.value) for v in values)
        if " " not in first and not appends:  # (one flag and a blank: as it is)
            first = _joined_value(values, name)
        return first
    arrays = _star_values(word)
    if arrays is not None:  # (the join first: h113 F3)
        return " ".join(w.value for w in _first_elements(arrays))
    element = _flag_element(word)
    return element.value if element is not None else None


def _star_values(word: Word) -> list[Word] | None:
    """For `"${NAME[*]}"` of arrays of flags (`_arrays_of_flags`): the values NAME is given."""
    name = _joined_array(word)
    values = [a.value for a in assignments_of(word.script, name or "") if a.value]
    return values if name is not None and _arrays_of_flags(values) else None


def _lone_element(word: Word) -> Word | None:
    """The element (or the word itself) that holds one flag and its value, where no `[*]` join
    of flags is what breaks the word."""
    if _star_values(word) is not None:
        return None
    return _flag_element(word) or (
        word if _flag_word(word) and not _several_flags(word.value) else None
    )


def _flag_word(word: Word) -> bool:
    """Whether the word is one quoted word holding a flag, a blank and more (`"--tp 8"`); not
    one long flag with its value after `=` (`"--chat-template=a b"`)."""
    if word.node.type not in ("string", "raw_string") or " " not in word.value:
        return False
    head = word.value.split(" ", 1)[0]
    # (two dashes: argparse splits `"-O 3"` after its letter, h113 W1)
    if not head.startswith("--") or not head.strip("-") or "$" in head:
        return False
    # (`--flag=a b` is one flag and its value; `--x=1 --y 2`, several: h125 M4)
    return "=" not in head or _several_flags(word.value)


# a word that is a flag (`--port`, `-O`, `--x=1`), not a negative number (`-1`, `-0.5`)
_FLAG_PART = lazy_compile(r"-{1,2}[A-Za-z][\w.-]*(?:=.*)?")


def _several_flags(text: str) -> bool:
    """Whether the text holds more than one flag (`--max-model-len 4096 --port 8000`), not one
    flag and its value (h124 W1)."""
    return sum(_FLAG_PART.fullmatch(part) is not None for part in text.split()) > 1


def _may_take(before: str) -> bool:
    """Whether the word before may be an option whose value the next word is (argparse takes
    `"-x y"` after `--opt` for its value: a word with a blank is no option to it)."""
    return before.startswith("-") and "=" not in before and " " not in before


def _flag_element(word: Word) -> Word | None:
    """For `"${NAME[@]}"` (or `[*]`): an element the script gives NAME that is one quoted word
    holding a flag, a blank and more (`MOUNTS+=("--mount type=bind,...")`: h109 M2), which stays
    one argument; not one long flag with its value after `=` (`"--chat-template=a b"`)."""
    match = _ARRAY.fullmatch(word.text) if word.node.type == "string" else None
    if match is None:
        return None
    given = assignments_of(word.script, match.group(1))
    # (only an array built once, then added to: which of two it holds, or what an element
    # assigned alone holds, is not known here; h113 F2)
    if any(a.value is None or a.value.items is None for a in given):
        return None
    if sum(not appends(a) for a in given) > 1:
        return None
    for assignment in given:
        before = ""
        for item in assignment.value.items or () if assignment.value is not None else ():
            if _flag_word(item) and not _may_take(before):  # (h113 F1: an option's value)
                return item
            before = item.value
    return None


def _noun(word: Word, joined: str) -> str:
    """What the one argument was meant to be."""
    if _lone_element(word) is not None:
        return "a flag and its value"
    return "a flag (the blank is part of it)" if joined != joined.strip() else "flags"


def _finding(script: Script, word: Word, program: str, what: str, element: bool = False) -> Finding:
    array = _ARRAY.fullmatch(word.text)
    name = _quoted_variable(word) or (array.group(1) if array is not None else "")
    lone = _lone_element(word)
    if lone is not None:
        flag, rest = lone.value.split(" ", 1)
        within = f"elements of {name}" if lone is not word else "words"
        within = "elements of its array" if element else within
        help_ = f"give `{flag}` and its value as two {within} (`{flag}` `{rest.strip()}`)"
        if word.text.endswith('[*]}"'):  # (the join would make them one word again: h114 W1)
            help_ += f', and write `"${{{name}[@]}}"`'
    elif word.text.endswith('[*]}"'):
        help_ = f'write `"${{{name}[@]}}"`: one word per element'
    elif not name:  # (written out: `"--max-model-len 4096 --port 8000"`)
        help_ = f"write them as words of their own, without the quotes: `{clip(word.value, 60)}`"
    else:
        help_ = (
            f"write `${name}` unquoted, or hold the flags in an array "
            f'(`{name}=(...)`, then `"${{{name}[@]}}"`)'
        )
    return Finding(
        "BL106",
        f"`{word.text}` hands `{program}` one argument, {what}",
        Location(script.path, word.span),
        related=tuple(
            Location(script.path, a.span, f"sets {name}") for a in assignments_of(word.script, name)
        )[:3],
        subject=f"{program}:{name}",
        help=help_,
    )
