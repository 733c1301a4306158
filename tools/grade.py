"""Grade a folder of submissions: `python -m tools.grade SUBMISSIONS [--out build/grades] [--lang zh|en] …`.

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
   (`tools.judge`) with `lnlib.code_exercises.judge_function`; calling lnlib there is refused (lnlib.layer_norm is
   the answer);
4. `OUT/grades.csv` (student × question points, total, the sandbox used) and `OUT/feedback/<student>.md` (in the
   language of `--lang`, default lnlib's: $LNLIB_LANG, else zh; naming the diagnosed mistake from lnlib's catalogue)
   are written by this process when every run has ended.
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
from lnlib import code_exercises, i18n
from lnlib.answers import is_stub
from lnlib.i18n import lazy, message
from tools import course, judge, submission
from tools.assignments import DEFAULT_OUT as ASSIGNMENTS_OUT
from tools.assignments import magic_line, release_notebook, source_notebook, speaking
from tools.sandbox import Limits, Sandbox

DEFAULT_OUT = course.BUILD / "grades"
RUNNER = Path(__file__).with_name("grade_function.py")
START_SECONDS = 5  # a sandbox's start, numpy's import and the data cell (0.3 s on an idle machine)
STEP_SLACK = 2  # seconds beyond a call's own time limit before the sandbox is killed
SEALED, UNSEALED = "bubblewrap", "none (--unsafe-no-sandbox)"
UNSAFE_NOTE = lazy("grading.unsafe_note")


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
class Handed:
    """One assignment of one student, read and run; judged afterwards (in the main thread)."""

    a: assignments.Assignment
    v: dict
    problem: str = ""  # why there is nothing to grade (missing or unreadable file)
    notes: list[str] = field(default_factory=list)
    answers: dict[str, str | None] = field(default_factory=dict)
    functions: dict[str, judge.FunctionRun] = field(default_factory=dict)


# ---------------------------------------------------------------- reading and running (worker threads)


def _args(case) -> list[dict]:
    return [{"f": float(a)} if np.ndim(a) == 0 else {"a": np.asarray(a, dtype=np.float64).tolist()} for a in case.args]


def _function_run(q, v, source: str, data_cell: str, sandbox: Sandbox, cell_timeout: int) -> judge.FunctionRun:
    body, offset = submission.without_magic(source)
    try:
        tree = ast.parse(body)
    except SyntaxError as err:
        return judge.FunctionRun(early=judge.syntax_error(err, err.lineno + offset if err.lineno else 0))
    except Exception:  # noqa: BLE001 - nested too deep to parse, and the like
        return judge.FunctionRun(early=message("grading.code_unparsable"))
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == q.name]
    if defs and all(is_stub(d) for d in defs):
        return judge.FunctionRun(early=message("grading.function_stub"))
    cases = q.cases(v)
    request = {
        "setup": data_cell,
        "source": body,
        "line_offset": offset,
        "name": q.name,
        "cases": [_args(c) for c in cases],
        "cell_timeout": cell_timeout,
        "time_limit": code_exercises.TIME_LIMIT,
        "forbidden": message("grading.sandbox_refusal"),  # what the stand-in lnlib says when called
    }
    steps = [START_SECONDS + cell_timeout, code_exercises.TIME_LIMIT + STEP_SLACK]
    total = steps[0] + steps[1] * (len(cases) + 1)
    limits = Limits(cpu_seconds=int(total) + 1)
    request["limits"] = limits.rlimits()
    runner = Sandbox(sandbox.runner, limits, sandbox.sealed)
    done = runner.run(json.dumps(request).encode("utf-8"), steps, total)
    records = judge.records(done.stdout)
    run = judge.FunctionRun(timed_out=done.timed_out, flooded=done.truncated)
    if records and records[0].get("step") == "cell":
        run.cell = records[0]
        run.cases = [r for r in records[1:] if r.get("step") == "case"][: len(cases)]
    return run


def _data_cell(release) -> str:
    return next(c.source for c in release.cells if c.metadata["nbgrader"]["grade_id"].endswith("-data"))


def hand_in(
    a, student: str, path: Path | None, key: bytes, sandbox: Sandbox, cell_timeout: int, release=None
) -> Handed:
    """Read one submission and run its function cells; judge nothing yet. `release`: the student's release as it was
    handed out (default: built again here, in the language of the moment)."""
    handed = Handed(a, a.variant(assignments.rng_for(student, a.number, key)))
    if path is None:
        handed.problem = message("grading.not_handed_in", filename=a.filename)
        return handed
    try:
        cells = submission.read(path)
    except submission.Unreadable as err:
        handed.problem = message("grading.unreadable_scores_zero", why=str(err))
        return handed
    except OSError:
        handed.problem = message("grading.cannot_read", name=path.name)
        return handed
    release = release or release_notebook(source_notebook(a, student, key))
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
            handed.functions[q.key] = judge.FunctionRun(early=judge.gone(gid))
        else:
            handed.functions[q.key] = _function_run(q, handed.v, source, _data_cell(release), sandbox, cell_timeout)
    return handed


# ---------------------------------------------------------------- judging (main thread)


def verdicts(handed: Handed) -> Result:
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
                ok, text = judge.judge_answer(q, handed.v, handed.answers.get(q.key))
            else:
                ok, text = judge.judge_function_run(q, handed.v, handed.functions[q.key])
        except Exception as err:  # noqa: BLE001 - a fault of the grader costs this question only, and is named
            print(f"grading {q.key} failed: {type(err).__name__}: {err}", file=sys.stderr)
            ok, text = False, message("grading.grader_fault_question")
        result.points[q.key] = q.points if ok else 0
        got = result.points[q.key]
        if ok:
            result.lines.append(message("grading.question_right", count=q.points, key=q.key, got=got))
        else:
            result.lines.append(message("grading.question_wrong", count=q.points, key=q.key, got=got, text=text))
    return result


# ---------------------------------------------------------------- the folder


def _submitted(folder: Path, filename: str) -> Path | Exception | None:
    """`find` in a student's folder; a failure kept, to cost that submission alone."""
    try:
        return find(folder, filename) if folder.is_dir() else None
    except Exception as err:  # noqa: BLE001 - named in that submission's place
        return err


def _releases(found: dict, table: dict, key: bytes, lang: str) -> dict:
    """The release of every (student, assignment) handed in, built again as `make assignments` built it (the locked
    cells in the language it recorded), here in the main thread: the language is the process's, and the workers say
    the feedback's words. A failure is kept in its place, for that submission alone."""
    releases: dict = {}
    with speaking(lang):
        for (student, number), path in found.items():
            try:
                if isinstance(path, Path):
                    releases[(student, number)] = release_notebook(source_notebook(table[number], student, key))
            except Exception as err:  # noqa: BLE001 - a fault of the grader costs that submission only
                releases[(student, number)] = err
    return releases


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
    lang: str | None = None,
) -> list[str]:
    """Grade every student; write OUT/grades.csv and OUT/feedback/ (in `lang`, default lnlib's language); return the
    skipped entries."""
    with speaking(lang):
        return _grade_folder(submissions, out, manifest_path, cell_timeout, jobs, sandbox)


def _grade_folder(submissions, out, manifest_path, cell_timeout, jobs, sandbox) -> list[str]:
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
    found = {(s, a.number): _submitted(submissions / s, a.filename) for s in students for a in chosen}
    releases = _releases(found, table, key, manifest.get("lang", i18n.DEFAULT_LANGUAGE))

    def one(a, student: str) -> Handed:
        try:
            path, release = found[(student, a.number)], releases.get((student, a.number))
            for fault in (path, release):
                if isinstance(fault, Exception):
                    raise fault
            return hand_in(a, student, path, key, sandbox, cell_timeout, release)
        except Exception as err:  # noqa: BLE001 - a fault of the grader must not stop the other students' grading
            print(f"grading {student} / {a.number} failed: {type(err).__name__}: {err}", file=sys.stderr)
            return Handed(a, {}, problem=message("grading.grader_fault_assignment"))

    def run(student: str) -> tuple[list[Handed], float]:
        started = time.monotonic()
        return [one(a, student) for a in chosen], time.monotonic() - started

    keys = [q.key for a in chosen for q in a.questions]
    full = sum(q.points for a in chosen for q in a.questions)
    rows, feedback = {}, {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for n, (student, (handed, seconds)) in enumerate(zip(students, pool.map(run, students), strict=True), 1):
            results = [verdicts(h) for h in handed]  # here, in the main thread (judge_function's time limit)
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
        text = message("grading.feedback_title", student=student) + "\n\n"
        text += message("grading.feedback_total", total=total, full=full) + "\n"
        if not sandbox.sealed:
            text += "\n" + str(UNSAFE_NOTE) + "\n"
        if student not in roster:
            text += "\n" + message("grading.not_on_roster") + "\n"
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
        "--lang", choices=i18n.LANGUAGES, help="language of the feedback (default: $LNLIB_LANG, else zh)"
    )
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
    skipped = grade_folder(args.submissions, args.out, manifest, args.cell_timeout, args.jobs, sandbox, args.lang)
    for name in skipped:
        print(f"skipped {name!r}: not a student of the roster, and no assignment notebook inside")
    print(f"grades: {args.out / 'grades.csv'}; feedback: {args.out / 'feedback'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
