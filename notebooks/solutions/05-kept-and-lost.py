"""第 5 篇「保留了什么，丢掉了什么」练习的参考答案。"""

import numpy as np


def xhat(row):
    row = np.asarray(row, dtype=float)
    return (row - row.mean()) / np.sqrt(((row - row.mean()) ** 2).mean())


ANSWERS = {}

# 练习 1：[108, 104, 106, 102] = [8, 4, 6, 2] + 100，平移被减均值抵消
ANSWERS["05.swap_shift"] = xhat([108, 104, 106, 102])

# 练习 2：乘 −1，x − μ 变号、σ 不变，x̂ 整体变号
ANSWERS["05.negative_scale"] = xhat(-np.array([2, 4, 6, 8]))

# 练习 3：数 LayerNorm 一行里的 ✓（用计算得出，不是抄表）
from lnlib import invariance  # noqa: E402

ANSWERS["05.invariant_count"] = sum(v.invariant for v in invariance.verdicts("layer"))

# 正文 5：x̂ 的平方和 = d · Var(x̂) = d（ε = 0）
ANSWERS["05.norm_squared"] = float((xhat([2, 4, 6, 8]) ** 2).sum())
