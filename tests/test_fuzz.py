"""Fuzzing the inputs (issue 33): random command lines for ``islands run``, random experiment
files (``islands sweep --dry-run``) with extreme values, and random corruptions of a logged
run's logs before recovery. Each case must end in a one-line error
(exit 2, or 1 for a run that failed) or a correct run (exit 0): never a traceback, never a
hang. A short version runs by default; ``make test-slow`` runs the long one. Each test prints
its counts (tried, clean error, correct run, anything else)."""

from __future__ import annotations

import argparse
import random
import signal
from collections import Counter
from pathlib import Path

import pytest

import islands
from islands.__main__ import build_parser
from islands.__main__ import main as cli_main

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"
CPU = islands.read_topology().cpus[0]
#: Seconds one case may take before it counts as a hang.
CASE_LIMIT_S = 120

NUMBERS = [
    "0",
    "-1",
    "1",
    "0.5",
    "1e-300",
    "1e300",
    "-1e300",
    "nan",
    "inf",
    "-inf",
    "18446744073709551616",
    "4294967296",
    "4000000000",
    "99999999999999999999999",
    "abc",
    "",
    "\x00",
]
TOML_VALUES = [
    "0",
    "-1",
    "1e300",
    "-1e300",
    "nan",
    "inf",
    "18446744073709551616",
    "4000000000",
    "1000000000",
    '"x" ',
    '"' + "a" * 10000 + '"',
    "true",
    "[]",
    "[1e300, -1]",
    "{}",
    "[" * 50 + "]" * 50,
]


class Hang(Exception):
    pass


def _alarm(*_: object) -> None:
    raise Hang


def _tally(outcome: str, counts: Counter[str], others: list[str]) -> None:
    """Counts one try: a clean error, a correct run, or anything else (kept to show)."""
    counts["tried"] += 1
    if outcome in ("error", "run"):
        counts[outcome] += 1
    else:
        counts["other"] += 1
        others.append(outcome)


def _outcome(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """'error', 'run' or what else happened (a traceback's type, a hang, a bad error line)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_LIMIT_S)
    try:
        rc = cli_main(argv)
    except SystemExit as e:  # argparse: its own one-line usage error
        rc = e.code if isinstance(e.code, int) else 2
    except Hang:
        return f"hang: {argv}"
    except BaseException as e:  # anything that would have been a traceback
        return f"{type(e).__name__}: {e} ({argv})"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    err = capsys.readouterr().err
    if rc == 0:
        return "run"
    lines = [line for line in err.splitlines() if line.strip()]
    if rc in (1, 2) and len(lines) == 1 and lines[0].startswith("islands: ") and "Traceback" not in err:
        return "error"
    return f"exit {rc} with {err!r} ({argv})"


def _run_options() -> list[tuple[str, argparse.Action]]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    run = sub.choices["run"]
    return [
        (a.option_strings[0], a)
        for a in run._actions
        if a.option_strings and a.nargs is None and not isinstance(a, argparse._StoreTrueAction) and a.dest != "help"
    ]


def _fuzz_run(n: int, seed: int, capsys: pytest.CaptureFixture[str]) -> Counter[str]:
    rng = random.Random(seed)
    options = _run_options()
    counts: Counter[str] = Counter()
    others = []
    for _ in range(n):
        argv = ["run", "--cores", str(CPU), "--duration", "0.02", "--warmup", "0", "--json"]
        for flag, action in rng.sample(options, k=rng.randint(1, 3)):
            value = rng.choice([*map(str, action.choices or ()), *NUMBERS])
            argv += [f"{flag}={value}"]
        outcome = _outcome(argv, capsys)
        _tally(outcome, counts, others)
    print(f"fuzz run: {dict(counts)}")
    assert not others, others[:5]
    return counts


def _fuzz_specs(n: int, seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Counter[str]:
    rng = random.Random(seed)
    sources = sorted(EXPERIMENTS.glob("*.toml"))
    counts: Counter[str] = Counter()
    others = []
    for k in range(n):
        lines = rng.choice(sources).read_text().splitlines()
        assignments = [i for i, line in enumerate(lines) if "=" in line and not line.lstrip().startswith("#")]
        for i in rng.sample(assignments, k=min(len(assignments), rng.randint(1, 3))):
            key = lines[i].split("=", 1)[0]
            lines[i] = f"{key}= {rng.choice(TOML_VALUES)}"
        path = tmp_path / f"fuzz-{k}.toml"
        path.write_text("\n".join(lines) + "\n")
        outcome = _outcome(["sweep", str(path), "--dry-run"], capsys)
        _tally(outcome, counts, others)
    print(f"fuzz experiment files: {dict(counts)}")
    assert not others, others[:5]
    return counts


def test_fuzz_run_command_line_short(capsys: pytest.CaptureFixture[str]) -> None:
    _fuzz_run(20, 33, capsys)


def test_fuzz_experiment_files_short(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fuzz_specs(40, 33, tmp_path, capsys)


@pytest.mark.slow
def test_fuzz_run_command_line_long(capsys: pytest.CaptureFixture[str]) -> None:
    _fuzz_run(300, 3333, capsys)


@pytest.mark.slow
def test_fuzz_experiment_files_long(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fuzz_specs(600, 3333, tmp_path, capsys)


def _logged_config(log_dir: Path) -> islands.RunConfig:
    return islands.RunConfig(
        micro=islands.MicroConfig(update=True, multisite=0.3, rows_per_site=500),
        engine=islands.EngineConfig(cc="none"),
        driver=islands.DriverConfig(warmup_s=0.0, duration_s=0.1),
        log=islands.LogConfig(mode="group_commit", directory=str(log_dir), record_acks=True, checkpoint=False),
    )


def _corrupt(rng: random.Random, log_dir: Path) -> str:
    """One random corruption of one instance's log or snapshot; returns what it did."""
    import os

    target = log_dir / f"instance-{rng.randrange(2)}.log"
    size = target.stat().st_size
    kind = rng.choice(["flip", "truncate", "empty", "fifo", "directory", "link", "garbage"])
    if kind == "flip" and size:
        data = bytearray(target.read_bytes())
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(size)] ^= 1 << rng.randrange(8)
        target.write_bytes(bytes(data))
    elif kind == "truncate" and size:
        os.truncate(target, rng.randrange(size))
    elif kind == "empty":
        os.truncate(target, 0)
    elif kind == "garbage":
        target.write_bytes(rng.randbytes(rng.randint(1, 4096)))
    else:
        target.unlink()
        if kind == "fifo":
            os.mkfifo(target, 0o600)
        elif kind == "directory":
            target.mkdir(mode=0o700)
        else:
            target.symlink_to(log_dir / "elsewhere")
    return f"{kind} {target.name}"


def _fuzz_logs(n: int, seed: int, tmp_path: Path) -> Counter[str]:
    """Random corruptions of a logged run's logs, each recovered: a one-line refusal
    (ValueError or InstanceFailed) or a run, never another exception or a hang."""
    import shutil

    from islands.execution.launcher import InstanceFailed, run_deployment
    from islands.machine.placement import plan_deployment

    topology = islands.read_topology()
    if len(topology.cpus) < 2:
        pytest.skip("needs two online CPUs")
    deployment = plan_deployment(topology, "per-core", cpus=topology.cpus[:2])
    original = tmp_path / "original"
    run_deployment(deployment, _logged_config(original), transport="unix")
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    others = []
    for k in range(n):
        log_dir = tmp_path / f"case-{k}"
        shutil.copytree(original, log_dir)
        what = _corrupt(rng, log_dir)
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(CASE_LIMIT_S)
        counts["tried"] += 1
        try:
            run_deployment(deployment, _logged_config(log_dir), transport="unix", recover=True)
            counts["run"] += 1
        except (ValueError, InstanceFailed) as e:
            if "\n" in str(e):
                others.append(f"{what}: a many-line error {e!r}")
            counts["error"] += 1
        except Hang:
            others.append(f"{what}: hang")
        except Exception as e:  # anything that would have been a traceback
            others.append(f"{what}: {type(e).__name__}: {e}")
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
    counts["other"] = len(others)
    print(f"fuzz logs: {dict(counts)}")
    assert not others, others[:5]
    return counts


@pytest.mark.usefixtures("private_run_root")
def test_fuzz_log_corruptions_short(tmp_path: Path) -> None:
    _fuzz_logs(8, 33, tmp_path)


@pytest.mark.slow
@pytest.mark.usefixtures("private_run_root")
def test_fuzz_log_corruptions_long(tmp_path: Path) -> None:
    _fuzz_logs(80, 3333, tmp_path)
