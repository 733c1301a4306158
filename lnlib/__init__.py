"""lnlib — the helper package of the course "LayerNorm 手算".

lnlib computes every stage of LayerNorm; `lnlib.tables` and `lnlib.plots` render them;
`lnlib.widgets` wires controls to the same functions; the notebooks narrate. See docs/architecture.md.
"""

from . import training
from .code_exercises import check_function
from .data import TOKEN_MATRIX, TOKENS
from .exercises import check
from .grad import layer_norm_backward, layer_norm_jacobian, numerical_gradient
from .hints import hint, progress
from .i18n import language, set_language
from .norms import BatchNorm, batch_norm, layer_norm, rms_norm, standardize
from .stages import LayerNormSteps, affine, center, layer_norm_steps, mean, normalize, std, variance

__all__ = [
    "TOKENS",
    "TOKEN_MATRIX",
    "mean",
    "center",
    "variance",
    "std",
    "normalize",
    "affine",
    "LayerNormSteps",
    "layer_norm_steps",
    "standardize",
    "layer_norm",
    "batch_norm",
    "BatchNorm",
    "rms_norm",
    "layer_norm_backward",
    "numerical_gradient",
    "layer_norm_jacobian",
    "check",
    "check_function",
    "hint",
    "progress",
    "training",
    "set_language",
    "language",
]

__version__ = "0.1.0"


def load_ipython_extension(shell) -> None:
    """`%load_ext lnlib`: register the answer cell magics (importing lnlib in IPython already does)."""
    from .answers import register

    register(shell)


def _register_magics() -> None:
    from .answers import register

    register()


_register_magics()
