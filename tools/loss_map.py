"""Compute notebook 15's outcome map and store it: `python -m tools.loss_map` (about a minute).

It trains lnlib's 8-block MLP at every (normalization, initial weight scale, learning rate, seed) of
`lnlib.training_map` and writes the final losses to lnlib/outcome_map.json, and the small-batch runs of its
section 2 (2 norms x 4 batch sizes x 5 seeds) to lnlib/small_batch.json and its Transformer grid on 5 seeds to
lnlib/transformer_seeds.json; the notebook reads them (training these 800 runs in the notebook would take far
longer than its 20 s budget). `--only small_batch` recomputes one part. tests/test_loss_map.py retrains cells
of the map and compares them with the stored file at the precision the notebook shows.
"""

from __future__ import annotations

import argparse
import sys
import time

from lnlib import training_map

PARTS = {  # name: (file, how to compute its text)
    "map": (training_map.PATH, lambda: training_map.outcome_map().to_json()),
    "small_batch": (training_map.BATCH_PATH, lambda: training_map.small_batch_json(training_map.small_batch_runs())),
    "transformer": (training_map.TF_PATH, lambda: training_map.small_batch_json(training_map.transformer_runs())),
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="recompute and fail if a stored file differs")
    parser.add_argument("--only", choices=sorted(PARTS), action="append", help="compute only this part (repeatable)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    files = {PARTS[name][0]: PARTS[name][1]() for name in args.only or PARTS}
    if args.check:
        stale = [path.name for path, text in files.items() if path.read_text(encoding="utf-8") != text]
        print(f"differ from a fresh computation: {', '.join(stale)}" if stale else "up to date")
        return 1 if stale else 0
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    print(f"wrote {', '.join(path.name for path in files)} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
