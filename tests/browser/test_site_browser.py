"""The static site (tools/build_site.py) as a reader's Chromium shows it, in the light and the dark colour scheme.

Issue 41, item 2: with the system set to dark, the pages showed near-black text on #111827 (the site's dark
variables were overridden by nbconvert's inlined light theme, which came after them). Here every text element of
every page (running text, tables, code, outputs, navigation, notes) is sampled in both schemes: its colour and
the background it is painted on, both from computed styles (translucent layers composed down to the first opaque
one), must differ by a WCAG 2.x contrast ratio of at least 4.5:1. Screenshots in build/browser/site-*.png.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools import build_site
from tools.course import BUILD

from .lab_harness import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.browser

ARTIFACTS = BUILD / "browser"
MIN_TEXT_CONTRAST = 4.5  # WCAG 2.x, success criterion 1.4.3 (normal text)

# What a reader reads, by kind; the test requires every kind to be found on the pages it samples.
KINDS = {
    "body text": ".jp-RenderedMarkdown p, .jp-RenderedMarkdown li, .jp-RenderedMarkdown h1, "
    ".jp-RenderedMarkdown h2, .jp-RenderedMarkdown h3, .jp-RenderedMarkdown strong, .jp-RenderedMarkdown a",
    "inline code": ".jp-RenderedMarkdown code",
    "tables": ".jp-RenderedHTMLCommon td, .jp-RenderedHTMLCommon th, .jp-RenderedHTMLCommon caption",
    "code": ".jp-InputArea-editor pre, .jp-InputArea-editor pre span",
    "outputs": ".jp-OutputArea-output pre, .jp-OutputArea-output pre span",
    "site": ".ln-nav a, .ln-nav span, details.ln-plan summary, details.ln-plan li, .ln-widget-note, "
    ".ln-preview, details.ln-reveal > summary",
}

# For each element with text of its own: its colour and its background (the element's and its ancestors'
# background colours composed from the first opaque one, or the canvas: white in both schemes unless the page
# paints one), as sRGB 0-255 triples. Elements not rendered (display: none, folded) are skipped.
SAMPLE_JS = r"""
(kinds) => {
  const rgba = (s) => { const m = s.match(/rgba?\(([^)]+)\)/); if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3]));
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let colour = [255, 255, 255];
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const out = {};
  for (const [kind, selector] of Object.entries(kinds)) {
    out[kind] = [];
    for (const el of document.querySelectorAll(selector)) {
      const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
      if (!own || !el.getClientRects().length || el.closest('details:not([open]) > :not(summary)')) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
      const fg = rgba(style.color);
      const bg = background(el);
      out[kind].push({fg: over(fg, bg), bg, text: el.textContent.trim().slice(0, 40),
                      tag: el.tagName.toLowerCase() + (el.className && typeof el.className === 'string'
                        ? '.' + el.className.split(' ')[0] : '')});
    }
  }
  return out;
}
"""


def luminance(rgb) -> float:
    """WCAG 2.x relative luminance of an sRGB colour given as 0-255 components."""
    lin = [(c / 255) / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_contrast_formula_matches_wcags_examples():
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast((0x76, 0x76, 0x76), (255, 255, 255)) == pytest.approx(4.54, abs=0.01)  # the classic #767676
    assert contrast((0x11, 0x18, 0x27), (0x11, 0x18, 0x27)) == pytest.approx(1.0)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site.build(out, repository="example/course", quiet=True)
    return out


@pytest.fixture(scope="module")
def chromium(playwright_driver):
    if not CHROMIUM.exists():
        pytest.skip(f"needs Debian's Chromium at {CHROMIUM}")
    browser = playwright_driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    try:
        yield browser
    finally:
        browser.close()


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_every_page_is_readable_in_both_colour_schemes(site, chromium, scheme):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = chromium.new_context(color_scheme=scheme, viewport={"width": 1100, "height": 900})
    page = context.new_page()
    worst: dict[str, tuple[float, str]] = {}
    failures: list[str] = []
    try:
        for html in sorted(site.glob("*.html")):
            page.goto(html.as_uri())
            page.wait_for_function(
                "window.MathJax && MathJax.Hub && MathJax.Hub.queue.pending === 0 && !MathJax.Hub.queue.running",
                timeout=60_000,
            )
            assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
            if html.name == "03-one-row-by-hand.html":
                page.screenshot(path=str(ARTIFACTS / f"site-{scheme}-03.png"), full_page=False)
                page.locator(".jp-RenderedHTMLCommon table").first.scroll_into_view_if_needed()
                page.screenshot(path=str(ARTIFACTS / f"site-{scheme}-03-table.png"))
            for kind, samples in page.evaluate(SAMPLE_JS, KINDS).items():
                for s in samples:
                    ratio = contrast(s["fg"], s["bg"])
                    where = f"{html.name} {s['tag']} {s['text']!r}: {ratio:.2f}:1 fg {s['fg']} on bg {s['bg']}"
                    if kind not in worst or ratio < worst[kind][0]:
                        worst[kind] = (ratio, where)
                    if ratio < MIN_TEXT_CONTRAST:
                        failures.append(f"{kind}: {where}")
    finally:
        context.close()
    (ARTIFACTS / f"site-contrast-{scheme}.json").write_text(
        json.dumps(
            {k: {"min_ratio": round(v[0], 2), "where": v[1]} for k, v in worst.items()}, ensure_ascii=False, indent=1
        ),
        encoding="utf-8",
    )
    assert set(worst) == set(KINDS), f"no {set(KINDS) - set(worst)} found: the selectors no longer match the site"
    assert not failures, f"{len(failures)} text elements under {MIN_TEXT_CONTRAST}:1 in {scheme}, e.g.\n" + "\n".join(
        failures[:15]
    )
