""""Restart & Run All" for notebooks, saving the outputs in place (what nbval later compares).

    python tools/run_notebooks.py                    # every notebook in notebooks/
    python tools/run_notebooks.py notebooks/03-*.ipynb
Each notebook runs in a fresh kernel from the notebooks/ folder; the run fails loudly on any error.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def run(path: Path, timeout: int = 300) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
    for path in paths:
        print(f"{path.name}: {run(path):.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
