"""Verdicts on one submission's answers, in the chosen language, for the feedback: a typed answer, and a function from
what the sandbox reported about it.

A typed answer is read as the course reads it (`lnlib.text_input.parse_numbers`; quotes and 「」 taken off a word) and
judged with `lnlib.grading.grade`. A function is judged with `lnlib.code_exercises.judge_function` on a replay of what
it returned in the sandbox (`Replay`), so every message is the course's own; what the sandbox reported is trusted in
nothing (each record is checked, unknown ones count as no result), and text from the submission is cut short
(`cut`). Nothing here runs a student's code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from lnlib import code_grading
from lnlib.answers import read_choice, syntax_text
from lnlib.code_exercises import judge_function
from lnlib.grading import NEXT_TRY, grade
from lnlib.i18n import lazy, message
from lnlib.text_input import parse_numbers
from tools.sandbox import Limits

ECHO = 120  # at most this many characters of a submission's own text are echoed in feedback


@dataclass
class FunctionRun:
    """What the sandbox said about one function question (or why it was not run)."""

    early: str = ""  # a verdict reached without running (unanswered, syntax error), in words
    cell: dict = field(default_factory=dict)  # the cell's own record: ok, syntax, error, timeout, missing, forbidden
    cases: list[dict] = field(default_factory=list)
    timed_out: bool = False
    flooded: bool = False  # it wrote more than the output limit and was stopped


def gone(grade_id: str) -> str:
    return message("grading.cell_gone", grade_id=grade_id)


def syntax_error(err: SyntaxError, line: int) -> str:
    """The verdict on a cell that does not compile: where (its line in the cell, when known) and what."""
    where = message("grading.syntax_at_line", line=line) if line > 0 else message("grading.syntax_in_code")
    return message("grading.syntax_error", where=where, error=syntax_text(err))


def cut(text: str, limit: int = ECHO) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def records(data: bytes) -> list[dict]:
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


def _strip(text: str) -> str:
    text = text.replace(f"\n  {NEXT_TRY}", "").replace("\n  " + message("code.try_again"), "").strip()
    lines = [line for line in text.splitlines() if "lnlib.hint(" not in line]
    return "\n".join(lines).removeprefix("✗ ").strip()


def judge_answer(q, v, text: str | None) -> tuple[bool, str]:
    gid = q.key.split(".", 1)[1]
    if text is None:
        return False, gone(gid)
    if not text:
        return False, message("grading.unanswered")
    exercise = q.exercise(v)
    if isinstance(exercise.expected, str):
        value = read_choice(text)
    else:
        try:
            value = parse_numbers(text)
        except ValueError as err:
            return False, message("grading.unreadable_answer", error=cut(err))
    verdict = grade(exercise, value)
    return verdict.ok, _strip(verdict.first or verdict.message)


class Replay:
    """Stands in for the student's function: answers case i with what it did on case i in the sandbox. (An object,
    not a function, so judge_function finds no line of this file to blame.)"""

    def __init__(self, records: list[dict], timed_out: bool):
        self.records, self.timed_out, self.i = records, timed_out, 0

    def __call__(self, *args, **kwargs):
        record = self.records[self.i] if self.i < len(self.records) else None
        self.i += 1
        if record is None:
            if self.timed_out:
                raise code_grading._TimeUp
            raise type(message("grading.crash_name"), (Exception,), {})(message("grading.crash_no_result"))
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
            return cut(value if isinstance(value, str) else "", 40)
        if kind == "ragged":
            return [[0.0, 0.0], [0.0]]
        if kind == "timeout":
            raise code_grading._TimeUp
        if kind == "error":
            return self._raise(record)
        name = record.get("name") if isinstance(record.get("name"), str) else "object"
        return type(_identifier(name), (), {})()

    @staticmethod
    def _raise(record: dict):
        name = _identifier(str(record.get("ename", "Exception")))
        line = record.get("line")
        where = message("grading.function_line", line=line) if isinstance(line, int) and 0 < line < 100_000 else ""
        text = cut(record.get("evalue", ""), 200) + where
        if name == "SystemExit":
            raise SystemExit(text)
        raise type(name, (Exception,), {})(text)


def _shape_ok(shape) -> bool:
    return isinstance(shape, list) and len(shape) <= 4 and all(isinstance(n, int) and 0 <= n <= 1000 for n in shape)


def _identifier(name: str) -> str:
    name = name[:40]
    return name if name.isidentifier() else "Exception"


FORBIDDEN = lazy("grading.forbidden")


def _uses_lnlib(record: dict) -> bool:
    """The runner refused an lnlib function, or the code imported a part of lnlib (which is not there)."""
    if record.get("type") == "forbidden":
        return True
    named = str(record.get("ename", "")) in ("ModuleNotFoundError", "ImportError")
    return record.get("type") == "error" and named and "lnlib" in str(record.get("evalue", ""))


def judge_function_run(q, v, run: FunctionRun) -> tuple[bool, str]:
    if run.early:
        return False, run.early
    cell = run.cell
    kind = cell.get("type")
    if not cell or (run.flooded and len(run.cases) < len(q.cases(v))):
        if run.flooded:
            return False, message("grading.flooded", cap=Limits().output_bytes >> 20)
        if run.timed_out:
            return False, message("grading.cell_timeout")
        return False, message("grading.cell_crashed")
    if any(_uses_lnlib(r) for r in [cell, *run.cases]):
        return False, str(FORBIDDEN)
    if kind == "syntax":
        line = cell.get("line")
        return False, syntax_error(SyntaxError(str(cell.get("msg", ""))), line if isinstance(line, int) else 0)
    if kind == "error":
        line = cell.get("line")
        where = message("grading.cell_line", line=line) if isinstance(line, int) and 0 < line < 100_000 else ""
        ename = _identifier(str(cell.get("ename", "")))
        text = message("grading.cell_error", where=where, ename=ename, evalue=cut(cell.get("evalue", "")))
        if ename in ("ModuleNotFoundError", "ImportError", "NameError"):
            text += "\n  " + message("grading.cell_alone")
        return False, text
    if kind == "timeout":
        return False, message("grading.cell_timeout")
    if kind == "missing":
        return False, message("grading.cell_missing", name=q.name)
    if kind != "ok":
        return False, message("grading.no_result")
    verdict = judge_function(q.code_exercise, Replay(run.cases, run.timed_out), cases=q.cases(v))
    return verdict.ok, _strip(verdict.first or verdict.message)
