"""Every public name of lnlib is defined in one module only: `lnlib.training.standardize` next to
`lnlib.standardize`, or two `Verdict` classes, made a reader (and an import) guess which one is meant.
Handing a name on (`from .optim import Adam` in lnlib.training) is not a definition."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

LNLIB = Path(__file__).resolve().parents[1] / "lnlib"


def defined_names(tree: ast.Module) -> list[str]:
    """Names a module binds at its top level by def, class or assignment (not by import)."""
    names = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names.append(leaf.id)
    return names


def definitions() -> dict[str, list[str]]:
    where = defaultdict(list)
    for path in sorted(LNLIB.rglob("*.py")):
        for name in defined_names(ast.parse(path.read_text(encoding="utf-8"))):
            where[name].append(str(path.relative_to(LNLIB)))
    return where


def test_no_public_name_is_defined_in_two_modules():
    twice = {n: ps for n, ps in definitions().items() if not n.startswith("_") and len(ps) > 1}
    assert twice == {}


def test_no_module_binds_a_private_name_twice():
    """`_APPLE` was an index in one half of exercises.py and a row in the other."""
    twice = {n: ps for n, ps in definitions().items() if n.startswith("_") and not n.startswith("__")}
    assert {n: ps for n, ps in twice.items() if len(set(ps)) < len(ps)} == {}


def test_the_scan_sees_a_name_defined_twice():
    tree = ast.parse("A = 1\ndef f(): pass\nclass C: pass\nB, (D, E) = 1, (2, 3)\nfrom x import Y\n")
    assert defined_names(tree) == ["A", "f", "C", "B", "D", "E"]
