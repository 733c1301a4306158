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
HIGHLIGHT_COLOR = "#fde68a"
_UUID_PLACEHOLDER = "lnuuidplaceholder"

_CSS = [
    {"selector": "th", "props": "text-align: center; padding: 2px 10px;"},
    {"selector": "td", "props": "text-align: right; padding: 2px 10px; font-family: monospace;"},
    {"selector": "caption", "props": "caption-side: top; font-weight: bold; padding-bottom: 4px; white-space: nowrap;"},
]


class Table:
    """A DataFrame plus how to show it: HTML in notebooks, plain text in terminals and nbval's text/plain.

    The HTML is a function of what is displayed: numbers are formatted at `precision` (never "-0.000"), and the
    table's id is a hash of the rendered HTML itself (caption, formatted cells, highlight), not of the float bits,
    so a table renders identically on every machine whose rounded numbers agree.
    """

    def __init__(self, frame: pd.DataFrame, caption: str = "", highlight=None, precision: int = PRECISION,
                 na_rep: str = ""):
        self.frame = frame
        self.caption = caption
        self.precision = precision
        self.highlight = highlight  # optional (row labels, column labels) to shade
        self.na_rep = na_rep  # how a NaN shows: empty by default, "NaN" where a NaN is a result to see

    def _format(self, v) -> str:
        if isinstance(v, (float, np.floating)):
            if np.isnan(v):
                return self.na_rep
            text = f"{v:.{self.precision}f}"
            return text[1:] if text.startswith("-") and not text.strip("-0.") else text
        return str(v)

    def to_html(self) -> str:
        styler = self.frame.style.format(self._format).set_table_styles(_CSS).set_uuid(_UUID_PLACEHOLDER)
        if self.caption:
            styler = styler.set_caption(self.caption)
        if self.highlight is not None:
            rows, cols = self.highlight
            styler = styler.set_properties(subset=(rows, cols), **{"background-color": HIGHLIGHT_COLOR})
        html = styler.to_html()
        digest = hashlib.sha1(html.encode("utf-8")).hexdigest()
        return html.replace(_UUID_PLACEHOLDER, "ln" + digest[:10])

    def to_text(self) -> str:
        body = self.frame.to_string(formatters=dict.fromkeys(self.frame.columns, self._format))
        return f"{self.caption}\n{body}" if self.caption else body

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


# --- notebooks 04–07: ε, what is kept and lost, γ and β ---------------------------------------------


def epsilon_summary(x, eps: float) -> Table:
    """One vector's σ², ε and the variance of x̂, which equals σ² / (σ² + ε) (notebook 04)."""
    from .stages import normalize

    values = np.asarray(x, dtype=np.float64)
    var = float(variance(values))
    xhat_var = float(variance(normalize(values, eps=eps)))
    ratio = var / (var + eps) if var + eps > 0 else float("nan")
    frame = pd.DataFrame({"σ²": [var], "ε": [eps], "σ² / (σ² + ε)": [ratio], "x̂ 的方差": [xhat_var]},
                         index=["这一行"])
    return Table(frame, f"ε = {eps:.0e} 时 x̂ 的方差", precision=6)


def eps_placement_table(rows: dict, eps: float = 1e-5) -> Table:
    """Rows of shrinking spread: σ, √(σ² + ε) versus σ + ε, and x̂₁ computed either way (notebook 04)."""
    from .pitfalls import normalize_std_plus_eps
    from .stages import normalize

    records = []
    for row in rows.values():
        v = np.asarray(row, dtype=np.float64)
        s = float(std(v))
        inside = float(normalize(v, eps=eps)[0])
        outside = float(normalize_std_plus_eps(v, eps=eps)[0])
        records.append({"σ": s, "√(σ² + ε)": float(np.sqrt(s * s + eps)), "σ + ε": s + eps,
                        "x̂₁：ε 在根号里": inside, "x̂₁：ε 加在 σ 上": outside, "相差": abs(inside - outside)})
    frame = pd.DataFrame(records, index=list(rows))
    frame.index.name = "输入行"
    return Table(frame, f"ε 放在哪里（ε = {eps:g}）", precision=4)


def ddof_table(x, eps: float = 0.0) -> Table:
    """÷ d (LayerNorm) versus ÷ (d − 1) (torch.std's default): σ², σ, x̂ and Var(x̂) (notebook 04)."""
    from .pitfalls import normalize_unbiased, variance_unbiased
    from .stages import normalize

    values = np.asarray(x, dtype=np.float64)
    d = values.shape[-1]
    variants = {
        f"÷ d = {d}（LayerNorm）": (float(variance(values)), normalize(values, eps=eps)),
        f"÷ (d − 1) = {d - 1}（torch.std 默认）": (float(variance_unbiased(values)),
                                              normalize_unbiased(values, eps=eps)),
    }
    records = {}
    for label, (var, xhat) in variants.items():
        rec = {"σ²": var, "σ": float(np.sqrt(var))}
        rec.update({f"x̂ 第 {i + 1} 维": float(v) for i, v in enumerate(xhat)})
        rec["x̂ 的方差（÷ d）"] = float(variance(xhat))
        records[label] = rec
    frame = pd.DataFrame.from_dict(records, orient="index")
    frame.index.name = "方差的分母"
    return Table(frame, f"x = {_vector_text(values)}：除以 d 还是 d − 1")


def _vector_text(values) -> str:
    from .plots import number

    return "[" + ", ".join(number(float(v)) for v in np.asarray(values).reshape(-1)) + "]"


def scale_shift_table(x, scale: float, shift: float, eps: float = 1e-5) -> Table:
    """x, a·x + b and the x̂ of a·x + b, each with its μ and σ (notebook 05)."""
    from .stages import normalize

    values = np.asarray(x, dtype=np.float64)
    moved = scale * values + shift
    rows = {"原来的 x": values, f"变换后 {scale:.3g}·x + {shift:.3g}": moved,
            "变换后的 x̂": normalize(moved, eps=eps)}
    frame = pd.DataFrame([np.asarray(v) for v in rows.values()], index=list(rows),
                         columns=dim_labels(values.size))
    frame["μ"] = [float(mean(v)) for v in rows.values()]
    frame["σ"] = [float(std(v)) for v in rows.values()]
    return Table(frame, "缩放和平移：x 在动，x̂ 不动")


def row_stats_table(matrix, tokens=TOKENS, *, caption: str = "", name: str = "y") -> Table:
    """The mean and (÷ d) variance of each row of a matrix, one row per token (notebook 06)."""
    values = np.asarray(matrix, dtype=np.float64)
    return stats_table(list(tokens), {f"{name} 的均值": mean(values), f"{name} 的方差": variance(values)},
                       caption=caption, index_name="token")


def invariance_table(norms=("layer",), **kwargs) -> Table:
    """Ba, Kiros & Hinton (2016) Table 1, computed: one ✓/✗ column (and the largest output change) per norm.

    `norms` are keys of `lnlib.invariance.NORMS`; keyword arguments go to `lnlib.invariance.verdicts`.
    A "论文" column per norm shows what the paper states, when `PAPER_TABLE1` has that norm (notebook 05).
    """
    from . import invariance

    frame = pd.DataFrame(index=[t.label for t in invariance.TRANSFORMS])
    frame.index.name = "变换"
    frame["做法"] = [t.how for t in invariance.TRANSFORMS]
    for norm in norms:
        label = invariance.NORM_LABELS.get(norm, norm)
        results = invariance.verdicts(norm, **kwargs)
        frame[f"{label}：输出最大变化"] = [v.max_change for v in results]
        frame[f"{label}：不变？"] = ["✓" if v.invariant else "✗" for v in results]
        paper = invariance.PAPER_TABLE1.get(norm)
        if paper is not None:
            frame[f"{label}：论文"] = ["✓" if paper[t.key] else "✗" for t in invariance.TRANSFORMS]
    return Table(frame, "Ba, Kiros & Hinton (2016) 表 1：用计算重现", precision=3)


# --- notebook 13: numerics ---------------------------------------------------------------------------


VARIANCE_METHODS = {
    "one_pass": "一遍法 E[x²] − E[x]²",
    "two_pass": "两遍法 E[(x − μ)²]",
    "welford": "Welford 一遍更新",
    "lnlib": "lnlib（float64 累加）",
}


def variance_table(offset: float = 1e4, dtype: str = "float32", base=(0.0, 1.0, 2.0, 3.0)) -> Table:
    """σ² and x̂ of offset + base computed four ways in `dtype` (notebook 13's explorer and its static cell).

    The true σ² of [0, 1, 2, 3] is 1.25 whatever the offset; x̂ uses the method's σ² and ε = 1e-5.
    """
    from .numerics import DTYPES, normalize_with_variance, one_pass_variance, two_pass_variance, welford
    from .stages import layer_norm_steps

    if dtype not in DTYPES:
        raise ValueError(f"dtype: expected one of {sorted(DTYPES)}, got {dtype!r}")
    t = DTYPES[dtype]
    with np.errstate(over="ignore"):
        x = (float(offset) + np.asarray(base, dtype=np.float64)).astype(t)
    steps = layer_norm_steps(x, eps=1e-5)
    variances = {
        "one_pass": one_pass_variance(x, t),
        "two_pass": two_pass_variance(x, t),
        "welford": welford(x, t)[1],
        "lnlib": steps.variance,
    }
    rows, index = [], []
    for key, var in variances.items():
        xhat = steps.normalized if key == "lnlib" else normalize_with_variance(x, var, 1e-5, t)
        rows.append([float(var), *np.asarray(xhat, dtype=np.float64)])
        index.append(VARIANCE_METHODS[key])
    frame = pd.DataFrame(rows, index=index, columns=["σ²", *[f"x̂ 第 {i + 1} 维" for i in range(len(base))]])
    frame.index.name = "算法"
    caption = f"x = {float(offset):g} + {list(base)}，用 {dtype} 计算（真实 σ² = 1.25）"
    return Table(frame, caption, na_rep="NaN")


def gradient_table(series: dict) -> Table:
    """Per-layer gradient norms at initialization, one column per residual form ("post", "pre", …; notebook 09)."""
    names = {"post": "Post-LN", "pre": "Pre-LN", "none": "无归一化", "deepnorm": "DeepNorm"}
    depth = len(next(iter(series.values())))
    return stats_table([f"第 {i + 1} 层" for i in range(depth)], {names.get(k, k): v for k, v in series.items()},
                       caption="每层前馈第二个矩阵 W₂ 的梯度范数（初始化时）", index_name="层")
