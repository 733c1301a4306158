"""The lean float64 numerics the three hand-written Transformers share (transformer, training, tiny_lm): LayerNorm's
ε, softmax cross-entropy with its gradient, a weight gradient summed per sequence. numpy's operations in numpy's
order, so each caller keeps its bits; `_stats` stays the exact reference the course teaches with."""

from __future__ import annotations

import numpy as np

LN_EPS = 1e-5  # the ε of every LayerNorm a model here trains or runs with


def xent(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Softmax cross-entropy over the last axis, rows along the second-to-last; leading axes (runs) kept apart.
    Returns (mean loss per leading index, dL/dlogits)."""
    n = logits.shape[-2]
    with np.errstate(over="ignore"):  # 1e308 − (−1e308) = inf: that logit's probability is exactly 0
        shifted = logits - np.maximum.reduce(logits, axis=-1, keepdims=True)
    log_p = shifted - np.log(np.add.reduce(np.exp(shifted), axis=-1, keepdims=True))
    rows = np.arange(n)
    losses = -np.add.reduce(log_p[..., rows, labels], axis=-1) / n
    d = np.exp(log_p)
    d[..., rows, labels] -= 1.0
    d /= n
    return losses, d


def outer_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Σ over every token of aᵀ b (the gradient of W in b = a W), one sequence at a time: as one (all tokens)ᵀ ×
    (all tokens) product OpenBLAS would wake its thread pool, about 10× slower for matrices this small."""
    if a.ndim < 3:
        return a.reshape(-1, a.shape[-1]).T @ b.reshape(-1, b.shape[-1])
    per_sequence = np.swapaxes(a, -1, -2).reshape(-1, a.shape[-1], a.shape[-2]) @ b.reshape(-1, *b.shape[-2:])
    return per_sequence.sum(axis=0)
