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
from .fonts import FAMILY as BUNDLED_CJK_FONT  # importing registers lnlib's own font with matplotlib
from .stages import LayerNormSteps, mean, std

CJK_FONTS = (
    BUNDLED_CJK_FONT,
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


def _show_figures_in_ipython() -> None:
    """Let a returned Figure display as a PNG in Jupyter without pyplot or `%matplotlib inline`."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.display_formatter.formatters["image/png"].for_type(Figure, to_png)


_show_figures_in_ipython()


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
    stats = f"$\\mu$ = {mu:.4g}，$\\sigma$ = {sigma:.4g}"
    ax.set_title(f"{MODES[mode]}：参与统计的 {chosen.size} 个数  {stats}", fontsize=10)
    return fig


# --- notebooks 04–07: ε, what is kept and lost, γ and β ---------------------------------------------


def epsilon_plot(x, eps: float, *, eps_range=(1e-8, 1.0)) -> Figure:
    """Left: x̂ of one row at this ε (y axis fixed to the ε → 0 limit). Right: the variance of x̂, σ²/(σ²+ε),
    against ε on a log axis, with the current ε marked (notebook 04)."""
    from .stages import normalize, variance

    use_cjk_font()
    values = np.asarray(x, dtype=np.float64)
    xhat = normalize(values, eps=eps)
    limit = float(np.max(np.abs(normalize(values, eps=0.0)))) if float(variance(values)) > 0 else 1.0
    var = float(variance(values))
    fig = Figure(figsize=(8.4, 2.9), layout="constrained")
    left, right = fig.subplots(1, 2)
    _bars(left, xhat, COLORS["normalized"], f"$\\hat{{x}}$（$\\varepsilon$ = {eps:.0e}）",
          ylim=(-1.25 * limit, 1.25 * limit))
    grid = np.logspace(np.log10(eps_range[0]), np.log10(eps_range[1]), 200)
    right.semilogx(grid, var / (var + grid) if var > 0 else np.zeros_like(grid), color="#2563eb")
    right.plot([eps], [var / (var + eps) if var + eps > 0 else 0.0], "o", color="#dc2626")
    right.axhline(1.0, color="#94a3b8", linestyle="--", linewidth=0.8)
    if var > 0 and eps_range[0] <= var <= eps_range[1]:
        right.axvline(var, color="#94a3b8", linestyle=":", linewidth=1)
        right.annotate(r"$\varepsilon=\sigma^2$", (var, 0.05), xytext=(4, 0), textcoords="offset points",
                       fontsize=8)
    right.set_ylim(-0.05, 1.1)
    right.set_xlabel(r"$\varepsilon$（对数刻度）", fontsize=9)
    right.set_title(r"$\hat{x}$ 的方差 $=\sigma^2/(\sigma^2+\varepsilon)$", fontsize=10)
    return fig


def scale_shift_bars(x, scale: float, shift: float, eps: float = 1e-5, *, ylim=None) -> Figure:
    """Left: a·x + b (it moves with the sliders; `ylim` fixes its axis); right: its x̂, which does not move
    (notebook 05)."""
    from .stages import normalize

    use_cjk_font()
    values = np.asarray(x, dtype=np.float64)
    moved = scale * values + shift
    fig = Figure(figsize=(7.2, 2.9), layout="constrained")
    left, right = fig.subplots(1, 2)
    _bars(left, moved, COLORS["x"], f"$a\\cdot x+b$（$a$ = {scale:.3g}，$b$ = {shift:.3g}）", ylim=ylim)
    _bars(right, normalize(moved, eps=eps), COLORS["normalized"], r"归一化 $\hat{x}$", ylim=(-2, 2))
    return fig


def value_heatmap(matrix, tokens=TOKENS, *, title: str = "", limit: float | None = None) -> Figure:
    """A (tokens × d) matrix as a colored grid with its numbers: blue below 0, red above (notebook 06)."""
    use_cjk_font()
    values = np.asarray(matrix, dtype=np.float64)
    n, d = values.shape
    if limit is None:
        limit = max(float(np.max(np.abs(values))), 1e-12)
    fig = Figure(figsize=(1.2 * d + 1.8, 0.7 * n + 1.3), layout="constrained")
    ax = fig.subplots()
    image = ax.imshow(values, cmap="RdBu_r", vmin=-limit, vmax=limit, aspect="auto")
    for i in range(n):
        for j in range(d):
            ax.text(j, i, number(values[i, j]), ha="center", va="center", fontsize=11,
                    color="white" if abs(values[i, j]) > 0.6 * limit else "#111827")
    ax.set_xticks(range(d), [f"第{j + 1}维" for j in range(d)])
    ax.set_yticks(range(n), list(tokens))
    fig.colorbar(image, ax=ax, shrink=0.8)
    if title:
        ax.set_title(title, fontsize=10)
    return fig


def jacobian_heatmap(jac, *, title: str = "") -> Figure:
    """A d × d Jacobian ∂y_i/∂x_j as a diverging heatmap with the numbers written in (notebook 12)."""
    use_cjk_font()
    values = np.asarray(jac, dtype=np.float64)
    if values.ndim != 2 or values.shape[0] != values.shape[1]:
        raise ValueError(f"jac: expected a square matrix, got shape {values.shape}")
    d = values.shape[0]
    limit = float(np.max(np.abs(values))) or 1.0
    fig = Figure(figsize=(0.9 * d + 2.2, 0.8 * d + 1.2), layout="constrained")
    ax = fig.subplots()
    image = ax.imshow(values, cmap="RdBu_r", vmin=-limit, vmax=limit)
    for i in range(d):
        for j in range(d):
            ax.text(j, i, number(values[i, j]), ha="center", va="center", fontsize=10,
                    color="white" if abs(values[i, j]) > 0.6 * limit else "#111827")
    ax.set_xticks(range(d), [f"$x_{{{j + 1}}}$" for j in range(d)])
    ax.set_yticks(range(d), [f"$y_{{{i + 1}}}$" for i in range(d)])
    ax.set_xlabel(r"对输入 $x_j$ 求导")
    ax.set_ylabel(r"输出 $y_i$")
    fig.colorbar(image, ax=ax, shrink=0.8)
    ax.set_title(title or r"雅可比矩阵 $\partial y_i / \partial x_j$", fontsize=10)
    return fig


def variance_error_plot(offsets, one_pass, two_pass, true_variance: float, *, dtype_name: str = "float32") -> Figure:
    """One-pass E[x²] − E[x]² vs two-pass variance as the offset of a row grows (notebook 13), log-x axis."""
    use_cjk_font()
    offsets = np.asarray(offsets, dtype=np.float64)
    fig = Figure(figsize=(6.4, 3.2), layout="constrained")
    ax = fig.subplots()
    ax.plot(offsets, np.asarray(one_pass, dtype=np.float64), "o-", color="#ef4444",
            label=r"一遍法 $E[x^2]-E[x]^2$")
    ax.plot(offsets, np.asarray(two_pass, dtype=np.float64), "s--", color="#10b981", label=r"两遍法 $E[(x-\mu)^2]$")
    ax.axhline(true_variance, color="#334155", linewidth=0.8, linestyle=":", label=f"真实值 {number(true_variance)}")
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_xlabel(r"偏移量 $c$（输入是 $c + [0, 1, 2, 3]$）")
    ax.set_ylabel(r"算出的方差 $\sigma^2$")
    ax.set_title(f"{dtype_name} 下两种方差算法的结果", fontsize=10)
    ax.legend(fontsize=8)
    return fig


# ---------------------------------------------------------------- notebooks 08–11 (contrast and context)


def ln_vs_bn(matrix, tokens=TOKENS) -> Figure:
    """Notebook 08: the same token matrix normalized by rows (LayerNorm) and by columns (BatchNorm), side by side.

    The frame marks one group of numbers that share a μ and σ: a row on the left, a column on the right.
    """
    from .norms import batch_norm, layer_norm

    use_cjk_font()
    values = np.asarray(matrix, dtype=np.float64)
    n, d = values.shape
    panels = [(layer_norm(values, eps=0.0), "按行归一化（LayerNorm）：每个 token 一组 $\\mu,\\sigma$", "row"),
              (batch_norm(values, eps=0.0), "按列归一化（BatchNorm）：每一维一组 $\\mu,\\sigma$", "column")]
    fig = Figure(figsize=(2.4 * d + 1.5, 0.8 * n + 1.6), layout="constrained")
    for ax, (out, title, mode) in zip(fig.subplots(1, 2), panels, strict=True):
        ax.imshow(out, cmap="RdBu_r", vmin=-2, vmax=2, aspect="auto")
        for i in range(n):
            for j in range(d):
                ax.text(j, i, number(out[i, j]), ha="center", va="center", fontsize=10)
        if mode == "row":
            ax.add_patch(Rectangle((-0.5, -0.5), d, 1, fill=False, edgecolor="#dc2626", linewidth=2.5))
        else:
            ax.add_patch(Rectangle((-0.5, -0.5), 1, n, fill=False, edgecolor="#dc2626", linewidth=2.5))
        ax.set_xticks(range(d), [f"第{j + 1}维" for j in range(d)])
        ax.set_yticks(range(n), list(tokens))
        ax.set_title(title, fontsize=10)
    return fig


def norm_axes_diagram(channels: int = 6, batch: int = 4, groups: int = 2) -> Figure:
    """Notebook 08: BatchNorm, LayerNorm, InstanceNorm and GroupNorm as choices of axes (after Wu & He 2018, Fig. 2).

    Each cell is one sample × one channel (holding its H×W pixels or T positions); the shaded cells share one μ, σ.
    """
    use_cjk_font()
    size = channels // groups
    masks = {
        "BatchNorm：同一通道，跨整个批量": lambda n, c: c == 0,
        "LayerNorm：同一样本，跨所有通道": lambda n, c: n == 0,
        "InstanceNorm：同一样本的同一通道": lambda n, c: n == 0 and c == 0,
        f"GroupNorm：同一样本，一组 {size} 个通道": lambda n, c: n == 0 and c < size,
    }
    fig = Figure(figsize=(12, 3.3), layout="constrained")
    for ax, (title, chosen) in zip(fig.subplots(1, 4), masks.items(), strict=True):
        for n in range(batch):
            for c in range(channels):
                color = "#f59e0b" if chosen(n, c) else "#e2e8f0"
                ax.add_patch(Rectangle((n, channels - 1 - c), 0.92, 0.92, color=color))
        ax.set_xlim(-0.2, batch + 0.1)
        ax.set_ylim(-0.2, channels + 0.1)
        ax.set_aspect("equal")
        ax.set_xticks([i + 0.46 for i in range(batch)], [f"样本{i + 1}" for i in range(batch)], fontsize=8)
        ax.set_yticks([channels - 1 - c + 0.46 for c in range(channels)], [f"通道{c + 1}" for c in range(channels)],
                      fontsize=8)
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
        ax.set_title(title, fontsize=9.5)
    fig.suptitle("每个格子 = 一个样本的一个通道（格子里还有 H×W 个像素或 T 个位置）；橙色格子共用一组 $\\mu,\\sigma$",
                 fontsize=10)
    return fig


def _box(ax, x, y, text, color, w=1.6, h=0.5):
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.05", facecolor=color,
                                edgecolor="#334155"))
    ax.text(x, y, text, ha="center", va="center", fontsize=10)


def _arrow(ax, start, end, **kw):
    ax.annotate("", xy=end, xytext=start, arrowprops={"arrowstyle": "-|>", "color": "#334155", **kw})


_SKIP_ARROW = {"arrowstyle": "-|>", "color": "#dc2626",
               "connectionstyle": "arc,angleA=180,angleB=180,armA=30,armB=30,rad=0"}


def add_norm_diagram() -> Figure:
    """Notebook 09: one sub-layer in Post-LN form, LN(x + F(x)), and in Pre-LN form, x + F(LN(x)), as block diagrams."""
    use_cjk_font()
    fig = Figure(figsize=(9, 5.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    ln, sub, add = "#fde68a", "#bfdbfe", "#e2e8f0"
    # Post-LN: x → F → ⊕ → LN → out
    _box(left, 0, 0, "输入 $x_l$", add)
    _box(left, 0, 1.3, "子层 $F$\n(注意力或前馈)", sub, h=0.7)
    _box(left, 0, 2.6, "相加 $x_l + F(x_l)$", add, w=2.2)
    _box(left, 0, 3.7, "LayerNorm", ln)
    _box(left, 0, 4.8, "输出 $x_{l+1}$", add)
    _arrow(left, (0, 0.25), (0, 0.95))
    _arrow(left, (0, 1.65), (0, 2.35))
    _arrow(left, (0, 2.85), (0, 3.45))
    _arrow(left, (0, 3.95), (0, 4.55))
    left.annotate("", xy=(-1.1, 2.6), xytext=(-0.8, 0), arrowprops=_SKIP_ARROW)
    left.text(-1.55, 1.3, "残差\n连接", color="#dc2626", ha="center", fontsize=9)
    left.set_title("Post-LN（原始 Transformer）\n$x_{l+1} = \\mathrm{LN}(x_l + F(x_l))$", fontsize=11)
    # Pre-LN: x → LN → F → ⊕ → out
    _box(right, 0, 0, "输入 $x_l$", add)
    _box(right, 0, 1.1, "LayerNorm", ln)
    _box(right, 0, 2.3, "子层 $F$\n(注意力或前馈)", sub, h=0.7)
    _box(right, 0, 3.6, "相加 $x_l + F(\\mathrm{LN}(x_l))$", add, w=2.6)
    _box(right, 0, 4.8, "输出 $x_{l+1}$", add)
    _arrow(right, (0, 0.25), (0, 0.85))
    _arrow(right, (0, 1.35), (0, 1.95))
    _arrow(right, (0, 2.65), (0, 3.35))
    _arrow(right, (0, 3.85), (0, 4.55))
    right.annotate("", xy=(-1.3, 3.6), xytext=(-0.8, 0), arrowprops=_SKIP_ARROW)
    right.text(-1.75, 1.8, "残差连接\n（不经过 LN）", color="#dc2626", ha="center", fontsize=9)
    right.set_title("Pre-LN（GPT-2 等）\n$x_{l+1} = x_l + F(\\mathrm{LN}(x_l))$", fontsize=11)
    for ax in (left, right):
        ax.set_xlim(-2.4, 1.6)
        ax.set_ylim(-0.5, 5.3)
        ax.axis("off")
    return fig


NORM_NAMES = {"post": "Post-LN", "pre": "Pre-LN", "none": "无归一化", "deepnorm": "DeepNorm"}
NORM_COLORS = {"post": "#dc2626", "pre": "#2563eb", "none": "#64748b", "deepnorm": "#059669"}


def depth_lines(series: dict, *, xlabel: str, ylabel: str, title: str = "", start: int = 1,
                logy: bool = False) -> Figure:
    """Notebook 09: one line per residual form (keys of NORM_NAMES) against layer index or depth."""
    use_cjk_font()
    fig = Figure(figsize=(6.4, 3.6), layout="constrained")
    ax = fig.subplots()
    for key, values in series.items():
        values = np.asarray(values, dtype=np.float64)
        ax.plot(np.arange(start, start + values.size), values, marker="o", markersize=4,
                color=NORM_COLORS.get(key), label=NORM_NAMES.get(key, key))
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=None if logy else 0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9)
    if title:
        ax.set_title(title, fontsize=10)
    return fig


def attention_panel(weights, tokens, *, title: str = "") -> Figure:
    """Notebook 10: an attention-weight heatmap (rows: queries, columns: keys) with each row's entropy beside it."""
    from .transformer import entropy

    use_cjk_font()
    w = np.asarray(weights, dtype=np.float64)
    n = w.shape[0]
    h = entropy(w)
    fig = Figure(figsize=(8, 0.7 * n + 1.6), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=[1.3, 1])
    left.imshow(w, cmap="Oranges", vmin=0, vmax=1, aspect="auto")
    for i in range(n):
        for j in range(w.shape[1]):
            left.text(j, i, f"{w[i, j]:.3f}", ha="center", va="center", fontsize=10,
                      color="white" if w[i, j] > 0.6 else "#111827")
    left.set_xticks(range(w.shape[1]), list(tokens))
    left.set_yticks(range(n), list(tokens))
    left.set_xlabel("被关注的 token（key）")
    left.set_ylabel("发出查询的 token（query）")
    left.set_title("注意力权重（每行和为 1）", fontsize=10)
    right.barh(range(n), h, color="#60a5fa")
    right.axvline(np.log(w.shape[1]), color="#ef4444", linestyle="--", linewidth=1)
    for i, v in enumerate(h):
        right.text(v, i, f" {v:.3f}", va="center", fontsize=9)
    right.set_yticks(range(n), list(tokens))
    right.invert_yaxis()
    right.set_xlim(0, np.log(w.shape[1]) * 1.25)
    right.set_xlabel("熵（nats）；虚线 = 均匀分布的 ln n")
    right.set_title("每行的熵：越小越「尖」", fontsize=10)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig
