"""What a learner's image holds (issue 15): the runtime/dev split of the pinned requirements, lnlib's packaging
metadata, and the Chinese font lnlib ships (every character a figure draws; figures without any system CJK font)."""

from __future__ import annotations

import ast
import copy
import html
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import unicodedata
import warnings
import zipfile
from importlib.metadata import PackageNotFoundError, distribution, packages_distributions
from pathlib import Path

import matplotlib
import nbformat
import pytest
from fontTools.ttLib import TTFont
from matplotlib import font_manager
from matplotlib.figure import Figure
from nbclient import NotebookClient
from packaging.requirements import Requirement

from tools import build_site, course, pdf
from tools.course import NOTEBOOKS, ROOT, notebook_paths
from tools.outputs import stream_text

RUNTIME = ROOT / "binder" / "requirements.txt"
DEV = ROOT / "requirements-dev.txt"
FONT = ROOT / "lnlib" / "fonts" / "LNlibSansCJKSC-Regular.otf"
TEST_TOOLS = {"pytest", "nbval", "hypothesis", "ruff", "playwright", "coverage"}
MARKER_ENV = {
    "sys_platform": "linux",
    "platform_system": "Linux",
    "os_name": "posix",
    "python_version": "3.11",
    "python_full_version": "3.11.9",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "platform_machine": "x86_64",
}


def canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path: Path, env: dict[str, str] = MARKER_ENV) -> dict[str, str]:
    """{canonical name: version} of a requirements file's `name==version[; marker]` lines whose marker holds in `env`
    (Linux, CPython 3.11, by default; other lines are checked elsewhere)."""
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate(env | {"extra": ""}):
                out[canon(req.name)] = str(req.specifier).removeprefix("==")
    return out


def requirement_lines(path: Path) -> list[str]:
    return [x.split("#")[0].strip() for x in path.read_text().splitlines() if x.split("#")[0].strip()]


def imported_modules(source: str) -> set[str]:
    """Top-level names of the absolute imports in Python source; optional imports (inside `try:` blocks that catch
    ImportError, e.g. PyTorch for a cross-check) are left out."""
    tree = ast.parse(source)
    optional = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            isinstance(h.type, ast.Name) and h.type.id in ("ImportError", "ModuleNotFoundError") for h in node.handlers
        ):
            optional |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    names = set()
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def course_imports() -> dict[str, set[str]]:
    """{module: files importing it} over lnlib/**/*.py and the notebooks' code cells; stdlib and lnlib left out."""
    sources = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in sorted((ROOT / "lnlib").rglob("*.py"))}
    for path in notebook_paths():
        for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type == "code":
                code = "\n".join(x for x in cell.source.splitlines() if not x.lstrip().startswith(("%", "!")))
                sources[f"{path.name} cell {i}"] = code
    found: dict[str, set[str]] = {}
    for where, source in sources.items():
        for module in imported_modules(source) - set(sys.stdlib_module_names) - {"lnlib", "__future__"}:
            found.setdefault(module, set()).add(where)
    return found


def runtime_closure_missing(names: set[str]) -> list[str]:
    """Requirements (extras included, markers for Linux/CPython 3.11) of the given installed distributions that are
    not among `names` themselves: what pip would have to fetch beyond the runtime file."""
    missing, seen, todo = [], set(), [(n, ()) for n in names]
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        try:
            reqs = distribution(name).requires or []
        except PackageNotFoundError:
            missing.append(f"{name} (pinned but not installed here, so its requirements cannot be read)")
            continue
        for text in reqs:
            req = Requirement(text)
            if req.marker and not any(req.marker.evaluate(MARKER_ENV | {"extra": e}) for e in ("", *extras)):
                continue
            if canon(req.name) not in names:
                missing.append(f"{req.name} (needed by {name}{list(extras) if extras else ''})")
            else:
                todo.append((canon(req.name), tuple(sorted(req.extras))))
    return sorted(set(missing))


# ------------------------------------------------------------------ item 1: the runtime / dev split


def test_runtime_file_is_pinned_and_holds_no_test_tools():
    lines = requirement_lines(RUNTIME)
    assert lines, RUNTIME
    for line in lines:
        assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[A-Za-z0-9_.+\-]+(; [^;]+)?", line), f"not an exact pin: {line!r}"
    names = set(pins(RUNTIME))
    assert not names & TEST_TOOLS, f"test tools in the learner's image: {sorted(names & TEST_TOOLS)}"
    assert {"jupyterlab", "notebook", "ipykernel", "ipywidgets", "numpy", "pandas", "matplotlib", "scipy"} <= names


def test_dev_file_starts_with_the_runtime_file_and_adds_pinned_test_tools():
    lines = requirement_lines(DEV)
    assert lines[0] == "-r binder/requirements.txt"
    for line in lines[1:]:
        assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[A-Za-z0-9_.+\-]+", line), f"not an exact pin: {line!r}"
    dev = pins(DEV)
    assert TEST_TOOLS <= set(dev), sorted(TEST_TOOLS - set(dev))
    assert not set(dev) & set(pins(RUNTIME)), "pinned twice (runtime and dev)"


def test_notebook_fits_the_pinned_jupyterlab():
    """The bug of issue 15: Binder's base has notebook 7.4.7 (jupyterlab<4.5); the pinned notebook must accept ours."""
    runtime = pins(RUNTIME)
    try:
        meta = distribution("notebook")
    except PackageNotFoundError:
        pytest.skip("notebook is not installed in this environment (make builds it from binder/requirements.txt)")
    assert meta.version == runtime["notebook"], "this environment is not the pinned one"
    for text in meta.requires or []:
        req = Requirement(text)
        if canon(req.name) in runtime and not (req.marker and not req.marker.evaluate(MARKER_ENV | {"extra": ""})):
            assert runtime[canon(req.name)] in req.specifier, f"notebook needs {req}, pinned {runtime[canon(req.name)]}"


def test_every_import_of_lnlib_and_the_notebooks_is_in_the_runtime_file():
    runtime = set(pins(RUNTIME))
    owners = packages_distributions()
    unknown, missing = [], []
    for module, where in sorted(course_imports().items()):
        dists = {canon(d) for d in owners.get(module, [])}
        if not dists:
            unknown.append(f"{module} (imported in {sorted(where)[0]}): no installed distribution provides it")
        elif not dists & runtime:
            missing.append(f"{module} from {sorted(dists)} (imported in {sorted(where)[0]})")
    assert not unknown, unknown
    assert not missing, "imports the learner's environment lacks: " + "; ".join(missing)


def test_the_runtime_file_is_closed_under_dependencies():
    """Every requirement of every runtime pin is pinned in the runtime file too: it installs without the dev file."""
    assert runtime_closure_missing(set(pins(RUNTIME))) == []


def test_the_closure_check_can_fail():
    runtime = set(pins(RUNTIME)) - {"jinja2"}
    assert any(m.startswith(("jinja2", "Jinja2")) for m in runtime_closure_missing(runtime))
    source = "import scipy.stats\nfrom numpy import linalg\nfrom . import x\n"
    source += "try:\n    import torch\nexcept ImportError:\n    pass\n"
    assert imported_modules(source) == {"scipy", "numpy"}


def test_lnlib_dependencies_are_all_runtime_pins():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = set(pins(RUNTIME))
    for text in project["dependencies"]:
        assert canon(Requirement(text).name) in runtime, text
    assert "scipy" in {canon(Requirement(t).name) for t in project["dependencies"]}, "notebook 07 imports scipy"


def test_binder_installs_lnlib_in_postbuild_not_in_requirements():
    assert not any(x.startswith("-e") or x in (".", "./") for x in requirement_lines(RUNTIME))
    post = (ROOT / "binder" / "postBuild").read_text()
    assert re.search(r"pip install .*\s\.$", post, re.M), post
    assert (ROOT / "binder" / "postBuild").stat().st_mode & 0o111, "postBuild must be executable"
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"


# ------------------------------------------------------------------ item 2: packaging metadata


def test_pyproject_uses_an_spdx_licence_and_a_bounded_backend():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["project"]["license"] == "MIT"
    for path in data["project"]["license-files"]:
        assert (ROOT / path).is_file(), path
    (backend,) = [Requirement(r) for r in data["build-system"]["requires"] if Requirement(r).name == "setuptools"]
    assert "77" in backend.specifier and "76.1.0" not in backend.specifier, "PEP 639 needs setuptools >= 77"
    assert "999" not in backend.specifier, "the build backend needs an upper bound"


def test_the_wheel_carries_the_font_its_licence_and_the_spdx_licence(tmp_path):
    setuptools = pytest.importorskip("setuptools")
    backend = Requirement(tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"][0])
    if setuptools.__version__ not in backend.specifier:
        pytest.skip(f"installed setuptools {setuptools.__version__} is outside {backend}")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    assert "deprecat" not in (build.stdout + build.stderr).lower(), build.stderr[-3000:]
    (wheel,) = tmp_path.glob("lnlib-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        meta = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "lnlib/fonts/LNlibSansCJKSC-Regular.otf" in names and "lnlib/fonts/OFL.txt" in names
    catalogues = {n for n in names if n.startswith("lnlib/locale/")}  # every compiled catalogue and its source
    shipped = {str(p.relative_to(ROOT)) for p in (ROOT / "lnlib" / "locale").rglob("*.[mp]o")}
    assert shipped and catalogues == shipped
    assert "License-Expression: MIT" in meta
    assert re.search(r"^Requires-Dist: scipy", meta, re.M)


# ------------------------------------------------------------------ item 3: the bundled Chinese font


def drawable_strings() -> list[str]:
    """Every string literal of lnlib (figure titles, labels, ticks, tokens) and of the notebooks' code cells."""
    out = []
    from tools.make_font_subset import PRINTED_ONLY  # the exercise feedback is printed, never drawn

    sources = [
        p.read_text(encoding="utf-8")
        for p in sorted((ROOT / "lnlib").rglob("*.py"))
        if not (p.name in PRINTED_ONLY and p.parent.name == "lnlib")
    ]
    for path in notebook_paths():
        sources += [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    for source in sources:
        if source.startswith(("%%reveal", "%%code_exercise")):  # a Python body under its magic line (it draws too)
            source = source.partition("\n")[2]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)  # an answer cell's typed text such as 5e
                tree = ast.parse(source)
        except SyntaxError:
            continue
        out += [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    from tools.make_font_subset import catalogue_strings  # the words of lnlib/locale a figure can draw

    return out + catalogue_strings()


def is_cjk(ch: str) -> bool:
    name = unicodedata.name(ch, "")
    return name.startswith(("CJK", "FULLWIDTH", "IDEOGRAPHIC")) or "\u3000" <= ch <= "\u303f" or ch in "“”‘’…—·"


def test_the_font_is_small_and_renamed():
    assert FONT.stat().st_size < 200 * 1024, f"{FONT.stat().st_size} bytes"
    names = TTFont(str(FONT))["name"]
    assert names.getDebugName(1) == "LNlib Sans CJK SC"
    assert "Source" not in names.getDebugName(1), "OFL: a modified font may not use the Reserved Font Name"
    assert "SIL Open Font License" in (ROOT / "lnlib" / "fonts" / "OFL.txt").read_text()
    assert "lnlib/fonts/OFL.txt" in (ROOT / "LICENSE-content.md").read_text()


def test_every_chinese_character_a_figure_can_draw_is_in_the_font():
    cmap = TTFont(str(FONT)).getBestCmap()
    wanted = {ch for s in drawable_strings() for ch in s if is_cjk(ch)}
    assert len(wanted) > 50, "the scan found almost no Chinese: it is broken"
    lacking = sorted(ch for ch in wanted if ord(ch) not in cmap)
    assert not lacking, f"not in {FONT.name}: {''.join(lacking)} — run python -m tools.make_font_subset"


def test_lnlib_registers_its_font_first():
    from lnlib import fonts, plots

    assert plots.CJK_FONTS[0] == fonts.FAMILY
    assert any(Path(e.fname) == FONT for e in font_manager.fontManager.ttflist)
    assert plots.use_cjk_font() == fonts.FAMILY


def _fonts_only_matplotlib_and_lnlib(cache_dir: Path) -> None:
    """A matplotlib font cache in `cache_dir` that knows only matplotlib's own fonts: no system font at all."""
    own = Path(matplotlib.get_data_path()).resolve()
    manager = copy.copy(font_manager.fontManager)
    manager.ttflist = [e for e in font_manager.fontManager.ttflist if Path(e.fname).resolve().is_relative_to(own)]
    manager.afmlist = [e for e in font_manager.fontManager.afmlist if Path(e.fname).resolve().is_relative_to(own)]
    font_manager.json_dump(manager, cache_dir / f"fontlist-v{font_manager.FontManager.__version__}.json")


PROBE = """
import io
import json
import warnings
from pathlib import Path
import matplotlib
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.figure import Figure
from lnlib import fonts, plots
own = Path(matplotlib.get_data_path()).resolve()
foreign = sorted({e.fname for e in font_manager.fontManager.ttflist
                  if not Path(e.fname).resolve().is_relative_to(own) and Path(e.fname) != fonts.FONT_FILE})
fig = Figure()
fig.suptitle("龘")  # a character the subset does not have: the missing-glyph warning must fire
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    fig.savefig(io.BytesIO(), format="png")
print(json.dumps({"font": plots.use_cjk_font(), "foreign": foreign, "probe_warnings": len(caught),
                  "sans": font_manager.findfont(font_manager.FontProperties(family=["sans-serif"]))}))
"""


# Two notebooks with many figures (bars, tables, heatmaps; the Transformer diagrams and depth curves): the strict nbval
# run already draws every notebook's figures (a glyph missing from the subset warns there too); here the point is
# that no system font is needed at all.
NO_SYSTEM_FONT_NOTEBOOKS = [p for p in notebook_paths() if p.stem in ("03-one-row-by-hand", "09-add-and-norm")]


@pytest.mark.parametrize("path", NO_SYSTEM_FONT_NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_draws_every_figure_with_no_system_cjk_font(path, tmp_path, monkeypatch):
    """Run the notebook where matplotlib knows no system font; no cell may warn (missing glyph, findfont)."""
    _fonts_only_matplotlib_and_lnlib(tmp_path)
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    NotebookClient(
        nb, timeout=600, startup_timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    stderr = [(i, stream_text(c.outputs, "stderr")) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    stderr = [(i, text) for i, text in stderr if text]
    probe = json.loads(stream_text(nb.cells[-1].outputs, "stdout"))
    assert not stderr, f"warnings while drawing (cell, text): {stderr}"
    assert probe["foreign"] == [], f"system fonts leaked into matplotlib: {probe['foreign']}"
    assert probe["font"] == "LNlib Sans CJK SC"
    assert Path(probe["sans"]) == FONT
    assert probe["probe_warnings"] > 0, "the missing-glyph detector did not fire: this test could not fail"


def test_the_missing_glyph_warning_is_what_the_notebook_test_looks_for():
    """Outside the notebook too: a string with a character the subset lacks warns, the course's strings do not."""
    from lnlib import fonts  # noqa: F401  (registers the font)

    with matplotlib.rc_context({"font.family": "sans-serif", "font.sans-serif": ["LNlib Sans CJK SC"]}):
        for text, expect in (("我 吃 苹果：均值 μ，方差 σ²", 0), ("龘", 1)):
            fig = Figure()
            fig.suptitle(text)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                fig.savefig(io.BytesIO(), format="png")
            assert (len([w for w in caught if "missing from font" in str(w.message)]) > 0) == bool(expect), text


# ------------------------------------------------------------------ item 6: the printable course


def _fake_site(site: Path) -> list[str]:
    stems = []
    for lesson, _ in course.planned_notebooks():
        stems.append(lesson.stem)
        (site / build_site.page_name(lesson.stem)).write_text(
            f"<html><head><title>{lesson.stem}</title><style>.x{{}}</style></head><body><main>"
            f'<p>BODY-{lesson.stem}</p><p><a href="index.html">目录</a> <a href="04-epsilon.html#top">4</a></p>'
            "</main></body></html>",
            encoding="utf-8",
        )
    return stems


def test_the_printed_course_has_a_contents_page_and_every_lesson_in_order(tmp_path):
    stems = _fake_site(tmp_path)
    doc = pdf.combined_html(tmp_path)
    assert len(stems) == len(notebook_paths()) > 10
    positions = [doc.index(f"BODY-{stem}") for stem in stems]
    assert positions == sorted(positions), "lessons out of course order"
    assert doc.index('class="ln-contents"') < positions[0]
    for lesson in course.LESSONS:
        if lesson.stem in stems:
            assert html.escape(lesson.title) in doc[: positions[0]], f"{lesson.stem} missing from the contents"
    assert doc.count('class="ln-chapter"') == len(stems)
    assert 'href="index.html"' not in doc and 'href="04-epsilon.html' not in doc, "links must stay inside the PDF"
    assert 'href="#ln-ch-04-epsilon"' in doc and f'<base href="{tmp_path.resolve().as_uri()}/">' in doc


def test_a_missing_site_page_is_named():

    with pytest.raises(SystemExit, match="make site"):
        pdf.lessons(ROOT / "no-such-site")


def test_pdf_pages_counts_page_objects_not_the_page_tree():

    fake = b"1 0 obj <</Type /Pages /Kids [2 0 R 3 0 R] /Count 2>> 2 0 obj <</Type /Page>> 3 0 obj <</Type/Page /X 1>>"
    assert pdf.pdf_pages(fake) == 2


def test_the_print_stylesheet_hides_navigation_chrome():
    css = (ROOT / "tools" / "site" / "print.css").read_text()
    assert css.count("@media print") == 1
    body = css[css.index("@media print") :]
    for selector in (".ln-nav", "details.ln-plan", 'a[href*="mybinder.org"]', ".jp-InputPrompt"):
        assert selector in body, selector
    assert "break-inside: avoid" in body and "@page" in body
    assert "print.css" in (ROOT / "tools" / "build_site.py").read_text(), "the site must ship the print stylesheet"


# ------------------------------------------------------------------ item 7: make checks for Python >= 3.11


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_says_what_to_install_without_python_3_11(tmp_path):
    # a make of its own, not a sub-make of `make test` (whose jobserver flags would make it warn on stderr)
    env = {
        k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "PYTHON")
    }
    old = tmp_path / "python3"
    old.write_text("#!/bin/sh\nexec /bin/false\n")  # a python3 that is not >= 3.11
    old.chmod(0o755)
    for args in (["PYTHON_CANDIDATES=python2.7 no-such-python"], [f"PYTHON={old}"]):
        run = subprocess.run(
            ["make", "-s", "--no-print-directory", "python-check", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=env,
        )
        assert run.returncode != 0, args
        for hint in ("Python 3.11.2 or newer", "apt-get install", "brew install python@3.11", "winget install"):
            assert hint in run.stderr, (hint, run.stderr)
    ok = subprocess.run(
        ["make", "-s", "--no-print-directory", "python-check", f"PYTHON={sys.executable}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert ok.returncode == 0 and ok.stderr == "", ok.stderr


def test_every_lnlib_subpackage_is_installed():
    """Binder installs lnlib non-editable (`pip install .`): a subpackage missing from pyproject's list would be
    missing there, while an editable checkout still finds it."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "lnlib").rglob("__init__.py")} - {
        "lnlib.__pycache__"
    }
    assert found == listed
