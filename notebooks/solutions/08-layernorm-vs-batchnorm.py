"""第 8 篇「LayerNorm 与 BatchNorm」练习的参考答案。"""

import numpy as np

import lnlib

X = lnlib.TOKEN_MATRIX
ANSWERS = {}

# 第 1 节（先算一算）：第 1 列 8、20、2 的有偏方差
col = X[:, 0]
ANSWERS["08.bn_col_var"] = float(((col - col.mean()) ** 2).mean())

# 第 1 节（先算一算）：按列标准化，取「吃」那一格
ANSWERS["08.bn_chi_dim1"] = (col[1] - col.mean()) / np.sqrt(((col - col.mean()) ** 2).mean())

# 第 7 节（先猜一猜）：BatchNorm 每个特征单独标准化，单个权重向量乘 3 被除掉
ANSWERS["08.bn_weight_vector"] = "不变"

# 练习 1：running_var = 0.9 × 1 + 0.1 × 无偏方差
batch = np.array([2.0, 4.0])
ANSWERS["08.running_var"] = 0.9 * 1.0 + 0.1 * batch.var(ddof=1)

# 练习 2：LayerNorm 用这个样本自己的均值，它也加了 100，x − μ 不变；BatchNorm 的列均值只加 100 / n
ANSWERS["08.single_case"] = "layer"


# 练习 3：BatchNorm 的训练与推理
def batch_norm(x, running_mean, running_var, training, momentum=0.1, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    if not training:
        y = (x - running_mean) / np.sqrt(running_var + eps)
        return y, running_mean, running_var
    axes = tuple(range(x.ndim - 1))  # 除了特征（最后一维）以外的所有维
    n = x.size // x.shape[-1]  # 每个特征参与统计的个数
    mu = x.mean(axis=axes)
    var = ((x - mu) ** 2).mean(axis=axes)  # 有偏方差：归一化用
    y = (x - mu) / np.sqrt(var + eps)
    new_mean = (1 - momentum) * running_mean + momentum * mu
    new_var = (1 - momentum) * running_var + momentum * var * n / (n - 1)  # 无偏方差：更新用
    return y, new_mean, new_var


FUNCTIONS = {"08.batch_norm": batch_norm}
