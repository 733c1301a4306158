"""The fast path of layer_norm (lnlib/_fast.py) against independent references, for every dtype and odd rows.

References: numpy in float64 (for float32 input) or long double (for float64 input), written out here; closed
forms for the rows near the float limits. No timing here: speed is measured by benchmarks/bench_layer_norm.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lnlib
from lnlib import _fast

pytestmark = pytest.mark.usefixtures("compiled_loops_ready")  # it compares the compiled loops with numpy

SMALL_THRESHOLD = 1 << 12  # the shapes below are sized above this, and the compiled runs lower the threshold to it


@pytest.fixture(params=["compiled", "reference"], autouse=True)
def engine(request, monkeypatch):
    """Every test runs twice: through the compiled loop (numba) and through the reference path without it.

    The compiled runs lower the size threshold to SMALL_THRESHOLD, so that arrays of a few thousand numbers exercise
    the compiled loop (odd widths, several trailing axes) without making the tests slow.
    """
    if request.param == "compiled":
        pytest.importorskip("numba")
        if not _fast.available():
            pytest.skip("numba's JIT is disabled here (NUMBA_DISABLE_JIT=1): only the reference path runs")
        monkeypatch.setattr(_fast, "MIN_SIZE", SMALL_THRESHOLD)
    else:
        monkeypatch.setattr(_fast, "available", lambda: False)
    return request.param


SQ5 = np.sqrt(5.0)
APPLE_XHAT = np.array([-3, -1, 1, 3]) / SQ5  # x̂ of [2, 4, 6, 8] and of every affine image of it


def reference(x, gamma=None, beta=None, eps=1e-5, n_axes=1):
    wide = np.longdouble if x.dtype == np.float64 else np.float64
    xw = x.astype(wide)
    axes = tuple(range(x.ndim - n_axes, x.ndim))
    mu = xw.mean(axis=axes, keepdims=True)
    var = ((xw - mu) ** 2).mean(axis=axes, keepdims=True)
    y = (xw - mu) / np.sqrt(var + eps)
    if gamma is not None:
        y = y * np.asarray(gamma, dtype=wide)
    if beta is not None:
        y = y + np.asarray(beta, dtype=wide)
    return y


def ulps(dtype):
    return {np.float32: 1e-6, np.float64: 1e-13, np.float16: 2e-3}[np.dtype(dtype).type]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 768), (4, 33, 129), (3, 5000)])
@pytest.mark.parametrize("affine", [False, True])
def test_big_random_inputs_match_the_reference(dtype, shape, affine):
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 3 + rng.normal(0, 20, shape[:-1] + (1,))).astype(dtype)
    gamma = rng.normal(1, 0.5, shape[-1]).astype(dtype) if affine else None
    beta = rng.normal(0, 0.5, shape[-1]).astype(dtype) if affine else None
    y = lnlib.layer_norm(x, gamma, beta)
    assert y.dtype == dtype and y.shape == x.shape
    ref = reference(x, gamma, beta)
    scale = 1 + (np.abs(gamma).max() * 5 if affine else 0)
    np.testing.assert_allclose(y.astype(np.float64), ref.astype(np.float64), rtol=0, atol=ulps(dtype) * 4 * scale)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_big_inputs_take_the_fast_path_and_steps_agree(dtype, engine):
    rng = np.random.default_rng(7)
    x = rng.normal(2, 3, (300, 64)).astype(dtype)
    assert _fast.applies(x, (1,)) == (engine == "compiled")
    steps = lnlib.layer_norm_steps(x)
    np.testing.assert_allclose(lnlib.layer_norm(x), steps.output, rtol=0, atol=ulps(dtype) * 4)


def extreme_rows(dtype):
    """Rows with a known x̂ (an affine image of [2, 4, 6, 8] or of its reverse), tiled to 768 values per row."""
    apple = np.array([2.0, 4.0, 6.0, 8.0])
    if dtype == np.float32:  # near the largest float32, tiny normal, offset, negative, subnormal (exact values)
        rows = [
            [5e37, 1e38, 1.5e38, 2e38],
            [2e-30, 4e-30, 6e-30, 8e-30],
            [1e4, 1e4 + 1, 1e4 + 2, 1e4 + 3],
            [-2e38, -1.5e38, -1e38, -5e37],
            np.ldexp(apple, -140),
        ]
    else:
        rows = [
            [4e307, 8e307, 1.2e308, 1.6e308],
            [2e-300, 4e-300, 6e-300, 8e-300],
            [1e15, 1e15 + 1, 1e15 + 2, 1e15 + 3],
            np.ldexp(apple, -1070),
            [-8e307, -6e307, -4e307, -2e307],
        ]
    return np.array([np.tile(r, 192) for r in rows], dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_extreme_rows_with_eps_zero(dtype):
    x = extreme_rows(dtype)
    x = np.concatenate([x, np.random.default_rng(0).normal(size=(20, 768)).astype(dtype)])
    y = lnlib.layer_norm(x, eps=0)
    expected = np.tile(APPLE_XHAT, 192)
    for i in range(5):  # every listed row is increasing and evenly spaced
        np.testing.assert_allclose(y[i].astype(np.float64), expected, atol=1e-6, err_msg=f"row {i}: {x[i, :4]}")
    np.testing.assert_allclose(np.abs(y[:5, :2]), np.tile([1.342, 0.447], (5, 1)), atol=5e-4)


def test_the_float32_limit_rows_of_the_robustness_tests():
    x = np.tile(np.array([5e37, 1e38, 1.5e38, 2e38], dtype=np.float32), (2000, 1))
    np.testing.assert_allclose(lnlib.layer_norm(x, eps=0)[0], APPLE_XHAT, atol=1e-6)
    x = np.tile(np.array([1e-30, 2e-30, 3e-30, 4e-30], dtype=np.float32), (2000, 1))
    np.testing.assert_allclose(lnlib.layer_norm(x, eps=0)[-1], APPLE_XHAT, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_inf_and_constant_rows_stay_in_their_row_silently(dtype):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(50, 100)).astype(dtype)
    x[3, 7] = np.nan
    x[9, 1] = np.inf
    x[20] = 4.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = lnlib.layer_norm(x)
        y0 = lnlib.layer_norm(x, eps=0)
    assert np.all(np.isnan(y[3])) and np.all(np.isnan(y[9]))
    np.testing.assert_array_equal(y[20], 0)
    assert np.all(np.isnan(y0[20]))  # 0 / 0 with ε = 0, as in the reference path
    others = np.delete(np.arange(50), [3, 9, 20])
    assert np.all(np.isfinite(y[others]))
    np.testing.assert_allclose(y[others], reference(x[others]), rtol=0, atol=ulps(dtype) * 4)


def test_multi_axis_noncontiguous_and_mixed_dtypes():
    rng = np.random.default_rng(9)
    x = rng.normal(size=(6, 40, 50)).astype(np.float32)
    g = rng.normal(size=(40, 50))
    y = lnlib.layer_norm(x, g, axis=(1, 2))
    assert y.dtype == np.float64  # float64 γ widens the result, as on the reference path
    np.testing.assert_allclose(y, reference(x, g, n_axes=2), rtol=0, atol=1e-5)
    xt = np.asfortranarray(rng.normal(size=(300, 40)))
    np.testing.assert_allclose(lnlib.layer_norm(xt), reference(xt), rtol=0, atol=1e-12)
    xs = rng.normal(size=(300, 80))[:, ::2]
    np.testing.assert_allclose(lnlib.layer_norm(xs), reference(xs), rtol=0, atol=1e-12)


def test_fast_path_does_not_mutate_inputs():
    """The property test p9 covers small inputs; this one is big enough for the compiled path (MIN_SIZE numbers)."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(1100, 64)).astype(np.float32)
    assert x.size >= _fast.MIN_SIZE
    g, b = rng.normal(size=64), rng.normal(size=64)
    copies = x.copy(), g.copy(), b.copy()
    lnlib.layer_norm(x, g, b)
    for a, c in zip((x, g, b), copies, strict=True):
        np.testing.assert_array_equal(a, c)


def test_small_and_non_trailing_inputs_use_the_reference_path():
    rows = -(-_fast.MIN_SIZE // 64)  # the smallest (rows, 64) at the threshold
    assert not _fast.applies(np.zeros((3, 4)), (1,))
    assert not _fast.applies(np.zeros((rows - 1, 64)), (1,))
    assert not _fast.applies(np.zeros((rows, 64)), (0,))
    assert not _fast.applies(np.zeros((rows, 64), dtype=np.float16), (1,))
    assert _fast.applies(np.zeros((rows, 64)), (1,)) == _fast.available()


def test_the_compiled_loop_equals_the_reference_path(engine, monkeypatch):
    if engine != "compiled":
        pytest.skip("compares the compiled loop with the reference path")
    rng = np.random.default_rng(5)
    x = rng.normal(3, 2, (300, 128)).astype(np.float32)
    g, b = rng.normal(size=128).astype(np.float32), rng.normal(size=128).astype(np.float32)
    fast = lnlib.layer_norm(x, g, b)
    monkeypatch.setattr(_fast, "available", lambda: False)
    np.testing.assert_allclose(fast, lnlib.layer_norm(x, g, b), rtol=0, atol=ulps(np.float32) * 20)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_compiled_loop_gives_the_reference_bits_on_random_rows(engine, monkeypatch, dtype):
    """Bit for bit (the raw bytes, signs of NaN included), on widths that are and are not multiples of 8 and 16:
    the compiled passes (three sum levels per pass, some additions on the fused multiply-add units) must round
    exactly as the numpy path."""
    if engine != "compiled":
        pytest.skip("compares the compiled loop with the reference path")
    rng = np.random.default_rng(11)
    for d in (5, 8, 12, 16, 17, 24, 40, 100, 768, 1000):
        n = -(-2 * SMALL_THRESHOLD // d)
        x = rng.standard_normal((n, d)) * 10.0 ** rng.integers(-8, 9, (n, 1)) + rng.normal(0, 30, (n, 1))
        x[3, d // 2] = np.nan
        x[4, 0] = -np.inf
        x = x.astype(dtype)
        g, b = rng.normal(1, 0.5, d).astype(dtype), rng.normal(0, 0.5, d).astype(dtype)
        fast = lnlib.layer_norm(x, g, b)
        with monkeypatch.context() as m:
            m.setattr(_fast, "available", lambda: False)
            slow = lnlib.layer_norm(x, g, b)
        assert fast.dtype == slow.dtype and fast.tobytes() == slow.tobytes(), d


def test_concurrent_calls_with_different_params_stay_apart():
    """γ and β of the compiled call live in a buffer reused from call to call: calls from several threads, with
    different γ, β and widths, must each get their own result."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(12)
    jobs = []
    for k, d in enumerate((64, 768, 100, 768, 64, 1000) * 2):
        x = rng.normal(k, 1 + k, (-(-2 * SMALL_THRESHOLD // d), d)).astype(np.float32)
        g, b = (None, None) if k % 3 == 0 else (rng.normal(1, 0.5, d), rng.normal(0, 0.5, d).astype(np.float32))
        jobs.append((x, g, b))
    alone = [lnlib.layer_norm(x, g, b) for x, g, b in jobs]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda job: lnlib.layer_norm(*job), jobs * 3))
    for i, y in enumerate(together):
        assert y.tobytes() == alone[i % len(jobs)].tobytes(), i
