"""Hand assignments out and take them back through nbgrader's exchange, the folder a JupyterHub's students share.

    python -m tools.exchange release --exchange /srv/nbgrader/exchange [--course lnlib] [--assignments DIR]
    python -m tools.exchange collect --exchange /srv/nbgrader/exchange [--course lnlib] [--out build/submissions]

`release` puts every student's release notebook (`make assignments`) into nbgrader's exchange layout, with its
permissions: `COURSE/outbound/<assignment>/` readable by all, `COURSE/inbound/` writable but not listable by students.
nbgrader 0.9's exchange has one outbound folder per assignment for the whole course, so each student's own numbers
go out as an assignment of their own, `hw03-<student id>`; the student id must be the Hub user name. Students fetch
and submit with nbgrader's Assignment List (or `nbgrader fetch_assignment` / `nbgrader submit`), which write
`inbound/<user>+<assignment>+<timestamp>+<random>/`. A student sees the other assignments' names and could fetch
their numbers, never an answer (as with a shared repository).

`collect` copies each roster student's latest submission of each of their own assignments to
`OUT/<student>/<assignment>/<file>`, the layout `make grade` reads. It trusts nothing in the inbound folder (every
student may write there): a submission counts only when its folder is owned by the Unix user it names (so nobody can
submit for a classmate), only the release's file names, only regular files (no symlink is followed) of at most
`submission.MAX_FILE_BYTES`; everything passed over is listed with the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import assignments
from tools import course, submission
from tools.assignments import DEFAULT_OUT as ASSIGNMENTS_OUT

DEFAULT_COURSE = "lnlib"
DEFAULT_OUT = course.BUILD / "submissions"
OUTBOUND_MODE = 0o755
INBOUND_MODE = 0o2733  # students may create folders in it, not list it; set-group-id as nbgrader makes it


def assignment_id(number: str, student: str) -> str:
    """The exchange's name of one student's copy of assignment `number`: hw03-2025001."""
    return f"hw{number}-{assignments.check_student_id(student)}"


def _manifest(built: Path) -> dict:
    return json.loads((built / "autograder" / "manifest.json").read_text(encoding="utf-8"))


def release(built: Path, exchange: Path, course_id: str) -> int:
    """Every student's release notebooks into the exchange; returns how many assignments went out."""
    manifest = _manifest(built)
    root = exchange / course_id
    for folder, mode in ((root, OUTBOUND_MODE), (root / "outbound", OUTBOUND_MODE), (root / "inbound", INBOUND_MODE)):
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, mode)
    count = 0
    for entry in manifest["assignments"]:
        for student in manifest["students"]:
            target = root / "outbound" / assignment_id(entry["number"], student)
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir()
            shutil.copyfile(built / "release" / student / entry["filename"], target / entry["filename"])
            os.chmod(target / entry["filename"], 0o644)
            os.chmod(target, OUTBOUND_MODE)
            count += 1
    return count


def _owner_name(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


@dataclass
class Collected:
    copied: list[Path] = field(default_factory=list)
    passed_over: list[str] = field(default_factory=list)  # "<inbound folder>: why"


def _copy_submission(folder: Path, name: str, dest: Path, owner: Callable[[int], str]) -> str:
    """Copy `folder/name` to `dest` when the folder is a real folder of its named user and the file a regular file of
    an allowed size (opened without following any symlink); '' when done, else why not."""
    user = folder.name.split("+")[0]
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return "not a folder"
    try:
        if owner(os.fstat(dfd).st_uid) != user:
            return f"names {user} but belongs to {owner(os.fstat(dfd).st_uid)}"
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dfd)
        except OSError as err:
            return f"{name}: {err.strerror or err}"
    finally:
        os.close(dfd)
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            return f"{name}: not a regular file"
        if info.st_size > submission.MAX_FILE_BYTES:
            return f"{name}: larger than {submission.MAX_FILE_BYTES} bytes"
        data = f.read(submission.MAX_FILE_BYTES + 1)[: submission.MAX_FILE_BYTES]
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)
    return ""


def collect(
    exchange: Path, course_id: str, built: Path, out: Path, owner: Callable[[int], str] = _owner_name
) -> Collected:
    """The latest submission of every roster student's own assignments, copied to OUT/<student>/<assignment>/."""
    manifest = _manifest(built)
    files = {entry["number"]: entry["filename"] for entry in manifest["assignments"]}
    wanted = {assignment_id(n, s): (s, f) for n, f in files.items() for s in manifest["students"]}
    inbound = exchange / course_id / "inbound"
    done = Collected()
    tries: dict[tuple[str, str], list[tuple[str, Path]]] = {}
    for entry in sorted(inbound.iterdir()) if inbound.is_dir() else []:
        parts = entry.name.split("+")
        if len(parts) in (3, 4) and wanted.get(parts[1], ("",))[0] == parts[0]:
            tries.setdefault((parts[0], parts[1]), []).append((parts[2], entry))
        else:
            done.passed_over.append(f"{entry.name}: not a submission of a roster student's own assignment")
    shutil.rmtree(out, ignore_errors=True)
    for (student, aid), found in sorted(tries.items()):
        for timestamp, folder in sorted(found, reverse=True):  # the latest one that is really theirs counts
            why = _copy_submission(folder, wanted[aid][1], out / student / aid / wanted[aid][1], owner)
            if not why:
                done.copied.append(out / student / aid / wanted[aid][1])
                done.passed_over += [f"{f.name}: a later submission counts" for t, f in found if t < timestamp]
                break
            done.passed_over.append(f"{folder.name}: {why}")
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["release", "collect"])
    parser.add_argument("--exchange", type=Path, required=True, help="nbgrader's exchange root (its Exchange.root)")
    parser.add_argument("--course", default=DEFAULT_COURSE, help=f"the course id (default {DEFAULT_COURSE})")
    parser.add_argument("--assignments", type=Path, default=ASSIGNMENTS_OUT, help="the folder make assignments built")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="collect: where the submissions go")
    args = parser.parse_args(argv)
    if not (args.assignments / "autograder" / "manifest.json").is_file():
        parser.error(f"{args.assignments} holds no manifest: run make assignments first")
    if args.action == "release":
        count = release(args.assignments, args.exchange, args.course)
        print(f"released {count} assignment(s) to {args.exchange / args.course / 'outbound'}")
        return 0
    done = collect(args.exchange, args.course, args.assignments, args.out)
    for line in done.passed_over:
        print(f"passed over {line}", file=sys.stderr)
    print(f"collected {len(done.copied)} submission(s) into {args.out}: make grade SUBMISSIONS={args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
