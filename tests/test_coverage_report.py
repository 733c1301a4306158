"""tools/coverage_report.py: the figure make test prints and the drop that fails it."""

from __future__ import annotations

from tools import coverage_report as C


def test_the_published_figure_is_read_from_the_page():
    assert C.published("# Test coverage\n\n**87.4 %** of lnlib's statements ran.\n") == 87.4
    assert C.published("Not measured in this checkout yet: `make coverage` …") is None


def test_a_drop_of_more_than_a_point_fails_and_says_what_to_do():
    ok, line = C.check(85.9, 87.0)
    assert not ok and "85.9 %" in line and "87.0 %" in line and "publish" in line
    assert C.check(86.1, 87.0)[0]  # within a point: runs differ by a few hundredths
    ok, line = C.check(89.0, 87.0)
    assert ok and "make coverage" in line  # a rise passes and says how to publish it
    assert C.check(50.0, None)[0]  # before the first `make coverage` nothing to compare with


def test_the_page_states_a_figure_make_test_can_check():
    """docs/coverage.md is the published page: it states one figure, for the unit suite make test runs."""
    text = C.PAGE.read_text(encoding="utf-8")
    assert C.published(text) is not None, "run `make coverage` to publish lnlib's coverage"
    assert C.SELECTION in text
