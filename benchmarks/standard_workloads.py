"""Standard workloads per deployment on this machine: throughput, abort rates and whether the
consistency checks held, for each workload at local-only and at the specification's remote
share, in one shared-everything instance (1ISL) and one single-threaded instance per core
over unix sockets and shared memory.

Then TPC-C in the specification's row layout next to the narrow one (NewOrder + Payment 50/50
and the standard mix; one thread on one warehouse, and one instance per core over shared
memory), unlogged and logged (group commit, in a fresh private directory per run on tmpfs where
there is one, as the sweeps log: the engine's logging cost, not the disk's), every
variant's repetitions interleaved in one run (every other round in reverse order), with the
rows' bytes per row, the bytes of row growth per transaction and, logged, the log bytes per
transaction.

Prints; asserts nothing (a failed consistency check is printed as FAILED).

    python benchmarks/standard_workloads.py [--duration S] [--rounds N] [--tpcc-layouts-only]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile

from _runner import Runner, round_order
from islands.analysis.verdicts import ratio_words
from islands.config.settings import (
    DriverConfig,
    EngineConfig,
    LogConfig,
    RunConfig,
    TpcbConfig,
    TpccConfig,
    default_log_root,
)
from islands.execution.in_process import run
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from islands.machine.topology import read_topology

#: name → (workload, the config of a remote share)
WORKLOADS = {
    "TPC-B AccountUpdate": lambda remote: ("tpcb", {"tpcb": TpcbConfig(remote=remote)}),
    "TPC-C NewOrder + Payment (50/50)": lambda remote: (
        "tpcc",
        {"tpcc": TpccConfig(mix="new_order:50,payment:50", payment_remote=remote, new_order_remote_item=remote / 15)},
    ),
    "TPC-C standard mix": lambda remote: (
        "tpcc",
        {"tpcc": TpccConfig(mix="standard", payment_remote=remote, new_order_remote_item=remote / 15)},
    ),
}
#: The specification's remote shares (TPC-C: 15% of payments, 1% of NewOrder items).
SPEC_REMOTE = {"TPC-B AccountUpdate": 0.15, "TPC-C NewOrder + Payment (50/50)": 0.15, "TPC-C standard mix": 0.15}


def measure(deployment, config, transport, topology):
    """One run: (throughput, abort rate, aborts per reason, check failures, NewOrders/min,
    user rollbacks per second)."""
    if deployment.n_instances == 1:
        result = run(config, topology)
    else:
        result = run_deployment(deployment, config, transport=transport, topology=topology)
    return (
        result.throughput_tps,
        result.abort_rate,
        result.aborts,
        result.check_failures,
        result.new_order_per_min,
        result.user_rollbacks / result.measured_s,
    )


#: The TPC-C row tables' rows (figures of the checks).
ROW_FIGURES = (
    "warehouse_rows",
    "district_rows",
    "customer_rows",
    "history_rows",
    "order_rows",
    "new_order_rows",
    "order_line_rows",
    "item_rows",
    "stock_rows",
)


#: TPC-C variants compared: (layout, log mode)
VARIANTS = (("spec", "off"), ("narrow", "off"), ("spec", "group_commit"), ("narrow", "group_commit"))


def run_variant(deployment, config: RunConfig, topology, log_mode: str):
    """One run of a TPC-C variant; logged runs get a fresh private log directory, removed after."""
    if log_mode == "off":
        if deployment.n_instances == 1:
            return run(config, topology)
        return run_deployment(deployment, config, transport="shm", topology=topology)
    directory = tempfile.mkdtemp(prefix="islands-bench-log-", dir=default_log_root())
    try:
        logged = RunConfig(**{**vars(config), "log": LogConfig(mode=log_mode, directory=directory)})
        return run_deployment(deployment, logged, transport="shm", topology=topology)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def log_bytes_per_txn(result) -> float:
    """Log bytes written per committed transaction (NaN unlogged)."""
    written = sum(i["log"].get("bytes", 0) for i in result.instances if i.get("log"))
    return written / result.commits if written and result.commits else float("nan")


def tpcc_layouts(topology, duration: float, repetitions: int) -> None:
    """Spec against narrow layout, unlogged and logged, repetitions interleaved: throughput
    (median), the ratios to unlogged spec, bytes per row and bytes per transaction."""
    cpus = topology.cpus
    plans = [("1 thread/1 warehouse", plan_deployment(topology, "1", cpus=cpus[:1]))]
    if len(cpus) > 1:
        plans.append(("per-core (shm)", plan_deployment(topology, "per-core", cpus=cpus)))
    mixes = {"NewOrder + Payment (50/50)": "new_order:50,payment:50", "standard mix": "standard"}
    print(
        f"\nTPC-C row layouts: spec (clause 1.3) against narrow, unlogged and logged (group commit); "
        f"{duration:g} s measured, median of {repetitions}, repetitions interleaved; specification remote "
        "shares (15% payments, 1% items) where there are two warehouses"
    )
    for mix_name, mix in mixes.items():
        for plan_name, deployment in plans:
            one_cpu = len(deployment.instances[0]) == 1
            remote = deployment.n_instances > 1 or len(deployment.cpus) > 1
            results: dict[tuple[str, str], list] = {v: [] for v in VARIANTS}
            refused: dict[tuple[str, str], str] = {}
            for rep in range(repetitions):
                for layout, log_mode in round_order(VARIANTS, rep):
                    if (layout, log_mode) in refused:
                        continue
                    config = RunConfig(
                        workload="tpcc",
                        tpcc=TpccConfig(
                            mix=mix,
                            layout=layout,
                            payment_remote=0.15 if remote else 0.0,
                            new_order_remote_item=0.01 if remote else 0.0,
                        ),
                        engine=EngineConfig(cc="none" if one_cpu else "2pl", lock_policy="no_wait"),
                        driver=DriverConfig(cpus=deployment.cpus, warmup_s=0.5, duration_s=duration),
                    )
                    try:
                        results[(layout, log_mode)].append(run_variant(deployment, config, topology, log_mode))
                    except (ValueError, RuntimeError) as e:  # the engine refuses this variant: say why
                        refused[(layout, log_mode)] = str(e).splitlines()[0]
            print(f"\n  TPC-C {mix_name}, {plan_name} ({deployment.label}):")
            for (layout, log_mode), runs in results.items():
                labels = {"mix": mix_name, "deployment": plan_name, "layout": layout, "log": log_mode}
                RUNNER.record("TPC-C throughput", [r.throughput_tps for r in runs], unit="txn/s", **labels)
            tps = {k: statistics.median(r.throughput_tps for r in v) for k, v in results.items() if v}
            for (layout, log_mode), runs in results.items():
                name = f"{layout} {'logged' if log_mode != 'off' else 'unlogged'}"
                if not runs:
                    print(f"    {name:15}: not measured: {refused.get((layout, log_mode), 'no run')}")
                    continue
                last = runs[-1].checks
                rows = sum(last[n] for n in ROW_FIGURES)
                failures = [f for r in runs for f in r.check_failures]
                log_bytes = statistics.median(log_bytes_per_txn(r) for r in runs)
                versus = ratio_words(
                    [r.throughput_tps for r in runs], [r.throughput_tps for r in results[("spec", "off")]]
                )
                print(
                    f"    {name:15}: {tps[(layout, log_mode)]:12,.0f} txn/s  "
                    f"({versus} spec unlogged)  "
                    f"NewOrder {statistics.median(r.new_order_per_min for r in runs):12,.0f}/min  "
                    f"{last['row_bytes'] / rows:7.1f} bytes/row ({rows:,} rows, {last['row_bytes'] / 2**20:,.0f} MiB)  "
                    f"{statistics.median(r.bytes_per_txn for r in runs):7.0f} bytes/txn of growth"
                    + (f"  {log_bytes:7.0f} log bytes/txn" if log_bytes == log_bytes else "")
                    + f"  checks: {'consistent' if not failures else 'FAILED ' + '; '.join(failures)}"
                )


RUNNER = Runner(__file__, __doc__, rounds=3, duration=3.0, rounds_help="runs per point (median shown)")
RUNNER.parser.add_argument("--tpcc-layouts-only", action="store_true", help="only the TPC-C layout comparison")


def main(args: argparse.Namespace) -> None:
    topology = read_topology()
    if args.tpcc_layouts_only:
        tpcc_layouts(topology, args.duration, args.rounds)
        return
    cpus = topology.cpus
    plans = [("1ISL", "1", None), ("per-core", "per-core", "unix"), ("per-core", "per-core", "shm")]
    print(
        f"{len(cpus)} cpus ({topology.n_sockets} socket(s)); {args.duration:g} s measured, "
        f"median of {args.rounds}; one branch / warehouse per core"
    )
    for name, make in WORKLOADS.items():
        for remote in (0.0, SPEC_REMOTE[name]):
            workload, parts = make(remote)
            print(f"\n{name}, {remote:.0%} remote")
            for label, spec, transport in plans:
                deployment = plan_deployment(topology, spec, cpus=cpus)
                one_cpu = len(deployment.instances[0]) == 1
                config = RunConfig(
                    workload=workload,
                    **parts,
                    engine=EngineConfig(
                        cc="none" if one_cpu else "2pl",
                        lock_policy="wait_die" if deployment.n_instances == 1 else "no_wait",
                    ),
                    driver=DriverConfig(cpus=deployment.cpus, warmup_s=0.5, duration_s=args.duration),
                )
                runs = [measure(deployment, config, transport or "unix", topology) for _ in range(args.rounds)]
                labels = {"workload": name, "remote": remote, "deployment": label, "transport": transport}
                RUNNER.record("throughput", [r[0] for r in runs], unit="txn/s", **labels)
                RUNNER.record("abort rate", [r[1] for r in runs], unit="fraction", **labels)
                tps = statistics.median(r[0] for r in runs)
                rate = statistics.median(r[1] for r in runs)
                failures = [f for r in runs for f in r[3]]
                reasons = {}
                for r in runs:
                    for k, v in r[2].items():
                        reasons[k] = reasons.get(k, 0) + v
                shown = ", ".join(f"{k} {v:,}" for k, v in reasons.items() if v) or "none"
                via = f" over {transport}" if deployment.n_instances > 1 else ""
                tpm = statistics.median(r[4] for r in runs)
                extra = (
                    ""
                    if tpm != tpm
                    else (
                        f"  NewOrder {tpm:12,.0f}/min  user rollbacks {statistics.median(r[5] for r in runs):8,.0f}/s"
                    )
                )
                print(
                    f"  {deployment.label:5} ({label}{via}, cc {config.engine.cc}): {tps:12,.0f} txn/s{extra}  "
                    f"abort rate {rate:6.2%}  aborts: {shown}  checks: "
                    f"{'consistent' if not failures else 'FAILED ' + '; '.join(failures)}"
                )
    tpcc_layouts(topology, args.duration, args.rounds)


if __name__ == "__main__":
    RUNNER.run(main)
