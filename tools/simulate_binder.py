"""Simulate the image Binder (repo2docker) builds from binder/, in a fresh venv, and check it is conflict-free.

    python -m tools.simulate_binder                     # build build/binder-sim/venv and check it
    python -m tools.simulate_binder --base-from-lock environment.py-3.11-linux-64.lock   # refresh the base list

repo2docker builds, for `binder/runtime.txt` = python-3.11, in this order:
1. its base environment, frozen in repo2docker's conda lock
   `repo2docker/buildpacks/conda/environment.py-3.11-linux-64.lock`
   (JupyterLab, Notebook 7, JupyterHub's single-user server, ...); tools/repo2docker-base-py3.11.txt lists its Python
   packages with their PyPI names and exact versions (conda puts them in place without resolving: here `--no-deps`);
2. `pip install -r binder/requirements.txt` into that same environment (server and kernel share it for 3.11);
3. the repository is copied and `binder/postBuild` runs (it installs lnlib and compiles its numba loops).
Then this script checks `pip check` (no broken or conflicting requirement) and `jupyter labextension list` (no
extension flagged incompatible or disabled), and prints the environment's size. Needs network access to PyPI.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "tools" / "repo2docker-base-py3.11.txt"
# conda-forge names whose PyPI name differs; "" = not a Python distribution on PyPI
CONDA_TO_PYPI = {
    "brotli-python": "brotli",
    "python-fastjsonschema": "fastjsonschema",
    "jupyterhub-base": "jupyterhub",
    "nbconvert-core": "nbconvert",
    "pip": "",
    "python_abi": "",
}
LOCK_ENTRY = re.compile(r"/(?:noarch|linux-64)/([^/]+)-([^-/]+)-([^-/]+)\.(?:conda|tar\.bz2)#")


def base_from_lock(lock: Path) -> list[str]:
    """`name==version` for every Python package of a repo2docker conda lock (build strings starting with "py")."""
    pins = []
    for name, version, build in LOCK_ENTRY.findall(lock.read_text()):
        if not build.startswith("py") or name == "python":
            continue
        pypi = CONDA_TO_PYPI.get(name, name)
        if pypi:
            pins.append(f"{pypi}=={version}")
    return sorted(pins, key=str.lower)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    print("$", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run(cmd, text=True, **kw)


def simulate(work: Path, python: str, requirements: Path = ROOT / "binder" / "requirements.txt") -> int:
    if work.exists():
        shutil.rmtree(work)
    venv = work / "venv"
    run([python, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    pip = [py, "-m", "pip", "install", "--quiet"]  # pip's cache: CI runs this after .venv is built from the same wheels
    run([*pip, "--no-deps", "-r", str(BASE)], check=True)  # 1. the base environment, as conda lays it out
    run([*pip, "-r", str(requirements)], check=True)  # 2. requirements.txt
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(work), "MPLCONFIGDIR": str(work / "mpl")}
    post = run(["bash", str(ROOT / "binder" / "postBuild")], cwd=ROOT, env=env)  # 3. postBuild
    failures = int(post.returncode != 0)
    if failures:
        print(f"binder/postBuild failed (exit {post.returncode})")
    check = run([py, "-m", "pip", "check"], capture_output=True, env=env)
    print(check.stdout + check.stderr)
    failures += check.returncode != 0
    ext = run([str(venv / "bin" / "jupyter"), "labextension", "list"], capture_output=True, env=env)
    listing = ext.stdout + ext.stderr
    print(listing)
    bad = [line for line in listing.splitlines() if re.search(r"incompatible|disabled|\bX\b", line)]
    if ext.returncode != 0 or bad:
        print("problem extensions:", *bad, sep="\n  ")
        failures += 1
    size = run(["du", "-sh", str(venv)], capture_output=True).stdout.split()[0]
    print(
        f"environment size: {size}; "
        + (
            "OK: pip check clean, every JupyterLab extension compatible"
            if not failures
            else f"{failures} check(s) FAILED"
        )
    )
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "binder-sim")
    parser.add_argument("--python", default="python3.11", help="Binder's Python (binder/runtime.txt)")
    parser.add_argument(
        "--requirements",
        type=Path,
        default=ROOT / "binder" / "requirements.txt",
        help="another requirements file in place of binder/requirements.txt (e.g. an older one)",
    )
    parser.add_argument(
        "--base-from-lock",
        type=Path,
        metavar="LOCK",
        help="rewrite tools/repo2docker-base-py3.11.txt from repo2docker's conda lock and stop",
    )
    args = parser.parse_args(argv)
    if args.base_from_lock:
        header = BASE.read_text().split("\n\n")[0] if BASE.exists() else "# repo2docker base environment"
        BASE.write_text(header.rstrip("\n") + "\n\n" + "\n".join(base_from_lock(args.base_from_lock)) + "\n")
        print(f"wrote {BASE.relative_to(ROOT)}")
        return 0
    return simulate(args.work, args.python, args.requirements)


if __name__ == "__main__":
    sys.exit(main())
