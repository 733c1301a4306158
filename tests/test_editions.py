"""The two editions cannot drift: every English notebook is its Chinese twin's cells, code and exercises.

Over whatever notebooks/en/ holds (a Chinese notebook without an English twin is allowed: tools.edition lists it),
and on a tiny pair written here, which shows each check can fail (tools/edition.py holds the rules).
"""

from __future__ import annotations

import copy
import json
import re
import subprocess

import nbformat
import pytest

from tools import course, edition, make_student

PAIRS = edition.pairs()


def test_every_file_of_the_english_folder_is_checked():
    folder = course.EDITION_FOLDERS["en"]
    found = sorted(p.name for p in folder.glob("*.ipynb")) if folder.is_dir() else []
    assert found == [pair.name for pair in PAIRS], "an English notebook not named NN-slug.ipynb would go unchecked"


@pytest.mark.parametrize("pair", PAIRS, ids=[pair.name for pair in PAIRS])
def test_english_notebook_follows_its_chinese_twin(pair):
    assert edition.differences(pair) == []


@pytest.mark.parametrize("path", course.notebook_paths(), ids=lambda p: p.stem[:2])
def test_every_chinese_notebook_chooses_chinese(path):
    nb = nbformat.read(path, as_version=4)
    assert edition.language_set(nb) == "zh"
    assert course.edition_of(nb) == "zh"


# ---------------------------------------------------------------- a tiny pair, and what each check catches


def cell(kind, source, outputs=(), **metadata):
    made = nbformat.v4.new_code_cell(source) if kind == "code" else nbformat.v4.new_markdown_cell(source)
    made.metadata.update(metadata)
    if kind == "code":
        made.outputs = [nbformat.v4.new_output("display_data", data=dict(d)) for d in outputs]
    return made


PNG = {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}
REVEAL = {"tags": ["reveal"], "jupyter": {"outputs_hidden": True}}


def chinese():
    return nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        cells=[
            cell("markdown", "<!-- nav:header -->\n# LayerNorm 手算 · 第 3 篇：手算一行"),
            cell("markdown", "## 均值\n\n苹果这一行的均值是多少？"),
            cell(
                "code",
                'import numpy as np\n\nimport lnlib\nlnlib.set_language("zh")\nfrom lnlib import plots\n\n'
                'x = np.array([2, 4, 6, 8])  # 苹果\nprint(f"均值：{x.mean()}", "元")',
            ),
            cell("code", "%%answer 03.mean_apple\n# 在下面一行写答案"),
            cell("code", '%%reveal 03.mean_apple\nprint("核对一下：", x.mean())', **REVEAL),
            cell("code", 'fig = plots.stage_bars(lnlib.layer_norm_steps(x), title="苹果")\nfig', outputs=[PNG]),
            cell("code", "%%code_exercise 03.my_mean\ndef my_mean(x):\n    ...  # 在这里填写"),
            cell("code", "%timeit x.mean()\nlabels = {'均值': 5}\nlabels['均值']", **{"tags": ["nbval-ignore-output"]}),
            cell("markdown", "<!-- nav:footer -->\n---\n[目录](00-index.ipynb)"),
        ],
    )


ENGLISH_SOURCES = [
    "<!-- nav:header -->\n# LayerNorm by Hand · Lesson 3: One Row by Hand",
    "## The mean\n\nWhat is the mean of the 苹果 (apple) row?",
    'import numpy as np\n\nimport lnlib\nlnlib.set_language("en")\nfrom lnlib import plots\n\n'
    'x = np.array([2, 4, 6, 8])  # apple\nprint(f"mean: {x.mean()}", "yuan")',
    "%%answer 03.mean_apple\n# write your answer on the line below",
    '%%reveal 03.mean_apple\nprint("Check:", x.mean())',
    'fig = plots.stage_bars(lnlib.layer_norm_steps(x), title="apple")\nfig',
    "%%code_exercise 03.my_mean\ndef my_mean(x):\n    ...  # fill in here",
    "%timeit x.mean()\nlabels = {'mean': 5}\nlabels['mean']",
    "<!-- nav:footer -->\n---\n[Contents](00-index.ipynb)",
]

NAME = "03-one-row-by-hand.ipynb"


@pytest.fixture
def root(tmp_path):
    """tmp_path/notebooks/03-….ipynb (Chinese) and notebooks/en/03-….ipynb (English), stamped."""
    zh = chinese()
    en = copy.deepcopy(zh)
    for made, source in zip(en.cells, ENGLISH_SOURCES, strict=True):
        made.source = source
    en.metadata["lnlib"] = {"edition": "en", "follows": {"notebook": f"notebooks/{NAME}", "commit": "b1de8af"}}
    (tmp_path / "notebooks" / "en").mkdir(parents=True)
    nbformat.write(zh, tmp_path / "notebooks" / NAME)
    nbformat.write(en, tmp_path / "notebooks" / "en" / NAME)
    (tmp_path / "notebooks" / "04-epsilon.ipynb").write_text(nbformat.writes(chinese()), encoding="utf-8")
    assert edition.stamp(the_pair(tmp_path), root=tmp_path) == []
    return tmp_path


def the_pair(root):
    return edition.Pair(root / "notebooks" / "en" / NAME, root / "notebooks" / NAME)


def edit(root, which, change):
    path = the_pair(root).english if which == "en" else the_pair(root).chinese
    nb = nbformat.read(path, as_version=4)
    change(nb)
    nbformat.write(nb, path)


def test_a_faithful_twin_passes_and_is_stamped(root, capsys):
    pair = the_pair(root)
    assert edition.differences(pair) == []
    follows = nbformat.read(pair.english, as_version=4).metadata["lnlib"]["follows"]
    assert follows["notebook"] == f"notebooks/{NAME}" and follows["fingerprint"].startswith("sha256:")
    assert follows["commit"] == "b1de8af", "outside a git checkout the recorded commit stays"
    assert edition.main(["--check"], root=root) == 0
    out = capsys.readouterr().out
    assert "1 of 1 English notebooks follow" in out and "no English twin yet: 04-epsilon.ipynb" in out


def set_source(i, text):
    def change(nb):
        nb.cells[i].source = text

    return change


def replace(i, old, new):
    def change(nb):
        assert old in nb.cells[i].source
        nb.cells[i].source = nb.cells[i].source.replace(old, new)

    return change


def drop_outputs(i):
    def change(nb):
        nb.cells[i].outputs = []

    return change


def untag(i):
    def change(nb):
        nb.cells[i].metadata = {}

    return change


def add_cell(nb):
    nb.cells.insert(2, cell("markdown", "One more paragraph."))


def to_raw(nb):
    nb.cells[1] = nbformat.v4.new_raw_cell(nb.cells[1].source)


def forget_edition(nb):
    nb.metadata["lnlib"].pop("edition")


def move_header(nb):
    nb.cells[0], nb.cells[1] = nb.cells[1], nb.cells[0]


BREAKS = {  # (which edition is edited, how, a word of the expected complaint)
    "a cell added": ("en", add_cell, "cells"),
    "a cell type changed": ("en", to_raw, "raw cell"),
    "a tag dropped": ("en", untag(4), "metadata"),
    "an identifier renamed": ("en", replace(2, "x = np", "y = np"), "code differs"),
    "a number changed": ("en", replace(2, "[2, 4, 6, 8]", "[2, 4, 6, 9]"), "code differs"),
    "an f-string made plain": ("en", replace(2, 'f"mean: {x.mean()}"', '"mean: {x.mean()}"'), "code differs"),
    "a string made an f-string": ("en", replace(2, '"yuan"', 'f"yuan"'), "code differs"),
    "a call added": ("en", replace(4, "x.mean())", "x.mean(), x.std())"), "code differs"),
    "a keyword argument added": ("en", replace(5, 'title="apple"', 'title="apple", ax=None'), "code differs"),
    "a code exercise's body written": ("en", replace(6, "...  # fill in here", "return x.mean()"), "code differs"),
    "an exercise renamed": ("en", replace(3, "03.mean_apple", "03.mean_pear"), "exercises"),
    "a reveal renamed": ("en", replace(4, "03.mean_apple", "03.mean"), "magic lines"),
    "a line magic changed": ("en", replace(7, "%timeit x.mean()", "%timeit x.std()"), "magic lines"),
    "an answer typed in": ("en", replace(3, "below", "below\n5"), "code differs"),
    "the Chinese placeholder kept": ("en", set_source(3, "%%answer 03.mean_apple\n# 在下面一行写答案"), "answer cell"),
    "a figure missing": ("en", drop_outputs(5), "stored figures"),
    "the language line missing": ("en", replace(2, 'lnlib.set_language("en")\n', ""), "choose its language"),
    "the Chinese language kept": ("en", replace(2, 'set_language("en")', 'set_language("zh")'), "choose its language"),
    "invalid Python": ("en", replace(6, "def my_mean(x):", "def my_mean(x)"), "not valid Python"),
    "the navigation moved": ("en", move_header, "navigation"),
    "no edition recorded": ("en", forget_edition, "lnlib.edition"),
    "the Chinese prose changed": ("zh", replace(1, "是多少", "等于多少"), "changed since commit b1de8af"),
    "a Chinese comment changed": ("zh", replace(2, "# 苹果", "# 苹果这一行"), "changed since commit b1de8af"),
    "a Chinese cell added": ("zh", add_cell, "cells"),
}


@pytest.mark.parametrize(("which", "change", "word"), BREAKS.values(), ids=BREAKS.keys())
def test_each_drift_is_caught(root, which, change, word, capsys):
    edit(root, which, change)
    found = edition.differences(the_pair(root))
    assert any(word in problem for problem in found), found
    assert edition.main(["--check"], root=root) == 1
    assert word in capsys.readouterr().out


ALLOWED = {  # what the English edition may write its own way, and what leaves the record current
    "comments": ("en", replace(2, "# apple", "# the apple row, as in the lesson")),
    "the words in strings": ("en", replace(4, '"Check:"', '"Let us check:"')),
    "a dict key translated": ("en", replace(7, "labels['mean']", "labels['mean']  # the same key")),
    "prose": ("en", replace(1, "What is", "Work out")),
    "the Chinese outputs": ("zh", lambda nb: nb.cells[5].outputs[0].data.update({"text/plain": "<Figure 2>"})),
    "the Chinese navigation (make repo)": ("zh", replace(0, "# LayerNorm", "[Binder](https://x)\n# LayerNorm")),
}


@pytest.mark.parametrize(("which", "change"), ALLOWED.values(), ids=ALLOWED.keys())
def test_what_may_differ(root, which, change):
    edit(root, which, change)
    assert edition.differences(the_pair(root)) == []


def test_stamp_refuses_a_twin_that_drifted_and_restamps_one_that_caught_up(root, capsys):
    edit(root, "zh", replace(1, "是多少", "等于多少"))
    assert edition.differences(the_pair(root))
    edit(root, "en", add_cell)
    english = the_pair(root).english
    before = english.read_bytes()
    assert edition.main(["stamp", str(english)], root=root) == 1
    assert english.read_bytes() == before and "NOT stamped" in capsys.readouterr().out
    edit(root, "en", lambda nb: nb.cells.pop(2))
    assert edition.main(["stamp", str(english)], root=root) == 0
    assert edition.differences(the_pair(root)) == []


def test_an_unstamped_twin_says_how_to_stamp_it(root):
    edit(root, "en", lambda nb: nb.metadata["lnlib"]["follows"].pop("fingerprint"))
    assert any("python -m tools.edition stamp notebooks/en/" in p for p in edition.differences(the_pair(root)))


def test_an_english_notebook_without_a_chinese_twin_fails(root):
    (root / "notebooks" / NAME).unlink()
    assert edition.differences(the_pair(root)) == [f"no Chinese notebook notebooks/{NAME} to follow"]


def test_the_fingerprint_reads_sources_only():
    nb = chinese()
    base = edition.fingerprint(nb)
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", base)
    other = copy.deepcopy(nb)
    other.cells[5].outputs = []
    other.cells[0].source += "\n[▶ Binder](https://mybinder.org/v2/gh/a/b/HEAD)"
    assert edition.fingerprint(other) == base, "outputs and generated cells are not part of the text"
    for i in range(1, len(nb.cells) - 1):
        changed = copy.deepcopy(nb)
        changed.cells[i].source += " "
        assert edition.fingerprint(changed) != base, i


def test_the_student_copy_of_an_english_notebook_has_the_english_placeholder(root):
    nb = nbformat.read(the_pair(root).english, as_version=4)
    nb.cells[3].source = "%%answer 03.mean_apple\n5"
    make_student.studentize(nb)
    assert nb.cells[3].source == "%%answer 03.mean_apple\n# write your answer on the line below"
    zh = chinese()
    zh.cells[3].source = "%%answer 03.mean_apple\n5"
    make_student.studentize(zh)
    assert zh.cells[3].source == "%%answer 03.mean_apple\n# 在下面一行写答案"
    assert course.is_placeholder("# write your answer on the line below") and course.is_placeholder(
        "# 在下面一行写答案"
    )


@pytest.mark.parametrize("path", course.notebook_paths(), ids=lambda p: p.stem[:2])
def test_every_chinese_notebook_can_be_compared(path):
    """Its own code, the language and placeholders switched, is a faithful twin (every cell parses and compares)."""
    zh = nbformat.read(path, as_version=4)
    en = copy.deepcopy(zh)
    for code in (c for c in en.cells if c.cell_type == "code"):
        code.source = code.source.replace('set_language("zh")', 'set_language("en")')
        code.source = code.source.replace(course.PLACEHOLDERS["zh"], course.PLACEHOLDERS["en"])
    assert edition.structure_differences(zh, en) == []


# ---------------------------------------------------------------- the generated cells of the English edition

CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def test_every_lesson_of_the_plan_has_english_words():
    assert course.PLAN.title_in("en") and course.PLAN.license_note_in("en")
    for lesson in course.LESSONS:
        en = lesson.in_edition("en")
        assert en.title and en.summary and len(en.goals) == len(lesson.goals), lesson.stem
        for text in (en.title, en.summary, *en.goals, course.PLAN.title_in("en"), course.PLAN.license_note_in("en")):
            bare = re.sub(r"(我|吃|苹果) \([A-Za-z]+\)|我 / 吃 / 苹果", "", text)  # the example's tokens, glossed
            assert not CJK.search(bare), (lesson.stem, text)


def test_nav_writes_the_english_cells_in_english(tmp_path):
    """tools.nav fills an English notebook's header, footer and course map from the plan's English words."""
    from tools import nav

    chinese_folder = tmp_path / "notebooks"
    (chinese_folder / "en").mkdir(parents=True)
    for stem in ("00-index", "03-one-row-by-hand"):
        nb = nbformat.read(course.NOTEBOOKS / f"{stem}.ipynb", as_version=4)
        nbformat.write(nb, chinese_folder / f"{stem}.ipynb")
        nb.metadata["lnlib"] = {"edition": "en"}
        for generated in (c for c in nb.cells if edition.is_generated(c)):
            generated.source = generated.source.split("\n")[0]  # the marker line only, as a writer leaves it
        nbformat.write(nb, chinese_folder / "en" / f"{stem}.ipynb")
    changed = nav.update(repository="me/course", notebooks=chinese_folder, branch="")
    assert sorted(changed) == ["00-index", "03-one-row-by-hand", "en/00-index", "en/03-one-row-by-hand"]
    assert nav.update(check=True, repository="me/course", notebooks=chinese_folder, branch="") == []
    lesson = nbformat.read(chinese_folder / "en" / "03-one-row-by-hand.ipynb", as_version=4)
    head, foot = lesson.cells[0].source, lesson.cells[-1].source
    assert head.startswith("<!-- nav:header -->\n# LayerNorm by Hand · Notebook 3: One row by hand\n")
    assert "**In this notebook you will learn:**" in head
    assert "(https://mybinder.org/v2/gh/me/course/HEAD?urlpath=lab/tree/notebooks/en/03-one-row-by-hand.ipynb)" in head
    assert "Notebook 2: Which axis? (coming soon)" in foot and "[Contents](00-index.ipynb)" in foot
    assert "lnlib.progress()" in foot and "licensed under [CC BY 4.0]" in foot
    index = nbformat.read(chinese_folder / "en" / "00-index.ipynb", as_version=4)
    course_map = next(c.source for c in index.cells if c.source.startswith("<!-- nav:map -->"))
    assert "| Notebook | Title | What it covers |" in course_map
    assert "| 03 | [One row by hand](03-one-row-by-hand.ipynb) |" in course_map
    assert "| 04 | What ε does (coming soon) |" in course_map
    for text in (head, foot, course_map):
        assert not CJK.search(re.sub(r"(我|吃|苹果) \([A-Za-z]+\)|我 / 吃 / 苹果", "", text)), text
    zh = nbformat.read(chinese_folder / "03-one-row-by-hand.ipynb", as_version=4)
    assert "第 3 篇：手算一行" in zh.cells[0].source and "第 2 篇：按哪一维统计（即将推出）" in zh.cells[-1].source
    assert "lab/tree/notebooks/03-one-row-by-hand.ipynb" in zh.cells[0].source


def test_student_copies_of_the_english_edition(tmp_path):
    """make_student writes the English copies next to the Chinese ones (<out>/en/), reset and without answers."""
    notebooks = tmp_path / "notebooks"
    (notebooks / "en").mkdir(parents=True)
    zh = chinese()
    zh.cells[3].source = "%%answer 03.mean_apple\n5"
    nbformat.write(zh, notebooks / NAME)
    en = copy.deepcopy(zh)
    for made, source in zip(en.cells, ENGLISH_SOURCES, strict=True):
        made.source = source
    en.metadata["lnlib"] = {"edition": "en"}
    en.cells[3].source = "%%answer 03.mean_apple\n5"
    en.cells[1].source = (
        "Work it out first. The worked answers are in `notebooks/solutions/`. Then compare.\n\n"
        "<details><summary>Open after checking: the derivation</summary>\n\nμ = 20/4 = 5\n</details>\n\n"
        "<details><summary>The answer</summary>\n\n5\n</details>\n"
    )
    nbformat.write(en, notebooks / "en" / NAME)
    out = tmp_path / "student"
    written = make_student.build(out, notebooks=notebooks, quiet=True)
    assert [p.relative_to(out).as_posix() for p in written] == [NAME, f"en/{NAME}"]
    copy_en = nbformat.read(out / "en" / NAME, as_version=4)
    assert copy_en.cells[3].source == "%%answer 03.mean_apple\n# write your answer on the line below"
    prose = copy_en.cells[1].source
    assert prose.startswith("Work it out first. Your teacher hands out the worked answers. Then compare.")
    assert "the derivation" in prose and "μ = 20/4 = 5" in prose, "the derivation stays, folded"
    assert "The answer" not in prose
    assert copy_en.cells[4].outputs == [] and copy_en.cells[4].source.startswith("%%reveal")
    copy_zh = nbformat.read(out / NAME, as_version=4)
    assert copy_zh.cells[3].source == "%%answer 03.mean_apple\n# 在下面一行写答案"


def test_the_site_builds_both_editions(tmp_path):
    """English pages under en/ with lang="en", English navigation, and a language switch both ways."""
    from tools import build_site

    notebooks = tmp_path / "notebooks"
    (notebooks / "en").mkdir(parents=True)
    for stem in ("00-index", "03-one-row-by-hand", "04-epsilon"):
        nb = nbformat.read(course.NOTEBOOKS / f"{stem}.ipynb", as_version=4)
        nbformat.write(nb, notebooks / f"{stem}.ipynb")
        if stem != "04-epsilon":
            nb.metadata["lnlib"] = {"edition": "en"}
            nbformat.write(nb, notebooks / "en" / f"{stem}.ipynb")
    out = tmp_path / "site"
    pages = build_site.build(out, notebooks=notebooks, preview=True, quiet=True)
    assert [p.relative_to(out).as_posix() for p in pages] == [
        "index.html",
        "03-one-row-by-hand.html",
        "04-epsilon.html",
        "en/index.html",
        "en/03-one-row-by-hand.html",
    ]
    zh = (out / "03-one-row-by-hand.html").read_text(encoding="utf-8")
    en = (out / "en" / "03-one-row-by-hand.html").read_text(encoding="utf-8")
    assert '<html lang="zh-Hans">' in zh and '<html lang="en">' in en
    assert '<a class="ln-lang" href="en/03-one-row-by-hand.html" hreflang="en" lang="en">English</a>' in zh
    assert '<a class="ln-lang" href="../03-one-row-by-hand.html" hreflang="zh-Hans" lang="zh-Hans">中文</a>' in en
    assert "<title>Notebook 3: One row by hand · LayerNorm by Hand</title>" in en
    assert "Notebook 3</span>" in en and ">Contents</a>" in en and "All notebooks" in en and "Run on Binder" in en
    assert "04 What ε does (coming soon)" in en, "a lesson the English edition lacks is listed, not linked"
    assert 'src="../_static/binder-badge.svg"' in en and 'src="../_static/mathjax/MathJax.js' in en
    assert "lab/tree/notebooks/en/03-one-row-by-hand.ipynb" in en
    assert "Think first, then open: the answer" in en and "想好了再展开：答案" in zh
    assert "open this notebook on Binder" in en  # the explorer's note, in place of the widget
    four = (out / "04-epsilon.html").read_text(encoding="utf-8")
    assert 'href="en/index.html" hreflang="en"' in four, "no English twin: the switch leads to the English map"


def test_the_printed_english_course(tmp_path):
    """tools.pdf --edition en: the English pages (the site's en/), an English contents page, lang="en"."""
    from tools import pdf

    notebooks, site = tmp_path / "notebooks" / "en", tmp_path / "site" / "en"
    notebooks.mkdir(parents=True)
    site.mkdir(parents=True)
    for stem in ("00-index", "03-one-row-by-hand"):
        nbformat.write(chinese(), notebooks / f"{stem}.ipynb")
        (site / f"{'index' if stem == '00-index' else stem}.html").write_text(
            f'<html><head><title>t</title></head><body><main><p>BODY-{stem}</p><a href="index.html">Contents</a>'
            "</main></body></html>",
            encoding="utf-8",
        )
    doc = pdf.combined_html(site, "en", notebooks)
    assert doc.startswith('<!DOCTYPE html>\n<html lang="en">') and "<title>LayerNorm by Hand</title>" in doc
    contents = doc[: doc.index("BODY-00-index")]
    assert "<h2>Contents</h2>" in contents and "Notebook 3  One row by hand" in contents
    assert "Course map and how to use it" in contents and "the whole course (print edition)" in contents
    assert not CJK.search(contents)
    assert 'href="#ln-ch-00-index"' in doc


def test_changes_shows_the_chinese_sources_changed_since_the_stamp(root):
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "notebooks"], ["commit", "-q", "-m", "zh"]):
        subprocess.run([*git, *args], cwd=root, check=True, capture_output=True)
    assert edition.stamp(the_pair(root), root=root) == []
    commit = nbformat.read(the_pair(root).english, as_version=4).metadata["lnlib"]["follows"]["commit"]
    assert re.fullmatch(r"[0-9a-f]{7,}", commit), "the commit of the Chinese text is recorded"
    assert edition.changes(the_pair(root), commit, root) == []
    edit(root, "zh", replace(1, "是多少", "等于多少"))
    edit(root, "zh", lambda nb: nb.cells[5].outputs.clear())  # outputs are not part of the diff
    diff = edition.changes(the_pair(root), commit, root)
    assert "-苹果这一行的均值是多少？" in diff and "+苹果这一行的均值等于多少？" in diff
    assert not any("image/png" in line for line in diff)


def test_stale_cells_compare_each_edition_with_its_own_release(tmp_path):
    """A changed Chinese cell is looked for in the students' Chinese notebook only, never in its English twin with
    the same file name and the same cell ids."""
    from tools import student_release

    def notebook(source):
        return json.dumps({"cells": [{"id": "c1", "cell_type": "markdown", "source": source}]})

    changed = {NAME: {"c1": ("旧", "新")}, f"en/{NAME}": {"c1": ("old", "new")}}
    student = tmp_path / "alice" / "course" / "notebooks"
    (student / "en").mkdir(parents=True)
    (student / NAME).write_text(notebook("新"), encoding="utf-8")  # up to date
    (student / "en" / NAME).write_text(notebook("old"), encoding="utf-8")  # kept the old English cell
    found = student_release.stale_cells(changed, tmp_path)
    assert found == [student_release.Stale("alice", f"en/{NAME}", "c1", "old")]
