"""Every notebook, run twice from a clean kernel, prints the same text both times.

Each notebook is executed twice with nbclient (kernel "python3", working directory notebooks/), the two runs side
by side in two kernels to keep the wall time down, and the text outputs — text/plain, text/html and stream text
— are compared cell by cell. A hidden source of randomness (an unseeded generator, a clock, a dict of ids, a
temporary path) shows up as a difference. Cells tagged nbval-ignore-output (the live widgets) are not compared,
exactly as nbval does not compare them; nothing else is exempt.
"""

from __future__ import annotations

import asyncio
import copy
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
TEXT_TYPES = ("text/plain", "text/html")
IGNORED_TAGS = {"nbval-ignore-output", "nbval-skip"}


def _execute(nb) -> None:
    # generous timeouts (not assertions): a loaded CI machine may start kernels slowly
    client = NotebookClient(nb, timeout=600, startup_timeout=300, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    asyncio.run(client.async_execute())  # a loop of its own, closed afterwards (no "unclosed event loop")


def _run_twice(nb):
    """Two clean runs side by side, each in its own kernel (threads: no event loop is assumed or left behind)."""
    runs = [copy.deepcopy(nb), copy.deepcopy(nb)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(_execute, runs))
    return runs


def text_outputs(nb) -> list[tuple[int, list[tuple[str, str]]]]:
    """(cell index, [(kind, text), …]) for every compared code cell.

    Stream text is compared per stream as one string: the kernel may split a print into several messages
    (and interleave them with the result differently) from one run to the next; the text itself may not change.
    """
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or IGNORED_TAGS & set(cell.metadata.get("tags", [])):
            continue
        streams: dict[str, str] = {}
        texts = []
        for o in cell.outputs:
            if o.output_type == "stream":
                streams[o.name] = streams.get(o.name, "") + _join(o.text)
            elif o.output_type in ("execute_result", "display_data"):
                texts += [(k, _join(o.data[k])) for k in TEXT_TYPES if k in o.data]
            elif o.output_type == "error":
                texts.append(("error", f"{o.ename}: {o.evalue}"))
        out.append((i, sorted(streams.items()) + texts))
    return out


def _join(value) -> str:
    return "".join(value) if isinstance(value, list) else value


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_two_clean_runs_print_the_same_text(path):
    nb = nbformat.read(path, as_version=4)
    first, second = _run_twice(nb)
    a, b = text_outputs(first), text_outputs(second)
    assert [i for i, _ in a] == [i for i, _ in b]
    assert any(texts for _, texts in a) or path.stem == "00-index", "nothing was compared"
    for (i, ta), (_, tb) in zip(a, b, strict=True):
        assert not any(kind == "error" for kind, _ in ta), f"cell {i} raised: {ta}"
        assert ta == tb, f"{path.name}, cell {i}: the two runs differ\n{ta!r:.600}\n{tb!r:.600}"


def test_the_comparison_can_fail():
    """The helper sees a difference in any of the compared kinds of output."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x")]
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="0.1\n"),
                           nbformat.v4.new_output("execute_result", data={"text/plain": "1"}, execution_count=1)]
    other = copy.deepcopy(nb)
    other.cells[0].outputs[0].text = "0.2\n"
    assert text_outputs(nb) != text_outputs(other)
    other = copy.deepcopy(nb)
    other.cells[0].outputs[1].data["text/plain"] = "2"
    assert text_outputs(nb) != text_outputs(other)


def test_an_unseeded_notebook_is_caught():
    """End to end: a notebook printing an unseeded random number differs between its two runs."""
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
    nb.cells = [nbformat.v4.new_code_cell("import numpy as np\nprint(np.random.default_rng().random())")]
    first, second = _run_twice(nb)
    assert text_outputs(first) != text_outputs(second)
