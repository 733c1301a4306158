"""The input contract of the renderers and of the results they draw (issue 11.7, 14.1, 14.2): bad input gets a
ValueError/TypeError naming the argument before any work; valid extreme input draws without a warning; the
layers stay apart (tables and plots only render, and import nothing inside their functions).
"""

from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import lnlib
from lnlib import groups, invariance, labels, numerics, pitfalls, plots, tables

ROOT = Path(__file__).resolve().parents[1]
X = lnlib.TOKEN_MATRIX

# (call, exception, the argument the message must name) — every row was a bare or wrong error before.
BAD_INPUT = [
    (lambda: tables.gradient_table({}), ValueError, "series"),  # was StopIteration
    (lambda: tables.gradient_table({"post": [1, 2], "pre": [1]}), ValueError, "series"),
    (lambda: pitfalls.ddof_comparison(np.ones((2, 4))), ValueError, "x"),  # was a bare TypeError
    (lambda: tables.ddof_table(np.ones((2, 4))), TypeError, "comparison"),
    (lambda: pitfalls.ddof_comparison([3.0]), ValueError, "x"),
    (lambda: groups.selection(X, "row", 1.5), TypeError, "index"),  # was IndexError
    (lambda: plots.highlight_heatmap(X), TypeError, "selection"),  # takes groups.selection(...) now
    (lambda: groups.selection(X, "row", 3), ValueError, "index"),
    (lambda: groups.selection(X, "diagonal", 0), ValueError, "mode"),
    (lambda: groups.group_stats(np.ones(4)), ValueError, "matrix"),
    (lambda: groups.group_stats([[1, np.inf]]), ValueError, "matrix"),
    (lambda: plots.stage_bars(lnlib.layer_norm_steps([1.0, np.inf, 2.0, 3.0])), ValueError, "steps"),  # warned
    (lambda: plots.stage_bars([2, 4, 6, 8]), TypeError, "steps"),
    (lambda: tables.stage_table([2, 4, 6, 8]), TypeError, "steps"),
    (lambda: pitfalls.epsilon_effect([1.0, np.nan], 1e-5), ValueError, "x"),
    (lambda: pitfalls.epsilon_effect([1.0, 2.0], -1.0), ValueError, "eps"),
    (lambda: pitfalls.epsilon_effect(np.ones((2, 2)), 1e-5), ValueError, "x"),
    (lambda: plots.epsilon_plot(pitfalls.epsilon_effect([1, 2], 1e-5), eps_range=(1.0, 1e-8)), ValueError, "eps_range"),
    (lambda: pitfalls.eps_placement({}), ValueError, "rows"),
    (lambda: pitfalls.eps_placement({"a": [1, "x"]}), TypeError, "rows['a']"),
    (lambda: invariance.scale_shift([1, 2], np.nan, 0.0), ValueError, "scale"),
    (lambda: invariance.scale_shift([1, 2], 1e308, 0.0, eps=0), ValueError, "x"),
    (lambda: invariance.table1(["group"]), ValueError, "norms"),
    (lambda: invariance.table1([]), ValueError, "norms"),
    (lambda: numerics.variance_methods(1e4, "float8"), ValueError, "dtype"),
    (lambda: numerics.variance_methods(np.inf, "float32"), ValueError, "offset"),
    (lambda: tables.stats_table(["a", "b"], {"μ": [1.0]}), ValueError, "columns"),
    (lambda: tables.vectors_table({}), ValueError, "rows"),
    (lambda: plots.token_bars(X, tokens=["我", "吃"]), ValueError, "tokens"),
    (lambda: plots.value_heatmap(X, limit=0), ValueError, "limit"),
    (lambda: plots.value_heatmap(np.ones(3)), ValueError, "matrix"),
    (lambda: plots.jacobian_heatmap(np.ones((2, 3))), ValueError, "jac"),
    (lambda: plots.ln_vs_bn(np.ones((3, 4)), np.ones((3, 3))), ValueError, "batch"),
    (lambda: plots.depth_lines({}, xlabel="", ylabel=""), ValueError, "series"),
    (lambda: plots.depth_lines({"post": [1, 2, 3]}, xlabel="", ylabel="", x=[1, 2]), ValueError, "x"),
    (lambda: plots.depth_lines({"post": [1, 0]}, xlabel="", ylabel="", logy=True), ValueError, "series"),
    (lambda: plots.attention_panel(np.ones((2, 3)) / 3, ["a", "b"], entropy=[1.0, 1.0]), ValueError, "weights"),
    (lambda: plots.attention_panel(np.eye(2), ["a", "b"], entropy=[0.0]), ValueError, "entropy"),
    (lambda: plots.variance_error_plot([1, 10], [1.0], [1.0, 1.0], 1.25), ValueError, "one_pass"),
]


@pytest.mark.parametrize(("call", "error", "name"), BAD_INPUT)
def test_bad_input_gets_a_named_error(call, error, name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(error) as info:
            call()
    assert str(info.value).startswith(f"{name}:"), str(info.value)


EXTREME_ROWS = {
    "near 1e300": [1e300, -1e300, 1e300, -1e300],  # σ² overflows float64 though σ does not
    "1e300 spread": [1e300, 2e300, 3e300, 4e300],
    "1e80": [1e80, 2e80, 3e80, 4e80],
    "1e100 (explorer limit)": [1e100, -1e100, 5e99, 0.0],
    "tiny": [1e-300, 2e-300, 3e-300, 4e-300],
    "constant": [3.0, 3.0, 3.0, 3.0],
}


@pytest.mark.parametrize("row", EXTREME_ROWS.values(), ids=EXTREME_ROWS)
def test_extreme_rows_draw_and_tabulate_without_warnings(row):
    """Issue 11.7: epsilon_plot near 1e300 and huge bar labels warned (RuntimeWarning, constrained_layout)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        effect = pitfalls.epsilon_effect(row, 1e-5)
        for fig in (
            plots.epsilon_plot(effect),
            plots.stage_bars(effect.steps),
            plots.scale_shift_bars(invariance.scale_shift(row, 1.0, 0.0)),
        ):
            plots.to_png(fig, dpi=30)
        tables.epsilon_summary(effect).to_html()
        tables.stage_table(effect.steps).to_html()


def test_bar_labels_of_huge_values_are_compact():
    fig = plots.stage_bars(lnlib.layer_norm_steps([1e80, 2e80, 3e80, 4e80]))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["1e+80", "2e+80", "3e+80", "4e+80"]
    assert max(len(t) for ax in fig.axes for t in (x.get_text() for x in ax.texts)) <= 10


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (8.0, "8"),
        (-1.3416, "-1.342"),
        (0.4472, "0.447"),
        (-0.0001, "0"),
        (2.5, "2.5"),
        (0.0, "0"),
        (999999.0, "999999"),
        (1.2e80, "1.2e+80"),
        (-3.14159e100, "-3.14e+100"),
        (1e6, "1e+06"),
        (float("inf"), "inf"),
        (float("nan"), "nan"),
    ],
)
def test_number_is_short_at_every_scale(value, text):
    assert labels.number(value) == text


def test_epsilon_effect_kept_variance_is_exact_where_sigma_squared_overflows():
    """σ²/(σ² + ε) = 1/(1 + ε/σ²): for σ = 1e300 it is 1 to the last bit; for [2, 4, 6, 8] it is 5/(5 + ε)."""
    assert pitfalls.epsilon_effect(EXTREME_ROWS["near 1e300"], 1e-5).kept == 1.0
    assert pitfalls.epsilon_effect([2, 4, 6, 8], 1.0).kept == pytest.approx(5 / 6, rel=1e-15)
    assert pitfalls.epsilon_effect([3, 3, 3, 3], 1e-5).kept == 0.0


# --- layers ------------------------------------------------------------------------------------------------


LAZY_IMPORTS = {"pandas"}
"""The one import allowed inside a function: pandas, for `.frame` (a DataFrame view of a table or a result). Tables
render without it, so a notebook never pays for importing pandas (issue 16); tests/test_import_cost.py checks that."""


def imports_inside_functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import) and {a.name for a in inner.names} <= LAZY_IMPORTS:
                    continue
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    found.append(f"{path.name}:{inner.lineno} in {node.name}")
    return found


@pytest.mark.parametrize("module", ["tables.py", "plots.py", "labels.py", "groups.py", "pitfalls.py"])
def test_no_import_inside_a_function(module):
    assert imports_inside_functions(ROOT / "lnlib" / module) == []


RENDER_AND_WIDGET_MODULES = sorted(
    [
        *(f"{name}.py" for name in ("tables", "plots", "training_plots", "geometry_plots", "axes_diagrams")),
        *(
            f"{name}.py"
            for name in ("attention_scaling_plot", "widgets", "training_widgets", "lm_plots", "lm_explorer")
        ),
        *(f"explorers/{path.name}" for path in (ROOT / "lnlib" / "explorers").glob("*.py")),
    ]
)
SHARED_WORDS = [
    '"Post-LN"',
    '"Pre-LN"',
    '"无归一化"',
    '"按行（LayerNorm）"',
    '"学会"',
    '"卡住"',
    '"发散"',
]
"""Words used in two or more modules: they live in lnlib.labels, written there once."""


def test_tables_do_not_import_plots():
    source = (ROOT / "lnlib" / "tables.py").read_text(encoding="utf-8")
    assert not re.search(r"from \.plots|import plots|from \. import .*plots", source)
    assert invariance.NORM_LABELS is labels.NORM_LABELS


@pytest.mark.parametrize("module", RENDER_AND_WIDGET_MODULES)
def test_shared_words_have_one_home(module):
    text = (ROOT / "lnlib" / module).read_text(encoding="utf-8")
    assert not re.search(r"第 ?\{\w+\} ?[维层]", text), f"{module} builds dimension or layer labels itself"
    assert [word for word in SHARED_WORDS if word in text] == []


def test_every_render_and_widget_module_is_scanned():
    """A new plots or explorer module is scanned too (and the list names no file that is gone)."""
    found = {p.name for p in (ROOT / "lnlib").glob("*.py") if re.search(r"plots?|widgets|tables|diagrams", p.name)}
    assert found <= set(RENDER_AND_WIDGET_MODULES) and all(
        (ROOT / "lnlib" / m).exists() for m in RENDER_AND_WIDGET_MODULES
    )


def test_dimension_labels_follow_the_spacing_rule_in_tables_and_plots():
    fig = plots.highlight_heatmap(groups.selection(X, "row", 0))
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert ticks == ["第 1 维", "第 2 维", "第 3 维", "第 4 维"] == tables.dim_labels(4) == labels.dim_labels(4)
    fig = plots.stage_bars(lnlib.layer_norm_steps([2, 4, 6, 8]))
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == labels.dim_labels(4)


def test_depth_lines_takes_x_positions():
    """Issue 14.6: notebook 09 reset the x data of the returned lines; `x=` does it."""
    fig = plots.depth_lines(
        {"post": [1.0, 0.8, 0.6, 0.5]}, xlabel="L", ylabel="g", x=[3, 6, 12, 24], guides={"law": [1.0, 0.7, 0.5, 0.35]}
    )
    lines = fig.axes[0].get_lines()
    assert [list(line.get_xdata()) for line in lines] == [[3, 6, 12, 24]] * 2
    assert [line.get_label() for line in lines] == ["Post-LN", "law"]
