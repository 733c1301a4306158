"""The figures' words come from the catalogue (domain `figures`): no figure module holds a Chinese literal, and an
English figure (`LNLIB_LANG=en`, a fresh process) shows no Chinese in its titles, labels, legends, annotations,
tick labels or alt text except the example's tokens, glossed ("苹果 (apple)"), and text the caller passed in; it
draws with the bundled font without a missing glyph. Words a figure module keeps follow a later `set_language`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from matplotlib.text import Text
from test_messages import chinese_literals

import lnlib
from lnlib import i18n, lm_plots, plots, training_plots

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
FIGURE_MODULES = "plots training_plots lm_plots axes_diagrams geometry_plots attention_scaling_plot figure_kit live"
CHINESE = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")  # words and CJK punctuation
GLOSSED = re.compile(r"(我|吃|苹果) \([A-Za-z]+\)")  # the example's tokens as labels.token_label shows them in English
SENTENCE = "我吃苹果。"  # notebook 16's sentence: the caller's text, drawn as given


@pytest.mark.parametrize("module", FIGURE_MODULES.split())
def test_no_figure_module_holds_chinese_words(module):
    """Every title, label and alt-text template is a message of the catalogue, none a literal of the module."""
    assert chinese_literals(module) == []


def english_figures() -> dict:
    """name → (build, characters the caller passed in): every figure function of the figure modules, and every
    handle moved once, built with English or neutral inputs."""
    from test_figure_access import AFTER, BEFORE, GRID, MLP, TINY_LM, XIONG, X

    from lnlib import (
        attention_scaling,
        attention_scaling_plot,
        axes_diagrams,
        geometry_plots,
        groups,
        invariance,
        numerics,
        pitfalls,
        tiny_lm,
        training_map,
        transformer,
    )

    steps = lnlib.layer_norm_steps
    offsets = 10.0 ** np.arange(0, 8.5, 0.5)
    rows32 = (offsets[:, None] + np.arange(4.0)).astype(np.float32)
    weights = transformer.attention_at_scale(lnlib.layer_norm(X), 4.0)
    fwd = tiny_lm.forward(TINY_LM, tiny_lm.encode(TINY_LM.config, SENTENCE)[None])
    forms = ("post", "pre", "none", "deepnorm")

    def moved(handle, *args):
        handle.update(*args)
        return handle.fig

    return {
        "stage_bars": (lambda: plots.stage_bars(steps([2, 4, 6, 8], eps=0)), ""),
        "stage_bars_affine": (
            lambda: plots.stage_bars(steps([2, 4, 6, 8], [2, 1, 1, 1], [0.5, 0, 0, 0]), affine=True),
            "",
        ),
        "token_bars": (lambda: plots.token_bars(X, sharey=False, title="three tokens"), ""),
        "highlight_heatmap_row": (lambda: plots.highlight_heatmap(groups.selection(X, "row", 2)), ""),
        "highlight_heatmap_column": (lambda: plots.highlight_heatmap(groups.selection(X, "column", 0)), ""),
        "highlight_heatmap_all": (lambda: plots.highlight_heatmap(groups.selection(X, "all")), ""),
        "epsilon_plot": (lambda: plots.epsilon_plot(pitfalls.epsilon_effect([3, 3.002, 2.998, 3], 1e-5)), ""),
        "scale_shift_bars": (lambda: plots.scale_shift_bars(invariance.scale_shift([2, 4, 6, 8], 2.0, 3.0)), ""),
        "value_heatmap": (lambda: plots.value_heatmap([[1e308, 2, 1, 0], *X[1:]], title="big"), ""),
        "jacobian_heatmap": (lambda: plots.jacobian_heatmap(lnlib.layer_norm_jacobian(np.array([2.0, 4, 6, 8]))), ""),
        "variance_error_plot": (
            lambda: plots.variance_error_plot(
                offsets, numerics.one_pass_variance(rows32), numerics.two_pass_variance(rows32), 1.25
            ),
            "",
        ),
        "ln_vs_bn": (lambda: plots.ln_vs_bn(*invariance.row_and_column_norms(X)), ""),
        "add_norm_diagram": (plots.add_norm_diagram, ""),
        "depth_lines": (
            lambda: plots.depth_lines(
                {f: transformer.residual_scales(f, 6, 16) for f in forms},
                xlabel="",
                ylabel="RMS",
                title="residual stream",
                logy=True,
                guides={"1/√L": [1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4]},
            ),
            "",
        ),
        "attention_panel": (
            lambda: plots.attention_panel(weights, lnlib.TOKENS, entropy=transformer.entropy(weights), title="d = 4"),
            "",
        ),
        "StageFigure": (lambda: moved(plots.StageFigure(steps([2, 4, 6, 8])), steps([1, 2, 3, 5], eps=0.1)), ""),
        "HighlightFigure": (
            lambda: moved(plots.HighlightFigure(groups.selection(X, "row", 1)), groups.selection(X, "column", 2)),
            "",
        ),
        "EpsilonFigure": (
            lambda: moved(
                plots.EpsilonFigure(pitfalls.epsilon_effect([3, 3.002, 2.998, 3], 1e-5)),
                pitfalls.epsilon_effect([1, 2, 3, 4], 1e-3),
            ),
            "",
        ),
        "ScaleShiftFigure": (
            lambda: moved(
                plots.ScaleShiftFigure(invariance.scale_shift([2, 4, 6, 8], 2, 3), scales=(0.5, 3), shifts=(-2, 2)),
                invariance.scale_shift([1, 4, 6, 8], 1.5, -1.0),
            ),
            "",
        ),
        "ValueHeatmapFigure": (lambda: moved(plots.ValueHeatmapFigure(X), X * 2), ""),
        "DepthFigure": (
            lambda: moved(
                plots.DepthFigure({"post": [1, 2], "pre": [1, 1.5]}, max_depth=6, xlabel="layer", ylabel="RMS"),
                {"post": [1, 2, 3], "pre": [1, 1, 1]},
            ),
            "",
        ),
        "AttentionFigure": (
            lambda: moved(
                plots.AttentionFigure(weights, lnlib.TOKENS, entropy=transformer.entropy(weights)),
                weights[::-1],
                transformer.entropy(weights[::-1]),
            ),
            "",
        ),
        "axes_diagrams.norm_axes_figure": (lambda: axes_diagrams.norm_axes_figure(batch=1, channels=4), ""),
        "attention_scaling_plot.scaling_figure": (
            lambda: attention_scaling_plot.scaling_figure(
                attention_scaling.scaling_study((4, 16, 64), pairs=200, queries=20)
            ),
            "",
        ),
        "geometry_plots.sphere_view": (geometry_plots.sphere_view, ""),
        "training_plots.loss_curves": (lambda: training_plots.loss_curves(MLP, title="8-layer MLP", smooth=1), ""),
        "training_plots.loss_curves_grad": (lambda: training_plots.loss_curves(XIONG, grad_norms=True), ""),
        "training_plots.layer_scales": (lambda: training_plots.layer_scales(BEFORE, AFTER, title="scales"), ""),
        "training_plots.activation_histograms": (lambda: training_plots.activation_histograms(BEFORE, AFTER), ""),
        "training_plots.batch_size_plot": (
            lambda: training_plots.batch_size_plot(
                {"layer": [0.95, 0.95, 0.95], ("batch", 0): [0.33, 0.8, float("nan")]}, (1, 4, 16)
            ),
            "",
        ),
        "training_plots.outcome_map_plot": (
            lambda: training_plots.outcome_map_plot(training_map.stored_outcome_map(), title="outcomes"),
            "",
        ),
        "training_plots.explorer_figure": (
            lambda: training_plots.explorer_figure(GRID, ("post", "pre", "none"), 1e-2, 0),
            "",
        ),
        "training_plots.TrainingFigure": (
            lambda: moved(training_plots.TrainingFigure(GRID, ("post", "pre"), 1e-2, 5), GRID, ("post",), 1e-2, 0),
            "",
        ),
        "lm_plots.sigma_by_depth": (lambda: lm_plots.sigma_by_depth(fwd, SENTENCE, TINY_LM.names), SENTENCE),
        "lm_plots.share_bars": (lambda: lm_plots.share_bars(np.linspace(1, 3, 32) / 64, "2.attn"), ""),
        "lm_plots.eps_curve": (
            lambda: lm_plots.eps_curve([1e-6, 1e-4, 1e-2, 1], [1.1, 1.1, 1.19, 3.32], (0.01, 0.5)),
            "",
        ),
    }


def english_tables() -> dict:
    """name → notebook 16's table, built with English inputs (the sentence is the caller's)."""
    from test_figure_access import TINY_LM

    from lnlib import tiny_lm

    fwd = tiny_lm.forward(TINY_LM, tiny_lm.encode(TINY_LM.config, SENTENCE)[None])
    score = tiny_lm.Score(1.1, 0.5)
    return {
        "score_table": lm_plots.score_table({"tiny model": score}),
        "token_stats_table": lm_plots.token_stats_table(fwd, SENTENCE, TINY_LM.names, "sigma"),
        "ablation_table": lm_plots.ablation_table(score, {"no final LN": tiny_lm.Score(1.3, 0.4)}),
        "explorer_table": lm_plots.explorer_table(fwd, SENTENCE, "final", [("吃", 0.5)] * len(SENTENCE)),
        "depth_table": lm_plots.depth_table(fwd, TINY_LM.names),
        "share_table": lm_plots.share_table({n: np.linspace(1, 2, 32) / 48 for n in TINY_LM.names}),
    }


def dump() -> None:
    """Run in a fresh process under LNLIB_LANG=en: every figure's words and alt text, drawn to PNG with warnings as
    errors (a missing glyph is a UserWarning), and every table's text, as JSON on stdout."""
    out = {"language": lnlib.language(), "figures": {}, "tables": {}}
    for name, (build, passed) in english_figures().items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fig = build()
            plots.to_png(fig)  # lays the figure out: tick labels are made, every glyph is looked up
        texts = [t.get_text() for t in fig.findobj(Text) if t.get_text()]
        out["figures"][name] = {"alt": plots.alt_text(fig), "texts": texts, "passed": passed}
    for name, table in english_tables().items():
        out["tables"][name] = {"html": table._repr_html_(), "text": repr(table)}
    json.dump(out, sys.stdout, ensure_ascii=False)


@pytest.fixture(scope="module")
def english():
    """What the figures show in a fresh kernel with LNLIB_LANG=en."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")]), "LNLIB_LANG": "en"}
    code = "import test_figure_words; test_figure_words.dump()"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def foreign(text: str, passed: str = "") -> list[str]:
    """The Chinese characters of `text` that are neither a glossed token nor a character the caller passed in."""
    bare = GLOSSED.sub("", text)
    return [c for c in CHINESE.findall(bare) if c not in passed]


def test_every_figure_function_is_drawn_in_english():
    from test_figure_access import figure_functions

    drawn = {re.sub(r"_(affine|row|column|all|grad)$", "", name) for name in english_figures()}
    assert figure_functions() <= drawn


@pytest.mark.parametrize("name", list(english_figures()))
def test_an_english_figure_shows_no_chinese_but_the_tokens(english, name):
    assert english["language"] == "en"
    figure = english["figures"][name]
    assert figure["alt"] and not foreign(figure["alt"], figure["passed"]), figure["alt"]
    for text in figure["texts"]:
        assert not foreign(text, figure["passed"]), (name, text)


def test_english_figures_gloss_the_tokens_and_read_as_english(english):
    """The tokens keep their characters and gain a gloss; a few words checked by hand."""
    figures = english["figures"]
    assert {"我 (I)", "吃 (eat)", "苹果 (apple)"} <= set(figures["token_bars"]["texts"])
    assert "苹果 (apple) = [2, 4, 6, 8]" in figures["token_bars"]["alt"]
    assert "row 3 (苹果 (apple))" in figures["highlight_heatmap_row"]["alt"]
    assert "1 我 (I)" in figures["lm_plots.sigma_by_depth"]["texts"]
    assert "learning rate 0.01, warm-up 0 steps" in figures["training_plots.TrainingFigure"]["texts"]
    assert "Post-LN, no warm-up (diverged)" in figures["training_plots.explorer_figure"]["texts"]
    assert "(30 steps, diverged at step 29)" in figures["training_plots.loss_curves_grad"]["alt"]  # the 30th is NaN
    assert "1 sample as a block" in figures["axes_diagrams.norm_axes_figure"]["alt"]


@pytest.mark.parametrize(
    "name", ["score_table", "token_stats_table", "ablation_table", "explorer_table", "depth_table", "share_table"]
)
def test_an_english_table_of_notebook_16_shows_no_chinese_but_the_sentence(english, name):
    table = english["tables"][name]
    for form in (table["html"], table["text"]):
        assert not foreign(form, SENTENCE), form


def test_the_scan_finds_chinese_in_a_chinese_figure():
    """The check above can fail: the same walk over a Chinese figure finds its words."""
    lnlib.set_language("zh")
    fig = plots.token_bars(lnlib.TOKEN_MATRIX, title="tokens")
    fig.draw_without_rendering()
    found = [c for t in fig.findobj(Text) for c in foreign(t.get_text())]
    assert "维" in found and foreign(plots.alt_text(fig))
    assert foreign("“苹” 。") == ["苹", "。"] and foreign("苹果 (apple)") == []


def test_words_a_figure_module_keeps_follow_a_later_language():
    """training_plots.NAMES and lm_plots.SHORT were made at import (in Chinese here); they follow set_language."""
    try:
        lnlib.set_language("zh")
        assert training_plots.NAMES["none"] == "无归一化"
        assert training_plots.label(("post", 50)) == "Post-LN，warm-up 50 步"
        assert lm_plots.short_label("1.attn") == "1·注意力前"
        lnlib.set_language("en")
        assert training_plots.NAMES["none"] == "no normalization"
        assert training_plots.label(("post", 50)) == "Post-LN, warm-up 50 steps"
        assert training_plots.label(("pre", 0)) == "Pre-LN, no warm-up"
        assert lm_plots.short_label("1.attn") == "1·pre-attn" and lm_plots.short_label("final") == "final"
    finally:
        lnlib.set_language(i18n.DEFAULT_LANGUAGE)
