"""Which numbers share one μ and σ: a token matrix grouped by row (LayerNorm), by column, or as a whole
(introduced in notebook 02). `tables.axis_stats_table` and `plots.highlight_heatmap` render these results.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ._checks import as_real_array
from .stages import mean, std, variance

MODES = ("row", "column", "all")


@dataclass(frozen=True)
class GroupStats:
    """μ, σ², σ of every group of a (tokens × d) matrix: one entry per row, per column, or one for the table."""

    mode: str
    matrix: np.ndarray
    mean: np.ndarray
    variance: np.ndarray
    std: np.ndarray


@dataclass(frozen=True)
class Selection:
    """One group of a matrix: `mask` marks its cells; `mean` and `std` are its statistics."""

    mode: str
    index: int
    matrix: np.ndarray
    mask: np.ndarray
    mean: float
    std: float

    @property
    def size(self) -> int:
        return int(self.mask.sum())


def _matrix(matrix) -> np.ndarray:
    values = as_real_array(matrix, "matrix").astype(np.float64)
    if values.ndim != 2 or 0 in values.shape:
        raise ValueError(f"matrix: expected a non-empty 2-D (tokens × d) matrix, got shape {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError("matrix: expected finite numbers, got inf or NaN")
    return values


def _mode(mode) -> str:
    if mode not in MODES:
        raise ValueError(f"mode: expected one of {list(MODES)}, got {mode!r}")
    return mode


def group_stats(matrix, mode: str = "row") -> GroupStats:
    """μ, σ², σ (÷ d) of each row ("row"), each column ("column"), or all cells together ("all")."""
    mode = _mode(mode)
    values = _matrix(matrix)
    groups = {"row": values, "column": values.T, "all": values.reshape(1, -1)}[mode]
    return GroupStats(mode, values, mean(groups), variance(groups), std(groups))


def selection(matrix, mode: str = "row", index: int = 0) -> Selection:
    """The cells of row `index` ("row"), of column `index` ("column") or every cell ("all"), with their μ, σ."""
    mode = _mode(mode)
    if isinstance(index, bool) or not isinstance(index, numbers.Integral):
        raise TypeError(f"index: expected an integer, got {index!r}")
    values = _matrix(matrix)
    n, d = values.shape
    limit = n if mode == "row" else d
    if mode != "all" and not 0 <= index < limit:
        raise ValueError(f"index: expected 0 … {limit - 1} for mode {mode!r}, got {index}")
    mask = np.zeros(values.shape, dtype=bool)
    if mode == "row":
        mask[index, :] = True
    elif mode == "column":
        mask[:, index] = True
    else:
        mask[:, :] = True
    chosen = values[mask]
    return Selection(mode, int(index), values, mask, float(mean(chosen)), float(std(chosen)))
