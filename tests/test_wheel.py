"""A wheel built from the checkout (slow: it compiles the engine): it builds in its own
directory without the C++ unit tests, leaves the developer build alone, and once installed in a
fresh virtual environment outside the checkout says its version and the git revision it was
built from, and draws 000 Fig 11's quick version from the experiment files it ships (issue 49)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.slow
def test_a_wheel_builds_apart_and_reports_its_revision_when_installed_elsewhere(tmp_path):
    developer_cache = REPO / "build" / "cmake" / "CMakeCache.txt"
    before = developer_cache.stat().st_mtime_ns if developer_cache.exists() else None
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps", "-w", str(dist), str(REPO)],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = dist.glob("islands-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "islands/_revision.py" in names and any(n.startswith("islands/_core.") for n in names)
    # Its own build directory, without the C++ tests; the developer build untouched.
    (build_dir,) = (REPO / "build" / "wheel").iterdir()
    assert "ISLANDS_BUILD_TESTS:BOOL=OFF" in (build_dir / "CMakeCache.txt").read_text()
    assert not list(build_dir.glob("test_*")), "the wheel built the C++ unit tests"
    after = developer_cache.stat().st_mtime_ns if developer_cache.exists() else None
    assert after == before, "building the wheel reconfigured build/cmake"

    # A fresh environment with the wheel alone; its dependencies are borrowed from this one's
    # site-packages (a path line, which does not run this environment's editable hook).
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, timeout=600)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = subprocess.run(
        [str(python), "-c", "import islands, islands._core; print(islands.__file__); print(islands._core.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert where.returncode == 0, where.stderr
    assert all(line.startswith(site) for line in where.stdout.split()), where.stdout
    version = subprocess.run(
        [str(venv / "bin" / "islands"), "--version"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120
    )
    assert version.returncode == 0, version.stderr
    revision = _git("rev-parse", "HEAD")
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert version.stdout.startswith(f"islands {declared} (git {revision}"), version.stdout

    # Issue 49: outside the repository, the packaged experiment and catalog draw the figure.
    assert "islands/_data/experiments/000-fig11-multisite.toml" in names and "islands/_data/figures.md" in names
    work = tmp_path / "work"
    work.mkdir()
    reproduced = subprocess.run(
        [str(python), "-m", "islands", "reproduce", "000-fig11", "--quick", "--no-progress"],
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
        timeout=1800,
    )
    assert reproduced.returncode == 0, reproduced.stderr[-3000:]
    assert "_data/experiments/000-fig11-multisite.toml" in reproduced.stdout
    assert (work / "results" / "000-fig11-multisite-quick" / "000-fig11.png").stat().st_size > 0
