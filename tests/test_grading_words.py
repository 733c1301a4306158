"""The graded-assignment tools speak from the catalogue (issue 43, domain `grading`): no Chinese literal in the
grader's code, the feedback words of `assignments/hwNN.py` are messages, and an assignment built in English carries
English words from the tools (around its task text, which is course content) and grades without false notes.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import nbformat
import pytest
from helpers import type_right_answers
from test_messages import IDEOGRAPH, chinese_literals

import assignments
from lnlib import i18n

ROOT = Path(__file__).resolve().parents[1]
GRADING_TOOLS = ["judge", "grade", "submission", "assignments", "grade_function", "exchange", "sandbox"]
FEEDBACK_CALLS = {"Exercise", "Mistake", "Case", "rounded_early", "WrongWay"}
"""In an assignment, what a call of these says is feedback (hints, mistakes, what a test input is): messages."""


@pytest.mark.parametrize("tool", GRADING_TOOLS)
def test_no_grading_tool_holds_chinese_words(tool):
    source = (ROOT / "tools" / f"{tool}.py").read_text(encoding="utf-8")
    assert chinese_literals(f"tools.{tool}", source) == []


def feedback_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of every Chinese string literal said as feedback in an assignment: anything inside a call of
    FEEDBACK_CALLS but the answers (an exercise's expected value and a mistake's value: a choice code such as 不变,
    accepted spellings), and the title."""
    tree = ast.parse(source)
    answers, said = set(), []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if name in ("Exercise", "Mistake"):
            values = node.args[:1] if name == "Exercise" else node.args[1:]
            values += [k.value for k in node.keywords if k.arg in ("synonyms", "options", "value", "expected")]
            answers.update(id(n) for v in values for n in ast.walk(v))
        if name in FEEDBACK_CALLS:
            said.append(node)
        if name == "Assignment":
            said += [k.value for k in node.keywords if k.arg == "title"]
    found = {
        (n.lineno, n.value, id(n))
        for part in said
        for n in ast.walk(part)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and IDEOGRAPH.search(n.value)
        if id(n) not in answers
    }
    return [(line, text) for line, text, _ in sorted(found)]


@pytest.mark.parametrize("path", sorted((ROOT / "assignments").glob("hw*.py")), ids=lambda p: p.name)
def test_an_assignments_feedback_is_said_by_messages(path):
    assert feedback_literals(path.read_text(encoding="utf-8")) == []


def test_the_feedback_scan_can_fail():
    source = (
        'Exercise("不变", "提示", mistakes=(Mistake("错了", "会变"),), synonyms=("不会变",))\n'
        'Case(lazy("k"), (1,))\nCase("一行", (1,))\n'
        'Assignment(number="03", title="作业 03", intro=lambda v: "# 作业")\n'
    )
    assert feedback_literals(source) == [(1, "提示"), (1, "错了"), (3, "一行"), (4, "作业 03")]


# ---------------------------------------------------------------- an assignment built and graded in English

pytest.importorskip("nbgrader", reason="the teacher's extra (requirements-teacher.txt; make test installs it)")

from tools import assignments as build_tool  # noqa: E402
from tools import grade as grade_tool  # noqa: E402

SECRET = "test-secret-of-the-english-words"
H03 = "hw03-one-row-by-hand.ipynb"


@pytest.fixture
def secret(monkeypatch):
    monkeypatch.setenv(assignments.SECRET_ENV, SECRET)


def _sources(nb) -> dict[str, str]:
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells}


def test_an_assignment_built_in_english_has_the_tools_words_in_english(tmp_path, secret):
    roster = tmp_path / "roster.txt"
    roster.write_text("s1\n", encoding="utf-8")
    built = tmp_path / "built"
    assert build_tool.main(["--notebooks", "03", "--roster", str(roster), "--out", str(built), "--lang", "en"]) == 0
    assert i18n.language() == "zh"  # the tool's language ends with the build
    manifest = json.loads((built / "autograder" / "manifest.json").read_text(encoding="utf-8"))
    assert (
        manifest["lang"] == "en"
        and manifest["assignments"][0]["title"] == "Assignment 03: one row of LayerNorm by hand"
    )
    cells = _sources(nbformat.read(built / "release" / "s1" / H03, as_version=4))
    assert cells["03-intro"].startswith("# Assignment 03: one row of LayerNorm by hand\n")
    assert cells["03-intro"].endswith("\n\nStudent ID: `s1`")
    assert "import lnlib  # lets the answer cells (%%answer, %%code_exercise) work\n" in cells["03-data"]
    assert cells["03-mean-question"].endswith(" (1 point)")
    assert cells["03-end"].startswith("## Before you hand in\n\n")
    zh = tmp_path / "built-zh"
    assert build_tool.main(["--notebooks", "03", "--roster", str(roster), "--out", str(zh)]) == 0
    chinese = _sources(nbformat.read(zh / "release" / "s1" / H03, as_version=4))
    assert chinese["03-intro"].endswith("\n\n学号：`s1`") and chinese["03-mean-question"].endswith("（1 分）")
    assert chinese["03-end"].startswith("## 提交前检查\n\n")


@pytest.mark.parametrize(("built_in", "graded_in"), [("en", "en"), ("en", "zh"), ("zh", "en")])
def test_a_class_is_graded_in_any_language_whatever_it_was_built_in(tmp_path, secret, built_in, graded_in):
    """The grader compares locked cells with the release as built (in the manifest's language): no false note."""
    roster = tmp_path / "roster.txt"
    roster.write_text("s1\ns2\n", encoding="utf-8")
    built = tmp_path / "built"
    assert build_tool.main(["--notebooks", "03", "--roster", str(roster), "--out", str(built), "--lang", built_in]) == 0
    subs = tmp_path / "subs"
    for student in ("s1", "s2"):
        nb = nbformat.read(built / "release" / student / H03, as_version=4)
        if student == "s1":
            type_right_answers(nb, assignments.load()["03"].variant(assignments.rng_for("s1", "03", SECRET.encode())))
        (subs / student).mkdir(parents=True)
        nbformat.write(nb, subs / student / H03)
    out = tmp_path / "out"
    manifest = built / "autograder" / "manifest.json"
    grade_tool.grade_folder(subs, out, manifest, 3, 1, grade_tool.Sandbox(grade_tool.RUNNER, sealed=False), graded_in)
    s1, s2 = ((out / "feedback" / f"{s}.md").read_text(encoding="utf-8") for s in ("s1", "s2"))
    total, note, unanswered = {
        "en": ("Total: 4 / 4", "locked cell", "Not answered yet."),
        "zh": ("总分：4 / 4", "锁定的单元格", "尚未作答。"),
    }[graded_in]
    assert total in s1 and note not in s1 and note not in s2
    assert s2.count(unanswered) == 4
    assert "none (--unsafe-no-sandbox)" in (out / "grades.csv").read_text(encoding="utf-8")
