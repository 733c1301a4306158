"""The course's JupyterLab extension (source in labextension/, build in share/jupyter/labextensions/):

- `python -m tools.labextension` checks that the build is stamped with the SHA-256 of today's source
  (labextension/package.json and src/), so a change of the source without a rebuild fails (tests/test_labextension.py);
- `--stamp` writes that stamp (`make labextension`, after the build);
- `--install` puts the build where this Python's JupyterLab looks, `sys.prefix/share/jupyter/labextensions/`: a
  link to it where the system allows one, else a copy (the user's Jupyter data folder when sys.prefix is not
  writable). An editable install (`pip install -e .`, `make lab`) copies
  no data files, so `make lab` and the README's route without make run it; a plain `pip install .` needs nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
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


def install(prefix: Path | None = None) -> Path:
    """Link (or copy) the build into `prefix`/share/jupyter/labextensions/ (default: this Python's sys.prefix; the
    user's Jupyter data folder when sys.prefix is not writable, as for `pip install --user` on a Hub)."""
    folder = Path(prefix or sys.prefix) / "share" / "jupyter" / "labextensions"
    if prefix is None and not _writable(folder):
        from jupyter_core.paths import jupyter_data_dir

        folder = Path(jupyter_data_dir()) / "labextensions"
    target = folder / BUILT.name
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)
    try:
        os.symlink(BUILT, target, target_is_directory=True)
    except OSError:  # Windows without the right to make links
        shutil.copytree(BUILT, target)
    return target


def _writable(folder: Path) -> bool:
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    return os.access(existing, os.W_OK)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--stamp", action="store_true", help="stamp the build with the current source's hash")
    action.add_argument("--install", action="store_true", help="put the build where this Python's JupyterLab looks")
    args = parser.parse_args(argv)
    if args.stamp:
        STAMP.write_text(source_hash() + "\n", encoding="utf-8")
        return 0
    if args.install:
        print(f"JupyterLab extension {BUILT.name}: {install()}")
        return 0
    stamped = STAMP.read_text(encoding="utf-8").strip() if STAMP.exists() else "(no stamp)"
    if stamped != source_hash():
        print(f"{BUILT.relative_to(ROOT)} was not built from today's labextension/: run make labextension")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
