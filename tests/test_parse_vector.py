"""Typed vectors: what `parse_vector` accepts and refuses, that it never evaluates text, and that every explorer
with a text box shows the Chinese message inside the widget and keeps its last valid table (headless)."""

from __future__ import annotations

import ast
import html
import inspect
import math
import re
import warnings

import ipywidgets
import numpy as np
import pytest
from helpers import strict_warnings

from lnlib import widgets
from lnlib.widgets import parse_vector

GOOD = [
    ("2, 4, 6, 8", [2, 4, 6, 8]),
    ("2 4 6 8", [2, 4, 6, 8]),
    ("2，4，6，8", [2, 4, 6, 8]),  # Chinese commas
    ("２，４，６，８", [2, 4, 6, 8]),  # full-width digits and commas
    ("２ ４　６", [2, 4, 6]),  # ideographic space
    ("2、4、6", [2, 4, 6]),
    ("1；2；3", [1, 2, 3]),
    ("1; 2; 3", [1, 2, 3]),
    ("  1,2 ,  3 ", [1, 2, 3]),
    ("1\t2\n3", [1, 2, 3]),
    ("-1, +2, −3", [-1, 2, -3]),  # U+2212 minus sign, as Word and PDFs write it
    ("0.5, .5, 5., -0.25", [0.5, 0.5, 5.0, -0.25]),
    ("1e3, 2E-2, -3e+1, 1.5e0", [1000, 0.02, -30, 1.5]),
    ("１．５, －２", [1.5, -2]),
    ("[1, 2, 3]", [1, 2, 3]),
    ("(1 2 3)", [1, 2, 3]),
    ("［１，２］", [1, 2]),
    ("1, 2, 3,", [1, 2, 3]),  # one trailing comma while typing
    ("7", [7]),
    ("1.7976931348623157e308, -1e-300", [1.7976931348623157e308, -1e-300]),
]

BAD = [
    "",
    "   ",
    ",",
    ";",
    "[]",
    "()",
    "a",
    "1, a",
    "x = 1",
    "一, 二",
    "1, 2, three",
    "nan",
    "1, NaN",
    "inf",
    "-inf",
    "1, Infinity",
    "1e400",
    "-1e400",
    "1, 2e999",
    "1,,2",
    "1, ,2",
    "1 ,, 2",
    ",1,2",
    "1,2,,",
    "1;;2",
    "[1, 2",
    "1, 2]",
    "[1, 2)",
    "((1, 2))",
    "[[1, 2]]",
    "{1, 2",
    "__import__('os')",
    "__import__('os').system('ls')",
    "1+1",
    "[1]*3",
    "2x3",  # x as a times sign: a shape? 2×3 and 2*3 are read (issue 40), 2x10^-4 is a power of ten
    "2**8",
    "1-1",
    "lambda: 1",
    "os.system('ls')",
    "eval('1')",
    "exec('x=1')",
    "True",
    "None",
    "0x10",
    "0b101",
    "1_000",
    "1j",
    "1..2",
    "1.2.3",
    "--1",
    "+",
    "-",
    ".",
    "e5",
    "1e",
    "1 e 5",
    "2²",
    "½",
    "٣",
    "𝟏, 𝟐",
    "'1'",
    "1#2",
    "1:2",
    " ".join(["1"] * (widgets.MAX_VALUES + 1)),
]
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize(("text", "expected"), GOOD, ids=[g[0] for g in GOOD])
def test_accepts(text, expected):
    got = parse_vector(text)
    assert got.dtype == np.float64 and got.ndim == 1
    np.testing.assert_array_equal(got, np.array(expected, dtype=np.float64))


@pytest.mark.parametrize("text", BAD, ids=[repr(b)[:30] for b in BAD])
def test_rejects_with_a_short_chinese_message(text):
    with pytest.raises(ValueError) as info:
        parse_vector(text)
    message = str(info.value)
    assert CJK.search(message), message
    assert len(message) <= 80 and "\n" not in message and "Traceback" not in message


@pytest.mark.parametrize("value", [None, 12, 1.5, b"1, 2", ["1", "2"]], ids=repr)
def test_non_text_is_a_type_error_naming_text(value):
    with pytest.raises(TypeError, match="text"):
        parse_vector(value)


def test_never_evaluates_text():
    """No eval/exec/compile/literal_eval/__import__ anywhere in lnlib/widgets.py (read with ast)."""
    tree = ast.parse(inspect.getsource(widgets))
    builtins = {"eval", "exec", "compile", "__import__", "getattr"}  # called by bare name
    methods = {"eval", "exec", "literal_eval", "parse_expr", "sympify"}  # re.compile is fine, ast.literal_eval is not
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            bad = (isinstance(func, ast.Name) and func.id in builtins) or (
                isinstance(func, ast.Attribute) and func.attr in methods
            )
            assert not bad, f"widgets.py line {node.lineno} calls {ast.unparse(func)}"
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            assert not {"ast", "builtins", "code", "codeop"} & set(modules), f"line {node.lineno} imports {modules}"


def test_the_never_eval_check_can_fail():
    source = "import ast\ndef parse(t):\n    return ast.literal_eval(t)\n"
    calls = [ast.unparse(n.func) for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)]
    assert calls == ["ast.literal_eval"]


# --- every explorer with a text box ------------------------------------------------------------------------------


def _all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


def _text_boxes(explorer):
    return [w for w in _walk(explorer.box) if isinstance(w, ipywidgets.Text)]


def _views(explorer):
    """The rendered outputs: HTML (tables, messages) and images (plots), by identity."""
    return [w for w in _walk(explorer.box) if isinstance(w, ipywidgets.HTML | ipywidgets.Image)]


def _state(explorer):
    return [w.value for w in _views(explorer)]


EXPLORERS = sorted(
    (
        cls
        for cls in set(_all_subclasses(widgets.Explorer))
        if getattr(widgets, cls.__name__, None) is cls and "__init__" in cls.__dict__
    ),  # concrete explorers only, as lnlib.widgets offers them
    key=lambda c: c.__name__,
)


def _text_explorers():
    out = []
    for cls in EXPLORERS:
        try:
            sig = inspect.signature(cls)
        except (TypeError, ValueError):
            continue
        if all(
            p.default is not inspect.Parameter.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            for p in sig.parameters.values()
        ):
            typed = issubclass(cls, widgets.TypedVectorExplorer)
            if typed or re.search(r"(?<![A-Za-z_])Text\(", inspect.getsource(cls)):  # Text(, not Textarea(
                out.append(cls)
    return out


TEXT_EXPLORERS = _text_explorers()
WIDGET_BAD = ["", "1, a", "nan", "1e400", "1,,2", "[1, 2", "__import__('os')", "1+1", "[1]*3", ",", "２²", "1;;2"]
WIDGET_GOOD = [
    "1, 2, 3",
    "1e30, -1e30, 0",
    "1e-30, 2e-30, 4e-30",
    "5e-324, 0, 1e-323",
    "3, 3, 3, 3",
    "7",
    "２，４，６，８",
    "1e6, 1e6, 1000001",
    ", ".join(str(i) for i in range(widgets.MAX_VALUES)),
]
NEAR_FLOAT64_MAX = "1e308, -1e308, 0"  # parse_vector accepts it; the plots' axis arithmetic overflows (see below)


def test_explorers_with_text_boxes_are_found():
    """The discovery above (by source) agrees with what each explorer really shows."""
    assert widgets.VectorExplorer in TEXT_EXPLORERS
    for cls in TEXT_EXPLORERS:
        assert _text_boxes(cls()), f"{cls.__name__}: its source builds a Text box, but none is in .box"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cls in set(EXPLORERS) - set(TEXT_EXPLORERS):
            try:
                explorer = cls()
            except TypeError:  # needs arguments: not an explorer a notebook shows as is
                continue
            assert not _text_boxes(explorer), f"{cls.__name__} has a text box the tests missed"


@pytest.mark.parametrize("cls", TEXT_EXPLORERS, ids=lambda c: c.__name__)
def test_bad_text_shows_the_message_and_keeps_the_last_valid_state(cls):
    with warnings.catch_warnings():
        strict_warnings()
        explorer = cls()
        box = _text_boxes(explorer)[0]
        box.value = "1, 2, 3, 5"
        valid = _state(explorer)
        values = np.array(getattr(explorer, "values", [1, 2, 3, 5]), dtype=float)
        for bad in WIDGET_BAD:
            with pytest.raises(ValueError) as info:
                parse_vector(bad)
            box.value = bad
            shown = [v for v in _state(explorer) if isinstance(v, str) and html.escape(str(info.value)) in v]
            assert shown, f"{cls.__name__}: no widget shows the message for {bad!r}"
            changed = [i for i, (a, b) in enumerate(zip(valid, _state(explorer), strict=True)) if a != b]
            assert len(changed) == 1, f"{cls.__name__}: {bad!r} changed more than the message"
            np.testing.assert_array_equal(getattr(explorer, "values", values), values)
        # a valid text clears the message and renders again
        box.value = "2, 4, 6, 8"
        after = _state(explorer)
        assert not any(isinstance(v, str) and "⚠" in v for v in after), f"{cls.__name__}: the message stayed"
        assert after != valid


@pytest.mark.parametrize("cls", TEXT_EXPLORERS, ids=lambda c: c.__name__)
def test_valid_extreme_text_renders_without_a_message_or_warning(cls):
    with warnings.catch_warnings():
        strict_warnings()
        explorer = cls()
        box = _text_boxes(explorer)[0]
        for good in WIDGET_GOOD:
            box.value = good
            state = _state(explorer)
            assert not any(isinstance(v, str) and "⚠" in v for v in state), f"{cls.__name__}: {good!r} refused"


@pytest.mark.parametrize("cls", TEXT_EXPLORERS, ids=lambda c: c.__name__)
def test_text_near_the_float64_limit_gets_a_message_not_a_warning(cls):
    """parse_vector accepts 1e308, but an explorer's plots need headroom: it explains its limit instead."""
    with warnings.catch_warnings():
        strict_warnings()
        explorer = cls()
        before = _state(explorer)
        _text_boxes(explorer)[0].value = NEAR_FLOAT64_MAX
        assert "数字太大" in explorer.message.value
        others = [w for w in _views(explorer) if w is not explorer.message]
        assert [w.value for w in others] == [
            v for w, v in zip(_views(explorer), before, strict=True) if w is not explorer.message
        ]  # last valid table and plot kept


# ---------------------------------------------------------------- issue 39, L8: numbers beyond float64, invisible text

BEYOND = [
    ("10^" + "9" * 5000, "数字太大"),  # an exponent longer than Python reads as an int
    ("10^-" + "9" * 5000, "数字太小"),
    ("10⁻⁴⁰⁰", "数字太小"),
    ("2×10⁻⁴⁰⁰", "数字太小"),
    ("1e-999", "数字太小"),  # was silently 0
    ("-1.5e-400", "数字太小"),
    ("1e-320/10000", "数字太小"),
    ("10⁴⁰⁰", "数字太大"),
    ("1e999", "数字太大"),
    ("9" * 400, "数字太大"),
]


@pytest.mark.parametrize(("text", "said"), BEYOND, ids=[b[0][:20] for b in BEYOND])
def test_numbers_beyond_float64_are_refused_alike_in_chinese(text, said):
    """Too large and too small get the same kind of message, whether typed as 1e-999 or 10⁻⁴⁰⁰; a nonzero number is
    never silently read as 0; no English message of Python's."""
    with pytest.raises(ValueError) as info:
        parse_vector(text)
    message = str(info.value)
    assert message.startswith(said) and CJK.search(message) and len(message) <= 80, message


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("2×10⁻³²⁰", 2e-320),  # a subnormal: representable, read exactly as Python reads 2e-320
        ("5e-324", 5e-324),
        ("10^308", 1e308),
        ("1.7976931348623157×10³⁰⁸", 1.7976931348623157e308),
        ("0×10^-99999999", 0.0),
        ("0e-999", 0.0),
        ("3×10⁻⁷", 3e-7),  # the decimal 3e-7, not 3 * 10.0**-7 (which differs in the last bit)
    ],
)
def test_powers_of_ten_are_read_as_the_decimal_they_write(text, want):
    assert parse_vector(text).tolist() == [want]


@pytest.mark.parametrize("invisible", ["\u200b", "\u200d", "\u2060", "\ufeff", "\u00ad"])
def test_invisible_format_characters_are_ignored(invisible):
    """A zero-width space copied along with a number (web pages, chat apps) is not a reason to refuse it."""
    assert parse_vector(f"{invisible}5, 6{invisible}").tolist() == [5.0, 6.0]
    from lnlib.text_input import parse_numbers

    assert float(parse_numbers(f"{invisible}5")) == 5.0


# ---------------------------------------------------------------- issue 40: 33%, 7×7, √5 as a person writes them

WRITTEN = [
    ("33%", [0.33]),
    ("33 %", [0.33]),
    ("33％", [0.33]),  # full-width percent sign
    ("３３％", [0.33]),
    ("12.5%, -5%", [0.125, -0.05]),
    ("0.1%", [0.001]),  # the decimal 0.001, not 0.1 / 100 (which is one bit off)
    ("7×7", [49.0]),
    ("7*7", [49.0]),
    ("７＊７", [49.0]),  # full-width asterisk
    ("2 × 3.5", [7.0]),
    ("-2×3, 2×-3", [-6.0, -6.0]),
    ("2×3×4", [24.0]),
    ("2×3/4", [1.5]),
    (
        "7×10, 2×1000, 4×10.5",
        [70.0, 2000.0, 42.0],
    ),  # not a power of ten with its raise lost  # one division at the end: (2×3)/4 = 2×(3/4), no doubt
    ("√5", [math.sqrt(5)]),
    ("√ 5", [math.sqrt(5)]),
    ("√５", [math.sqrt(5)]),
    ("2√5", [2 * math.sqrt(5)]),
    ("2×√5, 2*√5", [2 * math.sqrt(5)] * 2),
    ("-√5, −√5, +√5", [-math.sqrt(5), -math.sqrt(5), math.sqrt(5)]),
    ("3/√5", [3 / math.sqrt(5)]),
    ("-3/√5, -1/√5, 1/√5, 3/√5", [-3 / math.sqrt(5), -1 / math.sqrt(5), 1 / math.sqrt(5), 3 / math.sqrt(5)]),
    ("-3/√5 -1/√5 1/√5 3/√5", [-3 / math.sqrt(5), -1 / math.sqrt(5), 1 / math.sqrt(5), 3 / math.sqrt(5)]),
    ("√5 √5", [math.sqrt(5)] * 2),
    ("√0.25, √1e-4", [0.5, 0.01]),
    ("0×√5, √0", [0.0, 0.0]),
    ("2e3×10^4", [2e7]),  # a power of ten after a number with its own exponent: was Python's English error
]


@pytest.mark.parametrize(("text", "expected"), WRITTEN, ids=[w[0] for w in WRITTEN])
def test_percentages_products_and_square_roots_are_read(text, expected):
    got = parse_vector(text)
    assert got.dtype == np.float64 and got.ndim == 1
    assert got.tolist() == pytest.approx(expected, rel=1e-15, abs=0)


def test_the_forms_keep_the_decimal_they_write():
    """33% is exactly the float 0.33, as 0.33 typed; √5 is the correctly rounded root."""
    assert parse_vector("33%").tolist() == [0.33] and parse_vector("0.1%").tolist() == [0.001]
    assert parse_vector("√5").tolist() == [math.sqrt(5)] and parse_vector("√2").tolist() == [2**0.5]


AMBIGUOUS = [
    ("1/2√5", "两种读法"),  # ÷ 2 then × √5, or ÷ 2√5?
    ("6/2×3", "两种读法"),  # (6/2)×3 or 6/(2×3)?
    ("2/3*4", "两种读法"),
    ("2 √5", "两种读法"),  # 2√5, or the two numbers 2 and √5?
    ("1, 2 √ 5", "两种读法"),
    ("2×103", "10^3"),  # 2×10³ with its superscript lost (copied from a PDF), or 2 × 103?
    ("2×10-4", "10^-4"),
    ("3*105*2", "10^5"),
    ("7x7", "乘号"),  # x as a times sign: 2x3 may be a shape
    ("7 X 7", "不是数字"),
    ("√-5", "负数"),
    ("√−5", "负数"),
    ("1/3%", "只能直接写在一个数后面"),
    ("√5%", "只能直接写在一个数后面"),
    ("2×3%", "只能直接写在一个数后面"),
    ("33%%", "只能直接写在一个数后面"),
    ("%33", "只能直接写在一个数后面"),
    ("3/√0", "分母是 0"),
    ("2**8", "不是数字"),
    ("2^8", "不是数字"),
    ("√", "不是数字"),
    ("5√", "不是数字"),
    ("√√5", "不是数字"),
    ("2×10⁻⁴×3", "不是数字"),
    ("√1e400", "数字太大"),
    ("1e200×1e200", "数字太大"),
    ("1e-200×1e-200", "数字太小"),  # a product of nonzero numbers is never silently 0
    ("1e-323%", "数字太小"),
]


@pytest.mark.parametrize(("text", "said"), AMBIGUOUS, ids=[a[0] for a in AMBIGUOUS])
def test_forms_that_read_two_ways_are_refused_in_chinese(text, said):
    with pytest.raises(ValueError) as info:
        parse_vector(text)
    message = str(info.value)
    assert said in message and CJK.search(message), message
    assert len(message) <= 80 and "\n" not in message, message


@pytest.mark.parametrize(
    ("text", "expected"),
    [("√2/2", math.sqrt(2) / 2), ("√5/2", math.sqrt(5) / 2), ("√1/3", 1 / 3), ("2√5/5", 2 * math.sqrt(5) / 5)],
)
def test_a_root_binds_tighter_than_the_slash(text, expected):
    """Issue 40 follow-up: √ takes the one number right after it, so √2/2 has one reading, (√2)/2 (16.eps_shrink's
    answer as the notebook's readers write it); the root of a fraction would need brackets."""
    assert parse_vector(text).tolist() == pytest.approx([expected], rel=1e-15, abs=0)


def test_the_refusal_names_both_readings():
    with pytest.raises(ValueError, match="2√5.*2, √5"):
        parse_vector("2 √5")


def test_the_generic_message_lists_the_new_forms():
    with pytest.raises(ValueError, match="33%、√5"):
        parse_vector("abc")
