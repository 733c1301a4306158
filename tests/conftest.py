"""Shared fixtures and paths for the test suite."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# One fixed hypothesis profile, loaded for every run: the same examples every time (derandomize), no example
# database carried between runs, no per-example deadline (CI machines are slow and uneven). So CI is never flaky.
# For a local bug hunt: LNLIB_HYPOTHESIS_PROFILE=explore .venv/bin/python -m pytest tests/test_properties.py
settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=100,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("explore", max_examples=2000, deadline=None, database=None)
settings.load_profile(os.environ.get("LNLIB_HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = NOTEBOOKS / "solutions"
sys.path.insert(0, str(ROOT / "tools"))


def notebook_paths() -> list[Path]:
    return sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")
