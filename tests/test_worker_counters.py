"""The worker counters, declared once (csrc/include/islands/exec/worker_counters.hpp): the
schema ``_core.counters()`` names every counter a run's statistics carry, and a run's result
reports each counter's aggregate where the schema says (islands.execution.worker_counters)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from islands import _core
from islands.config.settings import RunConfig, transaction_names
from islands.execution import in_process
from islands.execution.worker_counters import PLACES, Counter, aggregate, counters, reported

#: The Python type of each kind in a worker's statistics.
KINDS = {"count": int, "series": list, "per_type": list, "per_reason": dict, "per_component": dict}


def short(clients: str) -> RunConfig:
    """A short micro run on CPUs 0 and 1 with the given client layer."""
    c = RunConfig()
    driver = dataclasses.replace(c.driver, cpus=(0, 1), clients=clients, warmup_s=0.2, duration_s=0.3)
    return dataclasses.replace(c, driver=driver)


@pytest.fixture(scope="module", params=["workers", "closed"])
def run(request: pytest.FixtureRequest) -> tuple[RunConfig, dict[str, Any], dict[str, Any]]:
    """A real run: its config, the engine's statistics, and its result row."""
    config = short(request.param)
    running = in_process.start(config)
    stats = running.handle.join()
    return config, stats, running.result().to_dict()


def test_the_schema_is_well_formed():
    schema = _core.counters()
    assert [c.name for c in counters()] == [d["name"] for d in schema]
    keys = [(d["group"], d["name"]) for d in schema]
    assert len(keys) == len(set(keys)), "a counter declared twice"
    for c in counters():
        assert c.group in ("worker", "clients"), c
        assert c.kind in KINDS, c
        assert c.scope in ("window", "run"), c
        assert c.aggregate in ("sum", "max", "each"), c
        assert c.unit and c.doc, c
        for where in c.reported:
            place, _, key = where.partition(".")
            assert place in PLACES, c
            assert bool(key) == (place == "checks"), c  # only a figure is renamed
        assert c.aggregate != "each" or not c.reported, f"{c.name}: reported, but not aggregated"
    # the counters a result interprets by name are declared (islands.measure.run_profile,
    # islands.execution.client_load, the timeline)
    names = {c.name for c in counters()}
    assert {"timed_txns", "window_ticks", "component_ticks", "client_ticks", "idle_ticks", "timeline"} <= names


def by_hand(c: Counter, workers: list[dict[str, Any]]) -> Any:
    """The counter summed over workers the plain way, to check the schema's aggregate against."""
    values = [c.value(w) for w in workers]
    if c.kind == "count":
        return sum(values)
    if c.kind in ("per_reason", "per_component"):
        return {k: sum(v[k] for v in values) for k in values[0]}
    return [sum(v[i] for v in values if i < len(v)) for i in range(max(len(v) for v in values))]


def test_every_counter_is_in_a_real_runs_statistics_and_its_row_sums_the_workers(run):
    config, stats, row = run
    workers = stats["workers"]
    assert len(workers) == 2 and row["commits"] > 0
    names = transaction_names(config.workload)
    for c in counters():
        for w in workers:
            assert isinstance(c.value(w), KINDS[c.kind]), f"{c.name}: {c.value(w)!r} is not a {c.kind}"
        if c.aggregate == "each":
            with pytest.raises(ValueError, match=c.name):
                aggregate(c, workers)
            continue
        total = by_hand(c, workers)
        if c.kind == "per_type":
            assert aggregate(c, workers, names) == dict(zip(names, total, strict=False))
        else:
            assert aggregate(c, workers) == total, c.name
        for where in c.reported:
            place, _, key = where.partition(".")
            if place == "instance":
                assert row["instances"][0][c.name] == total, c.name
            elif place == "run":
                assert stats[c.name] == total, c.name  # the engine's own total
                assert row[c.name] == (dict(zip(names, total, strict=False)) if c.kind == "per_type" else total)
            elif place == "checks":
                assert row["checks"][key] == total, c.name
            elif place == "clients" and config.driver.clients != "workers":
                assert row["clients"][c.name] == total, c.name
    # the result's own figures agree with the counters they come from
    assert row["commits"] == sum(row["commits_by_type"].values()) == sum(w["commits"] for w in workers)
    assert row["instances"][0]["commits"] == stats["commits"] == row["commits"]


def test_window_counters_start_at_the_window_and_run_counters_at_the_start(run):
    _, stats, row = run
    workers = stats["workers"]
    # commits count in the window (zeroed when it opens), commits_all_phases through the
    # 0.2 s warm-up as well
    assert sum(w["commits"] for w in workers) < sum(w["commits_all_phases"] for w in workers)
    assert row["checks"]["committed_txns"] == sum(w["commits_all_phases"] for w in workers)
    window = {c.name for c in counters() if c.scope == "window"}
    assert {"commits", "aborts", "timeline", "cpu_ns", "client_ticks"} <= window
    assert {"commits_all_phases", "messages_sent", "submitted"}.isdisjoint(window)


def test_bad_places_and_kinds_are_refused():
    with pytest.raises(ValueError, match="place 'nowhere'"):
        reported("nowhere", [])
    odd = dataclasses.replace(counters()[0], kind="matrix")
    with pytest.raises(ValueError, match="unknown kind 'matrix'"):
        aggregate(odd, [])


def test_a_counter_aggregated_by_its_largest_takes_the_largest():
    most = Counter("depth", "worker", "count", "entries", "window", "max", ("instance",), "the deepest queue")
    assert aggregate(most, [{"depth": 3}, {"depth": 5}, {"depth": 4}]) == 5
    assert aggregate(dataclasses.replace(most, aggregate="sum"), [{"depth": 3}, {"depth": 5}]) == 8
    series = dataclasses.replace(most, kind="series")
    assert aggregate(series, [{"depth": [1, 7]}, {"depth": [4]}]) == [4, 7]
