"""Two common ways to get LayerNorm slightly wrong, written out so the course can compare them with it.

- ε in the wrong place: (x − μ) / (σ + ε) instead of (x − μ) / √(σ² + ε) (the PyTorch-style code in many
  tutorials, including seed article 001; torch.nn.LayerNorm puts ε inside the square root).
- the wrong variance: dividing by d − 1 (`torch.std`'s default, "unbiased") instead of d (LayerNorm's).

Both work over the last axis, like `lnlib.normalize`. Introduced in notebook 04, together with what ε itself
does (`epsilon_effect`) and the two comparisons the notebook shows (`eps_placement`, `ddof_comparison`); the
tables and plots of notebook 04 render these results.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import as_real_array, check_eps
from .stages import LayerNormSteps, center, layer_norm_steps, normalize, std, variance


def normalize_std_plus_eps(x, eps: float = 1e-5) -> np.ndarray:
    """(x − μ) / (σ + ε): ε added to σ, OUTSIDE the square root (not what LayerNorm does)."""
    eps = check_eps(eps)
    centered = center(x)
    with np.errstate(all="ignore"):
        return centered / (std(x)[..., None] + eps)


def variance_unbiased(x) -> np.ndarray:
    """σ² with ÷ (d − 1) instead of ÷ d (the "unbiased" sample variance; `torch.var`/`torch.std` default)."""
    arr = np.asarray(x, dtype=np.float64)
    d = arr.shape[-1]
    if d < 2:
        raise ValueError(f"x: the ÷ (d − 1) variance needs at least 2 values per row, got d = {d}")
    return variance(arr) * d / (d - 1)


def normalize_unbiased(x, eps: float = 1e-5) -> np.ndarray:
    """(x − μ) / √(σ²_{d−1} + ε): LayerNorm computed with the wrong (÷ (d − 1)) variance."""
    eps = check_eps(eps)
    with np.errstate(all="ignore"):
        return center(x) / np.sqrt(variance_unbiased(x)[..., None] + eps)


def _row(x, name: str = "x") -> np.ndarray:
    values = as_real_array(x, name).astype(np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"{name}: expected one non-empty vector (a single row), got shape {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name}: expected finite numbers, got inf or NaN")
    return values


def kept_variance(sigma: float, eps) -> np.ndarray:
    """The variance of x̂, σ² / (σ² + ε), written as 1 / (1 + (ε/σ)/σ) so that no σ up to 1e308 overflows.

    With σ = 0 it is 0 for ε > 0 (x̂ is all zeros); `eps` may be an array (a curve against ε).
    """
    eps = np.asarray(eps, dtype=np.float64)
    if sigma == 0:
        return np.zeros_like(eps)
    with np.errstate(over="ignore"):  # ε/σ² beyond 1e308 means the variance of x̂ is 0 to the last bit
        return 1.0 / (1.0 + eps / sigma / sigma)


@dataclass(frozen=True)
class EpsilonEffect:
    """What ε does to one row: its stages, σ², the variance of x̂ (= σ²/(σ²+ε)) and the ε → 0 limit of |x̂|."""

    steps: LayerNormSteps
    sigma: float  # σ of the row (finite even where σ² overflows)
    kept: float  # σ² / (σ² + ε): the variance of x̂
    xhat_variance: float  # the variance of the computed x̂ (equals `kept` up to rounding)
    limit: float  # max |x̂| as ε → 0 (1 for a constant row, where x̂ is all zeros)

    @property
    def x(self) -> np.ndarray:
        return self.steps.x

    @property
    def eps(self) -> float:
        return self.steps.eps

    @property
    def variance(self) -> float:
        return float(self.steps.variance)


def epsilon_effect(x, eps: float) -> EpsilonEffect:
    """One row normalized with this ε, and what ε changed (notebook 04)."""
    eps = check_eps(eps)
    values = _row(x)
    steps = layer_norm_steps(values, eps=eps)
    sigma = float(steps.std)
    limit = float(np.max(np.abs(normalize(values, eps=0.0)))) if sigma > 0 else 1.0
    kept = float(kept_variance(sigma, eps)) if sigma > 0 or eps > 0 else float("nan")
    return EpsilonEffect(steps, sigma, kept, float(variance(steps.normalized)), limit)


EPS_PLACEMENT_COLUMNS = ("std", "std_eps", "std_plus_eps", "xhat1_inside", "xhat1_outside", "difference")


@dataclass(frozen=True)
class EpsPlacement:
    """ε and, per input row, σ, √(σ² + ε), σ + ε and x̂₁ both ways: `values[i]` holds the columns
    `EPS_PLACEMENT_COLUMNS` of the row named `names[i]`; `frame` is the same as a pandas DataFrame."""

    eps: float
    names: tuple[str, ...]
    values: np.ndarray

    columns = EPS_PLACEMENT_COLUMNS

    @property
    def frame(self):
        import pandas as pd  # lazy: the notebooks show `tables.eps_placement_table`, which needs no pandas

        return pd.DataFrame(self.values, index=list(self.names), columns=list(EPS_PLACEMENT_COLUMNS))


def eps_placement(rows: dict, eps: float = 1e-5) -> EpsPlacement:
    """Rows of shrinking spread: σ, √(σ² + ε) versus σ + ε, and x̂₁ computed either way (notebook 04).

    The frame has one row per entry of `rows` and the columns of `EPS_PLACEMENT_COLUMNS`.
    """
    eps = check_eps(eps)
    if not isinstance(rows, dict) or not rows:
        raise ValueError(f"rows: expected a non-empty dict of name → row, got {rows!r:.60}")
    records = []
    for name, row in rows.items():
        v = _row(row, f"rows[{name!r}]")
        s = float(std(v))
        inside = float(normalize(v, eps=eps)[0])
        outside = float(normalize_std_plus_eps(v, eps=eps)[0])
        records.append((s, float(np.hypot(s, np.sqrt(eps))), s + eps, inside, outside, abs(inside - outside)))
    return EpsPlacement(eps, tuple(rows), np.array(records, dtype=np.float64))


@dataclass(frozen=True)
class DdofComparison:
    """÷ d (LayerNorm) versus ÷ (d − 1) (`torch.std`'s default) on one row: σ², x̂ and the variance of x̂."""

    x: np.ndarray
    eps: float
    variance_d: float
    variance_d1: float
    xhat_d: np.ndarray
    xhat_d1: np.ndarray
    xhat_variance_d: float  # variance (÷ d) of x̂ computed with ÷ d: 1 for ε = 0
    xhat_variance_d1: float  # variance (÷ d) of x̂ computed with ÷ (d − 1): (d − 1)/d for ε = 0

    @property
    def d(self) -> int:
        return int(self.x.size)


def ddof_comparison(x, eps: float = 0.0) -> DdofComparison:
    """One row normalized with the ÷ d variance and with the ÷ (d − 1) variance (notebook 04)."""
    eps = check_eps(eps)
    values = _row(x)
    if values.size < 2:
        raise ValueError(f"x: the ÷ (d − 1) variance needs at least 2 values, got d = {values.size}")
    xhat_d, xhat_d1 = normalize(values, eps=eps), normalize_unbiased(values, eps=eps)
    return DdofComparison(
        values,
        eps,
        float(variance(values)),
        float(variance_unbiased(values)),
        xhat_d,
        xhat_d1,
        float(variance(xhat_d)),
        float(variance(xhat_d1)),
    )
