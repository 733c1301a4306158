"""第 7 篇「完整公式」练习的参考答案。"""

import numpy as np

ANSWERS = {}
FUNCTIONS = {}

# 正文 2：按最后一维统计，统计量去掉最后一维
x = np.zeros((2, 3, 4))
ANSWERS["07.shape_mu"] = list(x.mean(axis=-1).shape)

# 正文 4：axis=(-2, -1) 时每句话（12 个数）一个 μ
ANSWERS["07.count_multi"] = x.mean(axis=(-2, -1)).size

# 练习 1：ConvNeXt 的 LayerNorm 对每个像素位置的 C 个通道统计：H × W 个 μ
feature_map = np.zeros((64, 7, 7))
ANSWERS["07.image_mu_count"] = feature_map.mean(axis=0).size

# 练习 2：bias=False 只剩 γ，它的形状就是 normalized_shape (4, 256)
gamma_shape = (4, 256)
ANSWERS["07.param_no_bias"] = int(np.prod(gamma_shape))  # γ 有 4 × 256 个数，β 没有了


# 练习 3：几行 numpy 写出 LayerNorm
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=float)
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    x_hat = (x - mu) / np.sqrt(var + eps)
    return gamma * x_hat + beta


FUNCTIONS["07.layer_norm"] = layer_norm
