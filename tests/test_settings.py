"""Settings are defined once, in C++ (an X-macro per config struct, exported as
``_core.settings()``); every other place that names a setting or a default is checked here:
the Python dataclasses, the CLI, the README, the ``_core.pyi`` stub, and the registry's
workload names and transactions."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib.util
import pickle
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import islands
from islands import _core
from islands.__main__ import build_parser
from islands.cli.run_command import config_from_args
from islands.config import codegen
from islands.config.settings import (
    ALL_SECTIONS,
    WORKLOADS,
    DriverConfig,
    RunConfig,
    resolve_field,
)
from islands.execution.runner import plan
from islands.machine.topology import read_topology

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "sysfs"
SCHEMA: dict[str, list[dict[str, Any]]] = _core.settings()

#: Fields only one side has, and defaults that differ on purpose: the generator's tables, each
#: entry with its reason (a stale entry fails the tests below).
PYTHON_ONLY = {(section, f[0]) for section, fields in codegen.PYTHON_ONLY.items() for f in fields}


def _fields(section: str) -> dict[str, dataclasses.Field[Any]]:
    return {f.name: f for f in dataclasses.fields(ALL_SECTIONS[section])}


def _python(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def test_the_generated_sections_and_stub_are_what_the_engines_lists_give():
    # make settings writes them; a setting added in C++ without it fails here
    sections = codegen.generate_sections(SCHEMA, _core.workloads())
    assert codegen.SECTIONS_FILE.read_text() == sections, "islands/config/sections.py is stale: make settings"
    stub = codegen.STUB_FILE.read_text()
    assert codegen.generate_stub(stub, SCHEMA) == stub, "islands/_core.pyi is stale: make settings"


def test_the_generator_sees_a_setting_the_sections_lack():
    changed = {**SCHEMA, "micro": [*SCHEMA["micro"], {**SCHEMA["micro"][0], "name": "new_knob", "help": "new"}]}
    text = codegen.generate_sections(changed, _core.workloads())
    assert "new_knob: int = 10_000  #: new" in text and text != codegen.SECTIONS_FILE.read_text()
    assert "    new_knob: int\n" in codegen.generate_stub(codegen.STUB_FILE.read_text(), changed)


def test_every_engine_section_has_a_dataclass_and_back():
    assert list(SCHEMA) == list(ALL_SECTIONS)


@pytest.mark.parametrize("section", list(SCHEMA))
def test_dataclass_fields_types_and_defaults_are_the_engines(section):
    fields, defaults = _fields(section), ALL_SECTIONS[section]()
    core_names = {f["name"] for f in SCHEMA[section]}
    assert {(section, n) for n in core_names - set(fields)} == {k for k in codegen.CORE_ONLY if k[0] == section}
    assert {(section, n) for n in set(fields) - core_names} == {k for k in PYTHON_ONLY if k[0] == section}
    for f in SCHEMA[section]:
        if (section, f["name"]) in codegen.CORE_ONLY:
            continue
        assert fields[f["name"]].type == codegen.PY_TYPES[f["type"]], f"{section}.{f['name']}"
        ours = _python(getattr(defaults, f["name"]))
        if (section, f["name"]) in codegen.DEFAULT_DIFFERS:
            assert ours != f["default"], f"{section}.{f['name']} agrees now: drop it from codegen.DEFAULT_DIFFERS"
        else:
            assert ours == f["default"] and type(ours) is type(f["default"]), f"{section}.{f['name']}"


@pytest.mark.parametrize("section", list(SCHEMA))
def test_bound_objects_hold_the_schema_defaults(section):
    core = getattr(_core.RunConfig(), section)
    for f in SCHEMA[section]:
        assert _python(getattr(core, f["name"])) == f["default"], f"{section}.{f['name']}"
        assert getattr(type(core), f["name"]).__doc__ == f["help"]


def _section_config(section: str, **values: Any) -> RunConfig:
    """A default RunConfig that runs the section's workload, with the section's values."""
    workload = next((w for w, s in WORKLOADS.items() if s == section), "micro")
    base = RunConfig(workload=workload, driver=DriverConfig(cpus=(0,)))
    return dataclasses.replace(base, **{section: dataclasses.replace(getattr(base, section), **values)})


RANGED = [
    (section, f) for section, fields in SCHEMA.items() for f in fields if f["min"] is not None or f["max"] is not None
]


@pytest.mark.parametrize("section, field", RANGED, ids=[f"{s}.{f['name']}" for s, f in RANGED])
def test_declared_ranges_are_enforced_and_name_the_field(section, field):
    step = 1 if field["type"] == "int" else 1e-3
    core = getattr(_core.RunConfig(), section)
    for bound in (field["min"], field["max"]):
        if bound is not None:  # the bound itself is accepted (another field may object)
            setattr(core, field["name"], bound)
            try:
                core.validate()
            except _core.ConfigError as error:
                assert error.field != f"{section}.{field['name']}", error
    for outside in (
        field["min"] - step if field["min"] is not None else None,
        field["max"] + step if field["max"] is not None else None,
    ):
        if outside is None:
            continue
        with pytest.raises(_core.ConfigError) as caught:
            _section_config(section, **{field["name"]: outside}).to_core()
        assert caught.value.field == f"{section}.{field['name']}"


@pytest.mark.parametrize("section, field", [(s, f) for s, fs in SCHEMA.items() for f in fs if f["choices"]])
def test_enum_settings_take_their_names_and_refuse_others(section, field):
    core = getattr(_core.RunConfig(), section)
    for choice in field["choices"]:
        setattr(core, field["name"], choice)
        assert getattr(core, field["name"]) == choice
    with pytest.raises(_core.ConfigError) as caught:
        setattr(core, field["name"], "no-such-value")
    assert caught.value.field == f"{section}.{field['name']}"
    assert all(choice in caught.value.why for choice in field["choices"])


def test_config_error_is_a_value_error_carrying_its_field():
    assert issubclass(_core.ConfigError, ValueError)
    assert islands.ConfigError is _core.ConfigError
    error = _core.ConfigError("micro.rows_per_txn", "must be at least 1")
    assert (error.field, error.why, str(error)) == (
        "micro.rows_per_txn",
        "must be at least 1",
        "micro.rows_per_txn: must be at least 1",
    )
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), again.field, again.why) == (_core.ConfigError, error.field, error.why)
    with pytest.raises(_core.ConfigError) as caught:  # from C++, through validate()
        _section_config("tpcb", remote=0.5, branches_per_site=1).to_core()
    assert caught.value.field == "tpcb.remote" and "second branch" in caught.value.why
    with pytest.raises(_core.ConfigError) as caught:  # a value C++ cannot even hold
        _section_config("micro", rows_per_txn=-3).to_core()
    assert caught.value.field == "micro.rows_per_txn" and "-3" in caught.value.why


def test_resolve_field_finds_the_section_of_bare_and_qualified_names():
    assert resolve_field("micro.rows_per_txn") == ("micro", "rows_per_txn")
    assert resolve_field("mix", "tpcc") == ("tpcc", "mix")
    assert resolve_field("mix", "tatp") == ("tatp", "mix")
    assert resolve_field("cpus") == ("driver", "cpus")
    assert resolve_field("workload") == ("", "workload")


# The command line ----------------------------------------------------------------------


def _run_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["run"]


def test_cli_defaults_are_the_configs():
    args = _run_parser().parse_args([])
    # The run's plan decides cc and the lock policy from the deployment (two CPUs in one instance:
    # the config's own defaults, 2pl and wait_die; one CPU would pick none). The command line
    # measures a shorter window than a config's default, on purpose.
    planned = plan(config_from_args(args), "1", cpus=(0, 1), topology=read_topology(FIXTURES / "vm-1x2"))
    assert planned.config == RunConfig(driver=DriverConfig(cpus=(0, 1), duration_s=3.0))
    one = plan(config_from_args(args), "1", cpus=(0,), topology=read_topology(FIXTURES / "vm-1x2"))
    assert one.config.engine.cc == "none"


def test_every_workload_setting_has_a_flag_with_the_schemas_default_and_help():
    parser = _run_parser()
    flags = parser.get_default("config_flags")
    by_flag = {s: a for a in parser._actions for s in a.option_strings}
    for entry in _core.workloads():
        for f in SCHEMA[entry["section"]]:
            flag = flags[f"{entry['section']}.{f['name']}"]
            action = by_flag[flag]
            assert action.default == f["default"], flag
            assert f["help"] in (action.help or ""), flag


def test_a_shared_flag_sets_the_workload_being_run():
    parser = _run_parser()
    args = parser.parse_args(["--workload", "tpcc", "--mix", "payment"])
    config = config_from_args(args)
    assert config.tpcc.mix == "payment" and config.tatp.mix == "standard"
    args = parser.parse_args(["--workload", "tpcc", "--tpcc-mix", "50-50", "--rows", "3"])
    config = config_from_args(args)
    assert config.tpcc.mix == "50-50" and config.micro.rows_per_txn == 3


def test_cli_errors_name_the_flag(capsys):
    from islands.__main__ import main

    for argv, needle in [
        (["--rows", "0"], "--rows: must be between 1 and 10000, got 0"),
        (["--workload", "tpcc", "--remote-item", "2"], "--remote-item: must be between 0 and 1, got 2"),
        (["--workload", "tpcb", "--branches-per-site", "0"], "--branches-per-site: must be between 1 and 1000000"),
        (["--duration", "0"], "--duration: must be between 0.001 and 86400"),
        (["--workload", "tatp", "--mix", "nope"], "--mix: unknown transaction 'nope'"),
    ]:
        assert main(["run", "--cores", "0", "--warmup", "0", "--duration", "0.05", *argv]) == 2
        err = capsys.readouterr().err
        assert needle in err, (argv, err)


# Documentation and stubs ---------------------------------------------------------------

#: Defaults the README quotes, each as the pattern that finds the quoted value.
README_QUOTES = {
    ("micro", "columns"): r"int32 payload columns, (\d+) by default",
    ("micro", "rows_per_site"): r"one site per worker core \(([\d,]+) rows by\s+default\)",
    ("micro", "rows_per_txn"): r"N distinct rows \((\d+) by default\)",
    ("tpcb", "remote"): r"`remote` of the transactions \((\d+)% by default",
    ("tpcc", "new_order_remote_item"): r"NewOrder (\d+)% remote items",
    ("tpcc", "new_order_rollback"): r"(\d+)% user rollbacks",
    ("tpcc", "payment_remote"): r"Payment (\d+)% remote",
    ("tpcc", "payment_by_name"): r"(\d+)%\s+by last name",
    ("tpcc", "customers_per_district"): r"(\d+) initial orders per district",
}


@pytest.mark.parametrize("key", list(README_QUOTES), ids=[".".join(k) for k in README_QUOTES])
def test_readme_quotes_the_engines_defaults(key):
    text = "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    found = re.search(README_QUOTES[key], text)
    assert found, f"README no longer quotes {'.'.join(key)}: update README_QUOTES"
    default = next(f["default"] for f in SCHEMA[key[0]] if f["name"] == key[1])
    quoted = float(found.group(1).replace(",", ""))
    if "%" in README_QUOTES[key]:
        quoted /= 100
    assert quoted == pytest.approx(default), ".".join(key)


def test_stub_declares_every_field_of_every_settings_class():
    tree = ast.parse((ROOT / "islands" / "_core.pyi").read_text())
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def members(cls: ast.ClassDef) -> dict[str, str]:
        out = {}
        for node in cls.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                out[node.target.id] = ast.unparse(node.annotation)
            elif isinstance(node, ast.FunctionDef) and any(ast.unparse(d) == "property" for d in node.decorator_list):
                out[node.name] = ast.unparse(node.returns) if node.returns else ""
        return out

    sections = members(classes["RunConfig"])
    for section, fields in SCHEMA.items():
        stub = members(classes[sections[section]])
        for f in fields:
            assert stub.get(f["name"]) == f["type"], f"_core.pyi {sections[section]}.{f['name']}: {f['type']}"
    assert "ConfigError" in classes and "settings" in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


# The workload registry -----------------------------------------------------------------


def test_workload_names_sections_and_transactions_are_the_registrys():
    entries = _core.workloads()
    assert {e["name"]: e["section"] for e in entries} == WORKLOADS
    transactions = {e["name"]: tuple(e["transactions"]) for e in entries}
    # the names a mix takes (the specifications' order, TATP's that of its standard mix)
    assert transactions["tatp"] == (
        "get_subscriber_data",
        "get_new_destination",
        "get_access_data",
        "update_subscriber_data",
        "update_location",
        "insert_call_forwarding",
        "delete_call_forwarding",
    )
    assert transactions["tpcc"] == ("new_order", "payment", "order_status", "delivery", "stock_level")


def test_config_module_imports_without_the_extension():
    # settings.py itself imports nothing compiled (the package's __init__ is another matter).
    path = ROOT / "islands" / "config" / "settings.py"
    code = (
        "import importlib.util, sys\n"
        "sys.modules['islands._core'] = None\n"
        f"spec = importlib.util.spec_from_file_location('config_probe', {str(path)!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "sys.modules['config_probe'] = module\n"
        "spec.loader.exec_module(module)\n"
        "print(module.RunConfig().config_hash())\n"
        "assert not any(m.startswith('islands.measure.pmu') for m in sys.modules), 'settings import measurement code'\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == RunConfig().config_hash()
    assert importlib.util.find_spec("islands.config.settings") is not None


def test_a_micro_mix_changes_the_hash_only_when_given():
    """micro.read_share came after results were stored: at 0 (no mix) it is left out of the
    config, so that configs without a mix keep the hash they had."""
    plain = RunConfig()
    assert "read_share" not in plain.to_dict()["micro"]
    mixed = dataclasses.replace(plain, micro=dataclasses.replace(plain.micro, update=True, read_share=0.25))
    assert mixed.to_dict()["micro"]["read_share"] == 0.25
    assert RunConfig.from_dict(mixed.to_dict()) == mixed and RunConfig.from_dict(plain.to_dict()) == plain
    assert (
        mixed.config_hash()
        != dataclasses.replace(mixed, micro=dataclasses.replace(mixed.micro, read_share=0)).config_hash()
    )
    with pytest.raises(_core.ConfigError) as caught:
        dataclasses.replace(plain, micro=dataclasses.replace(plain.micro, read_share=0.5)).to_core()
    assert caught.value.field == "micro.update"
