"""The figure kit every render module draws with: the Okabe–Ito palette and inks (text ≥ 4.5:1, lines ≥ 3:1 or
cased), the CJK font (`use_cjk_font`), the canvas (`new_figure`: a Figure not registered with pyplot, with its alt
text), alt text (`set_alt_text`, `alt_text`, `plain`), `to_png`, the renderers' input checks, and `FigureHandle`,
the protocol of a figure an explorer moves.
"""

from __future__ import annotations

import functools
import io
import numbers
import re
import threading
from typing import NamedTuple, Protocol, runtime_checkable

import matplotlib
import numpy as np
from matplotlib import colors as mcolors
from matplotlib import font_manager, patheffects
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font
from matplotlib.image import AxesImage
from matplotlib.mathtext import MathTextParser

from ._checks import as_real_array
from .fonts import FAMILY as BUNDLED_CJK_FONT  # importing registers lnlib's own font with matplotlib
from .i18n import DEFAULT_LANGUAGE, language


@runtime_checkable
class FigureHandle(Protocol):
    """A figure an explorer moves (`plots.StageFigure` …), given its artists by its builder: `moving` names them,
    `update(result)` moves them to another result of the same shape and returns what changed."""

    fig: Figure
    moving: list

    def update(self, result, /) -> list[Artist]: ...


class Bars(NamedTuple):
    """A bar panel as its builder drew it (`live.set_bars` moves it): bars and value labels in order, a dashed line."""

    ax: Axes
    bars: list
    labels: list
    dashed: Artist | None = None


class Cells(NamedTuple):
    """A grid of numbers as its builder drew it (`live.set_cells` moves it): the image, one text per cell by rows."""

    ax: Axes
    image: AxesImage
    texts: list


try:
    from IPython import get_ipython
except ImportError:  # plots work without IPython; figures then just are not auto-displayed
    get_ipython = None

CJK_FONTS = (
    BUNDLED_CJK_FONT,
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "PingFang SC",
    "Microsoft YaHei",
    "WenQuanYi Zen Hei",
    "Noto Sans CJK JP",
)
_CJK_FILE_HINTS = ("notosanscjk", "sourcehansans", "pingfang", "msyh", "wqy", "wenquanyi")


OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}
"""Okabe & Ito (2008), "Color Universal Design": eight colours that stay apart for protan, deutan and tritan
vision."""

COLORS = {
    "x": OKABE_ITO["sky_blue"],
    "centered": OKABE_ITO["blue"],
    "normalized": OKABE_ITO["orange"],
    "output": OKABE_ITO["bluish_green"],
}
"""The bars of each LayerNorm stage."""

INK = "#000000"  # text on light backgrounds
MUTED_INK = "#4b5563"  # secondary text (dimmed cells): 7:1 on white, ≥ 6:1 on the pale cells it sits on
GUIDE = "#4b5563"  # reference lines (zero, limits), drawn thin and dashed or dotted
ACCENT = OKABE_ITO["vermillion"]  # markers, frames and arrows that point at something
ACCENT_TEXT = "#A33B00"  # text in the accent colour, darkened to 6.4:1 on white
HIGHLIGHT = OKABE_ITO["orange"]
PALE = "#e5e7eb"


def use_cjk_font() -> str | None:
    """Make matplotlib draw Chinese: put the first installed CJK font in front of the sans-serif list.

    Only installed names are added, so matplotlib never logs "findfont" lines. Fonts installed after
    matplotlib built its cache are found too. Returns the font's name, or None if no CJK font exists.
    """
    name = _first_installed()
    if name is None:
        for path in font_manager.findSystemFonts():
            if any(h in path.lower().replace("-", "").replace("_", "") for h in _CJK_FILE_HINTS):
                font_manager.fontManager.addfont(path)
        name = _first_installed()
    if name is None:
        return None
    sans = [f for f in matplotlib.rcParams["font.sans-serif"] if f != name]
    matplotlib.rcParams["font.sans-serif"] = [name, *sans]
    matplotlib.rcParams["font.family"] = "sans-serif"
    matplotlib.rcParams["axes.unicode_minus"] = False  # CJK fonts lack U+2212; use the ASCII hyphen
    return name


def _first_installed() -> str | None:
    installed = {f.name for f in font_manager.fontManager.ttflist}
    return next((n for n in CJK_FONTS if n in installed), None)


def to_png(fig: Figure, dpi: int = 100) -> bytes:
    """The figure as PNG bytes (for ipywidgets.Image)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def alt_text(fig: Figure) -> str:
    """The description of what a figure made here shows, in its language ("" for other figures)."""
    return getattr(fig, "alt_text", "")


def _png_with_alt(fig: Figure):
    """IPython's PNG formatter: (data, metadata) puts {"alt": …} into the output's image/png metadata, and the alt
    text's language where it is not the default Chinese ({"alt_lang": "en"}: a screen reader's voice)."""
    text = alt_text(fig)
    if not text:
        return to_png(fig)
    lang = getattr(fig, "alt_lang", DEFAULT_LANGUAGE)
    return to_png(fig), ({"alt": text} if lang == DEFAULT_LANGUAGE else {"alt": text, "alt_lang": lang})


def _show_figures_in_ipython() -> None:
    """Let a returned Figure display as a PNG (with its alt text) in Jupyter without pyplot or `%matplotlib inline`."""
    shell = get_ipython() if get_ipython is not None else None
    if shell is not None:
        shell.display_formatter.formatters["image/png"].for_type(Figure, _png_with_alt)


_show_figures_in_ipython()


_TEX_WORDS = {
    r"\|": "‖",
    r"\partial": "∂",
    r"\propto": "∝",
    r"\sqrt": "√",
    r"\hat{x}": "x̂",
    r"\hat{X}": "X̂",
    r"\mu": "μ",
    r"\sigma": "σ",
    r"\varepsilon": "ε",
    r"\gamma": "γ",
    r"\beta": "β",
    r"\odot": "⊙",
    r"\cdot": "·",
    r"\mathrm": "",
    r"\mathcal{L}": "ℒ",  # the loss (notebook 9), told apart from the depth L
    r"\mathcal": "",
}
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def plain(text: str) -> str:
    """A label as plain text for alt text: TeX math ($…$, \\partial, W_2) becomes Unicode, and one space separates
    Chinese from Latin letters and digits (the project's spacing rule)."""
    for tex, char in _TEX_WORDS.items():  # a macro swallows the space TeX needs after it (\\partial L → ∂L)
        text = re.sub(re.escape(tex) + (r"\s*" if tex[-1].isalpha() else ""), lambda _, c=char: c, text)
    text = re.sub(r"_\{?(\d+)\}?", lambda m: m.group(1).translate(_SUBSCRIPTS), text)
    text = re.sub(r"[${}\\]", "", text)
    text = re.sub(r"([\u4e00-\u9fff])([A-Za-z0-9‖∂√μσεγβ])", r"\1 \2", text)
    text = re.sub(r"([A-Za-z0-9‖∂√μσεγβ])([\u4e00-\u9fff])", r"\1 \2", text)
    return re.sub(r"\s+", " ", text).strip()


_MATHTEXT = threading.local()  # per thread (explorers draw ahead in a worker): what RendererAgg makes, shared


def _mathtext() -> MathTextParser:
    parser = getattr(_MATHTEXT, "parser", None)
    if parser is None:
        parser = _MATHTEXT.parser = MathTextParser("path")
    return parser


class _Canvas(FigureCanvasAgg):
    """The Agg canvas, with one mathtext parser shared by all its renderers.

    `savefig(bbox_inches="tight")` draws a figure twice with two renderers (measure, then print), and matplotlib
    caches parsed TeX ($…$ labels, log-axis tick labels) per renderer's parser, so every such label was parsed twice:
    about a quarter of the time of rendering a figure with TeX labels. A parse depends only on the text, dpi, font
    and antialiasing (its cache key), not on the renderer, so the PNG is the same, bit for bit.
    """

    def get_renderer(self):
        renderer = super().get_renderer()
        renderer.mathtext_parser = _mathtext()
        return renderer


def new_figure(figsize, alt: str) -> Figure:
    fig = Figure(figsize=figsize, layout="constrained")
    _Canvas(fig)
    set_alt_text(fig, alt)
    return fig


def set_alt_text(fig: Figure, alt: str) -> None:
    """Give `fig` its alt text (plain text: TeX labels become Unicode). A handle's `update` calls it with the
    description of the data it moved to, so `alt_text(handle.fig)` always describes the frame shown."""
    fig.alt_text = plain(alt)
    fig.alt_lang = language()  # type: ignore[attr-defined]  # the language its words were looked up in


# --- colour and contrast ---------------------------------------------------------------------------------


def relative_luminance(color) -> float:
    """WCAG 2.x relative luminance of a matplotlib colour (0 for black, 1 for white)."""
    rgb = np.asarray(mcolors.to_rgb(color), dtype=np.float64)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ [0.2126, 0.7152, 0.0722])


def contrast_ratio(a, b) -> float:
    """WCAG 2.x contrast ratio (1 … 21) between two colours."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


LINE_CONTRAST = 3.0
"""WCAG 2.x success criterion 1.4.11 (non-text contrast): a line or marker stands out at least 3:1 from what it is
drawn on. Four Okabe–Ito colours do not on white (yellow 1.32, orange 2.02, sky blue 2.31, reddish purple 2.86)."""
CASING = INK  # the outline of a line or marker whose own colour does not reach LINE_CONTRAST


class _LineCasing(patheffects.Stroke):
    """A dark stroke under a line's own path only: a filled path (a marker's face) is left to its thin edge, else
    every marker would get a casing as wide as the line's."""

    def draw_path(self, renderer, gc, tpath, affine, rgbFace=None):
        if rgbFace is None:
            super().draw_path(renderer, gc, tpath, affine, rgbFace)


def casing(color, linewidth: float = 1.5, background="#ffffff") -> list:
    """Path effects for a line of `color` and `linewidth` (points) drawn on `background`: none where the colour
    itself reaches LINE_CONTRAST, else a dark casing 1 pt wide on each side of the line (the "contrasting border" of
    WCAG's understanding of 1.4.11). The colour stays Okabe–Ito, so series stay apart under colour-vision deficiency
    as before (tests/test_figure_access.py); no darker variant of the five colours that share an axes could keep
    them ≥ 20 CIEDE2000 apart under deuteranopia and protanopia and also reach 3:1."""
    if contrast_ratio(color, background) >= LINE_CONTRAST:
        return []
    return [_LineCasing(linewidth=linewidth + 2.0, foreground=CASING), patheffects.Normal()]


def outlined(color, linewidth: float = 1.5, background="#ffffff") -> dict:
    """Keyword arguments for `ax.plot` of a series in `color`: its casing (`casing`) and, where the colour is under
    LINE_CONTRAST, a dark edge on its markers. Empty where the colour reaches 3:1 by itself."""
    effects = casing(color, linewidth, background)
    return {"path_effects": effects, "markeredgecolor": CASING, "markeredgewidth": 1.0} if effects else {}


def ink_on(background) -> str:
    """Black or white, whichever contrasts more with `background` (always ≥ 4.58:1)."""
    return "#000000" if contrast_ratio("#000000", background) >= contrast_ratio("#ffffff", background) else "#ffffff"


def highlight_inks(mask, rgba) -> list[str]:
    """The numbers' colours on a highlight heatmap, row by row: dark in the chosen cells, muted elsewhere, and
    black or white where that colour would contrast less than 4.5 : 1 with its cell (`rgba`: the cell colours)."""
    cells = np.asarray(rgba, dtype=np.float64).reshape(-1, 4)
    inks = []
    for chosen, cell in zip(np.asarray(mask).reshape(-1), cells, strict=True):
        ink = INK if chosen else MUTED_INK
        inks.append(ink if contrast_ratio(ink, cell) >= 4.5 else ink_on(cell))
    return inks


def inks_on(rgba) -> list[str]:
    """`ink_on` for many background colours at once: an (..., 3 or 4) array of RGB(A) values in 0 … 1."""
    rgb = np.asarray(rgba, dtype=np.float64)[..., :3].reshape(-1, 3)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    luminance = linear @ [0.2126, 0.7152, 0.0722]
    # black wins when (L + 0.05) / 0.05 >= 1.05 / (L + 0.05), i.e. when (L + 0.05)² >= 0.0525
    return ["#000000" if black else "#ffffff" for black in (luminance + 0.05) ** 2 >= 1.05 * 0.05]


# --- input checks ------------------------------------------------------------------------------------------


def check_matrix(matrix, name: str = "matrix") -> np.ndarray:
    """A drawable matrix through the input contract (no text, booleans or complex numbers), float64."""
    values = as_real_array(matrix, name, min_ndim=0).astype(np.float64)
    if values.ndim != 2 or 0 in values.shape:
        raise ValueError(f"{name}: expected a non-empty 2-D matrix, got shape {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name}: expected finite numbers, got inf or NaN")
    return values


def check_tokens(tokens, n: int) -> list[str]:
    tokens = [str(t) for t in tokens]
    if len(tokens) != n:
        raise ValueError(f"tokens: expected {n} names for the {n} rows, got {len(tokens)}")
    return [drawable(t) for t in tokens]


def drawable(text: str) -> str:
    """`text` with each character that no font of the figures has (an emoji, a rare CJK character) written as its
    code point U+XXXX, where matplotlib would warn "Glyph … missing" and draw an empty box."""
    if text.isascii():
        return text
    use_cjk_font()
    params = matplotlib.rcParams
    covered = _covered(tuple(params["font.family"]), tuple(params["font.sans-serif"]))
    return "".join(c if ord(c) in covered or c.isspace() else f"U+{ord(c):04X}" for c in text)


@functools.lru_cache(maxsize=4)
def _covered(families: tuple[str, ...], sans: tuple[str, ...]) -> frozenset[int]:
    """The code points matplotlib can draw: its fallback chain is one font per entry of font.family (`sans`, the
    sans-serif list, only decides which font "sans-serif" is)."""
    paths = {font_manager.findfont(font_manager.FontProperties(family=[f])) for f in families}
    return frozenset(c for path in paths for c in FT2Font(path).get_charmap())


def positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected a positive integer, got {value!r}")
    if value < 1:
        raise ValueError(f"{name}: expected a positive integer, got {value!r}")
    return int(value)


def expect(value, kind: type, name: str, made_by: str):
    """Renderers take results: refuse anything else by name, saying which function makes the result."""
    if not isinstance(value, kind):
        raise TypeError(f"{name}: expected the result of {made_by}, got {type(value).__name__}")
    return value
