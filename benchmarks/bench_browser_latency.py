"""Every explorer control's latency in the real browser, per control, written into docs/performance.md.

    .venv/bin/python -m benchmarks.bench_browser_latency [--report build/browser/report.json] [--write-docs]

Without --report it runs the browser suite's explorer tests (`pytest -m browser -k follows_the_learner`: JupyterLab
and Debian's Chromium, every explorer of both editions, each control stepped as a learner would; nothing else should
run on the machine) and reads the report they write; with --report it reads a report.json a run already wrote
(`make test-browser` writes one). It prints, and with --write-docs writes into the page, one row per control
(median, p95 and slowest interaction, the goal p50 ≤ 50 ms and p95 ≤ 150 ms) and the whole run's numbers.
The load before and after the run comes from the report: a busy machine makes every row slower.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import subprocess
import sys
from pathlib import Path

from tests.browser.conftest import ARTIFACTS, GOAL_MEDIAN_MS, GOAL_P95_MS, latency_markdown

ROOT = Path(__file__).resolve().parent.parent
TESTS = ["-m", "browser", "tests/browser/test_browser_notebooks.py", "-k", "follows_the_learner"]


def run_suite() -> Path:
    """Run the explorer tests in a child pytest; the path of the report it wrote."""
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS], cwd=ROOT, check=True)
    return ARTIFACTS / "report.json"


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def summary(report: dict) -> str:
    """The per-control table and one paragraph on the whole run."""
    rows = report["latency"]
    steps = [float(i["latency_ms"]) for i in report["interactions"] if not i.get("generic") and i.get("latency_ms")]
    met = sum(r["meets_goal"] for r in rows)
    load = report["machine"]
    before = " / ".join(str(v) for v in load.get("load_average_before", ()))
    after = " / ".join(str(v) for v in load.get("load_average_after", ()))
    whole = (
        f"{len(steps)} 次交互（{len(rows)} 个控件）：中位数 {statistics.median(steps):.0f} ms，"
        f"p95 {p95(steps):.0f} ms，最慢 {max(steps):.0f} ms；{met} / {len(rows)} 个控件达到目标"
        f"（中位数 ≤ {GOAL_MEDIAN_MS:g} ms，p95 ≤ {GOAL_P95_MS:g} ms）。运行前负载 {before}，运行后 {after}"
        f"（1 / 5 / 15 分钟），共 {report['total_s']:.0f} 秒。"
    )
    return latency_markdown(rows, load, by="浏览器测试的探索器部分（bench_browser_latency）") + "\n" + whole + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--report", type=Path, help="a report.json already written (default: run the tests)")
    parser.add_argument("--write-docs", action="store_true", help="write the section into docs/performance.md")
    args = parser.parse_args(argv)
    path = args.report or run_suite()
    report = json.loads(path.read_text(encoding="utf-8"))
    if not report.get("latency"):
        print(f"{path}: no explorer was measured in this report", file=sys.stderr)
        return 1
    body = summary(report)
    if args.report:  # the page's header dates the writing; say when the run itself ended
        ended = datetime.datetime.fromtimestamp(path.stat().st_mtime, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        body += f"\n这次运行结束于 {ended}（report.json 写下的时间）。\n"
    print(body)
    if args.write_docs:
        from benchmarks.report import write_section

        given = " --report …" if args.report else ""
        command = f"python -m benchmarks.bench_browser_latency{given} --write-docs"
        write_section("browser_latency", "每个探索器控件在浏览器里的响应时间（bench_browser_latency）", body, command)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
