"""The course as a whole: notebook conventions, generated navigation, exercises and their solutions."""

from __future__ import annotations

import json
import re
import runpy

import course
import nav
import nbformat
import pytest
from conftest import NOTEBOOKS, ROOT, SOLUTIONS, notebook_paths

import lnlib
from lnlib.code_exercises import judge_function
from lnlib.exercises import EXERCISES, judge

PATHS = notebook_paths()
IDS = [p.stem for p in PATHS]
CHECK_CALL = re.compile(r'lnlib\.check\(\s*"([0-9]{2}\.[a-z0-9_]+)"\s*,\s*answer\s*\)')
FUNCTION_CALL = re.compile(r'lnlib\.check_function\(\s*"([0-9]{2}\.[a-z0-9_]+)"\s*,\s*\w+\s*\)')


def read(path):
    return nbformat.read(path, as_version=4)


def exercise_names(nb) -> list[str]:
    return [m for c in nb.cells if c.cell_type == "code" for m in CHECK_CALL.findall(c.source)]


def function_exercise_names(nb) -> list[str]:
    return [m for c in nb.cells if c.cell_type == "code" for m in FUNCTION_CALL.findall(c.source)]


def test_notebooks_follow_the_plan():
    stems = [lesson.stem for lesson in course.LESSONS]
    assert IDS, "no notebooks found"
    assert set(IDS) <= set(stems)
    assert IDS == sorted(IDS)
    assert stems[: len(IDS)] == IDS, "notebooks must be added in course order without gaps"


def test_navigation_cells_are_current():
    assert nav.update(check=True) == [], "run `python tools/nav.py`"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_notebook_skeleton(path):
    nb = read(path)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert nb.cells[0].source.startswith(nav.HEADER)
    assert nb.cells[-1].source.startswith(nav.FOOTER)
    headings = [c.source for c in nb.cells if c.cell_type == "markdown"]
    if path.stem != "00-index":
        assert any(h.startswith("## 小结") for h in headings), "missing ## 小结"
        assert any(h.startswith("## 练习") for h in headings), "missing ## 练习"
        assert len(exercise_names(nb)) >= 2, "at least two checked exercises"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_outputs_are_clean(path):
    """No errors, stderr, memory addresses or local paths in stored outputs; every code cell was run, in order."""
    nb = read(path)
    last = 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        assert cell.execution_count is not None and cell.execution_count > last, f"cell {i}: Restart & Run All"
        last = cell.execution_count
        for out in cell.outputs:
            assert out.output_type != "error", f"cell {i}: stored error"
            assert out.get("name") != "stderr", f"cell {i}: stored stderr {out.get('text', '')[:80]!r}"
            text = json.dumps(out.get("data", {}), ensure_ascii=False) + out.get("text", "")
            for noise in (r"0x[0-9a-f]{6,}", r"/tmp/", r"/root/", r"/home/", r"/work/", "findfont", r"Glyph \d+"):
                assert not re.search(noise, text), f"cell {i}: output holds {noise!r}"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_widget_cells_are_tagged(path):
    for cell in read(path).cells:
        if cell.cell_type == "code" and re.search(r"widgets\.\w+\(", cell.source):
            assert "nbval-ignore-output" in cell.metadata.get("tags", []), cell.source


@pytest.mark.parametrize("path", [p for p in PATHS if p.stem != "00-index"], ids=IDS[1:])
def test_exercise_cells_start_unanswered(path):
    for cell in read(path).cells:
        if cell.cell_type == "code" and CHECK_CALL.search(cell.source):
            assert "answer = None  # 在这里填写" in cell.source
            assert "尚未作答" in "".join(o.get("text", "") for o in cell.outputs)
        if cell.cell_type == "code" and FUNCTION_CALL.search(cell.source):
            assert "...  # 在这里填写" in cell.source, "a code exercise starts as a placeholder whose body is `...`"
            assert "还没写" in "".join(o.get("text", "") for o in cell.outputs)


def solution_files():
    return sorted(SOLUTIONS.glob("[0-9][0-9]-*.py"))


def test_every_notebook_with_exercises_has_solutions():
    for path in PATHS[1:]:
        assert (SOLUTIONS / f"{path.stem}.py").exists(), f"missing solutions for {path.stem}"


@pytest.mark.parametrize("solution", solution_files(), ids=lambda p: p.stem)
def test_solutions_pass_their_checks(solution, capsys):
    answers = runpy.run_path(str(solution))["ANSWERS"]
    nb = read(NOTEBOOKS / f"{solution.stem}.ipynb")
    assert sorted(answers) == sorted(set(exercise_names(nb))), "solutions and notebook exercises differ"
    for name, answer in answers.items():
        verdict = judge(name, answer)
        assert verdict.ok, f"{name}: {verdict.message}"
    functions = runpy.run_path(str(solution)).get("FUNCTIONS", {})
    assert sorted(functions) == sorted(set(function_exercise_names(nb))), "solutions and code exercises differ"
    for name, fn in functions.items():
        verdict = judge_function(name, fn)
        assert verdict.ok, f"{name}: {verdict.message}"


def test_every_registered_exercise_is_used_in_a_notebook():
    used = {n for p in PATHS for n in exercise_names(read(p))}
    assert set(EXERCISES) == used


def test_check_rejects_wrong_answers(capsys):
    lnlib.check("03.mean_wo", 4)
    out = capsys.readouterr().out
    assert "✗" in out and "提示" in out
    lnlib.check("03.xhat_wo", [1.342, 0.447])
    assert "形状" in capsys.readouterr().out
    assert not judge("03.mean_wo", "五").ok
    lnlib.check("03.mean_wo", None)
    assert "尚未作答" in capsys.readouterr().out


def test_readme_lists_every_notebook_and_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make lab" in readme and "make test" in readme
    for lesson in course.LESSONS:
        assert lesson.stem in readme or lesson.title in readme, lesson.stem


def test_binder_environment_is_pinned():
    lines = [x.strip() for x in (ROOT / "binder" / "requirements.txt").read_text().splitlines()]
    reqs = [x for x in lines if x and not x.startswith("#")]
    for req in reqs:
        assert "==" in req, f"not pinned: {req}"
    names = {r.split("==")[0].lower() for r in reqs}
    assert {"jupyterlab", "ipywidgets", "numpy", "pandas", "matplotlib"} <= names
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"
    # the test tools, the split and the bundled font: tests/test_packaging.py


CJK_LATIN = re.compile(r"[\u4e00-\u9fff][A-Za-z0-9]|[A-Za-z0-9][\u4e00-\u9fff]")


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_one_space_between_chinese_and_latin_in_prose(path):
    """One spacing style everywhere (`第 1 维`, `μ = 5`), outside code, math and link targets."""
    for cell in read(path).cells:
        if cell.cell_type != "markdown":
            continue
        prose = re.sub(r"`[^`]*`|\$[^$]*\$|\]\([^)]*\)", " ", cell.source)
        assert not CJK_LATIN.search(prose), CJK_LATIN.search(prose).group(0)
