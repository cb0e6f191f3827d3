"""Shared pytest fixtures."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def cli(tmp_path):
    """Runs ``python -m islands ARGS``; returns the CompletedProcess."""
    import subprocess

    def run(*args: str, timeout: float = 120):
        return subprocess.run(
            [sys.executable, "-m", "islands", *args], capture_output=True, text=True, timeout=timeout, cwd=tmp_path
        )

    return run


@pytest.fixture
def cli_here(tmp_path, monkeypatch, capsys):
    """Runs ``islands ARGS`` in this process (islands.__main__.main), from tmp_path as ``cli`` does;
    returns a CompletedProcess with its exit status and what it printed. Without the ~0.6 s that
    each ``python -m islands`` takes to start: for commands that stop at bad input or do little
    work. ``cli`` stays the one for what only a process shows (the console script, signals, a
    reader going away) and for the end-to-end runs, whose status passes through ``sys.exit``."""
    import os
    import subprocess

    from islands.__main__ import main

    monkeypatch.chdir(tmp_path)
    # A child's output is a pipe: argparse and rich wrap at 80 columns unless COLUMNS says otherwise.
    monkeypatch.setenv("COLUMNS", os.environ.get("COLUMNS", "80"))

    def run(*args: str):
        capsys.readouterr()
        try:
            status = main(list(args))
        except SystemExit as stop:  # argparse: --help, --version and usage errors
            status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        printed = capsys.readouterr()
        return subprocess.CompletedProcess(["islands", *args], status, printed.out, printed.err)

    return run


@pytest.fixture
def sigint_handled():
    """SIGINT raises KeyboardInterrupt in this process during the test, and the processes it starts
    begin with SIGINT's default action, whatever this process inherited: a job that a shell
    without job control starts in the background (``cmd &`` in a script, as a CI may run its
    tests) ignores SIGINT, and so would every sweep such a test starts."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if before is not None:
        signal.signal(signal.SIGINT, before)


@pytest.fixture
def short_tmp_path():
    """An empty private directory (mode 0700) of this test, removed after it, at a short path in
    the temporary directory: for unix sockets made under it, whose paths have 107 bytes at most
    (tmp_path is deeper, by a worker's directory under pytest-xdist)."""
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="isl-test-"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def private_run_root(short_tmp_path, monkeypatch):
    """Deployment run directories of this test only (islands.execution.launcher.RUN_ROOT), so that other
    users of /dev/shm do not count; returns the directory (short_tmp_path: it holds unix sockets)."""
    import islands.execution.launcher

    monkeypatch.setattr(islands.execution.launcher, "RUN_ROOT", str(short_tmp_path))
    return short_tmp_path


@pytest.fixture
def read_only_dir(tmp_path):
    """An empty directory nobody may write into, root included.

    For an ordinary user, mode 0500 is enough; root ignores modes, so as root the directory
    is a read-only tmpfs mount instead (skipped where mounting is not permitted)."""
    import os
    import subprocess

    locked = tmp_path / "locked"
    locked.mkdir()
    if os.geteuid() != 0:
        locked.chmod(0o500)
        yield locked
        locked.chmod(0o700)
        return
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(locked)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs: {mounted.stderr.strip()}")
    try:
        yield locked
    finally:
        subprocess.run(["umount", str(locked)], check=True)
