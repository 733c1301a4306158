"""LayerNorm one stage at a time, over the last axis: mean → center → variance → std → normalize → affine.

Statistics drop the last axis: (..., d) → (...). `layer_norm_steps` keeps every intermediate for the tables.
Introduced in notebook 03.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from . import _stats
from ._checks import as_real_array, check_eps, check_nonempty, param_array, result_dtype
from ._stats import moments, to_dtype


def _prepare(x: ArrayLike, name: str = "x") -> tuple[np.ndarray, tuple[int]]:
    arr = as_real_array(x, name)
    axes = (arr.ndim - 1,)
    check_nonempty(arr, axes, name)
    return arr, axes


def mean(x: ArrayLike) -> np.ndarray:
    """μ: the average of each row (last axis)."""
    arr, axes = _prepare(x)
    m = moments(arr, axes)
    return to_dtype(m.mu()[..., 0], arr.dtype)


def center(x: ArrayLike) -> np.ndarray:
    """x − μ: each row shifted so that it averages 0 (same shape as x)."""
    arr, axes = _prepare(x)
    m = moments(arr, axes)
    with np.errstate(over="ignore", invalid="ignore"):
        return to_dtype(m.scale * m.centered(arr.astype(np.float64)), arr.dtype)


def variance(x: ArrayLike) -> np.ndarray:
    """σ²: the mean squared deviation of each row, divided by d (the biased variance LayerNorm uses)."""
    arr, axes = _prepare(x)
    m = moments(arr, axes)
    return to_dtype(m.variance()[..., 0], arr.dtype)


def std(x: ArrayLike) -> np.ndarray:
    """σ = √σ² (without ε)."""
    arr, axes = _prepare(x)
    m = moments(arr, axes)
    return to_dtype(m.sigma()[..., 0], arr.dtype)


def normalize(x: ArrayLike, eps: float = 1e-5) -> np.ndarray:
    """x̂ = (x − μ) / √(σ² + ε), row by row."""
    eps = check_eps(eps)
    arr, axes = _prepare(x)
    return to_dtype(moments(arr, axes).xhat(arr, eps), arr.dtype)


def affine(x_hat: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None) -> np.ndarray:
    """y = γ ⊙ x̂ + β, with γ and β of length d (None means γ = 1, β = 0)."""
    arr, axes = _prepare(x_hat, "x_hat")
    g = param_array(gamma, arr, axes, "gamma")
    b = param_array(beta, arr, axes, "beta")
    with np.errstate(over="ignore", invalid="ignore"):  # beyond the float range is inf, silently (the honest value)
        y = _stats.apply_affine(arr.astype(np.float64), 1.0 if g is None else g, 0.0 if b is None else b)
    return to_dtype(y, result_dtype(arr, g, b))  # computed in float64, rounded once


@dataclass(frozen=True)
class LayerNormSteps:
    """Every intermediate of LayerNorm on the last axis; statistics have shape x.shape[:-1]."""

    x: np.ndarray
    eps: float
    mean: np.ndarray
    centered: np.ndarray
    variance: np.ndarray
    std: np.ndarray
    std_eps: np.ndarray
    normalized: np.ndarray
    gamma: np.ndarray
    beta: np.ndarray
    output: np.ndarray


def layer_norm_steps(
    x: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None, eps: float = 1e-5
) -> LayerNormSteps:
    """Run LayerNorm on the last axis and keep every stage (x, μ, x − μ, σ², σ, √(σ²+ε), x̂, γ, β, y)."""
    eps = check_eps(eps)
    arr, axes = _prepare(x)
    g = param_array(gamma, arr, axes, "gamma")
    b = param_array(beta, arr, axes, "beta")
    d = arr.shape[-1]
    dtype = arr.dtype
    g = np.ones(d, dtype) if g is None else g.reshape(d)
    b = np.zeros(d, dtype) if b is None else b.reshape(d)
    out_dtype = result_dtype(arr, g, b)
    m = moments(arr, axes)
    x64 = arr.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        centered = m.scale * m.centered(x64)
        xhat = m.xhat(x64, eps)
        output = to_dtype(_stats.apply_affine(xhat, g, b), out_dtype)  # the bits of layer_norm(x, γ, β)
    return LayerNormSteps(
        x=arr.copy(),
        eps=eps,
        mean=to_dtype(m.mu()[..., 0], dtype),
        centered=to_dtype(centered, dtype),
        variance=to_dtype(m.variance()[..., 0], dtype),
        std=to_dtype(m.sigma()[..., 0], dtype),
        std_eps=to_dtype(m.std_eps(eps)[..., 0], dtype),
        normalized=to_dtype(xhat, dtype),
        gamma=np.array(g, copy=True),
        beta=np.array(b, copy=True),
        output=output,
    )


def variance_shares(rows: np.ndarray) -> np.ndarray:
    """Each dimension's share of Σ(x − μ)² over all rows (…, d), each row centred on its own μ (sums to 1; nb 16)."""
    flat = np.asarray(rows, dtype=np.float64).reshape(-1, np.shape(rows)[-1])
    centred = flat - flat.mean(axis=-1, keepdims=True)
    total = (centred * centred).sum(axis=0)
    return np.asarray(total / total.sum())
