"""One writer per results directory: a sweep holds ``<directory>/.sweep.lock`` while it writes
(issue 48: two sweeps on one ``--out`` both ran every point and stored each twice, measured
while they competed).

The lock is the kernel's ``flock`` on that file, so it goes with its holder: a sweep killed
by SIGKILL or a power cut leaves at worst the file, which the next sweep takes over (saying
whose it was), never a directory locked for good. The file names its holder (pid, host and
start time) for the refusal: ``results directory D: being written by the sweep of pid N
(started T); wait for it (--wait) or use another --out``. The holder removes the file when it
is done; a taker checks that the file it locked is still the one at the path, so that a
removal between its open and its lock never leaves two holders.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import fcntl
import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path

__all__ = ["LOCK_FILE", "DirectoryLock", "DirectoryLocked"]

LOCK_FILE = ".sweep.lock"


class DirectoryLocked(ValueError):
    """The directory is held by another writer; ``pid`` is its holder (``None`` when the lock
    file does not say)."""

    def __init__(self, message: str, pid: int | None) -> None:
        super().__init__(message)
        self.pid = pid


def _holder(fd: int) -> tuple[int | None, str]:
    """The pid and the rest of the line a lock file's holder wrote (``None, ""`` when empty)."""
    try:
        text = os.pread(fd, 256, 0).decode("ascii", "replace").strip()
    except OSError:
        return None, ""
    first, _, rest = text.partition(" ")
    return (int(first) if first.isascii() and first.isdigit() else None), rest


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (one another user owns counts: it cannot be signalled)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class DirectoryLock:
    """The write lock of ``directory`` (which must exist): :meth:`acquire`, :meth:`release`, or
    ``with``. ``what`` names the directory in messages."""

    def __init__(self, directory: str | Path, what: str = "results directory") -> None:
        self.directory = Path(directory)
        self.path = self.directory / LOCK_FILE
        self.what = what
        self.fd: int | None = None
        #: the pid whose stale lock file this one took over (it had ended), else ``None``
        self.took_over: int | None = None

    def acquire(self, wait: bool = False, on_wait: Callable[[str], None] | None = None) -> DirectoryLock:
        """Takes the lock; held by another process, raises :class:`DirectoryLocked` (one line
        naming the holder's pid) or, with ``wait``, calls ``on_wait`` with a line saying whom it
        waits for and blocks until the holder is done."""
        if self.fd is not None:
            return self
        told = False
        while True:
            fd = self._open()
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    pid, since = _holder(fd)
                    holder = f"the sweep of pid {pid}" if pid is not None else "another sweep"
                    if since:
                        holder += f" (started {since})"
                    if not wait:
                        raise DirectoryLocked(
                            f"{self.what} {self.directory}: being written by {holder}; "
                            "wait for it (--wait) or use another --out",
                            pid,
                        ) from None
                    if on_wait is not None and not told:
                        on_wait(f"{self.what} {self.directory}: waiting for {holder} to finish")
                        told = True
                    fcntl.flock(fd, fcntl.LOCK_EX)
                if not self._still_at_path(fd):
                    os.close(fd)  # removed by its holder meanwhile: lock the new one
                    continue
                pid, _ = _holder(fd)
                if pid is not None and pid != os.getpid() and not process_alive(pid):
                    self.took_over = pid
                stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
                line = f"{os.getpid()} {stamp} on {socket.gethostname()}\n".encode()
                os.ftruncate(fd, 0)
                os.pwrite(fd, line, 0)
            except BaseException:
                os.close(fd)
                raise
            self.fd = fd
            return self

    def _open(self) -> int:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise ValueError(f"{self.what} {self.directory}: {LOCK_FILE} is a symbolic link (refused)") from None
            raise ValueError(f"{self.what} {self.directory}: cannot lock it ({e.strerror})") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise ValueError(f"{self.what} {self.directory}: {LOCK_FILE} is not a regular file (refused)")
        return fd

    def _still_at_path(self, fd: int) -> bool:
        try:
            at_path = os.lstat(self.path)
        except FileNotFoundError:
            return False
        mine = os.fstat(fd)
        return (at_path.st_dev, at_path.st_ino) == (mine.st_dev, mine.st_ino)

    def release(self) -> None:
        """Removes the lock file and lets the lock go (nothing when not held)."""
        if self.fd is None:
            return
        fd, self.fd = self.fd, None
        try:
            if self._still_at_path(fd):
                with contextlib.suppress(OSError):
                    os.unlink(self.path)  # while still held: a waiter then retries on a new file
        finally:
            os.close(fd)

    def __enter__(self) -> DirectoryLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
