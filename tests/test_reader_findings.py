"""Issue 40 follow-up: what a Chinese student reader found in the checker's feedback (notebooks 03, 07, 15, 16).

Every expected value here is the lesson's own number, worked out by hand or by a closed form in this file (√5 for
the σ of 苹果 [2, 4, 6, 8]; 10⁻³ · 10/50 for the warm-up; the option words as notebook 15 prints them), never a
value read back from lnlib.
"""

from __future__ import annotations

import math

import pytest

import lnlib
from lnlib import _record
from lnlib.answers import answer_cell, read_answer
from lnlib.exercises import EXERCISES, judge


@pytest.fixture(autouse=True)
def _fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("LNLIB_PROGRESS_DIR", str(tmp_path))
    _record.forget_tries()
    yield
    _record.forget_tries()


def typed(name: str, text: str):
    """The verdict on `text` typed into `%%answer name` (read as the cell reads it)."""
    return judge(name, read_answer(name, text))


# ---------------------------------------------------------------- right answers refused


NB15_DEPTH = {  # notebook 15, §1: the three options as printed
    "a": "差不多一样大",
    "b": "小很多，大约只有十分之一",
    "c": "大很多，大约是 10 倍",
}


@pytest.mark.parametrize(
    "text",
    ["b", "B", "(b)", "（b）", "b)", "b.", NB15_DEPTH["b"], f"(b) {NB15_DEPTH['b']}", "(b) 小很多…", "b 小很多", "0.1"],
)
def test_every_spelling_of_the_right_option_is_accepted(text):
    assert typed("15.predict_depth", text).ok, text


@pytest.mark.parametrize("text", ["a", "(a)", "a)", "无归一化", "(a) 无归一化", "a. 无归一化"])
def test_predict_scale_reads_its_option_by_letter_and_words(text):
    assert typed("15.predict_scale", text).ok, text


@pytest.mark.parametrize(
    ("name", "letter"),
    [(name, ex.expected) for name, ex in EXERCISES.items() if ex.options],
)
def test_one_rule_for_every_lettered_choice_question(name, letter):
    """The letter, "(x)", "x)", the option's printed words and "(x) words" all count, for every such question."""
    words = EXERCISES[name].options[letter][0]
    for text in (letter, f"({letter})", f"{letter})", words, f"({letter}) {words}"):
        assert typed(name, text).ok, (name, text)
    other = next(k for k in EXERCISES[name].options if k != letter)
    assert not typed(name, f"({other}) {EXERCISES[name].options[other][0]}").ok


def test_a_letter_and_words_that_disagree_are_named():
    verdict = typed("15.predict_depth", f"(b) {NB15_DEPTH['c']}")
    assert not verdict.ok and "又指向选项" in verdict.message and "(c)" in verdict.message, verdict.message
    assert str(EXERCISES["15.predict_depth"].hint) not in verdict.message  # not judged: no hint, no escalation


def test_an_unrecognised_choice_is_told_how_to_answer():
    verdict = typed("15.predict_depth", "变小了")
    assert not verdict.ok and "字母" in verdict.first and "标准差，不是方差" not in verdict.first, verdict.first


def test_a_word_is_not_read_as_a_letter():
    assert not typed("15.predict_scale", "batchnorm").ok  # "b…" is a word here, not option (b)


# ---------------------------------------------------------------- nudges that fit the mistake


def test_a_truncated_sigma_is_called_truncated():
    """√5 = 2.23606…: 2.23 cuts it off (rounding gives 2.24 or 2.236), it is not a σ/σ² confusion."""
    assert math.floor(math.sqrt(5) * 100) / 100 == 2.23
    verdict = typed("03.std_apple", "2.23")
    assert not verdict.ok and "截掉" in verdict.first and "σ²" not in verdict.first, verdict.first


def test_one_tolerance_rule_half_a_unit_of_the_last_decimal_asked():
    """03.std_apple and 03.xhat_apple both ask for three decimals: both accept ±0.0005 and name a cut-off answer."""
    assert EXERCISES["03.std_apple"].atol == EXERCISES["03.xhat_apple"].atol == 0.0005
    cut = [math.trunc(v / math.sqrt(5) * 1000) / 1000 for v in (-3, -1, 1, 3)]  # -1.341, -0.447, 0.447, 1.341
    verdict = judge("03.xhat_apple", cut)
    assert not verdict.ok and "截掉" in verdict.first, verdict.first
    assert judge("03.xhat_apple", [round(v / math.sqrt(5), 3) for v in (-3, -1, 1, 3)]).ok
    assert typed("03.std_apple", "2.236").ok and not typed("03.std_apple", "2.237").ok
    # second reader: 03.xhat_pear (保留三位小数 too) accepted the cut-off 1.568 for 1.5689
    pear = [(v - 6) / math.sqrt(6.5) for v in (3, 5, 6, 10)]
    cut_pear = [math.trunc(v * 1000) / 1000 for v in pear]  # -1.176, -0.392, 0, 1.568
    assert not judge("03.xhat_pear", cut_pear).ok and "截掉" in judge("03.xhat_pear", cut_pear).first
    assert judge("03.xhat_pear", [round(v, 3) for v in pear]).ok


@pytest.mark.parametrize(
    ("text", "says", "not_said"),
    [
        ("0.2", "η", "t + 1，不是 t"),  # 10/50: forgot the base learning rate
        ("2e-5", "第 0 步", "t + 1，不是 t"),  # 10⁻³/50: forgot (t + 1)
    ],
)
def test_warmup_mistakes_get_their_own_diagnosis(text, says, not_said):
    assert 1e-3 * (9 + 1) / 50 == pytest.approx(2e-4)  # the right answer, for reference
    verdict = typed("15.warmup_value", text)
    assert not verdict.ok and says in verdict.first and not_said not in verdict.first, verdict.first


GENERAL = "再对照这一节的公式"


@pytest.mark.parametrize(
    ("name", "text"),
    [("07.shape_mu", "[5, 7]"), ("07.count_multi", "5"), ("07.image_mu_count", "3"), ("16.xhat_guo", "1, 1, 1")],
)
def test_questions_without_a_formula_get_their_own_nudge(name, text):
    verdict = typed(name, text)
    assert not verdict.ok and GENERAL not in verdict.first and "提示" in verdict.first, verdict.first


def test_pre_or_post_gets_a_nudge_about_writing_pre_or_post():
    verdict = typed("15.predict_post", "前")
    assert not verdict.ok and "pre" in verdict.first and "选项放回" not in verdict.first, verdict.first


# ---------------------------------------------------------------- common mistakes recognised


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        ("07.shape_mu", "(3,)", "(n, d)"),  # the matrix case copied
        ("07.shape_mu", "6", "μ 的个数"),  # 2 × 3 μ's: a count, not a shape
        ("07.count_multi", "24", "所有数"),  # 2 × 3 × 4
        ("07.count_multi", "1", "整个张量"),
        ("16.xhat_guo", "-0.546, 1.070, -0.269", "加上了 μ"),  # (x + μ)/σ for x = −0.0480, 0.0884, −0.0246
    ],
)
def test_common_mistakes_are_named(name, text, says):
    verdict = typed(name, text)
    assert not verdict.ok and says in verdict.mistake, (verdict.mistake, verdict.first)


def test_the_x_plus_mu_values_are_the_lessons():
    x, mu, sigma = (-0.0480, 0.0884, -0.0246), 0.00188, 0.0844
    assert [round((v + mu) / sigma, 3) for v in x] == [-0.546, 1.070, -0.269]


@pytest.mark.parametrize("text", ["2 × 3", "2×3", "2x3", "(2, 3)", "[2, 3]", "2, 3"])
def test_a_shape_is_read_as_a_shape(text):
    """The course writes shapes as "2 × 3": for a shape question that is (2, 3), not the product 6."""
    assert typed("07.shape_mu", text).ok, text


def test_a_product_stays_a_product_outside_shape_questions():
    assert read_answer("06.param_count", "2×512").tolist() == 1024


@pytest.mark.parametrize(("text", "value"), [("√2/2", math.sqrt(2) / 2), ("√5/2", math.sqrt(5) / 2)])
def test_a_root_over_a_number_has_one_reading(text, value):
    """√2/2 = 0.7071…, 16.eps_shrink's answer 0.1/√0.02."""
    assert float(read_answer("16.eps_shrink", text)) == pytest.approx(value, rel=1e-15)
    assert typed("16.eps_shrink", "√2/2").ok


# ---------------------------------------------------------------- the answer only on the third try


@pytest.mark.parametrize(
    ("name", "text", "answer"),
    [
        ("07.shape_mu", "1", "2 维"),
        ("07.param_no_bias", "260", "4 × 256 个数"),
        ("15.predict_batch1", "0", "三分之一"),
    ],
)
def test_the_first_two_tries_never_hand_over_the_answer(name, text, answer):
    verdict = typed(name, text)
    assert not verdict.ok
    assert answer not in verdict.text(1) and answer not in verdict.text(2), verdict.text(1)


def test_the_tries_say_once_where_the_solution_is_and_the_third_gives_it(capsys):
    for _ in range(3):
        answer_cell("07.count_multi", "5")
    first, second, third = capsys.readouterr().out.split("✗")[1:]
    assert "第三次" in first and "lnlib.hint" not in first
    assert second.count("解法") == 1 and "lnlib.hint" in second and "第三次" not in second, second
    assert "解法：" in third and "答案：2" in third and "lnlib.hint" not in third, third


# ---------------------------------------------------------------- wording


def test_token_names_are_quoted_as_the_notebooks_quote_them():
    for name in ("03.mean_apple", "03.mean_pear", "03.xhat_pear", "04.var_ratio", "06.y_apple"):
        hint = str(EXERCISES[name].hint)
        assert "苹果 " not in hint and "梨 " not in hint, hint
        assert "「苹果」" in hint or "「梨」" in hint, hint


def test_the_ablation_mistake_says_smaller_as_a_fraction():
    text = str(EXERCISES["16.predict_ablation"].mistakes[0].said)
    assert "几分之一到十几分之一" in text and "小一到十几倍" not in text


def test_lnlib_hint_still_prints_the_answer(capsys):
    lnlib.hint("07.count_multi")
    assert "答案：2" in capsys.readouterr().out


# ---------------------------------------------------------------- 15.adam_step: the code exercise's mistakes


def _adam(param, grad, m, v, t, lr, *, state="raw", eps_inside=False, shift=0):
    """A learner's Adam step (β₁ = 0.9, β₂ = 0.999, ε = 1e-8 as notebook 15 states), written here from the formula."""
    m = 0.9 * m + 0.1 * grad
    v = 0.999 * v + 0.001 * grad**2
    m_hat, v_hat = m / (1 - 0.9 ** (t + shift)), v / (1 - 0.999 ** (t + shift))
    root = (v_hat + 1e-8) ** 0.5 if eps_inside else v_hat**0.5 + 1e-8
    step = param - lr * m_hat / root
    return (step, m_hat, v_hat) if state == "hat" else (step, m, v)


@pytest.mark.parametrize(
    ("kw", "says"),
    [({"state": "hat"}, "m̂、v̂"), ({"eps_inside": True}, "根号里"), ({"shift": 1}, "t + 1")],
)
def test_adam_step_mistakes_are_named(kw, says):
    from lnlib.code_exercises import judge_function

    assert judge_function("15.adam_step", _adam).ok  # the formula as written passes
    verdict = judge_function("15.adam_step", lambda *a: _adam(*a, **kw))
    assert not verdict.ok and says in verdict.mistake, (verdict.mistake, verdict.message)


# ---------------------------------------------------------------- lnlib.progress()


def test_progress_names_notebooks_as_the_notebooks_do_and_lists_what_is_open(capsys):
    lnlib.check("03.mean_pear", 6)  # [3, 5, 6, 10]: (3 + 5 + 6 + 10) / 4 = 6
    capsys.readouterr()
    lnlib.progress()
    shown = capsys.readouterr().out
    line = next(line for line in shown.splitlines() if "第 3 篇" in line)
    assert "第 03 篇" not in shown and "还没答对" in line and "xhat_pear" in line and "mean_pear" not in line, line
    untouched = next(line for line in shown.splitlines() if "第 4 篇" in line)
    assert "还没答对" not in untouched  # a notebook not begun is simply all open


def test_a_revealed_question_counts_its_first_answer_only(capsys):
    """03.std_apple's reveal shows σ = √5 once it is tried: a wrong first answer (σ² = 5) then √5 is not 答对."""
    from lnlib.hints import progress_counts

    lnlib.check("03.std_apple", 5)
    lnlib.check("03.std_apple", math.sqrt(5))
    lnlib.check("03.mean_apple", 5)  # right the first time: counted
    capsys.readouterr()
    assert progress_counts()["03"][0] == 1
    lnlib.progress()
    shown = capsys.readouterr().out
    assert "std_apple" in shown and "第一次答错" in shown and "只算第一次" in shown, shown


def test_the_revealed_set_is_the_notebooks_reveal_cells():
    import json

    from lnlib.exercises import REVEALED
    from tools.course import REVEAL_CALL, notebook_paths

    names = set()
    for path in notebook_paths():
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if m := REVEAL_CALL.match("".join(cell["source"])):
                names.add(m.group(1))
    assert names and set(REVEALED) == names


def test_the_solution_names_the_option_by_letter_and_words(capsys):
    lnlib.hint("15.predict_depth")
    assert f"「(b) {NB15_DEPTH['b']}」" in capsys.readouterr().out


def test_two_letters_are_not_read_as_the_first():
    verdict = typed("15.predict_depth", "b 和 c")
    assert not verdict.ok and "又指向选项" in verdict.message, verdict.message


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        ("03.centered_apple", "2 4 6 8", "μ"),  # 「苹果」 itself: μ = 5 never subtracted
        ("03.xhat_apple", "-1.5 -0.5 0.5 1.5", "√5"),  # (x − 5) / 2: σ = √5 rounded to a whole number first
    ],
)
def test_the_second_readers_unnamed_mistakes_are_named(name, text, says):
    """Second student reader: these two got only the generic hint."""
    verdict = typed(name, text)
    assert not verdict.ok and says in verdict.first and "提示" not in verdict.first, verdict.first
