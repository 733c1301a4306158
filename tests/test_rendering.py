"""Tables and plots: deterministic HTML, the right numbers in the right rows, Chinese glyphs without warnings."""

from __future__ import annotations

import io
import re
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
from helpers import td_texts as cells
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg

import lnlib
from lnlib import groups, plots, tables
from lnlib.tables import Table


def test_stage_table_rows_and_numbers():
    t = tables.stage_table(lnlib.layer_norm_steps([2, 4, 6, 8], eps=0))
    f = t.frame
    assert list(f.index) == [
        "输入 x",
        "均值 μ",
        "中心化 x − μ",
        "方差 σ²",
        "标准差 σ",
        "√(σ² + ε)",
        "归一化 x̂",
        "输出 y = γ ⊙ x̂ + β",
    ]
    assert f.loc["均值 μ", tables.SCALAR_COLUMN] == 5
    assert f.loc["方差 σ²", tables.SCALAR_COLUMN] == 5
    assert f.loc["中心化 x − μ"].iloc[:4].tolist() == [-3, -1, 1, 3]
    html = t.to_html()
    for number in ("5.000", "2.236", "-1.342", "-0.447", "0.447", "1.342", "-3.000"):
        assert number in cells(html), number
    assert "2.236" in repr(t) and "0x" not in repr(t)


def test_stage_table_with_affine_rows():
    t = tables.stage_table(lnlib.layer_norm_steps([2, 4, 6, 8], gamma=[2, 1, 1, 1], beta=[0.5, 0, 0, 0]), affine=True)
    assert "缩放 γ" in t.frame.index and "平移 β" in t.frame.index
    assert "-2.183" in cells(t.to_html())


def test_html_is_deterministic_and_distinct_per_table():
    a1 = tables.token_table(lnlib.TOKEN_MATRIX).to_html()
    a2 = tables.token_table(lnlib.TOKEN_MATRIX.copy()).to_html()
    b = tables.token_table(lnlib.TOKEN_MATRIX * 2).to_html()
    assert a1 == a2
    assert re.search(r'id="(T_\w+)"', a1).group(1) != re.search(r'id="(T_\w+)"', b).group(1)


def test_token_table_labels_rows_by_token():
    f = tables.token_table(lnlib.TOKEN_MATRIX).frame
    assert list(f.index) == ["我", "吃", "苹果"] and list(f.columns) == ["第 1 维", "第 2 维", "第 3 维", "第 4 维"]
    with pytest.raises(ValueError, match="matrix"):
        tables.token_table(np.ones((2, 4)))


@pytest.mark.parametrize(
    ("mode", "mu", "sigma"),
    [
        ("row", [5, 50, 5], [np.sqrt(5), np.sqrt(500), np.sqrt(5)]),
        ("column", [10, 50 / 3, 70 / 3, 30], None),
        ("all", [np.mean(lnlib.TOKEN_MATRIX)], [np.std(lnlib.TOKEN_MATRIX)]),
    ],
)
def test_axis_stats_table(mode, mu, sigma):
    f = tables.axis_stats_table(groups.group_stats(lnlib.TOKEN_MATRIX, mode)).frame
    np.testing.assert_allclose(f["μ"], mu)
    np.testing.assert_allclose(f["σ"], sigma if sigma is not None else np.std(lnlib.TOKEN_MATRIX, axis=0))


def test_vectors_table_rejects_ragged_rows():
    with pytest.raises(ValueError, match="rows"):
        tables.vectors_table({"a": [1, 2], "b": [1, 2, 3]})


def test_use_cjk_font_picks_an_installed_font_from_the_list():
    name = plots.use_cjk_font()
    installed = {f.name for f in font_manager.fontManager.ttflist}
    if name is None:
        pytest.skip("no CJK font installed on this machine (install fonts-noto-cjk)")
    assert name in plots.CJK_FONTS and name in installed
    assert matplotlib.rcParams["font.sans-serif"][0] == name
    # every earlier-preferred font is really missing, so the choice follows the documented order
    assert not installed & set(plots.CJK_FONTS[: plots.CJK_FONTS.index(name)])


@pytest.mark.parametrize(
    "draw",
    [
        lambda: plots.stage_bars(lnlib.layer_norm_steps([2, 4, 6, 8])),
        lambda: plots.stage_bars(lnlib.layer_norm_steps([2, 4, 6, 8], gamma=[2, 1, 1, 1]), affine=True),
        lambda: plots.token_bars(lnlib.TOKEN_MATRIX, title="三个 token"),
        lambda: plots.highlight_heatmap(groups.selection(lnlib.TOKEN_MATRIX, "row", 2)),
        lambda: plots.highlight_heatmap(groups.selection(lnlib.TOKEN_MATRIX, "column", 0)),
        lambda: plots.highlight_heatmap(groups.selection(lnlib.TOKEN_MATRIX, "all")),
    ],
    ids=["stages", "stages-affine", "tokens", "heat-row", "heat-col", "heat-all"],
)
def test_figures_render_chinese_without_missing_glyphs(draw, caplog):
    if plots.use_cjk_font() is None:
        pytest.skip("no CJK font installed")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Glyph … missing from font(s)" is a UserWarning
        png = plots.to_png(draw())
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    assert "findfont" not in caplog.text


def test_heatmap_title_reports_the_statistic_of_the_framed_cells():
    fig = plots.highlight_heatmap(groups.selection(lnlib.TOKEN_MATRIX, "column", 0))
    title = fig.axes[0].get_title()
    assert "3 个数" in title and "= 10" in title
    with pytest.raises(ValueError, match="index"):
        groups.selection(lnlib.TOKEN_MATRIX, "row", 3)
    with pytest.raises(ValueError, match="mode"):
        groups.selection(lnlib.TOKEN_MATRIX, "diagonal")


# --- stored outputs are a function of what is displayed (issue: table ids hashed from float bits) ----------------


def test_table_html_depends_on_the_displayed_numbers_not_their_last_bits():
    exact = pd.DataFrame([[0.1 + 0.2, 1.0 / 3.0, 0.0]], columns=["a", "b", "c"])
    noisy = pd.DataFrame([[0.3, np.nextafter(1.0 / 3.0, 1.0), -1e-17]], columns=["a", "b", "c"])
    assert exact.to_json() != noisy.to_json() or not exact.equals(noisy)
    assert Table(exact, "表").to_html() == Table(noisy, "表").to_html()
    assert Table(exact, "表").to_text() == Table(noisy, "表").to_text()
    assert "-0.000" not in Table(noisy, "表").to_html() and "-0.000" not in Table(noisy, "表").to_text()


def test_table_ids_differ_when_caption_precision_or_highlight_differ():
    import re

    frame = pd.DataFrame([[1.0, 2.0], [3.0, 4.0]], index=["r1", "r2"], columns=["c1", "c2"])

    def table_id(table):
        return set(re.findall(r"T_ln[0-9a-f]{10}", table.to_html()))

    variants = [
        Table(frame, "表"),
        Table(frame, "另一张表"),
        Table(frame, "表", precision=2),
        Table(frame, "表", highlight=(["r1"], ["c1"])),
        Table(frame, "表", highlight=(["r2"], ["c2"])),
    ]
    ids = [table_id(t) for t in variants]
    assert all(len(i) == 1 for i in ids)
    assert len({next(iter(i)) for i in ids}) == len(variants)


def test_inks_on_many_cells_agrees_with_ink_on():
    rng = np.random.default_rng(0)
    colours = np.concatenate([rng.random((2000, 3)), np.eye(3), np.zeros((1, 3)), np.ones((1, 3))])
    # around the switch point (relative luminance ≈ 0.179): greys from 0.40 to 0.50
    colours = np.concatenate([colours, np.linspace(0.40, 0.50, 501)[:, None].repeat(3, axis=1)])
    assert plots.inks_on(colours) == [plots.ink_on(tuple(c)) for c in colours]
    rgba = np.concatenate([colours, np.ones((len(colours), 1))], axis=1).reshape(-1, 1, 4)
    assert plots.inks_on(rgba) == plots.inks_on(colours)


def test_the_shared_mathtext_parser_leaves_every_pixel_as_it_was():
    """plots' canvas shares one mathtext parser between the two renderers of savefig(bbox_inches="tight"); the PNG
    must equal the one matplotlib's own Agg canvas makes (TeX title, TeX axis labels, log-axis tick labels)."""
    offsets = 10.0 ** np.arange(0, 8.5, 0.5)
    rows = (offsets[:, None] + np.arange(4.0)).astype(np.float32)
    fig = plots.variance_error_plot(offsets, rows.var(axis=1), rows.var(axis=1), 1.25)
    ours = plots.to_png(fig)
    FigureCanvasAgg(fig)  # matplotlib's canvas: one parser per renderer
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    assert ours == buf.getvalue()
    assert isinstance(plots.stage_bars(lnlib.layer_norm_steps([2, 4, 6, 8])).canvas, FigureCanvasAgg)


def test_a_one_token_attention_panel_does_not_warn():
    """Issue 30, item 6: one key gave ln 1 = 0 and the x-limits (0, 0), with a matplotlib warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = plots.attention_panel([[1.0]], ["我"], entropy=[0.0])
    assert fig.axes[1].get_xlim()[1] > 0


@pytest.mark.parametrize(
    "draw",
    [
        lambda: plots.stage_bars(lnlib.layer_norm_steps([8e307, -8e307, 0, 1])),
        lambda: plots.stage_bars(lnlib.layer_norm_steps([8.98e307, -8.98e307, 0, 1])),
        lambda: plots.stage_bars(lnlib.layer_norm_steps([5e307, -5e307, 0, 1])),
        lambda: plots.value_heatmap([[1e308, 2], [3, 4]], ["我", "吃"]),
        lambda: plots.token_bars([[1.7e308, -1.7e308, 1], [3, 4, 5]], ["我", "吃"]),
        lambda: plots.jacobian_heatmap([[1e308, -1e308], [3, 4]]),
    ],
    ids=["bars-8e307", "bars-8.98e307", "bars-5e307", "heatmap-1e308", "token-bars-max", "jacobian-1e308"],
)
def test_plots_at_the_top_of_float64_draw_without_warnings(draw):
    """Issue 30, item 7: "arange: cannot compute length", LinAlgError, "Axis limits cannot be NaN or Inf" and up
    to 72 overflow warnings. Drawn in units of 10^k, the unit named on the axis, the labels the true values."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = draw()
        fig.savefig(io.BytesIO(), format="png")
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert any(label.startswith("单位：1e+30") for label in labels), labels
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert any(t.startswith(("8e+307", "8.98e+307", "5e+307", "1e+308", "1.7e+308")) for t in texts), texts
