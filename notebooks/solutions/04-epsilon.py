"""第 4 篇「ε 的作用」练习的参考答案。"""

import numpy as np

ANSWERS = {}
apple = np.array([2.0, 4.0, 6.0, 8.0])

# 正文 1：常数行 σ² = 0，分母是 √(0 + ε)
ANSWERS["04.eps_denominator"] = round(float(np.sqrt(0 + 1e-5)), 5)

# 正文 2：x̂ 的方差 = σ² / (σ² + ε)，苹果 σ² = 5，ε = 1
var = ((apple - apple.mean()) ** 2).mean()
ANSWERS["04.var_ratio"] = round(var / (var + 1.0), 3)

# 正文 4：s = 0.001 时 x₁ − μ = −0.003，σ² = 5 × 10⁻⁶，ε 在根号里
row = 5 + 0.001 * np.array([-3.0, -1.0, 1.0, 3.0])
centered = row - row.mean()
ANSWERS["04.eps_inside_small"] = round(float(centered[0] / np.sqrt((centered**2).mean() + 1e-5)), 3)

# 练习 1：常数行 [7, 7, 7, 7] 的 σ² = 0，ε = 10⁻⁴ 时分母是 √(0 + ε)
row = np.array([7.0, 7.0, 7.0, 7.0])
ANSWERS["04.constant_row"] = float(np.sqrt(((row - row.mean()) ** 2).mean() + 1e-4))

# 练习 2：÷ (d − 1) 的标准差，保留两位小数
chi = np.array([20.0, 40.0, 60.0, 80.0])
ANSWERS["04.unbiased_std"] = round(float(np.sqrt(((chi - chi.mean()) ** 2).sum() / (chi.size - 1))), 2)
