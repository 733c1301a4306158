"""Heavy libraries load only where they are used (issue 16: the series runs in ≤ 60 s, so every notebook's kernel
must not pay for what it does not use). Checked in fresh processes by which modules end up in sys.modules, never by
a clock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numba", "scipy", "torch", "pandas", "matplotlib", "ipywidgets", "jinja2")


def loaded_after(code: str) -> set[str]:
    """The HEAVY modules loaded after running `code` in a fresh interpreter (with this checkout's lnlib)."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_DISABLE_JIT", None)
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return set(json.loads(run.stdout.strip().splitlines()[-1]))


def test_importing_lnlib_loads_none_of_the_heavy_libraries():
    assert loaded_after("import lnlib") == set()


def test_the_transformer_of_notebook_09_stays_on_the_numpy_path():
    """Small arrays (notebook 09's (4, 16, 64) stream) never import numba: its thread pool would fight OpenBLAS's."""
    code = (
        "import numpy as np, lnlib\n"
        "from lnlib import transformer\n"
        "transformer.ffn_gradient_norms('pre', 2, 64)\n"
        "transformer.residual_scales('post', 2, 64)\n"
        "lnlib.layer_norm(np.ones((4, 16, 64)) + np.arange(64))\n"
    )
    assert loaded_after(code) == set()


def test_plots_load_matplotlib_but_not_the_compiler_or_scipy():
    assert loaded_after("import lnlib.plots") & {"numba", "scipy", "torch", "ipywidgets"} == set()


def test_tables_and_plots_render_without_pandas():
    """A notebook's tables and figures need neither pandas nor jinja2 (pandas' Styler): only `.frame` imports pandas."""
    code = (
        "import lnlib\n"
        "from lnlib import groups, pitfalls, plots, tables\n"
        "tables.stage_table(lnlib.layer_norm_steps([2, 4, 6, 8])).to_html()\n"
        "repr(tables.eps_placement_table(pitfalls.eps_placement({'a': [2, 4, 6, 8]})))\n"
        "plots.to_png(plots.highlight_heatmap(groups.selection(lnlib.TOKEN_MATRIX, 'row', index=2)))\n"
    )
    assert loaded_after(code) & {"pandas", "jinja2"} == set()
