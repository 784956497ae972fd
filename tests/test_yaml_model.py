"""The YAML model: the C-backed builder agrees with the pure YAML 1.2 composer."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlint.finding import Span
from benchlint.source import SourceText
from benchlint.yamlmodel import YNode, parse_yaml
from benchlint.yamlparse import _compose_pure, _convert


def _dump(node: YNode) -> Any:
    if node.kind == "scalar":
        return (node.value, node.style, tuple(node.span))
    if node.kind == "map":
        return ("map", tuple(node.span), [(_dump(k), _dump(v)) for k, v in node.pairs])
    return ("seq", tuple(node.span), [_dump(i) for i in node.items])


@pytest.mark.parametrize(
    ("text", "fast"),
    [
        # libyaml rejects a colon inside a flow scalar; YAML 1.2 (and srtctl) reads it
        ("model: { path: q, container: lmsys/sglang:nightly-dev, precision: fp4 }\n", True),
        ("container: { image: vllm/vllm-openai:nightly-3ee2 }\nurl: {u: http://h:30000}\n", True),
        ("a: [b:c, 'd:e', f]\nk: {x:y: 1}\n", True),
        ("\ue000: {image: a:b}\n", True),  # the first private-use character is taken
        ("é: {image: ünï:cödé}\n", True),  # positions are characters
        ("a: {b: c:}\n", False),  # a colon before '}': left to the pure composer
    ],
)
def test_flow_scalars_with_colons_match_the_yaml_1_2_composer(
    text: str, fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    memo: dict[int, YNode] = {}
    pure = [_convert(node, memo) for node in _compose_pure(text)]
    if fast:  # from libyaml's events, not the pure composer (17x slower on an InferenceX recipe)

        def fails(text: str) -> list[Any]:
            raise AssertionError("the pure composer was used")

        monkeypatch.setattr("benchlint.yamlparse._compose_pure", fails)
    document = parse_yaml(SourceText("recipe.yaml", text.encode()))
    assert [_dump(d) for d in document.documents] == [_dump(d) for d in pure]


def test_duplicate_keys_with_colons_are_still_found() -> None:
    document = parse_yaml(SourceText("r.yaml", b"m: {image: a:b, image: a:c}\n"))
    [duplicate] = list(document.duplicates())
    assert duplicate.winner.value == "a:c"
    assert tuple(duplicate.again.span)[:2] == (1, 17)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("name: {{.Name}}\n", (1, 8)),  # a Go template's field: a map keying a map
        ("? [a, b]\n: c\n", (1, 3)),
        ("k: &s [1]\n*s : 2\n", (2, 1)),  # an alias of a sequence as a key
    ],
)
def test_a_collection_as_a_key_fails_as_pyyaml_fails(text: str, where: tuple[int, int]) -> None:
    """Legal YAML that PyYAML cannot load (a dict or a list cannot be hashed): an error at the
    key, as `yaml.safe_load` raises; a flow mapping as a value loads."""
    import yaml

    from benchlint.yamlmodel import YamlError

    with pytest.raises(yaml.constructor.ConstructorError, match="unhashable"):
        yaml.safe_load(text)
    with pytest.raises(YamlError, match="found unhashable key") as raised:
        parse_yaml(SourceText("t.yaml", text.encode()))
    assert tuple(raised.value.span)[:2] == where
    # the pure composer's nodes (where libyaml rejects the file) are held to it too
    # (an alias's error is at the node it names there)
    with pytest.raises(YamlError, match="found unhashable key"):
        [_convert(node, {}) for node in _compose_pure(text)]
    assert parse_yaml(SourceText("t.yaml", b"a: {b: {c: 1}}\n")).documents


def test_spans_survive_packing_at_their_limits() -> None:
    """A node keeps its span in one int: lines and columns far past any real file round-trip,
    and the end set when a collection closes leaves its start alone."""
    from benchlint.finding import Span
    from benchlint.yamlmodel import YNode

    far = Span(9_000_000, 12_000_000, 9_000_001, 3)
    node = YNode("scalar", far, "x")
    assert node.span == far
    node.span = Span(1, 2, 3, 4)
    assert node.span == Span(1, 2, 3, 4)
    text = "a:\n  b: [1, 2]\n" + "c: " + "x" * 70_000 + "\n"
    from benchlint.source import SourceText
    from benchlint.yamlmodel import parse_yaml

    root = parse_yaml(SourceText("t.yaml", text.encode())).root
    assert root is not None
    b = root.path("a", "b")
    assert b is not None and b.span == Span(2, 6, 2, 12)
    c = root.get("c")
    assert c is not None and c.span == Span(3, 4, 3, 70_004)


@pytest.mark.parametrize(
    "text",
    [
        "a: &x {b: 1, c: [2, 3]}\nd: *x\ne: *x\n",  # aliases share the node they name
        "s: &s v\nt: *s\nu: {<<: {k: 1}, k: 2}\n",  # a scalar aliased; a merge key
        "a: &l [1, *l]\n",  # an alias inside what it names
        "a: 1\nb: 2\na: 3\nm: {x: 1, x: 2}\n",  # repeated keys: noted by the builder
        "---\na: 1\n---\n- b\n- 'c'\n- |\n  d\n",  # documents, styles
        "a: 1\r\nb: [x,\r\n y]\r\n",  # CRLF
        "m: {image: a/b:tag, u: http://h:30000}\n",  # colons inside flow scalars
        "a: {b: c:}\n",  # the pure composer's nodes (no repeats noted)
        "",
    ],
)
def test_a_document_survives_its_plain_data_form(text: str) -> None:
    """What a worker process sends and the cache keeps decodes to the same model: nodes, spans,
    values, styles, the nodes aliases share, and the mappings with a repeated key."""
    import marshal

    from benchlint.yamlmodel import YamlDocument, decode_documents, encode_documents

    def shape(document: YamlDocument) -> Any:
        walked = list(document.walk())
        order = {id(node): i for i, node in enumerate(walked)}
        nodes = [
            (
                n.kind,
                n.span,
                n.value,
                n.style,
                [(order[id(k)], order[id(v)]) for k, v in n.pairs],
                [order[id(i)] for i in n.items],
            )
            for n in walked
        ]
        repeats = None if document._repeats is None else [order[id(m)] for m in document._repeats]
        return nodes, repeats, [order[id(d)] for d in document.documents]

    source = SourceText("r.yaml", text.encode())
    document = parse_yaml(source)
    encoded = marshal.loads(marshal.dumps(encode_documents(document)))
    decoded = decode_documents(source, encoded)
    assert shape(decoded) == shape(document)
    assert [(d.first.span, d.again.span) for d in decoded.duplicates()] == [
        (d.first.span, d.again.span) for d in document.duplicates()
    ]


def test_a_character_of_a_literal_block_is_placed_on_its_own_line() -> None:
    """`value_span` in a `run: |` block: the value's lines are the file's, after the indicator,
    without the block's indentation, so a line repeated in the block is placed where it is
    (not at the scalar's start, as a search for the text around it would have to)."""
    from benchlint.yamlmodel import value_span

    text = (
        "steps:\n  - run: |\n\n      python3 x.py --a\n      python3 x.py --a\n"
        "      echo ${{ x }}\n"
    )
    source, (run,) = _runs(text)
    value = run.value
    second = value.index("--a", value.index("--a") + 1)
    assert value_span(source, run, second)[:2] == (5, 20)
    assert value_span(source, run, value.index("--a"))[:2] == (4, 20)
    assert value_span(source, run, value.index("echo"))[:2] == (6, 7)


def test_a_character_of_a_folded_or_escaped_scalar_is_placed_where_it_is_written() -> None:
    """A folded scalar joins its lines with a blank, a double-quoted one writes `"` as `\\"`:
    the text before the character is not the file's, the text after it is (or the reverse),
    and either places it, found once or as many times as the value has it; else the scalar's
    start is given."""
    from benchlint.yamlmodel import value_span

    text = (
        "steps:\n  - run: >\n      python a.py\n      --sha x --bogus-folded\n"
        '  - run: "python a.py --sha \\"x\\" --bogus-dq"\n'
        "  - run: >\n      x x\n      x x\n"
    )
    source, (folded, quoted, repeated) = _runs(text)
    assert value_span(source, folded, folded.value.index("--bogus"))[:2] == (4, 15)
    assert value_span(source, quoted, quoted.value.index("--bogus"))[:2] == (5, 35)
    # (the last `x`, after the join of two lines: the text around it is not the file's, and
    # `x` alone is there four times, as in the value: the fourth, h103 W3)
    assert value_span(source, repeated, 6)[:2] == (8, 9)
    # (the `a` an escape writes, `\\x61`: where the escape starts, after the text before it)
    source, (_, _, escaped) = _runs(text.replace(">\n      x x\n      x x", '"a \\x61 a"'))
    assert escaped.value == "a a a"
    assert value_span(source, escaped, 2)[:2] == (6, 13)


def _runs(text: str) -> tuple[SourceText, list[YNode]]:
    """A workflow's text and the `run:` scalars of its steps, in order."""
    source = SourceText("w.yml", text.encode())
    document = parse_yaml(source)
    assert document is not None and document.root is not None
    return source, [item.get("run") for item in document.root.get("steps").items]


_FIELDS = st.integers(min_value=1, max_value=(1 << 28) - 1)


@settings(max_examples=500, deadline=None)
@given(st.tuples(_FIELDS, _FIELDS, _FIELDS, _FIELDS) | st.tuples(*[st.integers(1, 9000)] * 4))
def test_a_packed_span_gives_its_fields_back(fields: tuple[int, int, int, int]) -> None:
    """Narrow spans (lines below 2**17, columns below 2**13: an int of 32 bytes) and wide ones
    (28 bits a field) both unpack to what was packed."""
    from benchlint.yamlmodel import _pack, _unpack

    packed = _pack(*fields)
    assert _unpack(packed) == fields
    narrow = fields[0] < 1 << 17 and fields[2] < 1 << 17 and max(fields[1], fields[3]) < 1 << 13
    assert (packed < 1 << 60) == narrow


def test_a_scalar_past_column_8191_keeps_its_place() -> None:
    """A value on a line longer than a narrow span's columns (minified JSON as YAML) is
    placed where it is, as is the mapping that ends after it."""
    text = "a: {" + ", ".join(f"k{i}: {i}" for i in range(1500)) + ", last: here}\n"
    document = parse_yaml(SourceText("x.yaml", text.encode()))
    mapping = document.root.get("a")
    assert mapping is not None
    value = mapping.get("last")
    assert value is not None and value.value == "here"
    column = text.index("here") + 1
    assert column > 8191
    assert value.span == Span(1, column, 1, column + 4)
    assert mapping.span == Span(1, 4, 1, len(text))


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        # (h51 W2) `b:` at column 1 ended the block `a` is in; `d` is indented as `a`
        (
            "jobs:\n  a: 1\nb:\n    c: 2\n  d: 3\n",
            "; line 5 is indented as line 2 is, in a block that line 3 (`b:` at column 1) ended",
        ),
        ("jobs:\n  a: 1\n# note\n\nb:\n    c: 2\n  d: 3\n", "that line 5 (`b:` at column 1)"),
        # near misses: no block was open at the line's indentation, or a line at that
        # indentation came after the one at a lesser one
        ("jobs:\n    build:\n      x: 1\n  test:\n    y: 2\n", ""),
        ("a:\n  steps:\n    - run: a\n   - run: b\n", ""),
        ("a:\n  b: 1\n  c:\n      d: 1\n    e: 2\n", ""),
    ],
)
def test_an_indentation_error_names_the_key_that_ended_the_block(text: str, hint: str) -> None:
    """PyYAML stops at the line indented as a closed block's; the key that closed it is named
    where there is one (the error's place stays PyYAML's)."""
    import yaml

    from benchlint.yamlmodel import YamlError

    with pytest.raises(yaml.YAMLError) as oracle:
        yaml.safe_load(text)
    mark = oracle.value.problem_mark  # type: ignore[attr-defined]
    with pytest.raises(YamlError) as raised:
        parse_yaml(SourceText("x.yaml", text.encode()))
    assert raised.value.message.startswith("expected <block end>")
    assert (raised.value.span.line, raised.value.span.column) == (mark.line + 1, mark.column + 1)
    if hint:
        assert hint in raised.value.message
    else:
        assert raised.value.message.endswith(")")
