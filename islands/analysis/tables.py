"""Result tables that people can read in a terminal: the axes that tell a directory's points
apart and the measured columns, in the terminal's width (``islands results``, ``--points``,
``compare``). Everything else stays in the rows: ``--all-columns``, ``--csv`` and ``--json``
keep every column.

A point's *axes* are the config columns with two or more values among the rows, less those
that follow from the others: a column present on some rows only (``config.log.*`` where
read-only points run unlogged) or one another axis decides (``config.engine.cc`` where
``cc = "auto"`` resolves per deployment) says nothing the others do not."""

from __future__ import annotations

import math
import shutil
from collections.abc import Sequence
from typing import Any

import pandas as pd

__all__ = ["check_metric", "human_number", "MEASURED", "fit_table", "point_axes", "short_names", "terminal_width"]

#: Config columns that never name a point for people (they follow from the deployment).
NOT_AXES = ("config.driver.cpus", "config.driver.pin", "config.engine.cc")
#: Columns that name what was deployed, shown before the config axes.
IDENTITY = ("deployment.name", "transport")
#: The measured columns a listing shows, where the rows have them (and not all NaN).
MEASURED = ("throughput_tps", "abort_rate", "latency.p50_us", "latency.p99_us", "run_s", "system.busy")


def human_number(v: float, k_digits: int = 1, small: str = ".0f") -> str:
    """``1.28 M``, ``36.8 K``, ``950``: a rate or count for people (``k_digits`` decimals for
    thousands, ``small`` the format below a thousand); ``n/a`` when it is not a finite number."""
    if not math.isfinite(v):
        return "n/a"
    if abs(v) >= 1e6:
        return f"{v / 1e6:.2f} M"
    if abs(v) >= 1e3:
        return f"{v / 1e3:.{k_digits}f} K"
    return format(v, small)


def check_metric(rows: pd.DataFrame, metric: str, where: str = "the rows") -> None:
    """Raises ValueError (one line, naming ``--metric``) when ``rows`` have no column ``metric``
    or it holds values none of which is a number (``transport``: text, which a summary would
    read as a point without runs)."""
    if metric not in rows.columns:
        raise ValueError(f"--metric: {where} have no column {metric!r}")
    present = rows[metric].dropna()
    if present.empty:
        return  # no value yet (every run failed): the summaries say n/a
    if pd.api.types.is_bool_dtype(present) or pd.to_numeric(present, errors="coerce").notna().sum() == 0:
        sample = ", ".join(repr(v) for v in list(dict.fromkeys(present.astype(str)))[:2])
        raise ValueError(
            f"--metric {metric}: not a numeric column (values such as {sample}); choose one such as "
            "throughput_tps or commits"
        )


def terminal_width(default: int = 120) -> int:
    """The terminal's width (``COLUMNS`` first); ``default`` when output is not a terminal."""
    return shutil.get_terminal_size((default, 24)).columns


def _values(column: pd.Series) -> pd.Series:
    """The column with list and dict values as their text (comparable, hashable); a numeric or
    boolean column holds none and comes back as it is (most of a sweep's columns: no map)."""
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return column
    return column.map(lambda v: repr(v) if isinstance(v, list | tuple | dict) else v)


def point_axes(rows: pd.DataFrame, skip: Sequence[str] = ()) -> list[str]:
    """The config columns that tell ``rows``' points apart (see the module), in column order."""
    identity = [c for c in IDENTITY if c in rows.columns]
    values = {
        c: _values(rows[c])
        for c in rows.columns
        if c.startswith("config.") and c not in NOT_AXES and c not in skip and rows[c].notna().any()
    }
    candidates = [c for c, v in values.items() if v.dropna().astype(str).nunique() > 1]
    axes = list(candidates)
    for c in reversed(candidates):  # the later of two columns that decide each other goes
        others = identity + [a for a in axes if a != c]
        if not others:
            continue
        keyed = pd.DataFrame({o: _values(rows[o]).astype(str) for o in others})
        keyed["_value"] = values[c].astype(str)
        if (keyed.groupby(others, sort=False)["_value"].nunique(dropna=False) <= 1).all():
            axes.remove(c)
    return axes


#: Headers of the usual columns (the rest: see :func:`short_names`).
HEADERS = {
    "point_index": "point",
    "repetition": "rep",
    "deployment.name": "deployment",
    "throughput_tps": "txn/s",
    "abort_rate": "aborts",
    "latency.p50_us": "p50_us",
    "latency.p99_us": "p99_us",
    "system.busy": "busy",
    "busy_runs": "busy",
}


def short_names(columns: Sequence[str]) -> dict[str, str]:
    """Column -> header: :data:`HEADERS`, else the last dotted part of a config column where
    that names one column (``update`` for ``config.micro.update``), else the name without
    ``config.``."""
    last = [c.rsplit(".", 1)[-1] for c in columns]
    return {
        c: HEADERS.get(c) or (tail if last.count(tail) == 1 and c.startswith("config.") else c.removeprefix("config."))
        for c, tail in zip(columns, last)
    }


def _cell(v: Any) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15:
            return f"{int(v):,}" if abs(v) >= 1000 else str(int(v))
        return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 1000 else str(v)
    if hasattr(v, "item"):
        return _cell(v.item())
    return str(v)


def fit_table(table: pd.DataFrame, width: int | None = None, cut_first: Sequence[str] = ()) -> str:
    """``table`` as aligned text no wider than ``width`` (the terminal's): short headers, no
    column that is NaN throughout, and the columns that do not fit left off with a closing
    line that names them and how to see them. ``cut_first``: the columns to leave off first
    (in that order) when the table is too wide, before the ones at its right end."""
    width = terminal_width() if width is None else width
    columns = [c for c in table.columns if table[c].notna().any()]
    headers = short_names(columns)
    cells = {c: [_cell(v) for v in table[c].tolist()] for c in columns}
    numeric = {c: pd.api.types.is_numeric_dtype(table[c]) and not pd.api.types.is_bool_dtype(table[c]) for c in columns}
    widths = {c: max([len(headers[c]), *(len(s) for s in cells[c])]) for c in columns}

    def needed(chosen: list[str]) -> int:
        return sum(widths[c] for c in chosen) + 2 * max(0, len(chosen) - 1)

    shown = list(columns)
    for c in cut_first:
        if needed(shown) <= width:
            break
        if c in shown and len(shown) > 1:
            shown.remove(c)
    while needed(shown) > width and len(shown) > 1:
        shown.pop()

    def line(parts: dict[str, str]) -> str:
        return "  ".join(parts[c].rjust(widths[c]) if numeric[c] else parts[c].ljust(widths[c]) for c in shown).rstrip()

    lines = [line(headers)] + [line({c: cells[c][i] for c in shown}) for i in range(len(table))]
    left = [headers[c] for c in columns if c not in shown]
    if left:
        lines.append(_left_off(left, width))
    return "\n".join(lines)


def _left_off(names: Sequence[str], width: int) -> str:
    """The closing line of a cut table: ``(2 more columns: mean, busy; --columns or --all-columns)``,
    naming as many of them as fit in ``width``."""
    how = "; --columns or --all-columns)"
    head = f"({len(names)} more column{'s' if len(names) != 1 else ''}: "
    named: list[str] = []
    for i, name in enumerate(names):
        rest = "" if i == len(names) - 1 else ", ..."
        if len(head + ", ".join([*named, name]) + rest + how) > max(width, 60) and named:
            return head + ", ".join(named) + ", ..." + how
        named.append(name)
    return head + ", ".join(named) + how
