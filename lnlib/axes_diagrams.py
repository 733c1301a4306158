"""Notebook 08: which numbers share one μ, σ in BatchNorm, LayerNorm (per token and the CNN form), InstanceNorm
and GroupNorm. Each small square is ONE number: one sample, one channel, one position (a token or a pixel)."""

from __future__ import annotations

from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .figure_kit import GUIDE, HIGHLIGHT, INK, PALE, new_figure, use_cjk_font

CHOSEN, OTHER, FRAME = HIGHLIGHT, PALE, GUIDE  # Okabe–Ito orange for the numbers that share one μ, σ
_COUNTS = {  # how many squares of one panel are orange, for the alt text
    "BatchNorm": lambda b, c, p, size: b * p,
    "LayerNorm（Transformer": lambda b, c, p, size: c,
    "LayerNorm（CNN": lambda b, c, p, size: c * p,
    "InstanceNorm": lambda b, c, p, size: p,
    "GroupNorm（只有": lambda b, c, p, size: c * p,
    "GroupNorm（": lambda b, c, p, size: size * p,
}


def _panels(channels: int, groups: int) -> dict:
    size = channels // groups
    return {
        "BatchNorm\n同一通道，跨所有样本和位置": lambda n, c, t: c == 0,
        "LayerNorm（Transformer，逐 token）\n同一样本、同一位置，跨所有通道": lambda n, c, t: n == 0 and t == 0,
        "LayerNorm（CNN，GroupNorm 论文的画法）\n同一样本，跨所有通道和位置": lambda n, c, t: n == 0,
        "InstanceNorm\n同一样本的同一通道，跨位置": lambda n, c, t: n == 0 and c == 0,
        f"GroupNorm（{groups} 组）\n同一样本，一组 {size} 个通道，跨位置": lambda n, c, t: n == 0 and c < size,
        "GroupNorm（只有 1 组）\n= CNN 形式的 LayerNorm，≠ 逐 token 的 LN": lambda n, c, t: n == 0,
    }


def norm_axes_figure(batch: int = 3, channels: int = 6, positions: int = 4, groups: int = 2) -> Figure:
    """Six panels; in each, `batch` sample blocks of channels (rows) × positions (columns); orange = one μ, σ."""
    for name, value in (("batch", batch), ("channels", channels), ("positions", positions), ("groups", groups)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name}: expected a positive integer, got {value!r}")
    if channels % groups or groups < 2:
        raise ValueError(f"groups: expected a divisor ≥ 2 of channels ({channels}), got {groups!r}")
    use_cjk_font()
    panels = _panels(channels, groups)
    size = channels // groups
    described = []
    for title in panels:
        count = next(f for k, f in _COUNTS.items() if title.startswith(k))(batch, channels, positions, size)
        name, rule = title.split("\n")
        described.append(f"{name}：{rule}，{count} 个橙色方格")
    alt = (
        f"六幅示意图，每幅画 {batch} 个样本，每个样本一块 {channels} 行（通道）× {positions} 列（位置）的小方格，"
        f"每个小方格是一个数，橙色方格共用一组 μ、σ（只画出第 1 组）。" + "；".join(described) + "。"
    )
    fig = new_figure((12, 5.8), alt)
    fig.get_layout_engine().set(wspace=0.12, hspace=0.08)
    gap = 1.0
    width = batch * positions + (batch - 1) * gap
    for ax, (title, chosen) in zip(fig.subplots(2, 3).ravel(), panels.items(), strict=True):
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
            ax.text(left + positions / 2 - 0.05, -0.55, f"样本 {n + 1}", ha="center", va="top", fontsize=8, color=INK)
        ax.add_collection(PatchCollection(squares, match_original=True), autolim=False)
        ax.set_xlim(-0.2, width + 0.1)
        ax.set_ylim(-1.6, channels + 0.2)
        ax.set_aspect("equal")
        ax.set_axis_off()
        ax.set_title(title, fontsize=9.5)
    fig.suptitle(
        "每个小方格是一个数：每个样本一块，块里一行是一个通道、一列是一个位置（文本的 token 或图像的像素）。\n"
        "橙色方格共用一组 $\\mu,\\sigma$（只画出第 1 组）",
        fontsize=10,
    )
    return fig
