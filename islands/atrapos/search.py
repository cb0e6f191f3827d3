"""The search of paper 002 Sec V-C: Algorithm 1 (partitioning) then Algorithm 2 (placement),
with the cost of the scheme before and after, and whether the change is worth making.

Two additions of ours, because the paper's Algorithm 1 looks at load alone and, walking the
tables one after another, scatters sub-partitions that synchronize (on 80 cores Algorithm 2
cannot gather them again): Algorithm 1's moves must lower ``J`` below (load and
synchronization together), and it starts from three schemes (the current one, a per-table
greedy one, the paper's greedy one), each followed by Algorithm 2; the lowest ``J`` wins. So
the chosen scheme's ``J`` is never above the current scheme's. The paper's algorithms alone
are :func:`~islands.atrapos.partitioning.choose_partitioning` and
:func:`~islands.atrapos.socket_placement.choose_placement`.

The paper does not say how the two metrics weigh against each other when deciding to
repartition; here both are put in units of the interval's total action cost:
``J(S) = RU(S, W) / total + sync_weight * TS(S, W) / total`` (``sync_weight``: the cost of
exchanging one byte across a distance of 1). A plan is worth applying when the current scheme
no longer fits the hardware (it uses cores taken away), or when ``J`` drops by at least
``min_gain``.

The draw term (ours; islands.atrapos.cost_model): our workers draw the transactions, so a
transaction whose home sub-partition another core owns costs a hop on both cores. ``J``
becomes ``(RU_h + sync_weight * TS + H) / total``, ``RU_h`` over the loads with the hops and
``H`` the hops' summed load, each hop costing each of its two cores ``draw_weight`` times the
interval's mean action cost per drawn transaction (:func:`hop_cost_of`): the monitor's own
cycles calibrate it, so it is in the costs' unit whatever the transaction, and the weight is
a measured constant (:data:`DEFAULT_DRAW_WEIGHT`). With a weight of at least 1, moving a
sub-partition whose transactions cost the mean away from the one worker that draws it does
not lower ``J`` (the RU it can save is at most twice its cost; the hops add ``2 *
draw_weight`` times it), so only a load that other workers draw, or one dearer than the
mean, makes such a move worth it. Algorithm 1 starts from a fourth scheme when draws were
recorded: every sub-partition on the core that draws it (``home_partitioning``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from islands.atrapos.cost_model import draw_overhead, resource_utilization, transaction_synchronization
from islands.atrapos.hardware import Hardware
from islands.atrapos.partitioning import greedy_partitioning, home_partitioning, improve_partitioning
from islands.atrapos.scheme import Scheme, check_fits
from islands.atrapos.socket_placement import choose_placement
from islands.atrapos.workload_stats import WorkloadStats

__all__ = ["DEFAULT_DRAW_WEIGHT", "DEFAULT_MIN_GAIN", "Plan", "choose_scheme", "gain_of", "hop_cost_of"]

#: The smallest drop of J (a share of the interval's total action cost) worth repartitioning for.
DEFAULT_MIN_GAIN = 0.05

#: What one hop (a drawn transaction whose home another core owns) costs each of its two cores,
#: in the interval's mean action cost per drawn transaction. Measured (helper deleg's calm run
#: of benchmarks/plp_handoff.py, TATP GetSubData on 2 workers, 5 of site 0's units moved away):
#: with the hand-off (engine.plp_handoff = 4) the run lost 612 ns of the two cores' time per
#: handed transaction, about 2.3 times a GetSubData's 130 ns on each core; without it (a spread
#: transaction, the drawer waiting through the round trip) about 2900 ns, 11 times. The smaller
#: is taken: it is what the messages cost; the wait is not work a move shifts between cores.
DEFAULT_DRAW_WEIGHT = 2.0


def hop_cost_of(workload: WorkloadStats, draw_weight: float) -> float:
    """The cost of one hop on each of its cores: ``draw_weight`` times the interval's mean
    action cost per drawn transaction. Raises ``ValueError`` for a negative or non-finite
    weight."""
    if not (math.isfinite(draw_weight) and draw_weight >= 0):
        raise ValueError(f"draw_weight: {draw_weight} must be finite and non-negative")
    return draw_weight * workload.mean_drawn_cost


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
    #: The hops' summed load (the draw term ``H``) before and after (NaN before when it does not fit).
    draw_before: float = 0.0
    draw_after: float = 0.0

    def objective(self, ru: float, ts: float, draw: float = 0.0) -> float:
        """``J`` for the given RU, TS and draw term."""
        total = self.total_cost if self.total_cost > 0 else 1.0
        return (ru + self.sync_weight * ts + draw) / total

    @property
    def gain(self) -> float:
        """How much ``J`` drops (NaN when the current scheme does not fit)."""
        if not self.fits:
            return math.nan
        return self.objective(self.ru_before, self.ts_before, self.draw_before) - self.objective(
            self.ru_after, self.ts_after, self.draw_after
        )

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


def _objective(
    scheme: Scheme, workload: WorkloadStats, hardware: Hardware, sync_weight: float, hop_cost: float = 0.0
) -> float:
    ru = resource_utilization(scheme, workload, hardware, hop_cost)
    draw = draw_overhead(scheme, workload, hop_cost)
    return ru + sync_weight * transaction_synchronization(scheme, workload, hardware) + draw


def gain_of(
    current: Scheme,
    scheme: Scheme,
    workload: WorkloadStats,
    hardware: Hardware,
    sync_weight: float = 1.0,
    draw_weight: float = DEFAULT_DRAW_WEIGHT,
) -> float:
    """How much ``J`` drops under ``workload`` (any interval's statistics over ``current``'s
    sub-partitions) when ``current`` becomes ``scheme``; both must fit ``hardware``."""
    total = workload.total_cost if workload.total_cost > 0 else 1.0
    hop = hop_cost_of(workload, draw_weight)
    before = _objective(current, workload, hardware, sync_weight, hop)
    return (before - _objective(scheme, workload, hardware, sync_weight, hop)) / total


def choose_scheme(
    current: Scheme,
    workload: WorkloadStats,
    hardware: Hardware,
    sync_weight: float = 1.0,
    draw_weight: float = DEFAULT_DRAW_WEIGHT,
) -> Plan:
    """Algorithm 1 then Algorithm 2 on the sub-partitions of ``current`` for the statistics
    ``workload`` on ``hardware``. Algorithm 1 improves three starts: ``current`` (when it fits
    the hardware), the per-table greedy one and the paper's greedy one, and with recorded draws
    a fourth, every sub-partition on the core that draws it; each goes through Algorithm 2,
    and the scheme with the lowest ``J`` is chosen."""
    if not sync_weight >= 0:
        raise ValueError(f"sync_weight: {sync_weight} must be non-negative")
    hop = hop_cost_of(workload, draw_weight)
    workload.check_matches(current)
    try:
        check_fits(current, hardware)
        fits = True
    except ValueError:
        fits = False
    # Algorithm 1 balances load and ignores synchronization, so where it starts decides how
    # much TS Algorithm 2 is left to remove. Three starts, each through both algorithms; the
    # lowest J wins (ties: the earlier start, so a scheme that is as good stays).
    starts = [current] if fits else []
    starts += [greedy_partitioning(current, workload, hardware, per_table=flag) for flag in (True, False)]
    if hop > 0 and workload.drawn_matrix().any():
        starts.append(home_partitioning(current, workload, hardware))
    best: tuple[float, Scheme] | None = None
    for start in starts:
        partitioned = improve_partitioning(start, workload, hardware, sync_weight, hop)
        floor = resource_utilization(partitioned, workload, hardware, hop) + draw_overhead(partitioned, workload, hop)
        if best is not None and floor >= best[0]:
            continue  # Algorithm 2 lowers TS alone: this start cannot win
        placed = choose_placement(partitioned, workload, hardware, hop)
        score = _objective(placed, workload, hardware, sync_weight, hop)
        if best is None or score < best[0] - 1e-12 * max(1.0, abs(best[0])):
            best = (score, placed)
    assert best is not None
    chosen = best[1]
    nan = math.nan
    return Plan(
        current=current,
        scheme=chosen,
        ru_before=resource_utilization(current, workload, hardware, hop) if fits else nan,
        ts_before=transaction_synchronization(current, workload, hardware) if fits else nan,
        ru_after=resource_utilization(chosen, workload, hardware, hop),
        ts_after=transaction_synchronization(chosen, workload, hardware),
        total_cost=workload.total_cost,
        fits=fits,
        sync_weight=sync_weight,
        draw_before=draw_overhead(current, workload, hop) if fits else nan,
        draw_after=draw_overhead(chosen, workload, hop),
    )
