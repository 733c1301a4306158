"""第 8 篇「LayerNorm 与 BatchNorm」练习的参考答案。"""

import numpy as np

import lnlib

X = lnlib.TOKEN_MATRIX
ANSWERS = {}

# 练习 1：第 1 列 8、20、2 按列标准化，取「吃」那一格
col = X[:, 0]
ANSWERS["08.bn_chi_dim1"] = (col[1] - col.mean()) / np.sqrt(((col - col.mean()) ** 2).mean())

# 练习 2：running_var = 0.9 × 1 + 0.1 × 无偏方差
batch = np.array([2.0, 4.0])
ANSWERS["08.running_var"] = 0.9 * 1.0 + 0.1 * batch.var(ddof=1)

# 练习 3：LayerNorm 只用每个样本自己的统计量（Ba et al. 2016 表 1 的最后一列）
ANSWERS["08.single_case"] = "layer"
