"""第 9 篇「Add & Norm：Post-LN 与 Pre-LN」练习的参考答案。"""

import numpy as np

ANSWERS = {}

# 练习 1：DeepNorm 编码器 α = (2N)^(1/4)
ANSWERS["09.deepnorm_alpha"] = (2 * 6) ** 0.25

# 练习 2：Pre-LN 最后一层梯度 ∝ 1/√L
ANSWERS["09.pre_ratio"] = np.sqrt(6 / 24)

# 练习 3：先相加再归一化 = Post-LN
ANSWERS["09.which_form"] = "post"
