"""Code-module profile: folding perf and py-spy samples into engine modules (pure, on recorded
output), choosing the sampler, and one real run under each sampler."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import islands.measure.code_modules as modules
from islands.config.settings import DriverConfig, MicroConfig, RunConfig
from islands.measure.code_modules import (
    MODULES,
    ModuleProfile,
    _perf_name,
    fold_pyspy,
    fold_samples,
    module_of_source,
    profile_modules,
    sample_this_process,
)

#: ``py-spy record --native --full-filenames --format raw`` stacks of profile_modules(sampler="py-spy")
#: on the micro config below: ten of its lines, verbatim but for the pybind11 call frames left out.
PY_SPY_RAW = (Path(__file__).parent / "fixtures" / "modules" / "py_spy_raw.txt").read_text()
PY_SPY_BASE = 0x7F79D3600000  # where the engine was mapped in that child (its /proc/PID/maps)
ENGINE = "/y/_core.cpython-311-x86_64-linux-gnu.so"
MICRO = RunConfig(
    micro=MicroConfig(rows_per_site=2000, update=True), driver=DriverConfig(cpus=(0,), warmup_s=0.1, duration_s=1.0)
)

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
    assert module_of_source("/w/csrc/include/islands/txn/row_lock.hpp:12") == "cc"  # cc's, in txn/
    assert module_of_source("/w/csrc/include/islands/exec/plp/plp_worker.hpp:80") == "driver"
    assert module_of_source("/w/csrc/include/islands/exec/workload_interface.hpp:9") == "transaction"
    assert module_of_source("/w/csrc/src/settings/micro_config.cpp:3") == "driver"
    assert module_of_source("/w/csrc/include/islands/workload/micro_workload.hpp:101") == "transaction"
    assert module_of_source("/w/csrc/include/islands/transport/spsc_ring.hpp:200") == "transport"
    assert module_of_source("/w/csrc/src/exec/instance.cpp:10") == "driver"
    assert module_of_source("/w/csrc/include/islands/common/optimistic_latch.hpp:3") == "index"
    assert module_of_source("/w/csrc/include/islands/common/zipf.hpp:3") == "driver"
    assert module_of_source("/usr/include/c++/12/bits/vector.tcc:119") is None


def test_perf_name_strips_the_parameter_list():
    assert (
        _perf_name("islands::HashIndex::find(islands::HashIndex::SlotArray const&, unsigned long)")
        == "islands::HashIndex::find"
    )
    assert (
        _perf_name("std::thread::_State_impl<f(int)::{lambda()#1}>::_M_run()")
        == "std::thread::_State_impl<f(int)::{lambda()#1}>::_M_run"
    )
    assert _perf_name("islands::Table::row(unsigned long) const") == "islands::Table::row"
    # a function template's specialization: nm -C puts its return type first, perf does not
    assert (
        _perf_name(
            "islands::TxnResult islands::MicroWorkload<islands::HashIndex>::access<islands::TwoPhaseLocking>"
            "(unsigned long const*, unsigned long, std::vector<islands::Row*, std::allocator<islands::Row*> >&)"
        )
        == "islands::MicroWorkload<islands::HashIndex>::access<islands::TwoPhaseLocking>"
    )
    assert _perf_name("unsigned long islands::pick<int>(int)") == "islands::pick<int>"
    assert _perf_name("void* operator new(unsigned long)") == "operator new"


def test_fold_samples():
    seen = []

    def resolve(pairs):
        seen.extend(pairs)
        table = {
            ("islands::HashIndex::find", 0x2A): "index",
            ("std::thread::_State_impl<drive>::_M_run", 0x8CE): "cc",
            ("std::thread::_State_impl<drive>::_M_run", 0x9FF): "transaction",
        }
        return [table.get(p) for p in pairs]

    profile = fold_samples(SCRIPT, ENGINE, resolve)
    assert len(seen) == 4  # only engine samples are resolved
    assert profile.samples == {"index": 1, "cc": 1, "log": 0, "transaction": 1, "transport": 0, "driver": 0, "other": 3}
    assert profile.total == 6 and profile.shares["other"] == 0.5
    assert "islands::Unknown::thing (engine, no line info)" in profile.other_symbols
    assert "_PyObject_Malloc (libpython3.11.so.1.0)" in profile.other_symbols
    assert profile.sampler == "perf" and profile.to_dict()["sampler"] == "perf"


def test_fold_pyspy():
    seen = []

    def resolve(pairs):
        seen.extend(pairs)
        return [None for _ in pairs]  # the address is a PLT stub: no line

    profile = fold_pyspy(PY_SPY_RAW, ENGINE, resolve, engine_base=PY_SPY_BASE)
    # innermost engine source of each stack: HashIndex::find and OptimisticLatch (index),
    # RowLock::acquire (cc), TxnContext::save_before_image under std::vector and
    # MicroWorkload::generate (transaction), Random and ComponentScope (driver); a leaf in libc,
    # an engine address without a line and the child waiting in Python are other
    assert profile.samples == {
        "index": 65 + 10,
        "cc": 296,
        "log": 0,
        "transaction": 296 + 15,
        "transport": 0,
        "driver": 4 + 2,
        "other": 39 + 12 + 1,
    }
    assert seen == [("", 0x1DFB0)] * 12  # only the address in the engine goes to the resolver, relative
    assert profile.other_symbols == {
        "0x7f79d438b88b (libc.so.6)": 39,
        "0x1dfb0 (engine, no line info)": 12,
        "read (libc.so.6)": 1,
    }
    assert profile.sampler == "py-spy" and profile.to_dict()["sampler"] == "py-spy"
    # without the load address the engine address stays as py-spy printed it
    unplaced = fold_pyspy(PY_SPY_RAW, ENGINE, lambda pairs: [None for _ in pairs])
    assert unplaced.other_symbols["0x7f79d361dfb0 (engine, no line info)"] == 12


def test_sampler_choice(monkeypatch):
    calls = []

    def fake(name, total):
        def run(config, frequency, attach_s):
            calls.append(name)
            if total:
                return ModuleProfile(samples={m: (total if m == "index" else 0) for m in MODULES}, sampler=name)
            return ModuleProfile(samples=dict.fromkeys(MODULES, 0), reason=f"{name} cannot run here")

        return run

    monkeypatch.setattr(modules, "_profile_perf", fake("perf", 10))
    monkeypatch.setattr(modules, "_profile_pyspy", fake("py-spy", 5))
    assert profile_modules(MICRO).sampler == "perf" and calls == ["perf"]
    assert profile_modules(MICRO, sampler="py-spy").sampler == "py-spy" and calls == ["perf", "py-spy"]
    calls.clear()
    monkeypatch.setattr(modules, "_profile_perf", fake("perf", 0))
    profile = profile_modules(MICRO)
    assert (profile.sampler, profile.total, calls) == ("py-spy", 5, ["perf", "py-spy"])
    monkeypatch.setattr(modules, "_profile_pyspy", fake("py-spy", 0))
    profile = profile_modules(MICRO)
    assert profile.total == 0 and profile.sampler == ""
    assert profile.reason == "perf: perf cannot run here; py-spy: py-spy cannot run here"
    assert all(v != v for v in profile.shares.values())  # NaN, not 0
    with pytest.raises(ValueError, match="sampler"):
        profile_modules(MICRO, sampler="vtune")


def test_sample_this_process_falls_back_to_pyspy(monkeypatch):
    which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "perf" else which(name))
    given = []

    def pyspy(config, frequency, attach_s):
        given.append(config)
        return ModuleProfile(samples={m: (3 if m == "cc" else 0) for m in MODULES}, sampler="py-spy")

    monkeypatch.setattr(modules, "_profile_pyspy", pyspy)
    with sample_this_process(fallback=MICRO) as sampling:
        pass
    profile = sampling.profile()
    assert given == [MICRO] and profile.sampler == "py-spy" and profile.samples["cc"] == 3
    monkeypatch.setattr(
        modules, "_profile_pyspy", lambda *a: ModuleProfile(samples=dict.fromkeys(MODULES, 0), reason="no ptrace")
    )
    with sample_this_process(fallback=MICRO) as sampling:
        pass
    assert sampling.profile().reason == (
        "perf: perf is not installed (make tools, or apt-get install linux-perf); py-spy: no ptrace"
    )
    with sample_this_process() as sampling:  # no fallback: perf's reason alone
        pass
    assert sampling.profile().reason.startswith("perf is not installed")


def _can_sample(sampler: str) -> bool:
    if sampler == "perf":
        return shutil.which("perf") is not None and shutil.which("addr2line") is not None
    return modules._pyspy_binary() is not None and sys.platform.startswith("linux")


@pytest.mark.parametrize(
    "sampler, busy",
    [
        # perf samples the real run; py-spy a single-threaded copy, whose 2PL row locks show too
        ("perf", ("index", "transaction")),
        ("py-spy", ("index", "cc", "transaction")),
    ],
)
def test_profile_modules_for_real(sampler, busy):
    if not _can_sample(sampler):
        pytest.skip(f"{sampler} is not installed (make tools adds linux-perf and py-spy)")
    profile = profile_modules(MICRO, attach_s=0.5, sampler=sampler)
    if profile.reason:
        pytest.skip(f"{sampler} cannot sample here: {profile.reason}")
    assert profile.sampler == sampler
    assert profile.total > 100
    assert set(profile.samples) == set(MODULES)
    # a busy single-threaded instance spends most samples in the engine, in its index and rows
    engine = profile.total - profile.samples["other"]
    assert engine > 0.5 * profile.total
    assert all(profile.samples[m] > 0 for m in busy), profile.samples
    assert profile.samples["transport"] == 0 and profile.samples["log"] == 0


def test_pyspy_that_cannot_attach_gives_its_reason(monkeypatch, tmp_path: Path):
    refusing = tmp_path / "py-spy"  # what py-spy says without ptrace rights, and its exit status
    refusing.write_text(
        "#!/bin/sh\necho 'Error: Permission Denied: Try running again with elevated permissions' >&2\nexit 1\n"
    )
    refusing.chmod(0o755)
    monkeypatch.setattr(modules, "_pyspy_binary", lambda: str(refusing))
    profile = profile_modules(MICRO, sampler="py-spy")
    assert profile.total == 0 and profile.sampler == ""
    assert profile.reason == (
        "py-spy record failed: Error: Permission Denied: Try running again with elevated permissions"
    )
    monkeypatch.setattr(modules, "_pyspy_binary", lambda: None)
    assert profile_modules(MICRO, sampler="py-spy").reason == "py-spy is not installed (pip install py-spy)"
