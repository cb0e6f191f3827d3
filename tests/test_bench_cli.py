"""``python -m islands bench ipc|counters|placement`` end to end with tiny durations: rows
with their config, hash, topology and metadata, the table, the figure; bad input is one line
on stderr with exit status 2."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import islands
from islands.analysis.store import ResultStore

HERE = islands.read_topology()
PNG = b"\x89PNG\r\n\x1a\n"


def stored(directory) -> tuple[pd.DataFrame, dict]:
    return ResultStore(directory).rows(), json.loads((directory / "manifest.json").read_text())


def check_rows(rows: pd.DataFrame, n: int) -> None:
    assert len(rows) == n
    for column in ("config_hash", "metadata.git_revision", "metadata.cpu_model", "topology.cpus", "host_load_1m"):
        assert column in rows and rows[column].notna().all(), column
    assert rows["config_hash"].str.len().eq(16).all()
    assert json.loads(rows["topology.cpus"].iloc[0]) == list(HERE.cpus)


def test_bench_ipc_end_to_end(cli, tmp_path) -> None:
    out = cli(
        "bench",
        "ipc",
        "--mechanisms",
        "pipe,shm_ring",
        "--round-trips",
        "50",
        "--warmup",
        "0",
        "--size",
        "64",
        "--reps",
        "2",
        "--out",
        "ipc",
        "--quiet",
    )
    assert out.returncode == 0, out.stderr
    rows, manifest = stored(tmp_path / "ipc")
    pairs = 2 if HERE.n_sockets > 1 else 1
    check_rows(rows, 2 * 2 * pairs)
    assert set(rows["mechanism"]) == {"pipe", "shm_ring"}
    assert (rows["server_verified"] == 50).all() and (rows["config.message_bytes"] == 64).all()
    assert manifest["figure"] == "000-fig2" and manifest["settings"]["message_bytes"] == 64
    assert (tmp_path / "ipc" / "fig2-ipc.png").read_bytes().startswith(PNG)
    assert "shm_ring" in out.stdout and "p50" in out.stdout and "fig2-ipc.png" in out.stdout
    assert not any("\u2500" <= ch <= "\u257f" for ch in out.stdout), "box drawing written into a pipe"
    if HERE.n_sockets == 1:
        assert "no cross-socket pair" in out.stdout
    # it says what its round trip is, beside calibrate's
    assert "blocking ping-pong" in out.stdout and "message.*.round_trip_us" in manifest["notes"][0]


def test_bench_ipc_explicit_pair(cli_here, tmp_path) -> None:
    a = HERE.cpus[-1]
    out = cli_here(
        "bench",
        "ipc",
        "--mechanisms",
        "unix_stream",
        "--cpus",
        f"{a},{a}",
        "--round-trips",
        "20",
        "--warmup",
        "0",
        "--out",
        "one",
        "--no-figure",
        "--quiet",
    )
    assert out.returncode == 0, out.stderr
    rows, _ = stored(tmp_path / "one")
    assert list(rows["pair"]) == ["same_cpu"] and list(rows["client_cpu"]) == [a]
    assert not (tmp_path / "one" / "fig2-ipc.png").exists()


def test_bench_counters_end_to_end(cli_here, tmp_path) -> None:
    out = cli_here(
        "bench",
        "counters",
        "--locks",
        "mutex,mcs",
        "--duration",
        "0.02",
        "--warmup",
        "0",
        "--reps",
        "2",
        "--out",
        "c",
        "--quiet",
    )
    assert out.returncode == 0, out.stderr
    rows, manifest = stored(tmp_path / "c")
    check_rows(rows, 2 * 3 * 3 * 2)  # locks x counters x placements x reps
    assert rows["consistent"].all() and (rows["threads"] == HERE.n_cores).all()
    for values, expected in zip(rows["counter_values"], rows["expected_values"]):
        assert json.loads(values) == json.loads(expected)
    assert manifest["settings"]["threads"] == HERE.n_cores
    for name in ("fig5-counters-placement.png", "fig7-counters-granularity.png"):
        assert (tmp_path / "c" / name).read_bytes().startswith(PNG)
    assert "increments" in out.stdout and "mcs" in out.stdout


def test_bench_counters_fixed_increments(cli_here, tmp_path) -> None:
    out = cli_here(
        "bench",
        "counters",
        "--locks",
        "ttas",
        "--counters",
        "machine",
        "--placements",
        "os",
        "--increments",
        "1000",
        "--threads",
        str(HERE.n_cpus),
        "--reps",
        "1",
        "--out",
        "c1",
        "--quiet",
    )
    assert out.returncode == 0, out.stderr
    rows, _ = stored(tmp_path / "c1")
    assert json.loads(rows["counter_values"].iloc[0]) == [HERE.n_cpus * 1000]
    assert not (tmp_path / "c1" / "fig5-counters-placement.png").exists()  # one placement: no Fig 5


def test_bench_placement_end_to_end(cli_here, tmp_path) -> None:
    out = cli_here(
        "bench",
        "placement",
        "--duration",
        "0.03",
        "--warmup",
        "0",
        "--reps",
        "2",
        "--rows-per-site",
        "1000",
        "--out",
        "p",
        "--quiet",
    )
    assert out.returncode == 0, out.stderr
    rows, manifest = stored(tmp_path / "p")
    check_rows(rows, 4 * 2)
    assert list(dict.fromkeys(rows["policy"])) == ["spread", "grouped", "mixed", "os"]
    assert (rows["throughput_tps"] > 0).all() and "run_config_hash" in rows
    assert manifest["figure"] == "000-fig6"
    assert (tmp_path / "p" / "fig6-placement.png").read_bytes().startswith(PNG)
    assert "mean" in out.stdout and "mixed" in out.stdout


def test_default_out_dir_is_timestamped(cli_here, tmp_path) -> None:
    out = cli_here(
        "bench", "ipc", "--mechanisms", "pipe", "--round-trips", "10", "--warmup", "0", "--no-figure", "--quiet"
    )
    assert out.returncode == 0, out.stderr
    (directory,) = (tmp_path / "results").iterdir()
    assert directory.name.startswith("bench-ipc-") and directory.name.endswith("Z")
    assert ResultStore(directory).has_rows()


@pytest.mark.parametrize(
    "args,needle",
    [
        (["ipc", "--mechanisms", "pigeon"], "mechanisms: unknown mechanism 'pigeon'"),
        (["ipc", "--cpus", "0,4096"], "cpus: CPU 4096 does not exist or is offline"),
        (["ipc", "--cpus", "0"], "cpus: '0' is not a pair"),
        (["ipc", "--size", "0"], "size: 0 is not a message size"),
        (["ipc", "--size", "-1"], "size: -1"),
        (["ipc", "--duration", "0"], "duration: 0.0"),
        (["counters", "--locks", "spinny"], "locks: unknown lock kind 'spinny'"),
        (["counters", "--counters", "rack"], "counters: unknown granularity 'rack'"),
        (["counters", "--placements", "random"], "placements: unknown placement 'random'"),
        (["counters", "--threads", "100000", "--placements", "grouped"], "do not fit"),
        (["counters", "--reps", "0"], "reps: 0"),
        (["placement", "--policies", "nope"], "policies: unknown placement policy 'nope'"),
        (["placement", "--threads", "-1"], "threads: -1"),
        (["placement", "--rows", "0"], "rows_per_txn"),
        (["nope"], "invalid choice: 'nope'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli_here, tmp_path, args: list, needle: str) -> None:
    # In this process (cli_here), as all but test_bench_ipc_end_to_end (what a pipe is written).
    out = cli_here("bench", *args, "--out", "bad", "--quiet") if args != ["nope"] else cli_here("bench", *args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("islands: error: ") and needle in lines[0], out.stderr
    assert not ResultStore(tmp_path / "bad").has_rows()


def test_existing_results_are_not_mixed(cli_here, tmp_path) -> None:
    args = (
        "bench",
        "ipc",
        "--mechanisms",
        "pipe",
        "--round-trips",
        "10",
        "--warmup",
        "0",
        "--no-figure",
        "--quiet",
        "--out",
        "same",
    )
    assert cli_here(*args).returncode == 0
    out = cli_here(*args)
    assert out.returncode == 2 and "already holds results" in out.stderr


def test_the_runner_stores_and_the_plots_draw(tmp_path) -> None:
    from islands.bench.suite import bench_ipc
    from islands.plots.bench_figures import draw_bench

    outcome = bench_ipc(HERE, mechanisms=["pipe"], round_trips=20, warmup_s=0.0, out=tmp_path / "ipc")
    assert len(outcome.rows) >= 1 and ResultStore(tmp_path / "ipc").has_rows()
    assert list((tmp_path / "ipc").glob("*.png")) == []  # measuring draws nothing
    figures = draw_bench(outcome.name, outcome.rows, outcome.directory, HERE)
    assert figures == [tmp_path / "ipc" / "fig2-ipc.png"]
    assert figures[0].read_bytes().startswith(PNG)
