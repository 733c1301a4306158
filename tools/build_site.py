"""Build the static course site from the notebooks and their stored outputs (nothing is executed).

    python tools/build_site.py                 # -> build/site/
    python tools/build_site.py --out DIR       # somewhere else
    python tools/build_site.py --repo owner/name   # Binder links for a fork (default: tools/course.py)

One page per notebook in course order; notebooks/00-index.ipynb (the course map) becomes index.html. Every page has
a navigation bar (← previous · 目录 · next →, the whole plan with 即将推出 for lessons not written yet) and a Binder
launch link. Plots and tables are the stored outputs (images embedded as data: URIs). Math is typeset by a local
copy of MathJax 2.7 (from the `jupyter-server-mathjax` package) under _static/mathjax/; no page loads anything from
the internet when it is viewed: nbconvert's CDN scripts (MathJax, require.js, mermaid, widget manager) are replaced
and the Binder badge image is served locally. Widget cells keep no live output (a widget needs a running kernel);
the page shows a note with the Binder link instead, right after the static cell with the default values.
Notebooks added to notebooks/ later are picked up without edits.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import sys
import time
from pathlib import Path

import jinja2
import nbformat
from nbconvert import HTMLExporter

sys.path.insert(0, str(Path(__file__).resolve().parent))
import course  # noqa: E402
import nav  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
DEFAULT_OUT = ROOT / "build" / "site"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
BINDER_BADGE_REMOTE = "https://mybinder.org/badge_logo.svg"
MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full,Safe"
MATHJAX_PIN = "jupyter-server-mathjax==0.2.6"

# nbconvert's lab template minus everything it would fetch from a CDN, plus the course navigation.
TEMPLATE = r"""
{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block html_head_js_mathjax -%}
<script type="text/x-mathjax-config">
MathJax.Hub.Config({
  tex2jax: {inlineMath: [["$", "$"], ["\\(", "\\)"]], displayMath: [["$$", "$$"], ["\\[", "\\]"]],
            processEscapes: true, processEnvironments: true},
  TeX: {equationNumbers: {autoNumber: "AMS", useLabelIds: true}},
  "HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null,
               linebreaks: {automatic: true}},
  SVG: {font: "STIX-Web"},
  displayAlign: "center",
  messageStyle: "none",
  menuSettings: {zoom: "None"}
});
</script>
<script src="{{ resources.site.static }}mathjax/MathJax.js?config={{ resources.site.mathjax_config }}"></script>
{%- endblock html_head_js_mathjax -%}
{%- block extra_css -%}
<link rel="stylesheet" href="{{ resources.site.static }}site.css">
<link rel="stylesheet" href="{{ resources.site.static }}print.css">
{%- endblock extra_css -%}
{%- block body_header -%}
{{ super() }}
{{ resources.site.top }}
{%- endblock body_header -%}
{%- block body_footer -%}
{{ resources.site.bottom }}
{{ super() }}
{%- endblock body_footer -%}
"""

SITE_CSS = """
body.jp-Notebook { max-width: 1100px; margin: 0 auto; }
.ln-nav { font-family: var(--jp-ui-font-family); font-size: 14px; display: flex; flex-wrap: wrap; gap: 4px 16px;
  align-items: center; padding: 10px 16px; margin: 8px 0 16px; background: #f1f5f9; border-radius: 6px; }
.ln-nav a { text-decoration: none; color: #1d4ed8; }
.ln-nav a:hover { text-decoration: underline; }
.ln-nav .ln-series { font-weight: bold; margin-right: auto; }
.ln-nav .ln-binder img { vertical-align: middle; }
details.ln-plan { font-family: var(--jp-ui-font-family); font-size: 14px; margin: -8px 16px 16px; }
details.ln-plan ol { margin: 6px 0; columns: 2; }
details.ln-plan .ln-current { font-weight: bold; }
details.ln-plan .ln-soon { color: #94a3b8; }
.ln-widget-note { border-left: 4px solid #f59e0b; background: #fffbeb; padding: 8px 12px; margin: 4px 0;
  font-family: var(--jp-ui-font-family); font-size: 14px; }
"""

# A local stand-in for mybinder.org's badge image, so that viewing a page fetches nothing from the internet.
BINDER_BADGE = """<svg xmlns="http://www.w3.org/2000/svg" width="109" height="20" role="img" aria-label="launch binder">
<rect width="64" height="20" rx="3" fill="#555"/><rect x="60" width="49" height="20" rx="3" fill="#f5a252"/>
<rect x="60" width="4" height="20" fill="#f5a252"/>
<g fill="#fff" font-family="DejaVu Sans,Verdana,Geneva,sans-serif" font-size="11" text-anchor="middle">
<text x="32" y="14">launch</text><text x="84" y="14">binder</text></g></svg>
"""


def page_name(stem: str) -> str:
    return "index.html" if stem == "00-index" else f"{stem}.html"


def present_lessons(notebooks: Path = NOTEBOOKS) -> list[tuple[course.Lesson, Path]]:
    """The notebooks that exist, in course order (file-name order); unplanned notebooks get a plain title."""
    planned = {lesson.stem: lesson for lesson in course.LESSONS}
    found = []
    for path in sorted(notebooks.glob("[0-9][0-9]-*.ipynb")):
        found.append((planned.get(path.stem) or course.Lesson(path.stem, path.stem, ""), path))
    return found


def _nav_bar(i: int, lessons: list[course.Lesson], repository: str, static: str) -> str:
    def link(j: int, text: str) -> str:
        if 0 <= j < len(lessons):
            other = lessons[j]
            label = f"第 {other.number} 篇：{other.title}"
            return f'<a href="{page_name(other.stem)}">{text.format(html.escape(label))}</a>'
        return ""

    binder = nav.binder_url(lessons[i].stem, repository)
    return "\n".join([
        '<nav class="ln-nav">',
        f'<span class="ln-series"><a href="index.html">{html.escape(course.SERIES_TITLE)}</a>'
        f' · 第 {lessons[i].number} 篇</span>',
        *filter(None, [link(i - 1, "← {}"), '<a href="index.html">目录</a>', link(i + 1, "{} →")]),
        f'<a class="ln-binder" href="{html.escape(binder)}" title="在 Binder 上启动可运行的 JupyterLab">'
        f'<img src="{static}binder-badge.svg" alt="在 Binder 中打开" width="109" height="20"> 在 Binder 中运行</a>',
        "</nav>",
    ])


def _plan(current: str, present: set[str]) -> str:
    items = []
    for lesson in course.LESSONS:
        label = f"{lesson.number:02d} {html.escape(lesson.title)}"
        if lesson.stem == current:
            items.append(f'<li class="ln-current">{label}</li>')
        elif lesson.stem in present:
            items.append(f'<li><a href="{page_name(lesson.stem)}">{label}</a></li>')
        else:
            items.append(f'<li class="ln-soon">{label}（即将推出）</li>')
    return '<details class="ln-plan"><summary>全部篇目</summary><ol start="0">' + "".join(items) + "</ol></details>"


def _widget_note(binder: str) -> nbformat.NotebookNode:
    text = ("这里是一个交互小工具（滑块、输入框）。它需要一个正在运行的 Python 内核，静态网页无法运行；"
            "上面的单元格给出了默认值的结果。想亲手操作，请"
            f'<a href="{html.escape(binder)}">在 Binder 中打开这一篇</a>，或在本地运行 <code>make lab</code>。')
    return nbformat.v4.new_output("display_data", data={"text/html": f'<div class="ln-widget-note">{text}</div>',
                                                        "text/plain": "（交互小工具：需要运行中的内核）"})


def prepare(nb: nbformat.NotebookNode, binder: str) -> int:
    """Replace widget outputs (which need a kernel) by a note; return how many widget cells there were."""
    count = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if any(WIDGET_MIME in out.get("data", {}) for out in cell.get("outputs", [])):
            cell.outputs = [o for o in cell.outputs if WIDGET_MIME not in o.get("data", {})] + [_widget_note(binder)]
            count += 1
    return count


def _rewrite_links(body: str, static: str) -> str:
    def notebook_link(m: re.Match) -> str:
        return f'href="{page_name(m.group(1))}{m.group(2) or ""}"'

    body = re.sub(r'href="(?:\./)?([0-9]{2}-[A-Za-z0-9_-]+)\.ipynb(#[^"]*)?"', notebook_link, body)
    return body.replace(f'src="{BINDER_BADGE_REMOTE}"', f'src="{static}binder-badge.svg"')


def mathjax_dir() -> Path:
    try:
        import jupyter_server_mathjax
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise SystemExit(f"a local MathJax is needed: pip install {MATHJAX_PIN}") from exc
    return Path(jupyter_server_mathjax.__file__).parent / "static"


def _exporter() -> HTMLExporter:
    return HTMLExporter(template_name="lab", template_file="lnsite.html.j2",
                        extra_loaders=[jinja2.DictLoader({"lnsite.html.j2": TEMPLATE})],
                        language_code="zh", embed_images=True)


def build(out: Path = DEFAULT_OUT, *, notebooks: Path = NOTEBOOKS, repository: str | None = None,
          quiet: bool = False) -> list[Path]:
    """Write the site into `out` (emptied first); return the pages in course order."""
    repository = repository or course.REPOSITORY
    found = present_lessons(notebooks)
    if not found:
        raise SystemExit(f"no notebooks in {notebooks}")
    lessons = [lesson for lesson, _ in found]
    present = {lesson.stem for lesson in lessons}
    if out.exists():
        shutil.rmtree(out)
    static_dir = out / "_static"
    static_dir.mkdir(parents=True)
    shutil.copytree(mathjax_dir(), static_dir / "mathjax")
    (static_dir / "site.css").write_text(SITE_CSS, encoding="utf-8")
    shutil.copy(Path(__file__).with_name("site") / "print.css", static_dir / "print.css")  # @media print rules
    (static_dir / "binder-badge.svg").write_text(BINDER_BADGE, encoding="utf-8")

    exporter = _exporter()
    pages = []
    for i, (lesson, path) in enumerate(found):
        nb = nbformat.read(path, as_version=4)
        binder = nav.binder_url(lesson.stem, repository)
        prepare(nb, binder)
        bar = _nav_bar(i, lessons, repository, "_static/")
        site = {
            "static": "_static/",
            "mathjax_config": MATHJAX_CONFIG,
            "top": bar + "\n" + _plan(lesson.stem, present),
            "bottom": bar,
        }
        title = f"第 {lesson.number} 篇：{lesson.title} · {course.SERIES_TITLE}"
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title}, "site": site})
        page = out / page_name(lesson.stem)
        page.write_text(_rewrite_links(body, "_static/"), encoding="utf-8")
        pages.append(page)
        if not quiet:
            print(f"{path.name} -> {page.name} ({page.stat().st_size // 1024} KiB)", flush=True)
    (out / ".nojekyll").write_text("", encoding="utf-8")  # GitHub Pages: serve _static/ as is
    return pages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (emptied first)")
    parser.add_argument("--repo", help="owner/name of the GitHub repository, for Binder links")
    args = parser.parse_args()
    start = time.perf_counter()
    pages = build(args.out, repository=args.repo)
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"{len(pages)} pages in {args.out} ({size / 2**20:.1f} MiB with MathJax) "
          f"in {time.perf_counter() - start:.1f} s; open {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
