"""How often the default sweep's stopping rule names a winner between two identical
configurations, and how often a verdict's interval covers a measurement taken afterwards
(issue 45).

A/A (the default): experiments/default.toml's rule (run.precision ±5%, 3 to 6 blocks, alpha
spent across the looks, islands.experiments.precision) on a sweep whose grid compares two labels,
``1ISL`` and ``per-core``, where the per-core label runs the 1ISL point's very deployment and
config: the same configuration under two names, through the real sweep (its store, its
interleaved blocks, its rounds and budget), with short runs. Each ``multisite`` value of the grid
is one independent comparison (``--groups`` of them a sweep, sweeps in fresh directories until
``--comparisons`` are made). A verdict "winner" between them is a false winner: the rate and its
95% (Clopper-Pearson) interval are printed, target ≤ 5%.

A/B (``--ab``): the same sweeps with per-core running as itself: real differences, for the
coverage alone.

Coverage, both modes: after each sweep, every compared pair runs ``--fresh`` more blocks
(interleaved, order alternating) and the fresh blocks' ratio is checked against the interval
the sweep printed for it; the share covered is printed with its interval (target ≥ 90%).

Prints; asserts nothing. The machine's state (steal, other processes' CPU) during the runs is
printed too: on a shared machine, read the figures with it.

    python benchmarks/aa_verdicts.py [--comparisons 40] [--groups 10] [--duration 0.2]
        [--warmup 0.1] [--budget 60] [--fresh 10] [--ab] [--out DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from scipy.stats import binomtest

from _runner import Runner, round_order
from islands.analysis.statistics import block_ratio
from islands.analysis.verdicts import NOT_DISTINGUISHABLE, NOT_SETTLED, WINNER, comparison_words, words_of
from islands.experiments.point import Point, run_point
from islands.experiments.sweep import Sweep, load_spec
from islands.machine.topology import read_topology

REPO = Path(__file__).resolve().parents[1]


def spec_text(args: argparse.Namespace, sweep_no: int) -> str:
    """experiments/default.toml's [run] rule on a grid of two labels × ``--groups`` multisite
    values (read only: no log), with short runs."""
    text = (REPO / "experiments" / "default.toml").read_text()
    text = re.sub(r'(?m)^name = ".*"$', f'name = "aa-{sweep_no}"', text)
    text = re.sub(r"(?m)^warmup_s = .*$", f"warmup_s = {args.warmup}", text)
    text = re.sub(r"(?m)^duration_s = .*$", f"duration_s = {args.duration}", text)
    text = re.sub(r"(?m)^budget_s = .*$", f"budget_s = {args.budget}", text)
    text = re.sub(r"(?m)^steady_warmup = .*$", "steady_warmup = false", text)
    text = re.sub(r"(?m)^seed = .*$", f"seed = {sweep_no + 1}", text)
    text = re.sub(r"(?m)^deployment = \[.*\]$", 'deployment = ["1", "per-core"]', text)
    text = re.sub(r"(?m)^update = \[.*\]$", "update = [false]", text)
    values = ", ".join(f"{i / args.groups:g}" for i in range(args.groups))
    return re.sub(r"(?m)^multisite = \[.*\]$", f"multisite = [{values}]", text)


def twins(sweep: Sweep) -> dict[str, Point]:
    """grid_id of each point → the 1ISL point of its group (what it runs in the A/A mode)."""
    first: dict[tuple[Any, ...], Point] = {}
    for p in sweep.grid_points:
        key = tuple((k, v) for k, v in p.params if k != "deployment")
        if p.deployment.n_instances == 1:
            first[key] = p
    out = {}
    for p in sweep.grid_points:
        key = tuple((k, v) for k, v in p.params if k != "deployment")
        out[p.grid_id] = first[key]
    return out


RUNNER = Runner(__file__, __doc__, duration=0.2, warmup=0.1)
RUNNER.parser.add_argument("--comparisons", type=int, default=40, help="A/A comparisons in all (default 40)")
RUNNER.parser.add_argument("--groups", type=int, default=10, help="comparisons a sweep (default 10)")
RUNNER.parser.add_argument("--budget", type=float, default=60, help="run.budget_s of each sweep (default 60)")
RUNNER.parser.add_argument("--fresh", type=int, default=10, help="blocks of the later measurement (default 10)")
RUNNER.parser.add_argument("--ab", action="store_true", help="per-core runs as itself: coverage of real differences")
RUNNER.parser.add_argument("--out", help="where the sweeps' results go (default: a temporary directory)")


def main(args: argparse.Namespace) -> None:
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="islands-aa-"))
    topology = read_topology()
    mode = "A/B (per-core as itself)" if args.ab else "A/A (per-core label runs the 1ISL config)"
    print(
        f"{mode}: {args.comparisons} comparisons, {args.groups} a sweep, runs {args.warmup:g} + {args.duration:g} s, "
        f"budget {args.budget:g} s a sweep, later measurement {args.fresh} blocks; results in {out}",
        flush=True,
    )
    verdicts: list[str] = []
    covered: list[bool] = []  # of the comparisons whose sweep gave an interval and whose later value is finite
    unchecked = 0
    steal: list[float] = []
    busy = runs = 0
    started = time.monotonic()
    sweep_no = 0
    while len(verdicts) < args.comparisons:
        path = out / f"aa-{sweep_no}.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(spec_text(args, sweep_no))
        sweep = Sweep(load_spec(path), topology, out / f"aa-{sweep_no}")
        twin = twins(sweep)

        def runner(point: Point, twin: dict[str, Point] = twin) -> dict[str, Any]:
            if args.ab:
                return run_point(point, topology)
            return run_point(dataclasses.replace(twin[point.grid_id], repetition=point.repetition), topology)

        sweep.run(runner, progress=False, fresh=True)
        rows = sweep.store.rows()
        runs += len(rows)
        if "system.busy" in rows.columns:
            busy += int(rows["system.busy"].fillna(False).astype(bool).sum())
        if "system.steal_share" in rows.columns:
            steal += [float(v) for v in rows["system.steal_share"] if v == v]
        record = sweep.store.manifest()["precision"]
        groups, precision = record["groups"], float(record["precision"])
        by_id = {p.grid_id: p for p in sweep.grid_points}
        for g in groups[: args.comparisons - len(verdicts)]:
            verdicts.append(g["verdict"])
            # The later measurement: fresh blocks of the same two points, order alternating.
            pair = [by_id[grid_id] for grid_id in g["grid_ids"]]
            new: dict[int, float] = {}
            old: dict[int, float] = {}
            for block in range(args.fresh):
                for p in round_order(pair, block):
                    result = runner(dataclasses.replace(by_id[p.grid_id], repetition=1000 + block))
                    (new if p is pair[0] else old)[block] = float(result["throughput_tps"])
            fresh = block_ratio(new, old)
            later = fresh.value
            low, high = g.get("ratio_low"), g.get("ratio_high")
            checkable = isinstance(low, (float, int)) and isinstance(high, (float, int)) and later == later
            inside = checkable and low <= later <= high
            if checkable:
                covered.append(bool(inside))
            else:
                unchecked += 1
            where = (
                ("inside" if inside else "OUTSIDE") + " the interval" if checkable else "nothing to check it against"
            )
            print(
                f"  {comparison_words(g, precision).text} at level {g['level']:.4f}; later {args.fresh} blocks: "
                f"{words_of(fresh)}, {where}",
                flush=True,
            )
        sweep_no += 1
    RUNNER.record("winner named", [float(v == WINNER) for v in verdicts], unit="share of comparisons", mode=mode)
    RUNNER.record("later measurement inside the interval", [float(c) for c in covered], unit="share", mode=mode)
    n = len(verdicts)
    wrong = verdicts.count(WINNER)
    ci = binomtest(wrong, n).proportion_ci(0.95)
    kind = "false winners" if not args.ab else "winners"
    print(
        f"\n{kind}: {wrong} of {n} comparisons = {wrong / n:.1%} (95% CI {ci.low:.1%}-{ci.high:.1%})"
        + (" [target ≤ 5%]" if not args.ab else "")
    )
    print("verdicts: " + ", ".join(f"{v} {verdicts.count(v)}" for v in (WINNER, NOT_DISTINGUISHABLE, NOT_SETTLED)))
    k, m = sum(covered), len(covered)
    if m:
        cov = binomtest(k, m).proportion_ci(0.95)
        print(
            f"later {args.fresh}-block measurement inside the verdict's interval: {k} of {m} = {k / m:.1%} "
            f"(95% CI {cov.low:.1%}-{cov.high:.1%}) [target ≥ 90%]"
            + (f"; {unchecked} with nothing to check against (a run of 0 txn/s)" if unchecked else "")
        )
    else:
        print(f"later measurement: nothing to check in {unchecked} comparisons (a run of 0 txn/s)")
    share = f"median {statistics.median(steal):.1%}, max {max(steal):.1%}" if steal else "not readable"
    print(
        f"machine: steal {share}; {busy} of {runs} sweep runs flagged busy (other processes); "
        f"{time.monotonic() - started:.0f} s in all"
    )


if __name__ == "__main__":
    RUNNER.run(main)
