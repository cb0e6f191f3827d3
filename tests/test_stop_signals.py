"""SIGTERM and SIGHUP stop a run as Ctrl-C does (issue 48: SIGTERM of a logged per-core run
exited -15 with no message and left 1.5 GiB of log in /dev/shm), and a command's start removes
the islands files of processes that ended without removing theirs (SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from islands.execution import stale_files
from islands.execution.stale_files import describe_removed, remove_stale_files
from islands.execution.stop_signals import Terminated, signals_deferred, stop_signals

ROOT = Path(__file__).resolve().parent.parent

#: `python -m islands run ...` with its run directories and fresh logs under argv[1] instead of
#: /dev/shm, so that other users of /dev/shm neither disturb nor are disturbed by the check.
_RUN_IN = """
import sys
root = sys.argv[1]
import islands.execution.launcher as launcher
import islands.config.settings as settings
launcher.RUN_ROOT = root
settings.default_log_root = lambda: root
import islands.execution.runner as runner
if hasattr(runner, "default_log_root"):
    runner.default_log_root = settings.default_log_root
from islands.__main__ import main
sys.exit(main(sys.argv[2:]))
"""
RUN = ["run", "--cores", "0,1", "--deployment", "per-core", "--log", "group_commit", "--update"]


def _start(root: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _RUN_IN, str(root), *RUN, *extra],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(root)},
        # islands honours an ignored SIGHUP (nohup): the child starts with the default, whatever
        # the test runner inherited (a suite started under nohup sent SIGHUP to a run that ignored it)
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL),
    )


def _entries(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith("islands-"))


def _when(proc: subprocess.Popen[str], seen: Callable[[], bool], limit_s: float = 60.0) -> bool:
    """Polls until ``seen()`` (True) or the process ended (False)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if seen():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.005)
    return False


def _nothing_left(root: Path) -> list[str]:
    deadline = time.monotonic() + 5  # the janitor may still be removing the run directory
    while _entries(root) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _entries(root)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="a per-core run of two instances needs two cpus")
@pytest.mark.parametrize("moment", ["log made", "instances starting", "mid-run"])
def test_sigterm_of_a_logged_per_core_run_leaves_nothing(short_tmp_path: Path, moment: str) -> None:
    root = short_tmp_path
    proc = _start(root, "--duration", "3", "--warmup", "0")
    try:

        def has(prefix: str) -> bool:
            return any(n.startswith(prefix) for n in _entries(root))

        if moment == "log made":
            reached = _when(proc, lambda: has("islands-log-"))
        elif moment == "instances starting":
            reached = _when(proc, lambda: has("islands-run-"))
        else:
            reached = _when(proc, lambda: has("islands-run-") and has("islands-log-"))
            time.sleep(1.0)
        assert reached, f"the run ended before {moment}: {proc.stderr.read() if proc.stderr else ''}"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert err.strip().splitlines()[-1] == "islands: terminated by SIGTERM"
    assert _nothing_left(root) == []


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="a per-core run of two instances needs two cpus")
def test_sighup_stops_it_too_and_sigkill_leaves_what_the_next_start_removes(
    short_tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = short_tmp_path
    proc = _start(root, "--duration", "3", "--warmup", "0")
    assert _when(proc, lambda: len(_entries(root)) == 2)
    proc.send_signal(signal.SIGHUP)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGHUP and err.strip().endswith("islands: terminated by SIGHUP")
    assert _nothing_left(root) == []

    proc = _start(root, "--duration", "3", "--warmup", "0")
    assert _when(proc, lambda: len(_entries(root)) == 2)
    time.sleep(0.3)
    proc.kill()  # nothing runs in a process SIGKILL ends: its log directory stays
    proc.communicate()
    logs = [n for n in _entries(root) if n.startswith("islands-log-")]
    assert len(logs) == 1, _entries(root)
    # The run directory and the log directory are both named after their process, gone now (the
    # janitor may have removed the run directory already): the next start removes them at once.
    removed = remove_stale_files([root])
    names = [p.name for p, _ in removed]  # the run directory too, where its janitor was not yet done
    assert set(logs) <= set(names) and all(n.startswith("islands-run-") for n in set(names) - set(logs))
    assert _entries(root) == []
    line = describe_removed(removed)
    assert line.startswith(f"removed {len(names)} stale islands file") and logs[0] in line


def test_what_the_sweep_of_stale_files_leaves_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stale_files, "GRACE_S", 0.0)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    (tmp_path / f"islands-run-{dead_pid}-abc").mkdir()  # its launcher ended: stale
    (tmp_path / f"islands-bench-{dead_pid}-3").write_bytes(b"x" * 100)  # a shm object of it: stale
    (tmp_path / f"islands-run-{os.getpid()}-def").mkdir()  # this process's: kept
    (tmp_path / "islands-aa-xyz").mkdir()  # a benchmark's output: not a kind made for one run
    (tmp_path / "islands-log-elsewhere").symlink_to(tmp_path)  # a link: never followed nor removed
    held = tmp_path / "islands-log-held"
    held.mkdir()
    with open(held / "log-0", "w"):  # open in a live process: in use
        removed = remove_stale_files([tmp_path])
    assert sorted(p.name for p, _ in removed) == [f"islands-bench-{dead_pid}-3", f"islands-run-{dead_pid}-abc"]
    assert _entries(tmp_path) == sorted(
        ["islands-aa-xyz", "islands-log-elsewhere", "islands-log-held", f"islands-run-{os.getpid()}-def"]
    )
    assert remove_stale_files([tmp_path]) == [(held, 0)]  # closed: stale now


def test_stop_signals_raise_once_and_restore_the_handlers() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Terminated) as stop, stop_signals():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler runs at once, in this thread
        finally:
            os.kill(os.getpid(), signal.SIGTERM)  # a second one during cleanup: ignored
    assert stop.value.signum == signal.SIGTERM and stop.value.exit_status == 143
    assert isinstance(stop.value, KeyboardInterrupt)  # every Ctrl-C cleanup runs for it
    assert signal.getsignal(signal.SIGTERM) == before


@pytest.mark.usefixtures("sigint_handled")
def test_signals_deferred_run_the_first_handler_once_the_block_ends() -> None:
    ran: list[str] = []
    with pytest.raises(Terminated) as stop, stop_signals(), signals_deferred():
        os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # both are noted here; neither raises
        ran.append("the block ran to its end")
    assert ran == ["the block ran to its end"] and stop.value.signum == signal.SIGTERM
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with signals_deferred():  # an ignored signal stays ignored
            os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(0.05)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)
