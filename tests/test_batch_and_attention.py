"""Notebooks 08–11: the helpers the notebooks and explorers call agree with numbers computed independently here.
(The explorers themselves are driven in tests/test_explorers.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import lnlib
from lnlib import invariance, plots, tables, transformer


def test_attention_at_scale_against_a_direct_computation():
    x = np.array([[1.0, 0.0], [0.0, 1.0]])
    w = transformer.attention_at_scale(x, 2.0)
    s = 2.0 / np.sqrt(2)
    np.testing.assert_allclose(w[0], [np.exp(s) / (np.exp(s) + 1), 1 / (np.exp(s) + 1)])


def test_the_invariance_table_prints_the_batchnorm_row():  # its values: tests/test_eps_invariance_gamma_beta.py
    html = tables.invariance_table(invariance.table1(["layer", "batch"])).to_html()
    assert "批归一化（BatchNorm）：不变？" in html


@pytest.mark.parametrize(
    "make",
    [
        lambda: plots.ln_vs_bn(*invariance.row_and_column_norms(lnlib.TOKEN_MATRIX)),
        plots.add_norm_diagram,
    ],
)
def test_figures_render(make):
    assert plots.to_png(make())[:4] == b"\x89PNG"
