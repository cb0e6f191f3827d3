"""Where per-core instances lose against lone workers (issue 31, item 1): the machine or the
instance? Four ways of running read-10 (cache-resident, 10,000 rows per site, cc none for the
single-threaded ones), each a fresh `islands run --json` process (the same path for all),
repeated and interleaved:

- lone: one single-threaded instance on CPU 0, the other core idle;
- two lone: two such independent processes at once, on CPU 0 and CPU 1 (no deployment, no
  transport, nothing shared but the machine), their throughputs summed;
- per-core: the per-core deployment at 0% multisite (one instance per core, unix sockets);
- 1ISL: one shared-everything instance of two workers (2PL).

If per-core ≈ two lone, the instance costs nothing and what per-core loses against 2 × lone is
the machine (two cores busy at once); if per-core < two lone, the deployment costs it.

Prints; asserts nothing.

    python benchmarks/per_core_speed.py [--rounds N] [--duration S]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from _runner import Runner, round_order
from islands.analysis.statistics import summarize
from islands.analysis.verdicts import ratio_words


def _command(cores: str, deployment: str, cc: str, warmup: float, duration: float) -> list[str]:
    return [
        sys.executable, "-m", "islands", "run", "--json", "--fixed-warmup",
        "--cores", cores, "--deployment", deployment, "--cc", cc,
        "--rows", "10", "--rows-per-site", "10000", "--no-update", "--multisite", "0",
        "--warmup", str(warmup), "--duration", str(duration),
    ]  # fmt: skip


def _throughputs(commands: list[list[str]]) -> list[float]:
    """Starts `commands` at once and returns each one's throughput (txn/s)."""
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in commands]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        if p.returncode != 0:
            raise SystemExit(f"per_core_speed: {' '.join(p.args)} failed: {stderr.strip().splitlines()[-1:]}")
        out.append(float(json.loads(stdout)["throughput_tps"]))
    return out


RUNNER = Runner(__file__, __doc__, rounds=8, duration=2.0, warmup=0.5)


def main(args: argparse.Namespace) -> None:
    w, d = args.warmup, args.duration
    variants = {
        "lone": [_command("0", "1", "none", w, d)],
        "two lone": [_command("0", "1", "none", w, d), _command("1", "1", "none", w, d)],
        "per-core": [_command("0,1", "per-core", "none", w, d)],
        "1ISL": [_command("0,1", "1", "2pl", w, d)],
    }
    runs: dict[str, list[float]] = {name: [] for name in variants}
    for rep in range(args.rounds):
        for name in round_order(list(variants), rep):  # interleaved: one of each per round
            runs[name].append(sum(_throughputs(variants[name])))
        print(f"round {rep + 1}/{args.rounds}: " + ", ".join(f"{n} {v[-1] / 1e6:.2f} M" for n, v in runs.items()))
    RUNNER.record_runs("throughput", runs, unit="txn/s", labels=("variant",))
    print(f"\nread 10 rows, 0% multisite, {args.rounds} interleaved runs of {d:g} s each (mean, 95% CI):")
    for name, values in runs.items():
        s = summarize(values)
        print(f"  {name:9s} {s.mean / 1e6:6.2f} M txn/s  [{s.ci_low / 1e6:.2f}-{s.ci_high / 1e6:.2f}]")
    two_x_lone = [2 * v for v in runs["lone"]]
    print(f"  two lone at once / 2 x lone alone: {ratio_words(runs['two lone'], two_x_lone)}  (the machine)")
    print(f"  per-core / two lone at once:       {ratio_words(runs['per-core'], runs['two lone'])}  (the instance)")
    print(f"  per-core / 2 x lone alone:         {ratio_words(runs['per-core'], two_x_lone)}  (goal: >= 0.95)")
    print(f"  per-core / 1ISL (2PL):             {ratio_words(runs['per-core'], runs['1ISL'])}  (goal: >= 1.25)")


if __name__ == "__main__":
    RUNNER.run(main)
