"""The workloads are registered once in Python (``config.WORKLOAD_SETTINGS``: section ->
settings dataclass), held here to the engine's registry (``_core.workloads()``) and to
``RunConfig``; everything else in the experiment files, the sweep and the CLI derives from
it, which these tests check by running every registered workload through them and by
reading their source for hand-kept workload names."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from islands import _core
from islands.config.settings import (
    ALL_SECTIONS,
    DEFAULT_WORKLOAD,
    SECTIONS,
    WORKLOAD_SETTINGS,
    WORKLOADS,
    RunConfig,
)
from islands.experiments.spec import ExperimentSpec
from islands.experiments.spec_sections import SECTION_FIELDS, TOP_KEYS
from islands.experiments.sweep import Sweep
from islands.machine.topology import read_topology

ROOT = Path(__file__).resolve().parent.parent
SYSFS = ROOT / "tests" / "fixtures" / "sysfs"
ENTRIES: list[dict[str, Any]] = list(_core.workloads())
SCHEMA: dict[str, list[dict[str, Any]]] = _core.settings()
#: Modules that must go over the registration, never name a workload (the default one, the
#: run's default, aside).
DERIVED = (
    "islands/experiments/spec.py",
    "islands/experiments/sweep.py",
    "islands/cli/run_command.py",
    "islands/cli/sweep_command.py",
)


def test_registration_is_the_engines_registry():
    assert list(WORKLOAD_SETTINGS) == [e["section"] for e in ENTRIES], "sections, in the engine's order"
    assert {e["name"]: e["section"] for e in ENTRIES} == WORKLOADS
    assert DEFAULT_WORKLOAD in WORKLOADS
    for section, klass in WORKLOAD_SETTINGS.items():
        assert section in SCHEMA, f"the engine has no settings section {section!r}"
        assert dataclasses.is_dataclass(klass) and klass.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_run_config_has_a_field_for_every_registered_workload():
    fields = {f.name: f for f in dataclasses.fields(RunConfig)}
    for section, klass in WORKLOAD_SETTINGS.items():
        assert section in fields, f"RunConfig lacks a field for workload section {section!r}"
        assert fields[section].default_factory is klass, f"RunConfig.{section} is not a {klass.__name__}"
    assert list(fields) == ["workload", *ALL_SECTIONS], "RunConfig's fields are the workload and the sections"


def test_sections_derive_from_the_registration():
    assert list(SECTIONS)[: len(WORKLOAD_SETTINGS)] == list(WORKLOAD_SETTINGS)
    assert {k: v for k, v in SECTIONS.items() if k in WORKLOAD_SETTINGS} == WORKLOAD_SETTINGS
    assert list(ALL_SECTIONS)[: len(SECTIONS)] == list(SECTIONS)
    assert list(SECTION_FIELDS) == [*WORKLOAD_SETTINGS, "engine", "clients"]
    assert set(WORKLOAD_SETTINGS) <= set(TOP_KEYS)


def _varied(section: str) -> tuple[str, Any]:
    """A field of the section and a valid value other than its default where one is easy to
    find (its first whole-number field, one up), else its first field at its default."""
    defaults = WORKLOAD_SETTINGS[section]()
    schema = {f["name"]: f for f in SCHEMA[section]}
    for f in dataclasses.fields(defaults):
        value = getattr(defaults, f.name)
        limit = schema.get(f.name, {}).get("max")
        if type(value) is int and (limit is None or value + 1 <= limit):
            return f.name, value + 1
    first = dataclasses.fields(defaults)[0].name
    return first, getattr(defaults, first)


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_every_registered_workload_runs_through_experiment_files_and_sweeps(name: str, tmp_path: Path):
    section = WORKLOADS[name]
    fields = [f.name for f in dataclasses.fields(WORKLOAD_SETTINGS[section])]
    key, value = _varied(section)
    fixed = next(f for f in reversed(fields) if f != key)
    default = getattr(WORKLOAD_SETTINGS[section](), fixed)
    spec = ExperimentSpec.from_dict(
        {
            "name": "registry",
            "figure": "none",
            "workload": name,
            "run": {"warmup_s": 0.0, "duration_s": 0.05},
            "grid": {key: [value]},
            section: {fixed: default},
        }
    )
    assert spec.fixed(section) == {fixed: default}
    base = spec.base_config()
    assert base.workload == name
    assert getattr(getattr(base, section), key) == value and getattr(getattr(base, section), fixed) == default
    assert spec.to_dict()[section] == {f: getattr(getattr(base, section), f) for f in fields if f != key}
    assert ExperimentSpec.from_dict(spec.to_dict()).spec_hash() == spec.spec_hash()
    points = Sweep(spec, read_topology(SYSFS / "vm-1x2"), tmp_path / "out").points()
    assert points and all(getattr(getattr(p.config, section), key) == value for p in points)
    # The config's own round trip (the hashed form) keeps the section.
    assert RunConfig.from_dict(base.to_dict()) == base
    assert base.to_dict()[section][key] == value


def _workload_names_in(path: Path) -> list[str]:
    """Workload names a module spells out: a string that is one, or an identifier holding
    one (``TPCB_FIELDS``, ``TatpConfig``, ``spec.tpcc``); docstrings and comments aside."""
    names = {n.lower() for n in (*WORKLOADS, *WORKLOAD_SETTINGS)} - {DEFAULT_WORKLOAD}
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            words = [node.value.lower()] if node.value.lower() in names else []
        elif isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.arg)):
            words = [getattr(node, "name", None) or getattr(node, "arg", "")]
        elif isinstance(node, ast.alias):
            words = [node.name, node.asname or ""]
        else:
            continue
        found += [f"{path.name}:{node.lineno}: {w}" for w in words for n in names if n in w.lower()]
    return found


def test_experiment_sweep_and_cli_name_no_workload_by_hand():
    found = [hit for module in DERIVED for hit in _workload_names_in(ROOT / module)]
    assert not found, "derive these from config.WORKLOAD_SETTINGS: " + "; ".join(found)
