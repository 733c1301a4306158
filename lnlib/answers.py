"""Answer cells that cannot break a notebook: the `%%answer` and `%%code_exercise` cell magics.

    %%answer 03.mean_apple
    5

    %%code_exercise 07.layer_norm
    def layer_norm(x, gamma, beta, eps=1e-5):
        ...

An `%%answer` cell's body is raw text, never Python: numbers as people type them (Chinese or English commas, 顿号,
spaces, full-width digits, with or without brackets; a matrix as nested brackets or one row per line), read by
`text_input.parse_numbers`, the reader of the explorers' text boxes; a choice answer is the words themselves
(quotes optional, Chinese welcome). The text goes to `lnlib.check(name, value)`. A `%%code_exercise` cell's body is
compiled and run in a copy of the notebook's namespace; its function goes to `lnlib.check_function(name, fn)` and
is then defined in the notebook too. Whatever the body holds — nothing, a typo, a syntax error, code that raises —
the cell prints a message (domain `cells` of the catalogues) and never raises, so "Run All" always reaches the end
of the notebook.

A `%%reveal NN.name` cell shows what gives the answer of the predict cell `%%answer NN.name` away: its body is
ordinary Python, run in the notebook's namespace, and once the learner has tried `NN.name` (right or wrong, in this
kernel, or answered it right before) it shows what a plain cell would show, after the first line "核对一下：".
Before that the body still runs, so every later cell finds its names, but its output is dropped and the cell only
says to answer first. `LNLIB_REVEAL=all` opens every reveal (the maintainer's view: stored outputs, nbval).

A graded assignment's cells name their question `hwNN.name` (`%%answer hw03.mean`, `%%code_exercise
hw07.layer_norm`): the assignment holds no answer, so these cells judge nothing; they show how the answer was read (or
define the function) and remember, in this kernel, which questions have an answer (`assignment_missing`, the
assignment's pre-submit check). A stub — an empty body, a function whose body is only `...` — is unanswered.

Importing lnlib inside IPython registers the three magics (`register`) and an input transformer that gives a cell
holding only the magic's line an empty body (IPython itself would refuse it); `%load_ext lnlib` does it explicitly.
"""

from __future__ import annotations

import ast
import linecache
import os
import re
import sys
import types

from . import _record, code_exercises, code_grading, exercises
from .i18n import lazy, message
from .text_input import parse_numbers, parse_shape

__all__ = [
    "assignment_missing",
    "answer_cell",
    "body_text",
    "code_exercise_cell",
    "is_stub",
    "read_answer",
    "read_choice",
    "register",
    "reveal_cell",
    "reveal_is_open",
]

UNANSWERED = lazy("cells.unanswered")
_QUOTES = "\"'“”‘’「」『』"
ASSIGNMENT_NAME = re.compile(r"^hw\d{2}\.[A-Za-z_][A-Za-z0-9_]*$")
_ANSWERED: dict[str, bool] = {}  # assignment question -> answered, in this kernel


def body_text(cell: str) -> str:
    """The cell without its comment lines (`# …`) and surrounding blank space."""
    return "\n".join(line for line in cell.splitlines() if not line.lstrip().startswith("#")).strip()


def read_choice(text: str) -> str:
    """A typed word answer as the course reads it: spaces collapsed, quotes of any kind (「」 too) taken off."""
    return " ".join(text.split()).strip(_QUOTES).strip()


def read_answer(name: str, text: str):
    """The value `lnlib.check(name, …)` gets for the typed `text`: a str for a choice question, else a float64
    array (for a question whose answer is a shape, "2 × 3" is the shape (2, 3), not the product 6). Raises
    ValueError with a message when a number was asked for and the text holds none."""
    exercise = exercises.EXERCISES[name]
    if isinstance(exercise.expected, str):
        return read_choice(text)
    if exercise.not_finite and re.search(r"nan|inf", text, re.IGNORECASE):
        raise ValueError(str(exercise.not_finite))
    return parse_shape(text) if exercise.about else parse_numbers(text)


def is_stub(fn_def: ast.FunctionDef) -> bool:
    """A function whose body is only a docstring, `...` or `pass`: the placeholder of an answer cell."""
    for stmt in fn_def.body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            if stmt.value.value is Ellipsis or isinstance(stmt.value.value, str):
                continue
        return False
    return True


def _assignment_answer(name: str, text: str) -> None:
    _ANSWERED[name] = bool(text)
    if not text:
        print(message("cells.assignment_empty", name=name))
        return
    try:
        from .grading import show_array

        shown = show_array(parse_numbers(text), 6)
    except Exception:  # noqa: BLE001 - not numbers: a word answer (or a formula, which is not read)
        print(message("cells.assignment_words", words=read_choice(text)[:80]))
        return
    print(message("cells.assignment_numbers", shown=shown))


def _assignment_function(name: str, cell: str, user_ns: dict | None) -> None:
    try:
        tree = ast.parse(cell)
    except SyntaxError as err:
        _ANSWERED[name] = True
        where = message("cells.where_line", line=err.lineno + 1) if err.lineno else message("cells.where_code")
        print(message("cells.assignment_syntax", name=name, where=where, error=syntax_text(err)))
        return
    defs = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    _ANSWERED[name] = bool(defs) and not all(is_stub(d) for d in defs)
    if not _ANSWERED[name]:
        print(message("cells.assignment_stub", name=name))
        return
    ns = user_ns if user_ns is not None else {}
    try:
        exec(compile(cell, message("cells.file_assignment", name=name), "exec"), ns)  # noqa: S102 - the learner's own code, in their own kernel
    except Exception as err:  # noqa: BLE001 - report anything the learner's code raises, never stop Run All
        print(message("cells.run_error", name=name, error=f"{type(err).__name__}: {err}"))
        return
    print(message("cells.assignment_defined", names=", ".join(d.name for d in defs)))


def assignment_missing(names: list[str]) -> None:
    """The pre-submit check of an assignment: which of `names` have no answer in this kernel (or were not run)."""
    missing = [n for n in names if not _ANSWERED.get(n)]
    if missing:
        print(message("cells.missing", names=message("input.list_separator").join(missing)))
    else:
        print(message("cells.all_answered"))


def _name(line: str, known, magic: str) -> str | None:
    name = line.strip()
    if name in known:
        return name
    print(message("cells.unknown_exercise", name=name[:40], magic=magic))
    return None


def answer_cell(line: str, cell: str) -> None:
    """`%%answer NN.name`: read the body as an answer and check it; print, never raise."""
    if ASSIGNMENT_NAME.match(line.strip()):
        _assignment_answer(line.strip(), body_text(cell))
        return
    name = _name(line, exercises.EXERCISES, "answer")
    if name is None:
        return
    text = body_text(cell)
    if not text:
        print(message("cells.answer_empty", name=name))
        return
    try:
        value = read_answer(name, text)
    except ValueError as err:
        print(message("cells.unreadable", name=name, error=err))
        return
    exercises.check(name, value)


def _top_level_text(err: BaseException) -> str:
    if isinstance(err, SystemExit):
        return message("cells.exit")
    if isinstance(err, KeyboardInterrupt):
        return message("cells.own_interrupt")
    return f"{code_grading._type_name(err)}: {code_grading._exception_text(err)}"


def _functions(ns: dict, filename: str) -> list[types.FunctionType]:
    """The functions the body defined, in definition order."""
    found = [v for v in ns.values() if isinstance(v, types.FunctionType) and v.__code__.co_filename == filename]
    return sorted(found, key=lambda f: f.__code__.co_firstlineno)


def code_exercise_cell(line: str, cell: str, user_ns: dict | None = None) -> None:
    """`%%code_exercise NN.name`: run the body, hand its function to `lnlib.check_function`; print, never raise."""
    if ASSIGNMENT_NAME.match(line.strip()):
        _assignment_function(line.strip(), cell, user_ns)
        return
    name = _name(line, code_exercises.CODE_EXERCISES, "code_exercise")
    if name is None:
        return
    if not body_text(cell):
        print(message("cells.code_empty", name=name))
        return
    signature = str(getattr(code_exercises.CODE_EXERCISES[name], "signature", ""))
    wanted = signature.split("(")[0].strip()
    filename = message("cells.file_exercise", name=name)
    try:
        code = compile(cell, filename, "exec")
    except SyntaxError as err:
        # + 1: the %%code_exercise line
        where = message("cells.where_line", line=err.lineno + 1) if err.lineno else message("cells.where_code")
        print(message("cells.code_syntax", name=name, where=where, error=syntax_text(err)))
        return
    ns = dict(user_ns or {})
    ns.setdefault("__builtins__", __builtins__)
    # the learner's own code, in their own kernel: anything it raises (SystemExit, a KeyboardInterrupt it raises
    # itself, an exception whose __str__ fails) is reported; only the user's own interrupt stops the cell
    outcome = code_grading._call(exec, (code, ns), limit=None)
    if outcome.error is not None:
        raised = outcome.error
        lineno = next((f.tb_lineno for f in _frames(raised) if f.tb_frame.f_code.co_filename == filename), None)
        if lineno:  # + 1: the %%code_exercise line
            print(message("cells.run_error_at", name=name, line=lineno + 1, error=_top_level_text(raised)))
        else:
            print(message("cells.run_error", name=name, error=_top_level_text(raised)))
        return
    defined = _functions(ns, filename)
    fn = next((f for f in defined if f.__name__ == wanted), defined[-1] if defined else None)
    if fn is None:
        print(message("cells.no_function", name=name, signature=signature))
        return
    if user_ns is not None:
        user_ns.update({f.__name__: f for f in defined})
    code_exercises.check_function(name, fn)


_SYNTAX = [  # Python's English message → our message's key; {a}, {b}: the quoted characters
    (r"'(.)' was never closed", "cells.syntax.never_closed"),
    (r"unmatched '(.)'", "cells.syntax.unmatched"),
    (r"closing parenthesis '(.)' does not match opening parenthesis '(.)'.*", "cells.syntax.mismatch"),
    (r"invalid character '(.)' \(U\+[0-9A-F]+\)", "cells.syntax.invalid_character"),
    (r"invalid non-printable character.*", "cells.syntax.non_printable"),
    (r"expected ':'", "cells.syntax.colon"),
    (r"expected an indented block.*", "cells.syntax.indent_needed"),
    (r"unexpected indent", "cells.syntax.unexpected_indent"),
    (r"unindent does not match any outer indentation level", "cells.syntax.unindent"),
    (r"inconsistent use of tabs and spaces in indentation", "cells.syntax.tabs"),
    (r"unterminated string literal.*", "cells.syntax.string"),
    (r"unterminated triple-quoted string literal.*", "cells.syntax.triple_string"),
    (r"invalid decimal literal", "cells.syntax.decimal"),
    (r"'return' outside function", "cells.syntax.return"),
    (r"invalid syntax\. Perhaps you forgot a comma\?", "cells.syntax.comma"),
    (r"invalid syntax\. Maybe you meant '==' or ':=' instead of '='\?", "cells.syntax.equals"),
    (r"invalid syntax", "cells.syntax.invalid"),
]


def syntax_text(err: SyntaxError) -> str:
    """Python's syntax error message in the course's words; an unknown message is kept, labelled as Python's own."""
    msg = err.msg or ""
    for pattern, key in _SYNTAX:
        if m := re.fullmatch(pattern, msg):
            quoted = [*m.groups(), "", ""]  # {a}, {b}: the characters Python's message quotes
            return message(key, a=quoted[0], b=quoted[1])
    return message("cells.python_says", msg=msg)


def _frames(err: BaseException):
    tb = err.__traceback__
    while tb is not None:
        yield tb
        tb = tb.tb_next


REVEAL_ENV = "LNLIB_REVEAL"  # "all": every reveal open (stored outputs, nbval, the site)
REVEAL_FIRST_LINE = lazy("cells.reveal_first_line")


def reveal_is_open(name: str) -> bool:
    """Whether a `%%reveal name` cell shows its content: `LNLIB_REVEAL=all`, or the learner has tried `name`."""
    return os.environ.get(REVEAL_ENV, "").strip().lower() == "all" or _record.has_tried(name)


def _run_python(source: str, user_ns: dict, filename: str):
    """Run `source` in `user_ns` as a notebook cell runs: every statement, then the value of a last expression
    (returned, for IPython to display; None after a trailing semicolon)."""
    __tracebackhide__ = True  # noqa: F841
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)  # for tracebacks
    tree = ast.parse(source, filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, filename, "exec"), user_ns)  # noqa: S102 - the course's own code, in the notebook
    if last is None:
        return None
    value = eval(compile(last, filename, "eval"), user_ns)  # noqa: S307 - as above
    return None if source.rstrip().endswith(";") else value


def _run_hidden(source: str, user_ns: dict, filename: str) -> None:
    """Run `source` for its names only: prints, displays, warnings and new pyplot figures are dropped."""
    from IPython.utils.capture import capture_output

    pyplot = sys.modules.get("matplotlib.pyplot")
    before = set(pyplot.get_fignums()) if pyplot is not None else set()
    with capture_output(stdout=True, stderr=True, display=True):
        _run_python(source, user_ns, filename)
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        for number in set(pyplot.get_fignums()) - before:
            pyplot.close(number)


def reveal_cell(line: str, cell: str, user_ns: dict, transform=None):
    """`%%reveal NN.name`: run the body in `user_ns`; show its output only once `NN.name` was tried.

    Open, it prints "核对一下：" and returns the body's last value (IPython displays it), exactly as a plain cell;
    closed, it prints one line asking for the answer first. `transform` is IPython's `transform_cell` (so the body
    may hold what a plain cell may). The body is the course's own code: an error in it shows as in a plain cell."""
    __tracebackhide__ = True  # noqa: F841
    name = _name(line, exercises.EXERCISES, "reveal")
    source = transform(cell) if transform is not None else cell
    filename = message("cells.file_reveal", name=line.strip()[:40])
    if name is not None and reveal_is_open(name):
        print(REVEAL_FIRST_LINE)
        return _run_python(source, user_ns, filename)
    _run_hidden(source, user_ns, filename)
    if name is not None:
        print(message("cells.reveal_closed", name=name))
    return None


_OURS = re.compile(r"%%(answer|code_exercise|reveal)(\s|$)")


def _empty_body(lines: list[str]) -> list[str]:
    """An IPython input transformer: a cell that is only `%%answer NN.name` (or one of our other magics) gets an
    empty line as its body, since IPython refuses a cell magic with an empty body (UsageError) before calling it."""
    return [*lines, "\n"] if len(lines) == 1 and _OURS.match(lines[0]) else lines


def register(shell=None) -> bool:
    """Register `%%answer`, `%%code_exercise` and `%%reveal` with IPython (the running shell unless given); False
    outside it.

    Importing lnlib calls this; it never imports IPython itself, so plain Python pays nothing for it."""
    if shell is None:
        ipython = sys.modules.get("IPython")
        shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or not hasattr(shell, "register_magic_function"):
        return False

    def answer(line, cell):
        answer_cell(line, cell)

    def code_exercise(line, cell):
        code_exercise_cell(line, cell, shell.user_ns)

    def reveal(line, cell):
        __tracebackhide__ = True  # noqa: F841 - IPython shows a body's error from the body down
        return reveal_cell(line, cell, shell.user_ns, getattr(shell, "transform_cell", None))

    answer.__doc__ = answer_cell.__doc__
    code_exercise.__doc__ = code_exercise_cell.__doc__
    reveal.__doc__ = reveal_cell.__doc__
    shell.register_magic_function(answer, "cell", "answer")
    shell.register_magic_function(code_exercise, "cell", "code_exercise")
    shell.register_magic_function(reveal, "cell", "reveal")
    cleanup = getattr(shell, "input_transformers_cleanup", None)
    if isinstance(cleanup, list) and _empty_body not in cleanup:
        cleanup.append(_empty_body)
    return True
