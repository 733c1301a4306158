"""tools.typecheck: mypy's findings compared with the committed baseline, line numbers dropped."""

from __future__ import annotations

from tools import typecheck


def test_findings_drop_line_numbers_and_count_repeats():
    out = (
        "lnlib/a.py:3: error: Missing annotation  [no-untyped-def]\n"
        "lnlib/a.py:9: error: Missing annotation  [no-untyped-def]\n"
        "lnlib/a.py:9: note: See https://mypy.readthedocs.io\n"
        "Found 2 errors in 1 file (checked 1 source file)\n"
    )
    assert typecheck.findings(out) == {"lnlib/a.py: Missing annotation  [no-untyped-def]": 2}


def test_the_baseline_lists_only_findings_of_existing_modules():
    lines = typecheck.BASELINE.read_text(encoding="utf-8").splitlines()
    assert lines == sorted(lines) and all((typecheck.ROOT / line.split(":")[0]).exists() for line in lines)
