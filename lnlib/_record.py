"""What a learner has done in this environment: tries per exercise (this kernel) and exercises answered right (kept).

`has_tried(name)` — tried in this kernel, right or wrong, or answered right before — is what opens the exercise's
`%%reveal` cells (lnlib/answers.py).

The tries live in memory and make the hints escalate (`lnlib.check` and `lnlib.check_function` say more on each wrong
try of the same exercise; a right answer starts over). The exercises answered right — and the predict questions whose
first answer was wrong (`record_first_wrong`: their reveal showed the answer, so a later right answer is not counted
as answered right by `lnlib.progress()`) — are kept in one small JSON file
in the user's data folder — `$LNLIB_PROGRESS_DIR` if set (tests set it), else `%APPDATA%\\lnlib` on Windows,
`~/Library/Application Support/lnlib` on macOS and `$XDG_DATA_HOME/lnlib` or `~/.local/share/lnlib` elsewhere —
never in the repository, so it survives a kernel restart. Reading or writing it never fails a check: a read-only or
missing home simply keeps no record. Kernels writing at once take turns (a lock file next to it); a file that is not
a record is set aside unchanged (progress.unreadable-N.json), never rewritten.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path

from .i18n import message

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None
try:
    import msvcrt
except ImportError:
    msvcrt = None

ENV_VAR = "LNLIB_PROGRESS_DIR"
FILE_NAME = "progress.json"
LOCK_NAME = ".progress.lock"

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


RIGHT, FIRST_WRONG = "right", "first_wrong"  # the record's lists


def answered_right() -> set[str]:
    """The names of the exercises answered right in this environment (empty when nothing is recorded or readable)."""
    return _kept(RIGHT)


def first_wrong() -> set[str]:
    """The predict questions whose first answer in this environment was wrong (`record_first_wrong`)."""
    return _kept(FIRST_WRONG)


def _kept(key: str) -> set[str]:
    try:
        return (_read_record(data_dir() / FILE_NAME) or {}).get(key, set())
    except OSError:
        return set()


def _read_record(path: Path) -> dict[str, set[str]] | None:
    """The lists kept in `path` (a missing file keeps none); None when the file is not a record this module wrote
    (not JSON, not UTF-8, or not {"right": [names]} with an optional "first_wrong": [names]). Other OSErrors (a folder
    that cannot be read) are raised."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {RIGHT: set(), FIRST_WRONG: set()}
    except ValueError:  # not UTF-8
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    record = {}
    for key, default in ((RIGHT, None), (FIRST_WRONG, [])):
        names = data.get(key, default)
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return None
        record[key] = set(names)
    return record


@contextlib.contextmanager
def _locked(folder: Path):
    """Hold an exclusive lock on `folder`'s lock file (other kernels recording at the same time wait for it)."""
    with open(folder / LOCK_NAME, "a+b") as handle:
        if fcntl is not None:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        elif msvcrt is not None:  # pragma: no cover - Windows
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
        yield  # closing the file releases the lock


def _set_aside(path: Path) -> Path:
    """Move an unreadable record out of the way, unchanged, under the first free name progress.unreadable-N.json."""
    n = 1
    while (aside := path.with_name(f"{path.stem}.unreadable-{n}{path.suffix}")).exists():
        n += 1
    os.replace(path, aside)
    return aside


def record_right(name: str) -> str:
    """Remember that `name` was answered right, and start its tries over. Never raises.

    Read, change and write happen under a lock and the file is replaced atomically, so kernels recording at the same
    time keep every answer. A file that is not a record (damaged, edited by hand) is set aside unchanged and the
    record starts over; the returned text says so ("" otherwise), for the caller to print."""
    _tried_here.add(name)
    _tries.pop(name, None)
    return _add(RIGHT, name)


def record_first_wrong(name: str) -> str:
    """Remember that the predict question `name` was first answered wrong, unless it was answered before (right or
    wrong) in this environment. Never raises; returns what `record_right` returns."""
    return _add(FIRST_WRONG, name, unless=RIGHT)


def _add(key: str, name: str, unless: str = "") -> str:
    try:
        folder = data_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / FILE_NAME
        with _locked(folder):
            record = _read_record(path)
            note = ""
            if record is None:
                aside = _set_aside(path)
                note = message("feedback.progress_set_aside", file=path.name, aside=aside.name, folder=folder)
                record = {RIGHT: set(), FIRST_WRONG: set()}
            if name in record[key] or (unless and name in record[unless]):
                return note
            record[key].add(name)
            data = {RIGHT: sorted(record[RIGHT])}
            if record[FIRST_WRONG]:
                data[FIRST_WRONG] = sorted(record[FIRST_WRONG])
            text = json.dumps(data, ensure_ascii=False, indent=1)
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".progress-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    out.write(text)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            return note
    except (OSError, ValueError, TypeError):
        return ""  # a read-only home, a full disk, an odd path: no record, and the check goes on
