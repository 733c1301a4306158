"""The course's tables, with deterministic HTML (fixed id, fixed precision) and aligned plain text.

Renderers only: every function takes numbers or a result computed by a topic module (`stages`, `groups`,
`pitfalls`, `invariance`, `numerics`) and lays it out; the words come from `lnlib.labels`.
Every function returns a `Table`: it shows as a styled HTML table in Jupyter and as aligned text elsewhere,
and never prints a memory address. `.frame` is the same table as a pandas DataFrame (numbers, not strings).

A Table renders itself, without pandas: the HTML is the markup of pandas' Styler and the text the layout of
DataFrame.to_string, written out here (tests/test_table_render.py compares both with pandas on every table), so a
notebook does not pay for importing pandas (about a third of a second in every kernel); `.frame` imports it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import invariance, labels
from ._checks import as_real_array
from .data import TOKENS
from .groups import GroupStats
from .i18n import Words, message
from .invariance import InvarianceVerdict, ScaleShift
from .labels import (
    AXIS_MODES,
    STAGE_LABELS,
    VARIANCE_METHODS,
    dim_labels,
    layer_labels,
    number,
    residual_form,
    token_label,
    vector_text,
)
from .numerics import VarianceMethods
from .pitfalls import DdofComparison, EpsilonEffect, EpsPlacement
from .stages import LayerNormSteps

__all__ = [
    "AXIS_MODES",
    "HIGHLIGHT_COLOR",
    "STAGE_LABELS",
    "HIGHLIGHT_TEXT",
    "VARIANCE_METHODS",
    "Grid",
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


def __getattr__(name: str) -> str:
    if name == "SCALAR_COLUMN":  # a word: looked up when read, in the language chosen by then
        return labels.SCALAR_COLUMN
    raise AttributeError(f"module 'lnlib.tables' has no attribute {name!r}")


PRECISION = 3
FIXED_BELOW = 1e15  # cells from here on are written in scientific notation (float64 has no more digits)
HIGHLIGHT_COLOR = "#fde68a"  # pale yellow behind highlighted cells
HIGHLIGHT_TEXT = "#111827"  # text on the highlight, set explicitly (a dark theme's light text would vanish): 14:1
_UUID_PLACEHOLDER = "lnuuidplaceholder"

_CSS = [
    ("th", "text-align: center; padding: 2px 10px;"),
    ("td", "text-align: right; padding: 2px 10px; font-family: monospace;"),
    ("caption", "caption-side: top; font-weight: bold; padding-bottom: 4px; white-space: nowrap;"),
]

LIVE_CLASS = "ln-table"
"""The class of a table drawn by an explorer (`Table.to_html(live=True)`); `live_css()` is its style sheet."""


def live_css() -> str:
    """The style sheet of every live table, given once per explorer: a table that carried its own <style> would
    make the browser read a new sheet and re-check the page's styles at every step of a slider."""
    return "\n".join(f".{LIVE_CLASS} {selector} {{ {props} }}" for selector, props in _CSS)


@dataclass(frozen=True)
class Grid:
    """What a table holds: row labels, column labels, the cells (numbers or text, row by row), the index name."""

    index: tuple
    columns: tuple
    cells: tuple
    index_name: str | None = None

    @classmethod
    def of(cls, cells, index: Sequence, columns: Sequence, index_name: str | None = None) -> Grid:
        rows = tuple(tuple(row) for row in cells)
        if len(rows) != len(index) or any(len(row) != len(columns) for row in rows):
            raise ValueError(f"cells: expected {len(index)} rows of {len(columns)} cells")
        return cls(tuple(index), tuple(columns), rows, index_name or None)

    @classmethod
    def from_columns(cls, columns: dict, index: Sequence, index_name: str | None = None) -> Grid:
        """One list of values per column label, like pandas.DataFrame(dict, index=…)."""
        values = [list(v) for v in columns.values()]
        return cls.of(zip(*values, strict=True) if values else [()] * len(index), index, list(columns), index_name)

    @classmethod
    def from_frame(cls, frame) -> Grid:
        """The grid of a pandas DataFrame (single-level index and columns)."""
        cells = frame.to_numpy(dtype=object).tolist()
        return cls.of(cells, list(frame.index), list(frame.columns), frame.index.name)

    def to_frame(self):
        """The grid as a pandas DataFrame: numeric columns become float64, text columns object."""
        import pandas as pd  # lazy: only tests and learners who ask for `.frame` pay for importing pandas

        frame = pd.DataFrame(
            {j: [row[j] for row in self.cells] for j in range(len(self.columns))}, index=list(self.index)
        )
        frame.columns = list(self.columns)
        frame.index.name = self.index_name
        return frame


def _is_nan(v) -> bool:
    return isinstance(v, (float, np.floating)) and bool(np.isnan(v))


class Table:
    """A grid of numbers plus how to show it: HTML in notebooks, plain text in terminals and nbval's text/plain.

    `data` is a `Grid` or a pandas DataFrame. The HTML is a function of what is displayed: numbers are formatted at
    `precision` (never "-0.000"), and the table's id is a hash of the rendered HTML itself (caption, formatted
    cells, highlight), not of the float bits, so a table renders identically on every machine whose rounded
    numbers agree.
    """

    def __init__(self, data, caption: str = "", highlight=None, precision: int = PRECISION, na_rep: str = ""):
        self.grid = data if isinstance(data, Grid) else Grid.from_frame(data)
        self._frame = None if isinstance(data, Grid) else data
        self.caption = caption
        self.precision = precision
        self.highlight = highlight  # optional (row labels, column labels) to shade
        self.na_rep = na_rep  # how a NaN shows: empty by default, "NaN" where a NaN is a result to see

    @property
    def frame(self):
        """The table as a pandas DataFrame (built on first use)."""
        if self._frame is None:
            self._frame = self.grid.to_frame()
        return self._frame

    def _format(self, v) -> str:
        if isinstance(v, (float, np.floating)):
            if np.isnan(v):
                return self.na_rep
            if abs(v) >= FIXED_BELOW:  # 1e100 in fixed point is 101 digits of float noise: `number`'s 1e+100
                return number(v)
            text = f"{v:.{self.precision}f}"
            return text[1:] if text.startswith("-") and not text.strip("-0.") else text
        return str(v)

    def _highlighted(self) -> list[tuple[int, int]]:
        if self.highlight is None:
            return []
        rows, cols = self.highlight
        rows, cols = set(rows), set(cols)
        g = self.grid
        for label in rows - set(g.index):
            raise KeyError(f"highlight: no row labelled {label!r}")
        for label in cols - set(g.columns):
            raise KeyError(f"highlight: no column labelled {label!r}")
        return [(i, j) for i, r in enumerate(g.index) if r in rows for j, c in enumerate(g.columns) if c in cols]

    def to_html(self, *, live: bool = False) -> str:
        """The markup of pandas' Styler for this table (`format`, `set_table_styles`, `set_caption`,
        `set_properties` on the highlight), with a uuid derived from the markup itself.

        `live=True`: the markup an explorer swaps in at every step — the same rows and cells, styled by the class
        `LIVE_CLASS` (its sheet is `live_css()`) and the highlight inline, with no <style> and no ids."""
        if live:
            return self._live_html()
        g, t = self.grid, "T_" + _UUID_PLACEHOLDER
        css = []
        for selector, props in _CSS:
            css.append(f"#{t} {selector} {{")
            css += [f"  {p.strip()};" for p in props.split(";") if p.strip()]
            css.append("}")
        cells = self._highlighted()
        if cells:
            css.append(", ".join(f"#{t}_row{i}_col{j}" for i, j in cells) + " {")
            css += [f"  background-color: {HIGHLIGHT_COLOR};", f"  color: {HIGHLIGHT_TEXT};", "}"]
        lines = ['<style type="text/css">', *css, "</style>", f'<table id="{t}">']
        if self.caption:
            lines.append(f"  <caption>{_text(self.caption)}</caption>")
        lines += ["  <thead>", "    <tr>", '      <th class="blank level0" >&nbsp;</th>']
        for j, c in enumerate(g.columns):
            lines.append(f'      <th id="{t}_level0_col{j}" class="col_heading level0 col{j}" >{_text(c)}</th>')
        lines.append("    </tr>")
        if g.index_name is not None:
            lines += ["    <tr>", f'      <th class="index_name level0" >{_text(g.index_name)}</th>']
            lines += [f'      <th class="blank col{j}" >&nbsp;</th>' for j in range(len(g.columns))]
            lines.append("    </tr>")
        lines += ["  </thead>", "  <tbody>"]
        for i, (label, row) in enumerate(zip(g.index, g.cells, strict=True)):
            lines += [
                "    <tr>",
                f'      <th id="{t}_level0_row{i}" class="row_heading level0 row{i}" >{_text(label)}</th>',
            ]
            for j, v in enumerate(row):
                lines.append(f'      <td id="{t}_row{i}_col{j}" class="data row{i} col{j}" >{self._format(v)}</td>')
            lines.append("    </tr>")
        lines += ["  </tbody>", "</table>", ""]
        html = "\n".join(lines)
        digest = hashlib.sha1(html.encode("utf-8")).hexdigest()
        return html.replace(_UUID_PLACEHOLDER, "ln" + digest[:10])

    def _live_html(self) -> str:
        g, cells = self.grid, set(self._highlighted())
        shade = f' style="background-color: {HIGHLIGHT_COLOR}; color: {HIGHLIGHT_TEXT}"'
        lines = [f'<table class="{LIVE_CLASS}">']
        if self.caption:
            lines.append(f"<caption>{_text(self.caption)}</caption>")
        lines.append("<thead><tr><th>&nbsp;</th>" + "".join(f"<th>{_text(c)}</th>" for c in g.columns) + "</tr>")
        if g.index_name is not None:
            lines.append(f"<tr><th>{_text(g.index_name)}</th>" + "<th>&nbsp;</th>" * len(g.columns) + "</tr>")
        lines.append("</thead><tbody>")
        for i, (label, row) in enumerate(zip(g.index, g.cells, strict=True)):
            tds = "".join(f"<td{shade if (i, j) in cells else ''}>{self._format(v)}</td>" for j, v in enumerate(row))
            lines.append(f"<tr><th>{_text(label)}</th>{tds}</tr>")
        lines.append("</tbody></table>")
        return "\n".join(lines)

    def to_text(self) -> str:
        """The layout of DataFrame.to_string with these formatters: the row labels left-aligned, every column
        right-aligned to its widest entry, one space between columns; a NaN shows as NaN."""
        g = self.grid
        columns = [
            [str(c)] + ["NaN" if _is_nan(row[j]) else self._format(row[j]) for row in g.cells]
            for j, c in enumerate(g.columns)
        ]
        labels = [str(r) for r in g.index]
        index_width = max([len(x) for x in labels] + ([len(g.index_name)] if g.index_name is not None else []))
        widths = [max(len(x) for x in col) for col in columns]
        header = " " * index_width + "".join(" " + col[0].rjust(w) for col, w in zip(columns, widths, strict=True))
        lines = [header]
        if g.index_name is not None:
            lines.append(g.index_name.ljust(len(header)))
        for i, label in enumerate(labels):
            cells = "".join(" " + col[i + 1].rjust(w) for col, w in zip(columns, widths, strict=True))
            lines.append(label.ljust(index_width) + cells)
        body = "\n".join(lines)
        return f"{self.caption}\n{body}" if self.caption else body

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return self.to_text()


_REFERENCE = re.compile(r"&(?=#?[0-9A-Za-z]+;)")


def _text(value) -> str:
    """A label or caption as HTML text: < and > escaped (a token named <script> is shown, never run), and & where
    it would start a character reference; a plain & (Ba, Kiros & Hinton) stays as it is, so tables render as before."""
    return _REFERENCE.sub("&amp;", str(value)).replace("<", "&lt;").replace(">", "&gt;")


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
    grid = Grid.of(
        rows, [STAGE_LABELS[n] for n in names], dim_labels(d) + [labels.SCALAR_COLUMN], message("tables.stage.index")
    )
    return Table(grid, caption or message("tables.stage.caption", eps=f"{steps.eps:g}"))


def token_table(matrix, tokens=TOKENS, *, caption: str = "", highlight=None) -> Table:
    """A (tokens × d) matrix with the tokens as row labels and 第 k 维 as column labels."""
    values = as_real_array(matrix, "matrix", min_ndim=2).astype(np.float64)
    if values.ndim != 2 or values.shape[0] != len(tokens):
        raise ValueError(f"matrix: expected shape ({len(tokens)}, d) to match tokens, got {values.shape}")
    grid = Grid.of(values, _token_rows(tokens), dim_labels(values.shape[1]), "token")
    return Table(grid, caption, highlight=highlight)


def stats_table(labels, columns: dict, *, caption: str = "", index_name: str = "") -> Table:
    """A small table of named statistics: one row per label, one column per entry of `columns`."""
    if isinstance(labels, str | bytes) or not hasattr(labels, "__iter__"):
        raise TypeError(f"labels: expected a list of row labels, got {labels!r:.40}")
    labels = list(labels)
    if not isinstance(columns, dict):
        raise TypeError(f"columns: expected a dict {{name: values}}, got {type(columns).__name__}")
    data = {
        k: as_real_array(v, f"columns[{k!r:.40}]", min_ndim=0).astype(np.float64).reshape(-1)
        for k, v in columns.items()
    }
    for name, v in data.items():
        if v.size != len(labels):
            raise ValueError(f"columns: column {name!r} has {v.size} values for {len(labels)} labels")
    return Table(Grid.from_columns(data, labels, index_name), caption)


def _token_rows(tokens) -> list:
    """Row labels of the tokens: the example's tokens as `labels.token_label` shows them (glossed in English)."""
    return [token_label(t) if isinstance(t, str) else t for t in tokens]


def _expect(value, kind: type, name: str, made_by: str):
    """Renderers take results: refuse anything else by name, saying which function makes the result."""
    if not isinstance(value, kind):
        raise TypeError(f"{name}: expected the result of {made_by}, got {type(value).__name__}")
    return value


def axis_stats_table(stats: GroupStats, tokens=TOKENS) -> Table:
    """μ, σ², σ of each group of `groups.group_stats(matrix, mode)`: per row (LayerNorm), per column, or all."""
    _expect(stats, GroupStats, "stats", "lnlib.groups.group_stats(matrix, mode)")
    n, d = stats.matrix.shape
    rows = {"row": _token_rows(tokens), "column": dim_labels(d), "all": [labels.WHOLE_TABLE]}[stats.mode]
    if stats.mode == "row" and len(rows) != n:
        raise ValueError(f"tokens: expected {n} token names for the {n} rows, got {len(rows)}")
    caption = AXIS_MODES[stats.mode].replace("12", str(stats.matrix.size))
    return stats_table(rows, {"μ": stats.mean, "σ²": stats.variance, "σ": stats.std}, caption=caption)


def vectors_table(rows: dict, *, caption: str = "", index_name: str = "") -> Table:
    """Named vectors of equal length, one per row, with 第 k 维 columns (e.g. the residual add)."""
    if not isinstance(rows, dict) or not rows:
        raise ValueError(f"rows: expected a non-empty dict of name → vector, got {rows!r:.60}")
    values = [as_real_array(v, f"rows[{k!r:.40}]", min_ndim=0).astype(np.float64).reshape(-1) for k, v in rows.items()]
    if len({v.size for v in values}) != 1:
        raise ValueError(f"rows: expected vectors of one length, got lengths {[v.size for v in values]}")
    return Table(Grid.of(values, list(rows), dim_labels(values[0].size), index_name), caption)


# --- notebooks 04–07: ε, what is kept and lost, γ and β ---------------------------------------------


def epsilon_summary(effect: EpsilonEffect) -> Table:
    """One row's σ², ε and the variance of x̂, which equals σ² / (σ² + ε) (notebook 04).

    Takes `pitfalls.epsilon_effect(x, eps)`.
    """
    _expect(effect, EpsilonEffect, "effect", "lnlib.pitfalls.epsilon_effect(x, eps)")
    row = {
        "σ²": effect.variance,
        "ε": effect.eps,
        "σ² / (σ² + ε)": effect.kept,
        message("tables.epsilon.xhat_variance"): effect.xhat_variance,
    }
    grid = Grid.of([[float(v) for v in row.values()]], [message("tables.epsilon.row")], list(row))
    return Table(grid, message("tables.epsilon.caption", eps=f"{effect.eps:.0e}"), precision=6)


_EPS_PLACEMENT_HEADERS = {"std": "σ", "std_eps": "√(σ² + ε)", "std_plus_eps": "σ + ε"}
_EPS_PLACEMENT_WORDS = Words(
    {
        "xhat1_inside": "tables.eps_placement.inside",
        "xhat1_outside": "tables.eps_placement.outside",
        "difference": "tables.eps_placement.difference",
    }
)


def eps_placement_table(placement: EpsPlacement) -> Table:
    """`pitfalls.eps_placement(rows, eps)` with Chinese headers: √(σ² + ε) versus σ + ε (notebook 04)."""
    p = _expect(placement, EpsPlacement, "placement", "lnlib.pitfalls.eps_placement(rows, eps)")
    headers = [_EPS_PLACEMENT_HEADERS.get(c) or _EPS_PLACEMENT_WORDS[c] for c in p.columns]
    grid = Grid.of(p.values, p.names, headers, message("tables.eps_placement.index"))
    return Table(grid, message("tables.eps_placement.caption", eps=f"{p.eps:g}"), precision=4)


def ddof_table(comparison: DdofComparison) -> Table:
    """÷ d (LayerNorm) versus ÷ (d − 1) (torch.std's default): σ², σ, x̂ and Var(x̂) (notebook 04).

    Takes `pitfalls.ddof_comparison(x, eps)`.
    """
    c = _expect(comparison, DdofComparison, "comparison", "lnlib.pitfalls.ddof_comparison(x, eps)")
    variants = {
        message("tables.ddof.by_d", d=c.d): (c.variance_d, c.xhat_d, c.xhat_variance_d),
        message("tables.ddof.by_d1", d1=c.d - 1): (c.variance_d1, c.xhat_d1, c.xhat_variance_d1),
    }
    records = {}
    for label, (var, xhat, xhat_var) in variants.items():
        rec = {"σ²": var, "σ": float(np.sqrt(var))}
        rec.update({f"x̂ {name}": float(v) for name, v in zip(dim_labels(c.d), xhat, strict=True)})
        rec[message("tables.ddof.xhat_variance")] = xhat_var
        records[label] = rec
    columns = list(next(iter(records.values())))
    grid = Grid.of(
        [list(rec.values()) for rec in records.values()], list(records), columns, message("tables.ddof.index")
    )
    return Table(grid, message("tables.ddof.caption", x=vector_text(c.x)))


def scale_shift_table(result: ScaleShift) -> Table:
    """x, a·x + b and the x̂ of a·x + b, each with its μ and σ (notebook 05).

    Takes `invariance.scale_shift(x, a, b, eps)`.
    """
    r = _expect(result, ScaleShift, "result", "lnlib.invariance.scale_shift(x, scale, shift, eps)")
    names = [
        message("tables.scale_shift.original"),
        message("tables.scale_shift.moved", scale=f"{r.scale:.3g}", shift=f"{r.shift:.3g}"),
        message("tables.scale_shift.xhat"),
    ]
    cells = [
        [*np.asarray(v, dtype=np.float64), float(mu), float(sd)]
        for v, mu, sd in zip(r.rows, r.means, r.stds, strict=True)
    ]
    grid = Grid.of(cells, names, [*dim_labels(r.x.size), "μ", "σ"])
    return Table(grid, message("tables.scale_shift.caption"))


def row_stats_table(stats: GroupStats, tokens=TOKENS, *, caption: str = "", name: str = "y") -> Table:
    """The mean and (÷ d) variance of each row, one row per token (notebook 06).

    Takes `groups.group_stats(matrix, "row")`.
    """
    _expect(stats, GroupStats, "stats", 'lnlib.groups.group_stats(matrix, "row")')
    if stats.mode != "row":
        raise ValueError(f"stats: expected statistics grouped by row, got {stats.mode!r}")
    return stats_table(
        _token_rows(tokens),
        {
            message("tables.row_stats.mean", name=name): stats.mean,
            message("tables.row_stats.variance", name=name): stats.variance,
        },
        caption=caption,
        index_name="token",
    )


def invariance_table(results: dict[str, list[InvarianceVerdict]]) -> Table:
    """Ba, Kiros & Hinton (2016) Table 1, computed: one ✓/✗ column (and the largest output change) per norm.

    Takes `invariance.table1(norms)`. A "论文" column per norm shows what the paper states, when
    `invariance.PAPER_TABLE1` has that norm (notebooks 05 and 08).
    """
    _expect(results, dict, "results", "lnlib.invariance.table1(norms)")
    if not results:
        raise ValueError("results: expected the verdicts of at least one normalization")
    columns = {
        message("tables.invariance.how"): [str(t.how) for t in invariance.TRANSFORMS]
    }  # column label → values, in display order
    for norm, verdicts in results.items():
        if [v.transform for v in verdicts] != list(invariance.TRANSFORMS):
            raise ValueError(f"results: the verdicts of {norm!r} do not follow invariance.TRANSFORMS")
        label = invariance.NORM_LABELS.get(norm, norm)
        columns[message("tables.invariance.max_change", label=label)] = [v.max_change for v in verdicts]
        columns[message("tables.invariance.invariant", label=label)] = ["✓" if v.invariant else "✗" for v in verdicts]
        paper = invariance.PAPER_TABLE1.get(norm)
        if paper is not None:
            columns[message("tables.invariance.paper", label=label)] = [
                "✓" if paper[t.key] else "✗" for t in invariance.TRANSFORMS
            ]
    grid = Grid.from_columns(columns, [str(t.label) for t in invariance.TRANSFORMS], message("tables.invariance.index"))
    return Table(grid, message("tables.invariance.caption"), precision=3)


# --- notebook 13: numerics ---------------------------------------------------------------------------


def variance_table(methods: VarianceMethods) -> Table:
    """σ² and x̂ of offset + base computed four ways (notebook 13's explorer and its static cell).

    Takes `numerics.variance_methods(offset, dtype, base)`.
    """
    m = _expect(methods, VarianceMethods, "methods", "lnlib.numerics.variance_methods(offset, dtype, base)")
    rows = [[m.variances[key], *m.normalized[key]] for key in VARIANCE_METHODS]
    columns = ["σ²", *[f"x̂ {label}" for label in dim_labels(len(m.base))]]
    grid = Grid.of(
        np.asarray(rows, dtype=np.float64), list(VARIANCE_METHODS.values()), columns, message("tables.variance.index")
    )
    caption = message(
        "tables.variance.caption",
        offset=f"{m.offset:g}",
        base=str(list(m.base)),
        dtype=m.dtype,
        true_variance=f"{m.true_variance:g}",
    )
    return Table(grid, caption, na_rep="NaN")


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
        caption=message("tables.gradient.caption"),
        index_name=message("tables.gradient.index"),
    )
