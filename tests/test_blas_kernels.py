"""tools/blas.py (which OpenBLAS kernel numpy runs on), tools/kernel_matrix.py's page, train_tiny_lm's check."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from lnlib import tiny_lm, training_map
from tools import blas, kernel_matrix, train_tiny_lm
from tools.course import ROOT


def test_the_generic_kernel_is_what_openblas_calls_katmai():
    """OPENBLAS_CORETYPE=Prescott selects OpenBLAS's generic x86-64 kernel, which it reports as Katmai."""
    if blas.corename() == "unknown":
        pytest.skip("numpy's BLAS here is not OpenBLAS")
    assert blas.corename_with("Prescott") == "Katmai"
    assert blas.runs_on("Prescott")


def test_the_second_pass_of_make_test_runs_another_kernel():
    assert blas.other() != next((k for k, v in blas.KERNELS.items() if v == blas.corename()), blas.corename())
    code = "from tools.blas import other; print(other())"
    env = {**os.environ, blas.ENV: "Prescott"}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "Haswell"  # on the generic kernel, the second pass takes another one


def test_the_kernel_page_is_written_by_its_tool_and_agrees_with_the_stored_files():
    text = kernel_matrix.PAGE.read_text(encoding="utf-8")
    assert "Written by `python -m tools.kernel_matrix`" in text
    rows = re.findall(r"^\| (\w+) \| (numba|no JIT) \| (.+?) \| \d+ s \|$", text, flags=re.M)
    kernels = {k for k, _, _ in rows}
    assert len(kernels) >= 2 and {jit for _, jit, _ in rows} == {"numba", "no JIT"}
    assert all(re.search(r"\d+ passed", result) and "failed" not in result for _, _, result in rows), rows
    stored = training_map.read_by_kernel(training_map.PATH.read_text(encoding="utf-8"))[0]
    assert f"were\ntrained on the kernels {', '.join(stored)}" in text  # the page is newer than the stored map
    assert blas.GENERIC in kernels  # every x86-64 CPU runs it


def test_the_tiny_lm_check_compares_quality_everywhere_and_the_digest_where_expected(capsys):
    shipped = tiny_lm.load()
    assert train_tiny_lm.check(shipped.params, tiny_lm.DIGEST_KERNEL)  # the shipped weights, their own kernel
    assert "digest matches" in capsys.readouterr().out
    nudged = {k: v * (1 + 1e-9) for k, v in shipped.params.items()}  # the same model, other bits
    assert not train_tiny_lm.check(nudged, tiny_lm.DIGEST_KERNEL)  # on the digest's kernel the bits must match
    assert train_tiny_lm.check(nudged, "Katmai")  # elsewhere only the quality counts
    assert "digest not compared" in capsys.readouterr().out
    rng = np.random.default_rng(0)
    worse = {k: v + rng.normal(0, 0.3, v.shape) for k, v in shipped.params.items()}  # a much worse model
    assert not train_tiny_lm.check(worse, "Katmai")
