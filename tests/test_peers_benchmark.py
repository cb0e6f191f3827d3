"""benchmarks/peers.py without the peers: its command line, the line it prints for a peer not
built, the parsing of the peers' output, the ratios it prints, and one short run end to end with
stand-in peer executables (shell scripts printing what Silo and CCBench print). The peers' speed
is the benchmark's to print, not a test's."""

from __future__ import annotations

import importlib.util
import math
import re
import stat
import sys
from pathlib import Path

import pytest

from islands.analysis.verdicts import ratio_words

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "peers.py"


@pytest.fixture(scope="module")
def peers():
    if str(SCRIPT.parent) not in sys.path:  # the scripts import their runner (benchmarks/_runner.py) by name
        sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("peers_benchmark", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass resolves annotations through it
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def executable(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_defaults_and_options(peers, monkeypatch, tmp_path):
    monkeypatch.setenv(peers.PEERS_ENV, str(tmp_path))
    args = peers.parser().parse_args([])
    assert args.cases == peers.CASES and args.rounds >= 5
    assert peers.default_peers_dir() == tmp_path
    args = peers.parser().parse_args(["--cases", "tpcc2,read10", "--peer-cpus", "0-1", "--duration", "0.5"])
    assert args.cases == ("tpcc2", "read10") and args.peer_cpus == (0, 1) and args.duration == 0.5


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--cases", "read10,tpcc9"], ["--cases", "tpcc9"]),
        (["--repetitions", "0"], ["--repetitions", "at least 1"]),
        (["--duration", "soon"], ["--duration", "soon"]),
        (["--peer-cpus", "x"], ["--peer-cpus", "'x'"]),
    ],
)
def test_bad_input_is_one_line_naming_it(peers, capsys, argv, words):
    with pytest.raises(SystemExit) as exit_:
        peers.parser().parse_args(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("benchmarks/peers.py: error: "), err
    for word in words:
        assert word in err, err


def test_a_peer_not_built_is_one_skip_line(peers, tmp_path):
    path, line = peers.locate("Silo", None, tmp_path, peers.SILO_BINARY)
    assert path is None
    assert line.startswith("Silo: skipped, not built") and "\n" not in line
    assert str(tmp_path / peers.SILO_BINARY) in line
    plain = tmp_path / "dbtest"
    plain.write_text("")
    path, line = peers.locate("Silo", str(plain), tmp_path, peers.SILO_BINARY)
    assert path is None and "not an executable" in line and "--silo" in line
    built = executable(tmp_path / "built", "exit 0\n")
    assert peers.locate("Silo", str(built), tmp_path, peers.SILO_BINARY) == (built, "")


def test_the_peers_output_is_read(peers):
    assert peers.silo_throughput("loading...\n512345.6 512345.6 0.02 0 12.5\n\n") == 512345.6
    assert math.isnan(peers.silo_throughput(""))
    assert math.isnan(peers.silo_throughput("Segmentation fault\n"))
    out = "abort_rate:\t0.0000\nlatency[ns]:\t2000\nthroughput[tps]:\t498000\n"
    assert peers.ccbench_throughput(out) == 498000
    assert math.isnan(peers.ccbench_throughput("abort_rate:\t0\n"))


def test_ratios_carry_their_interval_and_only_for_what_ran(peers):
    samples = {
        "islands unlogged": [100.0, 104.0, 98.0],
        "islands logged": [90.0, 95.0, 91.0],
        "Silo unlogged": [50.0, 52.0, 49.0],
    }
    lines = peers.ratio_lines("tpcc1", samples)
    assert len(lines) == 2  # no Silo logged: no logged ratio to it
    assert ratio_words(samples["islands unlogged"], samples["Silo unlogged"]) in lines[0]
    assert lines[0].lstrip().startswith("islands unlogged / Silo unlogged")
    assert ratio_words(samples["islands logged"], samples["islands unlogged"]) in lines[1]
    assert "95% CI" in lines[0] and "95% CI" in lines[1]
    disk = peers.ratio_lines("tpcc2", {"islands unlogged": [100.0, 99.0], peers.DISK: [60.0, 64.0]})
    assert len(disk) == 1 and disk[0].lstrip().startswith(f"{peers.DISK} / unlogged")
    read = peers.ratio_lines("read10", {"islands OCC": [2.0, 2.1], "CCBench": [1.0, 1.1]})
    assert len(read) == 1 and read[0].lstrip().startswith("islands OCC / CCBench")


def test_a_short_run_with_stand_in_peers(peers, tmp_path, capsys):
    silo = executable(tmp_path / "dbtest", 'echo "loading" >&2\necho "400000 400000 0.01 0 0"\n')
    ccbench = executable(tmp_path / "silo.exe", "echo 'throughput[tps]:\t300000'\n")
    argv = ["--cases", "read10", "--repetitions", "2", "--duration", "0.1", "--warmup", "0.05"]
    peers.RUNNER.run(peers.main, [*argv, "--silo", str(silo), "--ccbench", str(ccbench), "--log-root", str(tmp_path)])
    out = capsys.readouterr().out
    assert "skipped" not in out
    for line in ("islands OCC / Silo:", "islands no CC / Silo:", "islands OCC / CCBench:"):
        assert line in out, out
    assert "400.0 K txn/s" in out and "300.0 K txn/s" in out
    assert "load average" in out


def test_a_failing_peer_counts_as_nan_with_its_reason(peers, tmp_path, capsys):
    silo = executable(tmp_path / "dbtest", 'echo "cannot open log" >&2\nexit 3\n')
    argv = ["--cases", "read10", "--repetitions", "2", "--duration", "0.1", "--warmup", "0.05"]
    peers.RUNNER.run(peers.main, [*argv, "--silo", str(silo), "--peers-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert "CCBench: skipped, not built" in out
    assert "read10 Silo: NaN (exit status 3: cannot open log)" in out
    assert re.search(r"^  Silo +no successful run$", out, re.MULTILINE), out
    assert "islands OCC / Silo: n/a (no successful run of Silo)" in out
