"""Notebooks 08–11: the explorers' callbacks run headlessly (set .value, read the rendered HTML), and the helpers
they call agree with numbers computed independently here."""

from __future__ import annotations

import re

import numpy as np
import pytest

import lnlib
from lnlib import invariance, plots, tables, transformer, widgets


def numbers(html: str) -> list[float]:
    cells = re.findall(r"<td[^>]*>\s*(-?\d+\.\d+)\s*</td>", html)
    return [float(c) for c in cells]


def test_batch_explorer_moves_batchnorm_but_not_layernorm():
    ex = widgets.BatchExplorer(1.0)
    bn_before, ln_before = numbers(ex.bn.value), numbers(ex.ln.value)
    # k = 1: the batch is our sentence plus its reverse; column 1 is 8, 20, 2, 2, 20, 8 → μ = 10, σ² = 56
    assert bn_before[4] == pytest.approx(10 / np.sqrt(56), abs=1e-3)  # 吃, 第 1 维
    ex.scale.value = 10.0
    assert "× 10" in ex.bn.value
    bn_after = numbers(ex.bn.value)
    col = np.array([8, 20, 2, 80, 200, 20.0])
    assert bn_after[4] == pytest.approx((20 - col.mean()) / col.std(), abs=1e-3)
    assert numbers(ex.ln.value) == ln_before
    assert ln_before[:4] == pytest.approx([1.342, 0.447, -0.447, -1.342], abs=1e-3)


def test_depth_explorer_redraws_for_a_new_depth():
    ex = widgets.DepthExplorer(3, width=16)
    assert len(re.findall(r"第 \d+ 层", ex.summary.value)) == 3
    png = ex.plot.value
    ex.depth.value = 5
    assert len(re.findall(r"第 \d+ 层", ex.summary.value)) == 5
    assert ex.plot.value != png and ex.plot.value[:4] == b"\x89PNG"
    values = numbers(ex.summary.value)
    from lnlib.transformer import ffn_gradient_norms

    expected = np.column_stack([ffn_gradient_norms("post", 5, 16), ffn_gradient_norms("pre", 5, 16)]).ravel()
    np.testing.assert_allclose(values, expected, atol=1e-3)


def test_softmax_explorer_entropy_follows_the_scale():
    ex = widgets.SoftmaxExplorer(0.01)
    entropies = numbers(ex.summary.value)[1::2]
    assert all(h == pytest.approx(np.log(3), abs=0.01) for h in entropies)  # nearly uniform
    ex.scale.value = 10.0
    first_row = numbers(ex.summary.value)[:2]
    # 我 row of the normalized matrix has scores (2, −2, −2)·10: weight e^40 / (e^40 + 2) ≈ 1, entropy ≈ 0
    assert first_row[0] == pytest.approx(1.0, abs=1e-3) and first_row[1] == pytest.approx(0.0, abs=1e-3)
    assert numbers(ex.summary.value)[3] == pytest.approx(np.log(2), abs=1e-3)  # 吃: half to 吃, half to 苹果


def test_attention_at_scale_against_a_direct_computation():
    x = np.array([[1.0, 0.0], [0.0, 1.0]])
    w = transformer.attention_at_scale(x, 2.0)
    s = 2.0 / np.sqrt(2)
    np.testing.assert_allclose(w[0], [np.exp(s) / (np.exp(s) + 1), 1 / (np.exp(s) + 1)])


def test_batchnorm_columns_of_ba_table1():
    paper = {"weight_matrix_rescale": True, "weight_matrix_recenter": False, "weight_vector_rescale": True,
             "dataset_rescale": True, "dataset_recenter": True, "single_case_rescale": False}  # Ba et al. 2016
    got = {v.transform.key: v.invariant for v in invariance.verdicts("batch")}
    assert got == paper
    html = tables.invariance_table(invariance.table1(["layer", "batch"])).to_html()
    assert "批归一化（BatchNorm）：不变？" in html


@pytest.mark.parametrize("make", [lambda: plots.ln_vs_bn(*invariance.row_and_column_norms(lnlib.TOKEN_MATRIX)),
                                  plots.norm_axes_diagram,
                                  plots.add_norm_diagram])
def test_figures_render(make):
    assert plots.to_png(make())[:4] == b"\x89PNG"
