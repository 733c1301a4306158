"""The code exercises (`CODE_EXERCISES`) and `check_function(name, fn)`, the ✓/✗ of a code cell. Each is a
`code_grading.CodeExercise` (judged there): its signature, a reference from lnlib, random and edge inputs (`Case`s,
fixed seed), its misconceptions as wrong functions (`WrongWay`), a nudge, a near-miss text and the solution (`hint`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from . import _record, transformer
from .code_grading import ANY, TIME_LIMIT, Case, CodeExercise, FunctionVerdict, WrongWay, given, judge_code
from .data import TOKEN_MATRIX
from .grad import layer_norm_backward
from .grading import show_number
from .i18n import Msg, lazy, message
from .norms import BatchNorm, layer_norm, rms_norm
from .optim import adam_step, warmup_lr
from .stages import mean, variance, variance_shares

__all__ = [
    "CODE_EXERCISES",
    "TIME_LIMIT",
    "Case",
    "CodeExercise",
    "FunctionVerdict",
    "WrongWay",
    "check_function",
    "judge_function",
]

# ---------------------------------------------------------------- inputs


def _rng() -> np.random.Generator:
    return np.random.default_rng(2016)  # fixed: the same cases in every run


def _row_cases(extra: tuple = (), *, offset: float = 1e8) -> list[Case]:
    """The standard inputs of a row-wise normalization: extra args (γ, β …) are built to match d."""
    rng = _rng()
    d = 8

    def params(dim: int) -> tuple:
        return tuple(p(dim, rng) for p in extra)

    row = rng.normal(size=d)
    batch = rng.normal(size=(2, 3, d))
    f32 = rng.normal(size=(3, d)).astype(np.float32)
    return [
        Case(lazy("codex.case.row.1"), (TOKEN_MATRIX.copy(), *params(4))),
        Case(lazy("codex.case.row.2"), (np.full(4, 3.0), *params(4))),
        Case(
            lazy("codex.case.row.3"),
            (5 + 0.001 * np.array([-3.0, -1, 1, 3]), *params(4)),
        ),
        Case(lazy("codex.case.row.4"), (row, *params(d))),
        Case(lazy("codex.case.row.offset", offset=show_number(offset)), (row[:4] + offset, *params(4)), 1e-5, 1e-5),
        Case(lazy("codex.case.row.5"), (batch, *params(d))),
        Case(lazy("codex.case.row.6"), (f32, *params(d)), 1e-4, 1e-4),
    ]


def _gamma(dim: int, rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(0.5, 2.0, size=dim)


def _beta(dim: int, rng: np.random.Generator) -> np.ndarray:
    return rng.normal(size=dim)


def _layer_norm_cases() -> list[Case]:
    return _row_cases((_gamma, _beta))


def _rms_norm_cases() -> list[Case]:
    rng = _rng()
    rows = [c for c in _row_cases((_gamma,)) if c.label != lazy("codex.case.row.3")]
    constant = lazy("codex.case.rms.constant")  # RMS = 3 there: ε has nothing to do
    return [
        *(replace(c, label=constant) if c.label == lazy("codex.case.row.2") else c for c in rows),
        Case(lazy("codex.case.rms.1"), (np.zeros(4), np.ones(4))),
        Case(
            lazy("codex.case.rms.2"),
            (0.001 * np.array([1.0, -2, 1, 2]), _gamma(4, rng)),
        ),
    ]


def _backward_cases() -> list[Case]:
    rng = _rng()
    out = []
    for case in _row_cases((_gamma,)):
        x, gamma = case.args
        dy = rng.normal(size=np.shape(x))
        out.append(Case(case.label, (dy, x, gamma), case.rtol * 10, case.atol * 10))
    return out


def _batch_norm_cases() -> list[Case]:
    rng = _rng()
    x = rng.normal(2.0, 3.0, size=(5, 3))
    rm, rv = rng.normal(size=3), rng.uniform(0.5, 2.0, size=3)
    const = x.copy()
    const[:, 1] = 7.0
    small = x.copy()
    small[:, 2] = 5 + 0.001 * np.array([-2.0, -1, 0, 1, 2])
    return [
        Case(lazy("codex.case.batch.1"), (x, rm, rv, True)),
        Case(lazy("codex.case.batch.2"), (x, rm, rv, False)),
        Case(lazy("codex.case.batch.3"), (const, rm, rv, True)),
        Case(lazy("codex.case.batch.4"), (small, rm, rv, True)),
        Case(lazy("codex.case.batch.5"), (x + 1e8, rm, rv, True), 1e-5, 1e-5),
        Case(lazy("codex.case.batch.6"), (rng.normal(size=(2, 4, 3)), rm, rv, True)),
        Case(lazy("codex.case.batch.7"), (x.astype(np.float32), rm, rv, True), 1e-4, 1e-4),
    ]


@given(lazy("codex.given.sublayer"))
def _block_sublayer(x: np.ndarray) -> np.ndarray:
    """The fixed sublayer F of the Pre-LN exercise: tanh of a fixed linear map (the same in every run)."""
    d = x.shape[-1]
    w = np.cos(np.arange(d * d, dtype=np.float64).reshape(d, d))
    return np.tanh(x @ w / np.sqrt(d))


def _pre_ln_cases() -> list[Case]:
    return [Case(c.label, (c.args[0], _block_sublayer, *c.args[1:]), c.rtol, c.atol) for c in _layer_norm_cases()]


def _softmax_cases() -> list[Case]:
    rng = _rng()
    return [
        Case("[0, ln 3]", (np.array([0.0, np.log(3.0)]),)),
        Case(lazy("codex.case.softmax.1"), (rng.normal(size=6),)),
        Case(lazy("codex.case.softmax.2"), (np.array([1000.0, 1001.0, 1002.0]),)),
        Case(lazy("codex.case.softmax.3"), (np.array([-1000.0, -1001.0, -1002.0]),)),
        Case(lazy("codex.case.softmax.4"), (np.full(4, 5.0),)),
        Case(
            lazy("codex.case.softmax.5"),
            (np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1001.0, -1002.0]]),),
        ),
        Case(lazy("codex.case.softmax.6"), (rng.normal(size=(2, 3, 3)) * 5,)),
        Case(lazy("codex.case.softmax.7"), (rng.normal(size=(3, 5)).astype(np.float32),), 1e-5, 1e-6),
    ]


def _attention_cases() -> list[Case]:
    rng = _rng()
    t, d = 3, 4
    q, k, v = (rng.normal(size=(t, d)) for _ in range(3))
    return [
        Case(lazy("codex.case.attention.1"), (TOKEN_MATRIX.copy(),) * 3),
        Case(lazy("codex.case.attention.2"), (q, k, v)),
        Case(lazy("codex.case.attention.3"), (q * 100, k * 100, v)),
        Case(
            lazy("codex.case.attention.4"), (rng.normal(size=(2, d)), rng.normal(size=(5, d)), rng.normal(size=(5, 2)))
        ),
        Case(lazy("codex.case.attention.5"), tuple(rng.normal(size=(2, t, d)) for _ in range(3))),
        Case(
            lazy("codex.case.attention.6"),
            tuple(rng.normal(size=(t, d)).astype(np.float32) for _ in range(3)),
            1e-4,
            1e-5,
        ),
    ]


def _merge_cases() -> list[Case]:
    rng = _rng()

    def summary(values) -> tuple[int, float, float]:
        v = np.asarray(values, dtype=np.float64)
        if v.size == 0:
            return (0, 0.0, 0.0)
        return (v.size, float(mean(v)), float(variance(v) * v.size))

    a, b = rng.normal(size=5), rng.normal(3.0, 2.0, size=8)
    return [
        Case(lazy("codex.case.merge.1"), (summary([1, 2, 3]), summary([4, 5]))),
        Case(lazy("codex.case.merge.2"), (summary(a), summary(b))),
        Case(lazy("codex.case.merge.3"), (summary([]), summary(b))),
        Case(lazy("codex.case.merge.4"), (summary(a), summary([]))),
        Case(lazy("codex.case.merge.5"), (summary([2.0]), summary([6.0]))),
        Case(lazy("codex.case.merge.6"), (summary([]), summary([]))),
        Case(lazy("codex.case.merge.7"), (summary(a + 1e8), summary(b + 1e8)), 1e-9, 1e-6),
    ]


# ---------------------------------------------------------------- references (lnlib)


def _warmup_cases() -> list[Case]:
    steps = [(0, 1e-3, 50), (9, 1e-3, 50), (49, 1e-3, 50), (120, 1e-3, 50), (5, 0.1, 0), (3, 2.0, 4)]
    labels = [
        lazy("codex.case.warmup.1"),
        lazy("codex.case.warmup.2"),
        lazy("codex.case.warmup.3"),
        lazy("codex.case.warmup.4"),
        lazy("codex.case.warmup.5"),
    ]
    labels.append(lazy("codex.case.warmup.6"))
    return [Case(label, args, rtol=1e-9, atol=1e-15) for label, args in zip(labels, steps, strict=True)]


def _shares_cases() -> list[Case]:
    rng = _rng()
    offsets = rng.normal(0, 1e3, (12, 1))  # each row its own large μ: only a per-row μ removes it
    outlier = 0.1 * rng.normal(size=(30, 8))
    outlier[:, 5] += rng.choice([-2.0, 2.0], 30)
    return [
        Case(lazy("codex.case.shares.1"), (rng.normal(size=(20, 8)),), rtol=1e-9, atol=1e-12),
        Case(lazy("codex.case.shares.2"), (offsets + rng.normal(size=(12, 6)),), rtol=1e-6, atol=1e-9),
        Case(lazy("codex.case.shares.3"), (outlier,), rtol=1e-9, atol=1e-12),
        Case(lazy("codex.case.shares.4"), (rng.normal(size=(1, 4)),), rtol=1e-9, atol=1e-12),
    ]


def _shares_way(rows, *, way=""):
    rows = _f(rows)
    if way == "columns":
        centred = rows - rows.mean(axis=0, keepdims=True)
    elif way == "global":
        centred = rows - rows.mean()
    elif way == "none":
        centred = rows
    else:
        centred = rows - rows.mean(axis=-1, keepdims=True)
    total = (centred**2).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):  # column-centred single row: 0 / 0
        return total if way == "unnormalized" else total / total.sum()


def _adam_cases() -> list[Case]:
    rng = _rng()
    first = (np.zeros(3), np.array([0.5, -2.0, 1e-3]), np.zeros(3), np.zeros(3), 1, 0.1)
    cases = [Case(lazy("codex.case.adam.1"), first)]
    # a gradient as small as ε: only here does ε's value show (1e-7 instead of 1e-8 moves it 0.05 → 0.009)
    tiny = (np.zeros(2), np.array([1e-8, -3e-8]), np.zeros(2), np.zeros(2), 1, 0.1)
    cases.append(Case(lazy("codex.case.adam.tiny"), tiny))
    for t in (2, 10):
        p, g = rng.normal(size=4), rng.normal(size=4)
        cases.append(
            Case(lazy("codex.case.adam.step", t=t), (p, g, 0.1 * rng.normal(size=4), 0.01 * rng.random(4), t, 1e-3))
        )
    return cases


def _ref_layer_norm(x, gamma, beta, eps=1e-5):
    return layer_norm(x, gamma, beta, eps=eps)


def _ref_rms_norm(x, gamma, eps=1e-6):
    return rms_norm(x, gamma, eps=eps)


def _ref_batch_norm(x, running_mean, running_var, training, momentum=0.1, eps=1e-5):
    bn = BatchNorm(np.shape(x)[-1], eps=eps, momentum=momentum)
    bn.running_mean, bn.running_var = np.array(running_mean, dtype=np.float64), np.array(running_var, dtype=float)
    bn.training = bool(training)
    y = bn(x)
    return y, bn.running_mean, bn.running_var


def _ref_backward(dy, x, gamma, eps=1e-5):
    return layer_norm_backward(dy, x, gamma, eps=eps)


def _ref_pre_ln(x, sublayer, gamma, beta, eps=1e-5):
    return np.asarray(x, dtype=np.float64) + sublayer(layer_norm(x, gamma, beta, eps=eps))


def _ref_softmax(z):
    return transformer.softmax(z)


def _ref_attention(q, k, v):
    return transformer.attention(q, k, v)[0]


def _ref_merge(a, b):
    (na, ma, m2a), (nb, mb, m2b) = a, b
    n = na + nb
    if n == 0:
        return (0, 0.0, 0.0)
    delta = mb - ma
    return (n, ma + delta * nb / n, m2a + m2b + delta * delta * na * nb / n)


# ---------------------------------------------------------------- the misconceptions, as code


def _f(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _ln_way(
    x, gamma, beta, eps=1e-5, *, axis=-1, ddof=0, center=True, root=True, eps_in=True, rms=False, one_pass=False
):
    """LayerNorm with one thing done wrong: the statistics' axis, ddof, no centering, no root, ε outside the root,
    the one-pass variance E[x²] − E[x]²."""
    x = _f(x)
    mu = x.mean(axis=axis, keepdims=True)
    n = x.size if axis is None else x.shape[axis]
    dev = x - mu
    var = (x * x if rms else dev * dev).sum(axis=axis, keepdims=True) / (n - ddof)
    if one_pass:
        var = (x * x).mean(axis=axis, keepdims=True) - mu * mu
    if eps_in is None:  # no ε at all
        scale = np.sqrt(var)
    elif root:
        scale = np.sqrt(var + eps) if eps_in else np.sqrt(var) + eps
    else:
        scale = var + eps
    return gamma * ((dev if center else x) / scale) + beta


def _rms_way(x, gamma, eps=1e-6, *, ddof=0, center=False, eps_in=True, root=True):
    x = _f(x)
    if center:
        x = x - x.mean(axis=-1, keepdims=True)
    ms = (x * x).sum(axis=-1, keepdims=True) / (x.shape[-1] - ddof)
    if eps_in is None:
        scale = np.sqrt(ms)
    elif not root:
        scale = ms + eps
    else:
        scale = np.sqrt(ms + eps) if eps_in else np.sqrt(ms) + eps
    return x / scale * gamma


def _softmax_way(z, *, axis=-1, stable=True):
    z = _f(z)
    if stable == "global":  # one maximum for the whole array
        e = np.exp(z - z.max())
        return e / e.sum(axis=axis, keepdims=True)
    e = np.exp(z - z.max(axis=axis, keepdims=True) if stable else z)
    return e / e.sum(axis=axis, keepdims=True)


def _attention_way(q, k, v, *, scale="sqrt", axis=-1, stable=True):
    q, k, v = _f(q), _f(k), _f(v)
    d = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2)
    scores = scores / {"sqrt": np.sqrt(d), "d": d, "none": 1.0}[scale]
    return _softmax_way(scores, axis=axis, stable=stable) @ v


def _pre_ln_way(x, sublayer, gamma, beta, eps=1e-5, *, form="pre"):
    x = _f(x)
    ln = layer_norm(x, gamma, beta, eps=eps)
    return {
        "post": lambda: layer_norm(x + sublayer(x), gamma, beta, eps=eps),
        "no_residual": lambda: sublayer(ln),
        "normalized_residual": lambda: ln + sublayer(ln),
        "no_norm": lambda: x + sublayer(x),
    }[form]()


def _bn_way(x, running_mean, running_var, training, momentum=0.1, eps=1e-5, *, way=""):
    x = _f(x)
    rm, rv = _f(running_mean), _f(running_var)
    axes = tuple(range(x.ndim - 1))
    n = int(np.prod([x.shape[a] for a in axes]))
    mu, var = x.mean(axis=axes), x.var(axis=axes)
    if way == "layer_axis":  # only its training output is characteristic
        return (_ln_way(x, 1.0, 0.0, eps), ANY, ANY) if training else (ANY, ANY, ANY)
    unbiased = var * n / (n - 1)
    if not training:
        if way == "eval_batch":
            return (x - mu) / np.sqrt(var + eps), rm, rv
        if way == "eval_update":
            return (
                (x - rm) / np.sqrt(rv + eps),
                (1 - momentum) * rm + momentum * mu,
                (1 - momentum) * rv + momentum * unbiased,
            )
        return (x - rm) / np.sqrt(rv + eps), rm, rv
    if way == "unbiased_norm":
        y = (x - mu) / np.sqrt(unbiased + eps)
    elif way == "eps_out":
        y = (x - mu) / (np.sqrt(var) + eps)
    else:
        y = (x - mu) / np.sqrt(var + eps)
    batch_var = var if way == "biased" else var * n / (n - 1)
    if way == "flipped":
        return y, momentum * rm + (1 - momentum) * mu, momentum * rv + (1 - momentum) * batch_var
    return y, (1 - momentum) * rm + momentum * mu, (1 - momentum) * rv + momentum * batch_var


def _backward_way(
    dy, x, gamma, eps=1e-5, *, mean_term=True, xhat_term=True, use_gamma=True, swap=False, averaged=False
):
    dy, x = _f(dy), _f(x)
    mu = x.mean(axis=-1, keepdims=True)
    r = 1 / np.sqrt(((x - mu) ** 2).mean(axis=-1, keepdims=True) + eps)
    x_hat = (x - mu) * r
    g = dy * gamma if use_gamma else dy
    inside = g.copy()
    if mean_term:
        inside = inside - g.mean(axis=-1, keepdims=True)
    if xhat_term:
        inside = inside - x_hat * (g * x_hat).mean(axis=-1, keepdims=True)
    axes = tuple(range(x.ndim - 1))
    dgamma, dbeta = (dy * x_hat).sum(axis=axes), dy.sum(axis=axes)
    if averaged:  # averaged over the tokens instead of summed
        tokens = int(np.prod([x.shape[a] for a in axes]))
        dgamma, dbeta = dgamma / tokens, dbeta / tokens
    return (inside * r, dbeta, dgamma) if swap else (inside * r, dgamma, dbeta)


def _merge_way(a, b, *, way=""):
    (na, ma, m2a), (nb, mb, m2b) = a, b
    n = na + nb
    if way == "unweighted":
        return n, (ma + mb) / 2, ANY
    if n == 0 and way != "no_empty":
        return 0, 0.0, 0.0
    delta = mb - ma
    mean = ma + delta * nb / n  # raises ZeroDivisionError for n = 0 (plain Python numbers)
    cross = 0.0 if way == "no_cross" else delta * delta * na * nb / n
    return n, mean, m2a + m2b + cross


def _warmup_way(step, lr, warmup_steps, *, way=""):
    if way == "no_zero":
        return lr * min(1.0, (step + 1) / warmup_steps)
    if warmup_steps == 0:
        return lr
    if way == "t_over_w":
        return lr * min(1.0, step / warmup_steps)
    return lr * (step + 1) / warmup_steps  # "endless": never stops growing


def _adam_way(param, grad, m, v, t, lr, *, way=""):
    b1, b2 = (0.999, 0.9) if way == "swapped" else (0.9, 0.999)
    eps = 1e-7 if way == "eps_keras" else 1e-8
    param, grad = _f(param), _f(grad)
    m = b1 * _f(m) + (1 - b1) * grad
    v = b2 * _f(v) + (1 - b2) * grad**2
    if way == "no_correction":
        return param - lr * m / (np.sqrt(v) + eps), m, v
    k = t + 1 if way == "t_plus_1" else t  # the corrections of step t + 1: t counted from 0
    m_hat, v_hat = m / (1 - b1**k), v / (1 - b2**k)
    if way == "eps_inside":
        return param - lr * m_hat / np.sqrt(v_hat + eps), m, v
    if way == "hat_state":  # the corrected m̂, v̂ handed on as the state
        return param - lr * m_hat / (np.sqrt(v_hat) + eps), m_hat, v_hat
    return param - lr * m_hat / (np.sqrt(v_hat) + eps), m, v


def _ways(fn: Callable, table: list[tuple[str | Msg, dict | list[dict]]]) -> tuple[WrongWay, ...]:
    return tuple(
        WrongWay(why, lambda *a, _kw=kw: fn(*a, **_kw))
        for why, kws in table
        for kw in ([kws] if isinstance(kws, dict) else kws)
    )


_EPS_OUT = lazy("codex.way.eps_out")
_NO_EPS = lazy("codex.way.no_eps")
_DDOF = lazy("codex.way.ddof")
_NO_ROOT = lazy("codex.way.no_root")
_COLUMNS = lazy("codex.way.columns")
_WHOLE = lazy("codex.way.whole")
_NO_CENTER = lazy("codex.way.no_center")
_SWAPPED_GB = lazy("codex.way.swapped_gb")
_ONE_PASS = lazy("codex.way.one_pass")

_LN_WAYS = _ways(
    _ln_way,
    [
        (_EPS_OUT, {"eps_in": False}),
        (_NO_EPS, {"eps_in": None}),
        (_DDOF, {"ddof": 1}),
        (_NO_ROOT, {"root": False}),
        (_COLUMNS, [{"axis": 0}, {"axis": -2}]),
        (_WHOLE, {"axis": None}),
        (_NO_CENTER, [{"center": False}, {"center": False, "rms": True}]),
        (_ONE_PASS, {"one_pass": True}),
    ],
) + (WrongWay(_SWAPPED_GB, lambda x, gamma, beta, eps=1e-5: _ln_way(x, beta, gamma, eps)),)

_RMS_WAYS = _ways(
    _rms_way,
    [
        (lazy("codex.way.rms.1"), {"center": True}),
        (lazy("codex.way.rms.2"), {"eps_in": False}),
        (lazy("codex.way.rms.3"), {"eps_in": None}),
        (lazy("codex.way.rms.4"), {"ddof": 1}),
        (lazy("codex.way.rms.5"), {"root": False}),
    ],
)

_SOFTMAX_WAYS = _ways(
    _softmax_way,
    [
        (
            lazy("codex.way.softmax.1"),
            {"stable": False},
        ),
        (lazy("codex.way.softmax.2"), [{"axis": 0}, {"axis": 0, "stable": False}]),
        (
            lazy("codex.way.softmax.3"),
            {"stable": "global"},
        ),
    ],
)

_ATTENTION_WAYS = _ways(
    _attention_way,
    [
        (
            lazy("codex.way.attention.1"),
            [{"scale": "d"}, {"scale": "d", "stable": False}],
        ),
        (lazy("codex.way.attention.2"), [{"scale": "none"}, {"scale": "none", "stable": False}]),
        (
            lazy("codex.way.attention.3"),
            [{"axis": -2}, {"axis": -2, "stable": False}],
        ),
        (lazy("codex.way.attention.4"), {"stable": False}),
    ],
)

_PRE_LN_WAYS = _ways(
    _pre_ln_way,
    [
        (lazy("codex.way.pre_ln.1"), {"form": "post"}),
        (lazy("codex.way.pre_ln.2"), {"form": "no_residual"}),
        (lazy("codex.way.pre_ln.3"), {"form": "normalized_residual"}),
        (lazy("codex.way.pre_ln.4"), {"form": "no_norm"}),
    ],
)

_BN_WAYS = _ways(
    _bn_way,
    [
        (lazy("codex.way.bn.1"), {"way": "biased"}),
        (
            lazy("codex.way.bn.2"),
            {"way": "flipped"},
        ),
        (lazy("codex.way.bn.3"), {"way": "eval_batch"}),
        (
            lazy("codex.way.bn.4"),
            {"way": "eval_update"},
        ),
        (
            lazy("codex.way.bn.5"),
            {"way": "unbiased_norm"},
        ),
        (_EPS_OUT, {"way": "eps_out"}),
        (
            lazy("codex.way.bn.6"),
            {"way": "layer_axis"},
        ),
    ],
)

_BACKWARD_WAYS = _ways(
    _backward_way,
    [
        (lazy("codex.way.backward.1"), {"mean_term": False}),
        (lazy("codex.way.backward.2"), {"xhat_term": False}),
        (lazy("codex.way.backward.3"), {"use_gamma": False}),
        (lazy("codex.way.backward.4"), {"swap": True}),
        (
            lazy("codex.way.backward.5"),
            {"averaged": True},
        ),
    ],
)

_MERGE_WAYS = _ways(
    _merge_way,
    [
        (lazy("codex.way.merge.1"), {"way": "unweighted"}),
        (lazy("codex.way.merge.2"), {"way": "no_cross"}),
        (lazy("codex.way.merge.3"), {"way": "no_empty"}),
    ],
)

_WARMUP_WAYS = _ways(
    _warmup_way,
    [
        (lazy("codex.way.warmup.1"), {"way": "t_over_w"}),
        (lazy("codex.way.warmup.2"), {"way": "endless"}),
        (lazy("codex.way.warmup.3"), {"way": "no_zero"}),
    ],
)

_SHARES_WAYS = _ways(
    _shares_way,
    [
        (lazy("codex.way.shares.1"), {"way": "columns"}),
        (lazy("codex.way.shares.2"), {"way": "global"}),
        (lazy("codex.way.shares.3"), {"way": "none"}),
        (lazy("codex.way.shares.4"), {"way": "unnormalized"}),
    ],
)

_ADAM_WAYS = _ways(
    _adam_way,
    [
        (lazy("codex.way.adam.1"), {"way": "no_correction"}),
        (lazy("codex.way.adam.2"), {"way": "swapped"}),
        (lazy("codex.way.adam.hat_state"), {"way": "hat_state"}),
        (lazy("codex.way.adam.eps_inside"), {"way": "eps_inside"}),
        (lazy("codex.way.adam.t_plus_1"), {"way": "t_plus_1"}),
        (lazy("codex.way.adam.eps_keras"), {"way": "eps_keras"}),
    ],
)


CODE_EXERCISES: dict[str, CodeExercise] = {
    "07.layer_norm": CodeExercise(
        "layer_norm(x, gamma, beta, eps=1e-5)",
        _ref_layer_norm,
        _layer_norm_cases,
        lazy("codex.07.layer_norm.hint"),
        nudge=lazy("codex.07.layer_norm.nudge"),
        near=lazy("codex.07.layer_norm.near"),
        mistakes=_LN_WAYS,
    ),
    "08.batch_norm": CodeExercise(
        "batch_norm(x, running_mean, running_var, training, momentum=0.1, eps=1e-5)"
        " -> (y, new_running_mean, new_running_var)",
        _ref_batch_norm,
        _batch_norm_cases,
        lazy("codex.08.batch_norm.hint"),
        nudge=lazy("codex.08.batch_norm.nudge"),
        near=lazy("codex.08.batch_norm.near"),
        mistakes=_BN_WAYS,
    ),
    "09.pre_ln_block": CodeExercise(
        "pre_ln_block(x, sublayer, gamma, beta, eps=1e-5)",
        _ref_pre_ln,
        _pre_ln_cases,
        lazy("codex.09.pre_ln_block.hint"),
        nudge=lazy("codex.09.pre_ln_block.nudge"),
        near=lazy("codex.09.pre_ln_block.near"),
        mistakes=_PRE_LN_WAYS,
    ),
    "10.softmax": CodeExercise(
        "softmax(z)",
        _ref_softmax,
        _softmax_cases,
        lazy("codex.10.softmax.hint"),
        nudge=lazy("codex.10.softmax.nudge"),
        near=lazy("codex.10.softmax.near"),
        mistakes=_SOFTMAX_WAYS,
    ),
    "10.attention": CodeExercise(
        "attention(q, k, v)",
        _ref_attention,
        _attention_cases,
        lazy("codex.10.attention.hint"),
        nudge=lazy("codex.10.attention.nudge"),
        near=lazy("codex.10.attention.near"),
        mistakes=_ATTENTION_WAYS,
    ),
    "11.rms_norm": CodeExercise(
        "rms_norm(x, gamma, eps=1e-6)",
        _ref_rms_norm,
        _rms_norm_cases,
        lazy("codex.11.rms_norm.hint"),
        nudge=lazy("codex.11.rms_norm.nudge"),
        near=lazy("codex.11.rms_norm.near"),
        mistakes=_RMS_WAYS,
    ),
    "12.layer_norm_backward": CodeExercise(
        "layer_norm_backward(dy, x, gamma, eps=1e-5) -> (dx, dgamma, dbeta)",
        _ref_backward,
        _backward_cases,
        lazy("codex.12.layer_norm_backward.hint"),
        nudge=lazy("codex.12.layer_norm_backward.nudge"),
        near=lazy("codex.12.layer_norm_backward.near"),
        mistakes=_BACKWARD_WAYS,
    ),
    "13.welford_merge": CodeExercise(
        lazy("codex.13.welford_merge.signature"),
        _ref_merge,
        _merge_cases,
        lazy("codex.13.welford_merge.hint"),
        nudge=lazy("codex.13.welford_merge.nudge"),
        near=lazy("codex.13.welford_merge.near"),
        mistakes=_MERGE_WAYS,
    ),
    "15.warmup_lr": CodeExercise(
        "warmup_lr(step, lr, warmup_steps)",
        warmup_lr,
        _warmup_cases,
        lazy("codex.15.warmup_lr.hint"),
        nudge=lazy("codex.15.warmup_lr.nudge"),
        near=lazy("codex.15.warmup_lr.near"),
        mistakes=_WARMUP_WAYS,
    ),
    "15.adam_step": CodeExercise(
        "adam_step(param, grad, m, v, t, lr) -> (new_param, new_m, new_v)",
        adam_step,
        _adam_cases,
        lazy("codex.15.adam_step.hint"),
        nudge=lazy("codex.15.adam_step.nudge"),
        near=lazy("codex.15.adam_step.near"),
        mistakes=_ADAM_WAYS,
    ),
    "16.variance_shares": CodeExercise(
        lazy("codex.16.variance_shares.signature"),
        variance_shares,
        _shares_cases,
        lazy("codex.16.variance_shares.hint"),
        nudge=lazy("codex.16.variance_shares.nudge"),
        near=lazy("codex.16.variance_shares.near"),
        mistakes=_SHARES_WAYS,
    ),
}


def judge_function(name: str, fn, *, cases: list[Case] | None = None) -> FunctionVerdict:
    """Run `fn` on every case of code exercise `name` (or on `cases`, e.g. a graded assignment's own inputs); the
    verdict `check_function` prints."""
    if not isinstance(name, str):
        raise TypeError(f"name: expected a code exercise name such as '07.layer_norm', got {name!r}")
    if name not in CODE_EXERCISES:
        raise ValueError(f"name: unknown code exercise {name!r}; known: {', '.join(sorted(CODE_EXERCISES))}")
    return judge_code(name, CODE_EXERCISES[name], fn, cases)


def check_function(name: str, fn) -> None:
    """Run a learner's function against lnlib on random and edge inputs; print which case failed, or ✓.

    A first wrong try names the failing case (and the mistake, when one is recognised); later tries add a nudge
    about the concept; the full solution only comes from `lnlib.hint(name)`.
    """
    verdict = judge_function(name, fn)
    if verdict.ok:
        note = _record.record_right(name)
        text = verdict.message + (f"\n{note}" if note else "")
    elif verdict.failed == "placeholder":
        text = verdict.message
    else:
        text = verdict.text(_record.tried(name))
    first, _, rest = text.partition("\n")
    print(message("code.with_name", text=first, name=name) + (f"\n{rest}" if rest else ""))
