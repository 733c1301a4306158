"""Valid input never warns (issue 39, L7): logits at ±1e308, heatmaps of numbers near the float64 limit or with a
colour scale of 1e-320, and token labels with characters no font of the figures has (an emoji, CJK Extension B)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import strict_warnings

from lnlib import figure_kit, plots, tiny_lm

BIG = 1e308


@pytest.fixture(autouse=True)
def _strict():
    with warnings.catch_warnings():
        strict_warnings()
        yield


@pytest.mark.parametrize("xent", [tiny_lm.cross_entropy], ids=["tiny_lm"])
def test_cross_entropy_at_the_float64_limit(xent):
    """By hand: softmax([1e308, −1e308, 0]) = [1, 0, 0] exactly in float64 (e^(−1e308) underflows), so label 0 costs
    log(1 + tiny) = 0 and label 1 costs 2e308, beyond float64: inf. The gradient is softmax − one-hot."""
    logits = np.array([[BIG, -BIG, 0.0]])
    loss, grad = xent(logits, np.array([0]))
    assert loss == 0.0 and grad.tolist() == [[0.0, 0.0, 0.0]]
    loss, grad = xent(logits, np.array([1]))
    assert loss == np.inf and grad.tolist() == [[1.0, -1.0, 0.0]]


def test_ln_vs_bn_of_numbers_near_the_limit():
    m = np.array([[1.7e308, -1.7e308], [-1.7e308, 1.7e308]])
    fig = plots.ln_vs_bn(m, -m, ["我", "吃"])
    assert plots.to_png(fig).startswith(b"\x89PNG")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts[0] == plots.number(1.7e308), "the cells still write the true numbers"


@pytest.mark.parametrize("limit", [1e-320, 5e-324, 1e-305, 1e305])
def test_value_heatmap_with_any_positive_limit(limit):
    values = np.array([[1.0, -2.0], [3e-321, 0.0]])
    fig = plots.value_heatmap(values, ["a", "b"], limit=limit)
    assert plots.to_png(fig).startswith(b"\x89PNG")
    moved = plots.ValueHeatmapFigure(values, ["a", "b"], limit=limit)
    moved.update(-values)
    assert plots.to_png(moved.fig).startswith(b"\x89PNG")


def test_the_colours_of_a_heatmap_do_not_change_by_clipping():
    """Values beyond ±limit take the end colours of the scale, clipped or not: the RGBA of every cell is the
    colour map's own colour of its value (matplotlib's Normalize, computed here without lnlib)."""
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    values = np.array([[-9.0, -7.5, 0.0], [2.0, 7.5, 30.0]])
    fig = plots.value_heatmap(values, ["a", "b"], limit=7.5)
    image = fig.axes[0].images[0]
    want = colormaps["RdBu_r"](Normalize(-7.5, 7.5)(values))
    np.testing.assert_array_equal(image.to_rgba(image.get_array()), want)


@pytest.mark.parametrize("token", ["😀", "𠀀", "a😀b", "我𠀀"])
def test_token_labels_no_font_can_draw_are_written_as_code_points(token):
    fig = plots.value_heatmap([[1.0, 2.0]], [token])
    assert plots.to_png(fig).startswith(b"\x89PNG")  # a "Glyph … missing" warning fails here
    label = fig.axes[0].get_yticklabels()[0].get_text()
    assert "U+" in label and label.startswith(token[0] if token[0].isascii() or token[0] == "我" else "U+")
    assert figure_kit.drawable("我吃苹果 μ σ² ε") == "我吃苹果 μ σ² ε", "what the course draws stays as it is"
