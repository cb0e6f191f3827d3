"""The drain watchdog of PLP re-partitioning (exec/plp/plp_drain_watch.hpp; issue 17's unexplained
stall): a drain waiting past 1 s dumps what it waits on into the run's result
(``instances[i]["repartitioning"]["stall"]``, one warning line) and into the controller's log
(``plp_apply``'s ``stall``). The dump itself is tested in C++ (csrc/tests/
test_plp_drain_watch.cpp: fake workers withholding their acknowledgements); here: a real run
that re-partitions all the time carries no dump, and a dump in the engine's statistics
becomes one warning line."""

from __future__ import annotations

import pytest

import islands
from islands.atrapos.adaptive_loop import AdaptiveLoop
from islands.atrapos.controller import IntervalController
from islands.atrapos.live import Event, run_live
from islands.config.settings import DriverConfig, EngineConfig, RunConfig, TatpConfig
from islands.execution.run_result import drain_stall_warnings
from small_workloads import small_sections

CPUS = islands.read_topology().cpus
pytestmark = pytest.mark.usefixtures("private_run_root")
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs")


@two_cpus
def test_a_run_that_repartitions_all_the_time_carries_no_dump():
    config = RunConfig(
        workload="micro",
        **small_sections("micro", 0.5),
        engine=EngineConfig(execution="plp", plp_reshuffle_s=0.002),
        driver=DriverConfig(cpus=tuple(CPUS[:2]), warmup_s=0.02, duration_s=0.3),
    )
    result = islands.run(config)
    moves = result.instances[0]["repartitioning"]
    assert moves["repartitions"] > 0, moves
    assert moves["stalls"] == 0 and moves["stall"] == "", moves["stall"]
    assert not [w for w in result.warnings if "drain stall" in w]
    assert "drain stall" not in result.summary()


@two_cpus
def test_the_controllers_repartitions_carry_an_empty_stall():
    config = RunConfig(
        workload="tatp",
        tatp=TatpConfig(subscribers_per_site=5000, mix="get_subscriber_data", id_draw="uniform"),
        engine=EngineConfig(execution="plp", plp_monitor=True),
        driver=DriverConfig(cpus=tuple(CPUS[:2]), warmup_s=0.05, duration_s=1.2),
    )
    loop = AdaptiveLoop(IntervalController(min_interval_s=0.15, max_interval_s=1.2))
    skew = Event(0.3, "skew", settings=(("hot_fraction", 0.2), ("hot_share", 0.9)))
    result, log = run_live(config, adaptive=True, events=[skew], loop=loop)
    assert result.check_failures == []
    for r in log.repartitions:  # the controller may or may not re-partition in so short a run
        assert r["stall"] == "", r["stall"]
    assert result.instances[0]["repartitioning"]["stall"] == ""


def test_a_dump_becomes_one_warning_line():
    dump = (
        "plp drain stall: waited 1.00 s for the workers to acknowledge routing version 7 "
        "(round 1 of 2, 3 units frozen)\n"
        "  worker 1: acknowledged 6, NOT 7; has not looked at version 7\n"
        "drain completed after 1.500 s in all\n"
    )
    assert drain_stall_warnings({"stalls": 0, "stall": ""}) == []
    assert drain_stall_warnings({}) == []
    [line] = drain_stall_warnings({"stalls": 2, "stall": dump}, "instance 0: ")
    assert line.startswith("instance 0: plp drain stall: waited 1.00 s") and "routing version 7" in line
    assert "(2 re-partitionings stalled)" in line and "\n" not in line
