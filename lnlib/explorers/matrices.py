"""Explorers over the token matrix (notebooks 02, 06, 08, 10): which cells feed μ and σ, γ and β, a batch
next to ours, the logit scale of attention."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import groups, invariance, labels, plots, tables
from .._checks import check_eps, check_eps_for_rows, check_in_log_range, check_in_range, check_matrix_and_tokens
from ..data import TOKEN_MATRIX, TOKENS
from ..i18n import lazy, message
from ..labels import number
from ..norms import layer_norm
from ..stages import layer_norm_steps
from ..transformer import attention_at_scale, entropy
from .base import Explorer, FigureImage, Picture

_MODES = {"row": lazy("explorers.axis.row"), "column": lazy("explorers.axis.column"), "all": lazy("explorers.axis.all")}
"""AxisExplorer's groupings and their buttons' words."""


class AxisExplorer(Explorer):
    """Choose 按行 / 按列 / 全表 and which row or column: see which cells feed one μ and σ (notebook 02)."""

    def __init__(self, matrix=TOKEN_MATRIX, tokens=TOKENS):
        self.matrix, self.tokens = check_matrix_and_tokens(matrix, tokens)
        self.mode = widgets.ToggleButtons(
            options=[(str(word), mode) for mode, word in _MODES.items()],
            value="row",
            description=message("explorers.axis.mode"),
        )
        self.index = widgets.ToggleButtons(
            description=message("explorers.axis.which")
        )  # 3–4 choices: one click, no menu
        self.plot = FigureImage()
        self.summary = widgets.HTML()
        self._switching = False
        self.picture = Picture(lambda sel: plots.HighlightFigure(sel, tokens=self.tokens))
        self._set_index_options()
        self.mode.observe(self.on_mode, names="value")
        self._wire(self.index)
        self.box = widgets.VBox([self.mode, self.index, self.summary, self.plot])
        self.render()

    def _index_options(self, mode: str) -> list[tuple[str, int]]:
        if mode == "row":
            return [(labels.token_label(t), i) for i, t in enumerate(self.tokens)]
        if mode == "column":
            return [(label, j) for j, label in enumerate(labels.dim_labels(self.matrix.shape[1]))]
        return [(message("explorers.axis.whole"), 0)]

    def _first_index(self, mode: str) -> int:
        return self._index_options(mode)[-1][1] if mode == "row" else 0

    def _set_index_options(self) -> None:
        self._switching = True  # new options fire the index observer; render once, after both are set
        try:
            with self.index.hold_sync():  # options, value and disabled in one message
                self.index.options = self._index_options(self.mode.value)
                self.index.value = self._first_index(self.mode.value)
                self.index.disabled = self.mode.value == "all"
        finally:
            self._switching = False

    def on_mode(self, change) -> None:
        # the new picture and table before the new buttons: the browser shows the messages in order
        self._show((self.mode.value, self._first_index(self.mode.value)))
        self._set_index_options()
        self.updates.request(change)

    def state(self) -> tuple:
        return (self.mode.value, self.index.value)

    def view(self, state: tuple) -> list:
        mode, index = state
        table = tables.axis_stats_table(groups.group_stats(self.matrix, mode), tokens=self.tokens)
        frame = self.picture.frame(None, (mode, index), groups.selection(self.matrix, mode, index))
        return [(self.plot, frame), (self.summary, table.to_html(live=True))]

    def render(self) -> None:
        if not self._switching:
            super().render()

    def neighbours(self) -> list[tuple]:
        """Every choice (a handful): all are drawn ahead in idle time."""
        return [(mode, i) for mode in ("row", "column", "all") for _, i in self._index_options(mode)]


class GammaBetaExplorer(Explorer):
    """Four γ and four β sliders applied to the whole token matrix: the table and the heatmap of y follow
    (notebook 06). γ and β are per dimension and shared by every token."""

    LIMIT = 7.5  # the colour scale of the heatmap: |γ·x̂ + β| ≤ 3·√3 + 3 for 4 dimensions and sliders up to ±3

    def __init__(self, matrix=TOKEN_MATRIX, tokens=TOKENS, eps: float = 1e-5):
        self.matrix, self.tokens = check_matrix_and_tokens(matrix, tokens)
        self.eps = check_eps_for_rows(check_eps(eps), self.matrix, self.tokens)
        dims = labels.dim_labels(self.matrix.shape[1])
        self.gammas = [
            widgets.FloatSlider(
                value=1.0,
                min=-3,
                max=3,
                step=0.1,
                description=message("explorers.gamma_beta.gamma", dim=label),
                continuous_update=True,
            )
            for label in dims
        ]
        self.betas = [
            widgets.FloatSlider(
                value=0.0,
                min=-3,
                max=3,
                step=0.1,
                description=message("explorers.gamma_beta.beta", dim=label),
                continuous_update=True,
            )
            for label in dims
        ]
        for slider in self.gammas + self.betas:
            slider.style.description_width = "80px"
        self.table = widgets.HTML()
        self.stats = widgets.HTML()
        self.plot = FigureImage()
        controls = widgets.HBox([widgets.VBox(self.gammas), widgets.VBox(self.betas)])
        self.box = widgets.VBox([controls, self.table, self.stats, self.plot])
        title = message("explorers.gamma_beta.title", formula=r"$y=\gamma\odot\hat{x}+\beta$")
        self.picture = Picture(lambda y: plots.ValueHeatmapFigure(y, self.tokens, title=title, limit=self.LIMIT))
        self._wire(*self.gammas, *self.betas)
        self.render()

    @property
    def gamma(self) -> np.ndarray:
        return np.array([s.value for s in self.gammas], dtype=np.float64)

    @property
    def beta(self) -> np.ndarray:
        return np.array([s.value for s in self.betas], dtype=np.float64)

    def view(self, state: tuple) -> list:
        d = len(self.gammas)
        gamma, beta = np.array(state[:d], dtype=np.float64), np.array(state[d:], dtype=np.float64)
        y = layer_norm_steps(self.matrix, gamma, beta, eps=self.eps).output
        caption = message("explorers.gamma_beta.caption")
        stats = groups.group_stats(y, "row")
        return [
            (self.plot, self.picture.frame(None, (gamma.tobytes(), beta.tobytes()), y)),
            (self.table, tables.token_table(y, self.tokens, caption=caption).to_html(live=True)),
            (
                self.stats,
                tables.row_stats_table(stats, self.tokens, caption=message("explorers.gamma_beta.stats")).to_html(
                    live=True
                ),
            ),
        ]


class BatchExplorer(Explorer):
    """Notebook 08: scale the other sentence in the batch; our sentence's BatchNorm output moves, LayerNorm's stays."""

    def __init__(self, scale: float = 1.0, matrix=TOKEN_MATRIX, tokens=TOKENS):
        scale = check_in_range(scale, "scale", 0.0, 20.0)
        self.matrix, self.tokens = check_matrix_and_tokens(matrix, tokens)
        self.scale = widgets.FloatSlider(
            value=scale,
            min=0.0,
            max=20.0,
            step=0.5,
            description=message("explorers.batch.scale"),
            continuous_update=True,
        )
        self.bn = widgets.HTML()
        self.ln = widgets.HTML()
        self.box = widgets.VBox([self.scale, self.bn, self.ln])
        self._wire(self.scale)
        self.render()

    def view(self, state: tuple) -> list:
        (scale,) = state
        bn, ln = invariance.batch_dependence(scale, self.matrix)
        bn_caption = message("explorers.batch.bn", scale=number(scale))
        ln_caption = message("explorers.batch.ln")
        return [
            (self.bn, tables.token_table(bn, self.tokens, caption=bn_caption).to_html(live=True)),
            (self.ln, tables.token_table(ln, self.tokens, caption=ln_caption).to_html(live=True)),
        ]


class SoftmaxExplorer(Explorer):
    """Notebook 10: a slider on the logit scale (1/temperature); attention weights and each row's entropy follow."""

    def __init__(self, scale: float = 1.0, matrix=None, tokens=TOKENS):
        scale = check_in_log_range(scale, "scale", -2, 1.5)
        self.matrix, self.tokens = check_matrix_and_tokens(
            layer_norm(TOKEN_MATRIX, eps=1e-5) if matrix is None else matrix, tokens
        )
        self.scale = widgets.FloatLogSlider(
            value=scale,
            base=10,
            min=-2,
            max=1.5,
            step=0.05,
            description=message("explorers.softmax.scale"),
            readout_format=".3g",
            continuous_update=True,
        )
        self.summary = widgets.HTML()
        self.plot = FigureImage()
        self.box = widgets.VBox([self.scale, self.summary, self.plot])
        self.picture = Picture(lambda w, h: plots.AttentionFigure(w, self.tokens, entropy=h))
        self._wire(self.scale)
        self.render()

    def view(self, state: tuple) -> list:
        scale = float(state[0])
        w = attention_at_scale(self.matrix, scale)
        h = entropy(w)
        summary = tables.stats_table(
            self.tokens,
            {message("explorers.softmax.max_weight"): w.max(axis=1), message("explorers.softmax.entropy"): h},
            caption=message("explorers.softmax.caption", scale=f"{scale:.3g}"),
            index_name="query",
        )
        return [(self.plot, self.picture.frame(None, scale, w, h)), (self.summary, summary.to_html(live=True))]
