"""The learner's path in JupyterLab + Chromium (issue 32 items 1, 2): a notebook opens with every reveal folded,
a slip in every answer cell still lets Run All reach the end, and in a student copy Run All opens no reveal: each
`%%reveal` cell asks for the answer first, and shows its content once that predict cell was answered.

Notebook 03 is opened as stored: each `reveal` cell's output area is collapsed (JupyterLab reads
metadata.jupyter.outputs_hidden) and its answer is not on screen, each reveal <details> is closed. Then a Chinese
comma, a space-separated list or an unquoted word goes into every answer cell, Run All runs, and every cell runs
without an error while the answer cells answer in Chinese. Screenshots in build/browser/learner-path-*.jpg.
The student copy of every notebook, Run All and reopened: test_student_copy_browser.py.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tools import make_student
from tools.course import NOTEBOOKS

from . import page_js as js
from .conftest import ALT_LANGS, ARTIFACTS, KERNEL_TIMEOUT_MS, SETTLE_TIMEOUT_MS, STEP_TIMEOUT_MS, screenshot

pytestmark = pytest.mark.browser

STEM = "03-one-row-by-hand"

# What the learner sees of the reveals: folded output areas, closed <details>, and the visible text.
FOLDED = """() => {
  const w = window.__lnNb;
  const reveal = [], hidden = [];
  w.content.widgets.forEach((cell, i) => {
    const tags = cell.model.getMetadata('tags') || [];
    if (tags.includes('reveal')) reveal.push(i);
    if (cell.model.type === 'code' && cell.outputHidden) hidden.push(i);
  });
  const node = w.content.node;
  const details = [...node.querySelectorAll('.jp-MarkdownOutput details')];
  // the visible output areas and the one-line preview JupyterLab shows in a folded output's placeholder
  const shown = [...node.querySelectorAll('.jp-OutputArea, .jp-OutputPlaceholder')]
                  .filter(a => a.offsetParent !== null).map(a => a.innerText).join('\\n');
  return {reveal, hidden, details: details.length, open: details.filter(d => d.open).length,
          placeholders: node.querySelectorAll('.jp-OutputPlaceholder').length, shown};
}"""

# Put `text` below the first line of every %%answer cell (the learner's typing).
TYPE_ANSWERS = """(texts) => {
  const w = window.__lnNb;
  let n = 0;
  w.content.widgets.forEach((cell) => {
    const src = cell.model.sharedModel.getSource();
    if (cell.model.type === 'code' && src.startsWith('%%answer ')) {
      cell.model.sharedModel.setSource(src + '\\n' + texts[n % texts.length]);
      n += 1;
    }
  });
  return n;
}"""

ANSWER_OUTPUTS = """() => window.__lnNb.content.widgets
  .filter(c => c.model.type === 'code' && c.model.sharedModel.getSource().startsWith('%%answer '))
  .map(c => { const o = []; for (let i = 0; i < c.model.outputs.length; i++) o.push(c.model.outputs.get(i).toJSON());
              return o.map(x => x.text || '').join(''); })"""

SLIPS = ["-3，-1，1，3", "-3 -1 1 3", "五", "[-3, -1, 1, 3"]


def test_reveals_open_folded_and_slips_never_stop_run_all(lab):
    page = lab.page
    ext0, con0 = lab.mark()
    try:
        page.evaluate(js.OPEN, f"{STEM}.ipynb")
        page.wait_for_function(js.KERNEL_IDLE, timeout=KERNEL_TIMEOUT_MS)
        lab.server.remember_children()
        state = page.evaluate(FOLDED)
        page.evaluate(js.SCROLL_TOP)
        screenshot(page, ARTIFACTS / "learner-path-opened.jpg", 4000)
        assert len(state["reveal"]) >= 5 and state["hidden"] == state["reveal"], state
        assert state["placeholders"] >= len(state["reveal"]), "a folded output shows JupyterLab's placeholder"
        assert state["details"] >= 5 and state["open"] == 0, "every reveal <details> starts closed"
        for answer in ("μ = 5.0", "σ² = 5.0", "σ = 2.236", "x̂ = ["):
            assert answer not in state["shown"], f"{answer!r} is on screen before the learner answers"
        assert "核对一下" in state["shown"], "the folded preview is the neutral first line"

        assert page.evaluate(TYPE_ANSWERS, SLIPS) == 8
        run = page.evaluate(js.RUN_ALL)
        assert run["ok"], "Run All stopped"
        page.wait_for_function(js.SETTLED, timeout=SETTLE_TIMEOUT_MS, polling=100)
        problems = page.evaluate(js.PROBLEMS, ALT_LANGS["zh"])["problems"]
        assert not problems, problems
        outputs = page.evaluate(ANSWER_OUTPUTS)
        assert len(outputs) == 8 and all(o.startswith(("✓", "✗")) for o in outputs), outputs
        assert any("没读懂" in o for o in outputs) and not any("Error" in o for o in outputs), outputs
        after = page.evaluate(FOLDED)
        lab.report.notebooks["learner-path"] = {"folded_after_run_all": after["hidden"], "reveal": after["reveal"]}
        screenshot(page, ARTIFACTS / "learner-path-after-run-all.jpg", 4000)
        assert not lab.external[ext0:] and not lab.console[con0:]
    finally:
        page.evaluate(js.CLOSE)


# Every %%reveal cell: its index, the exercise it names, what its outputs say and what of them is on screen.
REVEALS = """() => {
  const w = window.__lnNb;
  const found = [];
  w.content.widgets.forEach((cell, i) => {
    const src = cell.model.sharedModel.getSource();
    if (cell.model.type !== 'code' || !src.startsWith('%%reveal ')) return;
    const texts = [];
    for (let j = 0; j < cell.model.outputs.length; j++) {
      const o = cell.model.outputs.get(j).toJSON();
      texts.push(o.text || (o.data && o.data['text/plain']) || '');
    }
    const area = cell.node.querySelector('.jp-OutputArea');
    found.push({index: i, name: src.split('\\n')[0].slice(9).trim(), text: texts.join(''),
                shown: area && area.offsetParent !== null ? area.innerText : ''});
  });
  return found;
}"""

# Write `text` below the first line of the answer cell of `name`, then run it; return its index.
ANSWER_AND_RUN = """async ([name, text]) => {
  const app = window.jupyterapp, w = window.__lnNb;
  const i = w.content.widgets.findIndex(c => c.model.sharedModel.getSource().startsWith('%%answer ' + name));
  const cell = w.content.widgets[i];
  cell.model.sharedModel.setSource('%%answer ' + name + '\\n' + text);
  w.content.activeCellIndex = i;
  await app.commands.execute('notebook:run-cell');
  return i;
}"""

RUN_CELL = """async (i) => {
  const app = window.jupyterapp, w = window.__lnNb;
  w.content.activeCellIndex = i;
  await app.commands.execute('notebook:run-cell');
  w.content.widgets[i].node.scrollIntoView();  // innerText is empty for a cell out of view
  return true;
}"""

CELL_DONE = """(i) => {
  const w = window.__lnNb, cell = w.content.widgets[i];
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  return !!(k && k.status === 'idle' && cell.model.outputs.length > 0);
}"""

# What each reveal of 03 shows when open: none of it may be on screen before its predict cell is answered.
ANSWERS_03 = ("μ = 5.0", "x − μ =", "σ² = 5.0", "σ = 2.236", "x̂ = [")
NOTICE = "先回答上面的 %%answer "


def test_run_all_on_a_student_copy_opens_no_reveal_until_answered(lab):
    """The student copy of 03 (reveal outputs cleared, answer cells empty), Run All: every reveal cell says to
    answer first, and no answer is on screen. Then a wrong answer to 03.mean_apple, its reveal run again: μ = 5.0
    is on screen, and the next reveal (03.centered_apple) is still closed."""
    nb = nbformat.read(NOTEBOOKS / f"{STEM}.ipynb", as_version=4)
    make_student.studentize(nb)
    copy = f"{STEM}-student.ipynb"
    nbformat.write(nb, lab.server.root / copy)  # the server's own copy of notebooks/, never the repository
    # a learner who never answered: no right answer kept from the tests before (the slips above answer some right)
    (Path(lab.server.env["LNLIB_PROGRESS_DIR"]) / "progress.json").unlink(missing_ok=True)
    page = lab.page
    ext0, con0 = lab.mark()
    try:
        page.evaluate(js.OPEN, copy)
        page.wait_for_function(js.KERNEL_IDLE, timeout=KERNEL_TIMEOUT_MS)
        lab.server.remember_children()
        assert page.evaluate(js.RUN_ALL)["ok"], "Run All stopped"
        page.wait_for_function(js.SETTLED, timeout=SETTLE_TIMEOUT_MS, polling=100)
        assert not page.evaluate(js.PROBLEMS, ALT_LANGS["zh"])["problems"]
        reveals = page.evaluate(REVEALS)
        assert len(reveals) == 5, reveals
        for r in reveals:
            assert r["text"].startswith(NOTICE + r["name"]) and r["text"].count("\n") == 1, r
        shown = page.evaluate(FOLDED)["shown"]
        for answer in ANSWERS_03:
            assert answer not in shown, f"{answer!r} is on screen after Run All, before the learner answered"
        page.evaluate("(i) => window.__lnNb.content.widgets[i].node.scrollIntoView()", reveals[0]["index"])
        first = page.evaluate(REVEALS)[0]
        assert first["shown"].startswith(NOTICE), "Run All unfolds a reveal: the notice is what it shows"
        page.evaluate(js.SCROLL_TOP)
        screenshot(page, ARTIFACTS / "learner-path-student-run-all.jpg", 4000)

        assert first["name"] == "03.mean_apple"
        answer_cell = page.evaluate(ANSWER_AND_RUN, ["03.mean_apple", "4"])  # a wrong guess opens it too
        page.wait_for_function(CELL_DONE, arg=answer_cell, timeout=STEP_TIMEOUT_MS, polling=100)
        page.evaluate(RUN_CELL, first["index"])
        page.wait_for_function(
            "(i) => window.__lnNb.content.widgets[i].node.innerText.includes('μ = 5.0')",
            arg=first["index"],
            timeout=STEP_TIMEOUT_MS,
            polling=100,
        )
        after = {r["name"]: r for r in page.evaluate(REVEALS)}
        assert after["03.mean_apple"]["shown"].startswith("核对一下：") and "μ = 5.0" in after["03.mean_apple"]["shown"]
        assert after["03.centered_apple"]["text"].startswith(NOTICE), "another predict cell's reveal stays closed"
        lab.report.notebooks["learner-path-student"] = {"reveals": len(reveals), "opened": "03.mean_apple"}
        screenshot(page, ARTIFACTS / "learner-path-student-answered.jpg", 4000)
        assert not lab.external[ext0:] and not lab.console[con0:]
    finally:
        page.evaluate(js.CLOSE)
