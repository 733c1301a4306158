"""JupyterLab + Chromium harness for the browser tests (issue 6).

Everything here is plain Python with no pytest dependency, so a maintainer can drive it from a REPL:

    lab = LabServer.start(Path("/tmp/x"), Path("notebooks"))
    ...
    lab.stop()

Design:
- The server runs on 127.0.0.1 on a port the OS chooses (read back from the server's runtime file), with a random
  token and every HOME / JUPYTER_* / IPYTHONDIR / MPLCONFIGDIR / XDG_* directory inside one temporary directory.
  It serves a COPY of notebooks/, so the browser never modifies the repository.
- Teardown escalates (API shutdown -> SIGTERM -> SIGKILL) on exactly the server process and the processes it
  started (kernels), found with psutil as its descendants.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psutil

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

# Directories that must not leak out of the temporary directory.
ISOLATED_DIRS = {
    "HOME": "home",
    "JUPYTER_CONFIG_DIR": "jupyter/config",
    "JUPYTER_DATA_DIR": "jupyter/data",
    "JUPYTER_RUNTIME_DIR": "jupyter/runtime",
    "JUPYTERLAB_SETTINGS_DIR": "lab/user-settings",
    "JUPYTERLAB_WORKSPACES_DIR": "lab/workspaces",
    "IPYTHONDIR": "ipython",
    "MPLCONFIGDIR": "matplotlib",
    "XDG_CONFIG_HOME": "xdg/config",
    "XDG_CACHE_HOME": "xdg/cache",
    "XDG_DATA_HOME": "xdg/data",
    "XDG_STATE_HOME": "xdg/state",
    "XDG_RUNTIME_DIR": "xdg/runtime",
    # bytecode of lnlib (imported by the kernels) goes here, not into the repository
    "PYTHONPYCACHEPREFIX": "pycache",
}

# JupyterLab user settings written into the isolated settings dir: no news, no update check, no toasts asking.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


def isolated_env(base: Path) -> dict[str, str]:
    """os.environ without any JUPYTER*/IPYTHON*/MPL*/XDG_*/LNLIB_REVEAL variable, plus fresh dirs under `base`."""
    # LNLIB_REVEAL too: the browser is the learner's view, every %%reveal closed until its exercise is tried
    drop = ("JUPYTER", "JPY_", "IPYTHON", "MPL", "XDG_", "PYTHONPYCACHEPREFIX", "PYTHONSTARTUP", "LNLIB_REVEAL")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    for name, rel in ISOLATED_DIRS.items():
        path = base / rel
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        env[name] = str(path)
    env["PYTHONNOUSERSITE"] = "1"
    # the venv's bin first, so the kernel and any helper come from the same environment as the server
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def _http(url: str, token: str, method: str = "GET", timeout: float = 5.0) -> tuple[int, bytes]:
    req = urllib.request.Request(url, method=method, headers={"Authorization": f"token {token}"})
    if method in ("POST", "DELETE"):
        req.data = b""
    with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - 127.0.0.1 only
        return resp.status, resp.read()


def _wait(predicate, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


@dataclass
class LabServer:
    base: Path
    root: Path
    env: dict[str, str]
    proc: subprocess.Popen
    port: int = 0
    token: str = ""
    log_path: Path | None = None
    known: dict[int, psutil.Process] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- start ------------------------------------------------------------------------------------------------
    @classmethod
    def start(cls, base: Path, notebooks: Path, timeout: float = 300.0) -> LabServer:
        env = isolated_env(base)
        root = base / "notebooks"
        shutil.copytree(notebooks, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        # The course's JupyterLab extension as this checkout builds it (share/), in the isolated data dir, searched
        # before the venv's (JUPYTER_PREFER_ENV_PATH=0; a venv's comes first otherwise): the tests see this
        # checkout's extension, whatever the venv links (it may be another checkout's).
        env["JUPYTER_PREFER_ENV_PATH"] = "0"
        built = Path(__file__).resolve().parents[2] / "share" / "jupyter" / "labextensions" / "lnlib-alt-text"
        (Path(env["JUPYTER_DATA_DIR"]) / "labextensions").mkdir(parents=True, exist_ok=True)
        os.symlink(built, Path(env["JUPYTER_DATA_DIR"]) / "labextensions" / built.name, target_is_directory=True)
        settings = Path(env["JUPYTERLAB_SETTINGS_DIR"])
        for rel, value in LAB_SETTINGS.items():
            (settings / rel).parent.mkdir(parents=True, exist_ok=True)
            (settings / rel).write_text(json.dumps(value), encoding="utf-8")

        # Build matplotlib's font cache in the isolated MPLCONFIGDIR while the server starts, so no kernel prints
        # "Matplotlib is building the font cache" to stderr.
        warm = subprocess.Popen(
            [sys.executable, "-c", "import lnlib.plots as p; p.use_cjk_font()"],
            env=env,
            cwd=base,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        token = secrets.token_hex(24)
        log_path = base / "jupyterlab.log"
        cmd = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            "--ServerApp.port=0",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--ServerApp.terminals_enabled=False",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.expose_app_in_browser=True",
            # a closed notebook's kernel gets half a second to exit, then it is stopped (about one shutdown in six
            # here waited 3 s for the kernel process to exit; nothing of it is needed once the notebook is closed)
            "--KernelManager.shutdown_wait_time=0.5",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:  # CI containers run as root
            cmd.append("--allow-root")
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                cmd, env=env, cwd=base, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        server = cls(base=base, root=root, env=env, proc=proc, log_path=log_path)
        server.known[proc.pid] = psutil.Process(proc.pid)
        try:
            runtime_file = Path(env["JUPYTER_RUNTIME_DIR"]) / f"jpserver-{proc.pid}.json"

            def info():
                if proc.poll() is not None:
                    raise RuntimeError(f"JupyterLab exited with {proc.returncode}:\n{server.log_tail()}")
                try:
                    return json.loads(runtime_file.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    return None

            data = _wait(info, timeout, f"the runtime file {runtime_file.name}")
            server.port, server.token = int(data["port"]), data["token"]
            assert server.token == token and data["hostname"] in ("127.0.0.1", "localhost"), data

            def status():
                if proc.poll() is not None:
                    raise RuntimeError(f"JupyterLab exited with {proc.returncode}:\n{server.log_tail()}")
                try:
                    return _http(server.url + "/api/status", token)[0] == 200
                except (OSError, urllib.error.URLError):
                    return False

            _wait(status, timeout, "/api/status")
            if warm.wait(timeout=timeout) != 0:
                raise RuntimeError("building the matplotlib font cache failed")
        except BaseException:
            if warm.poll() is None:
                warm.kill()
                warm.wait()
            server.stop()
            raise
        return server

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-n:])
        except (OSError, AttributeError):
            return ""

    # --- kernels ----------------------------------------------------------------------------------------------
    def remember_children(self) -> None:
        """Record every descendant of the server (kernels) so teardown can reach them even if orphaned."""
        try:
            for child in self.known[self.proc.pid].children(recursive=True):
                self.known.setdefault(child.pid, child)
        except psutil.Error:
            pass

    def shutdown_all_kernels(self) -> None:
        self.remember_children()
        try:
            _, body = _http(self.url + "/api/kernels", self.token)
            for kernel in json.loads(body):
                _http(f"{self.url}/api/kernels/{kernel['id']}", self.token, method="DELETE", timeout=20)
        except (OSError, ValueError, urllib.error.URLError):
            pass

    # --- stop -------------------------------------------------------------------------------------------------
    def stop(self, grace: float = 15.0) -> list[str]:
        """API shutdown, then SIGTERM, then SIGKILL, on the server and the processes it started.

        Returns a list of what had to be escalated (empty when the API shutdown was enough).
        """
        self.remember_children()
        escalated: list[str] = []
        if self.port and self.proc.poll() is None:
            try:
                _http(self.url + "/api/shutdown", self.token, method="POST", timeout=10)
            except (OSError, urllib.error.URLError):
                pass
        procs = list(self.known.values())
        _, alive = psutil.wait_procs(procs, timeout=grace)
        for sig, name in ((signal.SIGTERM, "SIGTERM"), (signal.SIGKILL, "SIGKILL")):
            if not alive:
                break
            for p in alive:
                try:
                    # psutil checks the process creation time, so a recycled pid is never signalled
                    p.send_signal(sig)
                    escalated.append(f"{name} {p.pid}")
                except psutil.NoSuchProcess:
                    pass
            _, alive = psutil.wait_procs(alive, timeout=5)
        if self.proc.poll() is None:
            self.proc.wait(timeout=5)
        if alive:
            raise RuntimeError(f"processes survived SIGKILL: {[p.pid for p in alive]}")
        return escalated
