"""Notebook 08: which numbers share one μ, σ in BatchNorm, LayerNorm (per token and the CNN form), InstanceNorm
and GroupNorm. Each small square is ONE number: one sample, one channel, one position (a token or a pixel)."""

from __future__ import annotations

from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .figure_kit import GUIDE, HIGHLIGHT, INK, PALE, new_figure, use_cjk_font
from .i18n import message

CHOSEN, OTHER, FRAME = HIGHLIGHT, PALE, GUIDE  # Okabe–Ito orange for the numbers that share one μ, σ


def _panels(channels: int, groups: int) -> list:
    """(title, how many squares are orange, which square is orange) of each panel."""
    size = channels // groups
    return [
        (message("figures.axes.batch"), lambda b, c, p: b * p, lambda n, c, t: c == 0),
        (message("figures.axes.layer_token"), lambda b, c, p: c, lambda n, c, t: n == 0 and t == 0),
        (message("figures.axes.layer_cnn"), lambda b, c, p: c * p, lambda n, c, t: n == 0),
        (message("figures.axes.instance"), lambda b, c, p: p, lambda n, c, t: n == 0 and c == 0),
        (
            message("figures.axes.group", groups=groups, count=size),
            lambda b, c, p: size * p,
            lambda n, c, t: n == 0 and c < size,
        ),
        (message("figures.axes.group_one"), lambda b, c, p: c * p, lambda n, c, t: n == 0),
    ]


def norm_axes_figure(batch: int = 3, channels: int = 6, positions: int = 4, groups: int = 2) -> Figure:
    """Six panels; in each, `batch` sample blocks of channels (rows) × positions (columns); orange = one μ, σ."""
    for name, value in (("batch", batch), ("channels", channels), ("positions", positions), ("groups", groups)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name}: expected a positive integer, got {value!r}")
    if channels % groups or groups < 2:
        raise ValueError(f"groups: expected a divisor ≥ 2 of channels ({channels}), got {groups!r}")
    use_cjk_font()
    panels = _panels(channels, groups)
    described = []
    for title, orange, _ in panels:
        name, rule = title.split("\n")
        described.append(
            message("figures.axes.panel_alt", name=name, rule=rule, count=orange(batch, channels, positions))
        )
    panels_alt = message("figures.sep.clause").join(described)
    alt = message("figures.axes.alt", count=batch, channels=channels, positions=positions, panels=panels_alt)
    fig = new_figure((12, 5.8), alt)
    fig.get_layout_engine().set(wspace=0.12, hspace=0.08)
    gap = 1.0
    width = batch * positions + (batch - 1) * gap
    for ax, (title, _, chosen) in zip(fig.subplots(2, 3).ravel(), panels, strict=True):
        squares = []  # one collection per panel: drawn in one call, not one artist per square (about 2× faster)
        for n in range(batch):
            left = n * (positions + gap)
            for c in range(channels):
                for t in range(positions):
                    color = CHOSEN if chosen(n, c, t) else OTHER
                    squares.append(Rectangle((left + t, channels - 1 - c), 0.9, 0.9, color=color))
            ax.add_patch(
                Rectangle(
                    (left - 0.1, -0.1), positions + 0.1, channels + 0.1, fill=False, edgecolor=FRAME, linewidth=0.8
                )
            )
            ax.text(
                left + positions / 2 - 0.05,
                -0.55,
                message("figures.axes.sample", n=n + 1),
                ha="center",
                va="top",
                fontsize=8,
                color=INK,
            )
        ax.add_collection(PatchCollection(squares, match_original=True), autolim=False)
        ax.set_xlim(-0.2, width + 0.1)
        ax.set_ylim(-1.6, channels + 0.2)
        ax.set_aspect("equal")
        ax.set_axis_off()
        ax.set_title(title, fontsize=9.5)
    fig.suptitle(message("figures.axes.suptitle", musigma=r"$\mu,\sigma$"), fontsize=10)
    return fig
