"""第 15 篇「有无归一化，真的训练一次」练习的参考答案。"""

import numpy as np

ANSWERS = {}

# 预测 1：无归一化、LeCun 初始化，线性层输出的方差每层约减半（ReLU 留下一半均方），8 层后标准差约 (1/√2)^7 ≈ 0.09 倍
ANSWERS["15.predict_depth"] = "b"

# 预测 2：权重放大到 He 的 4 倍、学习率 0.01：无归一化时 8 层把尺度乘上约 4⁸，学不会；三种归一化把尺度除掉了
ANSWERS["15.predict_scale"] = "a"

# 预测 3：一次 1 个样本、用自己的批统计量，x − μ = 0，所有输入得到同一个预测：三类里碰对一类
ANSWERS["15.predict_batch1"] = 1 / 3

# 预测 4：学习率 0.003、不用 warm-up 时，Pre-LN 先把损失降下来
ANSWERS["15.predict_post"] = "pre"

# 练习 1：第 t = 9 步是第 10 步：1e-3 × 10 / 50
ANSWERS["15.warmup_value"] = 1e-3 * (9 + 1) / 50


# 练习 2：线性 warm-up
def warmup_lr(step, lr, warmup_steps):
    if warmup_steps <= 0:
        return lr
    return lr * min(1.0, (step + 1) / warmup_steps)


# 练习 3：Adam 的一步
def adam_step(param, grad, m, v, t, lr):
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad**2
    m_hat = m / (1 - beta1**t)
    v_hat = v / (1 - beta2**t)
    return param - lr * m_hat / (np.sqrt(v_hat) + eps), m, v


FUNCTIONS = {"15.warmup_lr": warmup_lr, "15.adam_step": adam_step}
