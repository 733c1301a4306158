"""第 9 篇「Add & Norm：Post-LN 与 Pre-LN」练习的参考答案。"""

import numpy as np

ANSWERS = {}

# 正文 5（先算一算）：DeepNorm 编码器 α = (2N)^(1/4)，N = 6
ANSWERS["09.predict_alpha"] = (2 * 6) ** 0.25

# 练习 1：DeepNorm 编码器 α = (2N)^(1/4)，N = 18
ANSWERS["09.deepnorm_alpha"] = (2 * 18) ** 0.25

# 练习 2：DeepNorm 编码器 β = (8N)^(−1/4)，N = 18
ANSWERS["09.deepnorm_beta"] = (8 * 18) ** -0.25

# 练习 3：按 1/√L 的形状，6 层 → 54 层
ANSWERS["09.pre_ratio"] = np.sqrt(6 / 54)

# 练习 4：两行都是 layer_norm(残差 + 子层输出)：先相加再归一化 = Post-LN
ANSWERS["09.which_form"] = "post"


# 练习 5：Pre-LN 子层 x + F(LN(x))
def pre_ln_block(x, sublayer, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    normed = gamma * (x - mu) / np.sqrt(var + eps) + beta
    return x + sublayer(normed)


FUNCTIONS = {"09.pre_ln_block": pre_ln_block}
