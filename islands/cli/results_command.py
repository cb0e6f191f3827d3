"""``islands results DIR``: list, filter and export a results directory's rows.

By default a table of the rows (one per run: the point, its repetition, the axes that vary,
the measured columns and whether the machine was busy, in the terminal's width:
:mod:`islands.analysis.tables`; ``--all-columns`` shows every column); ``--points`` one line per
point instead, with the median, min–max and 95% confidence interval of its repetitions
(:func:`islands.analysis.statistics.summarize`); a table too wide for the terminal leaves off
the mean, then min–max before the interval and names what it left off (``--columns`` picks).
``--where KEY=VALUE`` (also ``!=``, ``<``, ``<=``, ``>``, ``>=``; repeatable, all must hold)
keeps matching rows; KEY is a column or the last part of one (``workload`` is
``config.workload``, ``multisite`` is ``config.micro.multisite``, ``deployment`` is
``deployment.name``). ``--csv`` and ``--json`` export (every column unless ``--columns``;
JSON writes null for a missing number), to stdout or ``--output FILE``; a row carries the
settings of its own workload only (no ``config.tpcc.*`` on a micro row). ``--export [DIR]``
writes two files that need nothing of islands to read (as pyperf's JSON or BenchBase's summary
and samples files): ``<experiment>.summary.json`` (the sweep, the machine, the settings, every
point's statistics and every verdict: the figure's summary, the precision rounds' comparisons,
the notes) and ``<experiment>.samples.csv`` (one line per run). Bad input raises
``ValueError``: one line, exit status 2.
"""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from islands.analysis.store import results_directory
from islands.config.settings import DEFAULT_WORKLOAD

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "applicable_settings",
    "export_sweep",
    "filter_rows",
    "main",
    "point_table",
    "points_view",
    "register",
    "resolve_column",
]

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
    fmt.add_argument(
        "--export",
        nargs="?",
        const="",
        default=None,
        metavar="DIR",
        help="write <experiment>.summary.json (points, statistics, verdicts) and <experiment>.samples.csv "
        "(one line per run) into DIR (default: the results directory); they need nothing of islands to read",
    )
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
    from islands.analysis.tables import IDENTITY, check_metric, point_axes

    check_metric(rows, metric)
    key = ["grid_id"] if "grid_id" in rows.columns else [c for c in rows.columns if c.startswith("config.")]
    names = [c for c in IDENTITY if c in rows.columns] + point_axes(rows)
    records = []
    for _, group in rows.groupby(key, sort=False, dropna=False):
        s = summarize(pd.to_numeric(group[metric], errors="coerce"))
        record = {c: group[c].iat[0] for c in names}  # not group.iloc[0]: a row of every column
        record.update(n=s.n, median=s.median, min=s.min, max=s.max, mean=s.mean, ci_low=s.ci_low, ci_high=s.ci_high)
        if "system.busy" in group.columns:
            record["busy_runs"] = int(group["system.busy"].fillna(False).astype(bool).sum())
        records.append(record)
    return pd.DataFrame.from_records(records)


def _rows(directory: str) -> pd.DataFrame:
    """The stored rows (without loading scipy: a listing needs no statistics)."""
    from islands.analysis.store import ResultStore

    store = ResultStore(results_directory(directory))
    if not store.has_rows():
        raise ValueError(f"{directory}: holds no result rows")
    return store.rows()


#: The --points columns a narrow terminal leaves off first, in this order: the interval stays.
_POINTS_CUT_FIRST = ("mean", "busy_runs", "min-max", "n")


def _number(v: float) -> str:
    from islands.analysis.tables import human_number

    return human_number(float(v), small=".4g")


def _interval(low: float, high: float) -> str:
    """``1.01-1.03 M``: both ends in one unit, with digits enough to tell them apart."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return "-"
    top = max(abs(low), abs(high))
    scale, unit = (1e6, " M") if top >= 1e6 else (1e3, " K") if top >= 1e3 else (1.0, "")
    for digits in (3, 4, 5, 6):
        a, b = f"{low / scale:.{digits}g}", f"{high / scale:.{digits}g}"
        if a != b:
            break
    return f"{a}-{b}{unit}"


def points_view(points: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The terminal's --points table: the name columns, ``n``, ``median``, the 95% interval as one
    column (``1.01-1.03 M``), ``min-max``, ``mean`` and ``busy_runs``; a name column with one value
    on every point goes to the lines returned (``transport: unix on every point``)."""
    import pandas as pd

    stats = {"n", "median", "min", "max", "mean", "ci_low", "ci_high", "busy_runs", "sd"}
    names = [c for c in points.columns if c not in stats]
    constant = [c for c in names if len(points) > 1 and points[c].astype(str).nunique() == 1]
    view = pd.DataFrame({c: points[c] for c in names if c not in constant})
    view["n"] = points["n"]
    view["median"] = [_number(v) for v in points["median"]]
    view["95% CI"] = [_interval(lo, hi) for lo, hi in zip(points["ci_low"], points["ci_high"])]
    view["min-max"] = [_interval(lo, hi) if lo != hi else _number(lo) for lo, hi in zip(points["min"], points["max"])]
    view["mean"] = [_number(v) for v in points["mean"]]
    if "busy_runs" in points.columns:
        view["busy_runs"] = points["busy_runs"]
    from islands.analysis.tables import short_names

    header = short_names(constant)
    lines = [f"{header[c]}: {points[c].iloc[0]} on every point" for c in constant]
    return view, lines


def applicable_settings(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with each workload's settings (``config.<workload>.*``) kept on the rows of that
    workload only: blank on the others' rows, and gone where no row runs it."""
    from islands.config.sections import WORKLOAD_SETTINGS

    if "config.workload" not in rows.columns:
        return rows
    workload = rows["config.workload"].fillna(DEFAULT_WORKLOAD).astype(str)
    out = rows.copy()
    drop = []
    for section in WORKLOAD_SETTINGS:
        columns = [c for c in rows.columns if c.startswith(f"config.{section}.")]
        mask = workload != section
        if not columns or not mask.any():
            continue
        if mask.all():
            drop += columns
        else:
            for c in columns:
                out[c] = out[c].astype(object).where(~mask, None)
    return out.drop(columns=drop)


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows as JSON objects, each without the settings of workloads it does not run."""
    records = [{str(k): v for k, v in r.items()} for r in table.to_dict(orient="records")]
    if "config.workload" not in table.columns:
        return records
    from islands.config.sections import WORKLOAD_SETTINGS

    for record in records:
        own = record.get("config.workload") or DEFAULT_WORKLOAD
        others = tuple(f"config.{w}." for w in WORKLOAD_SETTINGS if w != own)
        for key in [k for k in record if k.startswith(others)]:
            del record[key]
    return records


def main(args: argparse.Namespace) -> int:
    """Lists, filters or exports the rows; returns the exit status."""
    results_directory(args.results)  # before pandas loads
    from islands.analysis.tables import MEASURED, fit_table, point_axes
    from islands.cli.json_output import dumps

    rows = filter_rows(_rows(args.results), args.where)
    if args.export is not None:
        if rows.empty:
            raise ValueError("no rows match" if args.where else f"{args.results}: no rows")
        written = export_sweep(args.results, rows, args.export or args.results, args.metric)
        for path in written:
            print(f"wrote {path}")
        return 0
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
    if args.csv or args.json:
        table = applicable_settings(table)
    if args.json:
        text = dumps(_records(table))
    elif args.csv:
        text = table.to_csv(index=False).rstrip("\n")
    elif table.empty:
        text = "no rows match" if args.where else "no rows"
    elif chosen:
        text = table.to_string(index=False, float_format=lambda v: f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}")
    elif args.points:
        view, notes = points_view(table)
        text = "\n".join([*notes, fit_table(view, cut_first=_POINTS_CUT_FIRST)])
    else:
        text = fit_table(table)
    if args.output is None:
        print(text)
    else:
        _write_output(args.output, text + "\n")
        print(f"{len(table)} rows written to {args.output}")
    return 0


#: The columns of a samples file beside the point's names, where the rows have them.
_SAMPLE_COLUMNS = ("point_index", "repetition", "deployment.name", "deployment.n_instances", "transport")


def export_sweep(
    directory: str | Path, rows: pd.DataFrame, out: str | Path, metric: str = "throughput_tps"
) -> list[Path]:
    """Writes ``<experiment>.summary.json`` and ``<experiment>.samples.csv`` for a results
    directory's ``rows`` into ``out`` (see the module); returns the two paths. The summary
    carries every verdict: the figure's summary lines (drawn in memory), the precision rounds'
    comparisons and the notes; JSON nulls stand for missing numbers."""
    from islands.analysis.guarded_files import make_directory, write_by_rename
    from islands.analysis.store import ResultStore
    from islands.analysis.tables import MEASURED, point_axes
    from islands.cli.json_output import dumps

    store = ResultStore(directory)
    manifest = store.manifest()
    name = str(manifest.get("experiment") or Path(directory).resolve().name)
    target = Path(out)
    make_directory(target, what="--export")
    axes = point_axes(rows)
    samples_path, summary_path = target / f"{name}.samples.csv", target / f"{name}.summary.json"

    sample_columns = [c for c in (*_SAMPLE_COLUMNS, *axes) if c in rows.columns]
    sample_columns += [c for c in (*MEASURED, metric, "commits", "finished_utc") if c in rows.columns]
    samples = applicable_settings(rows)[list(dict.fromkeys(sample_columns))]

    points = point_table(rows, metric)
    settings = {}
    for c in applicable_settings(rows).columns:
        if c.startswith("config.") and c not in axes:
            values = rows[c].dropna().astype(str).unique()
            if len(values) == 1 and rows[c].notna().all():  # one value on every row (not unlogged reads')
                settings[c.removeprefix("config.")] = rows[c].dropna().iloc[0]
    first = rows.iloc[0]
    machine = {
        k.removeprefix("metadata."): first[k]
        for k in ("metadata.cpu_model", "metadata.hostname", "metadata.kernel", "metadata.n_online_cpus")
        if k in rows.columns
    }
    summary = {
        "format": "islands sweep summary, version 1",
        "experiment": name,
        "figure": manifest.get("figure"),
        "status": manifest.get("status"),
        "runs_done": manifest.get("runs_done"),
        "runs_total": manifest.get("runs_total"),
        "rows": len(rows),
        "machine": machine,
        "metric": metric,
        "confidence": 0.95,
        "axes": axes,
        "settings": settings,
        "points": points.to_dict(orient="records"),
        "verdicts": _verdicts(rows, manifest),
        "samples": {"file": samples_path.name, "columns": list(samples.columns), "rows": len(samples)},
        "spec": manifest.get("spec"),
    }
    write_by_rename(samples_path, samples.to_csv(index=False))
    write_by_rename(summary_path, dumps(summary) + "\n")
    return [summary_path, samples_path]


def _verdicts(rows: pd.DataFrame, manifest: dict[str, Any]) -> dict[str, Any]:
    """Every verdict a sweep's figure and summary state, as data and as the words printed."""
    from islands.analysis.verdicts import precision_words

    out: dict[str, Any] = {}
    figure = manifest.get("figure")
    if figure and figure != "none":
        try:
            from islands.plots import figure_function, noise_notes

            drawing = figure_function(figure)(rows, figure)
            out["figure_summary"] = drawing.summary.splitlines()
            out["notes"] = noise_notes(rows)
            drawing.figure.clear()
        except ValueError as e:
            out["figure_summary"] = None
            out["figure_refused"] = str(e)
    precision = manifest.get("precision") or {}
    if precision:
        out["precision"] = precision
        out["precision_summary"] = precision_words(precision)
    return out


def _write_output(output: str, text: str) -> None:
    """Writes ``--output``: a file (a new one, or one a link names) by a temporary file renamed
    into place, so that a full disk leaves the old file or none, never a truncated one; a
    device or pipe (``/dev/stdout``) directly."""
    import os
    import stat

    from islands.analysis.guarded_files import write_by_rename

    target = os.path.realpath(output)
    try:
        special = not stat.S_ISREG(os.stat(target).st_mode)
    except FileNotFoundError:
        special = False
    except OSError as e:
        raise ValueError(f"--output {output}: cannot write ({e.strerror})") from None
    try:
        if special:
            with open(target, "w") as f:
                f.write(text)
        else:
            write_by_rename(target, text)
    except OSError as e:
        raise ValueError(f"--output {output}: cannot write ({e.strerror})") from None
