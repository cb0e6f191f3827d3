"""Issue 31's three speed goals in one command, each measured as its own benchmark measures it
(variants interleaved round by round, ratios with 95% intervals):

1. per-core vs two lone instances and vs 1ISL, read-10 on 2 cores (benchmarks/per_core_speed.py);
2. TPC-C NewOrder+Payment logged / unlogged at 1 and 2 workers (benchmarks/logging_cost.py);
3. read-10 over 20 M rows with interleaving off and on, beside the bare loop
   (benchmarks/memory_parallelism.py; about 8 s to load each run).

Each part's options are its benchmark's defaults; run a part alone to change them. Prints;
asserts nothing. About 10 minutes on 2 cores.

    python benchmarks/speed_goals.py [--parts 1,2,3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from _runner import Runner

PARTS = {
    "1": ("per-core at full speed", "per_core_speed.py"),
    "2": ("logging that costs little", "logging_cost.py"),
    "3": ("memory-level parallelism", "memory_parallelism.py"),
}


RUNNER = Runner(__file__, __doc__)
RUNNER.parser.add_argument("--parts", default="1,2,3", help="which goals, comma-separated (1, 2, 3)")


def main(args: argparse.Namespace) -> None:
    for part in args.parts.split(","):
        if part not in PARTS:
            raise SystemExit(f"speed_goals: --parts: no part {part!r} (1, 2 or 3)")
    for part in args.parts.split(","):
        title, script = PARTS[part]
        print(f"\n=== {part}. {title} ({script}) ===", flush=True)
        # Each part in its own process, as run alone: no state of one part's runs reaches the next.
        subprocess.run([sys.executable, str(Path(__file__).with_name(script))], check=True)


if __name__ == "__main__":
    RUNNER.run(main)
