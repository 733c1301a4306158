"""What notebooks 08–14 and the teacher guide say, checked against the code: the √d study, the axes diagram, the
content errors that must not come back, the predict-then-reveal order, one home per variant, the guide's timings
and glossary. (The guide's answer key: tests/test_answer_key.py.)"""

from __future__ import annotations

import re

import nbformat
import numpy as np
import pytest
from matplotlib.patches import Rectangle
from scipy.special import softmax as scipy_softmax

from lnlib import attention_scaling, attention_scaling_plot, axes_diagrams, plots
from tools import course
from tools.course import NOTEBOOKS, ROOT, notebook_paths

GUIDE = ROOT / "docs" / "teacher-guide.md"


def cells(stem: str) -> list[nbformat.NotebookNode]:
    return nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4).cells


def prose(stem: str) -> str:
    return "\n".join(c.source for c in cells(stem) if c.cell_type == "markdown")


# ---------------------------------------------------------------- notebook 10: what √d does


@pytest.fixture(scope="module")
def study():
    return attention_scaling.scaling_study()


def test_dot_product_variance_is_d_and_scaling_brings_it_to_one(study):
    # sample variance of 4000 draws: relative standard error ≈ √(2/n) ≈ 0.03; allow 5 of them
    assert np.allclose(study.var_raw / study.dims, 1, atol=0.15)
    assert np.allclose(study.var_scaled, 1, atol=0.15)


def test_unscaled_softmax_collapses_and_scaled_softmax_does_not(study):
    assert np.all(np.diff(study.entropy_raw) < 0) and study.entropy_raw[-1] < 0.2
    assert np.ptp(study.entropy_scaled) < 0.05 and study.max_weight_raw[-1] > 0.9
    assert np.all(study.entropy_scaled < study.uniform_entropy) and study.uniform_entropy == pytest.approx(np.log(16))


def test_scaled_entropy_against_an_independent_simulation(study):
    # logits q·k/√d with N(0, 1) entries are close to N(0, 1) for every d: simulate that directly with scipy
    z = np.random.default_rng(99).standard_normal((20000, study.n_keys))
    p = scipy_softmax(z, axis=-1)
    reference = float(np.mean(-(p * np.log(p)).sum(axis=-1)))
    assert np.allclose(study.entropy_scaled[-3:], reference, atol=0.05)


def test_scaling_study_is_deterministic_and_rejects_bad_input():
    a, b = (
        attention_scaling.scaling_study((4, 8), pairs=50, queries=5),
        attention_scaling.scaling_study((4, 8), pairs=50, queries=5),
    )
    assert np.array_equal(a.var_raw, b.var_raw) and np.array_equal(a.entropy_raw, b.entropy_raw)
    for kwargs, name in (
        ({"dims": [0, 4]}, "dims"),
        ({"dims": [4.5]}, "dims"),
        ({"dims": []}, "dims"),
        ({"pairs": 1}, "pairs"),
        ({"n_keys": 1}, "n_keys"),
        ({"queries": True}, "queries"),
    ):
        with pytest.raises(ValueError, match=name):
            attention_scaling.scaling_study(**kwargs)


def test_scaling_figure_renders(study):
    fig = attention_scaling_plot.scaling_figure(study)
    assert len(fig.axes) == 2 and plots.to_png(fig)[:4] == b"\x89PNG"


# ---------------------------------------------------------------- notebook 08: which numbers share one μ, σ


def orange_cells(ax) -> set[tuple[float, float]]:
    """The lower-left corners of the orange squares, drawn as Rectangle patches or in a PatchCollection."""
    orange = pytest.approx(tuple(int(axes_diagrams.CHOSEN[i : i + 2], 16) / 255 for i in (1, 3, 5)))
    cells = {
        p.get_xy() for p in ax.patches if isinstance(p, Rectangle) and p.get_fill() and p.get_facecolor()[:3] == orange
    }
    for coll in ax.collections:
        for path, face in zip(coll.get_paths(), coll.get_facecolor(), strict=True):
            if tuple(face[:3]) == orange:
                cells.add(tuple(float(v) for v in path.vertices.min(axis=0)))
    return cells


def test_axes_figure_draws_per_token_ln_apart_from_the_cnn_form():
    batch, channels, positions = 3, 6, 4
    fig = axes_diagrams.norm_axes_figure(batch, channels, positions, groups=2)
    bn, ln_token, ln_cnn, inorm, gn2, gn1 = (orange_cells(ax) for ax in fig.axes)
    assert len(bn) == batch * positions  # one channel, every sample and position
    assert len(ln_token) == channels  # one token: all its channels, one position
    assert len(ln_cnn) == channels * positions  # one sample: everything
    assert len(inorm) == positions and len(gn2) == channels // 2 * positions
    assert gn1 == ln_cnn and gn1 != ln_token  # GroupNorm with one group is the CNN form only
    assert "Transformer" in fig.axes[1].get_title() and "CNN" in fig.axes[2].get_title()
    assert plots.to_png(fig)[:4] == b"\x89PNG"


@pytest.mark.parametrize("kwargs", [{"batch": 0}, {"groups": 4}, {"channels": 2.0}, {"groups": 1}])
def test_axes_figure_rejects_bad_sizes(kwargs):
    with pytest.raises(ValueError):
        axes_diagrams.norm_axes_figure(**kwargs)


def test_notebook_08_uses_the_new_diagram():
    code = "\n".join(c.source for c in cells("08-layernorm-vs-batchnorm") if c.cell_type == "code")
    assert "axes_diagrams.norm_axes_figure()" in code and "norm_axes_diagram" not in code


# ---------------------------------------------------------------- the content errors of issue 12 stay fixed


def test_largest_other_weight_in_notebook_10_is_stated_correctly():
    text = prose("10-attention-softmax")
    assert f"{np.exp(-340):.1e}".startswith("2.2e-148") and r"e^{-340} \approx 2.2\times10^{-148}" in text
    assert "10^{-148}$ 以下" not in text


def test_entropy_statement_of_notebook_10():
    text = prose("10-attention-softmax")
    assert "熵停在" not in text and "始终相等" in text and "0.739" in text


def test_significant_digits_in_notebook_13():
    digits = len("10000001.5".replace(".", ""))
    assert digits == 9 and f"需要 {digits} 位有效数字" in prose("13-numerics-and-speed")


def test_seed_claims_that_were_refuted_stay_out():
    assert "都是为了让 softmax 不饱和" not in prose("14-review-and-quiz")
    assert "两者都有或都可省" not in prose("11-variants")
    assert "Pre-LN 可以不用 warm-up" not in prose("09-add-and-norm")
    assert "GPT-3" in prose("09-add-and-norm") and "LLaMA" in prose("09-add-and-norm")
    assert "**不**不变" not in GUIDE.read_text(encoding="utf-8")
    assert "引入幂项" in prose("11-variants") and "不对" in prose("11-variants")


def test_one_home_per_variant():
    homes = {
        name: [p.stem for p in notebook_paths() if pattern in prose(p.stem)]
        for name, pattern in (("SwitchableNorm", "Learning-to-Normalize"), ("DeepNorm", r"(8N)^{-1/4}"))
    }
    assert homes == {"SwitchableNorm": ["11-variants"], "DeepNorm": ["09-add-and-norm"]}


def test_no_table_is_printed_twice_in_notebook_09():
    sources = [c.source for c in cells("09-add-and-norm") if c.cell_type == "code"]
    assert len(sources) == len(set(sources))
    outputs = [
        o["data"]["text/html"]
        for c in cells("09-add-and-norm")
        if c.cell_type == "code"
        for o in c.outputs
        if "text/html" in o.get("data", {})
    ]
    assert len(outputs) == len(set(outputs))


# ---------------------------------------------------------------- predict, then reveal


def first_index(stem: str, needle: str, kind: str) -> int:
    return next(i for i, c in enumerate(cells(stem)) if c.cell_type == kind and needle in c.source)


def test_bn_column_is_asked_before_it_is_shown():
    stem = "08-layernorm-vs-batchnorm"
    ask = first_index(stem, "%%answer 08.bn_chi_dim1", "code")
    assert ask < first_index(stem, "plots.ln_vs_bn", "code") < first_index(stem, "≈ 1.336", "markdown")
    assert first_index(stem, "%%answer 08.bn_col_var", "code") < ask


def test_gradient_is_asked_early_in_notebook_12():
    stem = "12-backward"
    first = first_index(stem, "%%answer ", "code")
    assert first < first_index(stem, "## 2.", "markdown") < first_index(stem, "## 小结", "markdown")
    ask_dx = first_index(stem, "%%answer 12.dx_first", "code")
    assert ask_dx < first_index(stem, "| 括号里 |", "markdown")


# ---------------------------------------------------------------- the teacher guide


def test_plan_timings_add_up_to_the_lessons_times():
    guide = GUIDE.read_text(encoding="utf-8")
    sections = dict(re.findall(r"^### 第 (\d+) 篇.*?\n- \*\*时间\*\*：(\d+) 分钟", guide, flags=re.M | re.S))
    times = {int(k): int(v) for k, v in sections.items()}
    assert sorted(times) == [lesson.number for lesson in course.LESSONS]
    plans = re.findall(r"第 ([\d、]+) 篇：([\d +]+) = (\d+) 分钟", guide)
    assert len(plans) >= 4
    for lessons, terms, total in plans:
        numbers = [int(n) for n in lessons.split("、")]
        summands = [int(t) for t in terms.split("+")]
        assert summands == [times[n] for n in numbers] and sum(summands) == int(total) <= 90, (lessons, terms)
    core = sum(times[n] for n in range(8))
    extension = sum(t for n, t in times.items() if n >= 8)
    assert f"合计 {core} 分钟" in guide and f"合计 {extension} 分钟" in guide
    assert f"{core} + {extension} = {core + extension} 分钟" in guide


# ---------------------------------------------------------------- the glossary (notebook 14, section 3)


def test_glossary_names_the_synonyms_and_the_momentum_conventions():
    text = prose("14-review-and-quiz")
    glossary = text.split("## 3. 术语表", 1)[1].split("## 小结", 1)[0]
    for term in (
        "层归一化",
        "层规范化",
        "批归一化",
        "批量规范化",
        "running_mean",
        "moving_mean",
        "warm-up",
        "padding",
        "Post-LN",
        "Pre-LN",
        "RMSNorm",
        "ε",
        "γ",
        "β",
        "残差连接",
        "Welford",
    ):
        assert term in glossary, term
    # the three momentum conventions, each with the weight it gives to the new batch
    assert "`momentum=0.1` 是**新批量**的权重" in glossary and "`momentum=0.99` 是**旧值**的权重" in glossary
    assert "`momentum=0.9`，也是旧值的权重" in glossary


@pytest.mark.parametrize(
    "stem", ["00-index", *(p.stem for p in sorted(NOTEBOOKS.glob("[01][0-9]-*.ipynb")) if int(p.stem[:2]) >= 8)]
)
def test_relative_links_point_at_notebooks_that_exist(stem):
    for target in re.findall(r"\]\((?!https?:)([^)#\s]+)", prose(stem)):
        assert (NOTEBOOKS / target).is_file() and target.endswith(".ipynb"), f"{stem}: link to {target}"


def test_notebook_10_quotes_the_simulation_it_shows(study):
    text = prose("10-attention-softmax")
    raw, scaled = study.entropy_raw, study.entropy_scaled
    assert f"从约 {raw[0]:.2f} 降到约 {raw[-1]:.2f}" in text and f"一直约为 {np.mean(scaled):.2f}" in text
    assert f"超过 {np.floor(study.max_weight_raw[-1] * 100) / 100:.2f}" in text
