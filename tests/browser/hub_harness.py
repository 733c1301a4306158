"""A real JupyterHub on 127.0.0.1 for the browser tests (issue 41, item 7): JupyterHub (pinned in
requirements-dev.txt) with its DummyAuthenticator and SimpleLocalProcessSpawner (every user a folder under one
temporary directory, servers run by this process's user), configurable-http-proxy from npm (`.ci/run` installs it
into build/chp; or on PATH), nbgitpuller in the single-user servers, the course served from a local git repository
(file://). Plain Python, no pytest: `HubServer.start(base, repo)`, `.stop()`."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import psutil

from .lab_harness import LAB_SETTINGS, isolated_env

ROOT = Path(__file__).resolve().parents[2]
CHP_LOCAL = ROOT / "build" / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"
PASSWORD = "course-test"


# every cell rendered (no windowing), so the test finds an explorer without scrolling the notebook first
HUB_LAB_SETTINGS = {"@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"}}


def proxy_command() -> str | None:
    """configurable-http-proxy: the one `.ci/run` installs into build/chp, else one on PATH."""
    if CHP_LOCAL.exists():
        return str(CHP_LOCAL)
    return shutil.which("configurable-http-proxy")


def missing_parts() -> list[str]:
    """What this machine lacks for a real Hub (empty when it can run one)."""
    missing = []
    for module in ("jupyterhub", "nbgitpuller"):
        try:
            __import__(module)
        except ImportError:
            missing.append(f"python package {module} (requirements-dev.txt)")
    if proxy_command() is None:
        missing.append("configurable-http-proxy (npm install --prefix build/chp configurable-http-proxy; .ci/run)")
    if shutil.which("git") is None:
        missing.append("git")
    return missing


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CONFIG = """
c = get_config()  # noqa: F821
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.db_url = "sqlite:///{base}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{base}/cookie_secret"
c.JupyterHub.pid_file = "{base}/jupyterhub.pid"
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{base}/homes/{{username}}"
c.Spawner.cmd = [{singleuser!r}]
c.Spawner.default_url = "/lab"
c.Spawner.args = {args!r}
c.Spawner.env_keep = {env_keep!r}
c.Spawner.http_timeout = 180
c.Spawner.start_timeout = 180
c.JupyterHub.cleanup_servers = True
"""


@dataclass
class HubServer:
    base: Path
    port: int
    process: subprocess.Popen
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def home(self, user: str) -> Path:
        return self.base / "homes" / user

    @classmethod
    def start(cls, base: Path, timeout: float = 180.0) -> HubServer:
        env = isolated_env(base)
        env["JUPYTER_PREFER_ENV_PATH"] = "0"  # the lab harness's reason: this checkout's extension (below) first
        built = ROOT / "share" / "jupyter" / "labextensions" / "lnlib-alt-text"
        (Path(env["JUPYTER_DATA_DIR"]) / "labextensions").mkdir(parents=True, exist_ok=True)
        os.symlink(built, Path(env["JUPYTER_DATA_DIR"]) / "labextensions" / built.name, target_is_directory=True)
        (base / "homes").mkdir()
        settings = Path(env["JUPYTERLAB_SETTINGS_DIR"])  # shared by the users' servers (env_keep)
        for rel, value in {**LAB_SETTINGS, **HUB_LAB_SETTINGS}.items():
            (settings / rel).parent.mkdir(parents=True, exist_ok=True)
            (settings / rel).write_text(json.dumps(value), encoding="utf-8")
        port = free_port()
        config = base / "jupyterhub_config.py"
        config.write_text(
            CONFIG.format(
                port=port,
                hub_port=free_port(),
                proxy_api_port=free_port(),
                proxy=proxy_command(),
                base=base,
                password=PASSWORD,
                singleuser=str(Path(sys.executable).with_name("jupyterhub-singleuser")),
                args=["--LabApp.expose_app_in_browser=True"] + (["--allow-root"] if os.geteuid() == 0 else []),
                env_keep=sorted(k for k in env if k.startswith(("PATH", "JUPYTER", "XDG_", "MPL", "PYTHON", "LANG"))),
            ),
            encoding="utf-8",
        )
        env["CONFIGPROXY_AUTH_TOKEN"] = secrets.token_hex(32)
        log_path = base / "jupyterhub.log"
        process = subprocess.Popen(
            [str(Path(sys.executable).with_name("jupyterhub")), "-f", str(config)],
            cwd=base,
            env=env,
            stdout=log_path.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        hub = cls(base, port, process, log_path)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"jupyterhub exited ({process.returncode}):\n{log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(hub.url + "/hub/api/", timeout=5) as r:
                    if json.loads(r.read()).get("version"):
                        return hub
            except OSError:
                time.sleep(1)
        hub.stop()
        raise RuntimeError(f"jupyterhub did not answer in {timeout} s:\n{log_path.read_text()[-3000:]}")

    def stop(self, grace: float = 20.0) -> None:
        """SIGTERM to the Hub (it stops the proxy and the users' servers: cleanup_servers), then SIGKILL to whatever
        of its process tree is left."""
        try:
            tree = [psutil.Process(self.process.pid), *psutil.Process(self.process.pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            tree = []
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(grace)
            except subprocess.TimeoutExpired:
                pass
        for proc in tree:
            try:
                proc.kill()
            except psutil.NoSuchProcess:
                pass
