"""Extreme numbers: rows near the float32/float64 limits, large offsets, float16, and NaN/inf kept in their row.

Expected values are exact (fractions) or computed from float64 references, never from lnlib itself.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from helpers import exact_moments, strict_warnings

import lnlib

XHAT_1234 = np.array([-3, -1, 1, 3]) / np.sqrt(5)  # ≈ [−1.342, −0.447, 0.447, 1.342]


@pytest.fixture(autouse=True)
def _every_warning_is_an_error():
    with warnings.catch_warnings():
        strict_warnings()
        yield


def sqrt_frac(f: Fraction) -> float:
    """√f correctly to a few ulps for any positive Fraction (scaled by an exact power of 4 first)."""
    if f == 0:
        return 0.0
    k = (f.numerator.bit_length() - f.denominator.bit_length()) // 2
    return math.ldexp(float(f / Fraction(4) ** k) ** 0.5, k)


def to_float(f: Fraction) -> float:
    try:
        return float(f)
    except OverflowError:
        return float("inf") if f > 0 else float("-inf")


def exact_xhat(row, eps: float) -> np.ndarray:
    """(x − μ)/√(σ² + ε) from the exact values of `row` (Fractions; only the square root is rounded)."""
    mu, var = exact_moments(row)
    var += Fraction(eps)
    k = (var.numerator.bit_length() - var.denominator.bit_length()) // 2
    root = float(var / Fraction(4) ** k) ** 0.5  # √var / 2^k
    return np.array([float((Fraction(float(a)) - mu) / Fraction(2) ** k) / root for a in row])


ROWS_NEAR_LIMITS = {
    np.float32: [
        [1e30, 2e30, 3e30, 4e30],
        [5e37, 1e38, 1.5e38, 2e38],
        [1e-30, 2e-30, 3e-30, 4e-30],
        [-3.4e38, -1.7e38, 1.7e38, 3.4e38],
        [1e-45, 3e-45, 4e-45, 6e-45],
    ],  # last: float32 subnormals
    np.float64: [
        [1e300, 2e300, 3e300, 4e300],
        [4e307, 8e307, 1.2e308, 1.6e308],
        [1e-300, 2e-300, 3e-300, 4e-300],
        [-1.7e308, -0.85e308, 0.85e308, 1.7e308],
        [5e-324, 1e-323, 1.5e-323, 2e-323],
    ],
}
CASES = [(dt, row) for dt, rows in ROWS_NEAR_LIMITS.items() for row in rows]
IDS = [f"{dt.__name__}-{row[0]:g}" for dt, row in CASES]


@pytest.mark.parametrize(("dtype", "row"), CASES, ids=IDS)
@pytest.mark.parametrize("eps", [0.0, 1e-5])
def test_rows_near_the_limits(dtype, row, eps):
    x = np.array(row, dtype=dtype)
    want = exact_xhat(x, eps)
    tol = 4 * np.finfo(dtype).eps
    got = {
        "layer_norm": lnlib.layer_norm(x, eps=eps),
        "normalize": lnlib.normalize(x, eps=eps),
        "standardize": lnlib.standardize(x, 0, eps=eps),
        "steps": lnlib.layer_norm_steps(x, eps=eps).output,
        "batch_norm": lnlib.batch_norm(x[:, None], eps=eps)[:, 0],
        "BatchNorm": lnlib.BatchNorm(1, eps=eps)(x[:, None])[:, 0],
        "2-D": lnlib.layer_norm(np.stack([x, x[::-1]]), eps=eps)[0],
    }
    for name, y in got.items():
        assert y.dtype == dtype, name
        np.testing.assert_allclose(y.astype(np.float64), want, rtol=tol, atol=tol, err_msg=name)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_issue_rows_give_the_textbook_answer_even_with_eps_zero(dtype):
    for row in ([1e30, 2e30, 3e30, 4e30], [5e37, 1e38, 1.5e38, 2e38], [1e-30, 2e-30, 3e-30, 4e-30]):
        y = lnlib.layer_norm(np.array(row, dtype=dtype), eps=0)
        np.testing.assert_allclose(y, [-1.342, -0.447, 0.447, 1.342], atol=1e-3)
        assert np.all(np.isfinite(y)) and y.dtype == dtype


@pytest.mark.parametrize(("dtype", "row"), CASES, ids=IDS)
def test_statistics_and_gradients_near_the_limits(dtype, row):
    x = np.array(row, dtype=dtype)
    mu, var = exact_moments(x)
    info = np.finfo(dtype)
    tol, tiny = 4 * float(info.eps), float(info.smallest_subnormal)

    def close(got, want, name):
        np.testing.assert_allclose(np.asarray(got, dtype=np.float64), want, rtol=tol, atol=tiny, err_msg=name)

    close(lnlib.mean(x), to_float(mu), "mean")
    close(lnlib.center(x), [to_float(Fraction(float(a)) - mu) for a in x], "center")
    want_var = to_float(var)
    # σ² beyond the dtype is inf, honestly
    close(lnlib.variance(x), want_var if want_var <= float(info.max) else np.inf, "variance")
    close(lnlib.std(x), sqrt_frac(var), "std")
    # dy in float64: ∂y/∂x ~ 1/σ does not fit float32 for a row of float32 subnormals (inf would be honest there)
    dx, dgamma, dbeta = lnlib.layer_norm_backward(np.array([0.0, 0.0, 0.0, 1.0]), x, eps=0)
    assert np.all(np.isfinite(dgamma)) and np.all(np.isfinite(dbeta))
    if sqrt_frac(var) > 1e-300:  # otherwise ∂y/∂x ~ 1/σ is beyond float64 and ±inf is the honest answer
        assert np.all(np.isfinite(dx))
        assert abs(float(np.sum(dx))) <= 1e-6 * float(np.sum(np.abs(dx)))
    assert not np.any(np.isnan(dx))
    close(dgamma, exact_xhat(x, 0.0) * [0, 0, 0, 1], "dgamma")
    ms = sum((Fraction(float(a)) ** 2 for a in x), Fraction(0)) / 4
    k = (ms.numerator.bit_length() - ms.denominator.bit_length()) // 2  # x/√ms = (x/2^k)/(√ms/2^k), exact scaling
    root = float(ms / Fraction(4) ** k) ** 0.5
    close(lnlib.rms_norm(x, eps=0), [float(Fraction(float(a)) / Fraction(2) ** k) / root for a in x], "rms_norm")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_constant_rows_near_the_limits_have_zero_variance(dtype):
    """A constant row at ±max: the sum overflows, the rescaled variance is 0 and must stay 0 (not 0·inf = NaN)."""
    big = np.finfo(dtype).max
    x = np.array([[big] * 4, [-big] * 4, [np.finfo(dtype).smallest_subnormal] * 4], dtype=dtype)
    np.testing.assert_array_equal(lnlib.variance(x), [0, 0, 0])
    np.testing.assert_array_equal(lnlib.layer_norm_steps(x).variance, [0, 0, 0])
    np.testing.assert_array_equal(lnlib.layer_norm(x), np.zeros((3, 4)))
    np.testing.assert_array_equal(lnlib.mean(x), [big, -big, np.finfo(dtype).smallest_subnormal])
    bn = lnlib.BatchNorm(3)
    bn(x.T)
    assert np.all(np.isfinite(bn.running_var)) and np.all(np.isfinite(bn.running_mean))


def test_large_offset_float32_matches_a_float64_reference():
    """float32 1e6 + noise: the spread (~1) is 2⁻²⁴ of the offset. A float32 one-pass formula loses it entirely."""
    rng = np.random.default_rng(7)
    noise = rng.normal(size=(64, 16))
    x32 = (1e6 + noise).astype(np.float32)
    x64 = x32.astype(np.float64)  # the float32 values exactly
    ref = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True) + 1e-5)
    y = lnlib.layer_norm(x32)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, ref, rtol=0, atol=4 * np.finfo(np.float32).eps * 4)
    # against the un-rounded data only the float32 quantization of the input (spacing 1/16 at 1e6) remains
    exact = (noise - noise.mean(-1, keepdims=True)) / np.sqrt(noise.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, exact, rtol=0, atol=0.1)
    # the same number through every stage
    steps = lnlib.layer_norm_steps(x32)
    np.testing.assert_allclose(steps.variance, x64.var(-1), rtol=1e-6)
    np.testing.assert_allclose(steps.normalized, ref, rtol=0, atol=16 * np.finfo(np.float32).eps)
    # this test can fail: the naive float32 one-pass formula E[x²] − E[x]² is garbage here
    with np.errstate(all="ignore"):
        naive_var = np.mean(x32 * x32, -1) - np.mean(x32, -1) ** 2
    assert np.max(np.abs(naive_var - x64.var(-1))) > 1.0


def test_large_offset_float64_matches_an_exact_reference():
    rng = np.random.default_rng(11)
    x = 1e12 + rng.normal(size=(8, 8)) * 1e-3  # spread 1e-3 on an offset of 1e12: 15 of 16 digits are shared
    for row, y in zip(x, lnlib.layer_norm(x, eps=0), strict=True):
        np.testing.assert_allclose(y, exact_xhat(row, 0.0), rtol=0, atol=1e-12)


def test_float16_is_computed_at_higher_precision_and_returned_as_float16():
    x = np.array(
        [
            [60000, -60000, 30000, 0],
            [1000, 1000.5, 1001, 1001.5],
            [0.001, 0.002, 0.003, 0.004],
            [65504, 65504, 65504, 65472],
        ],
        dtype=np.float16,
    )
    for f in (lnlib.layer_norm, lnlib.normalize, lnlib.rms_norm, lambda a: lnlib.layer_norm_steps(a).output):
        y = f(x)
        assert y.dtype == np.float16
        # the float64 computation on the same float16 values, rounded once to float16
        assert np.array_equal(y, f(x.astype(np.float64)).astype(np.float16))
    assert np.all(np.isfinite(lnlib.layer_norm(x)))  # float16 arithmetic would overflow: Σx, σ² > 65504
    np.testing.assert_allclose(lnlib.layer_norm(x)[1], XHAT_1234, atol=2e-3)
    assert lnlib.mean(x).dtype == np.float16 and lnlib.mean(x)[3] == np.float16(65496)
    # and float16 with float16 γ, β stays float16
    g = np.ones(4, np.float16)
    assert lnlib.layer_norm(x, g, g).dtype == np.float16


FUNCS_ROW = {  # functions that normalize each row: a NaN/inf row must stay in its row
    "layer_norm": lambda a: lnlib.layer_norm(a),
    "layer_norm eps=0": lambda a: lnlib.layer_norm(a, eps=0),
    "standardize": lambda a: lnlib.standardize(a, -1),
    "normalize": lnlib.normalize,
    "center": lnlib.center,
    "mean": lnlib.mean,
    "variance": lnlib.variance,
    "std": lnlib.std,
    "steps": lambda a: lnlib.layer_norm_steps(a).output,
    "rms_norm": lambda a: lnlib.rms_norm(a),
    "backward dx": lambda a: lnlib.layer_norm_backward(np.arange(a.size, dtype=float).reshape(a.shape) % 3, a)[0],
    "batch_norm (columns)": lambda a: lnlib.batch_norm(a.T).T,
    "BatchNorm eval (columns)": lambda a: lnlib.BatchNorm(a.shape[0]).eval()(a.T).T,  # training refuses NaN
    "big (fast path)": lambda a: lnlib.layer_norm(np.tile(a, (1, 1024)))[:, :4],
}


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("name", list(FUNCS_ROW))
def test_nan_and_inf_stay_in_their_row(name, bad, dtype):
    top = np.finfo(dtype).max / 4
    x = np.array([[1, 2, 3, 4], [1, 2, 3, 4], [top, -top, top / 2, 0], [1e-4, 2e-4, 3e-4, 5e-4]], dtype=dtype)
    x_bad = x.copy()
    x_bad[1, 2] = bad
    f = FUNCS_ROW[name]
    clean, dirty = f(x), f(x_bad)
    keep = [0, 2, 3]
    np.testing.assert_array_equal(dirty[keep], clean[keep])
    if name.startswith("layer_norm") or name in ("standardize", "normalize", "steps", "batch_norm (columns)"):
        assert np.all(np.isnan(dirty[1])), dirty[1]


def test_nan_in_one_feature_is_refused_in_training_and_kept_in_its_element_in_eval():
    """Issue 30, item 3: a NaN training batch used to be accepted and left NaN in the running statistics, after
    which every call raised. Now it is refused by name and nothing changes; eval keeps the NaN in its element."""
    x = np.array([[1.0, 2.0, 3.0], [2.0, np.nan, 5.0], [3.0, 4.0, 8.0]])
    bn, clean = lnlib.BatchNorm(3), lnlib.BatchNorm(3)
    with pytest.raises(ValueError, match=r"^x: .*\[1\]"):
        bn(x)
    np.testing.assert_array_equal(bn.running_mean, clean.running_mean)
    np.testing.assert_array_equal(bn.running_var, clean.running_var)
    y = bn.eval()(x)
    assert np.isnan(y[1, 1]) and np.isfinite(np.delete(y.ravel(), 4)).all()
    np.testing.assert_array_equal(y[[0, 2]], clean.eval()(x[[0, 2]]))
