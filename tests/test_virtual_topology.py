"""Virtual topologies (islands.machine.virtual_topology): the real cores regrouped into made-up
sockets, on every sysfs fixture and on this machine; the CLI's --virtual-sockets; results and
figures that say a topology is virtual."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from islands.analysis.store import flatten
from islands.machine.placement import plan_deployment
from islands.machine.topology import Topology, TopologyError, read_topology
from islands.machine.virtual_topology import virtual_sockets
from islands.plots._common import machine_note

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
FIXTURES = sorted(p.name for p in SYSFS.iterdir() if p.is_dir())


#: The 192-core machine's every count takes 18 s: under make test-slow; the others cover the rule.
LARGEST = "xeon-platinum-8160-8x24"


@pytest.mark.parametrize("fixture", [pytest.param(f, marks=pytest.mark.slow) if f == LARGEST else f for f in FIXTURES])
def test_every_count_of_virtual_sockets_partitions_the_cores_evenly(fixture):
    real = read_topology(SYSFS / fixture)
    cores = [c.cpus for s in real.sockets for c in s.cores]
    for n in range(1, len(cores) + 1):
        v = virtual_sockets(real, n, remote_distance=31)
        assert v.n_sockets == n == v.n_numa_nodes and v.cpus == real.cpus and v.caches == real.caches
        # Whole cores, consecutive in the real order, sizes within one of each other.
        assert [c.cpus for s in v.sockets for c in s.cores] == cores
        sizes = [len(s.cores) for s in v.sockets]
        assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)
        for s in v.sockets:
            assert v.numa_node(s.id).cpus == s.cpus and [c.id for c in s.cores] == list(range(len(s.cores)))
        assert all(v.distance(a, b) == (10 if a == b else 31) for a in range(n) for b in range(n))
        assert v.virtual.startswith(f"{n} made-up sockets over the {len(cores)} cores") and not real.virtual
        assert Topology.from_dict(v.to_dict()) == v and Topology.from_dict(v.to_dict()).virtual == v.virtual
        assert "VIRTUAL" in v.describe().splitlines()[0]


def test_a_virtual_topology_plans_per_socket_islands():
    v = virtual_sockets(read_topology(SYSFS / "xeon-e7l8867-8x10"), 4)
    deployment = plan_deployment(v, "per-socket")
    # per-socket takes one hardware thread per core
    assert deployment.n_instances == 4 and [len(i) for i in deployment.instances] == [20, 20, 20, 20]


def test_older_topology_dicts_read_as_real_machines():
    d = read_topology(SYSFS / "vm-1x2").to_dict()
    del d["virtual"]
    assert Topology.from_dict(d).virtual == ""


@pytest.mark.parametrize(
    "n,distance,needle", [(0, 20, "--virtual-sockets"), (3, 20, "--virtual-sockets"), (2, 10, "--virtual-distance")]
)
def test_bad_virtual_topologies_are_refused_naming_the_flag(n, distance, needle):
    with pytest.raises(TopologyError, match=needle):
        virtual_sockets(read_topology(SYSFS / "vm-1x2"), n, distance)


def test_figures_say_the_topology_is_virtual():
    v = virtual_sockets(read_topology(SYSFS / "vm-1x2"), 2)
    rows = pd.DataFrame([flatten({"topology": v.to_dict()})])
    assert "VIRTUAL sockets" in machine_note(rows)
    real = pd.DataFrame([flatten({"topology": read_topology(SYSFS / "vm-1x2").to_dict()})])
    assert "VIRTUAL" not in machine_note(real)


def test_the_cli_plans_and_runs_on_virtual_sockets(cli_here):
    here = read_topology()
    out = cli_here("topology", "--virtual-sockets", str(here.n_cores + 1))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and "--virtual-sockets" in out.stderr
    out = cli_here("topology", "--virtual-distance", "30")
    assert out.returncode == 2 and "only with --virtual-sockets" in out.stderr
    out = cli_here("topology", "--sysfs", str(SYSFS / "xeon-e5-2640v2-2x8"), "--virtual-sockets", "4", "--json")
    assert out.returncode == 0 and len(json.loads(out.stdout)["sockets"]) == 4
    if here.n_cores < 2:
        pytest.skip("one core: no second virtual socket to run on")
    args = ("run", "--virtual-sockets", "2", "--deployment", "per-socket", "--duration", "0.2", "--warmup", "0.05")
    out = cli_here(*args, "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["deployment"]["label"] == "2ISL" and result["topology"]["virtual"]
    assert any(w.startswith("virtual topology: 2 made-up sockets") for w in result["warnings"])


def test_an_experiment_file_plans_on_virtual_sockets(tmp_path):
    from islands.experiments.spec import ExperimentSpec
    from islands.experiments.sweep import Sweep

    base = {
        "name": "v",
        "figure": "none",
        "grid": {"deployment": ["per-socket"]},
        "engine": {"lock_policy": "no_wait"},
    }
    spec = ExperimentSpec.from_dict({**base, "run": {"virtual_sockets": 2}})
    again = ExperimentSpec.from_dict(spec.to_dict())
    assert again.virtual_sockets == 2 and again.spec_hash() == spec.spec_hash()
    assert spec.spec_hash() != ExperimentSpec.from_dict(base).spec_hash()
    sweep = Sweep(spec, read_topology(SYSFS / "xeon-e5-2640v2-2x8"), tmp_path / "out")
    assert sweep.topology.n_sockets == 2 and sweep.topology.virtual
    sweep = Sweep(
        ExperimentSpec.from_dict({**base, "run": {"virtual_sockets": 4}}),
        read_topology(SYSFS / "xeon-e5-2640v2-2x8"),
        tmp_path / "o4",
    )
    assert [len(p.deployment.instances) for p in sweep.grid_points] == [4]
    with pytest.raises(ValueError, match="run.virtual_sockets"):
        ExperimentSpec.from_dict({**base, "run": {"virtual_sockets": 0}})


@pytest.mark.parametrize("transport", ["unix", "shm"])
def test_an_injected_delay_holds_every_message_between_virtual_sockets(transport, private_run_root):
    from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig
    from islands.execution.launcher import run_deployment

    here = read_topology()
    if here.n_cores < 2:
        pytest.skip("one core: no second virtual socket")
    config = RunConfig(
        micro=MicroConfig(multisite=1.0),
        engine=EngineConfig(cc="none"),
        driver=DriverConfig(cpus=here.cpus[:2], warmup_s=0.05, duration_s=0.3),
    )
    delay_us = 300.0
    slow = virtual_sockets(here, 2, message_delay_us=delay_us)
    deployment = plan_deployment(slow, "per-socket", cpus=here.cpus[:2])
    result = run_deployment(deployment, config, transport=transport, topology=slow)
    assert result.check_failures == [] and result.multisite_commits > 0
    for instance in result.instances:
        # Every message came from the other virtual socket, and every one was held.
        assert instance["messages_delayed"] == instance["messages_received"] > 0
    # A distributed transaction waits for a fragment's answer: at least one delay each way.
    assert result.latency.p50_us >= 2 * delay_us
    assert any("us injected on every message" in w for w in result.warnings)
    # Without the delay nothing is held.
    plain = virtual_sockets(here, 2)
    result = run_deployment(deployment, config, transport=transport, topology=plain)
    assert all(i["messages_delayed"] == 0 for i in result.instances) and result.multisite_commits > 0


def test_a_delay_needs_virtual_sockets_and_a_sane_value(cli_here):
    with pytest.raises(TopologyError, match="--virtual-delay-us"):
        virtual_sockets(read_topology(SYSFS / "vm-1x2"), 2, message_delay_us=-1)
    out = cli_here("topology", "--virtual-delay-us", "5")
    assert out.returncode == 2 and "--virtual-delay-us: only with --virtual-sockets" in out.stderr
    out = cli_here("topology", "--virtual-sockets", "2", "--virtual-delay-us", "5")
    assert out.returncode == 0 and "injected delay: 5 us" in out.stdout
