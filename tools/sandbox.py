"""Run a student's code sealed off: bubblewrap namespaces on Linux, or (only when asked for) no seal at all.

`Sandbox.run(stdin)` starts `python -S -s -P RUNNER` where the student's code cannot reach anything that matters:

- own PID, network, mount, IPC, UTS, user and cgroup namespaces (`--unshare-all`): no network (not even the
  machine's loopback), no process of the grader in `/proc` (the runner is process 1 there), no signal to anything
  outside;
- a file system of its own: `/usr` (the system and its Python) read-only, the Python prefix read-only when it lives
  elsewhere, numpy (and nothing else of the environment) read-only at its own path, the runner read-only, a
  private size-limited `/tmp` as its only writable folder; no repository, home, secret, submission or `/etc`;
  lnlib, when it is installed under one of those folders, is covered by an empty read-only folder;
- no environment variable but a handful set here (the grader's are never passed on), no capability, a new session,
  no further user namespace (bubblewrap 0.8 and newer);
- run as `nobody` when the grader is root (the kernel counts a fork bomb's processes against that user);
- killed with everything it started when the deadline passes or the grader dies (`--die-with-parent`: the PID
  namespace goes with its first process); at most `output_bytes` of its stdout are kept.

The resource limits (CPU time, memory, file size, processes, open files) are set by the runner itself before it
touches the student's code (`Limits.rlimits`), so they hold in both modes.

`Sandbox(sealed=False)` is the explicit opt-out (`--unsafe-no-sandbox`): the same runner in an empty temporary
folder with a clean environment and its own session, but with the grader's user rights. Use it only for work you
trust; the grade sheet and every feedback file say it was used.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

NOBODY = 65534
RUNNER_AT = "/sandbox/run.py"


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int = 60
    memory_bytes: int = 1 << 30
    file_bytes: int = 8 << 20
    processes: int = 16
    open_files: int = 64
    tmp_bytes: int = 32 << 20
    output_bytes: int = 2 << 20

    def rlimits(self) -> dict[str, int]:
        """The limits the runner sets on itself, by the names of Python's `resource` module."""
        return {
            "RLIMIT_CPU": self.cpu_seconds,
            "RLIMIT_AS": self.memory_bytes,
            "RLIMIT_FSIZE": self.file_bytes,
            "RLIMIT_NPROC": self.processes,
            "RLIMIT_NOFILE": self.open_files,
            "RLIMIT_CORE": 0,
        }


@dataclass(frozen=True)
class Finished:
    stdout: bytes
    timed_out: bool  # the deadline passed and the run was killed
    truncated: bool  # it wrote more than Limits.output_bytes: killed, the rest dropped
    seconds: float


def _site() -> str:
    """The folder numpy is imported from (in the sandbox it holds numpy and nothing else)."""
    return str(_numpy_dirs()[0].parent)


def _numpy_dirs() -> list[Path]:
    import numpy

    package = Path(numpy.__file__).resolve().parent
    libs = package.with_name("numpy.libs")  # the wheel's bundled OpenBLAS
    return [package] + ([libs] if libs.is_dir() else [])


@functools.cache
def blocks_nested_namespaces() -> bool:
    """Whether this bubblewrap (0.8 or newer) can forbid new user namespaces inside the sandbox (less of the
    kernel within reach)."""
    try:
        done = subprocess.run(["bwrap", "--help"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return "--disable-userns" in done.stdout + done.stderr


def _hidden(bound: list[str]) -> list[Path]:
    """Where lnlib (the answers to the function questions) is installed inside a folder the sandbox sees."""
    import lnlib

    package = Path(lnlib.__file__).resolve().parent
    return [package] if any(str(package).startswith(root.rstrip("/") + "/") for root in bound) else []


def _env(home: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": home,
        "TMPDIR": home,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
    }


@dataclass
class Sandbox:
    runner: Path
    limits: Limits = Limits()
    sealed: bool = True

    def _python(self) -> str:
        return os.path.realpath(sys.executable)

    def bwrap_args(self) -> list[str]:
        """bubblewrap's command line up to the program it runs."""
        python = Path(self._python())
        args = ["bwrap", "--unshare-all", "--as-pid-1", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        if blocks_nested_namespaces():
            args += ["--unshare-user", "--disable-userns"]
        args += ["--hostname", "sandbox", "--ro-bind", "/usr", "/usr"]
        for name in ("bin", "lib", "lib64", "lib32", "sbin"):
            top = Path("/") / name
            if top.is_symlink():
                args += ["--symlink", os.readlink(top), str(top)]
            elif top.is_dir():
                args += ["--ro-bind", str(top), str(top)]
        prefix = Path(sys.base_prefix).resolve()
        outside = [p for p in (prefix, python.parent) if not str(p).startswith(("/usr/", "/bin", "/lib"))]
        for path in dict.fromkeys(outside):
            args += ["--ro-bind", str(path), str(path)]
        for path in _numpy_dirs():  # at their own paths, so that relative library paths (RPATH) still resolve
            args += ["--ro-bind", str(path), str(path)]
        for path in _hidden(["/usr", *map(str, outside)]):  # lnlib installed there: the answer, out of sight
            args += ["--tmpfs", str(path), "--remount-ro", str(path)]
        args += ["--ro-bind", str(self.runner), RUNNER_AT]
        args += ["--proc", "/proc", "--dev", "/dev", "--size", str(self.limits.tmp_bytes), "--tmpfs", "/tmp"]
        args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/tmp", "--clearenv"]
        for key, value in (_env("/tmp") | {"PYTHONPATH": _site()}).items():
            args += ["--setenv", key, value]
        return args

    def command(self) -> list[str]:
        """Python without site-packages, user site or the script's folder on its path: numpy comes from PYTHONPATH."""
        tail = [self._python(), "-S", "-s", "-P"]
        return self.bwrap_args() + tail + [RUNNER_AT] if self.sealed else tail + [str(self.runner)]

    def run(self, stdin: bytes, steps: list[float], total: float) -> Finished:
        """Run the runner with `stdin`; kill it and everything it started when a step is late — `steps[k]` seconds
        are allowed between its k-th and its (k+1)-th line of output (the first from the start), the last one for
        each further line and for its exit — or when `total` seconds have passed."""
        with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
            env = _env(tmp) | {"PYTHONPATH": _site()}
            kwargs: dict = {"env": env, "cwd": "/" if self.sealed else tmp, "start_new_session": True}
            if self.sealed and hasattr(os, "geteuid") and os.geteuid() == 0:
                kwargs.update(user=NOBODY, group=NOBODY, extra_groups=[])
            started = time.monotonic()
            proc = subprocess.Popen(
                self.command(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                **kwargs,
            )
            box = {"data": bytearray(), "truncated": False, "lines": 0, "seen": threading.Event()}
            reader = threading.Thread(target=_read_capped, args=(proc, box, self.limits.output_bytes), daemon=True)
            reader.start()
            try:
                proc.stdin.write(stdin)
                proc.stdin.close()
            except OSError:  # it ended (or closed its stdin) before reading everything
                pass
            timed_out = False
            try:
                timed_out = not _watch(proc, box, steps, started + total)
            finally:
                _kill(proc)
                proc.wait()
            reader.join(5)
            return Finished(bytes(box["data"]), timed_out, box["truncated"], time.monotonic() - started)

    def unusable(self) -> str:
        """'' when this sandbox works on this machine; else why not (one line, for the teacher)."""
        if not self.sealed:
            return ""
        if shutil.which("bwrap") is None:
            return "bubblewrap (bwrap) is not installed"
        probe = Sandbox(self.runner, self.limits, True)
        cmd = probe.bwrap_args() + [self._python(), "-S", "-s", "-P", "-c", "import numpy"]
        kwargs: dict = {}
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            kwargs.update(user=NOBODY, group=NOBODY, extra_groups=[])
        try:
            done = subprocess.run(cmd, capture_output=True, timeout=60, env=_env("/tmp"), check=False, **kwargs)
        except (OSError, subprocess.SubprocessError) as err:
            return f"bubblewrap could not start: {err}"
        if done.returncode != 0:
            lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
            return f"bubblewrap does not work here: {lines[-1] if lines else f'exit status {done.returncode}'}"
        return ""


def _watch(proc: subprocess.Popen, box: dict, steps: list[float], end: float) -> bool:
    """Wait for the process to end, step by step; False when a step was late or the end has passed."""
    seen, due = 0, min(end, time.monotonic() + steps[0])
    while proc.poll() is None:
        box["seen"].wait(max(0.0, min(0.2, due - time.monotonic())))
        box["seen"].clear()
        if box["lines"] > seen:
            seen = box["lines"]
            due = min(end, time.monotonic() + steps[min(seen, len(steps) - 1)])
        elif time.monotonic() > due:
            return False
    return True


def _read_capped(proc: subprocess.Popen, box: dict, cap: int) -> None:
    while True:
        chunk = proc.stdout.read1(65536)
        if not chunk:
            box["seen"].set()
            return
        room = cap - len(box["data"])
        box["data"] += chunk[: max(room, 0)]
        box["lines"] += chunk.count(b"\n")
        box["seen"].set()
        if len(chunk) > room:
            box["truncated"] = True
            _kill(proc)
            return


def _kill(proc: subprocess.Popen) -> None:
    """The runner and its session (bubblewrap takes its namespace down with it)."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # Windows: no process groups
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass
