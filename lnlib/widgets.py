"""ipywidgets explorers: controls wired to lnlib's computations, tables and plots.

Each explorer computes its result once per change, renders the tables with `lnlib.tables` and moves a kept
figure (`lnlib.live.LiveFigure`, started from the same `lnlib.plots` figure the notebooks store) instead of
drawing a new one, so a slider answers in tens of milliseconds. Every control is wired the same way, through a
`live.Coalescer`: a change made in Python renders at once (tests set a control's `.value` and read the rendered
HTML without a browser), a burst of changes from the browser renders once with the latest value.
Bad text shows a short Chinese message inside the widget and keeps the last valid state. Constructor arguments
outside a control's range raise ValueError naming the argument (a slider would silently clamp them).
"""

from __future__ import annotations

import asyncio
import html
import math
import numbers
from collections import OrderedDict

import ipywidgets as widgets
import numpy as np

from . import groups, invariance, labels, numerics, pitfalls, plots, tables
from ._checks import as_real_array, check_eps
from .data import TOKEN_MATRIX, TOKENS
from .labels import number
from .live import Coalescer, LiveFigure, from_browser, moving_artists, set_bars, set_cells, split_title
from .norms import layer_norm
from .stages import layer_norm_steps
from .text_input import MAX_VALUES, parse_vector
from .transformer import attention_at_scale, entropy, ffn_gradient_norms


def error_html(message: str) -> str:
    return f'<span style="color:#b91c1c">⚠ {html.escape(message)}</span>'


# --- an explorer without a live kernel says so (issue 32) -------------------------------------------------------
#
# A widget view whose model has no live connection to a kernel — restored from the state stored in the notebook
# when it is opened, or left on the page when the kernel restarts — carries ipywidgets' class
# `jupyter-widgets-disconnected`, and its controls do nothing. Every explorer's box holds, first, an HTML widget
# with a style sheet and a Chinese notice: the style sheet shows the notice and hides everything else of the
# explorer while the box is disconnected (so no picture or number can disagree with the controls), and hides the
# notice while the kernel is live. It needs no JavaScript: the same state works from the kernel and from the
# notebook file. The sheet also makes the explorers' tables as compact as the static ones (an HTML widget's text
# otherwise gets the 28 px line height of a control).

EXPLORER_CLASS = "ln-explorer"
NOTICE_CLASS = "ln-offline"
OFFLINE_MESSAGE = (
    "【探索器暂时不能用】这个探索器没有连着正在运行的内核（刚打开笔记本，或者内核重启过），所以拖动、点击和输入都不会有反应。"
    "请重新运行上面的单元格和这个单元格（从上到下依次按 Shift + Enter），或选择菜单「Run → Run All Cells」。"
)
OFFLINE_CSS = f"""
.{EXPLORER_CLASS} > .{NOTICE_CLASS} {{ display: none; }}
.{EXPLORER_CLASS}.jupyter-widgets-disconnected > .{NOTICE_CLASS} {{ display: flex; }}
.{EXPLORER_CLASS}.jupyter-widgets-disconnected > :not(.{NOTICE_CLASS}) {{ display: none !important; }}
.{EXPLORER_CLASS}.jupyter-widgets-disconnected::before,
.{EXPLORER_CLASS} .jupyter-widgets-disconnected::before {{ display: none !important; }}
.{EXPLORER_CLASS}.jupyter-widgets-disconnected img {{ display: none !important; }}
.{EXPLORER_CLASS} .widget-html > .widget-html-content {{ line-height: normal; }}
""".strip()


def offline_notice() -> widgets.HTML:
    """The notice an explorer shows, instead of its controls and outputs, when no kernel is behind it."""
    notice = widgets.HTML(
        f"<style>{OFFLINE_CSS}</style>"
        f'<div style="color:#b91c1c;line-height:1.5;padding:4px 0">{html.escape(OFFLINE_MESSAGE)}</div>'
    )
    notice.add_class(NOTICE_CLASS)
    return notice


# --- constructor arguments: refuse what a control would silently clamp -----------------------------------------


def _real(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a real number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name}: expected a finite number, got {value!r}")
    return v


def _in_range(value, name: str, low: float, high: float) -> float:
    """`value` if the control can show it (low ≤ value ≤ high), else ValueError naming the argument."""
    v = _real(value, name)
    if not low <= v <= high:
        raise ValueError(f"{name}: the control covers {low:g} … {high:g}, got {value!r}")
    return v


def _in_log_range(value, name: str, low_exp: float, high_exp: float) -> float:
    v = _real(value, name)
    if not 10.0**low_exp * (1 - 1e-12) <= v <= 10.0**high_exp * (1 + 1e-12):
        raise ValueError(f"{name}: the slider covers {10.0**low_exp:g} … {10.0**high_exp:g}, got {value!r}")
    return v


def _int_in_range(value, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name}: the slider covers {low} … {high}, got {value!r}")
    return int(value)


def _matrix_and_tokens(matrix, tokens) -> tuple[np.ndarray, tuple[str, ...]]:
    values = as_real_array(matrix, "matrix", min_ndim=2).astype(np.float64)
    if values.ndim != 2 or 0 in values.shape:
        raise ValueError(f"matrix: expected a non-empty 2-D (tokens × d) matrix, got shape {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError("matrix: expected finite numbers, got inf or NaN")
    tokens = tuple(str(t) for t in tokens)
    if len(tokens) != values.shape[0]:
        raise ValueError(f"tokens: expected {values.shape[0]} names (one per row of matrix), got {len(tokens)}")
    return values, tokens


def _state_key(state: tuple) -> tuple:
    """A state as a cache key: floats to 12 significant digits, so a slider value the browser computed and the
    same step computed here (they may differ in the last bit) are one state."""
    return tuple(float(f"{v:.12g}") if isinstance(v, float) else v for v in state)


def _steps(control: widgets.Widget) -> list:
    """The values one step away from a slider's value, within its range (none for other controls)."""
    if not isinstance(control, (widgets.FloatLogSlider, widgets.FloatSlider, widgets.IntSlider)):
        return []
    log = isinstance(control, widgets.FloatLogSlider)
    at = math.log(control.value, control.base) if log else control.value
    k = round((at - control.min) / control.step)
    values = []
    for j in (k + 1, k - 1):
        position = control.min + j * control.step
        if control.min - 1e-9 <= position <= control.max + 1e-9:
            values.append(control.base**position if log else type(control.value)(position))
    return values


def _inks(rgba: np.ndarray) -> list[str]:
    """Black or white text for each cell colour, as `lnlib.plots` writes numbers on coloured cells."""
    return plots.inks_on(rgba)


# --- the explorers ---------------------------------------------------------------------------------------------


class Explorer:
    """Base: a VBox in `self.box`; displaying the explorer displays the box. The box starts with a notice that
    only shows when no live kernel is behind the explorer (see `offline_notice`).

    `render()` draws the current state; `self.updates` (a `live.Coalescer`) calls it for every wired control.
    A render sets the picture before the tables: the browser applies the updates in order, so once the new
    numbers show, the picture that belongs to them is already there.

    Explorers that define `view(state)` (what each output shows for a state of the controls) get it kept per state
    and drawn ahead: inside a running kernel, in idle time, the states one step up and down on the slider moved last
    are computed, so the next step of that slider only sends what is ready.
    """

    updates: Coalescer
    controls: tuple[widgets.Widget, ...] = ()
    PREFETCH_DELAY = 0.05  # seconds of idle time before `prefetch` runs (explorers that draw ahead)
    VIEWS = 64  # states whose outputs are kept

    def _wire(self, *controls: widgets.Widget) -> None:
        """One observer for every control: any change asks for one render (coalesced for the browser)."""
        self.controls = controls
        self._views: OrderedDict[tuple, list] = OrderedDict()
        self._moved = 0  # the control moved last: its neighbours are drawn ahead first
        self.updates = Coalescer(self.render)
        for control in controls:
            control.observe(self._on_control, names="value")

    def _on_control(self, change) -> None:
        self._moved = self.controls.index(change["owner"])
        self.updates.request(change)

    def state(self) -> tuple:
        """What the outputs show depends on: the controls' values, last (explorers put more in front)."""
        return tuple(control.value for control in self.controls)

    def view(self, state: tuple) -> list[tuple[widgets.Widget, object]]:
        """(output widget, value) pairs showing `state`, the picture first; computed from `state` alone."""
        raise NotImplementedError

    def render(self) -> None:
        self._show(self.state())
        self._prefetch_later()

    def _show(self, state: tuple) -> None:
        for output, value in self._view(state):
            output.value = value  # the same value again sends nothing

    def _view(self, state: tuple) -> list[tuple[widgets.Widget, object]]:
        key = _state_key(state)
        shown = self._views.get(key)
        if shown is None:
            shown = self._views[key] = self.view(state)
            while len(self._views) > self.VIEWS:
                self._views.popitem(last=False)
        else:
            self._views.move_to_end(key)
        return shown

    def neighbours(self) -> list[tuple]:
        """The states one step up and one step down on the slider moved last (only: drawing ahead must stay a
        small, bounded cost, or it slows down the browser on a busy machine)."""
        if not self.controls:
            return []
        state = self.state()
        at = len(state) - len(self.controls) + self._moved
        return [(*state[:at], value, *state[at + 1 :]) for value in _steps(self.controls[self._moved])]

    def prefetch(self) -> None:
        """Compute the next missing neighbour of the current state (one per call, then reschedule)."""
        for state in self.neighbours():
            if _state_key(state) not in self._views:
                self._view(state)
                self._prefetch_later()
                return

    def _prefetch_later(self) -> None:
        """Inside a running kernel, call `self.prefetch()` in idle time (explorers that draw ahead define it)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # plain Python (tests, scripts): nothing runs in the background
            return
        loop.call_later(self.PREFETCH_DELAY, self.prefetch)

    @property
    def box(self) -> widgets.Box:
        return self._box

    @box.setter
    def box(self, box: widgets.Box) -> None:
        """The explorer's box, with the notice for a missing kernel put first (see `offline_notice`)."""
        box.children = (offline_notice(), *box.children)
        box.add_class(EXPLORER_CLASS)
        self._box = box

    def _repr_mimebundle_(self, **kwargs):
        """The box's widget view; its plain-text form (what JupyterLab shows for a notebook just opened and not
        yet run, which it does not trust to render widgets) is the notice, not the repr of a VBox."""
        bundle = self.box._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict) and "text/plain" in bundle:
            bundle = {**bundle, "text/plain": f"{type(self).__name__}：{OFFLINE_MESSAGE}"}
        return bundle


class TypedVectorExplorer(Explorer):
    """Base for explorers with a text box for a vector: `self.text`, `self.message`, `self.values`.

    In the browser a typed vector applies on Enter, not on every key: "2", "20", "20, 4" … are not the vector the
    learner means. The keys still reach the kernel, as a draft: when the keys pause, a draft that reads as a vector
    of a length with a kept figure is drawn ahead (`_draw_draft`), so that Enter usually only sends what is ready
    (a draft of a new length is not: "2", "20, 4" … would each build a figure and push the kept ones out, and the
    Enter would wait behind them). Moving another control applies the text first (the learner who typed and then
    took a slider means the new vector). A change of `text.value` made in Python (a notebook cell, a test) applies
    at once.

    Bad text shows the Chinese message (on Enter) and keeps the last valid `values` (and so the last table and
    plot); the message stays until the text is valid again, whatever other control moves meanwhile.
    """

    max_magnitude = 1e100  # plots need headroom: axis limits and curves multiply the values

    def _init_text(self, text: str) -> None:
        if not isinstance(text, str):
            raise TypeError(f"text: expected a str such as '2, 4, 6, 8', got {type(text).__name__}")
        try:
            self.values = self.read(text)
        except ValueError as err:
            raise ValueError(f"text: {err}") from None
        # every key is sent (a draft, drawn ahead while the learner types); Enter applies it (see the class doc)
        self.text = widgets.Text(
            value=text,
            description="向量 x（回车）：",
            continuous_update=True,
            style={"description_width": "initial"},
            layout=widgets.Layout(width="420px"),
        )
        self.message = widgets.HTML()
        self._draft: tuple | None = None  # the state a typed, not yet applied vector would show
        self._applied = text  # the text last applied (shown, or refused with its message)
        self._draft_timer: asyncio.TimerHandle | None = None

    def read(self, text: str) -> np.ndarray:
        """parse_vector plus the explorer's own limit; raises ValueError with a Chinese message."""
        values = parse_vector(text)
        if np.max(np.abs(values)) > self.max_magnitude:
            raise ValueError(f"数字太大：小工具只接受绝对值不超过 {self.max_magnitude:.0e} 的数。")
        return values

    def _wire(self, *controls: widgets.Widget) -> None:
        super()._wire(*controls)
        self._figures: OrderedDict[int, dict] = OrderedDict()  # the kept figure of each row length (see _use_length)
        self.text.observe(self.on_text, names="value")
        self.text.on_msg(self._on_text_msg)  # the browser's Text sends {"event": "submit"} on Enter

    def state(self) -> tuple:
        return (self.values.tobytes(), *super().state())

    FIGURE_ATTRS = ("_live", "_live_for", "_title", "_mean")  # what an explorer keeps of its live figure
    LENGTHS = 4  # row lengths whose figures are kept

    def _use_length(self, n: int) -> None:
        """Make the kept figure for rows of n numbers the current one (call at the start of `view`): each length
        keeps its own, so going back to a length, or to one drawn ahead, moves that figure instead of building a
        new one. A length seen for the first time starts from the current figure (its panels' places)."""
        if self.__dict__.get("_live") is None:  # no figure yet (or dropped to start over): none is kept
            self._figures.clear()
            return
        current = len(self._live_for) // 8
        if current == n:
            return
        self._figures[current] = {a: self.__dict__.get(a) for a in self.FIGURE_ATTRS}
        self._figures.move_to_end(current)
        kept = self._figures.pop(n, None)
        if kept is not None:
            self.__dict__.update(kept)
        while len(self._figures) >= self.LENGTHS:
            self._figures.popitem(last=False)

    def _has_figure(self, n: int) -> bool:
        """A figure for rows of n numbers exists (the current one or a kept one): such a row costs no new figure."""
        return self.__dict__.get("_live") is not None and (n == len(self._live_for) // 8 or n in self._figures)

    def neighbours(self) -> list[tuple]:
        """The slider steps (as every explorer), then a row one number shorter and one longer: a learner who edits
        the vector often adds or removes one, and a new length needs a new figure."""
        states = super().neighbours()
        values = self.values
        rest = self.state()[1:]
        if values.size > 1:
            states.append((values[:-1].tobytes(), *rest))
        if values.size < MAX_VALUES:
            longer = np.append(values, values[-1] + (values[-1] - values[0]) / max(values.size - 1, 1) + 1.0)
            states.append((longer.tobytes(), *rest))
        return states

    def on_text(self, change) -> None:
        """A key typed in the browser makes a draft (drawn ahead when it reads as a vector); a change made in
        Python applies at once."""
        if not from_browser(change):
            self.apply_text(change["new"])
            return
        try:
            values = self.read(change["new"])
        except ValueError:
            self._draft = None  # nothing to draw ahead; Enter will show why
            return
        self._draft = (values.tobytes(), *self.state()[1:])
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # plain Python: nothing runs in the background
            return
        if self._draft_timer is not None:  # the keys have not paused yet: only the latest draft counts
            self._draft_timer.cancel()
        self._draft_timer = loop.call_later(self.PREFETCH_DELAY, self._draw_draft)

    def _draw_draft(self) -> None:
        self._draft_timer = None
        draft = self._draft
        if draft is None or _state_key(draft) in self._views:
            return
        if self._has_figure(len(draft[0]) // 8):
            self._view(draft)

    def _on_text_msg(self, _widget, content, _buffers) -> None:
        if isinstance(content, dict) and content.get("event") == "submit":
            self.apply_text(self.text.value)

    def _on_control(self, change) -> None:
        if self.text.value != self._applied:  # typed, no Enter, then another control: the new vector first
            self._take_text(self.text.value)
        super()._on_control(change)

    def apply_text(self, text: str) -> None:
        """Show the vector `text` (or, when it is not one, the message saying why, keeping the last vector)."""
        if self._take_text(text):
            self.updates.request()

    def _take_text(self, text: str) -> bool:
        """Read `text` into `values` (True), or show why it is not a vector and keep the last one (False)."""
        self._applied = text
        try:
            self.values = self.read(text)
        except ValueError as err:
            self.message.value = error_html(str(err))
            return False
        self._draft = None
        self.message.value = ""
        return True


class VectorExplorer(TypedVectorExplorer):
    """Type a vector, move ε: the stage table and the stage plot follow (notebook 03).

    The x̂ panel keeps one y axis for every row of its length (the largest |x̂| such a row can have as ε → 0),
    so the bars visibly shrink as ε grows and a typed row of the same length redraws no axis there.
    """

    def __init__(self, text: str = "2, 4, 6, 8", eps: float = 1e-5):
        eps = _in_log_range(eps, "eps", -8, 0)
        self._init_text(text)
        self.eps = widgets.FloatLogSlider(
            value=eps, base=10, min=-8, max=0, step=0.5, description="ε：", readout_format=".0e", continuous_update=True
        )
        self.table = widgets.HTML()
        self.plot = widgets.Image(format="png")
        self.box = widgets.VBox([self.text, self.eps, self.message, self.table, self.plot])
        self._live: LiveFigure | None = None
        self._live_for = b""
        self._wire(self.eps)
        self.render()

    def view(self, state: tuple) -> list:
        row, eps = state
        values = np.frombuffer(row)
        self._use_length(values.size)
        steps = layer_norm_steps(values, eps=float(eps))
        return [(self.plot, self._frame(values, steps)), (self.table, tables.stage_table(steps).to_html())]

    def _frame(self, values: np.ndarray, steps) -> bytes:
        row = values.tobytes()
        key = (row, steps.eps)
        png = self._live.cached(key) if self._live is not None else None
        if png is not None:
            return png
        if self._live is None or len(self._live_for) != len(row):
            self._live, self._live_for = _successor(self._live, plots.stage_bars(steps)), row
            x_ax, c_ax, panel = self._live.fig.axes[:3]
            bound = 1.3 * _xhat_bound(values.size)  # every row of this length fits: no new axis per typed row
            panel.set_ylim(-bound, bound)
            self._title = split_title(panel, r"归一化 $\hat{x}$", self._divisor(steps))
            self._mean = split_title(x_ax, r"输入 $x$", self._mean_text(steps))  # mathtext laid out once
            # a typed row of the same length only moves these: bars, texts and the y axes of x and x − μ
            self._live.animate(
                [*moving_artists(x_ax), *moving_artists(c_ax), x_ax.yaxis, c_ax.yaxis, *moving_artists(panel)]
                + [self._mean, self._title]
            )
        elif self._live_for != row:  # a new row of the same length: new bars and y axes, same figure
            for ax, (values, _, _, hline) in zip(self._live.fig.axes[:2], plots.stage_panels(steps), strict=False):
                set_bars(ax, values)
                if hline is not None:
                    ax.lines[1].set_ydata([hline, hline])
                ax.relim()
                ax.autoscale_view(scalex=False)
                ax.yaxis.stale = True  # new limits: new ticks
            self._mean.set_text(self._mean_text(steps))
            self._live_for = row
        set_bars(self._live.fig.axes[2], steps.normalized)
        self._title.set_text(self._divisor(steps))
        return _fitted_png(self._live, key)

    @staticmethod
    def _mean_text(steps) -> str:
        return f"虚线：μ = {float(steps.mean):.4g}"

    @staticmethod
    def _divisor(steps) -> str:
        return f"÷ √(σ²+ε) = {float(steps.std_eps):.4g}"


def _successor(old: LiveFigure | None, fig) -> LiveFigure:
    """A LiveFigure for a new figure of the same kind (a vector of another length): its axes go where the old
    figure's are, with no layout pass, so the panels stay put; `_fitted_png` lays it out if a label does not fit.
    The first figure is laid out with room for wide tick labels."""
    live = LiveFigure(fig)
    if old is None:
        live.lay_out_roomy()  # room for the tick labels of the vectors a learner types next
    else:
        live.use_positions(old.positions())
    return live


def _fitted_png(live: LiveFigure, key) -> bytes:
    """The frame; drawn again with a new layout when new tick labels no longer fit the frozen one."""
    png = live.png(key)
    if not live.fits():
        live.relayout()
        png = live.png(key)
    return png


def _xhat_bound(d: int) -> float:
    """The largest max |x̂| any row of d numbers can have as ε → 0: √(d − 1), reached when one value differs from
    all the others (Samuelson's inequality); 1 for d = 1. An axis this tall fits every row of that length."""
    return math.sqrt(d - 1) if d > 1 else 1.0


class AxisExplorer(Explorer):
    """Choose 按行 / 按列 / 全表 and which row or column: see which cells feed one μ and σ (notebook 02)."""

    def __init__(self, matrix=TOKEN_MATRIX, tokens=TOKENS):
        self.matrix, self.tokens = _matrix_and_tokens(matrix, tokens)
        self.mode = widgets.ToggleButtons(
            options=[("按行", "row"), ("按列", "column"), ("全表", "all")], value="row", description="统计方向："
        )
        self.index = widgets.ToggleButtons(description="哪一个：")  # 3–4 choices: one click, no menu
        self.plot = widgets.Image(format="png")
        self.summary = widgets.HTML()
        self._switching = False
        self._live: LiveFigure | None = None
        self._set_index_options()
        self.mode.observe(self.on_mode, names="value")
        self._wire(self.index)
        self.box = widgets.VBox([self.mode, self.index, self.summary, self.plot])
        self.render()

    def _index_options(self, mode: str) -> list[tuple[str, int]]:
        if mode == "row":
            return [(t, i) for i, t in enumerate(self.tokens)]
        if mode == "column":
            return [(label, j) for j, label in enumerate(labels.dim_labels(self.matrix.shape[1]))]
        return [("整张表", 0)]

    def _first_index(self, mode: str) -> int:
        return self._index_options(mode)[-1][1] if mode == "row" else 0

    def _set_index_options(self) -> None:
        self._switching = True  # new options fire the index observer; render once, after both are set
        try:
            with self.index.hold_sync():  # options, value and disabled in one message
                self.index.options = self._index_options(self.mode.value)
                self.index.value = self._first_index(self.mode.value)
                self.index.disabled = self.mode.value == "all"
        finally:
            self._switching = False

    def on_mode(self, change) -> None:
        # the new picture and table before the new buttons: the browser shows the messages in order
        self._show((self.mode.value, self._first_index(self.mode.value)))
        self._set_index_options()
        self.updates.request(change)

    def state(self) -> tuple:
        return (self.mode.value, self.index.value)

    def view(self, state: tuple) -> list:
        mode, index = state
        table = tables.axis_stats_table(groups.group_stats(self.matrix, mode), tokens=self.tokens)
        return [(self.plot, self._frame(groups.selection(self.matrix, mode, index))), (self.summary, table.to_html())]

    def render(self) -> None:
        if not self._switching:
            super().render()

    def neighbours(self) -> list[tuple]:
        """Every choice (a handful): all are drawn ahead in idle time."""
        return [(mode, i) for mode in ("row", "column", "all") for _, i in self._index_options(mode)]

    def _frame(self, sel) -> bytes:
        key = (sel.mode, sel.index)
        if self._live is None:
            self._live = LiveFigure(plots.highlight_heatmap(sel, tokens=self.tokens))
            ax = self._live.fig.axes[0]
            ax.title.set_text(_axis_title(sel))
            self._live.animate([*moving_artists(ax), ax.title])
            return self._live.png(key)
        png = self._live.cached(key)
        if png is not None:
            return png
        ax = self._live.fig.axes[0]
        shade = np.where(sel.mask, 1.0, 0.15)
        texts = [
            [t.get_text() for t in ax.texts[i * shade.shape[1] : (i + 1) * shade.shape[1]]] for i in range(len(shade))
        ]
        set_cells(ax, shade, texts, colors=lambda rgba: plots.highlight_inks(sel.mask, rgba))
        rows, cols = np.nonzero(sel.mask)
        ax.patches[0].set_bounds(
            cols.min() - 0.5, rows.min() - 0.5, cols.max() - cols.min() + 1, rows.max() - rows.min() + 1
        )
        ax.title.set_text(_axis_title(sel))
        return self._live.png(key)


def _axis_title(sel) -> str:
    """The heatmap's title in plain text (μ, σ as letters, not mathtext: a new title per frame stays cheap)."""
    return f"{labels.AXIS_TITLES[sel.mode]}：参与统计的 {sel.size} 个数  μ = {sel.mean:.4g}，σ = {sel.std:.4g}"


# --- notebooks 04–07: ε, what is kept and lost, γ and β ---------------------------------------------


class EpsilonExplorer(TypedVectorExplorer):
    """Move ε on a log scale (1e-8 … 1) over a nearly constant row and watch x̂ shrink (notebook 04)."""

    def __init__(self, text: str = "3, 3.002, 2.998, 3", eps: float = 1e-5):
        eps = _in_log_range(eps, "eps", -8, 0)
        self._init_text(text)
        self.eps = widgets.FloatLogSlider(
            value=eps,
            base=10,
            min=-8,
            max=0,
            step=0.25,
            description="ε：",
            readout_format=".0e",
            continuous_update=True,
            layout=widgets.Layout(width="420px"),
        )
        self.summary = widgets.HTML()
        self.table = widgets.HTML()
        self.plot = widgets.Image(format="png")
        self.box = widgets.VBox([self.text, self.eps, self.message, self.summary, self.table, self.plot])
        self._live: LiveFigure | None = None
        self._live_for = b""
        self._wire(self.eps)
        self.render()

    def view(self, state: tuple) -> list:
        row, eps = state
        self._use_length(len(row) // 8)
        effect = pitfalls.epsilon_effect(np.frombuffer(row), float(eps))
        return [
            (self.plot, self._frame(row, effect)),
            (self.summary, tables.epsilon_summary(effect).to_html()),
            (self.table, tables.stage_table(effect.steps).to_html()),
        ]

    def _frame(self, row: bytes, effect) -> bytes:
        key = (row, effect.eps)
        if self._live is None or len(self._live_for) != len(row):
            self._live, self._live_for = _successor(self._live, plots.epsilon_plot(effect)), row
            left, right = self._live.fig.axes[:2]
            left.set_ylim(-1.25 * _xhat_bound(effect.x.size), 1.25 * _xhat_bound(effect.x.size))
            self._title = split_title(left, r"$\hat{x}$", f"ε = {effect.eps:.0e}")
            self._live.animate([*moving_artists(left), self._title, *moving_artists(right)])
            return _fitted_png(self._live, key)
        if self._live_for != row:  # a new row of the same length: only the animated artists move
            self._move_to(effect)
            self._live_for = row
            return self._live.png(key)
        png = self._live.cached(key)
        if png is None:
            left, right = self._live.fig.axes[:2]
            set_bars(left, effect.steps.normalized)
            self._title.set_text(f"ε = {effect.eps:.0e}")
            for marker in _markers(right):
                marker.set_data([effect.eps], [effect.kept])
            png = self._live.png(key)
        return png

    def _move_to(self, effect) -> None:
        """The kept figure redrawn for a new row of the same length (what `plots.epsilon_plot` would draw)."""
        left, right = self._live.fig.axes[:2]
        set_bars(left, effect.steps.normalized)
        self._title.set_text(f"ε = {effect.eps:.0e}")
        curve = right.lines[0]
        curve.set_ydata(pitfalls.kept_variance(effect.sigma, curve.get_xdata()))
        for marker in _markers(right):
            marker.set_data([effect.eps], [effect.kept])
        shown, at = plots.epsilon_guide_shown(effect), effect.sigma**2
        for line in (line for line in right.lines if line.get_linestyle() == ":"):  # the ε = σ² guide
            line.set_visible(shown)
            if shown:
                line.set_xdata([at, at])
        for text in right.texts:  # its label
            text.set_visible(shown)
            if shown:
                text.xy = (at, text.xy[1])


def _markers(ax) -> list:
    """The point that marks the current value on a curve (a line drawn with a marker and no line)."""
    return [line for line in ax.lines if line.get_linestyle() == "None" and line.get_marker() not in ("", "None")]


class ScaleShiftExplorer(TypedVectorExplorer):
    """Scale a row by a and shift it by b: a·x + b moves, its x̂ stays the same (notebook 05)."""

    def __init__(self, text: str = "2, 4, 6, 8", scale: float = 1.0, shift: float = 0.0, eps: float = 1e-5):
        scale = _in_log_range(scale, "scale", -1, 1)
        shift = _in_range(shift, "shift", -50, 50)
        self.eps = check_eps(eps)
        self._init_text(text)
        self.scale = widgets.FloatLogSlider(
            value=scale,
            base=10,
            min=-1,
            max=1,
            step=0.05,
            description="缩放 a：",
            readout_format=".3g",
            continuous_update=True,
            layout=widgets.Layout(width="420px"),
        )
        self.shift = widgets.FloatSlider(
            value=shift,
            min=-50,
            max=50,
            step=1,
            description="平移 b：",
            continuous_update=True,
            layout=widgets.Layout(width="420px"),
        )
        self.table = widgets.HTML()
        self.plot = widgets.Image(format="png")
        self.box = widgets.VBox([self.text, self.scale, self.shift, self.message, self.table, self.plot])
        self._live: LiveFigure | None = None
        self._live_for = b""
        self._wire(self.scale, self.shift)
        self.render()

    def _ylim(self, values: np.ndarray) -> tuple[float, float]:
        """A fixed axis for a·x + b that fits every slider position, so the bars visibly move."""
        top = 10.0**self.scale.max
        reach = top * float(np.max(np.abs(values))) + max(abs(self.shift.min), abs(self.shift.max))
        return -1.05 * reach, 1.05 * reach

    def view(self, state: tuple) -> list:
        row, scale, shift = state
        self._use_length(len(row) // 8)
        result = invariance.scale_shift(np.frombuffer(row), float(scale), float(shift), self.eps)
        return [(self.plot, self._frame(row, result)), (self.table, tables.scale_shift_table(result).to_html())]

    def _frame(self, row: bytes, r) -> bytes:
        key = (row, r.scale, r.shift)
        png = self._live.cached(key) if self._live is not None else None
        if png is not None:
            return png
        if self._live is None or len(self._live_for) != len(row):
            self._live = _successor(self._live, plots.scale_shift_bars(r, ylim=self._ylim(np.frombuffer(row))))
            left, right = self._live.fig.axes[:2]
            self._title = split_title(left, r"$a\cdot x+b$", f"a = {r.scale:.3g}，b = {r.shift:.3g}")
            self._live.animate([*moving_artists(left), left.yaxis, self._title, *moving_artists(right)])
        elif self._live_for != row:  # a new vector of the same length: a new fixed axis, same figure
            left = self._live.fig.axes[0]
            left.set_ylim(*self._ylim(np.frombuffer(row)))
            left.yaxis.stale = True  # new limits: new ticks (only this panel is drawn again)
        self._live_for = row
        left, right = self._live.fig.axes[:2]
        set_bars(left, r.moved)
        self._title.set_text(f"a = {r.scale:.3g}，b = {r.shift:.3g}")
        set_bars(right, r.normalized)
        return _fitted_png(self._live, key)


class GammaBetaExplorer(Explorer):
    """Four γ and four β sliders applied to the whole token matrix: the table and the heatmap of y follow
    (notebook 06). γ and β are per dimension and shared by every token."""

    LIMIT = 7.5  # the colour scale of the heatmap: |γ·x̂ + β| ≤ 3·√3 + 3 for 4 dimensions and sliders up to ±3

    def __init__(self, matrix=TOKEN_MATRIX, tokens=TOKENS, eps: float = 1e-5):
        self.matrix, self.tokens = _matrix_and_tokens(matrix, tokens)
        self.eps = check_eps(eps)
        dims = labels.dim_labels(self.matrix.shape[1])
        self.gammas = [
            widgets.FloatSlider(value=1.0, min=-3, max=3, step=0.1, description=f"γ {label}：", continuous_update=True)
            for label in dims
        ]
        self.betas = [
            widgets.FloatSlider(value=0.0, min=-3, max=3, step=0.1, description=f"β {label}：", continuous_update=True)
            for label in dims
        ]
        for slider in self.gammas + self.betas:
            slider.style.description_width = "80px"
        self.table = widgets.HTML()
        self.stats = widgets.HTML()
        self.plot = widgets.Image(format="png")
        controls = widgets.HBox([widgets.VBox(self.gammas), widgets.VBox(self.betas)])
        self.box = widgets.VBox([controls, self.table, self.stats, self.plot])
        self._live: LiveFigure | None = None
        self._wire(*self.gammas, *self.betas)
        self.render()

    @property
    def gamma(self) -> np.ndarray:
        return np.array([s.value for s in self.gammas], dtype=np.float64)

    @property
    def beta(self) -> np.ndarray:
        return np.array([s.value for s in self.betas], dtype=np.float64)

    def view(self, state: tuple) -> list:
        d = len(self.gammas)
        gamma, beta = np.array(state[:d], dtype=np.float64), np.array(state[d:], dtype=np.float64)
        y = layer_norm_steps(self.matrix, gamma, beta, eps=self.eps).output
        caption = "输出 y = γ ⊙ x̂ + β（每个 token 共用同一组 γ、β）"
        stats = groups.group_stats(y, "row")
        return [
            (self.plot, self._frame(y, (gamma.tobytes(), beta.tobytes()))),
            (self.table, tables.token_table(y, self.tokens, caption=caption).to_html()),
            (self.stats, tables.row_stats_table(stats, self.tokens, caption="每一行 y 的均值和方差").to_html()),
        ]

    def _frame(self, y: np.ndarray, key) -> bytes:
        if self._live is None:
            fig = plots.value_heatmap(y, self.tokens, title=r"输出 $y=\gamma\odot\hat{x}+\beta$", limit=self.LIMIT)
            self._live = LiveFigure(fig)
            ax = self._live.fig.axes[0]
            self._live.animate(moving_artists(ax))
            return self._live.png(key)
        png = self._live.cached(key)
        if png is None:
            set_cells(self._live.fig.axes[0], y, [[number(v) for v in row] for row in y], colors=_inks)
            png = self._live.png(key)
        return png


class VarianceExplorer(Explorer):
    """Slide the offset c of c + [0, 1, 2, 3] and pick a dtype: one-pass vs two-pass σ² and x̂ (notebook 13)."""

    DTYPES = ("float16", "float32", "float64")

    def __init__(self, exponent: int = 4, dtype: str = "float32"):
        exponent = _int_in_range(exponent, "exponent", 0, 8)
        if dtype not in self.DTYPES:
            raise ValueError(f"dtype: expected one of {self.DTYPES}, got {dtype!r}")
        self.exponent = widgets.IntSlider(
            value=exponent,
            min=0,
            max=8,
            step=1,
            description="偏移 10^k，k：",
            continuous_update=True,
            style={"description_width": "initial"},
        )
        self.dtype = widgets.ToggleButtons(options=list(self.DTYPES), value=dtype, description="精度：")
        self.table = widgets.HTML()
        self.box = widgets.VBox([self.exponent, self.dtype, self.table])
        self._wire(self.exponent, self.dtype)
        self.render()

    def render(self) -> None:
        methods = numerics.variance_methods(10.0**self.exponent.value, self.dtype.value)
        self.table.value = tables.variance_table(methods).to_html()


# ---------------------------------------------------------------- notebooks 08–10


class BatchExplorer(Explorer):
    """Notebook 08: scale the other sentence in the batch; our sentence's BatchNorm output moves, LayerNorm's stays."""

    def __init__(self, scale: float = 1.0, matrix=TOKEN_MATRIX, tokens=TOKENS):
        scale = _in_range(scale, "scale", 0.0, 20.0)
        self.matrix, self.tokens = _matrix_and_tokens(matrix, tokens)
        self.scale = widgets.FloatSlider(
            value=scale, min=0.0, max=20.0, step=0.5, description="另一句 ×", continuous_update=True
        )
        self.bn = widgets.HTML()
        self.ln = widgets.HTML()
        self.box = widgets.VBox([self.scale, self.bn, self.ln])
        self._wire(self.scale)
        self.render()

    def render(self) -> None:
        bn, ln = invariance.batch_dependence(self.scale.value, self.matrix)
        bn_caption = f"BatchNorm：我们这句的输出（另一句 × {number(self.scale.value)}）"
        ln_caption = "LayerNorm：我们这句的输出（与另一句无关）"
        self.bn.value = tables.token_table(bn, self.tokens, caption=bn_caption).to_html()
        self.ln.value = tables.token_table(ln, self.tokens, caption=ln_caption).to_html()


class DepthExplorer(Explorer):
    """Notebook 09: choose the depth; the per-layer FFN gradient norms of Post-LN and Pre-LN are redrawn.

    Each depth is computed once per explorer (moving back to a depth costs nothing). Inside a running kernel the
    two neighbouring depths are computed and drawn in idle time after each render, one at a time, so the next
    step of the slider finds its picture ready.
    """

    FORMS = ("post", "pre")

    def __init__(self, depth: int = 6, width: int = 64):
        depth = _int_in_range(depth, "depth", 2, 24)
        self.width = _int_in_range(width, "width", 1, 4096)
        self.depth = widgets.IntSlider(
            value=depth, min=2, max=24, step=1, description="层数 L：", continuous_update=False
        )
        self.summary = widgets.HTML()
        self.plot = widgets.Image(format="png")
        self.box = widgets.VBox([self.depth, self.summary, self.plot])
        self._series: dict[int, dict[str, np.ndarray]] = {}
        self._live: LiveFigure | None = None
        self._wire(self.depth)
        self.render()

    def series(self, depth: int) -> dict[str, np.ndarray]:
        if depth not in self._series:
            self._series[depth] = {f: ffn_gradient_norms(f, depth, self.width) for f in self.FORMS}
        return self._series[depth]

    def render(self) -> None:
        depth = self.depth.value
        series = self.series(depth)
        self.plot.value = self._frame(depth, series)
        self.summary.value = tables.gradient_table(series).to_html()
        self._prefetch_later()

    def prefetch(self) -> None:
        """Compute and draw the next missing neighbour of the current depth (one per call, then reschedule)."""
        current = self.depth.value
        for depth in (current + 1, current - 1):
            if self.depth.min <= depth <= self.depth.max and self._live.cached(depth) is None:
                self._frame(depth, self.series(depth))
                self._prefetch_later()
                return

    def _frame(self, depth: int, series: dict[str, np.ndarray]) -> bytes:
        if self._live is None:
            self._live = LiveFigure(
                plots.depth_lines(series, xlabel="第几层（1 = 靠近输入）", ylabel=r"$\|\partial L/\partial W_2\|_F$")
            )
            ax = self._live.fig.axes[0]
            # one x axis for every depth (the lines grow to the right): only the y axis, the lines and the legend
            # change from frame to frame; the rest of the figure stays in the background
            ax.set_xlim(0.5, self.depth.max + 0.5)
            self._live.animate([*ax.lines, ax.yaxis, ax.get_legend()])
            return self._live.png(depth)
        png = self._live.cached(depth)
        if png is None:
            ax = self._live.fig.axes[0]
            for line, values in zip(ax.lines, series.values(), strict=True):
                line.set_data(np.arange(1, values.size + 1), values)
            ax.set_autoscaley_on(True)
            ax.relim()
            ax.autoscale_view(scalex=False)
            ax.set_ylim(bottom=0)
            ax.yaxis.stale = True  # new limits: new ticks and grid lines
            png = self._live.png(depth)
        return png


class SoftmaxExplorer(Explorer):
    """Notebook 10: a slider on the logit scale (1/temperature); attention weights and each row's entropy follow."""

    def __init__(self, scale: float = 1.0, matrix=None, tokens=TOKENS):
        scale = _in_log_range(scale, "scale", -2, 1.5)
        self.matrix, self.tokens = _matrix_and_tokens(
            layer_norm(TOKEN_MATRIX, eps=1e-5) if matrix is None else matrix, tokens
        )
        self.scale = widgets.FloatLogSlider(
            value=scale,
            base=10,
            min=-2,
            max=1.5,
            step=0.05,
            description="放大倍数：",
            readout_format=".3g",
            continuous_update=True,
        )
        self.summary = widgets.HTML()
        self.plot = widgets.Image(format="png")
        self.box = widgets.VBox([self.scale, self.summary, self.plot])
        self._live: LiveFigure | None = None
        self._wire(self.scale)
        self.render()

    def view(self, state: tuple) -> list:
        scale = float(state[0])
        w = attention_at_scale(self.matrix, scale)
        h = entropy(w)
        summary = tables.stats_table(
            self.tokens,
            {"最大权重": w.max(axis=1), "熵 (nats)": h},
            caption=f"放大倍数 {scale:.3g}：每个 query 的注意力",
            index_name="query",
        )
        return [(self.plot, self._frame(scale, w, h)), (self.summary, summary.to_html())]

    def _frame(self, scale: float, w: np.ndarray, h: np.ndarray) -> bytes:
        if self._live is None:
            self._live = LiveFigure(plots.attention_panel(w, self.tokens, entropy=h))
            left, right = self._live.fig.axes[:2]
            self._live.animate([*moving_artists(left), *moving_artists(right)])
            return self._live.png(scale)
        png = self._live.cached(scale)
        if png is None:
            left, right = self._live.fig.axes[:2]
            set_cells(left, w, [[f"{v:.3f}" for v in row] for row in w], colors=_inks)
            for bar, label, (i, v) in zip(right.patches, right.texts, enumerate(h), strict=True):
                bar.set_width(v)
                label.set_text(f" {v:.3f}")
                label.set_position((v, i))
            png = self._live.png(scale)
        return png
