"""第 1 篇「残差相加与 token 矩阵」练习的参考答案。"""

import numpy as np

import lnlib

ANSWERS = {}

# 正文 3（先算一算）：苹果 [2, 4, 6, 8] 乘 W，每一列一个数
W = np.array([[0.5, -1.0], [1.0, 0.5], [-0.5, 1.0], [1.0, 0.0]])
ANSWERS["01.apple_times_w"] = lnlib.TOKEN_MATRIX[2] @ W

# 练习 1：残差连接是逐位相加
ANSWERS["01.residual"] = np.array([3, 1, 0, 2]) + np.array([1, 2, 4, 1])

# 练习 2：线性层：吃 是 苹果 的 10 倍，[6, 12, 18, 24] 是 3 倍，输出之比是 10 / 3
apple, chi = lnlib.TOKEN_MATRIX[2], lnlib.TOKEN_MATRIX[1]
ANSWERS["01.ratio"] = float(np.mean((chi @ W) / ((3 * apple) @ W)))
