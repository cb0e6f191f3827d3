"""What the client layer did in a run (``driver.clients`` closed or open): the requests it
submitted and where they went, how busy each instance was and how long its queue grew, what
the clients cost, and latency per transaction type.

The engine counts per worker (``exec/client_driver.hpp``); this module sums those counts per
instance and over the run, and checks that no request was lost between the clients and the
workers: submitted = refused + taken + still queued at the end, and taken = answered + those a
worker abandoned at the stop (at most one per worker)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from islands.execution.settings import transaction_names


def latency_by_type(workload: str, workers: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Latency per transaction type (first attempt, or a client's submission, to commit) as the
    engine summarizes a histogram (count, mean_ns, p50_ns, p95_ns, p99_ns, p999_ns, max_ns), over
    every worker; types that committed nothing are left out."""
    from islands import _core

    out = {}
    for i, name in enumerate(transaction_names(workload)):
        buckets = [(b[0], b[1]) for w in workers for b in w.get("latency_buckets_by_type", [[]] * (i + 1))[i]]
        if buckets:
            out[name] = _core.latency_summary(buckets)
    return out


def client_load(
    config: Any,
    instance_workers: Sequence[Sequence[Mapping[str, Any]]],
    stats: Sequence[Mapping[str, Any]],
    seconds: float,
) -> dict[str, Any]:
    """The client layer's account of a run, from each instance's workers' engine statistics
    (``instance_workers``) and each instance's run statistics (``stats``); ``{}`` when every
    worker was its own client (``driver.clients = workers``). ``seconds`` is the measured window.

    Keys: ``mode``, ``clients`` (closed), ``think_us``, ``offered_rate`` (open), the whole-run
    counts ``submitted``, ``refused``, ``taken``, ``answered``, ``queued_at_end`` and
    ``abandoned`` (taken but not answered: in flight at the stop), ``conserved`` (whether
    submitted = refused + taken + queued_at_end), ``client_cpu_share`` (the clients' share of
    the workers' time in the window) and ``instances``: per instance its ``share`` of the
    requests taken, ``utilization`` (its workers' busy share of the window, NaN without one),
    ``mean_queue`` and ``queue_lengths`` (its queue, once per timeline interval)."""
    driver = config.driver
    if driver.clients == "workers":
        return {}
    totals = dict.fromkeys(("submitted", "refused", "taken", "answered"), 0)
    client_ticks = 0
    n_workers = 0
    per_instance = []
    for workers, s in zip(instance_workers, stats, strict=True):
        ns_per_tick = float(s.get("ns_per_tick", 0.0)) or math.nan
        for w in workers:
            c = w["clients"]
            for key in totals:
                totals[key] += c[key]
            client_ticks += c["client_ticks"] * ns_per_tick
            n_workers += 1
        window_ns = s["measured_s"] * 1e9
        busy = [1.0 - w["clients"]["idle_ticks"] * ns_per_tick / window_ns for w in workers] if window_ns > 0 else []
        queue = list(workers[0]["clients"]["queue_lengths"]) if workers else []
        per_instance.append(
            {
                "taken": sum(w["clients"]["taken"] for w in workers),
                "utilization": min(1.0, max(0.0, sum(busy) / len(busy))) if busy else math.nan,
                "mean_queue": sum(queue) / len(queue) if queue else math.nan,
                "queue_lengths": queue,
                "queued_at_end": s.get("requests_queued_at_end", 0),
            }
        )
    taken = totals["taken"]
    for inst in per_instance:
        inst["share"] = inst["taken"] / taken if taken else math.nan
    queued = sum(inst["queued_at_end"] for inst in per_instance)
    out: dict[str, Any] = {"mode": driver.clients}
    if driver.clients == "closed":
        out["clients"] = driver.client_count or 4 * n_workers
        out["think_us"] = driver.think_us
    else:
        out["offered_rate"] = driver.offered_rate
    out.update(totals)
    out["queued_at_end"] = queued
    out["abandoned"] = taken - totals["answered"]
    out["conserved"] = totals["submitted"] == totals["refused"] + taken + queued
    out["client_cpu_share"] = client_ticks / (seconds * 1e9 * n_workers) if seconds > 0 and n_workers else math.nan
    out["instances"] = per_instance
    return out


def client_lines(load: Mapping[str, Any], latency: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The summary's client-layer lines: what was offered, where it went, what it cost, and the
    latency per transaction type; none for a run whose workers were their own clients."""
    lines = []
    if load:
        offered = (
            f"{load['clients']:,} closed-loop clients, think {load['think_us']:g} us"
            if load["mode"] == "closed"
            else f"open loop at {load['offered_rate']:,.0f} txn/s offered"
        )
        lines.append(
            f"clients     {offered}; {load['submitted']:,} submitted, {load['refused']:,} refused, "
            f"{load['queued_at_end']:,} queued at the end; clients' CPU {load['client_cpu_share']:.1%}"
            + ("" if load["conserved"] else "; REQUESTS LOST between clients and workers")
        )
        for i, inst in enumerate(load["instances"]):
            lines.append(
                f"instance {i:<3}{inst['share']:.1%} of the requests, busy {inst['utilization']:.0%}, "
                f"mean queue {inst['mean_queue']:.1f}"
            )
    if len(latency) > 1:
        for name, d in latency.items():
            lines.append(
                f"latency us  {name}: p50 {d['p50_ns'] / 1e3:.2f}  p95 {d['p95_ns'] / 1e3:.2f}  "
                f"p99 {d['p99_ns'] / 1e3:.2f}  p99.9 {d['p999_ns'] / 1e3:.2f}  ({d['count']:,})"
            )
    return lines
