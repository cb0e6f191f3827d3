"""Consistency conditions checked after every run, per workload.

The engine reports figures summed over each instance's own sites (``checks_after``); the
launcher adds them up over the deployment and :func:`verify` says which of the workload's
conditions fail. An empty list means the data is consistent. Figures named in ``AT_START``
also come as they stood when the run started (``NAME_at_start``): a restart recovers rows
that earlier runs committed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from islands.config import RunConfig


def _micro(checks: Mapping[str, int]) -> list[str]:
    grew = checks["payload_sum_after"] - checks["payload_sum_before"]
    if grew != checks["committed_row_updates"]:
        return [
            f"micro: the payload sum grew by {grew:,} but committed transactions updated "
            f"{checks['committed_row_updates']:,} rows"
        ]
    return []


def _tpcb(checks: Mapping[str, int]) -> list[str]:
    failures = []
    sums = {
        name: checks[name]
        for name in ("branch_balance_sum", "teller_balance_sum", "account_balance_sum", "history_delta_sum")
    }
    if len(set(sums.values())) != 1:
        failures.append("tpcb: balance sums disagree: " + ", ".join(f"{k}={v:,}" for k, v in sums.items()))
    added = checks["history_rows"] - checks.get("history_rows_at_start", 0)
    if added != checks["committed_txns"]:
        failures.append(f"tpcb: {added:,} history rows added for {checks['committed_txns']:,} committed transactions")
    for name, what in (
        ("branches_unlike_accounts", "the sum of its accounts"),
        ("branches_unlike_history", "the sum of its history"),
    ):
        if checks[name]:
            failures.append(f"tpcb: {checks[name]:,} branches whose balance is not {what}")
    return failures


def _tatp(checks: Mapping[str, int]) -> list[str]:
    names = (
        "access_info_orphans",
        "special_facility_orphans",
        "call_forwarding_orphans",
        "subscribers_bad_access_info",
        "subscribers_bad_facilities",
        "facilities_over_3_forwardings",
        "sub_nbr_index_mismatches",
    )
    return [f"tatp: {name.replace('_', ' ')}: {checks[name]:,}" for name in names if checks[name]]


def _tpcc(checks: Mapping[str, int]) -> list[str]:
    failures = []
    for name, what in (
        ("condition_1_warehouses", "condition 1: warehouses whose W_YTD is not the sum of D_YTD"),
        ("condition_2_districts", "condition 2: districts whose D_NEXT_O_ID - 1, max(O_ID) and max(NO_O_ID) differ"),
        ("condition_3_districts", "condition 3: districts whose new orders are not contiguous"),
        ("condition_4_districts", "condition 4: districts whose sum(O_OL_CNT) is not the number of order lines"),
        ("warehouses_unlike_history", "warehouses whose W_YTD is not the sum of their history"),
    ):
        if checks[name]:
            failures.append(f"tpcc: {what}: {checks[name]:,}")
    if checks["customer_balance_plus_ytd"] != checks["delivered_order_line_amount"]:
        failures.append(
            f"tpcc: customers' balance + YTD payment sums to {checks['customer_balance_plus_ytd']:,} "
            f"cents, not the {checks['delivered_order_line_amount']:,} cents of delivered order lines"
        )
    return failures


#: Figures whose value at the start of a run (after loading and recovery) the conditions need.
AT_START: dict[str, tuple[str, ...]] = {"tpcb": ("history_rows",)}

#: Each workload's conditions: figures in, failed conditions out.
CONDITIONS: dict[str, Callable[[Mapping[str, int]], list[str]]] = {
    "micro": _micro,
    "tpcb": _tpcb,
    "tatp": _tatp,
    "tpcc": _tpcc,
}


def verify(workload: str, checks: Mapping[str, int]) -> list[str]:
    """The consistency conditions of ``workload`` that ``checks`` violate (empty: consistent)."""
    return CONDITIONS[workload](checks)


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
            f"tpcc: mix {t.mix}, {t.warehouses_per_site} warehouse(s)/site, {t.payment_remote:.0%} remote "
            f"payments, {t.new_order_remote_item:.0%} remote items"
        )
    if config.workload == "tatp":
        return f"tatp: mix {config.tatp.mix}, {config.tatp.subscribers_per_site:,} subscribers/site"
    m = config.micro
    return (
        f"{config.workload}: {'update' if m.update else 'read'} {m.rows_per_txn} rows, "
        f"{m.multisite:.0%} multisite, zipf s={m.zipf_s:g}, {m.rows_per_site:,} rows/site"
    )
