"""``islands bench ipc|counters|placement``: the hardware microbenchmarks of paper 000 (Sec 3-4).

Each writes its rows and manifest to ``results/bench-<name>-<UTC timestamp>/`` (``--out DIR``
to choose), prints a table and renders its figure there (000 Fig 2; Fig 5 and 7; Fig 6). Bad
input (an unknown mechanism, lock kind or placement, a CPU that is not online, a size <= 0)
is a ValueError, which the dispatcher prints as one line with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console, JustifyMethod
from rich.table import Table

from islands.cli.json_output import dumps
from islands.machine.topology import format_cpulist

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["main", "register"]


def _add_common(p: argparse.ArgumentParser, reps: int, duration: float, warmup: float) -> None:
    p.add_argument("--reps", type=int, default=reps, metavar="N", help=f"repetitions of every point (default {reps})")
    p.add_argument(
        "--duration", type=float, default=duration, metavar="S", help=f"measured seconds per run (default {duration:g})"
    )
    p.add_argument(
        "--warmup", type=float, default=warmup, metavar="S", help=f"warm-up seconds per run (default {warmup:g})"
    )
    p.add_argument(
        "--out", metavar="DIR", default=None, help="results directory (default: results/bench-<name>-<UTC timestamp>)"
    )
    p.add_argument("--no-figure", action="store_true", help="store the rows but draw no figure")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--json", action="store_true", help="print the rows and where they went as JSON")


#: The most round trips or increments a fixed-count benchmark makes (about a minute's worth at
#: tens of nanoseconds each; more is a mistyped number, and would run for hours).
MAX_COUNT = 10**9


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``bench`` subcommand and its three benchmarks (``func=main``)."""
    from islands.bench.counters import GRANULARITIES, LOCK_KINDS, PLACEMENTS
    from islands.bench.ipc import MECHANISMS
    from islands.bench.placement_bench import POLICIES

    p = subparsers.add_parser(
        "bench",
        help="hardware microbenchmarks: messaging, lock-protected counters, thread placement",
        description="Hardware microbenchmarks of paper 000 (Sec 3-4): results, table and figure.",
    )
    sub = p.add_subparsers(dest="bench", metavar="BENCH")
    p.set_defaults(func=None, help_parser=p)  # no benchmark named: its help, exit 2

    ipc = sub.add_parser(
        "ipc",
        help="ping-pong between two pinned processes over each mechanism (000 Fig 2)",
        description="Two pinned processes ping-pong fixed-size messages over each "
        "messaging mechanism; every message is verified by its receiver.",
    )
    ipc.add_argument(
        "--mechanisms",
        default=None,
        metavar="LIST",
        help=f"comma-separated, from {', '.join(MECHANISMS)} (default: all)",
    )
    ipc.add_argument(
        "--cpus",
        action="append",
        default=None,
        metavar="A,B",
        help="a client,server CPU pair (repeat for more; default: two cores of one socket "
        "sharing a cache, and two sockets where the machine has them)",
    )
    ipc.add_argument("--size", type=int, default=256, metavar="BYTES", help="message size (default 256)")
    ipc.add_argument(
        "--round-trips",
        type=int,
        default=0,
        metavar="N",
        help="measure exactly N round trips instead of --duration seconds",
    )
    ipc.add_argument("--seed", type=int, default=1, help="seed of the message contents (default 1)")
    _add_common(ipc, reps=1, duration=1.0, warmup=0.2)
    ipc.set_defaults(func=main)

    counters = sub.add_parser(
        "counters",
        help="threads incrementing lock-protected counters (000 Fig 5 and 7, 001 Table 1)",
        description="T threads (every core by default) increment counters, each behind a lock; "
        "by lock kind, number of counters and thread placement. Every run checks that no update "
        "was lost.",
    )
    counters.add_argument(
        "--locks", default=None, metavar="LIST", help=f"comma-separated, from {', '.join(LOCK_KINDS)} (default: all)"
    )
    counters.add_argument(
        "--counters", default=None, metavar="LIST", help=f"one counter per: {', '.join(GRANULARITIES)} (default: all)"
    )
    counters.add_argument(
        "--placements", default=None, metavar="LIST", help=f"thread placement: {', '.join(PLACEMENTS)} (default: all)"
    )
    counters.add_argument("--threads", type=int, default=0, metavar="N", help="threads (default: one per core)")
    counters.add_argument(
        "--increments",
        type=int,
        default=0,
        metavar="N",
        help="each thread makes exactly N increments instead of running --duration",
    )
    _add_common(counters, reps=3, duration=0.5, warmup=0.1)
    counters.set_defaults(func=main)

    placement = sub.add_parser(
        "placement",
        help="a short OLTP run with its workers placed four ways (000 Fig 6)",
        description="The engine microbenchmark (update rows) with its worker threads placed "
        "spread, grouped, mixed or by the OS; mean and standard deviation over repetitions.",
    )
    placement.add_argument(
        "--policies", default=None, metavar="LIST", help=f"comma-separated, from {', '.join(POLICIES)} (default: all)"
    )
    placement.add_argument(
        "--threads",
        type=int,
        default=0,
        metavar="N",
        help="worker threads (default: the cores of one socket, i.e. every core on a "
        "one-socket machine; the paper: 4 on 4 sockets)",
    )
    placement.add_argument("--rows", type=int, default=10, help="rows per transaction (default 10)")
    placement.add_argument("--rows-per-site", type=int, default=10_000, help="rows per site (default 10000)")
    placement.add_argument("--read", action="store_true", help="read the rows instead of updating them")
    placement.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    _add_common(placement, reps=5, duration=1.0, warmup=0.5)
    placement.set_defaults(func=main)
    return p


def _progress(args: argparse.Namespace):
    if args.quiet:
        return lambda _: None
    err = Console(stderr=True, highlight=False)
    return lambda text: err.print(f"[dim]{text}[/dim]")


def _check_counts(args: argparse.Namespace) -> None:
    if args.reps < 1:
        raise ValueError(f"reps: {args.reps} is not a number of repetitions >= 1")
    if not (args.duration > 0 and math.isfinite(args.duration)):
        raise ValueError(f"duration: {args.duration} is not a number of seconds > 0")
    if not (args.warmup >= 0 and math.isfinite(args.warmup)):
        raise ValueError(f"warmup: {args.warmup} is not a number of seconds >= 0")
    if getattr(args, "threads", 0) < 0:
        raise ValueError(f"threads: {args.threads} is not a number of threads >= 1 (0 = one per core)")


def main(args: argparse.Namespace) -> int:
    """Runs the chosen benchmark, prints its table and where the results went."""
    from islands.bench import suite
    from islands.bench.common import parse_choices, parse_cpu_pair
    from islands.bench.counters import GRANULARITIES, LOCK_KINDS, PLACEMENTS
    from islands.bench.ipc import MECHANISMS, cpu_relation
    from islands.bench.placement_bench import POLICIES
    from islands.machine.topology import read_topology

    _check_counts(args)
    topology = read_topology()
    common = {
        "warmup_s": args.warmup,
        "duration_s": args.duration,
        "repetitions": args.reps,
        "out": args.out,
        "progress": _progress(args),
    }
    if args.bench == "ipc":
        mechanisms = parse_choices(args.mechanisms, MECHANISMS, "mechanisms", "mechanism")
        pairs = None
        if args.cpus:
            pairs = [cpu_relation(topology, *parse_cpu_pair(text, topology)) for text in args.cpus]
        if args.size <= 0:
            raise ValueError(f"size: {args.size} is not a message size in bytes >= 1")
        if not 0 <= args.round_trips <= MAX_COUNT:
            raise ValueError(f"round-trips: {args.round_trips} is not a number from 0 to {MAX_COUNT}")
        outcome = suite.bench_ipc(
            topology,
            mechanisms=mechanisms,
            pairs=pairs,
            message_bytes=args.size,
            round_trips=args.round_trips,
            seed=args.seed,
            **common,
        )
        table = ipc_table(outcome.rows)
    elif args.bench == "counters":
        if not 0 <= args.increments <= MAX_COUNT:
            raise ValueError(f"increments: {args.increments} is not a number from 0 to {MAX_COUNT}")
        outcome = suite.bench_counters(
            topology,
            locks=parse_choices(args.locks, LOCK_KINDS, "locks", "lock kind"),
            granularities=parse_choices(args.counters, GRANULARITIES, "counters", "granularity"),
            placements=parse_choices(args.placements, PLACEMENTS, "placements", "placement"),
            threads=args.threads,
            increments_per_thread=args.increments,
            **common,
        )
        table = counters_table(outcome.rows)
    else:
        outcome = suite.bench_placement(
            topology,
            policies=parse_choices(args.policies, POLICIES, "policies", "placement policy"),
            threads=args.threads,
            rows_per_txn=args.rows,
            rows_per_site=args.rows_per_site,
            update=not args.read,
            seed=args.seed,
            **common,
        )
        table = placement_table(outcome.rows)
    figures = []
    if not args.no_figure:
        from islands.plots.bench_figures import draw_bench  # late: bad input is refused before matplotlib loads

        figures = draw_bench(outcome.name, outcome.rows, outcome.directory, topology)
    if args.json:
        print(
            dumps(
                {
                    "benchmark": outcome.name,
                    "directory": outcome.directory,
                    "figures": figures,
                    "notes": list(outcome.notes),
                    "warnings": list(outcome.warnings),
                    "rows": outcome.rows.to_dict(orient="records"),
                }
            )
        )
        return 0
    console = Console(highlight=False)
    if not console.is_terminal:  # piped or captured: plain ASCII, wide enough that no name is cut
        console.width = 140
        table.box = box.ASCII
    console.print(table)
    for note in outcome.notes:
        console.print(f"note: {note}")
    for warning in outcome.warnings:
        console.print(f"warning: {warning}")
    console.print(f"{len(outcome.rows)} rows in {outcome.directory}")
    for path in figures:
        console.print(f"figure: {path}")
    sys.stdout.flush()
    return 0


def _fmt(x: float, spec: str = ",.1f") -> str:
    return "n/a" if x is None or x != x else format(x, spec)


def _add_columns(t: Table, columns: Iterable[tuple[str, JustifyMethod]]) -> None:
    for name, justify in columns:
        t.add_column(name, justify=justify)


def _tuples(df: pd.DataFrame) -> Iterator[Any]:
    """Rows as named tuples; pandas-stubs type each field as the union of every scalar
    type, which no arithmetic accepts, so the fields are Any here."""
    return df.itertuples()


def ipc_table(rows) -> Table:
    """Round trips per mechanism and pair (median over repetitions of each figure)."""
    t = Table(title="messaging mechanisms: round trip (µs) and messages per second")
    _add_columns(
        t,
        (
            ("pair", "left"),
            ("cpus", "left"),
            ("mechanism", "left"),
            ("bytes", "right"),
            ("p50", "right"),
            ("p99", "right"),
            ("p99.9", "right"),
            ("msgs/s", "right"),
            ("round trips", "right"),
        ),
    )
    g = rows.groupby(["pair", "client_cpu", "server_cpu", "mechanism"], sort=False)
    for (pair, client, server, mechanism), group in g:
        med = group[["rtt_p50_us", "rtt_p99_us", "rtt_p999_us", "messages_per_s"]].median()
        t.add_row(
            pair,
            f"{client},{server}",
            mechanism,
            str(int(group["message_bytes"].iloc[0])),
            _fmt(med["rtt_p50_us"], ",.2f"),
            _fmt(med["rtt_p99_us"], ",.2f"),
            _fmt(med["rtt_p999_us"], ",.2f"),
            _fmt(med["messages_per_s"], ",.0f"),
            f"{int(group['round_trips'].sum()):,}",
        )
    return t


def counters_table(rows) -> Table:
    """Increments per second per point: mean, sd and range over repetitions."""
    from islands.bench.suite import summarize

    t = Table(title="lock-protected counters: million increments per second (all threads)")
    _add_columns(
        t,
        (
            ("counters", "left"),
            ("placement", "left"),
            ("lock", "left"),
            ("threads", "right"),
            ("mean", "right"),
            ("sd", "right"),
            ("min", "right"),
            ("max", "right"),
            ("× 1 counter", "right"),
            ("cpu share", "right"),
        ),
    )
    by = ["granularity", "placement", "lock", "threads", "counters"]
    s = summarize(rows, by, "increments_per_s")
    share = rows.groupby(by, sort=False)["cpu_share"].mean().tolist()
    base = {(r.placement, r.lock): r.mean for r in _tuples(s) if r.granularity == "machine"}
    for r, cpu in zip(_tuples(s), share):
        ratio = r.mean / base[(r.placement, r.lock)] if (r.placement, r.lock) in base else float("nan")
        t.add_row(
            f"{r.counters} ({r.granularity})",
            r.placement,
            r.lock,
            str(r.threads),
            _fmt(r.mean / 1e6, ",.2f"),
            _fmt(r.sd / 1e6, ",.2f"),
            _fmt(r.min / 1e6, ",.2f"),
            _fmt(r.max / 1e6, ",.2f"),
            _fmt(ratio, ",.1f"),
            _fmt(cpu * 100, ".0f") + "%",
        )
    return t


def placement_table(rows) -> Table:
    """Throughput per placement policy: mean ± sd over repetitions."""
    from islands.bench.suite import summarize

    t = Table(title="worker placement: transactions per second")
    _add_columns(
        t,
        (
            ("policy", "left"),
            ("workers", "right"),
            ("cpus", "left"),
            ("mean", "right"),
            ("sd", "right"),
            ("sd/mean", "right"),
            ("min", "right"),
            ("max", "right"),
        ),
    )
    s = summarize(rows, ["policy", "threads"], "throughput_tps")
    cpus = {p: format_cpulist(json.loads(c)) or "not pinned" for p, c in zip(rows["policy"], rows["cpus"])}
    for r in _tuples(s):
        t.add_row(
            r.policy,
            str(r.threads),
            cpus[r.policy],
            _fmt(r.mean, ",.0f"),
            _fmt(r.sd, ",.0f"),
            _fmt(r.sd / r.mean * 100, ".1f") + "%",
            _fmt(r.min, ",.0f"),
            _fmt(r.max, ",.0f"),
        )
    return t
