"""Live figures for the explorers: keep one matplotlib figure, change only what moves, hand out PNG bytes.

A figure made by `lnlib.plots` costs hundreds of milliseconds per frame when rebuilt: new axes, a constrained
layout, two draws for `bbox_inches="tight"`, and a slow PNG encoder. A `LiveFigure` pays that once:

- the layout is computed on the first draw and then frozen;
- the artists that move (bars, their labels, titles, cell colours) are marked *animated*: the rest of the figure
  (axes, ticks, static texts) is drawn once into a background, and each frame only restores it and draws the
  moving artists on top (blitting);
- the frame is encoded with a fast PNG setting and cached by the explorer's state, so going back to a slider
  position costs nothing.

The `set_*` helpers update the artists that `lnlib.plots` draws for bar panels and grids of numbers. The static
figures (`lnlib.plots`) stay what the notebooks store; an explorer starts from the same figure and moves it.

`Coalescer` is the "latest value wins" scheduler of the explorers: a burst of changes from the browser (a fast
drag) leads to one render with the last value, not to a backlog of renders.
"""

from __future__ import annotations

import asyncio
import io
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from PIL import Image

from .labels import number

DPI = 100  # the explorers show the PNG at its natural size, as the static figures are stored (plots.to_png)
PNG_LEVEL = 1  # zlib level: 1 encodes several times faster than the default 6 and is hardly larger here
CACHE_SIZE = 64


class LiveFigure:
    """One figure drawn again and again: frozen layout, static background, animated artists, cached PNGs."""

    def __init__(self, fig: Figure, dpi: int = DPI):
        self.fig = fig
        FigureCanvasAgg(fig)
        fig.set_dpi(dpi)
        self._animated: list[Artist] = []
        self._background = None
        self._laid_out = False
        self._cache: OrderedDict[Hashable, bytes] = OrderedDict()
        self.frames = 0  # frames actually drawn (cache hits excluded): tests and benchmarks read it

    def animate(self, artists: Iterable[Artist]) -> None:
        """Name the artists that change from frame to frame; everything else becomes the background."""
        for artist in self._animated:
            artist.set_animated(False)
        # drawn in matplotlib's own order (zorder), so a bar never covers the zero line or an image the spines
        self._animated = sorted((a for a in artists if a is not None), key=lambda a: a.get_zorder())
        self._background = None

    def invalidate(self) -> None:
        """Something in the background changed (an axis limit, a static text): redraw it on the next frame."""
        self._background = None

    def cached(self, key: Hashable) -> bytes | None:
        png = self._cache.get(key)
        if png is not None:
            self._cache.move_to_end(key)
        return png

    def png(self, key: Hashable | None = None) -> bytes:
        """Draw the current state and return it as PNG bytes (stored under `key` when given).

        The first frame is one full draw that also runs the figure's layout engine, which is then switched off.
        The next frame draws the background once (without the animated artists); every later frame restores it
        and draws only the animated artists.
        """
        canvas = self.fig.canvas
        if not self._laid_out:
            canvas.draw()
            self.fig.set_layout_engine("none")
            self._laid_out = True
        elif self._background is None:
            for artist in self._animated:
                artist.set_animated(True)
            canvas.draw()
            self._background = canvas.copy_from_bbox(self.fig.bbox)
            self._blit()
        else:
            canvas.restore_region(self._background)
            self._blit()
        width, height = canvas.get_width_height(physical=True)
        buf = io.BytesIO()
        Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1).save(
            buf, format="png", compress_level=PNG_LEVEL
        )
        self.frames += 1
        data = buf.getvalue()
        if key is not None:
            self._cache[key] = data
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return data

    def _blit(self) -> None:
        for artist in self._animated:
            self.fig.draw_artist(artist)


# --- updating the artists that lnlib.plots draws -------------------------------------------------------------


def split_title(ax: Axes, fixed: str, moving: str, fontsize: float = 10) -> Text:
    """Show `fixed` (it may hold mathtext, laid out once) at the left above the axes and `moving` (plain text,
    cheap to change) at the right, instead of one centred title that mixes both; returns the moving title."""
    ax.set_title("")
    ax.set_title(fixed, loc="left", fontsize=fontsize)
    return ax.set_title(moving, loc="right", fontsize=fontsize)


def moving_artists(ax: Axes) -> list[Artist]:
    """Everything drawn inside one axes (images, bars, lines, texts) and its spines: the part of a panel that is
    redrawn per frame, while ticks, tick labels and axis labels stay in the background."""
    return [*ax.images, *ax.patches, *ax.lines, *ax.texts, *ax.spines.values()]


def set_bars(ax: Axes, values) -> None:
    """New heights for the bars of a panel drawn by `plots._bars`, with their value labels."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    bars, labels = ax.patches, ax.texts
    if len(bars) != values.size or len(labels) != values.size:
        raise ValueError(f"values: the panel has {len(bars)} bars, got {values.size} values")
    for bar, label, v in zip(bars, labels, values, strict=True):
        bar.set_height(v)
        label.set_text(number(v))
        label.xy = (label.xy[0], v)
        label.set_verticalalignment("bottom" if v >= 0 else "top")
        label.xyann = (0, 2 if v >= 0 else -2)


def set_cells(ax: Axes, values, texts, colors: Callable[[np.ndarray], list] | None = None) -> None:
    """New values for a grid of numbers (an image with one text per cell, row by row): colours, texts, inks.

    `colors(rgba)` returns one text colour per cell (row-major) for the new cell colours `rgba` (n, d, 4).
    """
    image = ax.images[0]
    values = np.asarray(values, dtype=np.float64)
    image.set_array(values)
    cells = ax.texts[: values.size]
    inks = colors(image.to_rgba(values)) if colors is not None else [None] * values.size
    for cell, text, ink in zip(cells, [t for row in texts for t in row], inks, strict=True):
        cell.set_text(text)
        if ink is not None:
            cell.set_color(ink)


# --- latest value wins -----------------------------------------------------------------------------------------


class Coalescer:
    """Render once per burst of changes, with the latest state.

    A change made in Python (a test, a notebook cell setting `.value`) renders at once. A change sent by the
    browser (ipywidgets holds a property lock while it applies one) only asks for a render: the render runs a
    few milliseconds later on the kernel's event loop, after the messages already waiting have been applied, so
    twenty slider messages that queued up during one slow render lead to one more render, not twenty.
    """

    def __init__(self, render: Callable[[], None], delay: float = 0.005):
        self._render = render
        self.delay = delay
        self.pending = False
        self.renders = 0

    def request(self, change=None) -> None:
        owner = change.get("owner") if isinstance(change, dict) else getattr(change, "owner", None)
        if getattr(owner, "_property_lock", None):  # the browser sent this value
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            if loop is not None:
                if not self.pending:
                    self.pending = True
                    loop.call_later(self.delay, self.flush)
                return
        self.flush()

    def flush(self) -> None:
        self.pending = False
        self.renders += 1
        self._render()
