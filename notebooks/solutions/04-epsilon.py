"""第 4 篇「ε 的作用」练习的参考答案。"""

import numpy as np

ANSWERS = {}

# 练习 1：常数行减去均值后全是 0；分母 √(0 + ε) > 0，所以每一维都是 0
row = np.array([7.0, 7.0, 7.0, 7.0])
ANSWERS["04.constant_row"] = (row - row.mean()) / np.sqrt(((row - row.mean()) ** 2).mean() + 1e-5)

# 练习 2：x̂ 的方差 = σ² / (σ² + ε)，苹果 σ² = 5，ε = 1
apple = np.array([2.0, 4.0, 6.0, 8.0])
var = ((apple - apple.mean()) ** 2).mean()
ANSWERS["04.var_ratio"] = var / (var + 1.0)

# 练习 3：÷ (d − 1) 的标准差
chi = np.array([20.0, 40.0, 60.0, 80.0])
ANSWERS["04.unbiased_std"] = np.sqrt(((chi - chi.mean()) ** 2).sum() / (chi.size - 1))
