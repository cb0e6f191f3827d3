"""``islands results DIR``: list, filter and export a results directory's rows.

By default a table of the rows (one per run: the point, its repetition, the axes that vary,
the measured columns and whether the machine was busy, in the terminal's width:
:mod:`islands.analysis.tables`; ``--all-columns`` shows every column); ``--points`` one line per
point instead, with the median, min–max and 95% confidence interval of its repetitions
(:func:`islands.analysis.statistics.summarize`).
``--where KEY=VALUE`` (also ``!=``, ``<``, ``<=``, ``>``, ``>=``; repeatable, all must hold)
keeps matching rows; KEY is a column or the last part of one (``workload`` is
``config.workload``, ``multisite`` is ``config.micro.multisite``, ``deployment`` is
``deployment.name``). ``--csv`` and ``--json`` export (every column unless ``--columns``;
JSON writes null for a missing number), to stdout or ``--output FILE``. Bad input raises
``ValueError``: one line, exit status 2.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from islands.analysis.store import results_directory

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["filter_rows", "main", "point_table", "register", "resolve_column"]

_WHERE = re.compile(r"^\s*([A-Za-z_][\w.\-]*?)\s*(!=|>=|<=|=|<|>)\s*(.*?)\s*$")
_ALIASES = {"deployment": "deployment.name"}
_LIST_COLUMNS = ("point_index", "repetition", "deployment.name", "transport")
#: Column prefixes a default listing of a benchmark's rows leaves to --all-columns.
_NOT_SHOWN = ("metadata.", "topology.", "system.", "host_", "config_hash")


def _varies(column: pd.Series) -> bool:
    return column.map(lambda v: repr(v) if isinstance(v, list | tuple | dict) else v).astype(str).nunique() > 1


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``results`` subcommand (``func=main``)."""
    p = subparsers.add_parser(
        "results",
        help="list, filter and export the rows of a results directory (table, CSV, JSON)",
        description="List a results directory's rows (or, with --points, each point's median, min-max and "
        "95% confidence interval), keep those matching --where, and export them as CSV or JSON.",
    )
    p.add_argument("results", metavar="RESULTS_DIR", help="a results directory (made by islands sweep or bench)")
    p.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keep rows where KEY=VALUE (also !=, <, <=, >, >=); repeat to combine",
    )
    p.add_argument("--columns", metavar="COLS", default=None, help="comma-separated columns to show, or 'all'")
    p.add_argument(
        "--all-columns",
        action="store_true",
        help="every column, however wide (by default: the axes that vary and the measured columns, "
        "in the terminal's width; --csv and --json always keep every column)",
    )
    p.add_argument(
        "--points", action="store_true", help="one line per point: median, min-max and 95%% CI of the repetitions"
    )
    p.add_argument("--metric", default="throughput_tps", help="the column --points summarizes (default: %(default)s)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="export as CSV")
    fmt.add_argument("--json", action="store_true", help="export as JSON (a list of objects; null for missing)")
    p.add_argument("--output", "-o", metavar="FILE", default=None, help="write to FILE instead of stdout")
    p.set_defaults(func=main)
    return p


def resolve_column(rows: pd.DataFrame, key: str) -> str:
    """The column ``key`` names: itself, an alias, or the one column ending in ``.key``
    (a ``config.`` column first); ValueError naming the candidates otherwise."""
    key = _ALIASES.get(key, key) if key not in rows.columns else key
    if key in rows.columns:
        return key
    matches = [c for c in rows.columns if c.endswith("." + key)]
    config = [c for c in matches if c.startswith("config.")]
    if len(matches) == 1:
        return matches[0]
    if len(config) == 1:
        return config[0]
    if not matches:
        raise ValueError(f"no column {key!r} in the rows (columns look like: {', '.join(list(rows.columns)[:8])}, ...)")
    raise ValueError(f"{key!r} is ambiguous: {', '.join(matches)}")


def _typed(column: pd.Series, text: str, what: str) -> Any:
    import pandas as pd

    if pd.api.types.is_bool_dtype(column):
        low = text.lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        raise ValueError(f"--where {what}: {text!r} is not true or false")
    if pd.api.types.is_numeric_dtype(column):
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"--where {what}: {text!r} is not a number") from None
    return text


def filter_rows(rows: pd.DataFrame, conditions: list[str]) -> pd.DataFrame:
    """The rows meeting every ``KEY<op>VALUE`` condition (see the module docstring)."""
    import pandas as pd

    keep = pd.Series(True, index=rows.index)
    for cond in conditions:
        m = _WHERE.match(cond)
        if m is None:
            raise ValueError(f"--where {cond!r}: write KEY=VALUE (or !=, <, <=, >, >=)")
        key, op, text = m.groups()
        column = resolve_column(rows, key)
        series = rows[column]
        value = _typed(series, text, cond)
        if isinstance(value, str):
            if op not in ("=", "!="):
                raise ValueError(f"--where {cond!r}: {column} is not numeric; use = or !=")
            series = series.astype(str)
        ops = {
            "=": series == value,
            "!=": series != value,
        }
        if op in ops:
            keep &= ops[op]
        else:
            num = pd.to_numeric(series, errors="coerce")
            keep &= {"<": num < value, "<=": num <= value, ">": num > value, ">=": num >= value}[op]
    return rows[keep]


def point_table(rows: pd.DataFrame, metric: str = "throughput_tps") -> pd.DataFrame:
    """One row per point (``grid_id``, else every distinct config): its name columns, ``n``,
    ``median``, ``min``, ``max``, ``mean`` and the 95% interval ``ci_low``–``ci_high`` of
    ``metric`` over its repetitions, and how many of them ran on a busy machine."""
    import pandas as pd

    from islands.analysis.statistics import summarize
    from islands.analysis.tables import IDENTITY, point_axes

    if metric not in rows.columns:
        raise ValueError(f"--metric: the rows have no column {metric!r}")
    key = ["grid_id"] if "grid_id" in rows.columns else [c for c in rows.columns if c.startswith("config.")]
    names = [c for c in IDENTITY if c in rows.columns] + point_axes(rows)
    records = []
    for _, group in rows.groupby(key, sort=False, dropna=False):
        first = group.iloc[0]
        s = summarize(pd.to_numeric(group[metric], errors="coerce"))
        record = {c: first[c] for c in names}
        record.update(n=s.n, median=s.median, min=s.min, max=s.max, mean=s.mean, ci_low=s.ci_low, ci_high=s.ci_high)
        if "system.busy" in group.columns:
            record["busy_runs"] = int(group["system.busy"].fillna(False).astype(bool).sum())
        records.append(record)
    return pd.DataFrame.from_records(records)


def main(args: argparse.Namespace) -> int:
    """Lists, filters or exports the rows; returns the exit status."""
    results_directory(args.results)  # before pandas loads
    from islands.analysis.comparison import load_rows
    from islands.analysis.tables import MEASURED, fit_table, point_axes
    from islands.cli.json_output import dumps

    rows = filter_rows(load_rows(args.results), args.where)
    table = point_table(rows, args.metric) if args.points else rows
    chosen = bool(args.columns) or args.all_columns or args.csv or args.json
    if args.columns and args.columns != "all":
        table = table[[resolve_column(table, c.strip()) for c in args.columns.split(",") if c.strip()]]
    elif not chosen and not args.points:
        shown = [c for c in _LIST_COLUMNS if c in table.columns] + point_axes(table)
        shown += [c for c in MEASURED if c in table.columns]
        if "point_index" not in table.columns:  # not a sweep's rows (a benchmark's): what varies
            shown = [
                c
                for c in table.columns
                if not c.startswith(_NOT_SHOWN)
                and not (c.startswith("config.") and c.removeprefix("config.") in table.columns)
                and _varies(table[c])
            ]
        table = table[shown] if shown else table
    if args.json:
        text = dumps(table.to_dict(orient="records"))
    elif args.csv:
        text = table.to_csv(index=False).rstrip("\n")
    elif table.empty:
        text = "no rows match" if args.where else "no rows"
    elif chosen:
        text = table.to_string(index=False, float_format=lambda v: f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}")
    else:
        text = fit_table(table)
    if args.output is None:
        print(text)
    else:
        try:
            Path(args.output).write_text(text + "\n")
        except OSError as e:
            raise ValueError(f"--output {args.output}: cannot write ({e.strerror})") from None
        print(f"{len(table)} rows written to {args.output}")
    return 0
