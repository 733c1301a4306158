"""The teacher guide's answer key (tools/answer_key.py): current, complete, and written as the questions round."""

from __future__ import annotations

import nbformat
import numpy as np

from tools import answer_key
from tools.course import CHECK_CALL, FUNCTION_CALL, ROOT, notebook_paths

GUIDE = ROOT / "docs" / "teacher-guide.md"


def test_answer_key_is_current():
    guide = GUIDE.read_text(encoding="utf-8")
    assert answer_key.updated(guide) == guide, "run python -m tools.answer_key"


def test_answer_key_lists_every_exercise_with_an_answer():
    guide = GUIDE.read_text(encoding="utf-8")
    block = guide.split(answer_key.START, 1)[1].split(answer_key.END, 1)[0]
    assert answer_key.MISSING not in block
    seen = 0
    for path in notebook_paths():
        for cell in nbformat.read(path, as_version=4).cells:
            names = CHECK_CALL.findall(cell.source) + FUNCTION_CALL.findall(cell.source)
            for name in names if cell.cell_type == "code" else ():
                if name[:2] == path.stem[:2]:
                    seen += 1
                    assert f"`{name}`" in block, f"{name} is not in the teacher guide's answer key"
    assert seen > 50


def test_answer_key_formats_numbers_as_the_questions_round_them():
    assert answer_key.show(10 / np.sqrt(56)) == "1.336"
    assert answer_key.show(np.spacing(np.float32(1e6))) == "0.0625"
    assert answer_key.show([1e-17, -0.0447213595]) == "[0, -0.045]"
    assert answer_key.show(np.sqrt(1e-5)) == "0.00316" and answer_key.show("b") == "`b`"  # as typed below %%answer
