"""What notebook 15's MLP does over initial weight scale × learning rate, for every normalization, on several seeds.

`outcome_map` trains `lnlib.training`'s 8-block ReLU MLP (He init times a weight scale s, Adam, 150 steps) at every
(norm, s, lr, seed) and keeps each run's final loss (the mean of its last 20 steps; NaN if it diverged). A run
counts as 学会 when that loss is at most ln 3 / 2 (half the loss of guessing one of three classes uniformly): an
absolute bar, because a badly scaled net can start at a loss of hundreds and "halve" it without learning anything.
It takes about a minute, so `tools/loss_map.py` computes it once and stores it in `outcome_map.json` next to this
module; `stored_outcome_map()` reads that file, so the notebook shows the same numbers on every machine.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import training
from .labels import OUTCOME_WORDS

SCALES = (0.25, 0.5, 1 / math.sqrt(2), 1.0, 2.0, 4.0)  # × He's √(2/fan_in); 1/√2 is LeCun's √(1/fan_in)
LRS = (1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1)
SEEDS = (0, 1, 2, 3, 4)
STEPS = 150
TRAINED_LOSS = math.log(3) / 2  # 学会: final loss ≤ half of ln 3
OUTCOMES = tuple(OUTCOME_WORDS)  # the codes; labels.OUTCOME_WORDS has their words
STORED_DIGITS = 4  # significant digits kept in the stored file (the notebook shows at most 2 decimals)
PATH = Path(__file__).with_name("outcome_map.json")


def outcome_of(loss: float) -> str:
    """The one rule of "learned": "diverged" for NaN (`training.final_loss` of a diverged run), "trains" for a final
    loss ≤ ln 3 / 2, else "stuck" (codes: labels.OUTCOME_WORDS has the words)."""
    if not math.isfinite(loss):
        return "diverged"
    return "trains" if loss <= TRAINED_LOSS else "stuck"


def rounded(loss: float) -> float:
    """A final loss as stored: STORED_DIGITS significant digits (NaN stays NaN)."""
    return float(f"{loss:.{STORED_DIGITS}g}") if math.isfinite(loss) else math.nan


@dataclass(frozen=True)
class OutcomeMap:
    """Final losses of the MLP, indexed [norm, scale, lr, seed, kernel] (NaN = diverged), with the axes that label
    them; `kernels` names the OpenBLAS kernels the map was trained on (tools/blas.py), one run per kernel."""

    norms: tuple[str, ...]
    scales: tuple[float, ...]
    lrs: tuple[float, ...]
    seeds: tuple[int, ...]
    kernels: tuple[str, ...]
    losses: np.ndarray
    init: str = "he"
    steps: int = STEPS

    def index(self, norm: str, scale: float, lr: float) -> tuple[int, int, int]:
        """Positions of (norm, scale, lr) on the axes; a scale or lr is matched to 1e-9 relative."""

        def find(values, value, name):
            for i, v in enumerate(values):
                if math.isclose(v, value, rel_tol=1e-9):
                    return i
            raise ValueError(f"{name}: expected one of {values}, got {value!r}")

        if norm not in self.norms:
            raise ValueError(f"norm: expected one of {self.norms}, got {norm!r}")
        return self.norms.index(norm), find(self.scales, scale, "scale"), find(self.lrs, lr, "lr")

    def cell(self, norm: str, scale: float, lr: float) -> np.ndarray:
        """The final losses of one (norm, scale, lr): (seeds, kernels)."""
        n, s, r = self.index(norm, scale, lr)
        return self.losses[n, s, r]

    def counts(self, norm: str) -> dict[str, np.ndarray]:
        """{outcome: (scales, lrs, kernels) array of how many seeds ended that way} for one norm."""
        n = self.norms.index(norm)
        codes = np.vectorize(outcome_of, otypes=[object])(self.losses[n])
        return {o: np.sum(codes == o, axis=-2) for o in OUTCOMES}

    def loss_range(self, norm: str, scale: float, lr: float) -> tuple[float, float] | None:
        """(lowest, highest) final loss over the seeds and kernels that did not diverge, or None if all diverged."""
        values = self.cell(norm, scale, lr)
        values = values[np.isfinite(values)]
        return (float(values.min()), float(values.max())) if values.size else None

    def kernel_dependent(self, norm: str, scale: float, lr: float, decimals: int = 2) -> bool:
        """Whether the kernels disagree on this cell: on a seed's outcome, or on its loss at `decimals`."""
        return _disagree(self.cell(norm, scale, lr), decimals)

    def data(self, kernel: str) -> dict:
        """One kernel's map as stored (JSON-ready: NaN as None)."""
        k = self.kernels.index(kernel)
        return json_ready(
            {
                "init": self.init,
                "steps": self.steps,
                "norms": list(self.norms),
                "scales": list(self.scales),
                "lrs": list(self.lrs),
                "seeds": list(self.seeds),
                "losses": self.losses[..., k].tolist(),
            }
        )

    def to_json(self) -> str:
        return by_kernel_json({k: self.data(k) for k in self.kernels})

    @classmethod
    def from_json(cls, text: str) -> OutcomeMap:
        kernels, per_kernel = read_by_kernel(text)
        first = per_kernel[kernels[0]]
        losses = np.stack([_floats(per_kernel[k]["losses"]) for k in kernels], axis=-1)
        axes = (tuple(first["norms"]), tuple(first["scales"]), tuple(first["lrs"]), tuple(first["seeds"]))
        return cls(*axes, tuple(kernels), losses, first["init"], first["steps"])


def _disagree(values: np.ndarray, decimals: int, losses: bool = True) -> bool:
    """Whether the kernels (last axis) disagree on a value shown at `decimals` or, for losses, on an outcome."""
    shown = np.vectorize(lambda v: f"{v:.{decimals}f}", otypes=[object])(values)
    outcomes = np.vectorize(outcome_of, otypes=[object])(values) if losses else shown
    return bool(np.any(outcomes != outcomes[..., :1]) or np.any(shown != shown[..., :1]))


def cell_losses(norm: str, scale: float, lrs=LRS, seed: int = 0, *, init: str = "he", steps: int = STEPS) -> list:
    """The rounded final losses of one (norm, scale, seed) at every lr (trained in lockstep), NaN = diverged."""
    grid = training.sweep("mlp", (norm,), lrs, steps=steps, seed=seed, init=init, weight_scale=scale)
    return [rounded(training.final_loss(grid[(norm, lr, 0)])) for lr in lrs]


def outcome_map_data(norms=training.NORMS, scales=SCALES, lrs=LRS, seeds=SEEDS, *, init="he", steps=STEPS) -> dict:
    """Train every (norm, scale, lr, seed) once on this process's BLAS kernel (about a minute for the defaults);
    the final losses, indexed [norm, scale, lr, seed], with the axes, as `OutcomeMap.data` stores them."""
    losses = np.array(
        [[[cell_losses(n, s, lrs, seed, init=init, steps=steps) for seed in seeds] for s in scales] for n in norms]
    )  # (norm, scale, seed, lr)
    axes = {"norms": list(norms), "scales": list(scales), "lrs": list(lrs), "seeds": list(seeds)}
    return {"init": init, "steps": steps, **axes, "losses": losses.swapaxes(-1, -2).tolist()}


def stored_outcome_map() -> OutcomeMap:
    """The map computed by `python -m tools.loss_map` on several kernels and shipped with lnlib (outcome_map.json)."""
    return OutcomeMap.from_json(PATH.read_text(encoding="utf-8"))


def json_ready(data):
    """`data` (dicts, lists, numbers) with every NaN as None, as the stored files keep it."""
    if isinstance(data, list | tuple):
        return [json_ready(x) for x in data]
    if isinstance(data, dict):
        return {k: json_ready(x) for k, x in data.items()}
    return None if isinstance(data, float) and not math.isfinite(data) else data


def by_kernel_json(per_kernel: dict[str, dict]) -> str:
    """The stored text of one file: the kernels, then each kernel's data on a line of its own."""
    lines = [f" {json.dumps(k)}: {json.dumps(json_ready(v), ensure_ascii=False)}" for k, v in per_kernel.items()]
    head = json.dumps(list(per_kernel))
    return '{\n "kernels": ' + head + ',\n "by_kernel": {\n' + ",\n".join(lines) + "\n }\n}\n"


def read_by_kernel(text: str) -> tuple[list[str], dict[str, dict]]:
    data = json.loads(text)
    return data["kernels"], data["by_kernel"]


def _floats(nested) -> np.ndarray:
    """Stored numbers as an array, None (a diverged run) as NaN."""
    return np.array(nested, dtype=np.float64)


BATCHES = (2, 4, 16, 32)  # training batch sizes of notebook 15's section 2
BATCH_NORMS = ("layer", "batch")
BATCH_PATH = Path(__file__).with_name("small_batch.json")


def small_batch_runs(norms=BATCH_NORMS, batches=BATCHES, seeds=SEEDS, *, lr=3e-3, steps=STEPS) -> dict:
    """{norm: {"loss": [[final loss per seed] per batch size], "accuracy": [[held-out accuracy …] …]}} of the MLP
    (He init) trained with each batch size on each seed; NaN marks a diverged run. Stored rounded (`rounded`)."""
    out = {}
    for norm in norms:
        runs = [
            [training.train_mlp(norm, lr=lr, steps=steps, batch_size=b, seed=s, init="he") for s in seeds]
            for b in batches
        ]
        out[norm] = {
            "loss": [[rounded(training.final_loss(r)) for r in row] for row in runs],
            "accuracy": [[rounded(r.test_accuracy) for r in row] for row in runs],
        }
    return {"batches": list(batches), "seeds": list(seeds), "lr": lr, "steps": steps, "runs": out}


def stored_small_batch() -> dict:
    """`small_batch_runs()` as stored by `python -m tools.loss_map`: each "loss" and "accuracy" an array
    (batch sizes, seeds, kernels), NaN for the diverged runs, and "kernels" the kernels they were trained on."""
    return _stored_runs(BATCH_PATH)


def _stored_runs(path: Path) -> dict:
    """A stored file of runs, its per-kernel numbers stacked on a last axis (kernels)."""
    kernels, per_kernel = read_by_kernel(path.read_text(encoding="utf-8"))
    data = {**per_kernel[kernels[0]], "kernels": kernels}
    data["runs"] = {
        name: {key: np.stack([_floats(per_kernel[k]["runs"][name][key]) for k in kernels], -1) for key in entry}
        for name, entry in data["runs"].items()
    }
    return data


def kernel_dependent(values: np.ndarray, decimals: int = 2, *, losses: bool = True) -> bool:
    """Whether stored runs' kernels (last axis) disagree on a value shown at `decimals` or, for final losses
    (`losses`), on an outcome."""
    return _disagree(np.asarray(values, dtype=np.float64), decimals, losses)


TF_FORMS = ("post", "pre")
TF_LRS = (1e-3, 3e-3)
TF_WARMUPS = (0, 50)
TF_STEPS = 200
TF_PATH = Path(__file__).with_name("transformer_seeds.json")


def transformer_runs(forms=TF_FORMS, lrs=TF_LRS, warmups=TF_WARMUPS, seeds=SEEDS, *, steps=TF_STEPS) -> dict:
    """Notebook 15's Transformer grid on every seed: {"runs": {"form lr warmup": {"loss": [final loss per seed],
    "accuracy": [held-out accuracy per seed]}}} (NaN = diverged), rounded as stored."""
    runs: dict[str, dict[str, list]] = {}
    for seed in seeds:
        grid = training.sweep("transformer", forms, lrs, warmups, steps=steps, seed=seed)
        for (form, lr, w), run in grid.items():
            entry = runs.setdefault(tf_key(form, lr, w), {"loss": [], "accuracy": []})
            entry["loss"].append(rounded(training.final_loss(run)))
            entry["accuracy"].append(rounded(run.test_accuracy))
    return {"seeds": list(seeds), "steps": steps, "runs": runs}


def tf_key(form: str, lr: float, warmup: int) -> str:
    return f"{form} {lr:g} {warmup}"


def stored_transformer_runs() -> dict:
    """`transformer_runs()` as stored by `python -m tools.loss_map`: each "loss" and "accuracy" an array
    (seeds, kernels), NaN for the diverged runs, and "kernels" the kernels they were trained on."""
    return _stored_runs(TF_PATH)
