"""Train notebook 16's tiny character-level Transformer and write its weights: `python -m tools.train_tiny_lm`.

It regenerates the corpus (`lnlib.tiny_corpus.generate`, written to lnlib/tiny_lm_*.txt), trains
`lnlib.tiny_lm.train` from the fixed seed (width 32, 2 layers, 2 heads, context 16, 3000 Adam steps of 32
windows) and writes lnlib/tiny_lm_weights.npz: the float64 parameters, the vocabulary, the shape and the losses of
the first `RECORD` steps. It prints the weights' digest (`lnlib.tiny_lm.digest`, sha256 over the values).

Reproducibility, honestly: the run is a fixed sequence of float64 numpy operations with one seeded generator, so on
one machine with one BLAS kernel it gives the same bits every time and the digest matches `lnlib.tiny_lm.DIGEST`.
Another BLAS kernel (another CPU, or OPENBLAS_CORETYPE=Prescott) sums some products in another order: the last bits
differ, they grow over 3000 steps, and the digest differs although the model is as good. What holds everywhere is
what the tests check: the first steps' losses agree with the stored ones to 1e-9 relative, and the held-out
numbers the notebook shows (rounded to 3 significant digits) come from the shipped file, never from a new run.

`--check` trains without writing anything and exits 1 unless the digest equals `lnlib.tiny_lm.DIGEST`.
Time on the course's 2-core EPYC: 25 s at light load, 51 s with three other test runs going (load average 10).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from lnlib import tiny_corpus, tiny_lm

from .course import ROOT

OUT = ROOT / "lnlib" / tiny_lm.WEIGHTS_FILE


def config() -> tiny_lm.Config:
    texts = tiny_corpus.generate()
    return tiny_lm.Config("".join(sorted(set(texts["train"] + texts["heldout"]))))


def run(seed: int = tiny_lm.TRAIN_SEED) -> tuple[tiny_lm.Config, dict[str, np.ndarray], np.ndarray]:
    cfg = config()
    params, losses = tiny_lm.train(cfg, tiny_corpus.generate()["train"], seed=seed)
    return cfg, params, losses


def save(path: Path, cfg: tiny_lm.Config, params: dict[str, np.ndarray], losses: np.ndarray) -> None:
    shape = np.array([cfg.width, cfg.layers, cfg.heads, cfg.context, cfg.hidden])
    arrays = {k.replace(".", "__"): v for k, v in params.items()}
    np.savez_compressed(path, vocab=np.array(cfg.vocab), shape=shape, first_losses=losses[: tiny_lm.RECORD], **arrays)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="train, compare the digest, write nothing")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    if not args.check:
        tiny_corpus.write(ROOT / "lnlib")
    cfg, params, losses = run()
    found = tiny_lm.digest(params)
    print(
        f"trained {len(losses)} steps in {time.perf_counter() - start:.0f} s; "
        f"last 50 steps' loss {losses[-50:].mean():.4f}"
    )
    print(f"digest {found}")
    if args.check:
        same = found == tiny_lm.DIGEST
        print("matches lnlib.tiny_lm.DIGEST" if same else f"differs from lnlib.tiny_lm.DIGEST = {tiny_lm.DIGEST}")
        return 0 if same else 1
    save(OUT, cfg, params, losses)
    print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
