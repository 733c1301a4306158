"""第 2 篇「按哪一维统计」练习的参考答案。"""

import lnlib

M = lnlib.TOKEN_MATRIX
ANSWERS = {}

# 练习 1：按行的均值，一个 token 一个
ANSWERS["02.row_means"] = M.sum(axis=1) / M.shape[1]

# 练习 2：第 1 维这一列：(8 + 20 + 2) / 3
ANSWERS["02.column_mean"] = M[:, 0].sum() / M.shape[0]

# 练习 3：按行统计，有几行就有几个 μ
ANSWERS["02.count"] = M.shape[0]
