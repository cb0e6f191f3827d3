"""Where instances allocate (islands.machine.memory_placement, paper 002 Table 1): the plan on made-up
machines of 1 to 8 nodes, and real runs here (one node) under each policy it can give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig
from islands.execution.launcher import run_deployment
from islands.machine.memory_placement import memory_nodes
from islands.machine.placement import plan_deployment
from islands.machine.topology import read_topology
from islands.machine.virtual_topology import virtual_sockets

SYSFS = Path(__file__).resolve().parent / "fixtures" / "sysfs"


def test_two_sockets_local_central_remote() -> None:
    topo = read_topology(SYSFS / "xeon-e5-2640v2-2x8")
    per_socket = plan_deployment(topo, "per-socket")
    assert memory_nodes(topo, per_socket, "local") == [[0], [1]]
    assert memory_nodes(topo, per_socket, "central") == [[0], [0]]
    assert memory_nodes(topo, per_socket, "remote") == [[1], [0]]
    # an instance over both sockets has no remote node of its own
    with pytest.raises(ValueError, match=r"memory: remote needs each instance on one NUMA node; instance 0 spans"):
        memory_nodes(topo, plan_deployment(topo, 1), "remote")
    assert memory_nodes(topo, plan_deployment(topo, 1), "local") == [[0, 1]]


def test_remote_is_a_permutation_of_the_nodes_on_eight_sockets() -> None:
    topo = read_topology(SYSFS / "xeon-e7l8867-8x10")
    per_core = plan_deployment(topo, "per-core")
    local = memory_nodes(topo, per_core, "local")
    remote = memory_nodes(topo, per_core, "remote")
    assert local is not None and remote is not None
    assert all(r != own for r, own in zip(remote, local))
    per_socket = memory_nodes(topo, plan_deployment(topo, "per-socket"), "remote")
    assert per_socket is not None and sorted(n for (n,) in per_socket) == list(range(8))


def test_one_node_unpinned_virtual_and_unknown() -> None:
    vm = read_topology(SYSFS / "vm-1x2")
    per_core = plan_deployment(vm, "per-core")
    assert memory_nodes(vm, per_core, "local") is None  # nothing to choose
    assert memory_nodes(vm, per_core, "central") == [[0], [0]]
    with pytest.raises(ValueError, match="memory: remote needs two NUMA nodes; this machine has one"):
        memory_nodes(vm, per_core, "remote")
    with pytest.raises(ValueError, match=r"memory: unknown policy 'far' \(choose local, central, remote\)"):
        memory_nodes(vm, per_core, "far")
    two = read_topology(SYSFS / "xeon-e5-2640v2-2x8")
    unpinned = plan_deployment(two, "per-socket", placement="os")
    assert memory_nodes(two, unpinned, "local") is None
    virtual = virtual_sockets(vm, 2)
    assert memory_nodes(virtual, plan_deployment(virtual, "per-socket"), "local") is None
    with pytest.raises(ValueError, match="memory: central needs real NUMA nodes; this topology's are VIRTUAL"):
        memory_nodes(virtual, plan_deployment(virtual, "per-socket"), "central")


def test_a_central_deployment_runs_bound_to_the_first_node(private_run_root) -> None:
    topo = read_topology()
    config = RunConfig(
        micro=MicroConfig(rows_per_site=2000),
        engine=EngineConfig(cc="none"),
        driver=DriverConfig(warmup_s=0.0, duration_s=0.1),
    )
    result = run_deployment(plan_deployment(topo, "per-core"), config, "unix", topo, memory="central")
    first = topo.numa_nodes[0].id
    assert [i["memory_nodes"] for i in result.instances] == [[first]] * topo.n_cores
    assert result.commits > 0 and not result.warnings
    local = run_deployment(plan_deployment(topo, "per-core"), config, "unix", topo)
    expected = None if topo.n_numa_nodes == 1 else [[topo.numa_node_of(c)] for c in topo.cpus[: topo.n_cores]]
    assert [i["memory_nodes"] for i in local.instances] == (expected or [None] * topo.n_cores)


def test_the_command_line_takes_a_policy(cli_here) -> None:
    done = cli_here(
        "run",
        "--deployment",
        "per-core",
        "--memory",
        "central",
        "--duration",
        "0.1",
        "--rows-per-site",
        "2000",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    assert {str(i["memory_nodes"]) for i in json.loads(done.stdout)["instances"]} == {"[0]"}
    if read_topology().n_numa_nodes == 1:
        bad = cli_here("run", "--deployment", "per-core", "--memory", "remote", "--duration", "0.1")
        assert bad.returncode == 2
        assert bad.stderr.strip().splitlines() == [
            "islands: error: memory: remote needs two NUMA nodes; this machine has one"
        ]
