"""Every explorer of lnlib.widgets, driven headlessly.

Part 1: set a control's value as a learner would, read the rendered HTML (tables via tests/helpers.py) and compare
with numbers worked out by hand or by a direct computation. Part 2: the live figures (issue 16) — a moved frame equals
the same state drawn from a brand-new figure —, the coalescing of fast drags, and the refusal of constructor arguments
a control would silently clamp (issue 11.7). The real-browser run of the same explorers is tests/browser/; text-box
parsing is tests/test_parse_vector.py.
"""

from __future__ import annotations

import asyncio
import io
import math
import re
import warnings

import ipywidgets
import numpy as np
import pytest
from helpers import numbers, row_numbers, td_texts, widgets_sent
from PIL import Image

from lnlib import live, plots, transformer, widgets
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
    lo, hi = ex.picture.handle.ylim(ex.values)
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


# --- live figures, coalescing, constructor arguments (issue 16, 11.7) ----------------------------------------

EXPLORERS = [
    widgets.VectorExplorer,
    widgets.AxisExplorer,
    widgets.EpsilonExplorer,
    widgets.ScaleShiftExplorer,
    widgets.GammaBetaExplorer,
    widgets.VarianceExplorer,
    widgets.BatchExplorer,
    widgets.DepthExplorer,
    widgets.SoftmaxExplorer,
]


def test_every_explorer_class_is_listed_here():
    """A new explorer must be added to EXPLORERS (and so to the frame tests below)."""
    found = {
        cls
        for cls in vars(widgets).values()
        if isinstance(cls, type) and issubclass(cls, widgets.Explorer) and "__init__" in cls.__dict__
    }
    assert found == set(EXPLORERS)


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def fresh_frame(explorer) -> bytes:
    """The explorer's current state drawn from scratch: a new figure, a new layout, no cache."""
    explorer.start_over()
    return explorer.plot.value


def assert_same_picture(moved: bytes, fresh: bytes) -> None:
    a, b = pixels(moved), pixels(fresh)
    assert a.shape == b.shape
    differs = np.any(np.abs(a - b) > 40, axis=-1)
    assert differs.mean() < 0.002, f"{differs.sum()} of {differs.size} pixels differ"


# (explorer factory, moves: list of (control getter, value))
MOVES = {
    "vector-eps": (lambda: widgets.VectorExplorer("2, 4, 6, 8"), [(lambda e: e.eps, 1e-1), (lambda e: e.eps, 1.0)]),
    "vector-text": (
        lambda: widgets.VectorExplorer("2, 4, 6, 8"),
        [(lambda e: e.eps, 1e-2), (lambda e: e.text, "1, -5, 30"), (lambda e: e.eps, 1e-1)],
    ),
    "vector-same-length": (
        lambda: widgets.VectorExplorer("2, 4, 6, 8"),
        [(lambda e: e.text, "20, 40, 60, 80"), (lambda e: e.eps, 1e-2), (lambda e: e.text, "1, -5, 30, 7")],
    ),
    "vector-wider-labels": (
        lambda: widgets.VectorExplorer("2, 4, 6, 8"),
        [(lambda e: e.eps, 1e-2), (lambda e: e.text, "1000, 2000, 3000, 4000")],
    ),
    "scale-shift-same-length": (
        lambda: widgets.ScaleShiftExplorer("2, 4, 6, 8"),
        [(lambda e: e.scale, 10**0.5), (lambda e: e.text, "1, 2, 3, 9"), (lambda e: e.shift, 7.0)],
    ),
    "axis-column": (lambda: widgets.AxisExplorer(), [(lambda e: e.mode, "column"), (lambda e: e.index, 2)]),
    "axis-all-row": (
        lambda: widgets.AxisExplorer(),
        [(lambda e: e.mode, "all"), (lambda e: e.mode, "row"), (lambda e: e.index, 0)],
    ),
    "epsilon": (lambda: widgets.EpsilonExplorer(), [(lambda e: e.eps, 1e-7), (lambda e: e.eps, 10**-5.75)]),
    "epsilon-same-length": (  # σ² off the ε axis (its guide hidden), then on it again, in the kept figure
        lambda: widgets.EpsilonExplorer(),
        [(lambda e: e.text, "20, 40, 60, 80"), (lambda e: e.eps, 1e-3), (lambda e: e.text, "3, 3.01, 2.99, 3")],
    ),
    "epsilon-guide-hidden": (
        lambda: widgets.EpsilonExplorer(),
        [(lambda e: e.eps, 1e-3), (lambda e: e.text, "1, 2, 3, 90")],
    ),
    "scale-shift": (
        lambda: widgets.ScaleShiftExplorer("2, 4, 6, 8"),
        [(lambda e: e.scale, 10**0.5), (lambda e: e.shift, -20.0), (lambda e: e.scale, 0.1)],
    ),
    "gamma-beta": (
        lambda: widgets.GammaBetaExplorer(),
        [(lambda e: e.gammas[0], -2.5), (lambda e: e.betas[3], 3.0), (lambda e: e.gammas[2], 0.0)],
    ),
    "depth": (lambda: widgets.DepthExplorer(3, width=8), [(lambda e: e.depth, 5), (lambda e: e.depth, 2)]),
    "softmax": (lambda: widgets.SoftmaxExplorer(), [(lambda e: e.scale, 10**1.5), (lambda e: e.scale, 0.01)]),
}


@pytest.mark.parametrize("case", sorted(MOVES))
def test_a_moved_figure_is_the_figure_drawn_from_scratch(case):
    make, moves = MOVES[case]
    explorer = make()
    for control, value in moves:
        control(explorer).value = value
    if case == "depth":  # new axis limits every frame: the frozen layout may sit a few pixels off a fresh one
        ax = explorer.picture.live.fig.axes[0]
        for line, form in zip(ax.lines, ("post", "pre"), strict=True):
            np.testing.assert_array_equal(line.get_xdata(), [1, 2])
            np.testing.assert_allclose(line.get_ydata(), transformer.ffn_gradient_norms(form, 2, 8), rtol=1e-12)
        return
    assert_same_picture(explorer.plot.value, fresh_frame(explorer))


@pytest.mark.parametrize("case", sorted(MOVES))
def test_moving_draws_only_the_moving_artists(case):
    """After the first frame, a slider move redraws the background at most once (blitting), except where the
    axes themselves change (depth: new ticks; a new vector typed in: a new figure)."""
    make, moves = MOVES[case]
    explorer = make()
    frames = explorer.picture.live.frames
    control, value = moves[0]
    control(explorer).value = value
    if control(explorer) is getattr(explorer, "text", None):
        return  # a new vector: new axes, drawn in full (and laid out again when its tick labels grew)
    assert explorer.picture.live.frames == frames + 1
    if case != "depth":
        assert explorer.picture.live.has_background, "the moving artists are drawn over a kept background"


def test_going_back_to_a_value_reuses_its_frame():
    e = widgets.SoftmaxExplorer()
    first = e.plot.value
    e.scale.value = 10**0.5
    frames = e.picture.live.frames
    e.scale.value = 1.0
    assert e.picture.live.frames == frames and e.plot.value == first


def test_the_x_hat_panel_keeps_its_axis_so_the_bars_shrink():
    e = widgets.VectorExplorer("2, 4, 6, 8", eps=1e-8)
    panel = e.picture.live.fig.axes[2]
    before = panel.get_ylim()
    e.eps.value = 1.0
    assert panel.get_ylim() == before
    heights = [bar.get_height() for bar in panel.patches]
    x = np.array([2.0, 4, 6, 8])
    np.testing.assert_allclose(heights, (x - 5) / np.sqrt(5 + 1.0), rtol=1e-12)  # σ² = 5, ε = 1
    assert [t.get_text() for t in panel.texts] == ["-1.225", "-0.408", "0.408", "1.225"]


def test_one_slider_redraws_only_the_cells_it_changes():
    """γ of one dimension changes one column of the output: the next frame redraws that column's numbers and the
    image under them, not the other cells; the frame still equals the same state drawn from scratch."""
    e = widgets.GammaBetaExplorer()
    e.gammas[1].value = 2.0  # the background is drawn now; the next move is a partial redraw
    e.gammas[2].value = -1.5
    live_fig = e.picture.live
    cells = len(live_fig.fig.axes[0].texts)
    assert 0 < live_fig.redrawn < cells, f"{live_fig.redrawn} artists redrawn for one changed column of {cells}"
    assert_same_picture(e.plot.value, fresh_frame(e))


def test_a_long_way_to_a_depth_leaves_no_trace_of_the_depths_passed():
    """DepthExplorer redraws its y axis, lines and legend over a kept background: reaching depth 9 through
    12, 3, 20 and 2 gives the same pixels as going to 9 at once (old ticks, grid lines or points would differ)."""
    direct, detour = widgets.DepthExplorer(6, width=8), widgets.DepthExplorer(6, width=8)
    direct.depth.value = 9
    for depth in (12, 3, 20, 2, 9):
        detour.depth.value = depth
    assert detour.picture.live.frames == direct.picture.live.frames + 4
    np.testing.assert_array_equal(pixels(detour.plot.value), pixels(direct.plot.value))


def test_a_borrowed_layout_that_cuts_a_label_off_is_computed_again():
    """LiveFigure.use_positions places the axes as another figure's layout did; when the new tick labels or axis
    label do not fit there, fits() says so and relayout() runs the layout engine again."""
    from matplotlib.figure import Figure

    def figure(values, ylabel):
        fig = Figure(figsize=(6, 3), layout="constrained")
        left, right = fig.subplots(1, 2)
        for ax in (left, right):
            ax.plot(values)
            ax.set_ylabel(ylabel)
        return live.LiveFigure(fig)

    narrow = figure([1, 2, 3], "y")
    narrow.png()
    assert narrow.fits()
    wide = figure([1e5, 2e5, 123456.7], "a much longer label for the y axis")
    assert wide.use_positions(narrow.positions())
    wide.png()
    assert not wide.fits()
    wide.relayout()
    wide.png()
    assert wide.fits()


def test_the_png_encoder_gives_the_frame_pixel_for_pixel():
    """encode_png against PIL's decoder: every pixel of an opaque frame survives, alpha is dropped."""
    rng = np.random.default_rng(1)
    frame = rng.integers(0, 256, (37, 53, 4), dtype=np.uint8)
    frame[..., 3] = 255
    frame[5:20, 10:40, :3] = 255  # flat areas, as in a figure
    decoded = Image.open(io.BytesIO(live.encode_png(frame)))
    assert decoded.mode == "RGB" and decoded.size == (53, 37)
    np.testing.assert_array_equal(np.asarray(decoded), frame[..., :3])
    view = frame[:, 3:50]  # a non-contiguous view encodes the same as its copy
    assert live.encode_png(view) == live.encode_png(np.ascontiguousarray(view))


# --- coalescing: a fast drag never builds a backlog ---------------------------------------------------------------


def drag(explorer, slider, values, pause: float = 0.0, window: float = 2.0) -> int:
    """Apply `values` the way the browser does (widget.set_state inside the kernel's event loop, one message per
    loop iteration), wait until the explorer is idle, and return how many renders ran.

    `window` stands for "the messages that queued up while the kernel was busy": every message of the burst
    arrives within it. It is both the coalescer's delay and its quiet time, and drawing ahead is held off meanwhile
    (it would run between the messages): under load (issue 31) a 0.5 s window with the default 0.1 s quiet time let
    a drawn-ahead picture split one burst into two, and the test saw 3 renders instead of 2."""

    async def run():
        explorer.updates.delay = explorer.updates.quiet = window
        explorer.PREFETCH_DELAY = 3600.0
        before = explorer.updates.renders
        for v in values:
            slider.set_state({"value": v})
            await asyncio.sleep(pause)
        for _ in range(600):  # until the coalesced render has run (at most a minute on a very busy machine)
            await asyncio.sleep(0.1)
            if not explorer.updates.pending:
                break
        return explorer.updates.renders - before

    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(run())
    finally:
        loop.close()


def test_a_fast_drag_renders_once_with_the_last_value():
    e = widgets.BatchExplorer(1.0)
    values = [0.5 * i for i in range(3, 40)]
    renders = drag(e, e.scale, values)
    assert renders == 2  # the first message at once (no added delay), the other 36 in one render
    assert "另一句 × 19.5" in e.bn.value  # the final value is the one shown


def test_a_drag_of_a_figure_explorer_ends_on_its_last_value():
    e = widgets.ScaleShiftExplorer("2, 4, 6, 8")
    values = [round(10 ** (-1 + 0.05 * i), 12) for i in range(1, 30)]
    renders = drag(e, e.scale, values)
    assert renders == 2
    assert e.scale.value == values[-1]
    assert "变换后 2.82·x + 0" in e.table.value  # a = 10^0.45
    assert_same_picture(e.plot.value, fresh_frame(e))


def test_slow_changes_each_render():
    """Changes further apart than a render each get their own render (no lost update)."""
    e = widgets.VarianceExplorer()
    renders = drag(e, e.exponent, [5, 6, 7], pause=0.3, window=0.01)
    assert renders == 3
    assert "x = 1e+07" in e.table.value or "10000000" in e.table.value


def test_changes_made_in_python_render_at_once():
    e = widgets.BatchExplorer(1.0)
    e.scale.value = 2.0
    assert "另一句 × 2" in e.bn.value


def test_coalescer_without_a_loop_renders_synchronously():
    calls = []
    c = live.Coalescer(lambda: calls.append(1))

    class Owner:
        _property_lock = {"value": 1}

    c.request({"owner": Owner(), "new": 1})  # from the browser, but no event loop is running
    assert calls == [1] and c.renders == 1


# --- constructor arguments: refused, never clamped (issue 11.7) -----------------------------------------------------


@pytest.mark.parametrize(
    ("make", "argument"),
    [
        (lambda: widgets.VectorExplorer(eps=0), "eps"),
        (lambda: widgets.VectorExplorer(eps=2.0), "eps"),
        (lambda: widgets.VectorExplorer(eps=float("nan")), "eps"),
        (lambda: widgets.EpsilonExplorer(eps=1e-9), "eps"),
        (lambda: widgets.ScaleShiftExplorer(shift=1e6), "shift"),
        (lambda: widgets.ScaleShiftExplorer(scale=0.0), "scale"),
        (lambda: widgets.ScaleShiftExplorer(scale=100.0), "scale"),
        (lambda: widgets.ScaleShiftExplorer(eps=-1.0), "eps"),
        (lambda: widgets.GammaBetaExplorer(eps=-1.0), "eps"),
        (lambda: widgets.GammaBetaExplorer(tokens=("a", "b")), "tokens"),
        (lambda: widgets.AxisExplorer(matrix=[1.0, 2.0]), "matrix"),
        (lambda: widgets.AxisExplorer(matrix=[[1.0, np.inf]], tokens=("a",)), "matrix"),
        (lambda: widgets.VarianceExplorer(exponent=9), "exponent"),
        (lambda: widgets.VarianceExplorer(dtype="float128"), "dtype"),
        (lambda: widgets.BatchExplorer(scale=-1.0), "scale"),
        (lambda: widgets.BatchExplorer(scale=21.0), "scale"),
        (lambda: widgets.DepthExplorer(depth=1), "depth"),
        (lambda: widgets.DepthExplorer(depth=25), "depth"),
        (lambda: widgets.DepthExplorer(width=0), "width"),
        (lambda: widgets.SoftmaxExplorer(scale=100.0), "scale"),
        (lambda: widgets.VectorExplorer("a, b"), "text"),
        (lambda: widgets.VectorExplorer("1e200"), "text"),
    ],
)
def test_out_of_range_arguments_are_refused_with_their_name(make, argument):
    with pytest.raises(ValueError, match=rf"^{argument}:"):
        make()


@pytest.mark.parametrize(
    ("make", "argument"),
    [
        (lambda: widgets.VectorExplorer(eps="1e-5"), "eps"),
        (lambda: widgets.VectorExplorer(text=[2, 4]), "text"),
        (lambda: widgets.DepthExplorer(depth=6.0), "depth"),
        (lambda: widgets.VarianceExplorer(exponent=True), "exponent"),
    ],
)
def test_wrong_types_are_refused_with_their_name(make, argument):
    with pytest.raises(TypeError, match=rf"^{argument}:"):
        make()


@pytest.mark.parametrize(
    ("make", "control", "given"),
    [
        (lambda: widgets.VectorExplorer(eps=1e-8), "eps", 1e-8),
        (lambda: widgets.VectorExplorer(eps=1), "eps", 1.0),
        (lambda: widgets.EpsilonExplorer(eps=1.0), "eps", 1.0),
        (lambda: widgets.ScaleShiftExplorer(scale=0.1), "scale", 0.1),
        (lambda: widgets.ScaleShiftExplorer(scale=10), "scale", 10.0),
        (lambda: widgets.ScaleShiftExplorer(shift=-50), "shift", -50.0),
        (lambda: widgets.BatchExplorer(0), "scale", 0.0),
        (lambda: widgets.BatchExplorer(20), "scale", 20.0),
        (lambda: widgets.SoftmaxExplorer(0.01), "scale", 0.01),
        (lambda: widgets.VarianceExplorer(8, "float16"), "exponent", 8),
        (lambda: widgets.DepthExplorer(2, width=4), "depth", 2),
    ],
)
def test_the_ends_of_every_range_are_accepted_as_given(make, control, given):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = make()
    assert getattr(e, control).value == pytest.approx(given, rel=1e-12)


def frames_drawn(e) -> int:
    """Frames an explorer has drawn, over its current figure and the ones it keeps for other row lengths."""
    return e.picture.frames


def in_a_loop(run):
    """`await run()` inside a running event loop, as in a kernel, where idle time draws ahead."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(run())
    finally:
        loop.close()


async def settle(e, ready) -> None:
    """Wait until `ready()` (at most 3 minutes: a bound for a machine with every core busy, issue 31, not a speed
    goal), then until a call of `prefetch` still pending finds nothing left to draw."""
    for _ in range(1800):
        if ready():
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(3 * e.PREFETCH_DELAY)


def all_neighbours_drawn(e) -> bool:
    return all(e.is_ready(s) for s in e.neighbours())


def drawn_ahead(make, ready, act):
    """Build an explorer inside a running event loop, wait until `ready(explorer)`, then `act(explorer)`: returns
    the explorer and how many frames it had drawn just before the act."""

    async def run():
        e = make()
        await settle(e, lambda: ready(e))
        e.PREFETCH_DELAY = 3600.0  # the act's own drawing ahead is not what is measured: keep it out of the count
        frames = frames_drawn(e)
        act(e)
        return e, frames

    return in_a_loop(run)


def test_depth_explorer_prepares_the_neighbouring_depths_while_idle():
    """In a kernel (a running event loop), the depths next to the current one are computed and drawn in idle time,
    so the next slider step only sends a ready frame."""

    e, frames = drawn_ahead(
        lambda: widgets.DepthExplorer(4, width=8),
        ready=lambda e: e.is_ready((5,)) and e.is_ready((3,)),
        act=lambda e: setattr(e.depth, "value", 5),
    )
    assert frames_drawn(e) == frames, "depth 5 was drawn in advance"
    assert "第 5 层" in e.summary.value
    plain = widgets.DepthExplorer(4, width=8)  # no event loop: no prefetch, depth 5 drawn on demand
    plain.depth.value = 5
    assert_same_picture(e.plot.value, plain.plot.value)


PREFETCHED = {  # explorer, a slider, two values one step apart (computed here, as the browser computes them)
    "vector": (lambda: widgets.VectorExplorer(), "eps", 10**-4.5, 10**-4),
    "epsilon": (lambda: widgets.EpsilonExplorer(), "eps", 10**-4.75, 10**-4.5),
    "scale-shift": (lambda: widgets.ScaleShiftExplorer(), "shift", 1.0, 2.0),
    "gamma-beta": (lambda: widgets.GammaBetaExplorer(), "betas", 0.1, 0.2),
    "softmax": (lambda: widgets.SoftmaxExplorer(), "scale", 10**0.05, 10**0.1),
}


@pytest.mark.parametrize("case", sorted(PREFETCHED))
def test_the_next_slider_step_is_ready_before_the_learner_takes_it(case):
    """In a kernel (a running event loop) the states one step up and down on the slider moved last are computed in
    idle time: the next step then draws nothing, and shows exactly what an explorer moved there directly shows."""
    make, name, first, second = PREFETCHED[case]

    def slider(e):
        control = getattr(e, name)
        return control[-1] if isinstance(control, list) else control

    def moved_once():
        e = make()
        slider(e).value = first
        return e

    e, frames = drawn_ahead(
        moved_once,
        ready=all_neighbours_drawn,
        act=lambda e: setattr(slider(e), "value", second),
    )
    assert frames_drawn(e) == frames, "the step was drawn in advance"
    plain = make()  # no event loop: nothing drawn ahead, the step drawn on demand
    slider(plain).value = second
    outputs = [w for w in e.box.children if isinstance(w, ipywidgets.HTML)]
    assert [w.value for w in outputs] == [w.value for w in plain.box.children if isinstance(w, ipywidgets.HTML)]
    assert any("<table" in w.value for w in outputs)
    assert_same_picture(e.plot.value, fresh_frame(plain))


def test_every_axis_choice_is_ready_before_the_learner_clicks():
    """AxisExplorer has a handful of choices (row, column, whole table × which one): all are drawn in idle time."""

    def click(e):
        e.mode.value = "column"
        e.index.value = 2

    e, frames = drawn_ahead(widgets.AxisExplorer, ready=all_neighbours_drawn, act=click)
    assert len(e.neighbours()) == 3 + 4 + 1
    assert frames_drawn(e) == frames, "the choice was drawn in advance"
    plain = widgets.AxisExplorer()
    plain.mode.value = "column"
    plain.index.value = 2
    assert e.summary.value == plain.summary.value
    assert_same_picture(e.plot.value, fresh_frame(plain))


@pytest.mark.parametrize(
    "rows", [("20, 40, 60, 80", "3, 3.01, 2.99, 3"), ("3, 3.01, 2.99, 3", "1, 2, 3, 90", "5, 5.001, 5, 5")]
)
def test_epsilon_explorer_moves_its_curve_and_guide_to_a_new_row(rows):
    """A new row of the same length reuses the figure: curve σ²/(σ² + ε), marker and the ε = σ² guide (hidden
    when σ² lies off the ε axis) are those of the new row (closed form, not the explorer's own numbers)."""
    explorer = widgets.EpsilonExplorer()
    figure = explorer.picture.live.fig
    for text in rows:
        explorer.text.value = text
        assert explorer.picture.live.fig is figure
        x = np.array([float(v) for v in text.split(",")])
        var = np.mean((x - x.mean()) ** 2)
        right = figure.axes[1]
        curve = right.lines[0]
        np.testing.assert_allclose(curve.get_ydata(), var / (var + curve.get_xdata()), rtol=1e-9)
        guide = [line for line in right.lines if line.get_linestyle() == ":"]
        on_axis = 1e-8 <= var <= 1.0
        assert [line.get_visible() for line in guide] == [on_axis]
        assert [t.get_visible() for t in right.texts] == [on_axis]
        if on_axis:
            np.testing.assert_allclose(guide[0].get_xdata(), [var, var], rtol=1e-9)
            np.testing.assert_allclose(right.texts[0].xy[0], var, rtol=1e-9)
        limit = 1.25 * np.sqrt(x.size - 1)  # every row of 4 fits: Samuelson's bound √(d − 1)
        np.testing.assert_allclose(figure.axes[0].get_ylim(), (-limit, limit))
        assert np.max(np.abs((x - x.mean()) / np.sqrt(var))) <= np.sqrt(x.size - 1) + 1e-12


def count_new_figures(monkeypatch) -> list:
    """Every figure lnlib.plots builds from now on (all builders start from `plots.new_figure`)."""
    built, original = [], plots.new_figure
    monkeypatch.setattr(plots, "new_figure", lambda *a, **k: built.append(a) or original(*a, **k))
    return built


@pytest.mark.parametrize(
    "make",
    [
        lambda: widgets.VectorExplorer("2, 4, 6, 8"),
        lambda: widgets.EpsilonExplorer("3, 3.002, 2.998, 3"),
        lambda: widgets.ScaleShiftExplorer("2, 4, 6, 8"),
    ],
)
def test_a_typed_row_one_shorter_or_longer_finds_its_figure_drawn_ahead(make, monkeypatch):
    """Idle time builds the figures for a row one number shorter and one longer: typing such a row then moves a
    kept figure (no new one), and shows what an explorer made for that row from scratch shows."""
    e, _ = drawn_ahead(
        make,
        ready=lambda e: e.picture.figures >= 3 and all_neighbours_drawn(e),
        act=lambda e: None,
    )
    drawn = count_new_figures(monkeypatch)
    for text in ("1, 5, 2", "1, 5, 2, 7, 9", "3, 1, 4, 1"):  # 3 and 5 numbers: drawn ahead; 4: the first figure
        e.text.value = text
        assert not drawn, f"{text}: a new figure was built"
        assert_same_picture(e.plot.value, fresh_frame(make_from(make, text)))
        drawn.clear()  # the fresh explorer's own figures


@pytest.mark.parametrize("mode", ["column", "all", "row"])
def test_axis_explorer_sends_the_new_picture_and_table_before_the_new_buttons(mode, monkeypatch):
    """A new 统计方向: the picture and the table first, then the 哪一个 buttons' options, value and state in one
    message; what shows is what an explorer started in that mode shows."""
    e = widgets.AxisExplorer()
    if mode == "row":
        e.mode.value = "column"
    sent = widgets_sent(monkeypatch)
    e.mode.value = mode
    states = [w for w in sent if w is not e.mode]
    assert states[:2] == [e.plot, e.summary] and states.count(e.index) == 1
    fresh = widgets.AxisExplorer()
    fresh.mode.value = mode
    assert (e.summary.value, e.index.options, e.index.value, e.index.disabled) == (
        fresh.summary.value,
        fresh.index.options,
        fresh.index.value,
        fresh.index.disabled,
    )
    assert_same_picture(e.plot.value, fresh_frame(fresh))


def type_in_browser(e, text: str) -> None:
    """Key by key, as the browser's text box sends it: each prefix arrives under ipywidgets' property lock."""
    for i in range(1, len(text) + 1):
        e.text.set_state({"value": text[:i]})


def press_enter(e) -> None:
    e.text._handle_custom_msg({"event": "submit"}, [])  # what the browser's Text sends on Enter


TYPED = [
    lambda: widgets.VectorExplorer("2, 4, 6, 8"),
    lambda: widgets.EpsilonExplorer("3, 3.002, 2.998, 3"),
    lambda: widgets.ScaleShiftExplorer("2, 4, 6, 8"),
]


@pytest.mark.parametrize("make", TYPED)
def test_keys_typed_in_the_browser_apply_only_on_enter(make):
    e = make()
    shown = [(w, w.value) for w in (e.plot, e.table, e.message)]
    type_in_browser(e, "7, 1, 8, 2")
    assert [(w, w.value) for w, _ in shown] == shown  # a draft changes nothing the learner sees
    press_enter(e)
    assert_same_picture(e.plot.value, fresh_frame(make_from(make, "7, 1, 8, 2")))
    assert e.table.value == make_from(make, "7, 1, 8, 2").table.value


@pytest.mark.parametrize("make", TYPED)
def test_bad_text_typed_in_the_browser_shows_its_message_on_enter(make):
    e = make()
    table, plot = e.table.value, e.plot.value
    type_in_browser(e, "1, 2,, 3")
    assert e.message.value == ""  # not while typing: "1, 2," is on its way to a vector
    press_enter(e)
    assert "⚠" in e.message.value and "1, 2,, 3" not in e.table.value
    assert (e.table.value, e.plot.value) == (table, plot)
    type_in_browser(e, "1, 2, 3")
    press_enter(e)
    assert e.message.value == "" and "1.000" in e.table.value


@pytest.mark.parametrize("make", TYPED)
def test_moving_a_slider_after_typing_without_enter_applies_the_typed_vector(make):
    """As a text box that applies on leaving it: the learner who typed and then took a slider means the new row."""
    e, reference = make(), make()
    slider = next(c for c in e.controls if isinstance(c, ipywidgets.FloatLogSlider | ipywidgets.FloatSlider))
    top = 10.0**slider.max if isinstance(slider, ipywidgets.FloatLogSlider) else slider.max
    assert slider.value != top
    type_in_browser(e, "7, 1, 8, 2")
    slider.value = top
    reference.text.value = "7, 1, 8, 2"
    next(c for c in reference.controls if c.description == slider.description).value = top
    assert e.table.value == reference.table.value
    assert_same_picture(e.plot.value, fresh_frame(reference))


@pytest.mark.parametrize("make", TYPED)
def test_a_typed_vector_is_drawn_while_the_learner_types(make):
    """In a kernel, once the keys pause, the typed vector is drawn ahead (here a row one number longer, whose figure
    idle time has built): Enter then draws nothing new, and shows what an explorer made for it from scratch shows."""

    async def run():
        e = make()
        await settle(e, lambda: all_neighbours_drawn(e))
        type_in_browser(e, "9, 1, 3, 7, 5")
        await settle(e, lambda: e.is_ready(e.draft))
        e.PREFETCH_DELAY = 3600.0  # what Enter itself draws ahead is not what is counted
        frames = frames_drawn(e)
        press_enter(e)
        return e, frames, frames_drawn(e)

    e, before, after = in_a_loop(run)
    assert after == before
    assert_same_picture(e.plot.value, fresh_frame(make_from(make, "9, 1, 3, 7, 5")))
    assert e.table.value == make_from(make, "9, 1, 3, 7, 5").table.value


def test_a_draft_of_a_new_length_builds_no_figure(monkeypatch):
    """Drafts such as "2", "2, 7" … on the way to a vector would each build a figure for their length (and push the
    kept ones out); only lengths that have a figure are drawn ahead."""

    async def run():
        e = widgets.VectorExplorer("2, 4, 6, 8")
        await settle(e, lambda: all_neighbours_drawn(e))
        built = count_new_figures(monkeypatch)
        for text in ("2", "2, 7", "2, 7, 1, 8, 2, 8"):  # 1, 2 and 6 numbers: no kept figure
            type_in_browser(e, text)
            await asyncio.sleep(5 * e.PREFETCH_DELAY)
        return e, built

    e, built = in_a_loop(run)
    assert built == [] and not e.is_ready(e.draft)


def make_from(make, text):
    explorer = make()
    explorer.text.value = text
    return explorer


def test_each_row_length_keeps_its_own_figure():
    e = widgets.VectorExplorer("2, 4, 6, 8")
    four = e.picture.live
    e.text.value = "1, 2, 3"
    three = e.picture.live
    assert three is not four
    e.text.value = "5, 1, 2, 7"
    assert e.picture.live is four  # back to four numbers: the kept figure, moved
    e.text.value = "9, 8, 7"
    assert e.picture.live is three


@pytest.mark.parametrize(
    ("make", "texts"),
    [
        (lambda: widgets.VectorExplorer(), ("20, 40, 60, 80", "-1000, 5, 3000, 2", "0.001, 0.002, 0.004, 0.003")),
        (lambda: widgets.ScaleShiftExplorer(), ("1, 2, 3, 40", "-300, 2, 5, 9")),
        (lambda: widgets.DepthExplorer(3, width=8), ()),
    ],
)
def test_the_band_redrawn_for_a_y_axis_holds_everything_it_draws(make, texts):
    """An animated y axis is redrawn inside a band (its axes out to the left neighbour, with room above and
    below) instead of measuring every tick label: the band must contain what matplotlib says the axis covers."""
    e = make()
    for text in (None, *texts):
        if text is not None:
            e.text.value = text
        renderer = e.picture.live.fig.canvas.get_renderer()
        axes = [a for a in e.picture.handle.moving if isinstance(a, live.MplAxis)]
        assert axes, "the explorer animates a y axis"
        for axis in axes:
            band, drawn = live._extent(axis, renderer), axis.get_tightbbox(renderer)
            assert band.x0 <= drawn.x0 and band.y0 <= drawn.y0 and drawn.x1 <= band.x1 and drawn.y1 <= band.y1


def test_softmax_explorer_takes_a_matrix_at_both_ends_of_float64():
    """Issue 30, item 6: [[1e300, −1e300], [1e-300, 2e-300]] warned, then raised "z: expected finite logits"."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        explorer = widgets.SoftmaxExplorer(matrix=[[1e300, -1e300], [1e-300, 2e-300]], tokens=["我", "吃"])
    assert "1.000" in explorer.summary.value and "nan" not in explorer.summary.value.lower()
