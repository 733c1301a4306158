"""The geometric view of notebook 05: every x̂ (ε = 0) lies on the sphere of radius √d inside the hyperplane
orthogonal to 1 = (1, …, 1). For d = 3 that set is a circle, drawn here in 3-D.

Returns a `Figure` (not registered with pyplot), like `lnlib.plots`; call `lnlib.plots.use_cjk_font()` first.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .figure_kit import COLORS, GUIDE, INK, new_figure
from .i18n import message
from .labels import dim_label, vector_text
from .stages import normalize

__all__ = ["circle_of_xhat", "sphere_view"]

_XHAT = r"$\hat{x}$"


def circle_of_xhat(num: int = 200) -> np.ndarray:
    """`num` points (num, 3) of the circle {x̂ ∈ R³ : Σx̂ = 0, ‖x̂‖ = √3}, the image of LayerNorm for d = 3."""
    if isinstance(num, bool) or not isinstance(num, int | np.integer) or num < 3:
        raise ValueError(f"num: expected an int ≥ 3, got {num!r}")
    u = np.array([1.0, -1.0, 0.0]) / np.sqrt(2.0)
    v = np.array([1.0, 1.0, -2.0]) / np.sqrt(6.0)
    t = np.linspace(0.0, 2.0 * np.pi, int(num))
    return np.sqrt(3.0) * (np.cos(t)[:, None] * u + np.sin(t)[:, None] * v)


def sphere_view(inputs=None, *, seed: int = 0) -> Figure:
    """3-D picture for d = 3: input vectors (grey triangles), their x̂ (orange dots) on the circle (black) of radius √3
    in the plane Σ = 0.

        inputs: an (n, 3) array of rows to normalize (ε = 0); default: 6 random rows with a shared offset of 1.5.
    """
    if inputs is None:
        rng = np.random.default_rng(seed)
        inputs = rng.normal(size=(6, 3)) + 1.5
    x = np.asarray(inputs, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != 3:
        raise ValueError(f"inputs: expected shape (n, 3), got {x.shape}")
    if not np.all(np.isfinite(x)) or np.any(np.ptp(x, axis=1) == 0):
        raise ValueError("inputs: expected finite rows that are not constant (a constant row has no x̂ for ε = 0)")
    xhat = normalize(x, eps=0.0)
    pairs = message("figures.sep.clause").join(
        f"{vector_text(row)} → {vector_text(img)}" for row, img in zip(x, xhat, strict=True)
    )
    alt = message("figures.geometry.alt", count=x.shape[0], pairs=pairs)
    fig = new_figure((7.2, 6.0), alt)
    ax = fig.add_subplot(projection="3d")
    # the plane x₁ + x₂ + x₃ = 0, as a translucent disk of radius 2.4
    r, t = np.meshgrid(np.linspace(0, 2.4, 8), np.linspace(0, 2 * np.pi, 48))
    u = np.array([1.0, -1.0, 0.0]) / np.sqrt(2.0)
    v = np.array([1.0, 1.0, -2.0]) / np.sqrt(6.0)
    px, py, pz = (r * np.cos(t) * u[i] + r * np.sin(t) * v[i] for i in range(3))
    ax.plot_surface(px, py, pz, color="#bfdbfe", alpha=0.25, linewidth=0, shade=False)
    circle = circle_of_xhat()
    circle_label = message(
        "figures.geometry.circle",
        xhat=_XHAT,
        plane=r"$\hat{x}_1+\hat{x}_2+\hat{x}_3 = 0$",
        norm=r"$\|\hat{x}\| = \sqrt{3}$",
    )
    # the circle in black, not in the x̂ orange: the dots on it must stay apart from it (tests/test_figure_access.py)
    ax.plot(*circle.T, color=INK, linewidth=2.0, label=circle_label)
    ax.quiver(0, 0, 0, 1.6, 1.6, 1.6, color=GUIDE, arrow_length_ratio=0.12, linewidth=1.5)
    ax.text(1.7, 1.7, 1.85, message("figures.geometry.direction"), color=INK)
    for row, img in zip(x, xhat, strict=True):
        ax.plot(*np.stack([row, img]).T, color=GUIDE, linestyle="--", linewidth=0.9, gid="guide")
    ax.scatter(*x.T, color="#64748b", marker="^", s=34, depthshade=False, label=message("figures.geometry.inputs"))
    xhat_label = message("figures.geometry.xhat", xhat=_XHAT)
    ax.scatter(*xhat.T, color=COLORS["normalized"], edgecolor="black", s=40, depthshade=False, label=xhat_label)
    lim = 3.2
    ax.set(
        xlim=(-lim, lim),
        ylim=(-lim, lim),
        zlim=(-lim, lim),
        xlabel=dim_label(1),
        ylabel=dim_label(2),
        zlabel=dim_label(3),
    )
    ax.set_box_aspect((1, 1, 1))
    ax.view_init(elev=30, azim=10)
    ax.set_title(message("figures.geometry.title"))
    ax.legend(loc="upper left", fontsize=9)
    return fig
