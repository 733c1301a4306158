"""The figures of notebooks 02–13, drawn on `lnlib.figure_kit` (palette, font, canvas, alt text). Each function
takes numbers or a result of a topic module (`stages`, `groups`, `pitfalls`, `invariance`, `numerics`,
`transformer`) and returns a `Figure` not registered with pyplot, with its `alt_text` (in Jupyter the PNG's
`{"image/png": {"alt": …}}` metadata, which the course site and its JupyterLab extension turn into `<img alt>`).
Every word drawn or described is a message of the catalogue domain `figures` (`lnlib.i18n`), in the language chosen
when the figure is built; TeX is a field of the message, and the example's tokens are shown by `labels.token_labels`.

Each figure an explorer moves has a handle next to its builder (`StageFigure`, `EpsilonFigure`, `ScaleShiftFigure`,
`ValueHeatmapFigure`, `HighlightFigure`, `DepthFigure`, `AttentionFigure`: `figure_kit.FigureHandle`s). The builder
hands it its artists (`figure_kit.Bars`, `Cells`); `update(result)` moves them and returns what changed.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Rectangle

from . import pitfalls
from .data import TOKENS
from .figure_kit import (
    ACCENT,
    ACCENT_TEXT,
    COLORS,
    GUIDE,
    INK,
    OKABE_ITO,
    PALE,
    Bars,
    Cells,
    check_matrix,
    check_tokens,
    expect,
    highlight_inks,
    ink_on,
    inks_on,
    new_figure,
    outlined,
    set_alt_text,
    use_cjk_font,
)
from .figure_kit import CJK_FONTS as CJK_FONTS  # notebooks and tests call plots.CJK_FONTS
from .figure_kit import alt_text as alt_text  # notebooks and tests call plots.alt_text
from .figure_kit import to_png as to_png  # notebooks and tests call plots.to_png
from .groups import Selection
from .i18n import message
from .invariance import ScaleShift
from .labels import AXIS_TITLES, dim_label, number, residual_form, token_labels, vector_text
from .live import moving_artists, set_bars, set_cells, split_title
from .pitfalls import EpsilonEffect
from .stages import LayerNormSteps

FORM_STYLES = {
    "post": {
        "color": OKABE_ITO["vermillion"],
        "marker": "o",
        "linestyle": "--",
        "linewidth": 1.6,
        "markersize": 5,
        "zorder": 4,
    },
    "pre": {
        "color": OKABE_ITO["blue"],
        "marker": "s",
        "linestyle": "-",
        "linewidth": 1.6,
        "markersize": 5,
        "zorder": 3,
    },
    "none": {
        "color": OKABE_ITO["black"],
        "marker": "^",
        "linestyle": ":",
        "linewidth": 1.6,
        "markersize": 5,
        "zorder": 3,
    },
    "deepnorm": {
        "color": OKABE_ITO["sky_blue"],
        "marker": "D",
        "linestyle": "-.",
        "linewidth": 4.0,
        "markersize": 8,
        "zorder": 2,
    },
}
"""One colour, marker and dash per residual form. The four colours stay ≥ 20 CIEDE2000 apart under simulated
deuteranopia and protanopia (tests/test_figure_access.py). DeepNorm is drawn wide and underneath, Post-LN dashed
on top, so where the two coincide (both keep the residual stream at RMS 1) both stay visible."""

_EXTRA_STYLES = [
    {"color": OKABE_ITO["reddish_purple"], "marker": "v", "linestyle": "-."},
    {"color": OKABE_ITO["bluish_green"], "marker": "P", "linestyle": (0, (5, 1, 1, 1))},
    {"color": OKABE_ITO["orange"], "marker": "X", "linestyle": (0, (1, 2))},
]
_GUIDE_STYLES = [
    {"color": INK, "linestyle": (0, (4, 2)), "linewidth": 1.0},
    {"color": GUIDE, "linestyle": (0, (1, 1.5)), "linewidth": 1.2},
]


def _eps_range(eps_range) -> tuple[float, float]:
    """(low, high) of an ε axis: two positive finite numbers, low < high."""
    try:
        lo, hi = (float(v) for v in eps_range)
    except (TypeError, ValueError):
        raise TypeError(f"eps_range: expected (low, high), two positive numbers, got {eps_range!r:.40}") from None
    if not (0 < lo < hi < np.inf):
        raise ValueError(f"eps_range: expected 0 < low < high < inf, got {eps_range!r:.40}")
    return lo, hi


def _steps(steps) -> np.ndarray:
    if not isinstance(steps, LayerNormSteps):
        raise TypeError(f"steps: expected the LayerNormSteps of lnlib.layer_norm_steps, got {type(steps).__name__}")
    x = np.asarray(steps.x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"steps: one vector is drawn; got x of shape {x.shape}")
    # √(σ² + ε) may still be inf for rows below ~1e-157 (a stages issue, 11.2): drawn as "÷ inf", not refused
    stages = (steps.x, steps.centered, steps.normalized, steps.output, steps.mean)
    if not all(np.all(np.isfinite(np.asarray(v, dtype=np.float64))) for v in stages):
        raise ValueError("steps: the stages hold inf or NaN (is x finite?); nothing to draw")
    return x


# --- bars ---------------------------------------------------------------------------------------------------


DRAW_LIMIT = 1e300  # matplotlib works out spans and margins in float64: larger values are drawn in units of 10^k
TINY_LIMIT = 1e-300  # a colour scale narrower than this is drawn in units of 10^k too


def _display_factor(*arrays) -> float:
    """1, or the power of ten 10^k ≤ peak |value| when the peak is beyond DRAW_LIMIT (8e307 − (−8e307) would
    overflow inside matplotlib): the axis then reads in units of 10^k, the labels keep the true values."""
    peaks = [
        float(np.max(np.abs(a))) for a in (np.asarray(a, dtype=np.float64) for a in arrays if a is not None) if a.size
    ]
    peak = max(peaks, default=0.0)
    return 10.0 ** math.floor(math.log10(peak)) if peak >= DRAW_LIMIT else 1.0


def _factor_label(factor: float) -> str:
    return message("figures.plots.unit", factor=number(factor))


def _bars(ax, values, color, title, *, ylim=None, hline=None, factor=None):
    values = np.asarray(values, dtype=np.float64)
    factor = _display_factor(values, hline) if factor is None else factor
    shown = values / factor if factor != 1 else values
    positions = np.arange(1, values.size + 1)
    bars = ax.bar(positions, shown, color=color, edgecolor=INK, linewidth=0.6)
    ax.axhline(0, color=GUIDE, linewidth=0.8, gid="guide")
    dashed = None
    if hline is not None:
        dashed = ax.axhline(hline / factor, color=ACCENT, linestyle="--", linewidth=1.2, gid="guide")
    if factor != 1:
        ax.set_ylabel(_factor_label(factor), fontsize=8)
        if ylim is not None:
            ylim = tuple(v / factor for v in ylim)
    labels = [
        ax.annotate(
            number(v),
            (p, h),
            ha="center",
            va="bottom" if v >= 0 else "top",
            fontsize=8,
            color=INK,
            xytext=(0, 2 if v >= 0 else -2),
            textcoords="offset points",
        )
        for p, v, h in zip(positions, values, shown, strict=True)
    ]
    ax.set_xticks(positions, [dim_label(p) for p in positions], fontsize=8)
    ax.set_title(title, fontsize=10)
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.margins(y=0.2)
    _keep_flat_axis_readable(ax, shown)
    return Bars(ax, list(bars), labels, dashed)


def _keep_flat_axis_readable(ax, shown) -> None:
    """A panel whose bars are all exactly 0 (x − μ of a constant row) gets the axis −1 … 1: autoscaling a zero span
    gives a 1e-15 axis whose offset label sits on the title."""
    if ax.get_autoscaley_on() and not np.any(np.asarray(shown, dtype=np.float64)):
        ax.set_ylim(-1, 1)


def stage_bars(steps: LayerNormSteps, *, affine: bool = False) -> Figure:
    """Bar charts of one vector at each stage: x (with μ dashed), x − μ, x̂ (and y when `affine`)."""
    return _stage_figure(steps, affine)[0]


def _stage_figure(steps: LayerNormSteps, affine: bool):
    """`stage_bars`' figure and its panels (for `StageFigure`)."""
    _steps(steps)
    use_cjk_font()
    panels = stage_panels(steps, affine=affine)
    fig = new_figure((3.0 * len(panels), 2.8), _stage_alt(steps, affine))
    axes = fig.subplots(1, len(panels))
    return fig, [_bars(ax, v, c, title, hline=hline) for ax, (v, c, title, hline) in zip(axes, panels, strict=True)]


def _stage_alt(steps: LayerNormSteps, affine: bool) -> str:
    fields: dict[str, Any] = {
        "n": len(stage_panels(steps, affine=affine)),
        "d": steps.x.size,
        "x": vector_text(steps.x),
        "mu": number(float(steps.mean)),
        "centered": vector_text(steps.centered),
        "xhat": vector_text(steps.normalized),
        "std": number(float(steps.std_eps)),
    }
    if affine:
        return message("figures.plots.stage_alt_affine", **fields, y=vector_text(steps.output))
    return message("figures.plots.stage_alt", **fields)


def _xhat_bound(d: int) -> float:
    """The largest max |x̂| any row of d numbers can have as ε → 0: √(d − 1), reached when one value differs from
    all the others (Samuelson's inequality); 1 for d = 1. An axis this tall fits every row of that length."""
    return math.sqrt(d - 1) if d > 1 else 1.0


class StageFigure:
    """`stage_bars` kept for rows of one length (notebook 03's explorer): `update(steps)` moves it to another row of
    that length or another ε. The x̂ panel keeps one y axis for every row of the length (the largest |x̂| such a row
    can have as ε → 0), so its bars visibly shrink as ε grows and a new row redraws no axis there."""

    def __init__(self, steps: LayerNormSteps):
        _steps(steps)
        self.fig, self._panels = _stage_figure(steps, affine=False)
        self._x, self._centered, self._xhat = (panel.ax for panel in self._panels)
        bound = 1.3 * _xhat_bound(steps.x.size)  # every row of this length fits: no new axis per typed row
        self._xhat.set_ylim(-bound, bound)
        normalized = message("figures.plots.normalized", xhat=r"$\hat{x}$")
        self._divisor = split_title(self._xhat, normalized, self._divisor_text(steps))
        self._mean = split_title(
            self._x, message("figures.plots.input", x="$x$"), self._mean_text(steps)
        )  # laid out once
        self._row = np.asarray(steps.x, dtype=np.float64).tobytes()
        # a row of the same length only moves these: bars, texts and the y axes of x and x − μ
        self.moving = [
            *moving_artists(self._x),
            *moving_artists(self._centered),
            self._x.yaxis,
            self._centered.yaxis,
            *moving_artists(self._xhat),
            self._mean,
            self._divisor,
        ]

    @staticmethod
    def _mean_text(steps) -> str:
        return message("figures.plots.dashed_mu", mu=f"{float(steps.mean):.4g}")

    @staticmethod
    def _divisor_text(steps) -> str:
        return f"÷ {float(steps.std_eps):.4g}"  # short: a long divisor crowded the title 归一化 x̂ out

    def update(self, steps: LayerNormSteps) -> list:
        """Move the figure to `steps` (a row of the same length); returns the artists changed."""
        _steps(steps)
        moved = []
        row = np.asarray(steps.x, dtype=np.float64).tobytes()
        if row != self._row:  # a new row: new bars and y axes for x and x − μ
            for panel, (values, _, _, hline) in zip(self._panels[:2], stage_panels(steps), strict=False):
                set_bars(panel, values)
                ax = panel.ax
                if hline is not None:
                    panel.dashed.set_ydata([hline, hline])
                ax.set_autoscaley_on(True)
                ax.relim()
                ax.autoscale_view(scalex=False)
                _keep_flat_axis_readable(ax, values)
                ax.yaxis.stale = True  # new limits: new ticks
                moved += [ax, ax.yaxis]
            self._mean.set_text(self._mean_text(steps))
            moved.append(self._mean)
            self._row = row
        set_bars(self._panels[2], steps.normalized)
        self._divisor.set_text(self._divisor_text(steps))
        set_alt_text(self.fig, _stage_alt(steps, affine=False))
        return [*moved, self._xhat, self._divisor]


def stage_panels(steps: LayerNormSteps, *, affine: bool = False) -> list[tuple]:
    """The panels of `stage_bars`, left to right: (values, colour, title, dashed line at or None)."""
    _steps(steps)
    mu, std_eps = float(steps.mean), float(steps.std_eps)
    panels = [
        (steps.x, COLORS["x"], message("figures.plots.stage_x", x="$x$", musym=r"$\mu$", mu=f"{mu:.4g}"), mu),
        (steps.centered, COLORS["centered"], message("figures.plots.centered", expr=r"$x-\mu$"), None),
        (
            steps.normalized,
            COLORS["normalized"],
            message("figures.plots.stage_xhat", xhat=r"$\hat{x}$", std=f"{std_eps:.4g}"),
            None,
        ),
    ]
    if affine:
        output = message("figures.plots.output", expr=r"$y=\gamma\odot\hat{x}+\beta$")
        panels.append((steps.output, COLORS["output"], output, None))
    return panels


def token_bars(matrix, tokens=TOKENS, *, sharey: bool = True, title: str = "") -> Figure:
    """One bar chart per token (row), on a shared y axis so differences in scale are visible."""
    values = check_matrix(matrix)
    tokens = token_labels(check_tokens(tokens, values.shape[0]))
    use_cjk_font()
    rows = _rows(tokens, values)
    scale = message("figures.plots.shared_axis" if sharey else "figures.plots.own_axes")
    alt = message("figures.plots.token_bars_alt", n=len(tokens), scale=scale, d=values.shape[1], rows=rows)
    fig = new_figure((3.0 * len(tokens), 2.8), _titled(title, alt))
    axes = fig.subplots(1, len(tokens), sharey=sharey)
    factor = _display_factor(values) if sharey else None  # one shared axis: one unit for every panel
    for ax, token, row in zip(np.atleast_1d(axes), tokens, values, strict=True):
        _bars(ax, row, COLORS["x"], token, factor=factor)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def _titled(title: str, text: str) -> str:
    """An alt text that starts with the figure's title, when it has one."""
    return message("figures.titled", title=title, text=text) if title else text


def _rows(tokens, values) -> str:
    """'我 = [1, 2]；吃 = [3, 4]': each token's row, for alt text."""
    return message("figures.sep.clause").join(
        f"{t} = {vector_text(row)}" for t, row in zip(tokens, values, strict=True)
    )


# --- grids of numbers ----------------------------------------------------------------------------------------


def _cell_text(ax, image, values, texts, fontsize, *, weights=None) -> Cells:
    """Write texts[i][j] on cell (i, j) of `image` in black or white, whichever reads better on that cell."""
    rgba = image.to_rgba(image.get_array())
    cells = [
        ax.text(
            j,
            i,
            texts[i][j],
            ha="center",
            va="center",
            fontsize=fontsize,
            color=ink_on(rgba[i, j]),
            fontweight=None if weights is None else weights[i][j],
        )
        for i in range(values.shape[0])
        for j in range(values.shape[1])
    ]
    return Cells(ax, image, cells)


def highlight_heatmap(selection: Selection, tokens=TOKENS) -> Figure:
    """The matrix as a grid of numbers; the cells of one group (`groups.selection`) are framed, the rest dimmed.

    mode "row": the cells of row `index` (one token's μ, σ — what LayerNorm uses);
    "column": the cells of column `index` (one dimension across tokens); "all": every cell.
    Takes `groups.selection(matrix, mode, index)`.
    """
    return _highlight_figure(selection, tokens)[0]


def _highlight_figure(selection: Selection, tokens):
    """`highlight_heatmap`'s figure, its frame and its cells (for `HighlightFigure`)."""
    sel = expect(selection, Selection, "selection", "lnlib.groups.selection(matrix, mode, index)")
    values, mask = sel.matrix, sel.mask
    n, d = values.shape
    tokens = token_labels(check_tokens(tokens, n))
    use_cjk_font()
    fig = new_figure((1.2 * d + 1.5, 0.7 * n + 1.3), _highlight_alt(sel, tokens))
    ax = fig.subplots()
    shade = np.where(mask, 1.0, 0.15)
    cmap = matplotlib.colormaps["YlOrBr"]
    image = ax.imshow(shade, cmap=cmap, vmin=0, vmax=1.6, aspect="auto")
    inks = highlight_inks(mask, image.to_rgba(shade))
    texts = [
        ax.text(
            j,
            i,
            f"{values[i, j]:g}",
            ha="center",
            va="center",
            color=inks[i * d + j],
            fontsize=11,  # one weight: the bundled CJK font has no bold face; the frame marks the group
        )
        for i in range(n)
        for j in range(d)
    ]
    rows, cols = np.nonzero(mask)
    frame = ax.add_patch(
        Rectangle(
            (cols.min() - 0.5, rows.min() - 0.5),
            cols.max() - cols.min() + 1,
            rows.max() - rows.min() + 1,
            fill=False,
            edgecolor=INK,
            linewidth=2.5,
        )
    )
    ax.set_xticks(range(d), [dim_label(j + 1) for j in range(d)])
    ax.set_yticks(range(n), tokens)
    ax.set_title(_highlight_title(sel, r"$\mu$", r"$\sigma$"), fontsize=10)
    return fig, frame, Cells(ax, image, texts)


def _highlight_title(sel: Selection, mu: str, sigma: str) -> str:
    mean, std = f"{sel.mean:.4g}", f"{sel.std:.4g}"
    mode = AXIS_TITLES[sel.mode]
    return message("figures.plots.highlight_title", mode=mode, count=sel.size, mu=mu, mean=mean, sigma=sigma, std=std)


def _highlight_alt(sel: Selection, tokens) -> str:
    n, d = sel.matrix.shape
    if sel.mode == "row":
        which = message("figures.plots.which_row", row=sel.index + 1, token=tokens[sel.index])
    elif sel.mode == "column":
        which = message("figures.plots.which_column", column=sel.index + 1, dim=dim_label(sel.index + 1))
    else:
        which = message("figures.plots.which_all")
    return message(
        "figures.plots.highlight_alt",
        n=n,
        d=d,
        which=which,
        mode=AXIS_TITLES[sel.mode],
        count=sel.size,
        values=vector_text(sel.matrix[sel.mask]),
        mean=number(sel.mean),
        std=number(sel.std),
    )


class HighlightFigure:
    """`highlight_heatmap` kept (notebook 02's explorer): `update(selection)` moves the frame, the shading and the
    title to another group of the same matrix. The title is plain text (μ, σ as letters, not mathtext), so a new
    title per frame stays cheap."""

    def __init__(self, selection: Selection, tokens=TOKENS):
        self.fig, self._frame, self._cells = _highlight_figure(selection, tokens)
        self._tokens = token_labels(check_tokens(tokens, selection.matrix.shape[0]))
        self._ax = self._cells.ax
        self._texts = [t.get_text() for t in self._cells.texts]  # the numbers never change, only their inks
        self._ax.title.set_text(self._title_text(selection))
        self.moving = [*moving_artists(self._ax), self._ax.title]

    @staticmethod
    def _title_text(sel) -> str:
        return _highlight_title(sel, "μ", "σ")

    def update(self, selection: Selection) -> list:
        """Show `selection` (a group of the same matrix); returns the artists changed."""
        sel = expect(selection, Selection, "selection", "lnlib.groups.selection(matrix, mode, index)")
        shade = np.where(sel.mask, 1.0, 0.15)
        d = shade.shape[1]
        texts = [self._texts[i * d : (i + 1) * d] for i in range(len(shade))]
        set_cells(self._cells, shade, texts, colors=lambda rgba: highlight_inks(sel.mask, rgba))
        rows, cols = np.nonzero(sel.mask)
        self._frame.set_bounds(
            cols.min() - 0.5, rows.min() - 0.5, cols.max() - cols.min() + 1, rows.max() - rows.min() + 1
        )
        self._ax.title.set_text(self._title_text(sel))
        set_alt_text(self.fig, _highlight_alt(sel, self._tokens))
        return [self._ax, self._frame, self._ax.title]


# --- notebooks 04–07: ε, what is kept and lost, γ and β ---------------------------------------------


EPS_RANGE = (1e-8, 1.0)  # the ε axis of epsilon_plot (EpsilonExplorer keeps it)


def epsilon_guide_shown(effect: EpsilonEffect, eps_range=EPS_RANGE) -> bool:
    """Whether `epsilon_plot` shows its ε = σ² guide: when σ² lies on the ε axis."""
    expect(effect, EpsilonEffect, "effect", "lnlib.pitfalls.epsilon_effect(x)")
    lo, hi = _eps_range(eps_range)
    return bool(np.sqrt(lo) <= effect.sigma <= np.sqrt(hi))


def epsilon_plot(effect: EpsilonEffect, *, eps_range=EPS_RANGE) -> Figure:
    """Left: x̂ of one row at this ε (y axis fixed to the ε → 0 limit). Right: the variance of x̂, σ²/(σ²+ε),
    against ε on a log axis, with the current ε marked (notebook 04).

    Takes `pitfalls.epsilon_effect(x, eps)`.
    """
    e = expect(effect, EpsilonEffect, "effect", "lnlib.pitfalls.epsilon_effect(x, eps)")
    return _epsilon_figure(e, eps_range)[0]


def _epsilon_figure(e: EpsilonEffect, eps_range) -> tuple[Figure, dict]:
    """`epsilon_plot`'s figure and the artists `EpsilonFigure` moves."""
    lo, hi = (float(v) for v in eps_range)
    if not 0 < lo < hi < np.inf:
        raise ValueError(f"eps_range: expected 0 < low < high, got {eps_range!r}")
    use_cjk_font()
    fig = new_figure((8.4, 2.9), _epsilon_alt(e, lo, hi))
    left, right = fig.subplots(1, 2)
    bars = _bars(
        left,
        e.steps.normalized,
        COLORS["normalized"],
        message("figures.plots.xhat_at_eps", xhat=r"$\hat{x}$", epsym=r"$\varepsilon$", eps=f"{e.eps:.0e}"),
        ylim=(-1.25 * e.limit, 1.25 * e.limit),
    )
    grid = np.logspace(np.log10(lo), np.log10(hi), 200)
    (curve,) = right.semilogx(grid, pitfalls.kept_variance(e.sigma, grid), color=OKABE_ITO["blue"], linewidth=1.8)
    marker = None
    if e.eps > 0:
        (marker,) = right.plot(
            [e.eps], [e.kept], linestyle="none", marker="o", markersize=7, color=ACCENT, markeredgecolor=INK
        )
    right.axhline(1.0, color=GUIDE, linestyle="--", linewidth=0.8, gid="guide")
    # the ε = σ² guide and its label, hidden (and parked on the axis) when σ² lies off it: a live figure can then
    # move them to another row's σ² (EpsilonFigure)
    shown = epsilon_guide_shown(e, eps_range)
    at = e.sigma**2 if shown else lo
    guide = right.axvline(at, color=GUIDE, linestyle=":", linewidth=1, gid="guide", visible=shown)
    guide_label = right.annotate(
        r"$\varepsilon=\sigma^2$",
        (at, 0.05),
        xytext=(4, 0),
        textcoords="offset points",
        fontsize=8,
        color=INK,
        visible=shown,
    )
    right.set_ylim(-0.05, 1.1)
    right.set_xlabel(message("figures.plots.eps_log", eps=r"$\varepsilon$"), fontsize=9)
    kept = message("figures.plots.kept_title", xhat=r"$\hat{x}$", formula=r"$=\sigma^2/(\sigma^2+\varepsilon)$")
    right.set_title(kept, fontsize=10)
    return fig, {"bars": bars, "right": right, "curve": curve, "marker": marker, "guide": guide, "label": guide_label}


def _epsilon_alt(e: EpsilonEffect, lo: float, hi: float) -> str:
    return message(
        "figures.plots.epsilon_alt",
        eps=f"{e.eps:.0e}",
        xhat=vector_text(e.steps.normalized),
        lo=f"{lo:g}",
        hi=f"{hi:g}",
        kept=number(e.kept),
        variance=f"{e.variance:.3g}",
    )


class EpsilonFigure:
    """`epsilon_plot` kept for rows of one length (notebook 04's explorer): `update(effect)` moves the bars, the
    marked point and, for a new row, the curve and the ε = σ² guide."""

    def __init__(self, effect: EpsilonEffect, *, eps_range=EPS_RANGE):
        e = expect(effect, EpsilonEffect, "effect", "lnlib.pitfalls.epsilon_effect(x, eps)")
        self.fig, parts = _epsilon_figure(e, eps_range)
        self._eps_range = eps_range
        self._curve, self._marker = parts["curve"], parts["marker"]
        self._guide, self._guide_label = parts["guide"], parts["label"]
        self._bars, right = parts["bars"], parts["right"]
        bound = 1.25 * _xhat_bound(e.x.size)  # every row of this length fits
        self._bars.ax.set_ylim(-bound, bound)
        self._title = split_title(self._bars.ax, r"$\hat{x}$", f"ε = {e.eps:.0e}")
        self._row = e.x.tobytes()
        self.moving = [*moving_artists(self._bars.ax), self._title, *moving_artists(right)]

    def update(self, effect: EpsilonEffect) -> list:
        """Move the figure to `effect` (a row of the same length); returns the artists changed."""
        e = expect(effect, EpsilonEffect, "effect", "lnlib.pitfalls.epsilon_effect(x, eps)")
        set_bars(self._bars, e.steps.normalized)
        self._title.set_text(f"ε = {e.eps:.0e}")
        moved = [self._bars.ax, self._title]
        if self._marker is not None:
            self._marker.set_data([e.eps], [e.kept])
            moved.append(self._marker)
        row = e.x.tobytes()
        if row != self._row:  # another row: its curve and its σ² guide
            self._curve.set_ydata(pitfalls.kept_variance(e.sigma, self._curve.get_xdata()))
            shown, at = epsilon_guide_shown(e, self._eps_range), e.sigma**2
            for artist in (self._guide, self._guide_label):
                artist.set_visible(shown)
            if shown:
                self._guide.set_xdata([at, at])
                self._guide_label.xy = (at, self._guide_label.xy[1])
            moved += [self._curve, self._guide, self._guide_label]
            self._row = row
        set_alt_text(self.fig, _epsilon_alt(e, *(float(v) for v in self._eps_range)))
        return moved


def scale_shift_bars(result: ScaleShift, *, ylim=None) -> Figure:
    """Left: a·x + b (it moves with the sliders; `ylim` fixes its axis); right: its x̂, which does not move
    (notebook 05). Takes `invariance.scale_shift(x, a, b, eps)`."""
    return _scale_shift_figure(expect(result, ScaleShift, "result", SCALE_SHIFT), ylim)[0]


SCALE_SHIFT = "lnlib.invariance.scale_shift(x, scale, shift, eps)"


def _scale_shift_figure(r: ScaleShift, ylim) -> tuple[Figure, tuple[Bars, Bars]]:
    """`scale_shift_bars`' figure and its two panels (for `ScaleShiftFigure`)."""
    use_cjk_font()
    fig = new_figure((7.2, 2.9), _scale_shift_alt(r))
    left, right = fig.subplots(1, 2)
    title = message(
        "figures.plots.moved_title",
        expr=r"$a\cdot x+b$",
        a="$a$",
        scale=f"{r.scale:.3g}",
        b="$b$",
        shift=f"{r.shift:.3g}",
    )
    moved = _bars(left, r.moved, COLORS["x"], title, ylim=ylim)
    normalized = message("figures.plots.normalized", xhat=r"$\hat{x}$")
    return fig, (moved, _bars(right, r.normalized, COLORS["normalized"], normalized, ylim=(-2, 2)))


def _scale_shift_alt(r: ScaleShift) -> str:
    return message(
        "figures.plots.scale_shift_alt",
        moved=vector_text(r.moved),
        a=number(r.scale),
        b=number(r.shift),
        x=vector_text(r.x),
        xhat=vector_text(r.normalized),
    )


class ScaleShiftFigure:
    """`scale_shift_bars` kept for rows of one length (notebook 05's explorer). The a·x + b panel gets a fixed axis
    that fits every a in `scales` and b in `shifts` (so the bars visibly move); `update(result)` moves the bars
    and, for a new row, that axis."""

    def __init__(self, result: ScaleShift, *, scales: tuple[float, float], shifts: tuple[float, float]):
        r = expect(result, ScaleShift, "result", SCALE_SHIFT)
        self._top, self._reach = float(max(scales)), float(max(abs(v) for v in shifts))
        self.fig, (self._bars, self._xhat_bars) = _scale_shift_figure(r, self.ylim(r.x))
        self._moved, self._normalized = self._bars.ax, self._xhat_bars.ax
        self._title = split_title(self._moved, r"$a\cdot x+b$", self._title_text(r))
        self._row = np.asarray(r.x, dtype=np.float64).tobytes()
        self.moving = [*moving_artists(self._moved), self._moved.yaxis, self._title, *moving_artists(self._normalized)]

    def ylim(self, x) -> tuple[float, float]:
        """The a·x + b axis for the row x: it fits every slider position."""
        reach = self._top * float(np.max(np.abs(x))) + self._reach
        return -1.05 * reach, 1.05 * reach

    @staticmethod
    def _title_text(r) -> str:
        return message("figures.plots.ab", a=f"{r.scale:.3g}", b=f"{r.shift:.3g}")

    def update(self, result: ScaleShift) -> list:
        """Move the figure to `result` (a row of the same length); returns the artists changed."""
        r = expect(result, ScaleShift, "result", SCALE_SHIFT)
        moved = []
        row = np.asarray(r.x, dtype=np.float64).tobytes()
        if row != self._row:  # a new vector of the same length: a new fixed axis, same figure
            self._moved.set_ylim(*self.ylim(r.x))
            self._moved.yaxis.stale = True  # new limits: new ticks (only this panel is drawn again)
            moved.append(self._moved.yaxis)
            self._row = row
        set_bars(self._bars, r.moved)
        self._title.set_text(self._title_text(r))
        set_bars(self._xhat_bars, r.normalized)
        set_alt_text(self.fig, _scale_shift_alt(r))
        return [*moved, self._moved, self._title, self._normalized]


def value_heatmap(matrix, tokens=TOKENS, *, title: str = "", limit: float | None = None) -> Figure:
    """A (tokens × d) matrix as a colored grid with its numbers: blue below 0, red above (notebook 06)."""
    return _value_heatmap_figure(matrix, tokens, title, limit)[0]


def _value_heatmap_figure(matrix, tokens, title: str, limit) -> tuple[Figure, Cells]:
    """`value_heatmap`'s figure and its cells (for `ValueHeatmapFigure`)."""
    values = check_matrix(matrix)
    n, d = values.shape
    tokens = token_labels(check_tokens(tokens, n))
    limit = _heatmap_limit(values, limit)
    use_cjk_font()
    fig = new_figure((1.2 * d + 1.8, 0.7 * n + 1.3), _heatmap_alt(values, tokens, limit))
    ax = fig.subplots()
    shown, factor = _heatmap_shown(values, limit)
    image = ax.imshow(shown, cmap="RdBu_r", vmin=-limit / factor, vmax=limit / factor, aspect="auto")
    cells = _cell_text(ax, image, values, [[number(v) for v in row] for row in values], 11)
    ax.set_xticks(range(d), [dim_label(j + 1) for j in range(d)])
    ax.set_yticks(range(n), tokens)
    bar = fig.colorbar(image, ax=ax, shrink=0.8)
    if factor != 1:
        bar.set_label(_factor_label(factor), fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    return fig, cells


def _heatmap_limit(values: np.ndarray, limit) -> float:
    """The colour scale ±limit of `value_heatmap`: the largest |value| unless given."""
    if limit is None:
        return max(float(np.max(np.abs(values))), 1e-12)
    if not (isinstance(limit, numbers.Real) and 0 < limit < np.inf):
        raise ValueError(f"limit: expected a positive finite number, got {limit!r}")
    return float(limit)


def _heatmap_shown(values: np.ndarray, limit: float) -> tuple[np.ndarray, float]:
    """What the heatmap's image holds: the values clipped to ±limit (the colours beyond are the end colours anyway)
    in units of `factor`: a power of ten when the limit is beyond DRAW_LIMIT, the limit itself below TINY_LIMIT
    (matplotlib would overflow working out the colour of 1 on a scale of ±1e-320; 10⁻³²⁴ is 0 in float64)."""
    factor = _display_factor(limit) if limit >= TINY_LIMIT else limit
    return np.clip(values, -limit, limit) / factor, factor


def _heatmap_alt(values: np.ndarray, tokens, limit: float) -> str:
    n, d = values.shape
    return message("figures.plots.heatmap_alt", n=n, d=d, limit=number(limit), rows=_rows(tokens, values))


class ValueHeatmapFigure:
    """`value_heatmap` kept with a fixed colour scale (notebook 06's explorer): `update(matrix)` recolours the
    cells and rewrites their numbers (only the cells that changed are redrawn)."""

    def __init__(self, matrix, tokens=TOKENS, *, title: str = "", limit: float | None = None):
        self.fig, self._cells = _value_heatmap_figure(matrix, tokens, title, limit)
        values = check_matrix(matrix)
        self._tokens, self._limit = token_labels(check_tokens(tokens, values.shape[0])), _heatmap_limit(values, limit)
        self._ax = self._cells.ax
        self.moving = moving_artists(self._ax)

    def update(self, matrix) -> list:
        """Show `matrix` (same shape); returns the axes changed."""
        values = check_matrix(matrix)
        shown = _heatmap_shown(values, self._limit)[0]
        set_cells(self._cells, shown, [[number(v) for v in row] for row in values], colors=inks_on)
        set_alt_text(self.fig, _heatmap_alt(values, self._tokens, self._limit))
        return [self._ax]


def jacobian_heatmap(jac, *, title: str = "") -> Figure:
    """A d × d Jacobian ∂y_i/∂x_j as a diverging heatmap with the numbers written in (notebook 12)."""
    values = check_matrix(jac, "jac")
    if values.shape[0] != values.shape[1]:
        raise ValueError(f"jac: expected a square matrix, got shape {values.shape}")
    use_cjk_font()
    d = values.shape[0]
    limit = float(np.max(np.abs(values))) or 1.0
    rows = message("figures.sep.clause").join(
        message("figures.plots.jac_row", i=i + 1, values=vector_text(row)) for i, row in enumerate(values)
    )
    fig = new_figure((0.9 * d + 2.2, 0.8 * d + 1.2), message("figures.plots.jac_alt", d=d, rows=rows))
    ax = fig.subplots()
    factor = _display_factor(values)
    image = ax.imshow(values / factor, cmap="RdBu_r", vmin=-limit / factor, vmax=limit / factor)
    _cell_text(ax, image, values, [[number(v) for v in row] for row in values], 10)
    ax.set_xticks(range(d), [f"$x_{{{j + 1}}}$" for j in range(d)])
    ax.set_yticks(range(d), [f"$y_{{{i + 1}}}$" for i in range(d)])
    ax.set_xlabel(message("figures.plots.jac_xlabel", x="$x_j$"))
    ax.set_ylabel(message("figures.plots.output", expr="$y_i$"))
    bar = fig.colorbar(image, ax=ax, shrink=0.8)
    if factor != 1:
        bar.set_label(_factor_label(factor), fontsize=8)
    ax.set_title(title or message("figures.plots.jac_title", expr=r"$\partial y_i / \partial x_j$"), fontsize=10)
    return fig


def variance_error_plot(offsets, one_pass, two_pass, true_variance: float, *, dtype_name: str = "float32") -> Figure:
    """One-pass E[x²] − E[x]² vs two-pass variance as the offset of a row grows (notebook 13), log-x axis."""
    offsets = np.asarray(offsets, dtype=np.float64).reshape(-1)
    one_pass = np.asarray(one_pass, dtype=np.float64).reshape(-1)
    two_pass = np.asarray(two_pass, dtype=np.float64).reshape(-1)
    if not offsets.size or one_pass.size != offsets.size or two_pass.size != offsets.size:
        bad = "one_pass" if one_pass.size != offsets.size or not offsets.size else "two_pass"
        raise ValueError(
            f"{bad}: expected {offsets.size} values (one per offset), got "
            f"{one_pass.size if bad == 'one_pass' else two_pass.size}"
        )
    if not np.all(offsets > 0) or not np.all(np.isfinite(offsets)):
        raise ValueError("offsets: expected positive finite offsets (the axis is logarithmic)")
    use_cjk_font()
    alt = message(
        "figures.plots.variance_alt",
        lo=number(offsets[0]),
        hi=number(offsets[-1]),
        dtype=dtype_name,
        one=vector_text(one_pass),
        two=vector_text(two_pass),
        true=number(true_variance),
    )
    fig = new_figure((6.4, 3.2), alt)
    ax = fig.subplots()
    one = message("figures.plots.one_pass", expr=r"$E[x^2]-E[x]^2$")
    ax.plot(offsets, one_pass, marker="o", linestyle="-", color=OKABE_ITO["vermillion"], label=one)
    two = message("figures.plots.two_pass", expr=r"$E[(x-\mu)^2]$")
    ax.plot(offsets, two_pass, marker="s", linestyle="--", color=OKABE_ITO["blue"], label=two)
    true = message("figures.plots.true_value", value=number(true_variance))
    ax.axhline(true_variance, color=INK, linewidth=0.8, linestyle=":", label=true, gid="guide")
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_xlabel(message("figures.plots.offset_axis", c="$c$", row="$c + [0, 1, 2, 3]$"))
    ax.set_ylabel(message("figures.plots.computed_variance", expr=r"$\sigma^2$"))
    ax.set_title(message("figures.plots.variance_title", dtype=dtype_name), fontsize=10)
    ax.legend(fontsize=8)
    return fig


# ---------------------------------------------------------------- notebooks 08–11 (contrast and context)


def ln_vs_bn(layer, batch, tokens=TOKENS) -> Figure:
    """Notebook 08: a token matrix normalized by rows (LayerNorm) and by columns (BatchNorm), side by side.

    Takes the two results of `invariance.row_and_column_norms(matrix)`. The frame marks one group of numbers that
    share a μ and σ: a row on the left, a column on the right.
    """
    layer, batch = check_matrix(layer, "layer"), check_matrix(batch, "batch")
    if layer.shape != batch.shape:
        raise ValueError(f"batch: expected the shape of layer {layer.shape}, got {batch.shape}")
    n, d = layer.shape
    tokens = token_labels(check_tokens(tokens, n))
    use_cjk_font()
    alt = message("figures.plots.ln_bn_alt", layer=_rows(tokens, layer), batch=_rows(tokens, batch))
    panels = [
        (layer, message("figures.plots.by_row", musigma=r"$\mu,\sigma$"), "row"),
        (batch, message("figures.plots.by_column", musigma=r"$\mu,\sigma$"), "column"),
    ]
    fig = new_figure((2.4 * d + 1.5, 0.8 * n + 1.6), alt)
    for ax, (out, title, mode) in zip(fig.subplots(1, 2), panels, strict=True):
        image = ax.imshow(np.clip(out, -2, 2), cmap="RdBu_r", vmin=-2, vmax=2, aspect="auto")  # ±1.7e308 overflow
        _cell_text(ax, image, out, [[number(v) for v in row] for row in out], 10)
        if mode == "row":
            ax.add_patch(Rectangle((-0.5, -0.5), d, 1, fill=False, edgecolor=INK, linewidth=2.5))
        else:
            ax.add_patch(Rectangle((-0.5, -0.5), 1, n, fill=False, edgecolor=INK, linewidth=2.5))
        ax.set_xticks(range(d), [dim_label(j + 1) for j in range(d)])
        ax.set_yticks(range(n), tokens)
        ax.set_title(title, fontsize=10)
    return fig


def _box(ax, x, y, text, color, w=1.6, h=0.5):
    ax.add_patch(
        FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.05", facecolor=color, edgecolor=GUIDE)
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=10, color=INK)


def _arrow(ax, start, end, **kw):
    ax.annotate("", xy=end, xytext=start, arrowprops={"arrowstyle": "-|>", "color": GUIDE, **kw})


_SKIP_ARROW = {
    "arrowstyle": "-|>",
    "color": ACCENT,
    "linewidth": 1.5,
    "connectionstyle": "arc,angleA=180,angleB=180,armA=30,armB=30,rad=0",
}


def add_norm_diagram() -> Figure:
    """Notebook 09: one sub-layer in Post-LN form, LN(x + F(x)), and in Pre-LN form, x + F(LN(x)), as block diagrams."""
    use_cjk_font()
    alt = message("figures.plots.add_norm_alt", next="x_{l+1}")
    fig = new_figure((9, 5.2), alt)
    left, right = fig.subplots(1, 2)
    ln, sub, add = "#fde68a", "#bfdbfe", PALE
    # Post-LN: x → F → ⊕ → LN → out
    inp, out = message("figures.plots.input", x="$x_l$"), message("figures.plots.output", expr="$x_{l+1}$")
    sublayer = message("figures.plots.sublayer", f="$F$")
    _box(left, 0, 0, inp, add)
    _box(left, 0, 1.3, sublayer, sub, h=0.7)
    _box(left, 0, 2.6, message("figures.plots.add", expr="$x_l + F(x_l)$"), add, w=2.2)
    _box(left, 0, 3.7, "LayerNorm", ln)
    _box(left, 0, 4.8, out, add)
    _arrow(left, (0, 0.25), (0, 0.95))
    _arrow(left, (0, 1.65), (0, 2.35))
    _arrow(left, (0, 2.85), (0, 3.45))
    _arrow(left, (0, 3.95), (0, 4.55))
    left.annotate("", xy=(-1.1, 2.6), xytext=(-0.8, 0), arrowprops=_SKIP_ARROW)
    left.text(-1.55, 1.3, message("figures.plots.residual_short"), color=ACCENT_TEXT, ha="center", fontsize=9)
    post = message("figures.plots.post_title", formula=r"$x_{l+1} = \mathrm{LN}(x_l + F(x_l))$")
    left.set_title(post, fontsize=11)
    # Pre-LN: x → LN → F → ⊕ → out
    _box(right, 0, 0, inp, add)
    _box(right, 0, 1.1, "LayerNorm", ln)
    _box(right, 0, 2.3, sublayer, sub, h=0.7)
    _box(right, 0, 3.6, message("figures.plots.add", expr=r"$x_l + F(\mathrm{LN}(x_l))$"), add, w=2.6)
    _box(right, 0, 4.8, out, add)
    _arrow(right, (0, 0.25), (0, 0.85))
    _arrow(right, (0, 1.35), (0, 1.95))
    _arrow(right, (0, 2.65), (0, 3.35))
    _arrow(right, (0, 3.85), (0, 4.55))
    right.annotate("", xy=(-1.3, 3.6), xytext=(-0.8, 0), arrowprops=_SKIP_ARROW)
    right.text(-1.75, 1.8, message("figures.plots.residual_bypass"), color=ACCENT_TEXT, ha="center", fontsize=9)
    pre = message("figures.plots.pre_title", formula=r"$x_{l+1} = x_l + F(\mathrm{LN}(x_l))$")
    right.set_title(pre, fontsize=11)
    for ax in (left, right):
        ax.set_xlim(-2.4, 1.6)
        ax.set_ylim(-0.5, 5.3)
        ax.axis("off")
    return fig


def form_style(key: str, position: int = 0) -> dict:
    """Colour, marker, dash (and draw order) of one series: a residual form's own style, else a spare one."""
    style = dict(FORM_STYLES.get(key) or _EXTRA_STYLES[position % len(_EXTRA_STYLES)])
    return style | outlined(style["color"], style.get("linewidth", 1.5))


def depth_lines(
    series: dict,
    *,
    xlabel: str,
    ylabel: str,
    title: str = "",
    start: int = 1,
    x=None,
    logy: bool = False,
    guides: dict | None = None,
) -> Figure:
    """Notebook 09: one line per residual form (keys of `labels.RESIDUAL_FORMS`) against layer index or depth.

    The points sit at `x` when given (e.g. the depths [3, 6, 12, 24]), else at start, start + 1, …
    `guides` maps a label to values drawn as thin reference lines at the same positions (e.g. a 1/√L law).
    """
    return _depth_figure(series, xlabel, ylabel, title, start, x, logy, guides)[0]


def _depth_figure(series, xlabel, ylabel, title, start, x, logy, guides):
    """`depth_lines`' figure, its axes and its series' lines, in the order of `series` (for `DepthFigure`)."""
    if not isinstance(series, dict) or not series:
        raise ValueError(f"series: expected a non-empty dict of residual form → values, got {series!r:.60}")
    data = {k: np.asarray(v, dtype=np.float64).reshape(-1) for k, v in series.items()}
    guides = {k: np.asarray(v, dtype=np.float64).reshape(-1) for k, v in (guides or {}).items()}
    sizes = {v.size for v in [*data.values(), *guides.values()]}
    if len(sizes) != 1:
        raise ValueError(f"series: expected one length for every series and guide, got lengths {sorted(sizes)}")
    size = sizes.pop()
    positions = np.arange(start, start + size, dtype=np.float64) if x is None else np.asarray(x, dtype=np.float64)
    if positions.shape != (size,) or not np.all(np.isfinite(positions)):
        raise ValueError(f"x: expected {size} finite positions, got {x!r}")
    if logy and any(np.any(v <= 0) for v in [*data.values(), *guides.values()]):
        raise ValueError("series: a logarithmic y axis needs positive values")
    use_cjk_font()
    fig = new_figure((6.4, 3.6), _depth_alt(data, guides, positions, xlabel, ylabel, title, logy))
    ax = fig.subplots()
    lines = [
        ax.plot(positions, v, label=residual_form(k), **form_style(k, i))[0] for i, (k, v) in enumerate(data.items())
    ]
    for i, (label, values) in enumerate(guides.items()):
        ax.plot(positions, values, label=label, gid="guide", **_GUIDE_STYLES[i % len(_GUIDE_STYLES)])
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=None if logy else 0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9)
    if title:
        ax.set_title(title, fontsize=10)
    return fig, ax, lines


def _depth_alt(data: dict, guides: dict, positions, xlabel: str, ylabel: str, title: str, logy: bool) -> str:
    said = message("figures.plots.log_word") in ylabel  # the y label already says the axis is logarithmic
    log_note = message("figures.paren", text=message("figures.training.log_scale")) if logy and not said else ""
    lines = [f"{residual_form(k)} = {vector_text(v)}" for k, v in data.items()]
    lines += [message("figures.plots.guide_line", name=k, values=vector_text(v)) for k, v in guides.items()]
    return message(
        "figures.plots.depth_alt",
        title=title + message("figures.sep.comma") if title else "",
        ylabel=ylabel,
        log=log_note,
        xlabel=xlabel or message("figures.plots.position"),
        positions=vector_text(positions),
        lines=message("figures.sep.clause").join(lines),
    )


class DepthFigure:
    """`depth_lines` of one value per layer, kept (notebook 09's explorer): one x axis for every depth up to
    `max_depth` (the lines grow to the right); `update(series)` moves the lines and the y axis."""

    def __init__(self, series: dict, *, max_depth: int, xlabel: str, ylabel: str):
        self.fig, self._ax, self._lines = _depth_figure(series, xlabel, ylabel, "", 1, None, False, None)
        self._labels = (xlabel, ylabel)
        self._ax.set_xlim(0.5, max_depth + 0.5)
        # only the y axis, the lines and the legend change from frame to frame; the rest stays in the background
        self.moving = [*self._lines, self._ax.yaxis, self._ax.get_legend()]

    def update(self, series: dict) -> list:
        """Show `series` (the same forms, any depth); returns the artists changed."""
        if not isinstance(series, dict) or len(series) != len(self._lines):
            raise ValueError(f"series: expected {len(self._lines)} series, got {series!r:.60}")
        data = {k: np.asarray(v, dtype=np.float64).reshape(-1) for k, v in series.items()}
        for line, values in zip(self._lines, data.values(), strict=True):
            line.set_data(np.arange(1, values.size + 1), values)
        positions = np.arange(1, next(iter(data.values())).size + 1, dtype=np.float64)
        set_alt_text(self.fig, _depth_alt(data, {}, positions, *self._labels, "", False))
        self._ax.set_autoscaley_on(True)
        self._ax.relim()
        self._ax.autoscale_view(scalex=False)
        self._ax.set_ylim(bottom=0)
        self._ax.yaxis.stale = True  # new limits: new ticks and grid lines
        return [*self._lines, self._ax.yaxis]


def attention_panel(weights, tokens, *, entropy, title: str = "") -> Figure:
    """Notebook 10: an attention-weight heatmap (rows: queries, columns: keys) with each row's entropy beside it.

    `entropy` is `transformer.entropy(weights)`, one value per row.
    """
    return _attention_figure(weights, tokens, entropy, title)[0]


def _attention_figure(weights, tokens, entropy, title):
    """`attention_panel`'s figure, its weight cells and its entropy bars (for `AttentionFigure`)."""
    w = check_matrix(weights, "weights")
    n, m = w.shape
    if n != m:
        raise ValueError(f"weights: expected a square (tokens × tokens) matrix, got shape {w.shape}")
    tokens = token_labels(check_tokens(tokens, n))
    h = np.asarray(entropy, dtype=np.float64).reshape(-1)
    if h.size != n or not np.all(np.isfinite(h)):
        raise ValueError(f"entropy: expected {n} finite values (one per row), got {entropy!r}")
    use_cjk_font()
    fig = new_figure((8, 0.7 * n + 1.6), _attention_alt(w, tokens, h, title))
    left, right = fig.subplots(1, 2, width_ratios=[1.3, 1])
    image = left.imshow(w, cmap="Oranges", vmin=0, vmax=1, aspect="auto")
    cells = _cell_text(left, image, w, [[f"{v:.3f}" for v in row] for row in w], 10)
    left.set_xticks(range(m), tokens)
    left.set_yticks(range(n), tokens)
    left.set_xlabel(message("figures.plots.key_axis"))
    left.set_ylabel(message("figures.plots.query_axis"))
    left.set_title(message("figures.plots.weights_title"), fontsize=10)
    bars = right.barh(range(n), h, color=OKABE_ITO["sky_blue"], edgecolor=INK, linewidth=0.6)
    right.axvline(np.log(m), color=ACCENT, linestyle="--", linewidth=1.2, gid="guide")
    texts = [right.text(v, i, f" {v:.3f}", va="center", fontsize=9, color=INK) for i, v in enumerate(h)]
    right.set_yticks(range(n), tokens)
    right.invert_yaxis()
    right.set_xlim(0, max(np.log(m), 1.0) * 1.25)  # one key: ln 1 = 0, the axis still needs a width
    right.set_xlabel(message("figures.plots.entropy_axis"))
    right.set_title(message("figures.plots.entropy_title"), fontsize=10)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig, cells, Bars(right, list(bars), texts)


def _attention_alt(w: np.ndarray, tokens, h: np.ndarray, title: str) -> str:
    n = w.shape[0]
    rows = message("figures.sep.clause").join(
        message("figures.plots.attention_row", token=t, weights=vector_text(r), entropy=number(v))
        for t, r, v in zip(tokens, w, h, strict=True)
    )
    return _titled(title, message("figures.plots.attention_alt", n=n, ln=number(np.log(n)), rows=rows))


class AttentionFigure:
    """`attention_panel` kept (notebook 10's explorer): `update(weights, entropy)` recolours the weights and moves
    the entropy bars."""

    def __init__(self, weights, tokens, *, entropy):
        self.fig, self._cells, entropy_bars = _attention_figure(weights, tokens, entropy, "")
        self._bars, self._labels = entropy_bars.bars, entropy_bars.labels
        self._tokens = token_labels(check_tokens(tokens, len(self._bars)))
        self._weights, right = self._cells.ax, entropy_bars.ax
        self.moving = [*moving_artists(self._weights), *moving_artists(right)]

    def update(self, weights, entropy) -> list:
        """Show `weights` (same shape) and their `entropy`; returns the artists changed."""
        w = check_matrix(weights, "weights")
        set_cells(self._cells, w, [[f"{v:.3f}" for v in row] for row in w], colors=inks_on)
        h = np.asarray(entropy, dtype=np.float64).reshape(-1)
        for bar, label, (i, v) in zip(self._bars, self._labels, enumerate(h), strict=True):
            bar.set_width(v)
            label.set_text(f" {v:.3f}")
            label.set_position((v, i))
        set_alt_text(self.fig, _attention_alt(w, self._tokens, h, ""))
        return [self._weights, *self._bars, *self._labels]
