"""Publish lnlib's line coverage: `python -m tools.coverage_report DATA` (`make coverage` runs the unit suite under
coverage.py first) writes docs/coverage.md: the share of lnlib's statements the unit suite ran, per module.

Only the figure and the table are written (no date, no machine), so the page changes when the coverage does.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import coverage

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "coverage.md"


def page(data_file: str) -> str:
    cov = coverage.Coverage(data_file=data_file)
    cov.load()
    out = io.StringIO()
    total = cov.report(file=out, skip_empty=True)
    table = out.getvalue().replace(str(ROOT) + "/", "")
    return (
        "# Test coverage of lnlib\n\n"
        'Written by `make coverage` (`tools/coverage_report.py`): the unit suite (`pytest tests -m "not browser"`)'
        " run under coverage.py.\nCode run only in a child Python (the numba compile, the sandboxed grader) and the"
        " compiled loops' bodies are not counted.\n\n"
        f"**{total:.1f} %** of lnlib's statements ran.\n\n```\n{table}```\n"
    )


def main(argv: list[str]) -> int:
    PAGE.write_text(page(argv[0] if argv else ".coverage"), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
