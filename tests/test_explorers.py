"""Headless tests of the explorers' live figures (issue 16), their coalescing of fast drags, and their refusal of
constructor arguments a control would silently clamp (issue 11.7).

A live frame is checked against an independent reference: the same explorer state drawn from a brand-new figure
(`_live = None`), so an update that forgets an artist (a colour, a label, a title) shows up as a pixel difference.
"""

from __future__ import annotations

import asyncio
import io
import warnings

import numpy as np
import pytest
from PIL import Image

from lnlib import live, transformer, widgets

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
    explorer._live = None
    explorer.render()
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
    "axis-column": (lambda: widgets.AxisExplorer(), [(lambda e: e.mode, "column"), (lambda e: e.index, 2)]),
    "axis-all-row": (
        lambda: widgets.AxisExplorer(),
        [(lambda e: e.mode, "all"), (lambda e: e.mode, "row"), (lambda e: e.index, 0)],
    ),
    "epsilon": (lambda: widgets.EpsilonExplorer(), [(lambda e: e.eps, 1e-7), (lambda e: e.eps, 10**-5.75)]),
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
        ax = explorer._live.fig.axes[0]
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
    frames = explorer._live.frames
    control, value = moves[0]
    control(explorer).value = value
    assert explorer._live.frames == frames + 1
    if case != "depth":
        assert explorer._live._background is not None, "the moving artists are drawn over a kept background"


def test_going_back_to_a_value_reuses_its_frame():
    e = widgets.SoftmaxExplorer()
    first = e.plot.value
    e.scale.value = 10**0.5
    frames = e._live.frames
    e.scale.value = 1.0
    assert e._live.frames == frames and e.plot.value == first


def test_the_x_hat_panel_keeps_its_axis_so_the_bars_shrink():
    e = widgets.VectorExplorer("2, 4, 6, 8", eps=1e-8)
    panel = e._live.fig.axes[2]
    before = panel.get_ylim()
    e.eps.value = 1.0
    assert panel.get_ylim() == before
    heights = [bar.get_height() for bar in panel.patches]
    x = np.array([2.0, 4, 6, 8])
    np.testing.assert_allclose(heights, (x - 5) / np.sqrt(5 + 1.0), rtol=1e-12)  # σ² = 5, ε = 1
    assert [t.get_text() for t in panel.texts] == ["-1.225", "-0.408", "0.408", "1.225"]


# --- coalescing: a fast drag never builds a backlog ---------------------------------------------------------------


def drag(explorer, slider, values, pause: float = 0.0, window: float = 0.5) -> int:
    """Apply `values` the way the browser does (widget.set_state inside the kernel's event loop, one message per
    loop iteration), wait until the explorer is idle, and return how many renders ran.

    `window` stands for "the messages that queued up while the kernel was busy": every message of the burst
    arrives within it (a wide window keeps the test independent of this machine's speed)."""

    async def run():
        explorer.updates.delay = window
        before = explorer.updates.renders
        for v in values:
            slider.set_state({"value": v})
            await asyncio.sleep(pause)
        await asyncio.sleep(window + 0.2)
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
    assert renders == 1
    assert "另一句 × 19.5" in e.bn.value  # the final value is the one shown


def test_a_drag_of_a_figure_explorer_ends_on_its_last_value():
    e = widgets.ScaleShiftExplorer("2, 4, 6, 8")
    values = [round(10 ** (-1 + 0.05 * i), 12) for i in range(1, 30)]
    renders = drag(e, e.scale, values)
    assert renders == 1
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


def test_depth_explorer_prepares_the_neighbouring_depths_while_idle():
    """In a kernel (a running event loop), the depths next to the current one are computed and drawn in idle time,
    so the next slider step only sends a ready frame."""

    async def run():
        e = widgets.DepthExplorer(4, width=8)
        for _ in range(300):  # bounded wait: at most 30 s on a very busy machine
            if e._live.cached(5) is not None and e._live.cached(3) is not None:
                break
            await asyncio.sleep(0.1)
        frames = e._live.frames
        e.depth.value = 5
        return e, frames

    loop = asyncio.new_event_loop()
    try:
        e, frames = loop.run_until_complete(run())
    finally:
        loop.close()
    assert e._live.frames == frames, "depth 5 was drawn in advance"
    assert "第 5 层" in e.summary.value
    plain = widgets.DepthExplorer(4, width=8)  # no event loop: no prefetch, depth 5 drawn on demand
    plain.depth.value = 5
    assert_same_picture(e.plot.value, plain.plot.value)
