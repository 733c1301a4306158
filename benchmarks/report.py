"""Write a benchmark's results into docs/performance.md: its own section between `<!-- bench:NAME -->` markers,
headed by the machine (CPU model, cores, load), the date and the versions, so the page says where every number
comes from. Benchmarks call `write_section` when run with --write-docs; nothing else in the page is touched."""

from __future__ import annotations

import datetime
import os
import platform
import re
from pathlib import Path

import numpy as np

DOC = Path(__file__).resolve().parent.parent / "docs" / "performance.md"


def machine() -> str:
    """'AMD EPYC … (family 25 model 17), 2 CPUs, load 1.2 / 1.1 / 0.9' from /proc/cpuinfo where there is one."""
    model, family, number = platform.processor() or platform.machine(), "", ""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        info = ""
    for key, value in re.findall(r"^(model name|cpu family|model)\s*:\s*(.+)$", info, flags=re.M):
        if key == "model name" and not model.startswith(value):
            model = value.strip()
        elif key == "cpu family" and not family:
            family = value.strip()
        elif key == "model" and not number:
            number = value.strip()
    ident = f" (family {family} model {number})" if family else ""
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return f"{model}{ident}, {os.cpu_count()} CPUs, load {load} (1 / 5 / 15 min)"


def header(command: str) -> str:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"测于 {now}；机器：{machine()}；Python {platform.python_version()}，numpy {np.__version__}。\n"
        f"命令：`{command}`"
    )


def write_section(name: str, title: str, body: str, command: str, path: Path = DOC) -> None:
    """Replace (or append) the section `name` of the page with `title`, the header and `body` (Markdown)."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n## {title}\n\n{header(command)}\n\n{body.strip()}\n{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else "# 速度与测量\n"
    if start in text and end in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")
