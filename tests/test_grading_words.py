"""The graded-assignment tools speak from the catalogue (issue 43, domain `grading`): no Chinese literal in the
grader's code, the feedback words of `assignments/hwNN.py` are messages, and an assignment built in English carries
English words from the tools and in its task text (issue 44: every text field a `Text` pair) and grades without false
notes.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import nbformat
import numpy as np
import pytest
from helpers import type_right_answers
from test_messages import IDEOGRAPH, chinese_literals

import assignments
from lnlib import i18n
from lnlib.grading import grade

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


# ---------------------------------------------------------------- the task text in both languages (issue 44)

ALLOWED_CHINESE = ("苹果", "我", "吃")  # the seeds' tokens, glossed where shown; nothing else Chinese in English


def _no_chinese(text: str) -> list[str]:
    for token in ALLOWED_CHINESE:
        text = text.replace(token, "")
    return IDEOGRAPH.findall(text)


def test_text_is_shown_in_the_language_of_the_moment():
    pair = assignments.Text("一行", "one row")
    assert i18n.language() == "zh" and str(pair) == "一行" and f"[{pair}]" == "[一行]"
    i18n.set_language("en")
    try:
        assert str(pair) == "one row" and f"[{pair:>8}]" == "[ one row]"
    finally:
        i18n.set_language("zh")


def _task_texts(a, v) -> list:
    """Every task text of an assignment for the variant v: intro, data, each question's prompt, stub and solution."""
    texts = [a.intro(v), a.data(v)]
    for q in a.questions:
        texts += [q.prompt(v) if callable(q.prompt) else q.prompt, q.stub, q.solution(v)]
    return texts


@pytest.mark.parametrize("number", ["03", "07"])
def test_every_task_text_has_both_languages_and_the_english_no_chinese(number):
    a = assignments.load()[number]
    rng = np.random.default_rng(44)
    for _ in range(20):
        v = a.variant(rng)
        pairs = [t for t in _task_texts(a, v) if isinstance(t, assignments.Text)]
        assert len(pairs) >= 2 + 2 * len(a.questions)  # intro, data, every prompt and (typed answer's) stub
        for t in pairs:
            assert t.zh.strip() and t.en.strip() and t.zh != t.en
            assert _no_chinese(t.en) == [], t.en
        plain = [t for t in _task_texts(a, v) if not isinstance(t, assignments.Text)]
        assert all(_no_chinese(str(t)) == [] for t in plain), plain  # numbers, code: the same in both languages


def _variant_03(way: str) -> dict:
    return {"x": np.array([2.0, 4.0, 6.0, 12.0]), "way": way}  # μ = 6, σ² = (16 + 4 + 0 + 36) / 4 = 14


def test_the_english_diagnosis_quotes_the_english_option():
    """The classmate's σ² of [2, 4, 6, 12] divided by d − 1 is 56 / 3 = 18.67; answering "b" (the mean of x²,
    (4 + 16 + 36 + 144) / 4 = 50) is named with its English words."""
    from assignments import hw03

    ex = hw03._diagnose_ex(_variant_03("a"))
    i18n.set_language("en")
    try:
        said = grade(ex, "b").message
        prompt = str(hw03._prompt_diagnose(_variant_03("a")))
    finally:
        i18n.set_language("zh")
    assert "(“forgot to subtract the mean μ first (took the mean of x²)”) the variance is 50, not 18.67" in said
    assert _no_chinese(said) == [] and _no_chinese(prompt) == []
    assert "got **18.67**" in prompt and "- **a**: divided by d − 1 (the unbiased variance)" in prompt
    assert "按「忘了先减去均值 μ（算成了 x² 的平均）」算出来的是 50，不是 18.67。" in grade(ex, "b").message


@pytest.mark.parametrize(
    ("scale", "typed", "right"),
    [
        (2.0, "unchanged", True),
        (2.0, "It stays the same.", True),
        (2.0, "no change", True),
        (2.0, "不变", True),
        (2.0, "changed", False),
        (2.0, "it changes", False),
        (-3.0, "changed", True),
        (-3.0, "It changes", True),
        (-3.0, "will change", True),
        (-3.0, "会变", True),
        (-3.0, "the same", False),
    ],
)
def test_the_prediction_is_answered_in_either_language(scale, typed, right):
    """y = γ ⊙ x̂ + β is unchanged under x → s·x + t for s > 0 and changes (x̂ flips its sign) for s < 0."""
    from assignments import hw07

    assert grade(hw07._predict_ex({"scale": scale}), typed).ok is right


# ---------------------------------------------------------------- an assignment built and graded in English

pytest.importorskip("nbgrader", reason="the teacher's extra (requirements-teacher.txt; make test installs it)")

from tools import assignments as build_tool  # noqa: E402
from tools import grade as grade_tool  # noqa: E402

SECRET = "test-secret-of-the-english-words"
H03 = "hw03-one-row-by-hand.ipynb"
H07 = "hw07-full-formula.ipynb"


@pytest.fixture
def secret(monkeypatch):
    monkeypatch.setenv(assignments.SECRET_ENV, SECRET)


def _sources(nb) -> dict[str, str]:
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells}


def _code_lines(source: str) -> list[str]:
    """A code cell without its comments (the words): what runs, which must be the same in both languages."""
    return [line.split("#")[0].rstrip() for line in source.splitlines() if not line.lstrip().startswith("#")]


def test_an_assignment_built_in_english_is_in_english(tmp_path, secret):
    roster = tmp_path / "roster.txt"
    roster.write_text("s1\n", encoding="utf-8")
    built = tmp_path / "built"
    assert (
        build_tool.main(["--notebooks", "03", "07", "--roster", str(roster), "--out", str(built), "--lang", "en"]) == 0
    )
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
    # the task text too (issue 44): written by hand here, and no Chinese anywhere, the teacher's source included
    assert cells["03-mean-question"] == "**Question 1** What is the mean μ of your row `x`? (1 point)"
    assert cells["mean"] == "%%answer hw03.mean\n# write your answer on the line below (one number)"
    assert "\n# your row (d = 4): please do not change it\nx = [" in cells["03-data"]
    assert "- **c**: gave the standard deviation σ, not the variance σ²" in cells["03-diagnose-question"]
    seven = _sources(nbformat.read(built / "release" / "s1" / H07, as_version=4))
    assert "Type `unchanged` or `changed` in the answer cell." in seven["07-predict-question"]
    for part in ("release", "source"):
        for name in (H03, H07):
            for cell in nbformat.read(built / part / "s1" / name, as_version=4).cells:
                assert _no_chinese(cell.source) == [], (part, name, cell.source)
    zh = tmp_path / "built-zh"
    assert build_tool.main(["--notebooks", "03", "07", "--roster", str(roster), "--out", str(zh)]) == 0
    chinese = _sources(nbformat.read(zh / "release" / "s1" / H03, as_version=4))
    assert chinese["03-intro"].endswith("\n\n学号：`s1`") and chinese["03-mean-question"].endswith("（1 分）")
    assert chinese["03-end"].startswith("## 提交前检查\n\n")
    assert chinese["03-mean-question"] == "**第 1 题** 你这一行 `x` 的均值 μ 是多少？（1 分）"
    assert chinese["mean"] == "%%answer hw03.mean\n# 在下面一行写你的答案（一个数）"
    for name in (H03, H07):  # the same cells, the same numbers and code: only the words differ
        en, zh_ = (nbformat.read(b / "source" / "s1" / name, as_version=4).cells for b in (built, zh))
        assert [(c.id, c.cell_type) for c in en] == [(c.id, c.cell_type) for c in zh_]
        for e, c in zip(en, zh_, strict=True):
            if e.cell_type == "code" and e.id != "predict":  # predict: the worked answer, unchanged / 不变
                assert _code_lines(e.source) == _code_lines(c.source), e.id


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
