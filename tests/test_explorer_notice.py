"""Issue 32: an explorer with no live kernel behind it (restored from the notebook file, or left on the page by a
kernel restart) says in Chinese what to run, and shows nothing its controls could disagree with. ipywidgets marks
such a view with the class `jupyter-widgets-disconnected`; the explorer's own style sheet does the rest (the real
browser checks it in tests/browser)."""

from __future__ import annotations

import re

import ipywidgets
import nbformat
import pytest
from helpers import executed

from lnlib import widgets

EXPLORERS = [
    widgets.VectorExplorer,
    widgets.AxisExplorer,
    widgets.EpsilonExplorer,
    widgets.ScaleShiftExplorer,
    widgets.GammaBetaExplorer,
    widgets.VarianceExplorer,
    widgets.BatchExplorer,
    lambda: widgets.DepthExplorer(4, width=8),
    widgets.SoftmaxExplorer,
]


@pytest.mark.parametrize("make", EXPLORERS, ids=lambda m: getattr(m, "__name__", "DepthExplorer"))
def test_every_explorer_starts_with_the_notice(make):
    e = make()
    notice, *rest = e.box.children
    assert widgets.EXPLORER_CLASS in e.box._dom_classes
    assert isinstance(notice, ipywidgets.HTML) and widgets.NOTICE_CLASS in notice._dom_classes
    assert "重新运行上面的单元格" in notice.value and "Run All Cells" in notice.value
    assert rest and not any(widgets.NOTICE_CLASS in w._dom_classes for w in rest)  # exactly one notice


def test_the_style_sheet_shows_the_notice_only_when_disconnected_and_hides_the_rest():
    css = widgets.OFFLINE_CSS
    rules = dict(re.findall(r"([^{}]+)\{([^}]*)\}", css))
    rules = {selector.strip(): body.strip() for selector, body in rules.items()}
    box, notice, gone = ".ln-explorer", ".ln-offline", ".jupyter-widgets-disconnected"
    assert rules[f"{box} > {notice}"] == "display: none;"  # live kernel: no notice
    assert "display: flex" in rules[f"{box}{gone} > {notice}"]  # no kernel: the notice ...
    assert "display: none !important" in rules[f"{box}{gone} > :not({notice})"]  # ... and nothing else


def test_the_notice_is_in_the_state_a_run_stores_in_the_notebook():
    """The state nbclient saves into the notebook's metadata (what JupyterLab restores when the notebook is opened)
    holds the notice and the box's class: the stored explorer explains itself with no kernel at all."""
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
    nb.cells = [nbformat.v4.new_code_cell("from lnlib import widgets\nwidgets.BatchExplorer()")]
    state = executed(nb).metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    boxes = [m["state"] for m in state.values() if m["model_name"] == "VBoxModel"]
    assert [b["_dom_classes"] for b in boxes] == [[widgets.EXPLORER_CLASS, "ln-lang-zh"]]  # its alt text: Chinese
    first = boxes[0]["children"][0].removeprefix("IPY_MODEL_")
    assert state[first]["model_name"] == "HTMLModel" and state[first]["state"]["_dom_classes"] == ["ln-offline"]
    assert "重新运行上面的单元格" in state[first]["state"]["value"]


def test_the_plain_text_form_is_the_notice():
    """JupyterLab shows an output's text/plain when it does not render widgets (a notebook just opened is not
    trusted): that text says what to run, not `VBox(children=(HTML(value='<style>…`."""
    bundle = widgets.BatchExplorer()._repr_mimebundle_()
    assert bundle["text/plain"].startswith("BatchExplorer：【探索器暂时不能用】")
    assert "Run All Cells" in bundle["text/plain"] and "VBox" not in bundle["text/plain"]
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_the_html_form_is_the_notice_for_a_missing_model():
    """Issue 40: the HTML form is what GitHub shows and what the course's JupyterLab extension puts in place of
    "Error displaying widget: model not found" once a saved notebook is opened again: the notice, in Chinese,
    marked with the class the extension looks for, the explorer's name escaped."""
    from lnlib.explorers.base import FALLBACK_CLASS

    html_form = widgets.BatchExplorer()._repr_mimebundle_()["text/html"]
    assert f'class="{FALLBACK_CLASS}"' in html_form and 'lang="zh-Hans"' in html_form
    assert "BatchExplorer：【探索器暂时不能用】" in html_form and "重新运行上面的单元格" in html_form
    assert "Run → Run All Cells" in html_form and "<script" not in html_form and "VBox" not in html_form
