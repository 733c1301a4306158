"""The course's explorers: ipywidgets controls wired to lnlib's computations, tables and plots.

`base` holds what every explorer shares (the box and its offline notice, views kept per state and drawn ahead,
`Picture`: a live figure moved through its render-layer handle); `text` the typed-vector input; one module per
topic group (`vectors`, `matrices`, `depth`, `precision`) and notebook 15's `training`. Notebooks import them
through `lnlib.widgets` (and `lnlib.training_widgets`).
"""

from .base import (
    EXPLORER_CLASS,
    NOTICE_CLASS,
    OFFLINE_CSS,
    OFFLINE_MESSAGE,
    Explorer,
    Picture,
    error_html,
    offline_notice,
)
from .depth import DepthExplorer
from .matrices import AxisExplorer, BatchExplorer, GammaBetaExplorer, SoftmaxExplorer
from .precision import VarianceExplorer
from .text import TypedVectorExplorer
from .vectors import EpsilonExplorer, ScaleShiftExplorer, VectorExplorer

__all__ = [
    "EXPLORER_CLASS",
    "NOTICE_CLASS",
    "OFFLINE_CSS",
    "OFFLINE_MESSAGE",
    "AxisExplorer",
    "BatchExplorer",
    "DepthExplorer",
    "EpsilonExplorer",
    "Explorer",
    "GammaBetaExplorer",
    "Picture",
    "ScaleShiftExplorer",
    "SoftmaxExplorer",
    "TypedVectorExplorer",
    "VarianceExplorer",
    "VectorExplorer",
    "error_html",
    "offline_notice",
]
