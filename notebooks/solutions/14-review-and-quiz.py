"""第 14 篇「复习与测验」练习的参考答案。"""

import numpy as np

import lnlib

ANSWERS = {}

# 练习 1：残差相加
ANSWERS["14.residual"] = np.array([1, 1, 2, 2]) + np.array([1, 3, 4, 6])

# 练习 2：每个 token 一个 μ
shape = (2, 5, 8)
ANSWERS["14.count_means"] = shape[0] * shape[1]

# 练习 3、4：[1, 3, 5, 7] 的方差和最后一维的 x̂
x = np.array([1.0, 3.0, 5.0, 7.0])
ANSWERS["14.variance"] = float(((x - x.mean()) ** 2).mean())
ANSWERS["14.xhat_last"] = round(float((x[-1] - x.mean()) / np.sqrt(((x - x.mean()) ** 2).mean())), 3)

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
ANSWERS["14.rms_first"] = round(float(row[0] / np.sqrt(np.mean(row**2))), 3)

# 练习 13：dβ = Σ dy
ANSWERS["14.dbeta"] = np.array([[1, 1, 0, 0], [0, 1, 1, 0]]).sum(axis=0)
