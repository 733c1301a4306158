"""Explorers with a text box for a vector: a typed vector applies on Enter, its drafts are drawn ahead."""

from __future__ import annotations

import asyncio

import ipywidgets as widgets
import numpy as np

from ..i18n import message
from ..live import from_browser
from ..text_input import MAX_VALUES, parse_vector
from .base import Explorer, Picture, error_html, state_key


class TypedVectorExplorer(Explorer):
    """Base for explorers with a text box for a vector: `self.text`, `self.message`, `self.values`.

    In the browser a typed vector applies on Enter, not on every key: "2", "20", "20, 4" … are not the vector the
    learner means. The keys still reach the kernel, as a draft (`draft`): when the keys pause, a draft that reads
    as a vector of a length with a kept figure is drawn ahead, so that Enter usually only sends what is ready
    (a draft of a new length is not: "2", "20, 4" … would each build a figure and push the kept ones out, and the
    Enter would wait behind them). Moving another control applies the text first (the learner who typed and then
    took a slider means the new vector). A change of `text.value` made in Python (a notebook cell, a test) applies
    at once.

    Bad text shows the Chinese message (on Enter) and keeps the last valid `values` (and so the last table and
    plot); the message stays until the text is valid again, whatever other control moves meanwhile.

    The state starts with the row's bytes; `self.picture` keeps one figure per row length (`LENGTHS` of them).
    """

    max_magnitude = 1e100  # plots need headroom: axis limits and curves multiply the values
    LENGTHS = 4  # row lengths whose figures are kept

    def _init_text(self, text: str, build) -> None:
        if not isinstance(text, str):
            raise TypeError(f"text: expected a str such as '2, 4, 6, 8', got {type(text).__name__}")
        try:
            self.values = self.read(text)
        except ValueError as err:
            raise ValueError(f"text: {err}") from None
        # every key is sent (a draft, drawn ahead while the learner types); Enter applies it (see the class doc)
        self.text = widgets.Text(
            value=text,
            description=message("explorers.vector.text"),
            continuous_update=True,
            style={"description_width": "initial"},
            layout=widgets.Layout(width="420px"),
        )
        self.message = widgets.HTML()
        self.picture = Picture(build, shapes=self.LENGTHS, borrow_layout=True)
        self._draft: tuple | None = None  # the state a typed, not yet applied vector would show
        self._applied = text  # the text last applied (shown, or refused with its message)
        self._draft_timer: asyncio.TimerHandle | None = None

    @property
    def draft(self) -> tuple | None:
        """The state the typed, not yet applied text would show (None when it reads as no vector)."""
        return self._draft

    def read(self, text: str) -> np.ndarray:
        """parse_vector plus the explorer's own limit; raises ValueError with a Chinese message."""
        values = parse_vector(text)
        if np.max(np.abs(values)) > self.max_magnitude:
            raise ValueError(message("explorers.vector.too_large", limit=f"{self.max_magnitude:.0e}"))
        return values

    def _wire(self, *controls: widgets.Widget) -> None:
        super()._wire(*controls)
        self.text.observe(self.on_text, names="value")
        self.text.on_msg(self._on_text_msg)  # the browser's Text sends {"event": "submit"} on Enter

    def state(self) -> tuple:
        return (self.values.tobytes(), *super().state())

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
        if draft is None or state_key(draft) in self._views:
            return
        if self.picture.has(len(draft[0]) // 8):
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
