"""The one result type of a run, whatever ran it: a single instance in this process or a
deployment of instance processes (a single instance is a deployment of one). Statistics of
every instance are summed here, in :func:`collect`, and nowhere else."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from islands.config.settings import RunConfig, transaction_names
from islands.execution.client_load import client_lines, client_load, latency_by_type
from islands.execution.consistency import check_line, describe_workload, figures_at_start, verify
from islands.execution.worker_counters import reported
from islands.machine.placement import Deployment
from islands.machine.topology import Topology, format_cpulist
from islands.measure.run_noise import timeline_noise

#: The transport of a run whose instance talks to no other (every transaction is local).
NO_TRANSPORT = "none"


@dataclass(frozen=True)
class Latency:
    """Latency summary of committed transactions (first attempt to commit), microseconds."""

    count: int
    mean_us: float
    p50_us: float
    p99_us: float
    p999_us: float
    max_us: float
    p95_us: float = math.nan

    @classmethod
    def from_core(cls, d: Mapping[str, Any]) -> Latency:
        """From the engine's nanosecond dict."""
        return cls(
            count=d["count"],
            mean_us=d["mean_ns"] / 1e3,
            p50_us=d["p50_ns"] / 1e3,
            p99_us=d["p99_ns"] / 1e3,
            p999_us=d["p999_ns"] / 1e3,
            max_us=d["max_ns"] / 1e3,
            p95_us=d.get("p95_ns", math.nan) / 1e3,
        )


def new_order_rate(by_type: Mapping[str, int], seconds: float) -> float:
    """TPC-C NewOrders committed per minute (tpmC-style); NaN for other workloads."""
    return by_type["new_order"] * 60.0 / seconds if "new_order" in by_type and seconds > 0 else float("nan")


def new_order_note(per_min: float) -> str:
    """'; NewOrder N/min (tpmC-style)' for a summary line, '' when not TPC-C."""
    return "" if per_min != per_min else f"; NewOrder {per_min:,.0f}/min (tpmC-style)"


def bytes_per_txn(checks: Mapping[str, int], commits: int, by_type: Mapping[str, int]) -> float:
    """Bytes of row growth per committed transaction over the run (warm-up included), from the
    figures ``row_bytes`` and ``growing_txns`` (the transactions that add rows: TPC-C's NewOrders
    and Payments) at the start and the end: growth per growing transaction times their share of
    the measured commits. NaN when the workload reports no such figures or nothing grew."""
    names = ("row_bytes", "row_bytes_at_start", "growing_txns", "growing_txns_at_start")
    if any(n not in checks for n in names) or commits <= 0:
        return float("nan")
    grown = checks["growing_txns"] - checks["growing_txns_at_start"]
    growing_measured = by_type.get("new_order", 0) + by_type.get("payment", 0)
    if grown <= 0:
        return float("nan")
    per_growing = (checks["row_bytes"] - checks["row_bytes_at_start"]) / grown
    return per_growing * growing_measured / commits


def abort_rate(commits: int, aborts: Mapping[str, int]) -> float:
    """Aborted attempts per attempt, given commits and aborts per reason (NaN for no attempts)."""
    attempts = commits + sum(aborts.values())
    return sum(aborts.values()) / attempts if attempts else float("nan")


@dataclass(frozen=True)
class WorkerResult:
    """What one pinned worker did in the measured window."""

    cpu: int  #: CPU it was pinned to, -1 when left to the OS
    observed_cpu: int  #: CPU it was running on when the window closed
    site: int  #: its home site
    commits: int
    aborts: dict[str, int]  #: aborted attempts per reason
    latency: Latency
    throughput_tps: float


@dataclass(frozen=True)
class RunResult:
    """Outcome of one run of a deployment, with everything needed to read it later.

    ``workers`` lists every worker of every instance; ``instances`` has one dict per instance
    (its CPUs, commits, aborts, 2PC and transport messages, log and recovery, and its
    consistency figures as the run started, after load and recovery: ``checks_before``). A run of a
    single instance in this process has ``transport`` ``"none"``."""

    config: RunConfig
    config_hash: str
    deployment: Deployment
    transport: str  #: how instances talk: "unix", "shm", or "none" (a single instance, or local work only)
    throughput_tps: float  #: committed transactions per second, all workers
    commits: int
    multisite_commits: int  #: committed transactions that spanned instances
    aborts: dict[str, int]  #: aborted attempts per reason, all workers
    latency: Latency
    workers: list[WorkerResult]
    instances: list[dict[str, Any]]
    measured_s: float
    load_s: float  #: the slowest instance's load
    checks: dict[str, int]  #: consistency figures (payload sums, committed row updates, the workload's)
    topology: dict[str, Any]
    metadata: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    check_failures: list[str] = field(default_factory=list)  #: consistency conditions that failed
    user_rollbacks: int = 0  #: transactions that rolled themselves back (the specification's), not retried
    commits_by_type: dict[str, int] = field(default_factory=dict)  #: measured commits per transaction type
    #: counters, counters_running, counters_per_txn, metrics, breakdown (see islands.measure.run_profile)
    profile: dict[str, Any] = field(default_factory=dict)
    #: why the run ended before its time (an instance's memory budget, ...), one line per
    #: instance that stopped; empty when every instance ran its whole window
    stopped_early: list[str] = field(default_factory=list)
    #: committed transactions per second in each interval of the measured window (all workers;
    #: intervals of ``config.driver.timeline_interval_s``, the last one possibly shorter)
    timeline_tps: list[float] = field(default_factory=list)
    #: engine.record_history: each instance's recorded transactions (islands.analysis.history_check
    #: reads them); None when the mode was off. Not part of to_dict or the stored rows.
    history: list[bytes] | None = field(default=None, repr=False)
    #: driver.clients closed or open: the client layer's account (islands.execution.client_load);
    #: empty when every worker was its own client
    clients: dict[str, Any] = field(default_factory=dict)
    #: latency per transaction type, as the engine summarizes it (ns; types that committed nothing left out)
    latency_by_type: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: set by :meth:`measured_from_steady`: where the warm-up ended (islands.measure.steady_warmup:
    #: ``steady``, ``warmup_end_s``, ``warmup_cap_s``, ``window_tps``); empty: after driver.warmup_s
    warmup: dict[str, Any] = field(default_factory=dict)
    #: a functional run (islands.machine.oversubscription): the planned machine and the CPUs of this
    #: one its workers were packed onto; empty for a run on the machine it was planned on
    oversubscription: dict[str, Any] = field(default_factory=dict)
    #: a deployment's launch (islands.execution.launcher): seconds to spawn the instances, until all were
    #: ready, and to tear them down after the window; the run directory's bytes and each instance's
    #: descriptors and resident memory once ready; empty for a run in this process
    launch: dict[str, Any] = field(default_factory=dict)
    #: the run's totals of counters reported "run" (islands.execution.worker_counters) that have no
    #: field of their own here (commits, aborts, ... have); each is a key of the stored row
    totals: dict[str, Any] = field(default_factory=dict)

    @property
    def functional(self) -> bool:
        """Whether this run was planned on another machine and run packed onto this one's CPUs:
        its checks and counts hold, its throughput is not comparable (the verdicts refuse it)."""
        return bool(self.oversubscription)

    @property
    def new_order_per_min(self) -> float:
        """TPC-C NewOrders committed per minute (tpmC-style); NaN for other workloads."""
        return new_order_rate(self.commits_by_type, self.measured_s)

    @property
    def bytes_per_txn(self) -> float:
        """Bytes the rows grew by per committed transaction (NaN where the workload does not say)."""
        return bytes_per_txn(self.checks, self.commits, self.commits_by_type)

    @property
    def abort_rate(self) -> float:
        """Aborted attempts per attempt (NaN when nothing was attempted)."""
        return abort_rate(self.commits, self.aborts)

    @property
    def throughput_per_core(self) -> float:
        """Throughput divided by the number of workers."""
        return self.throughput_tps / len(self.workers)

    def measured_from_steady(self) -> RunResult:
        """This run measured from where its throughput timeline became steady, or from the
        cap where it never did (islands.measure.steady_warmup): ``throughput_tps`` the rate
        from there, the whole window's kept in ``warmup["window_tps"]``. Unchanged but for
        ``warmup["steady"]`` None where the timeline is too short to tell."""
        from islands.measure.steady_warmup import steady_fields

        fields = steady_fields(self.timeline_tps, self.config.driver.timeline_interval_s, self.config.driver.warmup_s)
        warmup = {k: fields[k] for k in ("steady", "steady_from_s", "warmup_end_s", "warmup_cap_s")}
        if fields["steady"] is None or fields["steady_tps"] != fields["steady_tps"]:
            return dataclasses.replace(self, warmup={**warmup, "steady": None})
        return dataclasses.replace(
            self, throughput_tps=fields["steady_tps"], warmup={**warmup, "window_tps": self.throughput_tps}
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: the config, deployment, topology and metadata travel with the numbers."""
        steady = {"throughput_window_tps": self.warmup["window_tps"]} if "window_tps" in self.warmup else {}
        return {
            "deployment": self.deployment.to_dict(),
            "config": self.config.to_dict(),
            "transport": self.transport,
            "config_hash": self.config_hash,
            "throughput_tps": self.throughput_tps,
            "throughput_per_core": self.throughput_per_core,
            "commits": self.commits,
            "multisite_commits": self.multisite_commits,
            "aborts": self.aborts,
            "abort_rate": self.abort_rate,
            "latency": vars(self.latency),
            "workers": [dict(vars(w), latency=vars(w.latency)) for w in self.workers],
            "instances": self.instances,
            "measured_s": self.measured_s,
            "load_s": self.load_s,
            "checks": self.checks,
            "check_failures": self.check_failures,
            "user_rollbacks": self.user_rollbacks,
            "commits_by_type": self.commits_by_type,
            "new_order_per_min": self.new_order_per_min,
            "bytes_per_txn": self.bytes_per_txn,
            "topology": self.topology,
            "metadata": self.metadata,
            "warnings": self.warnings,
            "stopped_early": self.stopped_early,
            "timeline": {"interval_s": self.config.driver.timeline_interval_s, "tps": self.timeline_tps},
            "clients": self.clients,
            "latency_by_type": self.latency_by_type,
            **({"warmup": self.warmup} if self.warmup else {}),
            **({"functional": True, "oversubscription": self.oversubscription} if self.functional else {}),
            **({"launch": self.launch} if self.launch else {}),
            **steady,
            **self.totals,
            **{k: v for k, v in self.profile.items() if k != "missing"},
        }

    def summary(self) -> str:
        """A few lines for people."""
        c = self.config
        if self.transport == NO_TRANSPORT and self.deployment.n_instances == 1:
            head = (
                f"{describe_workload(c)}; index={c.engine.index} cc={c.engine.cc} ({c.engine.lock_policy}, "
                f"{c.engine.isolation}) "
                + ("execution=plp " if c.engine.execution == "plp" else "")
                + f"on cpus {format_cpulist(c.driver.cpus)}"
            )
        else:
            head = (
                f"{self.deployment.label} ({self.deployment.n_instances} instances, {self.transport}): "
                f"{describe_workload(c)}"
            )
        if self.functional:
            o = self.oversubscription
            head = (
                f"FUNCTIONAL RUN (planned on {o['planned_on']}, {o['workers']} workers packed onto "
                f"{len(o['host_cpus'])} cpus here): {head}"
            )
        lines = [
            head,
            f"throughput  {self.throughput_tps:,.0f} txn/s  ({self.throughput_per_core:,.0f} per core) "
            + warmup_words(self.warmup, self.measured_s, c.driver.warmup_s)
            + new_order_note(self.new_order_per_min)
            + (
                ""
                if self.transport == NO_TRANSPORT
                else f", {self.multisite_commits:,} of {self.commits:,} distributed"
            ),
            "aborts      "
            + (", ".join(f"{k}={v:,}" for k, v in self.aborts.items() if v) or "none")
            + f"  (rate {self.abort_rate:.2%})"
            + (f"; user rollbacks {self.user_rollbacks:,}" if self.user_rollbacks else ""),
            f"latency us  p50 {self.latency.p50_us:.2f}  p99 {self.latency.p99_us:.2f}  "
            f"p99.9 {self.latency.p999_us:.2f}  max {self.latency.max_us:.1f}",
            check_line(self.check_failures),
            f"config      {self.config_hash}  git {str(self.metadata.get('git_revision', 'unknown'))[:12]}",
        ]
        lines += client_lines(self.clients, self.latency_by_type)
        lines += timeline_lines(self.timeline_tps, self.config.driver.timeline_interval_s, steady_line=not self.warmup)
        lines += [f"stopped     {why}" for why in self.stopped_early]
        lines += profile_lines(self.profile)
        lines += [f"warning     {w}" for w in self.warnings]
        return "\n".join(lines)


def profile_lines(profile: Mapping[str, Any]) -> list[str]:
    """The profile part of a summary: breakdown per transaction, counters per transaction."""
    lines = []
    b = profile.get("breakdown")
    if b:
        parts = "  ".join(f"{k[:-3]} {v:.3f}" for k, v in b.items() if k.endswith("_us") and k != "total_us")
        lines.append(f"breakdown   us/txn: {parts}  (total {b['total_us']:.3f}, {b['timed_txns']:,} txns timed)")
    for name, value in profile.get("counters_per_txn", {}).items():
        if value == value:  # not NaN
            running = profile["counters_running"].get(name, float("nan"))
            mux = "" if running >= 0.999 else f"  (ran {running:.0%} of the window, scaled)"
            lines.append(f"counter     {name}: {value:,.2f} per txn{mux}")
    missing = profile.get("missing", {})
    if missing:
        reasons: dict[str, list[str]] = {}
        for name, why in missing.items():
            reasons.setdefault(why, []).append(name)
        for why, names in reasons.items():
            lines.append(f"no counter  {', '.join(names)}: {why}")
    return lines


def throughput_timeline(counts: Sequence[Sequence[int]], interval_s: float, measured_s: float) -> list[float]:
    """Committed transactions per second in each interval of a window of ``measured_s``
    seconds, from the workers' commit counts per interval (``counts``). Commits a worker
    counted after the window closed (it sees the stop a moment later; a pipelined commit is
    acknowledged after it) count in the last interval, as they count in the run's total, so
    the intervals add up to the commits. The last interval's rate is over its own length, and
    a last interval shorter than 5% of one is folded into the one before (its rate is noise)."""
    if measured_s <= 0:
        return []  # the window never opened
    n = math.ceil(measured_s / interval_s - 1e-9)
    totals = [0] * n
    for worker in counts:
        for i, count in enumerate(worker):
            totals[min(i, n - 1)] += count
    lengths = [interval_s] * (n - 1) + [measured_s - (n - 1) * interval_s]
    if n > 1 and lengths[-1] < 0.05 * interval_s:
        last_total, last_length = totals.pop(), lengths.pop()
        totals[-1] += last_total
        lengths[-1] += last_length
    return [total / length for total, length in zip(totals, lengths, strict=True)]


def warmup_words(warmup: Mapping[str, Any], measured_s: float, warmup_s: float) -> str:
    """The end of a summary's throughput line: ``over 1.00 s`` (after the fixed warm-up), or,
    measured from the steady state (:meth:`RunResult.measured_from_steady`), ``over the last
    0.70 s of 1.00 s: steady 0.60 s after the warm-up began (cap 0.80 s)`` or ``...: never
    steady within 0.80 s, measured from the cap on``."""
    if not warmup:
        return f"over {measured_s:.2f} s"
    if warmup.get("steady") is None:
        return f"over {measured_s:.2f} s (the timeline is too short to tell where it became steady)"
    end, cap = float(warmup["warmup_end_s"]), float(warmup["warmup_cap_s"])
    last = f"over the last {max(0.0, measured_s - (end - warmup_s)):.2f} s of {measured_s:.2f} s"
    if warmup["steady"] and end <= warmup_s:
        return f"over {measured_s:.2f} s: steady from the window's start (warm-up cap {cap:.2f} s)"
    if warmup["steady"]:
        return f"{last}: steady {end:.2f} s after the warm-up began (cap {cap:.2f} s)"
    from islands.analysis.verdicts import never_steady_words

    return f"{last}: {never_steady_words([cap])}, measured from the cap on"


def timeline_lines(tps: Sequence[float], interval_s: float, steady_line: bool = True) -> list[str]:
    """The summary's timeline lines: the spread of the per-interval rates, their CV and drift,
    and (``steady_line``) where the throughput became steady (islands.measure.run_noise); none
    with < 3 intervals."""
    if len(tps) < 3:
        return []
    full = sorted(tps[:-1])  # the last interval may be short
    lines = [
        f"timeline    per {interval_s:g} s: min {full[0]:,.0f}  median {full[len(full) // 2]:,.0f}  "
        f"max {full[-1]:,.0f} txn/s  ({len(tps)} intervals)"
    ]
    noise = timeline_noise(tps, interval_s)
    if noise["steady"] is not None:
        lines[0] += f"; CV {noise['timeline_cv']:.0%}, drift {noise['drift']:+.0%}"
    if noise["steady"] is not None and steady_line:
        lines.append(
            f"steady      from {noise['steady_from_s']:.1f} s into the window"
            if noise["steady"]
            else "steady      never within the first half of the window: the throughput averages over a transient"
        )
    return lines


def drain_stall_warnings(repartitioning: Mapping[str, Any], prefix: str = "") -> list[str]:
    """One warning line when the drain watchdog dumped a re-partitioning of this instance
    (exec/plp/plp_drain_watch.hpp: a drain waited past its threshold, 1 s); the dump itself stays
    in ``instances[i]["repartitioning"]["stall"]``. Empty normally."""
    stall = str(repartitioning.get("stall", ""))
    if not stall:
        return []
    first = stall.splitlines()[0]
    n = int(repartitioning.get("stalls", 1))
    more = f" ({n} re-partitionings stalled)" if n > 1 else ""
    return [f"{prefix}{first}{more}; the dump is in instances[].repartitioning.stall"]


def rate(count: float, seconds: float) -> float:
    """count per second; NaN for an empty window (a run that stopped before it opened)."""
    return count / seconds if seconds > 0 else float("nan")


def collect(
    config: RunConfig,
    deployment: Deployment,
    transport: str,
    topology: Topology,
    results: Sequence[Mapping[str, Any]],
) -> RunResult:
    """The result of a run from each instance's report, in instance order: ``{"stats": the
    engine's statistics (``_core.run`` / ``Instance.run``), "warnings": [...]}``."""
    from islands import _core
    from islands.measure.host_metadata import collect_metadata
    from islands.measure.run_profile import summarize

    stats_list = [r["stats"] for r in results]
    seconds = max(s["measured_s"] for s in stats_list)
    several = len(results) > 1
    stopped_early = [
        (f"instance {i}: " if several else "") + f"after {s['measured_s']:.2f} s of its window: {s['stopped_early']}"
        for i, s in enumerate(stats_list)
        if s.get("stopped_early")
    ]
    all_workers = [w for s in stats_list for w in s["workers"]]
    names = transaction_names(config.workload)
    figures: dict[str, int] = {}
    per_instance: list[dict[str, Any]] = []
    warnings: list[str] = []
    at_start = figures_at_start(config.workload)
    for i, (r, stats) in enumerate(zip(results, stats_list, strict=True)):
        workers = stats["workers"]
        for name, value in stats["checks_after"].items():
            figures[name] = figures.get(name, 0) + value
        for name in at_start:
            figures[f"{name}_at_start"] = figures.get(f"{name}_at_start", 0) + stats["checks_before"][name]
        prefix = f"instance {i}: " if several else ""
        warnings += [prefix + w for w in r.get("warnings", [])]
        if stats["recovery"]["tail_note"]:
            warnings.append(f"{prefix}recovery: {stats['recovery']['tail_note']}")
        warnings += drain_stall_warnings(stats.get("repartitioning", {}), prefix)
        per_instance.append(
            {
                "instance": i,
                "cpus": list(deployment.instances[i]),
                # the counters reported per instance (commits, aborts, 2PC and transport messages,
                # PLP's stages and hand-offs, log waits, CPU time, ...: islands.execution.worker_counters)
                **reported("instance", workers, names),
                "throughput_tps": rate(stats["commits"], stats["measured_s"]),
                # the run thread's quiesces (system-state lock exclusive) and its oldest active transaction
                "quiesce_ns": stats.get("quiesce_ns", 0),
                "longest_active_ns": stats.get("longest_active_ns", 0),
                "observed_cpus": [w["observed_cpu"] for w in workers],
                # engine.interleave as each worker resolved it (-1 decides by data size against the LLC)
                "interleave_depths": [w["interleave_depth"] for w in workers],
                "payload_sum_before": stats["payload_sum_before"],
                "payload_sum_after": stats["payload_sum_after"],
                "log": stats["log"],
                "recovery": stats["recovery"],
                "checks_before": stats["checks_before"],  # its consistency figures after load and recovery
                # engine.execution = plp: re-partitionings, units moved, their pauses (ns)
                "repartitioning": stats.get("repartitioning", {}),
                # engine.plp_monitor: ATraPos's trace (actions, cost, sync_count per site and unit)
                "monitor": stats.get("monitor"),
            }
        )
    if topology.virtual:
        warnings.append(f"virtual topology: {topology.virtual}")
    if not deployment.pinned:
        warnings.append(
            "workers not pinned: placement left to the OS scheduler"
            if transport == NO_TRANSPORT
            else "instances not pinned: placement left to the OS scheduler"
        )
    profile = summarize(config, stats_list)
    metadata = collect_metadata()
    if profile.get("missing"):
        metadata["counters_missing"] = profile["missing"]
    checks = {
        "payload_sum_before": sum(s["payload_sum_before"] for s in stats_list),
        "payload_sum_after": sum(s["payload_sum_after"] for s in stats_list),
        **reported("checks", all_workers),  # committed_row_updates, committed_txns
        **figures,
    }
    # The run's totals (commits, aborts, ...); those RunResult has no field for go to ``totals``.
    totals = reported("run", all_workers, names)
    own = {f.name for f in dataclasses.fields(RunResult)}
    commits = totals["commits"]
    # Instances that stopped early measured shorter windows: their rates add up, not their commits.
    throughput = (
        sum(rate(s["commits"], s["measured_s"]) for s in stats_list) if stopped_early else rate(commits, seconds)
    )
    buckets = [(b[0], b[1]) for w in all_workers for b in w["latency_buckets"]]
    return RunResult(
        config=config,
        config_hash=config.config_hash(),
        deployment=deployment,
        transport=transport,
        throughput_tps=throughput,
        **{k: v for k, v in totals.items() if k in own},
        totals={k: v for k, v in totals.items() if k not in own},
        latency=Latency.from_core(_core.latency_summary(buckets)),
        workers=[
            WorkerResult(
                cpu=w["cpu"],
                observed_cpu=w["observed_cpu"],
                site=w["site"],
                commits=w["commits"],
                aborts=dict(w["aborts"]),
                latency=Latency.from_core(w["latency"]),
                throughput_tps=rate(w["commits"], seconds),
            )
            for w in all_workers
        ],
        instances=per_instance,
        measured_s=seconds,
        load_s=max(s["load_s"] for s in stats_list),
        checks=checks,
        check_failures=verify(config.workload, checks),
        topology=topology.to_dict(),
        metadata=metadata,
        history=[s.get("history", b"") for s in stats_list] if config.engine.record_history else None,
        warnings=warnings,
        profile=profile,
        stopped_early=stopped_early,
        timeline_tps=throughput_timeline(
            [w.get("timeline", []) for w in all_workers], config.driver.timeline_interval_s, seconds
        ),
        clients=client_load(config, [s["workers"] for s in stats_list], stats_list, seconds),
        latency_by_type=latency_by_type(config.workload, all_workers),
    )
