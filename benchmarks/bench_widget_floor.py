"""The latency floor of a kernel-driven widget in the real browser: what no explorer can go below.

    .venv/bin/python -m benchmarks.bench_widget_floor [--presses 25]

JupyterLab and Debian's Chromium, started exactly as the browser tests start them (tests/browser), run one small
notebook with two trivial "explorers" whose kernel side does (almost) nothing:
  - html:  a slider whose observer writes the value into an HTML widget;
  - image: the same, and it also sets an Image widget to one of 8 PNGs encoded beforehand (900 × 280 pixels, the
           size of the course's explorer figures: white with four bars; encoded by lnlib.live.encode_png like the
           explorers' frames, about the same number of bytes).
Every slider step is measured like the browser tests measure an explorer (tests/browser/page_js.py: from the key
press to the painted frame in which the new value, and the new image loaded, are shown). The difference between
an explorer's latency in build/browser/latency.md and this floor is what its own kernel work and its bigger page
update add; the floor itself is the round trip browser → server → kernel → browser and the page's repaint.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import nbformat

from tests.browser import page_js as js
from tests.browser.lab_harness import CHROMIUM, CHROMIUM_ARGS, LabServer

SETUP = """\
import ipywidgets as widgets
import numpy as np
from lnlib.live import encode_png

def frame(k: int) -> bytes:  # white, four bars whose heights depend on k: compresses like the course's bars
    rgba = np.full((280, 900, 4), 255, np.uint8)
    for i in range(4):
        top = 40 + (37 * (k + i)) % 200
        rgba[top:260, 100 + 200 * i : 180 + 200 * i, :3] = (31, 119, 180)
    return encode_png(rgba)


FRAMES = [frame(k) for k in range(8)]


def trivial(with_image: bool) -> widgets.VBox:
    slider = widgets.IntSlider(value=0, min=0, max=1000, description="v")
    text = widgets.HTML("v = 0")
    image = widgets.Image(value=FRAMES[0], format="png")

    def show(change):
        if with_image:
            image.value = FRAMES[change.new % len(FRAMES)]
        text.value = f"v = {change.new}"

    slider.observe(show, names="value")
    return widgets.VBox([slider, text, image] if with_image else [slider, text])
"""


def notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
    nb.cells = [
        nbformat.v4.new_code_cell(SETUP),
        nbformat.v4.new_code_cell("trivial(with_image=False)"),
        nbformat.v4.new_code_cell("trivial(with_image=True)"),
    ]
    return nb


def measure(page, cell: int, presses: int, with_image: bool) -> list[float]:
    root = page.locator(f'[data-ln-cell="{cell}"] .jp-OutputArea-output > .jupyter-widgets').first
    handle = root.element_handle()
    latencies = []
    for value in range(1, presses + 1):
        page.wait_for_function(js.QUIET, arg=[handle, 150], timeout=60_000, polling=50)
        spec = {
            "expect": [f"v = {value}"],
            "expect_re": [],
            "absent": [],
            "changed": ["images"] if with_image else ["html"],
            "unchanged": [],
        }
        page.evaluate(js.ARM, [handle, spec])
        root.locator(".noUi-handle").first.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(js.PROBE_DONE, timeout=60_000)
        latencies.append(page.evaluate(js.PROBE_RESULT)["latency_ms"])
    return latencies


def summary(values: list[float]) -> dict:
    p95 = statistics.quantiles(values, n=20, method="inclusive")[18]
    return {"n": len(values), "median_ms": round(statistics.median(values), 1), "p95_ms": round(p95, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presses", type=int, default=25, help="slider steps measured per trivial explorer")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    base = Path(tempfile.mkdtemp(prefix="lnlib-floor-"))
    source = base / "source"
    source.mkdir()
    nbformat.write(notebook(), source / "floor.ipynb")
    server = LabServer.start(base, source)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, env=server.env)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{server.url}/lab?reset&token={server.token}", timeout=180_000)
            page.wait_for_function("() => !!window.jupyterapp", timeout=180_000)
            page.evaluate("() => window.jupyterapp.restored.then(() => true)")
            page.evaluate(js.OPEN, "floor.ipynb")
            page.wait_for_function(js.KERNEL_IDLE, timeout=180_000)
            page.evaluate(js.RUN_ALL)
            page.wait_for_function(js.SETTLED, timeout=180_000, polling=100)
            time.sleep(1.0)
            result = {
                "html": summary(measure(page, 1, args.presses, with_image=False)),
                "image": summary(measure(page, 2, args.presses, with_image=True)),
            }
            page.evaluate(js.CLOSE)
            browser.close()
    finally:
        server.shutdown_all_kernels()
        server.stop()
        shutil.rmtree(base, ignore_errors=True)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
