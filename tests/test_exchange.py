"""Assignments handed out and collected through nbgrader's exchange (issue 38): the Hub's shared folder.

`tools.exchange release` fills the exchange; two students fetch and submit with nbgrader's own exchange classes (the
code the Assignment List extension runs), each as their own user; one also submits under the other's name, one
plants a symlink to the teacher's secret. `tools.exchange collect` takes each student's own latest submission only,
and `make grade`'s grader grades the collected folder. Owners are simulated: files belong to made-up uids mapped to
the students' names (no Unix account is created).
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from helpers import type_right_answers

pytest.importorskip("nbgrader", reason="the teacher's extra (requirements-teacher.txt; make test installs it)")

import assignments  # noqa: E402
from tools import assignments as build_tool  # noqa: E402
from tools import exchange as exchange_tool  # noqa: E402
from tools import grade as grade_tool  # noqa: E402

SECRET = "test-secret-of-the-exchange"
H03 = "hw03-one-row-by-hand.ipynb"
UIDS = {"s-1": 50001, "s-2": 50002}
NAMES = {uid: name for name, uid in UIDS.items()}


def _as_student(monkeypatch, student: str, home: Path, exchange: Path, app: str, aid: str, claim: str = "") -> None:
    """Run nbgrader's exchange app `fetch` or `submit` for assignment `aid` as `student`, in the student's home:
    nbgrader's user name is `claim` or the student's (it asks the system for the user of the process), and the
    inbound folder it makes is given the student's uid."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.default import ExchangeFetchAssignment, ExchangeSubmit, submit
    from traitlets.config import Config

    monkeypatch.setattr(submit, "get_username", lambda: claim or student)
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(home / ".local"))
    monkeypatch.chdir(home)
    cfg = Config()
    cfg.Exchange.root = str(exchange)
    cfg.Exchange.assignment_dir = str(home)
    cfg.CourseDirectory.course_id = "lnlib"
    cfg.CourseDirectory.assignment_id = aid
    inbound = exchange / "lnlib" / "inbound"
    before = set(inbound.iterdir())
    kind = {"fetch": ExchangeFetchAssignment, "submit": ExchangeSubmit}[app]
    kind(coursedir=CourseDirectory(config=cfg), authenticator=Authenticator(config=cfg), config=cfg).start()
    for new in set(inbound.iterdir()) - before:
        for path in [new, *new.rglob("*")]:
            os.chown(path, UIDS[student], UIDS[student], follow_symlinks=False)


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    root = tmp_path_factory.mktemp("exchange")
    mp = pytest.MonkeyPatch()
    mp.setenv(assignments.SECRET_ENV, SECRET)
    try:
        (root / "roster.txt").write_text("s-1\ns-2\n", encoding="utf-8")
        built, exchange = root / "assignments", root / "exchange"
        assert build_tool.main(["--notebooks", "03", "--roster", str(root / "roster.txt"), "--out", str(built)]) == 0
        assert exchange_tool.main(["release", "--exchange", str(exchange), "--assignments", str(built)]) == 0
        homes = {s: root / "home" / s for s in UIDS}
        for student, home in homes.items():
            home.mkdir(parents=True)
            aid = exchange_tool.assignment_id("03", student)
            _as_student(mp, student, home, exchange, "fetch", aid)
            nb = nbformat.read(home / aid / H03, as_version=4)
            v = assignments.load()["03"].variant(assignments.rng_for(student, "03", SECRET.encode()))
            type_right_answers(nb, v)
            nbformat.write(nb, home / aid / H03)
            _as_student(mp, student, home, exchange, "submit", aid)
        # s-2 submits under s-1's name: its own (wrong for s-1) notebook, as the latest "s-1" submission
        aid1 = exchange_tool.assignment_id("03", "s-1")
        (homes["s-2"] / aid1).mkdir()
        (homes["s-2"] / aid1 / H03).write_bytes(b"{}")
        before = set((exchange / "lnlib" / "inbound").iterdir())
        _as_student(mp, "s-2", homes["s-2"], exchange, "submit", aid1, claim="s-1")
        (cheat,) = set((exchange / "lnlib" / "inbound").iterdir()) - before
        # s-2 plants a symlink to a file it must not get, as a later submission of its own
        aid2 = exchange_tool.assignment_id("03", "s-2")
        planted = exchange / "lnlib" / "inbound" / f"s-2+{aid2}+9999-12-31 23:59:59.000000 UTC+x"
        planted.mkdir()
        (planted / H03).symlink_to(root / "roster.txt")
        os.chown(planted, UIDS["s-2"], UIDS["s-2"])
        out = root / "submissions"
        done = exchange_tool.collect(exchange, "lnlib", built, out, owner=lambda uid: NAMES.get(uid, f"uid {uid}"))
        grades = root / "grades"
        sandbox = grade_tool.Sandbox(grade_tool.RUNNER)
        sandbox = sandbox if not sandbox.unusable() else grade_tool.Sandbox(grade_tool.RUNNER, sealed=False)
        grade_tool.grade_folder(out, grades, built / "autograder" / "manifest.json", 3, 1, sandbox)
        yield {"done": done, "out": out, "grades": grades, "exchange": exchange, "cheat": cheat.name}
    finally:
        mp.undo()


def test_release_is_nbgraders_layout_one_assignment_per_student(collected):
    outbound = collected["exchange"] / "lnlib" / "outbound"
    assert sorted(p.name for p in outbound.iterdir()) == ["hw03-s-1", "hw03-s-2"]
    assert oct((collected["exchange"] / "lnlib" / "inbound").stat().st_mode & 0o7777) == oct(0o2733)


def test_each_student_own_latest_submission_is_collected_and_graded(collected):
    out = collected["out"]
    assert sorted(str(p.relative_to(out)) for p in collected["done"].copied) == [
        f"s-1/hw03-s-1/{H03}",
        f"s-2/hw03-s-2/{H03}",
    ]
    sheet = (collected["grades"] / "grades.csv").read_text(encoding="utf-8").splitlines()
    assert [line.split(",")[:6] for line in sheet[1:]] == [
        ["s-1", "1", "1", "1", "1", "4"],
        ["s-2", "1", "1", "1", "1", "4"],
    ]


def test_a_submission_for_someone_else_and_a_symlink_are_passed_over(collected):
    passed = "\n".join(collected["done"].passed_over)
    assert f"{collected['cheat']}: names s-1 but belongs to s-2" in passed
    assert "9999-12-31 23:59:59.000000 UTC+x: hw03-one-row-by-hand.ipynb:" in passed  # the symlink, not followed
    assert "test-secret" not in "".join(p.read_text(encoding="utf-8") for p in collected["out"].rglob("*.ipynb"))
