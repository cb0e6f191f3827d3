"""What group commit costs TPC-C (issue 31 item 2, issue 46 item 4): NewOrder + Payment (50/50, one
warehouse per worker, nothing remote) at 1 and 2 workers of one shared-everything instance,
unlogged against group commit with the log on tmpfs, as it runs by default (the workers write
the groups themselves, ``log.worker_writes``: the first worker to find the open group older than
the group delay writes it, no thread is woken) and with the flusher thread writing every group
(``worker_writes`` off: a gathering flusher waking on its 200 µs timer), and with command
logging (``log.content`` command: each transaction's words, about a tenth of the bytes, instead
of its rows' after-images); with ``--disk-log-root DIR``, group commit with the log on DIR too
(a real ``fdatasync``; the flusher writes there whatever ``worker_writes`` says); with
``--woken-per-commit``, the flusher woken by each group's first commit (``log.group_delay_us``
0, issue 31's old default).

Every run is one instance in this process (the path ``islands run --log`` takes), fresh each
time; the variants are interleaved round by round (every other round in reverse order). Prints
each variant's mean with its 95% interval, its CPU per transaction (the workers' CPU time in the
window over its commits, plus the flusher thread's over its records), the records per flush,
the share of flushes the workers wrote and the commits' p50/p99 latency, and logged / unlogged
at each worker count as the paired ratio of the rounds (each round's logged run over its
unlogged one: a machine whose speed drifts between rounds widens the interval rather than
shifting it), in throughput and per CPU-second (unlogged CPU per transaction over logged: on a
shared machine the scheduler gives a run a varying share of the CPUs, which moves its
throughput but not what a transaction costs); asserts nothing. With ``--breakdown N`` every
run also times every Nth transaction by component (``profile.breakdown_every``) and each variant
prints its median µs per transaction in management (the commit pipeline, and the group write a
worker does), execution and logging (append and encode): where a logged transaction's extra
time goes, and whether a change to the log moved it or removed it. Each round also times the
kernel appending to a new file in the tmpfs log root in group-sized writes (its pages allocated as
they are written) and overwriting it (pages there): with the log's bytes per transaction, what
the log's file system alone costs a transaction on this machine, and the ceiling that puts on
logged / unlogged per CPU-second even with the engine's side of the log free (unlogged CPU per
transaction over itself plus that share), one value a round, printed with its interval, and
the same ceiling from the time the runs' own group writes took (``flush_ns`` per record). At 2
workers each run is framed by the cross-core round trip of its two CPUs (before and after): on a
VM the host moves the vCPUs, and where they stop sharing a cache every line the workers share
(the log's latch and buffer, an index partition's latch) costs several times more; logged /
unlogged is printed again over the rounds whose every run saw the CPUs near.

    python benchmarks/logging_cost.py [--rounds N] [--duration S] [--log-root DIR] [--variants V,...]
                                      [--disk-log-root DIR] [--woken-per-commit] [--breakdown N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time

import islands
from _runner import Runner, round_order
from islands.analysis.statistics import block_ratio, summarize
from islands.analysis.verdicts import words_of
from islands.measure.system_state import cross_core_round_trip

#: A variant: (name, log mode, where its log goes: "tmpfs" or "disk", the LogConfig fields it sets).
Variant = tuple[str, str, str, dict]

UNLOGGED: Variant = ("unlogged", "off", "", {})
WORKERS_WRITE: Variant = ("group commit (workers write)", "group_commit", "tmpfs", {})
FLUSHER_WRITES: Variant = ("group commit (flusher writes)", "group_commit", "tmpfs", {"worker_writes": False})
COMMANDS: Variant = ("group commit, command log", "group_commit", "tmpfs", {"content": "command"})
WOKEN_PER_COMMIT: Variant = ("flusher woken per commit", "group_commit", "tmpfs", {"group_delay_us": 0.0})
ON_DISK: Variant = ("group commit, log on disk", "group_commit", "disk", {})
#: --variants' names of the logged variants every round runs by default (unlogged always runs).
LOGGED_VARIANTS = {"workers": WORKERS_WRITE, "flusher": FLUSHER_WRITES, "commands": COMMANDS}


#: The components a breakdown run prints (islands.measure.run_profile's names, without _us).
BREAKDOWN_PARTS = ("management", "execution", "logging")


def _run(workers: int, variant: Variant, args: argparse.Namespace) -> dict:
    _, mode, where, fields = variant
    root = args.disk_log_root if where == "disk" else args.log_root
    directory = tempfile.mkdtemp(prefix="islands-logging-cost-", dir=root) if mode != "off" else ""
    try:
        log = islands.LogConfig(mode=mode, directory=directory, **fields) if mode != "off" else islands.LogConfig()
        config = islands.RunConfig(
            workload="tpcc",
            tpcc=islands.TpccConfig(
                warehouses_per_site=1, mix="new_order:50,payment:50", payment_remote=0, new_order_remote_item=0
            ),
            driver=islands.DriverConfig(warmup_s=args.warmup, duration_s=args.duration, cpus=tuple(range(workers))),
            log=log,
            profile=islands.ProfileConfig(breakdown_every=args.breakdown),
        )
        # Where the host put the two CPUs, just before and after the run: on a VM their cache
        # line round trip changes when it moves the vCPUs (near: a shared cache; far: not).
        pair = list(range(workers))[:2]
        trips = [cross_core_round_trip(pair)[0] if workers >= 2 else float("nan")]
        result = islands.run(config).to_dict()
        trips.append(cross_core_round_trip(pair)[0] if workers >= 2 else float("nan"))
    finally:
        if directory:
            shutil.rmtree(directory, ignore_errors=True)
    instance = result["instances"][0]
    logged = instance["log"]
    flushes = logged["flushes"]
    # CPU per transaction: the workers' in the window, plus the flusher thread's per record
    # (its whole run: warm-up, window and the last flush, over every record of them).
    cpu_ns = instance["cpu_ns"] / max(instance["commits"], 1)
    if logged["records"]:
        cpu_ns += logged.get("flusher_cpu_ns", 0) / logged["records"]
    breakdown = result.get("breakdown") or {}
    return {
        "log_bytes": logged["bytes"] / logged["records"] if logged["records"] else float("nan"),
        # the group writes' own time (write and sync, wall clock), per record
        "write_us": logged["flush_ns"] / logged["records"] / 1e3 if logged["records"] else float("nan"),
        **{f"{part}_us": breakdown.get(f"{part}_us", float("nan")) for part in BREAKDOWN_PARTS},
        "tps": result["throughput_tps"],
        "trip_ns": max(trips),
        "cpu_us": cpu_ns / 1e3,
        "per_flush": logged["records"] / flushes if flushes else float("nan"),
        "by_workers": logged.get("flushes_by_workers", 0) / flushes if flushes else float("nan"),
        "p50_us": result["latency"]["p50_us"],
        "p99_us": result["latency"]["p99_us"],
    }


def append_speed(root: str, total: int = 64 << 20, write: int = 40 << 10) -> tuple[float, float]:
    """Bytes per second the kernel takes ``write``-byte writes into a new file in ``root`` (its
    pages allocated as they come, as a log grows), then rewriting the same file (pages there)."""
    fd, path = tempfile.mkstemp(prefix="islands-append-speed-", dir=root)
    try:
        data = os.urandom(write)
        speeds = []
        for _ in range(2):
            os.lseek(fd, 0, os.SEEK_SET)
            start = time.perf_counter()
            for _ in range(total // write):
                os.write(fd, data)
            speeds.append(total / (time.perf_counter() - start))
        return speeds[0], speeds[1]
    finally:
        os.close(fd)
        os.unlink(path)


RUNNER = Runner(__file__, __doc__, rounds=6, duration=1.5, warmup=0.3)
RUNNER.parser.add_argument("--log-root", default="/dev/shm", help="where the tmpfs logs go (default /dev/shm)")
RUNNER.parser.add_argument(
    "--disk-log-root", default=None, help="also log to this directory on a disk (real fdatasync); default: not"
)
RUNNER.parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated")
RUNNER.parser.add_argument(
    "--breakdown",
    type=int,
    default=0,
    metavar="N",
    help="time every Nth transaction by component and print each variant's (default 0: off)",
)
RUNNER.parser.add_argument(
    "--woken-per-commit", action="store_true", help="also run the flusher woken per commit (group_delay_us 0)"
)
RUNNER.parser.add_argument(
    "--variants",
    default=",".join(LOGGED_VARIANTS),
    help="the logged variants beside unlogged, comma-separated: workers (group commit, the workers writing), "
    "flusher (the flusher writing), commands (command log); fewer make each round shorter (default all)",
)


def main(args: argparse.Namespace) -> None:
    for root in filter(None, (args.log_root, args.disk_log_root)):
        if not os.path.isdir(root):
            raise SystemExit(f"logging_cost.py: {root} is not a directory")
    if args.breakdown < 0:
        raise SystemExit(f"logging_cost.py: --breakdown {args.breakdown}: must be 0 (off) or more")
    counts = [int(w) for w in args.workers.split(",")]
    variants = chosen_variants(args.variants)
    if args.woken_per_commit:
        variants.append(WOKEN_PER_COMMIT)
    if args.disk_log_root:
        variants.append(ON_DISK)
    runs: dict[tuple[int, str], list[dict]] = {(w, v[0]): [] for w in counts for v in variants}
    appends: list[tuple[float, float]] = []  # (new file, rewrite) bytes per second, one per round
    for rep in range(args.rounds):
        for w, v in round_order([(w, v) for w in counts for v in variants], rep):  # interleaved: one of each
            runs[(w, v[0])].append(_run(w, v, args))
        appends.append(append_speed(args.log_root))
        print(f"round {rep + 1}/{args.rounds} done (load average {os.getloadavg()[0]:.1f})", flush=True)
    where = f"tmpfs logs in {args.log_root}" + (f", disk logs in {args.disk_log_root}" if args.disk_log_root else "")
    print(
        f"\nTPC-C NewOrder+Payment, 1 warehouse per worker, {where}, "
        f"{args.rounds} interleaved runs of {args.duration:g} s (mean, 95% CI), load average "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}:"
    )
    RUNNER.record("append_new_file", [a[0] for a in appends], unit="B/s")
    RUNNER.record("append_rewrite", [a[1] for a in appends], unit="B/s")
    new, rewrite = (summarize([a[i] / 1e9 for a in appends]) for i in (0, 1))
    print(
        f"the kernel takes 40 KiB writes into a new file in {args.log_root} at {new.mean:.2f} GB/s "
        f"[{new.ci_low:.2f}-{new.ci_high:.2f}], rewriting it at {rewrite.mean:.2f} GB/s "
        f"[{rewrite.ci_low:.2f}-{rewrite.ci_high:.2f}] (a round each)"
    )
    for w in counts:
        print(f"\n{w} worker{'s' if w > 1 else ''}:")
        for name, mode, _, _ in variants:
            values = runs[(w, name)]
            for key, unit in (
                ("tps", "txn/s"),
                ("cpu_us", "us"),
                ("p50_us", "us"),
                ("p99_us", "us"),
                ("per_flush", "records"),
                ("by_workers", "share"),
            ):
                RUNNER.record(key, [v[key] for v in values], unit=unit, workers=w, variant=name)
            s = summarize([v["tps"] for v in values])
            extra = ""
            if mode != "off":
                extra = (
                    f"  {statistics.median(v['per_flush'] for v in values):.1f} records/flush, "
                    f"{statistics.median(v['by_workers'] for v in values):.0%} by workers"
                )
            latency = (
                f"p50 {statistics.median(v['p50_us'] for v in values):.1f} µs, "
                f"p99 {statistics.median(v['p99_us'] for v in values):.1f} µs"
            )
            rate = f"{s.mean / 1e3:7.1f} K txn/s [{s.ci_low / 1e3:.1f}-{s.ci_high / 1e3:.1f}]"
            cpu = f"{statistics.median(v['cpu_us'] for v in values):.2f} CPU-µs/txn"
            print(f"  {name:31s} {rate}  {cpu}  {latency}{extra}")
            if args.breakdown:
                for part in BREAKDOWN_PARTS:
                    RUNNER.record(f"{part}_us", [v[f"{part}_us"] for v in values], unit="us", workers=w, variant=name)
                parts = ", ".join(
                    f"{part} {statistics.median(v[f'{part}_us'] for v in values):.2f}" for part in BREAKDOWN_PARTS
                )
                print(f"  {'':31s} breakdown µs/txn: {parts}")
        base = statistics.median(v["cpu_us"] for v in runs[(w, UNLOGGED[0])])
        for variant in (v for v in (WORKERS_WRITE, COMMANDS) if v in variants):
            logged_runs = runs[(w, variant[0])]
            per_txn = statistics.median(v["log_bytes"] for v in logged_runs)
            extra = statistics.median(v["cpu_us"] for v in logged_runs) - base
            share = per_txn / new.mean / 1e3
            print(
                f"  {variant[0]}: {per_txn:.0f} B of log per transaction; its file system's share, at the speeds "
                f"above, {share:.2f} µs (the copy alone {per_txn / rewrite.mean / 1e3:.2f} µs), of the "
                f"{extra:.2f} CPU-µs a logged transaction costs more"
            )
            # What those bytes alone allow: with the engine's side of the log free, a transaction
            # still costs the kernel's share more CPU (on the worker that writes, or on a core
            # that would otherwise run a worker). One value a round, from that round's unlogged
            # CPU per transaction, logged bytes and append speed.
            caps = [
                u["cpu_us"] / (u["cpu_us"] + v["log_bytes"] / a[0] * 1e6)
                for u, v, a in zip(runs[(w, UNLOGGED[0])], logged_runs, appends)
            ]
            RUNNER.record("file_system_cap", caps, unit="ratio", workers=w, variant=variant[0])
            cap = summarize(caps)
            print(
                f"  {'':4s}with the engine's side of the log free, those bytes alone would cap logged / unlogged per "
                f"CPU-second at {cap.mean:.3f} ({cap.ci_low:.3f}-{cap.ci_high:.3f}; each round's unlogged CPU-µs/txn "
                "over itself plus its logged bytes at its append speed)"
            )
            # The same ceiling from the run itself: the time its group writes took, per record.
            writes = summarize([v["write_us"] for v in logged_runs])
            in_run = summarize(
                [u["cpu_us"] / (u["cpu_us"] + v["write_us"]) for u, v in zip(runs[(w, UNLOGGED[0])], logged_runs)]
            )
            RUNNER.record("write_us", [v["write_us"] for v in logged_runs], unit="us", workers=w, variant=variant[0])
            print(
                f"  {'':4s}in the runs, its group writes took {writes.mean:.3f} µs a transaction "
                f"({writes.ci_low:.3f}-{writes.ci_high:.3f}): a cap of {in_run.mean:.3f} "
                f"({in_run.ci_low:.3f}-{in_run.ci_high:.3f}) the same way"
            )
        unlogged = dict(enumerate(v["tps"] for v in runs[(w, UNLOGGED[0])]))
        unlogged_cpu = dict(enumerate(v["cpu_us"] for v in runs[(w, UNLOGGED[0])]))
        for name, mode, _, _ in variants:
            if mode == "off":
                continue
            logged = dict(enumerate(v["tps"] for v in runs[(w, name)]))
            # throughput, then the same ratio as the CPU a transaction costs sees it (unlogged
            # CPU/txn over logged): what throughput would show with the CPUs to itself and busy
            cpu = block_ratio(unlogged_cpu, dict(enumerate(v["cpu_us"] for v in runs[(w, name)])))
            for measure, key, r in (
                ("throughput", "logged_over_unlogged", block_ratio(logged, unlogged)),
                ("per CPU-second", "cpu_efficiency_ratio", cpu),
            ):
                RUNNER.record(key, [r.value, r.low, r.high], unit="ratio", workers=w, variant=name)
                goal = f"TPC-C {'command-' if name == COMMANDS[0] else ''}logged / unlogged, {w} worker(s), {measure}"
                words = RUNNER.goal(goal, r, 0.9) if variant_is_goal(name) else words_of(r)
                print(f"  {name + f' / unlogged, {measure}:':52s} {words}")
        if w >= 2:
            print_by_placement(w, variants, runs)


def near_rounds(trips: list[list[float]]) -> tuple[list[int], float]:
    """The rounds whose every run saw its two CPUs near (each run's cross-core round trip, the
    larger of before and after, under twice the least any run saw), and that bound. ``trips``:
    one list per variant, a trip per round. A round with a trip not measured is not near."""
    seen = [t for runs in trips for t in runs if t == t]
    if not seen:
        return [], float("nan")
    bound = 2 * min(seen)
    return [i for i in range(len(trips[0])) if all(runs[i] < bound for runs in trips)], bound


def print_by_placement(w: int, variants: list[Variant], runs: dict[tuple[int, str], list[dict]]) -> None:
    """Logged / unlogged again over the rounds whose runs all had their two CPUs near: on a VM
    the host moves vCPUs, and where they no longer share a cache every line the workers share
    (the log's latch and buffer, an index partition's latch) costs several times more. Where the
    placement is measured before the runs, it is the machine's, not the variant's."""
    names = [v[0] for v in variants]
    for n in names:
        RUNNER.record("trip_ns", [r["trip_ns"] for r in runs[(w, n)]], unit="ns", workers=w, variant=n)
    near, bound = near_rounds([[r["trip_ns"] for r in runs[(w, n)]] for n in names])
    rounds = len(runs[(w, names[0])])
    far = [r["trip_ns"] for n in names for r in runs[(w, n)] if not r["trip_ns"] < bound]
    far_trip = f"; far runs saw {statistics.median(far):.0f} ns (median)" if far else ""
    print(
        f"  the two CPUs were near (cross-core round trip under {bound:.0f} ns, twice the least seen) in every run "
        f"of {len(near)} of {rounds} rounds{far_trip}"
    )
    if len(near) < 2:
        return
    unlogged = runs[(w, UNLOGGED[0])]
    for name in names[1:]:
        logged = runs[(w, name)]
        r = block_ratio({i: logged[i]["tps"] for i in near}, {i: unlogged[i]["tps"] for i in near})
        RUNNER.record("logged_over_unlogged_near", [r.value, r.low, r.high], unit="ratio", workers=w, variant=name)
        goal = f"TPC-C {'command-' if name == COMMANDS[0] else ''}logged / unlogged, {w} worker(s), CPUs near"
        words = RUNNER.goal(goal, r, 0.9) if variant_is_goal(name) else words_of(r)
        print(f"  {name + ' / unlogged, CPUs near:':52s} {words}")


def chosen_variants(text: str) -> list[Variant]:
    """Unlogged, then the logged variants ``text`` (``--variants``) names, in its order; exits
    with one line naming the list when a name is unknown or given twice."""
    names = [n for n in text.split(",") if n]
    if any(n not in LOGGED_VARIANTS for n in names) or len(set(names)) != len(names):
        expected = ", ".join(LOGGED_VARIANTS)
        raise SystemExit(f"logging_cost.py: --variants {text!r}: expected distinct names of {expected}")
    return [UNLOGGED, *(LOGGED_VARIANTS[n] for n in names)]


def variant_is_goal(name: str) -> bool:
    """Whether a variant's ratio is one issue 46's goal names: logged on tmpfs, as the defaults
    run (the rows' after-images) or with log.content = command."""
    return name in (WORKERS_WRITE[0], COMMANDS[0])


if __name__ == "__main__":
    RUNNER.run(main)
