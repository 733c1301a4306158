"""Build graded assignments: each student's release notebook and the teacher's source (with the worked answers).

    python -m tools.assignments [--notebooks 03 07] [--roster FILE] [--out build/assignments] [--lang zh|en]

For every assignment (assignments/hwNN.py) and every student id of the roster (one per line, '#' comments):
- `OUT/source/<student>/<slug>.ipynb`: the teacher's notebook in nbgrader's format, answers between
  `### BEGIN SOLUTION` / `### END SOLUTION` (keep it private: it holds that student's answers);
- `OUT/release/<student>/<slug>.ipynb`: what the student gets, made from the source by nbgrader's own
  preprocessors (ClearSolutions, LockCells, ComputeChecksums, ClearOutput): no answer, no test, locked data cells;
- `OUT/autograder/manifest.json`: the roster, the assignments, their questions and points, the language.
The answer cells are the course's own: `%%answer hwNN.name` (the answer typed under it) and `%%code_exercise
hwNN.name` (a function); lnlib's magics only show what they read there, the check is `python -m tools.grade`.
The student's numbers come from the roster id and the teacher's secret (`assignments.secret`), and every cell id is
derived from its nbgrader grade id, so the same command with the same roster and secret rebuilds the same files,
byte for byte. `--lang` chooses the language of the words the tools add to a notebook (the student id line, the
points, the comments of the answer cells, the check before handing in) and of the titles (default: lnlib's, i.e.
$LNLIB_LANG, else zh) and of each assignment's task text (its `assignments.Text` pairs): one build, one language.
The grader rebuilds a release in the language the manifest records, whatever language its feedback is in.
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import nbformat

import assignments
from lnlib import i18n
from lnlib.i18n import message
from tools import course

DEFAULT_OUT = course.BUILD / "assignments"
DEFAULT_ROSTER = course.ROOT / "assignments" / "roster-example.txt"
KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


@contextmanager
def speaking(lang: str | None) -> Iterator[None]:
    """Every message in `lang` inside the block (None: the language as it is), the language before restored after.
    Process-wide: use it where no other thread says words."""
    if lang is None:
        yield
        return
    before = i18n.language()
    i18n.set_language(lang)
    try:
        yield
    finally:
        i18n.set_language(before)


def code_stub() -> str:
    """What a function's body holds in the release: `...` and a comment asking for the answer."""
    return "...  # " + message("grading.code_stub")


def read_roster(path: Path) -> list[str]:
    ids = [line.split("#")[0].strip() for line in Path(path).read_text(encoding="utf-8").splitlines()]
    ids = [assignments.check_student_id(i) for i in ids if i]
    if not ids:
        raise ValueError(f"roster: {path} lists no student id")
    if len(set(ids)) != len(ids):
        raise ValueError(f"roster: {path} lists a student id twice")
    return ids


def _meta(grade_id: str, *, solution=False, grade=False, locked=False, points=0) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution}
    meta["task"] = False
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}


def _text(value, v: dict) -> str:
    """A task text (a `Text` pair, or a function of the variant giving one) in the language of the moment."""
    return str(value(v) if callable(value) else value)


def magic_line(q: assignments.Question) -> str:
    """The first line of a question's answer cell: `%%answer hw03.mean` or `%%code_exercise hw07.layer_norm`."""
    return f"%%{'answer' if q.cases is None else 'code_exercise'} hw{q.key}"


def _answer_source(q: assignments.Question, v: dict) -> str:
    solution = str(q.solution(v))
    if q.cases is None:
        return f"{magic_line(q)}\n{q.stub}\n### BEGIN SOLUTION\n{solution}\n### END SOLUTION"
    body = solution.split("\n", 1)[1]  # the function's body, already indented
    return f"{magic_line(q)}\nimport numpy as np\n\n\n{q.stub}\n    ### BEGIN SOLUTION\n{body}\n    ### END SOLUTION"


def source_notebook(a: assignments.Assignment, student: str, key: bytes) -> nbformat.NotebookNode:
    """The teacher's notebook of one student: questions, the student's numbers and the worked answers."""
    v = a.variant(assignments.rng_for(student, a.number, key))
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        md(
            f"# {a.title}\n\n" + _text(a.intro, v) + "\n\n" + message("grading.student_id", student=student),
            metadata=_meta(f"{a.number}-intro", locked=True),
        ),
        code(
            "import lnlib  # " + message("grading.data_head") + "\n\n" + _text(a.data, v),
            metadata=_meta(f"{a.number}-data", locked=True),
        ),
    ]
    for q in a.questions:
        short = q.key.split(".", 1)[1]
        cells.append(
            md(
                _text(q.prompt, v) + message("grading.prompt_points", count=q.points),
                metadata=_meta(f"{q.key.replace('.', '-')}-question", locked=True),
            )
        )
        cells.append(code(_answer_source(q, v), metadata=_meta(short, solution=True)))
    names = ", ".join(f'"hw{q.key}"' for q in a.questions)
    cells.append(
        md(
            message("grading.end_check"),
            metadata=_meta(f"{a.number}-end", locked=True),
        )
    )
    cells.append(
        code(
            f"from lnlib.answers import assignment_missing\n\nassignment_missing([{names}])",
            metadata=_meta(f"{a.number}-check", locked=True),
        )
    )
    for cell in cells:  # ids from the grade ids, so a rebuild gives the same file (nbformat's are random)
        cell.id = cell.metadata["nbgrader"]["grade_id"]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata.update({"kernelspec": KERNEL, "language_info": {"name": "python"}})
    nb.metadata["lnlib_assignment"] = {"number": a.number, "student": student}
    return nb


def release_notebook(source: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The student's copy, made by nbgrader's preprocessors: solutions replaced by the stub, cells locked."""
    from nbgrader.preprocessors import ClearOutput, ClearSolutions, ComputeChecksums, LockCells

    nb = nbformat.from_dict(json.loads(json.dumps(source)))
    stub = code_stub()
    nb, resources = ClearSolutions(code_stub={"python": stub}).preprocess(nb, {})
    for cell in nb.cells:  # an %%answer cell's body is typed text: its placeholder is the comment above the stub
        if cell.cell_type == "code" and cell.source.startswith("%%answer "):
            cell.source = "\n".join(line for line in cell.source.splitlines() if line.strip() != stub)
    for step in (LockCells(), ComputeChecksums(), ClearOutput()):
        nb, resources = step.preprocess(nb, resources)
    return nb


def manifest_entry(a: assignments.Assignment) -> dict:
    return {
        "number": a.number,
        "title": str(a.title),
        "filename": a.filename,
        "questions": [{"key": q.key, "points": q.points, "name": q.name} for q in a.questions],
    }


def build(numbers: list[str], roster: list[str], out: Path, lang: str | None = None) -> dict:
    """Every student's release and source of every assignment of `numbers`, and the manifest; the tools' words in
    `lang` (default: lnlib's language)."""
    with speaking(lang):
        return _build(numbers, roster, out)


def _build(numbers: list[str], roster: list[str], out: Path) -> dict:
    table = assignments.load()
    unknown = [n for n in numbers if n not in table]
    if unknown:
        raise ValueError(f"notebooks: no assignment for {', '.join(unknown)}; there are {', '.join(sorted(table))}")
    key = assignments.secret(create=True)
    for part in ("source", "release", "autograder"):
        shutil.rmtree(out / part, ignore_errors=True)
    manifest = {"assignments": [], "students": roster, "lang": i18n.language()}
    for number in numbers:
        a = table[number]
        for student in roster:
            source = source_notebook(a, student, key)
            release = release_notebook(source)
            for part, nb in (("source", source), ("release", release)):
                path = out / part / student / a.filename
                path.parent.mkdir(parents=True, exist_ok=True)
                nbformat.write(nb, path)
        manifest["assignments"].append(manifest_entry(a))
    (out / "autograder").mkdir(parents=True, exist_ok=True)
    text = json.dumps(manifest, ensure_ascii=False, indent=1) + "\n"
    (out / "autograder" / "manifest.json").write_text(text, encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notebooks", nargs="+", default=["03", "07"], help="assignment numbers (default: 03 07)")
    parser.add_argument("--roster", type=Path, default=DEFAULT_ROSTER, help="one student id per line")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--lang",
        choices=i18n.LANGUAGES,
        help="language of the tools' words in the notebooks (default: $LNLIB_LANG, else zh)",
    )
    args = parser.parse_args(argv)
    numbers = [n.zfill(2) for part in args.notebooks for n in part.split()]
    roster = read_roster(args.roster)
    build(numbers, roster, args.out, args.lang)
    print(f"{len(numbers)} assignment(s) x {len(roster)} student(s): release in {args.out / 'release'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
