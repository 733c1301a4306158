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

No call waits on numba: when a big array first arrives, a background thread starts a child Python that compiles
lnlib's loops into numba's disk cache (`warm_up`; tens of seconds where no cached machine code matches: another CPU,
a fresh pip install), then imports numba (about half a second) and loads them, while the calls meanwhile take the
numpy path, with the same bits; once a loop is ready the next call uses it. The compile runs in a child so that it
never holds this process's interpreter lock (where nothing can be cached it runs in the thread). Without numba, or
with NUMBA_DISABLE_JIT=1, `layer_norm` always takes the numpy path. The machine code is cached on disk by numba: in
the package's __pycache__ when it is writable, otherwise in the user's cache directory (numba's own fallback, or
NUMBA_CACHE_DIR); where no directory is writable it is compiled once per process, silently. Binder's postBuild runs
`warm_up()` so that the image carries the cache. A cache file numba cannot read (damaged, truncated) would fail the
build in every later process: the files of a loop whose build failed are removed and the loop built again, once per
process, and lnlib's log says so once (a logging record: never text in a notebook's output).
Introduced for notebook 13; tests in tests/test_speed_path.py and tests/test_row_independence.py.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
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
_chunks = 1  # parts of the rows per call: 8 per thread of numba's pool (set by _build)
_NO_BITS = np.zeros((1, 0), np.int64)  # the `bits` argument for float32 input (never read)
_available = None
_param_buf = np.empty(0)  # γ and β as float64 for the compiled call (see _params64)
_lock = threading.Lock()  # numba's default threading layer must not be entered from two threads at once

# The background compiler: name -> build() (returns the compiled function with its signatures compiled), the
# functions that are ready, the names whose build failed (they stay on the numpy path), and the worker thread.
_builders: dict = {}
_ready: dict = {}
_failed: set = set()
_worker = None
_worker_lock = threading.Lock()
_COMPILE_IN_CHILD = True  # see _compile_in_child


def available() -> bool:
    """True when numba is installed and its JIT is not disabled (NUMBA_DISABLE_JIT=1); does not import numba."""
    global _available
    if _available is None:
        if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
            _available = False
        else:
            _available = importlib.util.find_spec("numba") is not None
    return _available


def register_build(name: str, build) -> None:
    """Let the background compiler build `name` (build() returns the compiled function, ready to call)."""
    _builders[name] = build


def _pending() -> list:
    return [n for n in _builders if n not in _ready and n not in _failed]


_cached = True  # False once `jit` found no writable cache directory (set in the child of `_compile_in_child`)


def _compile_in_child() -> bool:
    """Build every loop in a child Python first, which leaves the machine code in numba's disk cache; this
    process then only loads it (about a second). A compile takes tens of seconds where no cached code matches,
    and in this process it would hold the interpreter lock all that time: every call of the learner meanwhile
    waits for the lock between its numpy operations (a first layer_norm on (32, 512, 768) took 2-4 s instead of
    0.3 s). False when the child fails or could not cache (no writable cache directory): then compile here."""
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the folder that holds this lnlib
    try:  # the child's import runs lnlib's __init__, which imports training: every loop is registered there
        done = subprocess.run(
            [sys.executable, "-c", "import sys\nfrom lnlib import _fast\nsys.exit(_fast._build_all())"],
            cwd=root,
            capture_output=True,
            timeout=900,
        )
    except Exception:  # noqa: BLE001 - no child (e.g. no executable): compile in this process
        return False
    return done.returncode == 0


def _build_all() -> int:
    """The child's work: build every loop lnlib registers; exit status 0 when all are in numba's disk cache."""
    for build in list(_builders.values()):
        build()
    return 0 if _cached else 3


def _work() -> None:
    global _available, _worker
    if _COMPILE_IN_CHILD and _pending():
        _compile_in_child()  # waits without the interpreter lock; the builds below then load from the cache
    try:
        import numba  # noqa: F401  (in this thread: the import takes about half a second)
    except Exception:  # noqa: BLE001 - a broken numba (e.g. built for another numpy) means the numpy path
        _available = False
    suspects = _build_pending()
    if suspects and _discard_cache(suspects):  # e.g. a damaged cache file: build those loops once more
        _failed.difference_update(suspects)
        if _COMPILE_IN_CHILD:
            _compile_in_child()
        _build_pending()
    with _worker_lock:
        _worker = None


_made: list = []  # the numba dispatchers `jit` made during the build running now
_discarded = False  # this process has discarded cache files once (`_discard_cache`)
log = logging.getLogger(__name__)
logging.getLogger("lnlib").addHandler(logging.NullHandler())  # never logging's stderr fallback in a notebook


def _build_pending() -> dict:
    """Build every pending loop; a loop that fails stays on the numpy path. Returns {name: its dispatchers} of the
    loops that failed."""
    suspects = {}
    while _available and _pending():
        name = _pending()[0]
        _made.clear()
        try:
            _ready[name] = _builders[name]()
        except Exception as err:  # noqa: BLE001 - a loop that does not compile here stays on the numpy path
            _failed.add(name)
            suspects[name] = (list(_made), err)
    return suspects


def _discard_cache(suspects: dict) -> bool:
    """Remove numba's cache files of the loops whose build failed (an unreadable file fails every later process
    too), once per process, and say so once in lnlib's log (a NullHandler keeps it out of notebook outputs; a
    `logging.basicConfig()` shows it). True when some file was removed."""
    global _discarded
    if _discarded:
        return False
    _discarded = True
    removed = []
    for dispatchers, _ in suspects.values():
        for dispatcher in dispatchers:
            folder = getattr(getattr(dispatcher, "_cache", None), "_cache_path", None)
            code = getattr(dispatcher, "py_func", None)
            if folder is None or code is None:
                continue
            stem = os.path.splitext(os.path.basename(code.__code__.co_filename))[0]
            prefix = f"{stem}.{code.__qualname__}-"
            for entry in os.scandir(folder):
                if entry.name.startswith(prefix) and entry.name.endswith((".nbi", ".nbc")):
                    with contextlib.suppress(OSError):
                        os.remove(entry.path)
                        removed.append(entry.name)
    if removed:
        why = "; ".join(f"{name}: {type(err).__name__}: {err}"[:160] for name, (_, err) in suspects.items())
        loops, files = ", ".join(suspects), ", ".join(sorted(removed))
        log.warning("numba's cache of %s could not be used (%s); removed %s and compiling again", loops, why, files)
    return bool(removed)


def _start() -> threading.Thread | None:
    global _worker
    with _worker_lock:
        if _worker is None and _pending():
            _worker = threading.Thread(target=_work, name="lnlib-jit", daemon=True)
            _worker.start()
        return _worker


def compiled(name: str):
    """The compiled function `name` if it is ready, else None (and its compilation starts in the background)."""
    fn = _ready.get(name)
    if fn is None and available() and name not in _failed:
        _start()
    return fn


def warm_up(wait: bool = True) -> bool:
    """Compile (or load from numba's disk cache) every loop lnlib registers: layer_norm's and, once
    lnlib.training is imported, the training loops'. wait=False only starts the background thread. Returns
    whether every loop is ready (False without numba)."""
    if not available():
        return False
    worker = _start()
    while wait and worker is not None:
        worker.join()
        worker = _start()  # a loop registered while the worker was finishing
    return available() and not _pending() and not _failed


def applies(arr: np.ndarray, axes: tuple[int, ...]) -> bool:
    """The fast path handles big float32/float64 input normalized over its trailing axes, when numba is there."""
    return (
        arr.dtype in (np.float32, np.float64)
        and arr.size >= MIN_SIZE
        and axes == tuple(range(arr.ndim - len(axes), arr.ndim))
        and available()
    )


# The argument types the loop is compiled for in the background — (input, result, input writable): every kind a
# call can reach (float32 input gives a float64 result with float64 γ or β; a read-only input is a type of its own
# to numba). A call of another kind takes the numpy path (`layer_norm_trailing`), so no call waits on numba.
_SIGNATURES = [
    (xt, ot, writable)
    for xt, ot in ((np.float32, np.float32), (np.float32, np.float64), (np.float64, np.float64))
    for writable in (True, False)
]
_KINDS = frozenset((np.dtype(xt), np.dtype(ot), w) for xt, ot, w in _SIGNATURES)


def _build():
    global _chunks
    import numba  # lazy, see the module doc
    from numba.extending import register_jitable

    for f in _stats.COMPILED_HELPERS:
        register_jitable(error_model="numpy")(f)
    _stats.prange = numba.prange
    _chunks = 8 * numba.config.NUMBA_NUM_THREADS
    # Everything compiled lives in lnlib/_stats.py: numba's cache is invalidated by a change of that file.
    kernel = jit(_stats.normalize_chunks, parallel=True)
    for xt, ot, writable in _SIGNATURES:
        x = np.zeros((1, 1), xt)
        bits = x.view(np.int64) if xt == np.float64 else _NO_BITS
        if not writable:
            x.flags.writeable = False
            if xt == np.float64:  # float32 input always gets the writable _NO_BITS
                bits = bits.view()
                bits.flags.writeable = False
        out, g = np.zeros((1, 1), ot), np.zeros(1)
        # compile without running: entering the parallel loop here could meet a call of the main thread
        kernel.compile(tuple(numba.typeof(a) for a in (x, bits, out, g, g, 0.0, 1)))
    return kernel


register_build("layer_norm", _build)


def jit(f, **options):
    """`f` compiled by numba (no fast-math: numpy's operations in numpy's order), its machine code cached on disk
    (see the module doc); where no directory is writable, compiled once per process. Call only when `available()`."""
    import numba  # already imported by available(); cheap

    global _cached
    try:
        dispatcher = numba.njit(cache=True, nogil=True, error_model="numpy", **options)(f)
    except RuntimeError:  # no writable cache directory anywhere
        _cached = False
        dispatcher = numba.njit(nogil=True, error_model="numpy", **options)(f)
    _made.append(dispatcher)
    return dispatcher


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
    Returns None while the compiled loop is not ready yet (then the caller takes the numpy path: the same bits).
    """
    kernel = _ready.get("layer_norm") or compiled("layer_norm")
    if kernel is None:
        return None
    d = math.prod(arr.shape[arr.ndim - n_axes :])
    x2 = np.ascontiguousarray(arr.reshape(-1, d))
    if (x2.dtype, np.dtype(out_dtype), x2.flags.writeable) not in _KINDS:  # never compiled inside a call
        return None
    out = np.empty(arr.shape, dtype=out_dtype)
    bits = x2.view(np.int64) if x2.dtype == np.float64 else _NO_BITS
    with _lock:
        g, b = _params64(gamma, beta, d)
        kernel(x2, bits, out.reshape(-1, d), g, b, float(eps), min(x2.shape[0], _chunks))
    return out
