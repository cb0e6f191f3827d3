"""Run-time events and ATraPos's adaptivity in experiment files (issue 17 item 4).

An experiment file may list events that happen while each run measures, and may grid whether
the ATraPos controller adapts to them, so that one file draws the adaptive and the static run
side by side (002 Fig 12)::

    [run]
    controller_interval_s = 1.0   # the controller's first (and shortest) interval; it doubles
                                  # up to 8x while throughput holds (paper 002: 1 s to 8 s)

    [grid]
    design = ["plp"]              # the points must run one PLP instance
    adaptive = [true, false]      # ATraPos re-partitions, or the events only (static)

    [[schedule]]
    at_s = 4.0                    # seconds into the measured window
    park = 1                      # worker 1's core taken away (or a list: [1, 2])

    [[schedule]]
    at_s = 9.0
    unpark = 1                    # and given back

A point with a schedule or ``adaptive`` set is a :class:`LiveRun`: it runs in this process
through :func:`islands.atrapos.live.run_live` with the monitor on (``engine.plp_monitor``), and
its row keeps the controller's log (``atrapos.*``) beside the throughput timeline. Without
``adaptive`` in the grid a schedule runs static. The events are those the engine supports
(:data:`islands.atrapos.live.EVENT_KINDS`); workload and skew changes are refused by name.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from islands.atrapos.events import EVENT_KINDS, Event, LiveLog

__all__ = ["SCHEDULE_KEYS", "LiveRun", "parse_schedule", "scaled"]

#: Keys of one ``[[schedule]]`` entry: its time and one event kind naming the workers.
SCHEDULE_KEYS = ("at_s", *EVENT_KINDS)


@dataclass(frozen=True)
class LiveRun:
    """How a point runs beside the ATraPos controller: ``adaptive`` (re-partition) or static,
    the ``schedule`` of events and the controller's first interval ``interval_s``."""

    adaptive: bool
    schedule: tuple[Event, ...]
    interval_s: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (for the point's hash and the row)."""
        return {
            "adaptive": self.adaptive,
            "interval_s": self.interval_s,
            "schedule": [[e.at_s, e.kind, list(e.workers)] for e in self.schedule],
        }

    def record(self, log: LiveLog) -> dict[str, Any]:
        """The row's ``atrapos`` part: this run's settings and what the controller saw and did
        (times in seconds from the measured window's start)."""
        return {
            **self.to_dict(),
            "events": [[at, kind, list(workers)] for at, kind, workers in log.events],
            "repartitions": [{k: v for k, v in r.items() if k != "owners"} for r in log.repartitions],
            "intervals": [list(i) for i in log.intervals],
        }


def parse_schedule(entries: Any, duration_s: float, error: Callable[[str, str], ValueError]) -> tuple[Event, ...]:
    """The ``[[schedule]]`` entries of an experiment file, checked, in the file's order (so
    that ``schedule[i]`` in any later error is the file's i-th entry; the controller sorts).
    ``error(key, why)`` makes the one-line error (``schedule[i].key: why``); times must lie in
    the measured window ``[0, duration_s)``, workers be whole numbers >= 0 (whether a point
    has that many is judged per point)."""
    if not isinstance(entries, list) or not all(isinstance(e, Mapping) for e in entries):
        raise error("schedule", "write each event as a [[schedule]] table")
    events = []
    for i, entry in enumerate(entries):
        at = f"schedule[{i}]"
        for key in entry:
            if key not in SCHEDULE_KEYS:
                raise error(f"{at}.{key}", f"unknown key (known: {', '.join(SCHEDULE_KEYS)})")
        if "at_s" not in entry:
            raise error(f"{at}.at_s", "missing (when the event happens, seconds into the measured window)")
        when = entry["at_s"]
        if isinstance(when, bool) or not isinstance(when, (int, float)) or not math.isfinite(when):
            raise error(f"{at}.at_s", f"{when!r} is not a number of seconds")
        if not 0 <= when < duration_s:
            raise error(f"{at}.at_s", f"{when!r} is not within the measured window [0, {duration_s:g}) s")
        kinds = [k for k in EVENT_KINDS if k in entry]
        if len(kinds) != 1:
            raise error(at, f"give exactly one of {', '.join(EVENT_KINDS)} (the workers it applies to)")
        kind = kinds[0]
        raw = entry[kind]
        workers = raw if isinstance(raw, list) else [raw]
        if not workers or any(isinstance(w, bool) or not isinstance(w, int) or w < 0 for w in workers):
            raise error(f"{at}.{kind}", f"{raw!r} is not a worker (a whole number >= 0) or a list of them")
        events.append(Event(float(when), kind, tuple(workers)))
    return tuple(events)


def scaled(events: Sequence[Event], factor: float) -> tuple[Event, ...]:
    """The events at ``factor`` times their time (a shrunken run keeps the same shape)."""
    return tuple(Event(e.at_s * factor, e.kind, e.workers) for e in events)
