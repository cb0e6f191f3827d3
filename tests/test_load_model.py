"""The load the figures offer (issue 47, docs/figures.md's load column): every experiment file
uses the load its figure's catalog entry names, and the default load of the Fig 8/11/20
experiments makes a shared-everything instance's workers serve homes of every site (driver.clients
instance_wide), where per-site draws (workers) keep each worker at its own."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from islands.analysis.reproduction import PER_SITE_LOAD, run_checks
from islands.analysis.verdicts import CONTRADICTED
from islands.execution import in_process
from islands.experiments.reproduce import _figures_of
from islands.experiments.sweep import load_spec
from islands.figures.catalog import CATALOG, LOADS

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"
#: The files whose 1ISL points must draw homes over the whole database: Fig 11 (and `make run`'s
#: short version of it), Fig 20, and Fig 8 (its local Payment points are Fig 22's TPC-C file's).
PAPER_LOAD_FILES = ("000-fig11-multisite", "default", "000-fig20-skew", "000-fig20-clients", "000-fig22-tpcc")


def _clients(path: Path) -> str:
    return tomllib.loads(path.read_text()).get("clients", {}).get("clients", "workers")


def test_every_catalog_entry_names_its_load():
    assert set(LOADS) == {f.label for f in CATALOG}
    for label, load in LOADS.items():
        assert load.why, label
        assert set(load.clients) <= {"workers", "instance_wide", "closed", "open"}, label


@pytest.mark.parametrize("path", sorted(EXPERIMENTS.glob("[0-9][0-9][0-9]-*.toml")), ids=lambda p: p.stem)
def test_every_experiment_file_uses_the_load_its_figure_names(path: Path):
    spec = load_spec(path)
    figures = _figures_of(path, spec.figure)
    entries = [f for f in CATALOG if figures & set(f.ids)]
    assert entries, f"{path.name}: no catalog entry for {sorted(figures)}"
    allowed = {c for f in entries for c in LOADS[f.label].clients}
    assert _clients(path) in allowed, f"{path.name}: clients {_clients(path)!r}, its figure names {sorted(allowed)}"


def test_fig_8_11_20_default_load_draws_over_the_whole_database():
    for name in PAPER_LOAD_FILES:
        spec = load_spec(EXPERIMENTS / f"{name}.toml")
        config = spec.run_config({k: v[0] for k, v in spec.grid}, cpus=(0, 1), sizes=(2,))
        assert config.driver.clients in ("instance_wide", "closed"), name


def _home_sites(clients: str) -> list[list[int]]:
    """Each worker's transactions by home site, from a short real run of Fig 11's first 1ISL
    point (read 10 rows, 0% multisite) with ``clients``."""
    spec = load_spec(EXPERIMENTS / "000-fig11-multisite.toml")
    config = spec.run_config({k: v[0] for k, v in spec.grid}, cpus=(0, 1), sizes=(2,))
    config = dataclasses.replace(
        config,
        driver=dataclasses.replace(config.driver, clients=clients, warmup_s=0.05, duration_s=0.2),
        micro=dataclasses.replace(config.micro, rows_per_site=1000),
    )
    stats = in_process.start(config).handle.join()
    return [list(w["home_sites"]) for w in stats["workers"]]


def test_1isl_workers_serve_homes_of_both_sites_under_the_papers_load():
    spec = load_spec(EXPERIMENTS / "000-fig11-multisite.toml")
    assert spec.run_config({k: v[0] for k, v in spec.grid}, cpus=(0, 1), sizes=(2,)).driver.clients == "instance_wide"
    shared = _home_sites("instance_wide")
    assert len(shared) == 2
    for worker, sites in enumerate(shared):
        assert len(sites) == 2 and min(sites) > 0, f"worker {worker} served homes {sites}"
        # drawn uniformly over the two sites: neither site takes nearly all of a worker's
        assert min(sites) / sum(sites) > 0.3, f"worker {worker} served homes {sites}"
    # per-site draws, the named option kept: each worker only at its own site
    local = _home_sites("workers")
    assert [s[w] > 0 for w, s in enumerate(local)] == [True, True]
    assert [s[1 - w] for w, s in enumerate(local)] == [0, 0]


def test_instance_wide_is_refused_under_plp_in_one_line():
    spec = load_spec(EXPERIMENTS / "000-fig11-multisite.toml")
    config = spec.run_config({k: v[0] for k, v in spec.grid}, cpus=(0, 1), sizes=(2,))
    config = dataclasses.replace(config, engine=dataclasses.replace(config.engine, execution="plp", cc="2pl"))
    with pytest.raises(ValueError, match="instance_wide is not for engine.execution plp"):
        config.to_core()


def test_a_1isl_claim_missed_on_per_site_rows_names_that_load_as_its_cause():
    rows = []
    for n, values in ((1, [200.0, 204.0, 199.0]), (2, [100.0, 102.0, 98.0])):
        for v in values:
            rows.append(
                {
                    "deployment.n_instances": n,
                    "deployment.n_cpus": 2,
                    "config.micro.update": False,
                    "config.micro.multisite": 0.0,
                    "config.micro.rows_per_site": 1000,
                    "config.driver.clients": "workers",
                    "throughput_tps": v,
                }
            )
    frame = pd.DataFrame(rows)
    (o,) = [o for o in run_checks("000-fig11", [frame]) if o.check.claim == "per-core best at 0%"]
    assert o.outcome == CONTRADICTED and o.cause.startswith(PER_SITE_LOAD)
    frame["config.driver.clients"] = "instance_wide"
    (o,) = [o for o in run_checks("000-fig11", [frame]) if o.check.claim == "per-core best at 0%"]
    assert o.outcome == CONTRADICTED and o.cause.startswith("cause not determined")
