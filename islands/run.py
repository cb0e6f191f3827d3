"""One engine instance, end to end: validate, run on pinned workers, return a RunResult."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from islands import _core
from islands.config import RunConfig, transaction_names
from islands.consistency import check_line, describe_workload, verify
from islands.metadata import collect_metadata
from islands.profile import summarize
from islands.topology import Topology, format_cpulist, read_topology


@dataclass(frozen=True)
class Latency:
    """Latency summary of committed transactions (first attempt to commit), microseconds."""

    count: int
    mean_us: float
    p50_us: float
    p99_us: float
    p999_us: float
    max_us: float

    @classmethod
    def from_core(cls, d: dict[str, Any]) -> Latency:
        """From the engine's nanosecond dict."""
        return cls(
            count=d["count"],
            mean_us=d["mean_ns"] / 1e3,
            p50_us=d["p50_ns"] / 1e3,
            p99_us=d["p99_ns"] / 1e3,
            p999_us=d["p999_ns"] / 1e3,
            max_us=d["max_ns"] / 1e3,
        )


def commits_by_type(workload: str, workers: list[dict[str, Any]]) -> dict[str, int]:
    """Measured commits per transaction type, summed over the workers' engine statistics."""
    names = transaction_names(workload)
    return {name: sum(w["commits_by_type"][i] for w in workers) for i, name in enumerate(names)}


def new_order_rate(by_type: dict[str, int], seconds: float) -> float:
    """TPC-C NewOrders committed per minute (tpmC-style); NaN for other workloads."""
    return by_type["new_order"] * 60.0 / seconds if "new_order" in by_type and seconds > 0 else float("nan")


def abort_rate(commits: int, aborts: dict[str, int]) -> float:
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
    """Outcome of one run, with everything needed to read it later."""

    config: RunConfig
    config_hash: str
    throughput_tps: float  #: committed transactions per second, all workers
    commits: int
    aborts: dict[str, int]  #: aborted attempts per reason, all workers
    latency: Latency
    workers: list[WorkerResult]
    measured_s: float
    load_s: float
    checks: dict[str, int]  #: consistency figures (payload sums, committed row updates, the workload's)
    topology: dict[str, Any]
    metadata: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    check_failures: list[str] = field(default_factory=list)  #: consistency conditions that failed
    user_rollbacks: int = 0  #: transactions that rolled themselves back (the specification's), not retried
    commits_by_type: dict[str, int] = field(default_factory=dict)  #: measured commits per transaction type

    @property
    def new_order_per_min(self) -> float:
        """TPC-C NewOrders committed per minute (tpmC-style); NaN for other workloads."""
        return new_order_rate(self.commits_by_type, self.measured_s)

    #: counters, counters_running, counters_per_txn, metrics, breakdown (see islands.profile)
    profile: dict[str, Any] = field(default_factory=dict)

    @property
    def abort_rate(self) -> float:
        """Aborted attempts per attempt (NaN when nothing was attempted)."""
        return abort_rate(self.commits, self.aborts)

    @property
    def throughput_per_core(self) -> float:
        """Throughput divided by the number of workers."""
        return self.throughput_tps / len(self.workers)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: the config and metadata travel with the numbers."""
        return {
            "config": self.config.to_dict(),
            "config_hash": self.config_hash,
            "throughput_tps": self.throughput_tps,
            "throughput_per_core": self.throughput_per_core,
            "commits": self.commits,
            "aborts": self.aborts,
            "abort_rate": self.abort_rate,
            "latency": vars(self.latency),
            "workers": [dict(vars(w), latency=vars(w.latency)) for w in self.workers],
            "measured_s": self.measured_s,
            "load_s": self.load_s,
            "checks": self.checks,
            "check_failures": self.check_failures,
            "user_rollbacks": self.user_rollbacks,
            "commits_by_type": self.commits_by_type,
            "new_order_per_min": self.new_order_per_min,
            "topology": self.topology,
            "metadata": self.metadata,
            "warnings": self.warnings,
            **{k: v for k, v in self.profile.items() if k != "missing"},
        }

    def summary(self) -> str:
        """A few lines for people."""
        c = self.config
        lines = [
            f"{describe_workload(c)}; "
            f"index={c.engine.index} cc={c.engine.cc} ({c.engine.lock_policy}) "
            f"on cpus {format_cpulist(c.driver.cpus)}",
            f"throughput  {self.throughput_tps:,.0f} txn/s  ({self.throughput_per_core:,.0f} per core) "
            f"over {self.measured_s:.2f} s" + new_order_note(self.new_order_per_min),
            "aborts      "
            + (
                ", ".join(f"{k}={v:,}" for k, v in self.aborts.items())
                + f"  (rate {self.abort_rate:.2%})"
                + (f"; user rollbacks {self.user_rollbacks:,}" if self.user_rollbacks else "")
            ),
            f"latency us  p50 {self.latency.p50_us:.2f}  p99 {self.latency.p99_us:.2f}  "
            f"p99.9 {self.latency.p999_us:.2f}  max {self.latency.max_us:.1f}",
            check_line(self.check_failures),
            f"config      {self.config_hash}  git {self.metadata['git_revision'][:12]}",
        ]
        lines += profile_lines(self.profile)
        lines += [f"warning     {w}" for w in self.warnings]
        return "\n".join(lines)


def profile_lines(profile: dict[str, Any]) -> list[str]:
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


def check_cpus(cpus: tuple[int, ...], topology: Topology) -> None:
    """Raises ValueError naming a CPU that this machine does not have online."""
    online = set(topology.cpus)
    for cpu in cpus:
        if cpu not in online:
            raise ValueError(f"cpus: CPU {cpu} does not exist or is offline (online: {format_cpulist(topology.cpus)})")


def run(config: RunConfig, topology: Topology | None = None) -> RunResult:
    """Runs one engine instance as configured and returns its result.

    The config is validated before any thread starts; the GIL is released for the whole run.
    """
    topology = topology or read_topology()
    check_cpus(config.driver.cpus, topology)
    core_config = config.to_core()
    if config.profile.modules:
        from islands.modules import sample_this_process

        with sample_this_process(fallback=config) as sampling:
            stats = _core.run(core_config)
        modules = sampling.profile()
    else:
        stats = _core.run(core_config)
        modules = None
    result = _result(config, stats, topology)
    if modules is not None:
        result.profile["modules"] = modules.to_dict()
        if modules.reason:
            result.metadata.setdefault("counters_missing", {})["modules"] = modules.reason
    return result


def _result(config: RunConfig, stats: dict[str, Any], topology: Topology) -> RunResult:
    seconds = stats["measured_s"]
    workers = [
        WorkerResult(
            cpu=w["cpu"],
            observed_cpu=w["observed_cpu"],
            site=w["site"],
            commits=w["commits"],
            aborts=dict(w["aborts"]),
            latency=Latency.from_core(w["latency"]),
            throughput_tps=w["commits"] / seconds,
        )
        for w in stats["workers"]
    ]
    row_updates = sum(w["row_updates_all_phases"] for w in stats["workers"])
    profile = summarize(config, [stats])
    metadata = collect_metadata()
    if profile.get("missing"):
        metadata["counters_missing"] = profile["missing"]
    checks = {
        "payload_sum_before": stats["payload_sum_before"],
        "payload_sum_after": stats["payload_sum_after"],
        "committed_row_updates": row_updates,
        "committed_txns": sum(w["commits_all_phases"] for w in stats["workers"]),
        **stats["checks_after"],
    }
    warnings = []
    if not config.driver.pin:
        warnings.append("workers not pinned: placement left to the OS scheduler")
    return RunResult(
        config=config,
        config_hash=config.config_hash(),
        throughput_tps=stats["commits"] / seconds,
        commits=stats["commits"],
        aborts=dict(stats["aborts"]),
        latency=Latency.from_core(stats["latency"]),
        workers=workers,
        measured_s=seconds,
        load_s=stats["load_s"],
        checks=checks,
        check_failures=verify(config.workload, checks),
        user_rollbacks=stats["user_rollbacks"],
        commits_by_type=commits_by_type(config.workload, stats["workers"]),
        topology=topology.to_dict(),
        metadata=metadata,
        warnings=warnings,
        profile=profile,
    )


def new_order_note(per_min: float) -> str:
    """'; NewOrder N/min (tpmC-style)' for a summary line, '' when not TPC-C."""
    return "" if per_min != per_min else f"; NewOrder {per_min:,.0f}/min (tpmC-style)"
