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

    [[schedule]]                  # the workload's draw (TATP): its transaction mix
    at_s = 10.0
    mix = "get_new_destination"   # as tatp.mix spells it (002 Fig 10, 13)

    [[schedule]]                  # or its skew (002 Fig 11): hot_share of the requests go to
    at_s = 12.0                   # the first hot_fraction of the instance's subscribers
    hot_fraction = 0.2            # (0: skew off); either or both; a mix entry may also
    hot_share = 0.5               # carry them (both change at once, 002 Fig 13)

A point with a schedule or ``adaptive`` set is a :class:`LiveRun`: it runs in this process
through :func:`islands.atrapos.live.run_live` with the monitor on (``engine.plp_monitor``), and
its row keeps the controller's log (``atrapos.*``) beside the throughput timeline. Without
``adaptive`` in the grid a schedule runs static. The events are those the engine supports
(:data:`islands.atrapos.events.EVENT_KINDS`). A mix or skew change is checked here for its
types and ranges, and by the engine's own parsers when the file loads (:func:`check_changes`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from islands.atrapos.events import CHANGE_SETTINGS, CORE_KINDS, Event, LiveLog

if TYPE_CHECKING:
    from islands.config.settings import RunConfig
    from islands.machine.topology import Topology

__all__ = ["SCHEDULE_KEYS", "LiveRun", "parse_schedule", "scaled"]

#: Keys of one ``[[schedule]]`` entry: its time and one event: a core kind naming the workers,
#: or the settings of a change of the workload's draw.
SCHEDULE_KEYS = ("at_s", *CORE_KINDS, *(k for keys in CHANGE_SETTINGS.values() for k in keys))
#: The entry's keys that make each kind of event (a mix change may carry skew settings too).
_KIND_OF_KEY = {**{k: k for k in CORE_KINDS}, "mix": "mix", "hot_fraction": "skew", "hot_share": "skew"}


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
            "schedule": [[e.at_s, e.kind, e.what()] for e in self.schedule],
        }

    def run(self, config: RunConfig, topology: Topology | None = None) -> dict[str, Any]:
        """Runs ``config`` (one PLP instance, here) with the controller beside it, adaptive or
        static, with this schedule's events and the paper's interval logic from ``interval_s``
        up to 8 times it: the run's row, with the controller's log as ``atrapos``."""
        # late: experiment files load without the engine (the controller drives it)
        from islands.atrapos.adaptive_loop import AdaptiveLoop
        from islands.atrapos.controller import IntervalController
        from islands.atrapos.live import run_live

        loop = AdaptiveLoop(IntervalController(min_interval_s=self.interval_s, max_interval_s=8 * self.interval_s))
        result, log = run_live(config, self.adaptive, self.schedule, loop=loop, topology=topology)
        return {**result.to_dict(), "atrapos": self.record(log)}

    def record(self, log: LiveLog) -> dict[str, Any]:
        """The row's ``atrapos`` part: this run's settings and what the controller saw and did
        (times in seconds from the measured window's start)."""
        return {
            **self.to_dict(),
            "events": [[at, kind, what if isinstance(what, dict) else list(what)] for at, kind, what in log.events],
            "repartitions": [{k: v for k, v in r.items() if k != "owners"} for r in log.repartitions],
            "intervals": [list(i) for i in log.intervals],
            "cpu_shares": [list(c) for c in log.cpu_shares],
        }


def parse_schedule(entries: Any, duration_s: float, error: Callable[[str, str], ValueError]) -> tuple[Event, ...]:
    """The ``[[schedule]]`` entries of an experiment file, checked, in the file's order (so
    that ``schedule[i]`` in any later error is the file's i-th entry; the controller sorts).
    ``error(key, why)`` makes the one-line error (``schedule[i].key: why``); times must lie in
    the measured window ``[0, duration_s)``, workers be whole numbers >= 0 (whether a point
    has that many is judged per point), a mix a string, hot_fraction and
    hot_share shares in [0, 1] (whether the engine takes them: :func:`check_changes`)."""
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
        kinds = sorted({_KIND_OF_KEY[k] for k in entry if k in _KIND_OF_KEY})
        if "mix" in kinds and "skew" in kinds:  # a mix with its skew, at once
            kinds = ["mix"]
        if len(kinds) != 1:
            raise error(
                at,
                f"give exactly one event: {', '.join(CORE_KINDS)} (the workers it applies to), mix "
                "(with or without skew), or hot_fraction and/or hot_share (skew)",
            )
        kind = kinds[0]
        if kind in CHANGE_SETTINGS:
            events.append(Event(float(when), kind, settings=_change(entry, kind, at, error)))
            continue
        raw = entry[kind]
        workers = raw if isinstance(raw, list) else [raw]
        if not workers or any(isinstance(w, bool) or not isinstance(w, int) or w < 0 for w in workers):
            raise error(f"{at}.{kind}", f"{raw!r} is not a worker (a whole number >= 0) or a list of them")
        events.append(Event(float(when), kind, tuple(workers)))
    return tuple(events)


def _change(
    entry: Mapping[str, Any], kind: str, at: str, error: Callable[[str, str], ValueError]
) -> tuple[tuple[str, Any], ...]:
    settings = []
    for key in CHANGE_SETTINGS[kind]:
        if key not in entry:
            continue
        value = entry[key]
        if key == "mix":
            if not isinstance(value, str) or not value.strip():
                raise error(f"{at}.mix", f"{value!r} is not a mix (as the workload's mix setting spells it)")
        else:
            number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            if not number or not 0 <= value <= 1:
                span = "[0, 1] (0: no skew)" if key == "hot_fraction" else "[0, 1]"
                raise error(f"{at}.{key}", f"{value!r} is not a share in {span}")
            value = float(value)
        settings.append((key, value))
    return tuple(settings)


def scaled(events: Sequence[Event], factor: float) -> tuple[Event, ...]:
    """The events at ``factor`` times their time (a shrunken run keeps the same shape)."""
    return tuple(dataclasses.replace(e, at_s=e.at_s * factor) for e in events)
