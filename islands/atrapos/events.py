"""The run-time events of an adaptive PLP run and the log the live controller keeps
(:mod:`islands.atrapos.live`). Pure: experiment files and their schedules
(:mod:`islands.experiments.schedule`) use them without the engine.

Events: a worker's core taken away (``park``) or given back (``unpark``), both naming workers;
and a change of the workload's draw, ``mix`` (the transaction mix, 002 Fig 10 and 13) or
``skew`` (``hot_fraction`` of the data getting ``hot_share`` of the requests, 002 Fig 11),
both giving the new values of the workload's settings of those names (TATP's; the engine
checks them with the settings' own parsers, the run handle's ``change``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from islands.config.workload_registry import changing

if TYPE_CHECKING:
    from islands.config.settings import RunConfig

__all__ = [
    "CHANGE_KINDS",
    "CHANGE_SETTINGS",
    "CORE_KINDS",
    "EVENT_KINDS",
    "Event",
    "LiveLog",
    "check_changes",
    "check_events",
]

#: Events on cores: a worker's core taken away, or given back.
CORE_KINDS = ("park", "unpark")
#: Events on the workload's draw, and the settings each may change (a mix change may bring
#: its skew along: both arrive at once).
CHANGE_SETTINGS: Mapping[str, tuple[str, ...]] = {
    "mix": ("mix", "hot_fraction", "hot_share"),
    "skew": ("hot_fraction", "hot_share"),
}
#: Their kinds.
CHANGE_KINDS = tuple(CHANGE_SETTINGS)
#: The run-time events the engine supports.
EVENT_KINDS = CORE_KINDS + CHANGE_KINDS


@dataclass(frozen=True)
class Event:
    """At ``at_s`` seconds into the measured window, ``kind`` on ``workers`` (``park`` or
    ``unpark``: indices of the instance's workers, which are the scheme's cores) or to
    ``settings`` (``mix`` or ``skew``: (name, value) pairs of the workload's settings)."""

    at_s: float
    kind: str
    workers: tuple[int, ...] = ()
    settings: tuple[tuple[str, Any], ...] = ()

    def what(self) -> Any:
        """What it applies to, as logged and stored: the workers (a list) or the settings (a dict)."""
        return dict(self.settings) if self.kind in CHANGE_KINDS else list(self.workers)

    def label(self) -> str:
        """A few words for captions and listings ("park 1", "mix get_new_destination",
        "skew hot_fraction 0.2, hot_share 0.5")."""
        if self.kind in CHANGE_KINDS:
            return f"{self.kind} " + ", ".join(
                f"{v}" if k == self.kind else f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}"
                for k, v in self.settings
            )
        return f"{self.kind} {','.join(map(str, self.workers))}"


def check_events(events: Sequence[Event], n_workers: int, workload: str | None = None) -> None:
    """Raises ``ValueError`` naming the first event the engine cannot apply (``workload``:
    the run's, for the draw changes; None: not checked)."""
    for i, e in enumerate(events):
        if e.kind not in EVENT_KINDS:
            raise ValueError(f"schedule[{i}].kind: {e.kind!r} is not one of {', '.join(EVENT_KINDS)}")
        if not (math.isfinite(e.at_s) and e.at_s >= 0):
            raise ValueError(f"schedule[{i}].at_s: {e.at_s} is not a non-negative time")
        if e.kind in CHANGE_KINDS:
            allowed = CHANGE_SETTINGS[e.kind]
            keys = [k for k, _ in e.settings]
            if not keys or any(k not in allowed for k in keys) or (e.kind == "mix") != ("mix" in keys):
                raise ValueError(f"schedule[{i}].{e.kind}: give {' and/or '.join(allowed)}, not {dict(e.settings)}")
            if workload is not None and workload not in changing():
                raise ValueError(
                    f"schedule[{i}].{e.kind}: {workload} cannot change its draw while it runs "
                    f"({', '.join(changing())} can)"
                )
        elif not e.workers or any(not 0 <= w < n_workers for w in e.workers):
            raise ValueError(f"schedule[{i}].workers: {list(e.workers)} must name workers 0..{n_workers - 1}")


@dataclass
class LiveLog:
    """What the controller saw and did, times in seconds from the measured window's start:
    ``intervals`` (end, length, throughput, next interval's length), ``repartitions`` (at,
    units moved, pause in ns, planned gain), ``events`` (at, kind, workers or settings), and
    ``cpu_shares``: per interval (in ``intervals``' order) each worker's share of it that its
    thread ran (CPU time over wall time, 0..1). An interval whose throughput fell to near zero
    while every worker ran most of it is the engine's (a spin, a livelock); one where a worker
    hardly ran is either the machine's (it was runnable but not run: other processes, a stolen
    CPU) or a wait (asleep on a peer), which the kernel's run-queue delay tells apart
    (benchmarks/atrapos_skew_stalls.py reads it)."""

    intervals: list[tuple[float, ...]] = field(default_factory=list)
    repartitions: list[dict[str, Any]] = field(default_factory=list)
    events: list[tuple[float, str, Any]] = field(default_factory=list)
    cpu_shares: list[tuple[float, ...]] = field(default_factory=list)


def check_changes(
    config: RunConfig,
    events: Sequence[Event],
    error: Callable[[str, str], ValueError] = lambda key, why: ValueError(f"{key}: {why}"),
) -> None:
    """Raises ``error(schedule[i].<setting>, why)`` when a change among ``events`` (applied in
    time order, each on top of those before) gives ``config``'s workload settings the engine
    refuses: its own parsers, as when the change arrives in a running instance."""
    settings = getattr(config, config.workload)
    order = sorted(range(len(events)), key=lambda i: events[i].at_s)
    for i in order:
        event = events[i]
        if event.kind not in CHANGE_SETTINGS:
            continue
        known = {f.name for f in dataclasses.fields(settings)}
        for key, _ in event.settings:
            if key not in known:
                raise error(f"schedule[{i}].{key}", f"{config.workload} has no setting {key!r}")
        settings = dataclasses.replace(settings, **dict(event.settings))
        try:
            _validate_section(config.workload, settings)
        except ValueError as e:
            raise error(f"schedule[{i}].{event.settings[0][0]}", str(e)) from None


def _validate_section(workload: str, settings: Any) -> None:
    """The engine's validation of one workload's settings (its parsers and ranges, the same
    that judge a change arriving in a running instance), not of a whole run."""
    from islands import _core  # lazy: experiment files load without the engine

    core = _core.RunConfig()
    section = getattr(core, workload)
    for f in dataclasses.fields(settings):
        setattr(section, f.name, getattr(settings, f.name))
    section.validate()
