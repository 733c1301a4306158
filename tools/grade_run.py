"""Run one prepared submission in a fresh kernel: `python tools/grade_run.py NOTEBOOK CELL_TIMEOUT`.

Started by `tools.grade` in the submission's own temporary folder (its working directory), with a clean environment,
as its own process group. Every cell may run CELL_TIMEOUT seconds; a cell that takes longer is interrupted and the
run goes on, a cell that raises is recorded and the run goes on. A kernel that ignores the interrupt (two cells in a
row time out) is given up: the run stops there. The grading cells write what they read into this folder, and
`_run.json` lists the cells that raised or timed out; nothing else is returned. It runs as a script (not `-m`), so
neither it nor the kernel has the repository on sys.path.
"""

from __future__ import annotations

import json
import sys

import nbformat
from nbclient import NotebookClient

TIMEOUT = {"ename": "CellTimeout", "evalue": "cell interrupted", "traceback": []}


class Wedged(Exception):
    """The kernel did not stop at an interrupt: every further cell would only wait out its time limit."""


def main(path: str, cell_timeout: str) -> int:
    nb = nbformat.read(path, as_version=4)
    timed_out: list[int] = []

    def executed(cell, cell_index, execute_reply):
        if (execute_reply or {}).get("content", {}).get("ename") == TIMEOUT["ename"]:
            timed_out.append(cell_index + 1)
            if len(timed_out) >= 2 and timed_out[-2] == cell_index:
                raise Wedged(f"cells {cell_index} and {cell_index + 1} timed out in a row")

    client = NotebookClient(
        nb,
        timeout=int(cell_timeout),
        interrupt_on_timeout=True,
        error_on_timeout=TIMEOUT,
        allow_errors=True,
        kernel_name="python3",
        startup_timeout=120,
        resources={"metadata": {"path": "."}},
        on_cell_executed=executed,
    )
    wedged = False
    try:
        client.execute()
    except Wedged:
        wedged = True
    finally:  # what went wrong in which cell, for the feedback (the cells are numbered from 1)
        problems = [
            {"cell": i, "ename": str(out.get("ename", ""))[:80], "evalue": str(out.get("evalue", ""))[:200]}
            for i, cell in enumerate(nb.cells, start=1)
            for out in cell.get("outputs", [])
            if out.get("output_type") == "error" and i not in timed_out
        ]
        problems += [{"cell": i, "ename": TIMEOUT["ename"], "evalue": ""} for i in timed_out]
        problems += [{"cell": 0, "ename": "Wedged", "evalue": ""}] if wedged else []
        with open("_run.json", "w", encoding="utf-8") as f:
            json.dump(sorted(problems, key=lambda p: p["cell"]), f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:3]))
