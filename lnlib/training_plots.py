"""Figures of notebook 15 (training with and without normalization): loss curves, gradient norms, per-layer scales,
learning-rate sweeps. Every function returns a matplotlib `Figure` (no pyplot), with labels and an alt text
(`lnlib.plots.alt_text`) built from the data, their words messages of the catalogue domain `figures`; each series has
an Okabe–Ito colour AND its own line style and marker, so it reads in grey too. The colours of series that share an
axes are drawn from five Okabe–Ito colours (black, blue, sky blue, vermillion, yellow) that stay ≥ 20 CIEDE2000 apart
under simulated deuteranopia and protanopia (tests/test_figure_access.py); orange, green and purple would collide
with vermillion or blue.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from matplotlib import colors as mcolors
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from .figure_kit import (
    GUIDE,
    MUTED_INK,
    OKABE_ITO,
    casing,
    ink_on,
    new_figure,
    outlined,
    set_alt_text,
    use_cjk_font,
)
from .i18n import Words, message
from .labels import NORM_NAMES, layer_label, number
from .training import Run, Snapshot

BLACK, BLUE, SKY, VERMILLION, YELLOW = (OKABE_ITO[k] for k in ("black", "blue", "sky_blue", "vermillion", "yellow"))
NAMES = Words({**NORM_NAMES.keys_, "post": "words.form.post", "pre": "words.form.pre"})  # notebook 15's variants
LEARNED, DIVERGED = "trains", "diverged"  # the keys of OutcomeMap.counts (training_map.outcome_of's codes)
STYLES = {  # key: (colour, line style, marker); the MLP's four and the Transformer's two each stay apart
    "none": (BLACK, ":", "x"),
    "layer": (BLUE, "-", "o"),
    "batch": (VERMILLION, "--", "s"),
    "rms": (SKY, "-.", "^"),
    "post": (VERMILLION, "--", "s"),
    "pre": (BLUE, "-", "o"),
}
WARMUP_STYLES = {  # the same variant trained with warm-up: another colour, dash and marker (apart from STYLES too)
    "none": (VERMILLION, (0, (5, 1, 1, 1)), "P"),
    "layer": (SKY, "--", "D"),
    "batch": (YELLOW, ":", "v"),
    "rms": (BLACK, (0, (5, 1, 1, 1)), "P"),
    "post": (BLACK, ":", "D"),
    "pre": (SKY, "-.", "v"),
}
_EXTRA = [
    (BLACK, "-", "p"),
    (VERMILLION, "--", "D"),
    (SKY, "-.", "v"),
    (BLUE, ":", "^"),
    (YELLOW, (0, (5, 1, 1, 1)), "s"),
]


def _mapping(value, name: str, kind: type, what: str) -> dict:
    """A non-empty dict whose values are `kind` (Run, Snapshot): refused by name otherwise."""
    if not isinstance(value, dict):
        raise TypeError(f"{name}: expected a dict of {what}, got {type(value).__name__}")
    if not value:
        raise ValueError(f"{name}: expected at least one entry ({what}), got an empty dict")
    for key, item in value.items():
        if not isinstance(item, kind):
            raise TypeError(f"{name}: expected {what}; the entry {key!r:.40} is a {type(item).__name__}")
    return value


def _series(value, name: str, key=None) -> np.ndarray:
    """A 1-D sequence of real numbers (NaN allowed: a diverged run), refused by name otherwise."""
    where = name if key is None else f"{name}[{key!r:.40}]"
    if isinstance(value, str | bytes) or value is None:
        raise TypeError(f"{where}: expected a list of numbers, got {type(value).__name__}")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: expected a list of numbers, got {type(value).__name__}") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{where}: expected a non-empty list of numbers, got shape {arr.shape}")
    return arr


def _check_smooth(smooth) -> int:
    if isinstance(smooth, bool) or not isinstance(smooth, int | np.integer) or smooth < 1:
        raise ValueError(f"smooth: expected a positive int (steps averaged), got {smooth!r:.40}")
    return int(smooth)


def style(key, i: int = 0) -> dict:
    """Line keywords for one series: by its variant name if known, else by its position."""
    name, warmup = key if isinstance(key, tuple) else (key, 0)
    table = WARMUP_STYLES if warmup else STYLES
    color, ls, marker = table.get(name, _EXTRA[i % len(_EXTRA)])
    return {"color": color, "linestyle": ls, "marker": marker} | outlined(color, 1.6)  # sky blue, yellow: cased


def label(key) -> str:
    """'LayerNorm', 'Post-LN，warm-up 50 步' …: a readable name for a series key (str or (name, warm-up))."""
    if isinstance(key, tuple):
        name, warmup = key
        steps = message("figures.training.warmup_steps", count=warmup) if warmup else None
        return message(
            "figures.training.with_warmup",
            name=NAMES.get(name, name),
            warmup=steps or message("figures.training.no_warmup"),
        )
    return NAMES.get(key, str(key))


def _titled(title: str, text: str) -> str:
    """An alt text that starts with the figure's title, when it has one."""
    return message("figures.titled", title=title, text=text) if title else text


def _smooth(values: np.ndarray, window: int) -> np.ndarray:
    """The running mean over the last `window` steps (shorter at the start), so noisy mini-batch losses read."""
    if window <= 1 or values.size == 0:
        return values
    c = np.cumsum(np.insert(values, 0, 0.0))
    idx = np.arange(1, values.size + 1)
    lo = np.maximum(idx - window, 0)
    return (c[idx] - c[lo]) / (idx - lo)


def _sig(values) -> str:
    """Positive scales for alt text: three significant digits, so 0.00012 does not read as 0."""
    return "[" + ", ".join(f"{v:.3g}" for v in np.asarray(values, dtype=np.float64).reshape(-1)) + "]"


def _course(key, values, smooth: int, diverged: bool) -> str:
    """'LayerNorm 从 1.1 到 0.02（150 步）' for the alt text of a curve, as drawn (smoothed)."""
    y = _smooth(np.asarray(values, dtype=np.float64), smooth)
    finite = np.flatnonzero(np.isfinite(y))
    if not finite.size:
        return message("figures.training.course_none", name=label(key))
    first, last = f"{y[finite[0]]:.3g}", f"{y[finite[-1]]:.3g}"
    if diverged:  # steps counted from 1, as drawn
        step = finite[-1] + 1
        return message(
            "figures.training.course_diverged", name=label(key), first=first, last=last, count=y.size, step=step
        )
    return message("figures.training.course", name=label(key), first=first, last=last, count=y.size)


def _curve(ax, key, i, values, *, smooth: int, logy: bool, diverged: bool) -> list:
    """One run's curve on `ax` (and the big × where it diverged): the lines drawn."""
    kw = style(key, i)
    y = _smooth(np.asarray(values, dtype=np.float64), smooth)
    x = np.arange(1, y.size + 1)  # the first step is 第 1 步, as the text and divergence_text count them
    finite = np.isfinite(y) & ((y > 0) if logy else True)
    every = max(1, y.size // 8)
    lines = ax.plot(
        x[finite],
        y[finite],
        label=message("figures.training.diverged_label", name=label(key)) if diverged else label(key),
        markevery=every,
        markersize=5,
        linewidth=1.6,
        **kw,
    )
    if diverged and finite.any():
        last = np.flatnonzero(finite)[-1]
        lines += ax.plot(
            x[last],
            y[last],
            marker="X",
            markersize=11,
            color=kw["color"],
            markeredgecolor=kw.get("markeredgecolor", kw["color"]),
            linestyle="none",
            gid="marker",
        )
    return lines


def _curves(axes, runs: dict, smooth: int, logy: bool) -> list:
    """Every run's loss curve on axes[0] and, when there is a second axes, its gradient norms there: the lines."""
    lines = []
    for i, (key, run) in enumerate(runs.items()):
        lines += _curve(axes[0], key, i, run.losses, smooth=smooth, logy=logy, diverged=run.diverged)
        if len(axes) > 1:
            lines += _curve(axes[1], key, i, run.grad_norms, smooth=smooth, logy=True, diverged=run.diverged)
    return lines


def _loss_alt(runs: dict, title: str, smooth: int, logy: bool, grad_norms: bool) -> str:
    averaged = message("figures.training.averaged", steps=smooth) if smooth > 1 else ""
    scale = message("figures.sep.comma").join(
        filter(None, [averaged, message("figures.training.log_scale") if logy else ""])
    )
    scale = message("figures.paren", text=scale) if scale else ""
    clause = message("figures.sep.clause")
    courses = clause.join(_course(k, r.losses, smooth, r.diverged) for k, r in runs.items())
    alt = message(
        "figures.training.loss_alt_left" if grad_norms else "figures.training.loss_alt", scale=scale, courses=courses
    )
    if grad_norms:
        courses = clause.join(_course(k, r.grad_norms, smooth, r.diverged) for k, r in runs.items())
        alt += message("figures.training.grad_alt", courses=courses)
    if any(r.diverged for r in runs.values()):
        alt += message("figures.training.diverged_alt")
    return _titled(title, alt)


def loss_curves(
    runs: dict, *, title: str = "", smooth: int = 10, logy: bool = True, grad_norms: bool = False, ylim=None
) -> Figure:
    """Training loss against step, one line per run (a running mean over `smooth` steps); a big × ends a run that
    diverged. With grad_norms=True a second panel shows the global gradient norm of every step."""
    _mapping(runs, "runs", Run, "runs (lnlib.training.Run)")
    return _loss_figure(runs, title, _check_smooth(smooth), logy, grad_norms, ylim).fig


class _LossFigure(NamedTuple):
    """`loss_curves` as its builder drew it: the axes, the curves, the legend and the title (None without one)."""

    fig: Figure
    axes: list
    lines: list
    legend: Legend
    title: Text | None


def _loss_figure(runs: dict, title: str, smooth: int, logy: bool, grad_norms: bool, ylim, steps=None) -> _LossFigure:
    """`loss_curves`' figure; with `steps`, the x axes span steps 1 … `steps` whatever the runs' lengths."""
    use_cjk_font()
    fig = new_figure((10 if grad_norms else 6.4, 3.8), _loss_alt(runs, title, smooth, logy, grad_norms))
    axes = list(fig.subplots(1, 2)) if grad_norms else [fig.subplots()]
    lines = _curves(axes, runs, smooth, logy)
    if steps is not None:
        _span(axes, steps)
    averaged = smooth > 1
    loss = (
        message("figures.training.loss_ylabel_avg", steps=smooth)
        if averaged
        else message("figures.training.loss_ylabel")
    )
    axes[0].set_ylabel(loss)
    if grad_norms:
        grad = (
            message("figures.training.grad_ylabel_avg", steps=smooth)
            if averaged
            else message("figures.training.grad_ylabel")
        )
        axes[1].set_ylabel(grad)
        axes[1].set_yscale("log")
        axes[1].set_title(message("figures.training.grad_title"), fontsize=10)
    if logy:
        axes[0].set_yscale("log")
    if ylim is not None:
        axes[0].set_ylim(*ylim)
    for ax in axes:
        ax.set_xlabel(message("figures.training.steps_axis"))
        ax.grid(alpha=0.3)
    legend = axes[0].legend(fontsize=8)
    return _LossFigure(fig, axes, lines, legend, fig.suptitle(title, fontsize=11) if title else None)


def layer_scales(before: dict, after: dict, *, title: str = "") -> Figure:
    """2 × 2 panels: per-layer standard deviation of the activations (top) and of their gradients (bottom),
    at initialization (left) and after training (right); one line per normalization. `before`/`after` map a
    variant to a `Snapshot`."""
    _mapping(before, "before", Snapshot, "snapshots (Run.snapshots[step])")
    _mapping(after, "after", Snapshot, "snapshots (Run.snapshots[step])")
    use_cjk_font()
    parts = []
    clause = message("figures.sep.clause")
    moments = ((before, message("figures.training.when.init")), (after, message("figures.training.when.trained")))
    for snaps, when in moments:
        acts = clause.join(f"{label(k)} = {_sig(s.activation_std)}" for k, s in snaps.items())
        grads = clause.join(f"{label(k)} = {_sig(s.gradient_std)}" for k, s in snaps.items())
        parts.append(message("figures.training.scales_part", when=when, acts=acts, grads=grads))
    alt = _titled(title, message("figures.training.scales_alt", parts="".join(parts)))
    fig = new_figure((10, 6.4), alt)
    axes = fig.subplots(2, 2, sharey="row")
    for col, (snaps, when) in enumerate(moments):
        for i, (key, snap) in enumerate(snaps.items()):
            layers = np.arange(1, len(snap.activations) + 1)
            kw = style(key, i)
            axes[0, col].plot(layers, snap.activation_std, label=label(key), markersize=5, **kw)
            axes[1, col].plot(layers, snap.gradient_std, label=label(key), markersize=5, **kw)
        axes[0, col].set_title(message("figures.training.scales_act_title", when=when), fontsize=10)
        axes[1, col].set_title(message("figures.training.scales_grad_title", when=when), fontsize=10)
    for ax in axes.ravel():
        ax.set_yscale("log")
        ax.set_xlabel(message("figures.training.layer_axis"))
        ax.grid(alpha=0.3, which="both")
    axes[0, 0].set_ylabel(message("figures.training.act_std"))
    axes[1, 0].set_ylabel(message("figures.training.grad_std"))
    axes[0, 0].legend(fontsize=8)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def activation_histograms(before: dict, after: dict, layers=(1, 4, 8)) -> Figure:
    """Histograms of the activations (after ReLU) of a few layers, at initialization and after training; one
    column per variant. Values are shown on a log-spaced axis so tiny and large scales both read."""
    _mapping(before, "before", Snapshot, "snapshots (Run.snapshots[step])")
    _mapping(after, "after", Snapshot, "snapshots (Run.snapshots[step])")
    if set(after) != set(before):
        raise ValueError(f"after: expected the variants of before {list(before)}, got {list(after)}")
    depth = min(len(s.activations) for s in (*before.values(), *after.values()))
    if isinstance(layers, str | bytes) or not hasattr(layers, "__iter__"):
        raise TypeError(f"layers: expected a list of layer numbers, got {layers!r:.40}")
    layers = tuple(layers)
    for layer in layers:
        if isinstance(layer, bool) or not isinstance(layer, int | np.integer) or not 1 <= layer <= depth:
            raise ValueError(f"layers: expected layer numbers from 1 to {depth}, got {layer!r:.40}")
    use_cjk_font()
    keys = list(before)
    parts = []
    trained = message("figures.training.hist.trained")
    for key in keys:
        for snaps, when in ((before, message("figures.training.hist.init")), (after, trained)):
            medians = []
            for layer in layers:
                values = snaps[key].activations[layer - 1].ravel()
                positive = values[values > 0]
                medians.append(
                    f"{layer_label(layer)} {np.median(positive):.3g}"
                    if positive.size
                    else message("figures.training.no_positive", layer=layer_label(layer))
                )
            medians_text = message("figures.sep.comma").join(medians)
            parts.append(message("figures.training.hist_part", name=label(key), when=when, medians=medians_text))
    shown = message("figures.sep.list").join(str(x) for x in layers)
    parts_text = message("figures.sep.clause").join(parts)
    alt = message("figures.training.hist_alt", n=2 * len(keys), layers=shown, parts=parts_text)
    fig = new_figure((2.6 * len(keys), 4.6), alt)
    axes = fig.subplots(2, len(keys), sharex=True, squeeze=False)
    bins = np.logspace(-6, 2, 41)
    for col, key in enumerate(keys):
        for row, (snaps, when) in enumerate(((before, message("figures.training.hist.init_title")), (after, trained))):
            ax = axes[row, col]
            for j, layer in enumerate(layers):
                values = snaps[key].activations[layer - 1].ravel()
                kw = _EXTRA[j]
                ax.hist(
                    values[values > 0],
                    bins=bins,
                    histtype="step",
                    color=kw[0],
                    linestyle=kw[1],
                    linewidth=1.5,
                    label=layer_label(layer),
                    path_effects=casing(kw[0], 1.5),
                )
            ax.set_xscale("log")
            ax.set_title(message("figures.training.hist_title", name=label(key), when=when), fontsize=9)
            ax.grid(alpha=0.3)
        axes[1, col].set_xlabel(message("figures.training.hist_xlabel"))
    axes[0, 0].set_ylabel(message("figures.training.count_axis"))
    axes[1, 0].set_ylabel(message("figures.training.count_axis"))
    axes[0, 0].legend(fontsize=7)
    return fig


def batch_size_plot(accuracy: dict, batch_sizes, *, xlabel: str = "", title: str = "") -> Figure:
    """Held-out accuracy against a batch size (of training or of evaluation), one line per setting: keyed by a
    variant ("layer", "batch") or by any other label (e.g. "BatchNorm，用这一批自己的统计量"). The x axis is labelled
    `xlabel`, by default the batch size in training (训练时的批量大小)."""
    sizes = _series(batch_sizes, "batch_sizes")
    if not np.all(sizes > 0):
        raise ValueError(f"batch_sizes: expected positive sizes, got {sizes.tolist()}")
    if not isinstance(accuracy, dict) or not accuracy:
        raise TypeError(f"accuracy: expected a non-empty dict {{setting: accuracies}}, got {accuracy!r:.40}")
    for key, values in accuracy.items():
        if _series(values, "accuracy", key).size != sizes.size:
            raise ValueError(f"accuracy[{key!r:.40}]: expected {sizes.size} values, one per batch size")
    batch_sizes = list(batch_sizes)
    xlabel = xlabel or message("figures.training.batch_xlabel")
    use_cjk_font()
    lines = message("figures.sep.clause").join(f"{label(k)} = {_accuracies(v)}" for k, v in accuracy.items())
    sizes_text = ", ".join(str(b) for b in batch_sizes)
    alt = message("figures.training.batch_alt", xlabel=xlabel, sizes=sizes_text, lines=lines, chance=number(1 / 3))
    alt = _titled(title, alt)
    fig = new_figure((6.4, 3.8), alt)
    ax = fig.subplots()
    for i, (key, values) in enumerate(accuracy.items()):
        ax.plot(batch_sizes, values, label=label(key), markersize=6, **style(key, i))
    ax.axhline(1 / 3, color=GUIDE, linewidth=1, linestyle=(0, (1, 3)), gid="guide")
    ax.text(
        batch_sizes[-1], 1 / 3, message("figures.training.guess"), ha="right", va="bottom", fontsize=8, color=MUTED_INK
    )
    ax.set_xscale("log", base=2)
    ax.set_xticks(batch_sizes, [str(b) for b in batch_sizes])
    ax.set_ylim(0, 1.05)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(message("figures.training.test_accuracy"))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    if title:
        ax.set_title(title, fontsize=10)
    return fig


def _accuracies(values) -> str:
    """'[0.982, 发散（没有准确率）, …]': accuracies for alt text, a diverged run (NaN) said in words."""
    parts = [
        number(v) if np.isfinite(v) else message("figures.training.no_accuracy")
        for v in np.asarray(values, dtype=np.float64)
    ]
    return "[" + ", ".join(parts) + "]"


def select(grid: dict, variants, lr: float, warmup: int) -> dict:
    """The runs of `grid` ({(variant, lr, warmup): Run}) for the chosen variants at one learning rate and warm-up,
    keyed (variant, warmup) for the plot legend."""
    if not isinstance(grid, dict):
        raise TypeError(
            f"grid: expected {{(variant, lr, warmup): Run}} from lnlib.training.sweep, got {type(grid).__name__}"
        )
    if isinstance(variants, str) or not hasattr(variants, "__iter__"):
        raise TypeError(f"variants: expected a list of variants, got {variants!r:.40}")
    return {(v, warmup): grid[(v, lr, warmup)] for v in variants if (v, lr, warmup) in grid}


def explorer_figure(grid: dict, variants, lr: float, warmup: int, *, title: str = "") -> Figure:
    """The explorer's picture for one choice (also the notebook's static cell): its x axis spans every step of the
    grid, so a run that diverged early stops short of the others' end."""
    return TrainingFigure(grid, variants, lr, warmup, title=title).fig


class TrainingFigure:
    """`explorer_figure` kept (notebook 15's explorer): loss curves and gradient norms side by side, for one choice
    of variants, learning rate and warm-up from a grid of runs. `update(grid, variants, lr, warmup)` shows another
    choice (any number of variants) of a grid of the same length: the curves and their × are drawn again, the
    legend is built again, the title, the y limits and the alt text follow; the x axis (every step) stays. `moving`
    names the artists of the choice shown now: the curves and the legend are new after an update."""

    SMOOTH = 10

    def __init__(self, grid: dict, variants, lr: float, warmup: int, *, title: str = ""):
        self.steps = _steps(grid)
        runs, title = _choice(grid, variants, lr, warmup, title)
        built = _loss_figure(runs, title, self.SMOOTH, True, True, None, self.steps)
        self.fig, self._axes, self._lines, self._legend = built.fig, built.axes, built.lines, built.legend
        self._title = built.title if built.title is not None else self.fig.suptitle(title, fontsize=11)

    @property
    def moving(self) -> list:
        """The curves (with their × markers), the legend, the title and the y axes."""
        return [*self._lines, self._legend, self._title, *(ax.yaxis for ax in self._axes)]

    def update(self, grid: dict, variants, lr: float, warmup: int, *, title: str = "") -> list:
        """Show another choice; returns the artists changed."""
        if _steps(grid) != self.steps:
            raise ValueError(f"grid: expected runs of {self.steps} steps (this figure's x axis), got {_steps(grid)}")
        runs, title = _choice(grid, variants, lr, warmup, title)
        for line in self._lines:
            line.remove()
        self._legend.remove()
        self._lines = _curves(self._axes, runs, self.SMOOTH, True)
        for ax in self._axes:
            ax.relim()
        _span(self._axes, self.steps)
        for ax in self._axes:
            ax.autoscale_view(scalex=False)  # the x axis already spans every step
            ax.yaxis.stale = True  # new limits: new ticks and grid lines
        self._legend = self._axes[0].legend(fontsize=8)
        self._title.set_text(title)
        set_alt_text(self.fig, _loss_alt(runs, title, self.SMOOTH, True, True))
        return self.moving


def _span(axes, steps: int) -> None:
    """Widen the axes' data limits on x to steps 1 … `steps`: the x axis then spans them whatever is drawn."""
    for ax in axes:
        ax.update_datalim([(1, 1), (steps, 1)], updatey=False)


def _steps(grid: dict) -> int:
    """The length of the longest run of a grid: its training steps (a diverged run stops earlier)."""
    if not isinstance(grid, dict) or not all(isinstance(run, Run) for run in grid.values()):
        raise TypeError(f"grid: expected {{(variant, lr, warmup): Run}} from lnlib.training.sweep, got {grid!r:.40}")
    return max((run.losses.size for run in grid.values()), default=0)


def _choice(grid: dict, variants, lr: float, warmup: int, title: str) -> tuple[dict, str]:
    """The runs of one choice (`select`; at least one) and the picture's title."""
    runs = select(grid, variants, lr, warmup)
    if not runs:
        raise ValueError(f"variants: none of {list(variants)!r:.60} was trained at lr = {lr!r}, warm-up {warmup!r}")
    return runs, title or message("figures.training.choice_title", lr=f"{lr:g}", count=warmup)


def outcome_map_plot(omap, *, title: str = "") -> Figure:
    """One panel per normalization: rows are the initial weight scales, columns the learning rates; each cell
    says in how many of the seeds the MLP learned (its final loss ≤ ln 3 / 2) and, below, how many diverged (×).
    The shade grows with the number that learned (light: none; dark blue: all), so it reads in grey too. The map
    was trained on several BLAS kernels: where they disagree, a cell shows both counts ("3–4") and a dashed frame.
    `omap` is a `lnlib.training_map.OutcomeMap`."""
    use_cjk_font()
    seeds = len(omap.seeds)
    scale_names = [_scale_name(s) for s in omap.scales]
    lr_names = [f"{lr:g}" for lr in omap.lrs]
    parts, shaky = [], 0
    listed, clause = message("figures.sep.list"), message("figures.sep.clause")
    for norm in omap.norms:
        learned, diverged = (_count_text(omap.counts(norm)[o]) for o in (LEARNED, DIVERGED))
        shaky += int(np.sum(np.ptp(omap.counts(norm)[LEARNED], axis=-1) > 0))
        rows = [
            message("figures.training.map_row", scale=name, counts=listed.join(learned[i]))
            for i, name in enumerate(scale_names)
        ]
        total = omap.counts(norm)[DIVERGED].sum(axis=(0, 1))
        diverged_total = f"{total.min()}" if np.ptp(total) == 0 else f"{total.min()}–{total.max()}"
        parts.append(
            message(
                "figures.training.map_part",
                name=label(norm),
                lrs=listed.join(lr_names),
                rows=clause.join(rows),
                diverged=diverged_total,
            )
        )
    shaky_text = clause + message("figures.training.map_shaky", count=shaky) if shaky else ""
    parts_text = message("figures.sep.sentence").join(parts)
    alt = message("figures.training.map_alt", n=len(omap.norms), seeds=seeds, shaky=shaky_text, parts=parts_text)
    alt = _titled(title, alt)
    fig = new_figure((11, 3.6), alt)
    axes = fig.subplots(1, len(omap.norms), sharey=True)
    shades = ["#F4F4F4", "#D6E6F2", "#A9CCE6", "#6FA8D6", "#3B82BF", "#0B4F8A"]
    for ax, norm in zip(axes, omap.norms, strict=True):
        counts = omap.counts(norm)  # (scales, lrs, kernels)
        learned_text, diverged_text = _count_text(counts[LEARNED]), _count_text(counts[DIVERGED])
        low = counts[LEARNED].min(axis=-1)
        levels = np.rint(low / seeds * (len(shades) - 1)).astype(int)
        image = np.array([[mcolors.to_rgb(shades[k]) for k in row] for row in levels])
        ax.imshow(image, origin="lower", aspect="auto")
        for i in range(low.shape[0]):
            for j in range(low.shape[1]):
                ink = ink_on(shades[levels[i, j]])
                x = diverged_text[i][j]
                text = learned_text[i][j] + (f"\n×{x}" if x != "0" else "")
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color=ink, linespacing=0.9)
                if np.ptp(counts[LEARNED][i, j]) > 0:
                    frame = Rectangle((j - 0.45, i - 0.45), 0.9, 0.9, fill=False, ls="--", lw=1, ec=ink)
                    ax.add_patch(frame)
        ax.set_xticks(range(len(lr_names)), lr_names, rotation=45, fontsize=8)
        ax.set_yticks(range(len(scale_names)), scale_names, fontsize=8)
        ax.set_title(label(norm), fontsize=10)
        ax.set_xlabel(message("figures.training.lr_axis"))
    axes[0].set_ylabel(message("figures.training.scale_axis"))
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def _count_text(counts: np.ndarray) -> list[list[str]]:
    """Each cell's count over the kernels (last axis): '4', or '3–4' where the kernels disagree."""
    low, high = counts.min(axis=-1), counts.max(axis=-1)
    return [
        [f"{lo}" if lo == hi else f"{lo}–{hi}" for lo, hi in zip(r1, r2, strict=True)]
        for r1, r2 in zip(low, high, strict=True)
    ]


def _scale_name(scale: float) -> str:
    """'1 (He)', '0.71 (LeCun)' or '0.25': how a weight scale (a multiple of He's) is labelled."""
    if abs(scale - 1.0) < 1e-9:
        return message("figures.training.scale_he")
    if abs(scale - 2**-0.5) < 1e-9:
        return message("figures.training.scale_lecun")
    return f"{scale:g}"
