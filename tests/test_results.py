"""The results the tables and plots render (issue 14.1), checked against independent references: numpy's own
statistics with explicit ddof, exact fractions, hand numbers of the apple row [2, 4, 6, 8], PyTorch."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import lnlib
from lnlib import groups, invariance, labels, numerics, pitfalls, plots, tables

X = lnlib.TOKEN_MATRIX
APPLE = [2.0, 4.0, 6.0, 8.0]


@pytest.mark.parametrize(("mode", "axis"), [("row", 1), ("column", 0), ("all", None)])
def test_group_stats_against_numpy(mode, axis):
    s = groups.group_stats(X, mode)
    np.testing.assert_allclose(s.mean, np.atleast_1d(X.mean(axis=axis)), rtol=1e-15)
    np.testing.assert_allclose(s.variance, np.atleast_1d(X.var(axis=axis, ddof=0)), rtol=1e-14)
    np.testing.assert_allclose(s.std, np.atleast_1d(X.std(axis=axis, ddof=0)), rtol=1e-14)
    table = tables.axis_stats_table(s)
    assert table.frame.shape == ({"row": 3, "column": 4, "all": 1}[mode], 3)


def test_selection_marks_the_group_and_its_statistics():
    sel = groups.selection(X, "column", 3)
    assert sel.mask.sum() == 3 and sel.mask[:, 3].all()
    assert sel.mean == pytest.approx((2 + 80 + 8) / 3)
    assert sel.std == pytest.approx(np.std([2.0, 80.0, 8.0]))
    assert groups.selection(X, "all").size == 12


def test_renderers_refuse_raw_input_by_name():
    """Renderers take results; raw input gets a TypeError that names the function making the result."""
    calls = [
        (lambda: tables.axis_stats_table(X), "stats", "group_stats"),
        (lambda: tables.epsilon_summary(APPLE), "effect", "epsilon_effect"),
        (lambda: tables.ddof_table(APPLE), "comparison", "ddof_comparison"),
        (lambda: tables.scale_shift_table(APPLE), "result", "scale_shift"),
        (lambda: tables.variance_table(1e4), "methods", "variance_methods"),
        (lambda: tables.invariance_table(["layer"]), "results", "table1"),
        (lambda: tables.row_stats_table(X), "stats", "group_stats"),
        (lambda: tables.eps_placement_table({"a": APPLE}), "placement", "eps_placement"),
        (lambda: plots.highlight_heatmap(X), "selection", "selection"),
        (lambda: plots.epsilon_plot(APPLE), "effect", "epsilon_effect"),
        (lambda: plots.scale_shift_bars(APPLE), "result", "scale_shift"),
    ]
    for call, name, maker in calls:
        with pytest.raises(TypeError, match=rf"^{name}: expected the result of lnlib\.\w+\.{maker}"):
            call()


def test_epsilon_effect_of_the_apple_row_is_exact():
    """σ² = 5 by hand; x̂'s variance σ²/(σ² + ε) as a fraction; ε → 0 limit max |x̂| = 3/√5."""
    for eps in (1e-5, 0.5, 1.0, 100.0):
        e = pitfalls.epsilon_effect(APPLE, eps)
        exact = Fraction(5) / (Fraction(5) + Fraction(eps))
        assert e.variance == 5.0
        assert e.kept == pytest.approx(float(exact), rel=1e-15)
        assert e.xhat_variance == pytest.approx(float(exact), rel=1e-13)
        assert e.limit == pytest.approx(3 / np.sqrt(5), rel=1e-15)


def test_eps_placement_against_the_two_formulas_written_out():
    rows = {f"s = {s:g}": 5 + s * np.array([-3.0, -1, 1, 3]) for s in (1, 0.01, 0.0001, 0)}
    p = pitfalls.eps_placement(rows, eps=1e-5)
    assert list(p.frame.columns) == list(pitfalls.EPS_PLACEMENT_COLUMNS) and p.eps == 1e-5
    for name, row in rows.items():
        sigma = np.sqrt(np.mean((row - row.mean()) ** 2))
        inside = (row[0] - row.mean()) / np.sqrt(sigma**2 + 1e-5)
        outside = (row[0] - row.mean()) / (sigma + 1e-5)
        got = p.frame.loc[name]
        assert got["std"] == pytest.approx(sigma, abs=1e-15)
        assert got["xhat1_inside"] == pytest.approx(inside, rel=1e-12, abs=1e-15)
        assert got["xhat1_outside"] == pytest.approx(outside, rel=1e-12, abs=1e-15)
        assert got["difference"] == pytest.approx(abs(inside - outside), rel=1e-9, abs=1e-15)
    headers = tables.eps_placement_table(p).frame.columns
    assert "√(σ² + ε)" in headers and "σ + ε" in headers


def test_ddof_comparison_against_torch():
    torch = pytest.importorskip("torch")
    c = pitfalls.ddof_comparison(APPLE)
    t = torch.tensor(APPLE, dtype=torch.float64)
    assert c.variance_d == pytest.approx(torch.var(t, unbiased=False).item())
    assert c.variance_d1 == pytest.approx(torch.var(t).item())  # torch's default divides by d − 1
    np.testing.assert_allclose(c.xhat_d1, ((t - t.mean()) / torch.std(t)).numpy(), rtol=1e-14)
    assert c.xhat_variance_d == pytest.approx(1.0) and c.xhat_variance_d1 == pytest.approx(3 / 4)  # (d − 1)/d


def sequential_float32_one_pass(x):
    s = s2 = np.float32(0)
    for v in np.asarray(x, dtype=np.float32):
        s, s2 = np.float32(s + v), np.float32(s2 + v * v)
    n = np.float32(len(x))
    return float(np.float32(s2 / n - (s / n) * (s / n)))


def test_variance_methods_reproduce_the_cancellation():
    m = numerics.variance_methods(1e4, "float32")
    assert m.x.dtype == np.float32 and m.true_variance == 1.25
    assert m.variances["one_pass"] == sequential_float32_one_pass(1e4 + np.arange(4.0))
    for key in ("two_pass", "welford", "lnlib"):
        assert m.variances[key] == pytest.approx(1.25, rel=1e-6)
    np.testing.assert_allclose(m.normalized["lnlib"], (np.arange(4.0) - 1.5) / np.sqrt(1.25 + 1e-5), rtol=1e-6)
    assert set(m.variances) == set(labels.VARIANCE_METHODS) == set(m.normalized)


def test_scale_shift_keeps_x_hat():
    r = invariance.scale_shift(APPLE, 10.0, -3.0, eps=0.0)
    np.testing.assert_allclose(r.moved, 10 * np.array(APPLE) - 3)
    np.testing.assert_allclose(r.normalized, np.array([-3, -1, 1, 3]) / np.sqrt(5), rtol=1e-15)
    assert r.means == pytest.approx([5.0, 47.0, 0.0], abs=1e-15) and r.stds[1] == pytest.approx(10 * np.sqrt(5))


def test_row_and_column_norms_against_numpy():
    layer, batch = invariance.row_and_column_norms(X)
    np.testing.assert_allclose(layer, (X - X.mean(1, keepdims=True)) / X.std(1, keepdims=True), rtol=1e-14)
    np.testing.assert_allclose(batch, (X - X.mean(0)) / X.std(0), rtol=1e-14)
