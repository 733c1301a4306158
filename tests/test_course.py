"""The course as a whole: notebook conventions, generated navigation, exercises and their solutions."""

from __future__ import annotations

import json
import re
import runpy
import subprocess
import sys

import nbformat
import pytest

import lnlib
from lnlib.answers import UNANSWERED
from lnlib.code_exercises import judge_function
from lnlib.exercises import EXERCISES, judge
from tools import build_site, course, hub_link, make_student, nav, run_notebooks
from tools.course import (
    CHECK_CALL,
    FUNCTION_CALL,
    NOTEBOOKS,
    ROOT,
    SOLUTIONS,
    exercise_names,
    function_exercise_names,
    notebook_paths,
)
from tools.outputs import coalesce_streams, stream_text

PATHS = notebook_paths()
IDS = [p.stem for p in PATHS]
BOTH_EDITIONS = PATHS + notebook_paths(course.EDITION_FOLDERS["en"])  # the English ones: notebooks/en/


def read(path):
    return nbformat.read(path, as_version=4)


def test_notebooks_follow_the_plan():
    stems = [lesson.stem for lesson in course.LESSONS]
    assert IDS, "no notebooks found"
    assert set(IDS) <= set(stems)
    assert IDS == sorted(IDS)
    assert stems[: len(IDS)] == IDS, "notebooks must be added in course order without gaps"


def test_navigation_cells_are_current():
    assert nav.update(check=True) == [], "run `python -m tools.nav`"


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


@pytest.mark.parametrize("path", BOTH_EDITIONS, ids=lambda p: p.relative_to(course.NOTEBOOKS).as_posix())
def test_outputs_are_clean(path):
    """No errors, stderr, memory addresses or local paths in stored outputs; every code cell was run, in order; stream
    outputs stored as Jupyter shows them (tools.run_notebooks coalesces them: nothing stored depends on load)."""
    nb = read(path)
    last = 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        assert cell.execution_count is not None and cell.execution_count > last, f"cell {i}: Restart & Run All"
        last = cell.execution_count
        assert len(coalesce_streams(cell.outputs)) == len(cell.outputs), f"cell {i}: one print stored split"
        for out in cell.outputs:
            assert out.output_type != "error", f"cell {i}: stored error"
            assert out.get("name") != "stderr", f"cell {i}: stored stderr {out.get('text', '')[:80]!r}"
            shown = {k: v for k, v in out.get("data", {}).items() if not k.startswith("image/")}  # base64 is no text
            text = json.dumps(shown, ensure_ascii=False) + out.get("text", "")
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
            assert cell.source == course.answer_placeholder(CHECK_CALL.findall(cell.source)[0])
            assert str(UNANSWERED) in stream_text(cell.outputs)
        if cell.cell_type == "code" and FUNCTION_CALL.search(cell.source):
            assert "...  # 在这里填写" in cell.source, "a code exercise starts as a placeholder whose body is `...`"
            assert "还没写" in stream_text(cell.outputs)


def test_every_notebook_with_exercises_has_solutions():
    for path in PATHS[1:]:
        assert course.solution_path(path.stem).exists(), f"missing solutions for {path.stem}"
    assert course.solution_paths() and all(p.parent == SOLUTIONS for p in course.solution_paths())


@pytest.mark.parametrize("solution", course.solution_paths(), ids=lambda p: p.stem)
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
    lnlib.check("03.mean_pear", 4)
    out = capsys.readouterr().out
    assert "✗" in out and "提示" in out
    lnlib.check("03.xhat_pear", [1.342, 0.447])
    assert "形状" in capsys.readouterr().out
    assert not judge("03.mean_pear", "五").ok
    lnlib.check("03.mean_pear", None)
    assert "尚未作答" in capsys.readouterr().out  # lnlib.check itself; an empty %%answer cell says UNANSWERED


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


# ------------------------------------------------------------------ the course model shared by the tools


def test_the_plan_is_data_and_matches_the_module():
    plan = course.load_plan()
    assert plan == course.PLAN and plan.lessons == course.LESSONS
    assert plan.stems[0] == course.INDEX_STEM and len(set(plan.stems)) == len(plan.stems)
    assert [lesson.number for lesson in plan.lessons] == list(range(len(plan.lessons)))
    assert all(lesson.title and lesson.summary for lesson in plan.lessons)
    assert course.REPOSITORY_FORMAT.fullmatch(plan.repository)


def test_set_repository_rewrites_only_the_data_file(tmp_path):
    plan_file = tmp_path / "course.toml"
    original = course.PLAN_FILE.read_text(encoding="utf-8")
    plan_file.write_text(original, encoding="utf-8")
    course.set_repository("someone/ln-course", plan_file)
    plan = course.load_plan(plan_file)
    assert plan.repository == "someone/ln-course" and plan.lessons == course.LESSONS
    changed = [
        (a, b)
        for a, b in zip(original.splitlines(), plan_file.read_text(encoding="utf-8").splitlines(), strict=True)
        if a != b
    ]
    assert changed == [(f'repository = "{course.REPOSITORY}"', 'repository = "someone/ln-course"')]
    for bad in ("someone", "a/b/c", 'x/y"\ninjected = 1'):
        with pytest.raises(ValueError, match="repository"):
            course.set_repository(bad, plan_file)
    assert course.load_plan(plan_file).repository == "someone/ln-course"


def python_files_of_tools_and_tests():
    found = [*(ROOT / "tools").glob("*.py"), *(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").glob("*.py")]
    assert len(found) > 10
    return [p for p in found if p.name != "test_course.py"]  # this file names the patterns it looks for


def test_no_tool_rewrites_source_code_or_edits_sys_path():
    for path in python_files_of_tools_and_tests():
        text = path.read_text(encoding="utf-8")
        assert "sys.path.insert" not in text and "sys.path.append" not in text, path.name
    assert "write_text" not in (ROOT / "tools" / "nav.py").read_text(encoding="utf-8")


def test_the_notebook_glob_and_exercise_pattern_live_in_one_place():
    for path in python_files_of_tools_and_tests():
        if path.name == "course.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert "[0-9][0-9]-*.ipynb" not in text, f"{path.name}: use tools.course.notebook_paths()"
        assert r"lnlib\.check\(" not in text, f"{path.name}: use tools.course.CHECK_CALL"


@pytest.fixture
def stray_notebook(tmp_path):
    """A notebooks folder with the index and one notebook the plan does not list."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    nbformat.write(read(NOTEBOOKS / "00-index.ipynb"), folder / "00-index.ipynb")
    nbformat.write(nbformat.v4.new_notebook(), folder / "98-stray.ipynb")
    return folder


def test_every_tool_refuses_a_notebook_missing_from_the_plan(stray_notebook, tmp_path):
    """One behaviour everywhere: a clear error naming the notebook, before anything is written."""
    calls = {
        "discovery": lambda: course.planned_notebooks(folder=stray_notebook),
        "nav": lambda: nav.update(notebooks=stray_notebook),
        "site": lambda: build_site.build(tmp_path / "site", notebooks=stray_notebook, quiet=True),
        "student": lambda: make_student.build(tmp_path / "student", notebooks=stray_notebook, quiet=True),
    }
    for name, call in calls.items():
        with pytest.raises(course.UnplannedNotebookError, match="tools/course.toml: 98-stray"):
            call()
        assert not (tmp_path / "site").exists() and not (tmp_path / "student").exists(), name
    # planned lessons that are not written yet are simply not there (即将推出), for every tool
    found = course.planned_notebooks(folder=stray_notebook.parent / "empty")
    assert found == []


def test_a_planned_lesson_not_written_yet_is_shown_as_coming_soon(tmp_path):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    for stem in course.PLAN.stems[:2]:
        nbformat.write(read(NOTEBOOKS / f"{stem}.ipynb"), folder / f"{stem}.ipynb")
    present = {lesson.stem for lesson, _ in course.planned_notebooks(folder=folder)}
    assert present == set(course.PLAN.stems[:2])
    third = course.LESSONS[2]
    assert f"{third.title}（即将推出）" in nav.footer(course.LESSONS[1], present)
    assert f"{third.title}（即将推出）" in nav.course_map(present)
    assert "ln-soon" in build_site._plan(course.LESSONS[1].stem, present, course.PLAN)


def test_tools_run_as_modules(capsys):
    """`python -m tools.X` from the repository root, as the Makefile and the docs say (one real subprocess; the
    other tools' command lines are called in-process)."""
    out = subprocess.run(
        [sys.executable, "-m", "tools.nav", "--check"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    for tool in (build_site, make_student, hub_link, run_notebooks):
        with pytest.raises(SystemExit) as exit_info:
            tool.main(["--help"])
        assert (
            exit_info.value.code == 0 and f"python -m tools.{tool.__name__.split('.')[-1]}" in capsys.readouterr().out
        )


# ------------------------------------------------------------------ the repository refers to nothing it lacks

OUTSIDE = re.compile(r"DESIGN\.md|\.\./shared")


def tracked_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [name for name in out.stdout.decode().split("\0") if name]


def test_no_tracked_file_mentions_the_private_design_notes():
    names = tracked_files()
    assert "tools/course.py" in names, "git ls-files found no repository"
    hits = []
    for name in names:
        path = ROOT / name
        if not path.is_file() or path.suffix in (".png", ".jpg", ".svg", ".woff"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        hits += [f"{name}: {m.group(0)}" for m in OUTSIDE.finditer(text)]
    assert not hits, "the repository refers to files it does not contain:\n" + "\n".join(hits)


def test_the_outside_reference_check_can_fail():
    assert OUTSIDE.search("See " + "DESIGN" + ".md §2") and OUTSIDE.search("../" + "shared/seeds")
    assert not OUTSIDE.search("docs/architecture.md")
