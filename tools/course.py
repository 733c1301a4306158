"""The course plan: one entry per notebook, in order. tools/nav.py builds headers, footers and the map from it.

A notebook listed here but not yet in notebooks/ is shown as 即将推出 in the map.
"""

from __future__ import annotations

from dataclasses import dataclass

SERIES_TITLE = "LayerNorm 手算"
# The GitHub repository that hosts the course, as "owner/name"; used for Binder links.
# Change it with `python tools/nav.py --repo owner/name` after you fork or publish the course.
REPOSITORY = "OWNER/REPO"
LICENSE_NOTE = (
    "课程文字与图表采用 [CC BY 4.0](https://creativecommons.org/licenses/by/4.0/deed.zh-hans) 许可，代码采用 MIT 许可。"
)


@dataclass(frozen=True)
class Lesson:
    stem: str  # file name without .ipynb
    title: str
    summary: str  # one line for the course map and the README
    goals: tuple[str, ...] = ()

    @property
    def number(self) -> int:
        return int(self.stem[:2])


LESSONS = (
    Lesson("00-index", "课程地图与使用说明", "整个课程的地图、怎么运行、怎么做练习。"),
    Lesson(
        "01-residual-and-token-matrix",
        "残差相加与 token 矩阵",
        "从 attention 输出加残差得到 [2, 4, 6, 8]，认识 我 / 吃 / 苹果 这张 3×4 的表。",
        (
            "残差连接把 attention 的输出和输入逐位相加",
            "我 / 吃 / 苹果 矩阵每一行、每一列代表什么",
            "为什么「吃」比「苹果」大 10 倍是个问题",
        ),
    ),
    Lesson(
        "02-which-axis",
        "按哪一维统计",
        "LayerNorm 按行统计：每个 token 自己的 μ 和 σ；对比按列和全表。",
        ("LayerNorm 的统计量按行（每个 token）计算", "按列、全表统计会得到什么不同的数", "归一化前后形状都是 (3, 4)"),
    ),
    Lesson(
        "03-one-row-by-hand",
        "手算一行",
        "苹果：μ = 5 → x − μ → σ² = 5 → σ ≈ 2.236 → x̂ ≈ [−1.342, −0.447, 0.447, 1.342]。",
        (
            "均值、中心化、方差、标准差、归一化每一步在做什么",
            "吃 和 苹果 为什么得到同一个 x̂",
            "用交互小工具输入任意向量，观察每一步",
        ),
    ),
    Lesson(
        "04-epsilon",
        "ε 的作用",
        "常数行的 0/0、σ²/(σ²+ε)、ε 放在根号里还是外面、÷d 还是 ÷(d−1)。",
        (
            "ε 怎样让常数行得到全零而不是 0/0",
            "为什么有了 ε，x̂ 的方差接近 1 而不等于 1",
            "ε 放在根号里和加在 σ 上的区别",
            "方差为什么除以 d 而不是 d − 1",
        ),
    ),
    Lesson(
        "05-kept-and-lost",
        "保留了什么，丢掉了什么",
        "整体尺度和偏移被丢掉，维度之间的高低模式被保留。",
        ("整体缩放和平移为什么不影响 x̂", "交换两维以后 x̂ 怎样变化", "用计算重现 LayerNorm 论文表 1 的不变性"),
    ),
    Lesson(
        "06-gamma-and-beta",
        "γ 与 β",
        "可学习的逐维缩放和平移：每个模块一套，所有 token 共用。",
        (
            "γ、β 逐维缩放和平移，初始值是 1 和 0",
            "统计量每个 token 一套，γ、β 所有 token 共用",
            "γ、β 为什么找不回被丢掉的信息",
        ),
    ),
    Lesson(
        "07-full-formula",
        "完整公式",
        "y = γ ⊙ (x − μ)/√(σ² + ε) + β：矩阵、批量张量和多个维度。",
        (
            "矩阵和 (batch, seq, d) 张量里每个量的形状",
            "三种算法互相核对",
            "对最后几个维度一起归一化",
            "自己用几行 numpy 写出 LayerNorm",
        ),
    ),
    Lesson(
        "08-layernorm-vs-batchnorm",
        "LayerNorm 与 BatchNorm",
        "按行还是按列、批量依赖、训练与推理、padding。",
        (
            "按行（LayerNorm）和按列（BatchNorm）统计的区别",
            "BatchNorm 的结果为什么依赖同一批里的其他样本",
            "训练与推理的滑动统计量、padding 带来的问题",
            "「内部协变量偏移」这个解释为什么有争议",
        ),
    ),
    Lesson(
        "09-add-and-norm",
        "Add & Norm：Post-LN 与 Pre-LN",
        "LayerNorm 在 Transformer 里的位置与深层训练。",
        (
            "Post-LN 与 Pre-LN 的结构区别",
            "激活尺度随深度怎样变化",
            "用小模型重现 Xiong et al. (2020) 关于初始化梯度的结论",
            "warm-up 的由来与 DeepNorm",
        ),
    ),
    Lesson(
        "10-attention-softmax",
        "注意力与 softmax",
        "QKᵀ/√d、softmax 饱和与 QK-norm。",
        ("QKᵀ/√d 里的 √d 在做什么", "logits 变大时 softmax 怎样饱和", "QK-norm 能保证什么、不能保证什么"),
    ),
    Lesson(
        "11-variants",
        "变体：RMSNorm 等",
        "RMSNorm、DeepNorm、PowerNorm 与 SwitchableNorm。",
        (
            "RMSNorm：不减均值，只除以均方根",
            "RMSNorm 什么时候和 LayerNorm 相同",
            "DeepNorm、PowerNorm、SwitchableNorm 各自改了什么",
            "哪些著名模型用了哪种归一化",
        ),
    ),
    Lesson(
        "12-backward",
        "反向传播",
        "手推 LayerNorm 的梯度并用数值梯度检验。",
        ("LayerNorm 反向传播公式的推导", "用中心差分检验梯度", "Σdx = 0、dx ⟂ x̂ 等性质", "雅可比矩阵长什么样"),
    ),
    Lesson(
        "13-numerics-and-speed",
        "数值稳定与速度",
        "一遍法方差的灾难性抵消、Welford、float16 与速度。",
        (
            "一遍法方差 E[x²] − E[x]² 为什么会算错",
            "两遍法和 Welford 算法",
            "float16 的溢出与 ε 在低精度下的作用",
            "怎样测量和比较速度",
        ),
    ),
    Lesson(
        "14-review-and-quiz",
        "复习与测验",
        "全课地图、综合练习与常见错误。",
        ("把整门课串成一张图", "综合练习覆盖每一篇", "常见错误和能一眼看穿它们的反例"),
    ),
    Lesson(
        "15-training-with-and-without-ln",
        "真的训练一次：有无归一化",
        "用 numpy 训练深层 MLP 和小 Transformer：归一化稳住了什么、BatchNorm 的小批量问题、Post-LN 与 warm-up。",
        (
            "深层 MLP 有无 LayerNorm / BatchNorm / RMSNorm 时的损失曲线和可用的最大学习率",
            "归一化让每层激活和梯度的尺度保持稳定",
            "小批量和单个样本推理时 BatchNorm 的问题：Transformer 为什么用 LayerNorm",
            "Post-LN 与 Pre-LN、有无学习率 warm-up 的训练曲线（Xiong et al. 2020）",
        ),
    ),
)
