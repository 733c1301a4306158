"""The invariance experiment of Ba, Kiros & Hinton (2016), "Layer Normalization", Table 1 — by computation.

Setting (as in the paper): a linear layer a = x Wᵀ (no bias; the bias lives after normalization) followed by a
normalization of the summed inputs a. Each transform of Table 1 is applied to the weights or to the data, the
layer is run again, and the two normalized outputs are compared: equal → invariant (✓), different → not (✗).

The normalization is a parameter: `NORMS` maps a name to a function of the (N, H) summed inputs, so the BatchNorm
columns (notebook 08) are one more entry. `verdicts("layer")` gives the LayerNorm row.
ε is 0 here because the paper's invariances are exact only without ε. Introduced in notebook 05.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .data import TOKEN_MATRIX
from .norms import batch_norm, layer_norm

Norm = Callable[[np.ndarray], np.ndarray]

NORMS: dict[str, Norm] = {
    "layer": lambda a: layer_norm(a, eps=0.0, axis=-1),  # each sample over its H hidden units
    "batch": lambda a: batch_norm(a, eps=0.0, axis=0),  # each hidden unit over the N samples (training mode)
}
"""name → normalization of the summed inputs a (shape (N, H)); add entries for other normalizations."""

NORM_LABELS: dict[str, str] = {"layer": "层归一化（LayerNorm）", "batch": "批归一化（BatchNorm）"}

PAPER_TABLE1: dict[str, dict[str, bool]] = {
    "layer": {"weight_matrix_rescale": True, "weight_matrix_recenter": True, "weight_vector_rescale": False,
              "dataset_rescale": True, "dataset_recenter": False, "single_case_rescale": True},
    "batch": {"weight_matrix_rescale": True, "weight_matrix_recenter": False, "weight_vector_rescale": True,
              "dataset_rescale": True, "dataset_recenter": True, "single_case_rescale": False},
}
"""What Table 1 of the paper states (True = invariant), for comparison with the computed verdicts."""


@dataclass(frozen=True)
class Transform:
    key: str
    label: str  # Chinese name shown in the table
    how: str  # what is done, in Chinese
    apply: Callable  # (W, X, rng) -> (W', X')


def _weight_matrix_rescale(W, X, rng):
    return 3.0 * W, X


def _weight_matrix_recenter(W, X, rng):
    return W + rng.normal(size=(1, W.shape[1])), X  # the same vector added to every row of W


def _weight_vector_rescale(W, X, rng):
    W2 = W.copy()
    W2[0] *= 3.0  # only the weights into hidden unit 1
    return W2, X


def _dataset_rescale(W, X, rng):
    return W, 3.0 * X


def _dataset_recenter(W, X, rng):
    return W, X + rng.normal(size=(1, X.shape[1]))  # the same vector added to every sample


def _single_case_rescale(W, X, rng):
    X2 = X.copy()
    X2[0] *= 3.0  # only the first sample
    return W, X2


TRANSFORMS: tuple[Transform, ...] = (
    Transform("weight_matrix_rescale", "权重矩阵缩放", "W → 3W", _weight_matrix_rescale),
    Transform("weight_matrix_recenter", "权重矩阵平移", "W 的每一行加同一个向量", _weight_matrix_recenter),
    Transform("weight_vector_rescale", "单个权重向量缩放", "只把 W 的第 1 行乘 3", _weight_vector_rescale),
    Transform("dataset_rescale", "数据集缩放", "所有样本 x → 3x", _dataset_rescale),
    Transform("dataset_recenter", "数据集平移", "所有样本都加上同一个向量", _dataset_recenter),
    Transform("single_case_rescale", "单个样本缩放", "只把第 1 个样本乘 3", _single_case_rescale),
)


def linear_then_norm(W, X, norm: Norm | str = "layer") -> np.ndarray:
    """norm(X Wᵀ): X is (N, d_in) samples, W is (H, d_in); the result is (N, H)."""
    fn = NORMS[norm] if isinstance(norm, str) else norm
    return fn(np.asarray(X, dtype=np.float64) @ np.asarray(W, dtype=np.float64).T)


@dataclass(frozen=True)
class Verdict:
    transform: Transform
    max_change: float  # largest |output after − output before|
    invariant: bool


def verdicts(norm: Norm | str = "layer", *, n_samples: int = 8, d_in: int = 5, hidden: int = 4, seed: int = 0,
             tol: float = 1e-9) -> list[Verdict]:
    """Apply each Table 1 transform to a random linear layer + `norm`; report whether the output changed."""
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(hidden, d_in))
    X = rng.normal(size=(n_samples, d_in))
    before = linear_then_norm(W, X, norm)
    out = []
    for t in TRANSFORMS:
        W2, X2 = t.apply(W, X, rng)
        change = float(np.max(np.abs(linear_then_norm(W2, X2, norm) - before)))
        out.append(Verdict(t, change, change <= tol))
    return out


def batch_dependence(companion_scale: float, matrix=TOKEN_MATRIX):
    """Notebook 08: our sentence in one batch with a second sentence = companion_scale × (our sentence reversed).

    Both normalizations see the whole batch; returns (BatchNorm output, LayerNorm output) for OUR tokens only:
    BN changes with the companion, LN does not.
    """
    ours = np.asarray(matrix, dtype=np.float64)
    batch = np.concatenate([ours, companion_scale * ours[::-1]])
    n = ours.shape[0]
    return batch_norm(batch, eps=1e-5)[:n], layer_norm(batch, eps=1e-5)[:n]
