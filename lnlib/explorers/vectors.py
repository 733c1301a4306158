"""Explorers of one typed row (notebooks 03–05): its LayerNorm stages, what ε does, what a·x + b keeps."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import invariance, pitfalls, plots, tables
from .._checks import check_eps, check_in_log_range, check_in_range
from ..i18n import message
from ..stages import layer_norm_steps
from .base import FigureImage
from .text import TypedVectorExplorer


def _log_slider(value: float, low: int, high: int, step: float, description: str, readout: str, **layout):
    return widgets.FloatLogSlider(
        value=value,
        base=10,
        min=low,
        max=high,
        step=step,
        description=description,
        readout_format=readout,
        continuous_update=True,
        **layout,
    )


class VectorExplorer(TypedVectorExplorer):
    """Type a vector, move ε: the stage table and the stage plot follow (notebook 03).

    The x̂ panel keeps one y axis for every row of its length (the largest |x̂| such a row can have as ε → 0),
    so the bars visibly shrink as ε grows and a typed row of the same length redraws no axis there.
    """

    def __init__(self, text: str = "2, 4, 6, 8", eps: float = 1e-5):
        eps = check_in_log_range(eps, "eps", -8, 0)
        self._init_text(text, plots.StageFigure)
        self.eps = _log_slider(eps, -8, 0, 0.5, message("explorers.eps"), ".0e")
        self.table = widgets.HTML()
        self.plot = FigureImage()
        self.box = widgets.VBox([self.text, self.eps, self.message, self.table, self.plot])
        self._wire(self.eps)
        self.render()

    def view(self, state: tuple) -> list:
        row, eps = state
        values = np.frombuffer(row)
        steps = layer_norm_steps(values, eps=float(eps))
        frame = self.picture.frame(values.size, (row, steps.eps), steps)
        return [(self.plot, frame), (self.table, tables.stage_table(steps).to_html(live=True))]


class EpsilonExplorer(TypedVectorExplorer):
    """Move ε on a log scale (1e-8 … 1) over a nearly constant row and watch x̂ shrink (notebook 04)."""

    def __init__(self, text: str = "3, 3.002, 2.998, 3", eps: float = 1e-5):
        eps = check_in_log_range(eps, "eps", -8, 0)
        self._init_text(text, plots.EpsilonFigure)
        self.eps = _log_slider(eps, -8, 0, 0.25, message("explorers.eps"), ".0e", layout=widgets.Layout(width="420px"))
        self.summary = widgets.HTML()
        self.table = widgets.HTML()
        self.plot = FigureImage()
        self.box = widgets.VBox([self.text, self.eps, self.message, self.summary, self.table, self.plot])
        self._wire(self.eps)
        self.render()

    def view(self, state: tuple) -> list:
        row, eps = state
        effect = pitfalls.epsilon_effect(np.frombuffer(row), float(eps))
        return [
            (self.plot, self.picture.frame(len(row) // 8, (row, effect.eps), effect)),
            (self.summary, tables.epsilon_summary(effect).to_html(live=True)),
            (self.table, tables.stage_table(effect.steps).to_html(live=True)),
        ]


class ScaleShiftExplorer(TypedVectorExplorer):
    """Scale a row by a and shift it by b: a·x + b moves, its x̂ stays the same (notebook 05)."""

    SCALES = (-1, 1)  # the scale slider's range, as powers of ten
    SHIFTS = (-50, 50)

    def __init__(self, text: str = "2, 4, 6, 8", scale: float = 1.0, shift: float = 0.0, eps: float = 1e-5):
        scale = check_in_log_range(scale, "scale", *self.SCALES)
        shift = check_in_range(shift, "shift", *self.SHIFTS)
        self.eps = check_eps(eps)
        scales = tuple(10.0**k for k in self.SCALES)
        self._init_text(text, lambda r: plots.ScaleShiftFigure(r, scales=scales, shifts=self.SHIFTS))
        self.scale = _log_slider(
            scale,
            *self.SCALES,
            0.05,
            message("explorers.scale_shift.scale"),
            ".3g",
            layout=widgets.Layout(width="420px"),
        )
        self.shift = widgets.FloatSlider(
            value=shift,
            min=self.SHIFTS[0],
            max=self.SHIFTS[1],
            step=1,
            description=message("explorers.scale_shift.shift"),
            continuous_update=True,
            layout=widgets.Layout(width="420px"),
        )
        self.table = widgets.HTML()
        self.plot = FigureImage()
        self.box = widgets.VBox([self.text, self.scale, self.shift, self.message, self.table, self.plot])
        self._wire(self.scale, self.shift)
        self.render()

    def view(self, state: tuple) -> list:
        row, scale, shift = state
        result = invariance.scale_shift(np.frombuffer(row), float(scale), float(shift), self.eps)
        frame = self.picture.frame(len(row) // 8, (row, result.scale, result.shift), result)
        return [(self.plot, frame), (self.table, tables.scale_shift_table(result).to_html(live=True))]
