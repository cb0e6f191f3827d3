"""Fuzzing the inputs (issue 33): random command lines for ``islands run``, random experiment
files (``islands sweep --dry-run``) with extreme values, random corruptions of a logged
run's logs (record-boundary cuts included) and of its checkpoint snapshots before recovery
(a recovery counts as correct only when every instance is back where the run ended), and
random scribbles over the shared-memory rings of a running deployment. Each case must end in a one-line error
(exit 2, or 1 for a run that failed) or a correct run (exit 0): never a traceback, never a
hang. A short version runs by default; ``make test-slow`` runs the long one. Each test prints
its counts (tried, clean error, correct run, anything else)."""

from __future__ import annotations

import argparse
import random
import signal
import time
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
    kind = rng.choice(["flip", "truncate", "boundary", "empty", "fifo", "directory", "link", "garbage"])
    if kind == "boundary" and size:  # a clean cut: no torn record, no checksum to fail
        from islands import _core

        records = _core.read_log(str(target))["records"]
        os.truncate(target, rng.choice(records)["offset"] if records else 0)
    elif kind == "flip" and size:
        data = bytearray(target.read_bytes())
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(size)] ^= 1 << rng.randrange(8)
        target.write_bytes(bytes(data))
    elif kind == "truncate" and size:
        os.truncate(target, rng.randrange(size))
    else:  # a flip, truncation or cut of an empty log replaces it by a link instead
        _wreck(rng, target, kind if kind in ("empty", "garbage", "fifo", "directory") else "link", log_dir)
    return f"{kind} {target.name}"


def _wreck(rng: random.Random, target: Path, kind: str, log_dir: Path) -> None:
    """The corruptions of a log or snapshot `target` that the two fuzz suites share: "empty"
    (cut to nothing), "garbage" (a few random bytes in its place), or deleted and, for "fifo",
    "directory" and "link", replaced by a FIFO, a directory or a link into `log_dir`."""
    import os

    if kind == "empty":
        os.truncate(target, 0)
    elif kind == "garbage":
        target.write_bytes(rng.randbytes(rng.randint(1, 4096)))
    else:
        target.unlink()
        if kind == "fifo":
            os.mkfifo(target, 0o600)
        elif kind == "directory":
            target.mkdir(mode=0o700)
        elif kind == "link":
            target.symlink_to(log_dir / "elsewhere")


def _recovered_wrong(result: islands.DeploymentResult, expected: list[int]) -> str:
    """'' when every instance recovered to the payload sum `expected` of it and the restarted
    run is consistent; else what is wrong."""
    got = [i["payload_sum_before"] for i in result.instances]
    if got != expected:
        return f"payload sums {got} after recovery, {expected} when the run ended"
    return "; ".join(result.check_failures)


def _fuzz_logs(n: int, seed: int, tmp_path: Path) -> Counter[str]:
    """Random corruptions of a logged run's logs, each recovered: a one-line refusal
    (ValueError or InstanceFailed) or a run, never another exception or a hang."""

    from islands.execution.launcher import run_deployment
    from islands.machine.placement import plan_deployment

    topology = islands.read_topology()
    if len(topology.cpus) < 2:
        pytest.skip("needs two online CPUs")
    deployment = plan_deployment(topology, "per-core", cpus=topology.cpus[:2])
    original = tmp_path / "original"
    ended = run_deployment(deployment, _logged_config(original), transport="unix")
    expected = [i["payload_sum_after"] for i in ended.instances]
    return _recover_corrupted(n, seed, tmp_path, original, deployment, expected, _corrupt, "logs")


def _recover_corrupted(
    n: int, seed: int, tmp_path: Path, original: Path, deployment, expected: list, corrupt, suite: str
) -> Counter[str]:
    """`n` recoveries, each from a copy of the logged run's directory `original` that
    `corrupt(rng, directory)` damaged: each must end in a one-line error or a correct run (every
    instance back at its `expected` payload sum, the restarted run consistent), never a hang,
    a traceback or a silently wrong recovery. The counts, printed as ``fuzz <suite>``."""
    import shutil

    from islands.execution.launcher import InstanceFailed, run_deployment

    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    others = []
    for k in range(n):
        log_dir = tmp_path / f"case-{k}"
        shutil.copytree(original, log_dir, symlinks=True)
        what = corrupt(rng, log_dir)
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(CASE_LIMIT_S)
        counts["tried"] += 1
        try:
            again = run_deployment(deployment, _logged_config(log_dir), transport="unix", recover=True)
            # Correct: every instance back where the run ended (its log held only acknowledged
            # commits once it closed), and the restarted run consistent.
            wrong = _recovered_wrong(again, expected)
            if wrong:
                others.append(f"{what}: recovered silently wrong: {wrong}")
            else:
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
    print(f"fuzz {suite}: {dict(counts)}")
    assert not others, others[:5]
    return counts


@pytest.mark.usefixtures("private_run_root")
def test_fuzz_log_corruptions_short(tmp_path: Path) -> None:
    _fuzz_logs(5, 33, tmp_path)


@pytest.mark.slow
@pytest.mark.usefixtures("private_run_root")
def test_fuzz_log_corruptions_long(tmp_path: Path) -> None:
    _fuzz_logs(80, 3333, tmp_path)


#: What a snapshot corruption may be (tests below): a flipped bit anywhere or in the header, a
#: cut at a random byte or at a row boundary, emptied, garbage, deleted, or replaced by a
#: FIFO, a directory or a link.
SNAPSHOT_CORRUPTIONS = (
    "flip",
    "header",
    "truncate",
    "boundary",
    "empty",
    "garbage",
    "delete",
    "fifo",
    "directory",
    "link",
)
SNAPSHOT_HEADER_BYTES = 40  # csrc/src/log/snapshot.cpp: magic, end LSN, epoch, columns, rows, CRC


def _corrupt_snapshot(rng: random.Random, log_dir: Path) -> str:
    """One random corruption of one instance's snapshot; returns what it did."""
    import os

    target = log_dir / f"instance-{rng.randrange(2)}.snapshot"
    data = bytearray(target.read_bytes())
    size = len(data)
    kind = rng.choice(SNAPSHOT_CORRUPTIONS)
    if kind in ("flip", "header"):
        span = SNAPSHOT_HEADER_BYTES if kind == "header" else size
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(span)] ^= 1 << rng.randrange(8)
        target.write_bytes(bytes(data))
    elif kind == "truncate":
        os.truncate(target, rng.randrange(size))
    elif kind == "boundary":  # rows are of one width here: the header says how many
        rows = int.from_bytes(data[24:32], "little")
        entry = (size - SNAPSHOT_HEADER_BYTES) // rows
        assert SNAPSHOT_HEADER_BYTES + rows * entry == size, "rows of one width"
        os.truncate(target, SNAPSHOT_HEADER_BYTES + entry * rng.randrange(rows))
    else:
        _wreck(rng, target, kind, log_dir)
    return f"{kind} {target.name}"


def _fuzz_snapshots(n: int, seed: int, tmp_path: Path) -> Counter[str]:
    """Random corruptions of the snapshots of a checkpointed deployment whose logs then went
    on (a restart, no checkpoint after it), each recovered: a one-line refusal or a recovery
    that is correct (every instance back at the payload sum the run ended with: no commit,
    acknowledged ones included, lost), never a traceback, a hang or silently wrong data."""
    import dataclasses

    from islands.execution.launcher import run_deployment
    from islands.machine.placement import plan_deployment

    topology = islands.read_topology()
    if len(topology.cpus) < 2:
        pytest.skip("needs two online CPUs")
    deployment = plan_deployment(topology, "per-core", cpus=topology.cpus[:2])
    original = tmp_path / "original"
    plain = _logged_config(original)
    run_deployment(deployment, dataclasses.replace(plain, log=dataclasses.replace(plain.log, checkpoint=True)))
    ended = run_deployment(deployment, plain, transport="unix", recover=True)
    expected = [i["payload_sum_after"] for i in ended.instances]
    return _recover_corrupted(n, seed, tmp_path, original, deployment, expected, _corrupt_snapshot, "snapshots")


@pytest.mark.usefixtures("private_run_root")
def test_fuzz_snapshot_corruptions_short(tmp_path: Path) -> None:
    _fuzz_snapshots(5, 33, tmp_path)


@pytest.mark.slow
@pytest.mark.usefixtures("private_run_root")
def test_fuzz_snapshot_corruptions_long(tmp_path: Path) -> None:
    _fuzz_snapshots(80, 3333, tmp_path)


#: Where a scribble lands in a ring file (transport/spsc_ring.hpp's SpscRingControl): the
#: producer's tail, the consumer's head, the set-up words (magic, version, capacity, salt), the
#: pid and closed words, the records in flight (between head and tail), or anywhere.
RING_TAIL, RING_HEAD, RING_PIDS, RING_DATA = 128, 256, 384, 512
RING_SCRIBBLES = ("tail", "head", "setup", "pids", "records", "anywhere")
#: Seconds of a ring-fuzzing run (the short suite's, the long suite's), and how long past it a
#: trial may take before it counts as a hang (a dropped message used to stall a run until the
#: launcher's 60 s grace).
RING_RUN_S = (0.4, 1.0)
RING_HANG_S = 30


def _scribble(rng: random.Random, ring: Path, kind: str) -> None:
    """Writes random bytes over one part of a live ring file (one kind of RING_SCRIBBLES)."""
    with open(ring, "r+b") as f:
        size = f.seek(0, 2)
        capacity = size - RING_DATA
        if kind in ("tail", "head"):
            f.seek(RING_TAIL if kind == "tail" else RING_HEAD)
            word = int.from_bytes(f.read(8), "little")
            mutate = rng.choice(["random", "bit", "small"])
            if mutate == "random":
                word = rng.getrandbits(64)
            elif mutate == "bit":
                word ^= 1 << rng.randrange(64)
            else:
                word = (word + rng.randint(-4096, 4096)) % (1 << 64)
            f.seek(RING_TAIL if kind == "tail" else RING_HEAD)
            f.write(word.to_bytes(8, "little"))
        elif kind == "setup":
            f.seek(rng.randrange(32))
            f.write(rng.randbytes(rng.randint(1, 8)))
        elif kind == "pids":
            f.seek(RING_PIDS + rng.randrange(12))
            f.write(rng.randbytes(rng.randint(1, 4)))
        elif kind == "records":  # repeatedly, so that some land on records not yet read
            for _ in range(200):
                f.seek(RING_HEAD)
                head = int.from_bytes(f.read(8), "little")
                f.seek(RING_TAIL)
                tail = int.from_bytes(f.read(8), "little")
                at = head + rng.randrange(max(tail - head, 0) + 32)
                n = rng.randint(1, 8)
                for i in range(n):  # byte-wise: a record may wrap round the data area
                    f.seek(RING_DATA + (at + i) % capacity)
                    f.write(rng.randbytes(1))
                time.sleep(0.0005)
        else:
            f.seek(rng.randrange(size))
            f.write(rng.randbytes(rng.randint(1, 16)))


def _fuzz_rings(n: int, seed: int, run_root: Path, run_s: float) -> Counter[str]:
    """Random scribbles over the shared-memory rings of a running deployment (micro, half
    distributed, 2PC between two instances): each trial ends in a one-line error naming an
    instance, or a run whose data is consistent; never a traceback, a hang (RING_HANG_S past
    the run), or a crash the launcher does not name."""
    import threading

    from islands.execution.launcher import InstanceFailed, run_deployment
    from islands.machine.placement import plan_deployment

    topology = islands.read_topology()
    if len(topology.cpus) < 2:
        pytest.skip("needs two online CPUs")
    deployment = plan_deployment(topology, "per-core", cpus=topology.cpus[:2])
    config = islands.RunConfig(
        micro=islands.MicroConfig(update=True, multisite=0.5, rows_per_site=1000),
        engine=islands.EngineConfig(cc="2pl", lock_policy="no_wait"),
        driver=islands.DriverConfig(warmup_s=0.0, duration_s=run_s),
    )
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    others = []
    for _ in range(n):
        kind = rng.choice(RING_SCRIBBLES)
        delay = rng.uniform(0.0, run_s * 0.8)
        trial = random.Random(rng.getrandbits(64))
        done = threading.Event()
        hit: list[str] = []

        def scribble(kind: str = kind, delay: float = delay, trial: random.Random = trial, done=done, hit=hit) -> None:
            rings: list[Path] = []
            while not done.is_set() and not rings:
                rings = sorted(run_root.glob("islands-run-*/ring-*-to-*"))
                time.sleep(0.005)
            if done.wait(delay) or not rings:
                return
            ring = trial.choice(rings)
            try:
                _scribble(trial, ring, kind)
                hit.append(ring.name)
            except OSError:  # the run ended and removed it
                pass

        thread = threading.Thread(target=scribble, daemon=True)
        what = f"{kind} after {delay:.2f} s"
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(int(run_s) + RING_HANG_S)
        counts["tried"] += 1
        thread.start()
        try:
            result = run_deployment(deployment, config, transport="shm")
            if result.check_failures:
                others.append(f"{what} {hit}: inconsistent run: {result.check_failures}")
            else:
                counts["run"] += 1
        except InstanceFailed as e:
            line = str(e)
            if "\n" in line or not line.startswith("instance "):
                others.append(f"{what} {hit}: an error that is not one line naming an instance: {line!r}")
            else:
                counts["error"] += 1
        except Hang:
            others.append(f"{what} {hit}: hang")
        except Exception as e:  # anything that would have been a traceback
            others.append(f"{what} {hit}: {type(e).__name__}: {e}")
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
            done.set()
            thread.join()
        leftovers = list(run_root.glob("islands-run-*"))
        if leftovers:
            others.append(f"{what} {hit}: left {leftovers}")
    counts["other"] = len(others)
    print(f"fuzz ring scribbles: {dict(counts)}")
    assert not others, others[:5]
    return counts


def test_fuzz_ring_scribbles_short(private_run_root: Path) -> None:
    _fuzz_rings(6, 33, private_run_root, RING_RUN_S[0])


@pytest.mark.slow
def test_fuzz_ring_scribbles_long(private_run_root: Path) -> None:
    _fuzz_rings(60, 3333, private_run_root, RING_RUN_S[1])
