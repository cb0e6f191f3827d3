"""The client layer on two cores (issue 29): paper 000's Fig 20 with clients that route each
transaction to its home instance, what the clients cost, and an open loop against its target.

Every comparison is made of interleaved repetitions (each round runs every point once, in the
same order) and printed as a ratio with its 95% interval (islands.analysis.statistics).

1. Fig 20, 2 rows per transaction, 20% multisite, read and update: per-core (one instance per core, shm) against one
   shared-everything instance (1ISL, 2pl) for Zipf s in 0, 0.5, 1, 1.5, with closed-loop clients;
   the measured distributed share of per-core and its hot instance's share and utilization.
2. What the clients cost: closed clients against every worker its own client (driver.clients
   workers), both deployments at s = 0; the clients' share of the workers' CPU.
3. Open loop: the achieved rate against targets from 10% to 110% of each deployment's
   closed-loop capacity, with p50/p99 latency: a latency-throughput curve (--plot FILE draws it).
4. Paper 002 Figs 10-11 (static PLP vs ATraPos under skew): not measured; the client layer
   does not drive PLP runs yet (driver.clients is refused with engine.execution plp).

Prints; asserts nothing.

    python benchmarks/clients.py [--repetitions N] [--duration S] [--skews 0,0.5,1,1.5] [--plot FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics

import islands
from islands.analysis.verdicts import ratio_words
from islands.execution.launcher import run_deployment
from islands.execution.settings import RunConfig
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
    """Runs every point once per round, in order, for `repetitions` rounds: {name: [results]}."""
    out: dict[str, list] = {name: [] for name in points}
    for _ in range(repetitions):
        for name, (runner, config) in points.items():
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
    curves: dict[str, list[tuple[float, float, float]]] = {}
    for name, runner in (("1ISL", one_isl), ("per-core", per_core)):
        capacity = statistics.median(tps([runner(base(duration)) for _ in range(repetitions)]))
        print(f"  {name}: closed-loop capacity {capacity:,.0f} txn/s")
        for load in (0.1, 0.25, 0.5, 0.75, 0.9, 1.1):
            target = capacity * load
            got = [runner(_open(duration, target)) for _ in range(repetitions)]
            achieved = [r.throughput_tps / target for r in got]
            p50 = statistics.median(r.latency.p50_us for r in got)
            p99 = statistics.median(r.latency.p99_us for r in got)
            refused = sum(r.clients["refused"] for r in got)
            curves.setdefault(name, []).append((statistics.median(tps(got)), p50, p99))
            print(
                f"    {load:>4.0%} of capacity: target {target:>11,.0f}, achieved/target median "
                f"{statistics.median(achieved):.3f} (min {min(achieved):.3f}, max {max(achieved):.3f}); "
                f"p50 {p50:,.2f} us, p99 {p99:,.2f} us; refused {refused:,}"
            )
    if plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4.5))
        for name, points in curves.items():
            x = [p[0] / 1e6 for p in points]
            ax.plot(x, [p[1] for p in points], marker="o", label=f"{name} p50")
            ax.plot(x, [p[2] for p in points], marker="^", linestyle="--", label=f"{name} p99")
        ax.set_yscale("log")
        ax.set_xlabel("achieved throughput (M txn/s)")
        ax.set_ylabel("latency from submission (µs, log)")
        ax.set_title(f"Latency vs throughput, open loop (medians of {repetitions} runs)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(plot)
        print(f"  figure: {plot}")


def _open(duration: float, rate: float) -> RunConfig:
    c = base(duration, "open")
    return dataclasses.replace(c, driver=dataclasses.replace(c.driver, offered_rate=rate))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--duration", type=float, default=1.0)
    parser.add_argument("--skews", default="0,0.5,1,1.5")
    parser.add_argument("--plot", default=None, metavar="FILE", help="also draw the latency-throughput curve")
    args = parser.parse_args()
    fig20([float(s) for s in args.skews.split(",")], args.repetitions, args.duration)
    client_cost(args.repetitions, args.duration)
    open_loop(args.repetitions, args.duration, args.plot)
    print("4. Paper 002 Figs 10-11 with clients: not measured (the client layer does not drive PLP runs yet)")


if __name__ == "__main__":
    main()
