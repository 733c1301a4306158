"""Notebook 15's TrainingExplorer: it only chooses among runs trained beforehand, draws each choice once, and
draws the neighbouring choices in idle time (the learning-rate slider's next stop, the other warm-up)."""

from __future__ import annotations

import asyncio

import pytest
from helpers import widgets_sent

from lnlib import training as T
from lnlib import training_widgets


@pytest.fixture(scope="module")
def grids():
    tf = T.sweep("transformer", ("post", "pre"), (1e-3, 3e-3, 1e-2), (0, 5), steps=6, depth=1, width=8)
    mlp = T.sweep("mlp", ("layer", "none"), (1e-2, 5.0), steps=6, depth=2)
    return {"Transformer": tf, "MLP": mlp}


def test_the_neighbours_are_one_step_away(grids):
    e = training_widgets.TrainingExplorer(grids, model="Transformer")
    assert e.state() == ("Transformer", ("post", "pre"), 3e-3, 0)
    assert e.neighbours()[:4] == [
        ("Transformer", ("post", "pre"), 1e-2, 0),
        ("Transformer", ("post", "pre"), 1e-3, 0),
        ("Transformer", ("post", "pre"), 3e-3, 5),
        ("MLP", ("layer", "none"), 5.0, 0),  # the other model as it opens
    ]
    # then every other choice of this model's learning rate and warm-up, each once
    mine = {s[2:] for s in e.neighbours() if s[0] == "Transformer"} | {e.state()[2:]}
    assert mine == {(lr, w) for lr in (1e-3, 3e-3, 1e-2) for w in (0, 5)}
    assert len(set(e.neighbours())) == len(e.neighbours())
    e.lr.value = 1e-2  # the top of the slider: one neighbour on it
    assert [s[2:] for s in e.neighbours()[:2]] == [(3e-3, 0), (1e-2, 5)]


def test_idle_time_draws_the_neighbours_so_the_next_step_draws_nothing(grids, monkeypatch):
    e = training_widgets.TrainingExplorer(grids, model="Transformer", ready=False)
    e.PREFETCH_DELAY = 0.0

    async def idle():
        e._prefetch_later()
        for _ in range(200):  # until every neighbour is drawn (a few tenths of a second), at most 10 s
            await asyncio.sleep(0.05)
            if all(state in e._frames for state in e.neighbours()):
                break

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(idle())
    finally:
        loop.close()
    assert all(state in e._frames for state in e.neighbours())
    drawn = []
    monkeypatch.setattr(training_widgets, "explorer_figure", lambda *a, **k: drawn.append(a) or pytest.fail("drew"))
    before = e.plot.value
    e.warmup.value = 5
    assert e.plot.value != before and "warm-up 5 步" in e.summary.value and not drawn
    e.model.value = "MLP"  # the other model's first picture was drawn ahead too
    assert "LayerNorm，无 warm-up" in e.summary.value and not drawn


def test_a_model_switch_renders_once_with_the_new_grid(grids):
    e = training_widgets.TrainingExplorer(grids, model="Transformer", ready=False)
    frames = len(e._frames)
    e.model.value = "MLP"
    assert len(e._frames) == frames + 1  # one picture: not one per control reset on the way
    assert e.state() == ("MLP", ("layer", "none"), 5.0, 0)
    assert "LayerNorm，无 warm-up" in e.summary.value


def test_a_model_switch_sends_the_picture_first_and_each_control_once(grids, monkeypatch):
    """What the browser receives, in order: the new picture (the biggest message, the slowest to show) first, then
    each control's new options and value in one message, not one per trait."""
    e = training_widgets.TrainingExplorer(grids, model="Transformer", ready=False)
    sent = widgets_sent(monkeypatch)
    e.model.value = "MLP"
    states = [w for w in sent if w is not e.model]
    assert states[0] is e.plot
    for control in (e.variants, e.lr, e.warmup):
        assert states.count(control) == 1, control.description
    assert e.plot.value == e.frame(e.state())


def test_an_unknown_model_is_refused_by_name(grids):
    with pytest.raises(ValueError, match="model"):
        training_widgets.TrainingExplorer(grids, model="RNN")


def test_a_ready_explorer_only_swaps_pictures(grids, monkeypatch):
    """ready=True draws every learning rate and warm-up of both models before it shows: no control move draws."""
    e = training_widgets.TrainingExplorer(grids, model="Transformer")
    assert len(e._frames) == 3 * 2 + 2 * 1  # Transformer: 3 learning rates × 2 warm-ups; MLP: 2 × 1
    monkeypatch.setattr(training_widgets, "explorer_figure", lambda *a, **k: pytest.fail("drew a picture"))
    seen = {e.plot.value}
    for lr in (1e-3, 1e-2):
        e.lr.value = lr
        seen.add(e.plot.value)
    e.warmup.value = 5
    seen.add(e.plot.value)
    e.model.value = "MLP"
    e.lr.value = 1e-2
    seen.add(e.plot.value)
    assert len(seen) == 5 and "LayerNorm，无 warm-up" in e.summary.value
