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
        answer_cell("02.count", "5")
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


def _adam(param, grad, m, v, t, lr, *, state="raw", eps_inside=False, shift=0, eps=1e-8):
    """A learner's Adam step (β₁ = 0.9, β₂ = 0.999, ε = 1e-8 as notebook 15 states), written here from the formula."""
    m = 0.9 * m + 0.1 * grad
    v = 0.999 * v + 0.001 * grad**2
    m_hat, v_hat = m / (1 - 0.9 ** (t + shift)), v / (1 - 0.999 ** (t + shift))
    root = (v_hat + eps) ** 0.5 if eps_inside else v_hat**0.5 + eps
    step = param - lr * m_hat / root
    return (step, m_hat, v_hat) if state == "hat" else (step, m, v)


@pytest.mark.parametrize(
    ("kw", "says"),
    [
        ({"state": "hat"}, "m̂、v̂"),
        ({"eps_inside": True}, "根号里"),
        ({"shift": 1}, "t + 1"),
        ({"eps": 1e-7}, "Keras"),  # a review found ε = 1e-7 accepted: every gradient was ≥ 1e-3
    ],
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


# ---------------------------------------------------------------- issue 44: the English reviewers' feedback findings
# Both reviews of notebooks/en 00–14 (C1–C7 and the per-notebook lnlib items). The same mistake catalogue serves both
# languages, so each finding is checked in English and, where the Chinese said the same, in Chinese.


@pytest.fixture
def english():
    lnlib.set_language("en")
    yield
    lnlib.set_language("zh")


def first_try(name: str, text: str) -> str:
    """What the first wrong try of `text` in `%%answer name` prints."""
    return typed(name, text).text(1)


def test_a_question_with_a_reveal_sends_a_wrong_first_answer_to_its_check_cell(capsys, english):
    """C1: the reveal below shows the result at once, and lnlib.progress() counts only the first answer."""
    answer_cell("04.var_ratio", "2")
    out = capsys.readouterr().out
    assert "run the check cell below" in out and "only your first answer counts" in out, out
    assert "third try" not in out, out
    answer_cell("02.count", "5")  # no reveal: the tries go on as before
    assert "third try" in capsys.readouterr().out


def test_a_question_with_a_reveal_says_so_in_chinese_too(capsys):
    answer_cell("03.std_apple", "7")
    out = capsys.readouterr().out
    assert "核对单元格" in out and "第一次回答" in out and "第三次" not in out, out


def test_the_general_nudge_points_at_the_question_not_at_formulas(english):
    """C2: '8' for 02.count (no formula there) and '102399' for 06.param_count got 'the formulas of this section'."""
    text = first_try("06.param_count", "1000")
    assert "formulas" not in text and "this question is about" in text, text


def test_a_quiz_question_sends_the_reader_back_to_its_notebook(english):
    """C2, review 08–14 item 14.5: the quiz's own nudge."""
    text = first_try("14.attention_scale", "3")
    assert "notebook named in the question" in text and "formulas" not in text, text
    assert "回到题目里写的那一篇" in (lnlib.set_language("zh") or first_try("14.attention_scale", "3"))


def test_too_few_decimals_says_to_round_only_at_the_end(english):
    """C3: √5 = 2.2360…, asked to three decimals; 2.24 is it rounded to two."""
    text = first_try("03.std_apple", "2.24")
    assert "Too few decimal places" in text and "round only the final answer" in text, text


@pytest.mark.parametrize("name, text", [("07.shape_mu", "(3, 2)"), ("02.row_means", "5 4")])
def test_reversed_order_does_not_speak_of_rows_and_dimensions(english, name, text):
    """C4: a shape (2, 3) typed (3, 2) and the means [4, 5] typed [5, 4]."""
    said = first_try(name, text)
    assert "wrong order" in said and "which row" not in said, said


def test_the_answer_is_echoed_with_the_digits_typed(english):
    """C5: 0.999998 for 04.var_ratio was echoed as 1."""
    text = first_try("04.var_ratio", "0.999998")
    assert "Your answer is 0.999998." in text, text


@pytest.mark.parametrize("typed_text, shown", [("sqrt(5)", "√5"), ("np.sqrt(5)", "√5"), ("[sqrt(2.25), 1]", "√2.25")])
def test_a_square_root_written_as_code_gets_the_way_to_write_it(typed_text, shown):
    """C6: 'sqrt(5)' was told its brackets are unpaired; √5 = 2.2360…, √2.25 = 1.5."""
    from lnlib.text_input import parse_numbers

    with pytest.raises(ValueError) as err:
        parse_numbers(typed_text)
    decimal = {"√5": "2.236", "√2.25": "1.5"}[shown]
    assert shown in str(err.value) and decimal in str(err.value) and "括号" not in str(err.value), err.value


@pytest.mark.parametrize(
    "name, text, starts",
    [
        ("03.mean_apple", "20", "You added the numbers up but did not divide by d = 4"),  # 2 + 4 + 6 + 8
        ("03.xhat_pear", "-0.462, -0.154, 0, 0.615", "You forgot the square root"),  # [−3, −1, 0, 4] / 6.5
        ("01.ratio", "0.3", "You have it upside down"),
    ],
)
def test_a_named_mistake_is_a_sentence_with_a_subject(english, name, text, starts):
    """C7: 'Only added up, forgot to divide by d = 4.' and the like."""
    said = typed(name, text).mistake
    assert said.startswith(starts), said


def test_the_upside_down_ratio_no_longer_gives_the_factor(english):
    """01.ratio: '0.3' was told 'its output is 10 / 3 times the output of [6, 12, 18, 24]'."""
    text = first_try("01.ratio", "0.3")
    assert "10 / 3" not in text and "3.33" not in text and "greater than 1" in text, text
    lnlib.set_language("zh")
    text = first_try("01.ratio", "0.3")
    assert "10 / 3" not in text and "大于 1" in text, text


def test_the_ratio_of_the_wrong_pair_names_both_pairs(english):
    text = first_try("01.ratio", "3")
    assert "compares “吃” with [6, 12, 18, 24]" in text and "and it" not in text, text
    assert "each of their outputs" in str(EXERCISES["01.ratio"].nudge)


def test_counting_every_number_of_the_table_is_named():
    """02.count: the 2 × 4 table has 8 numbers; '8' got only the generic hint."""
    verdict = typed("02.count", "8")
    assert "每一行一个" in verdict.mistake, verdict.first
    assert "one μ per row, so count the rows" in (lnlib.set_language("en") or str(EXERCISES["02.count"].hint))
    lnlib.set_language("zh")


def test_all_four_invariant_does_not_say_which_two_change(english):
    """05.invariant_count '4': the old text named both changes (a negative scale, one hidden unit)."""
    text = first_try("05.invariant_count", "4")
    assert "(a)" in text and "(c)" in text and "flips" not in text, text


def test_apples_own_xhat_for_the_swapped_row_is_named(english):
    """05.swap_shift: x̂ of 苹果 = ([2, 4, 6, 8] − 5) / √5 = [−1.342, −0.447, 0.447, 1.342]."""
    text = first_try("05.swap_shift", "-1.342 -0.447 0.447 1.342")
    assert "own x̂" in text and "+100 does cancel" in text, text


@pytest.mark.parametrize("count", ["102400", "51200"])  # 2 · 512 · 100 and 512 · 100
def test_a_set_of_parameters_per_token_is_named(count):
    """06.param_count: the message 'every token has its own set' fired for 1, not for the per-token counts."""
    assert "各有一套" in typed("06.param_count", count).mistake
    assert "各有一套" not in typed("06.param_count", "1").first


def test_summing_beta_is_told_a_mean_divides(english):
    text = first_try("06.mean_after", "1")
    assert "divides by how many numbers" in text and "the mean of β" not in text, text


def test_the_count_multi_hint_says_one_mean_per_sentence(english):
    assert "one μ per sentence, so count the sentences" in str(EXERCISES["07.count_multi"].hint)


def _one_pass_layer_norm(x, gamma, beta, eps=1e-5):
    import numpy as np

    mu = x.mean(axis=-1, keepdims=True)
    var = (x**2).mean(axis=-1, keepdims=True) - mu**2  # E[x²] − E[x]²: cancels at a +10⁸ offset
    return gamma * (x - mu) / np.sqrt(np.maximum(var, 0) + eps) + beta


def test_the_offset_input_is_shown_with_its_offset(english):
    """07 code exercise: the failing '+10⁸' case showed 'x = [10⁸, 10⁸, 10⁸, 10⁸]', a constant row to the eye."""
    from lnlib.code_exercises import judge_function

    verdict = judge_function("07.layer_norm", _one_pass_layer_norm)
    assert not verdict.ok and "10⁸" in verdict.failed, verdict.message
    assert "x = 10⁸ + [" in verdict.message and "[10⁸, 10⁸" not in verdict.message, verdict.message


def test_the_first_failed_code_run_says_where_the_full_code_is(english):
    """07 code exercise: 'Try once more for a more specific hint.' promised what the second run does not give."""
    from lnlib.code_exercises import judge_function

    first = judge_function("07.layer_norm", _one_pass_layer_norm).text(1)
    assert 'lnlib.hint("07.layer_norm") shows the full code' in first and "Try once more" not in first, first


def test_the_rms_constant_row_is_labelled_with_its_rms(english):
    """11.rms_norm: [3, 3, 3, 3] has RMS √(mean of 9s) = 3, not σ² = 0."""
    from lnlib.code_exercises import CODE_EXERCISES

    rms = [str(c.label) for c in CODE_EXERCISES["11.rms_norm"].cases()]
    ln = [str(c.label) for c in CODE_EXERCISES["07.layer_norm"].cases()]
    assert any("RMS = 3" in label for label in rms) and not any("σ² = 0" in label for label in rms), rms
    assert any("σ² = 0" in label for label in ln), ln


def test_worked_answers_print_the_word_of_the_language(capsys, english):
    """08.bn_weight_vector printed 'Answer: “不变”'; 14.lost and 14.one_pass printed the Chinese option."""
    from lnlib.exercises import answer_text

    assert answer_text("08.bn_weight_vector") == "“unchanged”"
    assert answer_text("14.lost") == "“(b) the overall mean of the row”"
    assert answer_text("14.one_pass") == "“(b) one-pass: E[x^2] - E[x]^2”"
    lnlib.set_language("zh")
    assert answer_text("08.bn_weight_vector") == "「不变」"
    assert answer_text("14.lost") == "「(b) 这一行整体的平均值」"


def test_a_word_that_is_no_answer_is_told_the_two_words(english):
    """08.bn_weight_vector 'bigger'."""
    assert "“changed” or “unchanged”" in first_try("08.bn_weight_vector", "bigger")


@pytest.mark.parametrize(
    "name, text, says",
    [
        ("08.bn_col_var", "5", "variance of a row"),  # row 我 [8, 6, 4, 2]: mean 5, squares 9 1 1 9 → 5
        ("10.uniform_entropy", "0.2", "each weight, 1/5"),
        ("11.rms_small", "0.2, 0.4, 0.4, 0.8", "√(sum of squares)"),  # [1, 2, 2, 4] / √25
        ("14.rms_first", "0.109", "√(sum of squares)"),  # 1 / √(1 + 9 + 25 + 49) = 1 / √84 = 0.1091
    ],
)
def test_the_reviewers_unnamed_mistakes_are_named(english, name, text, says):
    verdict = typed(name, text)
    assert says in verdict.mistake, verdict.first


@pytest.mark.parametrize(
    "name, text, gives_away",
    [
        ("12.sum_dx", "0.2", "minus the sum"),  # the fourth is −(0.3 − 0.5 + 0.4) = −0.2
        ("13.float16_overflow", "255", "next one up"),
        ("13.one_pass_f32", "1.25", "rounded away"),
        ("14.merge_m2", "20", "sum of both"),  # 20 + 20 = 40 was the answer itself
    ],
)
def test_a_first_wrong_try_keeps_the_answer_back(english, name, text, gives_away):
    said = first_try(name, text)
    assert not typed(name, text).ok and gives_away not in said, said


def test_the_zero_sum_of_dx_is_said_of_the_four_entries(english):
    assert "four entries added together" in first_try("12.sum_dx", "0")


def test_the_two_pass_deviations_are_those_of_the_question(english):
    """14.one_pass: 10⁴ + [0, 1, 2, 3] has μ = 10001.5, so the deviations are ±0.5 and ±1.5."""
    assert "±0.5 and ±1.5" in typed("14.one_pass", "a").mistake


@pytest.mark.parametrize("name, said", [("14.pre_ln", "b"), ("14.pre_ln", "LN(x + F(x))")])
def test_pre_ln_feeds_the_sublayer(english, name, said):
    assert "feeds the result to the sublayer" in typed(name, said).mistake


def test_nan_for_the_constant_row_is_told_what_eps_does(english):
    """14.constant_row: [4, 4, 4, 4] − 4 = 0, divided by √(0 + ε) > 0: all 0, not 0/0."""
    with pytest.raises(ValueError) as err:
        read_answer("14.constant_row", "nan")
    assert "0/0" in str(err.value) and "ε" in str(err.value), err.value
    with pytest.raises(ValueError) as err:
        read_answer("14.residual", "nan")  # elsewhere the reader's general words
    assert "0/0" not in str(err.value)


def test_the_pre_ln_code_exercise_says_the_same(english):
    """09.pre_ln_block's Post-LN way: 'normalizes first and then enters the sublayer'."""
    from lnlib.i18n import message

    assert "feeds the result to the sublayer" in message("codex.way.pre_ln.1")
