"""Notebook 09's explorer: per-layer FFN gradient norms of Post-LN and Pre-LN as the depth changes."""

from __future__ import annotations

import json
from pathlib import Path

import ipywidgets as widgets
import numpy as np

from .. import _budget, plots, tables
from .._checks import check_int_in_range
from .._lru import LRU
from ..i18n import message
from ..transformer import ffn_gradient_norms
from .base import Explorer, FigureImage, Picture

STORED = Path(__file__).resolve().parent.parent / "depth_series.json"
"""Every depth's series at the default width, computed by `python -m tools.depth_series` and shipped: a depth
costs a quarter to half a second of numpy (the slider's next step waited for it, issue 45). Gradients at
initialization with a fixed seed are not chaotic: another BLAS kernel changes them in the last bits only, far
below the digits shown (tests/test_explorers.py computes a few depths again and compares)."""


def stored_series(width: int) -> dict[int, dict[str, np.ndarray]]:
    """{depth: {form: series}} from STORED when it holds this width, else {}."""
    try:
        data = json.loads(STORED.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if data.get("width") != width:
        return {}
    return {int(d): {f: np.array(v, dtype=np.float64) for f, v in forms.items()} for d, forms in data["depths"].items()}


def compute_stored(width: int = 64) -> dict:
    """What STORED holds: every depth of the slider, both forms, at `width` (the default)."""
    low, high = DepthExplorer.DEPTHS
    depths = {
        str(d): {f: [float(v) for v in ffn_gradient_norms(f, d, width)] for f in DepthExplorer.FORMS}
        for d in range(low, high + 1)
    }
    return {"width": width, "seed": 0, "depths": depths}


class DepthExplorer(Explorer):
    """Notebook 09: choose the depth; the per-layer FFN gradient norms of Post-LN and Pre-LN are redrawn.

    Each depth is computed once per explorer (moving back to a depth costs nothing). Inside a running kernel the
    two neighbouring depths are computed ahead after each render, one at a time, in the worker thread (a depth
    costs hundreds of milliseconds: on the event loop it would hold up the learner's next message), then drawn
    in idle time, so the next step of the slider finds its picture ready.
    """

    FORMS = ("post", "pre")
    DEPTHS = (2, 24)

    def __init__(self, depth: int = 6, width: int = 64):
        depth = check_int_in_range(depth, "depth", *self.DEPTHS)
        self.width = check_int_in_range(width, "width", 1, 4096)
        low, high = self.DEPTHS
        deepest = lambda w: _budget.stack_cost(high, w, forms=len(self.FORMS))  # noqa: E731 - one view at the top
        _budget.check_arg(
            "width", self.width, deepest, what=f"DepthExplorer's view at depth {high} (Post-LN and Pre-LN)"
        )
        self.depth = widgets.IntSlider(
            value=depth,
            min=low,
            max=high,
            step=1,
            description=message("explorers.depth.depth"),
            continuous_update=False,
        )
        self.summary = widgets.HTML()
        self.plot = FigureImage()
        self.box = widgets.VBox([self.depth, self.summary, self.plot])
        self._series = LRU(high - low + 1)
        for d, series in stored_series(self.width).items():
            self._series.put(d, series)
        self.picture = Picture(
            lambda series: plots.DepthFigure(
                series,
                max_depth=high,
                xlabel=message("explorers.depth.xlabel"),
                ylabel=r"$\|\partial L/\partial W_2\|_F$",
            )
        )
        self._wire(self.depth)
        self.render()

    def series(self, depth: int) -> dict[str, np.ndarray]:
        """The gradient norm of each layer's W₂ for each residual form, at this depth (computed once; waited for
        when the worker thread is computing it ahead)."""
        series = self._series.get(depth)
        if series is None:
            series = self.prepared((depth,))
            self._series.put(depth, series)
        return series

    def prepare(self, state: tuple) -> dict[str, np.ndarray]:
        """The series of a depth: hundreds of milliseconds of numpy, computed ahead in the worker thread."""
        (depth,) = state
        return {f: ffn_gradient_norms(f, depth, self.width) for f in self.FORMS}

    def keep(self, state: tuple, prepared: dict[str, np.ndarray]) -> None:
        self._series.put(state[0], prepared)

    def is_prepared(self, state: tuple) -> bool:
        return state[0] in self._series

    def view(self, state: tuple) -> list:
        (depth,) = state
        series = self.series(depth)
        return [
            (self.plot, self.picture.frame(None, depth, series)),
            (self.summary, tables.gradient_table(series).to_html(live=True)),
        ]
