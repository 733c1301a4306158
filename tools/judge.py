"""Verdicts on one submission's answers, in Chinese, for the feedback: a typed answer, and a function from what the
sandbox reported about it.

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
from lnlib.i18n import message
from lnlib.text_input import parse_numbers
from tools.sandbox import Limits

ECHO = 120  # at most this many characters of a submission's own text are echoed in feedback


@dataclass
class FunctionRun:
    """What the sandbox said about one function question (or why it was not run)."""

    early: str = ""  # a verdict reached without running (unanswered, syntax error), Chinese
    cell: dict = field(default_factory=dict)  # the cell's own record: ok, syntax, error, timeout, missing, forbidden
    cases: list[dict] = field(default_factory=list)
    timed_out: bool = False
    flooded: bool = False  # it wrote more than the output limit and was stopped


def gone(grade_id: str) -> str:
    return f"答案单元格 `{grade_id}` 不见了（被删除或改成了文字单元格），按没有作答处理。"


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
        return False, "尚未作答。"
    exercise = q.exercise(v)
    if isinstance(exercise.expected, str):
        value = read_choice(text)
    else:
        try:
            value = parse_numbers(text)
        except ValueError as err:
            return False, f"没读懂这个答案：{cut(err)}（答案单元格里直接写数，比如 5 或 -3, -1, 1, 3）"
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
            raise type("运行中断", (Exception,), {})(
                "没有返回结果：程序退出或崩溃了（比如调用了 os._exit，或者内存用完了）"
            )
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
        where = f"（你的函数第 {line} 行）" if isinstance(line, int) and 0 < line < 100_000 else ""
        text = cut(record.get("evalue", ""), 200) + where
        if name == "SystemExit":
            raise SystemExit(text)
        raise type(name, (Exception,), {})(text)


def _shape_ok(shape) -> bool:
    return isinstance(shape, list) and len(shape) <= 4 and all(isinstance(n, int) and 0 <= n <= 1000 for n in shape)


def _identifier(name: str) -> str:
    name = name[:40]
    return name if name.isidentifier() else "Exception"


_CELL_WORDS = {
    "timeout": "运行这个单元格超过了时间上限，被停下了（是不是有死循环？），函数没能测试。",
    "missing": "单元格运行完了，但没有定义函数 `{name}`。",
}
ALONE = "批改时这个单元格单独运行（在它之前只有锁定的「你的数」），只能用 Python 和 numpy。"
FORBIDDEN = "函数调用了 lnlib：这道题要自己写 LayerNorm，lnlib 的函数就是答案本身，批改时不能用，这一题记 0 分。"


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
            cap = Limits().output_bytes >> 20
            return False, f"输出太多了（超过 {cap} MB 的上限），单元格被停下了，函数没能测试完。"
        if run.timed_out:
            return False, "运行这个单元格超过了时间上限，被停下了（是不是有死循环？），函数没能测试。"
        return False, "运行这个单元格时程序退出或崩溃了（比如调用了 exit，或者内存用完了），函数没能测试。"
    if any(_uses_lnlib(r) for r in [cell, *run.cases]):
        return False, FORBIDDEN
    if kind == "syntax":
        err = SyntaxError(str(cell.get("msg", "")))
        line = cell.get("line")
        where = f"单元格第 {line} 行" if isinstance(line, int) and line > 0 else "代码里"
        return False, f"代码还不能运行：{where}有语法错误：{syntax_text(err)}。"
    if kind == "error":
        line = cell.get("line")
        where = f"（单元格第 {line} 行）" if isinstance(line, int) and 0 < line < 100_000 else ""
        ename = _identifier(str(cell.get("ename", "")))
        text = f"运行这个单元格时出错了{where}：{ename}: {cut(cell.get('evalue', ''))}"
        if ename in ("ModuleNotFoundError", "ImportError", "NameError"):
            text += "\n  " + ALONE + "用到的 import、变量和辅助函数都要写在同一个单元格里。"
        return False, text
    if kind in _CELL_WORDS:
        return False, _CELL_WORDS[kind].format(name=q.name)
    if kind != "ok":
        return False, "批改时没有读到这个函数的结果。"
    verdict = judge_function(q.code_exercise, Replay(run.cases, run.timed_out), cases=q.cases(v))
    return verdict.ok, _strip(verdict.first or verdict.message)
