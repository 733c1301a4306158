"""A progress bar for a cell that works for seconds (issue 40; notebook 15's sweeps): shown while the work runs,
hidden once it is done.

`ProgressBar(total, label)` is a context manager; `bar.advance(n)` moves it on. Inside a kernel it shows an
ipywidgets bar (a few dozen messages at most, whatever `total` is); in plain Python it shows nothing. When the work
ends (or fails), the bar is hidden, and what the notebook stores is the same on every run: its output's
text forms are empty (nbval compares them; GitHub shows them) and its HTML form carries the class the course's
JupyterLab extension looks for, so a notebook saved and opened again shows nothing there instead of an error.
`track(items, label)` goes through a list with such a bar; `training_sweep` is `training.sweep` with one.
"""

from __future__ import annotations

import ipywidgets as widgets

from . import training
from .explorers.base import FALLBACK_CLASS
from .i18n import message

UPDATES = 50  # at most this many moves of the bar per run, so sending them costs nothing next to the work


class _Bar(widgets.IntProgress):
    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle = {**bundle, "text/plain": "", "text/html": f'<div class="{FALLBACK_CLASS}"></div>'}
        return bundle


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class ProgressBar:
    """`with ProgressBar(total, "训练中") as bar: … bar.advance()`: a bar from 0 to `total`, gone at the end."""

    def __init__(self, total: int, label: str):
        self.total, self.label, self.done = max(int(total), 1), label, 0
        self._shown = -1
        self._bar: _Bar | None = None

    def __enter__(self) -> ProgressBar:
        if _in_kernel():
            from IPython.display import display

            self._bar = _Bar(
                value=0,
                min=0,
                max=UPDATES,
                description=self.label,
                style={"description_width": "initial", "bar_color": "#2563eb"},
                layout={"width": "60%"},
            )
            display(self._bar)
        return self

    def advance(self, n: int = 1) -> None:
        """`n` more units of work done."""
        self.done = min(self.done + n, self.total)
        shown = self.done * UPDATES // self.total
        if self._bar is not None and shown != self._shown:
            self._shown = self._bar.value = shown

    def __exit__(self, *exc) -> None:
        # hidden, not closed: a closed model's view is removed, and the page would hold a widget output without
        # a view. Hidden also in the widget state a run stores, so the stored notebook hides it when opened.
        if self._bar is not None:
            self._bar.layout.display = "none"
            self._bar = None


def track(items, label: str):
    """Each of `items` in turn, with a bar that moves on after each one (like tqdm; a list, so its length is
    known)."""
    items = list(items)
    with ProgressBar(len(items), label) as bar:
        for item in items:
            yield item
            bar.advance()


VARIANT_WORDS = {"mlp": "explorers.progress.norms", "transformer": "explorers.progress.forms"}
"""The message counting the variants of `training.sweep` for each model (others: explorers.progress.settings)."""


def sweep_label(model: str, variants, lrs, warmups=(0,), *, steps: int, seconds: float | None = None) -> str:
    """What a sweep trains, for its bar: '训练中：4 种归一化 × 5 个学习率，每个 150 步（约 5 秒）'."""
    count = len(variants) if hasattr(variants, "__len__") and not isinstance(variants, str) else 1
    parts = [
        message(VARIANT_WORDS.get(model, "explorers.progress.settings"), count=count),
        message("explorers.progress.lrs", count=len(lrs)),
    ]
    if len(warmups) > 1:
        parts.append(message("explorers.progress.warmups", count=len(warmups)))
    about = message("explorers.progress.about", seconds=f"{seconds:g}") if seconds else ""
    return message("explorers.progress.label", count=steps, parts=" × ".join(parts), steps=steps, about=about)


def training_sweep(
    model: str, variants, lrs, warmups=(0,), *, steps: int = 300, seconds: float | None = None, **kwargs
) -> dict:
    """`training.sweep` with a progress bar over its training steps (every setting of one variant trains in
    lockstep, so a step counts once per variant), labelled with what runs (`sweep_label`; `seconds`: about how
    long it takes, said in the label)."""
    count = len(variants) if hasattr(variants, "__len__") and not isinstance(variants, str) else 1
    label = sweep_label(model, variants, lrs, warmups, steps=steps, seconds=seconds)
    with ProgressBar(count * steps, label) as bar:
        return training.sweep(model, variants, lrs, warmups, steps=steps, on_step=bar.advance, **kwargs)
