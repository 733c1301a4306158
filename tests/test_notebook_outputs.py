"""Stream outputs are read as Jupyter shows them (issue 31): one print that the kernel flushed in two stream
messages under load reads as one text, in the tests, in the tools and in what tools.run_notebooks stores."""

from __future__ import annotations

import json

import nbformat
import pytest
from helpers import executed

from tools.outputs import coalesce_notebook, coalesce_streams, stream_text

new = nbformat.v4.new_output


def split_print():
    """What ipykernel sent once under load for `print(json.dumps(...))` (notebook 09's probe): the text, then "\\n"."""
    return [new("stream", name="stdout", text='{"font": "x"}'), new("stream", name="stdout", text="\n")]


def test_a_split_print_reads_as_one():
    outputs = split_print()
    with pytest.raises(json.JSONDecodeError):  # reading only the last output, as the test of issue 31 did
        json.loads(outputs[-1]["text"])
    joined = coalesce_streams(outputs)
    assert len(joined) == 1 and joined[0]["text"] == '{"font": "x"}\n'
    assert json.loads(stream_text(outputs, "stdout")) == {"font": "x"}


def test_only_consecutive_streams_of_one_name_are_joined():
    image = new("display_data", data={"image/png": "iVBO", "text/plain": "<Figure>"})
    outputs = [
        new("stream", name="stdout", text="a"),
        new("stream", name="stderr", text="warn\n"),
        new("stream", name="stdout", text="b\n"),
        new("stream", name="stdout", text="c\n"),
        image,
        new("stream", name="stdout", text="d\n"),
    ]
    joined = coalesce_streams(outputs)
    assert [(o.output_type, o.get("name"), o.get("text")) for o in joined] == [
        ("stream", "stdout", "a"),
        ("stream", "stderr", "warn\n"),
        ("stream", "stdout", "b\nc\n"),
        ("display_data", None, None),
        ("stream", "stdout", "d\n"),
    ]
    assert joined[3] is image  # outputs that are not joined are the same objects
    assert stream_text(outputs, "stdout") == "ab\nc\nd\n"
    assert stream_text(outputs, "stderr") == "warn\n"
    assert stream_text(outputs) == "awarn\nb\nc\nd\n"


def test_the_outputs_given_are_not_modified():
    outputs = split_print()
    before = [dict(o) for o in outputs]
    coalesce_streams(outputs)
    assert [dict(o) for o in outputs] == before and len(outputs) == 2


def test_text_stored_as_a_list_of_lines_is_joined_too():
    outputs = [{"output_type": "stream", "name": "stdout", "text": ["a\n", "b"]}, new("stream", text="\n")]
    assert coalesce_streams(outputs)[0]["text"] == "a\nb\n"


def test_coalesce_notebook_rewrites_every_code_cell():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# x"), nbformat.v4.new_code_cell("print(1)", outputs=split_print())]
    coalesce_notebook(nb)
    assert len(nb.cells[1].outputs) == 1 and nb.cells[1].outputs[0]["text"] == '{"font": "x"}\n'
    nbformat.validate(nb)


def test_a_run_stores_one_print_flushed_twice_as_one_output():
    """A flush in the middle of a line makes the kernel send two stream messages, as load does by chance; the
    run (tools.run_notebooks.execute, which the tests and the tool share) stores them as one output."""
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
    nb.cells = [nbformat.v4.new_code_cell('import sys\nprint("{}", end="", flush=True)\nsys.stdout.flush()\nprint()')]
    ran = executed(nb)
    assert [(o.output_type, o.name, o.text) for o in ran.cells[0].outputs] == [("stream", "stdout", "{}\n")]
