"""Notebook 10: the figure of `attention_scaling.scaling_study` (variance of q·k and softmax entropy against d)."""

from __future__ import annotations

from matplotlib.figure import Figure

from .attention_scaling import ScalingStudy
from .figure_kit import GUIDE, OKABE_ITO, new_figure, use_cjk_font
from .i18n import message
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
    alt = message(
        "figures.scaling.alt",
        dims=vector_text(d),
        var_raw=_sig(study.var_raw),
        var_scaled=_sig(study.var_scaled),
        keys=study.n_keys,
        entropy_raw=_sig(study.entropy_raw),
        entropy_scaled=_sig(study.entropy_scaled),
        uniform=f"{study.uniform_entropy:.3g}",
    )
    fig = new_figure((10, 3.8), alt)
    left, right = fig.subplots(1, 2)
    left.plot(d, d, color=GUIDE, linestyle=":", label=message("figures.scaling.var_is_d"), gid="guide")
    left.plot(d, study.var_raw, "o-", color=RAW, label=r"$q\cdot k$")
    left.plot(d, study.var_scaled, "s-", color=SCALED, label=r"$q\cdot k/\sqrt{d}$")
    left.set_xscale("log", base=2)
    left.set_yscale("log", base=2)
    left.set_xlabel(message("figures.scaling.dim_axis"))
    left.set_ylabel(message("figures.scaling.var_axis"))
    left.set_title(message("figures.scaling.var_title"))
    left.legend(fontsize=9)
    right.axhline(
        study.uniform_entropy,
        color=GUIDE,
        linestyle=":",
        gid="guide",
        label=message("figures.scaling.uniform", keys=study.n_keys, uniform=f"{study.uniform_entropy:.2f}"),
    )
    right.plot(d, study.entropy_raw, "o-", color=RAW, label=r"softmax($q\cdot k$)")
    right.plot(d, study.entropy_scaled, "s-", color=SCALED, label=r"softmax($q\cdot k/\sqrt{d}$)")
    right.set_xscale("log", base=2)
    right.set_ylim(0, study.uniform_entropy * 1.12)
    right.set_xlabel(message("figures.scaling.dim_axis"))
    right.set_ylabel(message("figures.scaling.entropy_axis"))
    right.set_title(message("figures.scaling.entropy_title", keys=study.n_keys))
    right.legend(fontsize=9, loc="center right")
    return fig
