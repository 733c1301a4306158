"""The fast path of `layer_norm` for big float32/float64 arrays over trailing axes: `_stats.normalize_rows` compiled.

The compiled loop is the canonical algorithm of lnlib/_stats.py written scalar by scalar (no fast-math, no
contraction), so it returns the same bits as the numpy path; it only keeps each row in L1 cache between the passes,
reads the array once, writes it once, and runs chunks of rows on every core (prange). Speed against PyTorch:
benchmarks/bench_layer_norm.py; compile cache across processes: benchmarks/bench_jit_cache.py.

Where the time goes (rows of 768 in cache, one thread, a 2-core AMD EPYC of the first Zen generation, which runs
each 256-bit AVX2 instruction as two 128-bit halves): about 1.5 ns per number for float32 and float64 alike (1.85
and 1.75 before the passes were reshaped as below), of which about 0.2 ns per number is fixed cost per row (the
folds of the sums, the divisions, the square root). The loops are vectorized (vaddpd/vmulpd on ymm registers); the
time is the float64 arithmetic that the fixed order and the float64 result need, about a dozen operations per
number: a float32 row is widened to float64 once (not in every pass); each of the two sum passes folds its first
three levels at once; a float64 row's peak |x| comes out of its sum pass (the exact bit-pattern test only runs for
rows that might need rescaling); then t = x − mean, t², x̂ and γ·x̂ + β, rounded back to float32. Each pass runs
close to what the machine's two floating-point adders allow. PyTorch computes float32 in float32 (twice the
numbers per instruction). So on an array that stays in cache, (8, 128, 768) float32, PyTorch stays about 1.7×
faster; on one that streams from memory, (32, 512, 768), memory traffic and the page faults of the new result
weigh as much as the arithmetic, and lnlib takes about 0.8× PyTorch's time in float32 and 0.6× in float64.
Tried and dropped (no faster here): keeping t for the output pass, folding four levels at once, two rows per
output loop, exact additions on the fused multiply-add units (fma(a, 1.0, b)), one float64 copy of every row.

numba is imported only when a big array first arrives (it takes about a second to import). Without numba, or with
NUMBA_DISABLE_JIT=1, `layer_norm` takes the numpy path: same bits, slower. The machine code is cached on disk by
numba: in the package's __pycache__ when it is writable, otherwise in the user's cache directory (numba's own
fallback, or NUMBA_CACHE_DIR); where no directory is writable it is compiled once per process, silently.
Introduced for notebook 13; tests in tests/test_speed_path.py and tests/test_row_independence.py.
"""

from __future__ import annotations

import math
import os
import threading

import numpy as np

from . import _stats

MIN_SIZE = 1 << 16
"""Smaller arrays take the numpy path (same bits; numba is not imported). Below about 65 000 numbers the numpy path
takes a millisecond or less: the compiled loop would save less than that per call, but it wakes its thread pool
for every call (on 2 busy cores a parallel region this short can wait a whole time slice, and it contends with
OpenBLAS's pool) and the first call imports numba (about half a second). The Transformer of notebook 09,
(4, 16, 64), stays on the numpy path; notebook 13's (32, 128, 768) takes the compiled loop."""
_kernel = None
_chunks = 1  # parts of the rows per call: 8 per thread of numba's pool (set by _build)
_NO_BITS = np.zeros((1, 0), np.int64)  # the `bits` argument for float32 input (never read)
_available = None
_lock = threading.Lock()  # numba's default threading layer must not be entered from two threads at once


def available() -> bool:
    """True when numba can be imported and its JIT is not disabled (NUMBA_DISABLE_JIT=1)."""
    global _available
    if _available is None:
        if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
            _available = False
        else:
            try:
                import numba  # noqa: F401  (lazy: importing numba takes about a second)
            except ImportError:
                _available = False
            else:
                _available = True
    return _available


def applies(arr: np.ndarray, axes: tuple[int, ...]) -> bool:
    """The fast path handles big float32/float64 input normalized over its trailing axes, when numba is there."""
    return (
        arr.dtype in (np.float32, np.float64)
        and arr.size >= MIN_SIZE
        and axes == tuple(range(arr.ndim - len(axes), arr.ndim))
        and available()
    )


def _build():
    global _chunks
    import numba  # lazy, see the module doc
    from numba.extending import register_jitable

    for f in _stats.COMPILED_HELPERS:
        register_jitable(error_model="numpy")(f)
    _stats.prange = numba.prange
    _chunks = 8 * numba.config.NUMBA_NUM_THREADS
    # Everything compiled lives in lnlib/_stats.py: numba's cache is invalidated by a change of that file.
    return jit(_stats.normalize_chunks, parallel=True)


def jit(f, **options):
    """`f` compiled by numba (no fast-math: numpy's operations in numpy's order), its machine code cached on disk
    (see the module doc); where no directory is writable, compiled once per process. Call only when `available()`."""
    import numba  # already imported by available(); cheap

    try:
        return numba.njit(cache=True, nogil=True, error_model="numpy", **options)(f)
    except RuntimeError:  # no writable cache directory anywhere
        return numba.njit(nogil=True, error_model="numpy", **options)(f)


def _param64(value, d: int, default: float) -> np.ndarray:
    """γ or β as d float64 values (the default when None)."""
    if value is None:
        return np.full(d, default)
    return np.asarray(value, dtype=np.float64).reshape(d)


def layer_norm_trailing(arr, n_axes: int, gamma, beta, eps: float, out_dtype) -> np.ndarray:
    """LayerNorm of `arr` over its last `n_axes` axes (see the module doc); the result has `out_dtype`.

    `gamma`/`beta` are None or arrays holding one value per normalized position (any shape of that size).
    Kept lean: on (8, 128, 768) the Python around the compiled call is a few percent of the call.
    """
    global _kernel
    d = math.prod(arr.shape[arr.ndim - n_axes :])
    x2 = np.ascontiguousarray(arr.reshape(-1, d))
    out = np.empty(arr.shape, dtype=out_dtype)
    g = _param64(gamma, d, 1.0)
    b = _param64(beta, d, 0.0)
    bits = x2.view(np.int64) if x2.dtype == np.float64 else _NO_BITS
    with _lock:
        if _kernel is None:
            _kernel = _build()
        _kernel(x2, bits, out.reshape(-1, d), g, b, float(eps), min(x2.shape[0], _chunks))
    return out
