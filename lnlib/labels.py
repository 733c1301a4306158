"""The course's words and number formatting: a word or format used in two or more modules lives here, and tables,
plots and explorers import it (words of one figure or one table stay with it). Compute code returns codes ("post",
"trains"), which the renderers turn into words.

Chinese labels follow the project's spacing rule: one space between Chinese and Latin letters or digits
("第 1 维", not "第1维").
"""

from __future__ import annotations

import math

import numpy as np

from .data import TOKENS
from .i18n import Words, message

_CONSTANTS = {"SCALAR_COLUMN": "words.scalar_column", "WHOLE_TABLE": "words.whole_table", "NO_NORM": "words.no_norm"}
"""Single words, looked up when read (`labels.WHOLE_TABLE`); `from .labels import X` takes the word of that moment."""


def __getattr__(name: str) -> str:
    if name in _CONSTANTS:
        return message(_CONSTANTS[name])
    raise AttributeError(f"module 'lnlib.labels' has no attribute {name!r}")


STAGE_LABELS = Words(
    {
        "x": "words.stage.x",
        "mean": "words.stage.mean",
        "centered": "words.stage.centered",
        "variance": "words.stage.variance",
        "std": "words.stage.std",
        "std_eps": "words.stage.std_eps",
        "normalized": "words.stage.normalized",
        "gamma": "words.stage.gamma",
        "beta": "words.stage.beta",
        "output": "words.stage.output",
    }
)
"""The stages of `LayerNormSteps`, by attribute name."""

AXIS_MODES = Words({"row": "words.axis_mode.row", "column": "words.axis_mode.column", "all": "words.axis_mode.all"})
"""Table captions of the three groupings of notebook 02 ("12" is replaced by the matrix's size)."""

AXIS_TITLES = Words({"row": "words.axis_title.row", "column": "words.axis_title.column", "all": "words.axis_title.all"})
"""Figure titles of the same three groupings."""

RESIDUAL_FORMS = Words(
    {"post": "words.form.post", "pre": "words.form.pre", "none": "words.no_norm", "deepnorm": "words.form.deepnorm"}
)
"""Where the normalization sits in a residual block (notebooks 09 and 15)."""

NORM_NAMES = Words(
    {"none": "words.no_norm", "layer": "words.norm.layer", "batch": "words.norm.batch", "rms": "words.norm.rms"}
)
"""The normalizations of notebook 15's MLP (lnlib.training.NORMS)."""

OUTCOME_WORDS = Words(
    {"trains": "words.outcome.trains", "stuck": "words.outcome.stuck", "diverged": "words.outcome.diverged"}
)
"""How a training run ended (notebook 15): learned, stuck (no blow-up, the loss did not halve), diverged."""

NORM_LABELS = Words({"layer": "words.norm_label.layer", "batch": "words.norm_label.batch"})
"""Normalizations compared in the invariance experiment (notebooks 05 and 08)."""

VARIANCE_METHODS = Words(
    {
        "one_pass": "words.variance.one_pass",
        "two_pass": "words.variance.two_pass",
        "welford": "words.variance.welford",
        "lnlib": "words.variance.lnlib",
    }
)
"""The four ways of computing σ² in notebook 13."""

_TOKEN_KEYS = dict(zip(TOKENS, ("words.token.wo", "words.token.chi", "words.token.pingguo"), strict=True))
"""The example's tokens (lnlib.TOKENS) and the messages that show them."""

_COMPACT_ABOVE = 1e6


def dim_label(i: int) -> str:
    """The label of dimension i (1-based): "第 1 维"."""
    return message("words.dim", i=i)


def dim_labels(d: int) -> list[str]:
    """Labels 第 1 维 … 第 d 维."""
    return [dim_label(i + 1) for i in range(d)]


def token_label(token: str) -> str:
    """How a token of the example is shown: the token itself in Chinese ("苹果"), with a gloss in English
    ("苹果 (apple)"). Any other token shows as given."""
    key = _TOKEN_KEYS.get(token)
    return token if key is None else message(key)


def token_labels(tokens) -> list[str]:
    """`token_label` of each token, in order."""
    return [token_label(t) for t in tokens]


def layer_label(i: int) -> str:
    """The label of layer i (1-based): "第 1 层"."""
    return message("words.layer", i=i)


def layer_labels(n: int) -> list[str]:
    """Labels 第 1 层 … 第 n 层."""
    return [layer_label(i + 1) for i in range(n)]


def residual_form(key: str) -> str:
    """The display name of a residual form key ("post" → "Post-LN"); unknown keys show as given."""
    return RESIDUAL_FORMS.get(key, key)


def number(v: float) -> str:
    """A short label for one number: up to three decimals with trailing zeros dropped (8, -1.342, 0.447);
    compact scientific notation from 1e6 on (1.2e+80), so a label never runs to 100 digits; "inf", "-inf",
    "nan" as such. Never "-0"."""
    v = float(v)
    if not math.isfinite(v):
        return str(v)
    if abs(v) >= _COMPACT_ABOVE:
        mantissa, exponent = f"{v:.2e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{exponent}"
    text = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def vector_text(values) -> str:
    """A vector as "[2, 4, 6, 8]" with `number` formatting."""
    return "[" + ", ".join(number(v) for v in np.asarray(values, dtype=np.float64).reshape(-1)) + "]"
