"""How long does the whole course take to run? Executes every notebook in a fresh kernel and prints the times.

    .venv/bin/python -m benchmarks.bench_notebooks                # every notebook of the plan
    .venv/bin/python -m benchmarks.bench_notebooks notebooks/13-*.ipynb

The notebooks are executed in memory: the files, and their stored outputs, are left untouched. The goal for
the whole series is under 60 s on a 2-core machine (the kernel start-up of each notebook is included).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat

from tools import course
from tools.run_notebooks import execute

TARGET_SECONDS = 60.0


def run(path: Path) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    execute(nb, course.NOTEBOOKS)
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks to run (default: every notebook of the plan)")
    paths = parser.parse_args(argv).paths or [path for _, path in course.planned_notebooks()]
    total = 0.0
    for path in paths:
        seconds = run(path)
        total += seconds
        print(f"{path.name:<45} {seconds:6.1f} s", flush=True)
    verdict = "within" if total <= TARGET_SECONDS else "OVER"
    label = f"total ({len(paths)} notebooks)"
    print(f"{label:<45} {total:6.1f} s  ({verdict} the {TARGET_SECONDS:.0f} s target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
