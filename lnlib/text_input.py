"""The one reader of what a learner types: a vector in an explorer's text box, an answer in an `%%answer` cell.

Accepts what people write — `2, 4, 6, 8`, `2 4 6 8`, `2，4，6，8`, `2、4、6、8`, `[２, ４]`, `(2,)`, and numbers
written as the course writes them: a fraction `1/3`, `2×10⁻⁴` (or `2*10^-4`, `2e-4`), a percentage `33%` (`33 ％`:
0.33), a product of plain numbers `7×7` (or `7*7`), a square root `√5`, `2√5` (2·√5), `-√5`, `3/√5`, `√2/2` — and
never evaluates the text. A number is read with the usual precedence only where no reader could doubt it: `√` takes
the one number right after it and binds tighter than `/` (`√2/2` is (√2)/2, as `√2 / 2` is written in print; the
root of a fraction needs its own brackets, which a typed answer does not take), `/` ends a product (`2×3/4`), a `%`
follows a plain number. Forms two readers could read two ways are refused with a message naming both readings:
`6/2×3`, `1/2√5`, `2 √5` (2√5, or the two numbers 2 and √5?), `2×103` (2×10³ whose raise was lost?), and `x` as a
times sign (`7x7`, maybe a shape; `2x10^-4` is still a power of ten). `parse_shape` reads the answer to "what shape?"
as the course writes a shape: `2 × 3`, `2×3`, `(2, 3)`, `[2, 3]`, `2, 3` are all the shape (2, 3).
Anything else is a ValueError with a short message (domain `input` of the catalogues) saying what to change.
Introduced in notebook 03 (the VectorExplorer); `lnlib.answers` reads every exercise answer with it.
"""

from __future__ import annotations

import math
import re
import unicodedata

import numpy as np

from .i18n import lazy, message

__all__ = ["MAX_VALUES", "parse_numbers", "parse_shape", "parse_vector"]

MAX_VALUES = 64
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # ASCII digits only
# Full-width ＡＳＣＩＩ forms (２，４．５) and the ideographic space become ASCII; nothing else is "normalized", so
# look-alikes such as ² (superscript), ½ or other scripts' digits are rejected instead of silently misread.
_FULLWIDTH = {0xFF01 + i: 0x21 + i for i in range(0x5E)} | {0x3000: " ", ord("、"): ",", ord("−"): "-"}
_PAIRS = {"[": "]", "(": ")", "{": "}"}
_FRACTION = re.compile(rf"({_NUMBER.pattern})/((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))")  # 1/3, -0.5/2
_POWER = re.compile(rf"(?:({_NUMBER.pattern})[×xX*])?10(?:(?:\^|\*\*)([+-]?[0-9]+)|([⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))")
_SUPER = str.maketrans("⁺⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "+-0123456789")
_UNSIGNED = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_PERCENT = re.compile(rf"({_NUMBER.pattern})%")  # 33%, 12.5%
_FACTOR = re.compile(rf"([+-]?)({_UNSIGNED})?(?:√({_UNSIGNED}))?")  # 7, -2.5, √5, 2√5, -√5 (one of the two at least)
_TIMES = re.compile(r"[×*]")
_SQRT_CALL = re.compile(r"((?:np\.|numpy\.|math\.)?sqrt)\s*\(([^()]*)\)", re.IGNORECASE)  # sqrt(5), np.sqrt(5)


TOO_BIG = lazy("input.too_big")
TOO_SMALL = lazy("input.too_small")
_MAX_EXPONENT_DIGITS = 6  # 10^999999 is far outside float64 either way; longer exponents are not read as ints


def _value(p: str) -> float | None:
    """One typed number: plain (2, -1.5, 2e-4), a fraction (1/3), a power of ten (2×10⁻⁴, 2*10^-4), a percentage (33%)
    or a product of plain numbers and square roots (`_expression`: 7×7, 2√5, 3/√5); else None. A number beyond
    float64 is a ValueError, too large or too small alike (a nonzero number never becomes 0)."""
    if _NUMBER.fullmatch(p):
        return _finite(float(p), p.lower().partition("e")[0])
    if m := _FRACTION.fullmatch(p):
        if float(m.group(2)) == 0:
            raise ValueError(message("input.zero_denominator", text=p[:20]))
        return _finite(float(m.group(1)) / float(m.group(2)), m.group(1).lower().partition("e")[0])
    if m := _POWER.fullmatch(p):
        head = m.group(1) or "1"
        exponent = (m.group(2) or m.group(3).translate(_SUPER)).lstrip("+")
        if len(exponent.lstrip("-").lstrip("0")) > _MAX_EXPONENT_DIGITS:
            _finite(0.0 if exponent.startswith("-") else float("inf"), head.lower().partition("e")[0])
        return _finite(_shifted(head, int(exponent)), head.lower().partition("e")[0])  # exact decimal rounding
    if m := _PERCENT.fullmatch(p):
        return _finite(_shifted(m.group(1), -2), m.group(1).lower().partition("e")[0])  # 33% is the decimal 0.33
    return _expression(p)


def _shifted(number: str, exponent: int) -> float:
    """`number` × 10^`exponent`, rounded once as the decimal it writes ("2e3", 4 → 2e7; "33", −2 → 0.33)."""
    digits, _, own = number.lower().partition("e")
    return float(f"{digits}e{int(own or 0) + exponent}")


def _expression(p: str) -> float | None:
    """A product of plain numbers and square roots, over at most one plain or √ denominator: 7×7, 2√5, 3/√5, 2×3/4.
    A form that reads two ways raises a ValueError naming both readings; anything else is None (not a number)."""
    if "%" in p:
        raise ValueError(message("input.percent_place", text=p[:20]))
    if re.fullmatch(rf"[+-]?{_UNSIGNED}[xX]{_UNSIGNED}", p):
        raise ValueError(message("input.x_as_times", text=p[:20]))
    if m := re.search(r"[×*]10(-?[1-9][0-9]*)(?=[×*/]|$)", p):  # 2×103, 2×10-4: 10³, 10⁻⁴ with the raise lost?
        e = m.group(1)
        raise ValueError(message("input.lost_power", text=p[:20], e=e))
    if re.search(r"√[+-]", p):
        raise ValueError(message("input.negative_root", text=p[:20]))
    top, slash, bottom = p.partition("/")
    if not (any(c in p for c in "×*√") and top):  # a plain number or fraction was read before; this is not one
        return None
    if "/" in bottom or _TIMES.search(bottom):
        raise ValueError(message("input.order_of_operations", text=p[:20]))
    factors = _TIMES.split(top)
    if slash and "√" in bottom.lstrip("√"):  # 1/2√5: ÷ 2 then × √5, or ÷ 2√5?
        raise ValueError(message("input.root_denominator", text=p[:20], bottom=bottom[:10], head=bottom.split("√")[0]))
    values = [_factor(f) for f in factors]
    if slash:
        if bottom[:1] in "+-":
            return None  # as for a fraction: the denominator is written without a sign
        denominator = _factor(bottom)
        if denominator == 0:
            raise ValueError(message("input.zero_denominator", text=p[:20]))
        values.append(None if denominator is None else 1 / denominator)
    if any(v is None for v in values):
        return None
    return _finite(math.prod(values), "0" if 0 in values else "1")


def _factor(text: str) -> float | None:
    """One factor: a plain number (7, -2.5) or a square root with its coefficient (√5, 2√5, -√5); else None."""
    m = _FACTOR.fullmatch(text)
    if not m or (m.group(2) is None and m.group(3) is None):
        return None
    value = _finite(float(m.group(2)), m.group(2).lower().partition("e")[0]) if m.group(2) else 1.0
    if m.group(3) is not None:
        value *= math.sqrt(_finite(float(m.group(3)), m.group(3).lower().partition("e")[0]))
    return -value if m.group(1) == "-" else value


def _finite(value: float, digits: str) -> float:
    """`value`, or a ValueError when it overflowed to inf or a nonzero number (its `digits`) underflowed to 0."""
    if not np.isfinite(value):
        raise ValueError(str(TOO_BIG))
    if value == 0 and float(digits) != 0:
        raise ValueError(str(TOO_SMALL))
    return value


def _plain(text: str) -> str:
    """Full-width forms as ASCII, invisible format characters (zero-width space, BOM, soft hyphen: Unicode Cf) gone."""
    text = text.translate(_FULLWIDTH)
    return "".join(c for c in text if unicodedata.category(c) != "Cf") if not text.isascii() else text


def parse_vector(text: str) -> np.ndarray:
    """Read a typed vector such as "2, 4, 6, 8", "2 4 6 8", "2，4，6，8" or "[２, ４]" into a float64 array.

    Raises ValueError with a short message for anything else. Never evaluates the text.
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected a str, got {type(text).__name__}")
    s = _plain(text).strip()
    if s[:1] in _PAIRS:
        if not s.endswith(_PAIRS[s[0]]):
            raise ValueError(message("input.unpaired_brackets"))
        s = s[1:-1].strip()
    if m := _SQRT_CALL.search(s):  # "sqrt(5)": code, not a number
        root = _value(m.group(2).strip())
        if root is not None and root >= 0:
            decimal = f"{math.sqrt(root):.3f}".rstrip("0").rstrip(".")
            raise ValueError(
                message("input.sqrt_call", text=m.group(0)[:20], root=f"√{m.group(2).strip()}", decimal=decimal)
            )
    if any(c in s for c in "[](){}"):
        raise ValueError(message("input.extra_brackets"))
    s = re.sub(r"\s*,\s*", ",", s.replace(";", ","))
    s = re.sub(r"\s*([×*/^])\s*", r"\1", s)  # "2 × 10⁻⁴" and "1 / 3" are one number each
    s = re.sub(r"√\s+", "√", re.sub(r"\s+%", "%", s))  # "√ 5" and "33 %" too
    if m := re.search(rf"(?:^|[,\s])({_NUMBER.pattern})\s+(√[^,\s]*)", s):  # "2 √5": 2√5, or 2 and √5?
        a, b = m.group(1)[:10], m.group(2)[:10]
        raise ValueError(message("input.space_before_root", a=a, b=b))
    if ",," in s:
        raise ValueError(message("input.double_comma"))
    s = s.removesuffix(",")  # one trailing comma while typing is fine
    if not s:
        raise ValueError(message("input.empty_vector"))
    if s.startswith(","):
        raise ValueError(message("input.leading_comma"))
    parts = [p for p in re.split(r"[,\s]+", s) if p]
    numbers = []
    for p in parts:
        if p.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise ValueError(message("input.not_finite"))
        value = _value(p)
        if value is None:
            raise ValueError(message("input.not_a_number", text=p[:20]))
        numbers.append(value)
    if len(parts) > MAX_VALUES:
        raise ValueError(message("input.too_many", limit=MAX_VALUES, given=len(parts)))
    return np.array(numbers)


_ROW = re.compile(r"[\[(]([^\[\]()]*)[\])]")  # one innermost bracketed row of a nested list
_PREFIX = re.compile(r"^[^\d\s=+\-.\[(]{1,12}\s*=\s*")  # "μ = ", "answer = ", "σ² =" before the value
_QUOTES = "\"'“”‘’「」『』"


def parse_numbers(text: str) -> np.ndarray:
    """Read a typed answer: one number, a vector (as `parse_vector`) or a matrix, into a float64 array.

    A matrix is nested brackets (`[[1, 2], [3, 4]]`) or one row per line. A single number gives a 0-d array.
    Quotes around the answer, a leading "μ =" and a closing "。" are ignored. ValueError (a message) otherwise.
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected a str, got {type(text).__name__}")
    s = _plain(text).strip().strip(_QUOTES).strip().removesuffix("。").strip()
    s = _PREFIX.sub("", s, count=1)
    if not s:
        raise ValueError(message("input.no_numbers"))
    inner = s[1:-1].strip() if s[:1] in "[(" and s[-1:] in "])" else ""
    if inner[:1] in ("[", "("):  # nested brackets: one row per innermost pair
        rows = _ROW.findall(inner)
        rest = _ROW.sub("", inner).replace(",", " ").replace(";", " ").strip()
        if rest:
            raise ValueError(message("input.outside_rows", text=rest[:20]))
        return _rows([parse_vector(r) for r in rows])
    lines = [line for line in s.splitlines() if line.strip()]
    if len(lines) > 1:
        return _rows([parse_vector(line) for line in lines])
    values = parse_vector(s)
    bracketed = s[:1] in _PAIRS
    return values.reshape(()) if values.size == 1 and not bracketed else values


def _rows(rows: list[np.ndarray]) -> np.ndarray:
    if not rows:
        raise ValueError(message("input.no_numbers"))
    if all(r.size == 1 for r in rows):  # one number per line is a vector
        return np.concatenate(rows)
    if len({r.size for r in rows}) != 1:
        sizes = message("input.list_separator").join(str(r.size) for r in rows)
        raise ValueError(message("input.row_sizes", sizes=sizes))
    return np.stack(rows)


_SHAPE_TIMES = re.compile(r"(?<=[0-9])\s*[×xX*]\s*(?=[0-9])")


def parse_shape(text: str) -> np.ndarray:
    """Read a typed shape: `2 × 3`, `2×3`, `2x3`, `(2, 3)`, `[2, 3]` or `2, 3` all give [2, 3]; one number `6` gives
    a 0-d array (a count, not a shape: the grader names that mistake). ValueError (a message) otherwise."""
    if not isinstance(text, str):
        raise TypeError(f"text: expected a str, got {type(text).__name__}")
    s = _plain(text).strip()
    if _SHAPE_TIMES.search(s):
        return parse_vector(_SHAPE_TIMES.sub(",", s))
    return parse_numbers(text)
