"""The tiny numpy Transformer pieces of the "where LayerNorm sits" notebooks (09, 10, 11).

Everything here is plain numpy with fixed seeds and small sizes, so a notebook runs in seconds:
softmax and scaled dot-product attention (notebook 10), stacks of residual blocks (self-attention and ReLU
feed-forward sub-layers) in the residual forms of RESIDUAL_FORM_KEYS (Post-LN / Pre-LN / no norm / DeepNorm) and
their hand-written backward pass (notebook 09).

Post-LN (Vaswani et al. 2017):   x_{l+1} = LN(x_l + F(x_l))
Pre-LN  (Xiong et al. 2020):     x_{l+1} = x_l + F(LN(x_l)),  output LN(x_L)
no norm:                         x_{l+1} = x_l + F(x_l)
DeepNorm (Wang et al. 2022):     x_{l+1} = LN(α·x_l + F(x_l)),  F's weights initialized ×β
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from . import _budget
from ._checks import as_real_array
from ._lean import LN_EPS, outer_sum
from .grad import layer_norm_backward
from .norms import layer_norm

RESIDUAL_FORM_KEYS = ("post", "pre", "none", "deepnorm")
"""Where the normalization sits in each residual block (see the module docstring); `form=` takes one of these."""
SEQUENCES, N_TOKENS = 4, 16  # the batch of the depth experiments: 4 sequences of 16 tokens
HIDDEN_RATIO = 4  # feed-forward hidden width = 4 × model width, as in the original Transformer


# ---------------------------------------------------------------- attention (notebook 10)


def softmax(z, axis: int = -1) -> np.ndarray:
    """exp(z − max z) / Σ exp(z − max z) along `axis`: the max is subtracted first, so large logits never overflow.

    −inf logits get weight 0 (that is how a mask enters); NaN, +inf, or a slice with no finite logit at all
    (every position masked) have no softmax and raise ValueError naming `z`.
    """
    arr = as_real_array(z, "z").astype(np.float64)
    if np.any(np.isnan(arr)) or np.any(arr == np.inf):
        raise ValueError("z: expected finite logits (or −inf for masked positions), got NaN or +inf")
    top = np.max(arr, axis=axis, keepdims=True)
    if np.any(top == -np.inf):
        raise ValueError(
            "z: a slice along `axis` has no finite logit (all −inf, every position masked); its softmax is undefined"
        )
    return _softmax_shifted(arr, top, 0, axis)


def _softmax_shifted(t: np.ndarray, top: np.ndarray, exp, axis: int = -1) -> np.ndarray:
    """softmax of the logits t·2^exp (exp an int, or ints broadcasting against t), top = max t along `axis`:
    exp((t − top)·2^exp), normalized. A difference beyond float64 (1e308 − (−1e308)) is −inf: weight 0."""
    with np.errstate(over="ignore"):
        shifted = t - top
        if np.any(exp):
            shifted = np.ldexp(shifted, exp)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


def entropy(p, axis: int = -1) -> np.ndarray:
    """Shannon entropy −Σ p·ln p (in nats) of each distribution along `axis`; 0·ln 0 counts as 0."""
    arr = as_real_array(p, "p").astype(np.float64)
    if np.any(arr < 0):
        raise ValueError(f"p: expected probabilities ≥ 0, got a negative value ({arr[arr < 0].reshape(-1)[0]:g})")
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(arr > 0, -arr * np.log(np.where(arr > 0, arr, 1.0)), 0.0)
    return terms.sum(axis=axis)


def attention_logits(q, k, scale: float | None = None) -> np.ndarray:
    """The score matrix Q Kᵀ · scale, with scale = 1/√d (d = the last dimension of Q) by default."""
    q = as_real_array(q, "q", min_ndim=2).astype(np.float64)
    k = as_real_array(k, "k", min_ndim=2).astype(np.float64)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"k: expected the last dimension of q ({q.shape[-1]}), got shape {k.shape}")
    if scale is None:
        scale = 1.0 / np.sqrt(q.shape[-1])
    with np.errstate(over="ignore", invalid="ignore"):  # a score beyond float64 is ±inf (honest)
        return (q @ np.swapaxes(k, -1, -2)) * scale


def _attention_weights(q: np.ndarray, k: np.ndarray, scale: float, scores: np.ndarray, allowed=None) -> np.ndarray:
    """softmax(Q Kᵀ · scale) over the keys, right for any finite Q and K (checked float64 arrays); `scores` is
    the plain float64 Q Kᵀ · scale, used as it is whenever it is finite (ordinary inputs: the same bits as ever).

    When a score lies beyond float64 (|q|, |k| ~ 1e160), the scores are computed as t·2^e instead: each query
    and key row divided by a power of two near its peak (exact), the row's scores aligned at its largest
    exponent; softmax only needs the differences t − max t, scaled back (−inf beyond float64: weight 0).
    """
    if np.all(np.isfinite(scores)):
        return softmax(scores if allowed is None else np.where(allowed, scores, -np.inf))
    a, b = _row_exponents(q), _row_exponents(k)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        s = (np.ldexp(q, -a[..., None]) @ np.swapaxes(np.ldexp(k, -b[..., None]), -1, -2)) * scale
        top_b = np.max(b, axis=-1, keepdims=True)
        t = np.ldexp(s, b[..., None, :] - top_b[..., None])
    if allowed is not None:
        t = np.where(allowed, t, -np.inf)
    return _softmax_shifted(t, np.max(t, axis=-1, keepdims=True), a[..., :, None] + top_b[..., None])


def _row_exponents(x: np.ndarray) -> np.ndarray:
    """e with 2^(e−1) ≤ peak |x| < 2^e for each row (last axis); 0 for zero rows."""
    return np.frexp(np.max(np.abs(x), axis=-1))[1].astype(np.int64)


def attention(q, k, v, *, scale: float | None = None, mask=None):
    """Scaled dot-product attention softmax(Q Kᵀ/√d) V; returns (output, weights).

    `mask` (optional, booleans broadcastable to the score matrix) marks the keys each query may attend to.
    Every query must keep at least one key: a fully masked row has no softmax, so it raises ValueError naming
    `mask` (as does a mask of another shape or dtype), never a NaN row.
    """
    q = as_real_array(q, "q", min_ndim=2).astype(np.float64)
    k = as_real_array(k, "k", min_ndim=2).astype(np.float64)
    for name, arr in (("q", q), ("k", k)):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name}: expected finite numbers, got NaN or inf")
    if scale is None:
        scale = 1.0 / np.sqrt(q.shape[-1])
    scores = attention_logits(q, k, scale)
    v = as_real_array(v, "v", min_ndim=2).astype(np.float64)
    allowed = None if mask is None else _mask(mask, scores.shape)
    weights = _attention_weights(q, k, scale, scores, allowed)
    with np.errstate(over="ignore", invalid="ignore"):  # weights ≤ 1: beyond float64 only where v is
        return weights @ v, weights


def _mask(mask, shape: tuple[int, ...]) -> np.ndarray:
    m = np.asarray(mask)
    if m.dtype != bool:
        raise TypeError(f"mask: expected booleans (True = may attend), got dtype {m.dtype}")
    try:
        m = np.broadcast_to(m, shape)
    except ValueError:
        raise ValueError(f"mask: expected a shape broadcastable to the scores {shape}, got {m.shape}") from None
    empty = ~m.any(axis=-1)
    if np.any(empty):
        row = tuple(int(i) for i in np.argwhere(empty)[0])
        raise ValueError(
            f"mask: query {row} may attend to no key (its whole row is False); every query needs at least one key"
        )
    return m


def attention_at_scale(matrix, scale: float) -> np.ndarray:
    """softmax(scale · X Xᵀ / √d) for a token matrix X (Q = K = X): the weights of notebook 10's slider."""
    x = as_real_array(matrix, "matrix", min_ndim=2).astype(np.float64)
    if not np.all(np.isfinite(x)):
        raise ValueError("matrix: expected finite numbers, got NaN or inf")
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not math.isfinite(scale):
        raise TypeError(f"scale: expected a finite real number, got {scale!r:.40}")
    with np.errstate(over="ignore", invalid="ignore"):
        scores = scale * attention_logits(x, x)
    return _attention_weights(x, x, scale / np.sqrt(x.shape[-1]), scores)


# ---------------------------------------------------------------- feed-forward blocks and residual stacks (notebook 09)


def xavier(fan_in: int, fan_out: int, rng: np.random.Generator, gain: float = 1.0) -> np.ndarray:
    """Xavier (Glorot) uniform initialization: U(−a, a) with a = gain·√(6 / (fan_in + fan_out))."""
    a = gain * np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-a, a, size=(fan_in, fan_out))


def deepnorm_constants(n_layers: int, kind: str = "encoder") -> tuple[float, float]:
    """DeepNorm's (α, β) for an encoder-only or decoder-only stack of N layers (Wang et al. 2022, DeepNet):
    α = (2N)^(1/4) multiplies the residual, β = (8N)^(−1/4) scales the sub-layer weights at initialization.
    """
    if kind not in ("encoder", "decoder"):
        raise ValueError(f"kind: expected 'encoder' or 'decoder' (single-stack models), got {kind!r}")
    if isinstance(n_layers, bool) or not isinstance(n_layers, int | np.integer) or n_layers < 1:
        raise ValueError(f"n_layers: expected a positive int, got {n_layers!r}")
    return (2.0 * n_layers) ** 0.25, (8.0 * n_layers) ** -0.25


class Sublayer:
    """One residual branch: self-attention ("attn") or feed-forward ("ffn"), with a hand-written backward."""

    def __init__(self, kind: str, weights: dict[str, np.ndarray]):
        self.kind, self.w = kind, weights

    def forward(self, u: np.ndarray) -> tuple[np.ndarray, dict]:
        w = self.w
        if self.kind == "ffn":
            z = u @ w["w1"]
            a = np.maximum(z, 0.0)
            return a @ w["w2"], {"u": u, "z": z, "a": a}
        q, k, v = u @ w["wq"], u @ w["wk"], u @ w["wv"]
        p = softmax(attention_logits(q, k))
        o = p @ v
        return o @ w["wo"], {"u": u, "q": q, "k": k, "v": v, "p": p, "o": o}

    def backward(self, dout: np.ndarray, c: dict) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        w, u = self.w, c["u"]
        if self.kind == "ffn":
            dz = (dout @ w["w2"].T) * (c["z"] > 0)
            grads = {"w1": outer_sum(u, dz), "w2": outer_sum(c["a"], dout)}
            return dz @ w["w1"].T, grads
        scale = 1.0 / np.sqrt(u.shape[-1])
        do = dout @ w["wo"].T
        dp = do @ np.swapaxes(c["v"], -1, -2)
        dv = np.swapaxes(c["p"], -1, -2) @ do
        ds = c["p"] * (dp - np.sum(dp * c["p"], axis=-1, keepdims=True))  # softmax backward, row by row
        dq = ds @ c["k"] * scale
        dk = np.swapaxes(ds, -1, -2) @ c["q"] * scale
        grads = {
            "wq": outer_sum(u, dq),
            "wk": outer_sum(u, dk),
            "wv": outer_sum(u, dv),
            "wo": outer_sum(c["o"], dout),
        }
        return dq @ w["wq"].T + dk @ w["wk"].T + dv @ w["wv"].T, grads


@dataclass
class Stack:
    """`depth` Transformer encoder layers (self-attention sub-layer, then feed-forward sub-layer), each sub-layer
    wrapped in one residual form: "post", "pre", "none" or "deepnorm" (see the module docstring).
    """

    form: str
    sublayers: list[Sublayer]
    alpha: float = 1.0

    def ffn(self, layer: int) -> Sublayer:
        return self.sublayers[2 * layer + 1]


def make_stack(form: str, depth: int, width: int, seed: int = 0) -> Stack:
    """Xavier-initialized weights for `depth` layers of width `width` (feed-forward hidden 4·width), fixed by `seed`.
    For "deepnorm" the residual is multiplied by α and W_V, W_O, W1, W2 by β (encoder constants for N = depth).
    """
    _check_args(form, depth, width)
    rng = np.random.default_rng(seed)
    hidden = HIDDEN_RATIO * width
    alpha, beta = deepnorm_constants(depth) if form == "deepnorm" else (1.0, 1.0)
    sublayers = []
    for _ in range(depth):
        attn = {
            "wq": xavier(width, width, rng),
            "wk": xavier(width, width, rng),
            "wv": xavier(width, width, rng, beta),
            "wo": xavier(width, width, rng, beta),
        }
        ffn = {"w1": xavier(width, hidden, rng, beta), "w2": xavier(hidden, width, rng, beta)}
        sublayers += [Sublayer("attn", attn), Sublayer("ffn", ffn)]
    return Stack(form, sublayers, alpha)


def _check_args(form, depth, width):
    if form not in RESIDUAL_FORM_KEYS:
        raise ValueError(f"form: expected one of {RESIDUAL_FORM_KEYS}, got {form!r}")
    for name, value in (("depth", depth), ("width", width)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise ValueError(f"{name}: expected a positive int, got {value!r}")
    _budget.check_size(int(depth), int(width), _budget.stack_cost, what="an encoder stack")


def stack_forward(stack: Stack, x) -> tuple[np.ndarray, list[np.ndarray], list[dict]]:
    """Run the stack on x of shape (sequences, tokens, width).

    Returns (output, residual stream after each sub-layer [x_0, …], caches for the backward pass).
    Pre-LN ends with a final LayerNorm (as in Xiong et al. 2020); the other forms return the last stream value.
    """
    x = np.asarray(x, dtype=np.float64)
    stream, caches = [x], []
    for sub in stack.sublayers:
        if stack.form == "pre":
            f, cache = sub.forward(layer_norm(x, eps=LN_EPS))
            s = x + f
            x = s
        else:
            f, cache = sub.forward(x)
            s = stack.alpha * x + f
            x = s if stack.form == "none" else layer_norm(s, eps=LN_EPS)
        cache.update(x_in=stream[-1], s=s)
        caches.append(cache)
        stream.append(x)
    out = layer_norm(x, eps=LN_EPS) if stack.form == "pre" else x
    return out, stream, caches


def stack_loss(stack: Stack, x, target) -> float:
    """The mean over all tokens of the batch of ½‖y − t‖² (y = the stack's output for that token)."""
    y, _, _ = stack_forward(stack, x)
    tokens = y.size // y.shape[-1]
    return float(0.5 * np.sum((y - target) ** 2) / tokens)


def stack_backward(stack: Stack, x, target) -> list[dict[str, np.ndarray]]:
    """Gradients of `stack_loss` for every sub-layer's weights, by hand (LayerNorm via layer_norm_backward)."""
    y, stream, caches = stack_forward(stack, x)
    g = (y - target) / (y.size // y.shape[-1])  # dL/dy
    if stack.form == "pre":
        g = layer_norm_backward(g, stream[-1], eps=LN_EPS)[0]
    grads: list[dict[str, np.ndarray]] = [{} for _ in stack.sublayers]
    for i in reversed(range(len(stack.sublayers))):
        sub, c = stack.sublayers[i], caches[i]
        if stack.form == "pre":  # x' = x + F(LN(x))
            dinp, grads[i] = sub.backward(g, c)
            g = g + layer_norm_backward(dinp, c["x_in"], eps=LN_EPS)[0]
        else:  # x' = LN(α·x + F(x)), or α·x + F(x) without the LN
            ds = g if stack.form == "none" else layer_norm_backward(g, c["s"], eps=LN_EPS)[0]
            dinp, grads[i] = sub.backward(ds, c)
            g = stack.alpha * ds + dinp
    return grads


def batch_and_target(width: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A fixed batch of SEQUENCES × N_TOKENS input tokens and regression targets, both standard normal."""
    rng = np.random.default_rng([seed, 1])
    shape = (SEQUENCES, N_TOKENS, width)
    return rng.standard_normal(shape), rng.standard_normal(shape)


def ffn_gradient_norms(form: str, depth: int, width: int, seed: int = 0) -> np.ndarray:
    """For each of the `depth` layers (input side first), ‖∂L/∂W2‖_F at Xavier initialization.

    The model is a stack of Transformer encoder layers (self-attention + ReLU feed-forward, each sub-layer with its
    residual connection); L is the mean over a batch of 4 × 16 tokens of ½‖y − t‖²; W2 is the layer's second
    feed-forward matrix. Reproduces Theorem 1 of Xiong et al. (2020): the last layer's norm does not depend on the
    depth for form="post" and shrinks like 1/√depth for form="pre", so near the output Post-LN's gradients are the
    larger ones. (The per-layer rise of their Fig. 3(a) does not appear in this small model with random tokens;
    notebook 09 says so.) "deepnorm" and "none" are accepted too.
    Introduced in notebook 09.
    """
    _check_args(form, depth, width)
    stack = make_stack(form, depth, width, seed)
    x, target = batch_and_target(width, seed)
    grads = stack_backward(stack, x, target)
    # ‖W‖_F as √(Σ w²) in numpy: np.linalg.norm would call BLAS's dot, threaded (and as slow as above) at this size
    return np.array([np.sqrt(np.sum(np.square(grads[2 * layer + 1]["w2"]))) for layer in range(depth)])


def residual_scales(form: str, depth: int, width: int, seed: int = 0) -> np.ndarray:
    """The root-mean-square of the residual stream at the input and after each layer (length depth + 1).

    Shows how activation scale evolves with depth at initialization: it stays 1 after every Post-LN / DeepNorm
    layer and keeps growing without normalization and along the Pre-LN residual path. Introduced in
    notebook 09.
    """
    _check_args(form, depth, width)
    stack = make_stack(form, depth, width, seed)
    x, _ = batch_and_target(width, seed)
    _, stream, _ = stack_forward(stack, x)
    return np.array([np.sqrt(np.mean(s * s)) for s in stream[::2]])
