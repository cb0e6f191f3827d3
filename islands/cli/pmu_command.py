"""``islands pmu``: what this machine can count, and for what it cannot, why.

For each event set (software, basic, topdown, categories, uncore) every metric is listed with
its encoding and where it came from (a sysfs alias or the family table), or the reason it is
missing (no core PMU in a virtual machine, perf_event_paranoid, no uncore PMU, an unknown
processor family). Unless ``--no-probe``, the counters that resolved are also opened for real
in this process for a moment, so that a counter the kernel refuses says so.
``--sysfs``/``--cpuinfo`` read another machine's recorded tree (nothing is probed then).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from islands.cli.json_output import dumps
from islands.measure import pmu

__all__ = ["capabilities", "main", "register"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``pmu`` subcommand."""
    parser = subparsers.add_parser(
        "pmu", help="what this machine's PMUs can count, and why not", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--sysfs", metavar="ROOT", default="/sys", help="sysfs root (default: %(default)s)")
    parser.add_argument("--cpuinfo", metavar="FILE", default="/proc/cpuinfo", help="cpuinfo file")
    parser.add_argument(
        "--sets", default=",".join(pmu.EVENT_SETS), help="event sets, comma-separated (default: %(default)s)"
    )
    parser.add_argument("--no-probe", action="store_true", help="do not open the counters to check them")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=main)
    return parser


def _probe(counters: tuple[pmu.Counter, ...]) -> dict[str, str]:
    """Opens the per-thread counters here for a moment: metric -> error ('' when it counted)."""
    from islands import _core

    specs = [c.to_core() for c in counters if c.cpu < 0]
    if not specs:
        return {}
    probe = _core.PerfCounters(specs)
    probe.enable()
    sum(i * i for i in range(200_000))  # something to count
    probe.disable()
    out = {}
    for r in probe.read():
        out[r["name"]] = r["error"] or ("" if not math.isnan(r["value"]) else "read NaN")
    return out


def capabilities(
    sets: list[str], sysfs: str | Path = "/sys", cpuinfo: str | Path = "/proc/cpuinfo", probe: bool = True
) -> dict[str, Any]:
    """The report: machine, PMUs, and per event set each metric's status."""
    local = Path(sysfs) == Path("/sys")
    pmus = pmu.parse_pmus(pmu.read_pmu_files(sysfs))
    try:
        family = pmu.cpu_family(Path(cpuinfo).read_text())
    except OSError as e:
        raise ValueError(f"--cpuinfo: cannot read {cpuinfo}: {e.strerror}") from None
    if local:
        resolution = pmu.resolve_here(sets, sysfs, cpuinfo)
        paranoid = pmu.paranoid_level()
    else:
        resolution = pmu.resolve(sets, pmus, family, paranoid=-1, privileged=True)
        paranoid = None
    probed = _probe(resolution.counters) if probe and local else {}
    per_set: dict[str, dict[str, Any]] = {}
    for name in sets:
        rows = {}
        for metric in pmu.EVENT_SETS[name]:
            counters = [c for c in resolution.counters if c.metric == metric]
            if metric in resolution.missing:
                rows[metric] = {"ok": False, "why": resolution.missing[metric]}
            elif probed.get(metric):
                rows[metric] = {"ok": False, "why": probed[metric]}
            else:
                c = counters[0]
                where = (
                    f"{len(counters)} counters on " + ",".join(sorted({c2.source for c2 in counters}))
                    if c.cpu >= 0
                    else c.source
                )
                rows[metric] = {
                    "ok": True,
                    "type": c.type,
                    "config": hex(c.config),
                    "source": where,
                    "probed": metric in probed,
                }
        per_set[name] = rows
    return {"family": family or "unknown", "perf_event_paranoid": paranoid, "pmus": sorted(pmus), "sets": per_set}


def main(args: argparse.Namespace) -> int:
    """Prints the report; exit status 0 (a machine without counters is a report, not an error)."""
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    for s in sets:
        if s not in pmu.EVENT_SETS:
            raise ValueError(f"--sets: unknown event set {s!r} (choose {', '.join(pmu.EVENT_SETS)})")
    report = capabilities(sets, args.sysfs, args.cpuinfo, probe=not args.no_probe)
    if args.json:
        print(dumps(report))
        return 0
    print(f"processor  {report['family']}   perf_event_paranoid {report['perf_event_paranoid']}")
    print(f"PMUs       {', '.join(report['pmus']) or 'none'}")
    for name, rows in report["sets"].items():
        ok = sum(r["ok"] for r in rows.values())
        print(f"\n{name}: {ok} of {len(rows)} countable")
        reasons: dict[str, list[str]] = {}
        for metric, r in rows.items():
            if r["ok"]:
                print(f"  {metric:<22} yes  type {r['type']} config {r['config']}  ({r['source']})")
            else:
                reasons.setdefault(r["why"], []).append(metric)
        for why, metrics in reasons.items():
            print(f"  no: {', '.join(metrics)}\n      because {why}")
    return 0
