"""``islands run``: one engine instance on pinned workers, printed or as JSON."""

from __future__ import annotations

import argparse
import dataclasses
import json

from islands.config import DriverConfig, EngineConfig, MicroConfig, RunConfig, TatpConfig, TpcbConfig, TpccConfig
from islands.launch import run_deployment
from islands.placement import plan_deployment
from islands.run import check_cpus, run
from islands.topology import parse_cpulist, read_topology


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Adds the ``run`` subcommand."""
    p = subparsers.add_parser(
        "run",
        help="run one engine instance and print its throughput",
        description="Run one engine instance on pinned worker threads.",
    )
    add_run_arguments(p)
    p.set_defaults(func=main)
    return p


def add_run_arguments(p: argparse.ArgumentParser, duration: float = 3.0, warmup: float = 1.0) -> None:
    """The options of a run (shared by ``run`` and ``check``)."""
    p.add_argument("--workload", default="micro", help="workload: micro, tpcb, tatp or tpcc (default micro)")
    p.add_argument("--rows", type=int, default=10, help="rows per transaction (default 10)")
    p.add_argument("--update", action="store_true", help="update the rows instead of reading them")
    p.add_argument("--multisite", type=float, default=0.0, help="fraction of multisite transactions, 0..1 (default 0)")
    p.add_argument("--zipf", type=float, default=0.0, help="Zipf skew s of the row choice (0 = uniform)")
    p.add_argument("--rows-per-site", type=int, default=10_000, help="rows per site (default 10000)")
    p.add_argument("--columns", type=int, default=10, help="int32 payload columns per row (default 10)")
    p.add_argument(
        "--remote",
        type=float,
        default=0.15,
        help="tpcb: fraction of transactions with a teller of another branch, 0..1 (default 0.15)",
    )
    p.add_argument("--branches-per-site", type=int, default=1, help="tpcb: branches per site (default 1)")
    p.add_argument("--tellers-per-branch", type=int, default=10, help="tpcb: tellers per branch (default 10)")
    p.add_argument(
        "--accounts-per-branch", type=int, default=100_000, help="tpcb: accounts per branch (default 100000)"
    )
    p.add_argument(
        "--subscribers-per-site", type=int, default=100_000, help="tatp: subscribers per site (default 100000)"
    )
    p.add_argument(
        "--mix", default="standard", help="tatp: standard, one transaction's name, or name:weight,... summing to 100"
    )
    p.add_argument("--warehouses-per-site", type=int, default=1, help="tpcc: warehouses per site (default 1)")
    p.add_argument("--items", type=int, default=100_000, help="tpcc: items (default 100000)")
    p.add_argument(
        "--customers-per-district",
        type=int,
        default=3000,
        help="tpcc: customers and initial orders per district (default 3000)",
    )
    p.add_argument(
        "--tpcc-mix",
        default="standard",
        help="tpcc: standard, 50-50, 80-20, 100-0, one transaction's name, or name:W,... (default standard)",
    )
    p.add_argument(
        "--payment-remote",
        type=float,
        default=0.15,
        help="tpcc: share of Payments for another warehouse's customer (default 0.15)",
    )
    p.add_argument(
        "--remote-item",
        type=float,
        default=0.01,
        help="tpcc: share of NewOrder items from another warehouse (default 0.01)",
    )
    p.add_argument("--cores", default=None, help="CPUs for the workers, e.g. 0,1 or 0-3 (default: every online CPU)")
    p.add_argument("--no-pin", action="store_true", help="leave worker placement to the OS")
    p.add_argument(
        "--deployment",
        default="1",
        help="instances over the cores: 1 (shared-everything), NISL, per-socket, per-core (default 1)",
    )
    p.add_argument(
        "--placement",
        default="islands",
        help="islands (an instance's cores share a socket), spread, or os (default islands)",
    )
    p.add_argument(
        "--transport",
        default="unix",
        help="between instances: unix (sockets) or shm (shared-memory rings) (default unix)",
    )
    p.add_argument("--index", default="hash", help="hash or btree (default hash)")
    p.add_argument("--cc", default=None, help="none or 2pl (default: none on one CPU, else 2pl)")
    p.add_argument(
        "--lock-policy",
        default=None,
        help="no_wait or wait_die (default wait_die in one instance, no_wait across several)",
    )
    p.add_argument("--no-latching", action="store_true", help="do not latch index operations")
    p.add_argument("--no-prefetch", action="store_true", help="do not prefetch index slots and rows")
    p.add_argument("--warmup", type=float, default=warmup, help=f"warm-up seconds (default {warmup:g})")
    p.add_argument("--duration", type=float, default=duration, help=f"measured seconds (default {duration:g})")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON")


def config_from_args(
    args: argparse.Namespace, cpus: tuple[int, ...], per_instance: int = 0, n_instances: int = 1
) -> RunConfig:
    """The RunConfig the command line asks for (cc defaults to none for one-CPU instances)."""
    cc = args.cc or ("none" if (per_instance or len(cpus)) == 1 else "2pl")
    lock_policy = args.lock_policy or ("wait_die" if n_instances == 1 else "no_wait")
    return RunConfig(
        workload=args.workload,
        micro=MicroConfig(
            rows_per_site=args.rows_per_site,
            columns=args.columns,
            rows_per_txn=args.rows,
            update=args.update,
            multisite=args.multisite,
            zipf_s=args.zipf,
        ),
        tpcb=TpcbConfig(
            branches_per_site=args.branches_per_site,
            tellers_per_branch=args.tellers_per_branch,
            accounts_per_branch=args.accounts_per_branch,
            remote=args.remote,
        ),
        tatp=TatpConfig(subscribers_per_site=args.subscribers_per_site, mix=args.mix),
        tpcc=TpccConfig(
            warehouses_per_site=args.warehouses_per_site,
            items=args.items,
            customers_per_district=args.customers_per_district,
            mix=args.tpcc_mix,
            payment_remote=args.payment_remote,
            new_order_remote_item=args.remote_item,
        ),
        engine=EngineConfig(
            index=args.index,
            cc=cc,
            lock_policy=lock_policy,
            latching=not args.no_latching,
            prefetch=not args.no_prefetch,
        ),
        driver=DriverConfig(
            cpus=cpus, pin=not args.no_pin, warmup_s=args.warmup, duration_s=args.duration, seed=args.seed
        ),
    )


def main(args: argparse.Namespace) -> int:
    """Runs and prints; returns the exit status (1 when a consistency condition failed)."""
    result = run_from_args(args)
    print(json.dumps(result.to_dict(), indent=2) if args.json else result.summary())
    return 1 if result.check_failures else 0


def run_from_args(args: argparse.Namespace):
    """Runs the one instance or the deployment the options ask for; returns its result."""
    topology = read_topology()
    try:
        cpus = tuple(parse_cpulist(args.cores)) if args.cores else topology.cpus
    except ValueError as error:
        raise ValueError(f"cores: {error}") from None
    check_cpus(cpus, topology)
    deployment = plan_deployment(topology, args.deployment, placement=args.placement, cpus=cpus)
    if args.no_pin:
        deployment = dataclasses.replace(deployment, pinned=False)
    if deployment.n_instances == 1:
        config = config_from_args(args, deployment.instances[0])
        config = dataclasses.replace(config, driver=dataclasses.replace(config.driver, pin=deployment.pinned))
        result = run(config, topology)
    else:
        config = config_from_args(args, deployment.cpus, len(deployment.instances[0]), deployment.n_instances)
        result = run_deployment(deployment, config, transport=args.transport, topology=topology)
    return result
