"""The deployment figures (000 Fig 11, 14, 17, 18, 20) and ``islands plot``.

Synthetic rows shaped like a sweep's (built from the topology fixtures and real deployment
plans, flattened the way the result store flattens them) pin down what each figure draws and
what its summary says; real tiny sweeps run through the command line check that real rows
render. Nothing here asserts a speed: the synthetic numbers are made up, and the real runs
only have to produce files and name their deployments.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from islands.__main__ import main as cli_main
from islands.analysis.store import ResultStore, flatten
from islands.experiments.sweep import Sweep, load_spec
from islands.machine.placement import expand_relative, plan_deployment, roles_of
from islands.machine.topology import read_topology
from islands.plots import FIGURES, Drawing, figure_function, render_results
from islands.plots.figure_rules import figure_words
from islands.plots.multisite import plot_multisite
from islands.plots.skew import plot_skew
from islands.plots.txn_size import plot_txn_size

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"
SYSFS = ROOT / "tests" / "fixtures" / "sysfs"
CPU = "Test CPU 9000 @ 3.00GHz"

Throughput = Callable[[Any, bool, float, int, float, int], float]


def make_rows(
    machine: str,
    throughput: Throughput,
    *,
    updates=(False, True),
    multisite=(0.0, 0.5, 1.0),
    rows_per_txn=(10,),
    zipf=(0.0,),
    transports=("unix",),
    repetitions: int = 2,
    figure: str = "000-fig11",
    deployments=("1", "per-socket", "per-core"),
) -> pd.DataFrame:
    """Rows as a sweep stores them, on a topology fixture, with made-up throughputs."""
    topo = read_topology(SYSFS / machine)
    names, _ = expand_relative(topo, list(deployments))
    rows = []
    for name in names:
        dep = plan_deployment(topo, name)
        d = dep.to_dict()
        d.pop("version")
        d["roles"] = ",".join(roles_of(topo, dep))
        for transport in transports:
            for update in updates:
                for ms in multisite:
                    for n in rows_per_txn:
                        for s in zipf:
                            for rep in range(repetitions):
                                rows.append(
                                    flatten(
                                        {
                                            "config": {
                                                "workload": "micro",
                                                "micro": {
                                                    "rows_per_site": 10000,
                                                    "columns": 10,
                                                    "rows_per_txn": n,
                                                    "update": update,
                                                    "multisite": ms,
                                                    "zipf_s": s,
                                                },
                                                "driver": {"cpus": list(dep.cpus), "warmup_s": 0.5, "duration_s": 2.0},
                                            },
                                            "topology": topo.to_dict(),
                                            "metadata": {"cpu_model": CPU},
                                            "throughput_tps": throughput(dep, update, ms, n, s, rep),
                                            "experiment": "synthetic",
                                            "figure": figure,
                                            "repetition": rep,
                                            "transport": transport,
                                            "deployment": d,
                                        }
                                    )
                                )
    return pd.DataFrame(rows)


def save_both(drawing: Drawing, tmp_path: Path) -> None:
    """The figure saves as PNG and PDF, both non-empty and of the right kind."""
    png, pdf = tmp_path / f"{drawing.stem}.png", tmp_path / f"{drawing.stem}.pdf"
    drawing.figure.savefig(png)
    drawing.figure.savefig(pdf)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert pdf.read_bytes()[:5] == b"%PDF-" and pdf.stat().st_size > 1_000


def series(ax) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (x, y) data of the lines drawn with error bars on ``ax``."""
    return [
        (np.asarray(c.lines[0].get_xdata(), float), np.asarray(c.lines[0].get_ydata(), float)) for c in ax.containers
    ]


# Fig 11 / 14 -----------------------------------------------------------------------------


def fig11_throughput(dep, update, ms, n, s, rep) -> float:
    """1ISL flat at 1 M; per-core 2 M local falling linearly to 0.3 M; ±1% between reps."""
    jitter = 1 + (0.01 if rep % 2 else -0.01)
    if dep.n_instances == 1:
        return 1e6 * jitter
    if dep.n_instances == dep.n_cpus:
        return (2e6 - 1.7e6 * ms) * jitter
    return (1.5e6 - 0.5e6 * ms) * jitter


def test_multisite_figure_on_two_sockets(tmp_path: Path) -> None:
    rows = make_rows("xeon-e5-2640v2-2x8", fig11_throughput)
    drawing = plot_multisite(rows, "000-fig11")
    assert drawing.stem == "000-fig11"
    axes = drawing.figure.axes
    assert [ax.get_title() for ax in axes] == ["read 10 rows per transaction", "update 10 rows per transaction"]
    assert axes[0].get_xlabel() == "multisite transactions (%)"
    assert "thousand txn/s" in axes[0].get_ylabel()
    title = figure_words(drawing.figure)
    assert "000 Fig 11" in title and "unix sockets" in title
    assert f"{CPU}: 2 sockets × 8 cores (32 hardware threads), topology read from xeon-e5-2640v2-2x8" in title
    assert "coincides" not in title
    assert "mean and 95% confidence interval over 2 repetitions (interleaved)" in title
    labels = axes[0].get_legend_handles_labels()[1]
    assert labels == ["1ISL (shared-everything)", "2ISL (per-socket)", "16ISL (per-core)"]
    # Points are the mean of the repetitions, in thousands, against % multisite.
    xs, ys = series(axes[0])[2]
    assert list(xs) == [0, 50, 100]
    assert ys == pytest.approx([2000, 1150, 300])
    lines = drawing.summary.splitlines()
    assert "2 sockets × 8 cores" in lines[0]
    assert (
        "  1ISL (shared-everything): flat within 1% around 1.00 M txn/s (at 100% vs at 0%: +0%, 95% CI -6% to +6%, "
        "not distinguishable)" in lines
    )
    assert (
        "  16ISL (per-core): 2.00 M txn/s at 0% multisite, falls to 300.0 K at 100% (-85%, 95% CI -86% to -84%)"
        in lines
    )
    assert any(
        line.startswith("  at 0%: 16ISL (per-core) is 1.33× faster than 2ISL (per-socket) (95% CI 1.25–1.42)")
        for line in lines
    )
    # 2ISL and 1ISL both at 1.00 M ± 1% at 100%: a ratio, but not one that tells them apart
    assert any(
        "at 100%: 2ISL (per-socket) and 1ISL (shared-everything) are not distinguishable: 1.00× (95% CI "
        "0.94–1.06)" in line
        for line in lines
    )
    # the error bars are the 95% intervals: mean ± t(0.975, 1) × sd / √2 = ± 12.706 × 1% of the mean
    bar = drawing.figure.axes[0].containers[-1][2][0].get_segments()[0]
    assert bar[1][1] - bar[0][1] == pytest.approx(2 * 12.706 * 0.01 * 2e6 * 2**0.5 / 2**0.5 / 1e3, rel=1e-3)
    save_both(drawing, tmp_path)


def test_multisite_figure_on_one_socket_says_per_socket_is_1isl(tmp_path: Path) -> None:
    rows = make_rows("vm-1x2", fig11_throughput, updates=(True,), repetitions=1)
    drawing = plot_multisite(rows)
    assert len(drawing.figure.axes) == 1
    title = figure_words(drawing.figure)
    assert "1 socket × 2 cores" in title
    assert "per-socket coincides with 1ISL" in title and "per-socket coincides with 1ISL" in drawing.summary
    # the summary says how to ask the question on this machine anyway
    note = drawing.summary.splitlines()[-1]
    assert note.startswith("note: this machine has one socket, so per-socket coincides with 1ISL")
    assert "--virtual-sockets 2" in note
    assert "one run per point (no error bars)" in title
    assert drawing.figure.axes[0].get_legend_handles_labels()[1] == [
        "1ISL (shared-everything = per-socket)",
        "2ISL (per-core)",
    ]
    save_both(drawing, tmp_path)


def test_fig11_draws_a_memory_resident_row_and_says_updates_logged(tmp_path: Path) -> None:
    small = make_rows("vm-1x2", fig11_throughput, repetitions=1)
    large = make_rows("vm-1x2", lambda *a: 0.8 * fig11_throughput(*a), repetitions=1)
    large["config.micro.rows_per_site"] = 1_000_000  # ~229 MB on two cores: beyond vm-1x2's 48 MB LLC
    rows = pd.concat([small, large], ignore_index=True)
    rows["config.log.mode"] = np.where(rows["config.micro.update"], "group_commit", None)
    rows["config.log.directory"] = np.where(rows["config.micro.update"], "/dev/shm", None)
    drawing = plot_multisite(rows, "000-fig11")
    assert [ax.get_title() for ax in drawing.figure.axes] == [
        "read 10 rows, cache-resident (10,000 rows per site, ~2 MB ≤ 48 MB LLC)",
        "update 10 rows, cache-resident (10,000 rows per site, ~2 MB ≤ 48 MB LLC)",
        "read 10 rows, memory-resident (1,000,000 rows per site, ~229 MB > 48 MB LLC)",
        "update 10 rows, memory-resident (1,000,000 rows per site, ~229 MB > 48 MB LLC)",
    ]
    assert "cannot show the cost of memory-resident" not in figure_words(drawing.figure)
    bottom_left = series(drawing.figure.axes[2])
    assert bottom_left[-1][1] == pytest.approx([1584, 910.8, 237.6])  # per-core, 0.8 x the top row (rep 0: -1%)
    note = "updates logged (group commit, locks held to the flush, log on tmpfs /dev/shm); reads unlogged"
    assert note in figure_words(drawing.figure) and note in drawing.summary.splitlines()[0]
    rows["config.log.early_lock_release"] = np.where(rows["config.micro.update"], True, None)
    released = plot_multisite(rows, "000-fig11").summary.splitlines()[0]
    assert "updates logged (group commit with early lock release, log on tmpfs /dev/shm)" in released
    assert (
        "update 10 rows, memory-resident (1,000,000 rows per site, ~229 MB > 48 MB LLC):"
        in drawing.summary.splitlines()
    )
    # 100,000 rows a site (~23 MB on two cores) fit the 48 MB LLC: not called memory-resident, and the
    # figure says it cannot answer that question here.
    large["config.micro.rows_per_site"] = 100_000
    within = plot_multisite(pd.concat([small, large], ignore_index=True), "000-fig11")
    assert (
        within.figure.axes[2].get_title() == "read 10 rows, cache-resident (100,000 rows per site, ~23 MB ≤ 48 MB LLC)"
    )
    assert "no data size here exceeds the last-level cache" in figure_words(within.figure)
    assert "not logged" in plot_multisite(small).summary.splitlines()[0]
    save_both(drawing, tmp_path)


def test_fig14_compares_transports_and_pools_single_instances(tmp_path: Path) -> None:
    def tput(dep, update, ms, n, s, rep):
        base = fig11_throughput(dep, update, ms, n, s, rep)
        return base * 1.6 if dep.n_instances > 1 and rep >= 2 else base  # reps 2, 3: "shm"

    rows = make_rows("vm-1x2", tput, updates=(False,), transports=("unix",), repetitions=4)
    rows.loc[rows["repetition"] >= 2, "transport"] = "shm"
    rows["repetition"] = rows["repetition"] % 2
    drawing = plot_multisite(rows, "000-fig14")
    labels = drawing.figure.axes[0].get_legend_handles_labels()[1]
    assert labels == [
        "1ISL (shared-everything = per-socket)",
        "2ISL (per-core), shared memory",
        "2ISL (per-core), unix sockets",
    ]
    styles = [c.lines[0].get_linestyle() for c in drawing.figure.axes[0].containers]
    assert styles == ["-", "-", "--"]
    assert "000 Fig 14" in figure_words(drawing.figure)
    assert (
        "shared memory vs unix sockets at 100% multisite: 2ISL (per-core) +60%, 95% CI +51% to +70%" in drawing.summary
    )
    save_both(drawing, tmp_path)


def test_log_scale_when_values_span_more_than_twentyfold() -> None:
    def tput(dep, update, ms, n, s, rep):
        return 1e6 if dep.n_instances == 1 else (2e6 if ms == 0 else 2e4)

    drawing = plot_multisite(make_rows("vm-1x2", tput, repetitions=1))
    assert drawing.figure.axes[0].get_yscale() == "log"
    assert "log scale" in drawing.figure.axes[0].get_ylabel()
    assert "falls to 20.0 K at 100% (-99%, one run: no interval)" in drawing.summary
    flat = plot_multisite(make_rows("vm-1x2", fig11_throughput, repetitions=1))
    assert flat.figure.axes[0].get_yscale() == "linear"


# Fig 17 / 18 -----------------------------------------------------------------------------


def txn_throughput(dep, update, ms, n, s, rep) -> float:
    """Cost per transaction 0.5 µs + 0.1 µs per row (+ 5 µs per instance when multisite)."""
    us = 0.5 + 0.1 * n + (5.0 * (dep.n_instances - 1) if ms > 0 and n > 1 else 0.0)
    return dep.n_cpus * 1e6 / us * (1.02 if rep else 0.98)


def test_txn_size_figure_draws_time_per_transaction(tmp_path: Path) -> None:
    sizes = (1, 2, 4, 8, 16, 32, 64, 100)
    rows = make_rows(
        "xeon-e5-2640v2-2x8",
        txn_throughput,
        multisite=(0.0, 1.0),
        rows_per_txn=sizes,
        deployments=("all",),
        figure="000-fig17",
    )
    drawing = plot_txn_size(rows, "000-fig17")
    assert drawing.stem == "000-fig17-18"
    axes = drawing.figure.axes
    assert [ax.get_title() for ax in axes] == [
        "Fig 17: read, local (0% multisite)",
        "Fig 17: read, 100% multisite",
        "Fig 18: update, local (0% multisite)",
        "Fig 18: update, 100% multisite",
    ]
    assert all(ax.get_xscale() == "log" for ax in axes)
    assert "CPU-µs" in axes[0].get_ylabel()
    assert "cpus × 10⁶ / throughput" in figure_words(drawing.figure)
    labels = axes[0].get_legend_handles_labels()[1]
    assert labels[0] == "1ISL (shared-everything)" and labels[-1] == "16ISL (per-core)"
    assert len(labels) == 5  # 1, 2, 4, 8 and 16 instances on 16 cores
    # cpus x 1e6 / mean throughput gives back the made-up cost (the ±2% repetitions average out
    # in the throughput, not in its inverse: within 0.1%).
    xs, ys = series(axes[1])[-1]
    assert list(xs) == list(sizes)
    expected = [0.5 + 0.1 * n + (75.0 if n > 1 else 0) for n in sizes]
    assert ys == pytest.approx(expected, rel=1e-3)
    lines = drawing.summary.splitlines()
    assert (
        lines[lines.index("read, 100% multisite:") + 5]
        == "  16ISL (per-core): 0.6 µs at 1 row, rises to 86 µs at 100 rows (×143, 95% CI ×126 to ×161)"
    )
    assert (
        "  at 1 row: 16ISL (per-core) and 1ISL (shared-everything) are not distinguishable (+0%, 95% CI -11% "
        "to +13%); at 100 rows: 1ISL (shared-everything) is cheaper than 2ISL (per-socket): -32%, 95% CI -40% to -23%"
        in lines
    )
    save_both(drawing, tmp_path)


def test_txn_size_figure_of_reads_only_is_fig17() -> None:
    rows = make_rows("vm-1x2", txn_throughput, updates=(False,), multisite=(0.0,), rows_per_txn=(1, 10), repetitions=1)
    drawing = plot_txn_size(rows, "000-fig17")
    assert drawing.stem == "000-fig17"
    assert len(drawing.figure.axes) == 1
    assert drawing.figure.axes[0].get_xscale() == "log"
    assert "1ISL (shared-everything = per-socket)" in drawing.summary and "2ISL (per-core)" in drawing.summary


def test_txn_size_figure_under_occ_is_fig27() -> None:
    rows = make_rows("vm-1x2", txn_throughput, updates=(False,), multisite=(0.0,), rows_per_txn=(1, 10), repetitions=1)
    rows["config.engine.cc"] = "occ"
    drawing = plot_txn_size(rows, "000-fig27")
    assert drawing.stem == "000-fig27"
    assert drawing.figure.axes[0].get_title() == "Fig 27: read, local (0% multisite)"


# Fig 20 ----------------------------------------------------------------------------------


def skew_throughput(dep, update, ms, n, s, rep) -> float:
    hot = 1 + (3 * s if update and dep.n_instances == 1 else s)  # contention vs one hot instance
    return 1e6 * (1 - 0.5 * ms) / hot


def test_skew_figure(tmp_path: Path) -> None:
    zipf = (0.0, 0.5, 1.0, 1.5)
    rows = make_rows(
        "xeon-e7530-4x6", skew_throughput, multisite=(0.0, 0.2), rows_per_txn=(2,), zipf=zipf, figure="000-fig20"
    )
    drawing = plot_skew(rows, "000-fig20")
    assert drawing.stem == "000-fig20"
    read, update = drawing.figure.axes
    assert read.get_title() == "read 2 rows per transaction" and update.get_title() == "update 2 rows per transaction"
    assert "Zipf" in read.get_xlabel() and "thousand txn/s" in read.get_ylabel()
    assert len(read.containers) == 3 * 2  # deployments x % multisite
    legend = [t.get_text() for t in drawing.figure.legends[0].get_texts()]
    assert legend == [
        "1ISL (shared-everything)",
        "4ISL (per-socket)",
        "24ISL (per-core)",
        "0% multisite",
        "20% multisite",
    ]
    xs, ys = series(update)[0]  # 1ISL, 0% multisite
    assert list(xs) == list(zipf) and ys == pytest.approx([1000 / (1 + 3 * s) for s in zipf])
    assert "4 sockets × 6 cores" in figure_words(drawing.figure)
    lines = drawing.summary.splitlines()
    assert lines[lines.index("update 2 rows:") + 2].startswith(
        "  20% multisite: 1ISL 900.0 K at s=0 → 163.6 K at s=1.5 (-82%, identical repetitions); "
        "4ISL 900.0 K at s=0 → 360.0 K"
    )
    save_both(drawing, tmp_path)


# Registry and bad rows --------------------------------------------------------------------


def test_registry_covers_every_experiment_file() -> None:
    assert {"000-fig11", "000-fig14", "000-fig17", "000-fig18", "000-fig20"} <= set(FIGURES)
    for path in sorted(EXPERIMENTS.glob("*.toml")):
        spec = load_spec(path)
        assert spec.figure in FIGURES, path
    for name, figure in (
        ("default", "000-fig11"),
        ("000-fig14-multisite-shm", "000-fig14"),
        ("000-fig17-18-txn-size", "000-fig17"),
        ("000-fig20-skew", "000-fig20"),
    ):
        assert load_spec(EXPERIMENTS / f"{name}.toml").figure == figure


@pytest.mark.parametrize("fixture", sorted(p.name for p in SYSFS.iterdir() if p.is_dir()))
def test_shipped_plot_experiments_plan_on_every_fixture(fixture: str) -> None:
    topo = read_topology(SYSFS / fixture)
    deployments = 2 if topo.n_sockets == 1 else 3
    counts = {
        "default": deployments * 2 * 3,
        "000-fig14-multisite-shm": deployments * 2 * 2 * 6,
        "000-fig20-skew": deployments * 2 * 3 * 7,
    }
    for name, n in counts.items():
        assert len(Sweep(load_spec(EXPERIMENTS / f"{name}.toml"), topo, "unused").grid_points) == n, name
    sizes = Sweep(load_spec(EXPERIMENTS / "000-fig17-18-txn-size.toml"), topo, "unused")
    labels = {p.deployment.label for p in sizes.grid_points}
    assert {"1ISL", f"{topo.n_cores}ISL"} <= labels
    assert len(sizes.grid_points) == len(labels) * 2 * 2 * 8


def test_figure_function_refuses_unknown_ids() -> None:
    with pytest.raises(ValueError, match="'000-fig99' has no plot here .*known: 000-fig11"):
        figure_function("000-fig99")
    with pytest.raises(ValueError, match="islands bench ipc"):
        figure_function("000-fig2")


def test_rows_without_needed_columns_are_refused() -> None:
    rows = make_rows("vm-1x2", fig11_throughput, repetitions=1)
    with pytest.raises(ValueError, match="no column 'throughput_tps'"):
        plot_multisite(rows.drop(columns=["throughput_tps"]))
    with pytest.raises(ValueError, match="no column 'config.micro.zipf_s'"):
        plot_skew(rows.drop(columns=["config.micro.zipf_s"]))
    with pytest.raises(ValueError, match="no result rows"):
        plot_txn_size(rows.iloc[:0])
    nan = rows.assign(throughput_tps=float("nan"))
    with pytest.raises(ValueError, match="no row has a measured throughput"):
        plot_multisite(nan)


# The command line ------------------------------------------------------------------------


def results_dir(path: Path, rows: pd.DataFrame | None, figure: str = "000-fig11", **manifest: Any) -> Path:
    store = ResultStore(path)
    store.create({"experiment": "synthetic", "figure": figure, "status": "complete", **manifest})
    if rows is not None:
        store.directory.mkdir(parents=True, exist_ok=True)
        rows.to_parquet(store.rows_path, index=False)
    return path


def test_cli_plot_writes_png_pdf_and_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = results_dir(tmp_path / "r", make_rows("vm-1x2", fig11_throughput))
    assert cli_main(["plot", str(d)]) == 0
    out = capsys.readouterr().out
    png, pdf, summary = d / "000-fig11.png", d / "000-fig11.pdf", d / "summary.txt"
    for path in (png, pdf, summary):
        assert path.stat().st_size > 0 and str(path) in out
    text = summary.read_text()
    assert text.strip() in out
    assert "1ISL (shared-everything = per-socket)" in text and "2ISL (per-core)" in text
    # --out elsewhere, made if missing; the results directory gets nothing new.
    elsewhere = tmp_path / "figs" / "fig11"
    before = sorted(p.name for p in d.iterdir())
    assert cli_main(["plot", str(d), "--out", str(elsewhere)]) == 0
    assert sorted(p.name for p in elsewhere.iterdir()) == ["000-fig11.pdf", "000-fig11.png", "summary.txt"]
    assert sorted(p.name for p in d.iterdir()) == before


def test_cli_plot_notes_runs_on_a_busy_machine(tmp_path: Path) -> None:
    rows = make_rows("vm-1x2", fig11_throughput)
    rows["system.busy"] = [i % 4 == 0 for i in range(len(rows))]
    text = render_results(results_dir(tmp_path / "r", rows)).summary
    busy = (len(rows) + 3) // 4
    assert text.splitlines()[-1] == (
        f"note: {busy} of {len(rows)} runs ran while other processes kept the machine busy (system.busy); "
        "their numbers may be low"
    )
    calm = render_results(results_dir(tmp_path / "c", make_rows("vm-1x2", fig11_throughput))).summary
    assert "busy" not in calm


def test_cli_plot_notes_an_unfinished_sweep(tmp_path: Path) -> None:
    d = results_dir(
        tmp_path / "r",
        make_rows("vm-1x2", fig11_throughput, repetitions=1),
        status="interrupted",
        runs_done=12,
        runs_total=30,
    )
    rendered = render_results(d)
    assert rendered.summary.splitlines()[-1] == "note: the sweep is interrupted: 12 of 30 runs stored"


def bad_cases(tmp_path: Path) -> list[tuple[list[str], str, Path | None]]:
    rows = make_rows("vm-1x2", fig11_throughput, repetitions=1)
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    no_manifest = tmp_path / "no-manifest"
    no_manifest.mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{not json")
    good = results_dir(tmp_path / "good", rows)
    return [
        (["plot", str(tmp_path / "missing")], "no such results directory", None),
        (["plot", str(a_file)], "not a directory", None),
        (["plot", str(no_manifest)], "not a results directory", no_manifest),
        (["plot", str(broken)], "cannot read manifest.json", broken),
        (
            ["plot", str(results_dir(tmp_path / "unknown", rows, figure="000-fig99"))],
            "'000-fig99' has no plot here",
            tmp_path / "unknown",
        ),
        (
            ["plot", str(results_dir(tmp_path / "bench", rows, figure="000-fig2"))],
            "islands bench ipc",
            tmp_path / "bench",
        ),
        (["plot", str(results_dir(tmp_path / "empty", None))], "no result rows yet", tmp_path / "empty"),
        (
            ["plot", str(results_dir(tmp_path / "nocol", rows.drop(columns=["transport"])))],
            "no column 'transport'",
            tmp_path / "nocol",
        ),
        (["plot", str(good), "--out", str(a_file)], "exists and is not a directory", good),
        (["plot", str(good), "--out", str(a_file / "sub")], "cannot create it", good),
    ]


def test_cli_plot_bad_input_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message, directory in bad_cases(tmp_path):
        assert cli_main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("islands: error: ") and message in err, (argv, err)
        if directory is not None:  # nothing written on refusal
            assert not list(directory.glob("*.png")) and not (directory / "summary.txt").exists(), argv


def test_cli_plot_unwritable_output(tmp_path: Path, read_only_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = results_dir(tmp_path / "r", make_rows("vm-1x2", fig11_throughput, repetitions=1))
    assert cli_main(["plot", str(d), "--out", str(read_only_dir)]) == 2
    assert "not writable" in capsys.readouterr().err
    assert not list(read_only_dir.iterdir())


def test_cli_plot_replaces_planted_links_and_refuses_a_linked_out(tmp_path: Path, capsys) -> None:
    # issue 33: the figure and summary are written by rename (a link planted where they go is
    # replaced, its target untouched) and --out is guarded like a results directory
    d = results_dir(tmp_path / "r", make_rows("vm-1x2", fig11_throughput, repetitions=1))
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    (d / "summary.txt").symlink_to(outside)
    assert cli_main(["plot", str(d)]) == 0
    assert outside.read_text() == "keep" and not (d / "summary.txt").is_symlink()
    assert "000-fig11" in (d / "summary.txt").read_text() or (d / "summary.txt").stat().st_size > 0
    real = tmp_path / "real-out"
    real.mkdir()
    (tmp_path / "linked-out").symlink_to(real)
    capsys.readouterr()
    assert cli_main(["plot", str(d), "--out", str(tmp_path / "linked-out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "symbolic link" in err
    assert not list(real.iterdir())


def test_cli_plot_of_a_real_smoke_sweep(cli_here, tmp_path: Path) -> None:
    out = tmp_path / "smoke"
    swept = cli_here("sweep", str(EXPERIMENTS / "smoke.toml"), "--out", str(out), "--no-progress")
    assert swept.returncode == 0, swept.stderr
    plotted = cli_here("plot", str(out))
    assert plotted.returncode == 0, plotted.stderr
    assert (out / "000-fig11.png").stat().st_size > 0 and (out / "000-fig11.pdf").stat().st_size > 0
    summary = (out / "summary.txt").read_text()
    assert "1ISL" in summary and "at 20% multisite" in summary
    assert "read 2 rows:" in summary and "update 2 rows:" in summary


TINY = """
name = "tiny-fig11"
figure = "000-fig11"
[run]
warmup_s = 0.05
duration_s = 0.1
repetitions = 1
[grid]
deployment = ["1", "per-socket", "per-core"]
transport = ["unix"]
update = [true]
multisite = [0.0, 1.0]
[micro]
rows_per_txn = 2
rows_per_site = 1000
"""


def test_cli_plot_of_a_real_multi_instance_sweep(cli_here, tmp_path: Path) -> None:
    topo = read_topology()
    if topo.n_cores < 2:
        pytest.skip("needs two cores for a per-core deployment of several instances")
    spec = tmp_path / "tiny.toml"
    spec.write_text(TINY)
    out = tmp_path / "tiny"
    swept = cli_here("sweep", str(spec), "--out", str(out), "--no-progress")
    assert swept.returncode == 0, swept.stderr
    plotted = cli_here("plot", str(out), "--out", str(tmp_path / "figs"))
    assert plotted.returncode == 0, plotted.stderr
    figs = tmp_path / "figs"
    assert (figs / "000-fig11.png").stat().st_size > 0 and (figs / "000-fig11.pdf").stat().st_size > 0
    summary = (figs / "summary.txt").read_text()
    assert summary in plotted.stdout + "\n"
    rows = ResultStore(out).rows()
    for label in set(rows["deployment.label"]):
        assert f"  {label} (" in summary  # every deployment has its line, with its roles
    assert f"{topo.n_cores}ISL (per-core)" in summary and "at 0% multisite" in summary
    if topo.n_sockets == 1:
        assert "per-socket coincides with 1ISL" in summary
    assert "update 2 rows:" in summary


def test_the_run_note_names_each_workloads_own_size() -> None:
    """A TATP figure's caption gives subscribers per site, never micro's rows per site (every
    row carries every workload's settings, so the workload decides which size is named)."""
    from islands.plots._common import run_note

    rows = {
        "deployment": ["1ISL"],
        "via": ["in-process"],
        "config.micro.rows_per_site": [10_000],
        "config.tatp.subscribers_per_site": [100_000],
    }
    tatp = run_note(pd.DataFrame({**rows, "config.workload": ["tatp"]}))
    assert "100,000 subscribers per site" in tatp and "rows per site" not in tatp
    micro = run_note(pd.DataFrame({**rows, "config.workload": ["micro"]}))
    assert "10,000 rows per site" in micro and "subscribers" not in micro


def test_figures_label_plain_numbers_without_an_offset(tmp_path: Path):
    from islands.plots.inline_figure import InlineFigure

    fig = InlineFigure(figsize=(4, 3))
    ax = fig.subplots()
    ax.bar([0, 1], [2_000_000.0, 2_000_150.0])
    ax.set_ylim(1_999_900, 2_000_200)  # a range that matplotlib labels "+2e6" above the axis
    fig.savefig(tmp_path / "f.png")
    formatter = ax.yaxis.get_major_formatter()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert formatter.get_offset() == "" and "1e6" not in "".join(labels)
    assert any(label.replace(",", "").startswith("2000") for label in labels), labels
