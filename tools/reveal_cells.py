"""Turn old-style reveal cells into `%%reveal NN.name` cells (the convention of lnlib/answers.py).

    python -m tools.reveal_cells notebooks/16-*.ipynb      # convert, and list what was done
    python -m tools.reveal_cells --check                     # only list the cells still to convert (exit 1 if any)

A `reveal`-tagged code cell that does not start with `%%reveal` gets the first line `%%reveal NN.name`, naming the
nearest `%%answer NN.name` cell above it (read the list it prints: that is the usual pairing, not a proof), and
loses its `print("核对一下：")` line, which the magic prints itself. Tag and `outputs_hidden` stay. Outputs are left
as they are: re-run the notebook (`python -m tools.run_notebooks`) afterwards.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import nbformat

from tools import course

OLD_FIRST_LINE = re.compile(r"""^print\(["']核对一下：["']\)[^\n]*\n?""")


def convert(nb: nbformat.NotebookNode) -> list[tuple[int, str]]:
    """Convert the reveal cells of `nb` in place; return (cell index, exercise name) for each one converted.
    Raises ValueError for a reveal cell with no `%%answer` cell above it."""
    done, last = [], None
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        answer = course.CHECK_CALL.match(cell.source)
        if answer:
            last = answer.group(1)
        if course.REVEAL_TAG not in cell.metadata.get("tags", []) or course.REVEAL_CALL.match(cell.source):
            continue
        if last is None:
            raise ValueError(f"cell {i}: a reveal cell with no %%answer cell above it")
        cell.source = f"{course.REVEAL_MAGIC} {last}\n" + OLD_FIRST_LINE.sub("", cell.source, count=1)
        done.append((i, last))
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: every notebook)")
    parser.add_argument("--check", action="store_true", help="only list the cells to convert")
    args = parser.parse_args(argv)
    paths = args.paths or course.notebook_paths()
    todo = 0
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        done = convert(nb)
        todo += len(done)
        for i, name in done:
            print(f"{path.name} cell {i}: {'to convert' if args.check else 'now'} %%reveal {name}")
        if done and not args.check:
            nbformat.write(nb, path)
    return 1 if args.check and todo else 0


if __name__ == "__main__":
    raise SystemExit(main())
