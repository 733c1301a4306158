"""The learner's pinned environment on every platform the README names (issue 27, item 1).

The full check resolves binder/requirements.txt from wheels for each platform with pip (`python -m
tools.check_platforms`, a CI step: it needs the package index). These tests hold offline: the markers pick one pin
per package on every target, every installed pin accepts Debian 12's own Python 3.11.2, and the marker logic of the
checker rejects what pip itself cannot see from a Linux machine (a Windows-only dependency left unpinned).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, distribution

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tools import check_platforms as cp

DEBIAN_12_PYTHON = "3.11.2"
COURSE = {"numpy", "pandas", "matplotlib", "ipywidgets", "scipy", "jupyterlab", "notebook", "ipykernel"}


@pytest.mark.parametrize("name", sorted(cp.TARGETS))
def test_every_target_gets_one_pin_per_package_and_the_whole_course(name):
    pinned = cp.pins_for(cp.TARGETS[name])  # ValueError if a marker pair overlaps there
    assert COURSE <= set(pinned), sorted(COURSE - set(pinned))
    intel_mac = name == "macos-x86_64"
    assert ("numba" in pinned) is not intel_mac, "numba: no x86-64 macOS wheel fits numpy 2.4; optional elsewhere"
    assert ("pywinpty" in pinned) is name.startswith("windows")
    assert ("colorama" in pinned) is name.startswith("windows")
    assert ("appnope" in pinned) is name.startswith("macos")


def test_the_targets_are_the_readmes_platforms_at_debian_12s_python():
    platforms = {
        t.platforms[0].split("_", 3)[-1] if "linux" in t.platforms[0] else t.platforms[0] for t in cp.TARGETS.values()
    }
    assert {"x86_64", "aarch64", "macosx_12_0_x86_64", "macosx_12_0_arm64", "win_amd64"} <= platforms
    oldest = min(Version(t.python) for t in cp.TARGETS.values())
    assert oldest == Version(DEBIAN_12_PYTHON)
    linux = cp.TARGETS["linux-x86_64"].platforms
    # pip does not widen a manylinux platform to older glibc: a manylinux2014 or 2_28 wheel must be in the list
    assert {"manylinux_2_36_x86_64", "manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64"} <= set(
        linux
    )


def test_every_installed_pin_accepts_debian_12s_own_python():
    """soupsieve 4.1.3 (Requires-Python >= 3.11.5) stopped `make lab` on Debian 12's python3 3.11.2."""
    target = cp.TARGETS["linux-x86_64"]
    refused, checked = [], 0
    for name, version in cp.pins_for(target).items():
        try:
            meta = distribution(name).metadata
        except PackageNotFoundError:
            continue
        if meta["Version"] != version:
            pytest.skip(f"this environment is not the pinned one ({name} {meta['Version']}, pinned {version})")
        checked += 1
        needs = meta.get("Requires-Python")
        if needs and not SpecifierSet(needs).contains(DEBIAN_12_PYTHON):
            refused.append(f"{name}=={version} needs Python {needs}")
    assert checked > 80, checked
    assert refused == []


def test_the_checker_sees_dependencies_behind_another_platforms_marker():
    resolved = {
        "ipython": ['colorama>=0.4.4; sys_platform == "win32"', 'pexpect>4.3; sys_platform != "win32"'],
        "pexpect": [],
    }
    pinned = {"ipython": "9.18.1", "pexpect": "4.9.0"}
    assert cp.closure_problems(cp.TARGETS["linux-x86_64"], resolved, pinned) == []
    problems = cp.closure_problems(cp.TARGETS["windows-x86_64"], resolved, pinned)
    assert len(problems) == 1 and problems[0].startswith("colorama"), problems
    # a pin that does not satisfy a requirement, and an extra's requirement
    resolved = {"jsonschema": ['fqdn; extra == "format"'], "x": ["jsonschema[format]>=4"], "fqdn": []}
    assert cp.closure_problems(cp.TARGETS["linux-x86_64"], resolved, {"jsonschema": "3.0", "x": "1", "fqdn": "1"}) == [
        "x needs jsonschema[format]>=4, pinned 3.0"
    ]
    assert "fqdn" in cp.closure_problems(cp.TARGETS["linux-x86_64"], resolved, {"jsonschema": "4.1", "x": "1"})[0]


def test_overlapping_markers_are_refused(tmp_path):
    path = tmp_path / "requirements.txt"
    path.write_text('numba==0.68.1\nnumba==0.62.1; sys_platform == "darwin"\n')
    assert cp.pins_for(cp.TARGETS["linux-x86_64"], path) == {"numba": "0.68.1"}
    with pytest.raises(ValueError, match="numba is pinned twice for macos-arm64"):
        cp.pins_for(cp.TARGETS["macos-arm64"], path)
    path.write_text("numba>=0.60\n")
    with pytest.raises(ValueError, match="not an exact pin"):
        cp.pins_for(cp.TARGETS["linux-x86_64"], path)


# ------------------------------------------------------------------ issue 41, item 1: the simulated Binder image


def test_simulated_binder_copies_the_repository_as_repo2docker_does(tmp_path):
    """postBuild runs in a copy (the learner's home), not in the repository itself: its pip build and warm-up
    must be checked where they happen. The copy holds what git tracks, never build/ or a venv."""
    from tools import simulate_binder as sb
    from tools.course import ROOT

    sb.copy_repository(tmp_path)
    assert (tmp_path / "binder" / "postBuild").read_bytes() == (ROOT / "binder" / "postBuild").read_bytes()
    assert (tmp_path / "lnlib" / "_stats.py").is_file() and (tmp_path / "notebooks" / "00-index.ipynb").is_file()
    assert not (tmp_path / "build").exists() and not (tmp_path / ".venv").exists()
    assert not list(tmp_path.rglob("__pycache__"))


def test_simulated_binder_flags_a_kernel_that_compiles_or_imports_the_repositorys_lnlib(tmp_path):
    """The kernel check of tools.simulate_binder (run from notebooks/): before issue 41 the image's cache sat in the
    repository's lnlib/__pycache__, so a kernel found none for the installed copy (misses, no hits)."""
    from tools import simulate_binder as sb

    venv, home = tmp_path / "venv", tmp_path / "home"
    site = venv / "lib" / "python3.11" / "site-packages" / "lnlib"
    good = {"lnlib": str(site / "__init__.py"), "ready": True, "hits": 5, "misses": 0, "cache": [str(site)]}
    assert sb.kernel_findings(good, venv, home) == []
    compiled = {**good, "hits": 0, "misses": 5}
    assert "compiled instead of loading" in sb.kernel_findings(compiled, venv, home)[0]
    repository = {**good, "lnlib": str(home / "lnlib" / "__init__.py"), "cache": [str(home / "lnlib")]}
    assert len(sb.kernel_findings(repository, venv, home)) == 2
    assert sb.kernel_findings({**good, "ready": False, "hits": 0}, venv, home)
