"""layer_norm_backward and layer_norm_jacobian (notebook 12) against independent references.

References: central differences of the forward pass, PyTorch autograd (where installed), a Jacobian built by
finite differences, and the numbers worked by hand in notebook 12. Nothing here is copied from lnlib's output.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import numerical_jacobian

import lnlib
from lnlib.grad import layer_norm_jacobian, numerical_gradient

CASES = [  # (shape, axis)
    ((5,), -1),
    ((3, 4), -1),
    ((2, 3, 6), -1),
    ((2, 3, 6), (1, 2)),
    ((4, 3, 5), 1),
    ((4, 3, 5), (0, 2)),
]


def _loss(dy, gamma, beta, axis, eps):
    def f(x):
        return float(np.sum(dy * lnlib.layer_norm(x, gamma, beta, axis=axis, eps=eps)))

    return f


def _setup(shape, axis, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(2.0, 3.0, shape)
    dy = rng.normal(size=shape)
    axes = axis if isinstance(axis, tuple) else (axis,)
    pshape = tuple(shape[a] for a in axes)
    gamma = rng.normal(1.0, 0.5, pshape)
    beta = rng.normal(0.0, 0.5, pshape)
    return x, dy, gamma, beta


@pytest.mark.parametrize(("shape", "axis"), CASES)
@pytest.mark.parametrize("eps", [1e-5, 0.5])
def test_dx_matches_central_differences(shape, axis, eps):
    x, dy, gamma, beta = _setup(shape, axis, 1)
    dx, _, _ = lnlib.layer_norm_backward(dy, x, gamma, eps=eps, axis=axis)
    num = numerical_gradient(_loss(dy, gamma, beta, axis, eps), x, h=1e-5)
    np.testing.assert_allclose(dx, num, rtol=0, atol=1e-8)


@pytest.mark.parametrize(("shape", "axis"), CASES)
def test_dgamma_dbeta_match_central_differences(shape, axis):
    x, dy, gamma, beta = _setup(shape, axis, 2)
    _, dgamma, dbeta = lnlib.layer_norm_backward(dy, x, gamma, axis=axis)

    def by_gamma(g):
        return float(np.sum(dy * lnlib.layer_norm(x, g, beta, axis=axis)))

    def by_beta(b):
        return float(np.sum(dy * lnlib.layer_norm(x, gamma, b, axis=axis)))

    np.testing.assert_allclose(dgamma, numerical_gradient(by_gamma, gamma, h=1e-5), rtol=0, atol=1e-8)
    np.testing.assert_allclose(dbeta, numerical_gradient(by_beta, beta, h=1e-5), rtol=0, atol=1e-8)
    assert dgamma.shape == gamma.shape and dbeta.shape == beta.shape


@pytest.mark.parametrize(("shape", "axis"), CASES)
@pytest.mark.parametrize("with_gamma", [True, False])
def test_matches_torch_autograd(shape, axis, with_gamma):
    torch = pytest.importorskip("torch")
    x, dy, gamma, beta = _setup(shape, axis, 3)
    axes = tuple(sorted(a % len(shape) for a in (axis if isinstance(axis, tuple) else (axis,))))
    other = tuple(a for a in range(len(shape)) if a not in axes)
    perm = other + axes  # torch normalizes the trailing dims: move the normalized axes to the end
    tx = torch.tensor(np.transpose(x, perm), dtype=torch.float64, requires_grad=True)
    tg = torch.tensor(gamma, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(beta, dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.layer_norm(tx, gamma.shape, tg if with_gamma else None, tb, eps=1e-5)
    y.backward(torch.tensor(np.transpose(dy, perm)))
    dx, dgamma, dbeta = lnlib.layer_norm_backward(dy, x, gamma if with_gamma else None, eps=1e-5, axis=axis)
    np.testing.assert_allclose(np.transpose(dx, perm), tx.grad.numpy(), rtol=0, atol=1e-8)
    if with_gamma:
        np.testing.assert_allclose(dgamma, tg.grad.numpy(), rtol=0, atol=1e-8)
    np.testing.assert_allclose(dbeta, tb.grad.numpy(), rtol=0, atol=1e-8)


def test_hand_example_of_notebook_12():
    # x = [2, 4, 6, 8], dy = e_1, ε = 0: g − mean(g) − x̂·mean(g ⊙ x̂) = [0.3, −0.4, −0.1, 0.2] (worked by hand)
    dx, dgamma, dbeta = lnlib.layer_norm_backward([1, 0, 0, 0], [2, 4, 6, 8], eps=0)
    np.testing.assert_allclose(dx, np.array([0.3, -0.4, -0.1, 0.2]) / np.sqrt(5), rtol=1e-12)
    np.testing.assert_allclose(dgamma, [-3 / np.sqrt(5), 0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(dbeta, [1, 0, 0, 0])


@pytest.mark.parametrize(("shape", "axis"), CASES)
def test_properties_sum_orthogonal_scaling(shape, axis):
    x, dy, gamma, _ = _setup(shape, axis, 4)
    axes = axis if isinstance(axis, tuple) else (axis,)
    dx, _, _ = lnlib.layer_norm_backward(dy, x, gamma, eps=0, axis=axis)
    xhat = lnlib.layer_norm(x, eps=0, axis=axis)
    np.testing.assert_allclose(dx.sum(axis=axes), 0, atol=1e-12)  # Σdx = 0
    np.testing.assert_allclose((dx * xhat).sum(axis=axes), 0, atol=1e-12)  # dx ⟂ x̂
    for c in (10.0, 0.01, -3.0):
        dxc, _, _ = lnlib.layer_norm_backward(dy, c * x, gamma, eps=0, axis=axis)
        expected = dx / c if c > 0 else -dx / c  # x̂(cx) = sign(c)·x̂(x)
        np.testing.assert_allclose(dxc, expected, rtol=1e-10, atol=1e-14)


def test_scaling_with_eps_scaled_too():
    rng = np.random.default_rng(5)
    x, dy = rng.normal(size=(3, 8)), rng.normal(size=(3, 8))
    dx, _, _ = lnlib.layer_norm_backward(dy, x, eps=1e-3)
    dx10, _, _ = lnlib.layer_norm_backward(dy, 10 * x, eps=1e-3 * 100)
    np.testing.assert_allclose(dx10, dx / 10, rtol=1e-12)


def test_backward_dtypes_and_constant_row():
    x = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]], dtype=np.float32)
    dy = np.array([[0.5, -1.0, 2.0], [1.0, 2.0, 3.0]], dtype=np.float32)
    dx, dgamma, dbeta = lnlib.layer_norm_backward(dy, x, eps=1e-5)
    assert dx.dtype == dgamma.dtype == dbeta.dtype == np.float32
    ref, _, _ = lnlib.layer_norm_backward(dy.astype(np.float64), x.astype(np.float64), eps=1e-5)
    np.testing.assert_allclose(dx, ref, rtol=1e-6, atol=1e-6)
    # a constant row: x̂ = 0, so dx = (g − mean(g)) / √ε
    np.testing.assert_allclose(ref[1], (dy[1] - dy[1].mean()) / np.sqrt(1e-5), rtol=1e-6)


def test_backward_rejects_bad_input():
    with pytest.raises(ValueError, match="dy"):
        lnlib.layer_norm_backward([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="gamma"):
        lnlib.layer_norm_backward([1, 2, 3], [1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="eps"):
        lnlib.layer_norm_backward([1, 2, 3], [1, 2, 3], eps=-1)
    with pytest.raises(TypeError, match="x"):
        lnlib.layer_norm_backward([1, 2, 3], ["a", "b", "c"])


def test_numerical_gradient_of_known_functions():
    x = np.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(numerical_gradient(lambda v: np.sum(v**2), x), 2 * x, atol=1e-8)
    np.testing.assert_allclose(numerical_gradient(lambda v: np.prod(v), x), [-6.0, 3.0, -2.0], atol=1e-8)
    np.testing.assert_array_equal(x, [1.0, -2.0, 3.0])
    with pytest.raises(ValueError, match="h"):
        numerical_gradient(np.sum, x, h=0)


@pytest.mark.parametrize("gamma", [None, [1.0, 2.0, 0.5, -1.0]])
def test_jacobian_matches_finite_differences(gamma):
    x = np.array([2.0, 4.0, 6.0, 8.0])
    jac = layer_norm_jacobian(x, gamma, eps=1e-5)
    numeric = numerical_jacobian(lambda v: lnlib.layer_norm(v, gamma, eps=1e-5), x, h=1e-6)
    np.testing.assert_allclose(jac, numeric, atol=1e-8)


def test_jacobian_closed_form_and_null_space():
    x = np.array([2.0, 4.0, 6.0, 8.0])
    xhat = (x - 5) / np.sqrt(5)
    closed = (np.eye(4) - 1 / 4 - np.outer(xhat, xhat) / 4) / np.sqrt(5)
    jac = layer_norm_jacobian(x, eps=0)
    np.testing.assert_allclose(jac, closed, atol=1e-14)
    np.testing.assert_allclose(jac @ np.ones(4), 0, atol=1e-14)  # adding a constant changes nothing
    np.testing.assert_allclose(jac @ xhat, 0, atol=1e-14)  # nor does scaling the row
    assert np.linalg.matrix_rank(jac) == 2
    with pytest.raises(ValueError, match="1-D"):
        layer_norm_jacobian([[1.0, 2.0]])


def test_numerical_gradient_is_right_when_f_changes_its_argument_in_place():
    """Issue 30, item 5: f subtracting the mean in place gave [4.2e6, 5.5e5, 9.0e3, −2.0e3]; the gradient of
    Σ(x − mean)² is 2(x − mean) = [−5, −3, 1, 7] (closed form). x itself is never changed."""

    def f(v):
        v -= v.mean()
        return float((v**2).sum())

    x = np.array([1.0, 2.0, 4.0, 7.0])
    np.testing.assert_allclose(lnlib.numerical_gradient(f, x), [-5.0, -3.0, 1.0, 7.0], rtol=1e-6)
    np.testing.assert_array_equal(x, [1.0, 2.0, 4.0, 7.0])
