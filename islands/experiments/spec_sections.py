"""The sections of an experiment file, each checked on its own: the header (name, figure,
workload), [run], the fixed tables ([micro], [engine], ...), [grid], [profile] and [log]. Every
error names the file, the key and, where known, its line (:class:`SpecLocation`).
:mod:`islands.experiments.spec` puts the checked sections together into an ``ExperimentSpec``."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import hashlib
import json
import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from islands.analysis.guarded_files import linked_component
from islands.config.settings import (
    DEFAULT_WORKLOAD,
    WORKLOAD_SETTINGS,
    WORKLOADS,
    DriverConfig,
    EngineConfig,
    LogConfig,
    RunConfig,
    default_log_root,
    resolve_field,
)
from islands.config.workload_registry import workload
from islands.figures.designs import DESIGN_ENGINE_KEYS, DESIGNS
from islands.machine.topology import parse_cpulist

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
#: The client layer's settings (DriverConfig's; exec/client_driver.hpp): an experiment's [clients]
#: table and grid keys (``offered_rate`` swept for a latency-throughput curve).
CLIENT_FIELDS = {
    f.name: f
    for f in dataclasses.fields(DriverConfig)
    if f.name in ("clients", "client_count", "think_us", "offered_rate")
}
SECTION_FIELDS = {**WORKLOAD_FIELDS, "engine": ENGINE_FIELDS, "clients": CLIENT_FIELDS}
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
    "precision",
    "budget_s",
    "max_repetitions",
    "compare",
    "steady_warmup",
    "sysfs",
    "oversubscribe",
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


def unknown_key(key: str, known: Iterable[str]) -> str:
    known = sorted(known)
    close = difflib.get_close_matches(key.rsplit(".", 1)[-1], known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown key{hint} (known: {', '.join(known)})"


def _field_type(name: str) -> str:
    f = next(fields_[name] for fields_ in SECTION_FIELDS.values() if name in fields_)
    return str(f.type)


@functools.cache
def _int_minimum(name: str) -> int:
    """The smallest value the engine's settings schema allows an int field called ``name``
    (the engine checks the rest of its range when the run is configured)."""
    from islands import _core

    lows = [f["min"] for fields_ in _core.settings().values() for f in fields_ if f["name"] == name]
    return int(min(lows)) if lows and lows[0] is not None else 0


def check_value(where: SpecLocation, key: str, name: str, value: Any) -> Any:
    """A grid or fixed value of config field ``name``, type-checked (ints for int fields,
    numbers for float fields, true/false for bool fields, text for str fields)."""
    kind = _field_type(name)
    if kind == "bool":
        if not isinstance(value, bool):
            raise where.error(key, f"{value!r} is not true or false")
        return value
    if kind == "int":
        low = min(0, _int_minimum(name))  # a negative setting (engine.interleave -1: auto) is allowed
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise where.error(key, f"{value!r} is not a whole number >= {low}")
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise where.error(key, f"{value!r} is not a number")
        return float(value)
    if not isinstance(value, str):
        raise where.error(key, f"{value!r} is not text")
    return value


def value_range(where: SpecLocation, key: str, table: Mapping[str, Any]) -> list[Any]:
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


def spec_key(error: ValueError, workload: str, grid_keys: Sequence[str]) -> tuple[str, str]:
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
        if name in CLIENT_FIELDS:
            return f"clients.{name}", why
        return (f"run.{name}" if name in RUN_KEYS else "run"), why
    return (name if name in TOP_KEYS else "run"), why


def section_of(key: str, workload: str = DEFAULT_WORKLOAD) -> str:
    """The config section (a workload's or engine) holding a [grid] key (the workload's own
    where several have it)."""
    own = WORKLOADS.get(workload, workload)
    if key in SHARED_FIELDS and key in SECTION_FIELDS.get(own, {}):
        return own
    return next(name for name, fields_ in SECTION_FIELDS.items() if key in fields_)


def goes_to(key: str, section: str, workload: str) -> bool:
    """Whether a [grid] key's value belongs in ``section`` of a ``workload`` experiment."""
    return key in SECTION_FIELDS[section] and section_of(key, workload) == section


def parse_profile(table: Mapping[str, Any], where: SpecLocation) -> dict[str, Any]:
    """[profile]: event sets the engine knows, a cache model by name, counts >= 0."""
    from islands.measure.pmu import EVENT_SETS

    out: dict[str, Any] = {}
    for key, value in table.items():
        if key not in PROFILE_KEYS:
            raise where.error(f"profile.{key}", unknown_key(key, PROFILE_KEYS))
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


def parse_log(table: Mapping[str, Any], where: SpecLocation) -> dict[str, Any]:
    """[log]: LogConfig's fields of their types, a mode that logs, a directory that exists, and
    what the engine's own validation accepts."""
    if not table:
        return {}
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key not in LOG_KEYS:
            raise where.error(f"log.{key}", unknown_key(key, LOG_KEYS))
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
    link = linked_component(directory) if isinstance(directory, str) else None
    if isinstance(directory, str) and link is not None:  # as --log-dir: runs would log through it
        itself = link == Path(os.path.abspath(directory))
        under = "is a symbolic link" if itself else f"lies under a symbolic link, {link}"
        real = os.path.realpath(directory)
        raise where.error("log.directory", f"{directory!r} {under} (refused: name the directory itself, {real})")
    # Checked alone, without the workload and engine each point runs: a command log is checked
    # against those where each point's settings are (here, only that the value is a choice).
    alone = {**out, "content": "redo"} if out.get("content") == "command" else out
    try:
        RunConfig(log=LogConfig(**{"directory": default_log_root(), **alone})).to_core()
    except ValueError as e:
        key, why = spec_key(e, DEFAULT_WORKLOAD, [])
        raise where.error(key if key.startswith("log.") else "log", why if key.startswith("log.") else str(e)) from None
    return out


def check_cc_by_level(where: SpecLocation, value: Mapping[str, Any]) -> dict[str, str]:
    """``engine.cc`` as a table of schemes by isolation level: each key a level, each value a scheme."""
    from islands import _core  # late: this module imports without the engine (tests/test_layers.py)

    levels = next(f["choices"] for f in _core.settings()["engine"] if f["name"] == "isolation")
    out: dict[str, str] = {}
    for level, scheme in value.items():
        if level not in levels:
            raise where.error(f"engine.cc.{level}", f"{level!r} is not an isolation level (choose {', '.join(levels)})")
        out[level] = check_value(where, f"engine.cc.{level}", "cc", scheme)
    return out


@dataclass(frozen=True)
class Header:
    """The experiment's name (its results directory), the figure it feeds, its prose and its
    workload."""

    name: str
    figure: str
    description: str
    workload: str


def parse_header(d: Mapping[str, Any], where: SpecLocation) -> Header:
    """The top-level keys: every one known, ``name`` and ``figure`` given and well formed."""
    for key in d:
        if key not in TOP_KEYS:
            raise where.error(key, unknown_key(key, TOP_KEYS))

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
        raise where.error("figure", f"{figure!r} is not a figure id (docs/figures.md) such as '000-fig11' (or 'none')")
    workload_name = text_value("workload", DEFAULT_WORKLOAD)
    try:
        workload(workload_name)
    except ValueError as e:
        raise where.error("workload", str(e)) from None
    return Header(name, figure, text_value("description", ""), workload_name)


def section_tables(d: Mapping[str, Any], where: SpecLocation) -> dict[str, Mapping[str, Any]]:
    """The file's tables ([run], [grid], each settings table, [profile], [log]), empty where
    not given; each must be a table."""
    tables: dict[str, Mapping[str, Any]] = {}
    for table in ("run", "grid", *SECTION_FIELDS, "profile", "log"):
        value = d.get(table, {})
        if not isinstance(value, Mapping):
            raise where.error(table, "must be a table ([" + table + "])")
        tables[table] = value
    return tables


@dataclass(frozen=True)
class RunSection:
    """[run], checked: the measured window, repetitions, seed, cpus and virtual topology."""

    warmup_s: float = 1.0
    duration_s: float = 5.0
    repetitions: int = 1
    seed: int = 1
    cpus: tuple[int, ...] | None = None
    virtual_sockets: int | None = None
    virtual_delay_us: float = 0.0
    controller_interval_s: float = 1.0
    #: repeat until the compared ratio's interval is this tight (islands.experiments.precision)
    precision: float | None = None
    budget_s: float | None = None  #: seconds of runs the sweep may spend in all, with precision
    max_repetitions: int = 20  #: with precision: repetitions of a point at most
    compare: tuple[str, ...] = ("deployment",)  #: with precision: the grid keys whose values are compared
    #: the warm-up ends where the timeline is steady, at a cap (islands.measure.steady_warmup);
    #: false: after the fixed warmup_s; None (not given): true unless the runs change their
    #: throughput on purpose (a [[schedule]] or grid.adaptive)
    steady_warmup: bool | None = None
    #: plan on the machine this sysfs tree describes (a server's), with oversubscribe
    sysfs: str | None = None
    #: run the deployments planned on ``sysfs`` packed onto this machine's CPUs (functional runs)
    oversubscribe: bool = False


#: The longest warm-up or measured window of a run (the engine's driver.duration_s range).
MAX_SECONDS = 86400.0
#: The most repetitions of a point: beyond it a sweep is a mistyped number, not a study.
MAX_REPETITIONS = 1000
#: The largest seed (the engine's is an unsigned 64-bit number).
MAX_SEED = 2**64 - 1
#: The most made-up sockets of a virtual topology.
MAX_VIRTUAL_SOCKETS = 1024


def _seconds(where: SpecLocation, key: str, value: Any, positive: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise where.error(f"run.{key}", f"{value!r} is not a number of seconds")
    if value < 0 or (positive and value <= 0) or value > MAX_SECONDS:
        low = "> 0" if positive else ">= 0"
        raise where.error(f"run.{key}", f"{value!r} must be {low} and at most {MAX_SECONDS:g} (a day)")
    return float(value)


def _whole(where: SpecLocation, key: str, value: Any, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f" and at most {high}" if high is not None else ""
        raise where.error(key, f"{value!r} is not a whole number >= {low}{bound}")
    return value


def _cpus(where: SpecLocation, cpus: Any) -> tuple[int, ...]:
    try:
        if isinstance(cpus, str):
            out = tuple(parse_cpulist(cpus))
        elif isinstance(cpus, list) and all(isinstance(c, int) and not isinstance(c, bool) for c in cpus):
            out = tuple(cpus)
        else:
            raise ValueError(f"{cpus!r} is not a cpu list such as '0-7' or [0, 1]")
    except ValueError as e:
        raise where.error("run.cpus", str(e)) from None
    if not out:
        raise where.error("run.cpus", "the list is empty")
    return out


def parse_run(run: Mapping[str, Any], where: SpecLocation) -> RunSection:
    """[run]: every key known, each value in its range (checked in this order)."""
    for key in run:
        if key not in RUN_KEYS:
            raise where.error(f"run.{key}", unknown_key(key, RUN_KEYS))
    warmup = _seconds(where, "warmup_s", run.get("warmup_s", 1.0), positive=False)
    duration = _seconds(where, "duration_s", run.get("duration_s", 5.0), positive=True)
    repetitions = _whole(where, "run.repetitions", run.get("repetitions", 1), 1, MAX_REPETITIONS)
    seed = _whole(where, "run.seed", run.get("seed", 1), 0, MAX_SEED)
    cpus = _cpus(where, run["cpus"]) if run.get("cpus") is not None else None
    virtual = run.get("virtual_sockets")
    if virtual is not None:
        _whole(where, "run.virtual_sockets", virtual, 1, MAX_VIRTUAL_SOCKETS)
    delay = run.get("virtual_delay_us", 0.0)
    if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not 0 <= delay <= 1e6:
        raise where.error("run.virtual_delay_us", f"{delay!r} is not a delay in [0, 1000000] microseconds")
    if delay and virtual is None:
        raise where.error("run.virtual_delay_us", "only with run.virtual_sockets")
    interval = run.get("controller_interval_s", 1.0)
    if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not 0 < interval <= 3600:
        raise where.error("run.controller_interval_s", f"{interval!r} is not a number of seconds in (0, 3600]")
    precision = run.get("precision")
    if precision is not None and (
        isinstance(precision, bool) or not isinstance(precision, (int, float)) or not 0 < precision < 1
    ):
        raise where.error("run.precision", f"{precision!r} is not a half-width in (0, 1) (0.05: ±5%)")
    for key in ("budget_s", "max_repetitions", "compare"):
        if key in run and precision is None:
            raise where.error(f"run.{key}", "only with run.precision")
    budget = _seconds(where, "budget_s", run["budget_s"], positive=True) if "budget_s" in run else None
    most = _whole(where, "run.max_repetitions", run.get("max_repetitions", 20), 2)
    if precision is not None and repetitions < 2:
        raise where.error("run.repetitions", "with run.precision: at least 2 (an interval needs two runs)")
    if most < repetitions:
        raise where.error("run.max_repetitions", f"{most} is fewer than run.repetitions ({repetitions})")
    compare = run.get("compare", ["deployment"])
    compare = [compare] if isinstance(compare, str) else compare
    if not isinstance(compare, list) or not compare or not all(isinstance(k, str) for k in compare):
        raise where.error("run.compare", f"{compare!r} is not a grid key or a list of them")
    steady = run.get("steady_warmup")
    if steady is not None and not isinstance(steady, bool):
        raise where.error("run.steady_warmup", f"{steady!r} is not true or false")
    sysfs = run.get("sysfs")
    if sysfs is not None and (not isinstance(sysfs, str) or not sysfs.strip()):
        raise where.error("run.sysfs", f"{sysfs!r} is not the path of a sysfs tree")
    oversubscribe = run.get("oversubscribe", False)
    if not isinstance(oversubscribe, bool):
        raise where.error("run.oversubscribe", f"{oversubscribe!r} is not true or false")
    if sysfs is not None and not oversubscribe:
        raise where.error(
            "run.sysfs", "plans on another machine, whose cpus this one lacks: add run.oversubscribe = true"
        )
    if oversubscribe and sysfs is None:
        raise where.error("run.oversubscribe", "runs deployments planned on another machine: name it with run.sysfs")
    if oversubscribe and precision is not None:
        raise where.error("run.precision", "compares throughputs, which functional runs (run.oversubscribe) are not")
    if oversubscribe and virtual is not None:
        raise where.error("run.virtual_sockets", "not with run.oversubscribe (the plan is run.sysfs's machine)")
    return RunSection(
        warmup,
        duration,
        repetitions,
        seed,
        cpus,
        virtual,
        float(delay),
        float(interval),
        float(precision) if precision is not None else None,
        budget,
        most,
        tuple(compare),
        steady,
        sysfs,
        oversubscribe,
    )


def parse_fixed(tables: Mapping[str, Mapping[str, Any]], where: SpecLocation) -> dict[str, dict[str, Any]]:
    """Each settings table's fixed values (every settings table, empty where not given): known
    fields of the right type, none also in [grid]."""
    fixed: dict[str, dict[str, Any]] = {table: {} for table in SECTION_FIELDS}
    for table, fields_ in SECTION_FIELDS.items():
        for key, value in tables[table].items():
            if key not in fields_:
                raise where.error(f"{table}.{key}", unknown_key(key, fields_))
            if key in tables["grid"]:
                raise where.error(f"{table}.{key}", "set in both [grid] and [" + table + "]")
            if table == "engine" and key == "cc" and value == "auto":
                fixed[table][key] = value
            elif table == "engine" and key == "cc" and isinstance(value, Mapping):
                fixed[table][key] = check_cc_by_level(where, value)
            else:
                fixed[table][key] = check_value(where, f"{table}.{key}", key, value)
    return fixed


def _grid_deployment(where: SpecLocation, key: str, value: Any) -> Any:
    ok = (isinstance(value, (str, int)) and not isinstance(value, bool)) or (
        isinstance(value, list)
        and value
        and all(isinstance(i, list) and all(isinstance(c, int) for c in i) for i in value)
    )
    if not ok:
        raise where.error(key, f"{value!r} is not a deployment (1, 'per-socket', '4ISL', '0-3;4-7', ...)")
    return tuple(tuple(i) for i in value) if isinstance(value, list) else value


def _grid_choice(choices: Callable[[], Sequence[str]]) -> Callable[[SpecLocation, str, Any], Any]:
    def check(where: SpecLocation, key: str, value: Any) -> Any:
        known = choices()
        if value not in known:
            raise where.error(key, f"{value!r}: choose one of {', '.join(known)}")
        return value

    return check


def _grid_transport(where: SpecLocation, key: str, value: Any) -> Any:
    transports = known_transports()
    if value not in (*transports, "none"):
        raise where.error(key, f"unknown transport {value!r} (choose {', '.join(transports)}, or none)")
    return value


def _grid_cores(where: SpecLocation, key: str, value: Any) -> Any:
    if value != "all" and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise where.error(key, f"{value!r} is not a number of cores (a positive integer or 'all')")
    return value


def _grid_adaptive(where: SpecLocation, key: str, value: Any) -> Any:
    if not isinstance(value, bool):
        raise where.error(key, f"{value!r} is not true or false")
    return value


#: The check of each [grid] key that is not a config field (DEPLOY_KEYS).
_GRID_CHECKS: dict[str, Callable[[SpecLocation, str, Any], Any]] = {
    "deployment": _grid_deployment,
    "placement": _grid_choice(lambda: GRID_PLACEMENTS),
    "transport": _grid_transport,
    "cores": _grid_cores,
    "design": _grid_choice(lambda: tuple(DESIGNS)),
    "adaptive": _grid_adaptive,
}


def parse_grid(table: Mapping[str, Any], where: SpecLocation) -> dict[str, tuple[Any, ...]]:
    """[grid]: each key a deployment key or a config field, its values (a list, one value or a
    range) each checked, none twice."""
    known = DEPLOY_KEYS + tuple(k for fields_ in SECTION_FIELDS.values() for k in fields_)
    grid: dict[str, tuple[Any, ...]] = {}
    for key, raw in table.items():
        dotted = f"grid.{key}"
        if key not in known:
            raise where.error(dotted, unknown_key(key, known))
        values = (
            value_range(where, dotted, raw) if isinstance(raw, Mapping) else raw if isinstance(raw, list) else [raw]
        )
        if not values:
            raise where.error(dotted, "the list is empty")
        checked: list[Any] = []
        for value in values:
            if key in _GRID_CHECKS:
                value = _GRID_CHECKS[key](where, dotted, value)
            elif not (key == "cc" and value == "auto"):
                value = check_value(where, dotted, key, value)
            if value in checked:
                raise where.error(dotted, f"lists {value!r} twice")
            checked.append(value)
        grid[key] = tuple(checked)
    return grid


def order_grid(
    grid: Mapping[str, tuple[Any, ...]], fixed: Mapping[str, Mapping[str, Any]], where: SpecLocation
) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """The grid with its defaults (deployment 1, placement islands, transport unix), the
    deployment keys first in DEPLOY_KEYS' order; a design names its own deployment and engine
    settings, so neither may be given beside it."""
    defaults: dict[str, tuple[Any, ...]] = {"deployment": ("1",), "placement": ("islands",), "transport": ("unix",)}
    if "design" in grid:
        if "deployment" in grid:
            raise where.error("grid.deployment", "not with grid.design (each design names its deployment)")
        for key in DESIGN_ENGINE_KEYS:
            if key in grid or key in fixed["engine"]:
                holder = f"grid.{key}" if key in grid else f"engine.{key}"
                raise where.error(holder, "not with grid.design (each design sets it)")
        del defaults["deployment"]
    ordered = [(k, v) for k, v in defaults.items() if k not in grid] + list(grid.items())
    ordered.sort(key=lambda kv: DEPLOY_KEYS.index(kv[0]) if kv[0] in DEPLOY_KEYS else len(DEPLOY_KEYS))
    return tuple(ordered)
