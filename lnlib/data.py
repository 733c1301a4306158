"""The worked examples of the course (seed article 000): the 我 / 吃 / 苹果 token matrix and the residual add.

The numbers are chosen for hand calculation; they are not read out of a real model.
Introduced in notebook 01.
"""

from __future__ import annotations

import numpy as np

TOKENS: tuple[str, ...] = ("我", "吃", "苹果")
"""The three tokens of the example sentence, in order."""

RESIDUAL_INPUT = np.array([1.0, 1.0, 2.0, 3.0])
"""苹果 before attention (the residual branch)."""

ATTENTION_OUTPUT = np.array([1.0, 3.0, 4.0, 5.0])
"""What attention read for 苹果."""

TOKEN_MATRIX = np.array(
    [
        [8.0, 6.0, 4.0, 2.0],  # 我
        [20.0, 40.0, 60.0, 80.0],  # 吃
        [2.0, 4.0, 6.0, 8.0],  # 苹果 = RESIDUAL_INPUT + ATTENTION_OUTPUT
    ]
)
"""float64 (3, 4): one row per token after the residual add; this is what LayerNorm receives."""

for _array in (RESIDUAL_INPUT, ATTENTION_OUTPUT, TOKEN_MATRIX):
    _array.flags.writeable = False  # a learner's experiment must not change the course's data
