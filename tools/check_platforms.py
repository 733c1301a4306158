"""Check that the learner's pinned environment resolves, from wheels only, on every platform the README names.

    python -m tools.check_platforms                  # every target, binder/requirements.txt
    python -m tools.check_platforms --target macos-x86_64 --target windows-x86_64

For each target pip resolves binder/requirements.txt as if it ran there — `pip install --dry-run --ignore-installed
--only-binary=:all: --platform … --python-version … --implementation cp --report` — so a pin without a wheel for that
platform or that Python fails here, not on a learner's machine. pip evaluates environment markers for the machine it
runs on, not for --platform, so this tool evaluates them itself: pip gets the file's lines that apply on the target
(markers removed), and every requirement of every resolved package is checked with the target's markers: it must be
pinned in the file, at a version that satisfies it (a Windows-only dependency that would come in unpinned fails).
Needs the package index (pip's own configuration).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "binder" / "requirements.txt"


def _manylinux(arch: str, glibc_minor: int) -> tuple[str, ...]:
    # pip does not widen a manylinux --platform to older glibc versions by itself (it does for macOS), so list them:
    # Debian 12 has glibc 2.36, and a wheel for any older glibc runs there.
    tags = [f"manylinux_2_{m}_{arch}" for m in range(glibc_minor, 16, -1)]
    return (*tags, f"manylinux2014_{arch}")


@dataclass(frozen=True)
class Target:
    name: str
    platforms: tuple[str, ...]
    python: str  # full CPython version: a pin's Requires-Python is checked against it
    markers: dict[str, str]  # PEP 508 environment of that machine, to pick the pins that apply there

    def environment(self) -> dict[str, str]:
        major_minor = ".".join(self.python.split(".")[:2])
        return {
            "python_version": major_minor,
            "python_full_version": self.python,
            "implementation_name": "cpython",
            "platform_python_implementation": "CPython",
            "extra": "",
            **self.markers,
        }


LINUX = {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix"}
MACOS = {"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix"}
WINDOWS = {"sys_platform": "win32", "platform_system": "Windows", "os_name": "nt", "platform_machine": "AMD64"}
# The oldest Python the course supports is Debian 12's own python3 (3.11.2); Ubuntu 24.04's is 3.12.
TARGETS = {
    t.name: t
    for t in (
        Target("linux-x86_64", _manylinux("x86_64", 36), "3.11.2", LINUX | {"platform_machine": "x86_64"}),
        Target("linux-aarch64", _manylinux("aarch64", 36), "3.11.2", LINUX | {"platform_machine": "aarch64"}),
        Target("linux-x86_64-py3.12", _manylinux("x86_64", 39), "3.12.3", LINUX | {"platform_machine": "x86_64"}),
        Target("macos-x86_64", ("macosx_12_0_x86_64",), "3.11.2", MACOS | {"platform_machine": "x86_64"}),
        Target("macos-arm64", ("macosx_12_0_arm64",), "3.11.2", MACOS | {"platform_machine": "arm64"}),
        Target("windows-x86_64", ("win_amd64",), "3.11.2", WINDOWS),
    )
}


def canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def applying_lines(target: Target, path: Path = REQUIREMENTS) -> list[Requirement]:
    """The `name==version[; marker]` lines of a requirements file whose marker holds on `target`."""
    env = target.environment()
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if not line or line.startswith("-"):
            continue
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(env):
            out.append(req)
    return out


def pins_for(target: Target, path: Path = REQUIREMENTS) -> dict[str, str]:
    """{canonical name: version} of the pins that apply on `target` (ValueError for a name pinned twice there)."""
    out: dict[str, str] = {}
    for req in applying_lines(target, path):
        name = canon(req.name)
        if name in out:
            raise ValueError(f"{path.name}: {req.name} is pinned twice for {target.name}")
        if len(req.specifier) != 1 or next(iter(req.specifier)).operator != "==":
            raise ValueError(f"{path.name}: {req} is not an exact pin")
        out[name] = next(iter(req.specifier)).version
    return out


def pip_command(target: Target, requirements: Path, report: Path) -> list[str]:
    cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet"]
    cmd += ["--only-binary=:all:", "--implementation", "cp", "--python-version", target.python]
    for platform in target.platforms:
        cmd += ["--platform", platform]
    return cmd + ["--report", str(report), "-r", str(requirements)]


def closure_problems(target: Target, resolved: dict[str, list[str]], pinned: dict[str, str]) -> list[str]:
    """Requirements of the resolved packages, with the target's markers, that the pins do not satisfy.

    `resolved` maps each package pip would install to its Requires-Dist; extras asked for by a requirement are
    followed (e.g. jsonschema[format-nongpl])."""
    env = target.environment()
    problems = []
    todo = [(name, "") for name in resolved]
    seen = set()
    while todo:
        name, extra = todo.pop()
        if (name, extra) in seen or name not in resolved:
            continue
        seen.add((name, extra))
        for text in resolved[name]:
            req = Requirement(text)
            if req.marker is not None and not req.marker.evaluate(env | {"extra": extra}):
                continue
            dep = canon(req.name)
            if dep not in pinned:
                problems.append(f"{req.name} ({req}, needed by {name}) is not pinned for {target.name}")
            elif not req.specifier.contains(pinned[dep], prereleases=True):
                problems.append(f"{name} needs {req}, pinned {pinned[dep]}")
            todo += [(dep, "")] + [(dep, canon(e)) for e in req.extras]
    return sorted(set(problems))


def check(target: Target, requirements: Path = REQUIREMENTS) -> list[str]:
    """Problems of `requirements` on `target` (empty: it resolves from wheels, every package pinned)."""
    pinned = pins_for(target, requirements)
    with tempfile.TemporaryDirectory() as tmp:
        applying = Path(tmp) / "requirements.txt"
        applying.write_text(
            "".join(f"{r.name}=={pinned[canon(r.name)]}\n" for r in applying_lines(target, requirements))
        )
        report = Path(tmp) / "report.json"
        proc = subprocess.run(pip_command(target, applying, report), capture_output=True, text=True)
        if proc.returncode != 0:
            errors = [x[:400] for x in proc.stderr.splitlines() if x.startswith("ERROR") and "yanked" not in x]
            return errors or [proc.stderr.strip()[-2000:]]
        data = json.loads(report.read_text(encoding="utf-8"))
    installs = {canon(x["metadata"]["name"]): x["metadata"] for x in data["install"]}
    problems = [
        f"{n}=={m['version']} resolved, pinned {pinned.get(n)}"
        for n, m in installs.items()
        if pinned.get(n) != m["version"]
    ]
    problems += [f"{n} pinned but not resolved" for n in pinned if n not in installs]
    return problems + closure_problems(target, {n: m.get("requires_dist", []) for n, m in installs.items()}, pinned)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", action="append", choices=sorted(TARGETS), help="default: every target")
    parser.add_argument("--requirements", type=Path, default=REQUIREMENTS)
    args = parser.parse_args(argv)
    failed = 0
    for name in args.target or list(TARGETS):
        target = TARGETS[name]
        problems = check(target, args.requirements)
        label = f"{name} (CPython {target.python}, {target.platforms[0]})"
        print(f"{'ok  ' if not problems else 'FAIL'} {label}", flush=True)
        for problem in problems:
            print(f"     {problem}")
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
