"""tools/loss_map.py and the files it ships (lnlib/outcome_map.json, small_batch.json, transformer_seeds.json).

Notebook 15 reads these files instead of training 800 runs; here a few of their cells are trained again and
compared with what is stored, at the precision the notebook shows (2 decimals of a loss; the outcome), and the
outcome rule is checked against hand-picked losses.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from lnlib import training, training_map
from tools import loss_map


@pytest.fixture(scope="module")
def stored():
    return training_map.stored_outcome_map()


def test_outcome_rule_uses_the_absolute_bar_half_of_ln3():
    assert math.isclose(training_map.TRAINED_LOSS, 0.5493, abs_tol=1e-4)  # ln 3 / 2 by hand: 1.0986 / 2
    assert training_map.outcome_of(0.54) == "学会"
    assert training_map.outcome_of(0.56) == "卡住"
    assert training_map.outcome_of(250.0) == "卡住"  # a huge loss that "halved" is still not learned
    assert training_map.outcome_of(math.nan) == "发散"


def test_stored_map_has_every_cell_and_round_trips(stored):
    shape = (len(training.NORMS), len(training_map.SCALES), len(training_map.LRS), len(training_map.SEEDS))
    assert stored.losses.shape == shape
    assert stored.norms == training.NORMS and stored.lrs == training_map.LRS
    again = training_map.OutcomeMap.from_json(stored.to_json())
    np.testing.assert_array_equal(again.losses, stored.losses)  # NaN in the same places, numbers unchanged
    assert stored.to_json() == training_map.PATH.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("norm", "scale", "seed"),
    [("none", 4.0, 1), ("layer", 1.0, 0), ("batch", 0.25, 2), ("rms", 2**-0.5, 3)],
)
def test_a_retrained_cell_matches_the_stored_map_at_displayed_precision(stored, norm, scale, seed):
    fresh = training_map.cell_losses(norm, scale, training_map.LRS, seed)
    n, s, _ = stored.index(norm, scale, training_map.LRS[0])
    kept = stored.losses[n, s, :, training_map.SEEDS.index(seed)]
    assert [training_map.outcome_of(v) for v in fresh] == [training_map.outcome_of(v) for v in kept]
    for new, old, lr in zip(fresh, kept, training_map.LRS, strict=True):
        if math.isfinite(old) and lr <= 1e-2:  # the regimes the notebook quotes losses from (2 decimals)
            assert f"{new:.2f}" == f"{old:.2f}", (norm, scale, lr, seed)


def test_counts_and_ranges_agree_with_the_stored_losses(stored):
    counts = stored.counts("batch")
    learned = np.sum(stored.losses[2] <= math.log(3) / 2, axis=-1)  # BatchNorm is the third norm
    np.testing.assert_array_equal(counts["学会"], learned)
    np.testing.assert_array_equal(counts["发散"], np.sum(np.isnan(stored.losses[2]), axis=-1))
    low, high = stored.loss_range("none", 4.0, 1e-2)
    values = stored.cell("none", 4.0, 1e-2)
    assert (low, high) == (np.nanmin(values), np.nanmax(values))
    with pytest.raises(ValueError, match="scale"):
        stored.cell("none", 3.0, 1e-2)


def test_small_batch_and_transformer_files_match_a_retrained_seed():
    batch = training_map.stored_small_batch()
    run = training.train_mlp("batch", lr=batch["lr"], steps=150, batch_size=16, seed=1, init="he")
    i = batch["batches"].index(16)
    assert f"{training.final_loss(run):.2f}" == f"{batch['runs']['batch']['loss'][i][1]:.2f}"
    assert f"{run.test_accuracy:.0%}" == f"{batch['runs']['batch']['accuracy'][i][1]:.0%}"
    tf = training_map.stored_transformer_runs()
    (pre,) = training.train_transformer_runs("pre", [(1e-3, 0)], steps=200, seed=2)
    entry = tf["runs"][training_map.tf_key("pre", 1e-3, 0)]
    assert f"{training.final_loss(pre):.2f}" == f"{entry['loss'][2]:.2f}"
    assert f"{pre.test_accuracy:.0%}" == f"{entry['accuracy'][2]:.0%}"


def test_the_tool_check_passes_the_stored_file_and_fails_a_stale_one(tmp_path, monkeypatch):
    """`--check` compares a fresh computation with the stored text (here the computation is replaced by reading
    the stored numbers back, to keep the test cheap): unchanged passes, one changed number fails."""
    text = training_map.BATCH_PATH.read_text(encoding="utf-8")
    monkeypatch.setattr(training_map, "small_batch_runs", lambda: json.loads(text))
    path = tmp_path / "small_batch.json"
    monkeypatch.setitem(loss_map.PARTS, "small_batch", (path, loss_map.PARTS["small_batch"][1]))
    path.write_text(text, encoding="utf-8")
    assert loss_map.main(["--check", "--only", "small_batch"]) == 0
    path.write_text(text.replace("0.", "0.9", 1), encoding="utf-8")
    assert loss_map.main(["--check", "--only", "small_batch"]) == 1
