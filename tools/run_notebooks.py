""" "Restart & Run All" for notebooks, saving the outputs in place (what nbval later compares).

    python -m tools.run_notebooks                    # every notebook of the plan that exists, both editions
    python -m tools.run_notebooks notebooks/03-*.ipynb notebooks/en/03-*.ipynb
Each notebook runs in a fresh kernel started in its own folder (notebooks/ or notebooks/en/, as Jupyter and nbval
start it); the run fails loudly on any error. The kernel gets
`LNLIB_REVEAL=all`, so every `%%reveal` cell stores its content (the maintainer's view, which nbval, the site and
the PDF show), whatever this machine's progress file holds.
`execute` is the one way the tools, the tests and the benchmark run a notebook.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tools import course
from tools.outputs import coalesce_notebook

REVEAL_ENV = "LNLIB_REVEAL"  # lnlib.answers.REVEAL_ENV (this runner imports no lnlib: the kernels do)


def execute(
    nb: nbformat.NotebookNode, cwd: Path = course.NOTEBOOKS, timeout: int = 600, *, reveals_open: bool = True
) -> None:
    """Run every cell of `nb` in place, in a fresh "python3" kernel started in `cwd`.

    `reveals_open` (default): every `%%reveal` cell shows its content (LNLIB_REVEAL=all); False runs it as a
    learner's kernel does, each reveal closed until its exercise is tried.

    The event loop is private to the call (asyncio.run), so this works from any thread and leaves no loop behind.
    The timeouts are generous bounds, not assertions: a loaded machine may start kernels slowly. Stream outputs are
    coalesced (tools.outputs), so what is stored and read never depends on how the kernel flushed a print under load.
    """
    client = NotebookClient(
        nb,
        # the kernel's own log (not the cells' output) only at ERROR: on 127.0.0.1 it would print a warning
        # about unencrypted TCP on every start, which is noise for a local run
        extra_arguments=["--IPKernelApp.log_level=ERROR"],
        timeout=timeout,
        startup_timeout=300,
        kernel_name="python3",
        record_timing=False,
        # the run is over: stop the kernel at once, as nbval does. A graceful shutdown costs 0.2 s, and about one
        # in six waited 3 s more here for the kernel process to exit
        shutdown_kernel="immediate",
        resources={"metadata": {"path": str(cwd)}},
    )
    env = {k: v for k, v in os.environ.items() if k != REVEAL_ENV}
    if reveals_open:
        env[REVEAL_ENV] = "all"
    asyncio.run(client.async_execute(env=env))
    coalesce_notebook(nb)


def run(path: Path) -> float:
    """Execute the notebook at `path` and save it with its new outputs; return the seconds it took."""
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    execute(nb, path.resolve().parent)
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks to run (default: every notebook)")
    args = parser.parse_args(argv)
    try:
        paths = args.paths or [
            path for folder in course.EDITION_FOLDERS.values() for _, path in course.planned_notebooks(folder=folder)
        ]
    except ValueError as exc:  # a notebook missing from the plan
        parser.error(str(exc))
    for path in paths:
        print(f"{path.name}: {run(path):.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
