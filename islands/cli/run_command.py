"""``islands run``: one engine instance on pinned workers, printed or as JSON.

The workload flags come from the engine's settings (``_core.settings()``: name, type, default,
range, help) for every workload its registry lists, so a new workload or setting brings its
flags along; so do the engine's settings (all but the test-only ones). The driver's flags
(cores, pinning, warm-up, window, seed) and the deployment's are written here, their defaults
and help taken from the same schema. A setting the engine refuses is reported under the flag the user typed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from islands import _core
from islands.analysis.verdicts import steal_words
from islands.cli.json_output import dumps
from islands.cli.option_checks import check_run_options
from islands.cli.topology_args import add_topology_arguments, topology_from_args
from islands.config.settings import (
    DEFAULT_WORKLOAD,
    SECTIONS,
    DriverConfig,
    EngineConfig,
    LogConfig,
    RunConfig,
    registry,
    resolve_field,
)
from islands.execution.runner import AUTO, execute, plan
from islands.experiments.spec_sections import known_transports
from islands.machine.memory_placement import MEMORY_POLICIES
from islands.machine.placement import DEPLOYMENT_PLACEMENTS
from islands.machine.topology import parse_cpulist, read_topology
from islands.measure.system_state import measure_around

#: Workload settings whose flag is not ``--<field-name>`` (the names users already type).
FLAG_NAMES = {"micro.rows_per_txn": "--rows", "micro.zipf_s": "--zipf", "tpcc.new_order_remote_item": "--remote-item"}
#: Further spellings of a flag.
FLAG_ALIASES = {"--mix": ("--tpcc-mix",)}
_TYPES: dict[str, Any] = {"int": int, "float": float, "str": str}
#: Engine settings whose default depends on the deployment (config_from_args), as their help says it.
ENGINE_DEFAULT_BY_DEPLOYMENT = {
    "cc": "default: none on one CPU, else 2pl",
    "lock_policy": "default wait_die in one instance, no_wait across several",
}
#: The driver's client-layer settings, each a flag of its own name (--clients, --think-us, ...).
CLIENT_FIELDS = ("clients", "client_count", "think_us", "offered_rate")


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Adds the ``run`` subcommand."""
    p = subparsers.add_parser(
        "run",
        help="run one engine instance and print its throughput",
        description="Run one engine instance on pinned worker threads.",
    )
    add_run_arguments(p)
    p.add_argument(
        "--fixed-warmup",
        action="store_true",
        help="measure the whole window after --warmup (default: the warm-up goes on into the window until the "
        "throughput timeline is steady, at most to --warmup + half of --duration, and the throughput is the rate "
        "from there; islands.measure.steady_warmup)",
    )
    p.set_defaults(func=main)
    return p


def _dest(name: str) -> str:
    return f"setting_{name}"


def _engine_dest(name: str) -> str:
    return f"engine_{name}"


def _default_text(value: Any) -> str:
    return (
        "on" if value is True else "off" if value is False else f"{value:g}" if isinstance(value, float) else str(value)
    )


def _value_kwargs(field: dict[str, Any]) -> dict[str, Any]:
    """How argparse reads a schema field's value: a switch (``--x``/``--no-x``) for a bool, else
    its type, shown as the choices when it has some or as its type name."""
    if field["type"] == "bool":
        return {"action": argparse.BooleanOptionalAction}
    if field["choices"]:
        return {"type": _TYPES[field["type"]], "choices": field["choices"]}
    return {"type": _TYPES[field["type"]], "metavar": field["type"].upper()}


def add_workload_arguments(p: argparse.ArgumentParser) -> dict[str, str]:
    """One flag per workload setting, from the engine's schema; returns ``{"section.field":
    flag}``. A field that several workloads have (``mix``) is one flag that goes to the
    workload being run."""
    schema = _core.settings()
    owners: dict[str, list[dict[str, Any]]] = {}
    for entry in registry():
        for f in schema[entry["section"]]:
            owners.setdefault(f["name"], []).append({**f, "section": entry["section"]})
    flags: dict[str, str] = {}
    for name, fields in owners.items():
        first = fields[0]
        if any(f["type"] != first["type"] or f["choices"] != first["choices"] for f in fields):
            raise TypeError(f"workload setting {name!r} has different types in {[f['section'] for f in fields]}")
        flag = FLAG_NAMES.get(f"{first['section']}.{name}", "--" + name.replace("_", "-"))
        defaults = {json.dumps(f["default"]) for f in fields}
        default = first["default"] if len(defaults) == 1 else None
        what = "; ".join(f"{f['section']}: {f['help']}" for f in fields)
        shown = f" (default {_default_text(default)})" if default is not None else " (default: the workload's own)"
        kwargs = {"dest": _dest(name), "default": default, "help": what + shown, **_value_kwargs(first)}
        p.add_argument(flag, *FLAG_ALIASES.get(flag, ()), **kwargs)
        for f in fields:
            flags[f"{f['section']}.{name}"] = flag
    return flags


def add_engine_arguments(p: argparse.ArgumentParser) -> dict[str, str]:
    """One flag per engine setting, from the engine's schema (type, choices, help; a switch is
    ``--x``/``--no-x``), except the test-only ones; returns ``{"engine.field": flag}``. The
    settings in :data:`ENGINE_DEFAULT_BY_DEPLOYMENT` default to what the deployment needs."""
    defaults = EngineConfig()
    flags: dict[str, str] = {}
    for f in _core.settings()["engine"]:
        name = f["name"]
        if name.startswith("test_"):
            continue
        flag = "--" + name.replace("_", "-")
        default = getattr(defaults, name)
        shown = ENGINE_DEFAULT_BY_DEPLOYMENT.get(name, f"default {_default_text(default)}")
        p.add_argument(flag, dest=_engine_dest(name), default=None, help=f"{f['help']} ({shown})", **_value_kwargs(f))
        flags[f"engine.{name}"] = f"--no-{flag[2:]}" if f["type"] == "bool" and default is True else flag
    return flags


def add_run_arguments(p: argparse.ArgumentParser, duration: float = 3.0, warmup: float | None = None) -> None:
    """The options of a run (shared by ``run`` and ``check``); ``duration`` and ``warmup``
    override the driver's defaults (a shorter window from the command line)."""
    schema = {s: {f["name"]: f for f in fields} for s, fields in _core.settings().items()}
    driver = DriverConfig()
    warmup = driver.warmup_s if warmup is None else warmup
    names = [w["name"] for w in registry()]
    p.add_argument(
        "--workload",
        default=RunConfig().workload,
        choices=names,
        help=f"workload: {', '.join(names)} (default {RunConfig().workload})",
    )
    flags = {"workload": "--workload", **add_workload_arguments(p)}
    p.add_argument("--cores", default=None, help="CPUs for the workers, e.g. 0,1 or 0-3 (default: every online CPU)")
    unpinned = schema["driver"]["pin"]["help"].removeprefix("false: ")
    p.add_argument("--no-pin", action="store_true", help=f"do not pin workers: {unpinned}")
    p.add_argument(
        "--deployment",
        default="1",
        metavar="SPEC",
        help="instances over the cores: 1 (shared-everything), N (e.g. 2ISL or 2), per-socket, per-core, "
        "or explicit CPU lists such as '0-3;4-7' (default 1)",
    )
    placements = [name for name in DEPLOYMENT_PLACEMENTS if name != "explicit"]
    p.add_argument(
        "--placement",
        default="islands",
        choices=placements,
        help="how instances take the cores: islands (an instance's cores share a socket), "
        "spread (across the sockets), or os (not pinned) (default islands)",
    )
    add_topology_arguments(p)
    p.add_argument(
        "--sysfs",
        default=None,
        metavar="DIR",
        help="plan the deployment on the machine this sysfs tree describes (e.g. "
        "tests/fixtures/sysfs/xeon-e7530-4x6), with --oversubscribe",
    )
    p.add_argument(
        "--oversubscribe",
        action="store_true",
        help="run a deployment planned on another machine (--sysfs) packed onto this machine's cpus, "
        "pinned round-robin (--no-pin: left to the scheduler): a functional run, whose checks and counts "
        "hold but whose throughput is not that machine's",
    )
    p.add_argument(
        "--memory",
        default="local",
        choices=MEMORY_POLICIES,
        help="NUMA nodes each instance allocates on: local (its cores' nodes), central (all on the "
        "first socket's node) or remote (the next socket's node) (paper 002 Table 1; default local)",
    )
    transports = known_transports()
    p.add_argument(
        "--transport",
        default=None,
        choices=transports,
        help=f"messages between instances: {', '.join(transports)} (unix: sockets, shm: shared-memory "
        "rings; default unix; deployments of several instances only)",
    )
    flags.update(add_engine_arguments(p))
    p.add_argument("--warmup", type=float, default=warmup, help=f"warm-up seconds (default {warmup:g})")
    p.add_argument("--duration", type=float, default=duration, help=f"measured seconds (default {duration:g})")
    p.add_argument(
        "--seed", type=int, default=driver.seed, help=f"{schema['driver']['seed']['help']} (default {driver.seed})"
    )
    for name in CLIENT_FIELDS:  # the client layer's settings, from the schema
        f = schema["driver"][name]
        p.add_argument(
            "--" + name.replace("_", "-"),
            dest=f"driver_{name}",
            default=getattr(driver, name),
            help=f"{f['help']} (default {_default_text(getattr(driver, name))})",
            **_value_kwargs(f),
        )
        flags[f"driver.{name}"] = "--" + name.replace("_", "-")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON")
    mode = schema["log"]["mode"]
    p.add_argument(
        "--log",
        default="off",
        choices=mode["choices"],
        help=f"write-ahead log: {mode['help']} (default off; a logged single instance runs in this process, "
        "as an unlogged one does)",
    )
    content = schema["log"]["content"]
    p.add_argument(
        "--log-content",
        default=None,
        choices=content["choices"],
        help=f"with --log: {content['help']} (default {content['default']})",
    )
    p.add_argument(
        "--log-dir",
        default=None,
        metavar="DIR",
        help="where the instances log (holding no earlier log; kept after the run) "
        "(default: a fresh directory under /dev/shm, removed after the run)",
    )
    flags.update(
        {
            "driver.cpus": "--cores",
            "driver.pin": "--no-pin",
            "driver.warmup_s": "--warmup",
            "driver.duration_s": "--duration",
            "driver.seed": "--seed",
            "log.mode": "--log",
            "log.content": "--log-content",
            "log.directory": "--log-dir",
        }
    )
    p.set_defaults(config_flags=flags)


def config_from_args(args: argparse.Namespace) -> RunConfig:
    """The RunConfig the command line asks for; the engine settings left unset whose default
    depends on the deployment (:data:`ENGINE_DEFAULT_BY_DEPLOYMENT`) are ``auto``, for the run's
    plan to decide (:func:`islands.execution.runner.plan`). Its CPUs are the plan's."""
    engine = {
        f.name: getattr(args, _engine_dest(f.name))
        for f in dataclasses.fields(EngineConfig)
        if getattr(args, _engine_dest(f.name), None) is not None
    }
    for name in ENGINE_DEFAULT_BY_DEPLOYMENT:
        engine.setdefault(name, AUTO)
    sections: dict[str, Any] = {}
    flags = list(_field_flags(args).values())
    shared = {key for key, flag in _field_flags(args).items() if flags.count(flag) > 1}
    for entry in registry():
        section, klass = entry["section"], SECTIONS[entry["section"]]
        values = {}
        for f in dataclasses.fields(klass):
            value = getattr(args, _dest(f.name), None)
            if value is None or (f"{section}.{f.name}" in shared and entry["name"] != args.workload):
                continue  # a shared flag (--mix) sets only the workload being run
            values[f.name] = value
        sections[section] = klass(**values)
    log = getattr(args, "log", "off")
    return RunConfig(
        workload=args.workload,
        **sections,
        engine=EngineConfig(**engine),
        driver=DriverConfig(
            pin=not args.no_pin,
            warmup_s=args.warmup,
            duration_s=args.duration,
            seed=args.seed,
            **{name: getattr(args, f"driver_{name}", getattr(DriverConfig, name)) for name in CLIENT_FIELDS},
        ),
        log=LogConfig() if log == "off" else LogConfig(mode=log, content=getattr(args, "log_content", None) or "redo"),
    )


def _field_flags(args: argparse.Namespace) -> dict[str, str]:
    flags: dict[str, str] = getattr(args, "config_flags", {})
    return flags


def flag_of(args: argparse.Namespace, field: str) -> str:
    """The flag that sets a setting a ``ConfigError`` names (the field itself when no flag
    does, as for ``log.mode``)."""
    section, name = resolve_field(field, getattr(args, "workload", DEFAULT_WORKLOAD))
    return _field_flags(args).get(f"{section}.{name}" if section else name, field)


def main(args: argparse.Namespace) -> int:
    """Runs and prints, with the machine's state around the run (steal, load, the cross-core
    round trip, as a sweep's rows carry it); returns the exit status (1 when a consistency
    condition failed)."""
    result, system = measure_around(lambda: run_from_args(args))
    if not getattr(args, "fixed_warmup", False):
        result = result.measured_from_steady()
    if args.json:
        print(dumps({**result.to_dict(), "system": system}))
    else:
        print(result.summary())
        print(log_line(result.config.log))
        steal = steal_words([system.get("steal_share", float("nan"))], left_out=False)
        if steal:
            print(f"warning     {steal}")
    return 1 if result.check_failures else 0


def log_line(log: LogConfig) -> str:
    """Whether the run logged: sweeps log their updates with group commit, so an unlogged run's
    update throughput is not theirs."""
    if log.mode == "off":
        return "log         off (unlogged; sweeps log updates with group commit: compare with --log group_commit)"
    return f"log         {log.mode.replace('_', ' ')}"


def run_from_args(args: argparse.Namespace):
    """Runs the one instance or the deployment the options ask for; returns its result. A
    setting the engine refuses is a ``ValueError`` naming the flag that set it."""
    try:
        return _run_from_args(args)
    except _core.ConfigError as error:
        raise ValueError(f"{flag_of(args, error.field)}: {error.why}") from None


def _run_from_args(args: argparse.Namespace):
    check_run_options(args)
    sysfs = getattr(args, "sysfs", None)
    oversubscribe = getattr(args, "oversubscribe", False)
    if sysfs is not None and not oversubscribe:
        raise ValueError(
            f"--sysfs {sysfs}: the deployment would be planned on another machine, whose cpus this one "
            "lacks: add --oversubscribe to run it packed onto this machine's cpus"
        )
    if oversubscribe and sysfs is None:
        raise ValueError("--oversubscribe: runs a deployment planned on another machine: name it with --sysfs DIR")
    topology = topology_from_args(args, sysfs)
    try:
        cpus = tuple(parse_cpulist(args.cores)) if args.cores else None
    except ValueError as error:
        raise ValueError(f"--cores: {error}") from None
    return execute(
        plan(
            config_from_args(args),
            args.deployment,
            topology=topology,
            placement=args.placement,
            cpus=cpus,
            pin=not args.no_pin,
            transport=args.transport,
            memory=args.memory,
            oversubscribe=oversubscribe,
            host=read_topology() if oversubscribe else None,
            log_directory=args.log_dir,
        )
    )
