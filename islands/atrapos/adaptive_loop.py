"""What the engine's monitor thread runs at the end of every monitoring interval: the
interval controller decides whether to evaluate the model; an evaluation reads the
statistics, runs the search, and repartitions when the plan is worth it (paper 002 Sec V-D).

Pure apart from the callable that reads the statistics (taken only when the model is
evaluated, since a snapshot costs a pass over every partition's arrays), so tests drive it
with scripted throughput and workloads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from islands.atrapos.actions import RepartitionAction, repartition_actions
from islands.atrapos.controller import IntervalController
from islands.atrapos.hardware import Hardware
from islands.atrapos.scheme import Scheme
from islands.atrapos.search import DEFAULT_MIN_GAIN, Plan, choose_scheme
from islands.atrapos.workload import WorkloadStats

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
    ) -> None:
        if not min_gain >= 0:
            raise ValueError(f"min_gain: {min_gain} must be non-negative")
        self.controller = controller or IntervalController()
        self.min_gain = float(min_gain)
        self.sync_weight = float(sync_weight)
        self._forced = False

    def hardware_changed(self) -> None:
        """Evaluate the model at the end of the current interval."""
        self._forced = True

    def end_of_interval(
        self, tps: float, statistics: Callable[[], tuple[Scheme, WorkloadStats] | None], hardware: Hardware
    ) -> Decision:
        """The interval that just ended ran at ``tps``; ``statistics()`` gives the current
        scheme and the interval's statistics (called only to evaluate the model), or None when
        the interval's statistics cannot be used (then nothing is decided: evaluated, no plan)."""
        evaluate = self.controller.observe(tps, force=self._forced)
        self._forced = False
        if not evaluate:
            return Decision(False, None, False, (), self.controller.interval_s)
        read = statistics()
        if read is None:
            self.controller.evaluated(False)
            return Decision(True, None, False, (), self.controller.interval_s)
        current, workload = read
        plan = choose_scheme(current, workload, hardware, self.sync_weight)
        repartition = plan.worth_it(self.min_gain)
        self.controller.evaluated(repartition)
        actions = tuple(repartition_actions(current, plan.scheme)) if repartition else ()
        return Decision(True, plan, repartition, actions, self.controller.interval_s)
