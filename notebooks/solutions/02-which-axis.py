"""第 2 篇「按哪一维统计」练习的参考答案。"""

import numpy as np

import lnlib

M = lnlib.TOKEN_MATRIX
ANSWERS = {}

# 正文 3（先算一算）：整张表 12 个数一起平均
ANSWERS["02.table_mean"] = M.sum() / M.size

# 练习 1：另一句话的 2 × 4 矩阵，按行的均值，一个 token 一个
N = np.array([[1.0, 3.0, 5.0, 7.0], [2.0, 4.0, 4.0, 10.0]])
ANSWERS["02.row_means"] = N.sum(axis=1) / N.shape[1]

# 练习 2：第 4 维这一列：(7 + 10) / 2
ANSWERS["02.column_mean"] = N[:, 3].sum() / N.shape[0]

# 练习 3：按行统计，有几行就有几个 μ
ANSWERS["02.count"] = N.shape[0]
