"""Build the static course site from the notebooks and their stored outputs (nothing is executed).

    python -m tools.build_site                 # -> build/site/
    python -m tools.build_site --out DIR       # somewhere else
    python -m tools.build_site --repo owner/name   # Binder links for a fork (default: tools/course.toml)
    python -m tools.build_site --preview           # build even while the repository is the placeholder OWNER/REPO

One page per notebook in course order; notebooks/00-index.ipynb (the course map) becomes index.html. The English
edition (notebooks/en/) is built the same way under en/, its pages `lang="en"` (the Chinese ones `zh-Hans`), and
every page of an edition that has a twin in the other links to it (中文 · English). Every page has a navigation bar
(← previous · 目录 · next →, the whole plan with 即将推出 for lessons not written yet; in the edition's words, the
catalogue domain `site`) and a Binder launch link. Plots and tables are the stored outputs (images embedded as
data: URIs). Math is typeset by a local copy of MathJax 2.7 (from the `jupyter-server-mathjax` package) under
_static/mathjax/ (shared by both editions); no page loads anything from
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
from tools.words import message

DEFAULT_OUT = course.BUILD / "site"
TEMPLATES = Path(__file__).resolve().parent / "site"  # lnsite.html.j2, site.css, print.css, binder-badge.svg
TEMPLATE_NAME = "lnsite.html.j2"
STATIC_FILES = ("site.css", "print.css", "binder-badge.svg")  # copied to _static/
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
BINDER_BADGE_REMOTE = "https://mybinder.org/badge_logo.svg"
MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full,Safe"
MATHJAX_PIN = "jupyter-server-mathjax==0.2.6"
# Each edition's name in its own language (an endonym, the same on every page): the language switch's words.
EDITION_NAMES = {"zh": "中文", "en": "English"}
PAGE_LANGS = {"zh": "zh-Hans", "en": "en"}  # <html lang>: a screen reader reads the page and its alt texts so
EDITION_DIRS = {"zh": "", "en": "en/"}  # where an edition's pages live in the site


def preview_note(edition: str = "zh") -> str:
    return f'<p class="ln-preview">{message("site.preview_note", edition)}</p>\n'


def page_name(stem: str) -> str:
    return "index.html" if stem == course.INDEX_STEM else f"{stem}.html"


def _nav_bar(
    i: int,
    lessons: list[course.Lesson],
    repository: str,
    static: str,
    title: str,
    branch: str = "",
    edition: str = "zh",
    switch: str = "",
) -> str:
    def link(j: int, text: str) -> str:
        if 0 <= j < len(lessons):
            other = lessons[j]
            label = message("site.lesson_link", edition, number=other.number, title=other.in_edition(edition).title)
            return f'<a href="{page_name(other.stem)}">{text.format(html.escape(label))}</a>'
        return ""

    binder = nav.binder_url(lessons[i].stem, repository, branch, edition)
    series = html.escape(message("site.nav_series", edition, number=lessons[i].number))
    contents = html.escape(message("site.contents", edition))
    return "\n".join(
        [
            '<nav class="ln-nav">',
            f'<span class="ln-series"><a href="index.html">{html.escape(title)}</a> · {series}</span>',
            *filter(None, [link(i - 1, "← {}"), f'<a href="index.html">{contents}</a>', link(i + 1, "{} →"), switch]),
            f'<a class="ln-binder" href="{html.escape(binder)}" '
            f'title="{html.escape(message("site.binder_title", edition))}">'
            f'<img src="{static}binder-badge.svg" alt="{html.escape(message("site.binder_alt", edition))}" width="109" '
            f'height="20"> {html.escape(message("site.run_in_binder", edition))}</a>',
            "</nav>",
        ]
    )


def _switch(stem: str, edition: str, other_present: set[str]) -> str:
    """The link to this page in the other edition (the other edition's course map if it lacks this lesson)."""
    other = "en" if edition == "zh" else "zh"
    target = stem if stem in other_present else course.INDEX_STEM if course.INDEX_STEM in other_present else None
    if target is None:
        return ""
    up = "../" if edition == "en" else ""
    href = f"{up}{EDITION_DIRS[other]}{page_name(target)}"
    lang = PAGE_LANGS[other]
    return f'<a class="ln-lang" href="{href}" hreflang="{lang}" lang="{lang}">{EDITION_NAMES[other]}</a>'


def _plan(current: str, present: set[str], plan: course.Plan, edition: str = "zh") -> str:
    items = []
    for lesson in plan.lessons:
        label = f"{lesson.number:02d} {html.escape(lesson.in_edition(edition).title)}"
        if lesson.stem == current:
            items.append(f'<li class="ln-current">{label}</li>')
        elif lesson.stem in present:
            items.append(f'<li><a href="{page_name(lesson.stem)}">{label}</a></li>')
        else:
            items.append(f'<li class="ln-soon">{label}{html.escape(message("site.coming_soon", edition))}</li>')
    summary = html.escape(message("site.all_lessons", edition))
    return f'<details class="ln-plan"><summary>{summary}</summary><ol start="0">' + "".join(items) + "</ol></details>"


def _widget_note(binder: str, edition: str = "zh") -> nbformat.NotebookNode:
    text = message("site.widget_note", edition, binder=html.escape(binder))
    return nbformat.v4.new_output(
        "display_data",
        data={
            "text/html": f'<div class="ln-widget-note">{text}</div>',
            "text/plain": message("site.widget_plain", edition),
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


def prepare(nb: nbformat.NotebookNode, binder: str, edition: str = "zh") -> int:
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
            cell.outputs = [o for o in cell.outputs if WIDGET_MIME not in o.get("data", {})] + [
                _widget_note(binder, edition)
            ]
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


PAGE_LANG = PAGE_LANGS["zh"]  # Simplified Chinese: a screen reader reads the pages and the alt texts in Chinese


class _SiteExporter(HTMLExporter):
    """nbconvert's HTML exporter with the page language a screen reader needs: nbconvert accepts only ISO 639-1
    codes for <html lang> (it replaces "zh-Hans" with "en"), so the page is written with "zh" and given its script."""

    page_lang = PAGE_LANG

    def from_notebook_node(self, nb, resources=None, **kw):
        body, resources = super().from_notebook_node(nb, resources, **kw)
        return body.replace(f'<html lang="{self.language_code}">', f'<html lang="{self.page_lang}">', 1), resources


def _exporter(edition: str = "zh") -> HTMLExporter:
    exporter = _SiteExporter(
        template_name="lab",
        template_file=TEMPLATE_NAME,
        extra_loaders=[jinja2.FileSystemLoader(TEMPLATES)],
        language_code=edition,
        embed_images=True,
    )
    exporter.page_lang = PAGE_LANGS[edition]
    return exporter


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
    english = course.planned_notebooks(plan, notebooks / "en")
    if out.exists():
        shutil.rmtree(out)
    static_dir = out / "_static"
    static_dir.mkdir(parents=True)
    shutil.copytree(mathjax_dir(), static_dir / "mathjax")
    for name in STATIC_FILES:
        shutil.copyfile(TEMPLATES / name, static_dir / name)

    editions = {"zh": found, "en": english}
    stems = {edition: {lesson.stem for lesson, _ in pairs} for edition, pairs in editions.items()}
    pages = []
    for edition, pairs in editions.items():
        if not pairs:
            continue
        static = "../_static/" if edition == "en" else "_static/"
        where = out / EDITION_DIRS[edition]
        where.mkdir(exist_ok=True)
        other = stems["en" if edition == "zh" else "zh"]
        pages += _build_edition(edition, pairs, where, static, plan, repository, branch, placeholder, other, quiet)
    (out / ".nojekyll").write_text("", encoding="utf-8")  # GitHub Pages: serve _static/ as is
    return pages


def _build_edition(edition, found, out, static, plan, repository, branch, placeholder, other_present, quiet):
    """The pages of one edition in `out` (the site's root, or its en/), in course order."""
    lessons = [lesson for lesson, _ in found]
    present = {lesson.stem for lesson in lessons}
    exporter = _exporter(edition)
    series = plan.title_in(edition)
    pages = []
    for i, (lesson, path) in enumerate(found):
        nb = nbformat.read(path, as_version=4)
        binder = nav.binder_url(lesson.stem, repository, branch, edition)
        nav.set_header(nb, lesson, repository, branch)  # the notebook's own Binder link follows --repo/--branch too
        prepare(nb, binder, edition)
        switch = _switch(lesson.stem, edition, other_present)
        bar = _nav_bar(i, lessons, repository, static, series, branch, edition, switch)
        if placeholder:
            bar = preview_note(edition) + bar
        site = {
            "static": static,
            "mathjax_config": MATHJAX_CONFIG,
            "top": bar + "\n" + _plan(lesson.stem, present, plan, edition),
            "bottom": bar,
            "reveal_summary": message("site.reveal_summary", edition),
        }
        words = lesson.in_edition(edition)
        title = f"{message('site.lesson_link', edition, number=lesson.number, title=words.title)} · {series}"
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title}, "site": site})
        page = out / page_name(lesson.stem)
        page.write_text(_rewrite_links(body, static), encoding="utf-8")
        pages.append(page)
        if not quiet:
            print(
                f"{path.name} -> {page.relative_to(out.parent if edition == 'en' else out)} "
                f"({page.stat().st_size // 1024} KiB)",
                flush=True,
            )
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
