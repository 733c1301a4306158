"""BatchNorm's state rule (issue 30, items 3 and 4): a call either succeeds or changes nothing, the module never
becomes unusable, and its running statistics are exact at every scale from 1e-300 to 1e300.

The reference keeps the running statistics as exact fractions; lnlib's float64 views, its eval output and its
update rule are compared with it. Written from PyTorch's documented rule, independently of lnlib's code.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lnlib
from lnlib import _stats
from lnlib.training import MLP

MAX = Fraction(np.finfo(np.float64).max)


def to_float(q: Fraction) -> float:
    """The float64 nearest to q, ±inf beyond the range (Fraction → float rounds correctly)."""
    if abs(q) > MAX:
        return math.inf if q > 0 else -math.inf
    return float(q)


def ratio_sqrt(num: Fraction, d: Fraction) -> float:
    """num/√d as float64 to about 1 ulp, for any size (scaled by an exact power of 4 before the float root)."""
    if num == 0:
        return 0.0 if d > 0 else math.nan
    if d == 0:
        return math.copysign(math.inf, num)
    q = num * num / d
    k = (q.numerator.bit_length() - q.denominator.bit_length()) // 2
    root = math.sqrt(float(q / Fraction(4) ** k))
    try:
        return math.copysign(math.ldexp(root, k), num)
    except OverflowError:
        return math.copysign(math.inf, num)


class ExactBN:
    """PyTorch's BatchNorm rule on fractions: features last, running variance from the unbiased batch variance."""

    def __init__(self, c, eps, momentum):
        self.mean, self.var = [Fraction(0)] * c, [Fraction(1)] * c
        self.eps, self.m = Fraction(eps), Fraction(momentum)
        self.weight_old = Fraction(1 - momentum)  # lnlib, like PyTorch, computes 1 − momentum in float64

    def train(self, x):
        cols = np.asarray(x, dtype=np.float64).reshape(-1, x.shape[-1]).T
        for j, col in enumerate(cols):
            vals = [Fraction(float(v)) for v in col]
            n = len(vals)
            mu = sum(vals) / n
            unbiased = sum((v - mu) ** 2 for v in vals) / (n - 1)
            self.mean[j] = self.weight_old * self.mean[j] + self.m * mu
            self.var[j] = self.weight_old * self.var[j] + self.m * unbiased

    def eval(self, x):
        flat = np.asarray(x, dtype=np.float64).reshape(-1, x.shape[-1])
        out = np.empty_like(flat)
        for i, row in enumerate(flat):
            for j, v in enumerate(row):
                if not np.isfinite(v):  # NaN stays NaN, ±inf − μ is ±inf, over a finite √(var + ε) or 0
                    out[i, j] = v
                    continue
                out[i, j] = ratio_sqrt(Fraction(float(v)) - self.mean[j], self.var[j] + self.eps)
        return out.reshape(x.shape)


def close(got, want, rel, what):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    both_inf = np.isinf(got) & np.isinf(want) & (np.sign(got) == np.sign(want))
    tiny = np.finfo(np.float64).tiny
    with np.errstate(invalid="ignore", over="ignore"):
        ok = both_inf | (np.abs(got - want) <= rel * np.abs(want) + 8 * tiny)
    assert ok.all(), f"{what}: got {got.tolist()}, want {want.tolist()}"


MOMENTA = st.one_of(
    st.sampled_from([0.0, 1.0, 0.1, 0.5, 5e-324, 1e-300, 1 - 2**-53]),
    st.floats(0.0, 1.0, allow_subnormal=True),
)
EPSILONS = st.sampled_from([0.0, 1e-5, 1.0, 1e-300])


@st.composite
def batches(draw, c):
    """(n, c) batches, each column at its own scale 10^k, −300 ≤ k ≤ 300; sometimes a NaN or ±inf."""
    n = draw(st.integers(2, 4))
    unit = st.floats(-1.0, 1.0, allow_nan=False, allow_subnormal=False)
    x = np.array([[draw(unit) for _ in range(c)] for _ in range(n)])
    scales = [10.0 ** draw(st.integers(-300, 300)) for _ in range(c)]
    x = x * np.array(scales)
    if draw(st.integers(0, 5)) == 0:
        x[draw(st.integers(0, n - 1)), draw(st.integers(0, c - 1))] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    return x


def state(bn):
    return {
        name: repr(getattr(bn, name))
        for name in ("running_mean", "running_var", "gamma", "beta", "eps", "momentum", "training")
    }


@given(st.data(), MOMENTA, EPSILONS, st.integers(1, 3))
def test_every_call_succeeds_exactly_or_changes_nothing(data, momentum, eps, c):
    """Training calls on finite and non-finite batches at every scale, then eval: exact, or refused cleanly."""
    bn, ref = lnlib.BatchNorm(c, eps=eps, momentum=momentum), ExactBN(c, eps, momentum)
    for _ in range(data.draw(st.integers(1, 3))):
        x = data.draw(batches(c))
        before = state(bn)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # valid input never warns
            if np.isfinite(x).all():
                bn(x)
                ref.train(x)
            else:
                with pytest.raises(ValueError, match="^x: "):
                    bn(x)
                assert state(bn) == before, "a refused call changed the module"
        close(bn.running_var, [to_float(v) for v in ref.var], 1e-13, "running_var")
        scale = [abs(m) for m in ref.mean]  # the mean may cancel: compare relative to the batch peak too
        peak = np.max(np.abs(np.where(np.isfinite(x), x, 0)), axis=0)
        want_mean = np.array([to_float(v) for v in ref.mean])
        err = np.abs(bn.running_mean - want_mean)
        bound = 1e-13 * (np.array([to_float(s) for s in scale]) + float(ref.m) * peak) + 8 * np.finfo(float).tiny
        assert (err <= bound).all(), (bn.running_mean, want_mean)
    x = data.draw(batches(c))
    bn.eval()
    with warnings.catch_warnings():
        if eps > 0:
            warnings.simplefilter("error")
        y = bn(x)
    want = ref.eval(x)
    finite = np.isfinite(x)
    # the error of the running mean (above), carried through 1/√(var + ε), plus a few ulp of the result
    sd = np.array([ratio_sqrt(Fraction(1), v + ref.eps) for v in ref.var])  # 1/√(var + ε)
    mean_err = 1e-13 * (np.array([to_float(abs(m)) for m in ref.mean]) + np.max(np.abs(np.where(finite, x, 0))))
    with np.errstate(over="ignore", invalid="ignore"):
        bound = 1e-12 * np.abs(want) + mean_err * sd + 8 * np.finfo(float).tiny
        ok = (np.abs(y - want) <= bound) | (np.isnan(y) & np.isnan(want)) | (y == want)
    assert ok.all(), (y.tolist(), want.tolist())
    assert np.isnan(y[~finite]).sum() == np.isnan(want[~finite]).sum()
    bn.train()
    bn(np.array([[1.0] * c, [2.0] * c]))  # still usable, whatever happened before


@pytest.mark.parametrize(
    ("momentum", "calls", "want_var"),
    [(0.0, 1, [1.0, 1.0]), (1.0, 2, [2e600, 0.5]), (0.5, 1, [1e600 + 0.5, 0.75])],
)
def test_the_issue_repro_at_1e300(momentum, calls, want_var):
    """Issue 30, item 3: momentum 0 gave running_var [nan, 1] (0·inf), momentum 1 the same on the second call."""
    bn = lnlib.BatchNorm(2, momentum=momentum)
    x = np.array([[1e300, 1.0], [-1e300, 2.0]])
    for _ in range(calls):
        bn(x)
    exact = ExactBN(2, 1e-5, momentum)
    for _ in range(calls):
        exact.train(x)
    assert not np.isnan(bn.running_var).any()
    assert bn.running_var[1] == pytest.approx(want_var[1], rel=1e-15)
    close(bn.running_var, [to_float(v) for v in exact.var], 1e-14, "running_var")
    y = bn.eval()(np.array([[5e299, 1.5], [-1e300, 0.0]]))
    close(y, exact.eval(np.array([[5e299, 1.5], [-1e300, 0.0]])), 1e-13, "eval")


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e-160, 1e154, 1e200, 1e300])
@pytest.mark.parametrize("eps", [0.0, 1e-5])
def test_eval_after_one_batch_matches_the_exact_value_at_every_scale(scale, eps):
    """Issue 30, item 4: at 1e154 running_var overflowed (eval gave 0), at 1e-200 with ε = 0 it underflowed
    (±inf and a RuntimeWarning), at 1e-160 a subnormal lost digits (0.2773464 instead of 0.2773501)."""
    x = np.array([[1.0, -3.0], [2.0, 4.0], [-1.5, 0.5]]) * scale
    bn, exact = lnlib.BatchNorm(2, eps=eps, momentum=1.0), ExactBN(2, eps, 1.0)
    bn(x)
    exact.train(x)
    probe = np.array([[1.25, -2.0], [0.0, 3.5]]) * scale
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = bn.eval()(probe)
    want = exact.eval(probe)
    if eps == 0 or scale > 1e-2:  # ε negligible: the same answers as the unscaled batch (about 0.28, −0.89, …)
        unit = ExactBN(2, 0.0, 1.0)
        unit.train(x / scale)
        close(want, unit.eval(probe / scale), 1e-9, "reference")
    close(y, want, 1e-13, f"eval at {scale:g}")


def test_eval_is_the_plain_formula_bit_for_bit_at_ordinary_scales():
    """In the range where float64 needs no help, the scaled eval rounds exactly like (x − μ)/√(σ² + ε)."""
    rng = np.random.default_rng(30)
    bn = lnlib.BatchNorm(5, momentum=0.3)
    for _ in range(4):
        bn(rng.normal(3.0, 2.0, size=(7, 5)))
    x = rng.normal(3.0, 2.0, size=(6, 5))
    plain = (x - bn.running_mean) / np.sqrt(bn.running_var + bn.eps)
    np.testing.assert_array_equal(bn.eval()(x), plain)


FINITE_NORMAL = st.floats(-1e100, 1e100, allow_nan=False, allow_subnormal=False).filter(
    lambda v: v == 0 or abs(v) > 1e-100
)


@given(
    st.lists(st.tuples(FINITE_NORMAL, FINITE_NORMAL), min_size=1, max_size=6),
    st.floats(0.0, 1.0).filter(lambda m: m == 0 or m > 1e-200),
    st.one_of(st.none(), st.integers(2, 1000)),
)
def test_the_scaled_update_is_training_rule_bit_for_bit(pairs, momentum, count):
    """lnlib.BatchNorm's scaled update and training.py's float64 rule are one rule: the same bits in the range
    where no intermediate leaves the normal numbers."""
    old, batch = (np.array(v) for v in zip(*pairs, strict=True))
    if count is not None:
        old, batch = np.abs(old), np.abs(batch)
    plain = _stats.running_update(old, batch, momentum, count)
    scaled = _stats.Scaled.of(old).updated(_stats.Scaled.of(batch), momentum, count).value()
    np.testing.assert_array_equal(scaled, plain)


def test_training_batchnorm_uses_the_rule_unchanged():
    """training.py's BatchNorm: the running statistics of one step are 0.9·old + 0.1·batch (unbiased variance)."""
    rng = np.random.default_rng(1)
    model = MLP("batch", 1, 3, rng)
    x = rng.normal(size=(5, 2))
    z = x @ model.params["w0"][0] + model.params["b0"][0]
    model._forward(x, "train")
    n = len(z)
    np.testing.assert_array_equal(model.bn_mean[0, 0, 0], 0.9 * 0.0 + 0.1 * (np.add.reduce(z, axis=0) / n))
    var = np.add.reduce((z - np.add.reduce(z, axis=0) / n) ** 2, axis=0) / n
    np.testing.assert_allclose(model.bn_var[0, 0, 0], 0.9 + 0.1 * var * n / (n - 1), rtol=1e-15)


@pytest.mark.parametrize("momentum", [0.0, 0.1, 0.5, 1.0])
@pytest.mark.parametrize("scale", [1e-100, 1.0, 1e100])
def test_matches_torch_at_scales_torch_can_represent(momentum, scale):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    bn = lnlib.BatchNorm(3, momentum=momentum)
    tbn = torch.nn.BatchNorm1d(3, momentum=momentum, dtype=torch.float64)
    for _ in range(3):
        x = rng.normal(2.0, 3.0, size=(5, 3)) * scale
        np.testing.assert_allclose(bn(x), tbn(torch.tensor(x)).detach().numpy(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(bn.running_var, tbn.running_var.numpy(), rtol=1e-12)
        np.testing.assert_allclose(bn.running_mean, tbn.running_mean.numpy(), rtol=1e-12, atol=1e-12 * scale)
    x = rng.normal(2.0, 3.0, size=(4, 3)) * scale
    bn.eval(), tbn.eval()
    np.testing.assert_allclose(bn(x), tbn(torch.tensor(x)).detach().numpy(), rtol=1e-9, atol=1e-12)


def test_state_is_checked_when_set_and_views_are_read_only():
    """Issue 30, item 4: bn.eps = −1, bn.momentum = 2, nan or None were accepted and broke later calls."""
    bn = lnlib.BatchNorm(3)
    for name, value, exc in [
        ("eps", -1, ValueError),
        ("eps", float("nan"), ValueError),
        ("momentum", 2, ValueError),
        ("momentum", None, TypeError),
        ("momentum", "0.1", TypeError),
        ("running_var", [1.0, np.inf, -np.inf], ValueError),
    ]:
        with pytest.raises(exc, match=f"^{name}:"):
            setattr(bn, name, value)
    assert (bn.eps, bn.momentum) == (1e-5, 0.1)
    with pytest.raises(ValueError):
        bn.running_mean[0] = np.nan  # a read-only view: assign a whole new value instead
    bn.running_var = [1.0, np.inf, 2.0]  # +inf is an honest running variance (data beyond float64)
    assert np.isfinite(bn.eval()(np.ones((2, 3)))).all()
    with pytest.raises(ValueError, match="^num_features:"):
        lnlib.BatchNorm(10**400)
