"""The English teacher guide (docs/teacher-guide.en.md) is a guide to the English edition, and true.

- every English notebook (notebooks/en/NN-*.ipynb) is named in it;
- every way to run the course is covered for the English edition (EDITION=en for `make lab`, the Hub link and the
  PDF; COURSE_LANG=en for the graded assignments; Binder, a JupyterHub, offline, Windows);
- every `make X` it shows is a target of the Makefile, every `python -m tools.X` a module of tools/, every
  repository path it names in code exists, and every shell command works from a fresh clone (by the rules of
  tests/test_doc_commands.py, with this guide's English placeholders);
- no Chinese sentence: outside code and quotes, Chinese appears only as short terms (我 / 吃 / 苹果, 答案表).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_doc_commands import check, clone, shown_commands  # noqa: F401 (clone is a fixture)
from tools import course
from tools.course import ROOT

GUIDE = ROOT / "docs" / "teacher-guide.en.md"

# The guide's English placeholders and what stands in for them (then test_doc_commands' own replacements apply).
PLACEHOLDERS = {
    "your-account/your-repo": "example/course",
    "BRANCH=branch-name": "BRANCH=spring",
    "<assignments-repo>": "example/homework",
    "<hub>": "hub.example.edu",
    "<id>": "2025001",
    "my-class.txt": "assignments/roster-example.txt",
    "=collected-notebooks": "=submissions",
}

CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
CJK_RUN = re.compile(f"[{CJK}]+")
SENTENCE_MARK = re.compile("[。！？，；：]")
LONGEST_TERM = 4  # 我, 吃, 苹果, 答案表: a run of Chinese longer than this is prose, not a term


def guide_files() -> list[Path]:
    """The files that make up the guide."""
    return [GUIDE] if GUIDE.exists() else []


def guide_text() -> str:
    files = guide_files()
    if not files:
        pytest.fail("there is no English teacher guide (docs/teacher-guide.en.md)")
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


def without_code(text: str) -> str:
    """The prose: fenced blocks, inline code and link targets removed."""
    text = re.sub(r"^\s*```.*?^\s*```\s*$", "", text, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.sub(r"\]\([^)]*\)", "]", text)


def code_of(text: str) -> str:
    """Everything shown as code: the fenced blocks and the inline spans, one per line."""
    blocks = re.findall(r"^\s*```[^\n]*\n(.*?)^\s*```\s*$", text, flags=re.S | re.M)
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"^\s*```.*?^\s*```\s*$", "", text, flags=re.S | re.M))
    return "\n".join([*blocks, *spans])


def chinese_sentences(text: str) -> list[str]:
    """Chinese outside code and quotes that is more than a short term."""
    prose = without_code(text)
    prose = re.sub(r"「[^」\n]*」|“[^”\n]*”|\"[^\"\n]*\"", "", prose)
    return [run for run in CJK_RUN.findall(prose) if len(run) > LONGEST_TERM or SENTENCE_MARK.search(run)]


def makefile_targets(makefile: Path = ROOT / "Makefile") -> set[str]:
    """The Makefile's targets, with its simple variables ($(VENV), $(STAMP) …) expanded."""
    text = re.sub(r"^define .*?^endef$", "", makefile.read_text(encoding="utf-8"), flags=re.S | re.M)
    variables = dict(re.findall(r"^([A-Z_]+)\s*[:?]?=\s*(.*?)\s*$", text, flags=re.M))

    def expand(s: str) -> str:
        for _ in range(5):
            s = re.sub(r"\$\(([A-Z_]+)\)", lambda m: variables.get(m.group(1), m.group(0)), s)
        return s

    targets: set[str] = set()
    for line in re.findall(r"^([^\s#][^:=\n]*?)\s*:(?!=)", text, flags=re.M):
        targets.update(expand(line).split())
    return targets - {".PHONY"}


def unknown_targets(text: str, targets: set[str]) -> list[str]:
    named = re.findall(r"(?:^|[ \t;(&|])make[ \t]+(?:-\S+[ \t]+)*([^\s=]+)(?=\s|$)", code_of(text), flags=re.M)
    return sorted({t for t in named if t not in targets and t != "…"})


def unknown_modules(text: str) -> list[str]:
    named = set(re.findall(r"-m tools\.(\w+)", text)) | set(re.findall(r"\btools\.(\w+)`", text))
    return sorted(m for m in named if not (ROOT / "tools" / f"{m}.py").is_file())


REPO_PATH = re.compile(r"^(?:tools|tests|assignments|notebooks|binder|lnlib|docs|labextension|share)/[\w./-]*$")


def missing_paths(text: str) -> list[str]:
    """Repository paths named in code that do not exist (build/ outputs and patterns left out)."""
    named = {w.strip(",.;") for w in code_of(text).split()}
    return sorted(p for p in named if REPO_PATH.match(p) and not (ROOT / p).exists())


def broken_code_spans(text: str) -> list[str]:
    """Prose lines with an odd number of backticks: an inline code span broken across lines, which the command
    checks (one line at a time) would not see."""
    prose = re.sub(r"^\s*```.*?^\s*```\s*$", "", text, flags=re.S | re.M)
    return [line for line in prose.splitlines() if line.count("`") % 2]


def english_notebooks() -> list[str]:
    stems = [p.stem for p in course.notebook_paths(ROOT / "notebooks" / "en")]
    assert len(stems) >= 17, stems
    return stems


def test_the_guide_names_every_english_notebook():
    if not GUIDE.exists():
        pytest.skip("docs/teacher-guide.en.md (the half with the notebooks) is not joined in yet")
    text = guide_text()
    missing = [stem for stem in english_notebooks() if stem not in text]
    assert not missing, f"English notebooks the guide does not name: {missing}"


def test_the_guide_covers_the_english_edition_in_every_setting():
    text = guide_text()
    for must in (
        "EDITION=en",
        "make lab EDITION=en",
        "make pdf EDITION=en",
        "COURSE_LANG=en",
        "make assignments ROSTER=my-class.txt COURSE_LANG=en",
        "--edition en",
        "notebooks/en/00-index.ipynb",
        "build/student/en/",
        "build/site/en/",
    ):
        assert must in text, must
    headings = [h.lower() for h in re.findall(r"^#{2,3} (.+)$", text, flags=re.M)]
    for setting in ("binder", "jupyterhub", "offline", "windows", "assignments", "answer key", "license"):
        assert any(setting in h for h in headings), f"no section on {setting}: {headings}"


def test_every_make_target_and_tool_module_exists():
    text = guide_text()
    assert not unknown_targets(text, makefile_targets())
    assert not unknown_modules(text)
    assert not missing_paths(text)
    assert not broken_code_spans(text)


def test_no_chinese_sentence():
    found = chinese_sentences(guide_text())
    assert not found, f"Chinese outside code and quotes: {found}"


def test_every_shown_command_works_from_a_fresh_clone(clone):  # noqa: F811 (the fixture)
    problems = []
    seen = set()
    for path in guide_files():
        for line, command in shown_commands(path):
            for placeholder, value in PLACEHOLDERS.items():
                command = command.replace(placeholder, value)
            if command in seen:
                continue
            seen.add(command)
            why = check(command, clone)
            if why:
                problems.append(f"{path.name}:{line}: {command}\n    {why}")
    assert len(seen) >= 25, sorted(seen)
    assert not problems, "\n".join(problems)


def test_the_checks_can_fail():
    """Each check finds what it is for in a made-up guide."""
    assert chinese_sentences("Run it. 运行以后会显示答案。")
    assert chinese_sentences("Answer 「不变」, the row 苹果 (apple), the 答案表.") == []
    assert chinese_sentences("`# 在下面一行写你的答案` is the comment.") == []
    targets = makefile_targets()
    assert {"lab", "hub-link", "grade", "assignments", "pdf", "stale-cells", ".venv/.installed"} <= targets
    assert unknown_targets("Run `make no-such-target EDITION=en`.", targets) == ["no-such-target"]
    assert unknown_targets("```bash\nmake -s hub-link HUB=h\n```", targets) == []
    assert unknown_targets("and make sure it runs", targets) == []  # prose is not a command
    assert unknown_modules("`.venv/bin/python -m tools.no_such_tool`") == ["no_such_tool"]
    assert missing_paths("see `tools/no_such_file.py` and `build/grades/grades.csv`") == ["tools/no_such_file.py"]
    assert broken_code_spans("run `pip install -r\nbinder/requirements.txt` first") == [
        "run `pip install -r",
        "binder/requirements.txt` first",
    ]
    assert guide_text()  # the guide itself is there
