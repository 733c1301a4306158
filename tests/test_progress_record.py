"""The kept record of exercises answered right (issue 39, L6): kernels writing at once lose nothing, and a file that
is not a record is set aside unchanged with a message, never rewritten as something else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import lnlib
from lnlib import _record

ROOT = Path(__file__).resolve().parents[1]

WRITER = """
import sys
from lnlib import _record
for i in range(200):
    _record.record_right(f"{sys.argv[1]}.{i:03d}")
"""


def test_two_kernels_recording_at_once_keep_every_answer(tmp_path):
    env = {**os.environ, _record.ENV_VAR: str(tmp_path), "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, tag], env=env) for tag in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    kept = json.loads((tmp_path / _record.FILE_NAME).read_text(encoding="utf-8"))["right"]
    assert len(kept) == 400 and set(kept) == {f"{t}.{i:03d}" for t in "ab" for i in range(200)}
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".progress.lock")) == ["progress.json"]


MALFORMED = [
    '{"right": "03.mean_apple"}',  # a string where the list belongs: once rewritten as single characters
    '{"right": [1, 2]}',
    '["03.mean_apple"]',
    "{not json",
    b"\xff\xfe not utf-8",
]


def test_a_file_that_is_not_a_record_is_set_aside_unchanged(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(_record.ENV_VAR, str(tmp_path))
    path = tmp_path / _record.FILE_NAME
    for n, content in enumerate(MALFORMED, start=1):
        raw = content if isinstance(content, bytes) else content.encode("utf-8")
        path.write_bytes(raw)
        assert _record.answered_right() == set(), "nothing is read out of it"
        lnlib.check("03.mean_pear", 6)
        out = capsys.readouterr().out
        assert out.startswith("✓") and f"progress.unreadable-{n}.json" in out and "读不懂" in out, out
        assert (tmp_path / f"progress.unreadable-{n}.json").read_bytes() == raw, "kept as it was"
        assert _record.answered_right() == {"03.mean_pear"}, "the record starts over"
        lnlib.check("03.mean_pear", 6)
        assert "读不懂" not in capsys.readouterr().out, "said once"
        path.unlink()
