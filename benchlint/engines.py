"""How scripts start serving engines: the one place that recognises an engine launch.

`vllm serve`, `python -m vllm.entrypoints.openai.api_server` (and vLLM's legacy and gRPC
servers, which parse the same engine arguments), `python -m sglang.launch_server` and `sglang
serve` (the `sglang` console script runs it for every model but a diffusion model),
`python -m dynamo.<x>`, `trtllm-serve`, directly or behind a wrapper (`srun`, `env`, `nohup`...),
and argument arrays that hold such a command (`VLLM_CMD=(vllm serve ...)`, run later as
`"${VLLM_CMD[@]}"`).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from benchlint.engine_flags import engine_flags
from benchlint.finding import Span
from benchlint.images import image_entrypoint
from benchlint.lazyre import lazy_compile
from benchlint.shell.invocation import Invocation, assigned_to, reaches_plainly, resolve_words
from benchlint.shell.model import (
    FALLBACK_OPERATORS,
    Assignment,
    Command,
    Script,
    Word,
    expands_in_words,
    visible_assignments,
)


@dataclass(frozen=True)
class Arg:
    """One argument as the engine receives it, where it is written: a word of the launch (or
    of an array it expands), or a piece of a plain string variable it expands unquoted
    (`ARGS="--tp 8"; vllm serve m $ARGS`: the shell splits the string at blanks)."""

    value: str
    span: Span
    word: Word  # the word it is, or the string assignment's value it was split from


@dataclass(frozen=True, eq=False)
class Launch:
    engine: str  # vllm | sglang | sglang_router | dynamo | trtllm

    @property
    def server(self) -> str | None:
        """The HTTP server clients talk to, if this launch starts one."""
        if self.engine == DIFFUSION:
            return None  # (its routes are not the language-model server's: not known here)
        if self.engine == "dynamo":
            return "dynamo" if self.module == "dynamo.frontend" else None
        if self.module in _NOT_OPENAI or self.image is not None:
            return None  # (its own routes: `/generate`, or gRPC; a container's port is mapped)
        return self.engine

    @functools.cached_property
    def argv(self) -> tuple[tuple[Word, Command], ...]:
        """The launch's arguments, with the items of every argument array it expands
        (`"${ARGS[@]}"`) in place of the expansion; each with the command that wrote it."""
        launch = self.command
        script = launch.script
        arrays: dict[str, list[tuple[Word, Command]]] = {}
        for assignment in script.assignments:
            value = assignment.value
            if value is not None and value.items is not None and may_reach(assignment, launch):
                items = [(item, assignment.command) for item in value.items]
                arrays.setdefault(assignment.name, []).extend(items)
        for unset in script.commands:  # (`unset 'ARGS[3]'`: which items are left, not known)
            if unset.base == "unset" and arrays:
                for word in unset.args:
                    arrays.pop(word.value.split("[", 1)[0], None)
        found: list[tuple[Word, Command]] = []
        for word in self.args:
            name = array_name(word)
            if name is not None and name in arrays:
                found.extend(arrays[name])
            else:
                found.append((word, self.command))
        return tuple(found)

    @functools.cached_property
    def flags(self) -> tuple[Arg, ...]:
        """The arguments the engine receives, as far as the script says: `argv`, with each
        unquoted `$NAME` of a variable the script assigns plain strings replaced by the pieces
        of those strings (from every assignment, each where it is written)."""
        found: list[Arg] = []
        for word, _ in self.argv:
            name = word.unquoted_variable()
            pieces = [
                piece
                for value in string_values(self.command.script, name or "", self.command)
                for piece in _split(value)
            ]
            if name is not None and pieces:
                found.extend(pieces)
            else:
                found.append(Arg(word.value, word.span, word))
        return tuple(found)

    def value_slot(self, index: int) -> str | None:
        """Where the word at `index` of `argv` stands, if a value is read there, so that,
        unquoted and empty, it vanishes and the next word is read in its place (and, unquoted,
        it is a value, not a bundle of flags): "value" right after an option written without
        `=` that takes a value (`--model $MODEL`), "model" as the model positional of `vllm
        serve $MODEL` and `trtllm-serve [serve] $MODEL`. None elsewhere (`--port 8000
        $EXTRA_ARGS`, after a flag that takes none or after `--`): an unquoted word there may
        be a bundle of optional flags."""
        words = [word.value if word.static else None for word, _ in self.argv[:index]]
        if self.module == "trtllm-serve" and words[:1] == ["serve"]:
            words = words[1:]
        if not words:
            return "model" if self.module in ("vllm serve", "trtllm-serve") else None
        return self.after_option(words[-1])

    def after_option(self, previous: str | None) -> str | None:
        """ "value" when a word after `previous` (None: not known) is that option's value."""
        if previous is None or not previous.startswith("-") or "=" in previous or previous == "--":
            return None
        return None if takes_no_value(self.engine, previous) else "value"

    def option(self, name: str) -> str | None:
        """The raw text of `--name VALUE` or `--name=VALUE` on this launch."""
        values = [w.value for w in self.args]
        for i, value in enumerate(values):
            if value == name and i + 1 < len(values):
                return values[i + 1]
            if value.startswith(name + "="):
                return value.split("=", 1)[1]
        return None

    module: str  # "vllm serve", "sglang.launch_server", "dynamo.vllm", "trtllm-serve"
    command: Command
    args: tuple[Word, ...]  # the words after the program
    # the image of a container run that starts it with the image's entrypoint
    # (`docker run ... vllm/vllm-openai:v0.15.1 --model m`): its release is the launch's
    image: Word | None = None


# flags that take no value by their name, in the engines' conventions (`--enable-...`)
_SWITCH = lazy_compile(r"--(?:enable|disable|no|enforce|skip)-|--trust-remote-code$")


def may_reach(assignment: Assignment, command: Command) -> bool:
    """Whether an assignment (an array's, a string's) may give the value the command expands:
    not a `local` of another function, not one in a subshell or a job of its own the command
    is not in (h96 F7), nor, for a command of the top level outside loops, one the top level
    makes after it (h93 F1: `ARGS=(-host x)` for a client, written after the server) or one
    another plain assignment of the top level replaces before it (h96 F8)."""
    if assignment.kind == "local" and assignment.command.function != command.function:
        return False
    given = assignment.command  # (not one in a subshell or a job the launch is not in)
    if given.apart_from_script or (
        given.subshell is not None
        and (command.subshell is None or command.subshell.start_byte != given.subshell.start_byte)
    ):
        return False
    if command.function is not None or command.loops or given.function is not None:
        return True
    if assignment.node.start_byte > command.node.end_byte:
        return False
    # (not one another plain assignment of the top level gives a new value before it: h96 F8;
    # `ARGS="$ARGS --x"` adds to it, `ARGS="${ARGS/ --x/}"` edits it: h100 F4)
    script = command.script
    return not any(
        later.name == assignment.name
        and assignment.node.end_byte <= later.node.start_byte < command.node.start_byte
        # (`export D=...` too, not `export D`: h101 F6)
        and (later.kind == "assign" or (later.kind == "export" and later.value is not None))
        and not script.text_of(later.node).startswith(later.name + "+=")
        # (`ARGS="$ARGS --x"`, `"${ARGS:-} --x"`: adds to it; h101 M5)
        and not any(
            r.name == later.name and (r.plain or r.operator in FALLBACK_OPERATORS)
            for r in (later.value.reads() if later.value is not None else ())
        )
        and not later.command.guards
        and not later.command.loops
        and later.command.function is None
        and later.command.subshell is None
        and not later.command.apart_from_script
        for later in script.assignments
    )


def takes_no_value(engine: str, flag: str) -> bool:
    """A flag the engine reads alone: `--no-FLAG` is accepted too (vLLM's BooleanOptionalAction,
    from the measured releases), or its name says so (`--enable-...`, `--disable-...`,
    `--skip-...`; `_` read as `-`, as trtllm-serve writes `--trust_remote_code`)."""
    if flag.startswith("--"):
        flag = "--" + flag[2:].replace("_", "-")
    if _SWITCH.match(flag):
        return True
    data_engine = "vllm" if engine in ("vllm", "dynamo") else engine
    return engine_flags().negatable(data_engine, flag)


def string_values(script: Script, name: str, at: Command | None = None) -> list[Word]:
    """The values of the script's plain-string assignments to `name` (none when it is ever
    assigned an array); with `at`, only those that may give the value that command reads
    (`may_reach`); in a nested script that assigns none, those of the shell that runs it where
    bash surely passes them (`_outer_assignments`), as of the command that runs it."""
    own = [a for a in script.assignments if a.name == name]
    if own and at is not None:
        if any(a.value is not None and a.value.node.type == "array" for a in own):
            return []
        own = [a for a in own if may_reach(a, at)]
        if not own:
            return []
    given = own if own or script.parent is None else _outer_assignments(script, name)
    if not own and at is not None:
        given = [a for a in given if _reaches_from(a, script)]
    values: list[Word] = []
    for assignment in given:
        value = assignment.value
        if value is None or value.node.type == "array":
            return []
        values.append(value)
    return values


def _reaches_from(assignment: Assignment, script: Script) -> bool:
    """`may_reach` for the command of the assignment's shell that runs the nested script
    (`B=...; B=...; bash -c "vllm serve m $B"`: the later value; h101)."""
    command = script.parent
    while command is not None and command.script is not assignment.command.script:
        command = command.script.parent
    return command is None or may_reach(assignment, command)


def _outer_assignments(script: Script, name: str) -> list[Assignment]:
    """For a nested script that assigns no `name`: the assignments of the shell that runs it
    it reads (`visible_assignments`: `A="--tp 8"; eval "vllm serve m $A"`, the same shell, or
    a new one whose string the running shell expands it in; the exported ones for a new shell,
    every one of them exported), only where each is a plain one
    of that shell's top level (not a command's prefix, a `local`, one in a subshell, a pipeline
    or the background) the file never `unset`s; and where the string runs in a function, only
    the one the top level makes (its value whenever the function is called: h86 F1, F2, F3)."""
    command = script.parent
    assert command is not None
    outer = command.script
    # (`A=... bash -c '...$A'`, `A=... eval '...'`: the command's own prefix gives it: h89 M4)
    prefixed = [a for a in outer.assignments if a.command is command and a.name == name]
    if prefixed:
        return prefixed if all(a.kind == "prefix" for a in prefixed) else []
    given = visible_assignments(script, name)
    # (`export A` before or after `A=...`: it exports the name, and gives no value of its own;
    # one under no condition, at the top level: h86 M1)
    marks = [a for a in given if a.kind == "export" and a.value is None]
    given = [a for a in given if a not in marks]
    exported = any(
        not m.command.guards and m.command.function is None and not m.command.apart_from_script
        for m in marks
    )
    expands = expands_in_words(command, name)  # (exported or not; h100 M4)
    plain = all(
        reaches_plainly(a, None) and (command.base == "eval" or expands or a.exported or exported)
        for a in given
    )
    if not given or not plain or outer.may_unset(name):
        return []
    if command.function is not None:
        every = [a for a in outer.assignments if a.name == name]
        if len(every) != 1 or every[0] is not given[0]:
            return []
    return given


def assignments_of(script: Script, name: str) -> list[Assignment]:
    return [a for a in script.assignments if a.name == name and a.value is not None]


def set_otherwise(script: Script, name: str) -> bool:
    """Whether the variable may get a value no assignment of the script shows: `read NAME`,
    `printf -v NAME`, `mapfile`, `getopts`, `let`, `eval "NAME=..."`, a `for` loop over words,
    a name reference to it (`declare -n ref=NAME`), or a file the script sources (`export
    NAME=numactl` there): where `assignments_of` may not be all its values."""
    for command in script.top.all_commands():
        base = command.base
        if base in ("source", "."):
            return True
        if base in _SETTERS and any(w.value == name for w in command.words[1:]):
            return True
        if base == "eval" and f"{name}=" in script.text_of(command.node):
            return True  # (`eval "EXTRA=numactl"`)
        text = script.text_of(command.node) if base in ("declare", "local", "typeset") else ""
        if _NAMEREF.search(text) and f"={name}" in text:
            return True  # (`declare -n ref=EXTRA; ref=numactl`)
        if any(a.name == name and a.kind == "for" for a in command.assignments):
            return True  # (`for EXTRA in numactl taskset`: the loop's last word stays)
    return False


# a name reference (`declare -n ref=NAME`): an assignment to it is one to NAME
_NAMEREF = lazy_compile(r"\s-[a-zA-Z]*n")
# commands that give a variable named by an argument a value
_SETTERS = frozenset({"read", "printf", "mapfile", "readarray", "getopts", "let"})


def _split(value: Word) -> list[Arg]:
    """The blank-separated pieces of a string value, each with its span in the file; pieces
    holding an expansion are left out (their words are not known)."""
    return [
        Arg(piece, span, value)
        for piece, span in value.pieces()
        if "$" not in piece and "`" not in piece
    ]


# vLLM servers that serve no OpenAI-compatible HTTP API: the legacy demo server, the gRPC one
_NOT_OPENAI = frozenset({"vllm.entrypoints.api_server", "vllm.entrypoints.grpc_server"})


def array_name(word: Word) -> str | None:
    """NAME for a word that is `"${NAME[@]}"`."""
    text = word.value
    if text.startswith("${") and text.endswith("[@]}"):
        return text[2:-4]
    return None


# `sglang serve --model-type diffusion`: SGLang's diffusion server (no flag or route data)
DIFFUSION = "sglang-diffusion"

_MODULES = {
    "vllm.entrypoints.openai.api_server": "vllm",
    # vLLM's other servers parse the same engine arguments (and their own --host, --port, ...)
    "vllm.entrypoints.api_server": "vllm",
    "vllm.entrypoints.grpc_server": "vllm",
    "sglang.launch_server": "sglang",
    "sglang.launch_server.py": "sglang",
    "sglang_router.launch_router": "sglang_router",
    # (the router with its data-parallel SGLang workers, which it starts and serves in front of:
    # the router's routes; its flags, the router's and SGLang's, are not in the data: h134 M7)
    "sglang_router.launch_server": "sglang_router",
}


# a word that asks a server program for its usage or its version, which it prints and exits
# (argparse's `-h`, vLLM's `--help=GROUP`, `--version`: h141 F7)
_HELP = lazy_compile(r"-h|--help(?:=.*)?|--version")


def _dynamo_server(module: str) -> bool:
    """A Dynamo module `python -m` runs as a server (`dynamo.frontend`, `dynamo.vllm`,
    `dynamo.sglang.decode_worker`): not one of a package's `utils` (`dynamo.sglang.utils.
    clear_namespace` clears etcd and exits; h137 F1)."""
    return module.startswith("dynamo.") and "utils" not in module.split(".")


def launch_in(words: list[Word], command: Command) -> Launch | None:
    """The engine launch these words make, behind any wrapper (`srun ... uv run vllm serve`)."""
    if not words:
        return None
    invocation = (
        command.invocation if words is command.words else resolve_words(command, tuple(words))
    )
    program = invocation.words
    base = invocation.base
    started = _container_entrypoint(invocation)
    # (`vllm serve --help`, `docker run IMAGE --help`: argparse prints its usage and exits;
    # h134 F3, h140 F3)
    if any(w.static and _HELP.fullmatch(w.value) for w in program[0 if started else 1 :]):
        return None
    if started is not None:  # `docker run IMAGE --flags`: the image's own `vllm serve`
        image, entry = started
        return Launch("vllm", " ".join(entry), command, program, image)
    if base == "vllm" and len(program) > 1 and program[1].value == "serve":
        return Launch("vllm", "vllm serve", command, program[2:])
    if base == "trtllm-serve":
        return Launch("trtllm", "trtllm-serve", command, program[1:])
    if base == "sglang" and len(program) > 1 and program[1].value == "serve":
        # (the `sglang` console script's `serve`: what `python -m sglang.launch_server` runs,
        # but for a diffusion model, which another server with other flags and routes serves)
        args = program[2:]
        values = [w.value for w in args]
        kinds = [  # (the last one given wins)
            b if a == "--model-type" else a.split("=", 1)[1]
            for a, b in itertools.pairwise([*values, ""])
            if a == "--model-type" or a.startswith("--model-type=")
        ]
        kind = DIFFUSION if kinds and kinds[-1] == "diffusion" else "sglang"
        return Launch(kind, "sglang serve", command, args)
    module = invocation.module
    if module is None:
        return None
    engine = _MODULES.get(module) or ("dynamo" if _dynamo_server(module) else None)
    if engine is None:
        return None
    at = next(  # (the module's word: `-m MODULE`, `-mMODULE`, `-m "$MODULE"`)
        i
        for i, w in enumerate(program)
        if w.value == "-m" + module or (i and program[i - 1].value == "-m")
    )
    return Launch(engine, module, command, program[at + 1 :])


def _container_entrypoint(invocation: Invocation) -> tuple[Word, tuple[str, ...]] | None:
    """The image of a `docker run` (or `podman run`) whose entrypoint runs the words after it,
    with that entrypoint, where the image's is known (`images.image_entrypoint`) and no
    `--entrypoint` replaces it; the words then start with a flag, or there are none."""
    for name in ("docker run", "podman run"):
        runner = invocation.wrapper(name)
        if runner is None or runner.has("--entrypoint") or len(runner.operands) != 1:
            continue
        image = runner.operands[0]
        entry = image_entrypoint(image.value) if image.static else ()
        words = invocation.words
        if entry and (not words or words[0].value.startswith("-")):
            return image, entry
    return None


def container_image(launch: Launch) -> tuple[str, Word] | None:
    """The image an `srun --container-image=IMAGE` (pyxis) runs the launch in, or a `docker run
    IMAGE python3 -m ...` (podman's too), and the word that names it, where written out: it
    names the release that runs. Also the image of the container whose shell runs the string
    the launch is in (`docker run IMAGE bash -c 'exec vllm serve ...'`)."""
    command: Command | None = launch.command
    while command is not None:
        found = _image_of(command)
        if found is not None:
            if command is not launch.command and _runs_its_entrypoint(command, found[0]):
                return None  # (the string is an argument of the image's own program: t84c)
            if _own_python_path(launch, command):
                return None  # (what runs may be another copy of the engine: h20)
            return found
        command = command.script.parent
    return None


def _own_python_path(launch: Launch, container: Command) -> bool:
    """Whether the container's processes get a PYTHONPATH of their own (`docker run -e
    PYTHONPATH=/sgl/python`, or `PYTHONPATH=python exec python3 -m sglang...` in the string its
    shell runs): Python imports from those folders before the image's packages, so a checkout
    of the engine mounted there runs, not the image's release (a fork's launch of its own
    code)."""
    wrapper = container.invocation.wrapper("docker run") or container.invocation.wrapper(
        "podman run"
    )
    for name, word, given in wrapper.options if wrapper is not None else ():
        if name in ("-e", "--env") and (given == "PYTHONPATH" or given.startswith("PYTHONPATH=")):
            return True
        held = assigned_to(word) if word is not None and name.startswith("$") else None
        if held is not None and any(
            a.value is not None and "PYTHONPATH" in a.value.value for a in held[1]
        ):  # (`docker run $OPTS IMAGE`, OPTS holding `-e PYTHONPATH=...`: h118 F2)
            return True
    script = launch.command.script
    while script is not container.script and script.parent is not None:
        if any(a.name == "PYTHONPATH" for a in script.assignments):
            return True
        script = script.parent.script
    return False


def _runs_its_entrypoint(command: Command, image: str) -> bool:
    """Whether a `docker run` of an image whose entrypoint is known (`vllm serve` of vLLM's
    OpenAI image) gives it the words after the image, a shell's `-c` string among them, as its
    arguments: no `--entrypoint` in its place."""
    wrapper = command.invocation.wrapper("docker run") or command.invocation.wrapper("podman run")
    return wrapper is not None and not wrapper.has("--entrypoint") and bool(image_entrypoint(image))


def _image_of(command: Command) -> tuple[str, Word] | None:
    for wrapper in command.invocation.wrappers:
        if wrapper.name in ("docker run", "podman run"):
            image_word = wrapper.operands[0] if wrapper.operands else None
            if image_word is not None and image_word.static and image_word.value:
                return image_word.value, image_word
            continue
        if wrapper.name != "srun":
            continue
        for name, word, value in wrapper.options:
            if name != "--container-image" or word is None:
                continue
            # (written out, or in a variable's value split among the options: `srun $s ...`
            # where `s="--container-image=IMAGE"`, read as written there)
            if not word.static and (not value or "$" in value or "`" in value):
                continue
            image = value
            if image and not image.startswith("-"):
                return image, word
    return None


def launches(script: Script, shapes: bool = False) -> list[Launch]:
    """Every engine launch in the script and its nested scripts, in text order, including
    argument arrays that hold a launch command. Worked out once per script and kept on it (not
    in a module-wide cache: the language server runs many times in one process). Not those of
    a string whose text may differ where it runs (`Script.may_differ`: its flags are not
    known), unless `shapes` (a rule that asks where a server is started, not with what)."""
    key = "launches, shapes" if shapes else "launches"
    known = script.memo.get(key)
    if not isinstance(known, list):
        known = script.memo[key] = _launches(script, shapes)
    return known


def _walk(script: Script, stale: bool) -> Iterator[Script]:
    yield script
    for inner in script.nested:
        if stale or not inner.may_differ:
            yield from _walk(inner, stale)


def hidden_launches(script: Script) -> list[Command]:
    """Command lines of the script and its nested scripts that are no launch benchlint reads,
    but would be one without a word whose value is not known: a program behind it
    (`$PREFIX vllm serve ...`, `${nsys_prefix} trtllm-serve ...`), or a module a variable holds
    that the script gives an engine's module among others (`python3 -m "$WORKER_MODULE"`), or a
    string a function runs through a variable the script gives another value after it
    (`Script.may_differ`)."""
    known = set()
    for launch in launches(script):
        known.add(id(launch.command))
        if launch.command.script.parent is not None:  # (`$EMPTY python3 -m ...`: read nested)
            known.add(id(launch.command.script.parent))
    found = []
    for command in script.all_commands():
        if id(command) in known or not command.words:
            continue
        words = command.words
        invocation = command.invocation
        if invocation.wrappers and not invocation.words:
            continue  # (the wrappers run nothing: `command -v trtllm-serve`, t70b)
        program = invocation.words[0] if invocation.words else None
        unknown = invocation.base is None or (program is not None and not program.static)
        if unknown and any(
            w.static and launch_in(words[i:], command) is not None
            for i, w in enumerate(words[1:], 1)
        ):
            found.append(command)
        elif invocation.module is not None and invocation.module.startswith("$"):
            at = next((i for i, w in enumerate(words) if w.value == "-m"), None)
            held = _held_modules(words[at + 1]) if at is not None and at + 1 < len(words) else ()
            if any(_MODULES.get(m) or _dynamo_server(m) for m in held):
                found.append(command)
    for inner in _walk(script, True):  # (a string a variable's value gave: may be another)
        if inner.may_differ and inner.parent is not None and _launches(inner, True):
            found.append(inner.parent)
    return found


def _held_modules(word: Word) -> list[str]:
    """The plain values the script's assignments give the variable a lone `$NAME` reads, and the
    default of one that keeps the caller's value (`MOD=${MOD:-dynamo.vllm}`)."""
    found = assigned_to(word)
    values = []
    for a in found[1] if found else ():
        if a.value is None:
            continue
        if a.value.static:
            values.append(a.value.value)
        elif (default := _DEFAULTED.fullmatch(a.value.value)) is not None:
            values.append(default.group(1))
    return values


# `${NAME:-value}` or `${NAME-value}` alone, its value plain (a module's name)
_DEFAULTED = lazy_compile(r'"?\$\{[A-Za-z_][A-Za-z0-9_]*:?-([A-Za-z0-9_.]+)\}"?')


def _launches(script: Script, stale: bool = False) -> list[Launch]:
    """The launches of the script and its nested scripts, not those of a nested script whose
    text may differ where it runs (`Script.may_differ`; with `stale`, those too)."""
    found: list[Launch] = []
    commands = (c for inner in _walk(script, stale) for c in inner.commands)
    for command in commands:
        launch = launch_in(command.words, command)
        if launch is not None:
            found.append(launch)
        for assignment in command.assignments:
            value = assignment.value
            if value is not None and value.items is not None:
                items = value.items
                launch = launch_in(items, command)
                if launch is not None:
                    found.append(launch)
    return found
