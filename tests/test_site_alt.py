"""The static site carries each figure's Chinese alt text into <img alt>, never nbconvert's English placeholder."""

from __future__ import annotations

import base64
import re
from html import unescape

import nbformat

import lnlib
from lnlib import figure_kit, plots
from tools import build_site

PLACEHOLDER = "No description has been provided for this image"


def _page(outputs) -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 图"), nbformat.v4.new_code_cell("plot()", outputs=outputs)]
    site = {"static": "_static/", "mathjax_config": build_site.MATHJAX_CONFIG, "top": "", "bottom": ""}
    body, _ = build_site._exporter().from_notebook_node(nb, resources={"metadata": {"name": "t"}, "site": site})
    return body


def _figure_output(fig):
    """The output Jupyter stores for a returned lnlib figure: PNG data with the alt text in its metadata."""
    png, metadata = figure_kit._png_with_alt(fig)
    return nbformat.v4.new_output(
        "display_data",
        data={"image/png": base64.b64encode(png).decode(), "text/plain": "<Figure>"},
        metadata={"image/png": metadata},
    )


def test_site_page_img_carries_the_chinese_alt_text():
    figs = [
        plots.stage_bars(lnlib.layer_norm_steps([2, 4, 6, 8], eps=0)),
        plots.token_bars(lnlib.TOKEN_MATRIX, title="三个 token <X> & Y"),
    ]
    html = _page([_figure_output(f) for f in figs])
    alts = [unescape(a) for a in re.findall(r'<img[^>]*\balt="([^"]*)"', html)]
    assert alts == [plots.alt_text(f) for f in figs]
    assert "μ = 5" in alts[0] and "<X> & Y" in alts[1]  # the markup characters survive escaping intact
    assert PLACEHOLDER not in html
    # issue 41, item 4: the page says its language is Simplified Chinese (it said "zh", no script), so a screen
    # reader reads the alt texts and the text with a Chinese voice
    assert re.search(r'<html lang="zh-Hans">', html), html[:200]


def test_the_pdf_document_says_simplified_chinese(tmp_path):
    """tools.pdf joins the site's pages into one document with its own <html lang>."""
    from tools import course, pdf

    for lesson, _ in course.planned_notebooks():
        page = tmp_path / build_site.page_name(lesson.stem)
        page.write_text("<html><head><title>t</title></head><body><main>正文</main></body></html>", encoding="utf-8")
    assert pdf.combined_html(tmp_path).startswith('<!DOCTYPE html>\n<html lang="zh-Hans">')


def test_the_template_override_is_what_adds_the_alt():
    """Without alt metadata nbconvert falls back to its placeholder: the check above can fail."""
    png = base64.b64encode(plots.to_png(plots.add_norm_diagram())).decode()
    html = _page([nbformat.v4.new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"})])
    assert PLACEHOLDER in html
