"""Explorers the day after (issue 40): a learner runs a notebook, saves it, closes it and opens it again the next day.

The saved outputs name the widget models of a kernel that is gone (JupyterLab does not save the widgets' state
by default: the notebook keeps the state stored before, of other models), so ipywidgets' renderer writes "Error
displaying widget: model not found" in place of every explorer. The course's JupyterLab extension shows the
explorer's Chinese notice there instead (lnlib's HTML form of the output, `fallback_html`). For every notebook
with an explorer: a copy is opened, Run All, saved, closed and opened again; each explorer cell must show the
notice and nothing of JupyterLab's English error. Screenshots in build/browser/reopened-*.png.
"""

from __future__ import annotations

import json
import shutil

import pytest

from lnlib.explorers.base import FALLBACK_CLASS
from tools.course import NOTEBOOKS

from . import page_js as js
from .conftest import (
    ARTIFACTS,
    KERNEL_TIMEOUT_MS,
    SETTLE_TIMEOUT_MS,
    STEP_TIMEOUT_MS,
    WIDGET_MIME,
    explorers_in,
    notebook_stems,
)
from .test_browser_notebooks import NOTICE, shoot_element

pytestmark = pytest.mark.browser

MISSING = "model not found"
STEMS = [stem for stem in notebook_stems() if explorers_in(stem)]

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


@pytest.mark.parametrize("stem", STEMS)
def test_explorers_say_what_to_run_in_a_notebook_saved_and_opened_again(lab, stem):
    found = explorers_in(stem)
    cells = [cell for _, cell in found]
    copy = f"{stem}-reopened.ipynb"
    shutil.copyfile(NOTEBOOKS / f"{stem}.ipynb", lab.server.root / copy)  # the server's copy, never the repository
    page = lab.page
    ext0 = len(lab.external)
    try:
        page.evaluate(js.OPEN, copy)
        page.wait_for_function(js.KERNEL_IDLE, timeout=KERNEL_TIMEOUT_MS)
        lab.server.remember_children()
        assert page.evaluate(js.RUN_ALL)["ok"], "Run All stopped"
        page.wait_for_function(js.SETTLED, timeout=SETTLE_TIMEOUT_MS, polling=100)
        assert page.evaluate(SAVE), "the notebook was not saved"
        page.evaluate(js.CLOSE)

        saved = json.loads((lab.server.root / copy).read_text(encoding="utf-8"))
        state = saved["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
        known = set(state.get("state", {}))
        views = [
            o["data"][WIDGET_MIME]["model_id"]
            for i in cells
            for o in saved["cells"][i].get("outputs", [])
            if WIDGET_MIME in o.get("data", {})
        ]
        assert len(views) == len(cells), f"{stem}: saved explorer outputs {views}"
        assert not set(views) & known, "the saved state holds the new models: nothing is missing to test"

        page.evaluate(js.OPEN, copy)
        page.wait_for_function(js.KERNEL_IDLE, timeout=KERNEL_TIMEOUT_MS)
        lab.server.remember_children()
        original = page.viewport_size
        page.set_viewport_size({"width": original["width"], "height": 16_000})  # every cell laid out
        try:
            try:
                page.wait_for_function(SHOWN, arg=[cells, FALLBACK_CLASS], timeout=STEP_TIMEOUT_MS, polling=100)
            except Exception:  # noqa: BLE001 - the assertion below says what is shown instead
                pass
            shown = page.evaluate(REOPENED, [cells, FALLBACK_CLASS])
            # anywhere in the notebook (notebook 15's progress bars too: their models are gone as well)
            anywhere = page.evaluate("() => window.__lnNb.content.node.textContent.includes('Error displaying')")
            shoot_element(
                page,
                page.locator(".jp-Notebook .jp-Cell").nth(cells[0]),
                ARTIFACTS / f"reopened-{stem}.png",
            )
        finally:
            page.set_viewport_size(original)
        lab.report.notebooks[f"{stem}-reopened"] = shown
        failures = []
        for name, cell in found:
            s = shown.get(str(cell))
            if not s or not s["fallback"] or NOTICE not in s["text"] or MISSING in s["text"] or s["explorer"]:
                failures.append(f"{name} (cell {cell}): {s}")
        assert not failures, f"{stem} opened again:\n  " + "\n  ".join(failures)
        assert not anywhere, f"{stem} opened again: JupyterLab's 'Error displaying widget' is on the page"
        assert not lab.external[ext0:]
    finally:
        page.evaluate(js.CLOSE)
