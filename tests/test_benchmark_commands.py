"""The README's benchmark commands work as written: each benchmark is listed there as `python -m benchmarks.X`
(run from the repository root, so that its imports of `tools`, `tests` and `lnlib` resolve) and answers --help."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = sorted(p.stem for p in (ROOT / "benchmarks").glob("bench_*.py"))
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_benchmark_is_in_the_readme_as_a_module():
    listed = re.findall(r"^\.venv/bin/python -m benchmarks\.(\w+)", README, flags=re.MULTILINE)
    assert sorted(set(listed)) == BENCHMARKS
    assert not re.search(r"python3? benchmarks/", README), "a benchmark run as a script cannot import tools/tests"


@pytest.mark.parametrize("name", BENCHMARKS)
def test_a_benchmark_answers_help(name):
    done = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{name}", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage:"), done.stdout[:500]
