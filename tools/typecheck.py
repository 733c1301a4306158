"""lnlib's type check: `python -m tools.typecheck [--update]` (part of `make lint`).

Runs mypy as pyproject.toml configures it (strict on the modules of the public API) and compares its findings with
tools/mypy_baseline.txt, the findings the check started with: a finding not in the baseline fails, a baseline
finding that is gone is reported, so the baseline only shrinks (`--update` rewrites it after a fix). Findings are
compared without their line numbers, so an edit above one does not count as a new finding.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "tools" / "mypy_baseline.txt"
FINDING = re.compile(r"^(?P<path>[^:]+):\d+: error: (?P<what>.*)$")


def findings(output: str) -> Counter:
    """mypy's errors as 'path: message  [code]', line numbers dropped."""
    return Counter(f"{m['path']}: {m['what']}" for m in map(FINDING.match, output.splitlines()) if m)


def run_mypy() -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--update", action="store_true", help="write today's findings as the baseline")
    args = ap.parse_args(argv)
    code, output = run_mypy()
    now = findings(output)
    if code not in (0, 1) or (code == 1 and not now):
        print(output)
        return 2  # mypy itself failed
    if args.update:
        BASELINE.write_text("".join(f"{f}\n" for f in sorted(now.elements())), encoding="utf-8")
        print(f"typecheck: baseline written, {sum(now.values())} findings")
        return 0
    known = Counter(BASELINE.read_text(encoding="utf-8").splitlines()) if BASELINE.exists() else Counter()
    new, gone = now - known, known - now
    for line in output.splitlines():
        m = FINDING.match(line)
        if m and new[f"{m['path']}: {m['what']}"]:
            print(f"new: {line}")
    for f in sorted(gone.elements()):
        print(f"fixed (drop it from the baseline with --update): {f}")
    print(f"typecheck: {sum(now.values())} findings, {sum(new.values())} new, {sum(gone.values())} fixed")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
