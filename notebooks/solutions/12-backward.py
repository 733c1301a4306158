"""第 12 篇「反向传播」练习的参考答案。"""

import numpy as np

x = np.array([2.0, 4.0, 6.0, 8.0])  # 苹果
ANSWERS = {}

# 练习 1：dx = r·(g − mean(g) − x̂·mean(g ⊙ x̂))，g = dy（γ = 1），ε = 0
x_hat = (x - x.mean()) / x.std()
g = np.array([0.0, 0.0, 0.0, 1.0])
ANSWERS["12.dx_last"] = np.round((g - g.mean() - x_hat * (g * x_hat).mean()) / x.std(), 3)

# 练习 2：dβ = Σ dy，对所有 token 求和
dY = np.array([[1.0, 2.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0], [3.0, 0.0, 0.0, 1.0]])
ANSWERS["12.dbeta"] = dY.sum(axis=0)

# 练习 3：g − mean(g) 的和是 0，x̂ 的和也是 0，所以 Σdx = 0
ANSWERS["12.sum_dx"] = float(np.sum(g - g.mean() - x_hat * (g * x_hat).mean()))

# 练习 4：x 乘以 c = 4，dx 变为 1/c
ANSWERS["12.scale"] = 1 / 4
