"""What the client layer did in a run (``driver.clients`` closed or open): the requests it
submitted and where they went, how busy each instance was and how long its queue grew, what
the clients cost, and latency per transaction type.

The engine counts per worker (``exec/client_driver.hpp``); this module sums those counts per
instance and over the run, and checks that no request was lost between the clients and the
workers: submitted - refused + forwarded = taken + still queued at the end, and taken -
forwarded = answered + those a worker abandoned at the stop (at most one per worker). Only a
PLP run (``engine.execution = plp``) forwards: there each worker has its own queue, a request
goes to the worker owning its home unit, and one whose unit moved on (ATraPos re-partitioned)
is forwarded to the new owner; its account then has a ``workers`` list as well."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from islands.config.settings import transaction_names
from islands.execution.worker_counters import reported


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
    worker was its own client (``driver.clients = workers`` or ``instance_wide``). ``seconds`` is the measured window.

    Keys: ``mode``, ``clients`` (closed), ``think_us``, ``offered_rate`` (open), the whole-run
    counts ``submitted``, ``refused``, ``taken``, ``answered``, ``queued_at_end`` and
    ``abandoned`` (taken, not forwarded and not answered: in flight at the stop), ``forwarded``
    and ``ran_away`` (PLP: requests re-routed to their home unit's new owner, and those run by
    a worker that did not own their home unit), ``stolen`` (requests an idle worker took from a
    sibling's stash: a request for the submitting worker's own instance waits in that worker's
    stash, exec/client_board.hpp), ``conserved`` (whether submitted - refused +
    forwarded = taken + queued_at_end), ``live_conserved`` (whether, at every one of the
    ``live_samples`` the workers took once per timeline interval, each worker's requests taken
    and neither forwarded nor answered were exactly those in its commit pipeline;
    ``live_most_pipelined``: the most one sample found there),
    ``client_cpu_share`` (the clients' share of the
    workers' time in the window) and ``instances``: per instance its ``share`` of the requests
    taken, ``utilization`` (its workers' busy share of the window, NaN without one),
    ``mean_queue`` and ``queue_lengths`` (its queue, once per timeline interval). A PLP run
    adds ``workers``: the same per worker, each with its own queue, and its ``forwarded``."""
    driver = config.driver
    if driver.clients not in ("closed", "open"):  # workers, instance_wide: every worker its own client
        return {}
    # the whole-run counts the schema reports in this account (islands.execution.worker_counters)
    totals = reported("clients", [w for workers in instance_workers for w in workers])
    client_ticks = 0
    n_workers = 0
    per_instance = []
    for workers, s in zip(instance_workers, stats, strict=True):
        ns_per_tick = float(s.get("ns_per_tick", 0.0)) or math.nan
        for w in workers:
            client_ticks += w["clients"]["client_ticks"] * ns_per_tick
            n_workers += 1
        window_ns = s["measured_s"] * 1e9
        busy = [_busy(w, ns_per_tick, window_ns) for w in workers]
        queue = list(workers[0]["clients"]["queue_lengths"]) if workers else []
        per_instance.append(
            {
                "taken": sum(w["clients"]["taken"] for w in workers),
                "utilization": sum(busy) / len(busy) if busy else math.nan,
                "mean_queue": sum(queue) / len(queue) if queue else math.nan,
                "queue_lengths": queue,
                "queued_at_end": s.get("requests_queued_at_end", 0),
            }
        )
    taken = totals["taken"]
    for inst in per_instance:
        inst["share"] = inst["taken"] / taken if taken else math.nan
    plp = getattr(config.engine, "execution", "") == "plp"
    queued = sum(inst["queued_at_end"] for inst in per_instance)
    out: dict[str, Any] = {"mode": driver.clients}
    if driver.clients == "closed":
        out["clients"] = driver.client_count or 4 * n_workers
        out["think_us"] = driver.think_us
    else:
        out["offered_rate"] = driver.offered_rate
    out.update(totals)
    out["queued_at_end"] = queued
    out["abandoned"] = taken - totals["forwarded"] - totals["answered"]
    out["conserved"] = totals["submitted"] - totals["refused"] + totals["forwarded"] == taken + queued
    out["live_samples"], out["live_conserved"], out["live_most_pipelined"] = _live_account(
        w for workers in instance_workers for w in workers
    )
    if plp:
        out["workers"] = [
            _worker_load(w, s, taken) for workers, s in zip(instance_workers, stats, strict=True) for w in workers
        ]
    out["client_cpu_share"] = client_ticks / (seconds * 1e9 * n_workers) if seconds > 0 and n_workers else math.nan
    out["instances"] = per_instance
    return out


def _live_account(workers: Iterable[Mapping[str, Any]]) -> tuple[int, bool, int]:
    """The workers' samples during the run (once per timeline interval each, between two
    transactions); whether at every one the requests a worker held (taken, not forwarded, not
    answered) were exactly those waiting in its commit pipeline (none lost or counted twice
    between a client and a worker while the run went on, not only at its end); and the most
    requests one sample found pipelined."""
    samples, held, most = 0, True, 0
    for w in workers:
        outstanding, pipelined = list(w["clients"].get("outstanding", [])), list(w["clients"].get("pipelined", []))
        samples += len(outstanding)
        held = held and outstanding == pipelined
        most = max([most, *pipelined])
    return samples, held, most


def _busy(worker: Mapping[str, Any], ns_per_tick: float, window_ns: float) -> float:
    """A worker's busy share of the window (NaN without one)."""
    if not window_ns > 0:
        return math.nan
    return min(1.0, max(0.0, 1.0 - worker["clients"]["idle_ticks"] * ns_per_tick / window_ns))


def _worker_load(worker: Mapping[str, Any], stats: Mapping[str, Any], taken: int) -> dict[str, Any]:
    """A PLP worker's part: the requests it took (``taken``, ``share`` of all, those it
    ``forwarded`` to a unit's new owner), its ``utilization``, and its own queue
    (``queue_lengths`` once per timeline interval, ``mean_queue``)."""
    c = worker["clients"]
    queue = list(c["queue_lengths"])
    ns_per_tick = float(stats.get("ns_per_tick", 0.0)) or math.nan
    return {
        "taken": c["taken"],
        "forwarded": c.get("forwarded", 0),
        "share": c["taken"] / taken if taken else math.nan,
        "utilization": _busy(worker, ns_per_tick, stats["measured_s"] * 1e9),
        "mean_queue": sum(queue) / len(queue) if queue else math.nan,
        "queue_lengths": queue,
    }


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
            + ("" if load.get("live_conserved", True) else "; a worker's requests did not add up during the run")
        )
        for i, w in enumerate(load.get("workers", [])):
            lines.append(
                f"worker {i:<5}{w['share']:.1%} of the requests ({w['forwarded']:,} forwarded), "
                f"busy {w['utilization']:.0%}, mean queue {w['mean_queue']:.1f}"
            )
        for i, inst in enumerate(load["instances"] if "workers" not in load else []):
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
