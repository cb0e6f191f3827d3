"""An interval's costs put on equal CPU time per worker (islands/atrapos/cpu_share.py)."""

from __future__ import annotations

import numpy as np
import pytest

from islands.atrapos.cpu_share import MIN_CPU_SHARE, equal_cpu_costs

OWNERS = [0] * 10 + [1] * 10
BOTH = np.array([True, True])


def snapshot(cost0: float, cost1: float) -> dict:
    return {"cost": np.array([[cost0] * 10, [cost1] * 10]), "actions": np.ones((2, 10))}


def test_a_worker_given_less_cpu_is_costed_as_if_it_had_its_share():
    # Same work per CPU second on both; worker 1 had 60% of worker 0's CPU time.
    fair = equal_cpu_costs(snapshot(100.0, 60.0), OWNERS, [1.0e9, 0.6e9], BOTH)
    assert fair is not None
    assert fair["cost"][0] == pytest.approx(fair["cost"][1])
    assert fair["actions"] is not None  # the rest of the snapshot is kept


def test_a_real_imbalance_stays_when_cpu_was_equal():
    fair = equal_cpu_costs(snapshot(100.0, 40.0), OWNERS, [1.0e9, 1.0e9], BOTH)
    assert fair is not None and fair["cost"][0, 0] == pytest.approx(100.0) and fair["cost"][1, 0] == pytest.approx(40.0)


def test_a_starved_worker_makes_the_interval_unusable_unless_its_core_was_taken_away():
    assert equal_cpu_costs(snapshot(100.0, 1.0), OWNERS, [1.0e9, 0.1e9], BOTH) is None
    assert MIN_CPU_SHARE > 0.1
    parked = equal_cpu_costs(snapshot(100.0, 1.0), OWNERS, [1.0e9, 0.01e9], np.array([True, False]))
    assert parked is not None and parked["cost"][1, 0] == pytest.approx(1.0)  # left as measured


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="owners"):
        equal_cpu_costs(snapshot(1.0, 1.0), OWNERS[:10], [1.0, 1.0], BOTH)
    with pytest.raises(ValueError, match="cpu_ns"):
        equal_cpu_costs(snapshot(1.0, 1.0), OWNERS, [1.0, -1.0], BOTH)
    with pytest.raises(ValueError, match="cpu_ns"):
        equal_cpu_costs(snapshot(1.0, 1.0), OWNERS, [1.0], BOTH)
