"""SIGTERM and SIGHUP stop a command as Ctrl-C does (issue 48: SIGTERM of a logged per-core run
exited -15 with no message and left 1.5 GiB of log in /dev/shm).

:func:`stop_signals` makes each raise :class:`Terminated`, a ``KeyboardInterrupt``, in the
main thread: every cleanup written for Ctrl-C then runs (a deployment's instances stopped and
its run directory removed, a fresh log directory removed, a sweep's manifest marked
``interrupted``), and the CLI ends with one line and status 128 + the signal. A second
SIGTERM/SIGHUP while that cleanup runs is ignored, so that it is not cut short (SIGKILL still
ends everything; the next start's sweep of stale files, :mod:`islands.execution.stale_files`,
removes what that leaves).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

__all__ = ["STOP_SIGNALS", "Terminated", "signals_deferred", "stop_signals"]

#: The signals handled like SIGINT.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    """The process was asked to stop by ``signum`` (SIGTERM or SIGHUP)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_status(self) -> int:
        """128 + the signal, as a shell reports a process the signal ended."""
        return 128 + self.signum


@contextlib.contextmanager
def stop_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` (the first one; later ones
    are ignored while its cleanup runs); the previous handlers come back after it. Outside the
    main thread (where Python cannot set handlers) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raised = False

    def handler(signum: int, frame: FrameType | None) -> None:
        nonlocal raised
        if raised:
            return
        raised = True
        raise Terminated(signum)

    previous = {}
    for s in STOP_SIGNALS:
        previous[s] = signal.getsignal(s)
        if previous[s] is signal.SIG_IGN:  # nohup, or a parent that chose to ignore it: honoured
            continue
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old if old is not None else signal.SIG_DFL)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Holds SIGINT, SIGTERM and SIGHUP back for this thread while the block runs (they are
    delivered, their handlers run, as it ends): for a block that makes something and names it
    for the cleanup that follows (a run's directory, its log directory), so that a stop signal
    never comes between the two."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Within the block, SIGINT, SIGTERM and SIGHUP are only noted; as it ends, the handler of
    the first one that came runs (``KeyboardInterrupt``, :class:`Terminated`). For a block that
    calls into a library that can swallow the exception a handler raises: pyarrow's conversion
    of a table reaches pandas' ``__getattr__`` through C's ``PyObject_HasAttr``, which discards
    any exception, so a Ctrl-C that came during a sweep's row write was lost and the sweep ran
    to its end (1 in 30 here, with the signal sent 0-0.5 s after the first row). Signals whose
    handler is not Python's (ignored, or the default action) are left alone; outside the main
    thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []

    def note(signum: int, frame: FrameType | None) -> None:
        came.append(signum)

    previous: dict[int, Callable[[int, FrameType | None], Any]] = {}
    for s in (signal.SIGINT, *STOP_SIGNALS):
        handler = signal.getsignal(s)
        if callable(handler):
            previous[s] = handler
            signal.signal(s, note)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if came:
            previous[came[0]](came[0], None)
