"""What the model is asked about: a workload as the model sees it (kind, rows per transaction,
reads or updates, share of multisite transactions, skew), and how many instances a multisite
transaction of it involves in a given deployment.

The rules follow the engine's workloads:

- ``micro`` (000 Sec 3.2, ``csrc/include/islands/workload/micro_workload.hpp``): the first row
  is from the worker's home site; a multisite transaction draws its other ``rows - 1`` rows
  from all sites, so it is distributed only when one of them falls outside the home
  instance, and involves every instance one of them falls in;
- ``tpcb`` (000 Sec 8.1) and ``tpcc-payment`` (Sec 8.3): a remote transaction takes one row
  (a teller, a customer) of another branch/warehouse, drawn among the other sites: one
  participant, when that site is in another instance;
- ``tpcc-new_order``: each of ~10 order lines is supplied by another warehouse with
  probability ``multisite`` (the specification's 1%), one participant per such line.

A spec string names a workload on the command line: ``micro-read``, ``micro-update``,
``tpcb``, ``tpcc-payment`` or ``tpcc-new_order``, optionally followed by ``:key=value,...``
with keys ``rows``, ``multisite``, ``zipf``, ``rows_per_site``, ``logged`` (``true`` or
``false``) (``"micro-update:rows=10,multisite=0.2"``).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "KINDS",
    "NEW_ORDER",
    "PAYMENT",
    "READ",
    "TPCB",
    "UPDATE",
    "Kind",
    "from_run",
    "MAX_ROWS",
    "MAX_ROWS_PER_SITE",
    "MAX_ZIPF_S",
    "ModelWorkload",
    "participants",
    "parse_workload",
]


@dataclass(frozen=True)
class Kind:
    """One workload kind of the model (a paper's workload, or one transaction of it run alone):
    the model's one table of what it assumes of each (:data:`KINDS`); the other model modules
    read these fields, never a kind's name."""

    update: bool  #: whether its transactions update (and log)
    standard_share: float  #: its default multisite share: the papers' standard setting
    #: each of its ``rows`` rows is drawn over the sites (the microbenchmark), so that its
    #: multisite transactions touch as many sites as rows fall in; else one remote row
    per_row: bool
    family: str  #: the key of its local costs (``local.<family>.<cc>.txn_us``)
    #: rows its log record carries (per-row kinds: their ``rows``), from the transactions'
    #: definitions (000 Sec 8; TPC-C 2.4, 2.5)
    log_rows: int
    #: rows per site a remote transaction's held row is drawn from, for a local transaction
    #: touching one of them (per-row kinds: the site's rows over the rows held); TPC-B's tellers
    #: per branch (TPC-B 1.2: 10), Payment's customers per warehouse (3,000 x 10 districts), the
    #: stock rows (100,000 a warehouse) over the ~10 a NewOrder takes
    remote_pool: float
    engine: tuple[str, str, Any]  #: the engine run it is: (workload, setting, value) (setting "": any)
    share_setting: str  #: the engine setting holding its multisite share (``section.field``)


#: Workload kinds (the papers' standard settings: TPC-B 15% remote tellers, Payment 15% remote
#: customers, NewOrder 1% remote items; the microbenchmark 0%).
KINDS: dict[str, Kind] = {
    "micro-read": Kind(False, 0.0, True, "micro", 0, math.inf, ("micro", "update", False), "micro.multisite"),
    "micro-update": Kind(True, 0.0, True, "micro", 0, math.inf, ("micro", "update", True), "micro.multisite"),
    "tpcb": Kind(True, 0.15, False, "tpcb", 4, 10.0, ("tpcb", "", None), "tpcb.remote"),
    "tpcc-payment": Kind(
        True, 0.15, False, "tpcc-payment", 4, 30_000.0, ("tpcc", "mix", "payment"), "tpcc.payment_remote"
    ),
    "tpcc-new_order": Kind(
        True, 0.01, False, "tpcc-new_order", 23, 10_000.0, ("tpcc", "mix", "new_order"), "tpcc.new_order_remote_item"
    ),
}
#: The kinds by the names the model's figures and claims use.
READ, UPDATE, TPCB, PAYMENT, NEW_ORDER = KINDS


#: The most distinct rows a microbenchmark transaction touches (the engine's
#: ``micro.rows_per_txn`` maximum, ``csrc/include/islands/settings/micro_config.hpp``).
MAX_ROWS = 10_000
#: The steepest Zipf skew the model takes: the engine's sampler's ``ZipfGenerator::kMaxSkew``.
MAX_ZIPF_S = 10.0
#: The largest site the model takes (10^8 rows of 40 bytes: 4 GB per core); the skewed
#: simulation keeps a distribution over every row of the machine.
MAX_ROWS_PER_SITE = 100_000_000
#: Order lines of a NewOrder, on average (TPC-C 2.4.1.3: 5 to 15, uniform).
NEW_ORDER_LINES = 10


@dataclass(frozen=True)
class ModelWorkload:
    """One workload point: ``kind`` (see :data:`KINDS`), rows read or updated per transaction
    (the microbenchmark's; others ignore it), ``multisite`` (the share of multisite
    transactions; TPC-B/Payment: remote transactions; NewOrder: remote items), Zipf ``zipf_s``
    of the row choice (used by the simulation) and ``rows_per_site`` (the data size: 10,000 is
    000's cache-resident dataset)."""

    kind: str = "micro-read"
    rows: int = 10
    multisite: float = 0.0
    zipf_s: float = 0.0
    rows_per_site: int = 10_000
    #: whether its updates are logged (group commit): ``None`` for the sweeps' default (every
    #: updating workload logs, as 000 ran them), ``False`` for an unlogged run
    logged: bool | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"workload {self.kind!r}: choose one of {', '.join(KINDS)}")
        if isinstance(self.rows, bool) or not isinstance(self.rows, int) or not 1 <= self.rows <= MAX_ROWS:
            raise ValueError(f"workload rows: {self.rows!r} is not a whole number in [1, {MAX_ROWS}]")
        if not 0.0 <= float(self.multisite) <= 1.0:
            raise ValueError(f"workload multisite: {self.multisite!r} is not a fraction in [0, 1]")
        # NaN fails both comparisons; inf and s > MAX_ZIPF_S are refused as the engine's
        # sampler refuses them (a skew so steep that every draw is the hottest row).
        if not 0.0 <= float(self.zipf_s) <= MAX_ZIPF_S:
            raise ValueError(f"workload zipf: {self.zipf_s!r} is not in [0, {MAX_ZIPF_S:g}] (the sampler's range)")
        rows_per_site = self.rows_per_site
        if isinstance(rows_per_site, bool) or not isinstance(rows_per_site, numbers.Integral):
            raise ValueError(f"workload rows_per_site: {rows_per_site!r} is not a whole number")
        if not 1 <= rows_per_site <= MAX_ROWS_PER_SITE:
            raise ValueError(f"workload rows_per_site: {rows_per_site!r} is not in [1, {MAX_ROWS_PER_SITE:,}]")
        if self.per_row and self.rows > rows_per_site:
            raise ValueError(
                f"workload rows: {self.rows} distinct rows per transaction cannot come from a site of "
                f"{rows_per_site} (rows_per_site)"
            )

    @property
    def update(self) -> bool:
        """Whether its transactions write (and log)."""
        return KINDS[self.kind].update

    @property
    def per_row(self) -> bool:
        """Whether each of its rows is drawn over the sites (see :class:`Kind`)."""
        return KINDS[self.kind].per_row

    @property
    def log_rows(self) -> int:
        """Rows a transaction's log record carries."""
        return self.rows if self.per_row else KINDS[self.kind].log_rows

    @property
    def standard_share(self) -> float:
        """Its multisite share in the papers' standard setting."""
        return KINDS[self.kind].standard_share

    @property
    def logs(self) -> bool:
        """Whether its writes are logged: every updating workload (the microbenchmark's
        updates, TPC-B, TPC-C since the engine logs it) unless ``logged`` is ``False``."""
        return self.update and self.logged is not False

    @property
    def op(self) -> str:
        """``"update"`` or ``"read"``: the key of per-row costs."""
        return "update" if self.update else "read"

    @property
    def family(self) -> str:
        """The key of its local costs (both microbenchmarks share theirs)."""
        return KINDS[self.kind].family

    @property
    def multisite_share(self) -> float:
        """The share of transactions that are multisite: ``multisite``, but for NewOrder the
        share with at least one remote line of :data:`NEW_ORDER_LINES`."""
        if self.kind == NEW_ORDER:
            return 1.0 - (1.0 - self.multisite) ** NEW_ORDER_LINES
        return float(self.multisite)

    def with_multisite(self, multisite: float) -> ModelWorkload:
        """The same workload at another multisite share."""
        return dataclasses.replace(self, multisite=multisite)

    def describe(self) -> str:
        """``micro-update, 10 rows, 20% multisite``."""
        parts = [self.kind]
        if self.per_row:
            parts.append(f"{self.rows} rows")
        parts.append(f"{self.multisite:.0%} {'multisite' if self.per_row else 'remote'}")
        if self.zipf_s:
            parts.append(f"zipf {self.zipf_s:g}")
        if self.rows_per_site != 10_000:
            parts.append(f"{self.rows_per_site:,} rows/site")
        if self.update and self.logged is False:
            parts.append("unlogged")
        return ", ".join(parts)


def parse_workload(spec: str) -> ModelWorkload:
    """A :class:`ModelWorkload` from ``kind[:key=value,...]`` (module docstring); raises
    ``ValueError`` naming what is wrong."""
    kind, _, options = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise ValueError(f"workload {kind!r}: choose one of {', '.join(KINDS)}")
    values: dict[str, object] = {"multisite": KINDS[kind].standard_share}
    names: dict[str, tuple[str, Callable[[str], Any]]] = {
        "rows": ("rows", _whole),
        "multisite": ("multisite", _number),
        "zipf": ("zipf_s", _number),
    }
    names["rows_per_site"] = ("rows_per_site", _whole)
    names["logged"] = ("logged", _boolean)
    for item in filter(None, (o.strip() for o in options.split(","))):
        key, eq, text = item.partition("=")
        if not eq or key.strip() not in names:
            raise ValueError(f"workload option {item!r}: expected key=value with key one of {', '.join(names)}")
        field, kind_of = names[key.strip()]
        try:
            values[field] = kind_of(text.strip())
        except ValueError:
            raise ValueError(f"workload option {item!r}: {text.strip()!r} is not a {kind_of.__name__}") from None
    return ModelWorkload(kind=kind, **values)  # type: ignore[arg-type]


def _whole(text: str) -> int:
    # ASCII digits only: int() also takes "٣", "１０" and "1_0".
    if not re.fullmatch(r"[0-9]{1,18}", text, re.ASCII):
        raise ValueError(text)
    return int(text)


_whole.__name__ = "whole number"


def _number(text: str) -> float:
    # A finite decimal in ASCII: float() also takes "inf", "nan" and "١.٥"; the range is
    # ModelWorkload's to check.
    if not re.fullmatch(r"[+-]?([0-9]{1,18}(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,3})?", text, re.ASCII):
        raise ValueError(text)
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


_number.__name__ = "finite number"


def _boolean(text: str) -> bool:
    if text.lower() in ("true", "1", "yes"):
        return True
    if text.lower() in ("false", "0", "no"):
        return False
    raise ValueError(text)


_boolean.__name__ = "boolean"


def from_run(row: Any, default_workload: str) -> ModelWorkload | None:
    """The model workload of one engine run (a sweep row's ``config.*`` values, read with
    ``row.get``; a row without ``config.workload`` ran ``default_workload``), or None for a run
    the model has no kind for (TATP, a TPC-C mix)."""
    name = str(row.get("config.workload", default_workload))
    logged = str(row.get("config.log.mode", "off")) != "off"
    for kind, k in KINDS.items():
        workload, setting, value = k.engine
        if workload != name:
            continue
        if setting:
            got = row.get(f"config.{workload}.{setting}")
            if (bool(got) if isinstance(value, bool) else str(got)) != value:
                continue
        fields: dict[str, Any] = {"multisite": float(row[f"config.{k.share_setting}"]), "logged": logged}
        if k.per_row:
            fields["rows"] = int(row[f"config.{workload}.rows_per_txn"])
            fields["zipf_s"] = float(row.get(f"config.{workload}.zipf_s", 0.0) or 0.0)
            fields["rows_per_site"] = int(row.get(f"config.{workload}.rows_per_site", 10_000))
        return ModelWorkload(kind, **fields)
    return None


def participants(workload: ModelWorkload, sizes: Sequence[int], home: int) -> tuple[float, float]:
    """For a multisite transaction started by instance ``home`` of a deployment whose
    instances hold ``sizes`` sites each: ``(probability it is distributed, expected number of
    other instances it involves when it is)``. One instance: ``(0, 0)``."""
    total = sum(sizes)
    others = [s for i, s in enumerate(sizes) if i != home]
    if not others:
        return 0.0, 0.0
    if workload.per_row:
        draws = workload.rows - 1
        if draws < 1:
            return 0.0, 0.0
        p_local = (sizes[home] / total) ** draws
        expected = sum(1.0 - (1.0 - s / total) ** draws for s in others)
        p_dist = 1.0 - p_local
        return p_dist, (expected / p_dist if p_dist > 0 else 0.0)
    # TPC-B, Payment and NewOrder: the remote row's site is another site, drawn uniformly;
    # at 1% per line a NewOrder rarely has two remote lines, so one participant.
    outside = sum(others) / (total - 1) if total > 1 else 0.0
    return outside, 1.0
