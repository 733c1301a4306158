"""standardize and layer_norm over any axes, against SciPy and closed forms."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import lnlib


@pytest.mark.parametrize("axis", [0, 1, -1, (0, 1), (1, 2), (0, 2), (0, 1, 2)])
def test_standardize_matches_scipy_over_any_axes(axis):
    x = np.random.default_rng(3).normal(2, 5, size=(3, 4, 5))
    ref = (
        stats.zscore(x, axis=None if axis == (0, 1, 2) else axis, ddof=0)
        if isinstance(axis, int) or axis == (0, 1, 2)
        else None
    )
    if ref is None:  # scipy takes one axis: move the normalized axes to the end and flatten them
        axes = tuple(a % 3 for a in axis)
        rest = [a for a in range(3) if a not in axes]
        moved = np.transpose(x, rest + list(axes))
        flat = moved.reshape(moved.shape[: len(rest)] + (-1,))
        ref = np.transpose(stats.zscore(flat, axis=-1, ddof=0).reshape(moved.shape), np.argsort(rest + list(axes)))
    np.testing.assert_allclose(lnlib.standardize(x, axis, eps=0), ref, rtol=1e-12, atol=1e-12)


def test_layer_norm_over_trailing_axes_uses_the_normalized_shape_for_gamma():
    x = np.random.default_rng(4).normal(size=(2, 3, 4))
    gamma = np.arange(12, dtype=float).reshape(3, 4)
    beta = np.full((3, 4), 0.5)
    out = lnlib.layer_norm(x, gamma, beta, axis=(-2, -1))
    flat = x.reshape(2, 12)
    ref = (flat - flat.mean(1, keepdims=True)) / np.sqrt(flat.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, ref.reshape(2, 3, 4) * gamma + beta, rtol=1e-12)


def test_layer_norm_of_the_token_matrix():
    out = lnlib.layer_norm(lnlib.TOKEN_MATRIX, eps=0)
    hand = np.array([-3, -1, 1, 3]) / np.sqrt(5)
    np.testing.assert_allclose(out, [hand[::-1], hand, hand], rtol=1e-15)


def test_variance_of_normalized_row_is_sigma2_over_sigma2_plus_eps():
    eps = 0.5
    out = lnlib.layer_norm([2, 4, 6, 8], eps=eps)
    assert np.var(out) == pytest.approx(5 / (5 + eps), rel=1e-12)
    assert np.mean(out) == pytest.approx(0, abs=1e-15)
