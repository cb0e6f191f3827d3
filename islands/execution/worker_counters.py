"""The worker counters as the engine declares them, once (``ISLANDS_WORKER_COUNTERS`` and
``ISLANDS_CLIENT_COUNTERS`` in csrc/include/islands/exec/worker_counters.hpp, read through
``_core.counters()``), and their aggregates over workers. A run's result reports each counter
where its schema says (``reported``): summed per instance (``instance``), as the run's total
(``run``), as a consistency figure (``checks.NAME``) or in the client layer's account
(``clients``); nothing here names a counter."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Where a result reports a counter's aggregate (the part of ``reported`` before any dot).
PLACES = ("instance", "run", "checks", "clients")


@dataclass(frozen=True)
class Counter:
    """One worker counter (a row of ``_core.counters()``)."""

    name: str  #: its key in a worker's statistics
    group: str  #: ``worker``: ``worker[name]``; ``clients``: ``worker["clients"][name]``
    kind: str  #: ``count``, ``series``, ``per_type``, ``per_reason`` or ``per_component``
    unit: str  #: what it counts (transactions, messages, ns, ticks, ...)
    scope: str  #: ``window`` (the measured window) or ``run`` (warm-up included)
    aggregate: str  #: over workers: ``sum``, ``max``, or ``each`` (not aggregated)
    reported: tuple[str, ...]  #: where a result shows the aggregate (see the module)
    doc: str  #: what it means

    def value(self, worker: Mapping[str, Any]) -> Any:
        """This counter in one worker's engine statistics."""
        return worker[self.name] if self.group == "worker" else worker[self.group][self.name]


@functools.cache
def counters() -> tuple[Counter, ...]:
    """Every worker counter, in the engine's declaration order."""
    from islands import _core

    return tuple(Counter(**{**d, "reported": tuple(d["reported"])}) for d in _core.counters())


def aggregate(counter: Counter, workers: Sequence[Mapping[str, Any]], type_names: Sequence[str] = ()) -> Any:
    """``counter`` over ``workers`` as its schema aggregates it: a number; a dict by reason or
    component; a dict by the workload's transaction ``type_names`` (per_type); a list by interval
    (series, entry by entry over series of different lengths). Raises ``ValueError`` for a counter
    that is not aggregated (``each``) or of an unknown kind."""
    if counter.aggregate not in ("sum", "max"):
        raise ValueError(f"counter {counter.name}: aggregate {counter.aggregate!r} does not add up over workers")
    pick: Callable[[Iterable[int]], int] = sum if counter.aggregate == "sum" else lambda xs: max(xs, default=0)
    values = [counter.value(w) for w in workers]
    if counter.kind == "count":
        return pick(values)
    if counter.kind in ("per_reason", "per_component"):
        keys = list(values[0]) if values else []
        return {k: pick(v[k] for v in values) for k in keys}
    if counter.kind == "per_type":
        return {name: pick(v[i] for v in values) for i, name in enumerate(type_names)}
    if counter.kind == "series":
        n = max((len(v) for v in values), default=0)
        return [pick(v[i] for v in values if i < len(v)) for i in range(n)]
    raise ValueError(f"counter {counter.name}: unknown kind {counter.kind!r}")


def reported(place: str, workers: Sequence[Mapping[str, Any]], type_names: Sequence[str] = ()) -> dict[str, Any]:
    """``{key: aggregate over workers}`` of every counter a result reports at ``place`` (one of
    :data:`PLACES`), in declaration order; the key is the counter's name, or for ``checks`` the
    figure's name after the dot."""
    if place not in PLACES:
        raise ValueError(f"place {place!r}: not one of {', '.join(PLACES)}")
    out = {}
    for c in counters():
        for where in c.reported:
            at, _, key = where.partition(".")
            if at == place:
                out[key or c.name] = aggregate(c, workers, type_names)
    return out
