"""`lnlib.hint(name)`, the worked solution of one exercise on request, and `lnlib.progress()`, the exercises answered
right in this environment, per notebook.

`check` and `check_function` escalate on their own (`check`: the first two wrong tries name the mistake, the third
adds the hint; `check_function`: later tries add a nudge); the full solution is printed here, when the learner asks.
"""

from __future__ import annotations

from . import _record
from .code_exercises import CODE_EXERCISES
from .exercises import EXERCISES, answer_text
from .i18n import message

__all__ = ["hint", "progress", "progress_counts"]


def _known(name) -> None:
    if not isinstance(name, str):
        raise TypeError(f"name: expected an exercise name such as '07.layer_norm', got {type(name).__name__}")
    if name not in EXERCISES and name not in CODE_EXERCISES:
        known = ", ".join(sorted({*EXERCISES, *CODE_EXERCISES}))
        raise ValueError(f"name: unknown exercise {name!r}; known exercises: {known}")


def solution_text(name: str) -> str:
    """The worked solution `hint` prints: the full code of a code exercise, the worked steps and answer otherwise."""
    _known(name)
    if name in CODE_EXERCISES:
        ex = CODE_EXERCISES[name]
        return message("feedback.solution_code", name=name, signature=ex.signature, hint=ex.hint)
    return message("feedback.solution", name=name, hint=EXERCISES[name].hint, answer=answer_text(name))


def hint(name: str) -> None:
    """Print the worked solution of exercise `name` (a `check` or a `check_function` exercise)."""
    print(solution_text(name))


def progress_counts() -> dict[str, tuple[int, int]]:
    """Per notebook number ("03"): (exercises answered right in this environment, exercises in that notebook)."""
    right = _record.answered_right()
    counts: dict[str, list[int]] = {}
    for name in sorted({*EXERCISES, *CODE_EXERCISES}):
        entry = counts.setdefault(name[:2], [0, 0])
        entry[0] += name in right
        entry[1] += 1
    return {nb: (r, t) for nb, (r, t) in counts.items()}


def progress() -> None:
    """Print, per notebook, how many of its exercises were answered right in this environment (kept across kernel
    restarts in the user's data folder; see `lnlib._record`)."""
    counts = progress_counts()
    done = sum(r for r, _ in counts.values())
    total = sum(t for _, t in counts.values())
    lines = [message("feedback.progress_title")]
    for nb, (r, t) in counts.items():
        bar = "■" * r + "□" * (t - r)
        line = message("feedback.progress_line", notebook=nb, right=r, total=t, bar=bar)
        lines.append(line + (message("feedback.progress_all_right") if r == t else ""))
    lines.append(message("feedback.progress_total", done=done, total=total))
    print("\n".join(lines))
