"""tools.commit_subjects: the check `make lint` runs on every commit subject after a fixed base commit."""

from __future__ import annotations

import subprocess

from tools import commit_subjects


def test_subjects_are_measured_in_bytes():
    ok = "a" * 72
    assert commit_subjects.too_long([ok, "一" * 24]) == []  # 72 bytes each
    assert commit_subjects.too_long([ok + "b", "一" * 25, "σ" * 37]) == [
        f"73 bytes: {ok}b",
        f"75 bytes: {'一' * 25}",
        f"74 bytes: {'σ' * 37}",
    ]


def test_a_long_subject_after_the_base_fails_and_older_ones_do_not(tmp_path):
    def git(*args):
        return subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    git("config", "user.email", "t@example.org")
    git("config", "user.name", "t")
    git("commit", "-q", "--allow-empty", "-m", "x" * 200)  # before the base: not checked
    base = git("rev-parse", "HEAD").strip()
    git("commit", "-q", "--allow-empty", "-m", "short and fine")
    assert commit_subjects.too_long(commit_subjects.subjects_since(base, tmp_path)) == []
    git("commit", "-q", "--allow-empty", "-m", "Ein Betreff, der viel zu lang ist: " + "×" * 30)
    assert len(commit_subjects.too_long(commit_subjects.subjects_since(base, tmp_path))) == 1
    assert commit_subjects.subjects_since("0" * 40, tmp_path) is None


def test_this_repository_passes():
    subjects = commit_subjects.subjects_since()
    assert subjects is None or commit_subjects.too_long(subjects) == []
