"""What group commit costs TPC-C (issue 31, item 2): NewOrder + Payment (50/50, one warehouse
per worker, nothing remote) at 1 and 2 workers of one shared-everything instance, unlogged
against group commit with the log on tmpfs, and group commit as it was before (the flusher
woken by each group's first commit: ``log.group_delay_us`` 0) against as it is now (a
gathering flusher that wakes on its timer, 200 µs by default).

Every run is one instance in this process (the path ``islands run --log`` takes), fresh each
time; the variants are interleaved round by round. Prints each variant's mean with its 95%
interval, the ratios that matter with theirs, the mean records per flush and the commits'
p50/p99 latency (a gathering flusher trades latency for throughput); asserts nothing.

    python benchmarks/logging_cost.py [--rounds N] [--duration S] [--log-root DIR]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile

import islands
from _runner import Runner
from islands.analysis.statistics import summarize
from islands.analysis.verdicts import ratio_words

#: The variants: (name, log mode, group delay in µs).
VARIANTS = (
    ("unlogged", "off", 0.0),
    ("group commit, woken per commit", "group_commit", 0.0),
    ("group commit", "group_commit", None),
)


def _run(workers: int, mode: str, delay_us: float | None, args: argparse.Namespace) -> dict:
    directory = tempfile.mkdtemp(prefix="islands-logging-cost-", dir=args.log_root)
    try:
        log = islands.LogConfig()
        if mode != "off":
            log = islands.LogConfig(mode=mode, directory=directory)
            if delay_us is not None:
                log = islands.LogConfig(mode=mode, directory=directory, group_delay_us=delay_us)
        config = islands.RunConfig(
            workload="tpcc",
            tpcc=islands.TpccConfig(
                warehouses_per_site=1, mix="new_order:50,payment:50", payment_remote=0, new_order_remote_item=0
            ),
            driver=islands.DriverConfig(warmup_s=args.warmup, duration_s=args.duration, cpus=tuple(range(workers))),
            log=log,
        )
        result = islands.run(config).to_dict()
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    logged = result["instances"][0]["log"]
    return {
        "tps": result["throughput_tps"],
        "per_flush": logged["records"] / logged["flushes"] if logged["flushes"] else float("nan"),
        "p50_us": result["latency"]["p50_us"],
        "p99_us": result["latency"]["p99_us"],
    }


RUNNER = Runner(__file__, __doc__, rounds=6, duration=1.5, warmup=0.3)
RUNNER.parser.add_argument("--log-root", default="/dev/shm", help="where the logs go (default tmpfs)")
RUNNER.parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated")


def main(args: argparse.Namespace) -> None:
    counts = [int(w) for w in args.workers.split(",")]
    runs: dict[tuple[int, str], list[dict]] = {(w, name): [] for w in counts for name, _, _ in VARIANTS}
    for rep in range(args.rounds):
        for w in counts:
            for name, mode, delay in VARIANTS:  # interleaved: one of each per round
                runs[(w, name)].append(_run(w, mode, delay, args))
        print(f"round {rep + 1}/{args.rounds} done", flush=True)
    print(
        f"\nTPC-C NewOrder+Payment, 1 warehouse per worker, log on {args.log_root}, "
        f"{args.rounds} interleaved runs of {args.duration:g} s (mean, 95% CI):"
    )
    for w in counts:
        print(f"\n{w} worker{'s' if w > 1 else ''}:")
        for name, mode, _ in VARIANTS:
            values = runs[(w, name)]
            for key, unit in (("tps", "txn/s"), ("p50_us", "us"), ("p99_us", "us"), ("per_flush", "records")):
                RUNNER.record(key, [v[key] for v in values], unit=unit, workers=w, variant=name)
            s = summarize([v["tps"] for v in values])
            extra = ""
            if mode != "off":
                extra = f"  {statistics.median(v['per_flush'] for v in values):.1f} records/flush"
            latency = (
                f"p50 {statistics.median(v['p50_us'] for v in values):.1f} µs, "
                f"p99 {statistics.median(v['p99_us'] for v in values):.1f} µs"
            )
            rate = f"{s.mean / 1e3:7.1f} K txn/s [{s.ci_low / 1e3:.1f}-{s.ci_high / 1e3:.1f}]"
            print(f"  {name:31s} {rate}  {latency}{extra}")
        tps = {name: [v["tps"] for v in runs[(w, name)]] for name, _, _ in VARIANTS}
        print(
            f"  logged / unlogged:               {ratio_words(tps['group commit'], tps['unlogged'])}  (goal: >= 0.85)"
        )
        print(
            "  logged / logged woken per commit: "
            f"{ratio_words(tps['group commit'], tps['group commit, woken per commit'])}"
        )


if __name__ == "__main__":
    RUNNER.run(main)
