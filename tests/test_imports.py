"""The modules' top-level imports form no cycle: the run (engine), the rules' registry, the rules
(checks) and what a rule may see (context) are layered. A rule is known by its module's name
before the module is loaded."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from benchlint import registry
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
