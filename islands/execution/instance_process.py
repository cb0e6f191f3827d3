"""Entry point of one instance process: ``python -m islands.execution.instance_process`` (started by launch.py).

Talks to its launcher with JSON lines: reads its config on stdin, loads, says ``ready``,
waits for ``start`` (an absolute time on the monotonic clock shared by every process of the
machine), runs, and writes ``result`` with its statistics. Any error is one ``error`` line
and a non-zero exit status.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
from typing import Any

PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    # No orphans: the kernel kills this process when the launcher dies, whatever the cause.
    # The process's own symbols, libc's among them: find_library("c") ran `ldconfig -p`, a
    # subprocess that took 0.3-0.6 s of every instance's start-up on a loaded machine.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the launcher died before prctl took effect
        os._exit(1)


def _say(event: str, **fields: Any) -> None:
    sys.stdout.write(json.dumps({"event": event, **fields}) + "\n")
    sys.stdout.flush()


def main() -> int:
    """Runs one instance as the launcher asks; returns the exit status."""
    spec = json.loads(sys.stdin.readline())
    _die_with_parent(spec["launcher_pid"])
    from islands import _core
    from islands.config.settings import RunConfig
    from islands.machine.memory_policy import bind_memory

    warnings = []
    if spec.get("numa_nodes"):
        reason = bind_memory(spec["numa_nodes"])
        if reason:
            warnings.append(reason)
    core = _core.InstanceConfig()
    from islands.execution.in_process import profile_events

    config = RunConfig.from_dict(spec["config"])
    core.run = config.to_core(total_sites=sum(spec["instance_sites"]), events=profile_events(config.profile))
    if spec["instance_id"] != 0:  # whole-CPU (uncore) counters: the first instance reads them
        profile = core.run.profile
        profile.events = [e for e in profile.events if e.cpu < 0]
        core.run.profile = profile
    core.instance_id = spec["instance_id"]
    core.instance_sites = spec["instance_sites"]
    core.transport = spec["transport"]
    core.directory = spec["directory"]
    core.ring_bytes = spec["ring_bytes"]
    core.recover = spec.get("recover", False)
    core.site_sockets = spec.get("site_sockets", [])
    core.message_delay_us = spec.get("message_delay_us", 0.0)
    if "idle_spin_us" in spec:  # an oversubscribed deployment's (islands.execution.launcher)
        core.idle_spin_us = spec["idle_spin_us"]
    if spec.get("affinity"):  # packed onto this machine (islands.machine.oversubscription): its workers inherit it
        os.sched_setaffinity(0, spec["affinity"])
    instance = _core.Instance(core)
    instance.load()
    _say("ready", pid=os.getpid())
    command = json.loads(sys.stdin.readline() or '{"cmd": "stop"}')
    if command["cmd"] != "start":
        return 0
    stats = instance.run(command["start_at_ns"], command["warmup_s"], command["duration_s"])
    history = stats.pop("history", None)
    if history is not None:  # engine.record_history: too big for a JSON line; the launcher reads it
        with open(os.path.join(spec["directory"], f"history-{spec['instance_id']}.u64"), "wb") as out:
            out.write(history)
    _say("result", stats=stats, warnings=warnings)
    # With the log on, the launcher asks every instance to checkpoint once all are done (each
    # log is then durable, so no in-doubt transaction can need a trimmed coordinator log).
    command = json.loads(sys.stdin.readline() or '{"cmd": "exit"}')
    if command["cmd"] == "checkpoint":
        _say("checkpointed", done=instance.checkpoint())
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as error:  # reported to the launcher as one line, never a traceback
        _say("error", kind=type(error).__name__, message=str(error))
        sys.exit(2 if isinstance(error, ValueError) else 1)
