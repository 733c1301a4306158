"""Notebook 10: the figure of `attention_scaling.scaling_study` (variance of q·k and softmax entropy against d)."""

from __future__ import annotations

from matplotlib.figure import Figure

from .attention_scaling import ScalingStudy
from .figure_kit import GUIDE, OKABE_ITO, new_figure, use_cjk_font
from .labels import vector_text

RAW, SCALED = OKABE_ITO["vermillion"], OKABE_ITO["blue"]  # ≥ 20 CIEDE2000 apart with deuteranopia and protanopia


def _sig(values) -> str:
    return "[" + ", ".join(f"{v:.3g}" for v in values) + "]"


def scaling_figure(study: ScalingStudy) -> Figure:
    """Left: var(q·k) and var(q·k/√d) against d, with the line var = d. Right: mean softmax entropy with and
    without the division, with the uniform entropy ln(n_keys) for reference."""
    if not isinstance(study, ScalingStudy):
        got = type(study).__name__
        raise TypeError(f"study: expected the result of lnlib.attention_scaling.scaling_study(...), got {got}")
    use_cjk_font()
    d = study.dims
    alt = (
        f"两幅折线图，横轴是对数刻度的维度 d = {vector_text(d)}。左图是点积的方差（对数刻度）："
        f"q·k 的方差 {_sig(study.var_raw)}，除以 √d 之后 q·k/√d 的方差 {_sig(study.var_scaled)}；"
        "点线是「方差 = d」。"
        f"右图是每个 query 对 {study.n_keys} 个 key 的 softmax 注意力熵的平均值："
        f"不除以 √d 时 {_sig(study.entropy_raw)}，除以 √d 时 {_sig(study.entropy_scaled)}；"
        f"点线是均匀分布的熵 ln {study.n_keys} = {study.uniform_entropy:.3g}。"
    )
    fig = new_figure((10, 3.8), alt)
    left, right = fig.subplots(1, 2)
    left.plot(d, d, color=GUIDE, linestyle=":", label="方差 = d", gid="guide")
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
        color=GUIDE,
        linestyle=":",
        gid="guide",
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
