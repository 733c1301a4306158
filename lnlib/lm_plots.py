"""Figures and tables of notebook 16 (LayerNorm inside the tiny trained Transformer, `lnlib.tiny_lm`).

Built like `lnlib.training_plots`: every figure is a matplotlib `Figure` not registered with pyplot, with labels and
an alt text built from the data (messages of the catalogue domain `figures`); each series has an Okabe–Ito colour and
its own marker and dash. Numbers are shown to 3 significant digits (`sig`), so what a table displays is the same on
every CPU and BLAS kernel (the forward pass differs between them only in the last bits).
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from .figure_kit import GUIDE, MUTED_INK, OKABE_ITO, new_figure, outlined, use_cjk_font
from .i18n import Words, message
from .labels import dim_label, token_label
from .tables import Grid, Table
from .tiny_lm import Forward, Score, norm_label

_SERIES = [  # colour, line style, marker: apart in grey too; sky blue and yellow are drawn cased (plots.outlined)
    (OKABE_ITO["black"], "-", "o"),
    (OKABE_ITO["blue"], "--", "s"),
    (OKABE_ITO["vermillion"], "-.", "^"),
    (OKABE_ITO["sky_blue"], ":", "D"),
    (OKABE_ITO["yellow"], (0, (5, 1, 1, 1)), "v"),
    (OKABE_ITO["black"], ":", "x"),
    (OKABE_ITO["blue"], "-.", "P"),
    (OKABE_ITO["vermillion"], ":", "*"),
]
SHORT = Words({"attn": "figures.lm.short.attn", "mlp": "figures.lm.short.mlp"})


def sig(v: float, digits: int = 3) -> str:
    """A number to `digits` significant digits, as a person writes it: 0.0844, 1.10, −0.00188, 12.4 (never −0)."""
    v = float(v)
    if v == 0 or not np.isfinite(v):
        return "0" if v == 0 else str(v)
    text = f"{v:#.{digits}g}"
    if "e" in text:  # 1e-05 → 1e-5, 2.50e-07 → 2.5e-7
        mantissa, exp = text.split("e")
        return f"{mantissa.rstrip('0').rstrip('.')}e{int(exp)}"
    text = text.rstrip(".")
    return "0" if not text.strip("-0.") else text


def short_label(name: str) -> str:
    """The short name of a LayerNorm: "1.attn" → 1·注意力前; final → 最终."""
    if name == "final":
        return message("figures.lm.short.final")
    layer, part = name.split(".")
    return message("figures.lm.short", layer=layer, part=SHORT[part])


def _char(i: int, ch: str) -> str:
    """The label of the i-th character (0-based) of a sentence: "3 苹" (a token of the example glossed in English)."""
    return f"{i + 1} {token_label(ch)}"


def _table(rows: dict, columns, caption: str, index_name: str) -> Table:
    return Table(Grid.of(list(rows.values()), list(rows), list(columns), index_name), caption)


def score_table(scores: dict[str, Score], *, caption: str = "") -> Table:
    """Held-out loss, perplexity (e^loss) and accuracy of each model, one row each."""
    rows = {name: [sig(s.loss), sig(math.exp(s.loss)), f"{s.accuracy:.1%}"] for name, s in scores.items()}
    columns = [message("figures.lm.col.loss_nats"), message("figures.lm.col.perplexity")]
    columns.append(message("figures.lm.col.next_accuracy"))
    return _table(rows, columns, caption, message("figures.lm.index.model"))


def token_stats_table(fwd: Forward, text: str, names, stat: str, *, caption: str = "") -> Table:
    """μ or σ (stat "mu" / "sigma") of every character's row, one column per LayerNorm."""
    values = fwd.mu if stat == "mu" else fwd.sigma
    rows = {_char(i, ch): [sig(values[n][0, i, 0]) for n in names] for i, ch in enumerate(text)}
    return _table(rows, [short_label(n) for n in names], caption, message("figures.lm.index.char"))


def ablation_table(base: Score, rows: dict[str, Score], *, caption: str = "") -> Table:
    """Each ablation's held-out loss and accuracy, and the change of the loss from the unchanged model."""
    out = {message("figures.lm.unchanged"): [sig(base.loss), f"{base.accuracy:.1%}", "0.000"]}
    for name, s in rows.items():
        delta = s.loss - base.loss
        change = f"{delta:+.3f}"
        out[name] = [sig(s.loss), f"{s.accuracy:.1%}", "0.000" if change in ("+0.000", "-0.000") else change]
    columns = [
        message("figures.lm.col.loss"),
        message("figures.lm.col.accuracy"),
        message("figures.lm.col.loss_change"),
    ]
    return _table(out, columns, caption, message("figures.lm.index.method"))


def _sigma_alt(text: str, names, sigma: np.ndarray) -> str:
    parts = [
        message("figures.lm.sigma_part", char=token_label(ch), first=sig(sigma[i, 0]), last=sig(sigma[i, -1]))
        for i, ch in enumerate(text)
    ]
    return message("figures.lm.sigma_alt", text=text, count=len(names), parts=message("figures.sep.clause").join(parts))


def sigma_by_depth(fwd: Forward, text: str, names, *, toy_sigma: float = 5**0.5, title: str = "") -> Figure:
    """σ of each character's row at every LayerNorm (log axis), with the toy matrix's σ as a dashed line."""
    use_cjk_font()
    sigma = np.stack([fwd.sigma[n][0, :, 0] for n in names], axis=1)  # (T, names)
    fig = new_figure((7.2, 3.8), _sigma_alt(text, names, sigma))
    ax = fig.add_subplot()
    x = np.arange(len(names))
    for i, ch in enumerate(text):
        color, dash, marker = _SERIES[i % len(_SERIES)]
        ax.plot(x, sigma[i], color=color, linestyle=dash, marker=marker, label=_char(i, ch), **outlined(color))
    ax.axhline(toy_sigma, color=MUTED_INK, linestyle="--", linewidth=1, gid="guide")
    ax.annotate(
        message("figures.lm.toy_sigma", sigma=sig(toy_sigma)),
        (0, toy_sigma),
        xytext=(0, -12),
        textcoords="offset points",
    )
    ax.set_yscale("log")
    ax.set_xticks(x, [short_label(n) for n in names])
    ax.set_xlabel(message("figures.lm.sigma_xlabel"))
    ax.set_ylabel(message("figures.lm.sigma_ylabel"))
    ax.grid(True, color=GUIDE, linewidth=0.6)
    ax.legend(title=message("figures.lm.index.char"), fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title(title or message("figures.lm.sigma_title", text=text))
    return fig


def share_bars(shares: np.ndarray, name: str, *, title: str = "") -> Figure:
    """Each dimension's share of Σ(x − μ)² over many rows entering LayerNorm `name`, largest marked."""
    use_cjk_font()
    shares = np.asarray(shares, dtype=np.float64)
    d = len(shares)
    order = np.argsort(shares)[::-1]
    top = message("figures.sep.list").join(f"{dim_label(j + 1)} {shares[j]:.0%}" for j in order[:3])
    total, even = f"{shares[order[:3]].sum():.0%}", f"{1 / d:.1%}"
    alt = message("figures.lm.share_alt", name=norm_label(name), d=d, top=top, total=total, even=even)
    fig = new_figure((7.2, 3.2), alt)
    ax = fig.add_subplot()
    colors = [OKABE_ITO["vermillion"] if j in order[:3] else OKABE_ITO["blue"] for j in range(d)]
    ax.bar(np.arange(1, d + 1), shares * 100, color=colors, hatch=None)
    for j in order[:3]:
        ax.annotate(
            f"{shares[j]:.0%}", (j + 1, shares[j] * 100), xytext=(0, 2), textcoords="offset points", ha="center"
        )
    ax.axhline(100 / d, color=MUTED_INK, linestyle="--", linewidth=1, gid="guide")
    ax.annotate(
        message("figures.lm.even_share", share=f"{100 / d:.1f}"),
        (d, 100 / d),
        xytext=(0, 3),
        textcoords="offset points",
        ha="right",
    )
    ax.set_xlabel(message("figures.lm.dimension"))
    ax.set_ylabel(message("figures.lm.share_ylabel"))
    ax.set_xlim(0.2, d + 0.8)
    ax.set_ylim(0, shares.max() * 100 * 1.15)  # room for the largest bar's label under the title
    ax.set_title(title or message("figures.lm.share_title", name=norm_label(name)))
    return fig


def eps_curve(eps, losses, sigma2_band, *, default_eps: float = 1e-5, title: str = "") -> Figure:
    """Held-out loss against ε (log axis), with the band of real σ² values of the rows shaded."""
    use_cjk_font()
    eps, losses = np.asarray(eps, dtype=np.float64), np.asarray(losses, dtype=np.float64)
    low, high = sigma2_band
    alt = message(
        "figures.lm.eps_alt",
        lo=f"{eps[0]:g}",
        hi=f"{eps[-1]:g}",
        loss_lo=sig(losses[0]),
        loss_hi=sig(losses[-1]),
        low=sig(low),
        high=sig(high),
    )
    fig = new_figure((7.2, 3.4), alt)
    ax = fig.add_subplot()
    ax.axvspan(low, high, color=OKABE_ITO["sky_blue"], alpha=0.35, linewidth=0)
    ax.annotate(message("figures.lm.band"), (np.sqrt(low * high), losses.max()), ha="center", va="top")
    color, dash, marker = _SERIES[0]
    ax.plot(eps, losses, color=color, linestyle=dash, marker=marker, **outlined(color))
    ax.axvline(default_eps, color=OKABE_ITO["vermillion"], linestyle="--", linewidth=1, gid="guide")
    ax.annotate(
        message("figures.lm.train_eps", eps=f"{default_eps:g}"),
        (default_eps, losses.min()),
        xytext=(4, 4),
        textcoords="offset points",
    )
    ax.set_xscale("log")
    ax.set_xlabel(message("figures.lm.eps_xlabel"))
    ax.set_ylabel(message("figures.lm.eps_ylabel"))
    ax.grid(True, color=GUIDE, linewidth=0.6)
    ax.set_title(title or message("figures.lm.eps_title"))
    return fig


def explorer_table(fwd: Forward, text: str, name: str, guesses, *, dims: int = 4) -> Table:
    """One row per character: μ, σ, the first `dims` entries of x̂, its largest |x̂| and the model's next guess."""
    xhat = fwd.xhat[name][0]
    rows = {}
    for i, ch in enumerate(text):
        j = int(np.argmax(np.abs(xhat[i])))
        guess, p = guesses[i]
        rows[_char(i, ch)] = [
            sig(fwd.mu[name][0, i, 0]),
            sig(fwd.sigma[name][0, i, 0]),
            *(sig(v) for v in xhat[i, :dims]),
            message("figures.lm.largest", dim=dim_label(j + 1), value=sig(xhat[i, j])),
            message("figures.lm.guess", guess=token_label(guess), p=f"{p:.0%}"),
        ]
    columns = ["μ", "σ", *(f"x̂ {dim_label(k + 1)}" for k in range(dims))]
    columns += [message("figures.lm.col.largest"), message("figures.lm.col.guess")]
    caption = message("figures.lm.explorer_caption", name=norm_label(name))
    return _table(rows, columns, caption, message("figures.lm.index.char"))


def depth_table(fwd: Forward, names, *, caption: str = "") -> Table:
    """Over every row of a batch (the held-out text), per LayerNorm: the mean |μ| and σ's 5 %, 50 %, 95 % points."""
    rows = {}
    for n in names:
        s = fwd.sigma[n].ravel()
        low, mid, high = np.percentile(s, [5, 50, 95])
        rows[norm_label(n)] = [sig(np.abs(fwd.mu[n]).mean()), sig(low), sig(mid), sig(high)]
    columns = [message(k) for k in ("figures.lm.col.mean_abs_mu", "figures.lm.col.sigma_5")]
    columns += [message(k) for k in ("figures.lm.col.sigma_50", "figures.lm.col.sigma_95")]
    return _table(rows, columns, caption, "LayerNorm")


def share_table(shares: dict[str, np.ndarray], *, caption: str = "") -> Table:
    """Per LayerNorm: the largest dimension's share of the variance and the three largest together."""
    rows = {}
    for n, s in shares.items():
        order = np.argsort(s)[::-1]
        rows[norm_label(n)] = [dim_label(order[0] + 1), f"{s[order[0]]:.1%}", f"{s[order[:3]].sum():.1%}"]
    d = len(next(iter(shares.values())))
    columns = [message("figures.lm.col.largest_dim"), message("figures.lm.col.its_share")]
    columns.append(message("figures.lm.col.top3", even=f"{3 / d:.1%}"))
    return _table(rows, columns, caption, "LayerNorm")
