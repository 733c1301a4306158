"""lnlib's line coverage by the unit suite, measured by every `make test` and published in docs/coverage.md.

    python -m tools.coverage_report DATA          # write docs/coverage.md from coverage.py's data (make coverage)
    python -m tools.coverage_report --check DATA  # print the figure; exit 1 if it fell more than DROP points
                                                  # below the published one (make test's unit suite)

Only the figure and the table are written (no date, no machine), so the page changes when the coverage does. A
change that lowers coverage on purpose (code moved out of lnlib, a test retired) publishes the new figure with
`make coverage` in the same commit.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import coverage

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "coverage.md"
SELECTION = "not browser and not english"  # the unit suite of `make test` (the Makefile's test-unit)
DROP = 1.0  # points of coverage a change may lose before --check fails (runs differ by a few hundredths)


def total(data_file: str) -> tuple[float, str]:
    """(percent of lnlib's statements run, coverage.py's per-module table with repository-relative paths)."""
    cov = coverage.Coverage(data_file=data_file)
    cov.load()
    out = io.StringIO()
    percent = cov.report(file=out, skip_empty=True)
    return percent, out.getvalue().replace(str(ROOT) + "/", "")


def published(text: str) -> float | None:
    """The figure docs/coverage.md states (**X %**), or None before the first `make coverage`."""
    found = re.search(r"\*\*([0-9.]+) %\*\*", text)
    return float(found.group(1)) if found else None


def check(measured: float, stated: float | None) -> tuple[bool, str]:
    """Whether `measured` may land against the `stated` figure, and the line make test prints."""
    if stated is None:
        return True, f"lnlib line coverage: {measured:.1f} % (none published yet: make coverage)"
    line = f"lnlib line coverage: {measured:.1f} % (published in docs/coverage.md: {stated:.1f} %)"
    if measured < stated - DROP:
        return False, line + f": more than {DROP:g} point lower; test the new code, or publish a deliberate drop"
    if measured > stated + DROP:
        line += ": higher; `make coverage` publishes it"
    return True, line


def page(data_file: str) -> str:
    percent, table = total(data_file)
    return (
        "# Test coverage of lnlib\n\n"
        f'Written by `make coverage` (`tools/coverage_report.py`): the unit suite (`pytest tests -m "{SELECTION}"`,'
        " the one `make test` runs) under coverage.py. `make test` measures it again every time and fails when it is"
        f" more than {DROP:g} point below the figure here.\nCode run only in a child Python (the numba compile, the"
        " sandboxed grader, the notebooks' kernels) and the compiled loops' bodies are not counted.\n\n"
        f"**{percent:.1f} %** of lnlib's statements ran.\n\n```\n{table}```\n"
    )


def main(argv: list[str]) -> int:
    if argv[:1] == ["--check"]:
        stated = published(PAGE.read_text(encoding="utf-8")) if PAGE.exists() else None
        ok, line = check(total(argv[1] if len(argv) > 1 else ".coverage")[0], stated)
        print(line)
        return 0 if ok else 1
    PAGE.write_text(page(argv[0] if argv else ".coverage"), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
