"""Simulated counters: cachegrind for real on a tiny run, and its failure paths."""

from __future__ import annotations

import dataclasses
import math
import shutil

import pytest

from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, ProfileConfig, RunConfig
from islands.measure.cache_models import CACHE_MODELS, DEFAULT_CACHE_MODEL, cache_model
from islands.measure.cachegrind import data_bytes, parse_cachegrind, simulate

CACHEGRIND_OUT = """desc: I1 cache:         32768 B, 64 B, 8-way associative
desc: D1 cache:         32768 B, 64 B, 8-way associative
desc: LL cache:         33554432 B, 64 B, 16-way associative
cmd: python3 -c ...
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim
fl=x.c
fn=main
1 10 1 1 4 1 0 2 0 0 1 0 0 0
summary: 1000 7 3 400 20 5 200 10 2 150 9 5 1
"""


def _config(update: bool = False, rows: int = 10) -> RunConfig:
    return RunConfig(
        micro=MicroConfig(rows_per_site=2000, rows_per_txn=rows, update=update),
        engine=EngineConfig(cc="none"),
        driver=DriverConfig(cpus=(0,)),
    )


def test_parse_cachegrind():
    totals, caches = parse_cachegrind(CACHEGRIND_OUT)
    assert totals["Ir"] == 1000 and totals["Bim"] == 1 and totals["DLmw"] == 2
    assert caches["LL"].startswith("33554432 B")
    with pytest.raises(ValueError, match="truncated"):
        parse_cachegrind(CACHEGRIND_OUT.split("summary")[0])


needs_valgrind = pytest.mark.skipif(
    shutil.which("valgrind") is None, reason="valgrind is not installed (make tools adds it)"
)


@pytest.fixture(scope="module")
def small():
    """One cachegrind run the tests below share (each run costs seconds): 500 two-row reads,
    the default cache model, the default (auto) method."""
    return simulate(_config(rows=2), transactions=500)


@needs_valgrind
def test_cachegrind_for_real_on_a_tiny_run(small):
    """The shared run: the default model's caches passed to valgrind, sane counts per transaction
    (the short version of the next test, which adds a second model and ten times the rows)."""
    assert small.caches["LL"].startswith("36700160 B")  # the default model, not the host's caches
    assert small.simulated and small.reason == "" and set(small.caches) == {"I1", "D1", "LL"}
    p = small.per_txn
    assert p["instructions"] > 100
    assert 0 <= p["branch_mispredictions"] <= p["branches"]
    assert 0 <= p["l1d_misses"] <= p["data_refs"]
    assert not any(math.isnan(v) for v in p.values())


@pytest.mark.slow  # two more cachegrind runs (~14 s); the shared run's checks are the test above
@needs_valgrind
def test_cachegrind_for_real_on_a_tiny_run_with_the_named_cache_model(small):
    # the larger run also names another cache model than the default: that one is simulated
    config = _config(rows=20)
    large = simulate(
        dataclasses.replace(config, profile=ProfileConfig(simulate=500, cache_model="xeon-e7530")), transactions=500
    )
    assert large.caches["LL"].startswith("12582912 B, 64 B, 12-way")
    assert large.caches["D1"].startswith("32768 B, 64 B, 8-way")
    assert large.cache_model.startswith("xeon-e7530")
    assert small.caches["LL"].startswith("36700160 B")  # the default model
    assert small.simulated and small.reason == ""
    for sim in (small, large):
        p = sim.per_txn
        assert p["instructions"] > 100
        assert 0 <= p["branch_mispredictions"] <= p["branches"]
        assert 0 <= p["l1d_misses"] <= p["data_refs"]
        assert not any(math.isnan(v) for v in p.values())
    # ten times the rows: several times the instructions and data references per transaction
    assert large.per_txn["instructions"] > 4 * small.per_txn["instructions"]
    assert large.per_txn["data_refs"] > 4 * small.per_txn["data_refs"]
    assert set(small.caches) == {"I1", "D1", "LL"}


def test_a_missing_valgrind_is_nan_with_one_line_naming_how_to_install_it(monkeypatch, capsys):
    from islands.measure import missing_tools

    which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "valgrind" else which(name))
    monkeypatch.setattr(missing_tools, "_said", set())
    first, second = simulate(_config()), simulate(_config())
    assert first.reason == "valgrind is not installed (make tools, or apt-get install valgrind)"
    assert all(math.isnan(v) for v in first.per_txn.values()) and second.reason == first.reason
    said = capsys.readouterr().err.splitlines()
    assert said == [f"islands: note: {first.reason}; its counters are NaN"]  # once per process


def test_simulate_refuses_bad_input_and_reports_a_broken_valgrind(tmp_path):
    with pytest.raises(ValueError, match="cpus: the simulated run is one single-threaded instance"):
        simulate(RunConfig(driver=DriverConfig(cpus=(0, 1))))
    with pytest.raises(ValueError, match="transactions"):
        simulate(_config(), transactions=0)
    broken = tmp_path / "valgrind"
    broken.write_text("#!/bin/sh\necho 'valgrind: broken' >&2\nexit 3\n")
    broken.chmod(0o755)
    with pytest.raises(RuntimeError, match="cachegrind run failed \\(status 3\\): valgrind: broken"):
        simulate(_config(), transactions=10, valgrind=str(broken))


def test_cache_models_are_simulable_and_named():
    for model in CACHE_MODELS.values():
        for arg in model.valgrind_args():
            size, assoc, line = (int(x) for x in arg.split("=")[1].split(","))
            sets = size // (assoc * line)
            assert sets * assoc * line == size and sets & (sets - 1) == 0, arg  # cachegrind needs 2^k sets
    default = cache_model("")
    assert default.name == DEFAULT_CACHE_MODEL and default.ll is not None
    assert 10 * 2**20 <= default.ll.size <= 64 * 2**20  # a server-class LLC, tens of MB
    assert cache_model("xeon-e7530").valgrind_args()[-1] == "--LL=12582912,12,64"  # 16-way has 12288 sets
    assert "LL 16 -> 12-way" in cache_model("xeon-e7530").describe()
    assert cache_model("host").valgrind_args() == []
    with pytest.raises(ValueError, match="cache_model: 'pentium' is not a cache model"):
        cache_model("pentium")


@needs_valgrind
def test_after_load_simulates_only_the_transactions(small):
    from islands import _core

    if not _core.simulator_marks():
        pytest.skip("the engine was built without valgrind's headers")
    config = _config(rows=2)
    whole = small  # small data: auto keeps the whole method
    after = simulate(config, transactions=500, method="after-load")
    assert whole.method == "whole" and after.method == "after-load"
    # the same transactions counted: instructions and data references per transaction agree
    # (the load, tens of millions of instructions and references, is in neither). The whole
    # method subtracts two runs whose start-ups differ by some thousand references (249 against
    # 269 per transaction alone, 229 in one full-suite run), so references agree more loosely.
    assert after.per_txn["instructions"] == pytest.approx(whole.per_txn["instructions"], rel=0.1)
    assert after.per_txn["data_refs"] == pytest.approx(whole.per_txn["data_refs"], rel=0.3)
    assert 0 <= after.per_txn["ll_misses"] <= after.per_txn["data_refs"]
    assert math.isnan(after.per_txn["branches"])  # callgrind's branch model is not cachegrind's
    big = dataclasses.replace(config, micro=dataclasses.replace(config.micro, rows_per_site=2_000_000))
    assert data_bytes(big) > 4 * 35 * 2**20  # auto would take after-load for it
    with pytest.raises(ValueError, match="method: 'fast' is not one of"):
        simulate(config, method="fast")


def test_a_difference_below_zero_is_floored_and_named(monkeypatch):
    """The whole method subtracts a run of N transactions from one of 2N; a count whose
    difference comes out below zero (below what the method resolves) is 0, named in floored."""
    from islands.measure import cachegrind

    runs: list[int] = []

    def one(valgrind, config_json, n, workdir, timeout_s, args, warmup=None):
        runs.append(n)
        misses = {10: 5000, 20: 4600}[n]  # the longer run missed 400 fewer: -0.4 per transaction
        return {"Ir": 1000 * n, "I1mr": misses, "Dr": 200 * n, "D1mr": 3 * n}, {"LL": "x"}

    monkeypatch.setattr(cachegrind, "_one", one)
    counted = simulate(_config(), transactions=10, method="whole", valgrind="valgrind")
    assert runs == [10, 20]  # both runs run transactions
    assert counted.per_txn["instructions"] == 1000 and counted.per_txn["l1d_misses"] == 3
    assert counted.per_txn["l1i_misses"] == 0.0 and counted.floored == ("l1i_misses",)
    assert counted.to_dict()["floored"] == ["l1i_misses"]


@needs_valgrind
def test_simulated_counts_of_a_cache_resident_run_are_not_negative(small):
    # The shared run (each costs ~6 s, nearly all valgrind's start-ups): a cache-resident one,
    # counted by the whole method, whose two runs' differences are what could come out below 0.
    assert small.method == "whole"
    assert all(v >= 0 for v in small.per_txn.values()), small.per_txn
