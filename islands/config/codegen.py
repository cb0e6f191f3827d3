"""Writes the Python side of the settings from the engine's own lists: the section dataclasses
(``islands/config/sections.py``) and the settings classes of the ``_core.pyi`` stub.

Each setting is defined once, in C++ (an X-macro per config struct: name, type, default, range,
help), and ``islands._core.settings()`` returns that schema; the class descriptions are the
bindings' (``_core.MicroConfig.__doc__``). The generated files are checked in, so that mypy
reads them and ``islands.config.settings`` imports without the engine (as DuckDB checks in
the settings header it generates from its JSON list); ``make settings`` writes them again and
``tests/test_settings.py`` fails when they differ from what this module writes. Python adds only
what the tables below list, each with its reason.

    python -m islands.config.codegen [--check]
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from islands import _core

__all__ = ["CORE_ONLY", "DEFAULT_DIFFERS", "PYTHON_ONLY", "generate_sections", "generate_stub", "main"]

PACKAGE = Path(__file__).resolve().parents[1]
SECTIONS_FILE = PACKAGE / "config" / "sections.py"
STUB_FILE = PACKAGE / "_core.pyi"

#: Engine fields Python does not mirror, each with its reason.
CORE_ONLY = {("profile", "events"): "the resolved counters; Python names event sets (counters)"}
#: Python-only fields (appended to their section): name, annotation, default, help; the reason
#: each is Python's is in its help.
PYTHON_ONLY: Mapping[str, Sequence[tuple[str, str, str, str]]] = {
    "profile": (
        ("counters", "tuple[str, ...]", "()", "event sets (resolved into profile.events where a run starts)"),
        ("simulate", "int", "0", "also run N transactions of a single-threaded copy under cachegrind; 0 = off"),
        ("cache_model", "str", '""', "caches the simulation models (islands.measure.cache_models); '' = default"),
        ("modules", "bool", "False", "sample the run with perf record and fold it into code modules"),
    ),
}
#: Defaults that differ on purpose, each with its reason (the Python default's text).
DEFAULT_DIFFERS = {("driver", "cpus"): ("(0,)", "the engine has no default CPU; a Python config runs on CPU 0")}
#: Python annotation of each schema type.
PY_TYPES = {"int": "int", "float": "float", "bool": "bool", "str": "str", "list[int]": "tuple[int, ...]"}
#: The settings class of each shared section, as the bindings name it (a workload's comes from
#: the engine's registry, ``settings_class``).
CLASS_OF = {
    "engine": "EngineConfig",
    "driver": "DriverConfig",
    "profile": "ProfileConfig",
    "log": "LogConfig",
}
_WIDTH = 120


def class_of(section: str) -> str:
    """The settings class of a section: the bindings' name (a workload's from the engine's
    registry), or ``<Section>Config`` for a new one."""
    if section in CLASS_OF:
        return CLASS_OF[section]
    for entry in _core.workloads():
        if entry["section"] == section:
            return str(entry["settings_class"])
    return section.capitalize() + "Config"


def _literal(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return f"{value:_}" if abs(value) >= 10_000 else str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "(" + "".join(f"{_literal(v)}, " for v in value).rstrip(" ") + ")" if value else "()"
    raise TypeError(f"no literal for {value!r}")


def _field_lines(name: str, annotation: str, default: str, help_text: str) -> list[str]:
    line = f"    {name}: {annotation} = {default}"
    if len(line) + len(help_text) + 5 <= _WIDTH:
        return [f"{line}  #: {help_text}"]
    wrapped = textwrap.wrap(help_text, _WIDTH - 8)
    return [f"    #: {w}" for w in wrapped] + [line]


def _doc(section: str) -> str:
    doc = getattr(_core, class_of(section), None).__doc__ if hasattr(_core, class_of(section)) else None
    text = (doc or f"The {section} settings").strip().rstrip(".")
    return f"{text} (``_core.{class_of(section)}``)."


def generate_sections(schema: Mapping[str, Sequence[Mapping[str, Any]]], workloads: Sequence[Mapping[str, Any]]) -> str:
    """The text of ``sections.py`` for the engine's ``schema`` and workload registry."""
    out = [
        '"""The sections of a run\'s settings, one frozen dataclass per C++ config struct, and',
        ":class:`RunSections`, which holds one of each. GENERATED from the engine's settings lists",
        "(``islands._core.settings()``) by ``make settings`` (:mod:`islands.config.codegen`):",
        'do not edit; tests/test_settings.py fails when this file is not what the engine\'s lists give."""',
        "",
        "from __future__ import annotations",
        "",
        "import dataclasses",
        "from dataclasses import dataclass, field",
        "",
        "",
        "class _Section:",
        '    """What every section can say of itself."""',
        "",
        "    def is_default(self) -> bool:",
        '        """True when every setting is its default (such sections leave a config\'s hash as it was)."""',
        "        return all(getattr(self, f.name) == f.default for f in dataclasses.fields(self))  # type: ignore",
        "",
    ]
    for section, fields in schema.items():
        out += [
            "",
            "@dataclass(frozen=True)",
            f"class {class_of(section)}(_Section):",
            f'    """{_doc(section)}"""',
            "",
        ]
        for f in fields:
            key = (section, f["name"])
            if key in CORE_ONLY:
                continue
            default = DEFAULT_DIFFERS[key][0] if key in DEFAULT_DIFFERS else _literal(f["default"])
            out += _field_lines(f["name"], PY_TYPES[f["type"]], default, f["help"])
        for name, annotation, default, help_text in PYTHON_ONLY.get(section, ()):
            out += _field_lines(name, annotation, default, help_text)
        out.append("")
    workload_sections = [w["section"] for w in workloads]
    out += [
        "",
        "@dataclass(frozen=True)",
        "class RunSections:",
        '    """Every section of a run\'s settings, one field each, in the engine\'s order, and the',
        '    workload that runs."""',
        "",
        f"    workload: str = {_literal(workloads[0]['name'])}  #: which workload runs (see WORKLOADS)",
    ]
    for section in schema:
        out.append(f"    {section}: {class_of(section)} = field(default_factory={class_of(section)})")
    out += [
        "",
        "",
        "#: Each workload's settings section (named as the workload) and its dataclass, in the engine's",
        "#: registry order (``_core.workloads()``).",
        "WORKLOAD_SETTINGS: dict[str, type] = {",
        *(f'    "{s}": {class_of(s)},' for s in workload_sections),
        "}",
        "#: Every section of a run's settings and its dataclass, in the engine's order.",
        "ALL_SECTIONS: dict[str, type] = {",
        *(f'    "{s}": {class_of(s)},' for s in schema),
        "}",
        "",
    ]
    return "\n".join(out)


_STUB_TYPES = {
    "int": "int",
    "float": "float",
    "bool": "bool",
    "str": "str",
    "list[int]": "list[int]",
    "list[PerfEventSpec]": "list[PerfEventSpec]",
}


def _stub_class(section: str, fields: Sequence[Mapping[str, Any]]) -> str:
    doc = (getattr(_core, class_of(section)).__doc__ or "").strip()
    lines = [f"class {class_of(section)}:", '    """', f"    {doc}", '    """', ""]
    lines += [f"    {f['name']}: {_STUB_TYPES[f['type']]}" for f in fields]
    lines += [
        "    def __init__(self) -> None: ...",
        "    def validate(self) -> None:",
        '        """',
        "        Raises ConfigError naming the first bad field",
        '        """',
        "",
    ]
    return "\n".join(lines)


def generate_stub(stub: str, schema: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """``stub`` with each settings class replaced by the one the schema gives (the rest kept)."""
    for section, fields in schema.items():
        pattern = re.compile(rf"^class {class_of(section)}:\n(?:(?:    .*)?\n)*?(?=^\S)", re.M)
        found = pattern.search(stub)
        if found is None:
            raise ValueError(f"_core.pyi has no class {class_of(section)}: add one (its bindings define it)")
        stub = stub[: found.start()] + _stub_class(section, fields) + "\n" + stub[found.end() :]
    return stub


def main(argv: Sequence[str] | None = None) -> int:
    """Writes both files (``--check``: only says which differ, exit 1)."""
    parser = argparse.ArgumentParser(prog="python -m islands.config.codegen", description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file is stale")
    args = parser.parse_args(argv)
    schema = _core.settings()
    wanted = {
        SECTIONS_FILE: generate_sections(schema, _core.workloads()),
        STUB_FILE: generate_stub(STUB_FILE.read_text(), schema),
    }
    stale = [path for path, text in wanted.items() if not path.is_file() or path.read_text() != text]
    for path in stale:
        if args.check:
            print(f"{path}: stale (run make settings)", file=sys.stderr)
        else:
            path.write_text(wanted[path])
            print(f"wrote {path}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
