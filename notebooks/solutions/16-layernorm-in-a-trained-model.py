"""第 16 篇「训练好的小模型里的 LayerNorm」练习的参考答案。"""

import numpy as np

ANSWERS = {}

# 预测 1：进入第 1 层的行来自从 N(0, 0.02²) 开始训练的词向量和位置向量，σ 只有零点几
ANSWERS["16.predict_sigma"] = "c"

# 正文：「果」进入第 1 层第一个 LayerNorm 的行，前 3 维 x̂ = (x − μ) / σ，用笔记本给出的 3 位有效数字
x, mu, sigma = np.array([-0.0480, 0.0884, -0.0246]), 0.00188, 0.0844
ANSWERS["16.xhat_guo"] = (x - mu) / sigma

# 预测 2：μ 几乎是 0，所以 RMSNorm（不减 μ）几乎不改变损失
ANSWERS["16.predict_ablation"] = "b"

# 预测 3：只去掉最终 LayerNorm：损失明显变大，准确率几乎不变
ANSWERS["16.predict_final"] = "b"

# 练习 1：σ = 0.1，ε = 0.01：x̂ 变成 σ / √(σ² + ε) 倍
ANSWERS["16.eps_shrink"] = 0.1 / np.sqrt(0.1**2 + 0.01)


# 练习 2：每一维占方差的份额
def variance_shares(rows):
    rows = np.asarray(rows, dtype=float)
    centred = rows - rows.mean(axis=1, keepdims=True)
    total = (centred**2).sum(axis=0)
    return total / total.sum()


FUNCTIONS = {"16.variance_shares": variance_shares}
