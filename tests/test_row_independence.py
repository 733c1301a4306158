"""A row depends on that row alone, bit for bit (issue 11, item 3): whatever the batch size, the order of the rows,
the memory layout, the size threshold of the compiled loop, or whether numba is there at all.

Compared with np.array_equal (NaN in the same places): no tolerance. The numba-free path is checked in this process
(the compiled loop switched off) and in a fresh process with NUMBA_DISABLE_JIT=1, as a learner without numba runs it.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import lnlib
from lnlib import _fast

pytestmark = pytest.mark.usefixtures("compiled_loops_ready")  # it compares the compiled loops with numpy

ROOT = Path(__file__).resolve().parent.parent


def same(a, b) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def rows(n, d, dtype, seed=0):
    """Rows at every scale: ordinary, offset, tiny, huge, constant, near-constant, zero, with NaN/inf."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)) * 10.0 ** rng.integers(-3, 4, (n, 1)) + rng.normal(0, 50, (n, 1))
    if dtype == np.float64:
        x[1::7] *= 1e-300
        x[2::7] *= 1e300
        x[3::11] = 1e5 + rng.standard_normal(d) * 1e-9
    x[4::13] = 2.5
    x[5::17] = 0.0
    if n > 6:
        x[6, d // 2] = np.nan
    if n > 8:
        x[8, 0] = np.inf
    if dtype == np.float64 and n > 15:  # tiny and huge rows holding NaN or inf: never rescaled (the quick peak
        x[15, d // 3] = np.nan  # test of the compiled loop skips NaN, its exact bit test must keep them unscaled)
        x[9, d - 1] = -np.inf
    return x.astype(dtype)


def params(d, kind, seed=1):
    rng = np.random.default_rng(seed)
    if kind is None:
        return None, None
    return rng.normal(1, 0.5, d).astype(kind), rng.normal(0, 0.5, d).astype(kind)


DTYPES = [np.float16, np.float32, np.float64]
PARAMS = [None, np.float16, np.float32, np.float64]
WIDTHS = [1, 3, 8, 63, 64, 100, 768]


@pytest.mark.parametrize("d", WIDTHS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pkind", PARAMS)
def test_a_slice_of_the_batch_gives_the_same_bits(d, dtype, pkind):
    n = max(80, -(-2 * _fast.MIN_SIZE // d))  # the whole batch is above the size threshold, small slices below
    x = rows(n, d, dtype)
    g, b = params(d, pkind)
    full = lnlib.layer_norm(x, g, b)
    for k in (1, 5, 63):
        assert same(lnlib.layer_norm(x[:k], g, b), full[:k]), k
    for i in (0, 1, 2, 3, 4, 6, 8, n - 1):
        assert same(lnlib.layer_norm(x[i], g, b), full[i]), i
    assert same(lnlib.layer_norm(x[::-1], g, b)[::-1], full)  # the order of the rows
    assert same(lnlib.layer_norm(np.asfortranarray(x), g, b), full)  # the memory layout
    rev = x[::-1, ::-1]  # negative strides
    assert same(lnlib.layer_norm(rev, g, b), lnlib.layer_norm(np.ascontiguousarray(rev), g, b))
    assert same(lnlib.layer_norm(x[:, None, :].repeat(3, axis=1), g, b)[:, 1], full)  # a batch of sequences
    assert same(lnlib.layer_norm_steps(x, g, b).output, full)  # the stage-by-stage path
    if g is None:
        assert same(lnlib.standardize(x, -1), full.astype(x.dtype))
        if d > 1:
            assert same(lnlib.batch_norm(np.ascontiguousarray(x.T), axis=0).T, full)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("pkind", PARAMS)
def test_the_compiled_loop_and_the_numpy_path_agree_bit_for_bit(dtype, pkind, monkeypatch):
    pytest.importorskip("numba")
    for d in (1, 7, 8, 24, 100, 768, 1000):
        x = rows(max(40, -(-_fast.MIN_SIZE // d)), d, dtype, seed=d)
        g, b = params(d, pkind, seed=d)
        assert _fast.applies(x, (1,)) == _fast.available()
        compiled = lnlib.layer_norm(x, g, b)
        with monkeypatch.context() as m:
            m.setattr(_fast, "available", lambda: False)
            numpy_path = lnlib.layer_norm(x, g, b)
        assert same(compiled, numpy_path), d


def test_several_normalized_axes_depend_on_their_slice_alone():
    x = rows(6 * 40, 50, np.float64).reshape(6, 40, 50)
    g = np.random.default_rng(2).normal(size=(40, 50))
    full = lnlib.layer_norm(x, g, axis=(1, 2))
    for i in range(6):
        assert same(lnlib.layer_norm(x[i], g, axis=(0, 1)), full[i])
    assert same(
        lnlib.standardize(x, (1, 2)),
        lnlib.standardize(np.ascontiguousarray(x.transpose(1, 2, 0)), (0, 1)).transpose(2, 0, 1),
    )


def test_float16_with_float64_gamma_is_rounded_once():
    """float16 x with float64 γ: computed in float64 and rounded once, so the result equals the float64 computation
    on the same float16 values (the old code carried float16 rounding of x̂ into a float64 result)."""
    x = rows(50, 64, np.float16)
    g, b = params(64, np.float64)
    y = lnlib.layer_norm(x, g, b)
    assert y.dtype == np.float64
    assert same(y, lnlib.layer_norm(x.astype(np.float64), g, b))
    g16, b16 = params(64, np.float16)
    assert same(lnlib.layer_norm(x, g16, b16), lnlib.layer_norm(x.astype(np.float64), g16, b16).astype(np.float16))


def test_the_issue_example_float32_x_float64_gamma():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((-(-_fast.MIN_SIZE // 768) + 1, 768)).astype(np.float32)  # above the size threshold
    g = rng.standard_normal(768)
    assert same(lnlib.layer_norm(x[:63], g), lnlib.layer_norm(x, g)[:63])


def layer_norm_digest() -> str:
    """A hash of layer_norm's bits over rows of several widths and dtypes, with and without γ/β."""
    h = hashlib.sha256()
    for dtype in (np.float32, np.float64):
        for d in (7, 64, 768):
            x = rows(max(40, -(-2 * _fast.MIN_SIZE // d)), d, dtype, seed=d)  # the compiled loop, where numba runs
            g, b = params(d, np.float64, seed=d)
            for y in (lnlib.layer_norm(x), lnlib.layer_norm(x, g, b)):
                h.update(np.ascontiguousarray(np.nan_to_num(y, nan=7.0)).tobytes())
    return h.hexdigest()


def _digest_in_a_new_process(env_extra) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")]), **env_extra}
    script = "from test_row_independence import layer_norm_digest; print(layer_norm_digest())"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout.strip()


def test_a_process_without_the_jit_gives_the_same_bits():
    """NUMBA_DISABLE_JIT=1 (the path of a learner without numba), a normal process and this one: the same bits."""
    pytest.importorskip("numba")
    without = _digest_in_a_new_process({"NUMBA_DISABLE_JIT": "1"})
    with_jit = _digest_in_a_new_process({})
    assert without == with_jit == layer_norm_digest()
