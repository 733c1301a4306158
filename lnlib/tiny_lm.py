"""A tiny character-level decoder-only Transformer trained in numpy (notebook 16): Pre-LN blocks and a final
LayerNorm, every LayerNorm's input rows kept by the forward pass, a hand-written backward, the loss, and the
inference-time ablations of the notebook (a LayerNorm dropped, replaced by RMSNorm, its statistics frozen, another ε).

The architecture, for width d, L layers, H heads and context T:

    h⁰ = E[token] + P[position]
    h  ← h + Attn(LN₁(h))        (causal, H heads, one fused Q/K/V matrix, no biases)
    h  ← h + W₂·ReLU(W₁·LN₂(h) + b₁) + b₂
    logits = LN_f(h)·W_out + b_out

The LayerNorms are named "1.attn", "1.mlp", "2.attn", "2.mlp", …, "final" (`norm_names`). Everything is float64.
The shipped weights (`load`) were trained by `python -m tools.train_tiny_lm` on `lnlib.tiny_corpus`.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from . import _lean, tiny_corpus
from ._lean import LN_EPS, outer_sum
from ._train_kernels import lean_standardize, rms_scale
from .i18n import message
from .stages import variance_shares as variance_shares  # notebook 16 calls it here
from .training import adam_step, warmup_lr
from .transformer import softmax

WEIGHTS_FILE = "tiny_lm_weights.npz"
# sha256 of the shipped weights' values (`digest`): names in sorted order, each array's float64 bytes
DIGEST = "67a61f730feece217278af559022e0a041afdfb6d4ac1a9c040f9e272654cee1"
DIGEST_KERNEL = "SkylakeX"  # the OpenBLAS kernel they were trained on; another kernel trains another model


@dataclass(frozen=True)
class Config:
    vocab: str  # the characters, in the order of the embedding rows
    width: int = 32
    layers: int = 2
    heads: int = 2
    context: int = 16
    hidden: int = 128  # the MLP's hidden width

    def index(self) -> dict[str, int]:
        return {ch: i for i, ch in enumerate(self.vocab)}


def norm_names(layers: int) -> list[str]:
    """The LayerNorms in the order the forward pass meets them."""
    return [f"{i}.{part}" for i in range(1, layers + 1) for part in ("attn", "mlp")] + ["final"]


def norm_label(name: str) -> str:
    """The name of a LayerNorm, from the catalogue: 第 1 层·注意力前, …, 最终 LayerNorm."""
    if name == "final":
        return message("topics.norm.final")
    layer, part = name.split(".")
    return message(
        "topics.norm.layer", layer=layer, part=message("topics.norm.attn" if part == "attn" else "topics.norm.mlp")
    )


def init_params(config: Config, seed: int) -> dict[str, np.ndarray]:
    """GPT-2's initialization: N(0, 0.02²) weights, the residual projections ÷ √(2L), γ = 1, β = 0, biases 0."""
    rng = np.random.default_rng(seed)
    d, v, hid = config.width, len(config.vocab), config.hidden
    std, proj = 0.02, 0.02 / math.sqrt(2 * config.layers)
    p = {"tok": rng.normal(0, std, (v, d)), "pos": rng.normal(0, std, (config.context, d))}
    for i in range(1, config.layers + 1):
        p[f"{i}.attn.g"], p[f"{i}.attn.b"] = np.ones(d), np.zeros(d)
        p[f"{i}.qkv"] = rng.normal(0, std, (d, 3 * d))
        p[f"{i}.wo"] = rng.normal(0, proj, (d, d))
        p[f"{i}.mlp.g"], p[f"{i}.mlp.b"] = np.ones(d), np.zeros(d)
        p[f"{i}.w1"], p[f"{i}.b1"] = rng.normal(0, std, (d, hid)), np.zeros(hid)
        p[f"{i}.w2"], p[f"{i}.b2"] = rng.normal(0, proj, (hid, d)), np.zeros(d)
    p["final.g"], p["final.b"] = np.ones(d), np.zeros(d)
    p["out"], p["out.b"] = rng.normal(0, std, (d, v)), np.zeros(v)
    return p


@dataclass
class Model:
    config: Config
    params: dict[str, np.ndarray]

    @property
    def names(self) -> list[str]:
        return norm_names(self.config.layers)


@dataclass(frozen=True)
class Ablation:
    """How the LayerNorms named in `where` (all of them when None) are computed at inference.

    mode "ln": LayerNorm with `eps`; "none": the LayerNorm removed (its input passes through, no γ, β);
    "rms": RMSNorm in its place, x / √(mean(x²) + ε) · γ + β (no μ subtracted, the trained γ, β kept);
    "frozen": (x − μ̄) / σ̄ · γ + β with μ̄, σ̄ fixed numbers per LayerNorm (`frozen`: name → (μ̄, σ̄))."""

    mode: str = "ln"
    where: tuple[str, ...] | None = None
    eps: float = LN_EPS
    frozen: dict = field(default_factory=dict)

    def applies(self, name: str) -> bool:
        return self.where is None or name in self.where


NORMAL = Ablation()


@dataclass
class Forward:
    """One forward pass: the logits (B, T, V) and, per LayerNorm name, its input rows (B, T, d) and statistics."""

    logits: np.ndarray
    inputs: dict[str, np.ndarray]  # what entered each LayerNorm
    mu: dict[str, np.ndarray]
    sigma: dict[str, np.ndarray]  # √(σ² + ε) of each row, as LayerNorm divides by it
    xhat: dict[str, np.ndarray]
    cache: dict = field(default_factory=dict, repr=False)


def _norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, name: str, ab: Ablation):
    """(y, mu, sd, xhat) of one normalization over the last axis, as `ab` says for LayerNorm `name`."""
    mode = ab.mode if ab.applies(name) else "ln"
    eps = ab.eps if ab.applies(name) else LN_EPS
    if mode == "none":
        return x.copy(), None, None, x
    if mode == "rms":
        xhat, sd = rms_scale(x, eps)
        return xhat * g + b, np.zeros_like(sd), sd, xhat
    if mode == "frozen":
        m, s = ab.frozen[name]
        xhat = (x - m) / s
        return xhat * g + b, np.full(x.shape[:-1] + (1,), m), np.full(x.shape[:-1] + (1,), s), xhat
    xhat, mu, _, sd = lean_standardize(x, eps=eps)
    return xhat * g + b, mu, sd, xhat


def _norm_backward(dy, xhat, sd, g):
    dxhat = dy * g
    dg = (dy * xhat).reshape(-1, dy.shape[-1]).sum(axis=0)
    db = dy.reshape(-1, dy.shape[-1]).sum(axis=0)
    dx = (dxhat - dxhat.mean(axis=-1, keepdims=True) - xhat * np.mean(dxhat * xhat, axis=-1, keepdims=True)) / sd
    return dx, dg, db


def forward(model: Model, ids, ablation: Ablation = NORMAL) -> Forward:
    """Run the model on token ids (B, T) or (T,) (then B = 1), keeping every LayerNorm's input rows."""
    ids = np.asarray(ids)
    if ids.ndim == 1:
        ids = ids[None]
    cfg, p = model.config, model.params
    bsz, t = ids.shape
    if t > cfg.context:
        raise ValueError(f"ids: at most {cfg.context} tokens per sequence, got {t}")
    d, heads = cfg.width, cfg.heads
    hd = d // heads
    mask = np.triu(np.full((t, t), -np.inf), 1)
    h = p["tok"][ids] + p["pos"][:t]
    out = Forward(None, {}, {}, {}, {})
    c = out.cache
    c["ids"] = ids
    for i in range(1, cfg.layers + 1):
        for part in ("attn", "mlp"):
            name = f"{i}.{part}"
            out.inputs[name] = h
            z, mu, sd, xhat = _norm(h, p[f"{name}.g"], p[f"{name}.b"], name, ablation)
            out.mu[name], out.sigma[name], out.xhat[name] = mu, sd, xhat
            c[name] = (xhat, sd, z)
            if part == "attn":
                qkv = z @ p[f"{i}.qkv"]  # (B, T, 3d)
                q, k, v = (
                    qkv[..., j * d : (j + 1) * d].reshape(bsz, t, heads, hd).transpose(0, 2, 1, 3) for j in range(3)
                )
                o, a = _lean.lean_attention(q, k, v, mask)
                o = o.transpose(0, 2, 1, 3).reshape(bsz, t, d)
                c[f"{i}.att"] = (q, k, v, a, o)
                h = h + o @ p[f"{i}.wo"]
            else:
                u = z @ p[f"{i}.w1"] + p[f"{i}.b1"]
                r = np.maximum(u, 0)
                c[f"{i}.relu"] = (u, r)
                h = h + r @ p[f"{i}.w2"] + p[f"{i}.b2"]
    out.inputs["final"] = h
    z, mu, sd, xhat = _norm(h, p["final.g"], p["final.b"], "final", ablation)
    out.mu["final"], out.sigma["final"], out.xhat["final"] = mu, sd, xhat
    c["final"] = (xhat, sd, z)
    out.logits = z @ p["out"] + p["out.b"]
    return out


def cross_entropy(logits: np.ndarray, targets: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean cross-entropy (nats) of `logits` (…, V) against integer `targets` (…) and its gradient."""
    loss, grad = _lean.xent(logits.reshape(-1, logits.shape[-1]), np.asarray(targets).reshape(-1))
    return float(loss), grad.reshape(logits.shape)


def backward(model: Model, fwd: Forward, dlogits: np.ndarray) -> dict[str, np.ndarray]:
    """Gradients of every parameter from dL/dlogits, for a forward pass with ordinary LayerNorms."""
    cfg, p, c = model.config, model.params, fwd.cache
    d, heads = cfg.width, cfg.heads
    hd = d // heads
    bsz, t = c["ids"].shape
    g = {}
    xhat, sd, z = c["final"]
    flat = dlogits.reshape(-1, dlogits.shape[-1])
    g["out"] = outer_sum(z, dlogits)
    g["out.b"] = flat.sum(axis=0)
    dh, g["final.g"], g["final.b"] = _norm_backward(dlogits @ p["out"].T, xhat, sd, p["final.g"])
    for i in range(cfg.layers, 0, -1):
        for part in ("mlp", "attn"):
            name = f"{i}.{part}"
            xhat, sd, z = c[name]
            if part == "mlp":
                u, r = c[f"{i}.relu"]
                g[f"{i}.w2"] = outer_sum(r, dh)
                g[f"{i}.b2"] = dh.reshape(-1, d).sum(axis=0)
                du = (dh @ p[f"{i}.w2"].T) * (u > 0)
                g[f"{i}.w1"] = outer_sum(z, du)
                g[f"{i}.b1"] = du.reshape(-1, cfg.hidden).sum(axis=0)
                dz = du @ p[f"{i}.w1"].T
            else:
                q, k, v, a, o = c[f"{i}.att"]
                g[f"{i}.wo"] = outer_sum(o, dh)
                do = (dh @ p[f"{i}.wo"].T).reshape(bsz, t, heads, hd).transpose(0, 2, 1, 3)
                per_head = _lean.lean_attention_backward(do, q, k, v, a, np.empty((bsz, heads, t, 3 * hd)))
                dqkv = np.concatenate(  # [dQ | dK | dV] of every head, back to (B, T, 3d)
                    [per_head[..., j * hd : (j + 1) * hd].transpose(0, 2, 1, 3).reshape(bsz, t, d) for j in range(3)],
                    axis=-1,
                )
                g[f"{i}.qkv"] = outer_sum(z, dqkv)
                dz = dqkv @ p[f"{i}.qkv"].T
            dx, g[f"{name}.g"], g[f"{name}.b"] = _norm_backward(dz, xhat, sd, p[f"{name}.g"])
            dh = dh + dx
    g["pos"] = dh.sum(axis=0)
    if t < cfg.context:
        g["pos"] = np.concatenate([g["pos"], np.zeros((cfg.context - t, d))])
    g["tok"] = np.zeros_like(p["tok"])
    np.add.at(g["tok"], c["ids"].reshape(-1), dh.reshape(-1, d))
    return g


# ---- text, loading, evaluation ----


def encode(config: Config, text: str) -> np.ndarray:
    """The token ids of `text`; a character outside the vocabulary is a ValueError naming it (in Chinese)."""
    if not isinstance(text, str):
        raise TypeError(f"text: expected a str, got {type(text).__name__}")
    index = config.index()
    unknown = list(dict.fromkeys(ch for ch in text if ch not in index))  # in the order they first occur
    if unknown:
        raise ValueError(oov_message(unknown, len(config.vocab)))
    return np.array([index[ch] for ch in text], dtype=np.int64)


OOV_SHOWN = 8  # unknown characters named in the message


def oov_message(unknown, size: int) -> str:
    """The message for characters outside the vocabulary (of `size` characters); the first `OOV_SHOWN` are named,
    the rest counted."""
    unknown = list(unknown)
    shown = message("input.list_separator").join(message("input.oov_char", ch=ch) for ch in unknown[:OOV_SHOWN])
    if len(unknown) > OOV_SHOWN:
        shown += message("input.oov_more", n=len(unknown))
    return message("input.oov", shown=shown, size=size)


def digest(params: dict[str, np.ndarray]) -> str:
    """sha256 over the parameter names in sorted order and each array's float64 bytes (C order)."""
    h = hashlib.sha256()
    for name in sorted(params):
        h.update(name.encode())
        h.update(np.ascontiguousarray(params[name], dtype=np.float64).tobytes())
    return h.hexdigest()


_MODEL: Model | None = None


def load() -> Model:
    """The shipped trained model (read once per process)."""
    global _MODEL
    if _MODEL is None:
        with resources.files("lnlib").joinpath(WEIGHTS_FILE).open("rb") as f, np.load(f) as z:
            meta = {k: z[k] for k in z.files}
        shape = meta.pop("shape")
        config = Config(str(meta.pop("vocab")), *(int(v) for v in shape))
        meta.pop("first_losses", None)
        _MODEL = Model(config, {k.replace("__", "."): v for k, v in meta.items()})
    return _MODEL


def first_losses() -> np.ndarray:
    """The training losses of the first steps, stored with the weights (a fresh run must repeat them)."""
    with resources.files("lnlib").joinpath(WEIGHTS_FILE).open("rb") as f, np.load(f) as z:
        return z["first_losses"].copy()


def windows(ids: np.ndarray, context: int) -> tuple[np.ndarray, np.ndarray]:
    """All non-overlapping windows of `context` inputs and their next-token targets (the evaluation set)."""
    n = (len(ids) - 1) // context
    x = ids[: n * context].reshape(n, context)
    y = ids[1 : n * context + 1].reshape(n, context)
    return x, y


def heldout(model: Model) -> tuple[np.ndarray, np.ndarray]:
    return windows(encode(model.config, tiny_corpus.read_part("heldout").strip()), model.config.context)


@dataclass(frozen=True)
class Score:
    loss: float  # mean cross-entropy in nats per character
    accuracy: float  # share of next characters guessed right (top-1)


def evaluate(model: Model, x, y, ablation: Ablation = NORMAL) -> Score:
    fwd = forward(model, x, ablation)
    loss, _ = cross_entropy(fwd.logits, y)
    return Score(loss, float(np.mean(fwd.logits.argmax(axis=-1) == y)))


BASELINE_SMOOTHING = 1e-3  # added to every count: a pair never seen keeps a tiny probability, nothing more


def baselines(model: Model, x, y) -> dict[str, Score]:
    """Unigram and bigram models counted on the training text, scored on (x, y): the counts themselves (plus
    BASELINE_SMOOTHING, so that an unseen pair is not impossible), the fairest a counting model can be here. (Add-one
    smoothing, used before, cost the bigram model 0.10 nats on notebook 16's held-out text: 1.30 against 1.20.)"""
    v = len(model.config.vocab)
    train = encode(model.config, tiny_corpus.read_part("train").strip())
    uni = np.bincount(train, minlength=v) + BASELINE_SMOOTHING
    uni /= uni.sum()
    big = np.full((v, v), BASELINE_SMOOTHING)
    np.add.at(big, (train[:-1], train[1:]), 1)
    big /= big.sum(axis=1, keepdims=True)
    scores = {}
    for name, prob in (("unigram", np.broadcast_to(uni, x.shape + (v,))), ("bigram", big[x])):
        p = np.take_along_axis(prob, y[..., None], axis=-1)[..., 0]
        scores[name] = Score(float(-np.log(p).mean()), float(np.mean(prob.argmax(axis=-1) == y)))
    return scores


def average_stats(model: Model, x) -> dict[str, tuple[float, float]]:
    """Per LayerNorm, μ and √(σ² + ε) averaged over every row of the batch x: what "frozen" uses."""
    fwd = forward(model, x)
    return {n: (float(fwd.mu[n].mean()), float(fwd.sigma[n].mean())) for n in model.names}


def predict(model: Model, text: str, ablation: Ablation = NORMAL) -> tuple[Forward, list[tuple[str, float]]]:
    """Forward pass on `text` (≤ context characters), with an inference-time `ablation` if given, and, after each
    character, the most likely next one with its probability."""
    if not isinstance(text, str):
        raise TypeError(f"text: expected a str, got {type(text).__name__}")
    if len(text) > model.config.context:  # before reading it: a long text's message stays short
        raise ValueError(message("input.too_long", context=model.config.context, given=len(text)))
    ids = encode(model.config, text)
    if len(ids) == 0:
        raise ValueError(message("input.empty_sentence"))
    fwd = forward(model, ids, ablation)
    prob = softmax(fwd.logits[0])
    best = prob.argmax(axis=-1)
    return fwd, [(model.config.vocab[b], float(prob[i, b])) for i, b in enumerate(best)]


# ---- training (tools/train_tiny_lm.py) ----

TRAIN_SEED = 0
TRAIN_STEPS = 3000
BATCH = 32
LR = 3e-3
WARMUP = 100
RECORD = 20  # the first steps' losses stored with the weights


def train(
    config: Config, text: str, *, seed: int = TRAIN_SEED, steps: int = TRAIN_STEPS, batch: int = BATCH, lr: float = LR
):
    """Adam on random windows of `text` (one rng for the initialization and the batches, seeded with `seed`);
    a linear warm-up over WARMUP steps, then a linear decay to 0 at `steps`. Returns (params, losses)."""
    ids = encode(config, text)
    params = init_params(config, seed)
    rng = np.random.default_rng(seed + 1)
    model = Model(config, params)
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(v) for k, v in params.items()}
    offsets = np.arange(config.context + 1)
    losses = []
    for step in range(steps):
        starts = rng.integers(0, len(ids) - config.context - 1, batch)
        chunk = ids[starts[:, None] + offsets]
        fwd = forward(model, chunk[:, :-1])
        loss, dlogits = cross_entropy(fwd.logits, chunk[:, 1:])
        losses.append(loss)
        grads = backward(model, fwd, dlogits)
        rate = warmup_lr(step, lr, WARMUP) * min(1.0, (steps - step) / max(1, steps - WARMUP))
        for k in params:
            params[k], m[k], v[k] = adam_step(params[k], grads[k], m[k], v[k], step + 1, rate)
    return params, np.array(losses)
