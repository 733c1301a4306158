"""The budget of one call (issue 39, L1; lnlib/_budget.py): every size an explorer or a training call accepts runs
within 1 GB, and the next size is refused before any work.

The memory test runs, in a child Python, the largest accepted size of each call where memory is what binds, each
with its address space limited (resource.RLIMIT_AS) to what the process holds before it plus the stated budget of
1 GB (after the imports and a first small call of each kind): a call beyond it ends in a MemoryError. The sizes come
from the refusals' own messages ("expected at most N"), and N + 1 must be refused. Times are printed, never
asserted.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from lnlib import _budget
from lnlib._budget import BudgetError
from tools.course import ROOT

CHILD = r"""
import gc, json, re, resource, sys, time
import numpy as np
import lnlib
from lnlib import _fast, training, transformer, widgets
from lnlib._budget import BudgetError

def largest(call, huge):
    try:
        call(huge)
    except BudgetError as err:
        return int(re.search(r"expected at most (\d+)", str(err)).group(1))
    raise AssertionError(f"{huge} was accepted")

CASES = {
    "ffn_gradient_norms, depth 24": (lambda w: transformer.ffn_gradient_norms("pre", 24, w), 10**6),
    "DepthExplorer, depth 24": (lambda w: widgets.DepthExplorer(24, w), 4096),
    "train_mlp, depth 8, steps 1": (lambda w: training.train_mlp("layer", width=w, steps=1), 10**6),
    "train_mlp, width 1, steps 1": (lambda d: training.train_mlp("layer", depth=d, width=1, steps=1), 10**9),
    "train_transformer, depth 6, steps 1": (lambda w: training.train_transformer("pre", width=w, steps=1), 10**6),
    "AxisExplorer": (lambda n: widgets.AxisExplorer(np.ones((n, n)) + np.eye(n), [f"t{i}" for i in range(n)]), 999),
    "GammaBetaExplorer": (lambda n: widgets.GammaBetaExplorer(np.eye(n), [f"t{i}" for i in range(n)]), 999),
    "SoftmaxExplorer": (lambda n: widgets.SoftmaxExplorer(1.0, np.eye(n), [f"t{i}" for i in range(n)]), 999),
}
sizes = {}
for name, (call, huge) in CASES.items():
    sizes[name] = size = largest(call, huge)
    try:  # the next size up is refused, before any work
        call(size + 1)
        raise AssertionError(f"{name}: {size + 1} was accepted")
    except BudgetError:
        pass
# every kind of work once at a small size, so that each limit below counts only what the big size adds
_fast.warm_up(wait=True)
lnlib.layer_norm(np.ones((1024, 128)))  # numba's thread pool
for call, _ in CASES.values():
    call(2)
status = lambda key: int(next(l for l in open("/proc/self/status") if l.startswith(key)).split()[1]) * 1024
results = []
for name, (call, _) in CASES.items():
    gc.collect()
    base = status("VmSize:")
    resource.setrlimit(resource.RLIMIT_AS, (base + (1 << 30), resource.RLIM_INFINITY))  # this case: 1 GB more
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # the resident peak (VmHWM) starts over
    rss = status("VmRSS:")
    start = time.perf_counter()
    call(sizes[name])
    results.append([name, sizes[name], round(time.perf_counter() - start, 2), status("VmHWM:") - rss])
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
print(json.dumps(results))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_the_largest_accepted_sizes_run_within_1_gb():
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]  # a MemoryError under a case's limit fails here
    results = json.loads(done.stdout.splitlines()[-1])
    for name, size, seconds, peak in results:  # times are printed, never asserted
        print(f"{name}: size {size}, {seconds} s, resident peak +{peak / 2**20:.0f} MB")
    assert [r[0] for r in results] == list(re.findall(r'^    "([^"]+)": \(lambda', CHILD, flags=re.M))
    assert all(peak <= 1 << 30 for *_, peak in results)


@pytest.mark.parametrize(
    ("cost", "limit_at"),
    [
        (lambda d, w: _budget.stack_cost(d, w), {"depth": 24, "width": 4096}),
        (lambda d, w: _budget.mlp_cost(1, d, w, 300, 32), {"depth": 64, "width": 1024}),
        (lambda d, w: _budget.transformer_cost(1, d, w, 300, 6), {"depth": 6, "width": 1024}),
    ],
)
def test_a_refusal_names_the_largest_value_the_budget_allows(cost, limit_at):
    """The named maximum is the largest value whose cost is within both limits (checked one past it)."""
    depth, width = limit_at["depth"], limit_at["width"]
    with pytest.raises(BudgetError, match=r"^width: expected at most (\d+)") as info:
        _budget.check_size(depth, width, cost, what="a model")
    allowed = int(re.search(r"at most (\d+)", str(info.value)).group(1))
    assert _budget.within(cost(depth, allowed)) and not _budget.within(cost(depth, allowed + 1))
    message = str(info.value)
    assert "1 GB and 10 s on 2 cores" in message and f"got {width}" in message
