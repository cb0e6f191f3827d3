"""What the engine's monitor thread runs at the end of every monitoring interval: the
interval controller decides whether to evaluate the model; an evaluation runs the search on
the interval's statistics, and repartitions when the plan is worth it (paper 002 Sec V-D).

Hysteresis (ours; the paper repartitions on one interval's gain). A plan is applied only when
its gain reaches ``min_gain`` on two consecutive intervals: the one just measured, on whose
statistics the search chose it, and the one before (same scheme), on which the same plan is
priced again. A plan that passes on the last interval alone is not applied; the controller
evaluates again after the shortest interval (a recheck), so a real change is followed one
interval later. Why: on a balanced TATP load our measured imbalance is noise, and one interval's
search fits its plan to that noise. Measured (2 workers, 0.5 s intervals, costs put on equal
CPU time): balanced GetSubData's best gain was 0.025 on average, 0.046 at most (load average
2), against 0.18 to 0.27 in every interval under Fig 11's skew; and before the costs were put
on equal CPU time, at load average 4, a worker's cost share ranged from 0% to 89% from one
interval to the next, with gains up to 0.96. Noise fitted by one interval's plan rarely lines
up with the next interval's; a skew does. A scheme that no longer fits the hardware (cores
taken away) is changed at once.

After a re-partitioning (ours too) the next interval, the new scheme's first, also ends with an
evaluation, whatever its throughput: a plan chosen on an interval that straddled a change of
the workload (part skewed, part not) may fit neither side, and its throughput can be as steady
as a good plan's, so the paper's rule (evaluate when the throughput leaves its band) would
keep it. It is applied, as any plan, only once it gains on two intervals of the new scheme.

Pure apart from the callable that reads the statistics (every interval: the previous one's
statistics price a plan), so tests drive it with scripted throughput and workloads.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from islands.atrapos.actions import RepartitionAction, repartition_actions
from islands.atrapos.controller import IntervalController
from islands.atrapos.hardware import Hardware
from islands.atrapos.scheme import Scheme
from islands.atrapos.search import DEFAULT_DRAW_WEIGHT, DEFAULT_MIN_GAIN, Plan, choose_scheme, gain_of
from islands.atrapos.workload_stats import WorkloadStats

__all__ = ["AdaptiveLoop", "Decision"]


@dataclass(frozen=True)
class Decision:
    """The outcome of one interval: whether the model was evaluated, the plan if it was,
    whether to repartition and with which actions, and the next interval's length."""

    evaluated: bool
    plan: Plan | None
    repartition: bool
    actions: tuple[RepartitionAction, ...]
    next_interval_s: float


class AdaptiveLoop:
    """The controller, the search and the gain threshold together. Call
    :meth:`end_of_interval` after each interval; :meth:`hardware_changed` when cores are
    taken away or given back (the next interval's end evaluates the model whatever the
    throughput did)."""

    def __init__(
        self,
        controller: IntervalController | None = None,
        min_gain: float = DEFAULT_MIN_GAIN,
        sync_weight: float = 1.0,
        draw_weight: float = DEFAULT_DRAW_WEIGHT,
    ) -> None:
        if not min_gain >= 0:
            raise ValueError(f"min_gain: {min_gain} must be non-negative")
        if not (math.isfinite(draw_weight) and draw_weight >= 0):
            raise ValueError(f"draw_weight: {draw_weight} must be finite and non-negative")
        self.controller = controller or IntervalController()
        self.min_gain = float(min_gain)
        self.sync_weight = float(sync_weight)
        self.draw_weight = float(draw_weight)
        self._forced = False
        self._previous: tuple[Scheme, WorkloadStats] | None = None  # the last interval's statistics

    def hardware_changed(self) -> None:
        """Evaluate the model at the end of the current interval."""
        self._forced = True

    def end_of_interval(
        self, tps: float, statistics: Callable[[], tuple[Scheme, WorkloadStats] | None], hardware: Hardware
    ) -> Decision:
        """The interval that just ended ran at ``tps``; ``statistics()`` gives the current
        scheme and the interval's statistics (read every interval), or None when the
        interval's statistics cannot be used (then nothing is decided: evaluated, no plan)."""
        evaluate = self.controller.observe(tps, force=self._forced)
        self._forced = False
        read = statistics()
        previous, self._previous = self._previous, read
        if not evaluate:
            return Decision(False, None, False, (), self.controller.interval_s)
        if read is None:
            self.controller.evaluated(False)
            return Decision(True, None, False, (), self.controller.interval_s)
        current, workload = read
        plan = choose_scheme(current, workload, hardware, self.sync_weight, self.draw_weight)
        candidate = plan.worth_it(self.min_gain)
        repartition = candidate and (not plan.fits or self._holds_before(plan, previous, hardware))
        self.controller.evaluated(repartition)
        if repartition:
            self._previous = None  # statistics of the old scheme
            self.controller.recheck()  # the new scheme's first interval ends with an evaluation too
        elif candidate:
            self.controller.recheck()  # confirm (or not) on the next, shortest interval
        actions = tuple(repartition_actions(current, plan.scheme)) if repartition else ()
        return Decision(True, plan, repartition, actions, self.controller.interval_s)

    def _holds_before(self, plan: Plan, previous: tuple[Scheme, WorkloadStats] | None, hardware: Hardware) -> bool:
        """Whether ``plan`` gains at least ``min_gain`` on the previous interval's statistics too."""
        if previous is None or not previous[0].same_as(plan.current):
            return False
        gain = gain_of(plan.current, plan.scheme, previous[1], hardware, self.sync_weight, self.draw_weight)
        return gain >= self.min_gain
