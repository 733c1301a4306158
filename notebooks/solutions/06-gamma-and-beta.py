"""第 6 篇「γ 与 β」练习的参考答案。"""

import numpy as np

ANSWERS = {}

apple = np.array([2.0, 4.0, 6.0, 8.0])
xhat = (apple - apple.mean()) / np.sqrt(((apple - apple.mean()) ** 2).mean())

# 练习 1：逐维 γᵢ·x̂ᵢ + βᵢ
gamma = np.array([0.5, 1.0, 1.0, 2.0])
beta = np.array([-1.0, 0.0, 0.0, 1.0])
ANSWERS["06.y_apple"] = gamma * xhat + beta

# 练习 2：γ = 1 时 y = x̂ + β，x̂ 的均值为 0，所以 y 的均值是 β 的均值
ANSWERS["06.mean_after"] = (xhat + np.array([0.5, 0.0, 0.0, 0.5])).mean()

# 练习 3：γ 和 β 各 d 个数
d = 512
ANSWERS["06.param_count"] = 2 * d

# 正文 1：y₁ = γ₁ · x̂₁ + β₁，γ₁ = 2、β₁ = 0.5
ANSWERS["06.y_first"] = round(2 * -1.342 + 0.5, 3)

# 正文 4：γ = [2, 1, 1, 1]、β = [0.5, 0, 0, 0] 时 苹果 的 y 的均值
y = np.array([2.0, 1.0, 1.0, 1.0]) * xhat + np.array([0.5, 0.0, 0.0, 0.0])
ANSWERS["06.mean_y_apple"] = round(float(y.mean()), 3)
