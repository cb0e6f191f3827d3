"""The search of paper 002 Sec V-C: Algorithm 1 (partitioning) then Algorithm 2 (placement),
with the cost of the scheme before and after, and whether the change is worth making.

The paper does not say how the two metrics weigh against each other when deciding to
repartition; here both are put in units of the interval's total action cost:
``J(S) = RU(S, W) / total + sync_weight * TS(S, W) / total`` (``sync_weight``: the cost of
exchanging one byte across a distance of 1). A plan is worth applying when the current scheme
no longer fits the hardware (it uses cores taken away), or when ``J`` drops by at least
``min_gain``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from islands.atrapos.cost_model import resource_utilization, transaction_synchronization
from islands.atrapos.hardware import Hardware
from islands.atrapos.partitioning import choose_partitioning, improve_partitioning
from islands.atrapos.placement import choose_placement
from islands.atrapos.scheme import Scheme, check_fits
from islands.atrapos.workload import WorkloadStats

__all__ = ["DEFAULT_MIN_GAIN", "Plan", "choose_scheme"]

#: The smallest drop of J (a share of the interval's total action cost) worth repartitioning for.
DEFAULT_MIN_GAIN = 0.05


@dataclass(frozen=True)
class Plan:
    """The scheme the search chose and the costs of the current and the chosen scheme. The
    current scheme's RU/TS are NaN when it does not fit the hardware."""

    current: Scheme = field(repr=False)
    scheme: Scheme = field(repr=False)
    ru_before: float
    ts_before: float
    ru_after: float
    ts_after: float
    total_cost: float
    fits: bool
    sync_weight: float = 1.0

    def objective(self, ru: float, ts: float) -> float:
        """``J`` for the given RU and TS."""
        total = self.total_cost if self.total_cost > 0 else 1.0
        return (ru + self.sync_weight * ts) / total

    @property
    def gain(self) -> float:
        """How much ``J`` drops (NaN when the current scheme does not fit)."""
        if not self.fits:
            return math.nan
        return self.objective(self.ru_before, self.ts_before) - self.objective(self.ru_after, self.ts_after)

    @property
    def changes(self) -> bool:
        """Whether the chosen scheme differs from the current one."""
        return not self.scheme.same_as(self.current)

    def worth_it(self, min_gain: float = DEFAULT_MIN_GAIN) -> bool:
        """Whether to repartition: the scheme changes and either the current one does not
        fit the hardware or ``J`` drops by at least ``min_gain``."""
        if not self.changes:
            return False
        return not self.fits or self.gain >= min_gain


def choose_scheme(current: Scheme, workload: WorkloadStats, hardware: Hardware, sync_weight: float = 1.0) -> Plan:
    """Algorithm 1 then Algorithm 2 on the sub-partitions of ``current`` for the statistics
    ``workload`` on ``hardware``. Algorithm 1 runs from its greedy start and, when ``current``
    fits the hardware, from ``current`` too; the better balance goes on to Algorithm 2."""
    if not sync_weight >= 0:
        raise ValueError(f"sync_weight: {sync_weight} must be non-negative")
    workload.check_matches(current)
    try:
        check_fits(current, hardware)
        fits = True
    except ValueError:
        fits = False
    partitioned = choose_partitioning(current, workload, hardware)
    if fits:
        # Improving the current scheme in place may balance as well with fewer moves.
        in_place = improve_partitioning(current, workload, hardware)
        if resource_utilization(in_place, workload, hardware) <= resource_utilization(partitioned, workload, hardware):
            partitioned = in_place
    chosen = choose_placement(partitioned, workload, hardware)
    nan = math.nan
    return Plan(
        current=current,
        scheme=chosen,
        ru_before=resource_utilization(current, workload, hardware) if fits else nan,
        ts_before=transaction_synchronization(current, workload, hardware) if fits else nan,
        ru_after=resource_utilization(chosen, workload, hardware),
        ts_after=transaction_synchronization(chosen, workload, hardware),
        total_cost=workload.total_cost,
        fits=fits,
        sync_weight=sync_weight,
    )
