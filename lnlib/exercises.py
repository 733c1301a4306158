"""`check(name, answer)`: ✓/✗ feedback for the 练习 cells of every notebook.

Each notebook's exercises live in one dict below, keyed "NN.short_name"; their words are messages of the domain
`exercises` (`lazy("exercises.NN.short_name.hint")`, `.nudge`, `.m1`… for the mistakes, `.early1`… for the
intermediates rounded too early), looked up when shown, so the language can be chosen after import. The worked
solutions are in notebooks/solutions/NN-slug.py and a test feeds every one of them to `check`. How an answer is
judged (real numbers only, tolerances, typical mistakes, synonyms of choice answers) is in `lnlib.grading`.

Keep `expected` exact (computed, not pre-rounded) and let `atol` say what rounding the question asks for: "保留三位小数"
is ±0.0005 for the last rounding, plus whatever rounding the inputs the question suggests adds (γ = 2 times x̂ ≈ 1.342
adds 2 × 0.0005).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from . import _record
from .data import TOKEN_MATRIX
from .grading import (
    HINT_AFTER,
    SIGN_FLIPPED_CENTER,
    Exercise,
    Mistake,
    Verdict,
    grade,
    rounded_early,
    row_mistakes,
)
from .i18n import language, lazy, message

__all__ = ["EXERCISES", "Exercise", "Mistake", "Verdict", "check", "judge"]

_WO, _CHI, _APPLE = 0, 1, 2  # rows of TOKEN_MATRIX: 我, 吃, 苹果
_ROUND3 = 5e-4  # "保留三位小数"
_XHAT_APPLE = (TOKEN_MATRIX[_APPLE] - 5) / np.sqrt(5)  # [−1.342, −0.447, 0.447, 1.342] unrounded
_UNCHANGED, _CHANGED = "不变", "会变"  # codes of a choice answer (grading.SYNONYMS spells them in both languages)
_CODE_WORDS = {  # how a worked answer writes such a code, in the current language
    _UNCHANGED: lazy("exercises.word.unchanged"),
    _CHANGED: lazy("exercises.word.changed"),
}
_PEAR = np.array([3.0, 5.0, 6.0, 10.0])  # notebook 03's exercises: a row whose numbers the lesson never shows

_NB01 = {
    "01.residual": Exercise(
        [4, 3, 4, 3],
        lazy("exercises.01.residual.hint"),
        mistakes=(
            Mistake(lazy("exercises.01.residual.m1"), [2, -1, -4, 1]),
            Mistake(lazy("exercises.01.residual.m2"), [3, 2, 0, 2]),
        ),
    ),
    "01.ratio": Exercise(
        10 / 3,
        lazy("exercises.01.ratio.hint"),
        nudge=lazy("exercises.01.ratio.nudge"),
        atol=0.005,
        mistakes=(
            Mistake(lazy("exercises.01.ratio.m1"), 10),
            Mistake(lazy("exercises.01.ratio.m2"), 3),
            Mistake(lazy("exercises.01.ratio.m3"), 3 / 10, 0.005),
            Mistake(lazy("exercises.01.ratio.m4"), 30),
        ),
    ),
    "01.apple_times_w": Exercise(
        [10, 6],
        lazy("exercises.01.apple_times_w.hint"),
        mistakes=(
            Mistake(lazy("exercises.01.apple_times_w.m1"), [100, 60]),
            Mistake(lazy("exercises.01.apple_times_w.m2"), [10, -1]),
        ),
    ),
}
_NB02 = {
    "02.row_means": Exercise(
        [4, 5],
        lazy("exercises.02.row_means.hint"),
        mistakes=(
            Mistake(lazy("exercises.02.row_means.m1"), [1.5, 3.5, 4.5, 8.5]),
            Mistake(lazy("exercises.02.row_means.m2"), [4.5, 4.5]),
            Mistake(lazy("exercises.02.row_means.m3"), [16, 20]),
        ),
    ),
    "02.column_mean": Exercise(
        8.5,
        lazy("exercises.02.column_mean.hint"),
        mistakes=(
            Mistake(lazy("exercises.02.column_mean.m1"), 4),
            Mistake(lazy("exercises.02.column_mean.m2"), 5),
            Mistake(lazy("exercises.02.column_mean.m3"), 17 / 4),
            Mistake(lazy("exercises.02.column_mean.m4"), 17),
        ),
    ),
    "02.count": Exercise(
        2,
        lazy("exercises.02.count.hint"),
        atol=0,
        mistakes=(
            Mistake(lazy("exercises.02.count.m1"), 4),
            Mistake(lazy("exercises.02.count.m2"), 1),
            Mistake(lazy("exercises.02.count.m3"), 8),  # every number of the 2 × 4 table
        ),
    ),
    "02.table_mean": Exercise(
        20,
        lazy("exercises.02.table_mean.hint"),
        mistakes=(
            Mistake(lazy("exercises.02.table_mean.m1"), 5),
            Mistake(lazy("exercises.02.table_mean.m2"), 80),
            Mistake(lazy("exercises.02.table_mean.m3"), 60),
            Mistake(lazy("exercises.02.table_mean.m4"), 240),
        ),
    ),
}
_NB03 = {
    "03.mean_pear": Exercise(
        6,
        lazy("exercises.03.mean_pear.hint"),
        nudge=lazy("exercises.03.mean_pear.nudge"),
        mistakes=row_mistakes(
            [_PEAR],
            0,
            "mean",
            first=(Mistake(lazy("exercises.03.mean_pear.m1"), 24), Mistake(lazy("exercises.03.mean_pear.m2"), 8)),
        ),
    ),
    "03.mean_apple": Exercise(
        5,
        lazy("exercises.03.mean_apple.hint"),
        nudge=lazy("exercises.03.mean_apple.nudge"),
        mistakes=row_mistakes(TOKEN_MATRIX, _APPLE, "mean", first=(Mistake(lazy("exercises.03.mean_apple.m1"), 20),)),
    ),
    "03.centered_apple": Exercise(
        [-3, -1, 1, 3],
        lazy("exercises.03.centered_apple.hint"),
        nudge=lazy("exercises.03.centered_apple.nudge"),
        sign=SIGN_FLIPPED_CENTER,
        mistakes=(
            Mistake(lazy("exercises.03.centered_apple.m1"), [-3.5, -1.5, 0.5, 2.5], 0.6),
            Mistake(lazy("exercises.03.centered_apple.m2"), [2, 4, 6, 8], 0),
        ),
    ),
    "03.variance_apple": Exercise(
        5,
        lazy("exercises.03.variance_apple.hint"),
        nudge=lazy("exercises.03.variance_apple.nudge"),
        mistakes=row_mistakes(TOKEN_MATRIX, _APPLE, "variance"),
    ),
    "03.std_apple": Exercise(
        np.sqrt(5),
        lazy("exercises.03.std_apple.hint"),
        nudge=lazy("exercises.03.std_apple.nudge"),
        atol=_ROUND3,
        mistakes=row_mistakes(TOKEN_MATRIX, _APPLE, "std"),
    ),
    "03.xhat_apple": Exercise(
        _XHAT_APPLE,
        lazy("exercises.03.xhat_apple.hint"),
        nudge=lazy("exercises.03.xhat_apple.nudge"),
        atol=_ROUND3,  # the one rule: half a unit of the last decimal asked (a cut-off −1.341 is a named mistake)
        sign=SIGN_FLIPPED_CENTER,
        mistakes=(
            *row_mistakes(TOKEN_MATRIX, _APPLE, "xhat"),
            Mistake(lazy("exercises.03.xhat_apple.m1"), [-1.5, -0.5, 0.5, 1.5], 0.01),  # σ = √5 taken as 2
        ),
    ),
    "03.variance_pear": Exercise(
        6.5,
        lazy("exercises.03.variance_pear.hint"),
        nudge=lazy("exercises.03.variance_pear.nudge"),
        mistakes=row_mistakes([_PEAR], 0, "variance"),
    ),
    "03.xhat_pear": Exercise(
        (_PEAR - 6) / np.sqrt(6.5),
        lazy("exercises.03.xhat_pear.hint"),
        nudge=lazy("exercises.03.xhat_pear.nudge"),
        atol=_ROUND3,  # 保留三位小数, as 03.xhat_apple: a cut-off 1.568 is not 1.569
        sign=SIGN_FLIPPED_CENTER,
        mistakes=(
            Mistake(lazy("exercises.03.xhat_pear.m1"), (_PEAR - 6) / np.sqrt(26 / 3)),
            Mistake(lazy("exercises.03.xhat_pear.m2"), (_PEAR - 6) / 6.5),
            Mistake(lazy("exercises.03.xhat_pear.m3"), _PEAR - 6),
            Mistake(lazy("exercises.03.xhat_pear.m4"), _PEAR / np.sqrt(6.5)),
            Mistake(lazy("exercises.03.xhat_pear.m5"), _XHAT_APPLE),
            rounded_early((_PEAR - 6) / 2.5, lazy("exercises.03.xhat_pear.early1")),
            rounded_early((_PEAR - 6) / 2.6, lazy("exercises.03.xhat_pear.early2")),
        ),
    ),
}

_NB04: dict[str, Exercise] = {  # exercises of notebook 04
    "04.eps_denominator": Exercise(
        np.sqrt(1e-5),
        lazy("exercises.04.eps_denominator.hint"),
        atol=5e-5,
        mistakes=(
            Mistake(lazy("exercises.04.eps_denominator.m1"), 1e-5, 1e-7),
            Mistake(lazy("exercises.04.eps_denominator.m2"), 0, 1e-9),
        ),
    ),
    "04.eps_inside_small": Exercise(
        -0.003 / np.sqrt(5e-6 + 1e-5),
        lazy("exercises.04.eps_inside_small.hint"),
        mistakes=(
            Mistake(lazy("exercises.04.eps_inside_small.m1"), -0.003 / (np.sqrt(5e-6) + 1e-5)),
            Mistake(lazy("exercises.04.eps_inside_small.m2"), -3 / np.sqrt(5)),
            Mistake(lazy("exercises.04.eps_inside_small.m3"), -0.003 / 1.5e-5, 1.0),
        ),
    ),
    "04.constant_row": Exercise(
        0.01,
        lazy("exercises.04.constant_row.hint"),
        atol=5e-4,
        mistakes=(
            Mistake(lazy("exercises.04.constant_row.m1"), 1e-4, 1e-6),
            Mistake(lazy("exercises.04.constant_row.m2"), 0, 1e-9),
            Mistake(lazy("exercises.04.constant_row.m3"), np.sqrt(1e-5), 5e-5),
        ),
    ),
    "04.var_ratio": Exercise(
        5 / 6,
        lazy("exercises.04.var_ratio.hint"),
        atol=_ROUND3,
        mistakes=(
            Mistake(lazy("exercises.04.var_ratio.m1"), 5 / (np.sqrt(5) + 1) ** 2),
            Mistake(lazy("exercises.04.var_ratio.m2"), np.sqrt(5 / 6)),
            Mistake(lazy("exercises.04.var_ratio.m3"), 1.0),
            Mistake(lazy("exercises.04.var_ratio.m4"), 6 / 5),
        ),
    ),
    "04.unbiased_std": Exercise(
        np.sqrt(2000 / 3),
        lazy("exercises.04.unbiased_std.hint"),
        atol=5e-3,
        mistakes=(
            Mistake(lazy("exercises.04.unbiased_std.m1"), np.sqrt(500)),
            Mistake(lazy("exercises.04.unbiased_std.m2"), 2000 / 3, 0.01),
        ),
    ),
}
_NB05: dict[str, Exercise] = {  # exercises of notebook 05
    "05.swap_shift": Exercise(
        [1.342, -0.447, 0.447, -1.342],
        lazy("exercises.05.swap_shift.hint"),
        mistakes=(
            Mistake(lazy("exercises.05.swap_shift.m1"), _XHAT_APPLE),
            Mistake(lazy("exercises.05.swap_shift.m2"), [-1.342, 0.447, -0.447, 1.342]),
            Mistake(
                lazy("exercises.05.swap_shift.m3"),
                (TOKEN_MATRIX[_WO] - 5) / np.sqrt(5),
            ),
        ),
    ),
    "05.negative_scale": Exercise(
        -_XHAT_APPLE,
        lazy("exercises.05.negative_scale.hint"),
        mistakes=(Mistake(lazy("exercises.05.negative_scale.m1"), _XHAT_APPLE),),
    ),
    "05.invariant_count": Exercise(
        2,
        lazy("exercises.05.invariant_count.hint"),
        atol=0,
        mistakes=(
            Mistake(lazy("exercises.05.invariant_count.m1"), 3),
            Mistake(lazy("exercises.05.invariant_count.m2"), 1),
            Mistake(lazy("exercises.05.invariant_count.m3"), 4),
        ),
    ),
    "05.norm_squared": Exercise(
        4,
        lazy("exercises.05.norm_squared.hint"),
        atol=0.01,  # squaring the three-decimal x̂ shown in the question gives 4.0015
        mistakes=(
            Mistake(lazy("exercises.05.norm_squared.m1"), 2),
            Mistake(lazy("exercises.05.norm_squared.m2"), 0),
            Mistake(lazy("exercises.05.norm_squared.m3"), 1),
            Mistake(lazy("exercises.05.norm_squared.m4"), 16),
        ),
    ),
}
_NB06: dict[str, Exercise] = {  # exercises of notebook 06
    "06.y_first": Exercise(
        2 * _XHAT_APPLE[0] + 0.5,
        lazy("exercises.06.y_first.hint"),
        atol=3 * _ROUND3,  # 2 × 0.0005 from x̂₁ ≈ −1.342, plus 0.0005 for the last rounding
        mistakes=(
            Mistake(lazy("exercises.06.y_first.m1"), 2 * (_XHAT_APPLE[0] + 0.5)),
            Mistake(lazy("exercises.06.y_first.m2"), 0.5 * _XHAT_APPLE[0] + 2),
            Mistake(lazy("exercises.06.y_first.m3"), 2 * _XHAT_APPLE[0]),
            Mistake(lazy("exercises.06.y_first.m4"), _XHAT_APPLE[0] + 0.5),
            rounded_early(2 * round(_XHAT_APPLE[0], 2) + 0.5, lazy("exercises.06.y_first.early1")),
            rounded_early(2 * round(_XHAT_APPLE[0], 1) + 0.5, lazy("exercises.06.y_first.early2")),
        ),
    ),
    "06.mean_y_apple": Exercise(
        (2 * _XHAT_APPLE[0] + 0.5 + _XHAT_APPLE[1:].sum()) / 4,
        lazy("exercises.06.mean_y_apple.hint"),
        atol=1e-3,
        mistakes=(
            Mistake(lazy("exercises.06.mean_y_apple.m1"), 0.0),
            Mistake(lazy("exercises.06.mean_y_apple.m2"), 0.125),
            Mistake(lazy("exercises.06.mean_y_apple.m3"), 2 * _XHAT_APPLE[0] + 0.5 + _XHAT_APPLE[1:].sum(), 4e-3),
        ),
    ),
    "06.y_apple": Exercise(
        np.array([0.5, 1, 1, 2]) * _XHAT_APPLE + [-1, 0, 0, 1],
        lazy("exercises.06.y_apple.hint"),
        atol=3 * _ROUND3,  # |γ| ≤ 2: 2 × 1.342 + 1 = 3.684 (x̂ rounded as hinted) must pass
        mistakes=(
            Mistake(
                lazy("exercises.06.y_apple.m1"),
                np.array([0.5, 1, 1, 2]) * (_XHAT_APPLE + [-1, 0, 0, 1]),
            ),
            Mistake(lazy("exercises.06.y_apple.m2"), _XHAT_APPLE),
            Mistake(lazy("exercises.06.y_apple.m3"), np.array([0.5, 1, 1, 2]) * _XHAT_APPLE),
            rounded_early(
                np.array([0.5, 1, 1, 2]) * np.round(_XHAT_APPLE, 2) + [-1, 0, 0, 1], lazy("exercises.06.y_apple.early1")
            ),
            rounded_early(
                np.array([0.5, 1, 1, 2]) * np.round(_XHAT_APPLE, 1) + [-1, 0, 0, 1], lazy("exercises.06.y_apple.early2")
            ),
        ),
    ),
    "06.mean_after": Exercise(
        0.25,
        lazy("exercises.06.mean_after.hint"),
        mistakes=(
            Mistake(lazy("exercises.06.mean_after.m1"), 1.0),
            Mistake(lazy("exercises.06.mean_after.m2"), 0.0),
        ),
    ),
    "06.param_count": Exercise(
        1024,
        lazy("exercises.06.param_count.hint"),
        atol=0,
        mistakes=(
            Mistake(lazy("exercises.06.param_count.m1"), 512),
            Mistake(lazy("exercises.06.param_count.m2"), 2 * 512 * 100),  # a set per token of a 100-token sentence
            Mistake(lazy("exercises.06.param_count.m2"), 512 * 100),
            Mistake(lazy("exercises.06.param_count.m3"), 2048),
            Mistake(lazy("exercises.06.param_count.m4"), 8),
        ),
    ),
}
_NB07: dict[str, Exercise] = {  # exercises of notebook 07
    "07.shape_mu": Exercise(
        [2, 3],
        lazy("exercises.07.shape_mu.hint"),
        atol=0,
        about="μ",
        nudge=lazy("exercises.07.shape_mu.nudge"),
        mistakes=(
            Mistake(lazy("exercises.07.shape_mu.m1"), [2, 3, 4]),
            Mistake(lazy("exercises.07.shape_mu.m2"), [2, 3, 1]),
            Mistake(lazy("exercises.07.shape_mu.m3"), [3, 4]),
            Mistake(lazy("exercises.07.shape_mu.m4"), [3]),  # the (n, d) matrix's μ, shape (3,)
            Mistake(lazy("exercises.07.shape_mu.m5"), 2 * 3),  # how many μ there are
        ),
    ),
    "07.count_multi": Exercise(
        2,
        lazy("exercises.07.count_multi.hint"),
        atol=0,
        nudge=lazy("exercises.07.count_multi.nudge"),
        mistakes=(
            Mistake(lazy("exercises.07.count_multi.m1"), 6),
            Mistake(lazy("exercises.07.count_multi.m2"), 12),
            Mistake(lazy("exercises.07.count_multi.m3"), 2 * 3 * 4),
            Mistake(lazy("exercises.07.count_multi.m4"), 1),
        ),
    ),
    "07.image_mu_count": Exercise(
        49,
        lazy("exercises.07.image_mu_count.hint"),
        atol=0,
        nudge=lazy("exercises.07.image_mu_count.nudge"),
        mistakes=(
            Mistake(lazy("exercises.07.image_mu_count.m1"), 64),
            Mistake(lazy("exercises.07.image_mu_count.m2"), 1),
            Mistake(lazy("exercises.07.image_mu_count.m3"), 64 * 49),
        ),
    ),
    "07.param_no_bias": Exercise(
        1024,
        lazy("exercises.07.param_no_bias.hint"),
        nudge=lazy("exercises.07.param_no_bias.nudge"),
        atol=0,
        mistakes=(
            Mistake(lazy("exercises.07.param_no_bias.m1"), 2048),
            Mistake(lazy("exercises.07.param_no_bias.m2"), 0),
            Mistake(lazy("exercises.07.param_no_bias.m3"), 256),
            Mistake(lazy("exercises.07.param_no_bias.m4"), 260),
            Mistake(lazy("exercises.07.param_no_bias.m5"), 768),
            Mistake(lazy("exercises.07.param_no_bias.m6"), 512),
        ),
    ),
}

_S3 = np.sqrt(5)  # σ of [2, 4, 6, 8]


def _dx_row(x, dy, *, mu_term: bool = True, sigma_term: bool = True, scale: bool = True) -> np.ndarray:
    """dx of LayerNorm (γ = 1, ε = 0) for one row, optionally with a term left out: the typical mistakes of 12."""
    x, g = np.asarray(x, dtype=np.float64), np.asarray(dy, dtype=np.float64)
    x_hat = (x - x.mean()) / x.std()
    inside = g - (g.mean() if mu_term else 0.0) - (x_hat * (g * x_hat).mean() if sigma_term else 0.0)
    return inside / x.std() if scale else inside


_APPLE_ROW = TOKEN_MATRIX[2]
_E1, _E4 = np.eye(4)[0], np.eye(4)[3]

_NB08: dict[str, Exercise] = {  # exercises of notebook 08
    "08.bn_col_var": Exercise(
        56,
        lazy("exercises.08.bn_col_var.hint"),
        mistakes=(
            Mistake(lazy("exercises.08.bn_col_var.m1"), 84),
            Mistake(lazy("exercises.08.bn_col_var.m2"), np.sqrt(56), 5e-3),
            Mistake(lazy("exercises.08.bn_col_var.m3"), 168),
            Mistake(lazy("exercises.08.bn_col_var.m4"), (64 + 400 + 4) / 3),
            Mistake(lazy("exercises.08.bn_col_var.m5"), 500),
            Mistake(lazy("exercises.08.bn_col_var.m6"), TOKEN_MATRIX.var()),
            Mistake(lazy("exercises.08.bn_col_var.m7"), TOKEN_MATRIX[_WO].var()),  # a row's: LayerNorm's direction
        ),
    ),
    "08.bn_chi_dim1": Exercise(
        10 / np.sqrt(56),
        lazy("exercises.08.bn_chi_dim1.hint"),
        atol=1e-3,
        mistakes=(
            Mistake(lazy("exercises.08.bn_chi_dim1.m1"), 10 / np.sqrt(84)),
            Mistake(lazy("exercises.08.bn_chi_dim1.m2"), 10 / 56),
            rounded_early(10 / round(np.sqrt(56), 1), lazy("exercises.08.bn_chi_dim1.early1")),
            Mistake(
                lazy("exercises.08.bn_chi_dim1.m3"),
                3 / np.sqrt(5),
            ),
            Mistake(lazy("exercises.08.bn_chi_dim1.m4"), 20 / np.sqrt(56)),
            Mistake(lazy("exercises.08.bn_chi_dim1.m5"), -3 / np.sqrt(5)),
            Mistake(lazy("exercises.08.bn_chi_dim1.m6"), -10 / np.sqrt(56)),
        ),
    ),
    "08.bn_weight_vector": Exercise(
        _UNCHANGED,
        lazy("exercises.08.bn_weight_vector.hint"),
        nudge=lazy("exercises.08.bn_weight_vector.nudge"),
        mistakes=(Mistake(lazy("exercises.08.bn_weight_vector.m1"), _CHANGED),),
    ),
    "08.running_var": Exercise(
        1.1,
        lazy("exercises.08.running_var.hint"),
        mistakes=(
            Mistake(lazy("exercises.08.running_var.m1"), 1.0),
            Mistake(lazy("exercises.08.running_var.m2"), 1.9),
            Mistake(lazy("exercises.08.running_var.m3"), 2.0),
            Mistake(lazy("exercises.08.running_var.m4"), 0.2),
            Mistake(lazy("exercises.08.running_var.m5"), 0.3),
        ),
    ),
    "08.single_case": Exercise(
        "layer",
        lazy("exercises.08.single_case.hint"),
        nudge=lazy("exercises.08.single_case.nudge"),
        mistakes=(
            Mistake(
                lazy("exercises.08.single_case.m1"),
                "batch",
            ),
        ),
    ),
}
_NB09: dict[str, Exercise] = {  # exercises of notebook 09
    "09.deepnorm_alpha": Exercise(
        36**0.25,
        lazy("exercises.09.deepnorm_alpha.hint"),
        mistakes=(
            Mistake(lazy("exercises.09.deepnorm_alpha.m1"), 6),
            Mistake(lazy("exercises.09.deepnorm_alpha.m2"), 144**-0.25),
            Mistake(lazy("exercises.09.deepnorm_alpha.m3"), 18**0.25),
        ),
    ),
    "09.predict_alpha": Exercise(
        12**0.25,
        lazy("exercises.09.predict_alpha.hint"),
        mistakes=(
            Mistake(lazy("exercises.09.predict_alpha.m1"), np.sqrt(12)),
            Mistake(lazy("exercises.09.predict_alpha.m2"), 48**-0.25),
            Mistake(lazy("exercises.09.predict_alpha.m3"), 6**0.25),
        ),
    ),
    "09.deepnorm_beta": Exercise(
        144**-0.25,
        lazy("exercises.09.deepnorm_beta.hint"),
        mistakes=(
            Mistake(lazy("exercises.09.deepnorm_beta.m1"), 144**0.25),
            Mistake(lazy("exercises.09.deepnorm_beta.m2"), 36**0.25),
            Mistake(lazy("exercises.09.deepnorm_beta.m3"), 18**-0.25),
            Mistake(lazy("exercises.09.deepnorm_beta.m4"), 36**-0.25),
        ),
    ),
    "09.pre_ratio": Exercise(
        1 / 3,
        lazy("exercises.09.pre_ratio.hint"),
        atol=0.01,
        mistakes=(
            Mistake(lazy("exercises.09.pre_ratio.m1"), 1 / 9),
            Mistake(lazy("exercises.09.pre_ratio.m2"), 3.0),
            Mistake(lazy("exercises.09.pre_ratio.m3"), 1 / np.sqrt(54)),
            Mistake(lazy("exercises.09.pre_ratio.m4"), (6 / 54) ** 0.25),
        ),
    ),
    "09.which_form": Exercise(
        "post",
        lazy("exercises.09.which_form.hint"),
        nudge=lazy("exercises.09.which_form.nudge"),
        mistakes=(
            Mistake(
                lazy("exercises.09.which_form.m1"),
                "pre",
            ),
        ),
    ),
}
_NB10: dict[str, Exercise] = {  # exercises of notebook 10
    "10.softmax_two": Exercise(
        [0.25, 0.75],
        lazy("exercises.10.softmax_two.hint"),
        mistakes=(
            Mistake(lazy("exercises.10.softmax_two.m1"), [0.75, 0.25]),
            Mistake(lazy("exercises.10.softmax_two.m2"), [1, 3]),
        ),
    ),
    "10.uniform_entropy": Exercise(
        np.log(5),
        lazy("exercises.10.uniform_entropy.hint"),
        mistakes=(
            Mistake(lazy("exercises.10.uniform_entropy.m1"), np.log2(5)),
            Mistake(lazy("exercises.10.uniform_entropy.m2"), np.log10(5)),
            Mistake(lazy("exercises.10.uniform_entropy.m3"), np.log(5) / 5),
            Mistake(lazy("exercises.10.uniform_entropy.m4"), -np.log(5)),
            Mistake(lazy("exercises.10.uniform_entropy.m5"), 1 / 5),
        ),
    ),
    "10.qk_bound": Exercise(
        7,
        lazy("exercises.10.qk_bound.hint"),
        mistakes=(
            Mistake(lazy("exercises.10.qk_bound.m1"), 49),
            Mistake(lazy("exercises.10.qk_bound.m2"), 1),
        ),
    ),
    "10.dot_std": Exercise(
        10,
        lazy("exercises.10.dot_std.hint"),
        atol=0.05,
        mistakes=(
            Mistake(lazy("exercises.10.dot_std.m1"), 100),
            Mistake(lazy("exercises.10.dot_std.m2"), 1),
        ),
    ),
    "10.var_qk": Exercise(
        64,
        lazy("exercises.10.var_qk.hint"),
        atol=0.5,
        mistakes=(
            Mistake(lazy("exercises.10.var_qk.m1"), 8),
            Mistake(lazy("exercises.10.var_qk.m2"), 1),
            Mistake(lazy("exercises.10.var_qk.m3"), 4096),
        ),
    ),
}
_NB11: dict[str, Exercise] = {  # exercises of notebook 11
    "11.rms_apple": Exercise(
        _APPLE_ROW / np.sqrt(30),
        lazy("exercises.11.rms_apple.hint"),
        mistakes=(
            Mistake(lazy("exercises.11.rms_apple.m1"), (_APPLE_ROW - 5) / _S3),
            Mistake(lazy("exercises.11.rms_apple.m2"), _APPLE_ROW / 30),
            rounded_early(_APPLE_ROW / round(np.sqrt(30), 1), lazy("exercises.11.rms_apple.early1")),
            Mistake(lazy("exercises.11.rms_apple.m3"), _APPLE_ROW / np.sqrt(40)),
            Mistake(lazy("exercises.11.rms_apple.m4"), _APPLE_ROW / np.sqrt(120)),
        ),
    ),
    "11.rms_small": Exercise(
        np.array([1, 2, 2, 4]) / 2.5,
        lazy("exercises.11.rms_small.hint"),
        mistakes=(
            Mistake(lazy("exercises.11.rms_small.m1"), (np.array([1, 2, 2, 4]) - 2.25) / np.sqrt(1.1875)),
            Mistake(lazy("exercises.11.rms_small.m2"), np.array([1, 2, 2, 4]) / 6.25),
            Mistake(lazy("exercises.11.rms_small.m3"), np.array([1, 2, 2, 4]) / np.sqrt(25 / 3)),
            Mistake(lazy("exercises.11.rms_small.m4"), np.array([1, 2, 2, 4]) / 5),  # ÷ the L2 norm √25
        ),
    ),
    "11.which_norm": Exercise(
        "rmsnorm",
        lazy("exercises.11.which_norm.hint"),
        nudge=lazy("exercises.11.which_norm.nudge"),
        mistakes=(
            Mistake(
                lazy("exercises.11.which_norm.m1"),
                "layernorm",
            ),
        ),
    ),
}
_NB12: dict[str, Exercise] = {  # exercises of notebook 12
    "12.dbeta_demo": Exercise(
        [1, 0.5, 0, 2],
        lazy("exercises.12.dbeta_demo.hint"),
        mistakes=(Mistake(lazy("exercises.12.dbeta_demo.m1"), [1 / 3, 1 / 6, 0, 2 / 3]),),
    ),
    "12.dgamma_demo": Exercise(
        np.array([3, -0.5, 0, 6]) / _S3,
        lazy("exercises.12.dgamma_demo.hint"),
        atol=2e-3,
        mistakes=(
            Mistake(lazy("exercises.12.dgamma_demo.m1"), [1, 0.5, 0, 2]),
            Mistake(lazy("exercises.12.dgamma_demo.m2"), [8, 20, 0, 16]),
            Mistake(
                lazy("exercises.12.dgamma_demo.m3"),
                np.array([-3, 0.5, 0, -6]) / _S3,
            ),
        ),
    ),
    "12.dx_first": Exercise(
        _dx_row(_APPLE_ROW, _E1)[0],
        lazy("exercises.12.dx_first.hint"),
        mistakes=(
            Mistake(lazy("exercises.12.dx_first.m1"), _dx_row(_APPLE_ROW, _E1, scale=False)[0]),
            Mistake(lazy("exercises.12.dx_first.m2"), _dx_row(_APPLE_ROW, _E1, sigma_term=False)[0]),
            Mistake(lazy("exercises.12.dx_first.m3"), _dx_row(_APPLE_ROW, _E1, mu_term=False)[0]),
            Mistake(
                lazy("exercises.12.dx_first.m4"),
                _dx_row(_APPLE_ROW, _E1, mu_term=False, sigma_term=False)[0],
            ),
            Mistake(lazy("exercises.12.dx_first.m5"), -_dx_row(_APPLE_ROW, _E1)[0]),
        ),
    ),
    "12.dx_last": Exercise(
        _dx_row(_APPLE_ROW, _E1 + _E4),
        lazy("exercises.12.dx_last.hint"),
        nudge=lazy("exercises.12.dx_last.nudge"),
        mistakes=(
            Mistake(
                lazy("exercises.12.dx_last.m1"),
                _dx_row(_APPLE_ROW, _E1),
            ),
            Mistake(lazy("exercises.12.dx_last.m2"), _dx_row(_APPLE_ROW, _E4)),
            Mistake(lazy("exercises.12.dx_last.m3"), _dx_row(_APPLE_ROW, _E1 + _E4, scale=False)),
            Mistake(
                lazy("exercises.12.dx_last.m4"),
                _dx_row(_APPLE_ROW, _E1 + _E4, mu_term=False),
            ),
        ),
    ),
    "12.dbeta": Exercise(
        [4, 3, 1, 1],
        lazy("exercises.12.dbeta.hint"),
        mistakes=(Mistake(lazy("exercises.12.dbeta.m1"), [4 / 3, 1, 1 / 3, 1 / 3]),),
    ),
    "12.sum_dx": Exercise(
        -0.2,
        lazy("exercises.12.sum_dx.hint"),
        mistakes=(
            Mistake(lazy("exercises.12.sum_dx.m1"), 0.2),
            Mistake(lazy("exercises.12.sum_dx.m2"), 0),
        ),
    ),
    "12.scale": Exercise(
        0.375,
        lazy("exercises.12.scale.hint"),
        nudge=lazy("exercises.12.scale.nudge"),
        mistakes=(
            Mistake(lazy("exercises.12.scale.m1"), 1 / 8),
            Mistake(lazy("exercises.12.scale.m2"), 3),
            Mistake(lazy("exercises.12.scale.m3"), 24),
            Mistake(lazy("exercises.12.scale.m4"), 1),
            Mistake(lazy("exercises.12.scale.m5"), 3 / 64),
            Mistake(lazy("exercises.12.scale.m6"), 8 / 3, 0.005),
        ),
    ),
}
_NB13: dict[str, Exercise] = {  # exercises of notebook 13
    "13.spacing": Exercise(
        0.0625,
        lazy("exercises.13.spacing.hint"),
        atol=1e-6,
        mistakes=(
            Mistake(lazy("exercises.13.spacing.m1"), 0.0977, 2e-3),
            Mistake(lazy("exercises.13.spacing.m2"), float(np.spacing(1e6)), 1e-12),
        ),
    ),
    "13.one_pass_f32": Exercise(
        0,
        lazy("exercises.13.one_pass_f32.hint"),
        atol=0.01,
        mistakes=(Mistake(lazy("exercises.13.one_pass_f32.m1"), 1.25),),
    ),
    "13.var_true": Exercise(
        5,
        lazy("exercises.13.var_true.hint"),
        mistakes=row_mistakes(np.array([[1e5, 1e5 + 2, 1e5 + 4, 1e5 + 6]]), 0, "variance")
        + (Mistake(lazy("exercises.13.var_true.m1"), 0),),
    ),
    "13.float16_overflow": Exercise(
        256,
        lazy("exercises.13.float16_overflow.hint"),
        nudge=lazy("exercises.13.float16_overflow.nudge"),
        atol=0,
        mistakes=(
            Mistake(lazy("exercises.13.float16_overflow.m1"), 255),
            Mistake(lazy("exercises.13.float16_overflow.m2"), np.sqrt(65504), 0.06),
            Mistake(lazy("exercises.13.float16_overflow.m3"), 65504),
        ),
    ),
    "13.welford_m2": Exercise(
        200,
        lazy("exercises.13.welford_m2.hint"),
        mistakes=(
            Mistake(lazy("exercises.13.welford_m2.m1"), 200 / 3),
            Mistake(lazy("exercises.13.welford_m2.m2"), 1400),
        ),
    ),
}
_NB14: dict[str, Exercise] = {  # exercises of notebook 14: one or more per earlier notebook
    "14.residual": Exercise(
        [1.5, 2, 4, 6],
        lazy("exercises.14.residual.hint"),
        mistakes=(Mistake(lazy("exercises.14.residual.m1"), [-0.5, -4, 0, -4]),),
    ),
    "14.count_means": Exercise(
        10,
        lazy("exercises.14.count_means.hint"),
        atol=0,
        mistakes=(
            Mistake(lazy("exercises.14.count_means.m1"), 2),
            Mistake(lazy("exercises.14.count_means.m2"), 8),
            Mistake(lazy("exercises.14.count_means.m3"), 80),
        ),
    ),
    "14.variance": Exercise(
        9,
        lazy("exercises.14.variance.hint"),
        mistakes=row_mistakes(np.array([[2.0, 4.0, 4.0, 10.0]]), 0, "variance"),
    ),
    "14.xhat_last": Exercise(
        5 / 3,
        lazy("exercises.14.xhat_last.hint"),
        mistakes=(
            Mistake(lazy("exercises.14.xhat_last.m1"), 5 / 9),
            Mistake(lazy("exercises.14.xhat_last.m2"), 5 / np.sqrt(12)),
            Mistake(lazy("exercises.14.xhat_last.m3"), 10 / 3),
        ),
    ),
    "14.constant_row": Exercise(
        [0, 0, 0, 0],
        lazy("exercises.14.constant_row.hint"),
        not_finite=lazy("exercises.14.constant_row.nan"),
        atol=1e-9,
        mistakes=(
            Mistake(lazy("exercises.14.constant_row.m1"), [4, 4, 4, 4]),
            Mistake(lazy("exercises.14.constant_row.m2"), [1, 1, 1, 1]),
        ),
    ),
    "14.lost": Exercise(
        "b",
        lazy("exercises.14.lost.hint"),
        options={
            "a": ("各维之间谁高谁低的顺序", "the order of the dimensions, from highest to lowest"),
            "b": ("这一行整体的平均值", "the overall mean of the row"),
            "c": ("各维之间差距的比例", "the ratios of the gaps between the dimensions"),
        },
        mistakes=(
            Mistake(lazy("exercises.14.lost.m1"), "a"),
            Mistake(lazy("exercises.14.lost.m2"), "c"),
        ),
    ),
    "14.affine": Exercise(
        2 * -1.342 + 1,
        lazy("exercises.14.affine.hint"),
        atol=2e-3,
        mistakes=(
            Mistake(lazy("exercises.14.affine.m1"), 2 * -1.342),
            Mistake(lazy("exercises.14.affine.m2"), 2 * (-1.342 + 1)),
            Mistake(lazy("exercises.14.affine.m3"), -1.342 + 2),
            Mistake(lazy("exercises.14.affine.m4"), -1.342 + 1),
        ),
    ),
    "14.params": Exercise(
        1536, lazy("exercises.14.params.hint"), atol=0, mistakes=(Mistake(lazy("exercises.14.params.m1"), 768),)
    ),
    "14.bn_means": Exercise(
        4,
        lazy("exercises.14.bn_means.hint"),
        atol=0,
        mistakes=(Mistake(lazy("exercises.14.bn_means.m1"), 3),),
    ),
    "14.pre_ln": Exercise(
        "a",
        lazy("exercises.14.pre_ln.hint"),
        options={
            "a": ("x + F(LN(x))", "x + F(LN(x))", "x+F(LN(x))"),
            "b": ("LN(x + F(x))", "LN(x + F(x))", "LN(x+F(x))"),
        },
        mistakes=(
            Mistake(
                lazy("exercises.14.pre_ln.m1"),
                "b",
            ),
        ),
    ),
    "14.attention_scale": Exercise(
        8, lazy("exercises.14.attention_scale.hint"), mistakes=(Mistake(lazy("exercises.14.attention_scale.m1"), 64),)
    ),
    "14.rms_first": Exercise(
        1 / np.sqrt(21),
        lazy("exercises.14.rms_first.hint"),
        mistakes=(
            Mistake(lazy("exercises.14.rms_first.m1"), -3 / _S3),
            Mistake(lazy("exercises.14.rms_first.m2"), 1 / 21),
            Mistake(lazy("exercises.14.rms_first.m3"), 1 / np.sqrt(28)),
            Mistake(lazy("exercises.14.rms_first.m4"), 1 / np.sqrt(84)),  # ÷ the L2 norm √84
        ),
    ),
    "14.dbeta": Exercise(
        [1, 2, 1, 0],
        lazy("exercises.14.dbeta.hint"),
        mistakes=(Mistake(lazy("exercises.14.dbeta.m1"), [0.5, 1, 0.5, 0]),),
    ),
    "14.dgamma": Exercise(
        [1, -2, 1, 0],
        lazy("exercises.14.dgamma.hint"),
        mistakes=(
            Mistake(lazy("exercises.14.dgamma.m1"), [1, 2, 1, 0]),
            Mistake(lazy("exercises.14.dgamma.m2"), [-1, -2, 1, 0]),
        ),
    ),
    "14.dx_constant": Exercise(
        [0, 0, 0, 0],
        lazy("exercises.14.dx_constant.hint"),
        atol=1e-6,
        mistakes=(
            Mistake(lazy("exercises.14.dx_constant.m1"), [1 / _S3] * 4),
            Mistake(lazy("exercises.14.dx_constant.m2"), [1, 1, 1, 1]),
        ),
    ),
    "14.merge_m2": Exercise(
        40,
        lazy("exercises.14.merge_m2.hint"),
        mistakes=(
            Mistake(lazy("exercises.14.merge_m2.m1"), 4),
            Mistake(lazy("exercises.14.merge_m2.m2"), 10),
            Mistake(lazy("exercises.14.merge_m2.m3"), 148),
            Mistake(
                lazy("exercises.14.merge_m2.m4"),
                float(((np.array([6.0, 8.0]) - 4) ** 2).sum()),
            ),
        ),
    ),
    "14.one_pass": Exercise(
        "b",
        lazy("exercises.14.one_pass.hint"),
        synonyms=("onepass", "one-pass"),
        options={
            "a": ("两遍法：先求 μ，再求 (x-μ)^2 的平均", "two-pass: μ first, then the mean of (x-μ)^2", "两遍法"),
            "b": ("一遍法：E[x^2] - E[x]^2", "one-pass: E[x^2] - E[x]^2", "一遍法", "e[x^2]-e[x]^2", "e[x²]-e[x]²"),
            "c": ("Welford 逐个更新", "Welford, updating one number at a time", "welford"),
        },
        mistakes=(
            Mistake(lazy("exercises.14.one_pass.m1"), "a"),
            Mistake(lazy("exercises.14.one_pass.m2"), "c"),
        ),
    ),
}

_NB15: dict[str, Exercise] = {  # exercises of notebook 15
    "15.predict_depth": Exercise(
        "b",
        lazy("exercises.15.predict_depth.hint"),
        options={
            "a": ("差不多一样大", "about the same", "一样大", "1", "the same"),
            "b": (
                "小很多，大约只有十分之一",
                "much smaller, about a tenth",
                "十分之一",
                "0.1",
                "1/10",
                "约0.1",
                "小很多",
            ),
            "c": ("大很多，大约是 10 倍", "much larger, about 10 times", "10倍", "10", "大很多", "10 times"),
        },
        mistakes=(
            Mistake(lazy("exercises.15.predict_depth.m1"), "a"),
            Mistake(lazy("exercises.15.predict_depth.m2"), "c"),
        ),
    ),
    "15.predict_batch1": Exercise(
        0.333,
        lazy("exercises.15.predict_batch1.hint"),
        atol=0.02,
        nudge=lazy("exercises.15.predict_batch1.nudge"),
        mistakes=(
            Mistake(lazy("exercises.15.predict_batch1.m1"), 0.5),
            Mistake(lazy("exercises.15.predict_batch1.m2"), 1.0),
            Mistake(
                lazy("exercises.15.predict_batch1.m3"),
                0,
                0,
            ),
        ),
    ),
    "15.predict_post": Exercise(
        "pre",
        lazy("exercises.15.predict_post.hint"),
        nudge=lazy("exercises.15.predict_post.nudge"),
        mistakes=(Mistake(lazy("exercises.15.predict_post.m1"), "post"),),
    ),
    "15.warmup_value": Exercise(
        2e-4,
        lazy("exercises.15.warmup_value.hint"),
        atol=1e-9,
        nudge=lazy("exercises.15.warmup_value.nudge"),
        mistakes=(
            Mistake(lazy("exercises.15.warmup_value.m1"), 1.8e-4),
            Mistake(lazy("exercises.15.warmup_value.m2"), 1e-3),
            Mistake(lazy("exercises.15.warmup_value.m3"), 1e-3 / 10 / 50),
            Mistake(lazy("exercises.15.warmup_value.m4"), 10 / 50),  # η forgotten
            Mistake(lazy("exercises.15.warmup_value.m5"), 9 / 50),  # η forgotten, and t for t + 1
            Mistake(lazy("exercises.15.warmup_value.m6"), 1e-3 * 1 / 50),  # (t + 1) forgotten: step 0's rate
        ),
    ),
    "15.predict_scale": Exercise(
        "a",
        lazy("exercises.15.predict_scale.hint"),
        options={
            "a": ("无归一化", "no normalization", "none"),
            "b": ("LayerNorm", "LayerNorm"),
            "c": ("四种都学得会", "all four learn"),
        },
        mistakes=(
            Mistake(lazy("exercises.15.predict_scale.m1"), "b"),
            Mistake(lazy("exercises.15.predict_scale.m2"), "c"),
        ),
    ),
}

# Notebook 16: the row of 果 entering layer 1's first LayerNorm in the tiny trained model (lnlib.tiny_lm), as the
# notebook shows it, 3 significant digits (tests/test_tiny_lm.py checks these against the shipped weights).
_GUO_X = np.array([-0.0480, 0.0884, -0.0246])  # its first three dimensions
_GUO_MU, _GUO_SIGMA = 0.00188, 0.0844  # its μ and √(σ² + ε)
_NB16: dict[str, Exercise] = {  # exercises of notebook 16
    "16.predict_sigma": Exercise(
        "c",
        lazy("exercises.16.predict_sigma.hint"),
        options={
            "a": ("约 20，和玩具矩阵的「吃」差不多", "about 20, like 吃 in the toy matrix", "约 20", "20"),
            "b": ("约 2，和玩具矩阵的「我」「苹果」差不多", "about 2, like 我 and 苹果 in the toy matrix", "约 2", "2"),
            "c": ("约 0.1", "about 0.1", "0.1", "1/10"),
        },
        mistakes=(
            Mistake(lazy("exercises.16.predict_sigma.m1"), "b"),
            Mistake(lazy("exercises.16.predict_sigma.m2"), "a"),
        ),
    ),
    "16.xhat_guo": Exercise(
        (_GUO_X - _GUO_MU) / _GUO_SIGMA,
        lazy("exercises.16.xhat_guo.hint"),
        atol=2e-3,  # the final rounding plus the rounding of the shown x, μ and σ (3 significant digits)
        nudge=lazy("exercises.16.xhat_guo.nudge"),
        sign=SIGN_FLIPPED_CENTER,
        mistakes=(
            Mistake(lazy("exercises.16.xhat_guo.m4"), (_GUO_X + _GUO_MU) / _GUO_SIGMA),
            Mistake(lazy("exercises.16.xhat_guo.m1"), _GUO_X / _GUO_SIGMA),
            Mistake(lazy("exercises.16.xhat_guo.m2"), (_GUO_X - _GUO_MU) / _GUO_SIGMA**2),
            Mistake(lazy("exercises.16.xhat_guo.m3"), _GUO_X - _GUO_MU),
        ),
    ),
    "16.predict_ablation": Exercise(
        "b",
        lazy("exercises.16.predict_ablation.hint"),
        options={
            "a": ("去掉", "remove it"),
            "b": ("换成 RMSNorm", "replace it with RMSNorm", "rmsnorm", "rms"),
            "c": ("冻结统计量", "freeze its statistics"),
        },
        mistakes=(
            Mistake(lazy("exercises.16.predict_ablation.m1"), "a"),
            Mistake(lazy("exercises.16.predict_ablation.m2"), "c"),
        ),
    ),
    "16.predict_final": Exercise(
        "b",
        lazy("exercises.16.predict_final.hint"),
        options={
            "a": ("损失和准确率都大幅变差", "both the loss and the accuracy get much worse"),
            "b": (
                "损失明显变大，准确率几乎不变",
                "the loss grows clearly, the accuracy hardly changes",
                "损失明显变大",
            ),
            "c": ("损失和准确率都几乎不变", "both the loss and the accuracy hardly change"),
        },
        mistakes=(
            Mistake(lazy("exercises.16.predict_final.m1"), "a"),
            Mistake(lazy("exercises.16.predict_final.m2"), "c"),
        ),
    ),
    "16.eps_shrink": Exercise(
        0.1 / np.sqrt(0.1**2 + 0.01),
        lazy("exercises.16.eps_shrink.hint"),
        atol=5e-4,
        nudge=lazy("exercises.16.eps_shrink.nudge"),
        mistakes=(
            Mistake(lazy("exercises.16.eps_shrink.m1"), np.sqrt(0.02) / 0.1),
            Mistake(lazy("exercises.16.eps_shrink.m2"), 0.1 / 0.11),
            Mistake(lazy("exercises.16.eps_shrink.m3"), 0.5),
        ),
    ),
}


def _quiz_nudge(key: str, exercise: Exercise) -> Exercise:
    """A quiz question (notebook 14) names its notebook: an answer no mistake explains is sent back there."""
    if key.startswith("14.") and not exercise.nudge:
        return replace(exercise, nudge=lazy("exercises.14.quiz_nudge"))
    return exercise


EXERCISES: dict[str, Exercise] = {
    key: _quiz_nudge(key, exercise)
    for name, table in sorted(globals().items())
    if name.startswith("_NB")
    for key, exercise in table.items()
}

REVEALED = frozenset(
    "01.apple_times_w 02.table_mean 03.centered_apple 03.mean_apple 03.std_apple 03.variance_apple 03.xhat_apple "
    "04.eps_denominator 04.eps_inside_small 04.var_ratio 05.norm_squared 06.mean_y_apple 06.y_first 07.count_multi "
    "07.shape_mu 08.bn_chi_dim1 09.predict_alpha 10.var_qk 11.rms_apple 12.dgamma_demo 12.dx_first 13.one_pass_f32 "
    "15.predict_batch1 15.predict_depth 15.predict_post 15.predict_scale 16.predict_ablation 16.predict_final "
    "16.predict_sigma 16.xhat_guo".split()
)
"""The exercises a `%%reveal` cell answers once they are tried (the predict questions and the sums checked by a
reveal; tests/test_reader_findings.py checks this against the notebooks): after a wrong first answer the answer is on
screen, so `lnlib.progress()` counts only their first answer."""


def judge(name: str, answer) -> Verdict:
    """The verdict on a learner's answer to exercise `name` (what `check` prints, without printing it)."""
    if not isinstance(name, str):
        raise TypeError(f"name: expected an exercise name such as '03.mean_pear', got {name!r}")
    if name not in EXERCISES:
        known = ", ".join(sorted(EXERCISES))
        raise ValueError(f"name: unknown exercise {name!r}; known exercises: {known}")
    return grade(EXERCISES[name], answer)


def check(name: str, answer) -> None:
    """Print ✓ or ✗ with the reason for a learner's answer; display nothing else.

    The first two wrong tries name the mistake (or give a nudge), never the answer: the first says when the solution
    comes, the second where it is now (`lnlib.hint(name)`). The third wrong try of the same exercise and every later
    one gives the worked solution and the answer, labelled as such (what `lnlib.hint` prints). A right answer is
    recorded for `lnlib.progress()` (silently skipped when the data folder cannot be written) and starts the tries
    over.
    """
    verdict = judge(name, answer)
    if answer is None:
        print(message("feedback.check_unanswered", name=name))
    elif verdict.ok:
        note = _record.record_right(name)
        print(message("feedback.check_right", name=name) + (f"\n{note}" if note else ""))
    elif not verdict.first:  # not an answer to judge (not a number, a letter and words that disagree): no try
        print(message("feedback.check_wrong", name=name, text=verdict.message))
    else:
        tries = _record.tried(name)
        if name in REVEALED:  # a judged wrong answer opens the reveal: the first answer stands
            _record.record_first_wrong(name)
        if tries <= HINT_AFTER:
            first_try = "feedback.next_try_reveal" if name in REVEALED else "feedback.next_try"
            more = message(first_try) if tries < HINT_AFTER else message("feedback.check_hint_now", name=name)
            print(message("feedback.check_wrong", name=name, text=verdict.first) + "\n  " + more)
        else:
            print(message("feedback.check_wrong", name=name, text=verdict.said or verdict.first))
            print("  " + message("feedback.check_solution", hint=EXERCISES[name].hint, answer=answer_text(name)))


def answer_text(name: str) -> str:
    """The answer of exercise `name` as the solution shows it: a word (a lettered option with its words) in 「」, or
    numbers to the decimals asked."""
    from .grading import show_array

    ex = EXERCISES[name]
    if isinstance(ex.expected, str):
        words = ex.options.get(ex.expected, ())
        if words:  # the option's words as this language's notebook prints them
            shown = words[1] if language() != "zh" and len(words) > 1 else words[0]
            return message("feedback.quoted_word", word=f"({ex.expected}) {shown}")
        return message("feedback.quoted_word", word=str(_CODE_WORDS.get(ex.expected, ex.expected)))
    decimals = 3 if ex.atol >= 5e-4 else 6
    return show_array(np.round(np.asarray(ex.expected, dtype=np.float64), decimals), 7)
