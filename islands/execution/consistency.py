"""Consistency conditions checked after every run, per workload.

The engine reports figures summed over each instance's own sites (``checks_after``); the
run's result adds them up over the deployment and :func:`verify` asks the workload (in the
engine, where each workload states its conditions) which of them fail. An empty list means
the data is consistent. Figures named by :func:`figures_at_start` also come as they stood
when the run started (``NAME_at_start``): a restart recovers rows that earlier runs committed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from islands.config.settings import RunConfig


def figures_at_start(workload: str) -> tuple[str, ...]:
    """Figures whose value at the start of a run (after loading and recovery) the workload's
    conditions need, as ``NAME_at_start`` (the engine's registry says which)."""
    from islands import _core

    for entry in _core.workloads():
        if entry["name"] == workload:
            return tuple(entry["figures_at_start"])
    return ()


def verify(workload: str, checks: Mapping[str, int]) -> list[str]:
    """The consistency conditions of ``workload`` that ``checks`` violate (empty: consistent).
    Each workload states its own conditions in the engine (its ``verify``)."""
    from islands import _core

    return list(_core.verify(workload, dict(checks)))


def check_line(failures: list[str]) -> str:
    """One summary line: 'consistent', or the failed conditions."""
    return "checks      " + ("consistent" if not failures else "FAILED: " + "; ".join(failures))


def describe_workload(config: RunConfig) -> str:
    """The workload and its main knobs in a few words."""
    if config.workload == "tpcb":
        b = config.tpcb
        return (
            f"tpcb: {b.remote:.0%} remote tellers, {b.branches_per_site} branch(es)/site, "
            f"{b.tellers_per_branch} tellers and {b.accounts_per_branch:,} accounts per branch"
        )
    if config.workload == "tpcc":
        t = config.tpcc
        return (
            f"tpcc ({t.layout} layout): mix {t.mix}, {t.warehouses_per_site} warehouse(s)/site, "
            f"{t.payment_remote:.0%} remote "
            f"payments, {t.new_order_remote_item:.0%} remote items"
        )
    if config.workload == "tatp":
        return f"tatp: mix {config.tatp.mix}, {config.tatp.subscribers_per_site:,} subscribers/site"
    if config.workload == "micro":
        m = config.micro
        return (
            f"micro: {'update' if m.update else 'read'} {m.rows_per_txn} rows, "
            f"{m.multisite:.0%} multisite, zipf s={m.zipf_s:g}, {m.rows_per_site:,} rows/site"
        )
    # a workload without words of its own: its settings
    settings = getattr(config, config.workload, None)
    if settings is None:
        return config.workload
    return f"{config.workload}: " + ", ".join(f"{k}={v}" for k, v in dataclasses.asdict(settings).items())
