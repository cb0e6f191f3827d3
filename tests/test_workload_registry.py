"""Each workload is described once, in C++, and read through ``_core.workloads()``: every entry
is held here to a real instance of it. A load holds the rows its declaration says (its tables,
their rows a site and an instance, their row bytes); a run commits transactions of exactly the
types it names; memory admission judges it from that declaration (never a silent 0)."""

from __future__ import annotations

import dataclasses

import pytest

import islands
from islands import _core
from islands.config.settings import WORKLOAD_SETTINGS, DriverConfig, RunConfig
from islands.config.workload_registry import load_bytes, load_size, workload, workloads
from islands.execution.memory_admission import check_load_fits

CPUS = islands.read_topology().cpus
ENTRIES = list(_core.workloads())
NAMES = [e["name"] for e in ENTRIES]


def config_of(name: str, cpus: tuple[int, ...], **driver: float) -> RunConfig:
    """A run of ``name`` at its default settings on ``cpus`` (one site each)."""
    return RunConfig(workload=name, driver=DriverConfig(cpus=cpus, **driver))  # type: ignore[arg-type]


def test_the_registry_is_read_whole():
    assert NAMES == list(workloads()) == list(WORKLOAD_SETTINGS)
    for entry in ENTRIES:
        w = workload(entry["name"])
        assert w.settings_class == type(getattr(RunConfig(), w.section)).__name__
        section, _, field = w.size_setting.partition(".")
        assert section == w.section and field in {f.name for f in dataclasses.fields(WORKLOAD_SETTINGS[section])}
        assert w.transactions and len(set(w.transactions)) == len(w.transactions)
        assert w.conditions and len(set(w.conditions)) == len(w.conditions)
        assert w.tables and len(set(w.tables)) == len(w.tables)
    with pytest.raises(ValueError, match="unknown workload 'nope'"):
        workload("nope")


@pytest.mark.parametrize("name", NAMES)
def test_a_load_holds_the_rows_its_declaration_says(name):
    sites = 2
    config = config_of(name, tuple(range(sites)))
    declared = {t["name"]: t for t in load_size(config)}
    loaded = _core.loaded_rows(config.to_core())
    assert list(declared) == list(loaded) == list(workload(name).tables)
    for table, t in declared.items():
        rows, row_bytes = loaded[table]["rows"], loaded[table]["row_bytes"]
        assert row_bytes == t["row_bytes"], table
        once = t["rows_per_instance"]  # one instance holds every site here
        if t["min_rows_per_site"] == t["max_rows_per_site"]:
            assert rows == sites * t["min_rows_per_site"] + once, table
            assert t["rows_per_site"] == t["min_rows_per_site"], table
        else:  # drawn: within the range, and near the mean it declares
            assert sites * t["min_rows_per_site"] + once <= rows <= sites * t["max_rows_per_site"] + once, table
            mean = sites * t["rows_per_site"] + once
            assert rows == pytest.approx(mean, rel=0.1), table
    # the estimate admission judges by covers at least the rows themselves
    rows_bytes = sum(loaded[t]["rows"] * loaded[t]["row_bytes"] for t in loaded)
    assert load_bytes(config, sites, instances=1) >= rows_bytes > 0


@pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs (TPC-C's default remote payments need two sites)")
@pytest.mark.parametrize("name", NAMES)
def test_a_run_commits_exactly_the_transaction_types_it_names(name):
    config = config_of(name, tuple(CPUS[:2]), warmup_s=0.0, duration_s=0.2)
    section = getattr(config, name)  # a tenth of the default load (at least 1): quicker, as many types
    field = workload(name).size_field
    smaller = dataclasses.replace(section, **{field: max(1, getattr(section, field) // 10)})
    config = dataclasses.replace(config, **{name: smaller})
    stats = _core.run(config.to_core())
    per_type = [
        sum(w["commits_by_type"][i] for w in stats["workers"])
        for i in range(len(stats["workers"][0]["commits_by_type"]))
    ]
    names = workload(name).transactions
    assert all(n > 0 for n in per_type[: len(names)]), dict(zip(names, per_type, strict=False))
    assert not any(per_type[len(names) :]), f"commits of a type the registry does not name: {per_type}"


@pytest.mark.parametrize("name", NAMES)
def test_every_workload_is_admitted_by_its_own_estimate(name):
    config = config_of(name, (0,))
    need = load_bytes(config, 1, instances=1)
    assert need > 0
    with pytest.raises(_core.ConfigError) as caught:
        check_load_fits(config, 1, available=need - 1, instances=1)
    assert caught.value.field == workload(name).size_setting
    check_load_fits(config, 1, available=need, instances=1)
