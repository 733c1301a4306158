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
The small shared formulas (`apply_affine`, `normalized`) are written once here and used by both.
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


def apply_affine(xhat, gamma, beta):
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


# ---- running statistics (BatchNorm): PyTorch's rule, and the same rule on numbers kept as m·2^e ----------------


BN_MOMENTUM = 0.1  # PyTorch's default for BatchNorm's running statistics (lnlib.BatchNorm and lnlib.training's MLP)


def running_update(old, batch, momentum: float, count: int | None = None):
    """new = (1 − momentum)·old + momentum·batch, the running-statistics rule of PyTorch's BatchNorm, in float64.

    count: the batch statistic is a biased variance over `count` values, made unbiased as ·count/(count − 1)
    (in this order: momentum·batch·count/(count − 1)). lnlib/training.py's BatchNorm uses this; lnlib.BatchNorm
    uses `Scaled.updated`, the same operations on numbers that cannot overflow or underflow.
    """
    if count is None:
        return (1 - momentum) * old + momentum * batch
    return (1 - momentum) * old + momentum * batch * count / (count - 1)


_NO_EXP = np.iinfo(np.int64).min // 4  # the exponent of a zero term: below every real one, never overflows when added


def _pow2_exponent(scale: np.ndarray) -> np.ndarray:
    """k with scale = 2^k for an array of powers of two (row scales)."""
    return (np.frexp(scale)[1] - 1).astype(np.int64)


class Scaled(NamedTuple):
    """Real numbers m·2^e: m a float64 with 0.5 ≤ |m| < 1 (or 0, or ±inf/NaN with e = 0), e an int64.

    Their range has no end, so statistics of data at 1e-300 or 1e300 (a variance of 1e-600 or 1e600) are kept
    to float64 precision. Every operation below rounds like the float64 formula it mirrors whenever that formula
    meets only normal numbers (multiplying by a power of two is exact): the same bits in the ordinary range.
    """

    mant: np.ndarray
    exp: np.ndarray

    @classmethod
    def of(cls, values, exp=0) -> Scaled:
        """values·2^exp (values float64, exp an int or an int64 array), normalized."""
        m, e = np.frexp(np.asarray(values, dtype=np.float64))
        return cls(m, e.astype(np.int64) + exp)

    @classmethod
    def from_moments(cls, m: Moments, count: int | None = None) -> tuple[Scaled, Scaled]:
        """A batch's mean and variance (unbiased as ·count/(count − 1) when count is given), flattened, exact."""
        k = _pow2_exponent(m.scale).reshape(-1)
        mean = cls.of((m.mean + m.shift).reshape(-1), k)
        var = m.var.reshape(-1)
        var = cls.of(var if count is None else var * count / (count - 1), 2 * k)
        return mean, var

    def value(self) -> np.ndarray:
        """As float64: ±inf beyond its range, subnormal or 0 below it (the honest float64 view)."""
        with np.errstate(over="ignore", under="ignore"):
            return np.ldexp(self.mant, self.exp)

    def plus(self, other: Scaled) -> Scaled:
        """self + other, rounded once (after aligning both at the larger exponent)."""
        return _aligned_sum(self.mant, self.exp, other.mant, other.exp)

    def updated(self, batch: Scaled, momentum: float, count: int | None = None) -> Scaled:
        """`running_update(self, batch, momentum, count)`: the same operations in the same order."""
        w_old, w_new = math.frexp(1 - momentum), math.frexp(momentum)
        with np.errstate(invalid="ignore"):  # an inf kept with weight 0 is dropped below, not multiplied
            p1 = self.mant * w_old[0] if w_old[0] else np.zeros_like(self.mant)
            p2 = batch.mant * w_new[0] if w_new[0] else np.zeros_like(batch.mant)
        if count is not None:
            p2 = p2 * count / (count - 1)
        return _aligned_sum(p1, self.exp + w_old[1], p2, batch.exp + w_new[1])

    def standardized(self, x64: np.ndarray, var: Scaled, eps: float) -> np.ndarray:
        """(x − self)/√(var + ε) in float64 (self and var broadcast over x's last axis): the numerator aligned
        per element, the root taken of a mantissa with an even exponent, so nothing overflows or underflows
        on the way; the result is ±inf or 0 only when it is beyond float64 itself."""
        d = var.plus(Scaled.of(eps))
        odd = d.exp % 2 != 0
        root = np.sqrt(np.where(odd, d.mant * 2, d.mant))
        half = (d.exp - odd) // 2
        mx, ex = np.frexp(x64)
        ex = ex.astype(np.int64)
        top = np.maximum(np.where(mx == 0, _NO_EXP, ex), np.where(self.mant == 0, _NO_EXP, self.exp))
        top = np.where(top == _NO_EXP, 0, top)
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            num = np.ldexp(mx, ex - top) - np.ldexp(self.mant, self.exp - top)
            return np.ldexp(num / root, top - half)


def _aligned_sum(m1, e1, m2, e2) -> Scaled:
    """m1·2^e1 + m2·2^e2 as a normalized `Scaled` (zero terms do not count for the alignment)."""
    m1, m2 = np.broadcast_arrays(np.asarray(m1, dtype=np.float64), np.asarray(m2, dtype=np.float64))
    e1 = np.where(m1 == 0, _NO_EXP, e1)
    e2 = np.where(m2 == 0, _NO_EXP, e2)
    top = np.maximum(e1, e2)
    top = np.where(top == _NO_EXP, 0, top)
    with np.errstate(under="ignore", invalid="ignore"):
        total = np.ldexp(m1, np.maximum(e1 - top, -2000)) + np.ldexp(m2, np.maximum(e2 - top, -2000))
    return Scaled.of(total, np.where(np.isfinite(total), top, 0))


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
    """Rows lo..hi−1 of the 2-D array x → out, exactly as `moments(...).xhat` followed by `apply_affine` in float64.

    xb: a float64 work buffer of length d (float32 rows widened once, rescaled rows); bt, bq: d // 2 (the sums).
    Rows whose length is divisible by 8 (the common case) fold their first three levels in one pass, and a
    float64 row's peak |x| comes out of that same pass: only when it lies outside [SAFE_LO, SAFE_HI] (or the
    row holds NaN) is the exact test on the bit patterns run.
    """
    d = x.shape[1]
    e = d // 8
    by8 = d % 8 == 0
    if bits.shape[1] != d:  # float32 rows always lie in the safe range; widened once, every pass reads float64
        for i in range(lo, hi):
            widen(x[i], xb)
            if by8:
                sum_levels8(xb, bt, e)
                finish8(xb, out[i], gamma, beta, eps, 1.0, bt, bq)
            else:
                normalize_row(xb, out[i], gamma, beta, eps, 1.0, bt, bq)
        return
    for i in range(lo, hi):
        if by8 and SAFE_LO <= peak_and_sum_levels8(x[i], bt, bq, e) <= SAFE_HI:
            finish8(x[i], out[i], gamma, beta, eps, 1.0, bt, bq)  # the common float64 row: its sum is begun
        elif not needs_scale(bits[i]):  # zero rows, rows with inf or NaN
            if by8:
                finish8(x[i], out[i], gamma, beta, eps, 1.0, bt, bq)
            else:
                normalize_row(x[i], out[i], gamma, beta, eps, 1.0, bt, bq)
        else:  # finite, outside the safe range: rare
            xr = x[i]
            peak = 0.0
            for j in range(d):
                peak = max(peak, abs(xr[j]))
            s = scale_scalar(peak)
            for j in range(d):
                xb[j] = xr[j] / s
            normalize_row(xb, out[i], gamma, beta, eps, s, bt, bq)


def needs_scale(br):  # pragma: no cover - compiled
    """Whether a float64 row (viewed as int64) is finite with its peak outside the safe range: integer max of the
    bit patterns (NaN and inf have the largest)."""
    m = 0
    for j in range(br.shape[0]):
        v = br[j] & 0x7FFFFFFFFFFFFFFF
        if v > m:
            m = v
    return (0 < m < SAFE_LO_BITS) or (SAFE_HI_BITS < m < INF_BITS)


def widen(xs, xb):  # pragma: no cover - compiled
    """xb[:d] = xs as float64 (exact), so that the passes convert a float32 row once, not three times."""
    for j in range(xs.shape[0]):
        xb[j] = np.float64(xs[j])


def normalize_row(xs, y, gamma, beta, eps, s, bt, bq):  # pragma: no cover - compiled
    """One float64 row already divided by its scale s → y; bt and bq hold d // 2 float64 each."""
    d = xs.shape[0]
    if d % 8 == 0:
        sum_levels8(xs, bt, d // 8)
        finish8(xs, y, gamma, beta, eps, s, bt, bq)
        return
    n, st, _, odd = first_level(xs, 0.0, bt, bq, False)
    mean = (fold(bt, n, st, odd) if n > 0 else st) / d
    n, st, sq, odd = first_level(xs, mean, bt, bq, True)
    if n > 0:
        st = fold(bt, n, st, odd)
        sq = fold(bq, n, sq, odd)
    finish(xs, y, gamma, beta, eps, s, mean, st, sq)


def finish8(xs, y, gamma, beta, eps, s, bt, bq):  # pragma: no cover - compiled
    """A row of length 8·e whose bt[:e] holds the first three levels of Σxs (from `sum_levels8`) → y."""
    d = xs.shape[0]
    e = d // 8
    mean = fold(bt, e, 0.0, False) / d
    center_levels8(xs, mean, bt, bq, e)
    finish(xs, y, gamma, beta, eps, s, mean, fold(bt, e, 0.0, False), fold(bq, e, 0.0, False))


def finish(xs, y, gamma, beta, eps, s, mean, st, sq):  # pragma: no cover - compiled
    """From the mean and the sums Σt, Σt² (t = xs − mean) to y = γ·x̂ + β."""
    d = xs.shape[0]
    shift = st / d
    var = sq / d - shift * shift
    if var < 0.0:
        var = 0.0
    r = inv_std_scalar(var, eps, s)
    for j in range(d):
        y[j] = apply_affine(normalized(xs[j], mean, shift, r), gamma[j], beta[j])


# The first three levels of `tree_sum` in one pass, for rows of length 8·e: the 8 values j + k·e added in the
# tree's order. Each j is independent of the others, so the loops run on vector instructions (AVX2: 4 doubles).


def sum_levels8(xs, bt, e):  # pragma: no cover - compiled
    """bt[j] = the levels 1-3 of Σxs."""
    for j in range(e):
        t0, t1, t2, t3 = xs[j], xs[j + e], xs[j + 2 * e], xs[j + 3 * e]
        t4, t5, t6, t7 = xs[j + 4 * e], xs[j + 5 * e], xs[j + 6 * e], xs[j + 7 * e]
        bt[j] = ((t0 + t4) + (t2 + t6)) + ((t1 + t5) + (t3 + t7))


def peak_and_sum_levels8(xs, bt, bm, e):  # pragma: no cover - compiled
    """`sum_levels8`, and max |xs| (through bm; a NaN may be skipped: the result only decides whether the exact
    test `needs_scale` must run)."""
    for j in range(e):
        t0, t1, t2, t3 = xs[j], xs[j + e], xs[j + 2 * e], xs[j + 3 * e]
        t4, t5, t6, t7 = xs[j + 4 * e], xs[j + 5 * e], xs[j + 6 * e], xs[j + 7 * e]
        bt[j] = ((t0 + t4) + (t2 + t6)) + ((t1 + t5) + (t3 + t7))
        a0, a1, a2, a3 = abs(t0), abs(t1), abs(t2), abs(t3)
        a4, a5, a6, a7 = abs(t4), abs(t5), abs(t6), abs(t7)
        m0 = a0 if a0 > a4 else a4
        m1 = a1 if a1 > a5 else a5
        m2 = a2 if a2 > a6 else a6
        m3 = a3 if a3 > a7 else a7
        m0 = m0 if m0 > m2 else m2
        m1 = m1 if m1 > m3 else m3
        bm[j] = m0 if m0 > m1 else m1
    peak = 0.0
    for j in range(e):
        if bm[j] > peak:
            peak = bm[j]
    return peak


def center_levels8(xs, c, bt, bq, e):  # pragma: no cover - compiled
    """bt[j], bq[j] = the levels 1-3 of Σt and Σt² for t = xs − c."""
    for j in range(e):
        t0, t1, t2, t3 = xs[j] - c, xs[j + e] - c, xs[j + 2 * e] - c, xs[j + 3 * e] - c
        t4, t5, t6, t7 = xs[j + 4 * e] - c, xs[j + 5 * e] - c, xs[j + 6 * e] - c, xs[j + 7 * e] - c
        bt[j] = ((t0 + t4) + (t2 + t6)) + ((t1 + t5) + (t3 + t7))
        bq[j] = ((t0 * t0 + t4 * t4) + (t2 * t2 + t6 * t6)) + ((t1 * t1 + t5 * t5) + (t3 * t3 + t7 * t7))


def first_level(xs, c, bt, bq, squares):  # pragma: no cover - compiled
    """The first level of `tree_sum` for t = xs − c (into bt) and t² (into bq, when `squares`): rows of any length.

    Returns (n, carry_t, carry_q, has_carry): n values are left in bt/bq (n = 0: the row had one value, which
    is returned as the carry).
    """
    d = xs.shape[0]
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


COMPILED_HELPERS = (
    apply_affine,
    normalized,
    scale_scalar,
    inv_std_scalar,
    needs_scale,
    widen,
    normalize_row,
    finish8,
    finish,
    sum_levels8,
    peak_and_sum_levels8,
    center_levels8,
    first_level,
    fold,
    normalize_rows,
)
