"""The fast path of `layer_norm` over trailing axes, for big float32/float64 arrays.

Two engines give the same numbers: the compiled row loop of `_compiled.py` (used when numba is installed; about
0.6× PyTorch's CPU time on (32, 512, 768) float32 in benchmarks/bench_layer_norm.py) and, without numba, the
numpy engine below: cache-sized row blocks, float64 statistics, two threads.

The same two-pass statistics as the reference path (`_stats.moments`), done block by block while the block sits
in the core's L2 cache, so the big arrays are read once and written once:
  1. the block is copied to a float64 buffer (float32 input) and μ = Σx/d is taken in float64 (BLAS);
  2. t = x − μ in float64, then σ² = Σt²/d (BLAS dot, float64). For float64 output the residual mean(t) of the
     rounded μ is removed too (the corrected two-pass algorithm, as in `_stats.moments`); for float32 output it
     is below 1e-16·|μ|/σ, far under float32's resolution;
  3. x̂ = t / √(σ² + ε); float64 output is scaled in place, float32 output is rounded once to float32 and then
     scaled; γ and β are applied in the output dtype (as on the reference path).
Never E[x²] − E[x]². Rows where float64 itself is not enough — x − μ or its square overflowing (|x| near 1e308),
squares underflowing (σ² below 1e-200), NaN or inf — are recomputed by `_stats.moments`, which rescales them and
keeps NaN in its row. float32 input reaches this fallback only through NaN/inf: float64 holds the square of
every float32 number.

numpy ufuncs and BLAS release the GIL, so two threads run blocks side by side. Introduced for notebook 13
(speed) and benchmarks/bench_layer_norm.py; tests in tests/test_speed_path.py.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _compiled
from ._stats import _SMALL_VARIANCE, moments

MIN_SIZE = 1 << 12  # smaller arrays take the reference path (nothing to gain, and the results are identical)
BLOCK_ELEMENTS = 1 << 16  # float64 elements per block: 512 KiB, well inside a 2 MiB L2
_TINY_FOR_FLOAT32 = 1e-60  # σ below 1e-30: scale those rows in float64 before rounding to float32
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
                        block_elements: int = BLOCK_ELEMENTS, threads: int | None = None,
                        engine: str = "auto") -> np.ndarray:
    """LayerNorm of `arr` over its last `n_axes` axes (see the module doc); the result has `out_dtype`.

    `gamma`/`beta` are None or arrays holding one value per normalized position (any shape of that size).
    engine: "numba" (one compiled loop, `_compiled.py`), "numpy" (cache-sized blocks below), or "auto" (numba
    when it is installed).
    """
    if engine not in ("auto", "numba", "numpy"):
        raise ValueError(f"engine: expected 'auto', 'numba' or 'numpy', got {engine!r}")
    d = int(np.prod(arr.shape[arr.ndim - n_axes:]))
    x2 = arr.reshape(-1, d)
    n = x2.shape[0]
    out = np.empty(arr.shape, dtype=out_dtype)
    out2 = out.reshape(n, d)
    g = None if gamma is None else np.asarray(gamma, dtype=np.float64).reshape(d)
    b = None if beta is None else np.asarray(beta, dtype=np.float64).reshape(d)
    if engine == "numba" or (engine == "auto" and _compiled.available()):
        redo = _compiled.layer_norm_rows(np.ascontiguousarray(x2), out2, g, b, eps)
        if redo.size:
            _reference_rows(x2, out2, redo, g, b, eps)
        return out
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
            if direct:  # float64 output: the residual of the rounded mean matters (corrected two-pass)
                mt = np.matmul(t, ones) / d
                var = np.vecdot(t, t) / d - mt * mt
            else:  # float32 output: the residual is below 1e-16·|μ|/σ, far under float32's resolution
                mt = None
                var = np.vecdot(t, t) / d
            bad = ~np.isfinite(var) | (var < _SMALL_VARIANCE)
            if bad.any():
                bad &= ~np.isfinite(var) | np.any(t != 0, axis=1)  # constant rows (all t = 0) are fine
                redo.extend((np.flatnonzero(bad) + r0).tolist())
            np.maximum(var, 0.0, out=var)
            rstd = 1.0 / np.sqrt(var + eps)
            if direct:
                np.subtract(t, mt[:, None], out=t)
                np.multiply(t, rstd[:, None], out=t)
            else:
                np.copyto(ob, t, casting="same_kind")  # x − μ rounded to float32, then scaled in float32
                np.multiply(ob, rstd.astype(ob.dtype)[:, None], out=ob)
                tiny = var < _TINY_FOR_FLOAT32  # x − μ near float32's subnormals, 1/σ beyond its range
                if tiny.any():
                    ob[tiny] = t[tiny] * rstd[tiny, None]
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
