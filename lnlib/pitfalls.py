"""Two common ways to get LayerNorm slightly wrong, written out so the course can compare them with it.

- ε in the wrong place: (x − μ) / (σ + ε) instead of (x − μ) / √(σ² + ε) (the PyTorch-style code in many
  tutorials, including seed article 001; torch.nn.LayerNorm puts ε inside the square root).
- the wrong variance: dividing by d − 1 (`torch.std`'s default, "unbiased") instead of d (LayerNorm's).

Both work over the last axis, like `lnlib.normalize`. Introduced in notebook 04.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_eps
from .stages import center, std, variance


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


def std_unbiased(x) -> np.ndarray:
    """σ with ÷ (d − 1): √(Σ(x − μ)² / (d − 1))."""
    return np.sqrt(variance_unbiased(x))


def normalize_unbiased(x, eps: float = 1e-5) -> np.ndarray:
    """(x − μ) / √(σ²_{d−1} + ε): LayerNorm computed with the wrong (÷ (d − 1)) variance."""
    eps = check_eps(eps)
    with np.errstate(all="ignore"):
        return center(x) / np.sqrt(variance_unbiased(x)[..., None] + eps)
