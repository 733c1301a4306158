"""The students' repository: what a Hub link (nbgitpuller) may hand out, without any worked solution.

    python -m tools.student_release --out build/student-release       # the students' repository as a folder
    python -m tools.student_release --branch student                  # ... committed as branch `student` of this
                                                                      #     repository (working tree untouched)
    python -m tools.student_release --stale student~1 --students DIR  # after a re-pull: who kept an old cell

The one-link Hub recipe pulled the whole repository, so every student got notebooks/solutions/ (and the teacher
guide with its answer key, and the graded assignments' rules). A release holds only what a student's Hub server
needs to run the course: the student copies of the notebooks (tools/make_student: answer cells reset, reveal outputs
cleared, solution cells removed), lnlib, the JupyterLab extension's build (share/), binder/ (the image recipe),
pyproject.toml, the licences and CITATION.cff, tools/labextension.py (for an editable install on a Hub) and a short
README for students. Nothing else is copied: not notebooks/solutions/, docs/, assignments/, tests/, the other tools.

`--branch NAME` commits the release onto branch NAME (a new commit on top of its last one, none when nothing
changed) through a temporary index: the teacher's checkout, index and HEAD are not touched. Push it where students
pull from (`git push origin student`, or `git push 学生仓库 student:main` for a separate, public students'
repository while the teacher's stays private) and make the link for it: `make hub-link HUB=… BRANCH=student`.

`--stale OLD` answers "who did not get my change?": nbgitpuller merges a re-pull with the student's side winning
where both changed the same lines, so a student who had run or edited a cell the teacher changed keeps the old cell.
For every cell (by its nbformat cell id) whose source differs between release OLD and the new one (`--new`, default
the branch's tip), it reads the students' notebooks in DIR (one folder per student, the notebooks anywhere below,
e.g. copied from the Hub's home directories) and lists each student whose cell still has the old source, or a
source of their own, instead of the new one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tools import course

DEFAULT_OUT = course.BUILD / "student-release"
ROOT = course.ROOT
# What a student's server needs, as paths of the teacher's repository (files git tracks under them).
SHIPPED = (
    "lnlib",
    "share",
    "binder",
    "pyproject.toml",
    "LICENSE",
    "LICENSE-content.md",
    "CITATION.cff",
    "tools/__init__.py",
    "tools/labextension.py",
)
NEVER = ("notebooks/solutions", "docs", "assignments", "tests")  # checked: no shipped path lies under these
README = """# LayerNorm 手算（学生版）

这是老师发给你的课程：从 `notebooks/00-index.ipynb`（课程地图）开始，按编号往下读。练习的答案写在 `%%answer`
那一行的下面再运行，它会告诉你对不对；参考答案由老师另行发放。

老师更新课程以后，再点一次老师给的链接就会拉取更新，你自己改过的内容会保留。课程代码采用 MIT 许可（`LICENSE`），
课程文字与图表采用 CC BY 4.0（`LICENSE-content.md`）。
"""
README_EN = """
**English**: the same course in English starts at `notebooks/en/00-index.ipynb` (the course map). Type your answer
under the `%%answer` line and run the cell: it tells you whether you are right; your teacher hands out the worked
answers. After your teacher updates the course, open their link again: you get the update and keep your own edits.
"""


def tracked_files(path: str, root: Path = ROOT) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", path],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [name for name in listed.split("\0") if name and (root / name).is_file()]


def build(out: Path = DEFAULT_OUT, *, quiet: bool = True) -> list[Path]:
    """Write the students' repository into `out` (emptied first); return every file written, sorted."""
    from tools import make_student  # needs nbformat: imported only here

    assert not any(p == n or p.startswith(n + "/") for p in SHIPPED for n in NEVER)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for path in SHIPPED:
        for name in tracked_files(path):
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, out / name)
    make_student.build(out / "notebooks", quiet=quiet)
    (out / "notebooks" / "README.md").unlink()  # the copies' own note is for a folder, not for this repository
    english = (out / "notebooks" / "en" / f"{course.INDEX_STEM}.ipynb").is_file()
    (out / "README.md").write_text(README + (README_EN if english else ""), encoding="utf-8")
    return sorted(p for p in out.rglob("*") if p.is_file())


def _git(*args: str, env: dict | None = None, root: Path = ROOT) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def commit_to_branch(tree_dir: Path, branch: str, root: Path = ROOT) -> tuple[str, bool]:
    """Commit the files of `tree_dir` as the whole tree of `branch` (created if missing), through a temporary
    index; return (commit, whether a new commit was made). HEAD, the index and the working tree stay as they were."""
    _git("check-ref-format", "--branch", branch, root=root)
    parent = subprocess.run(
        ["git", "rev-parse", "--verify", "-q", f"refs/heads/{branch}"], cwd=root, capture_output=True, text=True
    ).stdout.strip()
    source = _git("rev-parse", "--short", "HEAD", root=root)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _git(f"--work-tree={tree_dir}", "add", "--all", "--force", ".", env=env, root=root)
        tree = _git("write-tree", env=env, root=root)
    if parent and _git("rev-parse", f"{parent}^{{tree}}", root=root) == tree:
        return parent, False
    message = f"Student release from {source}: notebooks without solutions, lnlib, binder/\n"
    commit = _git("commit-tree", tree, *(["-p", parent] if parent else []), "-m", message, root=root)
    _git("update-ref", f"refs/heads/{branch}", commit, *([parent] if parent else []), root=root)
    return commit, True


# --- after a re-pull: which students kept an old version of a changed cell ---------------------------------------


@dataclass(frozen=True)
class Stale:
    student: str
    notebook: str
    cell: str  # the nbformat cell id
    kind: str  # "old": the release's old source; "own": a source of the student's own


def _cells(text: str) -> dict[str, str]:
    nb = json.loads(text)
    return {c["id"]: "".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in nb["cells"]}


def release_notebooks(rev: str, root: Path = ROOT) -> dict[str, dict[str, str]]:
    """{notebook path under notebooks/ ("03-….ipynb", "en/03-….ipynb"): {cell id: source}} of the release at git
    revision `rev`, both editions."""
    names = _git("ls-tree", "--name-only", f"{rev}:notebooks", root=root).splitlines()
    if "en" in names:
        names += [f"en/{n}" for n in _git("ls-tree", "--name-only", f"{rev}:notebooks/en", root=root).splitlines()]
    return {n: _cells(_git("show", f"{rev}:notebooks/{n}", root=root)) for n in names if n.endswith(".ipynb")}


def changed_cells(old: dict, new: dict) -> dict[str, dict[str, tuple[str, str]]]:
    """{notebook: {cell id: (old source, new source)}} for the cells of both releases whose source differs."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for name, cells in new.items():
        before = old.get(name, {})
        diff = {cid: (before[cid], src) for cid, src in cells.items() if cid in before and before[cid] != src}
        if diff:
            out[name] = diff
    return out


def stale_cells(changed: dict, students: Path) -> list[Stale]:
    """For each student folder of `students`, the changed cells their notebooks do not show in the new version."""
    found = []
    for folder in sorted(p for p in students.iterdir() if p.is_dir()):
        for name, cells in sorted(changed.items()):
            english = name.startswith("en/")  # the English twin has the same file name, in a folder en/
            for path in sorted(folder.rglob(Path(name).name)):
                if (path.parent.name == "en") != english:
                    continue
                try:
                    theirs = _cells(path.read_text(encoding="utf-8"))
                except (ValueError, KeyError):
                    continue  # not a notebook we can read: nothing to say about its cells
                for cid, (old, new) in cells.items():
                    if cid in theirs and theirs[cid] != new:
                        found.append(Stale(folder.name, name, cid, "old" if theirs[cid] == old else "own"))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=None, help=f"folder to write (default {DEFAULT_OUT})")
    parser.add_argument("--branch", help="commit the release onto this branch of the repository")
    parser.add_argument("--stale", metavar="OLD", help="git revision of an earlier release (e.g. student~1)")
    parser.add_argument("--new", help="the release to compare with (default: the branch's tip, --branch or student)")
    parser.add_argument("--students", type=Path, help="with --stale: one folder per student with their notebooks")
    args = parser.parse_args(argv)
    if args.stale:
        if not args.students or not args.students.is_dir():
            parser.error("--stale needs --students DIR (one folder per student)")
        new = args.new or args.branch or "student"
        changed = changed_cells(release_notebooks(args.stale), release_notebooks(new))
        count = sum(len(c) for c in changed.values())
        print(f"{count} cells changed from {args.stale} to {new}")
        for s in stale_cells(changed, args.students):
            what = "还是旧版本（老师的修改没有合并进来）" if s.kind == "old" else "是自己改过的版本（没有老师的新内容）"
            print(f"{s.student}\t{s.notebook}\t单元格 {s.cell}\t{what}")
        return 0
    out = args.out or (Path(tempfile.mkdtemp(prefix="student-release-")) if args.branch else DEFAULT_OUT)
    files = build(out)
    print(f"{len(files)} files in {out} (no notebooks/solutions/, docs/, assignments/, tests/)")
    if args.branch:
        commit, made = commit_to_branch(out, args.branch)
        print(f"branch {args.branch}: {'new commit' if made else 'unchanged'} {commit[:12]}")
        if not args.out:
            shutil.rmtree(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
