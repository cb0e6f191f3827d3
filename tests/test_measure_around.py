"""islands.measure.system_state.measure_around (issue 45): what a sweep's row records around a
run (steal, load, other processes' CPU) plus the cross-core round trip just before and after,
around any callable, so that one ``islands run --json`` can carry it too."""

from __future__ import annotations

import math
import os

import pytest

from islands.measure.system_state import measure_around


def test_the_state_around_a_callable_has_steal_load_and_the_round_trips() -> None:
    calls: list[str] = []
    trips = iter([(800.0, "CPUs 0 and 1"), (1200.0, "CPUs 0 and 1")])

    def trip(seconds: float) -> tuple[float, str]:
        calls.append("trip")
        return next(trips)

    def run() -> dict[str, int]:
        calls.append("run")
        return {"commits": 7}

    result, state = measure_around(run, trip=trip)
    assert result == {"commits": 7} and calls == ["trip", "run", "trip"]  # the trips are outside the run
    assert {"steal_share", "load_avg_1m", "other_cpu_share", "busy"} <= set(state)
    assert state["cross_core_round_trip_ns_before"] == 800.0 and state["cross_core_round_trip_ns_after"] == 1200.0
    assert state["cross_core_round_trip_ns"] == 1000.0 and state["cross_core_pair"] == "CPUs 0 and 1"


def test_a_round_trip_that_cannot_run_says_why() -> None:
    _, state = measure_around(lambda: None, trip=lambda s: (math.nan, "one CPU: no pair to measure"))
    assert math.isnan(state["cross_core_round_trip_ns"]) and state["cross_core_pair"] == "one CPU: no pair to measure"
    seen = iter([(math.nan, "the ring could not run"), (500.0, "CPUs 2 and 3")])
    _, half = measure_around(lambda: None, trip=lambda seconds: next(seen))
    assert half["cross_core_round_trip_ns"] == 500.0 and half["cross_core_pair"] == "CPUs 2 and 3"
    _, none = measure_around(lambda: None, round_trip=False)
    assert "cross_core_round_trip_ns" not in none and "steal_share" in none


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one CPU: no cross-core round trip")
def test_the_real_round_trip_is_measured_on_two_cpus() -> None:
    _, state = measure_around(lambda: sum(range(1000)), round_trip_s=0.01)
    value = state["cross_core_round_trip_ns"]
    assert value > 0 or state["cross_core_pair"].startswith("the ring could not run")
