"""Every commit subject after `BASE` fits in `LIMIT` bytes: `python -m tools.commit_subjects` (part of `make lint`).

Bytes, not characters: ×, √, σ and Chinese take two or three bytes each in UTF-8, and git's one-line views cut by
width. The history before `BASE` is what it is (185 of its 348 subjects were longer). Outside a git checkout, or in
one that does not hold `BASE` (a shallow clone, a student's copy), it says so and passes. Standard library only.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE = "4fc17c4adaccefcaf836cf7f03433901d75d423f"  # the last commit before the check existed
LIMIT = 72


def too_long(subjects: list[str], limit: int = LIMIT) -> list[str]:
    """The subjects longer than `limit` bytes of UTF-8, each with its length."""
    return [f"{len(s.encode())} bytes: {s}" for s in subjects if len(s.encode()) > limit]


def subjects_since(base: str = BASE, cwd: Path = ROOT) -> list[str] | None:
    """The subjects of the commits after `base` up to HEAD; None when git or `base` is not there."""
    try:
        known = subprocess.run(["git", "cat-file", "-e", f"{base}^{{commit}}"], cwd=cwd, capture_output=True)
        if known.returncode != 0:
            return None
        log = subprocess.run(
            ["git", "log", "--format=%s", f"{base}..HEAD"], cwd=cwd, capture_output=True, check=True, text=True
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return log.stdout.splitlines()


def main() -> int:
    subjects = subjects_since()
    if subjects is None:
        print(f"commit subjects: not checked (no git history holding {BASE[:12]} here)")
        return 0
    bad = too_long(subjects)
    for line in bad:
        print(f"commit subject over {LIMIT} bytes — {line}")
    print(f"commit subjects: {len(subjects)} after {BASE[:12]}, {len(bad)} over {LIMIT} bytes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
