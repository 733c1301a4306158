"""The engine behind `lnlib.check`: what an exercise is and how one answer is judged.

An `Exercise` holds the expected value (computed, never pre-rounded), the tolerance that the rounding asked for
allows, the typical wrong answers (`Mistake`: a value computed the wrong way and the name of that mistake) and,
for choice questions, the accepted synonyms. `grade` returns a `Verdict`; it never prints and never raises on a
learner's answer. Only real numbers count as numbers: booleans, complex numbers, dates, text and objects are
refused with a reason.
"""

from __future__ import annotations

import numbers
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

_SLACK = 1e-9  # relative slack on a tolerance, so that 3.684 − 3.683 = 0.0010000000000003 still counts as 1e-3


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer: `value` (or a zero-argument callable returning it) and what went wrong, in Chinese."""

    why: str
    value: object
    atol: float | None = None  # None: the exercise's own tolerance

    def wrong_value(self) -> np.ndarray:
        value = self.value() if callable(self.value) else self.value
        return np.asarray(value, dtype=np.float64)


@dataclass(frozen=True)
class Exercise:
    """One checked exercise.

    expected: a number or array-like (keep it exact; `atol` carries the rounding the question asks for), or a str
        for a choice question.
    hint: the general hint, shown for any wrong answer that no `Mistake` explains.
    atol: the largest accepted absolute error per entry. For "保留三位小数" that is 0.0005 for the final rounding plus
        what rounding the inputs the question suggests does (e.g. 2 × 1.342 + 1 is off by 2 × 0.0005 more).
    mistakes: typical wrong answers, checked in order after the right one.
    synonyms: other accepted spellings of a choice answer; case, full-width forms, spaces, hyphens, underscores,
        dots and brackets are ignored anyway.
    """

    expected: object
    hint: str
    atol: float = 1e-3
    mistakes: Sequence[Mistake] = field(default_factory=tuple)
    synonyms: Sequence[str] = field(default_factory=tuple)


@dataclass(frozen=True)
class Verdict:
    ok: bool
    message: str  # the Chinese text `check` prints (without the exercise name)


# ---------------------------------------------------------------- choice answers

_IGNORED = re.compile(r"[\s\-_‐‑‒–—−·•.。,，、;；:：'\"“”‘’()（）\[\]【】]+")


def normalize_choice(text: str) -> str:
    """Fold a typed choice answer: NFKC (full-width → half-width), casefold, drop spaces and punctuation."""
    return _IGNORED.sub("", unicodedata.normalize("NFKC", text).casefold())


def _grade_choice(exercise: Exercise, answer) -> Verdict:
    if not isinstance(answer, str):
        return Verdict(False, f"这道题要填文字（比如 {exercise.expected!r}），你给的是 {_show(answer)}。")
    accepted = {normalize_choice(s) for s in (exercise.expected, *exercise.synonyms)}
    if normalize_choice(answer) in accepted:
        return Verdict(True, "")
    return Verdict(False, f"你的答案是 {answer!r:.60}。\n  提示：{exercise.hint}")


# ---------------------------------------------------------------- numeric answers


def real_array(answer) -> tuple[np.ndarray | None, str]:
    """The answer as a float64 array, or (None, why not) for anything that is not a (nested list of) real number(s)."""
    why = _not_real(answer)
    if why:
        return None, why
    try:
        with np.errstate(all="ignore"):
            arr = np.asarray(answer, dtype=np.float64)
    except OverflowError:  # an int such as 10**400
        return None, "这个数太大了，超出了浮点数的范围。"
    except (TypeError, ValueError):
        return None, f"需要一个数或一个（各行等长的）数字列表，你给的是 {_show(answer)}。"
    if not np.all(np.isfinite(arr)):
        return None, f"答案里有 inf 或 nan：{np.array2string(arr, precision=4)}。检查一下是不是除以了 0。"
    return arr, ""


def _not_real(value, depth: int = 0) -> str:
    """'' when `value` is a real number or a nested list/tuple/array of them; else the reason in Chinese."""
    if depth > 8:
        return "嵌套太深了，答案应该是一个数或一个数字列表。"
    if isinstance(value, bool | np.bool_):
        return f"{value} 是布尔值（对/错），不是数字。"
    if isinstance(value, str | bytes):
        return f"需要数字，你给的是文字 {value!r:.40}（去掉引号试试）。"
    if isinstance(value, np.ndarray | np.generic):
        kind = value.dtype.kind
        if kind in "iuf":
            return ""
        if kind == "O" and isinstance(value, np.ndarray):
            return next((w for w in map(lambda v: _not_real(v, depth + 1), value.ravel().tolist()) if w), "")
        return _kind_reason(kind, value)
    if isinstance(value, complex | numbers.Complex) and not isinstance(value, numbers.Real):
        return f"{value} 是复数；这里只接受实数。"
    if isinstance(value, numbers.Real):
        return ""
    if isinstance(value, list | tuple):
        return next((w for w in (_not_real(v, depth + 1) for v in value) if w), "")
    if hasattr(value, "__array__"):  # e.g. a torch tensor or a pandas Series
        try:
            return _not_real(np.asarray(value), depth + 1)
        except Exception:  # noqa: BLE001 - anything a foreign object raises means "not a number we can read"
            return f"读不出 {_show(value)} 里的数字。"
    return f"需要数字或数字列表，你给的是 {_show(value)}。"


def _kind_reason(kind: str, value) -> str:
    return {
        "b": "True/False 是布尔值（对/错），不是数字。",
        "c": f"{_show(value)} 是复数；这里只接受实数。",
        "M": f"{_show(value)} 是日期时间，不是数字。",
        "m": f"{_show(value)} 是时间长度，不是数字。",
        "U": f"需要数字，你给的是文字 {_show(value)}（去掉引号试试）。",
        "S": f"需要数字，你给的是字节串 {_show(value)}。",
    }.get(kind, f"需要数字或数字列表，你给的是 {_show(value)}。")


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


def _close(got: np.ndarray, want: np.ndarray, atol: float) -> bool:
    return got.shape == want.shape and bool(np.all(np.abs(got - want) <= atol * (1 + _SLACK) + _SLACK * np.abs(want)))


def _near_miss(got: np.ndarray, want: np.ndarray, atol: float) -> bool:
    """Close to the answer, but outside the tolerance: the signature of rounding intermediate values too early."""
    return got.shape == want.shape and bool(np.all(np.abs(got - want) <= np.maximum(20 * atol, 0.02 * np.abs(want))))


def _shape(arr: np.ndarray) -> str:
    return "一个数" if arr.ndim == 0 else f"形状 {arr.shape} 的数组"


def _grade_number(exercise: Exercise, answer) -> Verdict:
    got, why = real_array(answer)
    if got is None:
        return Verdict(False, why)
    want = np.asarray(exercise.expected, dtype=np.float64)
    shown = np.array2string(got, precision=4, suppress_small=True) if got.ndim else f"{float(got):.6g}"
    if got.shape != want.shape and got.size == want.size == 1:
        got = got.reshape(want.shape)  # [5] for 5
    if _close(got, want, exercise.atol):
        return Verdict(True, "")
    for mistake in exercise.mistakes:
        wrong = mistake.wrong_value()
        if _close(got, wrong, exercise.atol if mistake.atol is None else mistake.atol):
            return Verdict(False, f"你的答案是 {shown}。看起来是{mistake.why}\n  提示：{exercise.hint}")
    if got.shape != want.shape:
        return Verdict(False, f"形状不对：应该是{_shape(want)}，你的是{_shape(got)}。\n  提示：{exercise.hint}")
    if np.any(want != 0) and _close(got, -want, exercise.atol):
        return Verdict(False, f"你的答案是 {shown}：数值对了，符号反了。检查减法的顺序（x − μ，不是 μ − x）。")
    if want.ndim == 1 and want.size > 1 and _close(got, want[::-1], exercise.atol):
        return Verdict(False, f"你的答案是 {shown}：这些数都对，但顺序反了，检查是哪一行、第几维。")
    if _near_miss(got, want, exercise.atol):
        return Verdict(
            False,
            f"你的答案是 {shown}，很接近了，但误差超出了允许范围（±{exercise.atol:g}）。"
            "多半是取整太早（比如把 √5 写成 2.2）或保留的位数不够：中间步骤多保留几位小数，最后再按题目要求四舍五入。",
        )
    return Verdict(False, f"你的答案是 {shown}。\n  提示：{exercise.hint}")


def grade(exercise: Exercise, answer) -> Verdict:
    """Judge one answer: ✓, or ✗ with the reason (a named mistake, a wrong type or shape, or the general hint)."""
    if answer is None:
        return Verdict(False, "尚未作答")
    if isinstance(exercise.expected, str):
        return _grade_choice(exercise, answer)
    return _grade_number(exercise, answer)


# ---------------------------------------------------------------- typical mistakes of one row


def row_mistakes(matrix, row: int, what: str, *, eps: float = 0.0, first: tuple = ()) -> tuple[Mistake, ...]:
    """The typical wrong answers for a statistic of `matrix[row]`, each computed the wrong way with lnlib.

    what: "mean", "variance", "std" or "xhat" (x̂ with `eps`). Covers ÷(d − 1), a forgotten square root, ε outside
    the root, σ given for σ² (and σ² for σ), forgetting to subtract μ or to divide, and the wrong axis (the columns or
    the whole table). `first`: the exercise's own mistakes, checked before these. Mistakes that coincide with the
    right answer or an earlier mistake are dropped (the mean of the whole table can equal a row's sum).
    """
    from .norms import batch_norm, layer_norm
    from .stages import center, mean, std, variance

    m = np.asarray(matrix, dtype=np.float64)
    x = m[row]
    d = x.size
    var, sd, c = float(variance(x)), float(std(x)), center(x)
    table_mu, table_var = float(m.mean()), float(((m - m.mean()) ** 2).mean())
    col_mu = m.mean(axis=0)
    wanted: dict[str, list[tuple[str, Callable[[], object]]]] = {
        "mean": [
            ("按列（同一维、不同 token）求了平均：LayerNorm 每一行用自己的 d 个数。", lambda: col_mu),
            ("对整张表求了平均：LayerNorm 每一行只用自己的 d 个数。", lambda: table_mu),
        ],
        "variance": [
            ("除以了 d − 1（无偏方差）：LayerNorm 的方差除以 d。", lambda: var * d / (d - 1)),
            ("给出了标准差 σ，题目问的是方差 σ²（还没开根号的那个数）。", lambda: sd),
            ("忘了先减去均值 μ：算成了 x² 的平均。", lambda: float((x**2).mean())),
            ("偏差没有平方，直接取了绝对值的平均。", lambda: float(np.abs(c).mean())),
            ("对整张表求了方差：LayerNorm 每一行只用自己的 d 个数。", lambda: table_var),
        ],
        "std": [
            ("忘了开平方根：给出的是方差 σ²。", lambda: var),
            ("除以了 d − 1（无偏方差）再开根号：LayerNorm 的方差除以 d。", lambda: np.sqrt(var * d / (d - 1))),
        ],
        "xhat": [
            ("除以了 d − 1（无偏方差）：LayerNorm 的方差除以 d。", lambda: c / np.sqrt(var * d / (d - 1) + eps)),
            ("忘了开平方根：除以的是方差 σ²，不是 σ。", lambda: c / (var + eps)),
            ("把 ε 放在了根号外面：分母应该是 √(σ² + ε)，不是 σ + ε。", lambda: c / (sd + eps)),
            ("只减了均值，忘了除以 σ。", lambda: c),
            ("忘了减均值：直接用 x 除以 σ。", lambda: x / np.sqrt(var + eps)),
            ("按列（同一维、不同 token）统计了：这是 BatchNorm 的方向。", lambda: batch_norm(m, eps=eps)[row]),
            (
                "对整张表一起统计了：LayerNorm 每一行只用自己的 d 个数。",
                lambda: layer_norm(m, eps=eps, axis=(0, 1))[row],
            ),
        ],
    }
    if what not in wanted:
        raise ValueError(f"what: expected 'mean', 'variance', 'std' or 'xhat', got {what!r}")
    right = {
        "mean": lambda: mean(x),
        "variance": lambda: var,
        "std": lambda: sd,
        "xhat": lambda: c / np.sqrt(var + eps),
    }[what]()
    seen = [np.asarray(right, dtype=np.float64)] + [m.wrong_value() for m in first]
    kept = list(first)
    for why, value in wanted[what]:
        v = np.asarray(value(), dtype=np.float64)
        if any(_close(v, s, 1e-3) for s in seen):
            continue
        seen.append(v)
        kept.append(Mistake(why, v))
    return tuple(kept)
