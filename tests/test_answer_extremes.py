"""Subnormal and huge answers (issue 39, L0): `check`, the `%%answer` cell and the teacher's grader judge them.

Property tests (hypothesis, the fixed "ci" profile of conftest.py): any finite float — a subnormal such as 5e-324,
a tiny normal, a number near ±1.8e308 — typed as an answer to any numeric exercise, as one number or as a list of
the right shape, is judged ✓ or ✗ with a Chinese message: never an exception, never a warning. The reference for
"right" is independent of lnlib's tolerance code: such an answer is right exactly where every expected value lies
within the exercise's tolerance of it (an expected 0 and a subnormal answer, say), compared as exact fractions.
"""

from __future__ import annotations

import contextlib
import io
import math
import warnings
from fractions import Fraction

import numpy as np
from helpers import strict_warnings
from hypothesis import given, settings
from hypothesis import strategies as st

import assignments
from lnlib import answers, exercises, grading
from lnlib.exercises import EXERCISES
from tools import judge

NUMERIC = sorted(n for n, e in EXERCISES.items() if not isinstance(e.expected, str))
BIGGEST = np.finfo(np.float64).max
TINY = np.finfo(np.float64).tiny  # the smallest normal number; below it the subnormals down to 5e-324
EXTREME = st.one_of(
    st.floats(-TINY, TINY, allow_subnormal=True).filter(lambda v: v != 0),
    st.sampled_from([5e-324, -5e-324, 1e-320, 1e-310]),
    st.floats(1e300, BIGGEST),
    st.floats(-BIGGEST, -1e300),
)


def printed(fn, *args) -> str:
    out = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        strict_warnings()
        fn(*args)
    return out.getvalue()


def right(name: str, v: float) -> bool:
    """Whether `v` in every entry is within the tolerance of the expected values, in exact arithmetic."""
    ex = EXERCISES[name]
    want = np.asarray(ex.expected, dtype=np.float64).ravel().tolist()
    return all(abs(Fraction(w) - Fraction(v)) <= Fraction(ex.atol) for w in want)


def filled(name: str, v: float):
    """`v` in the shape of the exercise's answer (a number, a list or nested lists)."""
    return np.full(np.shape(EXERCISES[name].expected), v).tolist()


@settings(max_examples=50)
@given(name=st.sampled_from(NUMERIC), v=EXTREME, tries=st.integers(1, 3))
def test_check_judges_subnormal_and_huge_answers(name, v, tries):
    one = np.size(EXERCISES[name].expected) == 1  # a bare number answers only a one-number exercise
    for answer, shaped in ((v, one), (filled(name, v), True)):
        for _ in range(tries):  # the later tries add the hint: every text is built
            out = printed(exercises.check, name, answer)
            assert out.startswith("✓ 正确" if shaped and right(name, v) else "✗ 还不对"), out
            assert "Error" not in out and "Traceback" not in out, out


@settings(max_examples=50)
@given(name=st.sampled_from(NUMERIC), v=EXTREME)
def test_the_answer_cell_reads_and_judges_them(name, v):
    assert float(answers.read_answer(name, repr(v))) == v  # typed as Python writes the number, read exactly
    shape = np.shape(EXERCISES[name].expected)
    rows = np.full(shape, v).reshape(-1, shape[-1] if shape else 1)
    text = "\n".join(", ".join(map(repr, row)) for row in rows.tolist())  # a matrix typed one row per line
    out = printed(answers.answer_cell, f" {name}", text)
    assert out.startswith("✓ 正确" if right(name, v) else "✗ 还不对") and f"（{name}）" in out, out


@given(v=EXTREME)
def test_show_number_writes_them_with_the_right_exponent(v):
    text = grading.show_number(v)
    exponent = math.floor(math.log10(abs(v)))  # the decimal exponent, from the exact value (subnormals too)
    shown = text.split("10")[-1].translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
    assert int(shown) in (exponent, exponent + 1), text  # + 1: 9.9996×10ᵏ rounds to 10ᵏ⁺¹
    assert text.startswith("-") == (v < 0), text


@settings(max_examples=20)
@given(v=EXTREME)
def test_the_graders_judge_them(v):
    """The grader judges every question of assignment 03 answered with `v`, as it does a submission: each typed
    answer from its text (tools.judge.judge_answer), each case of the function question from what the sandbox
    recorded (judge_function_run). Every one is a plain ✗ with a message, never a fault of the grader."""
    a = assignments.load()["03"]
    variant = a.variant(np.random.default_rng(0))
    verdicts = []
    with warnings.catch_warnings():
        strict_warnings()
        for q in a.questions:
            if q.cases is None:
                want = q.exercise(variant).expected
                text = repr(v) if isinstance(want, str) or np.ndim(want) == 0 else ", ".join([repr(v)] * np.size(want))
                verdicts.append(judge.judge_answer(q, variant, text))
            else:
                cases = [{"type": "array", "value": [v] * 4} for _ in q.cases(variant)]
                verdicts.append(
                    judge.judge_function_run(q, variant, judge.FunctionRun(cell={"type": "ok"}, cases=cases))
                )
    assert all(ok is False and message and "批改程序" not in message for ok, message in verdicts), verdicts
