"""Run the test suites again and again under extra CPU load, and say which tests ever failed (issue 31).

    python -m tools.soak --runs 3 --load 4 -- make -j3 test-unit test-notebooks-other-path test-browser
    make test-soak                                  # the same, from the Makefile (SOAK_RUNS, SOAK_LOAD, SOAK_TARGETS)

A suite that passes once may still fail on a busy machine (timing assumptions, tight timeouts, races, a print the
kernel flushed in two pieces). While the command runs, `--load` busy processes (plain Python loops, started and
stopped here by their process ids) keep the cores busy. Every pytest process the command starts loads this module
as a plugin (through PYTEST_ADDOPTS) and writes what failed into a results folder, so the three suites of
`make test`, run side by side, all report here. The report lists every test that failed in any run, with the runs
it failed in; the exit status is 1 if any run failed.

This is not part of `make test`, and it asserts no timing: it only repeats the suites.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS_ENV = "LNLIB_SOAK_RESULTS"  # the folder each pytest process writes its result file into
# A busy loop that ends by itself once the soak that started it is gone (its parent changes), so a soak killed
# from outside (SIGKILL, a closed terminal) leaves no load behind.
BUSY = "import os, sys\nparent = int(sys.argv[1])\nwhile os.getppid() == parent:\n    pass\n"  # argv: the soak's pid


# --- the pytest plugin (loaded with -p tools.soak) -------------------------------------------------------------

_failures: list[dict] = []
_counts = {"passed": 0, "failed": 0, "skipped": 0}
_results: list[str] = []  # the folder, taken out of the environment: a pytest this one starts (the nbval check
# of tests/test_determinism.py, whose failures are on purpose) inherits the plugin but reports nothing


def pytest_configure(config) -> None:
    folder = os.environ.pop(RESULTS_ENV, None)
    if folder:
        _results.append(folder)


def pytest_runtest_logreport(report) -> None:
    if report.failed:
        _failures.append(
            {"test": report.nodeid, "phase": report.when, "summary": str(report.longrepr).strip().splitlines()[-1:]}
        )
        _counts["failed"] += 1
    elif report.when == "call" and report.passed:
        _counts["passed"] += 1
    elif report.skipped:
        _counts["skipped"] += 1


def pytest_collectreport(report) -> None:
    if report.failed:
        _failures.append({"test": report.nodeid or "(collection)", "phase": "collect", "summary": []})


def pytest_sessionfinish(session, exitstatus) -> None:
    if not _results:
        return
    path = Path(_results[0]) / f"pytest-{os.getpid()}.json"
    record = {"args": list(session.config.invocation_params.args), "exitstatus": int(exitstatus)}
    path.write_text(json.dumps({**record, **_counts, "failures": _failures}, ensure_ascii=False), encoding="utf-8")


# --- the soak run ------------------------------------------------------------------------------------------------


def start_load(n: int) -> list[subprocess.Popen]:
    # the soak's own pid, given at the start: read by the child, it could already be init's if the soak died first
    me = str(os.getpid())
    return [subprocess.Popen([sys.executable, "-c", BUSY, me], stdin=subprocess.DEVNULL) for _ in range(n)]


def stop_load(procs: list[subprocess.Popen]) -> None:
    for p in procs:  # only the processes started here, by their own handles
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def one_run(command: list[str], results: Path, log: Path) -> tuple[int, float, list[dict]]:
    """Run `command` once; return its exit status, its seconds and the results of every pytest it started."""
    results.mkdir(parents=True, exist_ok=True)
    for old in results.glob("pytest-*.json"):  # a previous soak into the same folder
        old.unlink()
    env = dict(os.environ)
    env[RESULTS_ENV] = str(results)
    env["PYTEST_ADDOPTS"] = (env.get("PYTEST_ADDOPTS", "") + " -p tools.soak").strip()
    start = time.monotonic()
    with open(log, "wb") as out:
        status = subprocess.run(command, env=env, stdout=out, stderr=subprocess.STDOUT, check=False).returncode
    seconds = time.monotonic() - start
    reports = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(results.glob("pytest-*.json"))]
    return status, seconds, reports


def report(runs: list[dict]) -> str:
    """The summary: one line per run, then every test that ever failed with the runs it failed in."""
    lines = []
    failed_in: dict[str, list[int]] = {}
    for i, run in enumerate(runs, 1):
        tests = sum(r["passed"] for r in run["pytest"])
        failures = [f for r in run["pytest"] for f in r["failures"]]
        crashed = [r["args"] for r in run["pytest"] if r["exitstatus"] not in (0, 1, 5) and not r["failures"]]
        lines.append(
            f"run {i}: exit {run['status']}, {run['seconds']:.0f} s, {tests} passed, {len(failures)} failed"
            f"{', pytest ended abnormally: ' + str(crashed) if crashed else ''} (log: {run['log']})"
        )
        for f in failures:
            failed_in.setdefault(f["test"], []).append(i)
        if run["status"] != 0 and not failures:
            failed_in.setdefault(f"(the command itself, no test failed; see {run['log']})", []).append(i)
    if failed_in:
        lines.append(f"tests that failed in at least one of {len(runs)} runs:")
        for test, where in sorted(failed_in.items()):
            lines.append(f"  {test}: run {', '.join(map(str, where))}")
    else:
        lines.append(f"no test failed in {len(runs)} run{'s' if len(runs) > 1 else ''}")
    return "\n".join(lines)


def _stop(signum, frame) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="how many times to run the command (default 3)")
    parser.add_argument("--load", type=int, default=4, help="busy processes running meanwhile (default 4)")
    parser.add_argument("--out", type=Path, default=None, help="folder for logs and results (default: a temp dir)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to repeat, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to repeat after --, e.g. -- make -j3 test-unit")
    if args.runs < 1 or args.load < 0:
        parser.error("--runs must be at least 1 and --load at least 0")
    out = args.out or Path(tempfile.mkdtemp(prefix="lnlib-soak-"))
    out.mkdir(parents=True, exist_ok=True)
    runs = []
    signal.signal(signal.SIGTERM, _stop)  # a plain kill runs the `finally` below, which stops the load
    load = start_load(args.load)
    try:
        for i in range(1, args.runs + 1):
            log = out / f"run-{i}.log"
            status, seconds, reports = one_run(command, out / f"run-{i}", log)
            runs.append({"status": status, "seconds": seconds, "pytest": reports, "log": str(log)})
            print(report(runs).splitlines()[i - 1], flush=True)
    finally:
        stop_load(load)
    print(report(runs))
    (out / "soak.json").write_text(json.dumps(runs, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0 if all(r["status"] == 0 for r in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
