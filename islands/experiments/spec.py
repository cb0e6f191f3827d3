"""Experiment files: the TOML schema of a sweep, parsed and checked into an
:class:`ExperimentSpec` (errors name the file, the key and its line).

An experiment file (``experiments/*.toml``) says what to run; nothing in it is specific to
one machine, because deployments may be written relative to the topology (``1``,
``per-socket``, ``per-core``, ``all``; see :func:`islands.machine.placement.expand_relative`)::

    name = "000-fig11-multisite"      # results go to results/<name>/ by default
    figure = "000-fig11"              # the figure it feeds (docs/figures.md) ("none" if none)
    description = "..."               # optional prose
    workload = "<name>"               # optional (default: the engine's first workload, micro)

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
    precision = 0.05                  # repeat, interleaved, until every compared ratio's 95%
                                      # interval excludes 1 or is within ±5% (then
                                      # repetitions is the minimum, at least 2)
    budget_s = 180                    # with precision: seconds of runs in all, at most
                                      # (a resumed sweep counts what it spent before)
    max_repetitions = 20              # with precision: runs of a point at most (default 20)
    compare = ["deployment"]          # with precision: the grid keys compared (default
                                      # deployment): points equal in every other key
    steady_warmup = true              # (the default) after warmup_s, the warm-up goes on
                                      # into the window until the throughput timeline is
                                      # steady, at most to warmup_s + half the window (the
                                      # cap; islands.measure.steady_warmup): throughput_tps
                                      # is the rate from there, throughput_window_tps the
                                      # whole window's, noise.steady false where the cap
                                      # ended it; false: warm-up is warmup_s, fixed (the
                                      # default, and the only choice, with a [[schedule]]
                                      # or grid.adaptive: their throughput changes on purpose)

    [grid]                            # every key is a list of values (or one value);
    deployment = ["1", "per-socket", "per-core"]   # the sweep runs their product:
    placement = ["islands"]           # deployment, placement, transport, cores outermost,
    transport = ["unix"]              # then the others as written, the last varying fastest
                                      # ("none": instances never talk; local work only)
    cores = [1, 2, 4, 8, "all"]       # optional: deploy on the first N cpus only (larger N
                                      # than the machine has are skipped with a note)
    design = ["centralized", "plp"]   # optional, instead of deployment: paper 002's baselines
                                      # (islands.figures.designs: shared-nothing, centralized, plp,
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
import math
import os
import stat
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from islands.atrapos.events import Event, check_changes
from islands.config.settings import (
    DEFAULT_WORKLOAD,
    WORKLOAD_SETTINGS,
    WORKLOADS,
    DriverConfig,
    EngineConfig,
    LogConfig,
    ProfileConfig,
    RunConfig,
    default_cc,
    default_lock_policy,
    default_log_root,
)
from islands.config.workload_registry import changing, writes
from islands.experiments.probes import Probe, parse_probe
from islands.experiments.schedule import LiveRun, parse_schedule
from islands.experiments.spec_sections import (
    CLIENT_FIELDS,
    DEPLOY_KEYS,
    ENGINE_FIELDS,
    MAX_REPETITIONS,
    MAX_SECONDS,
    SpecLocation,
    goes_to,
    order_grid,
    parse_fixed,
    parse_grid,
    parse_header,
    parse_log,
    parse_profile,
    parse_run,
    section_of,
    section_tables,
    spec_key,
    stable_hash,
)
from islands.figures.designs import DESIGNS
from islands.machine.topology import format_cpulist

__all__ = ["ExperimentSpec", "load_spec"]


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
    #: the [clients] table: the client layer's fixed settings (driver.clients and its numbers)
    clients: Mapping[str, Any] = field(default_factory=dict)
    warmup_s: float = 1.0
    duration_s: float = 5.0
    repetitions: int = 1
    seed: int = 1
    cpus: tuple[int, ...] | None = None
    virtual_sockets: int | None = None  #: plan on this many made-up sockets (None: the real ones)
    virtual_delay_us: float = 0.0  #: with virtual_sockets: delay injected on messages between them
    #: plan on the machine this sysfs tree describes (relative: to the working directory, else to
    #: the file's); with ``oversubscribe`` its deployments run packed onto this machine (functional runs)
    sysfs: str | None = None
    oversubscribe: bool = False
    profile: Mapping[str, Any] = field(default_factory=dict)  #: the [profile] table, checked
    log: Mapping[str, Any] = field(default_factory=dict)  #: the [log] table, checked
    #: the [[schedule]] events, checked, in the file's order (islands.experiments.schedule)
    schedule: tuple[Event, ...] = ()
    controller_interval_s: float = 1.0  #: the ATraPos controller's first interval (live runs)
    probe: Probe | None = None  #: the [probe] measured beside each run (islands.experiments.probes), if any
    #: repeat until each compared ratio is conclusive to this half-width (None: repetitions runs)
    precision: float | None = None
    budget_s: float | None = None  #: with precision: seconds of runs in all, at most
    max_repetitions: int = 20  #: with precision: runs of a point at most
    compare: tuple[str, ...] = ("deployment",)  #: with precision: the grid keys compared
    #: the warm-up ends where the timeline is steady, at a cap: throughput_tps from there
    #: (islands.measure.steady_warmup); false: after the fixed warmup_s
    steady_warmup: bool = True
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
        if section == "clients":
            return self.clients
        return self.workload_settings.get(section, {})

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], source: str = "<memory>", text: str | None = None) -> ExperimentSpec:
        """Check a parsed experiment file; ``text`` (the file's text) lets errors name the
        line. Raises ``ValueError`` as ``file:line: key: why`` for the first problem."""
        where = SpecLocation(source, text)
        header = parse_header(d, where)
        tables = section_tables(d, where)
        run = parse_run(tables["run"], where)
        schedule = parse_schedule(d["schedule"], run.duration_s, where.error) if "schedule" in d else ()
        probe = parse_probe(d["probe"], where.error) if "probe" in d else None
        fixed = parse_fixed(tables, where)
        profile = parse_profile(tables["profile"], where)
        log = parse_log(tables["log"], where)
        grid = order_grid(parse_grid(tables["grid"], where), fixed, where)
        # A schedule or grid.adaptive changes the throughput on purpose: no steady state to wait for.
        live = bool(schedule) or any(k == "adaptive" for k, _ in grid)
        if run.steady_warmup and live:
            raise where.error(
                "run.steady_warmup", "a [[schedule]] or grid.adaptive changes the throughput on purpose: set it false"
            )
        spec = cls(
            name=header.name,
            figure=header.figure,
            grid=grid,
            description=header.description,
            workload=header.workload,
            workload_settings={section: fixed[section] for section in WORKLOAD_SETTINGS if fixed[section]},
            engine=fixed["engine"],
            clients=fixed["clients"],
            warmup_s=run.warmup_s,
            duration_s=run.duration_s,
            repetitions=run.repetitions,
            seed=run.seed,
            cpus=run.cpus,
            virtual_sockets=run.virtual_sockets,
            virtual_delay_us=run.virtual_delay_us,
            sysfs=run.sysfs,
            oversubscribe=run.oversubscribe,
            profile=profile,
            log=log,
            schedule=schedule,
            controller_interval_s=run.controller_interval_s,
            probe=probe,
            precision=run.precision,
            budget_s=run.budget_s,
            max_repetitions=run.max_repetitions,
            compare=run.compare,
            steady_warmup=run.steady_warmup if run.steady_warmup is not None else not live,
            source=source,
            text=text,
        )
        if "controller_interval_s" in tables["run"] and not spec.live:
            raise where.error("run.controller_interval_s", "only with a [[schedule]] or grid.adaptive")
        spec._check_live(where, fixed["engine"])
        spec._check_probe(where, fixed["engine"])
        spec._check_configs(where)
        if spec.precision is not None:
            keys = {k for k, _ in spec.grid}
            for key in spec.compare:
                if key not in keys and not (key == "deployment" and "design" in keys):
                    raise where.error("run.compare", f"{key!r} is not a [grid] key (grid: {', '.join(sorted(keys))})")
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
            if e.settings and self.workload not in changing():
                raise where.error(
                    f"schedule[{i}].{e.settings[0][0]}",
                    f"{self.workload} cannot change its draw while it runs ({', '.join(changing())} can)",
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
            key, why = spec_key(e, self.workload, grid_keys)
            raise where.error(key, why) from None
        for key, values in self.grid:
            if key in DEPLOY_KEYS:
                continue
            part = section_of(key, self.workload)
            for value in values:
                if key == "cc" and value == "auto":
                    continue
                attr = "driver" if part == "clients" else part  # the client layer's fields are the driver's
                config = dataclasses.replace(base, **{attr: dataclasses.replace(getattr(base, attr), **{key: value})})
                if part == "engine" and _is_resolved(self.engine.get("cc", "auto")) and "cc" not in grid_keys:
                    # as run_config resolves it
                    try:
                        cc = _resolve_cc(
                            self.engine.get("cc", "auto"), (1,), config.engine.execution, config.engine.isolation
                        )
                    except ValueError as e:
                        raise where.error("engine.cc", str(e).split(": ", 1)[-1]) from None
                    config = dataclasses.replace(config, engine=dataclasses.replace(config.engine, cc=cc))
                try:
                    config.to_core(total_sites=sites)
                except ValueError as e:
                    holder, why = spec_key(e, self.workload, [key])
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
                **{**self.fixed(section), **{k: v for k, v in chosen.items() if goes_to(k, section, self.workload)}}
            )
            for section, klass in WORKLOAD_SETTINGS.items()
        }
        design = DESIGNS[chosen["design"]].engine if "design" in chosen else {}
        engine = {**self.engine, **design, **{k: v for k, v in chosen.items() if k in ENGINE_FIELDS}}
        if self.live:  # the controller reads the monitor
            engine["plp_monitor"] = True
        try:
            engine["cc"] = _resolve_cc(
                engine.get("cc", "auto"),
                sizes,
                engine.get("execution", "shared_everything"),
                engine.get("isolation", "serializable"),
            )
        except ValueError as e:
            raise ValueError(f"{self.source}: {e}") from None
        # Unless the file names one, the deadlock policy the deployment needs (one place decides:
        # islands.config.settings.default_lock_policy); a single instance keeps the config's own.
        engine.setdefault("lock_policy", default_lock_policy(len(sizes)))
        # A read-only series writes no log record: it runs unlogged (as the paper's reads did),
        # in process where it is one instance, and keeps the config hash it had without [log].
        config = RunConfig(
            workload=self.workload,
            **workloads,
            engine=EngineConfig(**engine),
            driver=DriverConfig(
                cpus=cpus,
                pin=pin,
                warmup_s=self.warmup_s,
                duration_s=self.duration_s,
                seed=self.seed,
                **{**self.clients, **{k: v for k, v in chosen.items() if k in CLIENT_FIELDS}},
            ),
            profile=self.profile_config(),
        )
        if writes(config):
            config = dataclasses.replace(config, log=self.log_config())
        return self.probe.prepare(config) if self.probe is not None else config

    def planned_machine(self) -> Path | None:
        """The sysfs tree [run] sysfs names: as written when it exists from the working directory,
        else beside the experiment file; None without one. ``ValueError`` when neither exists."""
        if self.sysfs is None:
            return None
        path = Path(self.sysfs)
        if path.exists() or path.is_absolute() or self.source == "<memory>":
            candidate = path
        else:
            candidate = Path(self.source).parent / path
        if not candidate.exists():
            raise ValueError(f"{self.source}: run.sysfs: {self.sysfs}: no such sysfs tree")
        return candidate

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
        if self.oversubscribe:  # only where given: other specs keep their hashes
            run["sysfs"] = self.sysfs
            run["oversubscribe"] = True
        if self.live:  # only where given: other specs keep their hashes
            run["controller_interval_s"] = self.controller_interval_s
        # Always written: the default changed to true (issue 30), so a spec measured with the
        # fixed warm-up (false) and one measured from the steady state hash apart.
        run["steady_warmup"] = self.steady_warmup
        if self.precision is not None:  # only where given: other specs keep their hashes
            run["precision"] = self.precision
            if self.budget_s is not None:
                run["budget_s"] = self.budget_s
            run["max_repetitions"] = self.max_repetitions
            run["compare"] = list(self.compare)
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
        if self.clients or grid_keys & set(CLIENT_FIELDS):  # only where used: other specs keep their hashes
            defaults = DriverConfig()
            given = {name: getattr(defaults, name) for name in CLIENT_FIELDS} | dict(self.clients)
            out["clients"] = {k: v for k, v in given.items() if k not in grid_keys}
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
        and the number of repetitions left out: more repetitions only add runs; so are the
        precision asked for and its budget)."""
        d = self.to_dict()
        d.pop("description")
        for key in ("repetitions", "precision", "budget_s", "max_repetitions", "compare"):
            d["run"].pop(key, None)
        return stable_hash(d)

    def with_overrides(
        self, duration_s: float | None = None, warmup_s: float | None = None, repetitions: int | None = None
    ) -> ExperimentSpec:
        """The same spec with the command line's ``--duration``/``--warmup``/``--repetitions``."""
        changes: dict[str, Any] = {}
        if duration_s is not None:
            finite = isinstance(duration_s, (int, float)) and math.isfinite(duration_s)
            if not (finite and 0 < duration_s <= MAX_SECONDS):
                raise ValueError(f"--duration: {duration_s!r} must be seconds > 0 and at most {MAX_SECONDS:g}")
            changes["duration_s"] = float(duration_s)
        if warmup_s is not None:
            if not (isinstance(warmup_s, (int, float)) and math.isfinite(warmup_s) and 0 <= warmup_s <= MAX_SECONDS):
                raise ValueError(f"--warmup: {warmup_s!r} must be a number of seconds >= 0 and at most {MAX_SECONDS:g}")
            changes["warmup_s"] = float(warmup_s)
        if repetitions is not None:
            whole = isinstance(repetitions, int) and not isinstance(repetitions, bool)
            if not (whole and 1 <= repetitions <= MAX_REPETITIONS):
                raise ValueError(f"--repetitions: {repetitions!r} must be a whole number from 1 to {MAX_REPETITIONS}")
            changes["repetitions"] = repetitions
        return dataclasses.replace(self, **changes)


def _fixed(defaults: Any, given: Mapping[str, Any], grid_keys: set[str]) -> dict[str, Any]:
    values = {f.name: getattr(defaults, f.name) for f in dataclasses.fields(defaults)}
    values.update(given)
    return {k: v for k, v in values.items() if k not in grid_keys}


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


#: The largest experiment file read (the biggest checked-in one is a few KiB).
MAX_SPEC_BYTES = 1 << 20


def load_spec(path: str | Path) -> ExperimentSpec:
    """Read and check an experiment file. Raises ``ValueError`` (one line, naming the file,
    the key and where known the line) for a missing file, bad TOML or a bad key or value."""
    path = Path(path)
    try:
        # Non-blocking, so that a FIFO in its place is refused rather than waited on.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ValueError(f"{path}: not a regular file")
            raw = os.read(fd, MAX_SPEC_BYTES + 1)
        finally:
            os.close(fd)
    except OSError as e:
        raise ValueError(f"{path}: cannot read the experiment file ({e.strerror})") from None
    if len(raw) > MAX_SPEC_BYTES:
        raise ValueError(f"{path}: larger than {MAX_SPEC_BYTES // 1024} KiB; not an experiment file")
    try:
        text = raw.decode("utf-8-sig")  # a UTF-8 byte-order mark (Windows editors write one) is no statement
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text (byte {e.start}); a binary file?") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{path}: not valid TOML: {e}") from None
    except RecursionError:
        raise ValueError(f"{path}: not an experiment file: nested too deeply") from None
    try:
        return ExperimentSpec.from_dict(data, source=str(path), text=text)
    except RecursionError:
        raise ValueError(f"{path}: not an experiment file: nested too deeply") from None


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
        if isolation not in cc:
            named = ", ".join(map(str, cc)) or "none"
            raise ValueError(f"engine.cc: the table of schemes names no scheme for isolation {isolation!r} ({named})")
        return cc[isolation]
    if cc != "auto":
        return cc
    return default_cc(sizes, execution)


def _is_resolved(cc: Any) -> bool:
    """Whether run_config resolves `cc` per point (``auto``, or a scheme per level)."""
    return cc == "auto" or isinstance(cc, Mapping)
