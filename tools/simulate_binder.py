"""Simulate the image Binder (repo2docker) builds from binder/, in a fresh venv, and check it is conflict-free.

    python -m tools.simulate_binder                     # build build/binder-sim/venv and check it
    python -m tools.simulate_binder --base-from-lock environment.py-3.11-linux-64.lock   # refresh the base list

repo2docker builds, for `binder/runtime.txt` = python-3.11, in this order:
1. its base environment, frozen in repo2docker's conda lock
   `repo2docker/buildpacks/conda/environment.py-3.11-linux-64.lock`
   (JupyterLab, Notebook 7, JupyterHub's single-user server, ...); tools/repo2docker-base-py3.11.txt lists its Python
   packages with their PyPI names and exact versions (conda puts them in place without resolving: here `--no-deps`);
2. `pip install -r binder/requirements.txt` into that same environment (server and kernel share it for 3.11);
3. the repository is copied into the user's home and `binder/postBuild` runs there (it installs lnlib and compiles
   its numba loops); here the copy is build/binder-sim/home, made of the files git tracks or would track.
Then this script checks `pip check` (no broken or conflicting requirement), `jupyter labextension list` (no
extension flagged incompatible or disabled), that postBuild left no build/ or *.egg-info in the home, and — from
home/notebooks, where Binder's kernels start — that the kernel's lnlib is the installed one and finds every
compiled loop in numba's cache (cache hits, no miss: nothing compiles in a session). It prints the environment's
size and how long the kernel took to load the loops. Needs network access to PyPI.
"""

from __future__ import annotations

import argparse
import json
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


# What a kernel started in notebooks/ does first: import lnlib, load every compiled loop (in this process, so that
# numba's statistics show whether each came from the disk cache or was compiled) and report.
KERNEL_CHECK = r"""
import json, os, time
t = time.perf_counter()
import lnlib
from lnlib import _fast, training
_fast._COMPILE_IN_CHILD = False
ready = _fast.warm_up(wait=True)
dispatchers = [_fast._ready["layer_norm"], *_fast._ready["training"].values()] if ready else []
print(json.dumps({
    "lnlib": lnlib.__file__,
    "ready": ready,
    "hits": sum(sum(d.stats.cache_hits.values()) for d in dispatchers),
    "misses": sum(sum(d.stats.cache_misses.values()) for d in dispatchers),
    "cache": sorted({d.stats.cache_path for d in dispatchers}),
    "seconds": round(time.perf_counter() - t, 2),
}))
"""


def copy_repository(home: Path) -> None:
    """The repository as repo2docker copies it: the files git tracks or would track (not build/, .venv, caches)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for name in filter(None, listed.split("\0")):
        src = ROOT / name
        if src.is_file():  # a tracked file deleted in the work tree is not copied
            (home / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, home / name)


def kernel_findings(report: dict, venv: Path, home: Path) -> list[str]:
    """What is wrong with a kernel's first load of lnlib's loops (KERNEL_CHECK's report): [] when nothing."""
    problems = []
    if Path(report["lnlib"]).resolve().is_relative_to(home.resolve()):
        problems.append(f"the kernel imported the repository's lnlib, not the installed one: {report['lnlib']}")
    if not report["ready"]:
        problems.append("lnlib's compiled loops are not ready (numba missing or a loop failed to compile)")
    if report["misses"] or not report["hits"]:
        problems.append(f"the kernel compiled instead of loading the image's cache: {report}")
    if any(not Path(c).resolve().is_relative_to(venv.resolve()) for c in report["cache"]):
        problems.append(f"numba's cache is outside the installed lnlib: {report['cache']}")
    return problems


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
    home = work / "home"
    copy_repository(home)
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home), "MPLCONFIGDIR": str(work / "mpl")}
    post = run(["bash", str(home / "binder" / "postBuild")], cwd=home, env=env)  # 3. postBuild, in the home
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
    left = sorted(str(p.relative_to(home)) for p in [home / "build", *home.glob("*.egg-info")] if p.exists())
    if left:
        print("postBuild left build files in the learner's home:", *left)
        failures += 1
    kernel = run([py, "-c", KERNEL_CHECK], cwd=home / "notebooks", capture_output=True, env=env)
    print(kernel.stdout + kernel.stderr)
    try:
        report = json.loads(kernel.stdout.strip().splitlines()[-1])
        problems = kernel_findings(report, venv, home) + ([kernel.stderr[-2000:]] if kernel.stderr.strip() else [])
    except (ValueError, IndexError):
        report, problems = {}, [f"the kernel check failed (exit {kernel.returncode})"]
    if problems:
        print("kernel from notebooks/:", *problems, sep="\n  ")
        failures += 1
    else:
        print(
            f"kernel from notebooks/: {report['hits']} compiled loops loaded from the image's cache, none compiled, "
            f"in {report['seconds']} s"
        )
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
