"""Notebook 15's explorer: pick the model, its normalization or LayerNorm placement, the learning rate and the
warm-up, and see the loss and gradient-norm curves. Every run is trained ONCE beforehand (`lnlib.training.sweep`);
the controls only choose among them, so every redraw is instant.
"""

from __future__ import annotations

import html

import ipywidgets as widgets

from .plots import to_png
from .training import final_loss
from .training_plots import explorer_figure, label, select


def summary_html(runs: dict) -> str:
    """One line per run: final loss (or 发散 at which step) and the held-out accuracy."""
    rows = []
    for key, run in runs.items():
        if run.diverged:
            rows.append(f"{html.escape(label(key))}：第 {run.losses.size - 1} 步发散")
        else:
            rows.append(
                f"{html.escape(label(key))}：最后 20 步平均损失 {final_loss(run):.3f}，"
                f"测试准确率 {run.test_accuracy:.0%}"
            )
    return "<br>".join(rows)


class TrainingExplorer:
    """Controls over precomputed grids: {"MLP": mlp_grid, "Transformer": transformer_grid}, each
    {(variant, lr, warmup): Run}. Shows loss and gradient-norm curves of the chosen variants."""

    def __init__(self, grids: dict, model: str | None = None):
        if not grids:
            raise ValueError("grids: expected at least one grid of runs")
        self.grids = grids
        first = model if model is not None else next(iter(grids))
        variants, lrs, warmups = self._choices(first)
        self.model = widgets.ToggleButtons(options=list(grids), value=first, description="模型：")
        self.variants = widgets.SelectMultiple(
            options=variants, value=[v for _, v in variants], description="归一化：", rows=4
        )
        self.lr = widgets.SelectionSlider(
            options=lrs, value=lrs[len(lrs) // 2][1], description="学习率：", continuous_update=False
        )
        self.warmup = widgets.ToggleButtons(options=warmups, value=warmups[0][1], description="warm-up：")
        self.summary = widgets.HTML()
        self.plot = widgets.Image(format="png")
        self.model.observe(self.on_model, names="value")
        for w in (self.variants, self.lr, self.warmup):
            w.observe(self.on_change, names="value")
        self.box = widgets.VBox([self.model, self.variants, self.lr, self.warmup, self.summary, self.plot])
        self.render()

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)

    def _choices(self, model: str) -> tuple[list, list, list]:
        """(label, value) options of the variants, learning rates and warm-ups present in one grid."""
        keys = list(self.grids[model])
        variants = list(dict.fromkeys(k[0] for k in keys))
        return (
            [(label(v), v) for v in variants],
            [(f"{lr:g}", lr) for lr in sorted({k[1] for k in keys})],
            [(f"{w} 步", w) for w in sorted({k[2] for k in keys})],
        )

    def on_model(self, change) -> None:
        variants, lrs, warmups = self._choices(self.model.value)
        self._rendering = True
        try:
            self.variants.options = variants
            self.variants.value = [v for _, v in variants]
            self.lr.options = lrs
            self.lr.value = lrs[len(lrs) // 2][1]
            self.warmup.options = warmups
            self.warmup.value = warmups[0][1]
        finally:
            self._rendering = False
        self.render()

    def on_change(self, change) -> None:
        if not getattr(self, "_rendering", False):
            self.render()

    def render(self) -> None:
        grid = self.grids[self.model.value]
        runs = select(grid, self.variants.value, self.lr.value, self.warmup.value)
        if not runs:
            self.summary.value = "请至少选一种归一化。"
            return
        self.summary.value = summary_html(runs)
        self.plot.value = to_png(explorer_figure(grid, self.variants.value, self.lr.value, self.warmup.value))
