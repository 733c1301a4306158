"""Assignment 03 (notebook 03, one row by hand): μ, σ², x̂ of the student's own row, and a diagnosis."""

from __future__ import annotations

import numpy as np

from lnlib.data import TOKEN_MATRIX
from lnlib.grading import Exercise, Mistake, rounded_early, row_mistakes, show_array, show_number
from lnlib.i18n import lazy
from lnlib.stages import mean, variance

from . import Assignment, Question, Text

_FORMATIVE = [tuple(r) for r in TOKEN_MATRIX.tolist()] + [(3.0, 5.0, 6.0, 10.0)]  # rows the lesson uses
_ROUND3 = 5e-4

# The task text (intro, questions, the options below, the answer cells' comments) is course content, written here
# in both languages side by side (`Text`); the words of the feedback (hints, mistakes) and the title are messages of
# the catalogue domain `grading` (keys grading.hw03.*), so the grader speaks the language it is asked to.

# the diagnosis question: how a classmate's σ² was computed wrong (letter -> what went wrong)
_WAYS = {
    "a": Text("除以了 d − 1（无偏方差）", "divided by d − 1 (the unbiased variance)"),
    "b": Text("忘了先减去均值 μ（算成了 x² 的平均）", "forgot to subtract the mean μ first (took the mean of x²)"),
    "c": Text("给出的是标准差 σ，不是方差 σ²", "gave the standard deviation σ, not the variance σ²"),
    "d": Text("忘了除以 d（偏差平方的和）", "forgot to divide by d (the sum of the squared deviations)"),
}


def _wrong_variance(x: np.ndarray, letter: str) -> float:
    var, d = float(variance(x)), x.size
    return {
        "a": var * d / (d - 1),
        "b": float((x**2).mean()),
        "c": float(np.sqrt(var)),
        "d": var * d,
    }[letter]


def variant(rng: np.random.Generator) -> dict:
    while True:
        x = rng.integers(1, 16, size=4).astype(np.float64)
        if len(set(x.tolist())) == 4 and tuple(x.tolist()) not in _FORMATIVE and float(variance(x)) > 1:
            break
    return {"x": x, "way": "abcd"[int(rng.integers(0, 4))]}


def _intro(v: dict) -> Text:
    return Text(
        "这份作业用的是**你自己的一行数**（每位同学的数都不一样），对应课程第 3 篇（手算一行）。\n"
        "答案单元格和课程里的一样：在 `%%answer` 那一行下面直接写答案，运行它，看看读到的是不是你想写的；"
        "全部做完后保存并提交这个 notebook。\n\n"
        "- 不需要也请不要修改锁定的单元格（批改只看你的答案单元格）。\n"
        "- 小数保留三位即可；几个数写成 `1.5, -0.5, 2, 0`（逗号、顿号、空格都行，方括号可有可无）。\n"
        "- 可以用 Python 帮你算，但最后一题要你**诊断**一个错误，只会调用函数是答不出来的。",
        "This assignment uses **a row of numbers of your own** (every student gets different ones) and goes "
        "with notebook 3 of the course (one row by hand).\n"
        "The answer cells work as in the course: type your answer on the line below `%%answer`, run the cell and "
        "check that it read what you meant; when you are done, save this notebook and hand it in.\n\n"
        "- There is no need to edit the locked cells, so please don't (only your answer cells are graded).\n"
        "- Three decimal places are enough; write several numbers as `1.5, -0.5, 2, 0` (commas or spaces both "
        "work, the square brackets are optional).\n"
        "- You may let Python do the arithmetic, but the last question asks you to **diagnose** a mistake, and "
        "calling a function will not answer it.",
    )


def _data(v: dict) -> Text:
    x = f"\nx = {[int(t) for t in v['x']]}"
    return Text("# 你的这一行（d = 4）：请不要修改" + x, "# your row (d = 4): please do not change it" + x)


def _mean_ex(v: dict) -> Exercise:
    x = v["x"]
    return Exercise(mean(x), lazy("grading.hw03.mean_hint"), atol=_ROUND3, mistakes=row_mistakes([x], 0, "mean"))


def _var_ex(v: dict) -> Exercise:
    x = v["x"]
    return Exercise(
        float(variance(x)),
        lazy("grading.hw03.variance_hint"),
        atol=_ROUND3,
        mistakes=row_mistakes([x], 0, "variance"),
    )


def _xhat_ex(v: dict) -> Exercise:
    x = v["x"]
    mu, var, d = mean(x), float(variance(x)), x.size
    sd = np.sqrt(var)
    return Exercise(
        (x - mu) / sd,
        lazy("grading.hw03.xhat_hint"),
        atol=1e-3,
        mistakes=(
            Mistake(lazy("grading.hw03.xhat_ddof"), (x - mu) / np.sqrt(var * d / (d - 1))),
            Mistake(lazy("grading.hw03.xhat_no_root"), (x - mu) / var),
            Mistake(lazy("grading.hw03.xhat_no_divide"), x - mu),
            Mistake(lazy("grading.hw03.xhat_no_center"), x / sd),
            Mistake(lazy("grading.hw03.xhat_sign"), (mu - x) / sd),
            rounded_early((x - mu) / round(float(sd), 1)),
        ),
    )


def _diagnose_ex(v: dict) -> Exercise:
    x, way = v["x"], v["way"]
    wrong = _wrong_variance(x, way)
    mistakes = tuple(
        Mistake(
            lazy(
                "grading.hw03.diagnose_way",
                way=why,
                value=show_number(_wrong_variance(x, letter)),
                wrong=show_number(wrong),
            ),
            letter,
        )
        for letter, why in _WAYS.items()
        if letter != way
    )
    return Exercise(way, lazy("grading.hw03.diagnose_hint"), mistakes=mistakes)


def _prompt_diagnose(v: dict) -> Text:
    wrong = show_number(_wrong_variance(v["x"], v["way"]))
    options = {
        lang: "\n".join(f"- **{k}**{sep}{getattr(why, lang)}" for k, why in _WAYS.items())
        for lang, sep in (("zh", "："), ("en", ": "))
    }
    return Text(
        f"**第 4 题（诊断）** 一位同学算你这一行的方差，得到了 **{wrong}**。"
        f"他错在哪里？在答案单元格里写一个字母（a、b、c 或 d）。\n\n{options['zh']}",
        f"**Question 4 (diagnosis)** A classmate computed the variance of your row and got **{wrong}**. "
        f"What went wrong? Write one letter (a, b, c or d) in the answer cell.\n\n{options['en']}",
    )


_ONE_NUMBER = Text("# 在下面一行写你的答案（一个数）", "# write your answer on the line below (one number)")


def _xhat_solution(v: dict) -> str:
    x = v["x"]
    return show_array((x - mean(x)) / np.sqrt(variance(x)), 6)


ASSIGNMENT = Assignment(
    number="03",
    slug="hw03-one-row-by-hand",
    title=lazy("grading.hw03.title"),
    variant=variant,
    intro=_intro,
    data=_data,
    questions=(
        Question(
            "03.mean",
            1,
            Text("**第 1 题** 你这一行 `x` 的均值 μ 是多少？", "**Question 1** What is the mean μ of your row `x`?"),
            "mu",
            _ONE_NUMBER,
            lambda v: show_number(mean(v["x"]), 8),
            exercise=_mean_ex,
        ),
        Question(
            "03.variance",
            1,
            Text(
                "**第 2 题** 这一行的方差 σ²（LayerNorm 的方差，除以 d）是多少？",
                "**Question 2** What is the variance σ² of this row (LayerNorm's variance, dividing by d)?",
            ),
            "var",
            _ONE_NUMBER,
            lambda v: show_number(variance(v["x"]), 8),
            exercise=_var_ex,
        ),
        Question(
            "03.xhat",
            1,
            Text(
                "**第 3 题** 这一行归一化以后的 x̂（ε = 0，四个数，保留三位小数）是多少？",
                "**Question 3** What is the normalized row x̂ (ε = 0, four numbers, three decimal places)?",
            ),
            "xhat",
            Text(
                "# 在下面一行写你的答案（四个数，用逗号隔开）",
                "# write your answer on the line below (four numbers, separated by commas)",
            ),
            _xhat_solution,
            exercise=_xhat_ex,
        ),
        Question(
            "03.diagnose",
            1,
            _prompt_diagnose,
            "diagnosis",
            Text("# 在下面一行写一个字母：a、b、c 或 d", "# write one letter on the line below: a, b, c or d"),
            lambda v: v["way"],
            exercise=_diagnose_ex,
        ),
    ),
)
