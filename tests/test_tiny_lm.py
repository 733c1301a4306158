"""Notebook 16's tiny trained Transformer (lnlib.tiny_lm, lnlib.tiny_corpus, tools/train_tiny_lm.py).

References are independent of the model code: `lnlib.layer_norm` / `lnlib.variance` for the LayerNorm rows,
central differences (`lnlib.numerical_gradient`) for the backward, counted unigram/bigram models for "it learned",
PyTorch (where installed) for one forward pass, and the stored first-step losses for a fresh training run.
"""

from __future__ import annotations

import hashlib
from importlib import resources

import numpy as np
import pytest

import lnlib
from lnlib import tiny_corpus, tiny_lm

pytestmark = pytest.mark.trained  # trained numbers: make test runs them on a second BLAS kernel


@pytest.fixture(scope="module")
def model():
    return tiny_lm.load()


@pytest.fixture(scope="module")
def held(model):
    return tiny_lm.heldout(model)


@pytest.fixture(scope="module")
def normal(model, held):
    return tiny_lm.evaluate(model, *held)


def test_layer_norm_rows_inside_the_model_are_lnlibs(model):
    fwd = tiny_lm.forward(model, tiny_lm.encode(model.config, "我吃苹果。小猫喝牛奶。"))
    assert fwd.inputs.keys() == set(model.names) == {"1.attn", "1.mlp", "2.attn", "2.mlp", "final"}
    for name in model.names:
        x = fwd.inputs[name][0]
        np.testing.assert_allclose(fwd.xhat[name][0], lnlib.layer_norm(x), rtol=0, atol=1e-12)
        np.testing.assert_allclose(fwd.mu[name][0, :, 0], lnlib.mean(x), rtol=0, atol=1e-15)
        np.testing.assert_allclose(fwd.sigma[name][0, :, 0], np.sqrt(lnlib.variance(x) + 1e-5), rtol=1e-12)
        g, b = model.params[f"{name}.g"], model.params[f"{name}.b"]
        z = fwd.cache[name][2][0]
        np.testing.assert_allclose(z, lnlib.layer_norm(x, g, b), rtol=0, atol=1e-12)


def _tiny():
    cfg = tiny_lm.Config("abcd", width=8, layers=2, heads=2, context=5, hidden=12)
    params = tiny_lm.init_params(cfg, seed=3)
    rng = np.random.default_rng(1)
    for k in params:  # move γ, β and biases off 1 and 0 and make the weights big enough to matter
        params[k] = params[k] + rng.normal(0, 0.3, params[k].shape)
    return tiny_lm.Model(cfg, params), rng.integers(0, 4, (2, 5)), rng.integers(0, 4, (2, 5))


def test_backward_against_central_differences():
    model, x, y = _tiny()
    fwd = tiny_lm.forward(model, x)
    _, dlogits = tiny_lm.cross_entropy(fwd.logits, y)
    grads = tiny_lm.backward(model, fwd, dlogits)
    assert grads.keys() == model.params.keys()
    for name, value in model.params.items():

        def loss(v, name=name):
            params = dict(model.params, **{name: v})
            return tiny_lm.cross_entropy(tiny_lm.forward(tiny_lm.Model(model.config, params), x).logits, y)[0]

        numeric = lnlib.numerical_gradient(loss, value, h=1e-6)
        np.testing.assert_allclose(grads[name], numeric, rtol=1e-5, atol=1e-8, err_msg=name)


def test_cross_entropy_by_hand():
    logits = np.array([[0.0, np.log(3.0)]])  # probabilities 1/4, 3/4
    loss, grad = tiny_lm.cross_entropy(logits, np.array([1]))
    assert loss == pytest.approx(np.log(4 / 3), rel=1e-14)
    np.testing.assert_allclose(grad, [[0.25, -0.25]], atol=1e-15)


def test_the_model_learned(model, held, normal):
    base = tiny_lm.baselines(model, *held)
    # the numbers notebook 16 states: accuracy 54 % against 12 % (unigram) and 51 % (bigram), a loss 0.1 below
    # the bigram model's (1.10 against 1.20: perplexity 3.0 against 3.3)
    assert normal.accuracy >= base["unigram"].accuracy + 0.35
    assert normal.loss <= base["unigram"].loss - 2.5
    assert normal.loss <= base["bigram"].loss - 0.08
    assert normal.accuracy > base["bigram"].accuracy
    # the bigram baseline is the counting model at its fairest: plain counts, counted here independently (every
    # held-out pair occurs in the training text, so no smoothing is needed), give the same loss to 0.001
    text = tiny_corpus.read_part("train").strip()
    ids = [model.config.vocab.index(ch) for ch in text]
    pairs = np.zeros((len(model.config.vocab),) * 2)
    np.add.at(pairs, (ids[:-1], ids[1:]), 1)
    x, y = held
    counted = pairs[x, y] / pairs[x].sum(axis=-1)
    assert base["bigram"].loss == pytest.approx(-np.log(counted).mean(), abs=1e-3)
    # the unigram baseline counted independently: always guessing the most common character
    common = max(set(text), key=text.count)
    y = held[1]
    assert base["unigram"].accuracy == pytest.approx(np.mean(y == model.config.vocab.index(common)))


def test_ablations_move_the_loss_the_way_the_notebook_says(model, held, normal):
    x, y = held
    stats = tiny_lm.average_stats(model, x)

    def loss(**kw):
        return tiny_lm.evaluate(model, x, y, tiny_lm.Ablation(**kw)).loss

    assert loss(mode="none") > normal.loss + 2  # every LayerNorm dropped: close to guessing by frequency
    for name in model.names:
        assert loss(mode="none", where=(name,)) > normal.loss  # each one dropped alone hurts
    assert loss(mode="none", where=("1.attn",)) > normal.loss + 0.3
    assert abs(loss(mode="rms") - normal.loss) < 0.01  # μ is nearly 0 in this model: RMSNorm changes little
    assert loss(mode="frozen", frozen=stats) > normal.loss + 0.2
    assert loss(mode="frozen", where=("final",), frozen=stats) > normal.loss + 0.1
    assert abs(loss(mode="ln", eps=1e-8) - normal.loss) < 1e-3  # ε far below σ² ≈ 0.01 changes nothing
    assert abs(loss(mode="ln", eps=1e-3) - normal.loss) < 0.01
    assert loss(mode="ln", eps=1e-1) > normal.loss + 0.2  # ε above σ²: the rows are shrunk towards 0
    assert loss(mode="ln", eps=1.0) > loss(mode="ln", eps=1e-1)


def test_the_statistics_grow_with_depth(model, held):
    sigma = {n: tiny_lm.forward(model, held[0]).sigma[n].mean() for n in model.names}
    assert sigma["1.attn"] < 0.2 < sigma["2.attn"] < sigma["final"]


def test_out_of_vocabulary_characters_get_a_chinese_message(model):
    with pytest.raises(ValueError, match="「猪」、「X」") as info:
        tiny_lm.encode(model.config, "我吃猪X肉")
    assert "肉" in str(info.value)  # every unknown character is named, in order
    assert f"{len(model.config.vocab)} 个字" in str(info.value)
    with pytest.raises(ValueError, match="最多看 16 个字"):
        tiny_lm.predict(model, "我吃苹果。" * 4)
    with pytest.raises(ValueError, match="至少一个字"):
        tiny_lm.predict(model, "")


def test_predict_guesses_the_obvious(model):
    _, guesses = tiny_lm.predict(model, "我吃苹")
    assert guesses[-1][0] == "果" and guesses[-1][1] > 0.9


def test_weights_file_digest_and_size(model):
    assert tiny_lm.digest(model.params) == tiny_lm.DIGEST
    data = resources.files("lnlib").joinpath(tiny_lm.WEIGHTS_FILE).read_bytes()
    assert len(data) <= 2 * 1024 * 1024
    # the digest is the documented one: sha256 of sorted names and float64 bytes
    h = hashlib.sha256()
    for name in sorted(model.params):
        h.update(name.encode() + model.params[name].astype("<f8").tobytes())
    assert h.hexdigest() == tiny_lm.DIGEST


def test_a_fresh_run_repeats_the_first_steps(model):
    """The first steps of tools/train_tiny_lm.py's run against the losses stored with the weights: at a tolerance
    far above float64 noise, so it holds on every BLAS kernel (run it under OPENBLAS_CORETYPE=Prescott too)."""
    from tools.train_tiny_lm import config

    assert config() == model.config
    stored = tiny_lm.first_losses()
    _, losses = tiny_lm.train(model.config, tiny_corpus.generate()["train"], steps=len(stored))
    np.testing.assert_allclose(losses, stored, rtol=1e-9)
    assert losses[0] == pytest.approx(np.log(len(model.config.vocab)), abs=0.03)  # small init: nearly uniform guesses


def test_the_shipped_corpus_regenerates_exactly():
    texts = tiny_corpus.generate()
    for part in ("train", "heldout"):
        assert tiny_corpus.read_part(part) == texts[part] + "\n"
    train, held = set(texts["train"].split("。")), set(texts["heldout"].split("。"))
    assert not (train & held) - {""}  # no held-out sentence occurs in the training text
    assert "我吃苹果" in train | held


def test_one_forward_pass_against_torch(model):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    cfg, p = model.config, {k: torch.tensor(v) for k, v in model.params.items()}
    ids = tiny_lm.encode(cfg, "小猫今天也喝牛奶。我吃苹果。")
    t, d, heads = len(ids), cfg.width, cfg.heads
    h = p["tok"][torch.tensor(ids)] + p["pos"][:t]
    for i in range(1, cfg.layers + 1):
        z = F.layer_norm(h, (d,), p[f"{i}.attn.g"], p[f"{i}.attn.b"], eps=1e-5)
        q, k, v = (z @ p[f"{i}.qkv"]).split(d, dim=-1)
        q, k, v = (a.view(t, heads, d // heads).transpose(0, 1) for a in (q, k, v))
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(0, 1).reshape(t, d)
        h = h + o @ p[f"{i}.wo"]
        z = F.layer_norm(h, (d,), p[f"{i}.mlp.g"], p[f"{i}.mlp.b"], eps=1e-5)
        h = h + torch.relu(z @ p[f"{i}.w1"] + p[f"{i}.b1"]) @ p[f"{i}.w2"] + p[f"{i}.b2"]
    logits = F.layer_norm(h, (d,), p["final.g"], p["final.b"], eps=1e-5) @ p["out"] + p["out.b"]
    np.testing.assert_allclose(tiny_lm.forward(model, ids).logits[0], logits.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("text", [None, b"abc", bytearray(b"abc"), ["我"], 5])
def test_predict_refuses_what_is_not_text_by_name(model, text):
    """Issue 39, L10: None was a bare TypeError and b"abc" was read as the characters 「97」「98」「99」."""
    with pytest.raises(TypeError, match="^text: expected a str"):
        tiny_lm.predict(model, text)
    with pytest.raises(TypeError, match="^text: expected a str"):
        tiny_lm.encode(model.config, text)


def test_the_unknown_characters_message_stays_short(model):
    unknown = "".join(chr(0x4E00 + k) for k in range(2000) if chr(0x4E00 + k) not in model.config.vocab)[:16]
    with pytest.raises(ValueError) as info:
        tiny_lm.predict(model, unknown)  # 16 characters, none of them known
    message = str(info.value)
    assert f"「{unknown[0]}」" in message and f"「{unknown[7]}」" in message and f"「{unknown[8]}」" not in message
    assert "等 16 个字" in message and len(message) < 200
    many = "".join(chr(0x4E00 + k) for k in range(10_000))
    with pytest.raises(ValueError, match="最多看 16 个字") as info:
        tiny_lm.predict(model, many)
    assert len(str(info.value)) < 100
