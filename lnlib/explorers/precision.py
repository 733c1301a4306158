"""Notebook 13's explorer: one-pass against two-pass variance as the offset grows, in each precision."""

from __future__ import annotations

import ipywidgets as widgets

from .. import numerics, tables
from .._checks import check_int_in_range
from ..i18n import message
from .base import Explorer


class VarianceExplorer(Explorer):
    """Slide the offset c of c + [0, 1, 2, 3] and pick a dtype: one-pass vs two-pass σ² and x̂ (notebook 13)."""

    DTYPES = ("float16", "float32", "float64")

    def __init__(self, exponent: int = 4, dtype: str = "float32"):
        exponent = check_int_in_range(exponent, "exponent", 0, 8)
        if dtype not in self.DTYPES:
            raise ValueError(f"dtype: expected one of {self.DTYPES}, got {dtype!r}")
        self.exponent = widgets.IntSlider(
            value=exponent,
            min=0,
            max=8,
            step=1,
            description=message("explorers.variance.offset"),
            continuous_update=True,
            style={"description_width": "initial"},
        )
        self.dtype = widgets.ToggleButtons(
            options=list(self.DTYPES), value=dtype, description=message("explorers.variance.dtype")
        )
        self.table = widgets.HTML()
        self.box = widgets.VBox([self.exponent, self.dtype, self.table])
        self._wire(self.exponent, self.dtype)
        self.render()

    def view(self, state: tuple) -> list:
        exponent, dtype = state
        table = tables.variance_table(numerics.variance_methods(10.0**exponent, dtype))
        return [(self.table, table.to_html(live=True))]
