"""No learner-facing call waits on numba (issue 27, item 4): lnlib compiles its loops in a background thread and
meanwhile computes with numpy, with the same bits. How long the first call takes is measured in
benchmarks/bench_first_call.py, never asserted here; these tests check the mechanism with a builder that blocks."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

import lnlib
from lnlib import _fast, _train_kernels, training


@pytest.fixture
def blocked_compiler(monkeypatch):
    """The background compiler with every loop not ready and builders that wait until `release` is set."""
    release, started, calls = threading.Event(), threading.Event(), []

    def fake_kernel(x2, bits, out, g, b, eps, chunks):
        calls.append(x2.shape)
        out[...] = -7.0  # a value the numpy path never gives: shows which path ran

    def build(result):
        def run():
            started.set()
            assert release.wait(60)
            return result

        return run

    monkeypatch.setattr(_fast, "_available", True)
    monkeypatch.setattr(_fast, "_ready", {})
    monkeypatch.setattr(_fast, "_failed", set())
    monkeypatch.setattr(_fast, "_worker", None)
    monkeypatch.setattr(_fast, "_COMPILE_IN_CHILD", False)  # the fake builders below are this process's own
    monkeypatch.setattr(_train_kernels, "_KERNELS", None)
    monkeypatch.setattr(
        _fast, "_builders", {"layer_norm": build(fake_kernel), "training": build(None)}
    )  # training: None = "compiled to nothing", so its calls keep the numpy code
    yield release, started, calls
    release.set()
    wait_for_the_worker()


def wait_for_the_worker() -> None:
    worker = _fast._worker
    if worker is not None:
        worker.join(60)


def big_rows() -> np.ndarray:
    return np.random.default_rng(3).standard_normal((-(-_fast.MIN_SIZE // 96) + 1, 96)).astype(np.float32)


def test_the_first_big_call_does_not_wait_for_the_compiler(blocked_compiler, monkeypatch):
    release, started, calls = blocked_compiler
    x = big_rows()
    with monkeypatch.context() as m:
        m.setattr(_fast, "available", lambda: False)
        numpy_path = lnlib.layer_norm(x)
    first = lnlib.layer_norm(x)  # returns although the builder blocks: the numpy path, the same bits
    assert started.wait(30), "the first big call did not start the background compiler"
    assert np.array_equal(first, numpy_path) and calls == []
    assert _fast.compiled("layer_norm") is None
    assert not _fast.warm_up(wait=False)  # not ready, and asking again starts no second thread
    assert threading.active_count() < 50
    release.set()
    wait_for_the_worker()
    assert _fast._ready["layer_norm"] is not None
    assert np.all(lnlib.layer_norm(x) == -7.0) and calls == [x.shape]  # the next call takes the compiled loop


def test_a_first_training_does_not_wait_for_the_compiler(blocked_compiler):
    release, started, _ = blocked_compiler
    run = training.train_mlp("layer", depth=2, width=8, steps=3)
    assert started.wait(30) and len(run.losses) == 3 and np.all(np.isfinite(run.losses))
    assert _train_kernels.kernels() is None  # still compiling: the numpy code ran


def test_a_loop_that_fails_to_compile_stays_on_the_numpy_path(monkeypatch):
    def broken():
        raise RuntimeError("no compiler here")

    monkeypatch.setattr(_fast, "_available", True)
    monkeypatch.setattr(_fast, "_ready", {})
    monkeypatch.setattr(_fast, "_failed", set())
    monkeypatch.setattr(_fast, "_worker", None)
    monkeypatch.setattr(_fast, "_builders", {"layer_norm": broken})
    x = big_rows()
    first = lnlib.layer_norm(x)
    wait_for_the_worker()
    assert _fast._failed == {"layer_norm"} and _fast.compiled("layer_norm") is None
    assert np.array_equal(lnlib.layer_norm(x), first)
    assert _fast._worker is None  # nothing left to build: no thread started again


def test_warm_up_makes_every_registered_loop_ready_where_numba_runs():
    ready = _fast.warm_up(wait=True)
    assert ready == _fast.available()
    if ready:
        assert set(_fast._ready) == {"layer_norm", "training"}
        assert _train_kernels.kernels() is not None and _fast.compiled("layer_norm") is not None


def test_binders_postbuild_warms_the_installed_lnlib_not_the_repositorys(tmp_path):
    """Issue 41, item 1: postBuild ran `python -c` from the repository root, so it imported, compiled and checked
    ./lnlib while every kernel (started in notebooks/) imports the installed copy: the image carried no compiled
    loop for it. Here the repository is a folder with its own lnlib source and the installed copy another folder on
    the path; postBuild's Python lines, run from the repository root as repo2docker runs them, must leave both
    loops' machine code in the installed copy's cache and none in the repository's."""
    import os
    import shutil
    import subprocess
    import sys

    from tools.course import ROOT

    if not _fast.available():
        pytest.skip("numba missing or its JIT disabled here")
    post = (ROOT / "binder" / "postBuild").read_text(encoding="utf-8")
    lines = [x for x in post.splitlines() if x.startswith("python") and "import" in x and "lnlib" in x]
    assert any("warm_up" in x for x in lines), "postBuild must compile lnlib's loops (lnlib._fast.warm_up)"
    repo, site = tmp_path / "repo", tmp_path / "site"
    for dest in (repo / "lnlib", site / "lnlib"):
        shutil.copytree(ROOT / "lnlib", dest, ignore=shutil.ignore_patterns("__pycache__"))
    for cached in (ROOT / "lnlib" / "__pycache__").glob("*.nb[ic]"):  # this machine's compiled loops, if any:
        (site / "lnlib" / "__pycache__").mkdir(exist_ok=True)  # the installed copy loads them in seconds (same
        shutil.copy2(cached, site / "lnlib" / "__pycache__")  # sources, same times), the repository's has none
    (repo / "notebooks").mkdir()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "PYTHONPATH": str(site),  # the installed copy: after the working directory on a plain `python -c`'s path
        "MPLCONFIGDIR": str(tmp_path / "mpl"),
    }
    env.pop("NUMBA_DISABLE_JIT", None)
    env.pop("NUMBA_CACHE_DIR", None)
    for line in lines:
        done = subprocess.run(["bash", "-c", line], cwd=repo, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0 and done.stderr == "", (line, done.stderr[-2000:])
    installed = {p.name.split(".")[0] for p in (site / "lnlib" / "__pycache__").glob("*.nbi")}
    assert {"_stats", "_train_kernels"} <= installed, installed
    assert not list(repo.rglob("*.nbi")), "postBuild compiled the repository's copy, which no kernel imports"


# ---------------------------------------------------------------- issue 39: every reachable kind, a damaged cache


def reachable_calls():
    """Every kind of big call a learner can make on the fast path (issue 39, L2): float32 and float64 input, γ/β
    as None, float32 or a Python list (float64), writable or read-only input."""
    x32 = big_rows()
    x64 = x32.astype(np.float64)
    d = x32.shape[-1]
    for x in (x32, x64):
        frozen = x.copy()
        frozen.flags.writeable = False
        for arr in (x, frozen):
            yield arr, None
            yield arr, np.ones(d, np.float32)
            yield arr, [1.0] * d


def test_the_warm_up_compiles_every_kind_a_call_can_reach(monkeypatch):
    """After warm_up(), no call compiles: numba's dispatcher gains no signature (a new one took ~15 s on 2 cores),
    and every kind of call is answered by the compiled loop."""
    if not _fast.warm_up(wait=True):
        pytest.skip("numba missing or its JIT disabled here")
    kernel = _fast._ready["layer_norm"]
    before = list(kernel.signatures)
    assert len(before) == len(_fast._SIGNATURES)
    real, used = _fast.layer_norm_trailing, []
    monkeypatch.setattr(_fast, "layer_norm_trailing", lambda *a: used.append(real(*a) is not None) or real(*a))
    for x, gamma in reachable_calls():
        used.clear()
        lnlib.layer_norm(x, gamma, gamma)
        assert used == [True], (x.dtype, x.flags.writeable, type(gamma))
    assert list(kernel.signatures) == before


def test_a_kind_the_warm_up_did_not_compile_takes_the_numpy_path(monkeypatch):
    """Should a call ever reach a kind outside the compiled ones, it is answered by numpy, never compiled."""
    calls = []
    monkeypatch.setattr(_fast, "_ready", {"layer_norm": lambda *a: calls.append(a)})
    monkeypatch.setattr(_fast, "_KINDS", frozenset())
    x = big_rows()
    assert _fast.layer_norm_trailing(x, 1, None, None, 1e-5, np.float32) is None and calls == []


TINY_LOOP = "def double(x):\n    return 2.0 * x\n"
RUN = """
import logging, sys
if sys.argv[1] == "log":
    logging.basicConfig(stream=sys.stdout, format="%(name)s|%(message)s")
from lnlib import _fast
import tinyloop

def build():
    kernel = _fast.jit(tinyloop.double)
    kernel.compile("float64(float64)")
    return kernel

_fast._builders.clear()  # only the tiny loop: lnlib's own take tens of seconds to compile cold
_fast._COMPILE_IN_CHILD = False
_fast.register_build("tiny", build)
ready = _fast.warm_up(wait=True)
print("ready", ready, sorted(_fast._failed), _fast._ready["tiny"](1.5) if "tiny" in _fast._ready else None)
"""


def test_a_damaged_cache_file_is_discarded_and_rebuilt_and_said_once(tmp_path):
    """Issue 39, L3: garbage in a numba cache file made every later process take the numpy path for good. Now the
    loop is built again and lnlib's log says so once; without a logging setup nothing reaches stderr."""
    import os
    import subprocess
    import sys

    from tools.course import ROOT

    if not _fast.available():
        pytest.skip("numba missing or its JIT disabled here")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "tinyloop.py").write_text(TINY_LOOP)
    path = os.pathsep.join([str(ROOT), str(tmp_path / "src")])  # lnlib and the tiny loop's module
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": path}

    def run(log: str):
        command = [sys.executable, "-c", RUN, log]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        return done

    def damage() -> list:
        files = sorted((tmp_path / "cache").rglob("tinyloop.double-*.nbc"))
        for f in files:
            f.write_bytes(b"garbage\n")
        return files

    assert run("log").stdout == "ready True [] 3.0\n"  # compiled cold, cached
    assert damage(), "numba cached the loop"
    said = run("log").stdout.splitlines()
    assert said[-1] == "ready True [] 3.0", said
    assert len(said) == 2 and said[0].startswith("lnlib._fast|numba's cache of tiny could not be used"), said
    assert "tinyloop.double-" in said[0]
    assert run("log").stdout == "ready True [] 3.0\n", "rebuilt: the next process loads it, silently"
    damage()
    quiet = run("no-log")
    assert quiet.stdout == "ready True [] 3.0\n" and quiet.stderr == "", quiet.stderr
