"""Notebook 15's explorer: pick the model, its normalization or LayerNorm placement, the learning rate and the
warm-up, and see the loss and gradient-norm curves. Every run is trained ONCE beforehand (`lnlib.training.sweep`);
the controls only choose among them; each model's figure is built once and moved to each choice
(`training_plots.TrainingFigure`), each picture drawn once and kept.
"""

from __future__ import annotations

import html
from typing import cast

import ipywidgets as widgets
import traitlets

from ..i18n import message
from ..training import BLOWUP, WINDOW, Run, final_loss
from ..training_plots import TrainingFigure, label, select
from .base import Explorer, FigureImage, Frame, Picture


def divergence_text(run) -> str:
    """Where and why a diverged run stopped, counting steps as the notebook's text does: the first step is
    第 1 步 (its loss is `run.losses[0]`), so a run whose second loss blew up stopped at 第 2 步."""
    step = run.losses.size  # the run stopped at the step of its last recorded loss (lnlib.training._train)
    why = {
        "nonfinite": lambda: message("explorers.training.nonfinite"),
        "blowup": lambda: message("explorers.training.blowup", blowup=f"{BLOWUP:g}"),
        "window": lambda: message("explorers.training.window", window=WINDOW, blowup=f"{BLOWUP:g}"),
    }[run.stop_reason]()
    return message("explorers.training.diverged", step=step, why=why)


def summary_html(runs: dict) -> str:
    """One line per run: final loss (or at which step and why it diverged) and the held-out accuracy."""
    rows = []
    for key, run in runs.items():
        if run.diverged:
            rows.append(
                message("explorers.training.diverged_line", label=html.escape(label(key)), text=divergence_text(run))
            )
        else:
            rows.append(
                message(
                    "explorers.training.line",
                    label=html.escape(label(key)),
                    loss=f"{final_loss(run):.3f}",
                    accuracy=f"{run.test_accuracy:.0%}",
                )
            )
    return "<br>".join(rows)


class Checkboxes(widgets.HBox):
    """One checkbox per option, in a row after a label: `value` is the tuple of the checked options' values in the
    options' order (what a SelectMultiple gives, with no Ctrl+click). The last checked box is disabled, so the
    learner cannot reach an empty choice (a picture of no runs) from the browser; Python may set any value.

    `options` are (label, value) pairs; a new `options` builds new boxes. Observe `value` as on any control.
    """

    value = traitlets.Tuple()
    options = traitlets.Tuple()

    def __init__(self, options, value, description: str):
        self.description = description
        self._label = widgets.Label(description, layout=widgets.Layout(width="80px"))
        self._boxes: list[widgets.Checkbox] = []
        self._syncing = False
        super().__init__(layout=widgets.Layout(align_items="center"))
        self.options = tuple(options)
        self.value = tuple(value)

    @traitlets.validate("value")
    def _valid_value(self, proposal):
        known = [v for _, v in self.options]
        chosen = set(proposal["value"])
        unknown = chosen - set(known)
        if unknown:
            raise traitlets.TraitError(f"value: {sorted(map(str, unknown))} not among the options {known}")
        return tuple(v for v in known if v in chosen)

    @traitlets.observe("options")
    def _build(self, change) -> None:
        for box in self._boxes:
            box.close()
        self._boxes = [
            widgets.Checkbox(value=False, description=text, indent=False, layout=widgets.Layout(width="auto"))
            for text, _ in self.options
        ]
        for box in self._boxes:
            box.observe(self._clicked, names="value")
        self.value = tuple(v for v in self.value if v in {v for _, v in self.options})
        self._show(self.value)
        self.children = (self._label, *self._boxes)

    @traitlets.observe("value")
    def _on_value(self, change) -> None:
        self._show(change["new"])

    def _show(self, chosen: tuple) -> None:
        """Tick the boxes of `chosen`; disable the box that is the only one ticked."""
        self._syncing = True
        try:
            for box, (_, v) in zip(self._boxes, self.options, strict=True):
                with box.hold_sync():
                    box.value = v in chosen
                    box.disabled = len(chosen) == 1 and v in chosen
        finally:
            self._syncing = False

    def _clicked(self, change) -> None:
        if not self._syncing:
            self.value = tuple(v for box, (_, v) in zip(self._boxes, self.options, strict=True) if box.value)


class TrainingExplorer(Explorer):
    """Controls over precomputed grids: {"MLP": mlp_grid, "Transformer": transformer_grid}, each
    {(variant, lr, warmup): Run}. Shows loss and gradient-norm curves of the chosen variants.

    Nothing is trained here. Each model has one figure (`TrainingFigure`, built once), moved to each choice: a new
    choice costs a frame, not a new figure, and is drawn when it is chosen; a picture is drawn once and kept, and
    the neighbouring choices (the next and previous learning rate, the other warm-up, the other model, one
    checkbox clicked …) are drawn in idle time. With `ready=True` (the default) the explorer builds every model's
    figure and draws every learning rate and warm-up of every model with all its variants chosen before it shows.
    """

    VIEWS = 128  # every choice of notebook 15's grids (75 of the MLP's, 12 of the Transformer's)
    picture: Picture

    def __init__(self, grids: dict, model: str | None = None, *, ready: bool = True):
        if not isinstance(grids, dict):
            raise TypeError(
                f"grids: expected {{name: grid}}, each grid from training.sweep, got {type(grids).__name__}"
            )
        if not grids:
            raise ValueError("grids: expected at least one grid of runs")
        for name, grid in grids.items():
            _check_grid(name, grid)
        if model is not None and model not in grids:
            raise ValueError(f"model: expected one of {list(grids)}, got {model!r}")
        self.grids = grids
        first = model if model is not None else next(iter(grids))
        variants, lrs, warmups = self._choices(first)
        _, chosen, lr, warmup = self.opening_choice(first)
        self.model = widgets.ToggleButtons(
            options=list(grids), value=first, description=message("explorers.training.model")
        )
        self.variants = Checkboxes(variants, chosen, description=message("explorers.training.norms"))
        self.lr = widgets.SelectionSlider(
            options=lrs, value=lr, description=message("explorers.training.lr"), continuous_update=False
        )
        self.warmup = widgets.ToggleButtons(
            options=warmups, value=warmup, description=message("explorers.training.warmup")
        )
        self.summary = widgets.HTML()
        self.switched = widgets.HTML()  # after a model switch: which setting the new model's grid does not have
        self.plot = FigureImage()
        # one figure per model, laid out by its first picture and again when new tick labels no longer fit
        self.picture = Picture(TrainingFigure, shapes=len(grids), fit=True)
        self._switching = False
        self._just_switched = False
        self.model.observe(self.on_model, names="value")
        self._wire(self.variants, self.lr, self.warmup)
        self.box = widgets.VBox(
            [self.model, self.variants, self.lr, self.warmup, self.switched, self.summary, self.plot]
        )
        self.render()  # the opening picture is drawn before the explorer shows
        if ready:
            for state in self.every_default_choice():
                self.frame(state)

    def every_default_choice(self) -> list[tuple]:
        """Every (model, all its variants, lr, warm-up) of the grids (what the slider and buttons reach), then each
        model's opening choice with one checkbox clicked."""
        states = []
        for model in self.grids:
            variants, lrs, warmups = self._choices(model)
            chosen = tuple(v for _, v in variants)
            states += [(model, chosen, lr, w) for _, lr in lrs for _, w in warmups]
        for model in self.grids:
            _, chosen, lr, warmup = self.opening_choice(model)
            states += [(model, clicked, lr, warmup) for clicked in _one_click(chosen, chosen)]
        return states

    def _choices(self, model: str) -> tuple[list, list, list]:
        """(label, value) options of the variants, learning rates and warm-ups present in one grid."""
        keys = list(self.grids[model])
        variants = list(dict.fromkeys(k[0] for k in keys))
        return (
            [(label(v), v) for v in variants],
            [(f"{lr:g}", lr) for lr in sorted({k[1] for k in keys})],
            [(message("explorers.training.steps", count=w), w) for w in sorted({k[2] for k in keys})],
        )

    def opening_choice(self, model: str) -> tuple:
        """(model, variants, lr, warm-up) a model opens with: all its variants, the middle learning rate, the first
        warm-up."""
        variants, lrs, warmups = self._choices(model)
        return (model, tuple(v for _, v in variants), lrs[len(lrs) // 2][1], warmups[0][1])

    def switch_choice(self, model: str) -> tuple:
        """What switching to `model` shows: its opening choice, but with the learning rate and warm-up chosen now
        wherever its grid has them (a switch never changes them silently)."""
        _, lrs, warmups = self._choices(model)
        model, chosen, lr, warmup = self.opening_choice(model)
        lr = self.lr.value if self.lr.value in {v for _, v in lrs} else lr
        warmup = self.warmup.value if self.warmup.value in {v for _, v in warmups} else warmup
        return (model, chosen, lr, warmup)

    def switch_text(self, model: str) -> str:
        """What a switch to `model` changes although the learner did not: a learning rate or warm-up its grid lacks
        ("" when it keeps both)."""
        _, lrs, warmups = self._choices(model)
        _, _, lr, warmup = self.switch_choice(model)
        changed = [
            message("explorers.training.no_lr", old=old, new=new)
            if what == "lr"
            else message("explorers.training.no_warmup", old=old, new=new)
            for what, old, new in (
                ("lr", self.lr.label, dict((v, k) for k, v in lrs)[lr]),
                ("warmup", self.warmup.label, dict((v, k) for k, v in warmups)[warmup]),
            )
            if old != new
        ]
        joined = message("explorers.training.switched_join").join(changed)
        return message("explorers.training.switched", model=html.escape(model), changes=joined) if changed else ""

    def on_model(self, change) -> None:
        variants, lrs, warmups = self._choices(self.model.value)
        opening = self.switch_choice(self.model.value)
        note = self.switch_text(self.model.value)  # before the controls change: it names their old values
        # the new model's picture before its controls: the biggest message, and the slowest for the browser to show
        self.plot.show(self.frame(opening))
        self.switched.value, self._just_switched = note, True
        self._switching = True  # new options fire the observers: render once, after all of them are set
        try:  # each control's options and value in one message, not one per trait (the picture waits behind them)
            with self.variants.hold_sync(), self.lr.hold_sync(), self.warmup.hold_sync():
                self.variants.options, self.variants.value = variants, opening[1]
                self.lr.options, self.lr.value = lrs, opening[2]
                self.warmup.options, self.warmup.value = warmups, opening[3]
        finally:
            self._switching = False
        self.updates.request(change)

    def state(self) -> tuple:
        return (self.model.value, tuple(self.variants.value), self.lr.value, self.warmup.value)

    def render(self) -> None:
        if self._switching:
            return
        if not self._just_switched:  # the note on a switch stays until the learner moves another control
            self.switched.value = ""
        self._just_switched = False
        if not self.state()[1]:  # only Python can get here (the last ticked box is disabled): no picture of no runs
            self.plot.layout.display = "none"
            self.summary.value = message("explorers.training.none_chosen")
            return
        self.plot.layout.display = None
        super().render()

    def view(self, state: tuple) -> list[tuple]:
        model, variants, lr, warmup = state
        frame = self.picture.frame(model, state, self.grids[model], variants, lr, warmup)
        return [(self.plot, frame), (self.summary, summary_html(select(self.grids[model], variants, lr, warmup)))]

    def frame(self, state: tuple) -> Frame:
        """The picture of one choice (model, variants, lr, warmup) and its alt text, drawn once and kept."""
        return cast(Frame, self._view(state)[0][1])

    def neighbours(self) -> list[tuple]:
        """The choices to draw ahead, nearest first: one step away on the learning-rate slider and the warm-up
        buttons, then the other models as a switch shows them, then one checkbox clicked (each variant ticked or
        unticked; never none), then every other learning rate and warm-up of this choice of variants. A frame
        costs tens of milliseconds, so in a while every picture is ready."""
        model, variants, lr, warmup = self.state()
        lrs = [v for _, v in self.lr.options]
        warmups = [v for _, v in self.warmup.options]
        i = lrs.index(lr)
        near = [lrs[j] for j in (i + 1, i - 1) if 0 <= j < len(lrs)]
        states = [(model, variants, v, warmup) for v in near]
        states += [(model, variants, lr, w) for w in warmups if w != warmup]
        states += [self.switch_choice(other) for other in self.grids if other != model]
        every = tuple(v for _, v in self.variants.options)
        states += [(model, clicked, lr, warmup) for clicked in _one_click(every, variants)]
        states += [(model, variants, r, w) for r in lrs for w in warmups]
        return list(dict.fromkeys(states))


def _one_click(every: tuple, chosen: tuple) -> list[tuple]:
    """The choices one checkbox click away from `chosen` (each variant ticked or unticked; never none)."""
    clicked = [tuple(u for u in every if (u in chosen) != (u == v)) for v in every]
    return [c for c in clicked if c]


def _check_grid(name, grid) -> None:
    """One grid of runs as training.sweep returns it: a non-empty {(variant, lr, warmup_steps): Run}."""
    if not isinstance(grid, dict):
        raise TypeError(f"grids: the grid {name!r} must be a dict from training.sweep, got {type(grid).__name__}")
    if not grid:
        raise ValueError(f"grids: the grid {name!r} holds no runs (expected {{(variant, lr, warmup_steps): Run}})")
    for key, run in grid.items():
        if not (isinstance(key, tuple) and len(key) == 3) or not isinstance(run, Run):
            raise TypeError(
                f"grids: the grid {name!r} must map (variant, lr, warmup_steps) to a Run (training.sweep), "
                f"got {key!r:.60} → {type(run).__name__}"
            )
