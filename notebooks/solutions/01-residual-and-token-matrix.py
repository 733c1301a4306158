"""第 1 篇「残差相加与 token 矩阵」练习的参考答案。"""

import numpy as np

import lnlib

ANSWERS = {}

# 正文 3（先算一算）：苹果 [2, 4, 6, 8] 乘 W，每一列一个数
W = np.array([[0.5, -1.0], [1.0, 0.5], [-0.5, 1.0], [1.0, 0.0]])
ANSWERS["01.apple_times_w"] = lnlib.TOKEN_MATRIX[2] @ W

# 练习 1：残差连接是逐位相加
ANSWERS["01.residual"] = np.array([3, 1, 0, 2]) + np.array([1, 2, 4, 1])

# 练习 2：线性层：输入乘 3，输出也乘 3
apple = lnlib.TOKEN_MATRIX[2]
ANSWERS["01.ratio"] = float(np.mean(((3 * apple) @ W) / (apple @ W)))
