"""The course's JupyterLab extension (labextension/, built into share/): JupyterLab 4 ignores the alt text in an
image output's metadata and ipywidgets' Image has none, so without it a screen reader in JupyterLab finds no
description of any figure (issue 27 item 5). The real-browser suite checks every figure <img> there; these tests
check, without a browser, that the committed build is the build of today's source, that it looks for what lnlib
writes, and that every install route carries it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from lnlib.explorers.base import EXPLORER_CLASS
from tools import labextension

ROOT = Path(__file__).resolve().parent.parent
BUILT = labextension.BUILT
SOURCE = labextension.SOURCE


def built_javascript() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted((BUILT / "static").glob("*.js")))


def test_the_committed_build_is_the_build_of_todays_source():
    assert labextension.main([]) == 0, "labextension/ changed since the build: run make labextension"


def test_the_stamp_changes_with_the_source(tmp_path, monkeypatch):
    copy = tmp_path / "labextension"
    (copy / "src").mkdir(parents=True)
    for path in labextension.source_files():
        (copy / path.relative_to(SOURCE)).write_bytes(path.read_bytes())
    monkeypatch.setattr(labextension, "SOURCE", copy)
    same = labextension.source_hash()
    (copy / "src" / "index.js").write_text("// edited\n", encoding="utf-8")
    assert same == BUILT.joinpath("source.sha256").read_text().strip() != labextension.source_hash()


def test_the_build_is_the_extension_jupyterlab_loads():
    source = json.loads((SOURCE / "package.json").read_text(encoding="utf-8"))
    built = json.loads((BUILT / "package.json").read_text(encoding="utf-8"))
    assert built["name"] == source["name"] == BUILT.name
    assert (BUILT / built["jupyterlab"]["_build"]["load"]).is_file()


def test_the_extension_reads_what_lnlib_writes():
    """The explorer selector names lnlib's explorer class; the image renderer reads the "alt" metadata key that
    lnlib.plots writes (and replaces JupyterLab's image renderer)."""
    code = built_javascript()
    assert f".{EXPLORER_CLASS} img.widget-image[title]" in code
    assert ".alt" in code and "lnlib-alt-text:plugin" in code
    assert "addFactory" in code


def test_the_wheel_installs_the_extension_where_jupyterlab_looks(tmp_path):
    """`pip install .` (Binder's postBuild, a Hub image): the wheel's data files put the build under
    share/jupyter/labextensions/ of the environment."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), "."],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    prefix = "lnlib-0.1.0.data/data/share/jupyter/labextensions/lnlib-alt-text/"
    built = {prefix + p.relative_to(BUILT).as_posix() for p in BUILT.rglob("*") if p.is_file()}
    assert built and built <= names, sorted(built - names)


def test_install_puts_the_build_where_jupyterlab_looks(tmp_path):
    target = labextension.install(tmp_path)
    assert target == tmp_path / "share" / "jupyter" / "labextensions" / "lnlib-alt-text"
    assert (target / "package.json").read_bytes() == (BUILT / "package.json").read_bytes()
    assert labextension.install(tmp_path) == target  # again: replaces, does not nest or fail


def test_make_lab_links_the_extension_into_the_venv():
    """An editable install copies no data files: the Makefile links the build into the venv (this one too)."""
    link = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / BUILT.name
    if not (Path(sys.prefix) / ".installed-runtime").exists():
        pytest.skip(f"{sys.prefix} was not made by make lab")
    assert link.exists(), f"{link} missing: make lab did not link the extension"
    assert (
        link.resolve() == BUILT.resolve()
        or (link / "package.json").read_bytes() == (BUILT / "package.json").read_bytes()
    )


def caret_accepts(spec: str, version: str) -> bool:
    """npm's ^X.Y.Z for X >= 1: at least X.Y.Z, below (X+1).0.0."""
    assert spec.startswith("^"), spec
    low = tuple(int(p) for p in spec[1:].split("."))
    have = tuple(int(p) for p in version.split("."))
    return low <= have and have[0] == low[0]


def test_the_extension_accepts_every_jupyterlab_4_it_runs_on():
    """Issue 41, item 4: it asked for ^4.6.6 in package.json (JupyterLab's compatibility check) and in the bundle's
    shared-module requirement, so JupyterLab 4.4.9 (repo2docker's base) called it "not compatible", though it uses
    only APIs of JupyterLab 4.0 (RenderedImage, imageRendererFactory, IRenderMimeRegistry). Installed into
    JupyterLab 4.0.13 and 4.4.9, `jupyter labextension list` shows it enabled and OK."""

    def pins(path: Path) -> dict:
        found = re.findall(r"^([A-Za-z0-9_.-]+)==([0-9.]+)", path.read_text(encoding="utf-8"), re.M)
        return {name.lower(): version for name, version in found}

    base, pinned = pins(ROOT / "tools" / "repo2docker-base-py3.11.txt"), pins(ROOT / "binder" / "requirements.txt")
    versions = ["4.0.0", "4.0.13", base["jupyterlab"], pinned["jupyterlab"]]
    built = json.loads((BUILT / "package.json").read_text(encoding="utf-8"))
    for package, spec in built["dependencies"].items():
        assert all(caret_accepts(spec, v) for v in versions), (package, spec, versions)
    required = re.findall(r'requiredVersion:"([^"]+)"', built_javascript())
    assert required and all(caret_accepts(spec, v) for spec in required for v in versions), required
    assert not caret_accepts("^4.6.6", base["jupyterlab"])  # what the check above refuses


def test_the_extension_marks_the_alt_text_with_its_language():
    """Issue 41, item 4: JupyterLab sets <html lang="en"> without a language pack, so a screen reader read the
    Chinese alt texts with an English voice; the extension gives each figure it describes lang="zh-Hans" — or "en"
    for an English one (issue 44: its output metadata says alt_lang, its explorer box has the class ln-lang-en)."""
    code = built_javascript()
    assert '"zh-Hans"' in code or "'zh-Hans'" in code
    assert "alt_lang" in code and "ln-lang-" in code
    source = (SOURCE / "src" / "index.js").read_text(encoding="utf-8")
    assert "img.lang = LANGS[metadata.alt_lang] || DEFAULT_LANG" in source  # output images
    assert "img.setAttribute('lang', explorerLang(img))" in source  # explorer pictures


def test_the_extension_replaces_a_missing_explorer_by_its_notice():
    """Issue 40: a notebook saved, closed and opened again showed "Error displaying widget: model not found" in
    place of every explorer. The extension looks for exactly ipywidgets' text and for lnlib's fallback class in
    the output's HTML form (tests/browser/test_student_copy_browser.py checks it in JupyterLab)."""
    from lnlib.explorers.base import FALLBACK_CLASS

    code = built_javascript()
    assert "Error displaying widget: model not found" in code
    assert FALLBACK_CLASS in code and "text/html" in code
