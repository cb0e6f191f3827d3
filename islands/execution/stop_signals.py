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
from collections.abc import Iterator
from types import FrameType

__all__ = ["STOP_SIGNALS", "Terminated", "stop_signals"]

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
