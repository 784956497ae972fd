"""A Kubernetes container's command line as a script: its words are the list's items as
PyYAML reads them, and each character a word has in the file is found where the file has it."""

from __future__ import annotations

import pytest
import yaml

from benchlint.images import dynamo_release, dynamo_runtime
from benchlint.manifests import command_line, containers
from benchlint.source import SourceText
from benchlint.yamlmodel import parse_yaml

MANIFEST = """\
spec:
  containers:
    - name: plain
      image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.1
      command: [python3, -m, dynamo.vllm]
      args:
        - --kv-transfer-config
        - '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'
        - "--served-model-name"
        - it's a name
        - 'say ''hi'''
        - "tab\\there"
        - folded
          onto two lines
        - café ünïcode
        - $(POD_IP):8000
    - name: shell
      image: vllm/vllm-openai:v0.11.0
      command: ["/bin/sh", "-c"]
      args:
        - |
          set -e
            echo "indented more"

          exec python3 -m dynamo.vllm --port 8000
    - name: string
      command: python3 -m dynamo.vllm
"""


def _file() -> tuple[SourceText, list[object]]:
    file = SourceText("deploy/x.yaml", MANIFEST.encode())
    document = parse_yaml(file)
    return file, list(containers(file, document))


def test_a_container_command_line_has_the_items_as_pyyaml_reads_them() -> None:
    _, found = _file()
    expected = yaml.safe_load(MANIFEST)["spec"]["containers"]
    assert len(found) == 2  # a command that is a string is no list: not a command line
    for container, spec in zip(found, expected, strict=False):
        script = container.script  # type: ignore[attr-defined]
        (command,) = [c for c in script.commands if c.words]
        assert [w.value for w in command.words] == spec["command"] + spec["args"]
        assert all(w.static for w in command.words)


def test_each_character_is_where_the_file_has_it() -> None:
    """Characters placed in the file are the value's own; an item that cannot be placed
    character by character (escapes, folding) is placed at its start."""
    file, found = _file()
    placed = unplaced = 0
    for container in found:
        script = container.script  # type: ignore[attr-defined]
        for command in script.all_commands():
            for word in command.words:
                offsets = word.offsets
                if len(set(offsets)) == 1 and len(word.value) > 1:
                    unplaced += 1
                    continue
                placed += 1
                assert "".join(file.text[o] for o in offsets) == word.value
    # the escaped tab, the folded scalar and the doubled quote are placed at their start
    assert unplaced == 3
    assert placed > 20


def test_the_shell_string_is_a_nested_script_at_its_place() -> None:
    _, found = _file()
    shell = found[1].script  # type: ignore[attr-defined]
    (nested,) = shell.nested
    port = next(w for c in nested.all_commands() for w in c.words if w.value == "--port")
    line = MANIFEST.splitlines().index("          exec python3 -m dynamo.vllm --port 8000") + 1
    assert (port.span.line, port.span.column) == (line, 39)


def test_a_dynamo_runtime_image_names_its_release() -> None:
    assert dynamo_release("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.1") == "0.8.1"
    assert dynamo_release("nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.0.0-cuda13") == "1.0.0"
    assert dynamo_release("vllm/vllm-openai:v0.11.0") is None
    assert dynamo_release("nvcr.io/nvidia/ai-dynamo/vllm-runtime:latest") is None
    assert dynamo_release(None) is None
    assert dynamo_release("registry.example/aibrix/ai-dynamo-vllm-runtime:1.2.0") == "1.2.0"
    assert dynamo_release("example/my-vllm-runtime:1.2.0") is None


@pytest.mark.parametrize(
    ("image", "runtime"),
    [
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0", ("vllm", "0.8.0")),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:v0.8.0", ("vllm", "0.8.0")),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0.post1", ("vllm", "0.8.0")),
        ("nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.0.0-cuda13", ("sglang", "1.0.0")),
        ("nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.0@sha256:ab", ("trtllm", "0.8.0")),
        ("registry.example/aibrix/ai-dynamo-vllm-runtime:1.2.0", ("vllm", "1.2.0")),
        # (h86 F7, F8: another project's runtime image; a pre-release or a dev build)
        ("registry.example.com/team/vllm-runtime:0.9.0", None),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0rc1", None),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0-rc1", None),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0.dev20251201", None),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0-nightly", None),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:latest", None),
    ],
)
def test_a_dynamo_runtime_image_names_its_engine_and_release(
    image: str, runtime: tuple[str, str] | None
) -> None:
    assert dynamo_runtime(image) == runtime


def test_an_item_list_of_one_word_is_one_word() -> None:
    file = SourceText("a.yaml", b"command: [\"a b\", 'c']\n")
    node = parse_yaml(file).root
    assert node is not None
    items = node.get("command")
    assert items is not None
    script = command_line(file, list(items.items))
    assert [w.value for w in script.commands[0].words] == ["a b", "c"]


def test_block_scalars_of_every_form_are_placed_or_fall_back() -> None:
    """`|-`, `|+`, an indentation indicator and CRLF line ends: each word's characters are the
    file's where placed, else all at the item's start; the words are PyYAML's items."""
    text = (
        "command: [/bin/sh, -c]\nargs:\n  - |-\n    exec vllm serve m \\\n      --port 8000\n"
        "  - |+\n    tail\n\n  - |2\n      indented\n    x\n"
    )
    for data in (text, text.replace("\n", "\r\n")):
        file = SourceText("k.yaml", data.encode())
        (container,) = containers(file, parse_yaml(file))
        loaded = yaml.safe_load(data)
        (command,) = [c for c in container.script.commands if c.words]
        assert [w.value for w in command.words] == loaded["command"] + loaded["args"]
        for script in container.script.walk():
            for c in script.commands:
                for word in c.words:
                    offsets = word.offsets
                    placed = "".join(file.text[o] for o in offsets)
                    assert placed == word.value or len(set(offsets)) == 1, word.value
