"""The seed's hand-worked numbers are visible in the stored outputs of the notebooks that teach them."""

from __future__ import annotations

import json

import nbformat
import pytest

from tools.course import NOTEBOOKS
from tools.outputs import coalesce_streams


def stored_text(stem: str) -> str:
    nb = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    parts = []
    for cell in nb.cells:
        for out in coalesce_streams(cell.get("outputs", [])):
            parts.append(out.get("text", ""))
            parts.append(json.dumps(out.get("data", {}), ensure_ascii=False))
    return "\n".join(parts)


@pytest.mark.parametrize(
    ("stem", "expected"),
    [
        (
            "01-residual-and-token-matrix",
            ["[1. 1. 2. 3.] + [1. 3. 4. 5.] = [2. 4. 6. 8.]", "(3, 4)", "[10. 10. 10. 10.]", "我", "吃", "苹果"],
        ),
        ("02-which-axis", ["(3, 4)", "[ 5. 50.  5.]", "2.236", "22.361", "10.000"]),
        (
            "03-one-row-by-hand",
            [
                "μ = 5.0",
                "[-3. -1.  1.  3.]",
                "σ² = 5.0",
                "σ = √5 ≈ 2.236",
                "[-1.342 -0.447  0.447  1.342]",
                "μ = 50",
                "σ ≈ 22.361",  # written as a person writes it, not 22.360679774997898
                "[ 1.342  0.447 -0.447 -1.342]",
            ],
        ),
    ],
)
def test_hand_numbers_are_in_stored_outputs(stem, expected):
    text = stored_text(stem)
    for needle in expected:
        assert needle in text, f"{stem}: {needle!r} not in stored outputs"
