"""Notebook 16's explorer (lnlib.lm_explorer), headless: set a control's value, read the rendered HTML."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import cell_texts

import lnlib
from lnlib import lm_explorer, lm_plots, tiny_lm
from lnlib.exercises import _GUO_MU, _GUO_SIGMA, _GUO_X

pytestmark = pytest.mark.trained  # trained numbers: make test runs them on a second BLAS kernel


@pytest.fixture
def explorer():
    return lm_explorer.LMExplorer()


def test_default_view_is_the_static_cell(explorer):
    table = lm_explorer.sentence_table(explorer.model, "我吃苹果。", "1.attn")
    static = table.to_html()
    assert explorer.table.value == table.to_html(live=True)
    assert cell_texts(explorer.table.value) == cell_texts(static)
    assert "第 1 层·注意力前" in static and "「果」 100%" in static  # after 苹 the model is sure of 果


def test_the_table_shows_the_models_numbers(explorer):
    explorer.norm.value = "final"
    fwd, _ = tiny_lm.predict(explorer.model, "我吃苹果。")
    row = fwd.inputs["final"][0, 4]  # 。 entering the final LayerNorm
    sigma = lm_plots.sig(np.sqrt(lnlib.variance(row) + 1e-5))
    assert "最终 LayerNorm" in explorer.table.value and sigma in explorer.table.value


def test_a_sentence_applies_and_the_guess_follows(explorer):
    explorer.text.value = "小猫今天吃"
    assert explorer.message.value == ""
    assert "「鱼」" in explorer.table.value  # 小猫 eats only fish in the grammar
    explorer.text.value = "  我 吃 苹 "  # spaces are dropped
    assert "「果」" in explorer.table.value and "4 苹" not in explorer.table.value


@pytest.mark.parametrize(
    "text, says",
    [("我吃猪肉", "「猪」、「肉」"), ("我吃苹果。" * 4, "最多看 16 个字"), ("   ", "至少一个字"), ("hello", "「h」")],
)
def test_unreadable_text_gets_a_chinese_message_and_keeps_the_table(explorer, text, says):
    before = explorer.table.value
    explorer.text.value = text
    assert says in explorer.message.value and "⚠" in explorer.message.value
    assert explorer.table.value == before
    explorer.norm.value = "2.mlp"  # the buttons still work, on the last readable sentence
    assert "第 2 层·MLP 前" in explorer.table.value and "5 。" in explorer.table.value
    assert says in explorer.message.value  # the message stays until the text is readable again
    explorer.text.value = "我喝水。"
    assert explorer.message.value == "" and "3 水" in explorer.table.value


def test_bad_constructor_arguments_name_the_argument():
    with pytest.raises(ValueError, match="^text: 模型没见过"):
        lm_explorer.LMExplorer("猪")
    with pytest.raises(ValueError, match="^norm:"):
        lm_explorer.LMExplorer(norm="3.attn")


def test_the_exercise_row_is_the_models():
    """16.xhat_guo states 果's row at layer 1 to 3 significant digits: they must be the shipped model's."""
    model = tiny_lm.load()
    fwd, _ = tiny_lm.predict(model, "我吃苹果。")
    row = fwd.inputs["1.attn"][0, 3]
    assert [lm_plots.sig(v) for v in row[:3]] == [lm_plots.sig(v) for v in _GUO_X]
    assert lm_plots.sig(lnlib.mean(row)) == lm_plots.sig(_GUO_MU)
    assert lm_plots.sig(np.sqrt(lnlib.variance(row) + 1e-5)) == lm_plots.sig(_GUO_SIGMA)


def test_sig_writes_numbers_as_a_person_does():
    assert [lm_plots.sig(v) for v in (0.08439, 1.0973, -0.001881, 12.44, 0.0, 1e-5, -0.0004)] == [
        "0.0844",
        "1.10",
        "-0.00188",
        "12.4",
        "0",
        "1e-5",
        "-0.000400",
    ]


def test_ten_thousand_unknown_characters_give_a_short_message(explorer):
    """Issue 39, L10: 10,000 distinct unknown characters once put a 40 KB message into the widget."""
    explorer.text.value = "".join(chr(0x4E00 + k) for k in range(10_000))
    assert "最多看 16 个字" in explorer.message.value and len(explorer.message.value) < 500
