"""The sed simulation: running only the lines an `s` script can change gives what running every
line gives."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlint import rewrite
from benchlint.rewrite import RewriteError, parse_sed, run_sed

EXPRESSIONS = ["a", "^a", "b$", "a.*b", "[^x]*", "x*", "^", "$", "\\(a\\)\\1", "ab\\|ba", "\\n"]
REPLACEMENTS = ["", "X", "&&", "[\\1]", "\\n"]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.lists(
        st.tuples(st.sampled_from(EXPRESSIONS), st.sampled_from(REPLACEMENTS), st.booleans()),
        min_size=1,
        max_size=3,
    ),
    st.text(alphabet="abx \n", max_size=40),
)
def test_only_the_lines_a_script_can_change_are_run(
    commands: list[tuple[str, str, bool]], text: str
) -> None:
    script = ";".join(f"s/{e}/{r}/{'g' if g else ''}" for e, r, g in commands)
    assert _run(script, text) == _run(script, text, every_line=True)


def _run(script: str, text: str, every_line: bool = False) -> str:
    saved = rewrite._changed_lines
    if every_line:
        rewrite._changed_lines = lambda commands, text: None
    try:
        return run_sed(parse_sed(script), text)
    except RewriteError as exc:  # e.g. a reference to a group the expression has not
        return f"error: {exc}"
    finally:
        rewrite._changed_lines = saved


def test_a_reference_to_a_missing_group_is_not_simulated() -> None:
    with pytest.raises(RewriteError, match="invalid reference"):
        parse_sed("s/a/[\\1]/")


@pytest.mark.parametrize(
    ("script", "lines"),
    [
        ("s/max_attempts: 1440/max_attempts: 720/", {1: 8}),
        ("s/^name: .*/name: x/;s/b$/c/", {0: 0, 2: 27}),
        ("s/zzz/y/", {}),
        ("s/1440$/x/", {1: 8}),  # (the line's start, not the match's)
        ("/name/s/a/b/", None),  # an address: every line runs
        ("s/a[^q]*b/x/", None),  # a match over lines of the text
    ],
)
def test_changed_lines(script: str, lines: dict[int, int] | None) -> None:
    text = "name: a\nmax_attempts: 1440\nab\n"
    assert rewrite._changed_lines(parse_sed(script), text) == lines
