"""Which OpenBLAS kernel numpy runs on, and the kernels to compare trained numbers across.

A chaotic training run (no normalization, big weights, a large learning rate) ends somewhere else when a matrix
product sums in another order, and OpenBLAS picks its product kernel by CPU: AVX-512 (SkylakeX), AVX2 with FMA
(Haswell; also what Zen CPUs get), AVX without FMA (Sandybridge) or the generic SSE one (what
OPENBLAS_CORETYPE=Prescott selects; OpenBLAS calls it Katmai). The tools that store trained numbers compute them
under several kernels and the suite runs its sensitive tests under a second one, so that no stored number and no
test depends on which CPU ran it.

    python -m tools.blas            # the kernel this process runs on
    python -m tools.blas --other    # another kernel than this process's (for `make test`'s second pass)
"""

from __future__ import annotations

import argparse
import ctypes
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ENV = "OPENBLAS_CORETYPE"
# The kernels stored numbers are computed under, widest first: (name for OPENBLAS_CORETYPE, name OpenBLAS reports).
KERNELS = {"SkylakeX": "SkylakeX", "Haswell": "Haswell", "Sandybridge": "Sandybridge", "Prescott": "Katmai"}
GENERIC = "Prescott"  # every x86-64 CPU runs it


def _library() -> ctypes.CDLL | None:
    libs = Path(np.__file__).parent.with_name("numpy.libs")  # numpy's own OpenBLAS (wheels for Linux)
    for path in sorted(libs.glob("libscipy_openblas*")):
        return ctypes.CDLL(str(path))
    return None


def corename() -> str:
    """The name of the kernel numpy's OpenBLAS chose in this process ('unknown' where it cannot say)."""
    lib = _library()
    for symbol in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename"):
        f = getattr(lib, symbol, None) if lib is not None else None
        if f is not None:
            f.restype = ctypes.c_char_p
            return f().decode()
    return "unknown"


def corename_with(kernel: str | None) -> str:
    """`corename()` in a fresh Python with OPENBLAS_CORETYPE set to `kernel` (None: unset, the CPU's own choice)."""
    env = {k: v for k, v in os.environ.items() if k != ENV} | ({ENV: kernel} if kernel else {})
    code = "from tools.blas import corename; print(corename())"
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def runs_on(kernel: str) -> bool:
    """Whether this CPU runs `kernel` when asked (OpenBLAS falls back to another one where it cannot)."""
    return corename_with(kernel) == KERNELS[kernel]


def available() -> list[str]:
    """The kernels of KERNELS this CPU can run, in KERNELS' order."""
    return [k for k in KERNELS if runs_on(k)]


def native() -> str:
    """The KERNELS name of the kernel OpenBLAS picks on this CPU by itself (its own name if not one of them)."""
    reported = corename_with(None)
    return next((k for k, v in KERNELS.items() if v == reported), reported)


def other() -> str:
    """A kernel other than the one this process runs: the generic one, or Haswell's where that is the generic one."""
    return GENERIC if corename() != KERNELS[GENERIC] else "Haswell"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", action="store_true", help="print another kernel than the one this process runs")
    args = parser.parse_args(argv)
    print(other() if args.other else corename())
    return 0


if __name__ == "__main__":
    sys.exit(main())
