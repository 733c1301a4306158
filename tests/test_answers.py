"""Answers that cannot break a notebook (issue 32 item 2): the `%%answer` / `%%code_exercise` cells of lnlib.answers.

Every exercise cell of every notebook is fed typical slips (a Chinese comma, a space-separated list, an unquoted
word, a half-typed bracket) through the magic in-process: each prints a Chinese message and none raises. The
worked answers, typed as the teacher's answer key writes them, pass. One notebook is run for real ("Run All") with a
wrong, badly typed answer in every exercise cell: every later output is still there.
"""

from __future__ import annotations

import copy
import inspect
import runpy

import nbformat
import numpy as np
import pytest
from helpers import executed

from lnlib import answers
from lnlib.code_exercises import CODE_EXERCISES
from lnlib.exercises import EXERCISES
from lnlib.text_input import parse_numbers
from tools import answer_key, course
from tools.course import CHECK_CALL, FUNCTION_CALL, NOTEBOOKS, notebook_paths, solution_path

PATHS = notebook_paths()


def cells_of(kind):
    """(notebook stem, exercise name, cell source) of every exercise cell of the kind `CHECK_CALL` / `FUNCTION_CALL`."""
    found = []
    for path in PATHS:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                found += [(path.stem, name, cell.source) for name in kind.findall(cell.source)]
    return found


ANSWER_CELLS = cells_of(CHECK_CALL)
CODE_CELLS = cells_of(FUNCTION_CALL)


def run_answer(source: str, capsys) -> str:
    line, _, body = source.partition("\n")
    answers.answer_cell(line.removeprefix(course.ANSWER_MAGIC), body)
    return capsys.readouterr().out


def run_code(source: str, capsys, ns=None) -> str:
    line, _, body = source.partition("\n")
    answers.code_exercise_cell(line.removeprefix(course.CODE_MAGIC), body, ns if ns is not None else {"np": np})
    return capsys.readouterr().out


# ---------------------------------------------------------------- the reader


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("5", 5.0),
        ("５", 5.0),
        ("  -0.25 ", -0.25),
        ("μ = 5", 5.0),
        ("answer = 5", 5.0),
        ('"5"', 5.0),
        ("5。", 5.0),
        ("-3, -1, 1, 3", [-3, -1, 1, 3]),
        ("-3，-1，1，3", [-3, -1, 1, 3]),
        ("-3、-1、1、3", [-3, -1, 1, 3]),
        ("-3 -1 1 3", [-3, -1, 1, 3]),
        ("[-3 -1 1 3]", [-3, -1, 1, 3]),
        ("［−３，−１，１，３］", [-3, -1, 1, 3]),
        ("(2,)", [2.0]),
        ("[[1, 2], [3, 4]]", [[1, 2], [3, 4]]),
        ("[[1，2]，[3，4]]", [[1, 2], [3, 4]]),
        ("1 2\n3 4", [[1, 2], [3, 4]]),
        ("1\n2\n3", [1, 2, 3]),
    ],
)
def test_answers_are_read_as_people_type_them(text, want):
    got = parse_numbers(text)
    assert got.dtype == np.float64 and got.shape == np.shape(want)
    assert np.array_equal(got, np.asarray(want, dtype=np.float64))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("five", "不是数字"),
        ("1, a", "不是数字"),
        ("[1, 2", "括号"),
        ("[[1, 2], [3]]", "个数要一样"),
        ("[[1, 2] 7 [3, 4]]", "不在任何一行"),
        ("1, nan", "nan"),
        ("", "没有找到数字"),
        ("√-5", "负数"),
        ("1/2√5", "两种读法"),
    ],
)
def test_text_that_holds_no_number_gets_a_chinese_reason(text, why):
    with pytest.raises(ValueError, match=why):
        parse_numbers(text)


def test_the_widgets_keep_the_same_reader():
    from lnlib import text_input, widgets

    assert widgets.parse_vector is text_input.parse_vector and widgets.MAX_VALUES == text_input.MAX_VALUES


# ---------------------------------------------------------------- %%answer, for every exercise cell

SLIPS = {
    "chinese-commas": "1，2，3",
    "spaces": "1 2 3",
    "unquoted-word": "abc",
    "chinese-word": "不知道",
    "half-bracket": "[1, 2",
    "python": "answer = np.mean([1, 2])",
    "quoted-number": "'123456'",
}


@pytest.mark.parametrize(("stem", "name", "source"), ANSWER_CELLS, ids=[f"{s[:2]}-{n}" for s, n, _ in ANSWER_CELLS])
def test_every_answer_cell_survives_every_slip(stem, name, source, capsys):
    assert source == course.answer_placeholder(name), "the notebook stores the placeholder"
    out = run_answer(source, capsys)
    assert out.startswith(str(answers.UNANSWERED)) and f"（{name}）" in out
    for slip, text in SLIPS.items():
        out = run_answer(f"{source}\n{text}", capsys)  # never raises: pytest would fail here
        assert f"（{name}）" in out and not out.startswith("✓"), (slip, out)
        assert "Traceback" not in out and "Error" not in out, (slip, out)


def typed(answer) -> str:
    """A worked answer as the answer key prints it, and a student would type it."""
    return answer_key.show(answer).strip("`")


@pytest.mark.parametrize("path", PATHS[1:], ids=[p.stem for p in PATHS[1:]])
def test_the_answer_key_typed_into_the_cell_passes(path, capsys):
    worked = runpy.run_path(str(solution_path(path.stem)))["ANSWERS"]
    assert worked
    for name, answer in worked.items():
        text = typed(answer)
        out = run_answer(f"%%answer {name}\n{text}", capsys)
        assert out.startswith("✓"), f"{name}: typed {text!r}: {out}"
        if not isinstance(EXERCISES[name].expected, str) and np.ndim(answer) == 1 and np.size(answer) > 1:
            chinese = text.strip("[]").replace(", ", "，")
            assert run_answer(f"%%answer {name}\n{chinese}", capsys).startswith("✓"), chinese


def test_choice_answers_are_words_with_or_without_quotes(capsys):
    name = next(n for n, e in EXERCISES.items() if isinstance(e.expected, str))
    word = EXERCISES[name].expected
    for text in (word, f'"{word}"', f"“{word}”", f"  {word.upper()}  "):
        assert run_answer(f"%%answer {name}\n{text}", capsys).startswith("✓"), text


def test_a_wrong_answer_is_still_judged_with_its_named_mistake(capsys):
    """The reader hands numbers to lnlib.check, whose diagnoses still apply: 24 for 梨's μ is 'forgot ÷ d'."""
    out = run_answer("%%answer 03.mean_pear\n24", capsys)
    assert out.startswith("✗") and "除以" in out


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("03.std_apple", "√5"),  # asked to three decimals: the exact value passes
        ("03.std_apple", "σ = √5"),
        ("03.std_apple", "√ 5"),
        ("03.xhat_apple", "-3/√5, -1/√5, 1/√5, 3/√5"),
        ("03.xhat_apple", "[−3/√5，−1/√5，1/√5，3/√5]"),
    ],
)
def test_an_exact_root_passes_an_exercise_asking_for_decimals(name, text, capsys):
    """Issue 40: √5 is the exact σ of [2, 4, 6, 8], so it passes where 2.236 (three decimals) is asked for."""
    assert run_answer(f"%%answer {name}\n{text}", capsys).startswith("✓"), text


def test_an_ambiguous_form_is_refused_in_the_cell_not_misread(capsys):
    out = run_answer("%%answer 03.std_apple\n1/2√5", capsys)
    assert out.startswith("✗ 没读懂") and "两种读法" in out and "Traceback" not in out, out
    out = run_answer("%%answer 03.std_apple\n5", capsys)  # forgot the root: still its named mistake
    assert out.startswith("✗") and "平方根" in out, out


def test_an_unknown_exercise_name_is_reported_not_raised(capsys):
    out = run_answer("%%answer 99.nope\n5", capsys)
    assert "99.nope" in out and "%%answer" in out
    out = run_code("%%code_exercise 99.nope\ndef f(): ...", capsys)
    assert "99.nope" in out


# ---------------------------------------------------------------- %%code_exercise, for every code exercise cell

BROKEN = {
    "syntax": ("def f(x)\n    return x", "语法错误"),
    "chinese-comma": ("def f(x，y):\n    return x", "语法错误"),
    "indentation": ("def f(x):\nreturn x", "语法错误"),
    "raises-at-top": ("undefined_name + 1", "NameError"),
    "no-function": ("y = 1", "没有找到函数"),
    "raises-inside": ("def f(*args, **kwargs):\n    return undefined_name", "NameError"),
    "wrong-values": ("def f(*args, **kwargs):\n    return 0.0", "✗"),
}


@pytest.mark.parametrize(("stem", "name", "source"), CODE_CELLS, ids=[f"{s[:2]}-{n}" for s, n, _ in CODE_CELLS])
def test_every_code_cell_reports_broken_code_in_chinese(stem, name, source, capsys):
    wanted = str(CODE_EXERCISES[name].signature).split("(")[0]
    assert f"def {wanted}(" in source, "the starting cell defines the function the checker names"
    assert "还没写" in run_code(source, capsys), "the placeholder runs and says it is not written yet"
    for case, (body, why) in BROKEN.items():
        out = run_code(f"%%code_exercise {name}\n{body}", capsys)
        assert why in out and f"（{name}）" in out, (case, out)
        assert not out.startswith("✓") and "Traceback" not in out, (case, out)


@pytest.mark.parametrize("path", PATHS[1:], ids=[p.stem for p in PATHS[1:]])
def test_the_worked_functions_pass_through_the_cell(path, capsys):
    functions = runpy.run_path(str(solution_path(path.stem))).get("FUNCTIONS", {})
    ns = {"np": np}  # one notebook namespace: 10.attention may call the softmax of the cell before
    for name, fn in functions.items():
        out = run_code(f"%%code_exercise {name}\n{inspect.getsource(fn)}", capsys, ns)
        assert out.startswith("✓"), f"{name}: {out}"
        assert callable(ns[fn.__name__]), "the learner's function is defined in the notebook afterwards"


def test_the_cell_reports_the_line_of_the_learners_error(capsys):
    out = run_code("%%code_exercise 10.softmax\nimport math\n\nraise RuntimeError('停')", capsys)
    assert "第 4 行" in out and "RuntimeError" in out  # the 4th line of the cell, counting the %%code_exercise line


# ---------------------------------------------------------------- IPython and a real "Run All"


def test_importing_lnlib_in_ipython_registers_the_magics():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        assert answers.register(shell)
        result = shell.run_cell("%%answer 03.mean_pear\n五，")
        assert result.success and result.error_in_exec is None
        assert shell.run_cell("%%code_exercise 10.softmax\ndef softmax(z)\n").success
        assert shell.run_cell("after = 1").success and shell.user_ns["after"] == 1
    finally:
        InteractiveShell.clear_instance()
    assert answers.register(None) is False, "outside IPython nothing is registered"


BAD_ANSWERS = ("1，2，3", "1 2 3", "abc", "[1, 2")


def test_run_all_with_bad_answers_in_every_exercise_cell_reaches_the_end():
    """Notebook 03 with a slip in each of its 8 answer cells, run top to bottom in a real kernel: no cell errors, and
    every cell after them shows the outputs the stored notebook shows (same count and kinds)."""
    stored = nbformat.read(NOTEBOOKS / "03-one-row-by-hand.ipynb", as_version=4)
    nb = copy.deepcopy(stored)
    slipped = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and CHECK_CALL.search(cell.source):
            cell.source += "\n" + BAD_ANSWERS[slipped % len(BAD_ANSWERS)]
            slipped += 1
    assert slipped >= 8
    ran = executed(nb)
    for before, after in zip(stored.cells, ran.cells, strict=True):
        if after.cell_type != "code":
            continue
        assert not any(o.output_type == "error" for o in after.outputs), after.source
        if CHECK_CALL.search(after.source):
            text = "".join(o.get("text", "") for o in after.outputs)
            assert text.startswith("✗") and "✓" not in text, text
            continue
        kinds = [(o.output_type, sorted(o.get("data", {}))) for o in after.outputs]
        assert kinds == [(o.output_type, sorted(o.get("data", {}))) for o in before.outputs], after.source


# ---------------------------------------------------------------- issue 39: empty bodies (L4), escapes (L5)


@pytest.mark.parametrize(
    ("cell", "said"),
    [
        ("%%answer 03.mean_pear", "还没有作答"),
        ("%%answer 03.mean_pear\n", "还没有作答"),
        ("%%code_exercise 10.softmax", "还没有作答"),
        ("%%reveal 03.mean_pear", "先回答上面的 %%answer 03.mean_pear"),
    ],
)
def test_a_cell_with_only_the_magic_line_is_answered_in_chinese(cell, said, capsys, monkeypatch, tmp_path):
    """IPython refuses a cell magic with an empty body (UsageError, Run All stops); ours say what to write."""
    from IPython.core.interactiveshell import InteractiveShell

    from lnlib import _record

    monkeypatch.delenv(answers.REVEAL_ENV, raising=False)
    monkeypatch.setenv(_record.ENV_VAR, str(tmp_path))  # nothing answered right yet: the reveal is closed
    shell = InteractiveShell.instance()
    try:
        answers.register(shell)
        answers.register(shell)  # registering twice adds the transformer once
        assert shell.input_transformers_cleanup.count(answers._empty_body) == 1
        result = shell.run_cell(cell)
        out = capsys.readouterr()
        assert result.success, result.error_in_exec or result.error_before_exec
        assert said in out.out and "UsageError" not in out.out + out.err
    finally:
        InteractiveShell.clear_instance()


class _Unprintable(Exception):
    def __str__(self):
        raise ValueError("no text")


ESCAPES = {
    "str-fails": ("from test_answers import _Unprintable\nraise _Unprintable()", "_Unprintable"),
    "system-exit": ("raise SystemExit(3)", "SystemExit"),
    "sys-exit": ("import sys\nsys.exit()", "SystemExit"),
    "keyboard-interrupt": ("raise KeyboardInterrupt", "KeyboardInterrupt"),
    "base-exception": ("class Stop(BaseException):\n    pass\nraise Stop()", "Stop"),
    "generator-exit": ("raise GeneratorExit", "GeneratorExit"),
}


@pytest.mark.parametrize("case", ESCAPES)
def test_nothing_raised_at_the_top_of_a_code_cell_escapes_it(case, capsys):
    body, said = ESCAPES[case]
    out = run_code(f"%%code_exercise 10.softmax\n{body}", capsys)  # pytest fails here if anything escapes
    assert out.startswith("✗ 运行这段代码时出错了（10.softmax）") and said in out, out


def test_the_users_interrupt_still_stops_a_code_cell(capsys):
    """The stop button (SIGINT) during the body's top level stops the cell, as in a plain cell."""
    import signal

    body = "import os, signal\nos.kill(os.getpid(), signal.SIGINT)\nimport time\ntime.sleep(2)"
    with pytest.raises(KeyboardInterrupt):
        run_code(f"%%code_exercise 10.softmax\n{body}", capsys)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
