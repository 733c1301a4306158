"""Notebook 10: the figure of `attention_scaling.scaling_study` (variance of q·k and softmax entropy against d)."""

from __future__ import annotations

from matplotlib.figure import Figure

from .attention_scaling import ScalingStudy
from .plots import use_cjk_font

RAW, SCALED = "#dc2626", "#2563eb"


def scaling_figure(study: ScalingStudy) -> Figure:
    """Left: var(q·k) and var(q·k/√d) against d, with the line var = d. Right: mean softmax entropy with and
    without the division, with the uniform entropy ln(n_keys) for reference."""
    use_cjk_font()
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    d = study.dims
    left.plot(d, d, color="#94a3b8", linestyle=":", label="方差 = d")
    left.plot(d, study.var_raw, "o-", color=RAW, label=r"$q\cdot k$")
    left.plot(d, study.var_scaled, "s-", color=SCALED, label=r"$q\cdot k/\sqrt{d}$")
    left.set_xscale("log", base=2)
    left.set_yscale("log", base=2)
    left.set_xlabel("维度 d（对数刻度）")
    left.set_ylabel("方差（对数刻度）")
    left.set_title("点积的方差")
    left.legend(fontsize=9)
    right.axhline(
        study.uniform_entropy,
        color="#94a3b8",
        linestyle=":",
        label=f"均匀分给 {study.n_keys} 个 key：ln {study.n_keys} ≈ {study.uniform_entropy:.2f}",
    )
    right.plot(d, study.entropy_raw, "o-", color=RAW, label=r"softmax($q\cdot k$)")
    right.plot(d, study.entropy_scaled, "s-", color=SCALED, label=r"softmax($q\cdot k/\sqrt{d}$)")
    right.set_xscale("log", base=2)
    right.set_ylim(0, study.uniform_entropy * 1.12)
    right.set_xlabel("维度 d（对数刻度）")
    right.set_ylabel("熵的平均值（nats）")
    right.set_title(f"每个 query 对 {study.n_keys} 个 key 的注意力熵")
    right.legend(fontsize=9, loc="center right")
    return fig
