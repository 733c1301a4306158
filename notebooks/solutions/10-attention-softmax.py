"""第 10 篇「注意力与 softmax」练习的参考答案。"""

import numpy as np

ANSWERS = {}

# 正文 2（先算一算）：d = 64 个方差为 1 的独立乘积相加，方差相加
ANSWERS["10.var_qk"] = 64 * 1.0

# 练习 1：softmax([0, ln 3]) = [1, 3] / 4
e = np.exp([0.0, np.log(3.0)])
ANSWERS["10.softmax_two"] = e / e.sum()

# 练习 2：均匀分布的熵 = ln n
p = np.full(5, 1 / 5)
ANSWERS["10.uniform_entropy"] = float(-(p * np.log(p)).sum())

# 练习 3：|q̂·k̂| ≤ ‖q̂‖‖k̂‖ = d，除以 √d 得 √d
d = 49
ANSWERS["10.qk_bound"] = d / np.sqrt(d)

# 练习 4：d 个方差为 1 的独立乘积相加，方差 d，标准差 √d
ANSWERS["10.dot_std"] = np.sqrt(100)


# 练习 5：数值稳定的 softmax
def softmax(z):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=-1, keepdims=True))  # 先减最大值，exp 不会溢出
    return e / e.sum(axis=-1, keepdims=True)


# 练习 6：缩放点积注意力
def attention(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    return softmax(scores) @ v


FUNCTIONS = {"10.softmax": softmax, "10.attention": attention}
