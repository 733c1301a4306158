"""`check(name, answer)`: ✓/✗ feedback in Chinese for the 练习 cells of every notebook.

Each notebook's exercises live in one dict below, keyed "NN.short_name"; the worked solutions are in
notebooks/solutions/NN-slug.py and a test feeds every one of them to `check`. How an answer is judged (real numbers
only, tolerances, typical mistakes, synonyms of choice answers) is in `lnlib.grading`.

Keep `expected` exact (computed, not pre-rounded) and let `atol` say what rounding the question asks for: "保留三位小数"
is ±0.0005 for the last rounding, plus whatever rounding the inputs the question suggests adds (γ = 2 times x̂ ≈ 1.342
adds 2 × 0.0005).
"""

from __future__ import annotations

import numpy as np

from . import _record
from .data import TOKEN_MATRIX
from .grading import HINT_AFTER, SIGN_FLIPPED_CENTER, Exercise, Mistake, Verdict, grade, rounded_early, row_mistakes

__all__ = ["EXERCISES", "Exercise", "Mistake", "Verdict", "check", "judge"]

_WO, _CHI, _APPLE = 0, 1, 2  # rows of TOKEN_MATRIX: 我, 吃, 苹果
_ROUND3 = 5e-4  # "保留三位小数"
_XHAT_APPLE = (TOKEN_MATRIX[_APPLE] - 5) / np.sqrt(5)  # [−1.342, −0.447, 0.447, 1.342] unrounded
_PEAR = np.array([3.0, 5.0, 6.0, 10.0])  # notebook 03's exercises: a row whose numbers the lesson never shows

_NB01 = {
    "01.residual": Exercise(
        [4, 3, 4, 3],
        "把两个向量逐个位置相加：[3, 1, 0, 2] + [1, 2, 4, 1]。",
        mistakes=(
            Mistake("做了减法：残差连接是相加，x + F(x)。", [2, -1, -4, 1]),
            Mistake("逐位相乘了：残差连接是逐位相加。", [3, 2, 0, 2]),
        ),
    ),
    "01.ratio": Exercise(
        10 / 3,
        "矩阵乘法是线性的：「吃」是「苹果」的 10 倍，输出也是 10 倍；[6, 12, 18, 24] 是「苹果」的 3 倍，输出也是 3 倍。"
        "两者相比是 10 / 3 ≈ 3.33 倍。",
        nudge="两个输入都是「苹果」的整数倍：先分别想它们的输出是「苹果」输出的几倍。",
        atol=0.005,
        mistakes=(
            Mistake("这是「吃」和「苹果」之间的倍数：这里比的是「吃」和「苹果」的 3 倍。", 10),
            Mistake("这是 [6, 12, 18, 24] 和「苹果」之间的倍数：这里比的是「吃」和它。", 3),
            Mistake("倒过来了：「吃」更大，它的输出是 [6, 12, 18, 24] 的输出的 10 / 3 倍。", 3 / 10, 0.005),
            Mistake("乘起来了：10 倍和 3 倍要相除，不是相乘。", 30),
        ),
    ),
    "01.apple_times_w": Exercise(
        [10, 6],
        "第 1 个数 = 2 × 0.5 + 4 × 1 + 6 × (−0.5) + 8 × 1，用的是 W 的第 1 列；第 2 个数用第 2 列 [−1, 0.5, 1, 0]。",
        mistakes=(
            Mistake("这是「吃」的输出：题目问的是「苹果」[2, 4, 6, 8]。", [100, 60]),
            Mistake("这是「我」的输出：题目问的是「苹果」[2, 4, 6, 8]。", [10, -1]),
        ),
    ),
}
_NB02 = {
    "02.row_means": Exercise(
        [4, 5],
        "每个 token 用自己那一行的 4 个数求平均：(1 + 3 + 5 + 7) / 4，(2 + 4 + 4 + 10) / 4。",
        mistakes=(
            Mistake("按列求了平均（每一维一个数）：题目要的是每个 token（每一行）一个均值。", [1.5, 3.5, 4.5, 8.5]),
            Mistake("对整张表求了平均：题目要的是每一行各自的均值。", [4.5, 4.5]),
            Mistake("只加起来，忘了除以 d = 4：均值是每一行的和再除以 4。", [16, 20]),
        ),
    ),
    "02.column_mean": Exercise(
        8.5,
        "第 4 维这一列是 7 和 10，把它们加起来再除以 2。",
        mistakes=(
            Mistake("求的是第 1 行的平均：这里问的是第 4 列。", 4),
            Mistake("求的是第 2 行的平均：这里问的是第 4 列（7 和 10）。", 5),
            Mistake("除以了 4：这一列只有 2 个数（2 个 token）。", 17 / 4),
            Mistake("只加起来，忘了除以 2：均值是这一列的和再除以它的个数。", 17),
        ),
    ),
    "02.count": Exercise(
        2,
        "LayerNorm 按行统计：有几行就有几个 μ。",
        atol=0,
        mistakes=(
            Mistake("按列数了：LayerNorm 每一行一个 μ，按列统计的是 BatchNorm。", 4),
            Mistake("把整张表当成了一组：LayerNorm 每一行各算各的。", 1),
        ),
    ),
    "02.table_mean": Exercise(
        20,
        "12 个数加起来是 20 + 200 + 20 = 240，再除以 12。",
        mistakes=(
            Mistake("只用了一行（苹果）：整张表一起统计，要把 12 个数都放进来。", 5),
            Mistake("除以了 3（行数）：整张表一共有 12 个数。", 80),
            Mistake("除以了 4（列数）：整张表一共有 12 个数。", 60),
            Mistake("只加起来，忘了除以 12：均值是 12 个数的和再除以 12。", 240),
        ),
    ),
}
_NB03 = {
    "03.mean_pear": Exercise(
        6,
        "梨 这一行是 [3, 5, 6, 10]：加起来是 24，再除以 4。",
        nudge="均值 μ 是这一行 d 个数的平均。",
        mistakes=row_mistakes(
            [_PEAR],
            0,
            "mean",
            first=(Mistake("只加起来，忘了除以 d = 4。", 24), Mistake("除以了 d − 1 = 3：均值除以 d。", 8)),
        ),
    ),
    "03.mean_apple": Exercise(
        5,
        "苹果 这一行是 [2, 4, 6, 8]：加起来是 20，再除以 d = 4。",
        nudge="均值 μ 是这一行 d 个数的平均。",
        mistakes=row_mistakes(TOKEN_MATRIX, _APPLE, "mean", first=(Mistake("只加起来，忘了除以 d = 4。", 20),)),
    ),
    "03.centered_apple": Exercise(
        [-3, -1, 1, 3],
        "每个数减去同一个 μ = 5：[2 − 5, 4 − 5, 6 − 5, 8 − 5]。",
        nudge="中心化：这一行的每个数都减去同一个数——这一行的均值 μ。",
        sign=SIGN_FLIPPED_CENTER,
        mistakes=(Mistake("减去的不是 μ = 5：中心化是每个数减去这一行的均值。", [-3.5, -1.5, 0.5, 2.5], 0.6),),
    ),
    "03.variance_apple": Exercise(
        5,
        "偏差是 [−3, −1, 1, 3]：平方 → [9, 1, 1, 9]，加起来 20，再除以 d = 4。",
        nudge="方差是偏差 x − μ 平方以后的平均。",
        mistakes=row_mistakes(TOKEN_MATRIX, _APPLE, "variance"),
    ),
    "03.std_apple": Exercise(
        np.sqrt(5),
        "σ = √σ² = √5，保留三位小数。",
        nudge="标准差 σ 和方差 σ² 是什么关系？",
        atol=_ROUND3,
        mistakes=row_mistakes(TOKEN_MATRIX, _APPLE, "std"),
    ),
    "03.xhat_apple": Exercise(
        _XHAT_APPLE,
        "x̂ = (x − μ) / σ = [−3, −1, 1, 3] / √5，保留三位小数。",
        nudge="x̂ = (x − μ) / σ：先中心化，再除以这一行的标准差。",
        atol=1e-3,
        sign=SIGN_FLIPPED_CENTER,
        mistakes=row_mistakes(TOKEN_MATRIX, _APPLE, "xhat"),
    ),
    "03.variance_pear": Exercise(
        6.5,
        "梨 减去均值 6 后是 [−3, −1, 0, 4]；平方后是 [9, 1, 0, 16]，加起来 26，再除以 4（不是 3）。",
        nudge="方差是偏差 x − μ 平方以后的平均；先求出「梨」这一行的 μ。",
        mistakes=row_mistakes([_PEAR], 0, "variance"),
    ),
    "03.xhat_pear": Exercise(
        (_PEAR - 6) / np.sqrt(6.5),
        "梨 的 μ = 6、σ = √6.5 ≈ 2.550：(x − 6) / 2.550，结果保留三位小数即可。",
        nudge="x̂ = (x − μ) / σ：用「梨」这一行自己的 μ 和 σ。",
        sign=SIGN_FLIPPED_CENTER,
        mistakes=(
            Mistake("除以了 d − 1（无偏方差）：LayerNorm 的方差除以 d。", (_PEAR - 6) / np.sqrt(26 / 3)),
            Mistake("忘了开平方根：除以的是方差 σ²，不是 σ。", (_PEAR - 6) / 6.5),
            Mistake("只减了均值，忘了除以 σ。", _PEAR - 6),
            Mistake("忘了减均值：直接用 x 除以 σ。", _PEAR / np.sqrt(6.5)),
            Mistake("这是「苹果」那一行的 x̂：这里问的是「梨」这一行。", _XHAT_APPLE),
            rounded_early((_PEAR - 6) / 2.5, "把 σ = √6.5 ≈ 2.550 写成 2.5"),
            rounded_early((_PEAR - 6) / 2.6, "把 σ = √6.5 ≈ 2.550 写成 2.6"),
        ),
    ),
}

_NB04: dict[str, Exercise] = {  # exercises of notebook 04
    "04.eps_denominator": Exercise(
        np.sqrt(1e-5),
        "常数行的 σ² = 0，分母是 √(0 + ε) = √(10⁻⁵)。",
        atol=5e-5,
        mistakes=(
            Mistake("没有开根号：分母是 √ε，不是 ε 本身。", 1e-5, 1e-7),
            Mistake("把分母算成了 0：有了 ε，分母是 √(0 + ε)。", 0, 1e-9),
        ),
    ),
    "04.eps_inside_small": Exercise(
        -0.003 / np.sqrt(5e-6 + 1e-5),
        "x₁ − μ = −0.003，σ² = 5 × 10⁻⁶；分母是 √(5 × 10⁻⁶ + 10⁻⁵) = √(1.5 × 10⁻⁵)。",
        mistakes=(
            Mistake("把 ε 加在了 σ 上（根号外面）：这里问的是 ε 在根号里面的写法。", -0.003 / (np.sqrt(5e-6) + 1e-5)),
            Mistake("忽略了 ε：σ² 只有 5 × 10⁻⁶，比 ε 还小，ε 不能忽略。", -3 / np.sqrt(5)),
            Mistake("没有开根号：分母是 √(σ² + ε)。", -0.003 / 1.5e-5, 1.0),
        ),
    ),
    "04.constant_row": Exercise(
        0.01,
        "常数行的 σ² = 0，分母是 √(0 + ε) = √(10⁻⁴)。",
        atol=5e-4,
        mistakes=(
            Mistake("没有开根号：分母是 √ε，不是 ε 本身。", 1e-4, 1e-6),
            Mistake("把分母算成了 0：有了 ε，分母是 √(0 + ε)。", 0, 1e-9),
            Mistake("这是 ε = 10⁻⁵ 时的分母：这里 ε = 10⁻⁴。", np.sqrt(1e-5), 5e-5),
        ),
    ),
    "04.var_ratio": Exercise(
        5 / 6,
        "苹果 的 σ² = 5；x̂ 的方差等于 σ² / (σ² + ε) = 5 / (5 + 1)。",
        atol=_ROUND3,
        mistakes=(
            Mistake("把 ε 放在了根号外面：x̂ = (x − μ)/(σ + ε) 的方差是 σ²/(σ + ε)²。", 5 / (np.sqrt(5) + 1) ** 2),
            Mistake("给出了 x̂ 的标准差 √(5/6)，题目问的是方差。", np.sqrt(5 / 6)),
            Mistake("忽略了 ε：ε = 1 时方差不再是 1。", 1.0),
            Mistake("把 ε 加在了分子上：是 σ²/(σ² + ε)。", 6 / 5),
        ),
    ),
    "04.unbiased_std": Exercise(
        np.sqrt(2000 / 3),
        "吃 减均值后是 [-30, -10, 10, 30]，平方和是 2000；÷ (d − 1) = 3 以后再开根号。",
        atol=5e-3,
        mistakes=(
            Mistake("除以了 d = 4：这道题故意要 ÷(d − 1) 的版本。", np.sqrt(500)),
            Mistake("忘了开平方根：给出的是 ÷(d − 1) 的方差。", 2000 / 3, 0.01),
        ),
    ),
}
_NB05: dict[str, Exercise] = {  # exercises of notebook 05
    "05.swap_shift": Exercise(
        [1.342, -0.447, 0.447, -1.342],
        "[108, 104, 106, 102] 就是 [8, 4, 6, 2] 整体加 100：平移会被丢掉；[8, 4, 6, 2] 是 苹果 交换了第 1、4 维。",
        mistakes=(
            Mistake("没有交换第 1、4 维：[108, 104, 106, 102] 的第 1、4 维和 苹果 相反。", _XHAT_APPLE),
            Mistake(
                "这是正文里 [2, 6, 4, 8] 的结果：这里交换的是第 1、4 维，不是中间两维。", [-1.342, 0.447, -0.447, 1.342]
            ),
            Mistake(
                "这是「我」[8, 6, 4, 2] 的 x̂：[108, 104, 106, 102] 去掉平移是 [8, 4, 6, 2]，中间两维和「我」不一样。",
                (TOKEN_MATRIX[_WO] - 5) / np.sqrt(5),
            ),
        ),
    ),
    "05.negative_scale": Exercise(
        -_XHAT_APPLE,
        "乘 −1 时 μ 和 x − μ 都变号，σ 不变：x̂ 整体变号，高低顺序倒过来。",
        mistakes=(Mistake("以为乘 −1 会被归一化抵消：只有正的缩放会被抵消，负号会留下来。", _XHAT_APPLE),),
    ),
    "05.invariant_count": Exercise(
        2,
        "逐个看 a = xWᵀ 怎样变：整体乘正数或整体加同一个数会被抵消，整体乘负数会让 x̂ 变号，只改一维会改变模式。",
        atol=0,
        mistakes=(
            Mistake("把 (a) W → −2W 也算成了不变：每个 a 乘 −2，x̂ 会整体变号（练习 2）。", 3),
            Mistake("把 (d) 算成了会变：x → 3x 让 a 整体乘 3，W 每行加 v 让每个 a 多加同一个数 3v·x，都被抵消。", 1),
            Mistake("以为四种都不变：负数缩放会让 x̂ 变号，只改一个隐藏单元的权重会改变维度之间的模式。", 4),
        ),
    ),
    "05.norm_squared": Exercise(
        4,
        "x̂ 的平方和 = d · Var(x̂) = d（ε = 0 时 Var(x̂) = 1）。",
        atol=0.01,  # squaring the three-decimal x̂ shown in the question gives 4.0015
        mistakes=(
            Mistake("给出的是长度 ‖x̂‖ = √d，题目问的是平方和 ‖x̂‖²。", 2),
            Mistake("给出的是 x̂ 的和 Σx̂：它总是 0，题目问的是平方和。", 0),
            Mistake("给出的是平方的平均（= 方差 1），题目问的是平方和。", 1),
            Mistake("把长度 ‖x̂‖ 当成了 d 再平方：平方的平均是 1，平方和是 d 个 1 相加，长度是它的平方根。", 16),
        ),
    ),
}
_NB06: dict[str, Exercise] = {  # exercises of notebook 06
    "06.y_first": Exercise(
        2 * _XHAT_APPLE[0] + 0.5,
        "y₁ = γ₁ · x̂₁ + β₁ = 2 × (−1.342) + 0.5。",
        atol=3 * _ROUND3,  # 2 × 0.0005 from x̂₁ ≈ −1.342, plus 0.0005 for the last rounding
        mistakes=(
            Mistake("先加 β 再乘 γ 了：是 γ · x̂ + β，不是 γ · (x̂ + β)。", 2 * (_XHAT_APPLE[0] + 0.5)),
            Mistake("把 γ 和 β 用反了：γ 乘，β 加。", 0.5 * _XHAT_APPLE[0] + 2),
            Mistake("忘了加 β₁ = 0.5。", 2 * _XHAT_APPLE[0]),
            Mistake("忘了乘 γ₁ = 2。", _XHAT_APPLE[0] + 0.5),
            rounded_early(2 * round(_XHAT_APPLE[0], 2) + 0.5, "把 x̂₁ ≈ −1.342 写成 −1.34"),
            rounded_early(2 * round(_XHAT_APPLE[0], 1) + 0.5, "把 x̂₁ ≈ −1.342 写成 −1.3"),
        ),
    ),
    "06.mean_y_apple": Exercise(
        (2 * _XHAT_APPLE[0] + 0.5 + _XHAT_APPLE[1:].sum()) / 4,
        "y = [−2.183, −0.447, 0.447, 1.342]：把 4 个数加起来再除以 4。",
        atol=1e-3,
        mistakes=(
            Mistake("以为 y 的均值还是 0：只有 x̂ 的均值一定是 0，γ、β 会把它挪开。", 0.0),
            Mistake("只算了 β 的平均：γ₁ = 2 把 x̂₁ 也拉长了，它对均值也有贡献。", 0.125),
            Mistake("只加起来，忘了除以 d = 4。", 2 * _XHAT_APPLE[0] + 0.5 + _XHAT_APPLE[1:].sum(), 4e-3),
        ),
    ),
    "06.y_apple": Exercise(
        np.array([0.5, 1, 1, 2]) * _XHAT_APPLE + [-1, 0, 0, 1],
        "苹果 的 x̂ ≈ [−1.342, −0.447, 0.447, 1.342]；逐维算 γᵢ·x̂ᵢ + βᵢ。",
        atol=3 * _ROUND3,  # |γ| ≤ 2: 2 × 1.342 + 1 = 3.684 (x̂ rounded as hinted) must pass
        mistakes=(
            Mistake(
                "先加 β 再乘 γ 了：是 γ · x̂ + β，不是 γ · (x̂ + β)。",
                np.array([0.5, 1, 1, 2]) * (_XHAT_APPLE + [-1, 0, 0, 1]),
            ),
            Mistake("只算了 x̂，还没有乘 γ、加 β。", _XHAT_APPLE),
            Mistake("忘了 β：只乘了 γ。", np.array([0.5, 1, 1, 2]) * _XHAT_APPLE),
            rounded_early(
                np.array([0.5, 1, 1, 2]) * np.round(_XHAT_APPLE, 2) + [-1, 0, 0, 1], "把 x̂ 先取成两位小数 −1.34、−0.45…"
            ),
            rounded_early(
                np.array([0.5, 1, 1, 2]) * np.round(_XHAT_APPLE, 1) + [-1, 0, 0, 1], "把 x̂ 先取成一位小数 −1.3、−0.4…"
            ),
        ),
    ),
    "06.mean_after": Exercise(
        0.25,
        "γ 全是 1 时 y = x̂ + β；x̂ 的均值是 0，所以 y 的均值就是 β 的均值。",
        mistakes=(
            Mistake("把 β 加起来了，没有求平均：y 的均值是 β 的均值。", 1.0),
            Mistake("以为 y 的均值还是 0：β 会把均值移开。", 0.0),
        ),
    ),
    "06.param_count": Exercise(
        1024,
        "γ 和 β 各有 d 个数，所有 token 共用这一套。",
        atol=0,
        mistakes=(
            Mistake("只数了 γ 或 β 中的一个：两者各有 d 个数。", 512),
            Mistake("以为每个 token 各有一套：所有 token 共用同一组 γ、β。", 1),
            Mistake("把 μ 和 σ² 也算成了参数：它们每次都从输入现算，不是学出来的；可学习的只有 γ 和 β。", 2048),
            Mistake("用了例子里的 d = 4：这道题的 d 是 512。", 8),
        ),
    ),
}
_NB07: dict[str, Exercise] = {  # exercises of notebook 07
    "07.shape_mu": Exercise(
        [2, 3],
        "按最后一维统计，去掉最后一维：(2, 3, 4) → ?，写成列表或元组。",
        atol=0,
        about="μ",
        mistakes=(
            Mistake("这是 B 自己的形状：按最后一维统计，每个 token 只留下一个 μ，最后一维就没有了。", [2, 3, 4]),
            Mistake("保留了被统计的那一维（keepdims=True 的形状）：题目问的是去掉它以后。", [2, 3, 1]),
            Mistake("去掉了第一维：LayerNorm 统计的是最后一维。", [3, 4]),
        ),
    ),
    "07.count_multi": Exercise(
        2,
        "axis=(-2, -1) 把每句话的 3 × 4 = 12 个数放在一起统计：几句话就有几个 μ。",
        atol=0,
        mistakes=(
            Mistake("这是只按最后一维统计时的个数（每个 token 一个 μ）。", 6),
            Mistake("这是每组里数的个数（3 × 4），题目问的是有几组。", 12),
        ),
    ),
    "07.image_mu_count": Exercise(
        49,
        "ConvNeXt 的做法：每个像素位置的 C 个通道是一组，一共有 H × W 个位置。",
        atol=0,
        mistakes=(
            Mistake("数的是通道数 C：通道是被放在一起统计的那一维，不是组数。", 64),
            Mistake("这是把整个 [C, H, W] 放在一起统计（GroupNorm 只分一组）时的个数。", 1),
            Mistake("数的是全部的数（C × H × W），不是组数。", 64 * 49),
        ),
    ),
    "07.param_no_bias": Exercise(
        1024,
        "bias=False 去掉 β，只留下 γ；γ 的形状就是 normalized_shape (4, 256)，一共 4 × 256 个数。",
        nudge="γ 的形状和被归一化的那几维一样：这里是 (4, 256)。",
        atol=0,
        mistakes=(
            Mistake("这是默认设置（γ、β 都有）的个数：bias=False 去掉了 β。", 2048),
            Mistake("一个都不剩的是 elementwise_affine=False；bias=False 还留着 γ。", 0),
            Mistake("只数了最后一维：normalized_shape 是 (4, 256)，γ 的形状也是 (4, 256)。", 256),
            Mistake("把两维加起来了：(4, 256) 的 γ 有 4 × 256 个数。", 260),
            Mistake("768 是上面 d = 768 那个例子的数：这一题的 γ 形状是 (4, 256)。", 768),
            Mistake("算上了 β：bias=False 去掉了 β，只留 γ。", 512),
        ),
    ),
}

_S3 = np.sqrt(5)  # σ of [2, 4, 6, 8]


def _dx_row(x, dy, *, mu_term: bool = True, sigma_term: bool = True, scale: bool = True) -> np.ndarray:
    """dx of LayerNorm (γ = 1, ε = 0) for one row, optionally with a term left out: the typical mistakes of 12."""
    x, g = np.asarray(x, dtype=np.float64), np.asarray(dy, dtype=np.float64)
    x_hat = (x - x.mean()) / x.std()
    inside = g - (g.mean() if mu_term else 0.0) - (x_hat * (g * x_hat).mean() if sigma_term else 0.0)
    return inside / x.std() if scale else inside


_APPLE_ROW = TOKEN_MATRIX[2]
_E1, _E4 = np.eye(4)[0], np.eye(4)[3]

_NB08: dict[str, Exercise] = {  # exercises of notebook 08
    "08.bn_col_var": Exercise(
        56,
        "第 1 列是 8、20、2：均值 10，偏差 −2、10、−8，平方后是 4、100、64，加起来再除以 3。",
        mistakes=(
            Mistake("除以了 n − 1 = 2：BatchNorm 归一化时用的是有偏方差，除以 3。", 84),
            Mistake("给出的是标准差 σ，题目问的是方差 σ²。", np.sqrt(56), 5e-3),
            Mistake("忘了除以个数 3。", 168),
            Mistake("忘了先减去均值 10：算成了平方的平均。", (64 + 400 + 4) / 3),
            Mistake("算的是「吃」这一行的方差（LayerNorm 的方向）：BatchNorm 按列统计。", 500),
            Mistake("把整张表放在一起算了：BatchNorm 每一列单独统计。", TOKEN_MATRIX.var()),
        ),
    ),
    "08.bn_chi_dim1": Exercise(
        10 / np.sqrt(56),
        "第 1 维的 μ = (8 + 20 + 2) / 3 = 10，σ² = (4 + 100 + 64) / 3 = 56；(20 − 10) / √56。",
        atol=1e-3,
        mistakes=(
            Mistake("方差除以了 n − 1：BatchNorm 归一化用有偏方差（除以 3）。", 10 / np.sqrt(84)),
            Mistake("忘了开根号：分母是 σ = √56，不是 σ² = 56。", 10 / 56),
            rounded_early(10 / round(np.sqrt(56), 1), "把 σ = √56 ≈ 7.483 写成 7.5"),
            Mistake(
                "这是按行（LayerNorm）算出的 3/√5 ≈ 1.342：BatchNorm 按列统计，第 1 列是 8、20、2，μ = 10，σ = √56。",
                3 / np.sqrt(5),
            ),
            Mistake("忘了减均值：分子是 20 − 10。", 20 / np.sqrt(56)),
            Mistake("这是 LayerNorm（按行）的结果：这里要按列统计。", -3 / np.sqrt(5)),
            Mistake("符号反了：20 比均值 10 大，结果应该是正的。", -10 / np.sqrt(56)),
        ),
    ),
    "08.bn_weight_vector": Exercise(
        "不变",
        "第 1 行权重只影响第 1 个特征；BatchNorm 对每个特征单独减均值、除以标准差，乘上的 3 正好被除掉。",
        mistakes=(Mistake("乘上的 3 会被 BatchNorm 除掉：它对每个特征单独除以这个特征的标准差。", "会变"),),
    ),
    "08.running_var": Exercise(
        1.1,
        "本批无偏方差 = ((2 − 3)² + (4 − 3)²) / (2 − 1) = 2；0.9 × 1 + 0.1 × 2。",
        mistakes=(
            Mistake("用了有偏方差（除以 n = 2，得 1）：PyTorch 更新 running_var 用无偏方差（除以 n − 1）。", 1.0),
            Mistake("两个权重放反了：PyTorch 的 momentum = 0.1 是新批量的权重，旧值占 0.9。", 1.9),
            Mistake("直接用了本批的方差：running_var 是旧值和本批的加权平均。", 2.0),
            Mistake("running_var 的初始值是 1，不是 0。", 0.2),
            Mistake("这是 running_mean（0.9 × 0 + 0.1 × 3），题目问的是 running_var。", 0.3),
        ),
    ),
    "08.single_case": Exercise(
        "layer",
        "哪一种只用这个样本自己的数来统计？它减去的均值会跟着一起加上 100。",
        nudge="给一行的每个数都加上同一个数：减去的是谁的均值？这个均值会不会跟着变？",
        mistakes=(
            Mistake(
                "BatchNorm 按特征跨整批统计：这个样本加了 100，每一列的均值和方差都变了，它自己的输出也跟着变。",
                "batch",
            ),
        ),
    ),
}
_NB09: dict[str, Exercise] = {  # exercises of notebook 09
    "09.deepnorm_alpha": Exercise(
        36**0.25,
        "α = (2N)^(1/4)，N = 18：36 的四次方根（也就是 √6）。",
        mistakes=(
            Mistake("开的是平方根：α 是 2N 的四次方根。", 6),
            Mistake("这是 β 的公式 (8N)^(−1/4)。", 144**-0.25),
            Mistake("忘了乘 2：α = (2N)^(1/4)。", 18**0.25),
        ),
    ),
    "09.predict_alpha": Exercise(
        12**0.25,
        "α = (2N)^(1/4)，N = 6：12 的四次方根，也就是对 12 开两次平方根。",
        mistakes=(
            Mistake("开的是平方根：α 是 2N 的四次方根。", np.sqrt(12)),
            Mistake("这是 β 的公式 (8N)^(−1/4)。", 48**-0.25),
            Mistake("忘了乘 2：α = (2N)^(1/4)。", 6**0.25),
        ),
    ),
    "09.deepnorm_beta": Exercise(
        144**-0.25,
        "β = (8N)^(−1/4)，N = 18：144 的四次方根（√12）的倒数。",
        mistakes=(
            Mistake("忘了取倒数：指数是 −1/4。", 144**0.25),
            Mistake("这是 α = (2N)^(1/4)。", 36**0.25),
            Mistake("忘了乘 8：β = (8N)^(−1/4)。", 18**-0.25),
            Mistake("用了 2N（那是 α 的公式）：β = (8N)^(−1/4)，N = 18 时是 144。", 36**-0.25),
        ),
    ),
    "09.pre_ratio": Exercise(
        1 / 3,
        "√(6 / 54) = √(1/9)。",
        atol=0.01,
        mistakes=(
            Mistake("用的是 1/L，不是 1/√L：6/54 还要开根号。", 1 / 9),
            Mistake("倒过来了：层数变多，梯度变小，答案应该小于 1。", 3.0),
            Mistake("只算了 L = 54 的 1/√L：题目问的是和 L = 6 相比变成几分之一。", 1 / np.sqrt(54)),
            Mistake("开了四次方根：梯度按 1/√L 变化，比值是 √(6/54)，只开一次平方根。", (6 / 54) ** 0.25),
        ),
    ),
    "09.which_form": Exercise(
        "post",
        "每一行都是先把残差加上子层的输出，再对和做 layer_norm：先相加，再归一化。",
        nudge="看 layer_norm 包住的是什么：子层的输入，还是残差相加以后的和？",
        mistakes=(
            Mistake(
                "Pre-LN 是 x + Sublayer(LayerNorm(x))：先归一化再进子层，残差那条路不经过 LN；"
                "这里 layer_norm 包住的是相加以后的和。",
                "pre",
            ),
        ),
    ),
}
_NB10: dict[str, Exercise] = {  # exercises of notebook 10
    "10.softmax_two": Exercise(
        [0.25, 0.75],
        "e^0 = 1，e^(ln 3) = 3；各自除以总和 4。",
        mistakes=(
            Mistake("两个数放反了：分数大的（ln 3）权重大。", [0.75, 0.25]),
            Mistake("忘了除以总和：softmax 的结果加起来要等于 1。", [1, 3]),
        ),
    ),
    "10.uniform_entropy": Exercise(
        np.log(5),
        "每个权重都是 1/5：H = −5 × (1/5) × ln(1/5) = ln 5。",
        mistakes=(
            Mistake("用了以 2 为底的对数：这里的熵以 e 为底（ln）。", np.log2(5)),
            Mistake("用了以 10 为底的对数：这里的熵以 e 为底（ln）。", np.log10(5)),
            Mistake("只算了一项：五个 token 各贡献 (1/5)·ln 5。", np.log(5) / 5),
            Mistake("符号反了：H = −Σ p ln p，结果是正数。", -np.log(5)),
        ),
    ),
    "10.qk_bound": Exercise(
        7,
        "LayerNorm 后 ‖q̂‖ = ‖k̂‖ = √d，所以 |q̂·k̂| ≤ d，再除以 √d。",
        mistakes=(
            Mistake("忘了除以 √d：点积最大是 d = 49，分数还要除以 √49。", 49),
            Mistake("除以了 d 而不是 √d。", 1),
        ),
    ),
    "10.dot_std": Exercise(
        10,
        "d 个独立乘积相加，方差是 d = 100；标准差再开根号。",
        atol=0.05,
        mistakes=(
            Mistake("这是方差 d；标准差是 √d。", 100),
            Mistake("这是除以 √d 以后的标准差；题目问的是不除的时候。", 1),
        ),
    ),
    "10.var_qk": Exercise(
        64,
        "d 个独立的 qᵢkᵢ 相加：每一项的方差是 1 × 1 = 1，独立的项相加，方差也相加。",
        atol=0.5,
        mistakes=(
            Mistake("这是标准差 √d：题目问的是方差。", 8),
            Mistake("每一项的方差是 1，可 d 项相加以后方差是 d，不是 1（除以 √d 以后才是 1）。", 1),
            Mistake("这是 d²：独立的项相加，方差是各项方差之和，d 个 1 加起来。", 4096),
        ),
    ),
}
_NB11: dict[str, Exercise] = {  # exercises of notebook 11
    "11.rms_apple": Exercise(
        _APPLE_ROW / np.sqrt(30),
        "平方的平均 = (4 + 16 + 36 + 64) / 4 = 30；每个数除以 √30。",
        mistakes=(
            Mistake("这是 LayerNorm 的结果：RMSNorm 不减均值。", (_APPLE_ROW - 5) / _S3),
            Mistake("忘了开根号：除以的是 √30。", _APPLE_ROW / 30),
            rounded_early(_APPLE_ROW / round(np.sqrt(30), 1), "把 √30 ≈ 5.477 写成 5.5"),
            Mistake("平方和除以了 d − 1 = 3：RMS 里是除以 d。", _APPLE_ROW / np.sqrt(40)),
            Mistake("忘了除以 d：RMS 是平方的平均再开根号。", _APPLE_ROW / np.sqrt(120)),
        ),
    ),
    "11.rms_small": Exercise(
        np.array([1, 2, 2, 4]) / 2.5,
        "平方的平均 = (1 + 4 + 4 + 16) / 4 = 6.25，RMS = √6.25 = 2.5；每个数除以 2.5。",
        mistakes=(
            Mistake("这是 LayerNorm 的结果：RMSNorm 不减均值。", (np.array([1, 2, 2, 4]) - 2.25) / np.sqrt(1.1875)),
            Mistake("忘了开根号：除以的是 √6.25。", np.array([1, 2, 2, 4]) / 6.25),
            Mistake("平方和除以了 d − 1 = 3：RMS 里是除以 d。", np.array([1, 2, 2, 4]) / np.sqrt(25 / 3)),
        ),
    ),
    "11.which_norm": Exercise(
        "rmsnorm",
        "[11, 12, 13, 14] 是 [1, 2, 3, 4] 每个数加 10：LayerNorm 先减均值，加的 10 会被减掉；"
        "RMSNorm 不减均值，输出会变。[2, 4, 6, 8] 是整体乘 2，两种都不变。",
        nudge="整体乘 2 两种归一化都不变；整体加同一个数呢？哪一种会先减去均值？",
        mistakes=(
            Mistake(
                "LayerNorm 先减均值：[11, 12, 13, 14] 和 [1, 2, 3, 4] 减去各自的均值后一样，输出也一样；"
                "题目里的模型却给了不同的输出。",
                "layernorm",
            ),
        ),
    ),
}
_NB12: dict[str, Exercise] = {  # exercises of notebook 12
    "12.dbeta_demo": Exercise(
        [1, 0.5, 0, 2],
        "dβ = Σ dy：三行 dy 按列（同一维）加起来。",
        mistakes=(Mistake("求了平均：dβ 是把所有 token 的 dy 加起来，不是平均。", [1 / 3, 1 / 6, 0, 2 / 3]),),
    ),
    "12.dgamma_demo": Exercise(
        np.array([3, -0.5, 0, 6]) / _S3,
        "dγ = Σ dy ⊙ x̂：第 1 维 1 × 1.342（我），第 2 维 0.5 × (−0.447)（吃），第 4 维 2 × 1.342（苹果）。",
        atol=2e-3,
        mistakes=(
            Mistake("这是 dβ：dγ 的每一项还要乘上 x̂。", [1, 0.5, 0, 2]),
            Mistake("乘的是原始的 x：dγ 要乘归一化以后的 x̂。", [8, 20, 0, 16]),
            Mistake(
                "符号反了：看清每个 token 的 x̂ 在那一维是正还是负（「我」的第 1 维是 +1.342）。",
                np.array([-3, 0.5, 0, -6]) / _S3,
            ),
        ),
    ),
    "12.dx_first": Exercise(
        _dx_row(_APPLE_ROW, _E1)[0],
        "括号里的第 1 个数是 1 − 0.25 − (−3/√5)(−0.75/√5) = 0.3，再乘 r = 1/√5。",
        mistakes=(
            Mistake("忘了最后乘 r = 1/√(σ² + ε)。", _dx_row(_APPLE_ROW, _E1, scale=False)[0]),
            Mistake("漏掉了来自 σ 的那一项 −x̂·mean(g ⊙ x̂)。", _dx_row(_APPLE_ROW, _E1, sigma_term=False)[0]),
            Mistake("漏掉了来自 μ 的那一项 −mean(g)。", _dx_row(_APPLE_ROW, _E1, mu_term=False)[0]),
            Mistake(
                "只算了直接的那一项 r·g：μ 和 σ 也依赖 x，后两项不能省。",
                _dx_row(_APPLE_ROW, _E1, mu_term=False, sigma_term=False)[0],
            ),
            Mistake("符号反了。", -_dx_row(_APPLE_ROW, _E1)[0]),
        ),
    ),
    "12.dx_last": Exercise(
        _dx_row(_APPLE_ROW, _E1 + _E4),
        "g = [1, 0, 0, 1]，mean(g) = 0.5，mean(g ⊙ x̂) = (−3 + 3) / (4√5) = 0；括号里是 [0.5, −0.5, −0.5, 0.5]，"
        "再除以 √5。",
        nudge="dx = r · (g − mean(g) − x̂ · mean(g ⊙ x̂))：先算 mean(g) 和 mean(g ⊙ x̂)，其中一个正好是 0。",
        mistakes=(
            Mistake(
                "这是 dy = [1, 0, 0, 0] 的结果（第 2 节）；这里 dy = [1, 0, 0, 1]，两端都有梯度。",
                _dx_row(_APPLE_ROW, _E1),
            ),
            Mistake(
                "这是 dy = [0, 0, 0, 1] 的结果；这里 dy = [1, 0, 0, 1]，第 1 维也有梯度。", _dx_row(_APPLE_ROW, _E4)
            ),
            Mistake("忘了最后乘 r = 1/√5。", _dx_row(_APPLE_ROW, _E1 + _E4, scale=False)),
            Mistake(
                "漏掉了来自 μ 的那一项 −mean(g)：mean(g) = 0.5，要从 g 的每一维减掉。",
                _dx_row(_APPLE_ROW, _E1 + _E4, mu_term=False),
            ),
        ),
    ),
    "12.dbeta": Exercise(
        [4, 3, 1, 1],
        "dβ = Σ dy：把三行 dy 按列（同一维）加起来。",
        mistakes=(Mistake("求了平均：dβ 是把所有 token 的 dy 加起来。", [4 / 3, 1, 1 / 3, 1 / 3]),),
    ),
    "12.sum_dx": Exercise(
        -0.2,
        "一行 dx 的所有元素加起来是 0（整行加同一个常数，x̂ 不变），所以第 4 个是 −(0.3 − 0.5 + 0.4)。",
        mistakes=(
            Mistake("符号反了：四个数加起来要等于 0，第 4 个是前三个之和的相反数。", 0.2),
            Mistake("不是每个元素都是 0：是一行 dx 的和等于 0。", 0),
        ),
    ),
    "12.scale": Exercise(
        0.375,
        "x 乘以 c，dx 变成原来的 1/c；dx 对 dy 是线性的，dy 乘 3，dx 也乘 3。合起来是 3 / 8 = 0.375。",
        nudge="分两步想：只把 x 乘以 8 时 dx 怎么变？只把 dy 乘以 3 时呢？",
        mistakes=(
            Mistake("只算了 x 乘以 8 这一半：dy 也乘了 3，dx 对 dy 是线性的。", 1 / 8),
            Mistake("只算了 dy 乘以 3 这一半：x 乘以 8 时，dx 变成原来的 1/8。", 3),
            Mistake("x 这一边倒过来了：输入越大，梯度越小（1/8，不是 8）。", 24),
            Mistake("输出不变，不等于梯度不变：r = 1/σ 也跟着变小。", 1),
            Mistake("是 1/c，不是 1/c²：3 / 64 不对，应该是 3 / 8。", 3 / 64),
            Mistake("倒过来了：是 3 / 8，不是 8 / 3。", 8 / 3, 0.005),
        ),
    ),
}
_NB13: dict[str, Exercise] = {  # exercises of notebook 13
    "13.spacing": Exercise(
        0.0625,
        "间距按 2 的幂变化：10⁶ 在 2¹⁹ 和 2²⁰ 之间，间距是 2¹⁹⁻²³；试试 np.spacing(np.float32(1e6))。",
        atol=1e-6,
        mistakes=(
            Mistake("间距不是随数值成比例放大的，而是按 2 的幂一档一档变：用 np.spacing 看看。", 0.0977, 2e-3),
            Mistake("这是 float64 的间距；题目问的是 float32。", float(np.spacing(1e6)), 1e-12),
        ),
    ),
    "13.one_pass_f32": Exercise(
        0,
        "一遍法先算 E[x²] ≈ 100030003.5 和 E[x]² ≈ 100030002.25；在 float32 里，10⁸ 附近相邻两个数相差 8。",
        atol=0.01,
        mistakes=(
            Mistake("这是真实的方差：在 float32 里，两个约 10⁸ 的数相减，差值 1.25 比一格（8）还小，会被舍掉。", 1.25),
        ),
    ),
    "13.var_true": Exercise(
        5,
        "方差不受整体平移影响：只看 [0, 2, 4, 6]，偏差是 [−3, −1, 1, 3]。",
        mistakes=row_mistakes(np.array([[1e5, 1e5 + 2, 1e5 + 4, 1e5 + 6]]), 0, "variance")
        + (Mistake("这是一遍法在低精度里算错的结果；真实方差不是 0。", 0),),
    ),
    "13.float16_overflow": Exercise(
        256,
        "float16 最大是 65504，√65504 ≈ 255.9；255² = 65025 还没超过，256² = 65536 超过了。",
        nudge="先求 √65504 大约是多少，再看它两边的整数。",
        atol=0,
        mistakes=(
            Mistake("255² = 65025，还没超过 65504；再大一个试试。", 255),
            Mistake("题目问的是一个整数：√65504 ≈ 255.9 不是整数，比它大的第一个整数才会溢出。", np.sqrt(65504), 0.06),
            Mistake("这是 float16 的最大值本身：题目问的是哪个数的平方超过它。", 65504),
        ),
    ),
    "13.welford_m2": Exercise(
        200,
        "读完以后 m = 20，M2 = Σ(x − 20)² = 100 + 0 + 100。",
        mistakes=(
            Mistake("这是方差 M2 / n；题目问的是 M2 本身。", 200 / 3),
            Mistake("没有减均值：M2 是偏差的平方和。", 1400),
        ),
    ),
}
_NB14: dict[str, Exercise] = {  # exercises of notebook 14: one or more per earlier notebook
    "14.residual": Exercise(
        [1.5, 2, 4, 6],
        "逐位相加：[0.5 + 1, −1 + 3, 2 + 2, 1 + 5]。",
        mistakes=(Mistake("做了减法：残差连接是相加。", [-0.5, -4, 0, -4]),),
    ),
    "14.count_means": Exercise(
        10,
        "每个 token 一个 μ：2 个句子 × 5 个 token。",
        atol=0,
        mistakes=(
            Mistake("这是 axis=(-2, -1) 时的个数：LayerNorm 默认每个 token 一个 μ。", 2),
            Mistake("按特征（最后一维）数了：那是 BatchNorm 的方向。", 8),
            Mistake("数的是全部的数（2 × 5 × 8），不是组数。", 80),
        ),
    ),
    "14.variance": Exercise(
        9,
        "μ = 5，偏差是 [−3, −1, −1, 5]，平方的平均是 36 / 4。",
        mistakes=row_mistakes(np.array([[2.0, 4.0, 4.0, 10.0]]), 0, "variance"),
    ),
    "14.xhat_last": Exercise(
        5 / 3,
        "(10 − 5) / √9 = 5 / 3。",
        mistakes=(
            Mistake("除以了方差 9，忘了开根号。", 5 / 9),
            Mistake("方差除以了 d − 1 = 3：LayerNorm 除以 d。", 5 / np.sqrt(12)),
            Mistake("忘了减均值 5。", 10 / 3),
        ),
    ),
    "14.constant_row": Exercise(
        [0, 0, 0, 0],
        "x − μ 全是 0，分母 √(0 + ε) 不是 0，所以结果全是 0。",
        atol=1e-9,
        mistakes=(
            Mistake("给出了原来的数：输出是归一化以后的结果。", [4, 4, 4, 4]),
            Mistake("分子 x − μ 全是 0，结果不会是 1。", [1, 1, 1, 1]),
        ),
    ),
    "14.lost": Exercise(
        "b",
        "减去 μ 以后，这一行的平均值一定是 0，原来的平均值就不见了。",
        mistakes=(
            Mistake("谁高谁低的顺序留下来了：每个数减去同一个 μ、除以同一个正数 σ，大小顺序不变。", "a"),
            Mistake("差距的比例留下来了：每个差距都除以同一个 σ，两个差距之比不变（第 5 篇的「模式」）。", "c"),
        ),
    ),
    "14.affine": Exercise(
        2 * -1.342 + 1,
        "y = γ · x̂ + β = 2 × (−1.342) + 1。",
        atol=2e-3,
        mistakes=(
            Mistake("忘了加 β = 1。", 2 * -1.342),
            Mistake("先加 β 再乘 γ 了：y = γ · x̂ + β。", 2 * (-1.342 + 1)),
            Mistake("γ 和 β 用反了：γ = 2 乘 x̂，β = 1 加上去。", -1.342 + 2),
            Mistake("忘了乘 γ = 2：y = γ · x̂ + β，x̂ 要先乘 γ。", -1.342 + 1),
        ),
    ),
    "14.params": Exercise(
        1536, "γ 和 β 各有 d 个数。", atol=0, mistakes=(Mistake("只算了 γ（或只算了 β）：两者各 768 个。", 768),)
    ),
    "14.bn_means": Exercise(
        4,
        "BatchNorm 按列统计：有几列就有几个 μ。",
        atol=0,
        mistakes=(Mistake("这是 LayerNorm 的个数（每行一个）；BatchNorm 每一列一个。", 3),),
    ),
    "14.pre_ln": Exercise(
        "a",
        "Pre-LN 先归一化再送进子层，残差那条路不经过 LN。",
        mistakes=(
            Mistake(
                "b 是 Post-LN：LN(x + F(x))，先把残差和子层的输出相加，再对和做 LN（原始 Transformer 的写法）；"
                "Pre-LN 是先归一化再进子层。",
                "b",
            ),
        ),
    ),
    "14.attention_scale": Exercise(8, "除以 √d_k。", mistakes=(Mistake("除以的是 √d_k，不是 d_k。", 64),)),
    "14.rms_first": Exercise(
        1 / np.sqrt(21),
        "mean(x²) = (1 + 9 + 25 + 49) / 4 = 21，1 / √21。",
        mistakes=(
            Mistake("这是 LayerNorm 的结果：RMSNorm 不减均值。", -3 / _S3),
            Mistake("忘了开根号：除以的是 √21。", 1 / 21),
            Mistake("平方和除以了 d − 1 = 3：RMS 里是除以 d。", 1 / np.sqrt(28)),
        ),
    ),
    "14.dbeta": Exercise(
        [1, 2, 1, 0],
        "dβ = Σ dy：两行按列相加。",
        mistakes=(Mistake("求了平均：dβ 是把两行加起来。", [0.5, 1, 0.5, 0]),),
    ),
    "14.dgamma": Exercise(
        [1, -2, 1, 0],
        "dγ = Σ dy ⊙ x̂：先逐位相乘，[1, −1, 0, 0] + [0, −1, 1, 0]，再按列相加。",
        mistakes=(
            Mistake("这是 dβ：dγ 的每一项还要乘上 x̂。", [1, 2, 1, 0]),
            Mistake("两行的 x̂ 配错了：第 1 行 dy 乘第 1 行 x̂。", [-1, -2, 1, 0]),
        ),
    ),
    "14.dx_constant": Exercise(
        [0, 0, 0, 0],
        "g = dy 每一维都一样：g − mean(g) = 0，mean(g ⊙ x̂) = mean(x̂) = 0。",
        atol=1e-6,
        mistakes=(
            Mistake("漏掉了 −mean(g) 这一项：整行一起变，只会改变均值，x̂ 不受影响。", [1 / _S3] * 4),
            Mistake("dx 不等于 dy：μ 和 σ 也依赖 x。", [1, 1, 1, 1]),
        ),
    ),
    "14.merge_m2": Exercise(
        40,
        "M2 = M2a + M2b + δ² · na · nb / n，δ = 7 − 1 = 6。",
        mistakes=(
            Mistake("漏掉了 δ² · na · nb / n：两段的均值不一样，这部分偏差也要算进去。", 4),
            Mistake("这是方差 M2 / n；题目问的是 M2。", 10),
            Mistake("δ² · na · nb 还要除以 n = 4。", 148),
            Mistake(
                "只算了一段：[0, 2] 和 [6, 8] 到合并均值 4 的偏差平方和各是 20，合并的 M₂ 是两段之和。",
                float(((np.array([6.0, 8.0]) - 4) ** 2).sum()),
            ),
        ),
    ),
    "14.one_pass": Exercise(
        "b",
        "两个约 10⁸ 的大数相减：哪种算法要先算 x² 的平均？",
        synonyms=("一遍法", "e[x^2]-e[x]^2", "e[x²]-e[x]²", "onepass", "one-pass"),
        mistakes=(
            Mistake("两遍法先求出 μ，再平方的是偏差 0、1、2、3 这样不大的数，float32 算得准。", "a"),
            Mistake("Welford 每读一个数都更新均值和偏差平方和 M2，用的也是偏差，不会整个抵消。", "c"),
        ),
    ),
}

_NB15: dict[str, Exercise] = {  # exercises of notebook 15
    "15.predict_depth": Exercise(
        "b",
        "ReLU 把一半左右的数变成 0，N(0, 1/fan_in) 的权重只保持方差不变：每过一层方差约减半，标准差约乘 1/√2 ≈ 0.71；"
        "从第 1 层到第 8 层过了 7 层，标准差约乘 0.71⁷ ≈ 0.09，大约十分之一。",
        nudge="题目问的是标准差，不是方差：方差每层约减半时，标准差每层变成多少倍？",
        mistakes=(
            Mistake("没有归一化层时，有什么能把尺度拉回来吗？想一想 ReLU 每过一层对方差做了什么。", "a"),
            Mistake("ReLU 会把数放大吗？想一想它把哪些数变成了什么，对方差有什么影响。", "c"),
        ),
    ),
    "15.predict_batch1": Exercise(
        0.333,
        "一个样本减去它自己的均值是 0：每个输入得到同一个预测，三类里只能碰对一类。",
        atol=0.02,
        nudge="只有 1 个样本时，这一批的均值就是它自己：减去均值以后还剩什么？",
        mistakes=(
            Mistake("这是两类时瞎猜的准确率：这里有三类（三条螺旋臂），每个输入都得到同一个预测。", 0.5),
            Mistake("批统计量用的是这 1 个样本自己：减去均值后全是 0，网络根本看不到输入。", 1.0),
            Mistake(
                "准确率 0 是一个也猜不对：网络看不到输入，每个输入得到同一个预测，"
                "可三类各占三分之一，这个预测总能碰对其中一类。",
                0,
                0,
            ),
        ),
    ),
    "15.predict_post": Exercise(
        "pre",
        "哪一种在初始化时输出端附近的梯度更温和，不需要 warm-up？",
        mistakes=(Mistake("Post-LN 初始化时最后几层的梯度大，没有 warm-up 时一开始就容易走偏。", "post"),),
    ),
    "15.warmup_value": Exercise(
        2e-4,
        "第 9 步（从 0 数）是第 10 步：1e-3 × 10 / 50。",
        atol=1e-9,
        nudge="公式里是 t + 1，不是 t：t 从 0 数。",
        mistakes=(
            Mistake("用了 t / W：t 从 0 数，第 t 步的学习率是 η · (t + 1) / W。", 1.8e-4),
            Mistake("这是峰值学习率 η：第 9 步还在 warm-up 里。", 1e-3),
            Mistake("除以了 t + 1 而不是乘：学习率在 warm-up 里随步数线性变大。", 1e-3 / 10 / 50),
        ),
    ),
    "15.predict_scale": Exercise(
        "a",
        "有归一化时，每一层都把输入的尺度除掉；没有归一化时 8 层就把尺度乘上 s⁸ = 4⁸ ≈ 65536。",
        synonyms=("无归一化", "none"),
        mistakes=(
            Mistake("LayerNorm 每一层都把输入除以它自己的 σ：初始权重放大 4 倍，对它的前向传播有多大影响？", "b"),
            Mistake("四种都学得会吗？想一想没有归一化时，初始权重放大 4 倍，信号过 8 层以后会变成多大。", "c"),
        ),
    ),
}

# Notebook 16: the row of 果 entering layer 1's first LayerNorm in the tiny trained model (lnlib.tiny_lm), as the
# notebook shows it, 3 significant digits (tests/test_tiny_lm.py checks these against the shipped weights).
_GUO_X = np.array([-0.0480, 0.0884, -0.0246])  # its first three dimensions
_GUO_MU, _GUO_SIGMA = 0.00188, 0.0844  # its μ and √(σ² + ε)
_NB16: dict[str, Exercise] = {  # exercises of notebook 16
    "16.predict_sigma": Exercise(
        "c",
        "训练好的模型里，词向量和位置向量都从很小的数（标准差 0.02）开始训练："
        "进入第 1 层的行，每个数大多只有零点零几，一行的 σ 约 0.1。",
        nudge="第 1 层 LayerNorm 的输入就是「词向量 + 位置向量」：它们一开始是标准差 0.02 的随机数。",
        synonyms=("0.1", "约0.1", "约 0.1", "c 约 0.1", "(c) 约 0.1"),
        mistakes=(
            Mistake("玩具矩阵的数是手写的 2、4、6、8；模型里的向量是从多大的随机数开始训练的？", "b"),
            Mistake("「吃」那一行 [20, 40, 60, 80] 是故意放大的例子；模型里的向量是从多大的随机数开始训练的？", "a"),
        ),
    ),
    "16.xhat_guo": Exercise(
        (_GUO_X - _GUO_MU) / _GUO_SIGMA,
        "x̂ = (x − μ) / σ：(−0.0480 − 0.00188) / 0.0844，(0.0884 − 0.00188) / 0.0844，(−0.0246 − 0.00188) / 0.0844。",
        atol=2e-3,  # the final rounding plus the rounding of the shown x, μ and σ (3 significant digits)
        mistakes=(
            Mistake("没有先减去 μ：x̂ = (x − μ) / σ。μ 很小，但不是 0。", _GUO_X / _GUO_SIGMA),
            Mistake("除以的是 σ²：要除以标准差 σ（这里给的已经是 √(σ² + ε)）。", (_GUO_X - _GUO_MU) / _GUO_SIGMA**2),
            Mistake("只减了 μ，还没有除以 σ。", _GUO_X - _GUO_MU),
        ),
    ),
    "16.predict_ablation": Exercise(
        "b",
        "看第 2 节的 μ 表：这个模型里每一行的 μ 都几乎是 0。不减 μ 的 RMSNorm 和 LayerNorm 算出来差不多。",
        nudge="三种做法各改了 LayerNorm 的哪一步？哪一步在这个模型里本来就几乎什么也不做？",
        synonyms=("rmsnorm", "rms", "换成rmsnorm", "换成 rmsnorm", "b 换成 rmsnorm", "(b) 换成 rmsnorm"),
        mistakes=(
            Mistake("去掉 LayerNorm 以后，后面的层收到的行比训练时小一到十几倍：它改得最多。", "a"),
            Mistake("冻结统计量后，σ 不再跟着每一行走：σ 小的行和 σ 大的行被除以同一个数。", "c"),
        ),
    ),
    "16.predict_final": Exercise(
        "b",
        "最终 LayerNorm 对每一行除以它自己的 σ（再乘 γ 加 β）：它主要管 logits 的大小，不大改变哪个字的 logit 最大。",
        nudge="除以一个正数会不会改变一行里哪个数最大？",
        synonyms=("损失明显变大，准确率几乎不变", "损失明显变大", "b 损失明显变大", "(b) 损失明显变大，准确率几乎不变"),
        mistakes=(
            Mistake("去掉的只是最后一个 LayerNorm，前面的层都没变：哪个字的分数最高大多不变。", "a"),
            Mistake("最终 LayerNorm 的 σ 每个字不一样（从约 0.3 到 1.4）：去掉它，logits 的大小就乱了。", "c"),
        ),
    ),
    "16.eps_shrink": Exercise(
        0.1 / np.sqrt(0.1**2 + 0.01),
        "有 ε 时分母是 √(σ² + ε) = √(0.01 + 0.01) = √0.02 ≈ 0.1414；x̂ 变成原来的 0.1 / 0.1414 ≈ 0.707 倍。",
        atol=5e-4,
        nudge="ε 加在根号里面：分母从 √σ² 变成 √(σ² + ε)。",
        mistakes=(
            Mistake("倒过来了：分母变大，x̂ 变小，倍数小于 1。", np.sqrt(0.02) / 0.1),
            Mistake("把 ε 加在了 σ 上：LayerNorm 的分母是 √(σ² + ε)，不是 σ + ε。", 0.1 / 0.11),
            Mistake("这是 σ² / (σ² + ε)：还要开平方根。", 0.5),
        ),
    ),
}


EXERCISES: dict[str, Exercise] = {
    key: exercise
    for name, table in sorted(globals().items())
    if name.startswith("_NB")
    for key, exercise in table.items()
}


def judge(name: str, answer) -> Verdict:
    """The verdict on a learner's answer to exercise `name` (what `check` prints, without printing it)."""
    if not isinstance(name, str):
        raise TypeError(f"name: expected an exercise name such as '03.mean_pear', got {name!r}")
    if name not in EXERCISES:
        known = ", ".join(sorted(EXERCISES))
        raise ValueError(f"name: unknown exercise {name!r}; known exercises: {known}")
    return grade(EXERCISES[name], answer)


def check(name: str, answer) -> None:
    """Print ✓ or ✗ with the reason for a learner's answer; display nothing else.

    The first two wrong tries name the mistake (or give a nudge), the second also says where the solution is; the
    hint, which works the answer out, comes from the third wrong try of the same exercise on, or from
    `lnlib.hint(name)`. A right answer is recorded for `lnlib.progress()` (silently skipped when the data folder
    cannot be written) and starts the tries over.
    """
    verdict = judge(name, answer)
    if answer is None:
        print(f"尚未作答：把 answer = None 改成你的答案，再运行这个单元格。（{name}）")
    elif verdict.ok:
        note = _record.record_right(name)
        print(f"✓ 正确！（{name}）" + (f"\n{note}" if note else ""))
    else:
        tries = _record.tried(name)
        more = ""
        if tries == HINT_AFTER and verdict.first:
            more = f'\n  想现在就看解法：运行 lnlib.hint("{name}")；再答错一次，这里也会给出解法。'
        elif tries > HINT_AFTER and verdict.first:
            more = f'\n  完整的解法：运行 lnlib.hint("{name}")。'
        print(f"✗ 还不对（{name}）：{verdict.text(tries)}{more}")
