"""Compute DepthExplorer's series for every depth at the default width: `python -m tools.depth_series` (seconds).

Writes lnlib/depth_series.json, which the explorer reads instead of computing a depth when the slider reaches
it (a quarter to half a second each). `--check` computes again and compares with the stored file (to 1e-9
relative: another BLAS kernel may change the last bits).
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from lnlib.explorers import depth


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored file instead of writing it")
    args = parser.parse_args(argv)
    computed = depth.compute_stored()
    if args.check:
        stored = depth.stored_series(computed["width"])
        same = stored.keys() == {int(d) for d in computed["depths"]} and all(
            np.allclose(stored[int(d)][f], v, rtol=1e-9, atol=0)
            for d, s in computed["depths"].items()
            for f, v in s.items()
        )
        if not same:
            print(f"{depth.STORED.name} differs from what this machine computes", file=sys.stderr)
            return 1
        print(f"{depth.STORED.name}: the same")
        return 0
    depth.STORED.write_text(json.dumps(computed, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {depth.STORED}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
