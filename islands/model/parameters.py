"""The model's parameters: what one transaction costs on the machine they were measured on,
component by component, with their spread and the machine's metadata.

Every cost is microseconds of one worker's time per committed transaction (its CPU time and
the time it waits, as a closed-loop worker spends it). Keys are flat dotted names, so that a
file stays readable and diffs well:

- ``local.micro.<cc>.txn_us`` and ``local.micro.<cc>.<read|update>.row_us``: a local
  microbenchmark transaction, fixed part and per row, for ``cc`` ``none`` (a single-threaded
  instance, no locks) and ``2pl`` (row locks, one thread);
- ``local.<tpcb|tpcc-payment|tpcc-new_order>.<cc>.txn_us``: a local transaction of a
  standard workload;
- ``local.contention_per_thread``: relative cost added per additional thread of a 2PL
  instance (latches, lock words and lines moving between its threads), on one socket;
- ``log.update_us``: what group-commit logging adds to a local update transaction of a
  single-threaded instance; ``log.2pl.update_us`` the same under 2PL, whose locks are held
  until the flush (where absent, ``log.update_us`` stands in); ``log.flush_us`` the mean time
  of one flush (the simulation's group-commit delay);
- ``distr.<transport>.<read|update>.participant_us``: what a distributed transaction adds per
  other instance it involves (fragment out, vote back, for updates the prepare record and the
  second round), beyond the rows' own work;
- ``message.<transport>.round_trip_us``: the transport's bare round trip (a ping-pong
  between two cores), the part of the above that latency and distance scale;
- ``memory.share``: the share of a row's cost that is waiting for memory (what remote data
  scales; not measurable on a one-socket machine, so a stated assumption unless set).

``spread`` holds each measured cost's relative standard deviation over repetitions (the
intervals of :func:`islands.model.predict.predict` come from it) and ``model_error`` the
relative error the model showed in validation. ``machine`` is the host metadata
(:func:`islands.measure.host_metadata.collect_metadata`), its clock and its topology.

Files: JSON (``.json``) or TOML (``.toml``), chosen by suffix; :meth:`Parameters.save` and
:func:`load_parameters` round-trip exactly.
"""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "CALIBRATED_PARAMETERS",
    "PARAMETERS_VERSION",
    "Parameters",
    "chosen_parameters",
    "default_parameters",
    "load_parameters",
]

PARAMETERS_VERSION = 1
#: Relative error assumed before any validation has measured one.
DEFAULT_MODEL_ERROR = 0.25
#: memory.share where no measurement sets it: half of a row's cost is memory access (a
#: stated assumption; 000 Sec 6.1 sees 5-25% lost when data leaves the caches).
DEFAULT_MEMORY_SHARE = 0.5


@dataclass(frozen=True)
class Parameters:
    """Measured costs (``costs``: key -> microseconds, or a share), their relative spread, the
    model's validated relative error and the machine they were measured on."""

    costs: dict[str, float]
    spread: dict[str, float] = field(default_factory=dict)
    model_error: float = DEFAULT_MODEL_ERROR
    machine: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for key, value in self.costs.items():
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise ValueError(f"parameters: cost {key!r} is {value!r}, not a number")
        unknown = sorted(set(self.spread) - set(self.costs))
        if unknown:
            raise ValueError(f"parameters: spread of {unknown[0]!r}, which has no cost")
        if not 0 <= self.model_error < 10:
            raise ValueError(f"parameters: model_error {self.model_error!r} is not a relative error")
        object.__setattr__(self, "notes", tuple(str(n) for n in self.notes))

    def cost(self, key: str) -> float:
        """The cost ``key``; ``KeyError`` naming the missing key and what the file holds."""
        try:
            return float(self.costs[key])
        except KeyError:
            raise KeyError(
                f"parameters have no {key!r} (run 'islands calibrate'; they hold: {', '.join(sorted(self.costs))})"
            ) from None

    def get(self, key: str, default: float = math.nan) -> float:
        """The cost ``key``, or ``default``."""
        return float(self.costs.get(key, default))

    def to_dict(self) -> dict[str, Any]:
        """A JSON/TOML-ready dict; NaN costs are left out (a missing number is absent)."""
        return {
            "version": PARAMETERS_VERSION,
            "model_error": self.model_error,
            "notes": list(self.notes),
            "machine": _plain(self.machine),
            "costs": {k: float(v) for k, v in sorted(self.costs.items()) if v == v},
            "spread": {k: float(v) for k, v in sorted(self.spread.items()) if v == v and k in self.costs},
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Parameters:
        """Inverse of :meth:`to_dict`; ``ValueError`` naming a missing or bad field."""
        if not isinstance(d, Mapping):
            raise ValueError(f"parameters: expected a table, got {type(d).__name__}")
        if d.get("version") != PARAMETERS_VERSION:
            raise ValueError(f"parameters: version {d.get('version')!r} is not {PARAMETERS_VERSION}")
        try:
            return cls(
                costs={str(k): float(v) for k, v in d["costs"].items()},
                spread={str(k): float(v) for k, v in d.get("spread", {}).items()},
                model_error=float(d.get("model_error", DEFAULT_MODEL_ERROR)),
                machine=dict(d.get("machine", {})),
                notes=tuple(d.get("notes", ())),
            )
        except KeyError as e:
            raise ValueError(f"parameters: missing field {e.args[0]!r}") from None
        except (TypeError, AttributeError, ValueError) as e:
            raise ValueError(f"parameters: malformed field: {e}") from None

    def save(self, path: str | Path) -> Path:
        """Writes the parameters to ``path`` (``.json`` or ``.toml``), making its directory."""
        path = Path(path)
        text = _to_toml(self.to_dict()) if path.suffix == ".toml" else json.dumps(self.to_dict(), indent=2) + "\n"
        if path.suffix not in (".json", ".toml"):
            raise ValueError(f"parameters file {path}: name it .json or .toml")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path


def load_parameters(path: str | Path) -> Parameters:
    """Reads a parameters file (``.json`` or ``.toml``); ``ValueError`` naming the file and
    what is wrong with it."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ValueError(f"parameters file {path}: {e.strerror}") from None
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"parameters file {path}: not valid {path.suffix.lstrip('.') or 'JSON'}: {e}") from None
    try:
        return Parameters.from_dict(data)
    except ValueError as e:
        raise ValueError(f"parameters file {path}: {e}") from None


def default_parameters() -> Parameters:
    """The parameters shipped with the package (``islands/model/reference_parameters.json``,
    measured by ``islands calibrate`` on the development machine, whose metadata it holds):
    what the advisor uses until this machine is calibrated."""
    text = resources.files("islands.model").joinpath("reference_parameters.json").read_text()
    return Parameters.from_dict(json.loads(text))


#: Where ``islands calibrate`` writes the parameters unless told otherwise (and where
#: :func:`chosen_parameters` finds them).
CALIBRATED_PARAMETERS = Path("results/model/parameters.json")


def chosen_parameters(path: str | Path | None = None) -> tuple[Parameters, str]:
    """The parameters a prediction uses and where they come from: ``path``, else
    :data:`CALIBRATED_PARAMETERS` where ``islands calibrate`` wrote them, else the package's
    reference parameters (measured on another machine: the source says so)."""
    if path is not None:
        return load_parameters(path), str(path)
    if CALIBRATED_PARAMETERS.exists():
        return load_parameters(CALIBRATED_PARAMETERS), str(CALIBRATED_PARAMETERS)
    parameters = default_parameters()
    host = parameters.machine.get("hostname", "?")
    return parameters, f"reference parameters (measured on {host}; run 'islands calibrate' here)"


def _plain(value: Any) -> Any:
    """JSON- and TOML-ready copy: NaN and ``None`` dropped from tables, tuples as lists."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items() if v is not None and not (isinstance(v, float) and v != v)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in value.items()) + "}"
    raise ValueError(f"parameters: cannot write {value!r} to TOML")


def _to_toml(d: Mapping[str, Any]) -> str:
    """TOML text of a dict whose values are scalars, lists, or tables of those (one level of
    tables, written as [sections]; deeper tables inline)."""
    lines = [f"{k} = {_toml_value(v)}" for k, v in d.items() if not isinstance(v, Mapping)]
    for k, v in d.items():
        if isinstance(v, Mapping):
            lines += ["", f"[{k}]"]
            lines += [f"{json.dumps(str(kk))} = {_toml_value(vv)}" for kk, vv in v.items()]
    return "\n".join(lines) + "\n"
