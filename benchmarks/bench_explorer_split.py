"""Where one explorer interaction spends its time, part by part, in the real browser, next to the widget floor.

    .venv/bin/python -m benchmarks.bench_explorer_split [--rounds 3] [--presses 4] [--compare PATH] [--write-docs]

JupyterLab and Debian's Chromium, started as the browser tests start them (tests/browser), run one generated
notebook: every explorer of the course with its default arguments (TrainingExplorer over two small grids) and the
two trivial widgets of `bench_widget_floor` (a slider writing an HTML text; the same swapping a small PNG). Each
one's first slider (or first toggle group) is pressed like the browser suite presses it — a new value every time,
measured from the key press to the painted frame showing the new output (tests/browser/page_js.py) — in rounds,
every widget in every round, so a busy machine slows them all alike. Each press is split on one clock (the page's
`performance.timeOrigin + now()` and the kernel's `time.time()`, both the machine's wall clock):

    browser in   key press → the comm message leaves the page's websocket (the slider's own JavaScript)
    to kernel    → the kernel starts handling it (server relay, ZMQ, and waiting for work already running)
    prefetch     of that wait: the kernel drawing ahead (`Explorer.prefetch`) when the message came
    compute      the kernel's handler outside the parts below: the explorer's arithmetic and its tables
    draw         LiveFigure.png minus the PNG encoding: restore the background, redraw what moved
    encode       lnlib.live.encode_png
    alt text     lnlib.plots.alt_text of the frame shown
    sync         ipywidgets' state messages out of the kernel (`Widget._send`: serialize, hand to ZMQ); msgs, KB
    to page      the kernel's last state message sent → its arrival at the page's websocket
    page         arrival → the painted frame: ipywidgets applies the state, the <img> decodes, layout and paint
    observers    of `page`, the time spent in MutationObserver callbacks: the alt-text extension's; all others

The kernel's timings are wrappers put around those functions by the notebook's first cell (nothing in lnlib
times itself, so the product pays nothing for this benchmark); the page's come from a script that wraps the
WebSocket and MutationObserver before JupyterLab loads. `--compare PATH` runs a second notebook whose kernel
imports lnlib from PATH (another checkout, e.g. `git worktree add /tmp/old 695e902`), alternating the two in
every round. With --write-docs the table goes into docs/performance.md (section explorer_split).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from tests.browser import page_js as js
from tests.browser.lab_harness import CHROMIUM, CHROMIUM_ARGS, LabServer

ROOT = Path(__file__).resolve().parent.parent

# --- the kernel side: wrappers that record (name, start in epoch ms, duration ms, bytes) -------------------------

HOOK = r"""
import functools as _ft, time as _time
import ipywidgets as _ipw
import lnlib, lnlib.widgets, lnlib.live, lnlib.plots
try:
    import lnlib.training_widgets
except Exception:
    pass
try:
    import lnlib.lm_explorer
except Exception:
    pass
_LN_T = []
_LN_ACTIVE = set()

def _ln_wrap(owner, attr, name, size=None):
    fn = owner.__dict__.get(attr)
    if fn is None or getattr(fn, "_ln_timed", False):
        return
    @_ft.wraps(fn)
    def timed(*a, **k):
        if name in _LN_ACTIVE:  # an inner call of the same part (super().render()) is counted once
            return fn(*a, **k)
        _LN_ACTIVE.add(name)
        t, c = _time.time(), _time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            _LN_ACTIVE.discard(name)
            _LN_T.append((name, t * 1e3, (_time.perf_counter() - c) * 1e3, size(*a, **k) if size else 0))
    timed._ln_timed = True
    setattr(owner, attr, timed)

def _ln_bytes(self, msg, buffers=None):
    return sum(len(memoryview(b).cast("B")) for b in (buffers or ())) + len(str(msg))

_ln_wrap(_ipw.Widget, "_handle_msg", "kernel")
_ln_wrap(_ipw.Widget, "_send", "sync", _ln_bytes)
_ln_wrap(lnlib.live.LiveFigure, "png", "draw")
import sys as _sys, types as _types
_encode = lnlib.live.encode_png
def _ln_encode(*a, **k):
    t, c = _time.time(), _time.perf_counter()
    try:
        return _encode(*a, **k)
    finally:
        _LN_T.append(("encode", t * 1e3, (_time.perf_counter() - c) * 1e3, 0))
lnlib.live.encode_png = _ln_encode
_alt = getattr(lnlib.plots, "alt_text", None)
if _alt is not None:
    def _ln_alt(*a, **k):
        t, c = _time.time(), _time.perf_counter()
        try:
            return _alt(*a, **k)
        finally:
            _LN_T.append(("alt", t * 1e3, (_time.perf_counter() - c) * 1e3, 0))
    for _m in list(_sys.modules.values()):
        _ours = isinstance(_m, _types.ModuleType) and _m.__name__.startswith("lnlib")
        if _ours and getattr(_m, "alt_text", None) is _alt:
            _m.alt_text = _ln_alt

def _ln_classes(base):
    out, todo = [], [base]
    while todo:
        c = todo.pop()
        out.append(c)
        todo += c.__subclasses__()
    return out

_base = getattr(getattr(lnlib, "explorers", None), "base", None)
_Explorer = _base.Explorer if _base is not None else lnlib.widgets.Explorer
for _c in _ln_classes(_Explorer):
    _ln_wrap(_c, "prefetch", "prefetch")
    _ln_wrap(_c, "view", "view")
_ln_wrap(lnlib.live.Coalescer, "flush", "render")

def _ln_dump():
    import json
    print(json.dumps(_LN_T))
    _LN_T.clear()
"""

SETUP = (
    HOOK
    + """
import numpy as np
from lnlib import training, widgets
from lnlib.live import encode_png

def _frame(k):  # bench_widget_floor's picture: white, four bars
    rgba = np.full((280, 900, 4), 255, np.uint8)
    for i in range(4):
        top = 40 + (37 * (k + i)) % 200
        rgba[top:260, 100 + 200 * i : 180 + 200 * i, :3] = (31, 119, 180)
    return _encode(rgba)

FRAMES = [_frame(k) for k in range(8)]

def trivial(with_image):
    slider = _ipw.IntSlider(value=0, min=0, max=1000, description="v")
    text = _ipw.HTML("v = 0")
    image = _ipw.Image(value=FRAMES[0], format="png")
    def show(change):
        if with_image:
            image.value = FRAMES[change.new % len(FRAMES)]
        text.value = f"v = {change.new}"
    slider.observe(show, names="value")
    return _ipw.VBox([slider, text, image] if with_image else [slider, text])
"""
)

GRIDS = """\
from lnlib import training_widgets
grids = {
    "MLP": training.sweep("mlp", ("layer", "none"), (3e-3, 1e-2, 3e-2, 1e-1), steps=100),
    "Transformer": training.sweep("transformer", ("post", "pre"), (1e-3, 3e-3, 1e-2), (0, 50), steps=100, depth=2),
}
training_widgets.TrainingExplorer(grids, model="Transformer")"""

LM = """\
try:  # an older checkout has no LMExplorer
    from lnlib import lm_explorer
    _w = lm_explorer.LMExplorer()
except ImportError:
    _w = None
_w"""

# (name, the cell that shows it): the course's explorers as the notebooks open them, then the floor
CASES = [
    ("floor: HTML", "trivial(with_image=False)"),
    ("floor: HTML + PNG", "trivial(with_image=True)"),
    ("VectorExplorer", 'widgets.VectorExplorer("2, 4, 6, 8", eps=1e-5)'),
    ("EpsilonExplorer", 'widgets.EpsilonExplorer("3, 3.002, 2.998, 3", eps=1e-5)'),
    ("ScaleShiftExplorer", 'widgets.ScaleShiftExplorer("2, 4, 6, 8", scale=1.0, shift=0.0)'),
    ("AxisExplorer", "widgets.AxisExplorer()"),
    ("GammaBetaExplorer", "widgets.GammaBetaExplorer()"),
    ("BatchExplorer", "widgets.BatchExplorer(1.0)"),
    ("DepthExplorer", "widgets.DepthExplorer(12)"),
    ("SoftmaxExplorer", "widgets.SoftmaxExplorer(1.0)"),
    ("VarianceExplorer", 'widgets.VarianceExplorer(exponent=4, dtype="float32")'),
    ("TrainingExplorer", GRIDS),
    ("TrainingExplorer: 归一化", "_"),  # the same explorer's checkboxes, clicked in turn (KINDS)
    ("LMExplorer", LM),
]
KINDS = {"TrainingExplorer: 归一化": "checkbox"}  # a case pressing another kind of control than the first slider


def notebook(kernel: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": kernel, "display_name": kernel}})
    nb.cells = [nbformat.v4.new_code_cell(SETUP)]
    nb.cells += [nbformat.v4.new_code_cell(code) for _, code in CASES]  # "_": the cell above shown again
    nb.cells.append(nbformat.v4.new_code_cell("_ln_dump()"))
    return nb


def kernelspec(base: Path, name: str, lnlib_root: Path) -> None:
    folder = base / "jupyter" / "data" / "kernels" / name
    folder.mkdir(parents=True, exist_ok=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": name,
        "language": "python",
        "env": {"PYTHONPATH": str(lnlib_root)},
    }
    (folder / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")


# --- the page side -------------------------------------------------------------------------------------------------

# Before JupyterLab loads: every websocket message in and out, and every MutationObserver callback, timed (epoch ms).
INIT = r"""(() => {
  const T = window.__lnT = {on: false, ws: [], mo: []};
  const now = () => performance.timeOrigin + performance.now();
  const size = (d) => typeof d === 'string' ? d.length : (d && (d.byteLength || d.size)) || 0;
  const MO = window.MutationObserver;
  window.MutationObserver = class extends MO {
    constructor(callback) {
      const box = {tag: 'other'};
      super((records, observer) => {
        if (!T.on) return callback(records, observer);
        const t0 = now();
        try { return callback(records, observer); } finally { T.mo.push([box.tag, t0, now() - t0]); }
      });
      this.__lnBox = box;
    }
    observe(target, options) {
      if (options && options.attributeFilter && options.attributeFilter.includes('title')) this.__lnBox.tag = 'alt';
      if (options && options.__ln) this.__lnBox.tag = 'probe';
      return super.observe(target, options);
    }
  };
  const WS = window.WebSocket;
  window.WebSocket = class extends WS {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => { if (T.on) T.ws.push(['in', now(), size(e.data)]); });
    }
    send(data) { if (T.on) T.ws.push(['out', now(), size(data)]); return super.send(data); }
  };
})();"""

# Per press: when an <img> of the explorer got its new src and when it loaded; the timing arrays emptied.
TRACK = """([root]) => {
  const T = window.__lnT;
  T.ws = []; T.mo = []; T.src = []; T.load = []; T.on = true;
  const now = () => performance.timeOrigin + performance.now();
  if (T.obs) T.obs.disconnect();
  if (T.root) T.root.removeEventListener('load', T.onload, true);
  T.obs = new MutationObserver((records) => {
    for (const r of records) if (r.target.tagName === 'IMG') T.src.push(now());
  });
  T.obs.observe(root, {subtree: true, attributes: true, attributeFilter: ['src'], __ln: true});
  T.onload = () => T.load.push(now());
  T.root = root;
  root.addEventListener('load', T.onload, true);
  return true;
}"""

COLLECT = """() => {
  const T = window.__lnT, p = window.__lnProbe;
  T.on = false;
  const before = p.inputs.filter(t => t <= p.t1);
  return {t_in: before.length ? performance.timeOrigin + before[before.length - 1] : null,
          t_paint: p.t1 === null ? null : performance.timeOrigin + p.t1,
          ws: T.ws, mo: T.mo, src: T.src, load: T.load};
}"""

# Run code in the notebook's kernel and return its stdout (the kernel's timings, at the end).
KERNEL_OUTPUT = """async (code) => {
  const kernel = window.__lnNb.sessionContext.session.kernel;
  let out = '';
  const future = kernel.requestExecute({code, silent: false, store_history: false});
  future.onIOPub = (msg) => { if (msg.header.msg_type === 'stream') out += msg.content.text; };
  await future.done;
  return out;
}"""

OPEN_AS = """async ([path, name]) => {
  const app = window.jupyterapp;
  const panel = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
  window.__lnNbs = window.__lnNbs || {};
  window.__lnNbs[name] = panel;
  window.__lnNb = panel;
  return panel.id;
}"""

SELECT = """(name) => {
  const panel = window.__lnNbs[name];
  window.jupyterapp.shell.activateById(panel.id);
  window.__lnNb = panel;
  return true;
}"""


def run_notebook(page, path: str, name: str) -> str:
    panel = page.evaluate(OPEN_AS, [path, name])
    page.wait_for_function(js.KERNEL_IDLE, timeout=300_000)
    page.evaluate(js.RUN_ALL)
    page.wait_for_function(js.SETTLED, timeout=600_000, polling=200)
    return panel


CLICKED: dict[tuple[str, int], int] = {}  # checkboxes clicked so far per (panel, cell): the next one in turn


def controls_of(page, root, kind=None, turn=0):
    found = page.evaluate(js.CONTROLS, [root, js.CONTROL_SELECTORS])
    if kind == "checkbox":  # the boxes in turn, skipping the disabled one (the last ticked)
        boxes = [c for c in found if c["kind"] == "checkbox"]
        ready = [c for c in boxes[turn % len(boxes) :] + boxes[: turn % len(boxes)] if not c["disabled"]]
        return ready[0] if ready else None
    sliders = [c for c in found if c["kind"] == "slider" and not c["disabled"]]
    if sliders:
        return sliders[0]
    toggles = [c for c in found if c["kind"] == "toggle" and len(c["options"]) > 1]
    return toggles[0] if toggles else None


def press(page, panel: str, cell: int, kind: str | None = None) -> dict | None:
    """One step of the widget in `cell`: its first slider (turning at either end) or first toggle group, or with
    kind="checkbox" its checkboxes in turn."""
    root_loc = page.locator(f'[id="{panel}"] [data-ln-cell="{cell}"] .jp-OutputArea-output > .jupyter-widgets').first
    if root_loc.count() == 0:
        return None
    root = root_loc.element_handle()
    page.wait_for_function(js.QUIET, arg=[root, 150], timeout=120_000, polling=50)
    turn = CLICKED.get((panel, cell), 0)
    control = controls_of(page, root, kind, turn)
    if control is None:
        return None
    page.evaluate(js.ARM, [root, {"expect": [], "expect_re": [], "absent": [], "changed": ["any"], "unchanged": []}])
    page.evaluate(TRACK, [root])
    container = root_loc.locator(js.CONTROL_SELECTORS[control["kind"]]).nth(control["index"])
    if control["kind"] == "checkbox":
        CLICKED[(panel, cell)] = turn + 1
        container.locator("input[type=checkbox]").click()
    elif control["kind"] == "slider":
        container.locator(".noUi-handle").first.focus()
        page.keyboard.press("ArrowLeft" if control["at_max"] else "ArrowRight")
    else:
        options = control["options"]
        container.get_by_role("button", name=options[(control["active"] + 1) % len(options)], exact=True).click()
    page.wait_for_function(js.PROBE_DONE, timeout=120_000)
    result = page.evaluate(COLLECT)
    page.evaluate(js.PROBE_RESULT)
    return result


def split(press: dict, kernel: list) -> dict | None:
    """The parts of one press (ms) from the page's timeline and the kernel's records."""
    t_in, t_paint = press["t_in"], press["t_paint"]
    if t_in is None or t_paint is None:
        return None
    outs = [t for kind, t, _ in press["ws"] if kind == "out" and t >= t_in - 1]
    if not outs:
        return None
    t_out = outs[0]
    handled = [r for r in kernel if r[0] == "kernel" and t_out - 5 <= r[1] <= t_paint]
    if not handled:
        return None
    k0 = handled[0][1]
    k1 = max(r[1] + r[2] for r in handled)
    inside = [r for r in kernel if k0 <= r[1] <= k1 and r[0] != "kernel"]
    part = {name: sum(r[2] for r in inside if r[0] == name) for name in ("draw", "encode", "alt", "sync")}
    part["draw"] -= part["encode"]
    busy = sum(r[2] for r in handled)
    syncs = [r for r in inside if r[0] == "sync"]
    last_send = max((r[1] + r[2] for r in syncs), default=k1)
    ins = [t for kind, t, _ in press["ws"] if kind == "in" and last_send - 5 <= t <= t_paint]
    arrival = ins[-1] if ins else last_send
    prefetch = sum(max(0.0, min(r[1] + r[2], k0) - max(r[1], t_out)) for r in kernel if r[0] == "prefetch")
    mo = press["mo"]
    seen = {}
    for r in kernel:
        if t_in <= r[1] <= t_paint or (r[0] == "prefetch" and r[1] <= t_in <= r[1] + r[2]):
            seen[r[0]] = seen.get(r[0], 0.0) + r[2]
    return {
        "kernel parts": seen,
        "t": {
            "in": 0,
            "out": t_out - t_in,
            "k0": k0 - t_in,
            "k1": k1 - t_in,
            "sent": last_send - t_in,
            "arrival": arrival - t_in,
            "src": [t - t_in for t in press["src"]],
            "load": [t - t_in for t in press["load"]],
            "paint": t_paint - t_in,
            "ws": [(k, round(t - t_in, 1), n) for k, t, n in press["ws"]],
        },
        "total": t_paint - t_in,
        "browser in": t_out - t_in,
        "to kernel": k0 - t_out,
        "prefetch": prefetch,
        "compute": busy - sum(part.values()),
        **part,
        "msgs": len(syncs),
        "KB": sum(r[3] for r in syncs) / 1e3,
        "to page": max(0.0, arrival - last_send),
        "page": t_paint - arrival,
        "alt obs": sum(d for tag, t, d in mo if tag == "alt" and t_in <= t <= t_paint),
        "other obs": sum(d for tag, t, d in mo if tag == "other" and t_in <= t <= t_paint),
    }


COLUMNS = [
    "total",
    "browser in",
    "to kernel",
    "prefetch",
    "compute",
    "draw",
    "encode",
    "alt",
    "sync",
    "msgs",
    "KB",
    "to page",
    "page",
    "alt obs",
    "other obs",
]


def summarize(rows: list[dict]) -> dict:
    out = {"n": len(rows)}
    for col in COLUMNS:
        values = [r[col] for r in rows]
        out[col] = statistics.median(values) if values else float("nan")
    totals = sorted(r["total"] for r in rows)
    out["p95"] = statistics.quantiles(totals, n=20, method="inclusive")[18] if len(totals) > 1 else totals[0]
    return out


def table(results: dict) -> str:
    head = "| 控件 | n | 中位数 ms | p95 ms | " + " | ".join(COLUMNS[1:]) + " |"
    lines = [head, "|" + " --- |" * 2 + " ---: |" * (len(COLUMNS) + 1)]
    for label, s in results.items():
        cells = []
        for col in COLUMNS[1:]:
            v = s[col]
            cells.append(f"{v:.0f}" if col == "msgs" else f"{v:.1f}")
        lines.append(f"| {label} | {s['n']} | {s['total']:.0f} | {s['p95']:.0f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--presses", type=int, default=4, help="presses per widget and round")
    parser.add_argument("--compare", type=Path, help="a second checkout whose lnlib runs alongside (e.g. /tmp/old)")
    parser.add_argument("--only", nargs="*", help="names of the cases to run (default: all)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    trees = {"now": ROOT}
    if args.compare:
        trees["compare"] = args.compare.resolve()
    base = Path(tempfile.mkdtemp(prefix="lnlib-split-"))
    source = base / "source"
    source.mkdir()
    for name, tree in trees.items():
        kernelspec(base, f"lnlib-{name}", tree)
        nbformat.write(notebook(f"lnlib-{name}"), source / f"split-{name}.ipynb")
    wanted = [i for i, (n, _) in enumerate(CASES) if not args.only or n in args.only]
    samples: dict[tuple[str, str], list[dict]] = {}
    raw: dict[str, list] = {name: [] for name in trees}
    server = LabServer.start(base, source)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, env=server.env)
            page = browser.new_page(viewport={"width": 1280, "height": 2400})
            page.add_init_script(INIT)
            page.goto(f"{server.url}/lab?reset&token={server.token}", timeout=180_000)
            page.wait_for_function("() => !!window.jupyterapp", timeout=180_000)
            page.evaluate("() => window.jupyterapp.restored.then(() => true)")
            panels = {}
            for name in trees:
                t = time.monotonic()
                panels[name] = run_notebook(page, f"split-{name}.ipynb", name)
                print(f"{name}: notebook run in {time.monotonic() - t:.1f} s", flush=True)
            time.sleep(1.0)
            for r in range(args.rounds):
                for name in trees:
                    page.evaluate(SELECT, name)
                    page.evaluate(js.SCROLL_TOP)
                    time.sleep(0.3)
                    for i in wanted:
                        cell = i + 1
                        loc = page.locator(f'[id="{panels[name]}"] [data-ln-cell="{cell}"]').first
                        loc.scroll_into_view_if_needed()
                        for _ in range(args.presses):
                            result = press(page, panels[name], cell, KINDS.get(CASES[i][0]))
                            if result is not None:
                                raw[name].append((CASES[i][0], result))
                    kernel = json.loads(page.evaluate(KERNEL_OUTPUT, "_ln_dump()") or "[]")
                    for case, result in raw[name]:
                        parts = split(result, kernel)
                        if parts is not None:
                            samples.setdefault((name, case), []).append(parts)
                    raw[name] = []
                print(f"round {r + 1}/{args.rounds} done", flush=True)
            browser.close()
    finally:
        server.shutdown_all_kernels()
        server.stop()
        shutil.rmtree(base, ignore_errors=True)
    results = {}
    for i in wanted:
        for name in trees:
            rows = samples.get((name, CASES[i][0]))
            if rows:
                label = CASES[i][0] if len(trees) == 1 else f"{CASES[i][0]} ({name})"
                results[label] = summarize(rows)
    print(table(results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        detail = {f"{case} ({name})": rows for (name, case), rows in samples.items()}
        args.json.write_text(
            json.dumps({"summary": results, "presses": detail}, ensure_ascii=False, indent=1), encoding="utf-8"
        )
    if args.write_docs:
        from benchmarks.report import write_section

        write_section(
            "explorer_split",
            "一次探索器交互的时间花在哪里（bench_explorer_split）",
            DOC_INTRO + "\n\n" + table(results),
            "python -m benchmarks.bench_explorer_split " + " ".join(argv or sys.argv[1:]),
        )
    return 0


DOC_INTRO = """\
每个探索器的第一个滑块（没有滑块时是第一组按钮）在真实的 JupyterLab + Chromium 里一步一步地按，每次都是新值，
和 `bench_widget_floor` 的两个几乎什么都不算的小部件（floor）轮流测，所以机器忙时它们一起变慢。
每一次按键按同一个时钟拆成几段（毫秒，各段取中位数，所以各段之和不一定等于总数）：
browser in = 按键到消息离开页面；to kernel = 到内核开始处理
（其中 prefetch = 内核正在提前画下一步、让这条消息等着的时间）；
compute = 内核里的计算和表格；draw = 重画变了的部分；encode = PNG 编码；alt = 替代文字；
sync = ipywidgets 发出状态消息（msgs 条，共 KB 千字节）；to page = 最后一条消息到达页面；
page = 页面应用状态、解码图片、排版、绘制；
alt obs / other obs = 其中花在替代文字扩展的 MutationObserver 和其他 observer 里的时间。"""


if __name__ == "__main__":
    raise SystemExit(main())
