"""Every figure stored in an English notebook says its alt text is English (issue 44): the output metadata's
{"alt_lang": "en"}, which the course's JupyterLab extension turns into lang="en" (a screen reader picks its voice by
it). Outputs stored by a run before lnlib wrote the key show English alt texts marked zh-Hans as soon as the
notebook is opened; the browser suite sees it only for the English notebooks it opens, this test for all of them.
"""

from __future__ import annotations

import nbformat
import pytest

from tools import course

ENGLISH = course.notebook_paths(course.EDITION_FOLDERS["en"])


def untagged_figures(nb: nbformat.NotebookNode) -> list[str]:
    """Where a stored figure with an alt text lacks alt_lang "en": "cell i"."""
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            meta = out.get("metadata", {}).get("image/png")
            if "image/png" in out.get("data", {}) and isinstance(meta, dict) and meta.get("alt"):
                if meta.get("alt_lang") != "en":
                    found.append(f"cell {i}: alt_lang {meta.get('alt_lang')!r}")
    return found


def test_the_check_finds_a_figure_stored_without_the_key():
    cell = nbformat.v4.new_code_cell("plots.stage_bars(steps)")
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={"image/png": "iVBO"}, metadata={"image/png": {"alt": "3 bars"}})
    ]
    assert untagged_figures(nbformat.v4.new_notebook(cells=[cell])) == ["cell 0: alt_lang None"]


@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: p.stem)
def test_every_stored_english_figure_says_its_alt_text_is_english(path):
    found = untagged_figures(nbformat.read(path, as_version=4))
    assert not found, f"{path.name} (re-run it: python -m tools.run_notebooks):\n  " + "\n  ".join(found)
