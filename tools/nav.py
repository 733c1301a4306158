"""Write the generated cells of every notebook: the header, the footer and (in 00-index) the course map.

Both editions: notebooks/NN-slug.ipynb in Chinese and notebooks/en/NN-slug.ipynb in English (titles, summaries
and goals from the plan's `*_en` fields, the tool's own words from the catalogue domain `site`, tools/words.py).

Cells are found by a marker comment on their first line, so running this again only replaces them.
    python -m tools.nav            # update notebooks in place
    python -m tools.nav --check    # exit 1 if any notebook is out of date (make lint)
    python -m tools.nav --repo owner/name [--branch name]   # set the repository every link is derived from
The plan is tools/course.toml; a notebook it does not list stops the tool with a clear error. The repository and
branch there are the one setting of every launch link (tools/repository.py): this tool writes them into the
notebook headers, the README's Binder badge and CITATION.cff, and `--check` reports any of them out of step.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

from tools import course
from tools import repository as repo_setting
from tools.words import message

HEADER, FOOTER, MAP = "<!-- nav:header -->", "<!-- nav:footer -->", "<!-- nav:map -->"


def notebook_path(stem: str, edition: str = "zh") -> str:
    """The notebook's path in the repository: notebooks/NN-slug.ipynb, notebooks/en/NN-slug.ipynb."""
    return f"notebooks/{'en/' if edition == 'en' else ''}{stem}.ipynb"


def binder_url(stem: str, repository: str = course.REPOSITORY, branch: str = course.BRANCH, edition: str = "zh") -> str:
    return repo_setting.binder_url(repository, branch, notebook_path(stem, edition))


def header(lesson: course.Lesson, repository: str, branch: str = course.BRANCH, edition: str = "zh") -> str:
    words = lesson.in_edition(edition)
    heading = message(
        "site.lesson_heading", edition, series=course.PLAN.title_in(edition), number=lesson.number, title=words.title
    )
    lines = [HEADER, f"# {heading}", "", words.summary, ""]
    if words.goals:
        lines += [message("site.you_will_learn", edition), ""] + [f"- {g}" for g in words.goals] + [""]
    # a text link, not the badge image: the notebook must show nothing broken when opened offline
    binder = binder_url(lesson.stem, repository, branch, edition)
    lines.append(f"[{message('site.open_in_binder', edition)}]({binder}) · {message('site.how_to_run', edition)}")
    return "\n".join(lines)


def footer(lesson: course.Lesson, present: set[str], edition: str = "zh") -> str:
    stems = [x.stem for x in course.LESSONS]
    i = stems.index(lesson.stem)

    def link(j, arrow_left):
        other = course.LESSONS[j]
        text = message("site.lesson_link", edition, number=other.number, title=other.in_edition(edition).title)
        if other.stem not in present:
            text += message("site.coming_soon", edition)
            return f"← {text}" if arrow_left else f"{text} →"
        return f"[← {text}]({other.stem}.ipynb)" if arrow_left else f"[{text} →]({other.stem}.ipynb)"

    parts = []
    if i > 0:
        parts.append(link(i - 1, True))
    parts.append(f"[{message('site.contents', edition)}](00-index.ipynb)")
    if i + 1 < len(stems):
        parts.append(link(i + 1, False))
    lines = [FOOTER, "---", "", " · ".join(parts), ""]
    if lesson.stem != course.INDEX_STEM:  # a lesson's exercises end just above: where the learner's record is
        lines += [message("site.progress_note", edition), ""]
    return "\n".join([*lines, course.PLAN.license_note_in(edition)])


def course_map(present: set[str], edition: str = "zh") -> str:
    lines = [MAP, message("site.map_header", edition), "|---|---|---|"]
    for lesson in course.LESSONS[1:]:
        words = lesson.in_edition(edition)
        soon = message("site.coming_soon", edition)
        title = f"[{words.title}]({lesson.stem}.ipynb)" if lesson.stem in present else f"{words.title}{soon}"
        lines.append(f"| {lesson.number:02d} | {title} | {words.summary} |")
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


def set_header(nb, lesson: course.Lesson, repository: str, branch: str = course.BRANCH) -> bool:
    """Write the generated header (with its Binder link) into a notebook in memory, in its edition's words (its
    metadata lnlib.edition); True if it changed."""
    return _put(nb, HEADER, header(lesson, repository, branch, course.edition_of(nb)), "start")


def update(
    check: bool = False,
    repository: str | None = None,
    notebooks: Path = course.NOTEBOOKS,
    branch: str | None = None,
) -> list[str]:
    """Bring every notebook's generated cells up to date, both editions (`notebooks` and `notebooks`/en); return the
    names of notebooks that changed (English ones as en/NN-slug).

    Raises course.UnplannedNotebookError (before touching any file) for a notebook the plan does not list.
    """
    repository = repository or course.REPOSITORY
    branch = course.BRANCH if branch is None else branch
    editions = {
        "zh": course.planned_notebooks(folder=notebooks),
        "en": course.planned_notebooks(folder=notebooks / "en"),
    }
    changed = []
    for edition, found in editions.items():
        present = {lesson.stem for lesson, _ in found}
        for lesson, path in found:
            stem = lesson.stem
            nb = nbformat.read(path, as_version=4)
            if course.edition_of(nb) != edition:
                raise ValueError(f"{path}: metadata lnlib.edition is {course.edition_of(nb)!r}, not {edition!r}")
            dirty = set_header(nb, lesson, repository, branch)
            dirty |= _put(nb, FOOTER, footer(lesson, present, edition), "end")
            if stem == course.INDEX_STEM:
                dirty |= _put(nb, MAP, course_map(present, edition), "existing")
            if dirty:
                changed.append(stem if edition == "zh" else f"en/{stem}")
                if not check:
                    nbformat.write(nb, path)
    return changed


def main(argv: list[str] | None = None, files: repo_setting.Files = repo_setting.HERE) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report files whose generated parts are out of date")
    parser.add_argument("--repo", help="owner/name of the GitHub repository every launch link points to")
    parser.add_argument("--branch", help="the branch the links open (default: the repository's default branch)")
    args = parser.parse_args(argv)
    if args.check and (args.repo or args.branch is not None):
        parser.error("--check compares with tools/course.toml; it takes no --repo or --branch")
    plan = course.load_plan(files.plan)
    repository = args.repo or plan.repository
    branch = plan.branch if args.branch is None else args.branch
    notebooks = files.root / "notebooks"
    try:
        for folder in (notebooks, notebooks / "en"):  # an unplanned notebook stops everything before any write
            course.planned_notebooks(plan, folder)
        if args.check:
            changed = repo_setting.out_of_date(repository, branch, files)
        else:
            written = repo_setting.apply(repository, branch, files)
            changed = [name for name in written if name != files.plan.name]
        changed += update(check=args.check, repository=repository, notebooks=notebooks, branch=branch)
    except ValueError as exc:  # an unplanned notebook, a malformed repository or branch name
        parser.error(str(exc))
    if repo_setting.is_placeholder(repository):
        print(
            f"note: the repository is still the placeholder {repo_setting.PLACEHOLDER}, so Binder links do not "
            f"open; {repo_setting.HOW_TO_SET}",
            file=sys.stderr,
        )
    elif args.repo or args.branch is not None:
        print(f"repository {repository}, branch {branch or '(default)'}: set in tools/course.toml")
    if args.check and changed:
        print("out of date (run `python -m tools.nav`):", ", ".join(changed))
        return 1
    print("updated:" if changed else "all notebooks up to date", ", ".join(changed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
