"""Numerics of the statistics, shown on purpose the wrong way and the right way (introduced in notebook 13).

`one_pass_variance` is the textbook E[x²] − E[x]² that lnlib never uses; `two_pass_variance` and `welford` are
the stable ways. All three accumulate sequentially in a chosen dtype, one element after another along the last
axis, so the rounding they show is the same on every machine (no SIMD or pairwise summation order involved).
`variance_methods` runs all four ways on one shifted row for notebook 13's table and explorer.
`naive_layer_norm` and `time_ratios`/`interleaved_medians` are the baseline and the stopwatch of the speed section
and of benchmarks/bench_layer_norm.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._checks import as_real_array, check_eps, check_nonempty
from .stages import layer_norm_steps, variance

DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64}


def _dtype(dtype) -> type:
    key = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    if key not in DTYPES:
        raise ValueError(f"dtype: expected one of {sorted(DTYPES)}, got {dtype!r}")
    return DTYPES[key]


def _rows(x, dtype) -> tuple[np.ndarray, type]:
    t = _dtype(dtype)
    arr = as_real_array(x, "x")
    check_nonempty(arr, (arr.ndim - 1,))
    with np.errstate(over="ignore"):
        return arr.astype(t), t


def one_pass_variance(x, dtype=np.float32) -> np.ndarray:
    """E[x²] − E[x]² over the last axis, every operation rounded to `dtype` (the formula NOT to use).

    One pass over the data, but the two terms are huge and nearly equal when |mean| ≫ σ, and their difference
    loses all its digits (catastrophic cancellation): for 1e4 + [0, 1, 2, 3] in float32 it returns 0, not 1.25.
    """
    arr, t = _rows(x, dtype)
    n = t(arr.shape[-1])
    s, s2 = np.zeros(arr.shape[:-1], t), np.zeros(arr.shape[:-1], t)
    with np.errstate(all="ignore"):
        for i in range(arr.shape[-1]):
            v = arr[..., i]
            s = (s + v).astype(t)
            s2 = (s2 + v * v).astype(t)
        m = s / n
        return (s2 / n - m * m).astype(t)


def two_pass_variance(x, dtype=np.float32) -> np.ndarray:
    """mean((x − μ)²) over the last axis, every operation rounded to `dtype`: first μ, then the deviations."""
    arr, t = _rows(x, dtype)
    n = t(arr.shape[-1])
    s = np.zeros(arr.shape[:-1], t)
    with np.errstate(all="ignore"):
        for i in range(arr.shape[-1]):
            s = (s + arr[..., i]).astype(t)
        m = (s / n).astype(t)
        s2 = np.zeros(arr.shape[:-1], t)
        for i in range(arr.shape[-1]):
            d = (arr[..., i] - m).astype(t)
            s2 = (s2 + d * d).astype(t)
        return (s2 / n).astype(t)


class WelfordState(NamedTuple):
    """Running statistics after `count` values: the mean and M2 = Σ(x − mean)²; variance = M2 / count."""

    count: int
    mean: float
    m2: float

    @property
    def variance(self) -> float:
        return self.m2 / self.count if self.count else float("nan")


def welford_update(state: WelfordState, value: float) -> WelfordState:
    """Add one value to the running mean and M2 (Welford, 1962): one pass, and still no cancellation."""
    count = state.count + 1
    delta = value - state.mean
    mean = state.mean + delta / count
    m2 = state.m2 + delta * (value - mean)
    return WelfordState(count, mean, m2)


def welford(x, dtype=np.float32) -> tuple[np.ndarray, np.ndarray]:
    """Mean and biased variance over the last axis in ONE pass with Welford's update, rounded to `dtype`."""
    arr, t = _rows(x, dtype)
    mean, m2 = np.zeros(arr.shape[:-1], t), np.zeros(arr.shape[:-1], t)
    with np.errstate(all="ignore"):
        for i in range(arr.shape[-1]):
            v = arr[..., i]
            delta = (v - mean).astype(t)
            mean = (mean + delta / t(i + 1)).astype(t)
            m2 = (m2 + delta * (v - mean)).astype(t)
        return mean, (m2 / t(arr.shape[-1])).astype(t)


def normalize_with_variance(x, var, eps: float = 1e-5, dtype=np.float32) -> np.ndarray:
    """(x − mean) / √(var + ε) over the last axis in `dtype`, with a variance supplied by the caller.

    Shows what a wrong variance does to x̂ (notebook 13): with var = 0 from the one-pass formula, ε alone
    divides and 1e4 + [0, 1, 2, 3] turns into ±474 instead of ±1.342.
    """
    eps = check_eps(eps)
    arr, t = _rows(x, dtype)
    with np.errstate(all="ignore"):
        m = arr.astype(np.float64).mean(axis=-1, keepdims=True).astype(t)
        v = np.asarray(var, dtype=t)[..., None]
        return ((arr - m) / np.sqrt(v + t(eps))).astype(t)


def naive_layer_norm(x, gamma=None, beta=None, eps: float = 1e-5) -> np.ndarray:
    """The textbook numpy LayerNorm over the last axis, in the input's dtype (a baseline for timing only).

    (x − x.mean()) / √(x.var() + ε) · γ + β: each step is a separate pass over memory with a temporary array.
    """
    x = np.asarray(x)
    out = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    if gamma is not None:
        out = out * gamma
    if beta is not None:
        out = out + beta
    return out


def time_ratios(candidates: dict[str, Callable[[], object]], baseline: str, repeat: int = 15) -> dict[str, float]:
    """Median time of every candidate divided by the baseline's, measured in one run with the calls interleaved.

    Interleaving (a, b, c, a, b, c, …) means a slow moment of the machine hits every candidate alike, so the
    ratios are much steadier than the absolute times. Returns {name: ratio}; the baseline's ratio is 1.
    """
    if baseline not in candidates:
        raise ValueError(f"baseline: expected one of {sorted(candidates)}, got {baseline!r}")
    medians = interleaved_medians(candidates, repeat)
    return {name: medians[name] / medians[baseline] for name in candidates}


def interleaved_medians(candidates: dict[str, Callable[[], object]], repeat: int = 15) -> dict[str, float]:
    """Median seconds per call of every candidate, after one warm-up call each, calls interleaved a, b, c, a, …

    lnlib's compiled loops are built (or read from numba's cache) first: a big `layer_norm` called while they are
    still compiling in the background takes the numpy path, and would be timed as that."""
    from . import _fast

    _fast.warm_up(wait=True)
    times = {name: [] for name in candidates}
    for f in candidates.values():
        f()  # warm-up: first-call costs (allocations, caches) stay out of the medians
    for _ in range(repeat):
        for name, f in candidates.items():
            start = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(ts)) for name, ts in times.items()}


@dataclass(frozen=True)
class VarianceMethods:
    """σ² and x̂ of one row offset + base, computed four ways in `dtype` (keys of `labels.VARIANCE_METHODS`)."""

    offset: float
    base: tuple[float, ...]
    dtype: str
    x: np.ndarray  # offset + base, rounded to dtype
    true_variance: float  # σ² of base, which no offset changes
    variances: dict[str, float]
    normalized: dict[str, np.ndarray]


def variance_methods(
    offset: float = 1e4, dtype: str = "float32", base=(0.0, 1.0, 2.0, 3.0), eps: float = 1e-5
) -> VarianceMethods:
    """σ² and x̂ of offset + base by the one-pass formula, two passes, Welford and lnlib (float64 accumulation).

    x̂ uses each method's σ² (lnlib's own x̂ for lnlib). The true σ² of [0, 1, 2, 3] is 1.25 whatever the offset.
    """
    if dtype not in DTYPES:
        raise ValueError(f"dtype: expected one of {sorted(DTYPES)}, got {dtype!r}")
    eps = check_eps(eps)
    if isinstance(offset, bool) or not np.isfinite(np.float64(offset)) or np.ndim(offset) != 0:
        raise ValueError(f"offset: expected a finite real number, got {offset!r}")
    base_values = as_real_array(base, "base").astype(np.float64)
    if base_values.ndim != 1 or base_values.size == 0:
        raise ValueError(f"base: expected one non-empty vector, got shape {base_values.shape}")
    t = DTYPES[dtype]
    with np.errstate(over="ignore"):
        x = (float(offset) + base_values).astype(t)
    steps = layer_norm_steps(x, eps=eps)
    variances = {
        "one_pass": one_pass_variance(x, t),
        "two_pass": two_pass_variance(x, t),
        "welford": welford(x, t)[1],
        "lnlib": steps.variance,
    }
    normalized = {
        key: np.asarray(normalize_with_variance(x, var, eps, t), dtype=np.float64)
        for key, var in variances.items()
        if key != "lnlib"
    }
    normalized["lnlib"] = np.asarray(steps.normalized, dtype=np.float64)
    return VarianceMethods(
        float(offset),
        tuple(float(v) for v in base_values),
        dtype,
        x,
        float(variance(base_values)),
        {k: float(v) for k, v in variances.items()},
        normalized,
    )
