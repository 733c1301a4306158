"""lnlib.transformer: softmax/attention against closed forms, the hand-written backward against finite differences,
and the depth pattern of Xiong et al. (2020), Theorem 1."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from lnlib import transformer as T
from lnlib.grad import numerical_gradient


def test_softmax_matches_the_definition_and_survives_large_logits():
    z = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    e = np.exp(z)
    np.testing.assert_allclose(T.softmax(z), e / e.sum(axis=1, keepdims=True), rtol=1e-12)
    big = T.softmax([1000.0, 1001.0])
    np.testing.assert_allclose(big, [1 / (1 + np.e), np.e / (1 + np.e)], rtol=1e-12)


def test_entropy_closed_forms():
    assert T.entropy([0.25, 0.25, 0.25, 0.25]) == pytest.approx(np.log(4))
    assert T.entropy([1.0, 0.0, 0.0]) == pytest.approx(0.0)
    assert T.entropy([0.5, 0.5]) == pytest.approx(np.log(2))


def test_attention_by_hand():
    q = np.array([[1.0, 0.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0]])
    v = np.array([[10.0, 0.0], [0.0, 10.0]])
    out, w = T.attention(q, k, v)
    a = np.exp(1 / np.sqrt(2))  # logits 1/√2 and 0
    np.testing.assert_allclose(w, [[a / (a + 1), 1 / (a + 1)]], rtol=1e-12)
    np.testing.assert_allclose(out, [[10 * a / (a + 1), 10 / (a + 1)]], rtol=1e-12)
    _, masked = T.attention(q, k, v, mask=[[True, False]])
    np.testing.assert_allclose(masked, [[1.0, 0.0]])


def test_deepnorm_constants():
    alpha, beta = T.deepnorm_constants(6)
    assert alpha == pytest.approx(12**0.25) and beta == pytest.approx(48**-0.25)
    with pytest.raises(ValueError):
        T.deepnorm_constants(0)


@pytest.mark.parametrize("norm", T.RESIDUAL_FORM_KEYS)
def test_backward_matches_finite_differences(norm):
    stack = T.make_stack(norm, 2, 4, seed=3)
    rng = np.random.default_rng(0)
    x, t = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4))
    grads = T.stack_backward(stack, x, t)
    for sub, g in zip(stack.sublayers, grads, strict=True):
        for name, w in list(sub.w.items()):
            num = numerical_gradient(lambda v, sub=sub, name=name: loss_with(stack, sub, name, v, x, t), w, h=1e-6)
            sub.w[name] = w
            np.testing.assert_allclose(g[name], num, rtol=1e-5, atol=1e-8, err_msg=f"{norm} {sub.kind} {name}")


def loss_with(stack, sub, name, weights, x, t) -> float:
    """The stack's loss with one weight matrix replaced (numerical_gradient perturbs `weights` in place)."""
    sub.w[name] = weights
    return T.stack_loss(stack, x, t)


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_ffn_gradient_norms_are_the_w2_gradients(norm):
    """ffn_gradient_norms(...)[l] is ‖∂L/∂W2‖ of layer l: compare layer 0 and the last layer with finite differences
    on a few entries, and the norm with the full hand-written gradient."""
    width, depth = 4, 3
    norms = T.ffn_gradient_norms(norm, depth, width, seed=1)
    assert norms.shape == (depth,)
    stack = T.make_stack(norm, depth, width, seed=1)
    x, t = T.batch_and_target(width, seed=1)
    for layer in (0, depth - 1):
        w2 = stack.ffn(layer).w["w2"]
        num = np.zeros_like(w2)
        for idx in np.ndindex(w2.shape):
            old = w2[idx]
            w2[idx] = old + 1e-6
            up = T.stack_loss(stack, x, t)
            w2[idx] = old - 1e-6
            down = T.stack_loss(stack, x, t)
            w2[idx] = old
            num[idx] = (up - down) / 2e-6
        assert norms[layer] == pytest.approx(np.linalg.norm(num), rel=1e-5)


def test_fixed_seed_is_deterministic_and_seed_matters():
    a = T.ffn_gradient_norms("post", 4, 16, seed=0)
    np.testing.assert_array_equal(a, T.ffn_gradient_norms("post", 4, 16, seed=0))
    assert not np.allclose(a, T.ffn_gradient_norms("post", 4, 16, seed=1))


def test_xiong_pattern_at_initialization():
    """Xiong et al. (2020), Theorem 1: the last layer's W2 gradient stays O(1) in depth for Post-LN and shrinks like
    1/√L for Pre-LN; Pre-LN gradients do not grow toward the output."""
    width = 64
    post = {depth: T.ffn_gradient_norms("post", depth, width) for depth in (3, 6, 12, 24)}
    pre = {depth: T.ffn_gradient_norms("pre", depth, width) for depth in (3, 6, 12, 24)}
    post_last = np.array([g[-1] for g in post.values()])
    pre_last = np.array([g[-1] for g in pre.values()])
    assert post_last.max() / post_last.min() < 1.3  # Post-LN: independent of depth
    assert np.all(np.diff(pre_last) < 0)  # Pre-LN: shrinking with depth ...
    assert pre_last[0] / pre_last[-1] == pytest.approx(np.sqrt(24 / 3), rel=0.3)  # ... like 1/√L
    assert np.all(post_last > 1.3 * pre_last)  # near the output, Post-LN gradients are the larger ones
    for g in pre.values():
        assert g[-1] < g[0]  # Pre-LN: no growth toward the output


def test_residual_scales():
    post = T.residual_scales("post", 8, 32)
    pre = T.residual_scales("pre", 8, 32)
    none = T.residual_scales("none", 8, 32)
    np.testing.assert_allclose(post[1:], 1.0, rtol=1e-4)  # LN output: unit RMS
    assert np.all(np.diff(pre) > 0) and np.all(np.diff(none) > 0)
    assert none[-1] > 3 * pre[-1]


def test_bad_arguments():
    with pytest.raises(ValueError, match="norm"):
        T.ffn_gradient_norms("mid", 3, 8)
    with pytest.raises(ValueError, match="depth"):
        T.ffn_gradient_norms("post", 0, 8)


# --- issue 11.7: masks and −inf logits have defined behaviour; issue 14.4: names ------------------------------------


def test_softmax_gives_masked_positions_zero_weight_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = T.softmax([[0.0, -np.inf, np.log(3.0)]])
    np.testing.assert_allclose(w, [[0.25, 0.0, 0.75]], rtol=1e-12)


@pytest.mark.parametrize("z", [[[1.0, 2.0], [-np.inf, -np.inf]], [np.nan, 1.0], [np.inf, 0.0]])
def test_softmax_refuses_rows_without_a_distribution(z):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"^z:"):
            T.softmax(z)


def test_attention_refuses_a_fully_masked_query_by_naming_mask():
    q = k = v = np.eye(3)
    mask = np.array([[True, True, False], [False, False, False], [True, False, True]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"^mask: query \(1,\)"):
            T.attention(q, k, v, mask=mask)


@pytest.mark.parametrize("mask", [np.ones((2, 3), dtype=bool), np.ones((3, 3, 3, 2), dtype=bool)])
def test_attention_refuses_a_mask_of_another_shape(mask):
    q = k = v = np.eye(3)
    with pytest.raises(ValueError, match=r"^mask: expected a shape broadcastable to the scores \(3, 3\)"):
        T.attention(q, k, v, mask=mask)


def test_attention_refuses_a_mask_that_is_not_boolean():
    q = k = v = np.eye(3)
    with pytest.raises(TypeError, match=r"^mask: expected booleans"):
        T.attention(q, k, v, mask=np.ones((3, 3)))


def test_a_causal_mask_broadcasts_over_a_batch():
    """A (n, n) lower-triangular mask on (batch, n, d) inputs: the first query sees only itself."""
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 4, 3)) for _ in range(3))
    out, w = T.attention(q, k, v, mask=np.tril(np.ones((4, 4), dtype=bool)))
    np.testing.assert_allclose(w[:, 0], [[1, 0, 0, 0]] * 2)
    np.testing.assert_allclose(np.triu(w[0], 1), 0.0)
    np.testing.assert_allclose(out[:, 0], v[:, 0], rtol=1e-12)


def test_residual_forms_by_position_or_keyword():
    assert T.RESIDUAL_FORM_KEYS == ("post", "pre", "none", "deepnorm")
    assert T.N_TOKENS == 16 and not hasattr(T, "TOKENS") and not hasattr(T, "NORMS")
    assert not hasattr(T, "feed_forward")
    new = T.ffn_gradient_norms(form="pre", depth=2, width=4, seed=2)
    np.testing.assert_array_equal(T.ffn_gradient_norms("pre", 2, 4, 2), new)
    np.testing.assert_array_equal(T.residual_scales(form="post", depth=2, width=4), T.residual_scales("post", 2, 4))
    with pytest.raises(TypeError, match="norm"):
        T.ffn_gradient_norms("pre", 2, 4, norm="post")  # the old keyword is gone
    with pytest.raises(ValueError, match=r"^form: expected one of"):
        T.ffn_gradient_norms("layer", 2, 4)
    assert T.make_stack("pre", 2, 4).form == "pre"


# ---------------------------------------------------------------- issue 30, item 6: large finite logits


def _exact_scores(q, k):
    """Q Kᵀ in exact rational arithmetic (no scale: a positive scale keeps the order and the ties)."""
    from fractions import Fraction

    return [[sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(qi, kj, strict=True)) for kj in k] for qi in q]


def test_softmax_of_logits_at_the_ends_of_float64_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(T.softmax([1e308, -1e308]), [1.0, 0.0])
        np.testing.assert_array_equal(T.softmax([[-1e308, 1e308, 1e308]]), [[0.0, 0.5, 0.5]])


@pytest.mark.parametrize("size", [1e160, 1e200, 1e300])
def test_attention_with_scores_beyond_float64_is_the_argmax(size):
    """Scores of 1e320 and more: differences so large that softmax puts all weight on the largest score (shared
    equally by exact ties), found here by exact rational arithmetic. Used to warn, then blame `z`."""
    q = np.array([[1.0, 2.0], [3.0, -1.0], [1.0, 1.0], [-2.0, 0.5]]) * size
    exact = _exact_scores(q, q)
    want = np.zeros((4, 4))
    for i, row in enumerate(exact):
        top = [j for j, v in enumerate(row) if v == max(row)]
        want[i, top] = 1.0 / len(top)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, w = T.attention(q, q, q)
        _, w_masked = T.attention(q, q, q, mask=np.tril(np.ones((4, 4), bool)))
    np.testing.assert_array_equal(w, want)
    np.testing.assert_array_equal(out, want @ q)
    assert w_masked[0, 0] == 1.0 and np.all(np.triu(w_masked, 1) == 0)


def test_attention_at_scale_mixes_huge_and_tiny_rows_exactly():
    """SoftmaxExplorer's matrix [[1e300, −1e300], [1e-300, 2e-300]]: row 1 is one-hot; row 2's scores are
    −1/√2 and 5e-600/√2 ≈ 0, so its weights are e^(−1/√2)/(1 + e^(−1/√2)) and the rest (closed form)."""
    import math

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = T.attention_at_scale([[1e300, -1e300], [1e-300, 2e-300]], 1.0)
    a = math.exp(-1 / math.sqrt(2))
    np.testing.assert_allclose(w, [[1.0, 0.0], [a / (1 + a), 1 / (1 + a)]], rtol=1e-15)


def test_ordinary_attention_is_unchanged_bit_for_bit():
    """The plain scores are used whenever they are finite: the same bits as softmax(Q Kᵀ/√d) written out."""
    rng = np.random.default_rng(6)
    q, k = rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    plain = T.softmax((q @ k.T) * (1.0 / np.sqrt(4)))
    np.testing.assert_array_equal(T.attention(q, k, k)[1], plain)
    np.testing.assert_array_equal(T.attention_at_scale(q, 2.5), T.softmax(2.5 * ((q @ q.T) * (1.0 / np.sqrt(4)))))


def test_entropy_refuses_negative_probabilities():
    with pytest.raises(ValueError, match="^p: "):
        T.entropy([0.5, 0.7, -0.2])
