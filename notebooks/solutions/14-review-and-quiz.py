"""第 14 篇「复习与测验」练习的参考答案。"""

import numpy as np

import lnlib

ANSWERS = {}

# 练习 1：残差相加
ANSWERS["14.residual"] = np.array([0.5, -1, 2, 1]) + np.array([1, 3, 2, 5])

# 练习 2：每个 token 一个 μ
shape = (2, 5, 8)
ANSWERS["14.count_means"] = shape[0] * shape[1]

# 练习 3、4：[2, 4, 4, 10] 的方差和最后一维的 x̂
x = np.array([2.0, 4.0, 4.0, 10.0])
ANSWERS["14.variance"] = float(((x - x.mean()) ** 2).mean())
ANSWERS["14.xhat_last"] = float((x[-1] - x.mean()) / np.sqrt(((x - x.mean()) ** 2).mean()))

# 练习 5：常数行，ε > 0
ANSWERS["14.constant_row"] = lnlib.layer_norm([4.0, 4.0, 4.0, 4.0], eps=1e-5)

# 练习 6：整行的平均值被减掉了
ANSWERS["14.lost"] = "b"

# 练习 7：γ · x̂ + β
ANSWERS["14.affine"] = 2 * -1.342 + 1

# 练习 8：γ 和 β 各 d 个
ANSWERS["14.params"] = 2 * 768

# 练习 9：token 矩阵有 4 列
ANSWERS["14.bn_means"] = lnlib.TOKEN_MATRIX.shape[1]

# 练习 10：Pre-LN 是 x + F(LN(x))
ANSWERS["14.pre_ln"] = "a"

# 练习 11：√64
ANSWERS["14.attention_scale"] = np.sqrt(64)

# 练习 12：RMSNorm 的第 1 维
row = np.array([1.0, 3.0, 5.0, 7.0])
ANSWERS["14.rms_first"] = float(row[0] / np.sqrt(np.mean(row**2)))

# 练习 13：dβ = Σ dy
dy = np.array([[1, 1, 0, 0], [0, 1, 1, 0]])
ANSWERS["14.dbeta"] = dy.sum(axis=0)

# 练习 14：dγ = Σ dy ⊙ x̂
x_hats = np.array([[1, -1, 1, -1], [-1, -1, 1, 1]])
ANSWERS["14.dgamma"] = (dy * x_hats).sum(axis=0)

# 练习 15：dy 每一维相同时 dx = 0（对任意 x）
dx, _, _ = lnlib.layer_norm_backward(np.ones(4), x, eps=0)
ANSWERS["14.dx_constant"] = dx

# 练习 16：合并 (2, 1, 2) 和 (2, 7, 2)：M2 = M2a + M2b + δ²·na·nb/n；核对：[0, 2, 6, 8] 的偏差平方和
delta = 7 - 1
ANSWERS["14.merge_m2"] = 2 + 2 + delta**2 * 2 * 2 / 4
assert ANSWERS["14.merge_m2"] == ((np.array([0, 2, 6, 8]) - 4) ** 2).sum()

# 练习 17：一遍法在 float32 里被抵消成 0
ANSWERS["14.one_pass"] = "b"
