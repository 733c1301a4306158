"""Does numba's disk cache of lnlib's compiled loop hit in a fresh process? First-call times, one process after another.

    .venv/bin/python -m benchmarks.bench_jit_cache              # the package's own cache directory
    .venv/bin/python -m benchmarks.bench_jit_cache --read-only  # a read-only copy of lnlib (site-packages, Hub)

Each run starts a fresh Python process that imports lnlib, starts numba (its import and target context: a cost any
numba user pays once per process, reported on its own) and times the first big `layer_norm` calls (float32 with
float32 γ, β and float64 without): the first process may compile, every later one must only load from the cache
("compiled" 0, "cache hits" 2).
--read-only copies lnlib into a temporary directory made read-only (a read-only bind mount inside a private mount
namespace, `unshare -rm`, so that even root cannot write there) with a fresh, empty user cache directory: numba must
fall back to that directory, silently. Any output on stderr is reported as a failure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, time
t0 = time.perf_counter()
import numpy as np
import lnlib
from lnlib import _fast
out = {"import_s": time.perf_counter() - t0}
t = time.perf_counter()
import numba  # numba's own start-up, paid once per process by any numba user: import + target context
from numba.core.registry import cpu_target
cpu_target.target_context.refresh()
out["numba_init_s"] = time.perf_counter() - t
rows = max(64, -(-_fast.MIN_SIZE // 768))  # big enough for the compiled loop
x32 = np.random.default_rng(0).standard_normal((rows, 768)).astype(np.float32)
g = np.ones(768, np.float32)
for name, x, args in (("float32", x32, (g, g)), ("float64", x32.astype(np.float64), ())):
    t = time.perf_counter()
    lnlib.layer_norm(x, *args)
    out[name + "_first_s"] = time.perf_counter() - t
stats = _fast._ready["layer_norm"].stats
out["hits"] = sum(stats.cache_hits.values())
out["misses"] = sum(stats.cache_misses.values())
out["cache_path"] = stats.cache_path
print(json.dumps(out))
"""


def run_child(pythonpath: str, env_extra: dict, wrap: list[str], cwd: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": pythonpath, **env_extra}
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run(
        [*wrap, sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=900, cwd=cwd
    )  # not the repository: `python -c` imports from its working directory
    if done.returncode != 0 or done.stderr.strip():
        raise SystemExit(f"child process failed (rc {done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4, help="fresh processes, one after another (default 4)")
    parser.add_argument("--read-only", action="store_true", help="a read-only copy of lnlib, empty user cache dir")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="lnlib-jit-cache-"))
    try:
        env_extra: dict = {}
        wrap: list[str] = []
        pythonpath = str(ROOT)
        if args.read_only:
            pkg = tmp / "site"
            shutil.copytree(ROOT / "lnlib", pkg / "lnlib", ignore=shutil.ignore_patterns("__pycache__"))
            home = tmp / "home"
            home.mkdir()
            env_extra = {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
            mount = f'mount --bind {pkg} {pkg} && mount -o remount,bind,ro {pkg} {pkg} && exec "$@"'
            if subprocess.run(["unshare", "-rm", "sh", "-c", "true"], capture_output=True).returncode != 0:
                raise SystemExit("--read-only needs `unshare -rm` (Linux user namespaces)")
            wrap = ["unshare", "-rm", "sh", "-c", mount, "sh"]
            pythonpath = str(pkg)
        print(
            f"{'run':>4} {'import lnlib s':>15} {'numba start-up s':>17} {'float32 first call s':>21}"
            f" {'float64 first call s':>21} {'cache hits':>11} {'compiled':>9}"
        )
        for i in range(1, args.runs + 1):
            r = run_child(pythonpath, env_extra, wrap, tmp)
            print(
                f"{i:>4} {r['import_s']:>15.2f} {r['numba_init_s']:>17.2f} {r['float32_first_s']:>21.2f}"
                f" {r['float64_first_s']:>21.2f} {r['hits']:>11} {r['misses']:>9}",
                flush=True,
            )
        if args.read_only:
            written = sorted(p.relative_to(tmp) for p in (tmp / "site").rglob("*") if "__pycache__" in p.parts)
            cached = sorted(p.name for p in (tmp / "home").rglob("*.nbi"))
            print(f"cache directory: {r['cache_path'].replace(str(tmp), '<tmp>')}")
            print(
                f"files written into the read-only package: {len(written)}; "
                f"numba index files in the fresh user cache dir: {len(cached)}"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
