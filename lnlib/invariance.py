"""The invariance experiment of Ba, Kiros & Hinton (2016), "Layer Normalization", Table 1 — by computation.

Setting (as in the paper): a linear layer a = x Wᵀ (no bias; the bias lives after normalization) followed by a
normalization of the summed inputs a. Each transform of Table 1 is applied to the weights or to the data, the
layer is run again, and the two normalized outputs are compared: equal → invariant (✓), different → not (✗).

The normalization is a parameter: `NORMALIZERS` maps a name to a function of the (N, H) summed inputs, so the BatchNorm
columns (notebook 08) are one more entry. `verdicts("layer")` gives the LayerNorm row.
ε is 0 here because the paper's invariances are exact only without ε. Introduced in notebook 05.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._checks import as_real_array, check_eps
from .data import TOKEN_MATRIX
from .i18n import Msg, lazy
from .labels import NORM_LABELS
from .norms import batch_norm, layer_norm
from .stages import mean, normalize, std

Norm = Callable[[np.ndarray], np.ndarray]

NORMALIZERS: dict[str, Norm] = {
    "layer": lambda a: layer_norm(a, eps=0.0, axis=-1),  # each sample over its H hidden units
    "batch": lambda a: batch_norm(a, eps=0.0, axis=0),  # each hidden unit over the N samples (training mode)
}
"""name → normalization of the summed inputs a (shape (N, H)); add entries for other normalizations."""

__all__ = [
    "NORMALIZERS",
    "NORM_LABELS",
    "PAPER_TABLE1",
    "TRANSFORMS",
    "ScaleShift",
    "InvarianceVerdict",
    "batch_dependence",
    "linear_then_norm",
    "row_and_column_norms",
    "scale_shift",
    "table1",
    "verdicts",
]

PAPER_TABLE1: dict[str, dict[str, bool]] = {
    "layer": {
        "weight_matrix_rescale": True,
        "weight_matrix_recenter": True,
        "weight_vector_rescale": False,
        "dataset_rescale": True,
        "dataset_recenter": False,
        "single_case_rescale": True,
    },
    "batch": {
        "weight_matrix_rescale": True,
        "weight_matrix_recenter": False,
        "weight_vector_rescale": True,
        "dataset_rescale": True,
        "dataset_recenter": True,
        "single_case_rescale": False,
    },
}
"""What Table 1 of the paper states (True = invariant), for comparison with the computed verdicts."""


@dataclass(frozen=True)
class Transform:
    key: str
    label: Msg  # its name (a message: str(t.label), or an f-string, gives the words)
    how: Msg  # what is done
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
    Transform(
        "weight_matrix_rescale",
        lazy("topics.transform.weight_matrix_rescale"),
        lazy("topics.transform_how.weight_matrix_rescale"),
        _weight_matrix_rescale,
    ),
    Transform(
        "weight_matrix_recenter",
        lazy("topics.transform.weight_matrix_recenter"),
        lazy("topics.transform_how.weight_matrix_recenter"),
        _weight_matrix_recenter,
    ),
    Transform(
        "weight_vector_rescale",
        lazy("topics.transform.weight_vector_rescale"),
        lazy("topics.transform_how.weight_vector_rescale"),
        _weight_vector_rescale,
    ),
    Transform(
        "dataset_rescale",
        lazy("topics.transform.dataset_rescale"),
        lazy("topics.transform_how.dataset_rescale"),
        _dataset_rescale,
    ),
    Transform(
        "dataset_recenter",
        lazy("topics.transform.dataset_recenter"),
        lazy("topics.transform_how.dataset_recenter"),
        _dataset_recenter,
    ),
    Transform(
        "single_case_rescale",
        lazy("topics.transform.single_case_rescale"),
        lazy("topics.transform_how.single_case_rescale"),
        _single_case_rescale,
    ),
)


def linear_then_norm(W, X, norm: Norm | str = "layer") -> np.ndarray:
    """norm(X Wᵀ): X is (N, d_in) samples, W is (H, d_in); the result is (N, H)."""
    fn = NORMALIZERS[norm] if isinstance(norm, str) else norm
    return fn(np.asarray(X, dtype=np.float64) @ np.asarray(W, dtype=np.float64).T)


@dataclass(frozen=True)
class InvarianceVerdict:
    transform: Transform
    max_change: float  # largest |output after − output before|
    invariant: bool


def verdicts(
    norm: Norm | str = "layer", *, n_samples: int = 8, d_in: int = 5, hidden: int = 4, seed: int = 0, tol: float = 1e-9
) -> list[InvarianceVerdict]:
    """Apply each Table 1 transform to a random linear layer + `norm`; report whether the output changed."""
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(hidden, d_in))
    X = rng.normal(size=(n_samples, d_in))
    before = linear_then_norm(W, X, norm)
    out = []
    for t in TRANSFORMS:
        W2, X2 = t.apply(W, X, rng)
        change = float(np.max(np.abs(linear_then_norm(W2, X2, norm) - before)))
        out.append(InvarianceVerdict(t, change, change <= tol))
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


def table1(norms=("layer",), **kwargs) -> dict[str, list[InvarianceVerdict]]:
    """`verdicts` for each normalization in `norms` (keys of NORMALIZERS): the computed columns of Table 1."""
    if isinstance(norms, str):
        norms = (norms,)
    norms = tuple(norms)
    if not norms:
        raise ValueError("norms: expected at least one normalization")
    for norm in norms:
        if norm not in NORMALIZERS:
            raise ValueError(f"norms: expected keys of NORMALIZERS {sorted(NORMALIZERS)}, got {norm!r}")
    return {norm: verdicts(norm, **kwargs) for norm in norms}


@dataclass(frozen=True)
class ScaleShift:
    """A row x, the moved row a·x + b and the x̂ of the moved row, with the μ and σ of each (notebook 05)."""

    x: np.ndarray
    scale: float
    shift: float
    eps: float
    moved: np.ndarray
    normalized: np.ndarray

    @property
    def rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.x, self.moved, self.normalized

    @property
    def means(self) -> list[float]:
        return [float(mean(v)) for v in self.rows]

    @property
    def stds(self) -> list[float]:
        return [float(std(v)) for v in self.rows]


def scale_shift(x, scale: float, shift: float, eps: float = 1e-5) -> ScaleShift:
    """Move one row to a·x + b and normalize it: x̂ does not move (for a > 0 and ε small against σ)."""
    eps = check_eps(eps)
    values = as_real_array(x, "x").astype(np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"x: expected one non-empty vector, got shape {values.shape}")
    for name, v in (("scale", scale), ("shift", shift)):
        if isinstance(v, bool) or np.ndim(v) != 0 or not np.isfinite(np.float64(v)):
            raise ValueError(f"{name}: expected a finite real number, got {v!r}")
    with np.errstate(over="ignore"):
        moved = float(scale) * values + float(shift)
    if not np.all(np.isfinite(moved)):
        raise ValueError(f"x: {scale!r}·x + {shift!r} overflows")
    return ScaleShift(values, float(scale), float(shift), eps, moved, normalize(moved, eps=eps))


def row_and_column_norms(matrix) -> tuple[np.ndarray, np.ndarray]:
    """The same matrix normalized by rows (LayerNorm) and by columns (BatchNorm), ε = 0 (notebook 08)."""
    values = as_real_array(matrix, "matrix").astype(np.float64)
    if values.ndim != 2:
        raise ValueError(f"matrix: expected a 2-D (tokens × d) matrix, got shape {values.shape}")
    return layer_norm(values, eps=0.0), batch_norm(values, eps=0.0)
