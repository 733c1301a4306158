"""`make lab` (the README's first command) starts JupyterLab anywhere: as root, and headless (no browser to open)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tools.course import ROOT

URL = re.compile(r"(http://127\.0\.0\.1:\d+/lab[^\s]*\?token=[0-9a-f]+)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.skipif(not (ROOT / ".venv" / ".installed").exists(), reason="needs the .venv that `make` builds")
def test_make_lab_serves_the_first_notebook_headless(tmp_path: Path):
    port = free_port()
    drop = ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")  # headless, a make of its own
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env |= {
        "HOME": str(tmp_path),
        "JUPYTER_PORT": str(port),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "lab"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    seen = []
    try:
        # a bound, not a speed goal (issue 31): JupyterLab starts in seconds alone, far slower on busy cores
        deadline = time.monotonic() + 300
        url = None
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen.append(line)
            m = URL.search(line)
            url = m.group(1) if m else None
        assert url, "no URL with a token was printed:\n" + "".join(seen[-30:])
        assert "Running as root is not recommended" not in "".join(seen)
        assert "/lab/tree/notebooks/00-index.ipynb" in url, url
        local = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
        page = None
        while page is None and time.monotonic() < deadline:
            try:
                with local.open(url, timeout=30) as reply:
                    page = reply.status, reply.read().decode("utf-8", "replace")
            except ConnectionRefusedError:
                time.sleep(0.2)  # the URL can be printed a moment before the socket accepts
            except urllib.error.URLError as error:
                if not isinstance(error.reason, ConnectionRefusedError):
                    raise
                time.sleep(0.2)
        assert page is not None and page[0] == 200 and "JupyterLab" in page[1]
        token = url.split("token=")[1]
        api = f"http://127.0.0.1:{port}/api/contents/notebooks/00-index.ipynb?content=0&token={token}"
        with local.open(api, timeout=30) as reply:
            assert reply.status == 200 and b'"00-index.ipynb"' in reply.read()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_lab_opens_the_chosen_edition():
    """`make lab EDITION=en` opens the English course map; EDITION (not LANG, the shell's locale) is checked."""

    def dry(*args):  # make -n runs nothing (not even a stale venv's rebuild): it prints the commands
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "EDITION")}
        return subprocess.run(
            ["make", "-n", "--no-print-directory", "lab", *args], cwd=ROOT, env=env, capture_output=True, text=True
        )

    urls = {e: re.findall(r"default_url=(\S+)", dry(*([f"EDITION={e}"] if e else [])).stdout) for e in ("", "zh", "en")}
    assert urls == {
        "": ["/lab/tree/notebooks/00-index.ipynb"],
        "zh": ["/lab/tree/notebooks/00-index.ipynb"],
        "en": ["/lab/tree/notebooks/en/00-index.ipynb"],
    }
    wrong = dry("EDITION=fr")
    assert wrong.returncode != 0 and "EDITION=zh" in wrong.stderr and "EDITION=en" in wrong.stderr
    assert urls[""] == re.findall(r"default_url=(\S+)", dry("LANG=en_US.UTF-8").stdout), "LANG is the locale, not ours"
