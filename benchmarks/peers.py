"""islands beside the peer engines (issue 46, item 3): Silo (github:stephentu/silo) and CCBench's
Silo (github:thawk105/ccbench), built outside the repository as ../shared/peers/HOWTO.md says,
run interleaved with islands on the same CPUs.

Cases (``--cases``, default all):

- ``read10``: read-10 over ``--rows`` (10,000) rows of 100 B, one worker: islands with OCC and
  with no CC; Silo's YCSB with 10 distinct keys a transaction (HOWTO's ``--reads-per-txn``);
  CCBench's Silo with ``--max_ope=10 --rratio=100`` (its keys are not guaranteed distinct);
- ``tpcc1``, ``tpcc2``: TPC-C NewOrder+Payment 50/50, spec layout, W warehouses and W workers
  (W = 1, 2), nothing remote and no NewOrder rollback (Silo has none), unlogged and logged with
  the log under ``--log-root`` (tmpfs by default): islands group commit, Silo ``--logfile``;
  with ``--disk-log-root DIR`` also islands logged there (on a disk: fdatasync, issue 46 item 4).
  CCBench has no TPC-C in the HOWTO: it runs read-10 only.

islands runs in this process (``islands.run``), its workers pinned to the topology's first CPUs;
the peers run under ``taskset -c`` on the CPUs this process may use (``--peer-cpus``), so a peer
with one worker has the same CPUs as islands' worker, flusher and driver (pinned to one CPU,
Silo's epoch ticker shares its worker's CPU and it runs 1.5-2.2x slower: that would flatter
islands). Silo's runtime is whole seconds: ``--duration`` rounded up, at least 1.

Peers are found under ``--peers-dir`` (default ``$ISLANDS_PEERS_DIR``, else the folder ``peers``
beside the repository) at the paths the HOWTO's builds leave, or where ``--silo`` and
``--ccbench`` say; a peer not built is skipped with one line. A peer run that fails counts as
NaN (with its reason printed), never as 0.

Variants run one of each per round, every other round in reverse order. Printed: each
variant's mean with its 95% interval, islands / peer for each case with the ratio's 95%
interval (Welch on the logs, islands.analysis.statistics), islands logged / unlogged, and the
load average before and after. A benchmark, not a test: it prints, it asserts nothing.

    python benchmarks/peers.py [--rounds N] [--duration S] [--cases read10,tpcc1,tpcc2]
                               [--peers-dir DIR] [--silo PATH] [--ccbench PATH] [--log-root DIR]
                               [--tpcc-prefetch on|off]
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from _runner import Runner, round_order
from islands.analysis.statistics import ratio, summarize
from islands.analysis.verdicts import ratio_words

#: The environment variable naming the folder the peers were built in.
PEERS_ENV = "ISLANDS_PEERS_DIR"
#: Where the HOWTO's builds leave each peer's binary, under the peers folder.
SILO_BINARY = "silo/out-perf.masstree/benchmarks/dbtest"
CCBENCH_BINARY = "ccbench/silo/build/silo.exe"
#: The cases, in the order they run and print.
CASES = ("read10", "tpcc1", "tpcc2")
#: The ratio the issue asks islands to reach over the best peer.
GOAL = 2.0
#: What logged / unlogged should reach.
LOG_GOAL = 0.9
#: The variant logged on disk (``--disk-log-root``).
DISK = "islands logged, disk"
#: Seconds a peer run may take beyond its runtime (Silo loads TPC-C's warehouses first).
PEER_SLACK_S = 120.0


def default_peers_dir() -> Path:
    """``$ISLANDS_PEERS_DIR``, else the folder ``peers`` beside the repository."""
    env = os.environ.get(PEERS_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent.parent / "peers"


def locate(name: str, explicit: str | None, peers_dir: Path, relative: str) -> tuple[Path | None, str]:
    """``(path, "")`` of a peer's executable, or ``(None, one line saying it is skipped and why)``."""
    path = Path(explicit) if explicit else peers_dir / relative
    if path.is_file() and os.access(path, os.X_OK):
        return path, ""
    where = "--" + name.lower() if explicit else f"--peers-dir / ${PEERS_ENV}"
    state = "is not an executable file" if path.exists() else "does not exist"
    return None, f"{name}: skipped, not built ({path} {state}; set {where}; recipe: ../shared/peers/HOWTO.md)"


def parse_cases(text: str) -> tuple[str, ...]:
    """The cases of ``--cases`` (comma-separated), or ``argparse.ArgumentTypeError`` naming an unknown one."""
    cases = tuple(c.strip() for c in text.split(",") if c.strip())
    for case in cases:
        if case not in CASES:
            raise argparse.ArgumentTypeError(f"no case {case!r} (known: {', '.join(CASES)})")
    if not cases:
        raise argparse.ArgumentTypeError(f"no case given (known: {', '.join(CASES)})")
    return cases


def parse_cpus(text: str) -> tuple[int, ...]:
    """A CPU list such as ``0,1`` or ``0-3``, or ``argparse.ArgumentTypeError``."""
    from islands.machine.topology import TopologyError, parse_cpulist

    try:
        cpus = tuple(parse_cpulist(text))
    except (TopologyError, ValueError) as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a CPU list ({exc})") from None
    if not cpus:
        raise argparse.ArgumentTypeError(f"{text!r} names no CPU")
    return cpus


def _positive(kind: type) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value > 0 or not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} must be above 0")
        return value

    parse.__name__ = kind.__name__
    return parse


RUNNER = Runner(
    __file__,
    __doc__,
    rounds=5,
    duration=2.0,
    warmup=0.5,
    rounds_help="rounds; one run of each variant a round",
    duration_help="seconds measured (Silo: rounded up)",
    warmup_help="islands' warm-up seconds",
)


def _add_options(p: argparse.ArgumentParser) -> None:
    """This benchmark's own options (the shared ones are benchmarks/_runner.py's)."""
    p.add_argument("--cases", type=parse_cases, default=CASES, help=f"comma-separated, of {','.join(CASES)}")
    p.add_argument("--rows", type=_positive(int), default=10_000, help="read10: rows (Silo: scale factor rows/1000)")
    p.add_argument("--columns", type=_positive(int), default=25, help="read10: islands' int32 columns (25 = 100 B)")
    p.add_argument("--tpcc-cc", default=None, help="tpcc: islands' concurrency control (default: the engine's)")
    p.add_argument(
        "--tpcc-prefetch",
        choices=("on", "off"),
        default="on",
        help="tpcc: islands' engine.prefetch (off: without the in-transaction prefetch of issue 46 item 5)",
    )
    p.add_argument("--log-root", default="/dev/shm", help="where logged runs write their logs (default tmpfs)")
    p.add_argument(
        "--disk-log-root", default=None, help="tpcc: also islands logged with the log here (a disk: fdatasync)"
    )
    p.add_argument("--peers-dir", type=Path, default=None, help=f"where the peers were built (default ${PEERS_ENV})")
    p.add_argument("--silo", default=None, help=f"Silo's dbtest (default PEERS_DIR/{SILO_BINARY})")
    p.add_argument("--ccbench", default=None, help=f"CCBench's silo.exe (default PEERS_DIR/{CCBENCH_BINARY})")
    p.add_argument(
        "--peer-cpus", type=parse_cpus, default=None, help="CPUs the peers may use (default: this process's)"
    )


_add_options(RUNNER.parser)


def parser() -> argparse.ArgumentParser:
    """The command line: the shared options and this benchmark's."""
    return RUNNER.parser


@dataclass(frozen=True)
class Variant:
    """One thing measured each round: its case, its name and how to measure it (throughput in
    transactions per second, or NaN with a reason)."""

    case: str
    name: str
    measure: Callable[[], tuple[float, str]]


def silo_throughput(stdout: str) -> float:
    """Silo's committed transactions per second: the first number of its last stdout line
    (``agg_throughput agg_persist_throughput latency_ms persist_latency_ms abort_rate``)."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        return math.nan
    try:
        return float(lines[-1].split()[0])
    except ValueError:
        return math.nan


def ccbench_throughput(stdout: str) -> float:
    """CCBench's ``throughput[tps]:`` line, or NaN when absent."""
    match = re.search(r"^throughput\[tps\]:\s*([0-9.eE+]+)", stdout, re.MULTILINE)
    return float(match.group(1)) if match else math.nan


def clocks_per_us() -> int:
    """This machine's CPU clock in MHz (CCBench counts time in cycles), from /proc/cpuinfo."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return 2100  # CCBench's own default
    match = re.search(r"^cpu MHz\s*:\s*([0-9.]+)", text, re.MULTILINE)
    return round(float(match.group(1))) if match else 2100


def _peer(
    command: list[str], cpus: Sequence[int], timeout_s: float, parse: Callable[[str], float]
) -> tuple[float, str]:
    taskset = ["taskset", "-c", ",".join(map(str, cpus))]
    try:
        done = subprocess.run(taskset + command, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        return math.nan, f"no result within {timeout_s:g} s"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        return math.nan, f"exit status {done.returncode}: {last}"
    value = parse(done.stdout)
    return value, "" if math.isfinite(value) else "no throughput in its output"


def silo_command(silo: Path, case: str, args: argparse.Namespace, log_dir: str | None) -> list[str]:
    """Silo's dbtest command line for a case (the HOWTO's options)."""
    runtime = str(max(1, math.ceil(args.duration)))
    if case == "read10":
        scale = f"{args.rows / 1000:g}"
        return [str(silo), "--bench", "ycsb", "--num-threads", "1", "--scale-factor", scale, "--runtime", runtime,
                "-o", "--workload-mix 100,0,0,0 --reads-per-txn 10"]  # fmt: skip
    workers = _workers(case)
    mix = "--workload-mix 50,50,0,0,0 --disable-cross-partition-transactions"
    command = [str(silo), "--bench", "tpcc", "--num-threads", str(workers), "--scale-factor", str(workers),
               "--runtime", runtime, "-o", mix]  # fmt: skip
    if log_dir is not None:
        command += ["--logfile", str(Path(log_dir) / "log0")]
    return command


def ccbench_command(ccbench: Path, args: argparse.Namespace) -> list[str]:
    """CCBench's Silo command line for read-10 (the HOWTO's options)."""
    return [str(ccbench), "--thread_num=1", f"--tuple_num={args.rows}", "--max_ope=10", "--rratio=100",
            "--ycsb=false", f"--extime={max(1, math.ceil(args.duration))}",
            f"--clocks_per_us={clocks_per_us()}"]  # fmt: skip


def _workers(case: str) -> int:
    return 1 if case == "read10" else int(case.removeprefix("tpcc"))


def _in_log_dir(root: str, fn: Callable[[str], tuple[float, str]]) -> tuple[float, str]:
    directory = tempfile.mkdtemp(prefix="islands-peers-", dir=root)
    try:
        return fn(directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _islands(case: str, args: argparse.Namespace, cc: str | None, log_root: str | None) -> tuple[float, str]:
    import islands

    cpus = tuple(islands.read_topology().cpus[: _workers(case)])
    driver = islands.DriverConfig(cpus=cpus, warmup_s=args.warmup, duration_s=args.duration)

    def one(log_dir: str | None) -> tuple[float, str]:
        if case == "read10":
            config = islands.RunConfig(
                micro=islands.MicroConfig(rows_per_site=args.rows, rows_per_txn=10, update=False, columns=args.columns),
                engine=islands.EngineConfig(cc=cc),
                driver=driver,
            )
        else:
            log = islands.LogConfig(mode="group_commit", directory=log_dir) if log_dir else islands.LogConfig()
            config = islands.RunConfig(
                workload="tpcc",
                tpcc=islands.TpccConfig(
                    warehouses_per_site=1,
                    mix="new_order:50,payment:50",
                    payment_remote=0,
                    new_order_remote_item=0,
                    new_order_rollback=0,
                    layout="spec",
                ),
                engine=islands.EngineConfig(prefetch=args.tpcc_prefetch == "on", **({"cc": cc} if cc else {})),
                driver=driver,
                log=log,
            )
        return islands.run(config).throughput_tps, ""

    return _in_log_dir(log_root, one) if log_root else one(None)


def _silo_run(silo: Path, case: str, args: argparse.Namespace, logged: bool) -> tuple[float, str]:
    def one(log_dir: str | None) -> tuple[float, str]:
        command = silo_command(silo, case, args, log_dir)
        return _peer(command, args.peer_cpus, args.duration + PEER_SLACK_S, silo_throughput)

    return _in_log_dir(args.log_root, one) if logged else one(None)


def _ccbench_run(ccbench: Path, args: argparse.Namespace) -> tuple[float, str]:
    command = ccbench_command(ccbench, args)
    return _peer(command, args.peer_cpus, args.duration + PEER_SLACK_S, ccbench_throughput)


def variants(args: argparse.Namespace, silo: Path | None, ccbench: Path | None) -> list[Variant]:
    """Every variant of the chosen cases, peers only where built."""
    out: list[Variant] = []
    for case in args.cases:
        if case == "read10":
            out.append(Variant(case, "islands OCC", partial(_islands, case, args, "occ", None)))
            out.append(Variant(case, "islands no CC", partial(_islands, case, args, "none", None)))
            if silo is not None:
                out.append(Variant(case, "Silo", partial(_silo_run, silo, case, args, False)))
            if ccbench is not None:
                out.append(Variant(case, "CCBench", partial(_ccbench_run, ccbench, args)))
            continue
        out.append(Variant(case, "islands unlogged", partial(_islands, case, args, args.tpcc_cc, None)))
        out.append(Variant(case, "islands logged", partial(_islands, case, args, args.tpcc_cc, args.log_root)))
        if args.disk_log_root:
            disk = partial(_islands, case, args, args.tpcc_cc, args.disk_log_root)
            out.append(Variant(case, DISK, disk))
        if silo is not None:
            out.append(Variant(case, "Silo unlogged", partial(_silo_run, silo, case, args, False)))
            out.append(Variant(case, "Silo logged", partial(_silo_run, silo, case, args, True)))
    return out


#: islands / peer comparisons per case: (islands variant, peer variant).
PEER_RATIOS = {
    "read10": (
        ("islands OCC", "Silo"),
        ("islands no CC", "Silo"),
        ("islands OCC", "CCBench"),
        ("islands no CC", "CCBench"),
    ),
    "tpcc": (("islands unlogged", "Silo unlogged"), ("islands logged", "Silo logged")),
}


def ratio_lines(case: str, samples: Mapping[str, Sequence[float]]) -> list[str]:
    """The case's ratios, each with its 95% interval: islands / each peer measured (goal
    2x), and islands logged / unlogged (goal 0.9) where both ran."""
    lines = []
    for mine, peer in PEER_RATIOS["read10" if case == "read10" else "tpcc"]:
        if mine in samples and peer in samples:
            failed = [name for name in (mine, peer) if summarize(samples[name]).n == 0]
            if failed:
                lines.append(f"  {mine} / {peer}: n/a (no successful run of {' or '.join(failed)})")
                continue
            words = RUNNER.goal(f"{case}: {mine} / {peer}", ratio(samples[mine], samples[peer]), GOAL)
            lines.append(f"  {mine} / {peer}: {words}")
    if "islands logged" in samples and "islands unlogged" in samples:
        r = ratio(samples["islands logged"], samples["islands unlogged"])
        lines.append(f"  islands logged / unlogged: {RUNNER.goal(f'{case}: islands logged / unlogged', r, LOG_GOAL)}")
    if DISK in samples and "islands unlogged" in samples:  # reported beside the goal, not held to it
        lines.append(f"  {DISK} / unlogged: {ratio_words(samples[DISK], samples['islands unlogged'])}")
    return lines


def _rate(values: Sequence[float]) -> str:
    s = summarize(values)
    if s.n == 0:
        return "no successful run"
    if s.n == 1:
        return f"{s.mean / 1e3:9,.1f} K txn/s (n = 1)"
    return f"{s.mean / 1e3:9,.1f} K txn/s [{s.ci_low / 1e3:,.1f}-{s.ci_high / 1e3:,.1f}] (n = {s.n})"


TITLES = {
    "read10": "read-10, {rows:,} rows, 1 worker",
    "tpcc1": "TPC-C NewOrder+Payment, 1 warehouse, 1 worker",
    "tpcc2": "TPC-C NewOrder+Payment, 2 warehouses, 2 workers",
}


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def main(args: argparse.Namespace) -> None:
    """Run every variant once a round and print the figures (``RUNNER.run(main, argv)`` parses
    the command line first)."""
    for option, root in (("--log-root", args.log_root), ("--disk-log-root", args.disk_log_root)):
        if root is not None and not os.path.isdir(root):
            RUNNER.parser.error(f"{option}: {root} is not a directory")
    if args.peer_cpus is None:
        args.peer_cpus = tuple(sorted(os.sched_getaffinity(0)))
    peers_dir = args.peers_dir if args.peers_dir is not None else default_peers_dir()
    silo, silo_skip = locate("Silo", args.silo, peers_dir, SILO_BINARY)
    needs_ccbench = "read10" in args.cases
    ccbench, ccbench_skip = locate("CCBench", args.ccbench, peers_dir, CCBENCH_BINARY) if needs_ccbench else (None, "")
    for line in (silo_skip, ccbench_skip):
        if line:
            print(line)
    if silo is not None or ccbench is not None:
        cpus = ",".join(map(str, args.peer_cpus))
        print(f"peers run under taskset -c {cpus}; Silo {silo or '-'}, CCBench {ccbench or '-'}")
    chosen = variants(args, silo, ccbench)
    samples: dict[tuple[str, str], list[float]] = {(v.case, v.name): [] for v in chosen}
    print(f"before: {_load()}", flush=True)
    for rep in range(args.rounds):
        for v in round_order(chosen, rep):  # one of each per round, every other round reversed
            value, reason = v.measure()
            samples[(v.case, v.name)].append(value)
            if reason:
                print(f"  round {rep + 1}: {v.case} {v.name}: NaN ({reason})", flush=True)
        done = ", ".join(f"{c}/{n} {s[-1] / 1e3:,.0f} K" for (c, n), s in samples.items())
        print(f"round {rep + 1}/{args.rounds}: {done}", flush=True)
    print(f"after: {_load()}")
    RUNNER.record_runs("throughput", samples, unit="txn/s", labels=("case", "variant"))
    print(
        f"\n{args.rounds} interleaved rounds of {args.duration:g} s (Silo {max(1, math.ceil(args.duration))} s), "
        f"logs on {args.log_root}; mean and 95% CI:"
    )
    for case in args.cases:
        title = TITLES[case].format(rows=args.rows)
        if case != "read10":
            import islands

            title += f", islands cc {args.tpcc_cc or islands.EngineConfig().cc}, prefetch {args.tpcc_prefetch}"
        print(f"\n{title}:")
        mine = {name: values for (c, name), values in samples.items() if c == case}
        for name, values in mine.items():
            print(f"  {name:20s} {_rate(values)}")
        for line in ratio_lines(case, mine):
            print(line)


if __name__ == "__main__":
    RUNNER.run(main)
