"""The answer cells of a graded assignment (issue 38): the course's own `%%answer` / `%%code_exercise`, named hwNN.x.

In the student's kernel they judge nothing: an answer cell shows how its text was read, a function cell defines the
function; stubs (an empty body, a function whose body is `...`) count as unanswered in the pre-submit check, and
Run All of a fresh release prints no `Ellipsis`. Releases are byte-identical when rebuilt with the same roster and
secret.
"""

from __future__ import annotations

import ast
import os

import nbformat
import pytest
from helpers import executed

from lnlib import answers

pytest.importorskip("nbgrader", reason="the teacher's extra (requirements-teacher.txt; make test installs it)")

from tools import assignments as build_tool  # noqa: E402

SECRET = "test-secret-of-the-cells"
H07 = "hw07-full-formula.ipynb"


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.setattr(answers, "_ANSWERED", {})


def test_an_assignment_answer_is_read_back_not_judged(capsys):
    answers.answer_cell("hw03.mean", "# 在下面一行写你的答案（一个数）\n５．２５\n")
    answers.answer_cell("hw07.predict", '"「不变」"')
    answers.answer_cell("hw03.mean", "np.mean(x)")
    out = capsys.readouterr().out.splitlines()
    words = "（作业题：这里不判对错）。如果这一题要的是数，请直接写数（比如 5.25 或 1, 2, 3），算式不会被计算。"
    assert out == [
        "读到的答案：5.25（作业题：这里不判对错，交上去以后按读到的这个批改）",
        "读到的答案（文字）：「不变」" + words,
        "读到的答案（文字）：「np.mean(x)」" + words,
    ]


def test_stubs_are_unanswered_and_the_check_lists_them(capsys):
    stub = "import numpy as np\n\n\ndef layer_norm(x, gamma, beta, eps=1e-5):\n    ...  # 在这里写你的答案"
    answers.answer_cell("hw03.mean", "# 在下面一行写你的答案（一个数）\n")
    answers.code_exercise_cell("hw07.layer_norm", stub, {})
    answers.answer_cell("hw03.xhat", "1, 2, 3")
    capsys.readouterr()
    answers.assignment_missing(["hw03.mean", "hw07.layer_norm", "hw03.xhat", "hw03.diagnose"])
    assert capsys.readouterr().out.strip() == (
        "还没有作答（或者还没有运行那个单元格）：hw03.mean、hw07.layer_norm、hw03.diagnose"
    )
    ns: dict = {}
    answers.code_exercise_cell("hw07.layer_norm", stub.replace("...", "return x"), ns)
    answers.assignment_missing(["hw07.layer_norm", "hw03.xhat"])
    out = capsys.readouterr().out
    assert "已定义 layer_norm" in out and out.strip().endswith("每一题都有答案了，可以保存并提交。")
    assert ns["layer_norm"](3, 1, 0) == 3  # defined in the notebook, as a course function cell does


def test_is_stub_tells_a_placeholder_from_a_body():
    def first_def(source: str):
        return next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef))

    assert answers.is_stub(first_def("def f(x):\n    ...  # 在这里写你的答案"))
    assert answers.is_stub(first_def('def f(x):\n    """doc"""\n    pass'))
    assert not answers.is_stub(first_def("def f(x):\n    return x"))
    assert not answers.is_stub(first_def("def f(x):\n    ...\n    return None"))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("cells")
    roster = root / "roster.txt"
    roster.write_text("s-1\ns-2\n", encoding="utf-8")
    old = os.environ.get("LNLIB_GRADING_SECRET")
    os.environ["LNLIB_GRADING_SECRET"] = SECRET
    try:
        for out in ("a", "b"):
            assert build_tool.main(["--roster", str(roster), "--out", str(root / out)]) == 0
    finally:
        os.environ.pop("LNLIB_GRADING_SECRET")
        if old is not None:
            os.environ["LNLIB_GRADING_SECRET"] = old
    return root


def test_rebuilding_gives_byte_identical_files(built):
    files = sorted(p.relative_to(built / "a") for p in (built / "a").rglob("*") if p.is_file())
    assert len(files) == 2 * 2 * 2 + 1  # source and release, 2 students, 2 assignments; the manifest
    for rel in files:
        assert (built / "a" / rel).read_bytes() == (built / "b" / rel).read_bytes(), rel
    ids = [c.id for c in nbformat.read(built / "a" / "release" / "s-1" / H07, as_version=4).cells]
    assert ids[:2] == ["07-intro", "07-data"] and len(set(ids)) == len(ids)


def test_run_all_of_a_fresh_release_prints_no_ellipsis_and_lists_every_question(built):
    nb = executed(nbformat.read(built / "a" / "release" / "s-1" / H07, as_version=4))
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    text = "\n".join(o.get("text", "") + str(o.get("data", {}).get("text/plain", "")) for o in outputs)
    assert "Ellipsis" not in text and not [o for o in outputs if o.get("output_type") == "error"], text
    last = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert last.strip() == (
        "还没有作答（或者还没有运行那个单元格）：hw07.layer_norm、hw07.y、hw07.shape_mu、hw07.predict"
    )
