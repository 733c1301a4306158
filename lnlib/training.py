"""Train small models in numpy, with and without normalization (notebook 15).

Two experiments, each deterministic for a seed (numpy, every backward pass written by hand):

- `train_mlp(norm)`: a deep ReLU MLP, blocks Linear → norm → ReLU, on a fixed 3-arm spiral (2-D points, 3 classes).
  norm = "none" | "layer" (LayerNorm) | "batch" (BatchNorm) | "rms" (RMSNorm); γ, β are learned.
  The block weights start at N(0, s²·g/fan_in): g = 1 (init="lecun", the default) or 2 (init="he", Kaiming, the
  standard for ReLU), s = weight_scale (1 by default). Without normalization the ReLU signal halves its variance
  in every block under LeCun (×0.1 in standard deviation over 8 blocks) and keeps it under He; normalization makes
  the forward signal independent of s. The head always starts at N(0, 1/fan_in).
- `train_transformer(form)`: token + position embedding → notebook 09's encoder stack (lnlib.transformer's
  initialization and residual forms: Post-LN, Pre-LN or no LayerNorm) → linear head, trained to REVERSE a sequence
  of 6 random digits.

Both use Adam with an optional linear learning-rate warm-up, minimize the mean softmax cross-entropy and report
one loss and one global gradient norm per step. A run DIVERGES when a loss or gradient norm is not finite or the
loss blows up: it exceeds BLOWUP (3) × where it started — during the first 10 steps each loss is compared with the
first one, later the mean of the last 10 losses with the mean of the first 10. Training stops at that step (its loss
is the last one recorded).

Speed: the models are tiny, so a step is dominated by the cost of each numpy call, not by arithmetic. Every array
therefore carries a leading RUN axis: `sweep` trains all (learning rate, warm-up) settings of one model in LOCKSTEP
(same seed, so the same initial weights and the same mini-batches; batched matmuls), paying each call once for the
whole grid. Runs never mix along that axis, so each run's numbers are those of training it alone up to rounding
in the last digits (a batched matmul may block its sums differently; `train_mlp` and `train_transformer` are the
batch of one). A run that diverges is recorded at that step and dropped from the batch
while the others go on. The tasks are kept small for the same reason (32 points, or 6 sequences, per step), and
where numba is installed (and NUMBA_DISABLE_JIT is not set) Adam's update and LayerNorm's forward and backward run
as compiled loops that do numpy's operations in numpy's order: the same bits either way (`lnlib._train_kernels`).
The optimiser (`Params`, `Adam`, `adam_step`, `warmup_lr`) is `lnlib.optim`; this module re-exports it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import _budget, _lean
from . import transformer as tf
from ._lean import LN_EPS, _t
from ._lean import xent as _xent
from ._stats import BN_MOMENTUM, running_update
from ._train_kernels import RMS_EPS as RMS_EPS  # the names below are re-exported: lnlib.training.Adam …
from ._train_kernels import lean_standardize, lean_standardize_backward
from ._train_kernels import rms_backward as rms_backward
from ._train_kernels import rms_scale as rms_scale
from .optim import ADAM_EPS as ADAM_EPS
from .optim import BETA1 as BETA1
from .optim import BETA2 as BETA2
from .optim import Adam, Params, warmup_lr
from .optim import adam_step as adam_step

NORMS = ("none", "layer", "batch", "rms")
INITS = {"lecun": 1.0, "he": 2.0}  # the gain g of the block weights' variance g / fan_in
FORMS = ("post", "pre", "none")
BLOWUP, WINDOW = 3.0, 10  # diverged: the loss (mean of WINDOW steps) above BLOWUP × its start (see _blown_up)
CLASSES, POINTS = 3, 600  # the spiral: 3 classes, 600 training and 600 held-out points
DIGITS, LENGTH, HELD_OUT = 10, 6, 100  # the sequence task: reverse 6 digits (0-9); 100 held-out sequences


def global_norms(grad: np.ndarray) -> np.ndarray:
    """√(Σ g²) over every entry of every gradient, one per run (row of `grad`): the 'global gradient norm'."""
    return np.sqrt(np.add.reduce(grad * grad, axis=1))  # numpy's own sum (np.vecdot may start BLAS threads)


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
    stop_reason: str = ""  # why a diverged run stopped: "nonfinite", "blowup" (a step of the first WINDOW) or "window"


# ---------------------------------------------------------------- argument checks


def _check_int(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name}: expected an int ≥ {low}, got {value!r}")
    if value < low:
        raise ValueError(f"{name}: expected an int ≥ {low}, got {value!r}")
    return int(value)


def _check_lr(lr, name: str = "lr") -> float:
    if isinstance(lr, bool) or not isinstance(lr, int | float | np.integer | np.floating):
        raise TypeError(f"{name}: expected a finite number > 0, got {lr!r:.60}")
    try:
        value = float(lr)
    except OverflowError:  # an int beyond float64 (10**400)
        value = math.inf
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name}: expected a finite number > 0, got {_short(lr)}")
    return value


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 24 else f"{text[:12]}… ({len(text)} characters)"


def _check_budget(cost, what: str, runs: int, depth: int, width: int, steps: int, batch: int) -> None:
    """Refuse, before any work, a training call beyond lnlib's budget of one call (lnlib/_budget.py): first the
    model's size (depth, width) for one run of one step, then the number of runs side by side, then the steps."""
    _budget.check_size(depth, width, lambda d, w: cost(1, d, w, 1, batch), what=what)
    where = f"{what} of depth {depth} and width {width}"
    _budget.check_arg("settings", runs, lambda r: cost(r, depth, width, 1, batch), what=f"runs of {where}")
    _budget.check_arg("steps", steps, lambda s: cost(runs, depth, width, s, batch), what=f"{runs} run(s) of {where}")


def _check_record_steps(record_steps) -> list[int]:
    if isinstance(record_steps, int | np.integer):
        raise TypeError(f"record_steps: expected a list of steps (e.g. (0, -1)), got the single int {record_steps!r}")
    try:
        steps = list(record_steps)
    except TypeError:
        raise TypeError(f"record_steps: expected a list of steps (e.g. (0, -1)), got {record_steps!r:.60}") from None
    return [_check_int("record_steps", s, -1) for s in steps]


def _check_choice(name: str, value, choices) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected one of {choices}, got {value!r}")
    if value not in choices:
        raise ValueError(f"{name}: expected one of {choices}, got {value!r}")
    return value


def _check_settings(settings) -> list[tuple[float, int]]:
    """[(lr, warmup_steps), …] checked: a non-empty list of learning rates and warm-ups."""
    try:
        pairs = list(settings)
    except TypeError:
        raise TypeError(f"settings: expected (lr, warmup_steps) pairs, got {settings!r}") from None
    if not pairs:
        raise ValueError("settings: expected at least one (lr, warmup_steps) pair")
    out = []
    for pair in pairs:
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise TypeError(f"settings: expected (lr, warmup_steps) pairs, got {pair!r}")
        out.append((_check_lr(pair[0]), _check_int("warmup_steps", pair[1], 0)))
    return out


# ---------------------------------------------------------------- the MLP experiment


def spiral(points: int = POINTS, *, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """`points` 2-D points on three interleaved spiral arms with a little noise, and their class (0, 1, 2)."""
    rng = np.random.default_rng([seed, 15])
    labels = np.arange(points) % CLASSES
    r = rng.uniform(0.1, 1.0, points)
    angle = 4.0 * r + labels * 2 * np.pi / CLASSES + rng.normal(0, 0.2, points)
    return np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1) * 2.0, labels


class MLP:
    """depth blocks Linear → norm → ReLU (width units), then a linear head to CLASSES logits; `runs` copies of it
    with the same initial weights (trained in lockstep). params[name] has shape (runs, *shape).

    init ("lecun" | "he") and weight_scale set the block weights' standard deviation weight_scale·√(g / fan_in)
    (see the module docstring); the same rng draws give every init and scale the same normalized weights.

    BatchNorm keeps running statistics (momentum BN_MOMENTUM, running variance from the UNBIASED batch variance,
    as lnlib.BatchNorm): training mode normalizes with the batch's statistics and updates them, eval mode uses them.
    """

    def __init__(
        self,
        norm: str,
        depth: int,
        width: int,
        rng: np.random.Generator,
        runs: int = 1,
        *,
        init: str = "lecun",
        weight_scale: float = 1.0,
    ):
        self.norm, self.depth, self.width = norm, depth, width
        arrays: dict[str, np.ndarray] = {}
        fan_in = 2
        for i in range(depth):
            std = weight_scale * math.sqrt(INITS[init]) / math.sqrt(fan_in)  # LeCun, s = 1: 1/√fan_in exactly
            arrays[f"w{i}"] = rng.normal(0, 1, (fan_in, width)) * std
            arrays[f"b{i}"] = np.zeros(width)
            if norm != "none":
                arrays[f"gamma{i}"] = np.ones(width)
                if norm != "rms":  # RMSNorm has no β
                    arrays[f"beta{i}"] = np.zeros(width)
            fan_in = width
        arrays["w_out"] = rng.normal(0, 1 / math.sqrt(fan_in), (fan_in, CLASSES))
        arrays["b_out"] = np.zeros(CLASSES)
        self.p = Params({k: np.broadcast_to(a, (runs, *a.shape)) for k, a in arrays.items()})
        self.params = self.p.values
        self.bn_mean = np.zeros((depth, runs, 1, width))
        self.bn_var = np.ones((depth, runs, 1, width))

    def _forward(self, x: np.ndarray, mode: str) -> tuple[np.ndarray, list]:
        """Logits and the per-block record. mode: "train" (BatchNorm: batch statistics, running ones updated),
        "eval" (running statistics) or "batch" (each batch's own statistics, nothing updated). x: (..., n, 2);
        its leading axes broadcast against the runs (shared data: (n, 2))."""
        p, record, h = self.params, [], x
        for i in range(self.depth):
            z = h @ p[f"w{i}"]
            z += p[f"b{i}"][:, None]
            stats = None
            if self.norm == "layer":
                zhat, _, _, stats = lean_standardize(z)
            elif self.norm == "rms":
                zhat, stats = rms_scale(z)
            elif self.norm == "batch" and mode == "eval":
                zhat = (z - self.bn_mean[i]) / np.sqrt(self.bn_var[i] + LN_EPS)
            elif self.norm == "batch":
                zhat, mean, var, stats = lean_standardize(z, axis=-2)
                if mode == "train":
                    n, m = z.shape[-2], BN_MOMENTUM
                    self.bn_mean[i] = running_update(self.bn_mean[i], mean, m)
                    self.bn_var[i] = running_update(self.bn_var[i], var, m, n)
            if self.norm != "none":
                z = p[f"gamma{i}"][:, None] * zhat
                if self.norm != "rms":
                    z += p[f"beta{i}"][:, None]
            else:
                zhat = None
            record.append((h, zhat, stats))
            h = np.maximum(z, 0.0)
        record.append((h, None, None))
        logits = h @ p["w_out"]
        logits += p["b_out"][:, None]
        return logits, record

    def _backward(self, dlogits: np.ndarray, record: list) -> list[np.ndarray]:
        """Write every parameter's gradient into self.p.grads; return dL/d(output of block l) for each block."""
        p, g = self.params, self.p.grads
        np.matmul(_t(record[-1][0]), dlogits, out=g["w_out"])
        np.add.reduce(dlogits, axis=-2, out=g["b_out"])
        dh = dlogits @ _t(p["w_out"])
        dhs = []
        for i in reversed(range(self.depth)):
            x, zhat, stats = record[i]
            dhs.append(dh)
            du = dh * (record[i + 1][0] > 0)  # ReLU: its output > 0 exactly where its input is
            if self.norm != "none":
                np.add.reduce(du * zhat, axis=-2, out=g[f"gamma{i}"])
                if self.norm != "rms":
                    np.add.reduce(du, axis=-2, out=g[f"beta{i}"])
                du = du * p[f"gamma{i}"][:, None]
                if self.norm == "rms":
                    du = rms_backward(du, zhat, stats)
                else:
                    du = lean_standardize_backward(du, zhat, stats, axis=-2 if self.norm == "batch" else -1)
            np.matmul(_t(x), du, out=g[f"w{i}"])
            np.add.reduce(du, axis=-2, out=g[f"b{i}"])
            if i:
                dh = du @ _t(p[f"w{i}"])
        return dhs[::-1]

    def step(self, x: np.ndarray, labels: np.ndarray):
        """One training-mode forward and backward pass of every run on the batch (x, labels): returns the losses
        (one per run), the per-block record and the per-block output gradients; gradients land in self.p.grads."""
        logits, record = self._forward(x, "train")
        losses, dlogits = _xent(logits, labels)
        return losses, record, self._backward(dlogits, record)

    def loss_and_grads(self, x, labels) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The losses (one per run) and a copy of every gradient (shapes as `params`) for one training batch."""
        losses, _, _ = self.step(np.asarray(x, dtype=np.float64), np.asarray(labels))
        return losses, self.p.grad_copy()

    def accuracy(
        self, x: np.ndarray, labels: np.ndarray, *, batch_size: int | None = None, batch_stats: bool = False
    ) -> float:
        """Held-out accuracy of a single-run model, evaluated `batch_size` examples at a time (all at once by
        default; the batches are evaluated side by side, as one array). Evaluating never changes the model.

        BatchNorm uses its running statistics unless batch_stats=True (the statistics of each evaluation batch;
        with batch_size=1 every normalized value is then 0, so every input gets the same logits). The other norms
        give the same result for every batch size.
        """
        if self.p.runs != 1:
            raise ValueError(f"accuracy: expected a single-run model, this one holds {self.p.runs} runs")
        size = len(x) if batch_size is None else _check_int("batch_size", batch_size, 1)
        full = len(x) // size * size
        parts = [(x[:full].reshape(-1, size, x.shape[-1]), labels[:full].reshape(-1, size))]
        if full < len(x):
            parts.append((x[full:][None], labels[full:][None]))
        correct = 0
        with np.errstate(all="ignore"):  # a diverged model may hold huge numbers
            for xs, ys in parts:
                logits, _ = self._forward(xs, "batch" if batch_stats else "eval")
                correct += int(np.sum(np.argmax(logits, axis=-1) == ys))
        return correct / len(x)

    def keep(self, rows) -> None:
        """Go on with only the runs `rows` (a boolean mask or indices)."""
        self.p = self.p.subset(rows)
        self.params = self.p.values
        self.bn_mean, self.bn_var = self.bn_mean[:, rows], self.bn_var[:, rows]

    def single(self, run: int) -> MLP:
        """A separate single-run model holding a copy of run `run` (to evaluate it, e.g. Run.model)."""
        new = object.__new__(MLP)
        new.norm, new.depth, new.width = self.norm, self.depth, self.width
        new.p = Params({k: v[run : run + 1] for k, v in self.params.items()})
        new.params = new.p.values
        new.bn_mean, new.bn_var = self.bn_mean[:, run : run + 1].copy(), self.bn_var[:, run : run + 1].copy()
        return new


def train_mlp(
    norm: str,
    *,
    depth: int = 8,
    width: int = 64,
    lr: float = 1e-2,
    steps: int = 300,
    seed: int = 0,
    batch_size: int = 32,
    warmup_steps: int = 0,
    record_steps=(0, -1),
    init: str = "lecun",
    weight_scale: float = 1.0,
) -> Run:
    """Train the deep ReLU MLP on the spiral with Adam; mini-batches of `batch_size` drawn at random each step.

    record_steps: steps at which to keep per-layer activations and gradients (Run.snapshots); −1 = the last step run.
    init: "lecun" (N(0, 1/fan_in), the default) or "he" (N(0, 2/fan_in)); weight_scale multiplies the block weights'
    standard deviation (the head's stays √(1/fan_in)).
    run.test_accuracy uses the 600 held-out points (BatchNorm in eval mode, with its running statistics).
    """
    (run,) = train_mlp_runs(
        norm,
        [(lr, warmup_steps)],
        depth=depth,
        width=width,
        steps=steps,
        seed=seed,
        batch_size=batch_size,
        record_steps=record_steps,
        init=init,
        weight_scale=weight_scale,
    )
    return run


def train_mlp_runs(
    norm: str,
    settings,
    *,
    depth: int = 8,
    width: int = 64,
    steps: int = 300,
    seed: int = 0,
    batch_size: int = 32,
    record_steps=(0, -1),
    init: str = "lecun",
    weight_scale: float = 1.0,
    on_step=None,
) -> list[Run]:
    """`train_mlp` for several (lr, warmup_steps) settings at once, in lockstep: one Run per setting, each the
    same as `train_mlp(norm, lr=lr, warmup_steps=warmup_steps, …)` would give. `on_step(n)`, if given, hears of
    every n steps done (`steps` in all: the steps a blow-up of every run leaves out are reported at the end)."""
    norm = _check_choice("norm", norm, NORMS)
    settings = _check_settings(settings)
    depth, width = _check_int("depth", depth, 1), _check_int("width", width, 1)
    steps, seed = _check_int("steps", steps, 1), _check_int("seed", seed, 0)
    batch_size = _check_int("batch_size", batch_size, 2 if norm == "batch" else 1)
    if batch_size > POINTS:
        raise ValueError(f"batch_size: expected at most {POINTS} (the training set), got {batch_size}")
    _check_budget(_budget.mlp_cost, "an MLP", len(settings), depth, width, steps, batch_size)
    record = _check_record_steps(record_steps)
    init = _check_choice("init", init, tuple(INITS))
    weight_scale = _check_lr(weight_scale, "weight_scale")
    rng = np.random.default_rng(seed)
    model = MLP(norm, depth, width, rng, runs=len(settings), init=init, weight_scale=weight_scale)
    x_train, y_train = spiral(seed=0)

    def batch(step):
        idx = rng.choice(POINTS, size=batch_size, replace=False)
        return x_train[idx], y_train[idx]

    def snap(step, trace, run):
        record, dhs = trace
        return Snapshot(step, [h[run].copy() for h, _, _ in record[1:]], [d[run].copy() for d in dhs])

    runs = _train(model, batch, settings, steps, record, snap, on_step)
    x_test, y_test = spiral(seed=1)
    for run in runs:
        if not run.diverged:
            run.test_accuracy = run.model.accuracy(x_test, y_test)
    return runs


# ---------------------------------------------------------------- the Transformer experiment


class SequenceModel:
    """Embedding (token + position) → encoder stack of `form` → linear head over the digits; `runs` copies with
    the same initial weights (trained in lockstep). params[name] has shape (runs, *shape).

    The stack is notebook 09's (lnlib.transformer.make_stack's weights and residual forms: Post-LN, Pre-LN + final
    LN, or no LN; single-head self-attention and a ReLU feed-forward of hidden width 4·width). Its forward and
    backward passes are written out here for speed: Q, K and V come from ONE matmul with the fused matrix
    "i.wqkv" = [W_Q | W_K | W_V] (tests/test_training.py checks them against lnlib.transformer's)."""

    def __init__(self, form: str, depth: int, width: int, rng: np.random.Generator, seed: int, runs: int = 1):
        stack = tf.make_stack(form, depth, width, seed)
        self.form, self.depth, self.width = form, depth, width
        self.kinds = [sub.kind for sub in stack.sublayers]
        arrays = {
            "tok": rng.normal(0, 1, (DIGITS, width)),
            "pos": rng.normal(0, 1, (LENGTH, width)),
            "w_out": tf.xavier(width, DIGITS, rng),
            "b_out": np.zeros(DIGITS),
        }
        for i, sub in enumerate(stack.sublayers):
            w = sub.w
            if sub.kind == "attn":
                arrays[f"{i}.wqkv"] = np.concatenate([w["wq"], w["wk"], w["wv"]], axis=1)
                arrays[f"{i}.wo"] = w["wo"]
            else:
                arrays[f"{i}.w1"], arrays[f"{i}.w2"] = w["w1"], w["w2"]
        self.p = Params({k: np.broadcast_to(a, (runs, *a.shape)) for k, a in arrays.items()})
        self.params = self.p.values

    # -- the residual stack

    def _attention(self, i: int, u: np.ndarray, seqs: int):
        p, d = self.params, self.width
        qkv = (u @ p[f"{i}.wqkv"]).reshape(u.shape[0], seqs, LENGTH, 3 * d)
        q, k, v = qkv[..., :d], qkv[..., d : 2 * d], qkv[..., 2 * d :]
        o, w = _lean.lean_attention(q, k, v)
        o = o.reshape(u.shape)
        return o @ p[f"{i}.wo"], (u, q, k, v, w, o)

    def _attention_backward(self, i: int, dy: np.ndarray, cache) -> np.ndarray:
        p, g, d = self.params, self.p.grads, self.width
        u, q, k, v, w, o = cache
        np.matmul(_t(o), dy, out=g[f"{i}.wo"])
        do = (dy @ _t(p[f"{i}.wo"])).reshape(v.shape)
        dqkv = _lean.lean_attention_backward(do, q, k, v, w, np.empty((*v.shape[:-1], 3 * d)))
        dqkv = dqkv.reshape(*u.shape[:-1], 3 * d)
        np.matmul(_t(u), dqkv, out=g[f"{i}.wqkv"])
        return dqkv @ _t(p[f"{i}.wqkv"])

    def _ffn(self, i: int, u: np.ndarray):
        a = u @ self.params[f"{i}.w1"]
        np.maximum(a, 0.0, out=a)
        return a @ self.params[f"{i}.w2"], (u, a)

    def _ffn_backward(self, i: int, dy: np.ndarray, cache) -> np.ndarray:
        p, g = self.params, self.p.grads
        u, a = cache
        np.matmul(_t(a), dy, out=g[f"{i}.w2"])
        da = dy @ _t(p[f"{i}.w2"])
        da *= a > 0  # ReLU: its output > 0 exactly where its input is
        np.matmul(_t(u), da, out=g[f"{i}.w1"])
        return da @ _t(p[f"{i}.w1"])

    def stack_forward(self, h: np.ndarray, seqs: int):
        """The residual stack (as lnlib.transformer.stack_forward) on h of shape (runs, seqs·LENGTH, width)."""
        form, record = self.form, []
        for i, kind in enumerate(self.kinds):
            sub = self._attention if kind == "attn" else self._ffn
            if form == "pre":  # x' = x + F(LN(x))
                u, _, _, std = lean_standardize(h)
                f, cache = sub(i, u, seqs) if kind == "attn" else sub(i, u)
                record.append((cache, u, std))
                h = h + f
            else:  # x' = LN(x + F(x)), or x + F(x) without the LN
                f, cache = sub(i, h, seqs) if kind == "attn" else sub(i, h)
                h = h + f
                if form == "post":
                    h, _, _, std = lean_standardize(h)
                    record.append((cache, h, std))
                else:
                    record.append((cache, None, None))
        if form == "pre":
            h, _, _, std = lean_standardize(h)
            record.append((None, h, std))
        return h, record

    def stack_backward(self, dout: np.ndarray, record: list) -> np.ndarray:
        """Every sub-layer's weight gradients (into self.p.grads) and dL/d(stack input), by hand."""
        form, g = self.form, dout
        if form == "pre":
            _, out, std = record[-1]
            g = lean_standardize_backward(g, out, std)
        for i in reversed(range(len(self.kinds))):
            cache, xhat, std = record[i]
            back = self._attention_backward if self.kinds[i] == "attn" else self._ffn_backward
            if form == "pre":
                g = g + lean_standardize_backward(back(i, g, cache), xhat, std)
            else:
                ds = g if form == "none" else lean_standardize_backward(g, xhat, std)
                g = ds + back(i, ds, cache)
        return g

    # -- the whole model

    def _logits(self, tokens: np.ndarray):
        p = self.params
        seqs = len(tokens)
        h = np.take(p["tok"], tokens, axis=1) + p["pos"][:, None]  # (runs, seqs, LENGTH, width)
        out, record = self.stack_forward(h.reshape(len(h), seqs * LENGTH, self.width), seqs)
        logits = out @ p["w_out"]
        logits += p["b_out"][:, None]
        return logits, out, record

    def step(self, tokens: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """One forward and backward pass of every run on the batch: the losses (one per run); gradients land in
        self.p.grads."""
        p, g = self.params, self.p.grads
        logits, out, record = self._logits(tokens)
        losses, dlogits = _xent(logits, targets.reshape(-1))
        np.matmul(_t(out), dlogits, out=g["w_out"])
        np.add.reduce(dlogits, axis=-2, out=g["b_out"])
        dh = self.stack_backward(dlogits @ _t(p["w_out"]), record)
        onehot = np.equal.outer(tokens.reshape(-1), np.arange(DIGITS)).astype(np.float64)
        np.matmul(onehot.T, dh, out=g["tok"])  # each token's row collects the gradients where it occurs
        np.add.reduce(dh.reshape(len(dh), len(tokens), LENGTH, self.width), axis=1, out=g["pos"])
        return losses

    def loss_and_grads(self, tokens, targets) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The losses (one per run) and a copy of every gradient (shapes as `params`) for one batch."""
        losses = self.step(np.asarray(tokens), np.asarray(targets))
        return losses, self.p.grad_copy()

    def accuracy(self, tokens: np.ndarray, targets: np.ndarray) -> float:
        """The fraction of digits put in the right place (a single-run model)."""
        if self.p.runs != 1:
            raise ValueError(f"accuracy: expected a single-run model, this one holds {self.p.runs} runs")
        with np.errstate(all="ignore"):
            logits, _, _ = self._logits(tokens)
        return float(np.mean(np.argmax(logits[0], axis=-1) == targets.reshape(-1)))

    def keep(self, rows) -> None:
        """Go on with only the runs `rows` (a boolean mask or indices)."""
        self.p = self.p.subset(rows)
        self.params = self.p.values

    def single(self, run: int) -> SequenceModel:
        """A separate single-run model holding a copy of run `run` (to evaluate it, e.g. Run.model)."""
        new = object.__new__(SequenceModel)
        new.form, new.depth, new.width, new.kinds = self.form, self.depth, self.width, self.kinds
        new.p = Params({k: v[run : run + 1] for k, v in self.params.items()})
        new.params = new.p.values
        return new


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
    batch_size: int = 6,
) -> Run:
    """Train embedding + encoder stack (`form`: "post", "pre" or "none") + head to reverse 6 digits, with Adam.

    Every step draws `batch_size` fresh random sequences; the learning rate warms up linearly over warmup_steps.
    run.test_accuracy: the fraction of digits in the right place on HELD_OUT (100) held-out sequences.
    """
    (run,) = train_transformer_runs(
        form, [(lr, warmup_steps)], depth=depth, width=width, steps=steps, seed=seed, batch_size=batch_size
    )
    return run


def train_transformer_runs(
    form: str,
    settings,
    *,
    depth: int = 6,
    width: int = 32,
    steps: int = 300,
    seed: int = 0,
    batch_size: int = 6,
    on_step=None,
) -> list[Run]:
    """`train_transformer` for several (lr, warmup_steps) settings at once, in lockstep: one Run per setting, each
    the same as `train_transformer(form, lr=lr, warmup_steps=warmup_steps, …)` would give (`on_step`: as in
    `train_mlp_runs`)."""
    form = _check_choice("form", form, FORMS)
    settings = _check_settings(settings)
    depth, width = _check_int("depth", depth, 1), _check_int("width", width, 1)
    steps, seed = _check_int("steps", steps, 1), _check_int("seed", seed, 0)
    batch_size = _check_int("batch_size", batch_size, 1)
    _check_budget(_budget.transformer_cost, "a Transformer", len(settings), depth, width, steps, batch_size)
    rng = np.random.default_rng(seed)
    model = SequenceModel(form, depth, width, rng, seed, runs=len(settings))
    runs = _train(model, lambda step: digit_batch(rng, batch_size), settings, steps, [], None, on_step)
    held_out = digit_batch(np.random.default_rng([seed, 99]), HELD_OUT)
    for run in runs:
        if not run.diverged:
            run.test_accuracy = run.model.accuracy(*held_out)
    return runs


# ---------------------------------------------------------------- the shared loop


def _train(model, batch, settings, steps: int, record, snap, on_step=None) -> list[Run]:
    """Train every run of `model` in lockstep: run r with settings[r] = (lr, warmup_steps), on the same batches.
    A run that diverges is recorded and dropped from the model (the others go on with fewer rows)."""
    n = len(settings)
    lrs = np.array([[warmup_lr(s, lr, w) for lr, w in settings] for s in range(steps)])
    losses, norms = np.full((steps, n), np.nan), np.full((steps, n), np.nan)
    length, diverged, reason = np.full(n, steps), np.zeros(n, dtype=bool), [""] * n
    rows = np.arange(n)  # the run held in each row of the model
    final: dict[int, object] = {}  # each run's model when it stopped
    snapshots: list[dict[int, Snapshot]] = [{} for _ in range(n)]
    opt = Adam(model.p)
    with np.errstate(all="ignore"):  # a blow-up is detected below, never printed as a warning
        for step in range(steps):
            out = model.step(*batch(step))
            loss, trace = (out[0], out[1:]) if isinstance(out, tuple) else (out, None)
            norm = global_norms(model.p.grad)
            losses[step, rows], norms[step, rows] = loss, norm
            finite = np.isfinite(loss) & np.isfinite(norm)
            ok = finite & ~_blown_up(losses[:, rows], step)
            if snap is not None and (step in record or (step == steps - 1 and -1 in record)):
                for i in np.flatnonzero(ok):
                    snapshots[rows[i]][step] = snap(step, trace, i)
            for i in np.flatnonzero(~ok):  # run rows[i] stops here, as it is
                final[rows[i]] = model.single(i)
                length[rows[i]], diverged[rows[i]] = step + 1, True
                reason[rows[i]] = "nonfinite" if not finite[i] else ("blowup" if step < WINDOW else "window")
            if not ok.any():
                if on_step is not None:
                    on_step(steps - step)
                break
            if not ok.all():
                model.keep(ok)
                opt.keep(ok, model.p)
                rows = rows[ok]
            opt.step(lrs[step, rows])
            if on_step is not None:
                on_step(1)
    final.update({r: model.single(i) for i, r in enumerate(rows) if not diverged[r]})
    return [
        Run(
            losses[: length[r], r].copy(),
            norms[: length[r], r].copy(),
            bool(diverged[r]),
            lrs[: length[r], r].copy(),
            math.nan,
            snapshots[r],
            final[r],
            reason[r],
        )
        for r in range(n)
    ]


def _blown_up(losses: np.ndarray, step: int) -> np.ndarray:
    """Loss above BLOWUP × where it started, per run (column of losses[:step + 1]): for the first WINDOW steps each
    loss against the first one, then the mean of the last WINDOW losses against the mean of the first WINDOW (so one
    unlucky small batch is no blow-up)."""
    if step < WINDOW:
        return losses[step] > BLOWUP * losses[0]
    return np.add.reduce(losses[step - WINDOW + 1 : step + 1], axis=0) > BLOWUP * np.add.reduce(losses[:WINDOW], axis=0)


# ---------------------------------------------------------------- grids of runs (computed once, then explored)


def sweep(model: str, variants, lrs, warmups=(0,), **kwargs) -> dict[tuple, Run]:
    """Train every (variant, lr, warm-up) combination once: model "mlp" (variants = norms) or "transformer"
    (variants = forms). Returns {(variant, lr, warmup_steps): Run}; extra keywords go to the training function.
    All settings of one variant are trained together, in lockstep (see the module docstring): each Run is the one
    `train_mlp` / `train_transformer` gives for that setting."""
    train = (
        {"mlp": train_mlp_runs, "transformer": train_transformer_runs}.get(model) if isinstance(model, str) else None
    )
    if train is None:
        raise ValueError(f"model: expected 'mlp' or 'transformer', got {model!r}")
    lrs, warmups, variants = (
        _as_list(name, v) for name, v in (("lrs", lrs), ("warmups", warmups), ("variants", variants))
    )
    settings = [(lr, w) for lr in lrs for w in warmups]
    grid = {}
    for v in variants:
        for (lr, w), run in zip(settings, train(v, settings, **kwargs), strict=True):
            grid[(v, lr, w)] = run
    return grid


def _as_list(name: str, values) -> list:
    """A non-empty list of the values a sweep tries (a single number or text is refused, not iterated)."""
    if isinstance(values, str | bytes) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name}: expected a list of values to try, got {values!r:.60}")
    out = list(values)
    if not out:
        raise ValueError(f"{name}: expected at least one value to try, got an empty {type(values).__name__}")
    repeated = [v for i, v in enumerate(out) if v in out[:i]]
    if repeated:  # the results are keyed by value: a repeated one would silently drop a run
        raise ValueError(f"{name}: expected each value once (results are keyed by it), got {repeated[0]!r:.30} twice")
    return out


def final_loss(run: Run, last: int = 20) -> float:
    """The mean training loss of the last `last` steps, or NaN if the run diverged."""
    return math.nan if run.diverged else float(np.mean(run.losses[-last:]))
