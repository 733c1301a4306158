"""Every stage of LayerNorm against the seed article's hand numbers, closed forms and SciPy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import lnlib
from lnlib import data

APPLE = [2, 4, 6, 8]
CHI = [20, 40, 60, 80]
WO = [8, 6, 4, 2]
HAND_XHAT = [-3 / math.sqrt(5), -1 / math.sqrt(5), 1 / math.sqrt(5), 3 / math.sqrt(5)]


def test_token_matrix_is_the_seed_table():
    assert lnlib.TOKENS == ("我", "吃", "苹果")
    assert lnlib.TOKEN_MATRIX.dtype == np.float64
    assert lnlib.TOKEN_MATRIX.tolist() == [WO, CHI, APPLE]


def test_residual_add_gives_apple():
    assert (data.RESIDUAL_INPUT + data.ATTENTION_OUTPUT).tolist() == APPLE
    assert data.RESIDUAL_INPUT.tolist() == [1, 1, 2, 3] and data.ATTENTION_OUTPUT.tolist() == [1, 3, 4, 5]


def test_course_data_is_read_only():
    with pytest.raises(ValueError):
        lnlib.TOKEN_MATRIX[0, 0] = 99


def test_apple_stage_by_stage():
    assert lnlib.mean(APPLE) == 5
    assert lnlib.center(APPLE).tolist() == [-3, -1, 1, 3]
    assert lnlib.variance(APPLE) == 5  # (9 + 1 + 1 + 9) / 4, not / 3
    assert lnlib.std(APPLE) == pytest.approx(math.sqrt(5))
    assert round(float(lnlib.std(APPLE)), 3) == 2.236
    np.testing.assert_allclose(lnlib.normalize(APPLE, eps=0), HAND_XHAT, rtol=1e-15)
    assert np.round(lnlib.normalize(APPLE), 3).tolist() == [-1.342, -0.447, 0.447, 1.342]


def test_chi_lands_on_the_same_xhat_and_wo_is_the_mirror():
    assert lnlib.mean(CHI) == 50
    assert lnlib.variance(CHI) == 500
    assert round(float(lnlib.std(CHI)), 2) == 22.36
    np.testing.assert_allclose(lnlib.normalize(CHI, eps=0), HAND_XHAT, rtol=1e-15)
    np.testing.assert_allclose(lnlib.normalize(WO, eps=0), HAND_XHAT[::-1], rtol=1e-15)


def test_statistics_drop_the_last_axis():
    m = lnlib.TOKEN_MATRIX
    assert lnlib.mean(m).tolist() == [5, 50, 5]
    assert lnlib.variance(m).tolist() == [5, 500, 5]
    assert lnlib.std(m).shape == (3,)
    assert lnlib.center(m).shape == lnlib.normalize(m).shape == (3, 4)
    assert lnlib.mean(np.ones((2, 3, 4))).shape == (2, 3)


def test_normalize_matches_scipy_zscore():
    rng = np.random.default_rng(0)
    x = rng.normal(3, 7, size=(5, 6, 9))
    np.testing.assert_allclose(lnlib.normalize(x, eps=0), stats.zscore(x, axis=-1, ddof=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lnlib.variance(x), np.var(x, axis=-1), rtol=1e-12)


def test_epsilon_sits_inside_the_square_root():
    x = np.array([1.0, 2.0])  # σ² = 0.25
    eps = 0.75
    np.testing.assert_allclose(lnlib.normalize(x, eps=eps), [-0.5, 0.5])  # (±0.5) / √(0.25 + 0.75)


def test_constant_row_gives_exact_zeros_with_epsilon():
    out = lnlib.normalize([3, 3, 3, 3])
    assert out.tolist() == [0, 0, 0, 0]
    assert np.all(np.isnan(lnlib.normalize([3, 3, 3, 3], eps=0)))  # 0/0 is reported, not hidden


def test_affine_scales_and_shifts_each_dimension():
    xhat = np.array(HAND_XHAT)
    gamma, beta = [2.0, 1.0, 1.0, 1.0], [0.5, 0.0, 0.0, 0.0]
    y = lnlib.affine(xhat, gamma, beta)
    assert float(y[0]) == pytest.approx(2 * -3 / math.sqrt(5) + 0.5, rel=1e-15)  # −2.1833 exactly
    assert float(y[0]) == pytest.approx(2 * -1.342 + 0.5, abs=1e-3)  # −2.184 from the rounded −1.342
    np.testing.assert_array_equal(y[1:], xhat[1:])
    np.testing.assert_array_equal(lnlib.affine(xhat), xhat)


def test_layer_norm_steps_fields():
    s = lnlib.layer_norm_steps(APPLE, gamma=[1, 2, 3, 4], beta=[0, 0, 0, 1], eps=1e-5)
    assert s.eps == 1e-5 and s.mean == 5 and s.variance == 5
    assert s.std == pytest.approx(math.sqrt(5)) and s.std_eps == pytest.approx(math.sqrt(5 + 1e-5))
    np.testing.assert_allclose(s.normalized, np.array([-3, -1, 1, 3]) / math.sqrt(5 + 1e-5))
    np.testing.assert_allclose(s.output, s.normalized * [1, 2, 3, 4] + [0, 0, 0, 1])
    assert s.x.tolist() == APPLE and s.gamma.tolist() == [1, 2, 3, 4] and s.beta.tolist() == [0, 0, 0, 1]
    default = lnlib.layer_norm_steps(APPLE)
    assert default.gamma.tolist() == [1] * 4 and default.beta.tolist() == [0] * 4
    np.testing.assert_array_equal(default.output, default.normalized)


def test_steps_agree_with_layer_norm_on_a_batch():
    x = np.random.default_rng(1).normal(size=(2, 3, 8))
    g, b = np.linspace(0.5, 2, 8), np.linspace(-1, 1, 8)
    np.testing.assert_allclose(lnlib.layer_norm_steps(x, g, b).output, lnlib.layer_norm(x, g, b), rtol=1e-14)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_dtypes_are_kept(dtype):
    x = np.array(APPLE, dtype=dtype)
    for f in (lnlib.mean, lnlib.center, lnlib.variance, lnlib.std, lnlib.normalize):
        assert f(x).dtype == dtype, f.__name__
    s = lnlib.layer_norm_steps(x)
    assert s.normalized.dtype == s.output.dtype == s.mean.dtype == dtype


@pytest.mark.parametrize("value", [APPLE, tuple(APPLE), np.array(APPLE, dtype=np.int64), np.array(APPLE, np.uint8)])
def test_ints_lists_and_tuples_compute_in_float64(value):
    assert lnlib.normalize(value).dtype == np.float64
    assert lnlib.mean(value) == 5


def test_one_pass_cancellation_does_not_happen():
    x = np.float32(1e4) + np.array([0, 1, 2, 3], dtype=np.float32)
    assert float(lnlib.variance(x)) == pytest.approx(1.25, rel=1e-6)
    np.testing.assert_allclose(lnlib.normalize(x, eps=0), np.array([-3, -1, 1, 3]) / math.sqrt(5), rtol=1e-6)


def test_nan_stays_in_its_row():
    out = lnlib.normalize([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]])
    assert np.all(np.isnan(out[0]))
    np.testing.assert_allclose(out[1], stats.zscore([1.0, 2.0, 3.0]), rtol=1e-5)


def test_layer_norm_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    x = rng.normal(size=(4, 5, 16))
    g, b = rng.normal(size=16), rng.normal(size=16)
    ref = torch.nn.functional.layer_norm(torch.tensor(x), (16,), torch.tensor(g), torch.tensor(b), eps=1e-5)
    np.testing.assert_allclose(lnlib.layer_norm(x, g, b), ref.numpy(), rtol=1e-10, atol=1e-12)
    ref2 = torch.nn.functional.layer_norm(torch.tensor(x), (5, 16), eps=1e-3)
    np.testing.assert_allclose(lnlib.layer_norm(x, axis=(-2, -1), eps=1e-3), ref2.numpy(), rtol=1e-10, atol=1e-12)
