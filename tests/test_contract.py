"""The input contract (docs/architecture.md), as one table: every row is a bad call, the exception it must raise
and a piece of the message that names the argument. The exception must come from lnlib's own checks — the last frame
of the traceback is a file inside lnlib/ — never from deep inside numpy, and it is raised before any work.
"""

from __future__ import annotations

import traceback
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

import lnlib
import lnlib.attention_scaling_plot
import lnlib.plots
import lnlib.tables
from lnlib import training as T
from lnlib import training_plots as TP
from lnlib import widgets
from lnlib._budget import BudgetError
from lnlib.grad import numerical_gradient

LNLIB_DIR = Path(lnlib.__file__).resolve().parent
M = np.arange(12.0).reshape(4, 3)  # a good (N=4, C=3) input
V = [1.0, 2.0, 3.0]


def bn(*args, **kwargs):
    return lnlib.BatchNorm(*args, **kwargs)


# (id, call, exception, text the message must contain)
BAD = [
    # layer_norm: x
    ("ln-x-str", lambda: lnlib.layer_norm("1, 2, 3"), TypeError, "x:"),
    ("ln-x-None", lambda: lnlib.layer_norm(None), TypeError, "x:"),
    ("ln-x-ragged", lambda: lnlib.layer_norm([[1, 2], [3]]), ValueError, "x:"),
    ("ln-x-scalar", lambda: lnlib.layer_norm(5.0), ValueError, "x:"),
    ("ln-x-empty", lambda: lnlib.layer_norm([]), ValueError, "x:"),
    ("ln-x-empty-axis", lambda: lnlib.layer_norm(np.zeros((3, 0))), ValueError, "x:"),
    ("ln-x-complex", lambda: lnlib.layer_norm([1 + 2j, 3]), TypeError, "x:"),
    ("ln-x-object", lambda: lnlib.layer_norm(np.array([1, None])), TypeError, "x:"),
    ("ln-x-bool", lambda: lnlib.layer_norm([True, False, True]), TypeError, "x:"),
    ("ln-x-masked", lambda: lnlib.layer_norm(np.ma.array(V, mask=[0, 1, 0])), TypeError, "x:"),
    ("ln-x-datetime", lambda: lnlib.layer_norm(np.array(["2024-01-01"], "datetime64[D]")), TypeError, "x:"),
    ("ln-x-dict", lambda: lnlib.layer_norm({"a": 1.0}), TypeError, "x:"),
    ("ln-x-bytes", lambda: lnlib.layer_norm(b"\x01\x02\x03"), TypeError, "x:"),
    ("ln-x-bytearray", lambda: lnlib.layer_norm(bytearray(b"\x01\x02\x03")), TypeError, "x:"),
    ("ln-x-memoryview", lambda: lnlib.layer_norm(memoryview(b"\x01\x02\x03")), TypeError, "x:"),
    ("ln-eps-beyond-float64", lambda: lnlib.layer_norm(V, eps=10**400), ValueError, "eps:"),
    # layer_norm: eps, axis, gamma, beta
    ("ln-eps-negative", lambda: lnlib.layer_norm(V, eps=-1e-5), ValueError, "eps:"),
    ("ln-eps-nan", lambda: lnlib.layer_norm(V, eps=float("nan")), ValueError, "eps:"),
    ("ln-eps-inf", lambda: lnlib.layer_norm(V, eps=float("inf")), ValueError, "eps:"),
    ("ln-eps-str", lambda: lnlib.layer_norm(V, eps="1e-5"), TypeError, "eps:"),
    ("ln-eps-bool", lambda: lnlib.layer_norm(V, eps=True), TypeError, "eps:"),
    ("ln-axis-range", lambda: lnlib.layer_norm(V, axis=1), ValueError, "axis:"),
    ("ln-axis-float", lambda: lnlib.layer_norm(V, axis=0.0), TypeError, "axis:"),
    ("ln-axis-repeated", lambda: lnlib.layer_norm(M, axis=(1, -1)), ValueError, "axis:"),
    ("ln-axis-empty", lambda: lnlib.layer_norm(M, axis=()), ValueError, "axis:"),
    ("ln-gamma-shape", lambda: lnlib.layer_norm(M, gamma=np.ones(4)), ValueError, "gamma:"),
    ("ln-gamma-axis-shape", lambda: lnlib.layer_norm(M, gamma=np.ones(3), axis=(0, 1)), ValueError, "gamma:"),
    ("ln-beta-complex", lambda: lnlib.layer_norm(V, beta=[1j, 0, 0]), TypeError, "beta:"),
    ("ln-beta-str", lambda: lnlib.layer_norm(V, beta="000"), TypeError, "beta:"),
    # layer_norm_steps
    ("steps-gamma-2d", lambda: lnlib.layer_norm_steps(V, gamma=[V]), ValueError, "gamma:"),
    ("steps-x-empty-rows", lambda: lnlib.layer_norm_steps(np.zeros((2, 0))), ValueError, "x:"),
    ("steps-eps-negative", lambda: lnlib.layer_norm_steps(V, eps=-1.0), ValueError, "eps:"),
    ("steps-x-text", lambda: lnlib.layer_norm_steps(["1", "2"]), TypeError, "x:"),
    # stage functions
    ("mean-x-str", lambda: lnlib.mean("abc"), TypeError, "x:"),
    ("center-x-ragged", lambda: lnlib.center([[1, 2], [3]]), ValueError, "x:"),
    ("variance-x-empty", lambda: lnlib.variance(np.zeros((2, 0))), ValueError, "x:"),
    ("std-x-scalar", lambda: lnlib.std(3.0), ValueError, "x:"),
    ("normalize-eps-negative", lambda: lnlib.normalize(V, eps=-1e-5), ValueError, "eps:"),
    ("normalize-x-object", lambda: lnlib.normalize(object()), TypeError, "x:"),
    ("affine-gamma-shape", lambda: lnlib.affine(V, gamma=[1.0]), ValueError, "gamma:"),
    ("affine-beta-str", lambda: lnlib.affine(V, beta="ab"), TypeError, "beta:"),
    ("affine-xhat-None", lambda: lnlib.affine(None), TypeError, "x_hat:"),
    # standardize
    ("standardize-axis-None", lambda: lnlib.standardize(V, None), TypeError, "axis:"),
    ("standardize-axis-range", lambda: lnlib.standardize(M, (0, 2)), ValueError, "axis:"),
    ("standardize-eps-nan", lambda: lnlib.standardize(V, 0, eps=float("nan")), ValueError, "eps:"),
    # batch_norm
    ("batch_norm-one-row", lambda: lnlib.batch_norm([[1.0, 2.0, 3.0]]), ValueError, "x: training-mode"),
    ("batch_norm-gamma-shape", lambda: lnlib.batch_norm(M, gamma=np.ones(4)), ValueError, "gamma:"),
    ("batch_norm-beta-no-features", lambda: lnlib.batch_norm(M, beta=[1.0, 2.0], axis=(0, 1)), ValueError, "beta:"),
    ("batch_norm-axis-str", lambda: lnlib.batch_norm(M, axis="0"), TypeError, "axis:"),
    # BatchNorm: constructor
    ("BatchNorm-features-zero", lambda: bn(0), ValueError, "num_features:"),
    ("BatchNorm-features-float", lambda: bn(3.0), TypeError, "num_features:"),
    ("BatchNorm-features-bool", lambda: bn(True), TypeError, "num_features:"),
    ("BatchNorm-momentum", lambda: bn(3, momentum=1.5), ValueError, "momentum:"),
    ("BatchNorm-momentum-beyond-float64", lambda: bn(3, momentum=10**400), ValueError, "momentum:"),
    ("BatchNorm-eps-beyond-float64", lambda: bn(3, eps=10**400), ValueError, "eps:"),
    ("BatchNorm-eps", lambda: bn(3, eps=-1.0), ValueError, "eps:"),
    # BatchNorm: call
    ("BatchNorm-train-one-row", lambda: bn(3)(np.ones((1, 3))), ValueError, "x: training-mode"),
    ("BatchNorm-train-one-token", lambda: bn(3)(np.ones((1, 1, 3))), ValueError, "x: training-mode"),
    ("BatchNorm-wrong-features", lambda: bn(3)(np.ones((4, 2))), ValueError, "x:"),
    ("BatchNorm-1d", lambda: bn(3)(V), ValueError, "x:"),
    ("BatchNorm-4d", lambda: bn(3)(np.ones((2, 2, 2, 3))), ValueError, "x:"),
    ("BatchNorm-text", lambda: bn(3)([["a", "b", "c"]]), TypeError, "x:"),
    ("BatchNorm-gamma-assigned", lambda: _with(bn(3), gamma=[1.0, 2.0])(M), ValueError, "gamma:"),
    ("BatchNorm-running-var-assigned", lambda: _with(bn(3).eval(), running_var="1")(M), TypeError, "running_var:"),
    ("BatchNorm-running-mean-short", lambda: _with(bn(3), running_mean=np.zeros(1))(M), ValueError, "running_mean:"),
    ("BatchNorm-running-mean-2d", lambda: _with(bn(3), running_mean=np.zeros((2, 3)))(M), ValueError, "running_mean:"),
    (
        "BatchNorm-running-var-negative",
        lambda: _with(bn(3).eval(), running_var=[1.0, -1.0, 1.0])(M),
        ValueError,
        "running_var:",
    ),
    (
        "BatchNorm-running-mean-nan",
        lambda: _with(bn(3), running_mean=[0.0, np.nan, 0.0])(M),
        ValueError,
        "running_mean:",
    ),
    ("BatchNorm-beta-inf", lambda: _with(bn(3), beta=[0.0, np.inf, 0.0])(M), ValueError, "beta:"),
    ("BatchNorm-eval-empty", lambda: bn(3).eval()(np.zeros((0, 3))), ValueError, "x: got an empty batch"),
    # rms_norm
    ("rms_norm-gamma-shape", lambda: lnlib.rms_norm(V, gamma=[1.0, 2.0]), ValueError, "gamma:"),
    ("rms_norm-eps-negative", lambda: lnlib.rms_norm(V, eps=-1.0), ValueError, "eps:"),
    ("rms_norm-x-text", lambda: lnlib.rms_norm(["a", "b"]), TypeError, "x:"),
    # layer_norm_backward, numerical_gradient
    ("backward-dy-shape", lambda: lnlib.layer_norm_backward([1.0, 2.0], V), ValueError, "dy:"),
    ("backward-dy-str", lambda: lnlib.layer_norm_backward("abc", V), TypeError, "dy:"),
    ("backward-gamma-shape", lambda: lnlib.layer_norm_backward(V, V, gamma=[1.0]), ValueError, "gamma:"),
    ("backward-axis-range", lambda: lnlib.layer_norm_backward(V, V, axis=3), ValueError, "axis:"),
    ("backward-x-complex", lambda: lnlib.layer_norm_backward(V, [1j, 2, 3]), TypeError, "x:"),
    ("numerical_gradient-f", lambda: numerical_gradient(None, V), TypeError, "f:"),
    ("numerical_gradient-h", lambda: numerical_gradient(np.sum, V, h=0.0), ValueError, "h:"),
    ("numerical_gradient-h-str", lambda: numerical_gradient(np.sum, V, h="1e-6"), TypeError, "h:"),
    ("numerical_gradient-h-inf", lambda: numerical_gradient(np.sum, V, h=10**400), ValueError, "h:"),
    ("numerical_gradient-f-vector", lambda: numerical_gradient(lambda a: a * 2, V), ValueError, "f:"),
    ("numerical_gradient-f-bool", lambda: numerical_gradient(lambda a: bool(a[0] > 0), V), TypeError, "f:"),
    ("numerical_gradient-f-np-bool", lambda: numerical_gradient(lambda a: a[0] > 0, V), TypeError, "f:"),
    ("numerical_gradient-f-text", lambda: numerical_gradient(lambda a: "loss", V), TypeError, "f:"),
    ("rms_norm-eps-beyond-float64", lambda: lnlib.rms_norm(V, eps=10**400), ValueError, "eps:"),
    ("backward-eps-beyond-float64", lambda: lnlib.layer_norm_backward(V, V, eps=10**400), ValueError, "eps:"),
    ("steps-x-memoryview", lambda: lnlib.layer_norm_steps(memoryview(b"abc")), TypeError, "x:"),
    # transformer: softmax, attention (issue 30, item 6: the caller's own argument is named, never `z`)
    ("attention-q-inf", lambda: lnlib.transformer.attention([[np.inf, 1.0]], [[1.0, 1.0]], [[1.0]]), ValueError, "q:"),
    ("attention-k-nan", lambda: lnlib.transformer.attention([[1.0, 1.0]], [[np.nan, 1.0]], [[1.0]]), ValueError, "k:"),
    ("attention_at_scale-inf", lambda: lnlib.transformer.attention_at_scale([[np.inf]], 1.0), ValueError, "matrix:"),
    ("attention_at_scale-scale", lambda: lnlib.transformer.attention_at_scale(M, "2"), TypeError, "scale:"),
    ("entropy-negative", lambda: lnlib.transformer.entropy([0.5, 0.7, -0.2]), ValueError, "p:"),
    # issue 30, item 8: named errors that were missing
    ("ln-x-int-beyond-float64", lambda: lnlib.layer_norm([10**400, 1]), ValueError, "x: expected numbers within"),
    ("ln-x-decimal-beyond", lambda: lnlib.layer_norm([Decimal("1e400"), 1]), ValueError, "element [0]"),
    ("ln-x-none-element", lambda: lnlib.layer_norm([1.0, None]), TypeError, "element [1]"),
    ("ln-x-bool-mixed", lambda: lnlib.layer_norm([1, True, 0]), TypeError, "x: expected real numbers, got booleans"),
    ("ln-x-nested-bool", lambda: lnlib.layer_norm([[1, 2], [False, 3]]), TypeError, "x:"),
    ("ln-x-longdouble", lambda: lnlib.layer_norm(np.array([np.longdouble("1e400"), 1])), ValueError, "x: expected"),
    ("BatchNorm-1d-message", lambda: bn(3)(V), ValueError, "got 1 dimension(s) (shape (3,))"),
    ("BatchNorm-features-huge", lambda: bn(10**400), ValueError, "num_features:"),
    ("BatchNorm-features-memory", lambda: bn(10**12), ValueError, "num_features:"),
    ("train-lr-beyond-float64", lambda: T.train_mlp("layer", lr=10**400), ValueError, "lr:"),
    ("train-record-steps-int", lambda: T.train_mlp("layer", record_steps=5), TypeError, "record_steps:"),
    ("train-depth-huge", lambda: T.train_mlp("layer", depth=10**18), BudgetError, "depth:"),
    ("train-width-huge", lambda: T.train_transformer("pre", width=10**9), BudgetError, "width:"),
    # issue 39, L1: beyond the budget of one call (1 GB, 10 s on 2 cores), refused before any work
    ("budget-depth-explorer", lambda: widgets.DepthExplorer(24, 4096), BudgetError, "width: expected at most 228"),
    ("budget-depth-explorer-512", lambda: widgets.DepthExplorer(2, 512), BudgetError, "width: expected at most 228"),
    ("budget-ffn", lambda: lnlib.transformer.ffn_gradient_norms("pre", 24, 4096), BudgetError, "width:"),
    ("budget-mlp-size", lambda: T.train_mlp("layer", depth=64, width=1024), BudgetError, "width:"),
    ("budget-mlp-steps", lambda: T.train_mlp("layer", steps=10**9), BudgetError, "steps: expected at most"),
    ("budget-mlp-runs", lambda: T.train_mlp_runs("layer", [(1e-3, 0)] * 10**6), BudgetError, "settings:"),
    ("budget-sweep", lambda: T.sweep("mlp", ["layer"], [1e-3 * k for k in range(1, 200)]), BudgetError, "steps:"),
    ("budget-transformer", lambda: T.train_transformer("pre", depth=48, width=256), BudgetError, "width:"),
    ("budget-matrix", lambda: widgets.AxisExplorer(np.ones((33, 4)), ["t"] * 33), BudgetError, "matrix: expected"),
    ("sweep-lrs-None", lambda: T.sweep("mlp", ["layer"], None), TypeError, "lrs:"),
    ("sweep-lrs-empty", lambda: T.sweep("mlp", ["layer"], []), ValueError, "lrs:"),
    ("sweep-warmups-int", lambda: T.sweep("mlp", ["layer"], [1e-3], warmups=0), TypeError, "warmups:"),
    ("explorer-grid-empty", lambda: _training_explorer({"MLP": {}}), ValueError, "grids:"),
    ("explorer-grid-list", lambda: _training_explorer({"MLP": [1]}), TypeError, "grids:"),
    ("plots-guide-effect", lambda: lnlib.plots.epsilon_guide_shown(None), TypeError, "effect:"),
    ("plots-guide-range", lambda: lnlib.plots.epsilon_guide_shown(_effect(), (1.0, 0.1)), ValueError, "eps_range:"),
    ("plots-stage-panels", lambda: lnlib.plots.stage_panels([1.0, 2.0]), TypeError, "steps:"),
    ("tables-stats-labels", lambda: lnlib.tables.stats_table(5, {}), TypeError, "labels:"),
    ("tables-stats-columns", lambda: lnlib.tables.stats_table(["a"], [1.0]), TypeError, "columns:"),
    ("tables-stats-text", lambda: lnlib.tables.stats_table(["a"], {"μ": "1"}), TypeError, "columns['μ']:"),
    # issue 39, L9: the tables of numbers take numbers only
    ("tables-token-bool", lambda: lnlib.tables.token_table([[True, False]], ["我"]), TypeError, "matrix:"),
    ("tables-token-text", lambda: lnlib.tables.token_table([["1", "2"]], ["我"]), TypeError, "matrix:"),
    ("tables-token-complex", lambda: lnlib.tables.token_table([[1j, 2]], ["我"]), TypeError, "matrix:"),
    ("tables-vectors-bool", lambda: lnlib.tables.vectors_table({"x": [True, False]}), TypeError, "rows['x']:"),
    ("tables-vectors-text", lambda: lnlib.tables.vectors_table({"x": ["1", "2"]}), TypeError, "rows['x']:"),
    ("tables-vectors-complex", lambda: lnlib.tables.vectors_table({"x": [1 + 1j]}), TypeError, "rows['x']:"),
    # issue 39, L12, L13
    ("gamma-beta-eps-0", lambda: widgets.GammaBetaExplorer([[5, 5]], ["a"], eps=0), ValueError, "eps: expected ε > 0"),
    ("sweep-lrs-repeated", lambda: T.sweep("mlp", ["layer"], [1e-3, 0.001]), ValueError, "lrs: expected each"),
    ("sweep-variants-repeated", lambda: T.sweep("mlp", ["layer", "layer"], [1e-3]), ValueError, "variants:"),
    ("sweep-warmups-repeated", lambda: T.sweep("mlp", ["layer"], [1e-3], warmups=[0, 0]), ValueError, "warmups:"),
    ("tplots-loss-curves", lambda: TP.loss_curves([1.0, 2.0]), TypeError, "runs:"),
    ("tplots-loss-curves-item", lambda: TP.loss_curves({"layer": [1.0]}), TypeError, "runs:"),
    ("tplots-layer-scales", lambda: TP.layer_scales({}, {}), ValueError, "before:"),
    ("tplots-histograms", lambda: TP.activation_histograms(None, None), TypeError, "before:"),
    ("tplots-batch-sizes", lambda: TP.batch_size_plot({"layer": [0.5]}, None), TypeError, "batch_sizes:"),
    ("tplots-select", lambda: TP.select(None, ["layer"], 1e-3, 0), TypeError, "grid:"),
    ("tplots-explorer-none", lambda: TP.explorer_figure({}, ["layer"], 1e-3, 0), ValueError, "variants:"),
    ("plots-heatmap-text", lambda: lnlib.plots.value_heatmap([["a", "b"]], ["我"]), TypeError, "matrix:"),
    ("plots-heatmap-complex", lambda: lnlib.plots.value_heatmap([[1 + 1j, 2]], ["我"]), TypeError, "matrix:"),
    ("plots-token-bars-bool", lambda: lnlib.plots.token_bars([[True, False]], ["我"]), TypeError, "matrix:"),
    ("plots-jacobian-text", lambda: lnlib.plots.jacobian_heatmap([["1", "2"], ["3", "4"]]), TypeError, "jac:"),
    ("scaling-figure", lambda: lnlib.attention_scaling_plot.scaling_figure(None), TypeError, "study:"),
    # check
    ("check-name-int", lambda: lnlib.check(3, 5), TypeError, "name:"),
    ("check-name-unknown", lambda: lnlib.check("99.nope", 5), ValueError, "name:"),
    # parse_vector (the learner-facing messages are Chinese; the programmer-facing TypeError names `text`)
    ("parse-None", lambda: widgets.parse_vector(None), TypeError, "text:"),
    ("parse-bytes", lambda: widgets.parse_vector(b"1, 2"), TypeError, "text:"),
    ("parse-empty", lambda: widgets.parse_vector(""), ValueError, "至少一个数"),
    ("parse-letters", lambda: widgets.parse_vector("1, a"), ValueError, "不是数字"),
    ("parse-nan", lambda: widgets.parse_vector("1, nan"), ValueError, "nan"),
    ("parse-overflow", lambda: widgets.parse_vector("1e400"), ValueError, "太大"),
]


def _training_explorer(grids):
    from lnlib.training_widgets import TrainingExplorer

    return TrainingExplorer(grids)


def _effect():
    return lnlib.pitfalls.epsilon_effect([1.0, 2.0, 3.0], 1e-5)


def _with(module, **attrs):
    for name, value in attrs.items():
        setattr(module, name, value)
    return module


def test_the_table_is_distinct_and_covers_every_public_function():
    assert len({row[0] for row in BAD}) == len(BAD), "row ids must be distinct"
    functions = {row[0].split("-")[0] for row in BAD}
    for public in (
        "ln",
        "steps",
        "mean",
        "center",
        "variance",
        "std",
        "normalize",
        "affine",
        "standardize",
        "batch_norm",
        "BatchNorm",
        "rms_norm",
        "backward",
        "check",
        "parse",
    ):
        assert public in functions, f"no bad input for {public}"


@pytest.mark.parametrize(("call", "exc", "text"), [row[1:] for row in BAD], ids=[row[0] for row in BAD])
def test_bad_input_is_refused_clearly(call, exc, text):
    with pytest.raises(exc) as info:
        call()
    assert type(info.value) is exc, f"expected exactly {exc.__name__}, got {type(info.value).__name__}"
    message = str(info.value)
    assert text in message, message
    assert "Traceback" not in message
    # raised by lnlib's own validation, not by numpy (or Python) further down
    last = traceback.extract_tb(info.tb)[-1]
    assert Path(last.filename).resolve().is_relative_to(LNLIB_DIR), f"raised in {last.filename}:{last.lineno}"
    assert info.value.__cause__ is None or isinstance(info.value.__cause__, exc)


def test_a_refused_batch_leaves_the_running_statistics_alone():
    """Raised before any work: the failed training call changed nothing."""
    module = lnlib.BatchNorm(3)
    module(M)
    mean, var = module.running_mean.copy(), module.running_var.copy()
    for bad in (np.ones((1, 3)), np.ones((4, 2)), [["a", "b", "c"]], np.full((2, 3), 1.0 + 1j)):
        with pytest.raises((ValueError, TypeError)):
            module(bad)
    np.testing.assert_array_equal(module.running_mean, mean)
    np.testing.assert_array_equal(module.running_var, var)


@pytest.mark.parametrize(
    ("attribute", "value"),
    [
        ("running_mean", np.zeros(1)),
        ("running_mean", np.zeros((2, 3))),
        ("running_var", [1.0, 1.0]),
        ("running_var", [1.0, -2.0, 1.0]),
        ("running_var", [1.0, np.nan, 1.0]),
        ("gamma", [1.0, 2.0]),
        ("beta", "abc"),
        ("eps", -1.0),
        ("eps", float("nan")),
        ("momentum", 2.0),
        ("momentum", None),
        ("momentum", -0.5),
        ("training", "yes"),
    ],
)
@pytest.mark.parametrize("mode", ["train", "eval"])
def test_a_bad_module_state_is_refused_when_it_is_set(attribute, value, mode):
    """Issue 11, item 5 and issue 30, item 4: an attribute is checked when it is assigned, the error names it, and
    the module keeps its state and stays usable (before, a bad value was only refused by the next call)."""
    module = lnlib.BatchNorm(3)
    module(M)
    getattr(module, mode)()
    names = ("running_mean", "running_var", "gamma", "beta", "eps", "momentum", "training")
    before = {name: repr(getattr(module, name)) for name in names}  # repr: NaN compares equal to itself
    with pytest.raises((ValueError, TypeError), match=f"^{attribute}:"):
        setattr(module, attribute, value)
    assert {name: repr(getattr(module, name)) for name in names} == before
    assert np.all(np.isfinite(module(M)))


def test_lists_are_fine_module_state():
    """A learner may assign lists (notebook 08 invites it): used as they are, in both modes."""
    module = lnlib.BatchNorm(3)
    module.running_mean, module.running_var = [0.0, 1.0, 2.0], [1.0, 1.0, 1.0]
    module.gamma, module.beta = [1.0, 2.0, 3.0], [0.0, 0.0, 1.0]
    y = module(M)
    np.testing.assert_allclose(module.running_mean, 0.9 * np.array([0.0, 1.0, 2.0]) + 0.1 * M.mean(0))
    assert y.shape == M.shape
    want = (M - [0.0, 1.0, 2.0]) / np.sqrt(1 + 1e-5) * [1.0, 2.0, 3.0] + [0.0, 0.0, 1.0]
    module.running_mean, module.running_var = [0.0, 1.0, 2.0], [1.0, 1.0, 1.0]
    np.testing.assert_allclose(module.eval()(M), want, rtol=1e-12)


def test_the_eval_message_for_an_empty_batch():
    with pytest.raises(ValueError) as info:
        lnlib.BatchNorm(3).eval()(np.zeros((0, 3)))
    assert "nothing to average" not in str(info.value)


def test_numerical_gradient_takes_any_real_step():
    """h = np.float32(1e-3) is a valid step (refused before issue 11, item 7)."""
    grad = numerical_gradient(lambda a: float(np.sum(a**2)), [1.0, -2.0], h=np.float32(1e-3))
    np.testing.assert_allclose(grad, [2.0, -4.0], rtol=1e-6)
    grad = numerical_gradient(lambda a: np.sum(a**2, keepdims=True), [1.0, -2.0], h=np.int64(1))
    np.testing.assert_allclose(grad, [2.0, -4.0], rtol=1e-12)


def test_a_bad_name_prints_nothing(capsys):
    with pytest.raises(ValueError):
        lnlib.check("99.nope", 5)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    "answer",
    [
        10**400,
        object(),
        {"a": 1},
        5 + 0j,
        float("nan"),
        [[1], [1, 2]],
        "五",
        b"x",
        np.array(["a"]),
        [None],
        -float("inf"),
    ],
    ids=lambda a: f"{type(a).__name__}:{repr(a)[:40]}" if type(a) is not object else "object()",  # no address
)
def test_check_never_raises_on_a_strange_answer(answer, capsys):
    """A learner's answer is never a programming error: ✗ with a hint, not a traceback."""
    assert lnlib.check("03.mean_pear", answer) is None  # prints its verdict, displays nothing
    assert "✗" in capsys.readouterr().out


def test_real_numbers_of_every_python_kind_are_read_as_float64():
    """Issue 30, item 8: ints beyond int64, Fraction and Decimal made an object array ("dtype object"); they are
    real numbers within float64, so they are read as such (the same result as the float64 list)."""
    from fractions import Fraction

    want = lnlib.layer_norm([float(2**64), 1.0, 0.0])
    np.testing.assert_array_equal(lnlib.layer_norm([2**64, 1, 0]), want)
    np.testing.assert_array_equal(
        lnlib.layer_norm([Fraction(1, 2), Decimal("1.5"), 3]), lnlib.layer_norm([0.5, 1.5, 3.0])
    )


def test_a_signalling_decimal_nan_is_a_nan_in_its_row():
    """Issue 39, L11: Decimal('sNaN') raised decimal.InvalidOperation; like any NaN it stays in its own row."""
    y = lnlib.layer_norm([[Decimal("sNaN"), Decimal(1), Decimal(2)], [Decimal(1), Decimal(2), Decimal(3)]])
    assert np.isnan(y[0]).all()
    np.testing.assert_allclose(y[1], [-1.2247356859, 0.0, 1.2247356859], rtol=1e-9)  # (x − 2)/√(2/3 + 1e-5)
