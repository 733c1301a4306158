"""Whole normalizations, vectorized over any shape: the shared core `standardize` and the norms built on it.

LayerNorm, BatchNorm and RMSNorm differ only in which axes they average over and what they subtract.
`layer_norm` is introduced in notebook 07, `batch_norm`/`BatchNorm` in 08, `rms_norm` in 11.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

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
from ._stats import BN_MOMENTUM, Scaled, apply_affine, moments, to_dtype

Axes = int | tuple[int, ...]  # the normalized axes (layer_norm, rms_norm) or the batch axes (batch_norm)


def _output(
    xhat64: np.ndarray, x: np.ndarray, gamma: np.ndarray | None, beta: np.ndarray | None, dtype: np.dtype | None = None
) -> np.ndarray:
    """γ·x̂ + β in float64 (γ = 1, β = 0 when None, as in the compiled loop), rounded once to the result dtype
    (the widest of x, γ, β unless `dtype` is given)."""
    with np.errstate(over="ignore", invalid="ignore"):  # beyond the float range is inf, silently (honest)
        y = apply_affine(xhat64, 1.0 if gamma is None else gamma, 0.0 if beta is None else beta)
    return to_dtype(y, result_dtype(x, gamma, beta) if dtype is None else dtype)


def standardize(x: ArrayLike, axis: Axes, eps: float = 1e-5) -> np.ndarray:
    """(x − mean) / √(var + ε) with mean and biased variance taken over `axis` (an int or a tuple of ints)."""
    eps = check_eps(eps)
    arr = as_real_array(x, "x")
    axes = normalized_axes(axis, arr.ndim)
    check_nonempty(arr, axes)
    return to_dtype(moments(arr, axes).xhat(arr, eps), arr.dtype)


def layer_norm(
    x: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None, *, eps: float = 1e-5, axis: Axes = -1
) -> np.ndarray:
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
    if arr.size >= BLOCK and axes == tuple(range(arr.ndim - len(axes), arr.ndim)):
        return _layer_norm_blocks(arr, len(axes), g, b, eps)
    return _output(moments(arr, axes).xhat(arr, eps), arr, g, b)


BLOCK = 1 << 20
"""Numbers per block of the numpy path for big input over trailing axes. Every row's result depends on that row
alone, so rows can go a block at a time with the same bits; the float64 temporaries of a block (8 MB) are then
reused from the heap instead of being mapped and faulted in afresh for every operation. On (32, 512, 768) float32
that makes the numpy path 2-3x faster (benchmarks/bench_first_call.py): it is what a first call computes while
the compiled loop is still being built, and every call without numba."""


def _layer_norm_blocks(arr: np.ndarray, k: int, g: np.ndarray | None, b: np.ndarray | None, eps: float) -> np.ndarray:
    """The numpy path of `layer_norm` over the trailing k axes, `BLOCK` numbers of rows at a time."""
    d = int(np.prod(arr.shape[arr.ndim - k :]))
    rows = arr.reshape(-1, d)
    g2 = None if g is None else g.reshape(1, d)
    b2 = None if b is None else b.reshape(1, d)
    out = np.empty(rows.shape, result_dtype(arr, g, b))
    step = max(1, BLOCK // d)
    for i in range(0, rows.shape[0], step):
        block = rows[i : i + step]
        out[i : i + step] = _output(moments(block, (1,)).xhat(block, eps), block, g2, b2, out.dtype)
    return out.reshape(arr.shape)


def batch_norm(
    x: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None, *, eps: float = 1e-5, axis: Axes = 0
) -> np.ndarray:
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


def _scalar_param(value: ArrayLike | None, name: str) -> np.ndarray | None:
    if value is None:
        return None
    arr = as_real_array(value, name, min_ndim=0)
    if arr.shape not in ((), (1,)):
        raise ValueError(f"{name}: x has no feature axes, so {name} must be a single number, got shape {arr.shape}")
    return arr.reshape(())


def _check_batch_size(arr: np.ndarray, batch_axes: tuple[int, ...]) -> None:
    count = int(np.prod([arr.shape[a] for a in batch_axes]))
    if count < 2:
        raise ValueError(
            f"x: training-mode batch statistics need more than one value per feature, got {count} "
            f"(shape {arr.shape}, batch axes {batch_axes}); use eval mode with running statistics instead"
        )


MAX_FEATURES = 2**24  # BatchNorm's num_features: far beyond any lesson, far below exhausting memory


class BatchNorm:
    """BatchNorm with running statistics, features LAST: x is (N, C) or (N, T, C).

    Training mode normalizes with the biased batch variance and updates the running statistics with
    new = (1 − momentum)·old + momentum·batch, using the UNBIASED batch variance (PyTorch's convention).
    Eval mode normalizes with the running statistics.

    The running statistics are kept as m·2^e (`_stats.Scaled`), so a batch at 1e-300 or 1e300 (a variance of
    1e-600 or 1e600) is remembered and used exactly; `running_mean` and `running_var` show them as float64
    (±inf or 0 only when the value itself is beyond float64). A call either succeeds or changes nothing, and the
    module never becomes unusable: every attribute is checked when it is set (lists are fine: shape (C,),
    finite, running_var ≥ 0 or +inf, 0 ≤ momentum ≤ 1, ε ≥ 0) and the error names it; a training batch holding
    NaN or inf is refused (it would leave NaN in the running statistics), eval mode normalizes it element by element.
    """

    def __init__(self, num_features: int, *, eps: float = 1e-5, momentum: float = BN_MOMENTUM):
        if isinstance(num_features, bool) or not isinstance(num_features, int | np.integer):
            raise TypeError(f"num_features: expected a positive int, got {num_features!r:.60}")
        if not 1 <= num_features <= MAX_FEATURES:
            got = (
                repr(num_features)
                if abs(num_features) < 10**20
                else f"{str(num_features)[:8]}… ({len(str(num_features))} digits)"
            )
            raise ValueError(f"num_features: expected a positive int ≤ {MAX_FEATURES}, got {got}")
        self._num_features = int(num_features)
        self.eps = eps
        self.momentum = momentum
        self.running_mean = np.zeros(self._num_features)
        self.running_var = np.ones(self._num_features)
        self.gamma = np.ones(self._num_features)
        self.beta = np.zeros(self._num_features)
        self.training = True

    # ---- the module's state: checked when it is set, so that no call can meet a bad one ----

    @property
    def num_features(self) -> int:
        return self._num_features

    @property
    def eps(self) -> float:
        return self._eps

    @eps.setter
    def eps(self, value: float) -> None:
        self._eps = check_eps(value)

    @property
    def momentum(self) -> float:
        return self._momentum

    @momentum.setter
    def momentum(self, value: float) -> None:
        if value is None:
            raise TypeError("momentum: expected a number in [0, 1], got None (a cumulative average is not supported)")
        momentum = check_nonnegative(value, "momentum")
        if momentum > 1:
            raise ValueError(f"momentum: expected a number in [0, 1], got {value!r}")
        self._momentum = momentum

    @property
    def training(self) -> bool:
        return self._training

    @training.setter
    def training(self, value: bool) -> None:
        if not isinstance(value, bool | np.bool_):
            raise TypeError(f"training: expected True or False, got {value!r:.60}")
        self._training = bool(value)

    @property
    def gamma(self) -> np.ndarray:
        return self._gamma

    @gamma.setter
    def gamma(self, value: ArrayLike) -> None:
        self._gamma = self._checked("gamma", value)

    @property
    def beta(self) -> np.ndarray:
        return self._beta

    @beta.setter
    def beta(self, value: ArrayLike) -> None:
        self._beta = self._checked("beta", value)

    @property
    def running_mean(self) -> np.ndarray:
        """The running mean as float64 (read-only: assign a new value instead)."""
        return _read_only(self._mean.value())

    @running_mean.setter
    def running_mean(self, value: ArrayLike) -> None:
        self._mean = Scaled.of(self._checked("running_mean", value))

    @property
    def running_var(self) -> np.ndarray:
        """The running variance as float64 (read-only: assign a new value instead); +inf beyond float64."""
        return _read_only(self._var.value())

    @running_var.setter
    def running_var(self, value: ArrayLike) -> None:
        arr = self._checked("running_var", value, allow_inf=True)
        if np.any(arr < 0):
            raise ValueError(f"running_var: a variance cannot be negative, got {arr.tolist()}")
        self._var = Scaled.of(arr)

    def _checked(self, name: str, value: ArrayLike, *, allow_inf: bool = False) -> np.ndarray:
        """γ, β or a running statistic as a learner may assign it (a list is fine): a read-only float64 copy."""
        arr = as_real_array(value, name, min_ndim=0)
        if arr.shape != (self._num_features,):
            raise ValueError(f"{name}: expected shape ({self._num_features},), one value per feature, got {arr.shape}")
        if np.any(np.isnan(arr)) or not (allow_inf or np.all(np.isfinite(arr))) or np.any(arr == -np.inf):
            raise ValueError(f"{name}: expected finite numbers, got {arr.tolist()}")
        return _read_only(arr.astype(np.float64))

    def train(self) -> BatchNorm:
        self.training = True
        return self

    def eval(self) -> BatchNorm:
        self.training = False
        return self

    def __call__(self, x: ArrayLike) -> np.ndarray:
        arr = as_real_array(x, "x", min_ndim=2)
        if arr.ndim > 3 or arr.shape[-1] != self._num_features:
            raise ValueError(
                f"x: expected shape (N, {self._num_features}) or (N, T, {self._num_features}), got {arr.shape}"
            )
        batch_axes = tuple(range(arr.ndim - 1))
        if not self._training:
            if arr.size == 0:
                raise ValueError(f"x: got an empty batch of shape {arr.shape}; there is nothing to normalize")
            xhat = self._mean.standardized(arr.astype(np.float64), self._var, self._eps)
            return _output(xhat, arr, self._gamma, self._beta, arr.dtype)  # the module's float64 γ, β keep x's dtype
        check_nonempty(arr, batch_axes)
        _check_batch_size(arr, batch_axes)
        finite = np.isfinite(arr).reshape(-1, self._num_features).all(axis=0)
        if not finite.all():
            features = np.flatnonzero(~finite).tolist()
            raise ValueError(
                f"x: a training batch updates the running statistics and must be finite; feature(s) {features} "
                "hold NaN or inf (the module is unchanged; eval mode normalizes such a batch)"
            )
        m = moments(arr, batch_axes)
        n = int(np.prod([arr.shape[a] for a in batch_axes]))
        y = _output(m.xhat(arr, self._eps), arr, self._gamma, self._beta, arr.dtype)
        batch_mean, batch_var = Scaled.from_moments(m)
        new_mean = self._mean.updated(batch_mean, self._momentum)
        new_var = self._var.updated(batch_var, self._momentum, n)
        self._mean, self._var = new_mean, new_var  # only now: a failed call leaves the module as it was
        return y

    def __repr__(self) -> str:
        mode = "train" if self._training else "eval"
        return f"BatchNorm({self._num_features}, eps={self._eps:g}, momentum={self._momentum:g}, mode={mode})"


def _read_only(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr


def rms_norm(x: ArrayLike, gamma: ArrayLike | None = None, *, eps: float = 1e-6, axis: Axes = -1) -> np.ndarray:
    """RMSNorm: x / √(mean(x²) + ε) ⊙ γ — no centering, no β (Zhang & Sennrich, 2019)."""
    eps = check_eps(eps)
    arr = as_real_array(x, "x")
    axes = normalized_axes(axis, arr.ndim)
    check_nonempty(arr, axes)
    g = param_array(gamma, arr, axes, "gamma")
    # the mean square with LayerNorm's rescaling (x² would overflow or underflow at the ends of the range)
    return _output(moments(arr, axes, center=False).xhat(arr, eps), arr, g, None)
