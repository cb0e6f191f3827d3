"""The engine's workloads as Python reads them: each one is described once, in C++ (its
class and its registry entry, ``csrc/include/islands/exec/workload_interface.hpp``), and read
here through ``_core.workloads()``: its name and settings section, its transaction types (in the
numbering of ``commits_by_type``), its consistency conditions, its tables, and the setting that
sizes its load. Its load's size for given settings (rows a site and an instance, row and index
bytes) comes from ``_core.load_size``; nothing here knows a workload by its name.

The one table of words per workload (titles, descriptions) is :mod:`islands.config.workload_words`.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from islands import _core
    from islands.config.settings import RunConfig

__all__ = ["Workload", "changing", "core_sections", "load_bytes", "load_size", "workload", "workloads", "writes"]


@dataclass(frozen=True)
class Workload:
    """One workload of the engine's registry."""

    name: str  #: its run-time name (``RunConfig.workload``)
    section: str  #: the RunConfig section holding its settings
    settings_class: str  #: its settings class (``_core`` and :mod:`islands.config.sections` name it so)
    logs: bool  #: whether its writes reach the write-ahead log
    transactions: tuple[str, ...]  #: its transaction types, by type number (as ``commits_by_type``)
    figures_at_start: tuple[str, ...]  #: figures its conditions need from the run's start (``NAME_at_start``)
    conditions: tuple[str, ...]  #: the names of its consistency conditions
    size_setting: str  #: "section.field" of the setting that sizes its load
    tables: tuple[str, ...]  #: its tables' names
    changes: bool  #: whether its draw (mix, skew) can change while it runs (ATraPos's events)
    routes_tables: bool  #: whether it can route its tables apart (``engine.plp_units = per_table``)

    @property
    def size_field(self) -> str:
        """The field of :attr:`size_setting` without its section ("rows_per_site")."""
        return self.size_setting.split(".", 1)[-1]


@functools.cache
def workloads() -> dict[str, Workload]:
    """Every workload of the engine, by name, in the registry's order."""
    from islands import _core

    out = {}
    for entry in _core.workloads():
        out[str(entry["name"])] = Workload(
            name=str(entry["name"]),
            section=str(entry["section"]),
            settings_class=str(entry["settings_class"]),
            logs=bool(entry["logs"]),
            transactions=tuple(entry["transactions"]),
            figures_at_start=tuple(entry["figures_at_start"]),
            conditions=tuple(entry["conditions"]),
            size_setting=str(entry["size_setting"]),
            tables=tuple(entry["tables"]),
            changes=bool(entry["changes"]),
            routes_tables=bool(entry["routes_tables"]),
        )
    return out


def workload(name: str) -> Workload:
    """The workload called ``name``; ``ValueError`` listing the names when there is none."""
    known = workloads()
    if name not in known:
        raise ValueError(f"unknown workload {name!r} (choose {', '.join(known)})")
    return known[name]


def changing() -> tuple[str, ...]:
    """The workloads whose draw can change while they run."""
    return tuple(name for name, w in workloads().items() if w.changes)


def core_sections(config: RunConfig) -> _core.RunConfig:
    """The engine's config with ``config``'s workload and that workload's settings, unchecked (the
    load of a config too large to validate can still be sized); ``ConfigError`` naming a
    setting the engine's type cannot hold."""
    from islands import _core

    section = workload(config.workload).section
    core = _core.RunConfig()
    core.workload = config.workload
    target = getattr(core, section)
    for f in dataclasses.fields(getattr(config, section)):
        if hasattr(target, f.name):
            value = getattr(getattr(config, section), f.name)
            try:
                setattr(target, f.name, value)
            except TypeError:
                raise _core.ConfigError(f"{section}.{f.name}", f"{value!r} is not a valid value") from None
    setattr(core, section, target)
    return core


def load_size(config: RunConfig) -> list[dict[str, Any]]:
    """The tables of ``config``'s workload as its settings size them (``_core.load_size``): name,
    columns, row_bytes, rows_per_site (the mean where the load draws them, within
    min_rows_per_site and max_rows_per_site), rows_per_instance, index_bytes_per_row, chunked."""
    from islands import _core

    return list(_core.load_size(core_sections(config)))


def load_bytes(config: RunConfig, total_sites: int, instances: int | None = None) -> int:
    """The bytes the load of ``total_sites`` sites in ``instances`` instances (default: one a
    site, the most) is estimated to allocate: every table's rows times their row and index bytes."""
    from islands import _core

    return int(_core.load_bytes(core_sections(config), total_sites, total_sites if instances is None else instances))


def writes(config: RunConfig) -> bool:
    """Whether ``config``'s workload can write under its settings (one that cannot runs unlogged)."""
    from islands import _core

    return bool(_core.writes(core_sections(config)))
