"""Every notebook, run again from a clean kernel, shows exactly its stored outputs: the check, and that it can fail.

That check is strict nbval with the flags of the Makefile (`NBVAL`), over every notebook. `make test` runs it once,
offline, on the second code path (OpenBLAS's generic kernel, no JIT: `make test-notebooks-other-path`): a stored
output that is stale (not re-run after a change), hides randomness (an unseeded generator, a clock, an id) or
depends on the CPU's kernel or on numba differs there from the stored one, which came from a run on the maintainer's
own path. `make test-notebooks` runs nbval on both paths side by side.

Here, end to end on small notebooks in a temporary folder: nbval with exactly those flags passes a notebook whose
stored outputs a fresh run reproduces, fails a stale output and an unseeded random number, and forgives nothing but
a memory address (the one substitution of tests/nbval_sanitize.cfg). A figure's alt text is compared too
(tests/nbval_alt.py): a stale one fails.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import nbformat
import pytest

from tools.course import ROOT
from tools.run_notebooks import execute

KERNELSPEC = {"kernelspec": {"name": "python3", "display_name": "Python 3"}}
# A figure's output as lnlib.plots makes it: its alt text lives in the output's metadata, which nbval itself skips
# (tests/nbval_alt.py, loaded by the Makefile's flags, compares it).
ALT_CELL = (
    "from IPython.display import publish_display_data\n"
    'publish_display_data({{"text/plain": "<Figure>"}}, metadata={{"image/png": {{"alt": "{}"}}}})'
)
# One small notebook, one case per cell (nbval reports each cell as its own test item), so the whole check costs
# two kernel starts: one real run for the unseeded cell's stored output, one nbval run.
CASES = {
    "fresh": "print(1 + 1)\n7 * 6",
    "stale": "print(1 + 1)",
    "stale-result": "7 * 6",
    "unseeded": "import numpy as np\nprint(np.random.default_rng().random())",
    "address": "print(object())",
    "alt": ALT_CELL.format("μ = 5"),
    "stale-alt": ALT_CELL.format("μ = 5"),
}


def makefile_nbval_flags() -> list[str]:
    """The nbval flags `make test` uses (the Makefile's NBVAL line), so this test checks what CI runs."""
    match = re.search(r"^NBVAL := (.+)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M)
    assert match, "the Makefile has no NBVAL line"
    return shlex.split(match.group(1))


def stdout(text: str):
    return nbformat.v4.new_output("stream", name="stdout", text=text)


def figure(alt: str):
    return nbformat.v4.new_output("display_data", data={"text/plain": "<Figure>"}, metadata={"image/png": {"alt": alt}})


def result(text: str):
    return nbformat.v4.new_output("execute_result", data={"text/plain": text}, execution_count=1)


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory) -> dict[str, str]:
    """Run nbval (the Makefile's flags, cwd = repository root as in `make`) over one notebook holding the five
    cases; return {case: "passed" | "failed"}."""
    folder = tmp_path_factory.mktemp("nbval")
    nb = nbformat.v4.new_notebook(metadata=KERNELSPEC)
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CASES.values()]
    execute(nb, folder)  # stored outputs from a real run, as tools.run_notebooks makes them
    stored = {
        "fresh": [stdout("2\n"), result("42")],
        "stale": [stdout("3\n")],
        "stale-result": [result("41")],
        "address": [stdout("<object object at 0x7f0000000000>\n")],
        "alt": [figure("μ = 5")],
        "stale-alt": [figure("μ = 6")],
    }
    for cell, name in zip(nb.cells, CASES, strict=True):
        if name in stored:  # "unseeded" keeps the outputs of its real run
            cell.outputs = stored[name]
    nbformat.write(nb, folder / "cases.ipynb")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", *makefile_nbval_flags(), str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    names = list(CASES)
    found = {
        names[int(m[1])]: m[0].lower()
        for m in re.findall(r"^(PASSED|FAILED) \S*?cases\.ipynb::Cell (\d+)", proc.stdout, re.M)
    }
    assert set(found) == set(CASES), proc.stdout[-3000:] + proc.stderr[-2000:]
    return found


def test_nbval_passes_stored_outputs_that_a_fresh_run_reproduces(verdicts):
    assert verdicts["fresh"] == "passed"


@pytest.mark.parametrize("name", ["stale", "stale-result", "unseeded", "stale-alt"])
def test_nbval_fails_a_stale_or_random_output(verdicts, name):
    assert verdicts[name] == "failed"


def test_nbval_passes_a_figure_whose_alt_text_a_fresh_run_reproduces(verdicts):
    """The other half of "stale-alt": the alt-text comparison passes an unchanged figure."""
    assert verdicts["alt"] == "passed"


def test_nbval_forgives_only_a_memory_address(verdicts):
    """The sanitizer's one rule: a new address in a repr passes (and "stale" above shows digits are not forgiven)."""
    assert verdicts["address"] == "passed"
