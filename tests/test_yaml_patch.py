"""A one-line edit read without parsing again gives exactly what parsing the new text gives."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchlint.source import SourceText
from benchlint.wiring import Change, Leaves, _diff, _leaves, _patched_leaves
from benchlint.yamlmodel import YamlDocument, YamlError, parse_yaml
from benchlint.yamlpatch import patched
from tests.test_yaml_model import _dump

RECIPE = """\
name: "dsr1-agg-tp8"   # shown in the dashboard
model:
  path: /models/dsr1
  container: 'lmsys/sglang:v0.5'
health_check:
  max_attempts: 60  # shadowed: the last one counts
  max_attempts: 1440
  interval_seconds: 10
backend:
  type: sglang
  args:
    - --tp
    - 8
    - port: 30000
      host: 0.0.0.0
flow: {a: 1,
  b: 2
}
last: end
"""


def _parse(text: str) -> YamlDocument:
    return parse_yaml(SourceText("recipe.yaml", text.encode()))


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1
    return text.replace(old, new)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("max_attempts: 1440", "max_attempts: 720"),  # the launchers' usual sed
        ('name: "dsr1-agg-tp8"', 'name: "${RUNNER_NAME}"'),  # quoted, a comment after it
        ("path: /models/dsr1", "path: '/data/models/dsr1'"),  # plain to quoted
        ("container: 'lmsys/sglang:v0.5'", "container: lmsys/sglang"),  # quoted to plain
        ("    - 8", "    - 16"),  # a sequence item
        ("    - port: 30000", "    - port: 8000"),  # in a mapping that starts on the line
        ("  b: 2", "  b: 3"),  # a flow mapping over several lines
        ("last: end", "last: start"),
    ],
)
def test_simple_edits_are_read_in_place(old: str, new: str) -> None:
    before = _parse(RECIPE)
    text = _edit(RECIPE, old, new)
    patch = patched(before, text)
    assert patch is not None
    result = patch.document
    assert [_dump(d) for d in result.documents] == [_dump(d) for d in _parse(text).documents]
    assert result.file.text == text
    # the original is left as it was
    assert [_dump(d) for d in before.documents] == [_dump(d) for d in _parse(RECIPE).documents]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("max_attempts: 1440", "max_attempts: 1440\n  extra: 1"),  # a line added
        ("max_attempts: 1440", "max_attempts: a: b"),  # no longer one scalar
        ("max_attempts: 1440", "max_attempts: 1440 # note"),  # a comment added
        ("max_attempts: 1440", "max_attempts: [1440]"),  # a collection
        ("max_attempts: 1440", 'max_attempts: "a\\tb"'),  # an escape
        ("max_attempts: 1440", "max_attempts: |"),  # a block scalar
        ("max_attempts: 1440", "max_attempts:"),  # emptied
        ("max_attempts: 1440", "max_tries: 1440"),  # the key
        ("flow: {a: 1,", "flow: {a: 2,"),  # followed by a comma in a flow mapping
        ("type: sglang", "type: sglang ünïcode"),  # not printable ASCII
    ],
)
def test_other_edits_are_left_to_the_parser(old: str, new: str) -> None:
    assert patched(_parse(RECIPE), _edit(RECIPE, old, new)) is None


def test_a_file_with_an_anchor_is_left_to_the_parser() -> None:
    text = "a: &x 5\nb: *x\nc: 1\n"  # editing `5` would change b too; c is not safe either
    assert patched(_parse(text), text.replace("c: 1", "c: 2")) is None
    assert patched(_parse("cmd: a && b\nc: 1\n"), "cmd: a && b\nc: 2\n") is not None


def test_two_lines_changed_are_left_to_the_parser() -> None:
    text = _edit(_edit(RECIPE, "1440", "720"), "interval_seconds: 10", "interval_seconds: 5")
    assert patched(_parse(RECIPE), text) is None


def test_a_value_on_the_last_line_without_a_newline() -> None:
    # libyaml ends the mappings on the line after it all the same
    patch = patched(_parse("a:\n  b: 1"), "a:\n  b: 22")
    assert patch is not None
    expected = _parse("a:\n  b: 22").documents
    assert [_dump(d) for d in patch.document.documents] == [_dump(d) for d in expected]


def test_a_scalar_document_at_column_one_is_left_to_the_parser() -> None:
    assert patched(_parse("abc\n"), "...\n") is None


_VALUE = st.text(alphabet="aZ09_./-+=@%:#'\" \\{}[],&*!|>?~\t", min_size=0, max_size=12)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=RECIPE.count("\n") - 1), _VALUE, st.booleans())
def test_any_edit_of_one_line_is_read_as_the_parser_reads_it(
    line: int, value: str, keep_prefix: bool
) -> None:
    """Replace what follows the first `: ` or `- ` of a line (or the whole line) by anything:
    either the edit is declined, or the result is exactly the parser's."""
    lines = RECIPE.split("\n")
    old = lines[line]
    cut = max(old.find(": ") + 2 if ": " in old else 0, old.find("- ") + 2 if "- " in old else 0)
    lines[line] = (old[:cut] if keep_prefix else "") + value
    text = "\n".join(lines)
    before = _parse(RECIPE)
    patch = patched(before, text)
    if patch is None:
        return
    try:
        expected = _parse(text)
    except YamlError:
        raise AssertionError(f"patched text that does not parse: {lines[line]!r}") from None
    assert [_dump(d) for d in patch.document.documents] == [_dump(d) for d in expected.documents]
    # and the simulation's leaves and changes, updated in place, are those of the new text
    leaves = _leaves(before.root)
    after, changes = _patched_leaves(leaves, patch)
    assert _shown(after) == _shown(_leaves(expected.root))
    assert _changes(changes) == _changes(_diff(leaves, _leaves(expected.root)))


def _shown(leaves: Leaves) -> dict[tuple[str, ...], Any]:
    return {path: _dump(value) for path, (_, value) in leaves.items()}


def _changes(changes: list[Change]) -> list[Any]:
    return [(c.path, c.old and c.old.value, c.new and c.new.value) for c in changes]


@pytest.mark.parametrize(
    ("old", "new", "changed"),
    [
        (
            "max_attempts: 1440",
            "max_attempts: 720",
            [(("health_check", "max_attempts"), "1440", "720")],
        ),
        ("max_attempts: 60", "max_attempts: 30", []),  # shadowed by the later key
        ("    - 8", "    - 16", [(("backend", "args", "[1]"), "8", "16")]),
        ("type: sglang", "type: 'sglang'", []),  # the same value, quoted
    ],
)
def test_leaves_after_a_patch(old: str, new: str, changed: list[Any]) -> None:
    before = _parse(RECIPE)
    text = _edit(RECIPE, old, new)
    patch = patched(before, text)
    assert patch is not None
    leaves = _leaves(before.root)
    after, changes = _patched_leaves(leaves, patch)
    assert _changes(changes) == changed
    assert _shown(after) == _shown(_leaves(_parse(text).root))
