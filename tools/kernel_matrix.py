"""Run the tests of trained numbers on every OpenBLAS kernel this CPU runs, with and without numba's JIT, and write
docs/kernels.md: `python -m tools.kernel_matrix` (about 10 minutes on 2 cores).

`make test` runs these tests (pytest marker `trained`) on this CPU's kernel and again on a second one; this tool
runs them on all of them (tools/blas.py), so the page says which kernels the suite has passed on, and on what CPU.
`--all` runs the whole unit suite instead of the marked tests (slower).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

from lnlib import training_map

from . import blas
from .course import ROOT

PAGE = ROOT / "docs" / "kernels.md"
JIT = {"numba": {}, "no JIT": {"NUMBA_DISABLE_JIT": "1"}}


def cpu_name() -> str:
    """The CPU's model name as the system reports it."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def run(kernel: str, extra_env: dict, selection: list[str]) -> tuple[str, float]:
    """pytest's summary line and the time it took, for one kernel and JIT setting."""
    env = {**os.environ, blas.ENV: kernel, **extra_env}
    start = time.perf_counter()
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *selection]
    out = subprocess.run(args, env=env, cwd=ROOT, capture_output=True, text=True)
    lines = [ln for ln in out.stdout.splitlines() if re.search(r"\d+ (passed|failed|error)", ln)]
    return (lines[-1].strip("= ") if lines else f"no summary (exit {out.returncode})"), time.perf_counter() - start


def page(rows: list[tuple[str, str, str, float]], what: str) -> str:
    stored = training_map.read_by_kernel(training_map.PATH.read_text(encoding="utf-8"))[0]
    table = "\n".join(f"| {k} | {jit} | {summary} | {took:.0f} s |" for k, jit, summary, took in rows)
    return f"""# The suite on every BLAS kernel

Written by `python -m tools.kernel_matrix`; do not edit by hand.

A chaotic training run ends elsewhere when a matrix product sums in another order, and numpy's OpenBLAS picks its
product kernel by CPU. So the tests of trained numbers compare what every kernel agrees on (an outcome, an order,
a bound), and `make test` runs them a second time on another kernel than the CPU's own. This page is the last run
of {what} on every kernel this CPU runs (OPENBLAS_CORETYPE), with numba's compiled loops and without
(NUMBA_DISABLE_JIT=1).

CPU: {cpu_name()}, {os.cpu_count()} cores; its own kernel: {blas.native()}.
Notebook 15's stored training results (lnlib/outcome_map.json, small_batch.json, transformer_seeds.json) were
trained on the kernels {", ".join(stored)} (`python -m tools.loss_map`).

| kernel | compiled loops | result | time |
| --- | --- | --- | --- |
{table}
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="the whole unit suite, not only the trained-number tests")
    args = parser.parse_args(argv)
    selection = ["tests", "-m", "not browser" if args.all else "trained and not browser"]
    what = "the whole unit suite" if args.all else "the tests of trained numbers (marker `trained`)"
    rows = []
    for kernel in blas.available():
        for jit, env in JIT.items():
            summary, took = run(kernel, env, selection)
            print(f"{kernel:12} {jit:7} {summary} ({took:.0f} s)", flush=True)
            rows.append((kernel, jit, summary, took))
    PAGE.write_text(page(rows, what), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0 if all(re.search(r"\bfailed|error", r[2]) is None for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
