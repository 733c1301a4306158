"""The English edition follows the Chinese one: the same cells, the same code, a record of the text it follows.

    python -m tools.edition --check                            # every notebooks/en/NN-slug.ipynb (make lint)
    python -m tools.edition stamp notebooks/en/03-*.ipynb      # after reviewing it against its Chinese twin
    python -m tools.edition changes notebooks/en/03-*.ipynb    # what changed in the Chinese since the stamp

An English notebook (notebooks/en/<the Chinese file name>) has its Chinese twin's cells, in the same order: the
same types, the same cell metadata (tags), every code cell the same Python — compared as syntax trees with every
string constant blanked, so comments and the words inside strings may differ and nothing else; lines starting with
`%` (the `%%answer NN.name` magics) and every exercise name identical; an unanswered `%%answer` cell holds its
edition's placeholder; the same number of stored figures (image/png outputs) in each cell; the generated navigation
cells in the same places. The first code cell that imports lnlib chooses the edition's language there:
`lnlib.set_language("zh")` / `("en")`.

Its metadata records what it follows: `lnlib.follows = {notebook, commit, fingerprint}`, the fingerprint being the
SHA-256 of the Chinese notebook's sources (code and markdown; outputs and the generated navigation cells left out,
so re-running a notebook or setting the repository changes nothing). A change to the Chinese text changes the
fingerprint and `--check` (and tests/test_editions.py) fail until someone updates the English twin and stamps it
again; `stamp` refuses a twin whose structure differs. A Chinese notebook without an English twin is allowed and
listed.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from tools import course

NAV_MARKERS = ("<!-- nav:header -->", "<!-- nav:footer -->", "<!-- nav:map -->")  # tools/nav.py's generated cells
LANGUAGE_CALL = re.compile(r"""^lnlib\.set_language\(["'](\w+)["']\)\s*$""", re.M)
IMPORTS_LNLIB = re.compile(r"^(import lnlib\b(?!\.)|from lnlib\b)", re.M)
ENGLISH = course.EDITION_FOLDERS["en"]


@dataclass(frozen=True)
class Pair:
    """An English notebook and its Chinese twin (same file name, one folder up)."""

    english: Path
    chinese: Path

    @property
    def name(self) -> str:
        return self.english.name


def twin_of(english: Path, root: Path = course.ROOT) -> Path:
    """The Chinese notebook an English one follows: notebooks/<its file name>."""
    return root / "notebooks" / english.name


def english_paths(folder: Path = ENGLISH) -> list[Path]:
    return course.notebook_paths(folder) if folder.is_dir() else []


def pairs(root: Path = course.ROOT) -> list[Pair]:
    """Every English notebook with its Chinese twin, in file-name order."""
    return [Pair(p, twin_of(p, root)) for p in english_paths(root / "notebooks" / "en")]


def untranslated(root: Path = course.ROOT) -> list[str]:
    """The Chinese notebooks that have no English twin yet (allowed; listed by --check)."""
    have = {p.name for p in english_paths(root / "notebooks" / "en")}
    return [p.name for p in course.notebook_paths(root / "notebooks") if p.name not in have]


def is_generated(cell) -> bool:
    return cell.cell_type == "markdown" and cell.source.startswith(NAV_MARKERS)


def fingerprint(nb: nbformat.NotebookNode) -> str:
    """SHA-256 of a notebook's sources: every cell's type and text, outputs and generated navigation left out."""
    cells = [[c.cell_type, c.source] for c in nb.cells if not is_generated(c)]
    data = json.dumps(cells, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return "sha256:" + hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------- code compared as syntax trees


class _Blank(ast.NodeTransformer):
    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        return ast.Constant("") if isinstance(node.value, str) else node


def magic_lines(source: str) -> list[str]:
    """The lines IPython reads as magics or shell escapes (`%%answer NN.name`, `%timeit …`), stripped."""
    return [line.strip() for line in source.splitlines() if line.lstrip().startswith(("%", "!"))]


def code_shape(source: str) -> str:
    """A code cell as a syntax tree with every string constant blanked (comments are not in the tree).

    A cell magic's first line is left out (compared exactly by `magic_lines`); an %%answer cell's body is typed
    text, not Python: its lines other than comments are kept as they are. Raises SyntaxError for invalid code.
    """
    body = source
    if source.startswith("%%"):
        first, _, body = source.partition("\n")
        if first.split()[0] == course.ANSWER_MAGIC:
            return "answer:" + "\n".join(
                x.strip() for x in body.splitlines() if x.strip() and not x.lstrip().startswith("#")
            )
    from IPython.core.inputtransformer2 import TransformerManager  # line magics inside the code, e.g. %timeit

    tree = ast.parse(TransformerManager().transform_cell(body))
    return ast.dump(_Blank().visit(tree), include_attributes=False)


def language_set(nb: nbformat.NotebookNode) -> str | None:
    """The language the first code cell that imports lnlib chooses with lnlib.set_language, or None."""
    for cell in nb.cells:
        if cell.cell_type == "code" and IMPORTS_LNLIB.search(cell.source):
            found = LANGUAGE_CALL.search(cell.source)
            return found.group(1) if found else None
    return None


def exercise_names(nb: nbformat.NotebookNode) -> list[str]:
    """Every exercise a notebook names in a magic's first line: %%answer, %%code_exercise, %%reveal."""
    calls = (course.CHECK_CALL, course.FUNCTION_CALL, course.REVEAL_CALL)
    return [n for c in nb.cells if c.cell_type == "code" for call in calls for n in call.findall(c.source)]


def figures(cell) -> int:
    return sum("image/png" in out.get("data", {}) for out in cell.get("outputs", []))


def structure_differences(zh: nbformat.NotebookNode, en: nbformat.NotebookNode) -> list[str]:
    """What keeps `en` from being `zh`'s twin: cells, types, metadata, code, magics, exercises, figures, language."""
    found = []
    if len(zh.cells) != len(en.cells):
        found.append(f"{len(en.cells)} cells, the Chinese has {len(zh.cells)}")
    if exercise_names(zh) != exercise_names(en):
        found.append(f"exercises {exercise_names(en)} ≠ the Chinese {exercise_names(zh)}")
    if zh.metadata.get("kernelspec") != en.metadata.get("kernelspec"):
        found.append("notebook metadata kernelspec differs from the Chinese")
    for i, (a, b) in enumerate(zip(zh.cells, en.cells, strict=False)):
        where = f"cell {i}"
        if a.cell_type != b.cell_type:
            found.append(f"{where}: a {b.cell_type} cell, the Chinese has a {a.cell_type} cell")
            continue
        if a.metadata != b.metadata:
            found.append(f"{where}: metadata {dict(b.metadata)} ≠ the Chinese {dict(a.metadata)}")
        if is_generated(a) != is_generated(b) or (
            is_generated(a) and a.source.split("\n")[0] != b.source.split("\n")[0]
        ):
            found.append(f"{where}: the generated navigation cells are not in the same places")
        if a.cell_type != "code":
            continue
        if magic_lines(a.source) != magic_lines(b.source):
            found.append(f"{where}: magic lines {magic_lines(b.source)} ≠ the Chinese {magic_lines(a.source)}")
        try:
            same = code_shape(a.source) == code_shape(b.source)
        except SyntaxError as exc:
            found.append(f"{where}: not valid Python ({exc.msg}, line {exc.lineno})")
            continue
        if not same:
            found.append(f"{where}: the code differs from the Chinese beyond comments and the words in strings")
        for edition, cell in (("zh", a), ("en", b)):
            names = course.CHECK_CALL.findall(cell.source)
            unanswered = names and code_shape(cell.source) == "answer:"
            if unanswered and cell.source != course.answer_placeholder(names[0], edition):
                found.append(
                    f"{where}: the {edition} answer cell is not {course.answer_placeholder(names[0], edition)!r}"
                )
        if figures(a) != figures(b):
            found.append(f"{where}: {figures(b)} stored figures, the Chinese has {figures(a)}")
    for edition, nb in (("zh", zh), ("en", en)):
        if language_set(nb) != edition:
            found.append(
                f'the {edition} notebook does not choose its language: lnlib.set_language("{edition}") '
                "on the line after `import lnlib` in the first code cell importing lnlib"
            )
    return found


def record(nb: nbformat.NotebookNode) -> dict:
    return nb.metadata.get("lnlib", {})


def stamp_differences(zh: nbformat.NotebookNode, en: nbformat.NotebookNode, name: str) -> list[str]:
    """What keeps `en`'s record from saying it follows today's Chinese notebook `name`."""
    rec = record(en)
    follows = rec.get("follows", {})
    found = []
    if rec.get("edition") != "en":
        found.append('metadata lnlib.edition is not "en"')
    if follows.get("notebook") != f"notebooks/{name}":
        found.append(f"metadata lnlib.follows.notebook is {follows.get('notebook')!r}, not 'notebooks/{name}'")
    if not follows.get("fingerprint"):
        found.append(f"not stamped yet: review it, then python -m tools.edition stamp notebooks/en/{name}")
    elif follows["fingerprint"] != fingerprint(zh):
        found.append(
            f"the Chinese notebook changed since commit {follows.get('commit', '?')}: update the English one "
            f"(python -m tools.edition changes notebooks/en/{name}), then stamp it again"
        )
    return found


def differences(pair: Pair) -> list[str]:
    """Every way an English notebook fails to be its Chinese twin's reviewed counterpart."""
    if not pair.chinese.is_file():
        return [f"no Chinese notebook notebooks/{pair.name} to follow"]
    zh, en = (nbformat.read(p, as_version=4) for p in (pair.chinese, pair.english))
    return structure_differences(zh, en) + stamp_differences(zh, en, pair.name)


def last_commit(path: Path, root: Path = course.ROOT) -> str | None:
    """The short hash of the last commit that changed `path`, or None outside a git checkout."""
    try:
        done = subprocess.run(
            ["git", "log", "-1", "--format=%h", "--", str(path.relative_to(root))],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
    except (OSError, ValueError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def sources_text(nb: nbformat.NotebookNode) -> list[str]:
    """A notebook's sources as lines, each cell under a `# ---- cell i (type)` line (outputs left out)."""
    lines = []
    for i, cell in enumerate(nb.cells):
        lines += [f"# ---- cell {i} ({cell.cell_type})", *cell.source.split("\n")]
    return lines


def changes(pair: Pair, commit: str, root: Path = course.ROOT) -> list[str]:
    """The Chinese notebook's sources changed since `commit`, as a unified diff (outputs left out)."""
    import difflib

    rel = pair.chinese.relative_to(root).as_posix()
    done = subprocess.run(["git", "show", f"{commit}:{rel}"], cwd=root, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ValueError(f"git show {commit}:{rel} failed: {done.stderr.strip()}")
    old, new = nbformat.reads(done.stdout, as_version=4), nbformat.read(pair.chinese, as_version=4)
    return list(difflib.unified_diff(sources_text(old), sources_text(new), f"{rel}@{commit}", rel, lineterm=""))


def stamp(pair: Pair, root: Path = course.ROOT) -> list[str]:
    """Record in the English notebook the fingerprint and commit of its Chinese twin; refuse if they differ."""
    if not pair.chinese.is_file():
        return [f"no Chinese notebook notebooks/{pair.name} to follow"]
    zh, en = (nbformat.read(p, as_version=4) for p in (pair.chinese, pair.english))
    problems = structure_differences(zh, en)
    if problems:
        return problems
    rec = en.metadata.setdefault("lnlib", {})
    rec["edition"] = "en"
    follows = rec.setdefault("follows", {})
    follows["notebook"] = f"notebooks/{pair.name}"
    follows["commit"] = last_commit(pair.chinese, root) or follows.get("commit", "")
    follows["fingerprint"] = fingerprint(zh)
    nbformat.write(en, pair.english)
    return []


def main(argv: list[str] | None = None, root: Path = course.ROOT) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", choices=("check", "stamp", "changes"), default="check")
    parser.add_argument("paths", nargs="*", type=Path, help="English notebooks (default for check: all of them)")
    parser.add_argument("--check", action="store_true", help="the same as the command check (make lint)")
    args = parser.parse_args(argv)
    if args.check and args.command != "check":
        parser.error("--check is the command check")
    chosen = [Pair(p.resolve(), twin_of(p, root)) for p in args.paths] if args.paths else pairs(root)
    if args.command != "check" and not args.paths:
        parser.error(f"{args.command}: name the English notebooks (notebooks/en/NN-slug.ipynb)")
    bad = 0
    for pair in chosen:
        if args.command == "stamp":
            problems = stamp(pair, root)
            print(f"{pair.name}: " + ("stamped" if not problems else "NOT stamped:"))
        elif args.command == "changes":
            commit = record(nbformat.read(pair.english, as_version=4)).get("follows", {}).get("commit")
            try:
                if not commit:
                    raise ValueError("no commit recorded: nothing to compare with")
                print("\n".join(changes(pair, commit, root)) or f"{pair.name}: no change since {commit}")
                problems = []
            except ValueError as exc:
                problems = [str(exc)]
        else:
            problems = differences(pair)
            if problems:
                print(f"{pair.name}:")
        bad += bool(problems)
        for problem in problems:
            print(f"  {problem}")
    if args.command == "check":
        missing = untranslated(root)
        print(f"{len(chosen) - bad} of {len(chosen)} English notebooks follow their Chinese twin", end="")
        print(f"; no English twin yet: {', '.join(missing)}" if missing else "")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
