"""Compute notebook 15's stored training results on several BLAS kernels: `python -m tools.loss_map` (minutes).

It trains lnlib's 8-block MLP at every (normalization, initial weight scale, learning rate, seed) of
`lnlib.training_map` and writes the final losses to lnlib/outcome_map.json, and the small-batch runs of its
section 2 (2 norms x 4 batch sizes x 5 seeds) to lnlib/small_batch.json and its Transformer grid on 5 seeds to
lnlib/transformer_seeds.json; the notebook reads them (training these 800 runs in the notebook would take far
longer than its 20 s budget).

Every part is computed once per OpenBLAS kernel this CPU runs (`tools.blas.available()`, at least two), each in
its own Python with OPENBLAS_CORETYPE set, and stored side by side: a chaotic run ends elsewhere when a matrix
product sums in another order, so a stored number that only one kernel gives would be a property of the
maintainer's CPU. The notebook marks what differs between the stored kernels. `--only small_batch` recomputes
one part; `--check` recomputes and compares with the stored files (on the same kernels, the same text).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from lnlib import training_map

from . import blas
from .course import ROOT

PARTS = {  # name: (file, how to compute its data on the kernel this process runs)
    "map": (training_map.PATH, lambda: training_map.outcome_map_data()),
    "small_batch": (training_map.BATCH_PATH, lambda: training_map.small_batch_runs()),
    "transformer": (training_map.TF_PATH, lambda: training_map.transformer_runs()),
}


def compute_here(parts: list[str]) -> dict:
    """{part: data} computed on this process's kernel (JSON-ready: NaN as None)."""
    return {name: training_map.json_ready(PARTS[name][1]()) for name in parts}


def compute_on(kernel: str, parts: list[str]) -> dict:
    """`compute_here` in a fresh Python whose OpenBLAS runs `kernel`."""
    env = {**os.environ, blas.ENV: kernel}
    args = [sys.executable, "-m", "tools.loss_map", "--here", *sum((["--only", p] for p in parts), [])]
    out = subprocess.run(args, env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout)


def compute(kernels: list[str], parts: list[str]) -> dict:
    """{kernel: {part: data}}, two kernels at a time."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(kernels, pool.map(lambda k: compute_on(k, parts), kernels), strict=True))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="recompute and fail if a stored file differs")
    parser.add_argument("--only", choices=sorted(PARTS), action="append", help="compute only this part (repeatable)")
    parser.add_argument("--here", action="store_true", help=argparse.SUPPRESS)  # one kernel's data, to stdout
    args = parser.parse_args(argv)
    parts = args.only or list(PARTS)
    if args.here:
        print(json.dumps(compute_here(parts)))
        return 0
    start = time.perf_counter()
    kernels = blas.available()
    if args.check:  # the stored kernels this CPU runs, each compared with its own stored data
        stored = {name: training_map.read_by_kernel(PARTS[name][0].read_text(encoding="utf-8"))[1] for name in parts}
        kernels = [k for k in kernels if all(k in per_kernel for per_kernel in stored.values())]
    elif len(kernels) < 2:
        print(f"this CPU runs only the kernels {kernels}: the stored files need at least two", file=sys.stderr)
        return 1
    found = compute(kernels, parts)
    if args.check:
        stale = [f"{PARTS[name][0].name} ({k})" for name in parts for k in kernels if stored[name][k] != found[k][name]]
        print(f"checked on {', '.join(kernels)}: " + (f"differ: {', '.join(stale)}" if stale else "up to date"))
        return 1 if stale or not kernels else 0
    files = {PARTS[name][0]: training_map.by_kernel_json({k: found[k][name] for k in kernels}) for name in parts}
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    took = time.perf_counter() - start
    print(f"wrote {', '.join(path.name for path in files)} on kernels {', '.join(kernels)} in {took:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
