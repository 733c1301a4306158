"""Issue 40: a cell that works for seconds (notebook 15's sweeps) shows a progress bar while it runs and stores
nothing that depends on the run."""

from __future__ import annotations

import nbformat
import pytest
from helpers import executed

from lnlib import progress_bar, training
from lnlib.explorers.base import FALLBACK_CLASS

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def test_outside_a_kernel_the_bar_counts_and_shows_nothing():
    with progress_bar.ProgressBar(7, "x") as bar:
        assert bar._bar is None
        for _ in range(10):
            bar.advance()
    assert bar.done == 7  # never beyond the total


@pytest.mark.parametrize(
    ("model", "variants", "lrs", "steps"),
    [
        ("mlp", ("none", "layer"), (1e-3, 1e-2), 12),
        ("transformer", ("pre",), (1e-3,), 5),
        ("mlp", ("none",), (1e3,), 40),  # every run blows up within a few steps: the rest is counted at the end
    ],
)
def test_a_sweep_reports_every_step_of_every_variant(monkeypatch, model, variants, lrs, steps):
    heard = []
    original = progress_bar.ProgressBar.advance
    monkeypatch.setattr(progress_bar.ProgressBar, "advance", lambda self, n=1: heard.append(n) or original(self, n))
    grid = progress_bar.training_sweep(model, variants, lrs, steps=steps)
    assert sum(heard) == len(variants) * steps
    if lrs == (1e3,):
        assert all(run.diverged and len(run.losses) < steps for run in grid.values())
        assert len(heard) < steps
    # the same runs as the sweep without a bar
    plain = training.sweep(model, variants, lrs, steps=steps)
    assert grid.keys() == plain.keys()
    for key, run in grid.items():
        assert run.losses.tolist() == plain[key].losses.tolist()


def test_in_a_kernel_the_bar_is_shown_then_hidden_and_stores_nothing_run_dependent():
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
    nb.cells = [
        nbformat.v4.new_code_cell(
            "from lnlib import progress_bar\n"
            "grid = progress_bar.training_sweep('mlp', ('none', 'layer'), (1e-2,), steps=30)\n"
            "len(grid)"
        )
    ]
    run = executed(nb)
    outputs = run.cells[0].outputs
    bars = [o for o in outputs if WIDGET_MIME in o.get("data", {})]
    assert len(bars) == 1 and outputs[-1]["data"]["text/plain"] == "2"
    assert bars[0]["data"]["text/plain"] == ""  # what nbval compares and GitHub shows
    assert f'class="{FALLBACK_CLASS}"' in bars[0]["data"]["text/html"]  # what the extension shows when reopened
    state = run.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    (bar,) = [m["state"] for m in state.values() if m["model_name"] == "IntProgressModel"]
    assert bar["value"] == bar["max"] == progress_bar.UPDATES
    layout = state[bar["layout"].removeprefix("IPY_MODEL_")]["state"]
    assert layout["display"] == "none"  # a reopened page hides it too


def test_track_yields_every_item_and_counts_each_once():
    seen = []
    for item in progress_bar.track(("a", "b", "c"), "x"):
        seen.append(item)
    assert seen == ["a", "b", "c"]
    assert list(progress_bar.track(iter([1, 2]), "y")) == [1, 2]  # any iterable


def test_a_sweep_says_what_it_trains():
    """Notebook 15's bars say what runs (a student reader asked what the bar was for): the sizes of the sweep."""
    mlp = progress_bar.sweep_label("mlp", training.NORMS, (3e-3, 1e-2, 3e-2, 1e-1, 3e-1), steps=150, seconds=5)
    assert mlp == "训练中：4 种归一化 × 5 个学习率，每个 150 步（约 5 秒）"
    tf = progress_bar.sweep_label("transformer", ("post", "pre"), (1e-3, 3e-3), (0, 50), steps=200)
    assert tf == "训练中：2 种结构 × 2 个学习率 × 2 种 warm-up，每个 200 步"
    assert progress_bar.sweep_label("mlp", "layer", (1e-3,), steps=10) == "训练中：1 种归一化 × 1 个学习率，每个 10 步"
