"""What every explorer shares: the box with its offline notice, one observer per control, outputs kept per state
and drawn ahead in idle time, and `Picture`, the live figure of an explorer moved through its render-layer handle.

Each explorer defines `view(state)`: what each output shows for a state of its controls, computed from that state
alone. `render()` shows the current state's view; a view is kept per state (`VIEWS` of them) and, inside a running
kernel, the states one step up and down on the slider moved last are computed in idle time, so the next step of
that slider only sends what is ready. Every control is wired through a `live.Coalescer`: a change made in Python
renders at once (tests set a control's `.value` and read the rendered HTML without a browser), a burst of changes
from the browser renders once with the latest value.
"""

from __future__ import annotations

import asyncio
import html
import math
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, NamedTuple

import ipywidgets as widgets
import traitlets

from .. import tables
from .._lru import LRU
from ..i18n import language, lazy, message
from ..live import CACHE_SIZE, Coalescer, LiveFigure
from ..plots import alt_text


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
OFFLINE_MESSAGE = lazy("explorers.offline")
"""The notice's words, looked up when shown (`str(OFFLINE_MESSAGE)`), in the language chosen by then."""
HTML_LANG = {"zh": "zh-Hans", "en": "en"}
"""The `lang` of the notice's HTML in each language of lnlib (a screen reader picks its voice by it)."""
OFFLINE_CSS = f"""
.{EXPLORER_CLASS} > .{NOTICE_CLASS} {{ display: none; }}
.{EXPLORER_CLASS}.jupyter-widgets-disconnected > .{NOTICE_CLASS} {{ display: flex; }}
.{EXPLORER_CLASS}.jupyter-widgets-disconnected > :not(.{NOTICE_CLASS}) {{ display: none !important; }}
.{EXPLORER_CLASS}.jupyter-widgets-disconnected::before,
.{EXPLORER_CLASS} .jupyter-widgets-disconnected::before {{ display: none !important; }}
.{EXPLORER_CLASS}.jupyter-widgets-disconnected img {{ display: none !important; }}
.{EXPLORER_CLASS} .widget-html > .widget-html-content {{ line-height: normal; }}
{tables.live_css()}
""".strip()


def offline_notice() -> widgets.HTML:
    """The notice an explorer shows, instead of its controls and outputs, when no kernel is behind it."""
    notice = widgets.HTML(
        f"<style>{OFFLINE_CSS}</style>"
        f'<div style="color:#b91c1c;line-height:1.5;padding:4px 0">{html.escape(str(OFFLINE_MESSAGE))}</div>'
    )
    notice.add_class(NOTICE_CLASS)
    return notice


FALLBACK_CLASS = "ln-explorer-fallback"


def fallback_html(name: str) -> str:
    """The explorer's output when no widget model is behind it: the HTML a renderer without widgets shows (GitHub,
    an untrusted notebook), and what the course's JupyterLab extension shows in place of JupyterLab's "Error
    displaying widget: model not found" (a notebook saved, closed and opened again: its outputs name widget models
    of a kernel that is gone)."""
    notice = html.escape(message("explorers.named_notice", name=name, notice=OFFLINE_MESSAGE))
    return (
        f'<div class="{FALLBACK_CLASS}" lang="{HTML_LANG[language()]}" data-explorer="{html.escape(name)}" '
        f'style="color:#b91c1c;line-height:1.5;padding:4px 0">'
        f"⚠ {notice}</div>"
    )


def state_key(state: tuple) -> tuple:
    """A state as a cache key: floats to 12 significant digits, so a slider value the browser computed and the
    same step computed here (they may differ in the last bit) are one state."""
    return tuple(float(f"{v:.12g}") if isinstance(v, float) else v for v in state)


def slider_steps(control: widgets.Widget) -> list:
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


class Frame(NamedTuple):
    """One picture of an explorer: its PNG and the alt text that describes it. An explorer shows a frame in an
    `FigureImage`: the PNG as its value, the alt text as its tooltip (the img's title; the course's JupyterLab
    extension, labextension/, turns it into the img's alt)."""

    png: bytes
    alt: str


class FigureImage(widgets.Image):
    """An explorer's picture: a PNG Image whose tooltip is the alt text of the frame it shows (`show`).

    ipywidgets 8's view of a widget with a tooltip reads the widget's `description`, which an Image lacks (the
    view then fails: "Could not create a view for model id …"); an empty one is synced with it.
    """

    description = traitlets.Unicode("").tag(sync=True)

    def __init__(self, **kwargs):
        super().__init__(format="png", **kwargs)

    def show(self, frame: Frame) -> None:
        """Show `frame`: its alt text and its PNG in one message."""
        with self.hold_sync():
            self.tooltip = frame.alt
            self.value = frame.png


class Picture:
    """An explorer's live figure, moved through the render layer's handle (`lnlib.plots.StageFigure` …).

    `frame(shape, key, *result)` returns the `Frame` of `result`: the frame kept under `key`, else the handle of that
    data shape (`shape`: a row length, or None) moved with `handle.update(*result)`, else a new handle built with
    `build(*result)`. Each shape keeps its own figure (`shapes` of them), so going back to a shape moves that
    figure instead of building one. With `borrow_layout`, a new shape's figure is placed where the last figure's
    axes are (no layout pass, the panels stay put; the first is laid out with room for wide tick labels), and
    each frame is laid out again when a new tick label no longer fits; with `fit`, only the latter. A handle whose
    update builds some of its moving artists again (`TrainingFigure`) is followed by its live figure.
    """

    def __init__(self, build: Callable, *, shapes: int = 1, borrow_layout: bool = False, fit: bool = False):
        self._build = build
        self._kept = LRU(shapes)  # shape → (handle, LiveFigure)
        self.borrow_layout = borrow_layout
        self.fit = fit or borrow_layout
        self.handle = None  # the handle and live figure drawn last
        self.live: LiveFigure | None = None
        self._alts = LRU(CACHE_SIZE * shapes)  # (shape, key) → the alt text of that frame

    def has(self, shape: Hashable) -> bool:
        """A figure for this shape exists: drawing it costs no new figure."""
        return shape in self._kept

    @property
    def figures(self) -> int:
        """How many figures are kept (one per shape)."""
        return len(self._kept)

    @property
    def frames(self) -> int:
        """Frames drawn so far by the figures kept."""
        return sum(live.frames for _, live in self._kept.values())

    def forget_frames(self) -> None:
        """Forget the frames, keep the figures: the next frame of any state is drawn (benchmarks count drawing)."""
        for _, live in self._kept.values():
            live.forget_frames()

    def reset(self) -> None:
        """Forget every figure and frame: the next frame is drawn from scratch."""
        self._kept.clear()
        self._alts.clear()
        self.handle = self.live = None

    def frame(self, shape: Hashable, key: Hashable, *result) -> Frame:
        png, drawn = self._frame_png(shape, key, *result)
        alt = None if drawn else self._alts.get((shape, key))
        if alt is None:
            if not drawn:  # a kept frame whose text was forgotten: move the handle to it (it then describes it)
                self._move(*result)
            alt = alt_text(self.handle.fig)
            self._alts.put((shape, key), alt)
        return Frame(png, alt)

    def _frame_png(self, shape: Hashable, key: Hashable, *result) -> tuple[bytes, bool]:
        """The PNG of `result`, and whether it was drawn now (the handle then shows `result`)."""
        kept = self._kept.get(shape)
        if kept is None:
            handle = self._build(*result)
            live = LiveFigure(handle.fig)
            if self.borrow_layout:
                if self.live is None:
                    live.lay_out_roomy()  # room for the tick labels of the vectors a learner types next
                else:
                    live.use_positions(self.live.positions())
            live.animate(handle.moving)
            self._kept.put(shape, (handle, live))
            self.handle, self.live = handle, live
            return self._png(key), True
        self.handle, self.live = kept
        png = self.live.cached(key)
        if png is not None:
            return png, False
        self._move(*result)
        return self._png(key), True

    def _move(self, *result) -> None:
        handle, live = self.handle, self.live
        assert handle is not None and live is not None  # a figure is built before it moves
        handle.update(*result)
        live.follow(handle.moving)

    def _png(self, key: Hashable) -> bytes:
        return self.live.fitted_png(key) if self.fit else self.live.png(key)


_WORKER: ThreadPoolExecutor | None = None


def worker() -> ThreadPoolExecutor:
    """The one thread where the explorers of a kernel compute ahead (`Explorer.prepare`): the kernel's event loop
    never runs a long computation of a state nobody asked for yet, so a learner's message never waits behind one."""
    global _WORKER
    if _WORKER is None:
        _WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lnlib-ahead")
    return _WORKER


class Explorer:
    """Base: a VBox in `self.box`; displaying the explorer displays the box. The box starts with a notice that
    only shows when no live kernel is behind the explorer (see `offline_notice`).

    `render()` shows `view(state())`; `self.updates` (a `live.Coalescer`) calls it for every wired control.
    A view lists the picture before the tables: the browser applies the updates in order, so once the new
    numbers show, the picture that belongs to them is already there. An explorer with a figure keeps it in
    `self.picture` (a `Picture`).
    """

    updates: Coalescer
    controls: tuple[widgets.Widget, ...] = ()
    picture: Picture | None = None
    PREFETCH_DELAY = 0.05  # seconds of idle time before `prefetch` draws the likeliest next state
    # ... and before each further one: only once the learner has paused. A state is drawn on the event loop, so a
    # step that comes meanwhile waits for it; drawn one after the other, the less likely states (the step back, a
    # row one number longer) were being drawn when the next step in the same direction came (issue 45).
    PREFETCH_NEXT = 0.3
    VIEWS = 64  # states whose outputs are kept

    def _wire(self, *controls: widgets.Widget) -> None:
        """One observer for every control: any change asks for one render (coalesced for the browser)."""
        self.controls = controls
        self._views = LRU(self.VIEWS)
        self._pending: dict[tuple, Future] = {}  # state key → `prepare(state)` running (or queued) in the worker
        self._moved = 0  # the control moved last: its neighbours are drawn ahead first
        self._direction = 1  # which way it moved (+1 up, -1 down): that step is drawn ahead first
        self._timer: asyncio.TimerHandle | None = None  # the next `prefetch`
        self.updates = Coalescer(self.render)
        for control in controls:
            control.observe(self._on_control, names="value")

    def _on_control(self, change) -> None:
        self._moved = self.controls.index(change["owner"])
        try:
            self._direction = -1 if change["new"] < change["old"] else 1
        except TypeError:  # not an ordered value (a toggle's option)
            self._direction = 1
        self.updates.request(change)

    def state(self) -> tuple:
        """What the outputs show depends on: the controls' values, last (explorers put more in front)."""
        return tuple(control.value for control in self.controls)

    def view(self, state: tuple) -> list[tuple[widgets.Widget, object]]:
        """(output widget, value) pairs showing `state`, the picture (a `Frame`) first; computed from `state`
        alone."""
        raise NotImplementedError

    def render(self) -> None:
        self._show(self.state())
        self._prefetch_later()

    def is_ready(self, state: tuple) -> bool:
        """True when the outputs of `state` are kept: showing it sends what is ready."""
        return state_key(state) in self._views

    def forget_views(self) -> None:
        """Forget what each state showed (the figures stay): the next render of any state computes and draws it."""
        self._views.clear()
        if self.picture is not None:
            self.picture.forget_frames()

    def start_over(self) -> None:
        """Forget every kept figure, frame and view, and draw the current state from scratch."""
        if self.picture is not None:
            self.picture.reset()
        self._views.clear()
        self.render()

    def _show(self, state: tuple) -> None:
        for output, value in self._view(state):
            if isinstance(value, Frame):
                output.show(value)
            else:
                output.value = value  # the same value again sends nothing

    def _view(self, state: tuple) -> list[tuple[widgets.Widget, object]]:
        key = state_key(state)
        shown = self._views.get(key)
        if shown is None:
            shown = self.view(state)
            self._views.put(key, shown)
        return shown

    def neighbours(self) -> list[tuple]:
        """The states one step further and one step back on the slider moved last, the way it moved first (only:
        drawing ahead must stay a small, bounded cost, or it slows down the browser on a busy machine)."""
        if not self.controls:
            return []
        state = self.state()
        at = len(state) - len(self.controls) + self._moved
        values = slider_steps(self.controls[self._moved])
        control = self.controls[self._moved]
        if getattr(self, "_direction", 1) < 0:  # slider_steps gives the step up first
            values = sorted(values, key=lambda v: v > control.value)
        return [(*state[:at], value, *state[at + 1 :]) for value in values]

    def prefetch(self) -> None:
        """Compute the next missing neighbour of the current state (one per call, then reschedule). What
        `prepare` computes runs in the worker thread, one state at a time; only the drawing of a prepared state
        (a kept figure moved: milliseconds) runs on the kernel's event loop."""
        for state in self.neighbours():
            if not self.is_ready(state):
                if not self.is_prepared(state):
                    if not self._pending:
                        self.prepare_ahead(state)  # when it is done, prefetch runs again
                    return
                self._view(state)
                self._prefetch_later(self.PREFETCH_NEXT)
                return

    # --- computing ahead in the worker thread ---

    def prepare(self, state: tuple) -> Any:
        """The costly arithmetic of `view(state)` (numpy on the explorer's data, no widget and no figure that the
        event loop draws), run in the worker thread; its result goes to `keep`. None: nothing to prepare."""
        return None

    def keep(self, state: tuple, prepared: Any) -> None:
        """Keep what `prepare(state)` returned (on the event loop), where `view(state)` will find it."""

    def is_prepared(self, state: tuple) -> bool:
        """True when `view(state)` only draws (what `prepare` computes is kept, or there is nothing to prepare)."""
        return True

    def prepare_ahead(self, state: tuple) -> Future | None:
        """Run `prepare(state)` in the worker thread (once: a state already on its way gives its future); when it is
        done its result is kept and prefetching goes on. None outside a running event loop."""
        key = state_key(state)
        future = self._pending.get(key)
        if future is not None:
            return future
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        future = worker().submit(self.prepare, state)
        self._pending[key] = future
        future.add_done_callback(lambda f: loop.call_soon_threadsafe(self._prepared, state, f))
        return future

    def prepared(self, state: tuple) -> Any:
        """`prepare(state)`'s result: waited for if it is on its way in the worker (the wait releases the
        interpreter lock: the worker runs at full speed), else computed here."""
        future = self._pending.get(state_key(state))
        if future is not None:
            try:
                return future.result()
            except Exception:  # noqa: BLE001 - computed again here, where its error reaches the learner
                pass
        return self.prepare(state)

    def _prepared(self, state: tuple, future: Future) -> None:
        if self._pending.get(state_key(state)) is future:
            del self._pending[state_key(state)]
        if not future.cancelled() and future.exception() is None:
            self.keep(state, future.result())
        self._prefetch_later()

    def _prefetch_later(self, delay: float | None = None) -> None:
        """Inside a running kernel, call `self.prefetch()` in idle time (after `delay`, else PREFETCH_DELAY), once:
        a new call replaces the one still waiting."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # plain Python (tests, scripts): nothing runs in the background
            return
        timer = getattr(self, "_timer", None)
        if timer is not None:
            timer.cancel()
        self._timer = loop.call_later(self.PREFETCH_DELAY if delay is None else delay, self.prefetch)

    @property
    def box(self) -> widgets.Box:
        return self._box

    @box.setter
    def box(self, box: widgets.Box) -> None:
        """The explorer's box, with the notice for a missing kernel put first (see `offline_notice`)."""
        box.children = (offline_notice(), *box.children)
        box.add_class(EXPLORER_CLASS)
        box.add_class(f"ln-lang-{language()}")  # the language of its picture's alt text (the JupyterLab extension)
        self._box = box

    def _repr_mimebundle_(self, **kwargs):
        """The box's widget view; its plain-text and HTML forms (what JupyterLab shows for a notebook just opened
        and not yet run, which it does not trust to render widgets, and GitHub shows) are the notice, not the repr
        of a VBox; the course's JupyterLab extension shows the HTML form when the widget model is gone
        (`fallback_html`)."""
        bundle = self.box._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict) and "text/plain" in bundle:
            name = type(self).__name__
            bundle = {
                **bundle,
                "text/plain": message("explorers.named_notice", name=name, notice=OFFLINE_MESSAGE),
                "text/html": fallback_html(name),
            }
        return bundle
