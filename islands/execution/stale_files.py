"""The sweep of stale islands files a command makes at its start (issue 48): every ``islands-*``
directory or file in /dev/shm and the temporary directory whose owner process is gone, logs
included, removed, and said in one line.

Two kinds of names:

- ``islands-<kind>-<pid>-<random>`` (a deployment's run directory, ``islands-run-…``): stale
  when that pid is gone, or names a process started at another time than the one the
  directory recorded (``.launcher``, a reused pid);
- ``islands-<kind>-<random>`` of the kinds made for one run (a run's fresh log directory
  ``islands-log-…``, a profile's ``islands-perf-…``, a calibration's ``islands-calibrate-…``;
  not a benchmark's output, which may be kept on purpose): no pid in the name, so stale
  when no process has anything in it open, as its working directory or mapped, and nothing in
  it changed for :data:`GRACE_S` (a directory just made, before its first file is opened, is
  never taken).

Only this user's real directories and regular files are touched: a link, another user's entry
or anything else under the same name pattern is left alone.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from islands.analysis.directory_lock import process_alive

__all__ = ["GRACE_S", "describe_removed", "islands_roots", "remove_stale_files"]

#: Seconds a pid-less islands entry must have been left unchanged before it can be stale.
GRACE_S = 60.0
#: The pid of ``islands-<kind>-<pid>-<random>``.
_WITH_PID = re.compile(r"islands-[a-z]+(?:-[a-z]+)*-([0-9]{1,10})-[A-Za-z0-9_]+", re.ASCII)
#: ``islands-<kind>-<random>`` (tempfile's random names have no '-') of the kinds the package
#: makes for one run and removes after it; others (a benchmark's output in the temporary
#: directory, ``islands-aa-…``) may be kept on purpose and are left alone.
_WITHOUT_PID = re.compile(
    r"islands-(log|perf|py-spy|cachegrind|calibrate|calibrate-log|calibrate-write|fifo)-[A-Za-z0-9_]+", re.ASCII
)


def islands_roots() -> list[Path]:
    """Where islands makes its files: /dev/shm (run directories, logs) and the temporary
    directory (profiles, calibrations; everything where there is no /dev/shm)."""
    roots = [Path("/dev/shm")] if os.path.isdir("/dev/shm") else []
    tmp = Path(tempfile.gettempdir())
    if tmp not in roots:
        roots.append(tmp)
    return roots


def start_ticks(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks after boot (/proc/PID/stat's 22nd field: never
    changed by a wall-clock step); None when /proc cannot say."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().decode(errors="replace").rpartition(")")[2].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def recorded_start(directory: Path) -> int | None:
    """The start time a run directory's launcher recorded in its ``.launcher`` file (None: none, or unreadable)."""
    try:
        fd = os.open(directory / ".launcher", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        text = os.read(fd, 32).decode(errors="replace").strip()
    except OSError:
        return None
    finally:
        os.close(fd)
    return int(text) if text.isascii() and text.isdigit() else None


def _paths_in_use(roots: Iterable[Path]) -> set[str]:
    """Every path under ``roots`` some process has open, as its working directory or mapped
    (what /proc shows of them: this user's processes, all of them as root)."""
    prefixes = tuple(f"{r}/" for r in roots)
    used: set[str] = set()
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return used
    for pid in pids:
        base = f"/proc/{pid}"
        with contextlib.suppress(OSError):
            target = os.readlink(f"{base}/cwd")
            if target.startswith(prefixes):
                used.add(target)
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"{base}/fd"):
                with contextlib.suppress(OSError):
                    target = os.readlink(f"{base}/fd/{fd}")
                    if target.startswith(prefixes):
                        used.add(target)
        with contextlib.suppress(OSError, UnicodeDecodeError), open(f"{base}/maps") as maps:
            for line in maps:
                fields = line.rstrip("\n").split(maxsplit=5)
                if len(fields) == 6 and fields[5].startswith(prefixes):
                    used.add(fields[5].removesuffix(" (deleted)"))
    return used


def _newest_change(path: Path, st: os.stat_result) -> float:
    newest = st.st_mtime
    if stat.S_ISDIR(st.st_mode):
        for dirpath, dirs, files in os.walk(path):
            for name in (*dirs, *files):
                with contextlib.suppress(OSError):
                    newest = max(newest, os.lstat(os.path.join(dirpath, name)).st_mtime)
    return newest


def _size(path: Path, st: os.stat_result) -> int:
    if not stat.S_ISDIR(st.st_mode):
        return st.st_blocks * 512
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
    return total


def _stale(path: Path, st: os.stat_result, in_use: set[str] | None, now: float) -> tuple[bool, set[str] | None]:
    m = _WITH_PID.fullmatch(path.name)
    if m is not None:
        pid = int(m.group(1))
        if pid == os.getpid():
            return False, in_use
        if not process_alive(pid):
            return True, in_use
        made_by = recorded_start(path) if stat.S_ISDIR(st.st_mode) else None
        return made_by is not None and start_ticks(pid) not in (None, made_by), in_use
    if now - _newest_change(path, st) < GRACE_S:
        return False, in_use
    if in_use is None:
        in_use = _paths_in_use([path.parent])
    inside = f"{path}/"
    return not any(u == str(path) or u.startswith(inside) for u in in_use), in_use


def remove_stale_files(roots: Iterable[Path] | None = None) -> list[tuple[Path, int]]:
    """Removes the stale islands entries of ``roots`` (default :func:`islands_roots`); returns
    each one removed with the bytes it held."""
    removed: list[tuple[Path, int]] = []
    now = time.time()
    for root in islands_roots() if roots is None else roots:
        try:
            names = sorted(n for n in os.listdir(root) if n.startswith("islands-"))
        except OSError:
            continue
        in_use: set[str] | None = None
        for name in names:
            path = Path(root) / name
            if _WITH_PID.fullmatch(name) is None and _WITHOUT_PID.fullmatch(name) is None:
                continue
            try:
                st = os.lstat(path)
            except OSError:
                continue  # gone meanwhile
            if st.st_uid != os.geteuid() or not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
                continue
            stale, in_use = _stale(path, st, in_use, now)
            if not stale:
                continue
            size = _size(path, st)
            if stat.S_ISDIR(st.st_mode):
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    path.unlink()
            if not os.path.lexists(path):
                removed.append((path, size))
    return removed


def _bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def describe_removed(removed: list[tuple[Path, int]], shown: int = 3) -> str:
    """One line saying what :func:`remove_stale_files` removed (``""`` for nothing)."""
    if not removed:
        return ""
    names = ", ".join(f"{p} ({_bytes(n)})" for p, n in removed[:shown])
    more = f" and {len(removed) - shown} more" if len(removed) > shown else ""
    total = sum(n for _, n in removed)
    return (
        f"removed {len(removed)} stale islands file{'s' if len(removed) != 1 else ''} of ended processes "
        f"({_bytes(total)}): {names}{more}"
    )
