"""The client layer on two cores (issue 29): paper 000's Fig 20 with clients that route each
transaction to its home instance, what the clients cost, and an open loop against its target.

Every comparison is made of interleaved repetitions (each round runs every point once, every
other round in reverse order) and printed as a ratio with its 95% interval
(islands.analysis.statistics).

1. Fig 20, 2 rows per transaction, 20% multisite, read and update: per-core (one instance per core, shm) against one
   shared-everything instance (1ISL, 2pl) for Zipf s in 0, 0.5, 1, 1.5, with closed-loop clients;
   the measured distributed share of per-core and its hot instance's share and utilization.
2. What the clients cost: closed clients against every worker its own client (driver.clients
   workers), both deployments at s = 0; the clients' share of the workers' CPU.
3. Open loop: the achieved rate against targets from 10% to 110% of each deployment's
   closed-loop capacity, with p50/p99 latency: a latency-throughput curve (--plot FILE draws it).
4. Paper 002 Figs 11 and 10 with clients: one PLP instance (a worker per core), closed-loop
   clients routed to the worker owning each request's home unit, static PLP against ATraPos
   (the live controller, islands.atrapos.live). Fig 11: TATP GetSubData, and a third into the
   window half the requests go to the first 20% of the subscribers (worker 0's), which
   overloads worker 0. Fig 10: TATP's mix changes (UpdSubData, GetNewDest, standard) with that
   skew on from the start. Per figure: each mode's throughput after the (first) change, the
   ratio with its interval, the hot worker's share of the requests, the re-partitionings, and
   an adaptation time only for runs that re-partitioned after the change.

Prints; asserts nothing.

    python benchmarks/clients.py [--rounds N] [--duration S] [--skews 0,0.5,1,1.5] [--plot FILE]
        [--sections 1,2,3,4] [--plp-duration S]

--plot FILE also draws, beside FILE, each 002 figure's request queue length per worker over
time for one static and one ATraPos run (islands.plots.client_queues).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
from pathlib import Path

import islands
from _runner import Runner, round_order
from islands.analysis.statistics import ratio
from islands.analysis.verdicts import direction, ratio_words
from islands.atrapos.adaptation import adaptation_time
from islands.atrapos.events import Event
from islands.atrapos.live import run_live
from islands.config.settings import RunConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import Deployment

PER_CORE = Deployment(instances=((0,), (1,)), label="per-core")


def base(duration: float, clients: str = "closed", **micro) -> RunConfig:
    """A micro run on cpus 0-1 with the given client mode and micro settings."""
    c = RunConfig()
    driver = dataclasses.replace(c.driver, cpus=(0, 1), warmup_s=0.3, duration_s=duration, clients=clients)
    return dataclasses.replace(c, driver=driver, micro=dataclasses.replace(c.micro, **micro))


def one_isl(c: RunConfig):
    """c on one shared-everything instance of both cores (2pl)."""
    return islands.run(dataclasses.replace(c, engine=dataclasses.replace(c.engine, cc="2pl")))


def per_core(c: RunConfig):
    """c on one single-threaded instance per core (cc none, shm)."""
    engine = dataclasses.replace(c.engine, cc="none", lock_policy="no_wait")
    return run_deployment(PER_CORE, dataclasses.replace(c, engine=engine), transport="shm")


def rounds(points: dict[str, tuple], repetitions: int) -> dict[str, list]:
    """Runs every point once per round (in round_order), for `repetitions` rounds: {name: [results]}."""
    out: dict[str, list] = {name: [] for name in points}
    for rep in range(repetitions):
        for name in round_order(list(points), rep):
            runner, config = points[name]
            out[name].append(runner(config))
    return out


def tps(results: list) -> list[float]:
    return [r.throughput_tps for r in results]


def fig20(skews: list[float], repetitions: int, duration: float) -> None:
    print("1. Fig 20 with closed-loop clients (8 per run), 2 rows, 20% multisite: per-core / 1ISL throughput")
    for update in (False, True):
        kind = "update" if update else "read"
        for s in skews:
            micro = {"multisite": 0.2, "zipf_s": s, "update": update, "rows_per_txn": 2}
            got = rounds(
                {"1ISL": (one_isl, base(duration, **micro)), "per-core": (per_core, base(duration, **micro))},
                repetitions,
            )
            pc = got["per-core"]
            for deployment, results in got.items():
                RUNNER.record(
                    "fig20 throughput", tps(results), unit="txn/s", deployment=deployment, update=update, zipf_s=s
                )
            share = statistics.mean(r.multisite_commits / r.commits for r in pc)
            hot = max(range(2), key=lambda i: pc[0].clients["instances"][i]["share"])
            hot_share = statistics.mean(r.clients["instances"][hot]["share"] for r in pc)
            hot_busy = statistics.mean(r.clients["instances"][hot]["utilization"] for r in pc)
            other_busy = statistics.mean(r.clients["instances"][1 - hot]["utilization"] for r in pc)
            print(
                f"  {kind:6} s={s:<4g} per-core/1ISL {ratio_words(tps(pc), tps(got['1ISL']))}; "
                f"1ISL {statistics.median(tps(got['1ISL'])):,.0f}, per-core {statistics.median(tps(pc)):,.0f} txn/s; "
                f"distributed {share:.1%}; hot instance {hot}: {hot_share:.0%} of requests, busy {hot_busy:.0%} "
                f"(other {other_busy:.0%})"
            )


def client_cost(repetitions: int, duration: float) -> None:
    print("2. What the clients cost at s = 0, local only: closed clients / every worker its own client")
    for name, runner in (("1ISL", one_isl), ("per-core", per_core)):
        got = rounds(
            {"workers": (runner, base(duration, "workers")), "closed": (runner, base(duration, "closed"))}, repetitions
        )
        for clients, results in got.items():
            RUNNER.record("client cost throughput", tps(results), unit="txn/s", deployment=name, clients=clients)
        cpu = statistics.mean(r.clients["client_cpu_share"] for r in got["closed"])
        busy = statistics.mean(statistics.mean(i["utilization"] for i in r.clients["instances"]) for r in got["closed"])
        workers, closed = statistics.median(tps(got["workers"])), statistics.median(tps(got["closed"]))
        print(
            f"  {name:8} {ratio_words(tps(got['closed']), tps(got['workers']))}; "
            f"workers {workers:,.0f}, closed {closed:,.0f} txn/s; the clients' CPU share {cpu:.1%}; "
            f"workers busy {busy:.0%}"
        )


def open_loop(repetitions: int, duration: float, plot: str | None) -> None:
    """Open-loop points of a latency-throughput curve per deployment: offered load from 10% to
    110% of the closed-loop capacity, achieved rate and p50/p99 latency (medians of the runs)."""
    print("3. Open loop: achieved / target and latency as the offered load nears capacity (s = 0, local)")
    curves: dict[str, list[tuple[float, float, float, float, float]]] = {}
    for name, runner in (("1ISL", one_isl), ("per-core", per_core)):
        capacity = statistics.median(tps([runner(base(duration)) for _ in range(repetitions)]))
        print(f"  {name}: closed-loop capacity {capacity:,.0f} txn/s")
        for load in (0.1, 0.25, 0.5, 0.75, 0.9, 1.1):
            target = capacity * load
            got = [runner(_open(duration, target)) for _ in range(repetitions)]
            achieved = [r.throughput_tps / target for r in got]
            RUNNER.record("open loop achieved / target", achieved, unit="fraction", deployment=name, load=load)
            RUNNER.record("open loop p99", [r.latency.p99_us for r in got], unit="us", deployment=name, load=load)
            p50 = statistics.median(r.latency.p50_us for r in got)
            p99 = statistics.median(r.latency.p99_us for r in got)
            refused = sum(r.clients["refused"] for r in got)
            share = statistics.median(achieved)
            curves.setdefault(name, []).append((statistics.median(tps(got)), p50, p99, target, share))
            print(
                f"    {load:>4.0%} of capacity: target {target:>11,.0f}, achieved/target median "
                f"{share:.3f} (min {min(achieved):.3f}, max {max(achieved):.3f}); "
                f"p50 {p50:,.2f} us, p99 {p99:,.2f} us; refused {refused:,}"
            )
    if plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4.5))
        for name, points in curves.items():
            x = [p[0] / 1e6 for p in points]
            color = None  # one colour per deployment: p50 solid, p99 dashed
            for column, marker, style in ((1, "o", "-"), (2, "^", "--")):
                y = [p[column] for p in points]
                label = f"{name} p{50 if column == 1 else 99}"
                (line,) = ax.plot(x, y, marker=marker, linestyle=style, color=color, label=label)
                color = line.get_color()
                # Overloaded points (achieved below 98% of the target) hollow, labelled with their
                # target: where the curve folds back, the achieved rate fell as the target rose.
                for (rate, _, _, target, share), value in zip(points, y, strict=True):
                    if share < 0.98:
                        ax.plot(
                            rate / 1e6,
                            value,
                            marker=marker,
                            markersize=11,
                            markerfacecolor="white",
                            markeredgecolor=line.get_color(),
                            linestyle="none",
                        )
                        if column == 2:
                            ax.annotate(
                                f"target {target / 1e6:.2f} M: {share:.0%}",
                                (rate / 1e6, value),
                                textcoords="offset points",
                                xytext=(6, 4),
                                fontsize=7,
                            )
        ax.set_yscale("log")
        ax.set_xlabel("achieved throughput (M txn/s)")
        ax.set_ylabel("latency from submission (µs, log)")
        ax.set_title(
            f"Latency vs throughput, open loop ({f'medians of {repetitions} runs' if repetitions > 1 else 'one run'})\n"
            "hollow: achieved below 98% of the target (overloaded)",
            fontsize=10,
        )
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(plot)
        print(f"  figure: {plot}")


def _open(duration: float, rate: float) -> RunConfig:
    c = base(duration, "open")
    return dataclasses.replace(c, driver=dataclasses.replace(c.driver, offered_rate=rate))


def plp_config(duration: float, mix: str) -> RunConfig:
    """A PLP instance of TATP on cpus 0-1 with 8 closed-loop clients and the monitor on
    (what the ATraPos controller reads); `mix` as tatp.mix spells it."""
    c = RunConfig()
    driver = dataclasses.replace(
        c.driver, cpus=(0, 1), warmup_s=0.5, duration_s=duration, clients="closed", client_count=8, seed=1
    )
    engine = dataclasses.replace(c.engine, execution="plp", cc="2pl", plp_monitor=True)
    tatp = dataclasses.replace(c.tatp, subscribers_per_site=20000, mix=mix)
    return dataclasses.replace(c, workload="tatp", driver=driver, engine=engine, tatp=tatp)


SKEW = (("hot_fraction", 0.2), ("hot_share", 0.5))


def after(result, at_s: float) -> float:
    """Mean throughput over the timeline's whole intervals from `at_s` on (the last interval,
    which overlaps the stop, left out)."""
    interval = result.config.driver.timeline_interval_s
    tps = list(result.timeline_tps)[int(math.ceil(at_s / interval - 1e-9)) : -1]
    return statistics.mean(tps) if tps else math.nan


def plp_figure(name: str, config: RunConfig, events: list[Event], repetitions: int, plot: str | None) -> None:
    """Static PLP and ATraPos, interleaved, on `config` with `events`; prints the figures."""
    change = events[0].at_s
    runs: dict[str, list] = {"ATraPos": [], "static": []}
    for rep in range(repetitions):
        for mode in round_order(list(runs), rep):
            runs[mode].append(run_live(config, adaptive=mode == "ATraPos", events=events))
    phase = {mode: [after(r, change) for r, _ in got] for mode, got in runs.items()}
    RUNNER.record_runs(f"{name}: throughput after the change", phase, unit="txn/s", labels=("mode",))
    print(f"  {name}")
    for mode, got in runs.items():
        hot = [max(w["share"] for w in r.clients["workers"]) for r, _ in got]
        lost = sum(not r.clients["conserved"] for r, _ in got)
        print(
            f"    {mode:8} after the change {statistics.median(phase[mode]):,.0f} txn/s (median of {len(got)}; "
            f"runs {', '.join(f'{v:,.0f}' for v in phase[mode])}); whole window "
            f"{statistics.median(tps([r for r, _ in got])):,.0f} txn/s; busiest worker's share of the requests "
            f"{statistics.mean(hot):.0%}; forwarded {sum(r.clients['forwarded'] for r, _ in got):,}"
            + (f"; {lost} run(s) LOST REQUESTS" if lost else "")
        )
    r = ratio(phase["ATraPos"], phase["static"])
    print(
        f"    ATraPos / static after the change: {ratio_words(phase['ATraPos'], phase['static'])}: "
        f"ATraPos {direction(r)}"
    )
    moves = [len(log.repartitions) for _, log in runs["ATraPos"]]
    print(f"    re-partitionings per ATraPos run: {', '.join(map(str, moves))}")
    end = events[1].at_s if len(events) > 1 else None  # the phase after the (first) change
    phase_words = f"between {change:g} and {end:g} s" if end is not None else f"after the change at {change:g} s"
    for i, (result, log) in enumerate(runs["ATraPos"]):
        moved = [m for m in log.repartitions if change <= m["at_s"] and (end is None or m["at_s"] < end)]
        if not moved:
            print(f"    ATraPos run {i + 1}: no re-partitioning {phase_words}, so no adaptation time")
            continue
        first = moved[0]["at_s"] - change
        try:
            seconds = adaptation_time(result.timeline_tps, result.config.driver.timeline_interval_s, change, end)
        except ValueError as e:
            print(f"    ATraPos run {i + 1}: adaptation time not measurable ({e})")
            continue
        # Settled before ATraPos moved anything: the time is the noise's, not an adaptation's.
        why = "" if seconds >= first else ", which the throughput reached before the re-partitioning"
        print(
            f"    ATraPos run {i + 1}: adaptation time {seconds:.1f} s after the change at {change:g} s{why} "
            f"(first re-partitioning {first:.1f} s after it, {len(moved)} {phase_words})"
        )
    if plot:
        from islands.plots.client_queues import plot_queue_lengths

        for mode, got in runs.items():
            drawing = plot_queue_lengths(got[0][0], f"{name.split(':')[0]}, {mode}: request queue per worker")
            path = Path(plot).with_name(f"{Path(plot).stem}-{name.split(':')[0].replace(' ', '-')}-{mode}.png")
            drawing.figure.savefig(path)
            print(f"    figure: {path}")


def plp_adaptation(repetitions: int, duration: float, plot: str | None) -> None:
    """Paper 002 Figs 11 and 10 with clients (see the module docstring, section 4)."""
    print("4. Paper 002 Figs 11 and 10 with 8 closed-loop clients routed to the PLP worker owning each home")
    plp_figure(
        "Fig 11: TATP GetSubData, skew (50% of requests to 20% of the data) at a third of the window",
        plp_config(duration, "get_subscriber_data"),
        [Event(round(duration / 3, 2), "skew", settings=SKEW)],
        repetitions,
        plot,
    )
    fig10 = plp_config(duration, "update_subscriber_data")
    fig10 = dataclasses.replace(fig10, tatp=dataclasses.replace(fig10.tatp, hot_fraction=0.2, hot_share=0.5))
    plp_figure(
        "Fig 10: TATP UpdSubData -> GetNewDest -> standard mix at thirds of the window, skew on throughout",
        fig10,
        [
            Event(round(duration / 3, 2), "mix", settings=(("mix", "get_new_destination"),)),
            Event(round(2 * duration / 3, 2), "mix", settings=(("mix", "standard"),)),
        ],
        repetitions,
        plot,
    )


RUNNER = Runner(__file__, __doc__, rounds=5, duration=1.0)
RUNNER.parser.add_argument("--skews", default="0,0.5,1,1.5")
RUNNER.parser.add_argument("--plot", default=None, metavar="FILE", help="also draw the latency-throughput curve")
RUNNER.parser.add_argument("--sections", default="1,2,3,4", help="which sections to run (comma-separated)")
RUNNER.parser.add_argument("--plp-duration", type=float, default=9.0, help="section 4's measured window (s)")


def main(args: argparse.Namespace) -> None:
    sections = {s.strip() for s in args.sections.split(",")}
    if "1" in sections:
        fig20([float(s) for s in args.skews.split(",")], args.rounds, args.duration)
    if "2" in sections:
        client_cost(args.rounds, args.duration)
    if "3" in sections:
        open_loop(args.rounds, args.duration, args.plot)
    if "4" in sections:
        plp_adaptation(args.rounds, args.plp_duration, args.plot)


if __name__ == "__main__":
    RUNNER.run(main)
