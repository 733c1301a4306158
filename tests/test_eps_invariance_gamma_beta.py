"""Notebooks 04–07: ε, what is kept and lost, γ and β, the full formula.

References are closed forms, hand numbers from the seed articles, scipy and (where installed) PyTorch —
never values copied from the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import lnlib
from lnlib import groups, invariance, pitfalls, plots, tables
from lnlib.code_exercises import judge_function
from lnlib.exercises import judge

APPLE = [2.0, 4.0, 6.0, 8.0]


# --- 04: ε ------------------------------------------------------------------------------------------------------


def test_constant_row_is_zero_with_eps_and_undefined_without(recwarn):
    assert np.array_equal(lnlib.normalize([3, 3, 3, 3], eps=1e-5), np.zeros(4))
    assert np.all(np.isnan(lnlib.normalize([3, 3, 3, 3], eps=0)))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("eps", [1e-5, 1e-2, 1.0, 5.0])
def test_variance_of_xhat_is_sigma2_over_sigma2_plus_eps(eps):
    # [2, 4, 6, 8]: σ² = 20 / 4 = 5 by hand
    xhat = lnlib.normalize(APPLE, eps=eps)
    assert np.var(xhat) == pytest.approx(5 / (5 + eps), rel=1e-12)
    assert np.mean(xhat) == pytest.approx(0, abs=1e-12)


def test_epsilon_summary_shows_the_ratio():
    frame = tables.epsilon_summary(pitfalls.epsilon_effect(APPLE, 1.0)).frame
    assert frame["σ² / (σ² + ε)"].iloc[0] == pytest.approx(5 / 6)
    assert frame["x̂ 的方差"].iloc[0] == pytest.approx(5 / 6)
    assert frame["σ²"].iloc[0] == pytest.approx(5.0)


def test_eps_inside_the_root_versus_added_to_sigma():
    eps = 1e-5
    x = 5 + 0.001 * np.array([-3.0, -1.0, 1.0, 3.0])  # σ² = 5e-6 by hand
    inside = lnlib.normalize(x, eps=eps)
    outside = pitfalls.normalize_std_plus_eps(x, eps=eps)
    assert inside[0] == pytest.approx(-0.003 / math.sqrt(5e-6 + eps), rel=1e-6)  # ≈ −0.775
    assert outside[0] == pytest.approx(-0.003 / (math.sqrt(5e-6) + eps), rel=1e-6)  # ≈ −1.336
    assert abs(inside[0] - outside[0]) > 0.5
    big = 5 + np.array([-3.0, -1.0, 1.0, 3.0])
    assert np.allclose(lnlib.normalize(big, eps=eps), pitfalls.normalize_std_plus_eps(big, eps=eps), atol=1e-4)


def test_eps_placement_table_gap_grows_as_spread_shrinks():
    rows = {f"s = {s:g}": 5 + s * np.array([-3.0, -1.0, 1.0, 3.0]) for s in (1, 0.1, 0.01, 0.001, 0.0001)}
    gaps = tables.eps_placement_table(pitfalls.eps_placement(rows, eps=1e-5)).frame["相差"].to_numpy()
    assert np.all(np.diff(gaps) > 0)
    assert gaps[0] < 1e-5 and gaps[-1] > 1


def test_divide_by_d_versus_d_minus_1():
    assert lnlib.std(APPLE) == pytest.approx(math.sqrt(5))  # 2.236
    assert pitfalls.variance_unbiased(APPLE) == pytest.approx(20 / 3)  # σ = 2.582
    assert pitfalls.variance_unbiased(APPLE) == pytest.approx(np.var(APPLE, ddof=1))
    assert round(float(lnlib.std(APPLE)), 3) == 2.236
    assert round(math.sqrt(pitfalls.variance_unbiased(APPLE)), 3) == 2.582
    wrong = pitfalls.normalize_unbiased(APPLE, eps=0)
    assert np.allclose(wrong, np.array([-3, -1, 1, 3]) / math.sqrt(20 / 3))
    assert np.var(wrong) == pytest.approx(3 / 4)
    frame = tables.ddof_table(pitfalls.ddof_comparison(APPLE)).frame
    assert frame["σ"].to_list() == pytest.approx([math.sqrt(5), math.sqrt(20 / 3)])
    with pytest.raises(ValueError, match="d = 1"):
        pitfalls.variance_unbiased([3.0])


def test_unbiased_matches_torch_std_default():
    torch = pytest.importorskip("torch")
    t = torch.tensor([APPLE], dtype=torch.float64)
    assert float(torch.std(t)) ** 2 == pytest.approx(float(pitfalls.variance_unbiased(APPLE)))
    assert float(torch.std(t, unbiased=False)) == pytest.approx(float(lnlib.std(APPLE)))


def test_torch_layer_norm_puts_eps_inside_the_root():
    torch = pytest.importorskip("torch")
    x = 5 + 0.001 * np.array([[-3.0, -1.0, 1.0, 3.0]])
    ref = torch.nn.functional.layer_norm(torch.tensor(x), (4,), eps=1e-5).numpy()
    assert np.allclose(lnlib.normalize(x, eps=1e-5), ref, atol=1e-9)
    assert not np.allclose(pitfalls.normalize_std_plus_eps(x, eps=1e-5), ref, atol=1e-2)


def test_epsilon_plot_is_a_figure():
    fig = plots.epsilon_plot(pitfalls.epsilon_effect([3, 3.002, 2.998, 3], 1e-5))
    assert len(fig.axes) == 2
    assert plots.to_png(fig).startswith(b"\x89PNG")
    assert len(plots.epsilon_plot(pitfalls.epsilon_effect([3, 3, 3, 3], 1e-5)).axes) == 2  # a constant row draws too


# --- 05: kept and lost ------------------------------------------------------------------------------------------

XHAT_APPLE = [-1.342, -0.447, 0.447, 1.342]  # seed 000, by hand: [−3, −1, 1, 3] / √5


@pytest.mark.parametrize("row", [[2, 4, 6, 8], [20, 40, 60, 80], [12, 14, 16, 18]])
def test_scale_and_shift_are_lost(row):
    assert np.allclose(lnlib.normalize(row, eps=0), XHAT_APPLE, atol=5e-4)
    assert np.allclose(lnlib.normalize(row, eps=0), stats.zscore(row, ddof=0))


def test_swap_example_keeps_the_pattern():
    assert np.allclose(lnlib.normalize([2, 6, 4, 8]), [-1.342, 0.447, -0.447, 1.342], atol=5e-4)
    assert np.allclose(lnlib.normalize([2, 6, 4, 8], eps=0), np.array([-3, 1, -1, 3]) / math.sqrt(5))


def test_negative_scale_flips_the_sign():
    assert np.allclose(lnlib.normalize([-2, -4, -6, -8], eps=0), -np.array(XHAT_APPLE), atol=5e-4)


# Ba, Kiros & Hinton (2016), Table 1, the LayerNorm and BatchNorm rows — typed here from the paper, not from lnlib.
# The one test module of Table 1: computed for several seeds, and lnlib's own copy of the paper (PAPER_TABLE1,
# which tables.invariance_table prints beside the computed columns) checked against this one.
PAPER = {
    "layer": {
        "weight_matrix_rescale": True,
        "weight_matrix_recenter": True,
        "weight_vector_rescale": False,
        "dataset_rescale": True,
        "dataset_recenter": False,
        "single_case_rescale": True,
    },
    "batch": {
        "weight_matrix_rescale": True,
        "weight_matrix_recenter": False,
        "weight_vector_rescale": True,
        "dataset_rescale": True,
        "dataset_recenter": True,
        "single_case_rescale": False,
    },
}
PAPER_LAYER_NORM_ROW = PAPER["layer"]


@pytest.mark.parametrize("norm", sorted(PAPER))
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_table1_rows_as_in_the_paper(norm, seed):
    computed = {v.transform.key: v.invariant for v in invariance.verdicts(norm, seed=seed)}
    assert computed == PAPER[norm]
    changes = {v.transform.key: v.max_change for v in invariance.verdicts(norm, seed=seed)}
    assert all(changes[k] > 1e-3 for k, kept in PAPER[norm].items() if not kept), "a lost invariance is visible"


def test_lnlibs_copy_of_the_paper_is_the_paper():
    assert invariance.PAPER_TABLE1 == PAPER
    results = invariance.table1(["layer", "batch"])
    assert {n: {v.transform.key: v.invariant for v in vs} for n, vs in results.items()} == PAPER


def test_table1_accepts_a_normalization_function():
    """The normalization is a parameter: an identity "norm" is invariant to nothing that changes the layer."""
    verdicts = {v.transform.key: v.invariant for v in invariance.verdicts(lambda a: a)}
    assert not any(verdicts.values())
    ln = lambda a: lnlib.layer_norm(a, eps=0.0)  # noqa: E731
    assert {v.transform.key: v.invariant for v in invariance.verdicts(ln)} == PAPER_LAYER_NORM_ROW


def test_linear_then_norm_is_layer_norm_of_the_product():
    rng = np.random.default_rng(3)
    W, X = rng.normal(size=(4, 5)), rng.normal(size=(6, 5))
    expected = stats.zscore(X @ W.T, axis=1, ddof=0)
    assert np.allclose(invariance.linear_then_norm(W, X, "layer"), expected)


def test_invariance_table_shows_the_verdicts():
    frame = tables.invariance_table(invariance.table1(["layer"])).frame
    marks = frame["层归一化（LayerNorm）：不变？"].to_list()
    assert marks == ["✓" if PAPER_LAYER_NORM_ROW[t.key] else "✗" for t in invariance.TRANSFORMS]
    assert marks.count("✓") == 4
    assert "✗" in tables.invariance_table(invariance.table1(["layer"])).to_html()


# --- 06: γ and β ------------------------------------------------------------------------------------------------


def test_worked_gamma_beta_example():
    y = lnlib.layer_norm(APPLE, [2, 1, 1, 1], [0.5, 0, 0, 0], eps=0)
    assert 2 * -1.342 + 0.5 == pytest.approx(-2.184)  # the hand calculation with the rounded x̂₁
    assert y[0] == pytest.approx(2 * (-3 / math.sqrt(5)) + 0.5)  # exact: −2.183
    assert round(float(y[0]), 3) == -2.183
    assert np.allclose(y[1:], XHAT_APPLE[1:], atol=5e-4)


def test_initial_gamma_beta_is_identity():
    x = lnlib.TOKEN_MATRIX
    assert np.array_equal(lnlib.layer_norm(x, np.ones(4), np.zeros(4)), lnlib.layer_norm(x))
    assert np.allclose(lnlib.layer_norm(x, eps=0), stats.zscore(x, axis=1, ddof=0))


def test_gamma_beta_are_shared_by_every_token():
    gamma, beta = np.array([2.0, -1.0, 0.5, 3.0]), np.array([0.5, 1.0, -2.0, 0.0])
    x = lnlib.TOKEN_MATRIX
    y = lnlib.layer_norm(x, gamma, beta, eps=0)
    for i in range(3):
        assert np.allclose(y[i], gamma * stats.zscore(x[i], ddof=0) + beta)
    assert np.array_equal(y[1], y[2])  # 吃 and 苹果 stay identical


def test_after_gamma_beta_mean_and_variance_move():
    gamma, beta = np.array([2.0, 1.0, 1.0, 1.0]), np.array([0.5, 0.0, 0.0, 0.0])
    y = lnlib.layer_norm(APPLE, gamma, beta, eps=0)
    xhat = np.array([-3.0, -1.0, 1.0, 3.0]) / math.sqrt(5)
    assert np.mean(y) == pytest.approx(np.mean(gamma * xhat + beta))  # (−2.183 + 1.342) / 4 ≈ −0.21
    assert np.mean(y) == pytest.approx((-3 / math.sqrt(5) * 2 + 0.5 + 3 / math.sqrt(5)) / 4)
    assert np.var(y) == pytest.approx(np.var(gamma * xhat + beta))
    assert abs(np.mean(y)) > 0.1 and abs(np.var(y) - 1) > 0.5
    frame = tables.row_stats_table(groups.group_stats(lnlib.layer_norm(lnlib.TOKEN_MATRIX, gamma, beta, eps=0))).frame
    assert frame["y 的均值"].iloc[2] == pytest.approx(np.mean(y))


def test_layer_norm_with_affine_matches_torch():
    torch = pytest.importorskip("torch")
    gamma, beta = np.array([2.0, -1.0, 0.5, 3.0]), np.array([0.5, 1.0, -2.0, 0.0])
    x = lnlib.TOKEN_MATRIX
    ref = torch.nn.functional.layer_norm(torch.tensor(x), (4,), torch.tensor(gamma), torch.tensor(beta), eps=1e-5)
    assert np.allclose(lnlib.layer_norm(x, gamma, beta, eps=1e-5), ref.numpy(), atol=1e-12)
    module = torch.nn.LayerNorm(4)
    assert np.array_equal(module.weight.detach().numpy(), np.ones(4))  # γ starts at 1
    assert np.array_equal(module.bias.detach().numpy(), np.zeros(4))  # β starts at 0


def test_value_heatmap_is_a_figure():
    fig = plots.value_heatmap(lnlib.TOKEN_MATRIX, title="t")
    assert len(fig.axes) == 2  # the grid and its colorbar
    assert plots.to_png(fig).startswith(b"\x89PNG")


# --- 07: the full formula ---------------------------------------------------------------------------------------

GAMMA = np.array([2.0, 1.0, 1.0, 0.5])
BETA = np.array([0.5, 0.0, 0.0, -1.0])


def _reference(x, gamma, beta, eps, axes):
    """y = γ ⊙ (x − μ)/√(σ² + ε) + β written out with numpy (np.var is ÷ d)."""
    x = np.asarray(x, dtype=np.float64)
    mu = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def _batch():
    other = np.array([[1.0, 2.0, 3.0, 6.0], [10.0, 0.0, 10.0, 0.0], [4.0, 4.0, 4.0, 4.0]])
    return np.stack([lnlib.TOKEN_MATRIX, other])


def test_matrix_shapes_and_values():
    steps = lnlib.layer_norm_steps(lnlib.TOKEN_MATRIX, GAMMA, BETA)
    assert steps.mean.shape == steps.variance.shape == (3,)
    assert steps.output.shape == (3, 4)
    assert np.allclose(steps.output, _reference(lnlib.TOKEN_MATRIX, GAMMA, BETA, 1e-5, -1))
    # by hand: 我 = [8, 6, 4, 2] → x̂ = [1.342, 0.447, −0.447, −1.342]
    assert np.allclose(steps.output[0], [3.183, 0.447, -0.447, -1.671], atol=5e-4)


def test_batch_seq_d_tensor():
    b = _batch()
    steps = lnlib.layer_norm_steps(b, GAMMA, BETA)
    assert steps.mean.shape == (2, 3)
    assert np.array_equal(steps.mean, [[5, 50, 5], [3, 5, 4]])
    assert np.array_equal(steps.output[1, 2], BETA)  # the constant row: x̂ = 0, so y = β
    assert np.allclose(lnlib.layer_norm(b, GAMMA, BETA), _reference(b, GAMMA, BETA, 1e-5, -1))


def test_layer_norm_equals_steps_and_zscore():
    b = _batch()
    assert np.array_equal(lnlib.layer_norm(b, GAMMA, BETA), lnlib.layer_norm_steps(b, GAMMA, BETA).output)
    moving = b[:, :2]
    assert np.allclose(lnlib.layer_norm(moving, eps=0), stats.zscore(moving, axis=-1, ddof=0), rtol=0, atol=1e-12)


def test_layer_norm_matches_torch_on_a_batch():
    torch = pytest.importorskip("torch")
    b = _batch()
    ref = torch.nn.functional.layer_norm(torch.tensor(b), (4,), torch.tensor(GAMMA), torch.tensor(BETA), eps=1e-5)
    assert np.allclose(lnlib.layer_norm(b, GAMMA, BETA), ref.numpy(), atol=1e-12)


def test_several_trailing_axes():
    b = _batch()
    g, be = np.linspace(0.5, 2, 12).reshape(3, 4), np.linspace(-1, 1, 12).reshape(3, 4)
    y = lnlib.layer_norm(b, g, be, axis=(-2, -1))
    assert y.shape == (2, 3, 4)
    assert np.allclose(y, _reference(b, g, be, 1e-5, (-2, -1)))
    plain = lnlib.layer_norm(b, axis=(-2, -1), eps=0)
    assert np.allclose(plain.reshape(2, 12), stats.zscore(b.reshape(2, 12), axis=-1, ddof=0))
    with pytest.raises(ValueError):
        lnlib.layer_norm(b, GAMMA, BETA, axis=(-2, -1))  # γ must have the normalized shape (3, 4)


def test_several_trailing_axes_match_torch_normalized_shape():
    torch = pytest.importorskip("torch")
    b = _batch()
    g, be = np.linspace(0.5, 2, 12).reshape(3, 4), np.linspace(-1, 1, 12).reshape(3, 4)
    ref = torch.nn.functional.layer_norm(torch.tensor(b), (3, 4), torch.tensor(g), torch.tensor(be), eps=1e-5)
    assert np.allclose(lnlib.layer_norm(b, g, be, axis=(-2, -1)), ref.numpy(), atol=1e-12)


def test_exercise_answers_are_right_and_wrong_ones_rejected():
    def ok(name, answer):
        return judge(name, answer).ok

    wrong_ddof = GAMMA * stats.zscore(lnlib.TOKEN_MATRIX, axis=-1, ddof=1) + BETA
    assert judge_function("07.layer_norm", lambda x, g, b, eps=1e-5: _reference(x, g, b, eps, -1)).ok
    assert not judge_function("07.layer_norm", lambda x, g, b, eps=1e-5: g * stats.zscore(x, axis=-1, ddof=1) + b).ok
    assert not np.allclose(wrong_ddof, _reference(lnlib.TOKEN_MATRIX, GAMMA, BETA, 1e-5, -1), atol=1e-3)
    assert ok("07.shape_mu", (2, 3)) and not ok("07.shape_mu", (2, 3, 1))
    assert ok("04.var_ratio", 5 / 6) and not ok("04.var_ratio", 1.0)
    assert ok("04.unbiased_std", math.sqrt(2000 / 3)) and not ok("04.unbiased_std", math.sqrt(500))
    assert ok("05.invariant_count", 2) and not ok("05.invariant_count", 3) and not ok("05.invariant_count", 4)
    assert ok("06.y_apple", [0.5 * -1.3416 - 1, -0.4472, 0.4472, 2 * 1.3416 + 1])
    assert not ok("06.y_apple", [-1.342, -0.447, 0.447, 1.342])


@pytest.mark.parametrize("row", [[3, 3.002, 2.998, 3], [2, 4, 6, 8], [1e-5, 2e-5, 1e-5, 2e-5]])
def test_epsilon_plot_marks_sigma_squared_only_on_its_axis(row):
    """The ε = σ² guide and its label stand at σ² when 1e-8 ≤ σ² ≤ 1, and are hidden otherwise."""
    var = float(np.var(np.asarray(row, dtype=np.float64)))  # numpy's population variance
    right = plots.epsilon_plot(pitfalls.epsilon_effect(row, 1e-5)).axes[1]
    (guide,) = [line for line in right.lines if line.get_linestyle() == ":"]
    (label,) = right.texts
    on_axis = 1e-8 <= var <= 1.0
    assert guide.get_visible() is on_axis and label.get_visible() is on_axis
    if on_axis:
        np.testing.assert_allclose(guide.get_xdata(), [var, var], rtol=1e-12)
        np.testing.assert_allclose(label.xy[0], var, rtol=1e-12)
