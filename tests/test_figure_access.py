"""Figures everyone can read: alt text from the data, series that stay apart under colour-vision deficiency,
text with enough contrast (issue 15.4, 15.5).

Colour-vision deficiency is simulated with the matrices of Machado, Oliveira & Fernandes (2009, severity 1.0),
applied to linear RGB; colours are then compared in CIELAB (D65) with CIEDE2000, all written out here,
independently of lnlib's own helpers.

Criterion for two data series on the same axes: under normal vision, deuteranopia and protanopia their simulated
colours differ by ΔE00 ≥ 20, AND they differ in marker or dash. Why 20: ΔE00 ≈ 2 is a just-noticeable
difference for large flat patches, but thin lines and small markers need several times more to be told apart
at a glance (Szafir 2017, "Modeling Color Difference for Visualization Design"); 20 is ten JNDs. The old
Post-LN red #dc2626 and DeepNorm green #059669 give 17.0 under deuteranopia and fail, as they should.
Text: WCAG 2.x contrast ratio ≥ 4.5:1 against what lies behind each text (a heatmap cell, a box, or white).
"""

from __future__ import annotations

import inspect
import itertools
import re

import matplotlib
import numpy as np
import pytest
from matplotlib import colors as mcolors
from matplotlib import patheffects
from matplotlib.collections import PathCollection
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon
from matplotlib.text import Annotation, Text

import lnlib
from lnlib import (
    attention_scaling,
    attention_scaling_plot,
    axes_diagrams,
    figure_kit,
    geometry_plots,
    groups,
    invariance,
    lm_plots,
    numerics,
    pitfalls,
    plots,
    tables,
    tiny_lm,
    training_map,
    training_plots,
    transformer,
)
from lnlib.training import Run, Snapshot

matplotlib.use("Agg")

X = lnlib.TOKEN_MATRIX
OFFSETS = 10.0 ** np.arange(0, 8.5, 0.5)
ROWS32 = (OFFSETS[:, None] + np.arange(4.0)).astype(np.float32)
FORMS = ("post", "pre", "none", "deepnorm")
DEPTHS = [3, 6, 12, 24]
LAST = {"post": [1.0, 0.8, 0.6, 0.5], "pre": [0.9, 0.6, 0.45, 0.3]}
FIGURE_MODULES = (plots, axes_diagrams, attention_scaling_plot, geometry_plots, training_plots, lm_plots)


def _run(steps: int, rate: float, diverged: bool = False) -> Run:
    """A training record with the shape of lnlib.training's (no training here: the figures only draw it)."""
    t = np.arange(steps, dtype=np.float64)
    losses = 1.1 * np.exp(-t / rate) + 0.02 * np.cos(t)
    if diverged:
        losses[-1] = np.nan
    return Run(losses, 2 + np.sin(t / 7), diverged, np.full(steps, 1e-2), 0.9)


def _snapshot(growth: float) -> Snapshot:
    rows = np.linspace(-1.0, 1.0, 64)[:, None] * np.linspace(0.5, 1.5, 16)
    return Snapshot(0, [np.maximum(rows, 0) * growth**i for i in range(8)], [rows / growth**i for i in range(8)])


MLP = {"none": _run(60, 200), "layer": _run(60, 20), "batch": _run(60, 15), "rms": _run(60, 25)}
XIONG = {("post", 0): _run(30, 20, True), ("post", 5): _run(60, 20), ("pre", 0): _run(60, 15), ("pre", 5): _run(60, 18)}
GRID = {(v, 1e-2, w): run for (v, w), run in XIONG.items()} | {("none", 1e-2, 0): _run(60, 100)}
BEFORE = {k: _snapshot(g) for k, g in (("none", 0.7), ("layer", 1.0), ("batch", 1.0), ("rms", 1.0))}
TINY_LM = tiny_lm.load()
AFTER = {k: _snapshot(g) for k, g in (("none", 0.8), ("layer", 1.0), ("batch", 1.0), ("rms", 1.0))}

FIGURES = {
    "stage_bars": lambda: plots.stage_bars(lnlib.layer_norm_steps([2, 4, 6, 8], eps=0)),
    "stage_bars_affine": lambda: plots.stage_bars(
        lnlib.layer_norm_steps([2, 4, 6, 8], [2, 1, 1, 1], [0.5, 0, 0, 0]), affine=True
    ),
    "token_bars": lambda: plots.token_bars(X, title="三个 token"),
    "highlight_heatmap_row": lambda: plots.highlight_heatmap(groups.selection(X, "row", 2)),
    "highlight_heatmap_column": lambda: plots.highlight_heatmap(groups.selection(X, "column", 0)),
    "highlight_heatmap_all": lambda: plots.highlight_heatmap(groups.selection(X, "all")),
    "epsilon_plot": lambda: plots.epsilon_plot(pitfalls.epsilon_effect([3, 3.002, 2.998, 3], 1e-5)),
    "scale_shift_bars": lambda: plots.scale_shift_bars(invariance.scale_shift([2, 4, 6, 8], 2.0, 3.0)),
    "value_heatmap": lambda: plots.value_heatmap(lnlib.layer_norm(X, [2, 1, 1, 0.5], [0.5, 0, 0, -1]), limit=7.5),
    "jacobian_heatmap": lambda: plots.jacobian_heatmap(lnlib.layer_norm_jacobian(np.array([2.0, 4, 6, 8]), eps=0)),
    "variance_error_plot": lambda: plots.variance_error_plot(
        OFFSETS, numerics.one_pass_variance(ROWS32), numerics.two_pass_variance(ROWS32), 1.25
    ),
    "ln_vs_bn": lambda: plots.ln_vs_bn(*invariance.row_and_column_norms(X)),
    "add_norm_diagram": lambda: plots.add_norm_diagram(),
    "depth_lines": lambda: plots.depth_lines(
        {f: transformer.residual_scales(f, 12, 64) for f in FORMS}, xlabel="层数", ylabel="均方根", start=0, logy=True
    ),
    "depth_lines_guides": lambda: plots.depth_lines(
        LAST, x=DEPTHS, xlabel="总层数 L", ylabel="梯度", guides={"1/√L": [0.9, 0.64, 0.45, 0.32]}
    ),
    "depth_lines_tex": lambda: plots.depth_lines(
        {"post": [7.2, 6.7], "pre": [4.1, 4.0]},
        xlabel="第几层（1 = 靠近输入）",
        ylabel=r"$\|\partial \mathcal{L}/\partial W_2\|_F$",
        title="6 层模型，初始化时每层 $W_2$ 的梯度",
        logy=True,
    ),
    "attention_panel": lambda: plots.attention_panel(
        w := transformer.attention_at_scale(lnlib.layer_norm(X), 4.0), lnlib.TOKENS, entropy=transformer.entropy(w)
    ),
    # the figures of the other modules, named module.function
    "axes_diagrams.norm_axes_figure": lambda: axes_diagrams.norm_axes_figure(),
    "attention_scaling_plot.scaling_figure": lambda: attention_scaling_plot.scaling_figure(
        attention_scaling.scaling_study((4, 16, 64), pairs=200, queries=20)
    ),
    "geometry_plots.sphere_view": lambda: geometry_plots.sphere_view(),
    "training_plots.loss_curves": lambda: training_plots.loss_curves(MLP, title="8 层 MLP"),
    "training_plots.loss_curves_grad": lambda: training_plots.loss_curves(XIONG, grad_norms=True),
    "training_plots.layer_scales": lambda: training_plots.layer_scales(BEFORE, AFTER),
    "training_plots.activation_histograms": lambda: training_plots.activation_histograms(BEFORE, AFTER),
    "training_plots.batch_size_plot": lambda: training_plots.batch_size_plot(
        {
            "layer": [0.95, 0.95, 0.95],
            "BatchNorm，running 统计量": [0.9, 0.9, 0.9],
            "BatchNorm，自己的统计量": [0.33, 0.8, 0.9],
        },
        (1, 4, 16),
    ),
    "training_plots.outcome_map_plot": lambda: training_plots.outcome_map_plot(training_map.stored_outcome_map()),
    "training_plots.explorer_figure": lambda: training_plots.explorer_figure(GRID, ("post", "pre", "none"), 1e-2, 0),
    "training_plots.explorer_figure_warmup": lambda: training_plots.explorer_figure(GRID, ("post", "pre"), 1e-2, 5),
    # notebook 16's figures, on the trained tiny model as the notebook draws them
    "lm_plots.sigma_by_depth": lambda: lm_plots.sigma_by_depth(
        tiny_lm.forward(TINY_LM, tiny_lm.encode(TINY_LM.config, "我吃苹果。")[None]), "我吃苹果。", TINY_LM.names
    ),
    "lm_plots.share_bars": lambda: lm_plots.share_bars(
        np.linspace(1.0, 3.0, 32) / np.linspace(1.0, 3.0, 32).sum(), "2.attn"
    ),
    "lm_plots.eps_curve": lambda: lm_plots.eps_curve([1e-6, 1e-4, 1e-2, 1.0], [1.10, 1.10, 1.19, 3.32], (0.01, 0.5)),
}


def figure_functions() -> set[str]:
    """Every public function returning a Figure in lnlib's figure modules (plots' unqualified, others module.name)."""
    return {
        name if module is plots else f"{module.__name__.rsplit('.', 1)[-1]}.{name}"
        for module in FIGURE_MODULES
        for name, f in inspect.getmembers(module, inspect.isfunction)
        if f.__module__ == module.__name__ and not name.startswith("_") and f.__annotations__.get("return") == "Figure"
    }


def test_every_figure_function_is_in_the_catalogue():
    covered = {re.sub(r"_(affine|row|column|all|guides|tex|grad|warmup)$", "", name) for name in FIGURES}
    assert figure_functions() == covered


@pytest.fixture(scope="module")
def figures():
    out = {name: make() for name, make in FIGURES.items()}
    for fig in out.values():
        fig.draw_without_rendering()  # lay out, so text positions and patch extents are final
    return out


# --- alt text --------------------------------------------------------------------------------------------

CJK = re.compile(r"[\u4e00-\u9fff]")
CJK_LATIN = re.compile(r"[\u4e00-\u9fff][A-Za-z0-9]|[A-Za-z0-9][\u4e00-\u9fff]")


@pytest.mark.parametrize("name", FIGURES)
def test_every_figure_has_chinese_alt_text(figures, name):
    text = plots.alt_text(figures[name])
    assert len(CJK.findall(text)) >= 8, text
    assert not CJK_LATIN.search(text), f"spacing rule: {CJK_LATIN.search(text).group(0)!r} in {text}"
    assert "\n" not in text and not re.search(r"[$\\{}]", text), f"plain text, no TeX: {text}"
    assert not re.search(r"（([^（）]+)）（\1）", text), f"a repeated remark: {text}"


def test_alt_text_describes_the_data():
    """The description is built from the numbers drawn, not a fixed sentence."""
    a = plots.alt_text(plots.stage_bars(lnlib.layer_norm_steps([2, 4, 6, 8], eps=0)))
    b = plots.alt_text(plots.stage_bars(lnlib.layer_norm_steps([1, 2, 3, 5], eps=0)))
    assert "[2, 4, 6, 8]" in a and "μ = 5" in a and "-1.342" in a  # x̂ of the apple row, by hand: −3/√5
    assert a != b and "[1, 2, 3, 5]" in b and "μ = 2.75" in b
    sel = plots.alt_text(plots.highlight_heatmap(groups.selection(X, "column", 0)))
    assert "[8, 20, 2]" in sel and "μ = 10" in sel  # (8 + 20 + 2) / 3


def test_alt_text_turns_tex_labels_into_plain_text():
    text = plots.alt_text(FIGURES["depth_lines_tex"]())
    assert "‖∂ℒ/∂W₂‖_F" in text and "每层 W₂ 的梯度" in text and text.count("对数刻度") == 1


def test_ipython_display_carries_the_alt_text_in_png_metadata():
    """JupyterLab and nbconvert read output.metadata["image/png"]["alt"]; the formatter must put it there."""
    pytest.importorskip("IPython")
    from IPython.core.formatters import DisplayFormatter

    formatter = DisplayFormatter()
    formatter.formatters["image/png"].for_type(Figure, figure_kit._png_with_alt)
    fig = FIGURES["stage_bars"]()
    data, metadata = formatter.format(fig)
    assert data["image/png"][:4] == b"\x89PNG"
    assert metadata["image/png"]["alt"] == plots.alt_text(fig)
    plain = Figure()
    data, metadata = formatter.format(plain)
    assert "image/png" in data and "image/png" not in metadata  # other figures: no empty alt


# --- colour vision -----------------------------------------------------------------------------------------

MACHADO = {
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
}
VISIONS = ("normal", "deuteranopia", "protanopia")
SRGB_TO_XYZ = np.array(
    [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
)
D65 = np.array([0.95047, 1.0, 1.08883])


def linear(rgb) -> np.ndarray:
    rgb = np.asarray(rgb, dtype=np.float64)
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def lab_seen(color, vision: str) -> np.ndarray:
    lin = linear(mcolors.to_rgb(color))
    if vision != "normal":
        lin = MACHADO[vision] @ lin
    xyz = SRGB_TO_XYZ @ np.clip(lin, 0, 1) / D65
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def ciede2000(lab1, lab2) -> float:
    """Sharma, Wu & Dalal (2005)."""
    (L1, a1, b1), (L2, a2, b2) = lab1, lab2
    cbar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(cbar**7 / (cbar**7 + 25.0**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p, h2p = np.degrees(np.arctan2(b1, a1p)) % 360, np.degrees(np.arctan2(b2, a2p)) % 360
    dh = 0.0 if c1p * c2p == 0 else (h2p - h1p + 180) % 360 - 180
    d_hp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    lbar, cbarp = (L1 + L2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hbar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbar = (h1p + h2p) / 2
    else:
        hbar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * np.cos(np.radians(hbar - 30))
        + 0.24 * np.cos(np.radians(2 * hbar))
        + 0.32 * np.cos(np.radians(3 * hbar + 6))
        - 0.20 * np.cos(np.radians(4 * hbar - 63))
    )
    rc = 2 * np.sqrt(cbarp**7 / (cbarp**7 + 25.0**7))
    rt = -np.sin(np.radians(60 * np.exp(-(((hbar - 275) / 25) ** 2)))) * rc
    sl = 1 + 0.015 * (lbar - 50) ** 2 / np.sqrt(20 + (lbar - 50) ** 2)
    sc, sh = 1 + 0.045 * cbarp, 1 + 0.015 * cbarp * t
    dl, dc, dhh = (L2 - L1) / sl, (c2p - c1p) / sc, d_hp / sh
    return float(np.sqrt(dl**2 + dc**2 + dhh**2 + rt * dc * dhh))


def test_ciede2000_matches_sharma_reference_pairs():
    assert ciede2000((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert ciede2000((50, 2.5, 0), (73, 25, -18)) == pytest.approx(27.1492, abs=1e-4)
    assert ciede2000((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514)) == pytest.approx(0.9082, abs=1e-4)


def test_simulation_reproduces_the_reported_collision():
    """Issue 15.5: the old Post-LN red and DeepNorm green collide under deuteranopia; the criterion catches it."""
    old_post, old_deep = "#dc2626", "#059669"
    assert ciede2000(lab_seen(old_post, "normal"), lab_seen(old_deep, "normal")) > 60
    assert ciede2000(lab_seen(old_post, "deuteranopia"), lab_seen(old_deep, "deuteranopia")) < 20


def series(ax) -> list[dict]:
    """Data series on one axes: lines (not reference guides), bar groups, step histograms and scatter clouds, with
    colour and style. Lines with gid "marker" are not series of their own: they mark a point of a series (the big ×
    where a training run diverged) in that series' colour, on purpose."""
    out = []
    for line in ax.get_lines():
        if line.get_gid() in ("guide", "marker") or not line.get_visible():
            continue
        color = line.get_markerfacecolor() if line.get_linestyle() == "None" else line.get_color()
        out.append({"color": color, "style": ("line", style_of(line)), "label": line.get_label()})
    for container in ax.containers:
        if isinstance(container, BarContainer):
            out.append({"color": container.patches[0].get_facecolor(), "style": ("bars",), "label": "bars"})
    for patch in ax.patches:  # histtype="step": an unfilled outline per series, told apart by colour and dash
        if isinstance(patch, Polygon) and not patch.get_fill():
            dashes = tuple(patch._unscaled_dash_pattern[1] or ())
            out.append({"color": patch.get_edgecolor(), "style": ("step", dashes), "label": patch.get_label()})
    for cloud in ax.collections:  # scatter: the marker is the shape of its path
        if isinstance(cloud, PathCollection) and cloud.get_paths():
            shape = tuple(np.round(cloud.get_paths()[0].vertices, 3).ravel().tolist())
            out.append({"color": cloud.get_facecolor()[0], "style": ("scatter", shape), "label": cloud.get_label()})
    return out


def style_of(line: Line2D) -> tuple:
    dashes = line._unscaled_dash_pattern  # (offset, on-off sequence) or (0, None) for solid
    linestyle = "none" if line.get_linestyle() == "None" else tuple(dashes[1] or ())
    return linestyle, str(line.get_marker())


@pytest.mark.parametrize("name", FIGURES)
def test_series_stay_apart_in_every_vision(figures, name):
    for ax in figures[name].axes:
        found = series(ax)
        guides = [style_of(line) for line in ax.get_lines() if line.get_gid() == "guide"]
        for a, b in itertools.combinations(found, 2):
            assert a["style"] != b["style"], f"{a['label']} and {b['label']} share marker and dash"
            for vision in VISIONS:
                de = ciede2000(lab_seen(a["color"], vision), lab_seen(b["color"], vision))
                assert de >= 20, f"{name}: {a['label']} vs {b['label']} under {vision}: ΔE00 = {de:.1f}"
        for s in found:
            assert s["style"][-1] not in guides, f"{name}: {s['label']} looks like a reference line"


def test_residual_forms_have_four_distinct_styles():
    styles = [plots.form_style(k) for k in FORMS]
    assert len({(s["marker"], str(s["linestyle"])) for s in styles}) == 4
    assert len({s["marker"] for s in styles}) == 4
    for a, b in itertools.combinations(styles, 2):
        for vision in VISIONS:
            assert ciede2000(lab_seen(a["color"], vision), lab_seen(b["color"], vision)) >= 20


def test_post_ln_is_drawn_above_deepnorm_where_they_coincide(figures):
    lines = {line.get_label(): line for line in figures["depth_lines"].axes[0].get_lines()}
    post, deep = lines["Post-LN"], lines["DeepNorm"]
    np.testing.assert_allclose(post.get_ydata(), deep.get_ydata(), rtol=1e-4)  # they coincide on screen
    assert post.get_zorder() > deep.get_zorder()
    assert deep.get_linewidth() >= 2 * post.get_linewidth() and post.get_linestyle() == "--"


# --- text contrast ------------------------------------------------------------------------------------------


def luminance(color) -> float:
    return float(linear(mcolors.to_rgb(color)) @ [0.2126, 0.7152, 0.0722])


def contrast(a, b) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_wcag_contrast_reference_values():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#9ca3af", "#fff7bc") == pytest.approx(2.4, abs=0.1)  # issue 12.17: grey on pale yellow
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def background(text: Text, fig: Figure):
    """The colour behind a text: the image cell or filled patch under its anchor, else the axes or figure."""
    ax = text.axes
    if ax is None or ax not in fig.axes:
        return fig.get_facecolor()
    if text.get_transform() == ax.transData and not isinstance(text, Annotation):
        x, y = text.get_position()
        for image in ax.get_images():
            left, right, bottom, top = image.get_extent()
            if min(left, right) <= x <= max(left, right) and min(bottom, top) <= y <= max(bottom, top):
                array = image.get_array()
                i, j = int(round(y)), int(round(x))
                return image.to_rgba(array)[i, j]
        anchor = ax.transData.transform((x, y))
        for patch in reversed(ax.patches):
            if patch.get_fill() and patch.get_facecolor()[3] > 0 and patch.contains_point(anchor):
                return patch.get_facecolor()
    return ax.get_facecolor()


@pytest.mark.parametrize("name", FIGURES)
def test_every_text_has_contrast_4_5(figures, name):
    fig = figures[name]
    checked = 0
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip():
            continue
        behind = background(text, fig)
        ratio = contrast(text.get_color(), mcolors.to_rgb(behind))
        assert ratio >= 4.5, f"{name}: {text.get_text()!r} {text.get_color()} on {behind}: {ratio:.2f}"
        checked += 1
    assert checked >= 5


# --- line and marker contrast -----------------------------------------------------------------------------

LINE_CONTRAST = 3.0  # WCAG 2.x, success criterion 1.4.11 (non-text contrast)


def casing_of(artist) -> tuple:
    """(colour, width) of a dark stroke drawn under the artist's path (a path effect), or (None, 0)."""
    for effect in artist.get_path_effects():
        if isinstance(effect, patheffects.Stroke):
            return effect._gc.get("foreground"), effect._gc.get("linewidth", 0)
    return None, 0


def stands_out(color, background, artist, linewidth: float) -> bool:
    """The colour reaches 3:1 on the background, or the artist is cased by a colour that does, at least 0.75 pt
    beyond the line on each side (WCAG's "contrasting border")."""
    if contrast(color, background) >= LINE_CONTRAST:
        return True
    cased, width = casing_of(artist)
    return cased is not None and contrast(cased, background) >= LINE_CONTRAST and width >= linewidth + 1.5


@pytest.mark.parametrize("name", FIGURES)
def test_every_line_and_marker_stands_out_3_to_1(figures, name):
    """Issue 41, item 3: notebook 16's yellow line was 1.32:1 on white, sky blue 2.31:1 (notebooks 09, 15, 16). Every
    line, marker, step outline and scatter point reaches 3:1 against its axes by its colour, its marker edge or a
    dark casing; the colours themselves stay Okabe–Ito (test_series_stay_apart_in_every_vision)."""
    problems = []
    for ax in figures[name].axes:
        bg = mcolors.to_rgb(ax.get_facecolor())
        for line in ax.get_lines():
            if not line.get_visible():
                continue
            if line.get_linestyle() != "None" and not stands_out(line.get_color(), bg, line, line.get_linewidth()):
                problems.append(f"line {line.get_label()!r} {mcolors.to_hex(line.get_color())}")
            if line.get_marker() in (None, "None", "", " ") or not len(line.get_xdata()):
                continue
            face, edge = line.get_markerfacecolor(), line.get_markeredgecolor()
            filled = line.get_fillstyle() != "none" and not (isinstance(face, str) and face == "none")
            ok = (filled and contrast(face, bg) >= LINE_CONTRAST) or (
                line.get_markeredgewidth() >= 0.8 and contrast(edge, bg) >= LINE_CONTRAST
            )
            if not ok and not line._marker.is_filled():  # "x", "+": strokes like a line's, a casing counts
                ok = stands_out(edge, bg, line, line.get_markeredgewidth())
            if not ok:
                problems.append(f"marker of {line.get_label()!r} {mcolors.to_hex(face)} edge {mcolors.to_hex(edge)}")
        for patch in ax.patches:
            if isinstance(patch, Polygon) and not patch.get_fill() and patch.get_visible():
                if not stands_out(patch.get_edgecolor()[:3], bg, patch, patch.get_linewidth()):
                    problems.append(f"outline {patch.get_label()!r} {mcolors.to_hex(patch.get_edgecolor())}")
        for cloud in ax.collections:
            if isinstance(cloud, PathCollection) and len(cloud.get_offsets()):
                faces, edges = cloud.get_facecolor(), cloud.get_edgecolor()
                best = max(
                    [contrast(c[:3], bg) for c in faces[:1]]
                    + [contrast(c[:3], bg) for c in edges[:1] if cloud.get_linewidths()[0] >= 0.8]
                )
                if best < LINE_CONTRAST:
                    problems.append(f"scatter {cloud.get_label()!r}: {best:.2f}:1")
    assert not problems, f"{name}: under {LINE_CONTRAST}:1 on the axes: " + "; ".join(problems)


def test_the_line_contrast_check_can_fail():
    """The check above fails an uncased sky-blue line and yellow markers, and passes them cased and edged."""
    fig = Figure()
    ax = fig.add_subplot()
    (bare,) = ax.plot([0, 1], [0, 1], color=plots.OKABE_ITO["sky_blue"], marker="o")
    (cased,) = ax.plot([0, 1], [1, 0], color=plots.OKABE_ITO["yellow"], marker="v", **plots.outlined("#F0E442"))
    assert not stands_out(bare.get_color(), (1, 1, 1), bare, bare.get_linewidth())
    assert stands_out(cased.get_color(), (1, 1, 1), cased, cased.get_linewidth())
    assert contrast(cased.get_markeredgecolor(), (1, 1, 1)) >= LINE_CONTRAST
    assert plots.outlined(plots.OKABE_ITO["blue"]) == {}  # 5.0:1 by itself: drawn as it is


def test_dimmed_cells_of_highlight_heatmap_are_readable(figures):
    """Issue 12.17: the dimmed numbers of 02.5 / 02.9 were grey on pale yellow (2.4:1)."""
    fig = figures["highlight_heatmap_row"]
    ax = fig.axes[0]
    dimmed = [t for t in ax.texts if t.get_text() in {"8", "6", "20", "40"}]
    assert dimmed
    for t in dimmed:
        assert contrast(t.get_color(), mcolors.to_rgb(background(t, fig))) >= 4.5


def test_table_highlight_sets_its_own_dark_text():
    html = tables.token_table(X, highlight=(["苹果"], ["第 1 维"])).to_html()
    rule = re.search(r"background-color: (#[0-9a-f]{6});\s*color: (#[0-9a-f]{6})", html)
    assert rule, "the highlighted cells carry an explicit text colour"
    assert contrast(rule.group(2), rule.group(1)) >= 4.5


def test_sphere_view_text_reads_on_the_translucent_plane(figures):
    """The 3-D figure: `background` sees only the white axes behind a text, but the text "方向 1" sits in front of
    the translucent plane Σx = 0 (a Poly3DCollection from plot_surface, which neither `series` nor `background`
    reads). Check every text of the 3-D axes against the plane's colour blended over white as well. The plane itself
    is a backdrop, not a data series, so it takes no part in the colour-vision check above."""
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    ax = figures["geometry_plots.sphere_view"].axes[0]
    (plane,) = [c for c in ax.collections if isinstance(c, Poly3DCollection)]
    r, g, b, a = plane.get_facecolor()[0]
    behind = tuple(a * np.array([r, g, b]) + (1 - a) * np.ones(3))
    assert ax.texts
    for text in ax.texts:
        assert contrast(text.get_color(), behind) >= 4.5, text.get_text()


# --- explorers: every frame carries its own alt text (issue 27 item 5) ---------------------------------------------


def test_an_explorer_picture_carries_the_alt_text_of_the_frame_it_shows():
    """The tooltip of an explorer's Image (turned into the img's alt by the course's JupyterLab extension) is the
    alt text of the static figure of the same state, and follows the slider, drawn or kept."""
    from lnlib.widgets import VectorExplorer

    e = VectorExplorer("2, 4, 6, 8", eps=1e-5)
    first = e.plot.tooltip
    assert first == plots.alt_text(plots.stage_bars(lnlib.layer_norm_steps([2, 4, 6, 8], eps=1e-5)))
    e.eps.value = 1.0
    assert e.plot.tooltip == plots.alt_text(plots.stage_bars(lnlib.layer_norm_steps([2, 4, 6, 8], eps=1.0)))
    assert e.plot.tooltip != first
    e.eps.value = 1e-5  # a kept frame: its own text comes back with it
    assert e.plot.tooltip == first


def test_a_kept_frame_whose_alt_text_was_forgotten_gets_it_back():
    from lnlib.explorers.base import Picture

    def result(k):
        return lnlib.layer_norm_steps([1, 2, 3, k], eps=0)

    picture = Picture(plots.StageFigure)
    first = picture.frame(4, 1, result(10))
    picture.frame(4, 2, result(20))
    picture._alts.clear()
    again = picture.frame(4, 1, result(10))
    assert again == first and "10" in again.alt


def test_every_explorer_picture_has_a_chinese_alt_text():
    from lnlib import widgets

    explorers = [
        widgets.VectorExplorer(),
        widgets.EpsilonExplorer(),
        widgets.ScaleShiftExplorer(),
        widgets.AxisExplorer(),
        widgets.GammaBetaExplorer(),
        widgets.SoftmaxExplorer(),
        widgets.DepthExplorer(depth=3),
    ]
    # notebook 15's explorer: tests/test_training_explorer.py checks its frame (PNG and alt text)
    for e in explorers:
        text = e.plot.tooltip
        assert text and re.search(r"[\u4e00-\u9fff]", text), type(e).__name__


def test_an_explorer_picture_syncs_the_description_its_tooltip_needs():
    """ipywidgets 8's view of a widget with a tooltip reads its description; an Image has none and its view fails
    to render ("Could not create a view"). The explorers' FigureImage syncs an empty one with the tooltip."""
    from lnlib.widgets import VectorExplorer

    state = VectorExplorer().plot.get_state()
    assert state["tooltip"] and state["description"] == ""
