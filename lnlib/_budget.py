"""The budget of one call: at most 1 GB of memory and 10 s on 2 cores, for every size a notebook call or an explorer
accepts. Sizes beyond it are refused before any work with `BudgetError` (a ValueError) naming the argument, the
largest value the budget allows with the other arguments as given, and what the call would have needed.

Each kind of work has a cost model: peak memory and time as functions of its sizes, with coefficients measured on
the course's 2-core machine (AMD EPYC, OpenBLAS, in a fresh process each: peak RSS above the imports, wall time)
and rounded up, so that a call the budget accepts stays within it on a quiet 2-core machine:

- `stack`: a Transformer encoder stack at initialization with its backward pass (`transformer.ffn_gradient_norms`,
  `residual_scales`, notebook 09's `DepthExplorer`): about 12·width² weights per layer, their gradients and the
  activations of 4 × 16 tokens — 240 bytes and 4 µs per depth·width² (measured 210-240 bytes; 1.5-2.7 µs for
  Pre-LN, and DepthExplorer's Post-LN and Pre-LN view at depth 24 took 2.9 µs per depth·width² and form on the
  loaded machine).
- `mlp`: `training.train_mlp(_runs)` — per run: parameters, gradients, Adam's moments and a final copy, 72 bytes per
  depth·width² (measured 44-69), and per layer 4 KB per run plus the activations of the 600 test points (evaluated
  one run at a time), 64 bytes per unit
  (a depth of 66 526 at width 1 ran out of 1 GB without this term); 0.4 µs per depth·width² to set up and evaluate
  (measured 0.16-0.4), then per step and layer 150 µs plus 16 ns per width² for a batch of 32 (measured 110-120 µs
  and 15 ns).
- `transformer`: `training.train_transformer(_runs)` — per run 600 bytes per depth·width² (measured 555-570); 5 µs
  per depth·width² to set up and evaluate on the held-out sequences, then per step and layer 400 µs plus 0.8 µs per
  width² for a batch of 6 sequences (measured 330 µs and 0.5-1 µs).
Losses, gradient norms and learning rates add 40 bytes per run and step.
"""

from __future__ import annotations

MEMORY = 1 << 30  # bytes
SECONDS = 10.0  # on 2 cores


class BudgetError(ValueError):
    """A size beyond lnlib's budget of one call (1 GB, 10 s on 2 cores); raised before any work."""


def stack_cost(depth: int, width: int, forms: int = 1) -> tuple[float, float]:
    """(bytes, seconds) of `forms` encoder stacks of `depth` layers of `width` with a backward pass each (one at a
    time: the memory of one, the time of all)."""
    units = depth * width * width
    return 240.0 * units, forms * 4e-6 * units


def mlp_cost(runs: int, depth: int, width: int, steps: int, batch: int) -> tuple[float, float]:
    units = runs * depth * width * width
    per_step = runs * depth * (150e-6 + 16e-9 * width * width * max(batch, 32) / 32)
    per_layer = runs * depth * 4096 + depth * 64 * 600 * width  # the test points: one run at a time
    return 72.0 * units + per_layer + 40.0 * runs * steps, 0.4e-6 * units + steps * per_step


def transformer_cost(runs: int, depth: int, width: int, steps: int, batch: int) -> tuple[float, float]:
    units = runs * depth * width * width
    per_step = runs * depth * (400e-6 + 0.8e-6 * width * width * max(batch, 6) / 6)
    return 600.0 * units + 40.0 * runs * steps, 5e-6 * units + steps * per_step


def check_size(depth: int, width: int, cost_of, *, what: str) -> None:
    """Refuse a depth × width beyond the budget: `depth` when even width 1 is too much, else `width`."""
    if not within(cost_of(depth, 1)):
        check_arg("depth", depth, lambda d: cost_of(d, 1), what=f"{what} of width 1")
    check_arg("width", width, lambda w: cost_of(depth, w), what=f"{what} of depth {depth}")


def within(cost: tuple[float, float]) -> bool:
    return cost[0] <= MEMORY and cost[1] <= SECONDS


def check_arg(name: str, value: int, cost_of, *, what: str) -> None:
    """Refuse `name` = `value` when `cost_of(value)` (bytes, seconds) is beyond the budget; the message names the
    largest value the budget allows (cost_of grows with the value) and `what` the call is."""
    cost = cost_of(value)
    if within(cost):
        return
    low, high = 0, value  # the largest v with cost_of(v) within the budget (0: none)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if within(cost_of(mid)) else (low, mid)
    allowed = f"at most {low}" if low else "nothing"
    need = f"about {_size(cost[0])} and {cost[1]:.3g} s"
    raise BudgetError(
        f"{name}: expected {allowed} for {what} (lnlib's budget of one call is 1 GB and 10 s on 2 cores), "
        f"got {value}, which needs {need}"
    )


def _size(n: float) -> str:
    return f"{n / 2**30:.3g} GB" if n >= 2**30 else f"{n / 2**20:.3g} MB"
