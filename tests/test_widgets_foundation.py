"""The explorers of notebooks 02 and 03, driven headlessly: set a control's value, read the rendered HTML."""

from __future__ import annotations

import re

import numpy as np
import pytest

from lnlib import widgets


def numbers(html: str) -> list[float]:
    return [float(v) for v in re.findall(r"<td [^>]*>(-?\d+\.\d+)</td>", html)]


def row(html: str, label: str) -> list[float]:
    """The numbers in the table row whose header is `label`."""
    match = re.search(r"<th [^>]*>" + re.escape(label) + r"</th>(.*?)</tr>", html, re.S)
    assert match, f"no row {label!r}"
    return numbers(match.group(1))


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
    assert row(e.table.value, "归一化 x̂") == [-1.342, -0.447, 0.447, 1.342]


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
    e.eps.value = 5.0 ** 0  # ε = 1: x̂ = ±3/√6, ±1/√6
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
    assert row(e.table.value, "归一化 x̂")[0] == round(-3 / np.sqrt(6), 3)  # last valid x, new ε
    e.text.value = "2, 4, 6"
    assert e.message.value == ""
