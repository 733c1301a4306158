"""How long does training take? Times one default run of each model and notebook 15's grids, and the lockstep
speed-up: a grid trained by `lnlib.training.sweep` (all learning rates of a variant side by side) against the same
runs trained one by one, as a ratio measured in the same process.

    .venv/bin/python -m benchmarks.bench_training               # 3 repeats, medians
    .venv/bin/python -m benchmarks.bench_training --repeat 5

Targets on a quiet 2-core machine: one default `train_transformer` run ≤ 0.5 s, one default `train_mlp` run ≤ 0.3 s.
Times are CPU-bound and shift with the machine's load; compare the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import time

from lnlib import training

MLP_LRS = (3e-3, 1e-2, 3e-2, 1e-1, 3e-1)  # notebook 15's MLP grid: 4 norms × 5 learning rates, 150 steps
TF_LRS, TF_WARMUPS = (1e-3, 3e-3), (0, 50)  # its Transformer grid: 3 forms × 2 learning rates × 2 warm-ups, 200 steps


def seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


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
    "train_transformer('pre'), defaults": lambda: training.train_transformer("pre"),
    "train_mlp('layer'), defaults": lambda: training.train_mlp("layer"),
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
    args = parser.parse_args(argv)
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.repeat):  # interleaved, so a busy moment spreads over every case
        for name, fn in CASES.items():
            times[name].append(seconds(fn))
    med = {name: statistics.median(t) for name, t in times.items()}
    for name, t in med.items():
        print(f"{name:<40} {t:6.2f} s  (median of {args.repeat})")
    for grid in ("MLP", "Transformer"):
        ratio = med[f"{grid} grid, one run at a time"] / med[f"{grid} grid, sweep (lockstep)"]
        print(f"{grid} grid: lockstep is {ratio:.2f}× as fast as one run at a time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
