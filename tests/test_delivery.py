"""Course delivery: the static site (tools/build_site.py), the student copies (tools/make_student.py),
the nbgitpuller link (tools/hub_link.py), licences and citation. Everything is built into temp folders."""

from __future__ import annotations

import base64
import dataclasses
import html as html_lib
import json
import re
import runpy
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import nbformat
import pytest
import yaml
from helpers import executed

from lnlib.answers import UNANSWERED
from tools import build_site, course, hub_link, make_student, nav, repository
from tools.course import CHECK_CALL, DERIVATION_SUMMARY, NOTEBOOKS, ROOT, exercise_names, notebook_paths, solution_path
from tools.outputs import stream_text

PATHS = notebook_paths()
IDS = [p.stem for p in PATHS]
WIDGET_MIME = build_site.WIDGET_MIME


def read(path):
    return nbformat.read(path, as_version=4)


def image_outputs(nb) -> int:
    return sum(
        1
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if WIDGET_MIME not in o.get("data", {})
        and ("image/png" in o.get("data", {}) or "image/jpeg" in o.get("data", {}))
    )


def math_notebooks() -> list[Path]:
    return [
        p for p in PATHS if any(re.search(r"\$[^$\n]+\$", c.source) for c in read(p).cells if c.cell_type == "markdown")
    ]


def widget_cells(nb) -> int:
    return sum(
        1
        for c in nb.cells
        if c.cell_type == "code" and any(WIDGET_MIME in o.get("data", {}) for o in c.get("outputs", []))
    )


class Page(HTMLParser):
    """Collects what a browser would load or follow: (tag, attribute, value), element ids, inline CSS."""

    def __init__(self, text: str):
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []
        self.ids: set[str] = set()
        self.styles: list[str] = []
        self._in_style = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for name in ("src", "href", "data", "poster"):
            if attrs.get(name):
                self.refs.append((tag, name, attrs[name]))
        if attrs.get("style"):
            self.styles.append(attrs["style"])
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)


# ------------------------------------------------------------------ the static site


FORK = "alice/ln-course"  # a fork's repository setting: every link of the site must follow it


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site.build(out, repository=FORK, quiet=True)
    return out


def page_of(site: Path, stem: str) -> Path:
    return site / build_site.page_name(stem)


def test_site_has_one_page_per_notebook_in_course_order(site):
    assert PATHS, "no notebooks"
    pages = sorted(p.name for p in site.glob("*.html"))
    assert pages == sorted(build_site.page_name(s) for s in IDS)
    assert (site / "index.html").exists() and not (site / "00-index.html").exists()
    # the home page is the course map: every lesson of the plan is listed, written ones are links
    home = (site / "index.html").read_text(encoding="utf-8")
    for lesson in course.LESSONS[1:]:
        assert lesson.title.replace("&", "&amp;") in home
        if lesson.stem in IDS:
            assert f'href="{lesson.stem}.html"' in home
    # the "next →" link of every page points at the next notebook in file-name order
    for here, there in zip(IDS, IDS[1:], strict=False):
        bar = page_of(site, here).read_text(encoding="utf-8").split('<nav class="ln-nav">')[1].split("</nav>")[0]
        nxt = re.findall(r'<a href="([^"]+)">[^<]*→</a>', bar)
        assert nxt == [build_site.page_name(there)], f"{here}: next link {nxt}"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_page_shows_the_stored_images_and_tables(site, path):
    nb = read(path)
    text = page_of(site, path.stem).read_text(encoding="utf-8")
    images = re.findall(r'<img[^>]+src="data:image/(?:png|jpeg);base64,([^"]+)"', text)
    assert len(images) == image_outputs(nb), "every stored plot is on the page"
    for data in images:
        head = base64.b64decode(data[:24])
        assert head.startswith(b"\x89PNG") or head.startswith(b"\xff\xd8"), "image data decodes"
    tables = sum(
        o["data"]["text/html"].count("<table")
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "text/html" in o.get("data", {})
    )
    assert text.count("<table") >= tables + ("<!-- nav:map" in "".join(c.source for c in nb.cells))


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_every_plot_is_stored_as_an_image(site, path):
    """A figure whose stored output is only its repr ("<Figure size 900x280 with 3 Axes>") shows no plot on the
    site, on GitHub or in JupyterLab: the notebook needs `%matplotlib inline` (or lnlib a PNG formatter)."""
    text = page_of(site, path.stem).read_text(encoding="utf-8")
    reprs = re.findall(r"&lt;Figure size [^&]*&gt;", text)
    assert not reprs, f"{len(reprs)} plot(s) stored without an image: {reprs[0]}"


def test_every_link_and_resource_resolves(site):
    pages = {p.name: Page(p.read_text(encoding="utf-8")) for p in site.glob("*.html")}
    for name, page in pages.items():
        for tag, attr, value in page.refs:
            parts = urlsplit(value)
            if parts.scheme in ("http", "https", "mailto", "data"):
                continue
            assert not parts.scheme, f"{name}: unexpected URL {value}"
            target = name if not parts.path else unquote(parts.path)
            assert (site / target).is_file(), f"{name}: <{tag} {attr}={value}> points at a missing file"
            if parts.fragment and target.endswith(".html"):
                ids = pages[target].ids
                assert parts.fragment in ids or unquote(parts.fragment) in ids, f"{name}: anchor {value} not found"


def test_nothing_is_fetched_from_the_internet_when_a_page_is_viewed(site):
    for page_path in site.glob("*.html"):
        text = page_path.read_text(encoding="utf-8")
        page = Page(text)
        for tag, attr, value in page.refs:
            if tag == "a":
                continue  # following a link is a click, not a load
            assert not re.match(r"(https?:)?//", value), f"{page_path.name}: <{tag} {attr}={value}> is remote"
        for css in page.styles:
            for url in re.findall(r"""(?:url\(|@import\s+)\s*['"]?([^'")\s;]+)""", css):
                assert not re.match(r"(https?:)?//", url), f"{page_path.name}: CSS loads {url}"
        for cdn in ("cdnjs.cloudflare.com", "unpkg.com", "cdn.jsdelivr.net", "mybinder.org/badge"):
            assert cdn not in text.replace('href="https://mybinder.org/v2', ""), f"{page_path.name}: {cdn}"


def test_math_is_typeset_by_the_local_mathjax(site):
    mathjax = site / "_static" / "mathjax"
    assert (mathjax / "MathJax.js").is_file()
    assert (mathjax / "config" / (build_site.MATHJAX_CONFIG.split(",")[0] + ".js")).is_file()
    assert (mathjax / "fonts" / "HTML-CSS" / "STIX-Web" / "woff").is_dir()
    with_math = math_notebooks()
    assert with_math, "no notebook has math: the check below would check nothing"
    for path in with_math:
        text = page_of(site, path.stem).read_text(encoding="utf-8")
        assert '<script src="_static/mathjax/MathJax.js?config=' in text
        assert "$$" in text or re.search(r"\$[^$\n]+\$", text), f"{path.stem}: math delimiters lost"


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_binder_link_and_widget_notes(site, path):
    nb = read(path)
    text = page_of(site, path.stem).read_text(encoding="utf-8")
    binder = nav.binder_url(path.stem, FORK, "")
    assert binder == f"https://mybinder.org/v2/gh/{FORK}/HEAD?urlpath=lab/tree/notebooks/{path.stem}.ipynb"
    assert f'class="ln-binder" href="{binder}"' in text
    assert course.PLACEHOLDER_REPOSITORY not in text and "ln-preview" not in text
    assert text.count('<div class="ln-widget-note">') == widget_cells(nb)
    assert WIDGET_MIME not in text


def test_site_build_picks_up_new_notebooks_with_plots_and_widgets(tmp_path):
    """A notebook that does not exist yet (any NN-slug), once in the plan, gets a page with its image and a widget
    note; the plan's other lessons show as 即将推出."""
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    nbformat.write(read(NOTEBOOKS / "00-index.ipynb"), notebooks / "00-index.ipynb")
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 32).decode()
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 新的一篇\n\n$$\\mu = 5$$"),
        nbformat.v4.new_code_cell(
            "plot()",
            outputs=[nbformat.v4.new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"})],
        ),
        nbformat.v4.new_code_cell(
            "widgets.X()",
            outputs=[
                nbformat.v4.new_output(
                    "execute_result", data={WIDGET_MIME: {"model_id": "abc"}, "text/plain": "X()"}, execution_count=1
                )
            ],
        ),
        nbformat.v4.new_markdown_cell("[目录](00-index.ipynb)"),
    ]
    nbformat.write(nb, notebooks / "99-later.ipynb")
    plan = dataclasses.replace(course.PLAN, lessons=(*course.LESSONS, course.Lesson("99-later", "新的一篇", "新")))
    pages = build_site.build(tmp_path / "site", notebooks=notebooks, plan=plan, preview=True, quiet=True)
    assert [p.name for p in pages] == ["index.html", "99-later.html"]
    assert "ln-soon" in pages[1].read_text(encoding="utf-8")
    text = pages[1].read_text(encoding="utf-8")
    assert f"data:image/png;base64,{png}" in text
    assert text.count("ln-widget-note") == 1 and "model_id" not in text
    assert 'href="index.html">目录</a>' in text
    assert "99-later.html" in pages[0].read_text(encoding="utf-8")


@pytest.mark.browser
def test_site_in_chromium_fetches_nothing_and_typesets_math(site, request):
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("needs Debian's /usr/bin/chromium")
    # the session's one Playwright (tests/conftest.py): a second one beside it would fail
    browser = request.getfixturevalue("playwright_driver").chromium.launch(
        executable_path="/usr/bin/chromium", args=["--no-sandbox"]
    )
    try:
        page = browser.new_page()
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        math_pages = {build_site.page_name(p.stem) for p in math_notebooks()}
        for html in sorted(site.glob("*.html")):
            requests.clear()
            page.goto(html.as_uri())
            page.wait_for_function(
                "window.MathJax && MathJax.Hub && MathJax.Hub.queue.pending === 0 && !MathJax.Hub.queue.running",
                timeout=30_000,
            )
            remote = [u for u in requests if not u.startswith(("file:", "data:", "about:"))]
            assert not remote, f"{html.name} fetched {remote}"
            raw = page.evaluate("document.body.innerText")
            assert "$$" not in raw, f"{html.name}: math left untypeset"
            assert page.evaluate("document.querySelectorAll('.MathJax_Error, merror').length") == 0
            if html.name in math_pages:
                assert page.evaluate("document.querySelectorAll('.MathJax, .MathJax_Display').length") > 0
    finally:
        browser.close()


# ------------------------------------------------------------------ student copies


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("student")
    make_student.build(out, quiet=True)
    return out


def solution_lines(stem: str) -> list[str]:
    """The statements of notebooks/solutions/NN-slug.py that compute an answer (the worked solution)."""
    path = solution_path(stem)
    if not path.exists():
        return []
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line.startswith("ANSWERS[")]


def test_student_copies_hold_every_notebook_and_no_solutions(student):
    assert sorted(p.name for p in student.glob("*.ipynb")) == [p.name for p in PATHS]
    assert not (student / "solutions").exists()
    assert not list(student.rglob("*.py"))


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_student_exercise_cells_are_placeholders(student, path):
    original, copy = read(path), read(student / path.name)
    assert exercise_names(copy) == exercise_names(original), "an exercise went missing"
    for cell in copy.cells:
        if cell.cell_type == "code" and CHECK_CALL.search(cell.source):
            names = CHECK_CALL.findall(cell.source)
            assert cell.source == make_student.placeholder(names)
            assert cell.outputs == [] and cell.execution_count is None
        assert not make_student.SOLUTION_TAGS & set(cell.metadata.get("tags", []))
    text = "\n".join(c.source for c in copy.cells)
    assert "notebooks/solutions" not in text
    assert not make_student.SOLUTION_DETAILS.search(text)
    for line in solution_lines(path.stem):
        assert line not in text, f"solution text leaked: {line}"


def code_of(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_student_copies_run_and_say_unanswered(student, path):
    """What a student copy shows when run. Where its code is the notebook's own (the exercise cells are
    placeholders in the course too), that run IS the notebook's: strict nbval in `make test` checks that a fresh run
    of the notebook shows exactly its stored outputs, so they are read here. A copy with other code is run."""
    copy = read(student / path.name)
    assert "solutions" not in "".join(code_of(copy)), "reads the answers"
    course_nb = read(path)
    nb = course_nb if code_of(copy) == code_of(course_nb) else executed(copy)
    answers = runpy.run_path(str(solution_path(path.stem)))["ANSWERS"] if path.stem != course.INDEX_STEM else {}
    seen = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        assert cell.execution_count is not None, f"not run: {cell.source[:80]}"
        out = stream_text(cell.outputs)
        assert "✓" not in out, f"an exercise passes in the student copy: {out}"
        assert not any(o.output_type == "error" for o in cell.outputs), f"the student copy fails: {cell.source}"
        for name in CHECK_CALL.findall(cell.source):
            assert str(UNANSWERED) in out and f"（{name}）" in out, f"{name}: {out!r}"
            seen.append(name)
    assert set(answers) <= set(seen), "every solved exercise is in the student copy, unanswered"


def test_a_student_copy_with_other_code_is_run(tmp_path):
    """The fallback above: a copy whose code differs from the course's gets a fresh run of its own."""
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
    nb.cells = [nbformat.v4.new_code_cell('print("尚未作答" if None is None else "✓")')]
    ran = executed(nb)
    assert stream_text(ran.cells[0].outputs) == "尚未作答\n"
    assert nb.cells[0].outputs == []  # the copy itself is untouched


def test_studentize_removes_filled_answers_and_solution_cells():
    """The real notebooks are already clean, so feed the tool a notebook a teacher has filled in."""
    answers = runpy.run_path(str(solution_path("03-one-row-by-hand")))["ANSWERS"]
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("参考答案在 `notebooks/solutions/` 文件夹里。先自己算，再去对照。"),
        nbformat.v4.new_code_cell(
            f"%%answer 03.mean_pear\n{float(answers['03.mean_pear'])}",
            outputs=[nbformat.v4.new_output("stream", text="✓ 正确！（03.mean_pear）\n")],
            execution_count=3,
        ),
        nbformat.v4.new_code_cell("%%answer 03.variance_pear  \n# 吃 的方差\n500"),
        nbformat.v4.new_code_cell(
            "print('x̂ =', [1.342, 0.447, -0.447, -1.342])",
            metadata={"tags": ["reveal"]},
            outputs=[nbformat.v4.new_output("stream", text="x̂ = [1.342, 0.447, -0.447, -1.342]\n")],
            execution_count=4,
        ),
        nbformat.v4.new_code_cell("wo - wo.mean()", metadata={"tags": ["solution"]}),
        nbformat.v4.new_markdown_cell("**练习 3**\n\n<details><summary>参考答案</summary>\n\nμ = 5\n</details>\n"),
        nbformat.v4.new_markdown_cell("<details>\n<summary>查看解答</summary>[1.342, 0.447]</details>"),
        nbformat.v4.new_markdown_cell(f"<details><summary>{DERIVATION_SUMMARY}</summary>\n\nμ = 5\n\n</details>"),
    ]
    stats = make_student.studentize(nb)
    assert stats == {"exercises": 2, "removed": 2, "folded": 1}
    sources = [c.source for c in nb.cells]
    assert sources[0] == make_student.TEACHER_SENTENCE + "先自己算，再去对照。"
    assert sources[1] == "%%answer 03.mean_pear\n# 在下面一行写答案"
    assert nb.cells[1].outputs == [] and nb.cells[1].execution_count is None
    assert sources[2] == "%%answer 03.variance_pear\n# 在下面一行写答案"
    assert nb.cells[3].outputs == [] and nb.cells[3].execution_count is None, "a reveal's output stays unseen"
    assert sources[3].startswith("print('x̂ ="), "the reveal's code stays: running it shows the answer"
    assert sources[4] == "**练习 3**\n\n"
    assert sources[5].startswith(f"<details><summary>{DERIVATION_SUMMARY}</summary>"), "a folded reveal stays folded"
    outputs = [json.dumps(c.get("outputs", []), ensure_ascii=False) for c in nb.cells]
    assert not any(leak in s for s in sources[:3] + outputs for leak in ("5.0", "500", "1.342", "wo.mean", "chi ="))


# ------------------------------------------------------------------ Hub links, licences, citation


def test_hub_link_has_the_nbgitpuller_form():
    link = hub_link.nbgitpuller_link("hub.example.edu", "owner/ln-course", branch="")
    assert link == (
        "https://hub.example.edu/hub/user-redirect/git-pull?repo=https://github.com/owner/ln-course"
        "&targetpath=ln-course&urlpath=lab/tree/ln-course/notebooks/00-index.ipynb"
    )
    query = parse_qs(urlsplit(link).query)
    assert query == {
        "repo": ["https://github.com/owner/ln-course"],
        "targetpath": ["ln-course"],
        "urlpath": ["lab/tree/ln-course/notebooks/00-index.ipynb"],
    }


def nbgitpuller_clone_dir(query: dict[str, list[str]], parent_path: str = "") -> str:
    """Where nbgitpuller 1.x clones (its handler, written out independently of hub_link): the server root joined
    with $NBGITPULLER_PARENTPATH and `targetpath`, whose default is the URL's last part as it is (.git kept)."""
    repo = query["repo"][0]
    return str(Path(parent_path) / query.get("targetpath", [repo.split("/")[-1]])[0]).removeprefix("./")


@pytest.mark.parametrize(
    "repo",
    ["https://gitlab.com/组/仓库.git", "https://github.com/owner/ln-course", "git@gitlab.com:team/course.git"],
)
@pytest.mark.parametrize("parent_path", ["", "courses"])
def test_hub_link_opens_the_folder_nbgitpuller_clones_into(repo, parent_path):
    """The teacher guide's GitLab example opened lab/tree/仓库/… while nbgitpuller cloned into 仓库.git/."""
    link = hub_link.nbgitpuller_link("hub.example.edu", repo, branch="", parent_path=parent_path)
    query = parse_qs(urlsplit(link).query)
    opened = query["urlpath"][0].removeprefix("lab/tree/").removesuffix("/notebooks/00-index.ipynb")
    assert opened == nbgitpuller_clone_dir(query, parent_path)
    assert "branch" not in query, "no branch unless asked: nbgitpuller then pulls the repository's default branch"
    # nbgitpuller's own default folder keeps ".git", so a link without targetpath would open the wrong folder
    without = {k: v for k, v in query.items() if k != "targetpath"}
    assert (nbgitpuller_clone_dir(without) == opened) is (not repo.endswith(".git") and not parent_path)


def test_hub_link_normalizes_hubs_repositories_and_encodes_values():
    link = hub_link.nbgitpuller_link(
        "https://jupyter.uni.edu/hub/",
        "https://gitlab.com/team/course.git",
        branch="spring 2025&x",
        notebook="notebooks/03-one-row-by-hand.ipynb",
    )
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "jupyter.uni.edu", "/hub/user-redirect/git-pull")
    assert parse_qs(parts.query) == {
        "repo": ["https://gitlab.com/team/course.git"],
        "targetpath": ["course"],
        "branch": ["spring 2025&x"],
        "urlpath": ["lab/tree/course/notebooks/03-one-row-by-hand.ipynb"],
    }
    assert hub_link.nbgitpuller_link("http://h.edu/prefix", "a/b").startswith("http://h.edu/prefix/hub/")
    with pytest.raises(ValueError, match="OWNER/REPO"):
        hub_link.nbgitpuller_link("h.edu", "OWNER/REPO")
    with pytest.raises(ValueError, match="repo"):
        hub_link.nbgitpuller_link("h.edu", "not a repo")
    with pytest.raises(ValueError, match="folder"):
        hub_link.nbgitpuller_link("h.edu", "a/b", folder="../home")


def test_hub_link_command_line(capsys):
    assert hub_link.main(["hub.example.edu", "owner/name", "--notebook", "notebooks/02-which-axis.ipynb"]) == 0
    out = capsys.readouterr().out.strip()
    assert out.endswith("targetpath=name&urlpath=lab/tree/name/notebooks/02-which-axis.ipynb")
    assert "branch=" not in out
    assert hub_link.main(["hub.example.edu", "owner/name", "--branch", "spring", "--parent-path", "c"]) == 0
    out = capsys.readouterr().out.strip()
    assert "&branch=spring&" in out and out.endswith("urlpath=lab/tree/c/name/notebooks/00-index.ipynb")


# ------------------------------------------------------------------ the repository setting: a fork's whole path


@pytest.fixture
def fork(tmp_path) -> repository.Files:
    """A fork's checkout: the files that carry the repository setting, the notebooks, and the plan."""
    (tmp_path / "tools").mkdir()
    for name in ("README.md", "CITATION.cff", "tools/course.toml"):
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    (tmp_path / "notebooks").mkdir()
    for path in PATHS:
        (tmp_path / "notebooks" / path.name).write_bytes(path.read_bytes())
    (tmp_path / "notebooks" / "en").mkdir()
    for path in sorted((ROOT / "notebooks" / "en").glob("*.ipynb")):  # the README's English map links what exists
        (tmp_path / "notebooks" / "en" / path.name).write_bytes(path.read_bytes())
    return repository.Files(tmp_path)


def launch_links(files: repository.Files) -> list[str]:
    texts = [files.readme.read_text(encoding="utf-8"), files.citation.read_text(encoding="utf-8")]
    texts += [p.read_text(encoding="utf-8") for p in sorted((files.root / "notebooks").glob("*.ipynb"))]
    texts += [p.read_text(encoding="utf-8") for p in sorted((files.root / "notebooks" / "en").glob("*.ipynb"))]
    return [m for t in texts for m in re.findall(r"https://(?:mybinder\.org/v2/gh|github\.com)/[^\s)\"'\\<]+", t)]


def test_a_forks_repository_setting_reaches_every_link(fork, capsys):
    """`python -m tools.nav --repo` used to rewrite course.toml and the notebooks but not README or CITATION."""
    before = launch_links(fork)
    notebooks = len(PATHS) + len(list((fork.root / "notebooks" / "en").glob("*.ipynb")))  # both editions
    assert len(before) == notebooks + 3 and all(course.PLACEHOLDER_REPOSITORY in x for x in before)
    assert nav.main(["--check"], files=fork) == 0
    assert "placeholder OWNER/REPO" in capsys.readouterr().err  # the shipped setting is named, not accepted silently

    assert nav.main(["--repo", FORK], files=fork) == 0
    links = launch_links(fork)
    assert len(links) == len(before)
    assert not any(course.PLACEHOLDER_REPOSITORY in x for x in links)
    binder = [x for x in links if "mybinder.org" in x]
    assert len(binder) == notebooks + 2 and all(  # every notebook and the README's two badges (zh, en)
        x.startswith(f"https://mybinder.org/v2/gh/{FORK}/HEAD?") for x in binder
    )
    plan = course.load_plan(fork.plan)
    assert (plan.repository, plan.branch) == (FORK, "") and plan.lessons == course.LESSONS
    cff = yaml.safe_load(fork.citation.read_text(encoding="utf-8"))
    assert cff["repository-code"] == f"https://github.com/{FORK}"
    assert nav.main(["--check"], files=fork) == 0
    assert "placeholder" not in capsys.readouterr().err

    # a branch is part of the one setting too, and a hand edit of a derived link is caught by --check (make lint)
    assert nav.main(["--branch", "spring-2027"], files=fork) == 0
    assert all(f"/v2/gh/{FORK}/spring-2027?" in x for x in launch_links(fork) if "mybinder.org" in x)
    assert course.load_plan(fork.plan).branch == "spring-2027"
    fork.readme.write_text(fork.readme.read_text(encoding="utf-8").replace("spring-2027", "main"), encoding="utf-8")
    assert nav.main(["--check"], files=fork) == 1
    assert "README.md" in capsys.readouterr().out

    # the site and the Hub link of the fork follow the same setting
    lesson, path = course.planned_notebooks(plan, fork.root / "notebooks")[3]
    small = fork.root / "small"
    small.mkdir()
    (small / path.name).write_bytes(path.read_bytes())
    page = build_site.build(fork.root / "site", notebooks=small, plan=course.load_plan(fork.plan), quiet=True)[0]
    assert f"/v2/gh/{FORK}/spring-2027?urlpath=lab/tree/notebooks/{lesson.stem}.ipynb" in page.read_text("utf-8")
    link = hub_link.nbgitpuller_link("hub.example.edu", plan.repository, branch="spring-2027")
    assert parse_qs(urlsplit(link).query)["repo"] == [f"https://github.com/{FORK}"]


def test_a_bad_setting_is_refused_before_anything_is_written(fork):
    original = {p: p.read_bytes() for p in (fork.readme, fork.citation, fork.plan)}
    for argv in (
        ["--repo", "alice"],
        ["--repo", "a/b/c"],
        ["--repo", FORK, "--branch", "../x"],
        ["--check", "--repo", FORK],
    ):
        with pytest.raises(SystemExit):
            nav.main(argv, files=fork)
    fork.readme.write_text("# no badge here\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        nav.main(["--repo", FORK], files=fork)
    assert fork.plan.read_bytes() == original[fork.plan] and fork.citation.read_bytes() == original[fork.citation]


def test_the_site_refuses_the_placeholder_unless_asked_for_a_preview(tmp_path):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    (folder / PATHS[1].name).write_bytes(PATHS[1].read_bytes())
    placeholder = dataclasses.replace(course.PLAN, repository=course.PLACEHOLDER_REPOSITORY)
    with pytest.raises(ValueError, match="placeholder OWNER/REPO.*--preview"):
        build_site.build(tmp_path / "site", notebooks=folder, plan=placeholder, quiet=True)
    assert not (tmp_path / "site").exists()
    page = build_site.build(tmp_path / "site", notebooks=folder, plan=placeholder, preview=True, quiet=True)[0]
    assert 'class="ln-preview"' in page.read_text(encoding="utf-8")


def test_licences_and_citation():
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in license_text
    content = (ROOT / "LICENSE-content.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in content and "creativecommons.org/licenses/by/4.0" in content
    assert "CC BY 4.0" in course.LICENSE_NOTE and "MIT" in course.LICENSE_NOTE
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "type", "license"):
        assert cff[key], key
    known = {
        "cff-version",
        "message",
        "type",
        "title",
        "abstract",
        "authors",
        "version",
        "date-released",
        "license",
        "repository-code",
        "url",
        "keywords",
        "doi",
        "identifiers",
        "preferred-citation",
    }
    assert set(cff) <= known, f"not CFF 1.2.0 keys: {set(cff) - known}"
    # CFF reads a list of licences as "either one" (OR), so the file names the code's licence; the text's
    # CC BY 4.0 is stated in the abstract and in LICENSE-content.md.
    assert cff["type"] == "software" and cff["license"] == "MIT" and "CC BY 4.0" in cff["abstract"]
    assert all(("name" in a) or ("family-names" in a) for a in cff["authors"])
    assert isinstance(cff["date-released"], str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", cff["date-released"])
    assert cff["repository-code"] == f"https://github.com/{course.REPOSITORY}", (
        "CITATION.cff repository-code must match repository in tools/course.toml"
    )


GUIDE_ITEMS = ("学习目标", "时间", "板书", "讨论", "常见误区")


def test_teacher_guide_covers_every_lesson_and_every_way_to_run_it():
    guide = (ROOT / "docs" / "teacher-guide.md").read_text(encoding="utf-8")
    sections = re.split(r"^### ", guide, flags=re.M)
    for lesson in course.LESSONS:
        found = [s for s in sections if s.startswith(f"第 {lesson.number} 篇")]
        assert found, f"teacher guide: no section '### 第 {lesson.number} 篇'"
        for item in GUIDE_ITEMS:
            assert f"**{item}" in found[0], f"第 {lesson.number} 篇: missing **{item}**"
    for must in (
        "Binder",
        "nbgitpuller",
        "hub_link",
        "user-redirect/git-pull",
        "make site",
        "make student",
        "离线",
        "LICENSE",
        "CC BY 4.0",
    ):
        assert must in guide, must


def test_teacher_guide_prepares_a_class_on_a_hub_and_an_offline_room():
    """Issue 27, item 7: a Hub image recipe, memory sizing, Binder's user cap and culling; the offline recipe's
    build backend pinned within pyproject.toml's bound (it downloaded setuptools unpinned, while < 85 is needed)."""
    import tomllib

    from packaging.requirements import Requirement

    guide = (ROOT / "docs" / "teacher-guide.md").read_text(encoding="utf-8")
    for must in (
        "repo2docker",
        "tools.simulate_binder",
        "340 MiB",
        "singleuser.memory.limit",
        "NBGITPULLER_PARENTPATH",
    ):
        assert must in guide, must
    assert "不会保存" in guide and "同时在线的人数有上限" in guide and "回收不会丢失工作" in guide
    assert "构建出和测试完全相同的环境" not in guide, "Binder does not build the test environment"
    downloads = re.findall(r"pip download (setuptools\S*)", guide)
    assert downloads, "the offline recipe must download the build backend"
    backend = Requirement(tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"][0])
    dev = dict(x.split("==") for x in (ROOT / "requirements-dev.txt").read_text().split() if "==" in x)
    for text in downloads:
        req = Requirement(text)
        pinned = str(req.specifier).removeprefix("==")
        assert str(req.specifier).startswith("=="), f"unpinned: {text}"
        assert backend.specifier.contains(pinned) and pinned == dev["setuptools"], text


def test_site_pages_fit_a_phone_and_follow_a_dark_system_style(site):
    """Issue 27, item 6: at 390 px the tables wrapped their row labels one character per line and figures shrank
    (the lab theme's rules won over a plain selector); there was no dark style. Looked at in Chromium at 390 px."""
    text = page_of(site, PATHS[3].stem).read_text(encoding="utf-8")
    assert re.search(r'<meta content="width=device-width[^"]*" name="viewport"', text)
    css = (site / "_static" / "site.css").read_text(encoding="utf-8")
    phone = css[css.index("@media (max-width: 640px)") :]
    assert "white-space: nowrap" in phone and "min-width: 560px" in phone and "overflow-x: auto" in phone
    dark = css[css.index("@media (prefers-color-scheme: dark)") :]
    assert "--jp-layout-color0" in dark and ".jp-RenderedImage img { background: #fff" in dark


def test_pdf_finds_a_browser_on_every_system_or_says_how_to_print(tmp_path, monkeypatch):
    from tools import pdf

    assert any("Google Chrome.app" in p for p in pdf.BROWSERS) and any(p.endswith("msedge.exe") for p in pdf.BROWSERS)
    chrome = tmp_path / "chrome"
    chrome.write_text("")
    assert pdf.find_chromium([str(tmp_path / "none"), str(chrome)], environ={}) == chrome
    assert pdf.find_chromium([], environ={"LNLIB_CHROMIUM": str(chrome)}) == chrome
    with pytest.raises(SystemExit, match="Save as PDF"):
        pdf.find_chromium([str(tmp_path / "none")], environ={})


def test_folded_answers_stay_folded_on_the_site(site):
    """Every markdown reveal's answer lies inside its <details> on the page (it once showed open below an empty
    fold: nbconvert closed <details> right after the summary)."""

    def words(text: str) -> str:  # text without tags, math, list marks, emphasis and spaces
        text = html_lib.unescape(re.sub(r"<[^>]+>", "", text))
        text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$", "", text, flags=re.S)
        text = re.sub(r"^\s*(?:[-*+]|\d+\.|#+)\s+", "", text, flags=re.M)
        return re.sub(r"\s+", "", re.sub(r"[*`]", "", text))

    checked = 0
    opening = f"<summary>{DERIVATION_SUMMARY}</summary>"
    for path in notebook_paths():
        nb = nbformat.read(path, as_version=4)
        page = page_of(site, path.stem).read_text(encoding="utf-8")
        folds = [
            words(f)
            for f in re.findall(
                r"<details><summary>" + re.escape(DERIVATION_SUMMARY) + r"</summary>(.*?)</details>", page, re.S
            )
        ]
        for cell in nb.cells:
            if cell.cell_type != "markdown" or opening not in cell.source:
                continue
            body = cell.source.split(opening, 1)[1].split("</details>", 1)[0]
            inside = words(next(line for line in body.splitlines() if line.strip()))[:8]  # a few words of its start
            assert any(inside in fold for fold in folds), f"{path.stem}: {inside!r} is not inside a fold on the page"
            checked += 1
    assert checked >= 20
