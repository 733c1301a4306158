"""第 1 篇「残差相加与 token 矩阵」练习的参考答案。"""

import numpy as np

import lnlib

ANSWERS = {}

# 练习 1：残差连接是逐位相加
ANSWERS["01.residual"] = np.array([3, 2, 1, 0]) + np.array([5, 4, 3, 2])

# 练习 2：吃 / 苹果，每一维都一样
ANSWERS["01.ratio"] = float(np.mean(lnlib.TOKEN_MATRIX[1] / lnlib.TOKEN_MATRIX[2]))
