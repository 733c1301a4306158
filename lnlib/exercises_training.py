"""Notebook 15's exercises: numeric ones for `lnlib.check` (EXERCISES_15) and code ones for
`lnlib.check_function` (FUNCTION_EXERCISES_15: name → (reference function, list of argument makers)).

Until lnlib.exercises gathers every notebook's function exercises, this module registers EXERCISES_15 with
`lnlib.check` when imported and provides a `check_function` for the names below.
"""

from __future__ import annotations

import numpy as np

from .exercises import EXERCISES, Exercise
from .training import adam_step, warmup_lr

EXERCISES_15: dict[str, Exercise] = {
    "15.predict_depth": Exercise(
        "b", "ReLU 把一半左右的数变成 0，N(0, 1/fan_in) 的权重只保持方差不变：每过一层方差约减半，7 层就是 1/128。"
    ),
    "15.predict_batch1": Exercise(
        0.333, "一个样本减去它自己的均值是 0：每个输入得到同一个预测，三类里只能碰对一类。", atol=0.02
    ),
    "15.predict_post": Exercise("pre", "哪一种在初始化时输出端附近的梯度更温和，不需要 warm-up？"),
    "15.warmup_value": Exercise(2e-4, "第 9 步（从 0 数）是第 10 步：1e-3 × 10 / 50。", atol=1e-9),
}


def _warmup_cases():
    return [(0, 1e-3, 50), (9, 1e-3, 50), (49, 1e-3, 50), (120, 1e-3, 50), (5, 0.1, 0), (3, 2.0, 4)]


def _adam_cases():
    rng = np.random.default_rng(15)
    cases = [(np.zeros(3), np.array([0.5, -2.0, 1e-3]), np.zeros(3), np.zeros(3), 1, 0.1)]
    for t in (2, 10):
        p, g = rng.normal(size=4), rng.normal(size=4)
        cases.append((p, g, 0.1 * rng.normal(size=4), 0.01 * rng.random(4), t, 1e-3))
    return cases


FUNCTION_EXERCISES_15 = {
    "15.warmup_lr": (warmup_lr, _warmup_cases),
    "15.adam_step": (adam_step, _adam_cases),
}

EXERCISES.update(EXERCISES_15)  # so that lnlib.check knows notebook 15's names


def check_function(name: str, fn) -> bool:
    """Run a learner's function and the reference on the same inputs; print ✓, or ✗ with the first failing case."""
    if name not in FUNCTION_EXERCISES_15:
        raise ValueError(f"name: unknown function exercise {name!r}; known: {', '.join(FUNCTION_EXERCISES_15)}")
    if not callable(fn):
        raise TypeError(f"fn: expected a function, got {type(fn).__name__}")
    reference, make_cases = FUNCTION_EXERCISES_15[name]
    for args in make_cases():
        want = reference(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
        try:
            got = fn(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
        except Exception as err:  # a learner's bug: say so in one line, never a traceback
            print(f"✗ 还不对（{name}）：输入 {_show(args)} 时出错：{type(err).__name__}: {err}")
            return False
        if got is None:
            print(f"尚未作答：把 ... 换成你的代码，再运行这个单元格。（{name}）")
            return False
        if not _close(got, want):
            print(f"✗ 还不对（{name}）：输入 {_show(args)}\n  应得 {_show(want)}，你的是 {_show(got)}")
            return False
    print(f"✓ 正确！（{name}）")
    return True


def _close(got, want) -> bool:
    if isinstance(want, tuple):
        return isinstance(got, tuple | list) and len(got) == len(want) and all(map(_close, got, want))
    try:
        g = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return g.shape == np.shape(want) and bool(np.allclose(g, want, rtol=1e-6, atol=1e-12))


def _show(value) -> str:
    if isinstance(value, tuple | list):
        return "(" + ", ".join(_show(v) for v in value) + ")"
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=4, separator=", ")
    return f"{value:.6g}" if isinstance(value, float) else repr(value)
