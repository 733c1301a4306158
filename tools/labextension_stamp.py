"""The stamp of the built JupyterLab extension: the SHA-256 of its source (labextension/package.json and src/),
written into the build by `make labextension` and checked by tests/test_labextension.py, so a change of the
source without a rebuild fails the suite."""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "labextension"
BUILT = ROOT / "share" / "jupyter" / "labextensions" / "lnlib-alt-text"
STAMP = BUILT / "source.sha256"


def source_files() -> list[Path]:
    return [SOURCE / "package.json", *sorted((SOURCE / "src").glob("*.js"))]


def source_hash() -> str:
    digest = hashlib.sha256()
    for path in source_files():
        digest.update(path.relative_to(SOURCE).as_posix().encode() + b"\0")
        digest.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="stamp the build with the current source's hash")
    args = parser.parse_args(argv)
    if args.write:
        STAMP.write_text(source_hash() + "\n", encoding="utf-8")
        return 0
    stamped = STAMP.read_text(encoding="utf-8").strip() if STAMP.exists() else "(no stamp)"
    if stamped != source_hash():
        print(f"{BUILT.relative_to(ROOT)} was not built from today's labextension/: run make labextension")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
