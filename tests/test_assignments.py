"""Graded assignments (issue 29): `make assignments` for 03 and 07, then `make grade` on synthetic submissions.

One build and one grading run (11 kernels, two at a time) serve every test; the grade sheet is compared with one
written by hand. The students: all right, all wrong (each answer a named mistake), and one per hostile case — a cell
that raises, an infinite loop, a loop that ignores the interrupt, edited and deleted locked cells, a redefined
`check` (and lnlib, reading the secret, writing the grade sheet), garbage bytes, an empty file, nothing handed in.
Expected values come from the closed forms below (numpy), never from the grader's own output.
"""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import answer_cell, type_answer, type_right_answers, typed_numbers

pytest.importorskip("nbgrader", reason="the teacher's extra (requirements-teacher.txt; make test installs it)")

import nbformat  # noqa: E402

import assignments  # noqa: E402
from lnlib.answers import body_text  # noqa: E402
from tools import assignments as build_tool  # noqa: E402
from tools import grade as grade_tool  # noqa: E402
from tools import sandbox as sandbox_tool  # noqa: E402

SECRET = "test-secret-not-for-real-use"
ROSTER = ["right", "wrong", "raises", "loop", "wedged", "edited", "deleted", "hacker", "garbage", "empty", "absent"]
ROSTER += ["copier", "typos"]
HEADER = "student,03.mean,03.variance,03.xhat,03.diagnose,07.layer_norm,07.y,07.shape_mu,07.predict,total,sandbox"
EXPECTED = {  # written by hand: points per question (03: 1 each; 07.layer_norm: 2, the others 1)
    "absent": "0,0,0,0,0,0,0,0,0",
    "copier": "0,0,0,0,0,0,0,0,0",  # 03 only: hands in the worked notebook of "right", whose numbers are not its own
    "deleted": "0,0,0,0,2,1,0,1,4",  # 07 only; its data cell deleted (the grader uses the release's); shape_mu deleted
    "edited": "1,1,1,1,0,0,0,0,4",  # 03 only; x edited to [2, 4, 6, 8]: the grader uses the student's own row
    "empty": "0,0,0,0,0,0,0,0,0",
    "garbage": "0,0,0,0,0,0,0,0,0",
    "hacker": "0,0,0,0,0,0,0,0,0",
    "loop": "0,0,0,0,0,1,1,1,3",  # 07 only; the function loops forever
    "raises": "0,0,0,0,0,1,1,1,3",  # 07 only; the function divides by zero
    "right": "1,1,1,1,2,1,1,1,9",
    "stranger": "0,0,0,0,0,0,0,0,0",  # not on the roster; an empty file
    "typos": "1,1,1,1,2,1,1,1,9",  # full-width digits, Chinese commas, 「」 around words, the old `mu = …` form
    "wedged": "0,0,0,0,0,1,1,1,3",  # 07 only; the function cell ignores the time limit: killed, the rest counts
    "wrong": "0,0,0,0,0,0,0,0,0",
}
CELL_TIMEOUT = 3  # seconds a function cell may run at its top level; each call of the function has 5 s


def _variant(student: str, number: str) -> dict:
    return assignments.load()[number].variant(assignments.rng_for(student, number, SECRET.encode()))


def _set(nb, grade_id: str, source: str) -> None:
    answer_cell(nb, grade_id).source = source


def _drop(nb, grade_id: str) -> None:
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != grade_id]


def _release(built: Path, student: str, filename: str):
    return nbformat.read(built / "release" / student / filename, as_version=4)


H03, H07 = "hw03-one-row-by-hand.ipynb", "hw07-full-formula.ipynb"
RIGHT_LN = (
    "%%code_exercise hw07.layer_norm\nimport numpy as np\n\ndef layer_norm(x, gamma, beta, eps=1e-5):\n"
    "    x = np.asarray(x, dtype=float)\n    mu = x.mean(axis=-1, keepdims=True)\n"
    "    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)\n"
    "    return gamma * (x - mu) / np.sqrt(var + eps) + beta"
)


def _right_03(nb, student: str) -> None:
    type_right_answers(nb, _variant(student, "03"))


def _right_07(nb, student: str) -> None:
    _set(nb, "layer_norm", RIGHT_LN)
    type_right_answers(nb7=nb, v7=_variant(student, "07"))


def _write(nb, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def _submissions(built: Path, folder: Path, out: Path) -> None:
    # all right: the teacher's source notebooks (worked answers)
    for name in (H03, H07):
        _write(nbformat.read(built / "source" / "right" / name, as_version=4), folder / "right" / name)
    # all wrong, each answer a typical mistake
    v3, v7 = _variant("wrong", "03"), _variant("wrong", "07")
    x = v3["x"]
    nb = _release(built, "wrong", H03)
    type_answer(nb, "mean", typed_numbers(x.sum()))  # forgot to divide by d
    type_answer(nb, "variance", typed_numbers(np.var(x, ddof=1)))  # ÷ (d − 1)
    type_answer(nb, "xhat", typed_numbers((x - x.mean()) / np.var(x)))  # forgot the square root
    type_answer(nb, "diagnose", "b" if v3["way"] != "b" else "a")
    _write(nb, folder / "wrong" / H03)
    nb = _release(built, "wrong", H07)
    _set(
        nb,
        "layer_norm",
        RIGHT_LN.replace("((x - mu) ** 2).mean(axis=-1, keepdims=True)", "x.var(axis=-1, ddof=1, keepdims=True)"),
    )
    xs = v7["x"]
    type_answer(nb, "y", typed_numbers(v7["gamma"] * (xs - xs.mean()) / xs.std()))  # forgot β
    type_answer(nb, "shape_mu", str(v7["shape"]))  # the input's own shape
    type_answer(nb, "predict", "会变" if v7["scale"] > 0 else "不变")
    _write(nb, folder / "wrong" / H07)
    # a function that raises: only that question is lost, the line named
    nb = _release(built, "raises", H07)
    _right_07(nb, "raises")
    _set(nb, "layer_norm", RIGHT_LN.replace("    x = np.asarray", "    t = 1 / 0\n    x = np.asarray"))
    _write(nb, folder / "raises" / H07)
    # a function that loops forever
    nb = _release(built, "loop", H07)
    _right_07(nb, "loop")
    _set(nb, "layer_norm", RIGHT_LN.replace("    x = np.asarray", "    while True:\n        pass\n    x = np.asarray"))
    _write(nb, folder / "loop" / H07)
    # a function cell that ignores the time limit at its top level: killed at its deadline
    nb = _release(built, "wedged", H07)
    _right_07(nb, "wedged")
    _set(
        nb,
        "layer_norm",
        RIGHT_LN + "\nimport signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True:\n    pass",
    )
    _write(nb, folder / "wedged" / H07)
    # the locked data cell edited (the formative row of notebook 03) and the end check deleted
    nb = _release(built, "edited", H03)
    _set(nb, "03-data", "x = [2, 4, 6, 8]")
    _right_03(nb, "edited")
    _drop(nb, "03-check")
    _write(nb, folder / "edited" / H03)
    # the data cell deleted, an answer cell deleted (0 for it)
    nb = _release(built, "deleted", H07)
    _right_07(nb, "deleted")
    _drop(nb, "07-data")
    _drop(nb, "shape_mu")
    _write(nb, folder / "deleted" / H07)
    # redefines check and lnlib, writes the grade sheet, reads the secret (in cells that never run, and in its
    # function, which runs sealed off); its answers are wrong
    nb = _release(built, "hacker", H07)
    hack = (
        "import lnlib, builtins\n"
        "def check(*args, **kwargs):\n    print('✓ 正确！')\n    return True\n"
        "lnlib.check = lnlib.check_function = builtins.check = check\n"
        f"open({str(out / 'grades.csv')!r}, 'w').write('hacker,9,9,9,9,9,9,9,9,99\\n')"
    )
    nb.cells.insert(0, nbformat.v4.new_code_cell(hack))
    _set(
        nb,
        "layer_norm",
        "%%code_exercise hw07.layer_norm\nimport os\n"
        "def layer_norm(x, gamma, beta, eps=1e-5):\n"
        f"    return os.environ.get({assignments.SECRET_ENV!r}, 'no secret')\n"
        + hack.replace(
            "import lnlib, builtins", "import builtins\ntry:\n    import lnlib\nexcept Exception:\n    pass"
        ),
    )
    type_answer(nb, "y", "0, 0, 0, 0")
    type_answer(nb, "predict", "✓ 正确！")
    _write(nb, folder / "hacker" / H07)
    # a classmate's worked notebook handed in as one's own: the numbers are the classmate's, not its own
    _write(nbformat.read(built / "source" / "right" / H03, as_version=4), folder / "copier" / H03)
    # typed as people type: full-width digits, Chinese commas and 顿号, 「」 around a word, the old `name = …` form
    v3, v7 = _variant("typos", "03"), _variant("typos", "07")
    nb = _release(built, "typos", H03)
    _right_03(nb, "typos")
    full_width = str.maketrans("0123456789.", "０１２３４５６７８９．")
    type_answer(nb, "mean", typed_numbers(v3["x"].mean()).translate(full_width))
    type_answer(nb, "variance", f"var = {float(v3['x'].var())!r}")
    x = v3["x"]
    type_answer(nb, "xhat", "[" + "，".join(f"{t:.4f}" for t in (x - x.mean()) / x.std()) + "]")
    type_answer(nb, "diagnose", f'"「{v3["way"]}」"')
    _write(nb, folder / "typos" / H03)
    nb = _release(built, "typos", H07)
    _right_07(nb, "typos")
    xs = v7["x"]
    type_answer(nb, "y", "、".join(f"{t:.4f}" for t in v7["gamma"] * (xs - xs.mean()) / xs.std() + v7["beta"]))
    type_answer(nb, "predict", "「不变」" if v7["scale"] > 0 else "「会变」")
    _write(nb, folder / "typos" / H07)
    (folder / "stranger").mkdir()
    (folder / "stranger" / H03).write_bytes(b"")
    # not notebooks at all
    (folder / "garbage").mkdir()
    (folder / "garbage" / H03).write_bytes(bytes(range(256)) * 4)
    (folder / "empty").mkdir()
    (folder / "empty" / H07).write_bytes(b"")
    # not a submission: a file, and a folder with no assignment in it (both skipped and named, no row of zeros)
    (folder / "README.txt").write_text("not a submission", encoding="utf-8")
    (folder / "misc").mkdir()
    (folder / "misc" / "notes.txt").write_text("scratch", encoding="utf-8")


SANDBOX = grade_tool.Sandbox(grade_tool.RUNNER)
if SANDBOX.unusable():  # the grading logic is the same; tests/test_grading_hostile.py needs the real sandbox
    SANDBOX = grade_tool.Sandbox(grade_tool.RUNNER, sealed=False)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("grading")
    os.environ[assignments.SECRET_ENV] = SECRET
    try:
        roster = root / "roster.txt"
        roster.write_text("\n".join(ROSTER) + "\n", encoding="utf-8")
        built = root / "assignments"
        assert build_tool.main(["--notebooks", "03", "07", "--roster", str(roster), "--out", str(built)]) == 0
        folder, out = root / "submissions", root / "grades"
        folder.mkdir()
        _submissions(built, folder, out)
        manifest = built / "autograder" / "manifest.json"
        skipped = grade_tool.grade_folder(folder, out, manifest, CELL_TIMEOUT, 2, SANDBOX)
        yield built, out, skipped
    finally:
        os.environ.pop(assignments.SECRET_ENV, None)


def test_grade_sheet_is_exactly_the_hand_written_one(graded):
    _, out, skipped = graded
    lines = (out / "grades.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == HEADER
    mode = grade_tool.SEALED if SANDBOX.sealed else grade_tool.UNSEALED
    assert lines[1:] == [f"{s},{EXPECTED[s]},{mode}" for s in sorted(EXPECTED)]
    for s, row in EXPECTED.items():  # the hand-written totals add up
        *points, total = map(int, row.split(","))
        assert sum(points) == total, s
    assert skipped == ["README.txt", "misc"]


def _feedback(out: Path, student: str) -> str:
    return (out / "feedback" / f"{student}.md").read_text(encoding="utf-8")


def test_feedback_names_the_mistakes(graded):
    _, out, _ = graded
    wrong = _feedback(out, "wrong")
    assert "总分：0 / 9" in wrong and "：✗" not in wrong
    for named in (
        "只加起来，忘了除以 d",
        "除以了 d − 1（无偏方差）：LayerNorm 的方差除以 d",
        "忘了开平方根",
        "忘了加 β",
        "这是输入自己的形状",
        "问题多半在这里：方差除以了 d − 1",  # layer_norm: the ÷ (d − 1) wrong way of lnlib.code_exercises, named
    ):
        assert named in wrong, named
    assert "总分：9 / 9" in _feedback(out, "right") and "✗" not in _feedback(out, "right")


def test_hostile_submissions_are_graded_and_explained(graded):
    _, out, _ = graded
    assert "ZeroDivisionError: division by zero（你的函数第 2 行）" in _feedback(out, "raises")
    assert "函数运行了 5 秒还没结束" in _feedback(out, "loop")
    assert "运行这个单元格超过了时间上限" in _feedback(out, "wedged")
    assert "`03-data` 被改动过" in _feedback(out, "edited") and "`03-check` 被删除了" in _feedback(out, "edited")
    assert "`07-data` 被删除了" in _feedback(out, "deleted") and "答案单元格 `shape_mu` 不见了" in _feedback(
        out, "deleted"
    )
    assert "不是一个 Jupyter notebook" in _feedback(out, "garbage")
    assert "不是一个 Jupyter notebook" in _feedback(out, "empty")
    assert "没有找到提交的" in _feedback(out, "absent")
    assert "`03-data` 被改动过" in _feedback(out, "copier")
    assert "不在名单上" in _feedback(out, "stranger") and "不在名单上" not in _feedback(out, "copier")
    with open(out / "grades.csv", encoding="utf-8") as f:
        hacker = next(r for r in csv.reader(f) if r[0] == "hacker")
    assert hacker[-2] == "0"
    hacked = _feedback(out, "hacker")
    assert "FileNotFoundError" in hacked and SECRET not in hacked  # the grade sheet is not there to be written


def test_typed_answers_are_read_as_the_course_reads_them(graded):
    """Full-width digits, Chinese commas and 顿号, 「」 around a word (G5) and the old `var = …` form all count."""
    _, out, _ = graded
    typos = _feedback(out, "typos")
    assert "总分：9 / 9" in typos and "✗" not in typos, typos


def _answers(student: str) -> list[str]:
    """Each student's graded answers as the worked solution writes them (6 significant digits), those with at least
    four decimals: a short one such as 8.5 appears in any text about numbers and proves nothing."""
    from lnlib.grading import show_number

    v3, v7 = _variant(student, "03"), _variant(student, "07")
    x = v3["x"]
    xhat = (x - x.mean()) / x.std()
    xs = v7["x"]
    y = v7["gamma"] * (xs - xs.mean()) / xs.std() + v7["beta"]
    values = [x.mean(), x.var(), *xhat, *y]
    shown = {show_number(t, 6) for t in values}
    return sorted(t for t in shown if len(t.partition(".")[2]) >= 4)


def test_no_graded_answer_in_the_release_or_the_students_lnlib(graded):
    built, _, _ = graded
    import lnlib

    files = sorted((built / "release").rglob("*.ipynb"))
    assert len(files) == 2 * len(ROSTER)  # every student of the roster, both assignments
    release = "\n".join(p.read_text(encoding="utf-8") for p in files)
    release += "\n".join(c.source for p in files for c in nbformat.read(p, as_version=4).cells)
    package = "\n".join(p.read_text(encoding="utf-8") for p in Path(lnlib.__file__).parent.rglob("*.py"))
    assert "BEGIN SOLUTION" not in release and "def layer_norm(x, gamma, beta, eps=1e-5):\n    ..." in release
    source = (built / "source" / "right" / H03).read_text(encoding="utf-8")
    for student in ROSTER:
        answers = _answers(student)
        assert answers, student
        assert any(a in source for a in _answers("right"))  # the search can find an answer where there is one
        for a in answers:
            assert a not in release, (student, a)
            assert a not in package, (student, a)


def test_release_and_source_are_valid_nbgrader_notebooks(graded):
    """nbgrader's own metadata check accepts both (so its formgrader and exchange can take them); the release has
    every answer cell cleared to the stub and every other cell locked."""
    from nbgrader.preprocessors import CheckCellMetadata

    built, _, _ = graded
    for part in ("source", "release"):
        for path in sorted((built / part / "right").glob("*.ipynb")):
            CheckCellMetadata().preprocess(nbformat.read(path, as_version=4), {})
    nb = _release(built, "right", H03)
    answers = [c for c in nb.cells if c.metadata["nbgrader"]["solution"]]
    assert [c.metadata["nbgrader"]["grade_id"] for c in answers] == ["mean", "variance", "xhat", "diagnose"]
    assert all(c.source.startswith(f"%%answer hw03.{c.metadata['nbgrader']['grade_id']}\n") for c in answers)
    assert all(body_text(c.source.split("\n", 1)[1]) == "" for c in answers)  # nothing typed yet, no `...`
    assert all(c.metadata.get("editable") is False for c in nb.cells if c not in answers)


def test_the_teacher_folder_is_not_importable_by_a_student(tmp_path):
    code = "import importlib.util, sys; sys.exit(importlib.util.find_spec('assignments') is not None)"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    assert subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, check=False).returncode == 0


def test_numbers_differ_per_student_and_from_the_lessons():
    from lnlib.data import TOKEN_MATRIX

    rows = {tuple(_variant(s, "03")["x"].tolist()) for s in ROSTER}
    assert len(rows) >= len(ROSTER) - 1  # 10 students, 4 numbers each from 1..15: a repeat is very unlikely
    assert not rows & ({tuple(r) for r in TOKEN_MATRIX.tolist()} | {(3.0, 5.0, 6.0, 10.0)})


def test_bad_roster_and_missing_secret_are_clear_errors(tmp_path, monkeypatch):
    roster = tmp_path / "r.txt"
    roster.write_text("ok-1\n../etc\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^student: expected an id"):
        build_tool.read_roster(roster)
    monkeypatch.delenv(assignments.SECRET_ENV, raising=False)
    monkeypatch.setenv(assignments.SECRET_FILE_ENV, str(tmp_path / "none"))
    with pytest.raises(RuntimeError, match="no grading secret"):
        assignments.secret()


def test_without_a_sandbox_the_grader_refuses_unless_told(graded, tmp_path, monkeypatch, capsys):
    """No bubblewrap: `python -m tools.grade` stops with the reason and the way out; --unsafe-no-sandbox grades,
    and the grade sheet and every feedback file say so."""
    built, _, _ = graded
    monkeypatch.setenv(assignments.SECRET_ENV, SECRET)
    monkeypatch.setattr(sandbox_tool.shutil, "which", lambda name: None)
    folder = tmp_path / "subs"
    _write(nbformat.read(built / "source" / "right" / H07, as_version=4), folder / "right" / H07)
    args = [str(folder), "--assignments", str(built), "--out", str(tmp_path / "out")]
    assert grade_tool.main(args) == 2
    assert "bubblewrap (bwrap) is not installed" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    assert grade_tool.main([*args, "--unsafe-no-sandbox"]) == 0
    with open(tmp_path / "out" / "grades.csv", encoding="utf-8") as f:
        rows = {r[0]: r for r in csv.reader(f)}
    assert rows["right"][-2:] == ["5", grade_tool.UNSEALED]  # 07 in full (5 points), 03 not handed in
    assert all(r[-1] == grade_tool.UNSEALED for s, r in rows.items() if s != "student")
    assert str(grade_tool.UNSAFE_NOTE) in (tmp_path / "out" / "feedback" / "right.md").read_text(encoding="utf-8")


def test_a_fault_of_the_grader_costs_one_submission_only(graded, tmp_path, monkeypatch):
    built, _, _ = graded
    monkeypatch.setenv(assignments.SECRET_ENV, SECRET)
    folder = tmp_path / "subs"
    for student in ("right", "edited"):
        _write(nbformat.read(built / "source" / student / H03, as_version=4), folder / student / H03)
    real = grade_tool.submission.read

    def read(path):
        if path.parent.name == "edited":
            raise KeyError("a bug")
        return real(path)

    monkeypatch.setattr(grade_tool.submission, "read", read)
    grade_tool.grade_folder(folder, tmp_path / "out", built / "autograder" / "manifest.json", CELL_TIMEOUT, 1, SANDBOX)
    with open(tmp_path / "out" / "grades.csv", encoding="utf-8") as f:
        totals = {r[0]: r[-2] for r in csv.reader(f)}
    assert totals["right"] == "4" and totals["edited"] == "0"  # 03 in full; 07 handed in by neither
    edited = (tmp_path / "out" / "feedback" / "edited.md").read_text(encoding="utf-8")
    assert "批改程序在这份作业上出错了" in edited


# ---------------------------------------------------------------- the same class graded in English (issue 43)

CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


@pytest.fixture(scope="module")
def graded_en(graded):
    """The same submissions (the assignments built in Chinese) graded again with the feedback in English."""
    built, out, _ = graded
    os.environ[assignments.SECRET_ENV] = SECRET
    try:
        out_en = out.parent / "grades-en"
        manifest = built / "autograder" / "manifest.json"
        sheet = (out / "grades.csv").read_bytes()  # unsealed, "hacker" writes over it while the English run grades
        skipped = grade_tool.grade_folder(out.parent / "submissions", out_en, manifest, CELL_TIMEOUT, 2, SANDBOX, "en")
        yield sheet, out, out_en, skipped
    finally:
        os.environ.pop(assignments.SECRET_ENV, None)


def test_english_grading_gives_the_same_grade_sheet(graded_en):
    sheet, _, out_en, skipped = graded_en
    assert (out_en / "grades.csv").read_bytes() == sheet  # no words in the sheet
    assert skipped == ["README.txt", "misc"]


# Each mistake the Chinese feedback of "wrong" names (test_feedback_names_the_mistakes), in English, written by hand.
WRONG_IN_ENGLISH = (
    "did not divide by d",
    "You divided by d − 1 (the unbiased variance): LayerNorm's variance divides by d",
    "You forgot the square root",
    "You forgot to add β",
    "This is the input's own shape",
    "Most likely the problem: The variance was divided by d − 1",
)


def test_english_feedback_names_the_same_mistakes(graded_en):
    _, _, out_en, _ = graded_en
    wrong = _feedback(out_en, "wrong")
    assert "Total: 0 / 9" in wrong and "): ✗" not in wrong
    for named in WRONG_IN_ENGLISH:
        assert named in wrong, named
    typed = "b" if _variant("wrong", "03")["way"] != "b" else "a"  # as _submissions types it
    option = {  # the diagnosis option it names, quoted in English (issue 44: the task text in both languages)
        "a": "Computed that way (“divided by d − 1 (the unbiased variance)”) the variance is ",
        "b": "Computed that way (“forgot to subtract the mean μ first (took the mean of x²)”) the variance is ",
    }[typed]
    assert option in wrong
    right = _feedback(out_en, "right")
    assert "Total: 9 / 9" in right and "✗" not in right and "locked cell" not in right
    assert "- ✓ **07.layer_norm** (2/2 points)" in right and "- ✓ **03.mean** (1/1 point)" in right


def test_english_feedback_explains_the_hostile_cases_in_english(graded_en):
    _, _, out_en, _ = graded_en

    def fb(student: str) -> str:
        return _feedback(out_en, student)

    assert "ZeroDivisionError: division by zero (line 2 of your function)" in fb("raises")
    assert "still running after 5 s" in fb("loop")
    assert "went over the time limit" in fb("wedged")
    assert "`03-data` was edited" in fb("edited") and "`03-check` was deleted" in fb("edited")
    assert "`07-data` was deleted" in fb("deleted") and "The answer cell `shape_mu` is gone" in fb("deleted")
    assert "is not a Jupyter notebook" in fb("garbage") and "is not a Jupyter notebook" in fb("empty")
    assert "No `hw03-one-row-by-hand.ipynb` was handed in" in fb("absent")
    assert "not on the roster" in fb("stranger") and "not on the roster" not in fb("copier")


def test_english_feedback_marks_every_question_as_the_chinese_does(graded_en):
    """Line for line the same verdicts, and no Chinese but what is quoted (a student's own text) or a file name.
    Without the sandbox (`unshare -rn` leaves bubblewrap no namespaces), "hacker"'s function runs as the teacher
    and its two runs differ by design: it is left out there."""
    _, out, out_en, _ = graded_en
    verdicts = 0
    for path in sorted((out / "feedback").glob("*.md")):
        if path.stem == "hacker" and not SANDBOX.sealed:
            continue
        zh, en = path.read_text(encoding="utf-8"), (out_en / "feedback" / path.name).read_text(encoding="utf-8")
        marks = [re.findall(r"^- ([✓✗]) \*\*(\S+)\*\*", text, flags=re.M) for text in (zh, en)]
        assert marks[0] == marks[1], path.name
        assert zh.count("\n") == en.count("\n"), path.name  # the same lines: notes, verdicts, hints, test inputs
        verdicts += len(marks[0])
        bare = re.sub(r"“[^”]*”|`[^`]*`", "", en)
        assert not CJK.search(bare), (path.name, CJK.findall(bare))
    assert verdicts >= 40  # the comparison had something to compare (52 verdicts in this class)
