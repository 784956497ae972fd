"""How scripts start serving engines: the one place that recognises an engine launch.

`vllm serve`, `python -m vllm.entrypoints.openai.api_server`, `python -m sglang.launch_server`,
`python -m dynamo.<x>`, `trtllm-serve`, directly or behind a wrapper (`srun`, `env`, `nohup`...),
and argument arrays that hold such a command (`VLLM_CMD=(vllm serve ...)`, run later as
`"${VLLM_CMD[@]}"`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from benchlint.shell.model import WRAPPERS, Command, Script, Word


@dataclass(frozen=True, eq=False)
class Launch:
    engine: str  # vllm | sglang | sglang_router | dynamo | trtllm

    @property
    def server(self) -> str | None:
        """The HTTP server clients talk to, if this launch starts one."""
        if self.engine == "dynamo":
            return "dynamo" if self.module == "dynamo.frontend" else None
        return self.engine

    @functools.cached_property
    def argv(self) -> tuple[tuple[Word, Command], ...]:
        """The launch's arguments, with the items of every argument array it expands
        (`"${ARGS[@]}"`) in place of the expansion; each with the command that wrote it."""
        script = self.command.script
        arrays: dict[str, list[tuple[Word, Command]]] = {}
        for assignment in script.assignments:
            value = assignment.value
            if value is not None and value.node.type == "array":
                items = [(script.word(n), assignment.command) for n in value.node.named_children]
                arrays.setdefault(assignment.name, []).extend(items)
        found: list[tuple[Word, Command]] = []
        for word in self.args:
            name = array_name(word)
            if name is not None and name in arrays:
                found.extend(arrays[name])
            else:
                found.append((word, self.command))
        return tuple(found)

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


def array_name(word: Word) -> str | None:
    """NAME for a word that is `"${NAME[@]}"`."""
    text = word.value
    if text.startswith("${") and text.endswith("[@]}"):
        return text[2:-4]
    return None


def launch_in(words: list[Word], command: Command) -> Launch | None:
    if not words:
        return None
    base = words[0].value.rsplit("/", 1)[-1]
    runs_others = base in WRAPPERS or base.startswith("python")
    if not runs_others and base not in ("vllm", "trtllm-serve"):
        return None  # only the first word could start an engine, and it does not
    values = [w.value for w in words]
    for i, value in enumerate(values):
        if i and not runs_others:
            break
        name = value.rsplit("/", 1)[-1]
        following = values[i + 1] if i + 1 < len(values) else ""
        if name == "vllm" and following == "serve":
            return Launch("vllm", "vllm serve", command, tuple(words[i + 2 :]))
        if name == "trtllm-serve":
            return Launch("trtllm", "trtllm-serve", command, tuple(words[i + 1 :]))
        if value == "-m" and following:
            module = following
            if module == "vllm.entrypoints.openai.api_server":
                return Launch("vllm", module, command, tuple(words[i + 2 :]))
            if module in ("sglang.launch_server", "sglang.launch_server.py"):
                return Launch("sglang", module, command, tuple(words[i + 2 :]))
            if module == "sglang_router.launch_router":
                return Launch("sglang_router", module, command, tuple(words[i + 2 :]))
            if module.startswith("dynamo."):
                return Launch("dynamo", module, command, tuple(words[i + 2 :]))
    return None


@functools.cache
def launches(script: Script) -> list[Launch]:
    """Every engine launch in the script and its nested scripts, in text order, including
    argument arrays that hold a launch command."""
    found: list[Launch] = []
    for command in script.all_commands():
        launch = launch_in(command.words, command)
        if launch is not None:
            found.append(launch)
        for assignment in command.assignments:
            value = assignment.value
            if value is not None and value.node.type == "array":
                items = [command.script.word(n) for n in value.node.named_children]
                launch = launch_in(items, command)
                if launch is not None:
                    found.append(launch)
    return found
