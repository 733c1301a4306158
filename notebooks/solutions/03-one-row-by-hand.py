"""第 3 篇「手算一行」练习的参考答案。"""

import numpy as np

wo = np.array([8.0, 6.0, 4.0, 2.0])
chi = np.array([20.0, 40.0, 60.0, 80.0])
ANSWERS = {}

# 练习 1：(8 + 6 + 4 + 2) / 4
ANSWERS["03.mean_wo"] = wo.sum() / 4

# 练习 2：[-30, -10, 10, 30] 平方后除以 d = 4
ANSWERS["03.variance_chi"] = ((chi - chi.mean()) ** 2).sum() / 4

# 练习 3：(x − μ) / σ，σ = √5
ANSWERS["03.xhat_wo"] = np.round((wo - wo.mean()) / np.sqrt(((wo - wo.mean()) ** 2).mean()), 3)
