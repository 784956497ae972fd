"""The modules' top-level imports form no cycle: the run (engine), the rules' registry, the rules
(checks) and what a rule may see (context) are layered."""

from __future__ import annotations

import ast
from pathlib import Path

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
