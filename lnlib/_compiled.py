"""LayerNorm rows as one compiled loop (numba), used by the fast path when numba is installed.

Per row, in float64: μ = Σx/d; t = x − μ; σ² = Σt²/d − (Σt/d)² (the corrected two-pass algorithm — never
E[x²] − E[x]² on the raw values); y = ((x − μ) − Σt/d) / √(σ² + ε) ⊙ γ + β. The row stays in L1
cache between the passes, so the array is read about once and written once; rows run in parallel (prange)
and the two sums run in vector lanes.
Rows whose statistics are not finite, or whose squares may have underflowed, are reported back and recomputed
by `_stats.moments` (rescaling, NaN kept in its row). Compiled on first use and cached on disk.
"""

from __future__ import annotations

import threading

import numpy as np

_SMALL_VARIANCE = 1e-200  # same threshold as _stats
_kernel = None
_lock = threading.Lock()  # numba's default threading layer must not be entered from two threads at once


def available() -> bool:
    """True when numba can be imported (it is pinned in binder/requirements.txt, optional elsewhere)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


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


def layer_norm_rows(x2: np.ndarray, out2: np.ndarray, g, b, eps: float) -> np.ndarray:
    """Normalize every row of the 2-D array x2 into out2 (γ, β of length d or None); return rows to redo."""
    global _kernel
    d = x2.shape[1]
    g = np.ones(d) if g is None else np.ascontiguousarray(g, dtype=np.float64)
    b = np.zeros(d) if b is None else np.ascontiguousarray(b, dtype=np.float64)
    bad = np.zeros(x2.shape[0], dtype=np.bool_)
    with _lock:
        if _kernel is None:
            _kernel = _build()
        _kernel(x2, out2, g, b, float(eps), bad)
    return np.flatnonzero(bad)
