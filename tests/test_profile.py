"""A run's profile for real: software counters against perf stat, missing hardware counters
as NaN with their reason, and the component breakdown adding up to the measured time."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import islands
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, ProfileConfig, RunConfig
from islands.execution.in_process import profile_events
from islands.machine.placement import plan_deployment

#: The breakdown of a run timing every transaction covers each worker's own measured window
#: (from when it saw the window open to when it saw it close) to within this fraction: what
#: is left out is the loop's phase check between transactions.
BREAKDOWN_TOLERANCE = 0.04

# Opens the software counters in this thread around a workload of size N: N fresh pages
# touched (page faults), N/50 sleeps (context switches), N*200 loop iterations (CPU time).
# It says "ready" once imported, runs the workload on "go", prints its counts, exits on EOF.
SOFTWARE_PROBE = textwrap.dedent("""
    import json, mmap, sys, time
    from islands import _core
    n = int(sys.argv[1])
    names = {"task_clock": 1, "page_faults": 2, "context_switches": 3}
    counters = _core.PerfCounters([_core.PerfEventSpec(k, 1, v) for k, v in names.items()])
    print("ready", flush=True)
    sys.stdin.readline()
    counters.enable()
    m = mmap.mmap(-1, n * 4096)
    for i in range(0, n * 4096, 4096):
        m[i] = 1
    for _ in range(n // 50):
        time.sleep(0.0002)
    x = 0
    for i in range(n * 200):
        x += i
    counters.disable()
    print(json.dumps({r["name"]: r["value"] for r in counters.read()}), flush=True)
    sys.stdin.readline()
""")

PERF_EVENTS = {"task-clock": "task_clock", "page-faults": "page_faults", "context-switches": "context_switches"}


def _with_perf_stat_attached(n: int) -> tuple[dict[str, float], dict[str, float]]:
    """Our counts of the workload, and perf stat's of the whole process attached around it
    (perf stat -p from before "go" to after the counts are printed)."""
    probe = subprocess.Popen(
        [sys.executable, "-c", SOFTWARE_PROBE, str(n)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    perf = None
    try:
        assert probe.stdout.readline().strip() == "ready"
        perf = subprocess.Popen(
            ["perf", "stat", "-x", ",", "-e", ",".join(PERF_EVENTS), "-p", str(probe.pid)],
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(1.0)  # perf stat attaches; the probe sleeps in readline meanwhile
        probe.stdin.write("go\n")
        probe.stdin.flush()
        ours = json.loads(probe.stdout.readline())
        perf.send_signal(signal.SIGINT)
        _, err = perf.communicate(timeout=30)
        probe.stdin.close()
        probe.wait(timeout=30)
    finally:
        for proc in (probe, perf):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        probe.stdout.close()
        if not probe.stdin.closed:
            probe.stdin.close()
    theirs = {}
    for line in err.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2] in PERF_EVENTS:
            value = float(fields[0])
            theirs[PERF_EVENTS[fields[2]]] = value * 1e6 if fields[1] == "msec" else value
    assert set(theirs) == set(PERF_EVENTS.values()), err
    return ours, theirs


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed (make tools adds linux-perf)")
def test_software_counters_agree_with_perf_stat():
    # perf stat counts the whole process while attached, a little more than our window
    # (the "go" handshake): ours must be within it and not far below it.
    ours, theirs = _with_perf_stat_attached(20_000)
    slack = {
        "task_clock": 0.05 * theirs["task_clock"] + 20e6,
        "page_faults": 0.05 * theirs["page_faults"] + 100,
        "context_switches": 0.05 * theirs["context_switches"] + 20,
    }
    for name in PERF_EVENTS.values():
        assert ours[name] <= theirs[name] * 1.001 + 1, (name, ours[name], theirs[name])
        assert theirs[name] - ours[name] <= slack[name], (name, ours[name], theirs[name])
    assert ours["page_faults"] >= 20_000 * 0.9  # fresh pages really fault
    assert ours["context_switches"] >= 400 * 0.9  # every sleep switches
    assert ours["task_clock"] > 0.05e9


def _config(**profile) -> RunConfig:
    return RunConfig(
        micro=MicroConfig(rows_per_site=2000),
        driver=DriverConfig(cpus=(0,), warmup_s=0.1, duration_s=0.5),
        profile=ProfileConfig(**profile),
    )


def test_missing_counters_are_nan_with_reason_and_software_ones_count():
    result = islands.run(_config(counters=("software", "basic", "uncore")))
    counters, missing = result.profile["counters"], result.metadata.get("counters_missing", {})
    # a thread runs at most the wall time of its window (the machine is shared: maybe less)
    assert 0 < counters["task_clock_ns"] <= result.measured_s * 1e9 * 1.05 + 50e6
    assert result.profile["counters_running"]["task_clock_ns"] == pytest.approx(1.0)
    for metric in ("cycles", "instructions", "imc_reads"):
        if math.isnan(counters[metric]):
            assert missing[metric], metric  # a NaN always has its reason
        else:
            assert metric not in missing
    row = result.to_dict()
    assert set(row["counters"]) >= {"task_clock_ns", "cycles", "imc_reads"}
    assert "ipc" in row["metrics"]
    assert "no counter" in result.summary() or not missing


def test_unprofiled_config_keeps_its_hash_and_round_trips():
    plain = RunConfig()
    assert "profile" not in plain.to_dict()
    profiled = RunConfig(profile=ProfileConfig(counters=("software",), breakdown_every=4))
    assert profiled.config_hash() != plain.config_hash()
    assert RunConfig.from_dict(json.loads(json.dumps(profiled.to_dict()))) == profiled
    with pytest.raises(ValueError, match="breakdown_every"):
        RunConfig(profile=ProfileConfig(breakdown_every=-1)).to_core()
    with pytest.raises(ValueError, match="counters: unknown event set 'nope'"):
        profile_events(ProfileConfig(counters=("nope",)))
    with pytest.raises(ValueError, match="profile.bogus"):
        RunConfig.from_dict({"profile": {"bogus": 1}})


@pytest.mark.parametrize("update", [False, True])
def test_breakdown_adds_up_to_the_measured_time(update):
    config = RunConfig(
        micro=MicroConfig(rows_per_site=2000, update=update),
        driver=DriverConfig(cpus=(0, 1), warmup_s=0.1, duration_s=0.5),
        profile=ProfileConfig(breakdown_every=1),
    )
    result = islands.run(config)
    b = result.profile["breakdown"]
    assert 1 - BREAKDOWN_TOLERANCE <= b["coverage"] <= 1.0
    assert b["timed_txns"] == pytest.approx(result.commits, abs=len(result.workers))
    assert b["total_us"] == pytest.approx(sum(v for k, v in b.items() if k.endswith("_us") and k != "total_us"))
    assert b["execution_us"] > 0 and b["locking_us"] > 0 and b["management_us"] > 0
    assert b["communication_us"] == 0 and b["logging_us"] == 0  # one instance sends nothing


@pytest.mark.parametrize("transport", ["unix", "shm"])
def test_distributed_breakdown_adds_up_and_shows_communication(transport):
    topology = islands.read_topology()
    if len(topology.cpus) < 2:
        pytest.skip("two instances need two CPUs")
    deployment = plan_deployment(topology, "per-core", "islands", cpus=tuple(topology.cpus[:2]))
    config = RunConfig(
        micro=MicroConfig(rows_per_site=2000, multisite=1.0, update=True),
        engine=EngineConfig(lock_policy="no_wait"),
        driver=DriverConfig(cpus=deployment.cpus, warmup_s=0.1, duration_s=0.5),
        profile=ProfileConfig(breakdown_every=1, counters=("software",)),
    )
    result = islands.run_deployment(deployment, config, transport)
    b = result.profile["breakdown"]
    assert 1 - BREAKDOWN_TOLERANCE <= b["coverage"] <= 1.0
    assert b["communication_us"] > b["locking_us"] > 0  # a distributed update waits for votes
    assert result.to_dict()["breakdown"] == b
    assert result.profile["counters"]["task_clock_ns"] > 0


def test_sampled_breakdown_times_a_fraction():
    result = islands.run(_config(breakdown_every=8))
    b = result.profile["breakdown"]
    assert 0 < b["timed_txns"] <= result.commits / 8 + 2
    assert b["total_us"] > 0
    assert b["coverage"] == pytest.approx(1 / 8, rel=0.5)


def test_summarize_starts_nothing_and_the_run_adds_the_simulation(monkeypatch):
    import islands.measure.cachegrind
    from islands.measure.run_profile import summarize

    started: list[RunConfig] = []

    def fake_simulation(config):
        started.append(config)
        return {"instructions": 1234.0, "reason": ""}

    monkeypatch.setattr(islands.measure.cachegrind, "simulated_profile", fake_simulation)
    config = RunConfig(
        driver=DriverConfig(cpus=(0,), warmup_s=0.0, duration_s=0.1),
        engine=EngineConfig(cc="none"),
        profile=ProfileConfig(breakdown_every=4, simulate=100),
    )
    result = islands.run(config)
    assert started == [config]  # the run started the simulation, once
    assert result.profile["simulated"] == {"instructions": 1234.0, "reason": ""}
    assert result.to_dict()["simulated"]["instructions"] == 1234.0
    # summarize is a function of the run's statistics: it adds no simulation and runs nothing
    started.clear()
    stats = {"workers": [], "commits": 0, "ns_per_tick": 1.0}
    assert "simulated" not in summarize(config, [stats])
    assert summarize(dataclasses.replace(config, profile=ProfileConfig(simulate=100)), [stats]) == {}
    assert started == []
