"""Every notebook, run again from a clean kernel, shows exactly the outputs stored in it.

The stored outputs come from an earlier clean run (`python -m tools.run_notebooks`), in another process and at
another time; a fresh run (kernel "python3", working directory notebooks/) must reproduce every output nbval
compares — stream text and every MIME type except images and widget views — cell by cell, byte for byte (no
sanitizing). A hidden source of randomness (an unseeded generator, a clock, a dict of ids, a temporary path) shows
up as a difference, and so do outputs not re-run after a change. Cells tagged nbval-ignore-output or nbval-skip
(the live widgets) are not compared, exactly as nbval does not compare them; nothing else is exempt.

So this is strict nbval's comparison on this machine's own code path, done inside the unit suite; `make test`
therefore runs nbval itself only on the second code path (see the Makefile). The fresh runs are shared with the
student-copy test (tests/helpers.executed): one run per notebook per session, two kernels side by side.
"""

from __future__ import annotations

import copy
import json

import nbformat
import pytest
from helpers import executed

from tools.course import notebook_paths

PATHS = notebook_paths()
NOT_COMPARED = ("image/png", "image/jpeg", "application/vnd.jupyter.widget-view+json")  # as in nbval
IGNORED_TAGS = {"nbval-ignore-output", "nbval-skip"}


def text_outputs(nb) -> list[tuple[int, list[tuple[str, str]]]]:
    """(cell index, [(kind, text), …]) for every compared code cell (kind: a MIME type, a stream name or "error").

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
                texts += [(k, _text(o.data[k])) for k in sorted(o.data) if k not in NOT_COMPARED]
            elif o.output_type == "error":
                texts.append(("error", f"{o.ename}: {o.evalue}"))
        out.append((i, sorted(streams.items()) + texts))
    return out


def _join(value) -> str:
    return "".join(value) if isinstance(value, list) else value


def _text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)  # application/json and the like


def assert_same_text(stored, fresh, name: str) -> None:
    a, b = text_outputs(stored), text_outputs(fresh)
    assert [i for i, _ in a] == [i for i, _ in b]
    for (i, ta), (_, tb) in zip(a, b, strict=True):
        assert not any(kind == "error" for kind, _ in tb), f"{name}, cell {i} raised: {tb}"
        assert ta == tb, (
            f"{name}, cell {i}: a fresh run differs from the stored outputs (hidden randomness, or "
            f"outputs not re-run: python -m tools.run_notebooks)\n{ta!r:.600}\n{tb!r:.600}"
        )


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_a_clean_run_shows_the_stored_outputs(path, fresh_runs):
    stored = nbformat.read(path, as_version=4)
    assert any(texts for _, texts in text_outputs(stored)) or path.stem == "00-index", "nothing was compared"
    assert_same_text(stored, executed(stored), path.name)


def test_the_comparison_can_fail():
    """The helper sees a difference in any of the compared kinds of output, and ignores images as nbval does."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x")]
    nb.cells[0].outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="0.1\n"),
        nbformat.v4.new_output("execute_result", data={"text/plain": "1", "text/markdown": "**1**"}, execution_count=1),
        nbformat.v4.new_output("display_data", data={"image/png": "AAAA", "text/plain": "<Figure>"}),
    ]
    same = copy.deepcopy(nb)
    same.cells[0].outputs[2].data["image/png"] = "BBBB"
    assert text_outputs(nb) == text_outputs(same)
    changes = (
        lambda o: setattr(o[0], "text", "0.2\n"),
        lambda o: o[1].data.update({"text/plain": "2"}),
        lambda o: o[1].data.update({"text/markdown": "**2**"}),
        lambda o: o[1].data.update({"text/html": "<b>1</b>"}),
        lambda o: o.pop(),
    )
    for change in changes:
        other = copy.deepcopy(nb)
        change(other.cells[0].outputs)
        assert text_outputs(nb) != text_outputs(other)
        with pytest.raises(AssertionError, match="differs from the stored outputs"):
            assert_same_text(nb, other, "x.ipynb")


def test_an_unseeded_notebook_is_caught():
    """End to end: a notebook printing an unseeded random number, run and stored, differs in a second run."""
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
    nb.cells = [nbformat.v4.new_code_cell("import numpy as np\nprint(np.random.default_rng().random())")]
    stored = executed(nb)
    nb.cells[0].source += "\n"  # other code, so a second run and not the cached one
    with pytest.raises(AssertionError, match="differs from the stored outputs"):
        assert_same_text(stored, executed(nb), "unseeded.ipynb")
