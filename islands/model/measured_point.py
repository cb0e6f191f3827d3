"""One point measured here for the model to be judged by: a figure id, the deployment, the
workload, the transport, the measured throughput and its repetitions
(:mod:`islands.model.validation`, :mod:`islands.model.leave_one_out`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from islands.model.workload_spec import ModelWorkload

__all__ = ["Point"]


@dataclass(frozen=True)
class Point:
    """One measured point: ``figure`` it belongs to, ``deployment`` spec on this machine,
    workload, transport and measured throughput (txn/s), wall-clock and by CPU time."""

    figure: str
    deployment: str
    workload: ModelWorkload
    transport: str
    measured: float
    #: workers x commits / the workers' CPU time: the throughput had no other process taken
    #: the cores (meaningful where workers never wait: local transactions, unlogged)
    cpu_measured: float = float("nan")
    #: the share of the machine's CPU time other processes used during the run (NaN: unknown)
    other_cpu_share: float = float("nan")
    #: each repetition's throughput (``measured`` is their mean); empty for a single run
    repetitions: tuple[float, ...] = ()

    @property
    def curve(self) -> tuple[Any, ...]:
        """The curve it lies on: everything but the multisite share."""
        w = self.workload
        return (self.figure, self.deployment, w.kind, w.rows, w.rows_per_site, self.transport)
