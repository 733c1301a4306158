"""Every repository path the prose names exists: README.md and docs/*.md (`lnlib/widgets.py`, `tests/…`, relative
links), and the modules' own docstrings where they name a test file. A renamed or removed file shows here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOP = "lnlib|tools|tests|notebooks|docs|benchmarks|binder"
PATH = re.compile(rf"(?<![\w/.~-])((?:{TOP})/[\w./-]*[\w/])")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
NOT_PATHS = {
    "lnlib/torch",  # a ratio: lnlib's time / PyTorch's
    "lnlib/progress.json",  # inside the user's data folder, not the repository
}
PROSE = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def named_paths(text: str) -> set[str]:
    """Repository paths in prose: rooted at a top folder, without a placeholder (NN-slug, *)."""
    return {p for p in PATH.findall(text) if "NN" not in p and "*" not in p} - NOT_PATHS


@pytest.mark.parametrize("doc", PROSE, ids=lambda p: p.name)
def test_every_path_named_in_the_prose_exists(doc):
    missing = sorted(p for p in named_paths(doc.read_text(encoding="utf-8")) if not (ROOT / p).exists())
    assert missing == []


@pytest.mark.parametrize("doc", PROSE, ids=lambda p: p.name)
def test_every_relative_link_points_at_a_file(doc):
    links = [t for t in LINK.findall(doc.read_text(encoding="utf-8")) if not re.match(r"[a-z]+:", t)]
    assert sorted(t for t in links if not (doc.parent / t).exists()) == []


def test_code_docstrings_name_test_files_that_exist():
    missing = set()
    for path in [*ROOT.glob("lnlib/**/*.py"), *ROOT.glob("tools/*.py"), *ROOT.glob("benchmarks/*.py")]:
        for name in re.findall(r"\btests/test_\w+\.py", path.read_text(encoding="utf-8")):
            if not (ROOT / name).exists():
                missing.add(f"{path.relative_to(ROOT)}: {name}")
    assert sorted(missing) == []


def test_the_scan_finds_paths_and_skips_placeholders():
    text = "see `lnlib/widgets.py`, tests/test_x.py and notebooks/NN-slug.ipynb, or ~/lnlib/progress.json"
    assert named_paths(text) == {"lnlib/widgets.py", "tests/test_x.py"}


def test_the_architecture_page_names_every_module_tool_and_test_file():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    files = [*ROOT.glob("lnlib/*.py"), *ROOT.glob("lnlib/explorers/*.py"), *ROOT.glob("tools/*.py")]
    files += ROOT.glob("tests/test_*.py")
    unnamed = [
        str(p.relative_to(ROOT))
        for p in files
        if p.name != "__init__.py" and not re.search(rf"\b{re.escape(p.stem)}\b", page)
    ]
    assert sorted(unnamed) == []
