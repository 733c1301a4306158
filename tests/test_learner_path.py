"""The learner's path (issue 24 items 3, 4; issue 32 item 1): no answer is printed above its question, every lesson
asks a prediction before it reveals, and what reveals a prediction stays folded until the learner asks.

"Printed" means: the expected value, written at the precision the question asks for, appears as a number in a
markdown cell or in a stored output above the answer cell (a figure's alt text included: it states the numbers the
picture shows), in the same notebook. A vector or matrix counts when its
numbers appear in order; a whole number only when it is stated as a result ("= 3", "是 3", "≈ 16", in text or
output), since integers such as the 3 of "3 × 4" or the 10 of "10 倍" are everywhere; a whole number of three or
more digits (256, 1024) is rare enough to count anywhere, the question's own prompt included (an answer that is one of
the prompt's own numbers is read off, not worked out). The question's own prompt (the markdown cell right above it)
may otherwise name its inputs. Choice answers (words) are searched in test_learner_feedback.

"Before it is answered" also covers what a learner sees right below the question in a student copy: its folded
answer and its reveal cell stay closed, but the markdown after them (often the next question's prompt) is open.

A deliberate review question is declared in REVIEW, a number that only looks like the answer in COINCIDENCES, each
with its reason. The quiz of notebook 14 asks only what earlier lessons taught, so its review (course map, common
mistakes, glossary) comes after its questions; QUIZ_REVIEW names, for each quiz question, the statement of the
review that answers it, and a test checks that none of them stands above the quiz.
"""

from __future__ import annotations

import math
import re

import nbformat
import numpy as np
import pytest

from lnlib.exercises import EXERCISES
from tools import course, make_student
from tools.course import CHECK_CALL, DERIVATION_SUMMARY, REVEAL_SUMMARY, REVEAL_TAG, notebook_paths

PATHS = notebook_paths()
LESSONS = [p for p in PATHS if p.stem != course.INDEX_STEM]

# Answer cells whose value appears above them on purpose, with the reason.
REVIEW: dict[str, str] = {}
# Answer cells whose value appears above them only as another quantity that happens to be equal, with the reason.
COINCIDENCES: dict[str, str] = {
    "03.variance_apple": "苹果's σ² = 5 equals its μ = 5, which the step before reveals",
    "04.constant_row": "0.01 above is the spread s = 0.01 of section 4's rows, not a denominator",
    "14.merge_m2": "40 above is an entry of the token matrix 吃 = [20, 40, 60, 80]",
    "07.count_multi": "batch = 2 is the input the question counts from, not the count of μ",
    "13.var_true": "M2 = 5.00 above is Welford's M2 of 10⁴ + [0, 1, 2, 3], not the variance asked",
    "05.invariant_count": "‖x̂‖ = 2 above is the length of x̂ (section 5), not the count of the four new changes",
    "02.table_mean": "20 in a figure's alt text is the entry 吃 = 20 of the highlighted column, not the table's mean",
}
# Give-aways not fixed yet (issue 24 item 3): each fails the search; strict, so fixing one makes its entry an error.
PENDING: dict[str, str] = {}

_MINUS = str.maketrans({"−": "-", "–": "-", "\u2009": " ", "\u202f": " "})
_REVEAL_BLOCK = re.compile(rf"<details>\s*<summary>{DERIVATION_SUMMARY}</summary>.*?</details>", re.S)


def decimals(atol: float) -> int:
    """How many decimals the question asks for, from the tolerance that rounding allows (±0.0005 → 3)."""
    if atol <= 0:
        return 6  # exact: an integer, or a short decimal
    return 0 if atol >= 0.5 else max(0, math.ceil(-math.log10(2 * atol) - 1e-9))


def number_pattern(v: float, places: int) -> str:
    """A regex for v written at `places` decimals, as text or numpy writes it (5, 5., 5.0, 0.447, -1.342, 2e-04)."""
    forms = set()
    if float(v).is_integer() and abs(v) < 1e15:
        n = int(v)
        forms.add(rf"{n}(?:\.0*)?")
    else:
        rounded = f"{v:.{places}f}"
        forms |= {re.escape(rounded), re.escape(rounded.rstrip("0").rstrip("."))}
        forms |= longer_forms(float(rounded), places)
        if 0 < abs(v) < 1e-2:
            for fmt in (".0e", ".1e", ".2e", ".3g"):
                text = format(v, fmt)
                forms |= {re.escape(text), re.escape(re.sub(r"e([+-])0*(\d)", r"e\g<1>\2", text))}
    return r"(?<![\d.])(?:" + "|".join(sorted(forms, key=len, reverse=True)) + r")(?!\.?\d)"


def longer_forms(rounded: float, places: int) -> set[str]:
    """Regexes for a number printed with more than `places` decimals that rounds to `rounded` (0.333, 0.3333 for
    0.33): every (places + 1)-decimal start in [rounded − ½·10⁻ᵖ, rounded + ½·10⁻ᵖ), then any further digits."""
    if places < 1:
        return set()
    half, scale = 0.5 * 10.0**-places, 10 ** (places + 1)
    low, high = math.ceil(round((rounded - half) * scale, 6)), math.ceil(round((rounded + half) * scale, 6))
    return {re.escape(f"{k / scale:.{places + 1}f}") + r"\d*" for k in range(low, high)}


def value_pattern(expected, atol: float) -> re.Pattern | None:
    """The regex that finds `expected` printed in text, or None when it cannot be told from noise."""
    arr = np.asarray(expected, dtype=np.float64)
    places = decimals(atol)
    if arr.ndim == 0:
        v = float(arr)
        body = number_pattern(v, places)
        if float(v).is_integer():
            return re.compile(rf"(?:=|≈|是|为|：)\s*{body}")
        return re.compile(body)
    flat = arr.ravel()
    sep = r"[\s,，、;；\[\]()]{1,12}" if arr.ndim == 1 else r"[^\d-]{1,40}"
    return re.compile(sep.join(number_pattern(float(v), places) for v in flat))


def shown_text(cell, *, alt: bool = False) -> str:
    """What a reader sees of a cell without running anything: markdown, or the stored outputs' text (and, with
    `alt`, the alt text of its figures)."""
    if cell.cell_type == "markdown":
        return cell.source.translate(_MINUS)
    parts = []
    for out in cell.get("outputs", []):
        parts.append(out.get("text", ""))
        data = out.get("data", {})
        for meta in out.get("metadata", {}).values() if alt else ():  # a figure's alt text: what the picture shows
            parts.append(meta.get("alt", "") if isinstance(meta, dict) else "")
        if "text/plain" in data:  # tables carry their numbers in text/plain too; their HTML holds CSS
            parts.append(data["text/plain"])
        elif "text/html" in data:
            parts.append(re.sub(r"<[^>]+>", " ", re.sub(r"<style.*?</style>", " ", data["text/html"], flags=re.S)))
    return " ".join(parts).translate(_MINUS)


def answer_cells(nb) -> list[tuple[int, str]]:
    return [(i, n) for i, c in enumerate(nb.cells) if c.cell_type == "code" for n in CHECK_CALL.findall(c.source)]


def numeric(name: str) -> bool:
    return not isinstance(EXERCISES[name].expected, str)


def cases() -> list[tuple[str, int, str]]:
    found = []
    for path in PATHS:
        nb = nbformat.read(path, as_version=4)
        found += [(path.stem, i, name) for i, name in answer_cells(nb) if name[:2] == path.stem[:2] and numeric(name)]
    return found


CASES = cases()


_SEP = " \t,，、;；"


def part_of_a_longer_list(text: str, m: re.Match) -> bool:
    """[2, 3] inside (2, 3, 4) is another list: a number right before or after the match, past separators."""
    before, after = text[: m.start()].rstrip(_SEP), text[m.end() :].lstrip(_SEP)
    return before[-1:].isdigit() or bool(re.match(r"-?\d", after))


def patterns(name: str) -> tuple[re.Pattern, re.Pattern, bool]:
    """The answer's regex in markdown, in outputs, and whether it is a rare whole number (three or more digits)."""
    ex = EXERCISES[name]
    pattern = value_pattern(ex.expected, ex.atol)
    computed = pattern  # in an output every number is a result: a whole number ≥ 10 counts anywhere there
    whole = np.ndim(ex.expected) == 0 and float(ex.expected).is_integer()
    if whole and abs(float(ex.expected)) >= 10:
        computed = re.compile(number_pattern(float(ex.expected), decimals(ex.atol)))
    rare = whole and abs(float(ex.expected)) >= 100
    return (computed if rare else pattern), computed, rare


def give_away(nb, index: int, name: str) -> list[str]:
    """Where the answer of the answer cell at `index` is printed above it: 'cell N: …the match…'."""
    ex = EXERCISES[name]
    pattern, computed, rare = patterns(name)
    hits = []
    for i, cell in enumerate(nb.cells[:index]):
        if cell.cell_type == "code" and CHECK_CALL.search(cell.source):
            continue  # an answer cell's own feedback
        if i == index - 1 and cell.cell_type == "markdown" and not rare:
            continue  # the question itself
        text = shown_text(cell, alt=True)
        for m in (pattern if cell.cell_type == "markdown" else computed).finditer(text):
            if np.ndim(ex.expected) and part_of_a_longer_list(text, m):
                continue
            hits.append(f"cell {i}: …{text[max(0, m.start() - 30) : m.end() + 10]}…")
    return hits


def closed_text(cell) -> str:
    """What a student copy shows of a cell before its question is answered: markdown without its folded answers,
    nothing of a reveal cell (closed until the question is tried), the stored outputs of any other cell."""
    if cell.cell_type == "markdown":
        return _REVEAL_BLOCK.sub(" ", cell.source).translate(_MINUS)
    if REVEAL_TAG in cell.metadata.get("tags", []):
        return ""
    return shown_text(cell, alt=True)


def shown_below(nb, index: int) -> list[int]:
    """The cells right below the answer cell at `index` that a learner sees before answering it: its folded answer
    and closed reveal, then the markdown after them, up to the next code cell."""
    below = []
    for i in range(index + 1, len(nb.cells)):
        cell = nb.cells[i]
        if cell.cell_type == "code" and REVEAL_TAG not in cell.metadata.get("tags", []):
            break
        below.append(i)
    return below


def give_away_below(nb, index: int, name: str) -> list[str]:
    """Where the answer of the answer cell at `index` is shown right below it, every reveal closed."""
    pattern, _, _ = patterns(name)
    hits = []
    for i in shown_below(nb, index):
        text = closed_text(nb.cells[i])
        for m in pattern.finditer(text):
            if np.ndim(EXERCISES[name].expected) and part_of_a_longer_list(text, m):
                continue
            hits.append(f"cell {i}: …{text[max(0, m.start() - 30) : m.end() + 10]}…")
    return hits


def test_the_search_below_finds_the_next_prompt_and_skips_folded_answers():
    """03.7 said 「每个数都减去同一个 μ = 5」 right below the μ question, 03.21 「σ 用 √5 … 2.236」 right below the σ
    question; a folded answer, a closed reveal and a code cell's output further down are not on screen."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%%answer 03.mean_apple\n# 在下面一行写答案"),
        nbformat.v4.new_code_cell(
            "%%reveal 03.mean_apple",
            metadata={"tags": [REVEAL_TAG]},
            outputs=[nbformat.v4.new_output("stream", text="μ = 5.0\n")],
        ),
        nbformat.v4.new_markdown_cell(f"<details><summary>{DERIVATION_SUMMARY}</summary>\n\nμ = 5\n\n</details>"),
        nbformat.v4.new_markdown_cell("## 2. 中心化\n\n每个数都减去同一个 μ = 5。"),
        nbformat.v4.new_code_cell("%%answer 03.centered_apple\n# 在下面一行写答案"),
    ]
    assert [h.split(":")[0] for h in give_away_below(nb, 0, "03.mean_apple")] == ["cell 3"]
    nb.cells[3].source = "## 2. 中心化\n\n每个数都减去上一题的 μ。"
    assert not give_away_below(nb, 0, "03.mean_apple")
    nb.cells.insert(3, nbformat.v4.new_code_cell("", outputs=[nbformat.v4.new_output("stream", text="μ = 5\n")]))
    nb.cells.insert(4, nbformat.v4.new_markdown_cell("μ = 5"))
    assert not give_away_below(nb, 0, "03.mean_apple")  # past a code cell: not right below any more


@pytest.mark.parametrize(("stem", "index", "name"), CASES, ids=[c[2] for c in CASES])
def test_no_answer_is_printed_above_its_question(stem, index, name):
    if name in REVIEW or name in COINCIDENCES:
        pytest.skip(f"declared: {REVIEW.get(name) or COINCIDENCES[name]}")
    nb = nbformat.read(course.NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    hits = give_away(nb, index, name) + give_away_below(nb, index, name)  # below: every reveal closed
    if name in PENDING:
        assert hits, f"{name} is no longer given away: remove it from PENDING"
        pytest.xfail(f"not fixed yet: {PENDING[name]}")
    assert not hits, f"{name} (cell {index}) is answered above it or right below it:\n" + "\n".join(hits)


def test_the_give_away_search_finds_what_a_learner_would_see():
    """The search above can fail: it finds answers printed as the old notebooks printed them, and not noise (the
    markdown right above the answer cell is its question and is not searched, so the output comes last here)."""
    old = nbformat.v4.new_notebook()
    old.cells = [
        nbformat.v4.new_markdown_cell("「梨」的 σ² ≈ 6.5；这张表有 3 × 4 个数，放了 2 句话；d = 1024 时参数有 1024 个"),
        nbformat.v4.new_markdown_cell("核对一下：$\\mu = \\frac{20}{4} = 5$"),
        nbformat.v4.new_code_cell(
            "", outputs=[nbformat.v4.new_output("stream", text="x̂ = [-1.342 -0.447  0.447  1.342]\n")]
        ),
        nbformat.v4.new_code_cell("%%answer 03.mean_apple\n# 在下面一行写答案"),
    ]
    assert give_away(old, 3, "03.mean_apple")  # "= 5"
    assert give_away(old, 3, "03.xhat_apple")  # numpy's print of the vector
    assert give_away(old, 3, "03.variance_pear")  # 6.5, a number with decimals, anywhere
    assert give_away(old, 3, "07.param_no_bias")  # 1024 stated with "= 1024"
    # a rare whole number counts anywhere, the prompt included: 256 among the options, 1024 the layer's own size
    options = nbformat.v4.new_markdown_cell("**练习 3**：在 200、255、256、300 这四个数中，哪一个……")
    assert give_away(nbformat.v4.new_notebook(cells=[options, old.cells[3]]), 1, "13.float16_overflow")
    assert give_away(nbformat.v4.new_notebook(cells=[options, old.cells[3]]), 1, "13.welford_m2")
    prompt = nbformat.v4.new_markdown_cell("`torch.nn.LayerNorm(1024, bias=False)` 有多少个可学习的参数？")
    assert give_away(nbformat.v4.new_notebook(cells=[prompt, old.cells[3]]), 1, "07.param_no_bias")
    assert not give_away(nbformat.v4.new_notebook(cells=[prompt, old.cells[3]]), 1, "14.params")  # 1536
    assert not give_away(old, 3, "02.count")  # the 2 of "2 句话" is not stated as a result
    assert not give_away(old, 3, "03.xhat_pear")  # another row's x̂ is another answer
    assert value_pattern(2e-4, 1e-9).search("学习率是 2e-04") and not value_pattern(2e-4, 1e-9).search("2e-05")
    # printed with more decimals than asked, and rounding to the answer: a give-away too (0.333 for 0.33 ± 0.02)
    pattern = value_pattern(0.333, 0.02)
    assert pattern.search("准确率 = 0.333") and pattern.search("0.3251") and pattern.search("0.3349")
    assert not pattern.search("0.3350") and not pattern.search("0.3249") and not pattern.search("10.333")
    assert value_pattern([-1.342, 0.447], 0.0005).search("[-1.34164 0.44721]")
    assert not value_pattern([-1.342, 0.447], 0.0005).search("[-1.34264 0.44721]")


# ---------------------------------------------------------------- a prediction in every lesson, before its reveal


def body_end(nb) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.startswith("## 小结"))


QUIZ = "14-review-and-quiz"  # the review: every question of it is a quiz question, none reveals a new result

# Every question of the quiz, and the statement of notebook 14's review (map, common mistakes, glossary) that answers
# it, or None where the review states only a rule the question still has to work through.
QUIZ_REVIEW: dict[str, str | None] = {
    "14.residual": None,
    "14.count_means": r"LayerNorm \*\*按行\*\*",
    "14.variance": None,
    "14.xhat_last": None,
    "14.constant_row": r"常数行得到 0",
    "14.lost": r"整体的平移和缩放被丢掉",
    "14.affine": None,
    "14.params": r"共 \$?2d\$? 个参数",
    "14.bn_means": r"BatchNorm 按列",
    "14.pre_ln": r"Pre-LN[^|\n]{0,20}：\$(?:h = )?x \+ F\(\\mathrm\{LN\}",
    "14.attention_scale": r"除以 \$\\sqrt\{d\}\$",
    "14.rms_first": r"RMSNorm：不减均值",
    "14.dbeta": None,
    "14.dgamma": None,
    "14.dx_constant": r"\\sum dx = 0",
    "14.merge_m2": None,
    "14.one_pass": r"不用 \$E\[x\^2\]-E\[x\]\^2\$|（危险）",
}


def test_the_quiz_review_comes_after_the_questions_it_answers():
    """Issue 40: 14.3's course map answered 14.27 (常数行得到 0), 14.29, 14.37 and 14.51, and the common mistakes and
    the glossary answered 14.37 and 14.51 again, all above the questions."""
    nb = nbformat.read(course.NOTEBOOKS / f"{QUIZ}.ipynb", as_version=4)
    asked = dict((name, i) for i, name in answer_cells(nb))
    assert sorted(asked) == sorted(QUIZ_REVIEW), "declare every quiz question in QUIZ_REVIEW"
    texts = [shown_text(c, alt=True) for c in nb.cells]
    early = []
    for name, statement in QUIZ_REVIEW.items():
        if statement is None:
            continue
        where = [i for i, t in enumerate(texts) if re.search(statement, t)]
        assert where, f"{name}: the review no longer states {statement!r}: update QUIZ_REVIEW"
        early += [
            f"{name}: cell {i} states it above its question (cell {asked[name]})" for i in where if i < asked[name]
        ]
    assert not early, "\n".join(early)


@pytest.mark.parametrize(
    "path", [p for p in LESSONS if p.stem != QUIZ], ids=[p.stem for p in LESSONS if p.stem != QUIZ]
)
def test_every_lesson_asks_a_prediction_in_its_text(path):
    nb = nbformat.read(path, as_version=4)
    predicts = [i for i, _ in answer_cells(nb) if i < body_end(nb)]
    assert predicts, f"{path.stem}: no checked predict cell before ## 小结"


PREDICTS = []
for _path in LESSONS:
    _nb = nbformat.read(_path, as_version=4)
    PREDICTS += [(_path.stem, i, n) for i, n in answer_cells(_nb) if i < body_end(_nb) and numeric(n)]


def section_after(nb, index: int) -> list[int]:
    """The cells after cell `index` up to the next heading."""
    out = []
    for i in range(index + 1, len(nb.cells)):
        if nb.cells[i].cell_type == "markdown" and re.match(r"#{1,3} ", nb.cells[i].source):
            break
        out.append(i)
    return out


@pytest.mark.parametrize(("stem", "index", "name"), PREDICTS, ids=[c[2] for c in PREDICTS])
def test_what_reveals_a_prediction_is_folded_in_the_student_copy(stem, index, name):
    """Right below a predict cell, its answer is inside a folded <details> or in the output of a `reveal` cell,
    which student copies carry empty and JupyterLab opens folded."""
    nb = nbformat.read(course.NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    ex = EXERCISES[name]
    pattern = value_pattern(ex.expected, ex.atol)
    for i in section_after(nb, index):
        cell = nb.cells[i]
        if cell.cell_type == "code" and REVEAL_TAG in cell.metadata.get("tags", []):
            assert cell.metadata.get("jupyter", {}).get("outputs_hidden") is True, f"cell {i}: reveal not folded"
            continue
        if cell.cell_type == "markdown":
            text = _REVEAL_BLOCK.sub("", cell.source).translate(_MINUS)
        else:
            text = shown_text(cell)
        assert not pattern.search(text), f"{name}: cell {i} shows the answer unfolded: {text[:200]!r}"


_PREVIEWED = ("text/html", "image/svg+xml", "application/pdf", "text/markdown", "text/plain")


def folded_preview(cell) -> str:
    """The one line JupyterLab 4 shows for a folded output: the first non-empty line of the first output, in the
    first of its preferred types that is text (CodeCell.getOutputPlaceholderText)."""
    if not cell.outputs:
        return ""
    out = cell.outputs[0]
    text = out.get("text", "") if out.output_type == "stream" else ""
    for mime in _PREVIEWED:
        if not text and isinstance(out.get("data", {}).get(mime), str):
            text = out["data"][mime]
    return next((line for line in text.split("\n") if line), "")


def test_reveal_cells_are_folded_everywhere():
    """Every `reveal` cell: folded in JupyterLab (outputs_hidden), emptied in the student copy."""
    seen = 0
    for path in PATHS:
        nb = nbformat.read(path, as_version=4)
        student = nbformat.read(path, as_version=4)
        make_student.studentize(student)
        for cell in nb.cells:
            if REVEAL_TAG in cell.metadata.get("tags", []):
                seen += 1
                assert cell.cell_type == "code" and cell.outputs, "a reveal cell shows something when run"
                assert cell.metadata.get("jupyter", {}).get("outputs_hidden") is True
                preview = folded_preview(cell)  # a figure previews as "<Figure size …>": no answer in it
                shown = "" if preview.startswith("<Figure") else re.sub(r"<[^>]*>", "", preview)
                assert not re.search(r"\d", shown), f"{path.stem}: folded, JupyterLab still shows {preview!r}"
        for cell in student.cells:
            if REVEAL_TAG in cell.metadata.get("tags", []):
                assert cell.outputs == [], "a student copy carries no reveal output"
        assert all(
            DERIVATION_SUMMARY in c.source
            for c in student.cells
            if c.cell_type == "markdown" and "<details>" in c.source
        ), "a folded reveal in the text stays in the student copy"
    assert seen >= 6


_ANSWER_DETAILS = re.compile(r"<details>\s*<summary>([^<]*(?:答案|推导)[^<]*)</summary>")


def derivations_before_their_reveal(nb) -> list[str]:
    """Every markdown <details> with a worked answer (summary mentions 答案 or 推导) below a predict cell: where it
    sits before the `%%reveal` cell of that predict (one click gave the answer away before answering), or where
    that predict has no reveal cell at all."""
    names = [m.group(1) for c in nb.cells if c.cell_type == "code" for m in [course.REVEAL_CALL.match(c.source)] if m]
    wrong, last, revealed = [], None, False
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            answer = CHECK_CALL.match(cell.source)
            if answer and answer.group(1) != last:
                last, revealed = answer.group(1), False
            reveal = course.REVEAL_CALL.match(cell.source)
            revealed = revealed or bool(reveal and reveal.group(1) == last)
            continue
        for summary in _ANSWER_DETAILS.findall(cell.source):
            if last is None or revealed:
                continue
            where = "before its %%reveal cell" if last in names else "and it has no %%reveal cell"
            wrong.append(f"cell {i}: <details>「{summary}」 answers {last} {where}")
    return wrong


def test_a_derivation_waits_for_its_reveal():
    """The worked derivation of a predict, folded in <details>, comes right after the predict's `%%reveal` cell:
    the learner answers, checks with the reveal, then reads how (before, one click gave the answer away)."""
    nb = nbformat.v4.new_notebook()
    block = f"<details><summary>{DERIVATION_SUMMARY}</summary>\n\nμ = 5\n\n</details>"
    nb.cells = [
        nbformat.v4.new_code_cell("%%answer 03.mean_apple\n# 在下面一行写答案"),
        nbformat.v4.new_markdown_cell(block),
        nbformat.v4.new_code_cell("%%reveal 03.mean_apple\nprint(5)", metadata={"tags": [REVEAL_TAG]}),
    ]
    assert derivations_before_their_reveal(nb) == [
        f"cell 1: <details>「{DERIVATION_SUMMARY}」 answers 03.mean_apple before its %%reveal cell"
    ]
    nb.cells[1], nb.cells[2] = nb.cells[2], nb.cells[1]
    assert derivations_before_their_reveal(nb) == []
    del nb.cells[1]
    assert "no %%reveal cell" in derivations_before_their_reveal(nb)[0]

    wrong = []
    for path in PATHS:
        nb = nbformat.read(path, as_version=4)
        wrong += [f"{path.stem} {w}" for w in derivations_before_their_reveal(nb)]
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                wrong += [
                    f"{path.stem}: summary 「{t}」, not {DERIVATION_SUMMARY}"
                    for t in _ANSWER_DETAILS.findall(cell.source)
                    if t != DERIVATION_SUMMARY
                ]
    assert not wrong, "\n".join(wrong)


def test_every_reveal_cell_names_the_predict_cell_it_reveals():
    """A `reveal` cell starts with `%%reveal NN.name` (lnlib.answers: closed until NN.name is tried), and NN.name is
    the `%%answer` cell nearest above it. `python -m tools.reveal_cells` converts an old-style cell."""
    wrong = []
    for path in PATHS:
        nb = nbformat.read(path, as_version=4)
        last = None
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            last = next(iter(CHECK_CALL.findall(cell.source)), last)
            tagged = REVEAL_TAG in cell.metadata.get("tags", [])
            named = course.REVEAL_CALL.match(cell.source)
            if tagged and not named:
                wrong.append(f"{path.stem} cell {i}: a reveal cell without %%reveal (python -m tools.reveal_cells)")
            elif named and not tagged:
                wrong.append(f"{path.stem} cell {i}: %%reveal without the tag reveal (and outputs_hidden)")
            elif named and named.group(1) != last:
                wrong.append(f"{path.stem} cell {i}: %%reveal {named.group(1)}, but the answer cell above is {last}")
            elif named and "核对一下" in cell.source:
                wrong.append(f"{path.stem} cell {i}: %%reveal prints 核对一下 itself")
    assert not wrong, "\n".join(wrong)


def test_the_site_folds_reveal_outputs(tmp_path):
    from tools import build_site

    nb = nbformat.v4.new_notebook()
    out = nbformat.v4.new_output("stream", text="μ = 5.0\n")
    nb.cells = [
        nbformat.v4.new_code_cell("print('μ =', 5.0)", outputs=[out], metadata={"tags": [REVEAL_TAG]}),
        nbformat.v4.new_code_cell("print('σ² =', 5.0)", outputs=[nbformat.v4.new_output("stream", text="σ² = 5.0\n")]),
    ]
    site = {"static": "_static/", "mathjax_config": build_site.MATHJAX_CONFIG, "top": "", "bottom": ""}
    body, _ = build_site._exporter().from_notebook_node(nb, resources={"metadata": {"name": "t"}, "site": site})
    folded = re.search(rf'<details class="ln-reveal"><summary>{REVEAL_SUMMARY}</summary>(.*?)</details>', body, re.S)
    assert folded and "μ = 5.0" in folded.group(1)
    assert "σ² = 5.0" in body and "σ² = 5.0" not in folded.group(1)


# ---------------------------------------------------------------- progress the learner can find (issue 40)


def test_the_learner_is_told_where_to_see_progress():
    """`lnlib.progress()` keeps the learner's record across restarts; 00 says how to see it and every lesson's
    generated footer (right after its exercises) says it again."""
    from tools import nav

    index = nbformat.read(course.NOTEBOOKS / f"{course.INDEX_STEM}.ipynb", as_version=4)
    assert any("lnlib.progress()" in c.source for c in index.cells if c.cell_type == "markdown")
    missing = []
    for path in LESSONS:
        last = nbformat.read(path, as_version=4).cells[-1]
        if not (last.source.startswith(nav.FOOTER) and "`lnlib.progress()`" in last.source):
            missing.append(path.stem)
    assert not missing, f"footer without lnlib.progress(): {missing}"
