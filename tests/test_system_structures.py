"""The system structures (engine.system_structures, paper 002 Sec IV): the active-transaction
list and system-state lock that every transaction of the shared-everything and the PLP worker
holds, centralized (one for all workers, kept by socket 0) or per socket. In the test mode
(engine.test_count_cross_socket) each worker counts its accesses to a part another socket keeps:
per socket the critical path makes none; centralized, every transaction of a worker off socket 0
makes at least four. On every topology fixture (its sockets; a one-socket one regrouped into
virtual sockets), with the workers on CPUs of different sockets (unpinned: the fixtures'
CPUs are not this machine's) and two sharing a socket; and on this machine's own cores
regrouped into virtual sockets."""

from __future__ import annotations

from pathlib import Path

import pytest

import islands
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig, TatpConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from islands.machine.topology import Topology, read_topology
from islands.machine.virtual_topology import virtual_sockets

SYSFS = Path(__file__).resolve().parent / "fixtures" / "sysfs"
FIXTURES = sorted(p.name for p in SYSFS.iterdir() if p.is_dir())
EXECUTIONS = ("shared_everything", "plp")
LAYOUTS = ("centralized", "per_socket")


def _workers(topology: Topology) -> list[int]:
    """One CPU on each of the first three sockets, and a second CPU on socket 0 where it has one."""
    cpus = [sock.cores[0].cpus[0] for sock in topology.sockets[:3]]
    second = [core.cpus[0] for core in topology.sockets[0].cores[1:2]]
    return [*cpus[:1], *second, *cpus[1:]]


def _run(topology: Topology, cpus: list[int], execution: str, layout: str, pinned: bool, workload: str = "micro"):
    engine = EngineConfig(cc="2pl", execution=execution, system_structures=layout, test_count_cross_socket=True)
    driver = DriverConfig(cpus=tuple(cpus), warmup_s=0.05, duration_s=0.15)
    if workload == "tatp":
        tatp = TatpConfig(subscribers_per_site=2000, id_draw="uniform")
        config = RunConfig(workload="tatp", tatp=tatp, engine=engine, driver=driver)
    else:
        micro = MicroConfig(rows_per_txn=2, update=True)
        config = RunConfig(workload="micro", micro=micro, engine=engine, driver=driver)
    deployment = plan_deployment(topology, 1, placement="islands" if pinned else "os", cpus=cpus)
    result = run_deployment(deployment, config, transport="none", topology=topology)
    assert result.check_failures == [] and result.commits > 0, (result.stopped_early, result.warnings)
    return result


def _check(result, topology: Topology, cpus: list[int], layout: str) -> None:
    counted = result.instances[0]["cross_socket_accesses"]
    if layout == "per_socket":
        assert counted == 0
        return
    # Centralized: the one part is socket 0's; each measured commit of a worker elsewhere took
    # it shared, linked and unlinked its entry, and released it (warm-up's count on top).
    off = sum(w.commits for w in result.workers if topology.socket_of(cpus[w.site]) != 0)
    assert off > 0 and counted >= 4 * off


# Every fixture's sockets once, under the two executions in turn (each on half the fixtures);
# the other execution on each fixture, slow: the socket a CPU belongs to is the fixture's, the
# structures' paths the execution's, and test_virtual_sockets_here_pinned runs both here.
@pytest.mark.parametrize(
    "execution, fixture",
    [
        pytest.param(execution, fixture, marks=() if EXECUTIONS[i % 2] == execution else pytest.mark.slow)
        for execution in EXECUTIONS
        for i, fixture in enumerate(FIXTURES)
    ],
)
def test_per_socket_structures_are_never_touched_across_sockets(fixture, execution, private_run_root):
    topology = read_topology(SYSFS / fixture)
    if topology.n_sockets == 1:
        topology = virtual_sockets(topology, 2)
    cpus = _workers(topology)
    assert len({topology.socket_of(c) for c in cpus}) >= 2
    for layout in LAYOUTS:
        _check(_run(topology, cpus, execution, layout, pinned=False), topology, cpus, layout)


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_virtual_sockets_here_pinned(execution, private_run_root):
    here = read_topology()
    if here.n_cores < 2:
        pytest.skip("one core: no second virtual socket")
    topology = virtual_sockets(here, 2)
    cpus = [topology.sockets[0].cpus[0], topology.sockets[1].cpus[0]]
    for layout in LAYOUTS:
        for workload in ("micro", "tatp"):
            _check(_run(topology, cpus, execution, layout, pinned=True, workload=workload), topology, cpus, layout)


def test_one_socket_makes_no_cross_socket_access_either_way(private_run_root):
    here = read_topology()
    cpus = list(here.cpus[:2])
    one = virtual_sockets(here, 1)
    for layout in LAYOUTS:
        result = _run(one, cpus, "shared_everything", layout, pinned=True)
        assert result.instances[0]["cross_socket_accesses"] == 0


def test_bad_settings_are_named():
    with pytest.raises(islands.ConfigError, match="engine.system_structures"):
        RunConfig(engine=EngineConfig(system_structures="mesh")).to_core()
    with pytest.raises(islands.ConfigError, match="engine.cross_socket_delay_ns"):
        RunConfig(engine=EngineConfig(cross_socket_delay_ns=-1.0)).to_core()
