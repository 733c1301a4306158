"""The code exercises of the course (`CODE_EXERCISES`) and `check_function(name, fn)`, the ✓/✗ of a code cell.

Each exercise is a `code_grading.CodeExercise` (how it is judged lives there): its signature, a reference built from
lnlib, its random and edge inputs (`Case`s from a fixed seed), the misconceptions as wrong functions (`WrongWay`),
a nudge, its near-miss text and the full solution (shown only by `lnlib.hint`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import _record, transformer
from .code_grading import ANY, TIME_LIMIT, Case, CodeExercise, FunctionVerdict, WrongWay, given, judge_code
from .data import TOKEN_MATRIX
from .grad import layer_norm_backward
from .grading import show_number
from .norms import BatchNorm, layer_norm, rms_norm
from .optim import adam_step, warmup_lr
from .stages import mean, variance, variance_shares

__all__ = [
    "CODE_EXERCISES",
    "TIME_LIMIT",
    "Case",
    "CodeExercise",
    "FunctionVerdict",
    "WrongWay",
    "check_function",
    "judge_function",
]

# ---------------------------------------------------------------- inputs


def _rng() -> np.random.Generator:
    return np.random.default_rng(2016)  # fixed: the same cases in every run


def _row_cases(extra: tuple = (), *, offset: float = 1e8) -> list[Case]:
    """The standard inputs of a row-wise normalization: extra args (γ, β …) are built to match d."""
    rng = _rng()
    d = 8

    def params(dim: int) -> tuple:
        return tuple(p(dim, rng) for p in extra)

    row = rng.normal(size=d)
    batch = rng.normal(size=(2, 3, d))
    f32 = rng.normal(size=(3, d)).astype(np.float32)
    return [
        Case("课程里的 3 × 4 token 矩阵", (TOKEN_MATRIX.copy(), *params(4))),
        Case("常数行 [3, 3, 3, 3]（σ² = 0，要靠 ε）", (np.full(4, 3.0), *params(4))),
        Case(
            "σ 很小的一行 5 + 0.001 × [−3, −1, 1, 3]（σ² 比 ε 还小）",
            (5 + 0.001 * np.array([-3.0, -1, 1, 3]), *params(4)),
        ),
        Case("一行随机数", (row, *params(d))),
        Case(f"整体加了很大偏移（+{show_number(offset)}）的一行", (row[:4] + offset, *params(4)), 1e-5, 1e-5),
        Case("(B, T, d) = (2, 3, 8) 的批量：每个 token 各算各的", (batch, *params(d))),
        Case("float32 输入", (f32, *params(d)), 1e-4, 1e-4),
    ]


def _gamma(dim: int, rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(0.5, 2.0, size=dim)


def _beta(dim: int, rng: np.random.Generator) -> np.ndarray:
    return rng.normal(size=dim)


def _layer_norm_cases() -> list[Case]:
    return _row_cases((_gamma, _beta))


def _rms_norm_cases() -> list[Case]:
    rng = _rng()
    return [
        *(c for c in _row_cases((_gamma,)) if not c.label.startswith("σ 很小")),
        Case("全零行 [0, 0, 0, 0]（要靠 ε）", (np.zeros(4), np.ones(4))),
        Case(
            "很小的一行 0.001 × [1, −2, 1, 2]（均方比 ε 大不了多少）",
            (0.001 * np.array([1.0, -2, 1, 2]), _gamma(4, rng)),
        ),
    ]


def _backward_cases() -> list[Case]:
    rng = _rng()
    out = []
    for case in _row_cases((_gamma,)):
        x, gamma = case.args
        dy = rng.normal(size=np.shape(x))
        out.append(Case(case.label, (dy, x, gamma), case.rtol * 10, case.atol * 10))
    return out


def _batch_norm_cases() -> list[Case]:
    rng = _rng()
    x = rng.normal(2.0, 3.0, size=(5, 3))
    rm, rv = rng.normal(size=3), rng.uniform(0.5, 2.0, size=3)
    const = x.copy()
    const[:, 1] = 7.0
    small = x.copy()
    small[:, 2] = 5 + 0.001 * np.array([-2.0, -1, 0, 1, 2])
    return [
        Case("训练模式：一批 5 × 3 的随机数", (x, rm, rv, True)),
        Case("评估模式：用 running 统计量，不更新它们", (x, rm, rv, False)),
        Case("训练模式：第 2 列是常数（σ² = 0）", (const, rm, rv, True)),
        Case("训练模式：第 3 列的 σ 很小（5 + 0.001 × [−2, −1, 0, 1, 2]，σ² 比 ε 还小）", (small, rm, rv, True)),
        Case("训练模式：整体加了很大偏移（+10⁸）", (x + 1e8, rm, rv, True), 1e-5, 1e-5),
        Case("训练模式：(N, T, C) = (2, 4, 3)，按 N 和 T 一起统计", (rng.normal(size=(2, 4, 3)), rm, rv, True)),
        Case("训练模式：float32 输入", (x.astype(np.float32), rm, rv, True), 1e-4, 1e-4),
    ]


@given("课程给定的子层函数 F")
def _block_sublayer(x: np.ndarray) -> np.ndarray:
    """The fixed sublayer F of the Pre-LN exercise: tanh of a fixed linear map (the same in every run)."""
    d = x.shape[-1]
    w = np.cos(np.arange(d * d, dtype=np.float64).reshape(d, d))
    return np.tanh(x @ w / np.sqrt(d))


def _pre_ln_cases() -> list[Case]:
    return [Case(c.label, (c.args[0], _block_sublayer, *c.args[1:]), c.rtol, c.atol) for c in _layer_norm_cases()]


def _softmax_cases() -> list[Case]:
    rng = _rng()
    return [
        Case("[0, ln 3]", (np.array([0.0, np.log(3.0)]),)),
        Case("一行随机数", (rng.normal(size=6),)),
        Case("很大的分数 [1000, 1001, 1002]（直接 exp 会溢出）", (np.array([1000.0, 1001.0, 1002.0]),)),
        Case("很小的分数 [−1000, −1001, −1002]（直接 exp 会全变成 0）", (np.array([-1000.0, -1001.0, -1002.0]),)),
        Case("一样大的分数 [5, 5, 5, 5]", (np.full(4, 5.0),)),
        Case(
            "两行相差很远 [[1000, 1001, 1002], [−1000, −1001, −1002]]（每一行减自己的最大值）",
            (np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1001.0, -1002.0]]),),
        ),
        Case("(B, T, T) = (2, 3, 3) 的批量：每一行各自归一", (rng.normal(size=(2, 3, 3)) * 5,)),
        Case("float32 输入", (rng.normal(size=(3, 5)).astype(np.float32),), 1e-5, 1e-6),
    ]


def _attention_cases() -> list[Case]:
    rng = _rng()
    t, d = 3, 4
    q, k, v = (rng.normal(size=(t, d)) for _ in range(3))
    return [
        Case("课程里的 3 × 4 token 矩阵（Q = K = V）", (TOKEN_MATRIX.copy(),) * 3),
        Case("随机的 Q、K、V，T = 3、d = 4", (q, k, v)),
        Case("Q、K 乘了 100（分数很大，softmax 要减最大值）", (q * 100, k * 100, v)),
        Case(
            "K、V 有 5 个位置，Q 只有 2 个", (rng.normal(size=(2, d)), rng.normal(size=(5, d)), rng.normal(size=(5, 2)))
        ),
        Case("(B, T, d) = (2, 3, 4) 的批量", tuple(rng.normal(size=(2, t, d)) for _ in range(3))),
        Case("float32 输入", tuple(rng.normal(size=(t, d)).astype(np.float32) for _ in range(3)), 1e-4, 1e-5),
    ]


def _merge_cases() -> list[Case]:
    rng = _rng()

    def summary(values) -> tuple[int, float, float]:
        v = np.asarray(values, dtype=np.float64)
        if v.size == 0:
            return (0, 0.0, 0.0)
        return (v.size, float(mean(v)), float(variance(v) * v.size))

    a, b = rng.normal(size=5), rng.normal(3.0, 2.0, size=8)
    return [
        Case("[1, 2, 3] 和 [4, 5]", (summary([1, 2, 3]), summary([4, 5]))),
        Case("两段随机数（5 个和 8 个）", (summary(a), summary(b))),
        Case("左边是空的（n = 0）", (summary([]), summary(b))),
        Case("右边是空的（n = 0）", (summary(a), summary([]))),
        Case("各只有一个数", (summary([2.0]), summary([6.0]))),
        Case("两边都是空的（n = 0）", (summary([]), summary([]))),
        Case("整体加了很大偏移（+10⁸）", (summary(a + 1e8), summary(b + 1e8)), 1e-9, 1e-6),
    ]


# ---------------------------------------------------------------- references (lnlib)


def _warmup_cases() -> list[Case]:
    steps = [(0, 1e-3, 50), (9, 1e-3, 50), (49, 1e-3, 50), (120, 1e-3, 50), (5, 0.1, 0), (3, 2.0, 4)]
    labels = ["第一步（step = 0）", "warm-up 中途", "warm-up 最后一步", "warm-up 之后", "不 warm-up（0 步）"]
    labels.append("很短的 warm-up")
    return [Case(label, args, rtol=1e-9, atol=1e-15) for label, args in zip(labels, steps, strict=True)]


def _shares_cases() -> list[Case]:
    rng = _rng()
    offsets = rng.normal(0, 1e3, (12, 1))  # each row its own large μ: only a per-row μ removes it
    outlier = 0.1 * rng.normal(size=(30, 8))
    outlier[:, 5] += rng.choice([-2.0, 2.0], 30)
    return [
        Case("随机的 20 行 × 8 维", (rng.normal(size=(20, 8)),), rtol=1e-9, atol=1e-12),
        Case("每一行有自己的大偏移", (offsets + rng.normal(size=(12, 6)),), rtol=1e-6, atol=1e-9),
        Case("第 5 维是离群维度", (outlier,), rtol=1e-9, atol=1e-12),
        Case("只有 1 行", (rng.normal(size=(1, 4)),), rtol=1e-9, atol=1e-12),
    ]


def _shares_way(rows, *, way=""):
    rows = _f(rows)
    if way == "columns":
        centred = rows - rows.mean(axis=0, keepdims=True)
    elif way == "global":
        centred = rows - rows.mean()
    elif way == "none":
        centred = rows
    else:
        centred = rows - rows.mean(axis=-1, keepdims=True)
    total = (centred**2).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):  # column-centred single row: 0 / 0
        return total if way == "unnormalized" else total / total.sum()


def _adam_cases() -> list[Case]:
    rng = _rng()
    first = (np.zeros(3), np.array([0.5, -2.0, 1e-3]), np.zeros(3), np.zeros(3), 1, 0.1)
    cases = [Case("第 1 步（m、v 从 0 开始）", first)]
    for t in (2, 10):
        p, g = rng.normal(size=4), rng.normal(size=4)
        cases.append(Case(f"第 {t} 步", (p, g, 0.1 * rng.normal(size=4), 0.01 * rng.random(4), t, 1e-3)))
    return cases


def _ref_layer_norm(x, gamma, beta, eps=1e-5):
    return layer_norm(x, gamma, beta, eps=eps)


def _ref_rms_norm(x, gamma, eps=1e-6):
    return rms_norm(x, gamma, eps=eps)


def _ref_batch_norm(x, running_mean, running_var, training, momentum=0.1, eps=1e-5):
    bn = BatchNorm(np.shape(x)[-1], eps=eps, momentum=momentum)
    bn.running_mean, bn.running_var = np.array(running_mean, dtype=np.float64), np.array(running_var, dtype=float)
    bn.training = bool(training)
    y = bn(x)
    return y, bn.running_mean, bn.running_var


def _ref_backward(dy, x, gamma, eps=1e-5):
    return layer_norm_backward(dy, x, gamma, eps=eps)


def _ref_pre_ln(x, sublayer, gamma, beta, eps=1e-5):
    return np.asarray(x, dtype=np.float64) + sublayer(layer_norm(x, gamma, beta, eps=eps))


def _ref_softmax(z):
    return transformer.softmax(z)


def _ref_attention(q, k, v):
    return transformer.attention(q, k, v)[0]


def _ref_merge(a, b):
    (na, ma, m2a), (nb, mb, m2b) = a, b
    n = na + nb
    if n == 0:
        return (0, 0.0, 0.0)
    delta = mb - ma
    return (n, ma + delta * nb / n, m2a + m2b + delta * delta * na * nb / n)


# ---------------------------------------------------------------- the misconceptions, as code


def _f(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _ln_way(
    x, gamma, beta, eps=1e-5, *, axis=-1, ddof=0, center=True, root=True, eps_in=True, rms=False, one_pass=False
):
    """LayerNorm with one thing done wrong: the statistics' axis, ddof, no centering, no root, ε outside the root,
    the one-pass variance E[x²] − E[x]²."""
    x = _f(x)
    mu = x.mean(axis=axis, keepdims=True)
    n = x.size if axis is None else x.shape[axis]
    dev = x - mu
    var = (x * x if rms else dev * dev).sum(axis=axis, keepdims=True) / (n - ddof)
    if one_pass:
        var = (x * x).mean(axis=axis, keepdims=True) - mu * mu
    if eps_in is None:  # no ε at all
        scale = np.sqrt(var)
    elif root:
        scale = np.sqrt(var + eps) if eps_in else np.sqrt(var) + eps
    else:
        scale = var + eps
    return gamma * ((dev if center else x) / scale) + beta


def _rms_way(x, gamma, eps=1e-6, *, ddof=0, center=False, eps_in=True, root=True):
    x = _f(x)
    if center:
        x = x - x.mean(axis=-1, keepdims=True)
    ms = (x * x).sum(axis=-1, keepdims=True) / (x.shape[-1] - ddof)
    if eps_in is None:
        scale = np.sqrt(ms)
    elif not root:
        scale = ms + eps
    else:
        scale = np.sqrt(ms + eps) if eps_in else np.sqrt(ms) + eps
    return x / scale * gamma


def _softmax_way(z, *, axis=-1, stable=True):
    z = _f(z)
    if stable == "global":  # one maximum for the whole array
        e = np.exp(z - z.max())
        return e / e.sum(axis=axis, keepdims=True)
    e = np.exp(z - z.max(axis=axis, keepdims=True) if stable else z)
    return e / e.sum(axis=axis, keepdims=True)


def _attention_way(q, k, v, *, scale="sqrt", axis=-1, stable=True):
    q, k, v = _f(q), _f(k), _f(v)
    d = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2)
    scores = scores / {"sqrt": np.sqrt(d), "d": d, "none": 1.0}[scale]
    return _softmax_way(scores, axis=axis, stable=stable) @ v


def _pre_ln_way(x, sublayer, gamma, beta, eps=1e-5, *, form="pre"):
    x = _f(x)
    ln = layer_norm(x, gamma, beta, eps=eps)
    return {
        "post": lambda: layer_norm(x + sublayer(x), gamma, beta, eps=eps),
        "no_residual": lambda: sublayer(ln),
        "normalized_residual": lambda: ln + sublayer(ln),
        "no_norm": lambda: x + sublayer(x),
    }[form]()


def _bn_way(x, running_mean, running_var, training, momentum=0.1, eps=1e-5, *, way=""):
    x = _f(x)
    rm, rv = _f(running_mean), _f(running_var)
    axes = tuple(range(x.ndim - 1))
    n = int(np.prod([x.shape[a] for a in axes]))
    mu, var = x.mean(axis=axes), x.var(axis=axes)
    if way == "layer_axis":  # only its training output is characteristic
        return (_ln_way(x, 1.0, 0.0, eps), ANY, ANY) if training else (ANY, ANY, ANY)
    unbiased = var * n / (n - 1)
    if not training:
        if way == "eval_batch":
            return (x - mu) / np.sqrt(var + eps), rm, rv
        if way == "eval_update":
            return (
                (x - rm) / np.sqrt(rv + eps),
                (1 - momentum) * rm + momentum * mu,
                (1 - momentum) * rv + momentum * unbiased,
            )
        return (x - rm) / np.sqrt(rv + eps), rm, rv
    if way == "unbiased_norm":
        y = (x - mu) / np.sqrt(unbiased + eps)
    elif way == "eps_out":
        y = (x - mu) / (np.sqrt(var) + eps)
    else:
        y = (x - mu) / np.sqrt(var + eps)
    batch_var = var if way == "biased" else var * n / (n - 1)
    if way == "flipped":
        return y, momentum * rm + (1 - momentum) * mu, momentum * rv + (1 - momentum) * batch_var
    return y, (1 - momentum) * rm + momentum * mu, (1 - momentum) * rv + momentum * batch_var


def _backward_way(
    dy, x, gamma, eps=1e-5, *, mean_term=True, xhat_term=True, use_gamma=True, swap=False, averaged=False
):
    dy, x = _f(dy), _f(x)
    mu = x.mean(axis=-1, keepdims=True)
    r = 1 / np.sqrt(((x - mu) ** 2).mean(axis=-1, keepdims=True) + eps)
    x_hat = (x - mu) * r
    g = dy * gamma if use_gamma else dy
    inside = g.copy()
    if mean_term:
        inside = inside - g.mean(axis=-1, keepdims=True)
    if xhat_term:
        inside = inside - x_hat * (g * x_hat).mean(axis=-1, keepdims=True)
    axes = tuple(range(x.ndim - 1))
    dgamma, dbeta = (dy * x_hat).sum(axis=axes), dy.sum(axis=axes)
    if averaged:  # averaged over the tokens instead of summed
        tokens = int(np.prod([x.shape[a] for a in axes]))
        dgamma, dbeta = dgamma / tokens, dbeta / tokens
    return (inside * r, dbeta, dgamma) if swap else (inside * r, dgamma, dbeta)


def _merge_way(a, b, *, way=""):
    (na, ma, m2a), (nb, mb, m2b) = a, b
    n = na + nb
    if way == "unweighted":
        return n, (ma + mb) / 2, ANY
    if n == 0 and way != "no_empty":
        return 0, 0.0, 0.0
    delta = mb - ma
    mean = ma + delta * nb / n  # raises ZeroDivisionError for n = 0 (plain Python numbers)
    cross = 0.0 if way == "no_cross" else delta * delta * na * nb / n
    return n, mean, m2a + m2b + cross


def _warmup_way(step, lr, warmup_steps, *, way=""):
    if way == "no_zero":
        return lr * min(1.0, (step + 1) / warmup_steps)
    if warmup_steps == 0:
        return lr
    if way == "t_over_w":
        return lr * min(1.0, step / warmup_steps)
    return lr * (step + 1) / warmup_steps  # "endless": never stops growing


def _adam_way(param, grad, m, v, t, lr, *, way=""):
    b1, b2 = (0.999, 0.9) if way == "swapped" else (0.9, 0.999)
    param, grad = _f(param), _f(grad)
    m = b1 * _f(m) + (1 - b1) * grad
    v = b2 * _f(v) + (1 - b2) * grad**2
    if way == "no_correction":
        return param - lr * m / (np.sqrt(v) + 1e-8), m, v
    m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)
    return param - lr * m_hat / (np.sqrt(v_hat) + 1e-8), m, v


def _ways(fn: Callable, table: list[tuple[str, dict]]) -> tuple[WrongWay, ...]:
    return tuple(
        WrongWay(why, lambda *a, _kw=kw: fn(*a, **_kw))
        for why, kws in table
        for kw in ([kws] if isinstance(kws, dict) else kws)
    )


_EPS_OUT = (
    "把 ε 放在了根号外面（σ + ε，或者 √σ² + ε）：ε 要先加在方差上，再开根号，分母是 √(σ² + ε)。σ 很小时差别很大。"
)
_NO_EPS = "忘了 ε：常数行的 σ = 0，除以 0 就成了 nan。分母是 √(σ² + ε)。"
_DDOF = "方差除以了 d − 1（无偏方差，ddof=1）：LayerNorm 的方差除以 d（numpy 的 var 默认就是）。"
_NO_ROOT = "忘了开根号：分母是 √(σ² + ε)，不是 σ² + ε。"
_COLUMNS = "沿错了轴（axis=0，按列，BatchNorm 的方向）：LayerNorm 沿最后一维统计，每个 token 一组（axis=-1）。"
_WHOLE = "把整个数组放在一起统计了（没写 axis）：LayerNorm 每个 token（最后一维）各算各的。"
_NO_CENTER = "没有减均值：分子应该是 x − μ（减均值的是 LayerNorm，不减的是 RMSNorm）。"
_SWAPPED_GB = "γ 和 β 用反了：γ 乘在 x̂ 上，β 再加上去：γ · x̂ + β。"
_ONE_PASS = (
    "方差用了一遍法 E[x²] − E[x]²：数值很大（整体偏移 10⁸）时，两个差不多大的数相减，有效数字全抵消了"
    "（第 13 篇）。先求 μ，再求 (x − μ)² 的平均。"
)

_LN_WAYS = _ways(
    _ln_way,
    [
        (_EPS_OUT, {"eps_in": False}),
        (_NO_EPS, {"eps_in": None}),
        (_DDOF, {"ddof": 1}),
        (_NO_ROOT, {"root": False}),
        (_COLUMNS, [{"axis": 0}, {"axis": -2}]),
        (_WHOLE, {"axis": None}),
        (_NO_CENTER, [{"center": False}, {"center": False, "rms": True}]),
        (_ONE_PASS, {"one_pass": True}),
    ],
) + (WrongWay(_SWAPPED_GB, lambda x, gamma, beta, eps=1e-5: _ln_way(x, beta, gamma, eps)),)

_RMS_WAYS = _ways(
    _rms_way,
    [
        ("减了均值：那是 LayerNorm。RMSNorm 不减均值，直接除以均方根 √(mean(x²) + ε)。", {"center": True}),
        ("把 ε 放在了根号外面（√mean(x²) + ε）：ε 要加在均方上再开根号，√(mean(x²) + ε)。", {"eps_in": False}),
        ("忘了 ε：全零行的均方是 0，除以 0 就成了 nan。", {"eps_in": None}),
        ("平方和除以了 d − 1：均方根里是平方的平均，除以 d。", {"ddof": 1}),
        ("忘了开根号：除以的是均方根 √(mean(x²) + ε)，不是均方。", {"root": False}),
    ],
)

_SOFTMAX_WAYS = _ways(
    _softmax_way,
    [
        (
            "没有先减去每一行的最大值：很大的分数直接 exp 会溢出（inf / inf = nan），很小的会全变成 0（0 / 0）。"
            "减去最大值，结果不变，却不会溢出。",
            {"stable": False},
        ),
        ("沿错了轴（axis=0）：softmax 沿最后一维，每一行加起来是 1。", [{"axis": 0}, {"axis": 0, "stable": False}]),
        (
            "减的是整个数组的最大值，不是每一行自己的：两行相差很远时，另一行的 exp 全变成 0（0 / 0 = nan）。"
            "用 z.max(axis=-1, keepdims=True)。",
            {"stable": "global"},
        ),
    ],
)

_ATTENTION_WAYS = _ways(
    _attention_way,
    [
        (
            "除以了 d，不是 √d：缩放因子是 1/√d（d 是 q 的最后一维）。",
            [{"scale": "d"}, {"scale": "d", "stable": False}],
        ),
        ("没有缩放：分数要先除以 √d，再做 softmax。", [{"scale": "none"}, {"scale": "none", "stable": False}]),
        (
            "softmax 沿错了方向（对查询那一维，axis=-2）：每个查询（分数矩阵的每一行）的权重加起来是 1，沿最后一维。",
            [{"axis": -2}, {"axis": -2, "stable": False}],
        ),
        ("softmax 没有减最大值：分数很大时 exp 溢出成 inf，结果变成 nan。", {"stable": False}),
    ],
)

_PRE_LN_WAYS = _ways(
    _pre_ln_way,
    [
        ("这是 Post-LN：先相加再归一化 LN(x + F(x))。Pre-LN 是先归一化再进子层，x + F(LN(x))。", {"form": "post"}),
        ("没有残差：结果要把原来的 x 加回去，x + F(LN(x))。", {"form": "no_residual"}),
        ("加回去的是归一化以后的 x：残差那条路不经过 LayerNorm，加的是原来的 x。", {"form": "normalized_residual"}),
        ("忘了 LayerNorm：子层收到的应该是 LN(x)，不是 x。", {"form": "no_norm"}),
    ],
)

_BN_WAYS = _ways(
    _bn_way,
    [
        ("running_var 用了有偏方差（除以 n）：PyTorch 更新 running_var 用无偏方差（除以 n − 1）。", {"way": "biased"}),
        (
            "momentum 放反了：新值 = (1 − momentum) · 旧值 + momentum · 本批，momentum = 0.1 是本批的权重。",
            {"way": "flipped"},
        ),
        ("评估模式还在用这一批自己的均值和方差：评估时要用 running_mean 和 running_var。", {"way": "eval_batch"}),
        (
            "评估模式也更新了 running 统计量：评估时只用 running_mean、running_var 归一化，把它们原样返回。",
            {"way": "eval_update"},
        ),
        (
            "归一化时用了无偏方差（除以 n − 1）：归一化用这一批的有偏方差（除以 n），"
            "只有更新 running_var 时才用无偏方差。",
            {"way": "unbiased_norm"},
        ),
        (_EPS_OUT, {"way": "eps_out"}),
        (
            "沿错了轴：这是 LayerNorm 的方向（最后一维）。BatchNorm 对每个特征（最后一维的每一列）统计整批。",
            {"way": "layer_axis"},
        ),
    ],
)

_BACKWARD_WAYS = _ways(
    _backward_way,
    [
        ("漏掉了来自 μ 的那一项 −mean(g)：μ 也依赖 x。", {"mean_term": False}),
        ("漏掉了来自 σ 的那一项 −x̂ · mean(g ⊙ x̂)：σ 也依赖 x。", {"xhat_term": False}),
        ("忘了 γ：流进 x̂ 的梯度是 g = dy ⊙ γ，不是 dy。", {"use_gamma": False}),
        ("dgamma 和 dbeta 放反了：dgamma = Σ dy ⊙ x̂，dbeta = Σ dy。", {"swap": True}),
        (
            "dgamma、dbeta 对 token 求了平均：γ、β 被每个 token 用了一次，梯度是各 token 的和，不是平均。",
            {"averaged": True},
        ),
    ],
)

_MERGE_WAYS = _ways(
    _merge_way,
    [
        ("均值没有按个数加权：合并后的均值是 ma + δ · nb / n，不是两个均值的平均。", {"way": "unweighted"}),
        ("漏掉了交叉项 δ² · na · nb / n：两段的均值不一样，这部分偏差也要算进 M2。", {"way": "no_cross"}),
        ("忘了 n = 0 的情况：两边都是空的时候 n = 0，要直接返回 (0, 0, 0)，不能除以 n。", {"way": "no_empty"}),
    ],
)

_WARMUP_WAYS = _ways(
    _warmup_way,
    [
        ("用了 step / warmup_steps：step 从 0 数，第 step 步是 lr · (step + 1) / warmup_steps。", {"way": "t_over_w"}),
        ("warm-up 没有结束：warmup_steps 步以后学习率要一直是 lr，不再变大。", {"way": "endless"}),
        ("忘了 warmup_steps = 0 的情况：不 warm-up 时直接返回 lr，不能除以 0。", {"way": "no_zero"}),
    ],
)

_SHARES_WAYS = _ways(
    _shares_way,
    [
        ("按列减了均值：LayerNorm 的 μ 是每一行自己的，每一行先减去它自己的 μ。", {"way": "columns"}),
        ("减的是整张表的均值：每一行要减去它自己的 μ。", {"way": "global"}),
        ("没有减均值：(x − μ)² 里的 μ 是每一行自己的均值。", {"way": "none"}),
        ("忘了除以总和：每一维的份额加起来应该是 1。", {"way": "unnormalized"}),
    ],
)

_ADAM_WAYS = _ways(
    _adam_way,
    [
        ("没有偏差修正：m 和 v 从 0 开始，前几步偏小，要除以 1 − 0.9^t 和 1 − 0.999^t。", {"way": "no_correction"}),
        ("β₁ 和 β₂ 放反了：m 用 0.9（一阶矩，变得快），v 用 0.999（二阶矩，变得慢）。", {"way": "swapped"}),
    ],
)


CODE_EXERCISES: dict[str, CodeExercise] = {
    "07.layer_norm": CodeExercise(
        "layer_norm(x, gamma, beta, eps=1e-5)",
        _ref_layer_norm,
        _layer_norm_cases,
        "按最后一维：mu = x.mean(axis=-1, keepdims=True)，var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)，"
        "x_hat = (x - mu) / np.sqrt(var + eps)，return gamma * x_hat + beta。",
        nudge="LayerNorm 对每个 token（最后一维）单独求 μ 和 σ²（除以 d），用 √(σ² + ε) 去除 x − μ，最后 γ 乘、β 加。",
        near="差得很小：多半是 ε 的大小或位置——默认 ε = 1e-5，加在方差上再开根号。",
        mistakes=_LN_WAYS,
    ),
    "08.batch_norm": CodeExercise(
        "batch_norm(x, running_mean, running_var, training, momentum=0.1, eps=1e-5)"
        " -> (y, new_running_mean, new_running_var)",
        _ref_batch_norm,
        _batch_norm_cases,
        "训练时按除了最后一维以外的所有维统计（axis=tuple(range(x.ndim - 1))），用有偏方差归一化，"
        "running_var 用无偏方差（× n / (n − 1)）更新：new = (1 − momentum) · old + momentum · batch；"
        "评估时用 running 统计量归一化，并原样返回它们。",
        nudge="训练时用这一批的统计量归一化、再更新 running 统计量；评估时只用 running 统计量，不更新。",
        near="差得很小：检查 ε（1e-5，加在方差上再开根号），以及 running_var 用的是无偏方差。",
        mistakes=_BN_WAYS,
    ),
    "09.pre_ln_block": CodeExercise(
        "pre_ln_block(x, sublayer, gamma, beta, eps=1e-5)",
        _ref_pre_ln,
        _pre_ln_cases,
        "Pre-LN：先 LayerNorm，再送进子层，最后加回没有归一化的 x：x + sublayer(layer_norm(x))。",
        nudge="Pre-LN 的 LayerNorm 只在子层的入口；残差那条路把原来的 x 原样加回去。",
        near="差得很小：检查 LayerNorm 的 ε（默认 1e-5，在根号里）。",
        mistakes=_PRE_LN_WAYS,
    ),
    "10.softmax": CodeExercise(
        "softmax(z)",
        _ref_softmax,
        _softmax_cases,
        "沿最后一维：先减去这一行的最大值（keepdims=True），再取 exp，最后除以这一行的和。",
        nudge="softmax 沿最后一维把一行分数变成加起来是 1 的权重；分数很大或很小时，exp 之前要先让它们变得不大。",
        near="差得很小：exp 和求和都要沿最后一维，中间别取整，也别加多余的小常数。",
        mistakes=_SOFTMAX_WAYS,
    ),
    "10.attention": CodeExercise(
        "attention(q, k, v)",
        _ref_attention,
        _attention_cases,
        "scores = q @ k.swapaxes(-1, -2) / np.sqrt(d)，d 是 q 的最后一维；对每一行做（稳定的）softmax，再乘 v。",
        nudge="注意力 = softmax(分数) · V：分数是 Q 和 K 的点积再缩放，每个查询的一行权重加起来是 1。",
        near="差得很小：缩放用 √d（d 是 q 的最后一维），softmax 里别加多余的小常数。",
        mistakes=_ATTENTION_WAYS,
    ),
    "11.rms_norm": CodeExercise(
        "rms_norm(x, gamma, eps=1e-6)",
        _ref_rms_norm,
        _rms_norm_cases,
        "不减均值：x / np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + eps) * gamma。",
        nudge="RMSNorm 不减均值、没有 β：每一行除以它的均方根（平方的平均，加 ε，再开根号），再乘 γ。",
        near="差得很小：检查 ε 的大小（默认 1e-6，不是 1e-5）和位置（在根号里面）。",
        mistakes=_RMS_WAYS,
    ),
    "12.layer_norm_backward": CodeExercise(
        "layer_norm_backward(dy, x, gamma, eps=1e-5) -> (dx, dgamma, dbeta)",
        _ref_backward,
        _backward_cases,
        "g = dy * gamma；dx = (g − mean(g) − x̂ · mean(g · x̂)) / √(σ² + ε)（都按最后一维）；"
        "dgamma = Σ dy · x̂、dbeta = Σ dy，对最后一维以外的所有维求和。",
        nudge="dx 有三项：直接的 g、来自 μ 的一项、来自 σ 的一项（g = dy ⊙ γ），最后乘 1/√(σ² + ε)；"
        "dgamma 和 dbeta 对每个特征把所有 token 加起来。",
        near="差得很小：检查 ε（1e-5，在根号里）和最后乘的 1/√(σ² + ε)。",
        mistakes=_BACKWARD_WAYS,
    ),
    "13.welford_merge": CodeExercise(
        "welford_merge(a, b) -> (n, mean, m2)，a、b 都是 (n, mean, m2)",
        _ref_merge,
        _merge_cases,
        "n = na + nb；δ = mb − ma；mean = ma + δ · nb / n；m2 = m2a + m2b + δ² · na · nb / n；n = 0 时返回 (0, 0, 0)。",
        nudge="合并两段：个数相加，均值按个数加权，M2 除了两段各自的 M2 还有一项来自两段均值之差；别忘了 n = 0。",
        near="差得很小：大偏移时先算 δ = mb − ma，别用 Σx² 这种两个大数相减的公式。",
        mistakes=_MERGE_WAYS,
    ),
    "15.warmup_lr": CodeExercise(
        "warmup_lr(step, lr, warmup_steps)",
        warmup_lr,
        _warmup_cases,
        "step 从 0 数：前 warmup_steps 步是 lr · (step + 1) / warmup_steps，之后一直是 lr；"
        "warmup_steps 为 0 时就是 lr。",
        nudge="线性 warm-up：学习率从很小开始一步步涨到 lr，warmup_steps 步以后保持 lr；step 从 0 数。",
        near="差得很小：公式是 lr · (step + 1) / warmup_steps，别在中间取整。",
        mistakes=_WARMUP_WAYS,
    ),
    "15.adam_step": CodeExercise(
        "adam_step(param, grad, m, v, t, lr) -> (new_param, new_m, new_v)",
        adam_step,
        _adam_cases,
        "m = 0.9·m + 0.1·g，v = 0.999·v + 0.001·g²；m̂ = m / (1 − 0.9^t)，v̂ = v / (1 − 0.999^t)；"
        "param − lr · m̂ / (√v̂ + 1e-8)。别忘了偏差修正。",
        nudge="Adam 先更新一阶矩 m 和二阶矩 v，再对它们做偏差修正，最后按 m̂ / √v̂ 走一步。",
        near="差得很小：检查 1e-8 加在 √v̂ 外面，以及偏差修正用的是第 t 步的 0.9^t 和 0.999^t。",
        mistakes=_ADAM_WAYS,
    ),
    "16.variance_shares": CodeExercise(
        "variance_shares(rows) -> 每一维的份额（长度 d，加起来是 1）",
        variance_shares,
        _shares_cases,
        "centred = rows − rows.mean(axis=1, keepdims=True)（每一行减去自己的 μ）；"
        "total = (centred ** 2).sum(axis=0)（每一维把所有行加起来）；返回 total / total.sum()。",
        nudge="先让每一行减去它自己的均值（LayerNorm 的 μ），再对每一维把 (x − μ)² 在所有行上加起来，最后除以总和。",
        near="差得很小：检查减的是每一行自己的均值（axis=1），求和是沿着行（axis=0）。",
        mistakes=_SHARES_WAYS,
    ),
}


def judge_function(name: str, fn, *, cases: list[Case] | None = None) -> FunctionVerdict:
    """Run `fn` on every case of code exercise `name` (or on `cases`, e.g. a graded assignment's own inputs); the
    verdict `check_function` prints."""
    if not isinstance(name, str):
        raise TypeError(f"name: expected a code exercise name such as '07.layer_norm', got {name!r}")
    if name not in CODE_EXERCISES:
        raise ValueError(f"name: unknown code exercise {name!r}; known: {', '.join(sorted(CODE_EXERCISES))}")
    return judge_code(name, CODE_EXERCISES[name], fn, cases)


def check_function(name: str, fn) -> None:
    """Run a learner's function against lnlib on random and edge inputs; print which case failed, or ✓.

    A first wrong try names the failing case (and the mistake, when one is recognised); later tries add a nudge
    about the concept; the full solution only comes from `lnlib.hint(name)`.
    """
    verdict = judge_function(name, fn)
    if verdict.ok:
        note = _record.record_right(name)
        text = verdict.message + (f"\n{note}" if note else "")
    elif verdict.failed == "placeholder":
        text = verdict.message
    else:
        text = verdict.text(_record.tried(name))
    first, _, rest = text.partition("\n")
    print(f"{first}（{name}）" + (f"\n{rest}" if rest else ""))
