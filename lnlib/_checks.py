"""Input contract shared by every public function: validate early, name the argument, never mutate."""

from __future__ import annotations

import decimal
import math
import numbers

import numpy as np

from ._budget import BudgetError

FLOAT_DTYPES = (np.float16, np.float32, np.float64)


def as_real_array(value, name: str, *, min_ndim: int = 1) -> np.ndarray:
    """Return `value` as a float array (float16/32/64 kept, everything else float64), or raise clearly."""
    if value is None:
        raise TypeError(f"{name}: expected an array of real numbers, got None")
    if isinstance(value, str | bytes | bytearray | memoryview):  # never read text or raw bytes as numbers
        raise TypeError(f"{name}: expected an array of real numbers, got {type(value).__name__} {value!r:.40}")
    if isinstance(value, np.ma.MaskedArray):  # np.asarray would silently drop the mask
        raise TypeError(f"{name}: expected a plain array, got a masked array; fill or drop the masked values first")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as err:  # ragged nested lists
        got = _describe(value)
        raise ValueError(f"{name}: expected a rectangular array of real numbers, got {got} ({err})") from None
    kind = arr.dtype.kind
    if kind == "O":  # e.g. ints beyond int64, Fraction, Decimal: read each as float64 or name the one that is not
        arr = _object_as_float(arr, value, name)
        kind = "f"
    elif kind in "iu" and isinstance(value, list | tuple) and _holds_bool(value):
        raise TypeError(f"{name}: expected real numbers, got booleans mixed with numbers ({_describe(value)})")
    if kind in "US":
        raise TypeError(f"{name}: expected real numbers, got text ({arr.dtype})")
    if kind == "c":
        raise TypeError(f"{name}: expected real numbers, got complex numbers ({arr.dtype})")
    if kind == "b":
        raise TypeError(f"{name}: expected real numbers, got booleans")
    if kind not in "iuf":
        raise TypeError(f"{name}: expected real numbers, got {_describe(value)} with dtype {arr.dtype}")
    if arr.ndim < min_ndim:
        got = "a scalar" if arr.ndim == 0 else f"{arr.ndim} dimension(s)"
        raise ValueError(f"{name}: expected at least {min_ndim} dimension(s), got {got} (shape {arr.shape})")
    if arr.dtype.type not in FLOAT_DTYPES:
        with np.errstate(over="ignore"):
            wide = arr.astype(np.float64)
        if kind == "f" and np.any(np.isinf(wide) & np.isfinite(arr)):  # longdouble beyond float64
            big = arr[np.isinf(wide) & np.isfinite(arr)].reshape(-1)[0]
            raise ValueError(f"{name}: expected numbers within float64, got {big!r:.40} ({arr.dtype})")
        arr = wide
    return arr


def _describe(value) -> str:
    return f"a {type(value).__name__}"


def _holds_bool(value, depth: int = 0) -> bool:
    """Whether a (nested) list or tuple holds a bool: [1, True, 0] would otherwise pass as integers."""
    if depth > 32:
        return False
    return any(
        isinstance(v, bool | np.bool_) or (isinstance(v, list | tuple) and _holds_bool(v, depth + 1)) for v in value
    )


def _object_as_float(arr: np.ndarray, value, name: str) -> np.ndarray:
    """An object array of real numbers (ints beyond int64, Fraction, Decimal) as float64; the first element that
    is not a real number, or lies beyond float64, is named with its position."""
    out = np.empty(arr.shape, dtype=np.float64)
    for index, v in np.ndenumerate(arr):
        where = f"element {list(index)}" if index else "the value"
        if isinstance(v, bool | np.bool_) or not isinstance(v, numbers.Real | decimal.Decimal):
            what = f"text {v!r:.40}" if isinstance(v, str | bytes) else f"of type {type(v).__name__}"
            raise TypeError(f"{name}: expected real numbers, {where} is {what}")
        if isinstance(v, decimal.Decimal) and v.is_nan():  # sNaN: float() refuses it, comparing it signals
            out[index] = math.nan
            continue
        try:
            f = float(v)
        except (OverflowError, ValueError):
            f = math.inf
        if math.isinf(f) and not _is_infinite(v):
            raise ValueError(f"{name}: expected numbers within float64, {where} is too large ({str(v)[:12]}…)")
        out[index] = f
    return out


def _is_infinite(v) -> bool:
    try:
        return v in (math.inf, -math.inf) or (hasattr(v, "is_infinite") and v.is_infinite())
    except TypeError:
        return False


def normalized_axes(axis, ndim: int, name: str = "axis") -> tuple[int, ...]:
    """Turn an int or tuple of ints into sorted, non-negative, distinct axes of an array with `ndim` dims."""
    items = axis if isinstance(axis, tuple | list) else (axis,)
    if len(items) == 0:
        raise ValueError(f"{name}: expected at least one axis, got an empty {type(axis).__name__}")
    out = []
    for a in items:
        if isinstance(a, bool) or not isinstance(a, numbers.Integral):
            raise TypeError(f"{name}: expected an int or a tuple of ints, got {a!r}")
        if not -ndim <= a < ndim:
            raise ValueError(f"{name}: axis {a} is out of range for an input with {ndim} dimension(s)")
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: repeated axis in {axis!r}")
    return tuple(sorted(out))


def check_nonnegative(value, name: str) -> float:
    """A finite real number ≥ 0 (ε, momentum), as a float; ints beyond float64 (10**400) are refused by name."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a real number ≥ 0, got {value!r:.60}")
    try:
        result = float(value)
    except OverflowError:
        got = f"{str(value)[:8]}…"
        raise ValueError(f"{name}: expected a finite number ≥ 0, got a number too large for float64 ({got})") from None
    if not np.isfinite(result) or result < 0:
        raise ValueError(f"{name}: expected a finite number ≥ 0, got {value!r}")
    return result


def check_eps(eps, name: str = "eps") -> float:
    """ε must be a finite real number ≥ 0."""
    return check_nonnegative(eps, name)


def check_nonempty(x: np.ndarray, axes: tuple[int, ...], name: str = "x") -> None:
    if any(x.shape[a] == 0 for a in axes):
        raise ValueError(f"{name}: the normalized axes {axes} of shape {x.shape} are empty; nothing to average")


def param_array(value, x: np.ndarray, axes: tuple[int, ...], name: str) -> np.ndarray | None:
    """γ or β: None, or an array whose shape is exactly the normalized shape; returned broadcastable to x."""
    if value is None:
        return None
    arr = as_real_array(value, name, min_ndim=0)
    expected = tuple(x.shape[a] for a in axes)
    if arr.shape != expected:
        raise ValueError(f"{name}: expected shape {expected} (the normalized shape of x {x.shape}), got {arr.shape}")
    shape = [1] * x.ndim
    for a, n in zip(axes, expected, strict=True):
        shape[a] = n
    return arr.reshape(shape)


def result_dtype(*arrays: np.ndarray | None) -> np.dtype:
    """The widest float dtype among the inputs (the dtype results are returned in)."""
    return np.result_type(*[a.dtype for a in arrays if a is not None])


# --- an explorer's constructor arguments: refused by name where a control would silently clamp them ------------


def check_real(value, name: str) -> float:
    """A finite real number, as a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a real number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name}: expected a finite number, got {value!r}")
    return v


def check_in_range(value, name: str, low: float, high: float) -> float:
    """`value` if a control can show it (low ≤ value ≤ high), else ValueError naming the argument."""
    v = check_real(value, name)
    if not low <= v <= high:
        raise ValueError(f"{name}: the control covers {low:g} … {high:g}, got {value!r}")
    return v


def check_in_log_range(value, name: str, low_exp: float, high_exp: float) -> float:
    """`value` if a log slider from 10^low_exp to 10^high_exp can show it."""
    v = check_real(value, name)
    if not 10.0**low_exp * (1 - 1e-12) <= v <= 10.0**high_exp * (1 + 1e-12):
        raise ValueError(f"{name}: the slider covers {10.0**low_exp:g} … {10.0**high_exp:g}, got {value!r}")
    return v


def check_int_in_range(value, name: str, low: int, high: int) -> int:
    """An integer that an integer slider from low to high can show."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name}: the slider covers {low} … {high}, got {value!r}")
    return int(value)


MAX_SIDE = 32
"""An explorer's matrix has at most 32 tokens and 32 dimensions: it draws every number (a 32 × 32 matrix takes
0.5 GB and 3 s to show in all four matrix explorers here, within lnlib's budget of one call, lnlib/_budget.py)."""


def check_matrix_and_tokens(matrix, tokens) -> tuple[np.ndarray, tuple[str, ...]]:
    """A non-empty finite 2-D (tokens × d) float64 matrix, at most MAX_SIDE × MAX_SIDE, and one token name per row."""
    values = as_real_array(matrix, "matrix", min_ndim=2).astype(np.float64)
    if values.ndim != 2 or 0 in values.shape:
        raise ValueError(f"matrix: expected a non-empty 2-D (tokens × d) matrix, got shape {values.shape}")
    if max(values.shape) > MAX_SIDE:
        raise BudgetError(
            f"matrix: expected at most {MAX_SIDE} tokens × {MAX_SIDE} dimensions (an explorer draws every number; "
            f"lnlib's budget of one call is 1 GB and 10 s on 2 cores), got shape {values.shape}"
        )
    if not np.all(np.isfinite(values)):
        raise ValueError("matrix: expected finite numbers, got inf or NaN")
    tokens = tuple(str(t) for t in tokens)
    if len(tokens) != values.shape[0]:
        raise ValueError(f"tokens: expected {values.shape[0]} names (one per row of matrix), got {len(tokens)}")
    return values, tokens


def check_eps_for_rows(eps: float, values: np.ndarray, tokens: tuple[str, ...]) -> float:
    """ε = 0 is refused for a matrix with a constant row: its σ is 0, so x̂ = 0/0."""
    constant = np.flatnonzero(np.ptp(values, axis=1) == 0)
    if eps == 0 and constant.size:
        token = tokens[constant[0]]
        raise ValueError(f"eps: expected ε > 0 for a matrix with a constant row ({token!r:.20}: σ = 0, x̂ = 0/0), got 0")
    return eps
