"""Make student copies of the notebooks: the same lessons without any worked solution, for self-study.

These copies are formative: `lnlib.check` still knows every answer, so they are not for marking. Graded work goes
through `python -m tools.assignments` and `python -m tools.grade` (make assignments / make grade).

    python -m tools.make_student               # -> build/student/
    python -m tools.make_student --out DIR

For every notebooks/NN-slug.ipynb (and every English notebooks/en/NN-slug.ipynb, into <out>/en/):
- every answer cell (`%%answer NN.name`) is reset to its placeholder (the magic line and the comment
  `# 在下面一行写答案`, in an English notebook `# write your answer on the line below`), and its outputs and
  execution count are cleared;
- every `reveal`-tagged code cell (its output shows the answer of a predict cell above it) keeps its code but loses
  its outputs, so nothing gives the answer away before the student runs it;
- cells tagged `solution` (or `remove-cell`) and markdown `<details>` blocks whose summary mentions 答案 / 解答 / 参考
  are removed, except the derivation blocks after reveal cells (summary 核对之后再展开：推导过程), which stay folded;
- a sentence pointing at notebooks/solutions/ is replaced by one saying the teacher hands out the answers.
Everything else (prose, tables, plots, generated navigation) is copied as is. notebooks/solutions/ is never copied.
Notebooks added later (and to the plan, tools/course.toml) are picked up without edits; a notebook the plan does not
list is an error, as for every tool.
"""

from __future__ import annotations

import argparse
import re
import shutil
import time
from pathlib import Path

import nbformat

from tools import course
from tools.course import CHECK_CALL, DERIVATION_SUMMARY, REVEAL_TAG, answer_placeholder

DEFAULT_OUT = course.BUILD / "student"
SOLUTION_TAGS = {"solution", "remove-cell"}
SOLUTION_DETAILS = re.compile(
    rf"<details>\s*<summary>(?!{DERIVATION_SUMMARY}</summary>)[^<]*(答案|解答|参考)[^<]*</summary>.*?</details>\s*",
    re.S,
)
SOLUTIONS_SENTENCE = re.compile(r"[^。\n]*notebooks/solutions/?[^。\n]*。?")
TEACHER_SENTENCE = "参考答案由老师另行发放。"
# The English edition (notebooks/en/ → <out>/en/): a <details> block whose summary speaks of an answer or solution
# goes, a derivation (summary naming it, the twin of 核对之后再展开：推导过程) stays; a sentence naming
# notebooks/solutions/ (a sentence ends at . ! or ? before a space or the line's end) says the teacher has them.
SOLUTION_DETAILS_EN = re.compile(
    r"<details>\s*<summary>(?![^<]*derivation)[^<]*(answer|solution)[^<]*</summary>.*?</details>\s*", re.S | re.I
)
SOLUTIONS_SENTENCE_EN = re.compile(r"[^\n]*?notebooks/solutions[^\n]*?(?:[.!?](?=\s|$)|$)", re.M)
TEACHER_SENTENCE_EN = "Your teacher hands out the worked answers."
SENTENCE_START = re.compile(r"(?:^|(?<=[.!?])\s+)(?=\S)", re.M)

README = """# 学生版笔记本

这些笔记本和课程正文相同，只是练习单元格都重置为空白，揭晓答案的输出也清空了，不含参考答案。
把答案写在 `%%answer` 那一行的下面再运行，它会告诉你对不对。运行前需要安装课程的 `lnlib` 包
（在课程仓库根目录运行 `make lab`，或 `pip install -r binder/requirements.txt` 再 `pip install .`）。
"""


def placeholder(names: list[str], edition: str = "zh") -> str:
    """The answer cell as a student gets it (one exercise per cell), with the placeholder of its edition."""
    return "\n\n".join(answer_placeholder(name, edition) for name in names)


def _english_sentences_without_solutions(line: str) -> str:
    """A line of English prose with each sentence naming notebooks/solutions/ replaced by TEACHER_SENTENCE_EN."""
    if "notebooks/solutions" not in line:
        return line
    starts = [m.end() for m in SENTENCE_START.finditer(line)] or [0]
    pieces = [line[: starts[0]]] + [line[a:b] for a, b in zip(starts, [*starts[1:], len(line)], strict=True)]
    return "".join(
        (TEACHER_SENTENCE_EN + piece[len(piece.rstrip()) :]) if "notebooks/solutions" in piece else piece
        for piece in pieces
    )


def studentize(nb: nbformat.NotebookNode) -> dict[str, int]:
    """Turn a notebook into its student copy in place; return counts of what was changed."""
    stats = {"exercises": 0, "removed": 0, "folded": 0}
    edition = course.edition_of(nb)
    cells = []
    for cell in nb.cells:
        if SOLUTION_TAGS & set(cell.metadata.get("tags", [])):
            stats["removed"] += 1
            continue
        if cell.cell_type == "markdown":
            if edition == "en":
                text = SOLUTION_DETAILS_EN.sub("", cell.source)
                text = "\n".join(_english_sentences_without_solutions(line) for line in text.split("\n"))
            else:
                text = SOLUTION_DETAILS.sub("", cell.source)
                text = SOLUTIONS_SENTENCE.sub(TEACHER_SENTENCE, text)
            if not text.strip():
                stats["removed"] += 1
                continue
            cell.source = text
        elif cell.cell_type == "code":
            names = CHECK_CALL.findall(cell.source)
            if names:
                cell.source = placeholder(names, edition)
                cell.outputs = []
                cell.execution_count = None
                stats["exercises"] += len(names)
            elif REVEAL_TAG in cell.metadata.get("tags", []):
                cell.outputs = []
                cell.execution_count = None
                stats["folded"] += 1
        cells.append(cell)
    nb.cells = cells
    return stats


def build(
    out: Path = DEFAULT_OUT, *, notebooks: Path = course.NOTEBOOKS, plan: course.Plan | None = None, quiet: bool = False
) -> list[Path]:
    """Write the student copies into `out` (emptied first); return their paths in course order.

    Raises course.UnplannedNotebookError (before writing anything) for a notebook the plan does not list.
    """
    paths = [path for _, path in course.planned_notebooks(plan, notebooks)]
    if not paths:
        raise ValueError(f"notebooks: no NN-slug.ipynb in {notebooks}")
    english = [path for _, path in course.planned_notebooks(plan, notebooks / "en")]  # the English edition, if any
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    if english:
        (out / "en").mkdir()
    written = []
    for path in paths + english:
        nb = nbformat.read(path, as_version=4)
        stats = studentize(nb)
        target = out / path.relative_to(notebooks)
        nbformat.write(nb, target)
        written.append(target)
        if not quiet:
            print(
                f"{path.name}: {stats['exercises']} exercises reset, {stats['folded']} reveal outputs cleared, "
                f"{stats['removed']} solution cells removed",
                flush=True,
            )
    (out / "README.md").write_text(README, encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (emptied first)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        paths = build(args.out)
    except ValueError as exc:  # a notebook missing from the plan
        parser.error(str(exc))
    print(f"{len(paths)} student notebooks in {args.out} in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
