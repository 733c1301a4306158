"""`check(name, answer)`: ✓/✗ feedback in Chinese for the 练习 cells of every notebook.

Each notebook's exercises live in one dict below, keyed "NN.short_name"; the worked solutions are in
notebooks/solutions/NN-slug.py and a test feeds every one of them to `check`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Exercise:
    expected: object  # a number, an array-like, or a str for choice questions
    hint: str
    atol: float = 1e-3


_NB01 = {
    "01.residual": Exercise(
        [8, 6, 4, 2], "把两个向量逐个位置相加：[3, 2, 1, 0] + [5, 4, 3, 2]。"),
    "01.ratio": Exercise(10, "吃 的每一维除以 苹果 的同一维，比如 20 / 2。"),
}
_NB02 = {
    "02.row_means": Exercise([5, 50, 5], "每个 token 用自己那一行的 4 个数求平均。"),
    "02.column_mean": Exercise(10, "第 1 维这一列是 8、20、2，把它们加起来再除以 3。"),
    "02.count": Exercise(3, "LayerNorm 按行统计：有几行就有几个 μ。"),
}
_NB03 = {
    "03.mean_wo": Exercise(5, "我 这一行是 [8, 6, 4, 2]：加起来是 20，再除以 4。"),
    "03.variance_chi": Exercise(500, "吃 减去均值 50 后是 [-30, -10, 10, 30]；平方后求平均（除以 4，不是 3）。"),
    "03.xhat_wo": Exercise(
        [1.342, 0.447, -0.447, -1.342], "我 的 μ = 5、σ = √5 ≈ 2.236：(x − 5) / 2.236，结果保留三位小数即可。"),
}

_NB04: dict[str, Exercise] = {}  # exercises of notebook 04
_NB05: dict[str, Exercise] = {}  # exercises of notebook 05
_NB06: dict[str, Exercise] = {}  # exercises of notebook 06
_NB07: dict[str, Exercise] = {}  # exercises of notebook 07
_NB08: dict[str, Exercise] = {}  # exercises of notebook 08
_NB09: dict[str, Exercise] = {}  # exercises of notebook 09
_NB10: dict[str, Exercise] = {}  # exercises of notebook 10
_NB11: dict[str, Exercise] = {}  # exercises of notebook 11
_NB12: dict[str, Exercise] = {}  # exercises of notebook 12
_NB13: dict[str, Exercise] = {}  # exercises of notebook 13
_NB14: dict[str, Exercise] = {}  # exercises of notebook 14

EXERCISES: dict[str, Exercise] = {
    key: exercise
    for name, table in sorted(globals().items())
    if name.startswith("_NB")
    for key, exercise in table.items()
}


def check(name: str, answer) -> bool:
    """Print ✓ or ✗ (with a hint) for a learner's answer to exercise `name`; return whether it is right."""
    if not isinstance(name, str):
        raise TypeError(f"name: expected an exercise name such as '03.mean_wo', got {name!r}")
    if name not in EXERCISES:
        known = ", ".join(sorted(EXERCISES))
        raise ValueError(f"name: unknown exercise {name!r}; known exercises: {known}")
    exercise = EXERCISES[name]
    if answer is None:
        print(f"尚未作答：把 answer = None 改成你的答案，再运行这个单元格。（{name}）")
        return False
    ok, why = _compare(exercise, answer)
    if ok:
        print(f"✓ 正确！（{name}）")
    else:
        print(f"✗ 还不对（{name}）：{why}\n  提示：{exercise.hint}")
    return ok


def _compare(exercise: Exercise, answer) -> tuple[bool, str]:
    expected = exercise.expected
    if isinstance(expected, str):
        given = str(answer).strip().lower()
        return given == expected.lower(), f"你的答案是 {answer!r}。"
    try:
        got = np.asarray(answer, dtype=np.float64)
    except (TypeError, ValueError):
        return False, f"需要数字或数字列表，你给的是 {answer!r:.60}。"
    want = np.asarray(expected, dtype=np.float64)
    if got.shape != want.shape:
        return False, f"形状不对：应该是 {_shape(want)}，你的是 {_shape(got)}。"
    if np.allclose(got, want, rtol=0, atol=exercise.atol, equal_nan=False):
        return True, ""
    return False, f"你的答案是 {np.array2string(got, precision=4)}。"


def _shape(arr: np.ndarray) -> str:
    return "一个数" if arr.ndim == 0 else f"形状 {arr.shape}"
