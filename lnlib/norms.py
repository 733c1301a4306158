"""Whole normalizations, vectorized over any shape: the shared core `standardize` and the norms built on it.

LayerNorm, BatchNorm and RMSNorm differ only in which axes they average over and what they subtract.
`layer_norm` is introduced in notebook 07, `batch_norm`/`BatchNorm` in 08, `rms_norm` in 11.
"""

from __future__ import annotations

import numpy as np

from . import _fast
from ._checks import (
    as_real_array,
    check_eps,
    check_nonempty,
    check_nonnegative,
    normalized_axes,
    param_array,
    result_dtype,
)
from ._stats import affine, moments, to_dtype


def _output(xhat64: np.ndarray, x: np.ndarray, gamma, beta, dtype=None) -> np.ndarray:
    """γ·x̂ + β in float64 (γ = 1, β = 0 when None, as in the compiled loop), rounded once to the result dtype
    (the widest of x, γ, β unless `dtype` is given)."""
    with np.errstate(over="ignore", invalid="ignore"):  # beyond the float range is inf, silently (honest)
        y = affine(xhat64, 1.0 if gamma is None else gamma, 0.0 if beta is None else beta)
    return to_dtype(y, result_dtype(x, gamma, beta) if dtype is None else dtype)


def standardize(x, axis, eps: float = 1e-5) -> np.ndarray:
    """(x − mean) / √(var + ε) with mean and biased variance taken over `axis` (an int or a tuple of ints)."""
    eps = check_eps(eps)
    arr = as_real_array(x, "x")
    axes = normalized_axes(axis, arr.ndim)
    check_nonempty(arr, axes)
    return to_dtype(moments(arr, axes).xhat(arr, eps), arr.dtype)


def layer_norm(x, gamma=None, beta=None, *, eps: float = 1e-5, axis=-1) -> np.ndarray:
    """LayerNorm: standardize each sample over its feature axes (`axis`, default the last), then γ ⊙ x̂ + β.

    γ and β have exactly the normalized shape, like `normalized_shape` in torch.nn.LayerNorm.
    """
    eps = check_eps(eps)
    arr = as_real_array(x, "x")
    axes = normalized_axes(axis, arr.ndim)
    check_nonempty(arr, axes)
    g = param_array(gamma, arr, axes, "gamma")
    b = param_array(beta, arr, axes, "beta")
    if _fast.applies(arr, axes):  # big float32/float64 input over trailing axes: compiled loop (lnlib/_fast.py)
        out = _fast.layer_norm_trailing(arr, len(axes), g, b, eps, result_dtype(arr, g, b))
        if out is not None:  # None: the loop is still compiling in the background; the numpy path has the same bits
            return out
    return _output(moments(arr, axes).xhat(arr, eps), arr, g, b)


def batch_norm(x, gamma=None, beta=None, *, eps: float = 1e-5, axis=0) -> np.ndarray:
    """BatchNorm in training mode: standardize each feature over the batch axes (`axis`, default 0).

    γ and β have one value per feature, i.e. the shape of x without the batch axes.
    """
    eps = check_eps(eps)
    arr = as_real_array(x, "x")
    batch_axes = normalized_axes(axis, arr.ndim)
    check_nonempty(arr, batch_axes)
    _check_batch_size(arr, batch_axes)
    feature_axes = tuple(a for a in range(arr.ndim) if a not in batch_axes)
    g = param_array(gamma, arr, feature_axes, "gamma") if feature_axes else _scalar_param(gamma, "gamma")
    b = param_array(beta, arr, feature_axes, "beta") if feature_axes else _scalar_param(beta, "beta")
    return _output(moments(arr, batch_axes).xhat(arr, eps), arr, g, b)


def _scalar_param(value, name):
    if value is None:
        return None
    arr = as_real_array(value, name, min_ndim=0)
    if arr.shape not in ((), (1,)):
        raise ValueError(f"{name}: x has no feature axes, so {name} must be a single number, got shape {arr.shape}")
    return arr.reshape(())


def _check_batch_size(arr, batch_axes):
    count = int(np.prod([arr.shape[a] for a in batch_axes]))
    if count < 2:
        raise ValueError(
            f"x: training-mode batch statistics need more than one value per feature, got {count} "
            f"(shape {arr.shape}, batch axes {batch_axes}); use eval mode with running statistics instead"
        )


class BatchNorm:
    """BatchNorm with running statistics, features LAST: x is (N, C) or (N, T, C).

    Training mode normalizes with the biased batch variance and updates the running statistics with
    new = (1 − momentum)·old + momentum·batch, using the UNBIASED batch variance (PyTorch's convention).
    Eval mode normalizes with the running statistics.

    `gamma`, `beta`, `running_mean` and `running_var` may be reassigned (lists are fine): every call checks them
    first (shape (C,), finite, running_var ≥ 0 or +inf) and names the attribute; a call that fails changes nothing.
    """

    def __init__(self, num_features: int, *, eps: float = 1e-5, momentum: float = 0.1):
        if isinstance(num_features, bool) or not isinstance(num_features, int | np.integer):
            raise TypeError(f"num_features: expected a positive int, got {num_features!r}")
        if num_features < 1:
            raise ValueError(f"num_features: expected a positive int, got {num_features!r}")
        self.eps = check_eps(eps)
        momentum = check_nonnegative(momentum, "momentum")
        if momentum > 1:
            raise ValueError(f"momentum: expected a number in [0, 1], got {momentum!r}")
        self.num_features = int(num_features)
        self.momentum = momentum
        self.running_mean = np.zeros(self.num_features)
        self.running_var = np.ones(self.num_features)
        self.gamma = np.ones(self.num_features)
        self.beta = np.zeros(self.num_features)
        self.training = True

    def train(self) -> BatchNorm:
        self.training = True
        return self

    def eval(self) -> BatchNorm:
        self.training = False
        return self

    def __call__(self, x) -> np.ndarray:
        arr = as_real_array(x, "x", min_ndim=2)
        if arr.ndim > 3 or arr.shape[-1] != self.num_features:
            raise ValueError(
                f"x: expected shape (N, {self.num_features}) or (N, T, {self.num_features}), got {arr.shape}"
            )
        batch_axes = tuple(range(arr.ndim - 1))
        gamma, beta = self._param("gamma"), self._param("beta")
        running_mean, running_var = self._param("running_mean"), self._param("running_var", allow_inf=True)
        if np.any(running_var < 0):
            raise ValueError(f"running_var: a variance cannot be negative, got {running_var.tolist()}")
        if not self.training:
            if arr.size == 0:
                raise ValueError(f"x: got an empty batch of shape {arr.shape}; there is nothing to normalize")
            with np.errstate(over="ignore", invalid="ignore"):
                xhat = (arr - running_mean) / np.sqrt(running_var + self.eps)
            return _output(xhat, arr, gamma, beta, arr.dtype)  # the module's float64 γ, β keep x's dtype
        check_nonempty(arr, batch_axes)
        _check_batch_size(arr, batch_axes)
        m = moments(arr, batch_axes)
        n = int(np.prod([arr.shape[a] for a in batch_axes]))
        y = _output(m.xhat(arr, self.eps), arr, gamma, beta, arr.dtype)
        with np.errstate(over="ignore", invalid="ignore"):  # a variance beyond float64 (|x| ~ 1e308) is inf, silently
            new_mean = (1 - self.momentum) * running_mean + self.momentum * m.mu().reshape(-1)
            new_var = (1 - self.momentum) * running_var + self.momentum * m.variance().reshape(-1) * n / (n - 1)
        self.running_mean, self.running_var = new_mean, new_var  # only now: a failed call leaves the module as it was
        return y

    def _param(self, name: str, *, allow_inf: bool = False) -> np.ndarray:
        """γ, β or a running statistic as currently set on the module (a learner may assign a list): checked.

        running_var may be +inf: the honest running variance of data beyond float64 (|x| ~ 1e154 and more).
        """
        arr = as_real_array(getattr(self, name), name, min_ndim=0)
        if arr.shape != (self.num_features,):
            raise ValueError(f"{name}: expected shape ({self.num_features},), one value per feature, got {arr.shape}")
        if np.any(np.isnan(arr)) or not (allow_inf or np.all(np.isfinite(arr))) or np.any(arr == -np.inf):
            raise ValueError(f"{name}: expected finite numbers, got {arr.tolist()}")
        return arr.astype(np.float64)

    def __repr__(self) -> str:
        mode = "train" if self.training else "eval"
        return f"BatchNorm({self.num_features}, eps={self.eps:g}, momentum={self.momentum:g}, mode={mode})"


def rms_norm(x, gamma=None, *, eps: float = 1e-6, axis=-1) -> np.ndarray:
    """RMSNorm: x / √(mean(x²) + ε) ⊙ γ — no centering, no β (Zhang & Sennrich, 2019)."""
    eps = check_eps(eps)
    arr = as_real_array(x, "x")
    axes = normalized_axes(axis, arr.ndim)
    check_nonempty(arr, axes)
    g = param_array(gamma, arr, axes, "gamma")
    # the mean square with LayerNorm's rescaling (x² would overflow or underflow at the ends of the range)
    return _output(moments(arr, axes, center=False).xhat(arr, eps), arr, g, None)
