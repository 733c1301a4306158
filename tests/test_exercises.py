"""The exercise engine: only real numbers, tolerances that match the rounding asked for, mistakes that are named,
synonyms of choice answers, and `check_function` on the learner's code (issue 11 item 6, issue 12)."""

from __future__ import annotations

import runpy
import warnings

import nbformat
import numpy as np
import pytest

import lnlib
from lnlib.code_exercises import CODE_EXERCISES, judge_function
from lnlib.exercises import EXERCISES, judge
from lnlib.grading import Exercise, grade, normalize_choice
from tools.course import NOTEBOOKS, solution_paths

# ---------------------------------------------------------------- check(): only real numbers (issue 11 item 6)


@pytest.mark.parametrize(
    "answer, says",
    [
        (np.complex128(500 + 7j), "复数"),
        (np.array(500 + 3j), "复数"),
        (500 + 0j, "复数"),
        (np.datetime64(500, "D"), "日期"),
        (np.timedelta64(500, "D"), "时间长度"),
        (True, "布尔"),
        (np.bool_(True), "布尔"),
        ([True, False], "布尔"),
        ("500", "文字"),
        (np.array(["500"]), "文字"),
        ([500, "1"], "文字"),
        ({"a": 500}, "需要数字"),
        (10**400, "太大"),
        (float("nan"), "nan"),
    ],
)
def test_check_judges_only_real_numbers(answer, says):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning, no RuntimeWarning
        verdict = judge("03.variance_pear", answer)
    assert not verdict.ok and says in verdict.message, verdict.message
    assert "1." not in verdict.message  # a wrong True is never shown as "1."


def test_check_prints_and_returns_none(capsys):
    assert lnlib.check("03.mean_pear", 6) is None  # 梨 [3, 5, 6, 10]
    assert capsys.readouterr().out.startswith("✓")
    assert lnlib.check("03.mean_pear", True) is None
    out = capsys.readouterr().out
    assert out.startswith("✗") and "布尔" in out
    assert lnlib.check("03.mean_pear", None) is None
    assert "尚未作答" in capsys.readouterr().out


# ---------------------------------------------------------------- tolerances (issue 12 item 2)


def test_following_the_hint_is_accepted():
    """x̂ ≈ 1.342 as hinted: 2 × 1.342 + 1 = 3.684 (exact 3.6833) must pass; 2 decimals too early must not."""
    xhat = np.round((np.array([2.0, 4, 6, 8]) - 5) / np.sqrt(5), 3)
    y = np.round(np.array([0.5, 1, 1, 2]) * xhat + [-1, 0, 0, 1], 3)
    assert list(y) == [-1.671, -0.447, 0.447, 3.684]
    assert judge("06.y_apple", y).ok
    xhat2 = np.round(xhat, 2)
    verdict = judge("06.y_apple", np.round(np.array([0.5, 1, 1, 2]) * xhat2 + [-1, 0, 0, 1], 3))
    assert not verdict.ok and "取整太早" in verdict.message


@pytest.mark.parametrize("name", sorted(n for n, e in EXERCISES.items() if not isinstance(e.expected, str)))
def test_every_numeric_answer_rounded_to_three_decimals_passes(name):
    """Three decimals is what the questions ask for at most; the rounded exact answer may never be refused."""
    exercise = EXERCISES[name]
    want = np.asarray(exercise.expected, dtype=np.float64)
    if exercise.atol == 0:
        assert np.array_equal(want, np.round(want)), "an exact (atol=0) answer must be a whole number"
        return
    decimals = 3 if exercise.atol >= 5e-4 else 6
    assert judge(name, np.round(want, decimals).tolist()).ok


def test_rounded_to_two_decimals_where_the_question_allows_it():
    assert judge("04.unbiased_std", 25.82).ok and judge("04.unbiased_std", 25.8199).ok
    assert not judge("04.unbiased_std", 25.8).ok


# ---------------------------------------------------------------- diagnosing hints (issue 12, "hints that diagnose")


@pytest.mark.parametrize(
    "name, answer, says",
    [
        ("03.variance_pear", 26 / 3, "d − 1"),  # 梨 [3, 5, 6, 10]: deviations [−3, −1, 0, 4]
        ("03.variance_pear", np.sqrt(6.5), "标准差"),
        ("03.variance_pear", (9 + 25 + 36 + 100) / 4, "忘了先减去均值"),
        ("03.std_apple", 5, "忘了开平方根"),
        ("03.xhat_pear", [-1.019, -0.340, 0, 1.359], "d − 1"),  # 梨: (x − 6) / √(26/3)
        ("03.xhat_pear", [-0.462, -0.154, 0, 0.615], "忘了开平方根"),  # (x − 6) / 6.5
        ("03.xhat_pear", [1.177, 0.392, 0, -1.569], "符号反了"),
        ("03.xhat_pear", [-1.2, -0.4, 0, 1.6], "取整太早"),  # σ = 2.55 rounded to 2.5
        ("03.xhat_pear", [-3, -1, 0, 4], "忘了除以 σ"),
        ("04.var_ratio", 0.477, "根号外面"),
        ("02.row_means", [1.5, 3.5, 4.5, 8.5], "按列"),
        ("07.shape_mu", [2, 3, 1], "keepdims"),
        ("05.invariant_count", 3, "变号"),  # (a) W → −2W counted as invariant
        ("12.sum_dx", 0.2, "符号反了"),
        ("14.variance", 12, "d − 1"),  # [2, 4, 4, 10]: deviations [−3, −1, −1, 5], 36 / 3
        ("14.xhat_last", 5 / 9, "开根号"),
    ],
)
def test_typical_mistakes_are_named(name, answer, says):
    verdict = judge(name, answer)
    assert not verdict.ok and says in verdict.message, verdict.message


def test_the_four_changes_of_05_exercise_3_keep_two_outputs():
    """05.invariant_count, recomputed with scipy's z-score on random X, W: (b) and (d) keep the output, (a), (c) not."""
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(7)
    X, W, u, v = rng.normal(size=(6, 3)), rng.normal(size=(5, 3)), rng.normal(size=3), rng.normal(size=3)

    def out(X, W):
        return stats.zscore(X @ W.T, axis=-1)

    W_c = W.copy()
    W_c[1] += u
    kept = [np.allclose(o, out(X, W)) for o in (out(X, -2 * W), out(0.5 * X, W), out(X, W_c), out(3 * X, W + v))]
    assert kept == [False, True, False, True]
    assert judge("05.invariant_count", sum(kept)).ok


def test_the_missing_element_of_12_exercise_3_makes_the_row_sum_zero():
    """12.sum_dx: any row of dx sums to 0 (checked on a random row and upstream gradient with γ ≠ 1, ε > 0)."""
    rng = np.random.default_rng(3)
    x, dy, gamma = rng.normal(size=4) * 5, rng.normal(size=4), rng.normal(size=4)
    dx = lnlib.layer_norm_backward(dy, x, gamma, eps=1e-2)[0]
    assert abs(dx.sum()) < 1e-12
    assert judge("12.sum_dx", -(0.3 - 0.5 + 0.4)).ok and not judge("12.sum_dx", 0).ok


def test_wrong_axis_is_named():
    """x̂ of 苹果 computed down the columns (BatchNorm) or over the whole table, computed independently here."""
    m = np.array([[8.0, 6, 4, 2], [20, 40, 60, 80], [2, 4, 6, 8]])
    by_column = (m - m.mean(axis=0)) / m.std(axis=0)
    whole = (m - m.mean()) / m.std()
    assert "按列" in judge("03.xhat_apple", by_column[2]).message
    assert "整张表" in judge("03.xhat_apple", whole[2]).message


def test_other_wrong_answers_get_the_general_hint():
    verdict = judge("03.variance_pear", 17)
    assert not verdict.ok and "提示" in verdict.message and "看起来" not in verdict.message


# ---------------------------------------------------------------- choice answers (issue 12 item 15)


@pytest.mark.parametrize("typed", ["Post-LN", "post ln", "ＰＯＳＴ－ＬＮ", " post_ln ", "后置归一化", "POST"])
def test_choice_answers_ignore_case_width_spaces_and_accept_synonyms(typed):
    exercise = Exercise("post", "先相加，再归一化。", synonyms=("Post-LN", "后置", "后置归一化"))
    assert grade(exercise, typed).ok


def test_choice_answers_still_refuse_the_other_option():
    exercise = Exercise("post", "先相加，再归一化。", synonyms=("Post-LN", "后置"))
    assert not grade(exercise, "Pre-LN").ok and not grade(exercise, 1).ok
    assert normalize_choice("ＬａｙｅｒＮｏｒｍ") == "layernorm"


# ---------------------------------------------------------------- check_function (issue 12, code exercises)


def solution_functions() -> dict:
    found = {}
    for path in solution_paths():
        found.update(runpy.run_path(str(path)).get("FUNCTIONS", {}))
    return found


@pytest.mark.parametrize("name", sorted(CODE_EXERCISES))
def test_every_code_exercise_has_a_passing_solution(name):
    functions = solution_functions()
    if name not in functions:
        pytest.skip(f"{name}: its notebook's solution file does not define it yet")
    verdict = judge_function(name, functions[name])
    assert verdict.ok, verdict.message


def _layer_norm_unbiased(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=float)
    return gamma * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, ddof=1, keepdims=True) + eps) + beta


def _layer_norm_no_eps(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=float)
    return gamma * (x - x.mean(-1, keepdims=True)) / x.std(-1, keepdims=True) + beta


def _layer_norm_flat(x, gamma, beta, eps=1e-5):  # statistics over the whole array, not per row
    x = np.asarray(x, dtype=float)
    return gamma * (x - x.mean()) / np.sqrt(x.var() + eps) + beta


def _softmax_naive(z):
    e = np.exp(np.asarray(z, dtype=float))
    return e / e.sum(axis=-1, keepdims=True)


def _post_ln_block(x, sublayer, gamma, beta, eps=1e-5):
    return lnlib.layer_norm(x + sublayer(x), gamma, beta, eps=eps)


def _merge_naive(a, b):  # averages the means without weighting by n
    n = a[0] + b[0]
    return n, (a[1] + b[1]) / 2, a[2] + b[2]


def _raises(*args):
    raise ZeroDivisionError("oops")


def _placeholder(x, gamma, beta, eps=1e-5): ...


@pytest.mark.parametrize(
    "name, fn, failed, says",
    [
        ("07.layer_norm", _layer_norm_unbiased, "课程里的 3 × 4 token 矩阵", "期望"),
        ("07.layer_norm", _layer_norm_no_eps, "常数行", "inf 或 nan"),
        ("07.layer_norm", _layer_norm_flat, "课程里的 3 × 4 token 矩阵", "你的"),
        ("10.softmax", _softmax_naive, "很大的分数", "inf 或 nan"),
        ("09.pre_ln_block", _post_ln_block, "课程里的 3 × 4 token 矩阵", "输入：x = "),
        ("13.welford_merge", _merge_naive, "[1, 2, 3] 和 [4, 5]", "期望"),
        ("07.layer_norm", _raises, "error", "ZeroDivisionError: oops"),
        ("07.layer_norm", _placeholder, "placeholder", "还没写"),
        ("07.layer_norm", None, "placeholder", "还没写"),
    ],
)
def test_wrong_functions_fail_with_the_right_message(name, fn, failed, says):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the learner's overflow warnings are caught inside, never shown
        verdict = judge_function(name, fn)
    assert not verdict.ok
    assert verdict.failed.startswith(failed) if failed in ("error", "placeholder") else failed in verdict.failed
    assert says in verdict.message, verdict.message


def test_check_function_prints_and_returns_none(capsys):
    assert lnlib.check_function("10.softmax", _softmax_naive) is None
    out = capsys.readouterr().out
    assert out.startswith("✗") and "（10.softmax）" in out and "[1000, 1001, 1002]" in out
    assert "1000." not in out  # numbers as a person writes them, not numpy's "1000."


def test_check_function_against_torch():
    """The references themselves agree with PyTorch (an independent implementation)."""
    torch = pytest.importorskip("torch")
    for case in CODE_EXERCISES["07.layer_norm"].cases():
        x, gamma, beta = (np.asarray(a, dtype=np.float64) for a in case.args)
        want = torch.nn.functional.layer_norm(
            torch.tensor(x), x.shape[-1:], torch.tensor(gamma), torch.tensor(beta), eps=1e-5
        ).numpy()
        assert np.allclose(CODE_EXERCISES["07.layer_norm"].reference(*case.args), want, rtol=1e-6, atol=1e-6)
    for case in CODE_EXERCISES["10.softmax"].cases():
        z = np.asarray(case.args[0], dtype=np.float64)
        want = torch.softmax(torch.tensor(z), dim=-1).numpy()
        assert np.allclose(CODE_EXERCISES["10.softmax"].reference(*case.args), want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", sorted(n for n, e in EXERCISES.items() if e.mistakes))
def test_every_named_mistake_is_recognised(name):
    """Each typical wrong answer is refused and named: never the right answer, never shadowed by an earlier one."""
    exercise = EXERCISES[name]
    for mistake in exercise.mistakes:
        value = mistake.raw_value()
        verdict = judge(name, value if isinstance(value, str) else mistake.wrong_value().tolist())
        assert not verdict.ok and mistake.why in verdict.message, (mistake.why, verdict.message)


@pytest.mark.parametrize(
    "name", sorted(n for n, e in EXERCISES.items() if n < "08" and not isinstance(e.expected, str))
)
def test_numeric_exercises_of_01_to_07_know_their_typical_mistakes(name):
    assert EXERCISES[name].mistakes, f"{name}: add the typical wrong answers (lnlib.grading.Mistake)"


# ---------------------------------------------------------------- predict, then reveal (issue 12)

REVEALS = [
    ("03-one-row-by-hand", "03.mean_apple", r"\frac{20}{4} = 5$$"),
    ("03-one-row-by-hand", "03.centered_apple", "= [-3, -1, 1, 3]$$"),
    ("03-one-row-by-hand", "03.variance_apple", r"\frac{9+1+1+9}{4}"),
    ("03-one-row-by-hand", "03.std_apple", r"\sigma = \sqrt{5} \approx 2.236"),
    ("03-one-row-by-hand", "03.xhat_apple", r"\approx [-1.342,\; -0.447"),
    ("04-epsilon", "04.eps_denominator", r"\approx 0.0032"),
    ("04-epsilon", "04.var_ratio", r"5/6 \approx 0.833"),
    ("04-epsilon", "04.eps_inside_small", "−0.775"),
    ("05-kept-and-lost", "05.norm_squared", "平方和总是 d = 4"),
    ("06-gamma-and-beta", "06.y_first", "= -2.184$$"),
    ("06-gamma-and-beta", "06.mean_y_apple", r"\approx -0.210"),
    ("07-full-formula", "07.shape_mu", "μ 是一个 2 × 3 的表"),
    ("07-full-formula", "07.count_multi", "答案是 2"),
]


def _cells(stem):
    return nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4).cells


@pytest.mark.parametrize(("stem", "name", "reveal"), REVEALS, ids=[r[1] for r in REVEALS])
def test_the_learner_is_asked_before_the_number_is_shown(stem, name, reveal):
    cells = _cells(stem)
    asked = [i for i, c in enumerate(cells) if c.cell_type == "code" and c.source.startswith(f"%%answer {name}\n")]
    shown = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and reveal in c.source]
    assert asked and shown, (asked, shown)
    assert asked[0] < shown[0], f"{name}: the number is shown in cell {shown[0]} before it is asked in cell {asked[0]}"


@pytest.mark.parametrize("stem", ["03-one-row-by-hand", "04-epsilon", "06-gamma-and-beta"])
def test_the_first_checked_cell_comes_early(stem):
    cells = _cells(stem)
    first = next(i for i, c in enumerate(cells) if c.cell_type == "code" and c.source.startswith("%%answer "))
    summary = next(i for i, c in enumerate(cells) if c.source.startswith("## 小结"))
    assert first < summary / 4, (first, summary)


@pytest.mark.parametrize(
    "name, typed",
    [
        ("16.predict_sigma", "约 0.1"),
        ("16.predict_sigma", "c 约 0.1"),
        ("16.predict_ablation", "(b) 换成 RMSNorm"),
        ("16.predict_final", "损失明显变大，准确率几乎不变"),
    ],
)
def test_a_choice_typed_as_its_option_text_is_accepted(name, typed):
    """A learner who copies the right option's words instead of its letter is right (found in a review of 16)."""
    assert judge(name, typed).ok and not judge(name, "a").ok
