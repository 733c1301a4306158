"""Assignment 07 (notebook 07, the full formula): write layer_norm, apply γ and β by hand, a shape, a prediction."""

from __future__ import annotations

import numpy as np

from lnlib.code_exercises import Case
from lnlib.data import TOKEN_MATRIX
from lnlib.grading import Exercise, Mistake, show_array, show_number
from lnlib.i18n import lazy
from lnlib.norms import layer_norm

from . import Assignment, Question, Text

# The task text (intro, questions, the answer cells' comments) is course content, written here in both languages
# side by side (`Text`); the answer codes 不变/会变 are the same in both (lnlib.grading accepts English words for
# them); the words of the feedback (hints, mistakes, what each test input is) and the title are messages
# of the catalogue domain `grading` (keys grading.hw07.*), so the grader speaks the language it is asked to.

_FUNCTION = (
    "def layer_norm(x, gamma, beta, eps=1e-5):\n"
    "    x = np.asarray(x, dtype=float)\n"
    "    mu = x.mean(axis=-1, keepdims=True)\n"
    "    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)\n"
    "    return gamma * (x - mu) / np.sqrt(var + eps) + beta"
)


def variant(rng: np.random.Generator) -> dict:
    while True:
        x = rng.integers(-6, 10, size=4).astype(np.float64)
        if len(set(x.tolist())) == 4 and tuple(x.tolist()) not in {tuple(r) for r in TOKEN_MATRIX.tolist()}:
            break
    gamma = rng.choice([0.5, 1.5, 2.0, 2.5, 3.0], size=4)
    beta = rng.choice([-2.0, -1.0, 0.5, 1.0, 2.0], size=4)
    shape = [int(rng.integers(2, 9)), int(rng.integers(3, 17)), int(rng.choice([16, 32, 64]))]
    scale = float(rng.choice([-3.0, -2.0, 2.0, 3.0]))
    shift = float(rng.integers(1, 10))
    batch = rng.normal(size=(2, 3, 5)) * rng.integers(1, 5) + rng.integers(-5, 5)
    return {
        "x": x,
        "gamma": gamma,
        "beta": beta,
        "shape": shape,
        "scale": scale,
        "shift": shift,
        "batch": batch,
        "bgamma": rng.normal(size=5),
        "bbeta": rng.normal(size=5),
    }


def _intro(v: dict) -> Text:
    return Text(
        "这份作业对应课程第 7 篇（完整公式），用的是**你自己的数**（每位同学的都不一样）。\n"
        "答案单元格和课程里的一样：`%%answer` 那一行下面直接写答案，`%%code_exercise` 单元格里写函数；"
        "运行它，看看读到的是不是你想写的；全部做完后保存并提交这个 notebook。\n\n"
        "- 锁定的单元格请不要修改（批改只看你的答案单元格）。\n"
        "- 第 1 题的函数会在批改时用另外几组输入测试：常数行、很大的偏移、(B, T, d) 的批量。"
        "批改时这个单元格**单独运行**，只能用 Python 和 numpy：用到的 import 和辅助函数都写在同一个单元格里，"
        "不能调用 lnlib（`lnlib.layer_norm` 就是这道题的答案本身）。",
        "This assignment goes with notebook 7 of the course (the full formula) and uses **numbers of your "
        "own** (every student gets different ones).\n"
        "The answer cells work as in the course: type your answer on the line below `%%answer`, write the function "
        "in the `%%code_exercise` cell; run the cell and check that it read what you meant; when you are done, save "
        "this notebook and hand it in.\n\n"
        "- Please do not edit the locked cells (only your answer cells are graded).\n"
        "- The function of question 1 is tested at grading time on other inputs as well: a constant row, a very "
        "large offset, a batch of shape (B, T, d). "
        "At grading time this cell **runs on its own**, with nothing but Python and numpy: write every import and "
        "helper function it needs in that same cell, and do not call lnlib (`lnlib.layer_norm` is the very answer "
        "to this question).",
    )


def _data(v: dict) -> Text:
    code = (
        "\nimport numpy as np\n\n"
        f"x = np.array({[int(t) for t in v['x']]}, dtype=float)\n"
        f"gamma = np.array({v['gamma'].tolist()})\n"
        f"beta = np.array({v['beta'].tolist()})"
    )
    return Text("# 你的数：请不要修改" + code, "# your numbers: please do not change them" + code)


def _cases(v: dict) -> list[Case]:
    x, g, b = v["x"], v["gamma"], v["beta"]
    return [
        Case(lazy("grading.hw07.case_own_row"), (x.copy(), g.copy(), b.copy())),
        Case(lazy("grading.hw07.case_constant"), (np.full(4, x[0]), g.copy(), b.copy())),
        Case(lazy("grading.hw07.case_offset"), (x + 1e6, g.copy(), b.copy())),
        Case(lazy("grading.hw07.case_batch"), (v["batch"].copy(), v["bgamma"], v["bbeta"])),
    ]


def _y(v: dict) -> np.ndarray:
    return layer_norm(v["x"], v["gamma"], v["beta"], eps=0.0)


def _y_ex(v: dict) -> Exercise:
    x, g, b = v["x"], v["gamma"], v["beta"]
    xhat = layer_norm(x, eps=0.0)
    d = x.size
    ddof = (x - x.mean()) / np.sqrt(((x - x.mean()) ** 2).sum() / (d - 1))
    return Exercise(
        _y(v),
        lazy("grading.hw07.y_hint"),
        atol=2e-3,
        mistakes=(
            Mistake(lazy("grading.hw07.y_no_gamma"), xhat + b),
            Mistake(lazy("grading.hw07.y_no_beta"), g * xhat),
            Mistake(lazy("grading.hw07.y_swapped"), b * xhat + g),
            Mistake(lazy("grading.hw07.y_order"), g * (xhat + b)),
            Mistake(lazy("grading.hw07.y_ddof"), g * ddof + b),
            Mistake(lazy("grading.hw07.y_only_xhat"), xhat),
        ),
    )


def _shape_ex(v: dict) -> Exercise:
    bsz, t, d = v["shape"]
    return Exercise(
        [bsz, t],
        lazy("grading.hw07.shape_hint"),
        atol=0,
        about="μ",
        mistakes=(
            Mistake(lazy("grading.hw07.shape_input"), [bsz, t, d]),
            Mistake(lazy("grading.hw07.shape_keepdims"), [bsz, t, 1]),
            Mistake(lazy("grading.hw07.shape_first_axis"), [t, d]),
        ),
    )


def _predict_ex(v: dict) -> Exercise:
    s = v["scale"]
    if s > 0:
        return Exercise(
            "不变",
            lazy("grading.hw07.predict_positive_hint"),
            mistakes=(Mistake(lazy("grading.hw07.predict_positive", s=show_number(s)), "会变"),),
        )
    return Exercise(
        "会变",
        lazy("grading.hw07.predict_negative_hint"),
        mistakes=(Mistake(lazy("grading.hw07.predict_negative", s=show_number(s)), "不变"),),
    )


def _predict_prompt(v: dict) -> Text:
    new = f"`{show_number(v['scale'])} * x + {show_number(v['shift'])}`"
    return Text(
        f"**第 4 题（预测）** 把你的 `x` 整行换成 {new}，"
        "γ、β 不变（ε 忽略不计）。`y` 会变吗？在答案单元格里写「不变」或「会变」。"
        "先想清楚再运行代码验证。",
        f"**Question 4 (prediction)** Replace your whole row `x` by {new}, "
        "keeping γ and β (ignore ε). Does `y` change? Type `unchanged` or `changed` in the answer cell. "
        "Think it through first, then run code to check.",
    )


ASSIGNMENT = Assignment(
    number="07",
    slug="hw07-full-formula",
    title=lazy("grading.hw07.title"),
    variant=variant,
    intro=_intro,
    data=_data,
    questions=(
        Question(
            "07.layer_norm",
            2,
            Text(
                "**第 1 题（写函数）** 补全 `layer_norm(x, gamma, beta, eps=1e-5)`：按最后一维归一化，再乘 γ、加 β。"
                "输入可以是一行，也可以是 (B, T, d) 的批量。",
                "**Question 1 (write a function)** Complete `layer_norm(x, gamma, beta, eps=1e-5)`: normalize over "
                "the last axis, then multiply by γ and add β. The input may be one row or a batch of shape (B, T, d).",
            ),
            "layer_norm",
            "def layer_norm(x, gamma, beta, eps=1e-5):",
            lambda v: _FUNCTION,
            cases=_cases,
            code_exercise="07.layer_norm",
        ),
        Question(
            "07.y",
            1,
            Text(
                "**第 2 题** 用你的 `x`、`gamma`、`beta` 算 y = γ ⊙ x̂ + β（ε = 0，四个数，保留三位小数）。",
                "**Question 2** Compute y = γ ⊙ x̂ + β with your `x`, `gamma` and `beta` "
                "(ε = 0, four numbers, three decimal places).",
            ),
            "y",
            Text(
                "# 在下面一行写你的答案（四个数，用逗号隔开）",
                "# write your answer on the line below (four numbers, separated by commas)",
            ),
            lambda v: show_array(_y(v), 6),
            exercise=_y_ex,
        ),
        Question(
            "07.shape_mu",
            1,
            lambda v: Text(
                f"**第 3 题** 一个形状为 `{tuple(v['shape'])}` 的输入按最后一维做 LayerNorm，μ 的形状是什么？",
                f"**Question 3** An input of shape `{tuple(v['shape'])}` goes through LayerNorm over its last axis. "
                "What is the shape of μ?",
            ),
            "shape_mu",
            Text("# 在下面一行写形状，比如 [2, 3]", "# write the shape on the line below, e.g. [2, 3]"),
            lambda v: str(v["shape"][:2]),
            exercise=_shape_ex,
        ),
        Question(
            "07.predict",
            1,
            _predict_prompt,
            "prediction",
            Text("# 在下面一行写：不变 或 会变", "# write on the line below: unchanged or changed"),
            lambda v: Text("不变", "unchanged") if v["scale"] > 0 else Text("会变", "changed"),
            exercise=_predict_ex,
        ),
    ),
)
