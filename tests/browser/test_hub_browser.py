"""The one-link Hub path for real (issue 41, item 7): a JupyterHub on 127.0.0.1 (tests/browser/hub_harness.py)
serves the students' release from a local git repository; two students open the link tools.hub_link prints, log
in, get the course map and a working explorer; the teacher pushes a change, a student who edited a notebook opens
the link again and has both the change and the edit. Skipped, with the reason, where a part is missing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tools import student_release

from . import page_js as js
from .hub_harness import PASSWORD, HubServer, missing_parts
from .lab_harness import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
STEP_MS = 240_000  # a server spawn and a clone on a loaded 2-core machine: generous bounds, not speed checks
SECOND_EDITION = "（这是老师更新后的第二版）"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture(scope="module")
def course_repo(tmp_path_factory) -> Path:
    """A bare git repository holding the students' release, as the teacher's remote would."""
    base = tmp_path_factory.mktemp("course")
    work = base / "work"
    student_release.build(work)
    git(work, "init", "-q", "-b", "student")
    git(work, "-c", "user.email=t@example.edu", "-c", "user.name=teacher", "add", ".")
    git(work, "-c", "user.email=t@example.edu", "-c", "user.name=teacher", "commit", "-q", "-m", "release 1")
    git(base, "clone", "-q", "--bare", str(work), "course.git")
    return base / "course.git"


@pytest.fixture(scope="module")
def hub():
    missing = missing_parts()
    if missing:
        pytest.skip("a real JupyterHub needs " + "; ".join(missing))
    if not CHROMIUM.exists():
        pytest.skip(f"needs Debian's Chromium at {CHROMIUM}")
    base = Path(tempfile.mkdtemp(prefix="lnlib-hub-"))
    server = HubServer.start(base)
    yield server
    server.stop()
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def browser(playwright_driver):
    b = playwright_driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield b
    b.close()


def link_for(hub: HubServer, repo: Path) -> str:
    """The link exactly as `python -m tools.hub_link HUB REPO` prints it (standard library only, as documented)."""
    done = subprocess.run(
        [sys.executable, "-S", "-m", "tools.hub_link", hub.url, repo.as_uri()],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def open_link(page, link: str, user: str) -> None:
    """Follow the link as a student: the Hub's login page, then nbgitpuller, then the course map in JupyterLab."""
    page.goto(link, timeout=STEP_MS)
    if page.locator("#username_input").count():
        page.fill("#username_input", user)
        page.fill("#password_input", PASSWORD)
        page.click("#login_submit")
    page.wait_for_url(f"**/user/{user}/lab/tree/course/notebooks/00-index.ipynb*", timeout=STEP_MS)
    page.wait_for_selector(".jp-Notebook .jp-RenderedMarkdown", timeout=STEP_MS)


def test_two_students_get_the_course_and_a_re_pull_keeps_an_edit(hub, course_repo, browser, tmp_path):
    link = link_for(hub, course_repo)
    assert link.startswith(hub.url + "/hub/user-redirect/git-pull?repo=file://")
    pages = {}
    for user in ("alice", "bob"):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        open_link(page, link, user)
        page.wait_for_function("() => document.body.innerText.includes('课程地图')", timeout=STEP_MS)
        assert (hub.home(user) / "course" / "notebooks" / "03-one-row-by-hand.ipynb").is_file()
        assert not (hub.home(user) / "course" / "notebooks" / "solutions").exists()
        pages[user] = (context, page)

    # an explorer in 03 works in alice's server: Run All, then type a vector into the explorer's text box
    context, page = pages["alice"]
    page.wait_for_function("() => !!window.jupyterapp", timeout=STEP_MS)
    page.evaluate("() => window.jupyterapp.restored.then(() => true)")
    page.evaluate(js.OPEN, "course/notebooks/03-one-row-by-hand.ipynb")
    page.wait_for_function(js.KERNEL_IDLE, timeout=STEP_MS)
    assert page.evaluate(js.RUN_ALL)["ok"]
    page.wait_for_function(js.SETTLED, timeout=STEP_MS)
    explorer = page.locator(".ln-explorer").first
    explorer.wait_for(state="visible", timeout=STEP_MS)
    box = explorer.locator("input[type='text']").first
    box.fill("1, 2, 3, 4")
    box.press("Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.ln-explorer')].some(e => e.innerText.includes('2.500'))",
        timeout=STEP_MS,
    )
    page.screenshot(path=str(ROOT / "build" / "browser" / "hub-explorer-03.png"))
    context.close()

    # alice edits an answer cell and saves (her server writes the file); the teacher then pushes a change
    mine = hub.home("alice") / "course" / "notebooks" / "03-one-row-by-hand.ipynb"
    nb = json.loads(mine.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if "".join(c["source"]).startswith("%%answer 03.mean_apple"))
    cell["source"] = "%%answer 03.mean_apple\n5\n"
    mine.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    teacher = tmp_path / "teacher"
    git(tmp_path, "clone", "-q", str(course_repo), "teacher")
    index = teacher / "notebooks" / "00-index.ipynb"
    nb = json.loads(index.read_text(encoding="utf-8"))
    first = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
    first["source"] = "".join(first["source"]) + "\n\n" + SECOND_EDITION
    index.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    git(teacher, "-c", "user.email=t@example.edu", "-c", "user.name=teacher", "commit", "-q", "-am", "release 2")
    git(teacher, "push", "-q", "origin", "student")

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    open_link(page, link, "alice")
    page.wait_for_function(f"() => document.body.innerText.includes({json.dumps(SECOND_EDITION)})", timeout=STEP_MS)
    page.screenshot(path=str(ROOT / "build" / "browser" / "hub-repull-00.png"))
    kept = json.loads(mine.read_text(encoding="utf-8"))
    assert any("".join(c["source"]).strip() == "%%answer 03.mean_apple\n5" for c in kept["cells"])
    context.close()
    pages["bob"][0].close()
