"""Compute notebook 15's outcome map and store it: `python -m tools.loss_map` (about a minute).

It trains lnlib's 8-block MLP at every (normalization, initial weight scale, learning rate, seed) of
`lnlib.training_map` and writes the final losses to lnlib/outcome_map.json, which the notebook reads (training
all 720 runs in the notebook would take far longer than its 20 s budget). tests/test_loss_map.py retrains cells
of the map and compares them with the stored file at the precision the notebook shows.
"""

from __future__ import annotations

import argparse
import sys
import time

from lnlib import training_map


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="recompute and fail if the stored file differs")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    text = training_map.outcome_map().to_json()
    if args.check:
        same = training_map.PATH.read_text(encoding="utf-8") == text
        print("outcome_map.json is up to date" if same else "outcome_map.json differs from a fresh computation")
        return 0 if same else 1
    training_map.PATH.write_text(text, encoding="utf-8")
    print(f"wrote {training_map.PATH.name} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
