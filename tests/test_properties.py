"""Property-based tests (hypothesis) of the whole numeric API over random shapes, dtypes, values and axes.

The examples are fixed by the "ci" profile registered in conftest.py (derandomize=True), so a run is repeatable.
Where a property needs the true μ and σ² they are computed EXACTLY with fractions.Fraction from the input values
(never with lnlib), and every tolerance is derived from the precision of the output dtype (plus a small float64
allowance), so a wrong formula, a lost digit or a float32 shortcut makes these tests fail. Each property was seen
to fail against a deliberately broken lnlib (no corrected second pass, unbiased variance, float32 arithmetic, a
wrong gradient, a mutated input, a missing errstate, one wrong value in the fast path).

Properties (11): P1 per-slice mean ≈ 0 and variance ≈ σ²/(σ²+ε); P2 invariance to a positive scale (ε scaled with
it); P3 invariance to a shift per slice; P4 layer_norm == layer_norm_steps and the stage functions agree with the
steps; P5 batch_norm over axis 0 == layer_norm of the transpose; P6 layer_norm_backward == a numerical gradient;
P7 finite input with ε > 0 never gives NaN or inf; P8 no RuntimeWarning for finite input; P9 inputs are never
mutated or aliased; P10 rms_norm output has mean square ≈ m/(m+ε) with m = mean(x²); P11 big inputs
(layer_norm's compiled fast path) give the numbers of the reference path. P1, P7, P8 and P10 run once per dtype family.
"""

from __future__ import annotations

import math
import os
import warnings
from fractions import Fraction

import numpy as np
import pytest
from helpers import exact_moments, strict_warnings
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lnlib
from lnlib import grad

FLOAT_DTYPES = [np.float16, np.float32, np.float64]
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32]
EXACT_INT = 2**53  # integers are converted to float64, exact up to 2**53 (the documented contract)
EPS_VALUES = [0.0, 1e-12, 1e-5, 1e-3, 0.5, 4.0]


# --- strategies --------------------------------------------------------------------------------------------------


def _elements(dtype: np.dtype):
    if dtype.kind == "f":  # the full finite range of the dtype, subnormals included
        return st.floats(allow_nan=False, allow_infinity=False, width=8 * dtype.itemsize)
    info = np.iinfo(dtype)
    return st.integers(max(int(info.min), -EXACT_INT), min(int(info.max), EXACT_INT))


@st.composite
def arrays(draw, dtypes=FLOAT_DTYPES + INT_DTYPES, min_dims=1, max_dims=3, min_side=1, max_side=5):
    """Random shape and dtype. Float values come one of three ways: anywhere in the finite range; small integers
    times 2^k with k anywhere in the exponent range (huge or tiny rows that still have a spread); or clustered
    round one offset, b + k·spacing(b)·2^j (the spread is a few ulps of the mean: the hard case)."""
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side))
    how = draw(st.sampled_from(["anywhere", "scaled", "clustered"])) if dtype.kind == "f" else "anywhere"
    if how == "anywhere":
        return draw(hnp.arrays(dtype, shape, elements=_elements(dtype)))
    k = draw(hnp.arrays(np.int64, shape, elements=st.integers(-8, 8)))
    info = np.finfo(dtype)
    with np.errstate(all="ignore"):
        if how == "scaled":
            e = draw(st.integers(int(info.minexp) - int(info.nmant), int(info.maxexp) - 4))
            x = (k * np.ldexp(1.0, e)).astype(dtype)
        else:
            base = dtype.type(draw(_elements(dtype)))
            j = draw(st.integers(0, 12))
            x = (base + k * (np.spacing(base) * dtype.type(2.0**j))).astype(dtype)
    assume(np.all(np.isfinite(x)))
    return x


FAMILIES = {"float16": [np.float16], "float32": [np.float32], "float64": [np.float64], "int": INT_DTYPES}
by_family = pytest.mark.parametrize("family", list(FAMILIES))


@st.composite
def axes_for(draw, ndim: int):
    """An int or a tuple of distinct axes, some written as negative numbers."""
    k = draw(st.integers(1, ndim))
    chosen = draw(st.permutations(range(ndim)))[:k]
    signed = tuple(a - ndim if draw(st.booleans()) else a for a in chosen)
    return signed[0] if k == 1 and draw(st.booleans()) else signed


@st.composite
def x_and_axes(draw, **kwargs):
    x = draw(arrays(**kwargs))
    return x, draw(axes_for(x.ndim))


def moderate(dtype=np.float64, shape=()):
    return hnp.arrays(dtype, shape, elements=st.floats(-8, 8, width=8 * np.dtype(dtype).itemsize))


# --- exact references and honest tolerances ----------------------------------------------------------------------


def _axes_tuple(axis, ndim):
    return tuple(sorted(a % ndim for a in (axis if isinstance(axis, tuple) else (axis,))))


def slices(a: np.ndarray, axis) -> np.ndarray:
    """The normalized slices as rows: (number of slices, size of one slice)."""
    axes = _axes_tuple(axis, a.ndim)
    moved = np.moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
    n = int(np.prod([a.shape[i] for i in axes]))
    return moved.reshape(-1, n)


def frac_sqrt(f: Fraction) -> float:
    """√f for a Fraction whose numerator or denominator may not fit a float."""
    if f == 0:
        return 0.0
    return math.exp(0.5 * (math.log(f.numerator) - math.log(f.denominator)))


def out_dtype(x: np.ndarray) -> np.dtype:
    return x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)


def peak(a: np.ndarray) -> float:
    """max |a| ignoring NaN (NaN slices are compared separately: assert_allclose wants them in the same places)."""
    return float(np.max(np.abs(np.nan_to_num(a.astype(np.float64), nan=0.0)), initial=0.0))


def elem_err(dtype, n: int, magnitude: float) -> float:
    """Largest error allowed in one output element of size ≤ `magnitude`: rounding to `dtype` (half an ulp,
    or half the subnormal spacing) plus the float64 work on a slice of n values."""
    info = np.finfo(dtype)
    f64 = np.finfo(np.float64).eps
    m = max(magnitude, 1.0)
    return float(info.eps) * m + float(info.smallest_subnormal) + 16 * n * f64 * m


# --- P1: per-slice mean ≈ 0 and variance ≈ σ²/(σ²+ε) ------------------------------------------------------------


@by_family
@given(data=st.data(), eps=st.sampled_from(EPS_VALUES))
def test_p1_slices_have_mean_zero_and_variance_ratio(family, data, eps):
    x, axis = data.draw(x_and_axes(dtypes=FAMILIES[family]))
    y = lnlib.layer_norm(x, eps=eps, axis=axis)
    assert y.shape == x.shape and y.dtype == out_dtype(x)
    for row_x, row_y in zip(slices(x, axis), slices(y, axis), strict=True):
        _, var = exact_moments(row_x)
        if var == 0 and eps == 0:
            continue  # 0/0: no defined answer
        ratio = var / (var + Fraction(eps))
        n = row_x.size
        e = elem_err(y.dtype, n, float(np.max(np.abs(row_y.astype(np.float64)))))
        mean_y, var_y = exact_moments(row_y)
        assert abs(float(mean_y)) <= e, (row_x, row_y)
        assert abs(float(var_y - ratio)) <= 2 * e + e * e, (row_x, row_y, float(ratio))


# --- P2, P3: invariance to a positive scale and a shift per slice ------------------------------------------------


@given(x_and_axes(), st.sampled_from(EPS_VALUES), st.integers(-6, 6), st.integers(1, 3))
def test_p2_invariant_to_a_positive_scale(xa, eps, k, int_factor):
    """layer_norm(a·x, ε·a²) == layer_norm(x, ε). a = 2^k for floats (exact), a small int for ints."""
    x, axis = xa
    if x.dtype.kind == "f":
        a = 2.0**k
        with np.errstate(all="ignore"):
            scaled = (x.astype(np.float64) * a).astype(x.dtype)
        assume(np.all(np.isfinite(scaled)) and np.array_equal(scaled.astype(np.float64) / a, x.astype(np.float64)))
    else:
        a = float(int_factor)
        wide = x.astype(object) * int_factor
        info = np.iinfo(x.dtype)
        assume(all(info.min <= v <= info.max and abs(v) <= EXACT_INT for v in wide.ravel()))
        scaled = wide.astype(x.dtype)
    y1 = lnlib.layer_norm(x, eps=eps, axis=axis)
    y2 = lnlib.layer_norm(scaled, eps=eps * a * a, axis=axis)
    n = slices(x, axis).shape[1]
    e = elem_err(y1.dtype, n, peak(y1))
    np.testing.assert_allclose(y2.astype(np.float64), y1.astype(np.float64), rtol=0, atol=2 * e)


@given(x_and_axes(dtypes=FLOAT_DTYPES), st.sampled_from(EPS_VALUES), st.data())
def test_p3_invariant_to_a_shift_per_slice(xa, eps, data):
    """layer_norm(x + b) == layer_norm(x) with one b per slice, up to the rounding of x + b itself."""
    x, axis = xa
    axes = _axes_tuple(axis, x.ndim)
    bshape = tuple(1 if i in axes else s for i, s in enumerate(x.shape))
    b = data.draw(hnp.arrays(x.dtype, bshape, elements=_elements(x.dtype)))
    with np.errstate(all="ignore"):
        shifted = (x + b).astype(x.dtype)
    assume(np.all(np.isfinite(shifted)))
    y1 = lnlib.layer_norm(x, eps=eps, axis=axis)
    y2 = lnlib.layer_norm(shifted, eps=eps, axis=axis)
    info = np.finfo(x.dtype)
    for row_x, row_s, r1, r2 in zip(*(slices(a, axis) for a in (x, shifted, y1, y2)), strict=True):
        _, var = exact_moments(row_x)
        s = frac_sqrt(var + Fraction(eps))
        if s == 0 or (eps == 0 and np.all(row_s == row_s[0])):
            continue  # 0/0, before or after the shift (x + b may round to a constant row)
        # the inputs differ by the rounding of x + b: at most half an ulp of |x + b| per element
        dx = float(info.eps) * float(np.max(np.abs(row_s.astype(np.float64)))) + float(info.smallest_subnormal)
        cond = 2 * dx / s * (1 + math.sqrt(row_x.size))
        e = elem_err(x.dtype, row_x.size, math.sqrt(row_x.size))
        np.testing.assert_allclose(r2.astype(np.float64), r1.astype(np.float64), rtol=0, atol=2 * e + 1.01 * cond)


# --- P4: layer_norm == layer_norm_steps, and the stage functions agree with the steps ----------------------------


@given(arrays(), st.sampled_from(EPS_VALUES), st.booleans(), st.data())
def test_p4_layer_norm_equals_layer_norm_steps(x, eps, affine, data):
    d = x.shape[-1]
    gamma = data.draw(moderate(out_dtype(x), (d,))) if affine else None
    beta = data.draw(moderate(out_dtype(x), (d,))) if affine else None
    y = lnlib.layer_norm(x, gamma, beta, eps=eps)
    steps = lnlib.layer_norm_steps(x, gamma, beta, eps=eps)
    assert steps.output.dtype == y.dtype and steps.output.shape == y.shape
    e = elem_err(y.dtype, d, 8 * math.sqrt(d) + 8)
    np.testing.assert_allclose(steps.output.astype(np.float64), y.astype(np.float64), rtol=0, atol=2 * e)
    # each stage function returns the corresponding intermediate (same dtype, same values)
    for name, func in [
        ("mean", lnlib.mean),
        ("centered", lnlib.center),
        ("variance", lnlib.variance),
        ("std", lnlib.std),
    ]:
        got, want = func(x), getattr(steps, name)
        assert got.dtype == want.dtype and got.shape == want.shape, name
        np.testing.assert_allclose(
            got.astype(np.float64),
            want.astype(np.float64),
            rtol=4 * np.finfo(got.dtype).eps,
            atol=float(np.finfo(got.dtype).smallest_subnormal),
            err_msg=name,
        )
    np.testing.assert_allclose(
        lnlib.normalize(x, eps=eps).astype(np.float64), steps.normalized.astype(np.float64), rtol=0, atol=2 * e
    )
    np.testing.assert_array_equal(steps.x, x)


# --- P5: batch_norm over axis 0 == layer_norm of the transpose ---------------------------------------------------


@given(arrays(min_dims=1, max_dims=3), st.sampled_from(EPS_VALUES))
def test_p5_batch_norm_is_layer_norm_of_the_transpose(x, eps):
    assume(x.shape[0] >= 2)
    bn = lnlib.batch_norm(x, eps=eps, axis=0)
    ln = np.moveaxis(lnlib.layer_norm(np.moveaxis(x, 0, -1), eps=eps), -1, 0)
    assert bn.dtype == ln.dtype and bn.shape == ln.shape
    e = elem_err(bn.dtype, x.shape[0], math.sqrt(x.shape[0]))
    np.testing.assert_allclose(bn.astype(np.float64), ln.astype(np.float64), rtol=0, atol=2 * e)


# --- P6: layer_norm_backward == a numerical gradient --------------------------------------------------------------


@st.composite
def well_conditioned(draw):
    """float64 arrays with moderate values: central differences are only accurate where the slice's spread
    is not lost in its offset (range robustness is P1/P7's job)."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4))
    x = draw(hnp.arrays(np.float64, shape, elements=st.floats(-100, 100)))
    return x, draw(axes_for(x.ndim))


@given(well_conditioned(), st.sampled_from([0.0, 1e-5, 0.1, 1.0]), st.data())
def test_p6_backward_matches_central_differences(xa, eps, data):
    x, axis = xa
    sx = slices(x, axis)
    sd = [frac_sqrt(exact_moments(r)[1] + Fraction(eps)) for r in sx]
    assume(min(sd) > 1e-2)
    shape_g = tuple(x.shape[a] for a in _axes_tuple(axis, x.ndim))
    dy = data.draw(moderate(np.float64, x.shape))
    gamma = data.draw(moderate(np.float64, shape_g))
    beta = data.draw(moderate(np.float64, shape_g))

    def loss(xx=x, g=gamma, b=beta):
        return float(np.sum(dy * lnlib.layer_norm(xx, g, b, eps=eps, axis=axis)))

    dx, dgamma, dbeta = lnlib.layer_norm_backward(dy, x, gamma, eps=eps, axis=axis)
    h = 1e-4 * min(sd)
    num_dx = grad.numerical_gradient(lambda v: loss(xx=v), x, h=h)
    num_dg = grad.numerical_gradient(lambda v: loss(g=v), gamma, h=1e-3)
    num_db = grad.numerical_gradient(lambda v: loss(b=v), beta, h=1e-3)
    # error of central differences: truncation (h/σ)²·|∂y/∂x| and rounding ε₆₄·|L|/h
    n = x.size
    big_l = n * 8 * (8 * math.sqrt(n) + 8)
    scale = 8 * 8 / min(sd)
    tol = 10 * ((h / min(sd)) ** 2 * scale * n + np.finfo(np.float64).eps * big_l / h)
    np.testing.assert_allclose(dx, num_dx, rtol=1e-6, atol=tol)
    np.testing.assert_allclose(dgamma, num_dg, rtol=1e-6, atol=1e-9 * big_l)
    np.testing.assert_allclose(dbeta, num_db, rtol=1e-6, atol=1e-9 * big_l)
    # the gradient of a shift-invariant function sums to 0 over each slice
    for row in slices(dx, axis):
        assert abs(math.fsum(row)) <= 1e-9 * (1 + float(np.sum(np.abs(row))))


# --- P7, P8: finite in → finite out (ε > 0); never a RuntimeWarning -----------------------------------------------


def _whole_api(x, eps, axis):
    """Call every public numeric function on x; return the outputs that must be finite when ε > 0."""
    outs = [
        lnlib.layer_norm(x, eps=eps, axis=axis),
        lnlib.standardize(x, axis, eps=eps),
        lnlib.rms_norm(x, eps=eps, axis=axis),
        lnlib.normalize(x, eps=eps),
    ]
    steps = lnlib.layer_norm_steps(x, eps=eps)
    outs += [steps.normalized, steps.output]
    # statistics can honestly overflow the dtype (the variance of ±3e38 in float32): called, not checked
    for f in (lnlib.mean, lnlib.center, lnlib.variance, lnlib.std):
        f(x)
    lnlib.affine(x)
    if x.shape[0] >= 2:
        outs.append(lnlib.batch_norm(x, eps=eps))
    if x.ndim in (2, 3) and np.prod(x.shape[:-1]) >= 2:
        bn = lnlib.BatchNorm(x.shape[-1], eps=eps)
        outs.append(bn(x))
        bn.eval()(x)  # eval mode: running statistics of a huge batch may be inf, honestly
    dy = np.ones_like(x, dtype=np.float64)
    if eps >= 1e-8:
        outs.append(lnlib.layer_norm_backward(dy, x, eps=eps, axis=axis)[0].astype(np.float64))
    else:
        lnlib.layer_norm_backward(dy, x, eps=eps, axis=axis)
    return outs


@by_family
@given(data=st.data(), eps=st.sampled_from([e for e in EPS_VALUES if e > 0]))
def test_p7_finite_input_gives_finite_output(family, data, eps):
    x, axis = data.draw(x_and_axes(dtypes=FAMILIES[family]))
    for out in _whole_api(x, eps, axis):
        assert np.all(np.isfinite(out)), out


@by_family
@given(data=st.data(), eps=st.sampled_from(EPS_VALUES))
def test_p8_no_runtime_warning_for_finite_input(family, data, eps):
    x, axis = data.draw(x_and_axes(dtypes=FAMILIES[family]))
    with warnings.catch_warnings():
        strict_warnings()
        _whole_api(x, eps, axis)


# --- P9: inputs never mutated, outputs never aliased --------------------------------------------------------------


@given(arrays(dtypes=FLOAT_DTYPES + [np.int32]), st.sampled_from(EPS_VALUES), st.data())
def test_p9_inputs_are_never_mutated(x, eps, data):
    d = x.shape[-1]
    gamma = data.draw(moderate(np.float64, (d,)))
    beta = data.draw(moderate(np.float64, (d,)))
    dy = data.draw(moderate(np.float64, x.shape))
    before = [a.copy() for a in (x, gamma, beta, dy)]
    calls = [
        lambda: lnlib.layer_norm(x, gamma, beta, eps=eps),
        lambda: lnlib.layer_norm_steps(x, gamma, beta, eps=eps),
        lambda: lnlib.standardize(x, -1, eps=eps),
        lambda: lnlib.rms_norm(x, gamma, eps=eps),
        lambda: lnlib.mean(x),
        lambda: lnlib.center(x),
        lambda: lnlib.variance(x),
        lambda: lnlib.std(x),
        lambda: lnlib.normalize(x, eps=eps),
        lambda: lnlib.affine(x, gamma, beta),
        lambda: lnlib.affine(x),
        lambda: lnlib.layer_norm_backward(dy, x, gamma, eps=eps),
    ]
    if x.shape[0] >= 2:
        calls.append(lambda: lnlib.batch_norm(x, eps=eps))
    if x.ndim == 2 and x.shape[0] >= 2:
        bn = lnlib.BatchNorm(d, eps=eps)
        bn.gamma, bn.beta = gamma, beta
        calls += [lambda: bn(x), lambda: bn.eval()(x)]
    with np.errstate(all="ignore"):
        for call in calls:
            result = call()
            outs = result if isinstance(result, tuple) else [result]
            if isinstance(result, lnlib.LayerNormSteps):
                outs = [getattr(result, f) for f in result.__dataclass_fields__ if f != "eps"]
            for out in outs:
                for arg in (x, gamma, beta, dy):
                    assert not np.shares_memory(out, arg), "an output shares memory with an input"
            for arg, old in zip((x, gamma, beta, dy), before, strict=True):
                assert arg.dtype == old.dtype and np.array_equal(arg, old, equal_nan=True)


# --- P10: RMSNorm -------------------------------------------------------------------------------------------------


@by_family
@given(data=st.data(), eps=st.sampled_from(EPS_VALUES))
def test_p10_rms_norm_mean_square(family, data, eps):
    x, axis = data.draw(x_and_axes(dtypes=FAMILIES[family]))
    y = lnlib.rms_norm(x, eps=eps, axis=axis)
    assert y.dtype == out_dtype(x)
    for row_x, row_y in zip(slices(x, axis), slices(y, axis), strict=True):
        values = [Fraction(int(v)) if isinstance(v, np.integer) else Fraction(float(v)) for v in row_x]
        ms = sum((v * v for v in values), Fraction(0)) / len(values)
        if ms == 0 and eps == 0:
            continue
        ratio = ms / (ms + Fraction(eps))
        e = elem_err(y.dtype, row_x.size, float(np.max(np.abs(row_y.astype(np.float64)))))
        got = sum((Fraction(float(v)) ** 2 for v in row_y), Fraction(0)) / row_y.size
        bound = float(np.max(np.abs(row_y.astype(np.float64))))
        assert abs(float(got - ratio)) <= 2 * bound * e + e * e, (row_x, row_y, float(ratio))


# --- P11: big inputs (the compiled fast path of layer_norm) give the reference numbers ---------------------------


@given(
    arrays(dtypes=[np.float32, np.float64], min_dims=2, max_dims=2, max_side=8),
    st.sampled_from(EPS_VALUES),
    st.booleans(),
    st.integers(1, 3),
    st.data(),
)
def test_p11_big_inputs_match_the_reference_path(x, eps, affine, lead, data):
    """Tile a drawn block to ≥ 4096 values (the size where layer_norm switches to its fast path) and compare
    with layer_norm_steps, which always takes the reference path; also over the last two axes."""
    reps = -(-4096 // x.size)
    big = np.concatenate([x] * reps, axis=0)[None].repeat(lead, axis=0)  # (lead, rows, d)
    d = x.shape[-1]
    gamma = data.draw(moderate(x.dtype, (d,))) if affine else None
    beta = data.draw(moderate(x.dtype, (d,))) if affine else None
    with warnings.catch_warnings():
        strict_warnings()
        y = lnlib.layer_norm(big, gamma, beta, eps=eps)
        ref = lnlib.layer_norm_steps(big, gamma, beta, eps=eps).output
        y2 = lnlib.layer_norm(big, eps=eps, axis=(-2, -1))
        ref2 = lnlib.standardize(big, (1, 2), eps=eps)
    assert y.dtype == ref.dtype and y.shape == big.shape
    # the same bits on both paths (issue 11, item 3), not merely close
    assert np.array_equal(y, ref, equal_nan=True)
    assert np.array_equal(y2, ref2, equal_nan=True)


# --- P12: a slice depends on that slice alone, bit for bit ---------------------------------------------------------


@given(
    arrays(dtypes=[np.float16, np.float32, np.float64], min_dims=2, max_dims=2, max_side=8),
    st.sampled_from(EPS_VALUES),
    st.sampled_from([None, np.float16, np.float32, np.float64]),
    st.data(),
)
def test_p12_a_slice_depends_on_itself_alone(x, eps, pdtype, data):
    """Any batch size (across the compiled loop's size threshold), row order and memory layout: identical bits."""
    d = x.shape[-1]
    gamma = data.draw(moderate(pdtype, (d,))) if pdtype else None
    beta = data.draw(moderate(pdtype, (d,))) if pdtype else None
    reps = -(-4096 // x.size)
    big = np.concatenate([x] * reps, axis=0)
    with warnings.catch_warnings():
        strict_warnings()
        small = lnlib.layer_norm(x, gamma, beta, eps=eps)
        tiled = lnlib.layer_norm(big, gamma, beta, eps=eps)
        k = data.draw(st.integers(1, x.shape[0]))
        parts = [lnlib.layer_norm(x[:k], gamma, beta, eps=eps), lnlib.layer_norm(x[k:], gamma, beta, eps=eps)]
        flipped = lnlib.layer_norm(np.asfortranarray(x[::-1]), gamma, beta, eps=eps)[::-1]
    for other in (tiled[: x.shape[0]], tiled[-x.shape[0] :], np.concatenate(parts), flipped):
        assert other.dtype == small.dtype and np.array_equal(other, small, equal_nan=True)


@pytest.mark.skipif(bool(os.environ.get("LNLIB_HYPOTHESIS_PROFILE")), reason="a bug-hunting profile was chosen")
def test_the_profile_is_fixed():
    """CI never depends on luck: the loaded profile is derandomized and keeps no example database."""
    from hypothesis import settings

    assert settings().derandomize is True and settings().database is None and settings().deadline is None


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_input_is_returned_as_float64(dtype):
    assert lnlib.layer_norm(np.array([1, 2, 3], dtype=dtype)).dtype == np.float64
