"""tools.soak (issue 31): it repeats a command under load and names every test that failed in any of the runs."""

from __future__ import annotations

import subprocess
import sys

from tools import soak as soak_tool
from tools.course import ROOT

# A test file that fails in the first run only (a counter file next to it), as a flaky test would.
FLAKY = """
from pathlib import Path

COUNTER = Path(__file__).with_name("count")


def test_steady():
    assert True


def test_flaky():
    n = int(COUNTER.read_text()) if COUNTER.exists() else 0
    COUNTER.write_text(str(n + 1))
    assert n > 0, "fails the first time only"
"""


def soak(tmp_path, runs: int, *pytest_args: str):
    (tmp_path / "test_flaky_case.py").write_text(FLAKY, encoding="utf-8")
    # --rootdir: node ids relative to tmp_path wherever the checkout lies (a clone under /tmp would otherwise make
    # the repository's pyproject.toml and tmp_path share /tmp as rootdir, and node ids carry tmp_path's name)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rootdir={tmp_path}", *pytest_args]
    return subprocess.run(
        [sys.executable, "-m", "tools.soak", "--runs", str(runs), "--load", "0", "--out", str(tmp_path / "soak"), "--"]
        + command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_test_that_failed_once_is_named_with_its_run(tmp_path):
    proc = soak(tmp_path, 2, str(tmp_path / "test_flaky_case.py"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "tests that failed in at least one of 2 runs:" in lines
    assert [line.strip() for line in lines if line.startswith("  ")] == ["test_flaky_case.py::test_flaky: run 1"]
    assert any(line.startswith("run 1: exit 1") and "1 passed, 1 failed" in line for line in lines)
    assert any(line.startswith("run 2: exit 0") and "2 passed, 0 failed" in line for line in lines)


def test_steady_runs_report_no_flaky_test(tmp_path):
    proc = soak(tmp_path, 1, f"{tmp_path / 'test_flaky_case.py'}::test_steady")  # a node id, not -k (tmp_path's name)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "no test failed in 1 run"


def test_the_load_runs_until_stopped_and_only_its_processes_are_stopped():
    busy = soak_tool.start_load(2)
    try:
        assert [p.poll() for p in busy] == [None, None]  # running
    finally:
        soak_tool.stop_load(busy)
    assert all(p.returncode is not None for p in busy)


def test_the_load_ends_when_the_soak_is_killed(tmp_path):
    """A soak killed from outside (SIGKILL: no cleanup runs) leaves no busy process behind: each ends by itself."""
    import signal
    import time

    pids = tmp_path / "pids"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import sys, time\nfrom tools import soak\nbusy = soak.start_load(2)\n"
            f"open({str(pids)!r}, 'w').write(' '.join(str(p.pid) for p in busy))\ntime.sleep(600)",
        ],
        cwd=ROOT,
    )
    try:
        for _ in range(300):
            if pids.exists() and pids.read_text().strip():
                break
            time.sleep(0.1)
        busy = [int(p) for p in pids.read_text().split()]
        parent.send_signal(signal.SIGKILL)
        parent.wait(30)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(_alive(p) for p in busy):
            time.sleep(0.2)
        assert not any(_alive(p) for p in busy), "busy processes outlived their soak"
    finally:
        if parent.poll() is None:
            parent.kill()


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (ended, not yet reaped by init) counts as ended
        return "zombie" not in open(f"/proc/{pid}/status").read().lower()
    except OSError:
        return True
