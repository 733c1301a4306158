"""The one place where mean and variance are computed: two passes, in float64, safe at the ends of the float range.

Every public function (stages, norms, grad) goes through `moments`, so a formula is never written twice.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

_SMALL_VARIANCE = 1e-200  # below this, squares of float64 deviations may have underflowed


class Moments(NamedTuple):
    """Statistics of x / scale over the normalized axes (keepdims, float64).

    The true mean is scale·mean and the true variance scale²·var. `scale` is 1 except for slices whose
    magnitudes would overflow or underflow float64 when squared; those are divided by their max |x| first.
    """

    scale: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    shift: np.ndarray | float = 0.0  # mean(x/scale − mean): the part of the mean that float64 `mean` cannot hold

    def centered(self, x64: np.ndarray) -> np.ndarray:
        """x/scale − μ/scale, as (x/scale − mean) − shift: exact even when μ is not a float64 number."""
        with np.errstate(all="ignore"):
            if np.all(self.scale == 1):
                return (x64 - self.mean) - self.shift
            return (x64 / self.scale - self.mean) - self.shift

    def mu(self) -> np.ndarray:
        """μ in the units of x."""
        return self.scale * (self.mean + self.shift)

    def sigma(self) -> np.ndarray:
        """σ = √σ² in the units of x (without ε)."""
        return self.scale * np.sqrt(self.var)

    def variance(self) -> np.ndarray:
        """σ² = scale²·var; 0 stays 0 even when scale² overflows (a constant row of ±1e308), beyond float64 is inf."""
        with np.errstate(over="ignore", invalid="ignore"):
            return np.where(self.var == 0, 0.0, self.scale * self.scale * self.var)

    def std_eps(self, eps: float) -> np.ndarray:
        """√(σ² + ε) in the units of x. A constant row (var = 0) gives √ε even where ε/scale² underflows."""
        with np.errstate(all="ignore"):
            return np.where(self.var == 0, np.sqrt(eps), self.scale * np.sqrt(self.var + eps / self.scale / self.scale))

    def xhat(self, x64: np.ndarray, eps: float) -> np.ndarray:
        """(x − μ) / √(σ² + ε), written in the scaled quantities so it stays finite."""
        with np.errstate(all="ignore"):
            if np.all(self.scale == 1):
                return self.centered(x64) / np.sqrt(self.var + eps)
            denom = np.sqrt(self.var + eps / self.scale / self.scale)
            if eps > 0:  # a constant row of ±1e308: ε/scale² underflows to 0, but x − μ = 0 and 0/√ε = 0
                denom = np.where(denom == 0, 1.0, denom)
            return self.centered(x64) / denom


def moments(x: np.ndarray, axes: tuple[int, ...]) -> Moments:
    """Two-pass mean and biased (÷n) variance of x over `axes`, computed in float64. Never E[x²] − E[x]².

    The second pass also averages the deviations (the "corrected two-pass" algorithm): for float64 input such as
    [1, 1 + 2⁻⁵², 1 + 2⁻⁵²] the rounded mean is off by a whole spacing of the data, and that residual `shift`
    is removed from every deviation.
    """
    x64 = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        mean = x64.mean(axis=axes, keepdims=True)
        dev = x64 - mean
        shift = dev.mean(axis=axes, keepdims=True)
        dev = dev - shift
        var = np.mean(dev * dev, axis=axes, keepdims=True)
        suspect = ~np.isfinite(var)
        small = var < _SMALL_VARIANCE
        if small.any():
            suspect |= small & np.any(dev != 0, axis=axes, keepdims=True)
        scale = np.ones_like(mean)
        if suspect.any():
            # Rows holding NaN or inf stay as they are (NaN stays in its row); finite rows are rescaled.
            redo = suspect & np.all(np.isfinite(x64), axis=axes, keepdims=True)
            if redo.any():
                peak = np.max(np.abs(x64), axis=axes, keepdims=True)
                s = np.where(redo & (peak > 0), peak, 1.0)
                xs = x64 / s
                mean_s = xs.mean(axis=axes, keepdims=True)
                dev_s = xs - mean_s
                shift_s = dev_s.mean(axis=axes, keepdims=True)
                dev_s = dev_s - shift_s
                var_s = np.mean(dev_s * dev_s, axis=axes, keepdims=True)
                mean = np.where(redo, mean_s, mean)
                shift = np.where(redo, shift_s, shift)
                var = np.where(redo, var_s, var)
                scale = s
    return Moments(scale, mean, var, shift)


def to_dtype(values: np.ndarray, dtype) -> np.ndarray:
    """Cast a float64 result back to the caller's dtype without an overflow warning (inf is the honest value)."""
    with np.errstate(over="ignore"):
        return np.asarray(values).astype(dtype, copy=False)
