"""BatchNorm / batch_norm / rms_norm against independent implementations written here and against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import lnlib


class ReferenceBN:
    """Written from the PyTorch documentation, independently of lnlib: features last, loops over features."""

    def __init__(self, c, eps=1e-5, momentum=0.1):
        self.mean, self.var, self.eps, self.m = [0.0] * c, [1.0] * c, eps, momentum

    def __call__(self, x, training=True):
        flat = np.asarray(x, dtype=np.float64).reshape(-1, np.shape(x)[-1])
        out = np.empty_like(flat)
        for j in range(flat.shape[1]):
            col = flat[:, j]
            n = len(col)
            if training:
                mu = sum(col) / n
                biased = sum((v - mu) ** 2 for v in col) / n
                unbiased = sum((v - mu) ** 2 for v in col) / (n - 1)
                self.mean[j] = (1 - self.m) * self.mean[j] + self.m * mu
                self.var[j] = (1 - self.m) * self.var[j] + self.m * unbiased
                out[:, j] = (col - mu) / np.sqrt(biased + self.eps)
            else:
                out[:, j] = (col - self.mean[j]) / np.sqrt(self.var[j] + self.eps)
        return out.reshape(np.shape(x))


def batches(shape, steps, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(3.0, 2.0, size=shape) for _ in range(steps)]


@pytest.mark.parametrize("shape", [(8, 3), (4, 5, 3)])
def test_batchnorm_over_several_steps_matches_reference(shape):
    bn, ref = lnlib.BatchNorm(3, momentum=0.2), ReferenceBN(3, momentum=0.2)
    for x in batches(shape, 5):
        np.testing.assert_allclose(bn(x), ref(x), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(bn.running_mean, ref.mean, rtol=1e-12)
        np.testing.assert_allclose(bn.running_var, ref.var, rtol=1e-12)
    bn.eval()
    x = batches(shape, 1, seed=9)[0]
    np.testing.assert_allclose(bn(x), ref(x, training=False), rtol=1e-10)
    assert bn.running_mean == pytest.approx(ref.mean)  # eval does not update
    bn.train()
    assert bn.training


def test_running_var_uses_the_unbiased_variance_by_hand():
    bn = lnlib.BatchNorm(1, momentum=0.5)
    y = bn([[1.0], [3.0]])  # mean 2, biased var 1, unbiased var 2
    np.testing.assert_allclose(y.ravel(), [-1 / np.sqrt(1 + 1e-5), 1 / np.sqrt(1 + 1e-5)])
    assert bn.running_mean == pytest.approx([1.0])  # 0.5·0 + 0.5·2
    assert bn.running_var == pytest.approx([1.5])  # 0.5·1 + 0.5·2


def test_batch_of_one_raises_in_training_but_not_in_eval():
    bn = lnlib.BatchNorm(4)
    with pytest.raises(ValueError, match="one value per feature"):
        bn([[1.0, 2.0, 3.0, 4.0]])
    with pytest.raises(ValueError):
        lnlib.batch_norm([[1.0, 2.0, 3.0]])
    assert bn.eval()([[1.0, 2.0, 3.0, 4.0]]).shape == (1, 4)


def test_batch_norm_function_is_columnwise_zscore():
    scipy_stats = pytest.importorskip("scipy.stats")
    x = lnlib.TOKEN_MATRIX
    np.testing.assert_allclose(lnlib.batch_norm(x, eps=0), scipy_stats.zscore(x, axis=0, ddof=0), rtol=1e-12)
    g, b = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.5, 0.0, -1.0, 2.0])
    np.testing.assert_allclose(lnlib.batch_norm(x, g, b, eps=0), scipy_stats.zscore(x, axis=0) * g + b, rtol=1e-12)


def test_batchnorm_matches_torch_over_several_steps():
    torch = pytest.importorskip("torch")
    bn, tbn = lnlib.BatchNorm(3, momentum=0.1), torch.nn.BatchNorm1d(3, momentum=0.1, dtype=torch.float64)
    bn.gamma, bn.beta = np.array([1.0, 0.5, 2.0]), np.array([0.0, 1.0, -1.0])
    with torch.no_grad():
        tbn.weight.copy_(torch.tensor(bn.gamma))
        tbn.bias.copy_(torch.tensor(bn.beta))
    for x in batches((6, 3), 4, seed=2):
        np.testing.assert_allclose(bn(x), tbn(torch.tensor(x)).detach().numpy(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(bn.running_mean, tbn.running_mean.numpy(), rtol=1e-12)
        np.testing.assert_allclose(bn.running_var, tbn.running_var.numpy(), rtol=1e-12)
    bn.eval(), tbn.eval()
    x = batches((2, 3), 1, seed=5)[0]
    np.testing.assert_allclose(bn(x), tbn(torch.tensor(x)).detach().numpy(), rtol=1e-9)


def test_batchnorm_3d_matches_torch_channels_first():
    torch = pytest.importorskip("torch")
    bn, tbn = lnlib.BatchNorm(3), torch.nn.BatchNorm1d(3, dtype=torch.float64)
    for x in batches((4, 5, 3), 3, seed=4):  # (N, T, C) here, (N, C, T) in torch
        expected = tbn(torch.tensor(x).transpose(1, 2)).transpose(1, 2).detach().numpy()
        np.testing.assert_allclose(bn(x), expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(bn.running_var, tbn.running_var.numpy(), rtol=1e-12)


def test_rms_norm_closed_form():
    x = np.array([3.0, 4.0])  # mean of squares 12.5
    np.testing.assert_allclose(lnlib.rms_norm(x, eps=0), x / np.sqrt(12.5), rtol=1e-14)
    np.testing.assert_allclose(lnlib.rms_norm([2.0, 2.0, 2.0], eps=0), [1.0, 1.0, 1.0])
    g = np.array([2.0, -1.0])
    np.testing.assert_allclose(lnlib.rms_norm(x, g, eps=0.5), x / np.sqrt(13.0) * g, rtol=1e-14)


def test_rms_norm_equals_layer_norm_on_zero_mean_rows_only():
    zero_mean = lnlib.TOKEN_MATRIX - lnlib.TOKEN_MATRIX.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(lnlib.rms_norm(zero_mean, eps=0), lnlib.layer_norm(zero_mean, eps=0), atol=1e-12)
    assert not np.allclose(lnlib.rms_norm(lnlib.TOKEN_MATRIX, eps=0), lnlib.layer_norm(lnlib.TOKEN_MATRIX, eps=0))


def test_rms_norm_matches_torch():
    torch = pytest.importorskip("torch")
    rms = getattr(torch.nn.functional, "rms_norm", None)
    if rms is None:
        pytest.skip("torch.nn.functional.rms_norm needs torch ≥ 2.4")
    rng = np.random.default_rng(3)
    x, g = rng.normal(size=(5, 7)), rng.normal(size=7)
    expected = rms(torch.tensor(x), (7,), weight=torch.tensor(g), eps=1e-6).numpy()
    np.testing.assert_allclose(lnlib.rms_norm(x, g, eps=1e-6), expected, rtol=1e-10)
