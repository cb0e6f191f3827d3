"""One sweep writes a results directory at a time (issue 48: two sweeps on one --out both ran
every point and stored each twice): a second is refused in one line naming the first's pid, or
waits with --wait and then finds the points done; a lock left by a process that ended is taken
over."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from islands.analysis.directory_lock import LOCK_FILE, DirectoryLock, DirectoryLocked
from islands.experiments.sweep import Point, Sweep, load_spec
from islands.machine.topology import read_topology
from tiny_spec import TINY

ROOT = Path(__file__).resolve().parent.parent


def _sweep_cli(spec: Path, out: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "islands", "sweep", str(spec), "--out", str(out), "--no-progress", *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


class SecondSweepDuringFirst:
    """A runner for the first sweep that, at its first point, starts the same sweep on the same
    directory through the CLI: refused at once, or (``wait``) left waiting until the first ends."""

    def __init__(self, spec: Path, out: Path, wait: bool) -> None:
        self.spec, self.out, self.wait = spec, out, wait
        self.calls: list[Point] = []
        self.second: subprocess.Popen[str] | None = None
        self.refusal: tuple[int, str, str] | None = None

    def __call__(self, point: Point) -> dict[str, Any]:
        self.calls.append(point)
        if len(self.calls) == 1:
            if self.wait:
                self.second = _sweep_cli(self.spec, self.out, "--wait")
                assert self.second.stderr is not None
                line = self.second.stderr.readline()  # said before it blocks
                assert f"waiting for the sweep of pid {os.getpid()}" in line, line
            else:
                done = subprocess.run(
                    [sys.executable, "-m", "islands", "sweep", str(self.spec), "--out", str(self.out)],
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
                self.refusal = (done.returncode, done.stdout, done.stderr)
        return {"throughput_tps": 1000.0, "commits": 10}


def test_a_second_sweep_on_a_locked_directory_is_refused_in_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "exp.toml"
    spec.write_text(TINY)
    out = tmp_path / "out"
    runner = SecondSweepDuringFirst(spec, out, wait=False)
    outcome = Sweep(load_spec(spec), read_topology(), out).run(runner, progress=False)
    assert runner.refusal is not None
    rc, stdout, stderr = runner.refusal
    assert rc == 2 and stdout == ""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "--wait" in lines[0]
    assert lines[0].startswith(
        f"islands: error: results directory {out}: being written by the sweep of pid {os.getpid()} (started "
    )
    rows = Sweep(load_spec(spec), read_topology(), out).store.rows()
    assert outcome.ran == len(rows) == 8 and rows["point_id"].is_unique  # nothing stored twice
    assert not (out / LOCK_FILE).exists()  # released with the sweep


def test_a_waiting_sweep_runs_after_the_first_and_finds_its_points_done(tmp_path: Path) -> None:
    spec = tmp_path / "exp.toml"
    spec.write_text(TINY)
    out = tmp_path / "out"
    runner = SecondSweepDuringFirst(spec, out, wait=True)
    Sweep(load_spec(spec), read_topology(), out).run(runner, progress=False)
    assert runner.second is not None
    stdout, stderr = runner.second.communicate(timeout=120)
    assert runner.second.returncode == 0, stderr
    assert "0 runs made, 8 already done" in stdout
    assert len(Sweep(load_spec(spec), read_topology(), out).store.rows()) == 8


def _hold(directory: Path) -> subprocess.Popen[str]:
    """A process holding ``directory``'s lock until its stdin closes."""
    code = (
        "import sys; from islands.analysis.directory_lock import DirectoryLock; "
        f"lock = DirectoryLock({str(directory)!r}).acquire(); print('held', flush=True); sys.stdin.read(); "
        "lock.release()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def _end(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait()
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None and not pipe.closed:
            pipe.close()


def test_the_lock_names_its_holder_waits_for_it_and_goes_with_it(tmp_path: Path) -> None:
    holder = _hold(tmp_path)
    try:
        with pytest.raises(DirectoryLocked, match=f"being written by the sweep of pid {holder.pid} ") as e:
            DirectoryLock(tmp_path).acquire()
        assert e.value.pid == holder.pid
        said: list[str] = []
        assert holder.stdin is not None
        holder.stdin.close()  # the holder releases; the waiter then takes it
        lock = DirectoryLock(tmp_path).acquire(wait=True, on_wait=said.append)
        assert said == [] or f"waiting for the sweep of pid {holder.pid}" in said[0]
        assert (tmp_path / LOCK_FILE).read_text().split()[0] == str(os.getpid())
        lock.release()
        assert not (tmp_path / LOCK_FILE).exists()
    finally:
        _end(holder)


def test_a_killed_holders_lock_is_taken_over(tmp_path: Path) -> None:
    holder = _hold(tmp_path)
    _end(holder)  # SIGKILL: the file stays, the kernel's lock goes with the process
    assert (tmp_path / LOCK_FILE).exists()
    with DirectoryLock(tmp_path) as lock:
        assert lock.took_over == holder.pid


def test_a_planted_lock_link_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").write_text("")
    (tmp_path / LOCK_FILE).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match="is a symbolic link"):
        DirectoryLock(tmp_path).acquire()


def test_a_refused_sweep_leaves_no_directory_it_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lock needs the directory, so the sweep makes it first; a refusal of the directory
    after that (another spec's, another machine's) removes what it made."""
    path = tmp_path / "exp.toml"
    path.write_text(TINY)
    out = tmp_path / "new" / "out"

    def refuse(self: Sweep, fresh: bool, force: bool) -> dict[str, Any]:
        raise ValueError("refused")

    monkeypatch.setattr(Sweep, "_prepare", refuse)
    with pytest.raises(ValueError, match="refused"):
        Sweep(load_spec(path), read_topology(), out).run(lambda point: {}, progress=False)
    assert not (tmp_path / "new").exists()


def test_an_experiment_file_with_a_byte_order_mark_loads_as_without(tmp_path: Path) -> None:
    """Issue 48: a UTF-8 BOM gave "Invalid statement (line 1, col 1)"."""
    plain, marked = tmp_path / "plain.toml", tmp_path / "marked.toml"
    plain.write_text(TINY)
    marked.write_bytes(b"\xef\xbb\xbf" + TINY.encode())
    assert load_spec(marked).spec_hash() == load_spec(plain).spec_hash()
