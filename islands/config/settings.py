"""Run configuration: one dataclass per concern, generated from the C++ settings.

Each setting is defined once, in C++ (an X-macro per config struct: name, type, default,
range, help); ``islands._core.settings()`` returns that schema, and ``make settings`` writes
the section dataclasses from it (:mod:`islands.config.sections`, checked in so
that mypy sees them and this module imports without the compiled extension;
``tests/test_settings.py`` fails when they, the CLI, the README or ``_core.pyi`` differ from
the engine's). This module adds what a whole run's config does. The engine
(``RunConfig::validate``) is the one place that decides what is valid; a bad value raises
``islands._core.ConfigError`` (a ``ValueError``) whose ``field`` names it as "section.name".

Nothing here measures: counters are resolved where a run starts (:mod:`islands.execution.in_process`) and
handed to :meth:`RunConfig.to_core` as ``events``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from islands.config.sections import (
    ALL_SECTIONS,
    WORKLOAD_SETTINGS,
    DriverConfig,
    EngineConfig,
    LogConfig,
    MicroConfig,
    ProfileConfig,
    RunSections,
    TatpConfig,
    TpcbConfig,
    TpccConfig,
)

if TYPE_CHECKING:
    from islands import _core

__all__ = [
    "ALL_SECTIONS",
    "ADDED_LATER",
    "DEFAULT_WORKLOAD",
    "SECTIONS",
    "WORKLOADS",
    "WORKLOAD_SETTINGS",
    "DriverConfig",
    "EngineConfig",
    "LogConfig",
    "MicroConfig",
    "ProfileConfig",
    "RunConfig",
    "TatpConfig",
    "TpcbConfig",
    "TpccConfig",
    "default_cc",
    "default_lock_policy",
    "default_log_root",
    "registry",
    "resolve_field",
    "transaction_names",
]

#: The workload a config, an experiment file or a command line runs unless it names one: the
#: first of the engine's registry (RunSections' default).
DEFAULT_WORKLOAD = RunSections.workload
#: Settings added after configs were stored with the old default: at that default they are left
#: out of :meth:`RunConfig.to_dict`, so that those configs keep their hash.
ADDED_LATER: tuple[tuple[type, str], ...] = ((MicroConfig, "read_share"),)
_SECTION_OF: dict[type, str] = {klass: name for name, klass in ALL_SECTIONS.items()}


def _default_of(klass: type, name: str) -> Any:
    return next(f.default for f in dataclasses.fields(klass) if f.name == name)


@dataclass(frozen=True)
class RunConfig(RunSections):
    """Everything one run of one instance needs: the workload's name and one field per section
    (:class:`~islands.config.sections.RunSections`, generated from the engine's lists)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain nested dict (JSON-ready). A default profile (nothing measured), a default log
        and a micro read_share of 0 are left out, so that configs without them keep their hash."""
        d = dataclasses.asdict(self)
        d["driver"]["cpus"] = list(self.driver.cpus)
        if self.profile.is_default():
            del d["profile"]
        else:
            d["profile"]["counters"] = list(self.profile.counters)
        if self.log.is_default():
            del d["log"]
        for klass, name in ADDED_LATER:
            section = _SECTION_OF[klass]
            if getattr(getattr(self, section), name) == _default_of(klass, name):
                del d[section][name]  # at its default: the hash the config had before the setting came
        return d

    @classmethod
    def of(cls, settings: Any, **sections: Any) -> RunConfig:
        """A config that runs the workload whose settings ``settings`` are (a workload section's
        dataclass, e.g. ``MicroConfig(...)``), with the other ``sections`` as given."""
        section = _SECTION_OF.get(type(settings))
        if section is None or section not in WORKLOAD_SETTINGS:
            raise ValueError(f"{type(settings).__name__} is no workload's settings")
        return cls(workload=section, **{section: settings}, **sections)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunConfig:
        """Inverse of :meth:`to_dict`; unknown keys are a ``ValueError`` naming them."""
        parts: dict[str, Any] = {}
        for name, klass in ALL_SECTIONS.items():
            values = dict(d.get(name, {}))
            known = {f.name for f in dataclasses.fields(klass)}
            unknown = sorted(set(values) - known)
            if unknown:
                raise ValueError(f"{name}.{unknown[0]}: unknown setting (known: {', '.join(sorted(known))})")
            for key in ("cpus", "counters"):
                if key in values:
                    values[key] = tuple(values[key])
            parts[name] = klass(**values)
        unknown = sorted(set(d) - {"workload", *ALL_SECTIONS})
        if unknown:
            raise ValueError(f"{unknown[0]}: unknown setting")
        return cls(workload=d.get("workload", DEFAULT_WORKLOAD), **parts)

    def config_hash(self) -> str:
        """Stable 16-hex-digit hash of the canonical JSON form."""
        canonical = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    def to_core(self, total_sites: int | None = None, *, events: Sequence[Any] = ()) -> _core.RunConfig:
        """The C++ struct, checked by the engine's own validation (for an instance of a
        deployment of ``total_sites`` sites when given, else for a run on its own CPUs).

        ``events`` are the counters the run opens (``_core.PerfEventSpec``, resolved on this
        machine by :func:`islands.execution.in_process.profile_events`); none when only checking. Raises
        ``_core.ConfigError`` naming the field ("micro.rows_per_txn")."""
        from islands import _core

        core = _core.RunConfig()
        core.workload = self.workload
        for part in ALL_SECTIONS:
            target = getattr(core, part)
            for f in dataclasses.fields(getattr(self, part)):
                if not hasattr(target, f.name):  # Python-side profile choices (counters, ...)
                    continue
                value = getattr(getattr(self, part), f.name)
                if isinstance(value, bool) and "bool" not in str(f.type):
                    raise _core.ConfigError(f"{part}.{f.name}", f"{value!r} is not {_expected(f.type)}")
                try:
                    setattr(target, f.name, list(value) if isinstance(value, tuple) else value)
                except TypeError:
                    raise _core.ConfigError(
                        f"{part}.{f.name}", f"{value!r} is not a valid value (expected {_expected(f.type)})"
                    ) from None
            setattr(core, part, target)
        if events:
            profile = core.profile
            profile.events = list(events)
            core.profile = profile
        if total_sites is None:
            core.validate()
        else:
            core.validate_sites(total_sites)
        return core


#: The sections of a RunConfig that mirror a C++ config struct field for field (the workloads
#: the engine's, the driver's).
SECTIONS: dict[str, type] = {**WORKLOAD_SETTINGS, "engine": EngineConfig, "driver": DriverConfig}

#: Workloads by name, each with the section holding its settings (the engine's registry,
#: ``_core.workloads()``, is the source; tests/test_registry.py holds this to it).
WORKLOADS: dict[str, str] = {name: name for name in WORKLOAD_SETTINGS}


def registry() -> list[dict[str, Any]]:
    """The engine's workload registry as ``_core.workloads()`` gives it (one dict a workload; typed:
    :func:`islands.config.workload_registry.workloads`)."""
    from islands import _core

    return list(_core.workloads())


def transaction_names(workload: str) -> tuple[str, ...]:
    """The transaction types of a workload, in the engine's numbering (from its registry)."""
    for entry in registry():
        if entry["name"] == workload:
            return tuple(entry["transactions"])
    return (workload,)


def resolve_field(name: str, workload: str = DEFAULT_WORKLOAD) -> tuple[str, str]:
    """``(section, field)`` of the setting a ``ConfigError.field`` names: "section.field" as
    the engine spells it, or a bare field name (looked up in the workload's own section, then
    the shared ones); ``("", name)`` for what is no section's field ("workload")."""
    section, dot, rest = name.partition(".")
    if dot and section in ALL_SECTIONS:
        return section, rest
    own = WORKLOADS.get(workload, workload)
    for candidate in (own, "engine", "driver", "profile", "log", *SECTIONS):
        klass = ALL_SECTIONS.get(candidate)
        if klass is not None and name in {f.name for f in dataclasses.fields(klass)}:
            return candidate, name
    return "", name


def _expected(type_name: Any) -> str:
    text = str(type_name)
    if "int" in text and "tuple" in text:
        return "a list of CPU numbers >= 0"
    if "int" in text:
        return "a whole number >= 0"
    if "float" in text:
        return "a number"
    if "bool" in text:
        return "true or false"
    return text


def default_log_root() -> str:
    """Where a sweep's runs make their log directories unless [log] names one: tmpfs
    (/dev/shm) where there is one, else the temp directory."""
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()


def default_cc(instance_sizes: Sequence[int], execution: str = "shared_everything") -> str:
    """The concurrency control a deployment's instances get unless the user names one: none
    where every instance has one worker (nothing to isolate it from), else ``2pl``; PLP always
    ``2pl`` (its partitions' locks). The one place this rule is written (run, sweeps, benches,
    the model)."""
    return "none" if max(instance_sizes, default=1) == 1 and execution != "plp" else "2pl"


def default_lock_policy(n_instances: int) -> str:
    """The deadlock policy unless named: ``wait_die`` inside one instance, ``no_wait`` across
    several (a distributed wait would need a global deadlock detector)."""
    return "wait_die" if n_instances == 1 else "no_wait"
