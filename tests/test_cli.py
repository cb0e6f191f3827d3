"""``python -m islands run``: output, JSON, and one-line errors with exit status 2."""

from __future__ import annotations

import json

import pytest

import islands

ONLINE = islands.read_topology().cpus


def test_run_prints_throughput_aborts_and_latency(cli):
    out = cli(
        "run",
        "--workload",
        "micro",
        "--rows",
        "10",
        "--update",
        "--cores",
        str(ONLINE[0]),
        "--duration",
        "0.2",
        "--warmup",
        "0.05",
        "--index",
        "hash",
        "--cc",
        "none",
    )
    assert out.returncode == 0, out.stderr
    assert "txn/s" in out.stdout and "aborts" in out.stdout and "p99" in out.stdout


def test_run_json_carries_config_and_metadata(cli_here):
    out = cli_here("run", "--duration", "0.2", "--warmup", "0", "--index", "btree", "--json")
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)
    assert row["config"]["engine"]["index"] == "btree"
    assert row["config"]["driver"]["cpus"] == list(ONLINE)
    assert row["throughput_tps"] > 0
    assert len(row["config_hash"]) == 16 and row["metadata"]["git_revision"]


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--workload", "tpcz"], "argument --workload: invalid choice: 'tpcz'"),
        (["--cores", "999"], "--cores: CPU 999 does not exist or is offline"),
        (["--cores", "0-x"], "--cores:"),
        (["--rows", "0"], "--rows: must be between 1 and 10000, got 0"),
        (["--rows", "-3"], "--rows: -3 is not a valid value"),
        (["--rows-per-site", "100", "--rows", "101"], "--rows: 101 rows per transaction do not fit"),
        (["--zipf", "-0.5"], "--zipf: must be between 0 and 10, got -0.5"),
        (["--zipf", "nan"], "--zipf: must be between 0 and 10, got nan"),
        (["--index", "skiplist"], "argument --index: invalid choice: 'skiplist'"),
        (["--cc", "si"], "argument --cc: invalid choice: 'si'"),
        (["--duration", "0"], "--duration: must be between 0.001 and 86400, got 0"),
        (["--rows", "ten"], "argument --rows: invalid int value"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli_here, args, needle):
    out = cli_here("run", "--duration", "0.1", *args)
    assert out.returncode == 2
    assert needle in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.stderr
    assert out.stdout == ""


def test_missing_sysfs_files_are_one_line(cli_here, tmp_path):
    broken = tmp_path / "sys"
    (broken / "devices/system/cpu").mkdir(parents=True)
    out = cli_here("topology", "--sysfs", str(broken))
    assert out.returncode == 2
    assert "devices/system/cpu/online" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_reader_that_goes_away_is_not_an_error():
    """``islands … | head`` must not end in a BrokenPipeError traceback."""
    import os
    import subprocess
    import sys

    from conftest import FIXTURES

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "islands",
                "topology",
                "--json",
                "--sysfs",
                str(FIXTURES / "sysfs" / "xeon-e7l8867-8x10"),
            ],
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141 and done.stderr == b""
