"""A run's profile for real: software counters against perf stat, missing hardware counters
as NaN with their reason, and the component breakdown adding up to the measured time."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import textwrap

import pytest

import islands
from islands.config import DriverConfig, EngineConfig, MicroConfig, ProfileConfig, RunConfig
from islands.placement import plan_deployment

#: The breakdown of a run timing every transaction covers the workers' measured window to
#: within this fraction (what is left out: the loop's phase check between transactions, and
#: the last transaction cut by the end of the window).
BREAKDOWN_TOLERANCE = 0.06

# Opens the software counters in this thread around a workload of size N: N fresh pages
# touched (page faults), N/50 sleeps (context switches), N*200 loop iterations (CPU time).
SOFTWARE_PROBE = textwrap.dedent("""
    import json, mmap, sys, time
    from islands import _core
    n = int(sys.argv[1])
    names = {"task_clock": 1, "page_faults": 2, "context_switches": 3}
    counters = _core.PerfCounters([_core.PerfEventSpec(k, 1, v) for k, v in names.items()])
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
    print(json.dumps({r["name"]: r["value"] for r in counters.read()}))
""")

PERF_EVENTS = {"task-clock": "task_clock", "page-faults": "page_faults", "context-switches": "context_switches"}


def _under_perf_stat(n: int) -> tuple[dict[str, float], dict[str, float]]:
    done = subprocess.run(["perf", "stat", "-x", ",", "-e", ",".join(PERF_EVENTS), "--",
                           sys.executable, "-c", SOFTWARE_PROBE, str(n)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    ours = json.loads(done.stdout.strip().splitlines()[-1])
    theirs = {}
    for line in done.stderr.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2] in PERF_EVENTS:
            value = float(fields[0])
            theirs[PERF_EVENTS[fields[2]]] = value * 1e6 if fields[1] == "msec" else value
    return ours, theirs


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed (make install adds linux-perf)")
def test_software_counters_agree_with_perf_stat():
    # perf stat counts the whole process (interpreter start-up included); the engine's
    # counters only the window. What the larger workload adds must agree.
    small_ours, small_perf = _under_perf_stat(1_000)
    big_ours, big_perf = _under_perf_stat(20_000)
    for name in PERF_EVENTS.values():
        ours = big_ours[name] - small_ours[name]
        theirs = big_perf[name] - small_perf[name]
        assert theirs > 0, name
        # within 15% of perf stat's difference, plus a little start-up noise
        slack = {"task_clock": 0.15 * theirs + 30e6, "page_faults": 0.15 * theirs + 300,
                 "context_switches": 0.15 * theirs + 40}[name]
        assert abs(ours - theirs) <= slack, (name, ours, theirs)
    assert big_ours["page_faults"] >= 19_000 * 0.9  # fresh pages really fault
    assert big_ours["context_switches"] >= 400 * 0.9  # every sleep switches


def _config(**profile) -> RunConfig:
    return RunConfig(micro=MicroConfig(rows_per_site=2000),
                     driver=DriverConfig(cpus=(0,), warmup_s=0.1, duration_s=0.5),
                     profile=ProfileConfig(**profile))


def test_missing_counters_are_nan_with_reason_and_software_ones_count():
    result = islands.run(_config(counters=("software", "basic", "uncore")))
    counters, missing = result.profile["counters"], result.metadata.get("counters_missing", {})
    assert counters["task_clock_ns"] > 0.2e9  # a busy worker for most of 0.5 s
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
        RunConfig(profile=ProfileConfig(counters=("nope",))).to_core()
    with pytest.raises(ValueError, match="profile.bogus"):
        RunConfig.from_dict({"profile": {"bogus": 1}})


def _worker_seconds(result) -> float:
    return len(result.config.driver.cpus) * result.measured_s


@pytest.mark.parametrize("update", [False, True])
def test_breakdown_adds_up_to_the_measured_time(update):
    config = RunConfig(micro=MicroConfig(rows_per_site=2000, update=update),
                       driver=DriverConfig(cpus=(0, 1), warmup_s=0.1, duration_s=0.5),
                       profile=ProfileConfig(breakdown_every=1))
    result = islands.run(config)
    b = result.profile["breakdown"]
    timed_s = b["total_us"] * b["timed_txns"] / 1e6
    assert timed_s == pytest.approx(_worker_seconds(result), rel=BREAKDOWN_TOLERANCE)
    assert b["total_us"] == pytest.approx(sum(v for k, v in b.items() if k.endswith("_us") and k != "total_us"))
    assert b["execution_us"] > 0 and b["locking_us"] > 0 and b["management_us"] > 0
    assert b["communication_us"] == 0 and b["logging_us"] == 0  # one instance sends nothing


@pytest.mark.parametrize("transport", ["unix", "shm"])
def test_distributed_breakdown_adds_up_and_shows_communication(transport):
    topology = islands.read_topology()
    if len(topology.cpus) < 2:
        pytest.skip("two instances need two CPUs")
    deployment = plan_deployment(topology, "per-core", "islands", cpus=tuple(topology.cpus[:2]))
    config = RunConfig(micro=MicroConfig(rows_per_site=2000, multisite=1.0, update=True),
                       engine=EngineConfig(lock_policy="no_wait"),
                       driver=DriverConfig(cpus=deployment.cpus, warmup_s=0.1, duration_s=0.5),
                       profile=ProfileConfig(breakdown_every=1, counters=("software",)))
    result = islands.run_deployment(deployment, config, transport)
    b = result.profile["breakdown"]
    timed_s = b["total_us"] * b["timed_txns"] / 1e6
    assert timed_s == pytest.approx(2 * result.measured_s, rel=BREAKDOWN_TOLERANCE)
    assert b["communication_us"] > b["locking_us"] > 0  # a distributed update waits for votes
    assert result.to_dict()["breakdown"] == b
    assert result.profile["counters"]["task_clock_ns"] > 0


def test_sampled_breakdown_times_a_fraction():
    result = islands.run(_config(breakdown_every=8))
    b = result.profile["breakdown"]
    assert 0 < b["timed_txns"] <= result.commits / 8 + 2
    assert b["total_us"] > 0
