"""A returned notebook, read defensively: its cells' text only, its answer cells, what was changed in it.

Nothing in it is run here. The outputs are dropped before anything is measured (a re-run grader never reads them),
so a notebook that printed 50 MB is graded like any other; only a file larger than `MAX_FILE_BYTES`, or cells whose
text alone exceeds `MAX_SOURCE_BYTES`, are refused, and the message says so in those words (in the language of
the moment: the grader's `--lang`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from lnlib.i18n import message

MAX_FILE_BYTES = 100_000_000
MAX_SOURCE_BYTES = 2_000_000


class Unreadable(Exception):
    """The file cannot be graded; the message says why, in words, for the student's feedback."""


@dataclass(frozen=True)
class Cell:
    kind: str  # "code", "markdown", "raw"
    source: str
    grade_id: str | None


def _source(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        return "".join(value)
    return ""


def _cell(raw) -> Cell | None:
    if not isinstance(raw, dict):
        return None
    meta = raw.get("metadata")
    nbgrader = meta.get("nbgrader") if isinstance(meta, dict) else None
    gid = nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None
    kind = raw.get("cell_type")
    return Cell(
        kind if isinstance(kind, str) else "", _source(raw.get("source")), gid if isinstance(gid, str) else None
    )


def read(path: Path) -> list[Cell]:
    """The cells of a submitted notebook, outputs dropped. Raises Unreadable."""
    name = path.name
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise Unreadable(
            message("grading.file_too_large", name=name, size=f"{size / 1e6:.0f}", limit=MAX_FILE_BYTES // 1_000_000)
        )
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Unreadable(message("grading.not_a_notebook", name=name)) from None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        raise Unreadable(message("grading.not_a_notebook", name=name))
    found = [c for c in (_cell(raw) for raw in cells) if c is not None]
    text = sum(len(c.source.encode("utf-8")) for c in found)
    if text > MAX_SOURCE_BYTES:
        raise Unreadable(
            message("grading.text_too_large", name=name, size=f"{text / 1e6:.1f}", limit=MAX_SOURCE_BYTES // 1_000_000)
        )
    return found


def answer_source(cells: list[Cell], grade_id: str, first_line: str) -> str | None:
    """The answer cell of one question: the code cell with its grade id, else the first one that starts with its
    `%%answer` / `%%code_exercise` line; None when there is none."""
    for cell in cells:
        if cell.kind == "code" and cell.grade_id == grade_id:
            return cell.source
    for cell in cells:
        if cell.kind == "code" and cell.source.lstrip().split("\n", 1)[0].strip() == first_line:
            return cell.source
    return None


def without_magic(source: str) -> tuple[str, int]:
    """The cell's body below its `%%…` line, and how many lines were taken off (for line numbers)."""
    lines = source.split("\n")
    if lines and lines[0].strip().startswith("%%"):
        return "\n".join(lines[1:]), 1
    return source, 0


def typed_answer(source: str, name: str) -> str:
    """What the student typed in an `%%answer` cell: the body without comments. A body `name = …` (the old form of
    the assignments) counts as its right-hand side."""
    from lnlib.answers import body_text

    body = body_text(without_magic(source)[0])
    old = re.fullmatch(rf"{re.escape(name)}\s*=\s*(.+)", body, flags=re.S)
    return old.group(1).strip() if old else body


def locked_notes(cells: list[Cell], release_cells: list[tuple[str, str, bool]]) -> list[str]:
    """What the student changed in the release's locked cells ((grade id, source, is an answer cell) each). The
    grader never runs them, so they change nothing; the feedback says so."""
    theirs: dict[str, Cell] = {}
    for cell in cells:
        if cell.grade_id is not None:
            theirs.setdefault(cell.grade_id, cell)
    notes = []
    for gid, source, is_answer in release_cells:
        mine = theirs.get(gid)
        if is_answer:
            continue
        if mine is None:
            notes.append(message("grading.locked_deleted", grade_id=gid))
        elif mine.source != source:
            notes.append(message("grading.locked_changed", grade_id=gid))
    return notes
