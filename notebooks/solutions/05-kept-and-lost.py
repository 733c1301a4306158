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

# 练习 3：表 1 之外的四种改动，在随便取的 X、W 上逐个算出来，和原来的输出比较
rng = np.random.default_rng(0)
X, W = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
u, v = rng.normal(size=3), rng.normal(size=3)


def outputs(X, W):
    return np.apply_along_axis(xhat, -1, X @ W.T)


W_c = W.copy()
W_c[1] += u  # (c) 只改第 2 个隐藏单元
changed = [outputs(X, -2 * W), outputs(0.5 * X, W), outputs(X, W_c), outputs(3 * X, W + v)]
ANSWERS["05.invariant_count"] = sum(bool(np.allclose(o, outputs(X, W))) for o in changed)

# 正文 5：x̂ 的平方和 = d · Var(x̂) = d（ε = 0）
ANSWERS["05.norm_squared"] = float((xhat([2, 4, 6, 8]) ** 2).sum())
