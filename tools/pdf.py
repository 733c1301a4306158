"""Print the whole course as one PDF: a contents page, then every lesson of the static site in course order.

    python -m tools.build_site --out build/site && python -m tools.pdf      # -> build/course.pdf  (or: make pdf)
    python -m tools.pdf --site DIR --out FILE
    python -m tools.pdf --site build/site/en --out build/course-en.pdf --edition en    # the English edition

Offline: headless Chromium (Debian's /usr/bin/chromium, or Chrome / Edge / Chromium where macOS and Windows put
them: `find_chromium`; driven by Playwright) opens one page that holds every lesson
of the built site (`make site`) and prints it with the site's print stylesheet (tools/site/print.css): no navigation
bars, Binder links or prompts; figures, tables and code are not cut across pages; maths is typeset by the site's own
MathJax before printing. The contents page lists each lesson with the page it starts on (measured by printing each
lesson alone first) and links to it; the PDF also has an outline (bookmarks) of the headings.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import sys
import time
from pathlib import Path

from tools import build_site, course
from tools.course import ROOT
from tools.words import message

DEFAULT_SITE = ROOT / "build" / "site"
DEFAULT_OUT = ROOT / "build" / "course.pdf"
CHROMIUM = Path("/usr/bin/chromium")
# Where Chromium-family browsers live on Linux, macOS and Windows (Playwright drives any of them); LNLIB_CHROMIUM
# or --chromium names another one.
BROWSERS = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/usr/bin/microsoft-edge",
    "/snap/bin/chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
    r"C:\Program Files\Google\Chrome\Application\chrome.exe",
    r"C:\Program Files (x86)\Google\Chrome\Application\chrome.exe",
    r"C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe",
    r"C:\Program Files\Microsoft\Edge\Application\msedge.exe",
)
NO_BROWSER = (
    "no Chromium, Chrome or Edge found (looked in: {where}). Install one (Debian/Ubuntu: apt-get install chromium), "
    "name it with --chromium PATH or LNLIB_CHROMIUM, or print from the site: open build/site/<lesson>.html in any "
    "browser and choose Print -> Save as PDF (the site's print stylesheet hides the navigation and Binder buttons)."
)


def find_chromium(candidates=BROWSERS, environ=os.environ) -> Path:
    """The first Chromium-family browser: $LNLIB_CHROMIUM, then the usual places of each system."""
    named = environ.get("LNLIB_CHROMIUM")
    for path in ([named] if named else []) + list(candidates):
        if Path(path).is_file():
            return Path(path)
    raise SystemExit(NO_BROWSER.format(where=", ".join(([named] if named else []) + list(candidates))))


PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
FOOTER = (
    '<div style="font-size:8px;width:100%;text-align:center;color:#6b7280;font-family:sans-serif">'
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)
CONTENTS_CSS = """
.ln-contents { font-family: var(--jp-ui-font-family); padding-top: 30mm; }
.ln-contents h1 { font-size: 26pt; margin-bottom: 4pt; }
.ln-contents .ln-sub { color: #4b5563; font-size: 12pt; margin-bottom: 18mm; }
.ln-contents ol { list-style: none; padding: 0; font-size: 12pt; }
.ln-contents li { display: flex; gap: 6pt; margin: 5pt 0; }
.ln-contents li .ln-fill { flex: 1; border-bottom: 1px dotted #9ca3af; margin-bottom: 4pt; }
.ln-contents a { color: inherit; text-decoration: none; }
@media screen { .ln-chapter { border-top: 4px solid #e5e7eb; margin-top: 24px; } }
"""


def pdf_pages(data: bytes) -> int:
    """The number of pages of a PDF Chromium wrote (its page objects)."""
    return len(PAGE.findall(data))


def lessons(site: Path, edition: str = "zh", notebooks: Path | None = None) -> list[tuple[course.Lesson, Path]]:
    """The site's pages of an edition in course order (the same order and names build_site writes from the
    notebooks of that edition: `notebooks`, by default notebooks/ or notebooks/en/)."""
    planned = course.planned_notebooks(folder=notebooks or course.EDITION_FOLDERS[edition])
    found = [(lesson, site / build_site.page_name(lesson.stem)) for lesson, _ in planned]
    missing = [str(page) for _, page in found if not page.is_file()]
    if missing:
        raise SystemExit(f"the site is missing pages ({', '.join(missing)}): run `make site` first")
    return found


def _main_of(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    start, end = text.index("<main>") + len("<main>"), text.rindex("</main>")
    return text[start:end]


def combined_html(site: Path, edition: str = "zh", notebooks: Path | None = None) -> str:
    """One HTML document: the first page's <head> (styles, MathJax), a contents page, every lesson's <main>.

    `site` is the folder of the edition's pages (the site's root for "zh", its en/ for "en")."""
    found = lessons(site, edition, notebooks)
    series = course.PLAN.title_in(edition)
    first = found[0][1].read_text(encoding="utf-8")
    head = first[first.index("<head>") + len("<head>") : first.index("</head>")]
    head = re.sub(r"<title>.*?</title>", f"<title>{html.escape(series)}</title>", head, flags=re.S)
    anchors = {build_site.page_name(lesson.stem): f"ln-ch-{lesson.stem}" for lesson, _ in found}
    items, chapters = [], []
    for lesson, page in found:
        anchor = anchors[page.name]
        title = lesson.in_edition(edition).title
        label = (
            html.escape(message("site.print_lesson", edition, number=lesson.number, title=title))
            if lesson.number
            else html.escape(title)
        )
        items.append(
            f'<li><a href="#{anchor}">{label}</a><span class="ln-fill"></span>'
            f'<span class="ln-page" data-for="{anchor}"></span></li>'
        )
        body = _main_of(page)
        # links between lessons point into this document; ids stay unique per lesson
        body = re.sub(
            r'href="([0-9]{2}-[A-Za-z0-9_-]+\.html|index\.html)(#[^"]*)?"',
            lambda m: f'href="#{anchors.get(m.group(1), "")}"',
            body,
        )
        chapters.append(f'<section class="ln-chapter" id="{anchor}">{body}</section>')
    contents = (
        '<section class="ln-contents"><h1>' + html.escape(series) + "</h1>"
        f'<p class="ln-sub">{html.escape(message("site.print_subtitle", edition))}</p>'
        f"<h2>{html.escape(message('site.contents', edition))}</h2><ol>" + "".join(items) + "</ol></section>"
    )
    base = site.resolve().as_uri() + "/"
    lang = build_site.PAGE_LANGS[edition]
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><base href="{base}">{head}<style>{CONTENTS_CSS}</style></head>'
        f'<body class="jp-Notebook" data-jp-theme-light="true" data-jp-theme-name="JupyterLab Light">'
        f"<main>{contents}{''.join(chapters)}</main></body></html>"
    )


def build(
    site: Path = DEFAULT_SITE,
    out: Path = DEFAULT_OUT,
    *,
    chromium: Path | None = None,
    quiet: bool = False,
    edition: str = "zh",
) -> int:
    """Write the PDF; return its number of pages. `chromium`: the browser (default: `find_chromium()`)."""
    from playwright.sync_api import sync_playwright

    chromium = chromium or find_chromium()
    if not chromium.exists():
        raise SystemExit(NO_BROWSER.format(where=chromium))
    site, out = site.resolve(), out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = out.with_suffix(".html")
    doc.write_text(combined_html(site, edition), encoding="utf-8")
    options = {"format": "A4", "print_background": True, "prefer_css_page_size": True}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=["--no-sandbox"])
        page = browser.new_page()
        page.route(re.compile(r"^(?!file:|data:|about:).*"), lambda route: route.abort())  # offline, guaranteed
        page.goto(doc.as_uri(), wait_until="load")
        page.wait_for_function("() => window.MathJax && MathJax.Hub", timeout=60_000)
        page.evaluate("() => new Promise(done => MathJax.Hub.Register.StartupHook('End', done))")
        page.evaluate("() => new Promise(done => MathJax.Hub.Queue(done))")
        page.emulate_media(media="print")
        # pass 1: how many pages the contents and each lesson take, printed alone (each starts on a new page)
        sections = page.eval_on_selector_all(".ln-contents, .ln-chapter", "els => els.map(e => e.id || 'contents')")
        counts = {}
        for name in sections:
            page.evaluate(
                """name => document.querySelectorAll('.ln-contents, .ln-chapter').forEach(e =>
                e.style.display = ((e.id || 'contents') === name) ? '' : 'none')""",
                name,
            )
            counts[name] = pdf_pages(page.pdf(**options))
        page.evaluate("() => document.querySelectorAll('.ln-contents, .ln-chapter').forEach(e => e.style.display = '')")
        start, first_pages = 1, {}
        for name in sections:
            first_pages[name] = start
            start += counts[name]
        page.evaluate(
            """starts => document.querySelectorAll('.ln-page').forEach(e =>
            e.textContent = starts[e.dataset.for])""",
            first_pages,
        )
        # pass 2: the whole course, with page numbers in the footer and an outline
        data = page.pdf(
            **options,
            display_header_footer=True,
            header_template="<span></span>",
            footer_template=FOOTER,
            outline=True,
            tagged=True,
        )
        browser.close()
    out.write_bytes(data)
    doc.unlink()
    total = pdf_pages(data)
    if total != start - 1:
        print(f"warning: the contents page numbers assume {start - 1} pages, the PDF has {total}", file=sys.stderr)
    if not quiet:
        for name in sections:
            print(f"  p. {first_pages[name]:>3}  {name.removeprefix('ln-ch-')} ({counts[name]} pages)")
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=DEFAULT_SITE, help="the built site (make site)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--chromium", type=Path, help="a Chromium, Chrome or Edge executable (default: searched)")
    parser.add_argument(
        "--edition", choices=course.EDITIONS, default="zh", help="en: the English edition (--site the site's en/)"
    )
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    pages = build(args.site, args.out, chromium=args.chromium, edition=args.edition)
    size = args.out.stat().st_size / 2**20
    print(f"{args.out}: {pages} pages, {size:.1f} MiB in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
