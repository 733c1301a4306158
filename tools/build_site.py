"""Build the static course site from the notebooks and their stored outputs (nothing is executed).

    python -m tools.build_site                 # -> build/site/
    python -m tools.build_site --out DIR       # somewhere else
    python -m tools.build_site --repo owner/name   # Binder links for a fork (default: tools/course.toml)
    python -m tools.build_site --preview           # build even while the repository is the placeholder OWNER/REPO

One page per notebook in course order; notebooks/00-index.ipynb (the course map) becomes index.html. Every page has
a navigation bar (← previous · 目录 · next →, the whole plan with 即将推出 for lessons not written yet) and a Binder
launch link. Plots and tables are the stored outputs (images embedded as data: URIs). Math is typeset by a local
copy of MathJax 2.7 (from the `jupyter-server-mathjax` package) under _static/mathjax/; no page loads anything from
the internet when it is viewed: nbconvert's CDN scripts (MathJax, require.js, mermaid, widget manager) are replaced
and the Binder badge image is served locally. Widget cells keep no live output (a widget needs a running kernel);
the page shows a note with the Binder link instead, right after the static cell with the default values.
Notebooks added to notebooks/ (and to the plan, tools/course.toml) are picked up without edits. The page template,
the CSS and the local Binder badge are files in tools/site/.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import time
from pathlib import Path

import jinja2
import nbformat
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune

from tools import course, nav
from tools import repository as repo_setting
from tools.outputs import coalesce_notebook

DEFAULT_OUT = course.BUILD / "site"
TEMPLATES = Path(__file__).resolve().parent / "site"  # lnsite.html.j2, site.css, print.css, binder-badge.svg
TEMPLATE_NAME = "lnsite.html.j2"
STATIC_FILES = ("site.css", "print.css", "binder-badge.svg")  # copied to _static/
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
BINDER_BADGE_REMOTE = "https://mybinder.org/badge_logo.svg"
MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full,Safe"
MATHJAX_PIN = "jupyter-server-mathjax==0.2.6"
PREVIEW_NOTE = (
    '<p class="ln-preview">预览版：课程仓库还没有设置（tools/course.toml 里仍是 OWNER/REPO），'
    "所以 Binder 按钮还打不开。</p>\n"
)


def page_name(stem: str) -> str:
    return "index.html" if stem == course.INDEX_STEM else f"{stem}.html"


def _nav_bar(i: int, lessons: list[course.Lesson], repository: str, static: str, title: str, branch: str = "") -> str:
    def link(j: int, text: str) -> str:
        if 0 <= j < len(lessons):
            other = lessons[j]
            label = f"第 {other.number} 篇：{other.title}"
            return f'<a href="{page_name(other.stem)}">{text.format(html.escape(label))}</a>'
        return ""

    binder = nav.binder_url(lessons[i].stem, repository, branch)
    return "\n".join(
        [
            '<nav class="ln-nav">',
            f'<span class="ln-series"><a href="index.html">{html.escape(title)}</a> · 第 {lessons[i].number} 篇</span>',
            *filter(None, [link(i - 1, "← {}"), '<a href="index.html">目录</a>', link(i + 1, "{} →")]),
            f'<a class="ln-binder" href="{html.escape(binder)}" title="在 Binder 上启动可运行的 JupyterLab">'
            f'<img src="{static}binder-badge.svg" alt="在 Binder 中打开" width="109" height="20"> 在 Binder 中运行</a>',
            "</nav>",
        ]
    )


def _plan(current: str, present: set[str], plan: course.Plan) -> str:
    items = []
    for lesson in plan.lessons:
        label = f"{lesson.number:02d} {html.escape(lesson.title)}"
        if lesson.stem == current:
            items.append(f'<li class="ln-current">{label}</li>')
        elif lesson.stem in present:
            items.append(f'<li><a href="{page_name(lesson.stem)}">{label}</a></li>')
        else:
            items.append(f'<li class="ln-soon">{label}（即将推出）</li>')
    return '<details class="ln-plan"><summary>全部篇目</summary><ol start="0">' + "".join(items) + "</ol></details>"


def _widget_note(binder: str) -> nbformat.NotebookNode:
    text = (
        "这里是一个交互探索器（滑块、输入框）。它需要一个正在运行的 Python 内核，静态网页无法运行；"
        "上面的单元格给出了默认值的结果。想亲手操作，请"
        f'<a href="{html.escape(binder)}">在 Binder 中打开这一篇</a>，或在本地运行 <code>make lab</code>。'
    )
    return nbformat.v4.new_output(
        "display_data",
        data={
            "text/html": f'<div class="ln-widget-note">{text}</div>',
            "text/plain": "（交互探索器：需要运行中的内核）",
        },
    )


_DETAILS = re.compile(r"<details>\s*<summary>(.*?)</summary>(.*?)</details>", re.S)


def fold_details(source: str) -> str:
    """A markdown cell's `<details>` blocks as single HTML blocks, their inside rendered from markdown.

    JupyterLab and GitHub read `<details><summary>…</summary>`, a blank line, markdown, `</details>` as a folded
    block; nbconvert's markdown renderer ends the HTML block at the blank line and closes `<details>` right after
    its summary, so the site showed every folded answer open. Math stays as $…$ for MathJax."""

    def fold(m: re.Match) -> str:
        inner = markdown2html_mistune(m.group(2).strip())
        inner = "\n".join(line for line in inner.splitlines() if line.strip())  # no blank line ends the block
        return f"<details><summary>{m.group(1)}</summary>\n{inner}\n</details>"

    return _DETAILS.sub(fold, source)


def prepare(nb: nbformat.NotebookNode, binder: str) -> int:
    """Replace widget outputs (which need a kernel) by a note; return how many widget cells there were. Stream
    outputs are coalesced first (tools.outputs), as JupyterLab shows them; folded markdown stays folded
    (`fold_details`)."""
    coalesce_notebook(nb)
    count = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "<details>" in cell.source:
            cell.source = fold_details(cell.source)
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


PAGE_LANG = "zh-Hans"  # Simplified Chinese: a screen reader reads the pages and the figures' alt texts in Chinese


class _SiteExporter(HTMLExporter):
    """nbconvert's HTML exporter with the page language a screen reader needs: nbconvert accepts only ISO 639-1
    codes for <html lang> (it replaces "zh-Hans" with "en"), so the page is written with "zh" and given its script."""

    def from_notebook_node(self, nb, resources=None, **kw):
        body, resources = super().from_notebook_node(nb, resources, **kw)
        return body.replace('<html lang="zh">', f'<html lang="{PAGE_LANG}">', 1), resources


def _exporter() -> HTMLExporter:
    return _SiteExporter(
        template_name="lab",
        template_file=TEMPLATE_NAME,
        extra_loaders=[jinja2.FileSystemLoader(TEMPLATES)],
        language_code="zh",
        embed_images=True,
    )


def build(
    out: Path = DEFAULT_OUT,
    *,
    notebooks: Path = course.NOTEBOOKS,
    plan: course.Plan | None = None,
    repository: str | None = None,
    branch: str | None = None,
    preview: bool = False,
    quiet: bool = False,
) -> list[Path]:
    """Write the site into `out` (emptied first); return the pages in course order.

    Raises course.UnplannedNotebookError (before writing anything) for a notebook the plan does not list, and a
    ValueError while the repository is the placeholder OWNER/REPO (its Binder links would not open) unless
    `preview` is set (the pages then say so at the top).
    """
    plan = plan or course.PLAN
    repository = repository or plan.repository
    branch = plan.branch if branch is None else branch
    found = course.planned_notebooks(plan, notebooks)
    placeholder = repo_setting.is_placeholder(repository)
    if placeholder and not preview:
        raise ValueError(
            f"repository: still the placeholder {repo_setting.PLACEHOLDER}, so every Binder link of the site would "
            f"fail; {repo_setting.HOW_TO_SET}, or build a preview with --preview (make site PREVIEW=1)"
        )
    if not found:
        raise ValueError(f"notebooks: no NN-slug.ipynb in {notebooks}")
    lessons = [lesson for lesson, _ in found]
    present = {lesson.stem for lesson in lessons}
    if out.exists():
        shutil.rmtree(out)
    static_dir = out / "_static"
    static_dir.mkdir(parents=True)
    shutil.copytree(mathjax_dir(), static_dir / "mathjax")
    for name in STATIC_FILES:
        shutil.copyfile(TEMPLATES / name, static_dir / name)

    exporter = _exporter()
    pages = []
    for i, (lesson, path) in enumerate(found):
        nb = nbformat.read(path, as_version=4)
        binder = nav.binder_url(lesson.stem, repository, branch)
        nav.set_header(nb, lesson, repository, branch)  # the notebook's own Binder link follows --repo/--branch too
        prepare(nb, binder)
        bar = _nav_bar(i, lessons, repository, "_static/", plan.title, branch)
        if placeholder:
            bar = PREVIEW_NOTE + bar
        site = {
            "static": "_static/",
            "mathjax_config": MATHJAX_CONFIG,
            "top": bar + "\n" + _plan(lesson.stem, present, plan),
            "bottom": bar,
        }
        title = f"第 {lesson.number} 篇：{lesson.title} · {plan.title}"
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title}, "site": site})
        page = out / page_name(lesson.stem)
        page.write_text(_rewrite_links(body, "_static/"), encoding="utf-8")
        pages.append(page)
        if not quiet:
            print(f"{path.name} -> {page.name} ({page.stat().st_size // 1024} KiB)", flush=True)
    (out / ".nojekyll").write_text("", encoding="utf-8")  # GitHub Pages: serve _static/ as is
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (emptied first)")
    parser.add_argument("--repo", help="owner/name of the GitHub repository, for Binder links")
    parser.add_argument("--branch", help="the branch Binder opens (default: tools/course.toml)")
    parser.add_argument("--preview", action="store_true", help="build even with the placeholder repository")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        pages = build(args.out, repository=args.repo, branch=args.branch, preview=args.preview)
    except ValueError as exc:  # a notebook missing from the plan
        parser.error(str(exc))
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(
        f"{len(pages)} pages in {args.out} ({size / 2**20:.1f} MiB with MathJax) "
        f"in {time.perf_counter() - start:.1f} s; open {args.out / 'index.html'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
