"""How long does one explorer interaction take in the kernel? Live figures versus drawing a new figure.

    .venv/bin/python -m benchmarks.bench_explorers [--repeat 9] [--json build/bench_explorers.json]

For every explorer control, the control is moved to a new value (never one seen before, so no cached frame is
reused) and the time until the explorer's tables and PNG are ready is measured: that is what the kernel adds to
the latency a learner sees in the browser. In the same run, interleaved, the same state is rendered the way the
explorers did before issue 16 — a new `lnlib.plots` figure per change, constrained layout, `plots.to_png`
(`bbox_inches="tight"`, default PNG compression) — so the ratio holds on a busy machine too, where the absolute
times do not. `import lnlib.widgets` is timed in a fresh process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lnlib import groups, invariance, numerics, pitfalls, plots, tables, training, training_widgets, widgets
from lnlib.stages import layer_norm_steps
from lnlib.training_plots import explorer_figure, select
from lnlib.training_widgets import summary_html
from lnlib.transformer import attention_at_scale, entropy


def old_vector(e):
    steps = layer_norm_steps(e.values, eps=float(e.eps.value))
    return tables.stage_table(steps).to_html(), plots.to_png(plots.stage_bars(steps))


def old_axis(e):
    stats = groups.group_stats(e.matrix, e.mode.value)
    sel = groups.selection(e.matrix, e.mode.value, e.index.value)
    return tables.axis_stats_table(stats, tokens=e.tokens).to_html(), plots.to_png(plots.highlight_heatmap(sel))


def old_epsilon(e):
    effect = pitfalls.epsilon_effect(e.values, float(e.eps.value))
    html = tables.epsilon_summary(effect).to_html() + tables.stage_table(effect.steps).to_html()
    return html, plots.to_png(plots.epsilon_plot(effect))


def old_scale_shift(e):
    r = invariance.scale_shift(e.values, float(e.scale.value), float(e.shift.value), e.eps)
    return tables.scale_shift_table(r).to_html(), plots.to_png(
        plots.scale_shift_bars(r, ylim=e.picture.handle.ylim(e.values))
    )


def old_gamma_beta(e):
    y = layer_norm_steps(e.matrix, e.gamma, e.beta, eps=e.eps).output
    html = tables.token_table(y, e.tokens).to_html() + tables.row_stats_table(groups.group_stats(y), e.tokens).to_html()
    return html, plots.to_png(plots.value_heatmap(y, e.tokens, title=r"输出 $y=\gamma\odot\hat{x}+\beta$", limit=7.5))


def old_softmax(e):
    w = attention_at_scale(e.matrix, float(e.scale.value))
    h = entropy(w)
    html = tables.stats_table(e.tokens, {"最大权重": w.max(axis=1), "熵 (nats)": h}).to_html()
    return html, plots.to_png(plots.attention_panel(w, e.tokens, entropy=h))


def old_depth(e):
    series = e.series(e.depth.value)  # the computation is cached in both paths: only the drawing is compared
    fig = plots.depth_lines(series, xlabel="第几层（1 = 靠近输入）", ylabel=r"$\|\partial L/\partial W_2\|_F$")
    return tables.gradient_table(series).to_html(), plots.to_png(fig)


def old_variance(e):
    return tables.variance_table(numerics.variance_methods(10.0**e.exponent.value, e.dtype.value)).to_html(), b""


def old_batch(e):
    bn, ln = invariance.batch_dependence(e.scale.value, e.matrix)
    return tables.token_table(bn, e.tokens).to_html() + tables.token_table(ln, e.tokens).to_html(), b""


def old_vector_text(e):
    return old_vector(e)  # before issue 16 every text change built a new figure, as the old render does


def old_training(e):
    model, variants, lr, warmup = e.state()
    return summary_html(select(e.grids[model], variants, lr, warmup)), plots.to_png(
        explorer_figure(e.grids[model], variants, lr, warmup)
    )


def training_explorer():
    """A grid like notebook 15's transformer grid, trained once (a few steps: the drawing is what is timed)."""
    grid = training.sweep("transformer", ("post", "pre"), (1e-3, 3e-3, 1e-2, 3e-2), (0, 50), steps=200, depth=2)
    return training_widgets.TrainingExplorer({"Transformer": grid}, ready=False)


def log_steps(start_exp, step, n):
    return [10.0 ** (start_exp + step * (i + 1)) for i in range(n)]


# name, control label, explorer factory, control getter, values (all different from the start), old render
CASES = [
    ("VectorExplorer", "ε", widgets.VectorExplorer, lambda e: e.eps, lambda n: log_steps(-8, 0.5, n), old_vector),
    ("AxisExplorer", "哪一个", widgets.AxisExplorer, lambda e: e.index, lambda n: [0, 1] * n, old_axis),
    (
        "AxisExplorer",
        "统计方向",
        widgets.AxisExplorer,
        lambda e: e.mode,
        lambda n: ["column", "all", "row"] * n,
        old_axis,
    ),
    ("EpsilonExplorer", "ε", widgets.EpsilonExplorer, lambda e: e.eps, lambda n: log_steps(-8, 0.25, n), old_epsilon),
    (
        "ScaleShiftExplorer",
        "缩放 a",
        widgets.ScaleShiftExplorer,
        lambda e: e.scale,
        lambda n: log_steps(-1, 0.05, n),
        old_scale_shift,
    ),
    (
        "ScaleShiftExplorer",
        "平移 b",
        widgets.ScaleShiftExplorer,
        lambda e: e.shift,
        lambda n: [float(i + 1) for i in range(n)],
        old_scale_shift,
    ),
    (
        "GammaBetaExplorer",
        "γ 第 1 维",
        widgets.GammaBetaExplorer,
        lambda e: e.gammas[0],
        lambda n: [round(1.0 + 0.1 * (i + 1), 1) for i in range(n)],
        old_gamma_beta,
    ),
    (
        "GammaBetaExplorer",
        "β 第 1 维",
        widgets.GammaBetaExplorer,
        lambda e: e.betas[0],
        lambda n: [round(0.1 * (i + 1), 1) for i in range(n)],
        old_gamma_beta,
    ),
    (
        "SoftmaxExplorer",
        "放大倍数",
        widgets.SoftmaxExplorer,
        lambda e: e.scale,
        lambda n: log_steps(0, 0.05, n),
        old_softmax,
    ),
    (
        "DepthExplorer",
        "层数 L",
        lambda: widgets.DepthExplorer(6),
        lambda e: e.depth,
        lambda n: [7 + i % 12 for i in range(n)],
        old_depth,
    ),
    (
        "VectorExplorer",
        "向量 x（同长）",
        widgets.VectorExplorer,
        lambda e: e.text,
        lambda n: [f"{i + 2}, {i + 4}, {i + 6}, {i + 9}" for i in range(n)],
        old_vector_text,
    ),
    (
        "TrainingExplorer",
        "学习率",
        training_explorer,
        lambda e: e.lr,
        lambda n: [1e-3, 1e-2, 3e-2, 3e-3] * n,
        old_training,
    ),
    (
        "VarianceExplorer",
        "k",
        widgets.VarianceExplorer,
        lambda e: e.exponent,
        lambda n: [(5 + i) % 9 for i in range(n)],
        old_variance,
    ),
    (
        "BatchExplorer",
        "另一句 ×",
        widgets.BatchExplorer,
        lambda e: e.scale,
        lambda n: [0.5 * (i + 3) for i in range(n)],
        old_batch,
    ),
]


def measure(repeat: int) -> list[dict]:
    rows = []
    for name, label, make, control, values, old in CASES:
        explorer = make()
        if name == "DepthExplorer":  # the gradients are computed once per depth in both paths
            for d in set(values(repeat)):
                explorer.series(d)
        new_times, old_times = [], []
        for value in values(repeat):
            start = time.perf_counter()
            control(explorer).value = value
            new_times.append(time.perf_counter() - start)
            if name in ("AxisExplorer", "DepthExplorer", "TrainingExplorer"):
                explorer.forget_views()  # few states: count drawing, not the kept frames
            start = time.perf_counter()
            old(explorer)
            old_times.append(time.perf_counter() - start)
        new, before = statistics.median(new_times) * 1e3, statistics.median(old_times) * 1e3
        rows.append(
            {
                "explorer": name,
                "control": label,
                "before_ms": round(before, 1),
                "after_ms": round(new, 1),
                "speedup": round(before / new, 1),
            }
        )
    return rows


def import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import lnlib.widgets; print(time.perf_counter() - t)"
    env = dict(os.environ)  # lnlib is installed in the environment (make)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = measure(args.repeat)
    print(f"{'explorer':20s} {'control':10s} {'before ms':>10s} {'after ms':>9s} {'speed-up':>8s}")
    for r in rows:
        print(
            f"{r['explorer']:20s} {r['control']:10s} {r['before_ms']:10.1f} {r['after_ms']:9.1f} {r['speedup']:7.1f}×"
        )
    seconds = import_seconds()
    print(f"import lnlib.widgets: {seconds:.2f} s (fresh process)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps({"interactions": rows, "import_s": round(seconds, 2)}, ensure_ascii=False, indent=2) + "\n",
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
