"""Every explorer of lnlib.widgets, driven headlessly: set a control's value as a learner would, read the rendered
HTML (tables via tests/helpers.py) and compare with numbers worked out here by hand or by a direct computation.

The real-browser run of the same explorers is tests/browser/ (make test-browser); text-box parsing is
tests/test_parse_vector.py.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from helpers import numbers, row_numbers, td_texts

from lnlib import widgets
from lnlib.transformer import ffn_gradient_norms

# --- 02, 03: VectorExplorer, AxisExplorer -----------------------------------------------------------------------------


def test_vector_explorer_default_shows_apple():
    e = widgets.VectorExplorer()
    assert e.text.value == "2, 4, 6, 8" and e.eps.value == pytest.approx(1e-5)
    got = numbers(e.table.value)
    for v in (5.0, 2.236, -1.342, -0.447, 0.447, 1.342):
        assert v in got
    assert e.plot.value[:4] == b"\x89PNG" and e.message.value == ""


@pytest.mark.parametrize("text", ["20, 40, 60, 80", "20 40 60 80", "20，40，60，80", "[20, 40, 60, 80]"])
def test_typing_a_scaled_row_gives_the_same_xhat(text):
    e = widgets.VectorExplorer()
    e.text.value = text
    got = numbers(e.table.value)
    assert 50.0 in got and 500.0 in got and 22.361 in got
    assert row_numbers(e.table.value, "归一化 x̂") == [-1.342, -0.447, 0.447, 1.342]


def test_bad_text_shows_chinese_message_and_keeps_last_table():
    e = widgets.VectorExplorer()
    e.text.value = "12, 14, 16, 18"
    table, plot = e.table.value, e.plot.value
    e.text.value = "a, b"
    assert "不是数字" in e.message.value
    assert e.table.value == table and e.plot.value == plot
    np.testing.assert_array_equal(e.values, [12, 14, 16, 18])
    e.text.value = "1, 2"
    assert e.message.value == "" and 1.5 in numbers(e.table.value)


def test_moving_epsilon_shrinks_xhat():
    e = widgets.VectorExplorer("2, 4, 6, 8")
    e.eps.value = 5.0**0  # ε = 1: x̂ = ±3/√6, ±1/√6
    got = numbers(e.table.value)
    assert round(3 / np.sqrt(6), 3) in got and round(np.sqrt(6), 3) in got
    assert 1.342 not in got


def test_axis_explorer_switches_between_rows_columns_and_table():
    a = widgets.AxisExplorer()
    assert a.mode.value == "row" and a.index.label == "苹果"
    assert numbers(a.summary.value)[:3] == [5.0, 5.0, 2.236]
    a.mode.value = "column"
    assert [o[0] for o in a.index.options] == ["第 1 维", "第 2 维", "第 3 维", "第 4 维"]
    assert numbers(a.summary.value)[0] == 10.0
    png = a.plot.value
    a.index.value = 3
    assert a.plot.value != png
    a.mode.value = "all"
    assert a.index.disabled and len(numbers(a.summary.value)) == 3
    assert numbers(a.summary.value)[0] == pytest.approx(20.0, abs=1e-3)


@pytest.mark.parametrize("path", [("all", "row"), ("all", "column"), ("column", "row"), ("row", "all", "row")])
def test_axis_explorer_survives_every_mode_sequence(path):
    a = widgets.AxisExplorer()
    for mode in path:
        a.mode.value = mode
    assert a.mode.value == path[-1]
    expected = {"row": [5.0, 5.0, 2.236], "column": [10.0], "all": [20.0]}[path[-1]]
    assert numbers(a.summary.value)[: len(expected)] == pytest.approx(expected, abs=1e-3)
    assert a.index.disabled == (path[-1] == "all")


def test_message_stays_while_the_text_is_bad_even_if_a_slider_moves():
    e = widgets.VectorExplorer("2, 4, 6, 8")
    e.text.value = "2, 4,, 6"
    e.eps.value = 1.0
    assert "逗号" in e.message.value  # still explains why the typed text is ignored
    assert row_numbers(e.table.value, "归一化 x̂")[0] == round(-3 / np.sqrt(6), 3)  # last valid x, new ε
    e.text.value = "2, 4, 6"
    assert e.message.value == ""


# --- 04–06: EpsilonExplorer, ScaleShiftExplorer, GammaBetaExplorer ----------------------------------------------------


def test_epsilon_explorer_callbacks():
    ex = widgets.EpsilonExplorer("3, 3.002, 2.998, 3", eps=1e-5)
    # σ² = 2e-6: Var(x̂) = 2e-6 / (2e-6 + 1e-5) = 1/6, x̂₂ = 0.002 / √1.2e-5 = 0.577
    assert "0.166667" in td_texts(ex.summary.value)
    assert "0.577" in td_texts(ex.table.value)
    ex.eps.value = 1e-8
    assert "0.995025" in td_texts(ex.summary.value)  # 2e-6 / (2e-6 + 1e-8)
    assert "1.411" in td_texts(ex.table.value)  # 0.002 / √(2.01e-6)
    ex.eps.value = 1.0
    assert "0.000" in td_texts(ex.table.value)
    png = ex.plot.value
    ex.text.value = "2, 4, 6, 8"
    assert "0.833333" in td_texts(ex.summary.value)  # 5 / (5 + 1)
    assert ex.plot.value != png
    ex.text.value = "2, x, 6"
    assert "不是数字" in ex.message.value
    assert "0.833333" in td_texts(ex.summary.value)  # last valid state kept
    ex.eps.value = 1e-8
    assert "不是数字" in ex.message.value  # the bad text is still in the box, so its message stays
    assert "-1.342" in td_texts(ex.table.value)  # the last valid row, with the new ε


def test_scale_shift_explorer_callbacks():
    ex = widgets.ScaleShiftExplorer("2, 4, 6, 8")
    cells = td_texts(ex.table.value)
    assert cells[:4] == ["2.000", "4.000", "6.000", "8.000"]
    ex.scale.value = 10.0
    cells = td_texts(ex.table.value)
    assert ["20.000", "40.000", "60.000", "80.000", "50.000", "22.361"] == cells[6:12]  # 10·x: μ = 50, σ = 10√5
    assert ["-1.342", "-0.447", "0.447", "1.342"] == cells[12:16]
    ex.shift.value = -30
    cells = td_texts(ex.table.value)
    assert ["-10.000", "10.000", "30.000", "50.000", "20.000"] == cells[6:11]
    assert ["-1.342", "-0.447", "0.447", "1.342"] == cells[12:16]
    ex.text.value = "2, 6, 4, 8"
    assert ["-1.342", "0.447", "-0.447", "1.342"] == td_texts(ex.table.value)[12:16]
    before = ex.table.value
    ex.text.value = "2, , 4"
    assert "逗号" in ex.message.value and ex.table.value == before
    lo, hi = ex._ylim()
    assert hi >= 10 * 8 + 50 and lo <= -(10 * 8 + 50)


def test_gamma_beta_explorer_callbacks():
    ex = widgets.GammaBetaExplorer()
    cells = td_texts(ex.table.value)
    assert cells[:4] == ["1.342", "0.447", "-0.447", "-1.342"]  # 我 at γ = 1, β = 0
    png = ex.plot.value
    ex.gammas[0].value = 2.0
    ex.betas[0].value = 0.5
    cells = td_texts(ex.table.value)
    assert cells[0] == "3.183"  # 我: 2 · 1.342 + 0.5
    assert cells[4] == cells[8] == "-2.183"  # 吃 and 苹果: 2 · (−1.342) + 0.5, shared γ/β
    assert cells[4:8] == cells[8:12]
    assert ex.plot.value != png
    stats_cells = td_texts(ex.stats.value)
    assert stats_cells[2] == f"{(2 * -3 / math.sqrt(5) + 0.5 + 3 / math.sqrt(5)) / 4:.3f}"  # 吃: mean of y
    ex.gammas[3].value = -1.0
    ex.betas[3].value = 1.0
    cells = td_texts(ex.table.value)
    assert cells[7] == f"{-3 / math.sqrt(5) + 1:.3f}"  # 吃, 第 4 维: −1.342 + 1
    assert cells[4:8] == cells[8:12]


# --- 08–10: BatchExplorer, DepthExplorer, SoftmaxExplorer -------------------------------------------------------------


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


# --- 13: VarianceExplorer ---------------------------------------------------------------------------------------------


def test_variance_explorer_callbacks():
    w = widgets.VarianceExplorer()
    assert "-474.342" in w.table.value
    w.exponent.value = 2
    assert "-474.342" not in w.table.value and "100 + " in w.table.value
    w.dtype.value = "float64"
    w.exponent.value = 4
    assert "-474.342" not in w.table.value and "float64" in w.table.value
