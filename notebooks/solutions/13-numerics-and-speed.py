"""第 13 篇「数值稳定与速度」练习的参考答案。"""

import numpy as np

from lnlib import numerics

ANSWERS = {}

# 正文 1（先猜一猜）：float32 里的一遍法 E[x²] − E[x]²，x = 10⁴ + [0, 1, 2, 3]
ANSWERS["13.one_pass_f32"] = float(numerics.one_pass_variance((1e4 + np.arange(4.0)).astype(np.float32), np.float32))

# 练习 1：float32 在 1e6 附近的间距
ANSWERS["13.spacing"] = float(np.spacing(np.float32(1e6)))

# 练习 2：平移不改变方差，用两遍法（float64）算
ANSWERS["13.var_true"] = float(numerics.two_pass_variance(1e5 + np.array([0.0, 2.0, 4.0, 6.0]), np.float64))

# 练习 3：最小的、平方超过 float16 最大值 65504 的正整数
limit = float(np.finfo(np.float16).max)
ANSWERS["13.float16_overflow"] = next(v for v in range(1, 1000) if v * v > limit)

# 练习 4：依次用 Welford 更新
state = numerics.WelfordState(0, 0.0, 0.0)
for v in (10.0, 20.0, 30.0):
    state = numerics.welford_update(state, v)
ANSWERS["13.welford_m2"] = state.m2


# 练习 5：两段 Welford 摘要的并行合并（Chan、Golub 和 LeVeque）
def welford_merge(a, b):
    (na, ma, m2a), (nb, mb, m2b) = a, b
    n = na + nb
    if n == 0:
        return 0, 0.0, 0.0
    delta = mb - ma
    return n, ma + delta * nb / n, m2a + m2b + delta**2 * na * nb / n


FUNCTIONS = {"13.welford_merge": welford_merge}
