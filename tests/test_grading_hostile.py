"""Hostile submissions (issue 38): every one graded sealed off, fairly, and with true messages.

A class of honest students and hostile ones, one build and one grading run (`make grade`'s code, two at a time).
Every hostile student types the right answers of assignment 03 and of 07's typed questions, and puts its attack
in the one cell the grader runs, the `%%code_exercise` cell, next to a correct `layer_norm` that raises the moment
the attack worked: so its grade shows the attack failed, and its feedback says what it found. The grade sheet is
compared with one written by hand. Around the run: checksums of the repository, the build (every student's teacher
notebook), every submission and the secret file; no process of a sandbox left; a TCP server on the machine's
loopback that no sandbox may reach; no feedback holding any piece of the secret. G1–G8 are the red team's findings.
Skipped (with the reason) where bubblewrap cannot run; CI installs it.
"""

from __future__ import annotations

import hashlib
import os
import resource
import secrets
import socket
import subprocess
import threading
import time
from pathlib import Path

import nbformat
import pytest
from helpers import type_answer, type_right_answers

pytest.importorskip("nbgrader", reason="the teacher's extra (requirements-teacher.txt; make test installs it)")

import assignments  # noqa: E402
from tools import assignments as build_tool  # noqa: E402
from tools import grade as grade_tool  # noqa: E402
from tools import judge as judge_tool  # noqa: E402
from tools import sandbox as sandbox_tool  # noqa: E402

SANDBOX = grade_tool.Sandbox(grade_tool.RUNNER)
WHY = SANDBOX.unusable()
pytestmark = pytest.mark.skipif(bool(WHY), reason=f"no sandbox here: {WHY}")

REPO = Path(__file__).resolve().parents[1]
SECRET = secrets.token_hex(32)
H03, H07 = "hw03-one-row-by-hand.ipynb", "hw07-full-formula.ipynb"
CELL_TIMEOUT = 3
HEADER = "student,03.mean,03.variance,03.xhat,03.diagnose,07.layer_norm,07.y,07.shape_mu,07.predict,total,sandbox"
EXPECTED = {  # written by hand: an attack that fails costs nothing; a function that is no function scores 0
    "alice": "1,1,1,1,2,1,1,1,9",
    "diskfiller": "1,1,1,1,2,1,1,1,9",
    "exfiltrator": "1,1,1,1,0,1,1,1,7",  # its function returns (and raises) what it stole: not a LayerNorm
    "flood": "1,1,1,1,0,1,1,1,7",  # G7: floods its output; stopped, the function never tested
    "forkbomb": "1,1,1,1,2,1,1,1,9",
    "g2-daemon": "1,1,1,1,2,1,1,1,9",
    "g4-tiny": "0,1,1,1,2,1,1,1,8",  # types 5e-324 for μ
    "g6-bool": "1,1,1,1,0,1,1,1,7",
    "g6-name": "1,1,1,1,0,1,1,1,7",
    "g8-lnlib": "1,1,1,1,0,1,1,1,7",
    "looper": "1,1,1,1,0,1,1,1,7",
    "netcaller": "1,1,1,1,2,1,1,1,9",
    "printer": "1,1,1,1,2,1,1,1,9",
    "snooper": "1,1,1,1,2,1,1,1,9",
    "vandal": "1,1,1,1,2,1,1,1,9",
    "zed": "1,1,1,1,2,1,1,1,9",  # honest, graded after the vandal tried to rewrite its notebook (G3)
}
MARK = "/sandbox/run.py"  # in the command line of every sandboxed runner (and of anything it forks)

LAYER_NORM = """
import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    if found:
        raise RuntimeError("FOUND " + repr(found)[:300])
    x = np.asarray(x, dtype=float)
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
"""

READ_SECRET = """
import glob, os
stolen = []
for key, value in os.environ.items():
    if "SECRET" in key or "LNLIB" in key:
        stolen.append(key + "=" + value)
for path in glob.glob("/proc/*/environ") + glob.glob("/proc/*/cmdline") + ["@SECRET_FILE@", "@HOME_SECRET@"]:
    try:
        data = open(path, "rb").read().decode("utf-8", "replace")
    except Exception:
        continue
    if "LNLIB" in data or "@SECRET_HEAD@" in data or "grad" in data.lower():
        stolen.append(path + ":" + data[-200:])
"""

ATTACKS = {
    "snooper": READ_SECRET
    + """
import subprocess
found = list(stolen)
for path in ["@REPO@/tools/grade.py", "@REPO@/.git", "@REPO@/assignments", "@BUILT@/source", "@SUBS@", "@OUT@"]:
    if os.path.exists(path):
        found.append(path)
here = os.getcwd()
for _ in range(8):
    try:
        names = os.listdir(here)
    except OSError:
        names = []
    found += [here + "/" + n for n in names if n in ("lnlib", "tools", "assignments", "build", ".git", "subs")]
    here = os.path.dirname(here)
try:
    import lnlib
    found.append(lnlib.__file__)
except Exception:
    pass
if @NESTED@ and subprocess.run(["unshare", "-U", "true"], capture_output=True).returncode == 0:
    found.append("a user namespace of its own")
for name in ("assignments", "tools", "nbclient", "IPython", "torch", "requests"):
    try:
        __import__(name)
        found.append("module " + name)
    except Exception:
        pass
""",
    "vandal": """
import os, signal
found = []
for path in ["@SUBS@/zed/@H03@", "@OUT@/grades.csv", "@OUT@/feedback/zed.md", "@SECRET_FILE@",
             "@BUILT@/source/zed/@H03@", "@BUILT@/autograder/manifest.json", "@SENTINEL@"]:
    if os.path.exists(path):
        found.append("sees " + path)
    try:
        with open(path, "w") as f:
            f.write("vandalised")
        os.remove(path)
    except OSError:
        pass
for path in ["@REPO@/lnlib/__init__.py", "@REPO@/tools/grade.py", "@REPO@/notebooks"]:
    if os.access(path, os.W_OK) or os.path.exists(path):
        found.append("sees " + path)
try:
    os.makedirs("@SUBS@/zed/planted")  # in its own private /tmp at most: the test looks on the machine
except OSError:
    pass
try:
    os.kill(-1, signal.SIGKILL)  # every process it may signal: none but its own
except OSError:
    pass
""",
    "forkbomb": """
import os
found = []
forks = 0
try:
    while forks < 10_000:
        if os.fork() == 0:
            while True:
                pass
        forks += 1
except OSError:
    pass
if forks > 100:
    found.append(f"forked {forks} times")
""",
    "diskfiller": """
import os
found = []
written = 0
for n, folder in enumerate(("/tmp", ".", os.path.expanduser("~"), "/dev/shm", "/dev", "/")):
    for i in range(200):
        try:
            with open(os.path.join(folder, f"fill-{n}-{i}"), "wb") as f:
                f.write(b"x" * (4 << 20))
            written += 4 << 20
        except OSError:
            break
if written > 48 << 20:
    found.append(f"wrote {written >> 20} MB")
""",
    "printer": """
found = []
for _ in range(50):
    print("x" * 1_000_000)
""",
    "netcaller": """
import socket
found = []
for host, port in [("127.0.0.1", @PORT@), ("10.0.0.1", 80), ("1.1.1.1", 53), ("8.8.8.8", 443)]:
    try:
        with socket.create_connection((host, port), timeout=1) as s:
            s.sendall(b"hello from a sandbox")
        found.append(f"reached {host}:{port}")
    except OSError:
        pass
try:
    socket.getaddrinfo("pypi.org", 443)
    found.append("resolved pypi.org")
except OSError:
    pass
""",
    "g2-daemon": """
import os, subprocess, time
found = []
subprocess.Popen(["/usr/bin/env", "python3", "-c", "import time; time.sleep(60)", "@MARK@"], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(8)
        try:
            open("@OUT@/grades.csv", "w").write("g2-daemon,9,9,9,9,9,9,9,9,99\\n")
        finally:
            os._exit(0)
    os._exit(0)
""",
}
FUNCTIONS = {  # the whole function cell of the students whose function itself is the point
    "looper": "import numpy as np\n\ndef layer_norm(x, gamma, beta, eps=1e-5):\n    while True:\n        pass",
    "g6-name": "import numpy as np\n\ndef layer_norm(x, gamma, beta, eps=1e-5):\n    return helper(x)",
    "g6-bool": "def layer_norm(x, gamma, beta, eps=1e-5):\n    return True",
    "g8-lnlib": "import lnlib\n\n\ndef layer_norm(x, gamma, beta, eps=1e-5):\n"
    "    return lnlib.layer_norm(x, gamma, beta, eps=eps)",
    "exfiltrator": READ_SECRET
    + "\ndef layer_norm(x, gamma, beta, eps=1e-5):\n"
    + "    if x.ndim > 1:\n"
    + '        raise ValueError("could not convert string to float: LEAK " + repr(stolen))\n'
    + '    return "LEAK secret=" + repr(stolen)',
    "flood": "import os\n\nfor fd in range(3, 12):\n    for _ in range(300):\n        try:\n"
    "            os.write(fd, b'x' * (1 << 20))\n        except OSError:\n            break\n" + LAYER_NORM,
}


def _variant(student: str, number: str) -> dict:
    return assignments.load()[number].variant(assignments.rng_for(student, number, SECRET.encode()))


def _honest(built: Path, student: str) -> tuple:
    nb3 = nbformat.read(built / "release" / student / H03, as_version=4)
    nb7 = nbformat.read(built / "release" / student / H07, as_version=4)
    type_right_answers(nb3, _variant(student, "03"), nb7, _variant(student, "07"))
    type_answer(nb7, "layer_norm", "found = []\n" + LAYER_NORM)
    return nb3, nb7


def _write(nb, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def _digests(*roots: Path) -> dict[str, str]:
    out = {}
    for root in roots:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            if ".git" in path.parts or "__pycache__" in path.parts or ".venv" in path.parts:
                continue
            out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _repo_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    return [REPO / n for n in names if (REPO / n).is_file()]


def _runners() -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if MARK in cmdline and "bwrap" not in cmdline:
            found.append(f"{proc.name}: {cmdline[:200]}")
    return found


class _Listener:
    """A TCP server on the machine's loopback that records every connection."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.port, self.connections, self.stop = self.sock.getsockname()[1], [], False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop:
            try:
                conn, addr = self.sock.accept()
            except OSError:
                continue
            self.connections.append(addr)
            conn.close()

    def close(self):
        self.stop = True
        self.thread.join(2)
        self.sock.close()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    listener = _Listener()
    old = os.environ.get(assignments.SECRET_ENV)
    os.environ[assignments.SECRET_ENV] = SECRET
    secret_file = root / "home" / ".config" / "lnlib-grading" / "secret"
    secret_file.parent.mkdir(parents=True)
    secret_file.write_text(SECRET + "\n", encoding="utf-8")
    sentinel = REPO / "build" / "hostile-sentinel.txt"
    sentinel.parent.mkdir(exist_ok=True)
    sentinel.write_text("the vandal must not reach this\n", encoding="utf-8")
    try:
        roster = root / "roster.txt"
        roster.write_text("\n".join(EXPECTED) + "\n", encoding="utf-8")
        built, subs, out = root / "assignments", root / "subs", root / "grades"
        assert build_tool.main(["--roster", str(roster), "--out", str(built)]) == 0
        words = {
            "@REPO@": str(REPO),
            "@BUILT@": str(built),
            "@SUBS@": str(subs),
            "@OUT@": str(out),
            "@SECRET_FILE@": str(secret_file),
            "@HOME_SECRET@": str(Path.home() / ".config" / "lnlib-grading" / "secret"),
            "@SECRET_HEAD@": SECRET[:16],
            "@SENTINEL@": str(sentinel),
            "@H03@": H03,
            "@PORT@": str(listener.port),
            "@MARK@": MARK,
            "@NESTED@": str(sandbox_tool.blocks_nested_namespaces()),
        }
        for student in EXPECTED:
            nb3, nb7 = _honest(built, student)
            code = ATTACKS.get(student)
            if code is not None:
                type_answer(nb7, "layer_norm", code + LAYER_NORM)
            if student in FUNCTIONS:
                type_answer(nb7, "layer_norm", FUNCTIONS[student])
            if student == "g4-tiny":
                type_answer(nb3, "mean", "5e-324")
            if student == "printer":  # 50 MB of stored output, as a loop that printed leaves it
                out_cell = nbformat.v4.new_code_cell("for i in range(50):\n    print('x' * 1_000_000)")
                out_cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * 50_000_000)]
                nb7.cells.insert(2, out_cell)
            if student == "looper":  # a scratch cell that would hang a kernel: never run
                nb7.cells.insert(2, nbformat.v4.new_code_cell("while True:\n    pass"))
            for source in ATTACKS.values():  # attacks in plain cells too: the grader never runs them
                nb3.cells.append(nbformat.v4.new_code_cell(source.replace("@", "")))
            for nb, name in ((nb3, H03), (nb7, H07)):
                for cell in nb.cells:
                    for word, value in words.items():
                        cell.source = cell.source.replace(word, value)
                _write(nb, subs / student / name)
        guarded = [*_repo_files(), built, subs, secret_file, sentinel]
        before = {k: v for p in guarded for k, v in _digests(p).items()}
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.monotonic()
        manifest = built / "autograder" / "manifest.json"
        skipped = grade_tool.grade_folder(subs, out, manifest, CELL_TIMEOUT, 2, SANDBOX)
        seconds = time.monotonic() - started
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss
        left = _runners()
        time.sleep(1)  # a daemon that outlived grading would strike now (G2)
        after = {k: v for p in guarded for k, v in _digests(p).items()}
        yield {
            "out": out,
            "skipped": skipped,
            "before": before,
            "after": after,
            "left": left,
            "connections": list(listener.connections),
            "seconds": seconds,
            "rss_grown_kb": grown,
            "sheet": (out / "grades.csv").read_bytes(),
        }
    finally:
        listener.close()
        sentinel.unlink(missing_ok=True)
        os.environ.pop(assignments.SECRET_ENV, None)
        if old is not None:
            os.environ[assignments.SECRET_ENV] = old


def _feedback(graded, student: str) -> str:
    return (graded["out"] / "feedback" / f"{student}.md").read_text(encoding="utf-8")


def test_every_student_gets_the_grade_its_honest_work_deserves(graded):
    lines = graded["sheet"].decode("utf-8").splitlines()
    assert lines[0] == HEADER
    got = dict(line.split(",", 1) for line in lines[1:])
    want = {s: f"{row},{grade_tool.SEALED}" for s, row in EXPECTED.items()}
    assert got == want, "\n".join(f"{s}: {_feedback(graded, s)}" for s in EXPECTED if got.get(s) != want[s])
    for student, row in EXPECTED.items():  # the hand-written totals add up
        *points, total = map(int, row.split(","))
        assert sum(points) == total, student


def test_nothing_outside_the_sandboxes_changed(graded):
    assert len(graded["before"]) > 100  # the repository, the build, the submissions, the secret, the sentinel
    changed = sorted(
        k for k in graded["before"].keys() | graded["after"].keys() if graded["before"].get(k) != graded["after"].get(k)
    )
    assert changed == []
    assert not (graded["out"].parent / "subs" / "zed" / "planted").exists()


def test_no_sandbox_process_outlives_grading_g2(graded):
    assert graded["left"] == [] and _runners() == []
    sheet = (graded["out"] / "grades.csv").read_bytes()
    assert sheet == graded["sheet"] and b"99" not in sheet


def test_no_feedback_holds_any_piece_of_the_secret_g1(graded):
    pieces = {SECRET[i : i + 8] for i in range(0, len(SECRET) - 7)}
    for student in EXPECTED:
        text = _feedback(graded, student)
        assert not [p for p in pieces if p in text], student
    exfiltrated = _feedback(graded, "exfiltrator")
    assert "LEAK" in exfiltrated  # it did put what it found in its answer: nothing of the secret


def test_the_network_is_out_of_reach(graded):
    assert graded["connections"] == []
    assert "reached" not in _feedback(graded, "netcaller")


def test_honest_zed_is_untouched_by_the_vandal_g3(graded):
    zed = _feedback(graded, "zed")
    assert "总分：9 / 9" in zed and "vandal" not in zed


def test_a_tiny_answer_costs_only_its_own_question_g4(graded):
    tiny = _feedback(graded, "g4-tiny")
    assert "**03.mean**（0/1 分）" in tiny and "**03.variance**（1/1 分）" in tiny


def test_a_tiny_answer_gets_a_true_message_g4(graded):
    assert "批改程序" not in _feedback(graded, "g4-tiny")


def test_words_in_corner_brackets_are_accepted_g5():
    a = assignments.load()["07"]
    q = next(q for q in a.questions if q.key == "07.predict")
    v = _variant("alice", "07")
    word = "不变" if v["scale"] > 0 else "会变"
    for typed in (f"「{word}」", f'"「{word}」"', f"『{word}』"):
        assert judge_tool.judge_answer(q, v, typed) == (True, ""), typed
    q = next(q for q in assignments.load()["03"].questions if q.key == "03.diagnose")
    v = _variant("alice", "03")
    assert judge_tool.judge_answer(q, v, f"「{v['way']}」") == (True, "")


def test_messages_are_true_g6(graded):
    name = _feedback(graded, "g6-name")
    assert "NameError: name 'helper' is not defined（你的函数第 2 行）" in name and "被删除" not in name
    boolean = _feedback(graded, "g6-bool")
    assert "布尔值" in boolean and "运行" not in boolean and "第 9 行" not in boolean
    looper = _feedback(graded, "looper")
    assert "函数运行了 5 秒还没结束" in looper


def test_a_flood_of_output_is_cut_off_g7(graded):
    assert "输出太多了" in _feedback(graded, "flood")
    assert graded["rss_grown_kb"] < 200_000  # the grader's own memory: not the gigabytes written
    assert graded["seconds"] < 120


def test_calling_lnlib_is_refused_with_a_clear_line_g8(graded):
    assert str(judge_tool.FORBIDDEN) in _feedback(graded, "g8-lnlib")


def test_the_attacks_met_walls(graded):
    """What each attack found is in its feedback when it found anything: here nothing (the grades say so too)."""
    for student in ATTACKS:
        assert "FOUND" not in _feedback(graded, student), _feedback(graded, student)
    assert "总分：9 / 9" in _feedback(graded, "printer")  # 50 MB of stored output: graded, outputs dropped


def test_an_lnlib_the_sandbox_could_see_is_covered(monkeypatch, tmp_path):
    """lnlib installed inside a folder the sandbox binds (here: a Python prefix that holds the repository) is
    covered by an empty folder: a function that loads it from its path finds nothing (G8 by the back door)."""
    import sys as real_sys

    python = os.path.realpath(real_sys.executable)
    monkeypatch.setattr(real_sys, "base_prefix", str(REPO))
    args = SANDBOX.bwrap_args()
    at = args.index(str(REPO))
    assert args[at - 1 : at + 2] == ["--ro-bind", str(REPO), str(REPO)]
    at = args.index(str(REPO / "lnlib"))
    assert args[at - 1 : at + 1] == ["--tmpfs", str(REPO / "lnlib")]
    probe = f"import os; print(os.listdir({str(REPO / 'lnlib')!r}), os.path.exists({str(REPO / 'tools')!r}))"
    done = subprocess.run(
        [*args, python, "-S", "-s", "-c", probe],
        capture_output=True,
        text=True,
        check=False,
        user=65534 if os.geteuid() == 0 else None,
        group=65534 if os.geteuid() == 0 else None,
        extra_groups=[] if os.geteuid() == 0 else None,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[] True", done.stdout  # the prefix is there, lnlib in it is empty


# ---------------------------------------------------------------- the same class graded in English (issue 43)


@pytest.fixture(scope="module")
def graded_en(graded):
    """The hostile class graded a second time, sealed off as before, with the feedback in English."""
    root = graded["out"].parent
    out = root / "grades-en"
    manifest = root / "assignments" / "autograder" / "manifest.json"
    grade_tool.grade_folder(root / "subs", out, manifest, CELL_TIMEOUT, 2, SANDBOX, "en")
    return out


def _english(out: Path, student: str) -> str:
    return (out / "feedback" / f"{student}.md").read_text(encoding="utf-8")


def test_in_english_the_grades_are_the_same_and_the_messages_as_true(graded, graded_en):
    assert (graded_en / "grades.csv").read_bytes() == graded["sheet"]
    tiny = _english(graded_en, "g4-tiny")
    assert "**03.mean** (0/1 point)" in tiny and "**03.variance** (1/1 point)" in tiny and "grader" not in tiny
    name = _english(graded_en, "g6-name")
    assert "NameError: name 'helper' is not defined (line 2 of your function)" in name and "deleted" not in name
    assert "booleans (True/False), not numbers" in _english(graded_en, "g6-bool")
    assert "still running after 5 s" in _english(graded_en, "looper")
    assert "Too much output" in _english(graded_en, "flood")
    assert "The function calls lnlib" in _english(graded_en, "g8-lnlib")
    assert "Total: 9 / 9" in _english(graded_en, "zed") and "Total: 9 / 9" in _english(graded_en, "printer")


def test_in_english_no_chinese_is_said_and_every_verdict_is_the_same(graded, graded_en):
    import re

    cjk = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
    pieces = {SECRET[i : i + 8] for i in range(0, len(SECRET) - 7)}
    for student in EXPECTED:
        zh, en = _feedback(graded, student), _english(graded_en, student)
        marks = [re.findall(r"^- ([✓✗]) \*\*(\S+)\*\*", text, flags=re.M) for text in (zh, en)]
        assert marks[0] == marks[1] and len(marks[0]) == 8, student
        bare = re.sub(r"“[^”]*”|`[^`]*`", "", en)  # a student's own text and file names are quoted
        assert not cjk.search(bare), (student, cjk.findall(bare))
        assert not [p for p in pieces if p in en], student
