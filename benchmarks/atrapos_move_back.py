"""Does ATraPos move units back when a skew goes? 002 Fig 13's alternation, shortened: TATP
GetSubData with its hot set (50% of the requests to 20% of the data, drawn by every worker)
then UpdSubData uniform (each worker draws its own site), twice, ``--phase`` seconds each.

Three runs per round, interleaved: static PLP, ATraPos with the cost model's draw term
(``draw_weight`` 2, islands.atrapos.search.DEFAULT_DRAW_WEIGHT) and ATraPos without it
(``draw_weight`` 0: the model before the term). Two workers, one virtual socket each; the
controller's interval from 0.25 s doubling to 2 s. Printed per run: the median throughput of
each phase and of each phase's second half (after a move back, if any), whether the layout
was the naive one (every site's units on its own worker: each worker draws where it owns)
at the end of each UpdSubData phase, and the re-partitionings (when, owners by unit).
Every other round runs them in reverse order. Compare runs of one round only (the machine is
shared). Prints figures; asserts nothing.

    python benchmarks/atrapos_move_back.py [--rounds N] [--phase S] [--handoff W]
"""

from __future__ import annotations

import argparse

import numpy as np

import islands
from _runner import Runner, round_order
from islands.atrapos.adaptive_loop import AdaptiveLoop
from islands.atrapos.controller import IntervalController
from islands.atrapos.live import Event, run_live
from islands.config.settings import DriverConfig, EngineConfig, RunConfig, TatpConfig

STEP_S = 0.1


def one(cpus: tuple[int, ...], phase: float, handoff: int, draw_weight: float | None) -> str:
    """One run (``draw_weight`` None: static); its line."""
    config = RunConfig(
        workload="tatp",
        tatp=TatpConfig(subscribers_per_site=50000, mix="get_subscriber_data", hot_fraction=0.2, hot_share=0.5),
        engine=EngineConfig(execution="plp", plp_monitor=True, plp_handoff=handoff),
        driver=DriverConfig(cpus=cpus, warmup_s=0.3, duration_s=4 * phase, timeline_interval_s=STEP_S),
    )
    uniform = (("mix", "update_subscriber_data"), ("hot_fraction", 0.0))
    skewed = (("mix", "get_subscriber_data"), ("hot_fraction", 0.2))
    events = [Event(phase, "mix", settings=uniform), Event(2 * phase, "mix", settings=skewed)]
    events.append(Event(3 * phase, "mix", settings=uniform))
    loop = AdaptiveLoop(IntervalController(min_interval_s=0.25, max_interval_s=2.0), draw_weight=draw_weight or 0.0)
    result, log = run_live(config, adaptive=draw_weight is not None, events=events, loop=loop)
    tps = np.asarray(result.timeline_tps, dtype=float) / 1e6
    per = int(round(phase / STEP_S))
    whole = [float(np.median(tps[i * per + 3 : (i + 1) * per])) for i in range(4)]
    late = [float(np.median(tps[i * per + per // 2 : (i + 1) * per])) for i in range(4)]
    n_units = 20
    naive = [0] * (n_units // 2) + [1] * (n_units // 2)
    owners = list(naive)
    at_end = []
    moves = sorted((r["at_s"], r["owners"]) for r in log.repartitions)
    for i in range(4):
        for at, o in moves:
            if i * phase <= at < (i + 1) * phase:
                owners = o
        if i % 2:
            at_end.append(owners == naive)
    name = "static" if draw_weight is None else f"ATraPos draw_weight {draw_weight:g}"
    text = ", ".join(f"{w:.2f} ({x:.2f})" for w, x in zip(whole, late, strict=True))
    moved = " ".join(f"{at:.2f}:{''.join(map(str, o))}" for at, o in moves)
    return f"  {name:26} M txn/s per phase (2nd half): {text}; naive after UpdSubData: {at_end}; moves {moved}"


RUNNER = Runner(__file__, __doc__, rounds=2, rounds_help="rounds of the three runs")
RUNNER.parser.add_argument("--phase", type=float, default=2.0, help="seconds per phase")
RUNNER.parser.add_argument("--handoff", type=int, default=0, help="engine.plp_handoff")


def main(args: argparse.Namespace) -> None:
    cpus = tuple(islands.read_topology().cpus[:2])
    if len(cpus) < 2:
        raise SystemExit("needs two online CPUs")
    if not (args.phase > 0 and args.handoff >= 0):
        RUNNER.parser.error("--phase must be above 0 and --handoff at least 0")
    print(f"phases: GetSubData skewed, UpdSubData, GetSubData skewed, UpdSubData; {args.phase:g} s each")
    for r in range(args.rounds):
        print(f"round {r + 1} (engine.plp_handoff = {args.handoff}):")
        for weight in round_order((None, 2.0, 0.0), r):
            print(one(cpus, args.phase, args.handoff, weight), flush=True)


if __name__ == "__main__":
    RUNNER.run(main)
