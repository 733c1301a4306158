"""How long does training take? Times one default run of each model, the same run with the batch sizes of the first
version (64 points, 8 sequences), notebook 15's grids, and the lockstep speed-up: a grid trained by
`lnlib.training.sweep` (all learning rates of a variant side by side) against the same runs trained one by one, as
a ratio measured in the same process. A fixed reference load (numpy float64 matmuls) is timed in the same rounds,
so results from a busy machine can be compared as multiples of it.

    .venv/bin/python -m benchmarks.bench_training               # 3 repeats, medians
    .venv/bin/python -m benchmarks.bench_training --repeat 5
    .venv/bin/python -m benchmarks.bench_training --cpu         # process CPU time instead of wall time

With numba installed, Adam's update and LayerNorm run compiled (the same bits); the "numpy only" cases switch that
off. The compiled kernels are made ready before timing (lnlib._fast.warm_up; a fresh process's first calls run in
numpy while they compile in the background: benchmarks/bench_first_call.py measures that), the rounds are
repeated and the medians reported.

Goal on a quiet 2-core machine: one default `train_transformer` or `train_mlp` run "well under a second" (issue 13;
aimed at 0.4 s). Times are CPU-bound and shift with the machine's load (other processes on the same cores slow
the small matmuls and numpy calls alike): compare the ratios and the multiples of the reference.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from lnlib import _fast, _train_kernels, training

MLP_LRS = (3e-3, 1e-2, 3e-2, 1e-1, 3e-1)  # notebook 15's MLP grid: 4 norms × 5 learning rates, 150 steps
TF_LRS, TF_WARMUPS = (1e-3, 3e-3), (0, 50)  # its Transformer grid: 3 forms × 2 learning rates × 2 warm-ups, 200 steps
_REF = np.random.default_rng(0).normal(size=(64, 64))


def reference() -> None:
    """A fixed load: 2000 float64 matmuls of 64 × 64 (about 1 GFLOP)."""
    for _ in range(2000):
        _REF @ _REF


def numpy_only(fn):
    """`fn` with the compiled kernels switched off (the numpy code, the same bits; as NUMBA_DISABLE_JIT=1)."""

    def run():
        saved = _train_kernels._KERNELS
        _train_kernels._KERNELS = False
        try:
            return fn()
        finally:
            _train_kernels._KERNELS = saved

    return run


def one_by_one_mlp():
    return [training.train_mlp(n, lr=lr, steps=150) for n in training.NORMS for lr in MLP_LRS]


def one_by_one_transformer():
    return [
        training.train_transformer(f, lr=lr, warmup_steps=w, steps=200)
        for f in training.FORMS
        for lr in TF_LRS
        for w in TF_WARMUPS
    ]


CASES = {
    "reference: 2000 matmuls 64×64": reference,
    "train_transformer('pre'), defaults": lambda: training.train_transformer("pre"),
    "train_mlp('layer'), defaults": lambda: training.train_mlp("layer"),
    "train_transformer('pre'), numpy only": numpy_only(lambda: training.train_transformer("pre")),
    "train_mlp('layer'), numpy only": numpy_only(lambda: training.train_mlp("layer")),
    "train_transformer('pre', batch_size=8)": lambda: training.train_transformer("pre", batch_size=8),
    "train_mlp('layer', batch_size=64)": lambda: training.train_mlp("layer", batch_size=64),
    "MLP grid, sweep (lockstep)": lambda: training.sweep("mlp", training.NORMS, MLP_LRS, steps=150),
    "MLP grid, one run at a time": one_by_one_mlp,
    "Transformer grid, sweep (lockstep)": lambda: training.sweep(
        "transformer", training.FORMS, TF_LRS, TF_WARMUPS, steps=200
    ),
    "Transformer grid, one run at a time": one_by_one_transformer,
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cpu", action="store_true", help="time with time.process_time (CPU time of this process)")
    args = parser.parse_args(argv)
    clock = time.process_time if args.cpu else time.perf_counter
    _fast.warm_up(wait=True)
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.repeat):  # interleaved, so a busy moment spreads over every case
        for name, fn in CASES.items():
            start = clock()
            fn()
            times[name].append(clock() - start)
    med = {name: statistics.median(t) for name, t in times.items()}
    ref = med["reference: 2000 matmuls 64×64"]
    for name, t in med.items():
        print(f"{name:<42} {t:6.2f} s  = {t / ref:5.1f} × reference  (median of {args.repeat})")
    for grid in ("MLP", "Transformer"):
        ratio = med[f"{grid} grid, one run at a time"] / med[f"{grid} grid, sweep (lockstep)"]
        print(f"{grid} grid: lockstep is {ratio:.2f}× as fast as one run at a time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
