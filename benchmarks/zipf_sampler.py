"""What one key choice costs: nanoseconds per drawn key of the engine's Zipf generator at
s = 0, 0.5, 0.99, 1 and 1.5, next to the uniform draw the workload uses at s = 0.

Each measurement is a tight C++ loop of --draws draws (``_core.key_draw_ns``; the generator's
table is built before the clock starts). Repetitions are interleaved (uniform, then every s;
every other round in reverse order), and the median of --rounds is printed with its min-max,
and the difference to uniform's median. Key ranges: the cache-resident 10,000 rows of one
site and the 240,000 / 2,400,000 rows of 24 sites (000's cache- and memory-resident data),
where the workload's all-sites draw lands. A benchmark: it prints, it asserts nothing.

    python benchmarks/zipf_sampler.py [--draws N] [--rounds R] [--json PATH]
"""

from __future__ import annotations

import argparse
import statistics

from _runner import Runner, round_order
from islands import _core

SKEWS = (0.0, 0.5, 0.99, 1.0, 1.5)
RANGES = (10_000, 240_000, 2_400_000)

RUNNER = Runner(__file__, __doc__, rounds=7, rounds_help="interleaved measurements per cell")
RUNNER.parser.add_argument("--draws", type=int, default=5_000_000, help="draws per measurement")


def main(args: argparse.Namespace) -> None:
    print(f"ns per drawn key; median of {args.rounds} interleaved runs of {args.draws:,} draws (min-max)")
    draws = {"uniform": (0.0, True), **{f"s={s:g}": (s, False) for s in SKEWS}}  # label: (s, uniform)
    labels = list(draws)
    for n in RANGES:
        times: dict[str, list[float]] = {label: [] for label in labels}
        for rep in range(args.rounds):
            for label in round_order(labels, rep):
                s, uniform = draws[label]
                times[label].append(_core.key_draw_ns(n, s, args.draws, seed=rep + 1, uniform=uniform))
        base = statistics.median(times["uniform"])
        print(f"\n{n:,} keys ({', '.join(f'{s:g}: {_core.zipf_buckets(n, s)}' for s in SKEWS)} buckets)")
        for label in labels:
            t = times[label]
            med = statistics.median(t)
            RUNNER.record("ns per key", t, unit="ns", keys=n, draw=label)
            diff = "" if label == "uniform" else f"  {med - base:+6.2f} ns vs uniform"
            print(f"  {label:8s} {med:6.2f} ns  ({min(t):.2f}-{max(t):.2f}){diff}")


if __name__ == "__main__":
    RUNNER.run(main)
