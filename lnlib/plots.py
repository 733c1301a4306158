"""matplotlib figures with Chinese labels. Every function returns a `Figure` (not registered with pyplot,
so explorers can redraw thousands of times without leaking figures); a notebook shows it as the cell's value.
"""

from __future__ import annotations

import io

import matplotlib
import numpy as np
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .data import TOKENS
from .stages import LayerNormSteps, mean, std

CJK_FONTS = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "PingFang SC",
    "Microsoft YaHei",
    "WenQuanYi Zen Hei",
    "Noto Sans CJK JP",
)
_CJK_FILE_HINTS = ("notosanscjk", "sourcehansans", "pingfang", "msyh", "wqy", "wenquanyi")

COLORS = {"x": "#94a3b8", "centered": "#60a5fa", "normalized": "#f59e0b", "output": "#10b981"}


def use_cjk_font() -> str | None:
    """Make matplotlib draw Chinese: put the first installed CJK font in front of the sans-serif list.

    Only installed names are added, so matplotlib never logs "findfont" lines. Fonts installed after
    matplotlib built its cache are found too. Returns the font's name, or None if no CJK font exists.
    """
    name = _first_installed()
    if name is None:
        for path in font_manager.findSystemFonts():
            if any(h in path.lower().replace("-", "").replace("_", "") for h in _CJK_FILE_HINTS):
                font_manager.fontManager.addfont(path)
        name = _first_installed()
    if name is None:
        return None
    sans = [f for f in matplotlib.rcParams["font.sans-serif"] if f != name]
    matplotlib.rcParams["font.sans-serif"] = [name, *sans]
    matplotlib.rcParams["font.family"] = "sans-serif"
    matplotlib.rcParams["axes.unicode_minus"] = False  # CJK fonts lack U+2212; use the ASCII hyphen
    return name


def _first_installed() -> str | None:
    installed = {f.name for f in font_manager.fontManager.ttflist}
    return next((n for n in CJK_FONTS if n in installed), None)


def to_png(fig: Figure, dpi: int = 100) -> bytes:
    """The figure as PNG bytes (for ipywidgets.Image)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def number(v: float) -> str:
    """Up to three decimals, trailing zeros dropped: 8, -1.342, 0.447."""
    text = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _bars(ax, values, color, title, *, ylim=None, hline=None):
    values = np.asarray(values, dtype=np.float64)
    positions = np.arange(1, values.size + 1)
    ax.bar(positions, values, color=color)
    ax.axhline(0, color="#334155", linewidth=0.8)
    if hline is not None:
        ax.axhline(hline, color="#ef4444", linestyle="--", linewidth=1)
    for p, v in zip(positions, values, strict=True):
        ax.annotate(number(v), (p, v), ha="center", va="bottom" if v >= 0 else "top", fontsize=8,
                    xytext=(0, 2 if v >= 0 else -2), textcoords="offset points")
    ax.set_xticks(positions, [f"第{p}维" for p in positions], fontsize=8)
    ax.set_title(title, fontsize=10)
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.margins(y=0.2)


def stage_bars(steps: LayerNormSteps, *, affine: bool = False) -> Figure:
    """Bar charts of one vector at each stage: x (with μ dashed), x − μ, x̂ (and y when `affine`)."""
    use_cjk_font()
    x = np.asarray(steps.x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"steps: stage_bars draws one vector; got x of shape {x.shape}")
    panels = [
        (steps.x, COLORS["x"], f"输入 $x$（虚线：$\\mu$ = {float(steps.mean):.4g}）", float(steps.mean)),
        (steps.centered, COLORS["centered"], r"中心化 $x-\mu$", None),
        (steps.normalized, COLORS["normalized"], f"归一化 $\\hat{{x}}$（÷ {float(steps.std_eps):.4g}）", None),
    ]
    if affine:
        panels.append((steps.output, COLORS["output"], r"输出 $y=\gamma\odot\hat{x}+\beta$", None))
    fig = Figure(figsize=(3.0 * len(panels), 2.8), layout="constrained")
    axes = fig.subplots(1, len(panels))
    for ax, (values, color, title, hline) in zip(axes, panels, strict=True):
        _bars(ax, values, color, title, hline=hline)
    return fig


def token_bars(matrix, tokens=TOKENS, *, sharey: bool = True, title: str = "") -> Figure:
    """One bar chart per token (row), on a shared y axis so differences in scale are visible."""
    use_cjk_font()
    values = np.asarray(matrix, dtype=np.float64)
    fig = Figure(figsize=(3.0 * len(tokens), 2.8), layout="constrained")
    axes = fig.subplots(1, len(tokens), sharey=sharey)
    for ax, token, row in zip(np.atleast_1d(axes), tokens, values, strict=True):
        _bars(ax, row, COLORS["x"], token)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


MODES = {"row": "按行（LayerNorm）", "column": "按列", "all": "全表"}


def highlight_heatmap(matrix, mode: str = "row", index: int = 0, tokens=TOKENS) -> Figure:
    """The matrix as a grid of numbers; the cells that feed one statistic are framed and the rest dimmed.

    mode "row": the cells of row `index` (one token's μ, σ — what LayerNorm uses);
    "column": the cells of column `index` (one dimension across tokens); "all": every cell.
    """
    if mode not in MODES:
        raise ValueError(f"mode: expected one of {sorted(MODES)}, got {mode!r}")
    use_cjk_font()
    values = np.asarray(matrix, dtype=np.float64)
    n, d = values.shape
    limit = n if mode == "row" else d
    if mode != "all" and not 0 <= index < limit:
        raise ValueError(f"index: expected 0 … {limit - 1} for mode {mode!r}, got {index}")
    mask = np.zeros_like(values, dtype=bool)
    if mode == "row":
        mask[index, :] = True
    elif mode == "column":
        mask[:, index] = True
    else:
        mask[:, :] = True
    chosen = values[mask]
    mu, sigma = float(mean(chosen)), float(std(chosen))
    fig = Figure(figsize=(1.2 * d + 1.5, 0.7 * n + 1.3), layout="constrained")
    ax = fig.subplots()
    ax.imshow(np.where(mask, 1.0, 0.15), cmap="YlOrBr", vmin=0, vmax=1.6, aspect="auto")
    for i in range(n):
        for j in range(d):
            ax.text(j, i, f"{values[i, j]:g}", ha="center", va="center",
                    color="#111827" if mask[i, j] else "#9ca3af", fontsize=11)
    rows, cols = np.nonzero(mask)
    ax.add_patch(Rectangle((cols.min() - 0.5, rows.min() - 0.5), cols.max() - cols.min() + 1,
                           rows.max() - rows.min() + 1, fill=False, edgecolor="#dc2626", linewidth=2.5))
    ax.set_xticks(range(d), [f"第{j + 1}维" for j in range(d)])
    ax.set_yticks(range(n), list(tokens))
    ax.set_title(f"{MODES[mode]}：参与统计的 {chosen.size} 个数  $\\mu$ = {mu:.4g}，$\\sigma$ = {sigma:.4g}", fontsize=10)
    return fig
