"""The modules' top-level imports form no cycle: the run (engine), the rules' registry, the rules
(checks) and what a rule may see (context) are layered. A rule is known by its module's name
before the module is loaded."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from benchlint import registry
from benchlint.lazyre import lazy_compile
from tests.conftest import REPO


def _module(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")


def _top_level_imports(path: Path, known: set[str]) -> set[str]:
    """Modules of the project imported when this one is (not inside functions or
    `if TYPE_CHECKING:` blocks)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found |= {n for n in names if n in known}
    return found


def test_no_import_cycle() -> None:
    paths = [*REPO.glob("benchlint/**/*.py"), *REPO.glob("checks/*.py")]
    known = {_module(p) for p in paths}
    graph = {_module(p): _top_level_imports(p, known) for p in paths}
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(module: str, path: list[str]) -> None:
        if state.get(module) == 2:
            return
        assert state.get(module) != 1, " -> ".join([*path, module])
        state[module] = 1
        for imported in sorted(graph.get(module, ())):
            visit(imported, [*path, module])
        state[module] = 2

    for module in sorted(graph):
        visit(module, [])
    assert "benchlint.engine" not in {
        m for p in REPO.glob("checks/*.py") for m in graph[_module(p)]
    }


def test_a_rule_is_known_by_its_module_name_before_it_is_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ids = registry.rule_ids()
    assert len(ids) == len(list(REPO.glob("checks/bl*.py"))) and "BL303" in ids
    assert ids == [r.id for r in registry.all_rules()]
    # a module that registers a rule its name does not say is an error, not a rule no
    # selection can name
    monkeypatch.setitem(registry._RULES, "BL999", registry._RULES["BL101"])
    with pytest.raises(RuntimeError, match="rules BL999: a rule's module is named for its ID"):
        registry.all_rules()


def test_the_rules_know_nothing_of_processes() -> None:
    """Issue 12's check, as it is written: no two-process split left (`benchlint/split.py`),
    and no rule that asks which process owns or shares what (`git grep -n "owns\\|share"
    checks/` finds nothing); nor one that imports a module about processes."""
    assert not (REPO / "benchlint" / "split.py").exists()
    for path in sorted(REPO.glob("checks/*.py")):
        text = path.read_text()
        assert "owns" not in text and "share" not in text, path.name
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in (
                node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")]
            )
        }
        assert not imported & {"multiprocessing", "concurrent", "subprocess", "threading"}, path


def _import_time_compiles(path: Path) -> list[int]:
    """Lines of `re.compile(...)` calls run when the module is imported: outside any function
    or lambda (a module's or a class's body, or a table of them)."""
    found: list[int] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
            func = child.func if isinstance(child, ast.Call) else None
            if (
                not inside
                and isinstance(func, ast.Attribute)
                and func.attr == "compile"
                and isinstance(func.value, ast.Name)
                and func.value.id == "re"
            ):
                found.append(child.lineno)
            visit(child, inside)

    visit(ast.parse(path.read_text()), False)
    return found


def test_patterns_are_compiled_when_first_used_not_when_imported() -> None:
    """A module's patterns are `lazy_compile`d: `re.compile` at import is a sixth of importing
    benchlint, most of it for patterns a run that names a file or two never uses."""
    paths = [*REPO.glob("benchlint/**/*.py"), *REPO.glob("checks/*.py")]
    found = [
        f"{p.relative_to(REPO)}:{line}"
        for p in sorted(paths)
        if p.name != "lazyre.py"
        for line in _import_time_compiles(p)
    ]
    assert found == []


@pytest.mark.parametrize(
    ("pattern", "flags", "text"),
    [
        (r"(?P<name>[a-z]+)=(\d+)", 0, "x a=1 b=22"),
        (r"^--(\w+)$", re.MULTILINE, "a\n--flag\n--other\n"),
        (rb"[\x00-\x1f]", 0, b"a\x01b\x02"),
        (r"A", re.IGNORECASE, "bab"),
    ],
)
def test_a_lazy_pattern_answers_as_the_compiled_one(
    pattern: str | bytes, flags: int, text: str | bytes
) -> None:
    compiled = re.compile(pattern, flags)
    lazy = lazy_compile(pattern, flags)
    assert lazy.pattern == compiled.pattern
    # (`flags` first: it compiles the pattern as any method does, UNICODE added for str)
    assert lazy.flags == compiled.flags
    assert lazy.groups == compiled.groups
    assert lazy.groupindex == compiled.groupindex
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert lazy.findall(text) == compiled.findall(text)
    assert lazy.sub(text[:0], text) == compiled.sub(text[:0], text)
    assert lazy.split(text) == compiled.split(text)
    for method in ("search", "match", "fullmatch"):
        got, want = getattr(lazy, method)(text), getattr(compiled, method)(text)
        assert (got and got.span()) == (want and want.span())


def test_a_lazy_pattern_compiles_once_and_fails_where_re_would() -> None:
    lazy = lazy_compile(r"a+")
    assert "search" not in vars(lazy)  # (not compiled before its first use)
    assert lazy.search("baa") is not None
    assert vars(lazy)["search"] == re.compile(r"a+").search  # (the compiled method itself)
    with pytest.raises(AttributeError):
        lazy.no_such_method  # noqa: B018
    broken = lazy_compile(r"a(")
    with pytest.raises(re.error):
        broken.search("a")
