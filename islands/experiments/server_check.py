"""``islands server-check``: one command to run on a real server, in at most about 10 minutes.

It writes one results directory with what worked and what was missing:

1. **topology**: what islands reads from sysfs against ``lscpu -p=CPU,CORE,SOCKET,NODE`` (each CPU's
   socket, core and NUMA node; a CPU only one side lists);
2. **counters**: which metrics of every event set the PMUs expose (islands.measure.pmu), and, on the
   machine at hand, a short run that reads them: IPC, LLC misses and the uncore's memory (IMC) and
   socket-link (QPI/UPI) traffic must read non-zero where they exist, and NaN with a reason where not;
3. **paper 000 Fig 11** at 1ISL, per-socket and per-core, with intervals (experiments/default.toml,
   its verdicts), or its quick version.

``summary.md`` and ``summary.json`` in the directory say, per part, ``ok``, ``missing`` (with why) or
``failed``. A machine without counters or NUMA is a report, never a failure of the command.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from islands.machine.topology import Topology, read_topology
from islands.measure import pmu

__all__ = ["ServerCheck", "compare_lscpu", "counter_report", "parse_lscpu", "run_server_check"]

#: The metrics the issue names, with the event set each comes from: they must read non-zero where counted.
KEY_METRICS = {
    "instructions": "basic",
    "cycles": "basic",
    "llc_misses": "basic",
    "imc_reads": "uncore",
    "link_data": "uncore",
}


@dataclass
class ServerCheck:
    """The parts of a server check, each ``{"status": ok|missing|failed, ...}``."""

    machine: str
    parts: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"machine": self.machine, "parts": self.parts}

    def markdown(self) -> str:
        """The summary page."""
        lines = [f"# islands server check: {self.machine}", ""]
        for name, part in self.parts.items():
            lines.append(f"## {name}: {part['status']}")
            lines.append("")
            lines += [f"- {line}" for line in part.get("lines", [])]
            lines.append("")
        return "\n".join(lines)


def parse_lscpu(text: str) -> dict[int, tuple[int | None, int | None, int | None]]:
    """``lscpu -p=CPU,CORE,SOCKET,NODE`` output as ``{cpu: (core, socket, node)}`` (None where a
    column is empty, as NODE is on a kernel without NUMA). Raises ValueError naming a bad line."""
    out: dict[int, tuple[int | None, int | None, int | None]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(",")
        if len(fields) < 3:
            raise ValueError(f"lscpu line {number}: {line!r} is not CPU,CORE,SOCKET[,NODE]")
        try:
            values = [int(f) if f.strip() else None for f in fields[:4]]
        except ValueError:
            raise ValueError(f"lscpu line {number}: {line!r} holds a field that is not a number") from None
        values += [None] * (4 - len(values))
        if values[0] is None:
            raise ValueError(f"lscpu line {number}: no cpu number")
        out[values[0]] = (values[1], values[2], values[3])
    if not out:
        raise ValueError("lscpu printed no cpus")
    return out


def compare_lscpu(topology: Topology, lscpu: Mapping[int, tuple[int | None, int | None, int | None]]) -> list[str]:
    """Where the topology and lscpu disagree (empty: they agree): CPUs only one lists, a CPU's
    socket or NUMA node, and which CPUs share a core."""
    problems = []
    ours = set(topology.cpus)
    theirs = set(lscpu)
    if ours - theirs:
        problems.append(f"cpus {sorted(ours - theirs)} are online in sysfs but not listed by lscpu")
    if theirs - ours:
        problems.append(f"cpus {sorted(theirs - ours)} are listed by lscpu but not online in sysfs")
    groups_lscpu: dict[tuple[int | None, int | None], set[int]] = {}
    for cpu in sorted(ours & theirs):
        core, socket, node = lscpu[cpu]
        groups_lscpu.setdefault((socket, core), set()).add(cpu)
        if socket is not None and topology.socket_of(cpu) != socket:
            problems.append(f"cpu {cpu}: socket {topology.socket_of(cpu)} here, {socket} by lscpu")
        if node is not None and topology.numa_node_of(cpu) != node:
            problems.append(f"cpu {cpu}: NUMA node {topology.numa_node_of(cpu)} here, {node} by lscpu")
    for cpus in groups_lscpu.values():
        cores = {topology.core_of(c) for c in cpus}
        if len(cores) > 1:
            problems.append(f"cpus {sorted(cpus)} share a core by lscpu but not here")
    return problems


def topology_part(topology: Topology, lscpu_text: str | None) -> dict[str, Any]:
    """Part 1: the topology against lscpu (``lscpu_text``, or ``lscpu`` run here)."""
    lines = [topology.describe().splitlines()[0]]
    if lscpu_text is None:
        if shutil.which("lscpu") is None:
            return {"status": "missing", "lines": [*lines, "lscpu is not installed (util-linux): not compared"]}
        done = subprocess.run(["lscpu", "-p=CPU,CORE,SOCKET,NODE"], capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            return {"status": "missing", "lines": [*lines, f"lscpu failed: {done.stderr.strip()[:200]}"]}
        lscpu_text = done.stdout
    try:
        problems = compare_lscpu(topology, parse_lscpu(lscpu_text))
    except ValueError as error:
        return {"status": "failed", "lines": [*lines, str(error)]}
    if problems:
        return {"status": "failed", "lines": [*lines, *problems[:20]], "problems": problems}
    return {
        "status": "ok",
        "lines": [*lines, f"lscpu agrees on every cpu's socket, core and NUMA node ({topology.n_cpus} cpus)"],
    }


def counter_report(resolution: pmu.Resolution, readings: Mapping[str, float] | None = None) -> dict[str, Any]:
    """Part 2 from a resolution (and, where a run read them, the values of the key metrics): each
    key metric ``counted`` (non-zero), ``zero`` (counted but read 0: failed), or missing with why."""
    countable = sorted({c.metric for c in resolution.counters})
    metrics: dict[str, dict[str, Any]] = {}
    for metric in KEY_METRICS:
        if metric in resolution.missing:
            metrics[metric] = {"status": "missing", "why": resolution.missing[metric]}
        elif metric not in countable:
            metrics[metric] = {"status": "missing", "why": "not in the resolved event sets"}
        elif readings is None:
            metrics[metric] = {"status": "countable"}
        else:
            value = readings.get(metric, math.nan)
            ok = isinstance(value, (int, float)) and not math.isnan(value) and value > 0
            metrics[metric] = {"status": "counted" if ok else "zero", "value": value}
    failed = [m for m, r in metrics.items() if r["status"] == "zero"]
    missing = [m for m, r in metrics.items() if r["status"] == "missing"]
    lines = [f"countable here: {', '.join(countable) or 'none'}"]
    for metric, r in metrics.items():
        detail = r.get("why") or (f"{r['value']:,.0f}" if "value" in r else "")
        lines.append(f"{metric}: {r['status']}" + (f" ({detail})" if detail else ""))
    status = "failed" if failed else "missing" if missing else "ok"
    return {"status": status, "lines": lines, "metrics": metrics, "countable": countable}


def _read_key_metrics(resolution: pmu.Resolution) -> dict[str, float]:
    """A short one-instance run on this machine with the counters that resolved; the key metrics' totals."""
    from islands.config.settings import DriverConfig, EngineConfig, ProfileConfig, RunConfig
    from islands.execution.runner import execute, plan

    sets = tuple(dict.fromkeys(KEY_METRICS[m] for m in KEY_METRICS if m not in resolution.missing))
    config = RunConfig(
        engine=EngineConfig(cc="auto", lock_policy="auto"),
        driver=DriverConfig(warmup_s=0.1, duration_s=0.5),
        profile=ProfileConfig(counters=sets),
    )
    result = execute(plan(config, "1"))
    totals = result.profile.get("counters", {})
    return {m: float(totals.get(m, math.nan)) for m in KEY_METRICS}


def counters_part(pmu_sysfs: str | None, cpuinfo: str | None) -> dict[str, Any]:
    """Part 2: on this machine (``pmu_sysfs`` None) the resolution and a short run reading the key
    metrics; on a recorded tree, what it would count (nothing is opened)."""
    sets = list(pmu.EVENT_SETS)
    if pmu_sysfs is None:
        resolution = pmu.resolve_here(sets)
        needs_run = any(m not in resolution.missing for m in KEY_METRICS)
        try:
            readings = _read_key_metrics(resolution) if needs_run else None
        except (RuntimeError, ValueError) as error:
            return {"status": "failed", "lines": [f"the counting run failed: {error}"]}
        return counter_report(resolution, readings)
    info = Path(cpuinfo).read_text() if cpuinfo else ""
    resolution = pmu.resolve(sets, pmu.parse_pmus(pmu.read_pmu_files(pmu_sysfs)), pmu.cpu_family(info), paranoid=-1)
    return counter_report(resolution)


def fig11_part(out: Path, quick: bool, progress: bool | None) -> dict[str, Any]:
    """Part 3: experiments/default.toml (paper 000 Fig 11 at 1ISL, per-socket, per-core, with
    intervals) into ``out/fig11``, drawn, its verdicts quoted."""
    from islands.experiments.reproduce import default_experiments_dir, quick_spec
    from islands.experiments.sweep import Sweep, load_spec
    from islands.plots import render_results

    directory = default_experiments_dir()
    if directory is None or not (directory / "default.toml").exists():
        return {"status": "missing", "lines": ["experiments/default.toml is not found (neither here nor packaged)"]}
    spec = load_spec(directory / "default.toml")
    if quick:
        spec = quick_spec(spec)
    target = out / "fig11"
    try:
        Sweep(spec, read_topology(), target).run(fresh=True, progress=progress)
        rendered = render_results(target)
    except (RuntimeError, ValueError) as error:
        return {"status": "failed", "lines": [f"the Fig 11 sweep failed: {error}"]}
    summary = (target / "summary.txt").read_text().splitlines() if (target / "summary.txt").exists() else []
    return {
        "status": "ok",
        "lines": [f"figure: {rendered.png}", *[line for line in summary if line.strip()][:20]],
        "directory": str(target),
    }


def run_server_check(
    out: str | Path,
    *,
    sysfs: str | None = None,
    lscpu: str | None = None,
    pmu_sysfs: str | None = None,
    cpuinfo: str | None = None,
    runs: bool = True,
    quick: bool = False,
    progress: bool | None = None,
) -> ServerCheck:
    """Runs the check into ``out`` and writes summary.md and summary.json there. ``sysfs``,
    ``lscpu`` (a file of ``lscpu -p=CPU,CORE,SOCKET,NODE`` output), ``pmu_sysfs`` and ``cpuinfo``
    read a recorded machine instead of this one; ``runs=False`` leaves out the runs (part 3)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    began = time.monotonic()
    topology = read_topology(sysfs) if sysfs else read_topology()
    check = ServerCheck(machine=Path(sysfs).name if sysfs else "this machine")
    lscpu_text = Path(lscpu).read_text() if lscpu else None
    check.parts["topology"] = topology_part(topology, lscpu_text)
    check.parts["counters"] = counters_part(pmu_sysfs, cpuinfo)
    if runs and sysfs is None:
        check.parts["fig11"] = fig11_part(out, quick, progress)
    else:
        why = "another machine's sysfs tree: its runs need that machine" if sysfs else "--no-runs"
        check.parts["fig11"] = {"status": "missing", "lines": [f"not run ({why})"]}
    check.parts["time"] = {"status": "ok", "lines": [f"{time.monotonic() - began:.0f} s"]}
    (out / "summary.json").write_text(json.dumps(check.to_dict(), indent=2, default=str))
    (out / "summary.md").write_text(check.markdown())
    return check
