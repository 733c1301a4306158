"""The course's words and number formatting: a word or format used in two or more modules lives here, and tables,
plots and explorers import it (words of one figure or one table stay with it). Compute code returns codes ("post",
"trains"), which the renderers turn into words.

Chinese labels follow the project's spacing rule: one space between Chinese and Latin letters or digits
("第 1 维", not "第1维").
"""

from __future__ import annotations

import math

import numpy as np

SCALAR_COLUMN = "整行一个数"
WHOLE_TABLE = "全表"

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
"""The stages of `LayerNormSteps`, by attribute name."""

AXIS_MODES = {"row": "按行：每个 token 一组", "column": "按列：每一维一组", "all": "全表：12 个数一组"}
"""Table captions of the three groupings of notebook 02 ("12" is replaced by the matrix's size)."""

AXIS_TITLES = {"row": "按行（LayerNorm）", "column": "按列", "all": "全表"}
"""Figure titles of the same three groupings."""

NO_NORM = "无归一化"

RESIDUAL_FORMS = {"post": "Post-LN", "pre": "Pre-LN", "none": NO_NORM, "deepnorm": "DeepNorm"}
"""Where the normalization sits in a residual block (notebooks 09 and 15)."""

NORM_NAMES = {"none": NO_NORM, "layer": "LayerNorm", "batch": "BatchNorm", "rms": "RMSNorm"}
"""The normalizations of notebook 15's MLP (lnlib.training.NORMS)."""

PROGRESS_SET_ASIDE = "（进度记录 {file} 读不懂，已原样另存为 {aside}（在 {folder}），从这一题起重新记录。）"
"""Said after a ✓ (lnlib.check, lnlib.check_function) when the progress file was not a record (lnlib._record)."""

OUTCOME_WORDS = {"trains": "学会", "stuck": "卡住", "diverged": "发散"}
"""How a training run ended (notebook 15): learned, stuck (no blow-up, the loss did not halve), diverged."""

NORM_LABELS = {"layer": "层归一化（LayerNorm）", "batch": "批归一化（BatchNorm）"}
"""Normalizations compared in the invariance experiment (notebooks 05 and 08)."""

VARIANCE_METHODS = {
    "one_pass": "一遍法 E[x²] − E[x]²",
    "two_pass": "两遍法 E[(x − μ)²]",
    "welford": "Welford 一遍更新",
    "lnlib": "lnlib（float64 累加）",
}
"""The four ways of computing σ² in notebook 13."""

_COMPACT_ABOVE = 1e6


def dim_label(i: int) -> str:
    """The label of dimension i (1-based): "第 1 维"."""
    return f"第 {i} 维"


def dim_labels(d: int) -> list[str]:
    """Labels 第 1 维 … 第 d 维."""
    return [dim_label(i + 1) for i in range(d)]


def layer_label(i: int) -> str:
    """The label of layer i (1-based): "第 1 层"."""
    return f"第 {i} 层"


def layer_labels(n: int) -> list[str]:
    """Labels 第 1 层 … 第 n 层."""
    return [layer_label(i + 1) for i in range(n)]


def residual_form(key: str) -> str:
    """The display name of a residual form key ("post" → "Post-LN"); unknown keys show as given."""
    return RESIDUAL_FORMS.get(key, key)


def number(v: float) -> str:
    """A short label for one number: up to three decimals with trailing zeros dropped (8, -1.342, 0.447);
    compact scientific notation from 1e6 on (1.2e+80), so a label never runs to 100 digits; "inf", "-inf",
    "nan" as such. Never "-0"."""
    v = float(v)
    if not math.isfinite(v):
        return str(v)
    if abs(v) >= _COMPACT_ABOVE:
        mantissa, exponent = f"{v:.2e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{exponent}"
    text = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def vector_text(values) -> str:
    """A vector as "[2, 4, 6, 8]" with `number` formatting."""
    return "[" + ", ".join(number(v) for v in np.asarray(values, dtype=np.float64).reshape(-1)) + "]"
