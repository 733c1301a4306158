"""Every finite float64 input is right at any scale (issue 11, item 2): relative error ≤ 1e-12 from 1e-300 to 1e300,
with ε > 0 and ε = 0, for the forward pass, every stage, the backward pass, the Jacobian and RMSNorm.

The references are exact: the float64 inputs as `decimal.Decimal` numbers, worked out with 60 significant digits
here, independently of lnlib (no rescaling trick is needed: Decimal exponents go far beyond float64's).
"""

from __future__ import annotations

import decimal
from decimal import Decimal

import numpy as np
import pytest

import lnlib

CTX = decimal.Context(prec=60, Emin=-99999, Emax=99999)
RTOL = 1e-12
TINY = 2.0**-1022  # below this a float64 result is subnormal: only its absolute error (a few 2⁻¹⁰⁷⁴) can be asked

SCALES = [1e-300, 1e-250, 2e-200, 1e-157, 1e-100, 1e-10, 1.0, 1e10, 1e100, 1e157, 2e200, 1e250, 1e300]
PATTERNS = {
    "1234": [1.0, 2.0, 3.0, 4.0],
    "mixed": [3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0, -6.0],
    "offset": [1.0, 1.0 + 2e-9, 1.0 + 5e-9, 1.0 + 7e-9, 1.0 + 1e-8],  # 8 shared digits: μ is hard
    "random": list(np.random.default_rng(3).normal(size=7)),
}
EPS = [0.0, 1e-5, 1.0]


def D(v) -> Decimal:
    return CTX.create_decimal(float(v))


def sqrt(v: Decimal) -> Decimal:
    return CTX.sqrt(v)


def exact_forward(x, eps, gamma=None, rms=False):
    """Exact μ, σ², √(σ² + ε), x̂ (or the RMSNorm output) of one float64 row, as Decimals."""
    v = [D(a) for a in x]
    n = Decimal(len(v))
    if rms:
        ms = CTX.divide(sum((CTX.multiply(a, a) for a in v), Decimal(0)), n)
        root = sqrt(CTX.add(ms, D(eps)))
        g = [Decimal(1)] * len(v) if gamma is None else [D(a) for a in gamma]
        return [CTX.multiply(CTX.divide(a, root), gi) for a, gi in zip(v, g, strict=True)]
    mu = CTX.divide(sum(v, Decimal(0)), n)
    var = CTX.divide(sum((CTX.power(CTX.subtract(a, mu), 2) for a in v), Decimal(0)), n)
    std_eps = sqrt(CTX.add(var, D(eps)))
    xhat = [CTX.divide(CTX.subtract(a, mu), std_eps) for a in v]
    return mu, var, std_eps, xhat


def exact_backward(dy, x, eps, gamma):
    _, _, std_eps, xhat = exact_forward(x, eps)
    n = Decimal(len(x))
    g = [CTX.multiply(D(a), D(b)) for a, b in zip(dy, gamma, strict=True)]
    mg = CTX.divide(sum(g, Decimal(0)), n)
    mgx = CTX.divide(sum((CTX.multiply(a, b) for a, b in zip(g, xhat, strict=True)), Decimal(0)), n)
    return [
        CTX.divide(CTX.subtract(CTX.subtract(gi, mg), CTX.multiply(xi, mgx)), std_eps)
        for gi, xi in zip(g, xhat, strict=True)
    ]


def assert_rel(got, exact, what):
    """Elementwise: |got − exact| ≤ 1e-12·|exact|; where the exact value is beyond float64 the honest inf/0."""
    got = np.atleast_1d(np.asarray(got, dtype=np.float64))
    exact = list(exact) if isinstance(exact, list) else [exact]
    assert got.shape == (len(exact),), (what, got.shape)
    for i, (g, e) in enumerate(zip(got, exact, strict=True)):
        ef = float(e)  # correctly rounded; inf or 0 beyond the range
        if abs(ef) < TINY:
            assert abs(g - ef) <= 4 * 2.0**-1074, f"{what}[{i}]: got {g!r}, exact {e:.6e}"
        elif np.isinf(ef):
            assert g == ef, f"{what}[{i}]: got {g!r}, exact {e:.6e} is beyond float64"
        else:
            assert abs(Decimal(g) - e) <= Decimal(RTOL) * abs(e), f"{what}[{i}]: got {g!r}, exact {e:.17e}"


CASES = [(p, s) for p in PATTERNS for s in SCALES]
IDS = [f"{p}-{s:g}" for p, s in CASES]


@pytest.mark.parametrize("eps", EPS)
@pytest.mark.parametrize(("pattern", "scale"), CASES, ids=IDS)
def test_forward_and_every_stage(pattern, scale, eps):
    x = np.array(PATTERNS[pattern]) * scale
    mu, var, std_eps, xhat = exact_forward(x, eps)
    steps = lnlib.layer_norm_steps(x, eps=eps)
    assert_rel(steps.mean, mu, "mean")
    assert_rel(steps.centered, [CTX.subtract(D(a), mu) for a in x], "centered")
    assert_rel(steps.variance, var, "variance")
    assert_rel(steps.std, sqrt(var), "std")
    assert_rel(steps.std_eps, std_eps, "std_eps")
    assert_rel(steps.normalized, xhat, "normalized")
    assert_rel(steps.output, xhat, "output")
    for name, y in {
        "layer_norm": lnlib.layer_norm(x, eps=eps),
        "standardize": lnlib.standardize(x, 0, eps=eps),
        "normalize": lnlib.normalize(x, eps=eps),
        "layer_norm 2-D": lnlib.layer_norm(np.stack([x, x[::-1]]), eps=eps)[0],
        "layer_norm big": lnlib.layer_norm(np.tile(x, (4096 // x.size + 1, 1)), eps=eps)[-1],
        "batch_norm": lnlib.batch_norm(x[:, None], eps=eps)[:, 0],
    }.items():
        assert_rel(y, xhat, name)
    gamma = np.linspace(0.5, 2.0, x.size)
    assert_rel(
        lnlib.layer_norm(x, gamma, eps=eps),
        [CTX.multiply(a, D(g)) for a, g in zip(xhat, gamma, strict=True)],
        "layer_norm with gamma",
    )


@pytest.mark.parametrize("eps", EPS)
@pytest.mark.parametrize(("pattern", "scale"), CASES, ids=IDS)
def test_backward_and_jacobian(pattern, scale, eps):
    x = np.array(PATTERNS[pattern]) * scale
    d = x.size
    gamma = np.linspace(0.5, 2.0, d)
    dy = np.zeros(d)
    dy[0] = 1.0
    dx, dgamma, dbeta = lnlib.layer_norm_backward(dy, x, gamma, eps=eps)
    assert_rel(dx, exact_backward(dy, x, eps, gamma), "dx")
    xhat = exact_forward(x, eps)[3]
    assert_rel(dgamma[:1], xhat[:1], "dgamma")
    assert_rel(dbeta, [Decimal(int(a)) for a in dy], "dbeta")
    jac = lnlib.layer_norm_jacobian(x, gamma, eps=eps)
    for i in range(d):
        e = np.zeros(d)
        e[i] = 1.0
        assert_rel(jac[i], exact_backward(e, x, eps, gamma), f"jacobian row {i}")


@pytest.mark.parametrize("eps", EPS)
@pytest.mark.parametrize(("pattern", "scale"), CASES, ids=IDS)
def test_rms_norm(pattern, scale, eps):
    x = np.array(PATTERNS[pattern]) * scale
    assert_rel(lnlib.rms_norm(x, eps=eps), exact_forward(x, eps, rms=True), "rms_norm")
    gamma = np.linspace(-1.0, 2.0, x.size)
    assert_rel(
        lnlib.rms_norm(np.stack([x, x]), gamma, eps=eps)[1],
        exact_forward(x, eps, gamma, rms=True),
        "rms_norm with gamma",
    )


def test_the_issue_numbers():
    """The numbers quoted in issue 11 (item 2), exactly as the learner would type them."""
    x = [1e-300, 2e-300, 3e-300, 4e-300]
    assert lnlib.layer_norm_steps(x).std_eps == pytest.approx(0.0031622776601683794, rel=1e-15)
    dx = lnlib.layer_norm_backward([1, 0, 0, 0], x)[0]
    np.testing.assert_allclose(
        dx, [237.17082451262844, -79.05694150420949, -79.05694150420949, -79.05694150420949], rtol=1e-13
    )
    assert np.all(lnlib.layer_norm_jacobian(x) != 0)
    y = lnlib.rms_norm(x, eps=0)
    np.testing.assert_allclose(y, np.array([1, 2, 3, 4]) / np.sqrt(7.5), rtol=1e-15)
