"""pandas tables of the stages and matrices, with deterministic HTML (fixed uuid, fixed precision).

Renderers only: every function takes numbers or a result computed by a topic module (`stages`, `groups`,
`pitfalls`, `invariance`, `numerics`) and lays it out; the words come from `lnlib.labels`.
Every function returns a `Table`: it shows as a styled HTML table in Jupyter and as aligned text elsewhere,
and never prints a memory address. `.frame` is the underlying DataFrame (numbers, not strings).
"""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pandas as pd

from . import invariance
from .data import TOKENS
from .groups import GroupStats
from .invariance import ScaleShift, Verdict
from .labels import (
    AXIS_MODES,
    SCALAR_COLUMN,
    STAGE_LABELS,
    VARIANCE_METHODS,
    WHOLE_TABLE,
    dim_labels,
    layer_labels,
    residual_form,
    vector_text,
)
from .numerics import VarianceMethods
from .pitfalls import DdofComparison, EpsilonEffect, EpsPlacement
from .stages import LayerNormSteps

__all__ = [
    "AXIS_MODES",
    "HIGHLIGHT_COLOR",
    "SCALAR_COLUMN",
    "STAGE_LABELS",
    "HIGHLIGHT_TEXT",
    "VARIANCE_METHODS",
    "Table",
    "axis_stats_table",
    "ddof_table",
    "dim_labels",
    "eps_placement_table",
    "epsilon_summary",
    "gradient_table",
    "invariance_table",
    "row_stats_table",
    "scale_shift_table",
    "stage_table",
    "stats_table",
    "token_table",
    "variance_table",
    "vectors_table",
]

PRECISION = 3
HIGHLIGHT_COLOR = "#fde68a"  # pale yellow behind highlighted cells
HIGHLIGHT_TEXT = "#111827"  # text on the highlight, set explicitly (a dark theme's light text would vanish): 14:1
_UUID_PLACEHOLDER = "lnuuidplaceholder"
_CELL = "\ue000"  # a private-use character: marks the cells of a kept layout (see Table.to_html)
_CELL_SPLIT = re.compile(f"{_CELL}([0-9]+){_CELL}")
TEMPLATE_CACHE_SIZE = 256
_TEMPLATES: dict[tuple, list[str]] = {}

_CSS = [
    {"selector": "th", "props": "text-align: center; padding: 2px 10px;"},
    {"selector": "td", "props": "text-align: right; padding: 2px 10px; font-family: monospace;"},
    {"selector": "caption", "props": "caption-side: top; font-weight: bold; padding-bottom: 4px; white-space: nowrap;"},
]


def _with_id(html: str) -> str:
    digest = hashlib.sha1(html.encode("utf-8")).hexdigest()
    return html.replace(_UUID_PLACEHOLDER, "ln" + digest[:10])


class Table:
    """A DataFrame plus how to show it: HTML in notebooks, plain text in terminals and nbval's text/plain.

    The HTML is a function of what is displayed: numbers are formatted at `precision` (never "-0.000"), and the
    table's id is a hash of the rendered HTML itself (caption, formatted cells, highlight), not of the float bits,
    so a table renders identically on every machine whose rounded numbers agree.
    """

    def __init__(
        self, frame: pd.DataFrame, caption: str = "", highlight=None, precision: int = PRECISION, na_rep: str = ""
    ):
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
        """The styled HTML table (pandas Styler), its id a hash of the HTML itself.

        Styler takes milliseconds per table, too slow for an explorer that redraws on every slider step; its
        output depends on the table's layout (labels, highlight), not on the numbers or the caption's words. So
        the layout is rendered once, with a placeholder in every cell and in the caption, and kept; each call
        formats the numbers and the caption into it.
        `styled_html()` is the same HTML straight from Styler (tests compare the two).
        """
        key = self._layout_key()
        template = _TEMPLATES.get(key)
        if template is None:
            cells = [
                [f"{_CELL}{i * self.frame.shape[1] + j}{_CELL}" for j in range(self.frame.shape[1])]
                for i in range(self.frame.shape[0])
            ]
            blank = pd.DataFrame(cells, index=self.frame.index, columns=self.frame.columns)
            caption = f"{_CELL}{blank.size}{_CELL}" if self.caption else ""
            template = _TEMPLATES[key] = _CELL_SPLIT.split(self._styler(blank, str, caption).to_html())
            while len(_TEMPLATES) > TEMPLATE_CACHE_SIZE:
                _TEMPLATES.pop(next(iter(_TEMPLATES)))
        values = [self._format(v) for v in self.frame.to_numpy(dtype=object).ravel()] + [self.caption]
        parts = [values[int(p)] if i % 2 else p for i, p in enumerate(template)]
        return _with_id("".join(parts))

    def styled_html(self) -> str:
        """`to_html()` computed by pandas Styler directly, without the kept layout."""
        return _with_id(self._styler(self.frame, self._format, self.caption).to_html())

    def _styler(self, frame: pd.DataFrame, formatter, caption: str):
        styler = frame.style.format(formatter).set_table_styles(_CSS).set_uuid(_UUID_PLACEHOLDER)
        if caption:
            styler = styler.set_caption(caption)
        if self.highlight is not None:
            rows, cols = self.highlight
            shade = {"background-color": HIGHLIGHT_COLOR, "color": HIGHLIGHT_TEXT}
            styler = styler.set_properties(subset=(rows, cols), **shade)
        return styler

    def _layout_key(self) -> tuple:
        f = self.frame
        return (
            tuple(f.index),
            tuple(f.columns),
            tuple(f.index.names),
            tuple(f.columns.names),
            bool(self.caption),
            repr(self.highlight),
        )

    def to_text(self) -> str:
        body = self.frame.to_string(formatters=dict.fromkeys(self.frame.columns, self._format))
        return f"{self.caption}\n{body}" if self.caption else body

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return self.to_text()


def stage_table(steps: LayerNormSteps, *, affine: bool = False, caption: str = "") -> Table:
    """One row per stage of a single vector: x, μ, x − μ, σ², σ, √(σ²+ε), x̂, (γ, β,) y.

    Vector stages fill the 第 k 维 columns; the four statistics fill the 整行一个数 column.
    """
    if not isinstance(steps, LayerNormSteps):
        raise TypeError(f"steps: expected the LayerNormSteps of lnlib.layer_norm_steps, got {type(steps).__name__}")
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
    labels = list(labels)
    data = {k: np.asarray(v, dtype=np.float64).reshape(-1) for k, v in columns.items()}
    for name, v in data.items():
        if v.size != len(labels):
            raise ValueError(f"columns: column {name!r} has {v.size} values for {len(labels)} labels")
    frame = pd.DataFrame(data, index=labels)
    frame.index.name = index_name or None
    return Table(frame, caption)


def _expect(value, kind: type, name: str, made_by: str):
    """Renderers take results: refuse anything else by name, saying which function makes the result."""
    if not isinstance(value, kind):
        raise TypeError(f"{name}: expected the result of {made_by}, got {type(value).__name__}")
    return value


def axis_stats_table(stats: GroupStats, tokens=TOKENS) -> Table:
    """μ, σ², σ of each group of `groups.group_stats(matrix, mode)`: per row (LayerNorm), per column, or all."""
    _expect(stats, GroupStats, "stats", "lnlib.groups.group_stats(matrix, mode)")
    n, d = stats.matrix.shape
    labels = {"row": list(tokens), "column": dim_labels(d), "all": [WHOLE_TABLE]}[stats.mode]
    if stats.mode == "row" and len(labels) != n:
        raise ValueError(f"tokens: expected {n} token names for the {n} rows, got {len(labels)}")
    caption = AXIS_MODES[stats.mode].replace("12", str(stats.matrix.size))
    return stats_table(labels, {"μ": stats.mean, "σ²": stats.variance, "σ": stats.std}, caption=caption)


def vectors_table(rows: dict, *, caption: str = "", index_name: str = "") -> Table:
    """Named vectors of equal length, one per row, with 第 k 维 columns (e.g. the residual add)."""
    if not isinstance(rows, dict) or not rows:
        raise ValueError(f"rows: expected a non-empty dict of name → vector, got {rows!r:.60}")
    values = [np.asarray(v, dtype=np.float64).reshape(-1) for v in rows.values()]
    if len({v.size for v in values}) != 1:
        raise ValueError(f"rows: expected vectors of one length, got lengths {[v.size for v in values]}")
    frame = pd.DataFrame(values, index=list(rows), columns=dim_labels(values[0].size))
    frame.index.name = index_name or None
    return Table(frame, caption)


# --- notebooks 04–07: ε, what is kept and lost, γ and β ---------------------------------------------


def epsilon_summary(effect: EpsilonEffect) -> Table:
    """One row's σ², ε and the variance of x̂, which equals σ² / (σ² + ε) (notebook 04).

    Takes `pitfalls.epsilon_effect(x, eps)`.
    """
    _expect(effect, EpsilonEffect, "effect", "lnlib.pitfalls.epsilon_effect(x, eps)")
    frame = pd.DataFrame(
        {
            "σ²": [effect.variance],
            "ε": [effect.eps],
            "σ² / (σ² + ε)": [effect.kept],
            "x̂ 的方差": [effect.xhat_variance],
        },
        index=["这一行"],
    )
    return Table(frame, f"ε = {effect.eps:.0e} 时 x̂ 的方差", precision=6)


_EPS_PLACEMENT_HEADERS = {
    "std": "σ",
    "std_eps": "√(σ² + ε)",
    "std_plus_eps": "σ + ε",
    "xhat1_inside": "x̂₁：ε 在根号里",
    "xhat1_outside": "x̂₁：ε 加在 σ 上",
    "difference": "相差",
}


def eps_placement_table(placement: EpsPlacement) -> Table:
    """`pitfalls.eps_placement(rows, eps)` with Chinese headers: √(σ² + ε) versus σ + ε (notebook 04)."""
    p = _expect(placement, EpsPlacement, "placement", "lnlib.pitfalls.eps_placement(rows, eps)")
    shown = p.frame.rename(columns=_EPS_PLACEMENT_HEADERS)
    shown.index.name = "输入行"
    return Table(shown, f"ε 放在哪里（ε = {p.eps:g}）", precision=4)


def ddof_table(comparison: DdofComparison) -> Table:
    """÷ d (LayerNorm) versus ÷ (d − 1) (torch.std's default): σ², σ, x̂ and Var(x̂) (notebook 04).

    Takes `pitfalls.ddof_comparison(x, eps)`.
    """
    c = _expect(comparison, DdofComparison, "comparison", "lnlib.pitfalls.ddof_comparison(x, eps)")
    variants = {
        f"÷ d = {c.d}（LayerNorm）": (c.variance_d, c.xhat_d, c.xhat_variance_d),
        f"÷ (d − 1) = {c.d - 1}（torch.std 默认）": (c.variance_d1, c.xhat_d1, c.xhat_variance_d1),
    }
    records = {}
    for label, (var, xhat, xhat_var) in variants.items():
        rec = {"σ²": var, "σ": float(np.sqrt(var))}
        rec.update({f"x̂ {name}": float(v) for name, v in zip(dim_labels(c.d), xhat, strict=True)})
        rec["x̂ 的方差（÷ d）"] = xhat_var
        records[label] = rec
    frame = pd.DataFrame.from_dict(records, orient="index")
    frame.index.name = "方差的分母"
    return Table(frame, f"x = {vector_text(c.x)}：除以 d 还是 d − 1")


def scale_shift_table(result: ScaleShift) -> Table:
    """x, a·x + b and the x̂ of a·x + b, each with its μ and σ (notebook 05).

    Takes `invariance.scale_shift(x, a, b, eps)`.
    """
    r = _expect(result, ScaleShift, "result", "lnlib.invariance.scale_shift(x, scale, shift, eps)")
    names = ["原来的 x", f"变换后 {r.scale:.3g}·x + {r.shift:.3g}", "变换后的 x̂"]
    frame = pd.DataFrame([np.asarray(v) for v in r.rows], index=names, columns=dim_labels(r.x.size))
    frame["μ"] = r.means
    frame["σ"] = r.stds
    return Table(frame, "缩放和平移：x 在动，x̂ 不动")


def row_stats_table(stats: GroupStats, tokens=TOKENS, *, caption: str = "", name: str = "y") -> Table:
    """The mean and (÷ d) variance of each row, one row per token (notebook 06).

    Takes `groups.group_stats(matrix, "row")`.
    """
    _expect(stats, GroupStats, "stats", 'lnlib.groups.group_stats(matrix, "row")')
    if stats.mode != "row":
        raise ValueError(f"stats: expected statistics grouped by row, got {stats.mode!r}")
    return stats_table(
        list(tokens),
        {f"{name} 的均值": stats.mean, f"{name} 的方差": stats.variance},
        caption=caption,
        index_name="token",
    )


def invariance_table(results: dict[str, list[Verdict]]) -> Table:
    """Ba, Kiros & Hinton (2016) Table 1, computed: one ✓/✗ column (and the largest output change) per norm.

    Takes `invariance.table1(norms)`. A "论文" column per norm shows what the paper states, when
    `invariance.PAPER_TABLE1` has that norm (notebooks 05 and 08).
    """
    _expect(results, dict, "results", "lnlib.invariance.table1(norms)")
    if not results:
        raise ValueError("results: expected the verdicts of at least one normalization")
    frame = pd.DataFrame(index=[t.label for t in invariance.TRANSFORMS])
    frame.index.name = "变换"
    frame["做法"] = [t.how for t in invariance.TRANSFORMS]
    for norm, verdicts in results.items():
        if [v.transform for v in verdicts] != list(invariance.TRANSFORMS):
            raise ValueError(f"results: the verdicts of {norm!r} do not follow invariance.TRANSFORMS")
        label = invariance.NORM_LABELS.get(norm, norm)
        frame[f"{label}：输出最大变化"] = [v.max_change for v in verdicts]
        frame[f"{label}：不变？"] = ["✓" if v.invariant else "✗" for v in verdicts]
        paper = invariance.PAPER_TABLE1.get(norm)
        if paper is not None:
            frame[f"{label}：论文"] = ["✓" if paper[t.key] else "✗" for t in invariance.TRANSFORMS]
    return Table(frame, "Ba, Kiros & Hinton (2016) 表 1：用计算重现", precision=3)


# --- notebook 13: numerics ---------------------------------------------------------------------------


def variance_table(methods: VarianceMethods) -> Table:
    """σ² and x̂ of offset + base computed four ways (notebook 13's explorer and its static cell).

    Takes `numerics.variance_methods(offset, dtype, base)`.
    """
    m = _expect(methods, VarianceMethods, "methods", "lnlib.numerics.variance_methods(offset, dtype, base)")
    rows = [[m.variances[key], *m.normalized[key]] for key in VARIANCE_METHODS]
    columns = ["σ²", *[f"x̂ {label}" for label in dim_labels(len(m.base))]]
    frame = pd.DataFrame(rows, index=list(VARIANCE_METHODS.values()), columns=columns)
    frame.index.name = "算法"
    caption = f"x = {m.offset:g} + {list(m.base)}，用 {m.dtype} 计算（真实 σ² = {m.true_variance:g}）"
    return Table(frame, caption, na_rep="NaN")


def gradient_table(series: dict) -> Table:
    """Per-layer gradient norms at initialization, one column per residual form ("post", "pre", …; notebook 09)."""
    if not isinstance(series, dict) or not series:
        raise ValueError(f"series: expected a non-empty dict of residual form → per-layer norms, got {series!r:.60}")
    lengths = {np.asarray(v).size for v in series.values()}
    if len(lengths) != 1:
        raise ValueError(f"series: expected one length for every form, got lengths {sorted(lengths)}")
    depth = lengths.pop()
    return stats_table(
        layer_labels(depth),
        {residual_form(k): v for k, v in series.items()},
        caption="每层前馈第二个矩阵 W₂ 的梯度范数（初始化时）",
        index_name="层",
    )
