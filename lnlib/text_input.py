"""The one reader of what a learner types: a vector in an explorer's text box, an answer in an `%%answer` cell.

Accepts what people write — `2, 4, 6, 8`, `2 4 6 8`, `2，4，6，8`, `2、4、6、8`, `[２, ４]`, `(2,)`, and numbers
written as the course writes them: a fraction `1/3`, `2×10⁻⁴` (or `2*10^-4`, `2e-4`) — and never evaluates the
text. Anything else is a ValueError with a short Chinese message saying what to change.
Introduced in notebook 03 (the VectorExplorer); `lnlib.answers` reads every exercise answer with it.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np

__all__ = ["MAX_VALUES", "parse_vector", "parse_numbers"]

MAX_VALUES = 64
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # ASCII digits only
# Full-width ＡＳＣＩＩ forms (２，４．５) and the ideographic space become ASCII; nothing else is "normalized", so
# look-alikes such as ² (superscript), ½ or other scripts' digits are rejected instead of silently misread.
_FULLWIDTH = {0xFF01 + i: 0x21 + i for i in range(0x5E)} | {0x3000: " ", ord("、"): ",", ord("−"): "-"}
_PAIRS = {"[": "]", "(": ")", "{": "}"}
_FRACTION = re.compile(rf"({_NUMBER.pattern})/((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))")  # 1/3, -0.5/2
_POWER = re.compile(rf"(?:({_NUMBER.pattern})[×xX*])?10(?:(?:\^|\*\*)([+-]?[0-9]+)|([⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))")
_SUPER = str.maketrans("⁺⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "+-0123456789")


TOO_BIG = "数字太大，超出了浮点数能表示的范围（最大约 1.8×10³⁰⁸）。"
TOO_SMALL = "数字太小，超出了浮点数能表示的范围（比 5×10⁻³²⁴ 还小的数会变成 0）。"
_MAX_EXPONENT_DIGITS = 6  # 10^999999 is far outside float64 either way; longer exponents are not read as ints


def _value(p: str) -> float | None:
    """One typed number: plain (2, -1.5, 2e-4), a fraction (1/3) or a power of ten (2×10⁻⁴, 2*10^-4); else None.
    A number beyond float64 is a ValueError, too large or too small alike (a nonzero number never becomes 0)."""
    if _NUMBER.fullmatch(p):
        return _finite(float(p), p.lower().partition("e")[0])
    if m := _FRACTION.fullmatch(p):
        if float(m.group(2)) == 0:
            raise ValueError(f"“{p[:20]}” 的分母是 0：分数 a/b 的 b 不能是 0。")
        return _finite(float(m.group(1)) / float(m.group(2)), m.group(1).lower().partition("e")[0])
    if m := _POWER.fullmatch(p):
        head = m.group(1) or "1"
        exponent = (m.group(2) or m.group(3).translate(_SUPER)).lstrip("+")
        if len(exponent.lstrip("-").lstrip("0")) > _MAX_EXPONENT_DIGITS:
            _finite(0.0 if exponent.startswith("-") else float("inf"), head.lower().partition("e")[0])
        return _finite(float(f"{head}e{int(exponent)}"), head.lower().partition("e")[0])  # exact decimal rounding
    return None


def _finite(value: float, digits: str) -> float:
    """`value`, or a ValueError when it overflowed to inf or a nonzero number (its `digits`) underflowed to 0."""
    if not np.isfinite(value):
        raise ValueError(TOO_BIG)
    if value == 0 and float(digits) != 0:
        raise ValueError(TOO_SMALL)
    return value


def _plain(text: str) -> str:
    """Full-width forms as ASCII, invisible format characters (zero-width space, BOM, soft hyphen: Unicode Cf) gone."""
    text = text.translate(_FULLWIDTH)
    return "".join(c for c in text if unicodedata.category(c) != "Cf") if not text.isascii() else text


def parse_vector(text: str) -> np.ndarray:
    """Read a typed vector such as "2, 4, 6, 8", "2 4 6 8", "2，4，6，8" or "[２, ４]" into a float64 array.

    Raises ValueError with a short Chinese message for anything else. Never evaluates the text.
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected a str, got {type(text).__name__}")
    s = _plain(text).strip()
    if s[:1] in _PAIRS:
        if not s.endswith(_PAIRS[s[0]]):
            raise ValueError("括号不配对：开头和结尾的括号要成对出现。")
        s = s[1:-1].strip()
    if any(c in s for c in "[](){}"):
        raise ValueError("括号不配对，或者多了括号：只需要输入用逗号或空格隔开的数字。")
    s = re.sub(r"\s*,\s*", ",", s.replace(";", ","))
    s = re.sub(r"\s*([×*/^])\s*", r"\1", s)  # "2 × 10⁻⁴" and "1 / 3" are one number each
    if ",," in s:
        raise ValueError("两个逗号之间缺少数字。")
    s = s.removesuffix(",")  # one trailing comma while typing is fine
    if not s:
        raise ValueError("请输入至少一个数，例如 2, 4, 6, 8。")
    if s.startswith(","):
        raise ValueError("开头多了一个逗号。")
    parts = [p for p in re.split(r"[,\s]+", s) if p]
    numbers = []
    for p in parts:
        if p.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise ValueError("不接受 nan 或 inf：请输入普通的有限数字。")
        value = _value(p)
        if value is None:
            raise ValueError(f"“{p[:20]}” 不是数字：请只输入数字（也可以写 1/3、2×10⁻⁴），用逗号或空格隔开。")
        numbers.append(value)
    if len(parts) > MAX_VALUES:
        raise ValueError(f"最多输入 {MAX_VALUES} 个数，你输入了 {len(parts)} 个。")
    return np.array(numbers)


_ROW = re.compile(r"[\[(]([^\[\]()]*)[\])]")  # one innermost bracketed row of a nested list
_PREFIX = re.compile(r"^[^\d\s=+\-.\[(]{1,12}\s*=\s*")  # "μ = ", "answer = ", "σ² =" before the value
_QUOTES = "\"'“”‘’「」『』"


def parse_numbers(text: str) -> np.ndarray:
    """Read a typed answer: one number, a vector (as `parse_vector`) or a matrix, into a float64 array.

    A matrix is nested brackets (`[[1, 2], [3, 4]]`) or one row per line. A single number gives a 0-d array.
    Quotes around the answer, a leading "μ =" and a closing "。" are ignored. ValueError (Chinese) otherwise.
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected a str, got {type(text).__name__}")
    s = _plain(text).strip().strip(_QUOTES).strip().removesuffix("。").strip()
    s = _PREFIX.sub("", s, count=1)
    if not s:
        raise ValueError("没有找到数字。")
    inner = s[1:-1].strip() if s[:1] in "[(" and s[-1:] in "])" else ""
    if inner[:1] in ("[", "("):  # nested brackets: one row per innermost pair
        rows = _ROW.findall(inner)
        rest = _ROW.sub("", inner).replace(",", " ").replace(";", " ").strip()
        if rest:
            raise ValueError(f"“{rest[:20]}” 不在任何一行的括号里：矩阵写成 [[1, 2], [3, 4]] 这样。")
        return _rows([parse_vector(r) for r in rows])
    lines = [line for line in s.splitlines() if line.strip()]
    if len(lines) > 1:
        return _rows([parse_vector(line) for line in lines])
    values = parse_vector(s)
    bracketed = s[:1] in _PAIRS
    return values.reshape(()) if values.size == 1 and not bracketed else values


def _rows(rows: list[np.ndarray]) -> np.ndarray:
    if not rows:
        raise ValueError("没有找到数字。")
    if all(r.size == 1 for r in rows):  # one number per line is a vector
        return np.concatenate(rows)
    if len({r.size for r in rows}) != 1:
        sizes = "、".join(str(r.size) for r in rows)
        raise ValueError(f"每一行的数字个数要一样，你的各行分别有 {sizes} 个。")
    return np.stack(rows)
