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


def module_level_constants(path: Path) -> dict[str, object]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant | ast.Tuple):
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            targets = node.targets[0].elts if isinstance(node.targets[0], ast.Tuple) else node.targets
            for target, value in zip(targets, values, strict=False):
                if isinstance(target, ast.Name) and isinstance(value, ast.Constant):
                    out[target.id] = value.value
    return out


def test_the_three_transformers_share_one_lean_numerics():
    """Issue 42.1: transformer, training and tiny_lm each carried a cross-entropy, a per-sequence weight gradient
    and a name for LayerNorm's ε (LN_EPS, EPS, LM_EPS); now lnlib._lean holds them once."""
    eps_names = {
        f"{module_name(p)}.{name}"
        for p in LNLIB.rglob("*.py")
        for name, value in module_level_constants(p).items()
        if value == 1e-5
    }
    assert eps_names == {"_lean.LN_EPS"}
    defined = {
        n.name
        for p in LNLIB.rglob("*.py")
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(n, ast.FunctionDef)
    }
    assert not defined & {"_xent", "_wgrad", "_outer_sum", "softmax_cross_entropy"}
    assert all("_lean" in EDGES[m] for m in ("transformer", "training", "tiny_lm"))


def test_the_lean_cross_entropy_is_numpy_s_own_order():
    """The shared cross-entropy gives tiny_lm the bits of its former own code: .max, .sum, .mean, / n."""
    import numpy as np

    from lnlib import _lean, tiny_lm

    rng = np.random.default_rng(7)
    logits, targets = rng.normal(size=(3, 5, 11)) * 4, rng.integers(0, 11, size=(3, 5))
    z = logits - logits.max(axis=-1, keepdims=True)
    logp = (z - np.log(np.exp(z).sum(axis=-1, keepdims=True))).reshape(-1, 11)
    rows, tgt = np.arange(15), targets.reshape(-1)
    want_grad = np.exp(logp)
    want_grad[rows, tgt] -= 1
    loss, grad = tiny_lm.cross_entropy(logits, targets)
    assert loss == -logp[rows, tgt].mean()
    assert np.array_equal(grad, (want_grad / 15).reshape(logits.shape))
    a, b = rng.normal(size=(4, 6, 3)), rng.normal(size=(4, 6, 5))
    assert np.array_equal(_lean.outer_sum(a, b), np.matmul(a.transpose(0, 2, 1), b).sum(axis=0))


def reachable(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in EDGES[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_judging_an_answer_imports_no_model():
    """Issue 42.5: the code exercises' engine and catalogue pulled in tiny_lm and training to judge an answer (the
    grader, tools/judge.py, imports them); the engine needs numpy and the number formats only."""
    assert not {"training", "tiny_lm", "transformer", "optim"} & reachable("code_grading")
    assert not {"training", "tiny_lm"} & reachable("code_exercises")


def test_the_facades_hand_on_only_what_notebooks_and_tests_use():
    """Issue 42.5: lnlib.widgets re-exported 37 names, private helpers among them; every name it has now is used
    as `widgets.X` in a notebook or a test, and every explorer lives in lnlib/explorers/."""
    from lnlib import widgets

    used = "\n".join(
        p.read_text(encoding="utf-8") for p in [*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("tests/**/*.py")]
    )
    unused = [n for n in widgets.__all__ if not re.search(rf"widgets\.{n}\b|import[^\n]*\b{n}\b", used)]
    assert unused == []
    assert [
        m for m in EDGES if "explorer" in m.lower() and "." not in m and m not in ("explorers", "lm_explorer")
    ] == []
    assert EDGES["lm_explorer"] == {"explorers.lm"}
