"""A run's profile from the engine's statistics: counters summed over workers, the papers'
metrics derived from them, and the component time breakdown per transaction. A pure function
of its inputs: the simulated counters (``profile.simulate``) come from a cachegrind run that
the run itself starts (:func:`islands.measure.cachegrind.simulated_profile`), not from here.

Missing counters are NaN, never 0, and the reason for each goes to the run's metadata
(``counters_missing``). The breakdown is the mean over the transactions the engine timed
(every ``breakdown_every``-th one), in microseconds per transaction, per component, with its
``coverage``: the timed share of the workers' own windows (each worker's window runs from
when it saw the window open to when it saw it close).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from islands import _core
from islands.config.settings import RunConfig
from islands.measure.pmu import EVENT_SETS, derive_metrics, resolve_here, sum_readings

__all__ = ["COMPONENTS", "summarize"]

#: The engine's time-breakdown components, in its order.
COMPONENTS: tuple[str, ...] = tuple(_core.components())


def summarize(config: RunConfig, instances: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The profile of a run whose per-instance engine statistics are ``instances`` (one dict
    from ``_core.run`` or ``Instance.run`` each). Whole-CPU counters are taken from the first
    instance only (every instance sees the same uncore). Returns ``{}`` when the config
    measures nothing; else ``counters``, ``counters_running`` (lowest fraction of the window
    each counter ran: below 1 means multiplexed, corrected by scaling), ``metrics``,
    ``breakdown`` and ``missing`` (metric -> reason)."""
    profile = config.profile
    instances = list(instances)
    if not profile.counters and not profile.breakdown_every:
        return {}
    out: dict[str, Any] = {}
    if profile.counters:
        resolution = resolve_here(profile.counters)
        scales = {c.metric: c.scale for c in resolution.counters}
        readings = [r for stats in instances for w in stats["workers"] for r in w["counters"]]
        if instances:
            readings += list(instances[0].get("cpu_counters", []))
        values, running, errors = sum_readings(readings, scales)
        missing = dict(resolution.missing)
        missing.update({k: v for k, v in errors.items() if k not in missing})
        wanted = [m for s in profile.counters for m in EVENT_SETS[s]]
        out["counters"] = {m: values.get(m, math.nan) for m in dict.fromkeys(wanted)}
        out["counters_running"] = {m: running.get(m, math.nan) for m in dict.fromkeys(wanted)}
        out["metrics"] = derive_metrics(out["counters"])
        out["missing"] = {m: missing[m] for m in out["counters"] if m in missing}
        commits = sum(stats["commits"] for stats in instances)
        out["counters_per_txn"] = {m: (v / commits if commits else math.nan) for m, v in out["counters"].items()}
    if profile.breakdown_every:
        total = dict.fromkeys(COMPONENTS, 0.0)
        timed = 0
        window_ns = 0.0
        for stats in instances:
            ns = stats["ns_per_tick"]
            for w in stats["workers"]:
                timed += w["timed_txns"]
                window_ns += w["window_ticks"] * ns
                for c in COMPONENTS:
                    total[c] += w["component_ticks"][c] * ns
        per_txn = {f"{c}_us": (total[c] / timed / 1e3 if timed else math.nan) for c in COMPONENTS}
        per_txn["total_us"] = sum(total.values()) / timed / 1e3 if timed else math.nan
        per_txn["timed_txns"] = timed
        # The timed share of the workers' windows: about 1/breakdown_every (1 when every
        # transaction is timed, less only by the loop's step between transactions).
        per_txn["coverage"] = sum(total.values()) / window_ns if window_ns else math.nan
        out["breakdown"] = per_txn
    return out
