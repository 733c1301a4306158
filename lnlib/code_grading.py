"""How a learner's function is judged (the engine behind the catalogue `code_exercises`, as `grading` is behind
`exercises`): `judge_code` runs it on a `CodeExercise`'s cases and reports the first case whose result differs from the
reference, in Chinese, with its input, the expected and the received value, naming a `WrongWay` (a misconception as
code) that behaves like it on every case. Results are compared by value and shape (a list, nested lists, an array or
a tensor of the right numbers all pass). A function that raises (also SystemExit), runs longer than `TIME_LIMIT`
seconds, returns None, the wrong shape, ragged lists, booleans or inf/nan is reported too; nothing it does crashes the
cell, but the user's own interrupt still stops it; numpy warnings inside it are silenced. Needs only numpy.
"""

from __future__ import annotations

import math
import signal
import threading
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .grading import show_array, show_number
from .i18n import Msg, message

__all__ = ["ANY", "TIME_LIMIT", "Case", "CodeExercise", "FunctionVerdict", "WrongWay", "given", "judge_code"]

TIME_LIMIT = 5.0  # seconds one call of the learner's function may take


@dataclass(frozen=True)
class Case:
    label: str | Msg  # what this input tests (a message): a random row, a constant row, a large offset, float32 …
    args: tuple
    rtol: float = 1e-5
    atol: float = 1e-5


ANY = object()  # in a WrongWay's result: this part is not compared


@dataclass(frozen=True)
class WrongWay:
    """A misconception as code: a function with the exercise's signature that makes exactly this mistake."""

    said: str | Msg  # the mistake (a message, a full sentence)
    fn: Callable  # its result; a part given as ANY is not compared

    @property
    def why(self) -> str:
        """The mistake in the current language."""
        return str(self.said)


@dataclass(frozen=True)
class CodeExercise:
    signature: str | Msg  # e.g. "layer_norm(x, gamma, beta, eps=1e-5)" (a message where it explains itself)
    reference: Callable  # the same signature, built from lnlib
    cases: Callable[[], list[Case]]  # built on demand from a fixed seed
    hint: str | Msg  # the full solution, shown only when asked (lnlib.hint)
    nudge: str | Msg = ""  # the concept, shown from the second wrong try on
    near: str | Msg = ""  # what a result that is off by very little usually means, for this exercise
    mistakes: tuple[WrongWay, ...] = field(default_factory=tuple)


def given(shown: str | Msg) -> Callable[[Callable], Callable]:
    """Marks a function the course hands to the learner's (a case's argument) with the name messages show for it."""

    def mark(fn: Callable) -> Callable:
        fn.shown_as = shown  # type: ignore[attr-defined]
        return fn

    return mark


@dataclass(frozen=True)
class FunctionVerdict:
    ok: bool
    message: str  # from the second wrong try on: with the nudge
    failed: str | None = None  # the label of the first failing case, or "placeholder" / "error" / "timeout"
    first: str = ""  # the text of a first wrong try ("" = message)
    mistake: str = ""  # the named misconception, if one explains the function

    def text(self, tries: int) -> str:
        return self.first if tries <= 1 and self.first else self.message


# ---------------------------------------------------------------- reading a result


def _kind_text(kind: str, value) -> str:
    said = {
        "b": lambda: message("code.kind_bool"),
        "c": lambda: message("code.kind_complex"),
        "U": lambda: message("code.kind_text"),
        "S": lambda: message("code.kind_bytes"),
        "M": lambda: message("code.kind_datetime"),
        "m": lambda: message("code.kind_timedelta"),
    }.get(kind, lambda: message("code.kind_other", type=_type_name(value)))
    return said()


def _type_name(value) -> str:
    try:
        return type(value).__name__
    except Exception:  # noqa: BLE001 - nothing about a foreign object may crash the report
        return message("code.unknown_object")


def _scan(value, depth: int = 0, seen: frozenset = frozenset()) -> str:
    """'' when nested lists/tuples are safe to hand to numpy; else why not (a cycle, or nested too deep)."""
    if isinstance(value, list | tuple):
        if id(value) in seen:
            return message("code.self_list")
        if depth > 32:
            return message("code.too_deep")
        inner = seen | {id(value)}
        for item in value:
            why = _scan(item, depth + 1, inner)
            if why:
                return why
    return ""


def _to_array(value) -> tuple[np.ndarray | None, str]:
    """A result as a float64 array, or (None, why not). Never raises."""
    if isinstance(value, memoryview | bytes | bytearray):
        return None, message("code.bytes_result", type=_type_name(value))
    try:
        why = _scan(value)
        if why:
            return None, why
        if not isinstance(value, np.ndarray | list | tuple | int | float | np.generic) and hasattr(value, "detach"):
            value = value.detach()  # a torch tensor that requires grad
            value = value.cpu() if hasattr(value, "cpu") else value
            value = value.numpy() if hasattr(value, "numpy") else value
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            arr = np.asarray(value)
    except (ValueError, TypeError) as err:
        text = _exception_text(err)
        if "inhomogeneous" in text or "sequence" in text:
            return None, message("code.ragged")
        return None, message("code.unreadable", type=_type_name(value))
    except Exception:  # noqa: BLE001 - a foreign object may raise anything
        return None, message("code.unreadable", type=_type_name(value))
    kind = arr.dtype.kind
    if kind == "O":
        items = arr.ravel().tolist() if arr.size else []
        odd = next((v for v in items if isinstance(v, bool) or not isinstance(v, int | float | np.number)), None)
        if odd is None and items:
            try:
                return arr.astype(np.float64), ""
            except (ValueError, TypeError, OverflowError):
                pass
        what = "None" if odd is None and items else _kind_text("", odd) if odd is not None else ""
        return None, message("code.not_numbers_inside", what=what or message("code.empty_objects"))
    if kind not in "iuf":
        return None, message("code.result_is", what=_kind_text(kind, value))
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return arr.astype(np.float64), ""
    except (ValueError, TypeError, OverflowError):
        return None, message("code.too_large")


def _exception_text(err: BaseException) -> str:
    try:
        text = str(err)
    except Exception:  # noqa: BLE001 - an exception whose __str__ raises
        return message("code.no_message")
    return text if len(text) <= 200 else text[:197] + "…"


def _result_names(ex: CodeExercise) -> list[str]:
    """The names of a multi-part result, from the signature's "-> (y, new_running_mean, …)"."""
    _, arrow, after = str(ex.signature).partition("->")
    if not arrow:
        return []
    inner = after.strip()
    inner = inner[inner.index("(") + 1 : inner.index(")")] if "(" in inner and ")" in inner else inner
    return [n.strip() for n in inner.split(",")]


def _parts(got, want) -> tuple[list | None, str]:
    """Split `got` like the tuple `want`; (None, why) when it has another number of parts."""
    k = len(want)
    if isinstance(got, tuple | list) and _scan(got) == "" and len(got) == k:
        return list(got), ""
    if isinstance(got, np.ndarray) and got.ndim >= 1 and got.shape[0] == k:
        return list(got), ""
    count = len(got) if isinstance(got, tuple | list) and _scan(got) == "" else 1
    return None, message("code.part_count", want=k, got=count)


def _compare(got, want, case: Case, ex: CodeExercise | None = None) -> str:
    """'' if `got` matches `want` by value and shape, else why not."""
    if isinstance(want, tuple):
        parts, why = _parts(got, want)
        if parts is None:
            names = _result_names(ex) if ex is not None else []
            return why + (message("code.part_names", names=", ".join(names)) if len(names) == len(want) else "")
        names = _result_names(ex) if ex is not None else []
        for j, (g, w) in enumerate(zip(parts, want, strict=True)):
            why = _compare_one(g, w, case, ex)
            if why:
                name = names[j] if len(names) == len(want) else message("code.part_number", n=j + 1)
                return message("code.part_why", name=name, why=why)
        return ""
    return _compare_one(got, want, case, ex)


def _shown_part(got, want, case: Case, ex: CodeExercise) -> tuple[str, object, object]:
    """For a multi-part result, only the first part that differs, with its name (" new_running_mean")."""
    if isinstance(want, tuple):
        parts, _ = _parts(got, want)
        names = _result_names(ex)
        if parts is not None:
            for j, (g, w) in enumerate(zip(parts, want, strict=True)):
                if _compare_one(g, w, case, ex):
                    name = names[j] if len(names) == len(want) else message("code.part_number", n=j + 1)
                    return f" {name}", w, g
    return "", want, got


def _compare_one(got, want, case: Case, ex: CodeExercise | None) -> str:
    g, why = _to_array(got)
    if g is None:
        return why
    w = np.asarray(want, dtype=np.float64)
    if g.shape != w.shape and g.size == w.size == 1:
        g = g.reshape(w.shape)
    if g.shape != w.shape:
        return message("code.shape", want=_shape_text(w.shape), got=_shape_text(g.shape))
    if not np.all(np.isfinite(g)) and np.all(np.isfinite(w)):
        return message("code.not_finite")
    if not np.allclose(g, w, rtol=case.rtol, atol=case.atol):
        gap = float(np.max(np.abs(g - w)))
        if gap <= 1e-3 * max(float(np.max(np.abs(w))), 100 * case.atol):  # off by ≤ 0.1 % of the values' size
            near = ex.near if ex is not None and ex.near else message("code.near_default")
            return message("code.near", gap=show_number(gap, 2), near=near)
        return message("code.wrong_values", gap=show_number(gap, 3))
    return ""


def _shape_text(shape: tuple) -> str:
    return (
        message("code.scalar")
        if shape == ()
        else "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"
    )


def _same(got, wrong) -> bool:
    """The learner's result equals a wrong way's (ANY parts skipped; nan equals nan): the same mistake."""
    if wrong is ANY:
        return True
    if isinstance(wrong, tuple):
        parts, _ = _parts(got, wrong)
        return parts is not None and all(_same(g, w) for g, w in zip(parts, wrong, strict=True))
    g, _ = _to_array(got)
    w, _ = _to_array(wrong)
    if g is None or w is None:
        return False
    if g.shape != w.shape and g.size == w.size == 1:
        g = g.reshape(w.shape)
    return g.shape == w.shape and bool(np.allclose(g, w, rtol=1e-4, atol=1e-6, equal_nan=True))


def _broken(outcome) -> bool:
    """An outcome that gives no usable numbers: an error, a time-out, None, or inf/nan."""
    if outcome.error is not None or outcome.timed_out:
        return True
    if outcome.value is None:
        return True
    arrays = outcome.value if isinstance(outcome.value, tuple) else (outcome.value,)
    for a in arrays:
        if a is ANY:
            continue
        arr, _ = _to_array(a)
        if arr is None or not np.all(np.isfinite(arr)):
            return True
    return False


# ---------------------------------------------------------------- running the learner's code


@dataclass
class _Outcome:
    value: object = None
    error: BaseException | None = None
    timed_out: bool = False


class _TimeUp(BaseException):
    """Raised inside the learner's function when its time is up (a BaseException, so `except Exception` lets it go)."""


def _call(fn: Callable, args: tuple, limit: float | None = TIME_LIMIT) -> _Outcome:
    """Call `fn(*args)` with numpy's warnings silenced and a time limit (None: none); every exception is caught and
    returned.

    In the main thread (a Jupyter cell) a SIGALRM timer interrupts a function that runs too long; the user's own
    interrupt (SIGINT, the stop button) is told apart from a KeyboardInterrupt the function raises and still stops
    the cell. Elsewhere (another thread, Windows) the call runs in a helper thread that is abandoned when late.
    """
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        return _call_with_alarm(fn, args, limit)
    return _call_in_thread(fn, args, limit)


def _quiet_call(fn: Callable, args: tuple):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args)


def _call_with_alarm(fn: Callable, args: tuple, limit: float | None) -> _Outcome:
    state = {"armed": True, "user_interrupt": False}

    def on_alarm(signum, frame):
        if state["armed"]:
            raise _TimeUp

    old_int = signal.getsignal(signal.SIGINT)

    def on_int(signum, frame):
        state["user_interrupt"] = True
        if callable(old_int):
            old_int(signum, frame)
        raise KeyboardInterrupt

    old_alarm = signal.signal(signal.SIGALRM, on_alarm) if limit else None
    if callable(old_int):
        signal.signal(signal.SIGINT, on_int)
    # again every 0.5 s, should the function catch it; without a limit no timer is touched
    outer = signal.setitimer(signal.ITIMER_REAL, limit, 0.5) if limit else (0.0, 0.0)
    started = time.monotonic()
    try:
        return _Outcome(_quiet_call(fn, args))
    except _TimeUp:
        return _Outcome(timed_out=True)
    except KeyboardInterrupt as err:
        if state["user_interrupt"]:
            raise
        return _Outcome(error=err)
    except BaseException as err:  # noqa: BLE001 - SystemExit and the like from the learner's code: report them
        return _Outcome(error=err)
    finally:
        state["armed"] = False
        if limit:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_alarm if old_alarm is not None else signal.SIG_DFL)
        if outer[0] > 0:  # someone else's timer was running: give it back what is left of it
            signal.setitimer(signal.ITIMER_REAL, max(outer[0] - (time.monotonic() - started), 1e-3), outer[1])
        if callable(old_int):
            signal.signal(signal.SIGINT, old_int)


def _call_in_thread(fn: Callable, args: tuple, limit: float | None) -> _Outcome:
    box = _Outcome(timed_out=True)

    def run():
        try:
            box.value, box.timed_out = _quiet_call(fn, args), False
        except BaseException as err:  # noqa: BLE001 - reported, never raised in the helper thread
            box.error, box.timed_out = err, False

    worker = threading.Thread(target=run, daemon=True, name="lnlib-check-function")
    worker.start()
    worker.join(limit)
    return box


# ---------------------------------------------------------------- judging


def _fmt(value) -> str:
    """A case's argument or result for the report: numbers as a person writes them, never a memory address."""
    try:
        if value is ANY:
            return "…"
        if isinstance(value, bool | str | np.bool_):
            return repr(value) if not isinstance(value, np.bool_) else repr(bool(value))
        if isinstance(value, tuple):
            return "(" + ", ".join(_fmt(v) for v in value) + ")"
        if callable(value) and not isinstance(value, np.ndarray):
            return str(getattr(value, "shown_as", "") or getattr(value, "__name__", "") or message("code.a_function"))
        arr, why = _to_array(value)
        if arr is None:
            return message("words.value_type_why", type=_type_name(value), why=why)
        text = _show_values(arr)
        if arr.ndim >= 2:
            rows = [_show_values(r) for r in arr.reshape(-1, arr.shape[-1])[:6]]
            more = "\n      …" if arr.size // arr.shape[-1] > 6 else ""
            text = "\n      " + "\n      ".join(rows) + more
            if arr.ndim > 2:
                text = message("code.shape_rows", shape=_shape_text(arr.shape)) + text
        is_f32 = getattr(getattr(value, "dtype", None), "name", "") == "float32"
        return text + (message("code.float32") if is_f32 else "")
    except Exception:  # noqa: BLE001 - the report never crashes
        return message("words.value_type", type=_type_name(value))


def _show_values(arr: np.ndarray) -> str:
    """`show_array`, except for numbers that differ only beyond the digits shown (a row + 10⁸, which would read as
    [10⁸, 10⁸, …]): those are written as their common round part plus the rest, 10⁸ + [−0.94, 1.33, …]."""
    text = show_array(arr)
    flat = arr.ravel() if arr.dtype.kind in "iuf" else np.zeros(0)
    if flat.size < 2 or not np.all(np.isfinite(flat)) or np.ptp(flat) == 0:
        return text
    if len({show_number(v) for v in flat}) > 1:
        return text
    spread = float(np.ptp(flat))
    base = float(np.round(float(np.mean(flat)), -(math.ceil(math.log10(spread)) + 1)))
    if base == 0:
        return text
    return f"{show_number(base)} + {show_array(arr.astype(np.float64) - base)}"


def _inputs(ex: CodeExercise, case: Case) -> str:
    """The case's arguments, each named as in the signature: x = …, gamma = …"""
    signature = str(ex.signature)
    inner = signature[signature.index("(") + 1 : signature.index(")")]
    names = [p.split("=")[0].strip() for p in inner.split(",")]
    return message("code.input_separator").join(f"{n} = {_fmt(a)}" for n, a in zip(names, case.args, strict=False))


def _copy_args(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _error_text(fn, err: BaseException) -> str:
    name = _type_name(err)
    if isinstance(err, SystemExit):
        return message("code.exit")
    if isinstance(err, KeyboardInterrupt):
        return message("code.own_interrupt")
    line = ""
    try:
        code = getattr(fn, "__code__", None)
        frames = [
            f for f in traceback.extract_tb(err.__traceback__) if code is not None and f.filename == code.co_filename
        ]
        if frames and frames[-1].lineno is not None:
            line = message("code.error_line", line=frames[-1].lineno - code.co_firstlineno + 1)
    except Exception:  # noqa: BLE001 - the line number is a courtesy
        line = ""
    text = f"{name}: {_exception_text(err)}{line}"
    if isinstance(err, ValueError) and "broadcast" in _exception_text(err):
        text += "\n  " + message("code.broadcast")
    return text


def _named_mistake(ex: CodeExercise, cases: list[Case], outcomes: list[_Outcome]) -> str:
    """The misconception that behaves like the learner's function; '' if none does.

    First a way that matches on every case that ran (raising where the learner's raises); else a way that matches on
    every case where both return a value, at least two of them, one of which shows the mistake (differs from the
    reference): `lr * min(1, step / warmup_steps)` without the `warmup_steps == 0` branch is still "t / W"."""
    runs = [[_call_quietly(way.fn, case.args) for case in cases[: len(outcomes)]] for way in ex.mistakes]
    for way, theirs in zip(ex.mistakes, runs, strict=True):
        if all(
            (_broken(m) and _broken(t)) if (_broken(m) or _broken(t)) else _same(m.value, t.value)
            for m, t in zip(outcomes, theirs, strict=False)
        ):
            return way.why
    for way, theirs in zip(ex.mistakes, runs, strict=True):
        both = [(c, m, t) for c, m, t in zip(cases, outcomes, theirs, strict=False) if not (_broken(m) or _broken(t))]
        if len(both) < 2 or not all(_same(m.value, t.value) for _, m, t in both):
            continue
        shows = any(_compare(m.value, _quiet_call(ex.reference, _copy_args(c.args)), c, ex) for c, m, _ in both)
        if shows:
            return way.why
    return ""


def _call_quietly(fn: Callable, args: tuple) -> _Outcome:
    try:
        return _Outcome(_quiet_call(fn, _copy_args(args)))
    except Exception as err:  # noqa: BLE001 - a wrong way may fail on an input, as the learner's would
        return _Outcome(error=err)


def judge_code(name: str, ex: CodeExercise, fn, cases: list[Case] | None = None) -> FunctionVerdict:
    """Run `fn` on every case of `ex` (or on `cases`); `name` is the exercise's name, shown for `lnlib.hint`."""
    if fn is None or fn is Ellipsis:
        return FunctionVerdict(False, message("code.placeholder", signature=ex.signature), "placeholder")
    if not callable(fn):
        return FunctionVerdict(
            False, message("code.not_callable", signature=ex.signature, type=_type_name(fn)), "error"
        )
    cases = ex.cases() if cases is None else list(cases)
    outcomes: list[_Outcome] = []
    failure = None  # (index, kind, why)
    for i, case in enumerate(cases, start=1):
        outcome = _call(fn, _copy_args(case.args))
        outcomes.append(outcome)
        if outcome.timed_out:
            failure = failure or (i, "timeout", "")
            break  # no more waiting
        if failure is not None:
            continue  # run the rest only to recognise the mistake
        if outcome.error is not None:
            failure = (i, "error", _error_text(fn, outcome.error))
        elif outcome.value is None:
            if i == 1:
                return FunctionVerdict(False, message("code.returns_none_first", signature=ex.signature), "placeholder")
            failure = (i, "none", message("code.returns_none"))
        else:
            want = _quiet_call(ex.reference, _copy_args(case.args))
            why = _compare(outcome.value, want, case, ex)
            if why:
                failure = (i, "wrong", why)
    if failure is None:
        labels = message("code.input_separator").join(str(c.label) for c in cases)
        return FunctionVerdict(True, message("code.all_passed", total=len(cases), labels=labels))
    i, kind, why = failure
    case = cases[i - 1]
    mistake = _named_mistake(ex, cases, outcomes) if kind != "timeout" else ""
    head = message("code.failed", i=i, total=len(cases), label=case.label)
    if kind == "timeout":
        body = message("code.timeout", seconds=show_number(TIME_LIMIT))
    elif kind == "error":
        body = message("code.error", why=why)
    else:
        body = why
    lines = [head + body]
    if mistake:
        lines.append(message("code.likely", mistake=mistake))
    lines.append(message("code.inputs", inputs=_inputs(ex, case)))
    if kind in ("wrong", "none"):
        want = _quiet_call(ex.reference, _copy_args(case.args))
        label, want_part, got_part = _shown_part(outcomes[i - 1].value, want, case, ex)
        lines.append(message("code.expected", part=label, value=_fmt(want_part)))
        lines.append(message("code.yours", part=label, value=_fmt(got_part)))
    first = "\n".join(lines)
    more = "\n  " + message("code.hint", hint=ex.nudge) if ex.nudge else ""
    more += "\n  " + message("code.full_code", name=name)
    label = {"error": "error", "timeout": "timeout"}.get(kind, str(case.label))
    return FunctionVerdict(
        False, first + more, label, first + "\n  " + message("code.run_again", name=name), str(mistake)
    )
