"""第 10 篇「注意力与 softmax」练习的参考答案。"""

import numpy as np

ANSWERS = {}

# 练习 1：softmax([0, ln 3]) = [1, 3] / 4
e = np.exp([0.0, np.log(3.0)])
ANSWERS["10.softmax_two"] = e / e.sum()

# 练习 2：均匀分布的熵 = ln n
p = np.full(3, 1 / 3)
ANSWERS["10.uniform_entropy"] = float(-(p * np.log(p)).sum())

# 练习 3：|q̂·k̂| ≤ ‖q̂‖‖k̂‖ = d，除以 √d 得 √d
d = 16
ANSWERS["10.qk_bound"] = d / np.sqrt(d)
