"""How long does a learner's first big call take in a fresh process, with numba's cache warm and with it empty?

    .venv/bin/python -m benchmarks.bench_first_call                 # 3 fresh processes per case
    .venv/bin/python -m benchmarks.bench_first_call --runs 5 --write-docs   # and record it in docs/performance.md

Every run is a new Python process that imports lnlib and makes one first call: `layer_norm` on (32, 512, 768)
float32 (notebook 13's big case) or a default `train_mlp("layer")` (notebook 15). "empty cache" points numba's
cache at a fresh directory (NUMBA_CACHE_DIR), as in a container on another CPU or after a plain pip install;
"warm cache" uses the cache the previous runs left. lnlib compiles in a background thread and meanwhile computes
with numpy (the same bits), so the first call must not wait on a compile: the goal is at most 1 s for the first
layer_norm in both cases. For reference the same call is timed again once the compiled loop is ready
(`lnlib._fast.warm_up`), and that wait is reported too. Wall times on a shared machine: see the load in the header.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import report

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import lnlib
from lnlib import _fast, training
out = {"import_s": time.perf_counter() - t0}
what = sys.argv[1]
if what == "layer_norm":
    x = np.random.default_rng(0).standard_normal((32, 512, 768)).astype(np.float32)
    call = lambda: lnlib.layer_norm(x)
else:
    call = lambda: training.train_mlp("layer")
t = time.perf_counter()
first = call()
out["first_s"] = time.perf_counter() - t
t = time.perf_counter()
out["ready"] = _fast.warm_up(wait=True)
out["wait_s"] = time.perf_counter() - t
t = time.perf_counter()
again = call()
out["compiled_s"] = time.perf_counter() - t
a = first if what == "layer_norm" else first.losses
b = again if what == "layer_norm" else again.losses
out["same_bits"] = bool(np.array_equal(a, b, equal_nan=True))
print(json.dumps(out))
"""


def run_child(what: str, cache_dir: str | None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_DISABLE_JIT", None)
    if cache_dir:
        env["NUMBA_CACHE_DIR"] = cache_dir
    done = subprocess.run(
        [sys.executable, "-c", CHILD, what],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tempfile.gettempdir(),
    )
    if done.returncode != 0 or done.stderr.strip():
        raise SystemExit(f"child process failed (rc {done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s [{min(values):.2f}–{max(values):.2f}]"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per case (default 3)")
    parser.add_argument("--write-docs", action="store_true", help="record the table in docs/performance.md")
    parser.add_argument("--case", choices=["layer_norm", "train"], action="append", help="default: both")
    args = parser.parse_args(argv)
    rows = []
    header = "| first call | numba cache | first call s | wait for the compiled loop s | compiled call s | same bits |"
    print(header)
    cases = (("layer_norm", "layer_norm (32, 512, 768) float32"), ("train", 'train_mlp("layer")'))
    for what, label in [c for c in cases if not args.case or c[0] in args.case]:
        for cache in ("empty", "warm"):
            results = []
            for _ in range(args.runs):
                with tempfile.TemporaryDirectory(prefix="lnlib-numba-cache-") as tmp:
                    results.append(run_child(what, tmp if cache == "empty" else None))
            row = (
                f"| {label} | {cache} | {spread([r['first_s'] for r in results])} | "
                f"{spread([r['wait_s'] for r in results])} | {spread([r['compiled_s'] for r in results])} | "
                f"{'yes' if all(r['same_bits'] for r in results) else 'NO'} |"
            )
            print(row, flush=True)
            rows.append(row)
    if args.write_docs:
        body = "\n".join(
            [
                f"新进程里第一次调用的时间（中位数 [最小–最大]，每种情况 {args.runs} 个新进程）。"
                "「empty」让 numba 用一个空的缓存目录（另一种 CPU、刚 pip install 时就是这样），"
                "「warm」用前面几次留下的缓存。编译在一个子进程里进行（它把机器码写进 numba 的磁盘缓存，"
                "本进程的后台线程随后只读入），这期间用 numpy 按块计算（结果逐位相同），"
                "所以第一次调用不等编译，也不和编译争解释器锁；目标是第一次调用不超过 1 秒。",
                "",
                header,
                "| --- | --- | ---: | ---: | ---: | --- |",
                *rows,
            ]
        )
        report.write_section(
            "first_call",
            "新进程里的第一次调用（bench_first_call）",
            body,
            ".venv/bin/python -m benchmarks.bench_first_call "
            + " ".join([f"--runs {args.runs}", *(f"--case {c}" for c in args.case or []), "--write-docs"]),
        )
        print(f"written to {report.DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
