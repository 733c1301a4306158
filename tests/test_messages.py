"""The message catalogues (lnlib/i18n.py, lnlib/locale/, tools/messages.py): every message in both languages with
the same placeholders, no unused message, every message the code asks for present with the fields it fills, the
PO files canonical and their compiled .mo current, the language chosen by `set_language` or `LNLIB_LANG`; and the
rule "compute returns codes": no module below the render layer holds a Chinese literal of its own.
"""

from __future__ import annotations

import ast
import gettext
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import lnlib
from lnlib import i18n
from tools import messages as tool

ROOT = Path(__file__).resolve().parents[1]
CODE = [*sorted((ROOT / "lnlib").rglob("*.py")), *sorted((ROOT / "tools").rglob("*.py"))]
CODE += sorted((ROOT / "assignments").rglob("*.py"))  # the graded assignments' feedback words (domain grading)
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def catalogue_keys(lang: str) -> dict[str, object]:
    """key → msgstr (a str, or a tuple of plural forms) over every domain of one language."""
    found = {}
    for domain in tool.domains():
        for msg in tool.read(lang, domain):
            if msg.id:
                found[msg.id if isinstance(msg.id, str) else msg.id[0]] = msg.string
    return found


def calls() -> list[tuple[Path, int, str, set[str], bool]]:
    """(file, line, key, keyword names, has **fields) of every message()/lazy() call whose key is a literal."""
    found = []
    for path in CODE:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            first = node.args[0]
            if name in ("message", "lazy") and isinstance(first, ast.Constant) and isinstance(first.value, str):
                names = {k.arg for k in node.keywords if k.arg}
                found.append((path, node.lineno, first.value, names, any(k.arg is None for k in node.keywords)))
    return found


def literals() -> set[str]:
    """Every string constant in lnlib's and the tools' code."""
    return {
        node.value
        for path in CODE
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def test_catalogues_are_complete_consistent_canonical_and_compiled():
    """Every key in zh and en, the same placeholders and plural structure, canonical PO, current .mo."""
    assert tool.problems() == []


def test_the_check_finds_a_missing_key_and_different_placeholders(tmp_path, monkeypatch):
    """The consistency check can fail: a key missing in en and a placeholder renamed are both named."""
    for lang in i18n.LANGUAGES:
        (tmp_path / lang / "LC_MESSAGES").mkdir(parents=True)
    zh = 'msgid ""\nmsgstr ""\n"Language: zh\\n"\n\nmsgid "demo.a"\nmsgstr "甲 {x}"\n\nmsgid "demo.b"\nmsgstr "乙"\n'
    en = 'msgid ""\nmsgstr ""\n"Language: en\\n"\n\nmsgid "demo.a"\nmsgstr "A {y}"\n'
    (tmp_path / "zh/LC_MESSAGES/demo.po").write_text(zh, encoding="utf-8")
    (tmp_path / "en/LC_MESSAGES/demo.po").write_text(en, encoding="utf-8")
    monkeypatch.setattr(tool, "LOCALE_DIR", tmp_path)
    found = "\n".join(tool.problems())
    assert "en/demo.po: demo.b missing" in found
    assert "demo.a placeholders" in found
    assert "not in canonical form" in found and "not compiled" in found


def test_both_languages_hold_the_same_keys_and_none_is_empty():
    zh, en = catalogue_keys("zh"), catalogue_keys("en")
    assert zh and set(zh) == set(en)
    for key in zh:
        for text in (zh[key], en[key]):
            assert all(text if isinstance(text, tuple) else (text,)), key


def test_english_messages_hold_no_chinese_except_quoted_tokens():
    """The English catalogue is English: Chinese only inside quotes, or a token of the example with its gloss."""
    for key, text in catalogue_keys("en").items():
        for form in text if isinstance(text, tuple) else (text,):
            bare = re.sub(r"“[^”]*”|(我|吃|苹果) \([A-Za-z]+\)", "", form)
            assert not CJK.search(bare), (key, form)


def test_every_message_the_code_asks_for_exists_with_the_fields_it_fills():
    zh = catalogue_keys("zh")
    asked = calls()
    assert asked
    for path, line, key, names, spread in asked:
        where = f"{path.relative_to(ROOT)}:{line}"
        assert key in zh, f"{where}: {key} is in no catalogue"
        forms = zh[key] if isinstance(zh[key], tuple) else (zh[key],)
        wanted = {p.split("!")[0] for form in forms for p in tool.placeholders(form)}
        plural = isinstance(zh[key], tuple)
        if not spread:
            assert names - {"count"} == wanted - {"count"}, f"{where}: {key} fills {sorted(names)}, needs {wanted}"
        assert ("count" in names) == plural, f"{where}: {key} {'needs' if plural else 'takes no'} count="


def test_no_message_is_unused():
    """Every key is written out as a literal somewhere in lnlib, the tools or the assignments (keys are never built
    from parts)."""
    unused = sorted(set(catalogue_keys("zh")) - literals())
    assert unused == []


def test_the_compiled_catalogue_reads_back_what_the_po_says():
    """Round trip PO → MO → the standard library's gettext, every message and plural form."""
    for domain in tool.domains():
        for lang in i18n.LANGUAGES:
            po = tool.read(lang, domain)
            with tool.po_path(lang, domain).with_suffix(".mo").open("rb") as f:
                mo = gettext.GNUTranslations(f)
            for msg in po:
                if not msg.id:
                    continue
                if isinstance(msg.id, str):
                    assert mo.gettext(msg.id) == msg.string
                else:
                    for n, form in ((1, msg.string[0]), (2, msg.string[-1])):
                        assert mo.ngettext(msg.id[0], msg.id[1], n) == form
            again = read_po(io.BytesIO(tool.po_bytes(po)), locale=lang, domain=domain)
            assert [(m.id, m.string) for m in again] == [(m.id, m.string) for m in po]


@pytest.fixture
def english():
    lnlib.set_language("en")
    yield
    lnlib.set_language(i18n.DEFAULT_LANGUAGE)


def test_set_language_switches_every_message_at_once(english):
    assert lnlib.language() == "en"
    assert i18n.message("feedback.sign_flipped") == "The size is right, the sign is flipped."
    assert i18n.message("feedback.shape_size", count=1, want=1, got=2).startswith(
        "Wrong shape: it should have 1 number,"
    )
    assert "4 numbers" in i18n.message("feedback.shape_size", count=4, want=4, got=2)
    lazy = i18n.lazy("feedback.near", atol="0.001")
    assert (
        str(lazy)
        == "Very close, but the error is beyond the tolerance (±0.001). Work through the last steps again carefully."
    )
    lnlib.set_language("zh")
    assert str(lazy) == "很接近了，但误差超出了允许范围（±0.001）。再仔细算一遍最后几步。"


def test_feedback_in_english_names_the_same_mistake(english):
    """A moved mistake is named in English, in the same place of the catalogue of mistakes."""
    verdict = lnlib.exercises.judge("03.xhat_apple", [1.342, 0.4472, -0.4472, -1.342])
    assert verdict.mistake.startswith("This is the x̂ of the row “我”")
    assert "differ only in sign" in verdict.mistake
    assert not CJK.search(lnlib.exercises.judge("03.mean_apple", "five").message)


def test_a_language_is_refused_clearly():
    with pytest.raises(ValueError, match=r"code: expected one of zh, en, got 'fr'"):
        lnlib.set_language("fr")
    with pytest.raises(TypeError, match="code: expected a language code"):
        lnlib.set_language(None)
    assert lnlib.language() == i18n.DEFAULT_LANGUAGE


def test_a_missing_message_is_an_error_never_its_key():
    with pytest.raises(KeyError, match="feedback.no_such_message"):
        i18n.message("feedback.no_such_message")
    with pytest.raises(KeyError, match="no catalogue 'nodomain'"):
        i18n.message("nodomain.x")


@pytest.mark.parametrize(("value", "lang"), [("en", "en"), ("en_US.UTF-8", "en"), ("zh-Hans", "zh"), ("", "zh")])
def test_lnlib_lang_chooses_the_language_of_a_fresh_kernel(value, lang):
    code = "import lnlib; print(lnlib.language(), lnlib.grading.SIGN_FLIPPED)"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LNLIB_LANG": value}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    said = {"zh": "数值对了，符号反了。", "en": "The size is right, the sign is flipped."}[lang]
    assert out.strip() == f"{lang} {said}"


def test_an_unknown_lnlib_lang_is_named():
    code = "import lnlib; lnlib.language()"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LNLIB_LANG": "klingon"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.returncode != 0 and "LNLIB_LANG: expected one of zh, en, got 'klingon'" in run.stderr


# ---------------------------------------------------------------- compute returns codes, renderers say words

COMPUTE = (
    "stages norms grad groups invariance pitfalls numerics transformer attention_scaling training optim training_map "
    "exercises grading code_exercises code_grading hints answers tiny_lm tiny_corpus data text_input labels "
    "_checks _budget _stats _lean _fast _train_kernels _lru _record i18n"
).split()
"""The modules below the render layer (docs/architecture.md §1), which return codes, never words."""

DATA = {
    "data": {"TOKENS"},  # the worked example's tokens 我 / 吃 / 苹果
    "tiny_corpus": {"END", "PEOPLE", "TIMES", "ADVERBS", "PEOPLE_ACTS", "ANIMAL_ACTS"},  # notebook 16's grammar
    "exercises": {"_UNCHANGED", "_CHANGED"},  # codes of a choice answer
    "grading": {"_LETTERS", "_PRE", "_POST", "_LAYER_NAMES", "_BATCH_NAMES", "_RMS_NAMES", "SYNONYMS"},
}
"""Chinese that is data, not words: the tokens, the tiny corpus's grammar, the codes and accepted spellings of a
choice answer (and every exercise's `synonyms=`)."""

PENDING: dict[str, str] = {}
"""Modules whose words have not moved to the catalogue yet (each an expected failure that must not pass unseen)."""


IDEOGRAPH = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")  # words; CJK punctuation a reader accepts is not


def chinese_literals(module: str, source: str | None = None) -> list[tuple[int, str]]:
    """(line, text) of every string literal with a Chinese character in it (punctuation alone, such as the 、 and
    。 a typed answer may hold, is not a word), outside docstrings and the module's DATA names."""
    tree = ast.parse(source if source is not None else (ROOT / "lnlib" / f"{module}.py").read_text(encoding="utf-8"))
    skip = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                skip.add(id(body[0].value))  # a docstring
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if names & DATA.get(module, set()):
                skip.update(id(n) for n in ast.walk(node))
        if isinstance(node, ast.keyword) and node.arg in ("synonyms", "options"):  # accepted spellings, option words
            skip.update(id(n) for n in ast.walk(node))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skip.add(id(node.value))  # an attribute docstring
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
        if IDEOGRAPH.search(node.value)
    ]


@pytest.mark.parametrize(
    "module",
    [pytest.param(m, marks=pytest.mark.xfail(strict=True, reason=PENDING[m])) if m in PENDING else m for m in COMPUTE],
)
def test_no_compute_module_holds_chinese_words(module):
    """Compute returns codes; words come from the catalogue. A pending module is an xfail that must still fail."""
    assert chinese_literals(module) == []


def test_the_chinese_literal_scan_can_fail():
    """Words are found; docstrings, punctuation alone, declared data and an exercise's synonyms are not."""
    source = (
        '"""模块说明。"""\n'
        'TOKENS = ("我", "吃")\n'
        'END = "。"\n'
        'def f():\n    """函数说明。"""\n    return "你好"\n'
        'Exercise(1, lazy("k"), synonyms=("不变",))\n'
    )
    assert chinese_literals("data", source) == [(6, "你好")]


def test_the_example_tokens_keep_their_characters_and_gain_a_gloss_in_english():
    from lnlib import TOKENS, labels
    from lnlib.i18n import language, set_language

    before = language()
    try:
        set_language("zh")
        assert labels.token_labels(TOKENS) == ["我", "吃", "苹果"]
        set_language("en")
        assert labels.token_labels(TOKENS) == ["我 (I)", "吃 (eat)", "苹果 (apple)"]
        assert labels.token_label("梨") == "梨"
    finally:
        set_language(before)


@pytest.mark.parametrize(
    ("name", "answer", "letter"),
    [
        ("14.lost", "the overall mean of the row", "b"),
        ("14.lost", "the overall mean", "b"),
        ("14.lost", "the order of the dimensions", "a"),
        ("14.one_pass", "one-pass", "b"),
        ("14.one_pass", "Welford, updating one number at a time", "c"),
        ("15.predict_depth", "much smaller, about a tenth", "b"),
        ("16.predict_ablation", "replace it with RMSNorm", "b"),
        ("16.predict_final", "the loss grows clearly", "b"),
    ],
)
def test_choice_answers_are_read_in_english_words_too(name, answer, letter):
    """A choice answer is a letter; its words are read in both languages (an English learner copies the English
    notebook's option words), and the Chinese words keep working."""
    from lnlib.exercises import EXERCISES
    from lnlib.grading import choice_option

    exercise = EXERCISES[name]
    assert choice_option(exercise, answer) == (letter, "")
    assert choice_option(exercise, exercise.options[letter][0]) == (letter, "")
