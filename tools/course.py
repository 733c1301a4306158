"""The course model shared by every tool and test: where things are, which notebooks exist, and the plan.

The plan (series title, repository, licence note, one entry per lesson in order) is data in tools/course.toml.
One rule for every tool: a lesson in the plan whose notebook is not written yet is shown as 即将推出 (listed, not
linked, skipped when building); a notebook in notebooks/ that the plan does not list is an error
(`UnplannedNotebookError`, a ValueError naming the file), raised before any tool writes anything.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only annotations need it: the tools that read no notebook (hub_link) run on any Python 3.11+
    import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = NOTEBOOKS / "solutions"
# The editions: the Chinese notebooks are the source; the English edition (notebooks/en/, the same file names and
# cells) follows them, each English notebook recording the Chinese revision it follows (tools/edition.py).
EDITIONS = ("zh", "en")
EDITION_FOLDERS = {"zh": NOTEBOOKS, "en": NOTEBOOKS / "en"}
BUILD = ROOT / "build"
PLAN_FILE = Path(__file__).resolve().with_name("course.toml")

NOTEBOOK_GLOB = "[0-9][0-9]-*.ipynb"  # notebooks/NN-slug.ipynb; solutions/, checkpoints and scratch files are not
INDEX_STEM = "00-index"
# An exercise cell starts with the cell magic of lnlib.answers; its body is the learner's raw answer:
#     %%answer NN.name                 %%code_exercise NN.name
#     # 在下面一行写答案                  def f(...):
#                                          ...  # 在这里填写
ANSWER_MAGIC = "%%answer"
CODE_MAGIC = "%%code_exercise"
# The body of an unanswered %%answer cell (IPython refuses an empty body), per edition: the Chinese notebooks
# (notebooks/NN-slug.ipynb) and the English ones (notebooks/en/NN-slug.ipynb, metadata lnlib.edition = "en").
PLACEHOLDERS = {"zh": "# 在下面一行写答案", "en": "# write your answer on the line below"}
PLACEHOLDER = PLACEHOLDERS["zh"]
CHECK_CALL = re.compile(r"\A%%answer[ \t]+([0-9]{2}\.[a-z0-9_]+)[ \t]*$", re.M)
FUNCTION_CALL = re.compile(r"\A%%code_exercise[ \t]+([0-9]{2}\.[a-z0-9_]+)[ \t]*$", re.M)
REVEAL_TAG = "reveal"  # a code cell whose output shows a predict cell's answer (folded until the learner asks)
# A reveal cell's first line names the predict exercise it reveals; it shows its output once that one was tried:
#     %%reveal NN.name
REVEAL_MAGIC = "%%reveal"
REVEAL_CALL = re.compile(r"\A%%reveal[ \t]+([0-9]{2}\.[a-z0-9_]+)[ \t]*$", re.M)
REVEAL_SUMMARY = "想好了再展开：答案"  # the summary of the site's fold around a reveal cell's output
# The summary of a markdown <details> block with a predict's worked derivation. It sits after the predict's first
# `%%reveal` cell, never between the question and it: one click must not give the answer away before answering.
DERIVATION_SUMMARY = "核对之后再展开：推导过程"


def answer_placeholder(name: str, edition: str = "zh") -> str:
    """The source of an unanswered %%answer cell in the notebooks of `edition` ("zh" or "en")."""
    return f"{ANSWER_MAGIC} {name}\n{PLACEHOLDERS[edition]}"


def edition_of(nb: nbformat.NotebookNode) -> str:
    """The edition of a notebook: its metadata `lnlib.edition` ("en"), else the Chinese source edition "zh"."""
    found = nb.metadata.get("lnlib", {}).get("edition", "zh")
    if found not in EDITIONS:
        raise ValueError(f"metadata lnlib.edition: expected one of {', '.join(EDITIONS)}, got {found!r}")
    return found


def is_placeholder(line: str) -> bool:
    """Whether a line is the placeholder comment of an unanswered answer cell, in any edition."""
    return line.strip() in PLACEHOLDERS.values()


REPOSITORY_FORMAT = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
PLACEHOLDER_REPOSITORY = "OWNER/REPO"
BRANCH_FORMAT = re.compile(r"(?:[A-Za-z0-9_.][A-Za-z0-9_./-]*)?")  # "" = the repository's default branch


@dataclass(frozen=True)
class Lesson:
    stem: str  # file name without .ipynb
    title: str
    summary: str  # one line for the course map and the README
    goals: tuple[str, ...] = ()
    english: tuple[str, str, tuple[str, ...]] | None = None  # title_en, summary_en, goals_en of course.toml

    @property
    def number(self) -> int:
        return int(self.stem[:2])

    def in_edition(self, edition: str) -> Lesson:
        """The lesson with its title, summary and goals in the words of `edition` ("zh" or "en")."""
        if edition == "zh":
            return self
        if edition != "en" or self.english is None:
            raise ValueError(f"{PLAN_FILE.name}: lesson {self.stem} has no title_en/summary_en for edition {edition!r}")
        return Lesson(self.stem, *self.english, english=self.english)


@dataclass(frozen=True)
class Plan:
    title: str
    repository: str  # "owner/name" on GitHub
    license_note: str
    lessons: tuple[Lesson, ...]
    branch: str = ""  # "" = the repository's default branch (Binder's HEAD; nbgitpuller picks it too)
    title_en: str = ""
    license_note_en: str = ""

    def title_in(self, edition: str) -> str:
        return self.title_en if edition == "en" else self.title

    def license_note_in(self, edition: str) -> str:
        return self.license_note_en if edition == "en" else self.license_note

    @property
    def stems(self) -> list[str]:
        return [lesson.stem for lesson in self.lessons]

    def lesson(self, stem: str) -> Lesson:
        for lesson in self.lessons:
            if lesson.stem == stem:
                return lesson
        raise UnplannedNotebookError([stem])


class UnplannedNotebookError(ValueError):
    """A notebook exists that the plan (tools/course.toml) does not list."""

    def __init__(self, stems: list[str]):
        self.stems = stems
        super().__init__(
            f"notebooks not in the course plan tools/course.toml: {', '.join(stems)} "
            "(add a [[lesson]] entry for each, in course order)"
        )


def load_plan(path: Path = PLAN_FILE) -> Plan:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    lessons = tuple(
        Lesson(
            x["stem"],
            x["title"],
            x["summary"],
            tuple(x.get("goals", ())),
            (x["title_en"], x["summary_en"], tuple(x.get("goals_en", ()))) if "title_en" in x else None,
        )
        for x in data["lesson"]
    )
    return Plan(
        data["title"],
        data["repository"],
        data["license_note"],
        lessons,
        data.get("branch", ""),
        data.get("title_en", ""),
        data.get("license_note_en", ""),
    )


def notebook_paths(folder: Path = NOTEBOOKS) -> list[Path]:
    """Every notebooks/NN-slug.ipynb, in file-name order (which the plan's order must match)."""
    return sorted(folder.glob(NOTEBOOK_GLOB))


def planned_notebooks(plan: Plan | None = None, folder: Path = NOTEBOOKS) -> list[tuple[Lesson, Path]]:
    """(lesson, path) for every notebook that exists, in course order; UnplannedNotebookError for a stray one."""
    plan = plan or PLAN
    present = {p.stem: p for p in notebook_paths(folder)}
    unknown = sorted(set(present) - set(plan.stems))
    if unknown:
        raise UnplannedNotebookError(unknown)
    return [(lesson, present[lesson.stem]) for lesson in plan.lessons if lesson.stem in present]


def solution_path(stem: str, folder: Path = SOLUTIONS) -> Path:
    """The worked answers of notebook `stem`: notebooks/solutions/NN-slug.py (a dict ANSWERS)."""
    return folder / f"{stem}.py"


def solution_paths(folder: Path = SOLUTIONS) -> list[Path]:
    return sorted(folder.glob("[0-9][0-9]-*.py"))


def exercise_names(nb: nbformat.NotebookNode) -> list[str]:
    """The exercise names checked in a notebook, in order of appearance."""
    return [name for c in nb.cells if c.cell_type == "code" for name in CHECK_CALL.findall(c.source)]


def function_exercise_names(nb: nbformat.NotebookNode) -> list[str]:
    """The code exercises (`lnlib.check_function`) of a notebook, in order of appearance."""
    return [name for c in nb.cells if c.cell_type == "code" for name in FUNCTION_CALL.findall(c.source)]


def set_repository(repository: str, path: Path = PLAN_FILE, *, branch: str = "") -> None:
    """Write `repository = "owner/name"` and `branch = "…"` into the plan file (top-level keys; comments kept)."""
    if not REPOSITORY_FORMAT.fullmatch(repository):
        raise ValueError(f"repository: expected 'owner/name', got {repository!r}")
    if not BRANCH_FORMAT.fullmatch(branch) or ".." in branch or branch.endswith(("/", ".lock")):
        raise ValueError(f"branch: expected a git branch name or '' (the default branch), got {branch!r}")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    top = next((i for i, line in enumerate(lines) if line.startswith("[")), len(lines))  # before the first table
    for key, value in (("repository", repository), ("branch", branch)):
        hits = [i for i in range(top) if re.match(rf"{key}\s*=", lines[i])]
        if len(hits) != 1:
            raise ValueError(f"{path.name}: expected one top-level `{key} = ...` line, found {len(hits)}")
        lines[hits[0]] = f'{key} = "{value}"\n'
    text = "".join(lines)
    data = tomllib.loads(text)
    if (data["repository"], data["branch"]) != (repository, branch):  # pragma: no cover - guards the line edit
        raise ValueError(f"{path.name}: could not set repository")
    path.write_text(text, encoding="utf-8")


PLAN = load_plan()
# Short names for the plan's fields (most tools need only these).
SERIES_TITLE = PLAN.title
REPOSITORY = PLAN.repository
BRANCH = PLAN.branch
LICENSE_NOTE = PLAN.license_note
LESSONS = PLAN.lessons
