"""The fast path of `layer_norm` over trailing axes: cache-sized row blocks, float64 statistics, two threads.

Same numbers as the reference path (`_stats.moments`): per row the statistics are computed in float64 on
t = x − c, where the shift c is the row's first element. That is a shifted two-pass algorithm done in one read:
Σt and Σt² come from the same block while it is in cache, and var = Σt²/d − (Σt/d)² cannot cancel badly because
c is one of the row's values, so (μ − c)² ≤ d·σ² (the relative error stays below about d·2⁻⁵³). x̂, γ and β are
applied in float64 and rounded once to the output dtype.

Rows where float64 itself is not enough — t or t² overflowing (|x| near 1e308), squares underflowing (σ² below
1e-200), NaN or inf — are recomputed by `_stats.moments`, which rescales them. float32 input can only reach this
fallback through NaN/inf, since float64 holds the squares of every float32 number.

Each block is ~256 KiB of float64 so that it stays in the core's L2 cache: the big arrays are read once and
written once. numpy and BLAS release the GIL, so two threads run blocks side by side.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._stats import _SMALL_VARIANCE, moments

MIN_SIZE = 1 << 12  # smaller arrays take the reference path (nothing to gain, and the results are identical)
BLOCK_ELEMENTS = 1 << 15  # float64 elements per block: 256 KiB
THREADS = max(1, min(2, os.cpu_count() or 1))
_POOL: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="lnlib")
    return _POOL


def applies(arr: np.ndarray, axes: tuple[int, ...]) -> bool:
    """The fast path handles float32/float64 input normalized over its trailing axes, when the array is big."""
    return (arr.dtype in (np.float32, np.float64) and arr.size >= MIN_SIZE
            and axes == tuple(range(arr.ndim - len(axes), arr.ndim)))


def layer_norm_trailing(arr, n_axes: int, gamma, beta, eps: float, out_dtype, *,
                        block_elements: int = BLOCK_ELEMENTS, threads: int | None = None) -> np.ndarray:
    """LayerNorm of `arr` over its last `n_axes` axes (see the module doc); the result has `out_dtype`.

    `gamma`/`beta` are None or arrays holding one value per normalized position (any shape of that size).
    """
    d = int(np.prod(arr.shape[arr.ndim - n_axes:]))
    x2 = arr.reshape(-1, d)
    n = x2.shape[0]
    out = np.empty(arr.shape, dtype=out_dtype)
    out2 = out.reshape(n, d)
    g = None if gamma is None else np.asarray(gamma, dtype=np.float64).reshape(d)
    b = None if beta is None else np.asarray(beta, dtype=np.float64).reshape(d)
    rows = max(1, block_elements // d)
    blocks = [(r, min(r + rows, n)) for r in range(0, n, rows)]
    threads = THREADS if threads is None else max(1, threads)
    if threads > 1 and len(blocks) > 1:
        groups = [blocks[i::threads] for i in range(threads)]
        suspects = list(_pool().map(lambda grp: _run(x2, out2, grp, rows, d, g, b, eps), groups))
    else:
        suspects = [_run(x2, out2, blocks, rows, d, g, b, eps)]
    redo = np.concatenate([np.asarray(s, dtype=np.intp) for s in suspects])
    if redo.size:
        _reference_rows(x2, out2, np.sort(redo), g, b, eps)
    return out


def _run(x2, out2, blocks, rows, d, g, b, eps) -> list[int]:
    """Normalize `blocks` of rows into out2; return the row indices that need the reference path."""
    direct = out2.dtype == np.float64  # float64 output: the block of out2 itself is the work buffer
    t_buf = None if direct else np.empty((rows, d), dtype=np.float64)
    g_out = None if g is None else g.astype(out2.dtype)
    b_out = None if b is None else b.astype(out2.dtype)
    ones = np.ones(d)
    redo: list[int] = []
    with np.errstate(all="ignore"):
        for r0, r1 in blocks:
            xb, ob = x2[r0:r1], out2[r0:r1]
            t = ob if direct else t_buf[: r1 - r0]
            if xb.dtype == np.float64:
                mu = np.matmul(xb, ones) / d  # first pass: the mean (BLAS, float64)
                np.subtract(xb, mu[:, None], out=t)
            else:
                np.copyto(t, xb)  # float32 → float64, in cache
                mu = np.matmul(t, ones) / d
                np.subtract(t, mu[:, None], out=t)
            mt = np.matmul(t, ones) / d  # second pass: what the rounded mean missed (corrected two-pass)
            var = np.vecdot(t, t) / d - mt * mt
            bad = ~np.isfinite(var) | (var < _SMALL_VARIANCE)
            if bad.any():
                bad &= ~np.isfinite(var) | np.any(t != 0, axis=1)  # constant rows (all t = 0) are fine
                redo.extend((np.flatnonzero(bad) + r0).tolist())
            np.maximum(var, 0.0, out=var)
            rstd = 1.0 / np.sqrt(var + eps)
            if direct or np.any(np.abs(mt * rstd) > 1e-12):
                np.subtract(t, mt[:, None], out=t)
            np.multiply(t, rstd[:, None], out=t)
            if not direct:
                np.copyto(ob, t, casting="same_kind")  # x̂ rounded once to the output dtype
            if g_out is not None:
                np.multiply(ob, g_out, out=ob)
            if b_out is not None:
                np.add(ob, b_out, out=ob)
    return redo


def _reference_rows(x2, out2, idx, g, b, eps) -> None:
    """Recompute rows `idx` with `_stats.moments` (rescaling, NaN kept in its row) and the same affine step."""
    sub = x2[idx]
    m = moments(sub, (1,))
    with np.errstate(all="ignore"):
        y = m.xhat(sub.astype(np.float64), eps)
        if g is not None:
            y = y * g
        if b is not None:
            y = y + b
        out2[idx] = y.astype(out2.dtype)
