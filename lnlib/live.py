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
import math
import struct
import zlib
from collections.abc import Callable, Hashable, Iterable

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.axis import Axis as MplAxis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from ._lru import LRU
from .labels import number

DPI = 100  # the explorers show the PNG at its natural size, as the static figures are stored (plots.to_png)
PNG_LEVEL = 1  # zlib level: 1 compresses several times faster than the default 6 and is hardly larger here
CACHE_SIZE = 64


class LiveFigure:
    """One figure drawn again and again: frozen layout, static background, animated artists, cached PNGs."""

    def __init__(self, fig: Figure, dpi: int = DPI):
        self.fig = fig
        if not isinstance(fig.canvas, FigureCanvasAgg):  # figure_kit's figures have one (its _Canvas)
            FigureCanvasAgg(fig)
        fig.set_dpi(dpi)
        self._engine = fig.get_layout_engine()  # kept for `relayout`
        self._animated: list[Artist] = []
        self._background = None
        self._frame: np.ndarray | None = None  # the last frame's pixels (rows top-down, RGBA)
        self._extents: dict[Artist, Bbox | None] = {}  # where each animated artist was drawn last
        self._images: dict[AxesImage, np.ndarray] = {}  # the data each animated image showed last
        self._vacated: list[Bbox | None] = []  # where animated artists that are gone were drawn last (`follow`)
        self._laid_out = False
        self._fits = False  # the last `fits()` held and no y axis has been drawn anew since
        self._cache = LRU(CACHE_SIZE)  # PNG bytes by the explorer's key
        self.frames = 0  # frames actually drawn (cache hits excluded): tests and benchmarks read it
        self.redrawn = 0  # animated artists drawn for the last frame: tests read it

    def animate(self, artists: Iterable[Artist]) -> None:
        """Name the artists that change from frame to frame; everything else becomes the background."""
        for artist in self._animated:
            artist.set_animated(False)
        # drawn in matplotlib's own order (zorder), so a bar never covers the zero line or an image the spines
        self._animated = sorted((a for a in artists if a is not None), key=lambda a: a.get_zorder())
        self._background = None

    def follow(self, artists: Iterable[Artist]) -> None:
        """The artists that move after an update that built some of them again (a handle's new curves, a new
        legend). The background stays: an artist built after it was drawn is not in it, nor is one animated
        before. The places of the artists that are gone are drawn again on the next frame."""
        now = sorted((a for a in artists if a is not None), key=lambda a: a.get_zorder())
        if now == self._animated:
            return
        kept = set(now)
        for artist in (a for a in self._animated if a not in kept):
            if artist in self._extents:
                self._vacated.append(self._extents.pop(artist))
            if isinstance(artist, AxesImage):
                self._images.pop(artist, None)
        self._animated = now

    def invalidate(self) -> None:
        """Something in the background changed (an axis limit, a static text): redraw it on the next frame."""
        self._background = None

    def fits(self) -> bool:
        """True when the frozen layout still holds the last frame: no y tick label (nor the axis' offset text,
        such as "1e6", nor its label) reaches into another axes or out of the figure. New data can make them
        wider; then the layout has to be computed again. The answer is kept until a y axis is drawn anew (a new
        background, or an animated axis that changed): a frame that only moved bars or texts costs no check."""
        if self._fits:
            return True
        renderer = self.fig.canvas.get_renderer()
        axes = self.fig.axes
        for ax in axes:
            always = (ax.yaxis.get_offset_text(), ax.yaxis.label)
            for text in [*ax.yaxis.get_ticklabels(), *ax.yaxis.get_ticklabels(minor=True), *always]:
                if not text.get_visible() or not text.get_text():
                    continue
                box = text.get_window_extent(renderer)
                if text not in always and not ax.bbox.y0 - 1 <= box.y0 / 2 + box.y1 / 2 <= ax.bbox.y1 + 1:
                    continue  # the locator's ticks beyond the axis limits are not drawn
                if box.x0 < 0 or box.x1 > self.fig.bbox.x1:
                    return False
                if any(other is not ax and box.overlaps(other.bbox) for other in axes):
                    return False
        self._fits = True
        return True

    def positions(self) -> list[Bbox]:
        """Where the layout put each axes (figure coordinates), to lay out a figure of the same kind alike."""
        return [ax.get_position() for ax in self.fig.axes]

    def use_positions(self, positions: list[Bbox]) -> bool:
        """Place the axes where `positions` says instead of running the layout engine (which costs most of a
        first frame); False, and nothing changed, when the figure has a different number of axes. The layout is
        then frozen: the first frame already draws the background and the animated artists over it."""
        if len(positions) != len(self.fig.axes):
            return False
        self.fig.set_layout_engine("none")
        for ax, box in zip(self.fig.axes, positions, strict=True):
            ax.set_position(box)
            ax.set_in_layout(True)  # set_position takes an axes out of the layout; `relayout` needs it back
        self._laid_out = True
        self._background = None
        return True

    def lay_out_roomy(self, ylim: tuple[float, float] = (-88888.0, 88888.0)) -> None:
        """Run the layout once as if every linear y axis showed wide tick labels ("−80000"), then freeze it, so
        that new data with labels up to that width fits the frozen layout (no new layout per typed vector)."""
        axes = [ax for ax in self.fig.axes if ax.get_yscale() == "linear"]
        kept = [(ax.get_ylim(), ax.get_autoscaley_on()) for ax in axes]
        for ax in axes:
            ax.set_ylim(*ylim)
        self.fig.canvas.draw()  # runs the layout engine
        positions = self.positions()
        for ax, (lim, auto) in zip(axes, kept, strict=True):
            ax.set_ylim(*lim)
            ax.set_autoscaley_on(auto)  # set_ylim switched it off
        self.use_positions(positions)

    def relayout(self) -> None:
        """Compute the layout again on the next frame (then freeze it), as for a new figure."""
        if self._engine is not None:
            self.fig.set_layout_engine(self._engine)
        self._laid_out = False

    def forget_frames(self) -> None:
        """Empty the frame cache (the figure, its layout and its background stay)."""
        self._cache.clear()

    def cached(self, key: Hashable) -> bytes | None:
        return self._cache.get(key)

    def png(self, key: Hashable | None = None) -> bytes:
        """Draw the current state and return it as PNG bytes (stored under `key` when given).

        The first frame is one full draw that also runs the figure's layout engine, which is then switched off.
        The next frame draws the background once (without the animated artists) and the animated artists over it.
        Every later frame redraws only what changed: the animated artists that matplotlib marked stale since
        the last frame (a new height, text, colour or image data) give a dirty rectangle (where they were and
        where they are now; for an image, only its changed cells); inside it the background is restored and
        every animated artist that reaches into it is drawn again; outside it the last frame's pixels stay.
        """
        canvas = self.fig.canvas
        if not self._laid_out or self._background is None or self._frame is None:
            self._fits = False  # the background, with its axes, is drawn anew
        if not self._laid_out:
            for artist in self._animated:
                artist.set_animated(False)
            canvas.draw()
            self.fig.set_layout_engine("none")
            self._laid_out = True
            self._background = None
            frame = np.asarray(canvas.buffer_rgba())
        elif self._background is None or self._frame is None:
            for artist in self._animated:
                artist.set_animated(True)
            canvas.draw()
            self._background = canvas.copy_from_bbox(self.fig.bbox)
            self._blit(self._animated)
            self._frame = frame = np.array(canvas.buffer_rgba())
            renderer = canvas.get_renderer()
            self._extents = {a: _extent(a, renderer) for a in self._animated}
            self._vacated = []
            self._images = {a: _image_data(a) for a in self._animated if isinstance(a, AxesImage)}
        else:
            frame = self._frame
            self._redraw_dirty(canvas, frame)
        data = encode_png(frame)
        self.frames += 1
        if key is not None:
            self._cache.put(key, data)
        return data

    def _redraw_dirty(self, canvas, frame: np.ndarray) -> None:
        renderer = canvas.get_renderer()
        boxes, now = [], {}
        for artist in self._animated:
            if not artist.stale:
                continue
            now[artist] = _extent(artist, renderer)
            if isinstance(artist, MplAxis):
                self._fits = False
            if isinstance(artist, AxesImage):
                boxes.append(self._changed_cells(artist, renderer))
            else:
                boxes += [self._extents.get(artist), now[artist]]
        self._extents.update(now)
        boxes += self._vacated
        self._vacated = []
        boxes = [b for b in boxes if b is not None]
        if not boxes:
            self.redrawn = 0
            return
        height, width = frame.shape[:2]
        x0, y0, x1, y1 = Bbox.union(boxes).extents
        # whole pixels, with a margin for antialiased edges, inside the figure
        x0, y0 = max(0, math.floor(x0) - PAD), max(0, math.floor(y0) - PAD)
        x1, y1 = min(width, math.ceil(x1) + PAD), min(height, math.ceil(y1) + PAD)
        if x0 >= x1 or y0 >= y1:
            self.redrawn = 0
            return
        dirty = Bbox.from_extents(x0, y0, x1, y1)
        canvas.restore_region(self._background)
        touched = [a for a in self._animated if (e := self._extents.get(a)) is not None and e.overlaps(dirty)]
        self._blit(touched, clip=dirty)
        self.redrawn = len(touched)
        rows = slice(height - y1, height - y0)  # the buffer's rows run top-down, display y bottom-up
        frame[rows, x0:x1] = np.asarray(canvas.buffer_rgba())[rows, x0:x1]

    def _changed_cells(self, image: AxesImage, renderer) -> Bbox | None:
        """The display box of the cells whose data changed since the last frame (all of it if the shape did)."""
        old, new = self._images.get(image), _image_data(image)
        self._images[image] = new
        if old is None or old.shape != new.shape:
            return self._extents.get(image)
        changed = np.argwhere(np.asarray(old != new).reshape(new.shape[:2] + (-1,)).any(axis=-1))
        if changed.size == 0:
            return None
        (r0, c0), (r1, c1) = changed.min(axis=0), changed.max(axis=0) + 1
        left, right, bottom, top = image.get_extent()
        rows, cols = new.shape[:2]
        xs = left + (right - left) * np.array([c0, c1]) / cols
        ys = top + (bottom - top) * np.array([r0, r1]) / rows  # row 0 at `top` (imshow's origin="upper")
        if image.origin == "lower":
            ys = bottom + (top - bottom) * np.array([r0, r1]) / rows
        corners = image.axes.transData.transform(np.column_stack([xs, ys]))
        return Bbox.from_extents(*corners.min(axis=0), *corners.max(axis=0))

    @property
    def has_background(self) -> bool:
        """True once the static background is kept: later frames only draw the moving artists over it."""
        return self._background is not None

    def fitted_png(self, key: Hashable | None = None) -> bytes:
        """The frame; drawn again with a new layout when new tick labels no longer fit a borrowed or frozen one."""
        png = self.png(key)
        if not self.fits():
            self.relayout()
            png = self.png(key)
        return png

    def _blit(self, artists: Iterable[Artist], clip: Bbox | None = None) -> None:
        """Draw `artists`; an image only inside `clip` (resampling an image costs in proportion to its area)."""
        for artist in artists:
            if clip is None or not isinstance(artist, AxesImage):
                self.fig.draw_artist(artist)
                continue
            own = artist.get_clip_box()
            artist.set_clip_box(Bbox.intersection(own, clip) if own is not None else clip)
            try:
                self.fig.draw_artist(artist)
            finally:
                artist.set_clip_box(own)
                artist.stale = False


PAD = 2  # pixels added around a dirty rectangle: antialiased edges reach a pixel beyond an artist's extent
AXIS_PAD = 12  # pixels around an axis' axes and labels: its tick marks (up to 10 points) stick out of the axes


def _extent(artist: Artist, renderer) -> Bbox | None:
    """Where `artist` is drawn, in display pixels (with a margin); None if it draws nothing."""
    if not artist.get_visible():
        return None
    if isinstance(artist, MplAxis):
        ax = artist.axes
        if artist is ax.yaxis and artist.get_label_position() == "left":
            # its grid lines (the whole axes), tick marks, tick labels, offset text and label: all inside the band
            # from the axes to its left neighbour (or the figure's edge), with room above and below. A bound, not a
            # measurement: laying out every tick label to measure it costs more than the wider rectangle (and the
            # frozen layout keeps the labels out of the neighbour: see `fits`)
            left = max((o.bbox.x1 for o in ax.figure.axes if o is not ax and o.bbox.x1 <= ax.bbox.x0), default=0.0)
            return Bbox.from_extents(left, ax.bbox.y0 - 2 * AXIS_PAD, ax.bbox.x1, ax.bbox.y1 + 2 * AXIS_PAD)
        # its grid lines (the whole axes), tick marks (just outside it) and labels; none of them is clipped
        box = Bbox.union([ax.bbox, artist.get_tightbbox(renderer) or ax.bbox])
        return box.padded(AXIS_PAD)
    box = artist.get_window_extent(renderer)
    if not np.all(np.isfinite(box.extents)):
        return None
    box = box.padded(PAD)  # a line's box has no height (or width); its stroke and antialiasing reach beyond it
    clip = artist.get_clip_box() if artist.get_clip_on() else None
    if clip is not None:
        box = Bbox.intersection(box, clip)
    return box


def _image_data(image: AxesImage) -> np.ndarray:
    return np.ma.filled(np.ma.asarray(image.get_array(), dtype=np.float64), np.nan).copy()


def encode_png(rgba: np.ndarray) -> bytes:
    """PNG bytes (8-bit RGB, no filter, zlib level PNG_LEVEL) of an (h, w, 4) uint8 frame, alpha dropped.

    Several times faster than PIL's encoder here: one copy into the scanlines and one zlib call (the figures
    are opaque, so the alpha channel carries nothing).
    """
    height, width = rgba.shape[:2]
    lines = np.empty((height, 1 + 3 * width), dtype=np.uint8)  # each scanline: filter byte 0, then RGB
    lines[:, 0] = 0
    rgb = lines[:, 1:].reshape(height, width, 3)
    for channel in range(3):  # one channel at a time: faster than one strided copy of all three
        rgb[..., channel] = rgba[..., channel]
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"".join(
        [_PNG_SIGNATURE, _chunk(b"IHDR", header), _chunk(b"IDAT", zlib.compress(lines, PNG_LEVEL)), _chunk(b"IEND")]
    )


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes = b"") -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


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


def set_bars(panel, values) -> None:
    """New heights for the bars of a panel (`figure_kit.Bars`), with their value labels."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    bars, labels = panel.bars, panel.labels
    if len(bars) != values.size or len(labels) != values.size:
        raise ValueError(f"values: the panel has {len(bars)} bars, got {values.size} values")
    for bar, label, v in zip(bars, labels, values, strict=True):
        if bar.get_height() == v and label.get_text() == number(v):
            continue  # unchanged: not marked stale, so the next frame does not redraw it
        bar.set_height(v)
        label.set_text(number(v))
        label.xy = (label.xy[0], v)
        label.set_verticalalignment("bottom" if v >= 0 else "top")
        label.xyann = (0, 2 if v >= 0 else -2)


def set_cells(grid, values, texts, colors: Callable[[np.ndarray], list] | None = None) -> None:
    """New values for a grid of numbers (`figure_kit.Cells`: an image, one text per cell): colours, texts, inks.

    `colors(rgba)` returns one text colour per cell (row-major) for the new cell colours `rgba` (n, d, 4).
    """
    image = grid.image
    values = np.asarray(values, dtype=np.float64)
    if not np.array_equal(np.ma.filled(np.ma.asarray(image.get_array(), dtype=np.float64), np.nan), values, True):
        image.set_array(values)
    cells = grid.texts
    inks = colors(image.to_rgba(values)) if colors is not None else [None] * values.size
    for cell, text, ink in zip(cells, [t for row in texts for t in row], inks, strict=True):
        if cell.get_text() != text:  # only what changed is marked stale (and redrawn)
            cell.set_text(text)
        if ink is not None and to_hex(cell.get_color(), keep_alpha=True) != to_hex(ink, keep_alpha=True):
            cell.set_color(ink)


# --- latest value wins -----------------------------------------------------------------------------------------


def from_browser(change) -> bool:
    """True for a traitlets change that the browser sent (ipywidgets holds a property lock while it applies one),
    False for a change made in Python (a notebook cell, a test) or no change at all."""
    owner = change.get("owner") if isinstance(change, dict) else getattr(change, "owner", None)
    return bool(getattr(owner, "_property_lock", None))


class Coalescer:
    """Render once per burst of changes, with the latest state.

    A change made in Python (a test, a notebook cell setting `.value`) renders at once. A change sent by the
    browser (ipywidgets holds a property lock while it applies one) renders at once too when it is the first
    after a pause (a key press, a click: no added delay). A change that arrives within `quiet` seconds of the
    last render — a drag in progress — only asks for a render: it runs `delay` seconds later on the kernel's
    event loop, after the messages already waiting have been applied, so twenty slider messages that queued up
    during one slow render lead to one more render, not twenty.
    """

    def __init__(self, render: Callable[[], None], delay: float = 0.005, quiet: float = 0.1):
        self._render = render
        self.delay = delay
        self.quiet = quiet
        self.pending = False
        self.renders = 0
        self._last = -math.inf  # the event loop's time when the last render ended

    def request(self, change=None) -> None:
        if from_browser(change):
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            if loop is not None:
                if self.pending:
                    return
                if loop.time() - self._last >= self.quiet:
                    self.flush()
                    self._last = loop.time()
                    return
                self.pending = True
                loop.call_later(self.delay, self._flush_later, loop)
                return
        self.flush()

    def _flush_later(self, loop) -> None:
        self.flush()
        self._last = loop.time()

    def flush(self) -> None:
        self.pending = False
        self.renders += 1
        self._render()
