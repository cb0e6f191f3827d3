"""``islands server-check`` against the fixtures: the topology compared with lscpu's view (agreeing,
and a tampered listing whose differences are named), the PMU report of a recorded Xeon, and the
summary files; on this machine, counters that are not there are "missing" with their reason, never a
failure. The Fig 11 part runs for real only under slow (it is experiments/default.toml's sweep)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from islands.experiments.server_check import compare_lscpu, counters_part, parse_lscpu, run_server_check
from islands.machine.topology import read_topology

FIXTURES = Path(__file__).parent / "fixtures"
XEON = FIXTURES / "sysfs" / "xeon-e7530-4x6"
PMU = FIXTURES / "pmu" / "xeon-gold-6154-2x18"


def lscpu_of(topology, tamper: int | None = None) -> str:
    """What lscpu -p=CPU,CORE,SOCKET,NODE prints for ``topology`` (cpu ``tamper`` moved a socket on)."""
    lines = ["# CPU,Core,Socket,Node"]
    core_ids = {core: k for k, core in enumerate(sorted({topology.core_of(c) for c in topology.cpus}, key=str))}
    for cpu in topology.cpus:
        socket = topology.socket_of(cpu)
        if cpu == tamper:
            socket = (socket + 1) % topology.n_sockets
        lines.append(f"{cpu},{core_ids[topology.core_of(cpu)]},{socket},{topology.numa_node_of(cpu)}")
    return "\n".join(lines) + "\n"


def test_lscpu_agreement_and_disagreement_are_named():
    topology = read_topology(XEON)
    assert compare_lscpu(topology, parse_lscpu(lscpu_of(topology))) == []
    problems = compare_lscpu(topology, parse_lscpu(lscpu_of(topology, tamper=5)))
    assert any(p.startswith("cpu 5: socket") for p in problems), problems
    missing = "\n".join(lscpu_of(topology).splitlines()[:-1])
    assert any("not listed by lscpu" in p for p in compare_lscpu(topology, parse_lscpu(missing)))
    with pytest.raises(ValueError, match="line 2"):
        parse_lscpu("# header\n0,x,0,0\n")


def test_a_recorded_server_is_checked_into_one_directory(tmp_path, cli_here):
    lscpu = tmp_path / "lscpu.txt"
    lscpu.write_text(lscpu_of(read_topology(XEON)))
    out = tmp_path / "check"
    done = cli_here(
        "server-check",
        "--sysfs",
        str(XEON),
        "--lscpu",
        str(lscpu),
        "--pmu-sysfs",
        str(PMU / "sys"),
        "--cpuinfo",
        str(PMU / "cpuinfo"),
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    parts = summary["parts"]
    assert parts["topology"]["status"] == "ok"
    counters = parts["counters"]["metrics"]
    assert counters["instructions"]["status"] == "countable" and counters["llc_misses"]["status"] == "countable"
    assert counters["imc_reads"]["status"] == "countable", counters
    assert parts["fig11"]["status"] == "missing"
    assert "# islands server check: xeon-e7530-4x6" in (out / "summary.md").read_text()


def test_counters_missing_here_are_reported_with_their_reason_not_failed():
    part = counters_part(None, None)
    assert part["status"] in ("ok", "missing")
    for metric, r in part["metrics"].items():
        if r["status"] == "missing":
            assert r["why"], metric
        else:
            assert r["status"] == "counted", (metric, r)


def test_bad_paths_are_one_line(cli_here):
    done = cli_here("server-check", "--sysfs", "/nonexistent", "--no-runs")
    assert done.returncode == 2 and "--sysfs /nonexistent" in done.stderr


@pytest.mark.slow
def test_the_quick_fig11_runs_here(tmp_path):
    check = run_server_check(tmp_path, quick=True, progress=False)
    assert check.parts["fig11"]["status"] == "ok", check.parts["fig11"]
    assert (tmp_path / "fig11").is_dir()
