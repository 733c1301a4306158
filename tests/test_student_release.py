"""The students' repository (tools/student_release.py, issue 41 item 6): the one-link Hub recipe handed every student
notebooks/solutions/ (and the teacher guide's answer key); a release holds only what a student's server needs, can
be committed onto a branch without touching the teacher's checkout, and tells the teacher after a re-pull which
students kept an old version of a changed cell."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tools import course, student_release

SOLUTION_NAMES = [p.name for p in course.SOLUTIONS.glob("*.py")]


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("release") / "student"
    student_release.build(out)
    return out


def test_a_release_holds_no_solution_and_no_teacher_material(release):
    names = {p.relative_to(release).as_posix() for p in release.rglob("*") if p.is_file()}
    assert SOLUTION_NAMES, "no solutions to look for"
    assert not any(n.startswith(("notebooks/solutions", "docs/", "assignments/", "tests/")) for n in names), names
    assert not any(Path(n).name in SOLUTION_NAMES for n in names)
    text = "\n".join((release / n).read_text(encoding="utf-8", errors="replace") for n in names)
    assert "answer-key:start" not in text and "ANSWERS = " not in text  # the guide's answer key, the solution files


def test_a_release_holds_what_a_students_server_needs(release):
    planned = [path.name for _, path in course.planned_notebooks()]
    assert sorted(p.name for p in (release / "notebooks").glob("*.ipynb")) == sorted(planned)
    for name in ("binder/postBuild", "binder/requirements.txt", "pyproject.toml", "README.md", "LICENSE"):
        assert (release / name).is_file(), name
    for path in course.ROOT.joinpath("lnlib").rglob("*.py"):
        assert (release / path.relative_to(course.ROOT)).read_bytes() == path.read_bytes(), path
    built = course.ROOT / "share" / "jupyter" / "labextensions" / "lnlib-alt-text" / "package.json"
    assert (release / built.relative_to(course.ROOT)).is_file()
    # the student copies: every answer cell reset (no worked answer under a %%answer line)
    nb = json.loads((release / "notebooks" / "03-one-row-by-hand.ipynb").read_text(encoding="utf-8"))
    answers = ["".join(c["source"]) for c in nb["cells"] if "".join(c["source"]).startswith("%%answer")]
    assert answers and all(src.rstrip().endswith(course.PLACEHOLDER) for src in answers), answers[:2]


def test_a_release_installs_as_binder_and_a_hub_install_it(release, tmp_path):
    """postBuild and the Hub recipe run `pip install .` in it: its wheel builds."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), "."],
        cwd=release,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert list(tmp_path.glob("lnlib-*.whl"))


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def repo(tmp_path) -> Path:
    """A teacher's repository with one commit on main."""
    root = tmp_path / "teacher"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.edu")
    git(root, "config", "user.name", "teacher")
    (root / "course.txt").write_text("main\n", encoding="utf-8")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "course")
    return root


def test_the_branch_is_committed_without_touching_the_checkout(release, repo):
    head, status = git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain")
    commit, made = student_release.commit_to_branch(release, "student", root=repo)
    assert made and git(repo, "rev-parse", "student") == commit
    files = git(repo, "ls-tree", "-r", "--name-only", "student").splitlines()
    assert "notebooks/00-index.ipynb" in files and not any(f.startswith("notebooks/solutions") for f in files)
    assert "course.txt" not in files  # the branch is the release alone
    assert git(repo, "rev-parse", "HEAD") == head and git(repo, "status", "--porcelain") == status
    assert student_release.commit_to_branch(release, "student", root=repo) == (commit, False)  # nothing new


def notebook(cells: dict[str, str]) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": "code", "id": cid, "metadata": {}, "source": src, "outputs": [], "execution_count": None}
                for cid, src in cells.items()
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def test_after_a_re_pull_the_teacher_sees_who_kept_an_old_cell(repo, tmp_path):
    """Release 1, then release 2 changes cell b; students: one re-pulled cleanly, one kept the old cell (nbgitpuller
    lets the student's side win where both changed), one wrote their own; one has not opened the notebook."""
    tree = tmp_path / "tree"
    (tree / "notebooks").mkdir(parents=True)
    page = tree / "notebooks" / "03-x.ipynb"
    page.write_text(notebook({"a": "x = 1", "b": "print(x)"}), encoding="utf-8")
    student_release.commit_to_branch(tree, "student", root=repo)
    page.write_text(notebook({"a": "x = 1", "b": "print(x + 1)"}), encoding="utf-8")
    student_release.commit_to_branch(tree, "student", root=repo)

    old = student_release.release_notebooks("student~1", root=repo)
    new = student_release.release_notebooks("student", root=repo)
    changed = student_release.changed_cells(old, new)
    assert changed == {"03-x.ipynb": {"b": ("print(x)", "print(x + 1)")}}

    students = tmp_path / "students"
    for name, b in (("s1", "print(x + 1)"), ("s2", "print(x)"), ("s3", "print(x * 2)")):
        (students / name / "course" / "notebooks").mkdir(parents=True)
        (students / name / "course" / "notebooks" / "03-x.ipynb").write_text(notebook({"a": "x = 1", "b": b}))
    (students / "s4").mkdir()
    found = student_release.stale_cells(changed, students)
    assert [(s.student, s.cell, s.kind) for s in found] == [("s2", "b", "old"), ("s3", "b", "own")]


def test_the_readme_and_the_guide_hand_out_the_students_branch():
    readme = (course.ROOT / "README.md").read_text(encoding="utf-8")
    guide = (course.ROOT / "docs" / "teacher-guide.md").read_text(encoding="utf-8")
    recipe = readme[readme.index("**老师：给全班一个链接。**") :].split("\n\n**")[0]
    assert "make student-release BRANCH=student" in recipe and "BRANCH=student" in recipe.split("hub-link", 1)[1]
    assert "make student-release" in guide and "make stale-cells" in guide
