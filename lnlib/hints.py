"""`lnlib.hint(name)`, the worked solution of one exercise on request, and `lnlib.progress()`, the exercises answered
right in this environment, per notebook.

`check` and `check_function` escalate on their own (`check`: the first two wrong tries name the mistake, the third
adds the hint; `check_function`: later tries add a nudge); the full solution is printed here, when the learner asks.
"""

from __future__ import annotations

from . import _record
from .code_exercises import CODE_EXERCISES
from .exercises import EXERCISES, REVEALED, answer_text
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
    """Per notebook number ("03"): (exercises answered right in this environment, exercises in that notebook). An
    exercise with a reveal (`exercises.REVEALED`) counts only if its first answer was right."""
    return {nb: (len(right), len(right) + len(missed) + len(still)) for nb, (right, missed, still) in _by_notebook()}


def _by_notebook() -> list[tuple[str, tuple[list[str], list[str], list[str]]]]:
    """Per notebook number: the exercises answered right, the revealed ones first answered wrong, the open ones."""
    right, missed = _record.answered_right(), _record.first_wrong()
    out: dict[str, tuple[list[str], list[str], list[str]]] = {}
    for name in sorted({*EXERCISES, *CODE_EXERCISES}):
        done, wrong_first, still = out.setdefault(name[:2], ([], [], []))
        if name in REVEALED and name in missed:
            wrong_first.append(name)
        elif name in right:
            done.append(name)
        else:
            still.append(name)
    return list(out.items())


def progress() -> None:
    """Print, per notebook, how many of its exercises were answered right in this environment (kept across kernel
    restarts in the user's data folder; see `lnlib._record`) and which are still open. A question whose reveal shows
    its answer (`exercises.REVEALED`) counts only its first answer: first answered wrong, it is listed apart (its
    answer has been seen), not as answered right and not as open."""
    rows = _by_notebook()
    done = sum(len(r) for _, (r, _m, _s) in rows)
    total = sum(len(r) + len(m) + len(s) for _, (r, m, s) in rows)
    separator = message("input.list_separator")
    lines = [message("feedback.progress_title")]
    any_missed = False
    for nb, (right, missed, still) in rows:
        r, t = len(right), len(right) + len(missed) + len(still)
        bar = "■" * r + "▨" * len(missed) + "□" * len(still)
        line = message("feedback.progress_line", notebook=int(nb), right=r, total=t, bar=bar)
        if not still and not missed:
            line += message("feedback.progress_all_right")
        elif r or missed:  # begun: say what is left; a notebook not begun is all open
            if missed:
                any_missed = True
                line += message("feedback.progress_missed", names=separator.join(n[3:] for n in missed))
            if still:
                line += message("feedback.progress_open", names=separator.join(n[3:] for n in still))
        lines.append(line)
    lines.append(message("feedback.progress_total", done=done, total=total))
    if any_missed:
        lines.append(message("feedback.progress_first_answer"))
    print("\n".join(lines))
