"""The papers' claims as checks on a sweep's rows, for the reproduction report
(``islands reproduce --report``, :mod:`islands.experiments.report`).

A :class:`Check` is one sentence of a paper read as a throughput ratio between two sets of rows
(``a`` over ``b``) and the side of 1 the paper puts it on (``higher``, ``lower``, or ``same``:
"flat", "not affected"). :func:`run_checks` finds the rows of each side in a figure's
directories, computes the ratio with its 95% interval over the repetitions
(:func:`islands.analysis.statistics.ratio`) and words the outcome through
:func:`islands.analysis.verdicts.expectation_words`: a claim is reproduced only when the whole
interval lies on its side. A side is a set of ``column: value`` conditions; a value may be
:data:`FIRST` or :data:`LAST` (the smallest or largest value the directory holds: a quick run keeps
each axis' first and last value) and ``deployment`` names a role: ``1ISL`` (one instance),
``per-core`` (one single-threaded instance per CPU, more than one).

Where a check does not reproduce, its cause is stated only where the rows show it (a one-socket
machine for a per-socket claim, runs on a busy or stolen machine beside a contradiction, 1ISL runs
that drew per site: :data:`PER_SITE_LOAD`) or where
an issue has established it (:attr:`Check.known`, quoted as such); otherwise "cause not
determined".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from islands.analysis.statistics import Ratio, ratio
from islands.analysis.verdicts import (
    NOT_MEASURED_HERE,
    NOT_SETTLED,
    REPRODUCED,
    expectation_words,
    figure_outcome,
)

__all__ = [
    "CHECKS",
    "FIRST",
    "FIRST_SPANNING",
    "LAST",
    "PER_SITE_LOAD",
    "Check",
    "CheckOutcome",
    "figure_verdict",
    "run_checks",
    "select",
]

#: Column values resolved on the rows: the smallest / largest value the column holds, and the
#: smallest of at least 2 (the smallest transaction that can touch two sites: at 1 row a
#: "multisite" transaction is local, so a claim about multisite cost cannot be read there).
FIRST = "<first>"
LAST = "<last>"
FIRST_SPANNING = "<first spanning>"
_TOKENS = (FIRST, LAST, FIRST_SPANNING)


def _pick(values: Sequence[Any], token: str) -> Any:
    """The value of the sorted ``values`` that ``token`` names (None: there is none)."""
    if token == FIRST_SPANNING:
        values = [v for v in values if v >= 2]
    if not values:
        return None
    return values[-1] if token == LAST else values[0]


#: The throughput column the checks compare.
METRIC = "throughput_tps"
#: Short names of the columns the checks use.
_COLUMNS = {
    "update": "config.micro.update",
    "multisite": "config.micro.multisite",
    "rows": "config.micro.rows_per_txn",
    "rows_per_site": "config.micro.rows_per_site",
    "zipf": "config.micro.zipf_s",
    "remote": "config.tpcb.remote",
    "payment_remote": "config.tpcc.payment_remote",
    "mix": "config.tpcc.mix",
    "transport": "transport",
}


@dataclass(frozen=True)
class Check:
    """One claim of a paper as a ratio of two sides' throughputs (module docstring): the claim
    in the paper's words, the sides (``name: value`` pairs over :data:`_COLUMNS` and
    ``deployment``), the side of 1 the paper puts ``a / b`` on, and ``known``: a cause an issue
    has established for a miss, quoted as such (empty: none)."""

    figure: str
    claim: str
    a: tuple[tuple[str, Any], ...]
    b: tuple[tuple[str, Any], ...]
    expect: str
    known: str = ""

    def label(self) -> str:
        """``per-core read 10 rows, multisite 100% / ... `` style: the two sides, short."""
        return f"{_side_label(self.a)} / {_side_label(self.b)}"


def _side_label(side: tuple[tuple[str, Any], ...]) -> str:
    shown = []
    for key, value in side:
        v = (
            {FIRST: "first", LAST: "last", FIRST_SPANNING: "first of 2+"}.get(value, value)
            if isinstance(value, str)
            else value
        )
        shown.append(str(v) if key == "deployment" else f"{key}={v}")
    return " ".join(shown)


def _c(figure: str, claim: str, a: Mapping[str, Any], b: Mapping[str, Any], expect: str, known: str = "") -> Check:
    return Check(figure, claim, tuple(a.items()), tuple(b.items()), expect, known)


#: The cause a miss of a 1ISL claim has where the rows show it (module docstring): the 1ISL runs
#: drew each worker's transactions at its own site (driver.clients workers).
PER_SITE_LOAD = (
    "the 1ISL runs drew each worker's transactions at its own site (driver.clients workers, per-site "
    "locality: the shared instance never shares a site, issue 47), not over the whole database as the paper's"
)
_READ0 = {"update": False, "multisite": FIRST, "rows_per_site": FIRST}
_READ1 = {"update": False, "multisite": LAST, "rows_per_site": FIRST}

#: The claims the report checks, figure by figure (the paper's words from docs/figures.md and
#: islands.model.paper_shapes; a figure with none here is reported with its summary only).
CHECKS: tuple[Check, ...] = (
    _c("000-fig11", "1ISL flat", {"deployment": "1ISL", **_READ1}, {"deployment": "1ISL", **_READ0}, "same"),
    _c(
        "000-fig11",
        "per-core best at 0%",
        {"deployment": "per-core", **_READ0},
        {"deployment": "1ISL", **_READ0},
        "higher",
    ),
    _c(
        "000-fig11",
        "[per-core] falls fastest",
        {"deployment": "per-core", **_READ1},
        {"deployment": "per-core", **_READ0},
        "lower",
    ),
    _c(
        "000-fig14",
        "at 100% multisite read: per-core +60% [shared memory] vs unix sockets [checked: the direction, not the size]",
        {"deployment": "per-core", "transport": "shm", **_READ1},
        {"deployment": "per-core", "transport": "unix", **_READ1},
        "higher",
    ),
    _c(
        "000-fig17",
        "per-core ~40% cheaper locally [checked: the direction, not the size]",
        {"deployment": "per-core", "update": False, "multisite": FIRST, "rows": LAST},
        {"deployment": "1ISL", "update": False, "multisite": FIRST, "rows": LAST},
        "higher",
    ),
    _c(
        "000-fig17",
        "SE worst for large txns",
        {"deployment": "per-core", "update": False, "multisite": LAST, "rows": LAST},
        {"deployment": "1ISL", "update": False, "multisite": LAST, "rows": LAST},
        "higher",
    ),
    _c(
        "000-fig18",
        "multisite SN costlier than SE everywhere [smallest transactions]",
        {"deployment": "1ISL", "update": True, "multisite": LAST, "rows": FIRST_SPANNING},
        {"deployment": "per-core", "update": True, "multisite": LAST, "rows": FIRST_SPANNING},
        "higher",
    ),
    _c(
        "000-fig18",
        "multisite SN costlier than SE everywhere [largest transactions]",
        {"deployment": "1ISL", "update": True, "multisite": LAST, "rows": LAST},
        {"deployment": "per-core", "update": True, "multisite": LAST, "rows": LAST},
        "higher",
    ),
    _c(
        "000-fig20",
        "SE hurt by contention on updates",
        {"deployment": "1ISL", "update": True, "multisite": FIRST, "zipf": LAST},
        {"deployment": "1ISL", "update": True, "multisite": FIRST, "zipf": FIRST},
        "lower",
    ),
    _c(
        "000-fig20",
        "per-core hurt by one overloaded instance",
        {"deployment": "per-core", "update": False, "multisite": FIRST, "zipf": LAST},
        {"deployment": "per-core", "update": False, "multisite": FIRST, "zipf": FIRST},
        "lower",
    ),
    _c(
        "000-fig22",
        "SN ahead local-only [TPC-B]",
        {"deployment": "per-core", "remote": FIRST},
        {"deployment": "1ISL", "remote": FIRST},
        "higher",
    ),
    _c(
        "000-fig22",
        "[Fig 8, local Payment] per-core 4.5x [over shared-everything] [checked: the direction, not the size]",
        {"deployment": "per-core", "mix": "payment", "payment_remote": FIRST},
        {"deployment": "1ISL", "mix": "payment", "payment_remote": FIRST},
        "higher",
    ),
    _c(
        "000-fig22",
        "drops ~22% (TPC-B) with remote [checked: the direction, not the size]",
        {"deployment": "per-core", "remote": LAST},
        {"deployment": "per-core", "remote": FIRST},
        "lower",
    ),
    _c(
        "000-fig23",
        "SE flat",
        {"deployment": "1ISL", "remote": LAST},
        {"deployment": "1ISL", "remote": FIRST},
        "same",
    ),
    _c(
        "000-fig23",
        "[fine] SN fall[s]",
        {"deployment": "per-core", "remote": LAST},
        {"deployment": "per-core", "remote": FIRST},
        "lower",
    ),
    _c(
        "000-fig24",
        "SN falls sharply",
        {"deployment": "per-core", "payment_remote": LAST},
        {"deployment": "per-core", "payment_remote": FIRST},
        "lower",
    ),
    _c(
        "000-fig25",
        "same trends [as Fig 11: per-core best at 0%]",
        {"deployment": "per-core", "multisite": FIRST},
        {"deployment": "1ISL", "multisite": FIRST},
        "higher",
    ),
    _c(
        "000-fig25",
        "same trends [as Fig 11: per-core falls with multisite]",
        {"deployment": "per-core", "multisite": LAST},
        {"deployment": "per-core", "multisite": FIRST},
        "lower",
    ),
    _c(
        "000-fig28",
        "same trends, steeper [per-core update falls with multisite]",
        {"deployment": "per-core", "multisite": LAST},
        {"deployment": "per-core", "multisite": FIRST},
        "lower",
    ),
)


@dataclass(frozen=True)
class CheckOutcome:
    """A check on the rows: the ratio, the outcome word (:data:`REPRODUCED`, :data:`CONTRADICTED`,
    :data:`NOT_SETTLED`, :data:`NOT_MEASURED_HERE`), its words with the interval, and the cause
    where it did not reproduce."""

    check: Check
    ratio: Ratio | None
    outcome: str
    words: str
    cause: str = ""
    runs: int = 0
    #: the two sides as measured (first/last resolved to the values run)
    sides: str = ""


def _column(rows: pd.DataFrame, key: str) -> pd.Series | None:
    name = _COLUMNS.get(key, key)
    return rows[name] if name in rows.columns else None


def _numbers(rows: pd.DataFrame, column: str) -> pd.Series:
    """The column as numbers (NaN where not one)."""
    return pd.Series(pd.to_numeric(rows[column], errors="coerce"), index=rows.index)


def select(rows: pd.DataFrame, side: Iterable[tuple[str, Any]]) -> pd.DataFrame:
    """The rows of one side (module docstring); empty where a column is missing."""
    out = rows
    for key, value in side:
        if key == "deployment":
            if "deployment.n_instances" not in out.columns or "deployment.n_cpus" not in out.columns:
                return out.iloc[0:0]
            n = _numbers(out, "deployment.n_instances")
            cpus = _numbers(out, "deployment.n_cpus")
            if value == "1ISL":
                out = out[n == 1]
            elif value == "per-core":
                out = out[(n == cpus) & (n > 1)]
            else:
                raise ValueError(f"deployment {value!r}: one of 1ISL, per-core")
            continue
        col = _column(out, key)
        if col is None:
            return out.iloc[0:0]
        if value in _TOKENS:
            whole = _column(rows, key)
            value = _pick(sorted((whole if whole is not None else col).dropna().unique()), value)
            if value is None:
                return out.iloc[0:0]
        if isinstance(value, float):
            out = out[pd.to_numeric(col, errors="coerce").sub(value).abs() < 1e-9]
        else:
            out = out[col == value]
    return out


def _resolved(rows: pd.DataFrame, side: Iterable[tuple[str, Any]]) -> tuple[tuple[str, Any], ...]:
    out = []
    for key, value in side:
        if value in _TOKENS and key != "deployment":
            col = _column(rows, key)
            picked = _pick(sorted(col.dropna().unique()), value) if col is not None else None
            value = value if picked is None else picked
        out.append((key, value))
    return tuple(out)


def _values(rows: pd.DataFrame) -> list[float]:
    if METRIC not in rows.columns:
        return []
    return [float(v) for v in pd.to_numeric(rows[METRIC], errors="coerce") if v == v]


def _busy_share(rows: pd.DataFrame) -> tuple[int, int]:
    busy = rows["system.busy"].fillna(False).astype(bool) if "system.busy" in rows.columns else None
    steal = _numbers(rows, "system.steal_share") if "system.steal_share" in rows.columns else None
    flags = pd.Series(False, index=rows.index)
    if busy is not None:
        flags |= busy
    if steal is not None:
        flags |= steal.fillna(0) > 0.10
    return int(flags.sum()), len(rows)


def run_checks(figure: str, frames: Sequence[pd.DataFrame], checks: Sequence[Check] = CHECKS) -> list[CheckOutcome]:
    """Every check of ``figure`` on the first of ``frames`` (a figure's directories' rows) that
    holds both of its sides."""
    out = []
    for check in (c for c in checks if c.figure == figure):
        found: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame] | None = None
        for rows in frames:
            a, b = select(rows, check.a), select(rows, check.b)
            if len(a) and len(b):
                found = (rows, a, b)
                break
        if found is None:
            out.append(
                CheckOutcome(
                    check, None, NOT_MEASURED_HERE, f"{NOT_MEASURED_HERE}: no run of one side", _no_rows(check, frames)
                )
            )
            continue
        rows, a, b = found
        r = ratio(_values(a), _values(b))
        words = expectation_words(r, check.expect).text
        outcome = words.split(":", 1)[0]
        cause = "" if outcome == REPRODUCED else _cause(outcome, check, pd.concat([a, b]))
        sides = f"{_side_label(_resolved(rows, check.a))} / {_side_label(_resolved(rows, check.b))}"
        out.append(CheckOutcome(check, r, outcome, words, cause, len(a) + len(b), sides))
    return out


def _no_rows(check: Check, frames: Sequence[pd.DataFrame]) -> str:
    if not frames or all(f.empty for f in frames):
        return "not run here (see the figure's line)"
    wants_per_core = any(k == "deployment" and v == "per-core" for k, v in (*check.a, *check.b))
    cpus = max(
        (int(_numbers(f, "deployment.n_cpus").max()) for f in frames if not f.empty and "deployment.n_cpus" in f),
        default=0,
    )
    if wants_per_core and cpus < 2:
        return "this machine: one CPU, so per-core coincides with 1ISL"
    return "the figure's runs hold no row for one side of this claim"


def _cause(outcome: str, check: Check, rows: pd.DataFrame) -> str:
    busy, n = _busy_share(rows)
    noisy = f"{busy} of {n} runs ran on a busy or stolen machine" if busy else ""
    if outcome == NOT_SETTLED:
        return "this machine and these short runs: too few or too noisy repetitions to tell" + (
            f" ({noisy})" if noisy else ""
        )
    parts = [PER_SITE_LOAD] if _per_site_1isl(check, rows) else ["cause not determined"]
    if check.known:
        parts.append(f"known from {check.known}")
    if noisy:
        parts.append(noisy)
    return "; ".join(parts)


def _per_site_1isl(check: Check, rows: pd.DataFrame) -> bool:
    """Whether the check compares 1ISL rows that ran with per-site draws (driver.clients workers)."""
    if not any(k == "deployment" and v == "1ISL" for k, v in (*check.a, *check.b)):
        return False
    column = "config.driver.clients"
    ones = select(rows, (("deployment", "1ISL"),))
    if ones.empty:
        return False
    if column not in ones.columns:
        return False  # the rows do not show how they drew
    return bool((ones[column] == "workers").any())


def figure_verdict(outcomes: Sequence[CheckOutcome]) -> str:
    """The figure's verdict from its checks (:func:`islands.analysis.verdicts.figure_outcome`)."""
    return figure_outcome([o.outcome for o in outcomes])


def ratio_value(o: CheckOutcome) -> float:
    """The check's ratio, NaN where it has none."""
    return o.ratio.value if o.ratio is not None else math.nan
