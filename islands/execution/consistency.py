"""Consistency conditions checked after every run, per workload.

The engine reports figures summed over each instance's own sites (``checks_after``); the
run's result adds them up over the deployment and :func:`verify` asks the workload (in the
engine, where each workload states its conditions) which of them fail. An empty list means
the data is consistent. Figures named by :func:`figures_at_start` also come as they stood
when the run started (``NAME_at_start``): a restart recovers rows that earlier runs committed.
"""

from __future__ import annotations

from collections.abc import Mapping

from islands.config.settings import RunConfig
from islands.config.workload_registry import workloads
from islands.config.workload_words import describe


def figures_at_start(workload: str) -> tuple[str, ...]:
    """Figures whose value at the start of a run (after loading and recovery) the workload's
    conditions need, as ``NAME_at_start`` (the engine's registry says which)."""
    known = workloads()
    return known[workload].figures_at_start if workload in known else ()


def verify(workload: str, checks: Mapping[str, int]) -> list[str]:
    """The consistency conditions of ``workload`` that ``checks`` violate (empty: consistent).
    Each workload states its own conditions in the engine (its ``verify``)."""
    from islands import _core

    return list(_core.verify(workload, dict(checks)))


def check_line(failures: list[str]) -> str:
    """One summary line: 'consistent', or the failed conditions."""
    return "checks      " + ("consistent" if not failures else "FAILED: " + "; ".join(failures))


def describe_workload(config: RunConfig) -> str:
    """The workload and its main knobs in a few words (:mod:`islands.config.workload_words`)."""
    return describe(config.workload, getattr(config, config.workload, None))
