"""The fast path of `layer_norm` for big float32/float64 arrays over trailing axes: `_stats.normalize_rows` compiled.

The compiled loop is the canonical algorithm of lnlib/_stats.py written scalar by scalar (no fast-math, no
contraction), so it returns the same bits as the numpy path; it only keeps each row in L1 cache between the passes,
reads the array once, writes it once, and runs chunks of rows on every core (prange). Speed against PyTorch:
benchmarks/bench_layer_norm.py; compile cache across processes: benchmarks/bench_jit_cache.py.

Where the time goes on a 2-core AMD EPYC of the Zen 4 generation (family 25 model 17, AVX-512, about 3.6 GHz),
(8, 128, 768) float32 on a quiet machine: about 0.25 ms per call, of which about 0.035 ms is the Python around
the compiled call (0.02 the checks of `layer_norm`), 0.005 ms the wake-up of numba's thread pool, the rest the
compiled loop: about 430 ns per row of 768 on one core in float32 (0.56 ns per number), 490 ns in float64. Per
float32 row: widening to float64 50-90 ns (the core stores 32 bytes per cycle), the sum pass about 45, the three
folds of the sums 75 (short dependent levels), the centered pass 55, the output pass 130-150 (it loads x, γ and β
as float64). LLVM uses 512-bit vectors here, but 256-bit ones (NUMBA_CPU_NAME=znver3) are as fast: the passes are
bound by the bytes the L1 cache moves and by the two floating-point adders, not by the number of instructions.
The fixed order and the float64 result cost about a dozen float64 operations per number; PyTorch computes float32
in float32 with fewer passes (0.12 ms on this array), so on a cache-resident array lnlib stays about 2x slower in
float32 and 1.2-1.5x in float64; on (32, 512, 768), which streams from memory, lnlib takes about 0.5x PyTorch's
time. Tried and dropped on this machine: part of the sum additions as fma(a, 1.0, b) on the multiply units (the
bits of a + b, 4-12 % less time per row, not worth a numba intrinsic and a CPU test); two rows per output pass (γ
and β loaded once); the two folds of the centered pass interleaved; the widening fused into the sum pass (much
slower); float32 rows converted in every pass instead of widened once; γ, β and the result aligned to 64 bytes;
dynamic scheduling of the chunks. Earlier, on a first-generation Zen (256-bit instructions as two halves, about
1.5 ns per number): keeping t for the output pass, folding four levels at once, one float64 copy of every row.

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
_param_buf = np.empty(0)  # γ and β as float64 for the compiled call (see _params64)
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


def _params64(gamma, beta, d: int) -> tuple[np.ndarray, np.ndarray]:
    """γ and β as d float64 values each (1 and 0 when None), in one buffer reused from call to call (call under
    _lock). Two fresh small arrays per call cost about 20 µs on (8, 128, 768) here, more than the conversion: the
    result's allocation then seems to get fresh pages."""
    global _param_buf
    if _param_buf.shape[0] < 2 * d:
        _param_buf = np.empty(2 * d)
    g, b = _param_buf[:d], _param_buf[d : 2 * d]
    for p, value, default in ((g, gamma, 1.0), (b, beta, 0.0)):
        if value is None:
            p.fill(default)
        else:
            p[:] = np.asarray(value).reshape(d)  # exact: float16/32 → float64
    return g, b


def layer_norm_trailing(arr, n_axes: int, gamma, beta, eps: float, out_dtype) -> np.ndarray:
    """LayerNorm of `arr` over its last `n_axes` axes (see the module doc); the result has `out_dtype`.

    `gamma`/`beta` are None or arrays holding one value per normalized position (any shape of that size).
    Kept lean: on (8, 128, 768) the Python around the compiled call is a few percent of the call.
    """
    global _kernel
    d = math.prod(arr.shape[arr.ndim - n_axes :])
    x2 = np.ascontiguousarray(arr.reshape(-1, d))
    out = np.empty(arr.shape, dtype=out_dtype)
    bits = x2.view(np.int64) if x2.dtype == np.float64 else _NO_BITS
    with _lock:
        if _kernel is None:
            _kernel = _build()
        g, b = _params64(gamma, beta, d)
        _kernel(x2, bits, out.reshape(-1, d), g, b, float(eps), min(x2.shape[0], _chunks))
    return out
