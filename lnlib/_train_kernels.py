"""The training loop's private numerics (`lnlib.training`): lean LayerNorm / BatchNorm / RMSNorm forward and backward
passes for small, well-scaled float64 arrays, and their compiled loops (numba, built in the background by
`lnlib._fast`), which do numpy's operations in numpy's order: the same bits on either path.

`_KERNELS` switches the path (None: ask lnlib._fast; False: always numpy; a dict: these kernels), for tests.
"""

from __future__ import annotations

import math

import numpy as np

from . import _fast
from ._lean import LN_EPS

RMS_EPS = 1e-6
BETA1, BETA2, ADAM_EPS = 0.9, 0.999, 1e-8  # Adam's constants, here for the compiled update (see lnlib.optim)


def _adam_rows(flat, grad, m, v, size, eps):  # pragma: no cover  (run compiled by numba)
    """Adam.step's twelve numpy passes as one loop, element by element in the same order and with the same
    constants (no fast-math, no contraction): the same bits, without streaming every array twelve times."""
    b1, b2, c1, c2 = BETA1, BETA2, 1 - BETA1, 1 - BETA2
    for r in range(flat.shape[0]):
        s = size[r, 0]
        for j in range(flat.shape[1]):
            g = grad[r, j]
            mj = m[r, j] * b1 + g * c1
            vj = v[r, j] * b2 + g * c2 * g
            m[r, j] = mj
            v[r, j] = vj
            flat[r, j] -= mj / (math.sqrt(vj) + eps) * s


def _row_sum(a, start, n):  # pragma: no cover  (run compiled by numba)
    """Σ a[start : start + n] added in numpy's order for a contiguous row of n ≤ 128 (its pairwise sum: eight
    running sums, combined as ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)), then the rest one by one)."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[start + i]
        return res
    s0, s1, s2, s3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    s4, s5, s6, s7 = a[start + 4], a[start + 5], a[start + 6], a[start + 7]
    i, whole = 8, n - n % 8
    while i < whole:
        j = start + i
        s0, s1, s2, s3 = s0 + a[j], s1 + a[j + 1], s2 + a[j + 2], s3 + a[j + 3]
        s4, s5, s6, s7 = s4 + a[j + 4], s5 + a[j + 5], s6 + a[j + 6], s7 + a[j + 7]
        i += 8
    res = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    while i < n:
        res += a[start + i]
        i += 1
    return res


def _standardize_rows(x, eps):  # pragma: no cover  (run compiled by numba)
    """`standardize` over the last axis of a C-contiguous (rows, n) array, operation for operation."""
    rows, n = x.shape
    flat = x.ravel()
    xhat, sq = np.empty(x.shape), np.empty(n)
    mean, var, std = np.empty((rows, 1)), np.empty((rows, 1)), np.empty((rows, 1))
    for r in range(rows):
        mu = _row_sum(flat, r * n, n) / n
        for j in range(n):
            c = flat[r * n + j] - mu
            xhat[r, j] = c
            sq[j] = c * c
        s2 = _row_sum(sq, 0, n) / n
        sd = math.sqrt(s2 + eps)
        for j in range(n):
            xhat[r, j] = xhat[r, j] / sd
        mean[r, 0], var[r, 0], std[r, 0] = mu, s2, sd
    return xhat, mean, var, std


def _standardize_rows_backward(g, xhat, std):  # pragma: no cover  (run compiled by numba)
    """`standardize_backward` over the last axis of C-contiguous (rows, n) arrays, operation for operation."""
    rows, n = g.shape
    gf, xf = g.ravel(), xhat.ravel()
    dx, gx = np.empty(g.shape), np.empty(n)
    for r in range(rows):
        for j in range(n):
            gx[j] = gf[r * n + j] * xf[r * n + j]
        mean_g = _row_sum(gf, r * n, n) / n
        mean_gx = _row_sum(gx, 0, n) / n
        inv = 1.0 / std[r, 0]
        for j in range(n):
            dx[r, j] = ((gf[r * n + j] - mean_g) - xf[r * n + j] * mean_gx) * inv
    return dx


def _build_kernels():
    """Adam's update and LayerNorm's forward and backward compiled (numba; run by lnlib._fast's background
    compiler, cached on disk as lnlib/_fast.py does) and called once on tiny arrays of the training loop's types."""
    from numba.extending import register_jitable  # numba is imported by the background compiler

    register_jitable(error_model="numpy")(_row_sum)  # callable from the compiled kernels below
    kernels = {
        "adam": _fast.jit(_adam_rows),
        "standardize": _fast.jit(_standardize_rows),
        "standardize_backward": _fast.jit(_standardize_rows_backward),
    }
    rows = np.zeros((2, 3))
    kernels["adam"](rows.copy(), rows.copy(), rows.copy(), rows.copy(), np.zeros((2, 1)), 1e-8)
    xhat = kernels["standardize"](rows.copy(), LN_EPS)[0]
    kernels["standardize_backward"](rows.copy(), xhat, np.ones((2, 1)))
    return kernels


_fast.register_build("training", _build_kernels)


_KERNELS = None  # None: ask lnlib._fast; False: always the numpy code; a dict: these kernels (tests switch paths)


def kernels():
    """{name: compiled function} for Adam's update and LayerNorm's forward and backward, or None without numba,
    with NUMBA_DISABLE_JIT=1 or while they are still compiling in the background (lnlib._fast): then the numpy
    code runs, with the same bits (tests/test_training.py checks it), so a first training never waits on numba."""
    if _KERNELS is not None:
        return _KERNELS or None
    return _fast.compiled("training")


def adam_kernel():
    compiled = kernels()
    return compiled["adam"] if compiled else None


# lnlib.layer_norm, rms_norm and layer_norm_backward accept any input (every dtype, 1e-300 … 1e300) and check it;
# a training loop calls them thousands of times on small, well-scaled float64 arrays, so the loop uses these lean
# copies of the same formulas instead, which also hand the forward pass's statistics to the backward pass.
# tests/test_training.py checks that they agree with lnlib's functions.


def _rows_kernel_applies(x: np.ndarray, axis: int) -> bool:
    """The compiled LayerNorm handles the last axis of C-contiguous float64 arrays of 1 … 128 features."""
    return (
        axis in (-1, x.ndim - 1)
        and x.dtype == np.float64
        and 0 < x.shape[-1] <= 128
        and x.size > 0
        and x.flags.c_contiguous
    )


def lean_standardize(x: np.ndarray, axis: int = -1, eps: float = LN_EPS):
    """x̂ = (x − μ) / √(σ² + ε) over `axis` (-1: LayerNorm over the features; -2: BatchNorm over the batch).
    Returns (x̂, μ, σ², √(σ² + ε)): the statistics are reused by the backward pass and BatchNorm's running ones.
    Over the last axis of a C-contiguous float64 array of ≤ 128 features it runs compiled where numba is there
    (`_standardize_rows`: the same operations, numpy's order of additions, the same bits)."""
    compiled = kernels() if _rows_kernel_applies(x, axis) else None
    if compiled is not None:
        n = x.shape[-1]
        out = compiled["standardize"](x.reshape(-1, n), eps)
        return out[0].reshape(x.shape), *(a.reshape(*x.shape[:-1], 1) for a in out[1:])
    n = x.shape[axis]  # written in place where possible: the same numbers, fewer temporary arrays
    mean = np.add.reduce(x, axis=axis, keepdims=True)
    mean /= n
    c = x - mean
    sq = c * c
    var = np.add.reduce(sq, axis=axis, keepdims=True)
    var /= n
    std = var + eps
    np.sqrt(std, out=std)
    c /= std
    return c, mean, var, std


def lean_standardize_backward(dxhat: np.ndarray, xhat: np.ndarray, std: np.ndarray, axis: int = -1) -> np.ndarray:
    """dx = (g − mean(g) − x̂ · mean(g ⊙ x̂)) / √(σ² + ε), means over `axis` (as lnlib.layer_norm_backward);
    compiled like `lean_standardize` where it applies (`_standardize_rows_backward`, the same bits)."""
    compiled = kernels() if _rows_kernel_applies(dxhat, axis) and _rows_kernel_applies(xhat, axis) else None
    if compiled is not None:
        n = xhat.shape[-1]
        dx = compiled["standardize_backward"](dxhat.reshape(-1, n), xhat.reshape(-1, n), std.reshape(-1, 1))
        return dx.reshape(xhat.shape)
    n, g = xhat.shape[axis], dxhat
    mean_g = np.add.reduce(g, axis=axis, keepdims=True)
    mean_g /= n
    gx = g * xhat
    mean_gx = np.add.reduce(gx, axis=axis, keepdims=True)
    mean_gx /= n
    dx = g - mean_g
    dx -= np.multiply(xhat, mean_gx, out=gx)
    dx *= 1.0 / std
    return dx


def rms_scale(x: np.ndarray, eps: float = RMS_EPS) -> tuple[np.ndarray, np.ndarray]:
    """x̂ = x / r with r = √(mean(x²) + ε) over the features (RMSNorm without γ); returns (x̂, r)."""
    r = np.sqrt(np.add.reduce(x * x, axis=-1, keepdims=True) / x.shape[-1] + eps)
    return x / r, r


def rms_backward(dxhat: np.ndarray, xhat: np.ndarray, r: np.ndarray) -> np.ndarray:
    """dx = (g − x̂ · mean(g ⊙ x̂)) / r, means over the features."""
    return (dxhat - xhat * (np.add.reduce(dxhat * xhat, axis=-1, keepdims=True) / xhat.shape[-1])) / r
