"""The engine behind `lnlib.check`: what an exercise is and how one answer is judged.

An `Exercise` holds the expected value (computed, never pre-rounded), the tolerance that the rounding asked for
allows, the typical wrong answers (`Mistake`: a value computed the wrong way and the name of that mistake) and,
for choice questions, the accepted synonyms. `grade` returns a `Verdict`; it never prints and never raises on a
learner's answer. Only real numbers count as numbers: booleans, complex numbers, dates, text and objects are
refused with a reason.

One synonym table (`SYNONYMS`) serves every choice question, one rule reads every lettered one (`choice_option`: the
letter, "(b)", "b)", the option's words or "(b) words"), and one catalogue of the mistakes every numeric question can
show (`SIGN_FLIPPED`, `ORDER_REVERSED`, an answer cut off instead of rounded, `ROUNDED_EARLY`, `TOO_FEW_DECIMALS`)
serves every numeric one;
an exercise adds its own typical mistakes. "Rounded too early" is said only when the answer equals a value computed
from a rounded intermediate (`rounded_early`, which names that intermediate in the exercise's own numbers) or the
answer rounded to fewer decimals than asked. "Very close" is said only within a few units of the last decimal asked
for (`_near`), never for a conceptual error that happens to land nearby. A choice answer is echoed in 「」.
A `Verdict` carries three texts: `said`, what went wrong; `first`, that with the nudge of the first two wrong tries
(the mistake named, no worked arithmetic, never the answer); and `message`, that with the hint (the worked answer).
Numbers are written as a person writes them (`show_number`).
"""

from __future__ import annotations

import math
import numbers
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .i18n import Msg, lazy, message

HINT_AFTER = 2  # wrong tries that get only the mistake or a nudge; the worked hint comes on the next one
_SLACK = 1e-9  # relative slack on a tolerance, so that 3.684 − 3.683 = 0.0010000000000003 still counts as 1e-3


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer: `value` (or a zero-argument callable returning it; a str for a choice question) and
    what went wrong as a full sentence (it follows "your answer is …"): a message (`lazy`) or, for words an
    exercise has not moved to the catalogue yet, the Chinese text."""

    said: str | Msg
    value: object
    atol: float | None = None  # None: the exercise's own tolerance

    @property
    def why(self) -> str:
        """What went wrong, in the current language."""
        return str(self.said)

    def raw_value(self):
        return self.value() if callable(self.value) else self.value

    def wrong_value(self) -> np.ndarray:
        """The wrong answer as a float64 array (numeric questions only)."""
        return np.asarray(self.raw_value(), dtype=np.float64)


@dataclass(frozen=True)
class Exercise:
    """One checked exercise.

    expected: a number or array-like (keep it exact; `atol` carries the rounding the question asks for), or a str
        for a choice question.
    hint: the general hint, shown for any wrong answer that no `Mistake` explains.
    atol: the largest accepted absolute error per entry. For "保留三位小数" that is 0.0005 for the final rounding plus
        what rounding the inputs the question suggests does (e.g. 2 × 1.342 + 1 is off by 2 × 0.0005 more).
    mistakes: typical wrong answers, checked in order after the right one.
    synonyms: other accepted spellings of a choice answer, beyond the shared table `SYNONYMS`; case, full-width
        forms, spaces, hyphens, underscores, dots and brackets are ignored anyway.
    nudge: what a first wrong try that no mistake explains is told (a pointer to the concept, no arithmetic);
        empty: a general nudge. The hint follows from the third wrong try on (`HINT_AFTER`).
    about: for an answer that is itself a shape, what it is the shape of ("μ"), so that a wrong length is explained
        in those words.
    sign: what an answer with every sign flipped is told; empty: the plain `SIGN_FLIPPED` (exercises about x − μ
        use `SIGN_FLIPPED_CENTER`, which names the order of the subtraction).
    options: for a lettered choice question, letter → the option's words as the Chinese notebook prints them
        (first), as the English one prints them (second; the worked answer shows the current language's), and other
        spellings ("0.1"); `choice_option` reads "b", "(b)", "b)", the words of either language (or their start), or
        "(b) words".
    not_finite: what an answer cell holding nan or inf is told (a question where NaN is the tempting answer);
        empty: the reader's general "not a finite number".
    """

    expected: object
    hint: str | Msg
    atol: float = 1e-3
    mistakes: Sequence[Mistake] = field(default_factory=tuple)
    synonyms: Sequence[str] = field(default_factory=tuple)
    nudge: str | Msg = ""
    about: str = ""
    sign: str | Msg = ""
    options: Mapping[str, Sequence[str]] = field(default_factory=dict)
    not_finite: str | Msg = ""


@dataclass(frozen=True)
class Verdict:
    ok: bool
    message: str  # what went wrong and the hint (the worked answer): what `check` shows from the third wrong try on
    first: str = ""  # the text of the first two wrong tries (the mistake or a nudge); "" means the same as `message`
    mistake: str = ""  # the named mistake, if one explains the answer
    said: str = ""  # what went wrong alone (your answer, the named mistake), without nudge or hint

    def text(self, tries: int) -> str:
        """What to print on wrong try number `tries` (1 = the first): `first` on the first two tries (the hint works
        the answer out, so it waits for a third try or `lnlib.hint`), `message` from the third on."""
        return self.first if tries <= HINT_AFTER and self.first else self.message


GENERAL_NUDGE = lazy("feedback.general_nudge")
CHOICE_NUDGE = lazy("feedback.choice_nudge")
NEXT_TRY = lazy("feedback.next_try")


# ---------------------------------------------------------------- numbers as a person writes them

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def show_number(value, digits: int = 4) -> str:
    """One number as a person writes it: 5, -1.342, 0.4472, 0.00002, 2×10⁻⁷, 1.5×10⁸ — never "2.e-05" or "0."

    Up to `digits` significant digits, trailing zeros dropped; numbers the course's tables show exactly
    (`labels.number`, three decimals) are written the same way here.
    """
    from .labels import number

    v = float(value)
    if not math.isfinite(v):
        return str(v)
    if v == 0:
        return "0"
    if abs(v) >= 1e-3 and abs(v) < 1e6 and abs(round(v, 3) - v) <= 1e-12 * abs(v):
        return number(v)
    exponent = math.floor(math.log10(abs(v)))
    if -5 <= exponent < 6:
        text = f"{v:.{max(0, digits - 1 - exponent)}f}"
        text = text.rstrip("0").rstrip(".") if "." in text else text
        return "0" if text in ("-0", "") else text
    mantissa, _, power = f"{v:.{digits - 1}e}".partition("e")  # exact decimal rounding, subnormals included
    mantissa, exponent = mantissa.rstrip("0").rstrip("."), int(power)
    head = "" if mantissa == "1" else "-" if mantissa == "-1" else f"{mantissa}×"
    return f"{head}10{str(exponent).translate(_SUPERSCRIPT)}"


def show_array(value, digits: int = 4, *, edge: int = 3) -> str:
    """An array as a person writes it: [2, 3, 1], nested rows on one line each; long axes shortened with …"""
    arr = np.asarray(value)
    if arr.ndim == 0:
        return show_number(arr.item(), digits)

    def part(a: np.ndarray) -> str:
        items = list(range(a.shape[0]))
        if len(items) > 2 * edge + 1:
            items = [*items[:edge], None, *items[-edge:]]
        sub = [("…" if i is None else show_number(a[i], digits) if a.ndim == 1 else part(a[i])) for i in items]
        return "[" + ", ".join(sub) + "]"

    return part(arr)


# ---------------------------------------------------------------- the catalogue of mistakes any answer can show

SIGN_FLIPPED = lazy("feedback.sign_flipped")
SIGN_FLIPPED_CENTER = lazy("feedback.sign_flipped_center")  # for exercises about x − μ
ORDER_REVERSED = lazy("feedback.order_reversed")
ROUNDED_EARLY = lazy("feedback.rounded_early")  # the start of every "rounded too early" text (`rounded_early`)
TOO_FEW_DECIMALS = lazy("feedback.too_few_decimals")
NEAR_UNITS = 3  # "near": within this many units of the last decimal the question asks for (and 5 % of the answer)


def rounded_early(value, example: str | Msg = "") -> Mistake:
    """The mistake "rounded an intermediate too early": `value` is the answer computed from a rounded intermediate;
    `example` names that intermediate in this exercise's own numbers, e.g. "把 σ = √6.5 ≈ 2.550 写成 2.5"."""
    where = lazy("feedback.rounded_early_where", example=example) if example else ""
    return Mistake(lazy("feedback.rounded_early_why", rounded_early=ROUNDED_EARLY, where=where), value)


# ---------------------------------------------------------------- choice answers

_IGNORED = re.compile(r"[\s\-_‐‑‒–—−·•.。,，、;；:：'\"“”‘’()（）\[\]【】…⋯]+")


def normalize_choice(text: str) -> str:
    """Fold a typed choice answer: NFKC (full-width → half-width), casefold, drop spaces and punctuation."""
    return _IGNORED.sub("", unicodedata.normalize("NFKC", text).casefold())


_LETTERS = {c: (f"选{c}", f"选项{c}", f"答案{c}", f"答案是{c}", f"{c}项") for c in "abcd"}
_PRE = (
    "pre-ln",
    "pre ln",
    "preln",
    "pre-norm",
    "pre norm",
    "prenorm",
    "pre layernorm",
    "pre-layernorm",
    "前置",
    "前置ln",
    "前置归一化",
    "前置层归一化",
    "先归一化",
)
_POST = (
    "post-ln",
    "post ln",
    "postln",
    "post-norm",
    "post norm",
    "postnorm",
    "post layernorm",
    "post-layernorm",
    "后置",
    "后置ln",
    "后置归一化",
    "后置层归一化",
    "后归一化",
    "先相加",
)
_LAYER_NAMES = ("layernorm", "ln", "layer normalization", "layer norm", "层归一化", "层规范化", "层标准化")
_BATCH_NAMES = ("batchnorm", "bn", "batch normalization", "batch norm", "批归一化", "批规范化", "批标准化")
_RMS_NAMES = (
    "rms",
    "rms norm",
    "rmsnorm",
    "rms normalization",
    "root mean square layer normalization",
    "均方根归一化",
    "均方根层归一化",
)
_SAME = ("no change", "does not change", "doesn't change", "stays the same", "it stays the same", "the same")
_CHANGES = ("changes", "it changes", "will change")  # the English words of 不变 / 会变 beyond (un)changed
SYNONYMS: dict[str, tuple[str, ...]] = {
    **_LETTERS,
    "pre": _PRE,
    "pre-ln": ("pre", *_PRE),
    "post": _POST,
    "post-ln": ("post", *_POST),
    "layer": _LAYER_NAMES,
    "layernorm": ("layer", *_LAYER_NAMES),
    "batch": _BATCH_NAMES,
    "batchnorm": ("batch", *_BATCH_NAMES),
    "rmsnorm": _RMS_NAMES,
    "不变": ("不会变", "不改变", "不会改变", "不变的", "输出不变", "unchanged", "invariant", "✓", *_SAME),
    "会变": ("变", "改变", "会改变", "变了", "输出会变", "changed", "✗", *_CHANGES),
}
"""The one table of accepted spellings of a choice answer, keyed by the answer (folded by `normalize_choice`)."""


def choice_spellings(answer: str, extra=()) -> set[str]:
    """Every folded spelling that counts as `answer`: itself, the shared table's synonyms and `extra`."""
    key = normalize_choice(answer)
    table = {normalize_choice(k): v for k, v in SYNONYMS.items()}
    return {normalize_choice(s) for s in (answer, *table.get(key, ()), *extra)}


_LETTER = re.compile(r"[(\[【（]\s*([a-z])\s*[)\]】）]\s*(.*)|([a-z])(?:[)\]】）.。、:：,，]\s*|\s+|$)(.*)", re.S)
_PREFIX_MIN = 3  # an option's words may be typed shortened ("小很多" for "小很多，大约只有十分之一"), not below this


def _option_named(exercise: Exercise, words: str) -> set[str]:
    """The letters whose option `words` writes: one of its spellings, or the start of one (the printed words of
    either language's notebook, shortened)."""
    typed = normalize_choice(words)
    if not typed:
        return set()
    found = set()
    for letter, spellings in exercise.options.items():
        folded = [normalize_choice(s) for s in spellings]
        if typed in folded or (len(typed) >= _PREFIX_MIN and any(f.startswith(typed) for f in folded)):
            found.add(letter)
    return found


def choice_option(exercise: Exercise, answer: str) -> tuple[str | None, str]:
    """The letter a typed answer to a lettered choice question stands for, read by one rule for every such question:
    the letter alone ("b", "(b)", "b)", "b."), the option's words (or the start of them, or another spelling of the
    option), or both ("(b) 小很多…"). (None, "") when it names no option; (None, why) when its letter and its words
    name different options."""
    text = unicodedata.normalize("NFKC", answer).casefold().strip()
    m = _LETTER.fullmatch(text)
    letter, rest = (m.group(1) or m.group(3), m.group(2) if m.group(1) else m.group(4)) if m else (None, text)
    if letter is not None and letter not in exercise.options:
        letter, rest = None, text  # "batch": a word, not the letter b
    named = _option_named(exercise, rest)
    if letter is not None and not named:  # "b 和 c": another letter among the words
        named = {c for c in re.findall(r"(?<![a-z])([a-z])(?![a-z])", rest) if c in exercise.options}
    if letter is None:
        return (named.pop(), "") if len(named) == 1 else (None, "")
    if named and letter not in named:
        return None, message("feedback.choice_mixed", letter=letter, other=sorted(named)[0])
    return letter, ""


def _grade_choice(exercise: Exercise, answer) -> Verdict:
    if not isinstance(answer, str):
        return Verdict(False, message("feedback.choice_not_text", given=_show(answer)))
    typed = normalize_choice(answer)
    words = " ".join(answer.split())
    shown = message("feedback.your_choice", words=words if len(words) <= 40 else words[:39] + "…")
    nudge: str | Msg = CHOICE_NUDGE
    if exercise.options:
        letter, mixed = choice_option(exercise, answer)
        if mixed:  # not an answer to judge yet: no nudge, no hint, no escalation
            return Verdict(False, _then(shown, mixed))
        if letter is not None:
            typed = letter
        else:
            letters = message("input.list_separator").join(sorted(exercise.options))
            nudge = message("feedback.choice_unknown_option", letters=letters)
    if typed in choice_spellings(exercise.expected, exercise.synonyms):
        return Verdict(True, "")
    for mistake in exercise.mistakes:
        if typed in choice_spellings(str(mistake.raw_value())):
            why = mistake.why
            said = _then(shown, why)
            return Verdict(False, f"{said}\n  {_hint(exercise.hint)}", said, why, said)
    first = f"{shown}\n  {_hint(nudge if exercise.options else exercise.nudge or nudge)}"
    return Verdict(False, f"{shown}\n  {_hint(exercise.hint)}", first, said=shown)


def _hint(text) -> str:
    return message("feedback.hint", hint=text)


def _then(first: str, second: str) -> str:
    """Two sentences one after the other (Chinese runs them together, English puts a space between)."""
    return message("feedback.then", first=first, second=second)


def _nudge(exercise: Exercise, general: Msg = GENERAL_NUDGE) -> str:
    return str(exercise.nudge or general)


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
        return None, message("feedback.too_large")
    except (TypeError, ValueError):
        return None, message("feedback.not_a_list", given=_show(answer))
    if not np.all(np.isfinite(arr)):
        return None, message("feedback.not_finite", values=show_array(arr))
    return arr, ""


def _not_real(value, depth: int = 0) -> str:
    """'' when `value` is a real number or a nested list/tuple/array of them; else the reason."""
    if depth > 8:
        return message("feedback.too_deep")
    if isinstance(value, bool | np.bool_):
        return message("feedback.boolean", value=value)
    if isinstance(value, str | bytes):
        return message("feedback.text", given=f"{value!r:.40}")
    if isinstance(value, np.ndarray | np.generic):
        kind = value.dtype.kind
        if kind in "iuf":
            return ""
        if kind == "O" and isinstance(value, np.ndarray):
            return next((w for w in map(lambda v: _not_real(v, depth + 1), value.ravel().tolist()) if w), "")
        return _kind_reason(kind, value)
    if isinstance(value, complex | numbers.Complex) and not isinstance(value, numbers.Real):
        return message("feedback.complex", value=value)
    if isinstance(value, numbers.Real):
        return ""
    if isinstance(value, list | tuple):
        return next((w for w in (_not_real(v, depth + 1) for v in value) if w), "")
    if hasattr(value, "__array__"):  # e.g. a torch tensor or a pandas Series
        try:
            return _not_real(np.asarray(value), depth + 1)
        except Exception:  # noqa: BLE001 - anything a foreign object raises means "not a number we can read"
            return message("feedback.unreadable", given=_show(value))
    return message("feedback.not_number", given=_show(value))


def _kind_reason(kind: str, value) -> str:
    given = _show(value)
    said = {
        "b": lambda: message("feedback.kind_bool"),
        "c": lambda: message("feedback.kind_complex"),
        "M": lambda: message("feedback.kind_datetime", given=given),
        "m": lambda: message("feedback.kind_timedelta", given=given),
        "U": lambda: message("feedback.text", given=given),
        "S": lambda: message("feedback.kind_bytes", given=given),
    }.get(kind, lambda: message("feedback.not_number", given=given))
    return said()


_ADDRESS = re.compile(r"\s+at\s+0x[0-9a-fA-F]+|\s*0x[0-9a-fA-F]{6,}")


def _show(value) -> str:
    """A short description of an answer that is not a number; never a memory address."""
    import inspect

    if inspect.isgenerator(value) or inspect.isasyncgen(value):
        return message("feedback.show_generator")
    if isinstance(value, memoryview):
        return message("feedback.show_memoryview")
    if callable(value) and not isinstance(value, type):
        name = getattr(value, "__name__", "")
        return message("feedback.show_function", name=name) if name else message("feedback.show_function_unnamed")
    try:
        text = _ADDRESS.sub("", repr(value))
    except Exception:  # noqa: BLE001 - a foreign object's repr may raise
        text = message("feedback.show_object", type=type(value).__name__)
    return text if len(text) <= 60 else text[:57] + "…"


def _close(got: np.ndarray, want: np.ndarray, atol: float) -> bool:
    return got.shape == want.shape and bool(np.all(np.abs(got - want) <= atol * (1 + _SLACK) + _SLACK * np.abs(want)))


def _typed_half_unit(got: np.ndarray) -> np.ndarray:
    """Half a unit of the last decimal each entry was written with, where the entry carries at least one decimal and
    three significant digits (6.67, 66.67, 666.7); 0 elsewhere (7, 0.5). A learner's precision, not the question's."""
    out = np.zeros(got.shape)
    for index, v in np.ndenumerate(got):
        text = repr(float(v))
        if "e" in text or "." not in text or not math.isfinite(v):
            continue
        whole, decimals = text.lstrip("-").split(".")
        digits = (whole + decimals).lstrip("0")
        if decimals != "0" and len(digits) >= 3:
            out[index] = 0.5 * 10.0 ** -len(decimals)
    return out


def _close_as_typed(got: np.ndarray, wrong: np.ndarray, atol: float, typed: np.ndarray) -> bool:
    """A typical wrong value written at the learner's own precision (6.67 for 20 / 3 = 6.666…)."""
    if got.shape != wrong.shape or not np.any(typed):
        return False
    return bool(np.all(np.abs(got - wrong) <= np.maximum(atol, typed) * (1 + _SLACK) + _SLACK * np.abs(wrong)))


def _shape_text(exercise: Exercise, got: np.ndarray, want: np.ndarray, first: bool = False) -> str:
    """What is wrong with the answer's shape; `first`: for the first two tries, which do not say how many numbers."""
    if exercise.about and want.ndim == 1 and got.ndim <= 1:
        n, m = want.size, got.size
        if first:
            return message("feedback.shape_about_first", count=m, about=exercise.about, m=m)
        return message("feedback.shape_about", count=n, about=exercise.about, n=n, m=m)
    if got.ndim != want.ndim:
        return message("feedback.shape_ndim", want=_dims(want), got=_dims(got))
    return message("feedback.shape_size", count=want.size, want=want.size, got=got.size)


def _dims(arr: np.ndarray) -> str:
    return message(
        "feedback.dims_scalar" if arr.ndim == 0 else "feedback.dims_list" if arr.ndim == 1 else "feedback.dims_table"
    )


def _decimals_asked(atol: float) -> int:
    """The decimals a tolerance stands for: 3 for ±0.0005 ("保留三位小数") and for ±0.001."""
    return max(0, math.ceil(-math.log10(2 * atol)))


def _rounded_finals(want: np.ndarray, atol: float) -> list[np.ndarray]:
    """The answer rounded to fewer decimals than the tolerance asks for (1 and 2 decimals for "三位小数")."""
    if atol <= 0:
        return []
    asked = _decimals_asked(atol)
    return [np.round(want, k) for k in range(max(0, asked - 2), asked)]


def _truncated(want: np.ndarray, atol: float) -> list[np.ndarray]:
    """The answer cut off instead of rounded, at the decimals asked for and one or two fewer (2.23 or 2.2 for √5 =
    2.2360… asked to three decimals, where rounding gives 2.236, 2.24, 2.2): `_grade_number` names it only where
    cutting and rounding differ."""
    if atol <= 0:
        return []
    asked = _decimals_asked(atol)
    cuts = [(k, np.trunc(want * 10.0**k) / 10.0**k) for k in range(max(0, asked - 2), asked + 1)]
    return [cut for k, cut in cuts if not _close(cut, np.round(want, k), 0)]


def _near(got: np.ndarray, want: np.ndarray, atol: float) -> bool:
    """Off by a slip in the last digits: within `NEAR_UNITS` units of the last decimal the question asks for beyond
    the tolerance, and within 5 % of the answer's size. A conceptual error (0.4 for 1/3 asked to two decimals) is
    further away than that; questions that ask for an exact answer (atol = 0) have no near miss."""
    if atol <= 0:
        return False
    unit = 10.0 ** -math.ceil(-math.log10(2 * atol))  # 0.001 for "三位小数" (atol 5e-4 or 1e-3), 0.01 for atol 0.01
    off = np.abs(got - want)
    return bool(np.all(off <= atol + NEAR_UNITS * unit) and np.all(off <= 0.05 * np.abs(want) + atol))


def _grade_number(exercise: Exercise, answer) -> Verdict:
    got, why = real_array(answer)
    if got is None:
        return Verdict(False, why)
    want = np.asarray(exercise.expected, dtype=np.float64)
    shown = message("feedback.your_answer", values=show_array(got, 6))  # 0.999998, not 1
    if got.shape != want.shape and got.size == want.size == 1:
        got = got.reshape(want.shape)  # [5] for 5
    if _close(got, want, exercise.atol):
        return Verdict(True, "")

    def named(why) -> Verdict:
        text = str(why)
        said = _then(shown, text)
        return Verdict(False, f"{said}\n  {_hint(exercise.hint)}", said, text, said)

    for mistake in exercise.mistakes:
        wrong = mistake.wrong_value()
        atol = exercise.atol if mistake.atol is None else mistake.atol
        mine = got.reshape(wrong.shape) if got.size == wrong.size == 1 else got  # 3 for (3,)
        if _close(mine, wrong, atol) or _close_as_typed(mine, wrong, atol, _typed_half_unit(mine)):
            return named(mistake.why)
    if got.shape != want.shape:
        text = _shape_text(exercise, got, want)
        first = _shape_text(exercise, got, want, first=True)
        return Verdict(False, f"{text}\n  {_hint(exercise.hint)}", f"{first}\n  {_hint(_nudge(exercise))}", said=first)
    if np.any(want != 0) and _close(got, -want, exercise.atol):
        return named(exercise.sign or SIGN_FLIPPED)
    if want.ndim == 1 and want.size > 1 and not _close(want, want[::-1], 0) and _close(got, want[::-1], exercise.atol):
        return named(ORDER_REVERSED)
    if any(_close(got, t, 0) and not _close(t, want, exercise.atol) for t in _truncated(want, exercise.atol)):
        return named(message("feedback.truncated"))
    if any(_close(got, r, 0) and not _close(r, want, exercise.atol) for r in _rounded_finals(want, exercise.atol)):
        return named(TOO_FEW_DECIMALS)
    if _near(got, want, exercise.atol):
        text = message("feedback.near", atol=show_number(exercise.atol))
        said = _then(shown, text)
        return Verdict(False, f"{said}\n  {_hint(exercise.hint)}", said, said=said)
    return Verdict(False, f"{shown}\n  {_hint(exercise.hint)}", f"{shown}\n  {_hint(_nudge(exercise))}", said=shown)


def grade(exercise: Exercise, answer) -> Verdict:
    """Judge one answer: ✓, or ✗ with the reason (a named mistake, a wrong type or shape, or the general hint)."""
    if answer is None:
        return Verdict(False, message("feedback.unanswered"))
    if isinstance(exercise.expected, str):
        return _grade_choice(exercise, answer)
    return _grade_number(exercise, answer)


# ---------------------------------------------------------------- typical mistakes of one row


def row_mistakes(matrix, row: int, what: str, *, eps: float = 0.0, first: tuple = ()) -> tuple[Mistake, ...]:
    """The typical wrong answers for a statistic of `matrix[row]`, each computed the wrong way with lnlib.

    what: "mean", "variance", "std" or "xhat" (x̂ with `eps`). Covers ÷(d − 1), a forgotten square root, ε outside
    the root, σ given for σ² (and σ² for σ), forgetting to subtract μ or to divide by d, another row of the table, the
    wrong axis (the columns or the whole table) and σ rounded too early (to one or two decimals). `first`: the
    exercise's own mistakes, checked before these. Mistakes that coincide with the right answer or an earlier
    mistake are dropped (the mean of the whole table can equal a row's sum).
    """
    from .norms import batch_norm, layer_norm
    from .stages import center, mean, std, variance

    m = np.asarray(matrix, dtype=np.float64)
    x = m[row]
    d = x.size
    var, sd, c = float(variance(x)), float(std(x)), center(x)
    table_mu, table_var = float(m.mean()), float(((m - m.mean()) ** 2).mean())
    col_mu = m.mean(axis=0)
    names = _row_names(m)
    other = [(r, names[r]) for r in range(m.shape[0]) if r != row]
    if what not in ("mean", "variance", "std", "xhat"):
        raise ValueError(f"what: expected 'mean', 'variance', 'std' or 'xhat', got {what!r}")
    wanted: dict[str, list[tuple[str | Msg, Callable[[], object]]]] = {
        "mean": [
            (lazy("feedback.row.mean_sum"), lambda: float(x.sum())),
            (lazy("feedback.row.mean_d_minus_1"), lambda: float(x.sum()) / (d - 1)),
            (lazy("feedback.row.mean_columns"), lambda: col_mu),
            (lazy("feedback.row.mean_table"), lambda: table_mu),
        ],
        "variance": [
            (lazy("feedback.row.var_unbiased"), lambda: var * d / (d - 1)),
            (lazy("feedback.row.var_gave_std"), lambda: sd),
            (lazy("feedback.row.var_no_center"), lambda: float((x**2).mean())),
            (lazy("feedback.row.var_sum"), lambda: var * d),
            (lazy("feedback.row.var_abs"), lambda: float(np.abs(c).mean())),
            (lazy("feedback.row.var_table"), lambda: table_var),
        ],
        "std": [
            (lazy("feedback.row.std_no_root"), lambda: var),
            (lazy("feedback.row.std_unbiased"), lambda: np.sqrt(var * d / (d - 1))),
            (TOO_FEW_DECIMALS, lambda: round(sd, 1)),
        ],
        "xhat": [
            (lazy("feedback.row.xhat_unbiased"), lambda: c / np.sqrt(var * d / (d - 1) + eps)),
            (lazy("feedback.row.xhat_no_root"), lambda: c / (var + eps)),
            (lazy("feedback.row.xhat_eps_outside"), lambda: c / (sd + eps)),
            (lazy("feedback.row.xhat_no_divide"), lambda: c),
            (lazy("feedback.row.xhat_no_center"), lambda: x / np.sqrt(var + eps)),
            (lazy("feedback.row.xhat_columns"), lambda: batch_norm(m, eps=eps)[row]),
            (lazy("feedback.row.xhat_table"), lambda: layer_norm(m, eps=eps, axis=(0, 1))[row]),
            (_early_sigma(var + eps, 1), lambda: c / round(float(np.sqrt(var + eps)), 1)),
            (_early_sigma(var + eps, 2), lambda: c / round(float(np.sqrt(var + eps)), 2)),
        ],
    }
    for i, label in other:  # the same statistic of another row: copied from the wrong row
        sibling = m[i]
        value = {
            "mean": lambda s=sibling: float(mean(s)),
            "variance": lambda s=sibling: float(variance(s)),
            "std": lambda s=sibling: float(std(s)),
            "xhat": lambda s=sibling: (s - mean(s)) / np.sqrt(variance(s) + eps),
        }[what]
        sign: str | Msg = ""
        if what == "xhat" and _close(np.asarray(value()), -(c / np.sqrt(var + eps)), 1e-9):
            sign = lazy("feedback.other_row_sign", row=names[row])
        stat = {
            "mean": lazy("feedback.stat_mean"),
            "variance": lazy("feedback.stat_variance"),
            "std": lazy("feedback.stat_std"),
            "xhat": lazy("feedback.stat_xhat"),
        }[what]
        text = lazy("feedback.other_row", label=label, stat=stat, row=names[row], values=_row_text(x), sign=sign)
        wanted[what].insert(0, (text, value))
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


def _early_sigma(var: float, decimals: int) -> str | Msg:
    """The rounded-too-early text for σ = √var rounded to `decimals` decimals, in this row's own numbers."""
    sd = math.sqrt(var)
    example = lazy(
        "feedback.early_sigma", var=show_number(var), sd=f"{sd:.3f}", rounded=show_number(round(sd, decimals))
    )
    return rounded_early(0, example).said


def _row_names(m: np.ndarray) -> list[str | Msg]:
    from .data import TOKEN_MATRIX, TOKENS

    if m.shape == TOKEN_MATRIX.shape and np.array_equal(m, TOKEN_MATRIX):
        return list(TOKENS)
    return [lazy("feedback.row_number", n=r + 1) for r in range(m.shape[0])]


def _row_text(x: np.ndarray) -> str:
    return show_array(x)
