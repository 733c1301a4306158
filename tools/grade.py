"""Grade a folder of submissions: `python -m tools.grade SUBMISSIONS [--out build/grades] [--cell-timeout 10]`.

SUBMISSIONS holds one folder per student, named by the student id, with the returned notebooks under their release
names (at any depth, so nbgrader's `submitted/<student>/<assignment>/` layout works too). Every student of the
roster (build/assignments/autograder/manifest.json) is graded, and every other folder that holds an assignment's
notebook; anything else is skipped and listed. For every student and assignment:

1. the file is read as JSON, its outputs dropped, its cells' text kept (`tools.submission`); nothing in it runs
   here. A file that is not a notebook, too large or missing scores 0 for that assignment and says why;
2. a typed answer (`%%answer hwNN.name`) is read as the course reads it (`lnlib.text_input.parse_numbers`, quotes
   and 「」 taken off a word) and judged here with `lnlib.grading.grade`; the expected value is computed here from
   the student id and the teacher's secret. No student code runs for it;
3. a function (`%%code_exercise hwNN.name`) is the only code that runs: its cell alone, after the locked data cell,
   in a fresh Python sealed off by `tools.sandbox` (no repository, secret, other submission, network or grader
   process in sight; time, memory, file, process and output limits; killed with everything it started at its
   deadline), on the student's own test inputs. It returns only what the function returned, which is judged here
   with `lnlib.code_exercises.judge_function`; calling lnlib there is refused (lnlib.layer_norm is the answer);
4. `OUT/grades.csv` (student × question points, total, the sandbox used) and `OUT/feedback/<student>.md` (Chinese,
   naming the diagnosed mistake from lnlib's catalogue) are written by this process when every run has ended.
   No text from the grader's side (the secret, an expected value of another student) is ever put into feedback;
   what is echoed from a submission is cut short.

Without a working sandbox the grader refuses to run, unless told `--unsafe-no-sandbox` (trusted work only).
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import assignments
from lnlib import code_exercises
from lnlib.answers import is_stub, read_choice, syntax_text
from lnlib.code_exercises import judge_function
from lnlib.grading import NEXT_TRY, grade
from lnlib.text_input import parse_numbers
from tools import course, submission
from tools.assignments import DEFAULT_OUT as ASSIGNMENTS_OUT
from tools.assignments import magic_line, release_notebook, source_notebook
from tools.sandbox import Limits, Sandbox

DEFAULT_OUT = course.BUILD / "grades"
RUNNER = Path(__file__).with_name("grade_function.py")
START_SECONDS = 5  # a sandbox's start, numpy's import and the data cell (0.3 s on an idle machine)
STEP_SLACK = 2  # seconds beyond a call's own time limit before the sandbox is killed
SEALED, UNSEALED = "bubblewrap", "none (--unsafe-no-sandbox)"
UNSAFE_NOTE = "> 注意：这次批改没有使用沙箱（老师选择了 --unsafe-no-sandbox），你的函数是在老师的账户下直接运行的。"
ECHO = 120  # at most this many characters of a submission's own text are echoed in feedback


def refusal(why: str) -> str:
    return (
        f"cannot seal the submissions off: {why}.\n"
        "A student's code would run with your rights: it could read the grading secret and every submission and\n"
        "change the grades. Install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; it needs\n"
        "unprivileged user namespaces) and run again. For work you trust only: --unsafe-no-sandbox\n"
        "(make grade UNSAFE=1); the grade sheet and every feedback file then say it was used."
    )


@dataclass
class Result:
    points: dict[str, int] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)  # feedback, markdown


@dataclass
class FunctionRun:
    """What the sandbox said about one function question (or why it was not run)."""

    early: str = ""  # a verdict reached without running (unanswered, syntax error), Chinese
    cell: dict = field(default_factory=dict)  # the cell's own record: ok, syntax, error, timeout, missing, forbidden
    cases: list[dict] = field(default_factory=list)
    timed_out: bool = False
    flooded: bool = False  # it wrote more than the output limit and was stopped


@dataclass
class Handed:
    """One assignment of one student, read and run; judged afterwards (in the main thread)."""

    a: assignments.Assignment
    v: dict
    problem: str = ""  # why there is nothing to grade (missing or unreadable file)
    notes: list[str] = field(default_factory=list)
    answers: dict[str, str | None] = field(default_factory=dict)
    functions: dict[str, FunctionRun] = field(default_factory=dict)


def _gone(grade_id: str) -> str:
    return f"答案单元格 `{grade_id}` 不见了（被删除或改成了文字单元格），按没有作答处理。"


def _cut(text: str, limit: int = ECHO) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------- reading and running (worker threads)


def _args(case) -> list[dict]:
    return [{"f": float(a)} if np.ndim(a) == 0 else {"a": np.asarray(a, dtype=np.float64).tolist()} for a in case.args]


def _function_run(q, v, source: str, data_cell: str, sandbox: Sandbox, cell_timeout: int) -> FunctionRun:
    body, offset = submission.without_magic(source)
    try:
        tree = ast.parse(body)
    except SyntaxError as err:
        where = f"单元格第 {err.lineno + offset} 行" if err.lineno else "代码里"
        return FunctionRun(early=f"代码还不能运行：{where}有语法错误：{syntax_text(err)}。")
    except Exception:  # noqa: BLE001 - nested too deep to parse, and the like
        return FunctionRun(early="代码读不了（嵌套太深或太长）。")
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == q.name]
    if defs and all(is_stub(d) for d in defs):
        return FunctionRun(early="尚未作答（函数里还是 ...）。")
    cases = q.cases(v)
    request = {
        "setup": data_cell,
        "source": body,
        "line_offset": offset,
        "name": q.name,
        "cases": [_args(c) for c in cases],
        "cell_timeout": cell_timeout,
        "time_limit": code_exercises.TIME_LIMIT,
    }
    steps = [START_SECONDS + cell_timeout, code_exercises.TIME_LIMIT + STEP_SLACK]
    total = steps[0] + steps[1] * (len(cases) + 1)
    limits = Limits(cpu_seconds=int(total) + 1)
    request["limits"] = limits.rlimits()
    runner = Sandbox(sandbox.runner, limits, sandbox.sealed)
    done = runner.run(json.dumps(request).encode("utf-8"), steps, total)
    records = _records(done.stdout)
    run = FunctionRun(timed_out=done.timed_out, flooded=done.truncated)
    if records and records[0].get("step") == "cell":
        run.cell = records[0]
        run.cases = [r for r in records[1:] if r.get("step") == "case"][: len(cases)]
    return run


def _records(data: bytes) -> list[dict]:
    """The runner's JSON lines, each checked; reading stops at the first line that is not a well-formed record."""
    out = []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            break
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            break
        out.append(record)
    return out


def _data_cell(release) -> str:
    return next(c.source for c in release.cells if c.metadata["nbgrader"]["grade_id"].endswith("-data"))


def hand_in(a, student: str, path: Path | None, key: bytes, sandbox: Sandbox, cell_timeout: int) -> Handed:
    """Read one submission and run its function cells; judge nothing yet."""
    handed = Handed(a, a.variant(assignments.rng_for(student, a.number, key)))
    if path is None:
        handed.problem = f"没有找到提交的 `{a.filename}`，这份作业记 0 分。"
        return handed
    try:
        cells = submission.read(path)
    except submission.Unreadable as err:
        handed.problem = f"{err}这份作业记 0 分。"
        return handed
    except OSError:
        handed.problem = f"`{path.name}` 读不出来，这份作业记 0 分。"
        return handed
    release = release_notebook(source_notebook(a, student, key))
    handed.notes = submission.locked_notes(
        cells,
        [(c.metadata["nbgrader"]["grade_id"], c.source, c.metadata["nbgrader"]["solution"]) for c in release.cells],
    )
    for q in a.questions:
        gid = q.key.split(".", 1)[1]
        source = submission.answer_source(cells, gid, magic_line(q))
        if q.cases is None:
            handed.answers[q.key] = None if source is None else submission.typed_answer(source, q.name)
        elif source is None:
            handed.functions[q.key] = FunctionRun(early=_gone(gid))
        else:
            handed.functions[q.key] = _function_run(q, handed.v, source, _data_cell(release), sandbox, cell_timeout)
    return handed


# ---------------------------------------------------------------- judging (main thread)


def _strip(text: str) -> str:
    text = text.replace(f"\n  {NEXT_TRY}", "").replace("\n  再试一次会有更具体的提示。", "").strip()
    lines = [line for line in text.splitlines() if "lnlib.hint(" not in line]
    return "\n".join(lines).removeprefix("✗ ").strip()


def _judge_answer(q, v, text: str | None) -> tuple[bool, str]:
    gid = q.key.split(".", 1)[1]
    if text is None:
        return False, _gone(gid)
    if not text:
        return False, "尚未作答。"
    exercise = q.exercise(v)
    if isinstance(exercise.expected, str):
        value = read_choice(text)
    else:
        try:
            value = parse_numbers(text)
        except ValueError as err:
            return False, f"没读懂这个答案：{_cut(err)}（答案单元格里直接写数，比如 5 或 -3, -1, 1, 3）"
    verdict = grade(exercise, value)
    return verdict.ok, _strip(verdict.first or verdict.message)


class _Replay:
    """Stands in for the student's function: answers case i with what it did on case i in the sandbox. (An object,
    not a function, so judge_function finds no line of this file to blame.)"""

    def __init__(self, records: list[dict], timed_out: bool):
        self.records, self.timed_out, self.i = records, timed_out, 0

    def __call__(self, *args, **kwargs):
        record = self.records[self.i] if self.i < len(self.records) else None
        self.i += 1
        if record is None:
            if self.timed_out:
                raise code_exercises._TimeUp
            raise type("运行中断", (Exception,), {})(
                "没有返回结果：程序退出或崩溃了（比如调用了 os._exit，或者内存用完了）"
            )
        kind = record["type"]
        value = record.get("value")
        if kind == "array" and isinstance(value, list | float | int):
            try:
                return np.asarray(value, dtype=np.float64)
            except (TypeError, ValueError):
                pass
        if kind == "none":
            return None
        if kind == "bool":
            return bool(value)
        if kind == "bools":
            return np.zeros(record.get("shape") or (), dtype=bool) if _shape_ok(record.get("shape")) else True
        if kind == "str":
            return _cut(value if isinstance(value, str) else "", 40)
        if kind == "ragged":
            return [[0.0, 0.0], [0.0]]
        if kind == "timeout":
            raise code_exercises._TimeUp
        if kind == "error":
            return self._raise(record)
        name = record.get("name") if isinstance(record.get("name"), str) else "object"
        return type(_identifier(name), (), {})()

    @staticmethod
    def _raise(record: dict):
        name = _identifier(str(record.get("ename", "Exception")))
        line = record.get("line")
        where = f"（你的函数第 {line} 行）" if isinstance(line, int) and 0 < line < 100_000 else ""
        text = _cut(record.get("evalue", ""), 200) + where
        if name == "SystemExit":
            raise SystemExit(text)
        raise type(name, (Exception,), {})(text)


def _shape_ok(shape) -> bool:
    return isinstance(shape, list) and len(shape) <= 4 and all(isinstance(n, int) and 0 <= n <= 1000 for n in shape)


def _identifier(name: str) -> str:
    name = name[:40]
    return name if name.isidentifier() else "Exception"


_CELL_WORDS = {
    "timeout": "运行这个单元格超过了时间上限，被停下了（是不是有死循环？），函数没能测试。",
    "missing": "单元格运行完了，但没有定义函数 `{name}`。",
}
ALONE = "批改时这个单元格单独运行（在它之前只有锁定的「你的数」），只能用 Python 和 numpy。"
FORBIDDEN = "函数调用了 lnlib：这道题要自己写 LayerNorm，lnlib 的函数就是答案本身，批改时不能用，这一题记 0 分。"


def _uses_lnlib(record: dict) -> bool:
    """The runner refused an lnlib function, or the code imported a part of lnlib (which is not there)."""
    if record.get("type") == "forbidden":
        return True
    named = str(record.get("ename", "")) in ("ModuleNotFoundError", "ImportError")
    return record.get("type") == "error" and named and "lnlib" in str(record.get("evalue", ""))


def _judge_function(q, v, run: FunctionRun) -> tuple[bool, str]:
    if run.early:
        return False, run.early
    cell = run.cell
    kind = cell.get("type")
    if not cell or (run.flooded and len(run.cases) < len(q.cases(v))):
        if run.flooded:
            return False, "输出太多了（超过 2 MB 的上限），单元格被停下了，函数没能测试完。"
        if run.timed_out:
            return False, "运行这个单元格超过了时间上限，被停下了（是不是有死循环？），函数没能测试。"
        return False, "运行这个单元格时程序退出或崩溃了（比如调用了 exit，或者内存用完了），函数没能测试。"
    if any(_uses_lnlib(r) for r in [cell, *run.cases]):
        return False, FORBIDDEN
    if kind == "syntax":
        err = SyntaxError(str(cell.get("msg", "")))
        line = cell.get("line")
        where = f"单元格第 {line} 行" if isinstance(line, int) and line > 0 else "代码里"
        return False, f"代码还不能运行：{where}有语法错误：{syntax_text(err)}。"
    if kind == "error":
        line = cell.get("line")
        where = f"（单元格第 {line} 行）" if isinstance(line, int) and 0 < line < 100_000 else ""
        ename = _identifier(str(cell.get("ename", "")))
        text = f"运行这个单元格时出错了{where}：{ename}: {_cut(cell.get('evalue', ''))}"
        if ename in ("ModuleNotFoundError", "ImportError", "NameError"):
            text += "\n  " + ALONE + "用到的 import、变量和辅助函数都要写在同一个单元格里。"
        return False, text
    if kind in _CELL_WORDS:
        return False, _CELL_WORDS[kind].format(name=q.name)
    if kind != "ok":
        return False, "批改时没有读到这个函数的结果。"
    verdict = judge_function(q.code_exercise, _Replay(run.cases, run.timed_out), cases=q.cases(v))
    return verdict.ok, _strip(verdict.first or verdict.message)


def judge(handed: Handed) -> Result:
    a, result = handed.a, Result()
    result.lines.append(f"\n## {a.title}\n")
    if handed.problem:
        result.points.update({q.key: 0 for q in a.questions})
        result.lines.append(handed.problem)
        return result
    result.lines += [f"> {n}" for n in handed.notes] + ([""] if handed.notes else [])
    for q in a.questions:
        try:
            if q.cases is None:
                ok, text = _judge_answer(q, handed.v, handed.answers.get(q.key))
            else:
                ok, text = _judge_function(q, handed.v, handed.functions[q.key])
        except Exception as err:  # noqa: BLE001 - a fault of the grader costs this question only, and is named
            print(f"grading {q.key} failed: {type(err).__name__}: {err}", file=sys.stderr)
            ok, text = False, "批改程序在这一题上出错了，请老师检查这一题。"
        result.points[q.key] = q.points if ok else 0
        mark = "✓" if ok else "✗"
        result.lines.append(
            f"- {mark} **{q.key}**（{result.points[q.key]}/{q.points} 分）" + ("" if ok else f"：{text}")
        )
    return result


# ---------------------------------------------------------------- the folder


def find(folder: Path, filename: str) -> Path | None:
    """The submitted file: the first regular file of that name, at any depth (a symlink is not a submission)."""
    found = sorted(p for p in folder.rglob(filename) if p.is_file() and not p.is_symlink())
    return found[0] if found else None


def students_in(submissions: Path, roster: list[str], filenames: list[str]) -> tuple[list[str], list[str]]:
    """The students to grade (the roster, and every other folder holding an assignment) and what is skipped."""
    students, skipped = set(roster), []
    for entry in sorted(submissions.iterdir()):
        if entry.name in students:
            continue
        ok = entry.is_dir() and not entry.is_symlink() and assignments.STUDENT_ID.match(entry.name)
        if ok and any(find(entry, name) for name in filenames):
            students.add(entry.name)
        else:
            skipped.append(entry.name)
    return sorted(students), skipped


def grade_folder(
    submissions: Path,
    out: Path,
    manifest_path: Path,
    cell_timeout: int = 10,
    jobs: int = 2,
    sandbox: Sandbox | None = None,
) -> list[str]:
    """Grade every student; write OUT/grades.csv and OUT/feedback/; return the skipped entries."""
    if not submissions.is_dir():
        raise ValueError(f"submissions: {submissions} is not a folder")
    sandbox = sandbox or Sandbox(RUNNER)
    why = sandbox.unusable()
    if why:
        raise RuntimeError(refusal(why))
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    table = assignments.load()
    chosen = [table[entry["number"]] for entry in manifest["assignments"]]
    key = assignments.secret()
    roster = list(manifest["students"])
    students, skipped = students_in(submissions, roster, [a.filename for a in chosen])

    def one(a, student: str) -> Handed:
        folder = submissions / student
        try:
            return hand_in(
                a, student, find(folder, a.filename) if folder.is_dir() else None, key, sandbox, cell_timeout
            )
        except Exception as err:  # noqa: BLE001 - a fault of the grader must not stop the other students' grading
            print(f"grading {student} / {a.number} failed: {type(err).__name__}: {err}", file=sys.stderr)
            return Handed(a, {}, problem="批改程序在这份作业上出错了，请老师检查这一份。")

    def run(student: str) -> tuple[list[Handed], float]:
        started = time.monotonic()
        return [one(a, student) for a in chosen], time.monotonic() - started

    keys = [q.key for a in chosen for q in a.questions]
    full = sum(q.points for a in chosen for q in a.questions)
    rows, feedback = {}, {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for n, (student, (handed, seconds)) in enumerate(zip(students, pool.map(run, students), strict=True), 1):
            results = [judge(h) for h in handed]  # here, in the main thread (judge_function's time limit)
            rows[student] = {k: p for r in results for k, p in r.points.items()}
            feedback[student] = [line for r in results for line in r.lines]
            total = sum(rows[student].get(k, 0) for k in keys)
            print(f"[{n}/{len(students)}] {student}: {total}/{full} ({seconds:.1f} s)", flush=True)
    mode = SEALED if sandbox.sealed else UNSEALED
    shutil.rmtree(out / "feedback", ignore_errors=True)
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student", *keys, "total", "sandbox"])
        for student in students:
            points = [rows[student].get(k, 0) for k in keys]
            writer.writerow([student, *points, sum(points), mode])
    for student in students:
        total = sum(rows[student].get(k, 0) for k in keys)
        text = f"# 作业反馈：{student}\n\n总分：{total} / {full}\n"
        if not sandbox.sealed:
            text += "\n" + UNSAFE_NOTE + "\n"
        if student not in roster:
            text += "\n> 这个学号不在名单上：作业里的数是按名单上的学号生成的，请老师核对。\n"
            print(f"note: {student!r} is not on the roster")
        text += "\n".join(feedback[student]) + "\n"
        (out / "feedback" / f"{student}.md").write_text(text, encoding="utf-8")
    return skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", type=Path)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--assignments", type=Path, default=ASSIGNMENTS_OUT, help="the folder make assignments built")
    parser.add_argument(
        "--cell-timeout", type=int, default=10, help="seconds a function cell may run before its tests (default 10)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="students graded at once (default 2)")
    parser.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run the students' functions without the sandbox, with your rights (trusted work only; recorded)",
    )
    args = parser.parse_args(argv)
    manifest = args.assignments / "autograder" / "manifest.json"
    if not manifest.is_file():
        parser.error(f"{manifest} is missing: run make assignments first")
    sandbox = Sandbox(RUNNER, sealed=not args.unsafe_no_sandbox)
    why = sandbox.unusable()
    if why:
        print(f"grade: {refusal(why)}", file=sys.stderr)
        return 2
    if not sandbox.sealed:
        print("warning: grading WITHOUT a sandbox (--unsafe-no-sandbox): the students' code runs with your rights")
    skipped = grade_folder(args.submissions, args.out, manifest, args.cell_timeout, args.jobs, sandbox)
    for name in skipped:
        print(f"skipped {name!r}: not a student of the roster, and no assignment notebook inside")
    print(f"grades: {args.out / 'grades.csv'}; feedback: {args.out / 'feedback'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
