"""Containers in Kubernetes YAML (a Deployment's or a LeaderWorkerSet's containers, a
DynamoGraphDeployment's `mainContainer`), Compose services and SkyPilot tasks (`run:`): the
image, and what the container runs as a script.

A container's `command` and `args` lists are one command line, each item one word (quoted, so
the shell reads it back as the item: a JSON value stays one word); with `args` and no `command`,
after the command the image runs them with, where it is known (`vllm serve` for vLLM's OpenAI
image, its words placed at the image). Modelled as a script over the YAML file, with each
character at its place in the file, the rules read an engine launch in a manifest as they read
one in a launcher: `python3 -m dynamo.vllm --flag ...` as a list,
`["/bin/sh", "-c", "python3 -m dynamo.vllm ..."]` as the nested script the shell runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from benchlint.images import image_entrypoint
from benchlint.lazyre import lazy_compile
from benchlint.shell.model import Script, nested_char_of
from benchlint.source import SourceText
from benchlint.yamlmodel import YamlDocument, YNode


@dataclass(frozen=True)
class Container:
    image: str | None  # None: the mapping names none
    script: Script  # `command` then `args`, as one command line
    image_node: YNode | None = None  # where the image is named (or the `setup:` installing)
    node: YNode | None = None  # a Kubernetes container's mapping (its probes, ports, env)
    # (engine, version) a SkyPilot task's `setup:` installs (`pip install vllm==0.19.0`)
    installed: tuple[str, str] | None = None


# a `command:`, `args:` or `entrypoint:` key (a Compose service's), or a SkyPilot task's
# `run:`: a file without one has no container's command line
_CONTAINER_KEY = lazy_compile(r"^(?:[ \t-]*(?:command|args|entrypoint)|run)[ \t]*:", re.M)


def may_hold_containers(text: str) -> bool:
    """Whether a YAML file's text may hold a container's command line (`containers`): a
    `command:`, `args:` or `entrypoint:` key, or a `run:` (a file without one holds none)."""
    return _CONTAINER_KEY.search(text) is not None


def containers(
    file: SourceText, document: YamlDocument, naming: tuple[str, ...] = ()
) -> Iterator[Container]:
    """Every mapping of the document with a `command` or `args` list of scalars (`naming`: only
    those whose items hold one of these words: modelling a long `sh -c` script costs), and a
    SkyPilot task's `run:` script (`_sky_task`)."""
    services: set[int] = set()  # (a Compose file's services: read as Compose runs them)
    for root in document.documents:
        task = _sky_task(file, root, naming)
        if task is not None:
            yield task
        for service, container in _compose_services(file, root, naming):
            services.add(id(service))
            if container is not None:
                yield container
    for node in YamlDocument.nodes(document.documents):
        if not node.is_map or id(node) in services:
            continue
        argv: list[YNode] = []
        for key in ("command", "args"):
            value = node.get(key)
            if value is None:
                continue
            if not value.is_seq or not all(item.is_scalar for item in value.items):
                argv = []
                break
            argv.extend(value.items)
        image = node.get("image")
        if image is not None and not image.is_scalar:
            image = None
        runs_args = image is not None and node.get("command") is None
        entry = image_entrypoint(image.value) if image is not None and runs_args else ()
        words = [*entry, *(item.value for item in argv), *_image_name(image)]
        if not argv or (naming and not any(n in word for word in words for n in naming)):
            continue
        line = command_line(file, argv, entry, image)
        yield Container(image.value if image is not None else None, line, image, node)


def _compose_services(
    file: SourceText, root: YNode, naming: tuple[str, ...]
) -> Iterator[tuple[YNode, Container | None]]:
    """A Compose file's services (a top-level `services:` mapping), each with the command line
    Compose runs: its `entrypoint` (else the image's, where it is known) followed by its
    `command`, not the other way round as a Kubernetes container's `command` and `args`; a
    string is split into words as Compose splits it (read as a shell's words: one with a shell
    operator or a substitution in it, which Compose would pass as text, is not read)."""
    services = root.get("services") if root.is_map else None
    if services is None or not services.is_map:
        return
    for _, service in services.pairs:
        if not service.is_map:
            continue
        image = service.get("image")
        image = image if image is not None and image.is_scalar else None
        entrypoint, command = service.get("entrypoint"), service.get("command")
        argv: list[YNode] = []
        split: set[int] = set()
        for value in (entrypoint, command):
            if value is None:
                continue
            if (
                value.is_scalar
                and not _COMPOSE_UNSAFE.search(_unquoted(value.value))
                # (Compose keeps a newline it escapes, but in single quotes: t84a, t84c)
                and not _escaped_newline(value.value)
            ):
                argv.append(value)
                split.add(id(value))
            elif value.is_seq and all(item.is_scalar for item in value.items):
                argv.extend(value.items)
            else:
                argv = []
                break
        entry = image_entrypoint(image.value) if image is not None and entrypoint is None else ()
        words = [*entry, *(item.value for item in argv), *_image_name(image)]
        if command is None and entrypoint is None:
            continue
        if not argv or (naming and not any(n in word for word in words for n in naming)):
            yield service, None
            continue
        line = command_line(file, argv, entry, image, frozenset(split))
        yield service, Container(image.value if image is not None else None, line, image)


def _image_name(image: YNode | None) -> tuple[str, ...]:
    """The image's name, for `naming`: a container of an image named for an engine
    (`opea/vllm-rocm`) whose command line is only its options names the engine nowhere else."""
    return (image.value,) if image is not None else ()


def only_options(container: Container) -> bool:
    """Whether the container's command line is options alone (`--model m --port 80`) for an
    image whose entrypoint is not known: what runs them is the image's business."""
    commands = container.script.commands
    return bool(commands and commands[0].words and commands[0].words[0].value.startswith("-"))


def healthcheck_scripts(file: SourceText, document: YamlDocument) -> Iterator[Script]:
    """The command line of each Compose service's `healthcheck.test`: `["CMD-SHELL", "..."]`
    (or a string) is a script `/bin/sh -c` runs, `["CMD", ...]` the words of one (h101 M1)."""
    for root in document.documents:
        services = root.get("services") if root.is_map else None
        for _, service in services.pairs if services is not None and services.is_map else ():
            check = service.get("healthcheck") if service.is_map else None
            test = check.get("test") if check is not None and check.is_map else None
            if test is None:
                continue
            if test.is_scalar and test.value:
                yield command_line(file, [test], ("/bin/sh", "-c"), test)
                continue
            items = list(test.items) if test.is_seq else []
            if len(items) < 2 or not all(item.is_scalar for item in items):
                continue
            if items[0].value == "CMD-SHELL":
                yield command_line(file, items[1:2], ("/bin/sh", "-c"), items[1])
            elif items[0].value == "CMD":
                yield command_line(file, items[1:])


# what a shell reads otherwise than Compose splits a string: operators, substitutions, comments
# (outside quotes: `bash -lc "source env.sh && vllm serve ..."` is three words to both; t82b)
_COMPOSE_UNSAFE = lazy_compile(r"[;&|<>()`#'\"]|\$\(")
_QUOTED = lazy_compile(r"""'[^']*'|"(?:[^"\\]|\\.)*"|\\.""", re.DOTALL)


_QUOTED_OR_NEWLINE = lazy_compile(_QUOTED.pattern + "|\n", re.DOTALL)


def _escaped_newline(value: str) -> bool:
    """Whether the string has a backslash-newline outside single quotes (read as the shell
    reads quotes: an apostrophe in double quotes is no quote; t84d)."""
    quote = ""
    i = 0
    while i < len(value):
        c = value[i]
        if c == "\\" and quote != "'":
            if value[i + 1 : i + 2] == "\n":
                return True
            i += 2
            continue
        if c in "'\"" and quote in ("", c):
            quote = "" if quote else c
        i += 1
    return False


def _unquoted(value: str) -> str:
    """The string without its quoted parts and escaped characters (an unclosed quote is left,
    which `_COMPOSE_UNSAFE` finds: the string is then not read)."""
    return _QUOTED.sub(" ", value)


def _sky_task(file: SourceText, root: YNode, naming: tuple[str, ...]) -> Container | None:
    """A SkyPilot task (a document whose top level has a `run:` script and `resources:`, or,
    `resources:` being optional, only keys of a task with a `setup:` too, t87 h12): its `run:`
    script as `bash -c` runs it, in the image `resources.image_id` names (`docker:
    vllm/vllm-openai:v0.6.0`; none where the task runs on the host, or its `setup:` installs
    an engine, whose release is then the one it installs)."""
    run = root.get("run") if root.is_map else None
    if run is None or not run.is_scalar:
        return None
    resources = root.get("resources")
    keys = {k.value for k, _ in root.pairs if k.is_scalar}
    if resources is None and not ("setup" in keys and keys <= _SKY_KEYS):
        return None
    if resources is not None and not resources.is_map:
        return None
    if naming and not any(n in run.value for n in naming):
        return None
    image = resources.get("image_id") if resources is not None else None
    value = image.value if image is not None and image.is_scalar else None
    name = value.removeprefix("docker:") if value and value.startswith("docker:") else None
    setup = root.get("setup")
    line = command_line(file, [run], ("bash", "-c"), run, dollars=False)
    if (
        setup is not None
        and setup.is_scalar
        and _INSTALLS.search(_SHELL_COMMENT.sub("", setup.value))
    ):
        # (`setup: pip install vllm==0.19.0`: the release that runs is the one it installs,
        # where it pins one engine's exact release, else not known)
        pinned = _one_pin(setup.value, run.value)
        if pinned is not None:
            return Container(None, line, setup, installed=pinned)
        return Container(None, line)
    return Container(name, line, image if name is not None else None)


def _one_pin(setup: str, run: str) -> tuple[str, str] | None:
    """The (engine, release) a task's `setup:` installs where it is plain: one exact pin
    (`pip install vllm==0.19.0`), its comments aside, no other install and no other word naming
    an engine (a second pin, a `git+https://.../vllm.git` or wheel, `pip install -e .` after
    it: t75a); None where `run:` itself installs or starts a container (its server runs
    elsewhere)."""
    text = _SHELL_COMMENT.sub("", setup)
    pins = list(_PINNED.finditer(text))
    if len(pins) != 1 or len(_ENGINE_WORD.findall(text)) != 1:
        return None
    if len(_INSTALLS_OR_CONTAINER.findall(text)) != 1:
        return None  # (another install may replace it: `pip install -e .` of a checkout)
    if _INSTALLS_OR_CONTAINER.search(run):
        return None
    return pins[0]["engine"].lower(), pins[0]["version"]


# the top-level keys of a SkyPilot task (its YAML specification)
_SKY_KEYS = frozenset(
    {
        "name", "workdir", "num_nodes", "resources", "envs", "secrets", "file_mounts",
        "setup", "run", "service", "config", "volumes", "event_callback", "inputs", "outputs",
    }
)  # fmt: skip
# a comment: `#` at a line's start or after a blank, to the end of the line
_SHELL_COMMENT = lazy_compile(r"(?:^|(?<=\s))#[^\n]*")
# a word naming an engine (a package, a URL's repository, a wheel's file)
_ENGINE_WORD = lazy_compile(r"(?<![\w-])(?:vllm|sglang|tensorrt[-_]llm)(?![\w-])", re.I)
# a task's `run:` that installs packages or runs a container itself
_INSTALLS_OR_CONTAINER = lazy_compile(r"\bpip3?\s+install\b|\b(?:docker|podman)\s+run\b")


# a task's `setup:` that installs an engine (`pip install vllm==...`, `uv pip install sglang`)
_INSTALLS = lazy_compile(
    r"\bpip3?\s+install\b[^\n;&|]*?(?<=\s)[\"']?(?:vllm|sglang|tensorrt[-_]llm)"
    r"(?:\[[^\]]*\])?(?:[=<>~!]=?[^\s;&|]*)?[\"']?(?=[\s;&|]|$)",
    re.I,
)


# an install of one exact release (`pip install vllm==0.19.0`, `uv pip install
# "sglang[all]==0.4.2.post4"`)
_PINNED = lazy_compile(
    r"\bpip3?\s+install\b[^\n;&|]*?(?<=\s)[\"']?(?P<engine>vllm|sglang)(?:\[[^\]]*\])?"
    r"==(?P<version>\d+(?:\.\d+)*(?:\.?post\d+)?)[\"']?(?=[\s;&|]|$)",
    re.I,
)


def command_line(
    file: SourceText,
    argv: list[YNode],
    entry: tuple[str, ...] = (),
    at: YNode | None = None,
    split: frozenset[int] = frozenset(),
    dollars: bool = True,
) -> Script:
    """The scalars as one command line: each item single-quoted (those in `split`, by id, as
    they are: words to split), each character of the line at the file offset of the item's
    character it stands for (a quote at its item's first or last character; an item whose
    characters cannot be placed, at its first); after the `entry` words, placed at the start of
    `at` (the image that runs them). `dollars`: each `$$` is the one `$` Kubernetes and Compose
    make of it before the container starts (h101 F1: `for i in $$(seq 3)`)."""
    text: list[str] = []
    offsets: list[int] = []

    def put(chars: str, offset: int) -> None:
        text.append(chars)
        offsets.extend([offset] * len(chars))

    for word in entry:
        put(word + " ", _start(file, at) if at is not None else 0)
    for index, node in enumerate(argv):
        value = node.value
        start = _start(file, node)
        places = _places(file, node, start) or [start] * len(value)
        if dollars and "$$" in value:
            value, places = _one_dollar(value, places)
        if index:
            put(" ", offsets[-1])
        if id(node) in split:  # (a newline outside quotes parts words, as a blank does)
            text.append(_QUOTED_OR_NEWLINE.sub(lambda m: " " if m[0] == "\n" else m[0], value))
            offsets.extend(places)
            continue
        put("'", places[0] if places else start)
        if "'" not in value:  # (the usual item: its characters as they are, at their places)
            text.append(value)
            offsets.extend(places)
        else:
            for char, offset in zip(value, places, strict=True):
                put("'\\''" if char == "'" else char, offset)
        put("'", places[-1] if places else start)
    line = "".join(text)
    src = line.encode("utf-8", errors="surrogateescape")
    return Script(file, src, nested_char_of(line, offsets), contiguous=False)


def _one_dollar(value: str, places: list[int]) -> tuple[str, list[int]]:
    """The value with each `$$` (paired left to right) made one `$`, at the first one's place."""
    text: list[str] = []
    kept: list[int] = []
    index = 0
    while index < len(value):
        text.append(value[index])
        kept.append(places[index])
        index += 2 if value.startswith("$$", index) else 1
    return "".join(text), kept


def _start(file: SourceText, node: YNode) -> int:
    span = node.span
    return file.line_starts[span.line - 1] + span.column - 1


def _places(file: SourceText, node: YNode, start: int) -> list[int] | None:
    """The file offset of each character of a scalar's value: a one-line plain or quoted
    scalar written as its value, or a literal block (`|`) each of whose lines is a line of the
    file after its indentation; None for any other (folded, escaped)."""
    value, span = node.value, node.span
    if node.style in (None, "'", '"') and span.line == span.end_line:
        raw = file.text[start : file.line_starts[span.line - 1] + span.end_column - 1]
        quoted = node.style is not None
        if (raw[1:-1] if quoted else raw) == value:
            first = start + quoted
            return list(range(first, first + len(value)))
        return None
    if node.style == ">":
        return _folded_places(file, node)
    if node.style != "|":
        return None
    places: list[int] = []
    indent = None
    for k, content in enumerate(value.split("\n")):
        number = span.line + 1 + k
        if number > len(file.line_starts):
            return places if len(places) == len(value) else None
        line = file.line_text(number)
        if indent is None and content:
            indent = len(line) - len(line.lstrip(" "))
        at = file.line_starts[number - 1] + (indent or 0)
        if content and line[indent or 0 :] != content:
            return None
        places.extend(range(at, at + len(content)))
        if len(places) < len(value):  # the newline after it
            places.append(file.line_starts[number - 1] + len(line))
    return places if len(places) == len(value) else None


def _folded_places(file: SourceText, node: YNode) -> list[int] | None:
    """A folded block (`>`) of lines at one indentation, with no blank or more-indented line:
    its value is the lines joined by blanks, each blank placed at the line break it folds."""
    value, span = node.value, node.span
    places: list[int] = []
    indent = None
    text: list[str] = []
    number = span.line + 1
    while len("".join(text)) < len(value.rstrip("\n")) and number <= len(file.line_starts):
        line = file.line_text(number)
        if indent is None:
            indent = len(line) - len(line.lstrip(" "))
        content = line[indent:]
        if not content.strip() or content[:1] in " \t":
            return None
        if text:
            text.append(" ")
            places.append(file.line_starts[number - 2] + len(file.line_text(number - 1)))
        text.append(content)
        at = file.line_starts[number - 1] + indent
        places.extend(range(at, at + len(content)))
        number += 1
    if value.endswith("\n"):
        text.append("\n")
        places.append(file.line_starts[number - 2] + len(file.line_text(number - 1)))
    return places if "".join(text) == value else None
