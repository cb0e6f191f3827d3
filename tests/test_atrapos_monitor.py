"""The engine's ATraPos monitor through Python (_core.AtraposMonitor): its sub-partition cuts
agree with islands.atrapos, a snapshot becomes the scheme and statistics the search takes,
owner threads record while Python's thread snapshots, and bad input is refused."""

from __future__ import annotations

import numpy as np
import pytest

from islands import _core
from islands.atrapos import (
    SUB_PARTITIONS,
    Hardware,
    MonitoredPartition,
    SyncPoint,
    choose_scheme,
    from_monitor,
    split_range,
)


def test_the_engines_cuts_are_the_models():
    ranges = [(0, 35), (35, 1000), (1000, 1013), (5, 2**62 + 3)]
    monitor = _core.AtraposMonitor(ranges)
    assert _core.atrapos_sub_partitions() == SUB_PARTITIONS
    for i, (lo, hi) in enumerate(ranges):
        bounds = split_range(lo, hi, SUB_PARTITIONS)
        assert monitor.bounds(i) == bounds.tolist()
        for sub in range(SUB_PARTITIONS):
            assert monitor.sub_of(i, int(bounds[sub])) == sub
            assert monitor.sub_of(i, int(bounds[sub + 1]) - 1) == sub


def test_a_snapshot_feeds_the_search():
    # Two tables on two cores of two sockets; every B action syncs with an A sub-partition of the
    # other socket, and A's first sub-partitions are hot.
    ranges = [(0, 100), (100, 200), (0, 100), (100, 200)]  # A0, A1, B0, B1
    parts = [
        MonitoredPartition(t, lo, hi, core) for (lo, hi), t, core in zip(ranges, "AABB", (0, 1, 0, 1), strict=True)
    ]
    monitor = _core.AtraposMonitor(ranges)
    for sub in range(SUB_PARTITIONS):
        monitor.record_action(0, sub, 50 if sub < 5 else 10)
        monitor.record_action(1, sub, 10)
        for b, a in ((2, 1), (3, 0)):
            monitor.record_action(b, sub, 10)
            monitor.record_sync(b, sub, a, sub, 16)
    before = monitor.snapshot()
    assert before["actions"].dtype == np.uint64 and before["sync_count"].shape == (4, 10, 4, 10)
    scheme, w = from_monitor(before, parts, n_cores=2)
    assert w.total_cost == 5 * 50 + 35 * 10 and len(w.sync) == 20
    assert w.sync[0] == SyncPoint((("B", 0), ("A", 10)), count=1, size=16)
    plan = choose_scheme(scheme, w, Hardware.from_sockets([1, 1]))
    assert plan.ts_before == pytest.approx(20 * 16 * 2) and plan.ts_after < plan.ts_before
    assert plan.ru_after < plan.ru_before and plan.worth_it()
    # An interval's trace is the difference of two snapshots.
    monitor.record_action(3, 9, 7)
    after = monitor.snapshot()
    delta = {k: after[k] - before[k] for k in after}
    assert delta["actions"].sum() == 1 and delta["cost"][3, 9] == 7


def test_owner_threads_record_while_python_snapshots():
    monitor = _core.AtraposMonitor([(p * 1000, (p + 1) * 1000) for p in range(3)])
    snapshots, monotone = monitor.run_owners(actions=300_000, cost=2, sync_every=3)
    assert monotone
    end = monitor.snapshot()
    assert end["actions"].sum() == 3 * 300_000 and end["cost"].sum() == 2 * 3 * 300_000
    assert end["sync_count"].sum() == 3 * 100_000 and end["sync_bytes"].sum() == 8 * 3 * 100_000
    assert (end["sync_count"].sum(axis=(1, 3)) > 0).tolist() == [
        [False, True, False],
        [False, False, True],
        [True, False, False],
    ]


def test_bad_input_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"ranges\[1\]: partition \[10, 15\): fewer keys than 10"):
        _core.AtraposMonitor([(0, 10), (10, 15)])
    monitor = _core.AtraposMonitor([(0, 10)])
    with pytest.raises(IndexError, match="partition: 1 is not one of the 1 partitions"):
        monitor.record_action(1, 0, 1)
    with pytest.raises(IndexError, match="sub: 10 is not a sub-partition"):
        monitor.record_action(0, 10, 1)
    with pytest.raises(ValueError, match="mode: 'sometimes'"):
        _core.atrapos_monitoring_bench("sometimes", 10)


def test_the_overhead_loop_does_the_same_work_in_every_mode():
    runs = {mode: _core.atrapos_monitoring_bench(mode, 20_000) for mode in ("off", "counts", "timed")}
    assert len({r["checksum"] for r in runs.values()}) == 1
    assert [r["recorded"] for r in runs.values()] == [0, 20_000, 20_000]
