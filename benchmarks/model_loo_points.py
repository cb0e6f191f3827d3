"""The model's leave-one-out points on this machine (issue 32): measures reduced grids of
000's Fig 11, 14, 22, 23 and 24 (``experiments/model-loo/*.toml``: 1ISL and per-core, short
runs, 5 repetitions interleaved by the sweep), writes them as a points file with the
machine's description and the load during the runs, and prints the leave-one-out table
(:mod:`islands.model.leave_one_out`): for each point, the component model calibrated on all
the others predicts it; per figure the median and max relative error, and each point's
verdict against the 15% tolerance or its own 95% interval where that is wider.

About 15 minutes of runs on 2 cores. Run again, the sweeps resume (``--fresh`` starts over).
Prints; asserts nothing (``tests/test_model_loo.py`` checks the shipped file).

    python benchmarks/model_loo_points.py [--out tests/fixtures/model_loo_points.json]
        [--results results/model-loo] [--fresh] [--no-measure] [--points FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

from _runner import Runner
from islands.analysis.store import ResultStore
from islands.machine.topology import read_topology
from islands.model.figure_axes import points_from_rows
from islands.model.leave_one_out import LOO_TOLERANCE, loo_by_figure, loo_rows
from islands.model.validation import Point, load_points

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments" / "model-loo"
#: The sweeps, in the order they run.
FILES = ("fig11", "fig14", "fig22-tpcb", "fig22-payment", "fig22-new-order", "fig23", "fig24")


def run_sweeps(results: Path, fresh: bool) -> dict[str, dict[str, float]]:
    """Runs every file's sweep into ``results/<stem>``; the 1-minute load average and this
    VM's cross-core round trip (it changes when the host moves the vCPUs) before and after
    each."""
    from islands.measure.system_state import cross_core_round_trip

    sweeps = {}
    for stem in FILES:
        before = {"load_before": os.getloadavg()[0], "trip_ns_before": cross_core_round_trip()[0]}
        cmd = [sys.executable, "-m", "islands", "sweep", str(EXPERIMENTS / f"{stem}.toml")]
        cmd += ["--out", str(results / stem), "--no-progress"] + (["--fresh"] if fresh else [])
        print(f"sweep {stem} ({before})", file=sys.stderr, flush=True)
        subprocess.run(cmd, check=True, cwd=ROOT)
        sweeps[stem] = {**before, "load_after": os.getloadavg()[0], "trip_ns_after": cross_core_round_trip()[0]}
    return sweeps


def collect(results: Path) -> tuple[list[Point], dict[str, float], str]:
    """The points of every sweep's rows, the runs' load (the median and range of the 1-minute
    load average and of other processes' CPU share over all rows) and the first and last
    run's time (UTC)."""
    points: list[Point] = []
    loads: list[float] = []
    others: list[float] = []
    stamps: list[str] = []
    for stem in FILES:
        store = ResultStore(results / stem)
        rows = store.rows()
        figure = str((store.manifest() or {}).get("figure", stem))
        points += points_from_rows(rows, figure)
        loads += [float(x) for x in rows["system.load_avg_1m"].dropna()]
        others += [float(x) for x in rows["system.other_cpu_share"].dropna()]
        stamps += [str(x) for x in rows["metadata.timestamp_utc"].dropna()]
    load = {
        "runs": float(len(loads)),
        "load_avg_1m_median": statistics.median(loads),
        "load_avg_1m_max": max(loads),
        "other_cpu_share_median": statistics.median(others),
        "other_cpu_share_max": max(others),
    }
    return points, load, f"{min(stamps)} to {max(stamps)}"


def machine() -> dict[str, str]:
    """What the points were measured on."""
    topology = read_topology()
    model = ""
    with contextlib.suppress(OSError, StopIteration):
        model = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    cores = sum(len(s.cores) for s in topology.sockets)
    return {
        "hostname": platform.node(),
        "cpu": model,
        "topology": f"{len(topology.sockets)} socket(s), {cores} cores, {len(topology.cpus)} hardware threads",
        "sysfs_fixture": "vm-1x2" if (len(topology.sockets), cores) == (1, 2) else "",
        "kernel": platform.release(),
    }


def write(
    path: Path,
    points: list[Point],
    load: dict[str, float],
    measured_utc: str,
    sweeps: dict[str, dict[str, float]],
    note: str = "",
) -> None:
    """The points file: the machine, the date, the load (and, where this run measured them,
    each sweep's load and cross-core trip before and after), a note on how the runs went and
    the points (repetitions kept)."""
    data = {
        "about": "Leave-one-out points of the Islands model (issue 32): benchmarks/model_loo_points.py",
        "machine": machine(),
        "measured_utc": measured_utc,
        "experiments": [f"experiments/model-loo/{s}.toml" for s in FILES],
        "load": load,
        "sweeps": sweeps,
        "note": note,
        "points": [
            {
                "figure": p.figure,
                "deployment": p.deployment,
                "workload": {
                    "kind": p.workload.kind,
                    "rows": p.workload.rows,
                    "multisite": p.workload.multisite,
                    "zipf_s": p.workload.zipf_s,
                    "rows_per_site": p.workload.rows_per_site,
                    "logged": p.workload.logged,
                },
                "transport": p.transport,
                "measured": p.measured,
                "other_cpu_share": p.other_cpu_share if p.other_cpu_share == p.other_cpu_share else None,
                "repetitions": list(p.repetitions),
            }
            for p in points
        ],
    }
    path.write_text(json.dumps(data, indent=1) + "\n")


def report(points: list[Point]) -> None:
    """The leave-one-out table: every point, then per figure."""
    topology = read_topology(ROOT / "tests" / "fixtures" / "sysfs" / "vm-1x2")
    rows = loo_rows(points, topology)
    print(f"{'point':58} {'measured':>9} {'LOO':>9}  verdict")
    for r in rows:
        p = r.point
        name = f"{p.figure} {p.deployment:5} {p.transport:4} {p.workload.describe()}"
        print(f"{name:58} {p.measured / 1e3:8.1f}K {r.predicted / 1e3:8.1f}K  {r.verdict.text}")
        RUNNER.record("measured throughput", list(p.repetitions) or p.measured, unit="txn/s", point=name)
        RUNNER.record("leave-one-out prediction", r.predicted, unit="txn/s", point=name)
    print(f"\nper figure (tolerance {LOO_TOLERANCE:.0%})")
    print(f"{'figure':10} {'n':>3} {'reps':>4} {'median':>7} {'max':>7} {'within':>7} {'measured ±':>11}")
    for f in loo_by_figure(rows):
        print(
            f"{f.figure:10} {f.n:3d} {f.repetitions:4d} {f.median:7.1%} {f.max:7.1%} "
            f"{f.within:3d}/{f.n + f.skipped:<3d} {f.median_half_width:11.1%}"
        )


RUNNER = Runner(__file__, __doc__)
RUNNER.parser.add_argument("--out", default=str(ROOT / "tests" / "fixtures" / "model_loo_points.json"))
RUNNER.parser.add_argument("--results", default=str(ROOT / "results" / "model-loo"))
RUNNER.parser.add_argument("--fresh", action="store_true", help="start the sweeps over")
RUNNER.parser.add_argument("--no-measure", action="store_true", help="collect the sweeps' rows already there")
RUNNER.parser.add_argument("--points", default=None, help="only print the table of a points file")
RUNNER.parser.add_argument("--note", default="", help="how the runs went, written into the points file")


def main(args: argparse.Namespace) -> None:
    if args.points:
        report(load_points(args.points))
        return
    results = Path(args.results)
    sweeps = {} if args.no_measure else run_sweeps(results, args.fresh)
    points, load, stamp = collect(results)
    write(Path(args.out), points, load, stamp, sweeps, args.note)
    print(f"points: {args.out} ({len(points)}; load average median {load['load_avg_1m_median']:.2f})")
    report(points)


if __name__ == "__main__":
    RUNNER.run(main)
