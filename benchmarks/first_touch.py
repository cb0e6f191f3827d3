"""What a first touch of fresh memory costs, and whether the host decides it: milliseconds per GiB
to map anonymous memory and write one byte of each 4 KiB page, with huge pages (MADV_HUGEPAGE,
2 MiB) and with 4 KiB pages (MADV_NOHUGEPAGE), in two states of the memory the kernel hands out:

- **idle**: the memory has been free for ``--idle`` seconds (default 6). In a guest with free page
  reporting (a virtio balloon; ``islands system`` shows it) free blocks of the reporting order
  and up go back to the host after about 2 s, and the first touch then waits for the host's fault;
- **just freed**: a region of the same size was touched and unmapped just before, so the kernel
  hands out blocks the host still backs.

The states alternate round by round (every other round in reverse order); idle / just freed is
the paired ratio of the rounds, with its 95% interval: about 1 where nothing is reported, more
where the host's faults add to the guest's own (zeroing and mapping). A TPC-C run's loading and
any growth into new huge pages pay it; its growth in 4 KiB pages does not. Prints; asserts nothing.

    python benchmarks/first_touch.py [--gib G] [--idle S] [--rounds N] [--json PATH]
"""

from __future__ import annotations

import argparse
import mmap
import time

import numpy as np
import psutil

from _runner import Runner, round_order
from islands.analysis.statistics import block_ratio, summarize
from islands.analysis.verdicts import words_of
from islands.measure.system_state import free_page_reporting

PAGE = 4096
KINDS = {"huge pages": mmap.MADV_HUGEPAGE, "4 KiB pages": mmap.MADV_NOHUGEPAGE}
STATES = ("idle", "just freed")

RUNNER = Runner(__file__, __doc__, rounds=5, rounds_help="interleaved rounds (each state of each page size once)")
RUNNER.parser.add_argument("--gib", type=float, default=1.0, help="GiB mapped and touched per measurement")
RUNNER.parser.add_argument("--idle", type=float, default=6.0, help="seconds the memory sits free before 'idle'")


def touch(size: int, advice: int) -> float:
    """Maps ``size`` bytes, advises ``advice``, writes a byte of every 4 KiB page; returns the
    seconds the writes took (the mapping is unmapped before returning)."""
    region = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        region.madvise(advice)
        pages = np.frombuffer(region, dtype=np.uint8)
        start = time.perf_counter()
        pages[::PAGE] = 1
        elapsed = time.perf_counter() - start
        del pages
        return elapsed
    finally:
        region.close()


def measure(size: int, advice: int, state: str, idle: float) -> float:
    """Seconds per GiB of one first touch in ``state``."""
    if state == "idle":
        time.sleep(idle)
    else:
        touch(size, advice)  # the blocks it frees are the next mapping's, before any report
    return touch(size, advice) / (size / 2**30)


def main(args: argparse.Namespace) -> None:
    if args.gib <= 0 or args.idle < 0:
        raise SystemExit("first_touch.py: --gib must be above 0 and --idle 0 or more")
    size = int(args.gib * 2**30) // PAGE * PAGE
    available = psutil.virtual_memory().available
    if 2 * size > available:
        raise SystemExit(
            f"first_touch.py: --gib {args.gib:g}: twice that must fit in the {available / 2**30:.1f} GiB available"
        )
    print(f"free page reporting: {free_page_reporting() or 'not readable'}")
    runs = [(kind, state) for kind in KINDS for state in STATES]
    times: dict[tuple[str, str], list[float]] = {run: [] for run in runs}
    for rep in range(args.rounds):
        for kind, state in round_order(runs, rep):
            times[(kind, state)].append(measure(size, KINDS[kind], state, args.idle))
        print(f"round {rep + 1}/{args.rounds} done", flush=True)
    print(
        f"\nfirst touch of {args.gib:g} GiB (a byte of every 4 KiB page), ms per GiB over {args.rounds} "
        f"interleaved rounds (mean, 95% CI); idle = free for {args.idle:g} s before:"
    )
    for kind in KINDS:
        for state in STATES:
            values = [t * 1e3 for t in times[(kind, state)]]
            RUNNER.record("first_touch", values, unit="ms/GiB", pages=kind, state=state)
            s = summarize(values)
            print(f"  {kind:12s} {state:11s} {s.mean:8.0f} ms/GiB [{s.ci_low:.0f}-{s.ci_high:.0f}]")
        ratio = block_ratio(dict(enumerate(times[(kind, "idle")])), dict(enumerate(times[(kind, "just freed")])))
        RUNNER.record("idle_over_just_freed", [ratio.value, ratio.low, ratio.high], unit="ratio", pages=kind)
        print(f"  {kind:12s} idle / just freed: {words_of(ratio)}")


if __name__ == "__main__":
    RUNNER.run(main)
