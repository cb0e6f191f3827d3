"""What group commit adds to a TPC-C transaction in instructions, counted rather than timed
(issue 46 item 4): NewOrder + Payment (50/50, one warehouse, nothing remote) on one worker,
unlogged against group commit with the log on tmpfs as it runs by default (the worker writes
the groups; the rows' after-images) and with command logging (``log.content`` command: the
transactions' words), each run once under valgrind's callgrind with collection on only inside the
worker's loop (``WorkerLoop::run``: not the load, not the flusher thread, not the kernel).

Printed: instructions per committed transaction in each mode, what logging adds, and where that
goes: the difference per part of the source, by the file each instruction's line is in (so code
inlined into the transaction is charged to the header it came from: the capture to
redo_entry.hpp or command_entry.hpp, the checksum to crc32c.cpp, the append to log_writer.cpp and log_record.cpp,
the wait for durability to commit_pipeline.hpp and worker_loop.hpp). On a shared machine whose
timings move ±10% between runs of one configuration, a count is what shows a change of a few
percent to the log's path: the same build gives the same counts to within the differences the
two runs' lengths make (index growth). It says nothing of cache misses or of the kernel's write,
which logging_cost.py times. Needs valgrind (``make tools``); without it, one line and nothing
run. Prints; asserts nothing.

    python benchmarks/logging_instructions.py [--duration S] [--log-root DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

from _runner import Runner

#: Parts of the source, by the file a line is in (the first pattern that matches).
PARTS = (
    ("capture", ("log/redo_entry.hpp", "log/command_entry.hpp", "common/pod_vector.hpp", "txn/txn_context.hpp")),
    ("checksum", ("log/crc32c.",)),
    ("append and encode", ("log/log_writer.", "log/log_record.", "memmove", "memcpy", "pthread_mutex")),
    ("acknowledgement", ("exec/commit_pipeline.hpp", "exec/worker_loop.hpp", "exec/worker_window.hpp", "stl_deque")),
)

# The run under callgrind: islands.run of one in-process instance; prints its commits.
_RUN = """
import json, sys, islands
mode, directory, duration = sys.argv[1], sys.argv[2], float(sys.argv[3])
content = "command" if mode == "command" else "redo"
log = (islands.LogConfig(mode="group_commit", directory=directory, checkpoint=False, content=content)
       if mode != "off" else islands.LogConfig())
config = islands.RunConfig(
    workload="tpcc",
    tpcc=islands.TpccConfig(warehouses_per_site=1, mix="new_order:50,payment:50", payment_remote=0,
                            new_order_remote_item=0),
    driver=islands.DriverConfig(warmup_s=0.0, duration_s=duration, cpus=(0,)),
    log=log,
)
print("COMMITS", json.dumps(islands.run(config).to_dict()["instances"][0]["commits"]))
"""


def _callgrind(mode: str, args: argparse.Namespace, tmp: str) -> tuple[int, dict[str, int]]:
    """Commits and instructions by source file of one run under callgrind."""
    out = os.path.join(tmp, f"callgrind.{mode}")
    directory = tempfile.mkdtemp(prefix="islands-logging-instructions-", dir=args.log_root) if mode != "off" else ""
    try:
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--toggle-collect=islands::WorkerLoop*::run()",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-c",
                _RUN,
                mode,
                directory,
                str(args.duration),
            ],
            capture_output=True,
            text=True,
        )
    finally:
        if directory:
            shutil.rmtree(directory, ignore_errors=True)
    found = re.search(r"^COMMITS (\d+)$", done.stdout, re.M)
    if done.returncode != 0 or not found:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"logging_instructions.py: the {mode} run under callgrind failed: {tail}")
    annotated = subprocess.run(
        ["callgrind_annotate", "--auto=no", "--inclusive=no", "--threshold=100", out],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    by_file: dict[str, int] = defaultdict(int)
    total = 0
    for line in annotated.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)", line)
        if not m:
            continue
        count = int(m.group(1).replace(",", ""))
        if m.group(2).startswith("PROGRAM TOTALS"):
            total = count
        else:
            by_file[m.group(2).split(":", 1)[0]] += count
    by_file["(all)"] = total
    return int(found.group(1)), by_file


def _parts(by_file: dict[str, int], commits: int) -> dict[str, float]:
    """Instructions per commit in each part of PARTS, the rest as "other", the sum as "total"."""
    parts = dict.fromkeys([name for name, _ in PARTS] + ["other"], 0.0)
    for path, count in by_file.items():
        if path == "(all)":
            continue
        name = next((n for n, patterns in PARTS if any(p in path for p in patterns)), "other")
        parts[name] += count / commits
    parts["total"] = by_file["(all)"] / commits
    return parts


RUNNER = Runner(__file__, __doc__, duration=4.0, duration_help="seconds per run under callgrind (~50x slower)")
RUNNER.parser.add_argument("--log-root", default="/dev/shm", help="where the tmpfs log goes (default /dev/shm)")


def main(args: argparse.Namespace) -> None:
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        print("logging_instructions.py: valgrind is not installed (make tools): nothing measured")
        return
    if not os.path.isdir(args.log_root):
        raise SystemExit(f"logging_instructions.py: {args.log_root} is not a directory")
    with tempfile.TemporaryDirectory(prefix="islands-callgrind-") as tmp:
        runs = {mode: _callgrind(mode, args, tmp) for mode in ("off", "group_commit", "command")}
    per = {mode: _parts(by_file, commits) for mode, (commits, by_file) in runs.items()}
    unlogged, redo, command = per["off"], per["group_commit"], per["command"]
    counts = ", ".join(f"{runs[m][0]:,}" for m in runs)
    print(
        f"TPC-C NewOrder+Payment, 1 warehouse, 1 worker, {args.duration:g} s under callgrind each "
        f"({counts} commits), instructions per commit in the worker's loop:"
    )
    print(f"  {'part':20s} {'unlogged':>9s} {'redo log':>9s} {'added':>9s} {'commands':>9s} {'added':>9s}")
    added = {"redo": 0.0, "command": 0.0}
    for name in [n for n, _ in PARTS] + ["other", "total"]:
        print(
            f"  {name:20s} {unlogged[name]:9.0f} {redo[name]:9.0f} {redo[name] - unlogged[name]:+9.0f} "
            f"{command[name]:9.0f} {command[name] - unlogged[name]:+9.0f}"
        )
        for mode, values in (("unlogged", unlogged), ("logged", redo), ("command", command)):
            RUNNER.record("instructions_per_commit", [values[name]], unit="instructions", part=name, mode=mode)
        if name not in ("other", "total"):
            added["redo"] += redo[name] - unlogged[name]
            added["command"] += command[name] - unlogged[name]
    print(
        f"  the log's parts add {added['redo']:.0f} instructions logging after-images, {added['command']:.0f} "
        f"logging commands: {added['redo'] / unlogged['total']:.1%} and {added['command'] / unlogged['total']:.1%} "
        "of an unlogged transaction's (the kernel's write not counted); 'other' moves with the runs' lengths "
        "(their tables and indexes grow by different amounts) and is left out of that"
    )


if __name__ == "__main__":
    RUNNER.run(main)
