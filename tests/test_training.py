"""lnlib.training: the API, determinism, argument checks, every hand-written backward pass against central
differences and PyTorch autograd, the fused encoder stack against lnlib.transformer's, Adam and the warm-up against
closed forms and torch, lockstep training (several runs side by side) against the runs trained alone, and the
defaults' learning goals (deterministic for a seed)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import lnlib
from lnlib import _lean
from lnlib import _train_kernels as K
from lnlib import training as T
from lnlib import transformer as tf
from lnlib.code_exercises import judge_function
from lnlib.training_map import outcome_of

pytestmark = [
    pytest.mark.trained,  # trained numbers: make test runs them on a second BLAS kernel
    pytest.mark.usefixtures("compiled_loops_ready"),  # it compares the compiled loops with numpy
]


def central_differences(f, params: dict[str, np.ndarray], h: float = 1e-6) -> dict[str, np.ndarray]:
    """∂f/∂p for every array of `params` (changed in place, then restored), via lnlib.numerical_gradient."""
    out = {}
    for key, p in params.items():
        original = p.copy()

        def f_of(value, key=key, p=p):
            p[...] = value
            return f()

        out[key] = lnlib.numerical_gradient(f_of, original.copy(), h=h)
        p[...] = original
    return out


def assert_grads_close(got: dict, want: dict, rtol=1e-5, atol=1e-7):
    assert set(got) == set(want)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=rtol, atol=atol, err_msg=key)


# ---------------------------------------------------------------- API, determinism, arguments


def test_mlp_run_has_the_documented_fields():
    run = T.train_mlp("layer", depth=3, width=16, steps=20)
    assert isinstance(run.losses, np.ndarray) and isinstance(run.grad_norms, np.ndarray)
    assert run.losses.shape == run.grad_norms.shape == (20,)
    assert run.diverged is False and np.all(np.isfinite(run.losses)) and np.all(run.grad_norms > 0)
    assert sorted(run.snapshots) == [0, 19]
    snap = run.snapshots[0]
    assert len(snap.activations) == len(snap.gradients) == 3
    assert snap.activations[0].shape == snap.gradients[0].shape == (32, 16)  # default batch: 32 points
    assert snap.activation_std.shape == (3,) and 0 <= run.test_accuracy <= 1


@pytest.mark.parametrize("form", T.FORMS)
def test_transformer_run_has_the_documented_fields(form):
    run = T.train_transformer(form, depth=2, width=8, steps=12, warmup_steps=4)
    assert run.losses.shape == run.grad_norms.shape == run.lrs.shape == (12,)
    assert run.diverged is False
    np.testing.assert_allclose(run.lrs[:5], 1e-3 * np.array([0.25, 0.5, 0.75, 1, 1]))


def test_runs_are_deterministic_for_a_seed():
    a, b = T.train_mlp("batch", depth=3, steps=15, seed=3), T.train_mlp("batch", depth=3, steps=15, seed=3)
    np.testing.assert_array_equal(a.losses, b.losses)
    np.testing.assert_array_equal(a.grad_norms, b.grad_norms)
    c = T.train_mlp("batch", depth=3, steps=15, seed=4)
    assert not np.array_equal(a.losses, c.losses)
    t1, t2 = (T.train_transformer("pre", depth=2, width=8, steps=10, seed=1) for _ in range(2))
    np.testing.assert_array_equal(t1.losses, t2.losses)


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"norm": "group"}, ValueError, "norm"),
        ({"norm": 3}, TypeError, "norm"),
        ({"lr": 0.0}, ValueError, "lr"),
        ({"lr": -1e-3}, ValueError, "lr"),
        ({"lr": math.inf}, ValueError, "lr"),
        ({"lr": math.nan}, ValueError, "lr"),
        ({"lr": "0.1"}, TypeError, "lr"),
        ({"steps": 0}, ValueError, "steps"),
        ({"steps": 2.0}, TypeError, "steps"),
        ({"steps": True}, TypeError, "steps"),
        ({"depth": 0}, ValueError, "depth"),
        ({"width": 0}, ValueError, "width"),
        ({"width": 1.5}, TypeError, "width"),
        ({"seed": -1}, ValueError, "seed"),
        ({"warmup_steps": -1}, ValueError, "warmup_steps"),
        ({"batch_size": 0}, ValueError, "batch_size"),
        ({"batch_size": 10_000}, ValueError, "batch_size"),
        ({"norm": "batch", "batch_size": 1}, ValueError, "batch_size"),
    ],
)
def test_mlp_rejects_bad_arguments(kwargs, error, name):
    kwargs = {"norm": "layer", **kwargs}
    with pytest.raises(error, match=name):
        T.train_mlp(kwargs.pop("norm"), **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"form": "sandwich"}, ValueError, "form"),
        ({"form": None}, TypeError, "form"),
        ({"lr": 0}, ValueError, "lr"),
        ({"lr": float("nan")}, ValueError, "lr"),
        ({"warmup_steps": -5}, ValueError, "warmup_steps"),
        ({"warmup_steps": 1.0}, TypeError, "warmup_steps"),
        ({"steps": 0}, ValueError, "steps"),
        ({"depth": 0}, ValueError, "depth"),
        ({"width": -2}, ValueError, "width"),
        ({"batch_size": 0}, ValueError, "batch_size"),
    ],
)
def test_transformer_rejects_bad_arguments(kwargs, error, name):
    kwargs = {"form": "pre", **kwargs}
    with pytest.raises(error, match=name):
        T.train_transformer(kwargs.pop("form"), **kwargs)


def test_a_blow_up_stops_the_run_and_is_reported():
    run = T.train_mlp("none", lr=5.0, steps=200)
    assert run.diverged is True
    assert run.losses.size < 200 and run.losses.size == run.grad_norms.size
    losses, n = run.losses, T.WINDOW
    if losses.size <= n:  # early on, each loss is compared with the first one
        assert not np.isfinite(losses[-1]) or losses[-1] > 3 * losses[0]
    else:
        assert not np.isfinite(losses[-1]) or np.mean(losses[-n:]) > 3 * np.mean(losses[:n])
    assert np.all(np.isfinite(run.losses[:-1])) and math.isnan(run.test_accuracy)


# ---------------------------------------------------------------- the lean normalization copies = lnlib's functions


def test_lean_norms_match_lnlib():
    x = np.random.default_rng(0).normal(2.0, 3.0, (7, 5))
    dy = np.random.default_rng(1).normal(size=(7, 5))
    np.testing.assert_allclose(K.lean_standardize(x)[0], lnlib.layer_norm(x), atol=1e-12)
    np.testing.assert_allclose(K.lean_standardize(x, axis=-2)[0], lnlib.batch_norm(x), atol=1e-12)
    np.testing.assert_allclose(T.rms_scale(x)[0], lnlib.rms_norm(x), atol=1e-12)
    for axis in (-1, -2):
        xhat, _, _, std = K.lean_standardize(x, axis=axis)
        want = lnlib.layer_norm_backward(dy, x, axis=axis)[0]
        np.testing.assert_allclose(K.lean_standardize_backward(dy, xhat, std, axis=axis), want, atol=1e-12)
    # a leading run axis: each run is normalized on its own
    stacked = np.stack([x, 10 * x + 3])
    np.testing.assert_allclose(K.lean_standardize(stacked, axis=-2)[0][1], lnlib.batch_norm(10 * x + 3), atol=1e-12)


def test_lean_attention_matches_the_reference_and_its_gradient_the_finite_differences():
    """_lean.attention (shared by training's stack and tiny_lm's heads) against lnlib.transformer.attention, the
    exact reference, with and without a causal mask; attention_backward against central differences of Σ dO ⊙ O."""
    rng = np.random.default_rng(3)
    q, k, v = (rng.normal(size=(2, 3, 5, 3)) for _ in range(3))  # (batch, heads, tokens, head width 3: 1/√3 inexact)
    causal = np.triu(np.full((5, 5), -np.inf), 1)
    for mask in (None, causal):
        out, weights = _lean.lean_attention(q, k, v, mask)
        want_out, want_w = tf.attention(q, k, v, mask=None if mask is None else np.isfinite(mask))
        np.testing.assert_allclose(weights, want_w, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(out, want_out, rtol=1e-12, atol=1e-15)
    do = rng.normal(size=out.shape)
    grads = _lean.lean_attention_backward(do, q, k, v, weights, np.empty((2, 3, 5, 9)))
    h = 1e-6
    for j, x in enumerate((q, k, v)):
        numeric = np.zeros_like(x)
        for idx in np.ndindex(*x.shape):
            keep = x[idx]
            x[idx] = keep + h
            up = np.sum(do * _lean.lean_attention(q, k, v, causal)[0])
            x[idx] = keep - h
            down = np.sum(do * _lean.lean_attention(q, k, v, causal)[0])
            x[idx] = keep
            numeric[idx] = (up - down) / (2 * h)
        np.testing.assert_allclose(grads[..., 3 * j : 3 * (j + 1)], numeric, rtol=1e-6, atol=1e-8)


def test_mlp_batchnorm_statistics_match_lnlib_batchnorm():
    """Training mode: batch statistics, running ones updated as lnlib.BatchNorm does; eval mode uses them."""
    rng = np.random.default_rng(2)
    model, ref = T.MLP("batch", 1, 4, rng), lnlib.BatchNorm(4)
    for _ in range(3):
        x = rng.normal(1.0, 2.0, (6, 2))
        z = x @ model.params["w0"][0] + model.params["b0"][0]
        _, record = model._forward(x, "train")
        np.testing.assert_allclose(record[0][1][0], ref(z), atol=1e-12)  # x̂ of the block
    np.testing.assert_allclose(model.bn_mean[0, 0, 0], ref.running_mean, atol=1e-12)
    np.testing.assert_allclose(model.bn_var[0, 0, 0], ref.running_var, atol=1e-12)
    x = rng.normal(size=(1, 2))
    z = x @ model.params["w0"][0] + model.params["b0"][0]
    logits, _ = model._forward(x, "eval")
    h = np.maximum(ref.eval()(z), 0.0)  # γ = 1, β = 0
    np.testing.assert_allclose(logits[0], h @ model.params["w_out"][0], atol=1e-12)


def test_rms_backward_against_central_differences():
    rng = np.random.default_rng(3)
    x, dy = rng.normal(size=(3, 6)), rng.normal(size=(3, 6))
    want = lnlib.numerical_gradient(lambda v: float(np.sum(dy * T.rms_scale(v)[0])), x.copy())
    np.testing.assert_allclose(T.rms_backward(dy, *T.rms_scale(x)), want, rtol=1e-6, atol=1e-8)


def test_softmax_cross_entropy_against_central_differences():
    rng = np.random.default_rng(4)
    z, y = rng.normal(size=(5, 3)), np.array([0, 2, 1, 1, 0])
    loss, dz = T._xent(z, y)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    assert float(loss) == pytest.approx(-np.mean(np.log(p[np.arange(5), y])), rel=1e-12)
    want = lnlib.numerical_gradient(lambda v: float(T._xent(v, y)[0]), z.copy())
    np.testing.assert_allclose(dz, want, rtol=1e-6, atol=1e-9)


# ---------------------------------------------------------------- whole models: every parameter's gradient


def tiny_mlp(norm: str):
    rng = np.random.default_rng(5)
    model = T.MLP(norm, 3, 5, rng)
    for p in model.params.values():  # move γ, β and biases off their initial values so every term is tested
        p += rng.normal(0, 0.3, p.shape)
    x, y = rng.normal(size=(6, 2)), np.array([0, 1, 2, 0, 1, 2])
    return model, x, y


@pytest.mark.parametrize("norm", T.NORMS)
def test_mlp_gradients_against_central_differences(norm):
    model, x, y = tiny_mlp(norm)
    _, grads = model.loss_and_grads(x, y)
    want = central_differences(lambda: model.loss_and_grads(x, y)[0][0], model.params)
    assert_grads_close(grads, want)


def tiny_sequence_model(form: str):
    rng = np.random.default_rng(6)
    model = T.SequenceModel(form, 2, 4, rng, seed=6)
    model.params["b_out"] += rng.normal(0, 0.3, T.DIGITS)
    tokens, targets = T.digit_batch(rng, 2)
    return model, tokens, targets


@pytest.mark.parametrize("form", T.FORMS)
def test_transformer_gradients_against_central_differences(form):
    """Embedding, attention, feed-forward, LayerNorm (per form), head and cross-entropy, all at once."""
    model, tokens, targets = tiny_sequence_model(form)
    _, grads = model.loss_and_grads(tokens, targets)
    want = central_differences(lambda: model.loss_and_grads(tokens, targets)[0][0], model.params)
    assert_grads_close(grads, want, rtol=1e-4, atol=1e-7)


# ---------------------------------------------------------------- the same models in PyTorch autograd


def torch_mlp_loss(torch, model, x, y, params):
    F = torch.nn.functional
    h = torch.tensor(x)
    for i in range(model.depth):
        z = h @ params[f"w{i}"] + params[f"b{i}"]
        if model.norm == "layer":
            z = F.layer_norm(z, (z.shape[-1],), params[f"gamma{i}"], params[f"beta{i}"], eps=T.LN_EPS)
        elif model.norm == "batch":
            z = F.batch_norm(z, None, None, params[f"gamma{i}"], params[f"beta{i}"], training=True, eps=T.LN_EPS)
        elif model.norm == "rms":
            z = F.rms_norm(z, (z.shape[-1],), params[f"gamma{i}"], eps=T.RMS_EPS)
        h = torch.relu(z)
    return F.cross_entropy(h @ params["w_out"] + params["b_out"], torch.tensor(y))


@pytest.mark.parametrize("norm", T.NORMS)
def test_mlp_gradients_against_torch(norm):
    torch = pytest.importorskip("torch")
    model, x, y = tiny_mlp(norm)
    loss, grads = model.loss_and_grads(x, y)
    params = {k: torch.tensor(v[0], requires_grad=True) for k, v in model.params.items()}
    ref = torch_mlp_loss(torch, model, x, y, params)
    ref.backward()
    assert loss[0] == pytest.approx(ref.item(), rel=1e-12)
    assert_grads_close({k: g[0] for k, g in grads.items()}, {k: p.grad.numpy() for k, p in params.items()}, 1e-9, 1e-12)


def torch_sequence_loss(torch, model, tokens, targets, params):
    F = torch.nn.functional
    width = params["tok"].shape[1]

    def ln(v):
        return F.layer_norm(v, (width,), eps=T.LN_EPS)

    def sub(i, u):
        if model.kinds[i] == "ffn":
            return torch.relu(u @ params[f"{i}.w1"]) @ params[f"{i}.w2"]
        wqkv = params[f"{i}.wqkv"]  # [W_Q | W_K | W_V]
        q, k, v = u @ wqkv[:, :width], u @ wqkv[:, width : 2 * width], u @ wqkv[:, 2 * width :]
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(width), dim=-1)
        return (att @ v) @ params[f"{i}.wo"]

    h = F.embedding(torch.tensor(tokens), params["tok"]) + params["pos"]
    form = model.form
    for i in range(len(model.kinds)):
        if form == "pre":
            h = h + sub(i, ln(h))
        elif form == "post":
            h = ln(h + sub(i, h))
        else:
            h = h + sub(i, h)
    if form == "pre":
        h = ln(h)
    logits = h @ params["w_out"] + params["b_out"]
    return F.cross_entropy(logits.reshape(-1, T.DIGITS), torch.tensor(targets).reshape(-1))


@pytest.mark.parametrize("form", T.FORMS)
def test_transformer_gradients_against_torch(form):
    torch = pytest.importorskip("torch")
    model, tokens, targets = tiny_sequence_model(form)
    loss, grads = model.loss_and_grads(tokens, targets)
    params = {k: torch.tensor(v[0], requires_grad=True) for k, v in model.params.items()}
    ref = torch_sequence_loss(torch, model, tokens, targets, params)
    ref.backward()
    assert loss[0] == pytest.approx(ref.item(), rel=1e-12)
    assert_grads_close({k: g[0] for k, g in grads.items()}, {k: p.grad.numpy() for k, p in params.items()}, 1e-9, 1e-12)


@pytest.mark.parametrize("form", T.FORMS)
def test_sequence_model_runs_notebook_09s_stack(form):
    """The training code's fused stack computes lnlib.transformer.stack_forward's output and the same weight
    gradients as stack_backward (a loss ½‖y − t‖² per token, pushed through the training code's backward)."""
    from lnlib import transformer as tf

    rng = np.random.default_rng(8)
    model, stack = T.SequenceModel(form, 3, 8, rng, seed=8), tf.make_stack(form, 3, 8, seed=8)
    x, target = tf.batch_and_target(8, seed=8)  # 4 sequences of 16 tokens: use 6-token slices of them
    x, target = x[:, : T.LENGTH], target[:, : T.LENGTH]
    want, _, _ = tf.stack_forward(stack, x)
    got, record = model.stack_forward(x.reshape(1, -1, 8), len(x))
    np.testing.assert_allclose(got[0].reshape(x.shape), want, atol=1e-12)
    model.stack_backward((got - target.reshape(1, -1, 8)) / (got.size // 8), record)
    for i, ref in enumerate(tf.stack_backward(stack, x, target)):
        if model.kinds[i] == "attn":
            ref = {"wqkv": np.concatenate([ref["wq"], ref["wk"], ref["wv"]], axis=1), "wo": ref["wo"]}
        for k, g in ref.items():
            np.testing.assert_allclose(model.p.grads[f"{i}.{k}"][0], g, rtol=1e-9, atol=1e-12, err_msg=f"{i}.{k}")


# ---------------------------------------------------------------- Adam and the warm-up


def test_first_adam_step_is_lr_times_the_sign():
    """Closed form: after one step m̂ = g and v̂ = g², so the step is lr · g / (|g| + ε) ≈ lr · sign(g)."""
    g = np.array([0.5, -2.0, 1e-3])
    p, m, v = T.adam_step(np.zeros(3), g, np.zeros(3), np.zeros(3), 1, 0.1)
    np.testing.assert_allclose(p, -0.1 * g / (np.abs(g) + 1e-8), rtol=1e-12)
    np.testing.assert_allclose(m, 0.1 * g)
    np.testing.assert_allclose(v, 0.001 * g * g)


def test_adam_matches_torch_optim_adam():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    start = {"a": rng.normal(size=(3, 2)), "b": rng.normal(size=4)}
    params = T.Params({k: v[None] for k, v in start.items()})
    ours = T.Adam(params)
    ref = {k: torch.tensor(v.copy(), requires_grad=True) for k, v in start.items()}
    opt = torch.optim.Adam(ref.values(), lr=0.01)
    for _ in range(5):
        grads = {k: rng.normal(size=v.shape) for k, v in start.items()}
        for k, g in grads.items():
            params.grads[k][0] = g
        ours.step(0.01)
        for k, p in ref.items():
            p.grad = torch.tensor(grads[k])
        opt.step()
    for k in start:
        np.testing.assert_allclose(params.values[k][0], ref[k].detach().numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("compiled", [True, False])
def test_adam_with_one_learning_rate_per_run_steps_each_run_as_adam_step(compiled):
    """Several runs, each its own learning rate, and (P = 20 000) several column blocks: each run is adam_step's
    (the moments bit for bit; the parameters up to rounding, the step's constants being folded differently).
    compiled=True uses numba's one-pass loop where numba is there (else the numpy passes, as compiled=False)."""
    rng = np.random.default_rng(9)
    params = T.Params({"w": rng.normal(size=(3, 100, 150)), "b": rng.normal(size=(3, 5000))})
    opt = T.Adam(params, compiled=compiled)
    assert opt.cols < params.flat.shape[1]  # the numpy update really goes block by block
    start, m, v = params.flat.copy(), np.zeros_like(params.flat), np.zeros_like(params.flat)
    lrs = (0.1, 0.0, 0.01)
    for t in (1, 2, 3):
        params.grad[...] = rng.normal(size=params.grad.shape)
        opt.step(np.array(lrs))
        for r, lr in enumerate(lrs):
            start[r], m[r], v[r] = T.adam_step(start[r], params.grad[r], m[r], v[r], t, lr)
        np.testing.assert_array_equal(opt.m, m)
        np.testing.assert_array_equal(opt.v, v)
        np.testing.assert_allclose(params.flat, start, rtol=1e-13, atol=1e-15)
    assert not np.array_equal(params.flat[0], params.flat[1])  # the runs really took different steps


def test_compiled_adam_gives_the_numpy_passes_bits():
    """The numba loop does the numpy passes' operations in the same order: the same bits, also after runs are
    dropped (keep) and with gradients from 1e-8 to 1e2; NUMBA_DISABLE_JIT=1 or no numba → the numpy passes."""
    if K.adam_kernel() is None:
        pytest.skip("numba missing or its JIT disabled (NUMBA_DISABLE_JIT=1): Adam always makes the numpy passes")
    rng = np.random.default_rng(10)
    start = {"w": rng.normal(size=(4, 30, 40)), "b": rng.normal(size=(4, 7))}
    fast, slow = T.Params(start), T.Params(start)
    opt_fast, opt_slow = T.Adam(fast), T.Adam(slow, compiled=False)
    lrs = np.array([1e-3, 3e-2, 0.5, 1e-4])
    for t in range(6):
        if t == 3:  # drop run 2, as _train does when a run diverges
            rows = np.array([True, True, False, True])
            fast, slow, lrs = fast.subset(rows), slow.subset(rows), lrs[rows]
            opt_fast.keep(rows, fast)
            opt_slow.keep(rows, slow)
        g = rng.normal(size=fast.grad.shape) * 10.0 ** rng.integers(-8, 3, fast.grad.shape)
        fast.grad[...], slow.grad[...] = g, g
        opt_fast.step(lrs)
        opt_slow.step(lrs)
        np.testing.assert_array_equal(fast.flat, slow.flat)
        np.testing.assert_array_equal(opt_fast.m, opt_slow.m)
        np.testing.assert_array_equal(opt_fast.v, opt_slow.v)
    opt_fast.step(2e-3)  # one learning rate for every run
    opt_slow.step(2e-3)
    np.testing.assert_array_equal(fast.flat, slow.flat)


def test_compiled_layer_norm_gives_the_numpy_bits(monkeypatch):
    """The numba LayerNorm (forward and backward over the last axis) adds in numpy's pairwise order: the same
    bits as the numpy code for 1 … 128 features, and whole training runs are bit for bit the same."""
    kernels = K.kernels()
    if kernels is None:
        pytest.skip("numba missing or its JIT disabled (NUMBA_DISABLE_JIT=1): LayerNorm always runs in numpy")
    rng = np.random.default_rng(11)
    for shape in [(3, 1), (2, 5, 7), (4, 9, 8), (1, 36, 32), (3, 6, 6, 33), (2, 64), (1, 3, 128), (2, 3, 129)]:
        x = rng.normal(2.0, 3.0, shape) * 10.0 ** rng.integers(-3, 4, (*shape[:-1], 1))
        g = rng.normal(size=shape)
        fast = K.lean_standardize(x)
        fast_back = K.lean_standardize_backward(g, fast[0], fast[3])
        monkeypatch.setattr(K, "_KERNELS", False)
        slow = K.lean_standardize(x)
        slow_back = K.lean_standardize_backward(g, slow[0], slow[3])
        monkeypatch.setattr(K, "_KERNELS", kernels)
        for a, b in zip((*fast, fast_back), (*slow, slow_back), strict=True):
            assert a.shape == b.shape
            np.testing.assert_array_equal(a, b, err_msg=str(shape))
    runs = {}
    for state in (kernels, False):
        monkeypatch.setattr(K, "_KERNELS", state)
        runs[bool(state)] = (T.train_transformer("post", depth=2, steps=20), T.train_mlp("layer", depth=3, steps=20))
    for fast, slow in zip(runs[True], runs[False], strict=True):
        np.testing.assert_array_equal(fast.losses, slow.losses)
        np.testing.assert_array_equal(fast.grad_norms, slow.grad_norms)


def test_warmup_closed_form():
    assert [T.warmup_lr(s, 0.1, 4) for s in range(6)] == pytest.approx([0.025, 0.05, 0.075, 0.1, 0.1, 0.1])
    assert T.warmup_lr(0, 0.1, 0) == 0.1


def test_warmup_matches_torch_linear_lr():
    torch = pytest.importorskip("torch")
    w, lr = 5, 0.2
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=lr)
    sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=1 / w, end_factor=1.0, total_iters=w - 1)
    for step in range(8):
        assert T.warmup_lr(step, lr, w) == pytest.approx(opt.param_groups[0]["lr"], rel=1e-12)
        opt.step()
        sched.step()


# ---------------------------------------------------------------- the defaults learn, visibly and quickly


def test_mlp_with_layernorm_halves_its_loss_within_150_steps():
    run = T.train_mlp("layer", steps=150)
    assert not run.diverged
    assert run.losses[-10:].mean() <= 0.5 * run.losses[0]


def test_pre_ln_transformer_loss_falls_by_a_third_within_200_steps():
    run = T.train_transformer("pre", steps=200)
    assert not run.diverged
    assert run.losses[-10:].mean() <= (2 / 3) * run.losses[0]


def test_batchnorm_with_one_example_at_inference_loses_the_input():
    """With batch statistics a batch of one normalizes to 0: every input gets the same prediction."""
    run = T.train_mlp("batch", steps=60)
    x, y = T.spiral(seed=1)
    assert run.model.accuracy(x, y, batch_size=1, batch_stats=True) == pytest.approx(1 / 3, abs=0.01)
    assert run.model.accuracy(x, y, batch_size=1) == run.test_accuracy  # running statistics: batch size is moot
    ln = T.train_mlp("layer", steps=60)
    assert ln.model.accuracy(x, y, batch_size=1) == ln.test_accuracy


# ---------------------------------------------------------------- exercises, plots and the explorer of notebook 15


def test_function_exercises_accept_the_solutions_and_reject_placeholders(capsys):
    import runpy

    from tools.course import SOLUTIONS

    functions = runpy.run_path(str(SOLUTIONS / "15-training-with-and-without-ln.py"))["FUNCTIONS"]
    for name, fn in functions.items():
        assert judge_function(name, fn).ok, judge_function(name, fn).message

    def placeholder(*args): ...  # 在这里填写

    assert judge_function("15.warmup_lr", placeholder).failed == "placeholder"

    def off_by_one(step, lr, warmup_steps):
        return lr * min(1.0, step / warmup_steps) if warmup_steps else lr

    assert not judge_function("15.warmup_lr", off_by_one).ok
    assert "✗" in judge_function("15.warmup_lr", off_by_one).message

    def no_bias_correction(param, grad, m, v, t, lr):
        m, v = 0.9 * m + 0.1 * grad, 0.999 * v + 0.001 * grad**2
        return param - lr * m / (np.sqrt(v) + 1e-8), m, v

    assert not judge_function("15.adam_step", no_bias_correction).ok
    assert "ZeroDivisionError" in judge_function("15.adam_step", lambda *a: 1 / 0).message
    with pytest.raises(ValueError, match="name"):
        lnlib.check_function("15.nope", off_by_one)
    assert judge_function("15.warmup_lr", 3).failed == "error"


def test_sweep_outcomes_and_rejects_unknown_models():
    grid = T.sweep("mlp", ("layer", "none"), (1e-2, 5.0), steps=60, depth=3)
    assert sorted(grid) == [("layer", 0.01, 0), ("layer", 5.0, 0), ("none", 0.01, 0), ("none", 5.0, 0)]
    diverged = grid[("none", 5.0, 0)]
    assert diverged.diverged and diverged.stop_reason and math.isnan(T.final_loss(diverged))
    assert outcome_of(T.final_loss(diverged)) == "diverged" and not grid[("layer", 0.01, 0)].stop_reason
    assert outcome_of(T.final_loss(grid[("layer", 0.01, 0)])) == "trains"
    with pytest.raises(ValueError, match="model"):
        T.sweep("cnn", ("layer",), (1e-2,))


@pytest.fixture(scope="module")
def small_grids():
    mlp = T.sweep("mlp", ("layer", "none"), (1e-2, 5.0), steps=20, depth=3)
    tf = T.sweep("transformer", ("post", "pre"), (1e-3, 3e-3), (0, 5), steps=8, depth=1, width=8)
    return {"MLP": mlp, "Transformer": tf}


def test_lockstep_runs_equal_the_single_runs():
    """sweep trains the settings of one variant side by side: each Run equals training that setting alone, even
    when another run of the batch diverges (it is dropped from the batch, never mixes with the others)."""
    settings = [(1e-2, 0), (5.0, 0), (3e-2, 5)]
    for norm in ("batch", "none"):
        together = T.train_mlp_runs(norm, settings, depth=3, steps=25, seed=2)
        for (lr, w), run in zip(settings, together, strict=True):
            alone = T.train_mlp(norm, depth=3, steps=25, seed=2, lr=lr, warmup_steps=w)
            assert run.diverged == alone.diverged and run.losses.size == alone.losses.size
            np.testing.assert_allclose(run.losses, alone.losses, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(run.grad_norms, alone.grad_norms, rtol=1e-12)
            np.testing.assert_array_equal(run.lrs, alone.lrs)
            assert run.test_accuracy == alone.test_accuracy or (run.diverged and math.isnan(run.test_accuracy))
            assert sorted(run.snapshots) == sorted(alone.snapshots)
            for step, snap in run.snapshots.items():
                for a, b in zip(
                    snap.activations + snap.gradients,
                    alone.snapshots[step].activations + alone.snapshots[step].gradients,
                    strict=True,
                ):
                    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert together[1].diverged  # lr 5 blew up in the batch
    settings = [(1e-3, 0), (3e-3, 4), (0.5, 0)]
    together = T.train_transformer_runs("post", settings, depth=2, width=8, steps=30, seed=1)
    for (lr, w), run in zip(settings, together, strict=True):
        alone = T.train_transformer("post", depth=2, width=8, steps=30, seed=1, lr=lr, warmup_steps=w)
        assert run.diverged == alone.diverged
        np.testing.assert_allclose(run.losses, alone.losses, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(run.grad_norms, alone.grad_norms, rtol=1e-12)
        assert run.test_accuracy == alone.test_accuracy or math.isnan(alone.test_accuracy)


def test_a_diverging_sweep_prints_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grid = T.sweep("mlp", ("none",), (1e-2, 1e3), steps=30, depth=3)
    assert grid[("none", 1e3, 0)].diverged and not grid[("none", 1e-2, 0)].diverged


@pytest.mark.parametrize(
    ("settings", "error"),
    [([], ValueError), ([(0.0, 0)], ValueError), ([(1e-3, -1)], ValueError), ([1e-3], TypeError), (3, TypeError)],
)
def test_lockstep_rejects_bad_settings(settings, error):
    with pytest.raises(error, match="settings|lr|warmup_steps"):
        T.train_mlp_runs("layer", settings, steps=2)
    with pytest.raises(error, match="settings|lr|warmup_steps"):
        T.train_transformer_runs("pre", settings, steps=2)


def test_batched_evaluation_equals_one_batch_at_a_time():
    """MLP.accuracy evaluates all evaluation batches as one array; the same as a loop over the batches."""
    run = T.train_mlp("batch", depth=3, steps=30)
    x, y = T.spiral(seed=1)
    for size in (1, 7, 16, 600):
        for batch_stats in (False, True):
            correct = 0
            for start in range(0, len(x), size):
                xs = x[start : start + size]
                if batch_stats:  # batch statistics by hand: lnlib.batch_norm over this batch
                    h = xs
                    for i in range(3):
                        z = h @ run.model.params[f"w{i}"][0] + run.model.params[f"b{i}"][0]
                        zhat = np.zeros_like(z) if len(z) == 1 else lnlib.batch_norm(z, eps=T.LN_EPS)
                        h = np.maximum(run.model.params[f"gamma{i}"][0] * zhat + run.model.params[f"beta{i}"][0], 0)
                    logits = h @ run.model.params["w_out"][0] + run.model.params["b_out"][0]
                else:
                    logits, _ = run.model._forward(xs, "eval")
                    logits = logits[0]
                correct += int(np.sum(np.argmax(logits, axis=-1) == y[start : start + size]))
            assert run.model.accuracy(x, y, batch_size=size, batch_stats=batch_stats) == correct / len(x)


def test_plots_draw_every_series_with_chinese_labels(small_grids):
    from lnlib import training_plots as TP

    mlp = small_grids["MLP"]
    runs = {v: mlp[(v, 1e-2, 0)] for v in ("layer", "none")}
    fig = TP.loss_curves(runs, grad_norms=True, title="标题")
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["LayerNorm", "无归一化"]
    styles = {(line.get_color(), line.get_linestyle(), line.get_marker()) for line in fig.axes[0].lines}
    assert len(styles) == 2  # colour AND line style AND marker differ
    before = {v: r.snapshots[0] for v, r in runs.items()}
    after = {v: r.snapshots[19] for v, r in runs.items()}
    assert len(TP.layer_scales(before, after).axes) == 4
    assert len(TP.activation_histograms(before, after, layers=(1, 3)).axes) == 4
    fig = TP.batch_size_plot({"LayerNorm": [0.9, 0.95]}, (2, 4))
    assert fig.axes[0].get_xlabel() == "训练时的批量大小"


def test_explorer_switches_models_and_redraws_without_training(small_grids, monkeypatch):
    from lnlib import training_widgets

    explorer = training_widgets.TrainingExplorer(small_grids, model="Transformer")
    monkeypatch.setattr(T, "train_transformer", lambda *a, **k: pytest.fail("trained inside a callback"))
    monkeypatch.setattr(T, "train_mlp", lambda *a, **k: pytest.fail("trained inside a callback"))
    first = explorer.plot.value
    assert "Post-LN，无 warm-up" in explorer.summary.value
    explorer.warmup.value = 5
    assert "warm-up 5 步" in explorer.summary.value and explorer.plot.value != first
    explorer.variants.value = ("pre",)
    assert "Post-LN" not in explorer.summary.value
    explorer.model.value = "MLP"
    assert set(explorer.variants.value) == {"layer", "none"} and explorer.warmup.options == (("0 步", 0),)
    explorer.lr.value = 5.0
    assert "发散" in explorer.summary.value
    explorer.variants.value = ()
    assert "至少" in explorer.summary.value
