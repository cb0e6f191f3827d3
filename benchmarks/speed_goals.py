"""The engine's speed goals in one command (issues 31 and 46), each part measured as its own
benchmark measures it (variants interleaved round by round, ratios with 95% intervals), then one
table of every goal with its verdict:

1. per-core vs two lone instances and vs 1ISL, read-10 on 2 cores (benchmarks/per_core_speed.py);
2. TPC-C NewOrder+Payment logged / unlogged at 1 and 2 workers (benchmarks/logging_cost.py;
   goal >= 0.9, log on tmpfs);
3. read-10 over 20 M rows, the engine with its default pipelining / the pipelined bare loop
   (>= 0.9), and pipelining on / off over 10,000 rows (>= 0.98) (benchmarks/memory_parallelism.py;
   about 8 s to load each large run);
4. islands / Silo and CCBench on read-10 and TPC-C logged and unlogged at 1 and 2 workers
   (>= 2), and logged / unlogged again beside them (benchmarks/peers.py; a peer not built is
   skipped with one line).

A goal is "met" when its ratio's 95% interval lies at or above it, "not met" when below, else
"not distinguishable from the goal" (islands.analysis.verdicts.goal_words): a ratio exactly at
its goal is called met wrongly at most 2.5% of the time. Each part's options are its benchmark's
defaults, or ``--rounds``/``--duration`` given here, or a part's own rounds from ``--part-rounds``
(``2=30,4=8``: the logging part 30 rounds, the peers 8, the others as ``--rounds`` or their
defaults); run a part alone to change the rest. The memory part judges its 20 M-row goal on
``--large-goal-rounds`` (30) extra rounds of its two variants alone, as memory_parallelism.py
does when asked (its own default, 0, leaves that goal to the few rounds of every variant: an
interval of ±15-20%, which cannot tell 0.9 from 1). Under the table, the ceiling the log's bytes
alone put on the logging goals on this machine (logging_cost.py's, from its append probe: what
writing those bytes into a growing tmpfs file costs here, which a logged / unlogged ratio stays
under whatever the engine does). Prints; asserts nothing. About 30 minutes on 2 cores with the defaults.

    python benchmarks/speed_goals.py [--parts 1,2,3,4] [--rounds N] [--part-rounds P=N,...] [--duration S]
                                     [--large-goal-rounds N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from _runner import Runner
from islands.analysis.statistics import Ratio, summarize
from islands.analysis.verdicts import words_of

PARTS = {
    "1": ("per-core at full speed", "per_core_speed.py"),
    "2": ("logging that costs little", "logging_cost.py"),
    "3": ("memory-level parallelism", "memory_parallelism.py"),
    "4": ("islands beside the peer engines", "peers.py"),
}


RUNNER = Runner(__file__, __doc__)
RUNNER.parser.add_argument("--parts", default="1,2,3,4", help="which parts, comma-separated (1, 2, 3, 4)")
RUNNER.parser.add_argument("--rounds", type=int, default=None, help="every part's rounds (default: each part's own)")
RUNNER.parser.add_argument(
    "--part-rounds", default="", metavar="P=N,...", help="rounds of single parts, e.g. 2=30,4=8 (over --rounds)"
)
RUNNER.parser.add_argument(
    "--large-goal-rounds", type=int, default=30, metavar="N", help="the memory part's 20 M-row goal rounds (default 30)"
)
RUNNER.parser.add_argument("--duration", type=float, default=None, help="every part's measured seconds per run")


def main(args: argparse.Namespace) -> None:
    parts = args.parts.split(",")
    for part in parts:
        if part not in PARTS:
            raise SystemExit(f"speed_goals: --parts: no part {part!r} (1, 2, 3 or 4)")
    if args.large_goal_rounds < 0:
        raise SystemExit(f"speed_goals: --large-goal-rounds {args.large_goal_rounds}: must be 0 (off) or more")
    rounds = part_rounds(args.part_rounds, args.rounds)
    duration = ["--duration", str(args.duration)] if args.duration else []
    goals: list[tuple[str, dict]] = []
    caps: list[dict] = []  # logging_cost.py's ceilings from the log's bytes on this machine
    with tempfile.TemporaryDirectory(prefix="islands-goals-") as tmp:
        for part in parts:
            title, script = PARTS[part]
            print(f"\n=== {part}. {title} ({script}) ===", flush=True)
            record = Path(tmp) / f"part-{part}.json"
            # Each part in its own process, as run alone: no state of one part's runs reaches the next.
            subprocess.run(
                [
                    sys.executable,
                    str(Path(__file__).with_name(script)),
                    *(["--rounds", str(rounds[part])] if part in rounds else []),
                    *duration,
                    *(["--large-goal-rounds", str(args.large_goal_rounds)] if part == "3" else []),
                    "--json",
                    str(record),
                ],
                check=True,
            )
            written = json.loads(record.read_text())
            goals += [(script, g) for g in written.get("goals", [])]
            caps += [m for m in written.get("measurements", []) if m["name"] == "file_system_cap"]
    if not goals:
        return
    print("\n=== goals ===")
    width = max(len(g["name"]) for _, g in goals)
    for script, g in goals:
        r = g["ratio"]
        nan = float("nan")
        measured = Ratio(
            *(nan if r[k] is None else r[k] for k in ("ratio", "ratio_low", "ratio_high", "p_value")),
            r["n_new"],
            r["n_old"],
        )
        print(f"  {g['name']:{width}s}  goal >= {g['target']:<4g} {g['verdict']:34s} {words_of(measured)}  [{script}]")
    if caps:
        print("\nthe ceiling the log's bytes put on logged / unlogged per CPU-second here (the engine's side free):")
        for m in caps:
            c = summarize(m["values"])
            where = f"{m['labels']['variant']}, {m['labels']['workers']} worker(s)"
            print(f"  {where}: {c.mean:.3f} ({c.ci_low:.3f}-{c.ci_high:.3f})")


def part_rounds(text: str, every: int | None) -> dict[str, int]:
    """Each part's rounds: ``every`` (``--rounds``) for all, then ``text``'s ``P=N`` pairs over it;
    a part in neither runs its benchmark's default. Exits with one line naming a bad pair."""
    rounds = dict.fromkeys(PARTS, every) if every else {}
    for pair in filter(None, text.split(",")):
        part, _, n = pair.partition("=")
        if part not in PARTS or not n.isdigit() or int(n) < 1:
            raise SystemExit(f"speed_goals: --part-rounds {pair!r}: expected P=N with P one of 1-4 and N >= 1")
        rounds[part] = int(n)
    return rounds


if __name__ == "__main__":
    RUNNER.run(main)
