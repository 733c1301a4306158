"""ipywidgets explorers: thin views that call lnlib's tables and plots on every change.

Every callback is a named method, so tests can set a control's `.value` and read the rendered HTML without a
browser. Bad text shows a short Chinese message inside the widget and keeps the last valid state.
"""

from __future__ import annotations

import html
import re

import ipywidgets as widgets
import numpy as np

from . import plots, tables
from .data import TOKEN_MATRIX, TOKENS
from .invariance import batch_dependence
from .norms import layer_norm
from .stages import layer_norm_steps
from .transformer import attention_at_scale, entropy, ffn_gradient_norms

MAX_VALUES = 64
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # ASCII digits only
# Full-width ＡＳＣＩＩ forms (２，４．５) and the ideographic space become ASCII; nothing else is "normalized", so
# look-alikes such as ² (superscript), ½ or other scripts' digits are rejected instead of silently misread.
_FULLWIDTH = {0xFF01 + i: 0x21 + i for i in range(0x5E)} | {0x3000: " ", ord("、"): ",", ord("−"): "-"}
_PAIRS = {"[": "]", "(": ")", "{": "}"}


def parse_vector(text: str) -> np.ndarray:
    """Read a typed vector such as "2, 4, 6, 8", "2 4 6 8", "2，4，6，8" or "[２, ４]" into a float64 array.

    Raises ValueError with a short Chinese message for anything else. Never evaluates the text.
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected a str, got {type(text).__name__}")
    s = text.translate(_FULLWIDTH).strip()
    if s[:1] in _PAIRS:
        if not s.endswith(_PAIRS[s[0]]):
            raise ValueError("括号不配对：开头和结尾的括号要成对出现。")
        s = s[1:-1].strip()
    if any(c in s for c in "[](){}"):
        raise ValueError("括号不配对，或者多了括号：只需要输入用逗号或空格隔开的数字。")
    s = re.sub(r"\s*,\s*", ",", s.replace(";", ","))
    if ",," in s:
        raise ValueError("两个逗号之间缺少数字。")
    s = s.removesuffix(",")  # one trailing comma while typing is fine
    if not s:
        raise ValueError("请输入至少一个数，例如 2, 4, 6, 8。")
    if s.startswith(","):
        raise ValueError("开头多了一个逗号。")
    parts = [p for p in re.split(r"[,\s]+", s) if p]
    for p in parts:
        if p.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise ValueError("不接受 nan 或 inf：请输入普通的有限数字。")
        if not _NUMBER.fullmatch(p):
            raise ValueError(f"“{p[:20]}” 不是数字：请只输入数字，用逗号或空格隔开。")
    if len(parts) > MAX_VALUES:
        raise ValueError(f"最多输入 {MAX_VALUES} 个数，你输入了 {len(parts)} 个。")
    values = np.array([float(p) for p in parts])
    if not np.all(np.isfinite(values)):
        raise ValueError("数字太大，超出了浮点数能表示的范围。")
    return values


def error_html(message: str) -> str:
    return f'<span style="color:#b91c1c">⚠ {html.escape(message)}</span>'


class Explorer:
    """Base: a VBox in `self.box`; displaying the explorer displays the box."""

    box: widgets.Box

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)


class TypedVectorExplorer(Explorer):
    """Base for explorers with a text box for a vector: `self.text`, `self.message`, `self.values`.

    Bad text shows the Chinese message and keeps the last valid `values` (and so the last table and plot);
    the message stays until the text is valid again, whatever other control moves meanwhile.
    """

    def _init_text(self, text: str) -> None:
        self.text = widgets.Text(value=text, description="向量 x：", continuous_update=True,
                                 layout=widgets.Layout(width="420px"))
        self.message = widgets.HTML()
        self.values = self.read(text)
        self.text.observe(self.on_text, names="value")

    max_magnitude = 1e100  # plots need headroom: axis limits and curves multiply the values

    def read(self, text: str) -> np.ndarray:
        """parse_vector plus the explorer's own limit; raises ValueError with a Chinese message."""
        values = parse_vector(text)
        if np.max(np.abs(values)) > self.max_magnitude:
            raise ValueError(f"数字太大：小工具只接受绝对值不超过 {self.max_magnitude:.0e} 的数。")
        return values

    def on_text(self, change) -> None:
        try:
            self.values = self.read(change["new"])
        except ValueError as err:
            self.message.value = error_html(str(err))
            return
        self.message.value = ""
        self.render()

    def render(self) -> None:
        raise NotImplementedError


class VectorExplorer(TypedVectorExplorer):
    """Type a vector, move ε: the stage table and the stage plot follow (notebook 03)."""

    def __init__(self, text: str = "2, 4, 6, 8", eps: float = 1e-5):
        self._init_text(text)
        self.eps = widgets.FloatLogSlider(value=eps, base=10, min=-8, max=0, step=0.5, description="ε：",
                                          readout_format=".0e", continuous_update=True)
        self.table = widgets.HTML()
        self.plot = widgets.Image(format="png")
        self.eps.observe(self.on_eps, names="value")
        self.box = widgets.VBox([self.text, self.eps, self.message, self.table, self.plot])
        self.render()

    def on_eps(self, change) -> None:
        self.render()

    def render(self) -> None:
        steps = layer_norm_steps(self.values, eps=self.eps.value)
        self.table.value = tables.stage_table(steps).to_html()
        self.plot.value = plots.to_png(plots.stage_bars(steps))


class AxisExplorer(Explorer):
    """Choose 行 / 列 / 全表 and which row or column: see which cells feed one μ and σ (notebook 02)."""

    def __init__(self, matrix=TOKEN_MATRIX, tokens=TOKENS):
        self.matrix = np.asarray(matrix, dtype=np.float64)
        self.tokens = tuple(tokens)
        self.mode = widgets.ToggleButtons(options=[("按行", "row"), ("按列", "column"), ("全表", "all")],
                                          value="row", description="统计方向：")
        self.index = widgets.ToggleButtons(description="哪一个：")  # 3–4 choices: one click, no menu
        self.plot = widgets.Image(format="png")
        self.summary = widgets.HTML()
        self._switching = False
        self._set_index_options()
        self.mode.observe(self.on_mode, names="value")
        self.index.observe(self.on_index, names="value")
        self.box = widgets.VBox([self.mode, self.index, self.summary, self.plot])
        self.render()

    def _set_index_options(self) -> None:
        if self.mode.value == "row":
            options = [(t, i) for i, t in enumerate(self.tokens)]
        elif self.mode.value == "column":
            options = [(label, j) for j, label in enumerate(tables.dim_labels(self.matrix.shape[1]))]
        else:
            options = [("整张表", 0)]
        self.index.options = options
        self.index.value = options[-1][1] if self.mode.value == "row" else 0
        self.index.disabled = self.mode.value == "all"

    def on_mode(self, change) -> None:
        self._switching = True  # new options fire on_index; render once, after both are set
        try:
            self._set_index_options()
        finally:
            self._switching = False
        self.render()

    def on_index(self, change) -> None:
        if not self._switching:
            self.render()

    def render(self) -> None:
        self.summary.value = tables.axis_stats_table(self.matrix, self.mode.value, self.tokens).to_html()
        self.plot.value = plots.to_png(plots.highlight_heatmap(self.matrix, self.mode.value, self.index.value,
                                                               self.tokens))


# --- notebooks 04–07: ε, what is kept and lost, γ and β ---------------------------------------------


class EpsilonExplorer(TypedVectorExplorer):
    """Move ε on a log scale (1e-8 … 1) over a nearly constant row and watch x̂ shrink (notebook 04)."""

    def __init__(self, text: str = "3, 3.002, 2.998, 3", eps: float = 1e-5):
        self._init_text(text)
        self.eps = widgets.FloatLogSlider(value=eps, base=10, min=-8, max=0, step=0.25, description="ε：",
                                          readout_format=".0e", continuous_update=True,
                                          layout=widgets.Layout(width="420px"))
        self.summary = widgets.HTML()
        self.table = widgets.HTML()
        self.plot = widgets.Image(format="png")
        self.eps.observe(self.on_eps, names="value")
        self.box = widgets.VBox([self.text, self.eps, self.message, self.summary, self.table, self.plot])
        self.render()

    def on_eps(self, change) -> None:
        self.render()

    def render(self) -> None:
        eps = float(self.eps.value)
        self.summary.value = tables.epsilon_summary(self.values, eps).to_html()
        self.table.value = tables.stage_table(layer_norm_steps(self.values, eps=eps)).to_html()
        self.plot.value = plots.to_png(plots.epsilon_plot(self.values, eps))


class ScaleShiftExplorer(TypedVectorExplorer):
    """Scale a row by a and shift it by b: a·x + b moves, its x̂ stays the same (notebook 05)."""

    def __init__(self, text: str = "2, 4, 6, 8", scale: float = 1.0, shift: float = 0.0, eps: float = 1e-5):
        self._init_text(text)
        self.scale = widgets.FloatLogSlider(value=scale, base=10, min=-1, max=1, step=0.05,
                                            description="缩放 a：",
                                            readout_format=".3g", continuous_update=True,
                                            layout=widgets.Layout(width="420px"))
        self.shift = widgets.FloatSlider(value=shift, min=-50, max=50, step=1, description="平移 b：",
                                         continuous_update=True, layout=widgets.Layout(width="420px"))
        self.eps = eps
        self.table = widgets.HTML()
        self.plot = widgets.Image(format="png")
        self.scale.observe(self.on_slider, names="value")
        self.shift.observe(self.on_slider, names="value")
        self.box = widgets.VBox([self.text, self.scale, self.shift, self.message, self.table, self.plot])
        self.render()

    def on_slider(self, change) -> None:
        self.render()

    def _ylim(self) -> tuple[float, float]:
        """A fixed axis for a·x + b that fits every slider position, so the bars visibly move."""
        top = 10.0 ** self.scale.max
        reach = top * float(np.max(np.abs(self.values))) + max(abs(self.shift.min), abs(self.shift.max))
        return -1.05 * reach, 1.05 * reach

    def render(self) -> None:
        a, b = float(self.scale.value), float(self.shift.value)
        self.table.value = tables.scale_shift_table(self.values, a, b, eps=self.eps).to_html()
        fig = plots.scale_shift_bars(self.values, a, b, eps=self.eps, ylim=self._ylim())
        self.plot.value = plots.to_png(fig)


class GammaBetaExplorer(Explorer):
    """Four γ and four β sliders applied to the whole token matrix: the table and the heatmap of y follow
    (notebook 06). γ and β are per dimension and shared by every token."""

    def __init__(self, matrix=TOKEN_MATRIX, tokens=TOKENS, eps: float = 1e-5):
        self.matrix = np.asarray(matrix, dtype=np.float64)
        self.tokens = tuple(tokens)
        self.eps = eps
        d = self.matrix.shape[1]
        labels = tables.dim_labels(d)
        self.gammas = [widgets.FloatSlider(value=1.0, min=-3, max=3, step=0.1, description=f"γ {label}：",
                                           continuous_update=True) for label in labels]
        self.betas = [widgets.FloatSlider(value=0.0, min=-3, max=3, step=0.1, description=f"β {label}：",
                                          continuous_update=True) for label in labels]
        for slider in self.gammas + self.betas:
            slider.style.description_width = "80px"
            slider.observe(self.on_slider, names="value")
        self.table = widgets.HTML()
        self.stats = widgets.HTML()
        self.plot = widgets.Image(format="png")
        controls = widgets.HBox([widgets.VBox(self.gammas), widgets.VBox(self.betas)])
        self.box = widgets.VBox([controls, self.table, self.stats, self.plot])
        self.render()

    @property
    def gamma(self) -> np.ndarray:
        return np.array([s.value for s in self.gammas], dtype=np.float64)

    @property
    def beta(self) -> np.ndarray:
        return np.array([s.value for s in self.betas], dtype=np.float64)

    def on_slider(self, change) -> None:
        self.render()

    def render(self) -> None:
        y = layer_norm_steps(self.matrix, self.gamma, self.beta, eps=self.eps).output
        caption = "输出 y = γ ⊙ x̂ + β（每个 token 共用同一组 γ、β）"
        self.table.value = tables.token_table(y, self.tokens, caption=caption).to_html()
        self.stats.value = tables.row_stats_table(y, self.tokens, caption="每一行 y 的均值和方差").to_html()
        fig = plots.value_heatmap(y, self.tokens, title=r"输出 $y=\gamma\odot\hat{x}+\beta$", limit=7.5)
        self.plot.value = plots.to_png(fig)


class VarianceExplorer(Explorer):
    """Slide the offset c of c + [0, 1, 2, 3] and pick a dtype: one-pass vs two-pass σ² and x̂ (notebook 13)."""

    def __init__(self, exponent: int = 4, dtype: str = "float32"):
        self.exponent = widgets.IntSlider(value=exponent, min=0, max=8, step=1, description="偏移 10^k，k：",
                                          continuous_update=True, style={"description_width": "initial"})
        self.dtype = widgets.ToggleButtons(options=["float16", "float32", "float64"], value=dtype,
                                           description="精度：")
        self.table = widgets.HTML()
        self.exponent.observe(self.on_exponent, names="value")
        self.dtype.observe(self.on_dtype, names="value")
        self.box = widgets.VBox([self.exponent, self.dtype, self.table])
        self.render()

    def on_exponent(self, change) -> None:
        self.render()

    def on_dtype(self, change) -> None:
        self.render()

    def render(self) -> None:
        self.table.value = tables.variance_table(10.0 ** self.exponent.value, self.dtype.value).to_html()


# ---------------------------------------------------------------- notebooks 08–10


class BatchExplorer(Explorer):
    """Notebook 08: scale the other sentence in the batch; our sentence's BatchNorm output moves, LayerNorm's stays."""

    def __init__(self, scale: float = 1.0, matrix=TOKEN_MATRIX, tokens=TOKENS):
        self.matrix, self.tokens = np.asarray(matrix, dtype=np.float64), tuple(tokens)
        self.scale = widgets.FloatSlider(value=scale, min=0.0, max=20.0, step=0.5, description="另一句 ×",
                                         continuous_update=True)
        self.bn = widgets.HTML()
        self.ln = widgets.HTML()
        self.scale.observe(self.on_scale, names="value")
        self.box = widgets.VBox([self.scale, self.bn, self.ln])
        self.render()

    def on_scale(self, change) -> None:
        self.render()

    def render(self) -> None:
        bn, ln = batch_dependence(self.scale.value, self.matrix)
        k = plots.number(self.scale.value)
        bn_caption = f"BatchNorm：我们这句的输出（另一句 × {k}）"
        ln_caption = "LayerNorm：我们这句的输出（与另一句无关）"
        self.bn.value = tables.token_table(bn, self.tokens, caption=bn_caption).to_html()
        self.ln.value = tables.token_table(ln, self.tokens, caption=ln_caption).to_html()


class DepthExplorer(Explorer):
    """Notebook 09: choose the depth; the per-layer FFN gradient norms of Post-LN and Pre-LN are redrawn."""

    def __init__(self, depth: int = 6, width: int = 64):
        self.width = width
        self.depth = widgets.IntSlider(value=depth, min=2, max=24, step=1, description="层数 L：",
                                       continuous_update=False)
        self.summary = widgets.HTML()
        self.plot = widgets.Image(format="png")
        self.depth.observe(self.on_depth, names="value")
        self.box = widgets.VBox([self.depth, self.summary, self.plot])
        self.render()

    def on_depth(self, change) -> None:
        self.render()

    def render(self) -> None:
        series = {n: ffn_gradient_norms(n, self.depth.value, self.width) for n in ("post", "pre")}
        self.summary.value = tables.gradient_table(series).to_html()
        self.plot.value = plots.to_png(plots.depth_lines(series, xlabel="第几层（1 = 靠近输入）",
                                                         ylabel=r"$\|\partial L/\partial W_2\|_F$"))


class SoftmaxExplorer(Explorer):
    """Notebook 10: a slider on the logit scale (1/temperature); attention weights and each row's entropy follow."""

    def __init__(self, scale: float = 1.0, matrix=None, tokens=TOKENS):
        self.matrix = layer_norm(TOKEN_MATRIX, eps=1e-5) if matrix is None else np.asarray(matrix, dtype=np.float64)
        self.tokens = tuple(tokens)
        self.scale = widgets.FloatLogSlider(value=scale, base=10, min=-2, max=1.5, step=0.05,
                                            description="放大倍数：", readout_format=".3g", continuous_update=True)
        self.summary = widgets.HTML()
        self.plot = widgets.Image(format="png")
        self.scale.observe(self.on_scale, names="value")
        self.box = widgets.VBox([self.scale, self.summary, self.plot])
        self.render()

    def on_scale(self, change) -> None:
        self.render()

    def render(self) -> None:
        w = attention_at_scale(self.matrix, self.scale.value)
        h = entropy(w)
        self.summary.value = tables.stats_table(
            self.tokens, {"最大权重": w.max(axis=1), "熵 (nats)": h},
            caption=f"放大倍数 {self.scale.value:.3g}：每个 query 的注意力", index_name="query").to_html()
        self.plot.value = plots.to_png(plots.attention_panel(w, self.tokens))
