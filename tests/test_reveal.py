"""Reveals that stay closed until the learner has tried (issue 32 item 1): the `%%reveal NN.name` cell of lnlib.answers.

Closed (no try of NN.name in this kernel, no right answer recorded), the cell runs its body for its names only and
prints one Chinese line; open (any try, right or wrong, a right answer kept from before, or LNLIB_REVEAL=all), it
shows what a plain cell with the same body shows, after "核对一下：". Run in a real IPython shell in-process, and
once through tools.run_notebooks in a real kernel, closed (the learner's view) and open (the maintainer's).
"""

from __future__ import annotations

import sys
import warnings

import matplotlib.pyplot as plt
import nbformat
import pytest

from lnlib import _record, answers
from tools.run_notebooks import execute

BODY = "import numpy as np\nrow = np.array([2.0, 4.0, 6.0, 8.0])\nprint('μ =', row.mean())\nrow - row.mean()"
NOTICE = "先回答上面的 %%answer 03.mean_apple"


@pytest.fixture
def shell(tmp_path, monkeypatch):
    """A fresh IPython shell with the course's magics, an empty progress file and no LNLIB_REVEAL."""
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.setenv("LNLIB_PROGRESS_DIR", str(tmp_path / "progress"))
    monkeypatch.delenv(answers.REVEAL_ENV, raising=False)
    _record.forget_tries()
    ip = InteractiveShell.instance()
    answers.register(ip)
    yield ip
    InteractiveShell.clear_instance()
    _record.forget_tries()


def run(shell, source: str, capsys):
    """Run one cell; return (its result, what it printed before the shell's "Out[n]:" echo of its value)."""
    capsys.readouterr()
    result = shell.run_cell(source)
    out = capsys.readouterr()
    return result, type(out)(out.out.split("Out[")[0], out.err)


def test_closed_before_any_try_shows_only_the_notice_but_defines_the_names(shell, capsys):
    result, out = run(shell, "%%reveal 03.mean_apple\n" + BODY, capsys)
    assert result.success and result.result is None, "no value is displayed"
    assert out.out.startswith(NOTICE) and out.out.count("\n") == 1, out.out
    assert "5.0" not in out.out and "μ" not in out.out and out.err == ""
    assert list(shell.user_ns["row"]) == [2.0, 4.0, 6.0, 8.0], "later cells still find what the body defines"


def test_a_wrong_try_opens_it(shell, capsys):
    run(shell, "%%answer 03.mean_apple\n4", capsys)
    result, out = run(shell, "%%reveal 03.mean_apple\n" + BODY, capsys)
    assert out.out == "核对一下：\nμ = 5.0\n"
    assert list(result.result) == [-3.0, -1.0, 1.0, 3.0]


def test_a_right_try_opens_it_and_only_its_own_reveal(shell, capsys):
    run(shell, "%%answer 03.mean_apple\n5", capsys)
    assert run(shell, "%%reveal 03.mean_apple\nprint(2 + 3)", capsys)[1].out == "核对一下：\n5\n"
    other = run(shell, "%%reveal 03.centered_apple\nprint(2 + 3)", capsys)[1].out
    assert other.startswith("先回答上面的 %%answer 03.centered_apple") and "5" not in other


def test_a_text_that_says_nothing_is_no_try(shell, capsys):
    run(shell, "%%answer 03.mean_apple\n# 在下面一行写答案", capsys)  # the placeholder, as the student copy has it
    run(shell, "%%answer 03.mean_apple\n五，", capsys)  # not read as a number: asked to type again, not graded
    assert run(shell, "%%reveal 03.mean_apple\nprint(5)", capsys)[1].out.startswith(NOTICE)


def test_a_right_answer_kept_from_an_earlier_session_opens_it(shell, capsys):
    _record.record_right("03.mean_apple")
    _record.forget_tries()  # a new kernel: nothing tried here, the progress file remembers
    assert run(shell, "%%reveal 03.mean_apple\nprint(5)", capsys)[1].out == "核对一下：\n5\n"


def test_the_maintainers_switch_opens_every_reveal(shell, capsys, monkeypatch):
    monkeypatch.setenv(answers.REVEAL_ENV, "all")
    assert run(shell, "%%reveal 03.mean_apple\nprint(5)", capsys)[1].out == "核对一下：\n5\n"
    monkeypatch.setenv(answers.REVEAL_ENV, "0")
    assert run(shell, "%%reveal 03.mean_apple\nprint(5)", capsys)[1].out.startswith(NOTICE)


def test_open_it_shows_what_a_plain_cell_shows(shell, capsys, monkeypatch):
    """Prints and the last value (an array, a table, a figure: formatted as IPython formats them), compared with
    the same body run as a plain cell; a trailing semicolon hides the value."""
    monkeypatch.setenv(answers.REVEAL_ENV, "all")
    bodies = [
        BODY,
        "from lnlib import tables, layer_norm_steps\ntables.stage_table(layer_norm_steps([2, 4, 6, 8]))",
        "from lnlib import plots, layer_norm_steps\nplots.stage_bars(layer_norm_steps([2, 4, 6, 8]))",
        "for i in range(2):\n    print(i)",
    ]
    for body in bodies:
        plain, plain_out = run(shell, body, capsys)
        shown, shown_out = run(shell, "%%reveal 03.mean_apple\n" + body, capsys)
        assert shown_out.out == "核对一下：\n" + plain_out.out and shown_out.err == plain_out.err
        formatted = [None if r.result is None else shell.display_formatter.format(r.result)[0] for r in (plain, shown)]
        assert formatted[0] == formatted[1], body
    assert formatted[0] is None and "0\n1\n" in shown_out.out
    assert run(shell, "%%reveal 03.mean_apple\nx = 3\nx * 2;", capsys)[0].result is None, "a semicolon hides it"


def test_closed_it_leaves_no_figure_warning_or_display_behind(shell, capsys, monkeypatch):
    body = (
        "import warnings\nimport matplotlib.pyplot as plt\nfrom IPython.display import display\n"
        "fig = plt.figure()\nwarnings.warn('noisy')\ndisplay('shown?')\nfig"
    )
    before = plt.get_fignums()

    # warnings printed to stderr as in a kernel, not recorded by pytest
    def to_stderr(message, category, filename, lineno, file=None, line=None):
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

    monkeypatch.setattr(warnings, "showwarning", to_stderr)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        result, out = run(shell, "%%reveal 03.mean_apple\n" + body, capsys)
    assert result.result is None and out.out.startswith(NOTICE) and "shown?" not in out.out and out.err == ""
    assert plt.get_fignums() == before, "the body's pyplot figure is closed, so the inline backend shows nothing"


def test_a_wrong_name_is_told_in_chinese_and_never_raises(shell, capsys):
    result, out = run(shell, "%%reveal 03.no_such\nprint(5)", capsys)
    assert result.success and "没有找到练习" in out.out and "%%reveal" in out.out and "5" not in out.out


def test_an_error_in_the_body_shows_as_in_a_plain_cell(shell, capsys):
    """The bodies are the course's own code: an error in one is the course's bug and must not pass silently."""
    for env in ("all", ""):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv(answers.REVEAL_ENV, env)
            result, _ = run(shell, "%%reveal 03.mean_apple\n1 / 0", capsys)
        assert isinstance(result.error_in_exec, ZeroDivisionError)


def test_run_notebooks_stores_the_open_view_and_can_run_the_learners(tmp_path, monkeypatch):
    """tools.run_notebooks (stored outputs, nbval's reference) opens every reveal; reveals_open=False is the learner's
    kernel. A real kernel each, on a two-cell notebook."""
    monkeypatch.setenv("LNLIB_PROGRESS_DIR", str(tmp_path / "progress"))  # the kernels' progress file: empty
    monkeypatch.setenv(answers.REVEAL_ENV, "")  # execute() decides, not this environment
    meta = {"kernelspec": {"name": "python3", "display_name": "Python 3"}}

    def outputs(reveals_open: bool) -> str:
        nb = nbformat.v4.new_notebook(metadata=meta)
        nb.cells = [nbformat.v4.new_code_cell("import lnlib"), nbformat.v4.new_code_cell("%%reveal 03.mean_apple\n5")]
        execute(nb, tmp_path, reveals_open=reveals_open)
        out = nb.cells[1].outputs
        return "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in out)

    assert outputs(True) == "核对一下：\n5"
    closed = outputs(False)
    assert closed.startswith(NOTICE) and closed.count("\n") == 1, closed


def test_reveal_cells_converts_an_old_style_cell():
    """tools.reveal_cells names the answer cell nearest above, drops the old first line, keeps tag and folding, and
    leaves a converted cell alone; a reveal with no answer cell above is an error."""
    from tools import reveal_cells

    folded = {"tags": ["reveal"], "jupyter": {"outputs_hidden": True}}
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%%answer 03.mean_apple\n# 在下面一行写答案"),
        nbformat.v4.new_code_cell('print("核对一下：")  # 折叠时只露出这一行\nprint(5)', metadata=dict(folded)),
        nbformat.v4.new_code_cell("%%answer 03.centered_apple\n# 在下面一行写答案"),
        nbformat.v4.new_code_cell("c = 1\nc", metadata=dict(folded)),
        nbformat.v4.new_code_cell("%%reveal 03.centered_apple\nc", metadata=dict(folded)),
    ]
    assert reveal_cells.convert(nb) == [(1, "03.mean_apple"), (3, "03.centered_apple")]
    assert nb.cells[1].source == "%%reveal 03.mean_apple\nprint(5)"
    assert nb.cells[3].source == "%%reveal 03.centered_apple\nc = 1\nc" and nb.cells[3].metadata == folded
    assert nb.cells[4].source == "%%reveal 03.centered_apple\nc"
    assert reveal_cells.convert(nb) == [], "a converted notebook stays as it is"
    orphan = nbformat.v4.new_notebook()
    orphan.cells = [nbformat.v4.new_code_cell("print(5)", metadata=dict(folded))]
    with pytest.raises(ValueError, match="no %%answer cell above"):
        reveal_cells.convert(orphan)
