"""The command line as a new user meets it: strict JSON everywhere, --version, choices and plain
text in --help, a bare ``islands``, options a single instance does not take, the public names."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import islands
from islands.__main__ import build_parser
from islands.cli.json_output import dumps
from islands.config import settings as config

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"
REPO = Path(__file__).resolve().parent.parent


def strict(text: str):
    """json.loads that refuses NaN and Infinity, as every JSON parser but Python's does."""

    def refuse(word: str):
        raise ValueError(f"not JSON: {word}")

    return json.loads(text, parse_constant=refuse)


def leaf_parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(command path, parser) for every command that runs something (no further subcommand)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
        return
    for name, child in subs[0].choices.items():
        yield from leaf_parsers(child, (*path, name))


LEAVES = list(leaf_parsers(build_parser()))


def test_dumps_writes_missing_numbers_as_null():
    value = {
        "nan": float("nan"),
        "inf": math.inf,
        "np_nan": np.float64("nan"),
        "np_int": np.int64(3),
        "np_bool": np.bool_(True),
        "array": np.array([1.5, np.nan]),
        "na": pd.NA,
        "nat": pd.NaT,
        "path": Path("/x/y"),
        "tuple": (1, 2),
        3: "int key",
    }
    out = strict(dumps(value))
    assert out == {
        "nan": None,
        "inf": None,
        "np_nan": None,
        "np_int": 3,
        "np_bool": True,
        "array": [1.5, None],
        "na": None,
        "nat": None,
        "path": "/x/y",
        "tuple": [1, 2],
        "3": "int key",
    }


@pytest.mark.parametrize("path", [" ".join(p) for p, _ in LEAVES])
def test_every_command_takes_json(path):
    parser = {" ".join(p): q for p, q in LEAVES}[path]
    assert "--json" in parser._option_string_actions, f"islands {path} has no --json"


def test_run_json_is_strict_with_null_for_what_was_not_measured(cli_here):
    out = cli_here("run", "--duration", "0.1", "--warmup", "0", "--json")
    assert out.returncode == 0, out.stderr
    row = strict(out.stdout)
    assert row["new_order_per_min"] is None  # the micro workload has no NewOrders: NaN in Python
    assert row["throughput_tps"] > 0


def test_sweep_plot_and_topology_json(cli_here, tmp_path):
    out = cli_here("sweep", str(EXPERIMENTS / "smoke.toml"), "--dry-run", "--json")
    assert out.returncode == 0, out.stderr
    plan = strict(out.stdout)
    assert plan["experiment"] == "smoke" and plan["runs"] == 2 and len(plan["points"]) == 2
    assert {p["params"]["update"] for p in plan["points"]} == {False, True}

    results = tmp_path / "r"
    out = cli_here("sweep", str(EXPERIMENTS / "smoke.toml"), "--out", str(results), "--no-progress", "--json")
    assert out.returncode == 0, out.stderr
    done = strict(out.stdout)
    assert (done["ran"], done["skipped"], done["total"]) == (2, 0, 2)

    out = cli_here("plot", str(results), "--json")
    assert out.returncode == 0, out.stderr
    drawn = strict(out.stdout)
    assert drawn["figure"] == "000-fig11" and Path(drawn["png"]).is_file() and "1ISL" in drawn["summary"]

    out = cli_here("topology", "--json")
    assert out.returncode == 0 and strict(out.stdout)["cpus"]


def test_bench_json(cli_here, tmp_path):
    out = cli_here(
        "bench",
        "counters",
        "--locks",
        "atomic",
        "--counters",
        "machine",
        "--placements",
        "os",
        "--reps",
        "1",
        "--duration",
        "0.05",
        "--warmup",
        "0",
        "--no-figure",
        "--quiet",
        "--out",
        str(tmp_path / "b"),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    report = strict(out.stdout)
    assert report["benchmark"] == "counters" and len(report["rows"]) == 1
    assert report["rows"][0]["increments_per_s"] > 0


def test_version_names_the_package_version_and_revision(cli):
    from importlib.metadata import version

    from islands.analysis.revision import git_revision

    out = cli("--version")
    assert out.returncode == 0
    assert out.stdout.strip() == f"islands {version('islands')} (git {git_revision()})"


def test_bare_islands_prints_the_help_as_a_usage_error(cli):
    for args in ((), ("bench",)):
        out = cli(*args)
        assert out.returncode == 2, args
        assert out.stdout == ""
        assert out.stderr.startswith("usage: islands") and "--help" in out.stderr


def test_module_and_console_script_agree(cli):
    script = Path(sys.executable).with_name("islands")
    assert script.exists(), "the console script of [project.scripts] is not installed"
    out = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout == cli("--version").stdout


@pytest.mark.parametrize("path", [p for p, _ in LEAVES], ids=[" ".join(p) for p, _ in LEAVES])
def test_help_lists_choices_without_markup(cli_here, path):
    out = cli_here(*path, "--help")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())  # argparse wraps lines
    for marker in ("``", "[/", "[dim]", "[bold", ":func:", ":class:", "%%"):
        assert marker not in text, f"markup {marker!r} in islands {' '.join(path)} --help"
    parser = dict(LEAVES)[path]
    for action in parser._actions:
        if action.choices and not isinstance(action.choices, dict):
            for choice in action.choices:
                assert str(choice) in text, f"{action.dest}: choice {choice!r} not in the help"


def test_no_pin_says_what_it_does(cli_here):
    text = " ".join(cli_here("run", "--help").stdout.split())
    assert "--no-pin do not pin workers: leave placement to the OS scheduler" in text


@pytest.mark.parametrize("command", ["run", "check"])
def test_an_unknown_transport_is_refused(cli_here, command):
    out = cli_here(command, "--transport", "pigeon", "--duration", "0.1")
    assert out.returncode == 2
    assert "--transport: invalid choice: 'pigeon'" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_single_instance_refuses_a_transport(cli_here):
    out = cli_here("run", "--deployment", "1", "--transport", "shm", "--duration", "0.1")
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "islands: error: --transport: only a deployment of several instances takes it; 1ISL is one instance"
    )


def test_every_public_config_is_exported():
    configs = {
        name
        for name, value in vars(config).items()
        if name.endswith("Config") and dataclasses.is_dataclass(value) and value.__module__.startswith("islands.config")
    }
    assert {"ProfileConfig", "LogConfig", "RunConfig"} <= configs
    for name in configs:
        assert name in islands.__all__, name
        assert getattr(islands, name) is getattr(config, name)


def test_the_package_carries_the_revision_it_was_built_from(monkeypatch, tmp_path):
    from islands.analysis import revision as metadata

    baked = metadata.built_revision()
    assert baked != "unknown", "islands/_revision.py was not installed with the package"
    commit = baked.removesuffix("-dirty")
    if shutil.which("git"):
        known = subprocess.run(["git", "-C", str(REPO), "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True)
        assert known.returncode == 0, f"{commit} is not a commit of this repository"
    # An installed wheel is not a git checkout: the baked revision is what results record.
    metadata.git_revision.cache_clear()
    monkeypatch.setattr(metadata, "_REPO", tmp_path)
    try:
        assert metadata.git_revision() == baked
    finally:
        metadata.git_revision.cache_clear()
