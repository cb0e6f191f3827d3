"""Sweeps: an experiment file's grid of deployments × workload settings × transports ×
repetitions, run point by point into a :class:`~islands.results.ResultStore`.

An experiment file (``experiments/*.toml``) says what to run; nothing in it is specific to
one machine, because deployments may be written relative to the topology (``1``,
``per-socket``, ``per-core``, ``all``; see :func:`islands.placement.expand_relative`)::

    name = "000-fig11-multisite"      # results go to results/<name>/ by default
    figure = "000-fig11"              # the FIGURES.md entry it feeds ("none" if none)
    description = "..."               # optional prose
    workload = "micro"                # optional (default micro)

    [run]                             # all optional
    warmup_s = 1.0                    # seconds before each measured window (default 1)
    duration_s = 5.0                  # measured seconds per run (default 5)
    repetitions = 3                   # runs of every point (default 1)
    seed = 1                          # base random seed, the same for every repetition
    cpus = "0-7"                      # cpus deployments cut up (default: one per core)

    [grid]                            # every key is a list of values (or one value);
    deployment = ["1", "per-socket", "per-core"]   # the sweep runs their product:
    placement = ["islands"]           # deployment, placement, transport outermost, then
    transport = ["unix"]              # the others as written, the last varying fastest
    update = [false, true]            # any MicroConfig or EngineConfig field
    multisite = { from = 0.0, to = 1.0, step = 0.2 }   # a range: 0, 0.2, ..., 1.0

    [micro]                           # fixed MicroConfig fields (not also in [grid])
    rows_per_txn = 10
    rows_per_site = 10000

    [engine]                          # fixed EngineConfig fields; cc = "auto" (default)
    cc = "auto"                       # is "none" for one-cpu instances, else "2pl"

    [profile]                         # optional: what each run measures about itself
    counters = ["software", "basic"]  # event sets (islands.pmu.EVENT_SETS)
    breakdown_every = 1               # component time breakdown of every Nth transaction
    simulate = 2000                   # cachegrind counts of a single-threaded copy (N txns)
    modules = true                    # code-module profile (perf record; one instance only)

    [log]                             # optional: a write-ahead log for every run (LogConfig)
    mode = "group_commit"             # off, async or group_commit
    directory = "/dev/shm"            # each run logs into a fresh directory made here, removed
                                      # after it (default: /dev/shm, else the temp directory)

Each point becomes a :class:`Point` (a deployment, the run config, a transport and a
repetition); runs go repetition by repetition (every point once, then every point again), so
an interrupted sweep already covers the grid. Each run writes one row at once, carrying the
full config and its hash, the deployment, the topology, the host metadata and a ``point_id``
(a stable hash of the point and its repetition). Run again, the sweep skips the point_ids its
directory already holds; the manifest records the spec and its hash and a directory made
from a different spec (or on a different machine) is refused unless ``fresh`` (start over)
or ``force`` (add to it). Every check on the spec, the deployments and the configs happens
before the results directory is touched.
"""

from __future__ import annotations

import dataclasses
import datetime
import difflib
import hashlib
import itertools
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from islands.config import (
    DriverConfig,
    EngineConfig,
    LogConfig,
    MicroConfig,
    ProfileConfig,
    RunConfig,
    TatpConfig,
    TpcbConfig,
    TpccConfig,
    resolve_field,
)
from islands.placement import Deployment, expand_relative, plan_deployment, roles_of
from islands.results import ResultStore
from islands.topology import Topology, format_cpulist, parse_cpulist

__all__ = [
    "ExperimentSpec",
    "Point",
    "Runner",
    "Sweep",
    "SweepOutcome",
    "default_runner",
    "known_transports",
    "load_spec",
    "run_point",
]

#: Keys of [grid] that are not config fields: what a point is deployed on.
DEPLOY_KEYS = ("deployment", "placement", "transport")
#: Placements a grid may ask for (explicit deployments are written as cpu lists).
GRID_PLACEMENTS = ("islands", "spread", "os")
MICRO_FIELDS = {f.name: f for f in dataclasses.fields(MicroConfig)}
TPCB_FIELDS = {f.name: f for f in dataclasses.fields(TpcbConfig)}
TATP_FIELDS = {f.name: f for f in dataclasses.fields(TatpConfig)}
TPCC_FIELDS = {f.name: f for f in dataclasses.fields(TpccConfig)}
ENGINE_FIELDS = {f.name: f for f in dataclasses.fields(EngineConfig)}
#: The fixed-settings tables of an experiment file and the config fields each holds (field
#: names are unique across them, so a [grid] key names its table).
SECTION_FIELDS = {
    "micro": MICRO_FIELDS,
    "tpcb": TPCB_FIELDS,
    "tatp": TATP_FIELDS,
    "tpcc": TPCC_FIELDS,
    "engine": ENGINE_FIELDS,
}
#: Field names more than one workload's section has (TATP's and TPC-C's mix): a [grid] value
#: of one goes to the experiment's own workload.
SHARED_FIELDS = {
    k
    for name, f in SECTION_FIELDS.items()
    for k in f
    if sum(k in g for n, g in SECTION_FIELDS.items() if n != "engine") > 1
}
#: The workloads' own sections (each used by the workload of its name).
WORKLOAD_SECTIONS = {"micro": MicroConfig, "tpcb": TpcbConfig, "tatp": TatpConfig, "tpcc": TpccConfig}
RUN_KEYS = ("warmup_s", "duration_s", "repetitions", "seed", "cpus")
TOP_KEYS = ("name", "figure", "description", "workload", "run", "grid", *SECTION_FIELDS, "profile", "log")
PROFILE_KEYS = ("counters", "breakdown_every", "simulate", "modules")
#: [log] keys: LogConfig's fields but the fault tests' acknowledgement record.
LOG_KEYS = tuple(f.name for f in dataclasses.fields(LogConfig) if f.name != "record_acks")
# Keys of the spec that do not change what a point measures; left out of its hash.
_UNHASHED = ("description", "repetitions")
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_FIGURE_RE = re.compile(r"\d{3}-(fig|table)\d+[a-z]?|none")
_DEFAULT_TRANSPORTS = ("unix", "shm")
MANIFEST_VERSION = 1


def known_transports() -> tuple[str, ...]:
    """Transport names the engine offers (its registry when the build exposes one)."""
    from islands import _core

    names = getattr(_core, "transport_names", None)
    return tuple(names()) if callable(names) else _DEFAULT_TRANSPORTS


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _hash(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


# The experiment file ------------------------------------------------------------------


class _Where:
    """Turns a dotted key into ``file:line: key`` for error messages."""

    def __init__(self, source: str, text: str | None) -> None:
        self.source = source
        self.lines: dict[str, int] = {}
        table = ""
        for number, line in enumerate((text or "").splitlines(), start=1):
            stripped = line.strip()
            m = re.match(r"\[\s*([^\]]+?)\s*\]", stripped)
            if m and not stripped.startswith("[["):
                table = m.group(1)
                self.lines.setdefault(table, number)
                continue
            m = re.match(r"([A-Za-z0-9_.\-\"' ]+?)\s*=", stripped)
            if m:
                key = m.group(1).replace('"', "").replace("'", "").replace(" ", "")
                self.lines.setdefault(f"{table}.{key}" if table else key, number)

    def error(self, key: str, why: str) -> ValueError:
        line = self.lines.get(key)
        if line is None and "." in key:
            line = self.lines.get(key.rsplit(".", 1)[0])
        where = f"{self.source}:{line}" if line is not None else self.source
        return ValueError(f"{where}: {key}: {why}")


def _unknown(key: str, known: Iterable[str]) -> str:
    known = sorted(known)
    close = difflib.get_close_matches(key.rsplit(".", 1)[-1], known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown key{hint} (known: {', '.join(known)})"


def _field_type(name: str) -> str:
    f = next(fields_[name] for fields_ in SECTION_FIELDS.values() if name in fields_)
    return str(f.type)


def _check_value(where: _Where, key: str, name: str, value: Any) -> Any:
    """A grid or fixed value of config field ``name``, type-checked (ints for int fields,
    numbers for float fields, true/false for bool fields, text for str fields)."""
    kind = _field_type(name)
    if kind == "bool":
        if not isinstance(value, bool):
            raise where.error(key, f"{value!r} is not true or false")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise where.error(key, f"{value!r} is not a whole number >= 0")
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise where.error(key, f"{value!r} is not a number")
        return float(value)
    if not isinstance(value, str):
        raise where.error(key, f"{value!r} is not text")
    return value


def _range(where: _Where, key: str, table: Mapping[str, Any]) -> list[Any]:
    if set(table) != {"from", "to", "step"}:
        raise where.error(key, "a range is written { from = A, to = B, step = S }")
    start, stop, step = table["from"], table["to"], table["step"]
    for part in (start, stop, step):
        if isinstance(part, bool) or not isinstance(part, (int, float)):
            raise where.error(key, f"range bound {part!r} is not a number")
    if step <= 0 or stop < start:
        raise where.error(key, "a range needs step > 0 and to >= from")
    count = int(math.floor((stop - start) / step + 1e-9)) + 1
    if count > 10_000:
        raise where.error(key, f"the range has {count} values (at most 10000)")
    if all(isinstance(p, int) for p in (start, stop, step)):
        return [start + i * step for i in range(count)]
    return [round(start + i * step, 10) for i in range(count)]


@dataclass(frozen=True)
class ExperimentSpec:
    """One experiment file, checked: see the module docstring for the format.

    ``grid`` holds ``(key, values)`` pairs: ``deployment``, ``placement`` and ``transport``
    first (defaults ``["1"]``, ``["islands"]``, ``["unix"]``), then the other keys in file
    order.
    ``micro`` and ``engine`` hold the fixed settings. ``source`` is the file it came from.
    """

    name: str
    figure: str
    grid: tuple[tuple[str, tuple[Any, ...]], ...]
    description: str = ""
    workload: str = "micro"
    micro: Mapping[str, Any] = field(default_factory=dict)
    engine: Mapping[str, Any] = field(default_factory=dict)
    tpcb: Mapping[str, Any] = field(default_factory=dict)
    tatp: Mapping[str, Any] = field(default_factory=dict)
    tpcc: Mapping[str, Any] = field(default_factory=dict)
    warmup_s: float = 1.0
    duration_s: float = 5.0
    repetitions: int = 1
    seed: int = 1
    cpus: tuple[int, ...] | None = None
    profile: Mapping[str, Any] = field(default_factory=dict)  #: the [profile] table, checked
    log: Mapping[str, Any] = field(default_factory=dict)  #: the [log] table, checked
    source: str = field(default="<memory>", compare=False)
    text: str | None = field(default=None, compare=False, repr=False)  #: the file's text

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], source: str = "<memory>", text: str | None = None) -> ExperimentSpec:
        """Check a parsed experiment file; ``text`` (the file's text) lets errors name the
        line. Raises ``ValueError`` as ``file:line: key: why`` for the first problem."""
        where = _Where(source, text)
        for key in d:
            if key not in TOP_KEYS:
                raise where.error(key, _unknown(key, TOP_KEYS))

        def text_value(key: str, default: str | None = None) -> str:
            value = d.get(key, default)
            if value is None:
                raise where.error(key, "missing (every experiment file names it)")
            if not isinstance(value, str):
                raise where.error(key, f"{value!r} is not text")
            return value

        name = text_value("name")
        if not _NAME_RE.fullmatch(name):
            raise where.error("name", f"{name!r}: use letters, digits, '.', '_' and '-' (it names a directory)")
        figure = text_value("figure")
        if not _FIGURE_RE.fullmatch(figure):
            raise where.error("figure", f"{figure!r} is not a FIGURES.md id such as '000-fig11' (or 'none')")
        description = text_value("description", "")
        workload = text_value("workload", "micro")

        tables: dict[str, Mapping[str, Any]] = {}
        for table in ("run", "grid", *SECTION_FIELDS, "profile", "log"):
            value = d.get(table, {})
            if not isinstance(value, Mapping):
                raise where.error(table, "must be a table ([" + table + "])")
            tables[table] = value

        run = tables["run"]
        for key in run:
            if key not in RUN_KEYS:
                raise where.error(f"run.{key}", _unknown(key, RUN_KEYS))
        warmup = run.get("warmup_s", 1.0)
        duration = run.get("duration_s", 5.0)
        for key, value, low in (("warmup_s", warmup, None), ("duration_s", duration, 0)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise where.error(f"run.{key}", f"{value!r} is not a number of seconds")
            if value < 0 or (low is not None and value <= low):
                raise where.error(f"run.{key}", f"{value!r} must be {'> 0' if low is not None else '>= 0'}")
        repetitions = run.get("repetitions", 1)
        if isinstance(repetitions, bool) or not isinstance(repetitions, int) or repetitions < 1:
            raise where.error("run.repetitions", f"{repetitions!r} is not a whole number >= 1")
        seed = run.get("seed", 1)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise where.error("run.seed", f"{seed!r} is not a whole number >= 0")
        cpus = run.get("cpus")
        if cpus is not None:
            try:
                if isinstance(cpus, str):
                    cpus = tuple(parse_cpulist(cpus))
                elif isinstance(cpus, list) and all(isinstance(c, int) and not isinstance(c, bool) for c in cpus):
                    cpus = tuple(cpus)
                else:
                    raise ValueError(f"{cpus!r} is not a cpu list such as '0-7' or [0, 1]")
            except ValueError as e:
                raise where.error("run.cpus", str(e)) from None
            if not cpus:
                raise where.error("run.cpus", "the list is empty")

        fixed: dict[str, dict[str, Any]] = {table: {} for table in SECTION_FIELDS}
        for table, fields_ in SECTION_FIELDS.items():
            for key, value in tables[table].items():
                if key not in fields_:
                    raise where.error(f"{table}.{key}", _unknown(key, fields_))
                if key in tables["grid"]:
                    raise where.error(f"{table}.{key}", "set in both [grid] and [" + table + "]")
                if table == "engine" and key == "cc" and value == "auto":
                    fixed[table][key] = value
                    continue
                fixed[table][key] = _check_value(where, f"{table}.{key}", key, value)

        profile = _check_profile(where, tables["profile"])
        log = _check_log(where, tables["log"])

        grid_known = DEPLOY_KEYS + tuple(k for fields_ in SECTION_FIELDS.values() for k in fields_)
        grid: dict[str, tuple[Any, ...]] = {}
        transports = known_transports()
        for key, raw in tables["grid"].items():
            dotted = f"grid.{key}"
            if key not in grid_known:
                raise where.error(dotted, _unknown(key, grid_known))
            if isinstance(raw, Mapping):
                values = _range(where, dotted, raw)
            elif isinstance(raw, list):
                values = raw
            else:
                values = [raw]
            if not values:
                raise where.error(dotted, "the list is empty")
            checked: list[Any] = []
            for value in values:
                if key == "deployment":
                    ok = (isinstance(value, (str, int)) and not isinstance(value, bool)) or (
                        isinstance(value, list)
                        and value
                        and all(isinstance(i, list) and all(isinstance(c, int) for c in i) for i in value)
                    )
                    if not ok:
                        raise where.error(
                            dotted, f"{value!r} is not a deployment (1, 'per-socket', '4ISL', '0-3;4-7', ...)"
                        )
                    value = tuple(tuple(i) for i in value) if isinstance(value, list) else value
                elif key == "placement":
                    if value not in GRID_PLACEMENTS:
                        raise where.error(dotted, f"{value!r}: choose one of {', '.join(GRID_PLACEMENTS)}")
                elif key == "transport":
                    if value not in transports:
                        raise where.error(dotted, f"unknown transport {value!r} (choose {', '.join(transports)})")
                elif key == "cc" and value == "auto":
                    pass
                else:
                    value = _check_value(where, dotted, key, value)
                if value in checked:
                    raise where.error(dotted, f"lists {value!r} twice")
                checked.append(value)
            grid[key] = tuple(checked)
        defaults = {"deployment": ("1",), "placement": ("islands",), "transport": ("unix",)}
        ordered = [(k, v) for k, v in defaults.items() if k not in grid] + list(grid.items())
        ordered.sort(key=lambda kv: DEPLOY_KEYS.index(kv[0]) if kv[0] in DEPLOY_KEYS else len(DEPLOY_KEYS))

        spec = cls(
            name=name,
            figure=figure,
            grid=tuple(ordered),
            description=description,
            workload=workload,
            micro=fixed["micro"],
            engine=fixed["engine"],
            tpcb=fixed["tpcb"],
            tatp=fixed["tatp"],
            tpcc=fixed["tpcc"],
            warmup_s=float(warmup),
            duration_s=float(duration),
            repetitions=repetitions,
            seed=seed,
            cpus=cpus,
            profile=profile,
            log=log,
            source=source,
            text=text,
        )
        spec._check_configs(where)
        return spec

    def _check_configs(self, where: _Where) -> None:
        """Let the engine's own validation judge every fixed and grid value, one at a time,
        so that the error names the key that holds the bad value."""
        base = self.base_config(n_cpus=1)
        grid_keys = [k for k, _ in self.grid]
        # Fields are judged here; whether a scale fits a deployment is judged per point.
        sites = None if self.workload == "micro" else 64
        try:
            base.to_core(total_sites=sites)
        except ValueError as e:
            key, why = _spec_key(e, self.workload, grid_keys)
            raise where.error(key, why) from None
        for key, values in self.grid:
            if key in DEPLOY_KEYS:
                continue
            part = _section_of(key, self.workload)
            for value in values:
                if key == "cc" and value == "auto":
                    continue
                config = dataclasses.replace(base, **{part: dataclasses.replace(getattr(base, part), **{key: value})})
                try:
                    config.to_core(total_sites=sites)
                except ValueError as e:
                    holder, why = _spec_key(e, self.workload, [key])
                    raise where.error(f"grid.{key}", f"{value!r}: {why if holder == f'grid.{key}' else e}") from None

    def base_config(self, n_cpus: int = 1) -> RunConfig:
        """The run config of the fixed settings with every grid key at its first value, on
        cpus ``0..n_cpus-1`` (used to check values; points replace the cpus)."""
        grid = dict(self.grid)
        micro = {**self.micro, **{k: v[0] for k, v in grid.items() if k in MICRO_FIELDS}}
        tpcb = {**self.tpcb, **{k: v[0] for k, v in grid.items() if k in TPCB_FIELDS}}
        tatp = {**self.tatp, **{k: v[0] for k, v in grid.items() if _goes_to(k, "tatp", self.workload)}}
        tpcc = {**self.tpcc, **{k: v[0] for k, v in grid.items() if _goes_to(k, "tpcc", self.workload)}}
        engine = {**self.engine, **{k: v[0] for k, v in grid.items() if k in ENGINE_FIELDS}}
        engine["cc"] = _resolve_cc(engine.get("cc", "auto"), (n_cpus,))
        return RunConfig(
            workload=self.workload,
            micro=MicroConfig(**micro),
            tpcb=TpcbConfig(**tpcb),
            tatp=TatpConfig(**tatp),
            tpcc=TpccConfig(**tpcc),
            engine=EngineConfig(**engine),
            driver=DriverConfig(
                cpus=tuple(range(n_cpus)), warmup_s=self.warmup_s, duration_s=self.duration_s, seed=self.seed
            ),
            profile=self.profile_config(),
            log=self.log_config(),
        )

    def log_config(self) -> LogConfig:
        """The [log] table as the run config's LogConfig (``directory`` is where each run's
        own log directory is made)."""
        if not self.log:
            return LogConfig()
        return LogConfig(**{"directory": default_log_root(), **self.log})

    def profile_config(self) -> ProfileConfig:
        """The [profile] table as the run config's ProfileConfig."""
        return ProfileConfig(
            counters=tuple(self.profile.get("counters", ())),
            breakdown_every=self.profile.get("breakdown_every", 0),
            simulate=self.profile.get("simulate", 0),
            modules=self.profile.get("modules", False),
        )

    def to_dict(self) -> dict[str, Any]:
        """The spec as a TOML-shaped dict (JSON-ready); :meth:`from_dict` reads it back.
        Fixed settings left to their defaults are written out, so that a file that spells a
        default out and one that does not have the same :meth:`spec_hash`."""
        grid_keys = {k for k, _ in self.grid}
        run: dict[str, Any] = {
            "warmup_s": self.warmup_s,
            "duration_s": self.duration_s,
            "repetitions": self.repetitions,
            "seed": self.seed,
        }
        if self.cpus is not None:
            run["cpus"] = format_cpulist(self.cpus)
        extra = {"profile": {k: _plain(v) for k, v in self.profile.items()}} if self.profile else {}
        if self.log:  # only where given: specs without a log keep their hashes
            extra["log"] = {k: _plain(v) for k, v in self.log.items()}
        out = {
            "name": self.name,
            "figure": self.figure,
            "description": self.description,
            "workload": self.workload,
            "run": run,
            "grid": {k: [_plain(v) for v in values] for k, values in self.grid},
            "micro": _fixed(MicroConfig(), self.micro, grid_keys),
            "engine": _fixed(EngineConfig(cc="auto"), self.engine, grid_keys),
            **extra,
        }
        # Another workload's table only where it is used (micro specs keep their hashes).
        for section, klass in WORKLOAD_SECTIONS.items():
            if section != "micro" and (self.workload == section or getattr(self, section)):
                out[section] = _fixed(klass(), getattr(self, section), grid_keys)
        return out

    def spec_hash(self) -> str:
        """Stable hash of everything that decides what a point measures (the description
        and the number of repetitions left out: more repetitions only add runs)."""
        d = self.to_dict()
        d.pop("description")
        d["run"].pop("repetitions")
        return _hash(d)

    def with_overrides(
        self, duration_s: float | None = None, warmup_s: float | None = None, repetitions: int | None = None
    ) -> ExperimentSpec:
        """The same spec with the command line's ``--duration``/``--warmup``/``--repetitions``."""
        changes: dict[str, Any] = {}
        if duration_s is not None:
            if not (isinstance(duration_s, (int, float)) and math.isfinite(duration_s) and duration_s > 0):
                raise ValueError(f"--duration: {duration_s!r} must be a number of seconds > 0")
            changes["duration_s"] = float(duration_s)
        if warmup_s is not None:
            if not (isinstance(warmup_s, (int, float)) and math.isfinite(warmup_s) and warmup_s >= 0):
                raise ValueError(f"--warmup: {warmup_s!r} must be a number of seconds >= 0")
            changes["warmup_s"] = float(warmup_s)
        if repetitions is not None:
            if isinstance(repetitions, bool) or not isinstance(repetitions, int) or repetitions < 1:
                raise ValueError(f"--repetitions: {repetitions!r} must be a whole number >= 1")
            changes["repetitions"] = repetitions
        return dataclasses.replace(self, **changes)


def _spec_key(error: ValueError, workload: str, grid_keys: Sequence[str]) -> tuple[str, str]:
    """The experiment-file key that holds the setting a config error names, and what is wrong
    with it: ``micro.rows_per_site``, ``grid.multisite``, ``run.duration_s``, ``log.mode``,
    ``workload``. The engine's ``ConfigError`` carries the field as data; any other error
    is the run's as a whole, with its message."""
    field_ = getattr(error, "field", None)
    if not isinstance(field_, str):
        return "run", str(error)
    section, name = resolve_field(field_, workload)
    why = str(getattr(error, "why", error))
    if name in grid_keys:
        return f"grid.{name}", why
    if section in SECTION_FIELDS or section in ("log", "profile"):
        return f"{section}.{name}", why
    if section == "driver":
        return (f"run.{name}" if name in RUN_KEYS else "run"), why
    return (name if name in TOP_KEYS else "run"), why


def _section_of(key: str, workload: str = "micro") -> str:
    """The config section (micro, tpcb, tatp, tpcc, engine) holding a [grid] key (the
    workload's own where several have it)."""
    if key in SHARED_FIELDS and key in SECTION_FIELDS.get(workload, {}):
        return workload
    return next(name for name, fields_ in SECTION_FIELDS.items() if key in fields_)


def _goes_to(key: str, section: str, workload: str) -> bool:
    """Whether a [grid] key's value belongs in ``section`` of a ``workload`` experiment."""
    return key in SECTION_FIELDS[section] and _section_of(key, workload) == section


def _check_profile(where: _Where, table: Mapping[str, Any]) -> dict[str, Any]:
    from islands.pmu import EVENT_SETS

    out: dict[str, Any] = {}
    for key, value in table.items():
        if key not in PROFILE_KEYS:
            raise where.error(f"profile.{key}", _unknown(key, PROFILE_KEYS))
        if key == "counters":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise where.error("profile.counters", f"{value!r} is not a list of event sets")
            for v in value:
                if v not in EVENT_SETS:
                    raise where.error("profile.counters", f"unknown event set {v!r} (choose {', '.join(EVENT_SETS)})")
            out[key] = tuple(value)
        elif key == "modules":
            if not isinstance(value, bool):
                raise where.error("profile.modules", f"{value!r} is not true or false")
            out[key] = value
        else:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise where.error(f"profile.{key}", f"{value!r} is not a whole number >= 0")
            out[key] = value
    return out


def _check_log(where: _Where, table: Mapping[str, Any]) -> dict[str, Any]:
    if not table:
        return {}
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key not in LOG_KEYS:
            raise where.error(f"log.{key}", _unknown(key, LOG_KEYS))
        default = getattr(LogConfig(), key)
        if isinstance(default, bool) != isinstance(value, bool) or not isinstance(
            value, (int, float) if isinstance(default, float) else type(default)
        ):
            kind = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}[type(default)]
            raise where.error(f"log.{key}", f"{value!r} is not {kind}")
        out[key] = value
    if out.get("mode", "off") == "off":
        raise where.error("log.mode", 'give mode = "async" or "group_commit" (leave [log] out for no log)')
    directory = out.get("directory")
    if directory is not None and not os.path.isdir(directory):
        raise where.error("log.directory", f"{directory!r} is not a directory")
    try:
        RunConfig(log=LogConfig(**{"directory": default_log_root(), **out})).to_core()
    except ValueError as e:
        key, why = _spec_key(e, "micro", [])
        raise where.error(key if key.startswith("log.") else "log", why if key.startswith("log.") else str(e)) from None
    return out


def default_log_root() -> str:
    """Where a sweep's runs make their log directories unless [log] names one: tmpfs
    (/dev/shm) where there is one, else the temp directory."""
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()


def _fixed(defaults: Any, given: Mapping[str, Any], grid_keys: set[str]) -> dict[str, Any]:
    values = {f.name: getattr(defaults, f.name) for f in dataclasses.fields(defaults)}
    values.update(given)
    return {k: v for k, v in values.items() if k not in grid_keys}


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def load_spec(path: str | Path) -> ExperimentSpec:
    """Read and check an experiment file. Raises ``ValueError`` (one line, naming the file,
    the key and where known the line) for a missing file, bad TOML or a bad key or value."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ValueError(f"{path}: cannot read the experiment file ({e.strerror})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{path}: not valid TOML: {e}") from None
    return ExperimentSpec.from_dict(data, source=str(path), text=text)


def _resolve_cc(cc: str, sizes: Sequence[int]) -> str:
    """``auto``: single-threaded instances run without locks (``none``), others ``2pl``."""
    if cc != "auto":
        return cc
    return "none" if max(sizes) == 1 else "2pl"


# Points ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """One run of a sweep: a deployment, its run config, a transport and a repetition.

    ``config.driver.cpus`` lists every cpu of the deployment, instance by instance (site
    ``k`` on ``config.driver.cpus[k]``), ``config.driver.pin`` is ``deployment.pinned`` and
    ``config.engine.cc`` is the per-instance choice (``auto`` resolved by instance size).
    ``params`` holds the point's grid values (for tables); ``index`` its place in the grid.
    """

    deployment: Deployment
    config: RunConfig
    transport: str
    repetition: int
    params: tuple[tuple[str, Any], ...] = ()
    index: int = 0

    @property
    def grid_id(self) -> str:
        """Stable hash of what the point measures; the same for all its repetitions."""
        dep = self.deployment
        return _hash(
            {
                "config": self.config.to_dict(),
                "deployment": {
                    "label": dep.label,
                    "placement": dep.placement,
                    "pinned": dep.pinned,
                    "instances": [list(c) for c in dep.instances],
                },
                "transport": self.transport,
            }
        )

    @property
    def point_id(self) -> str:
        """Stable hash of the point and its repetition: the row's key for resuming."""
        return _hash({"grid_id": self.grid_id, "repetition": self.repetition})

    def describe(self) -> str:
        """One line for people: ``2ISL spread unix update=true multisite=0.2 rep 1``."""
        shown = " ".join(f"{k}={_show(v)}" for k, v in self.params if k not in DEPLOY_KEYS)
        return f"{self.deployment.name} {self.transport} {shown} rep {self.repetition}".replace("  ", " ")


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return ";".join(format_cpulist(c) for c in value)
    return str(value)


#: A runner runs one point and returns its result as a dict (for instance ``to_dict()`` of
#: a :class:`~islands.run.RunResult`); its keys become the row's columns.
Runner = Callable[[Point], Mapping[str, Any]]


def run_point(point: Point, topology: Topology | None = None) -> dict[str, Any]:
    """The default runner: one instance runs in this process through :func:`islands.run`
    on the instance's cpus (pinned as the deployment says); several instances run through
    ``islands.launch.run_deployment(deployment, config, transport=...)``."""
    if point.config.log.mode != "off":
        return _run_logged(point, topology)
    if point.deployment.n_instances == 1:
        from islands.run import run

        return run(point.config, topology).to_dict()
    try:
        from islands.launch import run_deployment
    except ImportError as e:
        raise RuntimeError(f"multi-instance deployments need islands.launch ({point.deployment.label}: {e})") from None
    return run_deployment(point.deployment, point.config, transport=point.transport, topology=topology).to_dict()


def _run_logged(point: Point, topology: Topology | None) -> dict[str, Any]:
    """A run with a log (deployment runs only, one instance included) in a fresh directory
    under the configured one, removed afterwards (each run starts a new log)."""
    from islands.launch import run_deployment

    directory = tempfile.mkdtemp(prefix="islands-log-", dir=point.config.log.directory)
    try:
        config = dataclasses.replace(point.config, log=dataclasses.replace(point.config.log, directory=directory))
        result = run_deployment(point.deployment, config, transport=point.transport, topology=topology)
        # The row keeps the point's config (the directory the run's own was made in), so that
        # repetitions of a point share its config hash.
        return dataclasses.replace(result, config=point.config, config_hash=point.config.config_hash()).to_dict()
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def default_runner(topology: Topology | None = None) -> Runner:
    """:func:`run_point` bound to a topology."""
    return lambda point: run_point(point, topology)


# Sweeps -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepOutcome:
    """What :meth:`Sweep.run` did: runs made now, runs found done, runs in all."""

    ran: int
    skipped: int
    total: int
    directory: Path
    notes: tuple[str, ...] = ()


class Sweep:
    """An experiment spec on one machine: its points, their dry-run table, and the run.

    ``topology`` defaults to this machine's; ``out`` to ``results/<spec name>``.
    Constructing a sweep plans every deployment and checks every config, so a spec that
    does not fit the machine fails here (``ValueError``), before anything is written.
    """

    def __init__(self, spec: ExperimentSpec, topology: Topology | None = None, out: str | Path | None = None) -> None:
        if topology is None:
            from islands.topology import read_topology

            topology = read_topology()
        self.spec = spec
        self.topology = topology
        self.directory = Path(out) if out is not None else Path("results") / spec.name
        self.store = ResultStore(self.directory)
        self.notes: list[str] = []
        self.grid_points = self._expand()

    def _expand(self) -> list[Point]:
        spec, topo = self.spec, self.topology
        grid = dict(spec.grid)
        # Deployments coincide differently under each placement, so each has its own list;
        # the deployment axis is their union, and a combination outside its list is skipped.
        names_of: dict[str, list[str]] = {}
        axis: list[str] = []
        for placement in grid["placement"]:
            try:
                names, notes = expand_relative(topo, list(grid["deployment"]), placement, spec.cpus)
            except ValueError as e:
                raise _Where(spec.source, spec.text).error("grid.deployment", str(e)) from None
            self.notes.extend(n for n in notes if n not in self.notes)
            names_of[placement] = names
            axis.extend(n for n in names if n not in axis)
        keys = [k for k, _ in spec.grid]
        axes = [axis if k == "deployment" else list(v) for k, v in spec.grid]
        planned: dict[tuple[str, str], Deployment] = {}
        out: list[Point] = []
        seen: set[str] = set()
        for combo in itertools.product(*axes):
            chosen = dict(zip(keys, combo))
            if chosen["deployment"] not in names_of[chosen["placement"]]:
                continue
            plan_key = (chosen["deployment"], chosen["placement"])
            if plan_key not in planned:
                planned[plan_key] = plan_deployment(topo, *plan_key, cpus=spec.cpus)
            point = self._point(chosen, planned[plan_key], len(out))
            if point.grid_id in seen:
                note = f"{point.describe().rsplit(' rep', 1)[0]} is listed more than once: run once"
                if note not in self.notes:
                    self.notes.append(note)
                continue
            seen.add(point.grid_id)
            out.append(point)
        return out

    def _point(self, chosen: dict[str, Any], dep: Deployment, index: int) -> Point:
        spec = self.spec
        micro = {**spec.micro, **{k: v for k, v in chosen.items() if k in MICRO_FIELDS}}
        tpcb = {**spec.tpcb, **{k: v for k, v in chosen.items() if k in TPCB_FIELDS}}
        tatp = {**spec.tatp, **{k: v for k, v in chosen.items() if _goes_to(k, "tatp", spec.workload)}}
        tpcc = {**spec.tpcc, **{k: v for k, v in chosen.items() if _goes_to(k, "tpcc", spec.workload)}}
        engine = {**spec.engine, **{k: v for k, v in chosen.items() if k in ENGINE_FIELDS}}
        engine["cc"] = _resolve_cc(engine.get("cc", "auto"), [len(c) for c in dep.instances])
        config = RunConfig(
            workload=spec.workload,
            micro=MicroConfig(**micro),
            tpcb=TpcbConfig(**tpcb),
            tatp=TatpConfig(**tatp),
            tpcc=TpccConfig(**tpcc),
            engine=EngineConfig(**engine),
            driver=DriverConfig(
                cpus=dep.cpus,
                pin=dep.pinned,
                warmup_s=spec.warmup_s,
                duration_s=spec.duration_s,
                seed=spec.seed,
            ),
            profile=spec.profile_config(),
            log=spec.log_config(),
        )
        params = tuple((k, dep.name if k == "deployment" else chosen[k]) for k, _ in spec.grid)
        # The engine judges each instance's config (one per distinct instance size).
        for cpus in {len(c): c for c in dep.instances}.values():
            per_instance = dataclasses.replace(config, driver=dataclasses.replace(config.driver, cpus=cpus))
            try:
                per_instance.to_core(total_sites=dep.n_cpus)
            except ValueError as e:
                shown = Point(dep, config, chosen["transport"], 0, params).describe().rsplit(" rep", 1)[0]
                raise ValueError(f"{spec.source}: point {shown}: {e}") from None
        return Point(
            deployment=dep, config=config, transport=chosen["transport"], repetition=0, params=params, index=index
        )

    def points(self) -> list[Point]:
        """Every run, repetition by repetition: the grid once, then again, ..."""
        return [dataclasses.replace(p, repetition=r) for r in range(self.spec.repetitions) for p in self.grid_points]

    def done_ids(self) -> set[str]:
        """The point_ids the results directory already holds."""
        rows = self.store.rows()
        if rows.empty or "point_id" not in rows.columns:
            return set()
        return set(rows["point_id"].astype(str))

    def estimate_s(self, runs: int | None = None) -> float:
        """A rough time for ``runs`` runs (default all): warm-up + duration + 0.5 s each."""
        n = len(self.points()) if runs is None else runs
        return n * (self.spec.warmup_s + self.spec.duration_s + 0.5)

    def table(self, done: set[str] | None = None) -> str:
        """The dry-run listing: a header, the notes, and one line per grid point."""
        spec, topo = self.spec, self.topology
        done = self.done_ids() if done is None else done
        runs = self.points()
        left = sum(1 for p in runs if p.point_id not in done)
        varying = [k for k, v in spec.grid if len(v) > 1 and k not in DEPLOY_KEYS]
        fixed = {**getattr(spec, spec.workload if spec.workload in WORKLOAD_SECTIONS else "micro"), **spec.engine}
        fixed.update({k: v[0] for k, v in spec.grid if len(v) == 1 and k not in DEPLOY_KEYS})
        lines = [
            f"experiment {spec.name} (figure {spec.figure}) from {spec.source}, spec {spec.spec_hash()}",
            f"machine: {_count(topo.n_sockets, 'socket')}, {_count(topo.n_cores, 'core')}, "
            f"{_count(topo.n_cpus, 'hardware thread')} ({topo.source})",
            f"{len(self.grid_points)} points x {spec.repetitions} repetitions = {len(runs)} runs"
            f"; {len(runs) - left} done, {left} to run, about {_duration(self.estimate_s(left))} "
            f"(warm-up {spec.warmup_s:g} s + {spec.duration_s:g} s measured each)",
            f"results: {self.directory}",
        ]
        if fixed:
            lines.append("fixed: " + ", ".join(f"{k}={_show(v)}" for k, v in fixed.items()))
        lines += [f"note: {n}" for n in self.notes]
        header = ["#", "deployment", "instances", "sockets", "transport", *varying, "done", "grid_id"]
        rows = []
        for p in self.grid_points:
            dep = p.deployment
            sizes = sorted({len(c) for c in dep.instances})
            shape = f"{dep.n_instances}x{sizes[0]}" if len(sizes) == 1 else "+".join(str(len(c)) for c in dep.instances)
            spans = sorted({len(s) for s in dep.sockets})
            reps_done = sum(1 for r in range(spec.repetitions) if dataclasses.replace(p, repetition=r).point_id in done)
            params = dict(p.params)
            rows.append(
                [
                    str(p.index + 1),
                    dep.name,
                    shape,
                    "-".join(map(str, spans)) if len(spans) > 1 else str(spans[0]),
                    p.transport,
                    *[_show(params[k]) for k in varying],
                    f"{reps_done}/{spec.repetitions}",
                    p.grid_id,
                ]
            )
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        lines.append("")
        for r in [header, *rows]:
            lines.append(
                "  ".join(
                    c.rjust(w) if c[:1].isdigit() and i == 0 else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))
                ).rstrip()
            )
        return "\n".join(lines)

    # Running --------------------------------------------------------------------------

    def _prepare(self, fresh: bool, force: bool) -> dict[str, Any]:
        """Check the directory against this spec and machine; returns the manifest to use."""
        d = self.directory
        if d.exists() and not d.is_dir():
            raise ValueError(f"results directory {d}: exists and is not a directory")
        manifest = self.store.manifest() if d.is_dir() else {}
        has_rows = self.store.rows_path.exists()
        spec_hash = self.spec.spec_hash()
        mismatch = None
        if manifest:
            if manifest.get("spec_hash") != spec_hash:
                mismatch = (
                    f"holds results of a different spec (spec {manifest.get('spec_hash')} from "
                    f"{manifest.get('spec_file')}, this one is {spec_hash})"
                )
            elif not _same_machine(manifest.get("topology"), self.topology):
                mismatch = "holds results made on a different machine topology"
        elif has_rows:
            mismatch = "holds rows but no manifest"
        if fresh:
            for path in (self.store.rows_path, self.store.manifest_path):
                try:
                    path.unlink(missing_ok=True)
                except OSError as e:
                    raise ValueError(f"results directory {d}: cannot remove {path.name} ({e.strerror})") from None
            manifest = {}
        elif mismatch and not force:
            raise ValueError(
                f"results directory {d} {mismatch}: use --fresh to start over, --force to add to it, or another --out"
            )
        try:
            d.mkdir(parents=True, exist_ok=True)
            probe = d / ".write-test"
            probe.write_text("")
            probe.unlink()
        except OSError as e:
            raise ValueError(f"results directory {d}: not writable ({e.strerror})") from None
        from islands.metadata import collect_metadata

        now = _now()
        history = list(manifest.get("history", []))
        history.append({"started_utc": now, "spec_hash": spec_hash, "forced": bool(mismatch and force)})
        return {
            "version": MANIFEST_VERSION,
            "experiment": self.spec.name,
            "figure": self.spec.figure,
            "spec_file": self.spec.source,
            "spec": self.spec.to_dict(),
            "spec_hash": spec_hash,
            "topology": self.topology.to_dict(),
            "metadata": collect_metadata(),
            "created_utc": manifest.get("created_utc", now),
            "updated_utc": now,
            "status": "running",
            "points": len(self.grid_points),
            "repetitions": self.spec.repetitions,
            "runs_total": len(self.points()),
            "runs_done": 0,
            "notes": list(self.notes),
            "history": history,
        }

    def run(
        self,
        runner: Runner | None = None,
        *,
        fresh: bool = False,
        force: bool = False,
        progress: bool | None = None,
    ) -> SweepOutcome:
        """Run every point not yet in the results directory, one row per run, written as
        soon as the run ends. ``runner`` defaults to :func:`run_point` on this sweep's
        topology. ``fresh`` deletes the directory's rows and manifest first; ``force``
        adds to a directory made from another spec. ``progress`` shows a progress bar with
        an ETA (default: when stderr is a terminal).

        Ctrl-C (``KeyboardInterrupt``) stops after the rows already finished are written,
        marks the manifest ``interrupted`` and is raised again; a failing run marks it
        ``failed`` and raises (``ValueError`` stays a ``ValueError``, anything else becomes
        a ``RuntimeError`` naming the point). Run again to resume.
        """
        runner = runner or default_runner(self.topology)
        manifest = self._prepare(fresh, force)
        self.store.create(manifest)
        done = self.done_ids()
        runs = self.points()
        todo = [p for p in runs if p.point_id not in done]
        skipped = len(runs) - len(todo)
        manifest["runs_done"] = skipped
        meta = manifest["metadata"]
        topo = manifest["topology"]
        show = sys.stderr.isatty() if progress is None else progress
        ran = 0

        all_ids = {p.point_id for p in runs}

        def finish(status: str, error: str | None = None) -> None:
            # Counted from the store: an interrupt may land between a write and `ran += 1`.
            stored = len(self.done_ids() & all_ids) if status != "running" else skipped + ran
            manifest.update(status=status, updated_utc=_now(), runs_done=stored)
            if error is not None:
                manifest["error"] = error
            else:
                manifest.pop("error", None)
            self.store.write_manifest(manifest)

        bar = _Progress(show, len(runs), skipped)
        try:
            with bar:
                for point in todo:
                    bar.describe(point.describe())
                    started = time.monotonic()
                    try:
                        result = dict(runner(point))
                    except (KeyboardInterrupt, SystemExit):
                        raise
                    except ValueError as e:
                        raise ValueError(f"point {point.describe()}: {e}") from e
                    except Exception as e:
                        raise RuntimeError(f"point {point.describe()} failed: {e}") from e
                    self.store.append([self._row(point, result, meta, topo, time.monotonic() - started)])
                    ran += 1
                    bar.advance()
                    if ran % 10 == 0:
                        finish("running")
        except KeyboardInterrupt:
            finish("interrupted")
            print(
                f"sweep interrupted: {manifest['runs_done']} of {len(runs)} runs stored in {self.directory}; "
                "run the same command again to resume",
                file=sys.stderr,
            )
            raise
        except BaseException as e:
            finish("failed", str(e))
            raise
        finish("complete")
        return SweepOutcome(
            ran=ran, skipped=skipped, total=len(runs), directory=self.directory, notes=tuple(self.notes)
        )

    def _row(
        self, point: Point, result: Mapping[str, Any], meta: Mapping[str, Any], topo: Mapping[str, Any], run_s: float
    ) -> dict[str, Any]:
        dep = point.deployment.to_dict()
        dep.pop("version")
        dep["roles"] = ",".join(roles_of(self.topology, point.deployment))
        row: dict[str, Any] = {
            "config": point.config.to_dict(),
            "config_hash": point.config.config_hash(),
            "topology": dict(topo),
            "metadata": dict(meta),
        }
        row.update(result)
        row.update(
            {
                "experiment": self.spec.name,
                "figure": self.spec.figure,
                "spec_hash": self.spec.spec_hash(),
                "point_id": point.point_id,
                "grid_id": point.grid_id,
                "point_index": point.index,
                "repetition": point.repetition,
                "transport": point.transport,
                "deployment": dep,
                "run_s": run_s,
                "finished_utc": _now(),
            }
        )
        return row


def _same_machine(stored: Any, topology: Topology) -> bool:
    if not stored:
        return True
    try:
        return Topology.from_dict(stored) == topology
    except ValueError:
        return False


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class _Progress:
    """A rich progress bar with an ETA on stderr, or nothing."""

    def __init__(self, show: bool, total: int, completed: int) -> None:
        self.progress = None
        if show:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.progress = Progress(
                TextColumn("[bold]sweep"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("eta"),
                TimeRemainingColumn(),
                TextColumn("{task.description}"),
                console=Console(stderr=True),
            )
            self.task = self.progress.add_task("", total=total, completed=completed)

    def __enter__(self) -> _Progress:
        if self.progress is not None:
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def describe(self, text: str) -> None:
        if self.progress is not None:
            self.progress.update(self.task, description=text)

    def advance(self) -> None:
        if self.progress is not None:
            self.progress.advance(self.task)
