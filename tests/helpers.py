"""Helpers shared by the test files: reading rendered HTML, exact references, strict warnings, notebook runs.

Import them with `from helpers import ...` (tests/ is on sys.path under pytest's default import mode).
"""

from __future__ import annotations

import copy
import re
import warnings
from fractions import Fraction

import nbformat
import numpy as np
import pytest

from lnlib.grad import numerical_gradient
from tools.course import NOTEBOOKS
from tools.run_notebooks import execute

# --- rendered HTML (tables of lnlib.tables, explorer outputs) -----------------------------------------------------

_TD = re.compile(r"<td[^>]*>([^<]*)</td>")
_NUMBER = re.compile(r"-?\d+\.\d+")


def td_texts(html: str) -> list[str]:
    """The text of every <td> in rendered HTML, stripped, in document order."""
    return [c.strip() for c in _TD.findall(html)]


_CELL = re.compile(r"<(caption|th|td)[^>]*>([^<]*)</\1>")


def cell_texts(html: str) -> list[str]:
    """The text of the caption and every <th> and <td> in rendered HTML, stripped, in document order."""
    return [text.strip() for _, text in _CELL.findall(html)]


def numbers(html: str) -> list[float]:
    """Every <td> whose whole text is a decimal number ("-1.342", "5.000"), as floats, in document order."""
    return [float(c) for c in td_texts(html) if _NUMBER.fullmatch(c)]


def row_numbers(html: str, label: str) -> list[float]:
    """The numbers of the table row whose header cell is `label`."""
    match = re.search(r"<th[^>]*>" + re.escape(label) + r"</th>(.*?)</tr>", html, re.S)
    assert match, f"no row {label!r}"
    return numbers(match.group(1))


# --- exact references ----------------------------------------------------------------------------------------------


def exact_moments(row) -> tuple[Fraction, Fraction]:
    """Mean and population variance of `row`, exactly (Fractions of the stored float or integer values)."""
    values = [Fraction(int(v)) if isinstance(v, (int, np.integer)) else Fraction(float(v)) for v in row]
    mean = sum(values, Fraction(0)) / len(values)
    return mean, sum(((v - mean) ** 2 for v in values), Fraction(0)) / len(values)


def numerical_jacobian(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """J[i, j] = ∂f(x)_i / ∂x_j by central differences (lnlib.grad.numerical_gradient, one output at a time)."""
    x = np.asarray(x, dtype=np.float64)
    n_out = np.asarray(f(x)).size
    return np.stack([numerical_gradient(lambda v, i=i: float(np.ravel(f(v))[i]), x, h=h).ravel() for i in range(n_out)])


# --- warnings -------------------------------------------------------------------------------------------------------


def strict_warnings() -> None:
    """Inside a catch_warnings block: every warning is an error, except ResourceWarning and pytest's unraisable
    report, which come from the garbage collector finalizing other tests' objects (kernels, sockets) at random."""
    warnings.simplefilter("error")
    warnings.simplefilter("default", ResourceWarning)
    warnings.simplefilter("default", pytest.PytestUnraisableExceptionWarning)


# --- executed notebooks ---------------------------------------------------------------------------------------------


def executed(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A fresh run of `nb` (a copy; `nb` is untouched) in a kernel started in notebooks/, as nbval runs it."""
    run = copy.deepcopy(nb)
    execute(run, NOTEBOOKS)
    return run


def widgets_sent(monkeypatch) -> list:
    """From now on (for the test), every widget whose state is sent to the browser, in the order sent."""
    import ipywidgets

    sent = []
    original = ipywidgets.Widget.send_state
    monkeypatch.setattr(
        ipywidgets.Widget, "send_state", lambda self, key=None: sent.append(self) or original(self, key)
    )
    return sent


# --- graded assignments: a student typing answers into a release ---------------------------------------------------


def answer_cell(nb, grade_id: str):
    """The cell of `nb` with this nbgrader grade id."""
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def type_answer(nb, grade_id: str, typed: str) -> None:
    """Type `typed` under the first line (`%%answer …` / `%%code_exercise …`) of an answer cell, as a student does."""
    cell = answer_cell(nb, grade_id)
    cell.source = cell.source.split("\n", 1)[0] + "\n" + typed


def typed_numbers(values) -> str:
    """Numbers as a student types them into an `%%answer` cell: six decimals, comma-separated."""
    return ", ".join(f"{float(t):.6f}" for t in np.ravel(values))


def type_right_answers(nb3=None, v3=None, nb7=None, v7=None) -> None:
    """The right typed answers of assignment 03 (in nb3, for the student numbers v3) and of 07's typed questions
    (in nb7, for v7), computed here with numpy, independently of lnlib; either notebook may be left out."""
    if nb3 is not None:
        x = v3["x"]
        type_answer(nb3, "mean", typed_numbers(x.mean()))
        type_answer(nb3, "variance", typed_numbers(x.var()))
        type_answer(nb3, "xhat", typed_numbers((x - x.mean()) / x.std()))
        type_answer(nb3, "diagnose", v3["way"])
    if nb7 is not None:
        x = v7["x"]
        type_answer(nb7, "y", typed_numbers(v7["gamma"] * (x - x.mean()) / x.std() + v7["beta"]))
        type_answer(nb7, "shape_mu", str(v7["shape"][:2]))
        type_answer(nb7, "predict", "不变" if v7["scale"] > 0 else "会变")
