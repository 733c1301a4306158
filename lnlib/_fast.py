"""The fast path of `layer_norm` for big float32/float64 arrays over trailing axes: one compiled loop (numba).

Per row, in float64: μ = Σx/d; t = x − μ; σ² = Σt²/d − (Σt/d)² (the corrected two-pass algorithm of
`_stats.moments` — never E[x²] − E[x]² on the raw values); y = ((x − μ) − Σt/d) / √(σ² + ε) ⊙ γ + β.
The row stays in L1 cache between the passes, so the array is read about once and written once; rows run in
parallel (prange) and the two sums run in vector lanes. About 0.6× PyTorch's CPU time on (32, 512, 768) float32
in benchmarks/bench_layer_norm.py.

Rows whose statistics are not finite, or whose squares may have underflowed, are reported back and recomputed
by `_stats.moments` (rescaling, NaN kept in its row). Compiled on first use and cached on disk. Without numba
(it is pinned in binder/requirements.txt, optional elsewhere) `layer_norm` simply takes the reference path.
Introduced for notebook 13; tests in tests/test_speed_path.py.
"""

from __future__ import annotations

import threading

import numpy as np

from ._stats import _SMALL_VARIANCE, moments

MIN_SIZE = 1 << 12  # smaller arrays take the reference path (nothing to gain, and no compilation)
_kernel = None
_lock = threading.Lock()  # numba's default threading layer must not be entered from two threads at once


def available() -> bool:
    """True when numba can be imported."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def applies(arr: np.ndarray, axes: tuple[int, ...]) -> bool:
    """The fast path handles big float32/float64 input normalized over its trailing axes, when numba is there."""
    return (arr.dtype in (np.float32, np.float64) and arr.size >= MIN_SIZE
            and axes == tuple(range(arr.ndim - len(axes), arr.ndim)) and available())


def _build():
    from numba import njit, prange

    # The two reductions may be reassociated (summed in vector lanes: as exact as a plain loop, and faster);
    # the kernel itself is compiled without fast-math, so (x − μ) − shift is evaluated exactly as written.
    fast_sums = {"reassoc", "contract"}

    @njit(fastmath=fast_sums, cache=True)
    def row_sum(x, i, d):  # pragma: no cover - compiled
        s = 0.0
        for j in range(d):
            s += x[i, j]
        return s

    @njit(fastmath=fast_sums, cache=True)
    def row_deviations(x, i, d, mu):  # pragma: no cover - compiled
        s1 = 0.0
        s2 = 0.0
        for j in range(d):
            t = x[i, j] - mu
            s1 += t
            s2 += t * t
        return s1, s2

    @njit(parallel=True, cache=True, nogil=True)
    def kernel(x, out, g, b, eps, bad):  # pragma: no cover - compiled; tested through layer_norm_rows
        n, d = x.shape
        for i in prange(n):
            mu = row_sum(x, i, d) / d
            s1, s2 = row_deviations(x, i, d, mu)
            shift = s1 / d
            var = s2 / d - shift * shift
            if var < 0.0:
                var = 0.0
            if not (var < np.inf):  # NaN, inf, or overflow: the reference path keeps NaN in its row
                bad[i] = True
            elif var < _SMALL_VARIANCE:  # squares may have underflowed, unless the row is constant
                for j in range(d):
                    if x[i, j] != mu:
                        bad[i] = True
                        break
            r = 1.0 / np.sqrt(var + eps)
            for j in range(d):  # (x − μ) is exact near μ; then remove the rounding error of μ itself
                out[i, j] = ((x[i, j] - mu) - shift) * r * g[j] + b[j]

    return kernel


def layer_norm_trailing(arr, n_axes: int, gamma, beta, eps: float, out_dtype) -> np.ndarray:
    """LayerNorm of `arr` over its last `n_axes` axes (see the module doc); the result has `out_dtype`.

    `gamma`/`beta` are None or arrays holding one value per normalized position (any shape of that size).
    """
    global _kernel
    d = int(np.prod(arr.shape[arr.ndim - n_axes:]))
    x2 = np.ascontiguousarray(arr.reshape(-1, d))
    out = np.empty(arr.shape, dtype=out_dtype)
    out2 = out.reshape(-1, d)
    g = None if gamma is None else np.asarray(gamma, dtype=np.float64).reshape(d)
    b = None if beta is None else np.asarray(beta, dtype=np.float64).reshape(d)
    bad = np.zeros(x2.shape[0], dtype=np.bool_)
    with _lock:
        if _kernel is None:
            _kernel = _build()
        _kernel(x2, out2, np.ones(d) if g is None else g, np.zeros(d) if b is None else b, float(eps), bad)
    redo = np.flatnonzero(bad)
    if redo.size:  # recompute these rows with `_stats.moments` (rescaling, NaN kept in its row)
        sub = x2[redo]
        with np.errstate(all="ignore"):
            y = moments(sub, (1,)).xhat(sub.astype(np.float64), eps)
            if g is not None:
                y = y * g
            if b is not None:
                y = y + b
            out2[redo] = y.astype(out2.dtype)
    return out
