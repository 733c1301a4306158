"""第 3 篇「手算一行」练习的参考答案。"""

import numpy as np

wo = np.array([8.0, 6.0, 4.0, 2.0])
chi = np.array([20.0, 40.0, 60.0, 80.0])
apple = np.array([2.0, 4.0, 6.0, 8.0])
pear = np.array([3.0, 5.0, 6.0, 10.0])  # 练习里的「梨」
ANSWERS = {}

# 正文里的五步（苹果）：μ → x − μ → σ² → σ → x̂
ANSWERS["03.mean_apple"] = apple.sum() / 4
ANSWERS["03.centered_apple"] = apple - apple.sum() / 4
ANSWERS["03.variance_apple"] = ((apple - 5) ** 2).sum() / 4  # 除以 d，不是 d − 1
ANSWERS["03.std_apple"] = round(float(np.sqrt(5)), 3)
ANSWERS["03.xhat_apple"] = np.round((apple - 5) / np.sqrt(5), 3)

# 练习 1：(3 + 5 + 6 + 10) / 4
ANSWERS["03.mean_pear"] = pear.sum() / 4

# 练习 2：[-3, -1, 0, 4] 平方后除以 d = 4
ANSWERS["03.variance_pear"] = ((pear - pear.mean()) ** 2).sum() / 4

# 练习 3：(x − μ) / σ，σ = √6.5
ANSWERS["03.xhat_pear"] = np.round((pear - pear.mean()) / np.sqrt(((pear - pear.mean()) ** 2).mean()), 3)
