"""The handles of the figures explorers move (`plots.StageFigure` …): a figure built for one result and moved to
another with `update` is the figure built for that other result from scratch, pixel for pixel up to antialiasing;
`update` returns what it changed and refuses data of another shape by name."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import lnlib
from lnlib import groups, invariance, pitfalls, plots, training_plots, transformer
from lnlib.data import TOKEN_MATRIX, TOKENS
from lnlib.training import Run

EXPLORERS = Path(lnlib.__file__).parent / "explorers"


def drawn(fig) -> np.ndarray:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=60)
    return np.asarray(Image.open(buffer).convert("RGB"), dtype=np.int16)


def assert_same_picture(moved, fresh) -> None:
    a, b = drawn(moved), drawn(fresh)
    assert a.shape == b.shape
    differs = np.any(np.abs(a - b) > 40, axis=-1)
    assert differs.mean() < 0.002, f"{differs.sum()} of {differs.size} pixels differ"


def steps(text: str, eps: float = 1e-5):
    return lnlib.layer_norm_steps([float(v) for v in text.split(",")], eps=eps)


def effect(text: str, eps: float = 1e-5):
    return pitfalls.epsilon_effect([float(v) for v in text.split(",")], eps)


def shift(text: str, a: float, b: float):
    return invariance.scale_shift([float(v) for v in text.split(",")], a, b, 1e-5)


def attention(scale: float):
    w = transformer.attention_at_scale(lnlib.layer_norm(TOKEN_MATRIX, eps=1e-5), scale)
    return w, transformer.entropy(w)


def scale_shift_figure(result):
    return plots.ScaleShiftFigure(result, scales=(0.1, 10.0), shifts=(-50, 50))


def run(steps: int, rate: float, blowup: int = 0) -> Run:
    """A training record with the shape of lnlib.training's (nothing trained: the figure only draws it); with
    `blowup`, the loss explodes and the run stops at that step."""
    t = np.arange(blowup or steps, dtype=np.float64)
    losses = 1.1 * np.exp(-t / rate) + 0.02 * np.cos(t)
    if blowup:
        losses[-1] = 1e4
    return Run(losses, 2 + np.sin(t / 7) + t / rate, bool(blowup), np.full(t.size, 1e-2), 0.9)


# a grid as training.sweep gives it: three variants, two learning rates (at the larger one two runs blow up), two
# warm-ups; every run that does not diverge has 60 steps
GRID = {
    (v, lr, w): run(60, rate * (1 + w / 10), blowup=3 if lr > 0.1 and v != "layer" else 0)
    for v, rate in (("layer", 20), ("batch", 15), ("none", 100))
    for lr in (1e-2, 0.3)
    for w in (0, 5)
}


# handle factory, first result, later results (each a tuple of update's arguments)
CASES = {
    "stage-eps": (plots.StageFigure, (steps("2, 4, 6, 8"),), [(steps("2, 4, 6, 8", 1.0),)]),
    "stage-row": (plots.StageFigure, (steps("2, 4, 6, 8"),), [(steps("1, -5, 30, 7", 1e-2),)]),
    "epsilon-row": (
        plots.EpsilonFigure,
        (effect("3, 3.002, 2.998, 3"),),
        [(effect("20, 40, 60, 80", 1e-3),), (effect("3, 3.01, 2.99, 3", 1e-3),)],
    ),
    "epsilon-guide-hidden": (plots.EpsilonFigure, (effect("3, 3.002, 2.998, 3"),), [(effect("1, 2, 3, 90"),)]),
    "scale-shift": (scale_shift_figure, (shift("2, 4, 6, 8", 1, 0),), [(shift("1, 2, 3, 9", 3.0, 7.0),)]),
    "value-heatmap": (
        lambda y: plots.ValueHeatmapFigure(y, TOKENS, limit=7.5),
        (lnlib.layer_norm(TOKEN_MATRIX),),
        [(lnlib.layer_norm(TOKEN_MATRIX, gamma=[-2.5, 1, 0, 1], beta=[0, 0, 0, 3]),)],
    ),
    "highlight": (
        lambda sel: plots.HighlightFigure(sel, TOKENS),
        (groups.selection(TOKEN_MATRIX, "row", 2),),
        [(groups.selection(TOKEN_MATRIX, "column", 1),), (groups.selection(TOKEN_MATRIX, "all", 0),)],
    ),
    "attention": (
        lambda w, h: plots.AttentionFigure(w, TOKENS, entropy=h),
        attention(1.0),
        [attention(10**1.5), attention(0.01)],
    ),
    "training-variants": (
        training_plots.TrainingFigure,
        (GRID, ("layer", "batch", "none"), 1e-2, 0),
        [(GRID, ("batch",), 1e-2, 0), (GRID, ("layer", "none"), 1e-2, 5)],
    ),
    "training-diverged": (  # the × markers come and go, the y axes grow by decades, the x axis stays
        training_plots.TrainingFigure,
        (GRID, ("layer", "batch", "none"), 1e-2, 0),
        [(GRID, ("batch", "none"), 0.3, 0), (GRID, ("layer", "batch"), 0.3, 5), (GRID, ("none",), 1e-2, 5)],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_moved_figure_is_the_figure_built_for_its_result(case):
    make, first, later = CASES[case]
    handle = make(*first)
    for result in later:
        if case.startswith("training"):  # as the explorer shows it before it moves it (limits computed, none pending)
            drawn(handle.fig)
        changed = handle.update(*result)
        assert changed, "update names what it changed"
        assert all(a in handle.moving or a in handle.fig.axes for a in changed if hasattr(a, "figure"))
    assert_same_picture(handle.fig, make(*later[-1]).fig)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_moved_figure_says_in_its_alt_text_what_it_now_shows(case):
    """The explorers hand `alt_text(handle.fig)` to the learner's browser with each frame: after `update` it is the
    alt text of the figure built for the new result from scratch, not the first one's."""
    make, first, later = CASES[case]
    handle = make(*first)
    opening = plots.alt_text(handle.fig)
    for result in later:
        handle.update(*result)
        fresh = plots.alt_text(make(*result).fig)
        assert plots.alt_text(handle.fig) == fresh
        assert fresh != opening


LABELS = {"max_depth": 24, "xlabel": "层", "ylabel": "g"}


def test_depth_figure_moves_its_lines_to_the_closed_form_norms():
    """The x axis is fixed to every depth (the lines grow to the right), so only the lines and the y axis are
    compared: the values are transformer.ffn_gradient_norms at the new depth."""
    series = {f: transformer.ffn_gradient_norms(f, 3, 8) for f in ("post", "pre")}
    handle = plots.DepthFigure(series, **LABELS)
    assert handle.fig.axes[0].get_xlim() == (0.5, 24.5)
    new = {f: transformer.ffn_gradient_norms(f, 5, 8) for f in ("post", "pre")}
    handle.update(new)
    lines = handle.fig.axes[0].get_lines()
    for line, form in zip(lines, ("post", "pre"), strict=True):
        np.testing.assert_array_equal(line.get_xdata(), [1, 2, 3, 4, 5])
        np.testing.assert_array_equal(line.get_ydata(), new[form])
    low, high = handle.fig.axes[0].get_ylim()
    assert low == 0 and high >= max(float(np.max(v)) for v in new.values())
    fresh = plots.DepthFigure(new, **LABELS)
    assert (
        plots.alt_text(handle.fig)
        == plots.alt_text(fresh.fig)
        != plots.alt_text(plots.DepthFigure(series, **LABELS).fig)
    )


def test_a_new_epsilon_moves_only_the_x_hat_panel_of_the_stage_figure():
    """The same row at another ε: the x and x − μ panels (and their axes) are not touched."""
    handle = plots.StageFigure(steps("2, 4, 6, 8"))
    x_ax, centered, xhat = handle.fig.axes
    changed = handle.update(steps("2, 4, 6, 8", 1.0))
    assert x_ax not in changed and centered not in changed and xhat in changed
    # σ² = 5, ε = 1: x̂ = (x − 5)/√6, against the closed form
    np.testing.assert_allclose([b.get_height() for b in xhat.patches], (np.array([2, 4, 6, 8]) - 5) / np.sqrt(6))


def test_the_epsilon_guide_follows_the_new_rows_variance():
    handle = plots.EpsilonFigure(effect("3, 3.002, 2.998, 3"))
    handle.update(effect("20, 40, 60, 80", 1e-3))  # σ² = 125: off the ε axis (1e-8 … 1), the guide hides
    guides = [line for line in handle.fig.axes[1].lines if line.get_linestyle() == ":"]
    assert [g.get_visible() for g in guides] == [False]
    handle.update(effect("3, 3.01, 2.99, 3", 1e-3))  # σ² = 0.01²/2 = 5e-5: on the axis, at σ²
    assert guides[0].get_visible() and guides[0].get_xdata()[0] == pytest.approx(5e-5, rel=1e-9)


def test_the_scale_shift_axis_fits_every_slider_position():
    handle = scale_shift_figure(shift("2, 4, 6, 8", 1, 0))
    low, high = handle.ylim(np.array([2.0, 4, 6, 8]))
    assert high >= 10 * 8 + 50 and low <= -(10 * 8 + 50)


def test_the_training_figure_spans_every_step_of_its_grid():
    """A choice whose runs all diverged at step 3 is drawn on the grid's 60 steps, as every other choice is: the
    x axis of a moved figure stays, and the curves stop where training stopped."""
    handle = training_plots.TrainingFigure(GRID, ("layer",), 1e-2, 0)
    fresh = training_plots.explorer_figure(GRID, ("batch", "none"), 0.3, 0)
    handle.update(GRID, ("batch", "none"), 0.3, 0)
    for fig in (handle.fig, fresh):
        fig.canvas.draw()
        for ax in fig.axes:
            low, high = ax.get_xlim()
            assert low < 1 and high > 60 and high - 60 < 60 * 0.1, (low, high)
    assert "第 3 步发散" in plots.alt_text(handle.fig) and "大 ×" in plots.alt_text(handle.fig)
    assert handle.fig.get_suptitle() == fresh.get_suptitle() == "学习率 0.3，warm-up 0 步"


def test_the_training_figure_refuses_a_grid_of_another_length_by_name():
    handle = training_plots.TrainingFigure(GRID, ("layer",), 1e-2, 0)
    shorter = {key: run(30, 20) for key in GRID}
    with pytest.raises(ValueError, match="grid: expected runs of 60 steps"):
        handle.update(shorter, ("layer",), 1e-2, 0)
    with pytest.raises(ValueError, match="variants"):
        handle.update(GRID, ("rms",), 1e-2, 0)


@pytest.mark.parametrize(
    ("make", "first", "other"),
    [
        (plots.StageFigure, steps("2, 4, 6, 8"), steps("1, 2, 3")),
        (plots.EpsilonFigure, effect("3, 3.002, 2.998, 3"), effect("1, 2, 3")),
        (scale_shift_figure, shift("2, 4, 6, 8", 1, 0), shift("1, 2", 1, 0)),
    ],
)
def test_a_row_of_another_length_is_refused_by_name(make, first, other):
    with pytest.raises(ValueError, match="values"):
        make(first).update(other)


ARTIST_ACCESS = re.compile(
    r"\.(axes|lines|patches|texts|images|spines|get_linestyle|get_legend|set_ydata|set_xdata|set_height)\b"
    r"|\b(set_bars|set_cells|split_title|moving_artists)\("
)


@pytest.mark.parametrize("path", sorted(EXPLORERS.glob("*.py")), ids=lambda p: p.name)
def test_no_explorer_touches_an_artist(path):
    """Explorers move figures through their handles only: no axes, line, patch or text is reached from there."""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [f"{i}: {line.strip()}" for i, line in enumerate(lines, 1) if ARTIST_ACCESS.search(line)] == []


def test_the_artist_scan_sees_artist_access():
    assert ARTIST_ACCESS.search("left, right = self._live.fig.axes[:2]")
    assert ARTIST_ACCESS.search("set_bars(ax, values)") and not ARTIST_ACCESS.search("self.picture.frame(None, k, r)")


def test_a_constant_row_keeps_readable_axes_and_titles():
    """Issue 40: typed into notebook 03's explorer, a constant row drew x − μ on a 1e-15 axis whose offset label sat
    on the title, and the long divisor crowded the title 归一化 x̂."""
    flat = lnlib.layer_norm_steps([5, 5, 5, 5], eps=1e-5)
    handle = plots.StageFigure(lnlib.layer_norm_steps([2, 4, 6, 8], eps=1e-5))
    handle.update(flat)
    for fig in (plots.stage_bars(flat), handle.fig):
        fig.canvas.draw()
        centered = fig.axes[1]
        low, high = centered.get_ylim()
        assert high - low >= 1, (low, high)
        assert centered.yaxis.get_offset_text().get_text() == ""
    assert len(handle._divisor.get_text()) <= 12, handle._divisor.get_text()


HANDLES = [
    plots.StageFigure,
    plots.EpsilonFigure,
    plots.ScaleShiftFigure,
    plots.ValueHeatmapFigure,
    plots.HighlightFigure,
    plots.DepthFigure,
    plots.AttentionFigure,
    training_plots.TrainingFigure,
]
POSITIONAL = re.compile(
    r"\.(axes|lines|patches|texts|images|collections|containers)\s*\["  # indexed
    r"|,[^=]*=\s*[\w.]*\.(axes|lines|patches|texts|images)\s*$"  # unpacked
)
RENDER = Path(lnlib.__file__).parent


def test_every_handle_is_a_declared_figure_handle():
    """The eight handles follow one declared protocol (figure_kit.FigureHandle), and are all the handles there are."""
    found = [
        v
        for module in (plots, training_plots)
        for v in vars(module).values()
        if isinstance(v, type) and v.__name__.endswith("Figure") and "update" in vars(v)
    ]
    assert sorted(found, key=str) == sorted(HANDLES, key=str)
    handles = [
        plots.StageFigure(steps("2, 4, 6, 8")),
        plots.EpsilonFigure(effect("3, 3.002, 2.998, 3")),
        scale_shift_figure(shift("2, 4, 6, 8", 1, 0)),
        plots.ValueHeatmapFigure(TOKEN_MATRIX, TOKENS),
        plots.HighlightFigure(groups.selection(TOKEN_MATRIX, "row", 0)),
        plots.DepthFigure({"pre": [1.0, 2.0]}, max_depth=4, xlabel="层", ylabel="值"),
        plots.AttentionFigure(np.full((2, 2), 0.5), ["我", "吃"], entropy=[np.log(2)] * 2),
        training_plots.TrainingFigure(GRID, ("layer",), 1e-2, 0),
    ]
    assert all(isinstance(h, lnlib.figure_kit.FigureHandle) for h in handles)


@pytest.mark.parametrize("path", ["plots.py", "live.py", "figure_kit.py", "training_plots.py"])
def test_no_artist_is_found_by_position(path):
    """Builders hand their artists to their handle; nothing reads `fig.axes[0]` or `ax.texts[...]` back."""
    lines = (RENDER / path).read_text(encoding="utf-8").splitlines()
    assert [f"{i}: {line.strip()}" for i, line in enumerate(lines, 1) if POSITIONAL.search(line)] == []


def test_the_position_scan_sees_positional_access():
    assert POSITIONAL.search("self._ax = self.fig.axes[0]") and POSITIONAL.search("cells = ax.texts[: values.size]")
    assert POSITIONAL.search("self._x, self._centered, self._xhat = self.fig.axes")
    assert not POSITIONAL.search("return [*ax.images, *ax.patches]") and not POSITIONAL.search("axes = self.fig.axes")
