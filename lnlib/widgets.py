"""ipywidgets explorers: thin views that call lnlib's tables and plots on every change.

Every callback is a named method, so tests can set a control's `.value` and read the rendered HTML without a
browser. Bad text shows a short Chinese message inside the widget and keeps the last valid state.
"""

from __future__ import annotations

import html
import re
import unicodedata

import ipywidgets as widgets
import numpy as np

from . import plots, tables
from .data import TOKEN_MATRIX, TOKENS
from .stages import layer_norm_steps

MAX_VALUES = 64
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_PAIRS = {"[": "]", "(": ")", "{": "}"}


def parse_vector(text: str) -> np.ndarray:
    """Read a typed vector such as "2, 4, 6, 8", "2 4 6 8", "2，4，6，8" or "[２, ４]" into a float64 array.

    Raises ValueError with a short Chinese message for anything else. Never evaluates the text.
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected a str, got {type(text).__name__}")
    s = unicodedata.normalize("NFKC", text).replace("、", ",").replace("−", "-").strip()
    if s[:1] in _PAIRS:
        if not s.endswith(_PAIRS[s[0]]):
            raise ValueError("括号不配对：开头和结尾的括号要成对出现。")
        s = s[1:-1].strip()
    if any(c in s for c in "[](){}"):
        raise ValueError("括号不配对，或者多了括号：只需要输入用逗号或空格隔开的数字。")
    s = s.replace(";", ",")
    if not s:
        raise ValueError("请输入至少一个数，例如 2, 4, 6, 8。")
    s = re.sub(r"\s*,\s*", ",", s).rstrip(",")  # a trailing comma while typing is fine
    if s.startswith(","):
        raise ValueError("开头多了一个逗号。")
    if ",," in s:
        raise ValueError("两个逗号之间缺少数字。")
    parts = [p for p in re.split(r"[,\s]+", s) if p]
    for p in parts:
        if p.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise ValueError("不接受 nan 或 inf：请输入普通的有限数字。")
        if not _NUMBER.match(p):
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


class VectorExplorer(Explorer):
    """Type a vector, move ε: the stage table and the stage plot follow (notebook 03)."""

    def __init__(self, text: str = "2, 4, 6, 8", eps: float = 1e-5):
        self.text = widgets.Text(value=text, description="向量 x：", continuous_update=True,
                                 layout=widgets.Layout(width="420px"))
        self.eps = widgets.FloatLogSlider(value=eps, base=10, min=-8, max=0, step=0.5, description="ε：",
                                          readout_format=".0e", continuous_update=True)
        self.message = widgets.HTML()
        self.table = widgets.HTML()
        self.plot = widgets.Image(format="png")
        self.values = parse_vector(text)
        self.text.observe(self.on_text, names="value")
        self.eps.observe(self.on_eps, names="value")
        self.box = widgets.VBox([self.text, self.eps, self.message, self.table, self.plot])
        self.render()

    def on_text(self, change) -> None:
        try:
            self.values = parse_vector(change["new"])
        except ValueError as err:
            self.message.value = error_html(str(err))
            return
        self.render()

    def on_eps(self, change) -> None:
        self.render()

    def render(self) -> None:
        steps = layer_norm_steps(self.values, eps=self.eps.value)
        self.message.value = ""
        self.table.value = tables.stage_table(steps).to_html()
        self.plot.value = plots.to_png(plots.stage_bars(steps))


class AxisExplorer(Explorer):
    """Choose 行 / 列 / 全表 and which row or column: see which cells feed one μ and σ (notebook 02)."""

    def __init__(self, matrix=TOKEN_MATRIX, tokens=TOKENS):
        self.matrix = np.asarray(matrix, dtype=np.float64)
        self.tokens = tuple(tokens)
        self.mode = widgets.ToggleButtons(options=[("按行", "row"), ("按列", "column"), ("全表", "all")],
                                          value="row", description="统计方向：")
        self.index = widgets.Dropdown(description="哪一个：")
        self.plot = widgets.Image(format="png")
        self.summary = widgets.HTML()
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
        with self.index.hold_trait_notifications():
            self._set_index_options()
        self.render()

    def on_index(self, change) -> None:
        self.render()

    def render(self) -> None:
        self.summary.value = tables.axis_stats_table(self.matrix, self.mode.value, self.tokens).to_html()
        self.plot.value = plots.to_png(plots.highlight_heatmap(self.matrix, self.mode.value, self.index.value,
                                                               self.tokens))
