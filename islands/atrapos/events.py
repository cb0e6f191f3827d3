"""The run-time events of an adaptive PLP run (a worker's core taken away or given back) and
the log the live controller keeps (:mod:`islands.atrapos.live`). Pure: experiment files and
their schedules (:mod:`islands.schedule`) use them without the engine."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["EVENT_KINDS", "Event", "LiveLog", "check_events"]

#: The run-time events the engine supports: a worker's core taken away, or given back.
EVENT_KINDS = ("park", "unpark")


@dataclass(frozen=True)
class Event:
    """At ``at_s`` seconds into the measured window, ``kind`` (``park`` or ``unpark``) on
    ``workers`` (indices of the instance's workers, which are the scheme's cores)."""

    at_s: float
    kind: str
    workers: tuple[int, ...]


def check_events(events: Sequence[Event], n_workers: int) -> None:
    """Raises ``ValueError`` naming the first event the engine cannot apply."""
    for i, e in enumerate(events):
        if e.kind not in EVENT_KINDS:
            raise ValueError(
                f"schedule[{i}].kind: {e.kind!r} is not one of {', '.join(EVENT_KINDS)} "
                "(workload mix and skew changes at run time are not supported yet)"
            )
        if not (math.isfinite(e.at_s) and e.at_s >= 0):
            raise ValueError(f"schedule[{i}].at_s: {e.at_s} is not a non-negative time")
        if not e.workers or any(not 0 <= w < n_workers for w in e.workers):
            raise ValueError(f"schedule[{i}].workers: {list(e.workers)} must name workers 0..{n_workers - 1}")


@dataclass
class LiveLog:
    """What the controller saw and did, times in seconds from the measured window's start:
    ``intervals`` (end, length, throughput), ``repartitions`` (at, units moved, pause in ns,
    planned gain), ``events`` (at, kind, workers)."""

    intervals: list[tuple[float, float, float]] = field(default_factory=list)
    repartitions: list[dict[str, Any]] = field(default_factory=list)
    events: list[tuple[float, str, tuple[int, ...]]] = field(default_factory=list)
