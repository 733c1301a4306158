"""第 11 篇「变体：RMSNorm 等」练习的参考答案。"""

import numpy as np

ANSWERS = {}

# 正文 1（先算一算）：苹果 x / √(mean(x²))
x = np.array([2.0, 4.0, 6.0, 8.0])
ANSWERS["11.rms_apple"] = x / np.sqrt((x**2).mean())

# 练习 1：[1, 2, 2, 4] 的 RMS 是 √6.25 = 2.5
small = np.array([1.0, 2.0, 2.0, 4.0])
ANSWERS["11.rms_small"] = small / np.sqrt((small**2).mean())

# 练习 2：整体乘 2 两种都不变；整体加 10 只有 RMSNorm 会变（它不减均值；LLaMA 用的就是它）
ANSWERS["11.which_norm"] = "rmsnorm"


# 练习 3：RMSNorm（没有 β，ε 默认 1e-6）
def rms_norm(x, gamma, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    return x / np.sqrt((x**2).mean(axis=-1, keepdims=True) + eps) * gamma


FUNCTIONS = {"11.rms_norm": rms_norm}
