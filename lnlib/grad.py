"""The backward pass of LayerNorm, written by hand, and a central-difference gradient for checking it.

Introduced in notebook 12.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from ._checks import as_real_array, check_eps, check_nonempty, normalized_axes, param_array, result_dtype
from ._stats import moments, row_sums, to_dtype


def layer_norm_backward(
    dy: ArrayLike, x: ArrayLike, gamma: ArrayLike | None = None, *, eps: float = 1e-5, axis: int | tuple[int, ...] = -1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradients of y = γ ⊙ x̂ + β given dL/dy: returns (dx, dgamma, dbeta).

    dx = (g − mean(g) − x̂ · mean(g ⊙ x̂)) / √(σ² + ε) with g = dy ⊙ γ, means over the normalized axes;
    dgamma = Σ dy ⊙ x̂ and dbeta = Σ dy, summed over the other axes (shape = the normalized shape).
    """
    eps = check_eps(eps)
    arr = as_real_array(x, "x")
    grad = as_real_array(dy, "dy")
    if grad.shape != arr.shape:
        raise ValueError(f"dy: expected the shape of x {arr.shape}, got {grad.shape}")
    axes = normalized_axes(axis, arr.ndim)
    check_nonempty(arr, axes)
    g_param = param_array(gamma, arr, axes, "gamma")
    dtype = result_dtype(arr, grad, g_param)
    m = moments(arr, axes)
    x64 = arr.astype(np.float64)
    d = int(np.prod([arr.shape[a] for a in axes]))
    with np.errstate(all="ignore"):  # inf and NaN stay where they came from, silently
        xhat = m.xhat(x64, eps)
        dy64 = grad.astype(np.float64)
        g = dy64 if g_param is None else dy64 * g_param
        # ÷ √(σ² + ε) = hypot(σ, √ε), not × its reciprocal: 1/σ overflows for a subnormal σ where dx is finite
        dx = (g - row_sums(g, axes) / d - xhat * (row_sums(g * xhat, axes) / d)) / m.std_eps(eps)
    other = tuple(a for a in range(arr.ndim) if a not in axes)
    shape = tuple(arr.shape[a] for a in axes)
    with np.errstate(all="ignore"):  # sums beyond float64 are inf; NaN stays where it came from
        dgamma = (dy64 * xhat).sum(axis=other).reshape(shape)
        dbeta = dy64.sum(axis=other).reshape(shape)
    return to_dtype(dx, dtype), to_dtype(dgamma, dtype), to_dtype(dbeta, dtype)


def numerical_gradient(f: Callable[[np.ndarray], object], x: ArrayLike, h: float = 1e-6) -> np.ndarray:
    """Central differences (f(x + h·e_i) − f(x − h·e_i)) / 2h of a scalar function f, element by element."""
    if not callable(f):
        raise TypeError(f"f: expected a function of x returning a number, got {type(f).__name__}")
    arr = as_real_array(x, "x").astype(np.float64)
    if isinstance(h, bool) or not isinstance(h, numbers.Real):
        raise TypeError(f"h: expected a real number > 0, got {h!r:.40}")
    try:
        h = float(h)
    except OverflowError:
        h = float("inf")
    if not (np.isfinite(h) and h > 0):
        raise ValueError(f"h: expected a finite step > 0, got {h!r}")
    grad = np.zeros_like(arr)
    flat, out = arr.reshape(-1), grad.reshape(-1)
    for i in range(flat.size):
        up = _scalar_value(f(_moved(arr, i, flat[i] + h)))  # a fresh copy each call: f may change its argument
        down = _scalar_value(f(_moved(arr, i, flat[i] - h)))
        out[i] = (up - down) / (2 * h)
    return grad


def _moved(arr: np.ndarray, i: int, value: float) -> np.ndarray:
    """A copy of arr with its i-th element (C order) set to value."""
    probe = arr.copy()
    probe.reshape(-1)[i] = value
    return probe


def _scalar_value(value: object) -> float:
    """f(x) must be one real number (a loss); a vector or a string gets an error naming f."""
    arr = np.asarray(value)
    if arr.dtype.kind == "b":  # True − False = 1 would pass for a slope
        raise TypeError(f"f: expected f(x) to return a real number, got a boolean {value!r:.40}")
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"f: expected f(x) to return a real number, got {type(value).__name__} {value!r:.40}")
    if arr.size != 1:
        raise ValueError(f"f: expected f(x) to return one number (a scalar loss), got an array of shape {arr.shape}")
    return float(arr.reshape(()))


def layer_norm_jacobian(x: ArrayLike, gamma: ArrayLike | None = None, *, eps: float = 1e-5) -> np.ndarray:
    """The d × d Jacobian ∂y_i/∂x_j of y = layer_norm(x, γ) for ONE vector x of length d (float64).

    J = diag(γ) · (I − 11ᵀ/d − x̂x̂ᵀ/d) / √(σ² + ε): row i is the dx that dy = e_i produces.
    Introduced in notebook 12 (the heatmap of J).
    """
    eps = check_eps(eps)
    arr = as_real_array(x, "x")
    if arr.ndim != 1:
        raise ValueError(f"x: expected one vector (1-D), got shape {arr.shape}")
    check_nonempty(arr, (0,))
    g_param = param_array(gamma, arr, (0,), "gamma")
    eye = np.eye(arr.size)
    rows = [layer_norm_backward(eye[i], arr, g_param, eps=eps)[0] for i in range(arr.size)]
    return np.asarray(rows, dtype=np.float64)
