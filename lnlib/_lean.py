"""The lean float64 numerics the hand-written Transformers share: LayerNorm's ε, attention forward and backward
(training, tiny_lm), softmax cross-entropy with its gradient, a weight gradient summed per sequence. numpy's
operations in one fixed order, so each caller keeps its bits (tiny_lm's shipped weights retrain bit for bit).
`_stats` and `transformer` stay the exact references the course teaches with and the lean code is tested against
(`transformer.Sublayer` keeps its own attention for that reason: a check of this code against itself checks
nothing). The lean LayerNorm / RMSNorm passes with their compiled loops are in `_train_kernels`."""

from __future__ import annotations

import math

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


def _t(a: np.ndarray) -> np.ndarray:
    """a with its last two axes swapped (a batch of transposes; `training` uses it too)."""
    return np.swapaxes(a, -1, -2)


def lean_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None = None):
    """softmax(Q Kᵀ/√d + mask) V over the last two axes (leading axes: runs, sequences, heads), d = Q's last axis.
    Returns (output, weights). In place, in this order: Q Kᵀ, · (1/√d), + mask, − row max, exp, ÷ row sum."""
    w = q @ _t(k)
    w *= 1.0 / math.sqrt(q.shape[-1])
    if mask is not None:
        w += mask
    w -= np.maximum.reduce(w, axis=-1, keepdims=True)
    np.exp(w, out=w)
    w /= np.add.reduce(w, axis=-1, keepdims=True)
    return w @ v, w


def lean_attention_backward(do: np.ndarray, q, k, v, w: np.ndarray, out: np.ndarray) -> np.ndarray:
    """dQ, dK, dV of `lean_attention` (weights `w`) from dL/d(output) `do`, written into out[..., :d], out[..., d:2d]
    and out[..., 2d:] (d = Q's last axis; `out` may be a view of the caller's fused gradient) and returned."""
    d = q.shape[-1]
    dw = do @ _t(v)
    np.matmul(_t(w), do, out=out[..., 2 * d :])  # dV
    ds = dw - np.add.reduce(dw * w, axis=-1, keepdims=True)  # softmax backward, row by row
    ds *= w
    ds *= 1.0 / math.sqrt(d)
    np.matmul(ds, k, out=out[..., :d])  # dQ
    np.matmul(_t(ds), q, out=out[..., d : 2 * d])  # dK
    return out
