"""One engine instance end to end: isolation, pinning, statistics."""

from __future__ import annotations

import dataclasses
import math

import pytest

import islands
from islands import DriverConfig, EngineConfig, MicroConfig, RunConfig

ONLINE = islands.read_topology().cpus
TWO = ONLINE[:2]
needs_two_cpus = pytest.mark.skipif(len(ONLINE) < 2, reason="needs two online CPUs")


def config(cpus=TWO, duration=0.3, **kwargs) -> RunConfig:
    micro = {k: v for k, v in kwargs.items() if k in {f.name for f in dataclasses.fields(MicroConfig)}}
    engine = {k: v for k, v in kwargs.items() if k in {f.name for f in dataclasses.fields(EngineConfig)}}
    return RunConfig(
        micro=MicroConfig(**micro),
        engine=EngineConfig(**engine),
        driver=DriverConfig(cpus=tuple(cpus), warmup_s=0.05, duration_s=duration),
    )


@needs_two_cpus
@pytest.mark.parametrize("index", ["hash", "btree"])
@pytest.mark.parametrize("policy", ["no_wait", "wait_die"])
def test_2pl_never_loses_an_update(index, policy):
    # 20 rows, every transaction updates 10 of them: the two workers collide constantly.
    result = islands.run(
        config(rows_per_site=10, rows_per_txn=10, update=True, multisite=1.0, index=index, lock_policy=policy)
    )
    checks = result.checks
    assert checks["committed_row_updates"] > 0
    assert checks["payload_sum_after"] - checks["payload_sum_before"] == checks["committed_row_updates"]
    reason = "lock_conflict" if policy == "no_wait" else "wait_die"
    assert result.aborts[reason] > 0, "the workers never conflicted: the test proved nothing"
    assert all(count == 0 for name, count in result.aborts.items() if name != reason)


@needs_two_cpus
def test_reads_change_nothing_and_local_work_never_aborts():
    result = islands.run(config(update=False))
    assert result.checks["payload_sum_after"] == result.checks["payload_sum_before"]
    assert sum(result.aborts.values()) == 0  # local reads: disjoint sites, shared locks
    assert result.commits > 0


@pytest.mark.parametrize("index", ["hash", "btree"])
def test_single_threaded_none_instance(index):
    result = islands.run(config(cpus=ONLINE[:1], cc="none", index=index, update=True, zipf_s=0.9))
    assert result.commits > 0
    assert sum(result.aborts.values()) == 0
    assert (
        result.checks["payload_sum_after"] - result.checks["payload_sum_before"]
        == result.checks["committed_row_updates"]
    )


@needs_two_cpus
def test_workers_are_pinned_where_asked():
    cpus = (TWO[1], TWO[0])
    result = islands.run(config(cpus=cpus))
    assert [w.cpu for w in result.workers] == list(cpus)
    assert [w.observed_cpu for w in result.workers] == list(cpus)
    assert [w.site for w in result.workers] == [0, 1]


def test_statistics_are_coherent():
    result = islands.run(config(cpus=ONLINE[:1], cc="none", duration=0.2))
    lat = result.latency
    assert lat.count == result.commits
    assert 0 < lat.p50_us <= lat.p99_us <= lat.p999_us <= lat.max_us
    assert result.measured_s > 0
    assert result.throughput_tps == pytest.approx(result.commits / result.measured_s)
    assert sum(w.commits for w in result.workers) == result.commits
    # The window's commits are a part of the whole run's: the warm-up's are left out.
    assert 0 < result.commits <= result.checks["committed_txns"]
    row = result.to_dict()
    assert row["config_hash"] == result.config.config_hash()
    for key in ("git_revision", "compiler", "compiler_flags", "hostname", "kernel", "cpu_model"):
        assert row["metadata"][key]
    assert row["topology"]["cpus"] == list(ONLINE) or tuple(row["topology"]["cpus"]) == ONLINE


def test_unpinned_run_says_so():
    result = islands.run(
        dataclasses.replace(
            config(cpus=ONLINE[:1], cc="none", duration=0.1),
            driver=DriverConfig(cpus=ONLINE[:1], pin=False, warmup_s=0, duration_s=0.1),
        )
    )
    assert result.workers[0].cpu == -1
    assert any("not pinned" in w for w in result.warnings)


@needs_two_cpus
def test_none_needs_a_single_thread():
    with pytest.raises(ValueError, match="cc: 'none' is a single-threaded instance"):
        islands.run(config(cpus=TWO, cc="none"))


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("rows_per_txn", 0, "rows_per_txn: must be between 1 and 10000"),
        ("rows_per_site", 0, "rows_per_site: must be at least 1"),
        ("rows_per_txn", 20, "do not fit in a site of 10 rows"),
        ("zipf_s", 11.0, "zipf_s: must be between 0 and 10"),
        ("multisite", 1.5, "multisite: must be between 0 and 1, got 1.5"),
        ("rows_per_site", -1, "rows_per_site: -1 is not a valid value"),
    ],
)
def test_bad_micro_settings_are_named(field, value, message):
    base = {"rows_per_site": 10, "rows_per_txn": 5}
    base[field] = value
    with pytest.raises(islands.ConfigError, match=message) as caught:
        islands.run(config(cpus=ONLINE[:1], cc="none", **base))
    assert caught.value.field == f"micro.{field}"


def test_config_round_trip_and_hash():
    cfg = config(update=True, zipf_s=0.5, index="btree")
    again = RunConfig.from_dict(cfg.to_dict())
    assert again == cfg
    assert again.config_hash() == cfg.config_hash()
    assert dataclasses.replace(cfg, workload="micro").config_hash() == cfg.config_hash()
    assert config(update=False).config_hash() != cfg.config_hash()
    with pytest.raises(ValueError, match="micro.bogus: unknown setting"):
        RunConfig.from_dict({"micro": {"bogus": 1}})


def test_a_run_stops_early_when_the_machine_runs_short_of_memory():
    # A floor above any machine's available memory (the largest the setting takes, 1 PiB): the
    # run stops in its warm-up, saying why, with an empty window (NaN rates, no commits) and
    # consistent data.
    floor = 1 << 30  # MiB
    config = RunConfig(driver=DriverConfig(cpus=(0,), warmup_s=5.0, duration_s=5.0, min_free_memory_mib=floor))
    result = islands.run(config)
    assert len(result.stopped_early) == 1 and f"below driver.min_free_memory_mib {floor}" in result.stopped_early[0]
    assert result.measured_s == 0 and result.commits == 0 and math.isnan(result.throughput_tps)
    assert result.check_failures == []


def test_throughput_timeline_from_counts():
    from islands.execution.run_result import throughput_timeline

    # Two workers, 0.25 s in 0.1 s intervals: the last interval is 0.05 s long, and holds the
    # commits counted after the window (the fourth count).
    tps = throughput_timeline([[10, 20, 5, 7], [1, 2]], 0.1, 0.25)
    assert tps == pytest.approx([110.0, 220.0, 240.0])
    assert throughput_timeline([[3]], 0.1, 0.0) == []
    # A last interval of 0.001 s joins the one before it.
    assert throughput_timeline([[10, 20, 1]], 0.1, 0.201) == pytest.approx([100.0, 21 / 0.101])


def test_every_run_records_its_throughput_timeline():
    config = RunConfig(driver=DriverConfig(cpus=(0,), warmup_s=0.05, duration_s=0.5, timeline_interval_s=0.1))
    result = islands.run(config)
    tps = result.timeline_tps
    assert len(tps) == round(result.measured_s / 0.1) and all(v > 0 for v in tps)
    lengths = [0.1] * (len(tps) - 1) + [result.measured_s - 0.1 * (len(tps) - 1)]
    # Every commit is in one interval.
    assert round(sum(v * s for v, s in zip(tps, lengths))) == result.commits
    assert result.to_dict()["timeline"] == {"interval_s": 0.1, "tps": tps}
    assert "timeline    per 0.1 s" in result.summary()
    # A read-only run aborts nothing: its aborts line lists no zero counters.
    (aborts,) = [line for line in result.summary().splitlines() if line.startswith("aborts")]
    assert sum(result.aborts.values()) == 0 and aborts.startswith("aborts      none  (rate 0.00%)"), aborts
