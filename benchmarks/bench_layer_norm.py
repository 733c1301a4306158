"""How fast is lnlib.layer_norm? Ratios against PyTorch, naive numpy and a plain copy, measured in one run.

    .venv/bin/python benchmarks/bench_layer_norm.py              # both shapes, float32 and float64
    .venv/bin/python benchmarks/bench_layer_norm.py --repeat 60  # more repetitions, steadier medians

The candidates are called in turn (copy, naive, lnlib, torch, copy, naive, …), so a busy moment of the machine
slows all of them alike; each figure is the median of `--repeat` calls. Ratios are what to compare between
machines; absolute times depend on the machine and on what else runs on it. "copy" is `x.copy()`, one read and
one write of the array: no LayerNorm can be faster than that (the memory-bandwidth floor).
Every candidate's result is checked against a float64 reference before timing.
"""

from __future__ import annotations

import argparse
import os
import platform

import numpy as np

import lnlib  # the course's package, installed by binder/requirements.txt (-e .)
from lnlib import numerics
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="calls per candidate (default 30)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    print(f"numpy {np.__version__}, torch {torch.__version__ if torch else 'not installed'}"
          f"{f' ({torch.get_num_threads()} threads)' if torch else ''}, lnlib {lnlib.__version__}, "
          f"{os.cpu_count()} cores, {platform.machine()}, OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '-')}")
    print(f"median of {args.repeat} interleaved calls; ratio = time / time of the named candidate\n")
    header = f"{'shape':<16} {'dtype':<8} {'copy ms':>8} {'naive ms':>9} {'lnlib ms':>9} {'torch ms':>9}" \
             f" {'lnlib/torch':>12} {'lnlib/copy':>11} {'torch/copy':>11} {'naive/lnlib':>12}  max |error|"
    print(header)
    print("-" * len(header))
    for shape in SHAPES:
        for dtype in DTYPES:
            x = rng.standard_normal(shape).astype(dtype) * 3 + 1
            gamma = rng.standard_normal(shape[-1]).astype(dtype)
            beta = rng.standard_normal(shape[-1]).astype(dtype)
            funcs = candidates(x, gamma, beta)
            errors = check(funcs, x, gamma, beta)
            t = numerics.interleaved_medians(funcs, args.repeat)
            ms = {k: f"{v * 1e3:.2f}" for k, v in t.items()}
            torch_ms = ms.get("torch", "-")
            r_torch = f"{t['lnlib'] / t['torch']:.2f}" if "torch" in t else "-"
            r_tcopy = f"{t['torch'] / t['copy']:.2f}" if "torch" in t else "-"
            err = ", ".join(f"{k} {v:.0e}" for k, v in errors.items())
            print(f"{str(shape):<16} {np.dtype(dtype).name:<8} {ms['copy']:>8} {ms['naive numpy']:>9} {ms['lnlib']:>9}"
                  f" {torch_ms:>9} {r_torch:>12} {t['lnlib'] / t['copy']:>11.2f} {r_tcopy:>11}"
                  f" {t['naive numpy'] / t['lnlib']:>12.2f}  {err}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
