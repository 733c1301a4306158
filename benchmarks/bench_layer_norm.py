"""How fast is lnlib.layer_norm? Ratios against PyTorch, naive numpy and a plain copy, measured in one run.

    .venv/bin/python benchmarks/bench_layer_norm.py              # both shapes, float32 and float64
    .venv/bin/python benchmarks/bench_layer_norm.py --repeat 60  # more repetitions, steadier medians

The candidates are called in turn (copy, naive, lnlib, torch, copy, naive, …), so a busy moment of the machine
slows all of them alike; each figure is the median of `--repeat` calls, and the ratio lnlib/torch is also given
per round (its median and its 10–90 % range: the spread). Ratios are what to compare between machines; absolute
times depend on the machine and on what else runs on it. "copy" is `x.copy()`, one read and one write of the
array: no LayerNorm can be faster than that (the memory-bandwidth floor).
PyTorch gets the same number of threads as lnlib's compiled loop (numba's thread count, all cores by default:
torch.set_num_threads), so both use the same cores. Every candidate's result is checked against a float64
reference before timing.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

import lnlib  # the course's package (make installs it into .venv)
from lnlib import _fast
from lnlib.numerics import naive_layer_norm

SHAPES = ((32, 512, 768), (8, 128, 768))
DTYPES = (np.float32, np.float64)
TOLERANCE = {np.float32: 1e-5, np.float64: 1e-12}

try:
    import torch
except ImportError:  # the benchmark runs without PyTorch; its column is then left out
    torch = None


def candidates(x, gamma, beta):
    d = x.shape[-1]
    funcs = {
        "copy": lambda: x.copy(),
        "naive numpy": lambda: naive_layer_norm(x, gamma, beta),
        "lnlib": lambda: lnlib.layer_norm(x, gamma, beta),
    }
    if torch is not None:
        tx, tg, tb = torch.from_numpy(x), torch.from_numpy(gamma), torch.from_numpy(beta)
        funcs["torch"] = lambda: torch.nn.functional.layer_norm(tx, (d,), tg, tb, eps=1e-5)
    return funcs


def check(funcs, x, gamma, beta) -> dict[str, float]:
    """Max |result − float64 reference| of every LayerNorm candidate; raise if one is off."""
    ref = lnlib.layer_norm(x.astype(np.float64), gamma.astype(np.float64), beta.astype(np.float64))
    errors = {}
    for name, f in funcs.items():
        if name == "copy":
            continue
        got = f()
        got = got.numpy() if hasattr(got, "numpy") else got
        errors[name] = float(np.max(np.abs(got.astype(np.float64) - ref)))
        if name != "naive numpy" and errors[name] > TOLERANCE[x.dtype.type]:
            raise SystemExit(f"{name}: result differs from the float64 reference by {errors[name]:.1e}")
    return errors


def timed_rounds(funcs, repeat: int) -> dict[str, np.ndarray]:
    """Seconds per call of every candidate, `repeat` rounds, calls interleaved a, b, c, a, … after one warm-up."""
    for f in funcs.values():
        f()  # warm-up (numba loads the compiled loop from its cache, or compiles it once)
    times = {name: [] for name in funcs}
    for _ in range(repeat):
        for name, f in funcs.items():
            start = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - start)
    return {name: np.array(ts) for name, ts in times.items()}


def cpu_name() -> str:
    """The processor as /proc/cpuinfo names it, with its family and model numbers (a virtual machine may only say
    "AMD EPYC"; family 23 model 1 is the first Zen generation); platform.processor() elsewhere."""
    try:
        first = Path("/proc/cpuinfo").read_text().split("\n\n")[0]
    except OSError:
        return platform.processor() or platform.machine()
    fields = dict(line.split(":", 1) for line in first.splitlines() if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    name = fields.get("model name", platform.machine())
    if "cpu family" in fields and "model" in fields:
        name += f" (family {fields['cpu family']}, model {fields['model']})"
    return name


def lnlib_threads() -> int:
    """The threads lnlib's compiled loop runs on (numba's default: every core), 1 without numba."""
    if not _fast.available():
        return 1
    import numba

    return numba.get_num_threads()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="calls per candidate (default 30)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    threads = lnlib_threads()
    if torch is not None:
        torch.set_num_threads(threads)  # the same cores for both
    print(
        f"numpy {np.__version__}, torch {torch.__version__ if torch else 'not installed'}"
        f"{f' ({torch.get_num_threads()} threads)' if torch else ''}, lnlib {lnlib.__version__} "
        f"({threads} threads), {os.cpu_count()} cores, {cpu_name()}, {platform.machine()}, "
        f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '-')}"
    )
    print(
        f"median of {args.repeat} interleaved calls; ratio = time / time of the named candidate; "
        f"lnlib/torch per round: median [10 %–90 %]\n"
    )
    header = (
        f"{'shape':<16} {'dtype':<8} {'copy ms':>8} {'naive ms':>9} {'lnlib ms':>9} {'torch ms':>9}"
        f" {'lnlib/torch':>20} {'lnlib/copy':>11} {'torch/copy':>11} {'naive/lnlib':>12}  max |error|"
    )
    print(header)
    print("-" * len(header))
    for shape in SHAPES:
        for dtype in DTYPES:
            x = rng.standard_normal(shape).astype(dtype) * 3 + 1
            gamma = rng.standard_normal(shape[-1]).astype(dtype)
            beta = rng.standard_normal(shape[-1]).astype(dtype)
            funcs = candidates(x, gamma, beta)
            errors = check(funcs, x, gamma, beta)
            rounds = timed_rounds(funcs, args.repeat)
            t = {k: float(np.median(v)) for k, v in rounds.items()}
            ms = {k: f"{v * 1e3:.2f}" for k, v in t.items()}
            torch_ms = ms.get("torch", "-")
            if "torch" in t:
                per_round = rounds["lnlib"] / rounds["torch"]
                lo, mid, hi = np.percentile(per_round, [10, 50, 90])
                r_torch = f"{mid:.2f} [{lo:.2f}–{hi:.2f}]"
            else:
                r_torch = "-"
            r_tcopy = f"{t['torch'] / t['copy']:.2f}" if "torch" in t else "-"
            err = ", ".join(f"{k} {v:.0e}" for k, v in errors.items())
            print(
                f"{str(shape):<16} {np.dtype(dtype).name:<8} {ms['copy']:>8} {ms['naive numpy']:>9} {ms['lnlib']:>9}"
                f" {torch_ms:>9} {r_torch:>20} {t['lnlib'] / t['copy']:>11.2f} {r_tcopy:>11}"
                f" {t['naive numpy'] / t['lnlib']:>12.2f}  {err}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
