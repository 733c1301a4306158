"""The optimiser of `lnlib.training`: Adam over the parameters of R runs at once, and the warm-up schedule."""

from __future__ import annotations

import math

import numpy as np

from ._train_kernels import ADAM_EPS, BETA1, BETA2, adam_kernel  # Adam's constants live with its compiled update


def warmup_lr(step: int, lr: float, warmup_steps: int) -> float:
    """Linear warm-up: lr·(step + 1)/warmup_steps for the first warmup_steps steps (step counts from 0), then lr."""
    if warmup_steps <= 0:
        return float(lr)
    return float(lr) * min(1.0, (step + 1) / warmup_steps)


def adam_step(param, grad, m, v, t: int, lr: float, *, beta1=BETA1, beta2=BETA2, eps=ADAM_EPS):
    """One Adam step (Kingma & Ba 2015) at step t = 1, 2, …; returns the new (param, m, v).

    m ← β1·m + (1 − β1)·g,  v ← β2·v + (1 − β2)·g²,  param ← param − lr · m̂ / (√v̂ + ε)
    with the bias corrections m̂ = m / (1 − β1^t), v̂ = v / (1 − β2^t).
    """
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad * grad
    m_hat = m / (1 - beta1**t)
    v_hat = v / (1 - beta2**t)
    return param - lr * m_hat / (np.sqrt(v_hat) + eps), m, v


class Params:
    """Named parameter arrays of R runs, each of shape (R, *shape) and a view of ONE (R, P) matrix `flat`;
    their gradients are views of a second matrix `grad` of the same shape (the backward passes write into them).
    """

    def __init__(self, arrays: dict[str, np.ndarray]):
        runs = len(next(iter(arrays.values())))
        sizes = {k: a[0].size for k, a in arrays.items()}
        self.flat = np.empty((runs, sum(sizes.values())))
        self.grad = np.zeros_like(self.flat)
        self.values: dict[str, np.ndarray] = {}
        self.grads: dict[str, np.ndarray] = {}
        start = 0
        for k, a in arrays.items():
            cols = slice(start, start + sizes[k])
            self.values[k] = self.flat[:, cols].reshape(a.shape)
            self.values[k][...] = a
            self.grads[k] = self.grad[:, cols].reshape(a.shape)
            start += sizes[k]

    @property
    def runs(self) -> int:
        return len(self.flat)

    def subset(self, rows) -> Params:
        """A new Params holding only the runs `rows` (a boolean mask or indices): values and gradients copied."""
        new = Params({k: v[rows] for k, v in self.values.items()})
        new.grad[...] = self.grad[rows]
        return new

    def grad_copy(self) -> dict[str, np.ndarray]:
        return {k: g.copy() for k, g in self.grads.items()}


class Adam:
    """Adam over a `Params` (all runs at once, each with its own learning rate), in place. The update is
    `adam_step`'s in the cheaper order Kingma & Ba give at the end of their section 2, with the bias corrections
    folded into two numbers: param ← param − (lr·√c2 / c1) · m / (√v + ε·√c2), c1 = 1 − β1^t, c2 = 1 − β2^t.
    m and v are bit for bit `adam_step`'s, the parameters equal up to rounding (12 passes over them, not 14).
    Where numba is there (and NUMBA_DISABLE_JIT is not set) the twelve passes run as one compiled loop with the
    same bits (`_adam_rows`); otherwise the (R, P) matrices are updated a block of columns at a time, so the
    passes work on data still in cache."""

    BLOCK = 32768  # elements (all runs together) per block: measured best on a 2-core EPYC (bench_training.py)

    def __init__(self, params: Params, *, compiled: bool = True):
        self.m, self.v, self.t = np.zeros_like(params.flat), np.zeros_like(params.flat), 0
        self.compiled = compiled  # False: always the numpy passes (tests compare the two)
        self._use(params)

    def _use(self, params: Params) -> None:
        self.params = params
        runs, size = params.flat.shape
        self.cols = max(1024, self.BLOCK // runs)
        self._a, self._b = np.empty((runs, min(self.cols, size))), np.empty((runs, min(self.cols, size)))

    def step(self, lr) -> None:
        """One step with learning rate `lr` (a number, or one per run)."""
        self.t += 1
        root_c2 = math.sqrt(1 - BETA2**self.t)
        size = np.asarray(lr, dtype=np.float64).reshape(-1, 1) * (root_c2 / (1 - BETA1**self.t))  # per run
        eps = ADAM_EPS * root_c2
        flat, grad, total = self.params.flat, self.params.grad, self.params.flat.shape[1]
        kernel = adam_kernel() if self.compiled else None
        if kernel is not None:  # one pass instead of 12, the same bits (see _adam_rows)
            kernel(flat, grad, self.m, self.v, np.broadcast_to(size, (len(flat), 1)).copy(), eps)
            return
        for start in range(0, total, self.cols):
            cols = slice(start, min(start + self.cols, total))
            p, g, m, v = flat[:, cols], grad[:, cols], self.m[:, cols], self.v[:, cols]
            a, b = self._a[:, : p.shape[1]], self._b[:, : p.shape[1]]
            m *= BETA1  # m ← β1·m + (1 − β1)·g
            np.multiply(g, 1 - BETA1, out=a)
            m += a
            v *= BETA2  # v ← β2·v + (1 − β2)·g·g
            np.multiply(g, 1 - BETA2, out=a)
            a *= g
            v += a
            np.sqrt(v, out=b)  # the step
            b += eps
            np.divide(m, b, out=a)
            a *= size
            p -= a

    def keep(self, rows, params: Params) -> None:
        """Go on with only the runs `rows` (a boolean mask) of the moments, over `params` (those runs' Params)."""
        self.m, self.v = self.m[rows], self.v[rows]
        self._use(params)
