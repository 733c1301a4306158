"""Tables render without pandas, exactly as pandas renders them (issue 16: no pandas import in the notebooks).

The reference is pandas itself: the Styler markup (format, table styles, caption, uuid, properties on the
highlighted cells) and DataFrame.to_string with the same formatter, applied to the table's own `.frame`.
Every table function of lnlib.tables is checked with the inputs the notebooks use, and random grids with NaN, ±inf,
−0, text cells, long labels, captions and highlights.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pandas as pd
import pytest
from helpers import cell_texts, td_texts

import lnlib
from lnlib import groups, invariance, numerics, pitfalls, tables
from lnlib.tables import Grid, Table

STYLES = [
    {"selector": "th", "props": "text-align: center; padding: 2px 10px;"},
    {"selector": "td", "props": "text-align: right; padding: 2px 10px; font-family: monospace;"},
    {"selector": "caption", "props": "caption-side: top; font-weight: bold; padding-bottom: 4px; white-space: nowrap;"},
]


def pandas_html(t: Table) -> str:
    styler = t.frame.style.format(t._format).set_table_styles(STYLES).set_uuid("lnuuidplaceholder")
    if t.caption:
        styler = styler.set_caption(t.caption)
    if t.highlight is not None:
        styler = styler.set_properties(subset=t.highlight, **{"background-color": "#fde68a", "color": "#111827"})
    html = styler.to_html()
    return html.replace("lnuuidplaceholder", "ln" + hashlib.sha1(html.encode("utf-8")).hexdigest()[:10])


def pandas_text(t: Table) -> str:
    body = t.frame.to_string(formatters=dict.fromkeys(t.frame.columns, t._format))
    return f"{t.caption}\n{body}" if t.caption else body


def notebook_tables():
    x = lnlib.TOKEN_MATRIX
    steps = lnlib.layer_norm_steps([2, 4, 6, 8], eps=0)
    affine = lnlib.layer_norm_steps([2, 4, 6, 8], [2, 1, 1, 0.5], [0.5, 0, 0, -1], eps=1e-5)
    rows = {"苹果": [2, 4, 6, 8], "几乎常数": [3, 3.002, 2.998, 3], "常数": [3, 3, 3, 3]}
    yield tables.stage_table(steps)
    yield tables.stage_table(affine, affine=True, caption="带 γ、β")
    yield tables.token_table(x, caption="X")
    yield tables.token_table(x, highlight=(["吃", "苹果"], ["第 2 维", "第 4 维"]))
    yield tables.stats_table(["a", "b"], {"x": [1.5, np.nan], "y": [2, -3]}, index_name="名")
    for mode in ("row", "column", "all"):
        yield tables.axis_stats_table(groups.group_stats(x, mode))
    yield tables.vectors_table({"x": [1, 2, 3, 4], "F(x)": [0.5, -0.25, 0, 1e6]}, caption="残差", index_name="向量")
    yield tables.epsilon_summary(pitfalls.epsilon_effect([3, 3.002, 2.998, 3], 1e-5))
    yield tables.epsilon_summary(pitfalls.epsilon_effect([3, 3, 3, 3], 0.0))
    yield tables.eps_placement_table(pitfalls.eps_placement(rows, eps=1e-5))
    yield tables.ddof_table(pitfalls.ddof_comparison([2, 4, 6, 8]))
    yield tables.scale_shift_table(invariance.scale_shift([2, 4, 6, 8], -2.5, 3.0))
    yield tables.row_stats_table(groups.group_stats(lnlib.layer_norm(x), "row"), caption="y")
    yield tables.invariance_table(invariance.table1(["layer", "batch"]))
    for offset, dtype in ((1e4, "float32"), (1e5, "float16"), (1e8, "float64")):
        yield tables.variance_table(numerics.variance_methods(offset, dtype))
    yield tables.gradient_table({"post": [1.0, 2.0, 3.5], "pre": [0.1, 0.01, 1e-9]})


@pytest.mark.parametrize("table", list(notebook_tables()), ids=lambda t: t.caption[:20] or "untitled")
def test_every_table_renders_as_pandas_renders_it(table):
    assert table.to_html() == pandas_html(table)
    assert table.to_text() == pandas_text(table)
    assert repr(table) == table.to_text() and table._repr_html_() == table.to_html()


@pytest.mark.parametrize("seed", range(40))
def test_random_grids_render_as_pandas_renders_them(seed):
    rng = np.random.default_rng(seed)
    n, d = rng.integers(1, 6), rng.integers(1, 6)
    specials = [np.nan, np.inf, -np.inf, -0.0, -1e-9, 123456.789, "✓", "很长的一段文字", ""]
    cells = rng.normal(0, 10.0 ** rng.integers(-3, 4), (n, d)).astype(object)
    text_column = rng.integers(0, d)
    for i in range(n):
        for j in range(d):
            if j == text_column and seed % 3 == 0:
                cells[i, j] = ["✓", "✗", "x·a 很长的", "b"][rng.integers(0, 4)]
            elif rng.random() < 0.2:
                cells[i, j] = specials[rng.integers(0, 6)]
    index = [["我", "吃", "苹果", "row", "第 12 层后"][k] + str(k) * int(rng.integers(0, 3)) for k in range(n)]
    columns = [f"第 {j + 1} 维" if rng.random() < 0.5 else "x̂" * int(rng.integers(1, 4)) + str(j) for j in range(d)]
    index_name = [None, "token", "很长的行名字在这里"][seed % 3]
    highlight = ([index[0]], [columns[-1]]) if seed % 4 == 1 else None
    table = Table(
        Grid.of(cells.tolist(), index, columns, index_name),
        caption=["", "表", "x = [1, 2]（ε = 1e-05）"][seed % 3],
        highlight=highlight,
        precision=int(rng.integers(1, 7)),
        na_rep=["", "NaN"][seed % 2],
    )
    assert table.to_html() == pandas_html(table)
    assert table.to_text() == pandas_text(table)


def test_a_table_made_from_a_dataframe_keeps_it():
    frame = pd.DataFrame([[1.0, 2.0]], index=["r"], columns=["a", "b"])
    t = Table(frame, "表")
    assert t.frame is frame and t.grid == Grid(("r",), ("a", "b"), ((1.0, 2.0),), None)
    assert t.to_html() == pandas_html(t) and t.to_text() == pandas_text(t)


def test_the_frame_has_numeric_columns_as_numbers():
    f = tables.invariance_table(invariance.table1(["layer"])).frame
    assert f.index.name == "变换" and not pd.api.types.is_numeric_dtype(f.dtypes.iloc[0])
    assert f.dtypes.iloc[1] == np.float64
    assert tables.stage_table(lnlib.layer_norm_steps([2, 4, 6, 8])).frame.dtypes.eq(np.float64).all()


def test_a_highlight_naming_a_missing_label_is_refused():
    with pytest.raises(KeyError, match="highlight"):
        tables.token_table(lnlib.TOKEN_MATRIX, highlight=(["他"], ["第 1 维"])).to_html()


def test_labels_and_captions_are_html_escaped():
    """Issue 30, item 9: a token named <script> went into the table's markup as a tag."""
    from lnlib import tables

    table = tables.token_table([[1.0, 2.0], [3.0, 4.0]], ["<script>alert(1)</script>", "&lt;b&gt;"], caption="a<b>")
    html = table.to_html()
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&amp;lt;b&amp;gt;" in html and "a&lt;b&gt;" in html
    assert "<script>alert(1)</script>" in table.to_text()  # plain text shows the name as it is


@pytest.mark.parametrize("scale", [1e15, 1e50, 1e99])  # the explorer takes |x| ≤ 1e100
def test_vector_explorer_table_never_prints_long_numbers(scale):
    """Issue 30, item 9: near 1e100 VectorExplorer's table wrote 100–200-digit numbers (labels.number's promise:
    never). Every cell stays short, and reads back as the value to 3 significant digits."""
    from lnlib import widgets

    explorer = widgets.VectorExplorer(text=", ".join(repr(v * scale) for v in (2.0, 4.0, 6.0, 8.0)))
    html = explorer.table.value
    cells = td_texts(html)
    assert cells and max(len(c) for c in cells) <= 12, cells
    x_row = [float(c) for c in cells[:4]]
    np.testing.assert_allclose(x_row, [2 * scale, 4 * scale, 6 * scale, 8 * scale], rtol=5e-3)


def test_a_live_table_shows_the_same_cells_without_a_style_sheet_of_its_own():
    """An explorer swaps its tables at every step: no <style> (the browser would read a new sheet and re-check the
    page's styles each time) and no ids; the same caption, headers and cells as the static table, the highlight
    inline, and the class whose sheet every explorer carries once."""
    from lnlib.explorers.base import OFFLINE_CSS

    grid = Grid.of([[1.0, -0.0004], [2.5, 3.0]], ["r1", "r2"], ["c1", "c2"], "name")
    table = Table(grid, caption="a & b", highlight=(["r2"], ["c1"]))
    static, live = table.to_html(), table.to_html(live=True)
    assert cell_texts(live) == cell_texts(static)
    blank = "&nbsp;"
    assert cell_texts(live) == [
        "a & b",
        blank,
        "c1",
        "c2",
        "name",
        blank,
        blank,
        "r1",
        "1.000",
        "0.000",
        "r2",
        "2.500",
        "3.000",
    ]
    assert "<style" not in live and " id=" not in live and f'class="{tables.LIVE_CLASS}"' in live
    shaded = re.findall(r'<td style="background-color: ([^;]+); color: ([^"]+)">([^<]*)</td>', live)
    assert shaded == [(tables.HIGHLIGHT_COLOR, tables.HIGHLIGHT_TEXT, "2.500")]
    for selector, _ in tables._CSS:
        assert f".{tables.LIVE_CLASS} {selector} {{" in OFFLINE_CSS
