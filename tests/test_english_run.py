"""The English smoke run (issue 43): every notebook 00–16 executed with `LNLIB_LANG=en` and every `%%reveal` cell
open, as `tools.run_notebooks` stores them, and nothing lnlib shows holds Chinese.

Every output of every code cell is read — printed text, the text/plain, HTML, Markdown and LaTeX forms, the alt
text of a figure (its output metadata), and the widgets a cell displays (the state nbclient keeps of every widget
model: an HTML widget's value, a control's description and option labels, a picture's tooltip, which is its alt
text) — and every run of Chinese characters in it must be one of these:
- made of the example's tokens 我 / 吃 / 苹果 (shown glossed in English: "苹果 (apple)");
- written literally in the cell's own source (words the notebook passed in: the Chinese notebooks' captions), or
  joined from such pieces (see `_from_pieces`);
- data: a piece of notebook 16's corpus or its vocabulary (what the tiny model reads and writes);
- quoted, inside “…” (a Chinese example named in English words).
A text box's typed value is the learner's input, not a word of lnlib, and is not read.

Also: the modules whose words this run reads first (tables, explorers, the progress bar and the facades) hold no
Chinese word of their own, only keys of the catalogues `tables` and `explorers`.

The notebooks run two at a time, each in a fresh kernel (35 s on an idle 2-core machine, up to 3 minutes on a busy
one; notebook 15 takes half of it): `make test-english` (marker `english`), one of the suites of `make test`. PNG
pixels are not read (their alt text describes them).
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from test_messages import chinese_literals

from lnlib.explorers.lm import DEFAULT_TEXT
from tools import course
from tools.run_notebooks import execute

CJK_RUN = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]+")
TOKENS_ONLY = re.compile(r"(?:我|吃|苹果)+")
QUOTED = re.compile(r"“[^”\n]*”")
PUNCTUATION = re.compile(r"[\u3000-\u303f\uff00-\uffef]")
LNLIB = Path(__file__).resolve().parents[1] / "lnlib"
CORPUS = ("tiny_lm_train.txt", "tiny_lm_heldout.txt")
OUTPUT_FORMS = ("text/plain", "text/html", "text/markdown", "text/latex", "image/svg+xml")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_WORDS = ("description", "tooltip", "placeholder", "_options_labels", "_titles")
SLOWEST = ("15-", "09-")  # started first: notebook 15 alone takes as long as most others together
TEXT_WIDGETS = ("HTMLModel", "HTMLMathModel", "LabelModel")  # whose value is shown words (a Text's is typed input)


def _data_text() -> str:
    """Notebook 16's corpus and its vocabulary (the model's characters in order): Chinese that is data."""
    text = "".join((LNLIB / name).read_text(encoding="utf-8") for name in CORPUS)
    return text + "".join(sorted(set(text) - {"\n"}))


DATA_TEXT = _data_text()


def _allowed(piece: str, run: str, source: str) -> bool:
    if TOKENS_ONLY.fullmatch(piece) or piece in DATA_TEXT:
        return True
    return piece in source and (len(piece) > 1 or piece == run or bool(PUNCTUATION.fullmatch(piece)))


def _from_pieces(run: str, source: str) -> bool:
    """Whether `run` is made of allowed pieces: the notebook's own words with lnlib's English (or a value) between
    them leave runs such as "层，初始化时激活" (…第 1 层，" then f"初始化时激活…) or "变化）；" ("；".join), so a
    run may join pieces of the source, but a piece of one character only when it is punctuation (an ideograph
    alone would let any word through whose characters occur somewhere in the cell)."""
    ends = {0}
    for i in range(1, len(run) + 1):
        if any(j in ends and _allowed(run[j:i], run, source) for j in range(i)):
            ends.add(i)
    return len(run) in ends


def stray_chinese(text: str, source: str) -> list[str]:
    """The runs of Chinese in `text` made of other pieces than the example's tokens, notebook 16's corpus, words of
    `source` and quoted examples."""
    return [run for run in CJK_RUN.findall(QUOTED.sub("", text)) if not _from_pieces(run, source)]


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def widget_texts(states: dict, model_id: str, seen: set[str] | None = None) -> list[str]:
    """The words of widget `model_id` and of every widget inside it (children, by "IPY_MODEL_<id>" references)."""
    seen = set() if seen is None else seen
    if model_id in seen or model_id not in states:
        return []
    seen.add(model_id)
    state = states[model_id].get("state", {})
    texts = [s for key in WIDGET_WORDS for s in _strings(state.get(key))]
    if state.get("_model_name") in TEXT_WIDGETS:
        texts += _strings(state.get("value"))
    for value in state.values():
        for ref in _strings(value):
            if ref.startswith("IPY_MODEL_"):
                texts += widget_texts(states, ref.removeprefix("IPY_MODEL_"), seen)
    return texts


def cell_texts(cell, states: dict) -> list[str]:
    """Everything a code cell's outputs show as text (see the module's docstring)."""
    texts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            texts.append(out.text)
        elif out.output_type == "error":
            texts += [out.ename, out.evalue]
        else:
            data, meta = out.get("data", {}), out.get("metadata", {})
            texts += [s for form in OUTPUT_FORMS for s in _strings(data.get(form))]
            texts += [m["alt"] for m in meta.values() if isinstance(m, dict) and isinstance(m.get("alt"), str)]
            view = data.get(WIDGET_VIEW)
            if isinstance(view, dict) and "model_id" in view:
                texts += widget_texts(states, view["model_id"])
    return texts


def findings(nb) -> list[str]:
    """One line per cell output holding stray Chinese: cell number (0-based), the runs, and where they stand."""
    states = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for text in cell_texts(cell, states):
            runs = stray_chinese(text, cell.source)
            if runs:
                at = text.find(runs[0])
                context = " ".join(text[max(0, at - 60) : at + 60].split())
                found.append(f"cell {i}: {sorted(set(runs))} in …{context}…")
    return found


CHOSEN_LANGUAGE = 'lnlib.set_language("zh")'
"""The Chinese notebooks' first cell chooses Chinese for the kernel; the smoke run asks for English there."""


def run_in_english(path: Path) -> nbformat.NotebookNode:
    """A Chinese notebook run with lnlib in English: its language line says "en" (the cells' own words stay)."""
    nb = nbformat.read(path, as_version=4)
    chosen = [cell for cell in nb.cells if cell.cell_type == "code" and CHOSEN_LANGUAGE in cell.source]
    assert len(chosen) == 1, f"{path.name}: expected one cell choosing the language, found {len(chosen)}"
    chosen[0].source = chosen[0].source.replace(CHOSEN_LANGUAGE, 'lnlib.set_language("en")')
    execute(nb, course.NOTEBOOKS)  # reveals open, as the stored outputs
    return nb


def test_the_check_finds_stray_chinese_and_passes_tokens_quotes_and_the_cells_own_words():
    """The rule can fail: a Chinese word lnlib added is found; the tokens, a quoted example and the cell's caption
    are not; a widget's description is read through its parent box, a typed value is not."""
    assert stray_chinese("苹果 (apple) and 我吃苹果, “小猫喝牛奶。” mean: 2", source="") == []
    assert stray_chinese("第 1 维: 2", source="") == ["第", "维"]
    assert stray_chinese("caption 残差相加", source='caption="残差相加"') == []
    assert stray_chinese("x：1", source="") == ["："]
    source = 'print(f"{a}：第 8 层，"\n      f"初始化时 {b}")'
    assert stray_chinese("LayerNorm：第 8 层，初始化时 2", source) == []
    assert stray_chinese("第 8 层，初始化后 2", source) == ["层，初始化后"]  # 后 is in no piece of the source
    assert stray_chinese("训练 200 步，学习率", source="训练 200 步; 学习率") == [
        "步，学习率"
    ]  # 步 alone, ， not in it
    assert stray_chinese("词表：我们每天喝水。", source="词表：") == []  # the corpus is data
    states = {
        "box": {"state": {"_model_name": "VBoxModel", "children": ["IPY_MODEL_s", "IPY_MODEL_t"]}},
        "s": {"state": {"_model_name": "FloatSliderModel", "description": "缩放："}},
        "t": {"state": {"_model_name": "TextModel", "value": "我吃苹果。", "description": "x"}},
    }
    cell = nbformat.v4.new_code_cell("lnlib.Explorer()")
    cell.outputs = [nbformat.v4.new_output("display_data", data={WIDGET_VIEW: {"model_id": "box"}})]
    nb = nbformat.v4.new_notebook(cells=[cell], metadata={"widgets": {WIDGET_STATE: {"state": states}}})
    assert findings(nb) == ["cell 0: ['缩放：'] in …缩放：…"]


@pytest.mark.english
def test_every_notebook_run_in_english_shows_no_chinese_of_lnlib(monkeypatch):
    """The issue's done-criterion: with lnlib in English, no output of notebooks 00–16 holds Chinese of lnlib's."""
    monkeypatch.setenv("LNLIB_LANG", "en")  # and each notebook's language line says "en" (run_in_english)
    paths = sorted((path for _, path in course.planned_notebooks()), key=lambda p: p.name[:3] not in SLOWEST)
    with ThreadPoolExecutor(max_workers=2) as pool:
        ran = dict(zip(paths, pool.map(run_in_english, paths), strict=True))
    report = {path.name: found for path, nb in ran.items() if (found := findings(nb))}
    assert any(nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state") for nb in ran.values())  # read
    if report:  # every finding, untruncated: the notebook, the cell, the runs of Chinese and where they stand
        pytest.fail("Chinese in English outputs:\n" + json.dumps(report, ensure_ascii=False, indent=1), pytrace=False)


WORDLESS = ["tables", "progress_bar", "widgets", "training_widgets", "lm_explorer"]
WORDLESS += [f"explorers/{p.stem}" for p in sorted((LNLIB / "explorers").glob("*.py"))]


@pytest.mark.parametrize("path", course.notebook_paths(course.NOTEBOOKS / "en"), ids=lambda p: p.stem)
def test_the_english_editions_stored_outputs_show_no_chinese_but_tokens_and_data(path):
    """What an English learner sees without running anything (GitHub, the site, the PDF): the stored outputs of the
    English edition, read by the same rule, where the cell's own source is English — so only the example's tokens,
    notebook 16's corpus and quoted examples pass."""
    assert findings(nbformat.read(path, as_version=4)) == []


@pytest.mark.parametrize("module", WORDLESS)
def test_tables_and_explorers_hold_no_chinese_words(module):
    """Their words are messages; the one Chinese literal left is LMExplorer's opening sentence (the model's input)."""
    assert [(line, text) for line, text in chinese_literals(module) if text != DEFAULT_TEXT] == []


def test_a_returned_value_that_is_no_array_is_described_in_the_language_of_lnlib():
    """code_grading shows an odd result in brackets of the language: full-width in Chinese, ASCII in English."""
    from lnlib import code_grading, i18n

    try:
        i18n.set_language("en")
        assert code_grading._fmt({"a": 1}).startswith("(dict: ")
    finally:
        i18n.set_language(i18n.DEFAULT_LANGUAGE)
    assert code_grading._fmt({"a": 1}).startswith("（dict：")


@pytest.fixture
def english():
    from lnlib import i18n

    i18n.set_language("en")
    yield
    i18n.set_language(i18n.DEFAULT_LANGUAGE)


def test_the_explorers_notice_and_fallback_speak_english_with_their_lang(english):
    """What the extension shows when the widget model is gone is the notice in the chosen language, marked with it."""
    from lnlib.explorers import base

    html_form = base.fallback_html("VectorExplorer")
    assert 'lang="en"' in html_form and "⚠ VectorExplorer: [This explorer cannot be used right now]" in html_form
    assert stray_chinese(html_form + base.offline_notice().value, source="") == []


def test_the_progress_label_counts_in_english(english):
    from lnlib import progress_bar

    one = progress_bar.sweep_label("mlp", "layer", (1e-3,), steps=1)
    assert one == "Training 1 normalization × 1 learning rate, 1 step each"
    many = progress_bar.sweep_label("transformer", ("post", "pre"), (1e-3, 3e-3), (0, 50), steps=200, seconds=5)
    assert many == "Training 2 architectures × 2 learning rates × 2 warm-ups, 200 steps each (about 5 s)"


def test_a_table_in_english_glosses_the_tokens_and_keeps_the_numbers(english):
    from lnlib import data, groups, tables

    table = tables.axis_stats_table(groups.group_stats(data.TOKEN_MATRIX, "row"))
    assert table.grid.index == ("我 (I)", "吃 (eat)", "苹果 (apple)")
    assert table.grid.cells[2][:2] == (5.0, 5.0)  # 苹果 = [2, 4, 6, 8]: μ = 5, σ² = 5 by hand
    assert stray_chinese(table.to_html(), source="") == []


def test_an_english_figure_and_explorer_name_the_language_of_their_alt_text():
    """A screen reader picks its voice by `lang`: the course's JupyterLab extension tags an alt text "en" when the
    figure's output metadata says {"alt_lang": "en"} or the explorer's box has the class ln-lang-en, else zh-Hans.
    Chinese outputs carry no alt_lang (they stay as stored)."""
    import lnlib
    from lnlib import figure_kit, plots, widgets
    from lnlib.i18n import language, set_language

    before = language()
    try:
        shown = {}
        for code in ("zh", "en"):
            set_language(code)
            fig = plots.stage_bars(lnlib.layer_norm_steps([2.0, 4.0, 6.0, 8.0]))
            _, shown[code] = figure_kit._png_with_alt(fig)
            assert f"ln-lang-{code}" in widgets.VarianceExplorer().box._dom_classes
        assert "alt_lang" not in shown["zh"] and shown["en"]["alt_lang"] == "en"
        assert not CJK_RUN.search(shown["en"]["alt"]) and CJK_RUN.search(shown["zh"]["alt"])
    finally:
        set_language(before)
