"""Train small models in numpy, with and without normalization (notebook 15).

Two experiments, each deterministic for a seed (numpy only, every backward pass written by hand):

- `train_mlp(norm)`: a deep ReLU MLP, blocks Linear → norm → ReLU, on a fixed 3-arm spiral (2-D points, 3 classes).
  norm = "none" | "layer" (LayerNorm) | "batch" (BatchNorm) | "rms" (RMSNorm); γ, β are learned.
  All weights start at N(0, 1/fan_in) (LeCun): without normalization the ReLU signal shrinks layer after layer.
- `train_transformer(form)`: token + position embedding → notebook 09's encoder stack (lnlib.transformer, Post-LN,
  Pre-LN or no LayerNorm) → linear head, trained to REVERSE a sequence of 6 random digits.

Both use Adam with an optional linear learning-rate warm-up, minimize the mean softmax cross-entropy and report
one loss and one global gradient norm per step. A run DIVERGES when a loss or gradient norm is not finite or the
loss blows up: it exceeds BLOWUP (3) × where it started — during the first 10 steps each loss is compared with the
first one, later the mean of the last 10 losses with the mean of the first 10. Training stops at that step (its loss
is the last one recorded).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import transformer as tf

NORMS = ("none", "layer", "batch", "rms")
FORMS = ("post", "pre", "none")
BLOWUP, WINDOW = 3.0, 10  # diverged: the loss (mean of WINDOW steps) above BLOWUP × its start (see _blown_up)
LN_EPS, RMS_EPS = 1e-5, 1e-6
CLASSES, POINTS = 3, 600  # the spiral: 3 classes, 600 training and 600 held-out points
DIGITS, LENGTH = 10, 6  # the sequence task: reverse 6 digits (0-9)


# ---------------------------------------------------------------- schedule and optimizer


def warmup_lr(step: int, lr: float, warmup_steps: int) -> float:
    """Linear warm-up: lr·(step + 1)/warmup_steps for the first warmup_steps steps (step counts from 0), then lr."""
    if warmup_steps <= 0:
        return float(lr)
    return float(lr) * min(1.0, (step + 1) / warmup_steps)


def adam_step(param, grad, m, v, t: int, lr: float, *, beta1=0.9, beta2=0.999, eps=1e-8):
    """One Adam step (Kingma & Ba 2015) at step t = 1, 2, …; returns the new (param, m, v).

    m ← β1·m + (1 − β1)·g,  v ← β2·v + (1 − β2)·g²,  param ← param − lr · m̂ / (√v̂ + ε)
    with the bias corrections m̂ = m / (1 − β1^t), v̂ = v / (1 − β2^t).
    """
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad * grad
    m_hat = m / (1 - beta1**t)
    v_hat = v / (1 - beta2**t)
    return param - lr * m_hat / (np.sqrt(v_hat) + eps), m, v


class Adam:
    """Adam over a dict of parameter arrays, updated in place with `adam_step`'s arithmetic.

    The arrays are gathered into one flat vector (each dict entry becomes a view of it), so a step is a few
    vector operations whatever the number of arrays.
    """

    def __init__(self, params: dict[str, np.ndarray]):
        self.keys = list(params)
        self.flat = np.concatenate([params[k].ravel() for k in self.keys])
        self.params, start = params, 0
        for k in self.keys:
            size = params[k].size
            view = self.flat[start : start + size].reshape(params[k].shape)
            params[k] = view
            start += size
        self.m, self.v, self.t = np.zeros_like(self.flat), np.zeros_like(self.flat), 0

    def step(self, grads: dict[str, np.ndarray], lr: float) -> None:
        self.t += 1
        g = np.concatenate([grads[k].ravel() for k in self.keys])
        self.flat[...], self.m, self.v = adam_step(self.flat, g, self.m, self.v, self.t, lr)


def global_norm(grads: dict[str, np.ndarray]) -> float:
    """√(Σ g²) over every entry of every gradient: the 'global gradient norm' (as in gradient clipping)."""
    return math.sqrt(sum(float(np.sum(g * g)) for g in grads.values()))


# ---------------------------------------------------------------- layers: forward and hand-written backward


def softmax_cross_entropy(logits, labels) -> tuple[float, np.ndarray]:
    """Mean over rows of −log softmax(logits)[label]; returns (loss, dL/dlogits = (softmax − one-hot) / rows)."""
    z = logits.reshape(-1, logits.shape[-1])
    y = np.asarray(labels).reshape(-1)
    shifted = z - z.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    rows = np.arange(y.size)
    loss = -float(log_p[rows, y].mean())
    d = np.exp(log_p)
    d[rows, y] -= 1.0
    return loss, (d / y.size).reshape(logits.shape)


# lnlib.layer_norm, rms_norm and layer_norm_backward accept any input (every dtype, 1e-300 … 1e300) and check it;
# a training loop calls them thousands of times on small, well-scaled float64 arrays, so the loop uses these lean
# copies of the same formulas instead. tests/test_training.py checks that they agree with lnlib's functions.


def layer_norm_fwd(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """x̂ = (x − μ) / √(σ² + ε) over `axis` (-1: LayerNorm over the features; 0: BatchNorm over the batch)."""
    c = x - x.mean(axis=axis, keepdims=True)
    return c / np.sqrt(np.mean(c * c, axis=axis, keepdims=True) + LN_EPS)


def layer_norm_bwd(dxhat: np.ndarray, x: np.ndarray, xhat: np.ndarray, axis: int = -1) -> np.ndarray:
    """dx = (g − mean(g) − x̂ · mean(g ⊙ x̂)) / √(σ² + ε), means over `axis` (as lnlib.layer_norm_backward)."""
    rstd = 1.0 / np.sqrt(np.var(x, axis=axis, keepdims=True) + LN_EPS)
    g = dxhat
    return rstd * (g - g.mean(axis=axis, keepdims=True) - xhat * np.mean(g * xhat, axis=axis, keepdims=True))


def rms_norm_fwd(x: np.ndarray) -> np.ndarray:
    """x̂ = x / √(mean(x²) + ε) over the features (RMSNorm without γ)."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + RMS_EPS)


def rms_norm_bwd(dxhat: np.ndarray, x: np.ndarray, xhat: np.ndarray) -> np.ndarray:
    """dx = (g − x̂ · mean(g ⊙ x̂)) / r with r = √(mean x² + ε), means over the features."""
    r = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + RMS_EPS)
    return (dxhat - xhat * np.mean(dxhat * xhat, axis=-1, keepdims=True)) / r


class BatchStats:
    """BatchNorm's bookkeeping, as lnlib.BatchNorm does it: batch statistics in training mode, running ones in eval
    mode; running_var is updated with the UNBIASED batch variance (momentum 0.1)."""

    def __init__(self, width: int, momentum: float = 0.1):
        self.mean, self.var, self.momentum = np.zeros(width), np.ones(width), momentum

    def __call__(self, x: np.ndarray, training: bool) -> np.ndarray:
        if not training:
            return (x - self.mean) / np.sqrt(self.var + LN_EPS)
        n, m = len(x), self.momentum
        self.mean = (1 - m) * self.mean + m * x.mean(axis=0)
        self.var = (1 - m) * self.var + m * x.var(axis=0) * n / (n - 1)
        return layer_norm_fwd(x, axis=0)


def normalize(kind: str, x: np.ndarray, bn: BatchStats | None = None, training: bool = True) -> np.ndarray:
    """x̂ of one normalization: over the features (LayerNorm, RMSNorm) or over the batch (BatchNorm, via `bn`)."""
    if kind == "layer":
        return layer_norm_fwd(x)
    if kind == "rms":
        return rms_norm_fwd(x)
    return bn(x, training)


def normalize_backward(kind: str, dxhat: np.ndarray, x: np.ndarray, xhat: np.ndarray) -> np.ndarray:
    """dL/dx from dL/dx̂ for `normalize` in training mode. LayerNorm and BatchNorm are one formula over different
    axes (the features / the batch)."""
    if kind == "rms":
        return rms_norm_bwd(dxhat, x, xhat)
    return layer_norm_bwd(dxhat, x, xhat, axis=0 if kind == "batch" else -1)


def embed_backward(dh: np.ndarray, tokens: np.ndarray, vocab: int) -> tuple[np.ndarray, np.ndarray]:
    """Gradients of h = E[tokens] + P (token and position embeddings): rows of E collect the tokens' gradients."""
    d_tok = np.zeros((vocab, dh.shape[-1]))
    np.add.at(d_tok, tokens.reshape(-1), dh.reshape(-1, dh.shape[-1]))
    return d_tok, dh.sum(axis=0)


# ---------------------------------------------------------------- results


@dataclass
class Snapshot:
    """Per-layer signals at one training step (layer 1 = next to the input).

    activations[l]: the output of block l (after ReLU), one row per example;
    gradients[l]: dL/d(that output), the signal the backward pass carries down.
    """

    step: int
    activations: list[np.ndarray]
    gradients: list[np.ndarray]

    @property
    def activation_std(self) -> np.ndarray:
        return np.array([a.std() for a in self.activations])

    @property
    def gradient_std(self) -> np.ndarray:
        return np.array([g.std() for g in self.gradients])


@dataclass
class Run:
    """The record of one training run."""

    losses: np.ndarray  # training loss of every step run
    grad_norms: np.ndarray  # global gradient norm of every step run
    diverged: bool  # stopped early: non-finite loss or gradient, or a blow-up (see the module docstring)
    lrs: np.ndarray  # learning rate used at every step (after warm-up)
    test_accuracy: float  # accuracy on held-out data after training (nan if diverged)
    snapshots: dict[int, Snapshot] = field(default_factory=dict)  # MLP only: per-layer signals at recorded steps
    model: object = field(default=None, repr=False)  # the trained model (MLP: to evaluate BatchNorm modes)


# ---------------------------------------------------------------- argument checks


def _check_int(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name}: expected an int ≥ {low}, got {value!r}")
    if value < low:
        raise ValueError(f"{name}: expected an int ≥ {low}, got {value!r}")
    return int(value)


def _check_lr(lr) -> float:
    if isinstance(lr, bool) or not isinstance(lr, int | float | np.integer | np.floating):
        raise TypeError(f"lr: expected a finite number > 0, got {lr!r}")
    if not (math.isfinite(lr) and lr > 0):
        raise ValueError(f"lr: expected a finite number > 0, got {lr!r}")
    return float(lr)


def _check_choice(name: str, value, choices) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected one of {choices}, got {value!r}")
    if value not in choices:
        raise ValueError(f"{name}: expected one of {choices}, got {value!r}")
    return value


# ---------------------------------------------------------------- the MLP experiment


def spiral(points: int = POINTS, *, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """`points` 2-D points on three interleaved spiral arms with a little noise, and their class (0, 1, 2)."""
    rng = np.random.default_rng([seed, 15])
    labels = np.arange(points) % CLASSES
    r = rng.uniform(0.1, 1.0, points)
    angle = 4.0 * r + labels * 2 * np.pi / CLASSES + rng.normal(0, 0.2, points)
    return np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1) * 2.0, labels


class MLP:
    """depth blocks Linear → norm → ReLU (width units), then a linear head to CLASSES logits."""

    def __init__(self, norm: str, depth: int, width: int, rng: np.random.Generator):
        self.norm, self.depth = norm, depth
        self.params: dict[str, np.ndarray] = {}
        fan_in = 2
        for i in range(depth):
            self.params[f"w{i}"] = rng.normal(0, 1 / math.sqrt(fan_in), (fan_in, width))
            self.params[f"b{i}"] = np.zeros(width)
            if norm != "none":
                self.params[f"gamma{i}"] = np.ones(width)
                if norm != "rms":  # RMSNorm has no β
                    self.params[f"beta{i}"] = np.zeros(width)
            fan_in = width
        self.params["w_out"] = rng.normal(0, 1 / math.sqrt(fan_in), (fan_in, CLASSES))
        self.params["b_out"] = np.zeros(CLASSES)
        self.bns = [BatchStats(width) for _ in range(depth)] if norm == "batch" else [None] * depth

    def forward(self, x: np.ndarray, *, training: bool = True) -> tuple[np.ndarray, list[dict]]:
        p, caches = self.params, []
        for i in range(self.depth):
            z = x @ p[f"w{i}"] + p[f"b{i}"]
            c = {"x": x, "z": z}
            if self.norm != "none":
                c["zhat"] = normalize(self.norm, z, self.bns[i], training)
                z = p[f"gamma{i}"] * c["zhat"] + p.get(f"beta{i}", 0.0)
            x = np.maximum(z, 0.0)
            c["u"], c["h"] = z, x
            caches.append(c)
        return x @ p["w_out"] + p["b_out"], caches

    def backward(self, dlogits: np.ndarray, caches: list[dict]) -> tuple[dict[str, np.ndarray], list[np.ndarray]]:
        p, g = self.params, {}
        g["w_out"], g["b_out"] = caches[-1]["h"].T @ dlogits, dlogits.sum(axis=0)
        dh = dlogits @ p["w_out"].T
        dhs = []
        for i in reversed(range(self.depth)):
            c = caches[i]
            dhs.append(dh)
            du = dh * (c["u"] > 0)
            if self.norm != "none":
                g[f"gamma{i}"] = np.sum(du * c["zhat"], axis=0)
                if self.norm != "rms":
                    g[f"beta{i}"] = du.sum(axis=0)
                du = normalize_backward(self.norm, du * p[f"gamma{i}"], c["z"], c["zhat"])
            g[f"w{i}"], g[f"b{i}"] = c["x"].T @ du, du.sum(axis=0)
            dh = du @ p[f"w{i}"].T
        return g, dhs[::-1]

    def loss_and_grads(self, x, labels):
        logits, caches = self.forward(x)
        loss, dlogits = softmax_cross_entropy(logits, labels)
        grads, dhs = self.backward(dlogits, caches)
        return loss, grads, caches, dhs

    def accuracy(
        self, x: np.ndarray, labels: np.ndarray, *, batch_size: int | None = None, batch_stats: bool = False
    ) -> float:
        """Held-out accuracy, evaluated `batch_size` examples at a time (all at once by default).

        BatchNorm uses its running statistics unless batch_stats=True (the statistics of each evaluation batch;
        with batch_size=1 every normalized value is then 0). The other norms ignore both options.
        """
        size = len(x) if batch_size is None else batch_size
        running = [(bn.mean, bn.var) for bn in self.bns if bn is not None]
        correct = 0
        with np.errstate(all="ignore"):
            for start in range(0, len(x), size):
                logits, _ = self.forward(x[start : start + size], training=batch_stats and size > 1)
                if batch_stats and size == 1 and self.norm == "batch":  # one example: x − μ_batch = 0
                    logits = self._constant_logits()
                correct += int(np.sum(np.argmax(logits, axis=1) == labels[start : start + size]))
        for bn, (mean, var) in zip([b for b in self.bns if b is not None], running, strict=True):
            bn.mean, bn.var = mean, var  # evaluating never changes the model
        return correct / len(x)

    def _constant_logits(self) -> np.ndarray:
        """BatchNorm on a batch of ONE: every x̂ is 0, so each block outputs ReLU(β) whatever the input."""
        h = np.maximum(self.params[f"beta{self.depth - 1}"], 0.0)
        return (h @ self.params["w_out"] + self.params["b_out"])[None, :]


def train_mlp(
    norm: str,
    *,
    depth: int = 8,
    width: int = 64,
    lr: float = 1e-2,
    steps: int = 300,
    seed: int = 0,
    batch_size: int = 64,
    warmup_steps: int = 0,
    record_steps=(0, -1),
) -> Run:
    """Train the deep ReLU MLP on the spiral with Adam; mini-batches of `batch_size` drawn at random each step.

    record_steps: steps at which to keep per-layer activations and gradients (Run.snapshots); −1 = the last step run.
    run.test_accuracy uses the 600 held-out points (BatchNorm in eval mode, with its running statistics).
    """
    norm = _check_choice("norm", norm, NORMS)
    depth, width = _check_int("depth", depth, 1), _check_int("width", width, 1)
    lr, steps = _check_lr(lr), _check_int("steps", steps, 1)
    seed, warmup_steps = _check_int("seed", seed, 0), _check_int("warmup_steps", warmup_steps, 0)
    batch_size = _check_int("batch_size", batch_size, 2 if norm == "batch" else 1)
    if batch_size > POINTS:
        raise ValueError(f"batch_size: expected at most {POINTS} (the training set), got {batch_size}")
    record = [_check_int("record_steps", s, -1) for s in record_steps]
    rng = np.random.default_rng(seed)
    model = MLP(norm, depth, width, rng)
    x_train, y_train = spiral(seed=0)
    opt = Adam(model.params)

    def step_fn(step, lr_now):
        idx = rng.choice(POINTS, size=batch_size, replace=False)
        loss, grads, caches, dhs = model.loss_and_grads(x_train[idx], y_train[idx])
        return loss, grads, (caches, dhs)

    def snap(step, extra):
        caches, dhs = extra
        return Snapshot(step, [c["h"] for c in caches], dhs)

    run = _train(step_fn, opt, lr, steps, warmup_steps, record, snap)
    run.model = model
    if not run.diverged:
        x_test, y_test = spiral(seed=1)
        run.test_accuracy = model.accuracy(x_test, y_test)
    return run


# ---------------------------------------------------------------- the Transformer experiment


class SequenceModel:
    """Embedding (token + position) → encoder stack of `form` (lnlib.transformer) → linear head over the digits."""

    def __init__(self, form: str, depth: int, width: int, rng: np.random.Generator, seed: int):
        self.stack = tf.make_stack(form, depth, width, seed)
        self.params = {
            "tok": rng.normal(0, 1, (DIGITS, width)),
            "pos": rng.normal(0, 1, (LENGTH, width)),
            "w_out": tf.xavier(width, DIGITS, rng),
            "b_out": np.zeros(DIGITS),
        }
        for i, sub in enumerate(self.stack.sublayers):
            for k, w in sub.w.items():
                self.params[f"{i}.{k}"] = w

    def bind(self) -> None:
        """Point the stack's sub-layers at the arrays in `params` (after Adam replaced them by views)."""
        for i, sub in enumerate(self.stack.sublayers):
            sub.w = {k: self.params[f"{i}.{k}"] for k in sub.w}

    def forward(self, h: np.ndarray) -> tuple[np.ndarray, list[dict]]:
        """The residual stack of lnlib.transformer.stack_forward (Post-LN, Pre-LN + final LN, or no LN)."""
        form, caches = self.stack.form, []
        for sub in self.stack.sublayers:
            if form == "pre":  # x' = x + F(LN(x))
                u = layer_norm_fwd(h)
                f, c = sub.forward(u)
                c.update(x_in=h, u_hat=u)
                h = h + f
            else:  # x' = LN(x + F(x)), or x + F(x) without the LN
                f, c = sub.forward(h)
                s = h + f
                h = s if form == "none" else layer_norm_fwd(s)
                c.update(s=s, out=h)
            caches.append(c)
        if form == "pre":
            caches.append({"x_last": h})
            h = layer_norm_fwd(h)
            caches[-1]["out"] = h
        return h, caches

    def backward(self, dout: np.ndarray, caches: list[dict]) -> tuple[list[dict], np.ndarray]:
        """Weight gradients of every sub-layer and dL/d(stack input), by hand (the reverse of `forward`)."""
        form, g = self.stack.form, dout
        if form == "pre":
            last = caches.pop()
            g = layer_norm_bwd(g, last["x_last"], last["out"])
        grads = [{} for _ in self.stack.sublayers]
        for i in reversed(range(len(self.stack.sublayers))):
            sub, c = self.stack.sublayers[i], caches[i]
            if form == "pre":
                du, grads[i] = sub.backward(g, c)
                g = g + layer_norm_bwd(du, c["x_in"], c["u_hat"])
            else:
                ds = g if form == "none" else layer_norm_bwd(g, c["s"], c["out"])
                dx, grads[i] = sub.backward(ds, c)
                g = ds + dx
        return grads, g

    def loss_and_grads(self, tokens: np.ndarray, targets: np.ndarray):
        p = self.params
        out, caches = self.forward(p["tok"][tokens] + p["pos"])
        logits = out @ p["w_out"] + p["b_out"]
        loss, dlogits = softmax_cross_entropy(logits, targets)
        g = {"w_out": tf._outer_sum(out, dlogits), "b_out": dlogits.sum(axis=(0, 1))}
        sub_grads, dh0 = self.backward(dlogits @ p["w_out"].T, caches)
        for i, grads in enumerate(sub_grads):
            for k, gk in grads.items():
                g[f"{i}.{k}"] = gk
        g["tok"], g["pos"] = embed_backward(dh0, tokens, DIGITS)
        return loss, g, logits

    def accuracy(self, tokens: np.ndarray, targets: np.ndarray) -> float:
        """The fraction of digits put in the right place."""
        _, _, logits = self.loss_and_grads(tokens, targets)
        return float(np.mean(np.argmax(logits, axis=-1) == targets))


def digit_batch(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """`size` random sequences of LENGTH digits and their reversals (the targets)."""
    tokens = rng.integers(0, DIGITS, (size, LENGTH))
    return tokens, tokens[:, ::-1].copy()


def train_transformer(
    form: str,
    *,
    depth: int = 6,
    width: int = 32,
    lr: float = 1e-3,
    warmup_steps: int = 0,
    steps: int = 300,
    seed: int = 0,
    batch_size: int = 8,
) -> Run:
    """Train embedding + encoder stack (`form`: "post", "pre" or "none") + head to reverse 6 digits, with Adam.

    Every step draws `batch_size` fresh random sequences; the learning rate warms up linearly over warmup_steps.
    run.test_accuracy: the fraction of digits in the right place on 256 held-out sequences.
    """
    form = _check_choice("form", form, FORMS)
    depth, width = _check_int("depth", depth, 1), _check_int("width", width, 1)
    lr, steps = _check_lr(lr), _check_int("steps", steps, 1)
    seed, warmup_steps = _check_int("seed", seed, 0), _check_int("warmup_steps", warmup_steps, 0)
    batch_size = _check_int("batch_size", batch_size, 1)
    rng = np.random.default_rng(seed)
    model = SequenceModel(form, depth, width, rng, seed)
    opt = Adam(model.params)
    model.bind()

    def step_fn(step, lr_now):
        loss, grads, _ = model.loss_and_grads(*digit_batch(rng, batch_size))
        return loss, grads, None

    run = _train(step_fn, opt, lr, steps, warmup_steps, [], None)
    run.model = model
    if not run.diverged:
        run.test_accuracy = model.accuracy(*digit_batch(np.random.default_rng([seed, 99]), 256))
    return run


# ---------------------------------------------------------------- the shared loop


def _train(step_fn, opt: Adam, lr: float, steps: int, warmup_steps: int, record, snap) -> Run:
    losses, norms, lrs, snapshots = [], [], [], {}
    diverged = False
    for step in range(steps):
        lr_now = warmup_lr(step, lr, warmup_steps)
        with np.errstate(all="ignore"):  # a blow-up is detected below, never printed as a warning
            loss, grads, extra = step_fn(step, lr_now)
            gnorm = global_norm(grads)
        losses.append(loss)
        norms.append(gnorm)
        lrs.append(lr_now)
        if not (math.isfinite(loss) and math.isfinite(gnorm)) or _blown_up(losses):
            diverged = True
            break
        if snap is not None and (step in record or (step == steps - 1 and -1 in record)):
            snapshots[step] = snap(step, extra)
        with np.errstate(all="ignore"):
            opt.step(grads, lr_now)
    return Run(np.array(losses), np.array(norms), diverged, np.array(lrs), math.nan, snapshots)


def _blown_up(losses: list[float]) -> bool:
    """Loss above BLOWUP × where it started: for the first WINDOW steps each loss against the first one, then the
    mean of the last WINDOW losses against the mean of the first WINDOW (so one unlucky small batch is no blow-up)."""
    if len(losses) <= WINDOW:
        return losses[-1] > BLOWUP * losses[0]
    return sum(losses[-WINDOW:]) > BLOWUP * sum(losses[:WINDOW])


# ---------------------------------------------------------------- grids of runs (computed once, then explored)


def sweep(model: str, variants, lrs, warmups=(0,), **kwargs) -> dict[tuple, Run]:
    """Train every (variant, lr, warm-up) combination once: model "mlp" (variants = norms) or "transformer"
    (variants = forms). Returns {(variant, lr, warmup_steps): Run}; extra keywords go to the training function."""
    train = {"mlp": train_mlp, "transformer": train_transformer}.get(model) if isinstance(model, str) else None
    if train is None:
        raise ValueError(f"model: expected 'mlp' or 'transformer', got {model!r}")
    return {(v, lr, w): train(v, lr=lr, warmup_steps=w, **kwargs) for v in variants for lr in lrs for w in warmups}


def final_loss(run: Run, last: int = 20) -> float:
    """The mean training loss of the last `last` steps, or NaN if the run diverged."""
    return math.nan if run.diverged else float(np.mean(run.losses[-last:]))


def trains(run: Run, last: int = 20) -> bool:
    """A run 'trains' when it did not diverge and its final loss is at most half of its first loss."""
    return not run.diverged and final_loss(run, last) <= 0.5 * run.losses[0]


def outcome(run: Run) -> str:
    """'学会' (trains), '卡住' (no blow-up, but the loss did not halve) or '发散' (diverged), for tables."""
    return "发散" if run.diverged else ("学会" if trains(run) else "卡住")
