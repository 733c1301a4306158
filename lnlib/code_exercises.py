"""`check_function(name, fn)`: run a learner's function on random and edge inputs and compare it with lnlib.

Each code exercise is a `CodeExercise`: the signature the learner writes (shown in messages), a reference built from
lnlib, and a list of `Case`s (a Chinese label, the arguments, a tolerance). The first case whose result differs is
reported in Chinese with its input, the expected and the received value. A function that raises, returns None (the
`...` placeholder), returns the wrong shape or emits inf/nan is reported too; nothing the learner's code does can
crash the cell. Numpy warnings raised inside the learner's function are silenced and shown as the case's failure.
"""

from __future__ import annotations

import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import transformer
from .data import TOKEN_MATRIX
from .grad import layer_norm_backward
from .norms import BatchNorm, layer_norm, rms_norm
from .stages import mean, variance
from .training import adam_step, warmup_lr

__all__ = ["CODE_EXERCISES", "Case", "CodeExercise", "FunctionVerdict", "check_function", "judge_function"]


@dataclass(frozen=True)
class Case:
    label: str  # what this input tests, in Chinese: 随机行、常数行、很大的偏移、(B, T, d) 批量、float32 …
    args: tuple
    rtol: float = 1e-5
    atol: float = 1e-5


@dataclass(frozen=True)
class CodeExercise:
    signature: str  # e.g. "layer_norm(x, gamma, beta, eps=1e-5)"
    reference: Callable  # the same signature, built from lnlib
    cases: Callable[[], list[Case]]  # built on demand from a fixed seed
    hint: str


@dataclass(frozen=True)
class FunctionVerdict:
    ok: bool
    message: str
    failed: str | None = None  # the label of the first failing case, or "placeholder" / "error"


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
        Case("一行随机数", (row, *params(d))),
        Case(f"整体加了很大偏移（+{offset:g}）的一行", (row[:4] + offset, *params(4)), 1e-5, 1e-5),
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
    return [*_row_cases((_gamma,)), Case("全零行 [0, 0, 0, 0]（要靠 ε）", (np.zeros(4), np.ones(4)))]


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
    return [
        Case("训练模式：一批 5 × 3 的随机数", (x, rm, rv, True)),
        Case("评估模式：用 running 统计量，不更新它们", (x, rm, rv, False)),
        Case("训练模式：第 2 列是常数（σ² = 0）", (const, rm, rv, True)),
        Case("训练模式：整体加了很大偏移（+1e8）", (x + 1e8, rm, rv, True), 1e-5, 1e-5),
        Case("训练模式：(N, T, C) = (2, 4, 3)，按 N 和 T 一起统计", (rng.normal(size=(2, 4, 3)), rm, rv, True)),
        Case("训练模式：float32 输入", (x.astype(np.float32), rm, rv, True), 1e-4, 1e-4),
    ]


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
        Case("整体加了很大偏移（+1e8）", (summary(a + 1e8), summary(b + 1e8)), 1e-9, 1e-6),
    ]


# ---------------------------------------------------------------- references (lnlib)


def _warmup_cases() -> list[Case]:
    steps = [(0, 1e-3, 50), (9, 1e-3, 50), (49, 1e-3, 50), (120, 1e-3, 50), (5, 0.1, 0), (3, 2.0, 4)]
    labels = ["第 0 步", "warm-up 中途", "warm-up 最后一步", "warm-up 之后", "不 warm-up（0 步）", "很短的 warm-up"]
    return [Case(label, args, rtol=1e-9, atol=1e-15) for label, args in zip(labels, steps, strict=True)]


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


CODE_EXERCISES: dict[str, CodeExercise] = {
    "07.layer_norm": CodeExercise(
        "layer_norm(x, gamma, beta, eps=1e-5)",
        _ref_layer_norm,
        _layer_norm_cases,
        "按最后一维：mu = x.mean(axis=-1, keepdims=True)，var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)，"
        "x_hat = (x - mu) / np.sqrt(var + eps)，return gamma * x_hat + beta。",
    ),
    "08.batch_norm": CodeExercise(
        "batch_norm(x, running_mean, running_var, training, momentum=0.1, eps=1e-5)"
        " -> (y, new_running_mean, new_running_var)",
        _ref_batch_norm,
        _batch_norm_cases,
        "训练时按除了最后一维以外的所有维统计（axis=tuple(range(x.ndim - 1))），用有偏方差归一化，"
        "running_var 用无偏方差（× n / (n − 1)）更新：new = (1 − momentum) · old + momentum · batch；"
        "评估时用 running 统计量归一化，并原样返回它们。",
    ),
    "09.pre_ln_block": CodeExercise(
        "pre_ln_block(x, sublayer, gamma, beta, eps=1e-5)",
        _ref_pre_ln,
        _pre_ln_cases,
        "Pre-LN：先 LayerNorm，再送进子层，最后加回没有归一化的 x：x + sublayer(layer_norm(x))。",
    ),
    "10.softmax": CodeExercise(
        "softmax(z)",
        _ref_softmax,
        _softmax_cases,
        "沿最后一维：先减去这一行的最大值（keepdims=True），再取 exp，最后除以这一行的和。",
    ),
    "10.attention": CodeExercise(
        "attention(q, k, v)",
        _ref_attention,
        _attention_cases,
        "scores = q @ k.swapaxes(-1, -2) / np.sqrt(d)，d 是 q 的最后一维；对每一行做（稳定的）softmax，再乘 v。",
    ),
    "11.rms_norm": CodeExercise(
        "rms_norm(x, gamma, eps=1e-6)",
        _ref_rms_norm,
        _rms_norm_cases,
        "不减均值：x / np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + eps) * gamma。",
    ),
    "12.layer_norm_backward": CodeExercise(
        "layer_norm_backward(dy, x, gamma, eps=1e-5) -> (dx, dgamma, dbeta)",
        _ref_backward,
        _backward_cases,
        "g = dy * gamma；dx = (g − mean(g) − x̂ · mean(g · x̂)) / √(σ² + ε)（都按最后一维）；"
        "dgamma = Σ dy · x̂、dbeta = Σ dy，对最后一维以外的所有维求和。",
    ),
    "13.welford_merge": CodeExercise(
        "welford_merge(a, b) -> (n, mean, m2)，a、b 都是 (n, mean, m2)",
        _ref_merge,
        _merge_cases,
        "n = na + nb；δ = mb − ma；mean = ma + δ · nb / n；m2 = m2a + m2b + δ² · na · nb / n；n = 0 时返回 (0, 0, 0)。",
    ),
    "15.warmup_lr": CodeExercise(
        "warmup_lr(step, lr, warmup_steps)",
        warmup_lr,
        _warmup_cases,
        "step 从 0 数：前 warmup_steps 步是 lr · (step + 1) / warmup_steps，之后一直是 lr；"
        "warmup_steps 为 0 时就是 lr。",
    ),
    "15.adam_step": CodeExercise(
        "adam_step(param, grad, m, v, t, lr) -> (new_param, new_m, new_v)",
        adam_step,
        _adam_cases,
        "m = 0.9·m + 0.1·g，v = 0.999·v + 0.001·g²；m̂ = m / (1 − 0.9^t)，v̂ = v / (1 − 0.999^t)；"
        "param − lr · m̂ / (√v̂ + 1e-8)。别忘了偏差修正。",
    ),
}


# ---------------------------------------------------------------- judging


def _fmt(value) -> str:
    if callable(value):
        return getattr(value, "__name__", "函数")
    if isinstance(value, tuple):
        return "(" + ", ".join(_fmt(v) for v in value) + ")"
    arr = np.asarray(value)
    if arr.dtype.kind not in "iuf":
        return repr(value)[:200]
    text = np.array2string(arr, precision=4, suppress_small=False, threshold=30, edgeitems=3, max_line_width=100)
    if arr.ndim >= 2:
        text = "\n      " + text.replace("\n", "\n      ")
    return text + (f"（{arr.dtype}）" if arr.dtype == np.float32 else "")


def _inputs(ex: CodeExercise, case: Case) -> str:
    """The case's arguments, each named as in the signature: x = …, gamma = …"""
    inner = ex.signature[ex.signature.index("(") + 1 : ex.signature.index(")")]
    names = [p.split("=")[0].strip() for p in inner.split(",")]
    return "；".join(f"{n} = {_fmt(a)}" for n, a in zip(names, case.args, strict=False))


def _flatten(value) -> list[np.ndarray] | None:
    """A result as a list of float64 arrays (a tuple result gives several), or None when it is not numeric."""
    parts = value if isinstance(value, tuple | list) and not _is_numeric_list(value) else (value,)
    out = []
    for part in parts:
        try:
            arr = np.asarray(part)
        except Exception:  # noqa: BLE001 - anything a foreign object raises
            return None
        if arr.dtype.kind not in "iuf":
            return None
        out.append(arr.astype(np.float64))
    return out


def _is_numeric_list(value) -> bool:
    return all(isinstance(v, int | float | np.number) and not isinstance(v, bool) for v in value)


def _compare(got, want, case: Case) -> str:
    """'' if `got` matches `want`, else why not (in Chinese)."""
    got_parts, want_parts = _flatten(got), _flatten(want)
    if got_parts is None:
        return f"返回的不是数字数组，而是 {type(got).__name__}。"
    if len(got_parts) != len(want_parts):
        return f"应该返回 {len(want_parts)} 个结果，你返回了 {len(got_parts)} 个。"
    for g, w in zip(got_parts, want_parts, strict=True):
        if g.shape != w.shape:
            return f"形状不对：应该是 {w.shape}，你的是 {g.shape}。"
        if not np.all(np.isfinite(g)) and np.all(np.isfinite(w)):
            return "结果里出现了 inf 或 nan。"
        if not np.allclose(g, w, rtol=case.rtol, atol=case.atol):
            gap = float(np.max(np.abs(g - w)))
            if gap <= 1e-3 * max(1.0, float(np.max(np.abs(w)))):
                return (
                    f"差得很小（最多差 {gap:.1e}），但超出了允许的误差："
                    "检查 ε 的大小（默认值）和位置（在根号里面），以及方差是不是除以 d。"
                )
            return f"数值不对（最多差 {gap:.3g}）。"
    return ""


def _copy_args(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def judge_function(name: str, fn) -> FunctionVerdict:
    """Run `fn` on every case of code exercise `name`; the verdict `check_function` prints."""
    if not isinstance(name, str):
        raise TypeError(f"name: expected a code exercise name such as '07.layer_norm', got {name!r}")
    if name not in CODE_EXERCISES:
        raise ValueError(f"name: unknown code exercise {name!r}; known: {', '.join(sorted(CODE_EXERCISES))}")
    ex = CODE_EXERCISES[name]
    if fn is None or fn is Ellipsis:
        return FunctionVerdict(False, f"还没写：先在上面定义函数 {ex.signature}，再运行这个单元格。", "placeholder")
    if not callable(fn):
        return FunctionVerdict(False, f"需要一个函数（{ex.signature}），你给的是 {type(fn).__name__}。", "error")
    cases = ex.cases()
    for i, case in enumerate(cases, start=1):
        want = ex.reference(*_copy_args(case.args))
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                got = fn(*_copy_args(case.args))
        except Exception as err:  # noqa: BLE001 - the learner's code may raise anything; report it, never crash
            code = getattr(fn, "__code__", None)
            frames = [
                f
                for f in traceback.extract_tb(err.__traceback__)
                if code is not None and f.filename == code.co_filename
            ]
            line = f"（你的函数第 {frames[-1].lineno - code.co_firstlineno + 1} 行）" if frames else ""
            return FunctionVerdict(
                False,
                f"✗ 第 {i} 个测试「{case.label}」时函数出错了：{type(err).__name__}: {err}"
                f"{line}\n  输入：{_inputs(ex, case)}\n  提示：{ex.hint}",
                "error",
            )
        if got is None:
            if i == 1:
                return FunctionVerdict(
                    False, f"还没写：函数还没有返回结果（返回的是 None）。请补全 {ex.signature}。", "placeholder"
                )
            return FunctionVerdict(False, f"✗ 第 {i} 个测试「{case.label}」时函数返回了 None。", case.label)
        why = _compare(got, want, case)
        if why:
            return FunctionVerdict(
                False,
                f"✗ 第 {i} 个测试（共 {len(cases)} 个）没通过：{case.label}。{why}\n"
                f"  输入：{_inputs(ex, case)}\n  期望：{_fmt(want)}\n  你的：{_fmt(got)}\n  提示：{ex.hint}",
                case.label,
            )
    labels = "；".join(c.label for c in cases)
    return FunctionVerdict(True, f"✓ 全部 {len(cases)} 个测试都通过了：{labels}。")


def check_function(name: str, fn) -> None:
    """Run a learner's function against lnlib on random and edge inputs; print which case failed, or ✓."""
    verdict = judge_function(name, fn)
    first, _, rest = verdict.message.partition("\n")
    print(f"{first}（{name}）" + (f"\n{rest}" if rest else ""))
