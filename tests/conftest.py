"""Shared fixtures for the test suite. Paths and notebook discovery come from tools/course.py; shared helper
functions live in tests/helpers.py. The repository root is on sys.path (pyproject: pythonpath), so `tools` imports."""

from __future__ import annotations

import os
import tempfile

import matplotlib.pyplot as plt
import pytest
from hypothesis import HealthCheck, settings

from tools.course import NOTEBOOKS, ROOT, SOLUTIONS, notebook_paths  # noqa: F401 - re-exported for the test files

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

# lnlib.check records the exercises answered right in the user's data folder: the suite (and every kernel or
# JupyterLab it starts, which inherit the environment) writes to a fresh temporary folder, never to the real home.
os.environ["LNLIB_PROGRESS_DIR"] = tempfile.mkdtemp(prefix="lnlib-progress-")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(autouse=True)
def _fresh_tries():
    """Every test starts with no wrong tries recorded, so the escalating hints of lnlib.check never depend on the
    order the tests run in."""
    from lnlib import _record

    _record.forget_tries()


@pytest.fixture(scope="session")
def compiled_loops_ready():
    """lnlib compiles its numba loops in a background thread and meanwhile takes the numpy path (the same bits);
    the test files that compare the two paths ask for this (`pytestmark`), so a session that runs one waits for
    the loops once, and any other session starts at once."""
    from lnlib import _fast, training  # noqa: F401  (importing lnlib.training registers its loops)

    _fast.warm_up(wait=True)
    yield


@pytest.fixture(scope="session")
def playwright_driver():
    """The one Playwright of a test session. Its sync API runs an event loop of its own while it is started, so a
    second one started beside it (another module's browser) fails with "Sync API inside the asyncio loop": every
    browser test launches its Chromium from this one."""
    sync_api = pytest.importorskip("playwright.sync_api")
    driver = sync_api.sync_playwright().start()
    yield driver
    driver.stop()
