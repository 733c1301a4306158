"""pandas tables of the stages and matrices, with deterministic HTML (fixed uuid, fixed precision).

Every function returns a `Table`: it shows as a styled HTML table in Jupyter and as aligned text elsewhere,
and never prints a memory address. `.frame` is the underlying DataFrame (numbers, not strings).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from .data import TOKENS
from .stages import LayerNormSteps, mean, std, variance

PRECISION = 3

_CSS = [
    {"selector": "th", "props": "text-align: center; padding: 2px 10px;"},
    {"selector": "td", "props": "text-align: right; padding: 2px 10px; font-family: monospace;"},
    {"selector": "caption", "props": "caption-side: top; font-weight: bold; padding-bottom: 4px;"},
]


class Table:
    """A DataFrame plus how to show it: HTML in notebooks, plain text in terminals and nbval's text/plain."""

    def __init__(self, frame: pd.DataFrame, caption: str = "", highlight=None, precision: int = PRECISION):
        self.frame = frame
        self.caption = caption
        self.precision = precision
        self.highlight = highlight  # optional (row labels, column labels) to shade

    def to_html(self) -> str:
        styler = self.frame.style.format(precision=self.precision, na_rep="")
        styler = styler.set_table_styles(_CSS).set_uuid(self._uuid())
        if self.caption:
            styler = styler.set_caption(self.caption)
        if self.highlight is not None:
            rows, cols = self.highlight
            styler = styler.set_properties(subset=(rows, cols), **{"background-color": "#fde68a"})
        return styler.to_html()

    def to_text(self) -> str:
        def fmt(v):
            return "" if isinstance(v, float) and np.isnan(v) else f"{v:.{self.precision}f}"

        body = self.frame.to_string(float_format=fmt, na_rep="")
        return f"{self.caption}\n{body}" if self.caption else body

    def _uuid(self) -> str:
        digest = hashlib.sha1((self.caption + self.frame.to_json()).encode("utf-8")).hexdigest()
        return "ln" + digest[:10]

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return self.to_text()


def dim_labels(d: int) -> list[str]:
    """Column labels 第 1 维 … 第 d 维."""
    return [f"第 {i + 1} 维" for i in range(d)]


STAGE_LABELS = {
    "x": "输入 x",
    "mean": "均值 μ",
    "centered": "中心化 x − μ",
    "variance": "方差 σ²",
    "std": "标准差 σ",
    "std_eps": "√(σ² + ε)",
    "normalized": "归一化 x̂",
    "gamma": "缩放 γ",
    "beta": "平移 β",
    "output": "输出 y = γ ⊙ x̂ + β",
}
SCALAR_COLUMN = "整行一个数"


def stage_table(steps: LayerNormSteps, *, affine: bool = False, caption: str = "") -> Table:
    """One row per stage of a single vector: x, μ, x − μ, σ², σ, √(σ²+ε), x̂, (γ, β,) y.

    Vector stages fill the 第 k 维 columns; the four statistics fill the 整行一个数 column.
    """
    x = np.asarray(steps.x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"steps: stage_table shows one vector; got x of shape {x.shape}")
    d = x.shape[0]
    names = ["x", "mean", "centered", "variance", "std", "std_eps", "normalized"]
    names += ["gamma", "beta", "output"] if affine else ["output"]
    rows = []
    for name in names:
        value = np.asarray(getattr(steps, name), dtype=np.float64)
        if value.ndim == 0:
            rows.append([np.nan] * d + [float(value)])
        else:
            rows.append(list(value) + [np.nan])
    frame = pd.DataFrame(rows, index=[STAGE_LABELS[n] for n in names], columns=dim_labels(d) + [SCALAR_COLUMN])
    frame.index.name = "步骤"
    return Table(frame, caption or f"LayerNorm 逐步计算（ε = {steps.eps:g}）")


def token_table(matrix, tokens=TOKENS, *, caption: str = "", highlight=None) -> Table:
    """A (tokens × d) matrix with the tokens as row labels and 第 k 维 as column labels."""
    values = np.asarray(matrix, dtype=np.float64)
    if values.ndim != 2 or values.shape[0] != len(tokens):
        raise ValueError(f"matrix: expected shape ({len(tokens)}, d) to match tokens, got {values.shape}")
    frame = pd.DataFrame(values, index=list(tokens), columns=dim_labels(values.shape[1]))
    frame.index.name = "token"
    return Table(frame, caption, highlight=highlight)


def stats_table(labels, columns: dict, *, caption: str = "", index_name: str = "") -> Table:
    """A small table of named statistics: one row per label, one column per entry of `columns`."""
    frame = pd.DataFrame({k: np.asarray(v, dtype=np.float64) for k, v in columns.items()}, index=list(labels))
    frame.index.name = index_name or None
    return Table(frame, caption)


AXIS_MODES = {"row": "按行：每个 token 一组", "column": "按列：每一维一组", "all": "全表：12 个数一组"}


def axis_stats_table(matrix, mode: str = "row", tokens=TOKENS) -> Table:
    """μ, σ², σ of a matrix grouped by row (LayerNorm), by column, or over the whole table."""
    if mode not in AXIS_MODES:
        raise ValueError(f"mode: expected one of {sorted(AXIS_MODES)}, got {mode!r}")
    values = np.asarray(matrix, dtype=np.float64)
    if mode == "row":
        groups, labels = values, list(tokens)
    elif mode == "column":
        groups, labels = values.T, dim_labels(values.shape[1])
    else:
        groups, labels = values.reshape(1, -1), ["全表"]
    caption = AXIS_MODES[mode].replace("12", str(values.size))
    return stats_table(labels, {"μ": mean(groups), "σ²": variance(groups), "σ": std(groups)}, caption=caption)


def vectors_table(rows: dict, *, caption: str = "", index_name: str = "") -> Table:
    """Named vectors of equal length, one per row, with 第 k 维 columns (e.g. the residual add)."""
    values = [np.asarray(v, dtype=np.float64).reshape(-1) for v in rows.values()]
    if len({v.size for v in values}) != 1:
        raise ValueError(f"rows: expected vectors of one length, got lengths {[v.size for v in values]}")
    frame = pd.DataFrame(values, index=list(rows), columns=dim_labels(values[0].size))
    frame.index.name = index_name or None
    return Table(frame, caption)
