"""A pytest plugin for nbval (the Makefile's NBVAL flags load it with `-p tests.nbval_alt`): a figure's alt text
is compared too.

nbval compares every stored output's data (text, HTML) but skips its metadata, where a figure of lnlib keeps its
Chinese alt text (`{"image/png": {"alt": …}}`, lnlib.plots). The alt text is built from the numbers the figure
shows, so it is a displayed number like any other: here a cell whose fresh alt texts differ from the stored ones
fails, on both code paths that `make test` runs (tests/test_determinism.py checks that it can fail).

It also opens every `%%reveal` cell (`LNLIB_REVEAL=all`, inherited by the kernels nbval starts): the stored outputs
are the maintainer's view, so nbval compares that view, never the learner's progress file on this machine.
"""

from __future__ import annotations

import os

from nbval.plugin import IPyNbCell

os.environ["LNLIB_REVEAL"] = "all"  # lnlib.answers.REVEAL_ENV

_compare = IPyNbCell.compare_outputs


def alt_texts(outputs) -> list[str]:
    """The alt texts of a cell's outputs, in order (outputs without one are left out)."""
    texts = []
    for out in outputs:
        alt = (out.get("metadata") or {}).get("image/png", {})
        if isinstance(alt, dict) and "alt" in alt:
            texts.append(alt["alt"])
    return texts


def compare_outputs(self, test, ref, skip_compare=None):
    if not _compare(self, test, ref, skip_compare):
        return False
    fresh, stored = alt_texts(test), alt_texts(ref)
    if [self.sanitize(t) for t in fresh] == [self.sanitize(t) for t in stored]:
        return True
    self.comparison_traceback.append(
        "alt text of a figure differs\n<<<<<<<<<<<< stored:\n"
        + "\n".join(stored)
        + "\n============ fresh:\n"
        + "\n".join(fresh)
        + "\n>>>>>>>>>>>>"
    )
    return False


IPyNbCell.compare_outputs = compare_outputs
