"""A learner's copy, today and the day after (issue 40): one pass per notebook in one JupyterLab.

The student copy of every notebook (answer cells empty, reveal outputs cleared: `tools.make_student`) is opened and
Run All runs as a learner who answered nothing: every cell runs, no error or stderr output, every widget and figure
rendered, no console error, nothing leaving 127.0.0.1 (the checks of the maintainer's copy in
test_browser_notebooks.py). Then the learner saves it, closes it and opens it again the next day. The saved outputs
name the widget models of a kernel that is gone (JupyterLab does not save the widgets' state by default: the
notebook keeps the state stored before, of other models), so ipywidgets' renderer would write "Error displaying
widget: model not found" in place of every explorer. The course's JupyterLab extension shows the explorer's notice
there instead (lnlib's HTML form of the output, `fallback_html`): each explorer cell must show it, and nothing
of JupyterLab's English error may be anywhere on the page (notebook 15's progress bars too). A notebook without
widget outputs after Run All is not reopened: nothing in it depends on the kernel's models. Screenshots in
build/browser/reopened-*.png. One English notebook too (issue 44): its notices must be English.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from lnlib.explorers.base import FALLBACK_CLASS
from tools import make_student
from tools.course import NOTEBOOKS

from . import page_js as js
from .conftest import (
    ALT_LANGS,
    ARTIFACTS,
    KERNEL_TIMEOUT_MS,
    SETTLE_TIMEOUT_MS,
    STEP_TIMEOUT_MS,
    WIDGET_MIME,
    edition_of,
    explorers_in,
    file_label,
    notebook_stems,
)
from .test_browser_notebooks import NOTICES, shoot_element

pytestmark = pytest.mark.browser

MISSING = "model not found"

SAVE = """async () => { await window.__lnNb.context.save(); return !window.__lnNb.context.model.dirty; }"""

# Per explorer cell: the text of its output area (its style sheets left out) and whether the fallback is shown.
REOPENED = """([cells, fallback]) => {
  const w = window.__lnNb, out = {};
  for (const i of cells) {
    const cell = w.content.widgets[i];
    const area = cell && cell.node.querySelector('.jp-OutputArea');
    if (!area) { out[i] = null; continue; }
    const copy = area.cloneNode(true);
    copy.querySelectorAll('style').forEach(s => s.remove());
    out[i] = {text: copy.textContent.slice(0, 400), fallback: !!area.querySelector('.' + fallback),
              explorer: !!area.querySelector('.ln-explorer')};
  }
  return out;
}"""

SHOWN = """([cells, fallback]) => cells.every(i => {
  const c = window.__lnNb.content.widgets[i];
  return !!c && !!c.node.querySelector('.jp-OutputArea .' + fallback);
})"""


def _open(lab, name: str) -> None:
    lab.page.evaluate(js.OPEN, name)
    lab.page.wait_for_function(js.KERNEL_IDLE, timeout=KERNEL_TIMEOUT_MS)
    lab.server.remember_children()  # the kernel, so teardown reaches it whatever happens


def _widget_cells(saved: dict) -> dict[int, list[str]]:
    """Cell index -> the model ids of its saved widget outputs (explorers, progress bars)."""
    found = {}
    for i, cell in enumerate(saved["cells"]):
        ids = [o["data"][WIDGET_MIME]["model_id"] for o in cell.get("outputs", []) if WIDGET_MIME in o.get("data", {})]
        if ids:
            found[i] = ids
    return found


# the English edition's first notebook with an explorer (each one adds a Run All and a reopening, about 30 s)
ENGLISH = ["en/03-one-row-by-hand"]


@pytest.mark.parametrize("stem", notebook_stems() + ENGLISH, ids=file_label)
def test_student_copy_runs_clean_and_reopens_with_its_notices(lab, stem):
    notice = NOTICES[edition_of(stem)]
    found = explorers_in(stem)
    cells = [cell for _, cell in found]
    nb = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    make_student.studentize(nb)
    copy = f"{stem}-student.ipynb"
    nbformat.write(nb, lab.server.root / copy)  # the server's copy, never the repository
    (Path(lab.server.env["LNLIB_PROGRESS_DIR"]) / "progress.json").unlink(missing_ok=True)
    page = lab.page
    ext0, con0 = lab.mark()
    try:
        # today: Run All, nothing answered
        _open(lab, copy)
        assert page.evaluate(js.RUN_ALL)["ok"], "Run All stopped"
        page.wait_for_function(js.SETTLED, timeout=SETTLE_TIMEOUT_MS, polling=100)
        problems = page.evaluate(js.PROBLEMS, ALT_LANGS[edition_of(stem)])["problems"]
        problems += [f"external request blocked: {u}" for u in lab.external[ext0:]] + lab.console[con0:]
        lab.report.notebooks[f"{stem}-student-run-all"] = {"problems": problems}
        assert not problems, f"{stem} (student copy):\n  " + "\n  ".join(problems)
        assert page.evaluate(SAVE), "the notebook was not saved"
        page.evaluate(js.CLOSE)

        saved = json.loads((lab.server.root / copy).read_text(encoding="utf-8"))
        widgets = _widget_cells(saved)
        views = [v for i in cells for v in widgets.get(i, [])]
        assert len(views) == len(cells), f"{stem}: saved explorer outputs {views}"
        if not widgets:
            return  # no widget output: nothing to miss the day after
        state = saved["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
        assert not set(views) & set(state.get("state", {})), "the saved state holds the new models: nothing to test"

        # the day after: opened again, the kernel's models gone
        _open(lab, copy)
        original = page.viewport_size
        page.set_viewport_size({"width": original["width"], "height": 16_000})  # every cell laid out
        try:
            try:  # every widget output (explorers, progress bars) drawn as its fallback, or what is drawn instead
                page.wait_for_function(SHOWN, arg=[list(widgets), FALLBACK_CLASS], timeout=STEP_TIMEOUT_MS, polling=100)
            except Exception:  # noqa: BLE001 - the assertions below say what is shown instead
                pass
            if cells:
                shown = page.evaluate(REOPENED, [cells, FALLBACK_CLASS])
                shoot_element(
                    page,
                    page.locator(".jp-Notebook .jp-Cell").nth(cells[0]),
                    ARTIFACTS / f"reopened-{file_label(stem)}.png",
                )
            else:
                shown = {}
            anywhere = page.evaluate("() => window.__lnNb.content.node.textContent.includes('Error displaying')")
        finally:
            page.set_viewport_size(original)
        lab.report.notebooks[f"{stem}-reopened"] = shown
        failures = []
        for name, cell in found:
            s = shown.get(str(cell))
            if not s or not s["fallback"] or notice not in s["text"] or MISSING in s["text"] or s["explorer"]:
                failures.append(f"{name} (cell {cell}): {s}")
        assert not failures, f"{stem} opened again:\n  " + "\n  ".join(failures)
        assert not anywhere, f"{stem} opened again: JupyterLab's 'Error displaying widget' is on the page"
        assert not lab.external[ext0:]
    finally:
        page.evaluate(js.CLOSE)
