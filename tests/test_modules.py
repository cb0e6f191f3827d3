"""Code-module profile: folding perf samples into engine modules (pure, on recorded output)
and one real perf record run."""

from __future__ import annotations

import shutil

import pytest

from islands.config import DriverConfig, MicroConfig, RunConfig
from islands.modules import MODULES, _perf_name, fold_samples, module_of_source, profile_modules

SCRIPT = """\
     7fb45b9b115a islands::HashIndex::find+0x2a (/x/islands/_core.cpython-311-x86_64-linux-gnu.so)
     7fb45b96f9ee std::thread::_State_impl<drive>::_M_run+0x8ce (/x/islands/_core.cpython-311-x86_64-linux-gnu.so)
     7fb45b96f9ff std::thread::_State_impl<drive>::_M_run+0x9ff (/x/islands/_core.cpython-311-x86_64-linux-gnu.so)
     7fb45c7af86b _PyObject_Malloc+0x4b (/usr/lib/libpython3.11.so.1.0)
 ffffffff81b9aa87 __list_del_entry_valid_or_report+0x47 ([kernel.kallsyms])
     7fb45b981687 islands::Unknown::thing+0x17 (/x/islands/_core.cpython-311-x86_64-linux-gnu.so)
"""


def test_module_of_source():
    assert module_of_source("/w/csrc/src/index/hash_index.cpp:41") == "index"
    assert module_of_source("/w/csrc/include/islands/cc/row_lock.hpp:12 (discriminator 2)") == "cc"
    assert module_of_source("/w/csrc/include/islands/workload/micro_workload.hpp:101") == "transaction"
    assert module_of_source("/w/csrc/include/islands/transport/spsc_ring.hpp:200") == "transport"
    assert module_of_source("/w/csrc/src/exec/instance.cpp:10") == "driver"
    assert module_of_source("/w/csrc/include/islands/common/optimistic_latch.hpp:3") == "index"
    assert module_of_source("/w/csrc/include/islands/common/zipf.hpp:3") == "driver"
    assert module_of_source("/usr/include/c++/12/bits/vector.tcc:119") is None


def test_perf_name_strips_the_parameter_list():
    assert _perf_name("islands::HashIndex::find(islands::HashIndex::SlotArray const&, unsigned long)") \
        == "islands::HashIndex::find"
    assert _perf_name("std::thread::_State_impl<f(int)::{lambda()#1}>::_M_run()") \
        == "std::thread::_State_impl<f(int)::{lambda()#1}>::_M_run"
    assert _perf_name("islands::Table::row(unsigned long) const") == "islands::Table::row"


def test_fold_samples():
    seen = []

    def resolve(pairs):
        seen.extend(pairs)
        table = {("islands::HashIndex::find", 0x2A): "index", ("std::thread::_State_impl<drive>::_M_run", 0x8CE): "cc",
                 ("std::thread::_State_impl<drive>::_M_run", 0x9FF): "transaction"}
        return [table.get(p) for p in pairs]

    profile = fold_samples(SCRIPT, "/y/_core.cpython-311-x86_64-linux-gnu.so", resolve)
    assert len(seen) == 4  # only engine samples are resolved
    assert profile.samples == {"index": 1, "cc": 1, "log": 0, "transaction": 1, "transport": 0, "driver": 0,
                               "other": 3}
    assert profile.total == 6 and profile.shares["other"] == 0.5
    assert "islands::Unknown::thing (engine, no line info)" in profile.other_symbols
    assert "_PyObject_Malloc (libpython3.11.so.1.0)" in profile.other_symbols


@pytest.mark.skipif(shutil.which("perf") is None or shutil.which("addr2line") is None,
                    reason="perf and addr2line are needed (make install adds linux-perf)")
def test_profile_modules_for_real():
    config = RunConfig(micro=MicroConfig(rows_per_site=2000, update=True),
                       driver=DriverConfig(cpus=(0,), warmup_s=0.1, duration_s=1.0))
    profile = profile_modules(config, attach_s=0.5)
    if profile.reason:
        pytest.skip(f"perf record cannot sample here: {profile.reason}")
    assert profile.total > 100
    assert set(profile.samples) == set(MODULES)
    # a busy single-threaded instance spends most samples in the engine, in its index and rows
    engine = profile.total - profile.samples["other"]
    assert engine > 0.5 * profile.total
    assert profile.samples["index"] > 0 and profile.samples["transaction"] > 0
    assert profile.samples["transport"] == 0 and profile.samples["log"] == 0
