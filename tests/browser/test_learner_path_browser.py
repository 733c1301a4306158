"""The learner's path in JupyterLab + Chromium (issue 32 items 1, 2): a notebook opens with every reveal folded,
and a slip in every answer cell still lets Run All reach the end.

Notebook 03 is opened as stored: each `reveal` cell's output area is collapsed (JupyterLab reads
metadata.jupyter.outputs_hidden) and its answer is not on screen, each reveal <details> is closed. Then a Chinese
comma, a space-separated list or an unquoted word goes into every answer cell, Run All runs, and every cell runs
without an error while the answer cells answer in Chinese. Screenshots in build/browser/learner-path-*.jpg.
"""

from __future__ import annotations

import pytest

from . import page_js as js
from .conftest import ARTIFACTS, KERNEL_TIMEOUT_MS, SETTLE_TIMEOUT_MS, screenshot

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
        problems = page.evaluate(js.PROBLEMS)["problems"]
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
