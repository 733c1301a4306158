"""Every shell command README.md and the teacher guide show works as written from a fresh clone (issue 41, item 5).

A teacher following the README ran `python -m tools.hub_link …` and `python -m tools.nav --repo …` in a fresh
clone and got `ModuleNotFoundError: nbformat` (nothing was installed yet), and `py -3.11` failed on a machine with
only Python 3.12-3.14. Here every command of a ```bash/```bat block and every inline `command` of the two documents
is taken out and checked in a copy of the repository (the files git tracks or would track: a fresh clone of this
work tree), placeholders (你的账号/仓库名, <hub>, 名单.txt …) replaced by examples:

- `make …`: the target exists and `make -n` (dry run) succeeds; `make hub-link` is run for real (it needs no
  install) and must print an nbgitpuller link;
- `python`/`python3`/`py -3` with `-m`: a bare interpreter has only the standard library, so the module must run
  without site-packages (`python -S`): `--help`, and tools.hub_link with the document's arguments; `-m venv` and
  `-m pip` are the install steps themselves; `py -3.N` is refused (it fails where only another 3.x is installed);
- `.venv/bin/…` and `.venv\\Scripts\\…` (after the documented install): the module exists and answers `--help` in
  the copy, run by this test's interpreter standing in for the course's venv (tools.nav --repo is run for real);
  `jupyter lab <file>` names a file that exists;
- commands for another machine or the system's installer (apt-get, brew, winget, repo2docker, docker, the Hub
  image's pip …) are listed in OTHER_MACHINE with the reason; a new command that fits no rule fails.

What it does not prove: the installs themselves (1 GB from the package index, `make lab`, the Windows route) — CI's
`.ci/run` does `make .venv/.installed` and `make simulate-binder`'s equivalent on Linux; Windows and macOS are
checked by `tools.check_platforms` (wheels resolve), not run.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tools.course import ROOT

DOCS = ("README.md", "docs/teacher-guide.md")
FENCE = re.compile(r"^\s*```(\w*)\s*$")
SHELL_BLOCKS = ("bash", "sh", "bat", "shell")
COMMAND_WORDS = ("make", "python", "python3", "py", "pip", "jupyter", "repo2docker", "docker", "sudo", "brew")
COMMAND_WORDS += ("xcode-select", "winget", "ssh", "echo", "git")

# Placeholders of the documents and what stands in for them here.
PLACEHOLDERS = {
    "你的账号/仓库名": "example/course",
    "<仓库>": "example/course",
    "<作业仓库>": "example/homework",
    "<hub>": "hub.example.edu",
    "<学号>": "2025001",
    "名单.txt": "assignments/roster-example.txt",
    "我的班级.txt": "assignments/roster-example.txt",
    "ids.txt": "assignments/roster-example.txt",
    "=文件夹": "=submissions",
    "=…": "=submissions",
    "=收上来的笔记本": "=submissions",
}

# Commands for another machine, another environment or the system's installer: shown, not run here.
OTHER_MACHINE = {
    "sudo apt-get install": "the system's installer (Debian/Ubuntu)",
    "xcode-select --install": "macOS's installer",
    "brew install": "macOS's package manager",
    "winget install": "Windows' installer",
    "ssh -L": "a port forward from the learner's own computer",
    "repo2docker ": "builds the Hub's image (Docker)",
    "docker run ": "runs the Hub's image (Docker)",
    "pip install jupyter-repo2docker": "the Hub administrator's machine",
    "pip install nbgitpuller": "inside the Hub's user image",
    "pip install -r binder/requirements.txt": "inside the Hub's user image",
    "pip install .": "inside the Hub's user image (and what Binder's postBuild runs)",
    "pip install --user -e .": "a terminal on the Hub",
    "pip check": "named as a check the Makefile runs, not a step to type",
    "python -P": "names the flag binder/postBuild uses",
    "jupyter labextension list": "any environment with JupyterLab (a check, not a step)",
    "echo $NBGITPULLER_PARENTPATH": "a terminal on the Hub",
    "git push ": "publishes to the teacher's own remote",
}

# Commands still in an old form that must keep failing the rules until changed, then leave this list.
PENDING: dict[str, str] = {}


def shown_commands(path: Path) -> list[tuple[int, str]]:
    """(line, command) for every command line of a shell block (continuations joined, comments dropped) and every
    inline code span that starts with a command word and has an argument."""
    found: list[tuple[int, str]] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence:
            end = next(j for j in range(i + 1, len(lines)) if FENCE.match(lines[j]))
            if fence.group(1) in SHELL_BLOCKS:
                pending = ""
                for n in range(i + 1, end):
                    line = lines[n].strip()
                    text = "" if line.startswith("#") else re.sub(r"\s+#\s.*$", "", line)
                    text = f"{pending} {text}".strip() if pending else text
                    if text.endswith("\\"):
                        pending = text[:-1].strip()
                        continue
                    pending = ""
                    if text:
                        found.append((n + 1, text))
            i = end + 1
            continue
        for span in re.findall(r"`([^`\n]+)`", lines[i]):
            words = span.split()
            if len(words) > 1 and (words[0] in COMMAND_WORDS or words[0].startswith((".venv/", ".venv\\"))):
                found.append((i + 1, span))
        i += 1
    return found


def all_commands() -> list[tuple[str, str]]:
    """(where, command), each command once (the first place it is shown)."""
    seen: dict[str, str] = {}
    for doc in DOCS:
        for line, command in shown_commands(ROOT / doc):
            seen.setdefault(command, f"{doc}:{line}")
    return [(where, command) for command, where in seen.items()]


def example(command: str) -> str:
    for placeholder, value in PLACEHOLDERS.items():
        command = command.replace(placeholder, value)
    return command.replace("…", "")


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    from tools.simulate_binder import copy_repository

    root = tmp_path_factory.mktemp("clone")
    copy_repository(root)
    (root / "submissions").mkdir()
    return root


def run(args, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def check_make(command: str, clone: Path) -> str | None:
    args = shlex.split(example(command))
    if args[1:2] == ["hub-link"]:
        done = run(["make", "-s", *args[1:]], clone)
        ok = done.returncode == 0 and done.stdout.startswith("https://") and "git-pull?repo=" in done.stdout
        return None if ok else f"make hub-link failed: {done.stdout}{done.stderr}"
    # a dry run; PYTHON given (this interpreter) spares make's search for a Python 3.11.2+, which hub-link tries
    done = run(["make", "-n", f"PYTHON={sys.executable}", *args[1:]], clone)
    return None if done.returncode == 0 else f"`make -n` fails: {done.stderr.strip()[-400:]}"


def module_of(args: list[str]) -> tuple[str, list[str]] | None:
    if "-m" not in args or args.index("-m") + 1 >= len(args):
        return None
    i = args.index("-m")
    return args[i + 1], args[i + 2 :]


def check_bare_python(command: str, clone: Path) -> str | None:
    """`python -m X`, `python3 -m X`, `py -3 -m X`: nothing installed, so only the standard library."""
    if re.match(r"py -3\.\d", command):
        return "`py -3.N` fails where only another Python 3 is installed: write `py -3`"
    args = shlex.split(example(command))
    found = module_of(args)
    if found is None:
        return None if args in (["py", "-3"],) else "a bare interpreter without -m module"
    module, rest = found
    if module in ("venv", "pip"):
        return None  # the install steps themselves
    help_run = run([sys.executable, "-S", "-m", module, "--help"], clone)
    if help_run.returncode != 0:
        return f"{module} needs more than the standard library: {help_run.stderr.strip()[-300:]}"
    if module == "tools.hub_link":
        done = run([sys.executable, "-S", "-m", module, *rest], clone)
        if done.returncode != 0 or not done.stdout.startswith("https://"):
            return f"tools.hub_link failed: {done.stderr.strip()[-300:]}"
    return None


def check_venv(command: str, clone: Path) -> str | None:
    """After the documented install: .venv/bin/X or .venv\\Scripts\\X (Windows), this test's interpreter standing
    in for the venv's."""
    args = shlex.split(example(command).replace("\\", "/"), posix=True)
    tool = args[0].split("/")[-1]
    if tool == "jupyter":
        targets = [a for a in args[2:] if not a.startswith("-")]
        missing = [t for t in targets if not (clone / t).exists()]
        return f"jupyter opens files that do not exist: {missing}" if missing else None
    found = module_of(args)
    if tool == "pip" or (found and found[0] == "pip"):
        files = [a for a in args if a.endswith(".txt")]
        missing = [f for f in files if not (clone / f).exists()]
        return f"pip installs from files that do not exist: {missing}" if missing else None
    if tool != "python" or found is None:
        return f"unknown venv command {tool!r}"
    module, rest = found
    if module == "tools.nav" and rest[:1] == ["--repo"]:
        done = run([sys.executable, "-m", module, *rest], clone, timeout=300)
    else:
        done = run([sys.executable, "-m", module, "--help"], clone, timeout=300)
    return None if done.returncode == 0 else f"{module} fails: {done.stderr.strip()[-300:]}"


def check(command: str, clone: Path) -> str | None:
    """None when the command works as written from a fresh clone (by the rules of the module doc), else why not."""
    for prefix in OTHER_MACHINE:
        if command.startswith(prefix):
            return None
    first = command.split()[0]
    if first == "make":
        return check_make(command, clone)
    if first in ("python", "python3", "py"):
        return check_bare_python(command, clone)
    if first.startswith((".venv/", ".venv\\")):
        return check_venv(command, clone)
    return f"fits no rule (add one, or list it in OTHER_MACHINE with the reason): {command}"


def test_the_documents_show_the_commands_this_test_knows():
    commands = dict((c, w) for w, c in all_commands())
    assert len(commands) >= 40, len(commands)
    for must in ("make lab", "make hub-link HUB=hub.example.edu REPO=你的账号/仓库名", "py -3 -m venv .venv"):
        assert must in commands, must
    assert set(PENDING) <= set(commands), "a pending command changed: remove it from PENDING"


def test_every_shown_command_works_from_a_fresh_clone(clone):
    problems = []
    for where, command in all_commands():
        why = check(command, clone)
        if command in PENDING:
            assert why, f"{where}: {command!r} now passes: remove it from PENDING"
            continue
        if why:
            problems.append(f"{where}: {command}\n    {why}")
    assert not problems, "\n".join(problems)


def test_the_checks_refuse_what_failed_as_written(clone):
    """The commands issue 41 found failing: plain `python -m` of tools that need the course's packages, and
    `py -3.11`; and a make target that does not exist."""
    assert "standard library" in check("python -m tools.nav --repo 你的账号/仓库名", clone)
    assert "py -3" in check("py -3.11 -m venv .venv", clone)
    assert check("make no-such-target", clone)
    assert check("python -m tools.hub_link hub.example.edu 你的账号/仓库名", clone) is None  # stdlib only now
    assert check("rm -rf build", clone).startswith("fits no rule")
