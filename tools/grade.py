"""Grade a folder of submissions: `python -m tools.grade SUBMISSIONS [--out build/grades] [--cell-timeout 10]`.

SUBMISSIONS holds one folder per student, named by the student id, with the returned notebooks under their release
names (at any depth, so nbgrader's `submitted/<student>/<assignment>/` layout works too). For every student of the
roster (build/assignments/autograder/manifest.json) and every other student folder, and every assignment:

1. the file is read as a notebook; anything else (garbage bytes, an empty file, a missing file) scores 0 for that
   assignment and says why;
2. the locked cells (the text and the student's numbers) are put back from the student's release as nbgrader's
   autograde does (an edited or deleted one is restored, and the feedback says so); the student's answer cells and
   any cells they added are kept; grading cells are appended;
3. the notebook runs in a fresh kernel, in its own temporary folder and process group, with a clean environment
   (no secret), each cell limited to --cell-timeout seconds and the whole run bounded; a raising or looping cell
   costs only what depends on it;
4. the grading cells only *read* the answers (and call the student's function on that student's own test inputs)
   and write them into the temporary folder; this process judges them — the expected values are computed here
   from the student id and the teacher's secret with lnlib's reference functions, never inside the kernel, so a
   submission that redefines `check`, lnlib or anything else cannot change a verdict;
5. `OUT/grades.csv` (student × question points, total) and `OUT/feedback/<student>.md` (Chinese, naming the
   diagnosed mistake from lnlib's catalogue) are written by this process after every run has ended.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import numpy as np

import assignments
from lnlib.code_exercises import judge_function
from lnlib.grading import NEXT_TRY, grade
from tools import course
from tools.assignments import DEFAULT_OUT as ASSIGNMENTS_OUT
from tools.assignments import release_notebook, source_notebook

DEFAULT_OUT = course.BUILD / "grades"
RUNNER = Path(__file__).with_name("grade_run.py")
MAX_BYTES = 20_000_000
_KEEP_ENV = ("PATH", "LANG", "LC_ALL", "OPENBLAS_CORETYPE", "NUMBA_DISABLE_JIT", "VIRTUAL_ENV", "SYSTEMROOT")


@dataclass
class Result:
    points: dict[str, int] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)  # feedback, markdown


# ---------------------------------------------------------------- preparing a submission


def _grade_id(cell) -> str | None:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta.get("grade_id") if isinstance(meta, dict) else None


def restore(student_nb, release) -> tuple[list, list[str]]:
    """The cells to run: the release's locked cells, the student's answer cells and added cells; and the notes."""
    wanted = {_grade_id(c): c for c in release.cells}
    answers = {gid for gid, c in wanted.items() if c.metadata["nbgrader"].get("solution")}
    theirs: dict[str, object] = {}
    extras: dict[str | None, list] = {}
    anchor = None
    for cell in student_nb.cells:
        gid = _grade_id(cell)
        if gid in wanted and gid not in theirs:
            theirs[gid] = cell
            anchor = gid
        else:
            extras.setdefault(anchor, []).append(cell)
    notes, cells = [], []
    for gid, cell in wanted.items():
        mine = theirs.get(gid)
        if gid in answers:
            if mine is not None and mine.get("cell_type") == "code":
                cell = nbformat.v4.new_code_cell(str(mine.get("source", "")))
            else:
                notes.append(f"答案单元格 `{gid}` 不见了（被删除或改成了文字单元格），按没有作答处理。")
        elif mine is None:
            notes.append(f"锁定的单元格 `{gid}` 被删除了，批改时已按原样补回。")
        elif str(mine.get("source", "")) != cell.source:
            notes.append(f"锁定的单元格 `{gid}` 被改动过，批改时已按原样恢复。")
        cell = _clean(cell)
        if gid in answers:
            cell.metadata["lnlib_answer"] = gid
        cells.append(cell)
        cells.extend(_clean(c) for c in extras.pop(gid, []))
    cells[0:0] = [_clean(c) for c in extras.pop(None, [])]  # cells added above every known cell
    return cells, notes


def _clean(cell):
    kind = cell.get("cell_type")
    source = str(cell.get("source", ""))
    return nbformat.v4.new_code_cell(source) if kind == "code" else nbformat.v4.new_markdown_cell(source)


_DUMP = """\
def {fn}(key, get):
    import json
    try:
        value = get()
        if value is None or value is Ellipsis:
            out = {{"kind": "none"}}
        elif isinstance(value, str):
            out = {{"kind": "str", "value": value[:2000]}}
        elif isinstance(value, bool):
            out = {{"kind": "str", "value": repr(value)}}
        else:
            import numpy
            arr = numpy.asarray(value, dtype=float)
            big = {{"kind": "error", "value": "答案太大了"}}
            out = {{"kind": "array", "value": arr.tolist()}} if arr.size <= 100000 else big
    except NameError:
        out = {{"kind": "missing"}}
    except BaseException as err:
        out = {{"kind": "error", "value": (type(err).__name__ + ": " + str(err))[:500]}}
    with open(key + ".json", "w", encoding="utf-8") as f:
        json.dump(out, f)
"""


def _literal(value) -> str:
    return f"__np.array({np.asarray(value, dtype=np.float64).tolist()!r})"


def with_grading_cells(cells: list, a: assignments.Assignment, v: dict) -> tuple[list, dict[int, int]]:
    """The cells to run: the reader first, each answer read right after its cell too (kept if a later cell wedges
    the kernel), then the final reading and the function's cases; and {run position: student cell number}."""
    fn = "__lnlib_grade_dump"
    by_cell = {q.key.split(".", 1)[1]: q for q in a.questions if q.cases is None}
    run = [nbformat.v4.new_code_cell("import numpy as __np\n" + _DUMP.format(fn=fn))]
    numbers = {}
    for number, cell in enumerate(cells, start=1):
        run.append(cell)
        numbers[len(run)] = number
        q = by_cell.get(cell.metadata.get("lnlib_answer"))
        if q is not None:
            run.append(nbformat.v4.new_code_cell(f"{fn}({q.key + '@early'!r}, lambda: {q.name})"))
    for q in a.questions:
        if q.cases is None:
            run.append(nbformat.v4.new_code_cell(f"{fn}({q.key!r}, lambda: {q.name})"))
            continue
        for i, case in enumerate(q.cases(v)):
            args = ", ".join(_literal(arg) for arg in case.args)
            run.append(nbformat.v4.new_code_cell(f"{fn}({q.key + f'#{i}'!r}, lambda: {q.name}({args}))"))
    return run, numbers


# ---------------------------------------------------------------- running and judging


def _read(folder: Path, key: str) -> dict:
    path = folder / f"{key}.json"
    try:
        out = json.loads(path.read_text(encoding="utf-8"))
        return out if isinstance(out, dict) and "kind" in out else {"kind": "timeout"}
    except (OSError, ValueError):
        return {"kind": "timeout"}  # the grading cell never finished


def _read_answer(folder: Path, key: str) -> dict:
    """The final reading of an answer; the one right after its cell when the final one never ran."""
    final = _read(folder, key)
    if final["kind"] != "timeout":
        return final
    early = _read(folder, key + "@early")
    return early if early["kind"] != "timeout" else final


def _answer(record: dict):
    kind = record["kind"]
    return record.get("value") if kind in ("str", "array") else None


def _why_unanswered(q: assignments.Question, record: dict, cell_timeout: int) -> str:
    return {
        "missing": f"没有找到 `{q.name}`：答案单元格被删除了，或者没有定义它。",
        "none": "尚未作答。",
        "error": f"读取答案时出错了：{record.get('value', '')}",
        "timeout": f"没有读到答案：前面的单元格运行超过 {cell_timeout} 秒被中断了，或者 notebook 没能运行完。",
    }.get(record["kind"], "尚未作答。")


def _strip(text: str) -> str:
    text = text.replace(f"\n  {NEXT_TRY}", "").replace("\n  再试一次会有更具体的提示。", "").strip()
    return text.removeprefix("✗ ").strip()


def judge(a: assignments.Assignment, v: dict, folder: Path, cell_timeout: int, result: Result) -> None:
    for q in a.questions:
        if q.cases is None:
            record = _read_answer(folder, q.key)
            value = _answer(record)
            if value is None:
                ok, text = False, _why_unanswered(q, record, cell_timeout)
            else:
                verdict = grade(q.exercise(v), value)
                ok, text = verdict.ok, _strip(verdict.first or verdict.message)
        else:
            cases = q.cases(v)
            records = [_read(folder, f"{q.key}#{i}") for i in range(len(cases))]
            if all(r["kind"] == "missing" for r in records):
                ok, text = False, f"没有找到函数 `{q.name}`：函数单元格被删除了，或者没有定义它。"
            else:
                verdict = judge_function(q.code_exercise, _replay(records, cell_timeout), cases=cases)
                ok, text = verdict.ok, _strip(verdict.first or verdict.message)
        result.points[q.key] = q.points if ok else 0
        mark = "✓" if ok else "✗"
        result.lines.append(
            f"- {mark} **{q.key}**（{result.points[q.key]}/{q.points} 分）" + ("" if ok else f"：{text}")
        )


def _replay(records: list[dict], cell_timeout: int):
    """A stand-in for the student's function: it answers case i with what the student's function did on it."""
    calls = iter(records)

    def replay(*args, **kwargs):
        record = next(calls, {"kind": "timeout"})
        if record["kind"] == "array":
            return np.asarray(record["value"], dtype=np.float64)
        if record["kind"] == "none":
            return None
        if record["kind"] == "error":
            raise RuntimeError(record.get("value", ""))
        raise RuntimeError(f"运行超过 {cell_timeout} 秒还没结束，被中断了（是不是有死循环？）")

    return replay


def run_one(a, student: str, path: Path | None, key: bytes, cell_timeout: int) -> Result:
    try:
        return _run_one(a, student, path, key, cell_timeout)
    except Exception as err:  # noqa: BLE001 - a fault of the grader must not stop the other students' grading
        print(f"grading {student} / {a.number} failed: {type(err).__name__}: {err}", file=sys.stderr)
        result = Result({q.key: 0 for q in a.questions}, [f"\n## {a.title}\n", "批改程序出错了，请老师检查这一份。"])
        return result


def _run_one(a, student: str, path: Path | None, key: bytes, cell_timeout: int) -> Result:
    result = Result()
    result.lines.append(f"\n## {a.title}\n")
    v = a.variant(assignments.rng_for(student, a.number, key))
    zero = {q.key: 0 for q in a.questions}
    if path is None:
        result.points.update(zero)
        result.lines.append(f"没有找到提交的 `{a.filename}`，这份作业记 0 分。")
        return result
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            raise ValueError("too large")
        student_nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
        if not isinstance(student_nb.get("cells"), list):
            raise ValueError("no cells")
    except Exception:  # noqa: BLE001 - whatever the file is, it is not a notebook we can grade
        result.points.update(zero)
        result.lines.append(
            f"`{path.name}` 打不开：它不是一个 Jupyter notebook（可能是空文件或损坏了），这份作业记 0 分。"
        )
        return result
    release = release_notebook(source_notebook(a, student, key))
    cells, notes = restore(student_nb, release)
    run, numbers = with_grading_cells(cells, a, v)
    nb = nbformat.v4.new_notebook(cells=run)
    nb.metadata.update(release.metadata)
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        folder = Path(tmp)
        nbformat.write(nb, folder / "submission.ipynb")
        env = {k: os.environ[k] for k in _KEEP_ENV if k in os.environ}
        env.update(HOME=tmp, TMPDIR=tmp, MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
        budget = 90 + cell_timeout * (len(nb.cells) + 1)
        proc = subprocess.Popen(
            [sys.executable, str(RUNNER), "submission.ipynb", str(cell_timeout)],
            cwd=tmp,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            proc.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            notes.append(f"整个 notebook 运行超过 {budget} 秒，被停下了。")
        finally:
            _kill_group(proc)
            proc.wait()
        notes.extend(_problems(folder, numbers, cell_timeout))
        judge(a, v, folder, cell_timeout, result)
    result.lines[1:1] = [f"> {n}" for n in notes] + ([""] if notes else [])
    return result


def _problems(folder: Path, numbers: dict[int, int], cell_timeout: int) -> list[str]:
    """What went wrong in the student's own cells (not the grading cells), numbered as the student's cells."""
    try:
        problems = json.loads((folder / "_run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    notes = []
    for p in problems if isinstance(problems, list) else []:
        if isinstance(p, dict) and p.get("ename") == "Wedged":
            notes.append("内核不响应中断（连续两个单元格超时），后面的单元格都没有运行；之前读到的答案照常批改。")
        if not isinstance(p, dict) or p.get("cell") not in numbers:
            continue
        number = numbers[p["cell"]]
        if p.get("ename") in ("CellTimeout", "KeyboardInterrupt"):  # nbclient interrupts a cell at its limit
            notes.append(f"第 {number} 个单元格运行超过 {cell_timeout} 秒，被中断了（是不是有死循环？）。")
        else:
            notes.append(f"第 {number} 个单元格运行出错：{p.get('ename', '')}: {p.get('evalue', '')}")
    return notes


def _kill_group(proc: subprocess.Popen) -> None:
    """End the runner and everything it started (the kernel runs in its own group and is shut down by the runner;
    this is for a runner that had to be stopped)."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # Windows: no process groups
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


# ---------------------------------------------------------------- the folder


def find(folder: Path, filename: str) -> Path | None:
    """The submitted file: the first regular file of that name, at any depth (a symlink is not a submission)."""
    found = sorted(p for p in folder.rglob(filename) if p.is_file() and not p.is_symlink())
    return found[0] if found else None


def grade_folder(submissions: Path, out: Path, manifest_path: Path, cell_timeout: int = 10, jobs: int = 2) -> list:
    if not submissions.is_dir():
        raise ValueError(f"submissions: {submissions} is not a folder")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    table = assignments.load()
    chosen = [table[entry["number"]] for entry in manifest["assignments"]]
    key = assignments.secret()
    roster = set(manifest["students"])
    skipped, students = [], set(roster)
    for entry in submissions.iterdir():
        if entry.is_dir() and assignments.STUDENT_ID.match(entry.name):
            students.add(entry.name)
        else:
            skipped.append(entry.name)
    students = sorted(students)
    jobs_list = [(s, a) for s in students for a in chosen]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(
            pool.map(
                lambda sa: run_one(
                    sa[1],
                    sa[0],
                    find(submissions / sa[0], sa[1].filename) if (submissions / sa[0]).is_dir() else None,
                    key,
                    cell_timeout,
                ),
                jobs_list,
            )
        )
    keys = [q.key for a in chosen for q in a.questions]
    rows, feedback = {}, {}
    for (student, _), result in zip(jobs_list, results, strict=True):
        rows.setdefault(student, {}).update(result.points)
        feedback.setdefault(student, []).extend(result.lines)
    shutil.rmtree(out / "feedback", ignore_errors=True)
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student", *keys, "total"])
        for student in students:
            points = [rows[student].get(k, 0) for k in keys]
            writer.writerow([student, *points, sum(points)])
    full = sum(q.points for a in chosen for q in a.questions)
    for student in students:
        total = sum(rows[student].get(k, 0) for k in keys)
        text = f"# 作业反馈：{student}\n\n总分：{total} / {full}\n"
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
    parser.add_argument("--cell-timeout", type=int, default=10, help="seconds one cell may run (default 10)")
    parser.add_argument("--jobs", type=int, default=2, help="submissions graded at once (default 2)")
    args = parser.parse_args(argv)
    manifest = args.assignments / "autograder" / "manifest.json"
    if not manifest.is_file():
        parser.error(f"{manifest} is missing: run make assignments first")
    skipped = grade_folder(args.submissions, args.out, manifest, args.cell_timeout, args.jobs)
    for name in skipped:
        print(f"skipped {name!r}: not a folder named by a student id")
    print(f"grades: {args.out / 'grades.csv'}; feedback: {args.out / 'feedback'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
