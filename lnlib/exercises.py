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

_NB04: dict[str, Exercise] = {  # exercises of notebook 04
    "04.constant_row": Exercise(
        [0, 0, 0, 0], "常数行减去均值后全是 0，分子是 0；有 ε 时分母是 √ε > 0，所以每一维都是 0。"),
    "04.var_ratio": Exercise(
        0.833, "苹果 的 σ² = 5；x̂ 的方差等于 σ² / (σ² + ε) = 5 / (5 + 1)。"),
    "04.unbiased_std": Exercise(
        25.820, "吃 减均值后是 [-30, -10, 10, 30]，平方和是 2000；÷ (d − 1) = 3 以后再开根号。", atol=2e-3),
}
_NB05: dict[str, Exercise] = {  # exercises of notebook 05
    "05.swap_shift": Exercise(
        [-1.342, 0.447, -0.447, 1.342], "[102, 106, 104, 108] 就是交换后的 [2, 6, 4, 8] 整体加 100：平移会被丢掉。"),
    "05.negative_scale": Exercise(
        [1.342, 0.447, -0.447, -1.342], "乘 −1 时 μ 和 x − μ 都变号，σ 不变：x̂ 整体变号，高低顺序倒过来。"),
    "05.invariant_count": Exercise(4, "数一数表 1 里 LayerNorm 那一行有几个 ✓。"),
}
_NB06: dict[str, Exercise] = {  # exercises of notebook 06
    "06.y_apple": Exercise(
        [-1.671, -0.447, 0.447, 3.683], "苹果 的 x̂ ≈ [−1.342, −0.447, 0.447, 1.342]；逐维算 γᵢ·x̂ᵢ + βᵢ。"),
    "06.mean_after": Exercise(
        0.25, "γ 全是 1 时 y = x̂ + β；x̂ 的均值是 0，所以 y 的均值就是 β 的均值。"),
    "06.param_count": Exercise(1024, "γ 和 β 各有 d 个数，所有 token 共用这一套。"),
}
_NB07: dict[str, Exercise] = {  # exercises of notebook 07
    "07.shape_mu": Exercise([2, 3], "按最后一维统计，去掉最后一维：(2, 3, 4) → ?，写成列表或元组。"),
    "07.count_multi": Exercise(2, "axis=(-2, -1) 把每句话的 3 × 4 = 12 个数放在一起统计：几句话就有几个 μ。"),
    "07.my_layer_norm": Exercise(
        [[3.183, 0.447, -0.447, -1.671], [-2.183, -0.447, 0.447, -0.329], [-2.183, -0.447, 0.447, -0.329]],
        "μ、σ² 用 x.mean(axis=-1, keepdims=True) 和 ((x − μ)²).mean(axis=-1, keepdims=True)；"
        "x̂ = (x − μ) / √(σ² + ε)；y = γ * x̂ + β。"),
}
_NB08: dict[str, Exercise] = {  # exercises of notebook 08
    "08.bn_chi_dim1": Exercise(
        1.336, "第 1 维的 μ = (8 + 20 + 2) / 3 = 10，σ² = (4 + 100 + 64) / 3 = 56；(20 − 10) / √56。"),
    "08.running_var": Exercise(1.1, "本批无偏方差 = ((2 − 3)² + (4 − 3)²) / (2 − 1) = 2；0.9 × 1 + 0.1 × 2。"),
    "08.single_case": Exercise("layer", "哪一种只用每个样本自己的数来统计？"),
}
_NB09: dict[str, Exercise] = {  # exercises of notebook 09
    "09.deepnorm_alpha": Exercise(1.861, "α = (2N)^(1/4)，N = 6：12 的四次方根。"),
    "09.pre_ratio": Exercise(0.5, "√(6 / 24) = √(1/4)。", atol=0.01),
    "09.which_form": Exercise("post", "先相加，再做 LayerNorm。"),
}
_NB10: dict[str, Exercise] = {  # exercises of notebook 10
    "10.softmax_two": Exercise([0.25, 0.75], "e^0 = 1，e^(ln 3) = 3；各自除以总和 4。"),
    "10.uniform_entropy": Exercise(1.099, "每个权重都是 1/3：H = −3 × (1/3) × ln(1/3) = ln 3。"),
    "10.qk_bound": Exercise(4, "LayerNorm 后 ‖q̂‖ = ‖k̂‖ = √d，所以 |q̂·k̂| ≤ d，再除以 √d。"),
}
_NB11: dict[str, Exercise] = {  # exercises of notebook 11
    "11.rms_apple": Exercise(
        [0.365, 0.730, 1.095, 1.461], "平方的平均 = (4 + 16 + 36 + 64) / 4 = 30；每个数除以 √30。"),
    "11.deepnorm_beta": Exercise(0.319, "β = (8N)^(−1/4)，N = 12：96 的四次方根的倒数。"),
    "11.llama_norm": Exercise(
        "rmsnorm", "Touvron et al. (2023) 写明用 pre-normalization 加上 Zhang & Sennrich 的那种归一化。"),
}
_NB12: dict[str, Exercise] = {  # exercises of notebook 12
    "12.dx_last": Exercise(
        [0.089, -0.045, -0.179, 0.134],
        "g = [0, 0, 0, 1]，mean(g) = 0.25，mean(g ⊙ x̂) = 0.75/√5；括号里是 [0.2, −0.1, −0.4, 0.3]，再除以 √5。"),
    "12.dbeta": Exercise([4, 3, 1, 1], "dβ = Σ dy：把三行 dy 按列（同一维）加起来。"),
    "12.sum_dx": Exercise(0, "整行加同一个常数，x̂ 不变，所以 dx 沿 [1, 1, …, 1] 方向的分量是多少？", atol=1e-9),
    "12.scale": Exercise(0.25, "x 乘以 c，dx 变成原来的 1/c。"),
}
_NB13: dict[str, Exercise] = {  # exercises of notebook 13
    "13.spacing": Exercise(
        0.0625, "间距按 2 的幂变化：10⁶ 在 2¹⁹ 和 2²⁰ 之间，间距是 2¹⁹⁻²³；试试 np.spacing(np.float32(1e6))。",
        atol=1e-6),
    "13.var_true": Exercise(5, "方差不受整体平移影响：只看 [0, 2, 4, 6]，偏差是 [−3, −1, 1, 3]。"),
    "13.float16_overflow": Exercise(256, "float16 最大是 65504；255² = 65025，256² = 65536。", atol=0),
    "13.welford_m2": Exercise(200, "读完以后 m = 20，M2 = Σ(x − 20)² = 100 + 0 + 100。"),
}
_NB14: dict[str, Exercise] = {  # exercises of notebook 14: one or two per earlier notebook
    "14.residual": Exercise([2, 4, 6, 8], "逐位相加：[1 + 1, 1 + 3, 2 + 4, 2 + 6]。"),
    "14.count_means": Exercise(10, "每个 token 一个 μ：2 个句子 × 5 个 token。", atol=0),
    "14.variance": Exercise(5, "μ = 4，偏差是 [−3, −1, 1, 3]，平方的平均是 20 / 4。"),
    "14.xhat_last": Exercise(1.342, "(7 − 4) / √5 ≈ 3 / 2.236。"),
    "14.constant_row": Exercise([0, 0, 0, 0], "x − μ 全是 0，分母 √(0 + ε) 不是 0，所以结果全是 0。", atol=1e-9),
    "14.lost": Exercise("b", "减去 μ 以后，这一行的平均值一定是 0，原来的平均值就不见了。"),
    "14.affine": Exercise(-1.684, "y = γ · x̂ + β = 2 × (−1.342) + 1。", atol=2e-3),
    "14.params": Exercise(1536, "γ 和 β 各有 d 个数。", atol=0),
    "14.bn_means": Exercise(4, "BatchNorm 按列统计：有几列就有几个 μ。", atol=0),
    "14.pre_ln": Exercise("a", "Pre-LN 先归一化再送进子层，残差那条路不经过 LN。"),
    "14.attention_scale": Exercise(8, "除以 √d_k。"),
    "14.rms_first": Exercise(0.218, "mean(x²) = (1 + 9 + 25 + 49) / 4 = 21，1 / √21。"),
    "14.dbeta": Exercise([1, 2, 1, 0], "dβ = Σ dy：两行按列相加。"),
}

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
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int such as 10**400
        return False, f"需要数字或数字列表，你给的是 {answer!r:.60}。"
    want = np.asarray(expected, dtype=np.float64)
    if got.shape != want.shape:
        return False, f"形状不对：应该是 {_shape(want)}，你的是 {_shape(got)}。"
    if np.allclose(got, want, rtol=0, atol=exercise.atol, equal_nan=False):
        return True, ""
    return False, f"你的答案是 {np.array2string(got, precision=4)}。"


def _shape(arr: np.ndarray) -> str:
    return "一个数" if arr.ndim == 0 else f"形状 {arr.shape}"
