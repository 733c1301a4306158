"""The one place where row statistics and x̂ are computed, in one canonical order, in float64, at any scale.

A "row" is the set of values one normalization averages over (the normalized axes, flattened in C order).
Everything a row's result depends on is fixed by the row alone, so the result is the same bits whatever the
batch size, the memory layout or the code path:

1. scale: s = 1 when the row's peak |x| lies in [2⁻⁴⁰⁰, 2⁴⁰⁰] (or is 0, inf or NaN); otherwise the power of two
   2^(e−1) with peak = m·2^e, 0.5 ≤ m < 1. Dividing by a power of two is exact, and afterwards nothing in the
   formulas below can overflow or underflow (|x/s| ≤ 2, squared deviations of distinct values stay normal).
2. sums: every sum over a row folds the row in half again and again, v[j] + v[j + d//2], an odd last value
   carried aside (see `tree_sum`): pairwise summation whose order depends on d alone.
3. corrected two-pass moments: mean = Σxs/d; t = xs − mean; shift = Σt/d; var = max(Σt²/d − shift², 0).
   Never E[x²] − E[x]²; the shift removes the rounding error of the mean itself.
4. x̂ = ((xs − mean) − shift) · r with r = 1/√(var + ε/s²) (see `inv_std_scalar` for the two ends of the range).

The numpy functions below implement this vectorized over many rows; `normalize_rows` is the same algorithm,
scalar by scalar, which lnlib/_fast.py compiles with numba (no fast-math, no contraction, so every operation
rounds exactly as in numpy). tests/test_row_independence.py checks that both give the same bits.
The small shared formulas (`affine`, `normalized`) are written once here and used by both.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

SAFE_LO = 2.0**-400  # rows whose peak |x| lies in [SAFE_LO, SAFE_HI] are not rescaled
SAFE_HI = 2.0**400
SAFE_LO_BITS = int(np.float64(SAFE_LO).view(np.int64))  # the same bounds as bit patterns (the compiled loop)
SAFE_HI_BITS = int(np.float64(SAFE_HI).view(np.int64))
INF_BITS = int(np.float64(np.inf).view(np.int64))
TINY = 2.0**-1022  # smallest normal float64: the floor of ε/s² when ε > 0 (see inv_std_scalar)


# ---- shared formulas: numpy arrays here, float64 scalars in the compiled loop -------------------------------------


def affine(xhat, gamma, beta):
    """y = γ·x̂ + β: the only place this formula is written."""
    return xhat * gamma + beta


def normalized(xs, mean, shift, r):
    """x̂ = ((x/s − mean) − shift)·r: (x − μ) is exact near μ, then the rounding error of μ itself is removed."""
    return ((xs - mean) - shift) * r


def scale_scalar(peak: float) -> float:
    """The power of two a row is divided by (1 for rows in the safe range, zero rows and rows with inf/NaN)."""
    if peak == 0.0 or (SAFE_LO <= peak <= SAFE_HI) or not (peak < math.inf):
        return 1.0
    e = math.frexp(peak)[1]
    return math.ldexp(1.0, e - 1)


def inv_std_scalar(var: float, eps: float, s: float) -> float:
    """r = 1/√(var + ε/s²) in the units of x/s.

    ε/s² overflows for tiny rows (s ≈ 1e-300): then var ≤ 4 is negligible beside it and r = s/√ε. It underflows
    for huge rows: when ε > 0 it is kept at least TINY, which changes nothing beside a nonzero variance (≥ 2⁻¹¹⁰)
    and keeps a constant row's x̂ = 0·r exactly 0 (with ε = 0 a constant row is 0/0 = NaN, as in PyTorch).
    """
    e = eps / s / s
    if e == math.inf:
        return s / math.sqrt(eps)
    if eps > 0.0 and e < TINY:
        e = TINY
    return 1.0 / math.sqrt(var + e)


# ---- the numpy implementation (many rows at once) -----------------------------------------------------------------


def row_scale(peak: np.ndarray) -> np.ndarray:
    """`scale_scalar` for an array of peaks."""
    with np.errstate(invalid="ignore"):
        keep = (peak == 0) | ((peak >= SAFE_LO) & (peak <= SAFE_HI)) | ~np.isfinite(peak)
    e = np.frexp(np.where(keep, 1.0, peak))[1]
    return np.where(keep, 1.0, np.ldexp(1.0, e - 1))


def inv_std(var: np.ndarray, eps: float, s: np.ndarray) -> np.ndarray:
    """`inv_std_scalar` for arrays."""
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        e = eps / s / s
        if eps > 0:
            e = np.where(e < TINY, TINY, e)
        r = 1.0 / np.sqrt(var + e)
        return np.where(e == np.inf, s / math.sqrt(eps), r)


def tree_sum(v: np.ndarray) -> np.ndarray:
    """Σ over the last axis of a float64 (n, d) array in the canonical order (one value per row).

    Fold the row in half, v[j] + v[j + h] with h = d // 2, until one value is left; at a level of odd length
    its last value is set aside and added to a carry (carry + last). The sum is the folded value + the carry.
    The order depends on d alone, never on n or on the memory layout, and each level is an elementwise add
    (vector instructions in the compiled loop, no reassociation).
    """
    d = v.shape[1]
    carry = None
    with np.errstate(over="ignore", invalid="ignore"):
        while d > 1:
            h = d // 2
            if d % 2:
                carry = v[:, d - 1] if carry is None else carry + v[:, d - 1]
            v = v[:, :h] + v[:, h : 2 * h]
            d = h
        return v[:, 0] if carry is None else v[:, 0] + carry


def as_rows(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """x as a 2-D (rows, d) array: the normalized axes moved last (in their order) and flattened in C order."""
    k = len(axes)
    moved = np.moveaxis(x, axes, tuple(range(x.ndim - k, x.ndim)))
    d = int(np.prod([x.shape[a] for a in axes]))
    return moved.reshape(-1, d)


def row_sums(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Canonical Σ of a float64 array over `axes` (keepdims): used by the backward pass."""
    shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
    return tree_sum(as_rows(x, axes)).reshape(shape)


class Moments(NamedTuple):
    """Statistics of x/s over the normalized axes (keepdims, float64); see the module doc.

    The true mean is s·(mean + shift) and the true variance s²·var.
    """

    scale: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    shift: np.ndarray

    def scaled(self, x64: np.ndarray) -> np.ndarray:
        """x/s (exact: s is a power of two)."""
        if np.all(self.scale == 1):
            return x64
        return x64 / self.scale

    def centered(self, x64: np.ndarray) -> np.ndarray:
        """(x − μ)/s."""
        with np.errstate(invalid="ignore"):
            return normalized(self.scaled(x64), self.mean, self.shift, 1.0)

    def mu(self) -> np.ndarray:
        """μ in the units of x."""
        with np.errstate(over="ignore", invalid="ignore"):
            return self.scale * (self.mean + self.shift)

    def sigma(self) -> np.ndarray:
        """σ = √σ² in the units of x (without ε)."""
        return self.scale * np.sqrt(self.var)

    def variance(self) -> np.ndarray:
        """σ² in the units of x: inf when beyond float64 (the honest value); 0 stays 0."""
        with np.errstate(over="ignore", under="ignore"):
            return self.var * self.scale * self.scale

    def std_eps(self, eps: float) -> np.ndarray:
        """√(σ² + ε) = hypot(σ, √ε): finite and accurate at every scale."""
        with np.errstate(over="ignore"):
            return np.hypot(self.sigma(), math.sqrt(eps))

    def xhat(self, x64: np.ndarray, eps: float) -> np.ndarray:
        """x̂ = (x − μ)/√(σ² + ε) in float64."""
        with np.errstate(over="ignore", invalid="ignore"):
            return normalized(self.scaled(x64), self.mean, self.shift, inv_std(self.var, eps, self.scale))


def moments(x: np.ndarray, axes: tuple[int, ...], *, center: bool = True) -> Moments:
    """Moments of x over `axes` in the canonical order (module doc). center=False: mean = shift = 0 and var is
    the mean square (RMSNorm), with the same rescaling."""
    x64 = np.asarray(x, dtype=np.float64)
    rows = as_rows(x64, axes)
    d = rows.shape[1]
    keep = tuple(1 if i in axes else n for i, n in enumerate(x64.shape))
    with np.errstate(invalid="ignore"):
        peak = np.max(np.abs(rows), axis=1) if rows.size else np.zeros(rows.shape[0])
    s = row_scale(peak)
    with np.errstate(over="ignore", invalid="ignore"):
        xs = rows if np.all(s == 1) else rows / s[:, None]
        if center:
            mean = tree_sum(xs) / d
            t = xs - mean[:, None]
            shift = tree_sum(t) / d
            var = tree_sum(t * t) / d - shift * shift
            var = np.where(var < 0, 0.0, var)
        else:
            mean = shift = np.zeros(rows.shape[0])
            var = tree_sum(xs * xs) / d
    return Moments(s.reshape(keep), mean.reshape(keep), var.reshape(keep), shift.reshape(keep))


def to_dtype(values: np.ndarray, dtype) -> np.ndarray:
    """Cast a float64 result to the caller's dtype once, without an overflow warning (inf is the honest value)."""
    with np.errstate(over="ignore"):
        return np.asarray(values).astype(dtype, copy=False)


# ---- the same algorithm, scalar by scalar: compiled by lnlib/_fast.py -----------------------------------------------


prange = range  # lnlib/_fast.py binds numba.prange here before compiling `normalize_chunks`


def normalize_chunks(x, bits, out, gamma, beta, eps, n_chunks):  # pragma: no cover - compiled
    """`normalize_rows` on n_chunks parts of the rows, one set of work buffers per part, parts in parallel.

    bits: x viewed as int64 when x is float64 (to find rows outside the safe range); for float32 x, whose rows
    always lie in the safe range, any int64 array with fewer columns.
    """
    n, d = x.shape
    for c in prange(n_chunks):
        xb = np.empty(d)
        bt = np.empty(max(d // 2, 1))
        bq = np.empty(max(d // 2, 1))
        normalize_rows(x, bits, out, gamma, beta, eps, c * n // n_chunks, (c + 1) * n // n_chunks, xb, bt, bq)


def normalize_rows(x, bits, out, gamma, beta, eps, lo, hi, xb, bt, bq):  # pragma: no cover - compiled
    """Rows lo..hi−1 of the 2-D array x → out, exactly as `moments(...).xhat` followed by `affine` in float64.

    xb: a float64 work buffer of length d (for the rare rows that are rescaled); bt, bq: d // 2 (the sums).
    """
    d = x.shape[1]
    wide = bits.shape[1] == d
    for i in range(lo, hi):
        if wide:  # the peak's bit pattern: integer max (vectorizes); NaN and inf have the largest patterns
            br = bits[i]
            m = 0
            for j in range(d):
                v = br[j] & 0x7FFFFFFFFFFFFFFF
                if v > m:
                    m = v
            if (0 < m < SAFE_LO_BITS) or (SAFE_HI_BITS < m < INF_BITS):  # finite, outside the safe range: rare
                xr = x[i]
                peak = 0.0
                for j in range(d):
                    peak = max(peak, abs(xr[j]))
                s = scale_scalar(peak)
                for j in range(d):
                    xb[j] = xr[j] / s
                normalize_row(xb, out[i], gamma, beta, eps, s, bt, bq)
                continue
        normalize_row(x[i], out[i], gamma, beta, eps, 1.0, bt, bq)  # float32 rows always lie in the safe range


def normalize_row(xs, y, gamma, beta, eps, s, bt, bq):  # pragma: no cover - compiled
    """One row already divided by its scale s (float32 or float64) → y; bt and bq hold d // 2 float64 each."""
    d = xs.shape[0]
    n, st, _, odd = first_levels(xs, 0.0, bt, bq, False)
    mean = (fold(bt, n, st, odd) if n > 0 else st) / d
    n, st, sq, odd = first_levels(xs, mean, bt, bq, True)
    if n > 0:
        st = fold(bt, n, st, odd)
        sq = fold(bq, n, sq, odd)
    shift = st / d
    var = sq / d - shift * shift
    if var < 0.0:
        var = 0.0
    r = inv_std_scalar(var, eps, s)
    for j in range(d):
        y[j] = affine(normalized(np.float64(xs[j]), mean, shift, r), gamma[j], beta[j])


def first_levels(xs, c, bt, bq, squares):  # pragma: no cover - compiled
    """The first levels of `tree_sum` for t = xs − c (into bt) and t² (into bq, when `squares`), in one pass.

    Returns (n, carry_t, carry_q, has_carry): n values are left in bt/bq (n = 0: the row had one value, which
    is returned as the carry). Rows of a length divisible by 8 fold three levels at once (no carry can occur).
    """
    d = xs.shape[0]
    if d % 8 == 0:
        e = d // 8
        for j in range(e):  # levels 1-3: the 8 values j + k·e, added in the tree's order
            t0, t1, t2, t3 = xs[j] - c, xs[j + e] - c, xs[j + 2 * e] - c, xs[j + 3 * e] - c
            t4, t5, t6, t7 = xs[j + 4 * e] - c, xs[j + 5 * e] - c, xs[j + 6 * e] - c, xs[j + 7 * e] - c
            bt[j] = ((t0 + t4) + (t2 + t6)) + ((t1 + t5) + (t3 + t7))
            if squares:
                bq[j] = ((t0 * t0 + t4 * t4) + (t2 * t2 + t6 * t6)) + ((t1 * t1 + t5 * t5) + (t3 * t3 + t7 * t7))
        return e, 0.0, 0.0, False
    h = d // 2
    tl = xs[d - 1] - c
    if h == 0:
        return 0, tl, tl * tl, True
    for j in range(h):
        t1 = xs[j] - c
        t2 = xs[j + h] - c
        bt[j] = t1 + t2
        if squares:
            bq[j] = t1 * t1 + t2 * t2
    return h, tl, tl * tl, d % 2 == 1


def fold(b, n, carry, has_carry):  # pragma: no cover - compiled
    """The levels of `tree_sum` after the first, in place on b[:n]; `carry` is set when the first level was odd."""
    while n > 1:
        h = n // 2
        if n % 2:
            if has_carry:
                carry = carry + b[n - 1]
            else:
                carry = b[n - 1]
                has_carry = True
        for j in range(h):
            b[j] += b[j + h]
        n = h
    return b[0] + carry if has_carry else b[0]


COMPILED_HELPERS = (affine, normalized, scale_scalar, inv_std_scalar, first_levels, fold, normalize_row, normalize_rows)
