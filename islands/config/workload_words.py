"""Words for people about each workload: the one module that names workloads (tests aside).

What a workload *is* (its settings, tables, transactions, load size, consistency conditions)
comes from the engine (:mod:`islands.config.workload_registry`); this table only says it in
words: a run's one-line description, the size note under a figure, and the titles the papers'
figures give their panels. A workload missing here is still described, from its settings and
its registry entry (:func:`describe`, :func:`size_words`), so a new one needs no line here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

__all__ = ["DESCRIBE", "NAMES", "SIZE_WORDS", "STANDARD_PANELS", "describe", "name_of", "size_words"]


def _micro(m: Any) -> str:
    return (
        f"micro: {'update' if m.update else 'read'} {m.rows_per_txn} rows, "
        f"{m.multisite:.0%} multisite, zipf s={m.zipf_s:g}, {m.rows_per_site:,} rows/site"
    )


def _tpcb(b: Any) -> str:
    return (
        f"tpcb: {b.remote:.0%} remote tellers, {b.branches_per_site} branch(es)/site, "
        f"{b.tellers_per_branch} tellers and {b.accounts_per_branch:,} accounts per branch"
    )


def _tatp(t: Any) -> str:
    return f"tatp: mix {t.mix}, {t.subscribers_per_site:,} subscribers/site"


def _tpcc(t: Any) -> str:
    return (
        f"tpcc ({t.layout} layout): mix {t.mix}, {t.warehouses_per_site} warehouse(s)/site, "
        f"{t.payment_remote:.0%} remote payments, {t.new_order_remote_item:.0%} remote items"
    )


#: A run's description, per workload: its settings section in a few words.
DESCRIBE: dict[str, Callable[[Any], str]] = {"micro": _micro, "tpcb": _tpcb, "tatp": _tatp, "tpcc": _tpcc}

#: The size note under a figure, per workload: a format over its settings (each ``{field}`` filled
#: with the values the rows ran, ``{field:,}`` grouped).
SIZE_WORDS: dict[str, str] = {
    "micro": "{rows_per_site:,} rows per site",
    "tpcb": "{branches_per_site} branch(es) of {accounts_per_branch:,} accounts per site",
    "tatp": "{subscribers_per_site:,} subscribers per site",
    "tpcc": "{warehouses_per_site} warehouse(s) per site",
}

#: Each workload's name as the papers write it.
NAMES: dict[str, str] = {"micro": "microbenchmark", "tpcb": "TPC-B", "tatp": "TATP", "tpcc": "TPC-C"}

#: The panels of paper 000's standard-workload figures (Fig 22-24), each a workload or one of its
#: transactions run alone (``<workload>-<mix>``): the setting holding its remote share, its
#: title, and the workload's other remote share, which must be at its lowest (None: none).
STANDARD_PANELS: dict[str, tuple[str, str, str | None]] = {
    "tpcb": ("tpcb.remote", "TPC-B AccountUpdate", None),
    "tpcc-payment": ("tpcc.payment_remote", "TPC-C Payment", "tpcc.new_order_remote_item"),
    "tpcc-new_order": ("tpcc.new_order_remote_item", "TPC-C NewOrder (% remote items)", "tpcc.payment_remote"),
}


def describe(workload: str, settings: Any) -> str:
    """``workload`` and its main settings in a few words (its settings, one by one, where the
    table has no words for it)."""
    words = DESCRIBE.get(workload)
    if words is not None:
        return words(settings)
    if settings is None:
        return workload
    return f"{workload}: " + ", ".join(f"{k}={v}" for k, v in dataclasses.asdict(settings).items())


def size_words(workload: str, size_field: str) -> str:
    """The format of ``workload``'s size note (see :data:`SIZE_WORDS`); for one without words,
    the setting that sizes its load (``size_field``) and its value."""
    return SIZE_WORDS.get(workload, f"{size_field} {{{size_field}:,}}")


def name_of(workload: str) -> str:
    """The workload's name as the papers write it (its own where :data:`NAMES` has none)."""
    return NAMES.get(workload, workload)
