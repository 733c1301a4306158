"""Graded assignments: the teacher's material, never part of the student's package `lnlib`.

Each module `hwNN.py` holds one assignment built on course notebook NN: its title, how a student's numbers are drawn
(`variant(rng)`), the cells of the notebook and its questions. A `Question` knows its points, its answer cell (the
course's own: `%%answer hwNN.name` for a typed answer, `%%code_exercise hwNN.name` for a function), the worked
solution (only in the teacher's source notebook) and how to judge an answer: `exercise(v)` returns an
`lnlib.grading.Exercise` (numbers, choices) or, for a function, `cases(v)` gives the student's own inputs and the
grader calls `lnlib.code_exercises.judge_function` on what the function returned for them.

A student's numbers come from an HMAC of the student id with the teacher's secret (`secret()`), so neither the
repository nor a student release holds any student's answer; the expected values are computed at grading time from
the same seed with lnlib's reference functions.

The task text (introduction, questions, options, the answer cells' comments) is written in each assignment as a
`Text` pair, Chinese and English side by side, shown in the language of the moment like lnlib's lazy messages; the
questions, answers and checks stay one definition for both languages. The words of the feedback are messages of the
catalogue domain `grading`.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lnlib import i18n
from lnlib.i18n import Msg

__all__ = ["Assignment", "Question", "Text", "check_student_id", "load", "rng_for", "secret"]

SECRET_ENV = "LNLIB_GRADING_SECRET"
SECRET_FILE_ENV = "LNLIB_GRADING_SECRET_FILE"
DEFAULT_SECRET_FILE = Path.home() / ".config" / "lnlib-grading" / "secret"
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Text:
    """Task text in both languages, shown (`str`, an f-string, a message's field) in the language of the moment."""

    zh: str
    en: str

    def __str__(self) -> str:
        return self.en if i18n.language() == "en" else self.zh

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


@dataclass(frozen=True)
class Question:
    key: str  # "03.mean": assignment number and short name (a column of the grade sheet)
    points: int
    prompt: Text | Callable[[dict], Text]  # markdown (a function of the variant when it shows numbers)
    name: str  # the function the student defines; for an answer cell, a short name (manifest)
    stub: Text | str  # what the answer cell holds under its first line before the solution (the student sees it)
    solution: Callable[[dict], str | Text]  # the worked answer as typed (or the function's code); teacher's source only
    exercise: Callable[[dict], object] | None = None  # v -> lnlib.grading.Exercise
    cases: Callable[[dict], list] | None = None  # v -> [lnlib.code_exercises.Case], for a function
    code_exercise: str = ""  # the lnlib code exercise whose reference and wrong ways judge the function


@dataclass(frozen=True)
class Assignment:
    number: str  # "03"
    slug: str  # file name of the release notebook, without .ipynb
    title: str | Msg  # a message (the feedback's heading, the manifest), in the language of the moment
    variant: Callable[[np.random.Generator], dict]
    intro: Callable[[dict], Text]  # markdown: what this assignment is about (below the title the tool adds)
    data: Callable[[dict], Text]  # the locked code cell that defines the student's numbers (its comment)
    questions: tuple[Question, ...] = field(default_factory=tuple)

    @property
    def filename(self) -> str:
        return f"{self.slug}.ipynb"


def check_student_id(student: str) -> str:
    if not isinstance(student, str) or not STUDENT_ID.match(student):
        raise ValueError(
            f"student: expected an id of letters, digits, '_', '.' or '-' (at most 64, no path), got {student!r}"
        )
    return student


def secret(*, create: bool = False) -> bytes:
    """The teacher's secret: $LNLIB_GRADING_SECRET, else the file $LNLIB_GRADING_SECRET_FILE (default
    ~/.config/lnlib-grading/secret). With `create`, a missing file is made (random, readable by its owner only)."""
    value = os.environ.get(SECRET_ENV, "")
    if value:
        return value.encode()
    path = Path(os.environ.get(SECRET_FILE_ENV) or DEFAULT_SECRET_FILE)
    if path.is_file():
        text = path.read_text(encoding="utf-8").strip()
        if text:
            return text.encode()
    if not create:
        raise RuntimeError(
            f"no grading secret: set {SECRET_ENV} or write one line to {path} (make assignments creates it); "
            "grade with the same secret the assignments were built with"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(secrets.token_hex(32) + "\n", encoding="utf-8")
    path.chmod(0o600)
    print(f"created a new grading secret in {path} (keep it; grading needs the same one)")
    return path.read_text(encoding="utf-8").strip().encode()


def rng_for(student: str, number: str, key: bytes) -> np.random.Generator:
    """The generator of one student's numbers for assignment `number`: seeded by HMAC-SHA256(secret, id | number)."""
    digest = hmac.new(key, f"{check_student_id(student)}|{number}".encode(), hashlib.sha256).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def load() -> dict[str, Assignment]:
    from . import hw03, hw07

    return {a.number: a for a in (hw03.ASSIGNMENT, hw07.ASSIGNMENT)}
