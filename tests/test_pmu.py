"""islands.measure.pmu: sysfs event descriptions -> counter encodings, on recorded trees of Intel
servers with uncore PMUs (tests/fixtures/pmu/, written by make_pmu_fixtures.py), the derived
metrics, the multiplexing correction, and the unsupported path on this machine."""

from __future__ import annotations

import importlib.util
import math
import shutil
from pathlib import Path

import pytest

from islands import _core
from islands.measure import pmu

FIXTURES = Path(__file__).parent / "fixtures"
PMU_FIXTURES = FIXTURES / "pmu"
SKX = "xeon-gold-6154-2x18"
BDW = "xeon-e5-2680v4-2x14"
VM = "vm-epyc"


def machine(name: str) -> tuple[dict[str, pmu.Pmu], str]:
    root = PMU_FIXTURES / name
    return pmu.parse_pmus(pmu.read_pmu_files(root / "sys")), pmu.cpu_family((root / "cpuinfo").read_text())


def by_metric(resolution: pmu.Resolution) -> dict[str, list[pmu.Counter]]:
    out: dict[str, list[pmu.Counter]] = {}
    for c in resolution.counters:
        out.setdefault(c.metric, []).append(c)
    return out


def test_committed_fixture_trees_match_generator(tmp_path):
    spec = importlib.util.spec_from_file_location("make_pmu_fixtures", FIXTURES / "make_pmu_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write_all(tmp_path / "pmu")
    fresh = sorted(p.relative_to(tmp_path / "pmu") for p in (tmp_path / "pmu").rglob("*") if p.is_file())
    committed = sorted(p.relative_to(PMU_FIXTURES) for p in PMU_FIXTURES.rglob("*") if p.is_file())
    assert fresh == committed
    for rel in fresh:
        assert (tmp_path / "pmu" / rel).read_text() == (PMU_FIXTURES / rel).read_text(), rel


def test_parse_format():
    assert pmu.parse_format("config:0-7\n") == ("config", ((0, 7),))
    assert pmu.parse_format("config1:0-63") == ("config1", ((0, 63),))
    assert pmu.parse_format("config:21") == ("config", ((21, 21),))
    assert pmu.parse_format("config:0-7,32-35") == ("config", ((0, 7), (32, 35)))
    for bad in ("cfg:0-7", "config:7-0", "config:0-64", "config"):
        with pytest.raises(ValueError, match="format"):
            pmu.parse_format(bad)


def test_encode_through_format_fields():
    pmus, _ = machine(SKX)
    cpu = pmus["cpu"]
    # CYCLE_ACTIVITY.STALLS_MEM_ANY: event 0xa3, umask 0x14, cmask 20 in bits 24-31
    assert pmu.encode("event=0xa3,umask=0x14,cmask=20", cpu) == (0x140014A3, 0, 0)
    assert pmu.encode("event=0x3c,umask=0x0,any", cpu) == (0x20003C, 0, 0)  # a bare term is 1
    assert pmu.encode("event=0xb7,umask=0x1,offcore_rsp=0x10003c0091", cpu) == (0x1B7, 0x10003C0091, 0)
    with pytest.raises(ValueError, match="no format field 'bogus'"):
        pmu.encode("event=0x1,bogus=2", cpu)
    with pytest.raises(ValueError, match="does not fit its 8 bits"):
        pmu.encode("event=0x100", cpu)
    split = pmu.Pmu("x", 9, {}, {"f": ("config", ((0, 3), (8, 11)))})
    assert pmu.encode("f=0xab", split) == (0xA0B, 0, 0)  # low nibble in 0-3, high in 8-11


def test_parse_pmus_reads_types_cpumasks_scales():
    pmus, family = machine(SKX)
    assert family == "GenuineIntel:6:85"
    assert pmus["cpu"].type == 4
    assert pmus["cpu"].events["cpu-cycles"] == "event=0x3c"
    assert pmus["cpu"].scales["topdown-total-slots"] == 2.0
    assert "topdown-total-slots.scale" not in pmus["cpu"].events
    imcs = sorted(n for n in pmus if n.startswith("uncore_imc_"))
    assert len(imcs) == 6 and pmus["uncore_imc_0"].cpus == (0, 18)
    assert pmus["uncore_imc_0"].scales["cas_count_read"] == pytest.approx(6.103515625e-5)
    assert pmus["uncore_upi_2"].formats["umask_ext"] == ("config", ((32, 55),))


def test_parse_pmus_rejects_a_bad_type_file():
    with pytest.raises(ValueError, match="cpu/type"):
        pmu.parse_pmus({"bus/event_source/devices/cpu/type": "four\n"})


def test_resolve_every_set_on_skylake_server():
    pmus, family = machine(SKX)
    r = pmu.resolve(list(pmu.EVENT_SETS), pmus, family, paranoid=0, privileged=True)
    assert r.missing == {}
    c = by_metric(r)
    assert (c["cycles"][0].type, c["cycles"][0].config) == (4, 0x3C)
    assert c["instructions"][0].config == 0xC0
    assert c["llc_misses"][0].config == 0x412E
    assert c["l1i_misses"][0].config == 0x283 and "family table" in c["l1i_misses"][0].source
    assert c["stalled_cycles"][0].config == 0x040004A3
    assert c["slots"][0].config == 0x20003C and c["slots"][0].scale == 2.0
    assert c["recovery_bubbles"][0].config == 0x0120030D
    assert c["dcache_stall_cycles"][0].config == 0x140014A3
    assert all(x.cpu == -1 for m in ("cycles", "slots") for x in c[m])
    assert {(x.type, x.cpu) for x in c["imc_reads"]} == {(t, cpu) for t in range(14, 20) for cpu in (0, 18)}
    assert {x.config for x in c["imc_writes"]} == {0x0C04}
    assert {(x.type, x.cpu) for x in c["link_data"]} == {(t, cpu) for t in range(20, 23) for cpu in (0, 18)}
    assert {x.config for x in c["link_data"]} == {0x0F02}
    assert [x.config for x in c["task_clock_ns"]] == [1] and c["task_clock_ns"][0].type == 1
    # no group holds more core events than the PMU has general-purpose counters
    groups: dict[int, int] = {}
    for x in r.counters:
        if x.type == 4:
            groups[x.group] = groups.get(x.group, 0) + 1
    assert groups and max(groups.values()) <= pmu.GROUP_SIZE


def test_resolve_broadwell_uses_qpi_and_its_family_table():
    pmus, family = machine(BDW)
    r = pmu.resolve(["basic", "uncore"], pmus, family, paranoid=-1, privileged=False)
    assert r.missing == {}
    c = by_metric(r)
    assert c["l1i_misses"][0].config == 0x280  # ICACHE.MISSES on Broadwell, not Skylake's 0x283
    assert {x.type for x in c["link_data"]} == {pmus["uncore_qpi_0"].type, pmus["uncore_qpi_1"].type}
    assert {x.cpu for x in c["imc_reads"]} == {0, 14}


def test_resolve_says_why_not():
    pmus, family = machine(SKX)
    r = pmu.resolve(["basic", "uncore"], pmus, "GenuineIntel:6:999", paranoid=2, privileged=False)
    assert "family table for processor GenuineIntel:6:999" in r.missing["l1i_misses"]
    assert "perf_event_paranoid" in r.missing["imc_reads"]
    assert "cycles" not in r.missing  # sysfs aliases need no family table
    vm, vm_family = machine(VM)
    r = pmu.resolve(["software", "basic", "categories", "uncore"], vm, vm_family)
    assert {x.metric for x in r.counters} == {"task_clock_ns", "context_switches", "cpu_migrations", "page_faults"}
    assert "no core PMU" in r.missing["cycles"] and "virtual machine" in r.missing["cycles"]
    assert "no uncore_imc_*" in r.missing["imc_reads"]
    assert "uncore_upi_* or uncore_qpi_*" in r.missing["link_data"]
    with pytest.raises(ValueError, match="counters: unknown event set 'cache'"):
        pmu.resolve(["cache"], vm, vm_family)


def test_cpu_family():
    assert (
        pmu.cpu_family("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n")
        == "GenuineIntel:6:85"
    )
    assert pmu.cpu_family("") == ""


def test_derive_metrics():
    v = {
        "cycles": 1000.0,
        "instructions": 1500.0,
        "stalled_cycles": 400.0,
        "llc_references": 50.0,
        "llc_misses": 5.0,
        "l1i_misses": 3.0,
        "branch_misses": 6.0,
        "slots": 4000.0,
        "slots_retired": 1500.0,
        "slots_issued": 1700.0,
        "recovery_bubbles": 100.0,
        "fetch_bubbles": 800.0,
        "icache_stall_cycles": 100.0,
        "dcache_stall_cycles": 300.0,
        "imc_reads": 1000.0,
        "imc_writes": 500.0,
        "link_data": 2400.0,
    }
    m = pmu.derive_metrics(v)
    assert m["ipc"] == 1.5 and m["stalled_pct"] == 40.0 and m["llc_miss_pct"] == 10.0
    assert m["l1i_mpki"] == 2.0 and m["branch_mpki"] == 4.0
    td = [m[k] for k in ("td_retiring", "td_bad_speculation", "td_frontend_bound", "td_backend_bound")]
    assert td == pytest.approx([0.375, 0.075, 0.2, 0.35]) and sum(td) == pytest.approx(1.0)
    cats = [
        m[k]
        for k in (
            "cat_retiring",
            "cat_branch_misprediction",
            "cat_icache",
            "cat_decoding",
            "cat_dcache",
            "cat_resource",
        )
    ]
    assert sum(cats) == pytest.approx(1.0) and m["cat_icache"] == pytest.approx(0.1)
    assert m["cat_dcache"] == pytest.approx(0.3) and m["cat_resource"] == pytest.approx(0.05)
    assert m["imc_bytes"] == 1500 * 64 and m["link_per_imc"] == pytest.approx(2400 * 8 / (1500 * 64))
    missing = pmu.derive_metrics({"cycles": 1000.0})
    assert math.isnan(missing["ipc"]) and math.isnan(missing["td_retiring"]) and math.isnan(missing["link_per_imc"])


def test_multiplexing_correction():
    assert _core.scale_count(1000, 400, 100) == 4000.0
    assert _core.scale_count(1000, 400, 400) == 1000.0
    assert math.isnan(_core.scale_count(0, 400, 0))
    readings = [  # two workers: one multiplexed a quarter of the time, one not
        {"name": "cycles", "value": _core.scale_count(250, 1000, 250), "running_fraction": 0.25, "error": ""},
        {"name": "cycles", "value": _core.scale_count(900, 1000, 1000), "running_fraction": 1.0, "error": ""},
        {"name": "slots", "value": 10.0, "running_fraction": 1.0, "error": ""},
        {"name": "llc_misses", "value": float("nan"), "running_fraction": float("nan"), "error": "never scheduled"},
    ]
    values, running, errors = pmu.sum_readings(readings, {"slots": 2.0})
    assert values["cycles"] == 1900.0 and running["cycles"] == 0.25
    assert values["slots"] == 20.0
    assert math.isnan(values["llc_misses"]) and errors == {"llc_misses": "never scheduled"}


def test_read_pmu_files_of_a_missing_tree(tmp_path):
    assert pmu.read_pmu_files(tmp_path) == {}
    shutil.copytree(PMU_FIXTURES / VM / "sys", tmp_path / "sys")
    assert "bus/event_source/devices/software/type" in pmu.read_pmu_files(tmp_path / "sys")


HERE_HAS_CPU_PMU = Path("/sys/bus/event_source/devices/cpu").is_dir()


@pytest.mark.skipif(HERE_HAS_CPU_PMU, reason="this machine has a core PMU: the unsupported path is for those without")
def test_hardware_events_unsupported_here_read_nan_with_reason():
    r = pmu.resolve_here(["basic"])
    assert r.counters == () and "no core PMU" in r.missing["cycles"]
    # opened anyway with the generic encoding: the kernel refuses, the reading says why
    counters = _core.PerfCounters([_core.PerfEventSpec("cycles", 0, 0), _core.PerfEventSpec("task", 1, 1, group=1)])
    counters.enable()
    counters.disable()
    cycles, task = counters.read()
    assert math.isnan(cycles["value"]) and "perf_event_open(cycles)" in cycles["error"]
    assert task["error"] == "" and task["value"] > 0


def test_pmu_cli_reports_capabilities(cli_here):
    done = cli_here("pmu")
    assert done.returncode == 0, done.stderr
    assert "software" in done.stdout and "task_clock_ns" in done.stdout
    if not HERE_HAS_CPU_PMU:
        assert "no core PMU" in done.stdout
    fixture = cli_here(
        "pmu",
        "--sysfs",
        str(PMU_FIXTURES / SKX / "sys"),
        "--cpuinfo",
        str(PMU_FIXTURES / SKX / "cpuinfo"),
        "--no-probe",
    )
    assert fixture.returncode == 0, fixture.stderr
    assert "GenuineIntel:6:85" in fixture.stdout and "uncore_imc_0" in fixture.stdout
    bad = cli_here("pmu", "--sets", "nonsense")
    assert bad.returncode == 2 and "unknown event set 'nonsense'" in bad.stderr
