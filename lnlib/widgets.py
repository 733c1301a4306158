"""The explorers the notebooks display (`from lnlib import widgets`; `widgets.VectorExplorer()` …).

A facade: the explorers live in `lnlib.explorers` (base, text input, one module per topic group). Each computes
its result once per change, renders the tables with `lnlib.tables` and moves a kept figure through its handle in
`lnlib.plots`, so a slider answers in tens of milliseconds. Bad text shows a short Chinese message inside the
widget and keeps the last valid state; constructor arguments outside a control's range raise ValueError naming
the argument (a slider would silently clamp them).
"""

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
)
from .text_input import MAX_VALUES, parse_vector

__all__ = [
    "EXPLORER_CLASS",
    "MAX_VALUES",
    "NOTICE_CLASS",
    "OFFLINE_CSS",
    "OFFLINE_MESSAGE",
    "AxisExplorer",
    "BatchExplorer",
    "DepthExplorer",
    "EpsilonExplorer",
    "Explorer",
    "GammaBetaExplorer",
    "ScaleShiftExplorer",
    "SoftmaxExplorer",
    "TypedVectorExplorer",
    "VarianceExplorer",
    "VectorExplorer",
    "error_html",
    "parse_vector",
]
