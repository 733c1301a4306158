"""Write the generated cells of every notebook: the header, the footer and (in 00-index) the course map.

Cells are found by a marker comment on their first line, so running this again only replaces them.
    python -m tools.nav            # update notebooks in place
    python -m tools.nav --check    # exit 1 if any notebook is out of date (make lint)
    python -m tools.nav --repo owner/name   # set the repository of the Binder links (in tools/course.toml)
The plan is tools/course.toml; a notebook it does not list stops the tool with a clear error.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import nbformat

from tools import course

HEADER, FOOTER, MAP = "<!-- nav:header -->", "<!-- nav:footer -->", "<!-- nav:map -->"


def binder_url(stem: str, repository: str = course.REPOSITORY) -> str:
    return f"https://mybinder.org/v2/gh/{repository}/HEAD?urlpath=lab/tree/notebooks/{stem}.ipynb"


def header(lesson: course.Lesson, repository: str) -> str:
    lines = [HEADER, f"# {course.SERIES_TITLE} · 第 {lesson.number} 篇：{lesson.title}", "", lesson.summary, ""]
    if lesson.goals:
        lines += ["**这一篇你将学到：**", ""] + [f"- {g}" for g in lesson.goals] + [""]
    # a text link, not the badge image: the notebook must show nothing broken when opened offline
    lines.append(
        f"[▶ 在 Binder 中打开]({binder_url(lesson.stem, repository)})"
        " · 运行方法：从上到下依次运行每个单元格（Shift + Enter），或选择菜单「Run → Run All Cells」。"
    )
    return "\n".join(lines)


def footer(lesson: course.Lesson, present: set[str]) -> str:
    stems = [x.stem for x in course.LESSONS]
    i = stems.index(lesson.stem)

    def link(j, arrow_left):
        other = course.LESSONS[j]
        text = f"第 {other.number} 篇：{other.title}"
        if other.stem not in present:
            text += "（即将推出）"
            return f"← {text}" if arrow_left else f"{text} →"
        return f"[← {text}]({other.stem}.ipynb)" if arrow_left else f"[{text} →]({other.stem}.ipynb)"

    parts = []
    if i > 0:
        parts.append(link(i - 1, True))
    parts.append("[目录](00-index.ipynb)")
    if i + 1 < len(stems):
        parts.append(link(i + 1, False))
    return "\n".join([FOOTER, "---", "", " · ".join(parts), "", course.LICENSE_NOTE])


def course_map(present: set[str]) -> str:
    lines = [MAP, "| 篇 | 标题 | 内容 |", "|---|---|---|"]
    for lesson in course.LESSONS[1:]:
        title = f"[{lesson.title}]({lesson.stem}.ipynb)" if lesson.stem in present else f"{lesson.title}（即将推出）"
        lines.append(f"| {lesson.number:02d} | {title} | {lesson.summary} |")
    return "\n".join(lines)


def _find(nb, marker):
    return next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.startswith(marker)), None)


def _put(nb, marker, text, where):
    i = _find(nb, marker)
    if i is not None:
        changed = nb.cells[i].source != text
        nb.cells[i].source = text
        return changed
    cell = nbformat.v4.new_markdown_cell(text)
    cell.pop("id", None)
    cell["id"] = re.sub(r"[^a-z0-9-]", "", marker.lower())[:40]
    if where == "start":
        nb.cells.insert(0, cell)
    elif where == "end":
        nb.cells.append(cell)
    else:
        raise ValueError(f"{marker} cell missing; add a markdown cell starting with it")
    return True


def update(check: bool = False, repository: str | None = None, notebooks: Path = course.NOTEBOOKS) -> list[str]:
    """Bring every notebook's generated cells up to date; return the names of notebooks that changed.

    Raises course.UnplannedNotebookError (before touching any file) for a notebook the plan does not list.
    """
    repository = repository or course.REPOSITORY
    found = course.planned_notebooks(folder=notebooks)
    present = {lesson.stem for lesson, _ in found}
    changed = []
    for lesson, path in found:
        stem = lesson.stem
        nb = nbformat.read(path, as_version=4)
        dirty = _put(nb, HEADER, header(lesson, repository), "start")
        dirty |= _put(nb, FOOTER, footer(lesson, present), "end")
        if stem == course.INDEX_STEM:
            dirty |= _put(nb, MAP, course_map(present), "existing")
        if dirty:
            changed.append(stem)
            if not check:
                nbformat.write(nb, path)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report notebooks whose cells are out of date")
    parser.add_argument("--repo", help="owner/name of the GitHub repository, for Binder links")
    args = parser.parse_args(argv)
    try:
        if args.repo and not args.check:
            course.set_repository(args.repo)
        changed = update(check=args.check, repository=args.repo)
    except ValueError as exc:  # an unplanned notebook, a malformed repository name
        parser.error(str(exc))
    if args.repo and not args.check:
        print(f"repository set to {args.repo} in tools/course.toml; set repository-code in CITATION.cff to match")
    if args.check and changed:
        print("out of date (run `python -m tools.nav`):", ", ".join(changed))
        return 1
    print("updated:" if changed else "all notebooks up to date", ", ".join(changed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
