"""Notebook 10: what the 1/√d in softmax(QKᵀ/√d) does, measured by simulation.

With q and k drawn independently with unit-variance entries, q·k is a sum of d products of variance 1, so its
variance is d; dividing by √d brings it back to 1 for every d. Without the division the logits grow like √d and
the softmax over the keys collapses towards one-hot (entropy → 0); with it the entropy stays put.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .transformer import entropy, softmax

DIMS = (4, 8, 16, 32, 64, 128, 256, 512)


@dataclass(frozen=True)
class ScalingStudy:
    """One row per width d; every array has len(dims) entries."""

    dims: np.ndarray  # the widths d
    n_keys: int  # keys per query in the entropy experiment
    var_raw: np.ndarray  # sample variance of q·k
    var_scaled: np.ndarray  # sample variance of q·k / √d
    entropy_raw: np.ndarray  # mean softmax entropy over the keys, logits q·k
    entropy_scaled: np.ndarray  # the same with logits q·k / √d
    max_weight_raw: np.ndarray  # mean of the largest softmax weight, logits q·k
    max_weight_scaled: np.ndarray  # the same with logits q·k / √d

    @property
    def uniform_entropy(self) -> float:
        """ln(n_keys): the entropy of weights spread evenly over all keys."""
        return float(np.log(self.n_keys))


def scaling_study(dims=DIMS, *, pairs: int = 4000, queries: int = 400, n_keys: int = 16, seed: int = 0) -> ScalingStudy:
    """Simulate q·k with N(0, 1) entries for each d in `dims` (deterministic for a seed).

    `pairs` independent (q, k) pairs give the variances; `queries` queries against `n_keys` keys each give the
    softmax entropies and largest weights.
    """
    dims = np.asarray(dims)
    if dims.ndim != 1 or dims.size == 0 or not np.issubdtype(dims.dtype, np.integer) or np.any(dims < 1):
        raise ValueError(f"dims: expected a non-empty list of positive integers, got {dims.tolist()!r}")
    for name, value, least in (("pairs", pairs, 2), ("queries", queries, 1), ("n_keys", n_keys, 2)):
        if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < least:
            raise ValueError(f"{name}: expected an integer ≥ {least}, got {value!r}")
    rng = np.random.default_rng(seed)
    rows = {key: [] for key in ("vr", "vs", "er", "es", "mr", "ms")}
    for d in dims.tolist():
        q, k = rng.standard_normal((2, pairs, d))
        dots = np.einsum("pd,pd->p", q, k)
        rows["vr"].append(dots.var())
        rows["vs"].append((dots / np.sqrt(d)).var())
        qs = rng.standard_normal((queries, d))
        ks = rng.standard_normal((queries, n_keys, d))
        logits = np.einsum("qd,qkd->qk", qs, ks)
        for suffix, z in (("r", logits), ("s", logits / np.sqrt(d))):
            weights = softmax(z)
            rows["e" + suffix].append(entropy(weights).mean())
            rows["m" + suffix].append(weights.max(axis=-1).mean())
    return ScalingStudy(dims, n_keys, *(np.array(rows[key]) for key in ("vr", "vs", "er", "es", "mr", "ms")))
