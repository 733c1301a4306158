"""Notebook 16's explorer: type a Chinese sentence, pick a LayerNorm of the tiny trained model (`lnlib.tiny_lm`),
see each character's μ, σ, the first entries of x̂ and the model's guess of the next character.

Built on `explorers.base.Explorer` (the notice for a missing kernel, one coalescing observer for every control, each
state's outputs kept): the text box applies on Enter (`continuous_update=False`), the LayerNorm buttons at once
and keep working on the last readable sentence while the box holds one the model cannot read.
A sentence the model cannot read (a character outside its vocabulary, more than 16 characters, nothing) shows a
Chinese message inside the widget and keeps the last table; nothing a learner types raises. One forward pass of ≤ 16
characters and an HTML table: no figure, so an answer takes a few milliseconds in the kernel.
"""

from __future__ import annotations

import ipywidgets as widgets

from .. import lm_plots, tiny_lm
from ..i18n import message
from ..tables import Table
from .base import Explorer, error_html

DEFAULT_TEXT = "我吃苹果。"


def sentence_table(model: tiny_lm.Model, text: str, name: str) -> Table:
    """The explorer's table for `text` at LayerNorm `name` (the static cell of notebook 16 shows the same)."""
    fwd, guesses = tiny_lm.predict(model, text)
    return lm_plots.explorer_table(fwd, text, name, guesses)


def read_sentence(model: tiny_lm.Model, text) -> str:
    """The sentence as the model reads it (spaces and line breaks dropped); ValueError with a Chinese message."""
    if not isinstance(text, str):
        raise ValueError(message("explorers.lm.not_text"))
    text = "".join(text.split())
    tiny_lm.predict(model, text)  # raises the Chinese message for unknown characters, length and emptiness
    return text


class LMExplorer(Explorer):
    """Type a sentence (Enter applies it), choose a LayerNorm: the table of μ, σ, x̂ and next-character guesses."""

    def __init__(self, text: str = DEFAULT_TEXT, norm: str = "1.attn"):
        self.model = tiny_lm.load()
        if norm not in self.model.names:
            raise ValueError(f"norm: expected one of {self.model.names}, got {norm!r}")
        try:
            self.sentence = read_sentence(self.model, text)
        except ValueError as err:
            raise ValueError(f"text: {err}") from None
        self.text = widgets.Text(
            value=text,
            description=message("explorers.lm.text"),
            continuous_update=False,
            style={"description_width": "initial"},
            layout=widgets.Layout(width="420px"),
        )
        self.norm = widgets.ToggleButtons(
            options=[(lm_plots.short_label(n), n) for n in self.model.names],
            value=norm,
            description=message("explorers.lm.norm"),
            style={"button_width": "auto", "description_width": "initial"},
        )
        self.message = widgets.HTML()
        self.table = widgets.HTML()
        self.box = widgets.VBox([self.text, self.norm, self.message, self.table])
        self._wire(self.norm)
        self.text.observe(self.on_text, names="value")
        self.render()

    def state(self) -> tuple:
        return (self.sentence, self.norm.value)

    def view(self, state: tuple) -> list:
        text, name = state
        return [(self.table, sentence_table(self.model, text, name).to_html(live=True))]

    def on_text(self, change) -> None:
        """A sentence applied (Enter in the browser, or set in Python): show it, or say in Chinese why not and keep
        the last one (the message stays until a readable sentence comes, whatever LayerNorm is chosen meanwhile)."""
        try:
            self.sentence = read_sentence(self.model, change["new"])
        except ValueError as err:
            self.message.value = error_html(str(err))
            return
        self.message.value = ""
        self.updates.request(change)

    def neighbours(self) -> list[tuple]:
        """Drawn ahead in idle time: the same sentence at the LayerNorms next to the chosen one."""
        names = self.model.names
        at = names.index(self.norm.value)
        return [(self.sentence, names[j]) for j in (at + 1, at - 1) if 0 <= j < len(names)]
