"""第 11 篇「变体：RMSNorm 等」练习的参考答案。"""

import numpy as np

ANSWERS = {}

# 练习 1：x / √(mean(x²))
x = np.array([2.0, 4.0, 6.0, 8.0])
ANSWERS["11.rms_apple"] = np.round(x / np.sqrt((x**2).mean()), 3)

# 练习 2：DeepNorm β = (8N)^(−1/4)
ANSWERS["11.deepnorm_beta"] = (8 * 12) ** -0.25

# 练习 3：LLaMA = pre-normalization + RMSNorm
ANSWERS["11.llama_norm"] = "rmsnorm"
