"""The one setting every launch link is derived from: `repository` (and `branch`) in tools/course.toml.

    python -m tools.nav --repo owner/name                 # a fork or a publication: every link follows
    python -m tools.nav --repo owner/name --branch spring  # links to a branch instead of the default one

Derived from it: the Binder link of every notebook header (tools/nav.py), of the static site (tools/build_site.py)
and of the README's badges (the English one too), `repository-code` in CITATION.cff, and the default repository
of tools/hub_link.py. `apply` writes the setting into course.toml and the two text files (their generated parts
only: the README's English course map too, which links each English notebook that exists); `python -m tools.nav`
and `--check` (make lint) keep them in step with course.toml. The placeholder OWNER/REPO is what the
course ships with: the site refuses to build with it unless asked for a preview, the Hub link refuses it always.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from tools import course

PLACEHOLDER = course.PLACEHOLDER_REPOSITORY
BADGE_START, BADGE_END = "<!-- repository:binder -->", "<!-- /repository:binder -->"
# the English section's badge, opening the English edition's course map (optional: rewritten where it is)
BADGE_EN_START, BADGE_EN_END = "<!-- repository:binder-en -->", "<!-- /repository:binder-en -->"
EDITION_INDEX = {"zh": f"notebooks/{course.INDEX_STEM}.ipynb", "en": f"notebooks/en/{course.INDEX_STEM}.ipynb"}
CITATION_LINE = re.compile(r'^repository-code: ".*"$', re.M)
HOW_TO_SET = "set it with `make repo REPO=owner/name` (tools/course.toml, README.md, CITATION.cff)"


def is_placeholder(repository: str) -> bool:
    return repository.strip().upper() == PLACEHOLDER


def binder_url(repository: str, branch: str = "", path: str = f"notebooks/{course.INDEX_STEM}.ipynb") -> str:
    """mybinder.org's launch link; without a branch, the repository's default branch (HEAD)."""
    ref = quote(branch, safe="") if branch else "HEAD"
    return f"https://mybinder.org/v2/gh/{repository}/{ref}?urlpath=lab/tree/{path}"


def github_url(repository: str) -> str:
    return f"https://github.com/{repository}"


def readme_badge(repository: str, branch: str = "", edition: str = "zh") -> str:
    """The README's generated Binder badge of an edition (between its two marker comments)."""
    link = binder_url(repository, branch, EDITION_INDEX[edition])
    start, end = (BADGE_START, BADGE_END) if edition == "zh" else (BADGE_EN_START, BADGE_EN_END)
    return f"{start}\n[![Binder](https://mybinder.org/badge_logo.svg)]({link})\n{end}"


@dataclass(frozen=True)
class Files:
    """The files that carry the setting, under one root (a fork's checkout in tests)."""

    root: Path = course.ROOT

    @property
    def plan(self) -> Path:
        return self.root / "tools" / "course.toml"

    @property
    def readme(self) -> Path:
        return self.root / "README.md"

    @property
    def citation(self) -> Path:
        return self.root / "CITATION.cff"


HERE = Files()  # this checkout


def _with_badge(text: str, repository: str, branch: str, name: str) -> str:
    start, end = text.find(BADGE_START), text.find(BADGE_END)
    if start < 0 or end < start:
        raise ValueError(f"{name}: no generated Binder badge ({BADGE_START} … {BADGE_END})")
    text = text[:start] + readme_badge(repository, branch) + text[end + len(BADGE_END) :]
    start, end = text.find(BADGE_EN_START), text.find(BADGE_EN_END)
    if start >= 0 and end > start:
        text = text[:start] + readme_badge(repository, branch, "en") + text[end + len(BADGE_EN_END) :]
    return text


README_MAP_START, README_MAP_END = "<!-- readme:course-map-en -->", "<!-- /readme:course-map-en -->"


def readme_map(present: set[str]) -> str:
    """The README's English course map: a lesson links its English notebook where it exists, else its Chinese one."""
    lines = [README_MAP_START, "| Lesson | Notebook | What it covers |", "|---|---|---|"]
    for lesson in course.LESSONS:
        words = lesson.in_edition("en")
        if lesson.stem in present:
            link = f"[`{lesson.stem}`](notebooks/en/{lesson.stem}.ipynb)"
        else:
            link = f"[`{lesson.stem}`](notebooks/{lesson.stem}.ipynb) (Chinese; English coming soon)"
        lines.append(f"| {lesson.number:02d} | {link} | **{words.title}** — {words.summary} |")
    return "\n".join([*lines, README_MAP_END])


def _with_english_map(text: str, root: Path) -> str:
    """The README with its English course map (between its markers, where it has them) for the notebooks of root."""
    start, end = text.find(README_MAP_START), text.find(README_MAP_END)
    if start < 0 or end < start:
        return text
    present = {p.stem for p in course.notebook_paths(root / "notebooks" / "en")}
    return text[:start] + readme_map(present) + text[end + len(README_MAP_END) :]


def _with_citation(text: str, repository: str, name: str) -> str:
    if len(CITATION_LINE.findall(text)) != 1:
        raise ValueError(f'{name}: expected one `repository-code: "…"` line')
    return CITATION_LINE.sub(f'repository-code: "{github_url(repository)}"', text)


def derived_texts(repository: str, branch: str, files: Files) -> dict[Path, str]:
    """What README.md and CITATION.cff must say for this setting."""
    readme = files.readme.read_text(encoding="utf-8")
    citation = files.citation.read_text(encoding="utf-8")
    return {
        files.readme: _with_english_map(_with_badge(readme, repository, branch, files.readme.name), files.root),
        files.citation: _with_citation(citation, repository, files.citation.name),
    }


def out_of_date(repository: str, branch: str, files: Files | None = None) -> list[str]:
    """The text files whose links do not follow the setting."""
    files = files or HERE
    return [p.name for p, text in derived_texts(repository, branch, files).items() if p.read_text("utf-8") != text]


def apply(repository: str, branch: str = "", files: Files | None = None) -> list[str]:
    """Set the repository (and branch) in course.toml and rewrite the README badge and CITATION.cff from it.

    Checks everything before writing anything; returns the names of the files written."""
    files = files or HERE
    if not course.REPOSITORY_FORMAT.fullmatch(repository):
        raise ValueError(f"repository: expected 'owner/name', got {repository!r}")
    texts = derived_texts(repository, branch, files)
    course.set_repository(repository, files.plan, branch=branch)
    written = [files.plan.name]
    for path, text in texts.items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path.name)
    return written
