"""第 12 篇「反向传播」练习的参考答案。"""

import numpy as np

x = np.array([2.0, 4.0, 6.0, 8.0])  # 苹果
ANSWERS = {}

# 第 1 节（先算一算）：dβ = Σ dy，三个 token 按列相加
dY_demo = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0]])
ANSWERS["12.dbeta_demo"] = dY_demo.sum(axis=0)

# 第 1 节（先算一算）：dγ = Σ dy ⊙ x̂，x̂ 按行（每个 token）算
X = np.array([[8.0, 6.0, 4.0, 2.0], [20.0, 40.0, 60.0, 80.0], [2.0, 4.0, 6.0, 8.0]])
X_hat = (X - X.mean(axis=1, keepdims=True)) / X.std(axis=1, keepdims=True)
ANSWERS["12.dgamma_demo"] = (dY_demo * X_hat).sum(axis=0)

# 第 2 节（先算一算）：dx = r·(g − mean(g) − x̂·mean(g ⊙ x̂))，g = [1, 0, 0, 0]，取第 1 个数
x_hat = (x - x.mean()) / x.std()
g1 = np.array([1.0, 0.0, 0.0, 0.0])
ANSWERS["12.dx_first"] = float(((g1 - g1.mean() - x_hat * (g1 * x_hat).mean()) / x.std())[0])

# 练习 1：同一个公式，g = [1, 0, 0, 1]，ε = 0；mean(g ⊙ x̂) = 0，所以只剩 r·(g − 0.5)
g = np.array([1.0, 0.0, 0.0, 1.0])
ANSWERS["12.dx_last"] = (g - g.mean() - x_hat * (g * x_hat).mean()) / x.std()

# 练习 2：dβ = Σ dy，对所有 token 求和
dY = np.array([[1.0, 2.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0], [3.0, 0.0, 0.0, 1.0]])
ANSWERS["12.dbeta"] = dY.sum(axis=0)

# 练习 3：g − mean(g) 的和是 0，x̂ 的和也是 0，所以一行 dx 的和是 0：第 4 个是前三个之和的相反数
assert abs(np.sum(g - g.mean() - x_hat * (g * x_hat).mean())) < 1e-12
ANSWERS["12.sum_dx"] = -(0.3 - 0.5 + 0.4)

# 练习 4：x 乘以 c = 8，dx 变为 1/c；dx 对 dy 是线性的，dy 乘 3，dx 也乘 3
ANSWERS["12.scale"] = 3 / 8


# 练习 5：向量化的反向传播，任意前导维
def layer_norm_backward(dy, x, gamma, eps=1e-5):
    dy, x = np.asarray(dy, dtype=np.float64), np.asarray(x, dtype=np.float64)
    mu = x.mean(axis=-1, keepdims=True)
    r = 1 / np.sqrt(((x - mu) ** 2).mean(axis=-1, keepdims=True) + eps)
    x_hat = (x - mu) * r
    g = dy * gamma
    dx = r * (g - g.mean(axis=-1, keepdims=True) - x_hat * (g * x_hat).mean(axis=-1, keepdims=True))
    lead = tuple(range(x.ndim - 1))  # 对最后一维以外的所有维求和
    return dx, (dy * x_hat).sum(axis=lead), dy.sum(axis=lead)


FUNCTIONS = {"12.layer_norm_backward": layer_norm_backward}
