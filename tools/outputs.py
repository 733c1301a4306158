"""Notebook outputs as Jupyter shows them: consecutive stream outputs of the same name joined into one.

A kernel sends what a cell prints as stream messages, and under load ipykernel may flush one `print` in several of
them (one output with the text, one with its "\\n"). JupyterLab, nbval and nbconvert show those as one block; every
tool and test that reads outputs goes through this module, so what it reads never depends on the machine's load.
`tools.run_notebooks.execute` stores outputs coalesced.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable


def _text(output) -> str:
    text = output.get("text", "")
    return "".join(text) if isinstance(text, list) else text  # nbformat allows a list of lines on disk


def coalesce_streams(outputs: Iterable) -> list:
    """`outputs` with every run of consecutive stream outputs of one name ("stdout", "stderr") joined into one.

    Returns a new list; the outputs given are not modified (joined ones are copies, the others the same objects).
    """
    joined: list = []
    copied: set[int] = set()  # indices in `joined` that are already copies, so safe to extend
    for output in outputs:
        previous = joined[-1] if joined else None
        if (
            previous is not None
            and output.get("output_type") == "stream"
            and previous.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            if len(joined) - 1 not in copied:
                previous = joined[-1] = copy.deepcopy(previous)
                copied.add(len(joined) - 1)
            previous["text"] = _text(previous) + _text(output)
        else:
            joined.append(output)
    return joined


def coalesce_notebook(nb) -> None:
    """Coalesce the stream outputs of every code cell of `nb`, in place."""
    for cell in nb.cells:
        if cell.get("cell_type") == "code":
            cell.outputs = coalesce_streams(cell.get("outputs", []))


def stream_text(outputs: Iterable, name: str | None = None) -> str:
    """All the text a cell's `outputs` printed, in order: stream outputs of `name` ("stdout"/"stderr"; None: both)."""
    return "".join(
        _text(o)
        for o in coalesce_streams(outputs)
        if o.get("output_type") == "stream" and (name is None or o.get("name") == name)
    )
