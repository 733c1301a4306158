"""The explorers the notebooks display (`from lnlib import widgets`; `widgets.VectorExplorer()` …).

A facade: the explorers live in `lnlib.explorers` (base, text input, one module per topic group). Each computes
its result once per change, renders the tables with `lnlib.tables` and moves a kept figure through its handle in
`lnlib.plots`, so a slider answers in tens of milliseconds. Bad text shows a short Chinese message inside the
widget and keeps the last valid state; constructor arguments outside a control's range raise ValueError naming
the argument (a slider would silently clamp them).
"""

from ._checks import as_real_array, check_eps
from .data import TOKEN_MATRIX, TOKENS
from .explorers import (
    EXPLORER_CLASS,
    NOTICE_CLASS,
    OFFLINE_CSS,
    OFFLINE_MESSAGE,
    AxisExplorer,
    BatchExplorer,
    DepthExplorer,
    EpsilonExplorer,
    Explorer,
    GammaBetaExplorer,
    ScaleShiftExplorer,
    SoftmaxExplorer,
    TypedVectorExplorer,
    VarianceExplorer,
    VectorExplorer,
    error_html,
    offline_notice,
)
from .labels import number
from .live import Coalescer, LiveFigure, from_browser, moving_artists, set_bars, set_cells, split_title
from .norms import layer_norm
from .stages import layer_norm_steps
from .text_input import MAX_VALUES, parse_vector
from .transformer import attention_at_scale, entropy, ffn_gradient_norms

__all__ = [
    "EXPLORER_CLASS",
    "MAX_VALUES",
    "NOTICE_CLASS",
    "OFFLINE_CSS",
    "OFFLINE_MESSAGE",
    "TOKENS",
    "TOKEN_MATRIX",
    "AxisExplorer",
    "BatchExplorer",
    "Coalescer",
    "DepthExplorer",
    "EpsilonExplorer",
    "Explorer",
    "GammaBetaExplorer",
    "LiveFigure",
    "ScaleShiftExplorer",
    "SoftmaxExplorer",
    "TypedVectorExplorer",
    "VarianceExplorer",
    "VectorExplorer",
    "as_real_array",
    "attention_at_scale",
    "check_eps",
    "entropy",
    "error_html",
    "ffn_gradient_norms",
    "from_browser",
    "layer_norm",
    "layer_norm_steps",
    "moving_artists",
    "number",
    "offline_notice",
    "parse_vector",
    "set_bars",
    "set_cells",
    "split_title",
]
