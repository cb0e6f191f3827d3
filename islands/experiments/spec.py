"""Experiment files: the TOML schema of a sweep, parsed and checked into an
:class:`ExperimentSpec` (errors name the file, the key and its line).

An experiment file (``experiments/*.toml``) says what to run; nothing in it is specific to
one machine, because deployments may be written relative to the topology (``1``,
``per-socket``, ``per-core``, ``all``; see :func:`islands.machine.placement.expand_relative`)::

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
    virtual_sockets = 4               # plan on the cores regrouped into 4 made-up sockets
                                      # (islands.machine.virtual_topology; results say so)
    virtual_delay_us = 2.0            # and inject this delay on messages between them
    controller_interval_s = 1.0       # with a schedule or grid.adaptive: the ATraPos
                                      # controller's first interval (doubling up to 8x)

    [grid]                            # every key is a list of values (or one value);
    deployment = ["1", "per-socket", "per-core"]   # the sweep runs their product:
    placement = ["islands"]           # deployment, placement, transport, cores outermost,
    transport = ["unix"]              # then the others as written, the last varying fastest
                                      # ("none": instances never talk; local work only)
    cores = [1, 2, 4, 8, "all"]       # optional: deploy on the first N cpus only (larger N
                                      # than the machine has are skipped with a note)
    design = ["centralized", "plp"]   # optional, instead of deployment: paper 002's baselines
                                      # (islands.experiments.designs: shared-nothing, centralized, plp,
                                      # plp-hw; Fig 6's naive, workload-aware, atrapos-static),
                                      # each its deployment and engine settings
    update = [false, true]            # any MicroConfig or EngineConfig field (e.g.
                                      # execution = ["shared_everything", "plp"])
    multisite = { from = 0.0, to = 1.0, step = 0.2 }   # a range: 0, 0.2, ..., 1.0

    [micro]                           # fixed MicroConfig fields (not also in [grid])
    rows_per_txn = 10
    rows_per_site = 10000

    [engine]                          # fixed EngineConfig fields; cc = "auto" (default)
    cc = "auto"                       # is "none" for one-cpu instances, else "2pl"

    [profile]                         # optional: what each run measures about itself
    counters = ["software", "basic"]  # event sets (islands.measure.pmu.EVENT_SETS)
    breakdown_every = 1               # component time breakdown of every Nth transaction
    simulate = 2000                   # cachegrind counts of a single-threaded copy (N txns)
    cache_model = "xeon-e7530"        # the caches it simulates (islands.measure.cache_models; default
                                      # xeon-e5-2680v4, a 35 MB LLC; "host": this machine's)
    modules = true                    # code-module profile (perf record; one instance only)

    [[schedule]]                      # optional: events while each run measures, and
    at_s = 4.0                        # grid.adaptive = [true, false]: ATraPos adapting or
    park = 1                          # not (islands.experiments.schedule; one PLP instance per point);
                                      # or unpark = 1, mix = "get_new_destination" (tatp),
                                      # hot_fraction = 0.2 and/or hot_share = 0.5 (tatp skew)

    [probe]                           # optional: a measurement beside each run (islands.experiments.probes;
    kind = "repartition_cost"         # one PLP instance per point): 002 Fig 9's timed
    actions = [1, 10, 20, 40, 80]     # re-partitioning sequences, or kind = "monitor_overhead"
                                      # with phase_s = 0.1 (002 Table 2)

    [log]                             # optional: a write-ahead log for every run that
    mode = "group_commit"             # updates (LogConfig; read-only micro points stay
                                      # unlogged); off, async or group_commit
    directory = "/dev/shm"            # each run logs into a fresh directory made here, removed
                                      # after it (default: /dev/shm, else the temp directory)

The sweep runner (:mod:`islands.experiments.sweep`) turns a spec into points and runs them.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import math
import os
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from islands.atrapos.events import CHANGE_WORKLOADS, Event, check_changes
from islands.execution.settings import (
    DEFAULT_WORKLOAD,
    WORKLOAD_SETTINGS,
    WORKLOADS,
    DriverConfig,
    EngineConfig,
    LogConfig,
    ProfileConfig,
    RunConfig,
    default_log_root,
    resolve_field,
)
from islands.experiments.designs import DESIGN_ENGINE_KEYS, DESIGNS
from islands.experiments.probes import Probe, parse_probe
from islands.experiments.schedule import LiveRun, parse_schedule
from islands.machine.topology import format_cpulist, parse_cpulist

__all__ = [
    "DEPLOY_KEYS",
    "GRID_PLACEMENTS",
    "ExperimentSpec",
    "known_transports",
    "load_spec",
]

#: Keys of [grid] that are not config fields: what a point is deployed on. ``cores`` takes the
#: first N of the run's CPUs (one per core unless [run] cpus says otherwise) for every
#: deployment of the point, so that a file can sweep scale (paper 004's clients 1 ... cores);
#: values larger than the machine's are skipped with a note, "all" takes every CPU.
#: ``adaptive`` (true/false) says whether the ATraPos controller re-partitions a point's run
#: (islands.experiments.schedule).
DEPLOY_KEYS = ("deployment", "placement", "transport", "cores", "design", "adaptive")
#: DEPLOY_KEYS that tables and point descriptions show (the others show as the deployment).
SHOWN_DEPLOY_KEYS = ("cores", "design", "adaptive")
#: Placements a grid may ask for (explicit deployments are written as cpu lists).
GRID_PLACEMENTS = ("islands", "spread", "os")
ENGINE_FIELDS = {f.name: f for f in dataclasses.fields(EngineConfig)}
#: Each workload's section (``config.WORKLOAD_SETTINGS``, each used by the workload of its
#: name) and the config fields it holds.
WORKLOAD_FIELDS = {
    section: {f.name: f for f in dataclasses.fields(klass)} for section, klass in WORKLOAD_SETTINGS.items()
}
#: The fixed-settings tables of an experiment file and the config fields each holds (a
#: [grid] key names its table, but for the fields in SHARED_FIELDS).
SECTION_FIELDS = {**WORKLOAD_FIELDS, "engine": ENGINE_FIELDS}
#: Field names more than one workload's section has (TATP's and TPC-C's mix): a [grid] value
#: of one goes to the experiment's own workload.
SHARED_FIELDS = {k for f in WORKLOAD_FIELDS.values() for k in f if sum(k in g for g in WORKLOAD_FIELDS.values()) > 1}
RUN_KEYS = (
    "warmup_s",
    "duration_s",
    "repetitions",
    "seed",
    "cpus",
    "virtual_sockets",
    "virtual_delay_us",
    "controller_interval_s",
)
TOP_KEYS = (
    "name",
    "figure",
    "description",
    "workload",
    "run",
    "grid",
    *SECTION_FIELDS,
    "profile",
    "log",
    "schedule",
    "probe",
)
PROFILE_KEYS = ("counters", "breakdown_every", "simulate", "cache_model", "modules")
#: [log] keys: LogConfig's fields but the fault tests' acknowledgement record.
LOG_KEYS = tuple(f.name for f in dataclasses.fields(LogConfig) if f.name != "record_acks")
# Keys of the spec that do not change what a point measures; left out of its hash.
_UNHASHED = ("description", "repetitions")
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_FIGURE_RE = re.compile(r"\d{3}-(fig|table)\d+[a-z]?|none")


def known_transports() -> tuple[str, ...]:
    """Transport names the engine offers (its registry)."""
    from islands import _core  # late: experiment files load without the engine

    return tuple(_core.transport_names())


def stable_hash(value: Any) -> str:
    """A short, stable hash of a JSON-able value (its canonical JSON): a point's or a spec's id."""
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


class SpecLocation:
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


def _check_value(where: SpecLocation, key: str, name: str, value: Any) -> Any:
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


def _range(where: SpecLocation, key: str, table: Mapping[str, Any]) -> list[Any]:
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
    first (defaults ``["1"]``, ``["islands"]``, ``["unix"]``), ``cores`` where given, then
    the other keys in file order.
    ``workload_settings`` holds the fixed settings of each workload's table that the file
    gives (keyed by section, as ``config.WORKLOAD_SETTINGS``), ``engine`` those of [engine];
    :meth:`fixed` reads either. ``source`` is the file it came from.
    """

    name: str
    figure: str
    grid: tuple[tuple[str, tuple[Any, ...]], ...]
    description: str = ""
    workload: str = DEFAULT_WORKLOAD
    #: section -> its fixed settings, for the workload tables the file gives
    workload_settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    engine: Mapping[str, Any] = field(default_factory=dict)
    warmup_s: float = 1.0
    duration_s: float = 5.0
    repetitions: int = 1
    seed: int = 1
    cpus: tuple[int, ...] | None = None
    virtual_sockets: int | None = None  #: plan on this many made-up sockets (None: the real ones)
    virtual_delay_us: float = 0.0  #: with virtual_sockets: delay injected on messages between them
    profile: Mapping[str, Any] = field(default_factory=dict)  #: the [profile] table, checked
    log: Mapping[str, Any] = field(default_factory=dict)  #: the [log] table, checked
    #: the [[schedule]] events, checked, in the file's order (islands.experiments.schedule)
    schedule: tuple[Event, ...] = ()
    controller_interval_s: float = 1.0  #: the ATraPos controller's first interval (live runs)
    probe: Probe | None = None  #: the [probe] measured beside each run (islands.experiments.probes), if any
    source: str = field(default="<memory>", compare=False)
    text: str | None = field(default=None, compare=False, repr=False)  #: the file's text

    def __post_init__(self) -> None:
        unknown = sorted(set(self.workload_settings) - set(WORKLOAD_SETTINGS))
        if unknown:
            raise ValueError(f"{unknown[0]}: not a workload's section (known: {', '.join(WORKLOAD_SETTINGS)})")

    def fixed(self, section: str) -> Mapping[str, Any]:
        """The fixed settings of one table: a workload's section or ``engine`` (empty if none)."""
        if section == "engine":
            return self.engine
        return self.workload_settings.get(section, {})

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], source: str = "<memory>", text: str | None = None) -> ExperimentSpec:
        """Check a parsed experiment file; ``text`` (the file's text) lets errors name the
        line. Raises ``ValueError`` as ``file:line: key: why`` for the first problem."""
        where = SpecLocation(source, text)
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
        workload = text_value("workload", DEFAULT_WORKLOAD)

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
        virtual = run.get("virtual_sockets")
        if virtual is not None and (isinstance(virtual, bool) or not isinstance(virtual, int) or virtual < 1):
            raise where.error("run.virtual_sockets", f"{virtual!r} is not a whole number >= 1")
        delay = run.get("virtual_delay_us", 0.0)
        if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not 0 <= delay <= 1e6:
            raise where.error("run.virtual_delay_us", f"{delay!r} is not a delay in [0, 1000000] microseconds")
        if delay and virtual is None:
            raise where.error("run.virtual_delay_us", "only with run.virtual_sockets")
        controller_interval = run.get("controller_interval_s", 1.0)
        if (
            isinstance(controller_interval, bool)
            or not isinstance(controller_interval, (int, float))
            or not 0 < controller_interval <= 3600
        ):
            raise where.error(
                "run.controller_interval_s", f"{controller_interval!r} is not a number of seconds in (0, 3600]"
            )
        schedule = parse_schedule(d["schedule"], float(duration), where.error) if "schedule" in d else ()
        probe = parse_probe(d["probe"], where.error) if "probe" in d else None

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
                if table == "engine" and key == "cc" and isinstance(value, Mapping):
                    fixed[table][key] = _check_cc_by_level(where, value)
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
                    if value not in (*transports, "none"):
                        raise where.error(
                            dotted, f"unknown transport {value!r} (choose {', '.join(transports)}, or none)"
                        )
                elif key == "cores":
                    if value != "all" and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                        raise where.error(dotted, f"{value!r} is not a number of cores (a positive integer or 'all')")
                elif key == "design":
                    if value not in DESIGNS:
                        raise where.error(dotted, f"{value!r}: choose one of {', '.join(DESIGNS)}")
                elif key == "adaptive":
                    if not isinstance(value, bool):
                        raise where.error(dotted, f"{value!r} is not true or false")
                elif key == "cc" and value == "auto":
                    pass
                else:
                    value = _check_value(where, dotted, key, value)
                if value in checked:
                    raise where.error(dotted, f"lists {value!r} twice")
                checked.append(value)
            grid[key] = tuple(checked)
        defaults = {"deployment": ("1",), "placement": ("islands",), "transport": ("unix",)}
        if "design" in grid:  # a design names its deployment and the engine settings that make it
            if "deployment" in grid:
                raise where.error("grid.deployment", "not with grid.design (each design names its deployment)")
            for key in DESIGN_ENGINE_KEYS:
                if key in grid or key in fixed["engine"]:
                    holder = f"grid.{key}" if key in grid else f"engine.{key}"
                    raise where.error(holder, "not with grid.design (each design sets it)")
            del defaults["deployment"]
        ordered = [(k, v) for k, v in defaults.items() if k not in grid] + list(grid.items())
        ordered.sort(key=lambda kv: DEPLOY_KEYS.index(kv[0]) if kv[0] in DEPLOY_KEYS else len(DEPLOY_KEYS))

        spec = cls(
            name=name,
            figure=figure,
            grid=tuple(ordered),
            description=description,
            workload=workload,
            workload_settings={section: fixed[section] for section in WORKLOAD_SETTINGS if fixed[section]},
            engine=fixed["engine"],
            warmup_s=float(warmup),
            duration_s=float(duration),
            repetitions=repetitions,
            seed=seed,
            cpus=cpus,
            virtual_sockets=virtual,
            virtual_delay_us=float(delay),
            profile=profile,
            log=log,
            schedule=schedule,
            controller_interval_s=float(controller_interval),
            probe=probe,
            source=source,
            text=text,
        )
        if "controller_interval_s" in run and not spec.live:
            raise where.error("run.controller_interval_s", "only with a [[schedule]] or grid.adaptive")
        spec._check_live(where, fixed["engine"])
        spec._check_probe(where, fixed["engine"])
        spec._check_configs(where)
        return spec

    @property
    def live(self) -> bool:
        """Whether its points run beside the ATraPos controller (a schedule or grid.adaptive)."""
        return bool(self.schedule) or any(k == "adaptive" for k, _ in self.grid)

    def live_run(self, chosen: Mapping[str, Any]) -> LiveRun | None:
        """How a point with the grid values ``chosen`` runs beside the controller (None: as
        any other point). Without grid.adaptive a schedule runs static."""
        if not self.live:
            return None
        return LiveRun(bool(chosen.get("adaptive", False)), self.schedule, self.controller_interval_s)

    def _check_live(self, where: SpecLocation, engine: Mapping[str, Any]) -> None:
        """A schedule or grid.adaptive needs PLP (every design and execution the grid names)
        and its monitor, and no log (it runs in this process)."""
        if not self.live:
            return
        holder = "schedule" if self.schedule else "grid.adaptive"
        for i, e in enumerate(self.schedule):
            if e.settings and self.workload not in CHANGE_WORKLOADS:
                raise where.error(
                    f"schedule[{i}].{e.settings[0][0]}",
                    f"{self.workload} cannot change its draw while it runs ({', '.join(CHANGE_WORKLOADS)} can)",
                )
        grid = dict(self.grid)
        for design in grid.get("design", ()):
            execution = DESIGNS[design].engine.get("execution", "shared_everything")
            if execution != "plp":
                raise where.error(
                    holder, f"runs PLP only (the ATraPos controller adapts it); grid.design {design!r} is not"
                )
        if "design" not in grid:
            for execution in grid.get("execution", (engine.get("execution", "shared_everything"),)):
                if execution != "plp":
                    raise where.error(holder, f'runs PLP only: set engine.execution = "plp" (not {execution!r})')
        if self.log:
            raise where.error("log", f"not with a {holder} (those runs are in this process, unlogged)")
        monitors = grid.get("plp_monitor", (engine.get("plp_monitor", True),))
        if False in monitors:
            raise where.error(holder, "reads the PLP monitor: leave engine.plp_monitor out or true")

    def _check_probe(self, where: SpecLocation, engine: Mapping[str, Any]) -> None:
        """A [probe] runs beside one PLP instance in this process: PLP (every design and
        execution the grid names), deployment "1", no log, no schedule or grid.adaptive (the
        controller would re-partition beside it); monitor_overhead reads the monitor."""
        if self.probe is None:
            return
        if self.live:
            holder = "schedule" if self.schedule else "grid.adaptive"
            raise where.error(holder, "not with a [probe] (the ATraPos controller would re-partition beside it)")
        grid = dict(self.grid)
        executions = [DESIGNS[d].engine.get("execution", "shared_everything") for d in grid.get("design", ())]
        if "design" not in grid:
            executions = list(grid.get("execution", (engine.get("execution", "shared_everything"),)))
        for execution in executions:
            if execution != "plp":
                raise where.error("probe", f'runs beside PLP: set engine.execution = "plp" (not {execution!r})')
        for deployment in grid.get("deployment", ()):
            if deployment not in ("1", 1):
                raise where.error("grid.deployment", f"{deployment!r}: a [probe] runs one instance (deployment 1)")
        if self.log:
            raise where.error("log", "not with a [probe] (its runs are in this process, unlogged)")
        monitors = grid.get("plp_monitor", (engine.get("plp_monitor", True),))
        if self.probe.kind == "monitor_overhead" and False in monitors:
            raise where.error("probe", "monitor_overhead switches the monitor's recording: keep engine.plp_monitor")

    def _check_configs(self, where: SpecLocation) -> None:
        """Let the engine's own validation judge every fixed and grid value, one at a time,
        so that the error names the key that holds the bad value."""
        base = self.base_config(n_cpus=1)
        grid_keys = [k for k, _ in self.grid]
        # Fields are judged here; whether a scale fits a deployment (memory, key ranges) is
        # judged per point: here on 2 sites (enough for any remote share, and no larger than
        # the deployments of a 2-core machine, so that a load too big for 64 sites is not
        # refused on a machine that runs 2), the default workload on its one CPU as before
        # the others came (its one scale check, the key range, is then judged per point).
        sites = None if self.workload == DEFAULT_WORKLOAD else 2
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
                if part == "engine" and _is_resolved(self.engine.get("cc", "auto")) and "cc" not in grid_keys:
                    # as run_config resolves it
                    cc = _resolve_cc(
                        self.engine.get("cc", "auto"), (1,), config.engine.execution, config.engine.isolation
                    )
                    config = dataclasses.replace(config, engine=dataclasses.replace(config.engine, cc=cc))
                try:
                    config.to_core(total_sites=sites)
                except ValueError as e:
                    holder, why = _spec_key(e, self.workload, [key])
                    raise where.error(f"grid.{key}", f"{value!r}: {why if holder == f'grid.{key}' else e}") from None
        if any(e.settings for e in self.schedule):  # mix and skew changes: the engine's parsers too
            check_changes(base, self.schedule, where.error)

    def base_config(self, n_cpus: int = 1) -> RunConfig:
        """The run config of the fixed settings with every grid key at its first value, on
        cpus ``0..n_cpus-1`` (used to check values; points replace the cpus)."""
        first = {k: v[0] for k, v in self.grid}
        return self.run_config(first, cpus=tuple(range(n_cpus)), sizes=(n_cpus,))

    def run_config(
        self, chosen: Mapping[str, Any], *, cpus: tuple[int, ...], sizes: Sequence[int], pin: bool = True
    ) -> RunConfig:
        """The run config of the fixed settings with the grid values ``chosen`` (a point's;
        keys that are no config field, such as ``deployment``, are left out), run on ``cpus``
        by instances of ``sizes`` CPUs (``cc = "auto"`` is resolved by them)."""
        workloads = {
            section: klass(
                **{**self.fixed(section), **{k: v for k, v in chosen.items() if _goes_to(k, section, self.workload)}}
            )
            for section, klass in WORKLOAD_SETTINGS.items()
        }
        design = DESIGNS[chosen["design"]].engine if "design" in chosen else {}
        engine = {**self.engine, **design, **{k: v for k, v in chosen.items() if k in ENGINE_FIELDS}}
        if self.live:  # the controller reads the monitor
            engine["plp_monitor"] = True
        engine["cc"] = _resolve_cc(
            engine.get("cc", "auto"),
            sizes,
            engine.get("execution", "shared_everything"),
            engine.get("isolation", "serializable"),
        )
        # A read-only series writes no log record: it runs unlogged (as the paper's reads did),
        # in process where it is one instance, and keeps the config hash it had without [log].
        read_only = self.workload == "micro" and not workloads["micro"].update
        config = RunConfig(
            workload=self.workload,
            **workloads,
            engine=EngineConfig(**engine),
            driver=DriverConfig(cpus=cpus, pin=pin, warmup_s=self.warmup_s, duration_s=self.duration_s, seed=self.seed),
            profile=self.profile_config(),
            log=LogConfig() if read_only else self.log_config(),
        )
        return self.probe.prepare(config) if self.probe is not None else config

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
            cache_model=self.profile.get("cache_model", ""),
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
        if self.virtual_sockets is not None:  # only where given: other specs keep their hashes
            run["virtual_sockets"] = self.virtual_sockets
        if self.virtual_delay_us:
            run["virtual_delay_us"] = self.virtual_delay_us
        if self.live:  # only where given: other specs keep their hashes
            run["controller_interval_s"] = self.controller_interval_s
        extra: dict[str, Any] = {"profile": {k: _plain(v) for k, v in self.profile.items()}} if self.profile else {}
        if self.log:  # only where given: specs without a log keep their hashes
            extra["log"] = {k: _plain(v) for k, v in self.log.items()}
        if self.probe is not None:  # only where given: other specs keep their hashes
            extra["probe"] = self.probe.to_dict()
        if self.schedule:
            extra["schedule"] = [
                {"at_s": e.at_s, **dict(e.settings)} if e.settings else {"at_s": e.at_s, e.kind: list(e.workers)}
                for e in self.schedule
            ]
        out = {
            "name": self.name,
            "figure": self.figure,
            "description": self.description,
            "workload": self.workload,
            "run": run,
            "grid": {k: [_plain(v) for v in values] for k, values in self.grid},
            DEFAULT_WORKLOAD: _fixed(WORKLOAD_SETTINGS[DEFAULT_WORKLOAD](), self.fixed(DEFAULT_WORKLOAD), grid_keys),
            "engine": _fixed(EngineConfig(cc="auto"), self.engine, grid_keys),
            **extra,
        }
        if self.live and "plp_monitor" not in grid_keys:  # what its runs use (run_config sets it)
            out["engine"]["plp_monitor"] = True
        if self.probe is not None and self.probe.kind == "monitor_overhead" and "plp_monitor" not in grid_keys:
            out["engine"]["plp_monitor"] = True  # as its runs have it (Probe.prepare)
        # The default workload's table always (specs from before the other workloads keep
        # their hashes); another workload's only where it is used.
        for section, klass in WORKLOAD_SETTINGS.items():
            if section != DEFAULT_WORKLOAD and (WORKLOADS.get(self.workload) == section or self.fixed(section)):
                out[section] = _fixed(klass(), self.fixed(section), grid_keys)
        return out

    def spec_hash(self) -> str:
        """Stable hash of everything that decides what a point measures (the description
        and the number of repetitions left out: more repetitions only add runs)."""
        d = self.to_dict()
        d.pop("description")
        d["run"].pop("repetitions")
        return stable_hash(d)

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


def _section_of(key: str, workload: str = DEFAULT_WORKLOAD) -> str:
    """The config section (a workload's or engine) holding a [grid] key (the workload's own
    where several have it)."""
    own = WORKLOADS.get(workload, workload)
    if key in SHARED_FIELDS and key in SECTION_FIELDS.get(own, {}):
        return own
    return next(name for name, fields_ in SECTION_FIELDS.items() if key in fields_)


def _goes_to(key: str, section: str, workload: str) -> bool:
    """Whether a [grid] key's value belongs in ``section`` of a ``workload`` experiment."""
    return key in SECTION_FIELDS[section] and _section_of(key, workload) == section


def _check_profile(where: SpecLocation, table: Mapping[str, Any]) -> dict[str, Any]:
    from islands.measure.pmu import EVENT_SETS

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
        elif key == "cache_model":
            from islands.measure.cache_models import CACHE_MODELS

            if not isinstance(value, str) or value not in CACHE_MODELS:
                raise where.error(
                    "profile.cache_model", f"{value!r} is not a cache model (known: {', '.join(CACHE_MODELS)})"
                )
            out[key] = value
        elif key == "modules":
            if not isinstance(value, bool):
                raise where.error("profile.modules", f"{value!r} is not true or false")
            out[key] = value
        else:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise where.error(f"profile.{key}", f"{value!r} is not a whole number >= 0")
            out[key] = value
    return out


def _check_log(where: SpecLocation, table: Mapping[str, Any]) -> dict[str, Any]:
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
        key, why = _spec_key(e, DEFAULT_WORKLOAD, [])
        raise where.error(key if key.startswith("log.") else "log", why if key.startswith("log.") else str(e)) from None
    return out


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


def _resolve_cc(
    cc: str | Mapping[str, str],
    sizes: Sequence[int],
    execution: str = "shared_everything",
    isolation: str = "serializable",
) -> str:
    """``auto``: single-threaded instances run without locks (``none``), others ``2pl``; PLP
    (engine.execution) always ``2pl``, its partitions' locks. A table of schemes by isolation
    level (``cc = {serializable = "table_2pl", snapshot = "mvcc"}``): the scheme of the point's
    level (004 Fig 4: a table-locking engine whose snapshot level is its multi-version mode)."""
    if isinstance(cc, Mapping):
        return cc[isolation]
    if cc != "auto":
        return cc
    return "none" if max(sizes) == 1 and execution != "plp" else "2pl"


def _is_resolved(cc: Any) -> bool:
    """Whether run_config resolves `cc` per point (``auto``, or a scheme per level)."""
    return cc == "auto" or isinstance(cc, Mapping)


def _check_cc_by_level(where: SpecLocation, value: Mapping[str, Any]) -> dict[str, str]:
    """``engine.cc`` as a table of schemes by isolation level: each key a level, each value a scheme."""
    from islands import _core  # late: this module imports without the engine (tests/test_layers.py)

    levels = next(f["choices"] for f in _core.settings()["engine"] if f["name"] == "isolation")
    out: dict[str, str] = {}
    for level, scheme in value.items():
        if level not in levels:
            raise where.error(f"engine.cc.{level}", f"{level!r} is not an isolation level (choose {', '.join(levels)})")
        out[level] = _check_value(where, f"engine.cc.{level}", "cc", scheme)
    return out
