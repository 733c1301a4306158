"""Run one student's function cell: `python -S -s -P grade_function.py`, a JSON request on stdin.

Started by `tools.sandbox` inside the sandbox (its PYTHONPATH holds numpy and nothing else), so it uses only the
standard library and numpy. It sets its resource limits, reads the request (the locked data cell, the student's
cell, the function's name, the inputs to call it on, the time limits), sends the student's own output to /dev/null,
runs the data cell and then the student's cell, calls the function on every input with a time limit and writes one
JSON line per step to its stdout. `lnlib` is a stand-in whose every function refuses to run (with the words the
request brings, in the grader's language): the question is to write LayerNorm, and `lnlib.layer_norm` is that
answer. The grader trusts none of this output (the student's code runs in this process and can write anything),
reads it defensively, and judges it with the expected values computed outside.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import types


class _TimeUp(BaseException):
    """The time of the current step is up (a BaseException, so `except Exception` in the student's code lets it go)."""


class LnlibForbidden(Exception):
    pass


class _NoLnlib(types.ModuleType):
    refusal = "lnlib"  # what a call says: the request's "forbidden" words

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        refusal = self.refusal

        def refuse(*args, **kwargs):
            raise LnlibForbidden(refusal)

        return refuse


def _limits(values: dict) -> None:
    try:
        import resource
    except ImportError:  # Windows: no resource limits (the unsafe mode only)
        return
    for name, value in values.items():
        which = getattr(resource, name, None)
        if which is not None:
            try:
                resource.setrlimit(which, (int(value), int(value)))
            except (ValueError, OSError):
                pass


def _alarm(seconds: float) -> None:
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, seconds, 0.5 if seconds else 0)  # again every 0.5 s if caught


def _on_alarm(signum, frame):
    raise _TimeUp


def _line(err: BaseException, filename: str) -> int | None:
    tb, found = err.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            found = tb.tb_lineno
        tb = tb.tb_next
    return found


def _error(err: BaseException) -> dict:
    if isinstance(err, LnlibForbidden):
        return {"type": "forbidden"}
    try:
        text = str(err)
    except Exception:  # noqa: BLE001 - an exception whose __str__ raises
        text = ""
    return {"type": "error", "ename": type(err).__name__[:60], "evalue": text[:300]}


def _result(value, np) -> dict:
    if value is None:
        return {"type": "none"}
    if isinstance(value, bool | np.bool_):
        return {"type": "bool", "value": bool(value)}
    if isinstance(value, str):
        return {"type": "str", "value": value[:200]}
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - ragged lists and foreign objects
        return {"type": "ragged"} if isinstance(value, list | tuple) else {"type": "other", "name": _name(value)}
    if arr.dtype.kind == "b":
        return {"type": "bools", "shape": list(arr.shape)}
    if arr.dtype.kind == "O" and isinstance(value, list | tuple):
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            return {"type": "ragged"}
    if arr.dtype.kind not in "iuf" or arr.size > 100_000:
        return {"type": "other", "name": _name(value)}
    return {"type": "array", "value": arr.astype(np.float64).tolist()}


def _name(value) -> str:
    try:
        return type(value).__name__[:40]
    except Exception:  # noqa: BLE001
        return "object"


def main() -> int:
    request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    _limits(request.get("limits", {}))
    out = os.dup(1)

    def send(record: dict) -> None:
        data = (json.dumps(record) + "\n").encode("utf-8")
        while data:
            data = data[os.write(out, data) :]

    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    stand_in = _NoLnlib("lnlib")
    stand_in.refusal = str(request.get("forbidden", stand_in.refusal))[:300]
    sys.modules["lnlib"] = stand_in
    import numpy as np

    if hasattr(signal, "SIGALRM"):  # not on Windows (the unsafe mode only): the grader's deadline stops a loop
        signal.signal(signal.SIGALRM, _on_alarm)
    ns: dict = {"__name__": "__main__", "__builtins__": __builtins__}
    exec(compile(request["setup"], "<data>", "exec"), ns)  # noqa: S102 - the locked data cell, built by the grader
    filename, offset = "<cell>", int(request.get("line_offset", 0))
    try:
        code = compile(request["source"], filename, "exec")
    except SyntaxError as err:
        send({"step": "cell", "type": "syntax", "msg": str(err.msg)[:200], "line": (err.lineno or 0) + offset})
        return 0
    try:
        _alarm(float(request["cell_timeout"]))
        exec(code, ns)  # noqa: S102 - the student's cell, sealed off by the sandbox
        _alarm(0)
    except _TimeUp:
        send({"step": "cell", "type": "timeout"})
        return 0
    except BaseException as err:  # noqa: BLE001 - reported, the grader names it
        _alarm(0)
        line = _line(err, filename)
        send({"step": "cell", **_error(err), "line": line + offset if line else None})
        return 0
    fn = ns.get(request["name"])
    if not callable(fn):
        send({"step": "cell", "type": "missing"})
        return 0
    send({"step": "cell", "type": "ok"})
    first = getattr(getattr(fn, "__code__", None), "co_firstlineno", None)
    for args in request["cases"]:
        values = tuple(np.array(a["a"], dtype=np.float64) if "a" in a else float(a["f"]) for a in args)
        try:
            _alarm(float(request["time_limit"]))
            with np.errstate(all="ignore"):
                value = fn(*values)
            _alarm(0)
            record = _result(value, np)
        except _TimeUp:
            record = {"type": "timeout"}
        except BaseException as err:  # noqa: BLE001 - reported, the grader names it
            _alarm(0)
            record = _error(err)
            line = _line(err, filename)
            if record["type"] == "error" and line and first:
                record["line"] = line - first + 1
        send({"step": "case", **record})
        if record["type"] == "timeout":
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
