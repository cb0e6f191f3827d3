"""The package's layers, bottom first, and which layers each may import: written once here, checked
by tests/test_layers.py (every import statement of the package, those inside functions included)
and drawn by :mod:`islands.plots.architecture` into docs/architecture.svg.

A layer is a whole package (or a top-level module); it may import its own modules and the layers
it lists, each standing for itself and everything under it. The compiled engine is
``islands._core``. Data only: this module imports nothing."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CORE", "LAYERS", "MAY_IMPORT", "Layer"]

#: The compiled engine (csrc/, through the pybind11 bindings).
CORE = "islands._core"


@dataclass(frozen=True)
class Layer:
    """One layer: its package, what it is for (one line, as the picture shows it) and the
    layers it may import."""

    name: str
    role: str
    may_import: tuple[str, ...] = ()


#: Every layer, bottom first.
LAYERS: tuple[Layer, ...] = (
    Layer("islands.machine", "topology (sysfs), placement: pure functions of a Topology"),
    Layer("islands.figures", "the papers' figures and designs: data only"),
    Layer("islands.layers", "this table"),
    Layer("islands.config", "RunConfig and its sections, generated from the engine", (CORE,)),
    Layer(
        "islands.analysis",
        "stored rows, statistics, verdicts: never launch, never draw",
        ("islands.machine", "islands.config"),
    ),
    Layer(
        "islands.measure",
        "counters, profiles, host metadata: never draws",
        (CORE, "islands.machine", "islands.config", "islands.analysis"),
    ),
    Layer(
        "islands.execution",
        "one run: plan() and execute(), in process or a deployment",
        (CORE, "islands.machine", "islands.config", "islands.measure", "islands.analysis"),
    ),
    Layer(
        "islands.atrapos",
        "ATraPos: cost model, search, the live controller",
        (CORE, "islands.machine", "islands.config", "islands.execution", "islands.measure", "islands.analysis"),
    ),
    Layer(
        "islands.model",
        "the Islands model: computes, never runs anything",
        ("islands.machine", "islands.config", "islands.analysis"),
    ),
    Layer(
        "islands.plots",
        "figures from stored rows: never launch, never measure",
        (
            "islands.machine",
            "islands.figures",
            "islands.layers",
            "islands.config",
            "islands.analysis",
            "islands.model",
            "islands.atrapos",
        ),
    ),
    Layer(
        "islands.experiments",
        "experiment files, sweeps, executors; reproduce draws what it ran",
        (
            CORE,
            "islands.machine",
            "islands.config",
            "islands.figures",
            "islands.execution",
            "islands.measure",
            "islands.analysis",
            "islands.atrapos",
            "islands.plots",
        ),
    ),
    Layer(
        "islands.bench",
        "hardware microbenchmarks, the model's calibration runs",
        (
            CORE,
            "islands.machine",
            "islands.config",
            "islands.execution",
            "islands.measure",
            "islands.analysis",
            "islands.experiments",
            "islands.model",
        ),
    ),
    Layer("islands.cli", "one module per command of `islands`: everything", ("islands",)),
    Layer(
        "islands.__main__",
        "the `islands` command: signals, stale files, --version",
        ("islands.cli", "islands.execution", "islands.analysis"),
    ),
    Layer("islands", "the lazy public API", ("islands",)),
)

#: Layer -> the layers it may import besides its own modules.
MAY_IMPORT: dict[str, tuple[str, ...]] = {layer.name: layer.may_import for layer in LAYERS}
