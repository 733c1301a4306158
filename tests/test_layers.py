"""lnlib's imports follow the floors docs/architecture.md §1 declares: no module imports one on a higher floor, and
no chain of imports (at the top of a module or inside a function) leads back to where it started.

The floors are read from the picture in §1 (each `lnlib/…` row and its indented continuation lines is a floor, the
top row the highest); the sentence in §1 that counts modules and imports is checked against the code."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LNLIB = ROOT / "lnlib"
DOC = ROOT / "docs" / "architecture.md"


def module_name(path: Path) -> str:
    """`plots` for lnlib/plots.py, `explorers.base` for lnlib/explorers/base.py, `explorers` for its __init__."""
    parts = path.relative_to(LNLIB).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """The lnlib modules `path` imports, anywhere in the file (a lazy import inside a function counts)."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".") if package else []
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                module = ".".join([*base, *([node.module] if node.module else [])])
            elif (node.module or "").split(".")[0] == "lnlib":
                module = node.module.partition(".")[2]
            else:
                continue
            for alias in node.names:  # `from . import training`: the module; `from .plots import x`: plots
                sub = f"{module}.{alias.name}" if module else alias.name
                found.add(sub if (LNLIB / (sub.replace(".", "/") + ".py")).exists() else module)
        elif isinstance(node, ast.Import):
            found |= {a.name.partition(".")[2] for a in node.names if a.name.startswith("lnlib.")}
    return {name for name in found if name and name != me}


def graph() -> dict[str, set[str]]:
    """Module → the modules it imports (the package's own __init__, the door of `import lnlib`, left out)."""
    edges = {module_name(p): imports(p) for p in sorted(LNLIB.rglob("*.py")) if p != LNLIB / "__init__.py"}
    return {name: {m for m in found if m in edges} for name, found in edges.items()}


def floor(name: str, floors: dict[str, int]) -> int:
    """A module's floor; a package's modules (explorers.base) are on the package's floor."""
    return floors.get(name, floors.get(name.partition(".")[0], -1))


def declared_floors(text: str) -> dict[str, int]:
    """Module → floor (0 the lowest) from the picture in §1 of docs/architecture.md."""
    picture = text.split("## 1.", 1)[1].split("```", 2)[1]
    rows: list[list[str]] = []
    for line in picture.splitlines():
        if line.startswith("lnlib/"):
            rows.append([])
        elif not line.startswith("      ") or not rows:
            continue
        rows[-1] += [m.group(1) for m in re.finditer(r"(?:lnlib/)?([A-Za-z_]\w*)(?:\.py\b|/)", line)]
    return {name: len(rows) - 1 - i for i, row in enumerate(rows) for name in row}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def summary(edges: dict[str, set[str]], floors: dict[str, int]) -> str:
    arrows = sum(len(v) for v in edges.values())
    return f"{len(edges)} modules on {len(set(floors.values()))} floors and {arrows} imports between them"


EDGES = graph()
FLOORS = declared_floors(DOC.read_text(encoding="utf-8"))


def test_every_module_has_a_floor_and_every_floor_a_module():
    assert [m for m in sorted(EDGES) if floor(m, FLOORS) < 0] == [], "add it to the picture in docs/architecture.md §1"
    assert sorted(set(FLOORS) - set(EDGES)) == [], "the picture names a module that does not exist"


def test_no_module_imports_one_on_a_higher_floor():
    upward = [f"{a} → {b}" for a in sorted(EDGES) for b in sorted(EDGES[a]) if floor(b, FLOORS) > floor(a, FLOORS)]
    assert upward == []


def test_no_import_cycle():
    assert cycles(EDGES) == []


def test_the_counts_in_the_doc_are_the_code_s():
    text = DOC.read_text(encoding="utf-8")
    assert summary(EDGES, FLOORS) in text, f"docs/architecture.md §1 should say: {summary(EDGES, FLOORS)}"


@pytest.mark.parametrize(
    ("edges", "found"),
    [({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]), ({"a": {"b"}, "b": set()}, [])],
)
def test_the_cycle_search_finds_a_cycle(edges, found):
    assert cycles(edges) == found


def test_the_scan_sees_lazy_and_relative_imports(monkeypatch):
    assert imports_of("def f():\n    from . import training\n", monkeypatch) == {"training"}
    found = imports_of("from .plots import x\nimport lnlib.tables\nfrom lnlib import grad\n", monkeypatch)
    assert found == {"plots", "tables", "grad"}
    assert declared_floors("## 1. L\n```\nlnlib/a.py  b.py\n      c.py  words\nlnlib/d.py\n```\n") == {
        "a": 1,
        "b": 1,
        "c": 1,
        "d": 0,
    }


def imports_of(source: str, monkeypatch) -> set[str]:
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source)
    return imports(LNLIB / "probe.py")
