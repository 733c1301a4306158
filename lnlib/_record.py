"""What a learner has done in this environment: tries per exercise (this kernel) and exercises answered right (kept).

`has_tried(name)` — tried in this kernel, right or wrong, or answered right before — is what opens the exercise's
`%%reveal` cells (lnlib/answers.py).

The tries live in memory and make the hints escalate (`lnlib.check` and `lnlib.check_function` say more on each wrong
try of the same exercise; a right answer starts over). The exercises answered right are kept in one small JSON file
in the user's data folder — `$LNLIB_PROGRESS_DIR` if set (tests set it), else `%APPDATA%\\lnlib` on Windows,
`~/Library/Application Support/lnlib` on macOS and `$XDG_DATA_HOME/lnlib` or `~/.local/share/lnlib` elsewhere —
never in the repository, so it survives a kernel restart. Reading or writing it never fails a check: a read-only or
missing home simply keeps no record.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ENV_VAR = "LNLIB_PROGRESS_DIR"
FILE_NAME = "progress.json"

_tries: dict[str, int] = {}
_tried_here: set[str] = set()  # every exercise tried in this kernel, right or wrong (what opens its reveal)


def tried(name: str) -> int:
    """Count one more wrong try of exercise `name` in this kernel; return how many there have been (1, 2, …)."""
    _tried_here.add(name)
    _tries[name] = _tries.get(name, 0) + 1
    return _tries[name]


def tries(name: str) -> int:
    """How many wrong tries of `name` this kernel has seen since its last right answer."""
    return _tries.get(name, 0)


def forget_tries() -> None:
    """Start every exercise over (the next wrong try is a first try again, no exercise counts as tried)."""
    _tries.clear()
    _tried_here.clear()


def has_tried(name: str) -> bool:
    """Whether `name` was tried in this kernel (right or wrong) or answered right in this environment before."""
    return name in _tried_here or name in answered_right()


def data_dir() -> Path:
    """The folder of the progress file (not created here)."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override)
    if sys.platform == "win32":
        base = os.environ.get("APPDATA") or str(Path.home() / "AppData" / "Roaming")
        return Path(base) / "lnlib"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "lnlib"
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "lnlib"


def answered_right() -> set[str]:
    """The names of the exercises answered right in this environment (empty when nothing is recorded or readable)."""
    try:
        data = json.loads((data_dir() / FILE_NAME).read_text(encoding="utf-8"))
        names = data.get("right", [])
        return {n for n in names if isinstance(n, str)}
    except (OSError, ValueError, AttributeError, TypeError):
        return set()


def record_right(name: str) -> None:
    """Remember that `name` was answered right, and start its tries over. Never raises."""
    _tried_here.add(name)
    _tries.pop(name, None)
    try:
        done = answered_right()
        if name in done:
            return
        folder = data_dir()
        folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"right": sorted(done | {name})}, ensure_ascii=False, indent=1)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".progress-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(tmp, folder / FILE_NAME)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except (OSError, ValueError, TypeError):
        return  # a read-only home, a full disk, an odd path: no record, and the check goes on
